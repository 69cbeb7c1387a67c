/*
 * fcgi.c: the FastCGI accept loop shared by every responder (see
 * fcgi.h).  Written once so that signal handling, the retry of a
 * failed accept and the body cap behave the same in slipway-api,
 * slipway-mcp and plugins.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/fcgi.h"
#include "lib/daemon.h"
#include "lib/limits.h"
#include "lib/log.h"

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
	FCGX_ShutdownPending();
}

const char *
sw_fcgi_param(FCGX_Request *fr, const char *name)
{
	const char *v = FCGX_GetParam(name, fr->envp);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

int
sw_fcgi_read_body(FCGX_Request *fr, struct sw_buf *body)
{
	const char *cl = sw_fcgi_param(fr, "CONTENT_LENGTH");
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
	if (want > (long long)body->max)
		return 1;
	while (want > 0 &&
	    (n = FCGX_GetStr(chunk,
		 (int)(want < (long long)sizeof(chunk)
			 ? want
			 : (long long)sizeof(chunk)),
		 fr->in)) > 0) {
		if (sw_buf_add(body, chunk, (size_t)n) != SW_OK)
			return 1;
		want -= n;
	}
	return 0;
}

void
sw_fcgi_write(FCGX_Request *fr, const struct sw_buf *out)
{
	size_t off = 0;
	int n;

	/* FCGX_PutStr takes an int: write big answers in pieces. */
	while (off < out->len) {
		n = out->len - off > 1024 * 1024 ? 1024 * 1024
						 : (int)(out->len - off);
		if (FCGX_PutStr(out->data + off, n, fr->out) != n)
			break; /* the client went away */
		off += (size_t)n;
	}
}

int
sw_fcgi_run(sw_fcgi_serve_fn serve, void *arg)
{
	FCGX_Request fr;

	sw_daemon_signals(on_term);
	if (FCGX_Init() != 0 || FCGX_InitRequest(&fr, 0, 0) != 0) {
		sw_error("FastCGI initialisation failed");
		return -1;
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
		/* nginx's $request_id: the worker's records carry it */
		sw_log_context(sw_fcgi_param(&fr, "SW_REQUEST_ID"), NULL);
		serve(&fr, arg);
		sw_log_context(NULL, NULL);
		FCGX_Finish_r(&fr);
		if (FCGX_IsCGI())
			break;
	}
	FCGX_Free(&fr, 1);
	return 0;
}
