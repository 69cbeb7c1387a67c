/*
 * inference.h: what the inference handlers share.  inference.c deploys,
 * lists, reads and deletes endpoints; inference_ops.c calls one
 * (inference_invoke) and scales it (inference_scale).  Ownership as in
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

#endif
