/* test-jwt.c: lib/jwt.c on tokens signed for a fixed key set (the
 * fuzz_jwt seeds): RS256 and ES256 verify, a changed bit does not, a key
 * of the other type or another algorithm is never used, alg none and
 * HS256 find no key, and each claim rule refuses what it should. */
#include <string.h>

#include "lib/json.h"
#include "lib/jwt.h"
#include "t/tap.h"

static const char jwks_text[] =
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

static const char rs256[] =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZ6LXJzYSIsInR5cCI6ImF0K2p3dCJ9"
    ".eyJpc3MiOiJodHRwczovL2lkLmV4YW1wbGUuY29tIiwiYXVkIjpbImh0dHB"
    "zOi8vc2xpcHdheS5leGFtcGxlLmNvbSJdLCJleHAiOjE3OTY1MDAzMDAsIm5"
    "iZiI6MTc5NjQ5OTk5MCwiaWF0IjoxNzk2NTAwMDAwLCJzdWIiOiJ1MSIsImd"
    "yb3VwcyI6WyJhIiwiYiJdfQ.tbUkJ--Hstt4iAKRXg_JAhH90B9TOXaTTKWr"
    "UVAhtvnOsQc_mYsW13xw2u4J4roJlWYrM1YEzh5rbYUO5BCCeKQsBhiII6V8"
    "6aqs_t-zynbvRYzajvPULMKu80mvBkXcNXwKx3iKUpwpRHZrZEVye8brwcfp"
    "SOAtMIair0GBidt3zJvlD9TswA_wdO9eMjYEXkXg1O5kL0TrKuuN4jcTJj6Y"
    "SsKJhwB72Zgv1MkZXhAuqSS7fLJfiRptjmHb_NpCFXOJI5NOhgEO5Z0k_Mvc"
    "2nq1GIbapjA9F6PHF1Od6JxK9Fzkxszo3HBGdz052JvnB8uEuYgkrpVe_TJa"
    "OA6-Nw";

static const char es256[] =
    "eyJhbGciOiJFUzI1NiIsImtpZCI6ImZ6LWVjIn0.eyJpc3MiOiJodHRwczov"
    "L2lkLmV4YW1wbGUuY29tIiwiYXVkIjoiaHR0cHM6Ly9zbGlwd2F5LmV4YW1w"
    "bGUuY29tLyIsImV4cCI6MTc5NjUwMDMwMCwic3ViIjoidTIifQ.Y6v_UODcJ"
    "eDOh74OktaO_jfeDr3kG4z-86_sR3D6icOuauJM0B7a9RsyhnhCwsSBi9_vz"
    "cKEC0Vxj6OariLZeQ";

static json_object *jwks;

/* Parse, find the key and verify: SW_OK or the refusal. */
static sw_err
verify(const char *tok, char *why, size_t whysz)
{
	struct sw_jwt j;
	json_object *k;
	sw_err e;

	if ((e = sw_jwt_parse(tok, &j, why, whysz)) != SW_OK)
		return e;
	if ((k = sw_jwks_find(jwks, &j)) == NULL)
		e = SW_ENOTFOUND;
	else
		e = sw_jwt_verify(&j, k, why, whysz);
	sw_jwt_free(&j);
	return e;
}

static sw_err
claims(const char *tok, int64_t now, const char *iss, const char *aud,
    char *why, size_t whysz)
{
	struct sw_jwt_rules r = {
		.issuer = iss, .audience = aud, .now = now, .skew = 60
	};
	struct sw_jwt j;
	sw_err e;

	if ((e = sw_jwt_parse(tok, &j, why, whysz)) == SW_OK)
		e = sw_jwt_check_claims(&j, &r, why, whysz);
	sw_jwt_free(&j);
	return e;
}

int
main(void)
{
	const char *iss = "https://id.example.com";
	const char *aud = "https://slipway.example.com";
	int64_t now = 1796500000;
	char why[160], bad[sizeof(rs256)], *p;
	struct sw_jwt j;
	json_object *ec;

	if (sw_json_parse(
		jwks_text, strlen(jwks_text), &jwks, why, sizeof(why)) != SW_OK)
		return 1;
	is_int(verify(rs256, why, sizeof(why)), SW_OK, "RS256 verifies");
	is_int(verify(es256, why, sizeof(why)), SW_OK,
	    "ES256 (raw r||s) verifies");
	memcpy(bad, rs256, sizeof(rs256));
	p = strrchr(bad, '.') + 10;
	*p = *p == 'A' ? 'B' : 'A';
	is_int(verify(bad, why, sizeof(why)), SW_EUNAUTH,
	    "a changed signature does not");
	ok(strstr(why, "does not verify") != NULL, "and says so (%s)", why);

	/* The RS256 token against the EC key: the type decides. */
	ok(sw_jwt_parse(rs256, &j, why, sizeof(why)) == SW_OK, "parse");
	ec = json_object_array_get_idx(sw_json_get(jwks, "keys"), 1);
	is_int(sw_jwt_verify(&j, ec, why, sizeof(why)), SW_EUNAUTH,
	    "an RS256 token is never checked with an EC key");
	j.alg = 0; /* as for none or HS256 */
	ok(sw_jwks_find(jwks, &j) == NULL, "an unknown alg finds no key");
	is_int(sw_jwt_verify(&j,
		   json_object_array_get_idx(sw_json_get(jwks, "keys"), 0), why,
		   sizeof(why)),
	    SW_EUNAUTH, "nor is verified with one");
	sw_jwt_free(&j);
	is_int(sw_jwt_alg_bit("none"), 0, "none is no algorithm");
	is_int(sw_jwt_alg_bit("HS256"), 0, "HS256 is no algorithm");

	is_int(claims(rs256, now, iss, aud, why, sizeof(why)), SW_OK,
	    "good claims (aud in an array)");
	is_int(claims(es256, now, iss, aud, why, sizeof(why)), SW_OK,
	    "aud with a trailing slash is the same resource");
	is_int(claims(rs256, now + 400, iss, aud, why, sizeof(why)), SW_EUNAUTH,
	    "expired past the skew");
	is_int(claims(rs256, now + 330, iss, aud, why, sizeof(why)), SW_OK,
	    "30 s after exp is inside the 60 s skew");
	is_int(claims(rs256, now - 100, iss, aud, why, sizeof(why)), SW_EUNAUTH,
	    "before nbf past the skew");
	is_int(claims(rs256, now, "https://id.example.com/", aud, why,
		   sizeof(why)),
	    SW_EUNAUTH, "the issuer compares exactly");
	is_int(claims(rs256, now, iss, "https://other.example.com", why,
		   sizeof(why)),
	    SW_EUNAUTH, "another audience");
	is_int(sw_jwt_parse("a.b", &j, why, sizeof(why)), SW_EUNAUTH,
	    "two parts are not a token");
	sw_jwt_free(&j);
	is_int(sw_jwt_parse("e30.e30.AA=", &j, why, sizeof(why)), SW_EUNAUTH,
	    "padding is not base64url");
	sw_jwt_free(&j);
	json_object_put(jwks);
	return tap_done();
}
