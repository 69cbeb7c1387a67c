/*
 * system.c: health, version, the OpenAPI document, login/logout and
 * token administration.
 */
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "handlers/handlers.h"
#include "lib/json.h"
#include "lib/oidc.h"
#include "lib/teams.h"
#include "api/optable.h"
#include "api/openapi.h"
#include "api/optable.h"

sw_err
h_health(struct sw_req *r)
{
	json_object *o = json_object_new_object();
	int v = sw_db_version(r->db);

	sw_json_add_str(o, "status", v > 0 ? "ok" : "degraded");
	sw_json_add_str(o, "state_store", v > 0 ? "ok" : "unavailable");
	sw_req_reply(r, v > 0 ? 200 : 503, o);
	return SW_OK;
}

sw_err
h_version(struct sw_req *r)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "name", PACKAGE_NAME);
	sw_json_add_str(o, "version", PACKAGE_VERSION);
	sw_json_add_str(o, "api", "v1");
	sw_json_add_int(o, "schema_version", sw_db_version(r->db));
	sw_json_add_str(o, "backend", r->cfg->sandbox ? "sandbox" : "aws");
	sw_json_add_str(o, "region", r->cfg->region);
	sw_req_reply(r, 200, o);
	return SW_OK;
}

sw_err
h_openapi(struct sw_req *r)
{
	sw_req_reply(r, 200, sw_openapi_document());
	return SW_OK;
}

static json_object *
principal_json(const struct sw_principal *p)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "name", p->name);
	sw_json_add_str(o, "scope", sw_scope_name(p->scope));
	sw_json_add_str(o, "via",
	    p->via_cookie         ? "session"
		: p->via_provider ? "provider"
				  : "token");
	if (p->via_provider)
		sw_json_add_str(o, "groups", p->groups);
	return o;
}

/* principal_json and the teams the rule sees (sw_principal_teams). */
static json_object *
principal_teams_json(const struct sw_config *cfg, const struct sw_principal *p)
{
	struct sw_membership m[SW_MAX_MEMBERSHIPS];
	json_object *o = principal_json(p), *arr = json_object_new_array();
	int n = sw_principal_teams(cfg, p, m, SW_MAX_MEMBERSHIPS), i;

	for (i = 0; i < n; i++)
		json_object_array_add(arr,
		    sw_jo("team", sw_js(m[i].team), "role",
			sw_js(sw_role_name(m[i].role)), NULL));
	sw_json_add_bool(o, "all_teams", n < 0);
	json_object_object_add(o, "teams", arr);
	return o;
}

sw_err
h_login(struct sw_req *r)
{
	char cookie[SW_TOKEN_LEN];
	struct sw_principal p;
	sw_err e;

	e = sw_token_check(r->db, sw_json_get_str(r->args, "token"), &p);
	if (e == SW_EUNAUTH)
		return sw_req_fail(r, e,
		    "the token is unknown, revoked or "
		    "malformed");
	if (e != SW_OK)
		return sw_req_fail(r, e, "token check failed");
	if ((e = sw_session_create(r->db, &p, cookie)) != SW_OK)
		return sw_req_fail(r, e, "cannot create a session");
	sw_req_header(r,
	    "Set-Cookie: sw_session=%s; Path=/; HttpOnly; "
	    "SameSite=Strict; Max-Age=%d",
	    cookie, SW_SESSION_TTL);
	OPENSSL_cleanse(cookie, sizeof(cookie));
	p.via_cookie = 1;
	sw_req_reply(r, 200, principal_teams_json(r->cfg, &p));
	return SW_OK;
}

sw_err
h_logout(struct sw_req *r)
{
	char cookie[SW_TOKEN_LEN + 8];

	if (sw_req_cookie(r, "sw_session", cookie, sizeof(cookie)))
		(void)sw_session_delete(r->db, cookie);
	sw_req_header(r,
	    "Set-Cookie: sw_session=; Path=/; HttpOnly; "
	    "SameSite=Strict; Max-Age=0");
	sw_req_reply(r, 200, principal_teams_json(r->cfg, &r->who));
	return SW_OK;
}

sw_err
h_protected_resource(struct sw_req *r)
{
	json_object *o = sw_oidc_resource_metadata(r->cfg);

	if (o == NULL)
		return sw_req_fail(r, SW_ENOTFOUND,
		    "no OpenID provider is "
		    "configured (oidc.issuer in slipway.conf)");
	sw_req_reply(r, 200, o);
	return SW_OK;
}

/* Where the provider sends the person back: public_url's callback. */
static sw_err
callback_uri(struct sw_req *r, char *out, size_t outsz)
{
	char res[512];

	if (sw_oidc_resource(r->cfg, res, sizeof(res)) != SW_OK ||
	    sw_fmt(out, outsz, "%s/api/v1/login/oidc/callback", res) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "public_url is too long");
	return SW_OK;
}

sw_err
h_login_options(struct sw_req *r)
{
	json_object *o = json_object_new_object();
	char host[300];

	sw_json_add_bool(o, "token", 1);
	if (sw_oidc_login_name(r->cfg, host, sizeof(host)) == SW_OK)
		json_object_object_add(o, "provider",
		    sw_jo("name", sw_js(host), "url",
			sw_js("/api/v1/login/oidc"), NULL));
	sw_req_reply(r, 200, o);
	return SW_OK;
}

sw_err
h_login_provider(struct sw_req *r)
{
	char url[4096], cookie[SW_OIDC_LOGIN_COOKIE], cb[600], why[160];
	sw_err e;

	if ((e = callback_uri(r, cb, sizeof(cb))) != SW_OK)
		return e;
	if ((e = sw_oidc_login_begin(r->cfg, cb, url, sizeof(url), cookie, why,
		 sizeof(why))) != SW_OK)
		return sw_req_fail(r, e, "%s", why);
	/* Lax: the provider's redirect back is a cross-site navigation. */
	sw_req_header(r,
	    "Set-Cookie: sw_oidc=%s; Path=/api/v1/login/oidc; "
	    "HttpOnly; SameSite=Lax; Max-Age=600",
	    cookie);
	OPENSSL_cleanse(cookie, sizeof(cookie));
	sw_req_header(r, "Location: %s", url);
	sw_req_reply(r, 302, sw_jo("location", sw_js(url), NULL));
	return SW_OK;
}

sw_err
h_login_provider_callback(struct sw_req *r)
{
	char sess[SW_TOKEN_LEN], flow[SW_OIDC_LOGIN_COOKIE + 8], cb[600];
	char why[200];
	const char *err = sw_json_get_str(r->args, "error");
	struct sw_principal p;
	sw_err e;

	/* The sign-in cookie is spent whatever happens. */
	sw_req_header(r,
	    "Set-Cookie: sw_oidc=; Path=/api/v1/login/oidc; "
	    "HttpOnly; SameSite=Lax; Max-Age=0");
	if (err != NULL)
		return sw_req_fail(r, SW_EUNAUTH,
		    "the provider did not sign "
		    "you in: %s",
		    err);
	if (sw_json_get_str(r->args, "code") == NULL) {
		sw_ferr_add(&r->ferrs, "code", "required", "is required");
		return sw_req_fail(r, SW_EINVAL, "code: is required");
	}
	if (!sw_req_cookie(r, "sw_oidc", flow, sizeof(flow)))
		flow[0] = '\0';
	if ((e = callback_uri(r, cb, sizeof(cb))) != SW_OK)
		return e;
	e = sw_oidc_login_end(r->cfg, cb, sw_json_get_str(r->args, "code"),
	    sw_json_get_str(r->args, "state"), flow[0] ? flow : NULL, &p, why,
	    sizeof(why));
	OPENSSL_cleanse(flow, sizeof(flow));
	if (e != SW_OK)
		return sw_req_fail(r, e, "%s", why);
	if ((e = sw_session_create(r->db, &p, sess)) != SW_OK)
		return sw_req_fail(r, e, "cannot create a session");
	sw_req_header(r,
	    "Set-Cookie: sw_session=%s; Path=/; HttpOnly; "
	    "SameSite=Strict; Max-Age=%d",
	    sess, SW_SESSION_TTL);
	OPENSSL_cleanse(sess, sizeof(sess));
	sw_req_header(r, "Location: /");
	p.via_cookie = 1;
	sw_req_reply(r, 302, principal_teams_json(r->cfg, &p));
	return SW_OK;
}

sw_err
h_login_device(struct sw_req *r)
{
	json_object *d = NULL;
	char why[200];
	sw_err e;

	if ((e = sw_oidc_device_begin(r->cfg, &d, why, sizeof(why))) != SW_OK)
		return sw_req_fail(r, e, "%s", why);
	sw_req_reply(r, 200,
	    sw_jo("device_code", sw_js(sw_json_get_str(d, "device_code")),
		"user_code", sw_js(sw_json_get_str(d, "user_code")),
		"verification_uri",
		sw_js(sw_json_get_str(d, "verification_uri")),
		"verification_uri_complete",
		sw_json_get_str(d, "verification_uri_complete")
		    ? sw_js(sw_json_get_str(d, "verification_uri_complete"))
		    : NULL,
		"expires_in", sw_ji(sw_json_get_int(d, "expires_in", 600)),
		"interval", sw_ji(sw_json_get_int(d, "interval", 5)), NULL));
	json_object_put(d);
	return SW_OK;
}

sw_err
h_login_device_token(struct sw_req *r)
{
	char sess[SW_TOKEN_LEN], why[200];
	const char *pending = NULL;
	struct sw_principal p;
	sw_err e;

	e = sw_oidc_device_end(r->cfg, sw_json_get_str(r->args, "device_code"),
	    &p, &pending, why, sizeof(why));
	if (e == SW_ECONFLICT && pending != NULL) {
		sw_req_reply(r, 202,
		    sw_jo("pending", sw_js(pending), "interval",
			sw_ji(strcmp(pending, "slow_down") == 0 ? 10 : 5),
			NULL));
		return SW_OK;
	}
	if (e != SW_OK)
		return sw_req_fail(r, e, "%s", why);
	if ((e = sw_session_create(r->db, &p, sess)) != SW_OK)
		return sw_req_fail(r, e, "cannot create a session");
	sw_req_reply(r, 200,
	    sw_jo("token", sw_js(sess), "expires_in", sw_ji(SW_SESSION_TTL),
		"principal", principal_teams_json(r->cfg, &p), NULL));
	OPENSSL_cleanse(sess, sizeof(sess));
	return SW_OK;
}

sw_err
h_whoami(struct sw_req *r)
{
	sw_req_reply(r, 200, principal_teams_json(r->cfg, &r->who));
	return SW_OK;
}

/* A team of team_list: its name, the caller's role in it (none: not
 * said) and the provider groups the configuration maps to each role. */
static json_object *
team_entry(const struct sw_config *cfg, const char *team, enum sw_role role)
{
	json_object *conf = sw_json_get(sw_json_get(cfg->root, "teams"), team);
	json_object *groups = json_object_new_object(), *list;
	int ro;

	for (ro = SW_ROLE_VIEWER; ro < SW_ROLE__MAX; ro++)
		if ((list = sw_json_get(conf, sw_role_name(ro))) != NULL &&
		    json_object_is_type(list, json_type_array))
			json_object_object_add(
			    groups, sw_role_name(ro), json_object_get(list));
	return sw_jo("team", sw_js(team), "role",
	    role == SW_ROLE_NONE ? NULL : sw_js(sw_role_name(role)), "groups",
	    groups, NULL);
}

/* Add team to items unless seen holds it already. */
static void
team_add(json_object *items, json_object *seen, const struct sw_config *cfg,
    const char *team, enum sw_role role)
{
	if (team == NULL || sw_json_get(seen, team) != NULL)
		return;
	json_object_object_add(seen, team, json_object_new_boolean(1));
	json_object_array_add(items, team_entry(cfg, team, role));
}

static int
by_team(const void *a, const void *b)
{
	return strcmp(sw_json_get_str(*(json_object *const *)a, "team"),
	    sw_json_get_str(*(json_object *const *)b, "team"));
}

sw_err
h_team_list(struct sw_req *r)
{
	struct sw_membership m[SW_MAX_MEMBERSHIPS];
	json_object *items = json_object_new_array();
	json_object *seen = json_object_new_object(), *toks = NULL, *conf;
	int n = sw_principal_teams(r->cfg, &r->who, m, SW_MAX_MEMBERSHIPS);
	size_t i;
	sw_err e = SW_OK;

	for (i = 0; n > 0 && i < (size_t)n; i++)
		team_add(items, seen, r->cfg, m[i].team, m[i].role);
	if (n < 0) { /* every team: configured, then accounts' */
		conf = sw_json_get(r->cfg->root, "teams");
		if (conf != NULL &&
		    json_object_is_type(conf, json_type_object)) {
			json_object_object_foreach(conf, team, roles)
			{
				(void)roles;
				team_add(
				    items, seen, r->cfg, team, SW_ROLE_NONE);
			}
		}
		if ((e = sw_token_list(r->db, NULL, &toks)) == SW_OK)
			for (i = 0; i < json_object_array_length(toks); i++)
				team_add(items, seen, r->cfg,
				    sw_json_get_str(
					json_object_array_get_idx(toks, i),
					"team"),
				    SW_ROLE_NONE);
		json_object_put(toks);
	}
	json_object_put(seen);
	if (e != SW_OK) {
		json_object_put(items);
		return sw_req_fail(r, e, "cannot list the service accounts");
	}
	json_object_array_sort(items, by_team);
	sw_req_reply(r, 200,
	    sw_jo("all_teams", json_object_new_boolean(n < 0), "items", items,
		NULL));
	return SW_OK;
}

sw_err
h_token_list(struct sw_req *r)
{
	json_object *list, *o;
	sw_err e;

	if ((e = sw_token_list(
		 r->db, sw_json_get_str(r->args, "team"), &list)) != SW_OK)
		return sw_req_fail(r, e, "cannot list tokens");
	o = json_object_new_object();
	json_object_object_add(o, "items", list);
	sw_req_reply(r, 200, o);
	return SW_OK;
}

/*
 * A service account's role and scope: a role needs a team and gives
 * the scope (a scope given too must be the same); without a role, the
 * scope is required.  SW_OK, or the request failed (400 naming the
 * field).
 */
static sw_err
account_args(struct sw_req *r, enum sw_role *role, enum sw_scope *scope)
{
	const char *team = sw_json_get_str(r->args, "team");
	const char *sc = sw_json_get_str(r->args, "scope");

	*role = sw_role_parse(sw_json_get_str(r->args, "role"));
	*scope = sw_scope_parse(sc);
	if ((team != NULL) != (*role != SW_ROLE_NONE)) {
		sw_ferr_add(&r->ferrs, team ? "role" : "team", "required",
		    "a service account has both a team and a role");
		return sw_req_fail(r, SW_EINVAL, "%s: required with %s",
		    team ? "role" : "team", team ? "team" : "role");
	}
	if (*role == SW_ROLE_NONE && sc == NULL) {
		sw_ferr_add(&r->ferrs, "scope", "required",
		    "is required without a role");
		return sw_req_fail(r, SW_EINVAL,
		    "scope: required without a "
		    "role");
	}
	if (*role != SW_ROLE_NONE) {
		if (sc != NULL && *scope != sw_role_scope(*role)) {
			sw_ferr_add(&r->ferrs, "scope", "role",
			    "a %s's scope "
			    "is %s",
			    sw_role_name(*role),
			    sw_scope_name(sw_role_scope(*role)));
			return sw_req_fail(r, SW_EINVAL,
			    "scope: a %s's scope "
			    "is %s",
			    sw_role_name(*role),
			    sw_scope_name(sw_role_scope(*role)));
		}
		*scope = sw_role_scope(*role);
	}
	return SW_OK;
}

sw_err
h_token_create(struct sw_req *r)
{
	char tok[SW_TOKEN_LEN];
	const char *name = sw_json_get_str(r->args, "name");
	const char *tools = sw_json_get_str(r->args, "tools");
	const char *team = sw_json_get_str(r->args, "team");
	json_object *o, *ttl = sw_json_get(r->args, "ttl_seconds");
	int64_t expires = 0;
	enum sw_scope scope;
	enum sw_role role;
	sw_err e;

	if (tools != NULL && !sw_tool_classes_ok(tools))
		return sw_req_fail(r, SW_EINVAL,
		    "tools: '%s' names a class "
		    "that is not read-only, diagnose or a tool tag",
		    tools);
	if (account_args(r, &role, &scope) != SW_OK)
		return r->err;
	if (ttl != NULL)
		expires =
		    sw_db_now_ms(r->db) + json_object_get_int64(ttl) * 1000;
	e = sw_token_create(r->db, name, scope, tok);
	if (e == SW_ECONFLICT)
		return sw_req_fail(r, e, "a token named '%s' exists", name);
	if (e == SW_OK && tools != NULL)
		e = sw_token_set_tools(r->db, name, tools);
	if (e == SW_OK && (team != NULL || expires > 0))
		e = sw_token_set_team(r->db, name, team, role, expires);
	if (e != SW_OK) {
		(void)sw_token_revoke(r->db, name, NULL);
		return sw_req_fail(r, e, "cannot create the token");
	}
	o = sw_jo(
	    "name", sw_js(name), "scope", sw_js(sw_scope_name(scope)), NULL);
	if (tools != NULL)
		sw_json_add_str(o, "tools", tools);
	if (team != NULL) {
		sw_json_add_str(o, "team", team);
		sw_json_add_str(o, "role", sw_role_name(role));
	}
	if (expires > 0)
		sw_json_add_int(o, "expires_ms", expires);
	sw_json_add_str(o, "token", tok);
	OPENSSL_cleanse(tok, sizeof(tok));
	sw_req_reply(r, 201, o);
	return SW_OK;
}

sw_err
h_token_revoke(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *team = sw_json_get_str(r->args, "team");
	json_object *o;
	sw_err e;

	if ((e = sw_token_revoke(r->db, name, team)) == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no live token named '%s'%s%s", name,
		    team ? " in team " : "", team ? team : "");
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot revoke the token");
	o = json_object_new_object();
	sw_json_add_str(o, "name", name);
	sw_json_add_bool(o, "revoked", 1);
	sw_req_reply(r, 200, o);
	return SW_OK;
}
