/*
 * mcp_tools.c: MCP tools from the operation table and from tools.d
 * descriptors, and tools/call as a REST request (see mcp.h).
 *
 * A row becomes a tool with the row's name; its description is the
 * summary and description plus, for a mutating row, the status tool to
 * poll and how often; its inputSchema merges the path, query and body
 * field tables (and dry_run); its outputSchema is the row's named
 * response schema or the problem document a failed call returns.
 *
 * tools/call of a row first checks the path arguments against the
 * row's own field table (one plain segment each: no '/', '..' or
 * encoded separator, then the field's type and pattern), puts them into
 * the path (percent-encoded), query arguments into the query string and
 * the rest into the JSON body, and runs the REST router in this process
 * with the principal slipway-mcp already authenticated: the same scope
 * check, validation and handler as REST, and no HTTP hop.  Plugin tools
 * (tools.d) are requests to their /ext/ program through m->rest.
 * The REST answer comes back as structuredContent plus the same JSON as
 * text; a 4xx/5xx problem document becomes isError with its detail and
 * per-field errors as text, so the model can correct its call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/json.h"
#include "lib/log.h"
#include "mcp/mcp.h"
#include "api/openapi.h"
#include "api/router.h"

#define META_PREFIX	"slipway/"

/* ---- tool definitions ------------------------------------------------- */

static int
op_is_tool(const struct sw_op *op)
{
	return !(op->flags & SW_OP_NO_MCP);
}

/* Tags whose tools touch only Slipway's own state. */
static int
closed_world(const char *tag)
{
	return strcmp(tag, "system") == 0 || strcmp(tag, "operations") == 0;
}

static json_object *
input_schema_of(const struct sw_op *op)
{
	json_object *s, *props, *req, *bs, *bp, *br;
	size_t i;

	s = sw_fields_schema(op->params, 0);
	props = sw_json_get(s, "properties");
	if ((req = sw_json_get(s, "required")) == NULL) {
		req = json_object_new_array();
		json_object_object_add(s, "required", req);
	}
	if (op->body != NULL) {
		bs = sw_fields_schema(op->body, 0);
		bp = sw_json_get(bs, "properties");
		br = sw_json_get(bs, "required");
		/* Path and query win over body members of the same name, as
		 * in the router. */
		json_object_object_foreach(bp, k, v) {
			if (json_object_object_get_ex(props, k, NULL))
				continue;
			json_object_object_add(props, k, json_object_get(v));
		}
		for (i = 0; br != NULL && i < json_object_array_length(br);
		    i++)
			json_object_array_add(req, json_object_get(
			    json_object_array_get_idx(br, i)));
		json_object_put(bs);
	}
	if (sw_mcp_confirm_asked(op)) {
		bp = json_object_new_object();
		sw_json_add_str(bp, "type", "boolean");
		sw_json_add_str(bp, "description", "true once the user has "
		    "seen the plan (dry_run) and agreed; a client that "
		    "supports elicitation is asked instead.");
		json_object_object_add(props, "confirm", bp);
	}
	if (op->flags & SW_OP_DRY_RUN)
		json_object_object_add(props, "dry_run",
		    sw_field_schema(&sw_dry_run_field));
	if (json_object_array_length(req) == 0)
		json_object_object_del(s, "required");
	return s;
}

/* The row's answer, or the problem document of an isError result. */
static json_object *
output_schema_of(const char *name)
{
	json_object *s, *any, *named, *problem;

	named = sw_schema_named(name ? name : "Any");
	if (named == NULL)
		named = sw_schema_named("Any");
	problem = sw_schema_named("Problem");
	any = json_object_new_array();
	json_object_array_add(any, named);
	json_object_array_add(any, problem);
	s = json_object_new_object();
	sw_json_add_str(s, "type", "object");
	sw_json_add_str(s, "description", "The REST answer; when isError is "
	    "true, the RFC 9457 problem document instead.");
	json_object_object_add(s, "anyOf", any);
	return s;
}

static json_object *
annotations_of(const char *title, int ro, int destructive, int idem,
    int open_world)
{
	json_object *a = json_object_new_object();

	if (title != NULL)
		sw_json_add_str(a, "title", title);
	sw_json_add_bool(a, "readOnlyHint", ro);
	/* destructiveHint defaults to true: say false when it is not. */
	sw_json_add_bool(a, "destructiveHint", !ro && destructive);
	sw_json_add_bool(a, "idempotentHint", ro || idem);
	sw_json_add_bool(a, "openWorldHint", open_world);
	return a;
}

json_object *
sw_mcp_tool_of_op(const struct sw_op *op)
{
	json_object *t = json_object_new_object(), *meta;
	struct sw_buf d;
	int ro = (op->flags & SW_OP_READONLY) != 0;

	sw_buf_init(&d, 8192);
	(void)sw_buf_printf(&d, "%s.", op->summary);
	if (op->description != NULL)
		(void)sw_buf_printf(&d, " %s", op->description);
	if (!ro && op->status_tool != NULL)
		(void)sw_buf_printf(&d, "\n\nChanges things: answers at once "
		    "with an operation_id. Poll %s with that id every %d s "
		    "until the state is succeeded, failed or cancelled; do "
		    "not sleep blindly and do not report the change as done "
		    "before that.", op->status_tool,
		    op->poll_seconds > 0 ? op->poll_seconds : 5);
	if (op->flags & SW_OP_DRY_RUN)
		(void)sw_buf_puts(&d, "\n\nPass dry_run=true first to "
		    "validate and see the plan without changing anything.");
	if (!ro && (op->flags & SW_OP_DESTRUCTIVE))
		(void)sw_buf_puts(&d, "\n\nDestructive: confirm with the user "
		    "before calling it.");
	(void)sw_buf_printf(&d, "\n\nNeeds a %s token.",
	    sw_scope_name(op->scope));
	sw_json_add_str(t, "name", op->name);
	sw_json_add_str(t, "title", op->summary);
	sw_json_add_str(t, "description", sw_buf_str(&d));
	sw_buf_free(&d);
	json_object_object_add(t, "inputSchema", input_schema_of(op));
	json_object_object_add(t, "outputSchema", output_schema_of(op->output));
	json_object_object_add(t, "annotations", annotations_of(op->summary,
	    ro, (op->flags & SW_OP_DESTRUCTIVE) != 0,
	    (op->flags & SW_OP_IDEMPOTENT) != 0, !closed_world(op->tag)));
	meta = json_object_new_object();
	sw_json_add_str(meta, META_PREFIX "scope", sw_scope_name(op->scope));
	sw_json_add_str(meta, META_PREFIX "http", op->method);
	sw_json_add_str(meta, META_PREFIX "path", op->path);
	if (op->status_tool != NULL) {
		sw_json_add_str(meta, META_PREFIX "status_tool",
		    op->status_tool);
		sw_json_add_int(meta, META_PREFIX "poll_seconds",
		    op->poll_seconds);
	}
	json_object_object_add(t, "_meta", meta);
	return t;
}

static json_object *
tool_of_plugin(json_object *p)
{
	json_object *t = json_object_new_object(), *meta, *os;
	struct sw_buf d;
	int ro = sw_json_get_bool(p, "readOnly", 0);

	sw_buf_init(&d, 8192);
	(void)sw_buf_printf(&d, "%s\n\nSite plugin endpoint %s %s (from "
	    "tools.d/%s).", sw_json_get_str(p, "description"),
	    sw_json_get_str(p, "method"), sw_json_get_str(p, "path"),
	    sw_json_get_str(p, "file"));
	if (!ro && sw_json_get_bool(p, "destructive", 0))
		(void)sw_buf_puts(&d, " Destructive: confirm with the user "
		    "before calling it.");
	(void)sw_buf_printf(&d, " Needs a %s token.",
	    sw_json_get_str(p, "scope"));
	sw_json_add_str(t, "name", sw_json_get_str(p, "tool"));
	sw_json_add_str(t, "description", sw_buf_str(&d));
	sw_buf_free(&d);
	json_object_object_add(t, "inputSchema",
	    json_object_get(sw_json_get(p, "inputSchema")));
	if ((os = sw_json_get(p, "outputSchema")) != NULL) {
		/* A failed call answers with a problem document. */
		json_object *w = json_object_new_object(), *any;

		any = json_object_new_array();
		json_object_array_add(any, json_object_get(os));
		json_object_array_add(any, sw_schema_named("Problem"));
		sw_json_add_str(w, "type", "object");
		json_object_object_add(w, "anyOf", any);
		json_object_object_add(t, "outputSchema", w);
	}
	json_object_object_add(t, "annotations", annotations_of(NULL, ro,
	    sw_json_get_bool(p, "destructive", 0),
	    sw_json_get_bool(p, "idempotent", 0), 1));
	meta = json_object_new_object();
	sw_json_add_bool(meta, META_PREFIX "plugin", 1);
	sw_json_add_str(meta, META_PREFIX "scope", sw_json_get_str(p, "scope"));
	sw_json_add_str(meta, META_PREFIX "http", sw_json_get_str(p, "method"));
	sw_json_add_str(meta, META_PREFIX "path", sw_json_get_str(p, "path"));
	json_object_object_add(t, "_meta", meta);
	return t;
}

json_object *
sw_mcp_tool_list(const struct sw_mcp *m, enum sw_scope scope)
{
	json_object *arr = json_object_new_array(), *p;
	size_t i;

	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *op = &sw_optable[i];

		if (op_is_tool(op) && scope >= op->scope)
			json_object_array_add(arr, sw_mcp_tool_of_op(op));
	}
	for (i = 0; m->plugins != NULL &&
	    i < json_object_array_length(m->plugins); i++) {
		p = json_object_array_get_idx(m->plugins, i);
		if (scope >= sw_scope_parse(sw_json_get_str(p, "scope")))
			json_object_array_add(arr, tool_of_plugin(p));
	}
	return arr;
}

/* ---- arguments -> REST request --------------------------------------- */

/* Append s percent-encoded; SW_ETOOBIG when b's cap is reached (the
 * caller must not send what is in b then). */
static sw_err
pct_encode(struct sw_buf *b, const char *s)
{
	static const char hx[] = "0123456789ABCDEF";
	const unsigned char *p;
	char esc[3];
	sw_err e = SW_OK;

	for (p = (const unsigned char *)s; *p != '\0' && e == SW_OK; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~')
			e = sw_buf_add(b, p, 1);
		else {
			esc[0] = '%';
			esc[1] = hx[*p >> 4];
			esc[2] = hx[*p & 15];
			e = sw_buf_add(b, esc, 3);
		}
	}
	return e;
}

/* A scalar argument as text (JSON text for objects and arrays, which
 * the REST validator then refuses by type). */
static const char *
arg_text(json_object *v, char *buf, size_t bufsz)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
		return json_object_get_string(v);
	case json_type_boolean:
		return json_object_get_boolean(v) ? "true" : "false";
	case json_type_int:
		snprintf(buf, bufsz, "%lld",
		    (long long)json_object_get_int64(v));
		return buf;
	default:
		return sw_json_str(v);
	}
}

static int
is_query_field(const struct sw_field *params, const char *name)
{
	for (; params != NULL && params->name != NULL; params++)
		if ((params->flags & SW_F_QUERY) &&
		    strcmp(params->name, name) == 0)
			return 1;
	return 0;
}

static sw_err
query_add(struct sw_buf *q, const char *k, json_object *v)
{
	char num[32];
	sw_err e;

	if ((e = sw_buf_puts(q, q->len ? "&" : "")) != SW_OK ||
	    (e = pct_encode(q, k)) != SW_OK ||
	    (e = sw_buf_puts(q, "=")) != SW_OK)
		return e;
	return pct_encode(q, arg_text(v, num, sizeof(num)));
}

sw_err
sw_mcp_map_args(const char *path_tmpl, const struct sw_field *params,
    int dry_run_ok, int rest_to_query, int want_body, json_object *args,
    struct sw_buf *target, json_object **body, struct sw_ferrs *errs)
{
	json_object *used = json_object_new_object(), *v, *b = NULL;
	struct sw_buf q;
	const char *t, *close, *bad;
	char name[64], num[32];
	size_t n;
	sw_err e = SW_OK;

	*body = NULL;
	sw_buf_init(&q, SW_MAX_QUERY);
	/* The path, with {name} and {name}:verb placeholders filled. */
	for (t = path_tmpl; *t != '\0' && e == SW_OK; ) {
		if (*t != '{' || (close = strchr(t, '}')) == NULL) {
			n = strcspn(t + 1, "{") + 1;
			e = sw_buf_add(target, t, n);
			t += n;
			continue;
		}
		n = (size_t)(close - t - 1);
		if (n == 0 || n >= sizeof(name)) {
			t = close + 1;
			continue;
		}
		memcpy(name, t + 1, n);
		name[n] = '\0';
		v = args ? sw_json_get(args, name) : NULL;
		if (v == NULL || json_object_is_type(v, json_type_null))
			sw_ferr_add(errs, name, "required", "is required");
		else if (json_object_is_type(v, json_type_object) ||
		    json_object_is_type(v, json_type_array))
			sw_ferr_add(errs, name, "type", "must be a string");
		else if (arg_text(v, num, sizeof(num))[0] == '\0')
			sw_ferr_add(errs, name, "minLength",
			    "must not be empty");
		else if ((bad = sw_path_segment_bad(arg_text(v, num,
		    sizeof(num)))) != NULL)
			sw_ferr_add(errs, name, "segment", "%s", bad);
		else
			e = pct_encode(target, arg_text(v, num, sizeof(num)));
		json_object_object_add(used, name, NULL);
		t = close + 1;
	}
	if (args != NULL && e == SW_OK) {
		json_object_object_foreach(args, k, val) {
			if (json_object_object_get_ex(used, k, NULL))
				continue;
			if (is_query_field(params, k) ||
			    (dry_run_ok && strcmp(k, "dry_run") == 0) ||
			    rest_to_query) {
				if (val != NULL && !json_object_is_type(val,
				    json_type_null) && e == SW_OK)
					e = query_add(&q, k, val);
				continue;
			}
			if (b == NULL)
				b = json_object_new_object();
			json_object_object_add(b, k, json_object_get(val));
		}
	}
	if (b == NULL && want_body)
		b = json_object_new_object();
	if (q.len > 0 && e == SW_OK && (e = sw_buf_puts(target, "?")) ==
	    SW_OK)
		e = sw_buf_add(target, q.data, q.len);
	sw_buf_free(&q);
	json_object_put(used);
	if (e != SW_OK) {
		/* Never send a cut request: say which limit it broke. */
		sw_ferr_add(errs, "arguments", "maxLength", "path and query "
		    "would exceed %d bytes", SW_MAX_PATH + SW_MAX_QUERY);
		json_object_put(b);
		b = NULL;
	}
	*body = b;
	return errs->n > 0 ? SW_EINVAL : SW_OK;
}

/* ---- REST answer -> CallToolResult ------------------------------------ */

static void
content_text(json_object *content, const char *text)
{
	json_object *c = json_object_new_object();

	sw_json_add_str(c, "type", "text");
	sw_json_add_str(c, "text", text);
	json_object_array_add(content, c);
}

/* A problem document of our own (transport failures, scope refusals,
 * arguments we cannot place).  New reference. */
static json_object *
problem_new(int status, const char *slug, const char *title,
    const char *detail, const struct sw_ferrs *errs)
{
	json_object *p = json_object_new_object(), *arr, *fe;
	char type[96];
	int i;

	snprintf(type, sizeof(type), "/problems/%s", slug);
	sw_json_add_str(p, "type", type);
	sw_json_add_str(p, "title", title);
	sw_json_add_int(p, "status", status);
	sw_json_add_str(p, "detail", detail);
	if (errs != NULL && errs->n > 0) {
		arr = json_object_new_array();
		for (i = 0; i < errs->n; i++) {
			fe = json_object_new_object();
			sw_json_add_str(fe, "field", errs->e[i].field);
			sw_json_add_str(fe, "rule", errs->e[i].rule);
			sw_json_add_str(fe, "message", errs->e[i].msg);
			json_object_array_add(arr, fe);
		}
		json_object_object_add(p, "errors", arr);
	}
	return p;
}

/* isError result from a problem document (stolen). */
static json_object *
error_result(const char *tool, json_object *problem)
{
	json_object *r = json_object_new_object(), *content, *errs;
	struct sw_buf t;
	size_t i;

	sw_buf_init(&t, 16384);
	(void)sw_buf_printf(&t, "%s failed: %s (HTTP %d)", tool,
	    sw_json_get_str(problem, "title") ?
	    sw_json_get_str(problem, "title") : "error",
	    (int)sw_json_get_int(problem, "status", 0));
	if (sw_json_get_str(problem, "detail") != NULL)
		(void)sw_buf_printf(&t, ": %s", sw_json_get_str(problem,
		    "detail"));
	errs = sw_json_get(problem, "errors");
	for (i = 0; errs != NULL && json_object_is_type(errs,
	    json_type_array) && i < json_object_array_length(errs); i++) {
		json_object *e = json_object_array_get_idx(errs, i);

		(void)sw_buf_printf(&t, "\n- %s: %s (%s)",
		    sw_json_get_str(e, "field") ? sw_json_get_str(e, "field") :
		    "?", sw_json_get_str(e, "message") ?
		    sw_json_get_str(e, "message") : "",
		    sw_json_get_str(e, "rule") ? sw_json_get_str(e, "rule") :
		    "");
	}
	content = json_object_new_array();
	content_text(content, sw_buf_str(&t));
	content_text(content, sw_json_str(problem));
	sw_buf_free(&t);
	json_object_object_add(r, "content", content);
	json_object_object_add(r, "structuredContent", problem);
	sw_json_add_bool(r, "isError", 1);
	return r;
}

/* Successful answer; a mutating row's result always names the
 * operation, its status tool and a poll interval. */
static json_object *
ok_result(const struct sw_op *op, json_object *doc, const char *raw)
{
	json_object *r = json_object_new_object(), *content;
	const char *opid;
	char hint[512];

	content = json_object_new_array();
	if (doc == NULL || !json_object_is_type(doc, json_type_object)) {
		content_text(content, raw);
		json_object_put(doc);
		json_object_object_add(r, "content", content);
		return r;
	}
	opid = sw_json_get_str(doc, "operation_id");
	if (op != NULL && !(op->flags & SW_OP_READONLY) && opid != NULL &&
	    op->status_tool != NULL) {
		if (sw_json_get_str(doc, "status_tool") == NULL)
			sw_json_add_str(doc, "status_tool", op->status_tool);
		if (sw_json_get(doc, "poll_interval_seconds") == NULL)
			sw_json_add_int(doc, "poll_interval_seconds",
			    op->poll_seconds > 0 ? op->poll_seconds : 5);
	}
	content_text(content, sw_json_str(doc));
	if (opid != NULL && sw_json_get_str(doc, "status_tool") != NULL) {
		snprintf(hint, sizeof(hint), "Operation %s is %s. Poll %s "
		    "with {\"id\": \"%s\"} every %d s until its state is "
		    "succeeded, failed or cancelled.", opid,
		    sw_json_get_str(doc, "state") ? sw_json_get_str(doc,
		    "state") : "accepted", sw_json_get_str(doc, "status_tool"),
		    opid, (int)sw_json_get_int(doc, "poll_interval_seconds",
		    5));
		content_text(content, hint);
	}
	json_object_object_add(r, "content", content);
	json_object_object_add(r, "structuredContent", doc);
	return r;
}

static json_object *
plugin_find(const struct sw_mcp *m, const char *name)
{
	json_object *p;
	size_t i;

	for (i = 0; m->plugins != NULL &&
	    i < json_object_array_length(m->plugins); i++) {
		p = json_object_array_get_idx(m->plugins, i);
		if (strcmp(sw_json_get_str(p, "tool"), name) == 0)
			return p;
	}
	return NULL;
}

/*
 * The path arguments of a row, checked against the row's own field
 * table before anything is built or run: one plain segment each, then
 * the field's type, bounds and pattern.  Problems go to errs.
 */
static void
check_path_args(const struct sw_op *op, json_object *args,
    struct sw_ferrs *errs)
{
	const struct sw_field *f;
	json_object *typed = json_object_new_object(), *v, *t;
	const char *text, *bad;
	char num[32];

	for (f = op->params; f != NULL && f->name != NULL; f++) {
		if (!(f->flags & SW_F_PATH))
			continue;
		v = args != NULL ? sw_json_get(args, f->name) : NULL;
		if (v == NULL || json_object_is_type(v, json_type_null) ||
		    json_object_is_type(v, json_type_object) ||
		    json_object_is_type(v, json_type_array))
			continue;	/* sw_mcp_map_args names these */
		text = arg_text(v, num, sizeof(num));
		if ((bad = sw_path_segment_bad(text)) != NULL) {
			sw_ferr_add(errs, f->name, "segment", "%s", bad);
			continue;
		}
		if ((t = sw_field_from_text(f, text, errs)) != NULL)
			json_object_object_add(typed, f->name, t);
	}
	if (errs->n == 0)
		(void)sw_validate(typed, op->params, SW_F_PATH, errs);
	json_object_put(typed);
}

/*
 * Run a row's REST request in this process: the router does the scope
 * check (with the principal slipway-mcp authenticated), validation and
 * the handler.  *doc: new reference (the answer or its problem).
 */
static void
route_in_process(struct sw_mcp *m, const struct sw_principal *who,
    const struct sw_op *op, const char *target, const char *body,
    long *status, json_object **doc)
{
	struct sw_req r;
	const char *q = strchr(target, '?');
	char *path;

	*doc = NULL;
	if ((path = sw_strndup(target, q ? (size_t)(q - target) :
	    strlen(target))) == NULL) {
		/* Still a problem document: the caller's isError result
		 * quotes its status and title. */
		const struct sw_err_info *ei = sw_err_info(SW_ENOMEM);

		*status = ei->http_status;
		*doc = problem_new(ei->http_status, ei->slug, ei->title,
		    "out of memory", NULL);
		return;
	}
	sw_req_from_env(&r, NULL);
	r.method = op->method;
	r.uri = path;
	r.query = q != NULL && q[1] != '\0' ? q + 1 : NULL;
	r.principal = who;
	r.body = body != NULL ? body : "";
	r.body_len = strlen(r.body);
	r.content_type = body != NULL ? "application/json" : NULL;
	r.db = m->db;
	r.cfg = m->cfg;
	sw_route(&r, m->handlers);
	if (r.err == SW_OK && r.op != op) {
		/* The path was built from op's template and checked
		 * arguments: another row here is a bug, never run it. */
		sw_error("tools/call %s routed to %s", op->name,
		    r.op ? r.op->name : "nothing");
		sw_req_fail(&r, SW_EINTERNAL, "%s did not route to itself",
		    op->name);
	}
	if (r.err != SW_OK) {
		*status = sw_err_http_status(r.err);
		*doc = sw_req_problem(&r);
	} else {
		*status = r.status ? r.status : 200;
		if (r.out != NULL)
			*doc = json_object_get(r.out);
		else if (r.raw != NULL) {
			*doc = json_object_new_object();
			json_object_object_add(*doc, "text",
			    json_object_new_string_len(r.raw, (int)r.raw_len));
		} else
			*doc = json_object_new_object();
	}
	sw_req_free(&r);
	free(path);
}

sw_err
sw_mcp_tool_call(struct sw_mcp *m, const struct sw_principal *who,
    const char *authorization, const char *name, json_object *args,
    json_object **result, char *why, size_t whysz)
{
	const struct sw_op *op = sw_op_by_name(name);
	json_object *plugin = NULL, *body = NULL, *doc = NULL;
	struct sw_ferrs errs;
	struct sw_buf target, resp;
	const char *method, *body_text = NULL;
	/* room for "<field>: <message>" of a struct sw_ferr */
	char detail[sizeof(((struct sw_ferr *)0)->field) +
	    sizeof(((struct sw_ferr *)0)->msg) + 2];
	long status = 0;
	sw_err e;

	*result = NULL;
	if (op != NULL && !op_is_tool(op))
		op = NULL;
	if (op == NULL && (plugin = plugin_find(m, name)) == NULL) {
		snprintf(why, whysz, "unknown tool '%.128s'", name);
		return SW_ENOTFOUND;
	}
	if (args != NULL && !json_object_is_type(args, json_type_object)) {
		snprintf(why, whysz, "arguments must be an object");
		return SW_EINVAL;
	}
	memset(&errs, 0, sizeof(errs));
	sw_buf_init(&target, SW_MAX_PATH + SW_MAX_QUERY);
	sw_buf_init(&resp, SW_MCP_MAX_REST_BODY);
	if (op != NULL) {
		method = op->method;
		check_path_args(op, args, &errs);
		e = errs.n > 0 ? SW_EINVAL : sw_mcp_map_args(op->path,
		    op->params, (op->flags & SW_OP_DRY_RUN) != 0,
		    op->body == NULL && (strcmp(method, "GET") == 0 ||
		    strcmp(method, "DELETE") == 0), op->body != NULL, args,
		    &target, &body, &errs);
	} else {
		method = sw_json_get_str(plugin, "method");
		if (who->scope < sw_scope_parse(sw_json_get_str(plugin,
		    "scope"))) {
			snprintf(detail, sizeof(detail), "%s needs scope %s",
			    name, sw_json_get_str(plugin, "scope"));
			*result = error_result(name, problem_new(403,
			    "forbidden", "Forbidden", detail, NULL));
			goto out;
		}
		e = sw_mcp_map_args(sw_json_get_str(plugin, "path"), NULL, 0,
		    strcmp(method, "GET") == 0 || strcmp(method, "DELETE") ==
		    0, strcmp(method, "GET") != 0 && strcmp(method,
		    "DELETE") != 0, args, &target, &body, &errs);
	}
	if (e != SW_OK) {
		snprintf(detail, sizeof(detail), "%s: %s", errs.e[0].field,
		    errs.e[0].msg);
		*result = error_result(name, problem_new(400, "validation",
		    "Invalid request", detail, &errs));
		goto out;
	}
	if (body != NULL)
		body_text = sw_json_str(body);
	if (op != NULL) {
		route_in_process(m, who, op, sw_buf_str(&target), body_text,
		    &status, &doc);
		if (status >= 400 || status < 200)
			*result = error_result(name, doc);
		else
			*result = ok_result(op, doc, "");
		goto out;
	}
	e = m->rest(m->rest_arg, method, sw_buf_str(&target), authorization,
	    body_text, &status, &resp);
	if (e != SW_OK) {
		snprintf(detail, sizeof(detail), "slipway-mcp could not reach "
		    "the plugin for %s %s", method, sw_buf_str(&target));
		*result = error_result(name, problem_new(sw_err_http_status(e),
		    sw_err_slug(e), sw_err_info(e)->title, detail, NULL));
		goto out;
	}
	if (resp.len > 0 && sw_json_parse(resp.data, resp.len, &doc, detail,
	    sizeof(detail)) != SW_OK)
		doc = NULL;
	if (resp.len == 0 && status < 300)
		doc = json_object_new_object();
	if (status >= 400 || status < 200) {
		if (doc == NULL || !json_object_is_type(doc,
		    json_type_object)) {
			json_object_put(doc);
			snprintf(detail, sizeof(detail), "%.250s",
			    resp.len ? sw_buf_str(&resp) : "(no body)");
			doc = problem_new((int)status, "upstream", "HTTP error",
			    detail, NULL);
		} else if (sw_json_get(doc, "status") == NULL)
			sw_json_add_int(doc, "status", status);
		*result = error_result(name, doc);
	} else
		*result = ok_result(NULL, doc, sw_buf_str(&resp));
out:
	json_object_put(body);
	sw_buf_free(&target);
	sw_buf_free(&resp);
	return SW_OK;
}

sw_err
sw_mcp_op_run(struct sw_mcp *m, const struct sw_principal *who,
    const char *op_name, json_object *args, long *status, json_object **doc)
{
	const struct sw_op *op = sw_op_by_name(op_name);
	json_object *body = NULL;
	struct sw_ferrs errs;
	struct sw_buf target;
	char detail[sizeof(((struct sw_ferr *)0)->field) +
	    sizeof(((struct sw_ferr *)0)->msg) + 2];
	sw_err e;

	*doc = NULL;
	*status = 0;
	if (op == NULL || !op_is_tool(op))
		return SW_ENOTFOUND;
	memset(&errs, 0, sizeof(errs));
	sw_buf_init(&target, SW_MAX_PATH + SW_MAX_QUERY);
	check_path_args(op, args, &errs);
	e = errs.n > 0 ? SW_EINVAL : sw_mcp_map_args(op->path, op->params,
	    (op->flags & SW_OP_DRY_RUN) != 0, op->body == NULL &&
	    (strcmp(op->method, "GET") == 0 || strcmp(op->method, "DELETE") ==
	    0), op->body != NULL, args, &target, &body, &errs);
	if (e != SW_OK) {
		snprintf(detail, sizeof(detail), "%s: %s", errs.e[0].field,
		    errs.e[0].msg);
		*status = 400;
		*doc = problem_new(400, "validation", "Invalid request",
		    detail, &errs);
	} else
		route_in_process(m, who, op, sw_buf_str(&target),
		    body != NULL ? sw_json_str(body) : NULL, status, doc);
	json_object_put(body);
	sw_buf_free(&target);
	return SW_OK;
}

/* ---- tool classes of a token ------------------------------------------ */

int
sw_mcp_tool_allowed(const struct sw_mcp *m, const char *classes,
    const char *name)
{
	const struct sw_op *op = sw_op_by_name(name);
	json_object *plugin = op == NULL ? plugin_find(m, name) : NULL;
	char buf[SW_MAX_TOOL_CLASSES + 1], *p, *comma;
	int ro;

	if (classes == NULL || classes[0] == '\0')
		return 1;
	ro = op != NULL ? (op->flags & SW_OP_READONLY) != 0 :
	    sw_json_get_bool(plugin, "readOnly", 0);
	if (snprintf(buf, sizeof(buf), "%s", classes) >= (int)sizeof(buf))
		return 0;
	for (p = buf; p != NULL; p = comma ? comma + 1 : NULL) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma = '\0';
		if ((strcmp(p, "read-only") == 0 || strcmp(p, "diagnose") ==
		    0) && ro)
			return 1;
		if (op != NULL && strcmp(op->tag, p) == 0)
			return 1;
	}
	return 0;
}

int
sw_mcp_tool_known(const struct sw_mcp *m, const char *name)
{
	const struct sw_op *op = sw_op_by_name(name);

	return (op != NULL && op_is_tool(op)) || plugin_find(m, name) != NULL;
}
