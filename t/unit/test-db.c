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
		struct sw_st *st;
		const char *mode = "";

		sw_db_prepare(db, "PRAGMA journal_mode", &st);
		if (sw_db_step(st) == SW_DB_ROW)
			mode = sw_col_text_or_null(st, 0);
		is_str(mode, "wal", "journal mode is WAL");
		sw_st_free(st);
	}
	/* A COMMIT that fails (here a deferred foreign key) ends the
	 * transaction: the connection must not stay inside it, or every
	 * later BEGIN of this worker fails. */
	{
		ok(sw_db_begin(db) == SW_OK, "begin");
		sw_db_exec_sql(db, "PRAGMA defer_foreign_keys = ON");
		sw_db_exec_sql(db,
		    "INSERT INTO stages (op_id, seq, name, state)"
		    " VALUES ('op-none', 0, 'x', 'pending')");
		ok(sw_db_commit(db) != SW_OK, "a COMMIT that fails says so");
		ok(sw_db_txn(db) == SW_TXN_NONE,
		    "and leaves no transaction open");
		ok(sw_db_begin(db) == SW_OK && sw_db_commit(db) == SW_OK,
		    "the next transaction works");
		sw_db_exec_sql(db, "SELECT 1");
	}
	/* A statement stepped to its first row and never reset keeps a
	 * read transaction, and with it an old snapshot, open. */
	{
		struct sw_st *st = sw_db_stmt(db, STMT_METRIC_DUE), *own;

		sw_bind_int64(st, 1, 0);
		ok(sw_db_step(st) == SW_DB_ROW, "an aggregate gives a row");
		ok(sw_db_txn(db) == SW_TXN_READ,
		    "left mid-step, it holds a read transaction");
		ok(sw_db_idle(db) == SW_OK, "the end of the work resets it");
		ok(sw_db_txn(db) == SW_TXN_NONE, "and no transaction is left");
		sw_db_prepare(db,
		    "SELECT 1 FROM operations UNION ALL "
		    "SELECT 1",
		    &own);
		(void)sw_db_step(own);
		ok(sw_db_idle(db) == SW_EINTERNAL,
		    "a read held outside the statement table is reported");
		sw_st_free(own);
		ok(sw_db_begin(db) == SW_OK, "begin");
		ok(sw_db_idle(db) == SW_EINTERNAL &&
			sw_db_txn(db) == SW_TXN_NONE,
		    "an open transaction is reported and rolled back");
	}
	/* A write after another connection's commit, with a statement of
	 * ours still on the older snapshot, waits its turn instead of
	 * failing at once with SQLITE_BUSY_SNAPSHOT. */
	{
		struct sw_db *other = NULL;
		struct sw_st *st = sw_db_stmt(db, STMT_METRIC_DUE);

		ok(sw_db_open(path, &other) == SW_OK, "a second connection");
		sw_bind_int64(st, 1, 0);
		(void)sw_db_step(st);
		ok(sw_db_begin(other) == SW_OK &&
			sw_db_exec_sql(other,
			    "INSERT INTO tokens (id, name, scope, hash, "
			    "created) VALUES ('x', 'x', 'read', x'00', 0)") ==
			    SW_OK &&
			sw_db_commit(other) == SW_OK,
		    "the other connection commits a write");
		ok(sw_db_begin(db) == SW_OK, "ours then begins a write");
		ok(sw_db_commit(db) == SW_OK, "and commits it");
		sw_db_close(other);
	}
	sw_db_close(db);
	ok(sw_db_open(path, &db) == SW_OK, "reopen works");
	is_int(sw_db_version(db), sw_db_version_latest(), "version kept");
	sw_db_exec_sql(db, "PRAGMA user_version = 999");
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
