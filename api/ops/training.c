/*
 * training.c: the operation table's rows for training jobs:
 * submitting, listing, reading, their logs and deleting, each beside
 * the fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

#define PAT_MLFLOW	"(https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?" \
			"(/[A-Za-z0-9._~%/-]*)?|arn:aws[a-z-]*:sagemaker:" \
			"[a-z0-9-]+:[0-9]{12}:mlflow-tracking-server/" \
			"[A-Za-z0-9-]{1,63})"

static const char *const train_kinds[] = {
	"hyperpod-pytorch", "ray", NULL
};

static const char *const train_recipes[] = {
	"pytorch", "llama-factory", "ms-swift", "verl", NULL
};

static const char *const train_agents[] = { "install", "image", NULL };

static const struct sw_field f_log_monitoring[] = {
	{ .name = "enabled", .type = SW_T_BOOL,
	  .desc = "false: no hang or slow-job detection (default true)." },
	{ .name = "log_pattern", .type = SW_T_STRING, .min = 1, .max = 256,
	  .desc = "Regular expression of the recipe's progress line, in "
	  "RE2 syntax as Go's regexp reads it: the training operator "
	  "matches it (default: the recipe's, see docs/images.md)." },
	{ .name = "start_seconds", .type = SW_T_INT, .min = 60, .max = 86400,
	  .desc = "Seconds to the first progress line before the job "
	  "counts as hanging (default: the recipe's)." },
	{ .name = "hang_seconds", .type = SW_T_INT, .min = 60, .max = 86400,
	  .desc = "Longest gap between progress lines (default: the "
	  "recipe's)." },
	{ NULL }
};

static const struct sw_field f_job_path[] = {
	F_CLUSTER_PATH,
	{ .name = "job", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME,
	  .desc = "Job name (training job or model download)." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ NULL }
};

static const struct sw_field f_job_logs[] = {
	F_CLUSTER_PATH,
	{ .name = "job", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME, .desc = "Job name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ .name = "tail", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = 2000, .desc = "Last lines per pod (default 100)." },
	{ .name = "pod", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 253, .pattern = "[a-z0-9]([a-z0-9.-]*" "[a-z0-9])?",
	  .desc = "Only this pod of the job." },
	{ NULL }
};

static const struct sw_field f_train_body[] = {
	{ .name = "job_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 52, .pattern = PAT_WL_NAME,
	  .desc = "Job name (DNS label); outputs go to "
	  "/data/outputs/<job_name>." },
	{ .name = "kind", .type = SW_T_STRING, .enumv = train_kinds,
	  .desc = "hyperpod-pytorch (default; needs the training operator) "
	  "or ray (a KubeRay RayJob; needs KubeRay)." },
	{ .name = "recipe", .type = SW_T_STRING, .enumv = train_recipes,
	  .desc = "pytorch (default), llama-factory, ms-swift or verl (ray "
	  "only)." },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Container image (default: the recipe's; docs/images.md)." },
	{ .name = "elastic_agent", .type = SW_T_STRING, .enumv = train_agents,
	  .desc = "hyperpod-pytorch: install (default: the pod installs "
	  "the pinned hyperpod-elastic-agent with pip, then runs "
	  "hyperpodrun) or image (the image already carries hyperpodrun)." },
	{ .name = "log_monitoring", .type = SW_T_OBJECT,
	  .desc = "hyperpod-pytorch: hang detection from the job's log "
	  "(runPolicy.logMonitoringConfiguration).",
	  .fields = f_log_monitoring },
	{ .name = "dataset", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH, .desc = "Dataset under /data/datasets/." },
	{ .name = "model", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "Base model under /data/models/ (e.g. from "
	  "model_download)." },
	{ .name = "entry", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "pytorch recipe: training script under /data/code/ "
	  "(default train.py)." },
	{ .name = "config", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "llama-factory / ms-swift: recipe YAML under "
	  "/data/configs/ (required for llama-factory)." },
	{ .name = "nodes", .type = SW_T_INT, .min = 1, .max = 256,
	  .desc = "Number of nodes (pods), default 1." },
	{ .name = "gpus_per_node", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "GPUs per node, default 1; no more than the largest of "
	  "the cluster's instance types has (checked at submit and dry "
	  "run)." },
	{ .name = "efa_per_node", .type = SW_T_INT, .max = 32,
	  .desc = "EFA interfaces per node, default 0." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "max_steps", .type = SW_T_INT, .min = 1, .max = 10000000,
	  .desc = "Stop after this many steps (MAX_STEPS)." },
	{ .name = "mlflow_tracking_uri", .type = SW_T_STRING, .min = 1,
	  .max = 512, .pattern = PAT_MLFLOW,
	  .desc = "MLflow tracking server (URL or SageMaker MLflow ARN)." },
	{ .name = "env", .type = SW_T_MAP, .max = 32,
	  .desc = "Extra environment variables (names "
	  "[A-Za-z_][A-Za-z0-9_]*)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	F_KUEUE_FIELDS,
	{ NULL }
};

static const struct sw_op rows[] = {
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
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT |
	    SW_OP_WORKLOADS,
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
	    "terminal is true for the last two.  Each pod has its reason and "
	    "message (why it is not running) and its newest Kubernetes "
	    "events (events: type, reason, message, count, time; "
	    "FailedScheduling says why it waits).",
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
};

const struct sw_op_family sw_ops_training = {
	rows, sizeof(rows) / sizeof(rows[0])
};
