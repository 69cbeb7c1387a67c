/*
 * lbc.c: the AWS Load Balancer Controller, which turns a Service of type
 * LoadBalancer with the NLB annotations into a Network Load Balancer.
 * EKS does not ship it, so a cluster that exposes an inference endpoint
 * through a load balancer gets it here: an IAM role trusted by EKS Pod
 * Identity with the controller's own IAM policy, the pod identity
 * association for kube-system/aws-load-balancer-controller, and the
 * aws-load-balancer-controller chart by the Helm installer Job
 * (pipelines/helm.c).  Without the controller the Service's address
 * would stay pending for ever.  A pipeline stage calls sw_lbc_ensure()
 * with its step; a handler calls sw_lbc_status_or_ensure(), which runs
 * the same stage in a step of its own, so no handler builds one.
 */
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/helm.h"
#include "pipelines/lbc.h"
#include "pipelines/pipelines.h"

#define LBC_SA "aws-load-balancer-controller"
#define LBC_NS "kube-system"
#define LBC_POLICY "slipway-aws-load-balancer-controller"

/*
 * The controller's IAM policy (v2.13, docs/install/iam_policy.json of
 * kubernetes-sigs/aws-load-balancer-controller): reads everywhere,
 * writes only on resources tagged for a Kubernetes cluster.
 */
static const char lbc_policy[] =
    "{\"Version\":\"2012-10-17\",\"Statement\":["
    "{\"Effect\":\"Allow\",\"Action\":\"iam:CreateServiceLinkedRole\","
    "\"Resource\":\"*\",\"Condition\":{\"StringEquals\":{"
    "\"iam:AWSServiceName\":\"elasticloadbalancing.amazonaws.com\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"ec2:DescribeAccountAttributes\",\"ec2:DescribeAddresses\","
    "\"ec2:DescribeAvailabilityZones\",\"ec2:DescribeInternetGateways\","
    "\"ec2:DescribeVpcs\",\"ec2:DescribeVpcPeeringConnections\","
    "\"ec2:DescribeSubnets\",\"ec2:DescribeSecurityGroups\","
    "\"ec2:DescribeInstances\",\"ec2:DescribeNetworkInterfaces\","
    "\"ec2:DescribeTags\",\"ec2:GetCoipPoolUsage\","
    "\"ec2:DescribeCoipPools\",\"ec2:GetSecurityGroupsForVpc\","
    "\"ec2:DescribeIpamPools\",\"ec2:DescribeRouteTables\","
    "\"elasticloadbalancing:DescribeLoadBalancers\","
    "\"elasticloadbalancing:DescribeLoadBalancerAttributes\","
    "\"elasticloadbalancing:DescribeListeners\","
    "\"elasticloadbalancing:DescribeListenerCertificates\","
    "\"elasticloadbalancing:DescribeSSLPolicies\","
    "\"elasticloadbalancing:DescribeRules\","
    "\"elasticloadbalancing:DescribeTargetGroups\","
    "\"elasticloadbalancing:DescribeTargetGroupAttributes\","
    "\"elasticloadbalancing:DescribeTargetHealth\","
    "\"elasticloadbalancing:DescribeTags\","
    "\"elasticloadbalancing:DescribeTrustStores\","
    "\"elasticloadbalancing:DescribeListenerAttributes\","
    "\"elasticloadbalancing:DescribeCapacityReservation\"],"
    "\"Resource\":\"*\"},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"cognito-idp:DescribeUserPoolClient\",\"acm:ListCertificates\","
    "\"acm:DescribeCertificate\",\"iam:ListServerCertificates\","
    "\"iam:GetServerCertificate\",\"waf-regional:GetWebACL\","
    "\"waf-regional:GetWebACLForResource\","
    "\"waf-regional:AssociateWebACL\",\"waf-regional:DisassociateWebACL\","
    "\"wafv2:GetWebACL\",\"wafv2:GetWebACLForResource\","
    "\"wafv2:AssociateWebACL\",\"wafv2:DisassociateWebACL\","
    "\"shield:GetSubscriptionState\",\"shield:DescribeProtection\","
    "\"shield:CreateProtection\",\"shield:DeleteProtection\"],"
    "\"Resource\":\"*\"},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"ec2:AuthorizeSecurityGroupIngress\","
    "\"ec2:RevokeSecurityGroupIngress\"],\"Resource\":\"*\"},"
    "{\"Effect\":\"Allow\",\"Action\":\"ec2:CreateSecurityGroup\","
    "\"Resource\":\"*\"},"
    "{\"Effect\":\"Allow\",\"Action\":\"ec2:CreateTags\","
    "\"Resource\":\"arn:aws:ec2:*:*:security-group/*\",\"Condition\":{"
    "\"StringEquals\":{\"ec2:CreateAction\":\"CreateSecurityGroup\"},"
    "\"Null\":{\"aws:RequestTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":[\"ec2:CreateTags\","
    "\"ec2:DeleteTags\"],"
    "\"Resource\":\"arn:aws:ec2:*:*:security-group/*\",\"Condition\":{"
    "\"Null\":{\"aws:RequestTag/elbv2.k8s.aws/cluster\":\"true\","
    "\"aws:ResourceTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"ec2:AuthorizeSecurityGroupIngress\","
    "\"ec2:RevokeSecurityGroupIngress\",\"ec2:DeleteSecurityGroup\"],"
    "\"Resource\":\"*\",\"Condition\":{\"Null\":{"
    "\"aws:ResourceTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"elasticloadbalancing:CreateLoadBalancer\","
    "\"elasticloadbalancing:CreateTargetGroup\"],\"Resource\":\"*\","
    "\"Condition\":{\"Null\":{"
    "\"aws:RequestTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"elasticloadbalancing:CreateListener\","
    "\"elasticloadbalancing:DeleteListener\","
    "\"elasticloadbalancing:CreateRule\","
    "\"elasticloadbalancing:DeleteRule\"],\"Resource\":\"*\"},"
    "{\"Effect\":\"Allow\",\"Action\":[\"elasticloadbalancing:AddTags\","
    "\"elasticloadbalancing:RemoveTags\"],\"Resource\":["
    "\"arn:aws:elasticloadbalancing:*:*:targetgroup/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:loadbalancer/net/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:loadbalancer/app/*/*\"],"
    "\"Condition\":{\"Null\":{"
    "\"aws:RequestTag/elbv2.k8s.aws/cluster\":\"true\","
    "\"aws:ResourceTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":[\"elasticloadbalancing:AddTags\","
    "\"elasticloadbalancing:RemoveTags\"],\"Resource\":["
    "\"arn:aws:elasticloadbalancing:*:*:listener/net/*/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:listener/app/*/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:listener-rule/net/*/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:listener-rule/app/*/*/*\"]},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"elasticloadbalancing:ModifyLoadBalancerAttributes\","
    "\"elasticloadbalancing:SetIpAddressType\","
    "\"elasticloadbalancing:SetSecurityGroups\","
    "\"elasticloadbalancing:SetSubnets\","
    "\"elasticloadbalancing:DeleteLoadBalancer\","
    "\"elasticloadbalancing:ModifyTargetGroup\","
    "\"elasticloadbalancing:ModifyTargetGroupAttributes\","
    "\"elasticloadbalancing:DeleteTargetGroup\","
    "\"elasticloadbalancing:ModifyListenerAttributes\","
    "\"elasticloadbalancing:ModifyCapacityReservation\","
    "\"elasticloadbalancing:ModifyIpPools\"],\"Resource\":\"*\","
    "\"Condition\":{\"Null\":{"
    "\"aws:ResourceTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":\"elasticloadbalancing:AddTags\","
    "\"Resource\":["
    "\"arn:aws:elasticloadbalancing:*:*:targetgroup/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:loadbalancer/net/*/*\","
    "\"arn:aws:elasticloadbalancing:*:*:loadbalancer/app/*/*\"],"
    "\"Condition\":{\"StringEquals\":{\"elasticloadbalancing:CreateAction\":"
    "[\"CreateTargetGroup\",\"CreateLoadBalancer\"]},\"Null\":{"
    "\"aws:RequestTag/elbv2.k8s.aws/cluster\":\"false\"}}},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"elasticloadbalancing:RegisterTargets\","
    "\"elasticloadbalancing:DeregisterTargets\"],"
    "\"Resource\":\"arn:aws:elasticloadbalancing:*:*:targetgroup/*/*\"},"
    "{\"Effect\":\"Allow\",\"Action\":["
    "\"elasticloadbalancing:SetWebAcl\","
    "\"elasticloadbalancing:ModifyListener\","
    "\"elasticloadbalancing:AddListenerCertificates\","
    "\"elasticloadbalancing:RemoveListenerCertificates\","
    "\"elasticloadbalancing:ModifyRule\","
    "\"elasticloadbalancing:SetRulePriorities\"],\"Resource\":\"*\"}]}";

/* The role, its inline policy and the pod identity association. */
static enum sw_step_rc
lbc_identity(struct sw_step *s, const char *cluster)
{
	char role[128];
	json_object *out, *list, *policy;
	enum sw_step_rc rc;
	size_t i;
	int have = 0;

	sw_name(role, sizeof(role), cluster, SW_ROLE_LBC);
	if ((policy = json_tokener_parse(lbc_policy)) == NULL)
		return sw_step_fail(s, "the controller's policy is not JSON");
	rc = sw_ensure_pods_role(s,
	    &(struct sw_role){ .key = "lbc_role_arn",
		.name = role,
		.inline_name = LBC_POLICY,
		.inline_doc = policy });
	json_object_put(policy);
	if (rc != STEP_DONE)
		return rc;
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListPodIdentityAssociations",
	    sw_jo("clusterName", sw_js(cluster), "namespace", sw_js(LBC_NS),
		"serviceAccount", sw_js(LBC_SA), NULL),
	    &out, NULL));
	list = sw_json_get(out, "associations");
	for (i = 0; list != NULL && i < json_object_array_length(list); i++)
		have |=
		    strcmp(sw_json_get_str(json_object_array_get_idx(list, i),
			       "serviceAccount")
			    ?: "",
			LBC_SA) == 0;
	json_object_put(out);
	if (have)
		return STEP_DONE;
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreatePodIdentityAssociation",
	    sw_jo("clusterName", sw_js(cluster), "namespace", sw_js(LBC_NS),
		"serviceAccount", sw_js(LBC_SA), "roleArn",
		sw_js(sw_res_get(s, "lbc_role_arn")), "tags", sw_tag_map(s),
		NULL),
	    &out, "ResourceInUseException"));
	json_object_put(out);
	return STEP_DONE;
}

enum sw_step_rc
sw_lbc_ensure(struct sw_step *s, struct sw_kube *kb, const char *cluster)
{
	char set_cluster[160], set_region[64], set_vpc[64];
	const char *sets[6], *vpc;
	json_object *out;
	int got;

	if (!s->plan && sw_res_get(s, "lbc_helm_started") == NULL) {
		got = sw_helm_deployed(s, kb, SW_HELM_LBC);
		if (got < 0)
			return STEP_WAIT;
		if (got == 1)
			return STEP_DONE;
	}
	TRY(lbc_identity(s, cluster));
	if (sw_res_get(s, "vpc_id") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
		    sw_jo("name", sw_js(cluster), NULL), &out, NULL));
		vpc = sw_json_path_str(out, "cluster.resourcesVpcConfig.vpcId");
		sw_res_set(s, "vpc_id",
		    vpc != NULL   ? vpc
			: s->plan ? "vpc-planned"
				  : NULL);
		json_object_put(out);
		if (sw_res_get(s, "vpc_id") == NULL)
			return sw_step_fail(s,
			    "cannot tell the VPC of cluster "
			    "%s",
			    cluster);
	}
	if (sw_fmt(set_cluster, sizeof(set_cluster), "clusterName=%s",
		cluster) != SW_OK ||
	    sw_fmt(set_region, sizeof(set_region), "region=%s",
		s->aws->region) != SW_OK ||
	    sw_fmt(set_vpc, sizeof(set_vpc), "vpcId=%s",
		sw_res_get(s, "vpc_id")) != SW_OK)
		return sw_step_fail(s,
		    "load balancer controller values too "
		    "long");
	sets[0] = set_cluster;
	sets[1] = "serviceAccount.create=true";
	sets[2] = "serviceAccount.name=" LBC_SA;
	sets[3] = set_region;
	sets[4] = set_vpc;
	sets[5] = NULL;
	sw_res_set(s, "lbc_helm_started", "yes");
	return sw_helm_run(s, kb, SW_HELM_LBC, 1, sets);
}

sw_err
sw_lbc_status_or_ensure(struct aws_ctx *aws, const struct sw_config *cfg,
    struct sw_kube *kb, const char *cluster, char *msg, size_t msgsz,
    int *ready)
{
	struct sw_step s;
	enum sw_step_rc rc;

	*ready = 0;
	if (msgsz > 0)
		msg[0] = '\0';
	memset(&s, 0, sizeof(s));
	s.aws = aws;
	s.svc_aws = aws;
	s.cfg = cfg;
	s.stage = "load-balancer-controller";
	/* What the step kit reads of an operation's input: the cluster
	 * name, for the tags it puts on the role. */
	s.params = sw_jo("name", sw_js(cluster), NULL);
	s.res = json_object_new_object();
	if (s.params == NULL || s.res == NULL) {
		json_object_put(s.params);
		json_object_put(s.res);
		return SW_ENOMEM;
	}
	rc = sw_lbc_ensure(&s, kb, cluster);
	if (s.kept_nomem)
		rc = STEP_FAIL;
	sw_step_release(&s);
	json_object_put(s.res);
	json_object_put(s.params);
	if (msgsz > 0)
		sw_fmt_text(msg, msgsz, "%s", s.msg);
	if (rc == STEP_FAIL)
		return SW_EUPSTREAM;
	*ready = rc == STEP_DONE;
	return SW_OK;
}
