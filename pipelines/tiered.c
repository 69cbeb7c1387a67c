/*
 * tiered.c: the tiered_checkpointing feature of feature.set: the role with
 * an inline policy on the bucket only, its pod identity association, the
 * ServiceAccount training pods use, then UpdateCluster
 * TieredStorageConfig; and the same undone.
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

/* ---- tiered checkpointing ------------------------------------------ */

static const char *
tiered_ns(struct sw_step *s)
{
	json_object *v =
	    feat_want_opt(s, SW_FEAT_TIERED_CHECKPOINTING, "namespace");

	return v != NULL ? json_object_get_string(v) : "default";
}

/* The inline policy: the checkpoint bucket and its objects only.  New;
 * NULL for a bucket name too long. */
static json_object *
tiered_policy(const char *bucket)
{
	char b[128], objs[132];

	if (sw_fmt(b, sizeof(b), "arn:aws:s3:::%s", bucket) != SW_OK ||
	    sw_fmt(objs, sizeof(objs), "arn:aws:s3:::%s/*", bucket) != SW_OK)
		return NULL;
	return sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Sid", sw_js("CheckpointBucket"), "Effect",
		      sw_js("Allow"), "Action",
		      sw_ja(sw_js("s3:ListBucket"),
			  sw_js("s3:GetBucketLocation")),
		      "Resource", sw_js(b), NULL),
		sw_jo("Sid", sw_js("CheckpointObjects"), "Effect",
		    sw_js("Allow"), "Action",
		    sw_ja(sw_js("s3:GetObject"), sw_js("s3:PutObject"),
			sw_js("s3:DeleteObject"),
			sw_js("s3:AbortMultipartUpload")),
		    "Resource", sw_js(objs), NULL)),
	    NULL);
}

enum sw_step_rc
sw_st_tiered_on(struct sw_step *s)
{
	const char *bucket, *ns = tiered_ns(s), *mode;
	char role[128], assoc[128];
	json_object *policy, *out, *sa;
	struct sw_kube kb;
	enum sw_step_rc rc;
	int64_t pct, live_pct;
	int got;

	if (feat_want(s, SW_FEAT_TIERED_CHECKPOINTING) != 1)
		return STEP_DONE;
	bucket = json_object_get_string(
	    feat_want_opt(s, SW_FEAT_TIERED_CHECKPOINTING, "bucket"));
	pct = feat_want_opt(s, SW_FEAT_TIERED_CHECKPOINTING, "memory_percent")
	    ? json_object_get_int64(feat_want_opt(
		  s, SW_FEAT_TIERED_CHECKPOINTING, "memory_percent"))
	    : 20;
	if (bucket == NULL)
		return sw_step_fail(s, "tiered_checkpointing needs a bucket");
	/* 1. role + inline policy on the bucket only */
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_TIERED);
	if ((policy = tiered_policy(bucket)) == NULL)
		return sw_step_fail(s, "bucket name %s too long", bucket);
	rc = sw_ensure_pods_role(s,
	    &(struct sw_role){ .key = "tiered_role_arn",
		.name = role,
		.inline_name = TIERED_POLICY,
		.inline_doc = policy });
	json_object_put(policy);
	if (rc != STEP_DONE)
		return rc;
	/* 2. pod identity association ns/tiered-storage-sa -> role */
	TRY(feat_find_association(s, ns, TIERED_SA, assoc, sizeof(assoc)));
	if (assoc[0] == '\0') {
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS,
		    "CreatePodIdentityAssociation",
		    sw_jo("clusterName", sw_js(CLUSTER(s)), "namespace",
			sw_js(ns), "serviceAccount", sw_js(TIERED_SA),
			"roleArn", sw_js(sw_res_get(s, "tiered_role_arn")),
			"tags", sw_tag_map(s), NULL),
		    &out, "ResourceInUseException"));
		json_object_put(out);
	}
	/* 3. the Kubernetes service account training pods name */
	TRY(feat_kube_open(s, &kb));
	got =
	    feat_kube_get(s, &kb, "v1", ns, "serviceaccounts", TIERED_SA, NULL);
	if (got < 0) {
		sw_kube_close(&kb);
		return s->plan ? STEP_FAIL : STEP_WAIT;
	}
	if (got == 0) {
		sa = sw_jo("apiVersion", sw_js("v1"), "kind",
		    sw_js("ServiceAccount"), "metadata",
		    sw_jo("name", sw_js(TIERED_SA), "namespace", sw_js(ns),
			"labels",
			sw_jo("app.kubernetes.io/managed-by", sw_js("slipway"),
			    "slipway.io/feature", sw_js("tiered-checkpointing"),
			    NULL),
			NULL),
		    NULL);
		rc = sw_kube_apply(s, &kb, sa);
		json_object_put(sa);
		if (rc != STEP_DONE) {
			sw_kube_close(&kb);
			return rc;
		}
	}
	sw_kube_close(&kb);
	/* 4. HyperPod TieredStorageConfig Enable */
	TRY(feat_describe_hp(s, &out));
	mode = sw_json_path_str(out, "TieredStorageConfig.Mode");
	live_pct = sw_json_get_int(sw_json_get(out, "TieredStorageConfig"),
	    "InstanceMemoryAllocationPercentage", -1);
	if (mode != NULL && strcmp(mode, "Enable") == 0 && live_pct == pct &&
	    sw_res_get(s, "tiered_update") == NULL) {
		json_object_put(out);
		return STEP_DONE;
	}
	rc = feat_update_hp(s, "tiered_update", out,
	    sw_jo("TieredStorageConfig",
		sw_jo("Mode", sw_js("Enable"),
		    "InstanceMemoryAllocationPercentage", sw_ji(pct), NULL),
		NULL));
	json_object_put(out);
	return rc;
}

enum sw_step_rc
sw_st_tiered_off(struct sw_step *s)
{
	json_object *out, *list;
	const char *mode;
	char role[128];
	struct sw_kube kb;
	enum sw_step_rc rc;
	size_t i;

	if (feat_want(s, SW_FEAT_TIERED_CHECKPOINTING) != 0)
		return STEP_DONE;
	/* 1. HyperPod first: no daemon left using the chain */
	TRY(feat_describe_hp(s, &out));
	mode = sw_json_path_str(out, "TieredStorageConfig.Mode");
	if ((mode != NULL && strcmp(mode, "Enable") == 0) ||
	    sw_res_get(s, "tiered_update") != NULL) {
		rc = feat_update_hp(s, "tiered_update", out,
		    sw_jo("TieredStorageConfig",
			sw_jo("Mode", sw_js("Disable"), NULL), NULL));
		json_object_put(out);
		if (rc != STEP_DONE)
			return rc;
	} else
		json_object_put(out);
	/* 2. every association and service account named tiered-storage-sa */
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListPodIdentityAssociations",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "serviceAccount",
		sw_js(TIERED_SA), NULL),
	    &out, NULL));
	list = sw_json_get(out, "associations");
	TRY(feat_kube_open(s, &kb));
	rc = STEP_DONE;
	for (i = 0;
	     list && rc == STEP_DONE && i < json_object_array_length(list);
	     i++) {
		json_object *a = json_object_array_get_idx(list, i), *o2;
		const char *ns = sw_json_get_str(a, "namespace");

		if (strcmp(sw_json_get_str(a, "serviceAccount") ?: "",
			TIERED_SA) != 0 ||
		    ns == NULL)
			continue;
		if (feat_kube_get(s, &kb, "v1", ns, "serviceaccounts",
			TIERED_SA, NULL) == 1)
			rc = feat_kube_delete(s, &kb, "v1", "ServiceAccount",
			    ns, "serviceaccounts", TIERED_SA);
		if (rc != STEP_DONE)
			break;
		rc = sw_step_aws_ok(s, AWS_SVC_EKS,
		    "DeletePodIdentityAssociation",
		    sw_jo("clusterName", sw_js(CLUSTER(s)), "associationId",
			sw_js(sw_json_get_str(a, "associationId")), NULL),
		    &o2, "ResourceNotFoundException");
		json_object_put(o2);
	}
	if (rc == STEP_DONE &&
	    feat_kube_get(s, &kb, "v1", tiered_ns(s), "serviceaccounts",
		TIERED_SA, NULL) == 1)
		rc = feat_kube_delete(s, &kb, "v1", "ServiceAccount",
		    tiered_ns(s), "serviceaccounts", TIERED_SA);
	sw_kube_close(&kb);
	json_object_put(out);
	if (rc != STEP_DONE)
		return rc;
	/* 3. the role and its policy */
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_TIERED);
	return sw_remove_role(s, role);
}
