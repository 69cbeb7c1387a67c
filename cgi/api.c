/*
 * api.c: slipway-api, the REST worker.  A FastCGI responder (the loop
 * is api/fcgi.c) that reads the body under the size cap and hands the
 * request to the router in lib/ with this program's handler table.
 *
 * Two roles, one program:
 *   slipway-api         a request worker on run/api.sock
 *   slipway-api --wait  a wait worker on run/wait.sock: nginx sends every
 *                       long poll (.../operations/{id}:wait) here, so a
 *                       long poll never holds a request worker
 * Both take the same per-token long-poll slots (api/router.h).
 *
 * Request path, file by file:
 *   nginx/slipway.conf.in  location /api/ (and :wait) -> this process
 *   api/fcgi.c             accept loop, body cap
 *   api/router.c           route, authenticate, authorize, validate
 *   api/optable.c          the row
 *   handlers/table.c       the row's handler
 *   handlers/<family>.c    the handler
 *   lib/ops.c              the operation a mutation records
 */
#include <stdio.h>
#include <string.h>

#include "cgi/cgi.h"
#include "handlers/table.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/daemon.h"
#include "lib/db.h"
#include "lib/fault.h"
#include "api/fcgi.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/oidc.h"
#include "cloud/http.h"
#include "api/req.h"
#include "api/router.h"

struct api {
	struct sw_db *db;
	struct sw_config cfg;
};

static void
serve(FCGX_Request *fr, void *arg)
{
	struct api *a = arg;
	struct sw_buf body, out;
	struct sw_req r;

	sw_buf_init(&body, SW_MAX_BODY);
	sw_buf_init(&out, 0);
	sw_req_from_env(&r, fr->envp);
	r.db = a->db;
	r.cfg = &a->cfg;
	r.body_too_big = sw_fcgi_read_body(fr, &body);
	r.body = sw_buf_str(&body);
	r.body_len = body.len;
	sw_route(&r, sw_handler_table);
	/* Whatever the handler left mid-step is reset here, so no
	 * statement keeps this worker on an old snapshot; the test build
	 * fails the request that left a transaction open. */
	if (sw_db_idle(a->db) != SW_OK && SW_TEST_BUILD)
		(void)sw_req_fail(&r, SW_EINTERNAL,
		    "the request ended inside "
		    "a database transaction");
	if (sw_req_render(&r, &out) != SW_OK) {
		sw_buf_reset(&out);
		(void)sw_buf_puts(&out,
		    "Status: 500 Internal Server Error\r\n"
		    "Content-Type: application/problem+json\r\n\r\n"
		    "{\"type\":\"/problems/internal\",\"title\":"
		    "\"Internal error\",\"status\":500}");
	}
	sw_fcgi_write(fr, &out);
	if (r.err != SW_OK && sw_err_http_status(r.err) >= 500)
		sw_warn("%s %s -> %d %s", r.method, r.uri,
		    sw_err_http_status(r.err), r.detail);
	sw_req_free(&r);
	sw_buf_free(&body);
	sw_buf_free(&out);
}

int
sw_api_main(int argc, char *argv[])
{
	struct api a;
	char polls[600];
	int rc = 1, wait_pool;

	wait_pool = argc > 1 && strcmp(argv[1], "--wait") == 0;
	if (argc > 2 || (argc == 2 && !wait_pool)) {
		fprintf(stderr, "usage: slipway-api [--wait]\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	if (sw_daemon_start(wait_pool ? "slipway-api-wait" : "slipway-api",
		&a.cfg, &a.db) != 0)
		return 1;
	sw_oidc_set_fetch(http_get_document);
	/* The wait pool is bounded by its size; a long poll that reaches
	 * a request worker anyway (not through nginx) gets one slot. */
	if (snprintf(polls, sizeof(polls), "%s/run/waits", a.cfg.state_dir) >=
	    (int)sizeof(polls)) {
		sw_error("state directory path too long");
		goto out;
	}
	if (sw_route_long_polls(
		polls, wait_pool ? "wait" : "api", wait_pool ? 0 : 1) != SW_OK)
		goto out;
	if (sw_fcgi_run(serve, &a) == 0)
		rc = 0;
out:
	sw_db_close(a.db);
	sw_config_free(&a.cfg);
	return rc;
}
