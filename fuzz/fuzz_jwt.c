/*
 * fuzz_jwt.c: provider access tokens (lib/jwt.c).  The input is a
 * token, optionally followed by a newline and a JWK Set to check it
 * against (else a fixed set with an RSA and an EC P-256 key, which the
 * seeds are signed for).  sw_jwt_parse, sw_jwks_find, sw_jwt_verify
 * and sw_jwt_check_claims, as lib/oidc.c calls them.
 * Invariants: a parsed token has object header and claims, a string alg
 * and the signed part up to its second dot; a key found is an object of
 * the set; a signature verifies only for RS256 or ES256 with a key of
 * that type; every refusal says why, NUL-terminated and valid UTF-8
 * when the input is.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/jwt.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char fixed_jwks[] =
    "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"y99YapEQEXEVWVyLHFwU3o5S"
    "M77u4ANWUUx2Ey8OUYPeYW8CHr27MJWwnRLcpCM00hYt2aHCfmAnCbMb27E8"
    "cEZ0Sb9IyPJ9L1ODKy7ACZQprLP3rmwhULodPyxbWAWpVWUkc-E2k4DB3t3g"
    "ZnePn4M87ZNiVk_3thYRySvXS52ZUf12bDu-Q6ZnBj-p4rS3dmtEq1VH-q3q"
    "yUk9cdQ67mY6u1FlT03sLlWVL2qWo4OsO4sdDA5yMRmBDwgIJeRvMBuDy0yQ"
    "YFWWlix-MDd6KbcXMKfbywV9Dj5xIIjzSgbEBR7oZZz1R0_N8Q7jz9NVtbWt"
    "l4x1usL_fgs86XN81w\",\"e\":\"AQAB\",\"kid\":\"fz-rsa\",\"use"
    "\":\"sig\",\"alg\":\"RS256\"},{\"kty\":\"EC\",\"x\":\"E4-Xt1"
    "SczfcZx3uTYlj82IwbXB_U-CLpmaWSuPvWIzQ\",\"y\":\"p8TIQwKs29FK"
    "7fpfflZVKLNtoX9bAsIJ9OY8Ur8kbJU\",\"crv\":\"P-256\",\"kid\":"
    "\"fz-ec\",\"use\":\"sig\"}]}";

static void
why_ok(const char *why, size_t whysz)
{
	if (memchr(why, '\0', whysz) == NULL)
		abort();
}

static void
check(const char *tok, json_object *jwks)
{
	struct sw_jwt_rules rules = {
		.issuer = "https://id.example.com",
		.audience = "https://slipway.example.com",
		.now = 1796500000,
		.skew = 60,
	};
	struct sw_jwt j;
	json_object *key;
	char why[160];
	const char *kty;

	if (sw_jwt_parse(tok, &j, why, sizeof(why)) != SW_OK) {
		why_ok(why, sizeof(why));
		if (j.header != NULL || j.claims != NULL || why[0] == '\0')
			abort();
		sw_jwt_free(&j);
		return;
	}
	if (!json_object_is_type(j.header, json_type_object) ||
	    !json_object_is_type(j.claims, json_type_object) ||
	    j.alg_name == NULL || j.signed_len != strlen(j.signed_part) ||
	    strncmp(tok, j.signed_part, j.signed_len) != 0 ||
	    tok[j.signed_len] != '.')
		abort();
	if (sw_jwt_check_claims(&j, &rules, why, sizeof(why)) != SW_OK)
		why_ok(why, sizeof(why));
	if ((key = sw_jwks_find(jwks, &j)) != NULL) {
		if (!json_object_is_type(key, json_type_object))
			abort();
		if (sw_jwt_verify(&j, key, why, sizeof(why)) == SW_OK) {
			kty = sw_json_get_str(key, "kty");
			if (kty == NULL ||
			    (j.alg == SW_JWT_RS256 &&
				strcmp(kty, "RSA") != 0) ||
			    (j.alg == SW_JWT_ES256 && strcmp(kty, "EC") != 0) ||
			    (j.alg != SW_JWT_RS256 && j.alg != SW_JWT_ES256))
				abort();
		} else
			why_ok(why, sizeof(why));
	}
	sw_jwt_free(&j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *jwks = NULL;
	char *s, *nl, why[96];

	if (size > 16384 || (s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if ((nl = memchr(s, '\n', size)) != NULL) {
		*nl = '\0';
		if (sw_json_parse(nl + 1, size - (size_t)(nl + 1 - s), &jwks,
			why, sizeof(why)) != SW_OK)
			jwks = NULL;
	}
	if (jwks == NULL &&
	    sw_json_parse(fixed_jwks, strlen(fixed_jwks), &jwks, why,
		sizeof(why)) != SW_OK)
		abort();
	if (strlen(s) == (nl != NULL ? (size_t)(nl - s) : size))
		check(s, jwks);
	json_object_put(jwks);
	free(s);
	return 0;
}
