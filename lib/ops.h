/*
 * ops.h: operations, their stages and events.  Every mutation Slipway
 * makes is an operation row: kind, target, validated parameters, who
 * asked, an optional idempotency key, a state
 *
 *	pending -> running -> succeeded | failed | cancelled
 *	failed  -> pending   (retry: only failed stages run again)
 *
 * and an ordered list of stages.  The API workers enqueue; the poller
 * claims due operations under a lease, advances stages and appends
 * events.  A stage records the external identifiers it will create
 * (ext) before it creates them, so a crashed poller resumes without
 * repeating a mutation.
 */
#ifndef SW_OPS_H
#define SW_OPS_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/db.h"
#include "lib/err.h"

#define SW_OP_ID_LEN 20 /* "op-" + 16 hex + NUL */

struct sw_op_new {
	const char *kind; /* e.g. "cluster.create" */
	const char *target; /* what it acts on */
	const char *cluster; /* cluster name or NULL */
	json_object *params; /* borrowed, validated */
	const char *const *stages; /* NULL-terminated stage names */
	const char *idem_key; /* Idempotency-Key or NULL */
	const char *request_hash; /* what the key stands for;
						 * NULL: hash of kind+params */
	const char *token_name; /* who asked */
};

struct sw_op_filter {
	const char *kind, *state, *cluster, *token_name;
	const char *cursor; /* from a previous page */
	int limit;
};

/*
 * Create an operation with all its stages in one transaction.  With an
 * idempotency key already used by the same token: the same request
 * gives back the first operation (*existed = 1); a different request
 * under that key is SW_ECONFLICT.  id receives the operation id.
 * Operations on a cluster exclude each other: while one is pending or
 * running on n->cluster, another is SW_EBUSY and id receives the id of
 * the one holding it.  The check and the insert are one transaction, so
 * of two racing requests exactly one wins.
 */
sw_err sw_op_enqueue(struct sw_db *, const struct sw_op_new *,
    char id[SW_OP_ID_LEN], int *existed);

/*
 * The operation an idempotency key of a token already started: SW_OK
 * with id when the key was used for the same request (hash), SW_ECONFLICT
 * when for another one, SW_ENOTFOUND when the key is new.
 */
sw_err sw_op_find_idem(struct sw_db *, const char *token_name, const char *key,
    const char *hash, char id[SW_OP_ID_LEN]);

/* Operation as JSON with stages (and events after since_event when
 * with_events).  *out is a new reference.  SW_ENOTFOUND if absent. */
sw_err sw_op_get(struct sw_db *, const char *id, int with_events,
    int64_t since_event, json_object **out);

/* A page of operations, newest first: {"items":[...],"next":cursor}. */
sw_err sw_op_list(
    struct sw_db *, const struct sw_op_filter *, json_object **out);

/*
 * Claim one due operation (pending or running, lease expired) for
 * owner, for lease_ms.  SW_ENOTFOUND when nothing is due.
 */
sw_err sw_op_claim(
    struct sw_db *, const char *owner, int64_t lease_ms, char id[SW_OP_ID_LEN]);
/*
 * A lease on an operation: who holds it, its fencing token (the
 * operation's counter, one more at each claim) and its length.  Every
 * write of a stage is made in a transaction that sw_lease_begin opened
 * after checking, in the database, that this token is still the
 * operation's and its owner this one (and renewing the lease: the
 * heartbeat); a lease that moved makes the write rejected, never
 * applied, and lost is set.  Times are the database's clock.
 */
struct sw_lease {
	char id[SW_OP_ID_LEN];
	char owner[64];
	int64_t token;
	int64_t ms; /* length; each check renews it */
	int lost; /* a check found the lease moved */
	int rejected; /* writes refused since the claim */
	int64_t checked_mono; /* CLOCK_MONOTONIC ms when the last check began */
};

/* Claim one due operation under a lease (lease->owner and ->ms set by
 * the caller); SW_ENOTFOUND when nothing is due. */
sw_err sw_op_claim_lease(struct sw_db *, struct sw_lease *);
/*
 * Begin a transaction in which lease still holds its operation, and
 * renew it.  SW_ECONFLICT, no transaction open, when the lease moved.
 * The caller ends a successful begin with sw_db_commit or
 * sw_db_rollback.
 */
sw_err sw_lease_begin(struct sw_db *, struct sw_lease *);
/*
 * After a check (sw_lease_begin) committed: the CLOCK_MONOTONIC time in
 * milliseconds up to which the lease surely still holds.  The check
 * renewed it to its length from the database's clock, read after the
 * check began, so no other poller can claim the operation before the
 * check's start plus its length; a margin covers the clocks' rates.  A
 * call that cannot be made twice is not sent after it
 * (http_client.send_by_ms), so a poller paused between its check and
 * the call does not send it after another took over.
 */
int64_t sw_lease_send_by(const struct sw_lease *);
/* Give the lease up, the operation next due delay_ms from now on the
 * database's clock (at once when 0); nothing when the lease moved. */
sw_err sw_lease_release(struct sw_db *, struct sw_lease *, int64_t delay_ms);

/*
 * Take the turn at a periodic task that every poller of every replica
 * could run (name it, e.g. "watch <cluster>"): *mine is 1 when this
 * caller took it, the task next due every_ms later by the database's
 * clock, and 0 when another poller took it less than every_ms ago.
 */
sw_err sw_turn_take(
    struct sw_db *, const char *name, int64_t every_ms, int *mine);

/*
 * A fact kept for every worker and replica (an AWS answer that cannot
 * have changed for a while): *text (malloc'd, the caller frees) while it
 * holds by the database's clock, else NULL.  sw_fact_put keeps text for
 * ttl_ms from now.
 */
sw_err sw_fact_get(struct sw_db *, const char *key, char **text);
sw_err sw_fact_put(
    struct sw_db *, const char *key, const char *text, int64_t ttl_ms);

/* Give up the lease and set when the operation is next due. */
sw_err sw_op_release(
    struct sw_db *, const char *id, const char *owner, int64_t due_ms);

/*
 * Release the leases of owners that are gone: alive(owner, arg) says
 * whether an owner still runs.  Only live operations' owners whose name
 * ends in mine ("@host": those alive() can tell of; "" for all) are
 * asked.  Returns how many owners were released.
 */
int sw_op_release_dead(struct sw_db *, const char *mine,
    int (*alive)(const char *owner, void *arg), void *arg);

sw_err sw_op_set_state(
    struct sw_db *, const char *id, const char *state, const char *error);
sw_err sw_op_set_result(struct sw_db *, const char *id, json_object *res);
sw_err sw_stage_set_state(struct sw_db *, const char *id, int seq,
    const char *state, const char *error);
/* Record external identifiers of a stage (borrowed; stored as text). */
sw_err sw_stage_set_ext(
    struct sw_db *, const char *id, int seq, json_object *ext);

/* Append an event; data may be NULL.  stage < 0 means none. */
sw_err sw_op_event(struct sw_db *, const char *id, int stage, const char *level,
    const char *message, json_object *data);

/*
 * failed|cancelled -> pending, the cancel request cleared; failed and
 * cancelled stages become pending again.  SW_EBUSY, with the holder's id
 * in busy, while another live operation holds the same cluster.
 */
sw_err sw_op_retry(struct sw_db *, const char *id, char busy[SW_OP_ID_LEN]);
/* Ask to cancel: pending ops end at once, running ones at the next
 * stage boundary (the poller sees cancel_requested). */
sw_err sw_op_cancel(struct sw_db *, const char *id);

/* Last update time (ms) and state, for operation_wait long polls. */
sw_err sw_op_updated(
    struct sw_db *, const char *id, int64_t *updated, char state[16]);

/* True when state ends an operation: succeeded, failed or cancelled. */
int sw_op_state_terminal(const char *state);
/* True when state ended an operation without success (failed or
 * cancelled): one a retry may run again. */
int sw_op_state_unsuccessful(const char *state);

/* Fill buf with n random bytes as lower-case hex (2n + 1 bytes). */
sw_err sw_random_hex(char *buf, size_t n);

/*
 * The record of a cluster Slipway owns: its id (what every resource it
 * makes for the cluster is tagged with) and how it came to own it,
 * "created" or "imported".  A cluster with no record is not Slipway's.
 */
#define SW_CLUSTER_ID_LEN 24 /* "swc-" + 16 hex + NUL, rounded */
struct sw_cluster_rec {
	char id[SW_CLUSTER_ID_LEN];
	char origin[16];
	char account[16]; /* "" : Slipway's own account */
	char region[32]; /* "" : the configured region */
};

/* The record of name into *rec: SW_OK, or SW_ENOTFOUND when none. */
sw_err sw_cluster_get(
    struct sw_db *, const char *name, struct sw_cluster_rec *rec);
/* A fresh cluster id into id ("swc-" + 16 hex). */
sw_err sw_cluster_new_id(char id[SW_CLUSTER_ID_LEN]);
/* Record name as Slipway's (origin "created" or "imported") with id;
 * a name already recorded keeps its record, which *rec receives. */
sw_err sw_cluster_record(struct sw_db *, const char *name, const char *id,
    const char *origin, struct sw_cluster_rec *rec);
/* Forget the record of name, only when its id is id. */
sw_err sw_cluster_forget(struct sw_db *, const char *name, const char *id);
/* Forget the record (name, id) a create made and did not start with,
 * unless a live operation holds the cluster: a create of the same name
 * sent at the same time may have found that record, taken its id and
 * started (it recorded none of its own). */
sw_err sw_cluster_unclaim(struct sw_db *, const char *name, const char *id);
/* Record where the cluster name (of id) lives: account and region, NULL
 * or "" for Slipway's own. */
sw_err sw_cluster_place(struct sw_db *, const char *name, const char *id,
    const char *account, const char *region);
/* Every (account, region) other than Slipway's own holding a recorded
 * cluster, into *out: a JSON array of {"account", "region"} ("" for the
 * own one). */
sw_err sw_cluster_places(struct sw_db *, json_object **out);
/*
 * The Kubernetes API server of cluster name as EKS last gave it: its
 * endpoint and CA (PEM), each malloc'd into *endpoint and *pem (*pemlen
 * its length).  SW_ENOTFOUND when no record holds them.
 */
sw_err sw_cluster_access_get(struct sw_db *, const char *name, char **endpoint,
    char **pem, size_t *pemlen);
/* Keep them with the record of name (none: nothing is kept); endpoint
 * NULL forgets them. */
sw_err sw_cluster_access_set(
    struct sw_db *, const char *name, const char *endpoint, const char *pem);
/* *creating when the create of cluster name is still live (pending or
 * running), or is about to be (the record is made, the create not yet
 * enqueued); *hyperpod unless that create has yet to hear HyperPod
 * answer its CreateCluster (before, there is no HyperPod cluster to
 * read). */
sw_err sw_cluster_creating(
    struct sw_db *, const char *name, int *creating, int *hyperpod);
/* Every cluster Slipway owns, in name order, in one read: a JSON array
 * (new) of {"name", "account", "region" (null: Slipway's own),
 * "creating", "hyperpod"} in sw_cluster_creating's meaning. */
sw_err sw_cluster_states(struct sw_db *, json_object **out);
/* The turns whose names begin with prefix and are not due yet by the
 * database's clock: {name: true} (new).  A pass that skips them asks
 * only for the turns it may get (sw_turn_take). */
sw_err sw_turns_waiting(struct sw_db *, const char *prefix, json_object **out);

#endif
