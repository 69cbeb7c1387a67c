/*
 * http.h: the one HTTP client of Slipway, a thin libcurl wrapper used
 * for every AWS, metadata and Kubernetes call.  It speaks HTTPS only;
 * plain http is allowed just for loopback endpoints a caller has
 * configured (the sandbox) and, when asked, for the link-local
 * credential endpoints (IMDS, ECS/EKS Pod Identity).  Response bodies
 * are capped; a streaming mode hands each chunk to a callback for
 * Kubernetes watches and log follows.
 */
#ifndef SW_HTTP_H
#define SW_HTTP_H

#include <stdatomic.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/err.h"

struct http_header {
	char *name; /* owned */
	char *value; /* owned */
};

/* An ordered list of headers; names compare case-insensitively. */
struct http_headers {
	struct http_header *v;
	size_t n;
	size_t cap;
};

/*
 * A request.  Every string is owned by the request and freed by
 * http_request_free().  path and query are already percent-encoded as
 * they go on the wire; query has no leading '?'.
 */
struct http_request {
	char *method;
	char *base; /* "https://host[:port]" */
	char *path; /* "/..." */
	char *query; /* NULL or "a=1&b=2" */
	struct http_headers headers;
	unsigned char *body; /* NULL or body_len bytes */
	size_t body_len;
};

struct http_response {
	long status; /* 0: no response */
	struct http_headers headers;
	struct sw_buf body;
};

/* Who may be reached over plain http (see http_client.flags). */
#define HTTP_ALLOW_LOOPBACK 0x01 /* 127.0.0.1, localhost, [::1] */
#define HTTP_ALLOW_METADATA 0x02 /* IMDS and container endpoints */

struct http_client {
	void *curl; /* CURL *, reused between calls */
	unsigned flags; /* HTTP_ALLOW_* */
	long connect_timeout_ms;
	long timeout_ms; /* whole call; 0 = none (streams) */
	size_t max_body; /* response body cap */
	char *ca_pem; /* owned; pinned CA bundle or NULL */
	size_t ca_len;
	char errmsg[256]; /* last transport error, for logs */
	/* Borrowed; when set and *cancel turns non-zero (from any thread),
	 * a transfer stops within about a second, as when a stream
	 * callback stops it (SW_OK).  NULL: never cancelled. */
	const atomic_int *cancel;
	/* CLOCK_MONOTONIC milliseconds after which a request is no longer
	 * sent (the lease it is made under may have moved to another
	 * poller: sw_lease_send_by), checked before connecting and again
	 * the moment before the request is written; 0: no limit. */
	int64_t send_by_ms;
};

/* Called with each chunk of a 2xx streamed body; return non-zero to
 * stop the transfer (http_perform_stream then returns SW_OK). */
typedef int (*http_stream_fn)(void *arg, const char *data, size_t len);

/* Header lists.  Strings are copied; get returns a borrowed value. */
void http_headers_init(struct http_headers *);
void http_headers_free(struct http_headers *);
sw_err http_headers_add(
    struct http_headers *, const char *name, const char *value);
/* Replace every header of that name by one with this value. */
sw_err http_headers_set(
    struct http_headers *, const char *name, const char *value);
void http_headers_del(struct http_headers *, const char *name);
const char *http_headers_get(const struct http_headers *, const char *name);

/*
 * Build a request from a base URL ("https://host[:port]", no path),
 * an encoded path and an optional encoded query; adds a Host header
 * taken from the base.  Free with http_request_free().
 */
sw_err http_request_init(struct http_request *, const char *method,
    const char *base, const char *path, const char *query);
void http_request_free(struct http_request *);
/* Copy body (borrowed) into the request; the copy is NUL-terminated
 * (not counted in body_len) so text bodies can be read as strings. */
sw_err http_request_set_body(
    struct http_request *, const void *body, size_t len);
/* Replace the query string (copied; NULL clears it). */
sw_err http_request_set_query(struct http_request *, const char *query);
/* The full URL, newly allocated: the caller frees it. */
char *http_request_url(const struct http_request *);

void http_response_init(struct http_response *, size_t max_body);
void http_response_free(struct http_response *);

/* Set up a client with the limits.h timeouts and body cap. */
sw_err http_client_init(struct http_client *, unsigned flags);
void http_client_free(struct http_client *);
/* Pin a CA bundle (PEM, copied) for TLS verification, as Kubernetes
 * API servers use a cluster CA.  NULL removes the pin. */
sw_err http_client_set_ca(struct http_client *, const char *pem, size_t len);

/* Is url acceptable under flags?  https always; http only for the
 * hosts the flags allow. */
int http_url_allowed(const char *url, unsigned flags);

/*
 * Send req and read the whole response into resp (initialised by the
 * caller, freed by the caller).  Returns SW_OK whenever an HTTP status
 * came back, whatever it was; SW_ETIMEOUT, SW_EUNAVAIL (connect/DNS/
 * TLS failure), SW_ETOOBIG (body over the cap), SW_EFORBIDDEN (URL
 * not allowed) or SW_EUPSTREAM for other transport failures.
 */
sw_err http_perform(
    struct http_client *, const struct http_request *, struct http_response *);
/*
 * Like http_perform, but a 2xx body is handed to fn chunk by chunk
 * instead of being kept; a non-2xx body is kept in resp->body (capped)
 * so the caller can parse the error.
 */
sw_err http_perform_stream(struct http_client *, const struct http_request *,
    struct http_response *, http_stream_fn fn, void *arg);

/*
 * GET url (https, or http to loopback) with a short timeout, as an
 * OpenID provider's discovery document and keys are read, into out
 * (its cap applies); or POST form (x-www-form-urlencoded) when it is
 * not NULL, as a code is traded at a token endpoint; authorization,
 * when not NULL, is sent as the Authorization header.  SW_OK only for
 * a 200; SW_EUPSTREAM for another status, SW_EFORBIDDEN for a URL not
 * allowed, else http_perform's.
 */
sw_err http_get_document(const char *url, const char *form,
    const char *authorization, struct sw_buf *out);

#endif
