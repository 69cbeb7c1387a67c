/*
 * training.c: training_job_submit, a HyperPodPyTorchJob or a KubeRay
 * RayJob from a recipe (handlers/workloads.c).  The job's argv is the
 * recipe's program with the S3 contract's paths as options
 * (handlers/kube.c mounts the PVC at /data); the environment carries
 * the same paths, MLflow and the user's variables.  Reading, listing
 * and deleting jobs is handlers/jobs.c, their logs handlers/logs.c.
 *
 * Manifests are built as JSON trees (never by text substitution) from
 * validated fields.  Containers get argv arrays; the one string command
 * is a RayJob entrypoint (KubeRay's API runs it through a shell), and
 * every word of it is checked against a shell-safe character set first.
 * A submit makes a few Kubernetes API calls and starts no operation;
 * its row names training_job_get as the tool that tells when the job is
 * done.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/manifests.h"
#include "handlers/workloads.h"
#include "pipelines/featdefs.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/resyntax.h"

#define CRD_HPJ "hyperpodpytorchjobs.sagemaker.amazonaws.com"
#define CRD_RAYJOB "rayjobs.ray.io"

/* The service account pipelines/features.c makes for tiered checkpoints. */
#define TIERED_SA "tiered-storage-sa"

/*
 * Checkpointless training (HyperPod's in-process recovery): hyperpodrun
 * runs with --inprocess-restart and the pods carry INPROCESS_RESTART=1
 * and INPROCESS_RESTART_TIMEOUT, as AWS's checkpointless launch
 * manifests set them; the training operator must be v1.2.0 or later.
 */
#define CHECKPOINTLESS_TIMEOUT "1800"

static const struct recipe *
recipe_find(const char *name)
{
	const struct recipe *rc;

	for (rc = wl_recipes; rc->name != NULL; rc++)
		if (strcmp(rc->name, name) == 0)
			return rc;
	return NULL;
}

/* Append an option (flag + value, or key=value) to argv; value (a JSON
 * string, may be NULL) is stolen. */
static void
argv_opt(json_object *argv, int kv, const char *opt, json_object *value)
{
	if (opt == NULL || value == NULL) {
		json_object_put(value);
		return;
	}
	if (kv) {
		json_object_array_add(
		    argv, sw_jsf("%s=%s", opt, json_object_get_string(value)));
		json_object_put(value);
	} else {
		json_object_array_add(argv, sw_js(opt));
		json_object_array_add(argv, value);
	}
}

/* Append prefix + rel ("/data/code/" + "train.py") to argv. */
static void
argv_path(json_object *argv, const char *prefix, const char *rel)
{
	json_object_array_add(argv, sw_jsf("%s%s", prefix, rel));
}

/* Append {name, prefix + rel} to env. */
static void
env_path(
    json_object *env, const char *name, const char *prefix, const char *rel)
{
	json_object_array_add(env,
	    sw_jo("name", sw_js(name), "value", sw_jsf("%s%s", prefix, rel),
		NULL));
}

/* The program and its options (after any launcher).  New array. */
static json_object *
recipe_args(const struct train *t)
{
	const struct recipe *rc = t->recipe;
	json_object *argv = json_object_new_array();

	if (rc->module)
		json_object_array_add(argv, sw_js("-m"));
	if (rc->program != NULL)
		json_object_array_add(argv, sw_js(rc->program));
	else
		argv_path(
		    argv, "/data/code/", t->entry ? t->entry : "train.py");
	if (rc->config && t->config != NULL)
		argv_path(argv, "/data/configs/", t->config);
	if (t->dataset != NULL)
		argv_opt(argv, rc->kv, rc->opt_dataset,
		    sw_jsf("/data/datasets/%s", t->dataset));
	if (t->model != NULL)
		argv_opt(argv, rc->kv, rc->opt_model,
		    sw_jsf("/data/models/%s", t->model));
	argv_opt(
	    argv, rc->kv, rc->opt_output, sw_jsf("/data/outputs/%s", t->job));
	if (t->max_steps > 0)
		argv_opt(argv, rc->kv, rc->opt_steps,
		    sw_jsf("%lld", (long long)t->max_steps));
	argv_opt(
	    argv, rc->kv, rc->opt_nodes, sw_jsf("%lld", (long long)t->nodes));
	argv_opt(
	    argv, rc->kv, rc->opt_gpus, sw_jsf("%lld", (long long)t->gpus));
	return argv;
}

/* The container environment: the contract, MLflow, then the user's. */
static json_object *
train_env(const struct train *t)
{
	json_object *env = json_object_new_array();

	env_path(env, "OUTPUT_DIR", "/data/outputs/", t->job);
	if (t->dataset != NULL)
		env_path(env, "DATASET_DIR", "/data/datasets/", t->dataset);
	if (t->model != NULL)
		env_path(env, "MODEL_DIR", "/data/models/", t->model);
	if (t->max_steps > 0)
		json_object_array_add(env,
		    sw_jo("name", sw_js("MAX_STEPS"), "value",
			sw_jsf("%lld", (long long)t->max_steps), NULL));
	if (t->resume != NULL)
		env_path(
		    env, "RESUME_FROM_CHECKPOINT", "/data/outputs/", t->resume);
	if (t->checkpointless) {
		json_object_array_add(
		    env, wl_env_var("INPROCESS_RESTART", "1"));
		json_object_array_add(env,
		    wl_env_var(
			"INPROCESS_RESTART_TIMEOUT", CHECKPOINTLESS_TIMEOUT));
	}
	if (t->mlflow != NULL) {
		json_object_array_add(
		    env, wl_env_var("MLFLOW_TRACKING_URI", t->mlflow));
		json_object_array_add(
		    env, wl_env_var("MLFLOW_EXPERIMENT_NAME", t->job));
	}
	if (t->env != NULL) {
		json_object_object_foreach(t->env, k, v) json_object_array_add(
		    env, wl_env_var(k, json_object_get_string(v)));
	}
	return env;
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
	pat = lm != NULL && sw_json_get_str(lm, "log_pattern") != NULL
	    ? sw_json_get_str(lm, "log_pattern")
	    : rc->log_pattern;
	if (pat == NULL)
		return NULL;
	return sw_ja(
	    sw_jo("name", sw_js("JobStart"), "logPattern", sw_js(pat),
		"expectedStartCutOffInSeconds",
		sw_ji(sw_json_get_int(lm, "start_seconds", rc->start_s)), NULL),
	    sw_jo("name", sw_js("JobHang"), "logPattern", sw_js(pat),
		"expectedRecurringFrequencyInSeconds",
		sw_ji(sw_json_get_int(lm, "hang_seconds", rc->hang_s)), NULL));
}

/* One pod of a training job's template, beside what every pod has (the
 * job's image, env, labels, service account and data volume). */
struct train_pod {
	const char *container; /* the container's name */
	json_object *command; /* stolen, or NULL for the image's */
	json_object *ports; /* stolen, or NULL */
	json_object *resources; /* stolen */
	int gpu; /* placed on the job's GPU nodes */
};

/* The pod template of p in job t (new). */
static json_object *
pod_template(const struct train *t, const struct train_pod *p)
{
	return sw_jo("metadata", sw_jo("labels", wl_job_labels(t->job), NULL),
	    "spec",
	    sw_jo("serviceAccountName", t->sa ? sw_js(t->sa) : NULL,
		"containers",
		sw_ja(sw_jo("name", sw_js(p->container), "image",
		    sw_js(t->image), "command", p->command, "env", train_env(t),
		    "ports", p->ports, "resources", p->resources,
		    "volumeMounts", wl_data_mounts(0), NULL)),
		"volumes", wl_data_volumes(t->pvc, 0), "nodeSelector",
		p->gpu ? wl_node_selector(t->instance_type) : NULL,
		"tolerations", p->gpu ? wl_gpu_tolerations() : NULL, NULL),
	    NULL);
}

/*
 * The job's metadata: name, namespace, labels, and the request it was
 * submitted with (WL_SUBMIT_SPEC, without the cluster and dry_run), so
 * that checkpoint_resume can submit the same spec again.
 */
static json_object *
job_meta(const struct train *t)
{
	json_object *spec = json_object_new_object(), *ann;

	if (t->args != NULL) {
		json_object_object_foreach(t->args, k, v)
		{
			if (strcmp(k, "name") != 0 && strcmp(k, "dry_run") != 0)
				json_object_object_add(
				    spec, k, json_object_get(v));
		}
	}
	ann = sw_jo(WL_SUBMIT_SPEC,
	    sw_js(json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PLAIN)),
	    NULL);
	json_object_put(spec);
	return sw_jo("name", sw_js(t->job), "namespace", sw_js(t->ns), "labels",
	    wl_job_labels(t->job), "annotations", ann, NULL);
}

/* spec.elasticPolicy of an elastic job, or NULL. */
static json_object *
elastic_policy(const struct train *t)
{
	if (t->elastic == NULL)
		return NULL;
	return sw_jo("minReplicas",
	    sw_ji(sw_json_get_int(t->elastic, "min_nodes", 1)), "maxReplicas",
	    sw_ji(sw_json_get_int(t->elastic, "max_nodes", 1)),
	    "replicaIncrementStep",
	    sw_ji(sw_json_get_int(t->elastic, "increment_step", 1)), NULL);
}

/*
 * HyperPodPyTorchJob (facts §1): hyperpodrun launches the recipe,
 * after the pod installs the elastic agent unless the image has it.
 */
static json_object *
hpj_manifest(const struct train *t)
{
	json_object *argv, *args;
	size_t i;

	if (t->agent_install)
		argv = sw_ja(sw_js("sh"), sw_js("-c"), sw_js(wl_agent_sh),
		    sw_js("hyperpodrun"));
	else
		argv = sw_ja(sw_js("hyperpodrun"));

	json_object_array_add(
	    argv, sw_jsf("--nnodes=%lld", (long long)t->nodes));
	json_object_array_add(
	    argv, sw_jsf("--nproc-per-node=%lld", (long long)t->gpus));
	if (t->checkpointless)
		json_object_array_add(argv, sw_js("--inprocess-restart"));
	args = recipe_args(t);
	for (i = 0; i < json_object_array_length(args); i++)
		json_object_array_add(
		    argv, json_object_get(json_object_array_get_idx(args, i)));
	json_object_put(args);
	return sw_jo("apiVersion", sw_js("sagemaker.amazonaws.com/v1"), "kind",
	    sw_js("HyperPodPyTorchJob"), "metadata", job_meta(t), "spec",
	    sw_jo("nprocPerNode", sw_jsf("%lld", (long long)t->gpus),
		"elasticPolicy", elastic_policy(t), "runPolicy",
		sw_jo("jobMaxRetryCount", sw_ji(3), "cleanPodPolicy",
		    sw_js("None"), "restartPolicy",
		    sw_jo("evalPeriodSeconds", sw_ji(3600),
			"numRestartBeforeFullJobRestart", sw_ji(3),
			"maxFullJobRestarts", sw_ji(1), NULL),
		    "logMonitoringConfiguration", log_monitoring(t), NULL),
		"replicaSpecs",
		sw_ja(sw_jo("name", sw_js("pods"), "replicas", sw_ji(t->nodes),
		    "maxReplicas",
		    t->elastic ? sw_ji(sw_json_get_int(
				     t->elastic, "max_nodes", t->nodes))
			       : NULL,
		    "template",
		    pod_template(t,
			&(struct train_pod){ .container = "pytorch",
			    .command = argv,
			    .ports = sw_ja(
				sw_jo("containerPort", sw_ji(8080), NULL)),
			    .resources = wl_accel_resources(t->gpus, t->efa),
			    .gpu = 1 }),
		    NULL)),
		NULL),
	    NULL);
}

/* Characters a RayJob entrypoint word may hold (no shell meaning). */
static int
shell_safe(const char *s)
{
	return *s != '\0' &&
	    strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
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
		const char *w =
		    json_object_get_string(json_object_array_get_idx(args, i));

		if (!shell_safe(w))
			goto out;
		sw_buf_putc(&ep, ' ');
		if (sw_buf_puts(&ep, w) != SW_OK)
			goto out;
	}
	ray_own = strcmp(t->image, wl_ray_image) == 0;
	if (ray_own && t->recipe->ray_pip != NULL &&
	    (size_t)snprintf(env_yaml, sizeof(env_yaml), "pip:\n  - %s\n",
		t->recipe->ray_pip) >= sizeof(env_yaml))
		goto out;
	m = sw_jo("apiVersion", sw_js("ray.io/v1"), "kind", sw_js("RayJob"),
	    "metadata", job_meta(t), "spec",
	    sw_jo("entrypoint", sw_js(sw_buf_str(&ep)), "runtimeEnvYAML",
		ray_own && t->recipe->ray_pip != NULL ? sw_js(env_yaml) : NULL,
		"shutdownAfterJobFinishes", sw_jb(1), "ttlSecondsAfterFinished",
		sw_ji(3600), "rayClusterSpec",
		sw_jo("rayVersion", ray_own ? sw_js(wl_ray_version) : NULL,
		    "headGroupSpec",
		    sw_jo("rayStartParams", json_object_new_object(),
			"template",
			pod_template(t,
			    &(struct train_pod){ .container = "ray-head",
				.resources = sw_jo("limits",
				    sw_jo("cpu", sw_js("2"), "memory",
					sw_js("8Gi"), NULL),
				    NULL) }),
			NULL),
		    "workerGroupSpecs",
		    sw_ja(sw_jo("groupName", sw_js("gpu"), "replicas",
			sw_ji(t->nodes), "minReplicas", sw_ji(t->nodes),
			"maxReplicas", sw_ji(t->nodes), "rayStartParams",
			json_object_new_object(), "template",
			pod_template(t,
			    &(struct train_pod){ .container = "ray-worker",
				.resources =
				    wl_accel_resources(t->gpus, t->efa),
				.gpu = 1 }),
			NULL)),
		    NULL),
		NULL),
	    NULL);
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
		/* Every name train_env() sets, and the model token. */
		"OUTPUT_DIR", "DATASET_DIR", "MODEL_DIR", "MAX_STEPS",
		"RESUME_FROM_CHECKPOINT", "HF_TOKEN", "MLFLOW_TRACKING_URI",
		"MLFLOW_EXPERIMENT_NAME", "INPROCESS_RESTART",
		"INPROCESS_RESTART_TIMEOUT", NULL
	};
	char field[160];
	int i;

	if (env == NULL)
		return;
	json_object_object_foreach(env, k, v)
	{
		(void)v;
		sw_fmt_text(field, sizeof(field), "env.%s", k);
		if (strspn(k,
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
			"vwxyz0123456789_") != strlen(k) ||
		    (k[0] >= '0' && k[0] <= '9')) {
			sw_ferr_add(&r->ferrs, field, "pattern",
			    "names are "
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

/*
 * Elastic training: a HyperPodPyTorchJob's, between min_nodes and
 * max_nodes, nodes within them, in whole steps.  A refused pair names
 * both fields.
 */
static void
check_elastic(struct sw_req *r, const struct train *t)
{
	int64_t lo, hi, step;

	if (t->elastic == NULL)
		return;
	if (t->ray) {
		sw_ferr_add(&r->ferrs, "elastic", "kind",
		    "is for kind "
		    "hyperpod-pytorch; kind ray scales by its own worker "
		    "groups");
		sw_ferr_add(&r->ferrs, "kind", "elastic",
		    "ray cannot take "
		    "elastic");
		return;
	}
	lo = sw_json_get_int(t->elastic, "min_nodes", 1);
	hi = sw_json_get_int(t->elastic, "max_nodes", 1);
	step = sw_json_get_int(t->elastic, "increment_step", 1);
	if (lo > hi) {
		sw_ferr_add(&r->ferrs, "elastic.min_nodes", "range",
		    "is more "
		    "than elastic.max_nodes (%lld > %lld)",
		    (long long)lo, (long long)hi);
		sw_ferr_add(&r->ferrs, "elastic.max_nodes", "range",
		    "is less "
		    "than elastic.min_nodes");
	} else if (t->nodes < lo || t->nodes > hi) {
		sw_ferr_add(&r->ferrs, "nodes", "elastic",
		    "must be within "
		    "elastic.min_nodes and elastic.max_nodes (%lld..%lld)",
		    (long long)lo, (long long)hi);
		sw_ferr_add(&r->ferrs,
		    t->nodes < lo ? "elastic.min_nodes" : "elastic.max_nodes",
		    "elastic", "leaves out nodes (%lld)", (long long)t->nodes);
	} else if ((hi - lo) % step != 0) {
		sw_ferr_add(&r->ferrs, "elastic.increment_step", "step",
		    "does not divide max_nodes - min_nodes (%lld)",
		    (long long)(hi - lo));
	}
}

/*
 * Checkpointless training excludes managed tiered checkpointing and
 * elastic training (AWS's checkpointless considerations), and is the
 * training operator's (not a RayJob's): each refused pair names both
 * fields.
 */
static void
check_checkpointless(struct sw_req *r, const struct train *t)
{
	if (!t->checkpointless)
		return;
	if (t->ray) {
		sw_ferr_add(&r->ferrs, "checkpointless", "kind",
		    "is for kind "
		    "hyperpod-pytorch (the training operator's in-process "
		    "recovery)");
		sw_ferr_add(&r->ferrs, "kind", "checkpointless",
		    "ray cannot "
		    "take checkpointless");
	}
	if (t->elastic != NULL) {
		sw_ferr_add(&r->ferrs, "checkpointless", "exclusive",
		    "cannot "
		    "be combined with elastic training");
		sw_ferr_add(&r->ferrs, "elastic", "exclusive",
		    "cannot be "
		    "combined with checkpointless training");
	}
	if (t->tiered == 1) {
		sw_ferr_add(&r->ferrs, "checkpointless", "exclusive",
		    "cannot "
		    "be combined with managed tiered checkpointing");
		sw_ferr_add(&r->ferrs, "tiered_checkpointing", "exclusive",
		    "cannot be combined with checkpointless training");
	}
}

/*
 * Elastic and checkpointless training need the HyperPod training
 * operator v1.2.0 or later (AWS's prerequisites of each): an older add-on is refused
 * before anything is applied, naming the field and the version to move
 * to (addon_upgrade).
 */
#define ELASTIC_OPERATOR_MIN "v1.2.0"

static sw_err
check_elastic_operator(struct sw_req *r, const struct train *t)
{
	const char *field = t->elastic != NULL ? "elastic" : "checkpointless";
	char have[80];
	int ok;

	if ((t->elastic == NULL && !t->checkpointless) || t->ray)
		return SW_OK;
	ok = h_addon_at_least(r, t->cluster,
	    SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR), ELASTIC_OPERATOR_MIN,
	    have, sizeof(have));
	if (ok < 0)
		return r->err;
	if (ok > 0)
		return SW_OK;
	sw_ferr_add(&r->ferrs, field, "operator",
	    "needs the HyperPod "
	    "training operator %s or later; cluster %s runs %s",
	    ELASTIC_OPERATOR_MIN, t->cluster, have);
	return sw_req_fail(r, SW_EPRECONDITION,
	    "%s training needs the "
	    "HyperPod training operator %s or later, and cluster %s runs %s: "
	    "upgrade the add-on %s first (addon_upgrade)",
	    field, ELASTIC_OPERATOR_MIN, t->cluster, have,
	    SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR));
}

/*
 * log_monitoring.log_pattern goes to the training operator, a Go
 * program: it must be RE2 syntax as Go's regexp parses it, checked in
 * one pass (lib/resyntax.h).  Compiling it here with glibc's regcomp
 * was both wrong and dangerous: POSIX ERE refuses "(?i)loss", and a
 * 14-byte pattern held an API worker for minutes.
 */
static void
check_log_pattern(struct sw_req *r, json_object *lm)
{
	const char *pat = sw_json_get_str(lm, "log_pattern");
	char why[140]; /* with the words before it, within a message */

	if (pat != NULL && sw_re_check(pat, why, sizeof(why)) != 0)
		sw_ferr_add(&r->ferrs, "log_monitoring.log_pattern", "regex",
		    "is not a regular expression in RE2 syntax (Go's "
		    "regexp): %s",
		    why);
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

	e = wl_get_obj(r, kb, "v1", ns, "serviceaccounts", TIERED_SA, &sa);
	if (e == SW_ENOTFOUND)
		return 0;
	if (e != SW_OK)
		return -1;
	feat = sw_json_get_str(
	    sw_json_path(sa, "metadata.labels"), "slipway.io/feature");
	yes = feat != NULL && strcmp(feat, "tiered-checkpointing") == 0;
	json_object_put(sa);
	return yes;
}

/* A managed MLflow App named by mlflow_app: its ARN, kept in the
 * request's arguments, is the job's tracking URI. */
static sw_err
use_mlflow_app(struct sw_req *r, struct train *t)
{
	char arn[256];

	if (h_mlflow_app_arn(r, sw_json_get_str(r->args, "mlflow_app"), arn,
		sizeof(arn)) != SW_OK)
		return r->err;
	sw_json_add_str(r->args, "mlflow_tracking_uri", arn);
	t->mlflow = sw_json_get_str(r->args, "mlflow_tracking_uri");
	return SW_OK;
}

sw_err
wl_train_read(struct sw_req *r, struct train *t)
{
	json_object *a = r->args;
	const char *kind = wl_str_or(a, "kind", "hyperpod-pytorch");
	const char *rname = wl_str_or(a, "recipe", "pytorch");

	memset(t, 0, sizeof(*t));
	t->cluster = sw_json_get_str(a, "name");
	t->job = sw_json_get_str(a, "job_name");
	t->ns = wl_ns_or(a, t->team_ns, sizeof(t->team_ns), "default");
	t->pvc = wl_str_or(a, "pvc", "s3-claim");
	t->dataset = sw_json_get_str(a, "dataset");
	t->model = sw_json_get_str(a, "model");
	t->entry = sw_json_get_str(a, "entry");
	t->config = sw_json_get_str(a, "config");
	t->instance_type = sw_json_get_str(a, "instance_type");
	t->mlflow = sw_json_get_str(a, "mlflow_tracking_uri");
	t->resume = sw_json_get_str(a, "resume_from");
	t->args = a;
	if (sw_json_get_str(a, "mlflow_app") != NULL &&
	    use_mlflow_app(r, t) != SW_OK)
		return r->err;
	t->nodes = sw_json_get_int(a, "nodes", 1);
	t->gpus = sw_json_get_int(a, "gpus_per_node", 1);
	t->efa = sw_json_get_int(a, "efa_per_node", 0);
	t->max_steps = sw_json_get_int(a, "max_steps", 0);
	t->env = sw_json_get(a, "env");
	t->logmon = sw_json_get(a, "log_monitoring");
	t->elastic = sw_json_get(a, "elastic");
	t->checkpointless = sw_json_get_bool(a, "checkpointless", 0);
	t->tiered = sw_json_get(a, "tiered_checkpointing") == NULL
	    ? -1
	    : sw_json_get_bool(a, "tiered_checkpointing", 0);
	t->ray = strcmp(kind, "ray") == 0;
	t->agent_install =
	    strcmp(wl_str_or(a, "elastic_agent", "install"), "install") == 0;
	t->recipe = recipe_find(rname);

	/* Cross-field rules (the table checked each field alone). */
	if (t->recipe == NULL)
		sw_ferr_add(&r->ferrs, "recipe", "enum", "unknown recipe");
	else {
		if (!(t->recipe->kinds & (t->ray ? KIND_RAY : KIND_HPJ)))
			sw_ferr_add(&r->ferrs, "recipe", "kind",
			    "recipe %s "
			    "does not run as kind %s",
			    rname, kind);
		if (t->recipe->config == 2 && t->config == NULL)
			sw_ferr_add(&r->ferrs, "config", "required",
			    "recipe "
			    "%s needs a config under /data/configs",
			    rname);
		if (t->recipe->config == 0 && t->config != NULL)
			sw_ferr_add(&r->ferrs, "config", "recipe",
			    "recipe "
			    "%s takes no config",
			    rname);
		if (t->recipe->program != NULL && t->entry != NULL)
			sw_ferr_add(&r->ferrs, "entry", "recipe",
			    "recipe "
			    "%s has its own program; entry is for pytorch",
			    rname);
	}
	if (t->ray && sw_json_get(a, "elastic_agent") != NULL)
		sw_ferr_add(&r->ferrs, "elastic_agent", "kind",
		    "is for kind "
		    "hyperpod-pytorch; a RayJob runs no elastic agent");
	if (t->ray && t->logmon != NULL)
		sw_ferr_add(&r->ferrs, "log_monitoring", "kind",
		    "is for kind "
		    "hyperpod-pytorch (the training operator watches logs)");
	check_log_pattern(r, t->logmon);
	check_elastic(r, t);
	check_checkpointless(r, t);
	if (t->ray && t->tiered == 1)
		sw_ferr_add(&r->ferrs, "tiered_checkpointing", "kind",
		    "is for "
		    "kind hyperpod-pytorch");
	check_env(r, t->env);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	t->own_image = sw_json_get(a, "image") != NULL;
	t->image = wl_str_or(
	    a, "image", t->ray ? t->recipe->ray_image : t->recipe->image);
	return SW_OK;
}

json_object *
wl_train_manifest(struct sw_req *r, const struct train *t)
{
	json_object *m = t->ray ? rayjob_manifest(t) : hpj_manifest(t);

	if (m == NULL)
		sw_req_fail(r, SW_EINTERNAL, "cannot build the entrypoint");
	return m;
}

/* Each node's share of the job fits a node the cluster can have. */
static sw_err
train_fits(struct sw_req *r, const struct train *t)
{
	struct wl_fit f = { .cluster = t->cluster,
		.instance_type = t->instance_type,
		.gpus = t->gpus,
		.efa = t->efa,
		.gpu_field = "gpus_per_node",
		.efa_field = "efa_per_node" };

	return wl_check_fit(r, &f);
}

sw_err
h_training_job_submit(struct sw_req *r)
{
	json_object *a = r->args, *list = NULL, *m, *existing = NULL;
	struct train t;
	struct sw_kube kb;
	int have;
	sw_err e;

	memset(&kb, 0, sizeof(kb));
	if (wl_train_read(r, &t) != SW_OK)
		return r->err;
	if (train_fits(r, &t) != SW_OK)
		return r->err;
	if (wl_kube_open(r, t.cluster, &kb) != SW_OK)
		return r->err;
	have = wl_crd_present(r, &kb, t.ray ? CRD_RAYJOB : CRD_HPJ);
	if (have < 0)
		goto out;
	if (have == 0) {
		if (t.ray)
			wl_need_feature(
			    r, "kind", "kuberay", "KubeRay (RayJob)");
		else
			wl_need_feature(r, "kind", "training_operator",
			    "the HyperPod training operator "
			    "(HyperPodPyTorchJob)");
		goto out;
	}
	if (check_elastic_operator(r, &t) != SW_OK)
		goto out;
	e = wl_get_obj(r, &kb,
	    t.ray ? "ray.io/v1" : "sagemaker.amazonaws.com/v1", t.ns,
	    t.ray ? "rayjobs" : "hyperpodpytorchjobs", t.job, &existing);
	json_object_put(existing);
	if (e == SW_OK) {
		sw_ferr_add(&r->ferrs, "job_name", "unique",
		    "job %s exists in "
		    "namespace %s",
		    t.job, t.ns);
		sw_req_fail(r, SW_ECONFLICT,
		    "training job %s exists; delete "
		    "it or pick another name",
		    t.job);
		goto out;
	}
	if (e != SW_ENOTFOUND)
		goto out;
	list = json_object_new_array();
	if (wl_storage_plan(r, &kb, t.cluster, t.ns, t.pvc,
		sw_json_get(a, "pvc") != NULL, list) != SW_OK)
		goto out;
	if (t.tiered != 0 && !t.checkpointless &&
	    (have = tiered_sa(r, &kb, t.ns)) < 0)
		goto out;
	if (t.tiered == 1 && have == 0) {
		wl_need_feature(r, "tiered_checkpointing",
		    "tiered_checkpointing", "managed tiered checkpointing");
		goto out;
	}
	t.sa = t.tiered != 0 && !t.checkpointless && have ? TIERED_SA : NULL;
	if ((m = wl_train_manifest(r, &t)) == NULL)
		goto out;
	if (h_kueue_labels(r, t.cluster, t.ns, m) != SW_OK) {
		json_object_put(m);
		goto out;
	}
	json_object_array_add(list, m);
	if (r->dry_run) {
		wl_answer_plan(r, list,
		    sw_jo("job", sw_js(t.job), "service_account",
			t.sa ? sw_js(t.sa) : NULL, NULL));
		list = NULL;
		goto out;
	}
	{
		json_object *refs = json_object_new_array();
		if (wl_apply_all(r, &kb, list, refs) != SW_OK) {
			json_object_put(refs);
			goto out;
		}
		wl_answer_applied(r, 201,
		    sw_jo("job", sw_js(t.job), "namespace", sw_js(t.ns), "kind",
			sw_js(sw_json_get_str(m, "kind")), "recipe",
			sw_js(t.recipe->name), "image", sw_js(t.image),
			"service_account", t.sa ? sw_js(t.sa) : NULL,
			"output_dir", sw_jsf("/data/outputs/%s", t.job), NULL),
		    refs);
	}
out:
	json_object_put(list);
	sw_kube_close(&kb);
	return r->err;
}
