/*
 * manifests.h: the manifest builders of the workload handlers, apart
 * from the Kubernetes and AWS calls around them.  A handler reads and
 * checks its request's validated input with the *_read or *_check
 * function (the cross-field rules the operation table cannot say), asks
 * the cluster what it needs to know, then calls the builder, which
 * talks to no server and returns the manifests the handler applies.
 * The handlers call these; so does fuzz/fuzz_manifests.c, which feeds
 * them requests the router accepted.  Ownership as in workloads.h.
 */
#ifndef SW_HANDLERS_MANIFESTS_H
#define SW_HANDLERS_MANIFESTS_H

#include <stdint.h>

#include "handlers/workloads.h"

/* ---- training_job_submit (handlers/training.c) ----------------------- */

/* The inputs of a training job; strings are borrowed from r->args. */
struct train {
	const char *cluster, *job, *ns, *pvc, *image;
	const char *dataset, *model, *entry, *config;
	const char *instance_type, *mlflow;
	const char *resume; /* under /data/outputs/ */
	json_object *args; /* the request; borrowed */
	const char *sa; /* tiered-storage-sa or NULL */
	const struct recipe *recipe;
	int ray, own_image, agent_install;
	int checkpointless; /* in-process recovery */
	int tiered; /* tiered_checkpointing: 1, 0, -1 unset */
	int64_t nodes, gpus, efa, max_steps;
	json_object *env; /* borrowed map */
	json_object *logmon; /* borrowed, or NULL */
	json_object *elastic; /* borrowed, or NULL */
	char team_ns[64]; /* from a team queue */
};

/* Fill t from r->args and apply the cross-field rules; 400 with the
 * fields named when one fails.  t->sa is left NULL for the caller. */
sw_err wl_train_read(struct sw_req *, struct train *t);
/* The HyperPodPyTorchJob or RayJob of t (new), or NULL with the
 * problem filled. */
json_object *wl_train_manifest(struct sw_req *, const struct train *t);
/* The annotation where a job keeps the request that made it (without
 * the cluster and dry_run), so checkpoint_resume can submit it again. */
#define WL_SUBMIT_SPEC "slipway.io/submit-spec"

/* ---- model_download (handlers/models.c) ------------------------------ */

/* A model download; strings without storage are borrowed from r->args. */
struct download {
	const char *cluster, *model, *ns, *pvc, *token, *target;
	char name[64]; /* the Job */
	char dest[WL_MAX_WORD]; /* /data/models/<target> */
	char secret[96]; /* <name>-hf-token */
	char workers[16];
	char team_ns[64]; /* from a team queue */
};

/* Fill d from r->args (a random Job name unless job_name is given);
 * 400 for a target that starts with a dot. */
sw_err wl_download_read(struct sw_req *, struct download *d);
/* The download Job of d (new). */
json_object *wl_download_job(struct sw_req *, const struct download *d);

/* ---- inference_deploy (handlers/inference*.c) ------------------------ */

/* The cross-field rules of a self-hosted endpoint; 400 on failure. */
sw_err inf_selfhosted_check(struct sw_req *);
/* Append the Deployment, the router's objects (router: true), the
 * Service and the ScaledObject (autoscaling) of a self-hosted endpoint
 * to list.  The problem is filled on failure. */
sw_err inf_selfhosted_manifests(struct sw_req *, json_object *list);
/*
 * Kind managed (managed != 0) or jumpstart: check the request and
 * build the operator's resource (*cr) and the IAM policy for its
 * buckets (*policy), both new; bucket (64 bytes) gets the TLS bucket's
 * name in region.  400 with the fields named on failure.
 */
sw_err inf_managed_build(struct sw_req *, int managed, const char *region,
    char bucket[64], json_object **cr, json_object **policy);

#endif
