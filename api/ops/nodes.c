/*
 * nodes.c: the operation table's rows for a cluster's nodes: listing,
 * reading, rebooting, replacing, deleting, deep health checks,
 * software updates and EBS volumes attached to a node, each beside the
 * fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/* clang-format off */
static const struct sw_field f_rolling[] = {
	F_ROLLING_FIELDS,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_node_query[] = {
	F_CLUSTER_PATH,
	{ .name = "instance_group", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "Only nodes of this group." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_node_item[] = {
	{ .name = "node", .type = SW_T_STRING, .min = 1, .max = 32,
	  .pattern = PAT_NODE },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_node_ids[] = {
	{ .name = "node_ids", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 25,
	  .desc = "HyperPod node ids (i-...), at most 25.",
	  .items = f_node_item },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_node_path[] = {
	F_CLUSTER_PATH,
	{ .name = "node", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 3, .max = 32,
	  .pattern = PAT_NODE, .desc = "HyperPod node id (i-...)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_volume_attach[] = {
	{ .name = "volume_id", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 12, .max = 21, .pattern = PAT_VOLUME,
	  .desc = "The EBS volume (vol-...): available, in the node's "
	  "Availability Zone." },
	{ .name = "install_csi_driver", .type = SW_T_BOOL,
	  .desc = "First install the Amazon EBS CSI driver add-on "
	  "(aws-ebs-csi-driver) when the cluster lacks it (default "
	  "false: the attach is refused without it)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_volume_path[] = {
	F_CLUSTER_PATH,
	{ .name = "node", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 3, .max = 32,
	  .pattern = PAT_NODE, .desc = "HyperPod node id (i-...)." },
	{ .name = "volume", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 12, .max = 21,
	  .pattern = PAT_VOLUME, .desc = "The attached EBS volume (vol-...)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field f_group_name_item[] = {
	{ .name = "group", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_GROUP },
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field o_node[] = {
	OUT_OPT("node_id", SW_T_STRING, "Instance id (i-...)."),
	OUT_OPT("instance_group", SW_T_STRING, "Its instance group."),
	OUT_OPT("instance_type", SW_T_STRING, "Its type."),
	OUT("status", SW_T_STRING, "Running, Pending, ShuttingDown..., or "
	    "unknown."),
	OUT_OPT("message", SW_T_STRING, "Why, when HyperPod says."),
	OUT_OPT("hostname", SW_T_STRING, "Its private DNS name."),
	OUT_OPT("node_logical_id", SW_T_STRING, "Its NodeLogicalId, on a "
	    "cluster in Continuous node provisioning: kept across "
	    "replacements."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_node_item[] = {
	{ .name = "node", .type = SW_T_OBJECT, .fields = o_node },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_node_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_node_item, .desc = "The nodes." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_node_list[] = {
	{ .status = 200, .fields = o_node_list,
	  .desc = "The cluster's nodes." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_node_detail[] = {
	OUT_OPT("node_id", SW_T_STRING, "Instance id."),
	OUT_OPT("instance_group", SW_T_STRING, "Its instance group."),
	OUT_OPT("instance_type", SW_T_STRING, "Its type."),
	OUT_OPT("status", SW_T_STRING, "Running, Pending..."),
	OUT_OPT("message", SW_T_STRING, "Why, when HyperPod says."),
	OUT_OPT("hostname", SW_T_STRING, "Its private DNS name."),
	OUT_OPT("private_ip", SW_T_STRING, "Its private address."),
	OUT_OPT("availability_zone", SW_T_STRING, "Its zone."),
	OUT_OPT("capacity_type", SW_T_STRING, "OnDemand, Spot..."),
	OUT_OPT("logical_id", SW_T_STRING, "HyperPod's logical id."),
	OUT_OPT("image_release_version", SW_T_STRING, "The AMI release it "
	    "runs."),
	OUT_OPT("desired_image_release_version", SW_T_STRING, "The release "
	    "it is moving to."),
	OUT_OPT("launch_time", SW_T_NUMBER, "When it launched (seconds "
	    "since the epoch)."),
	OUT_OPT("ssm_target", SW_T_STRING, "The SSM target of the node "
	    "(sagemaker-cluster:<id>_<group>-<node>)."),
	OUT_OPT("ssm_command", SW_T_STRING, "An aws ssm start-session "
	    "command to reach it."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_node_get[] = {
	{ .status = 200, .fields = o_node_detail, .desc = "The node." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "node_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/nodes",
	  .tag = "nodes",
	  .summary = "HyperPod nodes with health and instance group",
	  .params = f_node_query,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_node_list,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 20,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 20,
	  .answers = a_long,
	},
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_node_get,
	},
	{
	  .name = "node_volume_attach",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/nodes/{node}/volumes",
	  .tag = "nodes",
	  .summary = "Attach an EBS volume to a node (AttachClusterNodeVolume)",
	  .description = "Only on an EKS-orchestrated cluster that is "
	    "InService, to a Running node outside restricted instance "
	    "groups; the volume must be available and in the node's "
	    "Availability Zone.  The Amazon EBS CSI driver add-on manages "
	    "the volume in Kubernetes: with install_csi_driver the "
	    "operation installs it first.  The attach stage records the "
	    "device name.",
	  .params = f_node_path,
	  .body = f_volume_attach,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 10,
	  .answers = a_long,
	},
	{
	  .name = "node_volume_detach",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/nodes/{node}/volumes/{volume}",
	  .tag = "nodes",
	  .summary = "Detach an EBS volume from a node "
	    "(DetachClusterNodeVolume)",
	  .description = "Only on an EKS-orchestrated cluster that is "
	    "InService; the volume must be attached to that node.  Unmount "
	    "it first: a workload still writing to it loses its writes.",
	  .params = f_volume_path,
	  .flags = SW_OP_LONG | SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 10,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 60,
	  .answers = a_long,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_nodes = { rows,
	sizeof(rows) / sizeof(rows[0]) };
