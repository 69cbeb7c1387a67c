/*
 * inspect.c: the operation table's rows for what the account offers
 * before a cluster exists: regions, zones, instance types and training
 * plans, each beside the fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field o_region[] = {
	OUT("name", SW_T_STRING, "A region HyperPod is offered in."),
	OUT("current", SW_T_BOOL, "Slipway's region."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_region_item[] = {
	{ .name = "region", .type = SW_T_OBJECT, .fields = o_region },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_region_list[] = {
	OUT("region", SW_T_STRING, "Slipway's region."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_region_item, .desc = "The regions." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_region_list[] = {
	{ .status = 200, .fields = o_region_list, .desc = "The regions." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_zone[] = {
	OUT("name", SW_T_STRING, "Zone name (us-west-2a)."),
	OUT("id", SW_T_STRING, "Zone id (usw2-az1), the same in every "
	    "account."),
	OUT("state", SW_T_STRING, "available, or why not."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_zone_item[] = {
	{ .name = "zone", .type = SW_T_OBJECT, .fields = o_zone },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_zone_list[] = {
	OUT("region", SW_T_STRING, "Slipway's region."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_zone_item, .desc = "The zones." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_az_list[] = {
	{ .status = 200, .fields = o_zone_list, .desc = "The zones." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_az_name_item[] = {
	{ .name = "az", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_type[] = {
	OUT("instance_type", SW_T_STRING, "HyperPod type (ml.*)."),
	OUT("ec2_instance_type", SW_T_STRING, "The EC2 type under it."),
	{ .name = "availability_zones", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_az_name_item,
	  .desc = "Zones offering it." },
	OUT("gpus", SW_T_INT, "GPUs per instance."),
	OUT("gpu_name", SW_T_STRING, "GPU model, or empty."),
	OUT("efa_supported", SW_T_BOOL, "EFA network interfaces."),
	OUT("vcpus", SW_T_INT, "vCPUs."),
	OUT("memory_mib", SW_T_INT, "Memory in MiB."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_type_item[] = {
	{ .name = "type", .type = SW_T_OBJECT, .fields = o_type },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_type_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_type_item, .desc = "The types offered." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_type_list[] = {
	{ .status = 200, .fields = o_type_list, .desc = "The types." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_plan_item[] = {
	{ .name = "plan", .type = SW_T_ANY,
	  .desc = "A TrainingPlanSummary as SageMaker returns it." },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_plan_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_plan_item, .desc = "The account's training plans." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_plan_list[] = {
	{ .status = 200, .fields = o_plan_list,
	  .desc = "The training plans." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "region_list",
	  .method = "GET",
	  .path = "/api/v1/regions",
	  .tag = "inspect",
	  .summary = "Regions where HyperPod runs, and the current one",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_region_list,
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_az_list,
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_type_list,
	},
	{
	  .name = "training_plan_list",
	  .method = "GET",
	  .path = "/api/v1/training-plans",
	  .tag = "inspect",
	  .summary = "SageMaker training plans (reserved capacity)",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_plan_list,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_inspect = { rows,
	sizeof(rows) / sizeof(rows[0]) };
