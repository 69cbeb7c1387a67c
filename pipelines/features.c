/*
 * features.c: the feature.set pipeline, managed features of a cluster
 * under the explicit-diff contract.  params are {name, features} where
 * features names only what the client changes (handlers/features.c
 * validated it and refused requests that change nothing).
 *
 * The stages run in a fixed order: removals first, in reverse
 * dependency order, then node recovery, then enables in dependency
 * order.  A stage whose feature is not named answers DONE at once, and
 * every stage first re-reads the live state, so it sends nothing when
 * its feature already is as asked:
 *
 *   off_autoscaling     UpdateCluster AutoScaling Disable, NodePool and
 *                       HyperpodNodeClass deleted, ClusterRole deleted
 *   off_tiered          UpdateCluster TieredStorageConfig Disable, then
 *                       ServiceAccount, pod identity association, role
 *   off_kuberay         the kuberay-operator release uninstalled by the
 *                       Helm Job (refused while Ray objects exist; Helm
 *                       keeps the CRDs)
 *   off_inference       add-on, its execution role
 *   off_training        add-on (its pod identity association goes with
 *                       it), its role
 *   off_addons          the add-on-only features asked false, in
 *                       reverse order of the table (featdefs.c)
 *   node_recovery       UpdateCluster NodeRecovery
 *   prerequisites       each add-on-only feature asked on or needed by
 *                       one asked on (the table's "needs": cert_manager
 *                       for either operator, fsx_csi and metrics_server
 *                       for inference), ACTIVE
 *   training_operator   role trusted by pods.eks.amazonaws.com, add-on
 *                       with its pod identity association, ACTIVE
 *   inference_operator  IRSA execution role, add-on, ACTIVE
 *   kuberay             kuberay-operator 1.4.2 by the Helm installer
 *                       Job, followed to Complete
 *   tiered_checkpointing  role + inline policy on the bucket only, pod
 *                       identity association, ServiceAccount, then
 *                       UpdateCluster TieredStorageConfig Enable
 *   autoscaling         groups checked (each starts at 0, at most 10),
 *                       ClusterRole (BatchAdd/BatchDeleteClusterNodes on
 *                       this cluster only), UpdateCluster AutoScaling
 *                       Karpenter + NodeProvisioningMode Continuous,
 *                       then HyperpodNodeClass + NodePool with the
 *                       consolidation settings
 *
 * UpdateCluster resends the existing instance groups through the one
 * allow-list of igroup.c (sw_hp_resend_group).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/router.h"
#include "pipelines/featdefs.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define TRAINING_NS	"aws-hyperpod"
#define TRAINING_SA	"hp-training-operator-controller-manager"
#define TRAINING_POLICY	"arn:aws:iam::aws:policy/" \
			"AmazonSageMakerHyperPodTrainingOperatorAccess"
#define INFERENCE_NS	"hyperpod-inference-system"
#define TIERED_SA	"tiered-storage-sa"
#define TIERED_POLICY	"slipway-tiered-checkpoint-s3"
#define SCALE_POLICY	"slipway-hyperpod-autoscaling"
#define RAY_NS		"ray-system"

/* What the request asks of a feature: -1 not named, 0 off, 1 on. */
static int
want(struct sw_step *s, enum sw_feat feature)
{
	json_object *v = sw_json_get(sw_json_get(s->params, "features"),
	    sw_featdefs[feature].name);

	if (v == NULL)
		return -1;
	if (json_object_is_type(v, json_type_object))
		return sw_json_get_bool(v, "enabled", 0);
	return json_object_get_boolean(v) ? 1 : 0;
}

/* A member of an object-valued feature (tiered_checkpointing...). */
static json_object *
want_opt(struct sw_step *s, enum sw_feat feature, const char *key)
{
	return sw_json_get(sw_json_get(sw_json_get(s->params, "features"),
	    sw_featdefs[feature].name), key);
}

/* ---- EKS add-ons ------------------------------------------------------ */

/*
 * Add-on addon ACTIVE (on) or gone (off).  create holds more CreateAddon
 * members (stolen; may be NULL).  Waits between calls; in plan mode the
 * create or delete is recorded and the step is done.
 */
static enum sw_step_rc
ensure_addon(struct sw_step *s, const char *addon, int on,
    json_object *create)
{
	struct aws_error err;
	json_object *out, *in;
	const char *status;
	enum sw_step_rc rc;

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeAddon", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), "addonName", sw_js(addon),
	    NULL), &out, &err);
	if (rc == STEP_FAIL && strcmp(err.code,
	    "ResourceNotFoundException") == 0) {
		s->msg[0] = '\0';
		if (!on) {
			json_object_put(create);
			return STEP_DONE;
		}
		in = create != NULL ? create : json_object_new_object();
		json_object_object_add(in, "clusterName",
		    sw_js(CLUSTER(s)));
		json_object_object_add(in, "addonName", sw_js(addon));
		json_object_object_add(in, "resolveConflicts",
		    sw_js("OVERWRITE"));
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAddon", in, &out,
		    "ResourceInUseException"));
		json_object_put(out);
		if (s->plan)
			return STEP_DONE;
		return sw_step_wait(s, sw_poll_ms(s, 10000), "add-on %s is "
		    "being created", addon);
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
			return sw_step_fail(s, "add-on %s is %s", addon, status);
		return sw_step_wait(s, sw_poll_ms(s, 10000), "add-on %s is %s",
		    addon, status);
	}
	if (strcmp(status, "DELETE_FAILED") == 0)
		return sw_step_fail(s, "add-on %s is DELETE_FAILED", addon);
	if (strcmp(status, "DELETING") != 0) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "DeleteAddon", sw_jo(
		    "clusterName", sw_js(CLUSTER(s)), "addonName",
		    sw_js(addon), NULL), &out, "ResourceNotFoundException"));
		json_object_put(out);
		if (s->plan)
			return STEP_DONE;
	}
	return sw_step_wait(s, sw_poll_ms(s, 10000), "add-on %s is being "
	    "deleted", addon);
}

/* ---- IAM ------------------------------------------------------------ */

/* A JSON document as a new string (free()). */
static char *
doc_text(json_object *doc)
{
	const char *t = json_object_to_json_string_ext(doc,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	return strdup(t != NULL ? t : "{}");
}

/* The live inline policy of a role, parsed; NULL when absent. */
static enum sw_step_rc
get_inline(struct sw_step *s, const char *role, const char *policy,
    json_object **doc)
{
	json_object *out;
	const char *enc;
	char *raw;
	size_t n;
	enum sw_step_rc rc;

	*doc = NULL;
	rc = sw_step_aws_ok(s, AWS_SVC_IAM, "GetRolePolicy", sw_jo(
	    "RoleName", sw_js(role), "PolicyName", sw_js(policy), NULL),
	    &out, "NoSuchEntity");
	if (rc != STEP_DONE)
		return rc;
	enc = sw_out_str(out, "PolicyDocument",
	    "GetRolePolicyResult.PolicyDocument", NULL);
	if (enc != NULL) {
		n = strlen(enc) + 1;
		if ((raw = malloc(n)) != NULL) {
			if (sw_url_decode(enc, n - 1, raw, n) >= 0)
				*doc = json_tokener_parse(raw);
			free(raw);
		}
	}
	json_object_put(out);
	return STEP_DONE;
}

/*
 * Role name with trust (borrowed), the managed policy arn (or NULL)
 * attached and the inline policy (borrowed, or NULL) put, each only when
 * the live role lacks it.  The ARN is recorded under key.
 */
static enum sw_step_rc
ensure_role(struct sw_step *s, const char *key, const char *name,
    json_object *trust, const char *managed, const char *pname,
    json_object *policy)
{
	json_object *out, *live, *list;
	const char *arn;
	enum sw_step_rc rc;
	char *text;
	size_t i;
	int have = 0;

	TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "GetRole", sw_jo("RoleName",
	    sw_js(name), NULL), &out, "NoSuchEntity"));
	arn = sw_out_str(out, "Role.Arn", "GetRoleResult.Role.Arn", NULL);
	if (arn != NULL)
		sw_res_set(s, key, arn);
	json_object_put(out);
	if (arn == NULL) {
		text = doc_text(trust);
		rc = sw_step_aws(s, AWS_SVC_IAM, "CreateRole", sw_jo(
		    "RoleName", sw_js(name),
		    "AssumeRolePolicyDocument", sw_js(text),
		    "Description", sw_js("Created by Slipway (feature_set)"),
		    "Tags", sw_ja(sw_jo("Key", sw_js("slipway:cluster"),
			"Value", sw_js(CLUSTER(s)), NULL)), NULL),
		    &out, NULL);
		free(text);
		if (rc != STEP_DONE)
			return rc;
		arn = sw_out_str(out, "Role.Arn", "CreateRoleResult.Role.Arn",
		    NULL);
		if (arn == NULL && s->plan)
			arn = "arn:aws:iam::planned:role/planned";
		if (arn == NULL) {
			json_object_put(out);
			return sw_step_fail(s, "CreateRole %s gave no ARN", name);
		}
		sw_res_set(s, key, arn);
		json_object_put(out);
		if (s->plan) {
			/* a new role has no policies: record both */
			if (managed != NULL) {
				TRY(sw_step_aws(s, AWS_SVC_IAM,
				    "AttachRolePolicy", sw_jo("RoleName",
				    sw_js(name), "PolicyArn", sw_js(managed),
				    NULL), &out, NULL));
				json_object_put(out);
			}
			if (policy != NULL) {
				text = doc_text(policy);
				rc = sw_step_aws(s, AWS_SVC_IAM,
				    "PutRolePolicy", sw_jo("RoleName",
				    sw_js(name), "PolicyName", sw_js(pname),
				    "PolicyDocument", sw_js(text), NULL), &out,
				    NULL);
				free(text);
				json_object_put(out);
			}
			return STEP_DONE;
		}
	}
	if (managed != NULL) {
		TRY(sw_step_aws(s, AWS_SVC_IAM, "ListAttachedRolePolicies",
		    sw_jo("RoleName", sw_js(name), NULL), &out, NULL));
		list = sw_json_get(out, "AttachedPolicies");
		if (list == NULL)
			list = sw_json_path(out, "ListAttachedRolePoliciesResult"
			    ".AttachedPolicies");
		for (i = 0; list && json_object_is_type(list,
		    json_type_array) && i < json_object_array_length(list);
		    i++)
			if (strcmp(sw_json_get_str(json_object_array_get_idx(
			    list, i), "PolicyArn") ?: "", managed) == 0)
				have = 1;
		json_object_put(out);
		if (!have) {
			TRY(sw_step_aws(s, AWS_SVC_IAM, "AttachRolePolicy",
			    sw_jo("RoleName", sw_js(name), "PolicyArn",
			    sw_js(managed), NULL), &out, NULL));
			json_object_put(out);
		}
	}
	if (policy != NULL) {
		TRY(get_inline(s, name, pname, &live));
		have = live != NULL && json_object_equal(live, policy);
		json_object_put(live);
		if (!have) {
			text = doc_text(policy);
			rc = sw_step_aws(s, AWS_SVC_IAM, "PutRolePolicy", sw_jo(
			    "RoleName", sw_js(name), "PolicyName", sw_js(pname),
			    "PolicyDocument", sw_js(text), NULL), &out, NULL);
			free(text);
			if (rc != STEP_DONE)
				return rc;
			json_object_put(out);
		}
	}
	return STEP_DONE;
}


/* Trust for EKS Pod Identity (sts:AssumeRole + sts:TagSession).  New. */
static json_object *
trust_pods(void)
{
	return sw_jo("Version", sw_js("2012-10-17"), "Statement", sw_ja(
	    sw_jo("Effect", sw_js("Allow"), "Principal", sw_jo("Service",
	    sw_js("pods.eks.amazonaws.com"), NULL), "Action", sw_ja(
	    sw_js("sts:AssumeRole"), sw_js("sts:TagSession")), NULL)), NULL);
}

/* ---- pod identity associations ------------------------------------ */

/* The association id of ns/sa into id (empty when none). */
static enum sw_step_rc
find_association(struct sw_step *s, const char *ns, const char *sa,
    char *id, size_t idsz)
{
	json_object *out, *list;
	size_t i;

	id[0] = '\0';
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListPodIdentityAssociations", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), "namespace", sw_js(ns),
	    "serviceAccount", sw_js(sa), NULL), &out, NULL));
	list = sw_json_get(out, "associations");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i);

		if (strcmp(sw_json_get_str(a, "namespace") ?: "", ns) == 0 &&
		    strcmp(sw_json_get_str(a, "serviceAccount") ?: "", sa) ==
		    0 && sw_json_get_str(a, "associationId") != NULL)
			snprintf(id, idsz, "%s", sw_json_get_str(a,
			    "associationId"));
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
static enum sw_step_rc
kube_open(struct sw_step *s, struct sw_kube *kb)
{
	int plan = s->plan;
	enum sw_step_rc rc;

	s->plan = 0;
	rc = sw_kube_open(s, CLUSTER(s), kb);
	s->plan = plan;
	return rc;
}

/* GET an object: 1 present (*out new, may be NULL), 0 absent, -1 error. */
static int
kube_get(struct sw_step *s, struct sw_kube *kb, const char *api,
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
		sw_step_wait(s, sw_poll_ms(s, 10000), "get %s: %s (will "
		    "retry)", name, ke.message[0] ? ke.message : "failed");
		return -1;
	}
	if (out != NULL)
		*out = o;
	else
		json_object_put(o);
	return 1;
}

/* Delete an object (absent is done); recorded in plan mode. */
static enum sw_step_rc
kube_delete(struct sw_step *s, struct sw_kube *kb, const char *api,
    const char *kind, const char *ns, const char *plural, const char *name)
{
	char path[512];
	struct k8s_error ke;
	sw_err e;

	if (s->plan) {
		json_object_array_add(s->calls, sw_jo("stage", sw_js(s->stage),
		    "kubernetes", sw_js("delete"), "apiVersion", sw_js(api),
		    "kind", sw_js(kind), "namespace", ns ? sw_js(ns) : NULL,
		    "name", sw_js(name), NULL));
		return STEP_DONE;
	}
	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return sw_step_fail(s, "bad path for %s", name);
	memset(&ke, 0, sizeof(ke));
	s->calls_made++;
	e = k8s_delete(&kb->k, path, &ke);
	if (e == SW_OK || e == SW_ENOTFOUND)
		return STEP_DONE;
	return sw_step_wait(s, sw_poll_ms(s, 10000), "delete %s %s: %s (will "
	    "retry)", kind, name, ke.message[0] ? ke.message : "failed");
}

/* ---- HyperPod UpdateCluster ----------------------------------------- */


static enum sw_step_rc
describe_hp(struct sw_step *s, json_object **out)
{
	return sw_step_aws(s, AWS_SVC_SAGEMAKER, "DescribeCluster",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), NULL), out, NULL);
}

/*
 * UpdateCluster with members (stolen) and the existing groups resent,
 * once per stage (flag), then wait for InService.  hp is the cluster's
 * DescribeCluster document (borrowed).
 */
static enum sw_step_rc
update_hp(struct sw_step *s, const char *flag, json_object *hp,
    json_object *members)
{
	json_object *groups, *list, *upd, *out;
	enum sw_step_rc rc;
	size_t i;

	if (sw_res_get(s, flag) != NULL) {
		json_object_put(members);
		return sw_hp_status_step(s, hp, "UpdateCluster", 30000);
	}
	if (!s->plan && (rc = sw_hp_status_step(s, hp, "before "
	    "UpdateCluster", 30000)) != STEP_DONE) {
		json_object_put(members);
		return rc;
	}
	list = json_object_new_array();
	groups = sw_json_get(hp, "InstanceGroups");
	for (i = 0; groups && i < json_object_array_length(groups); i++)
		json_object_array_add(list, sw_hp_resend_group(
		    json_object_array_get_idx(groups, i), -1));
	upd = sw_jo("ClusterName", sw_js(CLUSTER(s)), "InstanceGroups", list,
	    NULL);
	json_object_object_foreach(members, k, v)
		json_object_object_add(upd, k, json_object_get(v));
	json_object_put(members);
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "UpdateCluster", upd, &out,
	    NULL));
	json_object_put(out);
	sw_res_set(s, flag, "requested");
	if (s->plan)
		return STEP_DONE;
	return sw_step_wait(s, sw_poll_ms(s, 10000), "UpdateCluster sent");
}

/* ---- training and inference operators ------------------------------ */

static enum sw_step_rc
st_training_off(struct sw_step *s)
{
	char role[128];

	if (want(s, SW_FEAT_TRAINING_OPERATOR) != 0)
		return STEP_DONE;
	TRY(ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR), 0,
	    NULL));
	sw_name(role, sizeof(role), CLUSTER(s), "hp-training-op");
	return sw_remove_role(s, role);
}

static enum sw_step_rc
st_inference_off(struct sw_step *s)
{
	char role[128];

	if (want(s, SW_FEAT_INFERENCE_OPERATOR) != 0)
		return STEP_DONE;
	TRY(ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_INFERENCE_OPERATOR), 0,
	    NULL));
	sw_name(role, sizeof(role), CLUSTER(s), "hp-inference");
	return sw_remove_role(s, role);
}

/*
 * The add-on-only features asked off, in reverse table order, after
 * what depends on them (the handler refused turning one off while a
 * feature that stays on needs it).
 */
static enum sw_step_rc
st_addons_off(struct sw_step *s)
{
	int f;

	for (f = SW_FEAT__MAX - 1; f >= 0; f--)
		if ((sw_featdefs[f].flags & SW_FEATF_ADDON_ONLY) &&
		    want(s, (enum sw_feat)f) == 0)
			TRY(ensure_addon(s, SW_FEAT_ADDON(f), 0, NULL));
	return STEP_DONE;
}

/*
 * The add-on-only features asked on, or needed (directly or not) by a
 * feature asked on, in table order.  An add-on-only row needs nothing,
 * so table order is dependency order.
 */
static enum sw_step_rc
st_prerequisites(struct sw_step *s)
{
	int f, g, need;

	for (f = 0; f < SW_FEAT__MAX; f++) {
		if (!(sw_featdefs[f].flags & SW_FEATF_ADDON_ONLY))
			continue;
		need = want(s, (enum sw_feat)f) == 1;
		for (g = 0; !need && g < SW_FEAT__MAX; g++)
			need = want(s, (enum sw_feat)g) == 1 &&
			    sw_feat_needs((enum sw_feat)g, (enum sw_feat)f);
		if (need)
			TRY(ensure_addon(s, SW_FEAT_ADDON(f), 1, NULL));
	}
	return STEP_DONE;
}

/* Is the add-on already ACTIVE?  1 yes, 0 no; rc on a read error. */
static enum sw_step_rc
addon_active(struct sw_step *s, const char *addon, int *active)
{
	json_object *out;

	*active = 0;
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "DescribeAddon", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), "addonName", sw_js(addon),
	    NULL), &out, "ResourceNotFoundException"));
	*active = strcmp(sw_json_path_str(out, "addon.status") ?: "",
	    "ACTIVE") == 0;
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
st_training_on(struct sw_step *s)
{
	char role[128];
	json_object *trust;
	enum sw_step_rc rc;
	int active;

	if (want(s, SW_FEAT_TRAINING_OPERATOR) != 1)
		return STEP_DONE;
	TRY(addon_active(s, SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR),
	    &active));
	if (active)
		return STEP_DONE;
	sw_name(role, sizeof(role), CLUSTER(s), "hp-training-op");
	trust = trust_pods();
	rc = ensure_role(s, "training_role_arn", role, trust,
	    TRAINING_POLICY, NULL, NULL);
	json_object_put(trust);
	if (rc != STEP_DONE)
		return rc;
	/* The add-on's own pod identity association goes with it. */
	return ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR), 1,
	    sw_jo("podIdentityAssociations", sw_ja(sw_jo("serviceAccount",
	    sw_js(TRAINING_SA), "roleArn", sw_js(sw_res_get(s,
	    "training_role_arn")), NULL)), NULL));
}

/* The HyperPod cluster ARN and the OIDC issuer host into the step. */
static enum sw_step_rc
cluster_facts(struct sw_step *s)
{
	json_object *out;
	const char *v;

	if (sw_res_get(s, "hyperpod_arn") == NULL) {
		TRY(describe_hp(s, &out));
		if ((v = sw_json_get_str(out, "ClusterArn")) != NULL)
			sw_res_set(s, "hyperpod_arn", v);
		json_object_put(out);
		if (v == NULL)
			return sw_step_fail(s, "no HyperPod cluster %s",
			    CLUSTER(s));
	}
	if (sw_res_get(s, "oidc_issuer") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster", sw_jo(
		    "name", sw_js(CLUSTER(s)), NULL), &out, NULL));
		v = sw_json_path_str(out, "cluster.identity.oidc.issuer");
		if (v != NULL && strncmp(v, "https://", 8) == 0)
			sw_res_set(s, "oidc_issuer", v + 8);
		json_object_put(out);
		if (sw_res_get(s, "oidc_issuer") == NULL)
			return sw_step_fail(s, "EKS cluster %s has no OIDC "
			    "issuer", CLUSTER(s));
	}
	return STEP_DONE;
}

static enum sw_step_rc
st_inference_on(struct sw_step *s)
{
	char role[128], prov[512], key[600], cfgv[1024];
	const char *acct, *issuer;
	json_object *trust, *policy;
	enum sw_step_rc rc;
	int active;

	if (want(s, SW_FEAT_INFERENCE_OPERATOR) != 1)
		return STEP_DONE;
	TRY(addon_active(s, SW_FEAT_ADDON(SW_FEAT_INFERENCE_OPERATOR),
	    &active));
	if (active)
		return STEP_DONE;
	TRY(cluster_facts(s));
	if ((acct = sw_account_id(s)) == NULL)
		return sw_step_wait(s, sw_poll_ms(s, 10000), "cannot tell the "
		    "account id yet");
	issuer = sw_res_get(s, "oidc_issuer");
	snprintf(prov, sizeof(prov), "arn:aws:iam::%s:oidc-provider/%s", acct,
	    issuer);
	/* IRSA (facts 2.5): only service accounts of the operator's
	 * namespace may assume the execution role. */
	snprintf(key, sizeof(key), "%s:sub", issuer);
	snprintf(cfgv, sizeof(cfgv), "system:serviceaccount:%s:*",
	    INFERENCE_NS);
	trust = sw_jo("Version", sw_js("2012-10-17"), "Statement", sw_ja(
	    sw_jo("Effect", sw_js("Allow"), "Principal", sw_jo("Federated",
	    sw_js(prov), NULL), "Action", sw_js(
	    "sts:AssumeRoleWithWebIdentity"), "Condition", sw_jo(
	    "StringLike", sw_jo(key, sw_js(cfgv), NULL), NULL), NULL)), NULL);
	policy = sw_jo("Version", sw_js("2012-10-17"), "Statement", sw_ja(
	    sw_jo("Effect", sw_js("Allow"), "Action", sw_ja(
	    sw_js("sagemaker:DescribeCluster"),
	    sw_js("sagemaker:ListClusterNodes"),
	    sw_js("sagemaker:DescribeClusterNode")),
	    "Resource", sw_js(sw_res_get(s, "hyperpod_arn")), NULL)),
	    NULL);
	sw_name(role, sizeof(role), CLUSTER(s), "hp-inference");
	rc = ensure_role(s, "inference_role_arn", role, trust, NULL,
	    "slipway-inference-operator", policy);
	json_object_put(trust);
	json_object_put(policy);
	if (rc != STEP_DONE)
		return rc;
	snprintf(cfgv, sizeof(cfgv), "{\"executionRoleArn\":\"%s\","
	    "\"hyperpodClusterArn\":\"%s\"}", sw_res_get(s,
	    "inference_role_arn"), sw_res_get(s, "hyperpod_arn"));
	return ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_INFERENCE_OPERATOR), 1,
	    sw_jo("configurationValues", sw_js(cfgv), NULL));
}

/* ---- KubeRay ------------------------------------------------------- */

/*
 * KubeRay is the kuberay-operator chart, installed and removed by the
 * Helm installer Job (pipelines/helm.c): the chart brings the real ray.io
 * CRDs and the operator's own RBAC.  Slipway writes none of them, so a
 * KubeRay someone else installed is left alone.
 */

/* Is KubeRay there: 1 yes (CRD and operator), 0 no, -1 read error. */
static int
kuberay_present(struct sw_step *s, struct sw_kube *kb)
{
	int crd, dep;

	crd = kube_get(s, kb, "apiextensions.k8s.io/v1", NULL,
	    "customresourcedefinitions", "rayjobs.ray.io", NULL);
	dep = crd < 0 ? -1 : kube_get(s, kb, "apps/v1", RAY_NS,
	    "deployments", "kuberay-operator", NULL);
	if (crd < 0 || dep < 0)
		return -1;
	return crd == 1 && dep == 1;
}

static enum sw_step_rc
st_kuberay_on(struct sw_step *s)
{
	struct sw_kube kb;
	enum sw_step_rc rc;
	int have;

	if (want(s, SW_FEAT_KUBERAY) != 1)
		return STEP_DONE;
	TRY(kube_open(s, &kb));
	if (sw_res_get(s, "helm-kuberay-operator.job") == NULL) {
		have = kuberay_present(s, &kb);
		if (have != 0) {
			sw_kube_close(&kb);
			return have == 1 ? STEP_DONE : s->plan ? STEP_FAIL :
			    STEP_WAIT;
		}
	}
	rc = sw_helm_run(s, &kb, SW_HELM_KUBERAY, 1, NULL);
	sw_kube_close(&kb);
	return rc;
}

static enum sw_step_rc
st_kuberay_off(struct sw_step *s)
{
	static const char *const kinds[] = { "rayjobs", "rayclusters",
	    "rayservices", NULL };
	struct sw_kube kb;
	struct k8s_error ke;
	json_object *out;
	enum sw_step_rc rc;
	char path[256];
	size_t n;
	int i, crdp, rel, dep;

	if (want(s, SW_FEAT_KUBERAY) != 0)
		return STEP_DONE;
	TRY(kube_open(s, &kb));
	if (sw_res_get(s, "helm-kuberay-operator-uninstall.job") == NULL) {
		rel = sw_helm_deployed(s, &kb, SW_HELM_KUBERAY);
		crdp = rel < 0 ? -1 : kube_get(s, &kb,
		    "apiextensions.k8s.io/v1", NULL,
		    "customresourcedefinitions", "rayjobs.ray.io", NULL);
		if (rel < 0 || crdp < 0) {
			sw_kube_close(&kb);
			return s->plan ? STEP_FAIL : STEP_WAIT;
		}
		if (rel == 0) {
			/* no release of ours: leave another install alone */
			dep = kube_get(s, &kb, "apps/v1", RAY_NS, "deployments",
			    "kuberay-operator", NULL);
			sw_kube_close(&kb);
			if (dep < 0)
				return s->plan ? STEP_FAIL : STEP_WAIT;
			if (dep == 1)
				return sw_step_fail(s, "KubeRay in this cluster "
				    "was not installed by Slipway (no Helm "
				    "release kuberay-operator in %s); remove it "
				    "the way it was installed", RAY_NS);
			return STEP_DONE;
		}
		/* Without the operator, Ray objects would be orphaned. */
		for (i = 0; crdp == 1 && kinds[i] != NULL; i++) {
			snprintf(path, sizeof(path), "/apis/ray.io/v1/%s",
			    kinds[i]);
			memset(&ke, 0, sizeof(ke));
			out = NULL;
			s->calls_made++;
			if (k8s_list(&kb.k, path, NULL, &out, &ke) == SW_OK &&
			    (n = json_object_array_length(sw_json_get(out,
			    "items"))) > 0) {
				json_object_put(out);
				sw_kube_close(&kb);
				return sw_step_fail(s, "%zu %s still exist; "
				    "delete them before turning KubeRay off", n,
				    kinds[i]);
			}
			json_object_put(out);
		}
	}
	rc = sw_helm_run(s, &kb, SW_HELM_KUBERAY, 0, NULL);
	sw_kube_close(&kb);
	return rc;
}

/* ---- tiered checkpointing ------------------------------------------ */

static const char *
tiered_ns(struct sw_step *s)
{
	json_object *v = want_opt(s, SW_FEAT_TIERED_CHECKPOINTING, "namespace");

	return v != NULL ? json_object_get_string(v) : "default";
}

/* The inline policy: the checkpoint bucket and its objects only.  New. */
static json_object *
tiered_policy(const char *bucket)
{
	char b[128], objs[132];

	snprintf(b, sizeof(b), "arn:aws:s3:::%s", bucket);
	snprintf(objs, sizeof(objs), "arn:aws:s3:::%s/*", bucket);
	return sw_jo("Version", sw_js("2012-10-17"), "Statement", sw_ja(
	    sw_jo("Sid", sw_js("CheckpointBucket"), "Effect", sw_js("Allow"),
	    "Action", sw_ja(sw_js("s3:ListBucket"),
	    sw_js("s3:GetBucketLocation")), "Resource", sw_js(b), NULL),
	    sw_jo("Sid", sw_js("CheckpointObjects"), "Effect", sw_js("Allow"),
	    "Action", sw_ja(sw_js("s3:GetObject"), sw_js("s3:PutObject"),
	    sw_js("s3:DeleteObject"), sw_js("s3:AbortMultipartUpload")),
	    "Resource", sw_js(objs), NULL)), NULL);
}

static enum sw_step_rc
st_tiered_on(struct sw_step *s)
{
	const char *bucket, *ns = tiered_ns(s), *mode;
	char role[128], assoc[128];
	json_object *trust, *policy, *out, *sa;
	struct sw_kube kb;
	enum sw_step_rc rc;
	int64_t pct, live_pct;
	int got;

	if (want(s, SW_FEAT_TIERED_CHECKPOINTING) != 1)
		return STEP_DONE;
	bucket = json_object_get_string(want_opt(s,
	    SW_FEAT_TIERED_CHECKPOINTING, "bucket"));
	pct = want_opt(s, SW_FEAT_TIERED_CHECKPOINTING, "memory_percent") ?
	    json_object_get_int64(want_opt(s, SW_FEAT_TIERED_CHECKPOINTING,
	    "memory_percent")) : 20;
	if (bucket == NULL)
		return sw_step_fail(s, "tiered_checkpointing needs a bucket");
	/* 1. role + inline policy on the bucket only */
	sw_name(role, sizeof(role), CLUSTER(s), "tiered-ckpt");
	trust = trust_pods();
	policy = tiered_policy(bucket);
	rc = ensure_role(s, "tiered_role_arn", role, trust, NULL,
	    TIERED_POLICY, policy);
	json_object_put(trust);
	json_object_put(policy);
	if (rc != STEP_DONE)
		return rc;
	/* 2. pod identity association ns/tiered-storage-sa -> role */
	TRY(find_association(s, ns, TIERED_SA, assoc, sizeof(assoc)));
	if (assoc[0] == '\0') {
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS,
		    "CreatePodIdentityAssociation", sw_jo(
		    "clusterName", sw_js(CLUSTER(s)), "namespace", sw_js(ns),
		    "serviceAccount", sw_js(TIERED_SA),
		    "roleArn", sw_js(sw_res_get(s, "tiered_role_arn")),
		    "tags", sw_jo("slipway:cluster", sw_js(CLUSTER(s)), NULL),
		    NULL), &out, "ResourceInUseException"));
		json_object_put(out);
	}
	/* 3. the Kubernetes service account training pods name */
	TRY(kube_open(s, &kb));
	got = kube_get(s, &kb, "v1", ns, "serviceaccounts", TIERED_SA, NULL);
	if (got < 0) {
		sw_kube_close(&kb);
		return s->plan ? STEP_FAIL : STEP_WAIT;
	}
	if (got == 0) {
		sa = sw_jo("apiVersion", sw_js("v1"), "kind",
		    sw_js("ServiceAccount"), "metadata", sw_jo("name",
		    sw_js(TIERED_SA), "namespace", sw_js(ns), "labels", sw_jo(
		    "app.kubernetes.io/managed-by", sw_js("slipway"),
		    "slipway.io/feature", sw_js("tiered-checkpointing"), NULL),
		    NULL), NULL);
		rc = sw_kube_apply(s, &kb, sa);
		json_object_put(sa);
		if (rc != STEP_DONE) {
			sw_kube_close(&kb);
			return rc;
		}
	}
	sw_kube_close(&kb);
	/* 4. HyperPod TieredStorageConfig Enable */
	TRY(describe_hp(s, &out));
	mode = sw_json_path_str(out, "TieredStorageConfig.Mode");
	live_pct = sw_json_get_int(sw_json_get(out, "TieredStorageConfig"),
	    "InstanceMemoryAllocationPercentage", -1);
	if (mode != NULL && strcmp(mode, "Enable") == 0 && live_pct == pct &&
	    sw_res_get(s, "tiered_update") == NULL) {
		json_object_put(out);
		return STEP_DONE;
	}
	rc = update_hp(s, "tiered_update", out, sw_jo("TieredStorageConfig",
	    sw_jo("Mode", sw_js("Enable"), "InstanceMemoryAllocationPercentage",
	    sw_ji(pct), NULL), NULL));
	json_object_put(out);
	return rc;
}

static enum sw_step_rc
st_tiered_off(struct sw_step *s)
{
	json_object *out, *list;
	const char *mode;
	char role[128];
	struct sw_kube kb;
	enum sw_step_rc rc;
	size_t i;

	if (want(s, SW_FEAT_TIERED_CHECKPOINTING) != 0)
		return STEP_DONE;
	/* 1. HyperPod first: no daemon left using the chain */
	TRY(describe_hp(s, &out));
	mode = sw_json_path_str(out, "TieredStorageConfig.Mode");
	if ((mode != NULL && strcmp(mode, "Enable") == 0) ||
	    sw_res_get(s, "tiered_update") != NULL) {
		rc = update_hp(s, "tiered_update", out, sw_jo(
		    "TieredStorageConfig", sw_jo("Mode", sw_js("Disable"),
		    NULL), NULL));
		json_object_put(out);
		if (rc != STEP_DONE)
			return rc;
	} else
		json_object_put(out);
	/* 2. every association and service account named tiered-storage-sa */
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListPodIdentityAssociations", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), "serviceAccount",
	    sw_js(TIERED_SA), NULL), &out, NULL));
	list = sw_json_get(out, "associations");
	TRY(kube_open(s, &kb));
	rc = STEP_DONE;
	for (i = 0; list && rc == STEP_DONE &&
	    i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i), *o2;
		const char *ns = sw_json_get_str(a, "namespace");

		if (strcmp(sw_json_get_str(a, "serviceAccount") ?: "",
		    TIERED_SA) != 0 || ns == NULL)
			continue;
		if (kube_get(s, &kb, "v1", ns, "serviceaccounts", TIERED_SA,
		    NULL) == 1)
			rc = kube_delete(s, &kb, "v1", "ServiceAccount", ns,
			    "serviceaccounts", TIERED_SA);
		if (rc != STEP_DONE)
			break;
		rc = sw_step_aws_ok(s, AWS_SVC_EKS,
		    "DeletePodIdentityAssociation", sw_jo("clusterName",
		    sw_js(CLUSTER(s)), "associationId", sw_js(
		    sw_json_get_str(a, "associationId")), NULL), &o2,
		    "ResourceNotFoundException");
		json_object_put(o2);
	}
	if (rc == STEP_DONE && kube_get(s, &kb, "v1", tiered_ns(s),
	    "serviceaccounts", TIERED_SA, NULL) == 1)
		rc = kube_delete(s, &kb, "v1", "ServiceAccount", tiered_ns(s),
		    "serviceaccounts", TIERED_SA);
	sw_kube_close(&kb);
	json_object_put(out);
	if (rc != STEP_DONE)
		return rc;
	/* 3. the role and its policy */
	sw_name(role, sizeof(role), CLUSTER(s), "tiered-ckpt");
	return sw_remove_role(s, role);
}

/* ---- node recovery ------------------------------------------------- */

static enum sw_step_rc
st_node_recovery(struct sw_step *s)
{
	int w = want(s, SW_FEAT_NODE_RECOVERY);
	const char *mode = w == 1 ? "Automatic" : "None", *live;
	json_object *out;
	enum sw_step_rc rc;

	if (w < 0)
		return STEP_DONE;
	TRY(describe_hp(s, &out));
	live = sw_json_get_str(out, "NodeRecovery");
	if (live != NULL && strcmp(live, mode) == 0 &&
	    sw_res_get(s, "recovery_update") == NULL) {
		json_object_put(out);
		return STEP_DONE;
	}
	rc = update_hp(s, "recovery_update", out, sw_jo("NodeRecovery",
	    sw_js(mode), NULL));
	json_object_put(out);
	return rc;
}

/* ---- autoscaling (HyperPod managed Karpenter) ---------------------- */

#define NODECLASS_API	"karpenter.sagemaker.amazonaws.com/v1"
#define NODEPOOL_API	"karpenter.sh/v1"
#define KARPENTER_NAME	"slipway-default"

/* HyperpodNodeClass over groups (borrowed array of names).  New. */
static json_object *
node_class(json_object *groups)
{
	return sw_jo("apiVersion", sw_js(NODECLASS_API), "kind",
	    sw_js("HyperpodNodeClass"), "metadata", sw_jo("name",
	    sw_js(KARPENTER_NAME), NULL), "spec", sw_jo("instanceGroups",
	    json_object_get(groups), NULL), NULL);
}

/* NodePool with the consolidation settings asked for.  New. */
static json_object *
node_pool(const char *policy, const char *after)
{
	return sw_jo("apiVersion", sw_js(NODEPOOL_API), "kind",
	    sw_js("NodePool"), "metadata", sw_jo("name",
	    sw_js(KARPENTER_NAME), NULL), "spec", sw_jo(
	    "template", sw_jo("spec", sw_jo("nodeClassRef", sw_jo(
		"group", sw_js("karpenter.sagemaker.amazonaws.com"),
		"kind", sw_js("HyperpodNodeClass"),
		"name", sw_js(KARPENTER_NAME), NULL),
		"expireAfter", sw_js("Never"), "requirements", sw_ja(
		sw_jo("key", sw_js("node.kubernetes.io/instance-type"),
		"operator", sw_js("Exists"), NULL)), NULL), NULL),
	    "disruption", sw_jo("consolidationPolicy", sw_js(policy),
		"consolidateAfter", sw_js(after), NULL), NULL), NULL);
}

#define NODECLASS_CRD	"hyperpodnodeclasses.karpenter.sagemaker.amazonaws.com"
#define SCALE_MAX_GROUPS 10	/* HyperpodNodeClass instanceGroups maxItems */

/* Is group (borrowed name) in the array of names? */
static int
name_in(json_object *names, const char *group)
{
	size_t i;

	for (i = 0; names != NULL && json_object_is_type(names,
	    json_type_array) && i < json_object_array_length(names); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(
		    names, i)) ?: "", group) == 0)
			return 1;
	return 0;
}

/*
 * The groups Karpenter may scale into *groups (new array), by AWS's
 * rules: a group must start at 0 nodes (Karpenter would otherwise scale
 * a running group down to 0), at most ten of them.  Asked groups are
 * checked; without a list every group at 0 is taken.  A group already
 * in the live node class (live, borrowed; may be NULL) stays accepted
 * whatever its count, since Karpenter itself scaled it.  hp is the
 * DescribeCluster document (borrowed).
 */
static enum sw_step_rc
scale_groups(struct sw_step *s, json_object *hp, json_object *live,
    json_object **groups)
{
	json_object *asked = want_opt(s, SW_FEAT_AUTOSCALING,
	    "instance_groups");
	json_object *all = sw_json_get(hp, "InstanceGroups"), *g;
	const char *gname;
	int64_t count;
	size_t i, j;
	int found;

	*groups = json_object_new_array();
	for (i = 0; asked != NULL && i < json_object_array_length(asked);
	    i++) {
		const char *want_name = json_object_get_string(
		    json_object_array_get_idx(asked, i));

		found = 0;
		for (j = 0; all != NULL && j < json_object_array_length(all);
		    j++) {
			g = json_object_array_get_idx(all, j);
			gname = sw_json_get_str(g, "InstanceGroupName");
			if (gname == NULL || strcmp(gname, want_name) != 0)
				continue;
			found = 1;
			count = sw_json_get_int(g, "TargetCount", 0);
			if (sw_json_get_int(g, "CurrentCount", 0) > count)
				count = sw_json_get_int(g, "CurrentCount", 0);
			if (count > 0 && !name_in(live, gname)) {
				json_object_put(*groups);
				*groups = NULL;
				return sw_step_fail(s, "instance group %s has "
				    "%lld node(s); HyperPod autoscaling only "
				    "takes groups that start at 0 (Karpenter "
				    "would scale it down): set its count to 0 "
				    "first", gname, (long long)count);
			}
		}
		if (!found) {
			json_object_put(*groups);
			*groups = NULL;
			return sw_step_fail(s, "no instance group %s in cluster "
			    "%s", want_name, CLUSTER(s));
		}
		json_object_array_add(*groups, sw_js(want_name));
	}
	for (j = 0; asked == NULL && all != NULL &&
	    j < json_object_array_length(all); j++) {
		g = json_object_array_get_idx(all, j);
		gname = sw_json_get_str(g, "InstanceGroupName");
		if (gname == NULL)
			continue;
		if ((sw_json_get_int(g, "TargetCount", 0) == 0 &&
		    sw_json_get_int(g, "CurrentCount", 0) == 0) ||
		    name_in(live, gname))
			json_object_array_add(*groups, sw_js(gname));
	}
	if (json_object_array_length(*groups) == 0) {
		json_object_put(*groups);
		*groups = NULL;
		return sw_step_fail(s, "no instance group of cluster %s is at 0 "
		    "nodes; HyperPod autoscaling scales groups that start at 0: "
		    "add one with count 0", CLUSTER(s));
	}
	if (json_object_array_length(*groups) > SCALE_MAX_GROUPS) {
		i = json_object_array_length(*groups);
		json_object_put(*groups);
		*groups = NULL;
		return sw_step_fail(s, "%zu instance groups for autoscaling; "
		    "HyperPod takes at most %d: name them in "
		    "autoscaling.instance_groups", i, SCALE_MAX_GROUPS);
	}
	return STEP_DONE;
}

static enum sw_step_rc
st_autoscaling_on(struct sw_step *s)
{
	const char *policy = "WhenEmptyOrUnderutilized", *after = "5m";
	const char *mode, *astatus, *crole, *prov;
	char role[128];
	json_object *trust, *doc, *out, *groups, *live = NULL, *m, *v;
	struct sw_kube kb;
	enum sw_step_rc rc;
	int got;

	if (want(s, SW_FEAT_AUTOSCALING) != 1)
		return STEP_DONE;
	if ((v = want_opt(s, SW_FEAT_AUTOSCALING,
	    "consolidation_policy")) != NULL)
		policy = json_object_get_string(v);
	if ((v = want_opt(s, SW_FEAT_AUTOSCALING, "consolidate_after")) != NULL)
		after = json_object_get_string(v);
	TRY(cluster_facts(s));
	/* 0. the groups, checked before anything is sent */
	TRY(kube_open(s, &kb));
	got = kube_get(s, &kb, NODECLASS_API, NULL, "hyperpodnodeclasses",
	    KARPENTER_NAME, &live);
	sw_kube_close(&kb);
	if (got < 0 && !s->plan)
		return STEP_WAIT;
	s->msg[0] = '\0';
	TRY(describe_hp(s, &out));
	rc = scale_groups(s, out, sw_json_path(live, "spec.instanceGroups"),
	    &groups);
	json_object_put(live);
	json_object_put(out);
	if (rc != STEP_DONE)
		return rc;
	/* 1. ClusterRole: HyperPod may add and remove nodes of this
	 * cluster, nothing else */
	sw_name(role, sizeof(role), CLUSTER(s), "hp-autoscale");
	trust = sw_jo("Version", sw_js("2012-10-17"), "Statement", sw_ja(
	    sw_jo("Effect", sw_js("Allow"), "Principal", sw_jo("Service",
	    sw_js("sagemaker.amazonaws.com"), NULL), "Action",
	    sw_js("sts:AssumeRole"), NULL)), NULL);
	doc = sw_jo("Version", sw_js("2012-10-17"), "Statement", sw_ja(
	    sw_jo("Effect", sw_js("Allow"), "Action", sw_ja(
	    sw_js("sagemaker:BatchAddClusterNodes"),
	    sw_js("sagemaker:BatchDeleteClusterNodes")), "Resource",
	    sw_js(sw_res_get(s, "hyperpod_arn")), NULL)), NULL);
	rc = ensure_role(s, "cluster_role_arn", role, trust, NULL,
	    SCALE_POLICY, doc);
	json_object_put(trust);
	json_object_put(doc);
	if (rc != STEP_DONE) {
		json_object_put(groups);
		return rc;
	}
	/* 2. UpdateCluster: AutoScaling Karpenter with the ClusterRole, and
	 * NodeProvisioningMode Continuous, which HyperPod autoscaling needs */
	rc = describe_hp(s, &out);
	if (rc != STEP_DONE) {
		json_object_put(groups);
		return rc;
	}
	mode = sw_json_path_str(out, "AutoScaling.Mode");
	astatus = sw_keep(s, sw_json_path_str(out, "AutoScaling.Status"));
	crole = sw_json_get_str(out, "ClusterRole");
	prov = sw_json_get_str(out, "NodeProvisioningMode");
	if (mode == NULL || strcmp(mode, "Enable") != 0 || crole == NULL ||
	    strcmp(crole, sw_res_get(s, "cluster_role_arn")) != 0 ||
	    prov == NULL || strcmp(prov, "Continuous") != 0 ||
	    sw_res_get(s, "autoscaling_update") != NULL) {
		rc = update_hp(s, "autoscaling_update", out, sw_jo(
		    "ClusterRole", sw_js(sw_res_get(s, "cluster_role_arn")),
		    "NodeProvisioningMode", sw_js("Continuous"),
		    "AutoScaling", sw_jo("Mode", sw_js("Enable"),
		    "AutoScalerType", sw_js("Karpenter"), NULL), NULL));
		json_object_put(out);
		if (rc != STEP_DONE) {
			json_object_put(groups);
			return rc;
		}
		if (!s->plan && (astatus == NULL || strcmp(astatus,
		    "InService") != 0)) {
			json_object_put(groups);
			return sw_step_wait(s, sw_poll_ms(s, 10000),
			    "autoscaling is %s", astatus ?: "starting");
		}
	} else
		json_object_put(out);
	/* 3. node class and node pool, once HyperPod serves their kinds */
	rc = kube_open(s, &kb);
	if (rc != STEP_DONE) {
		json_object_put(groups);
		return rc;
	}
	if (!s->plan && (got = kube_get(s, &kb, "apiextensions.k8s.io/v1",
	    NULL, "customresourcedefinitions", NODECLASS_CRD, NULL)) != 1) {
		sw_kube_close(&kb);
		json_object_put(groups);
		return got < 0 ? STEP_WAIT : sw_step_wait(s, sw_poll_ms(s,
		    10000), "waiting for HyperPod autoscaling to serve "
		    "HyperpodNodeClass");
	}
	m = node_class(groups);
	json_object_put(groups);
	got = kube_get(s, &kb, NODECLASS_API, NULL, "hyperpodnodeclasses",
	    KARPENTER_NAME, &live);
	if (got == 0 || (got == 1 && !json_object_equal(sw_json_path(live,
	    "spec.instanceGroups"), sw_json_path(m, "spec.instanceGroups"))))
		rc = sw_kube_apply(s, &kb, m);
	else if (got < 0 && !s->plan)
		rc = STEP_WAIT;
	else if (got < 0)
		rc = sw_kube_apply(s, &kb, m);
	json_object_put(live);
	json_object_put(m);
	if (rc == STEP_DONE) {
		m = node_pool(policy, after);
		got = kube_get(s, &kb, NODEPOOL_API, NULL, "nodepools",
		    KARPENTER_NAME, &live);
		if (got != 1 || !json_object_equal(sw_json_path(live,
		    "spec.disruption"), sw_json_path(m, "spec.disruption")))
			rc = got < 0 && !s->plan ? STEP_WAIT :
			    sw_kube_apply(s, &kb, m);
		json_object_put(live);
		json_object_put(m);
	}
	sw_kube_close(&kb);
	return rc;
}

static enum sw_step_rc
st_autoscaling_off(struct sw_step *s)
{
	json_object *out;
	const char *mode;
	char role[128];
	struct sw_kube kb;
	enum sw_step_rc rc;

	if (want(s, SW_FEAT_AUTOSCALING) != 0)
		return STEP_DONE;
	/* 1. Karpenter objects first: no new nodes asked for meanwhile */
	TRY(kube_open(s, &kb));
	rc = STEP_DONE;
	if (kube_get(s, &kb, NODEPOOL_API, NULL, "nodepools", KARPENTER_NAME,
	    NULL) == 1)
		rc = kube_delete(s, &kb, NODEPOOL_API, "NodePool", NULL,
		    "nodepools", KARPENTER_NAME);
	if (rc == STEP_DONE && kube_get(s, &kb, NODECLASS_API, NULL,
	    "hyperpodnodeclasses", KARPENTER_NAME, NULL) == 1)
		rc = kube_delete(s, &kb, NODECLASS_API, "HyperpodNodeClass",
		    NULL, "hyperpodnodeclasses", KARPENTER_NAME);
	sw_kube_close(&kb);
	if (rc != STEP_DONE)
		return rc;
	s->msg[0] = '\0';
	/* 2. HyperPod AutoScaling Disable */
	TRY(describe_hp(s, &out));
	mode = sw_json_path_str(out, "AutoScaling.Mode");
	if ((mode != NULL && strcmp(mode, "Enable") == 0) ||
	    sw_res_get(s, "autoscaling_update") != NULL) {
		rc = update_hp(s, "autoscaling_update", out, sw_jo(
		    "AutoScaling", sw_jo("Mode", sw_js("Disable"), NULL),
		    NULL));
		json_object_put(out);
		if (rc != STEP_DONE)
			return rc;
	} else
		json_object_put(out);
	/* 3. the ClusterRole */
	sw_name(role, sizeof(role), CLUSTER(s), "hp-autoscale");
	return sw_remove_role(s, role);
}

/* ---- the pipeline ----------------------------------------------------- */

static const struct sw_stage_def feature_stages[] = {
	{ "off_autoscaling", st_autoscaling_off },
	{ "off_tiered_checkpointing", st_tiered_off },
	{ "off_kuberay", st_kuberay_off },
	{ "off_inference_operator", st_inference_off },
	{ "off_training_operator", st_training_off },
	{ "off_addons", st_addons_off },
	{ "node_recovery", st_node_recovery },
	{ "prerequisites", st_prerequisites },
	{ "training_operator", st_training_on },
	{ "inference_operator", st_inference_on },
	{ "kuberay", st_kuberay_on },
	{ "tiered_checkpointing", st_tiered_on },
	{ "autoscaling", st_autoscaling_on },
	{ NULL, NULL }
};

const struct sw_pipeline sw_pl_feature_set = {
	"feature.set", feature_stages
};
