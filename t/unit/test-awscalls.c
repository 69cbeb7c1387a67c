/*
 * test-awscalls.c: typed calls end to end against one fake loopback
 * endpoint standing in for every service, as the sandbox does: the
 * handler routes by the credential scope of the signature, so the test
 * also shows that signing names and regions stay per service behind a
 * shared URL.  Also: default endpoints, overrides, S3 path style.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "cloud/aws_person.h"
#include "cloud/sigv4.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

static struct {
	char scope[128];
	char target[4096];
	char amz_target[128];
	char sha[80];
	char ctype[128];
	char method[16];
	char body[4096];
	size_t body_len;
} r;

/* "Credential=AKID/20150830/us-west-2/eks/aws4_request" -> region/svc */
static void
scope_of(const char *auth, char *out, size_t outsz)
{
	const char *p = strstr(auth, "Credential="), *s;
	size_t n;

	out[0] = '\0';
	if (p == NULL || (p = strchr(p, '/')) == NULL ||
	    (p = strchr(p + 1, '/')) == NULL)
		return;
	s = strstr(p, "/aws4_request");
	n = s ? (size_t)(s - p - 1) : 0;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, p + 1, n);
	out[n] = '\0';
}

static void
handler(void *arg, const struct fake_req *req, struct fake_reply *rep)
{
	static char out[4096];
	char auth[512];

	(void)arg;
	auth[0] = '\0';
	fake_header(req, "Authorization", auth, sizeof(auth));
	scope_of(auth, r.scope, sizeof(r.scope));
	snprintf(r.target, sizeof(r.target), "%s", req->target);
	snprintf(r.method, sizeof(r.method), "%s", req->method);
	r.amz_target[0] = r.sha[0] = r.ctype[0] = '\0';
	fake_header(req, "X-Amz-Target", r.amz_target, sizeof(r.amz_target));
	fake_header(req, "x-amz-content-sha256", r.sha, sizeof(r.sha));
	fake_header(req, "Content-Type", r.ctype, sizeof(r.ctype));
	snprintf(r.body, sizeof(r.body), "%s", req->body);
	r.body_len = req->body_len;
	rep->body = "{}";
	if (strcmp(r.scope, "us-west-2/sts") == 0)
		rep->body =
		    "<GetCallerIdentityResponse xmlns=\"https://sts."
		    "amazonaws.com/doc/2011-06-15/\"><GetCallerIdentityResult>"
		    "<Arn>arn:aws:iam::123456789012:user/dev</Arn><UserId>AID"
		    "</UserId><Account>123456789012</Account>"
		    "</GetCallerIdentityResult><ResponseMetadata><RequestId>"
		    "r1</RequestId></ResponseMetadata>"
		    "</GetCallerIdentityResponse>";
	else if (strcmp(r.scope, "us-east-1/iam") == 0)
		rep->body =
		    "<GetRoleResponse><GetRoleResult><Role><RoleName>"
		    "hp-exec</RoleName><Arn>arn:aws:iam::123456789012:role/"
		    "hp-exec</Arn></Role></GetRoleResult></GetRoleResponse>";
	else if (strcmp(r.scope, "us-west-2/ec2") == 0)
		rep->body =
		    "<CreateVpcResponse xmlns=\"http://ec2.amazonaws."
		    "com/doc/2016-11-15/\"><requestId>e1</requestId><vpc>"
		    "<vpcId>vpc-0abc</vpcId><state>pending</state><tagSet/>"
		    "</vpc></CreateVpcResponse>";
	else if (strcmp(r.scope, "us-west-2/eks") == 0) {
		/* certificateAuthority.data: base64 of a short PEM. */
		rep->body =
		    "{\"cluster\":{\"name\":\"demo\",\"endpoint\":"
		    "\"https://ABC.gr7.us-west-2.eks.amazonaws.com\","
		    "\"certificateAuthority\":{\"data\":\"LS0tLS1CRUdJTiBD"
		    "RVJUSUZJQ0FURS0tLS0tCk1JSUMKLS0tLS1FTkQgQ0VSVElGSUNBVE"
		    "UtLS0tLQo=\"},\"status\":\"ACTIVE\"}}";
	} else if (strcmp(r.scope, "us-west-2/sagemaker") == 0 &&
	    strstr(r.body, "missing") != NULL) {
		rep->status = 400;
		snprintf(rep->headers, sizeof(rep->headers),
		    "x-amzn-RequestId: sm-404\r\n");
		rep->body = "{\"__type\":\"ResourceNotFound\",\"Message\":"
			    "\"Cluster missing not found\"}";
	} else if (strcmp(r.scope, "us-west-2/s3") == 0) {
		if (strcmp(req->method, "HEAD") == 0)
			snprintf(rep->headers, sizeof(rep->headers),
			    "x-amz-bucket-region: us-west-2\r\n");
		if (strstr(req->target, "list-type=2") != NULL)
			rep->body =
			    "<ListBucketResult><Name>lc</Name>"
			    "<KeyCount>1</KeyCount><Contents><Key>on_create.sh"
			    "</Key><Size>24</Size></Contents>"
			    "</ListBucketResult>";
		else if (strcmp(req->method, "GET") == 0)
			rep->body = "#!/bin/bash\necho hello\n";
		else
			rep->body = "";
		if (strcmp(req->method, "DELETE") == 0)
			rep->status = 204;
	}
	snprintf(out, sizeof(out), "%s", rep->body);
	rep->body = out;
	rep->body_len = strlen(out);
}

static void
test_endpoints(void)
{
	struct aws_ctx ctx;
	char url[256], reg[64];

	unsetenv("AWS_ENDPOINT_URL");
	aws_ctx_init(&ctx, "us-west-2");
	aws_endpoint(
	    &ctx, AWS_SVC_SAGEMAKER, url, sizeof(url), reg, sizeof(reg));
	ok(strcmp(url, "https://api.sagemaker.us-west-2.amazonaws.com") == 0 &&
		strcmp(reg, "us-west-2") == 0,
	    "sagemaker default endpoint");
	aws_endpoint(&ctx, AWS_SVC_IAM, url, sizeof(url), reg, sizeof(reg));
	ok(strcmp(url, "https://iam.amazonaws.com") == 0 &&
		strcmp(reg, "us-east-1") == 0,
	    "IAM: global, signed us-east-1");
	aws_endpoint(&ctx, AWS_SVC_STS, url, sizeof(url), reg, sizeof(reg));
	is_str(url, "https://sts.us-west-2.amazonaws.com", "STS regional");
	aws_endpoint(&ctx, AWS_SVC_QUOTAS, url, sizeof(url), reg, sizeof(reg));
	is_str(url, "https://servicequotas.us-west-2.amazonaws.com",
	    "service quotas");
	ok(aws_ctx_set_endpoint(&ctx, AWS_SVC_EKS, "http://eks.example.com") ==
		SW_EINVAL,
	    "plain http override to a remote host refused");
	ok(aws_ctx_set_endpoint(&ctx, AWS_SVC_EKS,
	       "https://vpce-1.eks."
	       "us-west-2.vpce.amazonaws.com/") == SW_OK,
	    "https override (trailing slash trimmed)");
	aws_endpoint(&ctx, AWS_SVC_EKS, url, sizeof(url), reg, sizeof(reg));
	is_str(url, "https://vpce-1.eks.us-west-2.vpce.amazonaws.com",
	    "override used");
	aws_ctx_free(&ctx);
	setenv("AWS_ENDPOINT_URL_SAGEMAKER", "http://localhost:4566", 1);
	aws_ctx_init(&ctx, "eu-west-1");
	aws_endpoint(
	    &ctx, AWS_SVC_SAGEMAKER, url, sizeof(url), reg, sizeof(reg));
	ok(strcmp(url, "http://localhost:4566") == 0 &&
		strcmp(reg, "eu-west-1") == 0,
	    "AWS_ENDPOINT_URL_SAGEMAKER");
	aws_endpoint(&ctx, AWS_SVC_EKS, url, sizeof(url), reg, sizeof(reg));
	is_str(url, "https://eks.eu-west-1.amazonaws.com",
	    "other services keep their defaults");
	unsetenv("AWS_ENDPOINT_URL_SAGEMAKER");
	aws_ctx_free(&ctx);
	ok(aws_ctx_init(&ctx, "US WEST") == SW_EINVAL, "bad region refused");
	aws_ctx_free(&ctx);
}

/* A person's name as a SourceIdentity: AWS's characters, 2..64 long. */
static void
test_source_identity(void)
{
	char out[AWS_SOURCE_IDENTITY_MAX + 1], long_name[100];
	struct sw_config cfg;
	struct aws_ctx ctx, *use = NULL;
	struct aws_error err;

	aws_source_identity("alice@example.com", out, sizeof(out));
	ok(strcmp(out, "alice@example.com") == 0, "allowed characters kept");
	aws_source_identity("Alice Smith/ops:x", out, sizeof(out));
	ok(strcmp(out, "Alice-Smith-ops-x") == 0,
	    "space, slash and colon become '-'");
	aws_source_identity("aws:root", out, sizeof(out));
	ok(strncmp(out, "aws:", 4) != 0, "never the reserved aws: prefix");
	aws_source_identity("a", out, sizeof(out));
	ok(strcmp(out, "a_") == 0, "padded to two characters");
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	aws_source_identity(long_name, out, sizeof(out));
	ok(strlen(out) == AWS_SOURCE_IDENTITY_MAX, "cut to 64");
	/* Without a person role, the service's own context. */
	memset(&cfg, 0, sizeof(cfg));
	memset(&ctx, 0, sizeof(ctx));
	cfg.root = json_object_new_object();
	ok(aws_person_ctx(&ctx, &cfg, "alice", &use, &err) == SW_OK &&
		use == &ctx,
	    "no person role: the service's credentials");
	json_object_put(cfg.root);
}

int
main(void)
{
	struct fake_server *srv;
	struct aws_ctx ctx;
	struct aws_error err;
	struct sw_buf obj;
	json_object *in, *out = NULL;
	char url[64], acct[32], arn[128], reg[32], sha[65];
	char *ep = NULL, *ca = NULL;
	const char *script = "#!/bin/bash\necho hello\n";
	size_t calen;
	sw_err rc;

	test_endpoints();
	test_source_identity();
	if ((srv = fake_start(handler, NULL, NULL, NULL)) == NULL)
		skip_all("cannot start a test server");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", fake_port(srv));
	aws_ctx_init(&ctx, "us-west-2");
	ok(aws_ctx_set_endpoint_all(&ctx, url) == SW_OK,
	    "one loopback URL for every service");
	creds_set_static(&ctx.creds, "AKIDEXAMPLE", "secret", "session-tok");

	rc = aws_sts_get_caller_identity(
	    &ctx, acct, sizeof(acct), arn, sizeof(arn), &err);
	ok(rc == SW_OK && strcmp(acct, "123456789012") == 0 &&
		strcmp(arn, "arn:aws:iam::123456789012:user/dev") == 0,
	    "STS GetCallerIdentity");
	is_str(r.scope, "us-west-2/sts", "STS scope");
	is_str(r.body, "Action=GetCallerIdentity&Version=2011-06-15",
	    "STS form body");

	in = json_tokener_parse("{\"RoleName\":\"hp-exec\"}");
	rc = aws_call(&ctx, AWS_SVC_IAM, "GetRole", in, &out, &err);
	ok(rc == SW_OK &&
		strcmp(json_object_get_string(json_object_object_get(
			   json_object_object_get(out, "Role"), "RoleName")),
		    "hp-exec") == 0,
	    "IAM GetRole output is the Result element");
	is_str(r.scope, "us-east-1/iam",
	    "IAM signed for us-east-1 even on "
	    "the shared URL");
	json_object_put(in);
	json_object_put(out);

	in = json_tokener_parse(
	    "{\"CidrBlock\":\"10.0.0.0/16\","
	    "\"TagSpecifications\":[{\"ResourceType\":\"vpc\",\"Tags\":[{"
	    "\"Key\":\"Name\",\"Value\":\"hp\"}]}]}");
	rc = aws_call(&ctx, AWS_SVC_EC2, "CreateVpc", in, &out, &err);
	ok(rc == SW_OK &&
		strcmp(json_object_get_string(json_object_object_get(
			   json_object_object_get(out, "vpc"), "vpcId")),
		    "vpc-0abc") == 0,
	    "EC2 CreateVpc");
	is_str(r.body,
	    "Action=CreateVpc&Version=2016-11-15&CidrBlock=10.0.0.0"
	    "%2F16&TagSpecification.1.ResourceType=vpc&TagSpecification.1."
	    "Tag.1.Key=Name&TagSpecification.1.Tag.1.Value=hp",
	    "EC2 body with nested renamed lists");
	json_object_put(in);
	json_object_put(out);

	rc = aws_eks_cluster_access(&ctx, "demo", &ep, &ca, &calen, &err);
	ok(rc == SW_OK &&
		strcmp(ep,
		    "https://ABC.gr7.us-west-2.eks."
		    "amazonaws.com") == 0,
	    "EKS DescribeCluster endpoint");
	ok(ca != NULL && strncmp(ca, "-----BEGIN CERTIFICATE-----", 27) == 0,
	    "cluster CA decoded to PEM");
	ok(strcmp(r.method, "GET") == 0 &&
		strcmp(r.target, "/clusters/demo") == 0 &&
		strcmp(r.scope, "us-west-2/eks") == 0,
	    "EKS GET /clusters/demo, eks scope");
	free(ep);
	free(ca);

	in = json_tokener_parse(
	    "{\"clusterName\":\"demo\",\"principalArn\":"
	    "\"arn:aws:iam::1:role/Admin\",\"policyArn\":\"arn:aws:eks::aws:"
	    "cluster-access-policy/AmazonEKSClusterAdminPolicy\","
	    "\"accessScope\":{\"type\":\"cluster\"}}");
	rc = aws_call(
	    &ctx, AWS_SVC_EKS, "AssociateAccessPolicy", in, &out, &err);
	is_int(rc, SW_OK, "EKS AssociateAccessPolicy");
	is_str(r.target,
	    "/clusters/demo/access-entries/arn%3Aaws%3Aiam%3A%3A1"
	    "%3Arole%2FAdmin/access-policies",
	    "principalArn label encoded");
	ok(strstr(r.body, "clusterName") == NULL &&
		strstr(r.body, "\"accessScope\":{\"type\":\"cluster\"}") !=
		    NULL,
	    "labels not in the body");
	json_object_put(in);
	json_object_put(out);

	in = json_tokener_parse("{\"ClusterName\":\"hp1\"}");
	rc = aws_call(
	    &ctx, AWS_SVC_SAGEMAKER, "DescribeCluster", in, &out, &err);
	ok(rc == SW_OK &&
		strcmp(r.amz_target, "SageMaker.DescribeCluster") == 0 &&
		strcmp(r.ctype, "application/x-amz-json-1.1") == 0 &&
		strcmp(r.body, "{\"ClusterName\":\"hp1\"}") == 0,
	    "SageMaker json 1.1 request");
	json_object_put(in);
	json_object_put(out);
	in = json_tokener_parse("{\"ClusterName\":\"missing\"}");
	rc = aws_call(
	    &ctx, AWS_SVC_SAGEMAKER, "DescribeCluster", in, &out, &err);
	ok(rc == SW_ENOTFOUND && strcmp(err.code, "ResourceNotFound") == 0 &&
		strcmp(err.request_id, "sm-404") == 0 && !err.retryable,
	    "SageMaker ResourceNotFound -> SW_ENOTFOUND, typed error");
	json_object_put(in);

	rc = aws_call(
	    &ctx, AWS_SVC_FSX, "DescribeFileSystems", NULL, &out, &err);
	ok(rc == SW_OK &&
		strcmp(r.amz_target,
		    "AWSSimbaAPIService_v20180301."
		    "DescribeFileSystems") == 0 &&
		strcmp(r.scope, "us-west-2/fsx") == 0 &&
		strcmp(r.body, "{}") == 0,
	    "FSx target, scope, empty input");
	json_object_put(out);
	in = json_tokener_parse("{\"ServiceCode\":\"sagemaker\","
				"\"QuotaCode\":\"L-1216C47A\"}");
	rc = aws_call(&ctx, AWS_SVC_QUOTAS, "GetServiceQuota", in, &out, &err);
	ok(rc == SW_OK &&
		strcmp(r.amz_target,
		    "ServiceQuotasV20190624.GetServiceQuota") == 0 &&
		strcmp(r.scope, "us-west-2/servicequotas") == 0,
	    "Service Quotas target and signing name");
	json_object_put(in);
	json_object_put(out);

	/* S3, path style on the shared endpoint. */
	rc = aws_s3_create_bucket(&ctx, "lc-bucket", &err);
	ok(rc == SW_OK && strcmp(r.method, "PUT") == 0 &&
		strcmp(r.target, "/lc-bucket") == 0 &&
		strstr(r.body,
		    "<LocationConstraint>us-west-2"
		    "</LocationConstraint>") != NULL,
	    "S3 CreateBucket outside "
	    "us-east-1 names the region");
	rc = aws_s3_put_object(&ctx, "lc-bucket", "lifecycle/on create.sh",
	    script, strlen(script), "text/x-sh", &err);
	sigv4_sha256_hex(script, strlen(script), sha);
	ok(rc == SW_OK &&
		strcmp(r.target,
		    "/lc-bucket/lifecycle/"
		    "on%20create.sh") == 0,
	    "S3 PutObject key encoded once, / kept");
	is_str(r.sha, sha, "x-amz-content-sha256 is the body hash");
	is_str(r.scope, "us-west-2/s3", "S3 scope");
	sw_buf_init(&obj, 1024);
	rc = aws_s3_get_object(
	    &ctx, "lc-bucket", "lifecycle/on create.sh", &obj, &err);
	ok(rc == SW_OK && strcmp(sw_buf_str(&obj), script) == 0,
	    "S3 GetObject body");
	sw_buf_free(&obj);
	rc = aws_s3_list_objects_v2(
	    &ctx, "lc-bucket", "lifecycle/", NULL, &out, &err);
	ok(rc == SW_OK &&
		json_object_array_length(
		    json_object_object_get(out, "Contents")) == 1,
	    "S3 ListObjectsV2: one object, as an array");
	ok(strstr(r.target, "list-type=2") &&
		strstr(r.target, "prefix=lifecycle%2F"),
	    "ListObjectsV2 query");
	json_object_put(out);
	rc = aws_s3_head_bucket(&ctx, "lc-bucket", reg, sizeof(reg), &err);
	ok(rc == SW_OK && strcmp(reg, "us-west-2") == 0,
	    "S3 HeadBucket region");
	ok(aws_s3_delete_object(&ctx, "lc-bucket", "x", &err) == SW_OK &&
		aws_s3_delete_bucket(&ctx, "lc-bucket", &err) == SW_OK &&
		strcmp(r.method, "DELETE") == 0,
	    "S3 deletes (204)");
	ok(aws_s3_put_object(&ctx, "Bad_Bucket", "k", "", 0, NULL, &err) ==
		SW_EINVAL,
	    "bad bucket name refused");

	aws_ctx_free(&ctx);
	fake_stop(srv);
	return tap_done();
}
