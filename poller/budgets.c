/*
 * budgets.c: after each ledger sample the poller sets every budget
 * against what its team or cluster spent this month by the ledger's
 * clock (lib/budget.h), and records each threshold reached for the
 * first time this month.  A budget is soft: nothing is stopped; a new
 * crossing is logged, and the same statement that records it writes
 * its budget.threshold event to the notification outbox (a trigger of
 * the schema), which this poller's notifier then sends.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "lib/budget.h"
#include "lib/log.h"
#include "poller/budgets.h"

void
sw_budget_tick(struct sw_db *db)
{
	struct sw_budget_state st;
	struct sw_budget *b = NULL;
	int64_t now;
	size_t i, n = 0;
	int fresh;

	if (sw_ledger_now(db, &now) != SW_OK ||
	    sw_budget_list(db, NULL, &b, &n) != SW_OK)
		return;
	for (i = 0; i < n; i++) {
		if (sw_budget_state(db, &b[i], now, &st) != SW_OK ||
		    sw_budget_evaluate(db, &b[i], &st, &fresh) != SW_OK) {
			sw_warn("budget %s/%s: cannot evaluate", b[i].scope,
			    b[i].name);
			continue;
		}
		if (fresh > 0)
			sw_info(
			    "budget %s/%s: crossed %d threshold(s), %" PRId64
			    " of %" PRId64 " micro-dollars spent in %s",
			    b[i].scope, b[i].name, fresh, st.spent_micro,
			    b[i].limit_micro, st.month);
	}
	free(b);
	(void)sw_db_idle(db);
}
