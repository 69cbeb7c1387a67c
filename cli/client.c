/*
 * client.c: the user CLI, `slipway <verb>`, a client of a Slipway server
 * over its REST API.  Every verb is a row of the operation table
 * (api/optable.c): its name with dashes (cluster_get is `slipway
 * cluster-get`) and its fields as options (--name, --dry-run, ...), so
 * the CLI, REST and MCP cannot drift.  On top, the verbs people type:
 *
 *   slipway get <noun>               <noun>_list
 *   slipway describe <noun> NAME     <noun>_get, NAME its first path field
 *   slipway delete <noun> NAME       <noun>_delete
 *   slipway create <noun> -f FILE    <noun>_create, the body from FILE
 *   slipway wait OPERATION-ID        operation_wait
 *   slipway logs [-f] job NAME --cluster C   training_job_logs; -f
 *                                    follows over the stream service
 *                                    (logs.c: exit 0 the job succeeded,
 *                                    1 it failed, 130 Ctrl-C)
 *   slipway logs [-f] endpoint NAME --cluster C   inference_logs; -f
 *                                    until Ctrl-C (130) or the endpoint
 *                                    is gone (0)
 *   slipway plan -f FLEET.yaml       fleet_plan (exit 0: no change, 2:
 *                                    changes)
 *   slipway apply -f FLEET.yaml [--yes]  fleet_plan, then fleet_apply
 *   slipway export                   fleet_export, as YAML
 *   slipway verbs | help VERB [--json] | completion bash
 *   slipway context set NAME --server URL [--token-file F] [--team T]
 *   slipway context use NAME | context list
 *   slipway login --device [--context NAME]   the OpenID provider's
 *                                    device flow (RFC 8628) through the
 *                                    server (login_device, then
 *                                    login_device_token every interval
 *                                    seconds); the person's credential
 *                                    goes into the context (4 when
 *                                    denied or expired)
 *
 * Where to send: the current context of the contexts file
 * ($SLIPWAY_CONTEXTS, else $XDG_CONFIG_HOME/slipway/contexts.json, else
 * ~/.config/slipway/contexts.json; 0600), overridden by --context NAME,
 * and by $SLIPWAY_SERVER and $SLIPWAY_TOKEN for scripts.  A context's
 * team rides as the Slipway-Team header.  Output is a table (-o table,
 * the default on a terminal) or the answer's JSON (-o json).  Exit codes
 * a script can test: 0 success, 2 usage, 3 not found, 4 refused (401,
 * 403), 5 invalid or in conflict (400, 409, 412, 422), 6 the server or
 * AWS failed or throttled (429, 5xx), 7 no answer (connection).
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "api/optable.h"
#include "cli/client.h"
#include "cli/fleetdoc.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/url.h"
#include "lib/valid.h"

enum {
	EX_OK = 0,
	EX_USAGE = 2,
	EX_NOTFOUND = 3,
	EX_REFUSED = 4,
	EX_INVALID = 5,
	EX_SERVER = 6,
	EX_NOANSWER = 7
};

#define MAX_ARGS 64

static const char *const type_word[SW_T__MAX] = {
	[SW_T_STRING] = "string",
	[SW_T_INT] = "integer",
	[SW_T_NUMBER] = "number",
	[SW_T_BOOL] = "boolean",
	[SW_T_OBJECT] = "object",
	[SW_T_ARRAY] = "array",
	[SW_T_MAP] = "map",
	[SW_T_ANY] = "json",
};

/* One field of a verb: where it goes and what it is. */
struct verb_field {
	const struct sw_field *f;
	const char *in; /* path, query, body */
};

struct call {
	const struct sw_op *op;
	json_object *args; /* name -> value as given (string) */
	json_object *body; /* from -f, or NULL */
	const char *context;
	const char *output; /* json, table */
};

/* ---- the table as verbs ---------------------------------------------- */

static const struct sw_op *
op_of_verb(const char *verb)
{
	char name[128];
	size_t i;

	if (strlen(verb) >= sizeof(name))
		return NULL;
	for (i = 0; verb[i] != '\0'; i++)
		name[i] = verb[i] == '-' ? '_' : verb[i];
	name[i] = '\0';
	for (i = 0; i < sw_optable_len; i++)
		if (strcmp(sw_optable[i].name, name) == 0 &&
		    strncmp(sw_optable[i].path, "/api/v1/", 8) == 0)
			return &sw_optable[i];
	return NULL;
}

/* The fields of op in the order a person reads them, into out (at most
 * max); their count. */
static size_t
verb_fields(const struct sw_op *op, struct verb_field *out, size_t max)
{
	const struct sw_field *f;
	size_t n = 0;

	for (f = op->params; f != NULL && f->name != NULL && n < max; f++)
		out[n++] = (struct verb_field){ f,
			(f->flags & SW_F_PATH) ? "path" : "query" };
	if ((op->flags & SW_OP_DRY_RUN) && n < max)
		out[n++] = (struct verb_field){ &sw_dry_run_field, "query" };
	if (op->touch == SW_TOUCH_TEAM && n < max)
		out[n++] = (struct verb_field){ &sw_team_field, "query" };
	for (f = op->body; f != NULL && f->name != NULL && n < max; f++)
		out[n++] = (struct verb_field){ f, "body" };
	return n;
}

static const struct verb_field *
field_named(const struct verb_field *vf, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(vf[i].f->name, name) == 0)
			return &vf[i];
	return NULL;
}

static void
dashed(const char *name, char *out, size_t sz)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < sz; i++)
		out[i] = name[i] == '_' ? '-' : name[i];
	out[i] = '\0';
}

/* ---- contexts ---------------------------------------------------------- */

static int
contexts_path(char *out, size_t sz)
{
	const char *p = getenv("SLIPWAY_CONTEXTS"), *x, *h;

	if (p != NULL && p[0] != '\0')
		return sw_fmt(out, sz, "%s", p) == SW_OK ? 0 : -1;
	if ((x = getenv("XDG_CONFIG_HOME")) != NULL && x[0] == '/')
		return sw_fmt(out, sz, "%s/slipway/contexts.json", x) == SW_OK
		    ? 0
		    : -1;
	if ((h = getenv("HOME")) == NULL || h[0] != '/')
		return -1;
	return sw_fmt(out, sz, "%s/.config/slipway/contexts.json", h) == SW_OK
	    ? 0
	    : -1;
}

static json_object *
contexts_load(void)
{
	char path[1024];
	json_object *o;

	if (contexts_path(path, sizeof(path)) != 0 ||
	    (o = json_object_from_file(path)) == NULL ||
	    !json_object_is_type(o, json_type_object)) {
		o = json_object_new_object();
		json_object_object_add(o, "contexts", json_object_new_object());
	}
	return o;
}

/* mkdir -p of path's directory, 0700. */
static int
make_dirs(char *path)
{
	char *s;

	for (s = strchr(path + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return 0;
}

static int
contexts_save(json_object *o)
{
	char path[1024], tmp[1100];
	const char *text = json_object_to_json_string_ext(
	    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f;
	int fd;

	if (contexts_path(path, sizeof(path)) != 0 || make_dirs(path) != 0 ||
	    sw_fmt(tmp, sizeof(tmp), "%s.tmp", path) != SW_OK ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return -1;
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		return -1;
	}
	if (fprintf(f, "%s\n", text) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Read a token from a file: its first line. */
static char *
token_from_file(const char *file)
{
	char line[512];
	FILE *f = fopen(file, "r");

	if (f == NULL)
		return NULL;
	if (fgets(line, sizeof(line), f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	return line[0] != '\0' ? sw_strdup(line) : NULL;
}

static int
cmd_context(int argc, char **argv)
{
	json_object *all = contexts_load(), *ctxs, *c;
	const char *sub = argc > 1 ? argv[1] : "list";
	int i, rc = EX_OK;

	if ((ctxs = sw_json_get(all, "contexts")) == NULL ||
	    !json_object_is_type(ctxs, json_type_object)) {
		ctxs = json_object_new_object();
		json_object_object_add(all, "contexts", ctxs);
	}
	if (strcmp(sub, "list") == 0) {
		json_object_object_foreach(ctxs, name, v)
		{
			printf("%s%s\t%s\t%s\n",
			    strcmp(name,
				sw_json_get_str(all, "current")
				    ? sw_json_get_str(all, "current")
				    : "") == 0
				? "* "
				: "  ",
			    name,
			    sw_json_get_str(v, "server")
				? sw_json_get_str(v, "server")
				: "-",
			    sw_json_get_str(v, "team")
				? sw_json_get_str(v, "team")
				: "-");
		}
	} else if (strcmp(sub, "use") == 0 && argc == 3) {
		if (sw_json_get(ctxs, argv[2]) == NULL) {
			fprintf(stderr, "slipway: no context %s\n", argv[2]);
			rc = EX_NOTFOUND;
		} else {
			sw_json_add_str(all, "current", argv[2]);
			rc = contexts_save(all) == 0 ? EX_OK : EX_SERVER;
		}
	} else if (strcmp(sub, "set") == 0 && argc >= 3) {
		c = json_object_new_object();
		for (i = 3; i + 1 < argc; i += 2) {
			char *tok;

			if (strcmp(argv[i], "--server") == 0)
				sw_json_add_str(c, "server", argv[i + 1]);
			else if (strcmp(argv[i], "--team") == 0)
				sw_json_add_str(c, "team", argv[i + 1]);
			else if (strcmp(argv[i], "--token-file") == 0 &&
			    (tok = token_from_file(argv[i + 1])) != NULL) {
				sw_json_add_str(c, "token", tok);
				free(tok);
			} else
				break;
		}
		if (i != argc || sw_json_get_str(c, "server") == NULL) {
			json_object_put(c);
			fprintf(stderr,
			    "usage: slipway context set NAME "
			    "--server URL [--token-file FILE] [--team TEAM]\n");
			rc = EX_USAGE;
		} else {
			json_object_object_add(ctxs, argv[2], c);
			sw_json_add_str(all, "current", argv[2]);
			rc = contexts_save(all) == 0 ? EX_OK : EX_SERVER;
			if (rc != EX_OK)
				fprintf(stderr,
				    "slipway: cannot write the "
				    "contexts file\n");
		}
	} else {
		fprintf(stderr, "usage: slipway context set|use|list\n");
		rc = EX_USAGE;
	}
	json_object_put(all);
	return rc;
}

/* ---- a call ------------------------------------------------------------ */

/* The value of a field as JSON, from the text given (the router's own
 * reading of a query value for scalars; JSON text for the rest). */
static json_object *
value_of(const struct sw_field *f, const char *text)
{
	struct sw_ferrs errs;

	memset(&errs, 0, sizeof(errs));
	switch (f->type) {
	case SW_T_OBJECT:
	case SW_T_ARRAY:
	case SW_T_MAP:
	case SW_T_ANY:
		return json_tokener_parse(text);
	default:
		return sw_field_from_text(f, text, &errs);
	}
}

static size_t
grow(char *ptr, size_t size, size_t n, void *ud)
{
	return sw_buf_add(ud, ptr, size * n) == SW_OK ? size * n : 0;
}

static int
exit_of(long status)
{
	if (status >= 200 && status < 300)
		return EX_OK;
	if (status == 404)
		return EX_NOTFOUND;
	if (status == 401 || status == 403)
		return EX_REFUSED;
	if (status == 429 || status >= 500)
		return EX_SERVER;
	return EX_INVALID;
}

/* The URL of c (path and query from its args) into u; 0 or -1 (why on
 * stderr). */
static int
url_of(const struct call *c, const char *server, struct sw_buf *u,
    const struct verb_field *vf, size_t n)
{
	const char *p = c->op->path, *close;
	char name[64];
	size_t i;
	int first = 1;

	sw_buf_printf(u, "%s", server);
	while (u->len > 0 && u->data[u->len - 1] == '/')
		u->data[--u->len] = '\0';
	while (*p != '\0') {
		const char *v;

		if (*p != '{' || (close = strchr(p, '}')) == NULL) {
			sw_buf_add(u, p++, 1);
			continue;
		}
		if ((size_t)(close - p - 1) >= sizeof(name))
			return -1;
		memcpy(name, p + 1, (size_t)(close - p - 1));
		name[close - p - 1] = '\0';
		if ((v = sw_json_get_str(c->args, name)) == NULL) {
			fprintf(stderr, "slipway: --%s is required\n", name);
			return -1;
		}
		sw_url_encode(u, v);
		p = close + 1;
	}
	for (i = 0; i < n; i++) {
		const char *v = sw_json_get_str(c->args, vf[i].f->name);

		if (v == NULL || strcmp(vf[i].in, "query") != 0)
			continue;
		sw_buf_printf(u, "%c%s=", first ? '?' : '&', vf[i].f->name);
		sw_url_encode(u, v);
		first = 0;
	}
	return 0;
}

/* The request's body: -f's object with the body fields given on top. */
static json_object *
body_of(const struct call *c, const struct verb_field *vf, size_t n, int *bad)
{
	json_object *b = c->body != NULL ? json_object_get(c->body) : NULL, *v;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *t = sw_json_get_str(c->args, vf[i].f->name);

		if (t == NULL || strcmp(vf[i].in, "body") != 0)
			continue;
		if ((v = value_of(vf[i].f, t)) == NULL) {
			fprintf(stderr, "slipway: --%s: not a %s: %s\n",
			    vf[i].f->name, type_word[vf[i].f->type], t);
			*bad = 1;
			continue;
		}
		if (b == NULL)
			b = json_object_new_object();
		json_object_object_add(b, vf[i].f->name, v);
	}
	if (b == NULL && c->op->body != NULL)
		b = json_object_new_object();
	return b;
}

/* The scalar members of o as one table cell's text. */
static const char *
cell(json_object *v, char *buf, size_t sz)
{
	if (v == NULL)
		return "-";
	if (json_object_is_type(v, json_type_object) ||
	    json_object_is_type(v, json_type_array))
		return sw_fmt(buf, sz, "%s",
			   json_object_to_json_string_ext(
			       v, JSON_C_TO_STRING_PLAIN)) == SW_OK
		    ? buf
		    : "...";
	return json_object_get_string(v);
}

static void
print_table(json_object *doc)
{
	json_object *items = sw_json_get(doc, "items"), *first;
	const char *cols[8];
	size_t ncol = 0, i, j, w[8];
	char buf[48];

	if (items == NULL || !json_object_is_type(items, json_type_array) ||
	    json_object_array_length(items) == 0 ||
	    !json_object_is_type(first = json_object_array_get_idx(items, 0),
		json_type_object)) {
		json_object_object_foreach(doc, k, v)
		{
			char big[200];

			printf("%s: %s\n", k, cell(v, big, sizeof(big)));
		}
		return;
	}
	json_object_object_foreach(first, k, v)
	{
		if (ncol < 8 && !json_object_is_type(v, json_type_object) &&
		    !json_object_is_type(v, json_type_array))
			cols[ncol++] = k;
	}
	for (j = 0; j < ncol; j++) {
		w[j] = strlen(cols[j]);
		for (i = 0; i < json_object_array_length(items); i++) {
			size_t l = strlen(cell(
			    sw_json_get(
				json_object_array_get_idx(items, i), cols[j]),
			    buf, sizeof(buf)));

			w[j] = l > w[j] ? l : w[j];
		}
	}
	for (j = 0; j < ncol; j++)
		printf(
		    "%-*s%s", (int)w[j], cols[j], j + 1 < ncol ? "  " : "\n");
	for (i = 0; i < json_object_array_length(items); i++)
		for (j = 0; j < ncol; j++)
			printf("%-*s%s", (int)w[j],
			    cell(
				sw_json_get(json_object_array_get_idx(items, i),
				    cols[j]),
				buf, sizeof(buf)),
			    j + 1 < ncol ? "  " : "\n");
}

/* A problem's words on stderr: its detail and each field's rule. */
static void
print_problem(json_object *doc, long status)
{
	json_object *errs = sw_json_get(doc, "errors");
	size_t i;

	fprintf(stderr, "slipway: %ld %s\n", status,
	    sw_json_get_str(doc, "detail") ? sw_json_get_str(doc, "detail")
					   : "error");
	for (i = 0;
	     errs != NULL && json_object_is_type(errs, json_type_array) &&
	     i < json_object_array_length(errs);
	     i++) {
		json_object *e = json_object_array_get_idx(errs, i);

		fprintf(stderr, "  %s: %s\n",
		    sw_json_get_str(e, "field") ? sw_json_get_str(e, "field")
						: "-",
		    sw_json_get_str(e, "message")
			? sw_json_get_str(e, "message")
			: "");
	}
}

/* Where to send and as whom: the context, then the environment. */
static int
target(const char *name, const char **server, const char **token,
    const char **team, json_object **all)
{
	json_object *c;
	const char *cur;

	*all = contexts_load();
	cur = name != NULL ? name : sw_json_get_str(*all, "current");
	c = cur != NULL ? sw_json_get(sw_json_get(*all, "contexts"), cur)
			: NULL;
	if (name != NULL && c == NULL) {
		fprintf(stderr, "slipway: no context %s\n", name);
		return -1;
	}
	*server = getenv("SLIPWAY_SERVER") ? getenv("SLIPWAY_SERVER")
					   : sw_json_get_str(c, "server");
	*token = getenv("SLIPWAY_TOKEN") ? getenv("SLIPWAY_TOKEN")
					 : sw_json_get_str(c, "token");
	*team = sw_json_get_str(c, "team");
	if (*server == NULL) {
		fprintf(stderr,
		    "slipway: no server: slipway context set NAME "
		    "--server URL, or SLIPWAY_SERVER\n");
		return -1;
	}
	return 0;
}

/* Send c: *status and *doc (new reference; NULL when the answer is not
 * JSON, its text then in out); EX_OK or why it was not sent. */
static int
send_call(struct call *c, long *status, json_object **doc, struct sw_buf *out)
{
	struct verb_field vf[MAX_ARGS];
	size_t n = verb_fields(c->op, vf, MAX_ARGS);
	struct sw_buf url, hdr;
	struct curl_slist *h = NULL;
	json_object *all = NULL, *body;
	const char *server, *token, *team;
	int bad = 0, rc = EX_OK;
	CURL *curl;

	*doc = NULL;
	if (target(c->context, &server, &token, &team, &all) != 0) {
		json_object_put(all);
		return EX_USAGE;
	}
	sw_buf_init(&url, 0);
	sw_buf_init(&hdr, 0);
	body = body_of(c, vf, n, &bad);
	if (bad || url_of(c, server, &url, vf, n) != 0) {
		rc = EX_USAGE;
		goto done;
	}
	if (token != NULL) {
		sw_buf_printf(&hdr, "Authorization: Bearer %s", token);
		h = curl_slist_append(h, sw_buf_str(&hdr));
	}
	if (team != NULL && sw_op_takes_team(c->op)) {
		sw_buf_reset(&hdr);
		sw_buf_printf(&hdr, SW_TEAM_HEADER ": %s", team);
		h = curl_slist_append(h, sw_buf_str(&hdr));
	}
	h = curl_slist_append(h, "Accept: application/json");
	if (body != NULL)
		h = curl_slist_append(h, "Content-Type: application/json");
	if ((curl = curl_easy_init()) == NULL) {
		rc = EX_NOANSWER;
		goto done;
	}
	curl_easy_setopt(curl, CURLOPT_URL, sw_buf_str(&url));
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, c->op->method);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, grow);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (body != NULL)
		curl_easy_setopt(curl, CURLOPT_COPYPOSTFIELDS,
		    json_object_to_json_string_ext(body,
			JSON_C_TO_STRING_PLAIN |
			    JSON_C_TO_STRING_NOSLASHESCAPE));
	if (curl_easy_perform(curl) != CURLE_OK) {
		fprintf(stderr, "slipway: no answer from %s\n", server);
		rc = EX_NOANSWER;
	} else {
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
		*doc = json_tokener_parse(sw_buf_str(out));
	}
	curl_easy_cleanup(curl);
done:
	curl_slist_free_all(h);
	json_object_put(body);
	json_object_put(all);
	sw_buf_free(&url);
	sw_buf_free(&hdr);
	return rc;
}

static int
run_call(struct call *c)
{
	struct sw_buf out;
	json_object *doc;
	long status = 0;
	int rc;

	sw_buf_init(&out, 0);
	if ((rc = send_call(c, &status, &doc, &out)) != EX_OK) {
		sw_buf_free(&out);
		return rc;
	}
	rc = exit_of(status);
	if (rc != EX_OK)
		print_problem(doc, status);
	if (doc == NULL)
		fwrite(out.data, 1, out.len, stdout);
	else if (strcmp(c->output, "json") == 0 || rc != EX_OK)
		printf("%s\n",
		    json_object_to_json_string_ext(doc,
			JSON_C_TO_STRING_PRETTY |
			    JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_table(doc);
	json_object_put(doc);
	sw_buf_free(&out);
	return rc;
}

/* ---- help ------------------------------------------------------------ */

static int
cmd_verbs(void)
{
	char verb[128];
	size_t i;

	for (i = 0; i < sw_optable_len; i++) {
		if (strncmp(sw_optable[i].path, "/api/v1/", 8) != 0)
			continue;
		dashed(sw_optable[i].name, verb, sizeof(verb));
		printf("%-32s %s\n", verb, sw_optable[i].summary);
	}
	return EX_OK;
}

static int
cmd_help(const char *verb, int json)
{
	const struct sw_op *op = op_of_verb(verb);
	struct verb_field vf[MAX_ARGS];
	json_object *o, *arr;
	size_t n, i;
	char d[128];

	if (op == NULL) {
		fprintf(stderr, "slipway: no verb %s (slipway verbs)\n", verb);
		return EX_USAGE;
	}
	n = verb_fields(op, vf, MAX_ARGS);
	dashed(op->name, d, sizeof(d));
	if (!json) {
		printf("slipway %s: %s\n  %s %s\n", d, op->summary, op->method,
		    op->path);
		for (i = 0; i < n; i++) {
			dashed(vf[i].f->name, d, sizeof(d));
			printf("  --%-28s %s, %s%s\n", d,
			    type_word[vf[i].f->type], vf[i].in,
			    (vf[i].f->flags & SW_F_REQUIRED) ? ", required"
							     : "");
		}
		return EX_OK;
	}
	arr = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(arr,
		    sw_jo("name", sw_js(vf[i].f->name), "in", sw_js(vf[i].in),
			"type", sw_js(type_word[vf[i].f->type]), "required",
			sw_jb((vf[i].f->flags & SW_F_REQUIRED) != 0), NULL));
	o = sw_jo("verb", sw_js(d), "operation", sw_js(op->name), "method",
	    sw_js(op->method), "path", sw_js(op->path), "fields", arr, NULL);
	printf("%s\n",
	    json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return EX_OK;
}

static int
cmd_completion(const char *shell)
{
	struct verb_field vf[MAX_ARGS];
	char d[128];
	size_t i, j, n;

	if (shell == NULL || strcmp(shell, "bash") != 0) {
		fprintf(stderr, "usage: slipway completion bash\n");
		return EX_USAGE;
	}
	printf("# bash completion for slipway, written from its operation "
	       "table\n_slipway() {\n  local cur=${COMP_WORDS[COMP_CWORD]}\n"
	       "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen "
	       "-W \"get describe delete create wait logs login plan apply "
	       "export verbs help context "
	       "completion");
	for (i = 0; i < sw_optable_len; i++)
		if (strncmp(sw_optable[i].path, "/api/v1/", 8) == 0) {
			dashed(sw_optable[i].name, d, sizeof(d));
			printf(" %s", d);
		}
	printf("\" -- \"$cur\"))\n    return\n  fi\n  case "
	       "${COMP_WORDS[1]} in\n");
	for (i = 0; i < sw_optable_len; i++) {
		if (strncmp(sw_optable[i].path, "/api/v1/", 8) != 0)
			continue;
		dashed(sw_optable[i].name, d, sizeof(d));
		printf("  %s) COMPREPLY=($(compgen -W \"-o --context", d);
		n = verb_fields(&sw_optable[i], vf, MAX_ARGS);
		for (j = 0; j < n; j++) {
			dashed(vf[j].f->name, d, sizeof(d));
			printf(" --%s", d);
		}
		printf("\" -- \"$cur\")) ;;\n");
	}
	printf("  esac\n}\ncomplete -F _slipway slipway\n");
	return EX_OK;
}

/* ---- the verbs people type ------------------------------------------- */

/* noun and what: "clusters", "list" -> cluster_list; a trailing s of
 * the noun goes when the plural names no row. */
static const struct sw_op *
noun_op(const char *noun, const char *what)
{
	char name[128];
	const struct sw_op *op;
	size_t l = strlen(noun);

	if (sw_fmt(name, sizeof(name), "%s-%s", noun, what) != SW_OK)
		return NULL;
	if ((op = op_of_verb(name)) != NULL || l < 2 || noun[l - 1] != 's')
		return op;
	if (sw_fmt(name, sizeof(name), "%.*s-%s", (int)(l - 1), noun, what) !=
	    SW_OK)
		return NULL;
	return op_of_verb(name);
}

/* The first path field of op, the NAME of describe and delete. */
static const char *
first_path_field(const struct sw_op *op)
{
	const struct sw_field *f;

	for (f = op->params; f != NULL && f->name != NULL; f++)
		if (f->flags & SW_F_PATH)
			return f->name;
	return NULL;
}

/* Options after the verb: --field value (or --field=value), -o, -f,
 * --context, --dry-run. */
static int
parse_opts(struct call *c, int argc, char **argv)
{
	struct verb_field vf[MAX_ARGS];
	size_t n = verb_fields(c->op, vf, MAX_ARGS);
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq, *val;
		char name[64], *p;

		if (strcmp(a, "-o") == 0 && i + 1 < argc) {
			c->output = argv[++i];
			continue;
		}
		if (strcmp(a, "-f") == 0 && i + 1 < argc) {
			json_object_put(c->body);
			c->body = json_object_from_file(argv[++i]);
			if (c->body == NULL ||
			    !json_object_is_type(c->body, json_type_object)) {
				fprintf(stderr,
				    "slipway: -f %s: not a JSON "
				    "object\n",
				    argv[i]);
				return -1;
			}
			continue;
		}
		if (strcmp(a, "--dry-run") == 0) {
			sw_json_add_str(c->args, "dry_run", "true");
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
			goto bad;
		a += 2;
		eq = strchr(a, '=');
		if (sw_fmt(name, sizeof(name), "%.*s",
			(int)(eq ? (size_t)(eq - a) : strlen(a)), a) != SW_OK)
			goto bad;
		for (p = name; *p != '\0'; p++)
			if (*p == '-')
				*p = '_';
		if (eq != NULL)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			goto bad;
		if (strcmp(name, "context") == 0) {
			c->context = val;
			continue;
		}
		if (field_named(vf, n, name) == NULL) {
			fprintf(stderr,
			    "slipway: %s takes no --%s (slipway "
			    "help %s)\n",
			    c->op->name, name, c->op->name);
			return -1;
		}
		sw_json_add_str(c->args, name, val);
	}
	if (strcmp(c->output, "json") != 0 && strcmp(c->output, "table") != 0) {
		fprintf(stderr, "slipway: -o is json or table\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "slipway: what is %s? (slipway help %s)\n", argv[i],
	    c->op->name);
	return -1;
}

static int
call_verb(const struct sw_op *op, const char *name_field, const char *name,
    int argc, char **argv)
{
	struct call c = { .op = op,
		.args = json_object_new_object(),
		.output = isatty(STDOUT_FILENO) ? "table" : "json" };
	int rc;

	if (name_field != NULL)
		sw_json_add_str(c.args, name_field, name);
	rc = parse_opts(&c, argc, argv) == 0 ? run_call(&c) : EX_USAGE;
	json_object_put(c.args);
	json_object_put(c.body);
	return rc;
}

/* ---- the fleet document: plan, apply, export -------------------------- */

struct fleet_args {
	const char *file, *context, *output;
	int yes;
};

static int
fleet_args(int argc, char **argv, struct fleet_args *a)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
			a->file = argv[++i];
		else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			a->output = argv[++i];
		else if (strcmp(argv[i], "--context") == 0 && i + 1 < argc)
			a->context = argv[++i];
		else if (strcmp(argv[i], "--yes") == 0)
			a->yes = 1;
		else {
			fprintf(stderr,
			    "slipway: what is %s? (plan -f FILE, "
			    "apply -f FILE [--yes], export) [-o json] "
			    "[--context NAME]\n",
			    argv[i]);
			return -1;
		}
	}
	return 0;
}

int
sw_cli_call(const char *name, json_object *args, json_object *body,
    const char *context, json_object **doc)
{
	struct call c = { .op = sw_op_by_name(name),
		.args = args,
		.body = body,
		.context = context,
		.output = "json" };
	struct sw_buf out;
	long status = 0;
	int rc;

	sw_buf_init(&out, 0);
	rc = send_call(&c, &status, doc, &out);
	if (rc == EX_OK && (rc = exit_of(status)) != EX_OK)
		print_problem(*doc, status);
	if (rc == EX_OK && *doc == NULL)
		rc = EX_SERVER;
	sw_buf_free(&out);
	return rc;
}

int
sw_cli_target(const char *context, const char **server, const char **token,
    json_object **all)
{
	const char *team;

	return target(context, server, token, &team, all);
}

/* Send row name with body (borrowed); its exit code, *doc the answer
 * (a problem printed). */
static int
fleet_send(const char *name, json_object *body, const struct fleet_args *a,
    json_object **doc)
{
	json_object *args = json_object_new_object();
	int rc = sw_cli_call(name, args, body, a->context, doc);

	json_object_put(args);
	return rc;
}

static void
print_plan(json_object *plan)
{
	json_object *ch = sw_json_get(plan, "changes");
	json_object *kept = sw_json_get(plan, "kept");
	json_object *per = sw_json_get(plan, "added_per_hour");
	size_t i, n = ch != NULL ? json_object_array_length(ch) : 0;

	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(ch, i);
		json_object *cost = sw_json_path(c, "cost.added_per_hour");

		printf("%2lld. %-22s %s\n      %s: %s%s\n",
		    (long long)sw_json_get_int(c, "order", 0),
		    sw_json_get_str(c, "operation"),
		    sw_json_get_str(c, "target"), sw_json_get_str(c, "reason"),
		    sw_json_get_str(c, "why"),
		    sw_json_get(c, "waits_for")
			? " (on a later apply, once the cluster is ready)"
			: "");
		if (cost != NULL && !json_object_is_type(cost, json_type_null))
			printf("      cost: %+.2f USD/hour\n",
			    json_object_get_double(cost));
	}
	for (i = 0; kept != NULL && i < json_object_array_length(kept); i++)
		printf("kept: %s (not in the document; prune is false)\n",
		    json_object_get_string(json_object_array_get_idx(kept, i)));
	if (n == 0)
		printf("No changes: the live state is the document.\n");
	else if (per != NULL && !json_object_is_type(per, json_type_null))
		printf("Plan: %zu change%s, %+.2f USD/hour.\n", n,
		    n == 1 ? "" : "s", json_object_get_double(per));
	else
		printf("Plan: %zu change%s (some price unknown).\n", n,
		    n == 1 ? "" : "s");
}

static int
plan_changes(json_object *plan)
{
	json_object *ch = sw_json_get(plan, "changes");

	return ch != NULL ? (int)json_object_array_length(ch) : 0;
}

/* Ask on the terminal; 1 for yes. */
static int
confirmed(int n)
{
	char line[16];

	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr,
		    "slipway: apply changes things: give --yes, "
		    "or run it on a terminal\n");
		return -1;
	}
	printf("Apply %d change%s? [y/N] ", n, n == 1 ? "" : "s");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

static void
print_started(json_object *doc)
{
	json_object *st = sw_json_get(doc, "started");
	size_t i;

	for (i = 0; st != NULL && i < json_object_array_length(st); i++) {
		json_object *s = json_object_array_get_idx(st, i);

		if (sw_json_get_str(s, "error") != NULL)
			printf("refused  %s %s: %lld %s\n",
			    sw_json_get_str(s, "operation"),
			    sw_json_get_str(s, "target"),
			    (long long)sw_json_get_int(s, "status", 0),
			    sw_json_get_str(s, "error"));
		else
			printf("started  %s %s%s%s\n",
			    sw_json_get_str(s, "operation"),
			    sw_json_get_str(s, "target"),
			    sw_json_get_str(s, "operation_id") ? ": operation "
							       : "",
			    sw_json_get_str(s, "operation_id")
				? sw_json_get_str(s, "operation_id")
				: "");
	}
	if (sw_json_get_int(doc, "deferred", 0) > 0)
		printf("%lld change(s) wait for a cluster being created: apply "
		       "again once it is ready\n",
		    (long long)sw_json_get_int(doc, "deferred", 0));
}

static void
print_doc(json_object *doc)
{
	printf("%s\n",
	    json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int
fleet_apply(json_object *body, const struct fleet_args *a)
{
	json_object *plan = NULL, *doc = NULL;
	int rc, n, ok;

	if ((rc = fleet_send("fleet_plan", body, a, &plan)) != EX_OK) {
		json_object_put(plan);
		return rc;
	}
	n = plan_changes(plan);
	if (a->output == NULL || strcmp(a->output, "json") != 0)
		print_plan(plan);
	json_object_put(plan);
	/* With no change, apply only records the document as applied. */
	if (n > 0 && !a->yes && (ok = confirmed(n)) <= 0)
		return ok == 0 ? EX_OK : EX_USAGE;
	if ((rc = fleet_send("fleet_apply", body, a, &doc)) == EX_OK) {
		if (a->output != NULL && strcmp(a->output, "json") == 0)
			print_doc(doc);
		else if (n > 0)
			print_started(doc);
		if (sw_json_get_int(doc, "failed", 0) > 0)
			rc = EX_INVALID;
	}
	json_object_put(doc);
	return rc;
}

/* slipway plan|apply -f FILE, slipway export: plan exits 0 when live is
 * the document and 2 when it would change something. */
static int
cmd_fleet(const char *verb, int argc, char **argv)
{
	struct fleet_args a = { 0 };
	json_object *body = NULL, *doc = NULL;
	char err[512];
	int rc;

	if (fleet_args(argc, argv, &a) != 0)
		return EX_USAGE;
	if (strcmp(verb, "export") == 0) {
		if ((rc = fleet_send("fleet_export", NULL, &a, &doc)) ==
		    EX_OK) {
			if (a.output != NULL && strcmp(a.output, "json") == 0)
				print_doc(doc);
			else if (sw_yaml_write(stdout, doc) != 0)
				rc = EX_SERVER;
		}
		json_object_put(doc);
		return rc;
	}
	if (a.file == NULL) {
		fprintf(stderr, "usage: slipway %s -f FILE%s\n", verb,
		    strcmp(verb, "apply") == 0 ? " [--yes]" : "");
		return EX_USAGE;
	}
	if ((body = sw_yaml_read(a.file, err, sizeof(err))) == NULL) {
		fprintf(stderr, "slipway: %s\n", err);
		return EX_USAGE;
	}
	if (strcmp(verb, "apply") == 0)
		rc = fleet_apply(body, &a);
	else if ((rc = fleet_send("fleet_plan", body, &a, &doc)) == EX_OK) {
		if (a.output != NULL && strcmp(a.output, "json") == 0)
			print_doc(doc);
		else
			print_plan(doc);
		rc = plan_changes(doc) > 0 ? 2 : EX_OK;
	}
	json_object_put(doc);
	json_object_put(body);
	return rc;
}

/* ---- slipway login --device ------------------------------------------- */

/* Send row name with body (borrowed) to the context; *status, *doc. */
static int
login_send(const char *name, json_object *body, const char *context,
    long *status, json_object **doc)
{
	struct call c = { .op = sw_op_by_name(name),
		.args = json_object_new_object(),
		.body = body,
		.context = context,
		.output = "json" };
	struct sw_buf out;
	int rc;

	sw_buf_init(&out, 0);
	if ((rc = send_call(&c, status, doc, &out)) == EX_OK &&
	    (rc = exit_of(*status)) != EX_OK)
		print_problem(*doc, *status);
	if (rc == EX_OK && *doc == NULL)
		rc = EX_SERVER;
	json_object_put(c.args);
	sw_buf_free(&out);
	return rc;
}

/* Keep the credential in the context named (or the current one). */
static int
login_store(const char *context, const char *token)
{
	json_object *all = contexts_load(),
		    *ctxs = sw_json_get(all, "contexts"), *c;
	const char *name =
	    context != NULL ? context : sw_json_get_str(all, "current");
	int rc = EX_OK;

	if (name == NULL || (c = sw_json_get(ctxs, name)) == NULL) {
		fprintf(stderr,
		    "slipway: no context to keep the sign-in in: "
		    "slipway context set NAME --server URL\n");
		rc = EX_USAGE;
	} else {
		sw_json_add_str(c, "token", token);
		sw_json_add_str(all, "current", name);
		if (contexts_save(all) != 0) {
			fprintf(stderr,
			    "slipway: cannot write the contexts "
			    "file\n");
			rc = EX_SERVER;
		}
	}
	json_object_put(all);
	return rc;
}

static void
login_pause(long s)
{
	struct timespec ts = { s > 0 ? s : 5, 0 };

	nanosleep(&ts, NULL);
}

/* Poll login_device_token until approved, refused or expired. */
static int
login_poll(const char *context, const char *device_code, long interval,
    long expires_in)
{
	json_object *body = sw_jo("device_code", sw_js(device_code), NULL);
	json_object *doc = NULL;
	time_t until = time(NULL) + expires_in;
	long status = 0;
	int rc;

	for (;;) {
		login_pause(interval);
		doc = NULL;
		if ((rc = login_send("login_device_token", body, context,
			 &status, &doc)) != EX_OK ||
		    status == 200)
			break;
		interval = (long)sw_json_get_int(doc, "interval", interval);
		json_object_put(doc);
		doc = NULL;
		if (time(NULL) >= until) {
			fprintf(stderr,
			    "slipway: the code expired before it "
			    "was approved; run slipway login --device again\n");
			rc = EX_REFUSED;
			break;
		}
	}
	if (rc == EX_OK && sw_json_get_str(doc, "token") != NULL &&
	    (rc = login_store(context, sw_json_get_str(doc, "token"))) == EX_OK)
		printf("Signed in as %s.\n",
		    sw_json_path_str(doc, "principal.name")
			? sw_json_path_str(doc, "principal.name")
			: "?");
	json_object_put(doc);
	json_object_put(body);
	return rc;
}

/* slipway login --device [--context NAME]: RFC 8628 through the
 * server; the person's credential is kept in the context. */
static int
cmd_login(int argc, char **argv)
{
	const char *context = NULL;
	json_object *doc = NULL;
	long status = 0;
	int i, device = 0, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--device") == 0)
			device = 1;
		else if (strcmp(argv[i], "--context") == 0 && i + 1 < argc)
			context = argv[++i];
		else
			device = -1;
	}
	if (device != 1) {
		fprintf(stderr,
		    "usage: slipway login --device [--context "
		    "NAME]\n");
		return EX_USAGE;
	}
	if ((rc = login_send("login_device", NULL, context, &status, &doc)) ==
	    EX_OK) {
		printf("To sign in, open %s\nand enter the code %s\n",
		    sw_json_get_str(doc, "verification_uri"),
		    sw_json_get_str(doc, "user_code"));
		if (sw_json_get_str(doc, "verification_uri_complete") != NULL)
			printf("(or open %s)\n",
			    sw_json_get_str(doc, "verification_uri_complete"));
		printf("Waiting for the approval...\n");
		fflush(stdout);
		rc = login_poll(context, sw_json_get_str(doc, "device_code"),
		    (long)sw_json_get_int(doc, "interval", 5),
		    (long)sw_json_get_int(doc, "expires_in", 600));
	}
	json_object_put(doc);
	return rc;
}

int
sw_cli_client(int argc, char **argv)
{
	const char *verb = argv[0], *what = NULL;
	const struct sw_op *op;

	if (strcmp(verb, "context") == 0)
		return cmd_context(argc, argv);
	if (strcmp(verb, "verbs") == 0)
		return cmd_verbs();
	if (strcmp(verb, "help") == 0 && argc >= 2)
		return cmd_help(
		    argv[1], argc >= 3 && strcmp(argv[2], "--json") == 0);
	if (strcmp(verb, "completion") == 0)
		return cmd_completion(argc > 1 ? argv[1] : NULL);
	if (strcmp(verb, "plan") == 0 || strcmp(verb, "apply") == 0 ||
	    strcmp(verb, "export") == 0)
		return cmd_fleet(verb, argc, argv);
	if (strcmp(verb, "logs") == 0)
		return sw_cli_logs(argc, argv);
	/* login --device is the device flow; login alone the row's verb. */
	if (strcmp(verb, "login") == 0 && argc >= 2 &&
	    (strcmp(argv[1], "--device") == 0 ||
		(argc >= 4 && strcmp(argv[3], "--device") == 0)))
		return cmd_login(argc, argv);
	if (strcmp(verb, "wait") == 0 && argc >= 2)
		return call_verb(op_of_verb("operation-wait"), "id", argv[1],
		    argc - 2, argv + 2);
	if (strcmp(verb, "get") == 0)
		what = "list";
	else if (strcmp(verb, "describe") == 0)
		what = "get";
	else if (strcmp(verb, "delete") == 0)
		what = "delete";
	else if (strcmp(verb, "create") == 0)
		what = "create";
	if (what != NULL) {
		if (argc < 2 || (op = noun_op(argv[1], what)) == NULL) {
			fprintf(stderr, "slipway: %s what? (slipway verbs)\n",
			    verb);
			return EX_USAGE;
		}
		if ((strcmp(what, "get") == 0 || strcmp(what, "delete") == 0) &&
		    argc >= 3 && argv[2][0] != '-') {
			return call_verb(op, first_path_field(op), argv[2],
			    argc - 3, argv + 3);
		}
		return call_verb(op, NULL, NULL, argc - 2, argv + 2);
	}
	if ((op = op_of_verb(verb)) == NULL) {
		fprintf(stderr, "slipway: no verb %s (slipway verbs)\n", verb);
		return EX_USAGE;
	}
	return call_verb(op, NULL, NULL, argc - 1, argv + 1);
}
