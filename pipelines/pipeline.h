/*
 * pipeline.h: how an operation's stages run.
 *
 * A pipeline is a kind ("cluster.create") with an ordered list of stage
 * functions.  The poller calls the current stage's function again and
 * again; each call does a little work and answers:
 *
 *	STEP_DONE	the stage is complete: go on to the next one
 *	STEP_WAIT	come back after wait_ms (a long AWS call is running,
 *			or a transient error should be retried)
 *	STEP_FAIL	stop; msg says why (retry the operation to resume)
 *
 * Stage functions are written as "ensure" steps: look the resource up
 * (by id recorded in the stage's resources, else by its deterministic
 * name or tags), create it only when absent, then wait for it.  So a
 * poller killed at any moment resumes without repeating a mutation.
 * Before every mutating call the stage's resources are written to the
 * database, so the identifiers a create will use are recorded first.
 *
 * The same functions produce a plan: in plan mode (dry_run) reads go to
 * AWS as usual, mutating calls are recorded instead of sent, and waits
 * end at once, so the plan is the ordered list of calls a real run
 * would make against the live state, and of what it would wait for.
 */
#ifndef SW_PIPELINE_H
#define SW_PIPELINE_H

#include <json-c/json.h>
#include <stdint.h>

#include "cloud/aws.h"
#include "lib/arena.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/err.h"
#include "lib/ops.h"

enum sw_step_rc { STEP_DONE, STEP_WAIT, STEP_FAIL };

struct sw_step {
	struct sw_db *db; /* NULL in plan mode */
	struct sw_lease *lease; /* its writes' fence */
	struct aws_ctx *aws; /* for the person who asked */
	struct aws_ctx *svc_aws; /* Slipway's own identity */
	const struct sw_config *cfg;
	const char *op_id;
	int seq; /* stage number */
	const char *stage; /* stage name */
	json_object *params; /* operation input; borrowed */
	json_object *res; /* this stage's resources */
	json_object *all; /* {stage name: resources} */
	int plan; /* dry run */
	json_object *calls; /* plan: recorded calls */
	json_object *waits; /* plan: recorded waits */
	int64_t wait_ms;
	char msg[512];
	int calls_made; /* AWS/K8s requests this step */
	int unavailable; /* see sw_step_retry() */
	struct sw_arena arena; /* see sw_keep() */
	int kept_nomem; /* a sw_keep ran out */
};

typedef enum sw_step_rc (*sw_stage_fn)(struct sw_step *);

struct sw_stage_def {
	const char *name;
	sw_stage_fn fn;
};

struct sw_pipeline {
	const char *kind;
	const struct sw_stage_def *stages; /* NULL-name ended */
};

/* The pipeline for an operation kind, or NULL. */
const struct sw_pipeline *sw_pipeline_find(const char *kind);
/* NULL-terminated stage names of a pipeline, for sw_op_enqueue. */
const char *const *sw_pipeline_stage_names(const struct sw_pipeline *);

/*
 * Call AWS from a stage.  in is stolen.  In plan mode a mutating call
 * is recorded and answered with an empty object.  On an AWS error:
 * retryable ones give STEP_WAIT, the rest STEP_FAIL, both with msg set,
 * and *out is NULL; the error is copied to err when err is not NULL.
 */
enum sw_step_rc sw_step_aws(struct sw_step *, enum aws_service, const char *op,
    json_object *in, json_object **out, struct aws_error *err);
/* sw_step_aws of a read whose answer holds for keep_ms (what EKS
 * offers for a Kubernetes version), kept for every poller and replica
 * (aws_call_kept); a plan reads it each time. */
enum sw_step_rc sw_step_aws_kept(struct sw_step *, enum aws_service,
    const char *op, json_object *in, json_object **out, int64_t keep_ms);
/*
 * DescribeCluster of the HyperPod cluster name (aws_hp_describe) from a
 * stage, answered as sw_step_aws answers.  When SageMaker has no such
 * cluster: with gone NULL that is a STEP_FAIL; otherwise *gone is 1, the
 * step is done and *out is NULL.
 */
enum sw_step_rc sw_step_hp_describe(
    struct sw_step *, const char *name, json_object **out, int *gone);
/*
 * Copy a string that lives in a response document into the step's
 * arena, so it stays valid after the document is released, whole, until
 * the step ends (sw_step_release).  Returns NULL for NULL.  Out of
 * memory it returns NULL too and marks the step, which the runner then
 * retries instead of trusting what the stage decided.
 */
const char *sw_keep(struct sw_step *, const char *);
/* End a step: free what it kept (its arena), the one place that does;
 * the step may run again afterwards. */
void sw_step_release(struct sw_step *);

/* Wait: set wait_ms and msg and return STEP_WAIT. */
enum sw_step_rc sw_step_wait(struct sw_step *, int64_t ms, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * Wait because a read or call failed for now (throttled, unreachable, a
 * 5xx): as sw_step_wait, and it marks the step unavailable, so a plan,
 * which cannot wait, stops there instead of reading on without the
 * state it could not see.
 */
enum sw_step_rc sw_step_retry(struct sw_step *, int64_t ms, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
/*
 * The one backoff of a stage after a transient failure (an AWS or
 * Kubernetes call that sw_err_transient() says to try again): as
 * sw_step_retry, after SW_TRANSIENT_RETRY_MS plus up to
 * SW_TRANSIENT_JITTER_MS, so stages that failed together do not come
 * back together.  (A call's own short retries happen first, inside
 * aws_call: cloud/retry.c.)
 */
#define SW_TRANSIENT_RETRY_MS 1000
#define SW_TRANSIENT_JITTER_MS 2000
enum sw_step_rc sw_step_transient(struct sw_step *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
enum sw_step_rc sw_step_fail(struct sw_step *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Stage resources: strings recorded in s->res. */
const char *sw_res_get(struct sw_step *, const char *key);
void sw_res_set(struct sw_step *, const char *key, const char *val);
/* A resource recorded by an earlier stage. */
const char *sw_res_from(struct sw_step *, const char *stage, const char *key);
/* Persist s->res now (no-op in plan mode). */
sw_err sw_step_save(struct sw_step *);
/*
 * Before a call that changes something (an AWS mutation, a Kubernetes
 * change): the stage recorded under the lease (sw_step_save; a poller
 * whose lease moved finds out here and sends nothing), then http's
 * send-by time set from the lease.  STEP_DONE to go on, else the
 * stage's retry; the caller clears http->send_by_ms after the call.
 */
enum sw_step_rc sw_step_fence(
    struct sw_step *, struct http_client *http, const char *what);

/*
 * Ownership tags, the one place their keys are written.  Every AWS
 * resource Slipway makes for a cluster carries the cluster's name and
 * the id Slipway recorded for it (lib/ops.h, sw_cluster_record); what
 * Slipway later deletes it finds by that id, never by a name.
 */
#define SW_TAG_CLUSTER "slipway:cluster" /* cluster name */
#define SW_TAG_CLUSTER_ID "slipway:cluster-id" /* recorded id */
#define SW_TAG_MANAGED "slipway:managed" /* "true" */
#define SW_TAG_IMPORTED "slipway:imported" /* cluster_import */
/* On an EKS cluster: its team access is "on" or "off"; on an access
 * entry team_access_set made: "<team>/<role>" (pipelines/access.c). */
#define SW_TAG_TEAM_ACCESS "slipway:team-access"
/* On the observability add-on: the workspaces it was given. */
#define SW_TAG_GRAFANA_WS "slipway:grafana-workspace"
#define SW_TAG_PROMETHEUS_WS "slipway:prometheus-workspace"

/* The operation's cluster id (params "cluster_id"), NULL for none. */
const char *sw_cluster_id(struct sw_step *);
/* Our tags as [{Key, Value}] (IAM, SageMaker, FSx).  New reference. */
json_object *sw_tag_list(struct sw_step *);
/* Our tags as {key: value} (EKS).  New reference. */
json_object *sw_tag_map(struct sw_step *);
/* Whether tags (borrowed; [{Key, Value}], [{key, value}] or a map)
 * carry this operation's cluster id. */
int sw_tags_ours(struct sw_step *, json_object *tags);
/* EC2 TagSpecifications for a resource we create.  New reference. */
json_object *sw_tag_spec(
    struct sw_step *, const char *resource_type, const char *name);
/* EC2 filters [{Name: tag:<k>, Values: [v]}] for resources tagged with
 * this operation's cluster id (its name when it has none), and named
 * name when not NULL.  New reference. */
json_object *sw_tag_filter(struct sw_step *, const char *name);

/* Forget the record of cluster name (id), under the step's lease. */
sw_err sw_step_forget(struct sw_step *, const char *name, const char *id);

/*
 * The context for calls about cluster made in Slipway's own name (the
 * poller's ledger and watch): aws for a cluster of Slipway's account and
 * region (or none recorded), else one in the cluster's account (its
 * member role) and region (cloud/aws_member.h).  NULL, logged, when the
 * account cannot be reached.
 */
struct aws_ctx *sw_cluster_aws(struct sw_db *, struct aws_ctx *aws,
    const struct sw_config *, const char *cluster);

/*
 * Run one claimed operation (lease) for up to budget_ms: advance stages
 * until one waits or fails.  Returns when the operation is released
 * (with its next due time) or has ended.  Every state write is checked
 * against the lease's token in its own transaction; once the lease has
 * moved nothing more is written or sent to AWS (SW_ECONFLICT).
 */
sw_err sw_pipeline_advance(struct sw_db *, struct aws_ctx *,
    const struct sw_config *, struct sw_lease *, int64_t budget_ms, int *calls);

/*
 * Dry run of a whole pipeline against the live state: *plan is a new
 * array of {stage, service, operation, input} in order.  A stage that
 * cannot go on ends it with {stage, refused}: SW_EPRECONDITION when the
 * stage fails, SW_EUNAVAIL when a read it needs failed for now
 * (sw_step_retry), so the plan never stands for a state it did not see.
 * With waits non-NULL, *waits is a new array of {stage, wait}: each
 * thing a run would wait for, so reads at least once (sw_plan_wait).
 */
sw_err sw_pipeline_plan(struct aws_ctx *, const struct sw_config *,
    const char *kind, json_object *params, json_object **plan,
    json_object **waits);

#endif
