/*
 * workloads.c: the catalogue of what workloads run: the training
 * recipes (images, programs and how they take the S3 contract's
 * paths), the inference engines, the SGLang router, the model download
 * Job's image, Ray's own image and the HyperPod elastic agent the pods
 * install.  Every default image Slipway puts in a workload manifest is
 * named here and only here, so docs/images.md (which describes each
 * one) is checked against this file.  The handlers that use these
 * tables are training.c, models.c and inference.c; what they share is
 * declared in workloads.h.
 */
#include "handlers/workloads.h"

/*
 * None of the recipe images carries the HyperPod elastic agent, and no
 * public image does: AWS documents adding it with pip.  So by default a
 * HyperPodPyTorchJob container starts with a shell that installs the
 * pinned agent and then execs hyperpodrun with the job's argv ("$@":
 * the shell never parses a word the user sent).  elastic_agent=image
 * runs hyperpodrun directly, for images that already have it.
 */
#define AGENT_PIN "hyperpod-elastic-agent==1.1.3"
#define AGENT_SH \
	"python3 -m pip install --no-cache-dir --quiet " \
	"'" AGENT_PIN "' && exec hyperpodrun \"$@\""

/*
 * RayJob clusters run Ray's own image, at the Ray version KubeRay
 * v1.4.2 (the operator Slipway installs) is tested with.  It has no
 * PyTorch; recipes that need it name it in the job's runtime env.
 */
#define RAY_VERSION "2.46.0"
#define RAY_IMAGE "rayproject/ray:" RAY_VERSION "-py311-gpu"

/* The recipes training_job_submit runs (handlers/training.c). */
/* clang-format off */
const struct recipe wl_recipes[] = {
	{ .name = "pytorch", .kinds = KIND_HPJ | KIND_RAY,
	  .image = "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime",
	  .ray_image = RAY_IMAGE, .ray_pip = "torch==2.7.1",
	  .opt_dataset = "--dataset_dir", .opt_model = "--model_dir",
	  .opt_output = "--output_dir", .opt_steps = "--max_steps",
	  .log_pattern = ".*step [0-9]+(/[0-9]+)? .*loss[=:].*",
	  .start_s = 1800, .hang_s = 900 },
	{ .name = "llama-factory", .kinds = KIND_HPJ,
	  .image = "hiyouga/llamafactory:0.9.3",
	  .program = "/app/src/llamafactory/launcher.py", .config = 2,
	  .kv = 1, .opt_dataset = "dataset_dir",
	  .opt_model = "model_name_or_path", .opt_output = "output_dir",
	  .opt_steps = "max_steps",
	  .log_pattern = ".*'loss': [0-9.]+.*",
	  .start_s = 3600, .hang_s = 1800 },
	{ .name = "ms-swift", .kinds = KIND_HPJ,
	  .image = "modelscope/ms-swift:v3.5.3",
	  .program = "swift.cli.sft", .module = 1, .config = 1,
	  .opt_dataset = "--dataset", .opt_model = "--model",
	  .opt_output = "--output_dir", .opt_steps = "--max_steps",
	  .log_pattern = ".*'loss': [0-9.]+.*",
	  .start_s = 3600, .hang_s = 1800 },
	{ .name = "verl", .kinds = KIND_RAY,
	  .ray_image = "verlai/verl:app-verl0.5-vllm0.9.1-mcore0.12.2-te2.2",
	  .program = "verl.trainer.main_ppo", .module = 1, .kv = 1,
	  .opt_dataset = "data.train_files",
	  .opt_model = "actor_rollout_ref.model.path",
	  .opt_output = "trainer.default_local_dir",
	  .opt_steps = "trainer.total_training_steps",
	  .opt_nodes = "trainer.nnodes",
	  .opt_gpus = "trainer.n_gpus_per_node" },
	{ .name = NULL }
};
/* clang-format on */

/* The engines inference_deploy serves with (handlers/inference.c). */
/* clang-format off */
const struct engine wl_engines[] = {
	{ "vllm", "vllm/vllm-openai:v0.10.2", 8000,
	  "vllm:num_requests_waiting", "vllm:num_requests_running",
	  "vllm:kv_cache_usage_perc" },
	{ "sglang", "lmsysorg/sglang:v0.5.2-cu126", 30000,
	  "sglang:num_queue_reqs", "sglang:num_running_reqs",
	  "sglang:token_usage" },
	{ NULL }
};
/* clang-format on */

/* ---- the strings the handlers take from here ------------------------- */

const char wl_agent_sh[] = AGENT_SH;
const char wl_ray_image[] = RAY_IMAGE;
const char wl_ray_version[] = RAY_VERSION;
const char wl_router_image[] = "lmsysorg/sgl-model-gateway:latest";
