/*
 * notify.c: the poller sends what the outbox holds (lib/notify.h).
 *
 * Each pass takes the deliveries that are due, one at a time under a
 * lease that counts the attempt, sends it, then records the outcome:
 * delivered, or again later (exponential backoff) until the last
 * attempt makes it a dead letter.  The record comes after the send, so
 * a poller killed between the two sends that delivery again once its
 * lease is released: delivery is at least once, and every copy carries
 * the same event id (the Slipway-Event-Id header, "id" in the body, an
 * SNS FIFO topic's MessageDeduplicationId) for the receiver to drop a
 * repeat by.  Nothing is lost: the event was written with the state
 * change that made it, and a delivery leaves the outbox only when it is
 * recorded delivered or dead.
 *
 * A webhook is a POST of the event as JSON (or a Slack message) with
 *   Slipway-Event-Id: ev-...
 *   Slipway-Timestamp: <unix seconds>
 *   Slipway-Signature: v1=<hex HMAC-SHA256(secret, timestamp "." body)>
 * and counts as delivered on a 2xx.  SNS gets Publish, EventBridge
 * PutEvents (source "slipway"), through the AWS client.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "cloud/aws.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "lib/url.h"
#include "poller/notify.h"

static int64_t
env_int(const char *name, int64_t dflt, int64_t lo, int64_t hi)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (v == NULL || *v == '\0')
		return dflt;
	n = strtoll(v, &end, 10);
	if (*end != '\0' || n < lo || n > hi) {
		sw_warn("%s=%s is not a number in %lld..%lld; using %lld", name,
		    v, (long long)lo, (long long)hi, (long long)dflt);
		return dflt;
	}
	return n;
}

sw_err
sw_notifier_init(struct sw_notifier *n, const char *owner)
{
	sw_err e;

	memset(n, 0, sizeof(*n));
	n->owner = owner;
	n->attempts =
	    (int)env_int("SLIPWAY_NOTIFY_ATTEMPTS", SW_NOTIFY_ATTEMPTS, 1, 100);
	n->backoff_ms = env_int("SLIPWAY_NOTIFY_BACKOFF_MS",
	    SW_NOTIFY_BACKOFF_MS, 10, SW_NOTIFY_BACKOFF_CAP_MS);
	if ((e = http_client_init(&n->http, HTTP_ALLOW_LOOPBACK)) != SW_OK)
		return e;
	n->http.timeout_ms = SW_NOTIFY_TIMEOUT_MS;
	n->http.connect_timeout_ms = 2000;
	n->http.max_body = 4096;
	return SW_OK;
}

void
sw_notifier_free(struct sw_notifier *n)
{
	http_client_free(&n->http);
}

/* ---- what is sent ----------------------------------------------------- */

/* The event as Slipway sends it (d: the delivery read, borrowed). */
static json_object *
event_json(json_object *d)
{
	json_object *detail = NULL, *o;
	const char *data = sw_json_get_str(d, "data");
	const char *op = sw_json_get_str(d, "op_id"); /* '': a budget's */
	char when[32], why[128];
	time_t t = (time_t)(sw_json_get_int(d, "time_ms", 0) / 1000);
	struct tm tm;

	if (data == NULL ||
	    sw_json_parse(data, strlen(data), &detail, why, sizeof(why)) !=
		SW_OK)
		detail = json_object_new_object();
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		when[0] = '\0';
	o = sw_jo("id", sw_js(sw_json_get_str(d, "uid")), "kind",
	    sw_js(sw_json_get_str(d, "kind")), "time", sw_js(when), "time_ms",
	    sw_ji(sw_json_get_int(d, "time_ms", 0)), "operation_id",
	    op != NULL && *op != '\0' ? sw_js(op) : NULL, "cluster",
	    sw_js(sw_json_get_str(d, "cluster")), "detail", detail, NULL);
	return o;
}

/* A budget's line: "budget team/a crossed 80 % in 2026-12: ...". */
static void
slack_budget(struct sw_buf *b, json_object *ev)
{
	json_object *det = sw_json_get(ev, "detail");
	json_object *f = sw_json_get(det, "forecast_usd");

	(void)sw_buf_printf(b,
	    "Slipway: budget %s/%s crossed %lld %% in %s:"
	    " $%.2f spent of $%.2f",
	    sw_json_get_str(det, "scope") ?: "",
	    sw_json_get_str(det, "name") ?: "",
	    (long long)sw_json_get_int(det, "threshold", 0),
	    sw_json_get_str(det, "month") ?: "",
	    json_object_get_double(sw_json_get(det, "spent_usd")),
	    json_object_get_double(sw_json_get(det, "limit_usd")));
	if (f != NULL)
		(void)sw_buf_printf(
		    b, ", forecast $%.2f", json_object_get_double(f));
	(void)sw_buf_printf(b, " [event %s]", sw_json_get_str(ev, "id") ?: "");
}

/* A plan's: "training plan p5 ends at ...: 2 workloads lose nodes". */
static void
slack_plan(struct sw_buf *b, json_object *ev)
{
	json_object *det = sw_json_get(ev, "detail");
	json_object *w = sw_json_get(det, "workloads");
	size_t i, n = w ? json_object_array_length(w) : 0;

	(void)sw_buf_printf(b, "Slipway: training plan %s ends at %s",
	    sw_json_get_str(det, "plan") ?: "",
	    sw_json_get_str(det, "end_time") ?: "");
	(void)sw_buf_printf(b, "; %zu workload(s) lose their nodes", n);
	for (i = 0; i < n && i < 20; i++)
		(void)sw_buf_printf(b, "%s %s/%s", i ? "," : ":",
		    sw_json_get_str(
			json_object_array_get_idx(w, i), "namespace")
			?: "",
		    sw_json_get_str(json_object_array_get_idx(w, i), "name")
			?: "");
	(void)sw_buf_printf(b, " [event %s]", sw_json_get_str(ev, "id") ?: "");
}

/* An operation's: "cluster.create hp1: failed at stage eks: ...". */
static void
slack_op(struct sw_buf *b, json_object *ev)
{
	json_object *det = sw_json_get(ev, "detail");

	(void)sw_buf_printf(b, "Slipway: %s %s %s",
	    sw_json_get_str(det, "kind") ?: "operation",
	    sw_json_get_str(det, "target") ?: "",
	    sw_json_get_str(det, "state") ?: "");
	if (sw_json_get_str(det, "stage") != NULL)
		(void)sw_buf_printf(
		    b, " (stage %s)", sw_json_get_str(det, "stage"));
	if (sw_json_get_str(det, "error") != NULL)
		(void)sw_buf_printf(
		    b, ": %.1000s", sw_json_get_str(det, "error"));
	(void)sw_buf_printf(b, " [%s, event %s]",
	    sw_json_get_str(ev, "operation_id") ?: "",
	    sw_json_get_str(ev, "id") ?: "");
}

/* A watched change's: "job.failed: HyperPodPyTorchJob ns/x on w1 is
 * Failed (was Running): ..." (poller/watch.c). */
static void
slack_watch(struct sw_buf *b, json_object *ev)
{
	json_object *det = sw_json_get(ev, "detail");
	const char *why = sw_json_get_str(det, "message") ?:
	    sw_json_get_str(det, "reason") ?:
	    sw_json_path_str(det, "event.Description");

	(void)sw_buf_printf(b, "Slipway: %s: %s on %s",
	    sw_json_get_str(ev, "kind") ?: "",
	    sw_json_get_str(det, "subject") ?: "",
	    sw_json_get_str(ev, "cluster") ?: "");
	if (sw_json_get_str(det, "state") != NULL)
		(void)sw_buf_printf(b, " is %s", sw_json_get_str(det, "state"));
	if (sw_json_get_str(det, "previous") != NULL)
		(void)sw_buf_printf(
		    b, " (was %s)", sw_json_get_str(det, "previous"));
	if (why != NULL)
		(void)sw_buf_printf(b, ": %.1000s", why);
	(void)sw_buf_printf(b, " [event %s]", sw_json_get_str(ev, "id") ?: "");
}

/* One line for people, as a Slack incoming-webhook message. */
static json_object *
slack_json(json_object *ev)
{
	struct sw_buf b;
	json_object *o;

	sw_buf_init(&b, 3000);
	if (strcmp(sw_json_get_str(ev, "kind") ?: "", "budget.threshold") == 0)
		slack_budget(&b, ev);
	else if (strcmp(sw_json_get_str(ev, "kind") ?: "",
		     "training_plan.expiring") == 0)
		slack_plan(&b, ev);
	else if (sw_json_get_str(sw_json_get(ev, "detail"), "subject") != NULL)
		slack_watch(&b, ev);
	else
		slack_op(&b, ev);
	o = sw_jo("text", sw_js(b.data ? b.data : "Slipway event"), NULL);
	sw_buf_free(&b);
	return o;
}

/* "v1=" and the hex HMAC-SHA256 of ts "." body under secret. */
static sw_err
signature(
    const char *secret, const char *ts, const char *body, char out[3 + 65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	struct sw_buf msg;
	sw_err e;

	sw_buf_init(&msg, SW_NOTIFY_MAX_BODY + 64);
	if ((e = sw_buf_printf(&msg, "%s.%s", ts, body)) != SW_OK)
		goto out;
	if (HMAC(EVP_sha256(), secret, (int)strlen(secret),
		(const unsigned char *)msg.data, msg.len, md, &mdlen) == NULL ||
	    mdlen != 32) {
		e = SW_EINTERNAL;
		goto out;
	}
	memcpy(out, "v1=", 3);
	sw_hex_encode(md, 32, out + 3);
out:
	sw_buf_free(&msg);
	return e;
}

/* ---- the three targets ------------------------------------------------- */

/* "https://h:p/x?q" into its base, path and query (buffers of sz). */
static int
url_split(const char *url, char *base, char *path, char *query, size_t sz)
{
	const char *p = strstr(url, "://"), *q;
	size_t n;

	if (p == NULL)
		return -1;
	p += 3;
	n = strcspn(p, "/?#");
	if ((size_t)(p + n - url) >= sz)
		return -1;
	memcpy(base, url, (size_t)(p + n - url));
	base[p + n - url] = '\0';
	p += n;
	q = strchr(p, '?');
	n = q ? (size_t)(q - p) : strcspn(p, "#");
	if (n + 2 > sz || (q != NULL && strlen(q + 1) + 1 > sz))
		return -1;
	if (n == 0)
		memcpy(path, "/", 2);
	else {
		memcpy(path, p, n);
		path[n] = '\0';
	}
	if (q != NULL) {
		n = strcspn(q + 1, "#");
		memcpy(query, q + 1, n);
		query[n] = '\0';
	} else
		query[0] = '\0';
	return 0;
}

static sw_err
webhook_headers(struct http_request *req, json_object *d, const char *body)
{
	char ts[24], sig[3 + 65];
	const char *secret = sw_json_get_str(d, "secret");
	sw_err e;

	if ((e = sw_fmt(ts, sizeof(ts), "%lld", (long long)time(NULL))) !=
		SW_OK ||
	    (e = signature(secret ? secret : "", ts, body, sig)) != SW_OK)
		return e;
	if ((e = http_headers_set(
		 &req->headers, "Content-Type", "application/json")) != SW_OK ||
	    (e = http_headers_set(
		 &req->headers, "User-Agent", "Slipway-Notify/1")) != SW_OK ||
	    (e = http_headers_set(&req->headers, "Slipway-Event-Id",
		 sw_json_get_str(d, "uid"))) != SW_OK ||
	    (e = http_headers_set(&req->headers, "Slipway-Timestamp", ts)) !=
		SW_OK)
		return e;
	return http_headers_set(&req->headers, "Slipway-Signature", sig);
}

/* POST body to the webhook; why says what went wrong. */
static sw_err
send_webhook(struct sw_notifier *n, json_object *d, const char *body, char *why,
    size_t whysz)
{
	char base[2100], path[2100], query[2100];
	struct http_request req;
	struct http_response resp;
	sw_err e;

	memset(&req, 0, sizeof(req));
	http_response_init(&resp, n->http.max_body);
	if (url_split(sw_json_get_str(d, "address"), base, path, query,
		sizeof(base)) != 0) {
		sw_fmt_text(why, whysz, "the URL does not parse");
		e = SW_EINVAL;
		goto out;
	}
	if ((e = http_request_init(
		 &req, "POST", base, path, query[0] ? query : NULL)) != SW_OK ||
	    (e = http_request_set_body(&req, body, strlen(body))) != SW_OK ||
	    (e = webhook_headers(&req, d, body)) != SW_OK) {
		sw_fmt_text(why, whysz, "cannot build the request");
		goto out;
	}
	if ((e = http_perform(&n->http, &req, &resp)) != SW_OK)
		sw_fmt_text(why, whysz, "%s",
		    n->http.errmsg[0] ? n->http.errmsg : sw_err_slug(e));
	else if (resp.status < 200 || resp.status > 299) {
		sw_fmt_text(
		    why, whysz, "HTTP %ld from the receiver", resp.status);
		e = SW_EUPSTREAM;
	}
out:
	http_request_free(&req);
	http_response_free(&resp);
	return e;
}

static sw_err
aws_fail(
    struct aws_error *err, const char *op, sw_err e, char *why, size_t whysz)
{
	sw_fmt_text(why, whysz, "%s: %s: %s", op,
	    err->code[0] ? err->code : sw_err_slug(e), err->message);
	return e;
}

static sw_err
send_sns(struct aws_ctx *aws, json_object *d, const char *body, char *why,
    size_t whysz)
{
	const char *arn = sw_json_get_str(d, "address");
	const char *uid = sw_json_get_str(d, "uid");
	size_t len = strlen(arn);
	int fifo = len > 5 && strcmp(arn + len - 5, ".fifo") == 0;
	struct aws_error err;
	json_object *out = NULL;
	char subject[100];
	sw_err e;

	memset(&err, 0, sizeof(err));
	sw_fmt_text(
	    subject, sizeof(subject), "Slipway %s", sw_json_get_str(d, "kind"));
	e = aws_call(aws, AWS_SVC_SNS, "Publish",
	    sw_jo("TopicArn", sw_js(arn), "Subject", sw_js(subject), "Message",
		sw_js(body), "MessageGroupId", fifo ? sw_js("slipway") : NULL,
		"MessageDeduplicationId", fifo ? sw_js(uid) : NULL, NULL),
	    &out, &err);
	json_object_put(out);
	return e == SW_OK ? SW_OK : aws_fail(&err, "Publish", e, why, whysz);
}

static sw_err
send_eventbridge(struct aws_ctx *aws, json_object *d, const char *body,
    char *why, size_t whysz)
{
	struct aws_error err;
	json_object *out = NULL, *in, *first;
	char type[96];
	sw_err e;

	memset(&err, 0, sizeof(err));
	sw_fmt_text(
	    type, sizeof(type), "Slipway %s", sw_json_get_str(d, "kind"));
	in = sw_jo("Entries",
	    sw_ja(sw_jo("Source", sw_js("slipway"), "DetailType", sw_js(type),
		"Detail", sw_js(body), "EventBusName",
		sw_js(sw_json_get_str(d, "address")), NULL)),
	    NULL);
	e = aws_call(aws, AWS_SVC_EVENTS, "PutEvents", in, &out, &err);
	json_object_put(in);
	if (e != SW_OK)
		return aws_fail(&err, "PutEvents", e, why, whysz);
	/* A 200 may still have failed the entry. */
	first = json_object_array_get_idx(sw_json_get(out, "Entries"), 0);
	if (sw_json_get_int(out, "FailedEntryCount", 0) > 0 ||
	    sw_json_get_str(first, "EventId") == NULL) {
		sw_fmt_text(why, whysz, "PutEvents: %s: %s",
		    sw_json_get_str(first, "ErrorCode") ?: "no EventId",
		    sw_json_get_str(first, "ErrorMessage") ?: "");
		e = SW_EUPSTREAM;
	}
	json_object_put(out);
	return e;
}

/* Send the delivery d (as read by sw_delivery_take) once. */
static sw_err
send_one(struct sw_notifier *n, struct aws_ctx *aws, json_object *d, char *why,
    size_t whysz)
{
	const char *target = sw_json_get_str(d, "target");
	json_object *ev = event_json(d), *msg;
	const char *body;
	sw_err e;

	msg = strcmp(sw_json_get_str(d, "format"), "slack") == 0 &&
		strcmp(target, "webhook") == 0
	    ? slack_json(ev)
	    : json_object_get(ev);
	body = json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN);
	if (strlen(body) > SW_NOTIFY_MAX_BODY) {
		sw_fmt_text(why, whysz, "the event is over %d bytes",
		    SW_NOTIFY_MAX_BODY);
		e = SW_ETOOBIG;
	} else if (strcmp(target, "webhook") == 0)
		e = send_webhook(n, d, body, why, whysz);
	else if (strcmp(target, "sns") == 0)
		e = send_sns(aws, d, body, why, whysz);
	else
		e = send_eventbridge(aws, d, body, why, whysz);
	json_object_put(msg);
	json_object_put(ev);
	return e;
}

/* The delay before attempt (attempts + 1): backoff doubled each time. */
static int64_t
retry_delay(const struct sw_notifier *n, int64_t attempts)
{
	int64_t d = n->backoff_ms;

	while (--attempts > 0 && d < SW_NOTIFY_BACKOFF_CAP_MS)
		d *= 2;
	return d < SW_NOTIFY_BACKOFF_CAP_MS ? d : SW_NOTIFY_BACKOFF_CAP_MS;
}

/* One attempt at ref; 0 when it was sent, -1 when not. */
static int
deliver(struct sw_notifier *n, struct sw_db *db, struct aws_ctx *aws,
    const struct sw_delivery_ref *ref)
{
	json_object *d = NULL;
	char why[512];
	int64_t attempts;
	int sent;
	sw_err e;

	if (sw_delivery_take(db, ref, n->owner, SW_NOTIFY_LEASE_MS, &d) !=
	    SW_OK)
		return 0;
	why[0] = '\0';
	e = send_one(n, aws, d, why, sizeof(why));
	sent = e == SW_OK;
	attempts = sw_json_get_int(d, "attempts", 1);
	if (e == SW_OK)
		e = sw_delivery_done(db, ref, n->owner);
	else {
		if (attempts >= n->attempts)
			sw_warn("notification %s to %s: dead after %lld "
				"attempts: %s",
			    sw_json_get_str(d, "uid"), ref->sub,
			    (long long)attempts, why);
		e = sw_delivery_retry(db, ref, n->owner,
		    retry_delay(n, attempts), why, n->attempts);
	}
	if (e != SW_OK)
		sw_warn("notification %s to %s: the outcome was not recorded; "
			"it is sent again once its lease ends",
		    sw_json_get_str(d, "uid"), ref->sub);
	json_object_put(d);
	return sent ? 0 : -1;
}

/* Did a send to sub fail earlier in this pass (failed[0..nf))? */
static int
failed_before(char failed[][64], size_t nf, const char *sub)
{
	size_t i;

	for (i = 0; i < nf; i++)
		if (strcmp(failed[i], sub) == 0)
			return 1;
	return 0;
}

size_t
sw_notify_tick(struct sw_notifier *n, struct sw_db *db, struct aws_ctx *aws)
{
	struct sw_delivery_ref refs[SW_NOTIFY_BATCH];
	char failed[SW_NOTIFY_BATCH][64];
	int64_t until = sw_now_ms() + SW_NOTIFY_PASS_MS;
	size_t i, nf = 0, count = 0;

	if (sw_delivery_due(
		db, sw_db_now_ms(db), refs, SW_NOTIFY_BATCH, &count) != SW_OK)
		return 0;
	/*
	 * A pass is bounded, for operations wait behind it: it ends after
	 * SW_NOTIFY_PASS_MS, and a subscription whose send failed is not
	 * tried again in the same pass (a receiver that is down or slow
	 * costs one timeout per pass, not one per event).  What is left
	 * stays due for the next pass.
	 */
	for (i = 0; i < count && sw_now_ms() < until; i++) {
		if (failed_before(failed, nf, refs[i].sub))
			continue;
		if (deliver(n, db, aws, &refs[i]) != 0)
			memcpy(failed[nf++], refs[i].sub, sizeof(failed[0]));
	}
	return count;
}
