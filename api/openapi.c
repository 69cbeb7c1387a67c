/*
 * openapi.c: writes the OpenAPI 3.1 document from sw_optable: each
 * row's parameters and body from its fields, its answers from its
 * answer rows (every status it sends, the shared shapes under
 * components/schemas), the problems it can answer with by status, and
 * the Idempotency-Key header of every mutating row.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "api/tooldesc.h"
#include "lib/buf.h"
#include "api/openapi.h"
#include "api/optable.h"

struct named_schema {
	const char *name;
	const char *json;
};

#define OBJ(props) "{\"type\":\"object\",\"properties\":{" props "}}"

/* The schema of a row that describes its answer only by .output. */
/* clang-format off */
static const struct named_schema schemas[] = {
	{ "Any", "{\"type\":\"object\"}" },
};
/* clang-format on */

json_object *
sw_schema_named(const char *name)
{
	const struct sw_shape *sh;
	size_t i;

	if ((sh = sw_shape_by_name(name)) != NULL)
		return sw_answer_schema(sh->fields);

	for (i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++)
		if (strcmp(schemas[i].name, name) == 0)
			return json_tokener_parse(schemas[i].json);
	return NULL;
}

static json_object *
ref(const char *name)
{
	json_object *o = json_object_new_object();

	json_object_object_add(
	    o, "$ref", sw_jsf("#/components/schemas/%s", name));
	return o;
}

static json_object *
content_of(json_object *schema, const char *type)
{
	json_object *c = json_object_new_object(), *m;

	m = json_object_new_object();
	json_object_object_add(m, "schema", schema);
	json_object_object_add(c, type, m);
	return c;
}

static json_object *
response(const char *desc, json_object *schema, const char *type)
{
	json_object *r = json_object_new_object();

	sw_json_add_str(r, "description", desc);
	if (schema != NULL)
		json_object_object_add(r, "content", content_of(schema, type));
	return r;
}

static json_object *idempotency_key_of(const struct sw_op *);

static json_object *
parameters_of(const struct sw_op *op)
{
	json_object *arr = json_object_new_array(), *p;
	const struct sw_field *f;

	for (f = op->params; f != NULL && f->name != NULL; f++) {
		p = json_object_new_object();
		sw_json_add_str(p, "name", f->name);
		sw_json_add_str(
		    p, "in", (f->flags & SW_F_PATH) ? "path" : "query");
		if (f->desc)
			sw_json_add_str(p, "description", f->desc);
		sw_json_add_bool(p, "required",
		    (f->flags & SW_F_PATH) || (f->flags & SW_F_REQUIRED));
		json_object_object_add(p, "schema", sw_field_schema(f));
		json_object_array_add(arr, p);
	}
	if (op->flags & SW_OP_DRY_RUN) {
		p = json_object_new_object();
		sw_json_add_str(p, "name", sw_dry_run_field.name);
		sw_json_add_str(p, "in", "query");
		sw_json_add_str(p, "description", sw_dry_run_field.desc);
		sw_json_add_bool(p, "required", 0);
		json_object_object_add(
		    p, "schema", sw_field_schema(&sw_dry_run_field));
		json_object_array_add(arr, p);
	}
	if (op->touch == SW_TOUCH_TEAM) {
		p = json_object_new_object();
		sw_json_add_str(p, "name", sw_team_field.name);
		sw_json_add_str(p, "in", "query");
		sw_json_add_str(p, "description", sw_team_field.desc);
		sw_json_add_bool(p, "required", 0);
		json_object_object_add(
		    p, "schema", sw_field_schema(&sw_team_field));
		json_object_array_add(arr, p);
	}
	if (sw_op_takes_team(op))
		json_object_array_add(arr,
		    sw_jo("name", sw_js(SW_TEAM_HEADER), "in", sw_js("header"),
			"description",
			sw_js(
			    "The team "
			    "the caller works as (the UI's team switcher), used when "
			    "the request names none; a team the caller is not in is "
			    "refused by the same rule as the team argument."),
			"required", sw_jb(0), "schema",
			sw_field_schema(&sw_team_field), NULL));
	if (strcmp(op->method, "GET") != 0)
		json_object_array_add(arr, idempotency_key_of(op));
	return arr;
}

/* The schema of one answer row: its shape by reference, its own
 * members, or the text a non-JSON answer is. */
static json_object *
answer_schema(const struct sw_answer *a)
{
	if (a->media != NULL)
		return sw_jo("type", sw_js("string"), NULL);
	if (a->shape != NULL)
		return ref(a->shape);
	return sw_answer_schema(a->fields);
}

/* Do two answers have the same media type? */
static int
same_media(const struct sw_answer *a, const struct sw_answer *b)
{
	return strcmp(a->media ? a->media : "application/json",
		   b->media ? b->media : "application/json") == 0;
}

/* Every answer of a row by status; two of one media type at one status
 * (a dry run's plan and the answer itself) are a oneOf, and another
 * media type (the same rows as CSV) is another content entry. */
static json_object *
answers_of(const struct sw_op *op)
{
	const struct sw_answer *a, *b;
	json_object *resp = json_object_new_object(), *r, *one;
	char code[8], desc[512];

	if (op->answers == NULL) {
		json_object_object_add(resp,
		    (op->flags & SW_OP_LONG) ? "202" : "200",
		    response(op->summary, ref(op->output ? op->output : "Any"),
			"application/json"));
		return resp;
	}
	for (a = op->answers; a->status != 0; a++) {
		if (sw_fmt(code, sizeof(code), "%d", a->status) != SW_OK ||
		    sw_json_get(resp, code) != NULL)
			continue;
		one = NULL;
		sw_fmt_text(desc, sizeof(desc), "%s", a->desc);
		for (b = a + 1; b->status != 0; b++) {
			if (b->status != a->status)
				continue;
			sw_fmt_text(
			    desc, sizeof(desc), "%s Or: %s", a->desc, b->desc);
			if (!same_media(a, b))
				continue;
			if (one == NULL) {
				one = json_object_new_array();
				json_object_array_add(one, answer_schema(a));
			}
			json_object_array_add(one, answer_schema(b));
		}
		r = response(desc,
		    one != NULL ? sw_jo("oneOf", one, NULL) : answer_schema(a),
		    a->media ? a->media : "application/json");
		for (b = a + 1; b->status != 0; b++)
			if (b->status == a->status && !same_media(a, b))
				json_object_object_add(
				    sw_json_get(r, "content"),
				    b->media ? b->media : "application/json",
				    sw_jo("schema", answer_schema(b), NULL));
		json_object_object_add(resp, code, r);
	}
	return resp;
}

/* The statuses a row can fail with, from what it is: input, a path,
 * credentials, a change, AWS behind it, a long poll. */
struct problem_status {
	int status;
	const char *types; /* the problem types it carries */
	const char *desc;
};

/* clang-format off */
static const struct problem_status problem_statuses[] = {
	{ 400, "validation, malformed-json", "The request is refused: each "
	  "field and the rule it breaks are listed in errors." },
	{ 401, "unauthorized", "No valid token or session, or a sign-in's "
	  "credentials are refused." },
	{ 403, "forbidden", "The token's scope or tool classes do not "
	  "allow it, or the Origin or Host is not allowed." },
	{ 404, "not-found", "What the path names does not exist, or the "
	  "part of the configuration it serves is absent." },
	{ 409, "conflict, busy", "It conflicts with the current state, or "
	  "another operation holds the cluster." },
	{ 413, "too-large", "The body is larger than the API accepts." },
	{ 415, "unsupported-media-type", "The body is not "
	  "application/json." },
	{ 422, "precondition", "A pre-flight check against the account "
	  "failed." },
	{ 429, "throttled", "Too many requests (or long polls) for now; "
	  "retry after Retry-After seconds." },
	{ 500, "out-of-memory, state-store, internal", "Slipway failed." },
	{ 502, "upstream", "AWS or Kubernetes answered with an error." },
	{ 503, "unavailable", "A service is unavailable for now; retry "
	  "after Retry-After seconds." },
	{ 504, "timeout", "AWS or Kubernetes did not answer in time." },
};
/* clang-format on */

/* Does this row talk to AWS or Kubernetes? */
static int
reaches_upstream(const struct sw_op *op)
{
	return strcmp(op->tag, "system") != 0 &&
	    strcmp(op->tag, "operations") != 0;
}

static int
can_fail_with(const struct sw_op *op, int status)
{
	int mutating = !(op->flags & SW_OP_READONLY);

	switch (status) {
	case 401:
		return !(op->flags & SW_OP_PUBLIC) ||
		    (op->flags & SW_OP_SIGN_IN);
	case 403:
		return !(op->flags & SW_OP_PUBLIC) || mutating;
	case 404:
		return strchr(op->path, '{') != NULL ||
		    (op->flags & SW_OP_CONFIGURED);
	case 409:
		return mutating;
	case 413:
	case 415:
		return op->body != NULL;
	case 422:
		return mutating && reaches_upstream(op);
	case 429:
		return (op->flags & SW_OP_LONG_POLL) || reaches_upstream(op);
	case 502:
	case 504:
		return reaches_upstream(op);
	default:
		return 1;
	}
}

static json_object *
header_of(const char *desc, const char *type)
{
	return sw_jo("description", sw_js(desc), "schema",
	    sw_jo("type", sw_js(type), NULL), NULL);
}

/* One problem response, written once under components/responses. */
static json_object *
problem_response(const struct problem_status *p)
{
	json_object *r;
	char desc[512];

	sw_fmt_text(desc, sizeof(desc),
	    "%s Problem types: %s "
	    "(/problems/<type>).",
	    p->desc, p->types);
	r = response(desc, ref("Problem"), "application/problem+json");
	if (p->status == 401)
		json_object_object_add(r, "headers",
		    sw_jo("WWW-Authenticate",
			header_of("Bearer, with the error when a token was "
				  "refused.",
			    "string"),
			NULL));
	if (p->status == 429 || p->status == 503)
		json_object_object_add(r, "headers",
		    sw_jo("Retry-After",
			header_of("Seconds to wait.", "integer"), NULL));
	return r;
}

/*
 * The problems op can answer, each by reference.  At a status where the
 * row has an answer of its own (health's 503), the problem document is
 * a second media type of that answer: nginx, or the worker before the
 * row runs, can still answer that status with a problem.
 */
static void
problems_of(const struct sw_op *op, json_object *resp)
{
	const struct problem_status *p;
	json_object *own, *content;
	char code[8], name[64];
	size_t i;

	for (i = 0; i < sizeof(problem_statuses) / sizeof(problem_statuses[0]);
	     i++) {
		p = &problem_statuses[i];
		if (!can_fail_with(op, p->status) ||
		    sw_fmt(code, sizeof(code), "%d", p->status) != SW_OK ||
		    sw_fmt(name, sizeof(name),
			"#/components/responses/"
			"Problem%d",
			p->status) != SW_OK)
			continue;
		if ((own = sw_json_get(resp, code)) == NULL) {
			json_object_object_add(
			    resp, code, sw_jo("$ref", sw_js(name), NULL));
			continue;
		}
		content = sw_json_get(own, "content");
		if (content != NULL &&
		    sw_json_get(content, "application/problem+json") == NULL)
			json_object_object_add(content,
			    "application/problem+json",
			    sw_jo("schema", ref("Problem"), NULL));
	}
}

/* components/responses: each problem status once. */
static json_object *
problem_responses(void)
{
	json_object *o = json_object_new_object();
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(problem_statuses) / sizeof(problem_statuses[0]);
	     i++)
		if (sw_fmt(name, sizeof(name), "Problem%d",
			problem_statuses[i].status) == SW_OK)
			json_object_object_add(
			    o, name, problem_response(&problem_statuses[i]));
	return o;
}

/* Idempotency-Key: every request that changes something takes it. */
static json_object *
idempotency_key_of(const struct sw_op *op)
{
	char desc[512];

	sw_fmt_text(desc, sizeof(desc), "1 to %d of [A-Za-z0-9-_.:]. %s",
	    SW_MAX_IDEMPOTENCY_KEY,
	    (op->flags & SW_OP_LONG)
		? "The same "
		  "key with the same request answers with the operation it "
		  "started first (idempotent_replay true); with another request, "
		  "409."
		: "Checked for form; this operation does not start one "
		  "and is not replayed.");
	return sw_jo("name", sw_js("Idempotency-Key"), "in", sw_js("header"),
	    "description", sw_js(desc), "required", sw_jb(0), "schema",
	    sw_jo("type", sw_js("string"), "minLength", sw_ji(1), "maxLength",
		sw_ji(SW_MAX_IDEMPOTENCY_KEY), "pattern",
		sw_js("^[A-Za-z0-9._:-]+$"), NULL),
	    NULL);
}

static json_object *
operation_of(const struct sw_op *op)
{
	json_object *o = json_object_new_object(), *tags, *resp, *sec, *rb;

	sw_json_add_str(o, "operationId", op->name);
	sw_json_add_str(o, "summary", op->summary);
	if (op->description)
		sw_json_add_str(o, "description", op->description);
	tags = json_object_new_array();
	json_object_array_add(tags, json_object_new_string(op->tag));
	json_object_object_add(o, "tags", tags);
	json_object_object_add(o, "parameters", parameters_of(op));
	if (op->body != NULL) {
		rb = json_object_new_object();
		sw_json_add_bool(rb, "required", 1);
		json_object_object_add(rb, "content",
		    content_of(
			sw_fields_schema(op->body, 0), "application/json"));
		json_object_object_add(o, "requestBody", rb);
	}
	resp = answers_of(op);
	problems_of(op, resp);
	json_object_object_add(o, "responses", resp);
	sec = json_object_new_array();
	if (!(op->flags & SW_OP_PUBLIC)) {
		json_object *b = json_object_new_object(), *c;

		json_object_object_add(b, "bearer", json_object_new_array());
		json_object_array_add(sec, b);
		c = json_object_new_object();
		json_object_object_add(c, "session", json_object_new_array());
		json_object_array_add(sec, c);
	}
	json_object_object_add(o, "security", sec);
	sw_json_add_str(o, "x-slipway-scope", sw_scope_name(op->scope));
	sw_json_add_str(o, "x-slipway-touch", sw_touch_name(op->touch));
	if (op->flags & SW_OP_TEAM_ARG)
		sw_json_add_bool(o, "x-slipway-team-arg", 1);
	if (op->status_tool)
		sw_json_add_str(o, "x-slipway-status-tool", op->status_tool);
	return o;
}

static void
lower(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n && src[i]; i++)
		dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] + 32
							       : src[i]);
	dst[i] = '\0';
}

json_object *
sw_openapi_document(void)
{
	json_object *doc, *info, *paths, *item, *comp, *sch, *sec, *s, *srv;
	char m[8];
	size_t i;

	doc = json_object_new_object();
	sw_json_add_str(doc, "openapi", "3.1.0");
	info = json_object_new_object();
	sw_json_add_str(info, "title", "Slipway API");
	sw_json_add_str(info, "version", PACKAGE_VERSION);
	sw_json_add_str(info, "description",
	    "Create and run Amazon EKS + "
	    "SageMaker HyperPod clusters. Every change is an operation; "
	    "poll it with operation_get or operation_wait.");
	json_object_object_add(doc, "info", info);
	srv = json_object_new_array();
	s = json_object_new_object();
	sw_json_add_str(s, "url", "/");
	json_object_array_add(srv, s);
	json_object_object_add(doc, "servers", srv);
	paths = json_object_new_object();
	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *op = &sw_optable[i];

		if ((item = sw_json_get(paths, op->path)) == NULL) {
			item = json_object_new_object();
			json_object_object_add(paths, op->path, item);
		}
		lower(m, op->method, sizeof(m));
		json_object_object_add(item, m, operation_of(op));
	}
	json_object_object_add(doc, "paths", paths);
	comp = json_object_new_object();
	sch = json_object_new_object();
	for (i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++)
		json_object_object_add(
		    sch, schemas[i].name, json_tokener_parse(schemas[i].json));
	for (i = 0; sw_shapes[i].name != NULL; i++) {
		s = sw_answer_schema(sw_shapes[i].fields);
		sw_json_add_str(s, "description", sw_shapes[i].desc);
		json_object_object_add(sch, sw_shapes[i].name, s);
	}
	json_object_object_add(comp, "schemas", sch);
	json_object_object_add(comp, "responses", problem_responses());
	sec = json_object_new_object();
	s = json_object_new_object();
	sw_json_add_str(s, "type", "http");
	sw_json_add_str(s, "scheme", "bearer");
	json_object_object_add(sec, "bearer", s);
	s = json_object_new_object();
	sw_json_add_str(s, "type", "apiKey");
	sw_json_add_str(s, "in", "cookie");
	sw_json_add_str(s, "name", "sw_session");
	json_object_object_add(sec, "session", s);
	json_object_object_add(comp, "securitySchemes", sec);
	json_object_object_add(doc, "components", comp);
	/* Sysadmins' endpoints described in tools.d (api/tooldesc.c). */
	sw_tooldesc_openapi(doc);
	return doc;
}
