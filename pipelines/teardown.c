/*
 * teardown.c: the cluster.delete and cluster.release pipelines.
 *
 * cluster.delete is the create pipeline in reverse, and it deletes only
 * what is Slipway's: what carries the id Slipway recorded for the
 * cluster (params "cluster_id", tag SW_TAG_CLUSTER_ID), found by that
 * tag, or by the exact name Slipway gave it and then checked for the
 * tag; never by a name prefix, so cluster "c2" leaves "c2-b" alone.
 * It needs no remembered ids of the create, so it also cleans up after
 * a create that failed half way.
 *
 *   storage   FSx file systems tagged with the id (S3 buckets hold data
 *             and are kept)
 *   hyperpod  DeleteCluster (Deleting -> gone) when its orchestrator is
 *             our EKS cluster; then the cluster's lifecycle scripts
 *             (lifecycle/<name>/ in the shared bucket)
 *   eks       DeleteCluster (DELETING -> gone) when tagged with the id;
 *             the roles Slipway names for the cluster (SW_ROLE_*) and the
 *             OIDC provider, each only when tagged with the id
 *   network   NAT gateway, Elastic IP, internet gateway, route tables,
 *             subnets (compute ones too), security group, VPC
 *   forget    the cluster's record (lib/ops.h)
 *
 * An imported cluster is deleted only when the request said
 * delete_resources (handlers/ownership.c): import tagged its EKS cluster
 * with the id, and nothing else of it carries the tag, so its clusters
 * go and its roles, network and OIDC provider stay.  Without the flag it
 * is released: cluster.release only forgets the record.
 */
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"
#include "lib/ops.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* FSx file systems tagged for the cluster: delete, wait until gone. */
static enum sw_step_rc
stage_td_storage(struct sw_step *s)
{
	json_object *out, *list;
	enum sw_step_rc rc = STEP_DONE;
	int pending = 0;
	size_t i;

	TRY(sw_step_aws(s, AWS_SVC_FSX, "DescribeFileSystems",
	    sw_jo("MaxResults", sw_ji(100), NULL), &out, NULL));
	list = sw_json_get(out, "FileSystems");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *fs = json_object_array_get_idx(list, i);
		json_object *tags = sw_json_get(fs, "Tags");
		const char *life = sw_json_get_str(fs, "Lifecycle");
		int ours = sw_tags_ours(s, tags);

		if (!ours)
			continue;
		pending++;
		if (life != NULL && strcmp(life, "DELETING") == 0)
			continue;
		{
			json_object *o2;

			rc = sw_step_aws_ok(s, AWS_SVC_FSX, "DeleteFileSystem",
			    sw_jo("FileSystemId",
				sw_js(sw_json_get_str(fs, "FileSystemId")),
				NULL),
			    &o2, "FileSystemNotFound");
			json_object_put(o2);
			if (rc != STEP_DONE)
				break;
		}
	}
	json_object_put(out);
	if (rc != STEP_DONE)
		return rc;
	if (pending > 0 && !s->plan)
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "waiting for %d "
		    "FSx file systems to be deleted",
		    pending);
	return STEP_DONE;
}

/*
 * The IAM roles Slipway names for the cluster (SW_ROLE_*), each by its
 * exact name and deleted only when it carries the cluster's id.
 */
static enum sw_step_rc
delete_cluster_roles(struct sw_step *s)
{
	json_object *out;
	char role[128];
	int k, ours;

	for (k = 0; sw_role_suffixes[k] != NULL; k++) {
		sw_name(role, sizeof(role), CLUSTER(s), sw_role_suffixes[k]);
		TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "GetRole",
		    sw_jo("RoleName", sw_js(role), NULL), &out,
		    "NoSuchEntity"));
		ours = sw_tags_ours(s, sw_json_path(out, "Role.Tags")) ||
		    sw_tags_ours(
			s, sw_json_path(out, "GetRoleResult.Role.Tags"));
		json_object_put(out);
		if (ours)
			TRY(sw_remove_role(s, role));
	}
	return STEP_DONE;
}

/*
 * The ARN of the EKS cluster of this name when it carries the cluster's
 * id (recorded as eks_arn), else NULL into *arn.
 */
static enum sw_step_rc
our_eks_arn(struct sw_step *s, const char **arn)
{
	json_object *out;
	struct aws_error err;
	enum sw_step_rc rc;

	*arn = sw_res_get(s, "eks_arn");
	if (*arn != NULL)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, &err);
	if (rc != STEP_DONE) {
		if (strcmp(err.code, "ResourceNotFoundException") != 0)
			return rc;
		s->msg[0] = '\0';
		return STEP_DONE;
	}
	if (sw_tags_ours(s, sw_json_path(out, "cluster.tags")))
		sw_res_set(s, "eks_arn", sw_json_path_str(out, "cluster.arn"));
	json_object_put(out);
	*arn = sw_res_get(s, "eks_arn");
	return STEP_DONE;
}

/* The objects under lifecycle/<cluster>/ in the shared bucket. */
static enum sw_step_rc
delete_lifecycle(struct sw_step *s)
{
	char bucket[128], prefix[160], tok[1024];
	json_object *out, *list;
	struct aws_error err;
	const char *key, *next = NULL;
	int pages = 0;
	size_t i;

	if (strcmp(sw_json_get_str(s->params, "cluster_origin") ?: "",
		"imported") == 0)
		return STEP_DONE;
	sw_lifecycle_bucket(s, 1, bucket, sizeof(bucket));
	if (sw_fmt(prefix, sizeof(prefix), "lifecycle/%s/", CLUSTER(s)) !=
	    SW_OK)
		return sw_step_fail(s, "cluster name too long");
	do {
		memset(&err, 0, sizeof(err));
		s->calls_made++;
		if (aws_s3_list_objects_v2(
			s->aws, bucket, prefix, next, &out, &err) != SW_OK) {
			if (strcmp(err.code, "NoSuchBucket") == 0)
				return STEP_DONE;
			return sw_err_transient(aws_error_sw(&err))
			    ? sw_step_transient(s, "s3: %s", err.code)
			    : sw_step_fail(
				  s, "ListObjectsV2 %s: %s", prefix, err.code);
		}
		list = sw_json_get(out, "Contents");
		for (i = 0; i < json_object_array_length(list); i++) {
			key = sw_json_get_str(
			    json_object_array_get_idx(list, i), "Key");
			if (key == NULL ||
			    strncmp(key, prefix, strlen(prefix)) != 0)
				continue;
			if (s->plan) {
				json_object_array_add(s->calls,
				    sw_jo("stage", sw_js(s->stage), "service",
					sw_js("s3"), "operation",
					sw_js("DeleteObject"), "input",
					sw_jo("Bucket", sw_js(bucket), "Key",
					    sw_js(key), NULL),
					NULL));
				continue;
			}
			memset(&err, 0, sizeof(err));
			s->calls_made++;
			if (aws_s3_delete_object(s->aws, bucket, key, &err) !=
				SW_OK &&
			    strcmp(err.code, "NoSuchKey") != 0) {
				json_object_put(out);
				return sw_err_transient(aws_error_sw(&err))
				    ? sw_step_transient(s, "s3: %s", err.code)
				    : sw_step_fail(s, "DeleteObject %s: %s",
					  key, err.code);
			}
		}
		next = NULL;
		if (strcmp(sw_json_get_str(out, "IsTruncated") ?: "", "true") ==
			0 &&
		    sw_json_get_str(out, "NextContinuationToken")) {
			if (sw_fmt(tok, sizeof(tok), "%s",
				sw_json_get_str(
				    out, "NextContinuationToken")) != SW_OK) {
				json_object_put(out);
				return sw_step_fail(s,
				    "S3 continuation token "
				    "too long");
			}
			next = tok;
		}
		json_object_put(out);
	} while (next != NULL && ++pages < 100);
	return STEP_DONE;
}

static enum sw_step_rc
stage_td_hyperpod(struct sw_step *s)
{
	json_object *out;
	enum sw_step_rc rc;
	const char *status, *orch, *eks;
	int gone;

	rc = sw_step_hp_describe(s, CLUSTER(s), &out, &gone);
	if (rc != STEP_DONE)
		return rc;
	if (!gone) {
		orch = sw_keep(
		    s, sw_json_path_str(out, "Orchestrator.Eks.ClusterArn"));
		status = sw_keep(s, sw_json_get_str(out, "ClusterStatus"));
		json_object_put(out);
		if ((rc = our_eks_arn(s, &eks)) != STEP_DONE)
			return rc;
		if (eks == NULL || orch == NULL || strcmp(orch, eks) != 0) {
			/* Not on our EKS cluster: someone else's. */
			sw_res_set(s, "kept", "HyperPod cluster not Slipway's");
			return delete_lifecycle(s);
		}
		if (status == NULL || strcmp(status, "Deleting") != 0) {
			json_object *o2;

			rc = sw_step_aws_ok(s, AWS_SVC_SAGEMAKER,
			    "DeleteCluster",
			    sw_jo("ClusterName", sw_js(CLUSTER(s)), NULL), &o2,
			    "ResourceNotFound");
			json_object_put(o2);
			if (rc != STEP_DONE)
				return rc;
			sw_res_set(s, "delete_requested", "yes");
		}
		if (!s->plan)
			return sw_step_wait(s, sw_poll_ms(s, 30000),
			    "HyperPod cluster %s is being deleted", CLUSTER(s));
	}
	return delete_lifecycle(s);
}

/* The OIDC provider of the cluster's issuer, when tagged with its id. */
static enum sw_step_rc
delete_oidc(struct sw_step *s, const char *issuer)
{
	json_object *out, *list, *o2;
	enum sw_step_rc rc = STEP_DONE;
	size_t i;
	int ours;

	TRY(sw_step_aws(s, AWS_SVC_IAM, "ListOpenIDConnectProviders",
	    sw_jo(NULL, NULL), &out, NULL));
	list = sw_out_array(out, "OpenIDConnectProviderList",
	    "ListOpenIDConnectProvidersResult.OpenIDConnectProviderList", NULL);
	for (i = 0;
	     list && i < json_object_array_length(list) && rc == STEP_DONE;
	     i++) {
		const char *arn =
		    sw_json_get_str(json_object_array_get_idx(list, i), "Arn");

		if (arn == NULL || strstr(arn, issuer + 8) == NULL)
			continue;
		rc = sw_step_aws_ok(s, AWS_SVC_IAM, "GetOpenIDConnectProvider",
		    sw_jo("OpenIDConnectProviderArn", sw_js(arn), NULL), &o2,
		    "NoSuchEntity");
		if (rc != STEP_DONE)
			break;
		ours = sw_tags_ours(s, sw_json_get(o2, "Tags")) ||
		    sw_tags_ours(s,
			sw_json_path(
			    o2, "GetOpenIDConnectProviderResult.Tags"));
		json_object_put(o2);
		if (!ours)
			continue;
		rc = sw_step_aws_ok(s, AWS_SVC_IAM,
		    "DeleteOpenIDConnectProvider",
		    sw_jo("OpenIDConnectProviderArn", sw_js(arn), NULL), &o2,
		    "NoSuchEntity");
		json_object_put(o2);
	}
	json_object_put(out);
	return rc;
}

static enum sw_step_rc
stage_td_eks(struct sw_step *s)
{
	json_object *out;
	struct aws_error err;
	enum sw_step_rc rc;
	const char *status, *issuer;

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, &err);
	if (rc == STEP_DONE &&
	    !sw_tags_ours(s, sw_json_path(out, "cluster.tags"))) {
		/* Same name, not tagged with our id: someone else's. */
		json_object_put(out);
		sw_res_set(s, "kept", "EKS cluster not Slipway's");
	} else if (rc == STEP_DONE) {
		status = sw_keep(s, sw_json_path_str(out, "cluster.status"));
		issuer = sw_json_path_str(out, "cluster.identity.oidc.issuer");
		if (issuer != NULL && sw_res_get(s, "oidc_issuer") == NULL)
			sw_res_set(s, "oidc_issuer", issuer);
		json_object_put(out);
		if (status == NULL || strcmp(status, "DELETING") != 0) {
			json_object *o2;

			rc = sw_step_aws_ok(s, AWS_SVC_EKS, "DeleteCluster",
			    sw_jo("name", sw_js(CLUSTER(s)), NULL), &o2,
			    "ResourceNotFoundException");
			json_object_put(o2);
			if (rc != STEP_DONE)
				return rc;
		}
		if (!s->plan)
			return sw_step_wait(s, sw_poll_ms(s, 30000),
			    "EKS cluster %s is being deleted", CLUSTER(s));
	} else if (strcmp(err.code, "ResourceNotFoundException") != 0)
		return rc;
	s->msg[0] = '\0';
	TRY(delete_cluster_roles(s));
	if ((issuer = sw_res_get(s, "oidc_issuer")) != NULL &&
	    strlen(issuer) > 8)
		TRY(delete_oidc(s, issuer));
	return STEP_DONE;
}

/* Every resource of a type tagged with this cluster's id; extra, when
 * not NULL, is one more filter (taken).  New array. */
static enum sw_step_rc
tagged(struct sw_step *s, const char *describe, const char *set,
    const char *idfield, json_object *extra, json_object **ids)
{
	json_object *filters, *out, *list;
	enum sw_step_rc rc;
	size_t i;

	*ids = json_object_new_array();
	filters = sw_tag_filter(s, NULL);
	if (extra != NULL)
		json_object_array_add(filters, extra);
	rc = sw_step_aws(s, AWS_SVC_EC2, describe,
	    sw_jo("Filters", filters, NULL), &out, NULL);
	if (rc != STEP_DONE) {
		/* the caller returns at once (TRY): nothing to free there */
		json_object_put(*ids);
		*ids = NULL;
		return rc;
	}
	list = sw_json_get(out, set);
	for (i = 0; list && json_object_is_type(list, json_type_array) &&
	     i < json_object_array_length(list);
	     i++) {
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
		const char *id = sw_json_get_str(
		    json_object_array_get_idx(items, i), idfield);

		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, op,
		    sw_jo(param, sw_js(id), NULL), &out, ok));
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
	    sw_jo("Name", sw_js("state"), "Values",
		sw_ja(sw_js("pending"), sw_js("available"), sw_js("deleting")),
		NULL),
	    &items);
	if (rc == STEP_DONE && json_object_array_length(items) > 0) {
		for (i = 0; i < json_object_array_length(items); i++) {
			json_object *n = json_object_array_get_idx(items, i);

			if (strcmp(sw_json_get_str(n, "state")
				    ? sw_json_get_str(n, "state")
				    : "",
				"deleting") == 0)
				continue;
			rc = sw_step_aws_ok(s, AWS_SVC_EC2, "DeleteNatGateway",
			    sw_jo("NatGatewayId",
				sw_js(sw_json_get_str(n, "natGatewayId")),
				NULL),
			    &out, "NatGatewayNotFound");
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
	TRY(tagged(s, "DescribeAddresses", "addressesSet", "allocationId", NULL,
	    &items));
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
		     j < json_object_array_length(att);
		     j++) {
			rc = sw_step_aws_ok(s, AWS_SVC_EC2,
			    "DetachInternetGateway",
			    sw_jo("InternetGatewayId",
				sw_js(sw_json_get_str(g, "internetGatewayId")),
				"VpcId",
				sw_js(sw_json_get_str(
				    json_object_array_get_idx(att, j),
				    "vpcId")),
				NULL),
			    &out, "Gateway.NotAttached");
			json_object_put(out);
			if (rc != STEP_DONE) {
				json_object_put(items);
				return rc;
			}
		}
	}
	rc = delete_each(s, items, "internetGatewayId", "DeleteInternetGateway",
	    "InternetGatewayId", "InvalidInternetGatewayID.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeRouteTables", "routeTableSet", "routeTableId",
	    NULL, &items));
	for (i = 0; i < json_object_array_length(items); i++) {
		assocs = sw_json_get(
		    json_object_array_get_idx(items, i), "associationSet");
		for (j = 0;
		     assocs && json_object_is_type(assocs, json_type_array) &&
		     j < json_object_array_length(assocs);
		     j++) {
			const char *a = sw_json_get_str(
			    json_object_array_get_idx(assocs, j),
			    "routeTableAssociationId");

			if (a == NULL)
				continue;
			rc = sw_step_aws_ok(s, AWS_SVC_EC2,
			    "DisassociateRouteTable",
			    sw_jo("AssociationId", sw_js(a), NULL), &out,
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
	TRY(tagged(
	    s, "DescribeSubnets", "subnetSet", "subnetId", NULL, &items));
	rc = delete_each(s, items, "subnetId", "DeleteSubnet", "SubnetId",
	    "InvalidSubnetID.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeSecurityGroups", "securityGroupInfo", "groupId",
	    NULL, &items));
	rc = delete_each(s, items, "groupId", "DeleteSecurityGroup", "GroupId",
	    "InvalidGroup.NotFound");
	json_object_put(items);
	TRY(rc);
	TRY(tagged(s, "DescribeVpcs", "vpcSet", "vpcId", NULL, &items));
	for (i = 0; i < json_object_array_length(items); i++) {
		vpc = sw_json_get_str(
		    json_object_array_get_idx(items, i), "vpcId");
		rc = sw_step_aws_ok(s, AWS_SVC_EC2, "DeleteVpc",
		    sw_jo("VpcId", sw_js(vpc), NULL), &out,
		    "InvalidVpcID.NotFound");
		json_object_put(out);
		if (rc != STEP_DONE)
			break;
	}
	json_object_put(items);
	return rc;
}

/* The cluster's record: Slipway no longer owns or knows it. */
static enum sw_step_rc
stage_td_forget(struct sw_step *s)
{
	const char *id = sw_cluster_id(s);

	if (id == NULL)
		return STEP_DONE;
	if (s->plan) {
		json_object_array_add(s->calls,
		    sw_jo("stage", sw_js(s->stage), "service", sw_js("slipway"),
			"operation", sw_js("ForgetCluster"), "input",
			sw_jo("name", sw_js(CLUSTER(s)), "cluster_id",
			    sw_js(id), NULL),
			NULL));
		return STEP_DONE;
	}
	if (sw_step_forget(s, CLUSTER(s), id) != SW_OK)
		return sw_step_retry(
		    s, 1000, "cannot forget the record of %s", CLUSTER(s));
	sw_res_set(s, "forgotten", id);
	return STEP_DONE;
}

/* clang-format off */
static const struct sw_stage_def delete_stages[] = {
	{ "storage", stage_td_storage },
	{ "hyperpod", stage_td_hyperpod },
	{ "eks", stage_td_eks },
	{ "network", stage_td_network },
	{ "forget", stage_td_forget },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_cluster_delete = { "cluster.delete",
	delete_stages };

/* clang-format off */
static const struct sw_stage_def release_stages[] = {
	{ "forget", stage_td_forget },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_cluster_release = { "cluster.release",
	release_stages };
