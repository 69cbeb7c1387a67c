/*
 * req.c: request input from the FastCGI environment, and rendering of
 * the answer: JSON bodies, or RFC 9457 application/problem+json with a
 * per-field "errors" list when the request failed.  Security headers go
 * on every answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/json.h"
#include "api/optable.h"
#include "api/req.h"

static const char *
env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp != NULL && *envp != NULL; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

static const char *
nonempty(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : NULL;
}

void
sw_req_from_env(struct sw_req *r, char *const *envp)
{
	const char *raw, *q;

	memset(r, 0, sizeof(*r));
	sw_buf_init(&r->headers, 16384);
	r->method = env_get(envp, "REQUEST_METHOD");
	/* The raw target, not nginx's decoded and ..-resolved $uri: the
	 * router splits segments before decoding (see router.h). */
	if ((raw = env_get(envp, "REQUEST_URI")) != NULL) {
		q = strchr(raw, '?');
		r->uri_owned =
		    sw_strndup(raw, q ? (size_t)(q - raw) : strlen(raw));
		r->uri = r->uri_owned;
	}
	if (r->uri == NULL)
		r->uri = env_get(envp, "DOCUMENT_URI");
	if (r->uri == NULL)
		r->uri = env_get(envp, "SCRIPT_NAME");
	r->query = nonempty(env_get(envp, "QUERY_STRING"));
	r->authorization = nonempty(env_get(envp, "HTTP_AUTHORIZATION"));
	r->cookie = nonempty(env_get(envp, "HTTP_COOKIE"));
	r->origin = nonempty(env_get(envp, "HTTP_ORIGIN"));
	r->team_header = nonempty(env_get(envp, "HTTP_SLIPWAY_TEAM"));
	r->host = nonempty(env_get(envp, "SW_HTTP_HOST"));
	if (r->host == NULL)
		r->host = nonempty(env_get(envp, "HTTP_HOST"));
	r->content_type = nonempty(env_get(envp, "CONTENT_TYPE"));
	r->idem_key = nonempty(env_get(envp, "HTTP_IDEMPOTENCY_KEY"));
	if (r->method == NULL)
		r->method = "GET";
	if (r->uri == NULL)
		r->uri = "/";
}

void
sw_req_free(struct sw_req *r)
{
	json_object_put(r->args);
	json_object_put(r->out);
	free(r->raw);
	free(r->uri_owned);
	r->uri_owned = NULL;
	sw_buf_free(&r->headers);
	r->args = r->out = NULL;
	r->raw = NULL;
}

sw_err
sw_req_fail(struct sw_req *r, sw_err e, const char *fmt, ...)
{
	va_list ap;

	r->err = e;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
	return e;
}

void
sw_req_header(struct sw_req *r, const char *fmt, ...)
{
	va_list ap;

	size_t had = r->headers.len;
	sw_err e;

	va_start(ap, fmt);
	e = sw_buf_vprintf(&r->headers, fmt, ap);
	va_end(ap);
	if (e == SW_OK)
		e = sw_buf_puts(&r->headers, "\r\n");
	if (e == SW_OK)
		return;
	/* A whole line or none: half a line, or a lone CRLF, would end
	 * the header block early and spill the rest into the body. */
	r->headers.len = had;
	if (r->headers.data != NULL)
		r->headers.data[had] = '\0';
	if (r->err == SW_OK)
		(void)sw_req_fail(r, e, "cannot add a response header");
}

void
sw_req_reply(struct sw_req *r, int status, json_object *o)
{
	json_object_put(r->out);
	r->out = o;
	r->status = status;
}

int
sw_req_cookie(const struct sw_req *r, const char *name, char *out, size_t outsz)
{
	const char *p = r->cookie, *end;
	size_t n = strlen(name), len;

	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == ';')
			p++;
		end = strchr(p, ';');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			len -= n + 1;
			if (len >= outsz)
				return 0;
			memcpy(out, p + n + 1, len);
			out[len] = '\0';
			return 1;
		}
		p = end;
	}
	return 0;
}

/* Add key: val with any byte that is not valid UTF-8 shown as '?':
 * a path or header echoed in a message must not make the answer
 * invalid JSON text. */
static void
add_clean_str(json_object *o, const char *key, const char *val)
{
	char *clean = sw_utf8_dup(val);

	sw_json_add_str(o, key, clean != NULL ? clean : "?");
	free(clean);
}

json_object *
sw_req_problem(const struct sw_req *r)
{
	const struct sw_err_info *ei = sw_err_info(r->err);
	json_object *p, *arr, *fe;
	char type[96];
	int i;

	p = json_object_new_object();
	if (sw_fmt(type, sizeof(type), "/problems/%s", ei->slug) != SW_OK)
		sw_fmt_text(type, sizeof(type), "about:blank");
	sw_json_add_str(p, "type", type);
	sw_json_add_str(p, "title", ei->title);
	sw_json_add_int(p, "status", ei->http_status);
	if (r->detail[0] != '\0')
		add_clean_str(p, "detail", r->detail);
	else if (r->ferrs.n > 0) {
		char d[512];

		sw_fmt_text(d, sizeof(d), "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
		add_clean_str(p, "detail", d);
	}
	if (r->uri != NULL)
		add_clean_str(p, "instance", r->uri);
	if (r->ferrs.n > 0) {
		arr = json_object_new_array();
		for (i = 0; i < r->ferrs.n; i++) {
			fe = json_object_new_object();
			add_clean_str(fe, "field", r->ferrs.e[i].field);
			sw_json_add_str(fe, "rule", r->ferrs.e[i].rule);
			add_clean_str(fe, "message", r->ferrs.e[i].msg);
			json_object_array_add(arr, fe);
		}
		json_object_object_add(p, "errors", arr);
	}
	return p;
}

static const char *
reason_phrase(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 201:
		return "Created";
	case 202:
		return "Accepted";
	case 204:
		return "No Content";
	case 302:
		return "Found";
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 409:
		return "Conflict";
	case 413:
		return "Content Too Large";
	case 415:
		return "Unsupported Media Type";
	case 422:
		return "Unprocessable Content";
	case 429:
		return "Too Many Requests";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	default:
		return status >= 500 ? "Internal Server Error" : "Unknown";
	}
}

sw_err
sw_req_render(struct sw_req *r, struct sw_buf *out)
{
	json_object *problem = NULL;
	const char *type, *body;
	size_t len;
	int status;
	sw_err e;

	if (r->err != SW_OK) {
		problem = sw_req_problem(r);
		status = sw_err_http_status(r->err);
		if ((status == 429 || status == 503) &&
		    strstr(sw_buf_str(&r->headers), "Retry-After:") == NULL)
			sw_req_header(r, "Retry-After: 2");
		type = "application/problem+json";
		body = sw_json_str(problem);
		len = strlen(body);
	} else if (r->raw != NULL) {
		status = r->status ? r->status : 200;
		type = r->raw_type ? r->raw_type : "application/octet-stream";
		body = r->raw;
		len = r->raw_len;
	} else {
		status = r->status ? r->status : 200;
		type = "application/json";
		body = r->out ? sw_json_str(r->out) : "{}";
		len = strlen(body);
	}
	e = sw_buf_printf(out,
	    "Status: %d %s\r\n"
	    "Content-Type: %s\r\n"
	    "Content-Length: %zu\r\n"
	    "Cache-Control: no-store\r\n"
	    "%s"
	    "\r\n",
	    status, reason_phrase(status), type, len, sw_buf_str(&r->headers));
	if (e == SW_OK && strcmp(r->method, "HEAD") != 0)
		e = sw_buf_add(out, body, len);
	json_object_put(problem);
	return e;
}
