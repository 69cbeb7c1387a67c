/*
 * auth.h: API tokens and browser sessions.
 *
 * A token reads "swt_<id>_<secret>": id is 16 hex characters that find
 * the row, secret is 256 random bits (base64url).  Only SHA-256 of the
 * whole token is stored, and it is compared in constant time.  A token
 * carries a scope: read < write < admin.  Logging in with a token makes
 * a session ("sws_<id>_<secret>", same rules) carried by an HttpOnly
 * SameSite=Strict cookie.
 */
#ifndef SW_AUTH_H
#define SW_AUTH_H

#include <json-c/json.h>

#include "lib/db.h"
#include "lib/err.h"
#include "lib/limits.h"

enum sw_scope {
	SW_SCOPE_NONE = 0,	/* no credentials (public routes only) */
	SW_SCOPE_READ,
	SW_SCOPE_WRITE,
	SW_SCOPE_ADMIN,
	SW_SCOPE__MAX
};

/* swt_ + 16 + _ + 43 + NUL */
#define SW_TOKEN_LEN	(4 + 16 + 1 + 43 + 1)

struct sw_principal {
	enum sw_scope	scope;
	char		token_id[17];
	char		name[SW_MAX_TOKEN_NAME + 1];
	int		via_cookie;	/* authenticated by session cookie */
	int		via_provider;	/* an OpenID provider's token */
	char		groups[SW_MAX_PRINCIPAL_GROUPS + 1]; /* provider's */
	char		tools[SW_MAX_TOOL_CLASSES + 1]; /* "": every tool */
};

const char	*sw_scope_name(enum sw_scope);
/* SW_SCOPE_NONE when s names no scope. */
enum sw_scope	 sw_scope_parse(const char *s);

/* Create a token; the plaintext goes to out (SW_TOKEN_LEN) once and is
 * never stored.  SW_ECONFLICT if the name is taken, SW_EINVAL if the
 * name breaks [A-Za-z0-9._-]{1,64}. */
sw_err	sw_token_create(struct sw_db *, const char *name, enum sw_scope,
	    char out[SW_TOKEN_LEN]);
/* [{name, scope, created_ms, last_used_ms, revoked}].  New reference. */
sw_err	sw_token_list(struct sw_db *, json_object **out);
/* SW_ENOTFOUND if no live token has that name. */
sw_err	sw_token_revoke(struct sw_db *, const char *name);
/* Limit the live token name to the MCP tool classes in tools (a comma
 * list of [a-z-] names, checked by the caller against mcp/mcp.h; ""
 * lifts the limit).  SW_ENOTFOUND, SW_EINVAL for a malformed list. */
sw_err	sw_token_set_tools(struct sw_db *, const char *name,
	    const char *tools);
/* Check a presented token; SW_EUNAUTH when unknown/revoked/malformed. */
sw_err	sw_token_check(struct sw_db *, const char *token,
	    struct sw_principal *);

/* Make a session for p; cookie value to out (SW_TOKEN_LEN). */
sw_err	sw_session_create(struct sw_db *, const struct sw_principal *,
	    char out[SW_TOKEN_LEN]);
sw_err	sw_session_check(struct sw_db *, const char *cookie,
	    struct sw_principal *);
sw_err	sw_session_delete(struct sw_db *, const char *cookie);

#endif
