/*
 * storage.c: the operation table's rows for a cluster's shared
 * storage, each beside the fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const storage_kinds[] = { "s3", "fsx", NULL };

/* clang-format off */
static const struct sw_field f_storage_add[] = {
	{ .name = "kind", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = storage_kinds,
	  .desc = "s3: an S3 bucket through Mountpoint; fsx: a new FSx for "
	  "Lustre file system." },
	{ .name = "claim", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "PersistentVolumeClaim name pods mount (e.g. s3-claim)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_GROUP, .dflt = "default",
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
/* clang-format on */

/* clang-format off */
static const struct sw_field o_claim[] = {
	OUT_OPT("claim", SW_T_STRING, "PersistentVolumeClaim name."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT("status", SW_T_STRING, "Bound, Pending..."),
	OUT_OPT("volume", SW_T_STRING, "The PersistentVolume bound."),
	OUT("kind", SW_T_STRING, "s3, fsx, another CSI driver's name, or "
	    "other."),
	OUT_OPT("bucket", SW_T_STRING, "The S3 bucket (s3)."),
	OUT_OPT("file_system_id", SW_T_STRING, "The FSx file system's id "
	    "(fsx)."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_claim_item[] = {
	{ .name = "claim", .type = SW_T_OBJECT, .fields = o_claim },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_claim_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_claim_item, .desc = "The claims." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_storage_list[] = {
	{ .status = 200, .fields = o_claim_list,
	  .desc = "The cluster's storage claims." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_storage_list,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .answers = a_long,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_storage = { rows,
	sizeof(rows) / sizeof(rows[0]) };
