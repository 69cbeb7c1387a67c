/*
 * instance_groups.c: the operation table's rows for a cluster's
 * instance groups and the subnets they may use, each beside the fields
 * it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const placements[] = { "shared", "dedicated", NULL };

/* clang-format off */
static const struct sw_field f_ig_add[] = {
	F_CLUSTER_PATH,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_scheduled_update[] = {
	{ .name = "cron", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 9, .max = 256, .pattern = "cron\\([^()]+\\)",
	  .desc = "When to patch, e.g. cron(0 2 ? * SUN *) (UTC)." },
	F_ROLLING_FIELDS,
	{ NULL }
};
/* clang-format on */

static const char *const patch_strategies[] = { "WhenIdle", "WhenAllIdle",
	NULL };

/* clang-format off */
static const struct sw_field f_auto_patch[] = {
	{ .name = "strategy", .type = SW_T_STRING, .enumv = patch_strategies,
	  .desc = "Patch a node when it is idle (default) or when the whole "
	  "group is." },
	F_ROLLING_FIELDS,
	{ NULL }
};
/* clang-format on */

#define F_PATCH_FIELDS \
	{ .name = "scheduled_update", \
		.type = SW_T_OBJECT, \
		.fields = f_scheduled_update, \
		.desc = "Scheduled AMI updates with a rolling deployment " \
			"(ScheduledUpdateConfig)." }, \
	    { .name = "auto_patch", \
		    .type = SW_T_OBJECT, \
		    .fields = f_auto_patch, \
		    .desc = \
			"Patch nodes automatically when idle (AutoPatchConfig)." }, \
	{ \
		.name = "image_release_version", .type = SW_T_STRING, \
		.min = 10, .max = 10, .pattern = PAT_IMAGE_RELEASE, \
		.desc = \
		    "HyperPod AMI release the group runs, e.g. 2025.10.01." \
	}

/* clang-format off */
static const struct sw_field f_ig_add_body[] = {
	{ .name = "group_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "New instance group name." },
	{ .name = "instance_type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = PAT_ML_TYPE,
	  .desc = "HyperPod instance type." },
	{ .name = "count", .type = SW_T_INT, .flags = SW_F_REQUIRED, .min = 0,
	  .max = 1000, .desc = "Number of instances; 0 makes the group "
	  "with no nodes (to scale up later, or for autoscaling)." },
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
/* clang-format on */

/* clang-format off */
static const struct sw_field f_ig_path[] = {
	F_CLUSTER_PATH,
	{ .name = "group", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_GROUP, .desc = "Instance group name." },
	{ NULL }
};
/* clang-format on */

/* Update takes the count and the patching fields, each optional; the
 * others are named so the answer can say they are immutable rather than
 * unknown. */
/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field o_group_name_item[] = {
	{ .name = "group", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_subnet[] = {
	OUT_OPT("subnet_id", SW_T_STRING, "Subnet id."),
	OUT("name", SW_T_STRING, "Its Name tag "
	    "(slipway-<cluster>-compute-...)."),
	OUT_OPT("availability_zone", SW_T_STRING, "Its zone."),
	OUT_OPT("cidr", SW_T_STRING, "Its CIDR block."),
	OUT_OPT("available_ips", SW_T_STRING, "Free addresses, as EC2 "
	    "counts them."),
	{ .name = "instance_groups", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_group_name_item,
	  .desc = "The groups placed in it." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_subnet_item[] = {
	{ .name = "subnet", .type = SW_T_OBJECT, .fields = o_subnet },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_subnet_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_subnet_item, .desc = "The compute subnets." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_subnet_list[] = {
	{ .status = 200, .fields = o_subnet_list,
	  .desc = "The cluster's compute subnets." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_alarm_name_item[] = {
	{ .name = "alarm", .type = SW_T_STRING },
};
/* clang-format on */
/* A rolling deployment as HyperPod has it, in the request's words. */
#define F_ROLLING_VIEW \
	OUT_OPT("batch_count", SW_T_INT, "Nodes updated at once."), \
	    OUT_OPT("batch_percent", SW_T_INT, "Or percent of the group."), \
	    OUT_OPT("rollback_batch_count", SW_T_INT, \
		"Nodes rolled back at " \
		"once."), \
	    OUT_OPT("rollback_batch_percent", SW_T_INT, "Or percent."), \
	    OUT_OPT("wait_seconds", SW_T_INT, "Wait between batches."), \
	{ \
		.name = "rollback_alarms", .type = SW_T_ARRAY, \
		.items = o_alarm_name_item, \
		.desc = "CloudWatch alarms that roll it back." \
	}
/* clang-format off */
static const struct sw_field o_scheduled_view[] = {
	OUT_OPT("cron", SW_T_STRING, "When it runs."),
	F_ROLLING_VIEW,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_auto_patch_view[] = {
	OUT_OPT("strategy", SW_T_STRING, "How it patches."),
	F_ROLLING_VIEW,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_subnet_id_item[] = {
	{ .name = "subnet", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_group[] = {
	OUT_OPT("name", SW_T_STRING, "Group name."),
	OUT_OPT("instance_type", SW_T_STRING, "Its type."),
	OUT("current_count", SW_T_INT, "Instances now."),
	OUT("target_count", SW_T_INT, "Instances asked for."),
	OUT("status", SW_T_STRING, "InService, Creating, Updating..., or "
	    "unknown."),
	OUT_OPT("training_plan_arn", SW_T_STRING, "The training plan it "
	    "runs on."),
	{ .name = "training_plan", .type = SW_T_OBJECT,
	  .fields = sw_plan_brief_fields, .desc = "That plan's status and "
	  "when it ends." },
	{ .name = "subnets", .type = SW_T_ARRAY, .items = o_subnet_id_item,
	  .desc = "Its own subnets, when it overrides the cluster's." },
	{ .name = "scheduled_update", .type = SW_T_OBJECT,
	  .fields = o_scheduled_view, .desc = "Its scheduled AMI update." },
	{ .name = "auto_patch", .type = SW_T_OBJECT,
	  .fields = o_auto_patch_view, .desc = "Its automatic patching." },
	OUT_OPT("image_release_version", SW_T_STRING, "The AMI release it "
	    "runs."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_group_item[] = {
	{ .name = "group", .type = SW_T_OBJECT, .fields = o_group },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_group_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_group_item, .desc = "The instance groups." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_group_list[] = {
	{ .status = 200, .fields = o_group_list,
	  .desc = "The cluster's instance groups." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "instance_group_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/instance-groups",
	  .tag = "instance-groups",
	  .summary = "Instance groups with counts and status",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_group_list,
	},
	{
	  .name = "instance_group_add",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/instance-groups",
	  .tag = "instance-groups",
	  .summary = "Add an instance group (capacity, EFA and subnet decided "
	    "together)",
	  .description = "Existing groups are resent unchanged; a group may "
	    "start at count 0. A spot group "
	    "cannot use a training plan; a training plan's AZ must be the "
	    "group's.",
	  .params = f_ig_add,
	  .body = f_ig_add_body,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	    "the account runs (422 naming count). On a cluster in Continuous "
	    "node provisioning a higher count alone is added with "
	    "BatchAddClusterNodes (at most 50 nodes a call, each with a "
	    "ClientToken of the operation, so a retry cannot add twice); "
	    "otherwise, and for the other changes, UpdateCluster.",
	  .params = f_ig_path,
	  .body = f_ig_scale_body,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_subnet_list,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_instance_groups = { rows,
	sizeof(rows) / sizeof(rows[0]) };
