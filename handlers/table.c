/*
 * table.c: which handler answers each row of the operation table.  The
 * operation table in lib/ describes operations (names, fields, flags)
 * and knows no handler; the programs that route (slipway-api and
 * slipway-mcp) pass this table to sw_route().  t/unit/test-optable
 * checks that every row has exactly one handler here.
 */
#include "handlers/handlers.h"
#include "handlers/table.h"

const struct sw_handler_row sw_handler_table[] = {
	{ .op = "health", .fn = h_health },
	{ .op = "version", .fn = h_version },
	{ .op = "openapi", .fn = h_openapi },
	{ .op = "login", .fn = h_login },
	{ .op = "logout", .fn = h_logout },
	{ .op = "whoami", .fn = h_whoami },
	{ .op = "token_list", .fn = h_token_list },
	{ .op = "token_create", .fn = h_token_create },
	{ .op = "token_revoke", .fn = h_token_revoke },
	{ .op = "region_list", .fn = h_region_list },
	{ .op = "az_list", .fn = h_az_list },
	{ .op = "instance_type_list", .fn = h_instance_type_list },
	{ .op = "training_plan_list", .fn = h_training_plan_list },
	{ .op = "cluster_list", .fn = h_cluster_list },
	{ .op = "cluster_get", .fn = h_cluster_get },
	{ .op = "cluster_create", .fn = h_cluster_create },
	{ .op = "cluster_delete", .fn = h_cluster_delete },
	{ .op = "cluster_import", .fn = h_cluster_import },
	{ .op = "instance_group_list", .fn = h_instance_group_list },
	{ .op = "instance_group_add", .fn = h_instance_group_add },
	{ .op = "instance_group_scale", .fn = h_instance_group_scale },
	{ .op = "instance_group_delete", .fn = h_instance_group_delete },
	{ .op = "node_list", .fn = h_node_list },
	{ .op = "node_reboot", .fn = h_node_reboot },
	{ .op = "node_replace", .fn = h_node_replace },
	{ .op = "node_delete", .fn = h_node_delete },
	{ .op = "training_job_submit", .fn = h_training_job_submit },
	{ .op = "training_job_list", .fn = h_training_job_list },
	{ .op = "training_job_get", .fn = h_training_job_get },
	{ .op = "training_job_logs", .fn = h_training_job_logs },
	{ .op = "training_job_delete", .fn = h_training_job_delete },
	{ .op = "model_download", .fn = h_model_download },
	{ .op = "inference_deploy", .fn = h_inference_deploy },
	{ .op = "inference_list", .fn = h_inference_list },
	{ .op = "inference_get", .fn = h_inference_get },
	{ .op = "inference_delete", .fn = h_inference_delete },
	{ .op = "inference_scale", .fn = h_inference_scale },
	{ .op = "inference_invoke", .fn = h_inference_invoke },
	{ .op = "inference_pool_create", .fn = h_inference_pool_create },
	{ .op = "inference_pool_list", .fn = h_inference_pool_list },
	{ .op = "inference_pool_delete", .fn = h_inference_pool_delete },
	{ .op = "inference_pool_assign", .fn = h_inference_pool_assign },
	{ .op = "inference_pool_release", .fn = h_inference_pool_release },
	{ .op = "feature_list", .fn = h_feature_list },
	{ .op = "feature_set", .fn = h_feature_set },
	{ .op = "storage_list", .fn = h_storage_list },
	{ .op = "storage_add", .fn = h_storage_add },
	{ .op = "compute_subnet_list", .fn = h_compute_subnet_list },
	{ .op = "cluster_software_update", .fn = h_cluster_software_update },
	{ .op = "diagnostics_cluster", .fn = h_diagnostics_cluster },
	{ .op = "operation_list", .fn = h_op_list },
	{ .op = "operation_get", .fn = h_op_get },
	{ .op = "operation_wait", .fn = h_op_wait },
	{ .op = "operation_retry", .fn = h_op_retry },
	{ .op = "operation_cancel", .fn = h_op_cancel },
	{ .op = NULL, .fn = NULL }
};
