/*
 * families.h: the families of the operation table, each a file of
 * api/ops/ exporting its rows; api/optable.c joins them.
 */
#ifndef SW_FAMILIES_H
#define SW_FAMILIES_H

#include <stddef.h>

/* One family's rows, in the order the OpenAPI document lists them. */
struct sw_op;
struct sw_op_family {
	const struct sw_op *rows;
	size_t len;
};

extern const struct sw_op_family sw_ops_system;
extern const struct sw_op_family sw_ops_inspect;
extern const struct sw_op_family sw_ops_plans;
extern const struct sw_op_family sw_ops_clusters;
extern const struct sw_op_family sw_ops_instance_groups;
extern const struct sw_op_family sw_ops_nodes;
extern const struct sw_op_family sw_ops_diagnostics;
extern const struct sw_op_family sw_ops_governance;
extern const struct sw_op_family sw_ops_training;
extern const struct sw_op_family sw_ops_mlflow;
extern const struct sw_op_family sw_ops_inference;
extern const struct sw_op_family sw_ops_spaces;
extern const struct sw_op_family sw_ops_features;
extern const struct sw_op_family sw_ops_storage;
extern const struct sw_op_family sw_ops_operations;
extern const struct sw_op_family sw_ops_costs;
extern const struct sw_op_family sw_ops_notifications;
extern const struct sw_op_family sw_ops_fleet;

#endif
