/*
 * req.h: one HTTP request as a FastCGI worker sees it, and the answer
 * it builds.  The input strings are borrowed from the FastCGI
 * environment; everything the router and handlers add is owned here and
 * freed by sw_req_free().  Independent of libfcgi, so unit tests can
 * drive the router with a plain environment array.
 */
#ifndef SW_REQ_H
#define SW_REQ_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/valid.h"

struct sw_op;
struct aws_ctx;

struct sw_req {
	/* input (borrowed) */
	const char *method;
	const char *uri; /* raw path, no query */
	const char *query;
	const char *authorization;
	const char *cookie;
	const char *origin;
	const char *team_header; /* Slipway-Team */
	const char *host;
	const char *content_type;
	const char *idem_key;
	const char *body;
	size_t body_len;
	int body_too_big;

	/* context (borrowed) */
	struct sw_db *db;
	const struct sw_config *cfg;
	/* set by an in-process caller that authenticated the request
	 * already (slipway-mcp); the router then skips its token check */
	const struct sw_principal *principal;
	char *uri_owned; /* uri's storage, if copied */

	/* set by the router */
	const struct sw_op *op;
	json_object *args; /* validated input; owned */
	struct sw_principal who;
	int dry_run;
	char request_hash[65]; /* op name + input */

	/* answer */
	int status; /* 0 means 200 */
	json_object *out; /* JSON body; owned */
	char *raw; /* or a raw body; owned */
	size_t raw_len;
	const char *raw_type;
	struct sw_buf headers; /* extra header lines */

	/* set by handlers: the AWS context of the account and region the
	 * request's cluster lives in, once chosen (borrowed) */
	struct aws_ctx *aws;

	/* failure */
	sw_err err;
	char detail[512];
	struct sw_ferrs ferrs;
};

/* Fill the input fields from a CGI/FastCGI environment (borrowed). */
void sw_req_from_env(struct sw_req *, char *const *envp);
void sw_req_free(struct sw_req *);

/* Record a failure with a human detail; returns e for `return`. */
sw_err sw_req_fail(struct sw_req *, sw_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Add a response header line ("Name: value", no CRLF). */
void sw_req_header(struct sw_req *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Set a JSON answer (steals o) with a status (0 = 200). */
void sw_req_reply(struct sw_req *, int status, json_object *o);

/* The value of one cookie from the Cookie header, into out. */
int sw_req_cookie(
    const struct sw_req *, const char *name, char *out, size_t outsz);

/*
 * Write the whole CGI answer (Status, headers, blank line, body) into
 * out: the JSON body, or an RFC 9457 problem document when err is set.
 */
sw_err sw_req_render(struct sw_req *, struct sw_buf *out);

/* The problem+json document for the current failure.  New reference. */
json_object *sw_req_problem(const struct sw_req *);

#endif
