/*
 * oidc.h: an OpenID Connect provider's access tokens as Bearer
 * credentials.  The provider is configuration (config.json's "oidc":
 * issuer, audience, algorithms, claim names, clock skew, scope; see
 * slipway.conf(5)); its keys are found through discovery
 * (<issuer>/.well-known/openid-configuration, then jwks_uri) and kept
 * in this process: fetched again after SW_OIDC_JWKS_TTL_MS, and when a
 * token names a kid no cached key has (at most once per
 * SW_OIDC_REFRESH_MIN_MS).  With no usable keys every provider token is
 * refused: the check fails closed.
 *
 * lib/ does no HTTP: the program gives a fetch function (cloud/http.c's
 * http_get_document) with sw_oidc_set_fetch before serving.
 */
#ifndef SW_OIDC_H
#define SW_OIDC_H

#include <stddef.h>

#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/err.h"

/* GET url, or POST form (application/x-www-form-urlencoded) when it is
 * not NULL, with an Authorization header when authorization is not
 * NULL, into out (capped); SW_OK only for a 200, out then holding the
 * body of any other answer too (an OAuth error's JSON). */
typedef sw_err (*sw_oidc_fetch_fn)(const char *url, const char *form,
    const char *authorization, struct sw_buf *out);

void sw_oidc_set_fetch(sw_oidc_fetch_fn);

/*
 * Check any Bearer credential: a Slipway token (swt_...), or, when the
 * configuration names an OpenID provider, that provider's access token
 * (lib/oidc.h).  SW_EUNAUTH with why (for the caller; never the
 * secret) when refused; other errors are the store's.
 */
sw_err sw_bearer_check(struct sw_db *, const struct sw_config *,
    const char *token, struct sw_principal *, char *why, size_t whysz);

/* True when the configuration names a provider (oidc.issuer). */
int sw_oidc_enabled(const struct sw_config *);

/*
 * The resource this Slipway is (RFC 8707, RFC 9728): public_url, or
 * http://127.0.0.1:<port> when none is configured.  Into out; SW_EINVAL
 * when it does not fit.
 */
sw_err sw_oidc_resource(const struct sw_config *, char *out, size_t outsz);

/*
 * Check a provider access token and fill p: the name from the
 * configured user claim, its groups, the configured scope.  SW_EUNAUTH
 * with why (for the person; never the token) when it is refused,
 * including when the provider's keys cannot be had.
 */
sw_err sw_oidc_check(const struct sw_config *, const char *token,
    struct sw_principal *p, char *why, size_t whysz);

/*
 * The WWW-Authenticate value of a 401: Bearer, with the resource
 * metadata's URL when a provider is configured and error="<error>"
 * when error is not NULL.
 */
void sw_oidc_challenge(
    const struct sw_config *, const char *error, char *out, size_t outsz);

/*
 * The protected resource metadata document (RFC 9728): a new object,
 * or NULL when no provider is configured.
 */
json_object *sw_oidc_resource_metadata(const struct sw_config *);

/*
 * The web UI's sign-in: Authorization Code with PKCE (S256), state and
 * nonce.  sw_oidc_login_begin gives the provider's authorization URL
 * for redirect_uri and the value of the short-lived cookie that carries
 * state, nonce and the code verifier to the callback (both into the
 * caller's buffers).  sw_oidc_login_end checks state against that
 * cookie, trades the code at the token endpoint (client_id and
 * client_secret, HTTP Basic), checks the ID token (signature, iss, aud
 * = client_id, exp, nonce) and fills p as for an access token.  Both
 * SW_EUNAUTH with why when refused, SW_EUNAVAIL when the provider
 * cannot be reached, SW_ENOTFOUND when no client is configured.
 */
/* "<state>.<nonce>.<verifier>", 43 characters each, and a NUL. */
#define SW_OIDC_LOGIN_COOKIE (3 * 43 + 2 + 1)
/* The provider's name for a "Sign in with" button (its issuer's host)
 * into out; SW_ENOTFOUND when no provider client is configured. */
sw_err sw_oidc_login_name(const struct sw_config *, char *out, size_t outsz);
sw_err sw_oidc_login_begin(const struct sw_config *, const char *redirect_uri,
    char *url, size_t urlsz, char cookie[SW_OIDC_LOGIN_COOKIE], char *why,
    size_t whysz);
sw_err sw_oidc_login_end(const struct sw_config *, const char *redirect_uri,
    const char *code, const char *state, const char *cookie,
    struct sw_principal *p, char *why, size_t whysz);

/*
 * A command line's sign-in: the device authorization grant (RFC 8628).
 * sw_oidc_device_begin asks the provider's
 * device_authorization_endpoint (client_id and client_secret, HTTP
 * Basic) and gives its answer (device_code, user_code,
 * verification_uri...) in *out.  sw_oidc_device_end trades device_code
 * at the token endpoint: SW_OK with p filled as the browser sign-in
 * does (the ID token checked: signature, iss, aud, exp); SW_ECONFLICT
 * with *pending "authorization_pending" or "slow_down" while the person
 * has not approved; SW_EFORBIDDEN when they denied it; SW_EUNAUTH when
 * the code expired or the provider refused it; SW_EUNAVAIL, SW_ENOTFOUND
 * as above.  why says which.
 */
sw_err sw_oidc_device_begin(
    const struct sw_config *, json_object **out, char *why, size_t whysz);
sw_err sw_oidc_device_end(const struct sw_config *, const char *device_code,
    struct sw_principal *p, const char **pending, char *why, size_t whysz);

#endif
