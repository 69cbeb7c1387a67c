/*
 * optable.c: THE operation table (see optable.h).  To add an API
 * operation: describe its fields here, add one row, write its handler
 * in handlers/ and name it in handlers/table.c.  REST routing, MCP
 * tools and OpenAPI follow from the row.
 */
#include <string.h>

#include "lib/optable.h"

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
	{ "id", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 0, 0, PAT_OP_ID,
	  NULL, "Operation id (op-...).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_op_get[] = {
	{ "id", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 0, 0, PAT_OP_ID,
	  NULL, "Operation id (op-...).", NULL, NULL },
	{ "since_event", SW_T_INT, SW_F_QUERY, 0, 9007199254740991LL, NULL,
	  NULL, "Only events with a larger id.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_op_wait[] = {
	{ "id", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 0, 0, PAT_OP_ID,
	  NULL, "Operation id (op-...).", NULL, NULL },
	{ "timeout", SW_T_INT, SW_F_QUERY, 1, SW_MAX_WAIT, NULL, NULL,
	  "Seconds to wait for a change (default 20).", NULL, NULL },
	{ "since_updated_ms", SW_T_INT, SW_F_QUERY, 0, 9007199254740991LL,
	  NULL, NULL, "Return as soon as the operation changed after this "
	  "time (its updated_ms from a previous answer).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_op_list[] = {
	{ "kind", SW_T_STRING, SW_F_QUERY, 1, 64, "[a-z_.]+", NULL,
	  "Only operations of this kind.", NULL, NULL },
	{ "state", SW_T_STRING, SW_F_QUERY, 0, 0, NULL, op_states,
	  "Only operations in this state.", NULL, NULL },
	{ "cluster", SW_T_STRING, SW_F_QUERY, 1, 100, PAT_NAME, NULL,
	  "Only operations on this cluster.", NULL, NULL },
	{ "requested_by", SW_T_STRING, SW_F_QUERY, 0, 0, PAT_TOKEN_NAME,
	  NULL, "Only operations asked for by this token name.", NULL,
	  NULL },
	{ "limit", SW_T_INT, SW_F_QUERY, 1, SW_MAX_PAGE, NULL, NULL,
	  "Page size (default 50).", NULL, NULL },
	{ "cursor", SW_T_STRING, SW_F_QUERY, 1, 64, "[0-9]+\\.op-[0-9a-f]{16}",
	  NULL, "The 'next' value of the previous page.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_login[] = {
	{ "token", SW_T_STRING, SW_F_REQUIRED | SW_F_SECRET, 1, 128, NULL,
	  NULL, "An API token (swt_...).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_token_create[] = {
	{ "name", SW_T_STRING, SW_F_REQUIRED, 1, 64, PAT_TOKEN_NAME, NULL,
	  "Unique token name; recorded on every operation it starts.",
	  NULL, NULL },
	{ "scope", SW_T_STRING, SW_F_REQUIRED, 0, 0, NULL, scopes,
	  "read: look only; write: change clusters; admin: also tokens.",
	  NULL, NULL },
	{ NULL }
};

static const struct sw_field f_token_name[] = {
	{ "name", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 1, 64,
	  PAT_TOKEN_NAME, NULL, "Token name.", NULL, NULL },
	{ NULL }
};


/* ---- clusters ------------------------------------------------------- */

#define PAT_CLUSTER	"[a-z][a-z0-9-]{0,30}[a-z0-9]"
#define PAT_GROUP	"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
#define PAT_AZ		"[a-z]{2}(-gov)?-[a-z]+-[0-9][a-z]"
#define PAT_ML_TYPE	"ml\\.[a-z0-9-]+\\.[a-z0-9]+"
#define PAT_CIDR16	"(10|172|192)\\.[0-9]{1,3}\\.0\\.0/16"
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

static const struct sw_field f_group_spec[] = {
	{ "name", SW_T_STRING, SW_F_REQUIRED, 1, 63, PAT_GROUP, NULL,
	  "Instance group name.", NULL, NULL },
	{ "instance_type", SW_T_STRING, SW_F_REQUIRED, 1, 64, PAT_ML_TYPE,
	  NULL, "HyperPod instance type, e.g. ml.p5.48xlarge.", NULL, NULL },
	{ "count", SW_T_INT, SW_F_REQUIRED, 1, 1000, NULL, NULL,
	  "Number of instances.", NULL, NULL },
	{ "capacity_type", SW_T_STRING, 0, 0, 0, NULL, capacity_types,
	  "on-demand (default), spot, or training-plan.", NULL, NULL },
	{ "training_plan_arn", SW_T_STRING, 0, 1, 256, PAT_PLAN_ARN, NULL,
	  "Training plan reserving this capacity; its AZ must match.",
	  NULL, NULL },
	{ "availability_zone", SW_T_STRING, 0, 1, 32, PAT_AZ, NULL,
	  "AZ for the group (default: the first AZ offering the type).",
	  NULL, NULL },
	{ "efa_only", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "EFA-only network interfaces (types with EFA only).", NULL, NULL },
	{ "threads_per_core", SW_T_INT, 0, 1, 2, NULL, NULL,
	  "1 disables hyper-threading (default 1).", NULL, NULL },
	{ "volume_size_gb", SW_T_INT, 0, 100, 16384, NULL, NULL,
	  "Secondary EBS volume at /opt/sagemaker (default 500).", NULL,
	  NULL },
	{ "subnet_id", SW_T_STRING, 0, 1, 32, PAT_SUBNET, NULL,
	  "Place the group in this existing subnet instead of the shared "
	  "compute subnet of its AZ.", NULL, NULL },
	{ NULL }
};
static const struct sw_field f_group_item[] = {
	{ "group", SW_T_OBJECT, 0, 0, 0, NULL, NULL, NULL, f_group_spec, NULL },
};
static const struct sw_field f_az_item[] = {
	{ "az", SW_T_STRING, 0, 1, 32, PAT_AZ, NULL, NULL, NULL, NULL },
};
static const struct sw_field f_check_item[] = {
	{ "check", SW_T_STRING, 0, 0, 0, NULL, deep_checks, NULL, NULL, NULL },
};
static const struct sw_field f_storage[] = {
	{ "s3_bucket", SW_T_STRING, 0, 3, 63, PAT_BUCKET, NULL,
	  "Bucket mounted through S3 Mountpoint as PVC s3-claim.", NULL,
	  NULL },
	{ NULL }
};

static const struct sw_field f_cluster_create[] = {
	{ "name", SW_T_STRING, SW_F_REQUIRED, 2, 32, PAT_CLUSTER, NULL,
	  "Cluster name, used for the EKS and the HyperPod cluster.", NULL,
	  NULL },
	{ "kubernetes_version", SW_T_STRING, 0, 0, 0, NULL, k8s_versions,
	  "EKS Kubernetes version (default 1.31).", NULL, NULL },
	{ "vpc_cidr", SW_T_STRING, 0, 9, 18, PAT_CIDR16, NULL,
	  "A /16 for the new VPC; default: a free 10.x.0.0/16.", NULL, NULL },
	{ "availability_zones", SW_T_ARRAY, 0, 2, 2, NULL, NULL,
	  "Two AZs for the control-plane subnets (default: the first two).",
	  NULL, f_az_item },
	{ "instance_groups", SW_T_ARRAY, SW_F_REQUIRED, 1, 20, NULL, NULL,
	  "HyperPod instance groups.", NULL, f_group_item },
	{ "node_recovery", SW_T_STRING, 0, 0, 0, NULL, recovery_modes,
	  "Automatic (default): HyperPod replaces faulty nodes.", NULL,
	  NULL },
	{ "deep_health_checks", SW_T_ARRAY, 0, 0, 2, NULL, NULL,
	  "Deep health checks run when nodes start.", NULL, f_check_item },
	{ "storage", SW_T_OBJECT, 0, 0, 0, NULL, NULL,
	  "Shared storage to set up.", f_storage, NULL },
	{ NULL }
};

static const struct sw_field f_type_query[] = {
	{ "availability_zone", SW_T_STRING, SW_F_QUERY, 1, 32, PAT_AZ, NULL,
	  "Only types offered in this AZ.", NULL, NULL },
	{ "instance_type", SW_T_STRING, SW_F_QUERY, 1, 64, PAT_ML_TYPE, NULL,
	  "Only this type.", NULL, NULL },
	{ "gpu_only", SW_T_BOOL, SW_F_QUERY, 0, 0, NULL, NULL,
	  "Only accelerated types.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_ig_add[] = {
	F_CLUSTER_PATH,
	{ NULL }
};
static const struct sw_field f_ig_add_body[] = {
	{ "group_name", SW_T_STRING, SW_F_REQUIRED, 1, 63, PAT_GROUP, NULL,
	  "New instance group name.", NULL, NULL },
	{ "instance_type", SW_T_STRING, SW_F_REQUIRED, 1, 64, PAT_ML_TYPE,
	  NULL, "HyperPod instance type.", NULL, NULL },
	{ "count", SW_T_INT, SW_F_REQUIRED, 1, 1000, NULL, NULL,
	  "Number of instances.", NULL, NULL },
	{ "capacity_type", SW_T_STRING, 0, 0, 0, NULL, capacity_types,
	  "on-demand (default), spot, or training-plan.", NULL, NULL },
	{ "training_plan_arn", SW_T_STRING, 0, 1, 256, PAT_PLAN_ARN, NULL,
	  "Training plan; its AZ must be the group's.", NULL, NULL },
	{ "availability_zone", SW_T_STRING, 0, 1, 32, PAT_AZ, NULL,
	  "AZ of the group.", NULL, NULL },
	{ "efa_only", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "EFA-only network interfaces.", NULL, NULL },
	{ "threads_per_core", SW_T_INT, 0, 1, 2, NULL, NULL, NULL, NULL,
	  NULL },
	{ "volume_size_gb", SW_T_INT, 0, 100, 16384, NULL, NULL, NULL, NULL,
	  NULL },
	{ "placement", SW_T_STRING, 0, 0, 0, NULL, placements,
	  "shared (default): the /20 compute subnet of the AZ, shared by "
	  "its groups; dedicated: a new /20 for this group alone.", NULL,
	  NULL },
	{ "subnet_id", SW_T_STRING, 0, 1, 32, PAT_SUBNET, NULL,
	  "Reuse this existing subnet (e.g. the dedicated subnet of an "
	  "earlier group) instead.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_ig_path[] = {
	F_CLUSTER_PATH,
	{ "group", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 1, 63, PAT_GROUP,
	  NULL, "Instance group name.", NULL, NULL },
	{ NULL }
};
/* Update takes only the count; the others are named so the answer can
 * say they are immutable rather than unknown. */
static const struct sw_field f_ig_scale_body[] = {
	{ "count", SW_T_INT, SW_F_REQUIRED, 0, 1000, NULL, NULL,
	  "New number of instances.", NULL, NULL },
	{ "instance_type", SW_T_STRING, 0, 0, 64, NULL, NULL,
	  "Immutable: refused.", NULL, NULL },
	{ "capacity_type", SW_T_STRING, 0, 0, 32, NULL, NULL,
	  "Immutable: refused.", NULL, NULL },
	{ "efa_only", SW_T_BOOL, 0, 0, 0, NULL, NULL, "Immutable: refused.",
	  NULL, NULL },
	{ "availability_zone", SW_T_STRING, 0, 0, 32, NULL, NULL,
	  "Immutable: refused.", NULL, NULL },
	{ "subnet_id", SW_T_STRING, 0, 0, 32, NULL, NULL,
	  "Immutable: refused.", NULL, NULL },
	{ "placement", SW_T_STRING, 0, 0, 32, NULL, NULL,
	  "Immutable: refused.", NULL, NULL },
	{ "training_plan_arn", SW_T_STRING, 0, 0, 256, NULL, NULL,
	  "Immutable: refused.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_node_query[] = {
	F_CLUSTER_PATH,
	{ "instance_group", SW_T_STRING, SW_F_QUERY, 1, 63, PAT_GROUP, NULL,
	  "Only nodes of this group.", NULL, NULL },
	{ NULL }
};
static const struct sw_field f_node_item[] = {
	{ "node", SW_T_STRING, 0, 1, 32, PAT_NODE, NULL, NULL, NULL, NULL },
};
static const struct sw_field f_node_ids[] = {
	{ "node_ids", SW_T_ARRAY, SW_F_REQUIRED, 1, 25, NULL, NULL,
	  "HyperPod node ids (i-...), at most 25.", NULL, f_node_item },
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
	"service", "load-balancer", NULL
};
static const char *const inf_metrics[] = {
	"queue", "running", "kv-cache", NULL
};
static const char *const train_agents[] = { "install", "image", NULL };

static const struct sw_field f_log_monitoring[] = {
	{ "enabled", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "false: no hang or slow-job detection (default true).", NULL,
	  NULL },
	{ "log_pattern", SW_T_STRING, 0, 1, 256, NULL, NULL,
	  "Regular expression of the recipe's progress line (default: "
	  "the recipe's, see docs/images.md).", NULL, NULL },
	{ "start_seconds", SW_T_INT, 0, 60, 86400, NULL, NULL,
	  "Seconds to the first progress line before the job counts as "
	  "hanging (default: the recipe's).", NULL, NULL },
	{ "hang_seconds", SW_T_INT, 0, 60, 86400, NULL, NULL,
	  "Longest gap between progress lines (default: the recipe's).",
	  NULL, NULL },
	{ NULL }
};

static const struct sw_field f_wl_cluster[] = {
	F_CLUSTER_PATH,
	{ "namespace", SW_T_STRING, SW_F_QUERY, 1, 63, PAT_K8S_NAME, NULL,
	  "Only this namespace (default: all).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_job_path[] = {
	F_CLUSTER_PATH,
	{ "job", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 1, 52, PAT_WL_NAME,
	  NULL, "Job name (training job or model download).", NULL, NULL },
	{ "namespace", SW_T_STRING, SW_F_QUERY, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace (default: found by name).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_job_logs[] = {
	F_CLUSTER_PATH,
	{ "job", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 1, 52, PAT_WL_NAME,
	  NULL, "Job name.", NULL, NULL },
	{ "namespace", SW_T_STRING, SW_F_QUERY, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace (default: found by name).", NULL, NULL },
	{ "tail", SW_T_INT, SW_F_QUERY, 1, 2000, NULL, NULL,
	  "Last lines per pod (default 100).", NULL, NULL },
	{ "pod", SW_T_STRING, SW_F_QUERY, 1, 253, "[a-z0-9]([a-z0-9.-]*"
	  "[a-z0-9])?", NULL, "Only this pod of the job.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_train_body[] = {
	{ "job_name", SW_T_STRING, SW_F_REQUIRED, 1, 52, PAT_WL_NAME, NULL,
	  "Job name (DNS label); outputs go to /data/outputs/<job_name>.",
	  NULL, NULL },
	{ "kind", SW_T_STRING, 0, 0, 0, NULL, train_kinds,
	  "hyperpod-pytorch (default; needs the training operator) or ray "
	  "(a KubeRay RayJob; needs KubeRay).", NULL, NULL },
	{ "recipe", SW_T_STRING, 0, 0, 0, NULL, train_recipes,
	  "pytorch (default), llama-factory, ms-swift or verl (ray only).",
	  NULL, NULL },
	{ "image", SW_T_STRING, 0, 1, 255, PAT_IMAGE, NULL,
	  "Container image (default: the recipe's; docs/images.md).", NULL,
	  NULL },
	{ "elastic_agent", SW_T_STRING, 0, 0, 0, NULL, train_agents,
	  "hyperpod-pytorch: install (default: the pod installs the pinned "
	  "hyperpod-elastic-agent with pip, then runs hyperpodrun) or "
	  "image (the image already carries hyperpodrun).", NULL, NULL },
	{ "log_monitoring", SW_T_OBJECT, 0, 0, 0, NULL, NULL,
	  "hyperpod-pytorch: hang detection from the job's log "
	  "(runPolicy.logMonitoringConfiguration).", f_log_monitoring,
	  NULL },
	{ "dataset", SW_T_STRING, 0, 1, 512, PAT_REL_PATH, NULL,
	  "Dataset under /data/datasets/.", NULL, NULL },
	{ "model", SW_T_STRING, 0, 1, 512, PAT_REL_PATH, NULL,
	  "Base model under /data/models/ (e.g. from model_download).",
	  NULL, NULL },
	{ "entry", SW_T_STRING, 0, 1, 512, PAT_REL_PATH, NULL,
	  "pytorch recipe: training script under /data/code/ (default "
	  "train.py).", NULL, NULL },
	{ "config", SW_T_STRING, 0, 1, 512, PAT_REL_PATH, NULL,
	  "llama-factory / ms-swift: recipe YAML under /data/configs/ "
	  "(required for llama-factory).", NULL, NULL },
	{ "nodes", SW_T_INT, 0, 1, 256, NULL, NULL,
	  "Number of nodes (pods), default 1.", NULL, NULL },
	{ "gpus_per_node", SW_T_INT, 0, 1, 64, NULL, NULL,
	  "GPUs per node, default 1.", NULL, NULL },
	{ "efa_per_node", SW_T_INT, 0, 0, 32, NULL, NULL,
	  "EFA interfaces per node, default 0.", NULL, NULL },
	{ "instance_type", SW_T_STRING, 0, 1, 64, PAT_ML_TYPE, NULL,
	  "Run only on nodes of this HyperPod instance type.", NULL, NULL },
	{ "max_steps", SW_T_INT, 0, 1, 10000000, NULL, NULL,
	  "Stop after this many steps (MAX_STEPS).", NULL, NULL },
	{ "mlflow_tracking_uri", SW_T_STRING, 0, 1, 512, PAT_MLFLOW, NULL,
	  "MLflow tracking server (URL or SageMaker MLflow ARN).", NULL,
	  NULL },
	{ "env", SW_T_MAP, 0, 0, 32, NULL, NULL,
	  "Extra environment variables (names [A-Za-z_][A-Za-z0-9_]*).",
	  NULL, NULL },
	{ "namespace", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace (default 'default').", NULL, NULL },
	{ "pvc", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "PVC mounted at /data (default s3-claim).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_download_body[] = {
	{ "model_id", SW_T_STRING, SW_F_REQUIRED, 1, 193, PAT_HF_MODEL, NULL,
	  "Hugging Face model id, e.g. Qwen/Qwen3-0.6B.", NULL, NULL },
	{ "revision", SW_T_STRING, 0, 1, 128, PAT_HF_REV, NULL,
	  "Branch, tag or commit (default main).", NULL, NULL },
	{ "target", SW_T_STRING, 0, 1, 512, PAT_REL_PATH, NULL,
	  "Directory under /data/models/ (default: the model id's name).",
	  NULL, NULL },
	{ "job_name", SW_T_STRING, 0, 1, 52, PAT_WL_NAME, NULL,
	  "Job name (default dl-<model>-<random>).", NULL, NULL },
	{ "hf_token", SW_T_STRING, SW_F_SECRET, 8, 256, "[A-Za-z0-9_-]+",
	  NULL, "Hugging Face token for gated models; stored only in a "
	  "Kubernetes Secret, never echoed.", NULL, NULL },
	{ "max_workers", SW_T_INT, 0, 1, 32, NULL, NULL,
	  "Parallel file downloads (default 8).", NULL, NULL },
	{ "image", SW_T_STRING, 0, 1, 255, PAT_IMAGE, NULL,
	  "Downloader image (default python:3.12-slim).", NULL, NULL },
	{ "namespace", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace (default slipway-models).", NULL, NULL },
	{ "pvc", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "PVC mounted at /data (default s3-claim).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_autoscale[] = {
	{ "min_replicas", SW_T_INT, 0, 0, 64, NULL, NULL,
	  "Fewest replicas (default 1); 0 is refused: the metric comes "
	  "from the servers, so an endpoint at zero never scales up.",
	  NULL, NULL },
	{ "max_replicas", SW_T_INT, SW_F_REQUIRED, 1, 64, NULL, NULL,
	  "Most replicas.", NULL, NULL },
	{ "metric", SW_T_STRING, 0, 0, 0, NULL, inf_metrics,
	  "queue (waiting requests, default), running or kv-cache.", NULL,
	  NULL },
	{ "threshold", SW_T_NUMBER, 0, 0, 100000, NULL, NULL,
	  "Target value per replica: a whole number >= 1 for queue and "
	  "running (default 8), a fraction in (0, 1) for kv-cache "
	  "(default 0.8).", NULL, NULL },
	{ "prometheus_url", SW_T_STRING, SW_F_REQUIRED, 1, 512, PAT_PROM_URL,
	  NULL, "Prometheus that scrapes the servers.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_inf_body[] = {
	{ "endpoint_name", SW_T_STRING, SW_F_REQUIRED, 1, 45, PAT_WL_NAME,
	  NULL, "Name of the Deployment and Service.", NULL, NULL },
	{ "engine", SW_T_STRING, SW_F_REQUIRED, 0, 0, NULL, inf_engines,
	  "vllm or sglang.", NULL, NULL },
	{ "model", SW_T_STRING, SW_F_REQUIRED, 1, 512, PAT_REL_PATH, NULL,
	  "Model directory under /data/models/.", NULL, NULL },
	{ "served_model_name", SW_T_STRING, 0, 1, 128,
	  "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}", NULL,
	  "Model name clients send (default: model).", NULL, NULL },
	{ "image", SW_T_STRING, 0, 1, 255, PAT_IMAGE, NULL,
	  "Server image (default: the engine's).", NULL, NULL },
	{ "gpus_per_replica", SW_T_INT, 0, 1, 64, NULL, NULL,
	  "GPUs per replica = tensor parallel size (default 1).", NULL,
	  NULL },
	{ "replicas", SW_T_INT, 0, 1, 64, NULL, NULL,
	  "Replicas (default 1).", NULL, NULL },
	{ "instance_type", SW_T_STRING, 0, 1, 64, PAT_ML_TYPE, NULL,
	  "Run only on nodes of this HyperPod instance type.", NULL, NULL },
	{ "exposure", SW_T_STRING, 0, 0, 0, NULL, inf_exposures,
	  "service (ClusterIP, default) or load-balancer (internal NLB).",
	  NULL, NULL },
	{ "router", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "sglang: put a cache-aware SGLang router in front.", NULL, NULL },
	{ "autoscaling", SW_T_OBJECT, 0, 0, 0, NULL, NULL,
	  "Scale with a KEDA ScaledObject on a server metric.", f_autoscale,
	  NULL },
	{ "namespace", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace (default 'default').", NULL, NULL },
	{ "pvc", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "PVC mounted at /data (default s3-claim).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_inf_path[] = {
	F_CLUSTER_PATH,
	{ "endpoint", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 1, 45,
	  PAT_WL_NAME, NULL, "Inference endpoint name.", NULL, NULL },
	{ "namespace", SW_T_STRING, SW_F_QUERY, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace (default: found by name).", NULL, NULL },
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
	{ "enabled", SW_T_BOOL, SW_F_REQUIRED, 0, 0, NULL, NULL,
	  "Turn managed tiered checkpointing on or off.", NULL, NULL },
	{ "bucket", SW_T_STRING, 0, 3, 63, PAT_BUCKET, NULL,
	  "S3 bucket for checkpoints (required to enable); the pods' IAM "
	  "policy allows this bucket and nothing else.", NULL, NULL },
	{ "memory_percent", SW_T_INT, 0, 20, 100, NULL, NULL,
	  "Share of node memory for checkpoints (default 20).", NULL, NULL },
	{ "namespace", SW_T_STRING, 0, 1, 63, PAT_K8S_NAME, NULL,
	  "Namespace of the service account tiered-storage-sa that "
	  "training pods use (default: default).", NULL, NULL },
	{ NULL }
};
static const struct sw_field f_feat_group_item[] = {
	{ "group", SW_T_STRING, 0, 1, 63, PAT_GROUP, NULL, NULL, NULL, NULL },
};
static const struct sw_field f_feat_autoscaling[] = {
	{ "enabled", SW_T_BOOL, SW_F_REQUIRED, 0, 0, NULL, NULL,
	  "Turn HyperPod managed Karpenter on or off.", NULL, NULL },
	{ "consolidation_policy", SW_T_STRING, 0, 0, 0, NULL,
	  consolidation_policies, "NodePool disruption.consolidationPolicy "
	  "(default WhenEmptyOrUnderutilized).", NULL, NULL },
	{ "consolidate_after", SW_T_STRING, 0, 2, 8,
	  "[0-9]{1,5}(s|m|h)|Never", NULL, "NodePool "
	  "disruption.consolidateAfter, e.g. 5m (default) or Never.", NULL,
	  NULL },
	{ "instance_groups", SW_T_ARRAY, 0, 1, 10, NULL, NULL,
	  "Instance groups Karpenter may scale, each starting at 0 nodes "
	  "(default: every group at 0; HyperPod takes at most 10).", NULL,
	  f_feat_group_item },
	{ NULL }
};
static const struct sw_field f_features[] = {
	{ "training_operator", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "HyperPod training operator add-on (HyperPodPyTorchJob); turning "
	  "it on installs cert-manager first.", NULL, NULL },
	{ "inference_operator", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "HyperPod inference operator add-on; installs cert-manager, FSx "
	  "CSI and metrics-server first.", NULL, NULL },
	{ "cert_manager", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "cert-manager add-on (cannot go while an operator needs it).",
	  NULL, NULL },
	{ "kuberay", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "KubeRay operator and the ray.io CRDs (RayJob, RayCluster).", NULL,
	  NULL },
	{ "fsx_csi", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "FSx for Lustre CSI driver add-on.", NULL, NULL },
	{ "node_recovery", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "true: NodeRecovery Automatic; false: None.", NULL, NULL },
	{ "tiered_checkpointing", SW_T_OBJECT, 0, 0, 0, NULL, NULL,
	  "Managed tiered checkpointing with its identity chain.",
	  f_feat_tiered, NULL },
	{ "autoscaling", SW_T_OBJECT, 0, 0, 0, NULL, NULL,
	  "HyperPod autoscaling (Karpenter) with its ClusterRole.",
	  f_feat_autoscaling, NULL },
	{ NULL }
};

/* FIELDS: storage and diagnostics */

static const char *const storage_kinds[] = { "s3", "fsx", NULL };

static const struct sw_field f_storage_add[] = {
	{ "kind", SW_T_STRING, SW_F_REQUIRED, 0, 0, NULL, storage_kinds,
	  "s3: an S3 bucket through Mountpoint; fsx: a new FSx for Lustre "
	  "file system.", NULL, NULL },
	{ "claim", SW_T_STRING, SW_F_REQUIRED, 1, 63, PAT_GROUP, NULL,
	  "PersistentVolumeClaim name pods mount (e.g. s3-claim).", NULL,
	  NULL },
	{ "namespace", SW_T_STRING, 0, 1, 63, PAT_GROUP, NULL,
	  "Namespace of the claim (default: default).", NULL, NULL },
	{ "bucket", SW_T_STRING, 0, 3, 63, PAT_BUCKET, NULL,
	  "S3 bucket (kind s3).", NULL, NULL },
	{ "create_bucket", SW_T_BOOL, 0, 0, 0, NULL, NULL,
	  "Create the bucket when it does not exist.", NULL, NULL },
	{ "size_gib", SW_T_INT, 0, 1200, 100800, NULL, NULL,
	  "FSx capacity in GiB (kind fsx; 1200 or a multiple of 2400).",
	  NULL, NULL },
	{ "availability_zone", SW_T_STRING, 0, 1, 32, PAT_AZ, NULL,
	  "FSx AZ (default: the AZ of the cluster's compute subnet).", NULL,
	  NULL },
	{ NULL }
};

static const struct sw_field f_group_name_item[] = {
	{ "group", SW_T_STRING, 0, 1, 63, PAT_GROUP, NULL, NULL, NULL, NULL },
};
static const struct sw_field f_software_update[] = {
	{ "instance_groups", SW_T_ARRAY, 0, 1, 20, NULL, NULL,
	  "Only these groups (default: all).", NULL, f_group_name_item },
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
	    "retried alone.",
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
	    "roles and the network, in reverse order.",
	  .params = f_cluster_name,
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
	  .description = "Tags the EKS cluster so Slipway manages it from now "
	    "on.",
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
	  .summary = "Change an instance group's instance count",
	  .description = "Only count can change; instance type, capacity "
	    "type, EFA, AZ, subnet and training plan are immutable.",
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
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
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
	    "terminal is true for the last two.",
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
	  .summary = "Serve a model from /data/models with vLLM or SGLang",
	  .description = "A Deployment plus a Service (ClusterIP, or an "
	    "internal NLB with exposure load-balancer); optional SGLang "
	    "router and KEDA autoscaling. Poll inference_get until ready.",
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
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
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
	    "fsx_csi, each with enabled, status and details.",
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
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_LONG_POLL,
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
