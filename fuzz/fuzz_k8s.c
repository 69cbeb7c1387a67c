/*
 * fuzz_k8s.c: what the Kubernetes client makes of an API server's
 * answer (cloud/k8sparse.h, the functions cloud/k8s.c calls on every
 * answer).  The first byte picks the HTTP status (low four bits) and
 * the size of the pieces a watch stream arrives in (high four bits);
 * the rest is the body, left unterminated so that a read past it is an
 * ASan report.  The body is read as each kind of answer (any JSON, an
 * object, a list), its list items are walked as a list-then-watch does,
 * and, for a 2xx status, it is read again as a watch stream.
 * Invariants: the error's reason and message are NUL-terminated inside
 * their buffers and valid UTF-8 (they are quoted to users); an answer
 * taken as an object is one and a list's items are an array; watch
 * events reach the callback only as a type string and an object.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "cloud/k8sparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* abort() unless the text of e is terminated in its buffer and valid. */
static void
check_error(const struct k8s_error *e)
{
	if (memchr(e->reason, '\0', sizeof(e->reason)) == NULL ||
	    memchr(e->message, '\0', sizeof(e->message)) == NULL) {
		fprintf(stderr, "k8s_error text is not terminated\n");
		abort();
	}
	if (sw_text_bad(e->reason, strlen(e->reason)) != NULL ||
	    sw_text_bad(e->message, strlen(e->message)) != NULL) {
		fprintf(stderr, "k8s_error text is not valid UTF-8\n");
		abort();
	}
}

static int
count_item(void *arg, const char *type, json_object *obj)
{
	(void)obj;
	if (type == NULL || strcmp(type, "SYNC") != 0)
		abort();
	++*(size_t *)arg;
	return 0;
}

static int
watch_event(void *arg, const char *type, json_object *obj)
{
	if (type == NULL || !json_object_is_type(obj, json_type_object)) {
		fprintf(stderr, "watch event without type or object\n");
		abort();
	}
	return ++*(size_t *)arg >= 64;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[16] = { 200, 201, 204, 400, 401, 403, 404,
		409, 410, 422, 429, 500, 503, 504, 301, 101 };
	static const int wants[3] = { K8S_ANSWER_JSON, K8S_ANSWER_OBJECT,
		K8S_ANSWER_LIST };
	struct k8s_error e;
	struct k8s_stream s;
	json_object *out, *items;
	const char *body;
	char rv[128];
	size_t len, chunk, off, n, seen;
	long status;
	int i;
	sw_err rc;

	if (size < 1 || size > (1 << 20))
		return 0;
	status = statuses[data[0] & 0x0f];
	chunk = 1 + (size_t)(data[0] >> 4) * 61;
	body = (const char *)data + 1;
	len = size - 1;

	for (i = 0; i < 3; i++) {
		memset(&e, 0, sizeof(e));
		rc = k8s_answer(status, body, len, wants[i], &out, &e);
		check_error(&e);
		if (rc != SW_OK) {
			if (out != NULL)
				abort();
			continue;
		}
		if (status < 200 || status >= 300 || out == NULL)
			abort();
		if (wants[i] != K8S_ANSWER_JSON &&
		    !json_object_is_type(out, json_type_object))
			abort();
		if (wants[i] == K8S_ANSWER_LIST) {
			if (!json_object_object_get_ex(out, "items", &items) ||
			    !json_object_is_type(items, json_type_array))
				abort();
			seen = 0;
			(void)k8s_list_sync(
			    out, count_item, &seen, rv, sizeof(rv));
			if (seen != json_object_array_length(items) ||
			    memchr(rv, '\0', sizeof(rv)) == NULL)
				abort();
		}
		(void)json_object_to_json_string(out);
		json_object_put(out);
	}

	if (status < 200 || status >= 300)
		return 0;
	memset(&e, 0, sizeof(e));
	rv[0] = '\0';
	seen = 0;
	k8s_stream_init(&s, watch_event, &seen, rv, sizeof(rv), &e);
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		if (k8s_stream_chunk(&s, body + off, n) != 0)
			break;
	}
	rc = k8s_stream_end(&s);
	k8s_stream_free(&s);
	check_error(&e);
	if (memchr(rv, '\0', sizeof(rv)) == NULL ||
	    (rc == SW_ECONFLICT) != (e.gone != 0))
		abort();
	return 0;
}
