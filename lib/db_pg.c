/*
 * db_pg.c: the PostgreSQL engine of the state store (db_engine.h),
 * through libpq, chosen by a postgresql:// URL as the configuration's
 * database.  A statement of the table is translated once (SQLite's ?N
 * and ? become $N), prepared with PQprepare and run with its parameters
 * as text; its whole answer is read at the first step and handed out a
 * row a step.  A write transaction takes one advisory lock first, so
 * writers take turns as they do on SQLite (BEGIN IMMEDIATE): every
 * read-then-write a caller makes inside one keeps its meaning.  A
 * connection lost is made again at the next statement, its statements
 * prepared anew.  A watch is a connection of its own that LISTENs on
 * the channel the triggers NOTIFY, read with poll() on its socket.
 * Only calls into libpq live here; the SQL comes from db.c.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/db_engine.h"
#include "lib/limits.h"
#include "lib/log.h"

/* The most parameters a statement of the table has, and then some. */
#define PG_MAXP 16

/* PostgreSQL type oids the columns are read by. */
#define OID_BOOL 16
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_BYTEA 17

struct pg_db {
	struct sw_db base;
	PGconn *c;
	unsigned gen; /* bumped when the link is made anew */
	unsigned nprep; /* statement names handed out */
	int txn; /* between BEGIN and its end */
	int64_t changes, total, last_id;
};

struct pg_st {
	struct sw_st base;
	char *sql; /* translated text; owned */
	char name[16];
	unsigned gen; /* 0: not prepared on this link */
	int nparams;
	int returns_id; /* "... RETURNING id": last_id */
	const char *val[PG_MAXP];
	char *own[PG_MAXP]; /* copies and encodings; owned */
	char num[PG_MAXP][24];
	PGresult *res;
	int row, nrows;
	int done; /* the last step said SW_DB_DONE */
	unsigned char *blob; /* a decoded bytea; owned */
};

#define PDB(db) ((struct pg_db *)(void *)(db))
#define PST(st) ((struct pg_st *)(void *)(st))

static int
pg_rc_of(const PGresult *r)
{
	const char *state;

	switch (PQresultStatus(r)) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		return SW_DB_DONE;
	default:
		break;
	}
	if ((state = PQresultErrorField(r, PG_DIAG_SQLSTATE)) == NULL)
		return SW_DB_BUSY; /* no answer: the link is down */
	if (strncmp(state, "23", 2) == 0)
		return SW_DB_CONSTRAINT;
	if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
	    strcmp(state, "55P03") == 0 || strncmp(state, "08", 2) == 0 ||
	    strcmp(state, "57014") == 0)
		return SW_DB_BUSY;
	return SW_DB_FAIL;
}

/* The link is down: make it again, once, unless a transaction was open
 * on it (its caller must see it fail, not go on outside it).  0 when
 * it is up. */
static int
pg_relink(struct pg_db *p)
{
	if (PQstatus(p->c) == CONNECTION_OK)
		return 0;
	if (p->txn)
		return -1;
	sw_warn("postgresql: the connection was lost; connecting again");
	PQreset(p->c);
	if (PQstatus(p->c) != CONNECTION_OK)
		return -1;
	p->gen++;
	return 0;
}

static sw_err
pg_open(const char *url, struct sw_db **out)
{
	struct pg_db *p;
	int v;

	if ((p = sw_calloc(1, sizeof(*p))) == NULL)
		return SW_ENOMEM;
	p->base.eng = &sw_db_pg;
	p->gen = 1;
	*out = &p->base;
	if ((p->c = PQconnectdb(url)) == NULL ||
	    PQstatus(p->c) != CONNECTION_OK) {
		/* The message names the host, never the password. */
		sw_error("postgresql: cannot connect: %s",
		    p->c ? PQerrorMessage(p->c) : "out of memory");
		return SW_EUNAVAIL;
	}
	v = PQserverVersion(p->c);
	sw_fmt_text(p->base.version, sizeof(p->base.version), "%d.%d",
	    v / 10000, v % 10000);
	return SW_OK;
}

static void
pg_close(struct sw_db *db)
{
	PQfinish(PDB(db)->c);
	free(db);
}

static int
pg_exec(struct sw_db *db, const char *sql)
{
	struct pg_db *p = PDB(db);
	PGresult *r;
	int rc;

	if (strcmp(sql, "COMMIT") == 0 || strcmp(sql, "ROLLBACK") == 0)
		p->txn = 0;
	else if (pg_relink(p) != 0)
		return SW_DB_BUSY;
	r = PQexec(p->c, sql);
	if ((rc = pg_rc_of(r)) != SW_DB_DONE)
		sw_error("postgresql exec: %s", PQerrorMessage(p->c));
	/* A COMMIT of a transaction a failure ended rolls it back and
	 * says so in its tag: that COMMIT failed. */
	else if (strcmp(sql, "COMMIT") == 0 &&
	    strcmp(PQcmdStatus(r), "ROLLBACK") == 0) {
		sw_error("postgresql: COMMIT of a failed transaction");
		rc = SW_DB_FAIL;
	}
	PQclear(r);
	return rc;
}

/* SQLite's ?N and bare ? become $N; text in quotes is left alone.  The
 * highest parameter number goes to *np. */
static char *
pg_translate(const char *sql, int *np)
{
	size_t n = strlen(sql);
	char *out, *o;
	int quoted = 0, next = 0, k;

	*np = 0;
	/* a bare ? (1 byte) becomes at most $16 (3 bytes) */
	if ((out = o = sw_malloc(n * 3 + 8)) == NULL)
		return NULL;
	for (; *sql != '\0'; sql++) {
		if (*sql == '\'')
			quoted = !quoted;
		if (quoted || *sql != '?') {
			*o++ = *sql;
			continue;
		}
		if (sql[1] >= '0' && sql[1] <= '9') {
			k = (int)strtol(sql + 1, NULL, 10);
			while (sql[1] >= '0' && sql[1] <= '9')
				sql++;
		} else
			k = ++next;
		if (k < 1 || k > PG_MAXP) {
			*np = PG_MAXP + 1;
			free(out);
			return NULL;
		}
		sw_fmt_text(o, 8, "$%d", k);
		o += strlen(o);
		if (k > *np)
			*np = k;
	}
	*o = '\0';
	return out;
}

static int
pg_ready(struct pg_st *s)
{
	struct pg_db *p = PDB(s->base.db);
	PGresult *r;
	int rc;

	if (s->gen == p->gen)
		return SW_DB_DONE;
	r = PQprepare(p->c, s->name, s->sql, 0, NULL);
	if ((rc = pg_rc_of(r)) != SW_DB_DONE)
		sw_error("postgresql: prepare %s: %s", s->name,
		    PQerrorMessage(p->c));
	else
		s->gen = p->gen;
	PQclear(r);
	return rc;
}

static struct sw_st *
pg_prepare(struct sw_db *db, const char *sql)
{
	struct pg_db *p = PDB(db);
	struct pg_st *s;
	size_t n = strlen(sql);

	if ((s = sw_calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->base.eng = &sw_db_pg;
	s->base.db = db;
	sw_fmt_text(s->name, sizeof(s->name), "sw%u", ++p->nprep);
	s->returns_id = n > 13 && strcmp(sql + n - 13, " RETURNING id") == 0;
	if ((s->sql = pg_translate(sql, &s->nparams)) == NULL ||
	    s->nparams > PG_MAXP || pg_ready(s) != SW_DB_DONE) {
		if (s->nparams > PG_MAXP)
			sw_error("postgresql: a parameter beyond ?%d", PG_MAXP);
		free(s->sql);
		free(s);
		return NULL;
	}
	return &s->base;
}

static void
pg_drop_result(struct pg_st *s)
{
	PQclear(s->res);
	s->res = NULL;
	PQfreemem(s->blob);
	s->blob = NULL;
}

static void
pg_clear(struct sw_st *st)
{
	struct pg_st *s = PST(st);
	int i;

	for (i = 0; i < PG_MAXP; i++) {
		free(s->own[i]);
		s->own[i] = NULL;
		s->val[i] = NULL;
	}
}

/* A statement prepared on the link lives on the server until the link
 * ends: one made for a single use (sw_db_version, sw_db_prepare) is
 * deallocated there, or each would stay for the connection's life. */
static void
pg_finalize(struct sw_st *st)
{
	struct pg_st *s = PST(st);
	struct pg_db *p = PDB(st->db);
	char sql[32];

	if (!st->db->closing && s->gen == p->gen &&
	    PQstatus(p->c) == CONNECTION_OK &&
	    PQtransactionStatus(p->c) != PQTRANS_INERROR &&
	    sw_fmt(sql, sizeof(sql), "DEALLOCATE %s", s->name) == SW_OK)
		PQclear(PQexec(p->c, sql));
	pg_drop_result(s);
	pg_clear(st);
	free(s->sql);
	free(s);
}

/* sql begins the transaction and takes the writers' advisory lock in
 * one round trip; lock_timeout (set on open) bounds the wait. */
static int
pg_begin(struct sw_db *db, const char *sql)
{
	int rc;

	if ((rc = pg_exec(db, sql)) == SW_DB_DONE)
		PDB(db)->txn = 1;
	else if (PQtransactionStatus(PDB(db)->c) != PQTRANS_IDLE)
		(void)pg_exec(db, "ROLLBACK");
	return rc;
}

static int
pg_slot(struct pg_st *s, int i)
{
	if (i < 1 || i > PG_MAXP)
		return -1;
	free(s->own[i - 1]);
	s->own[i - 1] = NULL;
	return i - 1;
}

static void
pg_bind_text(struct sw_st *st, int i, const char *v, int copy)
{
	struct pg_st *s = PST(st);
	int k;

	if ((k = pg_slot(s, i)) < 0)
		return;
	if (copy && (s->own[k] = sw_strdup(v)) != NULL)
		v = s->own[k];
	s->val[k] = v;
}

static void
pg_bind_int64(struct sw_st *st, int i, int64_t v)
{
	struct pg_st *s = PST(st);
	int k;

	if ((k = pg_slot(s, i)) < 0)
		return;
	sw_fmt_text(s->num[k], sizeof(s->num[k]), "%lld", (long long)v);
	s->val[k] = s->num[k];
}

static void
pg_bind_null(struct sw_st *st, int i)
{
	struct pg_st *s = PST(st);
	int k;

	if ((k = pg_slot(s, i)) >= 0)
		s->val[k] = NULL;
}

/* bytea as text: \x and two hex digits a byte. */
static void
pg_bind_blob(struct sw_st *st, int i, const void *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = p;
	struct pg_st *s = PST(st);
	char *o;
	size_t j;
	int k;

	if ((k = pg_slot(s, i)) < 0 || (o = sw_malloc(n * 2 + 3)) == NULL)
		return;
	s->own[k] = o;
	*o++ = '\\';
	*o++ = 'x';
	for (j = 0; j < n; j++) {
		*o++ = hex[b[j] >> 4];
		*o++ = hex[b[j] & 15];
	}
	*o = '\0';
	s->val[k] = s->own[k];
}

static int
pg_run(struct pg_st *s)
{
	struct pg_db *p = PDB(s->base.db);
	const char *tag;
	int rc;

	if (pg_relink(p) != 0)
		return SW_DB_BUSY;
	if ((rc = pg_ready(s)) != SW_DB_DONE)
		return rc;
	s->res =
	    PQexecPrepared(p->c, s->name, s->nparams, s->val, NULL, NULL, 0);
	if ((rc = pg_rc_of(s->res)) != SW_DB_DONE) {
		/* a constraint is the caller's answer (409), as on SQLite */
		if (rc != SW_DB_CONSTRAINT)
			sw_error("postgresql: %s: %s", s->name,
			    PQerrorMessage(p->c));
		pg_drop_result(s);
		return rc;
	}
	/* Rows changed count INSERT, UPDATE and DELETE only, as SQLite's
	 * changes(); a SELECT's tag counts the rows it read. */
	tag = PQcmdTuples(s->res);
	if (tag[0] != '\0' && strncmp(PQcmdStatus(s->res), "SELECT", 6) != 0) {
		p->changes = strtoll(tag, NULL, 10);
		p->total += p->changes;
	}
	s->row = -1;
	s->nrows = PQntuples(s->res);
	if (s->returns_id) {
		if (s->nrows > 0)
			p->last_id =
			    strtoll(PQgetvalue(s->res, 0, 0), NULL, 10);
		s->nrows = 0;
	}
	return SW_DB_DONE;
}

static int
pg_step(struct sw_st *st)
{
	struct pg_st *s = PST(st);
	int rc;

	/* A step after the end runs the statement again, as SQLite's. */
	if (s->done)
		pg_drop_result(s);
	s->done = 0;
	if (s->res == NULL && (rc = pg_run(s)) != SW_DB_DONE)
		return rc;
	PQfreemem(s->blob);
	s->blob = NULL;
	if (++s->row < s->nrows)
		return SW_DB_ROW;
	s->row = s->nrows;
	s->done = 1;
	return SW_DB_DONE;
}

static void
pg_reset(struct sw_st *st)
{
	pg_drop_result(PST(st));
	PST(st)->done = 0;
}

static int
pg_has(struct pg_st *s, int col)
{
	return s->res != NULL && s->row >= 0 && s->row < s->nrows && col >= 0 &&
	    col < PQnfields(s->res);
}

static int
pg_col_null(struct sw_st *st, int col)
{
	struct pg_st *s = PST(st);

	return !pg_has(s, col) || PQgetisnull(s->res, s->row, col);
}

static int
pg_col_is_int(struct sw_st *st, int col)
{
	struct pg_st *s = PST(st);
	Oid t;

	if (pg_col_null(st, col))
		return 0;
	t = PQftype(s->res, col);
	return t == OID_INT8 || t == OID_INT4 || t == OID_INT2;
}

static int64_t
pg_col_int64(struct sw_st *st, int col)
{
	struct pg_st *s = PST(st);
	const char *v;

	if (pg_col_null(st, col))
		return 0;
	v = PQgetvalue(s->res, s->row, col);
	if (PQftype(s->res, col) == OID_BOOL)
		return v[0] == 't';
	return strtoll(v, NULL, 10);
}

static const char *
pg_col_text(struct sw_st *st, int col)
{
	struct pg_st *s = PST(st);

	if (pg_col_null(st, col))
		return NULL;
	return PQgetvalue(s->res, s->row, col);
}

static const void *
pg_col_blob(struct sw_st *st, int col, size_t *n)
{
	struct pg_st *s = PST(st);
	const char *v;

	*n = 0;
	if (pg_col_null(st, col))
		return NULL;
	v = PQgetvalue(s->res, s->row, col);
	if (PQftype(s->res, col) != OID_BYTEA) {
		*n = strlen(v);
		return v;
	}
	PQfreemem(s->blob);
	s->blob = PQunescapeBytea((const unsigned char *)v, n);
	return s->blob;
}

static int64_t
pg_changes(struct sw_db *db)
{
	return PDB(db)->changes;
}

static int64_t
pg_total_changes(struct sw_db *db)
{
	return PDB(db)->total;
}

static int64_t
pg_last_id(struct sw_db *db)
{
	return PDB(db)->last_id;
}

static int
pg_txn(struct sw_db *db)
{
	switch (PQtransactionStatus(PDB(db)->c)) {
	case PQTRANS_IDLE:
	case PQTRANS_UNKNOWN:
		return SW_TXN_NONE;
	default:
		return SW_TXN_WRITE;
	}
}

static const char *
pg_errmsg(struct sw_db *db)
{
	return PQerrorMessage(PDB(db)->c);
}

/* ---- watches ------------------------------------------------------------ */

struct pg_watch {
	struct sw_db_watch base;
	PGconn *c;
	int lost; /* the link must be made again */
};

#define PW(w) ((struct pg_watch *)(void *)(w))

/* LISTEN on a link just made; 0 when it listens. */
static int
pgw_listen(struct pg_watch *w)
{
	PGresult *r;
	int rc;

	if (PQstatus(w->c) != CONNECTION_OK) {
		sw_warn("postgresql watch: cannot connect: %s",
		    PQerrorMessage(w->c));
		return -1;
	}
	r = PQexec(w->c, "LISTEN slipway");
	if ((rc = pg_rc_of(r)) != SW_DB_DONE)
		sw_warn("postgresql watch: LISTEN: %s", PQerrorMessage(w->c));
	PQclear(r);
	return rc == SW_DB_DONE ? 0 : -1;
}

/* What the server says outside a query (a connection ended by the
 * administrator) goes to the log, not to stderr. */
static void
pgw_notice(void *arg, const char *msg)
{
	(void)arg;
	sw_info("postgresql watch: %.*s", (int)strcspn(msg, "\n"), msg);
}

static struct sw_db_watch *
pgw_open(const char *url)
{
	/* the URL's own settings, and a name pg_stat_activity shows */
	static const char *const keys[] = { "dbname", "application_name",
		NULL };
	const char *vals[] = { url, "slipway-watch", NULL };
	struct pg_watch *w;

	if ((w = sw_calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->base.eng = &sw_db_pg;
	if ((w->c = PQconnectdbParams(keys, vals, 1)) != NULL)
		PQsetNoticeProcessor(w->c, pgw_notice, NULL);
	if (w->c == NULL || pgw_listen(w) != 0) {
		PQfinish(w->c);
		free(w);
		return NULL;
	}
	return &w->base;
}

static void
pgw_close(struct sw_db_watch *sw)
{
	if (sw == NULL)
		return;
	PQfinish(PW(sw)->c);
	free(sw);
}

/* A notification already read, into what: 1, or 0 when none is. */
static int
pgw_take(struct pg_watch *w, char *what, size_t whatsz)
{
	PGnotify *n;

	if ((n = PQnotifies(w->c)) == NULL)
		return 0;
	sw_fmt_text(what, whatsz, "%s", n->extra);
	PQfreemem(n);
	return 1;
}

/* The link was lost: make it again and LISTEN.  What was sent while
 * it was down is lost, so a mended watch says "changed" (1, ""). */
static int
pgw_mend(struct pg_watch *w)
{
	PQreset(w->c);
	if (pgw_listen(w) != 0)
		return -1;
	sw_info("postgresql watch: listening again");
	w->lost = 0;
	return 1;
}

static int
pgw_wait(struct sw_db_watch *sw, int timeout_ms, char *what, size_t whatsz)
{
	struct pg_watch *w = PW(sw);
	int64_t deadline = sw_now_ms() + timeout_ms, left;
	struct pollfd pfd;
	int n;

	if (w->lost)
		return pgw_mend(w);
	for (;;) {
		if (pgw_take(w, what, whatsz))
			return 1;
		if ((left = deadline - sw_now_ms()) <= 0)
			return 0;
		pfd.fd = PQsocket(w->c);
		pfd.events = POLLIN;
		if (pfd.fd < 0)
			break;
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 &&
		    (!PQconsumeInput(w->c) || PQstatus(w->c) != CONNECTION_OK))
			break;
	}
	sw_warn("postgresql watch: the connection was lost: %s",
	    PQerrorMessage(w->c));
	w->lost = 1;
	return -1;
}

/* clang-format off */
const struct sw_db_engine sw_db_pg = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.prepare = pg_prepare,
	.finalize = pg_finalize,
	.begin = pg_begin,
	.bind_text = pg_bind_text,
	.bind_int64 = pg_bind_int64,
	.bind_null = pg_bind_null,
	.bind_blob = pg_bind_blob,
	.clear = pg_clear,
	.step = pg_step,
	.reset = pg_reset,
	.col_null = pg_col_null,
	.col_is_int = pg_col_is_int,
	.col_int64 = pg_col_int64,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.changes = pg_changes,
	.total_changes = pg_total_changes,
	.last_id = pg_last_id,
	.txn = pg_txn,
	.errmsg = pg_errmsg,
	.watch_open = pgw_open,
	.watch_wait = pgw_wait,
	.watch_close = pgw_close,
};
/* clang-format on */
