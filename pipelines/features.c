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
 *   task_governance_check  refuses task_governance below Kubernetes
 *                       1.30 or beside another Kueue
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
 * allow-list of igroup.c (sw_hp_resend_group).  This file holds the
 * operators, add-ons and node recovery and the stage table; the helpers
 * every stage shares are in featkit.c, and kuberay.c, tiered.c and
 * autoscaling.c hold those features' stages (featkit.h).
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

/* ---- training and inference operators ------------------------------ */

static enum sw_step_rc
st_training_off(struct sw_step *s)
{
	char role[128];

	if (feat_want(s, SW_FEAT_TRAINING_OPERATOR) != 0)
		return STEP_DONE;
	TRY(feat_ensure_addon(
	    s, SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR), 0, NULL));
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_TRAINING_OP);
	return sw_remove_role(s, role);
}

static enum sw_step_rc
st_inference_off(struct sw_step *s)
{
	char role[128];

	if (feat_want(s, SW_FEAT_INFERENCE_OPERATOR) != 0)
		return STEP_DONE;
	TRY(feat_ensure_addon(
	    s, SW_FEAT_ADDON(SW_FEAT_INFERENCE_OPERATOR), 0, NULL));
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_INFERENCE);
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
		    feat_want(s, (enum sw_feat)f) == 0)
			TRY(feat_ensure_addon(s, SW_FEAT_ADDON(f), 0, NULL));
	return STEP_DONE;
}

/* Kubernetes "major.minor" as major * 1000 + minor; -1 if unreadable. */
static long
kube_version(const char *v)
{
	char *end;
	long major, minor;

	if (v == NULL)
		return -1;
	major = strtol(v, &end, 10);
	if (end == v || *end != '.')
		return -1;
	v = end + 1;
	minor = strtol(v, &end, 10);
	if (end == v)
		return -1;
	return major * 1000 + minor;
}

/*
 * Task governance is HyperPod's own Kueue: it needs Kubernetes 1.30 or
 * later, and cannot share the cluster with another Kueue (one found
 * while the add-on is absent: its CRD or its controller).  Both are
 * refused before anything is installed, in the plan too, so the
 * request is answered 409 naming the reason.
 */
static enum sw_step_rc
st_task_governance_check(struct sw_step *s)
{
	const char *addon = SW_FEAT_ADDON(SW_FEAT_TASK_GOVERNANCE);
	struct aws_error err;
	struct sw_kube kb;
	json_object *out;
	const char *kver;
	enum sw_step_rc rc;
	int crd, dep;

	if (feat_want(s, SW_FEAT_TASK_GOVERNANCE) != 1)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName", sw_js(addon),
		NULL),
	    &out, &err);
	if (rc == STEP_DONE) {
		json_object_put(out);
		return STEP_DONE; /* ours, already there */
	}
	if (strcmp(err.code, "ResourceNotFoundException") != 0)
		return rc;
	s->msg[0] = '\0';
	TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, NULL));
	kver = sw_keep(s, sw_json_path_str(out, "cluster.version"));
	json_object_put(out);
	if (kube_version(kver) < 1030)
		return sw_step_fail(s,
		    "task_governance needs Kubernetes 1.30 "
		    "or later; cluster %s runs %s: upgrade it first",
		    CLUSTER(s), kver ? kver : "an unknown version");
	TRY(feat_kube_open(s, &kb));
	crd = feat_kube_get(s, &kb, "apiextensions.k8s.io/v1", NULL,
	    "customresourcedefinitions", "clusterqueues.kueue.x-k8s.io", NULL);
	dep = crd < 0 ? -1
		      : feat_kube_get(s, &kb, "apps/v1", "kueue-system",
			    "deployments", "kueue-controller-manager", NULL);
	sw_kube_close(&kb);
	if (crd < 0 || dep < 0)
		return s->plan ? STEP_FAIL : STEP_WAIT;
	if (crd == 1 || dep == 1)
		return sw_step_fail(s,
		    "another Kueue is installed on %s (%s); "
		    "task_governance brings its own: uninstall it first",
		    CLUSTER(s),
		    crd == 1
			? "CRD clusterqueues.kueue.x-k8s.io"
			: "deployment kueue-system/kueue-controller-manager");
	return STEP_DONE;
}

/* More CreateAddon members for an add-on-only feature (new reference,
 * or NULL): observability records its Grafana workspace as a tag, which
 * feature_list turns into the workspace URL. */
static json_object *
addon_create_extra(struct sw_step *s, enum sw_feat f)
{
	json_object *ws;

	if (f != SW_FEAT_OBSERVABILITY)
		return NULL;
	ws = feat_want_opt(s, f, "grafana_workspace");
	if (ws == NULL && feat_want_opt(s, f, "prometheus_workspace") == NULL)
		return NULL;
	return sw_jo("tags",
	    sw_jo(SW_TAG_GRAFANA_WS, json_object_get(ws), SW_TAG_PROMETHEUS_WS,
		json_object_get(feat_want_opt(s, f, "prometheus_workspace")),
		NULL),
	    NULL);
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
		need = feat_want(s, (enum sw_feat)f) == 1;
		for (g = 0; !need && g < SW_FEAT__MAX; g++)
			need = feat_want(s, (enum sw_feat)g) == 1 &&
			    sw_feat_needs((enum sw_feat)g, (enum sw_feat)f);
		if (need)
			TRY(feat_ensure_addon(s, SW_FEAT_ADDON(f), 1,
			    addon_create_extra(s, (enum sw_feat)f)));
	}
	return STEP_DONE;
}

/* Is the add-on already ACTIVE?  1 yes, 0 no; rc on a read error. */
static enum sw_step_rc
addon_active(struct sw_step *s, const char *addon, int *active)
{
	json_object *out;

	*active = 0;
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName", sw_js(addon),
		NULL),
	    &out, "ResourceNotFoundException"));
	*active =
	    strcmp(sw_json_path_str(out, "addon.status") ?: "", "ACTIVE") == 0;
	json_object_put(out);
	return STEP_DONE;
}

static const char *const training_policies[] = { TRAINING_POLICY, NULL };

static enum sw_step_rc
st_training_on(struct sw_step *s)
{
	char role[128];
	enum sw_step_rc rc;
	int active;

	if (feat_want(s, SW_FEAT_TRAINING_OPERATOR) != 1)
		return STEP_DONE;
	TRY(addon_active(s, SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR), &active));
	if (active)
		return STEP_DONE;
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_TRAINING_OP);
	rc = sw_ensure_pods_role(s,
	    &(struct sw_role){ .key = "training_role_arn",
		.name = role,
		.managed = training_policies });
	if (rc != STEP_DONE)
		return rc;
	/* The add-on's own pod identity association goes with it. */
	return feat_ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_TRAINING_OPERATOR), 1,
	    sw_jo("podIdentityAssociations",
		sw_ja(sw_jo("serviceAccount", sw_js(TRAINING_SA), "roleArn",
		    sw_js(sw_res_get(s, "training_role_arn")), NULL)),
		NULL));
}

static enum sw_step_rc
st_inference_on(struct sw_step *s)
{
	char role[128], prov[512], key[600], cfgv[1024];
	const char *acct, *issuer;
	json_object *trust, *policy;
	enum sw_step_rc rc;
	int active;

	if (feat_want(s, SW_FEAT_INFERENCE_OPERATOR) != 1)
		return STEP_DONE;
	TRY(addon_active(
	    s, SW_FEAT_ADDON(SW_FEAT_INFERENCE_OPERATOR), &active));
	if (active)
		return STEP_DONE;
	TRY(feat_cluster_facts(s));
	if ((acct = sw_account_id(s)) == NULL)
		return sw_step_wait(s, sw_poll_ms(s, 10000),
		    "cannot tell the "
		    "account id yet");
	issuer = sw_res_get(s, "oidc_issuer");
	/* IRSA (facts 2.5): only service accounts of the operator's
	 * namespace may assume the execution role. */
	if (sw_fmt(prov, sizeof(prov), "arn:aws:iam::%s:oidc-provider/%s", acct,
		issuer) != SW_OK ||
	    sw_fmt(key, sizeof(key), "%s:sub", issuer) != SW_OK ||
	    sw_fmt(cfgv, sizeof(cfgv), "system:serviceaccount:%s:*",
		INFERENCE_NS) != SW_OK)
		return sw_step_fail(s, "OIDC issuer %s too long", issuer);
	trust = sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Effect", sw_js("Allow"), "Principal",
		sw_jo("Federated", sw_js(prov), NULL), "Action",
		sw_js("sts:AssumeRoleWithWebIdentity"), "Condition",
		sw_jo("StringLike", sw_jo(key, sw_js(cfgv), NULL), NULL),
		NULL)),
	    NULL);
	policy = sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Effect", sw_js("Allow"), "Action",
		sw_ja(sw_js("sagemaker:DescribeCluster"),
		    sw_js("sagemaker:ListClusterNodes"),
		    sw_js("sagemaker:DescribeClusterNode")),
		"Resource", sw_js(sw_res_get(s, "hyperpod_arn")), NULL)),
	    NULL);
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_INFERENCE);
	rc = sw_ensure_role(s,
	    &(struct sw_role){ .key = "inference_role_arn",
		.name = role,
		.trust = trust,
		.inline_name = "slipway-inference-operator",
		.inline_doc = policy });
	json_object_put(trust);
	json_object_put(policy);
	if (rc != STEP_DONE)
		return rc;
	if (sw_fmt(cfgv, sizeof(cfgv),
		"{\"executionRoleArn\":\"%s\","
		"\"hyperpodClusterArn\":\"%s\"}",
		sw_res_get(s, "inference_role_arn"),
		sw_res_get(s, "hyperpod_arn")) != SW_OK)
		return sw_step_fail(s,
		    "inference operator configuration "
		    "too long");
	return feat_ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_INFERENCE_OPERATOR),
	    1, sw_jo("configurationValues", sw_js(cfgv), NULL));
}

/* ---- node recovery ------------------------------------------------- */

static enum sw_step_rc
st_node_recovery(struct sw_step *s)
{
	int w = feat_want(s, SW_FEAT_NODE_RECOVERY);
	const char *mode = w == 1 ? "Automatic" : "None", *live;
	json_object *out;
	enum sw_step_rc rc;

	if (w < 0)
		return STEP_DONE;
	TRY(feat_describe_hp(s, &out));
	live = sw_json_get_str(out, "NodeRecovery");
	if (live != NULL && strcmp(live, mode) == 0 &&
	    sw_res_get(s, "recovery_update") == NULL) {
		json_object_put(out);
		return STEP_DONE;
	}
	rc = feat_update_hp(s, "recovery_update", out,
	    sw_jo("NodeRecovery", sw_js(mode), NULL));
	json_object_put(out);
	return rc;
}

/* ---- Spaces ----------------------------------------------------------- */

/* The Spaces add-on, after its prerequisites (the EBS CSI driver). */
static enum sw_step_rc
st_spaces_on(struct sw_step *s)
{
	if (feat_want(s, SW_FEAT_SPACES) != 1)
		return STEP_DONE;
	return feat_ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_SPACES), 1, NULL);
}

/* Off before the add-ons it needs. */
static enum sw_step_rc
st_spaces_off(struct sw_step *s)
{
	if (feat_want(s, SW_FEAT_SPACES) != 0)
		return STEP_DONE;
	return feat_ensure_addon(s, SW_FEAT_ADDON(SW_FEAT_SPACES), 0, NULL);
}

/* ---- the pipeline ----------------------------------------------------- */

/* clang-format off */
static const struct sw_stage_def feature_stages[] = {
	{ "off_autoscaling", sw_st_autoscaling_off },
	{ "off_tiered_checkpointing", sw_st_tiered_off },
	{ "off_kuberay", sw_st_kuberay_off },
	{ "off_inference_operator", st_inference_off },
	{ "off_training_operator", st_training_off },
	{ "off_spaces", st_spaces_off },
	{ "off_addons", st_addons_off },
	{ "node_recovery", st_node_recovery },
	{ "task_governance_check", st_task_governance_check },
	{ "prerequisites", st_prerequisites },
	{ "training_operator", st_training_on },
	{ "inference_operator", st_inference_on },
	{ "spaces", st_spaces_on },
	{ "kuberay", sw_st_kuberay_on },
	{ "tiered_checkpointing", sw_st_tiered_on },
	{ "autoscaling", sw_st_autoscaling_on },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_feature_set = { "feature.set", feature_stages };
