/*
 * node_volumes.c: attaching EBS volumes to HyperPod nodes and detaching
 * them (node.volume_attach, node.volume_detach; pipelines/nodevol.c).
 *
 * The rules SageMaker documents for AttachClusterNodeVolume and
 * DetachClusterNodeVolume are checked here, before an operation starts,
 * each refusal naming the field it is about:
 *   - the cluster is orchestrated by Amazon EKS (name, "orchestrator");
 *   - it is InService (name, "state");
 *   - the node is one of its nodes (node, 404) and, to attach, is
 *     Running and not in a restricted instance group (node, "state" /
 *     "restricted"; SageMaker documents the latter for attach only);
 *   - the Amazon EBS CSI driver add-on is on the EKS cluster, or
 *     install_csi_driver asks for it (install_csi_driver, "csi-driver").
 * The volume's own state (available, same Availability Zone, attached
 * to that node) is SageMaker's to check: the trimmed EC2 API Slipway
 * holds has no volume reads, so its refusal fails the operation with
 * SageMaker's words.
 */
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/json.h"

#define CSI_ADDON "aws-ebs-csi-driver"

/* Is group one of the cluster's restricted instance groups? */
static int
restricted_group(json_object *hp, const char *group)
{
	json_object *rigs = sw_json_get(hp, "RestrictedInstanceGroups");
	size_t i;

	for (i = 0; group && rigs && i < json_object_array_length(rigs); i++)
		if (strcmp(sw_json_get_str(json_object_array_get_idx(rigs, i),
			       "InstanceGroupName")
			    ?: "",
			group) == 0)
			return 1;
	return 0;
}

/* The cluster's rules (EKS, InService); fills r's problem. */
static sw_err
check_cluster(struct sw_req *r, const char *name, json_object *hp)
{
	const char *st = sw_json_get_str(hp, "ClusterStatus");

	if (sw_json_path_str(hp, "Orchestrator.Eks.ClusterArn") == NULL) {
		sw_ferr_add(&r->ferrs, "name", "orchestrator",
		    "cluster %s is "
		    "not orchestrated by Amazon EKS; node volumes need an "
		    "EKS-orchestrated cluster",
		    name);
		return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
	}
	if (st == NULL || strcmp(st, "InService") != 0) {
		sw_ferr_add(&r->ferrs, "name", "state",
		    "cluster %s is %s; "
		    "volumes are attached and detached only while it is "
		    "InService",
		    name, st ? st : "unknown");
		return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
	}
	return SW_OK;
}

/* The node's rules (exists; to attach, Running and not restricted);
 * *group is its instance group's name (a new string object, also on a
 * refusal).  Fills r's problem. */
static sw_err
check_node(struct sw_req *r, const char *name, const char *node,
    json_object *hp, int attach, json_object **group)
{
	struct aws_error err;
	json_object *out;
	const char *st, *g;
	sw_err e;

	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_SAGEMAKER, "DescribeClusterNode",
		 sw_jo("ClusterName", sw_js(name), "NodeId", sw_js(node), NULL),
		 &out, &err)) != SW_OK) {
		if (e != SW_ENOTFOUND)
			return h_aws_fail(r, AWS_SVC_SAGEMAKER,
			    "DescribeClusterNode", e, &err);
		sw_ferr_add(&r->ferrs, "node", "exists", "no node %s in %s",
		    node, name);
		return sw_req_fail(r, SW_ENOTFOUND, "%s", r->ferrs.e[0].msg);
	}
	g = sw_json_path_str(out, "NodeDetails.InstanceGroupName");
	*group = sw_js(g ? g : "");
	st = sw_json_path_str(out, "NodeDetails.InstanceStatus.Status");
	if (attach && restricted_group(hp, g))
		sw_ferr_add(&r->ferrs, "node", "restricted",
		    "node %s is in "
		    "restricted instance group %s; SageMaker attaches no "
		    "volume to a node of a restricted instance group",
		    node, g);
	else if (attach && (st == NULL || strcmp(st, "Running") != 0))
		sw_ferr_add(&r->ferrs, "node", "state",
		    "node %s is %s; "
		    "volumes are attached to Running nodes",
		    node, st ? st : "unknown");
	json_object_put(out);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
	return SW_OK;
}

/* Is the EBS CSI driver add-on on EKS cluster eks?  *has is 0 or 1. */
static sw_err
csi_present(struct sw_req *r, const char *eks, int *has)
{
	struct aws_error err;
	json_object *out;
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo(
		"clusterName", sw_js(eks), "addonName", sw_js(CSI_ADDON), NULL),
	    &out, &err);
	if (e == SW_ENOTFOUND) {
		*has = 0;
		return SW_OK;
	}
	if (e != SW_OK)
		return h_aws_fail(r, AWS_SVC_EKS, "DescribeAddon", e, &err);
	*has = 1;
	json_object_put(out);
	return SW_OK;
}

/*
 * Both operations' checks (attach: 1 for an attach); on success *params
 * is the operation's input (new): name, node, group, volume_id,
 * cluster_arn, eks_cluster.
 */
static sw_err
volume_params(
    struct sw_req *r, const char *volume, int attach, json_object **params)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *node = sw_json_get_str(r->args, "node");
	json_object *hp, *group = NULL;
	const char *eks;

	if (h_hp_need(r, name, &hp) != SW_OK)
		return r->err;
	if (check_cluster(r, name, hp) != SW_OK ||
	    check_node(r, name, node, hp, attach, &group) != SW_OK) {
		json_object_put(group);
		json_object_put(hp);
		return r->err;
	}
	eks = strrchr(sw_json_path_str(hp, "Orchestrator.Eks.ClusterArn"), '/');
	*params = sw_jo("name", sw_js(name), "node", sw_js(node), "group",
	    group, "volume_id", sw_js(volume), "cluster_arn",
	    sw_js(sw_json_get_str(hp, "ClusterArn")), "eks_cluster",
	    sw_js(eks ? eks + 1 : name), NULL);
	json_object_put(hp);
	return SW_OK;
}

sw_err
h_node_volume_attach(struct sw_req *r)
{
	const char *volume = sw_json_get_str(r->args, "volume_id");
	json_object *install = sw_json_get(r->args, "install_csi_driver");
	json_object *params;
	int has = 0;

	if (volume_params(r, volume, 1, &params) != SW_OK)
		return r->err;
	if (csi_present(r, sw_json_get_str(params, "eks_cluster"), &has) !=
	    SW_OK) {
		json_object_put(params);
		return r->err;
	}
	if (!has && !(install && json_object_get_boolean(install))) {
		sw_ferr_add(&r->ferrs, "install_csi_driver", "csi-driver",
		    "cluster %s has no Amazon EBS CSI driver add-on (%s), "
		    "which manages node volumes in Kubernetes; set "
		    "install_csi_driver to install it first",
		    sw_json_get_str(params, "name"), CSI_ADDON);
		json_object_put(params);
		return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
	}
	json_object_object_add(params, "install_csi_driver", sw_jb(!has));
	return h_start_with(r, params, "node.volume_attach", volume,
	    sw_json_get_str(params, "name"));
}

sw_err
h_node_volume_detach(struct sw_req *r)
{
	const char *volume = sw_json_get_str(r->args, "volume");
	json_object *params;

	if (volume_params(r, volume, 0, &params) != SW_OK)
		return r->err;
	return h_start_with(r, params, "node.volume_detach", volume,
	    sw_json_get_str(params, "name"));
}
