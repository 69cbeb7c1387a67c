/*
 * test-retry.c: AWS standard retry mode.  Sleep and randomness are
 * injected, so the test records every delay instead of waiting: a
 * throttled call is retried with growing delays, a terminal error is
 * returned at once, attempts and the token bucket are bounded, a call
 * that must not be sent twice is retried after throttling only, and a
 * real aws_call against a fake endpoint retries the same way.
 */
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "cloud/retry.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

struct rec {
	long delays[16];
	int n;
	double r;
};

static void
rec_sleep(void *arg, long ms)
{
	struct rec *r = arg;

	if (r->n < 16)
		r->delays[r->n] = ms;
	r->n++;
}

static double
rec_rand(void *arg)
{
	return ((struct rec *)arg)->r;
}

struct script {
	const char *codes[8]; /* per attempt; NULL = success */
	long status[8];
	int transport[8];
	int calls;
};

static sw_err
scripted(void *arg, int attempt, struct aws_error *err)
{
	struct script *s = arg;
	int i = attempt - 1;

	s->calls++;
	if (s->transport[i]) {
		aws_error_transport(err, SW_ETIMEOUT, "timed out");
		return SW_ETIMEOUT;
	}
	if (s->codes[i] == NULL)
		return SW_OK;
	snprintf(err->code, sizeof(err->code), "%s", s->codes[i]);
	err->http_status = s->status[i];
	retry_flag(err);
	return aws_error_sw(err);
}

static void
policy(struct retry_policy *p, struct rec *r, double rnd)
{
	memset(r, 0, sizeof(*r));
	r->r = rnd;
	retry_init(p);
	p->sleep_ms = rec_sleep;
	p->rand01 = rec_rand;
	p->arg = r;
}

static void
test_policy(void)
{
	struct retry_policy p;
	struct rec r;
	struct aws_error e;
	struct script s;
	sw_err rc;

	is_int(retry_is_throttle_code("SlowDown"), 1, "SlowDown throttles");
	is_int(retry_is_throttle_code("ValidationException"), 0,
	    "ValidationException does not");
	policy(&p, &r, 0.999);
	is_int(retry_backoff_cap_ms(&p, 1), 1000, "first retry: up to 1 s");
	is_int(retry_backoff_cap_ms(&p, 2), 2000, "second retry: up to 2 s");
	is_int(retry_backoff_cap_ms(&p, 5), 16000, "fifth: up to 16 s");
	is_int(retry_backoff_cap_ms(&p, 9), 20000, "capped at 20 s");

	/* Throttled twice, then fine. */
	memset(&s, 0, sizeof(s));
	s.codes[0] = s.codes[1] = "ThrottlingException";
	s.status[0] = s.status[1] = 400;
	rc = retry_run(&p, scripted, &s, &e);
	is_int(rc, SW_OK, "throttling: succeeds on the third attempt");
	is_int(s.calls, 3, "throttling: three attempts");
	is_int(r.n, 2, "throttling: two waits");
	ok(r.delays[0] > 0 && r.delays[1] > r.delays[0],
	    "throttling: delays grow (%ld ms, %ld ms)", r.delays[0],
	    r.delays[1]);
	ok(r.delays[0] <= 1000 && r.delays[1] <= 2000,
	    "throttling: delays within full-jitter bounds");
	is_int(p.tokens, 500, "bucket refilled by what the call took");

	/* Terminal error: at once, no wait, no tokens. */
	policy(&p, &r, 0.5);
	memset(&s, 0, sizeof(s));
	s.codes[0] = "ValidationException";
	s.status[0] = 400;
	rc = retry_run(&p, scripted, &s, &e);
	is_int(rc, SW_EUPSTREAM, "terminal: the error comes back");
	is_int(s.calls, 1, "terminal: one attempt");
	is_int(r.n, 0, "terminal: no wait");
	is_str(e.code, "ValidationException", "terminal: error kept");
	is_int(p.tokens, 500, "terminal: no token spent");

	/* Always throttled: three attempts, then the error. */
	policy(&p, &r, 0.5);
	memset(&s, 0, sizeof(s));
	s.codes[0] = s.codes[1] = s.codes[2] = "Throttling";
	s.status[0] = s.status[1] = s.status[2] = 400;
	rc = retry_run(&p, scripted, &s, &e);
	is_int(rc, SW_ETHROTTLED, "exhausted: SW_ETHROTTLED");
	is_int(s.calls, 3, "exhausted: max attempts 3");
	is_int(p.tokens, 490, "exhausted: two retries cost 5 each");
	is_int(r.delays[0], 500, "jitter 0.5 of 1 s");
	is_int(r.delays[1], 1000, "jitter 0.5 of 2 s");

	/* Transient 503 and a timeout (which costs 10). */
	policy(&p, &r, 0.0);
	memset(&s, 0, sizeof(s));
	s.codes[0] = "ServiceUnavailable";
	s.status[0] = 503;
	s.transport[1] = 1;
	rc = retry_run(&p, scripted, &s, &e);
	is_int(rc, SW_OK, "503 then timeout then success");
	is_int(p.tokens, 500, "refund after success");
	policy(&p, &r, 0.0);
	memset(&s, 0, sizeof(s));
	s.transport[0] = s.transport[1] = s.transport[2] = 1;
	retry_run(&p, scripted, &s, &e);
	is_int(p.tokens, 480, "timeouts cost 10 per retry");

	/* An empty bucket stops retrying. */
	policy(&p, &r, 0.0);
	p.tokens = 7;
	memset(&s, 0, sizeof(s));
	s.codes[0] = s.codes[1] = s.codes[2] = "RequestLimitExceeded";
	rc = retry_run(&p, scripted, &s, &e);
	is_int(s.calls, 2, "bucket: one retry paid, the next refused");
	is_int(p.tokens, 2, "bucket: 7 - 5");

	/* A call that must not be sent twice: a 503 or no answer may mean
	 * it was applied, so it comes back at once (still retryable, for
	 * the caller to read the state and decide); a throttling answer
	 * is a refusal and is tried again. */
	policy(&p, &r, 0.0);
	memset(&s, 0, sizeof(s));
	s.codes[0] = "ServiceUnavailable";
	s.status[0] = 503;
	rc = retry_run_once_only(&p, scripted, &s, &e);
	is_int(s.calls, 1, "once only: a 503 is not sent again");
	ok(rc != SW_OK && e.retryable,
	    "once only: the 503 comes back, "
	    "retryable");
	policy(&p, &r, 0.0);
	memset(&s, 0, sizeof(s));
	s.transport[0] = 1;
	rc = retry_run_once_only(&p, scripted, &s, &e);
	is_int(s.calls, 1, "once only: no answer is not sent again");
	ok(rc != SW_OK && e.transport,
	    "once only: the transport error "
	    "comes back");
	policy(&p, &r, 0.0);
	memset(&s, 0, sizeof(s));
	s.codes[0] = "ThrottlingException";
	s.status[0] = 400;
	rc = retry_run_once_only(&p, scripted, &s, &e);
	ok(rc == SW_OK && s.calls == 2,
	    "once only: throttled, then sent "
	    "again and answered");

	/* First-try success puts one token back, up to the maximum. */
	policy(&p, &r, 0.0);
	p.tokens = 100;
	memset(&s, 0, sizeof(s));
	retry_run(&p, scripted, &s, &e);
	is_int(p.tokens, 101, "first-try success refills 1");
}

static int n_throttle, n_unavailable;

static void
handler(void *arg, const struct fake_req *req, struct fake_reply *rep)
{
	(void)arg;
	(void)req;
	if (n_throttle > 0) {
		n_throttle--;
		rep->status = 400;
		snprintf(rep->headers, sizeof(rep->headers),
		    "Content-Type: application/x-amz-json-1.1\r\n"
		    "x-amzn-RequestId: t-1\r\n");
		rep->body = "{\"__type\":\"ThrottlingException\","
			    "\"message\":\"Rate exceeded\"}";
	} else if (n_unavailable > 0) {
		n_unavailable--;
		rep->status = 503;
		snprintf(rep->headers, sizeof(rep->headers),
		    "Content-Type: application/x-amz-json-1.1\r\n");
		rep->body = "{\"__type\":\"ServiceUnavailable\","
			    "\"message\":\"try later\"}";
	} else
		rep->body = "{\"ClusterSummaries\":[],\"NextToken\":null}";
	rep->body_len = strlen(rep->body);
}

static void
test_call(void)
{
	struct fake_server *srv;
	struct aws_ctx ctx;
	struct aws_error err;
	struct rec r;
	json_object *out = NULL;
	char url[64];
	int before;
	sw_err rc;

	if ((srv = fake_start(handler, NULL, NULL, NULL)) == NULL) {
		ok(0, "fake server starts");
		return;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", fake_port(srv));
	aws_ctx_init(&ctx, "us-west-2");
	aws_ctx_set_endpoint_all(&ctx, url);
	creds_set_static(&ctx.creds, "AKIDEXAMPLE", "secret", NULL);
	memset(&r, 0, sizeof(r));
	r.r = 0.75;
	ctx.retry.sleep_ms = rec_sleep;
	ctx.retry.rand01 = rec_rand;
	ctx.retry.arg = &r;
	n_throttle = 2;
	rc =
	    aws_call(&ctx, AWS_SVC_SAGEMAKER, "ListClusters", NULL, &out, &err);
	is_int(rc, SW_OK, "aws_call: throttled twice, then answered");
	is_int(fake_count(srv), 3, "aws_call: three requests sent");
	ok(r.n == 2 && r.delays[0] == 750 && r.delays[1] == 1500,
	    "aws_call: waits 750 ms then 1500 ms");
	ok(out != NULL && json_object_object_get(out, "ClusterSummaries"),
	    "aws_call: output parsed");
	json_object_put(out);
	n_throttle = 5;
	r.n = 0;
	rc =
	    aws_call(&ctx, AWS_SVC_SAGEMAKER, "ListClusters", NULL, &out, &err);
	is_int(rc, SW_ETHROTTLED, "aws_call: still throttled after 3 tries");
	ok(out == NULL, "aws_call: no output on failure");
	is_str(err.code, "ThrottlingException", "aws_call: typed error code");
	is_str(err.request_id, "t-1", "aws_call: request id");
	ok(err.throttling && err.retryable && err.http_status == 400,
	    "aws_call: error flags");
	/* A 503 to a read is tried again; to a mutation it is not (the
	 * change may have been made). */
	n_throttle = 0;
	n_unavailable = 1;
	before = fake_count(srv);
	rc =
	    aws_call(&ctx, AWS_SVC_SAGEMAKER, "ListClusters", NULL, &out, &err);
	ok(rc == SW_OK && fake_count(srv) - before == 2,
	    "aws_call: a read answered 503 is sent again");
	json_object_put(out);
	n_unavailable = 1;
	before = fake_count(srv);
	rc = aws_call(
	    &ctx, AWS_SVC_SAGEMAKER, "UpdateCluster", NULL, &out, &err);
	ok(rc != SW_OK && fake_count(srv) - before == 1 && err.retryable,
	    "aws_call: UpdateCluster answered 503 is sent once, and the "
	    "error says retryable");
	n_throttle = 1;
	before = fake_count(srv);
	rc = aws_call(
	    &ctx, AWS_SVC_SAGEMAKER, "UpdateCluster", NULL, &out, &err);
	ok(rc == SW_OK && fake_count(srv) - before == 2,
	    "aws_call: UpdateCluster throttled is sent again");
	json_object_put(out);
	is_int(aws_op_mutates("BatchRebootClusterNodes"), 1,
	    "BatchRebootClusterNodes mutates");
	is_int(aws_op_mutates("ExtendTrainingPlan"), 1,
	    "ExtendTrainingPlan mutates (it buys capacity)");
	is_int(
	    aws_op_mutates("DescribeCluster"), 0, "DescribeCluster does not");
	aws_ctx_free(&ctx);
	fake_stop(srv);
}

int
main(void)
{
	test_policy();
	test_call();
	return tap_done();
}
