/*
 * inference.h: what the inference handlers share.  inference.c deploys,
 * lists, reads and deletes endpoints; inference_ops.c calls one
 * (inference_invoke) and scales it (inference_scale);
 * inference_managed.c writes and removes the inference operator's
 * resources (kind managed and jumpstart).  Ownership as in
 * workloads.h: arguments borrowed, returned objects new references.
 */
#ifndef SW_HANDLERS_INFERENCE_H
#define SW_HANDLERS_INFERENCE_H

#include "handlers/workloads.h"

/* The model name the endpoint's server answers to, on its Service. */
#define INF_SERVED	"slipway.dev/served-model"

/* Cross-field rules of an autoscaling object (ferrs filled). */
void	inf_check_autoscaling(struct sw_req *, json_object *as);
/* The KEDA ScaledObject for endpoint name's server Deployment; NULL
 * with the problem filled. */
json_object *inf_scaled_object(struct sw_req *, const struct engine *,
	    const char *ns, const char *name, json_object *as);
/* The server Deployment of endpoint name in ns (NULL: any): 404 when
 * there is none, 409 when the name is in more than one namespace. */
sw_err	inf_find(struct sw_req *, struct sw_kube *, const char *ns,
	    const char *name, json_object **dep);

/* ---- managed and JumpStart endpoints (inference_managed.c) ---------- */

/* A kind of endpoint the inference operator runs. */
struct inf_kind {
	const char	*name;		/* managed, jumpstart */
	const char	*kind, *plural;	/* the custom resource */
};
/* The kinds, ended by a row with a NULL name. */
extern const struct inf_kind inf_kinds[];

/* The S3 bucket the operator writes endpoint name's TLS certificate
 * to (deterministic; out gets at most 63 characters). */
void	inf_tls_bucket(const char *region, const char *cluster,
	    const char *ns, const char *name, char *out, size_t outsz);
/* inference_deploy with kind managed (managed != 0) or jumpstart. */
sw_err	inf_deploy_managed(struct sw_req *, struct sw_kube *, int managed);
/* The operator's resource for endpoint name that Slipway made: 1 with
 * *obj (new ref) and *kind set, 0 when there is none, -1 on error. */
int	inf_managed_find(struct sw_req *, struct sw_kube *, const char *ns,
	    const char *name, json_object **obj, const struct inf_kind **kind);
/* The Service the operator made for cr (owned by it); 503 when it has
 * not made one yet.  *svc is a new reference. */
sw_err	inf_managed_service(struct sw_req *, struct sw_kube *,
	    json_object *cr, json_object **svc);
/* One managed endpoint as answered (new object). */
json_object *inf_managed_summary(json_object *cr, const struct inf_kind *);
/* inference_delete of cr: the resource, its bucket and its policy. */
sw_err	inf_delete_managed(struct sw_req *, struct sw_kube *,
	    json_object *cr, const struct inf_kind *);
/* inference_scale of cr: spec.replicas or spec.autoScalingSpec. */
sw_err	inf_scale_managed(struct sw_req *, struct sw_kube *,
	    json_object *cr, const struct inf_kind *);

#endif
