/*
 * watch.c: the poller watches what changes on the clusters without an
 * operation and turns each change into a notification event
 * (lib/notify.h), once per poll interval (of a cluster still being
 * created, only its HyperPod events, once HyperPod has it):
 *
 *   job       HyperPodPyTorchJobs and RayJobs: job.failed, job.succeeded,
 *             job.preempted (running, then suspended by the queue),
 *             job.recovered (running again after failed or preempted);
 *   endpoint  self-hosted inference endpoints (their server Deployment
 *             and pods): endpoint.failed (a server crash-loops, cannot
 *             pull its image or failed), endpoint.recovered (ready
 *             again after failing); the inference operator's
 *             InferenceEndpointConfigs and JumpStartModels by the
 *             state the operator writes in their status: failed at
 *             DeploymentFailed, recovered at DeploymentComplete after;
 *   node      the health label HyperPod's agents set on each node
 *             (sagemaker.amazonaws.com/node-health-status):
 *             node.unhealthy (anything but Schedulable), node.recovered;
 *   events    HyperPod's cluster events (ListClusterEvents): each new
 *             one is a cluster.event.
 *
 * A job's or an endpoint's team is its namespace's (hyperpod-ns-<team>).
 * Everything is read first; then, in one transaction per cluster, each
 * object's state is set against the last one seen (lib/notify.c): a
 * first sight is a baseline, a change writes its event with it (a
 * trigger), an object gone is forgotten, and the cluster events' cursor
 * moves event by event.  Killed before the commit, the poller records
 * nothing and the next pass sees the same changes: each is reported
 * once.  When nothing changed, a pass costs its reads and one SELECT per
 * cluster, and writes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "cloud/kube.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ledger.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "lib/ops.h"
#include "pipelines/pipeline.h"
#include "poller/pace.h"
#include "poller/watch.h"

#define NS_PREFIX "hyperpod-ns-"
#define HEALTH_LABEL "sagemaker.amazonaws.com/node-health-status"
#define SERVER_SEL "slipway.dev/role=server"
#define INF_LABEL "slipway.dev/inference"
#define INF_API "/apis/inference.sagemaker.aws.amazon.com/v1/"
#define EVENT_PAGES 10 /* at most 1,000 cluster events a pass */

/* Which kinds a pass listed in full (only those forget what is gone). */
enum {
	LISTED_JOB = 1,
	LISTED_ENDPOINT = 2,
	LISTED_NODE = 4,
	LISTED_MANAGED = 8
};

/* The inference operator's kinds: a managed endpoint's key is
 * "<kind>/<ns>/<name>", a self-hosted one's "<ns>/<name>". */
/* clang-format off */
static const struct { const char *kind, *plural, *name; } managed_kinds[] = {
	{ "InferenceEndpointConfig", "inferenceendpointconfigs", "managed" },
	{ "JumpStartModel", "jumpstartmodels", "jumpstart" },
};
/* clang-format on */
#define N_MANAGED (sizeof(managed_kinds) / sizeof(managed_kinds[0]))

struct pass {
	struct sw_db *db;
	struct aws_ctx *aws;
	const char *cluster;
	json_object *obs; /* [{kind, key, state, team, data}] */
	json_object *events; /* new cluster events, oldest first */
	unsigned listed;
	int64_t now_ms;
};

/* ---- what a change makes ------------------------------------------- */

static int
is(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/*
 * The state to record for kind seen in state now after before.  A job
 * or an endpoint waiting again (Pending) after it failed or was
 * preempted keeps what it waits after, "Pending/Failed", so that
 * running or ready again is its recovery however many passes it took.
 */
static void
settle(
    const char *kind, const char *before, const char *now, char *out, size_t sz)
{
	if (!is(kind, "node") && is(now, "Pending")) {
		if (strchr(before, '/') != NULL) {
			sw_fmt_text(out, sz, "%s", before);
			return;
		}
		if (is(before, "Failed") || is(before, "Suspended")) {
			sw_fmt_text(out, sz, "Pending/%s", before);
			return;
		}
	}
	sw_fmt_text(out, sz, "%s", now);
}

/* The event a change of kind from state `from` to `to` makes, or NULL. */
static const char *
transition(const char *kind, const char *from, const char *to)
{
	const char *slash = strchr(from, '/');

	/* waiting after a failure or preemption: from what it waits after,
	 * and failing again while still failing is no new event */
	if (slash != NULL)
		from = slash + 1;
	if (is(to, "Failed") && is(from, "Failed"))
		return NULL;
	if (is(kind, "job")) {
		if (is(to, "Failed"))
			return "job.failed";
		if (is(to, "Succeeded"))
			return "job.succeeded";
		if (is(to, "Suspended"))
			return is(from, "Running") ? "job.preempted" : NULL;
		if (is(to, "Running") &&
		    (is(from, "Failed") || is(from, "Suspended")))
			return "job.recovered";
		return NULL;
	}
	if (is(kind, "endpoint")) {
		if (is(to, "Failed"))
			return "endpoint.failed";
		return is(to, "Ready") && is(from, "Failed")
		    ? "endpoint.recovered"
		    : NULL;
	}
	if (is(kind, "node"))
		return is(to, "Schedulable") ? "node.recovered"
					     : "node.unhealthy";
	return NULL;
}

/* ---- reading ---------------------------------------------------------- */

static void
observe(struct pass *p, const char *kind, const char *key, const char *state,
    const char *ns, json_object *data)
{
	const char *team = NULL;

	if (ns != NULL && strncmp(ns, NS_PREFIX, strlen(NS_PREFIX)) == 0 &&
	    ns[strlen(NS_PREFIX)] != '\0')
		team = ns + strlen(NS_PREFIX);
	if (team != NULL)
		sw_json_add_str(data, "team", team);
	json_object_array_add(p->obs,
	    sw_jo("kind", sw_js(kind), "key", sw_js(key), "state", sw_js(state),
		"team", team ? sw_js(team) : NULL, "data", data, NULL));
}

/* The last condition of o whose status is True, or NULL. */
static json_object *
last_true(json_object *o)
{
	json_object *conds = sw_json_path(o, "status.conditions"), *c = NULL;
	size_t i;

	for (i = 0; conds && i < json_object_array_length(conds); i++)
		if (is(sw_json_get_str(
			   json_object_array_get_idx(conds, i), "status"),
			"True"))
			c = json_object_array_get_idx(conds, i);
	return c;
}

static const char *
hpj_state(json_object *o)
{
	const char *t = sw_json_get_str(last_true(o), "type");

	if (is(t, "Completed") || is(t, "Succeeded"))
		return "Succeeded";
	if (is(t, "Failed"))
		return "Failed";
	if (sw_json_get_bool(sw_json_path(o, "spec.runPolicy"), "suspend", 0))
		return "Suspended";
	return is(t, "Running") ? "Running" : "Pending";
}

static const char *
ray_state(json_object *o)
{
	const char *js = sw_json_path_str(o, "status.jobStatus");
	const char *ds = sw_json_path_str(o, "status.jobDeploymentStatus");

	if (is(js, "SUCCEEDED"))
		return "Succeeded";
	if (is(js, "FAILED") || is(js, "STOPPED") || is(ds, "Failed") ||
	    is(ds, "ValidationFailed"))
		return "Failed";
	if (is(ds, "Suspended") || is(ds, "Suspending") ||
	    sw_json_get_bool(sw_json_get(o, "spec"), "suspend", 0))
		return "Suspended";
	return is(js, "RUNNING") ? "Running" : "Pending";
}

/* Every job of one kind; 0 when the list was read. */
static int
read_jobs(struct pass *p, struct sw_kube *kb, const char *path,
    const char *what, const char *(*state)(json_object *))
{
	json_object *list = NULL, *items;
	struct k8s_error ke;
	char key[600];
	size_t i;

	if (k8s_list(&kb->k, path, NULL, &list, &ke) != SW_OK)
		return -1;
	items = sw_json_get(list, "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *o = json_object_array_get_idx(items, i);
		const char *ns = sw_json_path_str(o, "metadata.namespace");
		const char *name = sw_json_path_str(o, "metadata.name");
		json_object *c = last_true(o);

		if (ns == NULL || name == NULL ||
		    sw_json_path(o, "metadata.ownerReferences[0]") != NULL ||
		    sw_fmt(key, sizeof(key), "%s/%s/%s", what, ns, name) !=
			SW_OK)
			continue;
		observe(p, "job", key, state(o), ns,
		    sw_jo("subject", sw_jsf("%s %s/%s", what, ns, name), "job",
			sw_js(name), "namespace", sw_js(ns), "job_kind",
			sw_js(what), "reason",
			sw_json_get_str(c, "reason")
			    ? sw_js(sw_json_get_str(c, "reason"))
			    : NULL,
			"message",
			sw_json_get_str(c, "message")
			    ? sw_js(sw_json_get_str(c, "message"))
			    : NULL,
			NULL));
	}
	json_object_put(list);
	return 0;
}

/* Why a pod of an endpoint's server fails, or NULL when it does not. */
static const char *
pod_failure(json_object *pod)
{
	json_object *cs = sw_json_path(pod, "status.containerStatuses");
	const char *r;
	size_t i;

	if (is(sw_json_path_str(pod, "status.phase"), "Failed"))
		return sw_json_path_str(pod, "status.reason") ?: "Failed";
	for (i = 0; cs && i < json_object_array_length(cs); i++) {
		r = sw_json_path_str(
		    json_object_array_get_idx(cs, i), "state.waiting.reason");
		if (is(r, "CrashLoopBackOff") || is(r, "ImagePullBackOff") ||
		    is(r, "ErrImagePull") || is(r, "CreateContainerError") ||
		    is(r, "RunContainerError") || is(r, "StartError"))
			return r;
		r = sw_json_path_str(json_object_array_get_idx(cs, i),
		    "lastState.terminated.reason");
		if (is(r, "StartError") || is(r, "Error"))
			return r;
	}
	return NULL;
}

/* The failure of a server pod of endpoint name in ns, or NULL. */
static const char *
endpoint_failure(json_object *pods, const char *ns, const char *name)
{
	json_object *items = sw_json_get(pods, "items");
	const char *why;
	size_t i;

	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *pod = json_object_array_get_idx(items, i);

		if (is(sw_json_path_str(pod, "metadata.namespace"), ns) &&
		    is(sw_json_get_str(
			   sw_json_path(pod, "metadata.labels"), INF_LABEL),
			name) &&
		    (why = pod_failure(pod)) != NULL)
			return why;
	}
	return NULL;
}

static void
endpoint_one(struct pass *p, json_object *dep, json_object *pods)
{
	const char *ns = sw_json_path_str(dep, "metadata.namespace");
	const char *name =
	    sw_json_get_str(sw_json_path(dep, "metadata.labels"), INF_LABEL);
	int64_t want = sw_json_get_int(sw_json_get(dep, "spec"), "replicas", 1);
	int64_t ready =
	    sw_json_get_int(sw_json_get(dep, "status"), "readyReplicas", 0);
	const char *why, *state;
	char key[600];

	if (name == NULL)
		name = sw_json_path_str(dep, "metadata.name");
	if (ns == NULL || name == NULL ||
	    sw_fmt(key, sizeof(key), "%s/%s", ns, name) != SW_OK)
		return;
	why = endpoint_failure(pods, ns, name);
	state = why != NULL             ? "Failed"
	    : ready >= want && want > 0 ? "Ready"
					: "Pending";
	observe(p, "endpoint", key, state, ns,
	    sw_jo("subject", sw_jsf("endpoint %s/%s", ns, name), "endpoint",
		sw_js(name), "namespace", sw_js(ns), "replicas", sw_ji(want),
		"ready_replicas", sw_ji(ready), "reason",
		why ? sw_js(why) : NULL, NULL));
}

/* The self-hosted endpoints; 0 when both lists were read. */
static int
read_endpoints(struct pass *p, struct sw_kube *kb)
{
	json_object *deps = NULL, *pods = NULL, *items;
	struct k8s_error ke;
	size_t i;
	int rc = -1;

	if (k8s_list(&kb->k, "/apis/apps/v1/deployments", SERVER_SEL, &deps,
		&ke) == SW_OK &&
	    k8s_list(&kb->k, "/api/v1/pods", SERVER_SEL, &pods, &ke) == SW_OK) {
		items = sw_json_get(deps, "items");
		for (i = 0; items && i < json_object_array_length(items); i++)
			endpoint_one(
			    p, json_object_array_get_idx(items, i), pods);
		rc = 0;
	}
	json_object_put(deps);
	json_object_put(pods);
	return rc;
}

/* The watcher's state of an operator's status.state: Deletion* is no
 * failure of the endpoint, and anything before complete is Pending. */
static const char *
managed_state(const char *state)
{
	if (is(state, "DeploymentFailed"))
		return "Failed";
	if (is(state, "DeploymentComplete"))
		return "Ready";
	if (state != NULL && strncmp(state, "Deletion", 8) == 0)
		return "Deleting";
	return "Pending";
}

/* The endpoints of one of the inference operator's kinds (k); 0 when
 * the list was read (a cluster without the operator has no CRD). */
static int
read_managed_kind(struct pass *p, struct sw_kube *kb, size_t k)
{
	json_object *list = NULL, *items, *c;
	struct k8s_error ke;
	char path[160], key[600];
	size_t i;

	if (sw_fmt(path, sizeof(path), INF_API "%s", managed_kinds[k].plural) !=
		SW_OK ||
	    k8s_list(&kb->k, path, NULL, &list, &ke) != SW_OK)
		return -1;
	items = sw_json_get(list, "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *o = json_object_array_get_idx(items, i);
		const char *ns = sw_json_path_str(o, "metadata.namespace");
		const char *name = sw_json_path_str(o, "metadata.name");
		const char *st = sw_json_path_str(o, "status.state");

		if (ns == NULL || name == NULL ||
		    sw_fmt(key, sizeof(key), "%s/%s/%s", managed_kinds[k].kind,
			ns, name) != SW_OK)
			continue;
		c = last_true(o);
		observe(p, "endpoint", key, managed_state(st), ns,
		    sw_jo("subject", sw_jsf("endpoint %s/%s", ns, name),
			"endpoint", sw_js(name), "namespace", sw_js(ns),
			"endpoint_kind", sw_js(managed_kinds[k].name),
			"resource", sw_js(managed_kinds[k].kind),
			"operator_state", st ? sw_js(st) : NULL, "replicas",
			sw_ji(sw_json_get_int(
			    sw_json_get(o, "spec"), "replicas", 1)),
			"ready_replicas",
			sw_ji(sw_json_get_int(
			    sw_json_get(o, "status"), "replicas", 0)),
			"reason",
			sw_json_get_str(c, "reason")
			    ? sw_js(sw_json_get_str(c, "reason"))
			    : NULL,
			"message",
			sw_json_get_str(c, "message")
			    ? sw_js(sw_json_get_str(c, "message"))
			    : NULL,
			NULL));
	}
	json_object_put(list);
	return 0;
}

/* The inference operator's endpoints; 0 when every kind was read. */
static int
read_managed(struct pass *p, struct sw_kube *kb)
{
	size_t k;

	for (k = 0; k < N_MANAGED; k++)
		if (read_managed_kind(p, kb, k) != 0)
			return -1;
	return 0;
}

/* Each node's health label; 0 when the list was read. */
static int
read_nodes(struct pass *p, struct sw_kube *kb)
{
	json_object *list = NULL, *items, *labels;
	struct k8s_error ke;
	const char *name, *health;
	size_t i;

	if (k8s_list(&kb->k, "/api/v1/nodes", NULL, &list, &ke) != SW_OK)
		return -1;
	items = sw_json_get(list, "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *n = json_object_array_get_idx(items, i);

		labels = sw_json_path(n, "metadata.labels");
		name = sw_json_path_str(n, "metadata.name");
		if (name == NULL ||
		    (health = sw_json_get_str(labels, HEALTH_LABEL)) == NULL)
			continue;
		observe(p, "node", name, health, NULL,
		    sw_jo("subject", sw_jsf("node %s", name), "node",
			sw_js(name), "instance_id",
			sw_json_get_str(sw_json_path(n, "metadata.annotations"),
			    "sagemaker.amazonaws.com/"
			    "instance-id")
			    ? sw_js(sw_json_get_str(
				  sw_json_path(n, "metadata.annotations"),
				  "sagemaker.amazonaws.com/"
				  "instance-id"))
			    : NULL,
			"instance_group",
			sw_json_get_str(labels,
			    "sagemaker."
			    "amazonaws.com/instance-group-name")
			    ? sw_js(sw_json_get_str(labels,
				  "sagemaker.amazonaws.com/"
				  "instance-group-name"))
			    : NULL,
			"instance_type",
			sw_json_get_str(
			    labels, "node.kubernetes.io/instance-type")
			    ? sw_js(sw_json_get_str(
				  labels, "node.kubernetes.io/instance-type"))
			    : NULL,
			NULL));
	}
	json_object_put(list);
	return 0;
}

static void
read_kube(struct pass *p)
{
	struct sw_kube kb;
	struct aws_error err;
	int asked = 1;

	/* The endpoint and CA this poller saw last, without asking EKS
	 * each pass; forgotten when nothing could be read at them. */
	memset(&kb, 0, sizeof(kb));
	if (sw_kube_connect_known(
		p->aws, p->cluster, NULL, &kb, &err, &asked) == SW_OK) {
		if (read_nodes(p, &kb) == 0)
			p->listed |= LISTED_NODE;
		if (read_endpoints(p, &kb) == 0)
			p->listed |= LISTED_ENDPOINT;
		if (read_managed(p, &kb) == 0)
			p->listed |= LISTED_MANAGED;
		/* a kind whose CRD is not there is not listed: no job
		 * of it is forgotten */
		if (read_jobs(p, &kb,
			"/apis/sagemaker.amazonaws.com/v1/"
			"hyperpodpytorchjobs",
			"HyperPodPyTorchJob", hpj_state) == 0 &&
		    read_jobs(p, &kb, "/apis/ray.io/v1/rayjobs", "RayJob",
			ray_state) == 0)
			p->listed |= LISTED_JOB;
		if (p->listed == 0 && !asked)
			sw_kube_forget(p->cluster);
	}
	sw_kube_close(&kb);
}

/* ---- cluster events ---------------------------------------------------- */

/* An event's place: its time in ms and id, "<ms>:<id>". */
static sw_err
event_mark(json_object *ev, char *buf, size_t sz)
{
	double t = json_object_get_double(sw_json_get(ev, "EventTime"));

	return sw_fmt(buf, sz, "%013lld:%s", (long long)(t * 1000.0),
	    sw_json_get_str(ev, "EventId") ?: "");
}

/* One page of events after the cursor (mark, "" for none: the newest
 * one only, as the baseline); appended to p->events. */
static sw_err
events_page(struct pass *p, const char *mark, char *token, size_t tsz)
{
	json_object *in, *out = NULL, *evs;
	struct aws_error err;
	double after = mark[0] ? strtod(mark, NULL) / 1000.0 - 0.001 : 0;
	size_t i;
	sw_err e;

	if (after < 0)
		after = 0;
	in = sw_jo("ClusterName", sw_js(p->cluster), "EventTimeAfter",
	    mark[0] ? json_object_new_double(after) : NULL, "SortBy",
	    sw_js("EventTime"), "SortOrder",
	    sw_js(mark[0] ? "Ascending" : "Descending"), "MaxResults",
	    sw_ji(mark[0] ? 100 : 1), "NextToken",
	    token[0] ? sw_js(token) : NULL, NULL);
	memset(&err, 0, sizeof(err));
	e = aws_call(
	    p->aws, AWS_SVC_SAGEMAKER, "ListClusterEvents", in, &out, &err);
	json_object_put(in);
	token[0] = '\0';
	if (e != SW_OK)
		return e;
	evs = sw_json_get(out, "Events");
	for (i = 0; evs && i < json_object_array_length(evs); i++)
		json_object_array_add(p->events,
		    json_object_get(json_object_array_get_idx(evs, i)));
	if (mark[0] && sw_json_get_str(out, "NextToken") != NULL)
		sw_fmt_text(
		    token, tsz, "%s", sw_json_get_str(out, "NextToken"));
	json_object_put(out);
	return SW_OK;
}

/* The cluster's events after the cursor in seen; p->events stays NULL
 * when they could not be read (a cluster not in Continuous mode has
 * none to list). */
static void
read_events(struct pass *p, json_object *seen)
{
	const char *mark = sw_json_get_str(seen, "events ") ?: "";
	char token[2048] = "";
	int pages = 0;

	p->events = json_object_new_array();
	do {
		if (events_page(p, mark, token, sizeof(token)) != SW_OK) {
			json_object_put(p->events);
			p->events = NULL;
			return;
		}
	} while (token[0] != '\0' && ++pages < EVENT_PAGES);
}

/* Each event past the cursor moves it and is a cluster.event; with no
 * cursor yet the newest is the baseline. */
static sw_err
keep_events(struct pass *p, json_object *seen)
{
	const char *cur = sw_json_get_str(seen, "events ");
	struct sw_watch_obs w;
	char mark[128], last[128];
	size_t i;
	sw_err e;

	sw_fmt_text(last, sizeof(last), "%s", cur ? cur : "");
	for (i = 0; i < json_object_array_length(p->events); i++) {
		json_object *ev = json_object_array_get_idx(p->events, i);
		json_object *d;

		if (event_mark(ev, mark, sizeof(mark)) != SW_OK ||
		    (cur != NULL && strcmp(mark, last) <= 0))
			continue;
		d = sw_jo("subject", sw_jsf("%s %s",
		    sw_json_get_str(ev, "ResourceType") ?: "Cluster",
		    sw_json_get_str(ev, "InstanceId") ?:
		    sw_json_get_str(ev, "InstanceGroupName") ?: p->cluster),
		    "event", json_object_get(ev), NULL);
		w = (struct sw_watch_obs){ p->cluster, "events", "", mark, NULL,
			cur ? "cluster.event" : NULL,
			json_object_to_json_string_ext(
			    d, JSON_C_TO_STRING_PLAIN),
			p->now_ms };
		e = sw_watch_put(p->db, &w);
		json_object_put(d);
		if (e != SW_OK)
			return e;
		sw_fmt_text(last, sizeof(last), "%s", mark);
	}
	if (cur == NULL && json_object_array_length(p->events) == 0) {
		w = (struct sw_watch_obs){ p->cluster, "events", "", "0:", NULL,
			NULL, NULL, p->now_ms };
		return sw_watch_put(p->db, &w);
	}
	return SW_OK;
}

/* ---- writing ------------------------------------------------------------ */

/* One object against its last-seen state (seen[kind key], removed so
 * that what is left is gone). */
static sw_err
keep_obs(struct pass *p, json_object *seen, json_object *o)
{
	const char *kind = sw_json_get_str(o, "kind");
	const char *state = sw_json_get_str(o, "state");
	json_object *data = sw_json_get(o, "data");
	struct sw_watch_obs w;
	char sk[700], before[64], now[80], *slash;
	const char *was;

	if (sw_fmt(sk, sizeof(sk), "%s %s", kind, sw_json_get_str(o, "key")) !=
	    SW_OK)
		return SW_OK;
	was = sw_json_get_str(seen, sk);
	sw_fmt_text(before, sizeof(before), "%s", was ? was : "");
	json_object_object_del(seen, sk);
	settle(kind, before, state, now, sizeof(now));
	if (was != NULL && strcmp(before, now) == 0)
		return SW_OK;
	memset(&w, 0, sizeof(w));
	w.cluster = p->cluster;
	w.kind = kind;
	w.key = sw_json_get_str(o, "key");
	w.state = now;
	w.team = sw_json_get_str(o, "team");
	w.time_ms = p->now_ms;
	w.event = was != NULL ? transition(kind, before, state) : NULL;
	sw_json_add_str(data, "cluster", p->cluster);
	sw_json_add_str(data, "state", state);
	if ((slash = strchr(before, '/')) != NULL) {
		/* "previous": Pending, "after": what it waited after */
		sw_json_add_str(data, "after", slash + 1);
		*slash = '\0';
	}
	if (was != NULL)
		sw_json_add_str(data, "previous", before);
	w.data = json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN);
	if (w.event != NULL)
		sw_info(
		    "%s: %s (%s -> %s)", p->cluster, w.event, before, state);
	return sw_watch_put(p->db, &w);
}

/* The LISTED_ bit of a "<kind> <key>" of seen, 0 for the events. */
static unsigned
listed_bit(const char *k)
{
	size_t i, n;

	if (strncmp(k, "job ", 4) == 0)
		return LISTED_JOB;
	if (strncmp(k, "endpoint ", 9) == 0) {
		for (i = 0; i < N_MANAGED; i++) {
			n = strlen(managed_kinds[i].kind);
			if (strncmp(k + 9, managed_kinds[i].kind, n) == 0 &&
			    k[9 + n] == '/')
				return LISTED_MANAGED;
		}
		return LISTED_ENDPOINT;
	}
	return strncmp(k, "node ", 5) == 0 ? LISTED_NODE : 0;
}

/* What is left in seen of a kind listed in full is gone. */
static sw_err
forget_gone(struct pass *p, json_object *seen)
{
	const char *sp;
	char kind[16];
	sw_err e;

	json_object_object_foreach(seen, k, v)
	{
		(void)v;
		if ((p->listed & listed_bit(k)) == 0 ||
		    (sp = strchr(k, ' ')) == NULL ||
		    (size_t)(sp - k) >= sizeof(kind))
			continue;
		memcpy(kind, k, (size_t)(sp - k));
		kind[sp - k] = '\0';
		if ((e = sw_watch_drop(p->db, p->cluster, kind, sp + 1)) !=
		    SW_OK)
			return e;
	}
	return SW_OK;
}

static sw_err
keep(struct pass *p)
{
	json_object *seen = NULL;
	size_t i;
	sw_err e;

	if ((e = sw_watch_seen(p->db, p->cluster, &seen)) != SW_OK)
		return e;
	if (p->events != NULL && (e = keep_events(p, seen)) != SW_OK)
		goto out;
	json_object_object_del(seen, "events ");
	for (i = 0; i < json_object_array_length(p->obs); i++)
		if ((e = keep_obs(p, seen,
			 json_object_array_get_idx(p->obs, i))) != SW_OK)
			goto out;
	e = forget_gone(p, seen);
out:
	json_object_put(seen);
	return e;
}

/* Is there a cluster event past the cursor (or no cursor yet)? */
static int
new_events(struct pass *p, json_object *seen)
{
	const char *cur = sw_json_get_str(seen, "events ");
	char mark[128];
	size_t i;

	if (cur == NULL)
		return 1;
	for (i = 0; i < json_object_array_length(p->events); i++)
		if (event_mark(json_object_array_get_idx(p->events, i), mark,
			sizeof(mark)) == SW_OK &&
		    strcmp(mark, cur) > 0)
			return 1;
	return 0;
}

/* Does what was read differ from seen (read before it): a new cluster
 * event or cursor, an object new, changed or gone?  When it does not,
 * the pass writes nothing and takes no write lock. */
static int
differs(struct pass *p, json_object *seen)
{
	char sk[700], now[80];
	const char *was;
	size_t i, n = 0;

	if (p->events != NULL && new_events(p, seen))
		return 1;
	for (i = 0; i < json_object_array_length(p->obs); i++) {
		json_object *o = json_object_array_get_idx(p->obs, i);
		const char *kind = sw_json_get_str(o, "kind");

		if (sw_fmt(sk, sizeof(sk), "%s %s", kind,
			sw_json_get_str(o, "key")) != SW_OK)
			continue;
		if ((was = sw_json_get_str(seen, sk)) == NULL)
			return 1;
		settle(
		    kind, was, sw_json_get_str(o, "state"), now, sizeof(now));
		if (strcmp(was, now) != 0)
			return 1;
		if (p->listed & listed_bit(sk))
			n++;
	}
	/* no more seen of the kinds listed than observed: none gone */
	json_object_object_foreach(seen, k, v)
	{
		(void)v;
		if ((p->listed & listed_bit(k)) && n-- == 0)
			return 1;
	}
	return 0;
}

static void
watch_cluster(struct pass *p)
{
	json_object *seen = NULL;
	int changed, creating = 0, hyperpod = 1;

	if (sw_watch_seen(p->db, p->cluster, &seen) != SW_OK ||
	    sw_cluster_creating(p->db, p->cluster, &creating, &hyperpod) !=
		SW_OK) {
		json_object_put(seen);
		return;
	}
	(void)sw_db_idle(p->db);
	p->obs = json_object_new_array();
	/* A cluster being created runs nothing of anyone's yet, and its
	 * create waits for its nodes itself: only HyperPod's events are
	 * read until it is done, and those only once HyperPod has answered
	 * its CreateCluster: before, there is no cluster to list. */
	if (hyperpod)
		read_events(p, seen);
	if (!creating)
		read_kube(p);
	changed = differs(p, seen);
	json_object_put(seen);
	p->now_ms = sw_now_ms();
	if (changed && sw_db_begin(p->db) == SW_OK) {
		if (keep(p) != SW_OK) {
			sw_db_rollback(p->db);
			sw_warn("watch: cannot record what changed on %s",
			    p->cluster);
		} else if (sw_db_commit(p->db) != SW_OK)
			sw_warn("watch: cannot commit what changed on %s",
			    p->cluster);
	}
	json_object_put(p->obs);
	json_object_put(p->events);
}

int
sw_watch_tick(struct sw_db *db, struct aws_ctx *aws,
    const struct sw_config *cfg, int64_t every_ms, int64_t budget_ms, int rate)
{
	static int64_t last_ms; /* this process's pass before */
	int64_t until = sw_now_ms() + budget_ms;
	struct sw_pace pace;
	struct pass p;
	size_t i;
	int more = 0;

	if (sw_pace_begin(&pace, db, "watch", every_ms, rate, &last_ms) !=
	    SW_OK)
		return 0;
	for (i = 0; i < sw_pace_count(&pace); i++) {
		if (budget_ms > 0 && sw_now_ms() >= until) {
			more = 1;
			break;
		}
		if (!sw_pace_take(&pace, db, i))
			continue;
		memset(&p, 0, sizeof(p));
		p.db = db;
		p.cluster = sw_pace_cluster(&pace, i);
		if ((p.aws = sw_cluster_aws(db, aws, cfg, p.cluster)) == NULL)
			continue;
		watch_cluster(&p);
		(void)sw_db_idle(db);
	}
	sw_pace_end(&pace);
	return more;
}
