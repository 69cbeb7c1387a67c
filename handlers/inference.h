/*
 * inference.h: what the inference handlers share.  inference.c deploys,
 * lists, reads and deletes endpoints; inference_ops.c calls one
 * (inference_invoke) and scales it (inference_scale);
 * inference_managed.c writes and removes the inference operator's
 * resources (kind managed and jumpstart); inference_pool.c runs the
 * hot GPU pool and its endpoints (exposure pool).  Ownership as in
 * workloads.h: arguments borrowed, returned objects new references.
 */
#ifndef SW_HANDLERS_INFERENCE_H
#define SW_HANDLERS_INFERENCE_H

#include "handlers/workloads.h"

/* A pool pod's pool, and the endpoint it is assigned to (absent: free). */
#define WL_POOL "slipway.dev/pool"
#define WL_ASSIGNED "slipway.dev/assigned-to"

/* The model name the endpoint's server answers to, on its Service. */
#define INF_SERVED "slipway.dev/served-model"

/* Cross-field rules of an autoscaling object (ferrs filled). */
void inf_check_autoscaling(struct sw_req *, json_object *as);
/* Whether KEDA serves ScaledObjects in the cluster: 1; 0 with a 409
 * naming feature_set inference_operator; -1 when the read failed. */
int inf_keda_present(struct sw_req *, struct sw_kube *);
/* The server command of engine en serving model (a directory under
 * /data/models/) as served on gpus GPUs.  New array. */
json_object *inf_engine_argv(const struct engine *en, const char *model,
    const char *served, int64_t gpus);
/* The KEDA ScaledObject for endpoint name's server Deployment; NULL

 * with the problem filled. */
json_object *inf_scaled_object(struct sw_req *, const struct engine *,
    const char *ns, const char *name, json_object *as);
/* The one object of endpoint name that sel matches in ns (NULL: any):
 * 404 with the text missing when there is none, 409 when the name is
 * in more than one namespace.  *obj is a new reference. */
sw_err inf_one(struct sw_req *, struct sw_kube *, const char *api,
    const char *ns, const char *plural, const char *sel, const char *name,
    const char *missing, json_object **obj);
/* The server Deployment of endpoint name in ns (NULL: any): 404 when
 * there is none, 409 when the name is in more than one namespace. */
sw_err inf_find(struct sw_req *, struct sw_kube *, const char *ns,
    const char *name, json_object **dep);

/* The pods of the request's endpoint ("endpoint", "namespace"), of
 * any kind, found as inference_get finds the endpoint: a self-hosted
 * one's server and router pods, a pool endpoint's assigned pods, a
 * managed or JumpStart one's pods of the Deployment the operator made
 * (none before it made one).  *pods a new array, *kind the endpoint's
 * kind (self-hosted, pool, managed, jumpstart), ns its namespace. */
sw_err inf_endpoint_pods(struct sw_req *, struct sw_kube *, json_object **pods,
    const char **kind, char *ns, size_t nssz);

/* ---- managed and JumpStart endpoints (inference_managed.c) ---------- */

/* A kind of endpoint the inference operator runs. */
struct inf_kind {
	const char *name; /* managed, jumpstart */
	const char *kind, *plural; /* the custom resource */
};
/* The kinds, ended by a row with a NULL name. */
extern const struct inf_kind inf_kinds[];

/* The S3 bucket the operator writes endpoint name's TLS certificate
 * to (deterministic; out gets at most 63 characters). */
sw_err inf_tls_bucket(const char *region, const char *cluster, const char *ns,
    const char *name, char *out, size_t outsz)
    __attribute__((warn_unused_result));

/* inference_deploy with kind managed (managed != 0) or jumpstart. */
sw_err inf_deploy_managed(struct sw_req *, struct sw_kube *, int managed);
/* The operator's resource for endpoint name that Slipway made: 1 with
 * *obj (new ref) and *kind set, 0 when there is none, -1 on error. */
int inf_managed_find(struct sw_req *, struct sw_kube *, const char *ns,
    const char *name, json_object **obj, const struct inf_kind **kind);
/* The Service the operator made for cr (owned by it); 503 when it has
 * not made one yet.  *svc is a new reference. */
sw_err inf_managed_service(
    struct sw_req *, struct sw_kube *, json_object *cr, json_object **svc);
/* One managed endpoint as answered (new object). */
json_object *inf_managed_summary(json_object *cr, const struct inf_kind *);
/* inference_delete of cr: the resource, its bucket and its policy. */
sw_err inf_delete_managed(struct sw_req *, struct sw_kube *, json_object *cr,
    const struct inf_kind *);
/* inference_scale of cr: spec.replicas or spec.autoScalingSpec. */
sw_err inf_scale_managed(struct sw_req *, struct sw_kube *, json_object *cr,
    const struct inf_kind *);

/* ---- the hot GPU pool (inference_pool.c) ----------------------------- */

/* The Service of pool endpoint name (exposure pool): 1 with *svc (new
 * reference), 0 when name is not a pool endpoint, -1 on error. */
int inf_pool_endpoint(struct sw_req *, struct sw_kube *, const char *ns,
    const char *name, json_object **svc);
/* inference_deploy with exposure pool: the endpoint's Service only. */
sw_err inf_deploy_pool(struct sw_req *, struct sw_kube *);
/* A pool endpoint as answered, counting the pods (may be NULL)
 * assigned to it. */
json_object *inf_pool_summary(json_object *svc, json_object *pods);
/* inference_get and inference_delete of a pool endpoint; delete gives
 * its pods back to the pool. */
sw_err inf_pool_endpoint_get(
    struct sw_req *, struct sw_kube *, json_object *svc);
sw_err inf_pool_endpoint_delete(
    struct sw_req *, struct sw_kube *, json_object *svc);

#endif
