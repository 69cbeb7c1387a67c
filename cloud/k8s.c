/*
 * k8s.c: the Kubernetes API client (see k8s.h).  Every call goes
 * through k8s_do(): add the bearer token, send, and turn a non-2xx
 * answer into struct k8s_error from the Status object.  Watches and
 * log follows use the streaming mode of cloud/http.c; watch events are
 * split on newlines and parsed one JSON object at a time, each line
 * capped at SW_K8S_MAX_EVENT.  What an answer means (k8s_answer, the
 * list and watch readers) is apart from the transport, in the functions
 * cloud/k8sparse.h declares, so it can be tested without a server.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/alloc.h"
#include "lib/url.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"
#include "cloud/k8sparse.h"
#include "cloud/sigv4.h"

sw_err
k8s_init(struct k8s_client *c, const char *server, const char *ca_pem,
    size_t ca_len, int allow_loopback_http)
{
	size_t n;
	sw_err rc;

	memset(c, 0, sizeof(*c));
	if (server == NULL ||
	    !http_url_allowed(
		server, allow_loopback_http ? HTTP_ALLOW_LOOPBACK : 0))
		return SW_EINVAL;
	if ((rc = http_client_init(&c->http,
		 allow_loopback_http ? HTTP_ALLOW_LOOPBACK : 0)) != SW_OK)
		return rc;
	n = strlen(server);
	while (n > 0 && server[n - 1] == '/')
		n--;
	if ((c->server = sw_strndup(server, n)) == NULL)
		return SW_ENOMEM;
	if (ca_pem != NULL && ca_len > 0)
		return http_client_set_ca(&c->http, ca_pem, ca_len);
	return SW_OK;
}

void
k8s_free(struct k8s_client *c)
{
	free(c->server);
	http_client_free(&c->http);
	memset(c, 0, sizeof(*c));
}

sw_err
k8s_set_token(struct k8s_client *c, const char *token)
{
	if (token == NULL || strlen(token) >= sizeof(c->token) ||
	    strpbrk(token, "\r\n") != NULL)
		return SW_EINVAL;
	memcpy(c->token, token, strlen(token) + 1);
	c->token_fn = NULL;
	return SW_OK;
}

void
k8s_set_token_fn(struct k8s_client *c, k8s_token_fn fn, void *arg)
{
	c->token_fn = fn;
	c->token_arg = arg;
}

/* DNS-1123 names and api groups: [a-z0-9.-], 1..253. */
static int
k8s_name_ok(const char *s)
{
	size_t i;

	if (s == NULL || *s == '\0' || strlen(s) > 253)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

sw_err
k8s_path(char *out, size_t outsz, const char *api_version, const char *ns,
    const char *plural, const char *name)
{
	const char *slash;
	char group[256], ver[64];
	int n;

	if (api_version == NULL || !k8s_name_ok(plural) ||
	    (ns != NULL && !k8s_name_ok(ns)) ||
	    (name != NULL && !k8s_name_ok(name)))
		return SW_EINVAL;
	if ((slash = strchr(api_version, '/')) != NULL) {
		if ((size_t)(slash - api_version) >= sizeof(group) ||
		    strlen(slash + 1) >= sizeof(ver))
			return SW_EINVAL;
		memcpy(group, api_version, (size_t)(slash - api_version));
		group[slash - api_version] = '\0';
		if (sw_fmt(ver, sizeof(ver), "%s", slash + 1) != SW_OK ||
		    !k8s_name_ok(group) || !k8s_name_ok(ver))
			return SW_EINVAL;
		n = snprintf(out, outsz, "/apis/%s/%s", group, ver);
	} else {
		if (!k8s_name_ok(api_version))
			return SW_EINVAL;
		n = snprintf(out, outsz, "/api/%s", api_version);
	}
	if (n > 0 && ns != NULL)
		n +=
		    snprintf(out + n, (size_t)n < outsz ? outsz - (size_t)n : 0,
			"/namespaces/%s", ns);
	if (n > 0)
		n += snprintf(out + n,
		    (size_t)n < outsz ? outsz - (size_t)n : 0, "/%s", plural);
	if (n > 0 && name != NULL)
		n += snprintf(out + n,
		    (size_t)n < outsz ? outsz - (size_t)n : 0, "/%s", name);
	return n > 0 && (size_t)n < outsz ? SW_OK : SW_EINVAL;
}

static void
k8s_err_clear(struct k8s_error *e)
{
	memset(e, 0, sizeof(*e));
}

/*
 * Copy len bytes of text into dst (dstsz bytes) as valid UTF-8: cut to
 * fit, stopped at a NUL, and any byte that is not part of a valid
 * sequence (a sequence cut short by the size included) shown as '?'.
 * An API server's words are quoted in problems, step messages and
 * stream frames, which must be valid UTF-8 text.
 */
static void
k8s_text(char *dst, size_t dstsz, const char *src, size_t len)
{
	char *clean;
	size_t n;

	n = strnlen(src, len);
	if (n >= dstsz)
		n = dstsz - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	if ((clean = sw_utf8_dup(dst)) == NULL) {
		dst[0] = '\0';
		return;
	}
	memcpy(dst, clean, n + 1);
	free(clean);
}

/* Fill err from a Status object (or whatever body came back). */
static void
k8s_parse_status(const char *body, size_t len, long status, struct k8s_error *e)
{
	json_tokener *tok;
	json_object *o = NULL, *v, *d;
	const char *t;

	k8s_err_clear(e);
	e->status = status;
	e->code = (int)status;
	e->gone = status == 410;
	if (len > 0 && len <= INT_MAX && (tok = json_tokener_new()) != NULL) {
		o = json_tokener_parse_ex(tok, body, (int)len);
		json_tokener_free(tok);
	}
	if (o != NULL && json_object_is_type(o, json_type_object)) {
		if (json_object_object_get_ex(o, "reason", &v) &&
		    (t = json_object_get_string(v)) != NULL)
			k8s_text(e->reason, sizeof(e->reason), t, strlen(t));
		if (json_object_object_get_ex(o, "message", &v) &&
		    (t = json_object_get_string(v)) != NULL)
			k8s_text(e->message, sizeof(e->message), t, strlen(t));
		if (json_object_object_get_ex(o, "code", &v))
			e->code = json_object_get_int(v);
		if (json_object_object_get_ex(o, "details", &d) &&
		    json_object_object_get_ex(d, "retryAfterSeconds", &v))
			e->retry_after = json_object_get_int(v);
		if (e->code == 410 || strcmp(e->reason, "Expired") == 0 ||
		    strcmp(e->reason, "Gone") == 0)
			e->gone = 1;
	} else if (len > 0)
		k8s_text(e->message, sizeof(e->message), body,
		    len < 200 ? len : 200);
	json_object_put(o);
}

static sw_err
k8s_sw(const struct k8s_error *e)
{
	if (e->gone)
		return SW_ECONFLICT;
	switch (e->status) {
	case 400:
	case 422:
		return SW_EINVAL;
	case 401:
	case 403:
		return SW_EFORBIDDEN;
	case 404:
		return SW_ENOTFOUND;
	case 409:
		return SW_ECONFLICT;
	case 429:
		return SW_ETHROTTLED;
	case 503:
		return SW_EUNAVAIL;
	case 504:
		return SW_ETIMEOUT;
	default:
		return SW_EUPSTREAM;
	}
}

sw_err
k8s_answer(long status, const char *body, size_t len, int want,
    json_object **out, struct k8s_error *e)
{
	json_tokener *tok;
	json_object *o = NULL, *items;
	const char *why = "response is not JSON";

	if (out != NULL)
		*out = NULL;
	if (status < 200 || status >= 300) {
		k8s_parse_status(body, len, status, e);
		return k8s_sw(e);
	}
	if (out == NULL)
		return SW_OK;
	if (len == 0)
		o = json_object_new_object();
	else if (len <= INT_MAX && (tok = json_tokener_new_ex(64)) != NULL) {
		o = json_tokener_parse_ex(tok, body, (int)len);
		json_tokener_free(tok);
	}
	if (o != NULL && want != K8S_ANSWER_JSON &&
	    !json_object_is_type(o, json_type_object)) {
		why = "response is not a JSON object";
		json_object_put(o);
		o = NULL;
	}
	if (o != NULL && want == K8S_ANSWER_LIST) {
		/* Every reader of a list walks items as an array. */
		if (!json_object_object_get_ex(o, "items", &items) ||
		    items == NULL)
			json_object_object_add(
			    o, "items", json_object_new_array());
		else if (!json_object_is_type(items, json_type_array)) {
			why = "list response whose items is not an array";
			json_object_put(o);
			o = NULL;
		}
	}
	if (o == NULL) {
		k8s_err_clear(e);
		sw_fmt_text(e->message, sizeof(e->message), "%s", why);
		e->status = status;
		return SW_EUPSTREAM;
	}
	*out = o;
	return SW_OK;
}

/*
 * One call.  body may be NULL; out (may be NULL) gets the parsed 2xx
 * body, which must meet want (K8S_ANSWER_*); with sfn the 2xx body is
 * streamed to it instead.
 */
static sw_err
k8s_do(struct k8s_client *c, const char *method, const char *path,
    const char *query, const char *ctype, json_object *body, int want,
    json_object **out, http_stream_fn sfn, void *sarg, struct k8s_error *e)
{
	struct http_request req;
	struct http_response resp;
	char auth[SW_EKS_TOKEN_MAX + 16];
	const char *s;
	int tries;
	sw_err rc;

	k8s_err_clear(e);
	if (out != NULL)
		*out = NULL;
	memset(&req, 0, sizeof(req));
	http_response_init(&resp, c->http.max_body);
	if ((rc = http_request_init(&req, method, c->server, path, query)) !=
		SW_OK ||
	    (rc = http_headers_add(
		 &req.headers, "Accept", "application/json")) != SW_OK ||
	    (rc = http_headers_add(
		 &req.headers, "User-Agent", "slipway/0.1")) != SW_OK)
		goto out;
	if (body != NULL) {
		s = json_object_to_json_string_ext(body,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		if ((rc = http_headers_add(
			 &req.headers, "Content-Type", ctype)) != SW_OK ||
		    (rc = http_request_set_body(&req, s, strlen(s))) != SW_OK)
			goto out;
	}
	for (tries = 0; tries < 2; tries++) {
		if (c->token_fn != NULL &&
		    (rc = c->token_fn(c->token_arg, tries > 0, c->token,
			 sizeof(c->token))) != SW_OK)
			goto out;
		if (c->token[0] != '\0') {
			if ((rc = sw_fmt(auth, sizeof(auth), "Bearer %s",
				 c->token)) != SW_OK ||
			    (rc = http_headers_set(
				 &req.headers, "Authorization", auth)) != SW_OK)
				goto out;
		}
		rc = sfn != NULL
		    ? http_perform_stream(&c->http, &req, &resp, sfn, sarg)
		    : http_perform(&c->http, &req, &resp);
		if (rc != SW_OK) {
			e->status = resp.status;
			sw_fmt_text(e->message, sizeof(e->message), "%s",
			    c->http.errmsg);
			goto out;
		}
		/* An expired token: get a new one and try once more. */
		if (resp.status != 401 || c->token_fn == NULL)
			break;
	}
	rc = k8s_answer(resp.status, resp.body.data, resp.body.len, want,
	    sfn == NULL ? out : NULL, e);
out:
	memset(auth, 0, sizeof(auth));
	http_request_free(&req);
	http_response_free(&resp);
	return rc;
}

sw_err
k8s_get(struct k8s_client *c, const char *path, json_object **out,
    struct k8s_error *e)
{
	return k8s_do(c, "GET", path, NULL, NULL, NULL, K8S_ANSWER_OBJECT, out,
	    NULL, NULL, e);
}

static sw_err
k8s_query_add(struct sw_buf *q, const char *key, const char *val)
{
	sw_err rc;

	if ((q->len > 0 && (rc = sw_buf_putc(q, '&')) != SW_OK) ||
	    (rc = sw_buf_printf(q, "%s=", key)) != SW_OK)
		return rc;
	return sw_pct_encode(q, val, strlen(val), 0);
}

sw_err
k8s_list(struct k8s_client *c, const char *path, const char *sel,
    json_object **out, struct k8s_error *e)
{
	struct sw_buf q;
	sw_err rc;

	sw_buf_init(&q, SW_MAX_QUERY);
	if (sel != NULL && *sel != '\0' &&
	    (rc = k8s_query_add(&q, "labelSelector", sel)) != SW_OK) {
		k8s_err_clear(e);
		goto out;
	}
	rc = k8s_do(c, "GET", path, q.len > 0 ? sw_buf_str(&q) : NULL, NULL,
	    NULL, K8S_ANSWER_LIST, out, NULL, NULL, e);
out:
	sw_buf_free(&q);
	return rc;
}

sw_err
k8s_create(struct k8s_client *c, const char *path, json_object *obj,
    json_object **out, struct k8s_error *e)
{
	return k8s_do(c, "POST", path, "fieldManager=" K8S_FIELD_MANAGER,
	    "application/json", obj, K8S_ANSWER_OBJECT, out, NULL, NULL, e);
}

sw_err
k8s_apply(struct k8s_client *c, const char *path, json_object *obj,
    json_object **out, struct k8s_error *e)
{
	json_object *copy = NULL, *meta;
	sw_err rc;

	/* Apply must not carry managedFields; drop them from a copy. */
	if (json_object_deep_copy(obj, &copy, NULL) != 0 || copy == NULL) {
		k8s_err_clear(e);
		return SW_ENOMEM;
	}
	if (json_object_object_get_ex(copy, "metadata", &meta))
		json_object_object_del(meta, "managedFields");
	rc = k8s_do(c, "PATCH", path,
	    "fieldManager=" K8S_FIELD_MANAGER "&force=true",
	    "application/apply-patch+yaml", copy, K8S_ANSWER_OBJECT, out, NULL,
	    NULL, e);
	json_object_put(copy);
	return rc;
}

sw_err
k8s_post(struct k8s_client *c, const char *path, json_object *body,
    json_object **out, struct k8s_error *e)
{
	return k8s_do(c, "POST", path, NULL, "application/json", body,
	    K8S_ANSWER_JSON, out, NULL, NULL, e);
}

sw_err
k8s_merge_patch(struct k8s_client *c, const char *path, json_object *patch,
    json_object **out, struct k8s_error *e)
{
	return k8s_do(c, "PATCH", path, "fieldManager=" K8S_FIELD_MANAGER,
	    "application/merge-patch+json", patch, K8S_ANSWER_OBJECT, out, NULL,
	    NULL, e);
}

sw_err
k8s_delete(struct k8s_client *c, const char *path, struct k8s_error *e)
{
	return k8s_do(c, "DELETE", path, NULL, NULL, NULL, K8S_ANSWER_OBJECT,
	    NULL, NULL, NULL, e);
}

sw_err
k8s_delete_propagate(struct k8s_client *c, const char *path, const char *policy,
    struct k8s_error *e)
{
	json_object *opts;
	sw_err rc;

	opts = json_object_new_object();
	json_object_object_add(
	    opts, "kind", json_object_new_string("DeleteOptions"));
	json_object_object_add(
	    opts, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(
	    opts, "propagationPolicy", json_object_new_string(policy));
	rc = k8s_do(c, "DELETE", path, NULL, "application/json", opts,
	    K8S_ANSWER_OBJECT, NULL, NULL, NULL, e);
	json_object_put(opts);
	return rc;
}

/* Copy metadata.resourceVersion of obj into rv (unchanged when absent
 * or not a string). */
static void
k8s_copy_rv(json_object *obj, char *rv, size_t rvsz)
{
	json_object *meta, *v;

	if (rv != NULL && rvsz > 0 &&
	    json_object_object_get_ex(obj, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "resourceVersion", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    sw_fmt(rv, rvsz, "%s", json_object_get_string(v)) != SW_OK)
		rv[0] = '\0'; /* a cut version names none: start afresh */
}

/* One watch event line; non-zero stops the stream. */
static int
k8s_event(struct k8s_stream *s, const char *line, size_t len)
{
	json_tokener *tok;
	json_object *ev = NULL, *type, *obj;
	const char *t;
	int stop = 0;

	if (len == 0)
		return 0;
	if (len > INT_MAX || (tok = json_tokener_new_ex(64)) == NULL)
		return 1;
	ev = json_tokener_parse_ex(tok, line, (int)len);
	json_tokener_free(tok);
	/* An event is {"type": "...", "object": {...}}; anything else
	 * (a null type or object included) is a malformed stream. */
	if (ev == NULL || !json_object_object_get_ex(ev, "type", &type) ||
	    !json_object_is_type(type, json_type_string) ||
	    !json_object_object_get_ex(ev, "object", &obj) ||
	    !json_object_is_type(obj, json_type_object)) {
		s->bad = 1;
		stop = 1;
		goto out;
	}
	t = json_object_get_string(type);
	if (strcmp(t, "ERROR") == 0) {
		/* The API reports an expired version in-stream with 200. */
		const char *body = json_object_to_json_string(obj);

		k8s_parse_status(body, strlen(body), 200, s->err);
		s->gone = s->err->gone;
		stop = 1;
		goto out;
	}
	k8s_copy_rv(obj, s->rv, s->rvsz);
	if (strcmp(t, "BOOKMARK") != 0 && s->fn(s->arg, t, obj) != 0)
		stop = 1;
out:
	json_object_put(ev);
	return stop;
}

void
k8s_stream_init(struct k8s_stream *s, k8s_event_fn fn, void *arg, char *rv,
    size_t rvsz, struct k8s_error *e)
{
	memset(s, 0, sizeof(*s));
	sw_buf_init(&s->line, SW_K8S_MAX_EVENT);
	s->fn = fn;
	s->arg = arg;
	s->rv = rv;
	s->rvsz = rvsz;
	s->err = e;
}

int
k8s_stream_chunk(void *arg, const char *data, size_t len)
{
	struct k8s_stream *s = arg;
	const char *nl;
	size_t n;

	while (len > 0) {
		if ((nl = memchr(data, '\n', len)) == NULL) {
			if (sw_buf_add(&s->line, data, len) != SW_OK) {
				s->bad = 1;
				return 1;
			}
			return 0;
		}
		n = (size_t)(nl - data);
		if (sw_buf_add(&s->line, data, n) != SW_OK) {
			s->bad = 1;
			return 1;
		}
		if (k8s_event(s, sw_buf_str(&s->line), s->line.len) != 0) {
			sw_buf_reset(&s->line);
			s->stopped = 1;
			return 1;
		}
		sw_buf_reset(&s->line);
		data = nl + 1;
		len -= n + 1;
	}
	return 0;
}

sw_err
k8s_stream_end(struct k8s_stream *s)
{
	struct k8s_error *e = s->err;

	/* A last event without a trailing newline. */
	if (!s->stopped && !s->gone && !s->bad && s->line.len > 0)
		k8s_event(s, sw_buf_str(&s->line), s->line.len);
	if (s->gone) {
		e->gone = 1;
		return SW_ECONFLICT;
	}
	if (e->reason[0] != '\0')
		return SW_EUPSTREAM;
	if (s->bad) {
		sw_fmt_text(e->message, sizeof(e->message),
		    "malformed or oversized watch event");
		return SW_EUPSTREAM;
	}
	return SW_OK;
}

void
k8s_stream_free(struct k8s_stream *s)
{
	sw_buf_free(&s->line);
}

sw_err
k8s_watch(struct k8s_client *c, const char *path, const char *sel,
    const char *rv, int timeout_s, k8s_event_fn fn, void *arg, char *rv_out,
    size_t rvsz, struct k8s_error *e)
{
	struct k8s_stream s;
	struct sw_buf q;
	char num[32];
	long saved = c->http.timeout_ms;
	sw_err rc;

	k8s_err_clear(e);
	k8s_stream_init(&s, fn, arg, rv_out, rvsz, e);
	sw_buf_init(&q, SW_MAX_QUERY);
	if (timeout_s <= 0 || timeout_s > SW_K8S_WATCH_TIMEOUT)
		timeout_s = SW_K8S_WATCH_TIMEOUT;
	if ((rc = sw_fmt(num, sizeof(num), "%d", timeout_s)) != SW_OK ||
	    (rc = k8s_query_add(&q, "watch", "1")) != SW_OK ||
	    (rc = k8s_query_add(&q, "allowWatchBookmarks", "true")) != SW_OK ||
	    (rc = k8s_query_add(&q, "timeoutSeconds", num)) != SW_OK ||
	    (rv != NULL && *rv != '\0' &&
		(rc = k8s_query_add(&q, "resourceVersion", rv)) != SW_OK) ||
	    (sel != NULL && *sel != '\0' &&
		(rc = k8s_query_add(&q, "labelSelector", sel)) != SW_OK))
		goto out;
	if (rv_out != NULL && rvsz > 0 &&
	    sw_fmt(rv_out, rvsz, "%s", rv != NULL ? rv : "") != SW_OK)
		rv_out[0] = '\0'; /* a cut version names none */
	/* The server ends the watch after timeout_s; allow some slack. */
	c->http.timeout_ms = (timeout_s + 15) * 1000L;
	rc = k8s_do(c, "GET", path, sw_buf_str(&q), NULL, NULL,
	    K8S_ANSWER_OBJECT, NULL, k8s_stream_chunk, &s, e);
	c->http.timeout_ms = saved;
	if (rc == SW_OK)
		rc = k8s_stream_end(&s);
out:
	k8s_stream_free(&s);
	sw_buf_free(&q);
	return rc;
}

int
k8s_list_sync(
    json_object *list, k8s_event_fn fn, void *arg, char *rv, size_t rvsz)
{
	json_object *items;
	size_t i, n;

	if (rv != NULL && rvsz > 0)
		rv[0] = '\0';
	k8s_copy_rv(list, rv, rvsz);
	if (!json_object_object_get_ex(list, "items", &items) ||
	    !json_object_is_type(items, json_type_array))
		return 0;
	n = json_object_array_length(items);
	for (i = 0; i < n; i++)
		if (fn(arg, "SYNC", json_object_array_get_idx(items, i)) != 0)
			return 1;
	return 0;
}

sw_err
k8s_list_watch(struct k8s_client *c, const char *path, const char *sel,
    int timeout_s, int rounds, k8s_event_fn fn, void *arg, struct k8s_error *e)
{
	json_object *list = NULL;
	char rv[128];
	int round;
	sw_err rc = SW_EINVAL;

	for (round = 0; round < rounds; round++) {
		if ((rc = k8s_list(c, path, sel, &list, e)) != SW_OK)
			return rc;
		if (k8s_list_sync(list, fn, arg, rv, sizeof(rv)) != 0) {
			json_object_put(list);
			return SW_OK;
		}
		json_object_put(list);
		list = NULL;
		rc = k8s_watch(
		    c, path, sel, rv, timeout_s, fn, arg, rv, sizeof(rv), e);
		if (rc != SW_ECONFLICT || !e->gone)
			return rc;
	}
	return rc;
}

struct k8s_logs_arg {
	k8s_chunk_fn fn;
	void *arg;
};

static int
k8s_logs_chunk(void *arg, const char *data, size_t len)
{
	struct k8s_logs_arg *a = arg;

	return a->fn(a->arg, data, len);
}

static sw_err
k8s_logs_query(struct k8s_client *c, const char *ns, const char *pod,
    const char *container, int follow, int stamped, long tail_lines,
    int timeout_s, k8s_chunk_fn fn, void *arg, struct k8s_error *e)
{
	struct k8s_logs_arg a;
	struct sw_buf q;
	char path[1024], num[32];
	long saved = c->http.timeout_ms;
	sw_err rc;

	k8s_err_clear(e);
	sw_buf_init(&q, SW_MAX_QUERY);
	if ((rc = k8s_path(path, sizeof(path) - 4, "v1", ns, "pods", pod)) !=
		SW_OK ||
	    (container != NULL && !k8s_name_ok(container)))
		goto out;
	memcpy(path + strlen(path), "/log", 5);
	if (container != NULL &&
	    (rc = k8s_query_add(&q, "container", container)) != SW_OK)
		goto out;
	if (follow && (rc = k8s_query_add(&q, "follow", "true")) != SW_OK)
		goto out;
	if (stamped && (rc = k8s_query_add(&q, "timestamps", "true")) != SW_OK)
		goto out;
	if (tail_lines >= 0) {
		if ((rc = sw_fmt(num, sizeof(num), "%ld", tail_lines)) !=
			SW_OK ||
		    (rc = k8s_query_add(&q, "tailLines", num)) != SW_OK)
			goto out;
	}
	a.fn = fn;
	a.arg = arg;
	c->http.timeout_ms = timeout_s > 0 ? timeout_s * 1000L : 0;
	rc = k8s_do(c, "GET", path, q.len > 0 ? sw_buf_str(&q) : NULL, NULL,
	    NULL, K8S_ANSWER_JSON, NULL, k8s_logs_chunk, &a, e);
	/* A follow that hit our own deadline has simply ended. */
	if (rc == SW_ETIMEOUT && follow && timeout_s > 0 && e->status == 200)
		rc = SW_OK;
	c->http.timeout_ms = saved;
out:
	sw_buf_free(&q);
	return rc;
}

sw_err
k8s_logs(struct k8s_client *c, const char *ns, const char *pod,
    const char *container, int follow, long tail_lines, int timeout_s,
    k8s_chunk_fn fn, void *arg, struct k8s_error *e)
{
	return k8s_logs_query(c, ns, pod, container, follow, 0, tail_lines,
	    timeout_s, fn, arg, e);
}

sw_err
k8s_logs_stamped(struct k8s_client *c, const char *ns, const char *pod,
    const char *container, int follow, long tail_lines, int timeout_s,
    k8s_chunk_fn fn, void *arg, struct k8s_error *e)
{
	return k8s_logs_query(c, ns, pod, container, follow, 1, tail_lines,
	    timeout_s, fn, arg, e);
}
