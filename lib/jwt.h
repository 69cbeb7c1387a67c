/*
 * jwt.h: JSON Web Tokens in JWS compact form (RFC 7515, RFC 7519), as
 * an OpenID provider issues its access tokens, checked here against the
 * provider's published keys (a JWK Set, RFC 7517) with OpenSSL.
 *
 * Only two asymmetric algorithms are known: RS256 (RSASSA-PKCS1-v1_5
 * with SHA-256) and ES256 (ECDSA on P-256 with SHA-256).  "none" and
 * every HMAC algorithm are refused before a key is looked at, and a key
 * is used only for the algorithm of its own type (RSA for RS256, EC
 * P-256 for ES256), so a public key is never taken for a shared secret.
 * Nothing here reaches the network: lib/oidc.c fetches the keys.
 */
#ifndef SW_JWT_H
#define SW_JWT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/err.h"

/* Algorithms, as bits of a set (sw_jwt_alg_bit). */
#define SW_JWT_RS256 0x01u
#define SW_JWT_ES256 0x02u

struct sw_jwt {
	json_object *header; /* owned: the JOSE header */
	json_object *claims; /* owned: the payload */
	char *signed_part; /* owned: "<header>.<payload>" */
	size_t signed_len;
	unsigned char *sig; /* owned: the decoded signature */
	size_t sig_len;
	unsigned alg; /* SW_JWT_*; 0: none we know */
	const char *alg_name; /* borrowed from header */
	const char *kid; /* borrowed from header; NULL: none */
};

/* What a token's claims must say. */
struct sw_jwt_rules {
	const char *issuer; /* iss, exactly */
	const char *audience; /* one of aud (a trailing '/' aside) */
	int64_t now; /* seconds since the epoch */
	int64_t skew; /* seconds of clock difference */
};

/* SW_JWT_RS256 or SW_JWT_ES256 for its name; 0 for any other name. */
unsigned sw_jwt_alg_bit(const char *name);

/*
 * Split and decode token (NUL-terminated, at most SW_MAX_JWT bytes)
 * into j: base64url parts, a header and payload that are JSON objects,
 * a string alg and, if present, a string kid; no "crit" extensions.
 * SW_EUNAUTH with why when malformed (j is then empty).  Free j with
 * sw_jwt_free in either case.
 */
sw_err sw_jwt_parse(
    const char *token, struct sw_jwt *j, char *why, size_t whysz);
void sw_jwt_free(struct sw_jwt *j);

/*
 * The key of jwks ({"keys": [...]}, borrowed) that may verify j: the
 * one whose kid is j's kid, or when j names none, the only key of its
 * type.  A borrowed reference, or NULL.
 */
json_object *sw_jwks_find(json_object *jwks, const struct sw_jwt *j);

/*
 * Verify j's signature with jwk (borrowed): the key's type must fit j's
 * algorithm (and its "alg" and "use", when given, must agree).  SW_OK,
 * or SW_EUNAUTH with why.
 */
sw_err sw_jwt_verify(
    const struct sw_jwt *j, json_object *jwk, char *why, size_t whysz);

/* iss, aud, exp (required), nbf and iat against rules.  SW_OK, or
 * SW_EUNAUTH with why. */
sw_err sw_jwt_check_claims(const struct sw_jwt *j,
    const struct sw_jwt_rules *rules, char *why, size_t whysz);

#endif
