/*
 * mcp_subs.c: resource subscriptions (see mcp.h).
 *
 * An operation (slipway://operations/{id}) or a cluster
 * (slipway://clusters/{name}) can be subscribed to; the caller must be
 * able to read it (the subscription reads it once, through its REST
 * row).  Its stamp is the operation's updated_ms, or for a cluster the
 * newest updated_ms of its operations: every event a pipeline writes
 * moves it, and a moved stamp is one notifications/resources/updated.
 *
 * Legacy sessions: resources/subscribe keeps the subscription in
 * run/mcp-subs/<session>/ (any worker may answer the session's next
 * request) and the session's GET stream watches them.  The folder
 * names its token in .token; one token holds at most
 * SW_MCP_MAX_SUB_SESSIONS such folders of SW_MCP_MAX_SUBS each, and a
 * folder goes when its session expires (the session id's first 16 hex
 * digits are its expiry, seconds since the epoch): swept whenever a
 * session subscribes for the first time.  A stream with
 * nothing to watch closes at once and tells the client when to come
 * back (retry:); one with subscriptions stays open up to
 * SW_MCP_STREAM_HOLD seconds.  2026-07-28: subscriptions/listen names
 * the resources itself; its stream acknowledges them, sends each
 * update, and ends with its (empty) result when every subscribed
 * operation has ended or the hold is over.  A held stream takes the
 * caller's long-poll slot, so the per-token cap covers it too.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "mcp/mcp.h"
#include "lib/ops.h"
#include "lib/url.h"
#include "api/router.h"

#define PFX "slipway://"

struct watch {
	char uri[256];
	char file[160]; /* its file in the session's folder */
	int64_t stamp;
	int ended; /* a terminal operation, notified */
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The kind ('o' operation, 'c' cluster) and key of a subscribable URI;
 * 0, or -1 when it is not one. */
static int
uri_key(const char *uri, char *kind, char *key, size_t keysz)
{
	const char *rest;

	if (strncmp(uri, PFX "operations/", strlen(PFX "operations/")) == 0) {
		*kind = 'o';
		rest = uri + strlen(PFX "operations/");
	} else if (strncmp(uri, PFX "clusters/", strlen(PFX "clusters/")) ==
	    0) {
		*kind = 'c';
		rest = uri + strlen(PFX "clusters/");
	} else
		return -1;
	if (*rest == '\0' || strlen(rest) >= keysz ||
	    strspn(rest,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
		strlen(rest))
		return -1;
	memcpy(key, rest, strlen(rest) + 1);
	return 0;
}

/* The current stamp of a subscribable URI (0 when it has none yet);
 * *terminal for an operation that has ended. */
static int64_t
uri_stamp(struct sw_mcp *m, const char *uri, int *terminal)
{
	struct sw_op_filter f;
	json_object *list = NULL, *items;
	char kind, key[128], state[16];
	int64_t stamp = 0, u;
	size_t i;

	*terminal = 0;
	if (uri_key(uri, &kind, key, sizeof(key)) != 0)
		return 0;
	if (kind == 'o') {
		if (sw_op_updated(m->db, key, &stamp, state) != SW_OK)
			return 0;
		*terminal = sw_op_state_terminal(state);
		return stamp;
	}
	memset(&f, 0, sizeof(f));
	f.cluster = key;
	f.limit = 20;
	if (sw_op_list(m->db, &f, &list) != SW_OK)
		return 0;
	items = sw_json_get(list, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		u = sw_json_get_int(
		    json_object_array_get_idx(items, i), "updated_ms", 0);
		if (u > stamp)
			stamp = u;
	}
	json_object_put(list);
	return stamp;
}

sw_err
sw_mcp_sub_check(struct sw_mcp *m, const struct sw_principal *who,
    const char *uri, char *why, size_t whysz)
{
	json_object *res = NULL, *problem = NULL;
	char kind, key[128];
	sw_err e;

	if (uri_key(uri, &kind, key, sizeof(key)) != 0) {
		sw_fmt_text(why, whysz,
		    "only slipway://operations/{id} and "
		    "slipway://clusters/{name} can be subscribed to");
		return SW_EINVAL;
	}
	e = sw_mcp_resource_read(m, who, uri, &res, &problem);
	json_object_put(res);
	if (e != SW_OK)
		sw_fmt_text(why, whysz, "%s",
		    sw_json_get_str(problem, "detail")
			? sw_json_get_str(problem, "detail")
			: "cannot read it");
	json_object_put(problem);
	return e;
}

/* Remove a session's folder and the subscriptions in it. */
static void
dir_remove(const char *dir)
{
	char path[900];
	struct dirent *d;
	DIR *dp;

	if ((dp = opendir(dir)) != NULL) {
		while ((d = readdir(dp)) != NULL)
			if (strcmp(d->d_name, ".") != 0 &&
			    strcmp(d->d_name, "..") != 0 &&
			    sw_fmt(path, sizeof(path), "%s/%s", dir,
				d->d_name) == SW_OK)
				(void)unlink(path);
		closedir(dp);
	}
	(void)rmdir(dir);
}

/* The expiry (seconds) a session folder's name carries, 0 if none. */
static int64_t
dir_expiry(const char *name)
{
	int64_t exp = 0;
	int i;

	if (strlen(name) != 34 || strspn(name, "0123456789abcdef") != 34)
		return 0;
	for (i = 0; i < 16; i++)
		exp = exp * 16 + sw_hex_digit(name[i]);
	return exp;
}

/*
 * Sweep the folders of expired sessions out of top, and count those of
 * token_id that remain.
 */
static int
dirs_sweep(const char *top, const char *token_id)
{
	char dir[900], owner[64];
	struct dirent *d;
	DIR *dp;
	FILE *f;
	int n = 0;

	if ((dp = opendir(top)) == NULL)
		return 0;
	while ((d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.' ||
		    snprintf(dir, sizeof(dir), "%s/%s", top, d->d_name) >=
			(int)sizeof(dir))
			continue;
		if (dir_expiry(d->d_name) * 1000 < now_ms()) {
			dir_remove(dir);
			continue;
		}
		owner[0] = '\0';
		if (snprintf(dir, sizeof(dir), "%s/%s/.token", top, d->d_name) <
			(int)sizeof(dir) &&
		    (f = fopen(dir, "r")) != NULL) {
			if (fgets(owner, sizeof(owner), f) == NULL)
				owner[0] = '\0';
			fclose(f);
		}
		if (strcmp(owner, token_id) == 0)
			n++;
	}
	closedir(dp);
	return n;
}

/*
 * run/mcp-subs/<session payload>.  With mk, made (with its .token) when
 * it is not there yet, unless token_id holds SW_MCP_MAX_SUB_SESSIONS
 * already: then 1.  0, or -1 on a bad id or a failure.
 */
static int
session_dir(const struct sw_mcp *m, const char *sid, const char *token_id,
    int mk, char *out, size_t sz)
{
	char top[600], own[900];
	struct stat sb;
	FILE *f;

	if (sid == NULL || strlen(sid) < 34 ||
	    strspn(sid, "0123456789abcdef") < 34 ||
	    sw_fmt(top, sizeof(top), "%s/run/mcp-subs", m->cfg->state_dir) !=
		SW_OK ||
	    sw_fmt(out, sz, "%s/%.34s", top, sid) != SW_OK ||
	    sw_fmt(own, sizeof(own), "%s/.token", out) != SW_OK)
		return -1;
	if (!mk || stat(out, &sb) == 0)
		return 0;
	if (dirs_sweep(top, token_id) >= SW_MCP_MAX_SUB_SESSIONS)
		return 1;
	if ((mkdir(top, 0700) != 0 && errno != EEXIST) ||
	    (mkdir(out, 0700) != 0 && errno != EEXIST) ||
	    (f = fopen(own, "w")) == NULL)
		return -1;
	fputs(token_id, f);
	return fclose(f) == 0 ? 0 : -1;
}

/* Subscriptions in a session's folder (its .token aside). */
static int
dir_count(const char *dir)
{
	struct dirent *d;
	DIR *dp;
	int n = 0;

	if ((dp = opendir(dir)) == NULL)
		return 0;
	while ((d = readdir(dp)) != NULL)
		n += d->d_name[0] != '.';
	closedir(dp);
	return n;
}

static int
watch_write(const char *dir, const struct watch *w)
{
	char path[900];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, w->file) >=
		(int)sizeof(path) ||
	    (f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "%s\n%lld\n", w->uri, (long long)w->stamp);
	return fclose(f) == 0 ? 0 : -1;
}

sw_err
sw_mcp_subscribe(struct sw_mcp *m, const struct sw_principal *who,
    const char *sid, const char *uri, int on, char *why, size_t whysz)
{
	char dir[700], path[900], kind, key[128];
	struct stat sb;
	struct watch w;
	int terminal, rc;
	sw_err e;

	if (on && (e = sw_mcp_sub_check(m, who, uri, why, whysz)) != SW_OK)
		return e;
	if (uri_key(uri, &kind, key, sizeof(key)) != 0) {
		sw_fmt_text(why, whysz, "not a subscribable resource");
		return SW_EINVAL;
	}
	if ((rc = session_dir(m, sid, who->token_id, on, dir, sizeof(dir))) ==
	    1) {
		sw_fmt_text(why, whysz,
		    "this token holds subscriptions in %d "
		    "sessions already; unsubscribe or let one expire",
		    SW_MCP_MAX_SUB_SESSIONS);
		return SW_ETHROTTLED;
	}
	if (rc != 0) {
		sw_fmt_text(why, whysz, "cannot keep subscriptions");
		return SW_EINTERNAL;
	}
	memset(&w, 0, sizeof(w));
	if (strlen(uri) >= sizeof(w.uri) ||
	    snprintf(w.file, sizeof(w.file), "%c-%s", kind, key) >=
		(int)sizeof(w.file)) {
		sw_fmt_text(why, whysz, "the URI is too long");
		return SW_EINVAL;
	}
	memcpy(w.uri, uri, strlen(uri) + 1);
	if (!on) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, w.file) <
		    (int)sizeof(path))
			(void)unlink(path);
		if (dir_count(dir) == 0)
			dir_remove(dir); /* frees the token's slot */
		return SW_OK;
	}
	if (snprintf(path, sizeof(path), "%s/%s", dir, w.file) <
		(int)sizeof(path) &&
	    stat(path, &sb) != 0 && dir_count(dir) >= SW_MCP_MAX_SUBS) {
		sw_fmt_text(why, whysz,
		    "a session may hold at most %d "
		    "subscriptions",
		    SW_MCP_MAX_SUBS);
		return SW_ETHROTTLED;
	}
	w.stamp = uri_stamp(m, uri, &terminal);
	if (watch_write(dir, &w) != 0) {
		sw_fmt_text(why, whysz, "cannot keep the subscription");
		return SW_EINTERNAL;
	}
	return SW_OK;
}

/* The session's subscriptions from its folder. */
static int
watch_load(const char *dir, struct watch *w, int max)
{
	char path[900], line[300];
	struct dirent *d;
	DIR *dp;
	FILE *f;
	int n = 0;

	if ((dp = opendir(dir)) == NULL)
		return 0;
	while ((d = readdir(dp)) != NULL && n < max) {
		if (d->d_name[0] == '.' ||
		    strlen(d->d_name) >= sizeof(w[n].file) ||
		    sw_fmt(path, sizeof(path), "%s/%s", dir, d->d_name) !=
			SW_OK ||
		    (f = fopen(path, "r")) == NULL)
			continue;
		memset(&w[n], 0, sizeof(w[n]));
		memcpy(w[n].file, d->d_name, strlen(d->d_name) + 1);
		if (fgets(line, sizeof(line), f) != NULL &&
		    strcspn(line, "\n") < sizeof(w[n].uri)) {
			line[strcspn(line, "\n")] = '\0';
			memcpy(w[n].uri, line, strlen(line) + 1);
			if (fgets(line, sizeof(line), f) != NULL)
				w[n].stamp = strtoll(line, NULL, 10);
			n++;
		}
		fclose(f);
	}
	closedir(dp);
	return n;
}

static sw_err
send_updated(struct sw_mcp_answer *out, const char *uri, json_object *sub)
{
	json_object *o = json_object_new_object(), *p, *meta;
	sw_err e;

	p = json_object_new_object();
	sw_json_add_str(p, "uri", uri);
	if (sub != NULL) {
		meta = json_object_new_object();
		json_object_object_add(
		    meta, SW_MCP_META_SUBSCRIPTION, json_object_get(sub));
		json_object_object_add(p, "_meta", meta);
	}
	sw_json_add_str(o, "jsonrpc", "2.0");
	sw_json_add_str(o, "method", "notifications/resources/updated");
	json_object_object_add(o, "params", p);
	e = sw_mcp_sse_send(out, o, NULL);
	json_object_put(o);
	return e;
}

/*
 * Watch w[0..n) (reloaded from dir each round when dir is given) until
 * the hold is over, the client goes away, or (listen: sub given) every
 * watched operation has ended.
 */
static void
watch_loop(struct sw_mcp *m, struct sw_mcp_answer *out, const char *dir,
    struct watch *w, int n, json_object *sub)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	int64_t end = now_ms() + SW_MCP_STREAM_HOLD * 1000, cur, ka = 0;
	int i, terminal, open_ops;

	while (!out->stream_broken && now_ms() < end) {
		if (dir != NULL &&
		    (n = watch_load(dir, w, SW_MCP_MAX_SUBS)) == 0)
			break;
		open_ops = 0;
		for (i = 0; i < n; i++) {
			cur = uri_stamp(m, w[i].uri, &terminal);
			if (cur > w[i].stamp) {
				if (send_updated(out, w[i].uri, sub) != SW_OK)
					return;
				w[i].stamp = cur;
				if (dir != NULL)
					(void)watch_write(dir, &w[i]);
			}
			if (w[i].uri[strlen(PFX)] != 'o' || !terminal)
				open_ops++;
		}
		if (sub != NULL && open_ops == 0)
			return;
		if (now_ms() - ka >= 1000) {
			/* Also finds a client that has gone. */
			(void)sw_mcp_sse_send(out, NULL, NULL);
			ka = now_ms();
		}
		nanosleep(&nap, NULL);
	}
}

void
sw_mcp_stream_session(struct sw_mcp *m, const struct sw_principal *who,
    const char *sid, struct sw_mcp_answer *out)
{
	struct watch w[SW_MCP_MAX_SUBS];
	char dir[700], retry[40];
	int fds[2], n = 0;

	if (session_dir(m, sid, who->token_id, 0, dir, sizeof(dir)) == 0)
		n = watch_load(dir, w, SW_MCP_MAX_SUBS);
	if (sw_mcp_sse_begin(out) != 0)
		return;
	if (sw_fmt(retry, sizeof(retry), "retry: %d\n\n",
		n > 0 ? 500 : SW_MCP_STREAM_IDLE_RETRY_MS) != SW_OK)
		return;
	if (out->stream(out->stream_arg, retry, strlen(retry)) != SW_OK) {
		out->stream_broken = 1;
		return;
	}
	if (n == 0)
		return;
	if (sw_route_hold_begin(who->token_id, fds) != 0)
		return; /* the client comes back after retry */
	watch_loop(m, out, dir, w, n, NULL);
	sw_route_hold_end(fds);
}

int
sw_mcp_listen(struct sw_mcp *m, const struct sw_principal *who, json_object *id,
    json_object *params, struct sw_mcp_answer *out, char *why, size_t whysz)
{
	json_object *uris, *ack, *p, *meta, *honored, *list;
	struct watch w[SW_MCP_MAX_SUBS];
	int fds[2], n = 0, terminal;
	size_t i;

	uris = sw_json_get(
	    sw_json_get(params, "notifications"), "resourceSubscriptions");
	if (uris != NULL &&
	    (!json_object_is_type(uris, json_type_array) ||
		json_object_array_length(uris) > SW_MCP_MAX_SUBS)) {
		sw_fmt_text(why, whysz,
		    "notifications.resourceSubscriptions "
		    "must be an array of at most %d URIs",
		    SW_MCP_MAX_SUBS);
		return -1;
	}
	list = json_object_new_array();
	for (i = 0; uris != NULL && i < json_object_array_length(uris); i++) {
		const char *u =
		    json_object_get_string(json_object_array_get_idx(uris, i));

		if (u == NULL ||
		    sw_mcp_sub_check(m, who, u, why, whysz) != SW_OK ||
		    strlen(u) >= sizeof(w[0].uri)) {
			json_object_put(list);
			return -1;
		}
		memset(&w[n], 0, sizeof(w[n]));
		/* its length is checked above */
		memcpy(w[n].uri, u, strlen(u) + 1);
		w[n].stamp = uri_stamp(m, u, &terminal);
		n++;
		json_object_array_add(list, json_object_new_string(u));
	}
	if (sw_route_hold_begin(who->token_id, fds) != 0) {
		json_object_put(list);
		sw_fmt_text(why, whysz,
		    "this token already holds %d waits or "
		    "streams; close one first",
		    SW_MAX_WAITS_PER_TOKEN);
		return -2;
	}
	if (sw_mcp_sse_begin(out) != 0) {
		json_object_put(list);
		sw_route_hold_end(fds);
		return 0;
	}
	/* Only resource updates are honoured: no list ever changes. */
	honored = json_object_new_object();
	json_object_object_add(honored, "resourceSubscriptions", list);
	p = json_object_new_object();
	json_object_object_add(p, "notifications", honored);
	meta = json_object_new_object();
	json_object_object_add(
	    meta, SW_MCP_META_SUBSCRIPTION, json_object_get(id));
	json_object_object_add(p, "_meta", meta);
	ack = json_object_new_object();
	sw_json_add_str(ack, "jsonrpc", "2.0");
	sw_json_add_str(ack, "method",
	    "notifications/subscriptions/"
	    "acknowledged");
	json_object_object_add(ack, "params", p);
	(void)sw_mcp_sse_send(out, ack, NULL);
	json_object_put(ack);
	if (n > 0)
		watch_loop(m, out, NULL, w, n, id);
	sw_route_hold_end(fds);
	return 0;
}
