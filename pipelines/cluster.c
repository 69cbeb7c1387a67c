/*
 * cluster.c: the cluster.create pipeline.
 *
 *   network       VPC, 2 public + 2 private subnets, internet gateway,
 *                 NAT gateway, route tables, security group
 *   eks           cluster role, EKS control plane (CREATING -> ACTIVE)
 *   access        OIDC provider, access entry for Slipway's identity
 *   select        endpoint, CA and reachability of the Kubernetes API
 *   dependencies  EKS add-ons; HyperPod's health-monitoring agent
 *   hyperpod      compute subnets, execution role, lifecycle script,
 *                 HyperPod cluster (Creating -> InService)
 *   storage       S3 Mountpoint PV/PVC "s3-claim"
 *   verify        every node Running in HyperPod and Ready in Kubernetes,
 *                 then the NVIDIA and EFA device plugins by their Helm
 *                 Jobs (a Job's pod needs a node), followed to Complete
 *
 * Every stage is a sequence of ensure-steps (see pipeline.h).
 */
#include <stdio.h>
#include <string.h>

#include "lib/aws_api.h"
#include "lib/json.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"


static const char *
planned(struct sw_step *s, const char *v, const char *what)
{
	return v != NULL ? v : s->plan ? what : NULL;
}

/* ---- network --------------------------------------------------------- */

static enum sw_step_rc
ensure_subnet(struct sw_step *s, const char *key, const char *label,
    const char *cidr, const char *az)
{
	char name[160];
	json_object *out;
	const char *id;

	sw_name(name, sizeof(name), CLUSTER(s), label);
	TRY(sw_ec2_find(s, "DescribeSubnets", "subnetSet", "subnetId", name,
	    key, NULL));
	if (sw_res_get(s, key) != NULL)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateSubnet", sw_jo(
	    "VpcId", sw_js(sw_res_get(s, "vpc_id")),
	    "CidrBlock", sw_js(cidr),
	    "AvailabilityZone", sw_js(az),
	    "TagSpecifications", sw_tag_spec("subnet", CLUSTER(s), name),
	    NULL), &out, NULL));
	id = planned(s, sw_json_path_str(out, "subnet.subnetId"),
	    "subnet-planned");
	if (id != NULL)
		sw_res_set(s, key, id);
	json_object_put(out);
	return id != NULL ? STEP_DONE : sw_step_fail(s, "CreateSubnet %s "
	    "gave no id", name);
}

static enum sw_step_rc
ensure_route_table(struct sw_step *s, const char *key, const char *label,
    const char *target_key, const char *target_id, const char *const *subs)
{
	char name[160], flag[96];
	json_object *out;
	const char *id;
	int i;

	sw_name(name, sizeof(name), CLUSTER(s), label);
	TRY(sw_ec2_find(s, "DescribeRouteTables", "routeTableSet",
	    "routeTableId", name, key, NULL));
	if (sw_res_get(s, key) == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateRouteTable", sw_jo(
		    "VpcId", sw_js(sw_res_get(s, "vpc_id")),
		    "TagSpecifications", sw_tag_spec("route-table",
			CLUSTER(s), name), NULL), &out, NULL));
		id = planned(s, sw_json_path_str(out,
		    "routeTable.routeTableId"), "rtb-planned");
		if (id != NULL)
			sw_res_set(s, key, id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "CreateRouteTable gave no id");
	}
	snprintf(flag, sizeof(flag), "%s.default_route", key);
	if (sw_res_get(s, flag) == NULL) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "CreateRoute", sw_jo(
		    "RouteTableId", sw_js(sw_res_get(s, key)),
		    "DestinationCidrBlock", sw_js("0.0.0.0/0"),
		    target_key, sw_js(target_id), NULL), &out,
		    "RouteAlreadyExists"));
		json_object_put(out);
		sw_res_set(s, flag, "0.0.0.0/0");
	}
	for (i = 0; subs[i] != NULL; i++) {
		snprintf(flag, sizeof(flag), "%s.assoc.%s", key, subs[i]);
		if (sw_res_get(s, flag) != NULL)
			continue;
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "AssociateRouteTable", sw_jo(
		    "RouteTableId", sw_js(sw_res_get(s, key)),
		    "SubnetId", sw_js(sw_res_get(s, subs[i])), NULL), &out,
		    "Resource.AlreadyAssociated"));
		id = sw_json_get_str(out, "associationId");
		sw_res_set(s, flag, id ? id : "associated");
		json_object_put(out);
	}
	return STEP_DONE;
}

static enum sw_step_rc
stage_network(struct sw_step *s)
{
	static const char *const pub[] = { "public_subnet_0",
	    "public_subnet_1", NULL };
	static const char *const priv[] = { "private_subnet_0",
	    "private_subnet_1", NULL };
	const char *vpc_cidr = sw_json_get_str(s->params, "vpc_cidr");
	json_object *azs = sw_json_get(s->params, "availability_zones");
	char name[160], cidr[32], label[32];
	json_object *out;
	const char *id, *state;
	int i;

	/* VPC */
	sw_name(name, sizeof(name), CLUSTER(s), "vpc");
	TRY(sw_ec2_find(s, "DescribeVpcs", "vpcSet", "vpcId", name, "vpc_id",
	    NULL));
	if (sw_res_get(s, "vpc_id") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateVpc", sw_jo(
		    "CidrBlock", sw_js(vpc_cidr),
		    "TagSpecifications", sw_tag_spec("vpc", CLUSTER(s), name),
		    NULL), &out, NULL));
		id = planned(s, sw_json_path_str(out, "vpc.vpcId"),
		    "vpc-planned");
		if (id != NULL)
			sw_res_set(s, "vpc_id", id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "CreateVpc gave no id");
	}
	if (sw_res_get(s, "vpc_dns") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "ModifyVpcAttribute", sw_jo(
		    "VpcId", sw_js(sw_res_get(s, "vpc_id")),
		    "EnableDnsHostnames", sw_jo("Value", sw_jb(1), NULL),
		    NULL), &out, NULL));
		json_object_put(out);
		sw_res_set(s, "vpc_dns", "hostnames");
	}
	sw_res_set(s, "vpc_cidr", vpc_cidr);

	/* Subnets: two public, two private, one of each per AZ. */
	for (i = 0; i < 2; i++) {
		const char *az = json_object_get_string(
		    json_object_array_get_idx(azs, (size_t)i));

		snprintf(label, sizeof(label), "public-%d", i);
		if (sw_cidr_public(vpc_cidr, i, cidr, sizeof(cidr)) != 0)
			return sw_step_fail(s, "bad VPC CIDR %s", vpc_cidr);
		TRY(ensure_subnet(s, pub[i], label, cidr, az));
		snprintf(label, sizeof(label), "private-%d", i);
		sw_cidr_private(vpc_cidr, i, cidr, sizeof(cidr));
		TRY(ensure_subnet(s, priv[i], label, cidr, az));
	}

	/* Internet gateway, attached. */
	sw_name(name, sizeof(name), CLUSTER(s), "igw");
	TRY(sw_ec2_find(s, "DescribeInternetGateways", "internetGatewaySet",
	    "internetGatewayId", name, "igw_id", NULL));
	if (sw_res_get(s, "igw_id") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateInternetGateway", sw_jo(
		    "TagSpecifications", sw_tag_spec("internet-gateway",
			CLUSTER(s), name), NULL), &out, NULL));
		id = planned(s, sw_json_path_str(out,
		    "internetGateway.internetGatewayId"), "igw-planned");
		if (id != NULL)
			sw_res_set(s, "igw_id", id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "CreateInternetGateway gave no "
			    "id");
	}
	if (sw_res_get(s, "igw_attached") == NULL) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "AttachInternetGateway",
		    sw_jo("InternetGatewayId", sw_js(sw_res_get(s, "igw_id")),
		    "VpcId", sw_js(sw_res_get(s, "vpc_id")), NULL), &out,
		    "Resource.AlreadyAssociated"));
		json_object_put(out);
		sw_res_set(s, "igw_attached", sw_res_get(s, "vpc_id"));
	}

	/* Elastic IP and NAT gateway in the first public subnet. */
	sw_name(name, sizeof(name), CLUSTER(s), "nat-eip");
	TRY(sw_ec2_find(s, "DescribeAddresses", "addressesSet",
	    "allocationId", name, "eip_allocation_id", NULL));
	if (sw_res_get(s, "eip_allocation_id") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "AllocateAddress", sw_jo(
		    "Domain", sw_js("vpc"),
		    "TagSpecifications", sw_tag_spec("elastic-ip",
			CLUSTER(s), name), NULL), &out, NULL));
		id = planned(s, sw_json_get_str(out, "allocationId"),
		    "eipalloc-planned");
		if (id != NULL)
			sw_res_set(s, "eip_allocation_id", id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "AllocateAddress gave no id");
	}
	sw_name(name, sizeof(name), CLUSTER(s), "nat");
	TRY(sw_ec2_find(s, "DescribeNatGateways", "natGatewaySet",
	    "natGatewayId", name, "nat_id", sw_ja(sw_jo("Name",
	    sw_js("state"), "Values", sw_ja(sw_js("pending"),
	    sw_js("available")), NULL))));
	if (sw_res_get(s, "nat_id") == NULL) {
		char token[64];

		snprintf(token, sizeof(token), "%s-nat", s->op_id);
		TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateNatGateway", sw_jo(
		    "SubnetId", sw_js(sw_res_get(s, "public_subnet_0")),
		    "AllocationId", sw_js(sw_res_get(s, "eip_allocation_id")),
		    "ClientToken", sw_js(token),
		    "TagSpecifications", sw_tag_spec("natgateway",
			CLUSTER(s), name), NULL), &out, NULL));
		id = planned(s, sw_json_path_str(out,
		    "natGateway.natGatewayId"), "nat-planned");
		if (id != NULL)
			sw_res_set(s, "nat_id", id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "CreateNatGateway gave no id");
	}

	/* Security group: all traffic between members (EFA needs it). */
	sw_name(name, sizeof(name), CLUSTER(s), "sg");
	TRY(sw_ec2_find(s, "DescribeSecurityGroups", "securityGroupInfo",
	    "groupId", name, "security_group_id", NULL));
	if (sw_res_get(s, "security_group_id") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateSecurityGroup", sw_jo(
		    "GroupName", sw_js(name),
		    "Description", sw_js("Slipway cluster nodes and control "
			"plane"),
		    "VpcId", sw_js(sw_res_get(s, "vpc_id")),
		    "TagSpecifications", sw_tag_spec("security-group",
			CLUSTER(s), name), NULL), &out, NULL));
		id = planned(s, sw_json_get_str(out, "groupId"), "sg-planned");
		if (id != NULL)
			sw_res_set(s, "security_group_id", id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "CreateSecurityGroup gave no id");
	}
	if (sw_res_get(s, "sg_self_rules") == NULL) {
		const char *sg = sw_res_get(s, "security_group_id");

		TRY(sw_step_aws_ok(s, AWS_SVC_EC2,
		    "AuthorizeSecurityGroupIngress", sw_jo(
		    "GroupId", sw_js(sg),
		    "IpPermissions", sw_ja(sw_jo("IpProtocol", sw_js("-1"),
			"UserIdGroupPairs", sw_ja(sw_jo("GroupId", sw_js(sg),
			NULL)), NULL)), NULL), &out,
		    "InvalidPermission.Duplicate"));
		json_object_put(out);
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2,
		    "AuthorizeSecurityGroupEgress", sw_jo(
		    "GroupId", sw_js(sg),
		    "IpPermissions", sw_ja(sw_jo("IpProtocol", sw_js("-1"),
			"UserIdGroupPairs", sw_ja(sw_jo("GroupId", sw_js(sg),
			NULL)), NULL)), NULL), &out,
		    "InvalidPermission.Duplicate"));
		json_object_put(out);
		sw_res_set(s, "sg_self_rules", "ingress+egress");
	}

	/* Wait for the NAT gateway before routing through it. */
	if (!s->plan && sw_res_get(s, "nat_ready") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "DescribeNatGateways", sw_jo(
		    "NatGatewayIds", sw_ja(sw_js(sw_res_get(s, "nat_id"))), NULL), &out, NULL));
		state = sw_keep(s, sw_json_path_str(out, "natGatewaySet[0].state"));
		if (state == NULL || strcmp(state, "available") != 0) {
			int failed = state != NULL &&
			    strcmp(state, "failed") == 0;

			json_object_put(out);
			if (failed)
				return sw_step_fail(s, "NAT gateway %s failed",
				    sw_res_get(s, "nat_id"));
			return sw_step_wait(s, sw_poll_ms(s, 15000),
			    "waiting for NAT gateway %s (%s)",
			    sw_res_get(s, "nat_id"), state ? state : "?");
		}
		json_object_put(out);
		sw_res_set(s, "nat_ready", "available");
	}
	TRY(ensure_route_table(s, "public_route_table", "public-rt",
	    "GatewayId", sw_res_get(s, "igw_id"), pub));
	TRY(ensure_route_table(s, "private_route_table", "private-rt",
	    "NatGatewayId", sw_res_get(s, "nat_id"), priv));
	return STEP_DONE;
}

/* ---- eks --------------------------------------------------------------- */

static const char *const eks_policies[] = {
	"arn:aws:iam::aws:policy/AmazonEKSClusterPolicy", NULL
};

static enum sw_step_rc
stage_eks(struct sw_step *s)
{
	const char *net = "network", *status;
	char role[128];
	struct aws_error err;
	json_object *out;
	enum sw_step_rc rc;

	sw_name(role, sizeof(role), CLUSTER(s), "eks-role");
	TRY(sw_ensure_role(s, "cluster_role_arn", role, "eks.amazonaws.com",
	    eks_policies));
	if (sw_res_get(s, "create_requested") == NULL) {
		memset(&err, 0, sizeof(err));
		rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
		    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, &err);
		if (rc == STEP_DONE) {
			json_object_put(out);
			sw_res_set(s, "create_requested", "existing");
		} else if (strcmp(err.code, "ResourceNotFoundException") != 0)
			return rc;
	}
	if (sw_res_get(s, "create_requested") == NULL) {
		s->msg[0] = '\0';
		TRY(sw_step_aws(s, AWS_SVC_EKS, "CreateCluster", sw_jo(
		    "name", sw_js(CLUSTER(s)),
		    "version", sw_js(sw_json_get_str(s->params,
			"kubernetes_version")),
		    "roleArn", sw_js(sw_res_get(s, "cluster_role_arn")),
		    "resourcesVpcConfig", sw_jo(
			"subnetIds", sw_ja(
			    sw_js(sw_res_from(s, net, "private_subnet_0")),
			    sw_js(sw_res_from(s, net, "private_subnet_1")),
			    sw_js(sw_res_from(s, net, "public_subnet_0")),
			    sw_js(sw_res_from(s, net, "public_subnet_1"))),
			"securityGroupIds", sw_ja(sw_js(sw_res_from(s, net,
			    "security_group_id"))),
			"endpointPublicAccess", sw_jb(1),
			"endpointPrivateAccess", sw_jb(1), NULL),
		    "accessConfig", sw_jo(
			"authenticationMode", sw_js("API_AND_CONFIG_MAP"),
			"bootstrapClusterCreatorAdminPermissions", sw_jb(1),
			NULL),
		    "clientRequestToken", sw_js(s->op_id),
		    "tags", sw_jo("slipway:cluster", sw_js(CLUSTER(s)),
			"slipway:managed", sw_js("true"), NULL),
		    NULL), &out, NULL));
		json_object_put(out);
		sw_res_set(s, "create_requested", "created");
	}
	if (s->plan)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, NULL));
	status = sw_keep(s, sw_json_path_str(out, "cluster.status"));
	if (status != NULL && strcmp(status, "ACTIVE") == 0) {
		sw_res_set(s, "cluster_arn", sw_json_path_str(out,
		    "cluster.arn"));
		sw_res_set(s, "endpoint", sw_json_path_str(out,
		    "cluster.endpoint"));
		sw_res_set(s, "oidc_issuer", sw_json_path_str(out,
		    "cluster.identity.oidc.issuer"));
		json_object_put(out);
		return STEP_DONE;
	}
	json_object_put(out);
	if (status != NULL && strcmp(status, "FAILED") == 0)
		return sw_step_fail(s, "EKS cluster %s FAILED", CLUSTER(s));
	return sw_step_wait(s, sw_poll_ms(s, 30000), "EKS cluster %s is %s",
	    CLUSTER(s), status ? status : "unknown");
}

/* ---- access ------------------------------------------------------------ */

static enum sw_step_rc
stage_access(struct sw_step *s)
{
	const char *issuer = sw_res_from(s, "eks", "oidc_issuer"), *arn;
	json_object *out, *list;
	char me[256], account[32];
	struct aws_error err;
	size_t i;

	issuer = planned(s, issuer, "https://oidc.eks.planned/id/planned");
	if (issuer == NULL)
		return sw_step_fail(s, "the EKS cluster has no OIDC issuer");
	if (sw_res_get(s, "oidc_provider_arn") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_IAM, "ListOpenIDConnectProviders",
		    sw_jo(NULL, NULL), &out, NULL));
		list = sw_json_path(out, "OpenIDConnectProviderList");
		if (list == NULL)
			list = sw_json_path(out, "ListOpenIDConnectProvidersResult"
			    ".OpenIDConnectProviderList");
		for (i = 0; list && json_object_is_type(list,
		    json_type_array) && i < json_object_array_length(list);
		    i++) {
			arn = sw_json_get_str(json_object_array_get_idx(list,
			    i), "Arn");
			if (arn != NULL && strstr(arn, issuer + 8) != NULL)
				sw_res_set(s, "oidc_provider_arn", arn);
		}
		json_object_put(out);
	}
	if (sw_res_get(s, "oidc_provider_arn") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_IAM, "CreateOpenIDConnectProvider",
		    sw_jo("Url", sw_js(issuer),
		    "ClientIDList", sw_ja(sw_js("sts.amazonaws.com")),
		    "ThumbprintList", sw_ja(sw_js(
			"9e99a48a9960b14926bb7f3b02e22da2b0ab7280")),
		    NULL), &out, NULL));
		arn = planned(s, sw_out_str(out, "OpenIDConnectProviderArn",
		    "CreateOpenIDConnectProviderResult."
		    "OpenIDConnectProviderArn", NULL), "oidc-planned");
		if (arn != NULL)
			sw_res_set(s, "oidc_provider_arn", arn);
		json_object_put(out);
		if (arn == NULL)
			return sw_step_fail(s, "CreateOpenIDConnectProvider "
			    "gave no ARN");
	}
	/* Slipway's own identity must be able to reach the cluster. */
	if (s->plan || sw_res_get(s, "access_entry") != NULL)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	if (aws_sts_get_caller_identity(s->aws, account, sizeof(account), me,
	    sizeof(me), &err) != SW_OK)
		return sw_step_wait(s, sw_poll_ms(s, 10000), "sts: %s",
		    err.code);
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListAccessEntries", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), NULL), &out, NULL));
	list = sw_json_get(out, "accessEntries");
	for (i = 0; list && i < json_object_array_length(list); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(
		    list, i)), me) == 0)
			sw_res_set(s, "access_entry", me);
	json_object_put(out);
	if (sw_res_get(s, "access_entry") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAccessEntry", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), "principalArn", sw_js(me),
	    NULL), &out, "ResourceInUseException"));
	json_object_put(out);
	TRY(sw_step_aws(s, AWS_SVC_EKS, "AssociateAccessPolicy", sw_jo(
	    "clusterName", sw_js(CLUSTER(s)), "principalArn", sw_js(me),
	    "policyArn", sw_js("arn:aws:eks::aws:cluster-access-policy/"
		"AmazonEKSClusterAdminPolicy"),
	    "accessScope", sw_jo("type", sw_js("cluster"), NULL), NULL),
	    &out, NULL));
	json_object_put(out);
	sw_res_set(s, "access_entry", me);
	return STEP_DONE;
}

/* ---- select ------------------------------------------------------------ */

static enum sw_step_rc
stage_select(struct sw_step *s)
{
	struct sw_kube kb;
	struct k8s_error err;
	json_object *ver = NULL;
	sw_err e;

	if (s->plan)
		return STEP_DONE;
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	e = k8s_get(&kb.k, "/version", &ver, &err);
	sw_kube_close(&kb);
	if (e != SW_OK) {
		json_object_put(ver);
		if (e == SW_EFORBIDDEN)
			return sw_step_fail(s, "the Kubernetes API refused "
			    "Slipway's identity: %s", err.message);
		return sw_step_wait(s, sw_poll_ms(s, 15000), "Kubernetes API "
		    "not reachable yet: %s", err.message);
	}
	sw_res_set(s, "kubernetes_version", sw_json_get_str(ver,
	    "gitVersion"));
	sw_res_set(s, "reachable", "yes");
	json_object_put(ver);
	return STEP_DONE;
}

/* ---- dependencies ------------------------------------------------------ */

static const char *const addons[] = {
	"vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent",
	"aws-mountpoint-s3-csi-driver", NULL
};

/*
 * Device plugins and the health-monitoring agent, as HyperPod's own
 * dependency chart (sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart)
 * deploys them.  The NVIDIA and EFA plugins are their upstream charts,
 * run by the Helm installer Job (pipelines/helm.c) with the values the
 * HyperPod chart gives them: the instance types they belong on and the
 * tolerations of HyperPod's taints.  The health-monitoring agent ships
 * only inside the HyperPod chart, so its templates are applied as they
 * are: ServiceAccount, ClusterRole and binding, and two DaemonSets
 * (NVIDIA and Neuron instance types) of the regional ECR image.
 */
#define NVIDIA_TYPES	"ml.g5.xlarge,ml.g5.2xlarge,ml.g5.4xlarge," \
			"ml.g5.8xlarge,ml.g5.12xlarge,ml.g5.16xlarge," \
			"ml.g5.24xlarge,ml.g5.48xlarge,ml.g6.xlarge," \
			"ml.g6.2xlarge,ml.g6.4xlarge,ml.g6.8xlarge," \
			"ml.g6.16xlarge,ml.g6.12xlarge,ml.g6.24xlarge," \
			"ml.g6.48xlarge,ml.g6e.xlarge,ml.g6e.2xlarge," \
			"ml.g6e.4xlarge,ml.g6e.8xlarge,ml.g6e.12xlarge," \
			"ml.g6e.16xlarge,ml.g6e.24xlarge,ml.g6e.48xlarge," \
			"ml.gr6.4xlarge,ml.gr6.8xlarge,ml.p4d.24xlarge," \
			"ml.p4de.24xlarge,ml.p5.4xlarge,ml.p5.48xlarge," \
			"ml.p5e.48xlarge,ml.p5en.48xlarge," \
			"ml.p6-b200.48xlarge,ml.p6e-gb200.36xlarge"
#define EFA_TYPES	"ml.c5n.9xlarge,ml.c5n.18xlarge,ml.g5.8xlarge," \
			"ml.g5.12xlarge,ml.g5.16xlarge,ml.g5.24xlarge," \
			"ml.g5.48xlarge,ml.g6.8xlarge,ml.g6.12xlarge," \
			"ml.g6.16xlarge,ml.g6.24xlarge,ml.g6.48xlarge," \
			"ml.g6e.8xlarge,ml.g6e.12xlarge,ml.g6e.16xlarge," \
			"ml.g6e.24xlarge,ml.g6e.48xlarge,ml.gr6.8xlarge," \
			"ml.i3en.large,ml.i3en.xlarge,ml.i3en.2xlarge," \
			"ml.i3en.3xlarge,ml.i3en.6xlarge,ml.i3en.12xlarge," \
			"ml.i3en.24xlarge,ml.m7i.large,ml.m7i.xlarge," \
			"ml.m7i.2xlarge,ml.m7i.4xlarge,ml.m7i.8xlarge," \
			"ml.m7i.12xlarge,ml.m7i.16xlarge,ml.m7i.24xlarge," \
			"ml.m7i.48xlarge,ml.p4d.24xlarge,ml.p4de.24xlarge," \
			"ml.p5.4xlarge,ml.p5.48xlarge,ml.p5e.48xlarge," \
			"ml.p5en.48xlarge,ml.p6-b200.48xlarge," \
			"ml.p6e-gb200.36xlarge,ml.r7i.large,ml.r7i.xlarge," \
			"ml.r7i.2xlarge,ml.r7i.4xlarge,ml.r7i.8xlarge," \
			"ml.r7i.12xlarge,ml.r7i.16xlarge,ml.r7i.24xlarge," \
			"ml.r7i.48xlarge,ml.trn1.32xlarge,ml.trn1n.32xlarge," \
			"ml.trn2.48xlarge"
#define NEURON_TYPES	"ml.inf2.xlarge", "ml.inf2.8xlarge", \
			"ml.inf2.24xlarge", "ml.inf2.48xlarge", \
			"ml.trn1.32xlarge", "ml.trn1n.32xlarge", \
			"ml.trn2.3xlarge", "ml.trn2.48xlarge"
#define AFFINITY_TYPES	"affinity.nodeAffinity." \
			"requiredDuringSchedulingIgnoredDuringExecution." \
			"nodeSelectorTerms[0].matchExpressions[0]."
#define HEALTH_TOL	"tolerations[%d].key=sagemaker.amazonaws.com/" \
			"node-health-status"

static const char *const nvidia_sets[] = {
	AFFINITY_TYPES "key=node.kubernetes.io/instance-type",
	AFFINITY_TYPES "operator=In",
	AFFINITY_TYPES "values={" NVIDIA_TYPES "}",
	"tolerations[0].key=nvidia.com/gpu",
	"tolerations[0].operator=Exists",
	"tolerations[0].effect=NoSchedule",
	"tolerations[1].key=sagemaker.amazonaws.com/node-health-status",
	"tolerations[1].operator=Equal",
	"tolerations[1].value=Unschedulable",
	"tolerations[1].effect=NoSchedule",
	NULL
};

static const char *const efa_sets[] = {
	"supportedInstanceLabels.values={" EFA_TYPES "}",
	"tolerations[0].key=CriticalAddonsOnly",
	"tolerations[0].operator=Exists",
	"tolerations[1].key=aws.amazon.com/efa",
	"tolerations[1].operator=Exists",
	"tolerations[1].effect=NoSchedule",
	"tolerations[2].key=sagemaker.amazonaws.com/node-health-status",
	"tolerations[2].operator=Equal",
	"tolerations[2].value=Unschedulable",
	"tolerations[2].effect=NoSchedule",
	NULL
};

/* The ECR account of the agent image per region, as the chart maps it. */
static const struct {
	const char	*region;
	const char	*account;
} hma_accounts[] = {
	{ "us-east-1", "767398015722" },
	{ "us-west-2", "905418368575" },
	{ "us-east-2", "851725546812" },
	{ "us-west-1", "011528288828" },
	{ "eu-central-1", "211125453373" },
	{ "eu-north-1", "654654141839" },
	{ "eu-west-1", "533267293120" },
	{ "eu-west-2", "011528288831" },
	{ "ap-northeast-1", "533267052152" },
	{ "ap-south-1", "011528288864" },
	{ "ap-southeast-1", "905418428165" },
	{ "ap-southeast-2", "851725636348" },
	{ "sa-east-1", "025066253954" },
	{ NULL, NULL }
};

#define HMA_NAME	"health-monitoring-agent"
#define HMA_NS		"aws-hyperpod"
#define HMA_TAG		"1.0.1892.0_1.0.424.0"

/* The agent image of region into out; 0, or -1 if HyperPod has none. */
static int
hma_image(const char *region, char *out, size_t outsz)
{
	size_t i;
	int n;

	for (i = 0; hma_accounts[i].region != NULL; i++)
		if (region != NULL && strcmp(region,
		    hma_accounts[i].region) == 0)
			break;
	if (hma_accounts[i].region == NULL)
		return -1;
	n = snprintf(out, outsz, "%s.dkr.ecr.%s.amazonaws.com/"
	    "hyperpod-health-monitoring-agent:%s", hma_accounts[i].account,
	    region, HMA_TAG);
	return n > 0 && (size_t)n < outsz ? 0 : -1;
}

/* A hostPath volume.  New. */
static json_object *
host_volume(const char *name, const char *path)
{
	return sw_jo("name", sw_js(name), "hostPath", sw_jo("path",
	    sw_js(path), NULL), NULL);
}

/* One DaemonSet of the agent over instance types (a new array).  New. */
static json_object *
hma_daemonset(const char *name, const char *image, json_object *types,
    int neuron)
{
	json_object *env, *labels = sw_jo("app", sw_js(name), NULL);

	env = sw_ja(sw_jo("name", sw_js("NODE_NAME"), "valueFrom", sw_jo(
	    "fieldRef", sw_jo("fieldPath", sw_js("spec.nodeName"), NULL),
	    NULL), NULL), sw_jo("name", sw_js("NODE_IP"), "valueFrom",
	    sw_jo("fieldRef", sw_jo("fieldPath", sw_js("status.hostIP"),
	    NULL), NULL), NULL));
	if (neuron) {
		json_object_array_add(env, sw_jo("name",
		    sw_js("NVIDIA_VISIBLE_DEVICES"), "value", sw_js("void"),
		    NULL));
		json_object_array_add(env, sw_jo("name",
		    sw_js("NVIDIA_DRIVER_CAPABILITIES"), "value", sw_js(""),
		    NULL));
	}
	return sw_jo("apiVersion", sw_js("apps/v1"), "kind",
	    sw_js("DaemonSet"), "metadata", sw_jo("name", sw_js(name),
	    "namespace", sw_js(HMA_NS), "labels", json_object_get(labels),
	    NULL), "spec", sw_jo("selector", sw_jo("matchLabels",
	    json_object_get(labels), NULL), "template", sw_jo(
	    "metadata", sw_jo("labels", labels, NULL),
	    "spec", sw_jo(
		"affinity", sw_jo("nodeAffinity", sw_jo(
		    "requiredDuringSchedulingIgnoredDuringExecution", sw_jo(
		    "nodeSelectorTerms", sw_ja(sw_jo("matchExpressions",
		    sw_ja(sw_jo("key", sw_js("node.kubernetes.io/instance-type"),
		    "operator", sw_js("In"), "values", types, NULL)),
		    NULL)), NULL), NULL), NULL),
		"containers", sw_ja(sw_jo("name", sw_js(name),
		    "image", sw_js(image),
		    "args", neuron ? sw_ja(sw_js("--enable-k8s-exporter=false"),
		    sw_js("--config.system-log-monitor=/config/"
		    "system-message-monitor.json")) : NULL,
		    "resources", sw_jo("limits", sw_jo("cpu", sw_js("500m"),
		    "memory", sw_js("512Mi"), NULL), "requests", sw_jo("cpu",
		    sw_js("500m"), "memory", sw_js("512Mi"), NULL), NULL),
		    "imagePullPolicy", sw_js("IfNotPresent"),
		    "securityContext", sw_jo("runAsUser", sw_ji(1000),
		    "runAsGroup", sw_ji(2000), NULL),
		    "env", env,
		    "volumeMounts", sw_ja(
		    sw_jo("name", sw_js("log"), "mountPath", sw_js("/var/log"),
		    NULL),
		    sw_jo("name", sw_js("kmsg"), "mountPath", sw_js("/dev/kmsg"),
		    "readOnly", sw_jb(1), NULL),
		    sw_jo("name", sw_js("localtime"), "mountPath",
		    sw_js("/etc/localtime"), "readOnly", sw_jb(1), NULL)),
		    NULL)),
		"serviceAccountName", sw_js(HMA_NAME),
		"volumes", sw_ja(host_volume("log", "/var/log/"),
		    host_volume("kmsg", "/dev/kmsg"),
		    host_volume("localtime", "/etc/localtime")),
		"tolerations", sw_ja(sw_jo("effect", sw_js("NoSchedule"),
		    "operator", sw_js("Exists"), NULL), sw_jo("effect",
		    sw_js("NoExecute"), "operator", sw_js("Exists"), NULL)), NULL), NULL), NULL), NULL);
}

/* Instance types of a comma list as a new array. */
static json_object *
type_array(const char *list)
{
	json_object *a = json_object_new_array();
	const char *p = list, *c;

	while (*p != '\0') {
		c = strchr(p, ',');
		if (c == NULL)
			c = p + strlen(p);
		json_object_array_add(a, json_object_new_string_len(p,
		    (int)(c - p)));
		p = *c == ',' ? c + 1 : c;
	}
	return a;
}

/* The agent's objects in apply order (a new array), NULL if the region
 * has no agent image. */
static json_object *
health_agent(const char *region)
{
	static const char *const neuron[] = { NEURON_TYPES, NULL };
	json_object *list, *types;
	char image[256];
	size_t i;

	if (hma_image(region, image, sizeof(image)) != 0)
		return NULL;
	types = json_object_new_array();
	for (i = 0; neuron[i] != NULL; i++)
		json_object_array_add(types, sw_js(neuron[i]));
	list = sw_ja(
	    sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Namespace"),
		"metadata", sw_jo("name", sw_js(HMA_NS), NULL), NULL),
	    sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"),
		"kind", sw_js("ClusterRole"), "metadata", sw_jo("name",
		sw_js(HMA_NAME), NULL), "rules", sw_ja(
		sw_jo("apiGroups", sw_ja(sw_js("")), "resources",
		    sw_ja(sw_js("nodes")), "verbs", sw_ja(sw_js("get")), NULL),
		sw_jo("apiGroups", sw_ja(sw_js("")), "resources",
		    sw_ja(sw_js("nodes"), sw_js("nodes/status")),
		    "verbs", sw_ja(sw_js("patch")), NULL),
		sw_jo("apiGroups", sw_ja(sw_js(""), sw_js("events.k8s.io")), "resources", sw_ja(sw_js("events")),
		    "verbs", sw_ja(sw_js("create"), sw_js("patch"),
		    sw_js("update")), NULL)), NULL),
	    sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("ServiceAccount"),
		"metadata", sw_jo("name", sw_js(HMA_NAME), "namespace",
		sw_js(HMA_NS), NULL), NULL),
	    sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"),
		"kind", sw_js("ClusterRoleBinding"), "metadata", sw_jo("name",
		sw_js(HMA_NAME), NULL), "roleRef", sw_jo("apiGroup",
		sw_js("rbac.authorization.k8s.io"), "kind",
		sw_js("ClusterRole"), "name", sw_js(HMA_NAME), NULL),
		"subjects", sw_ja(sw_jo("kind", sw_js("ServiceAccount"),
		"name", sw_js(HMA_NAME), "namespace", sw_js(HMA_NS), NULL)), NULL),
	    hma_daemonset(HMA_NAME, image, type_array(NVIDIA_TYPES), 0),
	    hma_daemonset(HMA_NAME "-non-nvidia", image, types, 1));
	return list;
}

/* The health agent's objects, applied as HyperPod's chart has them. */
static enum sw_step_rc
apply_health_agent(struct sw_step *s)
{
	struct sw_kube kb;
	json_object *list;
	enum sw_step_rc rc = STEP_DONE;
	size_t i;

	if (sw_res_get(s, "health_agent") != NULL)
		return STEP_DONE;
	if ((list = health_agent(s->cfg->region)) == NULL)
		return sw_step_fail(s, "HyperPod has no health-monitoring agent "
		    "image in region %s", s->cfg->region);
	rc = sw_kube_open(s, CLUSTER(s), &kb);
	for (i = 0; rc == STEP_DONE && i < json_object_array_length(list); i++)
		rc = sw_kube_apply(s, &kb, json_object_array_get_idx(list, i));
	json_object_put(list);
	sw_kube_close(&kb);
	if (rc == STEP_DONE && !s->plan)
		sw_res_set(s, "health_agent", "applied");
	return rc;
}

/*
 * The device plugins by their Helm Jobs, one after the other.  A Job's
 * pod needs a node to run on, so this runs once the HyperPod nodes are
 * Ready.  Each done part is recorded, so a resumed stage goes on from
 * where it was.
 */
static enum sw_step_rc
install_device_plugins(struct sw_step *s)
{
	static const struct {
		enum sw_helm_chart	 chart;
		const char		*flag;
		const char *const	*sets;
	} plugins[] = {
		{ SW_HELM_NVIDIA, "device_plugin.nvidia", nvidia_sets },
		{ SW_HELM_EFA, "device_plugin.efa", efa_sets },
	};
	struct sw_kube kb;
	enum sw_step_rc rc = STEP_DONE;
	size_t i;

	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	for (i = 0; rc == STEP_DONE && i < sizeof(plugins) /
	    sizeof(plugins[0]); i++) {
		if (sw_res_get(s, plugins[i].flag) != NULL)
			continue;
		rc = sw_helm_run(s, &kb, plugins[i].chart, 1, plugins[i].sets);
		if (rc == STEP_DONE && !s->plan)
			sw_res_set(s, plugins[i].flag, "deployed");
	}
	sw_kube_close(&kb);
	return rc;
}

static enum sw_step_rc
stage_dependencies(struct sw_step *s)
{
	char flag[96];
	struct aws_error err;
	json_object *out;
	const char *status;
	enum sw_step_rc rc;
	int i, waiting = 0;

	for (i = 0; addons[i] != NULL; i++) {
		snprintf(flag, sizeof(flag), "addon.%s", addons[i]);
		if (sw_res_get(s, flag) != NULL &&
		    strcmp(sw_res_get(s, flag), "ACTIVE") == 0)
			continue;
		memset(&err, 0, sizeof(err));
		rc = s->plan ? STEP_FAIL : sw_step_aws(s, AWS_SVC_EKS,
		    "DescribeAddon", sw_jo("clusterName", sw_js(CLUSTER(s)),
		    "addonName", sw_js(addons[i]), NULL), &out, &err);
		if (rc == STEP_DONE) {
			status = sw_keep(s, sw_json_path_str(out, "addon.status"));
			sw_res_set(s, flag, status ? status : "?");
			if (status != NULL && (strcmp(status, "CREATE_FAILED")
			    == 0 || strcmp(status, "DEGRADED") == 0)) {
				json_object_put(out);
				return sw_step_fail(s, "add-on %s is %s",
				    addons[i], status);
			}
			waiting += status == NULL ||
			    strcmp(status, "ACTIVE") != 0;
			json_object_put(out);
			continue;
		}
		if (!s->plan && strcmp(err.code, "ResourceNotFoundException"))
			return rc;
		s->msg[0] = '\0';
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAddon", sw_jo(
		    "clusterName", sw_js(CLUSTER(s)),
		    "addonName", sw_js(addons[i]),
		    "resolveConflicts", sw_js("OVERWRITE"),
		    "clientRequestToken", sw_js(flag), NULL), &out,
		    "ResourceInUseException"));
		json_object_put(out);
		sw_res_set(s, flag, "CREATING");
		waiting++;
	}
	if (waiting && !s->plan)
		return sw_step_wait(s, sw_poll_ms(s, 20000), "waiting for %d "
		    "EKS add-on(s)", waiting);
	return apply_health_agent(s);
}

/* ---- hyperpod ---------------------------------------------------------- */

static const char *const exec_policies[] = {
	"arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy",
	NULL
};

static const char lifecycle_script[] =
    "#!/bin/bash\n"
    "# on_create.sh: run by HyperPod on each new node (EKS orchestrator).\n"
    "set -euo pipefail\n"
    "echo \"slipway: node $(hostname) initialised at $(date -u +%FT%TZ)\"\n"
    "if [ -d /opt/sagemaker ]; then\n"
    "  mkdir -p /opt/sagemaker/checkpoints\n"
    "fi\n";

/*
 * The cluster's VPC id and CIDR and its private route table: recorded by
 * the network stage of a create, else looked up (an instance group added
 * later, or an imported cluster).  Recorded in this stage's resources.
 */
static enum sw_step_rc
ensure_vpc_facts(struct sw_step *s)
{
	char name[160];
	json_object *out;
	const char *v;

	if (sw_res_get(s, "vpc_id") == NULL &&
	    (v = sw_res_from(s, "network", "vpc_id")) != NULL) {
		sw_res_set(s, "vpc_id", v);
		sw_res_set(s, "vpc_cidr", sw_res_from(s, "network",
		    "vpc_cidr"));
		sw_res_set(s, "private_route_table", sw_res_from(s, "network",
		    "private_route_table"));
	}
	if (sw_res_get(s, "vpc_id") == NULL) {
		enum sw_step_rc rc = sw_step_aws(s, AWS_SVC_EKS,
		    "DescribeCluster", sw_jo("name", sw_js(CLUSTER(s)), NULL),
		    &out, NULL);

		if (rc != STEP_DONE && s->plan) {
			/* Planning a cluster that does not exist yet. */
			s->msg[0] = '\0';
			sw_res_set(s, "vpc_id", "vpc-planned");
			sw_res_set(s, "vpc_cidr", sw_json_get_str(s->params,
			    "vpc_cidr"));
			sw_res_set(s, "private_route_table", "rtb-planned");
			return STEP_DONE;
		}
		if (rc != STEP_DONE)
			return rc;
		v = sw_json_path_str(out, "cluster.resourcesVpcConfig.vpcId");
		if (v != NULL)
			sw_res_set(s, "vpc_id", v);
		json_object_put(out);
		if (v == NULL)
			return sw_step_fail(s, "cannot tell the VPC of cluster %s",
			    CLUSTER(s));
	}
	if (sw_res_get(s, "vpc_cidr") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "DescribeVpcs", sw_jo("VpcIds",
		    sw_ja(sw_js(sw_res_get(s, "vpc_id"))), NULL), &out,
		    NULL));
		v = sw_json_path_str(out, "vpcSet[0].cidrBlock");
		if (v != NULL)
			sw_res_set(s, "vpc_cidr", v);
		json_object_put(out);
		if (v == NULL)
			return sw_step_fail(s, "VPC %s not found",
			    sw_res_get(s, "vpc_id"));
	}
	if (sw_res_get(s, "private_route_table") == NULL) {
		sw_name(name, sizeof(name), CLUSTER(s), "private-rt");
		TRY(sw_ec2_find(s, "DescribeRouteTables", "routeTableSet",
		    "routeTableId", name, "private_route_table", NULL));
		if (sw_res_get(s, "private_route_table") == NULL)
			return sw_step_fail(s, "no private route table %s", name);
	}
	return STEP_DONE;
}

/*
 * The /20 compute slot for a new subnet: the first of the VPC's slots
 * whose range no existing subnet overlaps.  This is the one place that
 * decides where HyperPod capacity goes in the VPC.
 */
static enum sw_step_rc
free_compute_slot(struct sw_step *s, char *cidr, size_t sz)
{
	const char *vpc_cidr = sw_res_get(s, "vpc_cidr");
	json_object *out, *list;
	size_t i;
	int k, clash;

	if (s->plan) {
		/* Nothing exists yet: the planned groups take slots in order. */
		int used = (int)sw_json_get_int(s->res, "planned_slots", 0);

		sw_json_add_int(s->res, "planned_slots", used + 1);
		return sw_cidr_compute(vpc_cidr, used, cidr, sz) == 0 ?
		    STEP_DONE : sw_step_fail(s, "no compute subnet slot left");
	}
	TRY(sw_step_aws(s, AWS_SVC_EC2, "DescribeSubnets", sw_jo("Filters",
	    sw_ja(sw_jo("Name", sw_js("vpc-id"), "Values", sw_ja(sw_js(
	    sw_res_get(s, "vpc_id"))), NULL)), NULL), &out, NULL));
	list = sw_json_get(out, "subnetSet");
	for (k = 0; k < 12; k++) {
		if (sw_cidr_compute(vpc_cidr, k, cidr, sz) != 0)
			break;
		clash = 0;
		for (i = 0; list && json_object_is_type(list, json_type_array) &&
		    i < json_object_array_length(list); i++) {
			const char *c = sw_json_get_str(
			    json_object_array_get_idx(list, i), "cidrBlock");

			if (c != NULL && sw_cidr_overlap(c, cidr))
				clash = 1;
		}
		if (!clash) {
			json_object_put(out);
			return STEP_DONE;
		}
	}
	json_object_put(out);
	return sw_step_fail(s, "the VPC %s has no free /20 compute slot",
	    vpc_cidr ? vpc_cidr : "?");
}

/*
 * Compute subnet for an AZ: the shared /20 of that AZ ("compute-<az>"),
 * made once and reused by every group there; with dedicated, a /20 of
 * the group's own ("compute-<group>").  Associated with the private
 * route table.  The subnet id goes to resources[key].
 */
enum sw_step_rc
sw_ensure_compute_subnet(struct sw_step *s, const char *az,
    const char *dedicated, char *key, size_t keysz)
{
	char label[96], name[200], cidr[32], flag[128];
	json_object *out;

	if (dedicated != NULL) {
		snprintf(key, keysz, "group_subnet.%s", dedicated);
		snprintf(label, sizeof(label), "compute-%s", dedicated);
	} else {
		snprintf(key, keysz, "compute_subnet.%s", az);
		snprintf(label, sizeof(label), "compute-%s", az);
	}
	TRY(ensure_vpc_facts(s));
	sw_name(name, sizeof(name), CLUSTER(s), label);
	TRY(sw_ec2_find(s, "DescribeSubnets", "subnetSet", "subnetId", name,
	    key, NULL));
	if (sw_res_get(s, key) == NULL) {
		TRY(free_compute_slot(s, cidr, sizeof(cidr)));
		TRY(ensure_subnet(s, key, label, cidr, az));
	}
	snprintf(flag, sizeof(flag), "%s.rt", key);
	if (sw_res_get(s, flag) == NULL) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "AssociateRouteTable", sw_jo(
		    "RouteTableId", sw_js(sw_res_get(s, "private_route_table")),
		    "SubnetId", sw_js(sw_res_get(s, key)), NULL), &out,
		    "Resource.AlreadyAssociated"));
		json_object_put(out);
		sw_res_set(s, flag, sw_res_get(s, "private_route_table"));
	}
	return STEP_DONE;
}

json_object *
sw_hp_instance_groups(struct sw_step *s, json_object *groups,
    const char *exec_role, const char *lc_uri)
{
	json_object *arr = json_object_new_array(), *g, *spec, *dh;
	const char *cap, *az, *sg;
	char key[96];
	size_t i;

	sg = sw_res_from(s, "network", "security_group_id");
	if (sg == NULL)
		sg = sw_json_get_str(s->params, "security_group_id");
	sg = planned(s, sg, "sg-planned");
	for (i = 0; i < json_object_array_length(groups); i++) {
		g = json_object_array_get_idx(groups, i);
		cap = sw_json_get_str(g, "capacity_type");
		az = sw_json_get_str(g, "availability_zone");
		snprintf(key, sizeof(key), "compute_subnet.%s", az);
		spec = sw_jo(
		    "InstanceGroupName", sw_js(sw_json_get_str(g, "name")),
		    "InstanceType", sw_js(sw_json_get_str(g,
			"instance_type")),
		    "InstanceCount", sw_ji(sw_json_get_int(g, "count", 1)),
		    "ExecutionRole", sw_js(exec_role),
		    "LifeCycleConfig", sw_jo("SourceS3Uri", sw_js(lc_uri),
			"OnCreate", sw_js("on_create.sh"), NULL),
		    "ThreadsPerCore", sw_ji(sw_json_get_int(g,
			"threads_per_core", 1)),
		    "InstanceStorageConfigs", sw_ja(sw_jo("EbsVolumeConfig",
			sw_jo("VolumeSizeInGB", sw_ji(sw_json_get_int(g,
			"volume_size_gb", 500)), NULL), NULL)),
		    "OverrideVpcConfig", sw_jo(
			"SecurityGroupIds", sw_ja(sw_js(sg)),
			"Subnets", sw_ja(sw_js(sw_json_get_str(g, "subnet_id")
			    ? sw_json_get_str(g, "subnet_id") :
			    planned(s, sw_res_get(s, key), "subnet-planned"))), NULL),
		    NULL);
		if (cap != NULL && strcmp(cap, "spot") == 0)
			json_object_object_add(spec, "CapacityRequirements",
			    sw_jo("Spot", json_object_new_object(), NULL));
		else if (cap != NULL && strcmp(cap, "on-demand") == 0)
			json_object_object_add(spec, "CapacityRequirements",
			    sw_jo("OnDemand", json_object_new_object(), NULL));
		if (sw_json_get_str(g, "training_plan_arn") != NULL)
			json_object_object_add(spec, "TrainingPlanArn", sw_js(
			    sw_json_get_str(g, "training_plan_arn")));
		if (sw_json_get_bool(g, "efa_only", 0))
			json_object_object_add(spec, "NetworkInterface", sw_jo(
			    "InterfaceType", sw_js("efa-only"), NULL));
		if ((dh = sw_json_get(s->params, "deep_health_checks")) !=
		    NULL && json_object_array_length(dh) > 0)
			json_object_object_add(spec, "OnStartDeepHealthChecks",
			    json_object_get(dh));
		json_object_array_add(arr, spec);
	}
	return arr;
}

/* Bucket for lifecycle scripts; HyperPod wants "sagemaker-" names. */
static void
lifecycle_bucket(struct sw_step *s, char *out, size_t sz)
{
	const char *acct = s->plan ? NULL : sw_account_id(s);

	snprintf(out, sz, "sagemaker-slipway-%s-%s", acct ? acct : "account",
	    s->cfg->region);
}

enum sw_step_rc
sw_ensure_lifecycle(struct sw_step *s, char *uri, size_t urisz)
{
	char bucket[128], key[160];
	struct aws_error err;

	lifecycle_bucket(s, bucket, sizeof(bucket));
	snprintf(key, sizeof(key), "lifecycle/%s/on_create.sh", CLUSTER(s));
	snprintf(uri, urisz, "s3://%s/lifecycle/%s/", bucket, CLUSTER(s));
	if (s->plan) {
		json_object_array_add(s->calls, sw_jo("stage",
		    sw_js(s->stage), "service", sw_js("s3"), "operation",
		    sw_js("PutObject"), "input", sw_jo("Bucket", sw_js(bucket),
		    "Key", sw_js(key), NULL), NULL));
		return STEP_DONE;
	}
	if (sw_res_get(s, "lifecycle_uri") != NULL)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if (aws_s3_head_bucket(s->aws, bucket, NULL, 0, &err) != SW_OK) {
		if (err.http_status != 404 && err.retryable)
			return sw_step_wait(s, 5000, "s3: %s", err.code);
		memset(&err, 0, sizeof(err));
		s->calls_made++;
		if (aws_s3_create_bucket(s->aws, bucket, &err) != SW_OK &&
		    strcmp(err.code, "BucketAlreadyOwnedByYou") != 0)
			return err.retryable ? sw_step_wait(s, 5000, "s3: %s",
			    err.code) : sw_step_fail(s, "CreateBucket %s: %s %s",
			    bucket, err.code, err.message);
	}
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if (aws_s3_put_object(s->aws, bucket, key, lifecycle_script,
	    strlen(lifecycle_script), "text/x-shellscript", &err) != SW_OK)
		return err.retryable ? sw_step_wait(s, 5000, "s3: %s",
		    err.code) : sw_step_fail(s, "PutObject %s: %s", key,
		    err.code);
	sw_res_set(s, "lifecycle_uri", uri);
	return STEP_DONE;
}

/*
 * On a retry after HyperPod reported Failed (insufficient capacity, say),
 * delete the failed cluster and wait until it is gone, so the create
 * below runs again.  Earlier stages are not touched.
 */
static enum sw_step_rc
replace_failed(struct sw_step *s)
{
	struct aws_error err;
	json_object *out;
	const char *status;
	enum sw_step_rc rc;

	if (s->plan || sw_res_get(s, "failed_cluster") == NULL)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "DescribeCluster", sw_jo(
	    "ClusterName", sw_js(CLUSTER(s)), NULL), &out, &err);
	if (rc != STEP_DONE) {
		if (strcmp(err.code, "ResourceNotFound") != 0)
			return rc;
		s->msg[0] = '\0';
		json_object_object_del(s->res, "failed_cluster");
		json_object_object_del(s->res, "create_requested");
		return STEP_DONE;
	}
	status = sw_keep(s, sw_json_get_str(out, "ClusterStatus"));
	if (status != NULL && strcmp(status, "Failed") == 0) {
		json_object *o2;

		rc = sw_step_aws_ok(s, AWS_SVC_SAGEMAKER, "DeleteCluster",
		    sw_jo("ClusterName", sw_js(CLUSTER(s)), NULL), &o2,
		    "ResourceNotFound");
		json_object_put(o2);
		if (rc != STEP_DONE) {
			json_object_put(out);
			return rc;
		}
	} else if (status != NULL && strcmp(status, "Deleting") != 0) {
		/* It recovered on its own: keep it. */
		json_object_put(out);
		json_object_object_del(s->res, "failed_cluster");
		return STEP_DONE;
	}
	json_object_put(out);
	return sw_step_wait(s, sw_poll_ms(s, 30000), "deleting the failed "
	    "HyperPod cluster %s before creating it again", CLUSTER(s));
}

static enum sw_step_rc
stage_hyperpod(struct sw_step *s)
{
	json_object *groups = sw_json_get(s->params, "instance_groups");
	json_object *slots = sw_json_get(s->params, "compute_slots");
	char role[128], uri[256], key[96];
	struct aws_error err;
	json_object *out, *subnets;
	enum sw_step_rc rc;

	/* One shared compute subnet per AZ any group uses. */
	json_object_object_foreach(slots, az, slot) {
		(void)slot;
		TRY(sw_ensure_compute_subnet(s, az, NULL, key, sizeof(key)));
	}
	sw_name(role, sizeof(role), CLUSTER(s), "hp-exec");
	TRY(sw_ensure_role(s, "execution_role_arn", role,
	    "sagemaker.amazonaws.com", exec_policies));
	TRY(sw_ensure_lifecycle(s, uri, sizeof(uri)));
	TRY(replace_failed(s));
	if (sw_res_get(s, "create_requested") == NULL) {
		memset(&err, 0, sizeof(err));
		rc = s->plan ? STEP_FAIL : sw_step_aws(s, AWS_SVC_SAGEMAKER,
		    "DescribeCluster", sw_jo("ClusterName", sw_js(CLUSTER(s)),
		    NULL), &out, &err);
		if (rc == STEP_DONE) {
			json_object_put(out);
			sw_res_set(s, "create_requested", "existing");
		} else if (!s->plan && strcmp(err.code, "ResourceNotFound")
		    != 0)
			return rc;
		s->msg[0] = '\0';
	}
	if (sw_res_get(s, "create_requested") == NULL) {
		subnets = json_object_new_array();
		json_object_object_foreach(slots, az2, slot2) {
			(void)slot2;
			snprintf(key, sizeof(key), "compute_subnet.%s", az2);
			json_object_array_add(subnets, sw_js(planned(s,
			    sw_res_get(s, key), "subnet-planned")));
		}
		TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "CreateCluster", sw_jo(
		    "ClusterName", sw_js(CLUSTER(s)),
		    "InstanceGroups", sw_hp_instance_groups(s, groups,
			sw_res_get(s, "execution_role_arn"), uri),
		    "VpcConfig", sw_jo(
			"SecurityGroupIds", sw_ja(sw_js(planned(s,
			    sw_res_from(s, "network", "security_group_id"),
			    "sg-planned"))),
			"Subnets", subnets, NULL),
		    "Orchestrator", sw_jo("Eks", sw_jo("ClusterArn",
			sw_js(planned(s, sw_res_from(s, "eks", "cluster_arn"),
			"arn:aws:eks:planned")), NULL), NULL),
		    "NodeRecovery", sw_js(sw_json_get_str(s->params,
			"node_recovery")),
		    "Tags", sw_ja(sw_jo("Key", sw_js("slipway:cluster"),
			"Value", sw_js(CLUSTER(s)), NULL)),
		    NULL), &out, NULL));
		if (sw_json_get_str(out, "ClusterArn") != NULL)
			sw_res_set(s, "hyperpod_arn", sw_json_get_str(out,
			    "ClusterArn"));
		json_object_put(out);
		sw_res_set(s, "create_requested", "created");
	}
	rc = sw_hp_wait_in_service(s, "create", 30000, &out);
	if (rc == STEP_DONE && out != NULL)
		sw_res_set(s, "hyperpod_arn", sw_json_get_str(out,
		    "ClusterArn"));
	/* A retry of a failed cluster deletes and recreates it. */
	if (rc == STEP_FAIL && out != NULL && sw_json_get_str(out,
	    "ClusterStatus") != NULL && strcmp(sw_json_get_str(out,
	    "ClusterStatus"), "Failed") == 0)
		sw_res_set(s, "failed_cluster", "seen");
	json_object_put(out);
	return rc;
}

/* ---- storage ------------------------------------------------------------ */

static enum sw_step_rc
stage_storage(struct sw_step *s)
{
	const char *bucket = sw_json_path_str(s->params, "storage.s3_bucket");
	char pv[160], region[96];
	json_object *m;
	struct sw_kube kb;
	enum sw_step_rc rc;

	if (bucket == NULL || sw_res_get(s, "pvc") != NULL)
		return STEP_DONE;
	snprintf(pv, sizeof(pv), "pv-%s", CLUSTER(s));
	/* Mountpoint takes "region <name>" as one option. */
	if ((size_t)snprintf(region, sizeof(region), "region %s",
	    s->cfg->region) >= sizeof(region))
		return sw_step_fail(s, "region name too long");
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	m = sw_jo("apiVersion", sw_js("v1"), "kind",
	    sw_js("PersistentVolume"),
	    "metadata", sw_jo("name", sw_js(pv), NULL),
	    "spec", sw_jo(
		"capacity", sw_jo("storage", sw_js("1200Gi"), NULL),
		"accessModes", sw_ja(sw_js("ReadWriteMany")),
		"storageClassName", sw_js(""),
		"claimRef", sw_jo("namespace", sw_js("default"), "name",
		    sw_js("s3-claim"), NULL),
		"mountOptions", sw_ja(sw_js("allow-delete"),
		    sw_js(region)),
		"csi", sw_jo("driver", sw_js("s3.csi.aws.com"),
		    "volumeHandle", sw_js(pv),
		    "volumeAttributes", sw_jo("bucketName", sw_js(bucket),
			NULL), NULL), NULL), NULL);
	rc = sw_kube_apply(s, &kb, m);
	json_object_put(m);
	if (rc == STEP_DONE) {
		m = sw_jo("apiVersion", sw_js("v1"), "kind",
		    sw_js("PersistentVolumeClaim"),
		    "metadata", sw_jo("name", sw_js("s3-claim"), "namespace",
			sw_js("default"), NULL),
		    "spec", sw_jo(
			"accessModes", sw_ja(sw_js("ReadWriteMany")),
			"storageClassName", sw_js(""),
			"volumeName", sw_js(pv),
			"resources", sw_jo("requests", sw_jo("storage",
			    sw_js("1200Gi"), NULL), NULL), NULL), NULL);
		rc = sw_kube_apply(s, &kb, m);
		json_object_put(m);
	}
	sw_kube_close(&kb);
	if (rc == STEP_DONE) {
		sw_res_set(s, "pv", pv);
		sw_res_set(s, "pvc", "default/s3-claim");
		sw_res_set(s, "bucket", bucket);
	}
	return rc;
}

/* ---- verify ------------------------------------------------------------- */

static enum sw_step_rc
stage_verify(struct sw_step *s)
{
	json_object *groups = sw_json_get(s->params, "instance_groups");
	json_object *out, *list, *nodes = NULL;
	struct k8s_error kerr;
	struct sw_kube kb;
	int64_t want = 0, running = 0, ready = 0;
	size_t i;
	char buf[32];

	if (s->plan || sw_res_get(s, "nodes_ready") != NULL)
		return install_device_plugins(s);
	for (i = 0; i < json_object_array_length(groups); i++)
		want += sw_json_get_int(json_object_array_get_idx(groups, i),
		    "count", 0);
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterNodes", sw_jo(
	    "ClusterName", sw_js(CLUSTER(s)), "MaxResults", sw_ji(100), NULL),
	    &out, NULL));
	list = sw_json_get(out, "ClusterNodeSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		const char *st = sw_json_path_str(json_object_array_get_idx(
		    list, i), "InstanceStatus.Status");

		running += st != NULL && strcmp(st, "Running") == 0;
	}
	json_object_put(out);
	if (running < want)
		return sw_step_wait(s, sw_poll_ms(s, 30000), "%lld of %lld "
		    "HyperPod nodes Running", (long long)running,
		    (long long)want);
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	memset(&kerr, 0, sizeof(kerr));
	s->calls_made++;
	if (k8s_list(&kb.k, "/api/v1/nodes",
	    "sagemaker.amazonaws.com/compute-type=hyperpod", &nodes, &kerr) !=
	    SW_OK) {
		sw_kube_close(&kb);
		return sw_step_wait(s, sw_poll_ms(s, 15000), "listing nodes: "
		    "%s", kerr.message);
	}
	sw_kube_close(&kb);
	list = sw_json_get(nodes, "items");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *conds = sw_json_path(json_object_array_get_idx(
		    list, i), "status.conditions");
		size_t j;

		for (j = 0; conds && j < json_object_array_length(conds); j++) {
			json_object *c = json_object_array_get_idx(conds, j);

			if (strcmp(sw_json_get_str(c, "type") ?
			    sw_json_get_str(c, "type") : "", "Ready") == 0 &&
			    strcmp(sw_json_get_str(c, "status") ?
			    sw_json_get_str(c, "status") : "", "True") == 0)
				ready++;
		}
	}
	json_object_put(nodes);
	if (ready < want)
		return sw_step_wait(s, sw_poll_ms(s, 15000), "%lld of %lld "
		    "Kubernetes nodes Ready", (long long)ready,
		    (long long)want);
	snprintf(buf, sizeof(buf), "%lld", (long long)ready);
	sw_res_set(s, "nodes_ready", buf);
	return install_device_plugins(s);
}

static const struct sw_stage_def create_stages[] = {
	{ "network", stage_network },
	{ "eks", stage_eks },
	{ "access", stage_access },
	{ "select", stage_select },
	{ "dependencies", stage_dependencies },
	{ "hyperpod", stage_hyperpod },
	{ "storage", stage_storage },
	{ "verify", stage_verify },
	{ NULL, NULL }
};

const struct sw_pipeline sw_pl_cluster_create = {
	"cluster.create", create_stages
};
