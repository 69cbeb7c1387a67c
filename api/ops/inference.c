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
#define PAT_MODEL_URI \
	"(s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]|" \
	"[A-Za-z0-9][A-Za-z0-9._-]{0,95})" \
	"(/" PAT_REL_PATH ")?/?"

#define PAT_HF_MODEL \
	"[A-Za-z0-9][A-Za-z0-9._-]{0,95}" \
	"(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?"

#define PAT_HF_REV "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}"

#define PAT_PROM_URL \
	"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?" \
	"(/[A-Za-z0-9._~%/-]*)?"

static const char *const inf_engines[] = { "vllm", "sglang", NULL };

static const char *const inf_exposures[] = { "service", "load-balancer", "pool",
	NULL };

static const char *const inf_metrics[] = { "queue", "running", "kv-cache",
	NULL };

/* clang-format off */
static const struct sw_field f_download_body[] = {
	{ .name = "model_id", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 193, .pattern = PAT_HF_MODEL,
	  .desc = "Hugging Face model id, e.g. Qwen/Qwen3-0.6B." },
	{ .name = "revision", .type = SW_T_STRING, .min = 1, .max = 128,
	  .pattern = PAT_HF_REV,
	  .dflt = "main",
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
	  .dflt = "8",
	  .desc = "Parallel file downloads (default 8)." },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .dflt = "python:3.12-slim",
	  .desc = "Downloader image (default python:3.12-slim)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default slipway-models, or hyperpod-ns-<team> "
	  "with a team's queue)." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	F_KUEUE_FIELDS,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_autoscale[] = {
	{ .name = "min_replicas", .type = SW_T_INT, .max = 64,
	  .dflt = "1",
	  .desc = "Fewest replicas (default 1); 0 is refused: the metric "
	  "comes from the servers, so an endpoint at zero never scales up." },
	{ .name = "max_replicas", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .desc = "Most replicas." },
	{ .name = "metric", .type = SW_T_STRING, .enumv = inf_metrics,
	  .dflt = "queue",
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
/* clang-format on */

/*
 * kind managed and jumpstart: the HyperPod inference operator's
 * InferenceEndpointConfig and JumpStartModel (facts 2.2, 2.3).
 */
static const char *const inf_kinds_enum[] = { "self-hosted", "managed",
	"jumpstart", NULL };

/* Members of an inference_deploy body that go with some kinds only. */
static const char *const only_self[] = { "kind", "self-hosted", NULL };

static const char *const only_managed[] = { "kind", "managed", NULL };

static const char *const only_jumpstart[] = { "kind", "jumpstart", NULL };

static const char *const only_operator[] = { "kind", "managed", "jumpstart",
	NULL };

static const char *const inf_source_types[] = { "s3", "fsx", "huggingface",
	NULL };

static const char *const inf_l2_backends[] = { "tieredstorage", "redis", NULL };

static const char *const inf_strategies[] = { "prefixaware", "kvaware",
	"session", "roundrobin", NULL };

/* clang-format off */
static const struct sw_field f_inf_source[] = {
	{ .name = "type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = inf_source_types, .desc = "s3, fsx or huggingface." },
	{ .name = "uri", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 3, .max = 512, .pattern = PAT_MODEL_URI,
	  .desc = "s3://bucket/prefix, fs-<id>[/path] or org/model; the "
	  "path is relative, without '.' or '..' segments." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_inf_kv[] = {
	{ .name = "l1", .type = SW_T_BOOL,
	  .dflt = "true",
	  .desc = "CPU-memory KV cache on the node (default true)." },
	{ .name = "l2", .type = SW_T_STRING, .enumv = inf_l2_backends,
	  .desc = "Second tier: tieredstorage (HyperPod managed) or redis." },
	{ .name = "redis_url", .type = SW_T_STRING, .min = 8, .max = 256,
	  .pattern = "rediss?://[A-Za-z0-9.-]+(:[0-9]{1,5})?",
	  .desc = "The Redis of an l2 redis cache." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_inf_routing[] = {
	{ .name = "strategy", .type = SW_T_STRING, .enumv = inf_strategies,
	  .dflt = "prefixaware",
	  .desc = "prefixaware (default), kvaware, session or roundrobin." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_inf_body[] = {
	{ .name = "endpoint_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 45, .pattern = PAT_WL_NAME,
	  .desc = "Name of the Deployment and Service." },
	{ .name = "kind", .type = SW_T_STRING, .enumv = inf_kinds_enum,
	  .dflt = "self-hosted",
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
	  .dflt = "service",
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
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field f_inf_logs[] = {
	F_CLUSTER_PATH,
	{ .name = "endpoint", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 45,
	  .pattern = PAT_WL_NAME, .desc = "Inference endpoint name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ .name = "tail", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = 2000, .desc = "Last lines per pod (default 100)." },
	{ .name = "pod", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 253, .pattern = "[a-z0-9]([a-z0-9.-]*" "[a-z0-9])?",
	  .desc = "Only this pod of the endpoint." },
	{ NULL }
};
/* clang-format on */

/*
 * inference_invoke: an OpenAI-style chat body and nothing else.  There
 * is no URL, host or port field: the request goes to the endpoint's
 * own Service, found by its Slipway labels.
 */
static const char *const chat_roles[] = { "system", "user", "assistant", NULL };

/* clang-format off */
static const struct sw_field f_chat_message[] = {
	{ .name = "role", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = chat_roles, .desc = "system, user or assistant." },
	{ .name = "content", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 0, .max = 32768, .desc = "The message text." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_chat_item[] = {
	{ .name = "message", .type = SW_T_OBJECT, .fields = f_chat_message },
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* The hot GPU pool (handlers/inference_pool.c). */
/* clang-format off */
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
	  .dflt = "1",
	  .desc = "Pods in the pool (default 1). Creating again with fewer "
	  "removes free pods only: an assigned pod is never removed." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "gpus_per_replica", .type = SW_T_INT, .min = 1, .max = 64,
	  .dflt = "1",
	  .desc = "GPUs per pod = tensor parallel size (default 1)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .dflt = "default",
	  .desc = "Namespace (default 'default')." },
	{ .name = "pvc", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "PVC mounted at /data (default s3-claim)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */

/* clang-format off */
static const struct sw_field f_pool_move_body[] = {
	{ .name = "endpoint", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 45, .pattern = PAT_WL_NAME,
	  .desc = "An endpoint deployed with exposure pool on this pool." },
	{ .name = "count", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Pods to move (assign: default 1; release: default all "
	  "of the endpoint's)." },
	{ NULL }
};
/* clang-format on */

/* inference_scale: a fixed count or an autoscaler, one of the two. */
/* clang-format off */
static const struct sw_field f_inf_scale_body[] = {
	{ .name = "replicas", .type = SW_T_INT, .min = 1, .max = 64,
	  .desc = "Fixed replica count; removes the endpoint's autoscaler." },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "Scale with a KEDA ScaledObject on a server metric.",
	  .fields = f_autoscale },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */
/* clang-format off */
static const struct sw_field o_download_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	OUT("job", SW_T_STRING, "The download job."),
	OUT("target", SW_T_STRING, "Where it would land."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_model_download[] = {
	{ .status = 201, .fields = o_downloading,
	  .desc = "The download job is submitted." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_download_plan,
	  .desc = "The plan (dry_run=true): the manifests." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_service[] = {
	OUT_OPT("name", SW_T_STRING, "Service name."),
	OUT_OPT("type", SW_T_STRING, "ClusterIP or LoadBalancer."),
	OUT_OPT("cluster_ip", SW_T_STRING, "Its cluster address."),
	OUT_OPT("url", SW_T_STRING, "Where it answers."),
	{ NULL }
};
/* clang-format on */
/* An endpoint of any kind: self-hosted (a Deployment), managed or
 * JumpStart (the operator's resource) or on a pool. */
/* clang-format off */
static const struct sw_field o_endpoint[] = {
	OUT_OPT("endpoint", SW_T_STRING, "Endpoint name."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("kind", SW_T_STRING, "self-hosted, managed or jumpstart."),
	OUT_OPT("resource", SW_T_STRING, "The operator's resource kind "
	    "(managed, jumpstart)."),
	OUT_OPT("exposure", SW_T_STRING, "pool, for an endpoint on a "
	    "pool."),
	OUT_OPT("pool", SW_T_STRING, "Its pool."),
	OUT_OPT("engine", SW_T_STRING, "vllm or sglang (self-hosted)."),
	OUT_OPT("image", SW_T_STRING, "Its image (self-hosted)."),
	OUT_OPT("state", SW_T_STRING, "The operator's state (managed, "
	    "jumpstart)."),
	OUT_OPT("message", SW_T_STRING, "Why, as the operator says."),
	OUT("replicas", SW_T_INT, "Replicas asked for."),
	OUT("ready_replicas", SW_T_INT, "Replicas ready."),
	OUT_OPT("available_replicas", SW_T_INT, "Replicas available."),
	OUT("ready", SW_T_BOOL, "It serves."),
	{ .name = "service", .type = SW_T_OBJECT, .fields = o_service,
	  .desc = "The Service in front of it." },
	{ .name = "pending", .type = SW_T_OBJECT,
	  .fields = sw_pending_fields, .desc = "Why an endpoint is short "
	  "of ready replicas (from its pods, and their Kueue Workloads on a "
	  "team's queue)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_endpoint_item[] = {
	{ .name = "endpoint", .type = SW_T_OBJECT, .fields = o_endpoint },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_endpoint_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_endpoint_item, .desc = "The endpoints." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_inf_list[] = {
	{ .status = 200, .fields = o_endpoint_list,
	  .desc = "The cluster's inference endpoints." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_inf_get[] = {
	{ .status = 200, .fields = o_endpoint, .desc = "The endpoint." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_inf_logs[] = {
	OUT("endpoint", SW_T_STRING, "The endpoint."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("kind", SW_T_STRING, "self-hosted, pool, managed or jumpstart."),
	OUT("tail", SW_T_INT, "Lines asked for per pod."),
	{ .name = "pods", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = sw_pod_log_item, .desc = "Each started pod's lines." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_inf_logs[] = {
	{ .status = 200, .fields = o_inf_logs,
	  .desc = "The endpoint's logs." },
	{ 0 }
};
/* clang-format on */

/* What a workload change applied, and how to follow it. */
#define F_APPLIED \
	{ .name = "applied", \
		.type = SW_T_ARRAY, \
		.flags = SW_F_REQUIRED, \
		.items = o_ref_item, \
		.desc = "The objects applied." }, \
	    OUT_OPT("status_tool", SW_T_STRING, "The tool to follow it."), \
	    OUT("poll_interval_seconds", SW_T_INT, "How often to ask.")
/* clang-format off */
static const struct sw_field o_deployed[] = {
	OUT("endpoint", SW_T_STRING, "Endpoint name."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("engine", SW_T_STRING, "vllm or sglang (self-hosted)."),
	OUT_OPT("load_balancer_controller", SW_T_ANY, "The AWS Load "
	    "Balancer Controller it installed (exposure load-balancer)."),
	OUT_OPT("kind", SW_T_STRING, "managed or jumpstart."),
	OUT_OPT("tls_bucket", SW_T_STRING, "The bucket of the operator's "
	    "certificates (managed, jumpstart)."),
	OUT_OPT("pool", SW_T_STRING, "Its pool (exposure pool)."),
	OUT_OPT("next", SW_T_STRING, "What to do next."),
	F_APPLIED,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_deploy_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	OUT("endpoint", SW_T_STRING, "Endpoint name."),
	OUT_OPT("kind", SW_T_STRING, "managed or jumpstart."),
	OUT_OPT("aws", SW_T_ANY, "The AWS resources it would create "
	    "(managed, jumpstart)."),
	OUT_OPT("pool", SW_T_STRING, "Its pool (exposure pool)."),
	{ .name = "cost", .type = SW_T_OBJECT,
	  .fields = sw_endpoint_cost_fields,
	  .desc = "What it costs per hour and per day: its GPUs' share of "
	  "their nodes' price (a whole instance per replica for "
	  "jumpstart); unknown is null, never zero." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_inf_deploy[] = {
	{ .status = 200, .fields = o_deployed,
	  .desc = "Applied: the endpoint starts." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_deploy_plan,
	  .desc = "The plan (dry_run=true): the manifests." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_name_item[] = {
	{ .name = "name", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_inf_deleted[] = {
	{ .name = "deleted", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What was deleted." },
	OUT("endpoint", SW_T_STRING, "Endpoint name."),
	{ .name = "released", .type = SW_T_ARRAY, .items = o_name_item,
	  .desc = "Pool pods given back (an endpoint on a pool)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_inf_deletes[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "deletes", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What it would delete." },
	OUT("endpoint", SW_T_STRING, "Endpoint name."),
	{ .name = "released", .type = SW_T_ARRAY, .items = o_name_item,
	  .desc = "Pool pods it would give back." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_inf_delete[] = {
	{ .status = 200, .fields = o_inf_deleted, .desc = "Deleted." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_inf_deletes,
	  .desc = "The plan (dry_run=true): what it would delete." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_scaled[] = {
	OUT("endpoint", SW_T_STRING, "Endpoint name."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("kind", SW_T_STRING, "managed or jumpstart."),
	OUT_OPT("replicas", SW_T_INT, "Replicas now asked for."),
	OUT_OPT("autoscaling", SW_T_BOOL, "An autoscaler sets the count."),
	F_APPLIED,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_scale_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	OUT("endpoint", SW_T_STRING, "Endpoint name."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT_OPT("kind", SW_T_STRING, "The operator's resource kind."),
	OUT_OPT("patch", SW_T_ANY, "The patch it would send (managed, "
	    "jumpstart)."),
	{ .name = "manifests", .type = SW_T_ARRAY,
	  .items = o_manifest_item, .desc = "The autoscaler it would "
	  "apply." },
	OUT_OPT("replicas", SW_T_INT, "Replicas it would ask for."),
	OUT_OPT("from", SW_T_INT, "Replicas asked for now."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_inf_scale[] = {
	{ .status = 200, .fields = o_scaled, .desc = "Scaled." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_scale_plan,
	  .desc = "The plan (dry_run=true)." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_pool_pod[] = {
	OUT_OPT("pod", SW_T_STRING, "Pod name."),
	OUT("ready", SW_T_BOOL, "It is ready."),
	OUT_OPT("endpoint", SW_T_STRING, "The endpoint it serves, if "
	    "assigned."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_pod_item[] = {
	{ .name = "pod", .type = SW_T_OBJECT, .fields = o_pool_pod },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool[] = {
	OUT_OPT("pool", SW_T_STRING, "Pool name."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT("engine", SW_T_STRING, "vllm or sglang."),
	OUT("model", SW_T_STRING, "The model its pods serve."),
	OUT("replicas", SW_T_INT, "Pods asked for."),
	{ .name = "pods", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_pool_pod_item, .desc = "Its pods." },
	OUT("ready", SW_T_INT, "Pods ready."),
	OUT("free", SW_T_INT, "Ready pods no endpoint holds."),
	OUT("assigned", SW_T_ANY, "Pods per endpoint, by endpoint name."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_item[] = {
	{ .name = "pool", .type = SW_T_OBJECT, .fields = o_pool },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_pool_item, .desc = "The pools." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_pool_list[] = {
	{ .status = 200, .fields = o_pool_list, .desc = "The pools." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_made[] = {
	OUT("pool", SW_T_STRING, "Pool name."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("replicas", SW_T_INT, "Pods asked for."),
	{ .name = "kept_assigned", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_name_item,
	  .desc = "Pods kept because an endpoint holds them." },
	F_APPLIED,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	OUT("pool", SW_T_STRING, "Pool name."),
	{ .name = "deletes", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "Pods it would delete." },
	{ .name = "kept_assigned", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_name_item,
	  .desc = "Pods it would keep because an endpoint holds them." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_pool_create[] = {
	{ .status = 200, .fields = o_pool_made,
	  .desc = "Applied: the pool's pods start." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_pool_plan,
	  .desc = "The plan (dry_run=true)." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_deleted[] = {
	{ .name = "deleted", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What was deleted." },
	OUT("pool", SW_T_STRING, "Pool name."),
	OUT("status_tool", SW_T_STRING, "inference_pool_list."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_deletes[] = {
	{ .name = "deletes", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What it would delete." },
	OUT("dry_run", SW_T_BOOL, "Always true."),
	OUT("pool", SW_T_STRING, "Pool name."),
	OUT("status_tool", SW_T_STRING, "inference_pool_list."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_pool_delete[] = {
	{ .status = 200, .fields = o_pool_deleted, .desc = "Deleted." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_pool_deletes,
	  .desc = "The plan (dry_run=true)." },
	{ 0 }
};
/* clang-format on */
#define F_POOL_MOVE \
	OUT("pool", SW_T_STRING, "Pool name."), \
	    OUT("endpoint", SW_T_STRING, "The endpoint."), \
	    OUT_OPT("dry_run", SW_T_BOOL, \
		"True for a dry run: nothing " \
		"moved."), \
	    OUT("status_tool", SW_T_STRING, "inference_get."), \
	    OUT("poll_seconds", SW_T_INT, "How often to ask.")
/* clang-format off */
static const struct sw_field o_pool_assigned[] = {
	F_POOL_MOVE,
	{ .name = "assigned", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_name_item, .desc = "Pods given to the endpoint." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pool_released[] = {
	F_POOL_MOVE,
	{ .name = "released", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_name_item, .desc = "Pods given back to the pool." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_pool_assign[] = {
	{ .status = 200, .dry_run = SW_DRY_TOO, .fields = o_pool_assigned,
	  .desc = "Assigned (or, for a dry run, what would be)." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_pool_release[] = {
	{ .status = 200, .dry_run = SW_DRY_TOO, .fields = o_pool_released,
	  .desc = "Released (or, for a dry run, what would be)." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
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
	  .touch = SW_TOUCH_TEAM,
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
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "inference_get",
	  .poll_seconds = 15,
	  .answers = a_inf_deploy,
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
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_inf_list,
	},
	{
	  .name = "inference_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}",
	  .tag = "workloads",
	  .summary = "One inference endpoint: readiness and Service endpoint",
	  .description = "A self-hosted endpoint short of ready replicas "
	    "has pending: reason (NoNodeFits, ImagePull, CrashLoop, "
	    "Starting), message and next_step in plain words, and detail "
	    "(the scheduler's or the kubelet's words).",
	  .params = f_inf_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_inf_get,
	},
	{
	  .name = "inference_logs",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/inference/{endpoint}/logs",
	  .tag = "workloads",
	  .summary = "Last log lines of an inference endpoint's pods",
	  .description = "Every kind: a self-hosted endpoint's server and "
	    "router pods, a pool endpoint's assigned pods, a managed or "
	    "JumpStart endpoint's pods of the Deployment the inference "
	    "operator made.  Bounded: at most 'tail' lines per pod "
	    "(default 100) of up to 8 started pods; never follows (the "
	    "stream's pod logs do).",
	  .params = f_inf_logs,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_inf_logs,
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
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "inference_get",
	  .poll_seconds = 5,
	  .answers = a_inf_delete,
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
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "inference_get",
	  .poll_seconds = 10,
	  .answers = a_inf_scale,
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
	  .touch = SW_TOUCH_TEAM,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 10,
	  .answers = a_pool_create,
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
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_pool_list,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 5,
	  .answers = a_pool_delete,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "inference_get",
	  .poll_seconds = 5,
	  .answers = a_pool_assign,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "inference_pool_list",
	  .poll_seconds = 5,
	  .answers = a_pool_release,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_inference = { rows,
	sizeof(rows) / sizeof(rows[0]) };
