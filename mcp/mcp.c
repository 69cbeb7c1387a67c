/*
 * mcp.c: the MCP transport and lifecycle of slipway-mcp (see mcp.h):
 * HTTP checks (Origin, Host, method, bearer token, media types), JSON-RPC
 * envelopes, era selection, the legacy session handshake, the modern
 * per-request metadata checks, and the method table: one row per
 * JSON-RPC method (the eras it exists in, whether its modern result is
 * cacheable, which parameter Mcp-Name repeats) and one function each;
 * tools/call goes on to mcp/mcp_tools.c.
 *
 * A request goes through, in order:
 *   origin_ok/host_ok -> 403      method != POST -> 405 Allow: POST
 *   authenticate      -> 401      body size / media types -> 413/415/406
 *   parse             -> 400 -32700
 *   array             -> batch (legacy 2025-03-26 only, else -32600)
 *   "initialize"      -> legacy handshake, new Mcp-Session-Id
 *   modern _meta or a modern MCP-Protocol-Version -> modern_request()
 *   otherwise         -> legacy_request() (session required)
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "lib/buf.h"
#include "config.h"
#include "lib/json.h"
#include "lib/jscan.h"
#include "lib/log.h"
#include "mcp/mcp.h"
#include "lib/metrics.h"
#include "lib/oidc.h"
#include "lib/ops.h"
#include "lib/url.h"

const char *const sw_mcp_versions[] = { SW_MCP_MODERN_VERSION, "2025-11-25",
	"2025-06-18", "2025-03-26", NULL };
const char *const sw_mcp_legacy_versions[] = { "2025-11-25", "2025-06-18",
	"2025-03-26", NULL };
static const char *const modern_versions[] = { SW_MCP_MODERN_VERSION, NULL };

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER "io.modelcontextprotocol/serverInfo"
#define META_LOG_LEVEL "io.modelcontextprotocol/logLevel"

static const char instructions[] =
    "Slipway creates and runs Amazon EKS + SageMaker HyperPod clusters. "
    "Every change is an operation: a mutating tool answers at once with "
    "an operation id, the status tool to poll and a poll interval. Poll "
    "with operation_wait until the state is succeeded, failed or "
    "cancelled; never sleep blindly and never report a submitted "
    "operation as done. Inspect before creating (cluster_list, az_list, "
    "instance_type_list, training_plan_list). Ask the user only for "
    "decisions (availability zone, instance type, count, capacity type); "
    "CIDRs, subnets, route tables and security groups are Slipway's "
    "work. Rather than polling, call operation_wait with a progress "
    "token (each event arrives as a progress step) or subscribe to "
    "slipway://operations/{id}. Destructive tools run only once the "
    "user confirms: through elicitation when the client offers it, "
    "else call again with confirm: true after showing the plan. The "
    "skills are prompts and slipway://skills/{name} resources.";

/* One request being answered. */
struct ctx {
	struct sw_mcp *m;
	const struct sw_mcp_http *in;
	struct sw_mcp_answer *out;
	struct sw_principal who;
	int modern; /* error shape */
	json_object *error_data; /* owned: next error */
	int client_elicits; /* declared it */
	int sse_ok; /* Accept allows SSE */
	json_object *progress; /* borrowed token */
	int log_min; /* level index, -1 */
	double progress_n; /* last one sent */
};

/* ---- small helpers -------------------------------------------------- */

static int
in_list(const char *const *list, const char *s)
{
	for (; s != NULL && *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

/* The static copy of s from list, so callers can keep it. */
static const char *
list_get(const char *const *list, const char *s)
{
	for (; s != NULL && *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return *list;
	return NULL;
}

static json_object *
str_array(const char *const *list)
{
	json_object *a = json_object_new_array();

	for (; *list != NULL; list++)
		json_object_array_add(a, json_object_new_string(*list));
	return a;
}

static int64_t
now_s(const struct sw_mcp *m)
{
	return m->now ? m->now : (int64_t)time(NULL);
}

void
sw_mcp_answer_init(struct sw_mcp_answer *a)
{
	memset(a, 0, sizeof(*a));
	sw_buf_init(&a->headers, 8192);
	sw_buf_init(&a->body, SW_MCP_MAX_ANSWER);
}

void
sw_mcp_answer_free(struct sw_mcp_answer *a)
{
	sw_buf_free(&a->headers);
	sw_buf_free(&a->body);
}

static void
add_header(struct sw_mcp_answer *a, const char *name, const char *value)
{
	if (sw_buf_puts(&a->headers, name) == SW_OK &&
	    sw_buf_puts(&a->headers, ": ") == SW_OK &&
	    sw_buf_puts(&a->headers, value) == SW_OK)
		(void)sw_buf_puts(&a->headers, "\r\n");
}

/* An answer of len bytes would be over SW_MCP_MAX_ANSWER: a 500
 * JSON-RPC internal error goes instead. */
static void
answer_too_big(struct ctx *c, size_t len)
{
	static const char too_big[] =
	    "{\"jsonrpc\":\"2.0\",\"id\":null,"
	    "\"error\":{\"code\":-32603,\"message\":\"Internal error: "
	    "the answer is larger than the server sends\"}}";

	sw_warn("/mcp answer of %zu bytes is over %d", len, SW_MCP_MAX_ANSWER);
	c->out->status = 500;
	c->out->content_type = "application/json";
	sw_buf_reset(&c->out->body);
	(void)sw_buf_add(&c->out->body, too_big, sizeof(too_big) - 1);
}

/* Answer with a JSON document (borrowed); one over SW_MCP_MAX_ANSWER
 * becomes a 500 JSON-RPC internal error. */
static void
reply_json(struct ctx *c, int status, json_object *doc)
{
	const char *s;

	if (c->out->streamed) {
		/* The response is the last event of the stream. */
		(void)sw_mcp_sse_send(c->out, doc, NULL);
		return;
	}
	s = sw_json_str(doc);
	c->out->status = status;
	c->out->content_type = "application/json";
	sw_buf_reset(&c->out->body);
	if (sw_buf_add(&c->out->body, s, strlen(s)) != SW_OK)
		answer_too_big(c, strlen(s));
}

/* Answer 202 Accepted with no body (notifications, responses). */
static void
reply_accepted(struct ctx *c)
{
	c->out->status = 202;
	c->out->content_type = NULL;
	sw_buf_reset(&c->out->body);
}

/*
 * A JSON-RPC error response.  id is borrowed and may be NULL (unknown):
 * legacy answers then carry "id": null as JSON-RPC 2.0 says, modern ones
 * leave it out as 2026-07-28 says.  data is stolen.  New reference.
 */
static json_object *
rpc_error(const struct ctx *c, json_object *id, int code, const char *msg,
    json_object *data)
{
	json_object *o = json_object_new_object(), *e;

	sw_json_add_str(o, "jsonrpc", "2.0");
	if (id != NULL)
		json_object_object_add(o, "id", json_object_get(id));
	else if (!c->modern)
		json_object_object_add(o, "id", NULL);
	e = json_object_new_object();
	sw_json_add_int(e, "code", code);
	sw_json_add_str(e, "message", msg);
	if (data != NULL)
		json_object_object_add(e, "data", data);
	json_object_object_add(o, "error", e);
	return o;
}

static void
reply_error(struct ctx *c, int status, json_object *id, int code,
    const char *msg, json_object *data)
{
	json_object *o = rpc_error(c, id, code, msg, data);

	reply_json(c, status, o);
	json_object_put(o);
}

static json_object *
rpc_result(json_object *id, json_object *result)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "jsonrpc", "2.0");
	json_object_object_add(o, "id", json_object_get(id));
	json_object_object_add(o, "result", result);
	return o;
}

static const char *const log_levels[] = { "debug", "info", "notice", "warning",
	"error", "critical", "alert", "emergency", NULL };

static int
level_index(const char *level)
{
	int i;

	for (i = 0; level != NULL && log_levels[i] != NULL; i++)
		if (strcmp(log_levels[i], level) == 0)
			return i;
	return -1;
}

/* Send a notification (params stolen) on this request's SSE answer,
 * starting it when need be; nothing when the answer cannot stream. */
static void
notify(struct ctx *c, const char *method, json_object *params)
{
	json_object *o;

	if (!c->sse_ok || sw_mcp_sse_begin(c->out) != 0) {
		json_object_put(params);
		return;
	}
	o = json_object_new_object();
	sw_json_add_str(o, "jsonrpc", "2.0");
	sw_json_add_str(o, "method", method);
	json_object_object_add(o, "params", params);
	(void)sw_mcp_sse_send(c->out, o, NULL);
	json_object_put(o);
}

/* notifications/progress for the request's token, if it sent one;
 * progress only ever grows. */
static void
notify_progress(struct ctx *c, double total, const char *message)
{
	json_object *p;

	if (c->progress == NULL)
		return;
	c->progress_n += 1;
	p = json_object_new_object();
	json_object_object_add(
	    p, "progressToken", json_object_get(c->progress));
	json_object_object_add(
	    p, "progress", json_object_new_double(c->progress_n));
	if (total > 0)
		json_object_object_add(
		    p, "total", json_object_new_double(total));
	if (message != NULL)
		sw_json_add_str(p, "message", message);
	notify(c, "notifications/progress", p);
}

/* notifications/message at level about the call's own work (data
 * stolen), when the client asked for that level or a lower one. */
static void
notify_log(struct ctx *c, const char *level, json_object *data)
{
	json_object *p;
	int li = level_index(level);

	if (c->log_min < 0 || li < c->log_min) {
		json_object_put(data);
		return;
	}
	p = json_object_new_object();
	sw_json_add_str(p, "level", level);
	sw_json_add_str(p, "logger", "slipway");
	json_object_object_add(p, "data", data);
	notify(c, "notifications/message", p);
}

/* serverInfo: made and printed once per process, then shared (every
 * modern result carries it).  New reference. */
static json_object *
server_info(struct sw_mcp *m)
{
	json_object *o = m->server_info;

	if (o == NULL) {
		o = json_object_new_object();
		sw_json_add_str(o, "name", "slipway");
		sw_json_add_str(o, "title", "Slipway");
		sw_json_add_str(o, "version", PACKAGE_VERSION);
		sw_json_add_str(o, "description",
		    "Control plane for Amazon "
		    "EKS + SageMaker HyperPod clusters");
		(void)sw_json_freeze(o);
		m->server_info = o;
	}
	return json_object_get(o);
}

/* What this server offers; logging/setLevel is legacy only (2026-07-28
 * carries the level in _meta). */
static json_object *
capabilities(int modern)
{
	json_object *caps = json_object_new_object(), *o;

	o = json_object_new_object();
	sw_json_add_bool(o, "listChanged", 0);
	json_object_object_add(caps, "tools", o);
	o = json_object_new_object();
	/* Both eras: resources/subscribe (legacy), subscriptions/listen. */
	sw_json_add_bool(o, "subscribe", 1);
	sw_json_add_bool(o, "listChanged", 0);
	json_object_object_add(caps, "resources", o);
	o = json_object_new_object();
	sw_json_add_bool(o, "listChanged", 0);
	json_object_object_add(caps, "prompts", o);
	json_object_object_add(caps, "completions", json_object_new_object());
	if (!modern)
		json_object_object_add(
		    caps, "logging", json_object_new_object());
	return caps;
}

/* ---- HTTP-level checks ---------------------------------------------- */

/*
 * DNS rebinding: a Host must be loopback or the host of an allowed
 * origin; an Origin, when present, must be one of the allowed origins.
 */
static int
host_ok(const struct sw_mcp *m, const char *host)
{
	return sw_config_host_allowed(m->cfg, host);
}

/* The name of the first MCP header that is not valid UTF-8, or NULL. */
static const char *
header_text_bad(const struct sw_mcp_http *in)
{
	const char *const v[] = { in->protocol_version, in->mcp_method,
		in->mcp_name, in->session_id };
	static const char *const names[] = { "MCP-Protocol-Version",
		"Mcp-Method", "Mcp-Name", "Mcp-Session-Id" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] != NULL && sw_text_bad(v[i], strlen(v[i])) != NULL)
			return names[i];
	return NULL;
}

static int
origin_ok(const struct sw_mcp *m, const char *origin, const char *host)
{
	if (origin == NULL)
		return 1;
	/* The allowed origins; else only the very origin the request
	 * was sent to, when that is a loopback name: a browser sends the
	 * true Host, so this admits a loopback proxy in front of us but
	 * not another local program's page (http://localhost:1 posting
	 * to our port), and DNS rebinding fails the Host check first. */
	if (sw_config_origin_allowed(m->cfg, origin, host))
		return 1;
	return host != NULL && sw_host_is_loopback(host) &&
	    strncmp(origin, "http://", 7) == 0 &&
	    strcasecmp(origin + 7, host) == 0;
}

static int
media_is(const char *ct, const char *type)
{
	size_t n = strlen(type);

	return ct != NULL && strncasecmp(ct, type, n) == 0 &&
	    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ' || ct[n] == ',');
}

/* Accept must allow JSON: absent, any type, application/any or JSON. */
static int
accept_ok(const char *accept)
{
	const char *p = accept;

	if (accept == NULL || accept[0] == '\0')
		return 1;
	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == ',')
			p++;
		if (media_is(p, "application/json") || media_is(p, "*/*") ||
		    media_is(p, "application/*"))
			return 1;
		p = strchr(p, ',');
	}
	return 0;
}

static int
authenticate(struct ctx *c)
{
	const char *a = c->in->authorization;
	char chal[768], why[160], msg[200];
	sw_err e;

	if (a == NULL || strncasecmp(a, "Bearer ", 7) != 0) {
		sw_oidc_challenge(c->m->cfg, NULL, chal, sizeof(chal));
		add_header(c->out, "WWW-Authenticate", chal);
		reply_error(c, 401, NULL, SW_RPC_INVALID_REQUEST,
		    "Unauthorized: send Authorization: Bearer <token> "
		    "(a Slipway API token, swt_..., or an access token of "
		    "the configured OpenID provider)",
		    NULL);
		return -1;
	}
	e = sw_bearer_check(
	    c->m->db, c->m->cfg, a + 7, &c->who, why, sizeof(why));
	if (e == SW_EUNAUTH) {
		sw_oidc_challenge(
		    c->m->cfg, "invalid_token", chal, sizeof(chal));
		add_header(c->out, "WWW-Authenticate", chal);
		sw_fmt_text(msg, sizeof(msg), "Unauthorized: %s", why);
		reply_error(c, 401, NULL, SW_RPC_INVALID_REQUEST, msg, NULL);
		return -1;
	}
	if (e != SW_OK) {
		reply_error(c, 500, NULL, SW_RPC_INTERNAL,
		    "Internal error: token check failed", NULL);
		return -1;
	}
	/* nginx logs authenticated requests in full (slipway.conf.in). */
	add_header(c->out, "X-Slipway-Authenticated", "1");
	return 0;
}

/* ---- sessions -------------------------------------------------------- */

#define SID_PAYLOAD 17 /* expiry(8) version(1) nonce(8) */
#define SID_MAC 16
#define SID_DIGITS "0123456789abcdef" /* lowercase hex only */

static void
session_mac(const struct sw_mcp *m, const unsigned char *payload,
    const char *token_id, unsigned char mac[SID_MAC])
{
	unsigned char msg[SID_PAYLOAD + 17], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t tl = strlen(token_id);

	if (tl > 16)
		tl = 16;
	memcpy(msg, payload, SID_PAYLOAD);
	memcpy(msg + SID_PAYLOAD, token_id, tl);
	HMAC(EVP_sha256(), m->key, (int)sizeof(m->key), msg, SID_PAYLOAD + tl,
	    md, &mdlen);
	memcpy(mac, md, SID_MAC);
}

sw_err
sw_mcp_session_new(const struct sw_mcp *m, const char *version,
    const char *token_id, char out[67])
{
	unsigned char p[SID_PAYLOAD], mac[SID_MAC];
	uint64_t exp = (uint64_t)(now_s(m) + SW_MCP_SESSION_TTL);
	int i, v = -1;

	for (i = 0; sw_mcp_versions[i] != NULL; i++)
		if (strcmp(sw_mcp_versions[i], version) == 0)
			v = i;
	if (v < 0)
		return SW_EINVAL;
	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(exp >> (56 - 8 * i));
	p[8] = (unsigned char)v;
	if (RAND_bytes(p + 9, 8) != 1)
		return SW_EINTERNAL;
	session_mac(m, p, token_id, mac);
	sw_hex_encode(p, SID_PAYLOAD, out);
	sw_hex_encode(mac, SID_MAC, out + 2 * SID_PAYLOAD);
	return SW_OK;
}

const char *
sw_mcp_session_check(
    const struct sw_mcp *m, const char *sid, const char *token_id)
{
	unsigned char p[SID_PAYLOAD], mac[SID_MAC], want[SID_MAC];
	uint64_t exp = 0;
	size_t nv = sizeof(sw_mcp_versions) / sizeof(sw_mcp_versions[0]) - 1;
	int i;

	if (sid == NULL || strlen(sid) != 2 * (SID_PAYLOAD + SID_MAC) ||
	    strspn(sid, SID_DIGITS) != 2 * (SID_PAYLOAD + SID_MAC) ||
	    sw_hex_decode(sid, SID_PAYLOAD, p) != 0 ||
	    sw_hex_decode(sid + 2 * SID_PAYLOAD, SID_MAC, mac) != 0)
		return NULL;
	session_mac(m, p, token_id, want);
	if (CRYPTO_memcmp(mac, want, SID_MAC) != 0)
		return NULL;
	for (i = 0; i < 8; i++)
		exp = (exp << 8) | p[i];
	if ((int64_t)exp < now_s(m) || p[8] >= nv)
		return NULL;
	return sw_mcp_versions[p[8]];
}

/* ---- the JSON-RPC envelope ------------------------------------------- */

enum kind { K_INVALID, K_REQUEST, K_NOTIFICATION, K_RESPONSE };

/* Classify msg; *id gets the (borrowed) id when it is usable. */
static enum kind
classify(json_object *msg, json_object **id, const char **why)
{
	json_object *v, *m;

	*id = NULL;
	if (!json_object_is_type(msg, json_type_object)) {
		*why = "a JSON-RPC message must be an object";
		return K_INVALID;
	}
	if (json_object_object_get_ex(msg, "id", &v)) {
		if (json_object_is_type(v, json_type_string) ||
		    json_object_is_type(v, json_type_int))
			*id = v;
		else {
			*why = "id must be a string or an integer";
			return K_INVALID;
		}
	}
	if (!json_object_object_get_ex(msg, "jsonrpc", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "2.0") != 0) {
		*why = "jsonrpc must be \"2.0\"";
		return K_INVALID;
	}
	if (json_object_object_get_ex(msg, "method", &m)) {
		if (!json_object_is_type(m, json_type_string) ||
		    json_object_get_string_len(m) == 0) {
			*why = "method must be a non-empty string";
			return K_INVALID;
		}
		return *id != NULL ? K_REQUEST : K_NOTIFICATION;
	}
	if (*id != NULL &&
	    (json_object_object_get_ex(msg, "result", NULL) ||
		json_object_object_get_ex(msg, "error", NULL)))
		return K_RESPONSE;
	*why = "not a request, notification or response";
	return K_INVALID;
}

/* Does params._meta carry a protocol version (the modern mark)? */
static json_object *
modern_meta(json_object *msg)
{
	json_object *params = sw_json_get(msg, "params"), *meta;

	if (params == NULL || !json_object_is_type(params, json_type_object))
		return NULL;
	meta = sw_json_get(params, "_meta");
	if (meta == NULL || !json_object_is_type(meta, json_type_object) ||
	    !json_object_object_get_ex(meta, META_VERSION, NULL))
		return NULL;
	return meta;
}

/* ---- methods ---------------------------------------------------------- */

/* Fields every modern result carries. */
static void
modern_result(const struct ctx *c, json_object *res, int cacheable)
{
	json_object *meta;

	if (sw_json_get(res, "resultType") == NULL)
		sw_json_add_str(res, "resultType", "complete");
	if (cacheable) {
		sw_json_add_int(res, "ttlMs", SW_MCP_LIST_TTL_MS);
		/* tools/list depends on the caller's scope and teams. */
		sw_json_add_str(res, "cacheScope", "private");
	}
	if ((meta = sw_json_get(res, "_meta")) == NULL ||
	    !json_object_is_type(meta, json_type_object)) {
		meta = json_object_new_object();
		json_object_object_add(res, "_meta", meta);
	}
	json_object_object_add(meta, META_SERVER, server_info(c->m));
}

/* The file that keeps a legacy session's log level: the session id's
 * payload (expiry, version, nonce) names it.  0 with the path. */
static int
level_path(const struct ctx *c, char *path, size_t sz)
{
	const char *sid = c->in->session_id;

	if (sid == NULL || strlen(sid) < 2 * SID_PAYLOAD ||
	    strspn(sid, SID_DIGITS) < 2 * SID_PAYLOAD)
		return -1;
	return snprintf(path, sz, "%s/run/mcp-log/%.*s", c->m->cfg->state_dir,
		   2 * SID_PAYLOAD, sid) < (int)sz
	    ? 0
	    : -1;
}

/* logging/setLevel of a legacy session: kept for its later requests,
 * which other workers may answer. */
static void
level_save(struct ctx *c, const char *level)
{
	char path[700], dir[700];
	FILE *f;

	if (level_path(c, path, sizeof(path)) != 0 ||
	    sw_fmt(dir, sizeof(dir), "%s/run/mcp-log", c->m->cfg->state_dir) !=
		SW_OK)
		return;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return;
	if ((f = fopen(path, "w")) == NULL) {
		sw_warn("%s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "%s\n", level);
	if (fclose(f) != 0)
		sw_warn("%s: cannot write the log level", path);
}

static int
level_load(const struct ctx *c)
{
	char path[700], level[32];
	FILE *f;
	int li = -1;

	if (level_path(c, path, sizeof(path)) != 0 ||
	    (f = fopen(path, "r")) == NULL)
		return -1;
	if (fgets(level, sizeof(level), f) != NULL) {
		level[strcspn(level, "\n")] = '\0';
		li = level_index(level);
	}
	fclose(f);
	return li;
}

/* Does a tools/call of op wait on an operation with its events as
 * progress (a row flagged SW_OP_PROGRESS)? */
static int
waits_with_progress(const struct sw_op *op)
{
	return op != NULL && (op->flags & SW_OP_PROGRESS) != 0;
}

/* After a tool call: a progress step and a log line of its outcome. */
static void
call_logged(struct ctx *c, const char *name, json_object *res)
{
	json_object *sc = sw_json_get(res, "structuredContent");
	int failed = sw_json_get_bool(res, "isError", 0);
	char text[300];

	if (c->progress == NULL && c->log_min < 0)
		return; /* asked for neither */
	sw_fmt_text(text, sizeof(text), "%s %s%s%s", name,
	    failed ? "failed" : "answered",
	    failed && sw_json_get_str(sc, "detail") ? ": " : "",
	    failed && sw_json_get_str(sc, "detail")
		? sw_json_get_str(sc, "detail")
		: "");
	if (!waits_with_progress(sw_op_by_name(name)))
		notify_progress(c, 2, text);
	notify_log(
	    c, failed ? "warning" : "info", json_object_new_string(text));
}

/* The name of stage seq in an operation document, or "-". */
static const char *
stage_name(json_object *op, int64_t seq)
{
	json_object *stages = sw_json_get(op, "stages"), *st;
	size_t i;

	for (i = 0;
	     stages != NULL && json_object_is_type(stages, json_type_array) &&
	     i < json_object_array_length(stages);
	     i++) {
		st = json_object_array_get_idx(stages, i);
		if (sw_json_get_int(st, "seq", -1) == seq)
			return sw_json_get_str(st, "name");
	}
	return "-";
}

/*
 * A row flagged SW_OP_PROGRESS (wait_op: operation_wait) called with a
 * progress token or a log level: until the operation ends or the
 * call's timeout passes, each new event of the operation (read with
 * operation_get) becomes a progress notification (its stage and
 * message) and a log message at its level.  Between reads it waits on
 * the operation with wait_op itself (since_updated_ms), so each wait
 * takes the caller's long-poll slot like any other; the call's own
 * answer follows.  1 when the call's timeout has been spent.
 */
static int
wait_with_progress(struct ctx *c, const char *wait_op, json_object *args)
{
	const char *id = sw_json_get_str(args, "id"), *state;
	int64_t timeout = sw_json_get_int(args, "timeout", 20), last = 0;
	int64_t deadline, left, updated;
	json_object *q, *doc, *evs, *ev, *w;
	char text[400];
	long status;
	size_t i;

	if (id == NULL)
		return 0;
	if (timeout < 1 || timeout > SW_MAX_WAIT)
		return 0; /* the row refuses it; the call says so */
	deadline = (int64_t)time(NULL) + timeout;
	for (;;) {
		q = json_object_new_object();
		sw_json_add_str(q, "id", id);
		sw_json_add_int(q, "since_event", last);
		doc = NULL;
		if (sw_mcp_op_run(c->m, &c->who, "operation_get", q, &status,
			&doc) != SW_OK ||
		    status != 200) {
			json_object_put(q);
			json_object_put(doc);
			return 0;
		}
		json_object_put(q);
		evs = sw_json_get(doc, "events");
		for (i = 0;
		     evs != NULL && json_object_is_type(evs, json_type_array) &&
		     i < json_object_array_length(evs);
		     i++) {
			ev = json_object_array_get_idx(evs, i);
			last = sw_json_get_int(ev, "id", last);
			sw_fmt_text(text, sizeof(text),
			    "%s: "
			    "%s",
			    stage_name(doc, sw_json_get_int(ev, "stage", -1)),
			    sw_json_get_str(ev, "message"));
			notify_progress(c, 0, text);
			notify_log(c,
			    sw_json_get_str(ev, "level")
				? sw_json_get_str(ev, "level")
				: "info",
			    json_object_get(ev));
		}
		state = sw_json_get_str(doc, "state");
		updated = sw_json_get_int(doc, "updated_ms", 0);
		left = deadline - (int64_t)time(NULL);
		if (c->out->stream_broken || state == NULL ||
		    sw_op_state_terminal(state) || left <= 0) {
			json_object_put(doc);
			return left <= 0;
		}
		json_object_put(doc);
		q = json_object_new_object();
		sw_json_add_str(q, "id", id);
		sw_json_add_int(q, "since_updated_ms", updated);
		sw_json_add_int(q, "timeout", left < 15 ? left : 15);
		w = NULL;
		(void)sw_mcp_op_run(c->m, &c->who, wait_op, q, &status, &w);
		json_object_put(q);
		json_object_put(w);
		if (status != 200)
			return 0; /* throttled: the call answers */
		/* A quiet operation: keep the stream open. */
		if (c->out->streamed)
			(void)sw_mcp_sse_send(c->out, NULL, NULL);
	}
}

/* An extra tool's notifications go on this request's stream. */
void
sw_mcp_call_progress(
    struct sw_mcp_call *call, json_object *params, int progress, int total)
{
	struct ctx *c = (struct ctx *)(void *)call;
	json_object *p;

	c->progress =
	    sw_json_get(sw_json_get(params, "_meta"), "progressToken");
	if (c->progress == NULL)
		return;
	p = json_object_new_object();
	json_object_object_add(
	    p, "progressToken", json_object_get(c->progress));
	sw_json_add_int(p, "progress", progress);
	sw_json_add_int(p, "total", total);
	notify(c, "notifications/progress", p);
}

void
sw_mcp_call_log(struct sw_mcp_call *call, const char *level, const char *text)
{
	struct ctx *c = (struct ctx *)(void *)call;

	if (c->log_min < 0)
		c->log_min = 0;
	notify_log(c, level, json_object_new_string(text));
}

/* Drop from a tools/list array what the token's classes leave out. */
static void
tools_of_classes(const struct ctx *c, json_object *arr)
{
	size_t i;

	if (c->who.tools[0] == '\0')
		return;
	for (i = json_object_array_length(arr); i > 0; i--)
		if (!sw_mcp_tool_allowed(c->m, c->who.tools,
			sw_json_get_str(
			    json_object_array_get_idx(arr, i - 1), "name")))
			json_object_array_del_idx(arr, i - 1, 1);
}

/* A tools/call result that refuses the call with a problem document. */
static json_object *
refusal(const char *slug, const char *title, int status, const char *detail)
{
	json_object *r = json_object_new_object(), *content, *t, *p;

	p = sw_mcp_problem_new(status, slug, title, detail, NULL);
	t = json_object_new_object();
	sw_json_add_str(t, "type", "text");
	sw_json_add_str(t, "text", detail);
	content = json_object_new_array();
	json_object_array_add(content, t);
	json_object_object_add(r, "content", content);
	json_object_object_add(r, "structuredContent", p);
	sw_json_add_bool(r, "isError", 1);
	return r;
}

/* The elicitation request of a confirmation (2026-07-28 input_required
 * result).  New reference. */
static json_object *
confirm_request(const char *plan)
{
	json_object *req = json_object_new_object(), *p, *schema, *props, *b;
	json_object *required;

	b = json_object_new_object();
	sw_json_add_str(b, "type", "boolean");
	sw_json_add_str(b, "title", "Go ahead");
	sw_json_add_str(b, "description", "Run it as planned");
	props = json_object_new_object();
	json_object_object_add(props, "confirm", b);
	required = json_object_new_array();
	json_object_array_add(required, json_object_new_string("confirm"));
	schema = json_object_new_object();
	sw_json_add_str(schema, "type", "object");
	json_object_object_add(schema, "properties", props);
	json_object_object_add(schema, "required", required);
	p = json_object_new_object();
	sw_json_add_str(p, "mode", "form");
	sw_json_add_str(p, "message", plan);
	json_object_object_add(p, "requestedSchema", schema);
	sw_json_add_str(req, "method", "elicitation/create");
	json_object_object_add(req, "params", p);
	return req;
}

/*
 * A destructive call goes ahead only when confirmed: "confirm": true in
 * its arguments, or (2026-07-28) the accepted answer to our elicitation
 * with our requestState.  Otherwise: an input_required result when the
 * client can elicit, else a refusal with the plan.  NULL with *code 0:
 * confirmed, run it.
 */
static json_object *
confirm_gate(struct ctx *c, const char *name, json_object *args,
    json_object *params, int modern, int *code, char *msg, size_t msgsz)
{
	json_object *v, *res, *answer, *content, *reqs;
	char state[65], detail[600];
	const char *action, *got;
	struct sw_buf plan;

	if ((v = sw_json_get(args, "confirm")) != NULL &&
	    json_object_is_type(v, json_type_boolean) &&
	    json_object_get_boolean(v))
		return NULL;
	sw_mcp_confirm_state(c->m, &c->who, name, args, state);
	answer = sw_json_get(sw_json_get(params, "inputResponses"), "confirm");
	if (modern && answer != NULL) {
		got = sw_json_get_str(params, "requestState");
		if (got == NULL || strcmp(got, state) != 0) {
			*code = SW_RPC_INVALID_PARAMS;
			sw_fmt_text(msg, msgsz,
			    "Invalid params: requestState "
			    "does not belong to this call of %s",
			    name);
			return NULL;
		}
		action = sw_json_get_str(answer, "action");
		content = sw_json_get(answer, "content");
		if (action != NULL && strcmp(action, "accept") == 0 &&
		    (v = sw_json_get(content, "confirm")) != NULL &&
		    json_object_is_type(v, json_type_boolean) &&
		    json_object_get_boolean(v))
			return NULL;
		sw_fmt_text(detail, sizeof(detail),
		    "The user did not confirm "
		    "%s (%s): nothing was changed.",
		    name, action ? action : "no answer");
		return refusal("not-confirmed", "Not confirmed", 409, detail);
	}
	sw_buf_init(&plan, 256 * 1024);
	if (sw_mcp_confirm_plan(c->m, &c->who, name, args, &plan) == 400) {
		/* Arguments the row refuses: the call itself says so, as
		 * the same validation refuses it before anything runs. */
		sw_buf_free(&plan);
		return NULL;
	}
	if (modern && c->client_elicits) {
		res = json_object_new_object();
		sw_json_add_str(res, "resultType", "input_required");
		reqs = json_object_new_object();
		json_object_object_add(
		    reqs, "confirm", confirm_request(sw_buf_str(&plan)));
		json_object_object_add(res, "inputRequests", reqs);
		sw_json_add_str(res, "requestState", state);
		sw_buf_free(&plan);
		return res;
	}
	(void)sw_buf_printf(&plan,
	    "\n%s is destructive: show the user this "
	    "plan and call it again with \"confirm\": true once they agree.",
	    name);
	res = refusal("confirmation-required", "Confirmation required", 428,
	    sw_buf_str(&plan));
	sw_buf_free(&plan);
	return res;
}

/* ---- the methods, one function each ------------------------------------ */

/* Why a method failed: the JSON-RPC code and message, and the HTTP
 * status the answer carries. */
struct rpc_fail {
	int code;
	char msg[300];
	int http;
	int cacheable; /* the method's result may be cached */
};

/* Set f's code and message; NULL, for `return`. */
static json_object *rpc_fail(struct rpc_fail *f, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static json_object *
rpc_fail(struct rpc_fail *f, int code, const char *fmt, ...)
{
	va_list ap;

	f->code = code;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	return NULL;
}

/* A string member of params, or NULL with f set. */
static const char *
param_str(json_object *params, const char *key, const char *method,
    struct rpc_fail *f)
{
	json_object *v = sw_json_get(params, key);

	if (v != NULL && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	rpc_fail(f, SW_RPC_INVALID_PARAMS,
	    "Invalid params: %s needs "
	    "params.%s (a string)",
	    method, key);
	return NULL;
}

/* A list method's cursor: we never hand one out (one page holds all). */
static int
cursor_bad(json_object *params, struct rpc_fail *f)
{
	if (sw_json_get(params, "cursor") == NULL)
		return 0;
	rpc_fail(f, SW_RPC_INVALID_PARAMS, "Invalid params: unknown cursor");
	return 1;
}

typedef json_object *(*method_fn)(
    struct ctx *, const char *method, json_object *params, struct rpc_fail *);

static json_object *
m_ping(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	(void)c, (void)method, (void)params, (void)f;
	return json_object_new_object();
}

static json_object *
m_discover(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *res = json_object_new_object();

	(void)c, (void)method, (void)params, (void)f;
	json_object_object_add(
	    res, "supportedVersions", str_array(sw_mcp_versions));
	json_object_object_add(res, "capabilities", capabilities(1));
	sw_json_add_str(res, "instructions", instructions);
	return res;
}

static json_object *
m_tools_list(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *res, *tools;

	(void)method;
	if (cursor_bad(params, f))
		return NULL;
	tools = sw_mcp_tool_list(c->m, &c->who);
	tools_of_classes(c, tools);
	if (c->m->extras != NULL)
		c->m->extras->tools(tools);
	res = json_object_new_object();
	json_object_object_add(res, "tools", tools);
	return res;
}

/* tools/call once the tool is known to be allowed and confirmed:
 * progress, the call, its metric and its log line. */
static json_object *
tool_run(struct ctx *c, const char *name, json_object *args, struct rpc_fail *f)
{
	json_object *res = NULL, *again = NULL;
	char why[256];
	sw_err e;

	if (waits_with_progress(sw_op_by_name(name)) &&
	    (c->progress != NULL || c->log_min >= 0)) {
		if (wait_with_progress(c, name, args) && args != NULL) {
			/* The wait is spent: answer with the state now,
			 * not after another whole timeout. */
			again = json_object_new_object();
			json_object_object_foreach(args, k, v)
			    json_object_object_add(
				again, k, json_object_get(v));
			sw_json_add_int(again, "timeout", 1);
			args = again;
		}
	} else if (c->progress != NULL || c->log_min >= 0) {
		notify_progress(c, 2, "calling tool");
		notify_log(c, "debug", json_object_new_string(name));
	}
	e = sw_mcp_tool_call(c->m, &c->who, c->in->authorization, name, args,
	    &res, why, sizeof(why));
	/* By tool: only names we serve, so a client cannot fill the
	 * counter table with made-up ones. */
	sw_metric_add("slipway_mcp_calls_total", 1, "tool",
	    sw_op_by_name(name) != NULL ? name : "other", "outcome",
	    e != SW_OK                                ? "invalid"
		: sw_json_get_bool(res, "isError", 0) ? "error"
						      : "ok",
	    NULL);
	json_object_put(again);
	if (e != SW_OK)
		return rpc_fail(
		    f, SW_RPC_INVALID_PARAMS, "Invalid params: %s", why);
	call_logged(c, name, res);
	return res;
}

/* A tool of the table the team rule lets the caller call for none of
 * its teams (so tools/list did not show it): refused before any plan
 * or confirmation, with the rule's words in deny. */
static int
team_refused(const struct ctx *c, const char *name, char *deny, size_t sz)
{
	const struct sw_op *op = sw_op_by_name(name);

	if (op == NULL || (op->flags & SW_OP_PUBLIC) ||
	    !sw_mcp_tool_known(c->m, name) ||
	    sw_authz_may(c->m->cfg, &c->who, op))
		return 0;
	if (sw_authz_decide(c->m->cfg, &c->who, op, NULL, deny, sz) == NULL)
		sw_fmt_text(deny, sz,
		    "rule %s: %s needs a role '%s' has in "
		    "none of its teams",
		    sw_touch_name(op->touch), name, c->who.name);
	return 1;
}

static json_object *
m_tools_call(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *res, *args, *plain = NULL;
	const char *name;
	char deny[400];

	if ((name = param_str(params, "name", method, f)) == NULL)
		return NULL;
	args = sw_json_get(params, "arguments");
	if (args != NULL && !json_object_is_type(args, json_type_object))
		return rpc_fail(f, SW_RPC_INVALID_PARAMS,
		    "Invalid params: "
		    "arguments must be an object");
	if (!sw_mcp_tool_allowed(c->m, c->who.tools, name) &&
	    sw_mcp_tool_known(c->m, name)) {
		sw_fmt_text(deny, sizeof(deny),
		    "token '%s' may call only the "
		    "tools of its classes (%.130s); %.60s is not one",
		    c->who.name, c->who.tools, name);
		return refusal("forbidden", "Forbidden", 403, deny);
	}
	if (team_refused(c, name, deny, sizeof(deny)))
		return refusal("forbidden", "Forbidden", 403, deny);
	if (c->m->extras != NULL && c->m->extras->is_tool(name))
		return c->m->extras->call(
		    (struct sw_mcp_call *)(void *)c, name, params);
	if (sw_mcp_needs_confirm(c->m, &c->who, name, args)) {
		res = confirm_gate(c, name, args, params, c->modern, &f->code,
		    f->msg, sizeof(f->msg));
		if (res != NULL || f->code != 0)
			return res;
	}
	/* confirm is ours, never the row's. */
	if (args != NULL && sw_json_get(args, "confirm") != NULL &&
	    sw_mcp_confirm_asked(sw_op_by_name(name))) {
		plain = json_object_new_object();
		sw_mcp_args_copy(args, plain);
		args = plain;
	}
	c->progress =
	    sw_json_get(sw_json_get(params, "_meta"), "progressToken");
	if (c->progress != NULL &&
	    !json_object_is_type(c->progress, json_type_string) &&
	    !json_object_is_type(c->progress, json_type_int))
		c->progress = NULL;
	res = tool_run(c, name, args, f);
	json_object_put(plain);
	return res;
}

/* resources/list and resources/templates/list */
static json_object *
m_resources_list(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	int templates = strcmp(method, "resources/templates/list") == 0;
	json_object *res, *list;

	if (cursor_bad(params, f))
		return NULL;
	list = templates ? sw_mcp_resource_templates()
			 : sw_mcp_resource_list(c->m, &c->who);
	if (c->m->extras != NULL)
		c->m->extras->resources(list, templates);
	res = json_object_new_object();
	json_object_object_add(
	    res, templates ? "resourceTemplates" : "resources", list);
	return res;
}

/* resources/read; a failure is a JSON-RPC error with the REST problem
 * as data.  Unknown resource: -32002 (legacy) or -32602 (2026-07-28). */
static json_object *
m_resources_read(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *res = NULL, *problem = NULL, *data;
	const char *uri, *detail;
	sw_err e;

	if ((uri = param_str(params, "uri", method, f)) == NULL)
		return NULL;
	if (c->m->extras != NULL && (res = c->m->extras->read(uri)) != NULL)
		return res;
	e = sw_mcp_resource_read(c->m, &c->who, uri, &res, &problem);
	if (e == SW_OK)
		return res;
	detail = sw_json_get_str(problem, "detail");
	rpc_fail(f,
	    e == SW_ENOTFOUND && !c->modern ? SW_RPC_RESOURCE_NOT_FOUND
		: e == SW_EINTERNAL         ? SW_RPC_INTERNAL
					    : SW_RPC_INVALID_PARAMS,
	    "%s: %.120s%s%.150s",
	    e == SW_ENOTFOUND        ? "Resource not found"
		: e == SW_EFORBIDDEN ? "Forbidden"
		: e == SW_EINTERNAL  ? "Internal error"
				     : "Invalid params",
	    uri, detail ? ": " : "", detail ? detail : "");
	data = json_object_new_object();
	sw_json_add_str(data, "uri", uri);
	if (problem != NULL)
		json_object_object_add(data, "problem", problem);
	json_object_put(c->error_data);
	c->error_data = data;
	return NULL;
}

static json_object *
m_prompts_list(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *res, *list;

	(void)method;
	if (cursor_bad(params, f))
		return NULL;
	list = sw_mcp_prompt_list(c->m);
	if (c->m->extras != NULL)
		c->m->extras->prompts(list);
	res = json_object_new_object();
	json_object_object_add(res, "prompts", list);
	return res;
}

static json_object *
m_prompts_get(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *res = NULL;
	const char *name;
	char why[256];
	sw_err e;

	if ((name = param_str(params, "name", method, f)) == NULL)
		return NULL;
	if (c->m->extras != NULL &&
	    (res = c->m->extras->prompt(
		 name, sw_json_get(params, "arguments"))) != NULL)
		return res;
	e = sw_mcp_prompt_get(c->m, name, sw_json_get(params, "arguments"),
	    &res, why, sizeof(why));
	if (e != SW_OK)
		return rpc_fail(f,
		    e == SW_EINTERNAL ? SW_RPC_INTERNAL : SW_RPC_INVALID_PARAMS,
		    "Invalid params: %s", why);
	return res;
}

static json_object *
m_complete(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	json_object *ref = sw_json_get(params, "ref");
	json_object *arg = sw_json_get(params, "argument");
	const char *name, *value;

	(void)method;
	if (ref == NULL || !json_object_is_type(ref, json_type_object) ||
	    (name = param_str(
		 arg, "name", "completion/complete argument", f)) == NULL ||
	    (value = param_str(
		 arg, "value", "completion/complete argument", f)) == NULL)
		return rpc_fail(f, SW_RPC_INVALID_PARAMS,
		    "Invalid params: "
		    "completion/complete needs ref {type, name|uri} and "
		    "argument {name, value}");
	return sw_mcp_complete(c->m, &c->who, name, value);
}

/* resources/subscribe and resources/unsubscribe (legacy sessions) */
static json_object *
m_subscribe(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	const char *uri;
	char why[256];
	sw_err e;

	if ((uri = param_str(params, "uri", method, f)) == NULL)
		return NULL;
	if (c->m->extras != NULL && c->m->extras->subscribable(uri))
		return json_object_new_object();
	e = sw_mcp_subscribe(c->m, &c->who, c->in->session_id, uri,
	    strcmp(method, "resources/subscribe") == 0, why, sizeof(why));
	if (e != SW_OK)
		return rpc_fail(f,
		    e == SW_ENOTFOUND       ? SW_RPC_RESOURCE_NOT_FOUND
			: e == SW_EINTERNAL ? SW_RPC_INTERNAL
					    : SW_RPC_INVALID_PARAMS,
		    "%s: %.120s: %.150s",
		    e == SW_ENOTFOUND        ? "Resource not found"
			: e == SW_ETHROTTLED ? "Too many subscriptions"
					     : "Invalid params",
		    uri, why);
	return json_object_new_object();
}

static json_object *
m_set_level(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	const char *level;

	if ((level = param_str(params, "level", method, f)) == NULL)
		return NULL;
	if (!in_list(log_levels, level))
		return rpc_fail(f, SW_RPC_INVALID_PARAMS,
		    "Invalid params: "
		    "level must be one of debug, info, notice, warning, "
		    "error, critical, alert, emergency");
	level_save(c, level);
	return json_object_new_object();
}

/* ---- the method table ---------------------------------------------------- */

#define ERA_LEGACY 0x1 /* 2025-03-26 .. 2025-11-25 */
#define ERA_MODERN 0x2 /* 2026-07-28 */

/*
 * Every request method answered with a result.  eras: where the method
 * exists (elsewhere it is -32601); cacheable: a modern result carries
 * ttlMs and cacheScope; name_param: the member of params the Mcp-Name
 * header must repeat (2026-07-28).  initialize (legacy_initialize) and
 * subscriptions/listen (modern_listen) write their own answers and are
 * taken before the table.
 */
static const struct method_row {
	const char *name;
	unsigned eras;
	int cacheable;
	const char *name_param;
	method_fn fn;
} methods[] = {
	{ .name = "ping", .eras = ERA_LEGACY, .fn = m_ping },
	{ .name = "server/discover",
	    .eras = ERA_MODERN,
	    .cacheable = 1,
	    .fn = m_discover },
	{ .name = "tools/list",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .cacheable = 1,
	    .fn = m_tools_list },
	{ .name = "tools/call",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .name_param = "name",
	    .fn = m_tools_call },
	{ .name = "resources/list",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .cacheable = 1,
	    .fn = m_resources_list },
	{ .name = "resources/templates/list",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .cacheable = 1,
	    .fn = m_resources_list },
	{ .name = "resources/read",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .cacheable = 1,
	    .name_param = "uri",
	    .fn = m_resources_read },
	{ .name = "prompts/list",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .cacheable = 1,
	    .fn = m_prompts_list },
	{ .name = "prompts/get",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .name_param = "name",
	    .fn = m_prompts_get },
	{ .name = "completion/complete",
	    .eras = ERA_LEGACY | ERA_MODERN,
	    .fn = m_complete },
	{ .name = "resources/subscribe",
	    .eras = ERA_LEGACY,
	    .fn = m_subscribe },
	{ .name = "resources/unsubscribe",
	    .eras = ERA_LEGACY,
	    .fn = m_subscribe },
	{ .name = "logging/setLevel", .eras = ERA_LEGACY, .fn = m_set_level },
};

/* The row of method in this era, or NULL. */
static const struct method_row *
method_find(const char *method, int modern)
{
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, method) == 0)
			return (methods[i].eras &
				   (modern ? ERA_MODERN : ERA_LEGACY))
			    ? &methods[i]
			    : NULL;
	return NULL;
}

/*
 * Run method for an authenticated caller.  Returns the result (new
 * reference) or NULL with f set (code, message and the HTTP status the
 * error carries).
 */
static json_object *
call_method(
    struct ctx *c, const char *method, json_object *params, struct rpc_fail *f)
{
	const struct method_row *row = method_find(method, c->modern);
	json_object *res;

	f->http = 200;
	if (row == NULL) {
		if (c->modern)
			f->http = 404;
		return rpc_fail(
		    f, SW_RPC_METHOD_NOT_FOUND, "Method not found: %s", method);
	}
	res = row->fn(c, method, params, f);
	f->cacheable = row->cacheable;
	return res;
}

/* Answer a request with call_method's outcome (legacy or modern). */
static json_object *
answer_request(struct ctx *c, json_object *id, const char *method,
    json_object *params, int *http)
{
	struct rpc_fail f;
	json_object *res;

	memset(&f, 0, sizeof(f));
	res = call_method(c, method, params, &f);
	*http = f.http;
	if (res != NULL) {
		if (c->modern)
			modern_result(c, res, f.cacheable);
		return rpc_result(id, res);
	}
	res = rpc_error(c, id, f.code, f.msg, c->error_data);
	c->error_data = NULL;
	return res;
}

/* "key":value, then a comma when more follows. */
static sw_err
put_member(struct sw_buf *b, const char *key, json_object *v, int comma)
{
	sw_err e;

	if ((e = sw_json_put_string(b, key, strlen(key))) == SW_OK &&
	    (e = sw_buf_putc(b, ':')) == SW_OK &&
	    (e = sw_buf_puts(b, sw_json_str(v))) == SW_OK && comma)
		e = sw_buf_putc(b, ',');
	return e;
}

/* The modern answer's text up to its result's members. */
static sw_err
answer_open(struct sw_buf *b, const char *id, size_t idlen)
{
	sw_err e;

	sw_buf_reset(b);
	if ((e = sw_buf_puts(b, "{\"jsonrpc\":\"2.0\",\"id\":")) == SW_OK &&
	    (e = sw_buf_add(b, id, idlen)) == SW_OK)
		e = sw_buf_puts(b, ",\"result\":{");
	return e;
}

/* _meta, with the result's own meta members (meta may be NULL) and
 * serverInfo, then the end of the answer. */
static sw_err
meta_close(struct ctx *c, struct sw_buf *b, json_object *meta)
{
	json_object *srv;
	sw_err e = sw_buf_puts(b, "\"_meta\":{");

	if (meta != NULL && json_object_is_type(meta, json_type_object)) {
		json_object_object_foreach(meta, mk, mv)
		{
			if (e == SW_OK && strcmp(mk, META_SERVER) != 0)
				e = put_member(b, mk, mv, 1);
		}
	}
	srv = server_info(c->m); /* a new reference */
	if (e == SW_OK)
		e = put_member(b, META_SERVER, srv, 0);
	json_object_put(srv);
	return e == SW_OK ? sw_buf_puts(b, "}}}") : e;
}

/* The end of every plain result's answer (no meta of its own, no
 * resultType, not a list's), made once; NULL when it cannot be. */
static const char *
plain_close(struct ctx *c)
{
	struct sw_buf t;

	if (c->m->answer_end == NULL) {
		sw_buf_init(&t, 0);
		if (sw_buf_puts(&t, "\"resultType\":\"complete\",") == SW_OK &&
		    meta_close(c, &t, NULL) == SW_OK)
			c->m->answer_end = sw_buf_steal(&t);
		sw_buf_free(&t);
	}
	return c->m->answer_end;
}

/*
 * After the result's members, each followed by a comma: the fields
 * modern_result adds (resultType unless typed, the list's cache fields,
 * _meta with the result's own meta members and serverInfo), then the
 * end of the answer.
 */
static sw_err
answer_close(struct ctx *c, struct sw_buf *b, json_object *meta, int typed,
    int cacheable)
{
	const char *plain =
	    meta == NULL && !typed && !cacheable ? plain_close(c) : NULL;
	sw_err e = SW_OK;

	if (plain != NULL)
		e = sw_buf_puts(b, plain);
	else {
		if (!typed)
			e = sw_buf_puts(b, "\"resultType\":\"complete\",");
		if (e == SW_OK && cacheable)
			e = sw_buf_printf(b,
			    "\"ttlMs\":%d,\"cacheScope\":"
			    "\"private\",",
			    SW_MCP_LIST_TTL_MS);
		if (e == SW_OK)
			e = meta_close(c, b, meta);
	}
	if (e == SW_OK) {
		c->out->status = 200;
		c->out->content_type = "application/json";
	}
	return e;
}

/*
 * The modern answer of a result, written as text into the body: the
 * envelope, res's members, the fields modern_result adds and _meta with
 * serverInfo, with no object made, printed and freed for them.  The
 * same JSON as rpc_result(id, res) after modern_result, members in
 * another order.  Fails (body left empty) when over the answer's cap.
 */
static sw_err
result_text(struct ctx *c, json_object *id, json_object *res, int cacheable)
{
	struct sw_buf *b = &c->out->body;
	const char *idtext = sw_json_str(id);
	json_object *meta = NULL;
	int typed = 0;
	sw_err e = answer_open(b, idtext, strlen(idtext));

	json_object_object_foreach(res, k, v)
	{
		if (strcmp(k, "_meta") == 0) {
			meta = v;
			continue;
		}
		typed |= strcmp(k, "resultType") == 0;
		if (e == SW_OK)
			e = put_member(b, k, v, 1);
	}
	if (e == SW_OK)
		e = answer_close(c, b, meta, typed, cacheable);
	if (e != SW_OK)
		sw_buf_reset(b);
	return e;
}

/* A modern request's answer: a result that goes out as one JSON body
 * is written as text (result_text); a stream's, an error or one over
 * the cap goes as a document. */
static void
modern_answer(
    struct ctx *c, json_object *id, const char *method, json_object *params)
{
	struct rpc_fail f;
	json_object *res, *resp;

	memset(&f, 0, sizeof(f));
	res = call_method(c, method, params, &f);
	if (res != NULL && !c->out->streamed && f.http == 200 &&
	    result_text(c, id, res, f.cacheable) == SW_OK) {
		json_object_put(res);
		return;
	}
	if (res != NULL) {
		modern_result(c, res, f.cacheable);
		resp = rpc_result(id, res);
	} else {
		resp = rpc_error(c, id, f.code, f.msg, c->error_data);
		c->error_data = NULL;
	}
	reply_json(c, f.http, resp);
	json_object_put(resp);
}

/* ---- legacy era -------------------------------------------------------- */

static void
legacy_initialize(struct ctx *c, json_object *id, json_object *params)
{
	const char *asked, *version;
	json_object *res, *pv;
	char sid[67];

	pv = sw_json_get(params, "protocolVersion");
	if (pv == NULL || !json_object_is_type(pv, json_type_string)) {
		reply_error(c, 400, id, SW_RPC_INVALID_PARAMS,
		    "Invalid params: "
		    "initialize needs params.protocolVersion",
		    NULL);
		return;
	}
	asked = json_object_get_string(pv);
	version = list_get(sw_mcp_legacy_versions, asked);
	if (version == NULL)
		version = SW_MCP_LEGACY_LATEST;
	if (sw_mcp_session_new(c->m, version, c->who.token_id, sid) != SW_OK) {
		reply_error(c, 500, id, SW_RPC_INTERNAL,
		    "Internal error: "
		    "cannot make a session id",
		    NULL);
		return;
	}
	res = json_object_new_object();
	sw_json_add_str(res, "protocolVersion", version);
	json_object_object_add(res, "capabilities", capabilities(0));
	json_object_object_add(res, "serverInfo", server_info(c->m));
	sw_json_add_str(res, "instructions", instructions);
	add_header(c->out, "Mcp-Session-Id", sid);
	res = rpc_result(id, res);
	reply_json(c, 200, res);
	json_object_put(res);
}

/*
 * The legacy version of this request: the one its valid session
 * negotiated; an MCP-Protocol-Version header, if any, must name a
 * supported legacy version.  On failure the answer is written and NULL
 * returned.
 */
static const char *
legacy_version(struct ctx *c)
{
	const char *hv = c->in->protocol_version, *sv;
	json_object *data;

	if (hv != NULL && !in_list(sw_mcp_legacy_versions, hv)) {
		data = json_object_new_object();
		json_object_object_add(
		    data, "supported", str_array(sw_mcp_versions));
		sw_json_add_str(data, "requested", hv);
		reply_error(c, 400, NULL, SW_RPC_INVALID_REQUEST,
		    "Bad Request: unsupported MCP-Protocol-Version", data);
		return NULL;
	}
	if (c->in->session_id == NULL) {
		reply_error(c, 400, NULL, SW_RPC_INVALID_REQUEST,
		    "Bad Request: "
		    "Mcp-Session-Id header is required; send initialize first "
		    "(or use protocol version " SW_MCP_MODERN_VERSION " with "
		    "per-request _meta)",
		    NULL);
		return NULL;
	}
	sv = sw_mcp_session_check(c->m, c->in->session_id, c->who.token_id);
	if (sv == NULL) {
		reply_error(c, 404, NULL, SW_RPC_INVALID_REQUEST,
		    "Session not "
		    "found or expired: send initialize again",
		    NULL);
		return NULL;
	}
	/* A supported header that differs from the negotiated version is
	 * accepted (as the reference SDK server and the conformance suite
	 * do); the session's version decides the semantics. */
	return sv;
}

/* One message of a legacy exchange (session already checked); returns
 * the response (new reference) or NULL when none is due. */
static json_object *
legacy_message(struct ctx *c, json_object *msg, int *http)
{
	json_object *id, *params;
	const char *why = NULL, *method;
	enum kind k = classify(msg, &id, &why);

	*http = 200;
	if (k == K_INVALID) {
		*http = 400;
		return rpc_error(c, id, SW_RPC_INVALID_REQUEST, why, NULL);
	}
	if (k != K_REQUEST)
		return NULL;
	method = sw_json_get_str(msg, "method");
	params = sw_json_get(msg, "params");
	if (params != NULL && !json_object_is_type(params, json_type_object))
		return rpc_error(c, id, SW_RPC_INVALID_PARAMS,
		    "Invalid params: params must be an object", NULL);
	if (strcmp(method, "initialize") == 0)
		return rpc_error(c, id, SW_RPC_INVALID_REQUEST,
		    "initialize "
		    "must be sent on its own, not in a batch or a session",
		    NULL);
	return answer_request(c, id, method, params, http);
}

static void
legacy_request(struct ctx *c, json_object *msg)
{
	json_object *resp;
	int http;

	if (legacy_version(c) == NULL)
		return;
	c->log_min = level_load(c);
	resp = legacy_message(c, msg, &http);
	if (resp == NULL) {
		reply_accepted(c);
		return;
	}
	reply_json(c, http, resp);
	json_object_put(resp);
}

static void
legacy_batch(struct ctx *c, json_object *arr)
{
	json_object *out, *resp;
	const char *v;
	size_t i, n = json_object_array_length(arr);
	int http;

	if (n == 0) {
		reply_error(c, 400, NULL, SW_RPC_INVALID_REQUEST,
		    "Invalid Request: empty batch", NULL);
		return;
	}
	if (n > SW_MCP_MAX_BATCH) {
		char text[120];

		sw_fmt_text(text, sizeof(text),
		    "Invalid Request: a batch "
		    "holds "
		    "at most %d messages; this one has %zu",
		    SW_MCP_MAX_BATCH, n);
		reply_error(c, 400, NULL, SW_RPC_INVALID_REQUEST, text, NULL);
		return;
	}
	if ((v = legacy_version(c)) == NULL)
		return;
	if (strcmp(v, SW_MCP_BATCH_VERSION) != 0) {
		reply_error(c, 400, NULL, SW_RPC_INVALID_REQUEST,
		    "Invalid "
		    "Request: JSON-RPC batches are not part of MCP since "
		    "2025-06-18; send one message per POST",
		    NULL);
		return;
	}
	out = json_object_new_array();
	for (i = 0; i < n; i++) {
		resp =
		    legacy_message(c, json_object_array_get_idx(arr, i), &http);
		if (resp != NULL)
			json_object_array_add(out, resp);
	}
	if (json_object_array_length(out) == 0)
		reply_accepted(c);
	else
		reply_json(c, 200, out);
	json_object_put(out);
}

/* ---- modern era (2026-07-28) ------------------------------------------ */

static int
b64_value(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+' || ch == '-')
		return 62;
	if (ch == '/' || ch == '_')
		return 63;
	return -1;
}

/* Decode an Mcp-Name value: plain, or =?base64?...?= (into buf). */
static const char *
header_value_decode(const char *h, char *buf, size_t bufsz)
{
	size_t n = strlen(h), i, o = 0;
	unsigned acc = 0;
	int bits = 0, v;

	if (n < 11 || strncmp(h, "=?base64?", 9) != 0 ||
	    strcmp(h + n - 2, "?=") != 0)
		return h;
	for (i = 9; i < n - 2; i++) {
		if (h[i] == '=')
			break;
		if ((v = b64_value((unsigned char)h[i])) < 0)
			return NULL;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o + 1 >= bufsz)
				return NULL;
			buf[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	buf[o] = '\0';
	if (strlen(buf) != o)
		return NULL;
	return buf;
}

static void
header_mismatch(struct ctx *c, json_object *id, const char *what)
{
	char msg[320];

	/* A header value quoted in what is cut at SW_MAX_HEADER; say so. */
	if (snprintf(msg, sizeof(msg), "Header mismatch: %s", what) >=
	    (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	reply_error(c, 400, id, SW_RPC_HEADER_MISMATCH, msg, NULL);
}

/* subscriptions/listen: an SSE stream of the named resources' updates,
 * ended by the empty result. */
static void
modern_listen(struct ctx *c, json_object *id, json_object *params)
{
	json_object *res;
	char why[300], text[360];
	int rc;

	if (!c->sse_ok || c->out->stream == NULL) {
		reply_error(c, 400, id, SW_RPC_INVALID_REQUEST,
		    "Bad Request: "
		    "subscriptions/listen answers text/event-stream; send "
		    "Accept: text/event-stream",
		    NULL);
		return;
	}
	rc = sw_mcp_listen(c->m, &c->who, id, params, c->out, why, sizeof(why));
	if (rc != 0) {
		sw_fmt_text(text, sizeof(text), "%s: %s",
		    rc == -2 ? "Too many streams" : "Invalid params", why);
		reply_error(c, rc == -2 ? 429 : 400, id,
		    rc == -2 ? SW_RPC_INVALID_REQUEST : SW_RPC_INVALID_PARAMS,
		    text, NULL);
		return;
	}
	res = json_object_new_object();
	modern_result(c, res, 0);
	res = rpc_result(id, res);
	reply_json(c, 200, res);
	json_object_put(res);
}

static void
modern_request(struct ctx *c, json_object *msg)
{
	const struct method_row *row;
	json_object *id, *params, *meta, *pv, *caps, *data, *src;
	const char *why = NULL, *method, *hdr, *want;
	char decoded[512], what[300];
	enum kind k;

	c->modern = 1;
	k = classify(msg, &id, &why);
	if (k == K_INVALID) {
		reply_error(c, 400, id, SW_RPC_INVALID_REQUEST, why, NULL);
		return;
	}
	if (k == K_RESPONSE) {
		reply_error(c, 400, id, SW_RPC_INVALID_REQUEST,
		    "clients do "
		    "not send JSON-RPC responses in " SW_MCP_MODERN_VERSION,
		    NULL);
		return;
	}
	if (k == K_NOTIFICATION) {
		reply_accepted(c);
		return;
	}
	method = sw_json_get_str(msg, "method");
	params = sw_json_get(msg, "params");
	meta = params ? sw_json_get(params, "_meta") : NULL;
	pv = meta ? sw_json_get(meta, META_VERSION) : NULL;
	caps = meta ? sw_json_get(meta, META_CAPS) : NULL;
	if (params == NULL || !json_object_is_type(params, json_type_object) ||
	    meta == NULL || !json_object_is_type(meta, json_type_object) ||
	    pv == NULL || !json_object_is_type(pv, json_type_string) ||
	    caps == NULL || !json_object_is_type(caps, json_type_object)) {
		reply_error(c, 400, id, SW_RPC_INVALID_PARAMS,
		    "Invalid params: "
		    "params._meta must carry " META_VERSION
		    " (a string) and " META_CAPS " (an object)",
		    NULL);
		return;
	}
	c->client_elicits = sw_json_get(caps, "elicitation") != NULL;
	c->log_min = level_index(sw_json_get_str(meta, META_LOG_LEVEL));
	hdr = c->in->protocol_version;
	if (hdr == NULL) {
		header_mismatch(c, id,
		    "MCP-Protocol-Version header is "
		    "missing");
		return;
	}
	if (strcmp(hdr, json_object_get_string(pv)) != 0) {
		sw_fmt_text(what, sizeof(what),
		    "MCP-Protocol-Version header "
		    "'%.40s' does not match body value '%.40s'",
		    hdr, json_object_get_string(pv));
		header_mismatch(c, id, what);
		return;
	}
	if (!in_list(modern_versions, hdr)) {
		data = json_object_new_object();
		json_object_object_add(
		    data, "supported", str_array(modern_versions));
		sw_json_add_str(data, "requested", hdr);
		reply_error(c, 400, id, SW_RPC_UNSUPPORTED_VER,
		    "Unsupported protocol version", data);
		return;
	}
	if (c->in->mcp_method == NULL) {
		header_mismatch(c, id, "Mcp-Method header is missing");
		return;
	}
	if (strcmp(c->in->mcp_method, method) != 0) {
		sw_fmt_text(what, sizeof(what),
		    "Mcp-Method header '%.60s' "
		    "does "
		    "not match body value '%.60s'",
		    c->in->mcp_method, method);
		header_mismatch(c, id, what);
		return;
	}
	row = method_find(method, 1);
	src = row != NULL && row->name_param != NULL
	    ? sw_json_get(params, row->name_param)
	    : NULL;
	if (src != NULL && json_object_is_type(src, json_type_string)) {
		want = json_object_get_string(src);
		if (c->in->mcp_name == NULL) {
			header_mismatch(c, id, "Mcp-Name header is missing");
			return;
		}
		hdr = header_value_decode(
		    c->in->mcp_name, decoded, sizeof(decoded));
		if (hdr == NULL || strcmp(hdr, want) != 0) {
			sw_fmt_text(what, sizeof(what),
			    "Mcp-Name header does "
			    "not "
			    "match body value '%.100s'",
			    want);
			header_mismatch(c, id, what);
			return;
		}
	}
	if (strcmp(method, "subscriptions/listen") == 0) {
		modern_listen(c, id, params);
		return;
	}
	modern_answer(c, id, method, params);
}

/* ---- the common call, read without a document ------------------------- */

/*
 * The call agents make most -- a modern tools/call of a row's tool with
 * none of progress, a log level, a confirmation or an extra's tool -- is
 * read by sw_jscan: the envelope's members are found in the text and
 * only the arguments are parsed.  Its answer is written as text.  Any
 * other request, and any the reader is unsure of, goes the general way
 * (quick_call returns 0 having written nothing), which answers it alike.
 */
struct quick {
	struct sw_mcp *m;
	const char *end; /* of the body */
	struct sw_jval id;
	json_object *args; /* parsed, owned */
	char name[128];
	char version[64];
	int elicits;
};

/* Is this member's key new?  Any key read twice sends the request the
 * general way (the parser keeps the last). */
static int
first_time(unsigned *seen, unsigned bit)
{
	if (*seen & bit)
		return 0;
	*seen |= bit;
	return 1;
}

/* An id written as the parser would print it: a string without escapes
 * or a plain integer. */
static int
id_plain(const struct sw_jval *v)
{
	size_t i = v->n > 0 && v->p[0] == '-' ? 1 : 0;

	if (v->type == 's')
		return memchr(v->p + 1, '\\', v->n - 2) == NULL;
	if (v->type != 'n' || (v->n == 2 && v->p[0] == '-' && v->p[1] == '0'))
		return 0;
	for (; i < v->n; i++)
		if (v->p[i] < '0' || v->p[i] > '9')
			return 0;
	return 1;
}

/* params._meta: the version, the client's capabilities; 0 when the
 * general way must read it. */
static int
quick_meta(struct quick *q, struct sw_jscan *params)
{
	struct sw_jscan sc, caps;
	struct sw_jval k, v;
	unsigned seen = 0;
	int r;

	if (sw_jscan_into(&sc, params) != 0)
		return 0;
	while ((r = sw_jscan_next(&sc, &k, &v)) == 1) {
		if (SW_JKEY_IS(&k, META_VERSION)) {
			if (!first_time(&seen, 1) ||
			    sw_jval_text(&v, q->version, sizeof(q->version)) !=
				0)
				return 0;
		} else if (SW_JKEY_IS(&k, META_CAPS)) {
			if (!first_time(&seen, 2) ||
			    sw_jscan_into(&caps, &sc) != 0)
				return 0;
			while ((r = sw_jscan_next(&caps, &k, &v)) == 1)
				q->elicits |= SW_JKEY_IS(&k, "elicitation");
			if (r != 0)
				return 0;
		} else if (SW_JKEY_IS(&k, META_LOG_LEVEL) ||
		    SW_JKEY_IS(&k, "progressToken"))
			return 0;
	}
	return r == 0 && seen == 3;
}

/* params: the tool's name, its arguments' text and _meta. */
static int
quick_params(struct quick *q, struct sw_jscan *top)
{
	struct sw_jscan sc;
	struct sw_jval k, v;
	unsigned seen = 0;
	char why[160];
	size_t used;
	int r;

	if (sw_jscan_into(&sc, top) != 0)
		return 0;
	while ((r = sw_jscan_next(&sc, &k, &v)) == 1) {
		if (SW_JKEY_IS(&k, "name")) {
			if (!first_time(&seen, 1) ||
			    sw_jval_text(&v, q->name, sizeof(q->name)) != 0)
				return 0;
		} else if (SW_JKEY_IS(&k, "arguments")) {
			/* parsed where it lies: params in the envelope are
			 * the 2 levels above it */
			if (!first_time(&seen, 2) || v.type != 'o' ||
			    sw_json_parse_part(&q->m->tok_args,
				SW_MAX_JSON_DEPTH - 2, v.p,
				(size_t)(q->end - v.p), &used, &q->args, why,
				sizeof(why)) != SW_OK)
				return 0;
			sw_jscan_took(&sc, &v, used);
		} else if (SW_JKEY_IS(&k, "_meta")) {
			if (!first_time(&seen, 4) || v.type != 'o' ||
			    !quick_meta(q, &sc))
				return 0;
		}
	}
	return r == 0 && (seen & 5) == 5;
}

/* The envelope of a tools/call; 0 when the general way must read it. */
static int
quick_read(const struct sw_mcp_http *in, struct quick *q)
{
	struct sw_jscan top;
	struct sw_jval k, v;
	unsigned seen = 0;
	int r;

	if (in->body == NULL ||
	    sw_jscan_open(&top, in->body, in->body_len) != 0)
		return 0;
	q->end = in->body + in->body_len;
	while ((r = sw_jscan_next(&top, &k, &v)) == 1) {
		if (SW_JKEY_IS(&k, "jsonrpc")) {
			if (!first_time(&seen, 1) || !sw_jval_is(&v, "2.0"))
				return 0;
		} else if (SW_JKEY_IS(&k, "id")) {
			if (!first_time(&seen, 2) || !id_plain(&v))
				return 0;
			q->id = v;
		} else if (SW_JKEY_IS(&k, "method")) {
			if (!first_time(&seen, 4) ||
			    !sw_jval_is(&v, "tools/call"))
				return 0;
		} else if (SW_JKEY_IS(&k, "params")) {
			if (!first_time(&seen, 8) || v.type != 'o' ||
			    !quick_params(q, &top))
				return 0;
		}
	}
	return r == 0 && seen == 15;
}

/* Would the general way answer q as the quick way does?  Its header
 * checks pass, and m_tools_call would take its plain way (each refusal
 * and gate left to it). */
static const struct sw_op *
quick_row(struct ctx *c, const struct quick *q)
{
	const struct sw_mcp_http *in = c->in;
	const struct sw_op *op;
	char decoded[512], why[400];
	const char *hdr;

	if (in->protocol_version == NULL ||
	    strcmp(in->protocol_version, q->version) != 0 ||
	    !in_list(modern_versions, q->version) || in->mcp_method == NULL ||
	    strcmp(in->mcp_method, "tools/call") != 0 || in->mcp_name == NULL ||
	    (hdr = header_value_decode(
		 in->mcp_name, decoded, sizeof(decoded))) == NULL ||
	    strcmp(hdr, q->name) != 0)
		return NULL;
	if ((op = sw_mcp_row_tool(q->name)) == NULL ||
	    !sw_mcp_tool_allowed(c->m, c->who.tools, q->name) ||
	    team_refused(c, q->name, why, sizeof(why)) ||
	    (c->m->extras != NULL && c->m->extras->is_tool(q->name)) ||
	    sw_mcp_confirm_asked(op))
		return NULL;
	return op;
}

/* Answer the request the quick way: 1, or 0 (nothing written) to send
 * it the general way. */
static int
quick_call(struct ctx *c)
{
	struct sw_buf *b = &c->out->body;
	const struct sw_op *op;
	struct quick q;
	int is_error = 0;
	sw_err e;

	memset(&q, 0, sizeof(q));
	q.m = c->m;
	if (!quick_read(c->in, &q) || (op = quick_row(c, &q)) == NULL) {
		json_object_put(q.args);
		return 0;
	}
	c->client_elicits = q.elicits;
	if ((e = answer_open(b, q.id.p, q.id.n)) == SW_OK &&
	    (e = sw_mcp_row_answer(c->m, &c->who, op, q.args, b, &is_error)) ==
		SW_OK &&
	    (e = sw_buf_putc(b, ',')) == SW_OK)
		e = answer_close(c, b, NULL, 0, 0);
	json_object_put(q.args);
	sw_metric_add("slipway_mcp_calls_total", 1, "tool", q.name, "outcome",
	    is_error ? "error" : "ok", NULL);
	if (e != SW_OK)
		answer_too_big(c, b->len);
	return 1;
}

/* ---- the entry point -------------------------------------------------- */

void
sw_mcp_handle(
    struct sw_mcp *m, const struct sw_mcp_http *in, struct sw_mcp_answer *out)
{
	struct ctx c;
	json_object *msg = NULL, *id;
	const char *method, *why;
	char reason[160];

	memset(&c, 0, sizeof(c));
	c.m = m;
	c.in = in;
	c.out = out;
	c.modern = in->protocol_version != NULL &&
	    in_list(modern_versions, in->protocol_version);
	c.log_min = -1;
	c.sse_ok = in->accept != NULL &&
	    strstr(in->accept, "text/event-stream") != NULL;
	if (!host_ok(m, in->host) || !origin_ok(m, in->origin, in->host)) {
		reply_error(&c, 403, NULL, SW_RPC_INVALID_REQUEST,
		    "Forbidden: Origin or Host is not allowed", NULL);
		return;
	}
	/* Headers are echoed in errors: refuse, never quote, bad text. */
	if ((why = header_text_bad(in)) != NULL) {
		char text[120];

		sw_fmt_text(text, sizeof(text),
		    "Invalid Request: the %s "
		    "header "
		    "is not valid UTF-8",
		    why);
		reply_error(&c, 400, NULL, SW_RPC_INVALID_REQUEST, text, NULL);
		return;
	}
	method = in->method ? in->method : "GET";
	if (strcmp(method, "GET") == 0 && in->session_id != NULL && c.sse_ok &&
	    !c.modern) {
		/* A legacy session's notification stream. */
		if (authenticate(&c) != 0 || legacy_version(&c) == NULL)
			return;
		sw_mcp_stream_session(m, &c.who, in->session_id, out);
		if (!out->streamed)
			reply_error(&c, 500, NULL, SW_RPC_INTERNAL,
			    "Internal "
			    "error: cannot stream",
			    NULL);
		return;
	}
	if (strcmp(method, "POST") != 0) {
		/* No GET stream, no DELETE of sessions: both eras allow 405. */
		add_header(out, "Allow", "POST");
		reply_error(&c, 405, NULL, SW_RPC_INVALID_REQUEST,
		    "Method Not Allowed: POST JSON-RPC messages to /mcp", NULL);
		return;
	}
	if (authenticate(&c) != 0)
		return;
	if (in->body_too_big) {
		reply_error(&c, 413, NULL, SW_RPC_INVALID_REQUEST,
		    "Request body too large", NULL);
		return;
	}
	if (!media_is(in->content_type, "application/json")) {
		reply_error(&c, 415, NULL, SW_RPC_INVALID_REQUEST,
		    "Unsupported Media Type: Content-Type must be "
		    "application/json",
		    NULL);
		return;
	}
	if (!accept_ok(in->accept)) {
		reply_error(&c, 406, NULL, SW_RPC_INVALID_REQUEST,
		    "Not Acceptable: Accept must allow application/json", NULL);
		return;
	}
	if (c.modern && in->mcp_method != NULL &&
	    strcmp(in->mcp_method, "tools/call") == 0 && quick_call(&c))
		return;
	if (sw_json_parse_with(&m->tok, in->body ? in->body : "", in->body_len,
		&msg, reason, sizeof(reason)) != SW_OK) {
		char text[200];

		sw_fmt_text(text, sizeof(text), "Parse error: %s", reason);
		reply_error(&c, 400, NULL, SW_RPC_PARSE_ERROR, text, NULL);
		return;
	}
	if (json_object_is_type(msg, json_type_array)) {
		if (c.modern)
			reply_error(&c, 400, NULL, SW_RPC_INVALID_REQUEST,
			    "Invalid Request: no batches in " SW_MCP_MODERN_VERSION,
			    NULL);
		else
			legacy_batch(&c, msg);
		goto out;
	}
	if (classify(msg, &id, &why) == K_REQUEST &&
	    strcmp(sw_json_get_str(msg, "method"), "initialize") == 0) {
		json_object *params = sw_json_get(msg, "params");

		c.modern = 0;
		if (params == NULL ||
		    !json_object_is_type(params, json_type_object))
			reply_error(&c, 400, id, SW_RPC_INVALID_PARAMS,
			    "Invalid params: initialize needs an object", NULL);
		else
			legacy_initialize(&c, id, params);
		goto out;
	}
	if (c.modern || modern_meta(msg) != NULL)
		modern_request(&c, msg);
	else
		legacy_request(&c, msg);
out:
	json_object_put(c.error_data);
	json_object_put(msg);
}

sw_err
sw_mcp_answer_head(const struct sw_mcp_answer *a, struct sw_buf *out)
{
	sw_err e;

	if ((e = sw_buf_puts(out, "Status: ")) == SW_OK &&
	    (e = sw_buf_putl(out, a->status ? a->status : 200)) == SW_OK &&
	    (e = sw_buf_puts(out, "\r\nCache-Control: no-store\r\n")) == SW_OK)
		e = sw_buf_add(out, a->headers.data, a->headers.len);
	if (e == SW_OK && a->content_type != NULL &&
	    (e = sw_buf_puts(out, "Content-Type: ")) == SW_OK &&
	    (e = sw_buf_puts(out, a->content_type)) == SW_OK)
		e = sw_buf_puts(out, "\r\n");
	if (e == SW_OK && (e = sw_buf_puts(out, "Content-Length: ")) == SW_OK &&
	    (e = sw_buf_putl(out, (long long)a->body.len)) == SW_OK)
		e = sw_buf_puts(out, "\r\n\r\n");
	return e;
}

/* ---- set-up ------------------------------------------------------------ */

/* Read or create (once, race-free) the 32-byte session key. */
static sw_err
key_load(struct sw_mcp *m)
{
	char path[700], tmp[720];
	unsigned char k[32];
	ssize_t n;
	int fd, tries;

	if (sw_fmt(path, sizeof(path), "%s/mcp-session.key",
		m->cfg->state_dir) != SW_OK) {
		sw_error("state directory path too long");
		return SW_EINTERNAL;
	}
	for (tries = 0; tries < 50; tries++) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, m->key, sizeof(m->key));
			close(fd);
			if (n == (ssize_t)sizeof(m->key))
				return SW_OK;
			sw_error("%s: short key file", path);
			return SW_EINTERNAL;
		}
		if (errno != ENOENT)
			break;
		/* Write a whole key aside, then link it into place: the
		 * first worker wins and the others read its key. */
		if (RAND_bytes(k, sizeof(k)) != 1)
			return SW_EINTERNAL;
		if (sw_fmt(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid()) !=
		    SW_OK)
			break;
		if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			 0600)) < 0)
			break;
		n = write(fd, k, sizeof(k));
		close(fd);
		if (n == (ssize_t)sizeof(k))
			(void)link(tmp, path);
		unlink(tmp);
		OPENSSL_cleanse(k, sizeof(k));
	}
	sw_error("cannot read or create %s: %s", path, strerror(errno));
	return SW_EINTERNAL;
}

sw_err
sw_mcp_init(struct sw_mcp *m, const struct sw_config *cfg, struct sw_db *db,
    const struct sw_handler_row *handlers)
{
	const char *url;
	sw_err e;

	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	m->db = db;
	m->handlers = handlers;
	m->rest = sw_mcp_rest_curl;
	m->rest_arg = m;
	url = sw_json_get_str(cfg->root, "internal_url");
	if ((url == NULL ? sw_fmt(m->base_url, sizeof(m->base_url),
			       "http://127.0.0.1:%d", cfg->port)
			 : sw_fmt(m->base_url, sizeof(m->base_url), "%s",
			       url)) != SW_OK) {
		sw_error("internal_url %s is too long", url ? url : "");
		return SW_EINTERNAL;
	}
	if ((strncmp(m->base_url, "http://", 7) != 0 ||
		!sw_host_is_loopback(m->base_url + 7))) {
		sw_error(
		    "internal_url %s is not a loopback http URL", m->base_url);
		return SW_EINTERNAL;
	}
	if ((e = key_load(m)) != SW_OK)
		return e;
	return sw_tooldesc_load(cfg->state_dir, &m->plugins);
}

void
sw_mcp_free(struct sw_mcp *m)
{
	sw_mcp_rest_cleanup(m);
	json_object_put(m->plugins);
	m->plugins = NULL;
	json_object_put(m->server_info);
	free(m->answer_end);
	m->server_info = NULL;
	sw_json_tokener_free(m->tok);
	sw_json_tokener_free(m->tok_args);
	m->tok = NULL;
	OPENSSL_cleanse(m->key, sizeof(m->key));
}
