/* test-optable.c: the operation table is consistent (unique names and
 * routes, path placeholders declared, mutations name a status tool) and
 * the router answers through it: routing, 404/405, auth, scopes,
 * validation and problem documents. */
#include <sys/file.h>

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "lib/json.h"
#include "api/openapi.h"
#include "api/optable.h"
#include "api/router.h"
#include "handlers/table.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

static struct sw_db *db;
static struct sw_config cfg;
static char admin[SW_TOKEN_LEN], reader[SW_TOKEN_LEN];
static char last_head[4096]; /* status line and headers of the last run */
static const struct sw_handler_row *handlers = sw_handler_table;

/* A version handler that drifts from its answer row: a member more. */
static sw_err
drifting_version(struct sw_req *r)
{
	sw_req_reply(r, 200,
	    sw_jo("name", sw_js("slipway"), "version", sw_js("0"), "api",
		sw_js("v1"), "schema_version", sw_ji(1), "backend",
		sw_js("aws"), "region", sw_js("us-west-2"), "surprise",
		sw_ji(1), NULL));
	return SW_OK;
}
/* clang-format off */
static const struct sw_handler_row drifting[] = {
	{ .op = "version", .fn = drifting_version },
	{ NULL, NULL }
};
/* clang-format on */

/* Run one request; returns the rendered status and keeps the body. */
static int
run(const char *method, const char *uri, const char *query, const char *auth,
    const char *body, json_object **out)
{
	char authz[128];
	struct sw_req r;
	struct sw_buf b;
	int status;
	const char *p;

	memset(&r, 0, sizeof(r));
	sw_req_from_env(&r, NULL);
	r.method = method;
	r.uri = uri;
	r.query = query;
	if (auth != NULL) {
		snprintf(authz, sizeof(authz), "Bearer %s", auth);
		r.authorization = authz;
	}
	r.body = body ? body : "";
	r.body_len = body ? strlen(body) : 0;
	r.content_type = "application/json";
	r.db = db;
	r.cfg = &cfg;
	sw_route(&r, handlers);
	sw_buf_init(&b, 0);
	sw_req_render(&r, &b);
	status = (int)strtol(sw_buf_str(&b) + 8, NULL, 10);
	p = strstr(sw_buf_str(&b), "\r\n\r\n");
	snprintf(last_head, sizeof(last_head), "%.*s",
	    p ? (int)(p - sw_buf_str(&b)) : 0, sw_buf_str(&b));
	if (out != NULL)
		*out = p ? json_tokener_parse(p + 4) : NULL;
	sw_buf_free(&b);
	sw_req_free(&r);
	return status;
}

int
main(void)
{
	json_object *o, *doc;
	size_t i, j;
	int names_unique = 1, routes_unique = 1, status_tools = 1,
	    placeholders = 1;

	for (i = 0; i < sw_optable_len; i++) {
		const struct sw_op *a = &sw_optable[i];
		const char *p;

		for (j = i + 1; j < sw_optable_len; j++) {
			if (strcmp(a->name, sw_optable[j].name) == 0)
				names_unique = 0;
			if (strcmp(a->path, sw_optable[j].path) == 0 &&
			    strcmp(a->method, sw_optable[j].method) == 0)
				routes_unique = 0;
		}
		if (!(a->flags & SW_OP_READONLY) && (a->flags & SW_OP_LONG) &&
		    a->status_tool == NULL)
			status_tools = 0;
		for (p = strchr(a->path, '{'); p; p = strchr(p + 1, '{')) {
			const struct sw_field *f;
			size_t n = strcspn(p + 1, "}");
			int found = 0;

			for (f = a->params; f && f->name; f++)
				if ((f->flags & SW_F_PATH) &&
				    strlen(f->name) == n &&
				    strncmp(f->name, p + 1, n) == 0)
					found = 1;
			if (!found)
				placeholders = 0;
		}
	}
	ok(names_unique, "operation names are unique");
	ok(routes_unique, "method + path pairs are unique");
	ok(status_tools, "every long operation names its status tool");
	ok(placeholders, "every path placeholder is a declared field");
	{
		const struct sw_handler_row *h;
		int every_row = 1, known = 1, n = 0;

		for (i = 0; i < sw_optable_len; i++)
			if (sw_route_handler(
				sw_handler_table, sw_optable[i].name) == NULL)
				every_row = 0;
		for (h = sw_handler_table; h->op != NULL; h++, n++)
			if (sw_op_by_name(h->op) == NULL || h->fn == NULL)
				known = 0;
		ok(every_row, "every operation has a handler in the table");
		ok(known, "every handler row names a known operation");
		is_int(n, (long long)sw_optable_len,
		    "one handler row per operation");
	}

	ok(sw_path_match("/api/v1/operations/{id}:retry",
	       "/api/v1/operations/op-1:retry", NULL),
	    "verb suffix matches");
	ok(!sw_path_match("/api/v1/operations/{id}",
	       "/api/v1/operations/op-1:retry", NULL),
	    "plain placeholder does not swallow a verb");
	ok(!sw_path_match(
	       "/api/v1/operations/{id}", "/api/v1/operations/", NULL),
	    "empty placeholder does not match");
	ok(!sw_path_match("/api/v1/operations", "/api/v1/operations/x", NULL),
	    "extra segment does not match");

	if ((db = tmpdb_open()) == NULL)
		skip_all("cannot create a database");
	sw_config_load("/nonexistent", &cfg);
	sw_token_create(db, "admin", SW_SCOPE_ADMIN, admin);
	sw_token_create(db, "reader", SW_SCOPE_READ, reader);

	is_int(run("GET", "/api/v1/health", NULL, NULL, NULL, NULL), 200,
	    "health needs no token");
	is_int(run("GET", "/api/v1/version", NULL, NULL, NULL, &o), 401,
	    "version needs a token");
	is_str(sw_json_get_str(o, "type"), "/problems/unauthorized",
	    "401 is a problem document");
	json_object_put(o);
	handlers = drifting;
#ifdef SW_FAULT_INJECTION
	is_int(run("GET", "/api/v1/version", NULL, admin, NULL, &o), 500,
	    "test build: an answer outside its row is a 500");
	ok(o != NULL &&
		strcmp(sw_json_get_str(json_object_array_get_idx(
					   sw_json_get(o, "errors"), 0),
			   "field")
			?: "",
		    "surprise") == 0,
	    "... naming the member the row does not declare");
#else
	is_int(run("GET", "/api/v1/version", NULL, admin, NULL, &o), 200,
	    "release build: answers are not checked");
	ok(o != NULL, "... and pass as they are");
#endif
	json_object_put(o);
	handlers = sw_handler_table;
	is_int(run("GET", "/api/v1/version", NULL, reader, NULL, &o), 200,
	    "read token reads");
	is_str(sw_json_get_str(o, "api"), "v1", "version body");
	json_object_put(o);
	is_int(run("GET", "/api/v1/nope", NULL, reader, NULL, NULL), 404,
	    "unknown route 404");
	is_int(run("DELETE", "/api/v1/version", NULL, reader, NULL, NULL), 405,
	    "wrong method 405");
	is_int(run("GET", "/api/v1/tokens", NULL, reader, NULL, &o), 403,
	    "read token cannot list tokens");
	ok(strstr(sw_json_get_str(o, "detail"), "admin") != NULL,
	    "403 says which scope is needed");
	json_object_put(o);
	is_int(run("GET", "/api/v1/operations", "limit=0", reader, NULL, &o),
	    400, "query bound enforced");
	is_str(sw_json_get_str(
		   json_object_array_get_idx(sw_json_get(o, "errors"), 0),
		   "field"),
	    "limit", "problem names the field");
	is_str(
	    sw_json_get_str(
		json_object_array_get_idx(sw_json_get(o, "errors"), 0), "rule"),
	    "minimum", "problem names the rule");
	json_object_put(o);
	is_int(run("GET", "/api/v1/operations", "bogus=1", reader, NULL, NULL),
	    400, "unknown query parameter refused");
	is_int(
	    run("GET", "/api/v1/operations", "state=done", reader, NULL, NULL),
	    400, "enum in query enforced");
	is_int(run("GET", "/api/v1/operations/op-xyz", NULL, reader, NULL, &o),
	    400, "path placeholder validated");
	is_str(sw_json_get_str(
		   json_object_array_get_idx(sw_json_get(o, "errors"), 0),
		   "field"),
	    "id", "path problem names the field");
	json_object_put(o);
	is_int(run("GET", "/api/v1/operations/op-0123456789abcdef", NULL,
		   reader, NULL, NULL),
	    404, "unknown operation 404");

	/* Raw paths: split before decoding. */
	is_int(run("GET", "/api/v1/operations/op-0123456789abcde%66", NULL,
		   reader, NULL, NULL),
	    404,
	    "an encoded letter in a variable is "
	    "decoded (then 404: no such operation)");
	is_int(
	    run("GET", "/api/v1/operations/..%2Ftokens", NULL, admin, NULL, &o),
	    400, "an encoded '/' in a variable is a 400");
	is_str(
	    sw_json_get_str(
		json_object_array_get_idx(sw_json_get(o, "errors"), 0), "rule"),
	    "segment", "... rule segment");
	json_object_put(o);
	is_int(run("GET", "/api/v1/operations/%2e%2e", NULL, admin, NULL, NULL),
	    400, "an encoded '..' is a 400");
	is_int(
	    run("GET", "/api/v1/operations/op-1%00", NULL, admin, NULL, NULL),
	    400, "an encoded NUL is a 400");
	is_int(run("GET", "/api/v1/./version", NULL, reader, NULL, NULL), 404,
	    "a raw '.' segment matches no route");
	is_int(run("GET", "/api/v1/x/../version", NULL, reader, NULL, NULL),
	    404, "a raw '..' segment matches no route");
	is_int(run("GET", "/api/v1//version", NULL, reader, NULL, NULL), 404,
	    "an empty segment matches no route");

	/* Long polls take slots: per token, then per lane. */
	{
		char dir[300], path[400], id[17];
		int held[2], k;
		DIR *d;
		struct dirent *de;
		const char *wait =
		    "/api/v1/operations/op-0123456789abcdef:wait";

		snprintf(dir, sizeof(dir), "%s/waits", tmpdb_dir);
		memcpy(id, reader + 4, 16);
		id[16] = '\0';
		ok(sw_route_long_polls(dir, "t", 1) == SW_OK,
		    "long-poll slots set up");
		is_int(run("GET", wait, "timeout=1", reader, NULL, NULL), 404,
		    "a free slot: the wait runs (404: no such operation)");
		for (k = 0; k < 2; k++) {
			snprintf(
			    path, sizeof(path), "%s/token-%s.%d", dir, id, k);
			held[k] = open(path, O_RDWR | O_CREAT, 0600);
			flock(held[k], LOCK_EX | LOCK_NB);
		}
		is_int(run("GET", wait, "timeout=1", reader, NULL, &o), 429,
		    "both of the token's slots held: 429");
		ok(strstr(sw_json_get_str(o, "detail"), "reader") != NULL,
		    "... naming the token");
		json_object_put(o);
		ok(strstr(last_head, "\r\nRetry-After: 5") != NULL &&
			strstr(strstr(last_head, "Retry-After") + 1,
			    "Retry-After") == NULL,
		    "... with one Retry-After header");
		is_int(run("GET", wait, "timeout=1", admin, NULL, NULL), 404,
		    "another token still waits");
		close(held[1]);
		is_int(run("GET", wait, "timeout=1", reader, NULL, NULL), 404,
		    "a slot freed: the wait runs again");
		snprintf(path, sizeof(path), "%s/t.0", dir);
		held[1] = open(path, O_RDWR | O_CREAT, 0600);
		flock(held[1], LOCK_EX | LOCK_NB);
		is_int(run("GET", wait, "timeout=1", admin, NULL, &o), 429,
		    "the lane's one slot held: 429");
		ok(strstr(sw_json_get_str(o, "detail"), "slots") != NULL,
		    "... naming the lane's slots");
		json_object_put(o);
		is_int(run("GET", "/api/v1/operations/op-0123456789abcdef",
			   NULL, admin, NULL, NULL),
		    404, "a read that is not a long poll takes no slot");
		close(held[0]);
		close(held[1]);
		if ((d = opendir(dir)) != NULL) {
			while ((de = readdir(d)) != NULL) {
				if (de->d_name[0] == '.')
					continue;
				if (snprintf(path, sizeof(path), "%s/%s", dir,
					de->d_name) < (int)sizeof(path))
					unlink(path);
			}
			closedir(d);
		}
		rmdir(dir);
	}
	is_int(run("POST", "/api/v1/tokens", NULL, admin, "{\"name\":", NULL),
	    400, "malformed JSON 400");
	is_int(run("POST", "/api/v1/tokens", NULL, admin,
		   "{\"name\":\"ci\",\"scope\":\"write\",\"x\":1}", &o),
	    400, "unknown body field 400");
	is_str(sw_json_get_str(
		   json_object_array_get_idx(sw_json_get(o, "errors"), 0),
		   "field"),
	    "x", "unknown field named");
	json_object_put(o);
	is_int(run("POST", "/api/v1/tokens", NULL, admin, "[1]", NULL), 400,
	    "non-object body 400");
	is_int(run("POST", "/api/v1/tokens", NULL, admin,
		   "{\"name\":\"ci\",\"scope\":\"write\"}", &o),
	    201, "admin creates a token");
	ok(sw_json_get_str(o, "token") != NULL, "token shown once");
	json_object_put(o);
	is_int(run("POST", "/api/v1/operations/op-0123456789abcdef:retry", NULL,
		   reader, NULL, NULL),
	    403, "read token cannot retry");

	doc = sw_openapi_document();
	ok(sw_json_get(sw_json_get(doc, "paths"), "/api/v1/operations/{id}") !=
		NULL,
	    "OpenAPI lists the operations path");
	is_str(sw_json_get_str(doc, "openapi"), "3.1.0", "OpenAPI 3.1");
	json_object_put(doc);

	sw_config_free(&cfg);
	tmpdb_close(db);
	sw_valid_cleanup();
	return tap_done();
}
