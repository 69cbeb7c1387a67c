/*
 * test-k8s.c: the Kubernetes client against a fake API server over
 * TLS with a freshly made self-signed CA (pinned from memory, as the
 * EKS cluster CA is): bearer tokens and 401 refresh, server-side apply
 * and merge patch wire format, get/list/create/delete, Status errors,
 * watch streams with bookmarks and an in-stream 410 Gone (re-list),
 * and a followed pod log arriving in chunks.  Odd answers (a list
 * whose items is not an array, a watch event with a null type, a
 * Status message that is not valid UTF-8 or is cut inside a character)
 * are errors with text that can be quoted, never a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/k8s.h"
#include "cloud/k8sparse.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

static struct {
	char method[16];
	char target[4096];
	char ctype[128];
	char auth[256];
	char body[4096];
	int watches;
	int gone_once;
} last;

#define POD \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":" \
	"\"p1\",\"namespace\":\"default\",\"resourceVersion\":\"7\"}}"

static void
reply(struct fake_reply *rep, int status, const char *body)
{
	rep->status = status;
	snprintf(rep->headers, sizeof(rep->headers),
	    "Content-Type: application/json\r\n");
	rep->body = body;
	rep->body_len = strlen(body);
}

static void
handler(void *arg, const struct fake_req *req, struct fake_reply *rep)
{
	static char echo[4096];
	const char *t = req->target;

	(void)arg;
	snprintf(last.method, sizeof(last.method), "%s", req->method);
	snprintf(last.target, sizeof(last.target), "%s", t);
	snprintf(last.body, sizeof(last.body), "%s", req->body);
	last.ctype[0] = last.auth[0] = '\0';
	fake_header(req, "Content-Type", last.ctype, sizeof(last.ctype));
	fake_header(req, "Authorization", last.auth, sizeof(last.auth));
	if (strcmp(last.auth, "Bearer old") == 0) {
		reply(rep, 401,
		    "{\"kind\":\"Status\",\"status\":\"Failure\","
		    "\"reason\":\"Unauthorized\",\"code\":401}");
		return;
	}
	/* An API server (or what stands in its place) answering oddly. */
	if (strstr(t, "/namespaces/odd/") != NULL) {
		if (strstr(t, "watch=1") != NULL)
			reply(rep, 200, "{\"type\":null,\"object\":{}}\n");
		else if (strstr(t, "/pods/p1") != NULL)
			reply(rep, 403,
			    "{\"kind\":\"Status\",\"message\":"
			    "\"no \xff here\",\"reason\":\"Forbidden\","
			    "\"code\":403}");
		else if (strstr(t, "/pods/p2") != NULL)
			reply(rep, 200, "[1,2]");
		else
			reply(rep, 200, "{\"kind\":\"List\",\"items\":5}");
		return;
	}
	if (strstr(t, "/log?") != NULL) {
		rep->status = 200;
		rep->body = "line 1\nline 2\nline 3\nline 4\nline 5\n";
		rep->body_len = strlen(rep->body);
		rep->chunks = 4;
		return;
	}
	if (strstr(t, "watch=1") != NULL) {
		last.watches++;
		rep->chunks = 3;
		if (last.gone_once && last.watches == 1) {
			reply(rep, 200,
			    "{\"type\":\"ERROR\",\"object\":{"
			    "\"kind\":\"Status\",\"status\":\"Failure\","
			    "\"message\":\"too old resource version\","
			    "\"reason\":\"Expired\",\"code\":410}}\n");
			rep->chunks = 1;
			return;
		}
		reply(rep, 200,
		    "{\"type\":\"ADDED\",\"object\":{\"metadata\":"
		    "{\"name\":\"a\",\"resourceVersion\":\"101\"}}}\n"
		    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":"
		    "{\"resourceVersion\":\"150\"}}}\n"
		    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":"
		    "{\"name\":\"a\",\"resourceVersion\":\"160\"}}}\n"
		    "{\"type\":\"DELETED\",\"object\":{\"metadata\":"
		    "{\"name\":\"a\",\"resourceVersion\":\"170\"}}}");
		rep->chunks = 3;
		return;
	}
	if (strstr(t, "/pods/missing") != NULL) {
		reply(rep, 404,
		    "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
		    "\"metadata\":{},\"status\":\"Failure\",\"message\":"
		    "\"pods \\\"missing\\\" not found\","
		    "\"reason\":\"NotFound\","
		    "\"details\":{\"name\":\"missing\",\"kind\":\"pods\"},"
		    "\"code\":404}");
		return;
	}
	if (strstr(t, "/pods/busy") != NULL) {
		reply(rep, 429,
		    "{\"kind\":\"Status\",\"status\":\"Failure\","
		    "\"reason\":\"TooManyRequests\",\"details\":{"
		    "\"retryAfterSeconds\":3},\"code\":429}");
		return;
	}
	if (strcmp(req->method, "PATCH") == 0 ||
	    strcmp(req->method, "POST") == 0) {
		snprintf(echo, sizeof(echo), "%s", req->body);
		reply(rep, strcmp(req->method, "POST") == 0 ? 201 : 200, echo);
		return;
	}
	if (strcmp(req->method, "DELETE") == 0) {
		reply(rep, 200, "{\"kind\":\"Status\",\"status\":\"Success\"}");
		return;
	}
	if (strstr(t, "/pods?") != NULL ||
	    (strlen(t) > 5 && strcmp(t + strlen(t) - 5, "/pods") == 0)) {
		reply(rep, 200,
		    "{\"kind\":\"List\",\"metadata\":{"
		    "\"resourceVersion\":\"100\"},\"items\":[" POD "]}");
		return;
	}
	reply(rep, 200, POD);
}

struct events {
	char seen[512];
	int n;
	int stop_after;
};

static int
on_event(void *arg, const char *type, json_object *obj)
{
	struct events *ev = arg;
	size_t len = strlen(ev->seen);

	(void)obj;
	snprintf(ev->seen + len, sizeof(ev->seen) - len, "%s%s", len ? "," : "",
	    type);
	ev->n++;
	return ev->stop_after > 0 && ev->n >= ev->stop_after;
}

struct logbuf {
	char text[256];
	int chunks;
};

static int
on_log(void *arg, const char *data, size_t len)
{
	struct logbuf *lb = arg;
	size_t have = strlen(lb->text);

	lb->chunks++;
	snprintf(
	    lb->text + have, sizeof(lb->text) - have, "%.*s", (int)len, data);
	return 0;
}

static int token_calls;

static sw_err
token_source(void *arg, int force, char *out, size_t outsz)
{
	(void)arg;
	token_calls++;
	snprintf(out, outsz, "%s", force ? "new" : "old");
	return SW_OK;
}

int
main(void)
{
	struct fake_server *srv;
	struct k8s_client c, bad;
	struct k8s_error e;
	struct events ev;
	struct logbuf lb;
	json_object *out = NULL, *obj, *meta;
	char *cert = NULL, *key = NULL, url[64], path[256];
	char rv[64];
	sw_err rc;

	if (awstest_selfsigned(&cert, &key) != 0 ||
	    (srv = fake_start(handler, NULL, cert, key)) == NULL)
		skip_all("cannot make a TLS test server");
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", fake_port(srv));

	is_int(k8s_path(path, sizeof(path), "v1", "default", "pods", "p1"),
	    SW_OK, "core path");
	is_str(path, "/api/v1/namespaces/default/pods/p1", "core path text");
	k8s_path(path, sizeof(path), "sagemaker.amazonaws.com/v1", "ml",
	    "hyperpodpytorchjobs", NULL);
	is_str(path,
	    "/apis/sagemaker.amazonaws.com/v1/namespaces/ml/"
	    "hyperpodpytorchjobs",
	    "group path");
	ok(k8s_path(path, sizeof(path), "v1", "default", "pods",
	       "../../secrets") == SW_EINVAL,
	    "bad names refused");
	ok(k8s_init(&bad, "http://10.0.0.1", NULL, 0, 0) == SW_EINVAL,
	    "plain http to a cluster refused");
	k8s_free(&bad);

	/* Without the pinned CA the server is not trusted. */
	k8s_init(&bad, url, NULL, 0, 0);
	k8s_set_token(&bad, "tok");
	rc = k8s_get(&bad, "/api/v1/namespaces/default/pods/p1", &out, &e);
	is_int(rc, SW_EUNAVAIL, "unknown CA: TLS verification fails");
	k8s_free(&bad);

	ok(k8s_init(&c, url, cert, strlen(cert), 0) == SW_OK,
	    "client with pinned CA");
	k8s_set_token(&c, "tok-1");
	rc = k8s_get(&c, "/api/v1/namespaces/default/pods/p1", &out, &e);
	is_int(rc, SW_OK, "get over TLS");
	is_str(last.auth, "Bearer tok-1", "bearer token sent");
	is_str(json_object_get_string(json_object_object_get(out, "kind")),
	    "Pod", "object parsed");
	json_object_put(out);

	rc = k8s_get(&c, "/api/v1/namespaces/default/pods/missing", &out, &e);
	is_int(rc, SW_ENOTFOUND, "404 -> SW_ENOTFOUND");
	is_str(e.reason, "NotFound", "Status.reason");
	is_str(e.message, "pods \"missing\" not found", "Status.message");
	is_int(e.code, 404, "Status.code");
	ok(out == NULL, "no object on error");
	rc = k8s_get(&c, "/api/v1/namespaces/default/pods/busy", &out, &e);
	ok(rc == SW_ETHROTTLED && e.retry_after == 3,
	    "429 with retryAfterSeconds");

	rc = k8s_list(
	    &c, "/api/v1/namespaces/default/pods", "app=x,tier!=db", &out, &e);
	is_int(rc, SW_OK, "list");
	is_str(last.target,
	    "/api/v1/namespaces/default/pods?labelSelector="
	    "app%3Dx%2Ctier%21%3Ddb",
	    "label selector encoded");
	json_object_put(out);

	obj = json_tokener_parse(
	    "{\"apiVersion\":\"v1\",\"kind\":"
	    "\"ConfigMap\",\"metadata\":{\"name\":\"cfg\",\"managedFields\":"
	    "[{\"manager\":\"x\"}]},\"data\":{\"k\":\"v\"}}");
	rc = k8s_apply(
	    &c, "/api/v1/namespaces/default/configmaps/cfg", obj, &out, &e);
	is_int(rc, SW_OK, "server-side apply");
	is_str(last.method, "PATCH", "apply is a PATCH");
	is_str(last.target,
	    "/api/v1/namespaces/default/configmaps/cfg?"
	    "fieldManager=slipway&force=true",
	    "fieldManager and force");
	is_str(last.ctype, "application/apply-patch+yaml", "apply media type");
	ok(strstr(last.body, "managedFields") == NULL &&
		strstr(last.body, "\"data\":{\"k\":\"v\"}") != NULL,
	    "JSON body without managedFields");
	ok(json_object_object_get_ex(obj, "metadata", &meta) &&
		json_object_object_get(meta, "managedFields") != NULL,
	    "caller's object untouched");
	json_object_put(out);
	json_object_put(obj);

	obj = json_tokener_parse("{\"metadata\":{\"labels\":{\"a\":\"1\","
				 "\"gone\":null}}}");
	rc = k8s_merge_patch(&c, "/api/v1/nodes/n1", obj, NULL, &e);
	is_int(rc, SW_OK, "merge patch");
	is_str(last.ctype, "application/merge-patch+json", "merge media type");
	ok(strstr(last.body, "\"gone\":null") != NULL, "null kept to delete");
	json_object_put(obj);

	obj = json_tokener_parse(POD);
	rc = k8s_create(&c, "/api/v1/namespaces/default/pods", obj, &out, &e);
	ok(rc == SW_OK && strcmp(last.method, "POST") == 0, "create (201)");
	json_object_put(out);
	json_object_put(obj);
	rc = k8s_delete(&c, "/api/v1/namespaces/default/pods/p1", &e);
	ok(rc == SW_OK && strcmp(last.method, "DELETE") == 0, "delete");

	/* Watch: chunked events, bookmark moves the version. */
	memset(&ev, 0, sizeof(ev));
	rc = k8s_watch(&c, "/api/v1/namespaces/default/pods", "app=x", "100",
	    30, on_event, &ev, rv, sizeof(rv), &e);
	is_int(rc, SW_OK, "watch ends cleanly");
	is_str(ev.seen, "ADDED,MODIFIED,DELETED",
	    "events in order, "
	    "bookmark not reported");
	is_str(rv, "170", "last resourceVersion kept");
	ok(strstr(last.target, "watch=1") &&
		strstr(last.target, "resourceVersion=100") &&
		strstr(last.target, "allowWatchBookmarks=true") &&
		strstr(last.target, "timeoutSeconds=30"),
	    "watch query");
	memset(&ev, 0, sizeof(ev));
	ev.stop_after = 1;
	rc = k8s_watch(&c, "/api/v1/namespaces/default/pods", NULL, NULL, 30,
	    on_event, &ev, NULL, 0, &e);
	ok(rc == SW_OK && ev.n == 1, "callback can stop the watch");

	/* In-stream 410: k8s_watch says gone; list_watch re-lists. */
	last.watches = 0;
	last.gone_once = 1;
	memset(&ev, 0, sizeof(ev));
	rc = k8s_watch(&c, "/api/v1/namespaces/default/pods", NULL, "1", 30,
	    on_event, &ev, NULL, 0, &e);
	ok(rc == SW_ECONFLICT && e.gone && e.code == 410 &&
		strcmp(e.reason, "Expired") == 0,
	    "in-stream 410 -> gone");
	last.watches = 0;
	memset(&ev, 0, sizeof(ev));
	rc = k8s_list_watch(&c, "/api/v1/namespaces/default/pods", NULL, 30, 3,
	    on_event, &ev, &e);
	is_int(rc, SW_OK, "list-watch recovers from 410");
	is_str(ev.seen, "SYNC,SYNC,ADDED,MODIFIED,DELETED",
	    "listed twice (once after Gone), then watched");
	last.gone_once = 0;

	/* Log follow in chunks. */
	memset(&lb, 0, sizeof(lb));
	rc = k8s_logs(&c, "default", "p1", "main", 1, 100, 10, on_log, &lb, &e);
	is_int(rc, SW_OK, "log follow");
	is_str(lb.text, "line 1\nline 2\nline 3\nline 4\nline 5\n",
	    "whole log received");
	ok(lb.chunks >= 2, "arrived in %d chunks", lb.chunks);
	is_str(last.target,
	    "/api/v1/namespaces/default/pods/p1/log?"
	    "container=main&follow=true&tailLines=100",
	    "log query");

	/* A token source: 401 forces one refresh. */
	k8s_set_token_fn(&c, token_source, NULL);
	token_calls = 0;
	rc = k8s_get(&c, "/api/v1/namespaces/default/pods/p1", &out, &e);
	ok(rc == SW_OK && token_calls == 2 &&
		strcmp(last.auth, "Bearer new") == 0,
	    "401 -> fresh token -> success");
	json_object_put(out);

	/* Odd answers are upstream errors, not crashes. */
	rc = k8s_list(&c, "/api/v1/namespaces/odd/pods", NULL, &out, &e);
	ok(rc == SW_EUPSTREAM && out == NULL,
	    "a list whose items is not an array is refused");
	memset(&ev, 0, sizeof(ev));
	rc = k8s_list_watch(
	    &c, "/api/v1/namespaces/odd/pods", NULL, 30, 1, on_event, &ev, &e);
	ok(rc == SW_EUPSTREAM && ev.n == 0,
	    "list-watch of such a list stops with an error");
	memset(&ev, 0, sizeof(ev));
	rc = k8s_watch(&c, "/api/v1/namespaces/odd/pods", NULL, NULL, 30,
	    on_event, &ev, NULL, 0, &e);
	ok(rc == SW_EUPSTREAM && ev.n == 0 &&
		strstr(e.message, "malformed") != NULL,
	    "a watch event with a null type is "
	    "malformed");
	rc = k8s_get(&c, "/api/v1/namespaces/odd/pods/p1", &out, &e);
	ok(rc == SW_EFORBIDDEN && strcmp(e.message, "no ? here") == 0,
	    "a byte of a Status message that is not UTF-8 is shown as ?");
	rc = k8s_get(&c, "/api/v1/namespaces/odd/pods/p2", &out, &e);
	ok(rc == SW_EUPSTREAM && out == NULL,
	    "a GET answered with something other than an object is refused");
	{
		char body[1200], want[1024];

		/* 1022 bytes, then a two-byte character across the cut. */
		memset(want, 'x', 1022);
		want[1022] = '?';
		want[1023] = '\0';
		snprintf(body, sizeof(body),
		    "{\"message\":\"%.1022s\xc3\xa9"
		    "\",\"reason\":\"Forbidden\"}",
		    want);
		rc = k8s_answer(
		    403, body, strlen(body), K8S_ANSWER_OBJECT, NULL, &e);
		ok(rc == SW_EFORBIDDEN && strcmp(e.message, want) == 0,
		    "a message cut inside a character ends valid");
		rc = k8s_answer(502, "\xff\xfe bad gateway", 14,
		    K8S_ANSWER_OBJECT, NULL, &e);
		ok(rc == SW_EUPSTREAM &&
			strcmp(e.message, "?? bad gateway") == 0,
		    "a body that is not JSON is quoted as valid UTF-8");
	}

	k8s_free(&c);
	fake_stop(srv);
	free(cert);
	free(key);
	return tap_done();
}
