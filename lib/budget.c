/*
 * budget.c: monthly budgets and the thresholds they crossed, in the
 * state store (budget.h).  The statements are rows of db.c's table.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/alloc.h"
#include "lib/budget.h"
#include "lib/buf.h"
#include "lib/json.h"

sw_err
sw_ledger_now(struct sw_db *db, int64_t *now)
{
	struct sw_st *st;
	int rc;

	*now = (int64_t)time(NULL);
	if ((st = sw_db_stmt(db, STMT_LEDGER_NOW)) == NULL)
		return SW_EDB;
	if ((rc = sw_db_step(st)) == SW_DB_ROW && !sw_col_null(st, 0))
		*now = sw_col_int64(st, 0);
	sw_reset(st);
	return rc == SW_DB_ROW || rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

/* "50,80,100" */
static void
thresholds_text(const struct sw_budget *b, char *out, size_t sz)
{
	size_t len = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < b->nthreshold; i++) {
		if (sw_fmt(out + len, sz - len, "%s%d", i ? "," : "",
			b->threshold[i]) != SW_OK)
			break;
		len += strlen(out + len);
	}
}

static void
thresholds_parse(struct sw_budget *b, const char *s)
{
	char *end;

	b->nthreshold = 0;
	while (*s != '\0' && b->nthreshold < SW_BUDGET_MAX_THRESHOLDS) {
		b->threshold[b->nthreshold++] = (int)strtol(s, &end, 10);
		if (end == s)
			break;
		s = end + (*end == ',');
	}
}

static void
budget_row(struct sw_st *st, struct sw_budget *b)
{
	memset(b, 0, sizeof(*b));
	sw_fmt_text(b->scope, sizeof(b->scope), "%s", sw_col_text(st, 0));
	sw_fmt_text(b->name, sizeof(b->name), "%s", sw_col_text(st, 1));
	b->limit_micro = sw_col_int64(st, 2);
	thresholds_parse(b, sw_col_text(st, 3));
	b->created = sw_col_int64(st, 4);
	b->updated = sw_col_int64(st, 5);
}

sw_err
sw_budget_get(
    struct sw_db *db, const char *scope, const char *name, struct sw_budget *b)
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_BUDGET_GET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, scope);
	sw_bind_text(st, 2, name);
	if ((rc = sw_db_step(st)) == SW_DB_ROW)
		budget_row(st, b);
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_budget_put(
    struct sw_db *db, const struct sw_budget *b, int64_t now_ms, int *created)
{
	struct sw_budget old;
	struct sw_st *st;
	char thr[SW_BUDGET_MAX_THRESHOLDS * 8];
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	e = sw_budget_get(db, b->scope, b->name, &old);
	*created = e == SW_ENOTFOUND;
	if ((e != SW_OK && e != SW_ENOTFOUND) ||
	    (st = sw_db_stmt(db, STMT_BUDGET_PUT)) == NULL) {
		sw_db_rollback(db);
		return e != SW_OK && e != SW_ENOTFOUND ? e : SW_EDB;
	}
	thresholds_text(b, thr, sizeof(thr));
	sw_bind_text(st, 1, b->scope);
	sw_bind_text(st, 2, b->name);
	sw_bind_int64(st, 3, b->limit_micro);
	sw_bind_text(st, 4, thr);
	sw_bind_int64(st, 5, now_ms);
	if ((e = sw_db_exec(db, st)) != SW_OK) {
		sw_db_rollback(db);
		return e;
	}
	return sw_db_commit(db);
}

sw_err
sw_budget_list(
    struct sw_db *db, const char *scope, struct sw_budget **b, size_t *n)
{
	struct sw_budget *v = NULL, *grown;
	struct sw_st *st;
	size_t cap = 0;
	int rc;

	*b = NULL;
	*n = 0;
	if ((st = sw_db_stmt(db, STMT_BUDGET_LIST)) == NULL)
		return SW_EDB;
	if (scope != NULL)
		sw_bind_text(st, 1, scope);
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((grown = sw_realloc(v, cap * sizeof(*v))) == NULL) {
				sw_reset(st);
				free(v);
				*n = 0;
				return SW_ENOMEM;
			}
			v = grown;
		}
		budget_row(st, &v[(*n)++]);
	}
	sw_reset(st);
	if (rc != SW_DB_DONE) {
		free(v);
		*n = 0;
		return sw_db_err(db, rc);
	}
	*b = v;
	return SW_OK;
}

/* Run statement s with scope and name bound; *changed: rows changed. */
static sw_err
run_scoped(struct sw_db *db, enum sw_stmt s, const char *scope,
    const char *name, int *changed)
{
	struct sw_st *st;
	sw_err e;

	if ((st = sw_db_stmt(db, s)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, scope);
	sw_bind_text(st, 2, name);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	*changed = sw_db_changes(db);
	return SW_OK;
}

sw_err
sw_budget_delete(struct sw_db *db, const char *scope, const char *name)
{
	int n = 0, m = 0;
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((e = run_scoped(db, STMT_BUDGET_DELETE, scope, name, &n)) !=
		SW_OK ||
	    (e = run_scoped(db, STMT_BUDGET_ALERTS_FORGET, scope, name, &m)) !=
		SW_OK) {
		sw_db_rollback(db);
		return e;
	}
	if (n == 0) {
		sw_db_rollback(db);
		return SW_ENOTFOUND;
	}
	return sw_db_commit(db);
}

/* The UTC month of now: its key, first day, the next month's first
 * day, and both as epoch seconds. */
static void
month_of(
    int64_t now, struct sw_budget_state *st, char *first, char *next, size_t sz)
{
	time_t t = (time_t)now;
	struct tm tm;

	gmtime_r(&t, &tm);
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	st->month_start = (int64_t)timegm(&tm);
	strftime(st->month, sizeof(st->month), "%Y-%m", &tm);
	strftime(first, sz, "%Y-%m-%d", &tm);
	tm.tm_mon++;
	st->month_end = (int64_t)timegm(&tm); /* December: next January */
	t = (time_t)st->month_end;
	gmtime_r(&t, &tm);
	strftime(next, sz, "%Y-%m-%d", &tm);
}

static sw_err
state_spent(struct sw_db *db, const struct sw_budget *b, const char *first,
    const char *next, struct sw_budget_state *st)
{
	struct sw_st *q;
	int rc;

	if ((q = sw_db_stmt(db,
		 strcmp(b->scope, "cluster") == 0 ? STMT_BUDGET_SPENT_CLUSTER
						  : STMT_BUDGET_SPENT_TEAM)) ==
	    NULL)
		return SW_EDB;
	sw_bind_text(q, 1, first);
	sw_bind_text(q, 2, next);
	sw_bind_text(q, 3, b->name);
	if ((rc = sw_db_step(q)) == SW_DB_ROW) {
		st->spent_micro = sw_col_int64(q, 0) / 3600;
		st->unpriced = sw_col_int64(q, 1) > 0;
	}
	sw_reset(q);
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

static sw_err
state_burn(
    struct sw_db *db, const struct sw_budget *b, struct sw_budget_state *st)
{
	struct sw_st *q;
	int rc;

	if ((q = sw_db_stmt(db, STMT_BUDGET_BURN)) == NULL)
		return SW_EDB;
	sw_bind_text(q, 1, b->scope);
	sw_bind_text(q, 2, b->name);
	sw_bind_int64(q, 3, st->month_start);
	sw_bind_int64(q, 4, st->month_end);
	if ((rc = sw_db_step(q)) == SW_DB_ROW) {
		st->burn_micro_hour = sw_col_int64(q, 0);
		/* micro-dollar-seconds to the month's end, /3600 */
		st->forecast_micro =
		    st->spent_micro + sw_col_int64(q, 1) / 3600;
	}
	sw_reset(q);
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_budget_state(struct sw_db *db, const struct sw_budget *b, int64_t now,
    struct sw_budget_state *st)
{
	char first[16], next[16];
	sw_err e;

	memset(st, 0, sizeof(*st));
	st->now = now;
	month_of(now, st, first, next, sizeof(first));
	if ((e = state_spent(db, b, first, next, st)) != SW_OK)
		return e;
	st->forecast_micro = st->spent_micro;
	return state_burn(db, b, st);
}

sw_err
sw_budget_cross(struct sw_db *db, struct sw_budget_alert *a, int *is_new)
{
	struct sw_st *st;
	sw_err e;

	*is_new = 0;
	if ((st = sw_db_stmt(db, STMT_BUDGET_CROSS)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, a->scope);
	sw_bind_text(st, 2, a->name);
	sw_bind_text(st, 3, a->month);
	sw_bind_int64(st, 4, a->threshold);
	sw_bind_int64(st, 5, a->crossed);
	sw_bind_int64(st, 6, a->spent_micro);
	sw_bind_int64(st, 7, a->limit_micro);
	if (a->has_forecast)
		sw_bind_int64(st, 8, a->forecast_micro);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	if ((*is_new = sw_db_changes(db) == 1))
		a->id = sw_db_last_id(db);
	return SW_OK;
}

sw_err
sw_budget_evaluate(struct sw_db *db, const struct sw_budget *b,
    const struct sw_budget_state *st, int *fresh)
{
	struct sw_budget_alert a;
	int i, is_new;
	sw_err e;

	*fresh = 0;
	for (i = 0; i < b->nthreshold; i++) {
		/* spent / limit >= threshold %, in integers */
		if (st->spent_micro * 100 <
		    b->limit_micro * (int64_t)b->threshold[i])
			continue;
		memset(&a, 0, sizeof(a));
		a.scope = b->scope;
		a.name = b->name;
		a.month = st->month;
		a.threshold = b->threshold[i];
		a.crossed = st->now;
		a.spent_micro = st->spent_micro;
		a.limit_micro = b->limit_micro;
		a.has_forecast = 1;
		a.forecast_micro = st->forecast_micro;
		if ((e = sw_budget_cross(db, &a, &is_new)) != SW_OK)
			return e;
		*fresh += is_new;
	}
	return SW_OK;
}

sw_err
sw_budget_alerts(struct sw_db *db, const char *scope, const char *name,
    const char *month, int64_t after, int limit, json_object **items)
{
	static const char *const cols[] = { "id", "scope", "name", "month",
		"threshold", "crossed", "spent_micro", "limit_micro" };
	struct sw_st *st;
	int rc, i;

	*items = NULL;
	if ((st = sw_db_stmt(db, STMT_BUDGET_ALERTS)) == NULL)
		return SW_EDB;
	if (scope != NULL)
		sw_bind_text(st, 1, scope);
	if (name != NULL)
		sw_bind_text(st, 2, name);
	if (month != NULL)
		sw_bind_text(st, 3, month);
	sw_bind_int64(st, 4, after);
	sw_bind_int64(st, 5, limit);
	*items = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		json_object *o = json_object_new_object();

		for (i = 0; i < 8; i++)
			json_object_object_add(o, cols[i],
			    sw_col_is_int(st, i)
				? json_object_new_int64(sw_col_int64(st, i))
				: sw_js(sw_col_text(st, i)));
		json_object_array_add(*items, o);
	}
	return sw_db_rows_end(db, st, rc, items);
}
