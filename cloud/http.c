/*
 * http.c: libcurl behind a small request/response API (see http.h).
 * One CURL easy handle per client is reset and reused for each call,
 * which keeps connections and TLS sessions warm.  Every call checks
 * the URL against the plain-http policy, never follows redirects,
 * never uses a proxy for loopback or metadata addresses, and stops
 * reading once the body passes its cap.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/fault.h"
#include "cloud/http.h"
#include "lib/limits.h"

/* Addresses that never go through a proxy. */
#define HTTP_NOPROXY \
	"127.0.0.1,localhost,::1,169.254.169.254," \
	"169.254.170.2,169.254.170.23,fd00:ec2::23,fd00:ec2::254"

struct http_xfer {
	struct http_client *client;
	struct http_response *resp;
	http_stream_fn fn;
	void *arg;
	int too_big;
	int stopped;
	int cb_error;
};

void
http_headers_init(struct http_headers *h)
{
	h->v = NULL;
	h->n = 0;
	h->cap = 0;
}

void
http_headers_free(struct http_headers *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
	http_headers_init(h);
}

sw_err
http_headers_add(struct http_headers *h, const char *name, const char *value)
{
	struct http_header *nv;
	size_t ncap;
	char *n, *v;

	if (h->n == h->cap) {
		ncap = h->cap ? h->cap * 2 : 8;
		if ((nv = sw_realloc(h->v, ncap * sizeof(*nv))) == NULL)
			return SW_ENOMEM;
		h->v = nv;
		h->cap = ncap;
	}
	n = sw_strdup(name);
	v = sw_strdup(value);
	if (n == NULL || v == NULL) {
		free(n);
		free(v);
		return SW_ENOMEM;
	}
	h->v[h->n].name = n;
	h->v[h->n].value = v;
	h->n++;
	return SW_OK;
}

void
http_headers_del(struct http_headers *h, const char *name)
{
	size_t i, j;

	for (i = j = 0; i < h->n; i++) {
		if (strcasecmp(h->v[i].name, name) == 0) {
			free(h->v[i].name);
			free(h->v[i].value);
			continue;
		}
		h->v[j++] = h->v[i];
	}
	h->n = j;
}

sw_err
http_headers_set(struct http_headers *h, const char *name, const char *value)
{
	http_headers_del(h, name);
	return http_headers_add(h, name, value);
}

const char *
http_headers_get(const struct http_headers *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (strcasecmp(h->v[i].name, name) == 0)
			return h->v[i].value;
	return NULL;
}

/* Point *host at the authority of a URL and *hostlen at its length. */
static int
http_url_authority(const char *url, const char **auth, size_t *len)
{
	const char *p;

	if ((p = strstr(url, "://")) == NULL)
		return -1;
	p += 3;
	*auth = p;
	*len = strcspn(p, "/?#");
	return *len > 0 ? 0 : -1;
}

sw_err
http_request_init(struct http_request *r, const char *method, const char *base,
    const char *path, const char *query)
{
	const char *auth;
	size_t alen;
	char host[SW_AWS_MAX_URL];
	sw_err rc = SW_ENOMEM;

	memset(r, 0, sizeof(*r));
	http_headers_init(&r->headers);
	if (http_url_authority(base, &auth, &alen) == -1 ||
	    alen >= sizeof(host) || auth[alen] != '\0') {
		rc = SW_EINVAL;
		goto out;
	}
	memcpy(host, auth, alen);
	host[alen] = '\0';
	if ((r->method = sw_strdup(method)) == NULL ||
	    (r->base = sw_strdup(base)) == NULL ||
	    (r->path = sw_strdup(path != NULL && *path != '\0' ? path : "/")) ==
		NULL)
		goto out;
	if (query != NULL && *query != '\0' &&
	    (r->query = sw_strdup(query)) == NULL)
		goto out;
	rc = http_headers_add(&r->headers, "Host", host);
out:
	if (rc != SW_OK)
		http_request_free(r);
	return rc;
}

void
http_request_free(struct http_request *r)
{
	free(r->method);
	free(r->base);
	free(r->path);
	free(r->query);
	free(r->body);
	http_headers_free(&r->headers);
	memset(r, 0, sizeof(*r));
}

sw_err
http_request_set_body(struct http_request *r, const void *body, size_t len)
{
	unsigned char *p = NULL;

	if (len > 0) {
		if ((p = sw_malloc(len + 1)) == NULL)
			return SW_ENOMEM;
		memcpy(p, body, len);
		p[len] = '\0';
	}
	free(r->body);
	r->body = p;
	r->body_len = len;
	return SW_OK;
}

sw_err
http_request_set_query(struct http_request *r, const char *query)
{
	char *q = NULL;

	if (query != NULL && *query != '\0' && (q = sw_strdup(query)) == NULL)
		return SW_ENOMEM;
	free(r->query);
	r->query = q;
	return SW_OK;
}

char *
http_request_url(const struct http_request *r)
{
	struct sw_buf b;

	sw_buf_init(&b, SW_MAX_UPSTREAM_BODY);
	if (sw_buf_puts(&b, r->base) != SW_OK ||
	    sw_buf_puts(&b, r->path) != SW_OK ||
	    (r->query != NULL && sw_buf_printf(&b, "?%s", r->query) != SW_OK)) {
		sw_buf_free(&b);
		return NULL;
	}
	return sw_buf_steal(&b);
}

void
http_response_init(struct http_response *resp, size_t max_body)
{
	resp->status = 0;
	http_headers_init(&resp->headers);
	sw_buf_init(&resp->body, max_body);
}

void
http_response_free(struct http_response *resp)
{
	http_headers_free(&resp->headers);
	sw_buf_free(&resp->body);
	resp->status = 0;
}

sw_err
http_client_init(struct http_client *c, unsigned flags)
{
	static int global_done;

	memset(c, 0, sizeof(*c));
	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return SW_EINTERNAL;
		global_done = 1;
	}
	if ((c->curl = curl_easy_init()) == NULL)
		return SW_ENOMEM;
	c->flags = flags;
	c->connect_timeout_ms = SW_HTTP_CONNECT_TIMEOUT * 1000L;
	c->timeout_ms = SW_HTTP_TOTAL_TIMEOUT * 1000L;
	c->max_body = SW_MAX_UPSTREAM_BODY;
	return SW_OK;
}

void
http_client_free(struct http_client *c)
{
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	free(c->ca_pem);
	memset(c, 0, sizeof(*c));
}

sw_err
http_client_set_ca(struct http_client *c, const char *pem, size_t len)
{
	char *p = NULL;

	if (pem != NULL && len > 0) {
		if ((p = sw_malloc(len)) == NULL)
			return SW_ENOMEM;
		memcpy(p, pem, len);
	}
	free(c->ca_pem);
	c->ca_pem = p;
	c->ca_len = p != NULL ? len : 0;
	return SW_OK;
}

static int
http_host_is(const char *auth, size_t alen, const char *const *list)
{
	size_t hlen, i;

	/* Host part: up to the port colon, or the whole "[v6]". */
	if (auth[0] == '[') {
		hlen = strcspn(auth, "]");
		if (hlen >= alen)
			return 0;
		hlen++;
	} else
		hlen = strcspn(auth, ":/?#");
	if (hlen > alen)
		hlen = alen;
	for (i = 0; list[i] != NULL; i++)
		if (strlen(list[i]) == hlen &&
		    strncasecmp(auth, list[i], hlen) == 0)
			return 1;
	return 0;
}

int
http_url_allowed(const char *url, unsigned flags)
{
	static const char *const loopback[] = { "127.0.0.1", "localhost",
		"[::1]", NULL };
	static const char *const metadata[] = { "169.254.169.254",
		"169.254.170.2", "169.254.170.23", "[fd00:ec2::23]",
		"[fd00:ec2::254]", NULL };
	const char *auth;
	size_t alen;

	if (http_url_authority(url, &auth, &alen) == -1)
		return 0;
	/* No user-info: "http://127.0.0.1@elsewhere" is not loopback. */
	if (memchr(auth, '@', alen) != NULL)
		return 0;
	if (strncasecmp(url, "https://", 8) == 0)
		return 1;
	if (strncasecmp(url, "http://", 7) != 0)
		return 0;
	if ((flags & HTTP_ALLOW_LOOPBACK) && http_host_is(auth, alen, loopback))
		return 1;
	if ((flags & HTTP_ALLOW_METADATA) && http_host_is(auth, alen, metadata))
		return 1;
	return 0;
}

static size_t
http_header_cb(char *data, size_t size, size_t nitems, void *arg)
{
	struct http_xfer *x = arg;
	size_t len = size * nitems, nlen, vlen;
	char name[256], *value = NULL;
	const char *colon, *v;

	if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* A new status line: drop headers of a 1xx response. */
		http_headers_free(&x->resp->headers);
		return len;
	}
	if ((colon = memchr(data, ':', len)) == NULL)
		return len;
	nlen = (size_t)(colon - data);
	if (nlen == 0 || nlen >= sizeof(name) ||
	    x->resp->headers.n >= SW_HTTP_MAX_HEADERS)
		return len;
	memcpy(name, data, nlen);
	name[nlen] = '\0';
	v = colon + 1;
	vlen = len - nlen - 1;
	while (vlen > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		vlen--;
	}
	while (vlen > 0 && isspace((unsigned char)v[vlen - 1]))
		vlen--;
	if ((value = sw_strndup(v, vlen)) == NULL)
		return 0;
	if (http_headers_add(&x->resp->headers, name, value) != SW_OK) {
		free(value);
		return 0;
	}
	free(value);
	return len;
}

/* Progress callback: a non-zero *cancel aborts the transfer. */
static int
http_cancel_cb(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	const atomic_int *cancel = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return atomic_load(cancel) != 0;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Called the moment before the request is written on a connection: a
 * request past its send-by time is not sent. */
static int
http_prereq_cb(
    void *arg, char *conn_ip, char *local_ip, int conn_port, int local_port)
{
	const int64_t *send_by = arg;

	(void)conn_ip;
	(void)local_ip;
	(void)conn_port;
	(void)local_port;
	return mono_ms() > *send_by ? CURL_PREREQFUNC_ABORT
				    : CURL_PREREQFUNC_OK;
}

static size_t
http_write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_xfer *x = arg;
	size_t len = size * nmemb;
	long status = 0;
	sw_err rc;

	if (x->fn != NULL) {
		curl_easy_getinfo(
		    x->client->curl, CURLINFO_RESPONSE_CODE, &status);
		if (status >= 200 && status < 300) {
			if (x->fn(x->arg, data, len) != 0) {
				x->stopped = 1;
				return 0;
			}
			return len;
		}
	}
	if ((rc = sw_buf_add(&x->resp->body, data, len)) != SW_OK) {
		if (rc == SW_ETOOBIG)
			x->too_big = 1;
		else
			x->cb_error = 1;
		return 0;
	}
	return len;
}

static sw_err
http_curl_err(struct http_client *c, CURLcode cc)
{
	if (c->errmsg[0] == '\0')
		sw_fmt_text(
		    c->errmsg, sizeof(c->errmsg), "%s", curl_easy_strerror(cc));
	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		return SW_ETIMEOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		return SW_EUNAVAIL;
	default:
		return SW_EUPSTREAM;
	}
}

static sw_err
http_do(struct http_client *c, const struct http_request *req,
    struct http_response *resp, http_stream_fn fn, void *arg)
{
	struct http_xfer x;
	struct curl_slist *hl = NULL, *nl;
	struct curl_blob blob;
	struct sw_buf line;
	CURL *cu = c->curl;
	CURLcode cc;
	char *url = NULL;
	size_t i;
	int has_ctype = 0;
	sw_err rc = SW_ENOMEM;

	sw_buf_init(&line, SW_MAX_UPSTREAM_BODY);
	memset(&x, 0, sizeof(x));
	x.client = c;
	x.resp = resp;
	x.fn = fn;
	x.arg = arg;
	c->errmsg[0] = '\0';
	resp->status = 0;
	http_headers_free(&resp->headers);
	sw_buf_reset(&resp->body);

	if ((url = http_request_url(req)) == NULL)
		goto out;
	if (!http_url_allowed(url, c->flags)) {
		sw_fmt_text(c->errmsg, sizeof(c->errmsg),
		    "URL not allowed (https only): %.128s", url);
		rc = SW_EFORBIDDEN;
		goto out;
	}
	if (sw_fault_hit(SW_FAULT_HTTP, req->path)) {
		sw_fmt_text(c->errmsg, sizeof(c->errmsg),
		    "injected fault: connection refused");
		rc = SW_EUNAVAIL;
		goto out;
	}
	for (i = 0; i < req->headers.n; i++) {
		const struct http_header *h = &req->headers.v[i];

		sw_buf_reset(&line);
		if (strcasecmp(h->name, "content-type") == 0)
			has_ctype = 1;
		if ((rc = sw_buf_printf(&line, *h->value ? "%s: %s" : "%s;",
			 h->name, h->value)) != SW_OK)
			goto out;
		if ((nl = curl_slist_append(hl, sw_buf_str(&line))) == NULL) {
			rc = SW_ENOMEM;
			goto out;
		}
		hl = nl;
	}
	/* No 100-continue round trip; no curl-invented Content-Type. */
	if ((nl = curl_slist_append(hl, "Expect:")) == NULL)
		goto out;
	hl = nl;
	if (!has_ctype) {
		if ((nl = curl_slist_append(hl, "Content-Type:")) == NULL)
			goto out;
		hl = nl;
	}

	curl_easy_reset(cu);
	curl_easy_setopt(cu, CURLOPT_URL, url);
	curl_easy_setopt(cu, CURLOPT_PROTOCOLS_STR,
	    c->flags & (HTTP_ALLOW_LOOPBACK | HTTP_ALLOW_METADATA)
		? "http,https"
		: "https");
	curl_easy_setopt(cu, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cu, CURLOPT_NOPROXY, HTTP_NOPROXY);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, c->errmsg);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(cu, CURLOPT_HEADERFUNCTION, http_header_cb);
	curl_easy_setopt(cu, CURLOPT_HEADERDATA, &x);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(cu, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(cu, CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->cancel != NULL) {
		curl_easy_setopt(cu, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(cu, CURLOPT_XFERINFOFUNCTION, http_cancel_cb);
		curl_easy_setopt(cu, CURLOPT_XFERINFODATA, c->cancel);
	}
	if (c->send_by_ms != 0) {
		curl_easy_setopt(cu, CURLOPT_PREREQFUNCTION, http_prereq_cb);
		curl_easy_setopt(cu, CURLOPT_PREREQDATA, &c->send_by_ms);
	}
	if (c->ca_pem != NULL) {
		blob.data = c->ca_pem;
		blob.len = c->ca_len;
		blob.flags = CURL_BLOB_COPY;
		curl_easy_setopt(cu, CURLOPT_CAINFO_BLOB, &blob);
	}
	if (strcmp(req->method, "GET") == 0)
		curl_easy_setopt(cu, CURLOPT_HTTPGET, 1L);
	else if (strcmp(req->method, "HEAD") == 0)
		curl_easy_setopt(cu, CURLOPT_NOBODY, 1L);
	else {
		curl_easy_setopt(cu, CURLOPT_CUSTOMREQUEST, req->method);
		if (req->body_len > 0 || strcmp(req->method, "DELETE") != 0) {
			curl_easy_setopt(cu, CURLOPT_POSTFIELDSIZE_LARGE,
			    (curl_off_t)req->body_len);
			curl_easy_setopt(cu, CURLOPT_POSTFIELDS,
			    req->body != NULL ? (const char *)req->body : "");
		}
	}

	cc = c->send_by_ms != 0 && mono_ms() > c->send_by_ms
	    ? CURLE_ABORTED_BY_CALLBACK
	    : curl_easy_perform(cu);
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &resp->status);
	if (cc == CURLE_WRITE_ERROR && x.stopped)
		rc = SW_OK;
	else if (cc == CURLE_ABORTED_BY_CALLBACK && c->send_by_ms != 0 &&
	    mono_ms() > c->send_by_ms) {
		sw_fmt_text(c->errmsg, sizeof(c->errmsg),
		    "not sent: past its send-by time (its lease may have "
		    "moved)");
		rc = SW_ECONFLICT;
	} else if (cc == CURLE_ABORTED_BY_CALLBACK && c->cancel != NULL &&
	    atomic_load(c->cancel) != 0)
		rc = SW_OK;
	else if (x.too_big) {
		sw_fmt_text(c->errmsg, sizeof(c->errmsg),
		    "response body over %zu bytes", resp->body.max);
		rc = SW_ETOOBIG;
	} else if (x.cb_error)
		rc = SW_ENOMEM;
	else if (cc != CURLE_OK)
		rc = http_curl_err(c, cc);
	else
		rc = SW_OK;
out:
	/* Do not leave pointers to freed memory in the reused handle. */
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, NULL);
	curl_slist_free_all(hl);
	sw_buf_free(&line);
	free(url);
	return rc;
}

sw_err
http_perform(struct http_client *c, const struct http_request *req,
    struct http_response *resp)
{
	return http_do(c, req, resp, NULL, NULL);
}

sw_err
http_perform_stream(struct http_client *c, const struct http_request *req,
    struct http_response *resp, http_stream_fn fn, void *arg)
{
	return http_do(c, req, resp, fn, arg);
}

sw_err
http_get_document(const char *url, const char *form, const char *authorization,
    struct sw_buf *out)
{
	struct http_client c;
	struct http_request req;
	struct http_response resp;
	const char *host, *path, *q;
	char *base = NULL, *p = NULL;
	sw_err e;

	if (!http_url_allowed(url, HTTP_ALLOW_LOOPBACK) ||
	    (host = strstr(url, "://")) == NULL)
		return SW_EFORBIDDEN;
	path = strchr(host + 3, '/');
	q = strchr(host + 3, '?');
	if (path == NULL || (q != NULL && q < path))
		path = q;
	base = sw_strndup(url, path ? (size_t)(path - url) : strlen(url));
	p = path == NULL || *path == '?'
	    ? sw_strdup("/")
	    : sw_strndup(path, strcspn(path, "?#"));
	q = path != NULL ? strchr(path, '?') : NULL;
	if (base == NULL || p == NULL) {
		free(base);
		free(p);
		return SW_ENOMEM;
	}
	if ((e = http_client_init(&c, HTTP_ALLOW_LOOPBACK)) != SW_OK)
		goto out_names;
	c.connect_timeout_ms = SW_OIDC_FETCH_TIMEOUT_MS;
	c.timeout_ms = SW_OIDC_FETCH_TIMEOUT_MS;
	c.max_body = out->max ? out->max : SW_MAX_UPSTREAM_BODY;
	http_response_init(&resp, c.max_body);
	if ((e = http_request_init(&req, form ? "POST" : "GET", base, p,
		 q ? q + 1 : NULL)) == SW_OK) {
		if ((e = http_headers_add(&req.headers, "Accept",
			 "application/json")) == SW_OK &&
		    form != NULL &&
		    ((e = http_headers_add(&req.headers, "Content-Type",
			  "application/x-www-form-urlencoded")) != SW_OK ||
			(e = http_request_set_body(&req, form, strlen(form))) !=
			    SW_OK))
			;
		else if (e == SW_OK && authorization != NULL &&
		    (e = http_headers_add(&req.headers, "Authorization",
			 authorization)) != SW_OK)
			;
		else if (e == SW_OK &&
		    (e = http_perform(&c, &req, &resp)) == SW_OK)
			e = sw_buf_add(out, sw_buf_str(&resp.body),
				resp.body.len) != SW_OK
			    ? SW_ENOMEM
			    : resp.status == 200 ? SW_OK
						 : SW_EUPSTREAM;
		http_request_free(&req);
	}
	http_response_free(&resp);
	http_client_free(&c);
out_names:
	free(base);
	free(p);
	return e;
}
