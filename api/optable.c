/*
 * optable.c: THE operation table (see optable.h).  To add an API
 * operation: describe its fields here, add one row, write its handler
 * in handlers/ and name it in handlers/table.c.  REST routing, MCP
 * tools and OpenAPI follow from the row.
 */
#include <stdio.h>
#include <string.h>

#include "lib/limits.h"
#include "api/optable.h"

/* Shared patterns. */
#define PAT_OP_ID	"op-[0-9a-f]{16}"
#define PAT_TOKEN_NAME	"[A-Za-z0-9._-]{1,64}"
#define PAT_NAME	"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"

static const char *const op_states[] = {
	"pending", "running", "succeeded", "failed", "cancelled", NULL
};
static const char *const scopes[] = { "read", "write", "admin", NULL };

/* ---- fields --------------------------------------------------------- */

static const struct sw_field f_op_id[] = {
	{ .name = "id", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "Operation id (op-...)." },
	{ NULL }
};

static const struct sw_field f_op_get[] = {
	{ .name = "id", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "Operation id (op-...)." },
	{ .name = "since_event", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .max = 9007199254740991LL, .desc = "Only events with a larger id." },
	{ NULL }
};

static const struct sw_field f_op_wait[] = {
	{ .name = "id", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "Operation id (op-...)." },
	{ .name = "timeout", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = SW_MAX_WAIT,
	  .desc = "Seconds to wait for a change (default 20)." },
	{ .name = "since_updated_ms", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .max = 9007199254740991LL,
	  .desc = "Return as soon as the operation changed after this time "
	  "(its updated_ms from a previous answer)." },
	{ NULL }
};

static const struct sw_field f_op_list[] = {
	{ .name = "kind", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 64, .pattern = "[a-z_.]+",
	  .desc = "Only operations of this kind." },
	{ .name = "state", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = op_states, .desc = "Only operations in this state." },
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 100, .pattern = PAT_NAME,
	  .desc = "Only operations on this cluster." },
	{ .name = "requested_by", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .pattern = PAT_TOKEN_NAME,
	  .desc = "Only operations asked for by this token name." },
	{ .name = "limit", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = SW_MAX_PAGE, .desc = "Page size (default 50)." },
	{ .name = "cursor", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 64, .pattern = "[0-9]+\\.op-[0-9a-f]{16}",
	  .desc = "The 'next' value of the previous page." },
	{ NULL }
};

static const struct sw_field f_login[] = {
	{ .name = "token", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED | SW_F_SECRET, .min = 1, .max = 128,
	  .desc = "An API token (swt_...)." },
	{ NULL }
};

static const struct sw_field f_token_create[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = PAT_TOKEN_NAME,
	  .desc = "Unique token name; recorded on every operation it "
	  "starts." },
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = scopes,
	  .desc = "read: look only; write: change clusters; admin: also "
	  "tokens." },
	{ .name = "tools", .type = SW_T_STRING, .min = 1,
	  .max = SW_MAX_TOOL_CLASSES, .pattern = "[a-z-]+(,[a-z-]+)*",
	  .desc = "Limit the token's MCP tools to these classes: read-only, "
	  "diagnose or tool tags (clusters, workloads, nodes...)." },
	{ NULL }
};

static const struct sw_field f_token_name[] = {
	{ .name = "name", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 64,
	  .pattern = PAT_TOKEN_NAME, .desc = "Token name." },
	{ NULL }
};


/* ---- clusters ------------------------------------------------------- */

#define PAT_CLUSTER	"[a-z][a-z0-9-]{0,30}[a-z0-9]"
#define PAT_GROUP	"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
#define PAT_AZ		"[a-z]{2}(-gov)?-[a-z]+-[0-9][a-z]"
#define PAT_ML_TYPE	"ml\\.[a-z0-9-]+\\.[a-z0-9]+"
#define PAT_CIDR16	"[0-9]{1,3}\\.[0-9]{1,3}\\.0\\.0/16"
#define PAT_PLAN_ARN	"arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:[0-9]{12}:" \
			"training-plan/[a-zA-Z0-9-]{1,63}"
#define PAT_SUBNET	"subnet-[0-9a-f]{8,17}"
#define PAT_NODE	"i-[0-9a-f]{8,17}"
#define PAT_BUCKET	"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]"

static const char *const k8s_versions[] = {
	"1.29", "1.30", "1.31", "1.32", "1.33", NULL
};
static const char *const capacity_types[] = {
	"on-demand", "spot", "training-plan", NULL
};
static const char *const recovery_modes[] = { "Automatic", "None", NULL };
static const char *const placements[] = { "shared", "dedicated", NULL };
static const char *const deep_checks[] = {
	"InstanceStress", "InstanceConnectivity", NULL
};

const struct sw_field sw_dry_run_field = {
	.name = "dry_run", .type = SW_T_BOOL, .flags = SW_F_QUERY,
	.desc = "Validate and plan only: list the calls that would be made "
	"and change nothing."
};

/* The cluster a route acts on: one row, in every table that has it. */
#define F_CLUSTER_PATH	{ .name = "name", .type = SW_T_STRING,	\
	.flags = SW_F_PATH | SW_F_REQUIRED, .min = 2, .max = 32,	\
	.pattern = PAT_CLUSTER,					\
	.desc = "Cluster name (EKS and HyperPod share it)." }

static const struct sw_field f_cluster_name[] = {
	F_CLUSTER_PATH,
	{ NULL }
};

static const struct sw_field f_cluster_delete[] = {
	F_CLUSTER_PATH,
	{ .name = "delete_resources", .type = SW_T_BOOL, .flags = SW_F_QUERY,
	  .desc = "For an imported cluster: also delete its HyperPod and EKS "
	  "clusters in AWS.  Without it an imported cluster is released: "
	  "Slipway forgets it and AWS keeps everything.  A cluster Slipway "
	  "created is always deleted with what it made." },
	{ NULL }
};

static const struct sw_field f_group_spec[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "Instance group name." },
	{ .name = "instance_type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = PAT_ML_TYPE,
	  .desc = "HyperPod instance type, e.g. ml.p5.48xlarge." },
	{ .name = "count", .type = SW_T_INT, .flags = SW_F_REQUIRED, .min = 1,
	  .max = 1000, .desc = "Number of instances." },
	{ .name = "capacity_type", .type = SW_T_STRING,
	  .enumv = capacity_types,
	  .desc = "on-demand (default), spot, or training-plan." },
	{ .name = "training_plan_arn", .type = SW_T_STRING, .min = 1,
	  .max = 256, .pattern = PAT_PLAN_ARN,
	  .desc = "Training plan reserving this capacity; its AZ must "
	  "match." },
	{ .name = "availability_zone", .type = SW_T_STRING, .min = 1,
	  .max = 32, .pattern = PAT_AZ,
	  .desc = "AZ for the group (default: the first AZ offering the "
	  "type)." },
	{ .name = "efa_only", .type = SW_T_BOOL,
	  .desc = "EFA-only network interfaces (types with EFA only)." },
	{ .name = "threads_per_core", .type = SW_T_INT, .min = 1, .max = 2,
	  .desc = "1 disables hyper-threading (default 1)." },
	{ .name = "volume_size_gb", .type = SW_T_INT, .min = 100, .max = 16384,
	  .desc = "Secondary EBS volume at /opt/sagemaker (default 500)." },
	{ .name = "subnet_id", .type = SW_T_STRING, .min = 1, .max = 32,
	  .pattern = PAT_SUBNET,
	  .desc = "Place the group in this existing subnet instead of the "
	  "shared compute subnet of its AZ." },
	{ NULL }
};
static const struct sw_field f_group_item[] = {
	{ .name = "group", .type = SW_T_OBJECT, .fields = f_group_spec },
};
static const struct sw_field f_az_item[] = {
	{ .name = "az", .type = SW_T_STRING, .min = 1, .max = 32,
	  .pattern = PAT_AZ },
};
static const struct sw_field f_check_item[] = {
	{ .name = "check", .type = SW_T_STRING, .enumv = deep_checks },
};
static const struct sw_field f_storage[] = {
	{ .name = "s3_bucket", .type = SW_T_STRING, .min = 3, .max = 63,
	  .pattern = PAT_BUCKET,
	  .desc = "Bucket mounted through S3 Mountpoint as PVC s3-claim." },
	{ NULL }
};

#define PAT_DAY		"[0-9]{4}-[0-9]{2}-[0-9]{2}"
#define PAT_LEDGER_COL	"(day|cluster|instance_group|instance_type|team|job)"
static const char *const ledger_formats[] = { "json", "csv", NULL };
static const struct sw_field f_cost_ledger[] = {
	{ .name = "from", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 10,
	  .max = 10, .pattern = PAT_DAY,
	  .desc = "First day, YYYY-MM-DD (UTC; default 6 days before to)." },
	{ .name = "to", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 10,
	  .max = 10, .pattern = PAT_DAY,
	  .desc = "Last day, YYYY-MM-DD (UTC; default today)." },
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 2, .max = 32, .pattern = PAT_CLUSTER,
	  .desc = "Only this cluster." },
	{ .name = "team", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 63, .pattern = "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
	  .desc = "Only this team's GPU-hours." },
	{ .name = "group_by", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 3, .max = 80,
	  .pattern = PAT_LEDGER_COL "(," PAT_LEDGER_COL ")*",
	  .desc = "Columns to sum by, comma-separated: day, cluster, "
	  "instance_group, instance_type, team, job (default day)." },
	{ .name = "format", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = ledger_formats, .desc = "json (default) or csv." },
	{ NULL }
};

static const struct sw_field f_cluster_create[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 2, .max = 32, .pattern = PAT_CLUSTER,
	  .desc = "Cluster name, used for the EKS and the HyperPod cluster." },
	{ .name = "kubernetes_version", .type = SW_T_STRING,
	  .enumv = k8s_versions,
	  .desc = "EKS Kubernetes version (default 1.31)." },
	{ .name = "vpc_cidr", .type = SW_T_STRING, .min = 9, .max = 18,
	  .pattern = PAT_CIDR16,
	  .desc = "A /16 for the new VPC, any AWS accepts (RFC 1918 ranges "
	  "are advised); default: a free 10.x.0.0/16." },
	{ .name = "availability_zones", .type = SW_T_ARRAY, .min = 2, .max = 2,
	  .desc = "Two AZs for the control-plane subnets (default: the first "
	  "two).", .items = f_az_item },
	{ .name = "instance_groups", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .min = 1, .max = 20,
	  .desc = "HyperPod instance groups.", .items = f_group_item },
	{ .name = "node_recovery", .type = SW_T_STRING,
	  .enumv = recovery_modes,
	  .desc = "Automatic (default): HyperPod replaces faulty nodes." },
	{ .name = "deep_health_checks", .type = SW_T_ARRAY, .max = 2,
	  .desc = "Deep health checks run when nodes start.",
	  .items = f_check_item },
	{ .name = "storage", .type = SW_T_OBJECT,
	  .desc = "Shared storage to set up.", .fields = f_storage },
	{ NULL }
};

static const struct sw_field f_type_query[] = {
	{ .name = "availability_zone", .type = SW_T_STRING,
	  .flags = SW_F_QUERY, .min = 1, .max = 32, .pattern = PAT_AZ,
	  .desc = "Only types offered in this AZ." },
	{ .name = "instance_type", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 64, .pattern = PAT_ML_TYPE,
	  .desc = "Only this type." },
	{ .name = "gpu_only", .type = SW_T_BOOL, .flags = SW_F_QUERY,
	  .desc = "Only accelerated types." },
	{ NULL }
};

static const struct sw_field f_ig_add[] = {
	F_CLUSTER_PATH,
	{ NULL }
};
/* A rolling deployment: batches, a wait between them, rollback alarms. */
static const struct sw_field f_alarm_item[] = {
	{ .name = "alarm", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = "[A-Za-z0-9 ._/#:()+=-]+" },
};
#define F_ROLLING_FIELDS						\
	{ .name = "batch_percent", .type = SW_T_INT, .min = 1, .max = 100, \
	  .excludes = "batch_count",					\
	  .desc = "Nodes updated at once, percent of the group "	\
	  "(default 20)." },						\
	{ .name = "batch_count", .type = SW_T_INT, .min = 1, .max = 1000, \
	  .desc = "Or: nodes updated at once." },			\
	{ .name = "rollback_batch_percent", .type = SW_T_INT, .min = 1,	\
	  .max = 100, .excludes = "rollback_batch_count",		\
	  .desc = "Nodes rolled back at once, percent of the group "	\
	  "(RollbackMaximumBatchSize; default: as batch_*)." },	\
	{ .name = "rollback_batch_count", .type = SW_T_INT, .min = 1,	\
	  .max = 1000, .desc = "Or: nodes rolled back at once." },	\
	{ .name = "wait_seconds", .type = SW_T_INT, .min = 0, .max = 3600, \
	  .desc = "Wait between batches." },				\
	{ .name = "rollback_alarms", .type = SW_T_ARRAY, .min = 1,	\
	  .max = 10, .items = f_alarm_item,				\
	  .desc = "CloudWatch alarms that roll the update back." }
static const struct sw_field f_rolling[] = {
	F_ROLLING_FIELDS,
	{ NULL }
};
static const struct sw_field f_scheduled_update[] = {
	{ .name = "cron", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 9, .max = 256, .pattern = "cron\\([^()]+\\)",
	  .desc = "When to patch, e.g. cron(0 2 ? * SUN *) (UTC)." },
	F_ROLLING_FIELDS,
	{ NULL }
};
static const char *const patch_strategies[] = {
	"WhenIdle", "WhenAllIdle", NULL
};
static const struct sw_field f_auto_patch[] = {
	{ .name = "strategy", .type = SW_T_STRING, .enumv = patch_strategies,
	  .desc = "Patch a node when it is idle (default) or when the whole "
	  "group is." },
	F_ROLLING_FIELDS,
	{ NULL }
};
#define PAT_IMAGE_RELEASE	"[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}"
#define F_PATCH_FIELDS							\
	{ .name = "scheduled_update", .type = SW_T_OBJECT,		\
	  .fields = f_scheduled_update,					\
	  .desc = "Scheduled AMI updates with a rolling deployment "	\
	  "(ScheduledUpdateConfig)." },					\
	{ .name = "auto_patch", .type = SW_T_OBJECT, .fields = f_auto_patch, \
	  .desc = "Patch nodes automatically when idle (AutoPatchConfig)." }, \
	{ .name = "image_release_version", .type = SW_T_STRING, .min = 10, \
	  .max = 10, .pattern = PAT_IMAGE_RELEASE,			\
	  .desc = "HyperPod AMI release the group runs, e.g. 2025.10.01." }

static const struct sw_field f_ig_add_body[] = {
	{ .name = "group_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "New instance group name." },
	{ .name = "instance_type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = PAT_ML_TYPE,
	  .desc = "HyperPod instance type." },
	{ .name = "count", .type = SW_T_INT, .flags = SW_F_REQUIRED, .min = 1,
	  .max = 1000, .desc = "Number of instances." },
	{ .name = "capacity_type", .type = SW_T_STRING,
	  .enumv = capacity_types,
	  .desc = "on-demand (default), spot, or training-plan." },
	{ .name = "training_plan_arn", .type = SW_T_STRING, .min = 1,
	  .max = 256, .pattern = PAT_PLAN_ARN,
	  .desc = "Training plan; its AZ must be the group's." },
	{ .name = "availability_zone", .type = SW_T_STRING, .min = 1,
	  .max = 32, .pattern = PAT_AZ, .desc = "AZ of the group." },
	{ .name = "efa_only", .type = SW_T_BOOL,
	  .desc = "EFA-only network interfaces." },
	{ .name = "threads_per_core", .type = SW_T_INT, .min = 1, .max = 2 },
	{ .name = "volume_size_gb", .type = SW_T_INT, .min = 100,
	  .max = 16384 },
	{ .name = "placement", .type = SW_T_STRING, .enumv = placements,
	  .desc = "shared (default): the /20 compute subnet of the AZ, "
	  "shared by its groups; dedicated: a new /20 for this group alone." },
	{ .name = "subnet_id", .type = SW_T_STRING, .min = 1, .max = 32,
	  .pattern = PAT_SUBNET,
	  .desc = "Reuse this existing subnet (e.g. the dedicated subnet "
	  "of an earlier group) instead." },
	F_PATCH_FIELDS,
	{ NULL }
};

static const struct sw_field f_ig_path[] = {
	F_CLUSTER_PATH,
	{ .name = "group", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_GROUP, .desc = "Instance group name." },
	{ NULL }
};
/* Update takes the count and the patching fields, each optional; the
 * others are named so the answer can say they are immutable rather than
 * unknown. */
static const struct sw_field f_ig_scale_body[] = {
	{ .name = "count", .type = SW_T_INT, .max = 1000,
	  .desc = "New number of instances (default: unchanged)." },
	{ .name = "instance_type", .type = SW_T_STRING, .max = 64,
	  .desc = "Immutable: refused." },
	{ .name = "capacity_type", .type = SW_T_STRING, .max = 32,
	  .desc = "Immutable: refused." },
	{ .name = "efa_only", .type = SW_T_BOOL,
	  .desc = "Immutable: refused." },
	{ .name = "availability_zone", .type = SW_T_STRING, .max = 32,
	  .desc = "Immutable: refused." },
	{ .name = "subnet_id", .type = SW_T_STRING, .max = 32,
	  .desc = "Immutable: refused." },
	{ .name = "placement", .type = SW_T_STRING, .max = 32,
	  .desc = "Immutable: refused." },
	{ .name = "training_plan_arn", .type = SW_T_STRING, .max = 256,
	  .desc = "Immutable: refused." },
	F_PATCH_FIELDS,
	{ NULL }
};

static const struct sw_field f_node_query[] = {
	F_CLUSTER_PATH,
	{ .name = "instance_group", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "Only nodes of this group." },
	{ NULL }
};
static const struct sw_field f_node_item[] = {
	{ .name = "node", .type = SW_T_STRING, .min = 1, .max = 32,
	  .pattern = PAT_NODE },
};
static const struct sw_field f_node_ids[] = {
	{ .name = "node_ids", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 25,
	  .desc = "HyperPod node ids (i-...), at most 25.",
	  .items = f_node_item },
	{ NULL }
};

/* FIELDS: governance, events, node detail and health checks */

#define PAT_QUOTA	"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"
#define PAT_TEAM	"[a-z0-9]([-a-z0-9]{0,37}[a-z0-9])?"

static const char *const sharing_modes[] = {
	"Lend", "DontLend", "LendAndBorrow", NULL
};
static const char *const preempt_modes[] = {
	"Never", "LowerPriority", NULL
};
static const char *const event_levels[] = { "Info", "Warn", "Error", NULL };
static const char *const event_kinds[] = {
	"Cluster", "InstanceGroup", "Instance", NULL
};

/* Task governance on a workload: two rows every workload body takes. */
#define F_KUEUE_FIELDS							\
	{ .name = "queue", .type = SW_T_STRING, .min = 1, .max = 63,	\
	  .pattern = "hyperpod-ns-[a-z0-9]([-a-z0-9]*[a-z0-9])?-localqueue", \
	  .desc = "Kueue queue of a team's compute quota "		\
	  "(hyperpod-ns-<team>-localqueue); the namespace must be "	\
	  "hyperpod-ns-<team>." },					\
	{ .name = "priority", .type = SW_T_STRING, .min = 1, .max = 39,	\
	  .pattern = PAT_TEAM,						\
	  .desc = "Priority class of the scheduler config "		\
	  "(scheduler_config_get)." }

static const struct sw_field f_node_path[] = {
	F_CLUSTER_PATH,
	{ .name = "node", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 3, .max = 32,
	  .pattern = PAT_NODE, .desc = "HyperPod node id (i-...)." },
	{ NULL }
};

static const struct sw_field f_health_check[] = {
	{ .name = "node_ids", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 25,
	  .desc = "Running HyperPod nodes to check (i-...), at most 25.",
	  .items = f_node_item },
	{ .name = "checks", .type = SW_T_ARRAY, .min = 1, .max = 2,
	  .desc = "InstanceStress (GPU/accelerator stress, DCGM) and/or "
	  "InstanceConnectivity (EFA/NCCL); default both.",
	  .items = f_check_item },
	{ NULL }
};

static const struct sw_field f_events_query[] = {
	F_CLUSTER_PATH,
	{ .name = "instance_group", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "Only events of this instance group." },
	{ .name = "node_id", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 3, .max = 32, .pattern = PAT_NODE,
	  .desc = "Only events of this node." },
	{ .name = "resource_type", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = event_kinds,
	  .desc = "Only events about the cluster, a group or a node." },
	{ .name = "level", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = event_levels,
	  .desc = "Only events of this level (filters the page)." },
	{ .name = "since", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .min = 0, .max = 9999999999LL,
	  .desc = "Only events after this time (Unix seconds)." },
	{ .name = "limit", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = 100, .desc = "Page size (default 50)." },
	{ .name = "cursor", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 2048, .pattern = "[A-Za-z0-9+/=_-]+",
	  .desc = "The 'next' value of the previous page." },
	{ NULL }
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

/* FIELDS: workloads (training jobs, model download, inference) */

/*
 * Workloads share one S3 data contract: the PVC (default s3-claim) is
 * mounted at /data; datasets live under /data/datasets, models under
 * /data/models, outputs under /data/outputs/<job>, code under
 * /data/code and recipe configs under /data/configs.  Paths are
 * relative, segment by segment, so ".." and absolute paths cannot be
 * written.
 */
#define PAT_K8S_NAME	"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
#define PAT_WL_NAME	"[a-z]([a-z0-9-]{0,50}[a-z0-9])?"
#define PAT_REL_PATH	"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}" \
			"(/[A-Za-z0-9_][A-Za-z0-9._-]{0,127}){0,7}"
/* A model source: s3://bucket or a first segment (an fs-<id>, a Hugging
 * Face organisation), then a path of PAT_REL_PATH's segments (no '.'
 * or '..' segment, nothing absolute), a trailing '/' allowed. */
#define PAT_MODEL_URI	"(s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]|" \
			"[A-Za-z0-9][A-Za-z0-9._-]{0,95})" \
			"(/" PAT_REL_PATH ")?/?"
#define PAT_IMAGE	"[a-z0-9][a-z0-9._-]{0,127}(:[0-9]{1,5})?" \
			"(/[a-z0-9][a-z0-9._-]{0,127}){0,6}" \
			"(:[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?" \
			"(@sha256:[0-9a-f]{64})?"
#define PAT_HF_MODEL	"[A-Za-z0-9][A-Za-z0-9._-]{0,95}" \
			"(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?"
#define PAT_HF_REV	"[A-Za-z0-9][A-Za-z0-9._/-]{0,127}"
#define PAT_MLFLOW	"(https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?" \
			"(/[A-Za-z0-9._~%/-]*)?|arn:aws[a-z-]*:sagemaker:" \
			"[a-z0-9-]+:[0-9]{12}:mlflow-tracking-server/" \
			"[A-Za-z0-9-]{1,63})"
#define PAT_PROM_URL	"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?" \
			"(/[A-Za-z0-9._~%/-]*)?"

static const char *const train_kinds[] = {
	"hyperpod-pytorch", "ray", NULL
};
static const char *const train_recipes[] = {
	"pytorch", "llama-factory", "ms-swift", "verl", NULL
};
static const char *const inf_engines[] = { "vllm", "sglang", NULL };
static const char *const inf_exposures[] = {
	"service", "load-balancer", "pool", NULL
};
static const char *const inf_metrics[] = {
	"queue", "running", "kv-cache", NULL
};
static const char *const train_agents[] = { "install", "image", NULL };

static const struct sw_field f_log_monitoring[] = {
	{ .name = "enabled", .type = SW_T_BOOL,
	  .desc = "false: no hang or slow-job detection (default true)." },
	{ .name = "log_pattern", .type = SW_T_STRING, .min = 1, .max = 256,
	  .desc = "Regular expression of the recipe's progress line, in "
	  "RE2 syntax as Go's regexp reads it: the training operator "
	  "matches it (default: the recipe's, see docs/images.md)." },
	{ .name = "start_seconds", .type = SW_T_INT, .min = 60, .max = 86400,
	  .desc = "Seconds to the first progress line before the job "
	  "counts as hanging (default: the recipe's)." },
	{ .name = "hang_seconds", .type = SW_T_INT, .min = 60, .max = 86400,
	  .desc = "Longest gap between progress lines (default: the "
	  "recipe's)." },
	{ NULL }
};

static const struct sw_field f_wl_cluster[] = {
	F_CLUSTER_PATH,
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Only this namespace (default: all)." },
	{ NULL }
};

static const struct sw_field f_job_path[] = {
	F_CLUSTER_PATH,
	{ .name = "job", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME,
	  .desc = "Job name (training job or model download)." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ NULL }
};

static const struct sw_field f_job_logs[] = {
	F_CLUSTER_PATH,
	{ .name = "job", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME, .desc = "Job name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ .name = "tail", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = 2000, .desc = "Last lines per pod (default 100)." },
	{ .name = "pod", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 253, .pattern = "[a-z0-9]([a-z0-9.-]*" "[a-z0-9])?",
	  .desc = "Only this pod of the job." },
	{ NULL }
};

static const struct sw_field f_train_body[] = {
	{ .name = "job_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 52, .pattern = PAT_WL_NAME,
	  .desc = "Job name (DNS label); outputs go to "
	  "/data/outputs/<job_name>." },
	{ .name = "kind", .type = SW_T_STRING, .enumv = train_kinds,
	  .desc = "hyperpod-pytorch (default; needs the training operator) "
	  "or ray (a KubeRay RayJob; needs KubeRay)." },
	{ .name = "recipe", .type = SW_T_STRING, .enumv = train_recipes,
	  .desc = "pytorch (default), llama-factory, ms-swift or verl (ray "
	  "only)." },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Container image (default: the recipe's; docs/images.md)." },
	{ .name = "elastic_agent", .type = SW_T_STRING, .enumv = train_agents,
	  .desc = "hyperpod-pytorch: install (default: the pod installs "
	  "the pinned hyperpod-elastic-agent with pip, then runs "
	  "hyperpodrun) or image (the image already carries hyperpodrun)." },
	{ .name = "log_monitoring", .type = SW_T_OBJECT,
	  .desc = "hyperpod-pytorch: hang detection from the job's log "
	  "(runPolicy.logMonitoringConfiguration).",
	  .fields = f_log_monitoring },
	{ .name = "dataset", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH, .desc = "Dataset under /data/datasets/." },
	{ .name = "model", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "Base model under /data/models/ (e.g. from "
	  "model_download)." },
	{ .name = "entry", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "pytorch recipe: training script under /data/code/ "
	  "(default train.py)." },
	{ .name = "config", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "llama-factory / ms-swift: recipe YAML under "
	  "/data/configs/ (required for llama-factory)." },
	{ .name = "nodes", .type = SW_T_INT, .min = 1, .max = 256,
	  .desc = "Number of nodes (pods), default 1." },
	{ .name = "gpus_per_node", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "GPUs per node, default 1; no more than the largest of "
	  "the cluster's instance types has (checked at submit and dry "
	  "run)." },
	{ .name = "efa_per_node", .type = SW_T_INT, .max = 32,
	  .desc = "EFA interfaces per node, default 0." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "max_steps", .type = SW_T_INT, .min = 1, .max = 10000000,
	  .desc = "Stop after this many steps (MAX_STEPS)." },
	{ .name = "mlflow_tracking_uri", .type = SW_T_STRING, .min = 1,
	  .max = 512, .pattern = PAT_MLFLOW,
	  .desc = "MLflow tracking server (URL or SageMaker MLflow ARN)." },
	{ .name = "env", .type = SW_T_MAP, .max = 32,
	  .desc = "Extra environment variables (names "
	  "[A-Za-z_][A-Za-z0-9_]*)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	F_KUEUE_FIELDS,
	{ NULL }
};

static const struct sw_field f_download_body[] = {
	{ .name = "model_id", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 193, .pattern = PAT_HF_MODEL,
	  .desc = "Hugging Face model id, e.g. Qwen/Qwen3-0.6B." },
	{ .name = "revision", .type = SW_T_STRING, .min = 1, .max = 128,
	  .pattern = PAT_HF_REV,
	  .desc = "Branch, tag or commit (default main)." },
	{ .name = "target", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "Directory under /data/models/ (default: the model id's "
	  "name)." },
	{ .name = "job_name", .type = SW_T_STRING, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME,
	  .desc = "Job name (default dl-<model>-<random>)." },
	{ .name = "hf_token", .type = SW_T_STRING, .flags = SW_F_SECRET,
	  .min = 8, .max = 256, .pattern = "[A-Za-z0-9_-]+",
	  .desc = "Hugging Face token for gated models; stored only in a "
	  "Kubernetes Secret, never echoed." },
	{ .name = "max_workers", .type = SW_T_INT, .min = 1, .max = 32,
	  .desc = "Parallel file downloads (default 8)." },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Downloader image (default python:3.12-slim)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default slipway-models)." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	F_KUEUE_FIELDS,
	{ NULL }
};

static const struct sw_field f_autoscale[] = {
	{ .name = "min_replicas", .type = SW_T_INT, .max = 64,
	  .desc = "Fewest replicas (default 1); 0 is refused: the metric "
	  "comes from the servers, so an endpoint at zero never scales up." },
	{ .name = "max_replicas", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .desc = "Most replicas." },
	{ .name = "metric", .type = SW_T_STRING, .enumv = inf_metrics,
	  .desc = "queue (waiting requests, default), running or kv-cache." },
	{ .name = "threshold", .type = SW_T_NUMBER, .max = 100000,
	  .desc = "Target value per replica: a whole number >= 1 for queue "
	  "and running (default 8), a fraction in (0, 1) for kv-cache "
	  "(default 0.8)." },
	{ .name = "prometheus_url", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED, .min = 1, .max = 512,
	  .pattern = PAT_PROM_URL,
	  .desc = "Prometheus that scrapes the servers." },
	{ NULL }
};

/*
 * kind managed and jumpstart: the HyperPod inference operator's
 * InferenceEndpointConfig and JumpStartModel (facts 2.2, 2.3).
 */
static const char *const inf_kinds_enum[] = {
	"self-hosted", "managed", "jumpstart", NULL
};
/* Members of an inference_deploy body that go with some kinds only. */
static const char *const only_self[] = { "kind", "self-hosted", NULL };
static const char *const only_managed[] = { "kind", "managed", NULL };
static const char *const only_jumpstart[] = { "kind", "jumpstart", NULL };
static const char *const only_operator[] = {
	"kind", "managed", "jumpstart", NULL
};
static const char *const inf_source_types[] = {
	"s3", "fsx", "huggingface", NULL
};
static const char *const inf_l2_backends[] = {
	"tieredstorage", "redis", NULL
};
static const char *const inf_strategies[] = {
	"prefixaware", "kvaware", "session", "roundrobin", NULL
};
static const struct sw_field f_inf_source[] = {
	{ .name = "type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = inf_source_types, .desc = "s3, fsx or huggingface." },
	{ .name = "uri", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 3, .max = 512, .pattern = PAT_MODEL_URI,
	  .desc = "s3://bucket/prefix, fs-<id>[/path] or org/model; the "
	  "path is relative, without '.' or '..' segments." },
	{ NULL }
};
static const struct sw_field f_inf_kv[] = {
	{ .name = "l1", .type = SW_T_BOOL,
	  .desc = "CPU-memory KV cache on the node (default true)." },
	{ .name = "l2", .type = SW_T_STRING, .enumv = inf_l2_backends,
	  .desc = "Second tier: tieredstorage (HyperPod managed) or redis." },
	{ .name = "redis_url", .type = SW_T_STRING, .min = 8, .max = 256,
	  .pattern = "rediss?://[A-Za-z0-9.-]+(:[0-9]{1,5})?",
	  .desc = "The Redis of an l2 redis cache." },
	{ NULL }
};
static const struct sw_field f_inf_routing[] = {
	{ .name = "strategy", .type = SW_T_STRING, .enumv = inf_strategies,
	  .desc = "prefixaware (default), kvaware, session or roundrobin." },
	{ NULL }
};

static const struct sw_field f_inf_body[] = {
	{ .name = "endpoint_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 45, .pattern = PAT_WL_NAME,
	  .desc = "Name of the Deployment and Service." },
	{ .name = "kind", .type = SW_T_STRING, .enumv = inf_kinds_enum,
	  .desc = "self-hosted (default: a vLLM or SGLang Deployment), "
	  "managed (the inference operator's InferenceEndpointConfig) or "
	  "jumpstart (a JumpStartModel)." },
	{ .name = "engine", .type = SW_T_STRING, .enumv = inf_engines,
	  .desc = "vllm or sglang (self-hosted: required)." },
	{ .name = "model", .type = SW_T_STRING,
	  .min = 1, .max = 512, .pattern = PAT_REL_PATH,
	  .desc = "Model directory under /data/models/ (self-hosted: "
	  "required).",
	  .only = only_self },
	{ .name = "model_source", .type = SW_T_OBJECT, .fields = f_inf_source,
	  .desc = "managed: where the operator loads the model from.",
	  .only = only_managed },
	{ .name = "kv_cache", .type = SW_T_OBJECT, .fields = f_inf_kv,
	  .desc = "managed, jumpstart: the operator's tiered KV cache.",
	  .only = only_operator },
	{ .name = "routing", .type = SW_T_OBJECT, .fields = f_inf_routing,
	  .desc = "managed, jumpstart: intelligent routing (cannot be "
	  "turned off once on).",
	  .only = only_operator },
	{ .name = "model_id", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
	  .desc = "jumpstart: the JumpStart hub model id.",
	  .only = only_jumpstart },
	{ .name = "model_version", .type = SW_T_STRING, .min = 5, .max = 14,
	  .pattern = "[0-9]{1,4}\\.[0-9]{1,4}\\.[0-9]{1,4}",
	  .desc = "jumpstart: model version x.y.z (default: latest).",
	  .only = only_jumpstart },
	{ .name = "accept_eula", .type = SW_T_BOOL,
	  .desc = "jumpstart: accept the model's EULA (gated models).",
	  .only = only_jumpstart },
	{ .name = "served_model_name", .type = SW_T_STRING, .min = 1,
	  .max = 128, .pattern = "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}",
	  .desc = "Model name clients send (default: model).",
	  .only = only_self },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Server image (default: the engine's).",
	  .only = only_self },
	{ .name = "gpus_per_replica", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "GPUs per replica = tensor parallel size (default 1).",
	  .only = only_self },
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Replicas (default 1)." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "exposure", .type = SW_T_STRING, .enumv = inf_exposures,
	  .desc = "service (ClusterIP, default), load-balancer (internal "
	  "NLB) or pool (a Service over pods assigned from pool)." },
	{ .name = "pool", .type = SW_T_STRING, .min = 1, .max = 40,
	  .pattern = PAT_WL_NAME,
	  .desc = "exposure pool: the inference pool that serves it.",
	  .only = only_self },
	{ .name = "router", .type = SW_T_BOOL,
	  .desc = "sglang: put a cache-aware SGLang router in front.",
	  .only = only_self },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "Scale with a KEDA ScaledObject on a server metric.",
	  .fields = f_autoscale },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim).",
	  .only = only_self },
	F_KUEUE_FIELDS,
	{ NULL }
};

static const struct sw_field f_inf_path[] = {
	F_CLUSTER_PATH,
	{ .name = "endpoint", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 45,
	  .pattern = PAT_WL_NAME, .desc = "Inference endpoint name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ NULL }
};

/*
 * inference_invoke: an OpenAI-style chat body and nothing else.  There
 * is no URL, host or port field: the request goes to the endpoint's
 * own Service, found by its Slipway labels.
 */
static const char *const chat_roles[] = {
	"system", "user", "assistant", NULL
};
static const struct sw_field f_chat_message[] = {
	{ .name = "role", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = chat_roles, .desc = "system, user or assistant." },
	{ .name = "content", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 0, .max = 32768, .desc = "The message text." },
	{ NULL }
};
static const struct sw_field f_chat_item[] = {
	{ .name = "message", .type = SW_T_OBJECT, .fields = f_chat_message },
};
static const struct sw_field f_inf_invoke_body[] = {
	{ .name = "messages", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .items = f_chat_item,
	  .desc = "The conversation, oldest first." },
	{ .name = "max_tokens", .type = SW_T_INT, .min = 1, .max = 8192,
	  .desc = "Most tokens to generate (the server's default when "
	  "absent)." },
	{ .name = "temperature", .type = SW_T_NUMBER, .min = 0, .max = 2,
	  .desc = "Sampling temperature, 0 to 2." },
	{ .name = "stream", .type = SW_T_BOOL,
	  .desc = "Only false: the answer is one JSON document." },
	{ NULL }
};

/* The hot GPU pool (handlers/inference_pool.c). */
static const struct sw_field f_pool_body[] = {
	{ .name = "pool_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 40, .pattern = PAT_WL_NAME,
	  .desc = "Pool name; its pods are <pool_name>-<i>." },
	{ .name = "engine", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = inf_engines, .desc = "vllm or sglang." },
	{ .name = "model", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 512, .pattern = PAT_REL_PATH,
	  .desc = "Model directory under /data/models/ every pod loads." },
	{ .name = "served_model_name", .type = SW_T_STRING, .min = 1,
	  .max = 128, .pattern = "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}",
	  .desc = "Model name clients send (default: model)." },
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Pods in the pool (default 1). Creating again with fewer "
	  "removes free pods only: an assigned pod is never removed." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "gpus_per_replica", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "GPUs per pod = tensor parallel size (default 1)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	{ NULL }
};
static const struct sw_field f_pool_path[] = {
	F_CLUSTER_PATH,
	{ .name = "pool", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 40,
	  .pattern = PAT_WL_NAME, .desc = "Inference pool name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default 'default')." },
	{ NULL }
};
static const struct sw_field f_pool_move_body[] = {
	{ .name = "endpoint", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 45, .pattern = PAT_WL_NAME,
	  .desc = "An endpoint deployed with exposure pool on this pool." },
	{ .name = "count", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Pods to move (assign: default 1; release: default all "
	  "of the endpoint's)." },
	{ NULL }
};

/* inference_scale: a fixed count or an autoscaler, one of the two. */
static const struct sw_field f_inf_scale_body[] = {
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Fixed replica count; removes the endpoint's autoscaler." },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "Scale with a KEDA ScaledObject on a server metric.",
	  .fields = f_autoscale },
	{ NULL }
};

/* FIELDS: features */

/*
 * Managed features, explicit-diff: a body names only the features it
 * changes.  Plain features take true/false; tiered_checkpointing and
 * autoscaling take an object whose "enabled" is required.
 */
static const char *const consolidation_policies[] = {
	"WhenEmpty", "WhenEmptyOrUnderutilized", NULL
};
static const struct sw_field f_feat_tiered[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "Turn managed tiered checkpointing on or off." },
	{ .name = "bucket", .type = SW_T_STRING, .min = 3, .max = 63,
	  .pattern = PAT_BUCKET,
	  .desc = "S3 bucket for checkpoints (required to enable); the "
	  "pods' IAM policy allows this bucket and nothing else." },
	{ .name = "memory_percent", .type = SW_T_INT, .min = 20, .max = 100,
	  .desc = "Share of node memory for checkpoints (default 20)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "Namespace of the service account tiered-storage-sa that "
	  "training pods use (default: default)." },
	{ NULL }
};
static const struct sw_field f_feat_group_item[] = {
	{ .name = "group", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_GROUP },
};
static const struct sw_field f_feat_autoscaling[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "Turn HyperPod managed Karpenter on or off." },
	{ .name = "consolidation_policy", .type = SW_T_STRING,
	  .enumv = consolidation_policies,
	  .desc = "NodePool disruption.consolidationPolicy (default "
	  "WhenEmptyOrUnderutilized)." },
	{ .name = "consolidate_after", .type = SW_T_STRING, .min = 2, .max = 8,
	  .pattern = "[0-9]{1,5}(s|m|h)|Never",
	  .desc = "NodePool disruption.consolidateAfter, e.g. 5m (default) "
	  "or Never." },
	{ .name = "instance_groups", .type = SW_T_ARRAY, .min = 1, .max = 10,
	  .desc = "Instance groups Karpenter may scale, each starting at 0 "
	  "nodes (default: every group at 0; HyperPod takes at most 10).",
	  .items = f_feat_group_item },
	{ NULL }
};
#define PAT_AMP_WS	"ws-[0-9a-f-]{8,64}"
#define PAT_AMG_WS	"g-[0-9a-f]{8,32}"
static const struct sw_field f_feat_observability[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "Turn the observability add-on on or off." },
	{ .name = "prometheus_workspace", .type = SW_T_STRING, .min = 4,
	  .max = 80, .pattern = PAT_AMP_WS,
	  .desc = "Amazon Managed Prometheus workspace id (ws-...) the "
	  "metrics are written to." },
	{ .name = "grafana_workspace", .type = SW_T_STRING, .min = 4,
	  .max = 40, .pattern = PAT_AMG_WS,
	  .desc = "Amazon Managed Grafana workspace id (g-...) whose URL "
	  "feature_list shows." },
	{ NULL }
};

static const struct sw_field f_features[] = {
	{ .name = "training_operator", .type = SW_T_BOOL,
	  .desc = "HyperPod training operator add-on (HyperPodPyTorchJob); "
	  "turning it on installs cert-manager first." },
	{ .name = "inference_operator", .type = SW_T_BOOL,
	  .desc = "HyperPod inference operator add-on; installs "
	  "cert-manager, FSx CSI and metrics-server first." },
	{ .name = "cert_manager", .type = SW_T_BOOL,
	  .desc = "cert-manager add-on (cannot go while an operator needs "
	  "it)." },
	{ .name = "kuberay", .type = SW_T_BOOL,
	  .desc = "KubeRay operator and the ray.io CRDs (RayJob, "
	  "RayCluster)." },
	{ .name = "fsx_csi", .type = SW_T_BOOL,
	  .desc = "FSx for Lustre CSI driver add-on." },
	{ .name = "task_governance", .type = SW_T_BOOL,
	  .desc = "HyperPod task governance add-on (Kueue): compute quotas "
	  "and the scheduler config. Needs Kubernetes 1.30 or later and no "
	  "other Kueue on the cluster." },
	{ .name = "observability", .type = SW_T_OBJECT,
	  .desc = "HyperPod observability add-on (metrics to Amazon Managed "
	  "Prometheus, dashboards in Amazon Managed Grafana).",
	  .fields = f_feat_observability },
	{ .name = "node_recovery", .type = SW_T_BOOL,
	  .desc = "true: NodeRecovery Automatic; false: None." },
	{ .name = "tiered_checkpointing", .type = SW_T_OBJECT,
	  .desc = "Managed tiered checkpointing with its identity chain.",
	  .fields = f_feat_tiered },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "HyperPod autoscaling (Karpenter) with its ClusterRole.",
	  .fields = f_feat_autoscaling },
	{ NULL }
};

/* An EKS add-on of a cluster, and the version to move it to. */
#define PAT_ADDON_VERSION	"v[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.]+)*"
static const struct sw_field f_addon_path[] = {
	F_CLUSTER_PATH,
	{ .name = "addon", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 100,
	  .pattern = "[a-z0-9][a-z0-9-]*",
	  .desc = "EKS add-on name, e.g. kube-proxy." },
	{ NULL }
};
static const struct sw_field f_addon_upgrade[] = {
	{ .name = "version", .type = SW_T_STRING, .min = 6, .max = 64,
	  .pattern = PAT_ADDON_VERSION,
	  .desc = "Add-on version, e.g. v1.31.13-eksbuild.2 (default: the "
	  "newest EKS publishes as compatible with the cluster's Kubernetes "
	  "version)." },
	{ NULL }
};

/* FIELDS: storage and diagnostics */

static const char *const storage_kinds[] = { "s3", "fsx", NULL };

static const struct sw_field f_storage_add[] = {
	{ .name = "kind", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = storage_kinds,
	  .desc = "s3: an S3 bucket through Mountpoint; fsx: a new FSx for "
	  "Lustre file system." },
	{ .name = "claim", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "PersistentVolumeClaim name pods mount (e.g. s3-claim)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_GROUP,
	  .desc = "Namespace of the claim (default: default)." },
	{ .name = "bucket", .type = SW_T_STRING, .min = 3, .max = 63,
	  .pattern = PAT_BUCKET, .desc = "S3 bucket (kind s3)." },
	{ .name = "create_bucket", .type = SW_T_BOOL,
	  .desc = "Create the bucket when it does not exist." },
	{ .name = "size_gib", .type = SW_T_INT, .min = 1200, .max = 100800,
	  .desc = "FSx capacity in GiB (kind fsx; 1200 or a multiple of "
	  "2400)." },
	{ .name = "availability_zone", .type = SW_T_STRING, .min = 1,
	  .max = 32, .pattern = PAT_AZ,
	  .desc = "FSx AZ (default: the AZ of the cluster's compute "
	  "subnet)." },
	{ NULL }
};

static const struct sw_field f_group_name_item[] = {
	{ .name = "group", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_GROUP },
};
static const struct sw_field f_software_update[] = {
	{ .name = "instance_groups", .type = SW_T_ARRAY, .min = 1, .max = 20,
	  .desc = "Only these groups (default: all).",
	  .items = f_group_name_item },
	{ .name = "image_release_version", .type = SW_T_STRING, .min = 10,
	  .max = 10, .pattern = PAT_IMAGE_RELEASE,
	  .desc = "HyperPod AMI release to move to (default: the latest)." },
	{ .name = "rolling", .type = SW_T_OBJECT, .fields = f_rolling,
	  .desc = "Rolling deployment: batch size, wait, rollback alarms." },
	{ NULL }
};

/* ---- the table ------------------------------------------------------- */

const struct sw_op sw_optable[] = {
	{
	  .name = "health",
	  .method = "GET",
	  .path = "/api/v1/health",
	  .tag = "system",
	  .summary = "Liveness and state-store check",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .output = "Health",
	},
	{
	  .name = "version",
	  .method = "GET",
	  .path = "/api/v1/version",
	  .tag = "system",
	  .summary = "Slipway version, API version and backend",
	  .description = "Which Slipway answers, and whether it talks to AWS "
	    "or to the local sandbox.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Version",
	},
	{
	  .name = "openapi",
	  .method = "GET",
	  .path = "/api/v1/openapi.json",
	  .tag = "system",
	  .summary = "This API as an OpenAPI 3.1 document",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .output = "Any",
	},
	{
	  .name = "login",
	  .method = "POST",
	  .path = "/api/v1/login",
	  .tag = "system",
	  .summary = "Exchange a token for a browser session cookie",
	  .body = f_login,
	  .flags = SW_OP_PUBLIC | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .output = "Principal",
	},
	{
	  .name = "logout",
	  .method = "POST",
	  .path = "/api/v1/logout",
	  .tag = "system",
	  .summary = "End the browser session",
	  .flags = SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_READ,
	  .output = "Principal",
	},
	{
	  .name = "whoami",
	  .method = "GET",
	  .path = "/api/v1/whoami",
	  .tag = "system",
	  .summary = "The token behind this request and its scope",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Principal",
	},
	{
	  .name = "metrics",
	  .method = "GET",
	  .path = "/metrics",
	  .tag = "system",
	  .summary = "Prometheus metrics (text exposition format)",
	  .description = "Operations by kind and state, stage durations, "
	    "AWS requests by service, operation and outcome, retries, "
	    "throttles, poller lag, worker restarts and MCP calls by tool.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "Any",
	},
	{
	  .name = "token_list",
	  .method = "GET",
	  .path = "/api/v1/tokens",
	  .tag = "system",
	  .summary = "List API tokens (never their secrets)",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "TokenList",
	},
	{
	  .name = "token_create",
	  .method = "POST",
	  .path = "/api/v1/tokens",
	  .tag = "system",
	  .summary = "Create an API token; its secret is shown once",
	  .body = f_token_create,
	  .flags = SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "TokenCreated",
	},
	{
	  .name = "token_revoke",
	  .method = "DELETE",
	  .path = "/api/v1/tokens/{name}",
	  .tag = "system",
	  .summary = "Revoke an API token",
	  .params = f_token_name,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "Any",
	},

	{
	  .name = "region_list",
	  .method = "GET",
	  .path = "/api/v1/regions",
	  .tag = "inspect",
	  .summary = "Regions where HyperPod runs, and the current one",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "az_list",
	  .method = "GET",
	  .path = "/api/v1/availability-zones",
	  .tag = "inspect",
	  .summary = "Availability zones of the region (name and zone id)",
	  .description = "Zone ids are the same across accounts; names are "
	    "not.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "instance_type_list",
	  .method = "GET",
	  .path = "/api/v1/instance-types",
	  .tag = "inspect",
	  .summary = "Instance types offered per AZ, with GPU and EFA facts",
	  .description = "Inspect before creating: pick an AZ that offers the "
	    "type.",
	  .params = f_type_query,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "training_plan_list",
	  .method = "GET",
	  .path = "/api/v1/training-plans",
	  .tag = "inspect",
	  .summary = "SageMaker training plans (reserved capacity)",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "cluster_list",
	  .method = "GET",
	  .path = "/api/v1/clusters",
	  .tag = "clusters",
	  .summary = "EKS clusters of the region, managed by Slipway or not",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "cluster_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}",
	  .tag = "clusters",
	  .summary = "One cluster: EKS, HyperPod, instance groups, recent "
	    "operations",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "cluster_create",
	  .method = "POST",
	  .path = "/api/v1/clusters",
	  .tag = "clusters",
	  .summary = "Create an EKS + HyperPod cluster (network, EKS, access, "
	    "dependencies, HyperPod, storage, verify)",
	  .description = "Ask the user only for decisions: instance type, "
	    "count, AZ, capacity type. CIDRs, subnets, route tables and "
	    "security groups are planned by Slipway. Poll the operation to a "
	    "terminal state with operation_wait; a failed stage can be "
	    "retried alone. The name of a Slipway cluster that exists "
	    "answers its create again when the body asks for nothing that "
	    "create did not have, and 409 (field name) when it does: change "
	    "a cluster with the instance group and feature operations.",
	  .body = f_cluster_create,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "cluster_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}",
	  .tag = "clusters",
	  .summary = "Tear down a cluster and everything Slipway created for "
	    "it",
	  .description = "Deletes the HyperPod cluster, the EKS cluster, "
	    "roles and the network, in reverse order: only what carries the "
	    "cluster's Slipway id, never a resource of a similar name.  An "
	    "imported cluster is released (forgotten, AWS keeps it) unless "
	    "delete_resources=true; a cluster Slipway neither created nor "
	    "imported is refused (409): import it first.",
	  .params = f_cluster_delete,
	  .flags = SW_OP_LONG | SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "cluster_import",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}:import",
	  .tag = "clusters",
	  .summary = "Adopt an existing EKS (+ HyperPod) cluster",
	  .description = "Records the cluster as Slipway's and tags the EKS "
	    "cluster with its Slipway id, so Slipway manages it from now on "
	    "(instance groups, nodes, features, updates).  Deleting it later "
	    "releases it unless delete_resources=true.",
	  .params = f_cluster_name,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .output = "Any",
	},
	{
	  .name = "instance_group_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/instance-groups",
	  .tag = "instance-groups",
	  .summary = "Instance groups with counts and status",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "instance_group_add",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/instance-groups",
	  .tag = "instance-groups",
	  .summary = "Add an instance group (capacity, EFA and subnet decided "
	    "together)",
	  .description = "Existing groups are resent unchanged. A spot group "
	    "cannot use a training plan; a training plan's AZ must be the "
	    "group's.",
	  .params = f_ig_add,
	  .body = f_ig_add_body,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "instance_group_scale",
	  .method = "PATCH",
	  .path = "/api/v1/clusters/{name}/instance-groups/{group}",
	  .tag = "instance-groups",
	  .summary = "Change an instance group's instance count or its "
	    "patching schedule",
	  .description = "count, scheduled_update, auto_patch and "
	    "image_release_version can change, each alone; instance type, "
	    "capacity type, EFA, AZ, subnet and training plan are immutable. "
	    "A higher count is checked against the service quota net of what "
	    "the account runs (422 naming count).",
	  .params = f_ig_path,
	  .body = f_ig_scale_body,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "instance_group_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/instance-groups/{group}",
	  .tag = "instance-groups",
	  .summary = "Delete an instance group and its nodes",
	  .params = f_ig_path,
	  .flags = SW_OP_LONG | SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "node_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/nodes",
	  .tag = "nodes",
	  .summary = "HyperPod nodes with health and instance group",
	  .params = f_node_query,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "node_reboot",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/nodes:reboot",
	  .tag = "nodes",
	  .summary = "Reboot nodes (first remedy for a sick node)",
	  .description = "Per-node failures are reported in the operation's "
	    "resources.",
	  .params = f_cluster_name,
	  .body = f_node_ids,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 20,
	  .output = "Accepted",
	},
	{
	  .name = "node_replace",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/nodes:replace",
	  .tag = "nodes",
	  .summary = "Replace nodes with new instances (wipes their volumes)",
	  .description = "Use after a reboot did not help.",
	  .params = f_cluster_name,
	  .body = f_node_ids,
	  .flags = SW_OP_LONG | SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "node_delete",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/nodes:delete",
	  .tag = "nodes",
	  .summary = "Remove nodes from the cluster",
	  .params = f_cluster_name,
	  .body = f_node_ids,
	  .flags = SW_OP_LONG | SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 20,
	  .output = "Accepted",
	},

	/* ROWS: governance, events, node detail and health checks */
	{
	  .name = "node_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/nodes/{node}",
	  .tag = "nodes",
	  .summary = "One node in detail, with its SSM target and the "
	    "command that opens a shell on it",
	  .description = "ssm_target is sagemaker-cluster:<cluster-id>_"
	    "<group>-<instance-id>; ssm_command is the exact aws ssm "
	    "start-session command.",
	  .params = f_node_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "node_health_check",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/nodes:health-check",
	  .tag = "nodes",
	  .summary = "Run deep health checks on chosen Running nodes",
	  .description = "Investigate step before reboot and replace: the "
	    "operation follows each node through DeepHealthCheckInProgress "
	    "and records its outcome (passed or failed, with the message) "
	    "under the follow stage's outcomes.",
	  .params = f_cluster_name,
	  .body = f_health_check,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .output = "Accepted",
	},
	{
	  .name = "cluster_events",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/events",
	  .tag = "diagnostics",
	  .summary = "The cluster's event history, newest first",
	  .description = "Every status change of the cluster, its instance "
	    "groups and nodes (ListClusterEvents). Filter by instance_group, "
	    "node_id, resource_type, level or since; page with cursor.",
	  .params = f_events_query,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
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

	/* ROWS: workloads */
	{
	  .name = "training_job_submit",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/training-jobs",
	  .tag = "workloads",
	  .summary = "Submit a training job (HyperPodPyTorchJob or RayJob) "
	    "from a recipe",
	  .description = "Recipes pytorch, llama-factory, ms-swift and verl "
	    "share one S3 data contract: the PVC s3-claim is mounted at "
	    "/data; give dataset (under /data/datasets), model (under "
	    "/data/models) and outputs go to /data/outputs/<job_name>. "
	    "hyperpod-pytorch needs the training operator (409 names "
	    "feature_set training_operator when absent); ray needs KubeRay. "
	    "Poll training_job_get; read training_job_logs.",
	  .params = f_cluster_name,
	  .body = f_train_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "training_job_get",
	  .poll_seconds = 15,
	  .output = "Any",
	},
	{
	  .name = "training_job_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/training-jobs",
	  .tag = "workloads",
	  .summary = "Training jobs and model downloads with their state",
	  .params = f_wl_cluster,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT |
	    SW_OP_WORKLOADS,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "training_job_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}",
	  .tag = "workloads",
	  .summary = "One training job or model download: state and pods",
	  .description = "state is Pending, Running, Succeeded or Failed; "
	    "terminal is true for the last two.  Each pod has its reason and "
	    "message (why it is not running) and its newest Kubernetes "
	    "events (events: type, reason, message, count, time; "
	    "FailedScheduling says why it waits).",
	  .params = f_job_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "training_job_logs",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}/logs",
	  .tag = "workloads",
	  .summary = "Last log lines of a job's pods, with parsed step, loss "
	    "and throughput",
	  .description = "Bounded: at most 'tail' lines per pod (default 100) "
	    "of up to 8 pods; never follows.",
	  .params = f_job_logs,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "training_job_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}",
	  .tag = "workloads",
	  .summary = "Delete a training job or model download and its pods",
	  .params = f_job_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "training_job_get",
	  .poll_seconds = 5,
	  .output = "Any",
	},
	{
	  .name = "model_download",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/models:download",
	  .tag = "workloads",
	  .summary = "Download a Hugging Face model into S3 (/data/models) "
	    "with a Kubernetes Job",
	  .description = "The answer's job is the Job's real name: poll "
	    "training_job_get with it. An hf_token is kept only in a "
	    "Kubernetes Secret.",
	  .params = f_cluster_name,
	  .body = f_download_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "training_job_get",
	  .poll_seconds = 15,
	  .output = "Any",
	},
	{
	  .name = "inference_deploy",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference",
	  .tag = "workloads",
	  .summary = "Serve a model: self-hosted vLLM/SGLang, the HyperPod "
	    "inference operator, or JumpStart",
	  .description = "self-hosted: a Deployment plus a Service "
	    "(ClusterIP, or an internal NLB with exposure load-balancer), "
	    "optional SGLang router and KEDA autoscaling. managed: an "
	    "InferenceEndpointConfig with KV cache, routing and autoscaling, "
	    "its TLS bucket and IAM policy. jumpstart: a JumpStartModel. "
	    "Poll inference_get until ready.",
	  .params = f_cluster_name,
	  .body = f_inf_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 15,
	  .output = "Any",
	},
	{
	  .name = "inference_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/inference",
	  .tag = "workloads",
	  .summary = "Inference endpoints with ready replicas",
	  .params = f_wl_cluster,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT |
	    SW_OP_WORKLOADS,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "inference_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}",
	  .tag = "workloads",
	  .summary = "One inference endpoint: readiness and Service endpoint",
	  .params = f_inf_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "inference_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}",
	  .tag = "workloads",
	  .summary = "Delete an inference endpoint (Deployment, Service, "
	    "router, autoscaler)",
	  .params = f_inf_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 5,
	  .output = "Any",
	},
	{
	  .name = "inference_scale",
	  .method = "PATCH",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}",
	  .tag = "workloads",
	  .summary = "Scale an inference endpoint: a replica count or an "
	    "autoscaler",
	  .description = "replicas sets a fixed count (and removes the "
	    "endpoint's autoscaler); autoscaling puts a KEDA ScaledObject on "
	    "it. Poll inference_get until ready_replicas matches.",
	  .params = f_inf_path,
	  .body = f_inf_scale_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 10,
	  .output = "Any",
	},
	{
	  .name = "inference_invoke",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}:invoke",
	  .tag = "workloads",
	  .summary = "Send one chat request to an inference endpoint",
	  .description = "An OpenAI-style chat body goes to the endpoint's "
	    "own Service through the cluster API server's service proxy; "
	    "the answer is the model server's JSON (a chat.completion). "
	    "503 while no server is ready: check inference_get.",
	  .params = f_inf_path,
	  .body = f_inf_invoke_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 10,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_create",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference-pools",
	  .tag = "workloads",
	  .summary = "Create or resize a hot GPU pool of loaded model servers",
	  .description = "Pods <pool>-<i> running vLLM or SGLang with the "
	    "model loaded, kept Ready for inference_pool_assign. Creating "
	    "again with another replicas resizes it; scale-in never removes "
	    "an assigned pod. Poll inference_pool_list.",
	  .params = f_cluster_name,
	  .body = f_pool_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 10,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/inference-pools",
	  .tag = "workloads",
	  .summary = "Inference pools: ready, free and assigned pods",
	  .params = f_wl_cluster,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/inference-pools/{pool}",
	  .tag = "workloads",
	  .summary = "Delete an inference pool (refused while it serves an "
	    "endpoint)",
	  .params = f_pool_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 5,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_assign",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference-pools/{pool}:assign",
	  .tag = "workloads",
	  .summary = "Give free pool pods to an endpoint (a label change)",
	  .description = "The endpoint's Service selects the pods at once. "
	    "Poll inference_get for its ready replicas.",
	  .params = f_pool_path,
	  .body = f_pool_move_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 5,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_release",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference-pools/{pool}:release",
	  .tag = "workloads",
	  .summary = "Take pods back from an endpoint into the pool",
	  .params = f_pool_path,
	  .body = f_pool_move_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 5,
	  .output = "Any",
	},

	/* ROWS: features */
	{
	  .name = "feature_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/features",
	  .tag = "features",
	  .summary = "Managed features and their live state",
	  .description = "Read from AWS and Kubernetes on every call: "
	    "training_operator, inference_operator, cert_manager, "
	    "tiered_checkpointing, autoscaling, node_recovery, kuberay, "
	    "task_governance, observability (with grafana_url when a Grafana "
	    "workspace was given), fsx_csi, each with enabled, status and "
	    "details.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "feature_set",
	  .method = "PATCH",
	  .path = "/api/v1/clusters/{name}/features",
	  .tag = "features",
	  .summary = "Turn managed features on or off (send only what changes)",
	  .description = "Explicit diff: name only the features to change, "
	    "e.g. {\"training_operator\": true}. When the live state already "
	    "matches, answers 200 changed:false and starts nothing; otherwise "
	    "202 with an operation that applies the differences in dependency "
	    "order (prerequisites first, removals in reverse). Poll with "
	    "operation_wait.",
	  .params = f_cluster_name,
	  .body = f_features,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN | SW_OP_IDEMPOTENT |
	    SW_OP_CONFIRM_OFF,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .output = "Accepted",
	},

	{
	  .name = "cost_ledger",
	  .method = "GET",
	  .path = "/api/v1/costs/ledger",
	  .tag = "costs",
	  .summary = "Node-hours, GPU-hours per team and job, idle GPU-hours, "
	    "and their cost",
	  .description = "What ran, from the ledger the poller keeps by "
	    "sampling every cluster Slipway owns: node-hours per instance "
	    "group and type, GPU-hours each team's jobs held (team: the "
	    "namespace without hyperpod-ns-), GPU-hours no job held "
	    "(idle_gpu), each priced at the type's on-demand price from the "
	    "AWS Price List API (null when AWS lists none).  Summed by the "
	    "group_by columns over the days from..to (UTC; default the last "
	    "7), as JSON or CSV.",
	  .params = f_cost_ledger,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "addon_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/addons",
	  .tag = "features",
	  .summary = "EKS add-ons with installed and newest compatible versions",
	  .description = "Every EKS add-on on the cluster (vpc-cni, coredns, "
	    "kube-proxy and those features install) with its status, the "
	    "installed version, whether EKS publishes it as compatible with "
	    "the cluster's Kubernetes version (DescribeAddonVersions), the "
	    "default and newest compatible versions, and whether an "
	    "addon_upgrade is available.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "addon_upgrade",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/addons/{addon}:upgrade",
	  .tag = "features",
	  .summary = "Move an EKS add-on to a compatible version",
	  .description = "UpdateAddon to version (default: the newest "
	    "compatible with the cluster's Kubernetes version), then waits "
	    "for the add-on to be ACTIVE at it. A version EKS does not publish "
	    "as compatible is refused (422 naming version). Already there: "
	    "200 changed:false. dry_run shows the UpdateAddon call.",
	  .params = f_addon_path,
	  .body = f_addon_upgrade,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .output = "Accepted",
	},
	/* ROWS: storage and diagnostics */
	{
	  .name = "storage_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/storage",
	  .tag = "storage",
	  .summary = "Storage claims of the cluster (S3 Mountpoint, FSx for "
	    "Lustre)",
	  .description = "Pods mount a claim by name; training and inference "
	    "use the same data layout under it.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "storage_add",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/storage",
	  .tag = "storage",
	  .summary = "Add shared storage: an S3 bucket or a new FSx for Lustre",
	  .description = "Installs the CSI driver add-on if needed and waits "
	    "for the claim to be Bound.",
	  .params = f_cluster_name,
	  .body = f_storage_add,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .output = "Accepted",
	},
	{
	  .name = "compute_subnet_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/compute-subnets",
	  .tag = "instance-groups",
	  .summary = "Compute subnets (/20 per AZ or per group) and who uses "
	    "them",
	  .description = "Reuse a dedicated subnet by passing its id as "
	    "subnet_id to instance_group_add.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "cluster_software_update",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}:update-software",
	  .tag = "nodes",
	  .summary = "Update the HyperPod software (AMI) of the cluster's "
	    "nodes",
	  .description = "Nodes are updated in rolling batches; poll with "
	    "operation_wait.",
	  .params = f_cluster_name,
	  .body = f_software_update,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 60,
	  .output = "Accepted",
	},
	{
	  .name = "diagnostics_cluster",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/diagnostics",
	  .tag = "diagnostics",
	  .summary = "Read-only health report: control plane, HyperPod, "
	    "nodes, pods",
	  .description = "Investigates only and changes nothing; each finding "
	    "names the next step to suggest (investigate -> reboot -> "
	    "replace).",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},

	{
	  .name = "operation_list",
	  .method = "GET",
	  .path = "/api/v1/operations",
	  .tag = "operations",
	  .summary = "List operations, newest first",
	  .description = "Every change Slipway makes is an operation; filter "
	    "by kind, state, cluster or the token that asked.",
	  .params = f_op_list,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "OperationList",
	},
	{
	  .name = "operation_get",
	  .method = "GET",
	  .path = "/api/v1/operations/{id}",
	  .tag = "operations",
	  .summary = "One operation with its stages and events",
	  .description = "State is pending, running, succeeded, failed or "
	    "cancelled; each stage shows the resources it created.",
	  .params = f_op_get,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Operation",
	},
	{
	  .name = "operation_wait",
	  .method = "GET",
	  .path = "/api/v1/operations/{id}:wait",
	  .tag = "operations",
	  .summary = "Wait (bounded) until an operation changes",
	  .description = "Long-polls up to 'timeout' seconds and returns the "
	    "operation as soon as it changes or ends. Use it instead of "
	    "sleeping. A token holds at most a few waits at once; past "
	    "that the answer is 429 with Retry-After.",
	  .params = f_op_wait,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_LONG_POLL |
	    SW_OP_PROGRESS,
	  .scope = SW_SCOPE_READ,
	  .output = "Operation",
	},
	{
	  .name = "operation_retry",
	  .method = "POST",
	  .path = "/api/v1/operations/{id}:retry",
	  .tag = "operations",
	  .summary = "Retry a failed or cancelled operation",
	  .description = "Runs the failed stage again and the ones after it; "
	    "stages that succeeded are not repeated.",
	  .params = f_op_id,
	  .flags = 0,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 5,
	  .output = "Accepted",
	},
	{
	  .name = "operation_cancel",
	  .method = "POST",
	  .path = "/api/v1/operations/{id}:cancel",
	  .tag = "operations",
	  .summary = "Cancel an operation",
	  .description = "A pending operation ends at once; a running one "
	    "stops at the next stage boundary.",
	  .params = f_op_id,
	  .flags = SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "operation_wait",
	  .poll_seconds = 5,
	  .output = "Accepted",
	},
};

const size_t sw_optable_len = sizeof(sw_optable) / sizeof(sw_optable[0]);

const struct sw_op *
sw_op_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sw_optable_len; i++)
		if (strcmp(sw_optable[i].name, name) == 0)
			return &sw_optable[i];
	return NULL;
}

/* Length of the segment at p (up to '/' or end). */
static size_t
seglen(const char *p)
{
	const char *s = strchr(p, '/');

	return s ? (size_t)(s - p) : strlen(p);
}

int
sw_path_match(const char *tmpl, const char *path, json_object *vars)
{
	const char *t = tmpl, *p = path, *close, *verb;
	size_t tl, pl, vl;
	char name[64];

	while (*t != '\0' && *p != '\0') {
		if (*t != '/' || *p != '/')
			return 0;
		t++;
		p++;
		tl = seglen(t);
		pl = seglen(p);
		if (*t == '{' && (close = memchr(t, '}', tl)) != NULL) {
			/* "{x}" or "{x}:verb": bind the part before :verb */
			verb = close + 1;
			vl = tl - (size_t)(verb - t);
			if (pl <= vl || (vl > 0 &&
			    memcmp(p + pl - vl, verb, vl) != 0))
				return 0;
			if (memchr(p, ':', pl - vl) != NULL)
				return 0;
			if ((size_t)(close - t - 1) >= sizeof(name))
				return 0;
			memcpy(name, t + 1, (size_t)(close - t - 1));
			name[close - t - 1] = '\0';
			if (vars != NULL) {
				char val[256];

				if (pl - vl >= sizeof(val))
					return 0;
				memcpy(val, p, pl - vl);
				val[pl - vl] = '\0';
				json_object_object_add(vars, name,
				    json_object_new_string(val));
			}
		} else if (tl != pl || memcmp(t, p, tl) != 0)
			return 0;
		t += tl;
		p += pl;
	}
	return *t == '\0' && *p == '\0';
}

/* "read-only" and "diagnose" (the read-only tools, what the diagnosis
 * skills use), then the table's tags. */
int
sw_tool_class_ok(const char *cls)
{
	size_t i;

	if (strcmp(cls, "read-only") == 0 || strcmp(cls, "diagnose") == 0)
		return 1;
	for (i = 0; i < sw_optable_len; i++)
		if (!(sw_optable[i].flags & SW_OP_NO_MCP) &&
		    strcmp(sw_optable[i].tag, cls) == 0)
			return 1;
	return 0;
}

int
sw_tool_classes_ok(const char *list)
{
	char buf[SW_MAX_TOOL_CLASSES + 1], *p, *comma;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return 0;
	for (p = buf; ; p = comma + 1) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma = '\0';
		if (!sw_tool_class_ok(p))
			return 0;
		if (comma == NULL)
			return 1;
	}
}

/*
 * Each pattern of the table in words: what a person reads when a value
 * breaks it ("must be lowercase letters, ..."), in place of the regular
 * expression (lib/valid.c).  Patterns that are the same string share a
 * row.  A pattern missing here is quoted as it is.
 */
const struct sw_pattern_words sw_pattern_words[] = {
	{ PAT_CLUSTER, "lowercase letters, digits and hyphens, starting "
	  "with a letter and ending with a letter or digit, 2 to 32 "
	  "characters" },
	{ PAT_NAME, "lowercase letters, digits and hyphens, starting and "
	  "ending with a letter or digit, at most 63 characters" },
	{ PAT_WL_NAME, "lowercase letters, digits and hyphens, starting "
	  "with a letter and ending with a letter or digit, at most 52 "
	  "characters" },
	{ PAT_TEAM, "lowercase letters, digits and hyphens, starting and "
	  "ending with a letter or digit, at most 39 characters" },
	{ PAT_QUOTA, "letters, digits and hyphens, starting and ending "
	  "with a letter or digit, at most 63 characters" },
	{ PAT_TOKEN_NAME, "letters, digits, dots, underscores and hyphens, "
	  "1 to 64 characters" },
	{ PAT_OP_ID, "an operation id: op- and 16 hexadecimal digits" },
	{ PAT_ML_TYPE, "a SageMaker instance type such as ml.g5.8xlarge" },
	{ PAT_AZ, "an availability zone such as us-west-2a" },
	{ PAT_SUBNET, "a subnet id such as subnet-0123456789abcdef0" },
	{ PAT_NODE, "a node's instance id such as i-0123456789abcdef0" },
	{ PAT_BUCKET, "an S3 bucket name: lowercase letters, digits, dots "
	  "and hyphens, starting and ending with a letter or digit, 3 to 63 "
	  "characters" },
	{ PAT_REL_PATH, "a relative path: up to 8 segments of letters, "
	  "digits, dots, underscores and hyphens, none starting with a dot" },
	{ PAT_CIDR16, "a /16 network such as 10.1.0.0/16" },
	{ PAT_ADDON_VERSION, "an add-on version such as v1.19.0-eksbuild.1" },
	{ NULL, NULL }
};
