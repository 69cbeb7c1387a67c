/*
 * autoscaling.c: the autoscaling feature of feature.set (HyperPod managed
 * Karpenter): the groups checked, the ClusterRole, UpdateCluster
 * AutoScaling with NodeProvisioningMode Continuous, HyperpodNodeClass and
 * NodePool; and the same undone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/url.h"
#include "pipelines/featdefs.h"
#include "pipelines/featkit.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* ---- autoscaling (HyperPod managed Karpenter) ---------------------- */

#define NODECLASS_API "karpenter.sagemaker.amazonaws.com/v1"
#define NODEPOOL_API "karpenter.sh/v1"
#define KARPENTER_NAME "slipway-default"

/* HyperpodNodeClass over groups (borrowed array of names).  New. */
static json_object *
node_class(json_object *groups)
{
	return sw_jo("apiVersion", sw_js(NODECLASS_API), "kind",
	    sw_js("HyperpodNodeClass"), "metadata",
	    sw_jo("name", sw_js(KARPENTER_NAME), NULL), "spec",
	    sw_jo("instanceGroups", json_object_get(groups), NULL), NULL);
}

/* NodePool with the consolidation settings asked for.  New. */
static json_object *
node_pool(const char *policy, const char *after)
{
	return sw_jo("apiVersion", sw_js(NODEPOOL_API), "kind",
	    sw_js("NodePool"), "metadata",
	    sw_jo("name", sw_js(KARPENTER_NAME), NULL), "spec",
	    sw_jo("template",
		sw_jo("spec",
		    sw_jo("nodeClassRef",
			sw_jo("group",
			    sw_js("karpenter.sagemaker.amazonaws.com"), "kind",
			    sw_js("HyperpodNodeClass"), "name",
			    sw_js(KARPENTER_NAME), NULL),
			"expireAfter", sw_js("Never"), "requirements",
			sw_ja(sw_jo("key",
			    sw_js("node.kubernetes.io/instance-type"),
			    "operator", sw_js("Exists"), NULL)),
			NULL),
		    NULL),
		"disruption",
		sw_jo("consolidationPolicy", sw_js(policy), "consolidateAfter",
		    sw_js(after), NULL),
		NULL),
	    NULL);
}

#define NODECLASS_CRD "hyperpodnodeclasses.karpenter.sagemaker.amazonaws.com"
#define SCALE_MAX_GROUPS 10 /* HyperpodNodeClass instanceGroups maxItems */

/* Is group (borrowed name) in the array of names? */
static int
name_in(json_object *names, const char *group)
{
	size_t i;

	for (i = 0;
	     names != NULL && json_object_is_type(names, json_type_array) &&
	     i < json_object_array_length(names);
	     i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(names, i))
			    ?: "",
			group) == 0)
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
scale_groups(
    struct sw_step *s, json_object *hp, json_object *live, json_object **groups)
{
	json_object *asked =
	    feat_want_opt(s, SW_FEAT_AUTOSCALING, "instance_groups");
	json_object *all = sw_json_get(hp, "InstanceGroups"), *g;
	const char *gname;
	int64_t count;
	size_t i, j;
	int found;

	*groups = json_object_new_array();
	for (i = 0; asked != NULL && i < json_object_array_length(asked); i++) {
		const char *want_name =
		    json_object_get_string(json_object_array_get_idx(asked, i));

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
				return sw_step_fail(s,
				    "instance group %s has "
				    "%lld node(s); HyperPod autoscaling only "
				    "takes groups that start at 0 (Karpenter "
				    "would scale it down): set its count to 0 "
				    "first",
				    gname, (long long)count);
			}
		}
		if (!found) {
			json_object_put(*groups);
			*groups = NULL;
			return sw_step_fail(s,
			    "no instance group %s in cluster "
			    "%s",
			    want_name, CLUSTER(s));
		}
		json_object_array_add(*groups, sw_js(want_name));
	}
	for (j = 0;
	     asked == NULL && all != NULL && j < json_object_array_length(all);
	     j++) {
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
		return sw_step_fail(s,
		    "no instance group of cluster %s is at 0 "
		    "nodes; HyperPod autoscaling scales groups that start at 0: "
		    "add one with count 0",
		    CLUSTER(s));
	}
	if (json_object_array_length(*groups) > SCALE_MAX_GROUPS) {
		i = json_object_array_length(*groups);
		json_object_put(*groups);
		*groups = NULL;
		return sw_step_fail(s,
		    "%zu instance groups for autoscaling; "
		    "HyperPod takes at most %d: name them in "
		    "autoscaling.instance_groups",
		    i, SCALE_MAX_GROUPS);
	}
	return STEP_DONE;
}

enum sw_step_rc
sw_st_autoscaling_on(struct sw_step *s)
{
	const char *policy = "WhenEmptyOrUnderutilized", *after = "5m";
	const char *mode, *astatus, *crole, *prov;
	char role[128];
	json_object *trust, *doc, *out, *groups, *live = NULL, *m, *v;
	struct sw_kube kb;
	enum sw_step_rc rc;
	int got;

	if (feat_want(s, SW_FEAT_AUTOSCALING) != 1)
		return STEP_DONE;
	if ((v = feat_want_opt(
		 s, SW_FEAT_AUTOSCALING, "consolidation_policy")) != NULL)
		policy = json_object_get_string(v);
	if ((v = feat_want_opt(s, SW_FEAT_AUTOSCALING, "consolidate_after")) !=
	    NULL)
		after = json_object_get_string(v);
	TRY(feat_cluster_facts(s));
	/* 0. the groups, checked before anything is sent */
	TRY(feat_kube_open(s, &kb));
	got = feat_kube_get(s, &kb, NODECLASS_API, NULL, "hyperpodnodeclasses",
	    KARPENTER_NAME, &live);
	sw_kube_close(&kb);
	if (got < 0 && !s->plan)
		return STEP_WAIT;
	s->msg[0] = '\0';
	TRY(feat_describe_hp(s, &out));
	rc = scale_groups(
	    s, out, sw_json_path(live, "spec.instanceGroups"), &groups);
	json_object_put(live);
	json_object_put(out);
	if (rc != STEP_DONE)
		return rc;
	/* 1. ClusterRole: HyperPod may add and remove nodes of this
	 * cluster, nothing else */
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_AUTOSCALE);
	trust = sw_trust_service("sagemaker.amazonaws.com");
	doc = sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Effect", sw_js("Allow"), "Action",
		sw_ja(sw_js("sagemaker:BatchAddClusterNodes"),
		    sw_js("sagemaker:BatchDeleteClusterNodes")),
		"Resource", sw_js(sw_res_get(s, "hyperpod_arn")), NULL)),
	    NULL);
	rc = sw_ensure_role(s,
	    &(struct sw_role){ .key = "cluster_role_arn",
		.name = role,
		.trust = trust,
		.inline_name = SCALE_POLICY,
		.inline_doc = doc });
	json_object_put(trust);
	json_object_put(doc);
	if (rc != STEP_DONE) {
		json_object_put(groups);
		return rc;
	}
	/* 2. UpdateCluster: AutoScaling Karpenter with the ClusterRole, and
	 * NodeProvisioningMode Continuous, which HyperPod autoscaling needs */
	rc = feat_describe_hp(s, &out);
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
		rc = feat_update_hp(s, "autoscaling_update", out,
		    sw_jo("ClusterRole",
			sw_js(sw_res_get(s, "cluster_role_arn")),
			"NodeProvisioningMode", sw_js("Continuous"),
			"AutoScaling",
			sw_jo("Mode", sw_js("Enable"), "AutoScalerType",
			    sw_js("Karpenter"), NULL),
			NULL));
		json_object_put(out);
		if (rc != STEP_DONE) {
			json_object_put(groups);
			return rc;
		}
		if (!s->plan &&
		    (astatus == NULL || strcmp(astatus, "InService") != 0)) {
			json_object_put(groups);
			return sw_step_wait(s, sw_poll_ms(s, 10000),
			    "autoscaling is %s", astatus ?: "starting");
		}
	} else
		json_object_put(out);
	/* 3. node class and node pool, once HyperPod serves their kinds */
	rc = feat_kube_open(s, &kb);
	if (rc != STEP_DONE) {
		json_object_put(groups);
		return rc;
	}
	if (!s->plan &&
	    (got = feat_kube_get(s, &kb, "apiextensions.k8s.io/v1", NULL,
		 "customresourcedefinitions", NODECLASS_CRD, NULL)) != 1) {
		sw_kube_close(&kb);
		json_object_put(groups);
		return got < 0
		    ? STEP_WAIT
		    : sw_step_wait(s, sw_poll_ms(s, 10000),
			  "waiting for HyperPod autoscaling to serve "
			  "HyperpodNodeClass");
	}
	m = node_class(groups);
	json_object_put(groups);
	got = feat_kube_get(s, &kb, NODECLASS_API, NULL, "hyperpodnodeclasses",
	    KARPENTER_NAME, &live);
	if (got == 0 ||
	    (got == 1 &&
		!json_object_equal(sw_json_path(live, "spec.instanceGroups"),
		    sw_json_path(m, "spec.instanceGroups"))))
		rc = sw_kube_apply(s, &kb, m);
	else if (got < 0 && !s->plan)
		rc = STEP_WAIT;
	else if (got < 0)
		rc = sw_kube_apply(s, &kb, m);
	json_object_put(live);
	json_object_put(m);
	if (rc == STEP_DONE) {
		m = node_pool(policy, after);
		got = feat_kube_get(s, &kb, NODEPOOL_API, NULL, "nodepools",
		    KARPENTER_NAME, &live);
		if (got != 1 ||
		    !json_object_equal(sw_json_path(live, "spec.disruption"),
			sw_json_path(m, "spec.disruption")))
			rc = got < 0 && !s->plan ? STEP_WAIT
						 : sw_kube_apply(s, &kb, m);
		json_object_put(live);
		json_object_put(m);
	}
	sw_kube_close(&kb);
	return rc;
}

enum sw_step_rc
sw_st_autoscaling_off(struct sw_step *s)
{
	json_object *out;
	const char *mode;
	char role[128];
	struct sw_kube kb;
	enum sw_step_rc rc;

	if (feat_want(s, SW_FEAT_AUTOSCALING) != 0)
		return STEP_DONE;
	/* 1. Karpenter objects first: no new nodes asked for meanwhile */
	TRY(feat_kube_open(s, &kb));
	rc = STEP_DONE;
	if (feat_kube_get(s, &kb, NODEPOOL_API, NULL, "nodepools",
		KARPENTER_NAME, NULL) == 1)
		rc = feat_kube_delete(s, &kb, NODEPOOL_API, "NodePool", NULL,
		    "nodepools", KARPENTER_NAME);
	if (rc == STEP_DONE &&
	    feat_kube_get(s, &kb, NODECLASS_API, NULL, "hyperpodnodeclasses",
		KARPENTER_NAME, NULL) == 1)
		rc =
		    feat_kube_delete(s, &kb, NODECLASS_API, "HyperpodNodeClass",
			NULL, "hyperpodnodeclasses", KARPENTER_NAME);
	sw_kube_close(&kb);
	if (rc != STEP_DONE)
		return rc;
	s->msg[0] = '\0';
	/* 2. HyperPod AutoScaling Disable */
	TRY(feat_describe_hp(s, &out));
	mode = sw_json_path_str(out, "AutoScaling.Mode");
	if ((mode != NULL && strcmp(mode, "Enable") == 0) ||
	    sw_res_get(s, "autoscaling_update") != NULL) {
		rc = feat_update_hp(s, "autoscaling_update", out,
		    sw_jo("AutoScaling", sw_jo("Mode", sw_js("Disable"), NULL),
			NULL));
		json_object_put(out);
		if (rc != STEP_DONE)
			return rc;
	} else
		json_object_put(out);
	/* 3. the ClusterRole */
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_AUTOSCALE);
	return sw_remove_role(s, role);
}
