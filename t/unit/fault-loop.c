/*
 * fault-loop.c: the fault-injection loop of t/57-fault-loop.t.  Runs the
 * whole worker path of three requests in process, as slipway-api and
 * slipway-mcp run them (router, handler, AWS calls to the sandbox of a
 * running stack, the operation written to SQLite):
 *
 *	create	POST /api/v1/clusters (cluster_create)
 *	feature	PATCH /api/v1/clusters/{name}/features (feature_set)
 *	mcp	tools/call cluster_create through sw_mcp_handle()
 *
 * For each, first with no fault, counting the fault points of each kind
 * (lib/fault.h) the request passes; then once per point: the Nth
 * allocation fails (alloc:N), the Nth SQLite call (sqlite:N), the Nth
 * HTTP request and every later one (http:N+: the service is gone from
 * there on; one refused connection alone is retried away).  Each run is a
 * child process with a state database of its own, so a crash or a
 * sanitizer report names its run and spares the others.  A run passes
 * when:
 *
 *	- the answer is clean: a problem+json 4xx/5xx (REST) or a JSON-RPC
 *	  error or isError result (MCP), or a success whose operation is in
 *	  the database;
 *	- the database is whole: PRAGMA integrity_check says ok, no
 *	  transaction was left open, and every operation in it is pending
 *	  with all the stages of its pipeline and its first event (a half-
 *	  written one could never run);
 *	- the same request again, with no fault, in the same process (the
 *	  worker serves the next request) succeeds: 202 with the operation
 *	  (the one recorded before, when the failed answer came after the
 *	  commit), and one operation is in the database;
 *	- the child exits 0 (under ASan/LSan: no leak, no error).
 *
 * usage: fault-loop STATE_DIR CLUSTER INSTANCE_TYPE ZONE [SCENARIO...]
 * STATE_DIR is a running stack's (for config.json: the sandbox's
 * endpoint and keys); its state.db is never touched.  Prints TAP.
 */
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "handlers/table.h"
#include "lib/auth.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/fault.h"
#include "lib/json.h"
#include "lib/ops.h"
#include "mcp/mcp.h"
#include "api/req.h"
#include "api/router.h"
#include "pipelines/pipeline.h"
#include "t/tap.h"

#ifndef SW_FAULT_INJECTION
int
main(void)
{
	skip_all("built with --disable-fault-injection");
	return 0;
}
#else

/* Runs of one kind stop here even when the fault still fires. */
#define MAX_POINTS 3000

static struct sw_config cfg;
static const char *cluster, *itype, *zone;
static char logdir[64];
static char token[SW_TOKEN_LEN]; /* of the template database */
/* Frames of an allocation's call stack that tell its sites apart. */
static int depth = 4;
static long max_points = MAX_POINTS;
/* Runs at a time: most of a run waits on the sandbox or on a retry. */
#define MAX_JOBS 8
static int njobs = 3;

/* What one request came to. */
struct outcome {
	int status; /* HTTP status */
	int clean; /* a well-formed answer */
	int success; /* it started (or found) an operation */
	char op_id[64];
	char why[256]; /* what was not clean */
};

/* A child's state: its own database and MCP endpoint. */
struct run {
	char dir[96];
	struct sw_db *db;
	const char *token;
	struct sw_mcp mcp;
	int mcp_ready;
};

typedef void (*request_fn)(struct run *, struct outcome *);

/* ---- the requests ---------------------------------------------------- */

/* A REST request through the router, rendered as slipway-api does. */
static void
rest(struct run *u, const char *method, const char *uri, const char *body,
    struct outcome *o)
{
	struct sw_req r;
	struct sw_buf out;
	json_object *doc = NULL;
	char authz[SW_TOKEN_LEN + 16], why[128];
	const char *text, *sep, *ct;

	memset(o, 0, sizeof(*o));
	snprintf(authz, sizeof(authz), "Bearer %s", u->token);
	sw_req_from_env(&r, NULL);
	r.method = method;
	r.uri = uri;
	r.authorization = authz;
	r.host = "127.0.0.1:3099";
	r.content_type = "application/json";
	r.idem_key = "fault-loop-1";
	r.body = body;
	r.body_len = strlen(body);
	r.db = u->db;
	r.cfg = &cfg;
	sw_route(&r, sw_handler_table);
	sw_buf_init(&out, 0);
	if (sw_req_render(&r, &out) != SW_OK) {
		/* slipway-api's own answer then (cgi/api.c). */
		sw_req_free(&r);
		sw_buf_free(&out);
		o->status = 500;
		o->clean = 1;
		return;
	}
	sw_req_free(&r);
	text = sw_buf_str(&out);
	if (sscanf(text, "Status: %d", &o->status) != 1)
		o->status = 200;
	ct = strstr(text, "Content-Type: ");
	if ((sep = strstr(text, "\r\n\r\n")) == NULL) {
		snprintf(o->why, sizeof(o->why), "no header end");
		goto out;
	}
	sep += 4;
	if (sw_json_parse(sep, strlen(sep), &doc, why, sizeof(why)) != SW_OK) {
		snprintf(o->why, sizeof(o->why), "%d body is not JSON: %s",
		    o->status, why);
		goto out;
	}
	if (o->status >= 400) {
		if (ct == NULL ||
		    strncmp(ct + 14, "application/problem+json", 24) != 0 ||
		    sw_json_get_int(doc, "status", 0) != o->status)
			snprintf(o->why, sizeof(o->why),
			    "%d is not a problem "
			    "document: %.120s",
			    o->status, sep);
		else
			o->clean = 1;
		goto out;
	}
	if (o->status == 202 && sw_json_get_str(doc, "operation_id")) {
		snprintf(o->op_id, sizeof(o->op_id), "%s",
		    sw_json_get_str(doc, "operation_id"));
		o->clean = o->success = 1;
	} else
		snprintf(o->why, sizeof(o->why), "unexpected %d: %.120s",
		    o->status, sep);
out:
	json_object_put(doc);
	sw_buf_free(&out);
}

static const char *
create_body(const char *name, char *buf, size_t sz)
{
	snprintf(buf, sz,
	    "{\"name\":\"%s\",\"instance_groups\":[{\"name\":"
	    "\"w\",\"instance_type\":\"%s\",\"count\":1,"
	    "\"availability_zone\":\"%s\"}]}",
	    name, itype, zone);
	return buf;
}

static void
req_create(struct run *u, struct outcome *o)
{
	char body[512];

	rest(u, "POST", "/api/v1/clusters",
	    create_body("fl-rest", body, sizeof(body)), o);
}

static void
req_feature(struct run *u, struct outcome *o)
{
	char uri[256];

	snprintf(uri, sizeof(uri), "/api/v1/clusters/%s/features", cluster);
	rest(u, "PATCH", uri, "{\"training_operator\":true}", o);
}

/* tools/call cluster_create in the 2026-07-28 era, as an agent sends it. */
static void
req_mcp(struct run *u, struct outcome *o)
{
	struct sw_mcp_http in;
	struct sw_mcp_answer a;
	json_object *doc = NULL, *res, *sc;
	char authz[SW_TOKEN_LEN + 16], args[512], body[2048], why[128];

	memset(o, 0, sizeof(*o));
	snprintf(authz, sizeof(authz), "Bearer %s", u->token);
	snprintf(body, sizeof(body),
	    "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":"
	    "\"cluster_create\",\"arguments\":%s,\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"%s\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{},"
	    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"fault-loop\","
	    "\"version\":\"1\"}}}}",
	    create_body("fl-mcp", args, sizeof(args)), SW_MCP_MODERN_VERSION);
	memset(&in, 0, sizeof(in));
	in.method = "POST";
	in.authorization = authz;
	in.host = "127.0.0.1:3099";
	in.content_type = "application/json";
	in.accept = "application/json, text/event-stream";
	in.protocol_version = SW_MCP_MODERN_VERSION;
	in.mcp_method = "tools/call";
	in.mcp_name = "cluster_create";
	in.body = body;
	in.body_len = strlen(body);
	sw_mcp_answer_init(&a);
	sw_mcp_handle(&u->mcp, &in, &a);
	o->status = a.status;
	if (a.content_type == NULL ||
	    strcmp(a.content_type, "application/json") != 0 ||
	    sw_json_parse(sw_buf_str(&a.body), a.body.len, &doc, why,
		sizeof(why)) != SW_OK) {
		snprintf(o->why, sizeof(o->why),
		    "%d answer is not JSON: %s "
		    "%.120s",
		    a.status, a.content_type ? a.content_type : "(none)",
		    sw_buf_str(&a.body));
		goto out;
	}
	if (sw_json_get(doc, "error") != NULL) {
		o->clean = sw_json_path(doc, "error.code") != NULL &&
		    sw_json_path_str(doc, "error.message") != NULL;
		if (!o->clean)
			snprintf(o->why, sizeof(o->why),
			    "bad JSON-RPC error: "
			    "%.120s",
			    sw_buf_str(&a.body));
		goto out;
	}
	if (a.status != 200 || (res = sw_json_get(doc, "result")) == NULL) {
		snprintf(o->why, sizeof(o->why),
		    "%d without result or error: "
		    "%.120s",
		    a.status, sw_buf_str(&a.body));
		goto out;
	}
	sc = sw_json_get(res, "structuredContent");
	if (sw_json_get_bool(res, "isError", 0)) {
		/* The REST problem rides along as structured content. */
		o->status = (int)sw_json_get_int(sc, "status", 0);
		o->clean = o->status >= 400 && sw_json_get(res, "content");
		if (!o->clean)
			snprintf(o->why, sizeof(o->why),
			    "isError without a "
			    "problem: %.120s",
			    sw_buf_str(&a.body));
		goto out;
	}
	if (sw_json_get_str(sc, "operation_id") != NULL) {
		snprintf(o->op_id, sizeof(o->op_id), "%s",
		    sw_json_get_str(sc, "operation_id"));
		o->status = 202;
		o->clean = o->success = 1;
	} else
		snprintf(o->why, sizeof(o->why),
		    "result without an "
		    "operation: %.120s",
		    sw_buf_str(&a.body));
out:
	json_object_put(doc);
	sw_mcp_answer_free(&a);
}

/* ---- the database after a run ---------------------------------------- */

/* 0 when the database is whole (see the top); *nops gets the number of
 * operations.  why says what is wrong. */
static int
db_whole(struct run *u, int *nops, char *why, size_t whysz)
{
	struct sw_st *st = NULL;
	const struct sw_pipeline *pl;
	const char *const *names;
	int rc, want, bad = 0;

	*nops = 0;
	if (sw_db_txn(u->db) == SW_TXN_WRITE) {
		snprintf(why, whysz, "a transaction was left open");
		return -1;
	}
	if (sw_db_prepare(u->db, "PRAGMA integrity_check", &st) != SW_OK ||
	    sw_db_step(st) != SW_DB_ROW ||
	    strcmp(sw_col_text(st, 0), "ok") != 0) {
		snprintf(why, whysz, "integrity_check: %s",
		    st ? sw_col_text(st, 0) : "no statement");
		sw_st_free(st);
		return -1;
	}
	sw_st_free(st);
	if (sw_db_prepare(u->db,
		"SELECT o.id, o.kind, o.state,"
		" (SELECT count(*) FROM stages s WHERE s.op_id = o.id"
		"  AND s.state = 'pending'),"
		" (SELECT count(*) FROM events e WHERE e.op_id = o.id)"
		" FROM operations o",
		&st) != SW_OK) {
		snprintf(why, whysz, "cannot read operations");
		return -1;
	}
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		(*nops)++;
		pl = sw_pipeline_find(sw_col_text(st, 1));
		names = pl ? sw_pipeline_stage_names(pl) : NULL;
		for (want = 0; names != NULL && names[want] != NULL; want++)
			;
		if (pl == NULL || strcmp(sw_col_text(st, 2), "pending") != 0 ||
		    sw_col_int(st, 3) != want || want == 0 ||
		    sw_col_int(st, 4) < 1) {
			snprintf(why, whysz,
			    "operation %s (%s) is %s with "
			    "%d of %d stages and %d events",
			    sw_col_text(st, 0), sw_col_text(st, 1),
			    sw_col_text(st, 2), sw_col_int(st, 3), want,
			    sw_col_int(st, 4));
			bad = 1;
		}
	}
	sw_st_free(st);
	if (rc != SW_DB_DONE && !bad) {
		snprintf(why, whysz, "reading operations: %d", rc);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* ---- one run, in a child --------------------------------------------- */

/* Copy the file from to to; 0 on success. */
static int
copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in, out, rc = 0;

	if ((in = open(from, O_RDONLY)) < 0)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	close(out);
	return rc;
}

/* A run's state: a copy of the template database (migrated, with the
 * admin token) in a directory of its own. */
static int
run_open(struct run *u, int with_mcp)
{
	char path[128], tmpl[128];

	memset(u, 0, sizeof(*u));
	u->token = token;
	snprintf(u->dir, sizeof(u->dir), "%s/db-XXXXXX", logdir);
	if (mkdtemp(u->dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/state.db", u->dir);
	snprintf(tmpl, sizeof(tmpl), "%s/template.db", logdir);
	if (copy_file(tmpl, path) != 0 || sw_db_open(path, &u->db) != SW_OK)
		return -1;
	if (with_mcp) {
		if (sw_mcp_init(&u->mcp, &cfg, u->db, sw_handler_table) !=
		    SW_OK)
			return -1;
		u->mcp_ready = 1;
	}
	return 0;
}

/* The template every run copies: a token, and the record by which the
 * stack owns the cluster the feature change is made to. */
static int
make_template(void)
{
	struct sw_cluster_rec rec, made;
	struct sw_db *db, *live;
	char path[128];
	sw_err e;

	if (sw_db_open(cfg.db_path, &live) != SW_OK)
		return -1;
	e = sw_cluster_get(live, cluster, &rec);
	sw_db_close(live);
	if (e != SW_OK)
		return -1;
	snprintf(path, sizeof(path), "%s/template.db", logdir);
	if (sw_db_open(path, &db) != SW_OK)
		return -1;
	if ((e = sw_token_create(db, "fault-admin", SW_SCOPE_ADMIN, token)) ==
	    SW_OK)
		e = sw_cluster_record(db, cluster, rec.id, rec.origin, &made);
	sw_db_close(db); /* the last close folds the WAL back */
	return e == SW_OK ? 0 : -1;
}

/* Remove dir's files and, one level down, the state directories of
 * runs that died before cleaning up; then dir itself. */
static void
remove_tree(const char *dir, int depth_left)
{
	char path[512];
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			de->d_name) >= sizeof(path))
			continue;
		if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (depth_left > 0)
				remove_tree(path, depth_left - 1);
		} else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* ---- which allocations to fail ------------------------------------- */

/*
 * The clean run records where each allocation comes from: a hash of the
 * innermost frames of its call stack.  The same site reached the same
 * way (a header copied for each of twenty AWS calls) fails the same
 * way, so the loop fails the first allocation of each distinct stack;
 * an AWS call failing as a whole is what http:N covers for every call.
 */
#define MAX_SITES 8192
static struct {
	uint64_t hash[MAX_SITES];
	long first[MAX_SITES];
	int n;
} sites;

static void
record_site(enum sw_fault_kind kind, long n)
{
	void *frames[32];
	uint64_t h = 1469598103934665603ULL;
	int got, i;

	if (kind != SW_FAULT_ALLOC || sites.n >= MAX_SITES)
		return;
	got = backtrace(frames, 32);
	/* frames[0] is this function, frames[1] sw_fault_hit. */
	for (i = 2; i < got && i < 2 + depth; i++) {
		h ^= (uint64_t)(uintptr_t)frames[i];
		h *= 1099511628211ULL;
	}
	for (i = 0; i < sites.n; i++)
		if (sites.hash[i] == h)
			return;
	sites.hash[sites.n] = h;
	sites.first[sites.n++] = n;
}

/* Write the first allocation of each site to path, one a line. */
static void
write_sites(const char *path)
{
	FILE *f = fopen(path, "w");
	int i;

	if (f == NULL)
		return;
	for (i = 0; i < sites.n; i++)
		fprintf(f, "%ld\n", sites.first[i]);
	fclose(f);
}

static void
run_close(struct run *u)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char path[128];
	int i;

	if (u->mcp_ready)
		sw_mcp_free(&u->mcp);
	sw_db_close(u->db);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/state.db%s", u->dir, sfx[i]);
		unlink(path);
	}
	rmdir(u->dir);
}

/*
 * The child: run fn under spec (NULL: no fault), check, and write one
 * line to fd: "fired alloc sqlite http status verdict" where verdict is
 * "ok" or the reason.
 */
static int
child(request_fn fn, int with_mcp, const char *spec, int fd)
{
	struct run u;
	struct outcome o, again;
	long fired, n[SW_FAULT__MAX];
	char why[300] = "", line[600];
	int nops = 0, k;
	FILE *f;

	if (run_open(&u, with_mcp) != 0) {
		snprintf(why, sizeof(why), "cannot set up the run");
		goto report;
	}
	if (sw_fault_arm(spec) != 0) {
		snprintf(why, sizeof(why), "bad fault %s", spec);
		goto report;
	}
	if (spec == NULL)
		sw_fault_watch(record_site);
	fn(&u, &o);
	sw_fault_watch(NULL);
	if (spec == NULL) {
		snprintf(line, sizeof(line), "%s/sites", logdir);
		write_sites(line);
	}
	fired = sw_fault_fired();
	for (k = 0; k < SW_FAULT__MAX; k++)
		n[k] = sw_fault_count((enum sw_fault_kind)k);
	(void)sw_fault_arm(NULL);
	if (!o.clean)
		snprintf(why, sizeof(why), "answer not clean: %s", o.why);
	else if (db_whole(&u, &nops, why, sizeof(why)) != 0)
		;
	else if (o.success && nops != 1)
		snprintf(why, sizeof(why),
		    "answered %s but %d operations are "
		    "recorded",
		    o.op_id, nops);
	else if (spec == NULL && !o.success)
		snprintf(
		    why, sizeof(why), "failed with no fault: %d", o.status);
	else {
		/* The worker's next request: the same one, no fault. */
		fn(&u, &again);
		if (!again.success && !(again.status == 409 && nops == 1))
			snprintf(why, sizeof(why),
			    "the request again with no "
			    "fault: %d %s",
			    again.status, again.why);
		else if (db_whole(&u, &nops, why, sizeof(why)) != 0)
			;
		else if (nops != 1)
			snprintf(why, sizeof(why),
			    "%d operations after the "
			    "request again",
			    nops);
		else if (o.success && again.success &&
		    strcmp(o.op_id, again.op_id) != 0)
			snprintf(why, sizeof(why),
			    "the same request made a "
			    "second operation");
	}
	snprintf(line, sizeof(line), "%ld %ld %ld %ld %d %s\n", fired,
	    n[SW_FAULT_ALLOC], n[SW_FAULT_SQLITE], n[SW_FAULT_HTTP], o.status,
	    why[0] ? why : "ok");
	goto write;
report:
	fired = 0;
	snprintf(line, sizeof(line), "0 0 0 0 0 %s\n", why);
write:
	if ((f = fdopen(fd, "w")) != NULL) {
		fputs(line, f);
		fclose(f);
	}
	run_close(&u);
	sw_config_free(&cfg);
	return 0;
}

/* Result of a run as the parent sees it. */
struct result {
	long fired;
	long count[SW_FAULT__MAX];
	int status;
	char verdict[400];
};

/* A run in flight: its child, the read end of its report, its log. */
struct job {
	pid_t pid;
	int fd;
	char spec[64];
	char log[128];
};

/* Fork a run of fn under spec (NULL: none) in slot; -1 on failure. */
static int
start(struct job *j, int slot, request_fn fn, int with_mcp, const char *spec)
{
	int p[2], lfd;

	snprintf(j->spec, sizeof(j->spec), "%s", spec ? spec : "none");
	snprintf(j->log, sizeof(j->log), "%s/run%d.log", logdir, slot);
	if (pipe(p) != 0)
		return -1;
	fflush(stdout);
	if ((j->pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (j->pid == 0) {
		close(p[0]);
		if ((lfd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >=
		    0) {
			dup2(lfd, 2);
			close(lfd);
		}
		exit(child(fn, with_mcp, spec, p[1]));
	}
	close(p[1]);
	j->fd = p[0];
	return 0;
}

/* Wait for a run; 0 when it ran to its report and exited 0. */
static int
finish(struct job *j, struct result *res)
{
	char buf[600];
	ssize_t got;
	size_t len = 0;
	int st = 0;

	memset(res, 0, sizeof(*res));
	while (len + 1 < sizeof(buf) &&
	    (got = read(j->fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)got;
	buf[len] = '\0';
	close(j->fd);
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (sscanf(buf, "%ld %ld %ld %ld %d %399[^\n]", &res->fired,
		&res->count[0], &res->count[1], &res->count[2], &res->status,
		res->verdict) != 6)
		snprintf(res->verdict, sizeof(res->verdict), "no report");
	if (WIFSIGNALED(st))
		snprintf(res->verdict, sizeof(res->verdict),
		    "killed by "
		    "signal %d",
		    WTERMSIG(st));
	else if (WEXITSTATUS(st) != 0)
		snprintf(res->verdict, sizeof(res->verdict),
		    "exit %d (a "
		    "sanitizer report?)",
		    WEXITSTATUS(st));
	return strcmp(res->verdict, "ok") == 0 ? 0 : -1;
}

/* The log of a run, for a failure's diagnostics. */
static void
show_log(const struct job *j)
{
	char line[512];
	FILE *f;
	int n = 0;

	if ((f = fopen(j->log, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL && n++ < 60) {
		line[strcspn(line, "\n")] = '\0';
		diag("  %s", line);
	}
	fclose(f);
}

static const char *const kind_name[SW_FAULT__MAX] = { "alloc", "sqlite",
	"http" };

/* The allocations the clean run chose (record_site), ascending. */
static long *
read_sites(long *n)
{
	char path[128];
	long *v = NULL, x, *nv;
	size_t cap = 0;
	FILE *f;

	*n = 0;
	snprintf(path, sizeof(path), "%s/sites", logdir);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	while (fscanf(f, "%ld", &x) == 1) {
		if ((size_t)*n == cap) {
			cap = cap ? 2 * cap : 256;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				break;
			v = nv;
		}
		v[(*n)++] = x;
	}
	fclose(f);
	unlink(path);
	return v;
}

static void
scenario(const char *name, request_fn fn, int with_mcp)
{
	struct job jobs[MAX_JOBS];
	struct result clean, r;
	char spec[64];
	long n, i, failures, runs, *alloc_at, nalloc;
	int k, b, nj, done;
	time_t t0;

	if (start(&jobs[0], 0, fn, with_mcp, NULL) != 0 ||
	    finish(&jobs[0], &clean) != 0) {
		ok(0, "%s: succeeds with no fault", name);
		diag("%s", clean.verdict);
		show_log(&jobs[0]);
		return;
	}
	alloc_at = read_sites(&nalloc);
	ok(1,
	    "%s: succeeds with no fault (%ld allocations from %ld call "
	    "stacks, %ld SQLite calls, %ld HTTP requests)",
	    name, clean.count[0], nalloc, clean.count[1], clean.count[2]);
	for (k = 0; k < SW_FAULT__MAX; k++) {
		t0 = time(NULL);
		failures = runs = 0;
		done = 0;
		/* Allocations: the first of each call stack.  The others:
		 * every one until one does not fire.  njobs at a time. */
		for (i = 0; !done && i < max_points; i += nj) {
			for (nj = 0; nj < njobs && i + nj < max_points; nj++) {
				if (k == SW_FAULT_ALLOC && i + nj >= nalloc)
					break;
				n = k == SW_FAULT_ALLOC ? alloc_at[i + nj]
							: i + nj + 1;
				snprintf(spec, sizeof(spec), "%s:%ld%s",
				    kind_name[k], n,
				    k == SW_FAULT_HTTP ? "+" : "");
				if (start(&jobs[nj], nj, fn, with_mcp, spec) !=
				    0)
					break;
			}
			for (b = 0; b < nj; b++) {
				runs++;
				if (finish(&jobs[b], &r) != 0) {
					if (failures++ < 5) {
						diag("%s %s: %s", name,
						    jobs[b].spec, r.verdict);
						show_log(&jobs[b]);
					}
				} else if (r.fired == 0)
					done = 1;
			}
			if (k == SW_FAULT_ALLOC && i + nj >= nalloc)
				done = 1;
			if (nj == 0)
				break;
		}
		ok(failures == 0 && done,
		    "%s: %ld %s faults, each ends "
		    "cleanly (%lds)",
		    name, k == SW_FAULT_ALLOC ? runs : runs - 1, kind_name[k],
		    (long)(time(NULL) - t0));
		if (failures > 0)
			diag("%s: %ld of %ld %s runs failed", name, failures,
			    runs, kind_name[k]);
		if (!done)
			diag("%s: %s faults still fired after %ld runs", name,
			    kind_name[k], runs);
	}
	free(alloc_at);
}

int
main(int argc, char *argv[])
{
	int i;

	if (argc < 5) {
		fprintf(stderr,
		    "usage: fault-loop STATE_DIR CLUSTER "
		    "INSTANCE_TYPE ZONE [create|feature|mcp...]\n");
		return 2;
	}
	cluster = argv[2];
	itype = argv[3];
	zone = argv[4];
	signal(SIGPIPE, SIG_IGN);
	if (getenv("FAULT_LOOP_MAX") != NULL)
		max_points = strtol(getenv("FAULT_LOOP_MAX"), NULL, 10);
	if (sw_config_load(argv[1], &cfg) != SW_OK) {
		fprintf(stderr, "cannot read %s/config.json\n", argv[1]);
		return 2;
	}
	snprintf(logdir, sizeof(logdir), "/tmp/sw-fault-log-XXXXXX");
	if (mkdtemp(logdir) == NULL || make_template() != 0) {
		fprintf(stderr, "cannot make the template database\n");
		return 2;
	}
	if (getenv("FAULT_LOOP_JOBS") != NULL)
		njobs = (int)strtol(getenv("FAULT_LOOP_JOBS"), NULL, 10);
	if (njobs < 1 || njobs > MAX_JOBS)
		njobs = 1;
	if (getenv("FAULT_LOOP_DEPTH") != NULL)
		depth = (int)strtol(getenv("FAULT_LOOP_DEPTH"), NULL, 10);
	for (i = argc == 5 ? 4 : 5; i < argc; i++) {
		const char *s = i == 4 ? NULL : argv[i];

		if (s == NULL || strcmp(s, "create") == 0)
			scenario("cluster_create", req_create, 0);
		if (s == NULL || strcmp(s, "feature") == 0)
			scenario("feature_set", req_feature, 0);
		if (s == NULL || strcmp(s, "mcp") == 0)
			scenario("mcp tools/call", req_mcp, 1);
	}
	remove_tree(logdir, 1);
	sw_config_free(&cfg);
	return tap_done();
}
#endif
