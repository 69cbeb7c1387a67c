/*
 * budgets.h: the poller's evaluation of the budgets (budgets.c).
 */
#ifndef SW_POLLER_BUDGETS_H
#define SW_POLLER_BUDGETS_H

#include "lib/db.h"

/* Each budget against the ledger's month so far, after a sample: every
 * threshold newly reached is recorded once (lib/budget.h). */
void sw_budget_tick(struct sw_db *);

#endif
