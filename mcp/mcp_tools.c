/*
 * mcp_tools.c: MCP tools from the operation table and from tools.d
 * descriptors, and tools/call (see mcp.h).
 *
 * A row becomes a tool with the row's name; its description is the
 * summary and description plus, for a mutating row, the status tool to
 * poll and how often; its inputSchema merges the path, query and body
 * field tables (and dry_run); its outputSchema is any of the row's
 * answer rows (a dry run's plan too) or the problem document a failed
 * call returns.
 *
 * tools/call of a row hands its arguments, as JSON, to the router's
 * dispatch (api/router.h) with the principal slipway-mcp already
 * authenticated: the same scope check, validation and handler as REST,
 * with no path, query or body text between and no HTTP hop.  Plugin
 * tools (tools.d) are HTTP requests to their /ext/ program through
 * m->rest: their path arguments must each be one plain segment, and the
 * other arguments go to the query (GET, DELETE) or the JSON body.
 * The REST answer comes back as structuredContent plus the same JSON as
 * text; a 4xx/5xx problem document becomes isError with its detail and
 * per-field errors as text, so the model can correct its call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/url.h"
#include "mcp/mcp.h"
#include "api/openapi.h"
#include "api/router.h"

#define META_PREFIX "slipway/"

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
		json_object_object_foreach(bp, k, v)
		{
			if (json_object_object_get_ex(props, k, NULL))
				continue;
			json_object_object_add(props, k, json_object_get(v));
		}
		for (i = 0; br != NULL && i < json_object_array_length(br); i++)
			json_object_array_add(req,
			    json_object_get(json_object_array_get_idx(br, i)));
		json_object_put(bs);
	}
	if (sw_mcp_confirm_asked(op)) {
		bp = json_object_new_object();
		sw_json_add_str(bp, "type", "boolean");
		sw_json_add_str(bp, "description",
		    "true once the user has "
		    "seen the plan (dry_run) and agreed; a client that "
		    "supports elicitation is asked instead.");
		json_object_object_add(props, "confirm", bp);
	}
	if (op->flags & SW_OP_DRY_RUN)
		json_object_object_add(
		    props, "dry_run", sw_field_schema(&sw_dry_run_field));
	if (op->touch == SW_TOUCH_TEAM &&
	    !json_object_object_get_ex(props, "team", NULL))
		json_object_object_add(
		    props, "team", sw_field_schema(&sw_team_field));
	if (json_object_array_length(req) == 0)
		json_object_object_del(s, "required");
	return s;
}

/* The JSON schema of one answer row (its shape's or its own). */
static json_object *
answer_schema_of(const struct sw_answer *a)
{
	const struct sw_field *f = sw_answer_fields(a);

	return f != NULL ? sw_answer_schema(f) : sw_schema_named("Any");
}

/* Each answer the row sends (a dry run's plan too), or the problem
 * document of an isError result. */
static json_object *
output_schema_of(const struct sw_op *op)
{
	const struct sw_answer *a;
	json_object *s, *any, *named;

	any = json_object_new_array();
	for (a = op->answers; a != NULL && a->status != 0; a++)
		if (a->media == NULL)
			json_object_array_add(any, answer_schema_of(a));
	if (op->answers == NULL) {
		named = sw_schema_named(op->output ? op->output : "Any");
		json_object_array_add(
		    any, named != NULL ? named : sw_schema_named("Any"));
	}
	json_object_array_add(any, sw_schema_named("Problem"));
	s = json_object_new_object();
	sw_json_add_str(s, "type", "object");
	sw_json_add_str(s, "description",
	    "The REST answer; when isError is "
	    "true, the RFC 9457 problem document instead.");
	json_object_object_add(s, "anyOf", any);
	return s;
}

static json_object *
annotations_of(
    const char *title, int ro, int destructive, int idem, int open_world)
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
		(void)sw_buf_printf(&d,
		    "\n\nChanges things: answers at once "
		    "with an operation_id. Poll %s with that id every %d s "
		    "until the state is succeeded, failed or cancelled; do "
		    "not sleep blindly and do not report the change as done "
		    "before that.",
		    op->status_tool,
		    op->poll_seconds > 0 ? op->poll_seconds : 5);
	if (op->flags & SW_OP_DRY_RUN)
		(void)sw_buf_puts(&d,
		    "\n\nPass dry_run=true first to "
		    "validate and see the plan without changing anything.");
	if (!ro && (op->flags & SW_OP_DESTRUCTIVE))
		(void)sw_buf_puts(&d,
		    "\n\nDestructive: confirm with the user "
		    "before calling it.");
	(void)sw_buf_printf(
	    &d, "\n\nNeeds a %s token.", sw_scope_name(op->scope));
	sw_json_add_str(t, "name", op->name);
	sw_json_add_str(t, "title", op->summary);
	sw_json_add_str(t, "description", sw_buf_str(&d));
	sw_buf_free(&d);
	json_object_object_add(t, "inputSchema", input_schema_of(op));
	json_object_object_add(t, "outputSchema", output_schema_of(op));
	json_object_object_add(t, "annotations",
	    annotations_of(op->summary, ro,
		(op->flags & SW_OP_DESTRUCTIVE) != 0,
		(op->flags & SW_OP_IDEMPOTENT) != 0, !closed_world(op->tag)));
	meta = json_object_new_object();
	sw_json_add_str(meta, META_PREFIX "scope", sw_scope_name(op->scope));
	sw_json_add_str(meta, META_PREFIX "http", op->method);
	sw_json_add_str(meta, META_PREFIX "path", op->path);
	if (op->status_tool != NULL) {
		sw_json_add_str(
		    meta, META_PREFIX "status_tool", op->status_tool);
		sw_json_add_int(
		    meta, META_PREFIX "poll_seconds", op->poll_seconds);
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
	(void)sw_buf_printf(&d,
	    "%s\n\nSite plugin endpoint %s %s (from "
	    "tools.d/%s).",
	    sw_json_get_str(p, "description"), sw_json_get_str(p, "method"),
	    sw_json_get_str(p, "path"), sw_json_get_str(p, "file"));
	if (!ro && sw_json_get_bool(p, "destructive", 0))
		(void)sw_buf_puts(&d,
		    " Destructive: confirm with the user "
		    "before calling it.");
	(void)sw_buf_printf(
	    &d, " Needs a %s token.", sw_json_get_str(p, "scope"));
	sw_json_add_str(t, "name", sw_json_get_str(p, "tool"));
	sw_json_add_str(t, "description", sw_buf_str(&d));
	sw_buf_free(&d);
	json_object_object_add(
	    t, "inputSchema", json_object_get(sw_json_get(p, "inputSchema")));
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
	json_object_object_add(t, "annotations",
	    annotations_of(NULL, ro, sw_json_get_bool(p, "destructive", 0),
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
sw_mcp_tool_list(const struct sw_mcp *m, const struct sw_principal *who)
{
	enum sw_scope scope = who->scope;
	json_object *arr = json_object_new_array(), *p;
	size_t i;

	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *op = &sw_optable[i];

		/* Only what the team rule lets who call (api/router.h). */
		if (op_is_tool(op) && sw_authz_may(m->cfg, who, op))
			json_object_array_add(arr, sw_mcp_tool_of_op(op));
	}
	for (i = 0;
	     m->plugins != NULL && i < json_object_array_length(m->plugins);
	     i++) {
		p = json_object_array_get_idx(m->plugins, i);
		if (scope >= sw_scope_parse(sw_json_get_str(p, "scope")))
			json_object_array_add(arr, tool_of_plugin(p));
	}
	return arr;
}

/* ---- REST answer -> CallToolResult ------------------------------------ */

/*
 * A CallToolResult before it is written: content's text items, the
 * structuredContent and isError.  It is made into a document
 * (result_doc) or written as text into an answer (result_put), the two
 * reading the same: the text answer of tools/call builds no content
 * array, copies no document into a string and prints nothing twice.
 */
struct tool_result {
	json_object *doc; /* structuredContent (owned), or NULL */
	const char *text[2]; /* content's text items, in order */
	int ntext;
	int is_error;
	struct sw_buf lead; /* an error's summary: text[0] */
	char hint[512]; /* a started operation's poll hint */
};

static void
result_free(struct tool_result *t)
{
	json_object_put(t->doc);
	sw_buf_free(&t->lead);
}

json_object *
sw_mcp_problem_new(int status, const char *slug, const char *title,
    const char *detail, const struct sw_ferrs *errs)
{
	json_object *p = json_object_new_object(), *arr, *fe;
	char type[96];
	int i;

	if (sw_fmt(type, sizeof(type), "/problems/%s", slug) != SW_OK)
		sw_fmt_text(type, sizeof(type), "about:blank");
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

/* A string member of o, or dflt. */
static const char *
str_or(json_object *o, const char *key, const char *dflt)
{
	const char *s = sw_json_get_str(o, key);

	return s != NULL ? s : dflt;
}

/* isError from a problem document (stolen): its summary, then the
 * document, as text. */
static void
error_of(struct tool_result *t, const char *tool, json_object *problem)
{
	struct sw_buf *b = &t->lead;
	json_object *errs = sw_json_get(problem, "errors"), *fe;
	size_t i, n;

	memset(t, 0, sizeof(*t));
	sw_buf_init(b, 16384);
	(void)sw_buf_puts(b, tool);
	(void)sw_buf_puts(b, " failed: ");
	(void)sw_buf_puts(b, str_or(problem, "title", "error"));
	(void)sw_buf_puts(b, " (HTTP ");
	(void)sw_buf_putl(b, sw_json_get_int(problem, "status", 0));
	(void)sw_buf_putc(b, ')');
	if (sw_json_get_str(problem, "detail") != NULL) {
		(void)sw_buf_puts(b, ": ");
		(void)sw_buf_puts(b, sw_json_get_str(problem, "detail"));
	}
	n = errs != NULL && json_object_is_type(errs, json_type_array)
	    ? json_object_array_length(errs)
	    : 0;
	for (i = 0; i < n; i++) {
		fe = json_object_array_get_idx(errs, i);
		(void)sw_buf_puts(b, "\n- ");
		(void)sw_buf_puts(b, str_or(fe, "field", "?"));
		(void)sw_buf_puts(b, ": ");
		(void)sw_buf_puts(b, str_or(fe, "message", ""));
		(void)sw_buf_puts(b, " (");
		(void)sw_buf_puts(b, str_or(fe, "rule", ""));
		(void)sw_buf_putc(b, ')');
	}
	t->doc = problem;
	t->text[0] = sw_buf_str(b);
	t->text[1] = sw_json_freeze(problem);
	t->ntext = 2;
	t->is_error = 1;
}

/* A successful answer (doc stolen); a mutating row's result always
 * names the operation, its status tool and a poll interval. */
static void
ok_of(struct tool_result *t, const struct sw_op *op, json_object *doc,
    const char *raw)
{
	const char *opid;

	memset(t, 0, sizeof(*t));
	sw_buf_init(&t->lead, 0);
	t->ntext = 1;
	if (doc == NULL || !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		t->text[0] = raw;
		return;
	}
	t->doc = doc;
	opid = sw_json_get_str(doc, "operation_id");
	if (op != NULL && !(op->flags & SW_OP_READONLY) && opid != NULL &&
	    op->status_tool != NULL) {
		if (sw_json_get_str(doc, "status_tool") == NULL)
			sw_json_add_str(doc, "status_tool", op->status_tool);
		if (sw_json_get(doc, "poll_interval_seconds") == NULL)
			sw_json_add_int(doc, "poll_interval_seconds",
			    op->poll_seconds > 0 ? op->poll_seconds : 5);
	}
	/* Printed once: the text content and structuredContent are the
	 * same characters. */
	t->text[0] = sw_json_freeze(doc);
	if (opid != NULL && sw_json_get_str(doc, "status_tool") != NULL) {
		sw_fmt_text(t->hint, sizeof(t->hint),
		    "Operation %s is %s. Poll %s "
		    "with {\"id\": \"%s\"} every %d s until its state is "
		    "succeeded, failed or cancelled.",
		    opid, str_or(doc, "state", "accepted"),
		    sw_json_get_str(doc, "status_tool"), opid,
		    (int)sw_json_get_int(doc, "poll_interval_seconds", 5));
		t->text[t->ntext++] = t->hint;
	}
}

/* The CallToolResult document (new reference); t is spent. */
static json_object *
result_doc(struct tool_result *t)
{
	json_object *r = json_object_new_object(), *content, *item;
	int i;

	content = json_object_new_array();
	for (i = 0; i < t->ntext; i++) {
		item = json_object_new_object();
		sw_json_add_str(item, "type", "text");
		sw_json_add_str(item, "text", t->text[i]);
		json_object_array_add(content, item);
	}
	json_object_object_add(r, "content", content);
	if (t->doc != NULL) {
		json_object_object_add(r, "structuredContent", t->doc);
		t->doc = NULL;
	}
	if (t->is_error)
		sw_json_add_bool(r, "isError", 1);
	result_free(t);
	return r;
}

/* The CallToolResult's members as text at the end of b, as result_doc's
 * document prints them; t is spent. */
static sw_err
result_put(struct tool_result *t, struct sw_buf *b)
{
	sw_err e = sw_buf_puts(b, "\"content\":[");
	int i;

	for (i = 0; e == SW_OK && i < t->ntext; i++) {
		if (i > 0)
			e = sw_buf_putc(b, ',');
		if (e == SW_OK)
			e = sw_buf_puts(b, "{\"type\":\"text\",\"text\":");
		if (e == SW_OK)
			e = sw_json_put_string(
			    b, t->text[i], strlen(t->text[i]));
		if (e == SW_OK)
			e = sw_buf_putc(b, '}');
	}
	if (e == SW_OK)
		e = sw_buf_putc(b, ']');
	if (e == SW_OK && t->doc != NULL &&
	    (e = sw_buf_puts(b, ",\"structuredContent\":")) == SW_OK)
		e = sw_buf_puts(b, sw_json_str(t->doc));
	if (e == SW_OK && t->is_error)
		e = sw_buf_puts(b, ",\"isError\":true");
	result_free(t);
	return e;
}

/* isError result from a problem document (stolen). */
static json_object *
error_result(const char *tool, json_object *problem)
{
	struct tool_result t;

	error_of(&t, tool, problem);
	return result_doc(&t);
}

/* Successful result (doc stolen). */
static json_object *
ok_result(const struct sw_op *op, json_object *doc, const char *raw)
{
	struct tool_result t;

	ok_of(&t, op, doc, raw);
	return result_doc(&t);
}

static json_object *
plugin_find(const struct sw_mcp *m, const char *name)
{
	json_object *p;
	size_t i;

	for (i = 0;
	     m->plugins != NULL && i < json_object_array_length(m->plugins);
	     i++) {
		p = json_object_array_get_idx(m->plugins, i);
		if (strcmp(sw_json_get_str(p, "tool"), name) == 0)
			return p;
	}
	return NULL;
}

/* ---- a row: dispatch in this process ------------------------------------ */

/*
 * Run row op for who with args (borrowed, may be NULL) through the
 * router's dispatch: the scope check, validation and the handler REST
 * runs, with the arguments as they came.  *status gets the HTTP status
 * and *doc (new reference) the answer or its problem document.
 */
static void
run_row(struct sw_mcp *m, const struct sw_principal *who,
    const struct sw_op *op, json_object *args, long *status, json_object **doc)
{
	struct sw_req r;

	sw_req_from_env(&r, NULL);
	r.method = op->method;
	r.uri = op->path;
	r.db = m->db;
	r.cfg = m->cfg;
	sw_dispatch(&r, op, who, args, m->handlers);
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
}

/* A row's call as a CallToolResult. */
static void
row_result(struct sw_mcp *m, const struct sw_principal *who,
    const struct sw_op *op, json_object *args, struct tool_result *t)
{
	json_object *doc = NULL;
	long status = 0;

	run_row(m, who, op, args, &status, &doc);
	if (status >= 400 || status < 200)
		error_of(t, op->name, doc);
	else
		ok_of(t, op, doc, "");
}

/* ---- a plugin: an HTTP request to its /ext/ program --------------------- */

/* A scalar argument as the text of a URL (JSON text for the rest). */
static const char *
arg_text(json_object *v)
{
	if (json_object_is_type(v, json_type_string) ||
	    json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_boolean) ||
	    json_object_is_type(v, json_type_double))
		return json_object_get_string(v);
	return sw_json_str(v);
}

/* Fill {placeholder}s of the plugin's path with its arguments, each one
 * plain segment, percent-encoded; the names used go to used. */
static sw_err
plugin_path(const char *tmpl, json_object *args, json_object *used,
    struct sw_buf *target, struct sw_ferrs *errs)
{
	const char *t, *close, *bad, *text;
	char name[64];
	json_object *v;
	size_t n;
	sw_err e = SW_OK;

	for (t = tmpl; *t != '\0' && e == SW_OK;) {
		if (*t != '{' || (close = strchr(t, '}')) == NULL) {
			n = strcspn(t + 1, "{") + 1;
			e = sw_buf_add(target, t, n);
			t += n;
			continue;
		}
		n = (size_t)(close - t - 1);
		t = close + 1;
		if (n == 0 || n >= sizeof(name))
			continue;
		memcpy(name, close - n, n);
		name[n] = '\0';
		json_object_object_add(used, name, NULL);
		v = sw_json_get(args, name);
		if (v == NULL || json_object_is_type(v, json_type_null))
			sw_ferr_add(errs, name, "required", "is required");
		else if (json_object_is_type(v, json_type_object) ||
		    json_object_is_type(v, json_type_array))
			sw_ferr_add(errs, name, "type", "must be a string");
		else if ((text = arg_text(v))[0] == '\0')
			sw_ferr_add(
			    errs, name, "minLength", "must not be empty");
		else if ((bad = sw_path_segment_bad(text)) != NULL)
			sw_ferr_add(errs, name, "segment", "%s", bad);
		else
			e = sw_url_encode(target, text);
	}
	return e;
}

/*
 * The plugin's request: its path with placeholders filled, the other
 * arguments in the query string of a GET or DELETE and in the JSON body
 * (*body, new reference) of the rest.  Problems go to errs (SW_EINVAL);
 * a target over its cap is one of them: nothing cut is ever sent.
 */
static sw_err
plugin_request(json_object *plugin, json_object *args, struct sw_buf *target,
    json_object **body, struct sw_ferrs *errs)
{
	const char *method = sw_json_get_str(plugin, "method");
	int query = strcmp(method, "GET") == 0 || strcmp(method, "DELETE") == 0;
	json_object *used = json_object_new_object();
	const char *sep = "?";
	sw_err e;

	*body = query ? NULL : json_object_new_object();
	e = plugin_path(
	    sw_json_get_str(plugin, "path"), args, used, target, errs);
	if (args == NULL)
		args = used; /* no arguments: nothing more to place */
	json_object_object_foreach(args, k, v)
	{
		if (json_object_object_get_ex(used, k, NULL))
			continue;
		if (!query) {
			json_object_object_add(*body, k, json_object_get(v));
			continue;
		}
		if (v == NULL || json_object_is_type(v, json_type_null) ||
		    e != SW_OK)
			continue;
		if ((e = sw_buf_puts(target, sep)) == SW_OK &&
		    (e = sw_url_encode(target, k)) == SW_OK &&
		    (e = sw_buf_puts(target, "=")) == SW_OK)
			e = sw_url_encode(target, arg_text(v));
		sep = "&";
	}
	json_object_put(used);
	if (e != SW_OK)
		sw_ferr_add(errs, "arguments", "maxLength",
		    "path and query "
		    "would exceed %d bytes",
		    SW_MAX_PATH + SW_MAX_QUERY);
	if (errs->n > 0) {
		json_object_put(*body);
		*body = NULL;
		return SW_EINVAL;
	}
	return SW_OK;
}

/* The answer of a plugin's program as a CallToolResult.  New reference. */
static json_object *
plugin_result(const char *name, long status, struct sw_buf *resp)
{
	json_object *doc = NULL;
	char detail[300];

	if (resp->len > 0 &&
	    sw_json_parse(
		resp->data, resp->len, &doc, detail, sizeof(detail)) != SW_OK)
		doc = NULL;
	if (resp->len == 0 && status < 300)
		doc = json_object_new_object();
	if (status >= 200 && status < 400)
		return ok_result(NULL, doc, sw_buf_str(resp));
	if (doc == NULL || !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		sw_fmt_text(detail, sizeof(detail), "%.250s",
		    resp->len ? sw_buf_str(resp) : "(no body)");
		doc = sw_mcp_problem_new(
		    (int)status, "upstream", "HTTP error", detail, NULL);
	} else if (sw_json_get(doc, "status") == NULL)
		sw_json_add_int(doc, "status", status);
	return error_result(name, doc);
}

/* tools/call of a plugin tool: scope, then the HTTP request. */
static json_object *
plugin_call(struct sw_mcp *m, const struct sw_principal *who,
    const char *authorization, json_object *plugin, json_object *args)
{
	const char *name = sw_json_get_str(plugin, "tool");
	const char *method = sw_json_get_str(plugin, "method");
	json_object *body = NULL, *res;
	struct sw_ferrs errs;
	struct sw_buf target, resp;
	/* room for "<field>: <message>" of a struct sw_ferr */
	char detail[sizeof(((struct sw_ferr *)0)->field) +
	    sizeof(((struct sw_ferr *)0)->msg) + 64];
	long status = 0;
	sw_err e;

	if (who->scope < sw_scope_parse(sw_json_get_str(plugin, "scope"))) {
		sw_fmt_text(detail, sizeof(detail), "%s needs scope %s", name,
		    sw_json_get_str(plugin, "scope"));
		return error_result(name,
		    sw_mcp_problem_new(
			403, "forbidden", "Forbidden", detail, NULL));
	}
	memset(&errs, 0, sizeof(errs));
	sw_buf_init(&target, SW_MAX_PATH + SW_MAX_QUERY);
	sw_buf_init(&resp, SW_MCP_MAX_REST_BODY);
	if (plugin_request(plugin, args, &target, &body, &errs) != SW_OK) {
		sw_fmt_text(detail, sizeof(detail), "%s: %s", errs.e[0].field,
		    errs.e[0].msg);
		res = error_result(name,
		    sw_mcp_problem_new(
			400, "validation", "Invalid request", detail, &errs));
		goto out;
	}
	e = m->rest(m->rest_arg, method, sw_buf_str(&target), authorization,
	    body != NULL ? sw_json_str(body) : NULL, &status, &resp);
	if (e != SW_OK) {
		sw_fmt_text(detail, sizeof(detail),
		    "slipway-mcp could not "
		    "reach "
		    "the plugin for %s %.200s",
		    method, sw_buf_str(&target));
		res = error_result(name,
		    sw_mcp_problem_new(sw_err_http_status(e), sw_err_slug(e),
			sw_err_info(e)->title, detail, NULL));
	} else
		res = plugin_result(name, status, &resp);
out:
	json_object_put(body);
	sw_buf_free(&target);
	sw_buf_free(&resp);
	return res;
}

/* ---- tools/call ---------------------------------------------------------- */

sw_err
sw_mcp_tool_call(struct sw_mcp *m, const struct sw_principal *who,
    const char *authorization, const char *name, json_object *args,
    json_object **result, char *why, size_t whysz)
{
	const struct sw_op *op = sw_op_by_name(name);
	struct tool_result t;
	json_object *plugin = NULL;

	*result = NULL;
	if (op != NULL && !op_is_tool(op))
		op = NULL;
	if (op == NULL && (plugin = plugin_find(m, name)) == NULL) {
		sw_fmt_text(why, whysz, "unknown tool '%.128s'", name);
		return SW_ENOTFOUND;
	}
	if (args != NULL && !json_object_is_type(args, json_type_object)) {
		sw_fmt_text(why, whysz, "arguments must be an object");
		return SW_EINVAL;
	}
	if (op == NULL) {
		*result = plugin_call(m, who, authorization, plugin, args);
		return SW_OK;
	}
	row_result(m, who, op, args, &t);
	*result = result_doc(&t);
	return SW_OK;
}

const struct sw_op *
sw_mcp_row_tool(const char *name)
{
	const struct sw_op *op = sw_op_by_name(name);

	return op != NULL && op_is_tool(op) ? op : NULL;
}

sw_err
sw_mcp_row_answer(struct sw_mcp *m, const struct sw_principal *who,
    const struct sw_op *op, json_object *args, struct sw_buf *b, int *is_error)
{
	struct tool_result t;

	row_result(m, who, op, args, &t);
	*is_error = t.is_error;
	return result_put(&t, b);
}

sw_err
sw_mcp_op_run(struct sw_mcp *m, const struct sw_principal *who,
    const char *op_name, json_object *args, long *status, json_object **doc)
{
	const struct sw_op *op = sw_op_by_name(op_name);

	*doc = NULL;
	*status = 0;
	if (op == NULL || !op_is_tool(op))
		return SW_ENOTFOUND;
	run_row(m, who, op, args, status, doc);
	return SW_OK;
}

/* ---- tool classes of a token ------------------------------------------ */

int
sw_mcp_tool_allowed(
    const struct sw_mcp *m, const char *classes, const char *name)
{
	const struct sw_op *op = sw_op_by_name(name);
	json_object *plugin = op == NULL ? plugin_find(m, name) : NULL;
	char buf[SW_MAX_TOOL_CLASSES + 1], *p, *comma;
	int ro;

	if (classes == NULL || classes[0] == '\0')
		return 1;
	ro = op != NULL ? (op->flags & SW_OP_READONLY) != 0
			: sw_json_get_bool(plugin, "readOnly", 0);
	if (snprintf(buf, sizeof(buf), "%s", classes) >= (int)sizeof(buf))
		return 0;
	for (p = buf; p != NULL; p = comma ? comma + 1 : NULL) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma = '\0';
		if ((strcmp(p, "read-only") == 0 ||
			strcmp(p, "diagnose") == 0) &&
		    ro)
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
