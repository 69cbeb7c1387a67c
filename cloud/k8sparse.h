/*
 * k8sparse.h: what cloud/k8s.c makes of an API server's answer, apart
 * from the transport: the Status object of a failed call, the JSON of a
 * successful one, the items of a list and the lines of a watch stream.
 * The client calls these on every answer; they are declared here so
 * that tests and the fuzz harness (fuzz/fuzz_k8s.c) can give them
 * bytes without a server.  cloud/k8s.h includes it for the error and
 * event types; only cloud/k8s.c, t/ and fuzz/ call its functions.
 */
#ifndef SW_K8SPARSE_H
#define SW_K8SPARSE_H

#include <stddef.h>

#include <json-c/json.h>

#include "lib/buf.h"
#include "lib/err.h"

/* A failed call.  Plain data; nothing to free. */
struct k8s_error {
	long status; /* HTTP status, 0 without response */
	int code; /* Status.code */
	char reason[64]; /* Status.reason: NotFound, ... */
	char message[1024];
	int retry_after; /* details.retryAfterSeconds */
	int gone; /* 410: re-list, then watch again */
};

/* A watch event; return non-zero to stop watching.  object borrowed. */
typedef int (*k8s_event_fn)(void *arg, const char *type, json_object *object);

/* What k8s_answer() requires of a 2xx body. */
#define K8S_ANSWER_JSON 0 /* any JSON (a service proxy) */
#define K8S_ANSWER_OBJECT 1 /* a JSON object (the Kubernetes API) */
#define K8S_ANSWER_LIST \
	2 /* an object whose "items" is an
					 * array; absent or null becomes [] */

/*
 * An answer of HTTP status with body[0..len) (need not be
 * NUL-terminated).  2xx: SW_OK and, when out is not NULL, *out is a new
 * reference to the parsed body (an empty body is {}) that meets want;
 * a body that does not is SW_EUPSTREAM.  Otherwise e is filled from
 * the Status object (or the first bytes of a body that is not one) and
 * the sw_err of k8s.h is returned.  e is written only when the result
 * is not SW_OK (a watch stream may have filled it before), and then
 * its text is NUL-terminated and valid UTF-8: it is quoted to users.
 */
sw_err k8s_answer(long status, const char *body, size_t len, int want,
    json_object **out, struct k8s_error *e);

/*
 * Report each item of list (an answer that met K8S_ANSWER_LIST,
 * borrowed) to fn as a "SYNC" event and copy metadata.resourceVersion
 * into rv (rvsz bytes; "" when absent).  1 when fn asked to stop.
 */
int k8s_list_sync(
    json_object *list, k8s_event_fn fn, void *arg, char *rv, size_t rvsz);

/* A watch stream being read: newline-separated JSON events. */
struct k8s_stream {
	struct sw_buf line; /* the event read so far */
	k8s_event_fn fn;
	void *arg;
	char *rv; /* borrowed: last resourceVersion */
	size_t rvsz;
	int gone; /* an ERROR event said 410 */
	int bad; /* a malformed or oversized event */
	int stopped; /* fn asked to stop */
	struct k8s_error *err; /* borrowed: filled by ERROR events */
};

/* Start reading a stream; rv (may be NULL) and e are borrowed. */
void k8s_stream_init(struct k8s_stream *, k8s_event_fn fn, void *arg, char *rv,
    size_t rvsz, struct k8s_error *e);
/* The next bytes of the stream, as http_stream_fn: arg is the struct
 * k8s_stream; non-zero stops the transfer. */
int k8s_stream_chunk(void *arg, const char *data, size_t len);
/* The stream has ended: read a last event without a newline, then
 * SW_OK, SW_ECONFLICT with err->gone (list again) or SW_EUPSTREAM. */
sw_err k8s_stream_end(struct k8s_stream *);
void k8s_stream_free(struct k8s_stream *);

#endif
