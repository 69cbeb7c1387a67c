/* test-budget.c: a budget's month by the ledger's clock (December ends
 * at January's first second), spent from the ledger rows of that month
 * only, the forecast from the burn rate, and each threshold crossing
 * recorded once: sw_budget_cross() is new only the first time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/budget.h"
#include "lib/ledger.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

#define DEC31_23H 1798758000LL /* 2026-12-31T23:00:00Z */
#define JAN1 1798761600LL /* 2027-01-01T00:00:00Z */
#define JAN2 1798848000LL

/* A team's GPU row of day: usd dollars (micro-dollar-seconds). */
static void
gpu_row(struct sw_db *db, const char *day, const char *team, int64_t usd)
{
	struct sw_ledger_row row;

	memset(&row, 0, sizeof(row));
	row.day = day;
	row.cluster = "c1";
	row.group = "w";
	row.type = "ml.g5.2xlarge";
	row.team = team;
	row.job = "j";
	row.kind = "gpu";
	row.seconds = 3600;
	row.priced = 1;
	row.usd_us = usd * 1000000 * 3600;
	ok(sw_ledger_add(db, &row) == SW_OK, "ledger row %s %s", day, team);
}

static void
crossings(struct sw_db *db)
{
	struct sw_budget b;
	struct sw_budget_state st;
	struct sw_budget_alert a;
	json_object *items = NULL;
	int fresh = -1, is_new = -1;
	sw_err e;

	sw_budget_get(db, "team", "a", &b);
	sw_budget_state(db, &b, DEC31_23H, &st);
	e = sw_budget_evaluate(db, &b, &st, &fresh);
	ok(e == SW_OK && fresh == 1, "60 of 100: 50 %% crossed (%d new)",
	    fresh);
	e = sw_budget_evaluate(db, &b, &st, &fresh);
	ok(e == SW_OK && fresh == 0,
	    "the next sample crosses nothing "
	    "again (%d new)",
	    fresh);
	memset(&a, 0, sizeof(a));
	a.scope = "team";
	a.name = "a";
	a.month = "2026-12";
	a.threshold = 80;
	a.crossed = DEC31_23H;
	e = sw_budget_cross(db, &a, &is_new);
	ok(e == SW_OK && is_new && a.id > 0,
	    "a crossing of 80 %% is new, "
	    "id %lld",
	    (long long)a.id);
	ok(sw_budget_cross(db, &a, &is_new) == SW_OK && !is_new,
	    "and not new again");
	ok(sw_budget_alerts(db, "team", "a", "2026-12", 0, 10, &items) ==
		    SW_OK &&
		json_object_array_length(items) == 2,
	    "two crossings");
	json_object_put(items);
	ok(sw_budget_alerts(db, NULL, NULL, NULL, a.id - 1, 10, &items) ==
		    SW_OK &&
		json_object_array_length(items) == 1,
	    "read after an id: the newer one");
	json_object_put(items);
	/* January: its own month, nothing spent yet, nothing crossed */
	sw_budget_state(db, &b, JAN2 - 1, &st);
	is_str(st.month, "2027-01", "the month rolls over");
	ok(sw_budget_evaluate(db, &b, &st, &fresh) == SW_OK && fresh == 0,
	    "January crosses nothing");
}

int
main(void)
{
	struct sw_db *db = tmpdb_open();
	struct sw_budget b, got;
	struct sw_budget_state st;
	int created = -1, moved = 0;
	int64_t now = 0;

	if (db == NULL)
		skip_all("no temporary database");
	memset(&b, 0, sizeof(b));
	memcpy(b.scope, "team", 5);
	memcpy(b.name, "a", 2);
	b.limit_micro = 100000000;
	b.threshold[0] = 50;
	b.threshold[1] = 80;
	b.threshold[2] = 100;
	b.nthreshold = 3;
	ok(sw_budget_put(db, &b, 1000, &created) == SW_OK && created == 1,
	    "a budget is created");
	ok(sw_budget_put(db, &b, 2000, &created) == SW_OK && created == 0,
	    "and set again");
	ok(sw_budget_get(db, "team", "a", &got) == SW_OK &&
		got.nthreshold == 3 && got.threshold[2] == 100 &&
		got.created == 1000 && got.updated == 2000,
	    "read back");
	gpu_row(db, "2026-11-30", "a", 500);
	gpu_row(db, "2026-12-05", "a", 60);
	gpu_row(db, "2026-12-05", "b", 900);
	sw_db_exec_sql(db,
	    "INSERT INTO clusters (name, id, origin,"
	    " created) VALUES ('c1', 'id1', 'created', 0)");
	ok(sw_ledger_move(db, "c1", -1, DEC31_23H, &moved) == SW_OK && moved,
	    "the ledger's cursor");
	ok(sw_ledger_burn_add(db, "c1", "a", 2000000, DEC31_23H) == SW_OK,
	    "team a burns $2 an hour");
	ok(sw_ledger_now(db, &now) == SW_OK && now == DEC31_23H,
	    "the ledger's clock is its newest sample");
	ok(sw_budget_state(db, &got, now, &st) == SW_OK, "state");
	is_str(st.month, "2026-12", "month");
	is_int(st.month_end, JAN1, "December ends at January's first second");
	is_int(st.spent_micro, 60000000, "spent: December's rows of team a");
	is_int(st.burn_micro_hour, 2000000, "burn");
	is_int(st.forecast_micro, 62000000, "forecast: + $2 x the last hour");
	crossings(db);
	ok(sw_budget_delete(db, "team", "a") == SW_OK, "removed");
	ok(sw_budget_get(db, "team", "a", &got) == SW_ENOTFOUND, "gone");
	ok(sw_budget_delete(db, "team", "a") == SW_ENOTFOUND,
	    "removing again: not found");
	tmpdb_close(db);
	return tap_done();
}
