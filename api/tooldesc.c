/*
 * tooldesc.c: tool descriptors for a sysadmin's own endpoints.
 *
 * <state-dir>/tools.d/NAME.json describes one HTTP endpoint under /ext/
 * (served by a FastCGI program the launcher runs from plugins.d/, see
 * cli/slipway.c) as an MCP tool:
 *
 *   {"name": "gpu_quota", "description": "...",
 *    "inputSchema": {"type": "object", ...}, "outputSchema": {...},
 *    "method": "GET", "path": "/ext/gpu-quota/report",
 *    "readOnly": true, "destructive": false, "idempotent": true,
 *    "scope": "read"}
 *
 * The tool is named ext_<name> so it can never shadow a table row.
 * slipway-mcp enforces the scope (the endpoint must still check the
 * bearer token itself); the same descriptors add the endpoints to the
 * OpenAPI document.  A bad file is logged and skipped, never fatal.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/conf.h"
#include "api/tooldesc.h"

static int
chars_ok(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

static sw_err
fail(char *why, size_t whysz, const char *msg)
{
	sw_fmt_text(why, whysz, "%s", msg);
	return SW_EINVAL;
}

static int
schema_is_object(json_object *s)
{
	return s != NULL && json_object_is_type(s, json_type_object) &&
	    sw_json_get_str(s, "type") != NULL &&
	    strcmp(sw_json_get_str(s, "type"), "object") == 0;
}

/* Optional boolean member: 0/1, dflt when absent, -1 when not a bool. */
static int
opt_bool(json_object *o, const char *k, int dflt)
{
	json_object *v = sw_json_get(o, k);

	if (v == NULL)
		return dflt;
	if (!json_object_is_type(v, json_type_boolean))
		return -1;
	return json_object_get_boolean(v);
}

sw_err
sw_tooldesc_check(json_object *d, json_object **out, char *why, size_t whysz)
{
	static const char *const methods[] = { "GET", "POST", "PUT", "PATCH",
		"DELETE", NULL };
	static const char *const known[] = { "name", "description",
		"inputSchema", "outputSchema", "method", "path", "readOnly",
		"destructive", "idempotent", "scope", "title", NULL };
	const char *name, *desc, *method, *path, *scope;
	json_object *in, *os, *o;
	char tool[80];
	int ro, destr, idem, i, found;

	*out = NULL;
	if (!json_object_is_type(d, json_type_object))
		return fail(why, whysz, "a descriptor is a JSON object");
	json_object_object_foreach(d, k, v)
	{
		(void)v;
		for (found = 0, i = 0; known[i] != NULL; i++)
			if (strcmp(known[i], k) == 0)
				found = 1;
		if (!found) {
			sw_fmt_text(why, whysz, "unknown member '%.40s'", k);
			return SW_EINVAL;
		}
	}
	name = sw_json_get_str(d, "name");
	if (name == NULL || strlen(name) < 1 || strlen(name) > 48 ||
	    !chars_ok(name, "abcdefghijklmnopqrstuvwxyz0123456789_-"))
		return fail(why, whysz, "name must be 1-48 of [a-z0-9_-]");
	desc = sw_json_get_str(d, "description");
	if (desc == NULL || strlen(desc) < 1 || strlen(desc) > 4000)
		return fail(
		    why, whysz, "description must be 1-4000 characters");
	in = sw_json_get(d, "inputSchema");
	if (!schema_is_object(in))
		return fail(why, whysz,
		    "inputSchema must be a JSON Schema "
		    "with \"type\": \"object\"");
	os = sw_json_get(d, "outputSchema");
	if (os != NULL && !schema_is_object(os))
		return fail(why, whysz,
		    "outputSchema must be a JSON Schema "
		    "with \"type\": \"object\"");
	method = sw_json_get_str(d, "method");
	for (found = 0, i = 0; method != NULL && methods[i] != NULL; i++)
		if (strcmp(methods[i], method) == 0)
			found = 1;
	if (!found)
		return fail(why, whysz,
		    "method must be GET, POST, PUT, PATCH "
		    "or DELETE");
	path = sw_json_get_str(d, "path");
	if (path == NULL || strncmp(path, "/ext/", 5) != 0 ||
	    strlen(path) > 200 || strstr(path, "..") != NULL ||
	    strstr(path, "//") != NULL ||
	    !chars_ok(path,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"0123456789-._~/{}:"))
		return fail(why, whysz,
		    "path must be an /ext/... path of "
		    "[A-Za-z0-9-._~/:{}]");
	ro = opt_bool(d, "readOnly", 0);
	destr = opt_bool(d, "destructive", !ro);
	idem = opt_bool(d, "idempotent", ro);
	if (ro < 0 || destr < 0 || idem < 0)
		return fail(why, whysz,
		    "readOnly, destructive and idempotent "
		    "must be booleans");
	scope = sw_json_get_str(d, "scope");
	if (scope == NULL)
		scope = ro ? "read" : "write";
	if (sw_scope_parse(scope) == SW_SCOPE_NONE)
		return fail(why, whysz, "scope must be read, write or admin");
	if (!ro && sw_scope_parse(scope) < SW_SCOPE_WRITE)
		return fail(why, whysz,
		    "a tool that changes things needs "
		    "scope write or admin");
	if (sw_fmt(tool, sizeof(tool), "%s%s", SW_TOOLDESC_PREFIX, name) !=
	    SW_OK)
		return fail(why, whysz, "name is too long for a tool name");
	o = json_object_new_object();
	sw_json_add_str(o, "tool", tool);
	sw_json_add_str(o, "name", name);
	sw_json_add_str(o, "description", desc);
	json_object_object_add(o, "inputSchema", json_object_get(in));
	if (os != NULL)
		json_object_object_add(o, "outputSchema", json_object_get(os));
	sw_json_add_str(o, "method", method);
	sw_json_add_str(o, "path", path);
	sw_json_add_bool(o, "readOnly", ro);
	sw_json_add_bool(o, "destructive", !ro && destr);
	sw_json_add_bool(o, "idempotent", idem);
	sw_json_add_str(o, "scope", scope);
	*out = o;
	return SW_OK;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read one file (at most SW_MAX_TOOLDESC_FILE bytes) and parse it. */
static sw_err
read_json(const char *path, json_object **out, char *why, size_t whysz)
{
	struct sw_buf b;
	char chunk[4096];
	size_t n;
	FILE *f;
	sw_err e = SW_OK;

	*out = NULL;
	if ((f = fopen(path, "r")) == NULL)
		return fail(why, whysz, "cannot open");
	sw_buf_init(&b, SW_MAX_TOOLDESC_FILE);
	while (e == SW_OK && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		e = sw_buf_add(&b, chunk, n);
	fclose(f);
	if (e != SW_OK)
		e = fail(why, whysz, "file too large");
	else
		e = sw_json_parse(b.data ? b.data : "", b.len, out, why, whysz);
	sw_buf_free(&b);
	return e;
}

sw_err
sw_tooldesc_load(const char *state_dir, json_object **out)
{
	char dir[700], path[1000], why[200];
	char *names[SW_MAX_TOOLDESCS * 4];
	json_object *arr, *d, *norm;
	struct dirent *de;
	size_t n = 0, i, j, len;
	DIR *dh;
	int dup;

	arr = json_object_new_array();
	*out = arr;
	if (sw_fmt(dir, sizeof(dir), "%s/tools.d", state_dir) != SW_OK) {
		sw_warn("%s/tools.d: path too long, no tool descriptors read",
		    state_dir);
		return SW_OK;
	}
	if ((dh = opendir(dir)) == NULL)
		return SW_OK;
	while ((de = readdir(dh)) != NULL &&
	    n < sizeof(names) / sizeof(names[0])) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 6 ||
		    strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if ((names[n] = sw_strdup(de->d_name)) != NULL)
			n++;
	}
	closedir(dh);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (i = 0; i < n; i++) {
		if (sw_fmt(path, sizeof(path), "%s/%s", dir, names[i]) !=
		    SW_OK) {
			sw_warn("%s/%s: skipped, path too long", dir, names[i]);
			continue;
		}
		if (json_object_array_length(arr) >= SW_MAX_TOOLDESCS) {
			sw_warn("%s: skipped, more than %d tool descriptors",
			    path, SW_MAX_TOOLDESCS);
			continue;
		}
		if (read_json(path, &d, why, sizeof(why)) != SW_OK) {
			sw_warn("%s: skipped: %s", path, why);
			continue;
		}
		if (sw_tooldesc_check(d, &norm, why, sizeof(why)) != SW_OK) {
			sw_warn("%s: skipped: %s", path, why);
			json_object_put(d);
			continue;
		}
		json_object_put(d);
		for (dup = 0, j = 0; j < json_object_array_length(arr); j++)
			if (strcmp(
				sw_json_get_str(
				    json_object_array_get_idx(arr, j), "tool"),
				sw_json_get_str(norm, "tool")) == 0)
				dup = 1;
		if (dup) {
			sw_warn("%s: skipped: tool %s is already defined", path,
			    sw_json_get_str(norm, "tool"));
			json_object_put(norm);
			continue;
		}
		sw_json_add_str(norm, "file", names[i]);
		json_object_array_add(arr, norm);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return SW_OK;
}

/* ---- OpenAPI ------------------------------------------------------------ */

static json_object *
oa_param(const char *name, const char *in, int required, json_object *schema)
{
	json_object *p = json_object_new_object();

	sw_json_add_str(p, "name", name);
	sw_json_add_str(p, "in", in);
	sw_json_add_bool(p, "required", required);
	if (schema != NULL && json_object_is_type(schema, json_type_object))
		json_object_object_add(p, "schema", json_object_get(schema));
	else
		json_object_object_add(
		    p, "schema", json_tokener_parse("{\"type\":\"string\"}"));
	return p;
}

static int
in_required(json_object *schema, const char *name)
{
	json_object *req = sw_json_get(schema, "required");
	size_t i;

	for (i = 0; req != NULL && json_object_is_type(req, json_type_array) &&
	     i < json_object_array_length(req);
	     i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(req, i)),
			name) == 0)
			return 1;
	return 0;
}

static json_object *
oa_operation(json_object *p)
{
	json_object *o = json_object_new_object(), *params, *props, *in;
	json_object *resp, *r, *c, *mt, *sec, *b, *tags, *used;
	const char *path = sw_json_get_str(p, "path"), *t, *close;
	const char *method = sw_json_get_str(p, "method");
	char name[64], summary[121];
	int body = strcmp(method, "GET") != 0 && strcmp(method, "DELETE") != 0;
	size_t n;

	in = sw_json_get(p, "inputSchema");
	props = sw_json_get(in, "properties");
	sw_json_add_str(o, "operationId", sw_json_get_str(p, "tool"));
	sw_fmt_text(
	    summary, sizeof(summary), "%s", sw_json_get_str(p, "description"));
	if ((n = strcspn(summary, "\n")) < sizeof(summary))
		summary[n] = '\0';
	sw_json_add_str(o, "summary", summary);
	sw_json_add_str(o, "description", sw_json_get_str(p, "description"));
	tags = json_object_new_array();
	json_object_array_add(tags, json_object_new_string("plugins"));
	json_object_object_add(o, "tags", tags);
	params = json_object_new_array();
	used = json_object_new_object();
	for (t = path; (t = strchr(t, '{')) != NULL; t = close + 1) {
		if ((close = strchr(t, '}')) == NULL)
			break;
		n = (size_t)(close - t - 1);
		if (n == 0 || n >= sizeof(name))
			continue;
		memcpy(name, t + 1, n);
		name[n] = '\0';
		json_object_array_add(params,
		    oa_param(name, "path", 1, sw_json_get(props, name)));
		json_object_object_add(used, name, NULL);
	}
	if (!body && props != NULL &&
	    json_object_is_type(props, json_type_object)) {
		json_object_object_foreach(props, k, v)
		{
			if (json_object_object_get_ex(used, k, NULL))
				continue;
			json_object_array_add(params,
			    oa_param(k, "query", in_required(in, k), v));
		}
	}
	json_object_put(used);
	json_object_object_add(o, "parameters", params);
	if (body) {
		b = json_object_new_object();
		c = json_object_new_object();
		mt = json_object_new_object();
		json_object_object_add(mt, "schema", json_object_get(in));
		json_object_object_add(c, "application/json", mt);
		json_object_object_add(b, "content", c);
		json_object_object_add(o, "requestBody", b);
	}
	resp = json_object_new_object();
	r = json_object_new_object();
	sw_json_add_str(r, "description", summary);
	c = json_object_new_object();
	mt = json_object_new_object();
	json_object_object_add(mt, "schema",
	    sw_json_get(p, "outputSchema")
		? json_object_get(sw_json_get(p, "outputSchema"))
		: json_tokener_parse("{\"type\":\"object\"}"));
	json_object_object_add(c, "application/json", mt);
	json_object_object_add(r, "content", c);
	json_object_object_add(resp, "200", r);
	r = json_object_new_object();
	sw_json_add_str(r, "description", "A problem");
	c = json_object_new_object();
	mt = json_object_new_object();
	json_object_object_add(mt, "schema",
	    json_tokener_parse("{\"$ref\":\"#/components/schemas/Problem\"}"));
	json_object_object_add(c, "application/problem+json", mt);
	json_object_object_add(r, "content", c);
	json_object_object_add(resp, "default", r);
	json_object_object_add(o, "responses", resp);
	sec = json_object_new_array();
	b = json_object_new_object();
	json_object_object_add(b, "bearer", json_object_new_array());
	json_object_array_add(sec, b);
	json_object_object_add(o, "security", sec);
	sw_json_add_str(o, "x-slipway-scope", sw_json_get_str(p, "scope"));
	sw_json_add_bool(o, "x-slipway-plugin", 1);
	return o;
}

void
sw_tooldesc_openapi(json_object *doc)
{
	const char *dir = sw_config_state_dir(NULL);
	json_object *plugins = NULL, *paths, *item, *p;
	char m[8];
	size_t i, j;

	paths = sw_json_get(doc, "paths");
	if (dir == NULL || paths == NULL ||
	    sw_tooldesc_load(dir, &plugins) != SW_OK)
		return;
	for (i = 0; i < json_object_array_length(plugins); i++) {
		p = json_object_array_get_idx(plugins, i);
		if ((item = sw_json_get(paths, sw_json_get_str(p, "path"))) ==
		    NULL) {
			item = json_object_new_object();
			json_object_object_add(
			    paths, sw_json_get_str(p, "path"), item);
		}
		if (sw_fmt(m, sizeof(m), "%s", sw_json_get_str(p, "method")) !=
		    SW_OK) {
			sw_warn("tool %s: method %s is not an HTTP method",
			    sw_json_get_str(p, "tool"),
			    sw_json_get_str(p, "method"));
			continue;
		}
		for (j = 0; m[j] != '\0'; j++)
			if (m[j] >= 'A' && m[j] <= 'Z')
				m[j] = (char)(m[j] + 32);
		json_object_object_add(item, m, oa_operation(p));
	}
	json_object_put(plugins);
}
