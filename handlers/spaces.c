/*
 * spaces.c: Spaces, HyperPod's development environments (space_*).
 *
 * A Space is a jupyter-k8s Workspace (workspace.jupyter.org/v1alpha1),
 * served once the amazon-sagemaker-spaces add-on is on (feature
 * spaces).  Its operator runs it as a Deployment workspace-<space> with
 * a home volume, gives it an access URL, and stops it after its idle
 * timeout by setting spec.desiredStatus to Stopped; space_stop and
 * space_start set that field themselves.  The owner is the person who
 * created it (annotation slipway.dev/owner); only the owner or a
 * platform admin stops, starts or deletes it, and an owner-only Space
 * shows how to connect to its owner alone.  With a team's queue its pod
 * is admitted by Kueue like a job's, so the team's quota holds it
 * pending, and space_get says why (handlers/pending.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "api/optable.h"

#define WS_API "workspace.jupyter.org/v1alpha1"
#define WS_CRD "workspaces.workspace.jupyter.org"
#define WS_SYSTEM_NS "jupyter-k8s-system"
#define WS_ACCESS "hyperpod-access-strategy"
#define WS_PORT 8888
#define WS_OWNER "slipway.dev/owner"
#define WS_STOPPED_BY "slipway.dev/stopped-by"
#define WS_SPACE "slipway.dev/space"
#define WS_NAME_LABEL "workspace.jupyter.org/workspace-name"
#define KUEUE_API "kueue.x-k8s.io/v1beta2"
#define Q_LABEL "kueue.x-k8s.io/queue-name"
#define P_LABEL "kueue.x-k8s.io/priority-class"

/* The product's template names and the add-on's WorkspaceTemplates. */
static const struct {
	const char *name, *object;
} templates[] = { { "jupyterlab", "sagemaker-jupyter-template" },
	{ "code-editor", "sagemaker-code-editor-template" }, { NULL, NULL } };

static int
same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static const char *
template_object(const char *name)
{
	int i;

	for (i = 0; templates[i].name != NULL; i++)
		if (same(templates[i].name, name))
			return templates[i].object;
	return NULL;
}

static const char *
template_name(const char *object)
{
	int i;

	for (i = 0; templates[i].name != NULL; i++)
		if (same(templates[i].object, object))
			return templates[i].name;
	return object;
}

/* ---- reading a Space ---------------------------------------------------- */

static json_object *
cond_of(json_object *ws, const char *type)
{
	json_object *conds = sw_json_path(ws, "status.conditions");
	size_t i;

	for (i = 0; conds && i < json_object_array_length(conds); i++)
		if (same(sw_json_get_str(
			     json_object_array_get_idx(conds, i), "type"),
			type))
			return json_object_array_get_idx(conds, i);
	return NULL;
}

static int
cond_true(json_object *ws, const char *type)
{
	return same(sw_json_get_str(cond_of(ws, type), "status"), "True");
}

static const char *
desired_of(json_object *ws)
{
	const char *d = sw_json_path_str(ws, "spec.desiredStatus");

	return d != NULL ? d : "Running";
}

/* Pending, Running, Stopping, Stopped or Failed, from the operator's
 * conditions. */
static const char *
space_state(json_object *ws)
{
	if (same(desired_of(ws), "Stopped"))
		return cond_true(ws, "Stopped") ? "Stopped" : "Stopping";
	if (cond_true(ws, "Degraded"))
		return "Failed";
	if (cond_true(ws, "Available"))
		return "Running";
	return "Pending";
}

static const char *
owner_of(json_object *ws)
{
	json_object *ann = sw_json_path(ws, "metadata.annotations");
	const char *o = sw_json_get_str(ann, WS_OWNER);

	return o != NULL
	    ? o
	    : sw_json_get_str(ann, "workspace.jupyter.org/created-by");
}

static int
owner_only(json_object *ws)
{
	return same(sw_json_path_str(ws, "spec.accessType"), "OwnerOnly");
}

static int
is_admin(const struct sw_req *r)
{
	return r->who.scope == SW_SCOPE_ADMIN;
}

/* May the caller change ws (or, owner-only, reach it)? */
static int
may_act(const struct sw_req *r, json_object *ws)
{
	const char *o = owner_of(ws);

	return o == NULL || is_admin(r) || same(o, r->who.name);
}

/* GPUs a Space asks for (limits, else requests). */
static int64_t
space_gpus(json_object *ws)
{
	json_object *res = sw_json_path(ws, "spec.resources");
	json_object *v = sw_json_get(sw_json_get(res, "limits"), WL_GPU);

	if (v == NULL)
		v = sw_json_get(sw_json_get(res, "requests"), WL_GPU);
	return v != NULL ? (int64_t)wl_qty(v) : 0;
}

static json_object *
priority_of(json_object *labels)
{
	const char *p = sw_json_get_str(labels, P_LABEL);
	size_t n;

	if (p == NULL)
		return NULL;
	n = strlen(p);
	if (n > 9 && strcmp(p + n - 9, "-priority") == 0)
		return json_object_new_string_len(p, (int)(n - 9));
	return sw_js(p);
}

static const char *
stopped_by(json_object *ws)
{
	const char *who;
	json_object *idle;

	if (!same(desired_of(ws), "Stopped"))
		return NULL;
	who = sw_json_get_str(
	    sw_json_path(ws, "metadata.annotations"), WS_STOPPED_BY);
	if (who != NULL)
		return who;
	idle = sw_json_path(ws, "spec.idleShutdown.enabled");
	return idle != NULL && json_object_get_boolean(idle) ? "idle" : NULL;
}

/* The summary every answer about a Space has.  A new object. */
static json_object *
space_summary(json_object *ws)
{
	json_object *labels = sw_json_path(ws, "metadata.labels");
	json_object *req = sw_json_path(ws, "spec.resources.requests");
	json_object *idle = sw_json_path(ws, "spec.idleShutdown");
	int idle_on = json_object_get_boolean(sw_json_get(idle, "enabled"));

	return sw_jo("space", sw_js(sw_json_path_str(ws, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(ws, "metadata.namespace")),
	    "display_name", sw_js(sw_json_path_str(ws, "spec.displayName")),
	    "template",
	    sw_js(template_name(sw_json_path_str(ws, "spec.templateRef.name"))),
	    "owner", sw_js(owner_of(ws)), "access",
	    sw_js(owner_only(ws) ? "owner-only" : "public"), "state",
	    sw_js(space_state(ws)), "desired", sw_js(desired_of(ws)),
	    "stopped_by", sw_js(stopped_by(ws)), "gpus", sw_ji(space_gpus(ws)),
	    "cpu", sw_js(sw_json_get_str(req, "cpu")), "memory",
	    sw_js(sw_json_get_str(req, "memory")), "storage",
	    sw_js(sw_json_path_str(ws, "spec.storage.size")),
	    "idle_timeout_minutes",
	    idle_on ? sw_ji(sw_json_get_int(idle, "idleTimeoutInMinutes", 0))
		    : NULL,
	    "queue", sw_js(sw_json_get_str(labels, Q_LABEL)), "priority",
	    priority_of(labels), "created",
	    sw_js(sw_json_path_str(ws, "metadata.creationTimestamp")), NULL);
}

/*
 * Find Space space in ns, or in any namespace when ns is NULL.  *ws is
 * a new reference.  404, or 409 when the name is in two namespaces.
 */
static sw_err
space_find(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *space, json_object **ws)
{
	json_object *items = NULL;
	size_t i;
	sw_err e;

	*ws = NULL;
	if (ns != NULL) {
		if ((e = wl_get_obj(r, kb, WS_API, ns, "workspaces", space,
			 ws)) == SW_ENOTFOUND)
			return sw_req_fail(r, SW_ENOTFOUND,
			    "no Space %s in "
			    "namespace %s",
			    space, ns);
		return e;
	}
	if (wl_list_objs(r, kb, WS_API, NULL, "workspaces", NULL, &items) !=
	    SW_OK)
		return r->err;
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *o = json_object_array_get_idx(items, i);

		if (!same(sw_json_path_str(o, "metadata.name"), space))
			continue;
		if (*ws != NULL) {
			json_object_put(*ws);
			*ws = NULL;
			json_object_put(items);
			return sw_req_fail(r, SW_ECONFLICT,
			    "Space %s is in "
			    "more than one namespace; give namespace",
			    space);
		}
		*ws = json_object_get(o);
	}
	json_object_put(items);
	if (*ws == NULL)
		return sw_req_fail(r, SW_ENOTFOUND, "no Space %s", space);
	return SW_OK;
}

/* ---- creating ------------------------------------------------------------ */

static json_object *
space_resources(json_object *a)
{
	json_object *req = json_object_new_object(), *lim = NULL;
	int64_t gpus = sw_json_get_int(a, "gpus", 0);

	if (sw_json_get(a, "cpu") != NULL)
		json_object_object_add(req, "cpu",
		    sw_jsf("%lld", (long long)sw_json_get_int(a, "cpu", 1)));
	if (sw_json_get(a, "memory_gib") != NULL)
		json_object_object_add(req, "memory",
		    sw_jsf("%lldGi",
			(long long)sw_json_get_int(a, "memory_gib", 4)));
	if (gpus > 0) {
		json_object_object_add(
		    req, WL_GPU, sw_jsf("%lld", (long long)gpus));
		lim = sw_jo(WL_GPU, sw_jsf("%lld", (long long)gpus), NULL);
	}
	return sw_jo("requests", req, "limits", lim, NULL);
}

static json_object *
space_manifest(const struct sw_req *r, const char *ns, const char *tmpl)
{
	json_object *a = r->args, *spec;
	const char *space = sw_json_get_str(a, "space");
	int64_t idle = sw_json_get_int(a, "idle_timeout_minutes", 60);
	const char *access = same(sw_json_get_str(a, "access"), "public")
	    ? "Public"
	    : "OwnerOnly";
	const char *itype = sw_json_get_str(a, "instance_type");

	spec = sw_jo("displayName", sw_js(wl_str_or(a, "display_name", space)),
	    "templateRef",
	    sw_jo("name", sw_js(tmpl), "namespace", sw_js(WS_SYSTEM_NS), NULL),
	    "image", sw_js(sw_json_get_str(a, "image")), "resources",
	    space_resources(a), "storage",
	    sw_jo("size",
		sw_jsf(
		    "%lldGi", (long long)sw_json_get_int(a, "storage_gib", 10)),
		NULL),
	    "accessType", sw_js(access), "ownershipType", sw_js(access),
	    "accessStrategy",
	    sw_jo("name", sw_js(WS_ACCESS), "namespace", sw_js(WS_SYSTEM_NS),
		NULL),
	    "desiredStatus", sw_js("Running"), NULL);
	if (idle > 0)
		json_object_object_add(spec, "idleShutdown",
		    sw_jo("enabled", sw_jb(1), "idleTimeoutInMinutes",
			sw_ji(idle), "detection",
			sw_jo("httpGet",
			    sw_jo("path", sw_js("/api/idle"), "port",
				sw_ji(WS_PORT), NULL),
			    NULL),
			NULL));
	if (itype != NULL || sw_json_get_int(a, "gpus", 0) > 0)
		json_object_object_add(
		    spec, "nodeSelector", wl_node_selector(itype));
	if (sw_json_get_int(a, "gpus", 0) > 0)
		json_object_object_add(
		    spec, "tolerations", wl_gpu_tolerations());
	return sw_jo("apiVersion", sw_js(WS_API), "kind", sw_js("Workspace"),
	    "metadata",
	    sw_jo("name", sw_js(space), "namespace", sw_js(ns), "labels",
		sw_jo(
		    WL_MANAGED, sw_js("slipway"), WS_SPACE, sw_js(space), NULL),
		"annotations", sw_jo(WS_OWNER, sw_js(r->who.name), NULL), NULL),
	    "spec", spec, NULL);
}

/* 409 unless the add-on serves Workspaces and has template tmpl. */
static sw_err
space_ready(struct sw_req *r, struct sw_kube *kb, const char *tmpl)
{
	json_object *t = NULL;
	int have = wl_crd_present(r, kb, WS_CRD);
	sw_err e;

	if (have < 0)
		return r->err;
	if (have == 0)
		return wl_need_feature(r, "template", "spaces",
		    "HyperPod Spaces (the amazon-sagemaker-spaces add-on)");
	e = wl_get_obj(
	    r, kb, WS_API, WS_SYSTEM_NS, "workspacetemplates", tmpl, &t);
	json_object_put(t);
	if (e == SW_ENOTFOUND) {
		sw_ferr_add(&r->ferrs, "template", "exists",
		    "the cluster has "
		    "no WorkspaceTemplate %s/%s",
		    WS_SYSTEM_NS, tmpl);
		return sw_req_fail(r, SW_ECONFLICT,
		    "no WorkspaceTemplate "
		    "%s/%s on the cluster",
		    WS_SYSTEM_NS, tmpl);
	}
	return e;
}

static sw_err
space_fits(struct sw_req *r, const char *cluster)
{
	struct wl_fit f = { .cluster = cluster,
		.instance_type = sw_json_get_str(r->args, "instance_type"),
		.gpus = sw_json_get_int(r->args, "gpus", 0),
		.gpu_field = "gpus",
		.efa_field = "gpus" };

	if (f.gpus == 0 && f.instance_type == NULL)
		return SW_OK;
	return wl_check_fit(r, &f);
}

sw_err
h_space_create(struct sw_req *r)
{
	const char *cluster = sw_json_get_str(r->args, "name");
	const char *space = sw_json_get_str(r->args, "space");
	const char *tmpl =
	    template_object(wl_str_or(r->args, "template", "jupyterlab"));
	json_object *list = NULL, *m, *old = NULL, *refs;
	char team_ns[128];
	const char *ns = wl_ns_or(r->args, team_ns, sizeof(team_ns), "default");
	struct sw_kube kb;
	sw_err e;

	if (tmpl == NULL)
		return sw_req_fail(r, SW_EINVAL, "unknown template");
	if (space_fits(r, cluster) != SW_OK ||
	    wl_kube_open(r, cluster, &kb) != SW_OK)
		return r->err;
	if (space_ready(r, &kb, tmpl) != SW_OK)
		goto out;
	e = wl_get_obj(r, &kb, WS_API, ns, "workspaces", space, &old);
	json_object_put(old);
	if (e == SW_OK) {
		sw_ferr_add(&r->ferrs, "space", "unique",
		    "Space %s exists in "
		    "namespace %s",
		    space, ns);
		sw_req_fail(r, SW_ECONFLICT,
		    "Space %s exists; delete it or "
		    "pick another name",
		    space);
		goto out;
	}
	if (e != SW_ENOTFOUND)
		goto out;
	list = json_object_new_array();
	if (strcmp(ns, "default") != 0)
		json_object_array_add(list,
		    sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Namespace"),
			"metadata",
			sw_jo("name", sw_js(ns), "labels",
			    sw_jo(WL_MANAGED, sw_js("slipway"), NULL), NULL),
			NULL));
	m = space_manifest(r, ns, tmpl);
	json_object_array_add(list, m);
	if (h_kueue_labels(r, cluster, ns, m) != SW_OK)
		goto out;
	if (r->dry_run) {
		wl_answer_plan(r, list, sw_jo("space", sw_js(space), NULL));
		list = NULL;
		goto out;
	}
	refs = json_object_new_array();
	if (wl_apply_all(r, &kb, list, refs) != SW_OK) {
		json_object_put(refs);
		goto out;
	}
	wl_answer_applied(r, 201,
	    sw_jo("space", sw_js(space), "namespace", sw_js(ns), "owner",
		sw_js(r->who.name), "template",
		sw_js(wl_str_or(r->args, "template", "jupyterlab")), NULL),
	    refs);
out:
	json_object_put(list);
	sw_kube_close(&kb);
	return r->err;
}

/* ---- listing and reading -------------------------------------------------- */

sw_err
h_space_list(struct sw_req *r)
{
	json_object *items = NULL, *out;
	struct sw_kube kb;
	size_t i;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_list_objs(r, &kb, WS_API, sw_json_get_str(r->args, "namespace"),
		"workspaces", NULL, &items) == SW_OK) {
		out = json_object_new_array();
		for (i = 0; i < json_object_array_length(items); i++)
			json_object_array_add(out,
			    space_summary(json_object_array_get_idx(items, i)));
		sw_req_reply(r, 200, sw_jo("items", out, NULL));
	}
	json_object_put(items);
	sw_kube_close(&kb);
	return r->err;
}

/* Why a Pending Space waits: its pod's Workload (Kueue) or the
 * scheduler.  NULL when it does not wait. */
static json_object *
space_pending(
    struct sw_req *r, struct sw_kube *kb, json_object *ws, json_object *pods)
{
	const char *ns = sw_json_path_str(ws, "metadata.namespace");
	json_object *wls = NULL, *lqs = NULL, *cqs = NULL, *out = NULL;

	if (!same(space_state(ws), "Pending"))
		return NULL;
	if (json_object_array_length(pods) == 0)
		return wl_pods_pending(pods);
	if (wl_list_objs(r, kb, KUEUE_API, ns, "workloads", NULL, &wls) ==
		SW_OK &&
	    wl_list_objs(r, kb, KUEUE_API, ns, "localqueues", NULL, &lqs) ==
		SW_OK &&
	    wl_list_objs(r, kb, KUEUE_API, NULL, "clusterqueues", NULL, &cqs) ==
		SW_OK)
		out = wl_job_pending(json_object_array_get_idx(pods, 0),
		    "Pending", pods, wls, lqs, cqs);
	json_object_put(wls);
	json_object_put(lqs);
	json_object_put(cqs);
	return out;
}

/* The Session Manager route to the Space's pod: a port forward through
 * the HyperPod node it runs on.  A new object, or NULL. */
static json_object *
space_ide(
    struct sw_req *r, struct sw_kube *kb, const char *cluster, json_object *pod)
{
	const char *node = sw_json_path_str(pod, "spec.nodeName");
	const char *ip = sw_json_path_str(pod, "status.podIP");
	json_object *n = NULL, *hp = NULL, *labels, *out = NULL;
	const char *arn, *id, *inst, *group;
	char target[256], cmd[640];
	struct aws_error err;

	if (node == NULL || ip == NULL ||
	    wl_get_obj(r, kb, "v1", NULL, "nodes", node, &n) != SW_OK)
		return NULL;
	labels = sw_json_path(n, "metadata.labels");
	/* HyperPod names a node hyperpod-<instance-id> */
	inst = sw_json_get_str(labels, "sagemaker.amazonaws.com/instance-id");
	if (inst == NULL && strncmp(node, "hyperpod-i-", 11) == 0)
		inst = node + 9;
	group = sw_json_get_str(
	    labels, "sagemaker.amazonaws.com/instance-group-name");
	memset(&err, 0, sizeof(err));
	if (inst != NULL && group != NULL &&
	    h_hp_describe(r, cluster, &hp, &err) == SW_OK) {
		arn = sw_json_get_str(hp, "ClusterArn");
		id = arn && strrchr(arn, '/') ? strrchr(arn, '/') + 1 : "";
		if (sw_fmt(target, sizeof(target), "sagemaker-cluster:%s_%s-%s",
			id, group, inst) == SW_OK &&
		    sw_fmt(cmd, sizeof(cmd),
			"aws ssm start-session --target %s --region %s "
			"--document-name AWS-StartPortForwardingSessionToRemoteHost "
			"--parameters host=%s,portNumber=%d,localPortNumber=%d",
			target, h_aws(r)->region, ip, WS_PORT,
			WS_PORT) == SW_OK)
			out = sw_jo("node", sw_js(node), "pod_ip", sw_js(ip),
			    "ssm_target", sw_js(target), "ssm_command",
			    sw_js(cmd), NULL);
	}
	json_object_put(hp);
	json_object_put(n);
	return out;
}

static json_object *
space_pods(struct sw_req *r, struct sw_kube *kb, json_object *ws)
{
	json_object *pods = NULL;
	char sel[200];

	if (sw_fmt(sel, sizeof(sel), WS_NAME_LABEL "=%s",
		sw_json_path_str(ws, "metadata.name")) != SW_OK ||
	    wl_list_objs(r, kb, "v1",
		sw_json_path_str(ws, "metadata.namespace"), "pods", sel,
		&pods) != SW_OK)
		return NULL;
	return pods;
}

sw_err
h_space_get(struct sw_req *r)
{
	const char *cluster = sw_json_get_str(r->args, "name");
	json_object *ws = NULL, *pods = NULL, *out, *connect, *o;
	int allowed, running;
	struct sw_kube kb;

	if (wl_kube_open(r, cluster, &kb) != SW_OK)
		return r->err;
	if (space_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "space"), &ws) != SW_OK ||
	    (pods = space_pods(r, &kb, ws)) == NULL)
		goto out;
	out = space_summary(ws);
	if ((o = space_pending(r, &kb, ws, pods)) != NULL)
		json_object_object_add(out, "pending", o);
	allowed = !owner_only(ws) || may_act(r, ws);
	running = same(space_state(ws), "Running");
	connect = sw_jo("allowed", sw_jb(allowed), NULL);
	if (allowed && running) {
		sw_json_add_str(connect, "web_url",
		    sw_json_path_str(ws, "status.accessURL"));
		if (json_object_array_length(pods) > 0 &&
		    (o = space_ide(r, &kb, cluster,
			 json_object_array_get_idx(pods, 0))) != NULL)
			json_object_object_add(connect, "ide", o);
	}
	json_object_object_add(out, "connect", connect);
	if (sw_json_get(ws, "status") != NULL)
		json_object_object_add(
		    out, "status", json_object_get(sw_json_get(ws, "status")));
	if (r->err == SW_OK)
		sw_req_reply(r, 200, out);
	else
		json_object_put(out);
out:
	json_object_put(ws);
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}

/* ---- stopping, starting, deleting ----------------------------------------- */

/* Open the cluster and find the Space the caller may change. */
static sw_err
space_mine(struct sw_req *r, struct sw_kube *kb, json_object **ws)
{
	*ws = NULL;
	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), kb) != SW_OK ||
	    space_find(r, kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "space"), ws) != SW_OK)
		return r->err;
	if (!may_act(r, *ws)) {
		sw_ferr_add(&r->ferrs, "space", "owner",
		    "Space %s belongs "
		    "to %s; only its owner or a platform admin may change it",
		    sw_json_get_str(r->args, "space"), owner_of(*ws));
		return sw_req_fail(r, SW_EFORBIDDEN,
		    "not the owner of Space "
		    "%s",
		    sw_json_get_str(r->args, "space"));
	}
	return SW_OK;
}

static sw_err
space_set_desired(struct sw_req *r, const char *desired)
{
	json_object *ws = NULL, *patch = NULL;
	const char *ns;
	struct sw_kube kb;
	int changed;

	memset(&kb, 0, sizeof(kb));
	if (space_mine(r, &kb, &ws) != SW_OK)
		goto out;
	ns = sw_json_path_str(ws, "metadata.namespace");
	changed = !same(desired_of(ws), desired);
	patch = sw_jo("metadata",
	    sw_jo("annotations",
		sw_jo(WS_STOPPED_BY,
		    same(desired, "Stopped") ? sw_js(r->who.name)
					     : json_object_new_null(),
		    NULL),
		NULL),
	    "spec", sw_jo("desiredStatus", sw_js(desired), NULL), NULL);
	if (r->dry_run) {
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "space",
			sw_js(sw_json_get_str(r->args, "space")), "namespace",
			sw_js(ns), "patch", json_object_get(patch), NULL));
		goto out;
	}
	if (changed &&
	    wl_patch_obj(r, &kb, WS_API, ns, "workspaces",
		sw_json_get_str(r->args, "space"), patch, NULL) != SW_OK)
		goto out;
	sw_req_reply(r, 200,
	    sw_jo("space", sw_js(sw_json_get_str(r->args, "space")),
		"namespace", sw_js(ns), "desired", sw_js(desired), "changed",
		sw_jb(changed), "status_tool", sw_js(r->op->status_tool),
		"poll_interval_seconds", sw_ji(r->op->poll_seconds), NULL));
out:
	json_object_put(patch);
	json_object_put(ws);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_space_stop(struct sw_req *r)
{
	return space_set_desired(r, "Stopped");
}

sw_err
h_space_start(struct sw_req *r)
{
	return space_set_desired(r, "Running");
}

sw_err
h_space_delete(struct sw_req *r)
{
	json_object *ws = NULL, *refs;
	const char *ns;
	struct sw_kube kb;

	memset(&kb, 0, sizeof(kb));
	if (space_mine(r, &kb, &ws) != SW_OK)
		goto out;
	ns = sw_json_path_str(ws, "metadata.namespace");
	refs = json_object_new_array();
	json_object_array_add(refs, wl_manifest_ref(ws));
	if (r->dry_run) {
		sw_req_reply(
		    r, 200, sw_jo("dry_run", sw_jb(1), "deletes", refs, NULL));
		goto out;
	}
	if (wl_delete_obj(r, &kb, WS_API, ns, "workspaces",
		sw_json_get_str(r->args, "space")) < 0) {
		json_object_put(refs);
		goto out;
	}
	sw_req_reply(r, 200,
	    sw_jo("deleted", refs, "space",
		sw_js(sw_json_get_str(r->args, "space")), "namespace",
		sw_js(ns), NULL));
out:
	json_object_put(ws);
	sw_kube_close(&kb);
	return r->err;
}
