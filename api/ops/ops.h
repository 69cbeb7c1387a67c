/*
 * ops.h: what the families of the operation table (the files of api/ops/)
 * share: the patterns of names and ids (quoted in words by
 * api/optable.c), the enumerations and field rows more than one
 * family uses, and each family's rows.
 */
#ifndef SW_OPS_H
#define SW_OPS_H

#include <stddef.h>

#include "lib/valid.h"

#define PAT_OP_ID	"op-[0-9a-f]{16}"
#define PAT_TOKEN_NAME	"[A-Za-z0-9._-]{1,64}"
#define PAT_NAME	"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
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

static const char *const capacity_types[] = {
	"on-demand", "spot", "training-plan", NULL
};

static const char *const deep_checks[] = {
	"InstanceStress", "InstanceConnectivity", NULL
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

static const struct sw_field f_check_item[] = {
	{ .name = "check", .type = SW_T_STRING, .enumv = deep_checks },
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

#define PAT_IMAGE_RELEASE	"[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}"
#define PAT_QUOTA	"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"
#define PAT_TEAM	"[a-z0-9]([-a-z0-9]{0,37}[a-z0-9])?"

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

#define PAT_IMAGE	"[a-z0-9][a-z0-9._-]{0,127}(:[0-9]{1,5})?" \
			"(/[a-z0-9][a-z0-9._-]{0,127}){0,6}" \
			"(:[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?" \
			"(@sha256:[0-9a-f]{64})?"

static const struct sw_field f_wl_cluster[] = {
	F_CLUSTER_PATH,
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Only this namespace (default: all)." },
	{ NULL }
};

/* An EKS add-on of a cluster, and the version to move it to. */
#define PAT_ADDON_VERSION	"v[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.]+)*"

/* One family's rows, in the order the OpenAPI document lists them. */
struct sw_op;
struct sw_op_family {
	const struct sw_op	*rows;
	size_t			 len;
};

extern const struct sw_op_family sw_ops_system;
extern const struct sw_op_family sw_ops_inspect;
extern const struct sw_op_family sw_ops_clusters;
extern const struct sw_op_family sw_ops_instance_groups;
extern const struct sw_op_family sw_ops_nodes;
extern const struct sw_op_family sw_ops_diagnostics;
extern const struct sw_op_family sw_ops_governance;
extern const struct sw_op_family sw_ops_training;
extern const struct sw_op_family sw_ops_inference;
extern const struct sw_op_family sw_ops_features;
extern const struct sw_op_family sw_ops_storage;
extern const struct sw_op_family sw_ops_operations;

#endif
