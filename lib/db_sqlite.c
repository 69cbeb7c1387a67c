/*
 * db_sqlite.c: the SQLite engine of the state store (db_engine.h), the
 * default: one file in WAL mode, one writer at a time (BEGIN IMMEDIATE
 * behind SQLite's busy handler).  A watch is an inotify watch of the
 * file's directory: every commit writes the WAL file beside it.  Only
 * calls into SQLite live here; the SQL comes from db.c.
 */
#include <errno.h>
#include <poll.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/db_engine.h"
#include "lib/limits.h"
#include "lib/log.h"

struct lite_db {
	struct sw_db base;
	sqlite3 *h;
};

struct lite_st {
	struct sw_st base;
	sqlite3_stmt *h;
};

#define LDB(db) (((struct lite_db *)(void *)(db))->h)
#define LST(st) (((struct lite_st *)(void *)(st))->h)

static int
lite_rc(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
		return SW_DB_DONE;
	case SQLITE_ROW:
		return SW_DB_ROW;
	case SQLITE_CONSTRAINT:
		return SW_DB_CONSTRAINT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return SW_DB_BUSY;
	case SQLITE_CORRUPT:
		return SW_DB_CORRUPT;
	default:
		return SW_DB_FAIL;
	}
}

static sw_err
lite_open(const char *path, struct sw_db **out)
{
	struct lite_db *l;

	if ((l = sw_calloc(1, sizeof(*l))) == NULL)
		return SW_ENOMEM;
	l->base.eng = &sw_db_sqlite;
	*out = &l->base;
	sw_fmt_text(l->base.version, sizeof(l->base.version), "%s",
	    sqlite3_libversion());
	if (sqlite3_open_v2(path, &l->h,
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOMUTEX,
		NULL) != SQLITE_OK) {
		sw_error("cannot open %s: %s", path,
		    l->h ? sqlite3_errmsg(l->h) : "out of memory");
		return SW_EDB;
	}
	sqlite3_busy_timeout(l->h, SW_DB_BUSY_MS);
	return SW_OK;
}

static void
lite_close(struct sw_db *db)
{
	sqlite3_close(LDB(db));
	free(db);
}

static int
lite_exec(struct sw_db *db, const char *sql)
{
	char *msg = NULL;
	int rc;

	if ((rc = sqlite3_exec(LDB(db), sql, NULL, NULL, &msg)) != SQLITE_OK)
		sw_error("sqlite exec: %s", msg ? msg : sqlite3_errstr(rc));
	sqlite3_free(msg);
	return lite_rc(rc);
}

static struct sw_st *
lite_prepare(struct sw_db *db, const char *sql)
{
	struct lite_st *s;

	if ((s = sw_calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if (sqlite3_prepare_v3(LDB(db), sql, -1, SQLITE_PREPARE_PERSISTENT,
		&s->h, NULL) != SQLITE_OK) {
		sw_error("prepare: %s", sqlite3_errmsg(LDB(db)));
		free(s);
		return NULL;
	}
	s->base.eng = &sw_db_sqlite;
	s->base.db = db;
	return &s->base;
}

static void
lite_finalize(struct sw_st *st)
{
	sqlite3_finalize(LST(st));
	free(st);
}

static int
lite_begin(struct sw_db *db, const char *sql)
{
	int64_t until = sw_now_ms() + SW_DB_WRITE_WAIT_MS;
	int rc;

	/* Each try waits SW_DB_BUSY_MS in SQLite's busy handler; a slow
	 * machine gets more tries, up to SW_DB_WRITE_WAIT_MS in all. */
	while ((rc = sqlite3_exec(LDB(db), sql, NULL, NULL, NULL)) ==
		SQLITE_BUSY &&
	    sw_now_ms() < until)
		;
	if (rc != SQLITE_OK)
		sw_error("sqlite: %s: %s", sql, sqlite3_errmsg(LDB(db)));
	return lite_rc(rc);
}

static void
lite_bind_text(struct sw_st *st, int i, const char *v, int copy)
{
	sqlite3_bind_text(
	    LST(st), i, v, -1, copy ? SQLITE_TRANSIENT : SQLITE_STATIC);
}

static void
lite_bind_int64(struct sw_st *st, int i, int64_t v)
{
	sqlite3_bind_int64(LST(st), i, v);
}

static void
lite_bind_null(struct sw_st *st, int i)
{
	sqlite3_bind_null(LST(st), i);
}

static void
lite_bind_blob(struct sw_st *st, int i, const void *p, size_t n)
{
	sqlite3_bind_blob(LST(st), i, p, (int)n, SQLITE_STATIC);
}

static void
lite_clear(struct sw_st *st)
{
	sqlite3_clear_bindings(LST(st));
}

static int
lite_step(struct sw_st *st)
{
	return lite_rc(sqlite3_step(LST(st)));
}

static void
lite_reset(struct sw_st *st)
{
	sqlite3_reset(LST(st));
}

static int
lite_col_null(struct sw_st *st, int col)
{
	return sqlite3_column_type(LST(st), col) == SQLITE_NULL;
}

static int
lite_col_is_int(struct sw_st *st, int col)
{
	return sqlite3_column_type(LST(st), col) == SQLITE_INTEGER;
}

static int64_t
lite_col_int64(struct sw_st *st, int col)
{
	return sqlite3_column_int64(LST(st), col);
}

static const char *
lite_col_text(struct sw_st *st, int col)
{
	return (const char *)sqlite3_column_text(LST(st), col);
}

static const void *
lite_col_blob(struct sw_st *st, int col, size_t *n)
{
	const void *p = sqlite3_column_blob(LST(st), col);

	*n = (size_t)sqlite3_column_bytes(LST(st), col);
	return p;
}

static int64_t
lite_changes(struct sw_db *db)
{
	return sqlite3_changes(LDB(db));
}

static int64_t
lite_total_changes(struct sw_db *db)
{
	return sqlite3_total_changes(LDB(db));
}

static int64_t
lite_last_id(struct sw_db *db)
{
	return sqlite3_last_insert_rowid(LDB(db));
}

static int
lite_txn(struct sw_db *db)
{
	switch (sqlite3_txn_state(LDB(db), NULL)) {
	case SQLITE_TXN_NONE:
		return SW_TXN_NONE;
	case SQLITE_TXN_READ:
		return sqlite3_get_autocommit(LDB(db)) ? SW_TXN_READ
						       : SW_TXN_WRITE;
	default:
		return SW_TXN_WRITE;
	}
}

static const char *
lite_errmsg(struct sw_db *db)
{
	return sqlite3_errmsg(LDB(db));
}

/* ---- watches ------------------------------------------------------------ */

/* After a write, look again this long on, then RECHECK_NEXT_MS more: the
 * commit is published in the shared-memory index (mmap: no inotify
 * event) just after the WAL write that woke the watch. */
#define RECHECK_FIRST_MS 20
#define RECHECK_NEXT_MS 130

struct lite_watch {
	struct sw_db_watch base;
	int fd;
	int rechecks; /* still to answer */
	int64_t recheck_ms; /* the next one's time */
};

#define LW(w) ((struct lite_watch *)(void *)(w))

static struct sw_db_watch *
litew_open(const char *path)
{
	struct lite_watch *w;
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		sw_fmt_text(dir, sizeof(dir), ".");
	else
		sw_fmt_text(dir, sizeof(dir), "%.*s",
		    (int)(slash - path + (slash == path)), path);
	if ((w = sw_calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->base.eng = &sw_db_sqlite;
	if ((w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0 ||
	    inotify_add_watch(w->fd, dir,
		IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
		sw_warn("inotify on %s: %s", dir, strerror(errno));
		if (w->fd >= 0)
			close(w->fd);
		free(w);
		return NULL;
	}
	return &w->base;
}

static void
litew_close(struct sw_db_watch *sw)
{
	if (sw == NULL)
		return;
	close(LW(sw)->fd);
	free(sw);
}

static int
litew_wait(struct sw_db_watch *sw, int timeout_ms, char *what, size_t whatsz)
{
	struct lite_watch *w = LW(sw);
	int64_t now = sw_now_ms(), until = now + timeout_ms;
	char buf[4096];
	struct pollfd pfd;
	int n;

	(void)what;
	(void)whatsz;
	if (w->rechecks > 0 && w->recheck_ms < until)
		until = w->recheck_ms;
	pfd.fd = w->fd;
	pfd.events = POLLIN;
	n = poll(&pfd, 1, (int)(until > now ? until - now : 0));
	if (n < 0 && errno != EINTR)
		return -1;
	if (n > 0) {
		while (read(w->fd, buf, sizeof(buf)) > 0)
			;
		w->rechecks = 2;
		w->recheck_ms = sw_now_ms() + RECHECK_FIRST_MS;
		return 1;
	}
	if (w->rechecks > 0 && sw_now_ms() >= w->recheck_ms) {
		w->rechecks--;
		w->recheck_ms = sw_now_ms() + RECHECK_NEXT_MS;
		return 1;
	}
	return 0;
}

/* clang-format off */
const struct sw_db_engine sw_db_sqlite = {
	.name = "sqlite",
	.open = lite_open,
	.close = lite_close,
	.exec = lite_exec,
	.prepare = lite_prepare,
	.finalize = lite_finalize,
	.begin = lite_begin,
	.bind_text = lite_bind_text,
	.bind_int64 = lite_bind_int64,
	.bind_null = lite_bind_null,
	.bind_blob = lite_bind_blob,
	.clear = lite_clear,
	.step = lite_step,
	.reset = lite_reset,
	.col_null = lite_col_null,
	.col_is_int = lite_col_is_int,
	.col_int64 = lite_col_int64,
	.col_text = lite_col_text,
	.col_blob = lite_col_blob,
	.changes = lite_changes,
	.total_changes = lite_total_changes,
	.last_id = lite_last_id,
	.txn = lite_txn,
	.errmsg = lite_errmsg,
	.watch_open = litew_open,
	.watch_wait = litew_wait,
	.watch_close = litew_close,
};
/* clang-format on */
