/*
 * mcp.c: slipway-mcp, the MCP worker.  A FastCGI responder (the loop is
 * api/fcgi.c; the launcher runs several of these on run/mcp.sock and
 * nginx sends `location = /mcp` here).  It reads one request at a time
 * under the body cap, hands it to mcp/mcp.c and writes the answer.
 *
 * Tool calls run the REST router in this process, so an operation_wait
 * tool call is a long poll held here.  Two roles, one program:
 *   slipway-mcp --wait-slots N  a request worker on run/mcp.sock; holds
 *                               at most N long polls across all of them
 *                               (legacy clients, which send no Mcp-Name)
 *   slipway-mcp --wait-pool     a wait worker on run/mcp-wait.sock: nginx
 *                               sends Mcp-Name: operation_wait here
 * Both take the per-token long-poll slots of api/router.h.
 *
 * Request path, file by file:
 *   nginx/slipway.conf.in  location = /mcp -> this process
 *   api/fcgi.c             accept loop, body cap
 *   mcp/mcp.c              HTTP checks, eras, sessions, JSON-RPC
 *   mcp/mcp_tools.c        tools/list from api/optable.c + tools.d,
 *                          tools/call -> api/router.c in this process
 *                          with handlers/table.c
 *   mcp/mcp_rest.c         plugin tools: libcurl -> nginx -> /ext/NAME
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgi/cgi.h"
#include "handlers/table.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/daemon.h"
#include "lib/db.h"
#include "lib/fault.h"
#include "api/fcgi.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/oidc.h"
#include "cloud/http.h"
#include "mcp/mcp.h"
#include "api/router.h"
#include "lib/valid.h"

#ifdef SW_MCP_EXTRAS
extern const struct sw_mcp_extras SW_MCP_EXTRAS;
#endif

/* The answer's stream function: write and flush at once. */
static sw_err
stream_out(void *arg, const char *data, size_t len)
{
	FCGX_Request *fr = arg;
	size_t off = 0;
	int n;

	while (off < len) {
		n = len - off > 1024 * 1024 ? 1024 * 1024 : (int)(len - off);
		if (FCGX_PutStr(data + off, n, fr->out) != n)
			return SW_EUNAVAIL;
		off += (size_t)n;
	}
	return FCGX_FFlush(fr->out) == 0 ? SW_OK : SW_EUNAVAIL;
}

/* The parameters the endpoint reads, in struct sw_mcp_http's order;
 * the Host is SW_HTTP_HOST (with the port), else HTTP_HOST. */
enum {
	P_METHOD,
	P_AUTHORIZATION,
	P_ORIGIN,
	P_HOST,
	P_CONTENT_TYPE,
	P_ACCEPT,
	P_VERSION,
	P_MCP_METHOD,
	P_MCP_NAME,
	P_SESSION,
	P_LAST_EVENT,
	P_HTTP_HOST,
	P_N
};

#define PARAM(s) \
	{ \
		s, sizeof(s) - 1 \
	}
/* clang-format off */
static const struct { const char *name; size_t len; } params[P_N] = {
	PARAM("REQUEST_METHOD"), PARAM("HTTP_AUTHORIZATION"),
	PARAM("HTTP_ORIGIN"), PARAM("SW_HTTP_HOST"), PARAM("CONTENT_TYPE"),
	PARAM("HTTP_ACCEPT"), PARAM("HTTP_MCP_PROTOCOL_VERSION"),
	PARAM("HTTP_MCP_METHOD"), PARAM("HTTP_MCP_NAME"),
	PARAM("HTTP_MCP_SESSION_ID"), PARAM("HTTP_LAST_EVENT_ID"),
	PARAM("HTTP_HOST"),
};
/* clang-format on */
#undef PARAM

/*
 * The request's headers in one pass over the FastCGI environment (a
 * lookup of each would walk it a dozen times).  As sw_fcgi_param: the
 * first of a name counts and an empty value is absent.
 */
static void
http_in(char *const *envp, struct sw_mcp_http *in)
{
	const char *v[P_N], *eq;
	unsigned seen = 0;
	size_t n, i;

	memset(v, 0, sizeof(v));
	for (; envp != NULL && *envp != NULL; envp++) {
		if ((eq = strchr(*envp, '=')) == NULL)
			continue;
		n = (size_t)(eq - *envp);
		for (i = 0; i < P_N; i++) {
			if (params[i].len != n || (seen & (1u << i)) ||
			    memcmp(params[i].name, *envp, n) != 0)
				continue;
			seen |= 1u << i;
			v[i] = eq[1] != '\0' ? eq + 1 : NULL;
			break;
		}
	}
	in->method = v[P_METHOD];
	in->authorization = v[P_AUTHORIZATION];
	in->origin = v[P_ORIGIN];
	/* Debian's fastcgi_params drops the port from HTTP_HOST. */
	in->host = v[P_HOST] != NULL ? v[P_HOST] : v[P_HTTP_HOST];
	in->content_type = v[P_CONTENT_TYPE];
	in->accept = v[P_ACCEPT];
	in->protocol_version = v[P_VERSION];
	in->mcp_method = v[P_MCP_METHOD];
	in->mcp_name = v[P_MCP_NAME];
	in->session_id = v[P_SESSION];
	in->last_event_id = v[P_LAST_EVENT];
}

static void
serve(FCGX_Request *fr, void *arg)
{
	struct sw_mcp *m = arg;
	struct sw_mcp_http in;
	struct sw_mcp_answer a;
	struct sw_buf body, out;
	sw_err idle;

	memset(&in, 0, sizeof(in));
	sw_buf_init(&body, SW_MAX_BODY);
	sw_buf_init(&out, 0);
	sw_mcp_answer_init(&a);
	http_in(fr->envp, &in);
	in.body_too_big = sw_fcgi_read_body(fr, &body);
	in.body = sw_buf_str(&body);
	in.body_len = body.len;
	a.stream = stream_out;
	a.stream_arg = fr;
	sw_mcp_handle(m, &in, &a);
	/* As in cgi/api.c: no statement outlives the request. */
	idle = sw_db_idle(m->db);
	if (a.streamed)
		; /* written as it went */
	else if ((idle != SW_OK && SW_TEST_BUILD) ||
	    sw_mcp_answer_head(&a, &out) != SW_OK) {
		sw_buf_reset(&out);
		(void)sw_buf_puts(&out,
		    "Status: 500\r\nContent-Type: "
		    "application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,"
		    "\"error\":{\"code\":-32603,\"message\":\"Internal "
		    "error\"}}");
		sw_buf_reset(&a.body);
	}
	/* The head, then the body from where it was made: no copy. */
	if (!a.streamed) {
		sw_fcgi_write(fr, &out);
		sw_fcgi_write(fr, &a.body);
	}
	if (a.status >= 500)
		sw_warn("%s /mcp -> %d", in.method ? in.method : "?", a.status);
	sw_mcp_answer_free(&a);
	sw_buf_free(&body);
	sw_buf_free(&out);
}

/*
 * Where the skills are: the configuration's skills_dir, else the
 * source tree's skills/ when this program runs from the build tree
 * (as `slipway start` from a build does), else the installed copy.
 */
static void
skills_dir(const struct sw_config *cfg, char *out, size_t outsz)
{
	const char *conf = sw_json_get_str(cfg->root, "skills_dir");
	char exe[PATH_MAX];
	ssize_t n;
	int w;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (conf != NULL)
		w = snprintf(out, outsz, "%s", conf);
	else if (strncmp(exe, SW_BUILDDIR "/", strlen(SW_BUILDDIR) + 1) == 0)
		w = snprintf(out, outsz, "%s/skills", SW_SRCDIR);
	else
		w = snprintf(out, outsz, "%s/skills", SW_PKGDATADIR);
	if (w < 0 || (size_t)w >= outsz) {
		sw_warn("skills directory path too long: no skills served");
		out[0] = '\0';
	}
}

int
sw_mcp_main(int argc, char *argv[])
{
	struct sw_config cfg;
	struct sw_db *db = NULL;
	struct sw_mcp m;
	char polls[600], *end;
	long slots = 1;
	int rc = 1, mcp_ready = 0, wait_pool = 0;

	if (argc == 3 && strcmp(argv[1], "--wait-slots") == 0) {
		errno = 0;
		slots = strtol(argv[2], &end, 10);
		if (errno != 0 || *end != '\0' || slots < 1 || slots > 1000)
			argc = -1;
	} else if (argc == 2 && strcmp(argv[1], "--wait-pool") == 0)
		wait_pool = 1;
	if (argc != 1 && argc != 3 && !wait_pool) {
		fprintf(stderr,
		    "usage: slipway-mcp [--wait-slots N | "
		    "--wait-pool]\n");
		return 2;
	}
	if (sw_daemon_start("slipway-mcp", &cfg, &db) != 0)
		return 1;
	sw_oidc_set_fetch(http_get_document);
	if (sw_mcp_init(&m, &cfg, db, sw_handler_table) != SW_OK)
		goto out;
	mcp_ready = 1;
	skills_dir(&cfg, m.skills_dir, sizeof(m.skills_dir));
#ifdef SW_MCP_EXTRAS
	/* The test build (t/slipway-mcp-conformance) serves these too. */
	m.extras = &SW_MCP_EXTRAS;
	sw_warn("a test build: serving the conformance fixtures");
#endif
	if (snprintf(polls, sizeof(polls), "%s/run/waits", cfg.state_dir) >=
	    (int)sizeof(polls)) {
		sw_error("state directory path too long");
		goto out;
	}
	if (sw_route_long_polls(polls, wait_pool ? "mcp-wait" : "mcp",
		wait_pool ? 0 : (int)slots) != SW_OK)
		goto out;
	if (sw_fcgi_run(serve, &m) == 0)
		rc = 0;
out:
	if (mcp_ready)
		sw_mcp_free(&m);
	sw_db_close(db);
	sw_config_free(&cfg);
	sw_valid_cleanup();
	return rc;
}
