/*
 * inference.c: the operation table's rows for model downloads,
 * inference endpoints and inference pools, each beside the fields it
 * reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/* A model source: s3://bucket or a first segment (an fs-<id>, a Hugging
 * Face organisation), then a path of PAT_REL_PATH's segments (no '.'
 * or '..' segment, nothing absolute), a trailing '/' allowed. */
#define PAT_MODEL_URI	"(s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]|" \
			"[A-Za-z0-9][A-Za-z0-9._-]{0,95})" \
			"(/" PAT_REL_PATH ")?/?"

#define PAT_HF_MODEL	"[A-Za-z0-9][A-Za-z0-9._-]{0,95}" \
			"(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?"

#define PAT_HF_REV	"[A-Za-z0-9][A-Za-z0-9._/-]{0,127}"

#define PAT_PROM_URL	"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?" \
			"(/[A-Za-z0-9._~%/-]*)?"

static const char *const inf_engines[] = { "vllm", "sglang", NULL };

static const char *const inf_exposures[] = {
	"service", "load-balancer", "pool", NULL
};

static const char *const inf_metrics[] = {
	"queue", "running", "kv-cache", NULL
};

static const struct sw_field f_download_body[] = {
	{ .name = "model_id", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 193, .pattern = PAT_HF_MODEL,
	  .desc = "Hugging Face model id, e.g. Qwen/Qwen3-0.6B." },
	{ .name = "revision", .type = SW_T_STRING, .min = 1, .max = 128,
	  .pattern = PAT_HF_REV,
	  .desc = "Branch, tag or commit (default main)." },
	{ .name = "target", .type = SW_T_STRING, .min = 1, .max = 512,
	  .pattern = PAT_REL_PATH,
	  .desc = "Directory under /data/models/ (default: the model id's "
	  "name)." },
	{ .name = "job_name", .type = SW_T_STRING, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME,
	  .desc = "Job name (default dl-<model>-<random>)." },
	{ .name = "hf_token", .type = SW_T_STRING, .flags = SW_F_SECRET,
	  .min = 8, .max = 256, .pattern = "[A-Za-z0-9_-]+",
	  .desc = "Hugging Face token for gated models; stored only in a "
	  "Kubernetes Secret, never echoed." },
	{ .name = "max_workers", .type = SW_T_INT, .min = 1, .max = 32,
	  .desc = "Parallel file downloads (default 8)." },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Downloader image (default python:3.12-slim)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default slipway-models)." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	F_KUEUE_FIELDS,
	{ NULL }
};

static const struct sw_field f_autoscale[] = {
	{ .name = "min_replicas", .type = SW_T_INT, .max = 64,
	  .desc = "Fewest replicas (default 1); 0 is refused: the metric "
	  "comes from the servers, so an endpoint at zero never scales up." },
	{ .name = "max_replicas", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .desc = "Most replicas." },
	{ .name = "metric", .type = SW_T_STRING, .enumv = inf_metrics,
	  .desc = "queue (waiting requests, default), running or kv-cache." },
	{ .name = "threshold", .type = SW_T_NUMBER, .max = 100000,
	  .desc = "Target value per replica: a whole number >= 1 for queue "
	  "and running (default 8), a fraction in (0, 1) for kv-cache "
	  "(default 0.8)." },
	{ .name = "prometheus_url", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED, .min = 1, .max = 512,
	  .pattern = PAT_PROM_URL,
	  .desc = "Prometheus that scrapes the servers." },
	{ NULL }
};

/*
 * kind managed and jumpstart: the HyperPod inference operator's
 * InferenceEndpointConfig and JumpStartModel (facts 2.2, 2.3).
 */
static const char *const inf_kinds_enum[] = {
	"self-hosted", "managed", "jumpstart", NULL
};

/* Members of an inference_deploy body that go with some kinds only. */
static const char *const only_self[] = { "kind", "self-hosted", NULL };

static const char *const only_managed[] = { "kind", "managed", NULL };

static const char *const only_jumpstart[] = { "kind", "jumpstart", NULL };

static const char *const only_operator[] = {
	"kind", "managed", "jumpstart", NULL
};

static const char *const inf_source_types[] = {
	"s3", "fsx", "huggingface", NULL
};

static const char *const inf_l2_backends[] = {
	"tieredstorage", "redis", NULL
};

static const char *const inf_strategies[] = {
	"prefixaware", "kvaware", "session", "roundrobin", NULL
};

static const struct sw_field f_inf_source[] = {
	{ .name = "type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = inf_source_types, .desc = "s3, fsx or huggingface." },
	{ .name = "uri", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 3, .max = 512, .pattern = PAT_MODEL_URI,
	  .desc = "s3://bucket/prefix, fs-<id>[/path] or org/model; the "
	  "path is relative, without '.' or '..' segments." },
	{ NULL }
};

static const struct sw_field f_inf_kv[] = {
	{ .name = "l1", .type = SW_T_BOOL,
	  .desc = "CPU-memory KV cache on the node (default true)." },
	{ .name = "l2", .type = SW_T_STRING, .enumv = inf_l2_backends,
	  .desc = "Second tier: tieredstorage (HyperPod managed) or redis." },
	{ .name = "redis_url", .type = SW_T_STRING, .min = 8, .max = 256,
	  .pattern = "rediss?://[A-Za-z0-9.-]+(:[0-9]{1,5})?",
	  .desc = "The Redis of an l2 redis cache." },
	{ NULL }
};

static const struct sw_field f_inf_routing[] = {
	{ .name = "strategy", .type = SW_T_STRING, .enumv = inf_strategies,
	  .desc = "prefixaware (default), kvaware, session or roundrobin." },
	{ NULL }
};

static const struct sw_field f_inf_body[] = {
	{ .name = "endpoint_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 45, .pattern = PAT_WL_NAME,
	  .desc = "Name of the Deployment and Service." },
	{ .name = "kind", .type = SW_T_STRING, .enumv = inf_kinds_enum,
	  .desc = "self-hosted (default: a vLLM or SGLang Deployment), "
	  "managed (the inference operator's InferenceEndpointConfig) or "
	  "jumpstart (a JumpStartModel)." },
	{ .name = "engine", .type = SW_T_STRING, .enumv = inf_engines,
	  .desc = "vllm or sglang (self-hosted: required)." },
	{ .name = "model", .type = SW_T_STRING,
	  .min = 1, .max = 512, .pattern = PAT_REL_PATH,
	  .desc = "Model directory under /data/models/ (self-hosted: "
	  "required).",
	  .only = only_self },
	{ .name = "model_source", .type = SW_T_OBJECT, .fields = f_inf_source,
	  .desc = "managed: where the operator loads the model from.",
	  .only = only_managed },
	{ .name = "kv_cache", .type = SW_T_OBJECT, .fields = f_inf_kv,
	  .desc = "managed, jumpstart: the operator's tiered KV cache.",
	  .only = only_operator },
	{ .name = "routing", .type = SW_T_OBJECT, .fields = f_inf_routing,
	  .desc = "managed, jumpstart: intelligent routing (cannot be "
	  "turned off once on).",
	  .only = only_operator },
	{ .name = "model_id", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
	  .desc = "jumpstart: the JumpStart hub model id.",
	  .only = only_jumpstart },
	{ .name = "model_version", .type = SW_T_STRING, .min = 5, .max = 14,
	  .pattern = "[0-9]{1,4}\\.[0-9]{1,4}\\.[0-9]{1,4}",
	  .desc = "jumpstart: model version x.y.z (default: latest).",
	  .only = only_jumpstart },
	{ .name = "accept_eula", .type = SW_T_BOOL,
	  .desc = "jumpstart: accept the model's EULA (gated models).",
	  .only = only_jumpstart },
	{ .name = "served_model_name", .type = SW_T_STRING, .min = 1,
	  .max = 128, .pattern = "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}",
	  .desc = "Model name clients send (default: model).",
	  .only = only_self },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Server image (default: the engine's).",
	  .only = only_self },
	{ .name = "gpus_per_replica", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "GPUs per replica = tensor parallel size (default 1).",
	  .only = only_self },
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Replicas (default 1)." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "exposure", .type = SW_T_STRING, .enumv = inf_exposures,
	  .desc = "service (ClusterIP, default), load-balancer (internal "
	  "NLB) or pool (a Service over pods assigned from pool)." },
	{ .name = "pool", .type = SW_T_STRING, .min = 1, .max = 40,
	  .pattern = PAT_WL_NAME,
	  .desc = "exposure pool: the inference pool that serves it.",
	  .only = only_self },
	{ .name = "router", .type = SW_T_BOOL,
	  .desc = "sglang: put a cache-aware SGLang router in front.",
	  .only = only_self },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "Scale with a KEDA ScaledObject on a server metric.",
	  .fields = f_autoscale },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim).",
	  .only = only_self },
	F_KUEUE_FIELDS,
	{ NULL }
};

static const struct sw_field f_inf_path[] = {
	F_CLUSTER_PATH,
	{ .name = "endpoint", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 45,
	  .pattern = PAT_WL_NAME, .desc = "Inference endpoint name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ NULL }
};

/*
 * inference_invoke: an OpenAI-style chat body and nothing else.  There
 * is no URL, host or port field: the request goes to the endpoint's
 * own Service, found by its Slipway labels.
 */
static const char *const chat_roles[] = {
	"system", "user", "assistant", NULL
};

static const struct sw_field f_chat_message[] = {
	{ .name = "role", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = chat_roles, .desc = "system, user or assistant." },
	{ .name = "content", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 0, .max = 32768, .desc = "The message text." },
	{ NULL }
};

static const struct sw_field f_chat_item[] = {
	{ .name = "message", .type = SW_T_OBJECT, .fields = f_chat_message },
};

static const struct sw_field f_inf_invoke_body[] = {
	{ .name = "messages", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .items = f_chat_item,
	  .desc = "The conversation, oldest first." },
	{ .name = "max_tokens", .type = SW_T_INT, .min = 1, .max = 8192,
	  .desc = "Most tokens to generate (the server's default when "
	  "absent)." },
	{ .name = "temperature", .type = SW_T_NUMBER, .min = 0, .max = 2,
	  .desc = "Sampling temperature, 0 to 2." },
	{ .name = "stream", .type = SW_T_BOOL,
	  .desc = "Only false: the answer is one JSON document." },
	{ NULL }
};

/* The hot GPU pool (handlers/inference_pool.c). */
static const struct sw_field f_pool_body[] = {
	{ .name = "pool_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 40, .pattern = PAT_WL_NAME,
	  .desc = "Pool name; its pods are <pool_name>-<i>." },
	{ .name = "engine", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = inf_engines, .desc = "vllm or sglang." },
	{ .name = "model", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 512, .pattern = PAT_REL_PATH,
	  .desc = "Model directory under /data/models/ every pod loads." },
	{ .name = "served_model_name", .type = SW_T_STRING, .min = 1,
	  .max = 128, .pattern = "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}",
	  .desc = "Model name clients send (default: model)." },
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Pods in the pool (default 1). Creating again with fewer "
	  "removes free pods only: an assigned pod is never removed." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "gpus_per_replica", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "GPUs per pod = tensor parallel size (default 1)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	{ NULL }
};

static const struct sw_field f_pool_path[] = {
	F_CLUSTER_PATH,
	{ .name = "pool", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 40,
	  .pattern = PAT_WL_NAME, .desc = "Inference pool name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default 'default')." },
	{ NULL }
};

static const struct sw_field f_pool_move_body[] = {
	{ .name = "endpoint", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 45, .pattern = PAT_WL_NAME,
	  .desc = "An endpoint deployed with exposure pool on this pool." },
	{ .name = "count", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Pods to move (assign: default 1; release: default all "
	  "of the endpoint's)." },
	{ NULL }
};

/* inference_scale: a fixed count or an autoscaler, one of the two. */
static const struct sw_field f_inf_scale_body[] = {
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Fixed replica count; removes the endpoint's autoscaler." },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "Scale with a KEDA ScaledObject on a server metric.",
	  .fields = f_autoscale },
	{ NULL }
};

static const struct sw_field o_downloading[] = {
	OUT("job", SW_T_STRING, "The download job."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("model_id", SW_T_STRING, "The model."),
	OUT("target", SW_T_STRING, "Where it lands under /data."),
	OUT_OPT("token_secret", SW_T_STRING, "The Secret holding the "
	    "Hugging Face token."),
	{ .name = "applied", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "The objects applied." },
	OUT_OPT("status_tool", SW_T_STRING, "training_job_get: follow the "
	    "job."),
	OUT("poll_interval_seconds", SW_T_INT, "How often to ask."),
	{ NULL }
};
static const struct sw_field o_download_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	OUT("job", SW_T_STRING, "The download job."),
	OUT("target", SW_T_STRING, "Where it would land."),
	{ NULL }
};
static const struct sw_answer a_model_download[] = {
	{ .status = 201, .fields = o_downloading,
	  .desc = "The download job is submitted." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_download_plan,
	  .desc = "The plan (dry_run=true): the manifests." },
	{ 0 }
};

static const struct sw_op rows[] = {
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
	  .answers = a_model_download,
	},
	{
	  .name = "inference_deploy",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference",
	  .tag = "workloads",
	  .summary = "Serve a model: self-hosted vLLM/SGLang, the HyperPod "
	    "inference operator, or JumpStart",
	  .description = "self-hosted: a Deployment plus a Service "
	    "(ClusterIP, or an internal NLB with exposure load-balancer), "
	    "optional SGLang router and KEDA autoscaling. managed: an "
	    "InferenceEndpointConfig with KV cache, routing and autoscaling, "
	    "its TLS bucket and IAM policy. jumpstart: a JumpStartModel. "
	    "Poll inference_get until ready.",
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
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT |
	    SW_OP_WORKLOADS,
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
	{
	  .name = "inference_scale",
	  .method = "PATCH",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}",
	  .tag = "workloads",
	  .summary = "Scale an inference endpoint: a replica count or an "
	    "autoscaler",
	  .description = "replicas sets a fixed count (and removes the "
	    "endpoint's autoscaler); autoscaling puts a KEDA ScaledObject on "
	    "it. Poll inference_get until ready_replicas matches.",
	  .params = f_inf_path,
	  .body = f_inf_scale_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 10,
	  .output = "Any",
	},
	{
	  .name = "inference_invoke",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}:invoke",
	  .tag = "workloads",
	  .summary = "Send one chat request to an inference endpoint",
	  .description = "An OpenAI-style chat body goes to the endpoint's "
	    "own Service through the cluster API server's service proxy; "
	    "the answer is the model server's JSON (a chat.completion). "
	    "503 while no server is ready: check inference_get.",
	  .params = f_inf_path,
	  .body = f_inf_invoke_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 10,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_create",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference-pools",
	  .tag = "workloads",
	  .summary = "Create or resize a hot GPU pool of loaded model servers",
	  .description = "Pods <pool>-<i> running vLLM or SGLang with the "
	    "model loaded, kept Ready for inference_pool_assign. Creating "
	    "again with another replicas resizes it; scale-in never removes "
	    "an assigned pod. Poll inference_pool_list.",
	  .params = f_cluster_name,
	  .body = f_pool_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 10,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/inference-pools",
	  .tag = "workloads",
	  .summary = "Inference pools: ready, free and assigned pods",
	  .params = f_wl_cluster,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/inference-pools/{pool}",
	  .tag = "workloads",
	  .summary = "Delete an inference pool (refused while it serves an "
	    "endpoint)",
	  .params = f_pool_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 5,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_assign",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference-pools/{pool}:assign",
	  .tag = "workloads",
	  .summary = "Give free pool pods to an endpoint (a label change)",
	  .description = "The endpoint's Service selects the pods at once. "
	    "Poll inference_get for its ready replicas.",
	  .params = f_pool_path,
	  .body = f_pool_move_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_get",
	  .poll_seconds = 5,
	  .output = "Any",
	},
	{
	  .name = "inference_pool_release",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/inference-pools/{pool}:release",
	  .tag = "workloads",
	  .summary = "Take pods back from an endpoint into the pool",
	  .params = f_pool_path,
	  .body = f_pool_move_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 5,
	  .output = "Any",
	},
};

const struct sw_op_family sw_ops_inference = {
	rows, sizeof(rows) / sizeof(rows[0])
};
