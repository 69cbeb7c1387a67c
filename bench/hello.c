/*
 * hello.c: slipway-bench-hello, the floor for bench/rest-mcp.py.  A
 * FastCGI responder on Slipway's own accept loop (api/fcgi.c) that
 * answers every request with a fixed small JSON document and does
 * nothing else: no configuration, no database, no token check.  The
 * bench runs it as a plugin under /ext/hello/ behind the same nginx as
 * slipway-api, so "REST read / hello" is the cost of Slipway's own
 * work per request.  Built by make, never installed.
 */
#include "lib/buf.h"
#include "api/fcgi.h"

static void
serve(FCGX_Request *fr, void *arg)
{
	static const char answer[] = "Status: 200 OK\r\n"
				     "Content-Type: application/json\r\n"
				     "Cache-Control: no-store\r\n"
				     "\r\n"
				     "{\"hello\":\"world\"}";
	struct sw_buf out;

	(void)arg;
	sw_buf_init(&out, 0);
	if (sw_buf_add(&out, answer, sizeof(answer) - 1) == SW_OK)
		sw_fcgi_write(fr, &out);
	sw_buf_free(&out);
}

int
main(void)
{
	return sw_fcgi_run(serve, NULL) == 0 ? 0 : 1;
}
