/*
 * teardown.c: the cluster.delete pipeline, the create pipeline in
 * reverse.  Each stage finds what Slipway made by its deterministic
 * name or its slipway:cluster tag (not by remembered ids), so teardown
 * also cleans up after a create that failed half way.
 *
 *   storage   FSx file systems made for the cluster (S3 buckets hold
 *             data and are kept)
 *   hyperpod  DeleteCluster (Deleting -> gone), execution role
 *   eks       DeleteCluster (DELETING -> gone), cluster role, OIDC
 *             provider
 *   network   NAT gateway, Elastic IP, internet gateway, route tables,
 *             subnets (compute ones too), security group, VPC
 */
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"



/* FSx file systems tagged for the cluster: delete, wait until gone. */
static enum sw_step_rc
stage_td_storage(struct sw_step *s)
{
	json_object *out, *list;
	enum sw_step_rc rc = STEP_DONE;
	int pending = 0;
	size_t i, j;

	TRY(sw_step_aws(s, AWS_SVC_FSX, "DescribeFileSystems", sw_jo(
	    "MaxResults", sw_ji(100), NULL), &out, NULL));
	list = sw_json_get(out, "FileSystems");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *fs = json_object_array_get_idx(list, i);
		json_object *tags = sw_json_get(fs, "Tags");
		const char *life = sw_json_get_str(fs, "Lifecycle");
		int ours = 0;

		for (j = 0; tags && j < json_object_array_length(tags); j++) {
			json_object *t = json_object_array_get_idx(tags, j);

			if (strcmp(sw_json_get_str(t, "Key") ?: "",
			    "slipway:cluster") == 0 && strcmp(sw_json_get_str(
			    t, "Value") ?: "", CLUSTER(s)) == 0)
				ours = 1;
		}
		if (!ours)
			continue;
		pending++;
		if (life != NULL && strcmp(life, "DELETING") == 0)
			continue;
		{
			json_object *o2;

			rc = sw_step_aws_ok(s, AWS_SVC_FSX, "DeleteFileSystem",
			    sw_jo("FileSystemId", sw_js(sw_json_get_str(fs,
			    "FileSystemId")), NULL), &o2,
			    "FileSystemNotFound");
			json_object_put(o2);
			if (rc != STEP_DONE)
				break;
		}
	}
	json_object_put(out);
	if (rc != STEP_DONE)
		return rc;
	if (pending > 0 && !s->plan)
		return sw_step_wait(s, sw_poll_ms(s, 30000), "waiting for %d "
		    "FSx file systems to be deleted", pending);
	return STEP_DONE;
}

/*
 * Every IAM role made for the cluster: the names all start with
 * "slipway-<cluster>-" (cluster, execution, feature roles).
 */
static enum sw_step_rc
delete_cluster_roles(struct sw_step *s)
{
	char prefix[128], marker[512] = "", names[64][128];
	json_object *out, *list;
	int n = 0, pages = 0, k;
	size_t i;

	sw_name(prefix, sizeof(prefix), CLUSTER(s), "");
	do {
		TRY(sw_step_aws(s, AWS_SVC_IAM, "ListRoles", sw_jo(
		    "MaxItems", sw_ji(1000), "Marker", marker[0] ?
		    sw_js(marker) : NULL, NULL), &out, NULL));
		list = sw_json_get(out, "Roles");
		for (i = 0; list && json_object_is_type(list, json_type_array)
		    && i < json_object_array_length(list) && n < 64; i++) {
			const char *rn = sw_json_get_str(
			    json_object_array_get_idx(list, i), "RoleName");

			if (rn != NULL && strncmp(rn, prefix,
			    strlen(prefix)) == 0)
				snprintf(names[n++], sizeof(names[0]), "%s",
				    rn);
		}
		marker[0] = '\0';
		if (strcmp(sw_json_get_str(out, "IsTruncated") ?: "",
		    "true") == 0 && sw_json_get_str(out, "Marker") != NULL)
			snprintf(marker, sizeof(marker), "%s",
			    sw_json_get_str(out, "Marker"));
		json_object_put(out);
	} while (marker[0] != '\0' && ++pages < 20);
	for (k = 0; k < n; k++)
		TRY(sw_remove_role(s, names[k]));
	return STEP_DONE;
}

static enum sw_step_rc
stage_td_hyperpod(struct sw_step *s)
{
	json_object *out;
	struct aws_error err;
	enum sw_step_rc rc;
	const char *status;
	char role[128];

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "DescribeCluster",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), NULL), &out, &err);
	if (rc == STEP_DONE) {
		status = sw_keep(s, sw_json_get_str(out, "ClusterStatus"));
		if (status == NULL || strcmp(status, "Deleting") != 0) {
			json_object *o2;

			rc = sw_step_aws_ok(s, AWS_SVC_SAGEMAKER,
			    "DeleteCluster", sw_jo("ClusterName",
			    sw_js(CLUSTER(s)), NULL), &o2, "ResourceNotFound");
			json_object_put(o2);
			if (rc != STEP_DONE) {
				json_object_put(out);
				return rc;
			}
			sw_res_set(s, "delete_requested", "yes");
		}
		json_object_put(out);
		if (!s->plan)
			return sw_step_wait(s, sw_poll_ms(s, 30000),
			    "HyperPod cluster %s is being deleted",
			    CLUSTER(s));
	} else if (strcmp(err.code, "ResourceNotFound") != 0)
		return rc;
	s->msg[0] = '\0';
	sw_name(role, sizeof(role), CLUSTER(s), "hp-exec");
	return sw_remove_role(s, role);
}

static enum sw_step_rc
stage_td_eks(struct sw_step *s)
{
	json_object *out, *list;
	struct aws_error err;
	enum sw_step_rc rc;
	const char *status, *issuer;
	size_t i;

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, &err);
	if (rc == STEP_DONE) {
		status = sw_keep(s, sw_json_path_str(out, "cluster.status"));
		issuer = sw_json_path_str(out, "cluster.identity.oidc.issuer");
		if (issuer != NULL && sw_res_get(s, "oidc_issuer") == NULL)
			sw_res_set(s, "oidc_issuer", issuer);
		if (status == NULL || strcmp(status, "DELETING") != 0) {
			json_object *o2;

			rc = sw_step_aws_ok(s, AWS_SVC_EKS, "DeleteCluster",
			    sw_jo("name", sw_js(CLUSTER(s)), NULL), &o2,
			    "ResourceNotFoundException");
			json_object_put(o2);
			if (rc != STEP_DONE) {
				json_object_put(out);
				return rc;
			}
		}
		json_object_put(out);
		if (!s->plan)
			return sw_step_wait(s, sw_poll_ms(s, 30000),
			    "EKS cluster %s is being deleted", CLUSTER(s));
	} else if (strcmp(err.code, "ResourceNotFoundException") != 0)
		return rc;
	s->msg[0] = '\0';
	TRY(delete_cluster_roles(s));
	if ((issuer = sw_res_get(s, "oidc_issuer")) != NULL) {
		TRY(sw_step_aws(s, AWS_SVC_IAM, "ListOpenIDConnectProviders",
		    sw_jo(NULL, NULL), &out, NULL));
		list = sw_json_path(out, "OpenIDConnectProviderList");
		if (list == NULL)
			list = sw_json_path(out, "ListOpenIDConnectProviders"
			    "Result.OpenIDConnectProviderList");
		for (i = 0; list && json_object_is_type(list,
		    json_type_array) && i < json_object_array_length(list);
		    i++) {
			const char *arn = sw_json_get_str(
			    json_object_array_get_idx(list, i), "Arn");
			json_object *o2;

			if (arn == NULL || strstr(arn, issuer + 8) == NULL)
				continue;
			rc = sw_step_aws_ok(s, AWS_SVC_IAM,
			    "DeleteOpenIDConnectProvider", sw_jo(
			    "OpenIDConnectProviderArn", sw_js(arn), NULL), &o2,
			    "NoSuchEntity");
			json_object_put(o2);
			if (rc != STEP_DONE) {
				json_object_put(out);
				return rc;
			}
		}
		json_object_put(out);
	}
	return STEP_DONE;
}

/* Every resource of a type tagged for this cluster, by id; extra, when
 * not NULL, is one more filter (taken).  New array. */
static enum sw_step_rc
tagged(struct sw_step *s, const char *describe, const char *set,
    const char *idfield, json_object *extra, json_object **ids)
{
	json_object *filters, *out, *list;
	enum sw_step_rc rc;
	size_t i;

	*ids = json_object_new_array();
	filters = sw_ja(sw_jo("Name", sw_js("tag:slipway:cluster"), "Values",
	    sw_ja(sw_js(CLUSTER(s))), NULL));
	if (extra != NULL)
		json_object_array_add(filters, extra);
	rc = sw_step_aws(s, AWS_SVC_EC2, describe, sw_jo("Filters", filters,
	    NULL), &out, NULL);
	if (rc != STEP_DONE)
		return rc;
	list = sw_json_get(out, set);
	for (i = 0; list && json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list); i++) {
		json_object *item = json_object_array_get_idx(list, i);

		if (sw_json_get_str(item, idfield) != NULL)
			json_object_array_add(*ids, json_object_get(item));
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
delete_each(struct sw_step *s, json_object *items, const char *idfield,
    const char *op, const char *param, const char *ok)
{
	json_object *out;
	size_t i;

	for (i = 0; i < json_object_array_length(items); i++) {
		const char *id = sw_json_get_str(json_object_array_get_idx(
		    items, i), idfield);

		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, op, sw_jo(param, sw_js(id),
		    NULL), &out, ok));
		json_object_put(out);
	}
	return STEP_DONE;
}

static enum sw_step_rc
stage_td_network(struct sw_step *s)
{
	json_object *items = NULL, *out, *assocs;
	const char *vpc;
	enum sw_step_rc rc;
	size_t i, j;

	/* NAT gateways first: they hold the Elastic IP and a subnet. */
	rc = tagged(s, "DescribeNatGateways", "natGatewaySet", "natGatewayId",
	    sw_jo("Name", sw_js("state"), "Values", sw_ja(sw_js("pending"),
	    sw_js("available"), sw_js("deleting")), NULL), &items);
	if (rc == STEP_DONE && json_object_array_length(items) > 0) {
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *n = json_object_array_get_idx(items, i);

			if (strcmp(sw_json_get_str(n, "state") ?
			    sw_json_get_str(n, "state") : "", "deleting") == 0)
				continue;
			rc = sw_step_aws_ok(s, AWS_SVC_EC2, "DeleteNatGateway",
			    sw_jo("NatGatewayId", sw_js(sw_json_get_str(n,
			    "natGatewayId")), NULL), &out,
			    "NatGatewayNotFound");
			json_object_put(out);
			if (rc != STEP_DONE)
				break;
		}
		json_object_put(items);
		if (rc != STEP_DONE)
			return rc;
		if (!s->plan)
			return sw_step_wait(s, sw_poll_ms(s, 15000),
			    "waiting for NAT gateways to be deleted");
	} else
		json_object_put(items);
	if (rc != STEP_DONE)
		return rc;
	TRY(tagged(s, "DescribeAddresses", "addressesSet", "allocationId",
	    NULL, &items));
	rc = delete_each(s, items, "allocationId", "ReleaseAddress",
	    "AllocationId", "InvalidAllocationID.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeInternetGateways", "internetGatewaySet",
	    "internetGatewayId", NULL, &items));
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *g = json_object_array_get_idx(items, i);
		json_object *att = sw_json_get(g, "attachmentSet");

		for (j = 0; att && json_object_is_type(att, json_type_array) &&
		    j < json_object_array_length(att); j++) {
			rc = sw_step_aws_ok(s, AWS_SVC_EC2,
			    "DetachInternetGateway", sw_jo("InternetGatewayId",
			    sw_js(sw_json_get_str(g, "internetGatewayId")),
			    "VpcId", sw_js(sw_json_get_str(
			    json_object_array_get_idx(att, j), "vpcId")), NULL),
			    &out, "Gateway.NotAttached");
			json_object_put(out);
			if (rc != STEP_DONE) {
				json_object_put(items);
				return rc;
			}
		}
	}
	rc = delete_each(s, items, "internetGatewayId",
	    "DeleteInternetGateway", "InternetGatewayId",
	    "InvalidInternetGatewayID.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeRouteTables", "routeTableSet", "routeTableId",
	    NULL, &items));
	for (i = 0; i < json_object_array_length(items); i++) {
		assocs = sw_json_get(json_object_array_get_idx(items, i),
		    "associationSet");
		for (j = 0; assocs && json_object_is_type(assocs,
		    json_type_array) && j < json_object_array_length(assocs);
		    j++) {
			const char *a = sw_json_get_str(
			    json_object_array_get_idx(assocs, j),
			    "routeTableAssociationId");

			if (a == NULL)
				continue;
			rc = sw_step_aws_ok(s, AWS_SVC_EC2,
			    "DisassociateRouteTable", sw_jo("AssociationId",
			    sw_js(a), NULL), &out,
			    "InvalidAssociationID.NotFound");
			json_object_put(out);
			if (rc != STEP_DONE) {
				json_object_put(items);
				return rc;
			}
		}
	}
	rc = delete_each(s, items, "routeTableId", "DeleteRouteTable",
	    "RouteTableId", "InvalidRouteTableID.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeSubnets", "subnetSet", "subnetId", NULL,
	    &items));
	rc = delete_each(s, items, "subnetId", "DeleteSubnet", "SubnetId",
	    "InvalidSubnetID.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeSecurityGroups", "securityGroupInfo",
	    "groupId", NULL, &items));
	rc = delete_each(s, items, "groupId", "DeleteSecurityGroup",
	    "GroupId", "InvalidGroup.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeVpcs", "vpcSet", "vpcId", NULL, &items));
	for (i = 0; i < json_object_array_length(items); i++) {
		vpc = sw_json_get_str(json_object_array_get_idx(items, i),
		    "vpcId");
		rc = sw_step_aws_ok(s, AWS_SVC_EC2, "DeleteVpc", sw_jo("VpcId",
		    sw_js(vpc), NULL), &out, "InvalidVpcID.NotFound");
		json_object_put(out);
		if (rc != STEP_DONE)
			break;
	}
	json_object_put(items);
	return rc;
}

static const struct sw_stage_def delete_stages[] = {
	{ "storage", stage_td_storage },
	{ "hyperpod", stage_td_hyperpod },
	{ "eks", stage_td_eks },
	{ "network", stage_td_network },
	{ NULL, NULL }
};

const struct sw_pipeline sw_pl_cluster_delete = {
	"cluster.delete", delete_stages
};
