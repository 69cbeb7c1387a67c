/*
 * featkit.c: what every stage of the feature.set pipeline shares: reading the
 * explicit diff of the request, EKS add-ons, IAM roles and inline
 * policies, pod identity associations, Kubernetes reads and deletes, and
 * HyperPod UpdateCluster with the existing groups resent (featkit.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "pipelines/featdefs.h"
#include "pipelines/featkit.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* What the request asks of a feature: -1 not named, 0 off, 1 on. */
int
feat_want(struct sw_step *s, enum sw_feat feature)
{
	json_object *v = sw_json_get(
	    sw_json_get(s->params, "features"), sw_featdefs[feature].name);

	if (v == NULL)
		return -1;
	if (json_object_is_type(v, json_type_object))
		return sw_json_get_bool(v, "enabled", 0);
	return json_object_get_boolean(v) ? 1 : 0;
}

/* A member of an object-valued feature (tiered_checkpointing...). */
json_object *
feat_want_opt(struct sw_step *s, enum sw_feat feature, const char *key)
{
	return sw_json_get(sw_json_get(sw_json_get(s->params, "features"),
			       sw_featdefs[feature].name),
	    key);
}

/* ---- EKS add-ons ------------------------------------------------------ */

/*
 * Add-on addon ACTIVE (on) or gone (off).  create holds more CreateAddon
 * members (stolen; may be NULL).  Waits between calls; in plan mode the
 * create or delete is recorded and the step is done.
 */
enum sw_step_rc
feat_ensure_addon(
    struct sw_step *s, const char *addon, int on, json_object *create)
{
	struct aws_error err;
	json_object *out, *in;
	const char *status;
	enum sw_step_rc rc;

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName", sw_js(addon),
		NULL),
	    &out, &err);
	if (rc == STEP_FAIL &&
	    strcmp(err.code, "ResourceNotFoundException") == 0) {
		s->msg[0] = '\0';
		if (!on) {
			json_object_put(create);
			return STEP_DONE;
		}
		in = create != NULL ? create : json_object_new_object();
		if ((rc = sw_addon_version(s, addon, in)) != STEP_DONE) {
			json_object_put(in);
			return rc;
		}
		json_object_object_add(in, "clusterName", sw_js(CLUSTER(s)));
		json_object_object_add(in, "addonName", sw_js(addon));
		json_object_object_add(
		    in, "resolveConflicts", sw_js("OVERWRITE"));
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAddon", in, &out,
		    "ResourceInUseException"));
		json_object_put(out);
		if (s->plan)
			return STEP_DONE;
		return sw_step_wait(s, sw_poll_ms(s, 10000),
		    "add-on %s is "
		    "being created",
		    addon);
	}
	json_object_put(create);
	if (rc != STEP_DONE)
		return rc;
	status = sw_keep(s, sw_json_path_str(out, "addon.status"));
	json_object_put(out);
	if (status == NULL)
		status = "?";
	if (on) {
		if (strcmp(status, "ACTIVE") == 0)
			return STEP_DONE;
		if (strcmp(status, "CREATE_FAILED") == 0 ||
		    strcmp(status, "DEGRADED") == 0 ||
		    strcmp(status, "UPDATE_FAILED") == 0)
			return sw_step_fail(
			    s, "add-on %s is %s", addon, status);
		return sw_step_wait(
		    s, sw_poll_ms(s, 10000), "add-on %s is %s", addon, status);
	}
	if (strcmp(status, "DELETE_FAILED") == 0)
		return sw_step_fail(s, "add-on %s is DELETE_FAILED", addon);
	if (strcmp(status, "DELETING") != 0) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "DeleteAddon",
		    sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName",
			sw_js(addon), NULL),
		    &out, "ResourceNotFoundException"));
		json_object_put(out);
		if (s->plan)
			return STEP_DONE;
	}
	return sw_step_wait(s, sw_poll_ms(s, 10000),
	    "add-on %s is being "
	    "deleted",
	    addon);
}

/* ---- IAM ------------------------------------------------------------ */

/* ---- pod identity associations ------------------------------------ */

/* The association id of ns/sa into id (empty when none). */
enum sw_step_rc
feat_find_association(
    struct sw_step *s, const char *ns, const char *sa, char *id, size_t idsz)
{
	json_object *out, *list;
	size_t i;

	id[0] = '\0';
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListPodIdentityAssociations",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "namespace", sw_js(ns),
		"serviceAccount", sw_js(sa), NULL),
	    &out, NULL));
	list = sw_json_get(out, "associations");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i);

		if (strcmp(sw_json_get_str(a, "namespace") ?: "", ns) == 0 &&
		    strcmp(sw_json_get_str(a, "serviceAccount") ?: "", sa) ==
			0 &&
		    sw_json_get_str(a, "associationId") != NULL &&
		    sw_fmt(id, idsz, "%s",
			sw_json_get_str(a, "associationId")) != SW_OK) {
			json_object_put(out);
			return sw_step_fail(s, "association id too long");
		}
	}
	json_object_put(out);
	return STEP_DONE;
}

/* ---- Kubernetes ------------------------------------------------------ */

/*
 * A client for reads even in plan mode: the plan must see the live
 * objects to leave out what is already there.  Writes still go through
 * sw_kube_apply / kube_delete, which only record in plan mode.
 */
enum sw_step_rc
feat_kube_open(struct sw_step *s, struct sw_kube *kb)
{
	int plan = s->plan;
	enum sw_step_rc rc;

	s->plan = 0;
	rc = sw_kube_open(s, CLUSTER(s), kb);
	s->plan = plan;
	return rc;
}

/* GET an object: 1 present (*out new, may be NULL), 0 absent, -1 error. */
int
feat_kube_get(struct sw_step *s, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name, json_object **out)
{
	char path[512];
	struct k8s_error ke;
	json_object *o = NULL;
	sw_err e;

	if (out != NULL)
		*out = NULL;
	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK) {
		sw_step_fail(s, "bad path for %s", name);
		return -1;
	}
	memset(&ke, 0, sizeof(ke));
	s->calls_made++;
	e = k8s_get(&kb->k, path, &o, &ke);
	if (e == SW_ENOTFOUND)
		return 0;
	if (e != SW_OK) {
		sw_step_retry(s, sw_poll_ms(s, 10000),
		    "get %s: %s (will "
		    "retry)",
		    name, ke.message[0] ? ke.message : "failed");
		return -1;
	}
	if (out != NULL)
		*out = o;
	else
		json_object_put(o);
	return 1;
}

/* Finalizers of a deleting object, comma-separated, into buf. */
static void
finalizer_list(json_object *o, char *buf, size_t bufsz)
{
	json_object *fins = sw_json_path(o, "metadata.finalizers");
	size_t i, n, used = 0;
	int w;

	buf[0] = '\0';
	n = fins != NULL && json_object_is_type(fins, json_type_array)
	    ? json_object_array_length(fins)
	    : 0;
	for (i = 0; i < n && used < bufsz; i++) {
		const char *f =
		    json_object_get_string(json_object_array_get_idx(fins, i));

		w = snprintf(buf + used, bufsz - used, "%s%s", i ? ", " : "",
		    f != NULL ? f : "");
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/*
 * Delete an object and wait until it is gone (absent is done); recorded
 * in plan mode.  An object with finalizers outlives the DELETE with a
 * deletionTimestamp until their controllers remove them: the step waits
 * for that, so what follows (turning off what those controllers need)
 * does not run while the object is still being finalized.
 */
enum sw_step_rc
feat_kube_delete(struct sw_step *s, struct sw_kube *kb, const char *api,
    const char *kind, const char *ns, const char *plural, const char *name)
{
	char path[512], fins[256];
	struct k8s_error ke;
	json_object *live = NULL;
	sw_err e;
	int got;

	if (s->plan) {
		json_object_array_add(s->calls,
		    sw_jo("stage", sw_js(s->stage), "kubernetes",
			sw_js("delete"), "apiVersion", sw_js(api), "kind",
			sw_js(kind), "namespace", ns ? sw_js(ns) : NULL, "name",
			sw_js(name), NULL));
		return STEP_DONE;
	}
	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return sw_step_fail(s, "bad path for %s", name);
	got = feat_kube_get(s, kb, api, ns, plural, name, &live);
	if (got <= 0)
		return got == 0 ? STEP_DONE : STEP_WAIT;
	if (sw_json_path(live, "metadata.deletionTimestamp") == NULL) {
		memset(&ke, 0, sizeof(ke));
		s->calls_made++;
		e = k8s_delete(&kb->k, path, &ke);
		if (e == SW_ENOTFOUND) {
			json_object_put(live);
			return STEP_DONE;
		}
		if (e != SW_OK) {
			json_object_put(live);
			return sw_step_retry(s, sw_poll_ms(s, 10000),
			    "delete %s "
			    "%s: %s (will retry)",
			    kind, name, ke.message[0] ? ke.message : "failed");
		}
		json_object_put(live);
		live = NULL;
		if ((got = feat_kube_get(
			 s, kb, api, ns, plural, name, &live)) <= 0)
			return got == 0 ? STEP_DONE : STEP_WAIT;
	}
	finalizer_list(live, fins, sizeof(fins));
	json_object_put(live);
	return sw_step_wait(s, sw_poll_ms(s, 5000),
	    "waiting for %s %s to be "
	    "deleted (finalizers: %s)",
	    kind, name, fins[0] ? fins : "none");
}

/* ---- HyperPod UpdateCluster ----------------------------------------- */

enum sw_step_rc
feat_describe_hp(struct sw_step *s, json_object **out)
{
	return sw_step_hp_describe(s, CLUSTER(s), out, NULL);
}

/* Every member of want (borrowed) is in have with the same value;
 * have may hold more members than want. */
static int
json_subset(json_object *want, json_object *have)
{
	size_t i;

	if (want == NULL)
		return 1;
	if (have == NULL ||
	    json_object_get_type(want) != json_object_get_type(have))
		return 0;
	if (json_object_is_type(want, json_type_object)) {
		json_object_object_foreach(want, k,
		    v) if (!json_subset(v, sw_json_get(have, k))) return 0;
		return 1;
	}
	if (json_object_is_type(want, json_type_array)) {
		if (json_object_array_length(want) !=
		    json_object_array_length(have))
			return 0;
		for (i = 0; i < json_object_array_length(want); i++)
			if (!json_subset(json_object_array_get_idx(want, i),
				json_object_array_get_idx(have, i)))
				return 0;
		return 1;
	}
	return json_object_equal(want, have);
}

/*
 * UpdateCluster with members (stolen) and the existing groups resent,
 * once per stage (flag; "<flag>_sent" is recorded before it goes out,
 * so a resumed step reads the cluster instead), then wait for
 * InService.  hp is the cluster's DescribeCluster document (borrowed).
 */
enum sw_step_rc
feat_update_hp(
    struct sw_step *s, const char *flag, json_object *hp, json_object *members)
{
	json_object *groups, *list, *upd, *out;
	enum sw_step_rc rc;
	char sent[64];
	size_t i;
	int resumed;

	if (sw_fmt(sent, sizeof(sent), "%s_sent", flag) != SW_OK)
		return sw_step_fail(s, "resource key %s too long", flag);
	if (!s->plan && sw_res_get(s, flag) == NULL &&
	    sw_res_get(s, sent) != NULL) {
		/* Recorded as sent by a poller that died before the answer:
		 * updating, or showing the members, means it arrived. */
		const char *st = sw_json_get_str(hp, "ClusterStatus");

		if ((st != NULL && strcmp(st, "InService") != 0) ||
		    json_subset(members, hp))
			sw_res_set(s, flag, "requested");
		else
			json_object_object_del(s->res, sent);
	}
	if (sw_res_get(s, flag) != NULL) {
		json_object_put(members);
		return sw_hp_status_step(s, hp, "UpdateCluster", 30000);
	}
	if (!s->plan &&
	    (rc = sw_hp_status_step(s, hp,
		 "before "
		 "UpdateCluster",
		 30000)) != STEP_DONE) {
		json_object_put(members);
		return rc;
	}
	list = json_object_new_array();
	groups = sw_json_get(hp, "InstanceGroups");
	for (i = 0; groups && i < json_object_array_length(groups); i++)
		json_object_array_add(list,
		    sw_hp_resend_group(
			json_object_array_get_idx(groups, i), -1));
	upd = sw_jo(
	    "ClusterName", sw_js(CLUSTER(s)), "InstanceGroups", list, NULL);
	json_object_object_foreach(members, k, v)
	    json_object_object_add(upd, k, json_object_get(v));
	json_object_put(members);
	TRY(sw_step_aws_once(
	    s, sent, AWS_SVC_SAGEMAKER, "UpdateCluster", upd, &out, &resumed));
	json_object_put(out);
	sw_res_set(s, flag, "requested");
	if (s->plan)
		return STEP_DONE;
	return sw_step_wait(s, sw_poll_ms(s, 10000), "UpdateCluster sent");
}

/* The HyperPod cluster ARN and the OIDC issuer host into the step. */
enum sw_step_rc
feat_cluster_facts(struct sw_step *s)
{
	json_object *out;
	const char *v;

	if (sw_res_get(s, "hyperpod_arn") == NULL) {
		TRY(feat_describe_hp(s, &out));
		if ((v = sw_json_get_str(out, "ClusterArn")) != NULL)
			sw_res_set(s, "hyperpod_arn", v);
		json_object_put(out);
		if (v == NULL)
			return sw_step_fail(
			    s, "no HyperPod cluster %s", CLUSTER(s));
	}
	if (sw_res_get(s, "oidc_issuer") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
		    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, NULL));
		v = sw_json_path_str(out, "cluster.identity.oidc.issuer");
		if (v != NULL && strncmp(v, "https://", 8) == 0)
			sw_res_set(s, "oidc_issuer", v + 8);
		json_object_put(out);
		if (sw_res_get(s, "oidc_issuer") == NULL)
			return sw_step_fail(s,
			    "EKS cluster %s has no OIDC "
			    "issuer",
			    CLUSTER(s));
	}
	return STEP_DONE;
}
