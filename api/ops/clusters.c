/*
 * clusters.c: the operation table's rows for listing, reading,
 * creating, deleting and importing clusters, each beside the fields it
 * reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const k8s_versions[] = { "1.29", "1.30", "1.31", "1.32",
	"1.33", NULL };

static const char *const recovery_modes[] = { "Automatic", "None", NULL };
static const char *const provisioning_modes[] = { "Continuous", NULL };

/* clang-format off */
static const struct sw_field f_cluster_delete[] = {
	F_CLUSTER_PATH,
	{ .name = "delete_resources", .type = SW_T_BOOL, .flags = SW_F_QUERY,
	  .desc = "For an imported cluster: also delete its HyperPod and EKS "
	  "clusters in AWS.  Without it an imported cluster is released: "
	  "Slipway forgets it and AWS keeps everything.  A cluster Slipway "
	  "created is always deleted with what it made." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field f_group_item[] = {
	{ .name = "group", .type = SW_T_OBJECT, .fields = f_group_spec },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_az_item[] = {
	{ .name = "az", .type = SW_T_STRING, .min = 1, .max = 32,
	  .pattern = PAT_AZ },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_storage[] = {
	{ .name = "s3_bucket", .type = SW_T_STRING, .min = 3, .max = 63,
	  .pattern = PAT_BUCKET,
	  .desc = "Bucket mounted through S3 Mountpoint as PVC s3-claim." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
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
	{ .name = "node_provisioning_mode", .type = SW_T_STRING,
	  .enumv = provisioning_modes,
	  .desc = "Continuous: HyperPod provisions each node as capacity "
	  "comes (NodeProvisioningMode); scaling up then uses "
	  "BatchAddClusterNodes. Default: unset." },
	{ .name = "deep_health_checks", .type = SW_T_ARRAY, .max = 2,
	  .desc = "Deep health checks run when nodes start.",
	  .items = f_check_item },
	{ .name = "storage", .type = SW_T_OBJECT,
	  .desc = "Shared storage to set up.", .fields = f_storage },
	{ .name = "account", .type = SW_T_STRING, .min = 12, .max = 12,
	  .pattern = PAT_ACCOUNT,
	  .desc = "AWS account to create the cluster in (default: "
	  "Slipway's own).  Another account is reached through "
	  "sts:AssumeRole of its member role (cfn/member-role.yaml) with "
	  "the configured external id." },
	{ .name = "region", .type = SW_T_STRING, .min = 9, .max = 25,
	  .pattern = PAT_REGION,
	  .desc = "Region to create the cluster in, one where HyperPod "
	  "runs (default: Slipway's region)." },
	{ NULL }
};
/* clang-format on */

static const char *const origins[] = { "created", "imported", NULL };

/* clang-format off */
static const struct sw_field o_cluster_item[] = {
	OUT("name", SW_T_STRING, "Cluster name."),
	OUT_OPT("account", SW_T_STRING, "The AWS account it lives in "
	    "(absent when Slipway's own is not known)."),
	OUT("region", SW_T_STRING, "The region it lives in."),
	OUT("managed", SW_T_BOOL, "Slipway has a record of it (created "
	    "or imported)."),
	{ .name = "origin", .type = SW_T_STRING, .enumv = origins,
	  .desc = "How Slipway came to manage it (managed only)." },
	OUT("eks_status", SW_T_STRING, "EKS status, or UNKNOWN."),
	OUT_OPT("hyperpod_status", SW_T_STRING, "HyperPod status, when "
	    "there is a HyperPod cluster of that name."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_cluster_items[] = {
	{ .name = "cluster", .type = SW_T_OBJECT, .fields = o_cluster_item },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_unreachable[] = {
	OUT_OPT("account", SW_T_STRING, "The account."),
	OUT("region", SW_T_STRING, "The region."),
	OUT("message", SW_T_STRING, "Why it could not be listed."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_unreachable_items[] = {
	{ .name = "place", .type = SW_T_OBJECT, .fields = o_unreachable },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_cluster_list[] = {
	OUT("region", SW_T_STRING, "Slipway's region."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_cluster_items, .desc = "Every EKS cluster of Slipway's "
	  "account and region, and of every other account and region "
	  "holding a cluster Slipway created." },
	{ .name = "unreachable", .type = SW_T_ARRAY,
	  .items = o_unreachable_items, .desc = "Accounts and regions "
	  "holding Slipway's clusters that could not be listed (the member "
	  "role refused, AWS failed)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_cluster_list[] = {
	{ .status = 200, .fields = o_cluster_list, .desc = "The clusters." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_eks[] = {
	OUT_OPT("status", SW_T_STRING, "EKS status (CREATING, ACTIVE...)."),
	OUT_OPT("arn", SW_T_STRING, "EKS cluster ARN."),
	OUT_OPT("version", SW_T_STRING, "Kubernetes version."),
	OUT_OPT("endpoint", SW_T_STRING, "API server endpoint."),
	OUT_OPT("vpc_id", SW_T_STRING, "Its VPC."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_hyperpod[] = {
	OUT_OPT("status", SW_T_STRING, "HyperPod status (Creating, "
	    "InService...)."),
	OUT_OPT("arn", SW_T_STRING, "HyperPod cluster ARN."),
	OUT_OPT("node_recovery", SW_T_STRING, "Automatic or None."),
	OUT_OPT("node_provisioning_mode", SW_T_STRING, "Continuous, or "
	    "absent."),
	OUT_OPT("failure_message", SW_T_STRING, "Why it failed."),
	OUT_OPT("instance_groups", SW_T_ANY, "Its instance groups as "
	    "SageMaker describes them."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_cluster[] = {
	OUT("name", SW_T_STRING, "Cluster name."),
	OUT_OPT("account", SW_T_STRING, "The AWS account it lives in "
	    "(absent when Slipway's own is not known)."),
	OUT("region", SW_T_STRING, "The region it lives in."),
	OUT("managed", SW_T_BOOL, "Slipway has a record of it."),
	{ .name = "origin", .type = SW_T_STRING, .enumv = origins,
	  .desc = "How Slipway came to manage it (managed only)." },
	{ .name = "eks", .type = SW_T_OBJECT, .flags = SW_F_REQUIRED,
	  .fields = o_eks, .desc = "The EKS cluster." },
	{ .name = "hyperpod", .type = SW_T_OBJECT, .fields = o_hyperpod,
	  .desc = "The HyperPod cluster, when there is one." },
	{ .name = "recent_operations", .type = SW_T_ARRAY,
	  .items = sw_op_summary_item,
	  .desc = "Its last five operations, newest first." },
	{ .name = "cost", .type = SW_T_OBJECT, .fields = sw_cost_fields,
	  .desc = "What its instance groups cost per hour now "
	  "(cluster_per_hour), priced from the AWS Price List API." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_cluster_get[] = {
	{ .status = 200, .fields = o_cluster, .desc = "The cluster." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_imported[] = {
	OUT("name", SW_T_STRING, "Cluster name."),
	OUT("imported", SW_T_BOOL, "Always true."),
	OUT("cluster_id", SW_T_STRING, "Slipway's id of it (swc-...), "
	    "tagged on the EKS cluster."),
	{ .name = "origin", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = origins, .desc = "created when Slipway made it." },
	OUT_OPT("eks_arn", SW_T_STRING, "EKS cluster ARN."),
	OUT_OPT("hyperpod_arn", SW_T_STRING, "HyperPod cluster ARN."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_import_call[] = {
	OUT("service", SW_T_STRING, "eks."),
	OUT("operation", SW_T_STRING, "TagResource."),
	OUT("input", SW_T_ANY, "Its input."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_import_call_item[] = {
	{ .name = "call", .type = SW_T_OBJECT, .fields = o_import_call },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_import_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "calls", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_import_call_item, .desc = "The call it would make." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_cluster_import[] = {
	{ .status = 200, .fields = o_imported,
	  .desc = "Imported (or already managed)." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_import_plan,
	  .desc = "The plan (dry_run=true): the tag it would set." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "cluster_list",
	  .method = "GET",
	  .path = "/api/v1/clusters",
	  .tag = "clusters",
	  .summary = "EKS clusters of every account and region Slipway "
	    "manages one in, managed by Slipway or not",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_cluster_list,
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_cluster_get,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_cluster_import,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_clusters = { rows,
	sizeof(rows) / sizeof(rows[0]) };
