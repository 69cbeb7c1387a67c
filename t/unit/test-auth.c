/* test-auth.c: tokens are random, stored hashed, checked exactly, carry
 * their scope, and die when revoked; sessions likewise. */
#include <string.h>

#include "lib/auth.h"
#include "lib/json.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

int
main(void)
{
	struct sw_db *db = tmpdb_open();
	struct sw_principal p;
	char t1[SW_TOKEN_LEN], t2[SW_TOKEN_LEN], s1[SW_TOKEN_LEN],
	    bad[SW_TOKEN_LEN];
	json_object *list;
	sqlite3_stmt *st;
	int plaintext_stored = 0;

	if (db == NULL)
		skip_all("cannot create a database");
	ok(sw_token_create(db, "admin", SW_SCOPE_ADMIN, t1) == SW_OK,
	    "create admin token");
	ok(strncmp(t1, "swt_", 4) == 0 && strlen(t1) == SW_TOKEN_LEN - 1,
	    "token format");
	ok(sw_token_create(db, "reader", SW_SCOPE_READ, t2) == SW_OK &&
	    strcmp(t1, t2) != 0, "tokens differ");
	ok(sw_token_create(db, "admin", SW_SCOPE_READ, t2) == SW_ECONFLICT,
	    "names are unique");
	ok(sw_token_create(db, "bad name", SW_SCOPE_READ, t2) == SW_EINVAL,
	    "names are checked");
	ok(sw_token_create(db, "x", SW_SCOPE_NONE, t2) == SW_EINVAL,
	    "a scope is required");

	ok(sw_token_check(db, t1, &p) == SW_OK && p.scope == SW_SCOPE_ADMIN
	    && strcmp(p.name, "admin") == 0, "check gives name and scope");
	memcpy(bad, t1, sizeof(bad));
	bad[SW_TOKEN_LEN - 2] = bad[SW_TOKEN_LEN - 2] == 'A' ? 'B' : 'A';
	ok(sw_token_check(db, bad, &p) == SW_EUNAUTH,
	    "one changed character is refused");
	ok(sw_token_check(db, "swt_short", &p) == SW_EUNAUTH,
	    "malformed token refused");
	ok(sw_token_check(db, NULL, &p) == SW_EUNAUTH, "NULL refused");

	/* Only hashes are stored. */
	sqlite3_prepare_v2(sw_db_handle(db), "SELECT hash FROM tokens", -1,
	    &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_bytes(st, 0) != 32 ||
		    memmem(sqlite3_column_blob(st, 0), 32, t1 + 21, 20))
			plaintext_stored = 1;
	sqlite3_finalize(st);
	ok(!plaintext_stored, "stored as 32-byte digests only");

	/* last_used is written once, not on every check. */
	{
		int64_t first = -1, again = -2;
		int changes;

		sqlite3_prepare_v2(sw_db_handle(db), "SELECT last_used FROM "
		    "tokens WHERE name = 'admin'", -1, &st, NULL);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_type(st, 0) != SQLITE_NULL)
			first = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		ok(first > 0, "a check records last_used");
		changes = sqlite3_total_changes(sw_db_handle(db));
		sw_token_check(db, t1, &p);
		sw_token_check(db, t1, &p);
		is_int(sqlite3_total_changes(sw_db_handle(db)) - changes, 0,
		    "checks within a minute write nothing");
		/* Another process (its own cache) finds the row fresh. */
		sqlite3_exec(sw_db_handle(db), "UPDATE tokens SET last_used = "
		    "last_used - 120000 WHERE name = 'admin'", NULL, NULL,
		    NULL);
		if (sqlite3_step(st) == SQLITE_ROW)
			again = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		ok(again == first - 120000, "last_used moved back");
	}

	sw_token_check(db, t1, &p);
	ok(sw_session_create(db, &p, s1) == SW_OK &&
	    strncmp(s1, "sws_", 4) == 0, "session for a valid principal");
	ok(sw_session_check(db, s1, &p) == SW_OK && p.via_cookie &&
	    p.scope == SW_SCOPE_ADMIN, "session checks out with scope");
	ok(sw_session_check(db, t1, &p) == SW_EUNAUTH,
	    "a token is not a session id");

	ok(sw_token_list(db, NULL, &list) == SW_OK &&
	    json_object_array_length(list) == 2, "list tokens");
	ok(strstr(sw_json_str(list), t1 + 21) == NULL,
	    "list never shows secrets");
	json_object_put(list);

	ok(sw_token_revoke(db, "admin", NULL) == SW_OK, "revoke");
	ok(sw_token_revoke(db, "admin", NULL) == SW_ENOTFOUND, "revoke twice");
	ok(sw_token_check(db, t1, &p) == SW_EUNAUTH,
	    "revoked token refused");
	ok(sw_session_check(db, s1, &p) == SW_EUNAUTH,
	    "sessions of a revoked token die with it");
	ok(sw_session_delete(db, s1) == SW_OK, "logout");

	is_int(sw_scope_parse("write"), SW_SCOPE_WRITE, "scope parse");
	is_int(sw_scope_parse("root"), SW_SCOPE_NONE, "unknown scope");
	tmpdb_close(db);
	return tap_done();
}
