/*
 * db.h: the SQLite state store.  One database file (state.db, WAL mode)
 * holds tokens, sessions, operations, stages, events, the clusters
 * Slipway owns, the prices it has read, the usage ledger and the
 * budgets kept against it with the alerts they crossed, and the
 * notification outbox.  Every SQL
 * statement Slipway runs is a row of one table in db.c, prepared once
 * per connection and only ever given bound parameters.
 */
#ifndef SW_DB_H
#define SW_DB_H

#include <sqlite3.h>
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
	STMT_CLUSTER_PLACE,
	STMT_CLUSTER_PLACES,
	STMT__MAX
};

struct sw_db;

/*
 * Open (creating if needed) the database at path, set WAL and the busy
 * timeout, and migrate the schema to the newest version.  *out is owned
 * by the caller: sw_db_close() it.
 */
sw_err	sw_db_open(const char *path, struct sw_db **out);
void	sw_db_close(struct sw_db *);
/* Schema version now in the file (PRAGMA user_version). */
int	sw_db_version(struct sw_db *);
/* Newest schema version this build knows. */
int	sw_db_version_latest(void);

/*
 * The prepared statement for s, reset with bindings cleared, ready to
 * bind.  Borrowed: do not finalize.  NULL on a prepare failure (logged).
 */
sqlite3_stmt *sw_db_stmt(struct sw_db *, enum sw_stmt s);
/*
 * sqlite3_step(st): every statement is stepped through here, a fault
 * point of the test build (lib/fault.h, SLIPWAY_FAULT=sqlite:N) where it
 * fails with SQLITE_IOERR without running.
 */
int	sw_db_step(sqlite3_stmt *st);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK.  A COMMIT that fails rolls the
 * transaction back: nothing of it is kept and none is left open. */
sw_err	sw_db_begin(struct sw_db *);
sw_err	sw_db_commit(struct sw_db *);
void	sw_db_rollback(struct sw_db *);
/* Map a sqlite3 result code to SW_OK / SW_EDB / SW_ECONFLICT. */
sw_err	sw_db_err(struct sw_db *, int rc);
/* Step st once, expecting no row (an INSERT, UPDATE or DELETE), and
 * reset it: SW_OK, or sw_db_err's meaning; SW_EDB for a NULL st. */
sw_err	sw_db_exec(struct sw_db *, sqlite3_stmt *st);
/* Bind text v to parameter i, or leave it NULL when v is NULL. */
void	sw_bind_opt(sqlite3_stmt *st, int i, const char *v);
/*
 * The end of a unit of work (a request, a poller pass, a stream sweep):
 * reset every statement of the table, so that none left mid-step holds
 * the connection's read snapshot open into the next request, and roll
 * back a transaction left open.  SW_EINTERNAL when, after the resets,
 * the connection was still inside a transaction: a caller's bug, logged
 * here, that a test build turns into a failed request.
 */
sw_err	sw_db_idle(struct sw_db *);
/* Borrowed handle, for tests and one-off maintenance. */
sqlite3	*sw_db_handle(struct sw_db *);

/* Wall clock in milliseconds since the epoch. */
int64_t	sw_now_ms(void);

/* Column text as a borrowed C string, "" for NULL. */
const char *sw_col_text(sqlite3_stmt *, int col);

#endif
