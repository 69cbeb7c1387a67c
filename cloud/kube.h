/*
 * kube.h: the one way to reach the Kubernetes API of an EKS cluster.
 * DescribeCluster gives the endpoint and the cluster CA; requests carry
 * EKS tokens minted from the AWS credentials of ctx and renewed before
 * they expire.  Pipelines and handlers both open clients through here.
 */
#ifndef SW_KUBE_H
#define SW_KUBE_H

#include "cloud/aws.h"
#include "cloud/ekstoken.h"
#include "cloud/k8s.h"

/* The label on every Kubernetes object Slipway makes, and its value. */
#define SW_KUBE_MANAGED_BY "app.kubernetes.io/managed-by"
#define SW_KUBE_MANAGER "slipway"
/* Owner references followed from a pod to what made it. */
#define SW_KUBE_OWNER_DEPTH 3

struct sw_kube {
	struct k8s_client k;
	struct eks_token_source *src;
};

/*
 * Open a client for EKS cluster `cluster`.  SW_OK, or: SW_ENOTFOUND (no
 * such cluster), SW_ECONFLICT (it has no endpoint yet: still creating),
 * another sw_err from the AWS call (err says which).  kb is always safe
 * to sw_kube_close().  ctx is borrowed and must outlive kb.
 */
sw_err sw_kube_connect(struct aws_ctx *, const char *cluster,
    struct sw_kube *kb, struct aws_error *err);
/*
 * As sw_kube_connect, for a caller that knows the endpoint its cluster
 * has (recorded from its own DescribeCluster): when this process last
 * saw cluster at that same endpoint (endpoint NULL: at any), or the
 * store (sw_kube_set_store) holds it there, its CA is reused and EKS is
 * not asked; else DescribeCluster as above.  *asked says whether a
 * request was sent.  Safe from several threads.
 */
sw_err sw_kube_connect_known(struct aws_ctx *, const char *cluster,
    const char *endpoint, struct sw_kube *kb, struct aws_error *err,
    int *asked);
/*
 * Remember the endpoint and CA of a DescribeCluster answer already read
 * (doc borrowed) for later sw_kube_connect_known calls.  SW_OK, or an
 * error when the answer has no endpoint or CA yet.
 */
sw_err sw_kube_remember(const char *cluster, json_object *doc);
/* Forget what this process saw of cluster's endpoint and CA, and what
 * the store holds: the next connect asks EKS (a caller whose calls at
 * them failed). */
void sw_kube_forget(const char *cluster);
/*
 * Where a process keeps the endpoints and CAs it learns beyond its own
 * memory, for the other processes and replicas: the poller's is the
 * cluster's record in the database (lib/ops.h sw_cluster_access_*).
 * get gives malloc'd copies, SW_OK or an error for none; put with
 * endpoint NULL forgets.  Called from the thread that set the store
 * only, so a process with threads of its own sets none.
 */
struct sw_kube_store {
	sw_err (*get)(void *arg, const char *cluster, char **endpoint,
	    char **pem, size_t *pemlen);
	sw_err (*put)(void *arg, const char *cluster, const char *endpoint,
	    const char *pem);
	void *arg;
};
/* Use store (copied; NULL: none) from now on. */
void sw_kube_set_store(const struct sw_kube_store *store);
void sw_kube_close(struct sw_kube *);
/*
 * Is pod (a Pod object, borrowed) one of a Slipway workload's: labelled
 * as managed by Slipway?  The one rule for whose logs are served, by
 * REST's training_job_logs and by the stream's pod logs alike.
 */
int sw_kube_pod_ours(json_object *pod);

/*
 * Is obj (borrowed) ours, or controlled, through its controller owner
 * references read one after the other (a pod's ReplicaSet, its
 * Deployment, the operator resource that made it: at most
 * SW_KUBE_OWNER_DEPTH steps), by an object labelled as managed by
 * Slipway?  An inference operator's or JumpStart's pods are this way.
 * 0 when an owner cannot be read.
 */
int sw_kube_controlled_by_us(struct sw_kube *, json_object *obj);

#endif
