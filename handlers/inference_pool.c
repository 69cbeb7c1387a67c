/*
 * inference_pool.c: the hot GPU pool.  A pool is a set of model-server
 * pods kept loaded and Ready so an endpoint can get capacity in the
 * time it takes to change a label, not to schedule a pod and load a
 * model.  inference_pool_create/list/delete manage pools;
 * inference_pool_assign and _release move pods between a pool and an
 * endpoint deployed with exposure pool.
 *
 * The design is ReplicaSet-free, on purpose.  A pool's record is a
 * ConfigMap <pool>-pool (engine, model, size); its pods are bare Pods
 * named <pool>-<i>, each owned by the record (so deleting the record
 * garbage-collects them) and created and deleted only by these
 * handlers.  A pod belongs to an endpoint while it carries the label
 * slipway.dev/assigned-to=<endpoint>; the endpoint's Service selects
 * slipway.dev/pool=<pool>,slipway.dev/assigned-to=<endpoint>, so
 * assigning and releasing are label patches and the Service's endpoints
 * follow at once.  With no ReplicaSet there is no controller that could
 * pick an assigned pod when the pool shrinks: scale-in (create again
 * with fewer replicas) deletes free pods only, highest index first, and
 * keeps an assigned one however far the size drops.  A pod that dies is
 * not replaced behind the caller's back: inference_pool_create again
 * recreates the missing ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/inference.h"
#include "handlers/workloads.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"

#define POOL_SUFFIX "-pool"

/* The pool's record name. */
static sw_err
record_name(const char *pool, char *out, size_t outsz)
{
	return sw_fmt(out, outsz, "%s" POOL_SUFFIX, pool);
}

/* 1 when pod is Ready. */
static int
pod_ready(json_object *pod)
{
	json_object *c = sw_json_path(pod, "status.conditions");
	size_t i;
	const char *t, *st;

	if (sw_json_path(pod, "metadata.deletionTimestamp") != NULL)
		return 0;
	for (i = 0; c && i < json_object_array_length(c); i++) {
		t = sw_json_get_str(json_object_array_get_idx(c, i), "type");
		st = sw_json_get_str(json_object_array_get_idx(c, i), "status");
		if (t && st && strcmp(t, "Ready") == 0)
			return strcmp(st, "True") == 0;
	}
	return 0;
}

/* The endpoint a pool pod is assigned to, or NULL when free. */
static const char *
pod_owner(json_object *pod)
{
	return sw_json_get_str(
	    sw_json_path(pod, "metadata.labels"), WL_ASSIGNED);
}

/* The index i of a pod named <pool>-<i>, or -1. */
static long
pod_index(const char *pool, json_object *pod)
{
	const char *n = sw_json_path_str(pod, "metadata.name");
	size_t pl = strlen(pool);
	char *end;
	long i;

	if (n == NULL || strncmp(n, pool, pl) != 0 || n[pl] != '-' ||
	    n[pl + 1] < '0' || n[pl + 1] > '9')
		return -1;
	i = strtol(n + pl + 1, &end, 10);
	return *end == '\0' ? i : -1;
}

/* The pods of pool in ns (new array reference). */
static sw_err
pool_pods(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *pool, json_object **pods)
{
	char sel[160];

	*pods = NULL;
	if (sw_fmt(sel, sizeof(sel), "%s=slipway,%s=%s", WL_MANAGED, WL_POOL,
		pool) != SW_OK)
		return sw_req_fail(
		    r, SW_EINVAL, "pool name %s is too long", pool);
	return wl_list_objs(r, kb, "v1", ns, "pods", sel, pods);
}

/* The pool's record in ns; 404 naming the pool when absent. */
static sw_err
pool_record(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *pool, json_object **rec)
{
	char rn[96];
	sw_err e;

	*rec = NULL;
	if (record_name(pool, rn, sizeof(rn)) != SW_OK)
		return sw_req_fail(
		    r, SW_EINVAL, "pool name %s is too long", pool);
	e = wl_get_obj(r, kb, "v1", ns, "configmaps", rn, rec);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, SW_ENOTFOUND,
		    "no inference pool %s in "
		    "namespace %s",
		    pool, ns);
	if (e == SW_OK &&
	    sw_json_get_str(sw_json_path(*rec, "metadata.labels"), WL_POOL) ==
		NULL) {
		json_object_put(*rec);
		*rec = NULL;
		return sw_req_fail(r, SW_ENOTFOUND,
		    "no inference pool %s in "
		    "namespace %s",
		    pool, ns);
	}
	return e;
}

/* One pool pod's manifest. */
static json_object *
pool_pod(json_object *a, const struct engine *en, const char *ns,
    const char *pool, long i, json_object *rec)
{
	const char *model = sw_json_get_str(a, "model");
	int64_t g = sw_json_get_int(a, "gpus_per_replica", 1);
	const char *served = wl_str_or(a, "served_model_name", model);

	return sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Pod"),
	    "metadata",
	    sw_jo("name", sw_jsf("%s-%ld", pool, i), "namespace", sw_js(ns),
		"labels",
		sw_jo(WL_MANAGED, sw_js("slipway"), WL_POOL, sw_js(pool),
		    WL_ENGINE, sw_js(en->name), NULL),
		"ownerReferences",
		rec ? sw_ja(sw_jo("apiVersion", sw_js("v1"), "kind",
			  sw_js("ConfigMap"), "name",
			  sw_js(sw_json_path_str(rec, "metadata.name")), "uid",
			  sw_js(sw_json_path_str(rec, "metadata.uid")), NULL))
		    : NULL,
		NULL),
	    "spec",
	    sw_jo("containers",
		sw_ja(sw_jo("name", sw_js(en->name), "image",
		    sw_js(wl_str_or(a, "image", en->image)), "command",
		    inf_engine_argv(en, model, served, g),

		    "ports",
		    sw_ja(sw_jo("name", sw_js("http"), "containerPort",
			sw_ji(en->port), NULL)),
		    "resources", wl_accel_resources(g, 0), "readinessProbe",
		    sw_jo("httpGet",
			sw_jo("path", sw_js("/health"), "port", sw_ji(en->port),
			    NULL),
			"periodSeconds", sw_ji(10), NULL),
		    "volumeMounts", wl_data_mounts(1), NULL)),
		"volumes", wl_data_volumes(wl_str_or(a, "pvc", "s3-claim"), 1),
		"nodeSelector",
		wl_node_selector(sw_json_get_str(a, "instance_type")),
		"tolerations", wl_gpu_tolerations(), NULL),
	    NULL);
}

sw_err
h_inference_pool_create(struct sw_req *r)
{
	json_object *a = r->args, *rec = NULL, *applied = NULL, *pods = NULL,
		    *list = NULL, *refs = NULL, *kept = NULL, *p;
	const char *pool = sw_json_get_str(a, "pool_name");
	const char *ns = sw_json_get_str(a, "namespace");
	int64_t want = sw_json_get_int(a, "replicas", 0);

	const struct engine *en;
	char rn[96], *have = NULL;
	struct sw_kube kb;
	size_t i, n;
	long idx;

	for (en = wl_engines; en->name != NULL; en++)
		if (strcmp(en->name, sw_json_get_str(a, "engine")) == 0)
			break;
	if (wl_kube_open(r, sw_json_get_str(a, "name"), &kb) != SW_OK)
		return r->err;
	list = json_object_new_array();
	if (wl_storage_plan(r, &kb, sw_json_get_str(a, "name"), ns,
		wl_str_or(a, "pvc", "s3-claim"), sw_json_get(a, "pvc") != NULL,
		list) != SW_OK)
		goto out;
	if (record_name(pool, rn, sizeof(rn)) != SW_OK) {
		sw_req_fail(r, SW_EINVAL, "pool name %s is too long", pool);
		goto out;
	}
	rec = sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("ConfigMap"),
	    "metadata",
	    sw_jo("name", sw_js(rn), "namespace", sw_js(ns), "labels",
		sw_jo(WL_MANAGED, sw_js("slipway"), WL_POOL, sw_js(pool),
		    WL_ROLE, sw_js("pool"), NULL),
		NULL),
	    "data",
	    sw_jo("engine", sw_js(en->name), "model",
		sw_js(sw_json_get_str(a, "model")), "served_model_name",
		sw_js(wl_str_or(
		    a, "served_model_name", sw_json_get_str(a, "model"))),
		"replicas", sw_jsf("%lld", (long long)want), NULL),
	    NULL);

	if (pool_pods(r, &kb, ns, pool, &pods) != SW_OK)
		goto out;
	n = json_object_array_length(pods);
	if ((have = sw_calloc((size_t)want + 1, 1)) == NULL) {
		sw_req_fail(r, SW_ENOMEM, "out of memory");
		goto out;
	}
	/* Shrink: free pods above the size go; assigned ones stay. */
	kept = json_object_new_array();
	refs = json_object_new_array();
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(pods, i);
		idx = pod_index(pool, p);
		if (idx >= 0 && idx < want) {
			have[idx] = 1;
			continue;
		}
		if (pod_owner(p) != NULL) {
			json_object_array_add(
			    kept, sw_js(sw_json_path_str(p, "metadata.name")));
			continue;
		}
		if (!r->dry_run &&
		    wl_delete_obj(r, &kb, "v1", ns, "pods",
			sw_json_path_str(p, "metadata.name")) < 0)
			goto out;
		json_object_array_add(refs,
		    sw_jo("kind", sw_js("Pod"), "name",
			sw_js(sw_json_path_str(p, "metadata.name")), "deleted",
			sw_jb(1), NULL));
	}
	json_object_array_add(list, json_object_get(rec));
	if (r->dry_run) {
		for (idx = 0; idx < want; idx++)
			if (!have[idx])
				json_object_array_add(
				    list, pool_pod(a, en, ns, pool, idx, NULL));
		wl_answer_plan(r, list,
		    sw_jo("pool", sw_js(pool), "deletes", refs, "kept_assigned",
			kept, NULL));
		list = refs = kept = NULL;
		goto out;
	}
	for (i = 0; i + 1 < json_object_array_length(list); i++)
		if (wl_apply_one(r, &kb, json_object_array_get_idx(list, i),
			NULL) != SW_OK)
			goto out;
	if (wl_apply_one(r, &kb, rec, &applied) != SW_OK)
		goto out;
	json_object_array_add(refs, wl_manifest_ref(rec));
	for (idx = 0; idx < want; idx++) {
		if (have[idx])
			continue;
		p = pool_pod(a, en, ns, pool, idx, applied);
		if (wl_apply_one(r, &kb, p, NULL) != SW_OK) {
			json_object_put(p);
			goto out;
		}
		json_object_array_add(refs, wl_manifest_ref(p));
		json_object_put(p);
	}
	wl_answer_applied(r, 200,
	    sw_jo("pool", sw_js(pool), "namespace", sw_js(ns), "replicas",
		sw_ji(want), "kept_assigned", kept, NULL),
	    refs);
	refs = kept = NULL;
out:
	free(have);
	json_object_put(kept);
	json_object_put(refs);
	json_object_put(list);
	json_object_put(pods);
	json_object_put(applied);
	json_object_put(rec);
	sw_kube_close(&kb);
	return r->err;
}

/* A pool as answered: its record and its pods. */
static json_object *
pool_summary(json_object *rec, json_object *pods)
{
	json_object *data = sw_json_get(rec, "data"), *assigned, *names;
	const char *pool = sw_json_get_str(
		       sw_json_path(rec, "metadata.labels"), WL_POOL),
		   *owner;
	int64_t ready = 0, free_ready = 0;
	size_t i;

	assigned = json_object_new_object();
	names = json_object_new_array();
	for (i = 0; i < json_object_array_length(pods); i++) {
		json_object *p = json_object_array_get_idx(pods, i), *c;

		if (strcmp(wl_str_or(
			       sw_json_path(p, "metadata.labels"), WL_POOL, ""),
			pool) != 0)
			continue;
		owner = pod_owner(p);
		ready += pod_ready(p);
		if (owner == NULL)
			free_ready += pod_ready(p);
		json_object_array_add(names,
		    sw_jo("pod", sw_js(sw_json_path_str(p, "metadata.name")),
			"ready", sw_jb(pod_ready(p)), "endpoint",
			owner ? sw_js(owner) : NULL, NULL));
		if (owner == NULL)
			continue;
		if (!json_object_object_get_ex(assigned, owner, &c)) {
			c = sw_ji(0);
			json_object_object_add(assigned, owner, c);
		}
		json_object_set_int64(c, json_object_get_int64(c) + 1);
	}
	return sw_jo("pool", sw_js(pool), "namespace",
	    sw_js(sw_json_path_str(rec, "metadata.namespace")), "engine",
	    sw_js(wl_str_or(data, "engine", "")), "model",
	    sw_js(wl_str_or(data, "model", "")), "replicas",
	    sw_ji(strtol(wl_str_or(data, "replicas", "0"), NULL, 10)), "pods",
	    names, "ready", sw_ji(ready), "free", sw_ji(free_ready), "assigned",
	    assigned, NULL);
}

sw_err
h_inference_pool_list(struct sw_req *r)
{
	json_object *recs = NULL, *pods = NULL, *out;
	const char *ns = sw_json_get_str(r->args, "namespace");
	struct sw_kube kb;
	size_t i;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_list_objs(r, &kb, "v1", ns, "configmaps",
		WL_MANAGED "=slipway," WL_ROLE "=pool", &recs) != SW_OK)
		goto out;
	if (wl_list_objs(r, &kb, "v1", ns, "pods",
		WL_MANAGED "=slipway," WL_POOL, &pods) != SW_OK)
		goto out;
	out = json_object_new_array();
	for (i = 0; i < json_object_array_length(recs); i++)
		json_object_array_add(out,
		    pool_summary(json_object_array_get_idx(recs, i), pods));
	sw_req_reply(r, 200, sw_jo("items", out, NULL));
out:
	json_object_put(recs);
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_inference_pool_delete(struct sw_req *r)
{
	json_object *rec = NULL, *pods = NULL, *refs = NULL;
	const char *pool = sw_json_get_str(r->args, "pool");
	const char *ns = wl_str_or(r->args, "namespace", "default");
	struct sw_kube kb;
	size_t i;
	char rn[96];

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (pool_record(r, &kb, ns, pool, &rec) != SW_OK ||
	    pool_pods(r, &kb, ns, pool, &pods) != SW_OK)
		goto out;
	for (i = 0; i < json_object_array_length(pods); i++)
		if (pod_owner(json_object_array_get_idx(pods, i)) != NULL) {
			sw_req_fail(r, SW_ECONFLICT,
			    "pool %s still serves "
			    "endpoint %s: inference_pool_release it first",
			    pool,
			    pod_owner(json_object_array_get_idx(pods, i)));
			goto out;
		}
	refs = json_object_new_array();
	if (record_name(pool, rn, sizeof(rn)) != SW_OK) {
		sw_req_fail(r, SW_EINVAL, "pool name %s is too long", pool);
		goto out;
	}
	for (i = 0; i < json_object_array_length(pods); i++) {
		const char *pn = sw_json_path_str(
		    json_object_array_get_idx(pods, i), "metadata.name");

		if (!r->dry_run &&
		    wl_delete_obj(r, &kb, "v1", ns, "pods", pn) < 0)
			goto out;
		json_object_array_add(refs,
		    sw_jo("kind", sw_js("Pod"), "name", sw_js(pn), "namespace",
			sw_js(ns), NULL));
	}
	if (!r->dry_run &&
	    wl_delete_obj(r, &kb, "v1", ns, "configmaps", rn) < 0)
		goto out;
	json_object_array_add(refs,
	    sw_jo("kind", sw_js("ConfigMap"), "name", sw_js(rn), "namespace",
		sw_js(ns), NULL));
	sw_req_reply(r, 200,
	    sw_jo(r->dry_run ? "deletes" : "deleted", refs, "dry_run",
		r->dry_run ? sw_jb(1) : NULL, "pool", sw_js(pool),
		"status_tool", sw_js("inference_pool_list"), NULL));
	refs = NULL;
out:
	json_object_put(refs);
	json_object_put(pods);
	json_object_put(rec);
	sw_kube_close(&kb);
	return r->err;
}

/* Set (endpoint) or clear (NULL) the assignment label of pod. */
static sw_err
label_pod(struct sw_req *r, struct sw_kube *kb, const char *ns, const char *pod,
    const char *endpoint)
{
	json_object *patch;
	char path[512];
	struct k8s_error ke;
	sw_err e;

	if (k8s_path(path, sizeof(path), "v1", ns, "pods", pod) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", pod);
	patch = sw_jo("metadata",
	    sw_jo("labels",
		sw_jo(WL_ASSIGNED, endpoint ? sw_js(endpoint) : NULL, NULL),
		NULL),
	    NULL);
	if (endpoint == NULL)
		json_object_object_add(
		    sw_json_path(patch, "metadata.labels"), WL_ASSIGNED, NULL);
	memset(&ke, 0, sizeof(ke));
	e = k8s_merge_patch(&kb->k, path, patch, NULL, &ke);
	json_object_put(patch);
	if (e != SW_OK)
		return sw_req_fail(r,
		    e == SW_EINVAL || e == SW_EFORBIDDEN ? SW_EUPSTREAM : e,
		    "Kubernetes patch pod %s: %s", pod,
		    ke.message[0] ? ke.message : "failed");
	return SW_OK;
}

/* inference_pool_assign (assign != 0) and inference_pool_release. */
static sw_err
pool_move(struct sw_req *r, int assign)
{
	json_object *a = r->args, *rec = NULL, *pods = NULL, *svc = NULL,
		    *moved = NULL, *p;
	const char *pool = sw_json_get_str(a, "pool");
	const char *ns = wl_str_or(a, "namespace", "default");
	const char *ep = sw_json_get_str(a, "endpoint"), *owner;
	int64_t count = sw_json_get_int(a, "count", assign ? 1 : 0), done = 0,
		avail = 0;
	struct sw_kube kb;
	size_t i;
	int found;

	if (wl_kube_open(r, sw_json_get_str(a, "name"), &kb) != SW_OK)
		return r->err;
	if (pool_record(r, &kb, ns, pool, &rec) != SW_OK)
		goto out;
	if ((found = inf_pool_endpoint(r, &kb, ns, ep, &svc)) <= 0) {
		if (found == 0)
			sw_req_fail(r, SW_ENOTFOUND,
			    "no endpoint %s with "
			    "exposure pool in namespace %s",
			    ep, ns);
		goto out;
	}
	if (strcmp(wl_str_or(sw_json_path(svc, "metadata.labels"), WL_POOL, ""),
		pool) != 0) {
		sw_ferr_add(&r->ferrs, "endpoint", "pool",
		    "endpoint %s is "
		    "served by pool %s",
		    ep,
		    wl_str_or(
			sw_json_path(svc, "metadata.labels"), WL_POOL, "?"));
		sw_req_fail(
		    r, SW_ECONFLICT, "endpoint %s is not on pool %s", ep, pool);
		goto out;
	}
	if (pool_pods(r, &kb, ns, pool, &pods) != SW_OK)
		goto out;
	for (i = 0; i < json_object_array_length(pods); i++) {
		p = json_object_array_get_idx(pods, i);
		owner = pod_owner(p);
		if (assign ? owner == NULL && pod_ready(p)
			   : owner != NULL && strcmp(owner, ep) == 0)
			avail++;
	}
	if (count == 0)
		count = avail;
	if (assign && avail < count) {
		sw_req_fail(r, SW_ECONFLICT,
		    "pool %s has %lld free Ready "
		    "pod%s; %lld asked: grow it with inference_pool_create",
		    pool, (long long)avail, avail == 1 ? "" : "s",
		    (long long)count);
		goto out;
	}
	moved = json_object_new_array();
	for (i = 0; i < json_object_array_length(pods) && done < count; i++) {
		p = json_object_array_get_idx(pods, i);
		owner = pod_owner(p);
		if (assign ? !(owner == NULL && pod_ready(p))
			   : !(owner != NULL && strcmp(owner, ep) == 0))
			continue;
		if (!r->dry_run &&
		    label_pod(r, &kb, ns, sw_json_path_str(p, "metadata.name"),
			assign ? ep : NULL) != SW_OK)
			goto out;
		json_object_array_add(
		    moved, sw_js(sw_json_path_str(p, "metadata.name")));
		done++;
	}
	sw_req_reply(r, 200,
	    sw_jo("pool", sw_js(pool), "endpoint", sw_js(ep),
		assign ? "assigned" : "released", moved, "dry_run",
		r->dry_run ? sw_jb(1) : NULL, "status_tool",
		sw_js("inference_get"), "poll_seconds", sw_ji(5), NULL));
	moved = NULL;
out:
	json_object_put(moved);
	json_object_put(pods);
	json_object_put(svc);
	json_object_put(rec);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_inference_pool_assign(struct sw_req *r)
{
	return pool_move(r, 1);
}

sw_err
h_inference_pool_release(struct sw_req *r)
{
	return pool_move(r, 0);
}

int
inf_pool_endpoint(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *name, json_object **svc)
{
	char sel[192];
	json_object *items;
	size_t n;

	*svc = NULL;
	if (sw_fmt(sel, sizeof(sel), "%s=slipway,%s=%s,%s=service,%s",
		WL_MANAGED, WL_INF, name, WL_ROLE, WL_POOL) != SW_OK) {
		sw_req_fail(r, SW_EINVAL, "endpoint name %s is too long", name);
		return -1;
	}
	if (wl_list_objs(r, kb, "v1", ns, "services", sel, &items) != SW_OK)
		return -1;
	n = json_object_array_length(items);
	if (n >= 1)
		*svc = json_object_get(json_object_array_get_idx(items, 0));
	json_object_put(items);
	return n >= 1;
}

sw_err
inf_deploy_pool(struct sw_req *r, struct sw_kube *kb)
{
	json_object *a = r->args, *rec = NULL, *svc, *refs;
	const char *name = sw_json_get_str(a, "endpoint_name");
	const char *ns = wl_str_or(a, "namespace", "default");
	const char *pool = sw_json_get_str(a, "pool");
	const struct engine *en;

	if (pool_record(r, kb, ns, pool, &rec) != SW_OK)
		return r->err;
	for (en = wl_engines; en->name != NULL; en++)
		if (strcmp(en->name,
			wl_str_or(sw_json_get(rec, "data"), "engine", "")) == 0)
			break;
	if (en->name == NULL) {
		json_object_put(rec);
		return sw_req_fail(r, SW_ECONFLICT,
		    "pool %s names no engine "
		    "Slipway knows",
		    pool);
	}
	svc = sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Service"),
	    "metadata",
	    sw_jo("name", sw_js(name), "namespace", sw_js(ns), "labels",
		sw_jo(WL_MANAGED, sw_js("slipway"), WL_INF, sw_js(name),
		    WL_ROLE, sw_js("service"), WL_ENGINE, sw_js(en->name),
		    WL_POOL, sw_js(pool), NULL),
		"annotations",
		sw_jo(INF_SERVED,
		    sw_js(wl_str_or(sw_json_get(rec, "data"),
			"served_model_name", "model")),
		    NULL),
		NULL),
	    "spec",
	    sw_jo("type", sw_js("ClusterIP"), "selector",
		sw_jo(WL_POOL, sw_js(pool), WL_ASSIGNED, sw_js(name), NULL),
		"ports",
		sw_ja(sw_jo("name", sw_js("http"), "port", sw_ji(80),
		    "targetPort", sw_ji(en->port), "protocol", sw_js("TCP"),
		    NULL)),
		NULL),
	    NULL);
	json_object_put(rec);
	if (r->dry_run)
		return wl_answer_plan(r, sw_ja(svc),
		    sw_jo("endpoint", sw_js(name), "pool", sw_js(pool), NULL));
	if (wl_apply_one(r, kb, svc, NULL) != SW_OK) {
		json_object_put(svc);
		return r->err;
	}
	refs = sw_ja(wl_manifest_ref(svc));
	json_object_put(svc);
	wl_answer_applied(r, 200,
	    sw_jo("endpoint", sw_js(name), "namespace", sw_js(ns), "pool",
		sw_js(pool), "next",
		sw_js("inference_pool_assign gives it pods"), NULL),
	    refs);
	return SW_OK;
}

json_object *
inf_pool_summary(json_object *svc, json_object *pods)
{
	const char *name = sw_json_path_str(svc, "metadata.name");
	int64_t n = 0, ready = 0;
	size_t i;

	for (i = 0; pods && i < json_object_array_length(pods); i++) {
		json_object *p = json_object_array_get_idx(pods, i);

		if (pod_owner(p) == NULL || strcmp(pod_owner(p), name) != 0)
			continue;
		n++;
		ready += pod_ready(p);
	}
	return sw_jo("endpoint", sw_js(name), "namespace",
	    sw_js(sw_json_path_str(svc, "metadata.namespace")), "kind",
	    sw_js("self-hosted"), "exposure", sw_js("pool"), "pool",
	    sw_js(wl_str_or(sw_json_path(svc, "metadata.labels"), WL_POOL, "")),
	    "engine",
	    sw_js(
		wl_str_or(sw_json_path(svc, "metadata.labels"), WL_ENGINE, "")),
	    "replicas", sw_ji(n), "ready_replicas", sw_ji(ready), "ready",
	    sw_jb(n > 0 && ready >= n), "service",
	    sw_jo("name", sw_js(name), "type", sw_js("ClusterIP"), NULL), NULL);
}

sw_err
inf_pool_endpoint_get(struct sw_req *r, struct sw_kube *kb, json_object *svc)
{
	json_object *pods = NULL;

	if (pool_pods(r, kb, sw_json_path_str(svc, "metadata.namespace"),
		wl_str_or(sw_json_path(svc, "metadata.labels"), WL_POOL, ""),
		&pods) != SW_OK)
		return r->err;
	sw_req_reply(r, 200, inf_pool_summary(svc, pods));
	json_object_put(pods);
	return SW_OK;
}

sw_err
inf_pool_endpoint_delete(struct sw_req *r, struct sw_kube *kb, json_object *svc)
{
	json_object *pods = NULL, *released;
	const char *ns = sw_json_path_str(svc, "metadata.namespace");
	const char *name = sw_json_path_str(svc, "metadata.name");
	size_t i;

	/* Its pods go back to the pool, loaded and Ready, then the Service. */
	if (pool_pods(r, kb, ns,
		wl_str_or(sw_json_path(svc, "metadata.labels"), WL_POOL, ""),
		&pods) != SW_OK)
		return r->err;
	released = json_object_new_array();
	for (i = 0; i < json_object_array_length(pods); i++) {
		json_object *p = json_object_array_get_idx(pods, i);

		if (pod_owner(p) == NULL || strcmp(pod_owner(p), name) != 0)
			continue;
		if (!r->dry_run &&
		    label_pod(r, kb, ns, sw_json_path_str(p, "metadata.name"),
			NULL) != SW_OK)
			goto out;
		json_object_array_add(
		    released, sw_js(sw_json_path_str(p, "metadata.name")));
	}
	if (!r->dry_run && wl_delete_obj(r, kb, "v1", ns, "services", name) < 0)
		goto out;
	sw_req_reply(r, 200,
	    sw_jo(r->dry_run ? "deletes" : "deleted",
		sw_ja(sw_jo("kind", sw_js("Service"), "name", sw_js(name),
		    "namespace", sw_js(ns), NULL)),
		"released", released, "dry_run", r->dry_run ? sw_jb(1) : NULL,
		"endpoint", sw_js(name), NULL));
	released = NULL;
out:
	json_object_put(released);
	json_object_put(pods);
	return r->err;
}
