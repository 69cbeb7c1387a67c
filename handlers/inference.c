/*
 * inference.c: inference_deploy, _list, _get and _delete: a
 * self-hosted endpoint of vLLM or SGLang servers (handlers/workloads.c
 * names their images) as a Deployment behind a Service, with an
 * optional SGLang router in front and optional KEDA autoscaling on the
 * engine's own Prometheus metrics.  An endpoint exposed through a load
 * balancer first gets the AWS Load Balancer Controller
 * (pipelines/lbc.c).  The handlers make the Kubernetes API calls
 * themselves and start no operation; inference_deploy's row names
 * inference_get as the tool that tells when the endpoint is ready.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/inference.h"
#include "handlers/manifests.h"
#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/lbc.h"

#define CRD_SCALEDOBJ "scaledobjects.keda.sh"
#define ROUTER_PORT 30000

static json_object *
inf_labels(const char *name, const char *role, const char *engine)
{
	return sw_jo(WL_MANAGED, sw_js("slipway"), WL_INF, sw_js(name), WL_ROLE,
	    sw_js(role), WL_ENGINE, engine ? sw_js(engine) : NULL, NULL);
}

static json_object *
inf_selector(const char *name, const char *role)
{
	return sw_jo(WL_INF, sw_js(name), WL_ROLE, sw_js(role), NULL);
}

json_object *
inf_engine_argv(const struct engine *en, const char *model, const char *served,
    int64_t gpus)
{
	if (strcmp(en->name, "vllm") == 0)
		return sw_ja(sw_js("vllm"), sw_js("serve"),
		    sw_jsf("/data/models/%s", model), sw_js("--host"),
		    sw_js("0.0.0.0"), sw_js("--port"), sw_jsf("%d", en->port),
		    sw_js("--tensor-parallel-size"),
		    sw_jsf("%lld", (long long)gpus),
		    sw_js("--served-model-name"), sw_js(served));
	return sw_ja(sw_js("python3"), sw_js("-m"),
	    sw_js("sglang.launch_server"), sw_js("--model-path"),
	    sw_jsf("/data/models/%s", model), sw_js("--host"), sw_js("0.0.0.0"),
	    sw_js("--port"), sw_jsf("%d", en->port), sw_js("--tp-size"),
	    sw_jsf("%lld", (long long)gpus), sw_js("--served-model-name"),
	    sw_js(served), sw_js("--enable-metrics"));
}

static json_object *
http_probe(int port, int period, int failures)
{
	return sw_jo("httpGet",
	    sw_jo("path", sw_js("/health"), "port", sw_ji(port), NULL),
	    "periodSeconds", sw_ji(period), "failureThreshold", sw_ji(failures),
	    NULL);
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
void
inf_check_autoscaling(struct sw_req *r, json_object *as)
{
	const char *metric = sw_json_get_str(as, "metric");
	json_object *th = sw_json_get(as, "threshold");
	double v = th != NULL ? json_object_get_double(th) : 0;

	if (sw_json_get(as, "min_replicas") != NULL &&
	    sw_json_get_int(as, "min_replicas", 1) == 0)
		sw_ferr_add(&r->ferrs, "autoscaling.min_replicas",
		    "scale-to-zero",
		    "must be at least 1: the %s metric comes "
		    "from the server pods, so an endpoint at 0 replicas "
		    "reports nothing and never scales up again",
		    metric);
	if (th == NULL)
		return;
	if (strcmp(metric, "kv-cache") == 0) {
		if (!(v > 0 && v < 1))
			sw_ferr_add(&r->ferrs, "autoscaling.threshold",
			    "fraction",
			    "kv-cache usage is a fraction of the "
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
 * "deployed" or "installing" with the controller's progress; a refusal
 * fails the request with helm's or AWS's own words.
 */
static sw_err
lb_controller(struct sw_req *r, struct sw_kube *kb, const char *cluster,
    json_object **state)
{
	char msg[512];
	int ready;
	sw_err e;

	*state = NULL;
	e = sw_lbc_status_or_ensure(
	    h_aws(r), r->cfg, kb, cluster, msg, sizeof(msg), &ready);
	if (e == SW_EUPSTREAM)
		return sw_req_fail(
		    r, e, "AWS Load Balancer Controller: %s", msg);
	if (e != SW_OK)
		return sw_req_fail(r, e,
		    "AWS Load Balancer Controller: "
		    "cannot start");
	*state = sw_jo("status", sw_js(ready ? "deployed" : "installing"),
	    "detail", msg[0] ? sw_js(msg) : NULL, NULL);
	return SW_OK;
}

/*
 * The KEDA ScaledObject that scales endpoint name's server Deployment on
 * the engine's own metric (as, borrowed, is the autoscaling object).
 * A new object, or NULL with the problem filled.
 */
json_object *
inf_scaled_object(struct sw_req *r, const struct engine *en, const char *ns,
    const char *name, json_object *as)
{
	const char *metric = sw_json_get_str(as, "metric");
	json_object *th = sw_json_get(as, "threshold");
	int kv = strcmp(metric, "kv-cache") == 0;
	char query[512];
	json_object *thr;

	/*
	 * Exactly this endpoint's server pods: a Deployment's pods are
	 * <name>-<template hash>-<5 chars>, two dash-free parts (PromQL
	 * anchors =~), so neither <name>-router nor another endpoint
	 * <name>-x can match.
	 */
	if ((size_t)snprintf(query, sizeof(query),
		"sum(%s{namespace="
		"\"%s\",pod=~\"%s-[a-z0-9]{1,10}-[a-z0-9]{5}\"})",
		strcmp(metric, "running") == 0 ? en->m_running
		    : kv                       ? en->m_kv
					       : en->m_queue,
		ns, name) >= sizeof(query)) {
		sw_req_fail(r, SW_EINTERNAL, "query too long");
		return NULL;
	}
	if (th != NULL && kv)
		thr = sw_jsf("%g", json_object_get_double(th));
	else if (th != NULL)
		thr = sw_jsf("%lld", (long long)json_object_get_double(th));
	else
		thr = sw_js(kv ? "0.8" : "8");
	return sw_jo("apiVersion", sw_js("keda.sh/v1alpha1"), "kind",
	    sw_js("ScaledObject"), "metadata",
	    meta(name, ns, inf_labels(name, "autoscaler", NULL)), "spec",
	    sw_jo("scaleTargetRef", sw_jo("name", sw_js(name), NULL),
		"minReplicaCount",
		sw_ji(sw_json_get_int(as, "min_replicas", 1)),
		"maxReplicaCount",
		sw_ji(sw_json_get_int(as, "max_replicas", 1)),
		"pollingInterval", sw_ji(30), "cooldownPeriod", sw_ji(300),
		"triggers",
		sw_ja(sw_jo("type", sw_js("prometheus"), "metadata",
		    sw_jo("serverAddress",
			sw_js(sw_json_get_str(as, "prometheus_url")), "query",
			sw_js(query), "threshold", thr, NULL),
		    NULL)),

		NULL),
	    NULL);
}

int
inf_keda_present(struct sw_req *r, struct sw_kube *kb)
{
	int have = wl_crd_present(r, kb, CRD_SCALEDOBJ);

	if (have == 0)
		wl_need_feature(r, "autoscaling", "inference_operator",
		    "KEDA (ScaledObject; bundled with the HyperPod inference "
		    "operator)");
	return have;
}

sw_err
inf_selfhosted_check(struct sw_req *r)
{
	json_object *a = r->args, *as = sw_json_get(a, "autoscaling");
	const char *ename = sw_json_get_str(a, "engine");
	const char *model = sw_json_get_str(a, "model");
	int router = sw_json_get_bool(a, "router", 0);

	if (ename == NULL)
		sw_ferr_add(&r->ferrs, "engine", "required",
		    "a self-hosted "
		    "endpoint names its engine, vllm or sglang");
	if (model == NULL)
		sw_ferr_add(&r->ferrs, "model", "required",
		    "a self-hosted "
		    "endpoint serves a model directory under /data/models");
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	if (router && strcmp(ename, "sglang") != 0)
		sw_ferr_add(&r->ferrs, "router", "engine",
		    "the SGLang router "
		    "fronts sglang servers only");
	if (as != NULL &&
	    sw_json_get_int(as, "min_replicas", 1) >
		sw_json_get_int(as, "max_replicas", 1))
		sw_ferr_add(&r->ferrs, "autoscaling.min_replicas", "range",
		    "must not exceed max_replicas");
	if (as != NULL && sw_json_get(a, "replicas") != NULL)
		sw_ferr_add(&r->ferrs, "replicas", "autoscaling",
		    "the "
		    "autoscaler sets replicas; give autoscaling.min_replicas");
	if (as != NULL)
		inf_check_autoscaling(r, as);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	return SW_OK;
}

/* The engine row of the request (its field is an enum of the rows). */
static const struct engine *
engine_find(const char *name)
{
	const struct engine *en;

	for (en = wl_engines; en->name != NULL; en++)
		if (name != NULL && strcmp(en->name, name) == 0)
			return en;
	return NULL;
}

sw_err
inf_selfhosted_manifests(struct sw_req *r, json_object *list)
{
	json_object *a = r->args, *as = sw_json_get(a, "autoscaling"),
		    *svc_meta, *svc_ann;
	const char *name = sw_json_get_str(a, "endpoint_name");
	const char *model = sw_json_get_str(a, "model");
	const char *ns = wl_str_or(a, "namespace", "default");
	const char *exposure = sw_json_get_str(a, "exposure");
	const struct engine *en = engine_find(sw_json_get_str(a, "engine"));
	int router = sw_json_get_bool(a, "router", 0);
	int64_t gpus = sw_json_get_int(a, "gpus_per_replica", 1);
	int64_t replicas = sw_json_get_int(a, "replicas", 1);
	char rname[64];

	if (en == NULL || name == NULL || model == NULL)
		return sw_req_fail(r, SW_EINTERNAL,
		    "endpoint without a known "
		    "engine, name or model");
	if ((size_t)snprintf(rname, sizeof(rname), "%s-router", name) >=
	    sizeof(rname))
		return sw_req_fail(r, SW_EINTERNAL, "router name too long");
	json_object_array_add(list,
	    sw_jo("apiVersion", sw_js("apps/v1"), "kind", sw_js("Deployment"),
		"metadata",
		meta(name, ns, inf_labels(name, "server", en->name)), "spec",
		sw_jo("replicas", as == NULL ? sw_ji(replicas) : NULL,
		    "selector",
		    sw_jo("matchLabels", inf_selector(name, "server"), NULL),
		    "template",
		    sw_jo("metadata",
			sw_jo("labels", inf_labels(name, "server", en->name),
			    NULL),
			"spec",
			sw_jo("containers",
			    sw_ja(sw_jo("name", sw_js(en->name), "image",
				sw_js(wl_str_or(a, "image", en->image)),
				"command",
				inf_engine_argv(en, model,
				    wl_str_or(a,

					"served_model_name", model),
				    gpus),
				"ports",
				sw_ja(sw_jo("name", sw_js("http"),
				    "containerPort", sw_ji(en->port), NULL)),
				"resources", wl_accel_resources(gpus, 0),
				"startupProbe", http_probe(en->port, 10, 180),
				"readinessProbe", http_probe(en->port, 10, 3),
				"volumeMounts", wl_data_mounts(1), NULL)),
			    "volumes",
			    wl_data_volumes(wl_str_or(a, "pvc", "s3-claim"), 1),
			    "nodeSelector",
			    wl_node_selector(
				sw_json_get_str(a, "instance_type")),
			    "tolerations", wl_gpu_tolerations(), NULL),
			NULL),
		    NULL),
		NULL));
	if (router) {
		json_object_array_add(list,
		    sw_jo("apiVersion", sw_js("v1"), "kind",
			sw_js("ServiceAccount"), "metadata",
			meta(rname, ns, inf_labels(name, "router", NULL)),
			NULL));
		json_object_array_add(list,
		    sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"),
			"kind", sw_js("Role"), "metadata",
			meta(rname, ns, inf_labels(name, "router", NULL)),
			"rules",
			sw_ja(sw_jo("apiGroups", sw_ja(sw_js("")), "resources",
			    sw_ja(sw_js("pods")), "verbs",
			    sw_ja(sw_js("get"), sw_js("list"), sw_js("watch")),
			    NULL)),
			NULL));
		json_object_array_add(list,
		    sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"),
			"kind", sw_js("RoleBinding"), "metadata",
			meta(rname, ns, inf_labels(name, "router", NULL)),
			"roleRef",
			sw_jo("apiGroup", sw_js("rbac.authorization.k8s.io"),
			    "kind", sw_js("Role"), "name", sw_js(rname), NULL),
			"subjects",
			sw_ja(sw_jo("kind", sw_js("ServiceAccount"), "name",
			    sw_js(rname), "namespace", sw_js(ns), NULL)),
			NULL));
		json_object_array_add(list,
		    sw_jo("apiVersion", sw_js("apps/v1"), "kind",
			sw_js("Deployment"), "metadata",
			meta(rname, ns, inf_labels(name, "router", NULL)),
			"spec",
			sw_jo("replicas", sw_ji(1), "selector",
			    sw_jo("matchLabels", inf_selector(name, "router"),
				NULL),
			    "template",
			    sw_jo("metadata",
				sw_jo("labels",
				    inf_labels(name, "router", NULL), NULL),
				"spec",
				sw_jo("serviceAccountName", sw_js(rname),
				    "containers",
				    sw_ja(sw_jo("name", sw_js("router"),
					"image", sw_js(wl_router_image),
					"command",
					sw_ja(sw_js("python3"), sw_js("-m"),
					    sw_js(
						"sglang_router.launch_router"),
					    sw_js("--host"), sw_js("0.0.0.0"),
					    sw_js("--port"), sw_js("30000"),
					    sw_js("--service-discovery"),
					    sw_js("--selector"),
					    sw_jsf("%s=%s", WL_INF, name),
					    sw_js("slipway.dev/role=server"),
					    sw_js(
						"--service-discovery-namespace"),
					    sw_js(ns),
					    sw_js("--service-discovery-port"),
					    sw_jsf("%d", en->port),
					    sw_js("--policy"),
					    sw_js("cache_aware")),
					"ports",
					sw_ja(sw_jo("name", sw_js("http"),
					    "containerPort", sw_ji(ROUTER_PORT),
					    NULL)),
					NULL)),
				    NULL),
				NULL),
			    NULL),
			NULL));
	}
	svc_meta = meta(name, ns, inf_labels(name, "service", en->name));
	svc_ann = sw_jo(
	    INF_SERVED, sw_js(wl_str_or(a, "served_model_name", model)), NULL);
	json_object_object_add(svc_meta, "annotations", svc_ann);
	if (strcmp(exposure, "load-balancer") == 0) {
		json_object_object_add(svc_ann,
		    "service.beta.kubernetes.io/aws-load-balancer-type",
		    sw_js("external"));
		json_object_object_add(svc_ann,
		    "service.beta.kubernetes.io/aws-load-balancer-nlb-target-"
		    "type",
		    sw_js("ip"));
		json_object_object_add(svc_ann,
		    "service.beta.kubernetes.io/aws-load-balancer-scheme",
		    sw_js("internal"));
	}
	json_object_array_add(list,
	    sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Service"),
		"metadata", svc_meta, "spec",
		sw_jo("type",
		    sw_js(strcmp(exposure, "load-balancer") == 0
			    ? "LoadBalancer"
			    : "ClusterIP"),
		    "selector",
		    inf_selector(name, router ? "router" : "server"), "ports",
		    sw_ja(sw_jo("name", sw_js("http"), "port", sw_ji(80),
			"targetPort", sw_ji(router ? ROUTER_PORT : en->port),
			"protocol", sw_js("TCP"), NULL)),
		    NULL),
		NULL));
	if (as != NULL) {
		json_object *so = inf_scaled_object(r, en, ns, name, as);

		if (so == NULL)
			return r->err;
		json_object_array_add(list, so);
	}
	return SW_OK;
}

sw_err
h_inference_deploy(struct sw_req *r)
{
	json_object *a = r->args, *list = NULL,
		    *as = sw_json_get(a, "autoscaling"), *refs;
	const char *cluster = sw_json_get_str(a, "name");
	const char *name = sw_json_get_str(a, "endpoint_name");
	const char *ns;
	const char *exposure = sw_json_get_str(a, "exposure");
	const char *kind = sw_json_get_str(a, "kind");
	char team_ns[64];
	static const char *const pool_unused[] = { "engine", "model",
		"served_model_name", "image", "replicas", "gpus_per_replica",
		"instance_type", "router", "autoscaling", "pvc", NULL };
	size_t i;
	json_object *lbc = NULL;
	struct sw_kube kb;

	memset(&kb, 0, sizeof(kb));
	/* A team's queue without namespace: the team's namespace, for
	 * every step below that reads the request. */
	ns = wl_ns_or(a, team_ns, sizeof(team_ns), "default");
	if (sw_json_get_str(a, "namespace") == NULL && ns == team_ns)
		sw_json_add_str(a, "namespace", team_ns);
	if (strcmp(kind, "self-hosted") != 0) {
		if (wl_kube_open(r, cluster, &kb) == SW_OK)
			inf_deploy_managed(
			    r, &kb, strcmp(kind, "managed") == 0);
		sw_kube_close(&kb);
		return r->err;
	}
	if (strcmp(exposure, "pool") == 0 || sw_json_get(a, "pool") != NULL) {
		for (i = 0; pool_unused[i] != NULL; i++)
			if (sw_json_get(a, pool_unused[i]) != NULL)
				sw_ferr_add(&r->ferrs, pool_unused[i], "pool",
				    "a pool endpoint is served by the pool's "
				    "pods; inference_pool_create sets this");
		if (sw_json_get(a, "pool") == NULL)
			sw_ferr_add(&r->ferrs, "pool", "required",
			    "exposure "
			    "pool names the pool");
		if (strcmp(exposure, "pool") != 0)
			sw_ferr_add(&r->ferrs, "exposure", "pool",
			    "give "
			    "exposure pool with pool");
		if (r->ferrs.n > 0)
			return sw_req_fail(r, SW_EINVAL, "%s: %s",
			    r->ferrs.e[0].field, r->ferrs.e[0].msg);
		if (wl_kube_open(r, cluster, &kb) == SW_OK)
			inf_deploy_pool(r, &kb);
		sw_kube_close(&kb);
		return r->err;
	}
	if (inf_selfhosted_check(r) != SW_OK)
		return r->err;
	{
		struct wl_fit f = { .cluster = cluster,
			.instance_type = sw_json_get_str(a, "instance_type"),
			.gpus = sw_json_get_int(a, "gpus_per_replica", 1),
			.gpu_field = "gpus_per_replica",
			.efa_field = "-" };

		if (wl_check_fit(r, &f) != SW_OK)
			return r->err;
	}
	if (wl_kube_open(r, cluster, &kb) != SW_OK)
		return r->err;
	if (as != NULL && inf_keda_present(r, &kb) != 1)
		goto out;
	list = json_object_new_array();
	if (wl_storage_plan(r, &kb, cluster, ns,
		wl_str_or(a, "pvc", "s3-claim"), sw_json_get(a, "pvc") != NULL,
		list) != SW_OK)
		goto out;
	if (inf_selfhosted_manifests(r, list) != SW_OK)
		goto out;
	/* task governance: the Kueue labels on the Deployment */
	if (h_kueue_labels(r, cluster, ns, list) != SW_OK)
		goto out;
	if (r->dry_run) {
		wl_answer_plan(r, list,
		    sw_jo("endpoint", sw_js(name), "cost",
			h_endpoint_cost(r, cluster,
			    sw_json_get_str(a, "instance_type"),
			    sw_json_get_int(a, "replicas", 1),
			    sw_json_get_int(a, "gpus_per_replica", 1)),
			NULL));
		list = NULL;
		goto out;
	}
	if (strcmp(exposure, "load-balancer") == 0 &&
	    lb_controller(r, &kb, cluster, &lbc) != SW_OK)
		goto out;
	refs = json_object_new_array();
	if (wl_apply_all(r, &kb, list, refs) != SW_OK) {
		json_object_put(refs);
		goto out;
	}
	wl_answer_applied(r, 200,
	    sw_jo("endpoint", sw_js(name), "namespace", sw_js(ns), "engine",
		sw_js(sw_json_get_str(a, "engine")), "load_balancer_controller",
		json_object_get(lbc), NULL),
	    refs);
out:
	json_object_put(lbc);
	json_object_put(list);
	sw_kube_close(&kb);
	return r->err;
}

/*
 * The one object of endpoint name that sel matches (in ns, or any
 * namespace when ns is NULL).  *obj is a new reference.  404 (saying
 * missing) when there is none, 409 naming the namespace field when
 * the name is in more than one namespace.
 */
sw_err
inf_one(struct sw_req *r, struct sw_kube *kb, const char *api, const char *ns,
    const char *plural, const char *sel, const char *name, const char *missing,
    json_object **obj)
{
	json_object *items;
	size_t n;

	*obj = NULL;
	if (wl_list_objs(r, kb, api, ns, plural, sel, &items) != SW_OK)
		return r->err;
	n = json_object_array_length(items);
	if (n == 1)
		*obj = json_object_get(json_object_array_get_idx(items, 0));
	json_object_put(items);
	if (n == 1)
		return SW_OK;
	if (n == 0)
		return sw_req_fail(r, SW_ENOTFOUND, "%s", missing);
	sw_ferr_add(&r->ferrs, "namespace", "required",
	    "endpoint %s exists "
	    "in more than one namespace; name one",
	    name);
	return sw_req_fail(r, SW_ECONFLICT, "endpoint %s is ambiguous", name);
}

/* The server Deployment of endpoint name (in ns or any).  New ref. */
sw_err
inf_find(struct sw_req *r, struct sw_kube *kb, const char *ns, const char *name,
    json_object **dep)
{
	char sel[160], missing[160];

	if (sw_fmt(sel, sizeof(sel), "%s=%s,%s=server", WL_INF, name,
		WL_ROLE) != SW_OK)
		return sw_req_fail(r, SW_EINVAL,
		    "endpoint name %s is too "
		    "long",
		    name);
	sw_fmt_text(missing, sizeof(missing), "no inference endpoint %s", name);
	return inf_one(
	    r, kb, "apps/v1", ns, "deployments", sel, name, missing, dep);
}

/* One endpoint as answered; svc (may be NULL) is its Service. */
static json_object *
inf_summary(json_object *dep, json_object *svc)
{
	int64_t want = sw_json_get_int(sw_json_get(dep, "spec"), "replicas", 1);
	int64_t ready =
	    sw_json_get_int(sw_json_get(dep, "status"), "readyReplicas", 0);
	int64_t avail =
	    sw_json_get_int(sw_json_get(dep, "status"), "availableReplicas", 0);
	const char *host = NULL;
	json_object *service = NULL;
	if (svc != NULL) {
		host = sw_json_path_str(svc,
		    "status.loadBalancer.ingress[0]."
		    "hostname");
		if (host == NULL)
			host = sw_json_path_str(
			    svc, "status.loadBalancer.ingress[0].ip");
		if (host == NULL)
			host = sw_json_path_str(svc, "spec.clusterIP");
		service = sw_jo("name",
		    sw_js(sw_json_path_str(svc, "metadata.name")), "type",
		    sw_js(sw_json_path_str(svc, "spec.type")), "cluster_ip",
		    sw_json_path_str(svc, "spec.clusterIP")
			? sw_js(sw_json_path_str(svc, "spec.clusterIP"))
			: NULL,
		    "url",
		    host ? sw_jsf("http://%s:%lld", host,
			       (long long)sw_json_get_int(
				   sw_json_path(svc, "spec.ports[0]"), "port",
				   80))
			 : NULL,
		    NULL);
	}
	return sw_jo("endpoint", sw_js(sw_json_path_str(dep, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(dep, "metadata.namespace")),
	    "engine",
	    sw_json_get_str(sw_json_path(dep, "metadata.labels"), WL_ENGINE)
		? sw_js(sw_json_get_str(
		      sw_json_path(dep, "metadata.labels"), WL_ENGINE))
		: NULL,
	    "image",
	    sw_json_path_str(dep, "spec.template.spec.containers[0].image")
		? sw_js(sw_json_path_str(
		      dep, "spec.template.spec.containers[0].image"))
		: NULL,
	    "replicas", sw_ji(want), "ready_replicas", sw_ji(ready),
	    "available_replicas", sw_ji(avail), "ready",
	    sw_jb(ready >= want && want > 0), "service", service, NULL);
}

/* Append the pool endpoints (exposure pool) to out. */
static void
pool_items(struct sw_req *r, struct sw_kube *kb, json_object *out)
{
	json_object *svcs = NULL, *pods = NULL;
	const char *ns = sw_json_get_str(r->args, "namespace");
	size_t i;

	if (wl_list_objs(r, kb, "v1", ns, "services",
		WL_MANAGED "=slipway," WL_ROLE "=service," WL_POOL,
		&svcs) != SW_OK)
		return;
	if (wl_list_objs(r, kb, "v1", ns, "pods",
		WL_MANAGED "=slipway," WL_ASSIGNED, &pods) == SW_OK)
		for (i = 0; i < json_object_array_length(svcs); i++)
			json_object_array_add(out,
			    inf_pool_summary(
				json_object_array_get_idx(svcs, i), pods));
	json_object_put(svcs);
	json_object_put(pods);
}

/* 1 with *svc (new ref) when the request's endpoint is a pool
 * endpoint, 0 when it is not, -1 on error (problem filled). */
static int
pool_endpoint(struct sw_req *r, struct sw_kube *kb, json_object **svc)
{
	return inf_pool_endpoint(r, kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "endpoint"), svc);
}

sw_err
h_inference_list(struct sw_req *r)
{
	const struct inf_kind *k;
	json_object *items = NULL, *out;
	struct sw_kube kb;
	size_t i;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_list_objs(r, &kb, "apps/v1",
		sw_json_get_str(r->args, "namespace"), "deployments",
		WL_ROLE "=server", &items) == SW_OK) {
		out = json_object_new_array();
		for (i = 0; i < json_object_array_length(items); i++)
			json_object_array_add(out,
			    inf_summary(
				json_object_array_get_idx(items, i), NULL));
		for (k = inf_kinds; k->kind != NULL && r->err == SW_OK; k++) {
			json_object_put(items);
			items = NULL;
			if (wl_list_objs(r, &kb,
				"inference.sagemaker.aws."
				"amazon.com/v1",
				sw_json_get_str(r->args, "namespace"),
				k->plural, WL_MANAGED "=slipway",
				&items) != SW_OK)
				break;
			for (i = 0; i < json_object_array_length(items); i++)
				json_object_array_add(out,
				    inf_managed_summary(
					json_object_array_get_idx(items, i),
					k));
		}
		if (r->err == SW_OK)
			pool_items(r, &kb, out);
		if (r->err == SW_OK)
			sw_req_reply(r, 200, sw_jo("items", out, NULL));
		else
			json_object_put(out);
	}
	json_object_put(items);
	sw_kube_close(&kb);
	return r->err;
}

/* Kueue's Workloads and LocalQueues of ns and the ClusterQueues, each a
 * list (empty without Kueue), for pods (borrowed) that name a queue. */
static sw_err
endpoint_queues(struct sw_req *r, struct sw_kube *kb, const char *ns,
    json_object *pods, json_object **wls, json_object **lqs, json_object **cqs)
{
	size_t i;
	int queued = 0;

	for (i = 0; pods && i < json_object_array_length(pods); i++)
		queued |= sw_json_get_str(
			      sw_json_path(json_object_array_get_idx(pods, i),
				  "metadata.labels"),
			      "kueue.x-k8s.io/queue-name") != NULL;
	if (!queued)
		return SW_OK;
	if (wl_list_objs(r, kb, "kueue.x-k8s.io/v1beta2", ns, "workloads", NULL,
		wls) != SW_OK ||
	    wl_list_objs(r, kb, "kueue.x-k8s.io/v1beta2", ns, "localqueues",
		NULL, lqs) != SW_OK)
		return r->err;
	return wl_list_objs(
	    r, kb, "kueue.x-k8s.io/v1beta2", NULL, "clusterqueues", NULL, cqs);
}

/* An endpoint's Deployment (self-hosted, or the one the inference
 * operator made for a managed one) short of ready replicas says why
 * (pending, from its pods and, with task governance, their Workloads);
 * the summary is extended in place. */
static void
endpoint_pending(struct sw_req *r, struct sw_kube *kb, json_object *dep,
    json_object *summary)
{
	json_object *ml = sw_json_path(dep, "spec.selector.matchLabels");
	json_object *pods = NULL, *wls = NULL, *lqs = NULL, *cqs = NULL;
	const char *ns = sw_json_path_str(dep, "metadata.namespace");
	struct sw_buf sel;

	if (sw_json_get_int(sw_json_get(dep, "status"), "readyReplicas", 0) >=
		sw_json_get_int(sw_json_get(dep, "spec"), "replicas", 1) ||
	    ml == NULL)
		return;
	sw_buf_init(&sel, 256);
	json_object_object_foreach(ml, k, v) sw_buf_printf(&sel, "%s%s=%s",
	    sw_buf_str(&sel)[0] ? "," : "", k, json_object_get_string(v));
	if (wl_list_objs(r, kb, "v1", ns, "pods", sw_buf_str(&sel), &pods) ==
		SW_OK &&
	    endpoint_queues(r, kb, ns, pods, &wls, &lqs, &cqs) == SW_OK)
		json_object_object_add(summary, "pending",
		    wl_endpoint_pending(pods, wls, lqs, cqs));
	json_object_put(pods);
	json_object_put(wls);
	json_object_put(lqs);
	json_object_put(cqs);
	sw_buf_free(&sel);
}

/* The Deployment the inference operator made for managed endpoint cr
 * (owned by it), or NULL.  New reference. */
static json_object *
managed_deployment(struct sw_req *r, struct sw_kube *kb, json_object *cr)
{
	const char *uid = sw_json_path_str(cr, "metadata.uid");
	json_object *deps = NULL, *found = NULL, *refs;
	size_t i, j;

	if (uid == NULL ||
	    wl_list_objs(r, kb, "apps/v1",
		sw_json_path_str(cr, "metadata.namespace"), "deployments", NULL,
		&deps) != SW_OK)
		return NULL;
	for (i = 0; !found && i < json_object_array_length(deps); i++) {
		refs = sw_json_path(json_object_array_get_idx(deps, i),
		    "metadata.ownerReferences");
		for (j = 0; refs && j < json_object_array_length(refs); j++)
			if (strcmp(
				sw_json_get_str(
				    json_object_array_get_idx(refs, j), "uid")
				    ?: "",
				uid) == 0)
				found = json_object_get(
				    json_object_array_get_idx(deps, i));
	}
	json_object_put(deps);
	return found;
}

/* inference_get of a managed endpoint: the operator's resource, and
 * why its pods wait when it is short of ready replicas. */
static void
managed_get(struct sw_req *r, struct sw_kube *kb, json_object *cr,
    const struct inf_kind *mk)
{
	json_object *out = inf_managed_summary(cr, mk), *dep;

	dep = managed_deployment(r, kb, cr);
	if (dep != NULL)
		endpoint_pending(r, kb, dep, out);
	json_object_put(dep);
	if (r->err == SW_OK)
		sw_req_reply(r, 200, out);
	else
		json_object_put(out);
}

/* The selector of dep's pods (its matchLabels) into sel; empty when
 * dep is NULL or has none. */
static void
dep_selector(json_object *dep, struct sw_buf *sel)
{
	json_object *ml = sw_json_path(dep, "spec.selector.matchLabels");

	if (ml == NULL)
		return;
	json_object_object_foreach(ml, k, v) sw_buf_printf(sel, "%s%s=%s",
	    sw_buf_str(sel)[0] ? "," : "", k, json_object_get_string(v));
}

/* The selector of the request's endpoint's pods into sel, its kind
 * and its namespace (into ns); the endpoint found as inference_get
 * finds it.  SW_OK or the problem filled (404 for none). */
static sw_err
endpoint_selector(struct sw_req *r, struct sw_kube *kb, struct sw_buf *sel,
    const char **kind, char *ns, size_t nssz)
{
	const char *name = sw_json_get_str(r->args, "endpoint");
	json_object *obj = NULL, *dep;
	const struct inf_kind *mk;
	int m;

	if ((m = inf_managed_find(r, kb, sw_json_get_str(r->args, "namespace"),
		 name, &obj, &mk)) > 0) {
		*kind = mk->name;
		if ((dep = managed_deployment(r, kb, obj)) != NULL)
			dep_selector(dep, sel);
		json_object_put(dep);
	} else if (m == 0 && (m = pool_endpoint(r, kb, &obj)) > 0) {
		*kind = "pool";
		sw_buf_printf(sel, "%s=%s", WL_ASSIGNED, name);
	} else if (m == 0 &&
	    inf_find(r, kb, sw_json_get_str(r->args, "namespace"), name,
		&obj) == SW_OK) {
		*kind = "self-hosted"; /* its server and router pods */
		sw_buf_printf(
		    sel, "%s=slipway,%s=%s", WL_MANAGED, WL_INF, name);
	}
	if (obj != NULL)
		sw_fmt_text(ns, nssz, "%s",
		    sw_json_path_str(obj, "metadata.namespace") ?: "");
	json_object_put(obj);
	return r->err;
}

sw_err
inf_endpoint_pods(struct sw_req *r, struct sw_kube *kb, json_object **pods,
    const char **kind, char *ns, size_t nssz)
{
	struct sw_buf sel;

	*pods = NULL;
	sw_buf_init(&sel, 512);
	if (endpoint_selector(r, kb, &sel, kind, ns, nssz) == SW_OK) {
		if (sw_buf_str(&sel)[0] == '\0')
			*pods = json_object_new_array(); /* no Deployment yet */
		else
			wl_list_objs(
			    r, kb, "v1", ns, "pods", sw_buf_str(&sel), pods);
	}
	sw_buf_free(&sel);
	return r->err;
}

sw_err
h_inference_get(struct sw_req *r)
{
	json_object *dep = NULL, *svc = NULL;
	const struct inf_kind *mk;
	struct sw_kube kb;
	sw_err e;
	int m;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if ((m = inf_managed_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		 sw_json_get_str(r->args, "endpoint"), &dep, &mk)) != 0) {
		if (m > 0)
			managed_get(r, &kb, dep, mk);
	} else if ((m = pool_endpoint(r, &kb, &svc)) != 0) {
		if (m > 0)
			inf_pool_endpoint_get(r, &kb, svc);
	} else if (inf_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		       sw_json_get_str(r->args, "endpoint"), &dep) == SW_OK) {
		e = wl_get_obj(r, &kb, "v1",
		    sw_json_path_str(dep, "metadata.namespace"), "services",
		    sw_json_path_str(dep, "metadata.name"), &svc);
		if (e == SW_OK || e == SW_ENOTFOUND) {
			json_object *out = inf_summary(dep, svc);

			endpoint_pending(r, &kb, dep, out);
			if (r->err == SW_OK)
				sw_req_reply(r, 200, out);
			else
				json_object_put(out);
		}
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
		{ "rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding",
		    1 },
		{ "rbac.authorization.k8s.io/v1", "roles", "Role", 1 },
		{ "v1", "serviceaccounts", "ServiceAccount", 1 },
		{ "apps/v1", "deployments", "Deployment", 0 },
	};
	json_object *dep = NULL, *refs = NULL;
	const struct inf_kind *mk;
	const char *ns, *name;
	char rname[64];
	struct sw_kube kb;
	size_t i;
	int d, m;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if ((m = inf_managed_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		 sw_json_get_str(r->args, "endpoint"), &dep, &mk)) != 0) {
		if (m > 0)
			inf_delete_managed(r, &kb, dep, mk);
		goto out;
	}
	if ((m = pool_endpoint(r, &kb, &dep)) != 0) {
		if (m > 0)
			inf_pool_endpoint_delete(r, &kb, dep);
		goto out;
	}
	if (inf_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "endpoint"), &dep) != SW_OK)
		goto out;
	ns = sw_json_path_str(dep, "metadata.namespace");
	name = sw_json_path_str(dep, "metadata.name");
	if (sw_fmt(rname, sizeof(rname), "%s-router", name) != SW_OK) {
		sw_req_fail(
		    r, SW_EINTERNAL, "endpoint name %s is too long", name);
		goto out;
	}

	refs = json_object_new_array();
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *n = parts[i].router ? rname : name;

		if (r->dry_run)
			d = 1;
		else if ((d = wl_delete_obj(r, &kb, parts[i].api, ns,
			      parts[i].plural, n)) < 0)
			goto out;
		if (d > 0)
			json_object_array_add(refs,
			    sw_jo("kind", sw_js(parts[i].kind), "name",
				sw_js(n), "namespace", sw_js(ns), NULL));
	}
	sw_req_reply(r, 200,
	    sw_jo(r->dry_run ? "deletes" : "deleted", refs, "dry_run",
		r->dry_run ? sw_jb(1) : NULL, "endpoint", sw_js(name), NULL));
	refs = NULL;
out:
	json_object_put(refs);
	json_object_put(dep);
	sw_kube_close(&kb);
	return r->err;
}
