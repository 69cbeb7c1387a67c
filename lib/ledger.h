/*
 * ledger.h: the usage ledger in the state store.  The poller samples
 * every cluster Slipway owns (poller/ledger.c) and adds what ran since
 * the last sample, by the clock of AWS's answers: node-seconds per
 * instance group and type, GPU-seconds each workload held (per team and
 * job) and GPU-seconds no workload held ("idle").  Rows are summed as
 * they come and never recomputed; money is kept as micro-dollar-seconds
 * (seconds times the price in millionths of a dollar per hour, /3600 at
 * read), so sums are exact to the cent however many samples there are.
 */
#ifndef SW_LEDGER_H
#define SW_LEDGER_H

#include <stdint.h>

#include <json-c/json.h>

#include "lib/db.h"
#include "lib/err.h"

struct sw_ledger_row {
	const char *day; /* YYYY-MM-DD, UTC */
	const char *cluster;
	const char *group;
	const char *type; /* ml.p5.48xlarge */
	const char *team; /* "" for nodes and idle GPUs */
	const char *job; /* "" for nodes and idle GPUs */
	const char *kind; /* node, gpu, idle */
	int64_t seconds;
	int priced; /* 0: no price known */
	int64_t usd_us; /* micro-dollar-seconds */
};

/* The AWS time cluster was last sampled at into *at, or -1 if never. */
sw_err sw_ledger_cursor(struct sw_db *, const char *cluster, int64_t *at);
/* Move the cursor from `from` (-1: never) to `to`; *moved is 0 when
 * another poller moved it first (then add nothing: roll back). */
sw_err sw_ledger_move(
    struct sw_db *, const char *cluster, int64_t from, int64_t to, int *moved);
sw_err sw_ledger_add(struct sw_db *, const struct sw_ledger_row *);
/* Rows of days from..to (inclusive), of cluster and team when not
 * NULL, as JSON objects into *items (new). */
sw_err sw_ledger_read(struct sw_db *, const char *from, const char *to,
    const char *cluster, const char *team, json_object **items);
/*
 * The burn rate of cluster at its sample at `at`: forget the last one
 * (sw_ledger_burn_clear), then add micro-dollars an hour per team ("":
 * the nodes themselves; a team: the GPU share its pods hold).
 */
sw_err sw_ledger_burn_clear(struct sw_db *, const char *cluster);
sw_err sw_ledger_burn_add(struct sw_db *, const char *cluster, const char *team,
    int64_t usd_micro_hour, int64_t at);
/* The names of the clusters Slipway owns, as a JSON array (new). */
sw_err sw_cluster_names(struct sw_db *, json_object **names);

#endif
