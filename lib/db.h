/*
 * db.h: the state store and its engine-neutral statement API.  One
 * database (SQLite's state.db in WAL mode, the default, or PostgreSQL
 * through libpq when the configuration's database is a postgresql://
 * URL) holds tokens, sessions, operations, stages, events, the clusters
 * Slipway owns, the prices it has read, the usage ledger and the
 * budgets kept against it with the alerts they crossed, and the
 * notification outbox.  Every SQL
 * statement Slipway runs is a row of one table in db.c, prepared once
 * per connection and only ever given bound parameters.  Callers see
 * only the functions below: no engine's header is included outside
 * lib/db*.c.
 */
#ifndef SW_DB_H
#define SW_DB_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

enum sw_stmt {
	STMT_TOKEN_INSERT,
	STMT_TOKEN_BY_ID,
	STMT_TOKEN_LIST,
	STMT_TOKEN_REVOKE,
	STMT_TOKEN_TOUCH,
	STMT_TOKEN_SET_TOOLS,
	STMT_TOKEN_SET_TEAM,
	STMT_SESSION_INSERT,
	STMT_SESSION_BY_ID,
	STMT_SESSION_DELETE,
	STMT_SESSION_PURGE,
	STMT_PSESSION_INSERT,
	STMT_PSESSION_BY_ID,
	STMT_PSESSION_DELETE,
	STMT_PSESSION_PURGE,
	STMT_OP_INSERT,
	STMT_OP_BY_ID,
	STMT_OP_BY_IDEM,
	STMT_OP_LIST,
	STMT_OP_CLAIM_PICK,
	STMT_OP_CLAIM_TAKE,
	STMT_OP_SET_STATE,
	STMT_OP_SET_DUE,
	STMT_OP_RELEASE,
	STMT_OP_CANCEL_REQ,
	STMT_OP_SET_RESULT,
	STMT_OP_UPDATED,
	STMT_OP_OWNERS,
	STMT_OP_RELEASE_OWNER,
	STMT_OP_LIVE_ON_CLUSTER,
	STMT_OP_REQUEUE,
	STMT_STAGE_INSERT,
	STMT_STAGE_LIST,
	STMT_STAGE_SET_STATE,
	STMT_STAGE_SET_EXT,
	STMT_STAGE_RESET_FROM,
	STMT_EVENT_INSERT,
	STMT_EVENT_LIST,
	STMT_METRIC_OPS,
	STMT_METRIC_STAGES,
	STMT_METRIC_DUE,
	STMT_CLUSTER_INSERT,
	STMT_CLUSTER_GET,
	STMT_CLUSTER_FORGET,
	STMT_PRICE_GET,
	STMT_PRICE_PUT,
	STMT_CLUSTER_NAMES,
	STMT_LEDGER_CURSOR,
	STMT_LEDGER_MOVE,
	STMT_LEDGER_ADD,
	STMT_LEDGER_READ,
	STMT_LEDGER_NOW,
	STMT_BURN_CLEAR,
	STMT_BURN_ADD,
	STMT_BUDGET_PUT,
	STMT_BUDGET_GET,
	STMT_BUDGET_LIST,
	STMT_BUDGET_DELETE,
	STMT_BUDGET_SPENT_CLUSTER,
	STMT_BUDGET_SPENT_TEAM,
	STMT_BUDGET_BURN,
	STMT_BUDGET_CROSS,
	STMT_BUDGET_ALERTS,
	STMT_BUDGET_ALERTS_FORGET,
	STMT_SUB_INSERT,
	STMT_SUB_LIST,
	STMT_SUB_DELETE,
	STMT_DELIVERY_DUE,
	STMT_DELIVERY_TAKE,
	STMT_DELIVERY_READ,
	STMT_DELIVERY_DONE,
	STMT_DELIVERY_RETRY,
	STMT_DELIVERY_LIST,
	STMT_DELIVERY_OWNERS,
	STMT_DELIVERY_RELEASE_OWNER,
	STMT_WATCH_SEEN,
	STMT_WATCH_PUT,
	STMT_WATCH_DROP,
	STMT_NOTIFY_EVENT_ADD,
	STMT_NOTIFY_DELIVERIES_ADD,
	STMT_NOTIFY_EVENT_SEEN,
	STMT_FLEET_PUT,
	STMT_FLEET_GET,
	STMT_CLUSTER_PLACE,
	STMT_CLUSTER_PLACES,
	STMT_DRIFT_PUT,
	STMT_DRIFT_SWEEP,
	STMT_DRIFT_LIST,
	STMT_OP_FENCE_CHECK,
	STMT_OP_FENCE_GET,
	STMT_OP_FENCE_DUE,
	STMT_TURN_TAKE,
	STMT_CLUSTER_ACCESS_GET,
	STMT_CLUSTER_ACCESS_SET,
	STMT_FACT_GET,
	STMT_FACT_PUT,
	STMT_CLUSTER_UNCLAIM,
	STMT_DB_CLOCK,
	STMT_CLUSTER_STATES,
	STMT_TURNS_WAITING,
	STMT__MAX
};

struct sw_db;
/* A prepared statement of a connection (engine-neutral). */
struct sw_st;

/* What a step, or any call answering with an engine result, gives. */
enum sw_db_rc {
	SW_DB_DONE = 0, /* no (more) rows: the statement ran */
	SW_DB_ROW, /* a row is ready to read */
	SW_DB_FAIL, /* any other failure (I/O, syntax, lost link) */
	SW_DB_CONSTRAINT, /* a UNIQUE, CHECK or foreign key said no */
	SW_DB_BUSY, /* the database is locked or the link is down */
	SW_DB_CORRUPT /* a stored value is not what it must be */
};

/* What sw_db_txn() reports of a connection. */
enum sw_db_txn {
	SW_TXN_NONE = 0, /* outside any transaction */
	SW_TXN_READ, /* a statement left mid-step holds a snapshot */
	SW_TXN_WRITE /* inside BEGIN ... COMMIT */
};

/*
 * Open (creating if needed) the database at where: a file path (SQLite,
 * WAL mode and the busy timeout set) or a postgresql:// (postgres://)
 * URL, and migrate the schema to the newest version.  *out is owned by
 * the caller: sw_db_close() it.
 */
sw_err sw_db_open(const char *where, struct sw_db **out);
void sw_db_close(struct sw_db *);
/* Schema version now in the database, -1 when it cannot be read. */
int sw_db_version(struct sw_db *);
/* Newest schema version this build knows. */
int sw_db_version_latest(void);
/* "sqlite" or "postgresql". */
const char *sw_db_engine(struct sw_db *);
/* The engine's own version ("3.40.1", "15.5"). */
const char *sw_db_engine_version(struct sw_db *);
/* The database's clock in milliseconds since the epoch (SQLite's is
 * this host's), into *ms. */
sw_err sw_db_clock_ms(struct sw_db *, int64_t *ms);
/*
 * The database's clock for a time another replica compares (a due
 * time, a lease's end, a stage's start); this host's when db is NULL or
 * the database cannot answer (a time off by the hosts' skew is still a
 * time).
 */
int64_t sw_db_now_ms(struct sw_db *);
/* True when where names a PostgreSQL database (a postgresql:// URL). */
int sw_db_is_pg_url(const char *where);

/*
 * The prepared statement for s, reset with bindings cleared, ready to
 * bind.  Borrowed: do not finalize.  NULL on a prepare failure (logged).
 */
struct sw_st *sw_db_stmt(struct sw_db *, enum sw_stmt s);
/*
 * Step st: SW_DB_ROW, SW_DB_DONE or a failure.  Every statement is
 * stepped through here, a fault point of the test build (lib/fault.h,
 * SLIPWAY_FAULT=sqlite:N) where it fails with SW_DB_FAIL without running.
 */
int sw_db_step(struct sw_st *st);
/* Put st back to its start; its bindings are kept. */
void sw_reset(struct sw_st *st);

/*
 * Bindings, parameter i counted from 1.  sw_bind_text keeps a pointer to
 * v: v must live until the statement is reset; sw_bind_text_copy copies
 * it.  A NULL v binds NULL.
 */
void sw_bind_text(struct sw_st *, int i, const char *v);
void sw_bind_text_copy(struct sw_st *, int i, const char *v);
void sw_bind_int64(struct sw_st *, int i, int64_t v);
void sw_bind_null(struct sw_st *, int i);
/* n bytes at p, kept by pointer as sw_bind_text. */
void sw_bind_blob(struct sw_st *, int i, const void *p, size_t n);
/* Bind text v to parameter i, or leave it NULL when v is NULL. */
void sw_bind_opt(struct sw_st *st, int i, const char *v);

/* Columns of the current row, counted from 0. */
int sw_col_null(struct sw_st *, int col);
int64_t sw_col_int64(struct sw_st *, int col);
int sw_col_int(struct sw_st *, int col);
/* True when the column holds an integer (not text, not NULL). */
int sw_col_is_int(struct sw_st *, int col);
/* Column text as a borrowed C string, "" for NULL. */
const char *sw_col_text(struct sw_st *, int col);
/* The same, or NULL for NULL. */
const char *sw_col_text_or_null(struct sw_st *, int col);
/* A blob column: borrowed bytes and their count in *n (0 for NULL). */
const void *sw_col_blob(struct sw_st *, int col, size_t *n);

/* Rows changed by the connection's last INSERT, UPDATE or DELETE
 * (not counting a trigger's). */
int64_t sw_db_changes(struct sw_db *);
/* Rows changed since the connection opened, triggers' included. */
int64_t sw_db_total_changes(struct sw_db *);
/* The id of the row the connection's last INSERT made (the rowid of
 * events, budget_alerts or notify_events). */
int64_t sw_db_last_id(struct sw_db *);

/* BEGIN IMMEDIATE (one writer at a time) / COMMIT / ROLLBACK.  A COMMIT
 * that fails rolls the transaction back: nothing of it is kept and none
 * is left open. */
sw_err sw_db_begin(struct sw_db *);
sw_err sw_db_commit(struct sw_db *);
void sw_db_rollback(struct sw_db *);
/* Where the connection stands (enum sw_db_txn). */
int sw_db_txn(struct sw_db *);
/* Map an enum sw_db_rc to SW_OK / SW_EDB / SW_ECONFLICT / SW_EUNAVAIL,
 * logging the connection's last message for a failure. */
sw_err sw_db_err(struct sw_db *, int rc);
/* A few words for an enum sw_db_rc. */
const char *sw_db_rc_str(int rc);
/* Step st once, expecting no row (an INSERT, UPDATE or DELETE), and
 * reset it: SW_OK, or sw_db_err's meaning; SW_EDB for a NULL st. */
sw_err sw_db_exec(struct sw_db *, struct sw_st *st);
/* The end of a read of rows into *out: st is reset; unless the last
 * step said SW_DB_DONE (rc), *out is dropped to NULL and sw_db_err's
 * meaning returned. */
sw_err sw_db_rows_end(
    struct sw_db *, struct sw_st *st, int rc, json_object **out);
/*
 * The end of a unit of work (a request, a poller pass, a stream sweep):
 * reset every statement of the table, so that none left mid-step holds
 * the connection's read snapshot open into the next request, and roll
 * back a transaction left open.  SW_EINTERNAL when, after the resets,
 * the connection was still inside a transaction: a caller's bug, logged
 * here, that a test build turns into a failed request.
 */
sw_err sw_db_idle(struct sw_db *);

/*
 * One-off SQL for tests, benches and maintenance, outside the statement
 * table: sw_db_prepare makes a statement the caller sw_st_free()s;
 * sw_db_exec_sql runs statements that return no rows.
 */
sw_err sw_db_prepare(struct sw_db *, const char *sql, struct sw_st **out);
void sw_st_free(struct sw_st *);
sw_err sw_db_exec_sql(struct sw_db *, const char *sql);

/*
 * Waiting for a change another connection commits (a viewer's stream,
 * operation_wait).  A watch is a link of its own: on PostgreSQL a
 * connection that LISTENs on the channel "slipway", where triggers
 * NOTIFY what a commit changed ("op <id>" for an operation, its stages
 * and events; "auth" for a token revoked or a session ended); on SQLite
 * an inotify watch of the database file's directory (every commit
 * writes the WAL file), which cannot say what changed.  Open the watch
 * before reading what it guards, so a change between the read and the
 * wait is not missed.
 */
struct sw_db_watch;
/* A watch of db's database; *out is the caller's to close. */
sw_err sw_db_watch_open(struct sw_db *db, struct sw_db_watch **out);
/*
 * Wait up to timeout_ms for a change: 1 when one came (what it changed
 * into what, "" when the engine cannot say or a change may have been
 * missed; re-read), 0 when the time ran out, -1 when the watch is
 * broken (its link lost): wait some other way a while and call again,
 * which tries to mend it.  SQLite publishes a commit just after its
 * WAL write, so after a change its watch answers 1 ("") again 20 ms and
 * 150 ms later, for a reader that looked too early.
 */
int sw_db_wait(
    struct sw_db_watch *w, int timeout_ms, char *what, size_t whatsz);
/* NULL is fine. */
void sw_db_watch_close(struct sw_db_watch *w);

/* Wall clock in milliseconds since the epoch. */
int64_t sw_now_ms(void);

/* The fleet document applied last (JSON text doc, by whom, when): put
 * replaces it; get gives a new reference, SW_ENOTFOUND when none was. */
sw_err sw_db_fleet_put(
    struct sw_db *, const char *doc, const char *by, int64_t ms);
sw_err sw_db_fleet_get(
    struct sw_db *, json_object **doc, char *by, size_t bysz, int64_t *ms);
/* The drift the poller found in cluster at now ({target, field, live,
 * desired} each): kept with when each was first seen; the rest of the
 * cluster's forgotten. */
sw_err sw_db_drift_record(
    struct sw_db *, const char *cluster, json_object *found, int64_t now);
/* The recorded drift of cluster (NULL: every cluster) into *items:
 * [{cluster, target, field, live, desired, first_seen_ms, seen_ms}]. */
sw_err sw_db_drift_list(
    struct sw_db *, const char *cluster, json_object **items);

#endif
