/*
 * pace.h: periodic work on each cluster Slipway owns, taken in turns by
 * all pollers of all replicas and paced per account and region
 * (pace.c).  The watch (watch.c) and the usage ledger's samples
 * (ledger.c) go through it.
 *
 * A cluster's turn ("<what> <cluster>", sw_turn_take) comes every
 * every_ms.  With a rate (clusters of one account and region a second;
 * 0: none), it comes every (that account's clusters / rate) seconds when
 * that is longer, and one pass takes at most rate clusters of an account
 * for each second since this process's pass of the same work before
 * (every_ms at most), so a thousand clusters created at once are read
 * over time, not in one burst: AWS throttles an account's calls, not a
 * cluster's.  Each poller paces its own passes: N replicas read up to N
 * times rate.  A pass costs the database two reads whatever the number
 * of clusters (their states, and the turns not due), then one write per
 * turn it may take.
 */
#ifndef SW_POLLER_PACE_H
#define SW_POLLER_PACE_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/db.h"

struct sw_pace {
	const char *what; /* the turns' prefix: "watch", "ledger" */
	int64_t every_ms;
	int rate;
	int64_t cap; /* clusters of one account this pass */
	json_object *rows; /* the clusters, in order (sw_cluster_states) */
	json_object *waiting; /* {turn: true} of turns not due */
	json_object *homes; /* each one's "account|region" */
	json_object *counts; /* {home: clusters} */
	json_object *taken; /* {home: turns taken this pass} */
};

/*
 * Begin a pass of what over the clusters Slipway owns now.  *last_ms is
 * this process's pass of the same work before (0 at first); it is set to
 * now.  SW_OK, or an error with nothing to end.
 */
sw_err sw_pace_begin(struct sw_pace *, struct sw_db *, const char *what,
    int64_t every_ms, int rate, int64_t *last_ms);
/* How many clusters the pass goes over, and the name of cluster i
 * (borrowed, for the pass). */
size_t sw_pace_count(const struct sw_pace *);
const char *sw_pace_cluster(const struct sw_pace *, size_t i);
/* Whether cluster i was being created when the pass began, and
 * HyperPod had answered its create (sw_cluster_creating's meaning). */
void sw_pace_creating(
    const struct sw_pace *, size_t i, int *creating, int *hyperpod);
/* 1 when cluster i's turn is this poller's now (and counted against its
 * account's share of the pass), 0 when it is another's or not due, or
 * its account has had its share of this pass. */
int sw_pace_take(struct sw_pace *, struct sw_db *, size_t i);
void sw_pace_end(struct sw_pace *);

#endif
