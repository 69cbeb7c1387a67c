/*
 * governance.c: the operation table's rows for task governance:
 * compute quotas and the scheduler configuration, each beside the
 * fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const sharing_modes[] = { "Lend", "DontLend",
	"LendAndBorrow", NULL };

static const char *const preempt_modes[] = { "Never", "LowerPriority", NULL };

/* clang-format off */
static const struct sw_field f_quota_path[] = {
	F_CLUSTER_PATH,
	{ .name = "quota", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_QUOTA, .desc = "Compute quota name." },
	{ NULL }
};
/* clang-format on */

/* The members quota create and update share (update: all optional). */
#define F_QUOTA_AMOUNTS \
	{ .name = "instance_type", \
		.type = SW_T_STRING, \
		.min = 4, \
		.max = 32, \
		.pattern = PAT_ML_TYPE, \
		.desc = "Instance type of the cluster the quota is of." }, \
	    { .name = "count", \
		    .type = SW_T_INT, \
		    .min = 0, \
		    .max = 10000, \
		    .desc = \
			"Instances of that type the team is guaranteed." }, \
	    { .name = "accelerators", \
		    .type = SW_T_INT, \
		    .min = 0, \
		    .max = 100000, \
		    .desc = "Or: accelerators (GPUs, Neuron cores)." }, \
	    { .name = "vcpu", \
		    .type = SW_T_NUMBER, \
		    .min = 0, \
		    .max = 1000000, \
		    .desc = "Or: vCPUs." }, \
	    { .name = "memory_gib", \
		    .type = SW_T_NUMBER, \
		    .min = 0, \
		    .max = 10000000, \
		    .desc = "Or: memory in GiB." }, \
	    { .name = "fair_share_weight", \
		    .type = SW_T_INT, \
		    .min = 0, \
		    .max = 100, \
		    .desc = \
			"Weight of the team when idle capacity is shared." }, \
	    { .name = "sharing", \
		    .type = SW_T_STRING, \
		    .enumv = sharing_modes, \
		    .desc = \
			"Lend idle quota, DontLend, or LendAndBorrow (default)." }, \
	    { .name = "borrow_limit", \
		    .type = SW_T_INT, \
		    .min = 0, \
		    .max = 10000, \
		    .desc = "Percent of the quota the team may borrow " \
			    "(LendAndBorrow only)." }, \
	    { .name = "preempt", \
		    .type = SW_T_STRING, \
		    .enumv = preempt_modes, \
		    .desc = \
			"Never, or preempt the team's LowerPriority tasks " \
			"to admit higher ones." }, \
	    { .name = "enabled", \
		    .type = SW_T_BOOL, \
		    .desc = \
			"false keeps the quota but does not enforce it." }, \
	{ \
		.name = "description", .type = SW_T_STRING, .min = 0, \
		.max = 256, .pattern = "[^\x01-\x1f]*", .desc = "Free text." \
	}

/* clang-format off */
static const struct sw_field f_quota_create[] = {
	{ .name = "quota_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_QUOTA,
	  .desc = "Name of the quota, unique in the cluster." },
	{ .name = "team", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 39, .pattern = PAT_TEAM,
	  .desc = "Team; its workloads run in namespace hyperpod-ns-<team> "
	  "and queue hyperpod-ns-<team>-localqueue. One quota per team." },
	F_QUOTA_AMOUNTS,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_quota_update[] = {
	F_QUOTA_AMOUNTS,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_priority_class[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 39, .pattern = PAT_TEAM,
	  .desc = "Priority class name (the kueue.x-k8s.io/priority-class "
	  "label of a workload)." },
	{ .name = "weight", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 0, .max = 100, .desc = "Higher runs first." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_priority_item[] = {
	{ .name = "priority_class", .type = SW_T_OBJECT,
	  .fields = f_priority_class },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_scheduler_config[] = {
	{ .name = "priority_classes", .type = SW_T_ARRAY, .min = 0, .max = 20,
	  .desc = "Priority classes [{name, weight}].",
	  .items = f_priority_item },
	{ .name = "fair_share", .type = SW_T_BOOL,
	  .desc = "Share idle capacity among teams by their weights." },
	{ .name = "idle_resource_sharing", .type = SW_T_BOOL,
	  .desc = "Let teams borrow capacity others leave idle." },
	{ NULL }
};
/* clang-format on */

/* A compute quota as Slipway shows it (from SageMaker's). */
#define F_QUOTA_VIEW \
	OUT_OPT("quota_name", SW_T_STRING, "Its name."), \
	    OUT_OPT("id", SW_T_STRING, "SageMaker's id of it."), \
	    OUT_OPT("arn", SW_T_STRING, "Its ARN."), \
	    OUT_OPT("team", SW_T_STRING, "The team it is for."), \
	    OUT("namespace", SW_T_STRING, \
		"The team's namespace " \
		"(hyperpod-ns-<team>)."), \
	    OUT("queue", SW_T_STRING, "The team's Kueue queue."), \
	    OUT_OPT("instance_type", SW_T_STRING, "Its instance type."), \
	    OUT_OPT("count", SW_T_INT, "Instances."), \
	    OUT_OPT("accelerators", SW_T_INT, "Or accelerators."), \
	    OUT_OPT("vcpu", SW_T_NUMBER, "Or vCPUs."), \
	    OUT_OPT("memory_gib", SW_T_NUMBER, "And memory in GiB."), \
	    OUT_OPT("fair_share_weight", SW_T_INT, \
		"Its weight when idle " \
		"compute is shared."), \
	    OUT_OPT("sharing", SW_T_STRING, \
		"Lend, DontLend or " \
		"LendAndBorrow."), \
	    OUT_OPT("borrow_limit", SW_T_INT, "Percent it may borrow."), \
	    OUT_OPT("preempt", SW_T_STRING, "Never or LowerPriority."), \
	    OUT("enabled", SW_T_BOOL, "It is active."), \
	    OUT_OPT("status", SW_T_STRING, "Created, Creating, Updating..."), \
	    OUT_OPT("version", SW_T_INT, "Its version."), \
	    OUT_OPT("failure_reason", SW_T_STRING, "Why it failed."), \
	    OUT_OPT("created", SW_T_STRING, "When (RFC 3339, UTC).")

/* clang-format off */
static const struct sw_field o_quota[] = {
	F_QUOTA_VIEW,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_quota_changed[] = {
	F_QUOTA_VIEW,
	OUT("status_tool", SW_T_STRING, "compute_quota_get: poll it until "
	    "the status is Created."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_quota_item[] = {
	{ .name = "quota", .type = SW_T_OBJECT, .fields = o_quota },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_quota_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_quota_item, .desc = "The cluster's quotas, by name." },
	{ NULL }
};
/* clang-format on */

/* What a governance change would call (dry_run=true). */
/* clang-format off */
static const struct sw_field o_sm_call[] = {
	OUT("service", SW_T_STRING, "sagemaker."),
	OUT("operation", SW_T_STRING, "The call."),
	OUT("input", SW_T_ANY, "Its input."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sm_call_item[] = {
	{ .name = "call", .type = SW_T_OBJECT, .fields = o_sm_call },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sm_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "calls", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_sm_call_item, .desc = "The call it would make." },
	{ NULL }
};
/* clang-format on */
#define GOV_DRY \
	{ \
		.status = 200, .dry_run = SW_DRY_ONLY, .fields = o_sm_plan, \
		.desc = "The plan (dry_run=true): the SageMaker call." \
	}

/* clang-format off */
static const struct sw_answer a_quota_list[] = {
	{ .status = 200, .fields = o_quota_list, .desc = "The quotas." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_quota_get[] = {
	{ .status = 200, .fields = o_quota, .desc = "The quota." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_quota_create[] = {
	{ .status = 201, .fields = o_quota_changed,
	  .desc = "Created; SageMaker makes it ready." },
	GOV_DRY,
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_quota_update[] = {
	{ .status = 200, .fields = o_quota_changed, .desc = "Updated." },
	GOV_DRY,
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_quota_deleting[] = {
	OUT("quota_name", SW_T_STRING, "Its name."),
	OUT("id", SW_T_STRING, "SageMaker's id of it."),
	OUT("status", SW_T_STRING, "Deleting."),
	OUT("status_tool", SW_T_STRING, "compute_quota_list: it is gone "
	    "when no longer listed."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_quota_delete[] = {
	{ .status = 202, .fields = o_quota_deleting,
	  .desc = "Deleting: SageMaker removes it." },
	GOV_DRY,
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_priority[] = {
	OUT_OPT("name", SW_T_STRING, "Priority class."),
	OUT_OPT("weight", SW_T_INT, "Its weight."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_priority_item[] = {
	{ .name = "class", .type = SW_T_OBJECT, .fields = o_priority },
};
/* clang-format on */
#define F_SCHED_VIEW \
	OUT_OPT("id", SW_T_STRING, "SageMaker's id of it."), \
	    OUT_OPT("config_name", SW_T_STRING, "Its name."), \
	    OUT_OPT("arn", SW_T_STRING, "Its ARN."), \
	    OUT_OPT("status", SW_T_STRING, "Created, Creating, Updating..."), \
	    OUT_OPT("version", SW_T_INT, "Its version."), \
	    OUT_OPT("failure_reason", SW_T_STRING, "Why it failed."), \
	    { .name = "priority_classes", \
		    .type = SW_T_ARRAY, \
		    .flags = SW_F_REQUIRED, \
		    .items = o_priority_item, \
		    .desc = "Priority classes, by weight." }, \
	    OUT("fair_share", SW_T_BOOL, "Fair sharing is on."), \
	    OUT("idle_resource_sharing", SW_T_BOOL, "Idle compute is lent.")

/* clang-format off */
static const struct sw_field o_sched[] = {
	OUT("configured", SW_T_BOOL, "The cluster has a scheduler config."),
	OUT_OPT("task_governance", SW_T_STRING, "The task governance "
	    "add-on's state."),
	F_SCHED_VIEW,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sched_none[] = {
	OUT("configured", SW_T_BOOL, "Always false here."),
	OUT_OPT("task_governance", SW_T_STRING, "The task governance "
	    "add-on's state."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_sched_get[] = {
	{ .status = 200, .fields = o_sched, .desc = "The scheduler "
	  "config." },
	{ .status = 200, .fields = o_sched_none,
	  .desc = "The cluster has none yet." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sched_set[] = {
	F_SCHED_VIEW,
	OUT("status_tool", SW_T_STRING, "scheduler_config_get: poll it "
	    "until the status is Created."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_sched_set[] = {
	{ .status = 201, .fields = o_sched_set, .desc = "Created." },
	{ .status = 200, .fields = o_sched_set, .desc = "Updated." },
	GOV_DRY,
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_team_resource[] = {
	OUT("instance_type", SW_T_STRING, "The flavor (instance type)."),
	OUT("resource", SW_T_STRING, "nvidia.com/gpu, cpu, memory..."),
	OUT("nominal", SW_T_NUMBER, "The team's quota."),
	OUT_OPT("borrowing_limit", SW_T_NUMBER, "How much it may borrow."),
	OUT("in_use", SW_T_NUMBER, "What its admitted work uses."),
	OUT("borrowed", SW_T_NUMBER, "Of that, borrowed from the cohort."),
	OUT("lent", SW_T_NUMBER, "Its idle quota others borrow."),
	OUT("pending", SW_T_NUMBER, "What its waiting work asks for."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_resource_item[] = {
	{ .name = "resource", .type = SW_T_OBJECT, .fields = o_team_resource },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team[] = {
	OUT_OPT("team", SW_T_STRING, "The team."),
	OUT("cluster_queue", SW_T_STRING, "Its ClusterQueue."),
	OUT_OPT("cohort", SW_T_STRING, "The cohort it borrows in."),
	OUT("preempt_within_team", SW_T_STRING, "Its preemption within "
	    "the team (Kueue's withinClusterQueue)."),
	OUT("reclaim_lent", SW_T_STRING, "Whether it takes back what it "
	    "lent (reclaimWithinCohort)."),
	OUT("admitted_workloads", SW_T_INT, "Workloads admitted."),
	OUT("pending_workloads", SW_T_INT, "Workloads waiting."),
	{ .name = "resources", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_team_resource_item, .desc = "Per instance type and "
	  "resource." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_item[] = {
	{ .name = "team", .type = SW_T_OBJECT, .fields = o_team },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_team_item, .desc = "One per team." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_team_usage[] = {
	{ .status = 200, .fields = o_team_list, .desc = "The teams." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "team_usage",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/teams",
	  .tag = "governance",
	  .summary = "Each team's quota, use, borrowing, lending and waiting "
	    "demand, by instance type",
	  .description = "From Kueue (task governance): per team "
	    "(cluster_queue hyperpod-ns-<team>-clusterqueue) and per "
	    "instance_type and resource: nominal, borrowing_limit, in_use, "
	    "borrowed (from the cohort), lent (at most the team's idle quota "
	    "that others borrow) and pending (demand of its waiting jobs); "
	    "memory in GiB, cpu in cores. Change a quota with "
	    "compute_quota_update.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_team_usage,
	},
	{
	  .name = "compute_quota_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/compute-quotas",
	  .tag = "governance",
	  .summary = "Compute quotas of the cluster's teams",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_quota_list,
	},
	{
	  .name = "compute_quota_create",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/compute-quotas",
	  .tag = "governance",
	  .summary = "Give a team a compute quota (task governance)",
	  .description = "Answers 201 with status Creating; poll "
	    "compute_quota_get until Created (CreateFailed names the "
	    "reason, e.g. task_governance not on).",
	  .params = f_cluster_name,
	  .body = f_quota_create,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "compute_quota_get",
	  .poll_seconds = 10,
	  .answers = a_quota_create,
	},
	{
	  .name = "compute_quota_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/compute-quotas/{quota}",
	  .tag = "governance",
	  .summary = "One compute quota with its status and version",
	  .params = f_quota_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_quota_get,
	},
	{
	  .name = "compute_quota_update",
	  .method = "PATCH",
	  .path = "/api/v1/clusters/{name}/compute-quotas/{quota}",
	  .tag = "governance",
	  .summary = "Change a compute quota (send only what changes)",
	  .description = "The team cannot change. Answers with status "
	    "Updating and the new version; poll compute_quota_get.",
	  .params = f_quota_path,
	  .body = f_quota_update,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "compute_quota_get",
	  .poll_seconds = 10,
	  .answers = a_quota_update,
	},
	{
	  .name = "compute_quota_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/compute-quotas/{quota}",
	  .tag = "governance",
	  .summary = "Remove a team's compute quota",
	  .description = "Answers 202 Deleting; the quota leaves "
	    "compute_quota_list when it is gone.",
	  .params = f_quota_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "compute_quota_list",
	  .poll_seconds = 10,
	  .answers = a_quota_delete,
	},
	{
	  .name = "scheduler_config_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/scheduler-config",
	  .tag = "governance",
	  .summary = "The cluster's scheduler config: priority classes, fair "
	    "share, idle resource sharing",
	  .description = "configured:false when there is none; "
	    "task_governance gives the add-on's status.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_sched_get,
	},
	{
	  .name = "scheduler_config_set",
	  .method = "PUT",
	  .path = "/api/v1/clusters/{name}/scheduler-config",
	  .tag = "governance",
	  .summary = "Create or change the cluster's scheduler config",
	  .description = "Needs task_governance on (409 otherwise: a config "
	    "created earlier ends CreateFailed). Unsent members keep their "
	    "value. Poll scheduler_config_get until Created or Updated.",
	  .params = f_cluster_name,
	  .body = f_scheduler_config,
	  .flags = SW_OP_DRY_RUN | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "scheduler_config_get",
	  .poll_seconds = 10,
	  .answers = a_sched_set,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_governance = { rows,
	sizeof(rows) / sizeof(rows[0]) };
