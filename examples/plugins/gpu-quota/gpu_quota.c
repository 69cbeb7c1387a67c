/*
 * gpu_quota.c: slipway-ext-gpu-quota, an example of a site's own
 * endpoint that Slipway serves under /ext/ and offers to agents as an
 * MCP tool.  The launcher runs it from <state-dir>/plugins.d/
 * gpu-quota.json on run/ext-gpu-quota.sock (the socket is fd 0, as for
 * slipway-api); tools.d/gpu-quota.json makes it the tool ext_gpu_quota.
 *
 *   GET /ext/gpu-quota/report[?instance_type=ml.p5.48xlarge]
 *     200 {"region", "source", "quotas": [{instance_type, gpu_model,
 *          gpus_per_instance, max_instances, max_gpus}], "total_gpus"}
 *     400/401/403/404/405 application/problem+json
 *
 * The report is the GPU budget a site allows per instance type: the
 * file <state-dir>/gpu-quota.json ({"quotas": [...]}) when present,
 * built-in defaults otherwise.  Like every endpoint under /ext/, it
 * checks the caller's bearer token itself (nginx does not): here with
 * Slipway's own token table, so the same read/write/admin tokens work.
 * The accept loop is Slipway's (api/fcgi.c): signals, retries and
 * CGI mode behave as in slipway-api.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "api/fcgi.h"
#include "lib/json.h"
#include "lib/log.h"
#include "api/router.h"
#include "lib/url.h"

#define QUOTA_FILE_MAX (64 * 1024)

struct quota {
	const char *type;
	const char *gpu;
	int gpus;
	int max_instances;
};

/* clang-format off */
static const struct quota defaults[] = {
	{ "ml.g5.8xlarge", "NVIDIA A10G", 1, 8 },
	{ "ml.g5.48xlarge", "NVIDIA A10G", 8, 2 },
	{ "ml.p4d.24xlarge", "NVIDIA A100", 8, 4 },
	{ "ml.p5.48xlarge", "NVIDIA H100", 8, 2 },
	{ "ml.trn1.32xlarge", "AWS Trainium", 16, 4 },
};
/* clang-format on */

struct plugin {
	struct sw_db *db;
	struct sw_config cfg;
};

static void
answer(FCGX_Request *fr, int status, const char *type, json_object *doc)
{
	const char *body = sw_json_str(doc);

	FCGX_FPrintF(fr->out,
	    "Status: %d\r\nContent-Type: %s\r\n"
	    "Cache-Control: no-store\r\nContent-Length: %d\r\n\r\n%s",
	    status, type, (int)strlen(body), body);
}

static void
problem(FCGX_Request *fr, int status, const char *title, const char *detail)
{
	json_object *p = json_object_new_object();

	sw_json_add_str(p, "type", "about:blank");
	sw_json_add_str(p, "title", title);
	sw_json_add_int(p, "status", status);
	sw_json_add_str(p, "detail", detail);
	answer(fr, status, "application/problem+json", p);
	json_object_put(p);
}

static json_object *
quota_entry(const char *type, const char *gpu, int gpus, int max)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "instance_type", type);
	sw_json_add_str(o, "gpu_model", gpu);
	sw_json_add_int(o, "gpus_per_instance", gpus);
	sw_json_add_int(o, "max_instances", max);
	sw_json_add_int(o, "max_gpus", (int64_t)gpus * max);
	return o;
}

/* The site's table (new array), or NULL when there is no usable file. */
static json_object *
site_quotas(const char *dir)
{
	char path[700], chunk[4096], why[128];
	struct sw_buf b;
	json_object *doc = NULL, *list, *out = NULL, *e;
	size_t n, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/gpu-quota.json", dir);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	sw_buf_init(&b, QUOTA_FILE_MAX);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (sw_buf_add(&b, chunk, n) != SW_OK)
			break;
	fclose(f);
	if (sw_json_parse(sw_buf_str(&b), b.len, &doc, why, sizeof(why)) !=
		SW_OK ||
	    (list = sw_json_get(doc, "quotas")) == NULL ||
	    !json_object_is_type(list, json_type_array)) {
		sw_warn("%s: ignored (want {\"quotas\": [...]})", path);
		goto out;
	}
	out = json_object_new_array();
	for (i = 0; i < json_object_array_length(list); i++) {
		e = json_object_array_get_idx(list, i);
		if (sw_json_get_str(e, "instance_type") == NULL)
			continue;
		json_object_array_add(out,
		    quota_entry(sw_json_get_str(e, "instance_type"),
			sw_json_get_str(e, "gpu_model")
			    ? sw_json_get_str(e, "gpu_model")
			    : "unknown",
			(int)sw_json_get_int(e, "gpus_per_instance", 0),
			(int)sw_json_get_int(e, "max_instances", 0)));
	}
out:
	json_object_put(doc);
	sw_buf_free(&b);
	return out;
}

/* instance_type from the query string into out; -1 on anything else. */
static int
parse_query(const char *q, char *out, size_t outsz)
{
	const char *p, *amp, *eq;
	char key[64];
	size_t len;

	out[0] = '\0';
	for (p = q; p != NULL && *p != '\0'; p = amp ? amp + 1 : NULL) {
		amp = strchr(p, '&');
		len = amp ? (size_t)(amp - p) : strlen(p);
		if ((eq = memchr(p, '=', len)) == NULL ||
		    sw_url_decode(p, (size_t)(eq - p), key, sizeof(key)) != 0 ||
		    strcmp(key, "instance_type") != 0 ||
		    sw_url_decode(
			eq + 1, len - (size_t)(eq - p) - 1, out, outsz) != 0)
			return -1;
	}
	if (out[0] != '\0' &&
	    (strncmp(out, "ml.", 3) != 0 ||
		strspn(out, "abcdefghijklmnopqrstuvwxyz0123456789.") !=
		    strlen(out)))
		return -1;
	return 0;
}

static void
serve(FCGX_Request *fr, void *arg)
{
	struct plugin *pl = arg;
	struct sw_db *db = pl->db;
	const struct sw_config *cfg = &pl->cfg;
	const char *method = FCGX_GetParam("REQUEST_METHOD", fr->envp);
	const char *uri = FCGX_GetParam("DOCUMENT_URI", fr->envp);
	const char *auth = FCGX_GetParam("HTTP_AUTHORIZATION", fr->envp);
	const char *query = FCGX_GetParam("QUERY_STRING", fr->envp);
	struct sw_principal who;
	json_object *doc, *all, *list;
	char want[128];
	size_t i;
	int64_t total = 0;

	if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0 ||
	    sw_token_check(db, auth + 7, &who) != SW_OK) {
		FCGX_FPrintF(fr->out, "WWW-Authenticate: Bearer\r\n");
		problem(fr, 401, "Authentication required",
		    "send Authorization: Bearer <a Slipway token>");
		return;
	}
	if (who.scope < SW_SCOPE_READ) {
		problem(fr, 403, "Forbidden", "needs scope read");
		return;
	}
	if (uri == NULL || strcmp(uri, "/ext/gpu-quota/report") != 0) {
		problem(fr, 404, "Not found",
		    "the only resource is "
		    "/ext/gpu-quota/report");
		return;
	}
	if (method == NULL || strcmp(method, "GET") != 0) {
		FCGX_FPrintF(fr->out, "Allow: GET\r\n");
		problem(fr, 405, "Method not allowed", "use GET");
		return;
	}
	if (parse_query(query, want, sizeof(want)) != 0) {
		problem(fr, 400, "Invalid request",
		    "the only query parameter "
		    "is instance_type=ml.<family>.<size>");
		return;
	}
	doc = json_object_new_object();
	sw_json_add_str(doc, "region", cfg->region);
	if ((all = site_quotas(cfg->state_dir)) != NULL)
		sw_json_add_str(doc, "source", "gpu-quota.json");
	else {
		sw_json_add_str(doc, "source", "built-in defaults");
		all = json_object_new_array();
		for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			json_object_array_add(all,
			    quota_entry(defaults[i].type, defaults[i].gpu,
				defaults[i].gpus, defaults[i].max_instances));
	}
	list = json_object_new_array();
	for (i = 0; i < json_object_array_length(all); i++) {
		json_object *e = json_object_array_get_idx(all, i);

		if (want[0] != '\0' &&
		    strcmp(want, sw_json_get_str(e, "instance_type")) != 0)
			continue;
		total += sw_json_get_int(e, "max_gpus", 0);
		json_object_array_add(list, json_object_get(e));
	}
	json_object_put(all);
	if (want[0] != '\0' && json_object_array_length(list) == 0) {
		json_object_put(list);
		json_object_put(doc);
		problem(fr, 404, "Not found",
		    "no GPU quota is set for that "
		    "instance type");
		return;
	}
	json_object_object_add(doc, "quotas", list);
	sw_json_add_int(doc, "total_gpus", total);
	answer(fr, 200, "application/json", doc);
	json_object_put(doc);
}

int
main(void)
{
	struct plugin pl;
	const char *dir;
	int rc = 1;

	sw_log_init("ext-gpu-quota");
	memset(&pl, 0, sizeof(pl));
	if ((dir = sw_config_state_dir(NULL)) == NULL) {
		sw_error("SLIPWAY_STATE_DIR is not set");
		return 1;
	}
	if (sw_config_load(dir, &pl.cfg) != SW_OK)
		return 1;
	if (sw_db_open(pl.cfg.db_path, &pl.db) != SW_OK) {
		sw_error("cannot open %s", pl.cfg.db_path);
		goto out;
	}
	if (sw_fcgi_run(serve, &pl) == 0)
		rc = 0;
out:
	sw_db_close(pl.db);
	sw_config_free(&pl.cfg);
	return rc;
}
