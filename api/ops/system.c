/*
 * system.c: the operation table's rows for health, version, the
 * document itself, sessions, metrics and API tokens, each beside the
 * fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const scopes[] = { "read", "write", "admin", NULL };
static const char *const roles[] = { "viewer", "operator", "platform-admin",
	NULL };

/* clang-format off */
static const struct sw_field f_login[] = {
	{ .name = "token", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED | SW_F_SECRET, .min = 1, .max = 128,
	  .desc = "An API token (swt_...)." },
	{ NULL }
};
/* clang-format on */

/* What a provider sends back to the sign-in callback (RFC 6749 4.1.2,
 * RFC 9207's iss); SW_F_SECRET keeps the code out of every echo. */
/* clang-format off */
static const struct sw_field f_login_callback[] = {
	{ .name = "code", .type = SW_T_STRING,
	  .flags = SW_F_QUERY | SW_F_SECRET, .min = 1, .max = 2048,
	  .desc = "The authorization code." },
	{ .name = "state", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 128, .desc = "The state the sign-in began with." },
	{ .name = "iss", .type = SW_T_STRING, .flags = SW_F_QUERY, .max = 512,
	  .desc = "The provider that answers (RFC 9207)." },
	{ .name = "session_state", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .max = 512, .desc = "The provider's session state (ignored)." },
	{ .name = "error", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .max = 128, .desc = "Why the provider did not sign the person in." },
	{ .name = "error_description", .type = SW_T_STRING,
	  .flags = SW_F_QUERY, .max = 512, .desc = "The same, in words." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_token_create[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = PAT_TOKEN_NAME,
	  .desc = "Unique token name; recorded on every operation it "
	  "starts." },
	{ .name = "scope", .type = SW_T_STRING, .enumv = scopes,
	  .desc = "read: look only; write: change clusters; admin: also "
	  "tokens.  Required without role; with a role, the role's "
	  "(viewer: read, operator: write, platform-admin: admin)." },
	{ .name = "team", .type = SW_T_STRING, .min = 1, .max = 39,
	  .pattern = PAT_TEAM, .desc = "A service account of this team "
	  "(with role).  A team's platform-admin makes them for that team "
	  "only (default: theirs)." },
	{ .name = "role", .type = SW_T_STRING, .enumv = roles,
	  .desc = "Its role in team: viewer, operator or platform-admin." },
	{ .name = "ttl_seconds", .type = SW_T_INT, .min = 1,
	  .max = 31536000, .desc = "It stops working this many seconds "
	  "from now (401 after; default: never)." },
	{ .name = "tools", .type = SW_T_STRING, .min = 1,
	  .max = SW_MAX_TOOL_CLASSES, .pattern = "[a-z-]+(,[a-z-]+)*",
	  .desc = "Limit the token's MCP tools to these classes: read-only, "
	  "diagnose or tool tags (clusters, workloads, nodes...)." },
	{ NULL }
};
/* clang-format on */

#define F_TOKEN_TEAM \
	{ \
		.name = "team", .type = SW_T_STRING, .flags = SW_F_QUERY, \
		.min = 1, .max = 39, .pattern = PAT_TEAM, \
		.desc = "Only this team's service accounts (a team's " \
			"platform-admin: always theirs)." \
	}

/* clang-format off */
static const struct sw_field f_token_name[] = {
	{ .name = "name", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 64,
	  .pattern = PAT_TOKEN_NAME, .desc = "Token name." },
	F_TOKEN_TEAM,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_token_list[] = {
	F_TOKEN_TEAM,
	{ NULL }
};
/* clang-format on */

/* ---- answers -------------------------------------------------------- */

static const char *const health_states[] = { "ok", "degraded", NULL };
static const char *const store_states[] = { "ok", "unavailable", NULL };
/* clang-format off */
static const struct sw_field o_health[] = {
	{ .name = "status", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = health_states, .desc = "ok, or degraded (503)." },
	{ .name = "state_store", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED, .enumv = store_states,
	  .desc = "Whether the state store answers." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_health[] = {
	{ .status = 200, .fields = o_health, .desc = "Alive." },
	{ .status = 503, .fields = o_health,
	  .desc = "Alive, but the state store does not answer." },
	{ 0 }
};
/* clang-format on */

static const char *const backends[] = { "aws", "sandbox", NULL };
/* clang-format off */
static const struct sw_field o_version[] = {
	OUT("name", SW_T_STRING, "slipway."),
	OUT("version", SW_T_STRING, "The release."),
	OUT("api", SW_T_STRING, "The API version (v1)."),
	OUT("schema_version", SW_T_INT, "The state store's schema."),
	{ .name = "backend", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = backends, .desc = "What it talks to." },
	OUT("region", SW_T_STRING, "The AWS region."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_version[] = {
	{ .status = 200, .fields = o_version, .desc = "Who answers." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_openapi[] = {
	OUT("openapi", SW_T_STRING, "3.1.0."),
	OUT("info", SW_T_ANY, "Title, version, description."),
	OUT("servers", SW_T_ANY, "Where it is served."),
	OUT("paths", SW_T_ANY, "Every operation."),
	OUT("components", SW_T_ANY, "Shared schemas and security "
	    "schemes."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_openapi[] = {
	{ .status = 200, .fields = o_openapi,
	  .desc = "This document (OpenAPI 3.1)." },
	{ 0 }
};
/* clang-format on */

static const char *const vias[] = { "token", "session", "provider", NULL };
/* clang-format off */
static const struct sw_field o_membership[] = {
	OUT("team", SW_T_STRING, "The team (namespace hyperpod-ns-<team>)."),
	{ .name = "role", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = roles, .desc = "viewer, operator or platform-admin." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_membership_item[] = {
	{ .name = "membership", .type = SW_T_OBJECT, .fields = o_membership },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_principal[] = {
	OUT("name", SW_T_STRING, "The token's name, or the person's."),
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = scopes, .desc = "What it may do." },
	{ .name = "via", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = vias, .desc = "How it came: a bearer token, a session "
	  "cookie, or an OpenID provider's access token." },
	OUT_OPT("groups", SW_T_STRING, "The provider's groups of the "
	    "person, comma-separated (via provider)."),
	OUT("all_teams", SW_T_BOOL, "Not limited by team: a token of no "
	    "team (its scope alone decides; admin is platform-admin of "
	    "every team)."),
	{ .name = "teams", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_membership_item, .desc = "The teams it is in and its "
	  "role in each (empty with all_teams)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_principal[] = {
	{ .status = 200, .fields = o_principal, .desc = "The caller." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_signed_in[] = {
	{ .status = 302, .fields = o_principal, .desc = "Signed in: the "
	  "session cookie is set and Location leads to the UI." },
	{ 0 }
};
/* clang-format on */

/* The OAuth 2.0 device flow (RFC 8628) for a command line. */
/* clang-format off */
static const struct sw_field f_device_token[] = {
	{ .name = "device_code", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED | SW_F_SECRET, .min = 1, .max = 2048,
	  .desc = "The device_code login_device gave." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_device[] = {
	OUT("device_code", SW_T_STRING, "The code this client polls "
	    "login_device_token with (a secret: never shown)."),
	OUT("user_code", SW_T_STRING, "The code the person enters at "
	    "verification_uri."),
	OUT("verification_uri", SW_T_STRING, "Where the person approves, "
	    "at the provider."),
	OUT_OPT("verification_uri_complete", SW_T_STRING, "The same with "
	    "the user code in it."),
	OUT("expires_in", SW_T_INT, "Seconds the codes live."),
	OUT("interval", SW_T_INT, "Seconds to wait between polls."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_device[] = {
	{ .status = 200, .fields = o_device, .desc = "The device "
	  "authorization the provider started." },
	{ 0 }
};
/* clang-format on */
static const char *const pendings[] = { "authorization_pending", "slow_down",
	NULL };
/* clang-format off */
static const struct sw_field o_device_pending[] = {
	{ .name = "pending", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = pendings, .desc = "The provider's word: not approved "
	  "yet, or poll more slowly." },
	OUT("interval", SW_T_INT, "Seconds to wait before the next poll."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_device_token[] = {
	{ .name = "token", .type = SW_T_STRING, .flags = SW_F_REQUIRED |
	  SW_F_SECRET, .desc = "The person's Slipway credential (swp_...), "
	  "sent as Authorization: Bearer." },
	OUT("expires_in", SW_T_INT, "Seconds it lives."),
	{ .name = "principal", .type = SW_T_OBJECT, .flags = SW_F_REQUIRED,
	  .fields = o_principal, .desc = "Who it is: the person, their "
	  "groups and their teams." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_device_token[] = {
	{ .status = 200, .fields = o_device_token, .desc = "Approved: the "
	  "person's credential." },
	{ .status = 202, .fields = o_device_pending, .desc = "Not yet: poll "
	  "again after interval seconds." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_provider[] = {
	OUT("name", SW_T_STRING, "The provider, as the login page names "
	    "it."),
	OUT("url", SW_T_STRING, "Where its sign-in starts."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_login_options[] = {
	OUT("token", SW_T_BOOL, "Always true: an API token signs in."),
	{ .name = "provider", .type = SW_T_OBJECT, .fields = o_provider,
	  .desc = "The OpenID provider, when one is configured." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_login_options[] = {
	{ .status = 200, .fields = o_login_options,
	  .desc = "The ways to sign in." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_redirect[] = {
	OUT("location", SW_T_STRING, "Where the browser goes."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_login_provider[] = {
	{ .status = 302, .fields = o_redirect,
	  .desc = "To the provider's authorization endpoint." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_string_item[] = {
	{ .name = "value", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_groups[] = {
	{ .name = "viewer", .type = SW_T_ARRAY, .items = o_string_item,
	  .desc = "The provider's groups whose members are its viewers." },
	{ .name = "operator", .type = SW_T_ARRAY, .items = o_string_item,
	  .desc = "... its operators." },
	{ .name = "platform-admin", .type = SW_T_ARRAY,
	  .items = o_string_item, .desc = "... its platform-admins." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_entry[] = {
	OUT("team", SW_T_STRING, "The team (namespace hyperpod-ns-<team>)."),
	{ .name = "role", .type = SW_T_STRING, .enumv = roles,
	  .desc = "The caller's role in it; absent for a caller of no team "
	  "(all_teams)." },
	{ .name = "groups", .type = SW_T_OBJECT, .flags = SW_F_REQUIRED,
	  .fields = o_team_groups, .desc = "Who its members are: the "
	  "provider's groups mapped to each role by the configuration "
	  "(team.<team>.<role> = groups); empty for a team of service "
	  "accounts only." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_entry_item[] = {
	{ .name = "team", .type = SW_T_OBJECT, .fields = o_team_entry },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_teams[] = {
	OUT("all_teams", SW_T_BOOL, "The caller is limited by no team and "
	    "sees every one."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_team_entry_item, .desc = "The teams the caller is in "
	  "(every team, with all_teams): the configured ones and those of "
	  "service accounts, by name." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_teams[] = {
	{ .status = 200, .fields = o_teams, .desc = "The teams." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_resource[] = {
	OUT("resource", SW_T_STRING, "This API, the audience its tokens "
	    "name (RFC 8707)."),
	{ .name = "authorization_servers", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_string_item,
	  .desc = "The OpenID provider's issuer." },
	{ .name = "bearer_methods_supported", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_string_item,
	  .desc = "header." },
	OUT("resource_name", SW_T_STRING, "Slipway."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_resource[] = {
	{ .status = 200, .fields = o_resource,
	  .desc = "Protected resource metadata (RFC 9728)." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_answer a_metrics[] = {
	{ .status = 200, .media = "text/plain; version=0.0.4",
	  .desc = "Prometheus text exposition format 0.0.4." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_token[] = {
	OUT("name", SW_T_STRING, "Its name."),
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = scopes, .desc = "What it may do." },
	OUT("created_ms", SW_T_INT, "When it was made."),
	OUT_OPT("last_used_ms", SW_T_INT, "When it was last used."),
	OUT("revoked", SW_T_BOOL, "It no longer works."),
	OUT_OPT("team", SW_T_STRING, "A service account's team."),
	{ .name = "role", .type = SW_T_STRING, .enumv = roles,
	  .desc = "A service account's role in its team." },
	OUT_OPT("expires_ms", SW_T_INT, "When it stops working."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_token_item[] = {
	{ .name = "token", .type = SW_T_OBJECT, .fields = o_token },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_token_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_token_item, .desc = "Every token, revoked too; never "
	  "the secret." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_token_list[] = {
	{ .status = 200, .fields = o_token_list, .desc = "The tokens." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_token_created[] = {
	OUT("name", SW_T_STRING, "Its name."),
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = scopes, .desc = "What it may do." },
	OUT_OPT("tools", SW_T_STRING, "The MCP tool classes it is "
	    "limited to."),
	OUT_OPT("team", SW_T_STRING, "A service account's team."),
	{ .name = "role", .type = SW_T_STRING, .enumv = roles,
	  .desc = "A service account's role in its team." },
	OUT_OPT("expires_ms", SW_T_INT, "When it stops working."),
	OUT("token", SW_T_STRING, "The secret (swt_...), shown this once."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_token_create[] = {
	{ .status = 201, .fields = o_token_created,
	  .desc = "Made; keep the secret now." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_token_revoked[] = {
	OUT("name", SW_T_STRING, "Its name."),
	OUT("revoked", SW_T_BOOL, "Always true."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_token_revoke[] = {
	{ .status = 200, .fields = o_token_revoked,
	  .desc = "Revoked (again, if it was)." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "health",
	  .method = "GET",
	  .path = "/api/v1/health",
	  .tag = "system",
	  .summary = "Liveness and state-store check",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP | SW_OP_ANY_HOST,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_health,
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
	  .touch = SW_TOUCH_SELF,
	  .answers = a_version,
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
	  .touch = SW_TOUCH_SELF,
	  .answers = a_openapi,
	},
	{
	  .name = "login",
	  .method = "POST",
	  .path = "/api/v1/login",
	  .tag = "system",
	  .summary = "Exchange a token for a browser session cookie",
	  .body = f_login,
	  .flags = SW_OP_PUBLIC | SW_OP_NO_MCP | SW_OP_SIGN_IN,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_principal,
	},
	{
	  .name = "login_options",
	  .method = "GET",
	  .path = "/api/v1/login/options",
	  .tag = "system",
	  .summary = "How a person may sign in (for the login page)",
	  .description = "Always a token; and, when an OpenID provider client "
	    "is configured, the provider's name and where its sign-in "
	    "starts.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_login_options,
	},
	{
	  .name = "login_provider",
	  .method = "GET",
	  .path = "/api/v1/login/oidc",
	  .tag = "system",
	  .summary = "Sign in through the OpenID provider (redirects there)",
	  .description = "Starts Authorization Code with PKCE: a 302 to the "
	    "provider's authorization endpoint, with state, nonce and the "
	    "code verifier in a short-lived cookie for the callback.  404 "
	    "when no provider client is configured.",
	  .flags = SW_OP_READONLY | SW_OP_PUBLIC | SW_OP_NO_MCP |
	    SW_OP_CONFIGURED,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_login_provider,
	},
	{
	  .name = "login_provider_callback",
	  .method = "GET",
	  .path = "/api/v1/login/oidc/callback",
	  .tag = "system",
	  .summary = "Where the OpenID provider returns the person",
	  .description = "Checks the state against the sign-in cookie, trades "
	    "the code (with the PKCE verifier) for tokens, checks the ID "
	    "token (signature, issuer, audience, expiry, nonce) and sets the "
	    "session cookie, then redirects to the UI.",
	  .params = f_login_callback,
	  .flags = SW_OP_PUBLIC | SW_OP_NO_MCP | SW_OP_CONFIGURED |
	    SW_OP_SIGN_IN,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_signed_in,
	},
	{
	  .name = "login_device",
	  .method = "POST",
	  .path = "/api/v1/login/device",
	  .tag = "system",
	  .summary = "Start a sign-in through the OpenID provider for a "
	    "device without a browser (RFC 8628)",
	  .description = "Asks the provider's device authorization endpoint "
	    "for a device code and a user code: the person opens "
	    "verification_uri anywhere, enters user_code and approves; the "
	    "client polls login_device_token every interval seconds.  404 "
	    "when no provider client is configured.",
	  .flags = SW_OP_PUBLIC | SW_OP_NO_MCP | SW_OP_CONFIGURED,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_device,
	},
	{
	  .name = "login_device_token",
	  .method = "POST",
	  .path = "/api/v1/login/device/token",
	  .tag = "system",
	  .summary = "Trade an approved device code for the person's "
	    "credential",
	  .description = "Polls the provider's token endpoint with the "
	    "device code: 202 while the person has not approved; once "
	    "approved, checks the ID token (signature, issuer, audience, "
	    "expiry) and maps the person's groups to teams as the browser "
	    "sign-in does, and answers a credential of that person "
	    "(swp_..., the lifetime of a browser session).  403 when the "
	    "person denied it, 401 when the code expired or is unknown.",
	  .body = f_device_token,
	  .flags = SW_OP_PUBLIC | SW_OP_NO_MCP | SW_OP_CONFIGURED |
	    SW_OP_SIGN_IN,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_device_token,
	},
	{
	  .name = "logout",
	  .method = "POST",
	  .path = "/api/v1/logout",
	  .tag = "system",
	  .summary = "End the browser session",
	  .flags = SW_OP_IDEMPOTENT | SW_OP_NO_MCP,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_principal,
	},
	{
	  .name = "protected_resource",
	  .method = "GET",
	  .path = "/.well-known/oauth-protected-resource",
	  .tag = "system",
	  .summary = "OAuth protected resource metadata (RFC 9728)",
	  .description = "Which OpenID provider issues the access tokens "
	    "Slipway accepts as Bearer tokens on the API and /mcp, and the "
	    "resource they must name as their audience (RFC 8707).  404 "
	    "when no provider is configured.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_PUBLIC |
	    SW_OP_NO_MCP,
	  .scope = SW_SCOPE_NONE,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_resource,
	},
	{
	  .name = "whoami",
	  .method = "GET",
	  .path = "/api/v1/whoami",
	  .tag = "system",
	  .summary = "The token behind this request and its scope",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_principal,
	},
	{
	  .name = "team_list",
	  .method = "GET",
	  .path = "/api/v1/teams",
	  .tag = "system",
	  .summary = "The caller's teams, its role in each and who their "
	    "members are",
	  .description = "A person sees the teams its provider groups "
	    "make it a member of, a service account its one team, a token "
	    "of no team every team: those of the configuration and those "
	    "service accounts belong to. The team's service accounts are "
	    "token_list's, for its platform-admins.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_SELF,
	  .answers = a_teams,
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
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_metrics,
	},
	{
	  .name = "token_list",
	  .method = "GET",
	  .path = "/api/v1/tokens",
	  .tag = "system",
	  .summary = "List API tokens (never their secrets)",
	  .params = f_token_list,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_NO_MCP |
	    SW_OP_TEAM_ARG,
	  .scope = SW_SCOPE_ADMIN,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_token_list,
	},
	{
	  .name = "token_create",
	  .method = "POST",
	  .path = "/api/v1/tokens",
	  .tag = "system",
	  .summary = "Create an API token; its secret is shown once",
	  .body = f_token_create,
	  .flags = SW_OP_NO_MCP | SW_OP_TEAM_ARG,
	  .scope = SW_SCOPE_ADMIN,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_token_create,
	},
	{
	  .name = "token_revoke",
	  .method = "DELETE",
	  .path = "/api/v1/tokens/{name}",
	  .tag = "system",
	  .summary = "Revoke an API token",
	  .params = f_token_name,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_NO_MCP |
	    SW_OP_TEAM_ARG,
	  .scope = SW_SCOPE_ADMIN,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_token_revoke,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_system = { rows,
	sizeof(rows) / sizeof(rows[0]) };
