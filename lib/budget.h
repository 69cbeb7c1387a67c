/*
 * budget.h: monthly budgets per team or per cluster, kept against the
 * usage ledger (lib/ledger.h).  A budget is soft: it stops nothing.
 * Its month is the UTC month of the ledger's clock (the AWS time of the
 * newest sample), so a sandbox whose clock runs ahead keeps its own
 * months.  What it has spent is the ledger's cost of the month so far
 * (a cluster: its nodes; a team: the GPU share of its workloads, every
 * cluster); its forecast adds the burn rate each cluster had at its
 * last sample (the nodes it ran, the GPUs the team's pods held, at the
 * on-demand price) until the month's end.  Each threshold (a percent
 * of the limit) that what was spent reaches is recorded once per budget
 * and month: sw_budget_cross() says whether a crossing is new, and the
 * recorded crossings are read back in id order (sw_budget_alerts).  A
 * new crossing is a budget.threshold notification event, written with
 * it by a trigger of the schema (lib/db.c, lib/notify.h).
 */
#ifndef SW_BUDGET_H
#define SW_BUDGET_H

#include <stdint.h>

#include <json-c/json.h>

#include "lib/db.h"
#include "lib/err.h"

#define SW_BUDGET_MAX_THRESHOLDS 10

/* One budget as stored. */
struct sw_budget {
	char scope[8]; /* team, cluster */
	char name[64];
	int64_t limit_micro; /* micro-dollars a month */
	int threshold[SW_BUDGET_MAX_THRESHOLDS]; /* percent */
	int nthreshold;
	int64_t created, updated; /* ms */
};

/* Where a budget stands at the ledger's clock. */
struct sw_budget_state {
	char month[8]; /* YYYY-MM */
	int64_t now; /* the ledger's clock, s */
	int64_t month_start, month_end; /* s */
	int64_t spent_micro;
	int unpriced; /* some usage had no price */
	int64_t burn_micro_hour; /* now, per hour */
	int64_t forecast_micro; /* at the month's end */
};

/* One threshold crossed. */
struct sw_budget_alert {
	int64_t id;
	const char *scope, *name, *month;
	int threshold; /* percent */
	int64_t crossed; /* ledger clock, s */
	int64_t spent_micro, limit_micro;
	int has_forecast; /* forecast_micro is known */
	int64_t forecast_micro; /* at the month's end */
};

/* The ledger's clock: the AWS time of the newest sample, or the wall
 * clock before any. */
sw_err sw_ledger_now(struct sw_db *, int64_t *now);

/* Create or replace b (its created/updated: now_ms); *created is 1 when
 * there was none. */
sw_err sw_budget_put(
    struct sw_db *, const struct sw_budget *b, int64_t now_ms, int *created);
/* SW_ENOTFOUND when there is none. */
sw_err sw_budget_get(
    struct sw_db *, const char *scope, const char *name, struct sw_budget *b);
/* Every budget (of scope, when not NULL) into *b (allocated, free()),
 * *n of them. */
sw_err sw_budget_list(
    struct sw_db *, const char *scope, struct sw_budget **b, size_t *n);
/* The budget and its crossings; SW_ENOTFOUND when there is none. */
sw_err sw_budget_delete(struct sw_db *, const char *scope, const char *name);

/* Where b stands at now (the ledger's clock). */
sw_err sw_budget_state(struct sw_db *, const struct sw_budget *b, int64_t now,
    struct sw_budget_state *st);

/* Record a crossing; *is_new is 1 only the first time its budget,
 * month and threshold are recorded (the id is then set in a).  A new
 * crossing is also a budget.threshold notification event with its
 * deliveries, written by the schema's trigger in the same statement
 * (lib/notify.h). */
sw_err sw_budget_cross(struct sw_db *, struct sw_budget_alert *a, int *is_new);
/* Each threshold of b that st's spend reaches, recorded at st->now;
 * *fresh gets how many were new. */
sw_err sw_budget_evaluate(struct sw_db *, const struct sw_budget *b,
    const struct sw_budget_state *st, int *fresh);
/*
 * Crossings after id `after`, of scope, name and month where not NULL,
 * at most limit, as JSON objects {id, scope, name, month, threshold,
 * crossed (s), spent_micro, limit_micro} into *items (new).
 */
sw_err sw_budget_alerts(struct sw_db *, const char *scope, const char *name,
    const char *month, int64_t after, int limit, json_object **items);

#endif
