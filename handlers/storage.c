/*
 * storage.c: shared storage (S3 Mountpoint and FSx for Lustre claims),
 * compute subnets, software updates, and the read-only cluster
 * diagnosis that the diagnostic skills start from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"
#include "api/optable.h"
#include "pipelines/pipelines.h"

/* ---- storage ----------------------------------------------------------- */

sw_err
h_storage_list(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	struct sw_kube kb;
	struct k8s_error kerr;
	json_object *pvcs = NULL, *pvs = NULL, *items, *list;
	size_t i, j;

	if (h_kube(r, name, &kb) != SW_OK)
		return r->err;
	memset(&kerr, 0, sizeof(kerr));
	if (k8s_list(&kb.k, "/api/v1/persistentvolumeclaims", NULL, &pvcs,
		&kerr) != SW_OK ||
	    k8s_list(&kb.k, "/api/v1/persistentvolumes", NULL, &pvs, &kerr) !=
		SW_OK) {
		sw_kube_close(&kb);
		json_object_put(pvcs);
		return sw_req_fail(
		    r, SW_EUPSTREAM, "listing volumes: %s", kerr.message);
	}
	sw_kube_close(&kb);
	items = json_object_new_array();
	list = sw_json_get(pvcs, "items");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *c = json_object_array_get_idx(list, i), *pv = NULL;
		const char *vol = sw_json_path_str(c, "spec.volumeName");
		json_object *pl = sw_json_get(pvs, "items");
		const char *driver;

		for (j = 0; vol && pl && j < json_object_array_length(pl); j++)
			if (strcmp(sw_json_path_str(
				       json_object_array_get_idx(pl, j),
				       "metadata.name")
				    ?: "",
				vol) == 0)
				pv = json_object_array_get_idx(pl, j);
		driver = sw_json_path_str(pv, "spec.csi.driver");
		json_object_array_add(items,
		    sw_jo("claim", sw_js(sw_json_path_str(c, "metadata.name")),
			"namespace",
			sw_js(sw_json_path_str(c, "metadata.namespace")),
			"status",
			sw_js(sw_json_path_str(c, "status.phase") ?: "Pending"),
			"volume", sw_js(vol), "kind",
			sw_js(driver == NULL ? "other"
				: strcmp(driver, "s3.csi.aws.com") == 0 ? "s3"
				: strcmp(driver, "fsx.csi.aws.com") == 0
				? "fsx"
				: driver),
			"bucket",
			sw_js(sw_json_path_str(
			    pv, "spec.csi.volumeAttributes.bucketName")),
			"file_system_id",
			strcmp(driver ?: "", "fsx.csi.aws.com") == 0
			    ? sw_js(
				  sw_json_path_str(pv, "spec.csi.volumeHandle"))
			    : NULL,
			NULL));
	}
	json_object_put(pvcs);
	json_object_put(pvs);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

sw_err
h_storage_add(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *kind = sw_json_get_str(r->args, "kind");
	const char *claim = sw_json_get_str(r->args, "claim");
	json_object *hp = NULL;
	struct aws_error err;

	if (strcmp(kind, "s3") == 0 && sw_json_get(r->args, "bucket") == NULL) {
		sw_ferr_add(&r->ferrs, "bucket", "required",
		    "is required for S3 storage");
		return sw_req_fail(r, SW_EINVAL, "bucket is required");
	}
	if (strcmp(kind, "fsx") == 0 &&
	    sw_json_get(r->args, "bucket") != NULL) {
		sw_ferr_add(&r->ferrs, "bucket", "conflict",
		    "only S3 storage takes a bucket");
		return sw_req_fail(r, SW_EINVAL, "bucket is for S3 storage");
	}
	if (strcmp(kind, "fsx") == 0) {
		/* FSx goes beside the nodes: AZ and security group of the
		 * cluster's first instance group. */
		if (h_hp_need(r, name, &hp) != SW_OK)
			return r->err;
		sw_json_add_str(r->args, "security_group_id",
		    sw_json_path_str(hp, "VpcConfig.SecurityGroupIds[0]"));
		if (sw_json_get_str(r->args, "availability_zone") == NULL) {
			json_object *out = NULL;
			const char *sub =
			    sw_json_path_str(hp, "VpcConfig.Subnets[0]");

			if (sub != NULL &&
			    h_call(r, AWS_SVC_EC2, "DescribeSubnets",
				sw_jo("SubnetIds", sw_ja(sw_js(sub)), NULL),
				&out, &err) == SW_OK)
				sw_json_add_str(r->args, "availability_zone",
				    sw_json_path_str(
					out, "subnetSet[0].availabilityZone"));
			json_object_put(out);
		}
		json_object_put(hp);
	}
	return h_start(r, "storage.add", claim, name);
}

/* ---- compute subnets ---------------------------------------------------- */

sw_err
h_compute_subnet_list(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *out = NULL, *list, *items, *hp = NULL;
	struct aws_error err;
	sw_err e;
	char prefix[128];
	size_t i, j, k;

	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL, "no AWS client");
	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_EC2, "DescribeSubnets",
		 sw_jo("Filters",
		     sw_ja(sw_jo("Name", sw_js("tag:" SW_TAG_CLUSTER), "Values",
			 sw_ja(sw_js(name)), NULL)),
		     NULL),
		 &out, &err)) != SW_OK)
		return h_aws_fail(r, AWS_SVC_EC2, "DescribeSubnets", e, &err);
	if (h_hp_describe(r, name, &hp, &err) != SW_OK)
		hp = NULL;
	if (sw_fmt(prefix, sizeof(prefix), "slipway-%s-compute-", name) !=
	    SW_OK) {
		json_object_put(out);
		json_object_put(hp);
		return sw_req_fail(r, SW_EINVAL,
		    "cluster name %s is too "
		    "long",
		    name);
	}
	items = json_object_new_array();

	list = sw_json_get(out, "subnetSet");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *sn = json_object_array_get_idx(list, i), *tags,
			    *users = json_object_new_array(), *groups;
		const char *tagname = NULL,
			   *id = sw_json_get_str(sn, "subnetId");

		tags = sw_json_get(sn, "tagSet");
		for (j = 0; tags && j < json_object_array_length(tags); j++)
			if (strcmp(
				sw_json_get_str(
				    json_object_array_get_idx(tags, j), "key")
				    ?: "",
				"Name") == 0)
				tagname = sw_json_get_str(
				    json_object_array_get_idx(tags, j),
				    "value");
		if (tagname == NULL ||
		    strncmp(tagname, prefix, strlen(prefix)) != 0) {
			json_object_put(users);
			continue;
		}
		groups = sw_json_get(hp, "InstanceGroups");
		for (j = 0; groups && j < json_object_array_length(groups);
		     j++) {
			json_object *g = json_object_array_get_idx(groups, j);
			json_object *subs =
			    sw_json_path(g, "OverrideVpcConfig.Subnets");

			for (k = 0; subs && k < json_object_array_length(subs);
			     k++)
				if (strcmp(
					json_object_get_string(
					    json_object_array_get_idx(subs, k)),
					id) == 0)
					json_object_array_add(users,
					    sw_js(sw_json_get_str(
						g, "InstanceGroupName")));
		}
		json_object_array_add(items,
		    sw_jo("subnet_id", sw_js(id), "name", sw_js(tagname),
			"availability_zone",
			sw_js(sw_json_get_str(sn, "availabilityZone")), "cidr",
			sw_js(sw_json_get_str(sn, "cidrBlock")),
			"available_ips",
			sw_js(sw_json_get_str(sn, "availableIpAddressCount")),
			"instance_groups", users, NULL));
	}
	json_object_put(out);
	json_object_put(hp);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

sw_err
h_cluster_software_update(struct sw_req *r)
{
	return h_start(r, "cluster.software_update", "software",
	    sw_json_get_str(r->args, "name"));
}

/* ---- diagnosis -------------------------------------------------------- */

static void
finding(
    json_object *list, const char *severity, const char *what, const char *next)
{
	json_object_array_add(list,
	    sw_jo("severity", sw_js(severity), "finding", sw_js(what),
		"suggested_next_step", sw_js(next), NULL));
}

/* The cluster's add-ons against the versions EKS publishes for its
 * Kubernetes version kver: one finding per add-on outside them.  The
 * add-on views (new), or NULL when they cannot be read. */
static json_object *
addon_findings(
    struct sw_req *r, const char *name, const char *kver, json_object *findings)
{
	json_object *items;
	char msg[512];
	size_t i;

	if (kver == NULL || h_addon_versions(r, name, kver, &items) != SW_OK) {
		r->err = SW_OK;
		r->detail[0] = '\0';
		return NULL;
	}
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *a = json_object_array_get_idx(items, i);
		const char *newest = sw_json_get_str(a, "newest_version");

		if (sw_json_get_bool(a, "compatible", 1))
			continue;
		sw_fmt_text(msg, sizeof(msg),
		    "add-on %s %s is not published "
		    "as compatible with Kubernetes %s",
		    sw_json_get_str(a, "addon"),
		    sw_json_get_str(a, "installed_version") ?: "(no version)",
		    kver);
		finding(findings, "warning", msg,
		    newest != NULL
			? "addon_upgrade to the newest compatible version "
			  "(addon_list shows it)"
			: "no compatible version is "
			  "published: check the cluster's Kubernetes version");
	}
	return items;
}

sw_err
h_diagnostics_cluster(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *eks = NULL, *hp = NULL, *nodes = NULL, *addons = NULL,
		    *knodes = NULL, *pods = NULL, *findings, *o, *list, *sick,
		    *bad;
	struct sw_kube kb;
	struct k8s_error kerr;
	struct aws_error err;
	sw_err e;
	char msg[512];
	size_t i, j;

	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL, "no AWS client");
	findings = json_object_new_array();
	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_EKS, "DescribeCluster",
		 sw_jo("name", sw_js(name), NULL), &eks, &err)) != SW_OK) {
		json_object_put(findings);
		return h_aws_fail(r, AWS_SVC_EKS, "DescribeCluster", e, &err);
	}
	if (strcmp(sw_json_path_str(eks, "cluster.status") ?: "", "ACTIVE")) {
		sw_fmt_text(msg, sizeof(msg), "EKS control plane is %s",
		    sw_json_path_str(eks, "cluster.status") ?: "unknown");
		finding(findings, "error", msg,
		    "operation_list with "
		    "cluster=<name> to find the failed stage; operation_retry");
	}
	if (h_hp_describe(r, name, &hp, &err) != SW_OK) {
		hp = NULL;
		finding(findings, "warning", "no HyperPod cluster is attached",
		    "cluster_create created none, or it was deleted");
	} else if (strcmp(sw_json_get_str(hp, "ClusterStatus") ?: "",
		       "InService") != 0) {
		sw_fmt_text(msg, sizeof(msg), "HyperPod cluster is %s%s%s",
		    sw_json_get_str(hp, "ClusterStatus") ?: "unknown",
		    sw_json_get_str(hp, "FailureMessage") ? ": " : "",
		    sw_json_get_str(hp, "FailureMessage") ?: "");
		finding(findings, "error", msg,
		    "read the failure message; "
		    "for capacity errors pick another AZ or type, then "
		    "operation_retry");
	}
	memset(&err, 0, sizeof(err));
	if (hp != NULL &&
	    h_call(r, AWS_SVC_SAGEMAKER, "ListClusterNodes",
		sw_jo(
		    "ClusterName", sw_js(name), "MaxResults", sw_ji(100), NULL),
		&nodes, &err) != SW_OK)
		nodes = NULL;
	sick = json_object_new_array();
	list = sw_json_get(nodes, "ClusterNodeSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *n = json_object_array_get_idx(list, i);
		const char *st = sw_json_path_str(n, "InstanceStatus.Status");

		if (st != NULL && strcmp(st, "Running") != 0)
			json_object_array_add(sick,
			    sw_jo("node_id",
				sw_js(sw_json_get_str(n, "InstanceId")),
				"instance_group",
				sw_js(sw_json_get_str(n, "InstanceGroupName")),
				"status", sw_js(st), "message",
				sw_js(sw_json_path_str(
				    n, "InstanceStatus.Message")),
				NULL));
	}
	if (json_object_array_length(sick) > 0) {
		sw_fmt_text(msg, sizeof(msg),
		    "%zu HyperPod node(s) not "
		    "Running",
		    json_object_array_length(sick));
		finding(findings, "error", msg,
		    strcmp(sw_json_get_str(hp, "NodeRecovery") ?: "",
			"Automatic") == 0
			? "node recovery is Automatic: wait for the replacement; if "
			  "it does not come, node_reboot, then node_replace"
			: "investigate the node, then node_reboot; if it stays "
			  "unhealthy, node_replace");
	}
	addons = addon_findings(
	    r, name, sw_json_path_str(eks, "cluster.version"), findings);
	/* The Kubernetes side: node health labels and pods that are stuck. */
	bad = json_object_new_array();
	if (strcmp(sw_json_path_str(eks, "cluster.status") ?: "", "ACTIVE") ==
		0 &&
	    h_kube(r, name, &kb) == SW_OK) {
		memset(&kerr, 0, sizeof(kerr));
		if (k8s_list(&kb.k, "/api/v1/nodes", NULL, &knodes, &kerr) !=
		    SW_OK)
			knodes = NULL;
		if (k8s_list(&kb.k, "/api/v1/pods", NULL, &pods, &kerr) !=
		    SW_OK)
			pods = NULL;
		sw_kube_close(&kb);
		list = sw_json_get(pods, "items");
		for (i = 0; list && i < json_object_array_length(list) &&
		     json_object_array_length(bad) < 50;
		     i++) {
			json_object *p = json_object_array_get_idx(list, i);
			const char *phase = sw_json_path_str(p, "status.phase");
			json_object *conds =
			    sw_json_path(p, "status.conditions");
			const char *why = NULL;

			if (phase != NULL &&
			    (strcmp(phase, "Running") == 0 ||
				strcmp(phase, "Succeeded") == 0))
				continue;
			/* Pending is normal while a pod starts: report it only
			 * when the scheduler says why it cannot place it. */
			for (j = 0;
			     conds && j < json_object_array_length(conds); j++)
				if (sw_json_get_str(
					json_object_array_get_idx(conds, j),
					"message") != NULL)
					why = sw_json_get_str(
					    json_object_array_get_idx(conds, j),
					    "message");
			if (phase != NULL && strcmp(phase, "Pending") == 0 &&
			    why == NULL)
				continue;
			json_object_array_add(bad,
			    sw_jo("pod",
				sw_js(sw_json_path_str(p, "metadata.name")),
				"namespace",
				sw_js(
				    sw_json_path_str(p, "metadata.namespace")),
				"phase", sw_js(phase ?: "Unknown"), "reason",
				sw_js(why), NULL));
		}
		if (json_object_array_length(bad) > 0) {
			sw_fmt_text(msg, sizeof(msg), "%zu pod(s) not running",
			    json_object_array_length(bad));
			finding(findings, "warning", msg,
			    "training_job_get / "
			    "training_job_logs on the job that owns them");
		}
	} else
		r->err = SW_OK;
	list = sw_json_get(knodes, "items");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *n = json_object_array_get_idx(list, i);
		json_object *labels = sw_json_path(n, "metadata.labels");
		const char *health = sw_json_get_str(
		    labels, "sagemaker.amazonaws.com/node-health-status");
		if (health != NULL && strcmp(health, "Schedulable") != 0) {
			sw_fmt_text(msg, sizeof(msg), "node %s is %s",
			    sw_json_path_str(n, "metadata.name") ?: "?",
			    health);
			finding(findings, "error", msg,
			    "node_reboot that node; "
			    "node_replace if it comes back unhealthy");
		}
	}
	if (json_object_array_length(findings) == 0)
		finding(findings, "info", "no problem found", "none");
	o = sw_jo("cluster", sw_js(name), "eks_status",
	    sw_js(sw_json_path_str(eks, "cluster.status")), "hyperpod_status",
	    sw_js(sw_json_get_str(hp, "ClusterStatus")), "node_recovery",
	    sw_js(sw_json_get_str(hp, "NodeRecovery")), "instance_groups",
	    json_object_get(sw_json_get(hp, "InstanceGroups")),
	    "unhealthy_nodes", sick, "addons", json_object_get(addons),
	    "kubernetes_nodes",
	    sw_ji(sw_json_get(knodes, "items")
		    ? (int64_t)json_object_array_length(
			  sw_json_get(knodes, "items"))
		    : 0),
	    "stuck_pods", bad, "findings", findings, "read_only", sw_jb(1),
	    NULL);
	json_object_put(eks);
	json_object_put(hp);
	json_object_put(nodes);
	json_object_put(addons);
	json_object_put(knodes);
	json_object_put(pods);
	sw_req_reply(r, 200, o);
	return SW_OK;
}
