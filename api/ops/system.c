/*
 * system.c: the operation table's rows for health, version, the
 * document itself, sessions, metrics and API tokens, each beside the
 * fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const scopes[] = { "read", "write", "admin", NULL };

static const struct sw_field f_login[] = {
	{ .name = "token", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED | SW_F_SECRET, .min = 1, .max = 128,
	  .desc = "An API token (swt_...)." },
	{ NULL }
};

static const struct sw_field f_token_create[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = PAT_TOKEN_NAME,
	  .desc = "Unique token name; recorded on every operation it "
	  "starts." },
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = scopes,
	  .desc = "read: look only; write: change clusters; admin: also "
	  "tokens." },
	{ .name = "tools", .type = SW_T_STRING, .min = 1,
	  .max = SW_MAX_TOOL_CLASSES, .pattern = "[a-z-]+(,[a-z-]+)*",
	  .desc = "Limit the token's MCP tools to these classes: read-only, "
	  "diagnose or tool tags (clusters, workloads, nodes...)." },
	{ NULL }
};

static const struct sw_field f_token_name[] = {
	{ .name = "name", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 64,
	  .pattern = PAT_TOKEN_NAME, .desc = "Token name." },
	{ NULL }
};

static const struct sw_op rows[] = {
	{
	  .name = "health",
	  .method = "GET",
	  .path = "/api/v1/health",
	  .tag = "system",
	  .summary = "Liveness and state-store check",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .output = "Health",
	},
	{
	  .name = "version",
	  .method = "GET",
	  .path = "/api/v1/version",
	  .tag = "system",
	  .summary = "Slipway version, API version and backend",
	  .description = "Which Slipway answers, and whether it talks to AWS "
	    "or to the local sandbox.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Version",
	},
	{
	  .name = "openapi",
	  .method = "GET",
	  .path = "/api/v1/openapi.json",
	  .tag = "system",
	  .summary = "This API as an OpenAPI 3.1 document",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .output = "Any",
	},
	{
	  .name = "login",
	  .method = "POST",
	  .path = "/api/v1/login",
	  .tag = "system",
	  .summary = "Exchange a token for a browser session cookie",
	  .body = f_login,
	  .flags = SW_OP_PUBLIC | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .output = "Principal",
	},
	{
	  .name = "logout",
	  .method = "POST",
	  .path = "/api/v1/logout",
	  .tag = "system",
	  .summary = "End the browser session",
	  .flags = SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_READ,
	  .output = "Principal",
	},
	{
	  .name = "whoami",
	  .method = "GET",
	  .path = "/api/v1/whoami",
	  .tag = "system",
	  .summary = "The token behind this request and its scope",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .output = "Principal",
	},
	{
	  .name = "metrics",
	  .method = "GET",
	  .path = "/metrics",
	  .tag = "system",
	  .summary = "Prometheus metrics (text exposition format)",
	  .description = "Operations by kind and state, stage durations, "
	    "AWS requests by service, operation and outcome, retries, "
	    "throttles, poller lag, worker restarts and MCP calls by tool.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "Any",
	},
	{
	  .name = "token_list",
	  .method = "GET",
	  .path = "/api/v1/tokens",
	  .tag = "system",
	  .summary = "List API tokens (never their secrets)",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "TokenList",
	},
	{
	  .name = "token_create",
	  .method = "POST",
	  .path = "/api/v1/tokens",
	  .tag = "system",
	  .summary = "Create an API token; its secret is shown once",
	  .body = f_token_create,
	  .flags = SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "TokenCreated",
	},
	{
	  .name = "token_revoke",
	  .method = "DELETE",
	  .path = "/api/v1/tokens/{name}",
	  .tag = "system",
	  .summary = "Revoke an API token",
	  .params = f_token_name,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_ADMIN,
	  .output = "Any",
	},
};

const struct sw_op_family sw_ops_system = {
	rows, sizeof(rows) / sizeof(rows[0])
};
