/*
 * inference_ops.c: inference_invoke and inference_scale, the calls made
 * on an endpoint that is already deployed.
 *
 * inference_invoke sends one OpenAI-style chat request to the
 * endpoint's own Service through the cluster API server's service
 * proxy (/api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/...), so
 * the request travels over the authenticated Kubernetes connection and
 * needs no address reachable from here.  The Service is only ever one
 * Slipway created: it is found by the labels inference_deploy puts on
 * it, and the body has no URL, host or port field, so the call cannot
 * be pointed at anything else in the cluster.  The answer is the model
 * server's own JSON.
 *
 * inference_scale sets a fixed replica count (and removes an
 * autoscaler) or puts a KEDA autoscaler on the endpoint; for a managed
 * or JumpStart endpoint it patches the operator's resource instead.
 * A managed endpoint's Service is the one its resource owns.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/inference.h"
#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"

#define CHAT_PATH "/v1/chat/completions"

/*
 * The Service Slipway made for endpoint name (in ns, or any namespace
 * when ns is NULL).  *svc is a new reference.  404 when there is none:
 * a Service without our labels is not an endpoint, whatever its name.
 */
static sw_err
inf_service(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *name, json_object **svc)
{
	char sel[192], missing[192];

	*svc = NULL;
	if ((size_t)snprintf(sel, sizeof(sel), "%s=slipway,%s=%s,%s=service",
		WL_MANAGED, WL_INF, name, WL_ROLE) >= sizeof(sel))
		return sw_req_fail(r, SW_EINTERNAL, "selector too long");
	sw_fmt_text(missing, sizeof(missing),
	    "no inference endpoint %s "
	    "deployed by Slipway in this cluster",
	    name);
	return inf_one(r, kb, "v1", ns, "services", sel, name, missing, svc);
}

/* The Service port to proxy to: the one named http, else the first. */
static int64_t
svc_port(json_object *svc)
{
	json_object *ports = sw_json_path(svc, "spec.ports");
	size_t i, n = ports ? json_object_array_length(ports) : 0;
	const char *pn;

	for (i = 0; i < n; i++) {
		pn = sw_json_get_str(
		    json_object_array_get_idx(ports, i), "name");
		if (pn != NULL && strcmp(pn, "http") == 0)
			return sw_json_get_int(
			    json_object_array_get_idx(ports, i), "port", 0);
	}
	return n > 0
	    ? sw_json_get_int(json_object_array_get_idx(ports, 0), "port", 0)
	    : 0;
}

sw_err
h_inference_invoke(struct sw_req *r)
{
	json_object *a = r->args, *svc = NULL, *body = NULL, *out = NULL,
		    *cr = NULL;
	const char *ename = sw_json_get_str(a, "endpoint");
	const char *sname, *sns, *model;
	const struct inf_kind *mk;
	char path[512];
	struct k8s_error ke;
	struct sw_kube kb;
	int64_t port;
	sw_err e;
	int m;

	if (sw_json_get_bool(a, "stream", 0))
		sw_ferr_add(&r->ferrs, "stream", "enum",
		    "only false: the "
		    "answer is one JSON document");
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	if (wl_kube_open(r, sw_json_get_str(a, "name"), &kb) != SW_OK)
		return r->err;
	if ((m = inf_managed_find(
		 r, &kb, sw_json_get_str(a, "namespace"), ename, &cr, &mk)) < 0)
		goto out;
	if (m > 0 ? inf_managed_service(r, &kb, cr, &svc) != SW_OK
		  : inf_service(r, &kb, sw_json_get_str(a, "namespace"), ename,
			&svc) != SW_OK)
		goto out;
	sname = sw_json_path_str(svc, "metadata.name");
	sns = sw_json_path_str(svc, "metadata.namespace");
	model = sw_json_get_str(
	    sw_json_path(m > 0 ? cr : svc, "metadata.annotations"), INF_SERVED);
	if ((port = svc_port(svc)) <= 0) {
		sw_req_fail(
		    r, SW_ECONFLICT, "Service %s/%s has no port", sns, sname);
		goto out;
	}
	if ((size_t)snprintf(path, sizeof(path),
		"/api/v1/namespaces/%s/"
		"services/%s:%lld/proxy" CHAT_PATH,
		sns, sname, (long long)port) >= sizeof(path)) {
		sw_req_fail(r, SW_EINTERNAL, "proxy path too long");
		goto out;
	}
	body = sw_jo("model", model ? sw_js(model) : NULL, "messages",
	    json_object_get(sw_json_get(a, "messages")), "max_tokens",
	    sw_json_get(a, "max_tokens")
		? sw_ji(sw_json_get_int(a, "max_tokens", 16))
		: NULL,
	    "temperature",
	    sw_json_get(a, "temperature")
		? json_object_get(sw_json_get(a, "temperature"))
		: NULL,
	    "stream", sw_jb(0), NULL);
	if (r->dry_run) {
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "endpoint", sw_js(ename),
			"namespace", sw_js(sns), "service", sw_js(sname),
			"proxy_path", sw_js(path), "request", body, NULL));
		body = NULL;
		goto out;
	}
	memset(&ke, 0, sizeof(ke));
	e = k8s_post(&kb.k, path, body, &out, &ke);
	if (e == SW_EUNAVAIL)
		sw_req_fail(r, e, "endpoint %s has no ready server: %s", ename,
		    ke.message[0] ? ke.message : "service unavailable");
	else if (e != SW_OK)
		sw_req_fail(r, e == SW_ETHROTTLED ? e : SW_EUPSTREAM,
		    "endpoint %s answered %ld: %s", ename, ke.status,
		    ke.message[0]      ? ke.message
			: ke.reason[0] ? ke.reason
				       : "no detail");
	else {
		sw_req_reply(r, 200, out);
		out = NULL;
	}
out:
	json_object_put(out);
	json_object_put(body);
	json_object_put(cr);
	json_object_put(svc);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_inference_scale(struct sw_req *r)
{
	json_object *a = r->args, *dep = NULL, *so = NULL, *patch = NULL,
		    *as = sw_json_get(a, "autoscaling"), *refs = NULL;
	const char *ename = sw_json_get_str(a, "endpoint");
	const char *engine, *ns, *name;
	const struct inf_kind *mk;
	const struct engine *en;
	char path[512];
	struct k8s_error ke;
	struct sw_kube kb;
	int m;
	sw_err e;

	if ((as == NULL) == (sw_json_get(a, "replicas") == NULL))
		sw_ferr_add(&r->ferrs, as ? "replicas" : "autoscaling",
		    "one-of",
		    "give replicas (a fixed count) or autoscaling, "
		    "one of the two");
	if (as != NULL &&
	    sw_json_get_int(as, "min_replicas", 1) >
		sw_json_get_int(as, "max_replicas", 1))
		sw_ferr_add(&r->ferrs, "autoscaling.min_replicas", "range",
		    "must not exceed max_replicas");
	if (as != NULL)
		inf_check_autoscaling(r, as);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	if (wl_kube_open(r, sw_json_get_str(a, "name"), &kb) != SW_OK)
		return r->err;
	if ((m = inf_managed_find(r, &kb, sw_json_get_str(a, "namespace"),
		 ename, &dep, &mk)) != 0) {
		if (m > 0)
			inf_scale_managed(r, &kb, dep, mk);
		goto out;
	}
	if (inf_find(r, &kb, sw_json_get_str(a, "namespace"), ename, &dep) !=
	    SW_OK)
		goto out;
	ns = sw_json_path_str(dep, "metadata.namespace");
	name = sw_json_path_str(dep, "metadata.name");
	engine =
	    sw_json_get_str(sw_json_path(dep, "metadata.labels"), WL_ENGINE);
	for (en = wl_engines; en->name != NULL; en++)
		if (engine != NULL && strcmp(en->name, engine) == 0)
			break;
	if (en->name == NULL) {
		sw_req_fail(r, SW_ECONFLICT,
		    "endpoint %s names no engine "
		    "Slipway knows",
		    ename);
		goto out;
	}
	refs = json_object_new_array();
	if (as != NULL) {
		if (inf_keda_present(r, &kb) != 1)
			goto out;
		if ((so = inf_scaled_object(r, en, ns, name, as)) == NULL)
			goto out;
		if (r->dry_run) {
			wl_answer_plan(
			    r, sw_ja(so), sw_jo("endpoint", sw_js(name), NULL));
			so = NULL;
			goto out;
		}
		if (wl_apply_one(r, &kb, so, NULL) != SW_OK)
			goto out;
		json_object_array_add(refs, wl_manifest_ref(so));
		wl_answer_applied(r, 200,
		    sw_jo("endpoint", sw_js(name), "namespace", sw_js(ns),
			"autoscaling", sw_jb(1), NULL),
		    refs);
		refs = NULL;
		goto out;
	}
	/* A fixed count: the autoscaler, if any, would undo it; it goes. */
	patch = sw_jo("spec",
	    sw_jo("replicas", sw_ji(sw_json_get_int(a, "replicas", 1)), NULL),
	    NULL);
	if (r->dry_run) {
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "endpoint", sw_js(name),
			"namespace", sw_js(ns), "replicas",
			sw_ji(sw_json_get_int(a, "replicas", 1)), "from",
			sw_ji(sw_json_get_int(
			    sw_json_get(dep, "spec"), "replicas", 1)),
			NULL));
		goto out;
	}
	if (wl_delete_obj(
		r, &kb, "keda.sh/v1alpha1", ns, "scaledobjects", name) < 0)
		goto out;
	if (k8s_path(path, sizeof(path), "apps/v1", ns, "deployments", name) !=
	    SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
		goto out;
	}
	memset(&ke, 0, sizeof(ke));
	if ((e = k8s_merge_patch(&kb.k, path, patch, NULL, &ke)) != SW_OK) {
		sw_req_fail(r,
		    e == SW_EINVAL || e == SW_EFORBIDDEN ? SW_EUPSTREAM : e,
		    "Kubernetes patch %s: %s", name,
		    ke.message[0] ? ke.message : "failed");
		goto out;
	}
	json_object_array_add(refs,
	    sw_jo("kind", sw_js("Deployment"), "name", sw_js(name), "namespace",
		sw_js(ns), NULL));
	wl_answer_applied(r, 200,
	    sw_jo("endpoint", sw_js(name), "namespace", sw_js(ns), "replicas",
		sw_ji(sw_json_get_int(a, "replicas", 1)), NULL),
	    refs);
	refs = NULL;
out:
	json_object_put(refs);
	json_object_put(patch);
	json_object_put(so);
	json_object_put(dep);
	sw_kube_close(&kb);
	return r->err;
}
