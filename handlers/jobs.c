/*
 * jobs.c: the jobs Slipway started on a cluster, whatever their kind:
 * HyperPodPyTorchJobs and RayJobs (handlers/training.c) and model
 * download Jobs (handlers/models.c).  training_job_list,
 * training_job_get and training_job_delete find them by the labels
 * they were made with, read their state from their own status and
 * their pods, and delete them with what they leave behind (a batch
 * Job's pods and token Secret).  A job not running yet says why
 * (member pending, handlers/pending.c) from Kueue's Workload, queues
 * and the pods.  handlers/logs.c finds jobs through wl_job_find() and
 * wl_job_pods() here.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"

/* clang-format off */
static const struct job_kind job_kinds[] = {
	{ "sagemaker.amazonaws.com/v1", "hyperpodpytorchjobs",
	  "HyperPodPyTorchJob", "hyperpod-pytorch" },
	{ "ray.io/v1", "rayjobs", "RayJob", "ray" },
	{ "batch/v1", "jobs", "Job", "model-download" },
	{ NULL }
};
/* clang-format on */

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
sw_err
wl_job_find(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *job, json_object **obj, const struct job_kind **kind)
{
	char sel[128];
	const struct job_kind *k;
	json_object *items;
	size_t i;
	int found = 0;

	*obj = NULL;
	*kind = NULL;
	if (sw_fmt(sel, sizeof(sel), "%s=%s", WL_JOB, job) != SW_OK)
		return sw_req_fail(
		    r, SW_EINVAL, "job name %s is too long", job);
	for (k = job_kinds; k->api != NULL; k++) {
		if (wl_list_objs(r, kb, k->api, ns, k->plural, sel, &items) !=
		    SW_OK) {
			json_object_put(*obj);
			*obj = NULL;
			return r->err;
		}
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *o = json_object_array_get_idx(items, i);

			if (is_owned(o) ||
			    strcmp(sw_json_path_str(o, "metadata.name"), job) !=
				0)
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
		return sw_req_fail(r, SW_ENOTFOUND,
		    "no training job or model "
		    "download %s%s%s",
		    job, ns ? " in namespace " : "", ns ? ns : "");
	sw_ferr_add(&r->ferrs, "namespace", "required",
	    "job %s exists in "
	    "more than one namespace; name one",
	    job);
	return sw_req_fail(r, SW_ECONFLICT,
	    "job %s is ambiguous: give "
	    "namespace",
	    job);
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
const char *
wl_job_state(const struct job_kind *k, json_object *o)
{
	const char *s;

	if (strcmp(k->kind, "HyperPodPyTorchJob") == 0) {
		s = last_true_condition(o);
		if (s == NULL)
			return "Pending";
		/* Suspended (Kueue holds or evicted it): waiting again. */
		if (sw_json_get_bool(
			sw_json_path(o, "spec.runPolicy"), "suspend", 0) &&
		    strcmp(s, "Completed") != 0 &&
		    strcmp(s, "Succeeded") != 0 && strcmp(s, "Failed") != 0)
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
		if ((s != NULL &&
			(strcmp(s, "FAILED") == 0 ||
			    strcmp(s, "STOPPED") == 0)) ||
		    ((s = sw_json_path_str(o, "status.jobDeploymentStatus")) !=
			    NULL &&
			(strcmp(s, "Failed") == 0 ||
			    strcmp(s, "ValidationFailed") == 0)))
			return "Failed";
		s = sw_json_path_str(o, "status.jobStatus");
		return s != NULL && strcmp(s, "RUNNING") == 0 ? "Running"
							      : "Pending";
	}
	s = last_true_condition(o);
	if (s != NULL && strcmp(s, "Complete") == 0)
		return "Succeeded";
	if (s != NULL && strcmp(s, "Failed") == 0)
		return "Failed";
	if (sw_json_get_bool(sw_json_get(o, "spec"), "suspend", 0))
		return "Pending";
	return sw_json_path_str(o, "status.active") != NULL &&
		json_object_get_int64(sw_json_path(o, "status.active")) > 0
	    ? "Running"
	    : "Pending";
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
	    strcmp(
		sw_json_get_str(sw_json_path(pod, "metadata.labels"), WL_JOB),
		job) == 0)
		return 1;
	for (i = 0; refs && uid && i < json_object_array_length(refs); i++)
		if (sw_json_get_str(
			json_object_array_get_idx(refs, i), "uid") &&
		    strcmp(sw_json_get_str(
			       json_object_array_get_idx(refs, i), "uid"),
			uid) == 0)
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
sw_err
wl_job_pods(
    struct sw_req *r, struct sw_kube *kb, json_object *obj, json_object **pods)
{
	const char *ns = sw_json_path_str(obj, "metadata.namespace");
	const char *job = sw_json_path_str(obj, "metadata.name");
	const char *uid = sw_json_path_str(obj, "metadata.uid");
	json_object *items;
	size_t i;

	*pods = NULL;
	if (wl_list_objs(r, kb, "v1", ns, "pods", NULL, &items) != SW_OK)
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

/* The reason and message of the pod's first false condition with a
 * message (PodScheduled False, Unschedulable: "0/4 nodes are available:
 * 4 Insufficient nvidia.com/gpu"); without one, the first condition's
 * message only.  Those already found are kept. */
static void
pod_condition_why(json_object *p, const char **reason, const char **msg)
{
	json_object *conds = sw_json_path(p, "status.conditions"), *c;
	const char *st;
	size_t i;

	for (i = 0; conds && i < json_object_array_length(conds); i++) {
		c = json_object_array_get_idx(conds, i);
		st = sw_json_get_str(c, "status");
		if (st == NULL || strcmp(st, "False") != 0 ||
		    sw_json_get_str(c, "message") == NULL)
			continue;
		if (*reason == NULL)
			*reason = sw_json_get_str(c, "reason");
		if (*msg == NULL)
			*msg = sw_json_get_str(c, "message");
		return;
	}
	if (*msg == NULL)
		*msg = sw_json_path_str(p, "status.conditions[0].message");
}

/* One pod as answered. */
static json_object *
pod_summary(json_object *p)
{
	json_object *cs = sw_json_path(p, "status.containerStatuses[0]");
	static const char *const reasons[] = { "state.waiting.reason",
		"state.terminated.reason", NULL };
	static const char *const messages[] = { "lastState.terminated.message",
		"state.terminated.message", "state.waiting.message", NULL };
	const char *reason = NULL, *msg = NULL;
	int i;

	/* Why the first container is not running (CrashLoopBackOff after
	 * a StartError...), else the first condition's message. */
	for (i = 0; cs != NULL && reason == NULL && reasons[i] != NULL; i++)
		reason = sw_json_path_str(cs, reasons[i]);
	for (i = 0; cs != NULL && msg == NULL && messages[i] != NULL; i++)
		msg = sw_json_path_str(cs, messages[i]);
	if (reason == NULL || msg == NULL)
		pod_condition_why(p, &reason, &msg);
	return sw_jo("name", sw_js(sw_json_path_str(p, "metadata.name")),
	    "phase",
	    sw_js(sw_json_path_str(p, "status.phase")
		    ? sw_json_path_str(p, "status.phase")
		    : "Pending"),
	    "node",
	    sw_json_path_str(p, "spec.nodeName")
		? sw_js(sw_json_path_str(p, "spec.nodeName"))
		: NULL,
	    "restarts", sw_ji(cs ? sw_json_get_int(cs, "restartCount", 0) : 0),
	    "reason", reason ? sw_js(reason) : NULL, "message",
	    msg ? sw_js(msg) : NULL, NULL);
}

/* The newest WL_POD_EVENTS events about pod (from the namespace's
 * events, oldest first as Kubernetes lists them): what the scheduler
 * and the kubelet said (FailedScheduling, Pulling, BackOff...). */
#define WL_POD_EVENTS 5

static int
same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static json_object *
pod_events(json_object *events, const char *pod)
{
	json_object *all = json_object_new_array(), *out, *e;
	size_t i, n;

	for (i = 0; events != NULL && i < json_object_array_length(events);
	     i++) {
		e = json_object_array_get_idx(events, i);
		if (!same(sw_json_path_str(e, "involvedObject.kind"), "Pod") ||
		    !same(sw_json_path_str(e, "involvedObject.name"), pod))
			continue;
		json_object_array_add(all,
		    sw_jo("type", sw_js(sw_json_get_str(e, "type")), "reason",
			sw_js(sw_json_get_str(e, "reason")), "message",
			sw_js(sw_json_get_str(e, "message")), "count",
			sw_ji(sw_json_get_int(e, "count", 1)), "time",
			sw_js(sw_json_get_str(e, "lastTimestamp")
				? sw_json_get_str(e, "lastTimestamp")
				: sw_json_get_str(e, "eventTime")),
			NULL));
	}
	n = json_object_array_length(all);
	if (n <= WL_POD_EVENTS)
		return all;
	out = json_object_new_array();
	for (i = n - WL_POD_EVENTS; i < n; i++)
		json_object_array_add(
		    out, json_object_get(json_object_array_get_idx(all, i)));
	json_object_put(all);
	return out;
}

/* Kueue's objects a job's pending reason is read from (each a list,
 * empty when Kueue is not there). */
struct kueue_view {
	json_object *wls, *lqs, *cqs;
};

#define KUEUE_API "kueue.x-k8s.io/v1beta2"

/* Read the Workloads and LocalQueues of ns (all when NULL) and the
 * ClusterQueues into kv. */
static sw_err
kueue_read(
    struct sw_req *r, struct sw_kube *kb, const char *ns, struct kueue_view *kv)
{
	memset(kv, 0, sizeof(*kv));
	if (wl_list_objs(r, kb, KUEUE_API, ns, "workloads", NULL, &kv->wls) !=
		SW_OK ||
	    wl_list_objs(r, kb, KUEUE_API, ns, "localqueues", NULL, &kv->lqs) !=
		SW_OK ||
	    wl_list_objs(r, kb, KUEUE_API, NULL, "clusterqueues", NULL,
		&kv->cqs) != SW_OK)
		return r->err;
	return SW_OK;
}

static void
kueue_free(struct kueue_view *kv)
{
	json_object_put(kv->wls);
	json_object_put(kv->lqs);
	json_object_put(kv->cqs);
}

/* One job as answered; pods (borrowed, the job's) may be NULL in lists;
 * events (borrowed, the namespace's) may be NULL. */
static json_object *
job_summary(const struct job_kind *k, json_object *o, json_object *pods,
    json_object *events, const struct kueue_view *kv, int with_pods)
{
	const char *state = wl_job_state(k, o);
	json_object *out, *arr;
	size_t i;
	int running = 0;

	if (pods != NULL)
		for (i = 0; i < json_object_array_length(pods); i++) {
			const char *ph = sw_json_path_str(
			    json_object_array_get_idx(pods, i), "status.phase");

			running += ph != NULL && strcmp(ph, "Running") == 0;
		}
	if (strcmp(state, "Pending") == 0 && running > 0)
		state = "Running";
	out = sw_jo("job", sw_js(sw_json_path_str(o, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(o, "metadata.namespace")),
	    "kind", sw_js(k->kind), "type", sw_js(k->type), "state",
	    sw_js(state), "terminal", sw_jb(terminal(state)), "created",
	    sw_js(sw_json_path_str(o, "metadata.creationTimestamp")), "pending",
	    wl_job_pending(o, state, pods, kv->wls, kv->lqs, kv->cqs),
	    "elastic", wl_job_elastic(o, pods, kv->wls, kv->cqs, events), NULL);
	if (with_pods) {
		arr = json_object_new_array();
		for (i = 0; i < json_object_array_length(pods); i++) {
			json_object *p = json_object_array_get_idx(pods, i);
			json_object *ps = pod_summary(p);

			if (events != NULL)
				json_object_object_add(ps, "events",
				    pod_events(events,
					sw_json_path_str(p, "metadata.name")));
			json_object_array_add(arr, ps);
		}
		json_object_object_add(out, "pods", arr);
		json_object_object_add(
		    out, "status", json_object_get(sw_json_get(o, "status")));
	}
	return out;
}

/* The pods of all (one namespace's or every one's) that belong to o. */
static json_object *
pods_of(json_object *all, json_object *o)
{
	json_object *out = json_object_new_array();
	const char *job = sw_json_path_str(o, "metadata.name");
	const char *uid = sw_json_path_str(o, "metadata.uid");
	const char *ns = sw_json_path_str(o, "metadata.namespace");
	size_t i;

	for (i = 0; i < json_object_array_length(all); i++) {
		json_object *p = json_object_array_get_idx(all, i);

		if (same(sw_json_path_str(p, "metadata.namespace"), ns) &&
		    pod_of(p, job, uid))
			json_object_array_add(out, json_object_get(p));
	}
	json_object_array_sort(out, pod_cmp);
	return out;
}

sw_err
h_training_job_list(struct sw_req *r)
{
	const char *ns = sw_json_get_str(r->args, "namespace");
	const struct job_kind *k;
	json_object *out, *items, *all = NULL;
	struct kueue_view kv;
	struct sw_kube kb;
	size_t i;

	memset(&kv, 0, sizeof(kv));
	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	out = json_object_new_array();
	if (kueue_read(r, &kb, ns, &kv) != SW_OK ||
	    wl_list_objs(r, &kb, "v1", ns, "pods", NULL, &all) != SW_OK)
		goto out;
	for (k = job_kinds; k->api != NULL; k++) {
		if (wl_list_objs(r, &kb, k->api, ns, k->plural,
			WL_MANAGED "=slipway", &items) != SW_OK)
			goto out;
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *o = json_object_array_get_idx(items, i);

			json_object *pods;

			if (is_owned(o) ||
			    sw_json_get_str(sw_json_path(o, "metadata.labels"),
				WL_JOB) == NULL)
				continue;
			pods = pods_of(all, o);
			json_object_array_add(
			    out, job_summary(k, o, pods, NULL, &kv, 0));
			json_object_put(pods);
		}
		json_object_put(items);
	}
	sw_req_reply(r, 200, sw_jo("items", out, NULL));
	out = NULL;
out:
	json_object_put(out);
	json_object_put(all);
	kueue_free(&kv);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_training_job_get(struct sw_req *r)
{
	const struct job_kind *k;
	json_object *obj = NULL, *pods = NULL, *events = NULL;
	struct kueue_view kv;
	struct sw_kube kb;

	memset(&kv, 0, sizeof(kv));
	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "job"), &obj, &k) == SW_OK &&
	    wl_job_pods(r, &kb, obj, &pods) == SW_OK &&
	    wl_list_objs(r, &kb, "v1",
		sw_json_path_str(obj, "metadata.namespace"), "events", NULL,
		&events) == SW_OK &&
	    kueue_read(r, &kb, sw_json_path_str(obj, "metadata.namespace"),
		&kv) == SW_OK) {
		sw_req_reply(r, 200, job_summary(k, obj, pods, events, &kv, 1));
		json_object_object_add(r->out, "training_plans",
		    h_plan_of_pods(r, sw_json_get_str(r->args, "name"), pods));
	}
	json_object_put(obj);
	json_object_put(pods);
	json_object_put(events);
	kueue_free(&kv);
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

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "job"), &obj, &k) != SW_OK ||
	    wl_job_pods(r, &kb, obj, &pods) != SW_OK)
		goto out;
	ns = sw_json_path_str(obj, "metadata.namespace");
	job = sw_json_path_str(obj, "metadata.name");
	if (sw_fmt(secret, sizeof(secret), "%s-hf-token", job) != SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "job name %s is too long", job);
		goto out;
	}
	refs = sw_ja(sw_jo("kind", sw_js(k->kind), "name", sw_js(job),
	    "namespace", sw_js(ns), NULL));
	for (i = 0; i < json_object_array_length(pods); i++)
		json_object_array_add(refs,
		    sw_jo("kind", sw_js("Pod"), "name",
			sw_js(
			    sw_json_path_str(json_object_array_get_idx(pods, i),
				"metadata.name")),
			"namespace", sw_js(ns), NULL));
	if (strcmp(k->kind, "Job") == 0)
		json_object_array_add(refs,
		    sw_jo("kind", sw_js("Secret"), "name", sw_js(secret),
			"namespace", sw_js(ns), NULL));
	if (r->dry_run) {
		sw_req_reply(
		    r, 200, sw_jo("dry_run", sw_jb(1), "deletes", refs, NULL));
		goto out;
	}
	if (wl_delete_obj(r, &kb, k->api, ns, k->plural, job) < 0) {
		json_object_put(refs);
		goto out;
	}
	/* Pods of a batch Job are orphaned by a plain DELETE: remove them
	 * (and the token Secret) ourselves. */
	for (i = 0; i < json_object_array_length(pods); i++)
		if (wl_delete_obj(r, &kb, "v1", ns, "pods",
			sw_json_path_str(json_object_array_get_idx(pods, i),
			    "metadata.name")) < 0) {
			json_object_put(refs);
			goto out;
		}
	if (strcmp(k->kind, "Job") == 0 &&
	    wl_delete_obj(r, &kb, "v1", ns, "secrets", secret) < 0) {
		json_object_put(refs);
		goto out;
	}
	sw_req_reply(r, 200,
	    sw_jo("deleted", refs, "job", sw_js(job), "namespace", sw_js(ns),
		NULL));
out:
	json_object_put(obj);
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}
