/*
 * router.c: see router.h.  The only place that decides who may call
 * what: handlers never check credentials themselves.  Knows the
 * operation table and the request, never a handler: those come in the
 * table the routing program passes.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "lib/buf.h"
#include "lib/digest.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/oidc.h"
#include "lib/teams.h"
#include "api/optable.h"
#include "api/router.h"
#include "lib/url.h"
#include "lib/ops.h"

const char *
sw_path_segment_bad(const char *v)
{
	const unsigned char *p;

	if (strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
		return "must not be '.' or '..'";
	for (p = (const unsigned char *)v; *p != '\0'; p++) {
		if (*p == '/' || *p == '\\')
			return "must not contain '/' or '\\'";
		if (*p == '%')
			return "must not contain '%' (no double encoding)";
		if (*p < 0x20 || *p == 0x7f)
			return "must not contain control characters";
	}
	return NULL;
}

/* A raw path with an empty, "." or ".." segment is not normalised:
 * nginx routed on its own resolution of it, so it matches nothing. */
static int
path_is_plain(const char *path)
{
	const char *p = path, *s;
	size_t n;

	if (*p != '/')
		return 0;
	while (*p == '/') {
		p++;
		s = strchr(p, '/');
		n = s ? (size_t)(s - p) : strlen(p);
		if ((n == 0 && s != NULL) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
	}
	return 1;
}

/* ---- long-poll slots ------------------------------------------------- */

static struct {
	char dir[512];
	char lane[32];
	int lane_slots;
} polls;

sw_err
sw_route_long_polls(const char *dir, const char *lane, int lane_slots)
{
	polls.dir[0] = '\0';
	if (strlen(dir) >= sizeof(polls.dir) ||
	    strlen(lane) >= sizeof(polls.lane)) {
		sw_error("long-poll slot directory or lane name too long");
		return SW_EINVAL;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		sw_error("cannot create %s: %s", dir, strerror(errno));
		return SW_EINTERNAL;
	}
	if (sw_fmt(polls.dir, sizeof(polls.dir), "%s", dir) != SW_OK ||
	    sw_fmt(polls.lane, sizeof(polls.lane), "%s", lane) != SW_OK) {
		polls.dir[0] = '\0';
		return SW_EINVAL;
	}
	polls.lane_slots = lane_slots;
	return SW_OK;
}

/* Hold one of n slots named prefix.0 .. prefix.(n-1): the locked fd,
 * -1 when all are held, -2 when no slot file can be opened. */
static int
slot_take(const char *prefix, int n)
{
	char path[640];
	int i, fd, opened = 0;

	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s.%d", polls.dir, prefix,
			i) >= (int)sizeof(path))
			return -2;
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			continue;
		opened = 1;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		close(fd);
	}
	return opened ? -1 : -2;
}

/* Take the token's and the lane's slots for a long poll; 0 with the fds
 * in fds[2], or -1 with the request failed (429, or 500). */
static int
long_poll_begin(struct sw_req *r, int fds[2])
{
	char prefix[64];

	fds[0] = fds[1] = -1;
	if (polls.dir[0] == '\0')
		return 0;
	if (sw_fmt(prefix, sizeof(prefix), "token-%s", r->who.token_id) !=
	    SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "token id too long");
		return -1;
	}
	if ((fds[0] = slot_take(prefix, SW_MAX_WAITS_PER_TOKEN)) < 0)
		goto busy;
	if (polls.lane_slots > 0 &&
	    (fds[1] = slot_take(polls.lane, polls.lane_slots)) < 0)
		goto busy;
	return 0;
busy:
	if (fds[0] == -2 || fds[1] == -2)
		sw_req_fail(r, SW_EINTERNAL,
		    "cannot open the long-poll "
		    "slots in %s",
		    polls.dir);
	else {
		if (fds[0] < 0)
			sw_req_fail(r, SW_ETHROTTLED,
			    "token '%s' already "
			    "holds %d long polls; retry when one returns",
			    r->who.name, SW_MAX_WAITS_PER_TOKEN);
		else
			sw_req_fail(r, SW_ETHROTTLED,
			    "all %d long-poll slots "
			    "of %s are busy; retry shortly",
			    polls.lane_slots, polls.lane);
		sw_req_header(r, "Retry-After: %d", SW_WAIT_RETRY_AFTER);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	fds[0] = fds[1] = -1;
	return -1;
}

int
sw_route_hold_begin(const char *token_id, int fds[2])
{
	char prefix[64];

	fds[0] = fds[1] = -1;
	if (polls.dir[0] == '\0')
		return 0;
	if (sw_fmt(prefix, sizeof(prefix), "token-%s", token_id) != SW_OK ||
	    (fds[0] = slot_take(prefix, SW_MAX_WAITS_PER_TOKEN)) < 0)
		return -1;
	if (polls.lane_slots > 0 &&
	    (fds[1] = slot_take(polls.lane, polls.lane_slots)) < 0) {
		close(fds[0]);
		fds[0] = fds[1] = -1;
		return -1;
	}
	return 0;
}

void
sw_route_hold_end(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

static void
long_poll_end(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

sw_handler
sw_route_handler(const struct sw_handler_row *t, const char *op)
{
	for (; t != NULL && t->op != NULL; t++)
		if (strcmp(t->op, op) == 0)
			return t->fn;
	return NULL;
}

sw_err
sw_route_accepted(struct sw_req *r, const char *op_id, int existed)
{
	json_object *o = NULL;
	char url[96];
	sw_err e;

	if ((e = sw_op_get(r->db, op_id, 0, 0, &o)) != SW_OK)
		return sw_req_fail(r, e, "cannot read operation %s", op_id);
	json_object_object_del(o, "params");
	sw_json_add_str(o, "operation_id", op_id);
	sw_json_add_str(o, "status_tool",
	    r->op->status_tool ? r->op->status_tool : "operation_wait");
	sw_json_add_int(o, "poll_interval_seconds",
	    r->op->poll_seconds ? r->op->poll_seconds : 5);
	sw_json_add_bool(o, "idempotent_replay", existed);
	if (sw_fmt(url, sizeof(url), "/api/v1/operations/%s", op_id) != SW_OK) {
		json_object_put(o);
		return sw_req_fail(
		    r, SW_EINTERNAL, "operation id %s too long", op_id);
	}
	sw_req_header(r, "Location: %s", url);
	sw_req_reply(r, 202, o);
	return SW_OK;
}

const struct sw_op *
sw_route_match(struct sw_req *r, json_object *vars)
{
	char allow[128] = "";
	size_t i, off = 0;
	int path_seen = 0;

	if (!path_is_plain(r->uri)) {
		sw_req_fail(r, SW_ENOTFOUND,
		    "no API route %s (the path has "
		    "an empty, '.' or '..' segment)",
		    r->uri);
		return NULL;
	}
	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *op = &sw_optable[i];

		if (!sw_path_match(op->path, r->uri, NULL))
			continue;
		path_seen = 1;
		if (strcmp(op->method, r->method) == 0 ||
		    (strcmp(r->method, "HEAD") == 0 &&
			strcmp(op->method, "GET") == 0)) {
			sw_path_match(op->path, r->uri, vars);
			return op;
		}
		if (off < sizeof(allow)) {
			int n = snprintf(allow + off, sizeof(allow) - off,
			    "%s%s", off ? ", " : "", op->method);
			if (n > 0)
				off += (size_t)n;
		}
	}
	if (path_seen) {
		sw_req_header(r, "Allow: %s", allow);
		sw_req_fail(r, SW_EMETHOD, "%s is not allowed on %s; use %s",
		    r->method, r->uri, allow);
	} else
		sw_req_fail(r, SW_ENOTFOUND, "no API route %s", r->uri);
	return NULL;
}

/*
 * The caller is authenticated: nginx logs each such request in full
 * (X-Slipway-Authenticated, which it keeps from the client), and only a
 * sample of the others (nginx/slipway.conf.in).
 */
static sw_err
authenticated(struct sw_req *r)
{
	sw_req_header(r, "X-Slipway-Authenticated: 1");
	return SW_OK;
}

/* A 401 with the Bearer challenge (naming the resource metadata when
 * a provider is configured). */
static sw_err
unauthenticated(struct sw_req *r, const char *error, const char *why)
{
	char chal[768];

	sw_oidc_challenge(r->cfg, error, chal, sizeof(chal));
	sw_req_header(r, "WWW-Authenticate: %s", chal);
	return sw_req_fail(r, SW_EUNAUTH, "%s", why);
}

static sw_err
authenticate(struct sw_req *r)
{
	char cookie[SW_TOKEN_LEN + 8], why[160];
	const char *a = r->authorization;
	sw_err e;

	if (a != NULL) {
		if (strncasecmp(a, "Bearer ", 7) != 0)
			return unauthenticated(
			    r, NULL, "Authorization must be a Bearer token");
		e = sw_bearer_check(
		    r->db, r->cfg, a + 7, &r->who, why, sizeof(why));
		if (e == SW_EUNAUTH)
			return unauthenticated(r, "invalid_token", why);
		return e == SW_OK ? authenticated(r)
				  : sw_req_fail(r, e, "token check failed");
	}
	if (sw_req_cookie(r, "sw_session", cookie, sizeof(cookie))) {
		e = sw_session_check(r->db, cookie, &r->who);
		if (e == SW_EUNAUTH)
			return sw_req_fail(
			    r, e, "the session has expired; log in again");
		return e == SW_OK ? authenticated(r)
				  : sw_req_fail(r, e, "session check failed");
	}
	return unauthenticated(
	    r, NULL, "send Authorization: Bearer <token> or log in");
}

static int
method_is_safe(const char *m)
{
	return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
}

static const struct sw_field *param_find(
    const struct sw_field *f, const char *name, unsigned where);

/* ---- the team rule --------------------------------------------------- */

const char *
sw_authz_decide(const struct sw_config *cfg, const struct sw_principal *who,
    const struct sw_op *op, const char *team, char *why, size_t whysz)
{
	struct sw_rule_row row = {
		.name = op->name,
		.scope = op->scope,
		.touch = op->touch,
		.readonly = (op->flags & SW_OP_READONLY) != 0,
		.team_arg = sw_op_takes_team(op),
	};

	return sw_team_rule(cfg, who, &row, team, why, whysz);
}

int
sw_authz_may(const struct sw_config *cfg, const struct sw_principal *who,
    const struct sw_op *op)
{
	struct sw_membership m[SW_MAX_MEMBERSHIPS];
	char why[320];
	int n, i;

	if (!sw_op_takes_team(op))
		return sw_authz_decide(cfg, who, op, NULL, why, sizeof(why)) ==
		    NULL;
	if ((n = sw_principal_teams(cfg, who, m, SW_MAX_MEMBERSHIPS)) < 0)
		return sw_authz_decide(cfg, who, op, NULL, why, sizeof(why)) ==
		    NULL;
	for (i = 0; i < n; i++)
		if (sw_authz_decide(
			cfg, who, op, m[i].team, why, sizeof(why)) == NULL)
			return 1;
	return 0;
}

/* A 403 naming the rule, as a problem with one error. */
static sw_err
forbidden(struct sw_req *r, const char *why)
{
	sw_ferr_add(&r->ferrs, "team", "team-rule", "%s", why);
	return sw_req_fail(r, SW_EFORBIDDEN, "%s", why);
}

/*
 * Before the request's input is read: may the caller call this row for
 * some team at all (the rule above)?  And a cookie's Origin.  The team
 * the request names is decided in dispatch (team_rule).
 */
static sw_err
authorize(struct sw_req *r)
{
	const struct sw_op *op = r->op;
	char why[320];

	if (!sw_authz_may(r->cfg, &r->who, op)) {
		if (sw_authz_decide(
			r->cfg, &r->who, op, NULL, why, sizeof(why)) == NULL)
			sw_fmt_text(why, sizeof(why),
			    "rule %s: %s needs a "
			    "role '%s' has in none of its teams",
			    sw_touch_name(op->touch), op->name, r->who.name);
		if (sw_principal_teams(r->cfg, &r->who, NULL, 0) < 0)
			return sw_req_fail(r, SW_EFORBIDDEN, "%s", why);
		return forbidden(r, why);
	}
	/* A cookie rides along on cross-site requests: demand our Origin. */
	if (r->who.via_cookie && !method_is_safe(op->method) &&
	    !sw_config_origin_allowed(r->cfg, r->origin, r->host))
		return sw_req_fail(r, SW_EFORBIDDEN,
		    "state-changing requests with a session cookie need a "
		    "matching Origin header");
	return SW_OK;
}

/* A string argument name, from params or else body (NULL: none). */
static const char *
arg_str(json_object *params, json_object *body, const char *name)
{
	const char *v = sw_json_get_str(params, name);

	return v != NULL ? v : sw_json_get_str(body, name);
}

#define TEAM_NS "hyperpod-ns-"

/* The team a request is for: its team argument, else the team of a
 * hyperpod-ns-<team> namespace (TEAM rows), else the Slipway-Team
 * header's (the team the UI works as), else the first of the caller's
 * teams whose role allows the row; into buf.  NULL: none. */
static const char *
request_team(struct sw_req *r, json_object *params, json_object *body,
    char *buf, size_t bufsz)
{
	struct sw_membership m[SW_MAX_MEMBERSHIPS];
	const char *t = arg_str(params, body, "team"), *ns;
	char why[320];
	int n, i;

	if (t == NULL && r->op->touch == SW_TOUCH_TEAM &&
	    (ns = arg_str(params, body, "namespace")) != NULL &&
	    strncmp(ns, TEAM_NS, strlen(TEAM_NS)) == 0)
		t = ns + strlen(TEAM_NS);
	if (t == NULL)
		t = r->team_header;
	if (t != NULL)
		return sw_fmt(buf, bufsz, "%s", t) == SW_OK ? buf : NULL;
	n = sw_principal_teams(r->cfg, &r->who, m, SW_MAX_MEMBERSHIPS);
	if (n <= 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (sw_authz_decide(r->cfg, &r->who, r->op, m[i].team, why,
			sizeof(why)) == NULL)
			break;
	return sw_fmt(buf, bufsz, "%s", m[i < n ? i : 0].team) == SW_OK ? buf
									: NULL;
}

/* Put name = value where the row reads it: its query/path fields, or
 * the body. */
static void
arg_set(struct sw_req *r, json_object *params, json_object *body,
    const char *name, const char *value)
{
	json_object *where =
	    param_find(r->op->params, name, SW_F_PATH | SW_F_QUERY) != NULL
	    ? params
	    : body;

	json_object_object_del(params, name);
	json_object_object_del(body, name);
	sw_json_add_str(where, name, value);
}

/*
 * The team rule on the request's team, before its input is validated:
 * a 403 naming the rule, or the team's namespace set on a TEAM row (a
 * namespace of another team is a 400) and the team set on a row that
 * takes one (a service account's team).
 */
static sw_err
team_rule(struct sw_req *r, json_object *params, json_object *body)
{
	char buf[SW_MAX_TEAM + 1], ns[SW_MAX_TEAM + 16], why[320];
	const char *team, *given;

	if ((r->op->flags & SW_OP_PUBLIC) || !sw_op_takes_team(r->op))
		return SW_OK;
	team = request_team(r, params, body, buf, sizeof(buf));
	if (sw_authz_decide(r->cfg, &r->who, r->op, team, why, sizeof(why)) !=
	    NULL)
		return forbidden(r, why);
	if (team == NULL && arg_str(params, body, "team") != NULL) {
		json_object_object_del(params, "team");
		json_object_object_del(body, "team");
		sw_ferr_add(&r->ferrs, "team", "maxLength",
		    "must be at most "
		    "%d characters",
		    SW_MAX_TEAM);
	}
	if (team == NULL)
		return SW_OK;
	if (r->op->touch != SW_TOUCH_TEAM) {
		arg_set(r, params, body, "team", team);
		return SW_OK;
	}
	json_object_object_del(params, "team");
	json_object_object_del(body, "team");
	if (strlen(team) > SW_MAX_TEAM || team[0] == '-' ||
	    team[strlen(team) - 1] == '-' ||
	    strspn(team, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
		strlen(team)) {
		sw_ferr_add(&r->ferrs, "team", "pattern",
		    "must be 1 to %d "
		    "of [a-z0-9-], not starting or ending with '-'",
		    SW_MAX_TEAM);
		return SW_OK;
	}
	if (sw_fmt(ns, sizeof(ns), TEAM_NS "%s", team) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "team name too long");
	given = arg_str(params, body, "namespace");
	if (given != NULL && strcmp(given, ns) != 0)
		sw_ferr_add(&r->ferrs, "namespace", "team",
		    "is %s, the "
		    "namespace of team %s; %s is not",
		    ns, team, given);
	else
		arg_set(r, params, body, "namespace", ns);
	return SW_OK;
}

static int
content_type_is_json(const char *ct)
{
	size_t n = strlen("application/json");

	return ct != NULL && strncasecmp(ct, "application/json", n) == 0 &&
	    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static sw_err
read_body(struct sw_req *r, json_object **body)
{
	char why[160];
	size_t i;
	int blank = 1;

	*body = NULL;
	if (r->body_too_big)
		return sw_req_fail(r, SW_ETOOBIG,
		    "request body is larger than %d bytes", SW_MAX_BODY);
	for (i = 0; i < r->body_len; i++)
		if (r->body[i] == '\0' ||
		    strchr(" \t\r\n", r->body[i]) == NULL) {
			blank = 0;
			break;
		}
	if (blank) {
		*body = json_object_new_object();
		return SW_OK;
	}
	if (!content_type_is_json(r->content_type))
		return sw_req_fail(
		    r, SW_EMEDIA, "Content-Type must be application/json");
	if (sw_json_parse(r->body, r->body_len, body, why, sizeof(why)) !=
	    SW_OK)
		return sw_req_fail(r, SW_EBADJSON, "body: %s", why);
	if (!json_object_is_type(*body, json_type_object)) {
		json_object_put(*body);
		*body = NULL;
		sw_ferr_add(
		    &r->ferrs, "", "type", "body must be a JSON object");
		return sw_req_fail(r, SW_EINVAL, "body must be a JSON object");
	}
	return SW_OK;
}

static const struct sw_field *
param_find(const struct sw_field *f, const char *name, unsigned where)
{
	for (; f != NULL && f->name != NULL; f++)
		if ((f->flags & where) && strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* REST: path variables (percent-decoded) and query parameters as
 * text, typed by their fields, into params. */
static sw_err
collect_params(struct sw_req *r, json_object *vars, json_object *params)
{
	const struct sw_field *f;
	char key[128], val[SW_MAX_QUERY];
	const char *p, *amp, *eq;
	size_t len;
	json_object *v;

	json_object_object_foreach(vars, name, raw)
	{
		f = param_find(r->op->params, name, SW_F_PATH);
		if (f == NULL)
			continue;
		p = json_object_get_string(raw);
		if (sw_pct_decode(p, strlen(p), val, sizeof(val), 0) < 0) {
			sw_ferr_add(&r->ferrs, name, "encoding",
			    "is not valid percent-encoding");
			continue;
		}
		if (sw_text_bad(val, strlen(val)) != NULL) {
			sw_ferr_add(
			    &r->ferrs, name, "encoding", "is not valid UTF-8");
			continue;
		}
		v = sw_field_from_text(f, val, &r->ferrs);
		if (v != NULL)
			json_object_object_add(params, name, v);
	}
	if (r->query != NULL && strlen(r->query) > SW_MAX_QUERY)
		return sw_req_fail(r, SW_EINVAL, "query string too long");
	for (p = r->query; p != NULL && *p != '\0'; p = amp ? amp + 1 : NULL) {
		amp = strchr(p, '&');
		len = amp ? (size_t)(amp - p) : strlen(p);
		if (len == 0)
			continue;
		eq = memchr(p, '=', len);
		if (sw_url_decode(
			p, eq ? (size_t)(eq - p) : len, key, sizeof(key)) < 0 ||
		    (eq != NULL &&
			sw_url_decode(eq + 1, len - (size_t)(eq - p) - 1, val,
			    sizeof(val)) < 0)) {
			sw_ferr_add(&r->ferrs, "query", "encoding",
			    "is not valid percent-encoding");
			continue;
		}
		if (sw_text_bad(key, strlen(key)) != NULL) {
			sw_ferr_add(&r->ferrs, "query", "encoding",
			    "a parameter name is not valid UTF-8");
			continue;
		}
		if (eq == NULL)
			memcpy(val, "true", sizeof("true"));
		else if (sw_text_bad(val, strlen(val)) != NULL) {
			sw_ferr_add(
			    &r->ferrs, key, "encoding", "is not valid UTF-8");
			continue;
		}
		if (strcmp(key, "dry_run") == 0 &&
		    (r->op->flags & SW_OP_DRY_RUN))
			f = &sw_dry_run_field;
		else if (strcmp(key, "team") == 0 &&
		    r->op->touch == SW_TOUCH_TEAM)
			f = &sw_team_field;
		else
			f = param_find(r->op->params, key, SW_F_QUERY);
		if (f == NULL) {
			sw_ferr_add(&r->ferrs, key, "unknown",
			    "is not a known query parameter");
			continue;
		}
		if (json_object_object_get_ex(params, key, NULL)) {
			sw_ferr_add(&r->ferrs, key, "duplicate",
			    "is given more than once");
			continue;
		}
		if ((v = sw_field_from_text(f, val, &r->ferrs)) != NULL)
			json_object_object_add(params, key, v);
	}
	return SW_OK;
}

/* SHA-256 of the operation name and its validated input. */
static void
hash_request(struct sw_req *r)
{
	unsigned char md[32];
	unsigned int len = 0;
	const char *text = sw_json_str(r->args);
	EVP_MD_CTX *ctx;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return;
	EVP_DigestInit_ex(ctx, sw_sha256(), NULL);
	EVP_DigestUpdate(ctx, r->op->name, strlen(r->op->name) + 1);
	EVP_DigestUpdate(ctx, text, strlen(text));
	EVP_DigestFinal_ex(ctx, md, &len);
	EVP_MD_CTX_free(ctx);
	sw_hex_encode(md, 32, r->request_hash);
}

/*
 * An Idempotency-Key already used by this token: the same request gets
 * the first operation back (before any handler work, so pre-flight
 * reads cannot make it look different); another request is a 409.
 * Returns 1 when the request was answered here.
 */
static int
replay(struct sw_req *r)
{
	char id[SW_OP_ID_LEN];
	sw_err e;

	e = sw_op_find_idem(
	    r->db, r->who.name, r->idem_key, r->request_hash, id);
	if (e == SW_ENOTFOUND)
		return 0;
	if (e == SW_ECONFLICT) {
		sw_req_fail(r, e,
		    "Idempotency-Key %s was used for a different "
		    "request",
		    r->idem_key);
		return 1;
	}
	if (e != SW_OK) {
		sw_req_fail(r, e, "cannot look up the Idempotency-Key");
		return 1;
	}
	(void)sw_route_accepted(r, id, 1);
	return 1;
}

/* Every path value is one plain, non-empty segment, whichever face it
 * came from (a REST path already matched one; MCP arguments did not). */
static void
check_segments(struct sw_req *r, json_object *params)
{
	const struct sw_field *f;
	const char *bad;
	json_object *v;

	for (f = r->op->params; f != NULL && f->name != NULL; f++) {
		if (!(f->flags & SW_F_PATH) ||
		    (v = sw_json_get(params, f->name)) == NULL ||
		    !json_object_is_type(v, json_type_string))
			continue;
		if (json_object_get_string_len(v) == 0)
			sw_ferr_add(&r->ferrs, f->name, "minLength",
			    "must not be empty");
		else if ((bad = sw_path_segment_bad(
			      json_object_get_string(v))) != NULL)
			sw_ferr_add(&r->ferrs, f->name, "segment", "%s", bad);
		else
			continue;
		/* Named once: the field's own rules would only repeat it. */
		json_object_object_del(params, f->name);
	}
}

#ifdef SW_FAULT_INJECTION
/*
 * Test builds: every answer of a row that describes its answers is
 * checked against the answer row of its status (the dry run's when it
 * was one), so a handler cannot drift from the document unseen.  A
 * mismatch is logged and the answer becomes a 500 that names each
 * member and the rule it breaks.
 */
/* Does r's answer break answer row a?  Adds why to errs. */
static void
answer_against(
    const struct sw_req *r, const struct sw_answer *a, struct sw_ferrs *errs)
{
	const struct sw_field *f = sw_answer_fields(a);

	if (f == NULL) {
		if (r->raw == NULL)
			sw_ferr_add(errs, "", "media",
			    "JSON where %s is "
			    "documented",
			    a->media ? a->media : "text");
	} else if (r->raw != NULL)
		sw_ferr_add(errs, "", "media", "%s where JSON is documented",
		    r->raw_type ? r->raw_type : "bytes");
	else
		(void)sw_validate_answer(r->out, f, errs);
}

static void
answer_check(struct sw_req *r)
{
	const struct sw_answer *a;
	struct sw_ferrs errs, one;
	int status = r->status ? r->status : 200, tried = 0;

	if (r->err != SW_OK || r->op == NULL || r->op->answers == NULL)
		return;
	memset(&errs, 0, sizeof(errs));
	for (a = r->op->answers; a->status != 0; a++) {
		if (!sw_answer_fits(a, status, r->dry_run))
			continue;
		memset(&one, 0, sizeof(one));
		answer_against(r, a, &one);
		if (one.n == 0)
			return; /* it is this answer */
		if (tried++ == 0)
			errs = one;
	}
	if (tried == 0)
		sw_ferr_add(&errs, "", "status",
		    "%d%s is not an answer of "
		    "this operation",
		    status, r->dry_run ? " (dry run)" : "");
	sw_error("answer of %s (%d%s) does not match its schema: %s: %s "
		 "(%s)",
	    r->op->name, status, r->dry_run ? ", dry run" : "", errs.e[0].field,
	    errs.e[0].msg, errs.e[0].rule);
	r->ferrs = errs;
	sw_req_fail(r, SW_EINTERNAL,
	    "the answer of %s does not match its "
	    "schema (%d problems; the first: %s %s)",
	    r->op->name, errs.n, errs.e[0].field, errs.e[0].msg);
}
#endif

/*
 * What both faces share once the input is JSON: params (path and query
 * members, typed) and body, both stolen.  Validation against the row,
 * dry_run, the request hash and an Idempotency-Key replay, the
 * long-poll slots, then the handler.
 */
static void
dispatch_input(struct sw_req *r, json_object *params, json_object *body,
    const struct sw_handler_row *table)
{
	int poll_fds[2] = { -1, -1 };
	json_object *dr;
	sw_handler fn;
	sw_err e;

	if (team_rule(r, params, body) != SW_OK)
		goto out;
	check_segments(r, params);
	if ((dr = sw_json_get(params, "dry_run")) != NULL) {
		if (json_object_is_type(dr, json_type_boolean))
			r->dry_run = json_object_get_boolean(dr);
		else
			sw_ferr_add(
			    &r->ferrs, "dry_run", "type", "must be boolean");
		json_object_object_del(params, "dry_run");
	}
	sw_valid_words(sw_pattern_words);
	if (r->op->params != NULL)
		(void)sw_validate(
		    params, r->op->params, SW_F_PATH | SW_F_QUERY, &r->ferrs);
	(void)sw_validate(body, r->op->body, 0, &r->ferrs);
	if (r->ferrs.n > 0) {
		r->err = SW_EINVAL;
		goto out;
	}
	/* Merge: path and query win over body members of the same name. */
	json_object_object_foreach(params, k, v)
	    json_object_object_add(body, k, json_object_get(v));
	r->args = body;
	body = NULL;
	if (r->op->flags & SW_OP_LONG) {
		hash_request(r);
		if (r->idem_key != NULL && !r->dry_run && replay(r))
			goto out;
	}
	if ((fn = sw_route_handler(table, r->op->name)) == NULL) {
		sw_req_fail(r, SW_EINTERNAL,
		    "%s has no handler in this "
		    "program",
		    r->op->name);
		goto out;
	}
	if ((r->op->flags & SW_OP_LONG_POLL) &&
	    long_poll_begin(r, poll_fds) != 0)
		goto out;
	e = fn(r);
	long_poll_end(poll_fds);
	if (e != SW_OK && r->err == SW_OK)
		sw_req_fail(r, e, "%s failed", r->op->name);
out:
#ifdef SW_FAULT_INJECTION
	answer_check(r);
#endif
	json_object_put(params);
	json_object_put(body);
}

/* A path or query argument given as JSON: the field's own type, or a
 * scalar in the text form a URL would carry (as REST reads it). */
static json_object *
param_value(struct sw_req *r, const struct sw_field *f, json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
		if (f->type == SW_T_STRING)
			return json_object_get(v);
		/* FALLTHROUGH */
	case json_type_int:
	case json_type_boolean:
	case json_type_double:
		return sw_field_from_text(
		    f, json_object_get_string(v), &r->ferrs);
	default:
		return json_object_get(v); /* validation names it */
	}
}

void
sw_dispatch(struct sw_req *r, const struct sw_op *op,
    const struct sw_principal *who, json_object *args,
    const struct sw_handler_row *table)
{
	json_object *params = json_object_new_object(), *body, *pv;
	const struct sw_field *f;

	body = json_object_new_object();
	r->op = op;
	if (!(op->flags & SW_OP_PUBLIC)) {
		r->who = *who;
		if (authorize(r) != SW_OK)
			goto fail;
	}
	if (args != NULL && !json_object_is_type(args, json_type_object)) {
		sw_ferr_add(
		    &r->ferrs, "", "type", "arguments must be a JSON object");
		sw_req_fail(r, SW_EINVAL, "arguments must be a JSON object");
		goto fail;
	}
	if (args == NULL)
		args = body; /* no arguments: an empty object */
	json_object_object_foreach(args, k, v)
	{
		f = param_find(op->params, k, SW_F_PATH | SW_F_QUERY);
		if (f == NULL && strcmp(k, "dry_run") == 0 &&
		    (op->flags & SW_OP_DRY_RUN))
			f = &sw_dry_run_field;
		if (f == NULL && strcmp(k, "team") == 0 &&
		    op->touch == SW_TOUCH_TEAM)
			f = &sw_team_field;
		if (f == NULL)
			json_object_object_add(body, k, json_object_get(v));
		else if (v != NULL && !json_object_is_type(v, json_type_null) &&
		    (pv = param_value(r, f, v)) != NULL)
			json_object_object_add(params, k, pv);
	}
	if (r->ferrs.n > 0) {
		r->err = SW_EINVAL;
		goto fail;
	}
	dispatch_input(r, params, body, table);
	return;
fail:
	json_object_put(params);
	json_object_put(body);
}

/* REST: who calls (a token or a session, or the principal an
 * in-process caller checked), and may they. */
static sw_err
rest_caller(struct sw_req *r)
{
	if (!(r->op->flags & SW_OP_PUBLIC)) {
		if (r->principal != NULL)
			r->who = *r->principal;
		else if (authenticate(r) != SW_OK)
			return r->err;
		return authorize(r);
	}
	if (!method_is_safe(r->method) && r->origin != NULL &&
	    !sw_config_origin_allowed(r->cfg, r->origin, r->host))
		return sw_req_fail(r, SW_EFORBIDDEN,
		    "Origin %s is not "
		    "allowed",
		    r->origin);
	return SW_OK;
}

static sw_err
idem_key_check(struct sw_req *r)
{
	if (r->idem_key == NULL ||
	    (strlen(r->idem_key) <= SW_MAX_IDEMPOTENCY_KEY &&
		strspn(r->idem_key,
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789-_.:") == strlen(r->idem_key)))
		return SW_OK;
	sw_ferr_add(&r->ferrs, "Idempotency-Key", "pattern",
	    "must be 1 to %d of [A-Za-z0-9-_.:]", SW_MAX_IDEMPOTENCY_KEY);
	return sw_req_fail(r, SW_EINVAL,
	    "Idempotency-Key: must be 1 to %d "
	    "of [A-Za-z0-9-_.:]",
	    SW_MAX_IDEMPOTENCY_KEY);
}

/* DNS rebinding: a page of another name resolving to us.  An
 * in-process caller checked the Host itself.  The health check (no
 * data) answers any Host: a load balancer names the target's address. */
static int
host_ok(const struct sw_req *r)
{
	size_t i;

	if (r->principal != NULL || r->cfg == NULL ||
	    sw_config_host_allowed(r->cfg, r->host))
		return 1;
	if (strlen(r->uri) > SW_MAX_PATH || !path_is_plain(r->uri))
		return 0;
	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *op = &sw_optable[i];

		if ((op->flags & SW_OP_ANY_HOST) &&
		    (strcmp(op->method, r->method) == 0 ||
			(strcmp(r->method, "HEAD") == 0 &&
			    strcmp(op->method, "GET") == 0)) &&
		    sw_path_match(op->path, r->uri, NULL))
			return 1;
	}
	return 0;
}

void
sw_route(struct sw_req *r, const struct sw_handler_row *table)
{
	json_object *vars = NULL, *params = NULL, *body = NULL;

	vars = json_object_new_object();
	if (!host_ok(r)) {
		sw_req_fail(r, SW_EFORBIDDEN,
		    "the Host header names neither "
		    "a loopback address nor the host of an allowed origin");
		goto out;
	}
	if (strlen(r->uri) > SW_MAX_PATH) {
		sw_req_fail(r, SW_ENOTFOUND, "path too long");
		goto out;
	}
	if ((r->op = sw_route_match(r, vars)) == NULL ||
	    rest_caller(r) != SW_OK || idem_key_check(r) != SW_OK ||
	    read_body(r, &body) != SW_OK)
		goto out;
	params = json_object_new_object();
	if (collect_params(r, vars, params) != SW_OK)
		goto out;
	dispatch_input(r, params, body, table);
	params = body = NULL;
out:
	json_object_put(vars);
	json_object_put(params);
	json_object_put(body);
}
