/*
 * drift.h: the poller's pass over the fleet document applied last
 * (drift.c): what differs in live state, recorded once per poll.
 */
#ifndef SW_POLLER_DRIFT_H
#define SW_POLLER_DRIFT_H

#include "cloud/aws.h"
#include "lib/conf.h"
#include "lib/db.h"

/* Each cluster of the document applied last against its HyperPod
 * cluster, read in its own account and region: the instance groups
 * whose type or count differs are recorded (sw_db_drift_record).  A
 * cluster is read by the poller that takes its turn (one every
 * every_ms among all pollers of all replicas). */
void sw_drift_tick(struct sw_db *, struct aws_ctx *, const struct sw_config *,
    int64_t every_ms);

#endif
