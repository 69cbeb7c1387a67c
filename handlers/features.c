/*
 * features.c: managed features of a cluster (feature_list, feature_set).
 *
 * feature_list reads the live state of every feature from AWS and
 * Kubernetes on each call; nothing is remembered by Slipway.
 *
 * feature_set keeps the explicit-diff contract: the body names only the
 * features the client changes (unknown names are refused by the field
 * table).  The backend then asks the feature.set pipeline for its plan
 * against the live state (the very ensure-steps that would run, with
 * mutations recorded instead of sent).  An empty plan means everything
 * asked already holds: 200 {"changed": false} and no operation.
 * Otherwise one operation applies only the differences
 * (pipelines/features.c).
 *
 * Which features there are, their add-ons and what each needs come from
 * the one table in pipelines/featdefs.c: feature_list shows each row's
 * needs and needed_by, and feature_set refuses to leave a feature off
 * while another that will be on needs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ops.h"
#include "api/router.h"
#include "lib/url.h"
#include "pipelines/featdefs.h"
#include "pipelines/pipelines.h"

#define TIERED_SA "tiered-storage-sa"
#define TIERED_POLICY "slipway-tiered-checkpoint-s3"

/* Does a body name feature f, and feature_list show it? */
#define SHOWN(f) ((sw_featdefs[(f)].flags & SW_FEATF_PREREQ) == 0)

/* What a read's answer (e as aws_error_sw decided, err) says of the
 * thing read: 1 there, 0 not found, -1 could not tell (why says so,
 * and that it is worth asking again when it is transient). */
static int
read_got(enum aws_service svc, const char *op, sw_err e,
    const struct aws_error *err, char *why, size_t whysz)
{
	int n;

	if (e == SW_OK)
		return 1;
	if (e == SW_ENOTFOUND)
		return 0;
	n = snprintf(why, whysz, "%s %s: %s%s", aws_service(svc)->id, op,
	    err->code[0] ? err->code : "error",
	    sw_err_transient(e) ? " (try again)" : "");
	if (n < 0 || (size_t)n >= whysz)
		memcpy(why, "AWS error", sizeof("AWS error"));
	return -1;
}

/* One AWS read; 1 ok (*out new), 0 not found, -1 other error (why). */
static int
read_aws(struct sw_req *r, enum aws_service svc, const char *op,
    json_object *in, json_object **out, char *why, size_t whysz)
{
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = h_call(r, svc, op, in, out, &err);
	return read_got(svc, op, e, &err, why, whysz);
}

/* {enabled, status, details} of one feature.  Steals details. */
static json_object *
feature(int enabled, const char *status, json_object *details)
{
	return sw_jo("enabled", sw_jb(enabled), "status", sw_js(status),
	    "details", details ? details : json_object_new_object(), NULL);
}

/* An EKS add-on as a feature. */
static json_object *
addon_feature(struct sw_req *r, const char *cluster, const char *addon)
{
	json_object *out;
	char why[256];
	int got;

	got = read_aws(r, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo(
		"clusterName", sw_js(cluster), "addonName", sw_js(addon), NULL),
	    &out, why, sizeof(why));
	if (got < 0)
		return feature(0, "unknown",
		    sw_jo("addon", sw_js(addon), "error", sw_js(why), NULL));
	if (got == 0)
		return feature(0, "absent", sw_jo("addon", sw_js(addon), NULL));
	got = sw_json_path_str(out, "addon.status") != NULL &&
	    strcmp(sw_json_path_str(out, "addon.status"), "ACTIVE") == 0;
	{
		json_object *f = feature(got,
		    sw_json_path_str(out, "addon.status") ?: "unknown",
		    sw_jo("addon", sw_js(addon), "version",
			sw_js(sw_json_path_str(out, "addon.addonVersion")),
			"pod_identity_associations",
			json_object_get(
			    sw_json_path(out, "addon.podIdentityAssociations")),
			NULL));
		const char *ws = sw_json_get_str(
		    sw_json_path(out, "addon.tags"), SW_TAG_GRAFANA_WS);
		char url[160];
		int n;

		/* observability: the Grafana workspace it was given */
		if (ws != NULL && h_aws(r) != NULL &&
		    (n = snprintf(url, sizeof(url),
			 "https://%s.grafana-workspace.%s."
			 "amazonaws.com",
			 ws, h_aws(r)->region)) > 0 &&
		    (size_t)n < sizeof(url))
			json_object_object_add(f, "grafana_url", sw_js(url));

		json_object_put(out);
		return f;
	}
}

/* A Kubernetes object: 1 present, 0 absent, -1 error (kb NULL: -1). */
static int
kube_has(struct sw_kube *kb, const char *api, const char *ns,
    const char *plural, const char *name, json_object **out)
{
	char path[512];
	struct k8s_error ke;
	json_object *o = NULL;
	sw_err e;

	if (out != NULL)
		*out = NULL;
	if (kb == NULL ||
	    k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return -1;
	memset(&ke, 0, sizeof(ke));
	e = k8s_get(&kb->k, path, &o, &ke);
	if (e == SW_ENOTFOUND)
		return 0;
	if (e != SW_OK)
		return -1;
	if (out != NULL)
		*out = o;
	else
		json_object_put(o);
	return 1;
}

/* Buckets named by the Resource members of a policy document.  New. */
static json_object *
policy_buckets(json_object *doc, int *wildcard)
{
	json_object *st = sw_json_get(doc, "Statement"), *buckets;
	size_t i, j;

	buckets = json_object_new_array();
	*wildcard = 0;
	for (i = 0; st && json_object_is_type(st, json_type_array) &&
	     i < json_object_array_length(st);
	     i++) {
		json_object *res =
		    sw_json_get(json_object_array_get_idx(st, i), "Resource");
		size_t n = json_object_is_type(res, json_type_array)
		    ? json_object_array_length(res)
		    : 1;

		for (j = 0; res && j < n; j++) {
			const char *v = json_object_get_string(
			    json_object_is_type(res, json_type_array)
				? json_object_array_get_idx(res, j)
				: res);
			char b[128];
			size_t k, len;
			int dup = 0;

			if (v == NULL || strncmp(v, "arn:aws:s3:::", 13) != 0) {
				*wildcard = 1;
				continue;
			}
			len = strcspn(v + 13, "/");
			if (len == 0 || len >= sizeof(b) ||
			    strchr(v + 13, '*') == v + 13) {
				*wildcard = 1;
				continue;
			}
			memcpy(b, v + 13, len);
			b[len] = '\0';
			for (k = 0; k < json_object_array_length(buckets); k++)
				dup |= strcmp(json_object_get_string(
						  json_object_array_get_idx(
						      buckets, k)),
					   b) == 0;
			if (!dup)
				json_object_array_add(buckets, sw_js(b));
		}
	}
	return buckets;
}

/* The tiered checkpointing feature: HyperPod mode + identity chain. */
static json_object *
tiered_feature(
    struct sw_req *r, const char *cluster, json_object *hp, struct sw_kube *kb)
{
	const char *mode = sw_json_path_str(hp, "TieredStorageConfig.Mode");
	json_object *out, *list, *doc = NULL, *buckets = NULL, *assocs;
	json_object *details;
	char role[128], why[256], arnbuf[256];
	const char *arn = NULL;
	int on = mode != NULL && strcmp(mode, "Enable") == 0, wild = 0;
	int role_ok, chain = 1;
	size_t i;

	sw_name(role, sizeof(role), cluster, SW_ROLE_TIERED);
	role_ok = read_aws(r, AWS_SVC_IAM, "GetRole",
	    sw_jo("RoleName", sw_js(role), NULL), &out, why, sizeof(why));
	if (role_ok == 1 &&
	    sw_out_str(out, "Role.Arn", "GetRoleResult.Role.Arn", NULL) !=
		NULL &&
	    sw_fmt(arnbuf, sizeof(arnbuf), "%s",
		sw_out_str(out, "Role.Arn", "GetRoleResult.Role.Arn", NULL)) ==
		SW_OK)
		arn = arnbuf;

	json_object_put(out);
	if (role_ok == 1 &&
	    read_aws(r, AWS_SVC_IAM, "GetRolePolicy",
		sw_jo("RoleName", sw_js(role), "PolicyName",
		    sw_js(TIERED_POLICY), NULL),
		&out, why, sizeof(why)) == 1) {
		const char *enc = sw_out_str(out, "PolicyDocument",
		    "GetRolePolicyResult.PolicyDocument", NULL);
		size_t n = enc ? strlen(enc) + 1 : 0;
		char *raw = n ? sw_malloc(n) : NULL;

		if (raw != NULL && sw_url_decode(enc, n - 1, raw, n) >= 0)
			doc = json_tokener_parse(raw);
		free(raw);
		json_object_put(out);
		buckets = policy_buckets(doc, &wild);
		json_object_put(doc);
	}
	assocs = json_object_new_array();
	if (read_aws(r, AWS_SVC_EKS, "ListPodIdentityAssociations",
		sw_jo("clusterName", sw_js(cluster), "serviceAccount",
		    sw_js(TIERED_SA), NULL),
		&out, why, sizeof(why)) == 1) {
		list = sw_json_get(out, "associations");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *a = json_object_array_get_idx(list, i);
			const char *ns = sw_json_get_str(a, "namespace");

			if (strcmp(sw_json_get_str(a, "serviceAccount") ?: "",
				TIERED_SA) != 0 ||
			    ns == NULL)
				continue;
			json_object_array_add(assocs,
			    sw_jo("namespace", sw_js(ns), "service_account",
				sw_js(TIERED_SA), "association_id",
				sw_js(sw_json_get_str(a, "associationId")),
				"service_account_present",
				sw_jb(kube_has(kb, "v1", ns, "serviceaccounts",
					  TIERED_SA, NULL) == 1),
				NULL));
		}
		json_object_put(out);
	}
	if (role_ok != 1 || buckets == NULL ||
	    json_object_array_length(buckets) != 1 || wild ||
	    json_object_array_length(assocs) == 0)
		chain = 0;
	for (i = 0; i < json_object_array_length(assocs); i++)
		if (!sw_json_get_bool(json_object_array_get_idx(assocs, i),
			"service_account_present", 0))
			chain = 0;
	details = sw_jo("mode", sw_js(mode ? mode : "Disable"),
	    "memory_percent",
	    sw_json_get(sw_json_get(hp, "TieredStorageConfig"),
		"InstanceMemoryAllocationPercentage")
		? sw_ji(sw_json_get_int(sw_json_get(hp, "TieredStorageConfig"),
		      "InstanceMemoryAllocationPercentage", 0))
		: NULL,
	    "bucket",
	    buckets && json_object_array_length(buckets) == 1
		? json_object_get(json_object_array_get_idx(buckets, 0))
		: NULL,
	    "role_arn", sw_js(arn), "policy_scoped_to_bucket",
	    sw_jb(buckets != NULL && !wild &&
		json_object_array_length(buckets) == 1),
	    "associations", assocs, "identity_chain_complete", sw_jb(chain),
	    NULL);
	json_object_put(buckets);
	return feature(on && chain,
	    on ? (chain ? "Enabled" : "EnabledIncompleteChain")
	       : (role_ok == 1 ? "DisabledChainLeft" : "Disabled"),
	    details);
}

/* The autoscaling feature: HyperPod AutoScaling + ClusterRole +
 * Karpenter objects. */
static json_object *
autoscaling_feature(json_object *hp, struct sw_kube *kb)
{
	const char *mode = sw_json_path_str(hp, "AutoScaling.Mode");
	const char *status = sw_json_path_str(hp, "AutoScaling.Status");
	json_object *pool = NULL, *cls = NULL, *f;
	int on = mode != NULL && strcmp(mode, "Enable") == 0;

	kube_has(
	    kb, "karpenter.sh/v1", NULL, "nodepools", "slipway-default", &pool);
	kube_has(kb, "karpenter.sagemaker.amazonaws.com/v1", NULL,
	    "hyperpodnodeclasses", "slipway-default", &cls);
	f = feature(on && status != NULL && strcmp(status, "InService") == 0,
	    on ? (status ? status : "Enabled") : "Disabled",
	    sw_jo("mode", sw_js(mode ? mode : "Disable"), "autoscaler_type",
		sw_js(sw_json_path_str(hp, "AutoScaling.AutoScalerType")),
		"failure_message",
		sw_js(sw_json_path_str(hp, "AutoScaling.FailureMessage")),
		"cluster_role", sw_js(sw_json_get_str(hp, "ClusterRole")),
		"node_pool_disruption",
		json_object_get(sw_json_path(pool, "spec.disruption")),
		"node_class_instance_groups",
		json_object_get(sw_json_path(cls, "spec.instanceGroups")),
		NULL));
	json_object_put(pool);
	json_object_put(cls);
	return f;
}

/*
 * The KubeRay feature: the ray.io CRDs and the operator Deployment.  The
 * chart's uninstall keeps the CRDs (Helm never deletes them), so without
 * the operator KubeRay counts as absent.
 */
static json_object *
kuberay_feature(struct sw_kube *kb)
{
	json_object *dep = NULL, *f;
	int crd = kube_has(kb, "apiextensions.k8s.io/v1", NULL,
	    "customresourcedefinitions", "rayjobs.ray.io", NULL);
	int d = kube_has(kb, "apps/v1", "ray-system", "deployments",
	    "kuberay-operator", &dep);

	if (crd < 0 && d < 0)
		return feature(0, "unknown",
		    sw_jo(
			"error", sw_js("Kubernetes API not reachable"), NULL));
	f = feature(crd == 1 && d == 1,
	    crd == 1 && d == 1 ? "Installed"
		: d == 1       ? "Partial"
			       : "absent",
	    sw_jo("crd", sw_jb(crd == 1), "operator", sw_jb(d == 1),
		"ready_replicas",
		d == 1 ? sw_ji(sw_json_get_int(
			     sw_json_get(dep, "status"), "readyReplicas", 0))
		       : NULL,
		NULL));
	json_object_put(dep);
	return f;
}

/*
 * Live state of every feature of cluster into *doc (new).  Fails the
 * request (and returns its error) only when the cluster is not there.
 */
static sw_err
read_features(struct sw_req *r, const char *cluster, json_object **doc)
{
	json_object *eks, *hp = NULL, *f;
	struct sw_kube kb;
	struct aws_error kerr, err;
	char why[256];
	int got, kube_ok, k;
	sw_err e;

	*doc = NULL;
	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(cluster), NULL), &eks, &err);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(
		    r, SW_ENOTFOUND, "no EKS cluster %s", cluster);
	if (e != SW_OK)
		return h_aws_fail(r, AWS_SVC_EKS, "DescribeCluster", e, &err);
	json_object_put(eks);
	e = h_hp_describe(r, cluster, &hp, &err);
	got = read_got(
	    AWS_SVC_SAGEMAKER, "DescribeCluster", e, &err, why, sizeof(why));
	kube_ok = sw_kube_connect(h_aws(r), cluster, &kb, &kerr) == SW_OK;
	f = json_object_new_object();
	for (k = 0; k < SW_FEAT__MAX; k++) {
		const char *st = got == 0 ? "no HyperPod cluster" : why;
		json_object *one;

		if (!SHOWN(k))
			continue;
		switch (k) {
		case SW_FEAT_TIERED_CHECKPOINTING:
			one = got == 1 ? tiered_feature(r, cluster, hp,
					     kube_ok ? &kb : NULL)
				       : feature(0, st, NULL);
			break;
		case SW_FEAT_AUTOSCALING:
			one = got == 1
			    ? autoscaling_feature(hp, kube_ok ? &kb : NULL)
			    : feature(0, st, NULL);
			break;
		case SW_FEAT_NODE_RECOVERY:
			one = got == 1
			    ? feature(strcmp(sw_json_get_str(hp, "NodeRecovery")
					      ?: "",
					  "Automatic") == 0,
				  sw_json_get_str(hp, "NodeRecovery")
				      ?: "unknown",
				  NULL)
			    : feature(0, st, NULL);
			break;
		case SW_FEAT_KUBERAY:
			one = kuberay_feature(kube_ok ? &kb : NULL);
			break;
		default:
			one = SW_FEAT_ADDON(k) != NULL
			    ? addon_feature(r, cluster, SW_FEAT_ADDON(k))
			    : feature(0, "unknown", NULL);
			break;
		}
		json_object_object_add(
		    one, "needs", sw_feat_needs_json((enum sw_feat)k));
		json_object_object_add(
		    one, "needed_by", sw_feat_needed_by_json((enum sw_feat)k));
		json_object_object_add(f, sw_featdefs[k].name, one);
	}
	if (kube_ok)
		sw_kube_close(&kb);
	json_object_put(hp);
	*doc = f;
	return SW_OK;
}

sw_err
h_feature_list(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *f, *items;
	int i;

	if (read_features(r, name, &f) != SW_OK)
		return r->err;
	items = json_object_new_array();
	for (i = 0; i < SW_FEAT__MAX; i++) {
		json_object *one;

		if (!SHOWN(i))
			continue;
		one = json_object_get(sw_json_get(f, sw_featdefs[i].name));
		json_object_object_add(one, "name", sw_js(sw_featdefs[i].name));
		json_object_array_add(items, one);
	}
	sw_req_reply(r, 200,
	    sw_jo("cluster", sw_js(name), "features", f, "items", items, NULL));
	return SW_OK;
}

/* Whether feature will be on after the request: asked, else live. */
static int
will_be_on(json_object *asked, json_object *live, enum sw_feat feature)
{
	const char *name = sw_featdefs[feature].name;
	json_object *v = sw_json_get(asked, name);

	if (v != NULL)
		return json_object_get_boolean(v);
	return sw_json_get_bool(sw_json_get(live, name), "enabled", 0);
}

/*
 * Refuse (into r->ferrs) each feature the request leaves off while a
 * feature that will be on needs it; flat holds the asked features as
 * booleans.  The first refusal is described into why for the problem's
 * detail.
 */
static void
check_needs(struct sw_req *r, json_object *flat, json_object *live, char *why,
    size_t whysz)
{
	int f, g;

	for (f = 0; f < SW_FEAT__MAX; f++) {
		if (!SHOWN(f) ||
		    sw_json_get(flat, sw_featdefs[f].name) == NULL ||
		    will_be_on(flat, live, (enum sw_feat)f))
			continue;
		for (g = 0; g < SW_FEAT__MAX; g++) {
			if (!sw_feat_needs((enum sw_feat)g, (enum sw_feat)f) ||
			    !will_be_on(flat, live, (enum sw_feat)g))
				continue;
			sw_ferr_add(&r->ferrs, sw_featdefs[f].name,
			    "dependency",
			    "%s needs %s; turn %s off in the "
			    "same request",
			    sw_featdefs[g].name, sw_featdefs[f].name,
			    sw_featdefs[g].name);
			if (why[0] == '\0')
				sw_fmt_text(why, whysz, "%s is needed by %s",
				    sw_featdefs[f].name, sw_featdefs[g].name);
		}
	}
}

sw_err
h_feature_set(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *asked, *live = NULL, *params, *plan = NULL, *changes;
	json_object *input, *tc;
	char what[512];
	size_t i, n = 0;
	int k;
	sw_err e;

	asked = json_object_new_object();
	for (k = 0; k < SW_FEAT__MAX; k++)
		if (SHOWN(k) &&
		    sw_json_get(r->args, sw_featdefs[k].name) != NULL)
			json_object_object_add(asked, sw_featdefs[k].name,
			    json_object_get(
				sw_json_get(r->args, sw_featdefs[k].name)));
	if (json_object_object_length(asked) == 0) {
		size_t len = 0;
		int m;

		json_object_put(asked);
		what[0] = '\0';
		for (k = 0; k < SW_FEAT__MAX; k++) {
			if (!SHOWN(k))
				continue;
			m = snprintf(what + len, sizeof(what) - len, "%s%s",
			    len ? ", " : "", sw_featdefs[k].name);
			if (m < 0 || (size_t)m >= sizeof(what) - len)
				return sw_req_fail(r, SW_EINTERNAL,
				    "feature "
				    "names overflow the message");
			len += (size_t)m;
		}
		sw_ferr_add(&r->ferrs, "body", "required",
		    "name at least one "
		    "feature to change: %s",
		    what);
		return sw_req_fail(r, SW_EINVAL, "no feature named");
	}
	tc = sw_json_get(asked, "tiered_checkpointing");
	if (tc != NULL && sw_json_get_bool(tc, "enabled", 0) &&
	    sw_json_get(tc, "bucket") == NULL)
		sw_ferr_add(&r->ferrs, "tiered_checkpointing.bucket",
		    "required",
		    "enabling tiered checkpointing needs the "
		    "checkpoint bucket");
	if (r->ferrs.n > 0) {
		json_object_put(asked);
		return sw_req_fail(
		    r, SW_EINVAL, "%s is required", r->ferrs.e[0].field);
	}
	if (read_features(r, name, &live) != SW_OK) {
		json_object_put(asked);
		return r->err;
	}
	/* Normalise: an object feature counts by its "enabled". */
	{
		json_object *flat = json_object_new_object();

		json_object_object_foreach(asked, fk, fv)
		    json_object_object_add(flat, fk,
			sw_jb(json_object_is_type(fv, json_type_object)
				? sw_json_get_bool(fv, "enabled", 0)
				: json_object_get_boolean(fv)));
		what[0] = '\0';
		check_needs(r, flat, live, what, sizeof(what));
		json_object_put(flat);
	}
	if (r->ferrs.n > 0) {
		json_object_put(asked);
		json_object_put(live);
		return sw_req_fail(r, SW_EINVAL, "%s", what);
	}
	params = sw_jo("name", sw_js(name), "features", asked, NULL);
	e = sw_pipeline_plan(
	    h_aws(r), r->cfg, "feature.set", params, &plan, NULL);
	changes = json_object_new_array();
	for (i = 0; plan && i < json_object_array_length(plan); i++) {
		json_object *c = json_object_array_get_idx(plan, i);
		const char *st = sw_json_get_str(c, "stage");
		size_t j;
		int seen = 0;

		if (sw_json_get_str(c, "refused") != NULL)
			continue;
		n++;
		for (j = 0; j < json_object_array_length(changes); j++)
			seen |=
			    strcmp(json_object_get_string(
				       json_object_array_get_idx(changes, j)),
				st) == 0;
		if (!seen)
			json_object_array_add(changes, sw_js(st));
	}
	if (e != SW_OK) {
		const char *why = NULL;

		for (i = 0; plan && i < json_object_array_length(plan); i++)
			if (sw_json_get_str(
				json_object_array_get_idx(plan, i), "refused"))
				why = sw_json_get_str(
				    json_object_array_get_idx(plan, i),
				    "refused");
		/* Unavailable: the live state could not be read (503,
		 * try again), never "nothing to change". */
		e = sw_req_fail(r, e == SW_EUNAVAIL ? e : SW_ECONFLICT,
		    "cannot apply: %s", why ? why : "the plan stopped");
		goto out;
	}
	if (n == 0) {
		sw_req_reply(r, 200,
		    sw_jo("changed", sw_jb(0), "cluster", sw_js(name),
			"features", json_object_get(live), NULL));
		e = SW_OK;
		goto out;
	}
	input = r->args;
	r->args = json_object_get(params);
	e = h_start(r, "feature.set", name, name);
	json_object_put(input);
	if (e == SW_OK && r->out != NULL) {
		json_object_object_add(r->out, "changed", sw_jb(1));
		json_object_object_add(
		    r->out, "changes", json_object_get(changes));
	}
out:
	json_object_put(changes);
	json_object_put(plan);
	json_object_put(params);
	json_object_put(live);
	return e;
}
