/*
 * test-awsproto.c: the protocol layer without test data files: error
 * bodies of every protocol parse into struct aws_error and map to the
 * right sw_err and retry flags; XML responses become JSON; the form
 * encoders and the rest-json binder build what the models say.  (The
 * service-requests vectors are checked in test-sigv4.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cloud/aws.h"
#include "t/tap.h"

static void
fake_resp(struct http_response *r, long status, const char *body,
    const char *hname, const char *hval)
{
	http_response_init(r, 1 << 20);
	r->status = status;
	if (body != NULL)
		sw_buf_puts(&r->body, body);
	if (hname != NULL)
		http_headers_add(&r->headers, hname, hval);
}

static void
test_errors(void)
{
	struct http_response r;
	struct aws_error e;

	/* json 1.1 (SageMaker): namespaced __type, "Message". */
	fake_resp(&r, 400,
	    "{\"__type\":\"com.amazonaws.sagemaker#"
	    "ResourceNotFound\",\"Message\":\"Cluster hp1 not found\"}",
	    "x-amzn-RequestId", "req-sm-1");
	awsproto_parse_error(AWS_PROTO_JSON, &r, &e);
	is_str(e.code, "ResourceNotFound", "json: __type namespace dropped");
	is_str(e.message, "Cluster hp1 not found", "json: Message");
	is_str(e.request_id, "req-sm-1", "json: x-amzn-RequestId");
	is_int(e.http_status, 400, "json: status");
	ok(!e.retryable && !e.throttling, "json: not retryable");
	is_int(aws_error_sw(&e), SW_ENOTFOUND, "json: maps to SW_ENOTFOUND");
	http_response_free(&r);

	/* json throttling with a colon suffix. */
	fake_resp(&r, 400,
	    "{\"__type\":\"ThrottlingException:http://"
	    "internal.amazon.com/coral/\",\"message\":\"Rate exceeded\"}",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_JSON, &r, &e);
	is_str(e.code, "ThrottlingException", "json: suffix dropped");
	ok(e.retryable && e.throttling, "json: throttling is retryable");
	is_int(aws_error_sw(&e), SW_ETHROTTLED, "json: SW_ETHROTTLED");
	http_response_free(&r);

	/* awsQueryCompatible header wins. */
	fake_resp(&r, 400, "{\"__type\":\"X#Other\"}", "x-amzn-query-error",
	    "AWS.SimpleQueueService.NonExistentQueue;Sender");
	awsproto_parse_error(AWS_PROTO_JSON, &r, &e);
	is_str(e.code, "AWS.SimpleQueueService.NonExistentQueue",
	    "json: x-amzn-query-error code");
	http_response_free(&r);

	/* rest-json (EKS): x-amzn-ErrorType header first. */
	fake_resp(&r, 404,
	    "{\"message\":\"No cluster found for name: "
	    "demo.\",\"clusterName\":\"demo\"}",
	    "x-amzn-ErrorType",
	    "ResourceNotFoundException:http://internal.amazon.com/"
	    "coral/com.amazon.eks/");
	http_headers_add(&r.headers, "x-amzn-RequestId", "eks-req-9");
	awsproto_parse_error(AWS_PROTO_REST_JSON, &r, &e);
	is_str(e.code, "ResourceNotFoundException", "rest-json: header code");
	is_str(e.message, "No cluster found for name: demo.",
	    "rest-json: message");
	is_str(e.request_id, "eks-req-9", "rest-json: request id");
	http_response_free(&r);

	/* rest-json: body "code" when there is no header. */
	fake_resp(&r, 409,
	    "{\"code\":\"ResourceInUseException\","
	    "\"message\":\"busy\"}",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_REST_JSON, &r, &e);
	is_str(e.code, "ResourceInUseException", "rest-json: body code");
	is_int(aws_error_sw(&e), SW_ECONFLICT, "rest-json: SW_ECONFLICT");
	http_response_free(&r);

	/* query (IAM). */
	fake_resp(&r, 404,
	    "<ErrorResponse xmlns=\"https://iam.amazonaws.com/"
	    "doc/2010-05-08/\"><Error><Type>Sender</Type><Code>NoSuchEntity"
	    "</Code><Message>The role with name X cannot be found.</Message>"
	    "</Error><RequestId>4d6a-iam</RequestId></ErrorResponse>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_QUERY, &r, &e);
	is_str(e.code, "NoSuchEntity", "query: code");
	is_str(e.message, "The role with name X cannot be found.",
	    "query: message");
	is_str(e.request_id, "4d6a-iam", "query: RequestId");
	is_int(aws_error_sw(&e), SW_ENOTFOUND, "query: SW_ENOTFOUND");
	http_response_free(&r);

	/* query: STS special retryable code. */
	fake_resp(&r, 400,
	    "<ErrorResponse><Error><Type>Sender</Type><Code>"
	    "IDPCommunicationError</Code><Message>try again</Message></Error>"
	    "<RequestId>r</RequestId></ErrorResponse>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_QUERY, &r, &e);
	ok(e.retryable && !e.throttling,
	    "query: IDPCommunicationError "
	    "retryable, not throttling");
	http_response_free(&r);

	/* ec2: <Response><Errors><Error>, RequestID. */
	fake_resp(&r, 400,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<Response><Errors><Error><Code>InvalidVpcID.NotFound</Code>"
	    "<Message>The vpc ID 'vpc-1' does not exist</Message></Error>"
	    "</Errors><RequestID>ec2-req-7</RequestID></Response>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_EC2, &r, &e);
	is_str(e.code, "InvalidVpcID.NotFound", "ec2: code");
	is_str(e.request_id, "ec2-req-7", "ec2: RequestID");
	is_int(aws_error_sw(&e), SW_ENOTFOUND, "ec2: .NotFound -> ENOTFOUND");
	http_response_free(&r);

	fake_resp(&r, 503,
	    "<Response><Errors><Error><Code>"
	    "RequestLimitExceeded</Code><Message>Request limit exceeded."
	    "</Message></Error></Errors><RequestID>x</RequestID></Response>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_EC2, &r, &e);
	ok(e.throttling && e.retryable, "ec2: RequestLimitExceeded throttles");
	http_response_free(&r);

	fake_resp(&r, 400,
	    "<Response><Errors><Error><Code>"
	    "DependencyViolation</Code><Message>has dependencies</Message>"
	    "</Error></Errors><RequestID>x</RequestID></Response>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_EC2, &r, &e);
	is_int(aws_error_sw(&e), SW_ECONFLICT,
	    "ec2: DependencyViolation "
	    "is a conflict");
	ok(!e.retryable, "ec2: DependencyViolation is terminal");
	http_response_free(&r);

	/* rest-xml (S3). */
	fake_resp(&r, 404,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<Error><Code>NoSuchKey</Code><Message>The specified key does "
	    "not exist.</Message><Key>a.txt</Key><RequestId>4442587FB7D0A2F9"
	    "</RequestId><HostId>h</HostId></Error>",
	    "x-amz-request-id", "4442587FB7D0A2F9");
	awsproto_parse_error(AWS_PROTO_REST_XML, &r, &e);
	is_str(e.code, "NoSuchKey", "s3: code");
	is_str(e.message, "The specified key does not exist.", "s3: message");
	is_str(e.request_id, "4442587FB7D0A2F9", "s3: request id");
	http_response_free(&r);

	fake_resp(&r, 400,
	    "<Error><Code>AuthorizationHeaderMalformed</Code>"
	    "<Message>wrong region</Message><Region>eu-west-1</Region>"
	    "<RequestId>r</RequestId></Error>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_REST_XML, &r, &e);
	is_str(e.region, "eu-west-1", "s3: <Region> of a wrong-region error");
	http_response_free(&r);

	/* S3 HEAD: no body, the status is the code. */
	fake_resp(&r, 301, NULL, "x-amz-bucket-region", "us-west-2");
	awsproto_parse_error(AWS_PROTO_REST_XML, &r, &e);
	is_str(e.code, "301", "s3 HEAD: status as code");
	is_str(e.region, "us-west-2", "s3 HEAD: x-amz-bucket-region");
	http_response_free(&r);

	fake_resp(&r, 503,
	    "<Error><Code>SlowDown</Code><Message>Reduce"
	    "</Message></Error>",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_REST_XML, &r, &e);
	ok(e.throttling, "s3: SlowDown throttles");
	http_response_free(&r);

	/* 500 without a parseable body is transient. */
	fake_resp(&r, 502, "Bad Gateway", NULL, NULL);
	awsproto_parse_error(AWS_PROTO_JSON, &r, &e);
	is_str(e.code, "502", "garbage body: status as code");
	ok(e.retryable && !e.throttling, "502 is transient");
	is_str(e.message, "Bad Gateway", "garbage body kept as message");
	is_int(aws_error_sw(&e), SW_EUNAVAIL,
	    "a transient 5xx -> "
	    "SW_EUNAVAIL, said once: no caller patches SW_EUPSTREAM");
	ok(sw_err_transient(aws_error_sw(&e)), "... and sw_err_transient");
	http_response_free(&r);

	/* A 503 ServiceUnavailable with a body: transient, not upstream. */
	fake_resp(&r, 503,
	    "{\"__type\":\"ServiceUnavailable\","
	    "\"message\":\"try later\"}",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_JSON, &r, &e);
	is_int(aws_error_sw(&e), SW_EUNAVAIL,
	    "503 ServiceUnavailable -> "
	    "SW_EUNAVAIL");
	http_response_free(&r);
	/* A 400 that means nothing more: not transient. */
	fake_resp(&r, 400,
	    "{\"__type\":\"ValidationException\","
	    "\"message\":\"bad\"}",
	    NULL, NULL);
	awsproto_parse_error(AWS_PROTO_JSON, &r, &e);
	is_int(aws_error_sw(&e), SW_EUPSTREAM,
	    "ValidationException -> "
	    "SW_EUPSTREAM");
	ok(!sw_err_transient(aws_error_sw(&e)), "... and not transient");
	http_response_free(&r);

	aws_error_transport(&e, SW_ETIMEOUT, "Operation timed out");
	ok(e.transport && e.timeout && e.retryable, "timeout is retryable");
	is_int(aws_error_sw(&e), SW_ETIMEOUT, "timeout -> SW_ETIMEOUT");
	ok(!e.unsent, "... and may have reached AWS");
	aws_error_transport(
	    &e, SW_ECONFLICT, "not sent: past its send-by time");
	ok(e.transport && e.unsent && !e.timeout,
	    "a request refused past its send-by time is unsent");
	aws_error_transport(&e, SW_EUNAVAIL, "Connection refused");
	ok(!e.unsent, "a connection error is not known unsent");
}

static void
test_xml(void)
{
	json_object *o = NULL, *v;
	char text[64];
	const char *vpcs =
	    "<DescribeVpcsResponse xmlns=\"http://ec2."
	    "amazonaws.com/doc/2016-11-15/\"><requestId>r-1</requestId>"
	    "<vpcSet><item><vpcId>vpc-1</vpcId><cidrBlock>10.0.0.0/16"
	    "</cidrBlock><tagSet><item><key>Name</key><value>a &amp; b</value>"
	    "</item></tagSet></item><item><vpcId>vpc-2</vpcId><tagSet/>"
	    "</item></vpcSet></DescribeVpcsResponse>";
	const char *xxe = "<!DOCTYPE a [<!ENTITY x SYSTEM "
			  "\"file:///etc/passwd\">]><a>&x;</a>";
	const char *s3 = "<ListBucketResult><Name>b</Name><Contents><Key>"
			 "a</Key></Contents><Contents><Key>b</Key></Contents>"
			 "<KeyCount>2</KeyCount></ListBucketResult>";

	ok(awsproto_xml_to_json(vpcs, strlen(vpcs), &o) == SW_OK,
	    "ec2 xml parses");
	v = json_object_object_get(o, "vpcSet");
	is_int(json_object_array_length(v), 2, "vpcSet item list");
	is_str(json_object_get_string(json_object_object_get(
		   json_object_array_get_idx(v, 0), "vpcId")),
	    "vpc-1", "vpcId");
	is_str(json_object_get_string(json_object_object_get(
		   json_object_array_get_idx(
		       json_object_object_get(
			   json_object_array_get_idx(v, 0), "tagSet"),
		       0),
		   "value")),
	    "a & b", "entity decoded");
	ok(json_object_is_type(json_object_object_get(
				   json_object_array_get_idx(v, 1), "tagSet"),
	       json_type_array),
	    "empty tagSet is []");
	json_object_put(o);
	ok(awsproto_xml_to_json(s3, strlen(s3), &o) == SW_OK, "s3 xml");
	is_int(json_object_array_length(json_object_object_get(o, "Contents")),
	    2, "repeated Contents -> array");
	json_object_put(o);
	ok(awsproto_xml_to_json("<a><b>", 6, &o) == SW_EUPSTREAM,
	    "broken XML refused");
	ok(awsproto_xpath_text(vpcs, strlen(vpcs),
	       "//*[local-name()="
	       "'cidrBlock']",
	       text, sizeof(text)) == SW_OK &&
		strcmp(text, "10.0.0.0/16") == 0,
	    "xpath helper");
	ok(awsproto_xml_to_json(xxe, strlen(xxe), &o) != SW_OK ||
		strstr(json_object_get_string(o), "root:") == NULL,
	    "external entities are not loaded");
	json_object_put(o);
}

static void
test_form(void)
{
	struct sw_buf b;
	json_object *in, *tags, *t;

	sw_buf_init(&b, 4096);
	in = json_object_new_object();
	tags = json_object_new_array();
	t = json_object_new_object();
	json_object_object_add(t, "Key", json_object_new_string("team"));
	json_object_object_add(t, "Value", json_object_new_string("a/b c"));
	json_object_array_add(tags, t);
	json_object_object_add(in, "RoleName", json_object_new_string("r"));
	json_object_object_add(in, "Tags", tags);
	json_object_object_add(
	    in, "MaxSessionDuration", json_object_new_int(3600));
	awsproto_form(
	    &b, AWS_PROTO_QUERY, "CreateRole", "2010-05-08", in, NULL);
	is_str(sw_buf_str(&b),
	    "Action=CreateRole&Version=2010-05-08&RoleName=r"
	    "&Tags.member.1.Key=team&Tags.member.1.Value=a%2Fb+c"
	    "&MaxSessionDuration=3600",
	    "query lists use .member.N");
	sw_buf_reset(&b);
	json_object_object_del(in, "RoleName");
	json_object_object_del(in, "MaxSessionDuration");
	json_object_object_add(in, "Description", json_object_new_string("sg"));
	awsproto_form(&b, AWS_PROTO_EC2, "CreateSecurityGroup", "2016-11-15",
	    in, aws_ec2_renames);
	is_str(sw_buf_str(&b),
	    "Action=CreateSecurityGroup&Version=2016-11-15"
	    "&Tag.1.Key=team&Tag.1.Value=a%2Fb+c&GroupDescription=sg",
	    "ec2 renames (op-level and global)");
	json_object_put(in);
	sw_buf_free(&b);
}

static void
test_rest_errors(void)
{
	struct aws_ctx ctx;
	struct http_request req;
	json_object *in;

	aws_ctx_init(&ctx, "us-west-2");
	in = json_object_new_object();
	ok(aws_build_request(&ctx, AWS_SVC_EKS, "DescribeCluster", in, &req) ==
		SW_EINVAL,
	    "missing URI label refused");
	ok(aws_build_request(&ctx, AWS_SVC_EKS, "NoSuchOp", in, &req) ==
		SW_EINVAL,
	    "unknown rest-json op refused");
	ok(aws_build_request(&ctx, AWS_SVC_SAGEMAKER, "Bad/Op", in, &req) ==
		SW_EINVAL,
	    "bad op name refused");
	json_object_object_add(in, "name", json_object_new_string("a b/c"));
	ok(aws_build_request(&ctx, AWS_SVC_EKS, "DeleteCluster", in, &req) ==
		    SW_OK &&
		strcmp(req.path, "/clusters/a%20b%2Fc") == 0 &&
		req.body == NULL && strcmp(req.method, "DELETE") == 0,
	    "label encoded, slash too; no body on DELETE");
	http_request_free(&req);
	json_object_put(in);
	aws_ctx_free(&ctx);
}

int
main(void)
{
	test_errors();
	test_xml();
	test_form();
	test_rest_errors();
	return tap_done();
}
