/*
 * err.c: the single mapping of sw_err to HTTP status, problem type,
 * title and JSON-RPC code.  Indexed by the enum; err.h lists meanings.
 */
#include "lib/err.h"

static const struct sw_err_info err_table[SW_ERR__MAX] = {
	{ 200, "ok", "OK", 0 },					/* SW_OK */
	{ 400, "validation", "Invalid request", -32602 },	/* SW_EINVAL */
	{ 400, "malformed-json", "Malformed JSON", -32700 },	/* SW_EBADJSON */
	{ 401, "unauthorized", "Authentication required", -32001 }, /* SW_EUNAUTH */
	{ 403, "forbidden", "Forbidden", -32003 },		/* SW_EFORBIDDEN */
	{ 404, "not-found", "Not found", -32004 },		/* SW_ENOTFOUND */
	{ 405, "method-not-allowed", "Method not allowed", -32601 }, /* SW_EMETHOD */
	{ 409, "conflict", "Conflict", -32009 },		/* SW_ECONFLICT */
	{ 409, "busy", "Cluster busy", -32011 },		/* SW_EBUSY */
	{ 413, "too-large", "Request too large", -32600 },	/* SW_ETOOBIG */
	{ 415, "unsupported-media-type", "Unsupported media type",
	    -32600 },						/* SW_EMEDIA */
	{ 422, "precondition", "Pre-flight check failed", -32010 }, /* SW_EPRECONDITION */
	{ 429, "throttled", "Too many requests", -32029 },	/* SW_ETHROTTLED */
	{ 500, "out-of-memory", "Out of memory", -32603 },	/* SW_ENOMEM */
	{ 500, "state-store", "State store failure", -32603 },	/* SW_EDB */
	{ 500, "internal", "Internal error", -32603 },		/* SW_EINTERNAL */
	{ 502, "upstream", "Upstream service error", -32002 },	/* SW_EUPSTREAM */
	{ 503, "unavailable", "Service unavailable", -32005 },	/* SW_EUNAVAIL */
	{ 504, "timeout", "Upstream timeout", -32006 },		/* SW_ETIMEOUT */
};

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
