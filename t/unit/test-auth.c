/* test-auth.c: tokens are random, stored hashed, checked exactly, carry
 * their scope, and die when revoked; sessions likewise.  Service
 * accounts carry their team and role and die when they expire; the
 * team rule (sw_team_rule) over touch x role x team. */
#include <string.h>

#include "lib/auth.h"
#include "lib/conf.h"
#include "lib/json.h"
#include "lib/oidc.h"
#include "lib/teams.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

/* A service account of team with role, expiring at expires_ms (0:
 * never): the principal sw_token_check gives, or SW_EUNAUTH. */
static sw_err
account(struct sw_db *db, const char *name, const char *team, enum sw_role role,
    int64_t expires_ms, struct sw_principal *p)
{
	char tok[SW_TOKEN_LEN];

	if (sw_token_create(db, name, sw_role_scope(role), tok) != SW_OK ||
	    sw_token_set_team(db, name, team, role, expires_ms) != SW_OK)
		return SW_EINTERNAL;
	return sw_token_check(db, tok, p);
}

static void
test_accounts(struct sw_db *db)
{
	struct sw_principal p;
	json_object *list;

	ok(account(db, "sa-op", "ml-a", SW_ROLE_OPERATOR, 0, &p) == SW_OK &&
		strcmp(p.team, "ml-a") == 0 && p.role == SW_ROLE_OPERATOR &&
		p.scope == SW_SCOPE_WRITE,
	    "a service account's team and role");
	ok(account(db, "sa-old", "ml-a", SW_ROLE_VIEWER, sw_now_ms() - 1, &p) ==
		SW_EUNAUTH,
	    "an expired service account is refused");
	ok(sw_token_set_team(db, "sa-op", "Bad_Team", SW_ROLE_VIEWER, 0) ==
		SW_EINVAL,
	    "a team name breaking [a-z0-9-] is refused");
	ok(sw_token_set_team(db, "sa-op", "ml-a", SW_ROLE_NONE, 0) == SW_EINVAL,
	    "a team without a role is refused");
	/* Both made in the same millisecond list by name: find sa-op. */
	ok(sw_token_list(db, "ml-a", &list) == SW_OK &&
		json_object_array_length(list) == 2 &&
		strcmp(sw_json_get_str(
			   json_object_array_get_idx(list,
			       strcmp(sw_json_get_str(
					  json_object_array_get_idx(list, 0),
					  "name"),
				   "sa-op") == 0
				   ? 0
				   : 1),
			   "role"),
		    "operator") == 0,
	    "a team's list has its accounts with their roles");
	json_object_put(list);
	ok(sw_token_revoke(db, "sa-op", "ml-b") == SW_ENOTFOUND &&
		sw_token_revoke(db, "sa-op", "ml-a") == SW_OK,
	    "revoking in another team finds nothing; in its own, it goes");
}

/* The rule for one row, team and principal: 1 allowed, 0 denied. */
static int
may(const struct sw_config *c, const struct sw_principal *p,
    enum sw_touch touch, int readonly, int team_arg, const char *team)
{
	struct sw_rule_row row = { .name = "op",
		.scope = SW_SCOPE_WRITE,
		.touch = touch,
		.readonly = readonly,
		.team_arg = team_arg };
	char why[320];

	return sw_team_rule(c, p, &row, team, why, sizeof(why)) == NULL;
}

static void
test_rule(void)
{
	struct sw_config c;
	struct sw_principal p;
	struct sw_membership m[4];

	memset(&c, 0, sizeof(c));
	c.root =
	    json_tokener_parse("{\"teams\": {\"a\": {\"viewer\": "
			       "[\"g1\"], \"operator\": [\"g2\"]}, \"ops\": "
			       "{\"platform-admin\": [\"g3\"]}}}");
	memset(&p, 0, sizeof(p));
	p.via_provider = 1;
	snprintf(p.groups, sizeof(p.groups), "x,g1,g2");
	ok(sw_principal_teams(&c, &p, m, 4) == 1 &&
		strcmp(m[0].team, "a") == 0 && m[0].role == SW_ROLE_OPERATOR,
	    "groups give the highest role a group maps to");
	ok(may(&c, &p, SW_TOUCH_TEAM, 0, 0, "a") &&
		!may(&c, &p, SW_TOUCH_TEAM, 1, 0, "b") &&
		!may(&c, &p, SW_TOUCH_TEAM, 1, 0, NULL),
	    "team rows: own team yes, another or none no");
	ok(may(&c, &p, SW_TOUCH_CLUSTER, 1, 0, NULL) &&
		!may(&c, &p, SW_TOUCH_PLATFORM, 0, 0, NULL),
	    "an operator reads clusters, changes no platform");
	snprintf(p.groups, sizeof(p.groups), "g3");
	ok(may(&c, &p, SW_TOUCH_PLATFORM, 0, 0, NULL) &&
		!may(&c, &p, SW_TOUCH_PLATFORM, 0, 1, "a") &&
		may(&c, &p, SW_TOUCH_PLATFORM, 0, 1, "ops"),
	    "platform-admin: the platform; a team's accounts only its own");
	snprintf(p.groups, sizeof(p.groups), "nobody");
	ok(sw_principal_teams(&c, &p, m, 4) == 0 &&
		may(&c, &p, SW_TOUCH_SELF, 1, 0, NULL) &&
		!may(&c, &p, SW_TOUCH_CLUSTER, 1, 0, NULL),
	    "a person in no team: whoami only");
	memset(&p, 0, sizeof(p));
	p.scope = SW_SCOPE_WRITE;
	ok(sw_principal_teams(&c, &p, m, 4) == -1 &&
		may(&c, &p, SW_TOUCH_PLATFORM, 0, 0, NULL) &&
		may(&c, &p, SW_TOUCH_TEAM, 0, 0, "b"),
	    "a token of no team: its scope alone");
	p.scope = SW_SCOPE_READ;
	ok(!may(&c, &p, SW_TOUCH_TEAM, 0, 0, "b"), "... which may be short");
	json_object_put(c.root);
}

int
main(void)
{
	struct sw_db *db = tmpdb_open();
	struct sw_principal p;
	char t1[SW_TOKEN_LEN], t2[SW_TOKEN_LEN], s1[SW_TOKEN_LEN],
	    bad[SW_TOKEN_LEN];
	json_object *list;
	struct sw_st *st;
	int plaintext_stored = 0;

	if (db == NULL)
		skip_all("cannot create a database");
	ok(sw_token_create(db, "admin", SW_SCOPE_ADMIN, t1) == SW_OK,
	    "create admin token");
	ok(strncmp(t1, "swt_", 4) == 0 && strlen(t1) == SW_TOKEN_LEN - 1,
	    "token format");
	ok(sw_token_create(db, "reader", SW_SCOPE_READ, t2) == SW_OK &&
		strcmp(t1, t2) != 0,
	    "tokens differ");
	ok(sw_token_create(db, "admin", SW_SCOPE_READ, t2) == SW_ECONFLICT,
	    "names are unique");
	ok(sw_token_create(db, "bad name", SW_SCOPE_READ, t2) == SW_EINVAL,
	    "names are checked");
	ok(sw_token_create(db, "x", SW_SCOPE_NONE, t2) == SW_EINVAL,
	    "a scope is required");

	ok(sw_token_check(db, t1, &p) == SW_OK && p.scope == SW_SCOPE_ADMIN &&
		strcmp(p.name, "admin") == 0,
	    "check gives name and scope");
	memcpy(bad, t1, sizeof(bad));
	bad[SW_TOKEN_LEN - 2] = bad[SW_TOKEN_LEN - 2] == 'A' ? 'B' : 'A';
	ok(sw_token_check(db, bad, &p) == SW_EUNAUTH,
	    "one changed character is refused");
	ok(sw_token_check(db, "swt_short", &p) == SW_EUNAUTH,
	    "malformed token refused");
	ok(sw_token_check(db, NULL, &p) == SW_EUNAUTH, "NULL refused");

	/* Only hashes are stored. */
	sw_db_prepare(db, "SELECT hash FROM tokens", &st);
	while (sw_db_step(st) == SW_DB_ROW) {
		size_t n;
		const void *h = sw_col_blob(st, 0, &n);

		if (n != 32 || memmem(h, 32, t1 + 21, 20))
			plaintext_stored = 1;
	}
	sw_st_free(st);
	ok(!plaintext_stored, "stored as 32-byte digests only");

	/* last_used is written once, not on every check. */
	{
		int64_t first = -1, again = -2;
		int changes;

		sw_db_prepare(db,
		    "SELECT last_used FROM "
		    "tokens WHERE name = 'admin'",
		    &st);
		if (sw_db_step(st) == SW_DB_ROW && !sw_col_null(st, 0))
			first = sw_col_int64(st, 0);
		sw_reset(st);
		ok(first > 0, "a check records last_used");
		changes = (int)sw_db_total_changes(db);
		sw_token_check(db, t1, &p);
		sw_token_check(db, t1, &p);
		is_int((int)sw_db_total_changes(db) - changes, 0,
		    "checks within a minute write nothing");
		/* Another process (its own cache) finds the row fresh. */
		sw_db_exec_sql(db,
		    "UPDATE tokens SET last_used = "
		    "last_used - 120000 WHERE name = 'admin'");
		if (sw_db_step(st) == SW_DB_ROW)
			again = sw_col_int64(st, 0);
		sw_st_free(st);
		ok(again == first - 120000, "last_used moved back");
	}

	sw_token_check(db, t1, &p);
	ok(sw_session_create(db, &p, s1) == SW_OK &&
		strncmp(s1, "sws_", 4) == 0,
	    "session for a valid principal");
	ok(sw_session_check(db, s1, &p) == SW_OK && p.via_cookie &&
		p.scope == SW_SCOPE_ADMIN,
	    "session checks out with scope");
	ok(sw_session_check(db, t1, &p) == SW_EUNAUTH,
	    "a token is not a session id");

	ok(sw_token_list(db, NULL, &list) == SW_OK &&
		json_object_array_length(list) == 2,
	    "list tokens");
	ok(strstr(sw_json_str(list), t1 + 21) == NULL,
	    "list never shows secrets");
	json_object_put(list);

	ok(sw_token_revoke(db, "admin", NULL) == SW_OK, "revoke");
	ok(sw_token_revoke(db, "admin", NULL) == SW_ENOTFOUND, "revoke twice");
	ok(sw_token_check(db, t1, &p) == SW_EUNAUTH, "revoked token refused");
	ok(sw_session_check(db, s1, &p) == SW_EUNAUTH,
	    "sessions of a revoked token die with it");
	ok(sw_session_delete(db, s1) == SW_OK, "logout");

	is_int(sw_scope_parse("write"), SW_SCOPE_WRITE, "scope parse");
	is_int(sw_scope_parse("root"), SW_SCOPE_NONE, "unknown scope");
	test_accounts(db);
	test_rule();
	tmpdb_close(db);
	return tap_done();
}
