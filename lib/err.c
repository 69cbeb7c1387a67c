/*
 * err.c: the single mapping of sw_err to HTTP status, problem type and
 * title.  Indexed by the enum; err.h lists meanings.
 */
#include "lib/err.h"

/* clang-format off */
static const struct sw_err_info err_table[SW_ERR__MAX] = {
	{ 200, "ok", "OK" },					/* SW_OK */
	{ 400, "validation", "Invalid request" },	/* SW_EINVAL */
	{ 400, "malformed-json", "Malformed JSON" },	/* SW_EBADJSON */
	{ 401, "unauthorized", "Authentication required" }, /* SW_EUNAUTH */
	{ 403, "forbidden", "Forbidden" },		/* SW_EFORBIDDEN */
	{ 404, "not-found", "Not found" },		/* SW_ENOTFOUND */
	{ 405, "method-not-allowed", "Method not allowed" }, /* SW_EMETHOD */
	{ 409, "conflict", "Conflict" },		/* SW_ECONFLICT */
	{ 409, "busy", "Cluster busy" },		/* SW_EBUSY */
	{ 413, "too-large", "Request too large" },	/* SW_ETOOBIG */
	{ 415, "unsupported-media-type", "Unsupported media type" }, /* SW_EMEDIA */
	{ 422, "precondition", "Pre-flight check failed" }, /* SW_EPRECONDITION */
	{ 429, "throttled", "Too many requests" },	/* SW_ETHROTTLED */
	{ 500, "out-of-memory", "Out of memory" },	/* SW_ENOMEM */
	{ 500, "state-store", "State store failure" },	/* SW_EDB */
	{ 500, "internal", "Internal error" },		/* SW_EINTERNAL */
	{ 502, "upstream", "Upstream service error" },	/* SW_EUPSTREAM */
	{ 503, "unavailable", "Service unavailable" },	/* SW_EUNAVAIL */
	{ 504, "timeout", "Upstream timeout" },		/* SW_ETIMEOUT */
};
/* clang-format on */

const struct sw_err_info *
sw_err_info(sw_err e)
{
	if ((unsigned)e >= SW_ERR__MAX)
		e = SW_EINTERNAL;
	return &err_table[e];
}

const char *
sw_err_slug(sw_err e)
{
	return sw_err_info(e)->slug;
}

int
sw_err_http_status(sw_err e)
{
	return sw_err_info(e)->http_status;
}

int
sw_err_transient(sw_err e)
{
	return e == SW_ETHROTTLED || e == SW_EUNAVAIL || e == SW_ETIMEOUT;
}
