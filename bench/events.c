/*
 * events.c: slipway-bench-events, operations that end at a steady rate
 * in a running stack's state store, for the notification latency bench
 * (bench/run).
 *
 *   slipway-bench-events STATE_DB PER_MINUTE COUNT
 *
 * Each event is one operation enqueued (sw_op_enqueue) and cancelled
 * while pending (sw_op_cancel), through the same lib/ops.c functions
 * the API workers use: the cancel ends it at once, and the schema's
 * trigger writes the event and its deliveries in the same statement,
 * as for any operation that ends.  The kind has no pipeline, so an
 * operation the poller claims first ends as failed instead: the bench
 * subscribes to both.  Events start at even spacing (60 / PER_MINUTE
 * s), each at its own moment however late the one before was.  Prints
 * "made N (M ended by the poller first)" at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/db.h"
#include "lib/err.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/ops.h"

static void
wait_until(const struct timespec *at)
{
	while (
	    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, at, NULL) == EINTR)
		;
}

static long ended_first; /* ended by the poller first */

static sw_err
one_event(struct sw_db *db, int i)
{
	static const char *const stages[] = { "end", NULL };
	struct sw_op_new n = { 0 };
	json_object *params = json_object_new_object();
	char id[SW_OP_ID_LEN], target[32];
	int existed = 0;
	sw_err e;

	sw_fmt_text(target, sizeof(target), "bench-event-%d", i);
	n.kind = "bench.event";
	n.target = target;
	n.params = params;
	n.stages = stages;
	n.token_name = "bench";
	e = sw_op_enqueue(db, &n, id, &existed);
	json_object_put(params);
	if (e == SW_OK && (e = sw_op_cancel(db, id)) == SW_ECONFLICT) {
		ended_first++; /* it ended already: that was its event */
		e = SW_OK;
	}
	(void)sw_db_idle(db);
	if (e != SW_OK)
		fprintf(stderr, "event %d: %s\n", i, sw_err_slug(e));
	return e;
}

int
main(int argc, char *argv[])
{
	struct sw_db *db = NULL;
	struct timespec at;
	long per_min, count, i, made = 0;
	int64_t step_ns;

	if (argc != 4) {
		fprintf(stderr,
		    "usage: slipway-bench-events STATE_DB "
		    "PER_MINUTE COUNT\n");
		return 2;
	}
	sw_log_init("slipway-bench-events");
	per_min = strtol(argv[2], NULL, 10);
	count = strtol(argv[3], NULL, 10);
	if (per_min < 1 || count < 1)
		return 2;
	if (sw_db_open(argv[1], &db) != SW_OK) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	step_ns = 60LL * 1000000000LL / per_min;
	clock_gettime(CLOCK_MONOTONIC, &at);
	for (i = 0; i < count; i++) {
		if (one_event(db, (int)i) == SW_OK)
			made++;
		at.tv_nsec += step_ns % 1000000000LL;
		at.tv_sec += step_ns / 1000000000LL + at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		wait_until(&at);
	}
	printf("made %ld (%ld ended by the poller first)\n", made, ended_first);
	sw_db_close(db);
	return made == count ? 0 : 1;
}
