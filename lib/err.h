/*
 * err.h: the one error enum of Slipway.  Every function that can fail
 * returns an sw_err; one table (err.c) maps each value to its HTTP
 * status and its RFC 9457 problem type and title, so REST, MCP (a tool
 * error carries the same problem) and the CLI all describe a failure
 * the same way.  MCP's protocol faults have JSON-RPC codes of their own
 * (mcp/mcp.h), not derived from this table.
 */
#ifndef SW_ERR_H
#define SW_ERR_H

typedef enum sw_err {
	SW_OK = 0,
	SW_EINVAL, /* 400 a field breaks a rule */
	SW_EBADJSON, /* 400 body is not well-formed JSON */
	SW_EUNAUTH, /* 401 no or bad credentials */
	SW_EFORBIDDEN, /* 403 scope or origin refused */
	SW_ENOTFOUND, /* 404 no such route or object */
	SW_EMETHOD, /* 405 route exists, method does not */
	SW_ECONFLICT, /* 409 state does not allow it */
	SW_EBUSY, /* 409 another operation holds the cluster */
	SW_ETOOBIG, /* 413 body over the cap */
	SW_EMEDIA, /* 415 wrong Content-Type */
	SW_EPRECONDITION, /* 422 pre-flight check refused it */
	SW_ETHROTTLED, /* 429 too many requests */
	SW_ENOMEM, /* 500 out of memory */
	SW_EDB, /* 500 state store failure */
	SW_EINTERNAL, /* 500 a bug */
	SW_EUPSTREAM, /* 502 AWS or Kubernetes said no */
	SW_EUNAVAIL, /* 503 a dependency is down */
	SW_ETIMEOUT, /* 504 a dependency did not answer */
	SW_ERR__MAX
} sw_err;

struct sw_err_info {
	int http_status;
	const char *slug; /* problem type: /problems/<slug> */
	const char *title; /* short human summary */
};

/* Borrowed pointer into a static table; never NULL. */
const struct sw_err_info *sw_err_info(sw_err);
const char *sw_err_slug(sw_err);
int sw_err_http_status(sw_err);
/* Is e worth trying again later (throttled, unavailable, timed out)?
 * The one answer stages and handlers use: a stage retries it with
 * sw_step_transient, a handler answers 429/503/504 with Retry-After. */
int sw_err_transient(sw_err e);

#endif
