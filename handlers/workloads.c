/*
 * workloads.c: what runs on a cluster: training jobs (HyperPodPyTorchJob
 * or KubeRay RayJob from a recipe), model downloads (a batch Job) and
 * self-hosted inference (vLLM or SGLang Deployments with a Service, an
 * optional SGLang router and KEDA autoscaling).  These are a handful of
 * Kubernetes API calls each, so the handlers make them directly instead
 * of starting operations; the mutating rows name training_job_get or
 * inference_get as the tool that tells when the work is done.
 *
 * Manifests are built as JSON trees (never by text substitution) from
 * validated fields.  Containers get argv arrays; the one string command
 * is a RayJob entrypoint (KubeRay's API runs it through a shell), and
 * every word of it is checked against a shell-safe character set first.
 *
 * All workloads share one S3 data contract: the PVC (s3-claim unless
 * given) is mounted at /data, with datasets under /data/datasets,
 * models under /data/models, outputs under /data/outputs/<job>, code
 * under /data/code and recipe configs under /data/configs.  A namespace
 * without the PVC gets a mirror of default/s3-claim's volume (a static
 * PV on the same bucket and a PVC bound to it).
 *
 * A Hugging Face token goes into a Secret owned by the download Job and
 * reaches the container through secretKeyRef; it is never put in the
 * Job, never answered back and never logged.  Dry runs answer with the
 * manifests (the Secret's token a stringData placeholder) and apply
 * nothing.
 */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/k8s.h"
#include "lib/optable.h"
#include "lib/kube.h"
#include "pipelines/helm.h"
#include "pipelines/stepkit.h"

/* Labels on everything we create; workloads are found by them. */
#define WL_MANAGED	"app.kubernetes.io/managed-by"
#define WL_JOB		"slipway.dev/job"
#define WL_INF		"slipway.dev/inference"
#define WL_ROLE		"slipway.dev/role"
#define WL_ENGINE	"slipway.dev/engine"
#define WL_HEALTH	"sagemaker.amazonaws.com/node-health-status"
#define WL_GPU		"nvidia.com/gpu"
#define WL_EFA		"vpc.amazonaws.com/efa"

/* Limits of this file (lib/limits.h holds the library-wide ones). */
#define WL_MAX_LOG_PODS	8		/* pods read by one logs call */
#define WL_MAX_LOG_BYTES (512 * 1024)	/* log text kept per call */
#define WL_LOG_TIMEOUT	15		/* seconds per pod log read */
#define WL_MAX_WORD	1024		/* one argv word we build */

#define CRD_HPJ		"hyperpodpytorchjobs.sagemaker.amazonaws.com"
#define CRD_RAYJOB	"rayjobs.ray.io"
#define CRD_SCALEDOBJ	"scaledobjects.keda.sh"

/* The service account pipelines/features.c makes for tiered checkpoints. */
#define TIERED_SA	"tiered-storage-sa"

/* ---- Kubernetes plumbing ------------------------------------------------ */

/* A client for cluster; on failure the problem is filled. */
static sw_err
kube_open(struct sw_req *r, const char *cluster, struct sw_kube *kb)
{
	return h_kube(r, cluster, kb);
}

/* A failed Kubernetes call as the request's problem. */
static sw_err
kube_fail(struct sw_req *r, sw_err e, const struct k8s_error *ke,
    const char *verb, const char *what)
{
	if (e == SW_EINVAL || e == SW_EFORBIDDEN)
		e = SW_EUPSTREAM;
	return sw_req_fail(r, e, "Kubernetes %s %s: %s", verb, what,
	    ke->message[0] ? ke->message : ke->reason[0] ? ke->reason :
	    "failed");
}

/* Lower-case kind + "s" ("es" after s): every kind we use. */
static void
kind_plural(const char *kind, char *out, size_t outsz)
{
	size_t i;

	for (i = 0; kind[i] != '\0' && i + 3 < outsz; i++)
		out[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ?
		    kind[i] + 32 : kind[i]);
	if (i > 0 && out[i - 1] == 's')
		out[i++] = 'e';
	out[i++] = 's';
	out[i] = '\0';
}

/* The API path of a manifest (borrowed). */
static sw_err
manifest_path(json_object *m, char *path, size_t pathsz)
{
	char plural[64];
	const char *kind = sw_json_get_str(m, "kind");

	if (kind == NULL)
		return SW_EINVAL;
	kind_plural(kind, plural, sizeof(plural));
	return k8s_path(path, pathsz, sw_json_get_str(m, "apiVersion"),
	    sw_json_path_str(m, "metadata.namespace"), plural,
	    sw_json_path_str(m, "metadata.name"));
}

/*
 * Server-side apply of one manifest (borrowed); *out (may be NULL) gets
 * the applied object.  On failure the problem is filled.
 */
static sw_err
apply_one(struct sw_req *r, struct sw_kube *kb, json_object *m,
    json_object **out)
{
	char path[512], what[160];
	struct k8s_error ke;
	sw_err e;

	snprintf(what, sizeof(what), "%s/%s", sw_json_get_str(m, "kind"),
	    sw_json_path_str(m, "metadata.name"));
	if (manifest_path(m, path, sizeof(path)) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "no API path for %s",
		    what);
	memset(&ke, 0, sizeof(ke));
	if ((e = k8s_apply(&kb->k, path, m, out, &ke)) != SW_OK)
		return kube_fail(r, e, &ke, "apply", what);
	return SW_OK;
}

/* {kind, name, namespace} of a manifest, for answers.  New reference. */
static json_object *
manifest_ref(json_object *m)
{
	const char *ns = sw_json_path_str(m, "metadata.namespace");

	return sw_jo("kind", sw_js(sw_json_get_str(m, "kind")),
	    "name", sw_js(sw_json_path_str(m, "metadata.name")),
	    "namespace", ns ? sw_js(ns) : NULL, NULL);
}

/* Apply every manifest of list in order; refs (may be NULL) gets refs. */
static sw_err
apply_all(struct sw_req *r, struct sw_kube *kb, json_object *list,
    json_object *refs)
{
	size_t i;

	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *m = json_object_array_get_idx(list, i);

		if (apply_one(r, kb, m, NULL) != SW_OK)
			return r->err;
		if (refs != NULL)
			json_object_array_add(refs, manifest_ref(m));
	}
	return SW_OK;
}

/* 1 when the CRD exists, 0 when not, -1 (problem filled) on error. */
static int
crd_present(struct sw_req *r, struct sw_kube *kb, const char *crd)
{
	char path[256];
	struct k8s_error ke;
	json_object *out = NULL;
	sw_err e;

	if (k8s_path(path, sizeof(path), "apiextensions.k8s.io/v1", NULL,
	    "customresourcedefinitions", crd) != SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "bad CRD name %s", crd);
		return -1;
	}
	memset(&ke, 0, sizeof(ke));
	e = k8s_get(&kb->k, path, &out, &ke);
	json_object_put(out);
	if (e == SW_OK)
		return 1;
	if (e == SW_ENOTFOUND)
		return 0;
	kube_fail(r, e, &ke, "get", crd);
	return -1;
}

/* 409 that names the feature to turn on with feature_set. */
static sw_err
need_feature(struct sw_req *r, const char *field, const char *feature,
    const char *what)
{
	sw_ferr_add(&r->ferrs, field, "feature", "needs %s: enable feature "
	    "%s with feature_set", what, feature);
	return sw_req_fail(r, SW_ECONFLICT, "%s is not installed on this "
	    "cluster: enable it with feature_set %s, then submit again",
	    what, feature);
}

/* GET one object; SW_ENOTFOUND is returned without filling a problem. */
static sw_err
get_obj(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name, json_object **out)
{
	char path[512];
	struct k8s_error ke;
	sw_err e;

	*out = NULL;
	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
	memset(&ke, 0, sizeof(ke));
	e = k8s_get(&kb->k, path, out, &ke);
	if (e == SW_OK || e == SW_ENOTFOUND)
		return e;
	return kube_fail(r, e, &ke, "get", name);
}

/*
 * List (ns may be NULL: all namespaces) with a label selector.  A 404
 * (the kind's CRD is absent) gives an empty list.  *items is a new
 * reference to the items array.
 */
static sw_err
list_objs(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *selector,
    json_object **items)
{
	char path[512];
	struct k8s_error ke;
	json_object *out = NULL;
	sw_err e;

	*items = NULL;
	if (k8s_path(path, sizeof(path), api, ns, plural, NULL) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", plural);
	memset(&ke, 0, sizeof(ke));
	e = k8s_list(&kb->k, path, selector, &out, &ke);
	if (e == SW_ENOTFOUND) {
		*items = json_object_new_array();
		return SW_OK;
	}
	if (e != SW_OK)
		return kube_fail(r, e, &ke, "list", plural);
	*items = json_object_get(sw_json_get(out, "items"));
	if (*items == NULL)
		*items = json_object_new_array();
	json_object_put(out);
	return SW_OK;
}

/* Delete; 404 counts as done.  Returns 1 when something was deleted. */
static int
delete_obj(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name)
{
	char path[512];
	struct k8s_error ke;
	sw_err e;

	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
		return -1;
	}
	memset(&ke, 0, sizeof(ke));
	e = k8s_delete(&kb->k, path, &ke);
	if (e == SW_OK)
		return 1;
	if (e == SW_ENOTFOUND)
		return 0;
	kube_fail(r, e, &ke, "delete", name);
	return -1;
}

/* ---- manifest pieces ------------------------------------------------------ */

static json_object *
env_var(const char *name, const char *value)
{
	return sw_jo("name", sw_js(name), "value", sw_js(value), NULL);
}

static json_object *
data_volumes(const char *pvc, int read_only)
{
	return sw_ja(
	    sw_jo("name", sw_js("data"), "persistentVolumeClaim", sw_jo(
		"claimName", sw_js(pvc), "readOnly", read_only ? sw_jb(1) :
		NULL, NULL), NULL),
	    sw_jo("name", sw_js("shm"), "emptyDir", sw_jo("medium",
		sw_js("Memory"), NULL), NULL));
}

static json_object *
data_mounts(int read_only)
{
	return sw_ja(
	    sw_jo("name", sw_js("data"), "mountPath", sw_js("/data"),
		"readOnly", read_only ? sw_jb(1) : NULL, NULL),
	    sw_jo("name", sw_js("shm"), "mountPath", sw_js("/dev/shm"),
		NULL));
}

/* Node selection: healthy HyperPod nodes, of one type when given. */
static json_object *
node_selector(const char *instance_type)
{
	return sw_jo(WL_HEALTH, sw_js("Schedulable"),
	    "node.kubernetes.io/instance-type", instance_type ?
	    sw_js(instance_type) : NULL, NULL);
}

static json_object *
gpu_tolerations(void)
{
	return sw_ja(sw_jo("key", sw_js(WL_GPU), "operator", sw_js("Exists"),
	    "effect", sw_js("NoSchedule"), NULL));
}

/* limits = requests = {gpu: g, efa: e (when > 0)}. */
static json_object *
accel_resources(int64_t gpus, int64_t efa)
{
	json_object *lim = json_object_new_object(), *req = NULL;

	json_object_object_add(lim, WL_GPU, sw_ji(gpus));
	if (efa > 0)
		json_object_object_add(lim, WL_EFA, sw_ji(efa));
	json_object_deep_copy(lim, &req, NULL);
	return sw_jo("limits", lim, "requests", req, NULL);
}

static json_object *
namespace_manifest(const char *ns)
{
	return sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Namespace"),
	    "metadata", sw_jo("name", sw_js(ns), "labels", sw_jo(WL_MANAGED,
		sw_js("slipway"), NULL), NULL), NULL);
}

/*
 * Storage and namespace for a workload in ns: appends to list the
 * Namespace (unless "default") and, when ns has no PVC pvc and pvc is
 * the default claim, a mirror of default/<pvc>'s volume (a static PV
 * on the same bucket with its own volumeHandle, and a PVC bound to it).
 * A named PVC that is absent is a 400 naming the field.
 */
static sw_err
storage_plan(struct sw_req *r, struct sw_kube *kb, const char *cluster,
    const char *ns, const char *pvc, int named, json_object *list)
{
	json_object *claim = NULL, *src = NULL, *pv = NULL, *spec, *csi;
	const char *vol;
	char pvname[200];
	sw_err e;

	if (strcmp(ns, "default") != 0)
		json_object_array_add(list, namespace_manifest(ns));
	if ((e = get_obj(r, kb, "v1", ns, "persistentvolumeclaims", pvc,
	    &claim)) == SW_OK) {
		json_object_put(claim);
		return SW_OK;
	}
	if (e != SW_ENOTFOUND)
		return e;
	if (named || strcmp(ns, "default") == 0)
		goto absent;
	if ((e = get_obj(r, kb, "v1", "default", "persistentvolumeclaims",
	    pvc, &src)) == SW_ENOTFOUND)
		goto absent;
	if (e != SW_OK)
		return e;
	vol = sw_json_path_str(src, "spec.volumeName");
	if (vol == NULL || (e = get_obj(r, kb, "v1", NULL,
	    "persistentvolumes", vol, &pv)) != SW_OK) {
		json_object_put(src);
		if (r->err != SW_OK)
			return r->err;
		return sw_req_fail(r, SW_ECONFLICT, "PVC default/%s is not "
		    "bound to a volume yet", pvc);
	}
	snprintf(pvname, sizeof(pvname), "%s-%s-%s", pvc, ns, cluster);
	spec = sw_json_get(pv, "spec");
	csi = NULL;
	json_object_deep_copy(sw_json_get(spec, "csi"), &csi, NULL);
	if (csi == NULL) {
		json_object_put(src);
		json_object_put(pv);
		return sw_req_fail(r, SW_ECONFLICT, "volume %s of default/%s "
		    "is not a CSI volume; create PVC %s in %s first", vol,
		    pvc, pvc, ns);
	}
	sw_json_add_str(csi, "volumeHandle", pvname);
	json_object_array_add(list, sw_jo(
	    "apiVersion", sw_js("v1"), "kind", sw_js("PersistentVolume"),
	    "metadata", sw_jo("name", sw_js(pvname), "labels", sw_jo(
		WL_MANAGED, sw_js("slipway"), NULL), NULL),
	    "spec", sw_jo(
		"capacity", json_object_get(sw_json_get(spec, "capacity")),
		"accessModes", sw_ja(sw_js("ReadWriteMany")),
		"storageClassName", sw_js(""),
		"persistentVolumeReclaimPolicy", sw_js("Retain"),
		"mountOptions", json_object_get(sw_json_get(spec,
		    "mountOptions")),
		"claimRef", sw_jo("namespace", sw_js(ns), "name", sw_js(pvc),
		    NULL),
		"csi", csi, NULL), NULL));
	json_object_array_add(list, sw_jo(
	    "apiVersion", sw_js("v1"), "kind", sw_js("PersistentVolumeClaim"),
	    "metadata", sw_jo("name", sw_js(pvc), "namespace", sw_js(ns),
		"labels", sw_jo(WL_MANAGED, sw_js("slipway"), NULL), NULL),
	    "spec", sw_jo(
		"accessModes", sw_ja(sw_js("ReadWriteMany")),
		"storageClassName", sw_js(""),
		"volumeName", sw_js(pvname),
		"resources", sw_jo("requests", sw_jo("storage",
		    sw_js("1Gi"), NULL), NULL), NULL), NULL));
	json_object_put(src);
	json_object_put(pv);
	return SW_OK;
absent:
	sw_ferr_add(&r->ferrs, "pvc", "exists", "no PVC %s in namespace %s; "
	    "set up S3 storage for the cluster first", pvc, ns);
	return sw_req_fail(r, SW_ECONFLICT, "no PVC %s in namespace %s", pvc,
	    ns);
}

/* The dry-run answer: the manifests that would be applied (stolen). */
static sw_err
answer_plan(struct sw_req *r, json_object *list, json_object *extra)
{
	json_object *o = sw_jo("dry_run", sw_jb(1), "manifests", list, NULL);

	if (extra != NULL) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(o, k, json_object_get(v));
		json_object_put(extra);
	}
	sw_req_reply(r, 200, o);
	return SW_OK;
}

/* The answer of a mutation: what was applied and how to follow it. */
static void
answer_applied(struct sw_req *r, int status, json_object *o,
    json_object *refs)
{
	json_object_object_add(o, "applied", refs);
	json_object_object_add(o, "status_tool", sw_js(r->op->status_tool));
	json_object_object_add(o, "poll_interval_seconds",
	    sw_ji(r->op->poll_seconds));
	sw_req_reply(r, status, o);
}

/* ---- training recipes ------------------------------------------------------ */

#define KIND_HPJ	0x01
#define KIND_RAY	0x02

/*
 * None of the recipe images carries the HyperPod elastic agent, and no
 * public image does: AWS documents adding it with pip.  So by default a
 * HyperPodPyTorchJob container starts with a shell that installs the
 * pinned agent and then execs hyperpodrun with the job's argv ("$@":
 * the shell never parses a word the user sent).  elastic_agent=image
 * runs hyperpodrun directly, for images that already have it.
 */
#define AGENT_PIN	"hyperpod-elastic-agent==1.1.3"
#define AGENT_SH	"python3 -m pip install --no-cache-dir --quiet " \
			"'" AGENT_PIN "' && exec hyperpodrun \"$@\""

/*
 * RayJob clusters run Ray's own image, at the Ray version KubeRay
 * v1.4.2 (the operator Slipway installs) is tested with.  It has no
 * PyTorch; recipes that need it name it in the job's runtime env.
 */
#define RAY_VERSION	"2.46.0"
#define RAY_IMAGE	"rayproject/ray:" RAY_VERSION "-py311-gpu"

/*
 * A recipe: the images, the program and how the S3 contract's paths
 * are passed.  Options are "--flag value" pairs, or "key=value" words
 * when kv is set; a NULL option is not passed.  log_pattern matches the
 * progress line the program prints: the training operator calls a job
 * hanging when none comes within start_s of the start or hang_s of the
 * last one (docs/images.md).
 */
struct recipe {
	const char	*name;
	unsigned	 kinds;
	const char	*image;		/* hyperpod-pytorch */
	const char	*ray_image;	/* ray */
	const char	*ray_pip;	/* runtime env pip package, or NULL */
	const char	*program;	/* NULL: /data/code/<entry> */
	int		 module;	/* program is a Python module */
	int		 config;	/* 0 none, 1 optional, 2 required */
	int		 kv;
	const char	*opt_dataset, *opt_model, *opt_output, *opt_steps;
	const char	*opt_nodes, *opt_gpus;
	const char	*log_pattern;
	int		 start_s, hang_s;
};

static const struct recipe recipes[] = {
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

static const struct recipe *
recipe_find(const char *name)
{
	const struct recipe *rc;

	for (rc = recipes; rc->name != NULL; rc++)
		if (strcmp(rc->name, name) == 0)
			return rc;
	return NULL;
}

/* Append an option (flag + value, or key=value) to argv. */
static void
argv_opt(json_object *argv, int kv, const char *opt, const char *value)
{
	char word[WL_MAX_WORD];

	if (opt == NULL || value == NULL)
		return;
	if (kv) {
		snprintf(word, sizeof(word), "%s=%s", opt, value);
		json_object_array_add(argv, sw_js(word));
	} else {
		json_object_array_add(argv, sw_js(opt));
		json_object_array_add(argv, sw_js(value));
	}
}

/* Append prefix + rel ("/data/code/" + "train.py") to argv. */
static void
argv_path(json_object *argv, const char *prefix, const char *rel)
{
	char word[WL_MAX_WORD];

	snprintf(word, sizeof(word), "%s%s", prefix, rel);
	json_object_array_add(argv, sw_js(word));
}

/* Validated inputs of a training job. */
struct train {
	const char		*cluster, *job, *ns, *pvc, *image;
	const char		*dataset, *model, *entry, *config;
	const char		*instance_type, *mlflow;
	const char		*sa;		/* tiered-storage-sa or NULL */
	const struct recipe	*recipe;
	int			 ray, own_image, agent_install;
	int64_t			 nodes, gpus, efa, max_steps;
	json_object		*env;		/* borrowed map */
	json_object		*logmon;	/* borrowed, or NULL */
};

/* The program and its options (after any launcher).  New array. */
static json_object *
recipe_args(const struct train *t)
{
	const struct recipe *rc = t->recipe;
	json_object *argv = json_object_new_array();
	char num[32];

	if (rc->module)
		json_object_array_add(argv, sw_js("-m"));
	if (rc->program != NULL)
		json_object_array_add(argv, sw_js(rc->program));
	else
		argv_path(argv, "/data/code/", t->entry ? t->entry :
		    "train.py");
	if (rc->config && t->config != NULL)
		argv_path(argv, "/data/configs/", t->config);
	if (t->dataset != NULL) {
		char p[WL_MAX_WORD];

		snprintf(p, sizeof(p), "/data/datasets/%s", t->dataset);
		argv_opt(argv, rc->kv, rc->opt_dataset, p);
	}
	if (t->model != NULL) {
		char p[WL_MAX_WORD];

		snprintf(p, sizeof(p), "/data/models/%s", t->model);
		argv_opt(argv, rc->kv, rc->opt_model, p);
	}
	{
		char p[WL_MAX_WORD];

		snprintf(p, sizeof(p), "/data/outputs/%s", t->job);
		argv_opt(argv, rc->kv, rc->opt_output, p);
	}
	if (t->max_steps > 0) {
		snprintf(num, sizeof(num), "%lld", (long long)t->max_steps);
		argv_opt(argv, rc->kv, rc->opt_steps, num);
	}
	snprintf(num, sizeof(num), "%lld", (long long)t->nodes);
	argv_opt(argv, rc->kv, rc->opt_nodes, num);
	snprintf(num, sizeof(num), "%lld", (long long)t->gpus);
	argv_opt(argv, rc->kv, rc->opt_gpus, num);
	return argv;
}

/* The container environment: the contract, MLflow, then the user's. */
static json_object *
train_env(const struct train *t)
{
	json_object *env = json_object_new_array();
	char p[WL_MAX_WORD], num[32];

	snprintf(p, sizeof(p), "/data/outputs/%s", t->job);
	json_object_array_add(env, env_var("OUTPUT_DIR", p));
	if (t->dataset != NULL) {
		snprintf(p, sizeof(p), "/data/datasets/%s", t->dataset);
		json_object_array_add(env, env_var("DATASET_DIR", p));
	}
	if (t->model != NULL) {
		snprintf(p, sizeof(p), "/data/models/%s", t->model);
		json_object_array_add(env, env_var("MODEL_DIR", p));
	}
	if (t->max_steps > 0) {
		snprintf(num, sizeof(num), "%lld", (long long)t->max_steps);
		json_object_array_add(env, env_var("MAX_STEPS", num));
	}
	if (t->mlflow != NULL) {
		json_object_array_add(env, env_var("MLFLOW_TRACKING_URI",
		    t->mlflow));
		json_object_array_add(env, env_var("MLFLOW_EXPERIMENT_NAME",
		    t->job));
	}
	if (t->env != NULL) {
		json_object_object_foreach(t->env, k, v)
			json_object_array_add(env, env_var(k,
			    json_object_get_string(v)));
	}
	return env;
}

static json_object *
job_labels(const char *job)
{
	return sw_jo(WL_MANAGED, sw_js("slipway"), WL_JOB, sw_js(job), NULL);
}

/*
 * runPolicy.logMonitoringConfiguration (facts §1.2): a start rule and a
 * recurring-progress rule on the recipe's progress line, each field
 * overridable; NULL when turned off.
 */
static json_object *
log_monitoring(const struct train *t)
{
	const struct recipe *rc = t->recipe;
	json_object *lm = t->logmon;
	const char *pat;

	if (lm != NULL && !sw_json_get_bool(lm, "enabled", 1))
		return NULL;
	pat = lm != NULL && sw_json_get_str(lm, "log_pattern") != NULL ?
	    sw_json_get_str(lm, "log_pattern") : rc->log_pattern;
	if (pat == NULL)
		return NULL;
	return sw_ja(
	    sw_jo("name", sw_js("JobStart"), "logPattern", sw_js(pat),
		"expectedStartCutOffInSeconds", sw_ji(sw_json_get_int(lm,
		    "start_seconds", rc->start_s)), NULL),
	    sw_jo("name", sw_js("JobHang"), "logPattern", sw_js(pat),
		"expectedRecurringFrequencyInSeconds", sw_ji(
		    sw_json_get_int(lm, "hang_seconds", rc->hang_s)), NULL));
}

/*
 * HyperPodPyTorchJob (facts §1): hyperpodrun launches the recipe,
 * after the pod installs the elastic agent unless the image has it.
 */
static json_object *
hpj_manifest(const struct train *t)
{
	json_object *argv, *args;
	char w[64];
	size_t i;

	if (t->agent_install)
		argv = sw_ja(sw_js("sh"), sw_js("-c"), sw_js(AGENT_SH),
		    sw_js("hyperpodrun"));
	else
		argv = sw_ja(sw_js("hyperpodrun"));

	snprintf(w, sizeof(w), "--nnodes=%lld", (long long)t->nodes);
	json_object_array_add(argv, sw_js(w));
	snprintf(w, sizeof(w), "--nproc-per-node=%lld", (long long)t->gpus);
	json_object_array_add(argv, sw_js(w));
	args = recipe_args(t);
	for (i = 0; i < json_object_array_length(args); i++)
		json_object_array_add(argv, json_object_get(
		    json_object_array_get_idx(args, i)));
	json_object_put(args);
	snprintf(w, sizeof(w), "%lld", (long long)t->gpus);
	return sw_jo(
	    "apiVersion", sw_js("sagemaker.amazonaws.com/v1"),
	    "kind", sw_js("HyperPodPyTorchJob"),
	    "metadata", sw_jo("name", sw_js(t->job), "namespace", sw_js(t->ns),
		"labels", job_labels(t->job), NULL),
	    "spec", sw_jo(
		"nprocPerNode", sw_js(w),
		"runPolicy", sw_jo(
		    "jobMaxRetryCount", sw_ji(3),
		    "cleanPodPolicy", sw_js("None"),
		    "restartPolicy", sw_jo("evalPeriodSeconds", sw_ji(3600),
			"numRestartBeforeFullJobRestart", sw_ji(3),
			"maxFullJobRestarts", sw_ji(1), NULL),
		    "logMonitoringConfiguration", log_monitoring(t), NULL),
		"replicaSpecs", sw_ja(sw_jo(
		    "name", sw_js("pods"),
		    "replicas", sw_ji(t->nodes),
		    "template", sw_jo(
			"metadata", sw_jo("labels", job_labels(t->job), NULL),
			"spec", sw_jo(
			    "serviceAccountName", t->sa ? sw_js(t->sa) : NULL,
			    "containers", sw_ja(sw_jo(
				"name", sw_js("pytorch"),
				"image", sw_js(t->image),
				"command", argv,
				"env", train_env(t),
				"ports", sw_ja(sw_jo("containerPort",
				    sw_ji(8080), NULL)),
				"resources", accel_resources(t->gpus, t->efa),
				"volumeMounts", data_mounts(0), NULL)),
			    "volumes", data_volumes(t->pvc, 0),
			    "nodeSelector", node_selector(t->instance_type),
			    "tolerations", gpu_tolerations(), NULL), NULL),
		    NULL)), NULL), NULL);
}

/* Characters a RayJob entrypoint word may hold (no shell meaning). */
static int
shell_safe(const char *s)
{
	return *s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._/=:,+-") == strlen(s);
}

/*
 * RayJob (facts §4): a head and one GPU worker group on the Ray image;
 * the entrypoint is "python3 <recipe args>" with every word shell-safe,
 * else NULL.  With Ray's own image the recipe's extra package comes in
 * the runtime env and rayVersion names the image's Ray.
 */
static json_object *
rayjob_manifest(const struct train *t)
{
	json_object *args = recipe_args(t);
	struct sw_buf ep;
	size_t i;
	json_object *m = NULL;
	char env_yaml[256];
	int ray_own;

	sw_buf_init(&ep, 8192);
	sw_buf_puts(&ep, "python3");
	for (i = 0; i < json_object_array_length(args); i++) {
		const char *w = json_object_get_string(
		    json_object_array_get_idx(args, i));

		if (!shell_safe(w))
			goto out;
		sw_buf_putc(&ep, ' ');
		if (sw_buf_puts(&ep, w) != SW_OK)
			goto out;
	}
	ray_own = strcmp(t->image, RAY_IMAGE) == 0;
	if (ray_own && t->recipe->ray_pip != NULL &&
	    (size_t)snprintf(env_yaml, sizeof(env_yaml), "pip:\n  - %s\n",
	    t->recipe->ray_pip) >= sizeof(env_yaml))
		goto out;
	m = sw_jo(
	    "apiVersion", sw_js("ray.io/v1"), "kind", sw_js("RayJob"),
	    "metadata", sw_jo("name", sw_js(t->job), "namespace", sw_js(t->ns),
		"labels", job_labels(t->job), NULL),
	    "spec", sw_jo(
		"entrypoint", sw_js(sw_buf_str(&ep)),
		"runtimeEnvYAML", ray_own && t->recipe->ray_pip != NULL ?
		    sw_js(env_yaml) : NULL,
		"shutdownAfterJobFinishes", sw_jb(1),
		"ttlSecondsAfterFinished", sw_ji(3600),
		"rayClusterSpec", sw_jo(
		    "rayVersion", ray_own ? sw_js(RAY_VERSION) : NULL,
		    "headGroupSpec", sw_jo(
			"rayStartParams", json_object_new_object(),
			"template", sw_jo(
			    "metadata", sw_jo("labels", job_labels(t->job),
				NULL),
			    "spec", sw_jo(
				"serviceAccountName", t->sa ? sw_js(t->sa) :
				    NULL,
				"containers", sw_ja(sw_jo(
				"name", sw_js("ray-head"),
				"image", sw_js(t->image),
				"env", train_env(t),
				"resources", sw_jo("limits", sw_jo(
				    "cpu", sw_js("2"), "memory", sw_js("8Gi"),
				    NULL), NULL),
				"volumeMounts", data_mounts(0), NULL)),
				"volumes", data_volumes(t->pvc, 0), NULL),
			    NULL), NULL),
		    "workerGroupSpecs", sw_ja(sw_jo(
			"groupName", sw_js("gpu"),
			"replicas", sw_ji(t->nodes),
			"minReplicas", sw_ji(t->nodes),
			"maxReplicas", sw_ji(t->nodes),
			"rayStartParams", json_object_new_object(),
			"template", sw_jo(
			    "metadata", sw_jo("labels", job_labels(t->job),
				NULL),
			    "spec", sw_jo(
				"serviceAccountName", t->sa ? sw_js(t->sa) :
				    NULL,
				"containers", sw_ja(sw_jo(
				    "name", sw_js("ray-worker"),
				    "image", sw_js(t->image),
				    "env", train_env(t),
				    "resources", accel_resources(t->gpus,
					t->efa),
				    "volumeMounts", data_mounts(0), NULL)),
				"volumes", data_volumes(t->pvc, 0),
				"nodeSelector", node_selector(
				    t->instance_type),
				"tolerations", gpu_tolerations(), NULL),
			    NULL), NULL)), NULL), NULL), NULL);
out:
	json_object_put(args);
	sw_buf_free(&ep);
	return m;
}

/* Env names: [A-Za-z_][A-Za-z0-9_]*, and not ones the contract sets. */
static void
check_env(struct sw_req *r, json_object *env)
{
	static const char *const reserved[] = {
		"OUTPUT_DIR", "DATASET_DIR", "MODEL_DIR", "HF_TOKEN",
		"MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME", NULL
	};
	char field[160];
	int i;

	if (env == NULL)
		return;
	json_object_object_foreach(env, k, v) {
		(void)v;
		snprintf(field, sizeof(field), "env.%s", k);
		if (strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
		    "vwxyz0123456789_") != strlen(k) || (k[0] >= '0' &&
		    k[0] <= '9')) {
			sw_ferr_add(&r->ferrs, field, "pattern", "names are "
			    "[A-Za-z_][A-Za-z0-9_]*");
			continue;
		}
		for (i = 0; reserved[i] != NULL; i++)
			if (strcmp(k, reserved[i]) == 0)
				sw_ferr_add(&r->ferrs, field, "reserved",
				    "is set by Slipway; use the matching "
				    "field instead");
	}
}

static const char *
str_or(json_object *o, const char *key, const char *dflt)
{
	const char *s = sw_json_get_str(o, key);

	return s != NULL ? s : dflt;
}

/* log_monitoring.log_pattern must compile (POSIX ERE, close to RE2). */
static void
check_log_pattern(struct sw_req *r, json_object *lm)
{
	const char *pat = sw_json_get_str(lm, "log_pattern");
	regex_t re;

	if (pat == NULL)
		return;
	if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0) {
		sw_ferr_add(&r->ferrs, "log_monitoring.log_pattern", "regex",
		    "is not a valid regular expression");
		return;
	}
	regfree(&re);
}

/*
 * Does ns hold the service account that tiered checkpointing made
 * (feature_set tiered_checkpointing; its Pod Identity association gives
 * the pods the role on the checkpoint bucket)?  1 yes, 0 no, -1 failed
 * (problem filled).
 */
static int
tiered_sa(struct sw_req *r, struct sw_kube *kb, const char *ns)
{
	json_object *sa = NULL;
	const char *feat;
	int yes;
	sw_err e;

	e = get_obj(r, kb, "v1", ns, "serviceaccounts", TIERED_SA, &sa);
	if (e == SW_ENOTFOUND)
		return 0;
	if (e != SW_OK)
		return -1;
	feat = sw_json_get_str(sw_json_path(sa, "metadata.labels"),
	    "slipway.io/feature");
	yes = feat != NULL && strcmp(feat, "tiered-checkpointing") == 0;
	json_object_put(sa);
	return yes;
}

sw_err
h_training_job_submit(struct sw_req *r)
{
	json_object *a = r->args, *list = NULL, *m, *existing = NULL;
	const char *kind = str_or(a, "kind", "hyperpod-pytorch");
	const char *rname = str_or(a, "recipe", "pytorch");
	struct train t;
	struct sw_kube kb;
	int have;
	sw_err e;

	memset(&t, 0, sizeof(t));
	memset(&kb, 0, sizeof(kb));
	t.cluster = sw_json_get_str(a, "name");
	t.job = sw_json_get_str(a, "job_name");
	t.ns = str_or(a, "namespace", "default");
	t.pvc = str_or(a, "pvc", "s3-claim");
	t.dataset = sw_json_get_str(a, "dataset");
	t.model = sw_json_get_str(a, "model");
	t.entry = sw_json_get_str(a, "entry");
	t.config = sw_json_get_str(a, "config");
	t.instance_type = sw_json_get_str(a, "instance_type");
	t.mlflow = sw_json_get_str(a, "mlflow_tracking_uri");
	t.nodes = sw_json_get_int(a, "nodes", 1);
	t.gpus = sw_json_get_int(a, "gpus_per_node", 1);
	t.efa = sw_json_get_int(a, "efa_per_node", 0);
	t.max_steps = sw_json_get_int(a, "max_steps", 0);
	t.env = sw_json_get(a, "env");
	t.logmon = sw_json_get(a, "log_monitoring");
	t.ray = strcmp(kind, "ray") == 0;
	t.agent_install = strcmp(str_or(a, "elastic_agent", "install"),
	    "install") == 0;
	t.recipe = recipe_find(rname);

	/* Cross-field rules (the table checked each field alone). */
	if (t.recipe == NULL)
		sw_ferr_add(&r->ferrs, "recipe", "enum", "unknown recipe");
	else {
		if (!(t.recipe->kinds & (t.ray ? KIND_RAY : KIND_HPJ)))
			sw_ferr_add(&r->ferrs, "recipe", "kind", "recipe %s "
			    "does not run as kind %s", rname, kind);
		if (t.recipe->config == 2 && t.config == NULL)
			sw_ferr_add(&r->ferrs, "config", "required", "recipe "
			    "%s needs a config under /data/configs", rname);
		if (t.recipe->config == 0 && t.config != NULL)
			sw_ferr_add(&r->ferrs, "config", "recipe", "recipe "
			    "%s takes no config", rname);
		if (t.recipe->program != NULL && t.entry != NULL)
			sw_ferr_add(&r->ferrs, "entry", "recipe", "recipe "
			    "%s has its own program; entry is for pytorch",
			    rname);
	}
	if (t.ray && sw_json_get(a, "elastic_agent") != NULL)
		sw_ferr_add(&r->ferrs, "elastic_agent", "kind", "is for kind "
		    "hyperpod-pytorch; a RayJob runs no elastic agent");
	if (t.ray && t.logmon != NULL)
		sw_ferr_add(&r->ferrs, "log_monitoring", "kind", "is for kind "
		    "hyperpod-pytorch (the training operator watches logs)");
	check_log_pattern(r, t.logmon);
	check_env(r, t.env);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	t.own_image = sw_json_get(a, "image") != NULL;
	t.image = str_or(a, "image", t.ray ? t.recipe->ray_image :
	    t.recipe->image);

	if (kube_open(r, t.cluster, &kb) != SW_OK)
		return r->err;
	have = crd_present(r, &kb, t.ray ? CRD_RAYJOB : CRD_HPJ);
	if (have < 0)
		goto out;
	if (have == 0) {
		if (t.ray)
			need_feature(r, "kind", "kuberay", "KubeRay (RayJob)");
		else
			need_feature(r, "kind", "training_operator",
			    "the HyperPod training operator "
			    "(HyperPodPyTorchJob)");
		goto out;
	}
	e = get_obj(r, &kb, t.ray ? "ray.io/v1" : "sagemaker.amazonaws.com/v1",
	    t.ns, t.ray ? "rayjobs" : "hyperpodpytorchjobs", t.job, &existing);
	json_object_put(existing);
	if (e == SW_OK) {
		sw_ferr_add(&r->ferrs, "job_name", "unique", "job %s exists in "
		    "namespace %s", t.job, t.ns);
		sw_req_fail(r, SW_ECONFLICT, "training job %s exists; delete "
		    "it or pick another name", t.job);
		goto out;
	}
	if (e != SW_ENOTFOUND)
		goto out;
	list = json_object_new_array();
	if (storage_plan(r, &kb, t.cluster, t.ns, t.pvc,
	    sw_json_get(a, "pvc") != NULL, list) != SW_OK)
		goto out;
	if ((have = tiered_sa(r, &kb, t.ns)) < 0)
		goto out;
	t.sa = have ? TIERED_SA : NULL;
	m = t.ray ? rayjob_manifest(&t) : hpj_manifest(&t);
	if (m == NULL) {
		sw_req_fail(r, SW_EINTERNAL, "cannot build the entrypoint");
		goto out;
	}
	json_object_array_add(list, m);
	if (r->dry_run) {
		answer_plan(r, list, sw_jo("job", sw_js(t.job),
		    "service_account", t.sa ? sw_js(t.sa) : NULL, NULL));
		list = NULL;
		goto out;
	}
	{
		json_object *refs = json_object_new_array();
		char outdir[WL_MAX_WORD];

		if (apply_all(r, &kb, list, refs) != SW_OK) {
			json_object_put(refs);
			goto out;
		}
		snprintf(outdir, sizeof(outdir), "/data/outputs/%s", t.job);
		answer_applied(r, 201, sw_jo("job", sw_js(t.job),
		    "namespace", sw_js(t.ns),
		    "kind", sw_js(sw_json_get_str(m, "kind")),
		    "recipe", sw_js(rname), "image", sw_js(t.image),
		    "service_account", t.sa ? sw_js(t.sa) : NULL,
		    "output_dir", sw_js(outdir), NULL), refs);
	}
out:
	json_object_put(list);
	sw_kube_close(&kb);
	return r->err;
}

/* ---- finding jobs ----------------------------------------------------------- */

/* The kinds a "job" can be: what training_job_* look through. */
struct job_kind {
	const char	*api, *plural, *kind, *type;
};

static const struct job_kind job_kinds[] = {
	{ "sagemaker.amazonaws.com/v1", "hyperpodpytorchjobs",
	  "HyperPodPyTorchJob", "hyperpod-pytorch" },
	{ "ray.io/v1", "rayjobs", "RayJob", "ray" },
	{ "batch/v1", "jobs", "Job", "model-download" },
	{ NULL }
};

/* Top-level objects only: a RayJob's own submitter Job is not a job. */
static int
is_owned(json_object *o)
{
	json_object *refs = sw_json_path(o, "metadata.ownerReferences");

	return refs != NULL && json_object_array_length(refs) > 0;
}

/*
 * Find job (in ns, or in any namespace when ns is NULL) among the kinds
 * we create.  *obj is a new reference, *kind the row.  404/409 (more
 * than one namespace) fill the problem.
 */
static sw_err
job_find(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *job, json_object **obj, const struct job_kind **kind)
{
	char sel[128];
	const struct job_kind *k;
	json_object *items;
	size_t i;
	int found = 0;

	*obj = NULL;
	*kind = NULL;
	snprintf(sel, sizeof(sel), "%s=%s", WL_JOB, job);
	for (k = job_kinds; k->api != NULL; k++) {
		if (list_objs(r, kb, k->api, ns, k->plural, sel, &items) !=
		    SW_OK) {
			json_object_put(*obj);
			*obj = NULL;
			return r->err;
		}
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *o = json_object_array_get_idx(items, i);

			if (is_owned(o) || strcmp(sw_json_path_str(o,
			    "metadata.name"), job) != 0)
				continue;
			if (found++ == 0) {
				*obj = json_object_get(o);
				*kind = k;
			}
		}
		json_object_put(items);
	}
	if (found == 1)
		return SW_OK;
	json_object_put(*obj);
	*obj = NULL;
	if (found == 0)
		return sw_req_fail(r, SW_ENOTFOUND, "no training job or model "
		    "download %s%s%s", job, ns ? " in namespace " : "",
		    ns ? ns : "");
	sw_ferr_add(&r->ferrs, "namespace", "required", "job %s exists in "
	    "more than one namespace; name one", job);
	return sw_req_fail(r, SW_ECONFLICT, "job %s is ambiguous: give "
	    "namespace", job);
}

/* The last condition of o whose status is "True", or NULL. */
static const char *
last_true_condition(json_object *o)
{
	json_object *conds = sw_json_path(o, "status.conditions");
	const char *type = NULL;
	size_t i;

	for (i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *st = sw_json_get_str(c, "status");

		if (st != NULL && strcmp(st, "True") == 0)
			type = sw_json_get_str(c, "type");
	}
	return type;
}

/* Pending, Running, Succeeded or Failed from a job's own status. */
static const char *
job_state(const struct job_kind *k, json_object *o)
{
	const char *s;

	if (strcmp(k->kind, "HyperPodPyTorchJob") == 0) {
		s = last_true_condition(o);
		if (s == NULL)
			return "Pending";
		if (strcmp(s, "Completed") == 0 || strcmp(s, "Succeeded") == 0)
			return "Succeeded";
		if (strcmp(s, "Failed") == 0)
			return "Failed";
		if (strcmp(s, "Running") == 0)
			return "Running";
		return "Pending";
	}
	if (strcmp(k->kind, "RayJob") == 0) {
		s = sw_json_path_str(o, "status.jobStatus");
		if (s != NULL && strcmp(s, "SUCCEEDED") == 0)
			return "Succeeded";
		if ((s != NULL && (strcmp(s, "FAILED") == 0 ||
		    strcmp(s, "STOPPED") == 0)) || ((s = sw_json_path_str(o,
		    "status.jobDeploymentStatus")) != NULL &&
		    (strcmp(s, "Failed") == 0 ||
		    strcmp(s, "ValidationFailed") == 0)))
			return "Failed";
		s = sw_json_path_str(o, "status.jobStatus");
		return s != NULL && strcmp(s, "RUNNING") == 0 ? "Running" :
		    "Pending";
	}
	s = last_true_condition(o);
	if (s != NULL && strcmp(s, "Complete") == 0)
		return "Succeeded";
	if (s != NULL && strcmp(s, "Failed") == 0)
		return "Failed";
	return sw_json_path_str(o, "status.active") != NULL &&
	    json_object_get_int64(sw_json_path(o, "status.active")) > 0 ?
	    "Running" : "Pending";
}

static int
terminal(const char *state)
{
	return strcmp(state, "Succeeded") == 0 || strcmp(state, "Failed") == 0;
}

/* Does pod belong to the job: our label, or owned by the job itself? */
static int
pod_of(json_object *pod, const char *job, const char *uid)
{
	json_object *refs = sw_json_path(pod, "metadata.ownerReferences");
	size_t i;

	if (sw_json_get_str(sw_json_path(pod, "metadata.labels"), WL_JOB) &&
	    strcmp(sw_json_get_str(sw_json_path(pod, "metadata.labels"),
	    WL_JOB), job) == 0)
		return 1;
	for (i = 0; refs && uid && i < json_object_array_length(refs); i++)
		if (sw_json_get_str(json_object_array_get_idx(refs, i),
		    "uid") && strcmp(sw_json_get_str(
		    json_object_array_get_idx(refs, i), "uid"), uid) == 0)
			return 1;
	return 0;
}

static int
pod_cmp(const void *a, const void *b)
{
	json_object *const *pa = a, *const *pb = b;

	return strcmp(sw_json_path_str(*pa, "metadata.name"),
	    sw_json_path_str(*pb, "metadata.name"));
}

/* The job's pods, sorted by name.  *pods is a new array. */
static sw_err
job_pods(struct sw_req *r, struct sw_kube *kb, json_object *obj,
    json_object **pods)
{
	const char *ns = sw_json_path_str(obj, "metadata.namespace");
	const char *job = sw_json_path_str(obj, "metadata.name");
	const char *uid = sw_json_path_str(obj, "metadata.uid");
	json_object *items;
	size_t i;

	*pods = NULL;
	if (list_objs(r, kb, "v1", ns, "pods", NULL, &items) != SW_OK)
		return r->err;
	*pods = json_object_new_array();
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *p = json_object_array_get_idx(items, i);

		if (pod_of(p, job, uid))
			json_object_array_add(*pods, json_object_get(p));
	}
	json_object_put(items);
	json_object_array_sort(*pods, pod_cmp);
	return SW_OK;
}

/* One pod as answered. */
static json_object *
pod_summary(json_object *p)
{
	json_object *cs = sw_json_path(p, "status.containerStatuses[0]");
	static const char *const reasons[] = {
		"state.waiting.reason", "state.terminated.reason", NULL
	};
	static const char *const messages[] = {
		"lastState.terminated.message", "state.terminated.message",
		"state.waiting.message", NULL
	};
	const char *reason = NULL, *msg = NULL;
	int i;

	/* Why the first container is not running (CrashLoopBackOff after
	 * a StartError...), else the first condition's message. */
	for (i = 0; cs != NULL && reason == NULL && reasons[i] != NULL; i++)
		reason = sw_json_path_str(cs, reasons[i]);
	for (i = 0; cs != NULL && msg == NULL && messages[i] != NULL; i++)
		msg = sw_json_path_str(cs, messages[i]);
	if (msg == NULL)
		msg = sw_json_path_str(p, "status.conditions[0].message");
	return sw_jo(
	    "name", sw_js(sw_json_path_str(p, "metadata.name")),
	    "phase", sw_js(sw_json_path_str(p, "status.phase") ?
		sw_json_path_str(p, "status.phase") : "Pending"),
	    "node", sw_json_path_str(p, "spec.nodeName") ?
		sw_js(sw_json_path_str(p, "spec.nodeName")) : NULL,
	    "restarts", sw_ji(cs ? sw_json_get_int(cs, "restartCount", 0) : 0),
	    "reason", reason ? sw_js(reason) : NULL,
	    "message", msg ? sw_js(msg) : NULL, NULL);
}

/* One job as answered; pods (borrowed) may be NULL in lists. */
static json_object *
job_summary(const struct job_kind *k, json_object *o, json_object *pods)
{
	const char *state = job_state(k, o);
	json_object *out, *arr;
	size_t i;
	int running = 0;

	if (pods != NULL)
		for (i = 0; i < json_object_array_length(pods); i++) {
			const char *ph = sw_json_path_str(
			    json_object_array_get_idx(pods, i),
			    "status.phase");

			running += ph != NULL && strcmp(ph, "Running") == 0;
		}
	if (strcmp(state, "Pending") == 0 && running > 0)
		state = "Running";
	out = sw_jo(
	    "job", sw_js(sw_json_path_str(o, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(o, "metadata.namespace")),
	    "kind", sw_js(k->kind), "type", sw_js(k->type),
	    "state", sw_js(state), "terminal", sw_jb(terminal(state)),
	    "created", sw_js(sw_json_path_str(o,
		"metadata.creationTimestamp")),
	    NULL);
	if (pods != NULL) {
		arr = json_object_new_array();
		for (i = 0; i < json_object_array_length(pods); i++)
			json_object_array_add(arr, pod_summary(
			    json_object_array_get_idx(pods, i)));
		json_object_object_add(out, "pods", arr);
		json_object_object_add(out, "status", json_object_get(
		    sw_json_get(o, "status")));
	}
	return out;
}

sw_err
h_training_job_list(struct sw_req *r)
{
	const char *ns = sw_json_get_str(r->args, "namespace");
	char sel[64];
	const struct job_kind *k;
	json_object *out, *items;
	struct sw_kube kb;
	size_t i;

	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	out = json_object_new_array();
	snprintf(sel, sizeof(sel), "%s=slipway", WL_MANAGED);
	for (k = job_kinds; k->api != NULL; k++) {
		if (list_objs(r, &kb, k->api, ns, k->plural, sel, &items) !=
		    SW_OK)
			goto out;
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *o = json_object_array_get_idx(items, i);

			if (!is_owned(o) && sw_json_get_str(sw_json_path(o,
			    "metadata.labels"), WL_JOB) != NULL)
				json_object_array_add(out, job_summary(k, o,
				    NULL));
		}
		json_object_put(items);
	}
	sw_req_reply(r, 200, sw_jo("items", out, NULL));
	out = NULL;
out:
	json_object_put(out);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_training_job_get(struct sw_req *r)
{
	const struct job_kind *k;
	json_object *obj = NULL, *pods = NULL;
	struct sw_kube kb;

	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "job"), &obj, &k) == SW_OK &&
	    job_pods(r, &kb, obj, &pods) == SW_OK)
		sw_req_reply(r, 200, job_summary(k, obj, pods));
	json_object_put(obj);
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_training_job_delete(struct sw_req *r)
{
	const struct job_kind *k;
	json_object *obj = NULL, *pods = NULL, *refs;
	const char *ns, *job;
	char secret[128];
	struct sw_kube kb;
	size_t i;

	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "job"), &obj, &k) != SW_OK ||
	    job_pods(r, &kb, obj, &pods) != SW_OK)
		goto out;
	ns = sw_json_path_str(obj, "metadata.namespace");
	job = sw_json_path_str(obj, "metadata.name");
	snprintf(secret, sizeof(secret), "%s-hf-token", job);
	refs = sw_ja(sw_jo("kind", sw_js(k->kind), "name", sw_js(job),
	    "namespace", sw_js(ns), NULL));
	for (i = 0; i < json_object_array_length(pods); i++)
		json_object_array_add(refs, sw_jo("kind", sw_js("Pod"),
		    "name", sw_js(sw_json_path_str(json_object_array_get_idx(
			pods, i), "metadata.name")),
		    "namespace", sw_js(ns), NULL));
	if (strcmp(k->kind, "Job") == 0)
		json_object_array_add(refs, sw_jo("kind", sw_js("Secret"),
		    "name", sw_js(secret), "namespace", sw_js(ns), NULL));
	if (r->dry_run) {
		sw_req_reply(r, 200, sw_jo("dry_run", sw_jb(1), "deletes",
		    refs, NULL));
		goto out;
	}
	if (delete_obj(r, &kb, k->api, ns, k->plural, job) < 0) {
		json_object_put(refs);
		goto out;
	}
	/* Pods of a batch Job are orphaned by a plain DELETE: remove them
	 * (and the token Secret) ourselves. */
	for (i = 0; i < json_object_array_length(pods); i++)
		if (delete_obj(r, &kb, "v1", ns, "pods", sw_json_path_str(
		    json_object_array_get_idx(pods, i), "metadata.name")) < 0) {
			json_object_put(refs);
			goto out;
		}
	if (strcmp(k->kind, "Job") == 0 &&
	    delete_obj(r, &kb, "v1", ns, "secrets", secret) < 0) {
		json_object_put(refs);
		goto out;
	}
	sw_req_reply(r, 200, sw_jo("deleted", refs, "job", sw_js(job),
	    "namespace", sw_js(ns), NULL));
out:
	json_object_put(obj);
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}

/* ---- logs and metrics ----------------------------------------------------- */

struct metrics {
	long	step, max_steps;
	double	loss, tps, tps_sum;
	int	have_step, have_loss, have_tps, tps_n, lines;
};

/* The number after key in line, if any. */
static int
num_after(const char *line, const char *key, double *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (p == NULL)
		return 0;
	p += strlen(key);
	while (*p == ' ')
		p++;
	*v = strtod(p, &end);
	return end != p;
}

/*
 * Parse one line: "step N[/M]", "loss=X" or "loss: X", "tokens/s=Y"
 * or "throughput=Y"; the last values win, throughput is also averaged.
 */
static void
metrics_line(struct metrics *m, const char *line)
{
	const char *p = strstr(line, "step ");
	char *end;
	double v;
	long n;

	if (p != NULL && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
		n = strtol(p + 5, &end, 10);
		if (end != p + 5 && n >= 0) {
			m->step = n;
			m->have_step = 1;
			m->lines++;
			if (*end == '/') {
				n = strtol(end + 1, &end, 10);
				if (n > 0)
					m->max_steps = n;
			}
		}
	}
	if (num_after(line, "loss=", &v) || num_after(line, "loss:", &v)) {
		m->loss = v;
		m->have_loss = 1;
	}
	if (num_after(line, "tokens/s=", &v) ||
	    num_after(line, "throughput=", &v)) {
		m->tps = v;
		m->tps_sum += v;
		m->tps_n++;
		m->have_tps = 1;
	}
}

static json_object *
metrics_json(const struct metrics *m)
{
	if (!m->have_step && !m->have_loss && !m->have_tps)
		return NULL;
	return sw_jo(
	    "step", m->have_step ? sw_ji(m->step) : NULL,
	    "max_steps", m->max_steps > 0 ? sw_ji(m->max_steps) : NULL,
	    "progress", m->have_step && m->max_steps > 0 ?
		json_object_new_double((double)m->step /
		(double)m->max_steps) : NULL,
	    "loss", m->have_loss ? json_object_new_double(m->loss) : NULL,
	    "tokens_per_second", m->have_tps ?
		json_object_new_double(m->tps) : NULL,
	    "mean_tokens_per_second", m->tps_n > 0 ?
		json_object_new_double(m->tps_sum / m->tps_n) : NULL,
	    "samples", sw_ji(m->tps_n), NULL);
}

static int
log_chunk(void *arg, const char *data, size_t len)
{
	struct sw_buf *b = arg;

	return sw_buf_add(b, data, len) != SW_OK;
}

sw_err
h_training_job_logs(struct sw_req *r)
{
	const char *only = sw_json_get_str(r->args, "pod");
	long tail = (long)sw_json_get_int(r->args, "tail", 100);
	const struct job_kind *k;
	json_object *obj = NULL, *pods = NULL, *out_pods, *first = NULL;
	struct sw_kube kb;
	struct sw_buf b;
	size_t i;
	int read = 0;

	sw_buf_init(&b, WL_MAX_LOG_BYTES);
	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "job"), &obj, &k) != SW_OK ||
	    job_pods(r, &kb, obj, &pods) != SW_OK)
		goto out;
	out_pods = json_object_new_array();
	for (i = 0; i < json_object_array_length(pods) &&
	    read < WL_MAX_LOG_PODS; i++) {
		json_object *p = json_object_array_get_idx(pods, i), *lines;
		const char *pname = sw_json_path_str(p, "metadata.name");
		const char *phase = sw_json_path_str(p, "status.phase");
		struct k8s_error ke;
		struct metrics m;
		char *s, *nl;
		sw_err e;

		if (only != NULL && strcmp(only, pname) != 0)
			continue;
		if (phase == NULL || strcmp(phase, "Pending") == 0)
			continue;
		read++;
		sw_buf_reset(&b);
		memset(&ke, 0, sizeof(ke));
		e = k8s_logs(&kb.k, sw_json_path_str(p, "metadata.namespace"),
		    pname, NULL, 0, tail, WL_LOG_TIMEOUT, log_chunk, &b, &ke);
		lines = json_object_new_array();
		memset(&m, 0, sizeof(m));
		for (s = b.len > 0 ? b.data : NULL;
		    s != NULL && *s != '\0'; s = nl ? nl + 1 : NULL) {
			if ((nl = strchr(s, '\n')) != NULL) {
				*nl = '\0';
				if (nl > s && nl[-1] == '\r')
					nl[-1] = '\0';
			}
			json_object_array_add(lines, sw_js(s));
			metrics_line(&m, s);
		}
		json_object_array_add(out_pods, sw_jo(
		    "pod", sw_js(pname), "phase", sw_js(phase),
		    "lines", lines, "truncated", sw_jb(b.len >=
			WL_MAX_LOG_BYTES),
		    "error", e != SW_OK ? sw_js(ke.message[0] ? ke.message :
			"cannot read the log") : NULL,
		    "metrics", metrics_json(&m), NULL));
		if (first == NULL)
			first = metrics_json(&m);
	}
	if (only != NULL && read == 0) {
		json_object_put(out_pods);
		sw_req_fail(r, SW_ENOTFOUND, "no started pod %s in job %s",
		    only, sw_json_get_str(r->args, "job"));
		goto out;
	}
	sw_req_reply(r, 200, sw_jo(
	    "job", sw_js(sw_json_path_str(obj, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(obj, "metadata.namespace")),
	    "state", sw_js(job_state(k, obj)), "tail", sw_ji(tail),
	    "pods", out_pods, "metrics", first, NULL));
	first = NULL;
out:
	json_object_put(first);
	json_object_put(obj);
	json_object_put(pods);
	sw_buf_free(&b);
	sw_kube_close(&kb);
	return r->err;
}

/* ---- model download -------------------------------------------------------- */

/* What a dry run shows instead of the token: applicable as written. */
#define TOKEN_PLACEHOLDER	"REPLACE-WITH-HUGGING-FACE-TOKEN"

/*
 * The downloader: a fixed Python program; the model id, target,
 * revision and worker count arrive as argv, the token as HF_TOKEN from
 * the Secret.  Nothing the user sends is ever parsed by a shell.
 */
static const char download_py[] =
	"import os, subprocess, sys\n"
	"subprocess.check_call([sys.executable, '-m', 'pip', 'install', "
	"'-q', 'huggingface_hub>=0.34'])\n"
	"from huggingface_hub import snapshot_download\n"
	"repo, dest, rev, workers = sys.argv[1:5]\n"
	"os.makedirs(dest, exist_ok=True)\n"
	"print('downloading', repo, 'revision', rev, 'to', dest, "
	"flush=True)\n"
	"path = snapshot_download(repo_id=repo, revision=rev, local_dir=dest,"
	" max_workers=int(workers), token=os.environ.get('HF_TOKEN') or "
	"None)\n"
	"print('downloaded', repo, 'to', path, flush=True)\n";

/* "dl-<model name, lower-cased and cut>-<5 random hex>". */
static void
download_job_name(const char *model_id, char *out, size_t outsz)
{
	const char *base = strrchr(model_id, '/');
	unsigned char rnd[3];
	char part[40];
	size_t i, n = 0;

	base = base ? base + 1 : model_id;
	for (i = 0; base[i] != '\0' && n < 38; i++) {
		char c = base[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '-';
		if (c == '-' && (n == 0 || part[n - 1] == '-'))
			continue;
		part[n++] = c;
	}
	while (n > 0 && part[n - 1] == '-')
		n--;
	part[n] = '\0';
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		memset(rnd, 0, sizeof(rnd));
	snprintf(out, outsz, "dl-%s%s%02x%02x%x", part, n ? "-" : "", rnd[0],
	    rnd[1], rnd[2] & 0xf);
}

sw_err
h_model_download(struct sw_req *r)
{
	json_object *a = r->args, *list = NULL, *job = NULL, *applied = NULL;
	const char *cluster = sw_json_get_str(a, "name");
	const char *model = sw_json_get_str(a, "model_id");
	const char *ns = str_or(a, "namespace", "slipway-models");
	const char *pvc = str_or(a, "pvc", "s3-claim");
	const char *token = sw_json_get_str(a, "hf_token");
	const char *target = sw_json_get_str(a, "target");
	char name[64], dest[WL_MAX_WORD], secret[96], workers[16];
	json_object *env, *refs, *existing = NULL;
	struct sw_kube kb;
	sw_err e;

	if (sw_json_get_str(a, "job_name") != NULL)
		snprintf(name, sizeof(name), "%s",
		    sw_json_get_str(a, "job_name"));
	else
		download_job_name(model, name, sizeof(name));
	if (target == NULL)
		target = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
	if (strcmp(target, ".") == 0 || strcmp(target, "..") == 0 ||
	    target[0] == '.') {
		sw_ferr_add(&r->ferrs, "target", "pattern", "must not start "
		    "with a dot");
		return sw_req_fail(r, SW_EINVAL, "target: must not start "
		    "with a dot");
	}
	snprintf(dest, sizeof(dest), "/data/models/%s", target);
	snprintf(secret, sizeof(secret), "%s-hf-token", name);
	snprintf(workers, sizeof(workers), "%lld",
	    (long long)sw_json_get_int(a, "max_workers", 8));

	if (kube_open(r, cluster, &kb) != SW_OK)
		return r->err;
	e = get_obj(r, &kb, "batch/v1", ns, "jobs", name, &existing);
	json_object_put(existing);
	if (e == SW_OK) {
		sw_ferr_add(&r->ferrs, "job_name", "unique", "job %s exists in "
		    "namespace %s", name, ns);
		sw_req_fail(r, SW_ECONFLICT, "job %s exists", name);
		goto out;
	}
	if (e != SW_ENOTFOUND)
		goto out;
	list = json_object_new_array();
	if (storage_plan(r, &kb, cluster, ns, pvc, sw_json_get(a, "pvc") !=
	    NULL, list) != SW_OK)
		goto out;
	env = sw_ja(env_var("HF_HOME", "/tmp/hf-home"),
	    env_var("HF_HUB_DISABLE_TELEMETRY", "1"));
	if (token != NULL)
		json_object_array_add(env, sw_jo("name", sw_js("HF_TOKEN"),
		    "valueFrom", sw_jo("secretKeyRef", sw_jo(
			"name", sw_js(secret), "key", sw_js("token"), NULL),
			NULL), NULL));
	job = sw_jo(
	    "apiVersion", sw_js("batch/v1"), "kind", sw_js("Job"),
	    "metadata", sw_jo("name", sw_js(name), "namespace", sw_js(ns),
		"labels", job_labels(name), "annotations", sw_jo(
		    "slipway.dev/model-id", sw_js(model),
		    "slipway.dev/target", sw_js(dest), NULL), NULL),
	    "spec", sw_jo(
		"backoffLimit", sw_ji(2),
		"template", sw_jo(
		    "metadata", sw_jo("labels", job_labels(name), NULL),
		    "spec", sw_jo(
			"restartPolicy", sw_js("Never"),
			"containers", sw_ja(sw_jo(
			    "name", sw_js("download"),
			    "image", sw_js(str_or(a, "image",
				"python:3.12-slim")),
			    "command", sw_ja(sw_js("python3"), sw_js("-c"),
				sw_js(download_py), sw_js(model), sw_js(dest),
				sw_js(str_or(a, "revision", "main")),
				sw_js(workers)),
			    "env", env,
			    "resources", sw_jo("requests", sw_jo(
				"cpu", sw_js("2"), "memory", sw_js("4Gi"),
				NULL), NULL),
			    "volumeMounts", sw_ja(sw_jo("name", sw_js("data"),
				"mountPath", sw_js("/data"), NULL)),
			    NULL)),
			"volumes", sw_ja(sw_jo("name", sw_js("data"),
			    "persistentVolumeClaim", sw_jo("claimName",
				sw_js(pvc), NULL), NULL)), NULL), NULL),
		NULL), NULL);
	if (r->dry_run) {
		json_object_array_add(list, job);
		job = NULL;
		if (token != NULL)
			json_object_array_add(list, sw_jo(
			    "apiVersion", sw_js("v1"), "kind", sw_js("Secret"),
			    "metadata", sw_jo("name", sw_js(secret),
				"namespace", sw_js(ns), NULL),
			    "type", sw_js("Opaque"),
			    "stringData", sw_jo("token",
				sw_js(TOKEN_PLACEHOLDER), NULL), NULL));
		answer_plan(r, list, sw_jo("job", sw_js(name), "target",
		    sw_js(dest), NULL));
		list = NULL;
		goto out;
	}
	refs = json_object_new_array();
	if (apply_all(r, &kb, list, refs) != SW_OK ||
	    apply_one(r, &kb, job, &applied) != SW_OK) {
		json_object_put(refs);
		goto out;
	}
	json_object_array_add(refs, manifest_ref(job));
	if (token != NULL) {
		/* The Secret is owned by the Job: deleting one deletes both.
		 * The token is base64'd straight into the manifest and the
		 * manifest is freed after the call. */
		size_t tl = strlen(token);
		char *b64 = calloc(1, 4 * ((tl + 2) / 3) + 1);
		json_object *sec;

		if (b64 == NULL) {
			json_object_put(refs);
			sw_req_fail(r, SW_ENOMEM, "out of memory");
			goto out;
		}
		EVP_EncodeBlock((unsigned char *)b64,
		    (const unsigned char *)token, (int)tl);
		sec = sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Secret"),
		    "metadata", sw_jo("name", sw_js(secret), "namespace",
			sw_js(ns), "labels", job_labels(name),
			"ownerReferences", sw_ja(sw_jo(
			    "apiVersion", sw_js("batch/v1"),
			    "kind", sw_js("Job"), "name", sw_js(name),
			    "uid", sw_js(sw_json_path_str(applied,
				"metadata.uid")), NULL)), NULL),
		    "type", sw_js("Opaque"),
		    "data", sw_jo("token", sw_js(b64), NULL), NULL);
		OPENSSL_cleanse(b64, strlen(b64));
		free(b64);
		e = apply_one(r, &kb, sec, NULL);
		json_object_put(sec);
		if (e != SW_OK) {
			json_object_put(refs);
			goto out;
		}
		json_object_array_add(refs, sw_jo("kind", sw_js("Secret"),
		    "name", sw_js(secret), "namespace", sw_js(ns), NULL));
	}
	answer_applied(r, 201, sw_jo("job", sw_js(name), "namespace",
	    sw_js(ns), "model_id", sw_js(model), "target", sw_js(dest),
	    "token_secret", token ? sw_js(secret) : NULL, NULL), refs);
out:
	json_object_put(list);
	json_object_put(job);
	json_object_put(applied);
	sw_kube_close(&kb);
	return r->err;
}

/* ---- inference ------------------------------------------------------------- */

/* An engine: image, port, argv and its Prometheus metrics (facts §5-6). */
struct engine {
	const char	*name, *image;
	int		 port;
	const char	*m_queue, *m_running, *m_kv;
};

static const struct engine engines[] = {
	{ "vllm", "vllm/vllm-openai:v0.10.2", 8000,
	  "vllm:num_requests_waiting", "vllm:num_requests_running",
	  "vllm:kv_cache_usage_perc" },
	{ "sglang", "lmsysorg/sglang:v0.5.2-cu126", 30000,
	  "sglang:num_queue_reqs", "sglang:num_running_reqs",
	  "sglang:token_usage" },
	{ NULL }
};

#define ROUTER_IMAGE	"lmsysorg/sgl-model-gateway:latest"
#define ROUTER_PORT	30000

static json_object *
inf_labels(const char *name, const char *role, const char *engine)
{
	return sw_jo(WL_MANAGED, sw_js("slipway"), WL_INF, sw_js(name),
	    WL_ROLE, sw_js(role), WL_ENGINE, engine ? sw_js(engine) : NULL,
	    NULL);
}

static json_object *
inf_selector(const char *name, const char *role)
{
	return sw_jo(WL_INF, sw_js(name), WL_ROLE, sw_js(role), NULL);
}

static json_object *
engine_argv(const struct engine *en, const char *model, const char *served,
    int64_t gpus)
{
	char path[WL_MAX_WORD], tp[16], port[16];

	snprintf(path, sizeof(path), "/data/models/%s", model);
	snprintf(tp, sizeof(tp), "%lld", (long long)gpus);
	snprintf(port, sizeof(port), "%d", en->port);
	if (strcmp(en->name, "vllm") == 0)
		return sw_ja(sw_js("vllm"), sw_js("serve"), sw_js(path),
		    sw_js("--host"), sw_js("0.0.0.0"), sw_js("--port"),
		    sw_js(port), sw_js("--tensor-parallel-size"), sw_js(tp),
		    sw_js("--served-model-name"), sw_js(served));
	return sw_ja(sw_js("python3"), sw_js("-m"),
	    sw_js("sglang.launch_server"), sw_js("--model-path"), sw_js(path),
	    sw_js("--host"), sw_js("0.0.0.0"), sw_js("--port"), sw_js(port),
	    sw_js("--tp-size"), sw_js(tp), sw_js("--served-model-name"),
	    sw_js(served), sw_js("--enable-metrics"));
}

static json_object *
http_probe(int port, int period, int failures)
{
	return sw_jo("httpGet", sw_jo("path", sw_js("/health"), "port",
	    sw_ji(port), NULL), "periodSeconds", sw_ji(period),
	    "failureThreshold", sw_ji(failures), NULL);
}

static json_object *
meta(const char *name, const char *ns, json_object *labels)
{
	return sw_jo("name", sw_js(name), "namespace", sw_js(ns), "labels",
	    labels, NULL);
}

/*
 * Autoscaling rules the field table cannot say.  min_replicas 0: the
 * trigger's metric is scraped from the server pods, so at zero replicas
 * no series exists, the query is empty and KEDA never activates the
 * endpoint again.  kv-cache usage is a 0-1 fraction, so its threshold
 * is one; queue and running count requests, so theirs are whole >= 1.
 */
static void
check_autoscaling(struct sw_req *r, json_object *as)
{
	const char *metric = str_or(as, "metric", "queue");
	json_object *th = sw_json_get(as, "threshold");
	double v = th != NULL ? json_object_get_double(th) : 0;

	if (sw_json_get(as, "min_replicas") != NULL &&
	    sw_json_get_int(as, "min_replicas", 1) == 0)
		sw_ferr_add(&r->ferrs, "autoscaling.min_replicas",
		    "scale-to-zero", "must be at least 1: the %s metric comes "
		    "from the server pods, so an endpoint at 0 replicas "
		    "reports nothing and never scales up again", metric);
	if (th == NULL)
		return;
	if (strcmp(metric, "kv-cache") == 0) {
		if (!(v > 0 && v < 1))
			sw_ferr_add(&r->ferrs, "autoscaling.threshold",
			    "fraction", "kv-cache usage is a fraction of the "
			    "cache: give a threshold between 0 and 1, e.g. "
			    "0.8");
	} else if (v < 1 || v != (double)(int64_t)v)
		sw_ferr_add(&r->ferrs, "autoscaling.threshold", "integer",
		    "%s counts requests: give a whole number of at least 1",
		    metric);
}

/*
 * A LoadBalancer Service needs the AWS Load Balancer Controller: ensure
 * it (pipelines/lbc.c) before the Service goes in.  *state (new) says
 * "deployed" or "installing" with the step's message; a refusal fails
 * the request with helm's or AWS's own words.
 */
static sw_err
lb_controller(struct sw_req *r, struct sw_kube *kb, const char *cluster,
    json_object **state)
{
	struct sw_step s;
	enum sw_step_rc rc;

	*state = NULL;
	memset(&s, 0, sizeof(s));
	s.aws = h_aws(r);
	s.cfg = r->cfg;
	s.stage = "inference";
	s.params = r->args;
	s.res = json_object_new_object();
	rc = sw_lbc_ensure(&s, kb, cluster);
	json_object_put(s.res);
	if (rc == STEP_FAIL)
		return sw_req_fail(r, SW_EUPSTREAM, "AWS Load Balancer "
		    "Controller: %s", s.msg);
	*state = sw_jo("status", sw_js(rc == STEP_DONE ? "deployed" :
	    "installing"), "detail", s.msg[0] ? sw_js(s.msg) : NULL, NULL);
	return SW_OK;
}

sw_err
h_inference_deploy(struct sw_req *r)
{
	json_object *a = r->args, *list = NULL, *as = sw_json_get(a,
	    "autoscaling"), *svc_meta, *refs;
	const char *cluster = sw_json_get_str(a, "name");
	const char *name = sw_json_get_str(a, "endpoint_name");
	const char *ename = sw_json_get_str(a, "engine");
	const char *model = sw_json_get_str(a, "model");
	const char *ns = str_or(a, "namespace", "default");
	const char *exposure = str_or(a, "exposure", "service");
	int router = sw_json_get_bool(a, "router", 0);
	int64_t gpus = sw_json_get_int(a, "gpus_per_replica", 1);
	int64_t replicas = sw_json_get_int(a, "replicas", 1);
	const struct engine *en;
	json_object *lbc = NULL;
	char rname[64];
	struct sw_kube kb;
	int have;

	for (en = engines; en->name != NULL; en++)
		if (strcmp(en->name, ename) == 0)
			break;
	if (router && strcmp(ename, "sglang") != 0)
		sw_ferr_add(&r->ferrs, "router", "engine", "the SGLang router "
		    "fronts sglang servers only");
	if (as != NULL && sw_json_get_int(as, "min_replicas", 1) >
	    sw_json_get_int(as, "max_replicas", 1))
		sw_ferr_add(&r->ferrs, "autoscaling.min_replicas", "range",
		    "must not exceed max_replicas");
	if (as != NULL && sw_json_get(a, "replicas") != NULL)
		sw_ferr_add(&r->ferrs, "replicas", "autoscaling", "the "
		    "autoscaler sets replicas; give autoscaling.min_replicas");
	if (as != NULL)
		check_autoscaling(r, as);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	snprintf(rname, sizeof(rname), "%s-router", name);

	if (kube_open(r, cluster, &kb) != SW_OK)
		return r->err;
	if (as != NULL) {
		if ((have = crd_present(r, &kb, CRD_SCALEDOBJ)) < 0)
			goto out;
		if (have == 0) {
			need_feature(r, "autoscaling", "inference_operator",
			    "KEDA (ScaledObject; bundled with the HyperPod "
			    "inference operator)");
			goto out;
		}
	}
	list = json_object_new_array();
	if (storage_plan(r, &kb, cluster, ns, str_or(a, "pvc", "s3-claim"),
	    sw_json_get(a, "pvc") != NULL, list) != SW_OK)
		goto out;
	json_object_array_add(list, sw_jo(
	    "apiVersion", sw_js("apps/v1"), "kind", sw_js("Deployment"),
	    "metadata", meta(name, ns, inf_labels(name, "server", en->name)),
	    "spec", sw_jo(
		"replicas", as == NULL ? sw_ji(replicas) : NULL,
		"selector", sw_jo("matchLabels", inf_selector(name, "server"),
		    NULL),
		"template", sw_jo(
		    "metadata", sw_jo("labels", inf_labels(name, "server",
			en->name), NULL),
		    "spec", sw_jo(
			"containers", sw_ja(sw_jo(
			    "name", sw_js(en->name),
			    "image", sw_js(str_or(a, "image", en->image)),
			    "command", engine_argv(en, model, str_or(a,
				"served_model_name", model), gpus),
			    "ports", sw_ja(sw_jo("name", sw_js("http"),
				"containerPort", sw_ji(en->port), NULL)),
			    "resources", accel_resources(gpus, 0),
			    "startupProbe", http_probe(en->port, 10, 180),
			    "readinessProbe", http_probe(en->port, 10, 3),
			    "volumeMounts", data_mounts(1), NULL)),
			"volumes", data_volumes(str_or(a, "pvc", "s3-claim"),
			    1),
			"nodeSelector", node_selector(sw_json_get_str(a,
			    "instance_type")),
			"tolerations", gpu_tolerations(), NULL), NULL),
		NULL), NULL));
	if (router) {
		char sel[160], port[16];

		snprintf(sel, sizeof(sel), "%s=%s", WL_INF, name);
		snprintf(port, sizeof(port), "%d", en->port);
		json_object_array_add(list, sw_jo(
		    "apiVersion", sw_js("v1"), "kind", sw_js("ServiceAccount"),
		    "metadata", meta(rname, ns, inf_labels(name, "router",
			NULL)), NULL));
		json_object_array_add(list, sw_jo(
		    "apiVersion", sw_js("rbac.authorization.k8s.io/v1"),
		    "kind", sw_js("Role"),
		    "metadata", meta(rname, ns, inf_labels(name, "router",
			NULL)),
		    "rules", sw_ja(sw_jo("apiGroups", sw_ja(sw_js("")),
			"resources", sw_ja(sw_js("pods")),
			"verbs", sw_ja(sw_js("get"), sw_js("list"),
			    sw_js("watch")), NULL)), NULL));
		json_object_array_add(list, sw_jo(
		    "apiVersion", sw_js("rbac.authorization.k8s.io/v1"),
		    "kind", sw_js("RoleBinding"),
		    "metadata", meta(rname, ns, inf_labels(name, "router",
			NULL)),
		    "roleRef", sw_jo("apiGroup",
			sw_js("rbac.authorization.k8s.io"), "kind",
			sw_js("Role"), "name", sw_js(rname), NULL),
		    "subjects", sw_ja(sw_jo("kind", sw_js("ServiceAccount"),
			"name", sw_js(rname), "namespace", sw_js(ns), NULL)), NULL));
		json_object_array_add(list, sw_jo(
		    "apiVersion", sw_js("apps/v1"), "kind", sw_js("Deployment"),
		    "metadata", meta(rname, ns, inf_labels(name, "router",
			NULL)),
		    "spec", sw_jo("replicas", sw_ji(1),
			"selector", sw_jo("matchLabels", inf_selector(name,
			    "router"), NULL),
			"template", sw_jo(
			    "metadata", sw_jo("labels", inf_labels(name,
				"router", NULL), NULL),
			    "spec", sw_jo("serviceAccountName", sw_js(rname),
				"containers", sw_ja(sw_jo(
				"name", sw_js("router"),
				"image", sw_js(ROUTER_IMAGE),
				"command", sw_ja(sw_js("python3"), sw_js("-m"),
				    sw_js("sglang_router.launch_router"),
				    sw_js("--host"), sw_js("0.0.0.0"),
				    sw_js("--port"), sw_js("30000"),
				    sw_js("--service-discovery"),
				    sw_js("--selector"), sw_js(sel),
				    sw_js("slipway.dev/role=server"),
				    sw_js("--service-discovery-namespace"),
				    sw_js(ns),
				    sw_js("--service-discovery-port"),
				    sw_js(port), sw_js("--policy"),
				    sw_js("cache_aware")),
				"ports", sw_ja(sw_jo("name", sw_js("http"),
				    "containerPort", sw_ji(ROUTER_PORT), NULL)), NULL)), NULL), NULL), NULL),
		    NULL));
	}
	svc_meta = meta(name, ns, inf_labels(name, "service", en->name));
	if (strcmp(exposure, "load-balancer") == 0)
		json_object_object_add(svc_meta, "annotations", sw_jo(
		    "service.beta.kubernetes.io/aws-load-balancer-type",
		    sw_js("external"),
		    "service.beta.kubernetes.io/aws-load-balancer-nlb-target-"
		    "type", sw_js("ip"),
		    "service.beta.kubernetes.io/aws-load-balancer-scheme",
		    sw_js("internal"), NULL));
	json_object_array_add(list, sw_jo(
	    "apiVersion", sw_js("v1"), "kind", sw_js("Service"),
	    "metadata", svc_meta,
	    "spec", sw_jo(
		"type", sw_js(strcmp(exposure, "load-balancer") == 0 ?
		    "LoadBalancer" : "ClusterIP"),
		"selector", inf_selector(name, router ? "router" : "server"),
		"ports", sw_ja(sw_jo("name", sw_js("http"), "port", sw_ji(80),
		    "targetPort", sw_ji(router ? ROUTER_PORT : en->port),
		    "protocol", sw_js("TCP"), NULL)), NULL), NULL));
	if (as != NULL) {
		const char *metric = str_or(as, "metric", "queue");
		json_object *th = sw_json_get(as, "threshold");
		int kv = strcmp(metric, "kv-cache") == 0;
		char query[512], thr[32];

		/*
		 * Exactly this endpoint's server pods: a Deployment's pods
		 * are <name>-<template hash>-<5 chars>, two dash-free parts
		 * (PromQL anchors =~), so neither <name>-router nor another
		 * endpoint <name>-x can match.
		 */
		if ((size_t)snprintf(query, sizeof(query), "sum(%s{namespace="
		    "\"%s\",pod=~\"%s-[a-z0-9]{1,10}-[a-z0-9]{5}\"})",
		    strcmp(metric, "running") == 0 ? en->m_running : kv ?
		    en->m_kv : en->m_queue, ns, name) >= sizeof(query)) {
			sw_req_fail(r, SW_EINTERNAL, "query too long");
			goto out;
		}
		if (th != NULL && kv)
			snprintf(thr, sizeof(thr), "%g",
			    json_object_get_double(th));
		else if (th != NULL)
			snprintf(thr, sizeof(thr), "%lld",
			    (long long)json_object_get_double(th));
		else
			snprintf(thr, sizeof(thr), "%s", kv ? "0.8" : "8");
		json_object_array_add(list, sw_jo(
		    "apiVersion", sw_js("keda.sh/v1alpha1"),
		    "kind", sw_js("ScaledObject"),
		    "metadata", meta(name, ns, inf_labels(name, "autoscaler",
			NULL)),
		    "spec", sw_jo(
			"scaleTargetRef", sw_jo("name", sw_js(name), NULL),
			"minReplicaCount", sw_ji(sw_json_get_int(as,
			    "min_replicas", 1)),
			"maxReplicaCount", sw_ji(sw_json_get_int(as,
			    "max_replicas", 1)),
			"pollingInterval", sw_ji(30),
			"cooldownPeriod", sw_ji(300),
			"triggers", sw_ja(sw_jo("type", sw_js("prometheus"),
			    "metadata", sw_jo(
				"serverAddress", sw_js(sw_json_get_str(as,
				    "prometheus_url")),
				"query", sw_js(query),
				"threshold", sw_js(thr), NULL), NULL)),
			NULL), NULL));
	}
	if (r->dry_run) {
		answer_plan(r, list, sw_jo("endpoint", sw_js(name), NULL));
		list = NULL;
		goto out;
	}
	if (strcmp(exposure, "load-balancer") == 0 &&
	    lb_controller(r, &kb, cluster, &lbc) != SW_OK)
		goto out;
	refs = json_object_new_array();
	if (apply_all(r, &kb, list, refs) != SW_OK) {
		json_object_put(refs);
		goto out;
	}
	answer_applied(r, 200, sw_jo("endpoint", sw_js(name), "namespace",
	    sw_js(ns), "engine", sw_js(en->name), "load_balancer_controller",
	    json_object_get(lbc), NULL), refs);
out:
	json_object_put(lbc);
	json_object_put(list);
	sw_kube_close(&kb);
	return r->err;
}

/* The server Deployment of endpoint name (in ns or any).  New ref. */
static sw_err
inf_find(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *name, json_object **dep)
{
	char sel[160];
	json_object *items;
	size_t n;

	*dep = NULL;
	snprintf(sel, sizeof(sel), "%s=%s,%s=server", WL_INF, name, WL_ROLE);
	if (list_objs(r, kb, "apps/v1", ns, "deployments", sel, &items) !=
	    SW_OK)
		return r->err;
	n = json_object_array_length(items);
	if (n == 1)
		*dep = json_object_get(json_object_array_get_idx(items, 0));
	json_object_put(items);
	if (n == 1)
		return SW_OK;
	if (n == 0)
		return sw_req_fail(r, SW_ENOTFOUND, "no inference endpoint %s",
		    name);
	sw_ferr_add(&r->ferrs, "namespace", "required", "endpoint %s exists "
	    "in more than one namespace; name one", name);
	return sw_req_fail(r, SW_ECONFLICT, "endpoint %s is ambiguous", name);
}

/* One endpoint as answered; svc (may be NULL) is its Service. */
static json_object *
inf_summary(json_object *dep, json_object *svc)
{
	int64_t want = sw_json_get_int(sw_json_get(dep, "spec"), "replicas",
	    1);
	int64_t ready = sw_json_get_int(sw_json_get(dep, "status"),
	    "readyReplicas", 0);
	int64_t avail = sw_json_get_int(sw_json_get(dep, "status"),
	    "availableReplicas", 0);
	const char *host = NULL;
	json_object *service = NULL;
	char url[320];

	if (svc != NULL) {
		host = sw_json_path_str(svc, "status.loadBalancer.ingress[0]."
		    "hostname");
		if (host == NULL)
			host = sw_json_path_str(svc,
			    "status.loadBalancer.ingress[0].ip");
		if (host == NULL)
			host = sw_json_path_str(svc, "spec.clusterIP");
		snprintf(url, sizeof(url), "http://%s:%lld", host ? host : "",
		    (long long)sw_json_get_int(sw_json_path(svc,
		    "spec.ports[0]"), "port", 80));
		service = sw_jo(
		    "name", sw_js(sw_json_path_str(svc, "metadata.name")),
		    "type", sw_js(sw_json_path_str(svc, "spec.type")),
		    "cluster_ip", sw_json_path_str(svc, "spec.clusterIP") ?
			sw_js(sw_json_path_str(svc, "spec.clusterIP")) : NULL,
		    "url", host ? sw_js(url) : NULL, NULL);
	}
	return sw_jo(
	    "endpoint", sw_js(sw_json_path_str(dep, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(dep, "metadata.namespace")),
	    "engine", sw_json_get_str(sw_json_path(dep, "metadata.labels"),
		WL_ENGINE) ? sw_js(sw_json_get_str(sw_json_path(dep,
		"metadata.labels"), WL_ENGINE)) : NULL,
	    "image", sw_json_path_str(dep,
		"spec.template.spec.containers[0].image") ?
		sw_js(sw_json_path_str(dep,
		"spec.template.spec.containers[0].image")) : NULL,
	    "replicas", sw_ji(want), "ready_replicas", sw_ji(ready),
	    "available_replicas", sw_ji(avail),
	    "ready", sw_jb(ready >= want && want > 0),
	    "service", service, NULL);
}

sw_err
h_inference_list(struct sw_req *r)
{
	char sel[64];
	json_object *items = NULL, *out;
	struct sw_kube kb;
	size_t i;

	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	snprintf(sel, sizeof(sel), "%s=server", WL_ROLE);
	if (list_objs(r, &kb, "apps/v1", sw_json_get_str(r->args,
	    "namespace"), "deployments", sel, &items) == SW_OK) {
		out = json_object_new_array();
		for (i = 0; i < json_object_array_length(items); i++)
			json_object_array_add(out, inf_summary(
			    json_object_array_get_idx(items, i), NULL));
		sw_req_reply(r, 200, sw_jo("items", out, NULL));
	}
	json_object_put(items);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_inference_get(struct sw_req *r)
{
	json_object *dep = NULL, *svc = NULL;
	struct sw_kube kb;
	sw_err e;

	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (inf_find(r, &kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "endpoint"), &dep) == SW_OK) {
		e = get_obj(r, &kb, "v1", sw_json_path_str(dep,
		    "metadata.namespace"), "services", sw_json_path_str(dep,
		    "metadata.name"), &svc);
		if (e == SW_OK || e == SW_ENOTFOUND)
			sw_req_reply(r, 200, inf_summary(dep, svc));
	}
	json_object_put(dep);
	json_object_put(svc);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_inference_delete(struct sw_req *r)
{
	static const struct {
		const char *api, *plural, *kind;
		int router;
	} parts[] = {
		{ "keda.sh/v1alpha1", "scaledobjects", "ScaledObject", 0 },
		{ "v1", "services", "Service", 0 },
		{ "apps/v1", "deployments", "Deployment", 1 },
		{ "rbac.authorization.k8s.io/v1", "rolebindings",
		  "RoleBinding", 1 },
		{ "rbac.authorization.k8s.io/v1", "roles", "Role", 1 },
		{ "v1", "serviceaccounts", "ServiceAccount", 1 },
		{ "apps/v1", "deployments", "Deployment", 0 },
	};
	json_object *dep = NULL, *refs = NULL;
	const char *ns, *name;
	char rname[64];
	struct sw_kube kb;
	size_t i;
	int d;

	if (kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (inf_find(r, &kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "endpoint"), &dep) != SW_OK)
		goto out;
	ns = sw_json_path_str(dep, "metadata.namespace");
	name = sw_json_path_str(dep, "metadata.name");
	snprintf(rname, sizeof(rname), "%s-router", name);
	refs = json_object_new_array();
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *n = parts[i].router ? rname : name;

		if (r->dry_run)
			d = 1;
		else if ((d = delete_obj(r, &kb, parts[i].api, ns,
		    parts[i].plural, n)) < 0)
			goto out;
		if (d > 0)
			json_object_array_add(refs, sw_jo("kind",
			    sw_js(parts[i].kind), "name", sw_js(n),
			    "namespace", sw_js(ns), NULL));
	}
	sw_req_reply(r, 200, sw_jo(r->dry_run ? "deletes" : "deleted", refs,
	    "dry_run", r->dry_run ? sw_jb(1) : NULL, "endpoint", sw_js(name),
	    NULL));
	refs = NULL;
out:
	json_object_put(refs);
	json_object_put(dep);
	sw_kube_close(&kb);
	return r->err;
}
