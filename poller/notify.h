/*
 * notify.h: the poller's sending of notifications (notify.c) from the
 * outbox of the state store (lib/notify.h).
 */
#ifndef SW_POLLER_NOTIFY_H
#define SW_POLLER_NOTIFY_H

#include "cloud/aws.h"
#include "cloud/http.h"
#include "lib/db.h"

struct sw_notifier {
	struct http_client http; /* webhooks: https, loopback */
	int attempts; /* then a dead letter */
	int64_t backoff_ms; /* first retry's delay */
	const char *owner; /* the lease holder */
};

/* Set up n (free with sw_notifier_free even on failure): the limits
 * of lib/limits.h, SLIPWAY_NOTIFY_ATTEMPTS and SLIPWAY_NOTIFY_BACKOFF_MS
 * from the environment (slipway.conf notify_attempts, notify_backoff). */
sw_err sw_notifier_init(struct sw_notifier *n, const char *owner);
void sw_notifier_free(struct sw_notifier *n);
/* Send the deliveries due now (a bounded batch); how many were due. */
size_t sw_notify_tick(struct sw_notifier *, struct sw_db *, struct aws_ctx *);

#endif
