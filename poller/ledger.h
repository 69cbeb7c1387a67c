/*
 * ledger.h: the poller's sampling of the usage ledger (ledger.c).
 */
#ifndef SW_POLLER_LEDGER_H
#define SW_POLLER_LEDGER_H

#include "cloud/aws.h"
#include "lib/conf.h"
#include "lib/db.h"

#include <json-c/json.h>

/* One sample of every cluster Slipway owns (a few AWS and Kubernetes
 * reads each). */
void sw_ledger_tick(struct sw_db *, struct aws_ctx *, const struct sw_config *);
/* The job a pod belongs to: its job label, owner or name (borrowed). */
const char *sw_pod_job(json_object *pod);

#endif
