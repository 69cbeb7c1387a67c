/*
 * api.c: slipway-api, the REST worker.  A FastCGI responder that
 * accepts one request at a time on the socket it inherits as fd 0
 * (the launcher runs several of these), reads the body under the size
 * cap, and hands the request to the router in lib/.  Run outside
 * FastCGI it serves one request as plain CGI.
 *
 * Request path, file by file:
 *   nginx/slipway.conf.in  location /api/  -> this process
 *   lib/router.c           route, authenticate, authorize, validate
 *   lib/optable.c          the row that names the handler
 *   handlers/<family>.c    the handler
 *   lib/ops.c              the operation a mutation records
 */
#include <errno.h>
#include <fcgiapp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/req.h"
#include "lib/router.h"
#include "handlers/table.h"

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
	FCGX_ShutdownPending();
}

/* Read CONTENT_LENGTH bytes (capped) from in into body. */
static void
read_body(FCGX_Stream *in, FCGX_ParamArray envp, struct sw_buf *body,
    struct sw_req *r)
{
	const char *cl = FCGX_GetParam("CONTENT_LENGTH", envp);
	char chunk[8192];
	long long want = 0;
	char *end;
	int n;

	if (cl != NULL && cl[0] != '\0') {
		errno = 0;
		want = strtoll(cl, &end, 10);
		if (errno != 0 || *end != '\0' || want < 0)
			want = 0;
	}
	if (want > SW_MAX_BODY) {
		r->body_too_big = 1;
		return;
	}
	while (want > 0 && (n = FCGX_GetStr(chunk, (int)(want <
	    (long long)sizeof(chunk) ? want : (long long)sizeof(chunk)),
	    in)) > 0) {
		if (sw_buf_add(body, chunk, (size_t)n) != SW_OK) {
			r->body_too_big = 1;
			return;
		}
		want -= n;
	}
}

static void
serve(FCGX_Request *fr, struct sw_db *db, const struct sw_config *cfg)
{
	struct sw_buf body, out;
	struct sw_req r;

	sw_buf_init(&body, SW_MAX_BODY);
	sw_buf_init(&out, 0);
	sw_req_from_env(&r, fr->envp);
	r.db = db;
	r.cfg = cfg;
	read_body(fr->in, fr->envp, &body, &r);
	r.body = sw_buf_str(&body);
	r.body_len = body.len;
	sw_route(&r, sw_handler_table);
	if (sw_req_render(&r, &out) != SW_OK) {
		sw_buf_reset(&out);
		(void)sw_buf_puts(&out, "Status: 500 Internal Server Error\r\n"
		    "Content-Type: application/problem+json\r\n\r\n"
		    "{\"type\":\"/problems/internal\",\"title\":"
		    "\"Internal error\",\"status\":500}");
	}
	FCGX_PutStr(out.data, (int)out.len, fr->out);
	if (r.err != SW_OK && sw_err_http_status(r.err) >= 500)
		sw_warn("%s %s -> %d %s", r.method, r.uri,
		    sw_err_http_status(r.err), r.detail);
	sw_req_free(&r);
	sw_buf_free(&body);
	sw_buf_free(&out);
}

int
main(int argc, char *argv[])
{
	struct sw_config cfg;
	struct sw_db *db = NULL;
	struct sigaction sa;
	FCGX_Request fr;
	const char *dir;
	int rc = 1;

	(void)argc;
	(void)argv;
	sw_log_init("slipway-api");
	dir = sw_config_state_dir(NULL);
	if (dir == NULL) {
		sw_error("SLIPWAY_STATE_DIR is not set");
		return 1;
	}
	if (sw_config_load(dir, &cfg) != SW_OK) {
		sw_error("cannot read the configuration in %s", dir);
		return 1;
	}
	if (sw_db_open(cfg.db_path, &db) != SW_OK) {
		sw_error("cannot open %s", cfg.db_path);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (FCGX_Init() != 0 || FCGX_InitRequest(&fr, 0, 0) != 0) {
		sw_error("FastCGI initialisation failed");
		goto out;
	}
	while (!stop) {
		/* A failed accept (a connection reset before it was read,
		 * say) is not a reason to exit: only a stop request is. */
		if (FCGX_Accept_r(&fr) < 0) {
			struct timespec nap = { 0, 10 * 1000 * 1000 };

			if (stop)
				break;
			nanosleep(&nap, NULL);
			continue;
		}
		serve(&fr, db, &cfg);
		FCGX_Finish_r(&fr);
		if (FCGX_IsCGI())
			break;
	}
	FCGX_Free(&fr, 1);
	rc = 0;
out:
	sw_db_close(db);
	sw_config_free(&cfg);
	return rc;
}
