/*
 * k8s.h: a small Kubernetes API client for EKS clusters: HTTPS to the
 * API server with the cluster CA pinned (from DescribeCluster) and a
 * bearer token (from cloud/ekstoken.c, refreshed by a callback), JSON
 * objects in and out.  Server-side apply with field manager "slipway"
 * for desired state, JSON merge patch for labels and flags, get/list/
 * create/delete, watch streams and pod log follows.  API errors (the
 * Status object) come back as struct k8s_error.
 */
#ifndef SW_K8S_H
#define SW_K8S_H

#include <stddef.h>

#include <json-c/json.h>

#include "lib/err.h"
#include "cloud/http.h"
#include "lib/limits.h"
#include "cloud/k8sparse.h"

#define K8S_FIELD_MANAGER "slipway"

/* Fetch a bearer token; force asks for a fresh one (after a 401). */
typedef sw_err (*k8s_token_fn)(void *arg, int force, char *out, size_t outsz);
/* A piece of a log stream; return non-zero to stop following. */
typedef int (*k8s_chunk_fn)(void *arg, const char *data, size_t len);

struct k8s_client {
	char *server; /* owned: "https://host" */
	struct http_client http;
	k8s_token_fn token_fn;
	void *token_arg;
	char token[SW_EKS_TOKEN_MAX + 1];
};

/*
 * Connect to server ("https://..."; "http://127.0.0.1:..." only when
 * allow_loopback_http is set, for tests) trusting only ca_pem (copied;
 * NULL uses the system store).  Free with k8s_free().
 */
sw_err k8s_init(struct k8s_client *, const char *server, const char *ca_pem,
    size_t ca_len, int allow_loopback_http);
void k8s_free(struct k8s_client *);
/* A fixed bearer token (copied), or a token source (arg borrowed). */
sw_err k8s_set_token(struct k8s_client *, const char *token);
void k8s_set_token_fn(struct k8s_client *, k8s_token_fn, void *arg);

/*
 * Path of a resource: api_version "v1" -> /api/v1, "apps/v1" ->
 * /apis/apps/v1; ns and name may be NULL.  Names are checked
 * (lower-case DNS labels and dots).  SW_EINVAL when one is bad.
 */
sw_err k8s_path(char *out, size_t outsz, const char *api_version,
    const char *ns, const char *plural, const char *name);

/*
 * The calls.  path is from k8s_path(); objects passed in are borrowed;
 * *out, when the argument is not NULL, is a new reference.  SW_OK on
 * 2xx; otherwise err is filled and the result is SW_ENOTFOUND (404),
 * SW_ECONFLICT (409, 410), SW_EINVAL (400, 422), SW_EFORBIDDEN (401,
 * 403), SW_ETHROTTLED (429), or SW_EUPSTREAM / transport errors.
 */
sw_err k8s_get(struct k8s_client *, const char *path, json_object **out,
    struct k8s_error *);
/* label_selector may be NULL ("app=x,tier!=db" is URL-encoded here). */
sw_err k8s_list(struct k8s_client *, const char *path,
    const char *label_selector, json_object **out, struct k8s_error *);
sw_err k8s_create(struct k8s_client *, const char *path, json_object *obj,
    json_object **out, struct k8s_error *);
/* POST body as JSON to path (no query), e.g. a service proxy path:
 * what answers is whatever the path reaches, so the reply is only
 * required to be JSON. */
sw_err k8s_post(struct k8s_client *, const char *path, json_object *body,
    json_object **out, struct k8s_error *);
/* Server-side apply of obj (its managedFields are dropped) to the
 * object's own path, fieldManager=slipway&force=true. */
sw_err k8s_apply(struct k8s_client *, const char *path, json_object *obj,
    json_object **out, struct k8s_error *);
/* RFC 7386 merge patch, e.g. {"metadata":{"labels":{"k":null}}}. */
sw_err k8s_merge_patch(struct k8s_client *, const char *path,
    json_object *patch, json_object **out, struct k8s_error *);
/* Delete; a 404 is SW_ENOTFOUND so callers can treat it as done. */
sw_err k8s_delete(struct k8s_client *, const char *path, struct k8s_error *);
/* Delete with DeleteOptions propagationPolicy (Background, Foreground,
 * Orphan): a Job's pods go with it only when asked. */
sw_err k8s_delete_propagate(struct k8s_client *, const char *path,
    const char *policy, struct k8s_error *);

/*
 * Watch a collection from resource_version (NULL: from now) for up to
 * timeout_s seconds, calling fn per event (BOOKMARKs only move the
 * version).  rv_out (may be NULL) receives the last version seen, to
 * resume from.  A 410 Gone, as HTTP status or as an in-stream ERROR
 * event, returns SW_ECONFLICT with err->gone set: list again.
 */
sw_err k8s_watch(struct k8s_client *, const char *path,
    const char *label_selector, const char *resource_version, int timeout_s,
    k8s_event_fn fn, void *arg, char *rv_out, size_t rvsz, struct k8s_error *);
/*
 * List, report each item as a "SYNC" event, then watch; on 410 Gone
 * list and watch again, at most rounds times in all.
 */
sw_err k8s_list_watch(struct k8s_client *, const char *path,
    const char *label_selector, int timeout_s, int rounds, k8s_event_fn fn,
    void *arg, struct k8s_error *);
/*
 * Pod logs: container is required for multi-container pods (may be
 * NULL otherwise), tail_lines < 0 means all; with follow the stream is
 * read until the pod ends, fn returns non-zero, or timeout_s passes.
 */
sw_err k8s_logs(struct k8s_client *, const char *ns, const char *pod,
    const char *container, int follow, long tail_lines, int timeout_s,
    k8s_chunk_fn fn, void *arg, struct k8s_error *);
/* The same with each line prefixed by its RFC 3339 timestamp and a
 * space (timestamps=true), as a follower needs to resume. */
sw_err k8s_logs_stamped(struct k8s_client *, const char *ns, const char *pod,
    const char *container, int follow, long tail_lines, int timeout_s,
    k8s_chunk_fn fn, void *arg, struct k8s_error *);

#endif
