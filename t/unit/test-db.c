/* test-db.c: the state store creates its schema, reopens without
 * re-migrating, and refuses a file from a newer build; the end of a
 * unit of work resets what was left mid-step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/db.h"
#include "t/tap.h"

int
main(void)
{
	char dir[] = "/tmp/sw-test-db-XXXXXX", path[128];
	struct sw_db *db = NULL;
	char *errmsg = NULL;

	if (mkdtemp(dir) == NULL)
		skip_all("mkdtemp failed");
	snprintf(path, sizeof(path), "%s/state.db", dir);
	ok(sw_db_open(path, &db) == SW_OK, "open creates the database");
	is_int(sw_db_version(db), sw_db_version_latest(),
	    "schema migrated to the newest version");
	ok(sw_db_stmt(db, STMT_OP_LIST) != NULL, "statements prepare");
	ok(sw_db_stmt(db, (enum sw_stmt)STMT__MAX) == NULL,
	    "out-of-range statement is refused");
	{
		sqlite3_stmt *st;
		const char *mode = "";

		sqlite3_prepare_v2(sw_db_handle(db), "PRAGMA journal_mode",
		    -1, &st, NULL);
		if (sqlite3_step(st) == SQLITE_ROW)
			mode = (const char *)sqlite3_column_text(st, 0);
		is_str(mode, "wal", "journal mode is WAL");
		sqlite3_finalize(st);
	}
	/* A COMMIT that fails (here a deferred foreign key) ends the
	 * transaction: the connection must not stay inside it, or every
	 * later BEGIN of this worker fails. */
	{
		sqlite3 *h = sw_db_handle(db);

		ok(sw_db_begin(db) == SW_OK, "begin");
		sqlite3_exec(h, "PRAGMA defer_foreign_keys = ON", NULL, NULL,
		    NULL);
		sqlite3_exec(h, "INSERT INTO stages (op_id, seq, name, state)"
		    " VALUES ('op-none', 0, 'x', 'pending')", NULL, NULL, NULL);
		ok(sw_db_commit(db) != SW_OK, "a COMMIT that fails says so");
		ok(sqlite3_get_autocommit(h), "and leaves no transaction open");
		ok(sw_db_begin(db) == SW_OK && sw_db_commit(db) == SW_OK,
		    "the next transaction works");
		sqlite3_exec(h, "SELECT 1", NULL, NULL, NULL);
	}
	/* A statement stepped to its first row and never reset keeps a
	 * read transaction, and with it an old snapshot, open. */
	{
		sqlite3 *h = sw_db_handle(db);
		sqlite3_stmt *st = sw_db_stmt(db, STMT_METRIC_DUE), *own;

		sqlite3_bind_int64(st, 1, 0);
		ok(sw_db_step(st) == SQLITE_ROW, "an aggregate gives a row");
		ok(sqlite3_txn_state(h, NULL) == SQLITE_TXN_READ,
		    "left mid-step, it holds a read transaction");
		ok(sw_db_idle(db) == SW_OK, "the end of the work resets it");
		ok(!sqlite3_stmt_busy(st) &&
		    sqlite3_txn_state(h, NULL) == SQLITE_TXN_NONE,
		    "and no transaction is left");
		sqlite3_prepare_v2(h, "SELECT 1 FROM operations UNION ALL "
		    "SELECT 1", -1, &own, NULL);
		(void)sqlite3_step(own);
		ok(sw_db_idle(db) == SW_EINTERNAL,
		    "a read held outside the statement table is reported");
		sqlite3_finalize(own);
		ok(sw_db_begin(db) == SW_OK, "begin");
		ok(sw_db_idle(db) == SW_EINTERNAL &&
		    sqlite3_get_autocommit(h),
		    "an open transaction is reported and rolled back");
	}
	/* A write after another connection's commit, with a statement of
	 * ours still on the older snapshot, waits its turn instead of
	 * failing at once with SQLITE_BUSY_SNAPSHOT. */
	{
		struct sw_db *other = NULL;
		sqlite3_stmt *st = sw_db_stmt(db, STMT_METRIC_DUE);

		ok(sw_db_open(path, &other) == SW_OK, "a second connection");
		sqlite3_bind_int64(st, 1, 0);
		(void)sw_db_step(st);
		ok(sw_db_begin(other) == SW_OK && sqlite3_exec(sw_db_handle(
		    other), "INSERT INTO tokens (id, name, scope, hash, "
		    "created) VALUES ('x', 'x', 'read', x'00', 0)", NULL, NULL,
		    NULL) == SQLITE_OK && sw_db_commit(other) == SW_OK,
		    "the other connection commits a write");
		ok(sw_db_begin(db) == SW_OK, "ours then begins a write");
		ok(sw_db_commit(db) == SW_OK, "and commits it");
		sw_db_close(other);
	}
	sw_db_close(db);
	ok(sw_db_open(path, &db) == SW_OK, "reopen works");
	is_int(sw_db_version(db), sw_db_version_latest(), "version kept");
	sqlite3_exec(sw_db_handle(db), "PRAGMA user_version = 999", NULL,
	    NULL, &errmsg);
	sqlite3_free(errmsg);
	sw_db_close(db);
	ok(sw_db_open(path, &db) == SW_EDB,
	    "a database from a newer build is refused");
	{
		char f[160];

		snprintf(f, sizeof(f), "%s/state.db", dir);
		unlink(f);
		snprintf(f, sizeof(f), "%s/state.db-wal", dir);
		unlink(f);
		snprintf(f, sizeof(f), "%s/state.db-shm", dir);
		unlink(f);
		rmdir(dir);
	}
	return tap_done();
}
