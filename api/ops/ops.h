/*
 * ops.h: what the families of the operation table (the files of
 * api/ops/) share: the enumerations and field rows more than one
 * family uses, how an answer's members and rows are written, and the
 * answers of every long operation.  The patterns are in
 * api/ops/patterns.h.
 */
#ifndef SW_OPS_H
#define SW_OPS_H

#include "api/optable.h"
#include "api/ops/families.h"
#include "api/ops/patterns.h"

static const char *const capacity_types[] = { "on-demand", "spot",
	"training-plan", NULL };

static const char *const deep_checks[] = { "InstanceStress",
	"InstanceConnectivity", NULL };

/* The cluster a route acts on: one row, in every table that has it. */
#define F_CLUSTER_PATH \
	{ \
		.name = "name", .type = SW_T_STRING, \
		.flags = SW_F_PATH | SW_F_REQUIRED, .min = 2, .max = 32, \
		.pattern = PAT_CLUSTER, \
		.desc = "Cluster name (EKS and HyperPod share it)." \
	}

/* clang-format off */
static const struct sw_field f_cluster_name[] = {
	F_CLUSTER_PATH,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_check_item[] = {
	{ .name = "check", .type = SW_T_STRING, .enumv = deep_checks },
};
/* clang-format on */

/* A rolling deployment: batches, a wait between them, rollback alarms. */
/* clang-format off */
static const struct sw_field f_alarm_item[] = {
	{ .name = "alarm", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = "[A-Za-z0-9 ._/#:()+=-]+" },
};
/* clang-format on */

#define F_ROLLING_FIELDS \
	{ .name = "batch_percent", \
		.type = SW_T_INT, \
		.min = 1, \
		.max = 100, \
		.excludes = "batch_count", \
		.desc = "Nodes updated at once, percent of the group " \
			"(default 20)." }, \
	    { .name = "batch_count", \
		    .type = SW_T_INT, \
		    .min = 1, \
		    .max = 1000, \
		    .desc = "Or: nodes updated at once." }, \
	    { .name = "rollback_batch_percent", \
		    .type = SW_T_INT, \
		    .min = 1, \
		    .max = 100, \
		    .excludes = "rollback_batch_count", \
		    .desc = \
			"Nodes rolled back at once, percent of the group " \
			"(RollbackMaximumBatchSize; default: as batch_*)." }, \
	    { .name = "rollback_batch_count", \
		    .type = SW_T_INT, \
		    .min = 1, \
		    .max = 1000, \
		    .desc = "Or: nodes rolled back at once." }, \
	    { .name = "wait_seconds", \
		    .type = SW_T_INT, \
		    .min = 0, \
		    .max = 3600, \
		    .desc = "Wait between batches." }, \
	{ \
		.name = "rollback_alarms", .type = SW_T_ARRAY, .min = 1, \
		.max = 10, .items = f_alarm_item, \
		.desc = "CloudWatch alarms that roll the update back." \
	}

/* Task governance on a workload: two rows every workload body takes. */
#define F_KUEUE_FIELDS \
	{ .name = "queue", \
		.type = SW_T_STRING, \
		.min = 1, \
		.max = 63, \
		.pattern = \
		    "hyperpod-ns-[a-z0-9]([-a-z0-9]*[a-z0-9])?-localqueue", \
		.desc = \
		    "Kueue queue of a team's compute quota " \
		    "(hyperpod-ns-<team>-localqueue); the namespace must be " \
		    "hyperpod-ns-<team> (a workload without namespace goes " \
		    "there)." }, \
	{ \
		.name = "priority", .type = SW_T_STRING, .min = 1, .max = 39, \
		.pattern = PAT_TEAM, \
		.desc = "Priority class of the scheduler config " \
			"(scheduler_config_get)." \
	}

/* clang-format off */
static const struct sw_field f_wl_cluster[] = {
	F_CLUSTER_PATH,
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Only this namespace (default: all)." },
	{ NULL }
};
/* clang-format on */

/* An answer's member: always there (OUT) or only sometimes (OUT_OPT). */
#define OUT(n, t, d) \
	{ \
		.name = (n), .type = (t), .flags = SW_F_REQUIRED, .desc = (d) \
	}
#define OUT_OPT(n, t, d) \
	{ \
		.name = (n), .type = (t), .desc = (d) \
	}

/* An answer row of a shared shape, and the plan a dry run sends. */
#define ANSWER(st, sh, d) \
	{ \
		.status = (st), .shape = (sh), .desc = (d) \
	}
#define ANSWER_DRY(sh) \
	{ \
		.status = 200, .dry_run = SW_DRY_ONLY, .shape = (sh), \
		.desc = "The plan: what would be done " \
			"(dry_run=true); nothing is changed." \
	}
#define ANSWERS_LONG \
	ANSWER(202, "Accepted", \
	    "Started (or, for the same request while " \
	    "it runs or the same Idempotency-Key, the operation it " \
	    "started); follow it with its status tool."), \
	    ANSWER_DRY("Plan")

/* Rows of the shared shapes (api/ops/shapes.c) a family's answer may
 * add members to: an operation as listed, a stage, an event, a plan's
 * call, wait and stage name. */
extern const struct sw_field sw_op_summary_item[];
extern const struct sw_field sw_stage_item[];
extern const struct sw_field sw_event_item[];
extern const struct sw_field sw_plan_call_item[];
/* A training plan offering: what a purchase buys (api/ops/shapes.c). */
extern const struct sw_field sw_offering_fields[];
/* The plan a group runs on and its end (api/ops/shapes.c). */
extern const struct sw_field sw_plan_brief_fields[];
extern const struct sw_field sw_cost_fields[];
extern const struct sw_field sw_endpoint_cost_fields[];
extern const struct sw_field sw_pending_fields[];
extern const struct sw_field sw_plan_wait_item[];
extern const struct sw_field sw_plan_stage_item[];
/* A pod's last lines and the metrics read from them. */
extern const struct sw_field sw_pod_log_item[];
extern const struct sw_field sw_log_metrics[];

static const char *const op_states[] = { "pending", "running", "succeeded",
	"failed", "cancelled", NULL };

/* The members of every operation read from the store; params only
 * where the operation is read back, not in a 202. */
#define F_OP_COMMON \
	{ .name = "id", \
		.type = SW_T_STRING, \
		.flags = SW_F_REQUIRED, \
		.pattern = PAT_OP_ID, \
		.desc = "Operation id." }, \
	    OUT("kind", SW_T_STRING, "What it does (cluster.create...)."), \
	    OUT("target", SW_T_STRING, "What it acts on."), \
	    OUT_OPT("cluster", SW_T_STRING, \
		"The cluster, when it acts on " \
		"one."), \
	    { .name = "state", \
		    .type = SW_T_STRING, \
		    .flags = SW_F_REQUIRED, \
		    .enumv = op_states, \
		    .desc = "Where it is." }, \
	    OUT("requested_by", SW_T_STRING, "The token name that asked."), \
	    OUT("created_ms", SW_T_INT, "When it was asked for."), \
	    OUT("updated_ms", SW_T_INT, "When it last changed."), \
	    OUT_OPT("result", SW_T_ANY, "What it produced, once succeeded."), \
	    OUT_OPT("error", SW_T_STRING, "Why it failed."), \
	    OUT("cancel_requested", SW_T_BOOL, "A cancel was asked for."), \
	    OUT_OPT("idempotency_key", SW_T_STRING, \
		"The Idempotency-Key it was started with."), \
	    OUT("due_ms", SW_T_INT, "When the poller takes it up next.")
#define F_OP_PARAMS OUT("params", SW_T_ANY, "The validated request it runs.")
#define F_OP_STAGES \
	{ \
		.name = "stages", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED, \
		.items = sw_stage_item, .desc = "Its stages, in order." \
	}

/* The members of a 202: the operation started and how to follow it. */
#define F_ACCEPTED \
	F_OP_COMMON, F_OP_STAGES, \
	    { .name = "operation_id", \
		    .type = SW_T_STRING, \
		    .flags = SW_F_REQUIRED, \
		    .pattern = PAT_OP_ID, \
		    .desc = "The operation to follow (as id)." }, \
	    OUT("status_tool", SW_T_STRING, \
		"The tool that says when it is done."), \
	    OUT("poll_interval_seconds", SW_T_INT, "How often to ask."), \
	    OUT("idempotent_replay", SW_T_BOOL, \
		"The same Idempotency-Key " \
		"and request started it before: this is that operation.")

/* The members of a pipeline's plan (dry_run=true). */
#define F_PLAN \
	OUT("dry_run", SW_T_BOOL, "Always true: nothing was changed."), \
	    OUT("kind", SW_T_STRING, "The operation kind it would start."), \
	    OUT("target", SW_T_STRING, "What it would act on."), \
	    OUT("params", SW_T_ANY, "The validated request."), \
	    { .name = "calls", \
		    .type = SW_T_ARRAY, \
		    .flags = SW_F_REQUIRED, \
		    .items = sw_plan_call_item, \
		    .desc = "The calls, in order." }, \
	    { .name = "waits", \
		    .type = SW_T_ARRAY, \
		    .flags = SW_F_REQUIRED, \
		    .items = sw_plan_wait_item, \
		    .desc = "The waits between them." }, \
	    { .name = "stages", \
		    .type = SW_T_ARRAY, \
		    .flags = SW_F_REQUIRED, \
		    .items = sw_plan_stage_item, \
		    .desc = "The stages it would run." }, \
	    { .name = "cost", \
		    .type = SW_T_OBJECT, \
		    .fields = sw_cost_fields, \
		    .desc = \
			"What it adds per hour, priced from the AWS Price List " \
			"API (when it changes instance counts)." }, \
	{ \
		.name = "purchase", .type = SW_T_OBJECT, \
		.fields = sw_offering_fields, \
		.desc = "What it would buy " \
			"(training plans): the offering and its upfront fee." \
	}

/* A Kubernetes object a workload answer names. */
/* clang-format off */
static const struct sw_field o_ref[] = {
	OUT_OPT("kind", SW_T_STRING, "Its kind."),
	OUT_OPT("name", SW_T_STRING, "Its name."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("apiVersion", SW_T_STRING, "Its apiVersion."),
	OUT_OPT("role", SW_T_STRING, "The IAM role of an IAMRolePolicy."),
	OUT_OPT("deleted", SW_T_BOOL, "True for a pod a resize deleted."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ref_item[] = {
	{ .name = "object", .type = SW_T_OBJECT, .fields = o_ref },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_manifest_item[] = {
	{ .name = "manifest", .type = SW_T_ANY,
	  .desc = "A Kubernetes object it would apply." },
};
/* clang-format on */

/* A long operation's answers: the operation it started, or its plan. */
/* clang-format off */
static const struct sw_answer a_long[] = {
	ANSWERS_LONG,
	{ 0 }
};
/* clang-format on */

#endif
