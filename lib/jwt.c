/*
 * jwt.c: parse a JWS compact token and check its signature and claims
 * (see jwt.h).  Keys come from JWKs and become OpenSSL keys through
 * EVP_PKEY_fromdata; an ES256 signature, raw r||s in JWS, is turned
 * into the DER ECDSA-Sig-Value OpenSSL verifies.
 */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/jwt.h"
#include "lib/limits.h"

unsigned
sw_jwt_alg_bit(const char *name)
{
	if (name == NULL)
		return 0;
	if (strcmp(name, "RS256") == 0)
		return SW_JWT_RS256;
	if (strcmp(name, "ES256") == 0)
		return SW_JWT_ES256;
	return 0;
}

static int
b64url_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-')
		return 62;
	if (c == '_')
		return 63;
	return -1;
}

/* Decode len base64url characters (no padding) into a new buffer of
 * *outlen bytes (NUL-terminated, not counted); NULL when malformed. */
static unsigned char *
b64url_decode(const char *s, size_t len, size_t *outlen)
{
	unsigned char *out;
	unsigned int acc = 0;
	size_t i, n = 0;
	int bits = 0, v;

	if (len % 4 == 1 || (out = sw_malloc(len * 3 / 4 + 2)) == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if ((v = b64url_value(s[i])) < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	/* Leftover bits must be zero: one token has one spelling. */
	if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
		free(out);
		return NULL;
	}
	out[n] = '\0';
	*outlen = n;
	return out;
}

/* One base64url part that decodes to a JSON object. */
static json_object *
json_part(const char *s, size_t len, const char *what, char *why, size_t whysz)
{
	unsigned char *raw;
	json_object *o = NULL;
	char jwhy[96];
	size_t n;

	if ((raw = b64url_decode(s, len, &n)) == NULL) {
		sw_fmt_text(why, whysz, "the %s is not base64url", what);
		return NULL;
	}
	if (sw_json_parse((const char *)raw, n, &o, jwhy, sizeof(jwhy)) !=
		SW_OK ||
	    !json_object_is_type(o, json_type_object)) {
		sw_fmt_text(why, whysz, "the %s is not a JSON object", what);
		json_object_put(o);
		o = NULL;
	}
	free(raw);
	return o;
}

void
sw_jwt_free(struct sw_jwt *j)
{
	json_object_put(j->header);
	json_object_put(j->claims);
	free(j->signed_part);
	free(j->sig);
	memset(j, 0, sizeof(*j));
}

static sw_err
parse_header(struct sw_jwt *j, char *why, size_t whysz)
{
	json_object *kid;

	j->alg_name = sw_json_get_str(j->header, "alg");
	if (j->alg_name == NULL) {
		sw_fmt_text(why, whysz, "the header has no alg");
		return SW_EUNAUTH;
	}
	if (sw_json_get(j->header, "crit") != NULL) {
		sw_fmt_text(why, whysz, "the header names critical extensions");
		return SW_EUNAUTH;
	}
	if ((kid = sw_json_get(j->header, "kid")) != NULL) {
		if (!json_object_is_type(kid, json_type_string)) {
			sw_fmt_text(why, whysz, "kid is not a string");
			return SW_EUNAUTH;
		}
		j->kid = json_object_get_string(kid);
	}
	j->alg = sw_jwt_alg_bit(j->alg_name);
	return SW_OK;
}

sw_err
sw_jwt_parse(const char *token, struct sw_jwt *j, char *why, size_t whysz)
{
	const char *d1, *d2;
	size_t len;

	memset(j, 0, sizeof(*j));
	why[0] = '\0';
	if (token == NULL || (len = strnlen(token, SW_MAX_JWT + 1)) == 0 ||
	    len > SW_MAX_JWT) {
		sw_fmt_text(why, whysz, "not a token of 1 to %d characters",
		    SW_MAX_JWT);
		return SW_EUNAUTH;
	}
	if ((d1 = strchr(token, '.')) == NULL ||
	    (d2 = strchr(d1 + 1, '.')) == NULL || strchr(d2 + 1, '.')) {
		sw_fmt_text(why, whysz, "not three dot-separated parts");
		return SW_EUNAUTH;
	}
	if ((j->header = json_part(
		 token, (size_t)(d1 - token), "header", why, whysz)) == NULL ||
	    (j->claims = json_part(
		 d1 + 1, (size_t)(d2 - d1 - 1), "payload", why, whysz)) == NULL)
		goto bad;
	if ((j->sig = b64url_decode(d2 + 1, strlen(d2 + 1), &j->sig_len)) ==
	    NULL) {
		sw_fmt_text(why, whysz, "the signature is not base64url");
		goto bad;
	}
	if ((j->signed_part = sw_strndup(token, (size_t)(d2 - token))) ==
	    NULL) {
		sw_fmt_text(why, whysz, "out of memory");
		goto bad;
	}
	j->signed_len = (size_t)(d2 - token);
	if (parse_header(j, why, whysz) != SW_OK)
		goto bad;
	return SW_OK;
bad:
	sw_jwt_free(j);
	return SW_EUNAUTH;
}

/* The key type and curve an algorithm needs. */
static int
jwk_fits(json_object *jwk, unsigned alg)
{
	const char *kty = sw_json_get_str(jwk, "kty");
	const char *crv = sw_json_get_str(jwk, "crv");

	if (kty == NULL)
		return 0;
	if (alg == SW_JWT_RS256)
		return strcmp(kty, "RSA") == 0;
	if (alg == SW_JWT_ES256)
		return strcmp(kty, "EC") == 0 && crv != NULL &&
		    strcmp(crv, "P-256") == 0;
	return 0;
}

json_object *
sw_jwks_find(json_object *jwks, const struct sw_jwt *j)
{
	json_object *keys = sw_json_get(jwks, "keys"), *k, *found = NULL;
	const char *kid;
	size_t i, n = 0;

	if (keys == NULL || !json_object_is_type(keys, json_type_array) ||
	    j->alg == 0)
		return NULL;
	for (i = 0; i < json_object_array_length(keys); i++) {
		k = json_object_array_get_idx(keys, i);
		if (!json_object_is_type(k, json_type_object) ||
		    !jwk_fits(k, j->alg))
			continue;
		kid = sw_json_get_str(k, "kid");
		if (j->kid != NULL) {
			if (kid != NULL && strcmp(kid, j->kid) == 0)
				return k;
			continue;
		}
		found = k;
		n++;
	}
	return n == 1 ? found : NULL;
}

/* A base64url member of a JWK as a big number; NULL when absent. */
static BIGNUM *
jwk_bn(json_object *jwk, const char *name, size_t *bytes)
{
	const char *v = sw_json_get_str(jwk, name);
	unsigned char *raw;
	BIGNUM *bn;
	size_t n;

	if (v == NULL || (raw = b64url_decode(v, strlen(v), &n)) == NULL)
		return NULL;
	bn = n > 0 ? BN_bin2bn(raw, (int)n, NULL) : NULL;
	free(raw);
	if (bytes != NULL)
		*bytes = n;
	return bn;
}

static EVP_PKEY *
pkey_from(const char *type, OSSL_PARAM_BLD *bld)
{
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pkey = NULL;
	OSSL_PARAM *params = NULL;

	if ((params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return pkey;
}

static EVP_PKEY *
rsa_key(json_object *jwk)
{
	OSSL_PARAM_BLD *bld = NULL;
	BIGNUM *n, *e;
	EVP_PKEY *pkey = NULL;

	n = jwk_bn(jwk, "n", NULL);
	e = jwk_bn(jwk, "e", NULL);
	/* 2048 bits at least (RFC 7518 3.3). */
	if (n == NULL || e == NULL || BN_num_bits(n) < 2048 ||
	    BN_num_bits(n) > 8192 || (bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
		goto out;
	pkey = pkey_from("RSA", bld);
out:
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return pkey;
}

static EVP_PKEY *
ec_key(json_object *jwk)
{
	const char *xs = sw_json_get_str(jwk, "x");
	const char *ys = sw_json_get_str(jwk, "y");
	unsigned char pub[65], *x = NULL, *y = NULL;
	OSSL_PARAM_BLD *bld = NULL;
	EVP_PKEY *pkey = NULL;
	size_t xn = 0, yn = 0;

	if (xs == NULL || ys == NULL ||
	    (x = b64url_decode(xs, strlen(xs), &xn)) == NULL ||
	    (y = b64url_decode(ys, strlen(ys), &yn)) == NULL || xn != 32 ||
	    yn != 32)
		goto out;
	pub[0] = 0x04; /* uncompressed point */
	memcpy(pub + 1, x, 32);
	memcpy(pub + 33, y, 32);
	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(
		bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(
		bld, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof(pub)))
		goto out;
	pkey = pkey_from("EC", bld);
out:
	OSSL_PARAM_BLD_free(bld);
	free(x);
	free(y);
	return pkey;
}

/* JWS's raw r||s (32 bytes each) as a DER ECDSA-Sig-Value. */
static unsigned char *
es256_der(const unsigned char *sig, size_t len, size_t *derlen)
{
	ECDSA_SIG *es = NULL;
	BIGNUM *r = NULL, *s = NULL;
	unsigned char *der = NULL, *p;
	int n;

	if (len != 64 || (es = ECDSA_SIG_new()) == NULL ||
	    (r = BN_bin2bn(sig, 32, NULL)) == NULL ||
	    (s = BN_bin2bn(sig + 32, 32, NULL)) == NULL ||
	    ECDSA_SIG_set0(es, r, s) != 1) {
		BN_free(r);
		BN_free(s);
		goto out;
	}
	if ((n = i2d_ECDSA_SIG(es, NULL)) <= 0 ||
	    (der = sw_malloc((size_t)n)) == NULL)
		goto out;
	p = der;
	if (i2d_ECDSA_SIG(es, &p) != n) {
		free(der);
		der = NULL;
		goto out;
	}
	*derlen = (size_t)n;
out:
	ECDSA_SIG_free(es);
	return der;
}

/* The key's own "alg" and "use", when given, must agree with j. */
static const char *
jwk_refuses(const struct sw_jwt *j, json_object *jwk)
{
	const char *alg = sw_json_get_str(jwk, "alg");
	const char *use = sw_json_get_str(jwk, "use");

	if (j->alg == 0)
		return "the algorithm is not accepted";
	if (!jwk_fits(jwk, j->alg))
		return "the key's type does not fit the algorithm";
	if (alg != NULL && strcmp(alg, j->alg_name) != 0)
		return "the key is for another algorithm";
	if (use != NULL && strcmp(use, "sig") != 0)
		return "the key is not a signing key";
	return NULL;
}

sw_err
sw_jwt_verify(const struct sw_jwt *j, json_object *jwk, char *why, size_t whysz)
{
	EVP_MD_CTX *md = NULL;
	EVP_PKEY *pkey = NULL;
	unsigned char *der = NULL;
	const unsigned char *sig = j->sig;
	const char *no;
	size_t sig_len = j->sig_len;
	int ok = 0;

	if ((no = jwk_refuses(j, jwk)) != NULL) {
		sw_fmt_text(why, whysz, "%s", no);
		return SW_EUNAUTH;
	}
	pkey = j->alg == SW_JWT_RS256 ? rsa_key(jwk) : ec_key(jwk);
	if (pkey == NULL) {
		sw_fmt_text(why, whysz, "the provider's key is not usable");
		return SW_EUNAUTH;
	}
	if (j->alg == SW_JWT_ES256) {
		if ((der = es256_der(j->sig, j->sig_len, &sig_len)) == NULL)
			goto out;
		sig = der;
	} else if (sig_len != (size_t)EVP_PKEY_get_size(pkey))
		goto out;
	ok = (md = EVP_MD_CTX_new()) != NULL &&
	    EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1 &&
	    EVP_DigestVerify(md, sig, sig_len,
		(const unsigned char *)j->signed_part, j->signed_len) == 1;
out:
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pkey);
	free(der);
	if (!ok) {
		sw_fmt_text(why, whysz, "the signature does not verify");
		return SW_EUNAUTH;
	}
	return SW_OK;
}

/* A NumericDate claim in whole seconds; 0 when present and good. */
static int
claim_time(json_object *claims, const char *name, int64_t *out, int *has)
{
	json_object *v = sw_json_get(claims, name);
	double d;

	*has = v != NULL;
	if (v == NULL)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		*out = json_object_get_int64(v);
		return *out > -1000000000000000LL && *out < 1000000000000000LL
		    ? 0
		    : -1;
	}
	if (!json_object_is_type(v, json_type_double))
		return -1;
	d = json_object_get_double(v);
	if (!(d > -1e15 && d < 1e15))
		return -1;
	*out = (int64_t)d;
	return 0;
}

/* Equal, a single trailing '/' on either side aside. */
static int
same_uri(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	if (na > 0 && a[na - 1] == '/')
		na--;
	if (nb > 0 && b[nb - 1] == '/')
		nb--;
	return na == nb && memcmp(a, b, na) == 0;
}

static int
audience_ok(json_object *aud, const char *want)
{
	size_t i;

	if (aud != NULL && json_object_is_type(aud, json_type_string))
		return same_uri(json_object_get_string(aud), want);
	if (aud == NULL || !json_object_is_type(aud, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(aud); i++) {
		json_object *a = json_object_array_get_idx(aud, i);

		if (json_object_is_type(a, json_type_string) &&
		    same_uri(json_object_get_string(a), want))
			return 1;
	}
	return 0;
}

sw_err
sw_jwt_check_claims(const struct sw_jwt *j, const struct sw_jwt_rules *r,
    char *why, size_t whysz)
{
	const char *iss = sw_json_get_str(j->claims, "iss");
	int64_t exp = 0, nbf = 0, iat = 0;
	int has_exp, has_nbf, has_iat;

	if (iss == NULL || r->issuer == NULL || strcmp(iss, r->issuer) != 0)
		sw_fmt_text(why, whysz,
		    "the issuer is not the configured "
		    "provider");
	else if (r->audience == NULL ||
	    !audience_ok(sw_json_get(j->claims, "aud"), r->audience))
		sw_fmt_text(why, whysz, "the audience is not %s",
		    r->audience ? r->audience : "configured");
	else if (claim_time(j->claims, "exp", &exp, &has_exp) != 0 ||
	    claim_time(j->claims, "nbf", &nbf, &has_nbf) != 0 ||
	    claim_time(j->claims, "iat", &iat, &has_iat) != 0)
		sw_fmt_text(why, whysz, "exp, nbf or iat is not a number");
	else if (!has_exp)
		sw_fmt_text(why, whysz, "the token has no exp");
	else if (r->now >= exp + r->skew)
		sw_fmt_text(why, whysz, "the token has expired");
	else if (has_nbf && r->now + r->skew < nbf)
		sw_fmt_text(why, whysz, "the token is not valid yet");
	else if (has_iat && r->now + r->skew < iat)
		sw_fmt_text(why, whysz, "the token was issued in the future");
	else
		return SW_OK;
	return SW_EUNAUTH;
}
