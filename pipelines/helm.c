/*
 * helm.c: the Helm installer Job.  A chart that has no EKS add-on (KubeRay,
 * the AWS Load Balancer Controller, the device plugins) is installed as a
 * real cluster gets it: Slipway applies, with server-side apply, a
 * ServiceAccount slipway-helm bound to cluster-admin (Helm installs CRDs
 * and ClusterRoles) and a batch/v1 Job helm-RELEASE whose one container
 * runs the helm image with "upgrade --install" of the pinned chart, then
 * follows the Job's conditions.  On failure the pod's log gives the text
 * the stage reports.  Slipway itself never writes what the chart owns.
 *
 * The charts are one table, indexed by enum sw_helm_chart; the contract
 * the sandbox simulates is the same: ServiceAccount, binding, Job, args.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/json.h"
#include "pipelines/helm.h"

#define HELM_NS "kube-system"
#define HELM_SA "slipway-helm"
#define HELM_IMAGE "docker.io/alpine/helm:3.16.4"
#define HELM_TIMEOUT "10m0s"
#define HELM_LOG_MAX 8192 /* bytes of the failed pod's log kept */

/* clang-format off */
static const struct sw_helm_release charts[SW_HELM__MAX] = {
	[SW_HELM_KUBERAY] = {
		.release = "kuberay-operator",
		.chart = "kuberay-operator",
		.repo = "https://ray-project.github.io/kuberay-helm/",
		.version = "1.4.2",
		.ns = "ray-system",
	},
	[SW_HELM_LBC] = {
		.release = "aws-load-balancer-controller",
		.chart = "aws-load-balancer-controller",
		.repo = "https://aws.github.io/eks-charts",
		.version = "1.13.2",
		.ns = "kube-system",
	},
	[SW_HELM_NVIDIA] = {
		.release = "nvidia-device-plugin",
		.chart = "nvidia-device-plugin",
		.repo = "https://nvidia.github.io/k8s-device-plugin",
		.version = "0.16.1",
		.ns = "kube-system",
	},
	[SW_HELM_EFA] = {
		.release = "aws-efa-k8s-device-plugin",
		.chart = "aws-efa-k8s-device-plugin",
		.repo = "https://aws.github.io/eks-charts",
		.version = "0.5.20",
		.ns = "kube-system",
	},
};
/* clang-format on */

const struct sw_helm_release *
sw_helm_release_of(enum sw_helm_chart c)
{
	return c >= 0 && c < SW_HELM__MAX ? &charts[c] : NULL;
}

/* The labels of everything the installer makes.  New. */
static json_object *
helm_labels(const char *release)
{
	return sw_jo("app.kubernetes.io/managed-by", sw_js("slipway"),
	    "slipway.dev/helm-release", release ? sw_js(release) : NULL, NULL);
}

/* The helm arguments of an install or uninstall.  New. */
static json_object *
helm_args(const struct sw_helm_release *r, int install, const char *const *sets)
{
	json_object *a;
	size_t i;

	if (!install)
		return sw_ja(sw_js("uninstall"), sw_js(r->release),
		    sw_js("--namespace"), sw_js(r->ns), sw_js("--wait"),
		    sw_js("--timeout"), sw_js(HELM_TIMEOUT));
	a = sw_ja(sw_js("upgrade"), sw_js("--install"), sw_js(r->release),
	    sw_js(r->chart), sw_js("--repo"), sw_js(r->repo),
	    sw_js("--version"), sw_js(r->version), sw_js("--namespace"),
	    sw_js(r->ns), sw_js("--create-namespace"), sw_js("--wait"),
	    sw_js("--timeout"), sw_js(HELM_TIMEOUT));
	for (i = 0; sets != NULL && sets[i] != NULL; i++) {
		json_object_array_add(a, sw_js("--set"));
		json_object_array_add(a, sw_js(sets[i]));
	}
	return a;
}

/* The Job manifest.  New. */
static json_object *
helm_job(const char *name, const struct sw_helm_release *r, int install,
    const char *const *sets)
{
	return sw_jo("apiVersion", sw_js("batch/v1"), "kind", sw_js("Job"),
	    "metadata",
	    sw_jo("name", sw_js(name), "namespace", sw_js(HELM_NS), "labels",
		helm_labels(r->release), NULL),
	    "spec",
	    sw_jo("backoffLimit", sw_ji(2), "template",
		sw_jo("metadata",
		    sw_jo("labels", helm_labels(r->release), NULL), "spec",
		    sw_jo("serviceAccountName", sw_js(HELM_SA), "restartPolicy",
			sw_js("Never"), "containers",
			sw_ja(sw_jo("name", sw_js("helm"), "image",
			    sw_js(HELM_IMAGE), "args",
			    helm_args(r, install, sets), NULL)),
			NULL),
		    NULL),
		NULL),
	    NULL);
}

/* ServiceAccount and cluster-admin binding the Job runs as: applied
 * once per stage ("helm_identity" in its resources). */
static enum sw_step_rc
helm_identity(struct sw_step *s, struct sw_kube *kb)
{
	json_object *m;
	enum sw_step_rc rc;

	if (sw_res_get(s, "helm_identity") != NULL)
		return STEP_DONE;
	m = sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("ServiceAccount"),
	    "metadata",
	    sw_jo("name", sw_js(HELM_SA), "namespace", sw_js(HELM_NS), "labels",
		helm_labels(NULL), NULL),
	    NULL);
	rc = sw_kube_apply(s, kb, m);
	json_object_put(m);
	if (rc != STEP_DONE)
		return rc;
	m = sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"), "kind",
	    sw_js("ClusterRoleBinding"), "metadata",
	    sw_jo("name", sw_js(HELM_SA), "labels", helm_labels(NULL), NULL),
	    "roleRef",
	    sw_jo("apiGroup", sw_js("rbac.authorization.k8s.io"), "kind",
		sw_js("ClusterRole"), "name", sw_js("cluster-admin"), NULL),
	    "subjects",
	    sw_ja(sw_jo("kind", sw_js("ServiceAccount"), "name", sw_js(HELM_SA),
		"namespace", sw_js(HELM_NS), NULL)),
	    NULL);
	rc = sw_kube_apply(s, kb, m);
	json_object_put(m);
	if (rc == STEP_DONE)
		sw_res_set(s, "helm_identity", HELM_SA);
	return rc;
}

/* GET path: 1 found (*out new), 0 absent, -1 error (step waits). */
static int
helm_get(
    struct sw_step *s, struct sw_kube *kb, const char *path, json_object **out)
{
	struct k8s_error ke;
	sw_err e;

	*out = NULL;
	memset(&ke, 0, sizeof(ke));
	s->calls_made++;
	e = k8s_get(&kb->k, path, out, &ke);
	if (e == SW_OK)
		return 1;
	json_object_put(*out);
	*out = NULL;
	if (e == SW_ENOTFOUND)
		return 0;
	sw_step_retry(s, sw_poll_ms(s, 10000), "get %s: %s (will retry)", path,
	    ke.message[0] ? ke.message : "failed");
	return -1;
}

/* "Complete", "Failed" or NULL: the Job's finished condition. */
static const char *
job_end(json_object *job)
{
	json_object *conds = sw_json_path(job, "status.conditions");
	size_t i;

	for (i = 0;
	     conds != NULL && json_object_is_type(conds, json_type_array) &&
	     i < json_object_array_length(conds);
	     i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *t = sw_json_get_str(c, "type");

		if (t == NULL ||
		    strcmp(sw_json_get_str(c, "status") ?: "", "True") != 0)
			continue;
		if (strcmp(t, "Complete") == 0)
			return "Complete";
		if (strcmp(t, "Failed") == 0)
			return "Failed";
	}
	return NULL;
}

struct log_buf {
	char text[HELM_LOG_MAX];
	size_t len;
};

static int
log_chunk(void *arg, const char *data, size_t len)
{
	struct log_buf *b = arg;
	size_t room = sizeof(b->text) - 1 - b->len;

	if (len > room)
		len = room;
	memcpy(b->text + b->len, data, len);
	b->len += len;
	b->text[b->len] = '\0';
	return 0;
}

/*
 * The line that says why helm failed, from the log of the Job's newest
 * pod, into out: the last "Error:" line, else the last non-empty one.
 */
static void
failure_text(struct sw_step *s, struct sw_kube *kb, const char *job, char *out,
    size_t outsz)
{
	struct k8s_error ke;
	struct log_buf *b;
	json_object *list = NULL, *items;
	const char *pod = NULL, *best = NULL, *last = NULL, *newest = "";
	char sel[160], *p, *nl;
	size_t i;

	sw_fmt_text(out, outsz, "no log");
	if (sw_fmt(sel, sizeof(sel), "batch.kubernetes.io/job-name=%s", job) !=
	    SW_OK)
		return;
	memset(&ke, 0, sizeof(ke));
	s->calls_made++;
	if (k8s_list(&kb->k, "/api/v1/namespaces/" HELM_NS "/pods", sel, &list,
		&ke) != SW_OK) {
		json_object_put(list);
		return;
	}
	items = sw_json_get(list, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);
		const char *ts =
		    sw_json_path_str(it, "metadata.creationTimestamp") ?: "";

		if (pod == NULL || strcmp(ts, newest) >= 0) {
			pod = sw_json_path_str(it, "metadata.name");
			newest = ts;
		}
	}
	if (pod == NULL || (b = sw_calloc(1, sizeof(*b))) == NULL) {
		json_object_put(list);
		return;
	}
	memset(&ke, 0, sizeof(ke));
	s->calls_made++;
	if (k8s_logs(&kb->k, HELM_NS, pod, "helm", 0, 50, 30, log_chunk, b,
		&ke) == SW_OK) {
		for (p = b->text; *p != '\0'; p = nl + 1) {
			if ((nl = strchr(p, '\n')) != NULL)
				*nl = '\0';
			if (*p != '\0')
				last = p;
			if (strncmp(p, "Error:", 6) == 0)
				best = p;
			if (nl == NULL)
				break;
		}
		/* A log line longer than out is quoted up to its size. */
		if ((best != NULL || last != NULL) &&
		    snprintf(out, outsz, "%s", best != NULL ? best : last) >=
			(int)outsz &&
		    outsz > 4)
			memcpy(out + outsz - 4, "...", 4);
	}
	free(b);
	json_object_put(list);
}

enum sw_step_rc
sw_helm_run(struct sw_step *s, struct sw_kube *kb, enum sw_helm_chart c,
    int install, const char *const *sets)
{
	const struct sw_helm_release *r = sw_helm_release_of(c);
	char name[96], path[256], key[128], why[512];
	struct k8s_error ke;
	json_object *job, *m;
	const char *end;
	enum sw_step_rc rc;
	int got, status = 0;
	sw_err e;

	if (r == NULL)
		return sw_step_fail(s, "unknown Helm chart");
	if (sw_fmt(name, sizeof(name), "helm-%s%s", r->release,
		install ? "" : "-uninstall") != SW_OK ||
	    sw_fmt(path, sizeof(path),
		"/apis/batch/v1/namespaces/" HELM_NS "/jobs/%s",
		name) != SW_OK ||
	    sw_fmt(key, sizeof(key), "%s.job", name) != SW_OK)
		return sw_step_fail(s, "Helm release name too long");
	if (s->plan) {
		if ((rc = helm_identity(s, kb)) != STEP_DONE)
			return rc;
		m = helm_job(name, r, install, sets);
		rc = sw_kube_apply(s, kb, m);
		json_object_put(m);
		sw_plan_wait(s, SW_WAIT_HELM_JOB);
		return rc;
	}
	if (sw_res_get(s, key) == NULL) {
		/* Not yet started by this operation: apply the Job; the
		 * answer is the Job as it now is, an older one of this name
		 * included, so nothing is read first. */
		if ((rc = helm_identity(s, kb)) != STEP_DONE)
			return rc;
		m = helm_job(name, r, install, sets);
		rc = sw_kube_apply_out(s, kb, m, &job, &status);
		json_object_put(m);
		if (rc == STEP_DONE && job_end(job) == NULL) {
			/* ours, or one still running from an earlier run:
			 * either way it is the one to follow */
			json_object_put(job);
			sw_res_set(s, key, "started");
			return sw_wait_first(s, SW_WAIT_HELM_JOB,
			    "Helm Job %s "
			    "started (%s %s %s)",
			    name, install ? "install" : "uninstall", r->chart,
			    r->version);
		}
		json_object_put(job);
		if (rc != STEP_DONE && status != 422)
			return rc;
		/* A finished Job of an earlier run (its spec cannot change:
		 * 422): read it, delete it and run it again. */
		s->msg[0] = '\0';
	}
	if ((got = helm_get(s, kb, path, &job)) < 0)
		return STEP_WAIT;
	end = got ? job_end(job) : NULL;
	if (sw_res_get(s, key) == NULL) {
		/* Not yet started by this operation. */
		if (got && end == NULL) {
			/* one already running (a resumed operation): follow */
			json_object_put(job);
			sw_res_set(s, key, "started");
			return sw_step_wait(s, sw_poll_ms(s, 5000),
			    "Helm Job %s "
			    "is running",
			    name);
		}
		if (got && strcmp(end, "Failed") == 0)
			failure_text(s, kb, name, why, sizeof(why));
		json_object_put(job);
		if (got) {
			/* a finished Job of an earlier run: the pods go too */
			memset(&ke, 0, sizeof(ke));
			if ((rc = sw_kube_fence(s, kb)) != STEP_DONE)
				return rc;
			s->calls_made++;
			e = k8s_delete_propagate(
			    &kb->k, path, "Background", &ke);
			sw_kube_unfence(kb);
			if (e != SW_OK && ke.status != 404)
				return sw_step_retry(s, sw_poll_ms(s, 5000),
				    "delete old Job %s: %s (will retry)", name,
				    ke.message[0] ? ke.message : "failed");
			if (strcmp(end, "Failed") == 0)
				return sw_step_wait(s, sw_poll_ms(s, 2000),
				    "the last Helm Job %s failed (%s); running "
				    "it again",
				    name, why);
			return sw_step_wait(s, sw_poll_ms(s, 2000),
			    "old Helm "
			    "Job %s deleted",
			    name);
		}
		if ((rc = helm_identity(s, kb)) != STEP_DONE)
			return rc;
		m = helm_job(name, r, install, sets);
		rc = sw_kube_apply(s, kb, m);
		json_object_put(m);
		if (rc != STEP_DONE)
			return rc;
		sw_res_set(s, key, "started");
		return sw_wait_first(s, SW_WAIT_HELM_JOB,
		    "Helm Job %s "
		    "started (%s %s %s)",
		    name, install ? "install" : "uninstall", r->chart,
		    r->version);
	}
	if (!got) {
		/* deleted under us: start again */
		json_object_object_del(s->res, key);
		return sw_step_wait(s, sw_poll_ms(s, 2000),
		    "Helm Job %s "
		    "disappeared; starting it again",
		    name);
	}
	json_object_put(job);
	if (end == NULL)
		return sw_wait_next(s, SW_WAIT_HELM_JOB,
		    "Helm Job %s is "
		    "running",
		    name);
	if (strcmp(end, "Complete") == 0)
		return STEP_DONE;
	failure_text(s, kb, name, why, sizeof(why));
	return sw_step_fail(s, "helm %s %s %s failed: %s",
	    install ? "install" : "uninstall", r->release, r->version, why);
}

int
sw_helm_deployed(struct sw_step *s, struct sw_kube *kb, enum sw_helm_chart c)
{
	const struct sw_helm_release *r = sw_helm_release_of(c);
	char path[256];
	json_object *sec;
	int got;

	if (r == NULL ||
	    snprintf(path, sizeof(path),
		"/api/v1/namespaces/"
		"%s/secrets/sh.helm.release.v1.%s.v1",
		r->ns, r->release) >= (int)sizeof(path))
		return -1;
	got = helm_get(s, kb, path, &sec);
	json_object_put(sec);
	return got;
}
