/*
 * training.c: the operation table's rows for training jobs:
 * submitting, listing, reading, their logs and deleting, their
 * checkpoints (listing, resuming, retention), each beside the fields
 * it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

#define PAT_MLFLOW \
	"(https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?" \
	"(/[A-Za-z0-9._~%/-]*)?|arn:aws[a-z-]*:sagemaker:" \
	"[a-z0-9-]+:[0-9]{12}:(mlflow-tracking-server|" \
	"mlflow-app)/[A-Za-z0-9-]{1,63})"

static const char *const train_kinds[] = { "hyperpod-pytorch", "ray", NULL };

static const char *const train_recipes[] = { "pytorch", "llama-factory",
	"ms-swift", "verl", NULL };

static const char *const train_agents[] = { "install", "image", NULL };

/* clang-format off */
static const struct sw_field f_elastic[] = {
	{ .name = "min_nodes", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 256,
	  .desc = "Fewest nodes the job runs on (elasticPolicy.minReplicas)." },
	{ .name = "max_nodes", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 256,
	  .desc = "Most nodes it grows to (elasticPolicy.maxReplicas)." },
	{ .name = "increment_step", .type = SW_T_INT, .min = 1, .max = 256,
	  .dflt = "1",
	  .desc = "Nodes added or removed at a time (default 1; "
	  "elasticPolicy.replicaIncrementStep)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_log_monitoring[] = {
	{ .name = "enabled", .type = SW_T_BOOL,
	  .dflt = "true",
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
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
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
	{ .name = "elastic", .type = SW_T_OBJECT,
	  .desc = "hyperpod-pytorch: elastic training (training operator "
	  "1.2 or later): the job starts on nodes nodes and the operator "
	  "scales it between min_nodes and max_nodes as capacity and "
	  "priorities allow; with task governance it shrinks instead of "
	  "being preempted.  min_nodes <= nodes <= max_nodes.  An older "
	  "operator add-on is a 422 naming elastic.",
	  .fields = f_elastic },
	{ .name = "checkpointless", .type = SW_T_BOOL, .dflt = "false",
	  .desc = "hyperpod-pytorch: true for checkpointless training "
	  "(default false; training operator 1.2 or later): hyperpodrun --inprocess-restart with "
	  "INPROCESS_RESTART=1, so a fault is recovered in process from "
	  "the other ranks' copies instead of a checkpoint.  Excludes "
	  "elastic and tiered_checkpointing (a 400 naming both fields); "
	  "an older operator add-on is a 422 naming checkpointless." },
	{ .name = "tiered_checkpointing", .type = SW_T_BOOL,
	  .desc = "hyperpod-pytorch: run as the namespace's tiered-storage-sa "
	  "(managed tiered checkpointing; default: when the namespace has "
	  "it and the job is not checkpointless).  true where the feature "
	  "is off is a 409 naming feature_set tiered_checkpointing." },
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
	{ .name = "resume_from", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "A checkpoint directory under /data/outputs/ to resume "
	  "from (e.g. <job>/checkpoints/step-40); the pods get it as "
	  "RESUME_FROM_CHECKPOINT.  checkpoint_resume fills it in." },
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
	{ .name = "mlflow_app", .type = SW_T_STRING, .min = 1, .max = 40,
	  .pattern = PAT_MLFLOW_APP, .excludes = "mlflow_tracking_uri",
	  .desc = "Or: a SageMaker managed MLflow App by name "
	  "(mlflow_app_list); it must be Created, and its ARN becomes "
	  "MLFLOW_TRACKING_URI." },
	{ .name = "env", .type = SW_T_MAP, .max = 32,
	  .desc = "Extra environment variables (names "
	  "[A-Za-z_][A-Za-z0-9_]*)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default', or "
	  "hyperpod-ns-<team> with a team's queue)." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	F_KUEUE_FIELDS,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_submitted[] = {
	OUT("job", SW_T_STRING, "The job."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("kind", SW_T_STRING, "Its Kubernetes kind (PyTorchJob, "
	    "HyperPodPyTorchJob, RayJob...)."),
	OUT("recipe", SW_T_STRING, "The recipe it runs."),
	OUT("image", SW_T_STRING, "Its image."),
	OUT_OPT("service_account", SW_T_STRING, "The service account its "
	    "pods run as."),
	OUT("output_dir", SW_T_STRING, "Where it writes "
	    "(/data/outputs/<job>)."),
	{ .name = "applied", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "The objects applied." },
	OUT_OPT("status_tool", SW_T_STRING, "training_job_get: follow it."),
	OUT("poll_interval_seconds", SW_T_INT, "How often to ask."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_submit_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	OUT("job", SW_T_STRING, "The job."),
	OUT_OPT("service_account", SW_T_STRING, "The service account its "
	    "pods would run as."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_job_submit[] = {
	{ .status = 201, .fields = o_submitted,
	  .desc = "Submitted: the job and what was applied." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_submit_plan,
	  .desc = "The plan (dry_run=true): the manifests." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_pod_event[] = {
	OUT_OPT("type", SW_T_STRING, "Normal or Warning."),
	OUT_OPT("reason", SW_T_STRING, "Why."),
	OUT_OPT("message", SW_T_STRING, "What."),
	OUT("count", SW_T_INT, "How often."),
	OUT_OPT("time", SW_T_STRING, "When last."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pod_event_item[] = {
	{ .name = "event", .type = SW_T_OBJECT, .fields = o_pod_event },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pod[] = {
	OUT_OPT("name", SW_T_STRING, "Pod name."),
	OUT_OPT("phase", SW_T_STRING, "Pending, Running, Succeeded..."),
	OUT_OPT("node", SW_T_STRING, "The node it runs on."),
	OUT("restarts", SW_T_INT, "Container restarts."),
	OUT_OPT("reason", SW_T_STRING, "Why it waits or ended."),
	OUT_OPT("message", SW_T_STRING, "In words."),
	{ .name = "events", .type = SW_T_ARRAY, .items = o_pod_event_item,
	  .desc = "Its last events." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pod_item[] = {
	{ .name = "pod", .type = SW_T_OBJECT, .fields = o_pod },
};
/* clang-format on */
/* An elastic job's size and why (handlers/pending.c). */
/* clang-format off */
static const struct sw_field o_job_elastic[] = {
	OUT("min_nodes", SW_T_INT, "Fewest nodes (elasticPolicy)."),
	OUT("max_nodes", SW_T_INT, "Most nodes."),
	OUT("increment_step", SW_T_INT, "Nodes added or removed at a time."),
	OUT("nodes", SW_T_INT, "Nodes it is given now (Kueue's admission)."),
	OUT("running", SW_T_INT, "Its pods running."),
	OUT_OPT("admitted", SW_T_BOOL, "Kueue admitted it."),
	OUT("reason", SW_T_STRING, "AtMax, Scaling, Shrunk or NotAdmitted."),
	OUT("message", SW_T_STRING, "Why, in plain words."),
	OUT("next_step", SW_T_STRING, "What to do about it."),
	OUT_OPT("detail", SW_T_STRING, "Kueue's words on its last resize."),
	{ NULL }
};
/* clang-format on */
#define F_JOB_SUMMARY \
	OUT_OPT("job", SW_T_STRING, "The job."), \
	    OUT_OPT("namespace", SW_T_STRING, "Its namespace."), \
	    OUT_OPT("kind", SW_T_STRING, "Its Kubernetes kind."), \
	    OUT_OPT("type", SW_T_STRING, "pytorch, hyperpod-pytorch, ray..."), \
	    OUT_OPT("state", SW_T_STRING, \
		"Pending, Running, Succeeded, " \
		"Failed..."), \
	    OUT("terminal", SW_T_BOOL, "It has ended."), \
	    OUT_OPT("created", SW_T_STRING, "When (RFC 3339)."), \
	    { .name = "pending", \
		    .type = SW_T_OBJECT, \
		    .fields = sw_pending_fields, \
		    .desc = "Why it waits (Pending " \
			    "only)." }, \
	{ \
		.name = "elastic", .type = SW_T_OBJECT, \
		.fields = o_job_elastic, \
		.desc = "An elastic job's nodes now, " \
			"its range, and why it runs below its most." \
	}
/* clang-format off */
static const struct sw_field o_job_summary[] = {
	F_JOB_SUMMARY,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_job_item[] = {
	{ .name = "job", .type = SW_T_OBJECT, .fields = o_job_summary },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_job_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_job_item, .desc = "The training jobs." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_job_list[] = {
	{ .status = 200, .fields = o_job_list, .desc = "The jobs." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_job_plan[] = {
	OUT("group", SW_T_STRING, "The instance group."),
	{ .name = "training_plan", .type = SW_T_OBJECT,
	  .flags = SW_F_REQUIRED, .fields = sw_plan_brief_fields,
	  .desc = "The plan it runs on." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_job_plan_item[] = {
	{ .name = "group", .type = SW_T_OBJECT, .fields = o_job_plan },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_job[] = {
	F_JOB_SUMMARY,
	{ .name = "pods", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_pod_item, .desc = "Its pods." },
	OUT_OPT("status", SW_T_ANY, "Its status as the operator writes "
	    "it."),
	{ .name = "training_plans", .type = SW_T_ARRAY,
	  .items = o_job_plan_item, .desc = "The instance groups its pods "
	  "run on that run on a training plan, and when each plan ends: "
	  "then the job loses those nodes." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_job_get[] = {
	{ .status = 200, .fields = o_job, .desc = "The job and its pods." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_logs[] = {
	OUT_OPT("job", SW_T_STRING, "The job."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("state", SW_T_STRING, "Its state."),
	OUT("tail", SW_T_INT, "Lines asked for per pod."),
	{ .name = "pods", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = sw_pod_log_item, .desc = "Each pod's lines." },
	{ .name = "metrics", .type = SW_T_OBJECT, .fields = sw_log_metrics,
	  .desc = "The first pod's metrics." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_job_logs[] = {
	{ .status = 200, .fields = o_logs, .desc = "The job's logs." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_job_deleted[] = {
	{ .name = "deleted", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What was deleted." },
	OUT("job", SW_T_STRING, "The job."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_job_deletes[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "deletes", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What it would delete." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_job_delete[] = {
	{ .status = 200, .fields = o_job_deleted, .desc = "Deleted." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_job_deletes,
	  .desc = "The plan (dry_run=true): what it would delete." },
	{ 0 }
};
/* clang-format on */

/* ---- checkpoints (handlers/checkpoints.c) ---- */

/* clang-format off */
static const struct sw_field f_ckpt_resume_path[] = {
	F_CLUSTER_PATH,
	{ .name = "job", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME, .desc = "The job that saved it." },
	{ .name = "checkpoint", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 24,
	  .pattern = PAT_CKPT,
	  .desc = "The checkpoint (its name in training_checkpoint_list); "
	  "it must be complete." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_ckpt_resume_body[] = {
	{ .name = "job_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 52, .pattern = PAT_WL_NAME,
	  .desc = "The new job's name; it runs the old job's spec with "
	  "resume_from naming the checkpoint." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_ckpt_retain_body[] = {
	{ .name = "keep_last", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 1000,
	  .desc = "Complete checkpoints to keep, newest first; every "
	  "checkpoint older than the last one kept is deleted, complete or "
	  "partial." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_ckpt[] = {
	OUT("name", SW_T_STRING, "Its directory (step-<N>)."),
	OUT("step", SW_T_INT, "The training step it saved."),
	OUT_OPT("time", SW_T_STRING, "When its newest object was written "
	    "(RFC 3339)."),
	OUT("size_bytes", SW_T_INT, "Bytes of all its objects."),
	OUT("objects", SW_T_INT, "Its objects (shards and metadata)."),
	OUT("complete", SW_T_BOOL, "Its save finished: it holds .metadata "
	    "(PyTorch DCP) or trainer_state.json (Hugging Face Trainer)."),
	OUT("newest_complete", SW_T_BOOL, "The newest complete one: what a "
	    "resume would pick."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ckpt_item[] = {
	{ .name = "checkpoint", .type = SW_T_OBJECT, .fields = o_ckpt },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ckpt_list[] = {
	OUT("job", SW_T_STRING, "The job."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("storage", SW_T_STRING, "What holds its /data: s3, fsx or "
	    "other."),
	OUT_OPT("bucket", SW_T_STRING, "The S3 bucket (s3)."),
	OUT_OPT("prefix", SW_T_STRING, "The key prefix of its checkpoints "
	    "(s3)."),
	OUT_OPT("file_system_id", SW_T_STRING, "The FSx file system's id "
	    "(fsx)."),
	OUT("listed", SW_T_BOOL, "Slipway could read the checkpoints: "
	    "false on FSx, whose content only a mount reaches, and when S3 "
	    "has no such bucket or refuses it."),
	OUT_OPT("note", SW_T_STRING, "Why nothing was listed."),
	OUT_OPT("newest_complete", SW_T_STRING, "The newest complete "
	    "checkpoint's name."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ckpt_item, .desc = "The checkpoints, newest step "
	  "first." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_ckpt_list[] = {
	{ .status = 200, .fields = o_ckpt_list,
	  .desc = "The job's checkpoints." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
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
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "training_job_get",
	  .poll_seconds = 15,
	  .answers = a_job_submit,
	},
	{
	  .name = "training_job_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/training-jobs",
	  .tag = "workloads",
	  .summary = "Training jobs and model downloads with their state "
	    "and, for those pending, why they wait",
	  .params = f_wl_cluster,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT |
	    SW_OP_WORKLOADS,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_job_list,
	},
	{
	  .name = "training_job_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}",
	  .tag = "workloads",
	  .summary = "One training job or model download: state, why it "
	    "waits, and pods",
	  .description = "state is Pending, Running, Succeeded or Failed; "
	    "terminal is true for the last two.  A Pending job has pending: "
	    "queue and cluster_queue (Kueue, with task governance), position "
	    "in its queue (1 = next), admitted, reason (NeverFits, "
	    "NoSuchQueue, QuotaInUse, BorrowingLimitReached, "
	    "WaitingForHigherPriority, Preempted, PreemptingOthers, "
	    "NoNodeFits, ImagePull, CrashLoop, Starting), message and "
	    "next_step in plain words, and detail (Kueue's or the "
	    "scheduler's own words).  Each pod has its reason and "
	    "message (why it is not running) and its newest Kubernetes "
	    "events (events: type, reason, message, count, time; "
	    "FailedScheduling says why it waits).  An elastic job has "
	    "elastic: nodes Kueue gives it now, running, min_nodes, "
	    "max_nodes, and reason (AtMax, Scaling, Shrunk: it gave nodes "
	    "up to other work and grows back when quota frees, "
	    "NotAdmitted) with message, next_step and detail.",
	  .params = f_job_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_job_get,
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
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_job_logs,
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
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "training_job_get",
	  .poll_seconds = 5,
	  .answers = a_job_delete,
	},
	{
	  .name = "training_checkpoint_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}/checkpoints",
	  .tag = "workloads",
	  .summary = "A training job's checkpoints: step, time, size, "
	    "complete or partial, the newest complete one marked",
	  .description = "Read from the job's output directory "
	    "(/data/outputs/<job>/checkpoints/step-<N>/) in the S3 bucket "
	    "behind its /data volume, with ListObjectsV2.  A checkpoint is "
	    "complete when it holds .metadata (PyTorch DCP writes it after "
	    "every rank's shards) or trainer_state.json; else partial (a "
	    "save that never finished).  On FSx the answer has listed "
	    "false and says why.",
	  .params = f_job_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_ckpt_list,
	},
	{
	  .name = "training_checkpoint_resume",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}/checkpoints/"
	    "{checkpoint}/resume",
	  .tag = "workloads",
	  .summary = "Resume from a checkpoint: a new job with the same "
	    "spec, resume_from naming the checkpoint",
	  .description = "Submits the request the job was submitted with "
	    "under job_name, with resume_from <job>/checkpoints/<checkpoint> "
	    "(the pods get RESUME_FROM_CHECKPOINT).  A partial checkpoint is "
	    "a 422 naming checkpoint; an unknown one a 404.",
	  .params = f_ckpt_resume_path,
	  .body = f_ckpt_resume_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "training_job_get",
	  .poll_seconds = 15,
	  .answers = a_job_submit,
	},
	{
	  .name = "training_checkpoint_retain",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/training-jobs/{job}/"
	    "checkpoint-retention",
	  .tag = "workloads",
	  .summary = "Apply a job's checkpoint retention: keep the last N "
	    "complete, delete the older ones",
	  .description = "Starts checkpoint.retain: its stage lists the "
	    "checkpoints again and deletes every object of each one older "
	    "than the keep_last-th newest complete checkpoint with "
	    "DeleteObjects, recording the keys (operation_get, stage "
	    "resources deleted).  Partial checkpoints newer than that stay. "
	    "dry_run lists the DeleteObjects calls with every key.",
	  .params = f_job_path,
	  .body = f_ckpt_retain_body,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN | SW_OP_DESTRUCTIVE,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 5,
	  .answers = a_long,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_training = { rows,
	sizeof(rows) / sizeof(rows[0]) };
