/*
 * optable.c: THE operation table (see optable.h).  To add an API
 * operation: write its handler in handlers/, describe its fields here,
 * add one row.  REST routing, MCP tools and OpenAPI follow from the row.
 */
#include <string.h>

#include "handlers/handlers.h"
#include "lib/optable.h"

/* Shared patterns. */
#define PAT_OP_ID	"op-[0-9a-f]{16}"
#define PAT_TOKEN_NAME	"[A-Za-z0-9._-]{1,64}"
#define PAT_NAME	"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"

static const char *const op_states[] = {
	"pending", "running", "succeeded", "failed", "cancelled", NULL
};
static const char *const scopes[] = { "read", "write", "admin", NULL };

/* ---- fields --------------------------------------------------------- */

static const struct sw_field f_op_id[] = {
	{ "id", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 0, 0, PAT_OP_ID,
	  NULL, "Operation id (op-...).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_op_get[] = {
	{ "id", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 0, 0, PAT_OP_ID,
	  NULL, "Operation id (op-...).", NULL, NULL },
	{ "since_event", SW_T_INT, SW_F_QUERY, 0, 9007199254740991LL, NULL,
	  NULL, "Only events with a larger id.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_op_wait[] = {
	{ "id", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 0, 0, PAT_OP_ID,
	  NULL, "Operation id (op-...).", NULL, NULL },
	{ "timeout", SW_T_INT, SW_F_QUERY, 1, SW_MAX_WAIT, NULL, NULL,
	  "Seconds to wait for a change (default 20).", NULL, NULL },
	{ "since_updated_ms", SW_T_INT, SW_F_QUERY, 0, 9007199254740991LL,
	  NULL, NULL, "Return as soon as the operation changed after this "
	  "time (its updated_ms from a previous answer).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_op_list[] = {
	{ "kind", SW_T_STRING, SW_F_QUERY, 1, 64, "[a-z_.]+", NULL,
	  "Only operations of this kind.", NULL, NULL },
	{ "state", SW_T_STRING, SW_F_QUERY, 0, 0, NULL, op_states,
	  "Only operations in this state.", NULL, NULL },
	{ "cluster", SW_T_STRING, SW_F_QUERY, 1, 100, PAT_NAME, NULL,
	  "Only operations on this cluster.", NULL, NULL },
	{ "requested_by", SW_T_STRING, SW_F_QUERY, 0, 0, PAT_TOKEN_NAME,
	  NULL, "Only operations asked for by this token name.", NULL,
	  NULL },
	{ "limit", SW_T_INT, SW_F_QUERY, 1, SW_MAX_PAGE, NULL, NULL,
	  "Page size (default 50).", NULL, NULL },
	{ "cursor", SW_T_STRING, SW_F_QUERY, 1, 64, "[0-9]+\\.op-[0-9a-f]{16}",
	  NULL, "The 'next' value of the previous page.", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_login[] = {
	{ "token", SW_T_STRING, SW_F_REQUIRED | SW_F_SECRET, 1, 128, NULL,
	  NULL, "An API token (swt_...).", NULL, NULL },
	{ NULL }
};

static const struct sw_field f_token_create[] = {
	{ "name", SW_T_STRING, SW_F_REQUIRED, 1, 64, PAT_TOKEN_NAME, NULL,
	  "Unique token name; recorded on every operation it starts.",
	  NULL, NULL },
	{ "scope", SW_T_STRING, SW_F_REQUIRED, 0, 0, NULL, scopes,
	  "read: look only; write: change clusters; admin: also tokens.",
	  NULL, NULL },
	{ NULL }
};

static const struct sw_field f_token_name[] = {
	{ "name", SW_T_STRING, SW_F_PATH | SW_F_REQUIRED, 1, 64,
	  PAT_TOKEN_NAME, NULL, "Token name.", NULL, NULL },
	{ NULL }
};

/* ---- the table ------------------------------------------------------- */

const struct sw_op sw_optable[] = {
	{ "health", "GET", "/api/v1/health", "system",
	  "Liveness and state-store check", NULL, NULL, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC | SW_OP_NO_MCP,
	  SW_SCOPE_NONE, NULL, 0, "Health", h_health },
	{ "version", "GET", "/api/v1/version", "system",
	  "Slipway version, API version and backend",
	  "Which Slipway answers, and whether it talks to AWS or to the "
	  "local sandbox.", NULL, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT, SW_SCOPE_READ, NULL, 0,
	  "Version", h_version },
	{ "openapi", "GET", "/api/v1/openapi.json", "system",
	  "This API as an OpenAPI 3.1 document", NULL, NULL, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC | SW_OP_NO_MCP,
	  SW_SCOPE_NONE, NULL, 0, "Any", h_openapi },
	{ "login", "POST", "/api/v1/login", "system",
	  "Exchange a token for a browser session cookie", NULL, NULL,
	  f_login, SW_OP_PUBLIC | SW_OP_NO_MCP, SW_SCOPE_NONE, NULL, 0,
	  "Principal", h_login },
	{ "logout", "POST", "/api/v1/logout", "system",
	  "End the browser session", NULL, NULL, NULL,
	  SW_OP_IDEMPOTENT | SW_OP_NO_MCP, SW_SCOPE_READ, NULL, 0,
	  "Principal", h_logout },
	{ "whoami", "GET", "/api/v1/whoami", "system",
	  "The token behind this request and its scope", NULL, NULL, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT, SW_SCOPE_READ, NULL, 0,
	  "Principal", h_whoami },
	{ "token_list", "GET", "/api/v1/tokens", "system",
	  "List API tokens (never their secrets)", NULL, NULL, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_NO_MCP, SW_SCOPE_ADMIN,
	  NULL, 0, "TokenList", h_token_list },
	{ "token_create", "POST", "/api/v1/tokens", "system",
	  "Create an API token; its secret is shown once", NULL, NULL,
	  f_token_create, SW_OP_NO_MCP, SW_SCOPE_ADMIN, NULL, 0,
	  "TokenCreated", h_token_create },
	{ "token_revoke", "DELETE", "/api/v1/tokens/{name}", "system",
	  "Revoke an API token", NULL, f_token_name, NULL,
	  SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  SW_SCOPE_ADMIN, NULL, 0, "Any", h_token_revoke },

	{ "operation_list", "GET", "/api/v1/operations", "operations",
	  "List operations, newest first",
	  "Every change Slipway makes is an operation; filter by kind, "
	  "state, cluster or the token that asked.", f_op_list, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT, SW_SCOPE_READ, NULL, 0,
	  "OperationList", h_op_list },
	{ "operation_get", "GET", "/api/v1/operations/{id}", "operations",
	  "One operation with its stages and events",
	  "State is pending, running, succeeded, failed or cancelled; "
	  "each stage shows the resources it created.", f_op_get, NULL,
	  SW_OP_READONLY | SW_OP_IDEMPOTENT, SW_SCOPE_READ, NULL, 0,
	  "Operation", h_op_get },
	{ "operation_wait", "GET", "/api/v1/operations/{id}:wait",
	  "operations", "Wait (bounded) until an operation changes",
	  "Long-polls up to 'timeout' seconds and returns the operation "
	  "as soon as it changes or ends. Use it instead of sleeping.",
	  f_op_wait, NULL, SW_OP_READONLY | SW_OP_IDEMPOTENT, SW_SCOPE_READ,
	  NULL, 0, "Operation", h_op_wait },
	{ "operation_retry", "POST", "/api/v1/operations/{id}:retry",
	  "operations", "Retry a failed or cancelled operation",
	  "Runs the failed stage again and the ones after it; stages that "
	  "succeeded are not repeated.", f_op_id, NULL, 0, SW_SCOPE_WRITE,
	  "operation_wait", 5, "Accepted", h_op_retry },
	{ "operation_cancel", "POST", "/api/v1/operations/{id}:cancel",
	  "operations", "Cancel an operation",
	  "A pending operation ends at once; a running one stops at the "
	  "next stage boundary.", f_op_id, NULL, SW_OP_IDEMPOTENT,
	  SW_SCOPE_WRITE, "operation_wait", 5, "Accepted", h_op_cancel },
};

const size_t sw_optable_len = sizeof(sw_optable) / sizeof(sw_optable[0]);

const struct sw_op *
sw_op_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sw_optable_len; i++)
		if (strcmp(sw_optable[i].name, name) == 0)
			return &sw_optable[i];
	return NULL;
}

/* Length of the segment at p (up to '/' or end). */
static size_t
seglen(const char *p)
{
	const char *s = strchr(p, '/');

	return s ? (size_t)(s - p) : strlen(p);
}

int
sw_path_match(const char *tmpl, const char *path, json_object *vars)
{
	const char *t = tmpl, *p = path, *close, *verb;
	size_t tl, pl, vl;
	char name[64];

	while (*t != '\0' && *p != '\0') {
		if (*t != '/' || *p != '/')
			return 0;
		t++;
		p++;
		tl = seglen(t);
		pl = seglen(p);
		if (*t == '{' && (close = memchr(t, '}', tl)) != NULL) {
			/* "{x}" or "{x}:verb": bind the part before :verb */
			verb = close + 1;
			vl = tl - (size_t)(verb - t);
			if (pl <= vl || (vl > 0 &&
			    memcmp(p + pl - vl, verb, vl) != 0))
				return 0;
			if (memchr(p, ':', pl - vl) != NULL)
				return 0;
			if ((size_t)(close - t - 1) >= sizeof(name))
				return 0;
			memcpy(name, t + 1, (size_t)(close - t - 1));
			name[close - t - 1] = '\0';
			if (vars != NULL) {
				char val[256];

				if (pl - vl >= sizeof(val))
					return 0;
				memcpy(val, p, pl - vl);
				val[pl - vl] = '\0';
				json_object_object_add(vars, name,
				    json_object_new_string(val));
			}
		} else if (tl != pl || memcmp(t, p, tl) != 0)
			return 0;
		t += tl;
		p += pl;
	}
	return *t == '\0' && *p == '\0';
}
