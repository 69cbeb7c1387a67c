/*
 * plans.c: the operation table's rows for SageMaker training plans
 * (reserved capacity): search offerings, reserve one, read a plan with
 * its extensions and the groups on it, and extend it.  Reserving and
 * extending buy capacity, so both are long operations with a dry run
 * that shows the upfront fee before anything is bought.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/* The types SageMaker reserves (ReservedCapacityInstanceType). */
static const char *const plan_types[] = { "ml.p4d.24xlarge", "ml.p4de.24xlarge",
	"ml.p5.48xlarge", "ml.p5e.48xlarge", "ml.p5en.48xlarge",
	"ml.p5.4xlarge", "ml.trn1.32xlarge", "ml.trn2.48xlarge",
	"ml.p6-b200.48xlarge", "ml.p6-b300.48xlarge", "ml.p6e-gb200.36xlarge",
	NULL };
static const char *const plan_targets[] = { "hyperpod-cluster", "training-job",
	NULL };

#define F_PLAN_PATH \
	{ \
		.name = "plan", .type = SW_T_STRING, \
		.flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63, \
		.pattern = PAT_QUOTA, .desc = "Training plan name." \
	}

#define F_WINDOW(fl) \
	{ .name = "instance_type", \
		.type = SW_T_STRING, \
		.flags = (fl) | SW_F_REQUIRED, \
		.enumv = plan_types, \
		.desc = "Instance type to reserve." }, \
	    { .name = "count", \
		    .type = SW_T_INT, \
		    .flags = (fl) | SW_F_REQUIRED, \
		    .min = 1, \
		    .max = 256, \
		    .desc = "Instances to reserve." }, \
	    { .name = "duration_hours", \
		    .type = SW_T_INT, \
		    .flags = (fl) | SW_F_REQUIRED, \
		    .min = 1, \
		    .max = 87600, \
		    .desc = "How long the capacity is held." }, \
	    { .name = "start_after", \
		    .type = SW_T_INT, \
		    .flags = (fl), \
		    .min = 0, \
		    .desc = "Earliest start (Unix seconds; not in the " \
			    "past; default: now)." }, \
	    { .name = "end_before", \
		    .type = SW_T_INT, \
		    .flags = (fl), \
		    .min = 0, \
		    .desc = "Latest end (Unix seconds; in the future)." }, \
	    { .name = "target", \
		    .type = SW_T_STRING, \
		    .flags = (fl), \
		    .enumv = plan_targets, \
		    .dflt = "hyperpod-cluster", \
		    .desc = "What the capacity is for (default: " \
			    "hyperpod-cluster)." }, \
	{ \
		.name = "availability_zone", .type = SW_T_STRING, \
		.flags = (fl), .min = 1, .max = 32, .pattern = PAT_AZ, \
		.desc = "Only offerings in this AZ." \
	}

/* clang-format off */
static const struct sw_field f_search[] = {
	F_WINDOW(SW_F_QUERY),
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_reserve[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_QUOTA,
	  .desc = "Name of the new training plan." },
	F_WINDOW(0),
	{ .name = "offering_id", .type = SW_T_STRING, .min = 1, .max = 256,
	  .pattern = "[a-z0-9-]+", .desc = "The offering to buy, from "
	  "training_plan_search (default: the first that fits)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_plan_path[] = {
	F_PLAN_PATH,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_extend[] = {
	{ .name = "duration_hours", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 4368, .desc = "Hours to add after the plan's "
	  "end." },
	{ .name = "offering_id", .type = SW_T_STRING, .min = 1, .max = 256,
	  .pattern = "[a-z0-9-]+", .desc = "The extension offering to buy "
	  "(default: the first that fits)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_offering_item[] = {
	{ .name = "offering", .type = SW_T_OBJECT, .fields = sw_offering_fields },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_offering_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_offering_item, .desc = "Offerings that fit, cheapest "
	  "first as SageMaker orders them." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_search[] = {
	{ .status = 200, .fields = o_offering_list,
	  .desc = "The offerings." },
	{ 0 }
};
/* clang-format on */

/* A group that runs on a plan. */
/* clang-format off */
static const struct sw_field o_plan_group[] = {
	OUT("cluster", SW_T_STRING, "The cluster."),
	OUT("group", SW_T_STRING, "The instance group."),
	OUT("count", SW_T_INT, "Its instances."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_plan_group_item[] = {
	{ .name = "group", .type = SW_T_OBJECT, .fields = o_plan_group },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ext_item[] = {
	{ .name = "extension", .type = SW_T_ANY,
	  .desc = "A TrainingPlanExtension as SageMaker returns it." },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_plan[] = {
	OUT("name", SW_T_STRING, "The plan."),
	OUT("arn", SW_T_STRING, "Its ARN."),
	OUT("status", SW_T_STRING, "Pending, Scheduled, Active, Expired or "
	    "Failed."),
	OUT_OPT("start_time", SW_T_INT, "Start (Unix seconds)."),
	OUT_OPT("end_time", SW_T_INT, "End (Unix seconds)."),
	OUT_OPT("remaining_seconds", SW_T_INT, "Until its end, by AWS's "
	    "clock (0 once ended)."),
	OUT_OPT("upfront_fee", SW_T_NUMBER, "What it cost."),
	OUT_OPT("currency", SW_T_STRING, "The fee's currency."),
	OUT("plan", SW_T_ANY, "DescribeTrainingPlan's answer."),
	{ .name = "extensions", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ext_item, .desc = "Its extension history." },
	{ .name = "groups", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_plan_group_item, .desc = "Instance groups of the "
	  "clusters Slipway owns that run on it." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_plan[] = {
	{ .status = 200, .fields = o_plan, .desc = "The plan." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "training_plan_search",
	  .method = "GET",
	  .path = "/api/v1/training-plan-offerings",
	  .tag = "inspect",
	  .summary = "Search training plan offerings: type, count, AZ, window",
	  .description = "SearchTrainingPlanOfferings: what could be "
	    "reserved and its upfront fee.  A window in the past is refused "
	    "(422); none fitting is an empty list.",
	  .params = f_search,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_search,
	},
	{
	  .name = "training_plan_get",
	  .method = "GET",
	  .path = "/api/v1/training-plans/{plan}",
	  .tag = "inspect",
	  .summary = "A training plan: status, remaining time, extensions, "
	    "the groups on it",
	  .params = f_plan_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_plan,
	},
	{
	  .name = "training_plan_reserve",
	  .method = "POST",
	  .path = "/api/v1/training-plans",
	  .tag = "inspect",
	  .summary = "Reserve capacity: buy a training plan offering",
	  .description = "Picks the offering (offering_id, or the first "
	    "that fits), buys it (CreateTrainingPlan) and waits until it is "
	    "Scheduled or Active.  dry_run=true shows the offering and its "
	    "upfront fee (purchase) and buys nothing.  No fitting offering "
	    "or a window in the past is refused (422).",
	  .body = f_reserve,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .answers = a_long,
	},
	{
	  .name = "training_plan_extend",
	  .method = "POST",
	  .path = "/api/v1/training-plans/{plan}:extend",
	  .tag = "inspect",
	  .summary = "Extend a training plan by an extension offering",
	  .description = "Searches the plan's extension offerings, buys one "
	    "(ExtendTrainingPlan) and waits for its payment.  dry_run=true "
	    "shows the fee.  An expired plan is refused (422).",
	  .params = f_plan_path,
	  .body = f_extend,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .answers = a_long,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_plans = { rows,
	sizeof(rows) / sizeof(rows[0]) };
