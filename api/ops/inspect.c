/*
 * inspect.c: the operation table's rows for what the account offers
 * before a cluster exists: regions, zones, instance types and training
 * plans, each beside the fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

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

static const struct sw_op rows[] = {
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
};

const struct sw_op_family sw_ops_inspect = {
	rows, sizeof(rows) / sizeof(rows[0])
};
