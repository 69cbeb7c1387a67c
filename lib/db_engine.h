/*
 * db_engine.h: what lib/db.c asks of a database engine (SQLite in
 * db_sqlite.c, PostgreSQL through libpq in db_pg.c).  Private to the
 * state store: nothing outside lib/db*.c includes it.  db.c keeps every
 * SQL text and hands an engine the text for it; an engine keeps only
 * its calls into its library.
 */
#ifndef SW_DB_ENGINE_H
#define SW_DB_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

struct sw_db;
struct sw_st;

struct sw_db_engine;

/* The same of every watch (sw_db_watch_open). */
struct sw_db_watch {
	const struct sw_db_engine *eng;
};

/* The part of every connection db.c reads; an engine's own connection
 * struct starts with it. */
struct sw_db {
	const struct sw_db_engine *eng;
	struct sw_st **stmt; /* the table's, STMT__MAX; db.c's */
	char *where; /* what it was opened with; db.c's */
	char version[32]; /* the engine's version */
	int closing; /* sw_db_close: statements end with the link */
};

/* The same of every statement. */
struct sw_st {
	const struct sw_db_engine *eng;
	struct sw_db *db;
	int busy; /* stepped, not yet reset */
};

struct sw_db_engine {
	const char *name;
	/* Connect; *out is the engine's struct (its sw_db first). */
	sw_err (*open)(const char *where, struct sw_db **out);
	void (*close)(struct sw_db *);
	/* Run statements that return no rows; an enum sw_db_rc. */
	int (*exec)(struct sw_db *, const char *sql);
	/* Prepare one statement; NULL on failure (logged). */
	struct sw_st *(*prepare)(struct sw_db *, const char *sql);
	void (*finalize)(struct sw_st *);
	/* Open a write transaction with sql, one writer at a time,
	 * waiting up to SW_DB_WRITE_WAIT_MS for the others; an enum
	 * sw_db_rc. */
	int (*begin)(struct sw_db *, const char *sql);
	void (*bind_text)(struct sw_st *, int i, const char *v, int copy);
	void (*bind_int64)(struct sw_st *, int i, int64_t v);
	void (*bind_null)(struct sw_st *, int i);
	void (*bind_blob)(struct sw_st *, int i, const void *p, size_t n);
	void (*clear)(struct sw_st *); /* bindings to NULL */
	int (*step)(struct sw_st *);
	void (*reset)(struct sw_st *);
	int (*col_null)(struct sw_st *, int col);
	int (*col_is_int)(struct sw_st *, int col);
	int64_t (*col_int64)(struct sw_st *, int col);
	const char *(*col_text)(struct sw_st *, int col);
	const void *(*col_blob)(struct sw_st *, int col, size_t *n);
	int64_t (*changes)(struct sw_db *);
	int64_t (*total_changes)(struct sw_db *);
	int64_t (*last_id)(struct sw_db *);
	/* enum sw_db_txn, besides statements left mid-step */
	int (*txn)(struct sw_db *);
	const char *(*errmsg)(struct sw_db *);
	/* Watch the commits of every connection to where, on a link of
	 * the watch's own; NULL on failure (logged). */
	struct sw_db_watch *(*watch_open)(const char *where);
	/* Up to timeout_ms for a commit: 1 (what it changed into what,
	 * "" when unknown), 0 on the timeout, -1 when the watch is
	 * broken (the next call tries to mend it). */
	int (*watch_wait)(
	    struct sw_db_watch *, int timeout_ms, char *what, size_t whatsz);
	void (*watch_close)(struct sw_db_watch *);
};

extern const struct sw_db_engine sw_db_sqlite;
extern const struct sw_db_engine sw_db_pg;

#endif
