/*
 * mcp.c: slipway-mcp, the MCP worker.  A FastCGI responder on the socket
 * it inherits as fd 0 (the launcher runs several of these on
 * run/mcp.sock; nginx sends `location = /mcp` here).  It reads one
 * request at a time under the body cap, hands it to lib/mcp.c and writes
 * the answer.  Run outside FastCGI it serves one request as plain CGI.
 *
 * Request path, file by file:
 *   nginx/slipway.conf.in  location = /mcp -> this process
 *   lib/mcp.c              HTTP checks, eras, sessions, JSON-RPC
 *   lib/mcp_tools.c        tools/list from lib/optable.c + tools.d,
 *                          tools/call -> lib/router.c in this process
 *                          with handlers/table.c
 *   lib/mcp_rest.c         plugin tools: libcurl -> nginx -> /ext/NAME
 */
#include <errno.h>
#include <fcgiapp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/mcp.h"
#include "lib/valid.h"
#include "handlers/table.h"

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
	FCGX_ShutdownPending();
}

static const char *
param(FCGX_ParamArray envp, const char *name)
{
	const char *v = FCGX_GetParam(name, envp);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* Read CONTENT_LENGTH bytes (capped) into body. */
static void
read_body(FCGX_Stream *in, FCGX_ParamArray envp, struct sw_buf *body,
    int *too_big)
{
	const char *cl = param(envp, "CONTENT_LENGTH");
	char chunk[8192];
	long long want = 0;
	char *end;
	int n;

	if (cl != NULL) {
		errno = 0;
		want = strtoll(cl, &end, 10);
		if (errno != 0 || *end != '\0' || want < 0)
			want = 0;
	}
	if (want > SW_MAX_BODY) {
		*too_big = 1;
		return;
	}
	while (want > 0 && (n = FCGX_GetStr(chunk, (int)(want <
	    (long long)sizeof(chunk) ? want : (long long)sizeof(chunk)),
	    in)) > 0) {
		if (sw_buf_add(body, chunk, (size_t)n) != SW_OK) {
			*too_big = 1;
			return;
		}
		want -= n;
	}
}

static void
serve(FCGX_Request *fr, struct sw_mcp *m)
{
	struct sw_mcp_http in;
	struct sw_mcp_answer a;
	struct sw_buf body, out;

	memset(&in, 0, sizeof(in));
	sw_buf_init(&body, SW_MAX_BODY);
	sw_buf_init(&out, 0);
	sw_mcp_answer_init(&a);
	in.method = param(fr->envp, "REQUEST_METHOD");
	in.authorization = param(fr->envp, "HTTP_AUTHORIZATION");
	in.origin = param(fr->envp, "HTTP_ORIGIN");
	/* Debian's fastcgi_params drops the port from HTTP_HOST. */
	in.host = param(fr->envp, "SW_HTTP_HOST");
	if (in.host == NULL)
		in.host = param(fr->envp, "HTTP_HOST");
	in.content_type = param(fr->envp, "CONTENT_TYPE");
	in.accept = param(fr->envp, "HTTP_ACCEPT");
	in.protocol_version = param(fr->envp, "HTTP_MCP_PROTOCOL_VERSION");
	in.mcp_method = param(fr->envp, "HTTP_MCP_METHOD");
	in.mcp_name = param(fr->envp, "HTTP_MCP_NAME");
	in.session_id = param(fr->envp, "HTTP_MCP_SESSION_ID");
	read_body(fr->in, fr->envp, &body, &in.body_too_big);
	in.body = sw_buf_str(&body);
	in.body_len = body.len;
	sw_mcp_handle(m, &in, &a);
	if (sw_mcp_answer_render(&a, &out) != SW_OK) {
		sw_buf_reset(&out);
		(void)sw_buf_puts(&out, "Status: 500\r\nContent-Type: "
		    "application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,"
		    "\"error\":{\"code\":-32603,\"message\":\"Internal "
		    "error\"}}");
	}
	FCGX_PutStr(out.data, (int)out.len, fr->out);
	if (a.status >= 500)
		sw_warn("%s /mcp -> %d", in.method ? in.method : "?",
		    a.status);
	sw_mcp_answer_free(&a);
	sw_buf_free(&body);
	sw_buf_free(&out);
}

int
main(int argc, char *argv[])
{
	struct sw_config cfg;
	struct sw_db *db = NULL;
	struct sw_mcp m;
	struct sigaction sa;
	FCGX_Request fr;
	const char *dir;
	int rc = 1, mcp_ready = 0;

	(void)argc;
	(void)argv;
	sw_log_init("slipway-mcp");
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
	if (sw_mcp_init(&m, &cfg, db, sw_handler_table) != SW_OK)
		goto out;
	mcp_ready = 1;
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
		serve(&fr, &m);
		FCGX_Finish_r(&fr);
		if (FCGX_IsCGI())
			break;
	}
	FCGX_Free(&fr, 1);
	rc = 0;
out:
	if (mcp_ready)
		sw_mcp_free(&m);
	sw_db_close(db);
	sw_config_free(&cfg);
	sw_valid_cleanup();
	return rc;
}
