/*
 * watch.h: the poller's watch of jobs, endpoints, nodes and HyperPod
 * cluster events, whose changes become notification events
 * (poller/watch.c).
 */
#ifndef SW_POLLER_WATCH_H
#define SW_POLLER_WATCH_H

#include "cloud/aws.h"
#include "lib/conf.h"
#include "lib/db.h"

/*
 * One pass over every cluster Slipway owns whose turn (sw_turn_take,
 * one every every_ms among all pollers of all replicas) this poller
 * takes, for up to budget_ms (0: no limit): 1 when it stopped with
 * clusters left to look at, so the poller turns to its operations
 * (and the take-over of a dead poller's) and comes back soon.
 *
 * rate (0: none) paces each account and region: a cluster's turn comes
 * every every_ms, or every (its account's clusters / rate) seconds when
 * that is longer, and one pass reads at most rate clusters of an account
 * for each second since this process's pass before (every_ms at most),
 * so a thousand clusters started at once are read over time, not in one
 * burst.  Each poller paces its own passes: N replicas read up to N
 * times rate.
 */
int sw_watch_tick(struct sw_db *, struct aws_ctx *, const struct sw_config *,
    int64_t every_ms, int64_t budget_ms, int rate);

#endif
