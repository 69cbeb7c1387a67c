/*
 * stepkit.h: small helpers the stage files share: EC2 find-or-create by
 * tag, IAM roles, poll intervals scaled to the backend, Kubernetes
 * clients for a recorded cluster.
 */
#ifndef SW_STEPKIT_H
#define SW_STEPKIT_H

#include "cloud/kube.h"
#include "pipelines/pipeline.h"

/* The cluster a pipeline's step acts on (its "name" parameter). */
#define CLUSTER(s) sw_json_get_str((s)->params, "name")
/* Return from a stage function unless the step x is done. */
#define TRY(x) \
	do { \
		enum sw_step_rc rc_ = (x); \
		if (rc_ != STEP_DONE) \
			return rc_; \
	} while (0)

/*
 * The one "wait until HyperPod is InService" step: DescribeCluster of
 * the step's cluster, then STEP_DONE when InService, STEP_FAIL with the
 * FailureMessage when Failed (what names the change, e.g. "software
 * update"), else STEP_WAIT polling every poll_ms of AWS time.  With out
 * non-NULL, *out receives the document whenever one was read (a new
 * reference, also on FAIL and WAIT) so a stage can read more of it.
 */
enum sw_step_rc sw_hp_wait_in_service(
    struct sw_step *, const char *what, int64_t poll_ms, json_object **out);
/* The same answer from a DescribeCluster document already read (hp is
 * borrowed). */
enum sw_step_rc sw_hp_status_step(
    struct sw_step *, json_object *hp, const char *what, int64_t poll_ms);

/* v, or in a dry-run plan the placeholder what when v is not known yet. */
const char *sw_planned(struct sw_step *, const char *v, const char *what);

/* Give up on a stage step with "code" errors treated as success. */
enum sw_step_rc sw_step_aws_ok(struct sw_step *, enum aws_service,
    const char *op, json_object *in, json_object **out, const char *ok_codes);

/*
 * A mutation that is not a create and must not be sent twice
 * (UpdateCluster, UpdateClusterSoftware, Batch*ClusterNodes): key is
 * recorded in the stage's resources and saved before the request goes
 * out.  A step that finds key already recorded sends nothing: it
 * answers STEP_DONE with *out NULL and *resumed 1, and the caller must
 * read the resource's state to learn whether the first request took
 * effect.  A 4xx answer clears key (nothing changed); a 5xx or a
 * transport error keeps it (the request may have been applied).  in is
 * stolen; *out as sw_step_aws.  The caller clears key with
 * json_object_object_del when it wants the request sent again.
 */
enum sw_step_rc sw_step_aws_once(struct sw_step *, const char *key,
    enum aws_service, const char *op, json_object *in, json_object **out,
    int *resumed);

/*
 * Find an EC2 resource of ours by tag Name=name; record its id under
 * key.  describe is e.g. "DescribeVpcs", set the output list
 * ("vpcSet"), idfield the id member ("vpcId").  extra_filters may add
 * {Name, Values} rows (stolen; may be NULL).
 */
enum sw_step_rc sw_ec2_find(struct sw_step *, const char *describe,
    const char *set, const char *idfield, const char *name, const char *key,
    json_object *extra_filters);

/* Poll interval: base_ms of AWS time, divided by the sandbox speed. */
int64_t sw_poll_ms(struct sw_step *, int64_t base_ms);

/*
 * What a pipeline waits for, each with how long AWS takes for it: the
 * first read after the request that starts it is due when the quickest
 * of them would be done, the next ones every `then`.  One table row per
 * kind (stepkit.c), scaled by sw_poll_ms.
 */
enum sw_wait_kind {
	SW_WAIT_NAT, /* NAT gateway available */
	SW_WAIT_EKS_CLUSTER, /* EKS control plane ACTIVE */
	SW_WAIT_ADDON, /* EKS add-on ACTIVE */
	SW_WAIT_HYPERPOD, /* HyperPod cluster InService */
	SW_WAIT_NODES_RUNNING, /* HyperPod nodes Running */
	SW_WAIT_NODES_READY, /* their Kubernetes nodes Ready */
	SW_WAIT_HELM_JOB, /* a Helm installer Job Complete */
	SW_WAIT__MAX
};

/* The name of a wait kind ("EKS cluster ACTIVE"), for plans. */
const char *sw_wait_name(enum sw_wait_kind);
/* Wait the kind's first interval (the request that starts it was just
 * sent) or the interval between later reads; msg as sw_step_wait. */
enum sw_step_rc sw_wait_first(struct sw_step *, enum sw_wait_kind,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum sw_step_rc sw_wait_next(struct sw_step *, enum sw_wait_kind,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * Record the first wait of kind while a stage has not started it yet: a
 * run reads it at least once when it comes.  No-op in a run; for a
 * plan, {stage, wait} goes to the plan's waits (pipeline.h).  Returns
 * STEP_DONE.
 */
enum sw_step_rc sw_plan_wait(struct sw_step *, enum sw_wait_kind);
/*
 * Before the first read of something whose start was recorded at
 * key (sw_now_ms() as text, set when its request was sent): STEP_WAIT
 * until the kind's first interval since then has passed, else
 * STEP_DONE (the read is due).  Nothing recorded: STEP_DONE.
 */
enum sw_step_rc sw_wait_since(
    struct sw_step *, enum sw_wait_kind, const char *key);
/* Record now under key, for sw_wait_since. */
void sw_mark_started(struct sw_step *, const char *key);

/* An IAM role a stage needs. */
struct sw_role {
	const char *key; /* its ARN is recorded under this */
	const char *name;
	json_object *trust; /* the trust policy (borrowed) */
	const char *const *managed; /* managed policy ARNs, NULL-ended,
					 * or NULL */
	const char *inline_name; /* the inline policy's name */
	json_object *inline_doc; /* and document (borrowed), or NULL */
};

/*
 * Ensure role r: created with its trust policy (or found by name), the
 * ARN recorded under r->key; each managed policy attached and the
 * inline policy put, each only when the live role lacks it.  A run sends
 * CreateRole first and reads the role only when it exists already; a
 * plan reads it first, and names what it would change.
 */
enum sw_step_rc sw_ensure_role(struct sw_step *, const struct sw_role *r);
/* sw_ensure_role for a role EKS Pod Identity gives pods: the trust is
 * sw_trust_pods() (r->trust is not read). */
enum sw_step_rc sw_ensure_pods_role(struct sw_step *, const struct sw_role *r);
/* Trust for AWS service principal (sts:AssumeRole); new. */
json_object *sw_trust_service(const char *principal);
/* Trust for EKS Pod Identity (sts:AssumeRole + sts:TagSession); new. */
json_object *sw_trust_pods(void);

/*
 * A Kubernetes client for the cluster as a step (sw_kube_connect: waits
 * while the cluster has no endpoint, fails when it does not exist).
 * When this operation's eks stage recorded the endpoint, the CA it saw
 * is reused (sw_kube_connect_known) and no DescribeCluster is sent.
 * Free with sw_kube_close.
 */
enum sw_step_rc sw_kube_open(
    struct sw_step *, const char *cluster, struct sw_kube *);
/* Apply one manifest (borrowed) with server-side apply. */
enum sw_step_rc sw_kube_apply(
    struct sw_step *, struct sw_kube *, json_object *obj);
/* The same; on success *out (may be NULL) is the object as the API
 * server now has it (a new reference; NULL in a plan), on failure
 * *status (may be NULL) the HTTP status of the refusal (0: none). */
enum sw_step_rc sw_kube_apply_out(struct sw_step *, struct sw_kube *,
    json_object *obj, json_object **out, int *status);

/*
 * Before a Kubernetes call that changes something: the stage recorded
 * under the lease, as before an AWS mutation (a poller whose lease moved
 * finds out here), and the call sent only while that lease surely holds
 * (kb's send-by time).  STEP_DONE to go on; sw_kube_unfence after the
 * call.
 */
enum sw_step_rc sw_kube_fence(struct sw_step *, struct sw_kube *);
void sw_kube_unfence(struct sw_kube *);

/* IAM role name gone, with its attached and inline policies; done when
 * it does not exist. */
enum sw_step_rc sw_remove_role(struct sw_step *, const char *name);

/* Account id of our credentials (cached per process). */
const char *sw_account_id(struct sw_step *);

/*
 * Before every CreateAddon: the version of addon compatible with the
 * step's cluster's Kubernetes version (DescribeAddonVersions), into
 * in's addonVersion.  Fails naming the version when there is none.
 * The cluster's version is the one this operation's eks stage recorded,
 * else DescribeCluster tells.
 */
enum sw_step_rc sw_addon_version(
    struct sw_step *, const char *addon, json_object *in);
/*
 * Before creating several add-ons (NULL-ended names): one paged
 * DescribeAddonVersions without addonName for the cluster's version,
 * each one's version recorded as "addon_version.<name>", which
 * sw_addon_version then uses without asking again.
 */
enum sw_step_rc sw_addon_versions(struct sw_step *, const char *const *addons);

#endif
