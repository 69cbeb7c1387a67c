/*
 * auth.c: tokens and sessions (see auth.h).  Lookup is by the public id
 * part; the secret is checked by comparing SHA-256 digests with
 * CRYPTO_memcmp, so timing reveals nothing about the stored hash.
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/digest.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/ops.h"

/* True when column col holds the 32-byte hash md. */
static int
hash_eq(struct sw_st *st, int col, const unsigned char *md)
{
	size_t n;
	const void *p = sw_col_blob(st, col, &n);

	return n == 32 && p != NULL && CRYPTO_memcmp(p, md, 32) == 0;
}

static const char *const scope_names[SW_SCOPE__MAX] = { "none", "read", "write",
	"admin" };

/* The index of s among names[1..n-1] (names[0] is "none"), or 0. */
static int
name_index(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 1; s != NULL && i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return 0;
}

const char *
sw_scope_name(enum sw_scope s)
{
	return (unsigned)s < SW_SCOPE__MAX ? scope_names[s] : "none";
}

enum sw_scope
sw_scope_parse(const char *s)
{
	return (enum sw_scope)name_index(scope_names, SW_SCOPE__MAX, s);
}

static const char *const role_names[SW_ROLE__MAX] = { "none", "viewer",
	"operator", "platform-admin" };

const char *
sw_role_name(enum sw_role r)
{
	return (unsigned)r < SW_ROLE__MAX ? role_names[r] : "none";
}

enum sw_role
sw_role_parse(const char *s)
{
	return (enum sw_role)name_index(role_names, SW_ROLE__MAX, s);
}

enum sw_scope
sw_role_scope(enum sw_role r)
{
	return r >= SW_ROLE_PLATFORM_ADMIN ? SW_SCOPE_ADMIN
	    : r == SW_ROLE_OPERATOR        ? SW_SCOPE_WRITE
	    : r == SW_ROLE_VIEWER          ? SW_SCOPE_READ
					   : SW_SCOPE_NONE;
}

static const char *const touch_names[SW_TOUCH__MAX] = { "unset", "self",
	"cluster", "team", "platform" };

const char *
sw_touch_name(enum sw_touch t)
{
	return (unsigned)t < SW_TOUCH__MAX ? touch_names[t] : "unset";
}

/* A team name: [a-z0-9] and inner '-', 1 to SW_MAX_TEAM. */
static int
team_ok(const char *t)
{
	size_t n = strlen(t);

	return n > 0 && n <= SW_MAX_TEAM && t[0] != '-' && t[n - 1] != '-' &&
	    strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static int
name_ok(const char *n)
{
	size_t i, len = strlen(n);

	if (len == 0 || len > SW_MAX_TOKEN_NAME)
		return 0;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') ||
			(n[i] >= 'A' && n[i] <= 'Z') ||
			(n[i] >= '0' && n[i] <= '9') || strchr("._-", n[i])))
			return 0;
	return 1;
}

static void
sha256(const char *s, unsigned char md[32])
{
	unsigned int len = 32;

	EVP_Digest(s, strlen(s), md, &len, sw_sha256(), NULL);
}

/* "<prefix><16 hex id>_<43 base64url>" */
static sw_err
secret_make(const char *prefix, char id[17], char out[SW_TOKEN_LEN])
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-_";
	unsigned char raw[SW_SECRET_BYTES];
	char sec[48];
	unsigned int acc = 0;
	int bits = 0, n = 0;
	size_t i;
	sw_err e;

	if ((e = sw_random_hex(id, 8)) != SW_OK)
		return e;
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return SW_EINTERNAL;
	for (i = 0; i < sizeof(raw); i++) {
		acc = (acc << 8) | raw[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			sec[n++] = b64[(acc >> bits) & 63];
		}
	}
	if (bits > 0)
		sec[n++] = b64[(acc << (6 - bits)) & 63];
	sec[n] = '\0';
	OPENSSL_cleanse(raw, sizeof(raw));
	e = sw_fmt(out, SW_TOKEN_LEN, "%s%s_%s", prefix, id, sec);
	OPENSSL_cleanse(sec, sizeof(sec));
	return e;
}

/* Split "<prefix><id>_<secret>" and return the id, or 0 if malformed. */
static int
secret_id(const char *prefix, const char *tok, char id[17])
{
	size_t plen = strlen(prefix), i;

	if (tok == NULL || strlen(tok) != SW_TOKEN_LEN - 1 ||
	    strncmp(tok, prefix, plen) != 0 || tok[plen + 16] != '_')
		return 0;
	for (i = 0; i < 16; i++) {
		char c = tok[plen + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
		id[i] = c;
	}
	id[16] = '\0';
	return 1;
}

sw_err
sw_token_create(struct sw_db *db, const char *name, enum sw_scope scope,
    char out[SW_TOKEN_LEN])
{
	unsigned char md[32];
	struct sw_st *st;
	char id[17];
	int rc;
	sw_err e;

	if (!name_ok(name) || scope == SW_SCOPE_NONE ||
	    (unsigned)scope >= SW_SCOPE__MAX)
		return SW_EINVAL;
	if ((e = secret_make("swt_", id, out)) != SW_OK)
		return e;
	sha256(out, md);
	if ((st = sw_db_stmt(db, STMT_TOKEN_INSERT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_text(st, 2, name);
	sw_bind_text(st, 3, sw_scope_name(scope));
	sw_bind_blob(st, 4, md, sizeof(md));
	sw_bind_int64(st, 5, sw_db_now_ms(db));
	rc = sw_db_step(st);
	sw_reset(st);
	if (rc != SW_DB_DONE) {
		OPENSSL_cleanse(out, SW_TOKEN_LEN);
		return sw_db_err(db, rc);
	}
	return SW_OK;
}

sw_err
sw_token_set_tools(struct sw_db *db, const char *name, const char *tools)
{
	struct sw_st *st;
	size_t n = strlen(tools);
	int rc;

	if (n > SW_MAX_TOOL_CLASSES ||
	    strspn(tools, "abcdefghijklmnopqrstuvwxyz-,") != n)
		return SW_EINVAL;
	if ((st = sw_db_stmt(db, STMT_TOKEN_SET_TOOLS)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	if (n > 0)
		sw_bind_text(st, 2, tools);
	else
		sw_bind_null(st, 2);
	rc = sw_db_step(st);
	sw_reset(st);
	if (rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	return sw_db_changes(db) > 0 ? SW_OK : SW_ENOTFOUND;
}

sw_err
sw_token_set_team(struct sw_db *db, const char *name, const char *team,
    enum sw_role role, int64_t expires_ms)
{
	struct sw_st *st;
	int rc;

	if ((team != NULL && !team_ok(team)) ||
	    (team != NULL) != (role != SW_ROLE_NONE) ||
	    (unsigned)role >= SW_ROLE__MAX || expires_ms < 0)
		return SW_EINVAL;
	if ((st = sw_db_stmt(db, STMT_TOKEN_SET_TEAM)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	if (team != NULL) {
		sw_bind_text(st, 2, team);
		sw_bind_text(st, 3, sw_role_name(role));
	} else {
		sw_bind_null(st, 2);
		sw_bind_null(st, 3);
	}
	if (expires_ms > 0)
		sw_bind_int64(st, 4, expires_ms);
	else
		sw_bind_null(st, 4);
	rc = sw_db_step(st);
	sw_reset(st);
	if (rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	return sw_db_changes(db) > 0 ? SW_OK : SW_ENOTFOUND;
}

sw_err
sw_token_list(struct sw_db *db, const char *team, json_object **out)
{
	struct sw_st *st;
	json_object *arr, *t;
	int rc;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_TOKEN_LIST)) == NULL)
		return SW_EDB;
	if (team != NULL)
		sw_bind_text(st, 1, team);
	else
		sw_bind_null(st, 1);
	arr = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		t = json_object_new_object();
		sw_json_add_str(t, "name", sw_col_text(st, 1));
		sw_json_add_str(t, "scope", sw_col_text(st, 2));
		sw_json_add_int(t, "created_ms", sw_col_int64(st, 3));
		if (!sw_col_null(st, 4))
			sw_json_add_int(t, "last_used_ms", sw_col_int64(st, 4));
		sw_json_add_bool(t, "revoked", !sw_col_null(st, 5));
		if (!sw_col_null(st, 6)) {
			sw_json_add_str(t, "team", sw_col_text(st, 6));
			sw_json_add_str(t, "role", sw_col_text(st, 7));
		}
		if (!sw_col_null(st, 8))
			sw_json_add_int(t, "expires_ms", sw_col_int64(st, 8));
		json_object_array_add(arr, t);
	}
	sw_reset(st);
	if (rc != SW_DB_DONE) {
		json_object_put(arr);
		return sw_db_err(db, rc);
	}
	*out = arr;
	return SW_OK;
}

sw_err
sw_token_revoke(struct sw_db *db, const char *name, const char *team)
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_TOKEN_REVOKE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	sw_bind_int64(st, 2, sw_db_now_ms(db));
	if (team != NULL)
		sw_bind_text(st, 3, team);
	else
		sw_bind_null(st, 3);
	rc = sw_db_step(st);
	sw_reset(st);
	if (rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	return sw_db_changes(db) == 1 ? SW_OK : SW_ENOTFOUND;
}

/*
 * Whether this process should write last_used for token id now: not when
 * it did so for that token less than SW_TOKEN_TOUCH_MS ago.  A small
 * per-process table; the SQL statement applies the same interval across
 * processes.
 */
static int
touch_due(const char *id, int64_t now)
{
	static struct {
		char id[17];
		int64_t ms;
	} seen[SW_TOKEN_TOUCH_CACHE];
	size_t i, oldest = 0;

	for (i = 0; i < SW_TOKEN_TOUCH_CACHE; i++) {
		if (strcmp(seen[i].id, id) == 0) {
			if (now - seen[i].ms < SW_TOKEN_TOUCH_MS &&
			    now >= seen[i].ms)
				return 0;
			seen[i].ms = now;
			return 1;
		}
		if (seen[i].ms < seen[oldest].ms)
			oldest = i;
	}
	if (sw_fmt(seen[oldest].id, sizeof(seen[oldest].id), "%s", id) != SW_OK)
		seen[oldest].id[0] = '\0'; /* not kept: touched again */
	seen[oldest].ms = now;
	return 1;
}

/*
 * A service account's team, role and expiry from columns col.. of st
 * into p: 0 when it has expired by the database's clock, the column
 * after them (or the stored team does not fit).
 */
static int
account_of(struct sw_st *st, int col, struct sw_principal *p)
{
	if (!sw_col_null(st, col + 2) &&
	    sw_col_int64(st, col + 2) <= sw_col_int64(st, col + 3))
		return 0;
	if (sw_col_null(st, col))
		return 1;
	p->role = sw_role_parse(sw_col_text(st, col + 1));
	return sw_fmt(p->team, sizeof(p->team), "%s", sw_col_text(st, col)) ==
	    SW_OK &&
	    p->role != SW_ROLE_NONE;
}

sw_err
sw_token_check(struct sw_db *db, const char *token, struct sw_principal *p)
{
	unsigned char md[32];
	struct sw_st *st;
	char id[17];
	int64_t now = 0;
	int rc, good = 0;

	memset(p, 0, sizeof(*p));
	if (!secret_id("swt_", token, id))
		return SW_EUNAUTH;
	sha256(token, md);
	if ((st = sw_db_stmt(db, STMT_TOKEN_BY_ID)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW && hash_eq(st, 3, md) && sw_col_null(st, 4)) {
		/* A principal is whole or none. */
		good = sw_fmt(p->token_id, sizeof(p->token_id), "%s", id) ==
			SW_OK &&
		    sw_fmt(p->name, sizeof(p->name), "%s",
			sw_col_text(st, 1)) == SW_OK;
		p->scope = sw_scope_parse(sw_col_text(st, 2));
		if (!sw_col_null(st, 5) &&
		    sw_fmt(p->tools, sizeof(p->tools), "%s",
			sw_col_text(st, 5)) != SW_OK)
			good = 0;
		if (!account_of(st, 6, p))
			good = 0;
		now = sw_col_int64(st, 9);
	}
	sw_reset(st);
	if (rc != SW_DB_ROW && rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	if (!good)
		return SW_EUNAUTH;
	if (touch_due(id, now) &&
	    (st = sw_db_stmt(db, STMT_TOKEN_TOUCH)) != NULL) {
		sw_bind_text(st, 1, id);
		sw_bind_int64(st, 2, now);
		sw_bind_int64(st, 3, SW_TOKEN_TOUCH_MS);
		/* last_used is a hint: a busy database must not fail the
		 * request, but say so. */
		if ((rc = sw_db_step(st)) != SW_DB_DONE)
			sw_warn("cannot record the use of token %s: %s", id,
			    sw_db_rc_str(rc));
		sw_reset(st);
	}
	return SW_OK;
}

/* A session of a person the provider signed in: swp_..., its own
 * table, the person, scope and groups kept with it. */
/* A new session's secret (prefix + random) into out, its id and hash,
 * after the expired sessions of the purge statement are gone. */
static sw_err
session_secret(struct sw_db *db, const char *prefix, enum sw_stmt purge,
    int64_t now, char id[17], char out[SW_TOKEN_LEN], unsigned char md[32])
{
	struct sw_st *st;
	sw_err e;

	if ((e = secret_make(prefix, id, out)) != SW_OK)
		return e;
	sha256(out, md);
	if ((st = sw_db_stmt(db, purge)) != NULL) {
		sw_bind_int64(st, 1, now);
		(void)sw_db_step(st);
		sw_reset(st);
	}
	return SW_OK;
}

static sw_err
person_session_create(
    struct sw_db *db, const struct sw_principal *p, char out[SW_TOKEN_LEN])
{
	unsigned char md[32];
	struct sw_st *st;
	int64_t now = sw_db_now_ms(db);
	char id[17];
	int rc;
	sw_err e;

	if ((e = session_secret(
		 db, "swp_", STMT_PSESSION_PURGE, now, id, out, md)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_PSESSION_INSERT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_blob(st, 2, md, sizeof(md));
	sw_bind_text(st, 3, p->name);
	sw_bind_text(st, 4, p->token_id);
	sw_bind_text(st, 5, sw_scope_name(p->scope));
	sw_bind_text(st, 6, p->groups);
	sw_bind_int64(st, 7, now);
	sw_bind_int64(st, 8, now + (int64_t)SW_SESSION_TTL * 1000);
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

static sw_err
person_session_check(
    struct sw_db *db, const char *cookie, struct sw_principal *p)
{
	unsigned char md[32];
	struct sw_st *st;
	char id[17];
	int rc, good = 0;

	if (!secret_id("swp_", cookie, id))
		return SW_EUNAUTH;
	sha256(cookie, md);
	if ((st = sw_db_stmt(db, STMT_PSESSION_BY_ID)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW && hash_eq(st, 0, md) &&
	    sw_col_int64(st, 1) > sw_col_int64(st, 6)) {
		/* a stored value that does not fit is a corrupt store */
		good = sw_fmt(p->token_id, sizeof(p->token_id), "%s",
			   sw_col_text(st, 2)) == SW_OK &&
		    sw_fmt(p->name, sizeof(p->name), "%s",
			sw_col_text(st, 3)) == SW_OK &&
		    sw_fmt(p->groups, sizeof(p->groups), "%s",
			sw_col_text(st, 5)) == SW_OK;
		p->scope = sw_scope_parse(sw_col_text(st, 4));
		p->via_cookie = 1;
		p->via_provider = 1;
	}
	sw_reset(st);
	if (rc != SW_DB_ROW && rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	return good ? SW_OK : SW_EUNAUTH;
}

sw_err
sw_session_create(
    struct sw_db *db, const struct sw_principal *p, char out[SW_TOKEN_LEN])
{
	unsigned char md[32];
	struct sw_st *st;
	int64_t now = sw_db_now_ms(db);
	char id[17];
	int rc;
	sw_err e;

	if (p->via_provider)
		return person_session_create(db, p, out);
	if ((e = session_secret(
		 db, "sws_", STMT_SESSION_PURGE, now, id, out, md)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_SESSION_INSERT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_blob(st, 2, md, sizeof(md));
	sw_bind_text(st, 3, p->token_id);
	sw_bind_int64(st, 4, now);
	sw_bind_int64(st, 5, now + (int64_t)SW_SESSION_TTL * 1000);
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_session_check(struct sw_db *db, const char *cookie, struct sw_principal *p)
{
	unsigned char md[32];
	struct sw_st *st;
	char id[17];
	int rc, good = 0;

	memset(p, 0, sizeof(*p));
	if (cookie != NULL && strncmp(cookie, "swp_", 4) == 0)
		return person_session_check(db, cookie, p);
	if (!secret_id("sws_", cookie, id))
		return SW_EUNAUTH;
	sha256(cookie, md);
	if ((st = sw_db_stmt(db, STMT_SESSION_BY_ID)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW && hash_eq(st, 0, md) &&
	    sw_col_int64(st, 1) > sw_col_int64(st, 9) && sw_col_null(st, 5)) {
		/* A principal is whole or none. */
		good = sw_fmt(p->token_id, sizeof(p->token_id), "%s",
			   sw_col_text(st, 2)) == SW_OK &&
		    sw_fmt(p->name, sizeof(p->name), "%s",
			sw_col_text(st, 3)) == SW_OK;
		p->scope = sw_scope_parse(sw_col_text(st, 4));
		p->via_cookie = 1;
		if (!account_of(st, 6, p))
			good = 0;
	}
	sw_reset(st);
	if (rc != SW_DB_ROW && rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	return good ? SW_OK : SW_EUNAUTH;
}

sw_err
sw_session_delete(struct sw_db *db, const char *cookie)
{
	struct sw_st *st;
	char id[17];
	int rc;

	if (secret_id("swp_", cookie, id))
		st = sw_db_stmt(db, STMT_PSESSION_DELETE);
	else if (secret_id("sws_", cookie, id))
		st = sw_db_stmt(db, STMT_SESSION_DELETE);
	else
		return SW_OK;
	if (st == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}
