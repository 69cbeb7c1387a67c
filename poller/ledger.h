/*
 * ledger.h: the poller's sampling of the usage ledger (ledger.c).
 */
#ifndef SW_POLLER_LEDGER_H
#define SW_POLLER_LEDGER_H

#include "cloud/aws.h"
#include "lib/conf.h"
#include "lib/db.h"

#include <json-c/json.h>

/*
 * Sample the clusters Slipway owns whose turn ("ledger <cluster>", one
 * every every_ms among all pollers of all replicas, paced per account
 * and region by rate: poller/pace.h) this poller takes, a few AWS and
 * Kubernetes reads each, for up to budget_ms (0: no limit): 1 when it
 * stopped with clusters left, so the poller turns to its operations and
 * comes back soon.
 */
int sw_ledger_tick(struct sw_db *, struct aws_ctx *, const struct sw_config *,
    int64_t every_ms, int64_t budget_ms, int rate);
/* The job a pod belongs to: its job label, owner or name (borrowed). */
const char *sw_pod_job(json_object *pod);

#endif
