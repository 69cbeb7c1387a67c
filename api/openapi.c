/*
 * openapi.c: writes the OpenAPI 3.1 document from sw_optable, and holds
 * the response schemas by name.  Schemas are kept as JSON text so they
 * read like the document they end up in.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "lib/json.h"
#include "api/tooldesc.h"
#include "api/openapi.h"
#include "api/optable.h"

struct named_schema {
	const char	*name;
	const char	*json;
};

#define OBJ(props)	"{\"type\":\"object\",\"properties\":{" props "}}"

static const struct named_schema schemas[] = {
	{ "Any", "{\"type\":\"object\"}" },
	{ "Problem", OBJ(
	    "\"type\":{\"type\":\"string\"},"
	    "\"title\":{\"type\":\"string\"},"
	    "\"status\":{\"type\":\"integer\"},"
	    "\"detail\":{\"type\":\"string\"},"
	    "\"instance\":{\"type\":\"string\"},"
	    "\"errors\":{\"type\":\"array\",\"items\":" OBJ(
		"\"field\":{\"type\":\"string\"},"
		"\"rule\":{\"type\":\"string\"},"
		"\"message\":{\"type\":\"string\"}") "}") },
	{ "Health", OBJ(
	    "\"status\":{\"type\":\"string\"},"
	    "\"state_store\":{\"type\":\"string\"}") },
	{ "Version", OBJ(
	    "\"name\":{\"type\":\"string\"},"
	    "\"version\":{\"type\":\"string\"},"
	    "\"api\":{\"type\":\"string\"},"
	    "\"schema_version\":{\"type\":\"integer\"},"
	    "\"backend\":{\"type\":\"string\",\"enum\":[\"aws\",\"sandbox\"]},"
	    "\"region\":{\"type\":\"string\"}") },
	{ "Principal", OBJ(
	    "\"name\":{\"type\":\"string\"},"
	    "\"scope\":{\"type\":\"string\"},"
	    "\"via\":{\"type\":\"string\"}") },
	{ "TokenList", OBJ(
	    "\"items\":{\"type\":\"array\",\"items\":" OBJ(
		"\"name\":{\"type\":\"string\"},"
		"\"scope\":{\"type\":\"string\"},"
		"\"created_ms\":{\"type\":\"integer\"},"
		"\"last_used_ms\":{\"type\":\"integer\"},"
		"\"revoked\":{\"type\":\"boolean\"}") "}") },
	{ "TokenCreated", OBJ(
	    "\"name\":{\"type\":\"string\"},"
	    "\"scope\":{\"type\":\"string\"},"
	    "\"tools\":{\"type\":\"string\"},"
	    "\"token\":{\"type\":\"string\"}") },
	{ "Operation", OBJ(
	    "\"id\":{\"type\":\"string\"},"
	    "\"kind\":{\"type\":\"string\"},"
	    "\"target\":{\"type\":\"string\"},"
	    "\"cluster\":{\"type\":\"string\"},"
	    "\"state\":{\"type\":\"string\",\"enum\":[\"pending\",\"running\","
	    "\"succeeded\",\"failed\",\"cancelled\"]},"
	    "\"requested_by\":{\"type\":\"string\"},"
	    "\"created_ms\":{\"type\":\"integer\"},"
	    "\"updated_ms\":{\"type\":\"integer\"},"
	    "\"error\":{\"type\":\"string\"},"
	    "\"result\":{},"
	    "\"params\":{\"type\":\"object\"},"
	    "\"terminal\":{\"type\":\"boolean\"},"
	    "\"timed_out\":{\"type\":\"boolean\"},"
	    "\"stages\":{\"type\":\"array\",\"items\":" OBJ(
		"\"seq\":{\"type\":\"integer\"},"
		"\"name\":{\"type\":\"string\"},"
		"\"state\":{\"type\":\"string\"},"
		"\"attempts\":{\"type\":\"integer\"},"
		"\"resources\":{\"type\":\"object\"},"
		"\"error\":{\"type\":\"string\"}") "},"
	    "\"events\":{\"type\":\"array\",\"items\":" OBJ(
		"\"id\":{\"type\":\"integer\"},"
		"\"time_ms\":{\"type\":\"integer\"},"
		"\"stage\":{\"type\":\"integer\"},"
		"\"level\":{\"type\":\"string\"},"
		"\"message\":{\"type\":\"string\"}") "}") },
	{ "OperationList", OBJ(
	    "\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	    "\"next\":{\"type\":\"string\"}") },
	{ "Accepted", OBJ(
	    "\"operation_id\":{\"type\":\"string\"},"
	    "\"state\":{\"type\":\"string\"},"
	    "\"status_tool\":{\"type\":\"string\"},"
	    "\"poll_interval_seconds\":{\"type\":\"integer\"},"
	    "\"idempotent_replay\":{\"type\":\"boolean\"},"
	    "\"stages\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}") },
};

json_object *
sw_schema_named(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++)
		if (strcmp(schemas[i].name, name) == 0)
			return json_tokener_parse(schemas[i].json);
	return NULL;
}

static json_object *
ref(const char *name)
{
	json_object *o = json_object_new_object();
	char buf[128];

	snprintf(buf, sizeof(buf), "#/components/schemas/%s", name);
	sw_json_add_str(o, "$ref", buf);
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

static json_object *
parameters_of(const struct sw_op *op)
{
	json_object *arr = json_object_new_array(), *p;
	const struct sw_field *f;

	for (f = op->params; f != NULL && f->name != NULL; f++) {
		p = json_object_new_object();
		sw_json_add_str(p, "name", f->name);
		sw_json_add_str(p, "in", (f->flags & SW_F_PATH) ? "path" :
		    "query");
		if (f->desc)
			sw_json_add_str(p, "description", f->desc);
		sw_json_add_bool(p, "required", (f->flags & SW_F_PATH) ||
		    (f->flags & SW_F_REQUIRED));
		json_object_object_add(p, "schema", sw_field_schema(f));
		json_object_array_add(arr, p);
	}
	if (op->flags & SW_OP_DRY_RUN) {
		p = json_object_new_object();
		sw_json_add_str(p, "name", sw_dry_run_field.name);
		sw_json_add_str(p, "in", "query");
		sw_json_add_str(p, "description", sw_dry_run_field.desc);
		sw_json_add_bool(p, "required", 0);
		json_object_object_add(p, "schema",
		    sw_field_schema(&sw_dry_run_field));
		json_object_array_add(arr, p);
	}
	return arr;
}

static json_object *
operation_of(const struct sw_op *op)
{
	json_object *o = json_object_new_object(), *tags, *resp, *sec, *rb;
	char code[8];
	int status;

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
		json_object_object_add(rb, "content", content_of(
		    sw_fields_schema(op->body, 0), "application/json"));
		json_object_object_add(o, "requestBody", rb);
	}
	resp = json_object_new_object();
	status = (op->flags & SW_OP_LONG) ? 202 :
	    strcmp(op->name, "token_create") == 0 ? 201 : 200;
	snprintf(code, sizeof(code), "%d", status);
	json_object_object_add(resp, code, response(op->summary,
	    ref(op->output ? op->output : "Any"), "application/json"));
	if (op->flags & SW_OP_LONG_POLL) {
		json_object *r429 = response("This token already holds "
		    "its long polls (or the endpoint's are busy); retry after "
		    "Retry-After seconds", ref("Problem"),
		    "application/problem+json"), *h, *ra;

		h = json_object_new_object();
		ra = json_object_new_object();
		sw_json_add_str(ra, "description", "Seconds to wait.");
		json_object_object_add(ra, "schema",
		    json_tokener_parse("{\"type\":\"integer\"}"));
		json_object_object_add(h, "Retry-After", ra);
		json_object_object_add(r429, "headers", h);
		json_object_object_add(resp, "429", r429);
	}
	json_object_object_add(resp, "default", response("A problem",
	    ref("Problem"), "application/problem+json"));
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
	if (op->status_tool)
		sw_json_add_str(o, "x-slipway-status-tool", op->status_tool);
	return o;
}

static void
lower(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n && src[i]; i++)
		dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ?
		    src[i] + 32 : src[i]);
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
	sw_json_add_str(info, "description", "Create and run Amazon EKS + "
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
		json_object_object_add(sch, schemas[i].name,
		    json_tokener_parse(schemas[i].json));
	json_object_object_add(comp, "schemas", sch);
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
