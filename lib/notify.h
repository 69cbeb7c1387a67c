/*
 * notify.h: subscriptions and the notification outbox in the state
 * store.  A subscription names the event kinds it wants and where they
 * go (an https webhook, an SNS topic or an EventBridge bus).  When an
 * operation or a stage ends, or a budget crosses a threshold for the
 * first time in a month (lib/budget.h), triggers of the schema
 * (lib/db.c) write an event and one delivery per matching subscription
 * in the same statement as the state change or the crossing.  A
 * subscription limited to a cluster gets that cluster's operations and
 * its cluster budget's crossings, never a team budget's; one limited
 * to a team gets only the events that carry that team (its jobs' and
 * endpoints' changes, its team budget's crossings).  The poller also
 * watches jobs, endpoints, nodes and HyperPod's cluster events
 * (poller/watch.c): it keeps their last-seen states here, and a
 * trigger writes the event of a change with the change itself.  The
 * poller (poller/notify.c) takes
 * due deliveries under a lease, sends them and records the outcome
 * here: delivered, again later, or dead after the last attempt.
 */
#ifndef SW_NOTIFY_H
#define SW_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/db.h"
#include "lib/err.h"

/* The event kinds a subscription may name, NULL-ended. */
extern const char *const sw_notify_kinds[];
/* The targets, NULL-ended: webhook, sns, eventbridge. */
extern const char *const sw_notify_targets[];
/* Payload formats of a webhook, NULL-ended: slipway, slack. */
extern const char *const sw_notify_formats[];

/* A new subscription; every string borrowed.  kinds is a comma list
 * of sw_notify_kinds; secret and cluster may be NULL. */
struct sw_sub_new {
	const char *name;
	const char *target;
	const char *address; /* URL, topic ARN or bus */
	const char *secret; /* webhook only */
	const char *format;
	const char *kinds;
	const char *cluster;
	const char *team; /* NULL: events of every team */
	const char *created_by;
};

/* SW_ECONFLICT when the name is taken. */
sw_err sw_sub_create(struct sw_db *, const struct sw_sub_new *);
/* The subscriptions (name NULL) or one, as a new array of objects in
 * *out (never with the secret); SW_ENOTFOUND for a name not there. */
sw_err sw_sub_list(struct sw_db *, const char *name, json_object **out);
/* Delete one and its deliveries; SW_ENOTFOUND when there is none. */
sw_err sw_sub_delete(struct sw_db *, const char *name);

/* The deliveries, newest first: state and sub may be NULL (all);
 * before (0: none) is the seq to page from.  New array in *out. */
sw_err sw_delivery_list(struct sw_db *, const char *state, const char *sub,
    int64_t before, int limit, json_object **out);

/* One delivery: an event to one subscription. */
struct sw_delivery_ref {
	int64_t event_id;
	char sub[64];
};

/* Up to max deliveries due at now (the database's clock,
 * sw_db_now_ms) into refs; their count in *n. */
sw_err sw_delivery_due(struct sw_db *, int64_t now,
    struct sw_delivery_ref *refs, size_t max, size_t *n);
/*
 * Begin one attempt: lease the delivery to owner for lease_ms on the
 * database's clock and count the attempt.  SW_OK and *doc, a new object (uid, kind, op_id,
 * cluster, time_ms, data, target, address, secret, format, attempts);
 * SW_ECONFLICT when another poller took it or it is no longer pending.
 */
sw_err sw_delivery_take(struct sw_db *, const struct sw_delivery_ref *,
    const char *owner, int64_t lease_ms, json_object **doc);
/* The attempt was answered with success. */
sw_err sw_delivery_done(
    struct sw_db *, const struct sw_delivery_ref *, const char *owner);
/* The attempt failed (error: why): again delay_ms from now on the
 * database's clock, or dead when it was the max_attempts-th. */
sw_err sw_delivery_retry(struct sw_db *, const struct sw_delivery_ref *,
    const char *owner, int64_t delay_ms, const char *error, int max_attempts);
/*
 * An event no trigger writes (kind of sw_notify_kinds; cluster NULL for
 * none; data a JSON object, borrowed) and one delivery per subscription
 * that wants it, in one transaction.  once, when not NULL, keys the
 * event by what it is about: an event of that key is written once, and
 * *fresh (may be NULL) says whether this call wrote it.  Nothing is
 * written when no subscription wants it.
 */
sw_err sw_notify_emit(struct sw_db *, const char *kind, const char *cluster,
    const char *once, json_object *data, int *fresh);
/* Whether the event keyed once was written already. */
int sw_notify_seen(struct sw_db *, const char *once);

/* Release the leases of owners whose name ends in mine ("" for all)
 * and alive() says are gone; how many. */
int sw_delivery_release_dead(struct sw_db *, const char *mine,
    int (*alive)(const char *, void *), void *arg);

/* ---- what the poller watches (poller/watch.c) ---------------------- */

/* The last-seen states of cluster's watched objects, as a new object
 * {"<kind> <key>": state} in *out. */
sw_err sw_watch_seen(struct sw_db *, const char *cluster, json_object **out);

/* One object seen: its kind (job, endpoint, node, events), key, state
 * and team (NULL: none).  event (NULL: none) is what the change from
 * the last-seen state makes, with data, its detail as JSON text. */
struct sw_watch_obs {
	const char *cluster;
	const char *kind;
	const char *key;
	const char *state;
	const char *team;
	const char *event;
	const char *data;
	int64_t time_ms;
};

/* Record it: a first sight is a baseline (no event); a change writes
 * its event and deliveries in the same statement (a trigger). */
sw_err sw_watch_put(struct sw_db *, const struct sw_watch_obs *);
/* Forget an object no longer there (seen again, it is a baseline). */
sw_err sw_watch_drop(
    struct sw_db *, const char *cluster, const char *kind, const char *key);

#endif
