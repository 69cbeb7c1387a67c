/*
 * oidc.c: provider access tokens (see oidc.h).  One key cache per
 * process: the discovery document gives jwks_uri, the JWK Set is kept
 * with the time it came; lib/jwt.c does the checking.  A refresh is
 * rate-limited (SW_OIDC_REFRESH_MIN_MS) whatever asked for it, so
 * tokens with made-up kids cost the provider one request per interval.
 *
 * A token that passed is remembered by its SHA-256 (SW_OIDC_SEEN of
 * them) with its principal and validity: a client sends the same token
 * until it expires, and the signature need not be checked again.  The
 * validity is checked at every use; new keys forget every token.
 *
 * Also the teams a principal is in (from a person's groups through the
 * configuration's mapping, or a service account's own) and the team
 * rule every face decides with (sw_team_rule).
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/digest.h"
#include "lib/json.h"
#include "lib/jwt.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/oidc.h"

static sw_oidc_fetch_fn fetch_fn;

static struct {
	char issuer[512]; /* the keys are this issuer's */
	json_object *disc; /* owned: its discovery document */
	json_object *jwks; /* owned; NULL: none */
	int64_t fetched_ms; /* when jwks came */
	int64_t tried_ms; /* the last refresh begun */
} cache;

static struct seen {
	unsigned char md[32]; /* SHA-256 of the token */
	int64_t exp, nbf; /* seconds; nbf 0: none */
	int64_t used_ms; /* 0: empty */
	struct sw_principal who;
} seen[SW_OIDC_SEEN];

static void
token_digest(const char *token, unsigned char md[32])
{
	unsigned int len = 32;

	if (EVP_Digest(token, strlen(token), md, &len, sw_sha256(), NULL) != 1)
		memset(md, 0, 32);
}

/* The remembered principal of a token still within its validity. */
static int
seen_find(const unsigned char md[32], int64_t now_s, int64_t skew,
    struct sw_principal *p)
{
	size_t i;

	for (i = 0; i < SW_OIDC_SEEN; i++) {
		if (seen[i].used_ms == 0 ||
		    CRYPTO_memcmp(seen[i].md, md, 32) != 0)
			continue;
		if (now_s >= seen[i].exp + skew || now_s + skew < seen[i].nbf) {
			seen[i].used_ms = 0;
			return 0;
		}
		seen[i].used_ms = sw_now_ms();
		*p = seen[i].who;
		return 1;
	}
	return 0;
}

/* Remember a token that passed, in place of the least recently used. */
static void
seen_add(const unsigned char md[32], const struct sw_jwt *j,
    const struct sw_principal *p)
{
	json_object *v;
	size_t i, lru = 0;

	for (i = 1; i < SW_OIDC_SEEN; i++)
		if (seen[i].used_ms < seen[lru].used_ms)
			lru = i;
	memcpy(seen[lru].md, md, 32);
	seen[lru].exp = sw_json_get_int(j->claims, "exp", 0);
	v = sw_json_get(j->claims, "nbf");
	seen[lru].nbf = v != NULL ? (int64_t)json_object_get_double(v) : 0;
	seen[lru].who = *p;
	seen[lru].used_ms = sw_now_ms();
}

void
sw_oidc_set_fetch(sw_oidc_fetch_fn fn)
{
	fetch_fn = fn;
}

static json_object *
oidc_conf(const struct sw_config *c)
{
	json_object *o = c != NULL ? sw_json_get(c->root, "oidc") : NULL;

	return o != NULL && json_object_is_type(o, json_type_object) ? o : NULL;
}

static const char *
conf_str(const struct sw_config *c, const char *key, const char *dflt)
{
	const char *v = sw_json_get_str(oidc_conf(c), key);

	return v != NULL && v[0] != '\0' ? v : dflt;
}

int
sw_oidc_enabled(const struct sw_config *c)
{
	return conf_str(c, "issuer", NULL) != NULL;
}

sw_err
sw_oidc_resource(const struct sw_config *c, char *out, size_t outsz)
{
	const char *pub = sw_json_get_str(c->root, "public_url");
	size_t n;

	if (pub != NULL && pub[0] != '\0') {
		if (sw_fmt(out, outsz, "%s", pub) != SW_OK)
			return SW_EINVAL;
	} else if (sw_fmt(out, outsz, "http://127.0.0.1:%d", c->port) != SW_OK)
		return SW_EINVAL;
	n = strlen(out);
	if (n > 0 && out[n - 1] == '/')
		out[n - 1] = '\0';
	return SW_OK;
}

/* The algorithms the configuration accepts (default RS256 and ES256). */
static unsigned
conf_algs(const struct sw_config *c)
{
	json_object *a = sw_json_get(oidc_conf(c), "algorithms");
	unsigned set = 0;
	size_t i;

	if (a == NULL || !json_object_is_type(a, json_type_array))
		return SW_JWT_RS256 | SW_JWT_ES256;
	for (i = 0; i < json_object_array_length(a); i++)
		set |= sw_jwt_alg_bit(
		    json_object_get_string(json_object_array_get_idx(a, i)));
	return set;
}

/* GET url as a JSON object; NULL after a log line. */
static json_object *
fetch_json(const char *url)
{
	struct sw_buf b;
	json_object *o = NULL;
	char why[128];
	sw_err e;

	sw_buf_init(&b, SW_MAX_OIDC_DOC);
	if (fetch_fn == NULL)
		sw_warn("OpenID provider: this program cannot fetch %s", url);
	else if ((e = fetch_fn(url, NULL, NULL, &b)) != SW_OK)
		sw_warn("OpenID provider: GET %s: %s", url, sw_err_slug(e));
	else if (sw_json_parse(sw_buf_str(&b), b.len, &o, why, sizeof(why)) !=
		SW_OK ||
	    !json_object_is_type(o, json_type_object)) {
		sw_warn("OpenID provider: %s is not a JSON object", url);
		json_object_put(o);
		o = NULL;
	}
	sw_buf_free(&b);
	return o;
}

/* Discovery, then the JWK Set; the cache keeps what it had on failure. */
static void
refresh(const char *issuer)
{
	char url[1024];
	json_object *disc, *jwks = NULL;
	const char *iss, *uri;
	size_t n = strlen(issuer);

	cache.tried_ms = sw_now_ms();
	if (sw_fmt(url, sizeof(url), "%.*s/.well-known/openid-configuration",
		(int)(n > 0 && issuer[n - 1] == '/' ? n - 1 : n),
		issuer) != SW_OK ||
	    (disc = fetch_json(url)) == NULL)
		return;
	iss = sw_json_get_str(disc, "issuer");
	uri = sw_json_get_str(disc, "jwks_uri");
	/* OpenID Connect Discovery 1.0, 4.3: the same issuer, exactly. */
	if (iss == NULL || strcmp(iss, issuer) != 0)
		sw_warn("OpenID provider: the discovery document of %s names "
			"issuer %s",
		    issuer, iss ? iss : "(none)");
	else if (uri == NULL)
		sw_warn("OpenID provider: %s has no jwks_uri", url);
	else if ((jwks = fetch_json(uri)) != NULL &&
	    !json_object_is_type(sw_json_get(jwks, "keys"), json_type_array)) {
		sw_warn("OpenID provider: %s has no keys array", uri);
		json_object_put(jwks);
		jwks = NULL;
	}
	if (jwks == NULL) {
		json_object_put(disc);
		return;
	}
	json_object_put(cache.disc);
	cache.disc = disc;
	json_object_put(cache.jwks);
	cache.jwks = jwks;
	cache.fetched_ms = sw_now_ms();
	memset(seen, 0, sizeof(seen)); /* a key may be gone */
	if (sw_fmt(cache.issuer, sizeof(cache.issuer), "%s", issuer) != SW_OK)
		cache.issuer[0] = '\0'; /* never matches: fetched again */
}

/* Refresh unless one began less than SW_OIDC_REFRESH_MIN_MS ago. */
static void
refresh_limited(const char *issuer)
{
	int64_t now = sw_now_ms();

	if (cache.tried_ms != 0 && now >= cache.tried_ms &&
	    now - cache.tried_ms < SW_OIDC_REFRESH_MIN_MS)
		return;
	refresh(issuer);
}

/* The cached keys of issuer, fetched or refreshed as their age asks;
 * NULL when there are none to use. */
static json_object *
keys_for(const char *issuer)
{
	int64_t age;

	if (cache.jwks != NULL && strcmp(cache.issuer, issuer) != 0) {
		json_object_put(cache.jwks);
		cache.jwks = NULL;
		cache.tried_ms = 0;
	}
	age = sw_now_ms() - cache.fetched_ms;
	if (cache.jwks == NULL || age > SW_OIDC_JWKS_TTL_MS)
		refresh_limited(issuer);
	age = sw_now_ms() - cache.fetched_ms;
	if (cache.jwks != NULL &&
	    age > SW_OIDC_JWKS_TTL_MS + SW_OIDC_JWKS_MAX_STALE_MS)
		return NULL;
	return cache.jwks;
}

/* A name fit for the principal: 1..SW_MAX_TOKEN_NAME printable ASCII
 * characters, none of them space, quote or backslash. */
static int
principal_name_ok(const char *v)
{
	size_t i, n = v != NULL ? strlen(v) : 0;

	if (n == 0 || n > SW_MAX_TOKEN_NAME)
		return 0;
	for (i = 0; i < n; i++)
		if (v[i] <= 0x20 || v[i] >= 0x7f || v[i] == '"' || v[i] == '\\')
			return 0;
	return 1;
}

/* The groups claim (a string or an array of strings) as a comma list;
 * what does not fit is left off. */
static void
principal_groups(
    const struct sw_config *c, const struct sw_jwt *j, struct sw_principal *p)
{
	json_object *g =
	    sw_json_get(j->claims, conf_str(c, "groups_claim", "groups"));
	size_t i, n, off = 0;
	const char *s;

	p->groups[0] = '\0';
	if (g != NULL && json_object_is_type(g, json_type_string)) {
		if (principal_name_ok(json_object_get_string(g)) &&
		    sw_fmt(p->groups, sizeof(p->groups), "%s",
			json_object_get_string(g)) != SW_OK)
			p->groups[0] = '\0';
		return;
	}
	if (g == NULL || !json_object_is_type(g, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(g); i++) {
		s = json_object_get_string(json_object_array_get_idx(g, i));
		n = s != NULL ? strlen(s) : 0;
		if (!principal_name_ok(s) || strchr(s, ',') != NULL ||
		    off + n + 2 > sizeof(p->groups))
			continue;
		if (off > 0)
			p->groups[off++] = ',';
		memcpy(p->groups + off, s, n + 1);
		off += n;
	}
}

/* A 16-hex id for the person (issuer and subject), as a token's id
 * names a token: the long-poll slots are counted by it. */
static void
principal_id(const char *issuer, const char *sub, char id[17])
{
	static const char hx[] = "0123456789abcdef";
	unsigned char md[32];
	unsigned int len = sizeof(md);
	EVP_MD_CTX *ctx;
	int i;

	memset(md, 0, sizeof(md));
	if ((ctx = EVP_MD_CTX_new()) != NULL) {
		EVP_DigestInit_ex(ctx, sw_sha256(), NULL);
		EVP_DigestUpdate(ctx, issuer, strlen(issuer) + 1);
		EVP_DigestUpdate(ctx, sub, strlen(sub));
		EVP_DigestFinal_ex(ctx, md, &len);
		EVP_MD_CTX_free(ctx);
	}
	for (i = 0; i < 8; i++) {
		id[2 * i] = hx[md[i] >> 4];
		id[2 * i + 1] = hx[md[i] & 15];
	}
	id[16] = '\0';
}

static sw_err
principal_from(const struct sw_config *c, const struct sw_jwt *j,
    struct sw_principal *p, char *why, size_t whysz)
{
	const char *claim = conf_str(c, "user_claim", "sub");
	const char *name = sw_json_get_str(j->claims, claim);
	const char *sub = sw_json_get_str(j->claims, "sub");

	if (!principal_name_ok(name)) {
		sw_fmt_text(why, whysz,
		    "claim %s is missing or is not 1 to "
		    "%d printable characters",
		    claim, SW_MAX_TOKEN_NAME);
		return SW_EUNAUTH;
	}
	if (sw_fmt(p->name, sizeof(p->name), "%s", name) != SW_OK)
		return SW_EUNAUTH; /* principal_name_ok kept it short */
	principal_id(
	    conf_str(c, "issuer", ""), sub != NULL ? sub : name, p->token_id);
	principal_groups(c, j, p);
	p->scope = sw_scope_parse(conf_str(c, "scope", "read"));
	if (p->scope == SW_SCOPE_NONE)
		p->scope = SW_SCOPE_READ;
	p->via_provider = 1;
	return SW_OK;
}

/* The key for j: the cache's, or after one refresh on a kid miss. */
static json_object *
key_for(const char *issuer, const struct sw_jwt *j, char *why, size_t whysz)
{
	json_object *jwks, *k;

	if ((jwks = keys_for(issuer)) == NULL) {
		sw_fmt_text(why, whysz,
		    "the provider's keys cannot be "
		    "fetched");
		return NULL;
	}
	if ((k = sw_jwks_find(jwks, j)) != NULL)
		return k;
	refresh_limited(issuer);
	if (cache.jwks != NULL && (k = sw_jwks_find(cache.jwks, j)) != NULL)
		return k;
	sw_fmt_text(why, whysz, "no key of the provider has kid %s",
	    j->kid != NULL ? j->kid : "(none)");
	return NULL;
}

sw_err
sw_oidc_check(const struct sw_config *c, const char *token,
    struct sw_principal *p, char *why, size_t whysz)
{
	const char *issuer = conf_str(c, "issuer", NULL);
	struct sw_jwt_rules rules;
	struct sw_jwt j;
	json_object *key;
	unsigned char md[32];
	char resource[512];
	int64_t skew;
	sw_err e;

	memset(p, 0, sizeof(*p));
	memset(&j, 0, sizeof(j));
	if (issuer == NULL) {
		sw_fmt_text(why, whysz, "no OpenID provider is configured");
		return SW_EUNAUTH;
	}
	skew =
	    sw_json_get_int(oidc_conf(c), "clock_skew", SW_OIDC_SKEW_DEFAULT);
	if (skew < 0 || skew > SW_OIDC_SKEW_MAX)
		skew = SW_OIDC_SKEW_DEFAULT;
	token_digest(token != NULL ? token : "", md);
	if (cache.jwks != NULL &&
	    sw_now_ms() - cache.fetched_ms <= SW_OIDC_JWKS_TTL_MS &&
	    seen_find(md, sw_now_ms() / 1000, skew, p))
		return SW_OK;
	if ((e = sw_jwt_parse(token, &j, why, whysz)) != SW_OK)
		goto out;
	e = SW_EUNAUTH;
	if ((j.alg & conf_algs(c)) == 0) {
		sw_fmt_text(
		    why, whysz, "algorithm %s is not accepted", j.alg_name);
		goto out;
	}
	if (sw_oidc_resource(c, resource, sizeof(resource)) != SW_OK)
		goto out;
	memset(&rules, 0, sizeof(rules));
	rules.issuer = issuer;
	rules.audience = conf_str(c, "audience", resource);
	rules.now = sw_now_ms() / 1000;
	rules.skew = skew;
	/* Claims first: an expired token costs no fetch and no RSA. */
	if ((e = sw_jwt_check_claims(&j, &rules, why, whysz)) != SW_OK)
		goto out;
	e = SW_EUNAUTH;
	if ((key = key_for(issuer, &j, why, whysz)) == NULL)
		goto out;
	if ((e = sw_jwt_verify(&j, key, why, whysz)) == SW_OK &&
	    (e = principal_from(c, &j, p, why, whysz)) == SW_OK)
		seen_add(md, &j, p);
out:
	sw_jwt_free(&j);
	if (e != SW_OK)
		memset(p, 0, sizeof(*p));
	return e;
}

sw_err
sw_bearer_check(struct sw_db *db, const struct sw_config *c, const char *token,
    struct sw_principal *p, char *why, size_t whysz)
{
	sw_err e;

	why[0] = '\0';
	/* A person's credential from the device sign-in (swp_...): the
	 * browser session's row, sent as a Bearer, so no cookie rules. */
	if (token != NULL && strncmp(token, "swp_", 4) == 0) {
		if ((e = sw_session_check(db, token, p)) == SW_EUNAUTH)
			sw_fmt_text(why, whysz,
			    "the sign-in has expired or "
			    "ended; sign in again");
		p->via_cookie = 0;
		return e;
	}
	if (token != NULL && strncmp(token, "swt_", 4) != 0 &&
	    sw_oidc_enabled(c))
		return sw_oidc_check(c, token, p, why, whysz);
	if ((e = sw_token_check(db, token, p)) == SW_EUNAUTH)
		sw_fmt_text(why, whysz,
		    "the token is unknown, revoked or "
		    "malformed");
	return e;
}

void
sw_oidc_challenge(
    const struct sw_config *c, const char *error, char *out, size_t outsz)
{
	char res[512], md[600] = "";

	if (sw_oidc_enabled(c) &&
	    sw_oidc_resource(c, res, sizeof(res)) == SW_OK &&
	    sw_fmt(md, sizeof(md),
		"resource_metadata=\"%s/"
		".well-known/oauth-protected-resource\"",
		res) != SW_OK)
		md[0] = '\0';
	sw_fmt_text(out, outsz, "Bearer realm=\"slipway\"%s%s%s%s%s",
	    md[0] ? ", " : "", md, error ? ", error=\"" : "",
	    error ? error : "", error ? "\"" : "");
}

json_object *
sw_oidc_resource_metadata(const struct sw_config *c)
{
	char res[512];
	json_object *o, *a;

	if (!sw_oidc_enabled(c) ||
	    sw_oidc_resource(c, res, sizeof(res)) != SW_OK)
		return NULL;
	o = json_object_new_object();
	sw_json_add_str(o, "resource", res);
	a = json_object_new_array();
	json_object_array_add(
	    a, json_object_new_string(conf_str(c, "issuer", "")));
	json_object_object_add(o, "authorization_servers", a);
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("header"));
	json_object_object_add(o, "bearer_methods_supported", a);
	sw_json_add_str(o, "resource_name", "Slipway");
	return o;
}

/* ---- the web UI's sign-in ------------------------------------------- */

static const char b64u[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* n bytes as unpadded base64url into out (4 * n / 3 + 2 bytes). */
static void
b64u_encode(const unsigned char *in, size_t n, char *out)
{
	unsigned int acc = 0;
	size_t i, o = 0;
	int bits = 0;

	for (i = 0; i < n; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = b64u[(acc >> bits) & 63];
		}
	}
	if (bits > 0)
		out[o++] = b64u[(acc << (6 - bits)) & 63];
	out[o] = '\0';
}

/* 32 random bytes as 43 base64url characters. */
static sw_err
random_word(char out[44])
{
	unsigned char raw[32];

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return SW_EINTERNAL;
	b64u_encode(raw, sizeof(raw), out);
	OPENSSL_cleanse(raw, sizeof(raw));
	return SW_OK;
}

/* The S256 code challenge of a verifier. */
static void
challenge_of(const char *verifier, char out[44])
{
	unsigned char md[32];

	token_digest(verifier, md);
	b64u_encode(md, sizeof(md), out);
}

/* Percent-encode s for a query or form value into b. */
static sw_err
form_value(struct sw_buf *b, const char *s)
{
	static const char hx[] = "0123456789ABCDEF";
	sw_err e = SW_OK;

	for (; *s != '\0' && e == SW_OK; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c) != NULL)
			e = sw_buf_putc(b, (char)c);
		else
			e = sw_buf_printf(b, "%%%c%c", hx[c >> 4], hx[c & 15]);
	}
	return e;
}

/* The discovery document's endpoint name, fetched if need be. */
static const char *
endpoint(const char *issuer, const char *name)
{
	if (cache.disc == NULL || strcmp(cache.issuer, issuer) != 0)
		refresh_limited(issuer);
	return cache.disc != NULL && strcmp(cache.issuer, issuer) == 0
	    ? sw_json_get_str(cache.disc, name)
	    : NULL;
}

sw_err
sw_oidc_login_name(const struct sw_config *c, char *out, size_t outsz)
{
	const char *issuer = conf_str(c, "issuer", NULL), *h;
	size_t n;

	if (issuer == NULL || conf_str(c, "client_id", NULL) == NULL ||
	    (h = strstr(issuer, "://")) == NULL)
		return SW_ENOTFOUND;
	h += 3;
	n = strcspn(h, "/?#");
	return sw_fmt(out, outsz, "%.*s", (int)n, h);
}

sw_err
sw_oidc_login_begin(const struct sw_config *c, const char *redirect_uri,
    char *url, size_t urlsz, char cookie[SW_OIDC_LOGIN_COOKIE], char *why,
    size_t whysz)
{
	const char *issuer = conf_str(c, "issuer", NULL);
	const char *client = conf_str(c, "client_id", NULL);
	const char *authz;
	char state[44], nonce[44], verifier[44], chal[44];
	struct sw_buf b;
	sw_err e;

	if (issuer == NULL || client == NULL) {
		sw_fmt_text(why, whysz,
		    "no OpenID provider client is "
		    "configured (oidc.client_id)");
		return SW_ENOTFOUND;
	}
	if ((authz = endpoint(issuer, "authorization_endpoint")) == NULL) {
		sw_fmt_text(why, whysz, "the provider cannot be reached");
		return SW_EUNAVAIL;
	}
	if ((e = random_word(state)) != SW_OK ||
	    (e = random_word(nonce)) != SW_OK ||
	    (e = random_word(verifier)) != SW_OK)
		return e;
	challenge_of(verifier, chal);
	sw_buf_init(&b, urlsz - 1);
	if ((e = sw_buf_printf(&b,
		 "%s%sresponse_type=code&scope=openid%%20"
		 "profile%%20email&client_id=",
		 authz, strchr(authz, '?') ? "&" : "?")) != SW_OK ||
	    (e = form_value(&b, client)) != SW_OK ||
	    (e = sw_buf_puts(&b, "&redirect_uri=")) != SW_OK ||
	    (e = form_value(&b, redirect_uri)) != SW_OK ||
	    (e = sw_buf_printf(&b,
		 "&state=%s&nonce=%s&code_challenge=%s"
		 "&code_challenge_method=S256",
		 state, nonce, chal)) != SW_OK ||
	    (e = sw_fmt(url, urlsz, "%s", sw_buf_str(&b))) != SW_OK ||
	    (e = sw_fmt(cookie, SW_OIDC_LOGIN_COOKIE, "%s.%s.%s", state, nonce,
		 verifier)) != SW_OK)
		sw_fmt_text(why, whysz, "the authorization URL is too long");
	sw_buf_free(&b);
	OPENSSL_cleanse(verifier, sizeof(verifier));
	return e;
}

/* POST form to url as the client (client_id and client_secret, HTTP
 * Basic, RFC 6749 2.3.1: each part form-encoded); the answer's JSON in
 * *o (also for a refusal, when it is JSON). */
static sw_err
client_post(const struct sw_config *c, const char *url, const char *form,
    json_object **o)
{
	struct sw_buf basic, out;
	char *auth = NULL, jwhy[96];
	sw_err e, pe;

	*o = NULL;
	sw_buf_init(&basic, 2048);
	sw_buf_init(&out, SW_MAX_OIDC_DOC);
	if ((e = form_value(&basic, conf_str(c, "client_id", ""))) != SW_OK ||
	    (e = sw_buf_putc(&basic, ':')) != SW_OK ||
	    (e = form_value(&basic, conf_str(c, "client_secret", ""))) != SW_OK)
		goto out;
	if (fetch_fn == NULL) {
		e = SW_EUNAVAIL;
		goto out;
	}
	if ((auth = sw_malloc(basic.len * 2 + 16)) == NULL) {
		e = SW_ENOMEM;
		goto out;
	}
	memcpy(auth, "Basic ", 6);
	EVP_EncodeBlock((unsigned char *)auth + 6,
	    (const unsigned char *)basic.data, (int)basic.len);
	e = fetch_fn(url, form, auth, &out);
	if ((e == SW_OK || e == SW_EUPSTREAM) && out.len > 0 &&
	    (pe = sw_json_parse(
		 sw_buf_str(&out), out.len, o, jwhy, sizeof(jwhy))) != SW_OK &&
	    e == SW_OK)
		e = pe;
out:
	if (auth != NULL)
		OPENSSL_cleanse(auth, strlen(auth));
	free(auth);
	sw_buf_free(&basic);
	sw_buf_free(&out);
	return e;
}

/* POST the code to the token endpoint; the ID token into idt. */
static sw_err
code_for_tokens(const struct sw_config *c, const char *token_url,
    const char *redirect_uri, const char *code, const char *verifier,
    char **idt, char *why, size_t whysz)
{
	struct sw_buf form;
	json_object *o = NULL;
	sw_err e;

	*idt = NULL;
	sw_buf_init(&form, 8192);
	if ((e = sw_buf_puts(&form, "grant_type=authorization_code&code=")) !=
		SW_OK ||
	    (e = form_value(&form, code)) != SW_OK ||
	    (e = sw_buf_puts(&form, "&redirect_uri=")) != SW_OK ||
	    (e = form_value(&form, redirect_uri)) != SW_OK ||
	    (e = sw_buf_puts(&form, "&code_verifier=")) != SW_OK ||
	    (e = form_value(&form, verifier)) != SW_OK)
		goto out;
	if ((e = client_post(c, token_url, sw_buf_str(&form), &o)) != SW_OK) {
		sw_fmt_text(why, whysz, "the provider refused the code (%s)",
		    sw_err_slug(e));
		e = e == SW_EUPSTREAM ? SW_EUNAUTH : SW_EUNAVAIL;
		goto out;
	}
	if (sw_json_get_str(o, "id_token") == NULL) {
		sw_fmt_text(why, whysz,
		    "the provider's answer has no ID "
		    "token");
		e = SW_EUNAUTH;
		goto out;
	}
	if ((*idt = sw_strdup(sw_json_get_str(o, "id_token"))) == NULL)
		e = SW_ENOMEM;
out:
	json_object_put(o);
	sw_buf_free(&form);
	return e;
}

/* The ID token: signature, iss, aud = client_id, exp, nonce (NULL:
 * none asked for, as in the device flow). */
static sw_err
id_token_check(const struct sw_config *c, const char *idt, const char *nonce,
    struct sw_principal *p, char *why, size_t whysz)
{
	const char *issuer = conf_str(c, "issuer", "");
	struct sw_jwt_rules rules;
	struct sw_jwt j;
	json_object *key;
	const char *n;
	sw_err e;

	if ((e = sw_jwt_parse(idt, &j, why, whysz)) != SW_OK)
		goto out;
	e = SW_EUNAUTH;
	memset(&rules, 0, sizeof(rules));
	rules.issuer = issuer;
	rules.audience = conf_str(c, "client_id", "");
	rules.now = sw_now_ms() / 1000;
	rules.skew =
	    sw_json_get_int(oidc_conf(c), "clock_skew", SW_OIDC_SKEW_DEFAULT);
	if ((j.alg & conf_algs(c)) == 0)
		sw_fmt_text(
		    why, whysz, "algorithm %s is not accepted", j.alg_name);
	else if (sw_jwt_check_claims(&j, &rules, why, whysz) != SW_OK)
		;
	else if (nonce != NULL &&
	    ((n = sw_json_get_str(j.claims, "nonce")) == NULL ||
		strcmp(n, nonce) != 0))
		sw_fmt_text(why, whysz,
		    "the ID token's nonce is not this "
		    "sign-in's");
	else if ((key = key_for(issuer, &j, why, whysz)) != NULL &&
	    (e = sw_jwt_verify(&j, key, why, whysz)) == SW_OK)
		e = principal_from(c, &j, p, why, whysz);
out:
	sw_jwt_free(&j);
	return e;
}

sw_err
sw_oidc_login_end(const struct sw_config *c, const char *redirect_uri,
    const char *code, const char *state, const char *cookie,
    struct sw_principal *p, char *why, size_t whysz)
{
	char parts[SW_OIDC_LOGIN_COOKIE], *nonce, *verifier, *idt = NULL;
	const char *issuer = conf_str(c, "issuer", NULL), *tok;
	sw_err e;

	memset(p, 0, sizeof(*p));
	if (issuer == NULL || conf_str(c, "client_id", NULL) == NULL) {
		sw_fmt_text(why, whysz,
		    "no OpenID provider client is "
		    "configured (oidc.client_id)");
		return SW_ENOTFOUND;
	}
	if (cookie == NULL || strlen(cookie) != SW_OIDC_LOGIN_COOKIE - 1 ||
	    sw_fmt(parts, sizeof(parts), "%s", cookie) != SW_OK ||
	    (nonce = strchr(parts, '.')) == NULL ||
	    (verifier = strchr(nonce + 1, '.')) == NULL) {
		sw_fmt_text(why, whysz,
		    "this browser did not start a sign-in "
		    "(no sign-in cookie); start again");
		return SW_EUNAUTH;
	}
	*nonce++ = '\0';
	*verifier++ = '\0';
	if (state == NULL || strlen(state) != strlen(parts) ||
	    CRYPTO_memcmp(state, parts, strlen(parts)) != 0) {
		sw_fmt_text(why, whysz, "the state is not this sign-in's");
		return SW_EUNAUTH;
	}
	if ((tok = endpoint(issuer, "token_endpoint")) == NULL) {
		sw_fmt_text(why, whysz, "the provider cannot be reached");
		return SW_EUNAVAIL;
	}
	if ((e = code_for_tokens(c, tok, redirect_uri, code, verifier, &idt,
		 why, whysz)) == SW_OK)
		e = id_token_check(c, idt, nonce, p, why, whysz);
	free(idt);
	OPENSSL_cleanse(parts, sizeof(parts));
	if (e != SW_OK)
		memset(p, 0, sizeof(*p));
	return e;
}

/* ---- the device flow (RFC 8628) --------------------------------------- */

/* The issuer's endpoint name, or NULL with why and *e. */
static const char *
device_endpoint(const struct sw_config *c, const char *name, sw_err *e,
    char *why, size_t whysz)
{
	const char *issuer = conf_str(c, "issuer", NULL), *u;

	if (issuer == NULL || conf_str(c, "client_id", NULL) == NULL) {
		sw_fmt_text(why, whysz,
		    "no OpenID provider client is "
		    "configured (oidc.client_id)");
		*e = SW_ENOTFOUND;
		return NULL;
	}
	if ((u = endpoint(issuer, name)) == NULL) {
		if (cache.disc != NULL)
			sw_fmt_text(
			    why, whysz, "the provider offers no %s", name);
		else
			sw_fmt_text(why, whysz,
			    "the provider cannot be "
			    "reached");
		*e = cache.disc != NULL ? SW_ENOTFOUND : SW_EUNAVAIL;
	}
	return u;
}

sw_err
sw_oidc_device_begin(
    const struct sw_config *c, json_object **out, char *why, size_t whysz)
{
	const char *url;
	sw_err e = SW_OK;

	*out = NULL;
	if ((url = device_endpoint(
		 c, "device_authorization_endpoint", &e, why, whysz)) == NULL)
		return e;
	if ((e = client_post(c, url, "scope=openid%20profile%20email", out)) !=
		SW_OK ||
	    sw_json_get_str(*out, "device_code") == NULL ||
	    sw_json_get_str(*out, "user_code") == NULL ||
	    sw_json_get_str(*out, "verification_uri") == NULL) {
		sw_fmt_text(why, whysz,
		    "the provider refused the device "
		    "authorization: %s",
		    sw_json_get_str(*out, "error")
			? sw_json_get_str(*out, "error")
			: sw_err_slug(e));
		json_object_put(*out);
		*out = NULL;
		return e == SW_OK || e == SW_EUPSTREAM ? SW_EUPSTREAM
						       : SW_EUNAVAIL;
	}
	return SW_OK;
}

/* The provider's refusal of a device code as an error and its words. */
static sw_err
device_refusal(const char *err, const char **pending, char *why, size_t whysz)
{
	if (err != NULL &&
	    (strcmp(err, "authorization_pending") == 0 ||
		strcmp(err, "slow_down") == 0)) {
		*pending = strcmp(err, "slow_down") == 0
		    ? "slow_down"
		    : "authorization_pending";
		sw_fmt_text(why, whysz, "not approved yet");
		return SW_ECONFLICT;
	}
	if (err != NULL && strcmp(err, "access_denied") == 0) {
		sw_fmt_text(why, whysz,
		    "the person denied the sign-in at the "
		    "provider");
		return SW_EFORBIDDEN;
	}
	if (err != NULL && strcmp(err, "expired_token") == 0)
		sw_fmt_text(why, whysz,
		    "the code expired before it was "
		    "approved; start again");
	else if (err != NULL && strcmp(err, "invalid_grant") == 0)
		sw_fmt_text(why, whysz,
		    "the provider knows no such code: "
		    "unknown, used or expired; start again");
	else
		sw_fmt_text(why, whysz, "the provider refused the code (%s)",
		    err != NULL ? err : "no reason");
	return SW_EUNAUTH;
}

sw_err
sw_oidc_device_end(const struct sw_config *c, const char *device_code,
    struct sw_principal *p, const char **pending, char *why, size_t whysz)
{
	const char *url, *idt;
	struct sw_buf form;
	json_object *o = NULL;
	sw_err e = SW_OK;

	memset(p, 0, sizeof(*p));
	*pending = NULL;
	if ((url = device_endpoint(c, "token_endpoint", &e, why, whysz)) ==
	    NULL)
		return e;
	sw_buf_init(&form, 4096);
	if ((e = sw_buf_puts(&form,
		 "grant_type=urn%3Aietf%3Aparams%3Aoauth"
		 "%3Agrant-type%3Adevice_code&device_code=")) != SW_OK ||
	    (e = form_value(&form, device_code)) != SW_OK)
		goto out;
	e = client_post(c, url, sw_buf_str(&form), &o);
	if (e == SW_EUPSTREAM)
		e = device_refusal(
		    sw_json_get_str(o, "error"), pending, why, whysz);
	else if (e != SW_OK) {
		sw_fmt_text(why, whysz, "the provider cannot be reached");
		e = SW_EUNAVAIL;
	} else if ((idt = sw_json_get_str(o, "id_token")) == NULL) {
		sw_fmt_text(why, whysz,
		    "the provider's answer has no ID "
		    "token");
		e = SW_EUNAUTH;
	} else
		e = id_token_check(c, idt, NULL, p, why, whysz);
out:
	json_object_put(o);
	sw_buf_free(&form);
	if (e != SW_OK)
		memset(p, 0, sizeof(*p));
	return e;
}
