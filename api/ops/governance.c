/*
 * governance.c: the operation table's rows for task governance:
 * compute quotas and the scheduler configuration, each beside the
 * fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const sharing_modes[] = {
	"Lend", "DontLend", "LendAndBorrow", NULL
};

static const char *const preempt_modes[] = {
	"Never", "LowerPriority", NULL
};

static const struct sw_field f_quota_path[] = {
	F_CLUSTER_PATH,
	{ .name = "quota", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_QUOTA, .desc = "Compute quota name." },
	{ NULL }
};

/* The members quota create and update share (update: all optional). */
#define F_QUOTA_AMOUNTS							\
	{ .name = "instance_type", .type = SW_T_STRING, .min = 4,	\
	  .max = 32, .pattern = PAT_ML_TYPE,				\
	  .desc = "Instance type of the cluster the quota is of." },	\
	{ .name = "count", .type = SW_T_INT, .min = 0, .max = 10000,	\
	  .desc = "Instances of that type the team is guaranteed." },	\
	{ .name = "accelerators", .type = SW_T_INT, .min = 0,		\
	  .max = 100000, .desc = "Or: accelerators (GPUs, Neuron cores)." }, \
	{ .name = "vcpu", .type = SW_T_NUMBER, .min = 0, .max = 1000000, \
	  .desc = "Or: vCPUs." },					\
	{ .name = "memory_gib", .type = SW_T_NUMBER, .min = 0,		\
	  .max = 10000000, .desc = "Or: memory in GiB." },		\
	{ .name = "fair_share_weight", .type = SW_T_INT, .min = 0,	\
	  .max = 100,							\
	  .desc = "Weight of the team when idle capacity is shared." },	\
	{ .name = "sharing", .type = SW_T_STRING, .enumv = sharing_modes, \
	  .desc = "Lend idle quota, DontLend, or LendAndBorrow (default)." }, \
	{ .name = "borrow_limit", .type = SW_T_INT, .min = 0,		\
	  .max = 10000,							\
	  .desc = "Percent of the quota the team may borrow "		\
	  "(LendAndBorrow only)." },					\
	{ .name = "preempt", .type = SW_T_STRING, .enumv = preempt_modes, \
	  .desc = "Never, or preempt the team's LowerPriority tasks "	\
	  "to admit higher ones." },					\
	{ .name = "enabled", .type = SW_T_BOOL,				\
	  .desc = "false keeps the quota but does not enforce it." },	\
	{ .name = "description", .type = SW_T_STRING, .min = 0,		\
	  .max = 256, .pattern = "[^\x01-\x1f]*", .desc = "Free text." }

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

static const struct sw_field f_quota_update[] = {
	F_QUOTA_AMOUNTS,
	{ NULL }
};

static const struct sw_field f_priority_class[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 39, .pattern = PAT_TEAM,
	  .desc = "Priority class name (the kueue.x-k8s.io/priority-class "
	  "label of a workload)." },
	{ .name = "weight", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 0, .max = 100, .desc = "Higher runs first." },
	{ NULL }
};

static const struct sw_field f_priority_item[] = {
	{ .name = "priority_class", .type = SW_T_OBJECT,
	  .fields = f_priority_class },
};

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

static const struct sw_op rows[] = {
	{
	  .name = "compute_quota_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/compute-quotas",
	  .tag = "governance",
	  .summary = "Compute quotas of the cluster's teams",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
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
	  .status_tool = "compute_quota_get",
	  .poll_seconds = 10,
	  .output = "Any",
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
	  .output = "Any",
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
	  .status_tool = "compute_quota_get",
	  .poll_seconds = 10,
	  .output = "Any",
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
	  .status_tool = "compute_quota_list",
	  .poll_seconds = 10,
	  .output = "Any",
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
	  .output = "Any",
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
	  .status_tool = "scheduler_config_get",
	  .poll_seconds = 10,
	  .output = "Any",
	},
};

const struct sw_op_family sw_ops_governance = {
	rows, sizeof(rows) / sizeof(rows[0])
};
