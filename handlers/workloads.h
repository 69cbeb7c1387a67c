/*
 * workloads.h: what the workload handlers share, and nothing else uses.
 * The handlers are one file per job: training.c (training_job_submit
 * and its manifests), jobs.c (finding, listing, reading and deleting
 * jobs of every kind), logs.c (training_job_logs and its metrics),
 * models.c (model_download), inference.c (inference_*) and spaces.c
 * (space_*, HyperPod Spaces).  They share
 * kube.c, the Kubernetes plumbing (apply, get, list and delete with the
 * request's problem filled on failure, the labels, the manifest pieces
 * every pod gets, namespace and PVC mirroring, the answers), and
 * workloads.c, the catalogue of the images and programs they run
 * (docs/images.md describes each one).
 *
 * Ownership, as everywhere: json-c arguments are borrowed unless a
 * comment says stolen; a returned json_object is a new reference the
 * caller puts.  A function that takes a struct sw_req fills its problem
 * (sw_req_fail) when it fails, unless its comment says otherwise.
 */
#ifndef SW_HANDLERS_WORKLOADS_H
#define SW_HANDLERS_WORKLOADS_H

#include <stdint.h>

#include "handlers/handlers.h"
#include "lib/json.h"
#include "cloud/kube.h"

/* Labels on everything we create; workloads are found by them. */
#define WL_MANAGED SW_KUBE_MANAGED_BY
#define WL_JOB "slipway.dev/job"
#define WL_INF "slipway.dev/inference"
#define WL_ROLE "slipway.dev/role"
/* The person or service account whose request wrote the object (an
 * annotation on every object a request applies). */
#define WL_REQUESTED_BY "slipway.dev/requested-by"
#define WL_ENGINE "slipway.dev/engine"
#define WL_HEALTH "sagemaker.amazonaws.com/node-health-status"
#define WL_GPU "nvidia.com/gpu"
#define WL_EFA "vpc.amazonaws.com/efa"

/* One argv word or path we build (lib/limits.h holds the library's). */
#define WL_MAX_WORD 1024

/* ---- the catalogue (handlers/workloads.c) ---------------------------- */

/* The kinds a recipe runs as (struct recipe's kinds). */
#define KIND_HPJ 0x01
#define KIND_RAY 0x02

/*
 * A recipe: the images, the program and how the S3 contract's paths
 * are passed.  Options are "--flag value" pairs, or "key=value" words
 * when kv is set; a NULL option is not passed.  log_pattern matches the
 * progress line the program prints: the training operator calls a job
 * hanging when none comes within start_s of the start or hang_s of the
 * last one (docs/images.md).
 */
struct recipe {
	const char *name;
	unsigned kinds;
	const char *image; /* hyperpod-pytorch */
	const char *ray_image; /* ray */
	const char *ray_pip; /* runtime env pip package, or NULL */
	const char *program; /* NULL: /data/code/<entry> */
	int module; /* program is a Python module */
	int config; /* 0 none, 1 optional, 2 required */
	int kv;
	const char *opt_dataset, *opt_model, *opt_output, *opt_steps;
	const char *opt_nodes, *opt_gpus;
	const char *log_pattern;
	int start_s, hang_s;
};

/* An engine: image, port, argv and its Prometheus metrics (facts §5-6). */
struct engine {
	const char *name, *image;
	int port;
	const char *m_queue, *m_running, *m_kv;
};

/* The recipes and engines, each table ended by a row with a NULL name. */
extern const struct recipe wl_recipes[];
extern const struct engine wl_engines[];

/* The shell line that installs the elastic agent, then execs
 * hyperpodrun "$@" (the shell never parses a word the user sent). */
extern const char wl_agent_sh[];
/* Ray's own image for RayJob clusters, and the Ray version it runs. */
extern const char wl_ray_image[];
extern const char wl_ray_version[];
/* The SGLang router's image (the model download Job's is the default of
 * its row's "image", api/ops/inference.c). */
extern const char wl_router_image[];

/* ---- Kubernetes plumbing (handlers/kube.c) --------------------------- */

/* A client for cluster (h_kube).  kb is always safe to sw_kube_close(). */
sw_err wl_kube_open(struct sw_req *, const char *cluster, struct sw_kube *kb);

/* Server-side apply of manifest m; *out (out may be NULL) gets the
 * applied object, a new reference. */
sw_err wl_apply_one(
    struct sw_req *, struct sw_kube *, json_object *m, json_object **out);
/* Apply every manifest of list in order; each one's wl_manifest_ref is
 * added to refs (may be NULL). */
sw_err wl_apply_all(
    struct sw_req *, struct sw_kube *, json_object *list, json_object *refs);
/* {kind, name, namespace} of manifest m, for answers. */
json_object *wl_manifest_ref(json_object *m);

/* 1 when the CRD exists, 0 when not, -1 on error (problem filled). */
int wl_crd_present(struct sw_req *, struct sw_kube *, const char *crd);
/* 409 naming the feature to turn on with feature_set. */
sw_err wl_need_feature(
    struct sw_req *, const char *field, const char *feature, const char *what);

/* GET one object into *out (new reference).  SW_ENOTFOUND is returned
 * without filling the problem. */
sw_err wl_get_obj(struct sw_req *, struct sw_kube *, const char *api,
    const char *ns, const char *plural, const char *name, json_object **out);
/* List in ns (NULL: all namespaces) with a label selector (may be
 * NULL).  A 404 (the kind's CRD is absent) gives an empty list.
 * *items is a new reference to the items array. */
sw_err wl_list_objs(struct sw_req *, struct sw_kube *, const char *api,
    const char *ns, const char *plural, const char *selector,
    json_object **items);
/* RFC 7386 merge patch (borrowed) of one object; *out (may be NULL)
 * gets the patched object. */
sw_err wl_patch_obj(struct sw_req *, struct sw_kube *, const char *api,
    const char *ns, const char *plural, const char *name, json_object *patch,
    json_object **out);
/* Delete; 1 deleted, 0 was not there, -1 on error (problem filled). */
int wl_delete_obj(struct sw_req *, struct sw_kube *, const char *api,
    const char *ns, const char *plural, const char *name);

/* Manifest pieces; each returns a new object. */
json_object *wl_env_var(const char *name, const char *value);
/* The "data" volume on PVC pvc (the S3 contract) and a Memory "shm". */
json_object *wl_data_volumes(const char *pvc, int read_only);
/* Their mounts: /data and /dev/shm. */
json_object *wl_data_mounts(int read_only);
/* Healthy HyperPod nodes, of instance_type when not NULL. */
json_object *wl_node_selector(const char *instance_type);
/* Tolerate the GPU taint. */
json_object *wl_gpu_tolerations(void);
/* limits = requests = {gpu: gpus, efa: efa (when > 0)}. */
json_object *wl_accel_resources(int64_t gpus, int64_t efa);
/* The labels of a job's objects and pods. */
json_object *wl_job_labels(const char *job);

/* The string at key of o, or dflt (o's string is borrowed from o). */
const char *wl_str_or(json_object *o, const char *key, const char *dflt);
/* o's namespace, else hyperpod-ns-<team> when o's queue is the team's
 * hyperpod-ns-<team>-localqueue (written into buf), else dflt. */
const char *wl_ns_or(json_object *o, char *buf, size_t sz, const char *dflt);

/*
 * Storage and namespace for a workload in ns: appends to list the
 * Namespace (unless "default") and, when ns (not "default") has no PVC
 * pvc and the claim was not named (named == 0), a mirror of
 * default/<pvc>'s volume.
 * A PVC that is absent is a 409 naming the field "pvc".
 */
sw_err wl_storage_plan(struct sw_req *, struct sw_kube *, const char *cluster,
    const char *ns, const char *pvc, int named, json_object *list);

/* The dry-run answer: list (stolen) and extra's members (extra stolen,
 * may be NULL). */
sw_err wl_answer_plan(struct sw_req *, json_object *list, json_object *extra);
/* The answer of a mutation: o (stolen) with refs (stolen) as "applied"
 * and the row's status tool and poll interval. */
void wl_answer_applied(
    struct sw_req *, int status, json_object *o, json_object *refs);

/* ---- fitting the cluster (handlers/fit.c) ----------------------------- */

/* A workload's request on one node, and the fields that carry it. */
struct wl_fit {
	const char *cluster;
	const char *instance_type; /* ml.*, or NULL: any type */
	int64_t gpus, efa;
	const char *gpu_field, *efa_field;
};

/*
 * 400 naming the field (and the largest node) when no instance type of
 * the cluster's HyperPod groups can hold the request, or when
 * instance_type is not one of them.  SW_OK when it fits, or when the
 * cluster's groups or their types cannot be read.
 */
sw_err wl_check_fit(struct sw_req *, const struct wl_fit *);

/* An instance type of the cluster's groups a pod can run on. */
struct wl_fit_type {
	char name[64]; /* ml.<type> */
	int64_t gpus; /* its GPUs */
};
/*
 * The types of the cluster's groups with at least gpus GPUs (only
 * itype, when not NULL) into out (at most max): their count, or -1
 * when the groups or their facts cannot be read.
 */
int wl_fit_types(struct sw_req *, const char *cluster, const char *itype,
    int64_t gpus, struct wl_fit_type *out, int max);

/* ---- finding jobs (handlers/jobs.c) ----------------------------------- */

/* The kinds a "job" can be: what training_job_* look through. */
struct job_kind {
	const char *api, *plural, *kind, *type;
};

/*
 * Find job (in ns, or in any namespace when ns is NULL) among the kinds
 * we create.  *obj is a new reference, *kind a row of static storage.
 * 404, or 409 when it is in more than one namespace.
 */
sw_err wl_job_find(struct sw_req *, struct sw_kube *, const char *ns,
    const char *job, json_object **obj, const struct job_kind **kind);
/* The pods of job object obj, sorted by name; *pods is a new array. */
sw_err wl_job_pods(
    struct sw_req *, struct sw_kube *, json_object *obj, json_object **pods);
/* Pending, Running, Succeeded or Failed (static strings) from the
 * job's own status. */
const char *wl_job_state(const struct job_kind *, json_object *o);
/*
 * Why a job in state Pending waits, or NULL for any other state
 * (handlers/pending.c): {queue, cluster_queue, position, admitted,
 * reason, message, next_step, detail}.  pods are the job's; wls, lqs
 * and cqs Kueue's Workloads, LocalQueues and ClusterQueues (each may
 * be empty).  A new object.
 */
/* A Kubernetes quantity as a number ("500m" 0.5, "2Gi" in bytes). */
double wl_qty(json_object *v);
/* Why pods are not all running, from the pods alone: {reason, message,
 * next_step, detail}.  A new object. */
json_object *wl_pods_pending(json_object *pods);
/* Why an endpoint's pods are not all ready: the first pod that names a
 * Kueue queue and whose Workload (wls; lqs and cqs as for
 * wl_job_pending, any may be NULL) is not admitted answers as a job
 * would; else wl_pods_pending.  A new object. */
json_object *wl_endpoint_pending(
    json_object *pods, json_object *wls, json_object *lqs, json_object *cqs);
json_object *wl_job_pending(json_object *job, const char *state,
    json_object *pods, json_object *wls, json_object *lqs, json_object *cqs);
/*
 * An elastic HyperPodPyTorchJob's size, or NULL for any other job:
 * {min_nodes, max_nodes, increment_step, nodes (what Kueue admits now),
 * running, admitted, reason (AtMax, Scaling, Shrunk, NotAdmitted),
 * message, next_step, detail (the Workload's last resize event, when
 * events, the namespace's, are given)}.  A new object.
 */
json_object *wl_job_elastic(json_object *job, json_object *pods,
    json_object *wls, json_object *cqs, json_object *events);

#endif
