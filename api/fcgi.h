/*
 * fcgi.h: the one FastCGI accept loop of every Slipway responder
 * (slipway-api, slipway-mcp, the example plugin and any site plugin).
 * A responder accepts one request at a time on the listening socket it
 * inherits as fd 0 (the launcher runs several of it on one socket), or
 * serves one request as plain CGI when started outside FastCGI.
 *
 * sw_fcgi_run() installs SIGTERM/SIGINT handlers that stop the loop
 * between requests, ignores SIGPIPE (a client that went away must not
 * kill the worker), retries a failed accept instead of exiting, and
 * calls serve once per request.  The callback only reads the request
 * (sw_fcgi_param, sw_fcgi_read_body) and writes its CGI answer.
 */
#ifndef SW_FCGI_H
#define SW_FCGI_H

#include <fcgiapp.h>

#include "lib/buf.h"

/* Answer one request; arg is the one given to sw_fcgi_run(). */
typedef void (*sw_fcgi_serve_fn)(FCGX_Request *fr, void *arg);

/*
 * Run the accept loop until SIGTERM or SIGINT.  Returns 0 on a clean
 * stop, -1 (logged) when FastCGI cannot be set up.
 */
int sw_fcgi_run(sw_fcgi_serve_fn serve, void *arg);

/* A request parameter, or NULL when absent or empty. */
const char *sw_fcgi_param(FCGX_Request *fr, const char *name);

/*
 * Read the CONTENT_LENGTH bytes of the body into body (its cap is the
 * limit; init it with sw_buf_init(body, SW_MAX_BODY)).  Returns 1 when
 * the body is over the cap (nothing more is read), else 0.
 */
int sw_fcgi_read_body(FCGX_Request *fr, struct sw_buf *body);

/* Write out (the whole CGI answer: Status, headers, blank line, body). */
void sw_fcgi_write(FCGX_Request *fr, const struct sw_buf *out);

#endif
