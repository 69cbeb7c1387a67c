/* test-mcp.c: lib/mcp without FastCGI or nginx.  Tool list generation
 * from the operation table, arguments dispatched as JSON, request
 * parsing and JSON-RPC errors, both eras (version negotiation, sessions,
 * the 2026 header checks), tools/call through the real router run
 * in-process, REST error mapping, and tools.d plugins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/fault.h"
#include "lib/json.h"
#include "mcp/mcp.h"
#include "lib/ops.h"
#include "api/openapi.h"
#include "api/router.h"
#include "lib/url.h"
#include "handlers/table.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

static struct sw_db *db;
static struct sw_config cfg;
static struct sw_mcp m;
static char admin[SW_TOKEN_LEN], reader[SW_TOKEN_LEN], writer[SW_TOKEN_LEN];
static char state[64];
static char legacy_sid[80]; /* admin's 2025-11-25 session */

/* ---- REST stand-ins ---------------------------------------------------- */

static int rest_calls;
static char last_target[4096], last_method[16], last_body[4096];

static long fake_status;
static const char *fake_body;
static sw_err fake_err;

static sw_err
rest_fake(void *arg, const char *method, const char *target,
    const char *authorization, const char *body, long *status,
    struct sw_buf *resp)
{
	(void)arg;
	(void)authorization;
	rest_calls++;
	snprintf(last_target, sizeof(last_target), "%s", target);
	snprintf(last_method, sizeof(last_method), "%s", method);
	snprintf(last_body, sizeof(last_body), "%s", body ? body : "");
	if (fake_err != SW_OK)
		return fake_err;
	*status = fake_status;
	sw_buf_puts(resp, fake_body);
	return SW_OK;
}

/* ---- driving the endpoint ---------------------------------------------- */

struct hdrs {
	const char *pv, *method, *name, *sid, *origin, *host, *ct;
	const char *http_method;
	const char *token; /* NULL: admin; "": none */
};

static int
mcp(const struct hdrs *h, const char *body, json_object **out, char *sid_out)
{
	struct sw_mcp_http in;
	struct sw_mcp_answer a;
	char authz[128];
	const char *s;
	int status;

	memset(&in, 0, sizeof(in));
	in.method = h && h->http_method ? h->http_method : "POST";
	if (h == NULL || h->token == NULL || h->token[0] != '\0') {
		snprintf(authz, sizeof(authz), "Bearer %s",
		    h && h->token ? h->token : admin);
		in.authorization = authz;
	}
	in.content_type = h && h->ct ? h->ct : "application/json";
	in.accept = "application/json, text/event-stream";
	in.host = h && h->host ? h->host : "127.0.0.1:3099";
	if (h != NULL) {
		in.protocol_version = h->pv;
		in.mcp_method = h->method;
		in.mcp_name = h->name;
		in.session_id = h->sid;
		in.origin = h->origin;
	}
	in.body = body;
	in.body_len = body ? strlen(body) : 0;
	sw_mcp_answer_init(&a);
	sw_mcp_handle(&m, &in, &a);
	status = a.status;
	if (out != NULL)
		*out =
		    a.body.len ? json_tokener_parse(sw_buf_str(&a.body)) : NULL;
	if (sid_out != NULL) {
		sid_out[0] = '\0';
		if ((s = strstr(sw_buf_str(&a.headers), "Mcp-Session-Id: ")) !=
		    NULL)
			snprintf(sid_out, 80, "%.*s",
			    (int)strcspn(s + 16, "\r"), s + 16);
	}
	/* Headers for the few checks that need them. */
	if (status == 405)
		ok(strstr(sw_buf_str(&a.headers), "Allow: POST") != NULL,
		    "405 says Allow: POST");
	if (status == 401)
		ok(strstr(sw_buf_str(&a.headers), "WWW-Authenticate: Bearer") !=
			NULL,
		    "401 carries WWW-Authenticate: Bearer");
	sw_mcp_answer_free(&a);
	return status;
}

static int
err_code(json_object *o)
{
	return (int)sw_json_get_int(sw_json_get(o, "error"), "code", 0);
}

/* A modern request body for method with params (JSON members, may be
 * empty) and the standard _meta. */
static const char *
modern_body(const char *method, const char *params, const char *version)
{
	static char b[4096];

	snprintf(b, sizeof(b),
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"%s\",\"params\":{%s%s\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"%s\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{},"
	    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\","
	    "\"version\":\"1\"}}}}",
	    method, params, params[0] ? "," : "", version);
	return b;
}

/* tools/call in the legacy era; returns the result object (owned). */
static json_object *
call(const char *token, const char *tool, const char *args)
{
	struct hdrs h = { 0 };
	char body[4096], sid[80];
	json_object *o, *res;

	h.token = token;
	snprintf(body, sizeof(body),
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
	    "\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":"
	    "\"1\"}}}");
	mcp(&h, body, &o, sid);
	json_object_put(o);
	h.sid = sid;
	h.pv = "2025-11-25";
	snprintf(body, sizeof(body),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"%s\"%s%s}}",
	    tool, args ? ",\"arguments\":" : "", args ? args : "");
	mcp(&h, body, &o, NULL);
	res = json_object_get(sw_json_get(o, "result"));
	if (res == NULL)
		res = json_object_get(o);
	json_object_put(o);
	return res;
}

static int64_t
jpath_int(json_object *o, const char *path, int64_t dflt)
{
	json_object *v = sw_json_path(o, path);

	return v != NULL ? json_object_get_int64(v) : dflt;
}

static json_object *
tool_named(json_object *tools, const char *name)
{
	size_t i;

	for (i = 0; i < json_object_array_length(tools); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(tools, i), "name"),
			name) == 0)
			return json_object_array_get_idx(tools, i);
	return NULL;
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* ---- the tests ------------------------------------------------------------ */

/* A token of no team with scope sc: its scope alone limits it. */
static const struct sw_principal *
of_scope(enum sw_scope sc)
{
	static struct sw_principal p[SW_SCOPE__MAX];

	p[sc].scope = sc;
	return &p[sc];
}

static void
test_tool_list(void)
{
	json_object *all = sw_mcp_tool_list(&m, of_scope(SW_SCOPE_ADMIN));
	json_object *ro = sw_mcp_tool_list(&m, of_scope(SW_SCOPE_READ));
	json_object *t, *s;
	size_t i, want = 0;
	int schemas = 1, dry = 1, hints = 1, polls = 1, ro_only = 1;
	int confirm = 1;

	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *op = &sw_optable[i];

		if (op->flags & SW_OP_NO_MCP) {
			ok(tool_named(all, op->name) == NULL,
			    "NO_MCP row %s is not a tool", op->name);
			continue;
		}
		want++;
		t = tool_named(all, op->name);
		if (t == NULL) {
			ok(0, "row %s is a tool", op->name);
			continue;
		}
		s = sw_json_get(t, "inputSchema");
		if (s == NULL || strcmp(sw_json_get_str(s, "type"), "object") ||
		    sw_json_get(t, "outputSchema") == NULL ||
		    strcmp(
			sw_json_get_str(sw_json_get(t, "outputSchema"), "type"),
			"object") != 0)
			schemas = 0;
		if (((op->flags & SW_OP_DRY_RUN) != 0) !=
		    (sw_json_get(sw_json_get(s, "properties"), "dry_run") !=
			NULL))
			dry = 0;
		/* confirm: every destructive row and feature_set, no other. */
		if ((sw_json_get(sw_json_get(s, "properties"), "confirm") !=
			NULL) !=
		    (!(op->flags & SW_OP_READONLY) &&
			((op->flags & SW_OP_DESTRUCTIVE) ||
			    strcmp(op->name, "feature_set") == 0)))
			confirm = 0;
		if (sw_json_get_bool(sw_json_get(t, "annotations"),
			"readOnlyHint",
			-1) != ((op->flags & SW_OP_READONLY) != 0) ||
		    sw_json_get_bool(sw_json_get(t, "annotations"),
			"destructiveHint",
			-1) != ((op->flags & SW_OP_DESTRUCTIVE) != 0))
			hints = 0;
		if (!(op->flags & SW_OP_READONLY) && op->status_tool != NULL &&
		    strstr(sw_json_get_str(t, "description"),
			op->status_tool) == NULL)
			polls = 0;
		if (tool_named(ro, op->name) != NULL &&
		    op->scope > SW_SCOPE_READ)
			ro_only = 0;
	}
	is_int((long long)json_object_array_length(all), (long long)want,
	    "admin sees one tool per MCP row");
	ok(schemas, "every tool has object input and output schemas");
	ok(confirm,
	    "confirm is an argument of exactly the destructive tools "
	    "and feature_set");
	ok(dry, "dry_run is an argument exactly where the row allows it");
	ok(hints, "readOnly/destructive hints follow the row flags");
	ok(polls, "mutating tools name their status tool");
	ok(ro_only, "a read token lists no tool that needs more");
	ok(tool_named(ro, "operation_get") != NULL &&
		tool_named(ro, "operation_cancel") == NULL,
	    "read token: operation_get listed, operation_cancel not");
	t = tool_named(all, "operation_wait");
	s = sw_json_get(sw_json_get(t, "inputSchema"), "properties");
	ok(sw_json_get(s, "id") != NULL && sw_json_get(s, "timeout") != NULL,
	    "path and query fields merge into inputSchema");
	is_str(json_object_get_string(json_object_array_get_idx(
		   sw_json_get(sw_json_get(t, "inputSchema"), "required"), 0)),
	    "id", "path fields are required");
	t = tool_named(all, "operation_get");
	is_str(
	    sw_json_get_str(
		sw_json_get(
		    sw_json_get(json_object_array_get_idx(
				    sw_json_get(sw_json_get(t, "outputSchema"),
					"anyOf"),
				    0),
			"properties"),
		    "state"),
		"type"),
	    "string", "outputSchema holds the row's named schema");
	if (sw_op_by_name("instance_group_add") != NULL) {
		t = tool_named(all, "instance_group_add");
		s = sw_json_get(sw_json_get(t, "inputSchema"), "properties");
		ok(sw_json_get(s, "name") != NULL &&
			sw_json_get(s, "instance_type") != NULL,
		    "body fields merge into inputSchema");
	}
	json_object_put(all);
	json_object_put(ro);
}

/* Error i of a tools/call result's problem: field and rule. */
static const char *
err_at(json_object *r, int i, const char *what)
{
	return sw_json_get_str(
	    json_object_array_get_idx(
		sw_json_path(r, "structuredContent.errors"), i),
	    what);
}

/* tools/call arguments go to the row's dispatch as JSON: path values
 * are checked as one plain segment each, path and query values are
 * typed by their fields, the rest is the body, and nothing is ever
 * turned into a URL. */
static void
test_dispatch_args(void)
{
	static const char *const bad[] = { "a/b", "..", ".", "a%2Fb", "a\\b",
		"../../b", NULL };
	json_object *r;
	char args[80];
	int i, refused = 1;

	for (i = 0; bad[i] != NULL; i++) {
		snprintf(args, sizeof(args), "{\"id\":\"%s\"}", bad[i]);
		r = call(NULL, "operation_get", args);
		if (!sw_json_get_bool(r, "isError", 0) ||
		    jpath_int(r, "structuredContent.status", 0) != 400 ||
		    err_at(r, 0, "rule") == NULL ||
		    strcmp(err_at(r, 0, "rule"), "segment") != 0) {
			diag("%s: %s", bad[i], sw_json_str(r));
			refused = 0;
		}
		json_object_put(r);
	}
	ok(refused,
	    "'/', '.', '..', '%%' and '\\\\' in a path argument "
	    "are refused, rule segment");
	r = call(NULL, "operation_get", "{\"id\":\"\"}");
	ok(sw_json_get_bool(r, "isError", 0) && err_at(r, 0, "rule") != NULL &&
		strcmp(err_at(r, 0, "rule"), "minLength") == 0,
	    "an empty path argument: minLength");
	json_object_put(r);
	r = call(NULL, "operation_wait", "{\"timeout\":5}");
	ok(sw_json_get_bool(r, "isError", 0) && err_at(r, 0, "field") != NULL &&
		strcmp(err_at(r, 0, "field"), "id") == 0 &&
		strcmp(err_at(r, 0, "rule"), "required") == 0,
	    "a missing path argument is named, rule required");
	json_object_put(r);
	r = call(NULL, "operation_list", "{\"limit\":2}");
	ok(!sw_json_get_bool(r, "isError", 0), "an integer query argument");
	json_object_put(r);
	r = call(NULL, "operation_list", "{\"limit\":\"2\"}");
	ok(!sw_json_get_bool(r, "isError", 0),
	    "... or its text, as REST "
	    "reads a query");
	json_object_put(r);
	r = call(NULL, "operation_list", "{\"limit\":\"two\"}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		strcmp(err_at(r, 0, "field"), "limit") == 0 &&
		strcmp(err_at(r, 0, "rule"), "type") == 0,
	    "a query argument of the wrong type: rule type");
	json_object_put(r);
	r = call(NULL, "operation_list", "{\"limit\":[2]}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		strcmp(err_at(r, 0, "field"), "limit") == 0,
	    "an array for a query argument is refused");
	json_object_put(r);
	r = call(NULL, "operation_get",
	    "{\"id\":\"op-0123456789abcdef\",\"dry_run\":true}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		strcmp(err_at(r, 0, "field"), "dry_run") == 0 &&
		strcmp(err_at(r, 0, "rule"), "unknown") == 0,
	    "dry_run where the row takes none: unknown");
	json_object_put(r);
	r = call(NULL, "operation_cancel",
	    "{\"id\":\"op-0123456789abcdef\",\"why\":\"x\"}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		strcmp(err_at(r, 0, "field"), "why") == 0 &&
		strcmp(err_at(r, 0, "rule"), "unknown") == 0,
	    "an argument that is no field of the row: unknown");
	json_object_put(r);
}

static void
test_transport(void)
{
	struct hdrs h = { 0 };
	json_object *o;
	char sid[80];

	is_int(mcp(NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,", &o, NULL), 400,
	    "malformed JSON: 400");
	is_int(err_code(o), SW_RPC_PARSE_ERROR, "malformed JSON: -32700");
	ok(json_object_object_get_ex(o, "id", NULL) &&
		sw_json_get(o, "id") == NULL,
	    "parse error has id null");
	json_object_put(o);
	h.token = "";
	is_int(mcp(&h, "{}", &o, NULL), 401, "no token: 401");
	json_object_put(o);
	h.token =
	    "swt_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
	is_int(mcp(&h, "{}", NULL, NULL), 401, "unknown token: 401");
	h.token = NULL;
	h.http_method = "GET";
	is_int(mcp(&h, NULL, NULL, NULL), 405, "GET: 405");
	h.http_method = "DELETE";
	is_int(mcp(&h, NULL, NULL, NULL), 405, "DELETE: 405");
	h.http_method = NULL;
	h.origin = "http://evil.example";
	is_int(mcp(&h, "{}", NULL, NULL), 403, "foreign Origin: 403");
	h.origin = "http://127.0.0.1:3099";
	h.host = "127.0.0.1:3099";
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
		   NULL, NULL),
	    400, "our Origin passes (then 400: no session)");
	h.origin = NULL;
	h.host = "evil.example:3099";
	is_int(mcp(&h, "{}", NULL, NULL), 403, "foreign Host: 403");
	h.host = NULL;
	h.ct = "text/plain";
	is_int(mcp(&h, "{}", NULL, NULL), 415, "text/plain body: 415");
	h.ct = NULL;

	is_int(mcp(NULL, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
		   &o, NULL),
	    400, "jsonrpc 1.0: 400");
	is_int(err_code(o), SW_RPC_INVALID_REQUEST, "jsonrpc 1.0: -32600");
	json_object_put(o);
	is_int(mcp(NULL,
		   "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":"
		   "\"ping\"}",
		   &o, NULL),
	    400, "id null: 400");
	is_int(err_code(o), SW_RPC_INVALID_REQUEST, "id null: -32600");
	json_object_put(o);
	is_int(mcp(NULL, "\"hello\"", &o, NULL), 400, "a JSON string: 400");
	json_object_put(o);

	/* Version negotiation. */
	is_int(
	    mcp(NULL,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
		"\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
		"\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":"
		"\"1\"}}}",
		&o, sid),
	    200, "initialize 2025-06-18");
	is_str(sw_json_path_str(o, "result.protocolVersion"), "2025-06-18",
	    "a supported version is kept");
	ok(strlen(sid) == 66 &&
		sw_json_path(o, "result.capabilities.tools") != NULL,
	    "a session id and the tools capability");
	ok(sw_json_get(sw_json_get(o, "result"), "resultType") == NULL,
	    "legacy results carry no resultType");
	json_object_put(o);
	mcp(NULL,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":"
	    "{}}}",
	    &o, NULL);
	is_str(sw_json_path_str(o, "result.protocolVersion"), "2025-11-25",
	    "an unsupported version gets our latest legacy one");
	json_object_put(o);
	mcp(NULL,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2026-07-28\",\"capabilities\":"
	    "{}}}",
	    &o, legacy_sid);
	is_str(sw_json_path_str(o, "result.protocolVersion"), "2025-11-25",
	    "initialize never selects the stateless era");
	json_object_put(o);

	/* Legacy sessions. */
	h.pv = "2025-11-25";
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", &o,
		   NULL),
	    400, "no Mcp-Session-Id: 400");
	json_object_put(o);
	h.sid = legacy_sid;
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", &o,
		   NULL),
	    200, "ping in a session");
	is_str(sw_json_str(sw_json_get(o, "result")), "{}", "ping -> {}");
	json_object_put(o);
	is_int(mcp(&h,
		   "{\"jsonrpc\":\"2.0\",\"method\":"
		   "\"notifications/initialized\"}",
		   &o, NULL),
	    202, "notifications/initialized: 202");
	ok(o == NULL, "202 has no body");
	h.pv = "2025-06-18";
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
		   NULL, NULL),
	    200, "another supported header version is accepted");
	h.pv = "1999-01-01";
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
		   NULL, NULL),
	    400, "unsupported MCP-Protocol-Version: 400");
	h.pv = "2025-11-25";
	snprintf(sid, sizeof(sid), "%s", legacy_sid);
	sid[10] = sid[10] == 'a' ? 'b' : 'a';
	h.sid = sid;
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
		   NULL, NULL),
	    404, "tampered session id: 404");
	h.sid = legacy_sid;
	h.token = reader;
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
		   NULL, NULL),
	    404, "another token's session: 404");
	h.token = NULL;
	m.now = (int64_t)time(NULL) + SW_MCP_SESSION_TTL + 10;
	is_int(mcp(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
		   NULL, NULL),
	    404, "expired session: 404");
	m.now = 0;
	is_int(mcp(&h,
		   "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
		   "\"sampling/createMessage\"}",
		   &o, NULL),
	    200, "unknown method (legacy)");
	is_int(err_code(o), SW_RPC_METHOD_NOT_FOUND, "unknown method: -32601");
	is_int(sw_json_get_int(o, "id", 0), 3, "error keeps the request id");
	json_object_put(o);
	is_int(mcp(&h,
		   "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
		   "\"tools/list\",\"params\":{\"cursor\":\"x\"}}",
		   &o, NULL),
	    200, "tools/list with a cursor we never gave");
	is_int(err_code(o), SW_RPC_INVALID_PARAMS, "bad cursor: -32602");
	json_object_put(o);

	/* Batches follow the negotiated version. */
	is_int(mcp(&h, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
		   &o, NULL),
	    400, "batch in 2025-11-25: 400");
	is_int(err_code(o), SW_RPC_INVALID_REQUEST, "batch refused: -32600");
	json_object_put(o);
	mcp(NULL,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":"
	    "{}}}",
	    &o, sid);
	json_object_put(o);
	h.pv = "2025-03-26";
	h.sid = sid;
	is_int(
	    mcp(&h,
		"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}]",
		&o, NULL),
	    200, "batch in 2025-03-26: 200");
	ok(json_object_is_type(o, json_type_array) &&
		json_object_array_length(o) == 2,
	    "two responses, none for the "
	    "notification");
	json_object_put(o);
	is_int(mcp(&h, "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]", NULL, NULL),
	    202, "a batch of notifications: 202");
	is_int(mcp(&h, "[]", NULL, NULL), 400, "empty batch: 400");
	{
		struct sw_buf b;
		int i, n;

		for (n = SW_MCP_MAX_BATCH; n <= SW_MCP_MAX_BATCH + 1; n++) {
			sw_buf_init(&b, 0);
			sw_buf_puts(&b, "[");
			for (i = 0; i < n; i++)
				sw_buf_printf(&b,
				    "%s{\"jsonrpc\":\"2.0\","
				    "\"id\":%d,\"method\":\"ping\"}",
				    i ? "," : "", i + 1);
			sw_buf_puts(&b, "]");
			if (n == SW_MCP_MAX_BATCH) {
				is_int(mcp(&h, sw_buf_str(&b), &o, NULL), 200,
				    "a batch at the limit runs");
				is_int((long long)json_object_array_length(o),
				    n, "... every message answered");
			} else {
				is_int(mcp(&h, sw_buf_str(&b), &o, NULL), 400,
				    "a batch over the limit: 400");
				is_int(err_code(o), SW_RPC_INVALID_REQUEST,
				    "... -32600, none of it run");
			}
			json_object_put(o);
			sw_buf_free(&b);
		}
	}
}

static void
test_modern(void)
{
	struct hdrs h = { 0 };
	json_object *o;

	h.pv = SW_MCP_MODERN_VERSION;
	h.method = "server/discover";
	is_int(
	    mcp(&h, modern_body("server/discover", "", SW_MCP_MODERN_VERSION),
		&o, NULL),
	    200, "server/discover");
	is_str(sw_json_path_str(o, "result.resultType"), "complete",
	    "resultType complete");
	ok(sw_json_path(o, "result.ttlMs") != NULL &&
		sw_json_path_str(o, "result.cacheScope") != NULL,
	    "discover has ttlMs and cacheScope");
	is_str(sw_json_str(json_object_array_get_idx(
		   sw_json_path(o, "result.supportedVersions"), 0)),
	    "\"2026-07-28\"", "supportedVersions starts with 2026-07-28");
	ok(sw_json_path(o, "result._meta") != NULL &&
		sw_json_get(sw_json_path(o, "result._meta"),
		    "io.modelcontextprotocol/serverInfo") != NULL,
	    "serverInfo in result _meta");
	json_object_put(o);

	h.method = "tools/list";
	is_int(mcp(&h, modern_body("tools/list", "", SW_MCP_MODERN_VERSION), &o,
		   NULL),
	    200, "modern tools/list");
	ok(json_object_array_length(sw_json_path(o, "result.tools")) > 0 &&
		sw_json_path(o, "result.ttlMs") != NULL,
	    "tools and caching hints");
	json_object_put(o);

	h.pv = NULL;
	is_int(mcp(&h, modern_body("tools/list", "", SW_MCP_MODERN_VERSION), &o,
		   NULL),
	    400, "no MCP-Protocol-Version: 400");
	is_int(err_code(o), SW_RPC_HEADER_MISMATCH, "... -32020");
	ok(!json_object_object_get_ex(o, "id", NULL) ||
		sw_json_get_int(o, "id", 0) == 7,
	    "modern errors keep the id");
	json_object_put(o);
	h.pv = SW_MCP_MODERN_VERSION;
	h.method = "tools/call";
	is_int(mcp(&h, modern_body("tools/list", "", SW_MCP_MODERN_VERSION), &o,
		   NULL),
	    400, "Mcp-Method mismatch: 400");
	is_int(err_code(o), SW_RPC_HEADER_MISMATCH, "... -32020");
	json_object_put(o);
	h.method = NULL;
	is_int(mcp(&h, modern_body("tools/list", "", SW_MCP_MODERN_VERSION), &o,
		   NULL),
	    400, "no Mcp-Method: 400");
	is_int(err_code(o), SW_RPC_HEADER_MISMATCH, "... -32020");
	json_object_put(o);
	h.method = "tools/call";
	h.name = "operation_list";
	is_int(mcp(&h,
		   modern_body("tools/call", "\"name\":\"whoami\"",
		       SW_MCP_MODERN_VERSION),
		   &o, NULL),
	    400, "Mcp-Name mismatch: 400");
	is_int(err_code(o), SW_RPC_HEADER_MISMATCH, "... -32020");
	json_object_put(o);
	h.name = "=?base64?d2hvYW1p?=";
	is_int(mcp(&h,
		   modern_body("tools/call", "\"name\":\"whoami\"",
		       SW_MCP_MODERN_VERSION),
		   &o, NULL),
	    200, "Base64 Mcp-Name is decoded");
	is_str(sw_json_path_str(o, "result.structuredContent.scope"), "admin",
	    "modern tools/call runs the tool");
	is_str(sw_json_path_str(o, "result.resultType"), "complete",
	    "tools/call result has resultType");
	json_object_put(o);
	h.name = NULL;
	is_int(mcp(&h,
		   modern_body("tools/call", "\"name\":\"whoami\"",
		       SW_MCP_MODERN_VERSION),
		   NULL, NULL),
	    400, "no Mcp-Name: 400");
	h.name = "nope";
	is_int(mcp(&h,
		   modern_body("tools/call", "\"name\":\"nope\"",
		       SW_MCP_MODERN_VERSION),
		   &o, NULL),
	    200, "unknown tool answered");
	is_int(err_code(o), SW_RPC_INVALID_PARAMS, "unknown tool: -32602");
	json_object_put(o);

	h.pv = "2027-01-01";
	h.method = "tools/list";
	is_int(mcp(&h, modern_body("tools/list", "", "2027-01-01"), &o, NULL),
	    400, "unsupported version: 400");
	is_int(err_code(o), SW_RPC_UNSUPPORTED_VER, "... -32022");
	is_str(sw_json_path_str(o, "error.data.requested"), "2027-01-01",
	    "data.requested");
	ok(json_object_array_length(sw_json_path(o, "error.data.supported")) >=
		1,
	    "data.supported lists versions");
	json_object_put(o);
	h.pv = "2025-11-25";
	is_int(mcp(&h, modern_body("tools/list", "", SW_MCP_MODERN_VERSION), &o,
		   NULL),
	    400, "header and _meta versions differ: 400");
	is_int(err_code(o), SW_RPC_HEADER_MISMATCH, "... -32020");
	json_object_put(o);
	h.pv = SW_MCP_MODERN_VERSION;
	h.method = "ping";
	is_int(
	    mcp(&h, modern_body("ping", "", SW_MCP_MODERN_VERSION), &o, NULL),
	    404, "ping is gone in 2026: 404");
	is_int(err_code(o), SW_RPC_METHOD_NOT_FOUND, "... -32601");
	json_object_put(o);
	h.method = "tools/list";
	is_int(
	    mcp(&h,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
		"\"tools/list\",\"params\":{\"_meta\":{"
		"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
		&o, NULL),
	    400, "no clientCapabilities: 400");
	is_int(err_code(o), SW_RPC_INVALID_PARAMS, "... -32602");
	json_object_put(o);
	is_int(mcp(&h, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
		   &o, NULL),
	    400, "no batches in 2026");
	ok(!json_object_object_get_ex(o, "id", NULL),
	    "modern error without a readable id has no id member");
	json_object_put(o);
}

static void
test_calls(void)
{
	json_object *r;

	rest_calls = 0;
	r = call(NULL, "whoami", NULL);
	is_str(sw_json_path_str(r, "structuredContent.scope"), "admin",
	    "whoami: structuredContent is the REST JSON");
	ok(strstr(sw_json_str(r), "\\\"scope\\\":\\\"admin\\\"") != NULL,
	    "the same JSON as text content");
	ok(!sw_json_get_bool(r, "isError", 0), "not an error");
	is_int(rest_calls, 0, "a row runs in process: no HTTP request");
	json_object_put(r);

	r = call(NULL, "operation_cancel", "{\"id\":\"op-0123456789abcdef\"}");
	ok(sw_json_get_bool(r, "isError", 0), "cancel unknown op: isError");
	is_int(jpath_int(r, "structuredContent.status", 0), 404,
	    "structuredContent is the 404 problem");
	ok(strstr(sw_json_str(r), "HTTP 404") != NULL, "text names HTTP 404");
	json_object_put(r);

	r = call(
	    reader, "operation_cancel", "{\"id\":\"op-0123456789abcdef\"}");
	is_int(jpath_int(r, "structuredContent.status", 0), 403,
	    "read token: REST refuses the mutation (403 isError)");
	json_object_put(r);

	r = call(NULL, "operation_get", "{\"id\":\"op-xyz\"}");
	ok(sw_json_get_bool(r, "isError", 0), "bad id: isError");
	is_str(
	    sw_json_get_str(json_object_array_get_idx(
				sw_json_path(r, "structuredContent.errors"), 0),
		"field"),
	    "id", "REST validation names the field");
	json_object_put(r);

	r = call(NULL, "operation_list", "{\"limit\":0,\"bogus\":1}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		strstr(sw_json_str(r), "bogus") != NULL,
	    "unknown argument reported by REST");
	json_object_put(r);

	r = call(NULL, "operation_get", NULL);
	ok(sw_json_get_bool(r, "isError", 0) &&
		strstr(sw_json_str(r), "required") != NULL,
	    "missing path argument: isError, required");
	json_object_put(r);

	r = call(NULL, "token_list", NULL);
	is_int(jpath_int(r, "error.code", 0), SW_RPC_INVALID_PARAMS,
	    "NO_MCP row is an unknown tool (-32602)");
	json_object_put(r);
	r = call(NULL, "whoami", "[1]");
	is_int(jpath_int(r, "error.code", 0), SW_RPC_INVALID_PARAMS,
	    "arguments must be an object (-32602)");
	json_object_put(r);

	/* An accepted mutation: a real pending operation, cancelled. */
	{
		static const char *const stages[] = { "one", NULL };
		struct sw_op_new n = { 0 };
		char id[SW_OP_ID_LEN], args[80];
		int existed = 0;

		n.kind = "cluster.create";
		n.target = "t";
		n.stages = stages;
		n.token_name = "admin";
		if (sw_op_enqueue(db, &n, id, &existed) != SW_OK)
			id[0] = '\0';
		snprintf(args, sizeof(args), "{\"id\":\"%s\"}", id);
		r = call(NULL, "operation_cancel", args);
		is_str(sw_json_path_str(r, "structuredContent.status_tool"),
		    "operation_wait", "accepted: status tool from the row");
		is_int(
		    jpath_int(r, "structuredContent.poll_interval_seconds", 0),
		    5, "accepted: poll interval from the row");
		ok(strstr(sw_json_str(r), "Poll operation_wait") != NULL,
		    "accepted: text tells how to poll");
		json_object_put(r);
	}

	/* The three path attacks of the old HTTP hop: each is refused by
	 * the row's field table before anything runs. */
	r = call(NULL, "training_job_delete",
	    "{\"name\":\"a\",\"job\":\"../../b\"}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		jpath_int(r, "structuredContent.status", 0) == 400 &&
		strcmp(sw_json_get_str(
			   json_object_array_get_idx(
			       sw_json_path(r, "structuredContent.errors"), 0),
			   "rule"),
		    "segment") == 0,
	    "job ../../b: 400, rule segment (no cluster delete)");
	json_object_put(r);
	r = call(NULL, "operation_get", "{\"id\":\"../tokens\"}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		jpath_int(r, "structuredContent.status", 0) == 400 &&
		strstr(sw_json_str(r), "\\\"tokens\\\":[") == NULL &&
		strstr(sw_json_str(r), "\\\"reader\\\"") == NULL,
	    "operation_get ../tokens: 400, no token listed");
	json_object_put(r);
	r = call(NULL, "training_job_delete",
	    "{\"name\":\"a\",\"job\":\"../../../tokens/reader\"}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		jpath_int(r, "structuredContent.status", 0) == 400,
	    "job ../../../tokens/reader: 400");
	json_object_put(r);
	r = call(reader, "whoami", NULL);
	is_str(sw_json_path_str(r, "structuredContent.name"), "reader",
	    "... and the reader token still works");
	json_object_put(r);
	r = call(NULL, "operation_get",
	    "{\"id\":\"op-0123456789abcdef"
	    "%2F\"}");
	ok(sw_json_get_bool(r, "isError", 0) &&
		jpath_int(r, "structuredContent.status", 0) == 400,
	    "an encoded separator in an argument: 400");
	json_object_put(r);
	is_int(rest_calls, 0, "no row ever used the HTTP transport");
}

static void
test_plugins(void)
{
	char path[200], why[200];
	json_object *d, *n, *tools, *r, *doc;
	int before;

	d = json_tokener_parse(
	    "{\"name\":\"q\",\"description\":\"d\","
	    "\"inputSchema\":{\"type\":\"object\"},\"method\":\"GET\","
	    "\"path\":\"/ext/q/report\",\"readOnly\":true}");
	is_int(sw_tooldesc_check(d, &n, why, sizeof(why)), SW_OK,
	    "a good descriptor");
	is_str(sw_json_get_str(n, "tool"), "ext_q", "tool name is prefixed");
	is_str(sw_json_get_str(n, "scope"), "read", "read-only -> read scope");
	json_object_put(n);
	json_object_put(d);
	d = json_tokener_parse(
	    "{\"name\":\"q\",\"description\":\"d\","
	    "\"inputSchema\":{\"type\":\"object\"},\"method\":\"GET\","
	    "\"path\":\"/api/v1/tokens\"}");
	ok(sw_tooldesc_check(d, &n, why, sizeof(why)) != SW_OK,
	    "a path outside /ext/ is refused");
	json_object_put(d);
	d = json_tokener_parse(
	    "{\"name\":\"q\",\"description\":\"d\","
	    "\"inputSchema\":{\"type\":\"object\"},\"method\":\"POST\","
	    "\"path\":\"/ext/q\",\"scope\":\"read\"}");
	ok(sw_tooldesc_check(d, &n, why, sizeof(why)) != SW_OK,
	    "a mutating plugin with read scope is refused");
	json_object_put(d);
	d = json_tokener_parse(
	    "{\"name\":\"q\",\"description\":\"d\","
	    "\"inputSchema\":{\"type\":\"object\"},\"method\":\"GET\","
	    "\"path\":\"/ext/q\",\"bogus\":1}");
	ok(sw_tooldesc_check(d, &n, why, sizeof(why)) != SW_OK,
	    "unknown descriptor member refused");
	json_object_put(d);

	snprintf(path, sizeof(path), "%s/tools.d", state);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/tools.d/a-quota.json", state);
	write_text(path,
	    "{\"name\":\"quota\",\"description\":\"GPU quota\","
	    "\"inputSchema\":{\"type\":\"object\",\"properties\":"
	    "{\"instance_type\":{\"type\":\"string\"}}},\"method\":\"GET\","
	    "\"path\":\"/ext/quota/report\",\"readOnly\":true}");
	snprintf(path, sizeof(path), "%s/tools.d/b-drain.json", state);
	write_text(path,
	    "{\"name\":\"drain\",\"description\":\"Drain\","
	    "\"inputSchema\":{\"type\":\"object\"},\"method\":\"POST\","
	    "\"path\":\"/ext/drain/{node}\",\"destructive\":true}");
	snprintf(path, sizeof(path), "%s/tools.d/c-bad.json", state);
	write_text(path, "{\"name\":");
	json_object_put(m.plugins);
	sw_tooldesc_load(state, &m.plugins);
	is_int((long long)json_object_array_length(m.plugins), 2,
	    "two good descriptors loaded, the broken one skipped");
	tools = sw_mcp_tool_list(&m, of_scope(SW_SCOPE_READ));
	ok(tool_named(tools, "ext_quota") != NULL &&
		tool_named(tools, "ext_drain") == NULL,
	    "read token lists the read-only plugin only");
	json_object_put(tools);
	m.rest = rest_fake;
	fake_err = SW_OK;
	fake_status = 200;
	fake_body = "{\"total_gpus\":8}";
	r = call(reader, "ext_quota", "{\"instance_type\":\"ml.p5.48xlarge\"}");
	is_str(last_target, "/ext/quota/report?instance_type=ml.p5.48xlarge",
	    "plugin GET: arguments in the query");
	is_int(jpath_int(r, "structuredContent.total_gpus", 0), 8,
	    "plugin answer relayed");
	json_object_put(r);
	before = rest_calls;
	r = call(reader, "ext_drain", "{\"node\":\"i-1\"}");
	ok(sw_json_get_bool(r, "isError", 0) && rest_calls == before &&
		jpath_int(r, "structuredContent.status", 0) == 403,
	    "write plugin with a read token: 403 before any request");
	json_object_put(r);
	r = call(writer, "ext_drain", "{\"node\":\"i 1\",\"force\":true}");
	is_str(last_target, "/ext/drain/i%201", "plugin POST: placeholder");
	is_str(last_body, "{\"force\":true}", "plugin POST: JSON body");
	json_object_put(r);
	before = rest_calls;
	r = call(writer, "ext_drain", "{\"node\":\"../../api/v1/x\"}");
	ok(sw_json_get_bool(r, "isError", 0) && rest_calls == before,
	    "plugin path argument with '/': refused before any request");
	json_object_put(r);
	{
		struct sw_principal who;
		json_object *a = json_object_new_object();
		char big[SW_MAX_PATH + SW_MAX_QUERY], why2[100];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		sw_json_add_str(a, "instance_type", big);
		before = rest_calls;
		r = NULL;
		if (sw_token_check(db, reader, &who) == SW_OK)
			(void)sw_mcp_tool_call(&m, &who, NULL, "ext_quota", a,
			    &r, why2, sizeof(why2));
		ok(r != NULL && sw_json_get_bool(r, "isError", 0) &&
			rest_calls == before &&
			strcmp(err_at(r, 0, "rule"), "maxLength") == 0,
		    "plugin query over its cap: refused, never cut");
		json_object_put(r);
		json_object_put(a);
	}
	fake_err = SW_OK;
	fake_status = 502;
	fake_body = "<html>bad gateway</html>";
	r = call(reader, "ext_quota", NULL);
	ok(sw_json_get_bool(r, "isError", 0) &&
		jpath_int(r, "structuredContent.status", 0) == 502,
	    "non-JSON 502: isError "
	    "with a problem of our own");
	json_object_put(r);
	fake_err = SW_EUNAVAIL;
	r = call(reader, "ext_quota", NULL);
	is_int(jpath_int(r, "structuredContent.status", 0), 503,
	    "plugin unreachable: isError 503");
	json_object_put(r);
	fake_err = SW_EUNAVAIL;

	setenv("SLIPWAY_STATE_DIR", state, 1);
	doc = sw_openapi_document();
	ok(sw_json_get(sw_json_path(doc, "paths./ext/quota/report"), "get") !=
		NULL,
	    "OpenAPI lists the plugin endpoint");
	is_str(
	    sw_json_get_str(sw_json_get(sw_json_get(sw_json_get(doc, "paths"),
					    "/ext/drain/{node}"),
				"post"),
		"operationId"),
	    "ext_drain", "operationId is the tool name");
	json_object_put(doc);
	unsetenv("SLIPWAY_STATE_DIR");
}

static void
cleanup_state(void)
{
	static const char *const files[] = { "tools.d/a-quota.json",
		"tools.d/b-drain.json", "tools.d/c-bad.json", "tools.d",
		"mcp-session.key", "" };
	char path[200];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", state, files[i]);
		if (remove(path) != 0 && files[i][0] == '\0')
			rmdir(path);
	}
}

/* Every allocation of an in-process tools/call failing in turn: each
 * answer is a JSON-RPC error or an isError result carrying a problem
 * with a 4xx/5xx status (a failed copy of the path once gave status 0
 * and no document). */
static void
test_alloc_faults(void)
{
#ifdef SW_FAULT_INJECTION
	json_object *r;
	long n, bad = 0, fired = 0;
	char spec[32];

	for (n = 1; n < 500; n++) {
		snprintf(spec, sizeof(spec), "alloc:%ld", n);
		(void)sw_fault_arm(spec);
		r = call(NULL, "operation_list", "{}");
		if (sw_fault_fired() == 0) {
			(void)sw_fault_arm(NULL);
			json_object_put(r);
			break;
		}
		(void)sw_fault_arm(NULL);
		fired++;
		if (sw_json_get_bool(r, "isError", 0) &&
		    jpath_int(r, "structuredContent.status", 0) < 400) {
			if (bad++ == 0)
				diag("alloc:%ld: %s", n, sw_json_str(r));
		}
		json_object_put(r);
	}
	ok(fired > 0 && bad == 0,
	    "tools/call with allocation %ld of %ld "
	    "failing: every isError carries a 4xx/5xx problem",
	    bad, fired);
#else
	skip(1, "built without fault injection");
#endif
}

int
main(void)
{
	char writer_name[] = "writer";

	if ((db = tmpdb_open()) == NULL)
		skip_all("cannot create a database");
	snprintf(state, sizeof(state), "/tmp/sw-mcp-XXXXXX");
	if (mkdtemp(state) == NULL)
		skip_all("cannot create a state directory");
	sw_config_load(state, &cfg);
	json_object_put(cfg.root);
	cfg.root = json_tokener_parse(
	    "{\"internal_url\":"
	    "\"http://127.0.0.1:3099\",\"allowed_origins\":"
	    "[\"http://127.0.0.1:3099\",\"http://localhost:3099\"]}");
	sw_token_create(db, "admin", SW_SCOPE_ADMIN, admin);
	sw_token_create(db, "reader", SW_SCOPE_READ, reader);
	sw_token_create(db, writer_name, SW_SCOPE_WRITE, writer);
	if (!ok(sw_mcp_init(&m, &cfg, db, sw_handler_table) == SW_OK,
		"sw_mcp_init"))
		return tap_done();
	/* Rows must never use the plugin transport: count any use. */
	m.rest = rest_fake;
	fake_err = SW_EUNAVAIL;

	test_tool_list();
	test_dispatch_args();
	test_transport();
	test_modern();
	test_calls();
	test_plugins();
	test_alloc_faults();

	{
		struct sw_mcp m2;
		json_object *bad = json_tokener_parse(
				"{\"internal_url\":\"http://example.com:80\"}"),
			    *keep;

		keep = cfg.root;
		cfg.root = bad;
		ok(sw_mcp_init(&m2, &cfg, db, sw_handler_table) != SW_OK,
		    "a non-loopback internal_url is refused at start");
		sw_mcp_free(&m2);
		cfg.root = keep;
		json_object_put(bad);
	}
	sw_mcp_free(&m);
	cleanup_state();
	sw_config_free(&cfg);
	tmpdb_close(db);
	sw_valid_cleanup();
	return tap_done();
}
