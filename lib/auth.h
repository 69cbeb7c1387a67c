/*
 * auth.h: API tokens and browser sessions.
 *
 * A token reads "swt_<id>_<secret>": id is 16 hex characters that find
 * the row, secret is 256 random bits (base64url).  Only SHA-256 of the
 * whole token is stored, and it is compared in constant time.  A token
 * carries a scope: read < write < admin.  Logging in with a token makes
 * a session ("sws_<id>_<secret>", same rules) carried by an HttpOnly
 * SameSite=Strict cookie.  A token may belong to a team with a role
 * and expire (a service account).
 */
#ifndef SW_AUTH_H
#define SW_AUTH_H

#include <json-c/json.h>

#include "lib/db.h"
#include "lib/err.h"
#include "lib/limits.h"

enum sw_scope {
	SW_SCOPE_NONE = 0, /* no credentials (public routes only) */
	SW_SCOPE_READ,
	SW_SCOPE_WRITE,
	SW_SCOPE_ADMIN,
	SW_SCOPE__MAX
};

/*
 * A role in a team (docs/DESIGN.md, "Teams and roles"): a viewer looks
 * at the team's workloads, an operator also runs them, a platform-admin
 * also changes the platform (clusters, capacity, features, governance)
 * and the team's service accounts.  Ordered: each includes the one
 * before.
 */
enum sw_role {
	SW_ROLE_NONE = 0,
	SW_ROLE_VIEWER,
	SW_ROLE_OPERATOR,
	SW_ROLE_PLATFORM_ADMIN,
	SW_ROLE__MAX
};

/*
 * What a request touches, the one thing of an operation-table row the
 * team rule (sw_team_rule, lib/teams.h) reads besides its scope and
 * whether it changes anything (docs/DESIGN.md "Teams and roles"):
 *   SELF      the caller or public facts (whoami, version, login...):
 *             any signed-in caller.
 *   CLUSTER   a read of the shared clusters' summaries (clusters,
 *             nodes, quotas, events, operations): a member of any team.
 *   TEAM      a team's workloads (jobs, downloads, endpoints, logs):
 *             viewer of that team to read, operator to change.  The
 *             row takes a namespace, which dispatch sets to the team's
 *             (hyperpod-ns-<team>).
 *   PLATFORM  the platform (clusters, capacity, features, governance,
 *             service accounts): platform-admin (of the request's team
 *             when the row takes a team).
 * Every row of the table names one (api/optable.c refuses a row that
 * does not).
 */
enum sw_touch {
	SW_TOUCH_UNSET = 0,
	SW_TOUCH_SELF,
	SW_TOUCH_CLUSTER,
	SW_TOUCH_TEAM,
	SW_TOUCH_PLATFORM,
	SW_TOUCH__MAX
};

const char *sw_touch_name(enum sw_touch);

/* One team a principal is in, with its role there. */
struct sw_membership {
	char team[SW_MAX_TEAM + 1];
	enum sw_role role;
};

/* swt_ + 16 + _ + 43 + NUL */
#define SW_TOKEN_LEN (4 + 16 + 1 + 43 + 1)

struct sw_principal {
	enum sw_scope scope;
	char token_id[17];
	char name[SW_MAX_TOKEN_NAME + 1];
	int via_cookie; /* authenticated by session cookie */
	int via_provider; /* an OpenID provider's token */
	char groups[SW_MAX_PRINCIPAL_GROUPS + 1]; /* provider's */
	char tools[SW_MAX_TOOL_CLASSES + 1]; /* "": every tool */
	/* A service account's team and role ("" and NONE: a token of no
	 * team, limited by its scope alone). */
	char team[SW_MAX_TEAM + 1];
	enum sw_role role;
};

const char *sw_role_name(enum sw_role);
/* SW_ROLE_NONE when s names no role. */
enum sw_role sw_role_parse(const char *s);
/* The scope a role needs at least (viewer: read, operator: write,
 * platform-admin: admin). */
enum sw_scope sw_role_scope(enum sw_role);

const char *sw_scope_name(enum sw_scope);
/* SW_SCOPE_NONE when s names no scope. */
enum sw_scope sw_scope_parse(const char *s);

/* Create a token; the plaintext goes to out (SW_TOKEN_LEN) once and is
 * never stored.  SW_ECONFLICT if the name is taken, SW_EINVAL if the
 * name breaks [A-Za-z0-9._-]{1,64}. */
sw_err sw_token_create(
    struct sw_db *, const char *name, enum sw_scope, char out[SW_TOKEN_LEN]);
/* Make the live token name a service account: of team with role,
 * refused after expires_ms (0: never).  SW_ENOTFOUND, SW_EINVAL. */
sw_err sw_token_set_team(struct sw_db *, const char *name, const char *team,
    enum sw_role role, int64_t expires_ms);
/* [{name, scope, created_ms, last_used_ms, revoked, team, role,
 * expires_ms}], only team's when team is not NULL.  New reference. */
sw_err sw_token_list(struct sw_db *, const char *team, json_object **out);
/* SW_ENOTFOUND if no live token has that name (in team, when team is
 * not NULL). */
sw_err sw_token_revoke(struct sw_db *, const char *name, const char *team);
/* Limit the live token name to the MCP tool classes in tools (a comma
 * list of [a-z-] names, checked by the caller against mcp/mcp.h; ""
 * lifts the limit).  SW_ENOTFOUND, SW_EINVAL for a malformed list. */
sw_err sw_token_set_tools(struct sw_db *, const char *name, const char *tools);
/* Check a presented token; SW_EUNAUTH when unknown/revoked/malformed
 * or expired. */
sw_err sw_token_check(struct sw_db *, const char *token, struct sw_principal *);

/* Make a session for p; cookie value to out (SW_TOKEN_LEN). */
sw_err sw_session_create(
    struct sw_db *, const struct sw_principal *, char out[SW_TOKEN_LEN]);
sw_err sw_session_check(
    struct sw_db *, const char *cookie, struct sw_principal *);
sw_err sw_session_delete(struct sw_db *, const char *cookie);

#endif
