/*
 * aws.c: the AWS client context, endpoint resolution and the generic
 * call (see aws.h).  aws_call() turns a json-c input into an HTTP
 * request for the service's protocol, signs it with the current
 * credentials, sends it under the standard retry policy and decodes
 * the response or the protocol's error body.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/url.h"
#include "lib/alloc.h"
#include "lib/conf.h"
#include "lib/json.h"
#include "cloud/aws.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/metrics.h"
#include "cloud/sigv4.h"

#define AWS_USER_AGENT "slipway/0.1"

static const struct aws_service_info aws_services[AWS_SVC__MAX] = {
	[AWS_SVC_STS] = { "sts", "STS", "sts", "sts", AWS_PROTO_QUERY,
	    "2011-06-15", NULL, NULL, NULL },
	[AWS_SVC_EC2] = { "ec2", "EC2", "ec2", "ec2", AWS_PROTO_EC2,
	    "2016-11-15", NULL, NULL, NULL },
	[AWS_SVC_IAM] = { "iam", "IAM", "iam", "iam", AWS_PROTO_QUERY,
	    "2010-05-08", NULL, "https://iam.amazonaws.com", "us-east-1" },
	[AWS_SVC_EKS] = { "eks", "EKS", "eks", "eks", AWS_PROTO_REST_JSON,
	    "2017-11-01", NULL, NULL, NULL },
	[AWS_SVC_SAGEMAKER] = { "sagemaker", "SAGEMAKER", "api.sagemaker",
	    "sagemaker", AWS_PROTO_JSON, "2017-07-24", "SageMaker", NULL,
	    NULL },
	[AWS_SVC_S3] = { "s3", "S3", "s3", "s3", AWS_PROTO_REST_XML,
	    "2006-03-01", NULL, NULL, NULL },
	[AWS_SVC_FSX] = { "fsx", "FSX", "fsx", "fsx", AWS_PROTO_JSON,
	    "2018-03-01", "AWSSimbaAPIService_v20180301", NULL, NULL },
	[AWS_SVC_QUOTAS] = { "service-quotas", "SERVICE_QUOTAS",
	    "servicequotas", "servicequotas", AWS_PROTO_JSON, "2019-06-24",
	    "ServiceQuotasV20190624", NULL, NULL },
	/* The Price List API answers from three regions; us-east-1's has
	 * the prices of every region. */
	[AWS_SVC_PRICING] = { "pricing", "PRICING", "api.pricing", "pricing",
	    AWS_PROTO_JSON, "2017-10-15", "AWSPriceListService",
	    "https://api.pricing.us-east-1.amazonaws.com", "us-east-1" },
	/* Where notifications go (poller/notify.c). */
	[AWS_SVC_SNS] = { "sns", "SNS", "sns", "sns", AWS_PROTO_QUERY,
	    "2010-03-31", NULL, NULL, NULL },
	[AWS_SVC_EVENTS] = { "events", "EVENTBRIDGE", "events", "events",
	    AWS_PROTO_JSON, "2015-10-07", "AWSEvents", NULL, NULL },
};

const struct aws_service_info *
aws_service(enum aws_service svc)
{
	if ((int)svc < 0 || svc >= AWS_SVC__MAX)
		return NULL;
	return &aws_services[svc];
}

static time_t
aws_now(void)
{
	return time(NULL);
}

/* A sane region name: [a-z0-9-], 1..63 characters. */
static int
aws_region_ok(const char *r)
{
	size_t i;

	if (r == NULL || *r == '\0' || strlen(r) >= SW_AWS_MAX_NAME)
		return 0;
	for (i = 0; r[i] != '\0'; i++)
		if (!islower((unsigned char)r[i]) &&
		    !isdigit((unsigned char)r[i]) && r[i] != '-')
			return 0;
	return 1;
}

sw_err
aws_ctx_init(struct aws_ctx *ctx, const char *region)
{
	char sts[SW_AWS_MAX_URL], sreg[SW_AWS_MAX_NAME], env[64];
	char cfgreg[SW_AWS_MAX_NAME];
	const char *v;
	int i;
	sw_err rc;

	memset(ctx, 0, sizeof(ctx[0]));
	ctx->clock = aws_now;
	retry_init(&ctx->retry);
	/* AWS_REGION, AWS_DEFAULT_REGION, the config file, us-east-1. */
	if (region == NULL && (region = getenv("AWS_REGION")) == NULL &&
	    (region = getenv("AWS_DEFAULT_REGION")) == NULL)
		region = creds_config_region(cfgreg, sizeof(cfgreg)) == SW_OK
		    ? cfgreg
		    : "us-east-1";
	if (!aws_region_ok(region))
		return SW_EINVAL;
	if (sw_fmt(ctx->region, sizeof(ctx->region), "%s", region) != SW_OK)
		return SW_EINVAL;
	if ((rc = http_client_init(&ctx->http, 0)) != SW_OK)
		return rc;
	if ((v = getenv("AWS_ENDPOINT_URL")) != NULL && *v != '\0' &&
	    (rc = aws_ctx_set_endpoint_all(ctx, v)) != SW_OK)
		return rc;
	for (i = 0; i < AWS_SVC__MAX; i++) {
		if (sw_fmt(env, sizeof(env), "AWS_ENDPOINT_URL_%s",
			aws_services[i].env) != SW_OK)
			return SW_EINTERNAL;
		if ((v = getenv(env)) != NULL && *v != '\0' &&
		    (rc = aws_ctx_set_endpoint(ctx, (enum aws_service)i, v)) !=
			SW_OK)
			return rc;
	}
	if ((rc = aws_endpoint(ctx, AWS_SVC_STS, sts, sizeof(sts), sreg,
		 sizeof(sreg))) != SW_OK)
		return rc;
	return creds_init(&ctx->creds, sts, sreg);
}

void
aws_ctx_free(struct aws_ctx *ctx)
{
	int i;

	for (i = 0; i < AWS_SVC__MAX; i++)
		free(ctx->endpoint[i]);
	creds_free(&ctx->creds);
	http_client_free(&ctx->http);
	memset(ctx, 0, sizeof(*ctx));
}

sw_err
aws_ctx_set_endpoint(struct aws_ctx *ctx, enum aws_service svc, const char *url)
{
	char *copy;
	size_t len;

	if (aws_service(svc) == NULL || url == NULL)
		return SW_EINVAL;
	len = strlen(url);
	while (len > 0 && url[len - 1] == '/')
		len--;
	if (len == 0 || len >= SW_AWS_MAX_URL)
		return SW_EINVAL;
	if ((copy = sw_strndup(url, len)) == NULL)
		return SW_ENOMEM;
	if (!http_url_allowed(copy, HTTP_ALLOW_LOOPBACK) ||
	    strchr(copy + strcspn(copy, ":") + 3, '/') != NULL) {
		free(copy);
		return SW_EINVAL;
	}
	/* Plain http is for the local sandbox only. */
	if (strncasecmp(copy, "http://", 7) == 0)
		ctx->http.flags |= HTTP_ALLOW_LOOPBACK;
	free(ctx->endpoint[svc]);
	ctx->endpoint[svc] = copy;
	if (svc == AWS_SVC_S3)
		ctx->s3_path_style = 1;
	if (svc == AWS_SVC_STS && ctx->creds.now != NULL)
		return creds_set_sts(&ctx->creds, copy, ctx->region);
	return SW_OK;
}

sw_err
aws_ctx_set_endpoint_all(struct aws_ctx *ctx, const char *url)
{
	int i;
	sw_err rc;

	for (i = 0; i < AWS_SVC__MAX; i++)
		if ((rc = aws_ctx_set_endpoint(
			 ctx, (enum aws_service)i, url)) != SW_OK)
			return rc;
	return SW_OK;
}

sw_err
aws_endpoint(const struct aws_ctx *ctx, enum aws_service svc, char *url,
    size_t urlsz, char *region, size_t regionsz)
{
	const struct aws_service_info *si;
	const char *reg;
	int n;

	if ((si = aws_service(svc)) == NULL)
		return SW_EINVAL;
	reg = si->global_region != NULL ? si->global_region : ctx->region;
	if (ctx->endpoint[svc] != NULL)
		n = snprintf(url, urlsz, "%s", ctx->endpoint[svc]);
	else if (si->global_url != NULL)
		n = snprintf(url, urlsz, "%s", si->global_url);
	else
		n = snprintf(url, urlsz, "https://%s.%s.amazonaws.com",
		    si->prefix, ctx->region);
	if (n < 0 || (size_t)n >= urlsz ||
	    (size_t)snprintf(region, regionsz, "%s", reg) >= regionsz)
		return SW_EINVAL;
	return SW_OK;
}

static const struct aws_rest_op *
aws_rest_find(enum aws_service svc, const char *op)
{
	const struct aws_rest_op *t;

	if (svc != AWS_SVC_EKS)
		return NULL;
	for (t = aws_eks_ops; t->name != NULL; t++)
		if (strcmp(t->name, op) == 0)
			return t;
	return NULL;
}

static const struct aws_binding *
aws_rest_binding(const struct aws_rest_op *op, const char *member)
{
	size_t i;

	for (i = 0; i < sizeof(op->bind) / sizeof(op->bind[0]) &&
	     op->bind[i].member != NULL;
	     i++)
		if (strcmp(op->bind[i].member, member) == 0)
			return &op->bind[i];
	return NULL;
}

/* Scalar JSON value as a string for URIs, query strings, headers. */
static const char *
aws_scalar(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
	case json_type_int:
	case json_type_double:
	case json_type_boolean:
		return json_object_get_string(v);
	default:
		return NULL;
	}
}

static sw_err
aws_rest_uri(const struct aws_rest_op *op, json_object *in, struct sw_buf *path)
{
	const struct aws_binding *b;
	const char *p = op->uri, *close, *val;
	char label[64];
	size_t i, len;
	int greedy, found;
	json_object *v;
	sw_err rc;

	while (*p != '\0') {
		if (*p != '{') {
			len = strcspn(p, "{?");
			if ((rc = sw_buf_add(path, p, len)) != SW_OK)
				return rc;
			p += len;
			if (*p == '?')
				break;
			continue;
		}
		if ((close = strchr(p, '}')) == NULL ||
		    (size_t)(close - p - 1) >= sizeof(label))
			return SW_EINTERNAL;
		memcpy(label, p + 1, (size_t)(close - p - 1));
		label[close - p - 1] = '\0';
		greedy = label[0] != '\0' && label[strlen(label) - 1] == '+';
		if (greedy)
			label[strlen(label) - 1] = '\0';
		found = 0;
		for (i = 0; i < sizeof(op->bind) / sizeof(op->bind[0]) &&
		     op->bind[i].member != NULL;
		     i++) {
			b = &op->bind[i];
			if (b->loc != AWS_LOC_URI || strcmp(b->wire, label))
				continue;
			if (in == NULL ||
			    !json_object_object_get_ex(in, b->member, &v) ||
			    (val = aws_scalar(v)) == NULL || *val == '\0')
				return SW_EINVAL;
			if ((rc = sw_pct_encode(path, val, strlen(val),
				 greedy ? SW_PCT_KEEP_SLASH : 0)) != SW_OK)
				return rc;
			found = 1;
			break;
		}
		if (!found)
			return SW_EINTERNAL;
		p = close + 1;
	}
	return SW_OK;
}

static sw_err
aws_query_add(struct sw_buf *q, const char *key, const char *val)
{
	sw_err rc;

	if ((q->len > 0 && (rc = sw_buf_putc(q, '&')) != SW_OK) ||
	    (rc = sw_pct_encode(q, key, strlen(key), 0)) != SW_OK ||
	    (rc = sw_buf_putc(q, '=')) != SW_OK)
		return rc;
	return sw_pct_encode(q, val, strlen(val), 0);
}

static sw_err
aws_build_rest_json(const struct aws_rest_op *op, json_object *in,
    const char *base, struct http_request *req)
{
	const struct aws_binding *b;
	struct sw_buf path, q;
	json_object *body = NULL;
	const char *s;
	size_t i, n;
	sw_err rc;

	sw_buf_init(&path, SW_MAX_PATH);
	sw_buf_init(&q, SW_MAX_QUERY);
	if ((body = json_object_new_object()) == NULL) {
		rc = SW_ENOMEM;
		goto out;
	}
	if ((rc = aws_rest_uri(op, in, &path)) != SW_OK)
		goto out;
	if (in != NULL) {
		json_object_object_foreach(in, k, v)
		{
			if ((b = aws_rest_binding(op, k)) == NULL) {
				json_object_object_add(
				    body, k, json_object_get(v));
				continue;
			}
			if (b->loc != AWS_LOC_QUERY)
				continue;
			if (json_object_is_type(v, json_type_array)) {
				n = json_object_array_length(v);
				for (i = 0; i < n; i++) {
					s = aws_scalar(
					    json_object_array_get_idx(v, i));
					if (s != NULL &&
					    (rc = aws_query_add(
						 &q, b->wire, s)) != SW_OK)
						goto out;
				}
			} else if ((s = aws_scalar(v)) != NULL &&
			    (rc = aws_query_add(&q, b->wire, s)) != SW_OK)
				goto out;
		}
	}
	if ((rc = http_request_init(req, op->method, base, sw_buf_str(&path),
		 q.len > 0 ? sw_buf_str(&q) : NULL)) != SW_OK)
		goto out;
	if (in != NULL) {
		json_object_object_foreach(in, k, v)
		{
			if ((b = aws_rest_binding(op, k)) != NULL &&
			    b->loc == AWS_LOC_HEADER &&
			    (s = aws_scalar(v)) != NULL &&
			    (rc = http_headers_set(
				 &req->headers, b->wire, s)) != SW_OK)
				goto out;
		}
	}
	if (json_object_object_length(body) > 0 ||
	    strcmp(op->method, "POST") == 0 || strcmp(op->method, "PUT") == 0) {
		s = json_object_to_json_string_ext(body,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		if ((rc = http_headers_set(&req->headers, "Content-Type",
			 "application/json")) != SW_OK ||
		    (rc = http_request_set_body(req, s, strlen(s))) != SW_OK)
			goto out;
	}
out:
	if (rc != SW_OK)
		http_request_free(req);
	json_object_put(body);
	sw_buf_free(&path);
	sw_buf_free(&q);
	return rc;
}

/* Operation names are model identifiers: [A-Za-z0-9]+. */
static int
aws_op_ok(const char *op)
{
	size_t i;

	if (op == NULL || *op == '\0' || strlen(op) > 128)
		return 0;
	for (i = 0; op[i] != '\0'; i++)
		if (!isalnum((unsigned char)op[i]))
			return 0;
	return 1;
}

sw_err
aws_build_request(const struct aws_ctx *ctx, enum aws_service svc,
    const char *op, json_object *in, struct http_request *req)
{
	const struct aws_service_info *si;
	const struct aws_rest_op *rop;
	struct sw_buf body;
	char base[SW_AWS_MAX_URL];
	char reg[SW_AWS_MAX_NAME], target[256];
	const char *s;
	sw_err rc;

	memset(req, 0, sizeof(*req));
	sw_buf_init(&body, SW_MAX_UPSTREAM_BODY);
	if ((si = aws_service(svc)) == NULL || !aws_op_ok(op) ||
	    (in != NULL && !json_object_is_type(in, json_type_object))) {
		rc = SW_EINVAL;
		goto out;
	}
	if ((rc = aws_endpoint(
		 ctx, svc, base, sizeof(base), reg, sizeof(reg))) != SW_OK)
		goto out;
	switch (si->proto) {
	case AWS_PROTO_JSON:
		if ((rc = sw_fmt(target, sizeof(target), "%s.%s",
			 si->target_prefix, op)) != SW_OK)
			goto out;
		s = in != NULL ? json_object_to_json_string_ext(in,
				     JSON_C_TO_STRING_PLAIN |
					 JSON_C_TO_STRING_NOSLASHESCAPE)
			       : "{}";
		if ((rc = http_request_init(req, "POST", base, "/", NULL)) !=
			SW_OK ||
		    (rc = http_headers_add(&req->headers, "Content-Type",
			 "application/x-amz-json-1.1")) != SW_OK ||
		    (rc = http_headers_add(
			 &req->headers, "X-Amz-Target", target)) != SW_OK ||
		    (rc = http_request_set_body(req, s, strlen(s))) != SW_OK)
			goto out;
		break;
	case AWS_PROTO_REST_JSON:
		if ((rop = aws_rest_find(svc, op)) == NULL) {
			rc = SW_EINVAL;
			goto out;
		}
		rc = aws_build_rest_json(rop, in, base, req);
		goto out;
	case AWS_PROTO_QUERY:
	case AWS_PROTO_EC2:
		if ((rc = awsproto_form(&body, si->proto, op, si->api_version,
			 in,
			 si->proto == AWS_PROTO_EC2 ? aws_ec2_renames
						    : NULL)) != SW_OK)
			goto out;
		if ((rc = http_request_init(req, "POST", base, "/", NULL)) !=
			SW_OK ||
		    (rc = http_headers_add(&req->headers, "Content-Type",
			 "application/x-www-form-urlencoded; charset=utf-8")) !=
			SW_OK ||
		    (rc = http_request_set_body(req, body.data, body.len)) !=
			SW_OK)
			goto out;
		break;
	default:
		rc = SW_EINVAL;
		goto out;
	}
out:
	if (rc != SW_OK && req->method != NULL)
		http_request_free(req);
	sw_buf_free(&body);
	return rc;
}

struct aws_attempt {
	struct aws_ctx *ctx;
	const struct aws_service_info *si;
	enum aws_service svc;
	struct http_request *req;
	struct http_response *resp;
	const char *op; /* for metrics; or NULL */
	char region[SW_AWS_MAX_NAME];
};

/* One attempt in the metrics: by service, operation and outcome (ok,
 * the error code, or transport), and retries and throttles; and in the
 * log, with AWS's request id (a change or a failure at info, a read at
 * debug), under the request or operation the caller is serving. */
static void
aws_count(const struct aws_attempt *a, int attempt, sw_err rc,
    const struct aws_error *err)
{
	const char *op = a->op != NULL ? a->op : a->req->method;
	const char *outcome = rc == SW_OK ? "ok"
	    : err->transport              ? "transport"
	    : err->code[0] != '\0'        ? err->code
					  : "error";
	int change = a->op != NULL
	    ? aws_op_mutates(a->op)
	    : strcmp(op, "GET") != 0 && strcmp(op, "HEAD") != 0;
	enum sw_log_level level =
	    rc != SW_OK || change ? SW_LOG_INFO : SW_LOG_DEBUG;
	char rid[sizeof(err->request_id)];

	if (sw_log_enabled(level)) {
		if (rc == SW_OK)
			awsproto_request_id(
			    a->si->proto, a->resp, rid, sizeof(rid));
		else
			sw_fmt_text(rid, sizeof(rid), "%s", err->request_id);
		sw_log(level, "aws %s %s attempt %d: %s (aws request id %s)",
		    a->si->id, op, attempt, outcome, rid[0] ? rid : "none");
	}

	sw_metric_add("slipway_aws_requests_total", 1, "service", a->si->id,
	    "operation", op, "outcome", outcome, NULL);
	if (attempt > 1)
		sw_metric_add("slipway_aws_retries_total", 1, "service",
		    a->si->id, "operation", op, NULL);
	if (rc != SW_OK && err->throttling)
		sw_metric_add("slipway_aws_throttles_total", 1, "service",
		    a->si->id, "operation", op, NULL);
}

static sw_err
aws_attempt_once(void *arg, int attempt, struct aws_error *err)
{
	struct aws_attempt *a = arg;
	struct aws_creds cr;
	struct sigv4_params sp;
	char hdr[64];
	sw_err rc;
	int sent = 0;

	if ((rc = creds_get(&a->ctx->creds, &cr, err)) != SW_OK)
		goto out;
	if ((rc = sw_fmt(hdr, sizeof(hdr), "attempt=%d; max=%d", attempt,
		 a->ctx->retry.max_attempts)) != SW_OK ||
	    (rc = http_headers_set(&a->req->headers, "amz-sdk-request", hdr)) !=
		SW_OK ||
	    (rc = http_headers_set(
		 &a->req->headers, "User-Agent", AWS_USER_AGENT)) != SW_OK)
		goto out;
	memset(&sp, 0, sizeof(sp));
	sp.access_key = cr.access_key;
	sp.secret_key = cr.secret_key;
	sp.session_token = cr.token;
	sp.region = a->region;
	sp.service = a->si->signing_name;
	sp.when = a->ctx->clock();
	if (a->svc == AWS_SVC_S3)
		sp.flags = SIGV4_S3;
	if ((rc = sigv4_sign(a->req, &sp, NULL)) != SW_OK)
		goto out;
	sent = 1;
	if ((rc = http_perform(&a->ctx->http, a->req, a->resp)) != SW_OK) {
		aws_error_transport(err, rc, a->ctx->http.errmsg);
		goto out;
	}
	if (a->resp->status >= 200 && a->resp->status < 300) {
		rc = SW_OK;
		goto out;
	}
	awsproto_parse_error(a->si->proto, a->resp, err);
	rc = aws_error_sw(err);
out:
	memset(&cr, 0, sizeof(cr));
	if (sent)
		aws_count(a, attempt, rc, err);
	return rc;
}

static sw_err
aws_send_op(struct aws_ctx *ctx, enum aws_service svc, const char *op,
    struct http_request *req, struct http_response *resp, struct aws_error *err)
{
	struct aws_attempt a;
	char url[SW_AWS_MAX_URL];
	sw_err rc;

	aws_error_clear(err);
	memset(&a, 0, sizeof(a));
	a.op = op;
	a.ctx = ctx;
	a.svc = svc;
	a.req = req;
	a.resp = resp;
	if ((a.si = aws_service(svc)) == NULL)
		return SW_EINVAL;
	if ((rc = aws_endpoint(ctx, svc, url, sizeof(url), a.region,
		 sizeof(a.region))) != SW_OK)
		return rc;
	if (op != NULL && aws_op_mutates(op))
		return retry_run_once_only(
		    &ctx->retry, aws_attempt_once, &a, err);
	return retry_run(&ctx->retry, aws_attempt_once, &a, err);
}

int
aws_op_mutates(const char *op)
{
	static const char *const prefixes[] = { "Create", "Delete", "Update",
		"Put", "Attach", "Detach", "Associate", "Disassociate",
		"Authorize", "Revoke", "Allocate", "Release", "Modify", "Batch",
		"Tag", "Untag", "Replace", "Start", "Stop", "Reboot", "Extend",
		NULL };
	int i;

	for (i = 0; prefixes[i] != NULL; i++)
		if (strncmp(op, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

sw_err
aws_send(struct aws_ctx *ctx, enum aws_service svc, struct http_request *req,
    struct http_response *resp, struct aws_error *err)
{
	return aws_send_op(ctx, svc, NULL, req, resp, err);
}

static sw_err
aws_parse_json(const struct http_response *resp, json_object **out)
{
	json_tokener *tok;
	json_object *o;

	if (resp->body.len == 0) {
		*out = json_object_new_object();
		return *out != NULL ? SW_OK : SW_ENOMEM;
	}
	if ((tok = json_tokener_new_ex(SW_MAX_JSON_DEPTH * 4)) == NULL)
		return SW_ENOMEM;
	o = json_tokener_parse_ex(tok, resp->body.data, (int)resp->body.len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	*out = o;
	return o != NULL ? SW_OK : SW_EUPSTREAM;
}

static sw_err
aws_parse_xml(const struct http_response *resp, enum aws_protocol proto,
    const char *op, json_object **out)
{
	json_object *root, *res;
	char key[160];
	sw_err rc;

	*out = NULL;
	if (resp->body.len == 0) {
		*out = json_object_new_object();
		return *out != NULL ? SW_OK : SW_ENOMEM;
	}
	if ((rc = awsproto_xml_to_json(
		 resp->body.data, resp->body.len, &root)) != SW_OK)
		return rc;
	if (!json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		*out = json_object_new_object();
		return *out != NULL ? SW_OK : SW_ENOMEM;
	}
	if (proto == AWS_PROTO_QUERY &&
	    sw_fmt(key, sizeof(key), "%sResult", op) == SW_OK &&
	    json_object_object_get_ex(root, key, &res)) {
		if (json_object_is_type(res, json_type_object))
			*out = json_object_get(res);
		else
			*out = json_object_new_object();
		json_object_put(root);
		return *out != NULL ? SW_OK : SW_ENOMEM;
	}
	*out = root;
	return SW_OK;
}

/* An HTTP Date ("Sat, 05 Dec 2026 22:40:45 GMT") as a time, or 0. */
static time_t
aws_http_date(const char *s)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (s == NULL ||
	    (end = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm)) == NULL ||
	    *end != '\0')
		return 0;
	return timegm(&tm);
}

sw_err
aws_call(struct aws_ctx *ctx, enum aws_service svc, const char *op,
    json_object *in, json_object **out, struct aws_error *err)
{
	const struct aws_service_info *si;
	struct http_request req;
	struct http_response resp;
	sw_err rc;

	*out = NULL;
	aws_error_clear(err);
	memset(&req, 0, sizeof(req));
	http_response_init(&resp, ctx->http.max_body);
	if ((si = aws_service(svc)) == NULL ||
	    si->proto == AWS_PROTO_REST_XML) {
		rc = SW_EINVAL;
		goto out;
	}
	if ((rc = aws_build_request(ctx, svc, op, in, &req)) != SW_OK) {
		sw_fmt_text(err->code, sizeof(err->code), "InvalidInput");
		sw_fmt_text(err->message, sizeof(err->message),
		    "cannot build %s %s request", si->id, op);
		goto out;
	}
	if ((rc = aws_send_op(ctx, svc, op, &req, &resp, err)) != SW_OK)
		goto out;
	ctx->server_time =
	    aws_http_date(http_headers_get(&resp.headers, "date"));
	if (si->proto == AWS_PROTO_JSON || si->proto == AWS_PROTO_REST_JSON)
		rc = aws_parse_json(&resp, out);
	else
		rc = aws_parse_xml(&resp, si->proto, op, out);
	if (rc != SW_OK) {
		sw_fmt_text(err->code, sizeof(err->code), "MalformedResponse");
		sw_fmt_text(err->message, sizeof(err->message),
		    "%s %s: response body does not parse", si->id, op);
		err->http_status = resp.status;
	}
out:
	http_request_free(&req);
	http_response_free(&resp);
	return rc;
}

sw_err
sw_aws_setup(struct aws_ctx *aws, const struct sw_config *cfg)
{
	json_object *sb = sw_json_get(cfg->root, "sandbox_info");
	const char *ep = sw_json_get_str(sb, "aws_endpoint");
	const char *ak = sw_json_get_str(sb, "access_key_id");
	const char *sk = sw_json_get_str(sb, "secret_access_key");

	if (aws_ctx_init(aws, cfg->region) != SW_OK)
		return SW_EINTERNAL;
	/*
	 * Retry in process briefly only: one poller serves every operation,
	 * so a long sleep inside a call would stall them all.  A call still
	 * failing after that makes its stage WAIT, and the operation is
	 * retried later by the scheduler while the others go on.
	 */
	aws->retry.base_ms = 100;
	aws->retry.cap_ms = 1000;
	if (sb == NULL || ep == NULL)
		return SW_OK;
	/* The sandbox: its keys, never the chain (nor the environment). */
	if (ak == NULL || sk == NULL ||
	    creds_set_static(&aws->creds, ak, sk, NULL) != SW_OK)
		return SW_EINVAL;
	return aws_ctx_set_endpoint_all(aws, ep);
}
