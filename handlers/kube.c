/*
 * kube.c: the Kubernetes plumbing the workload handlers share.  Each
 * call fills the request's problem when it fails, so a handler only
 * checks the result and goes to its cleanup: apply one manifest or a
 * list of them (server-side apply), get, list by label and delete, and
 * ask whether a CRD is installed.  It also builds the pieces given to
 * every workload pod (the S3 contract's /data volume and mounts, GPU
 * and EFA resources, node selection and tolerations, labels) and the
 * answers of dry runs and mutations.
 *
 * All workloads share one S3 data contract: the PVC (s3-claim unless
 * given) is mounted at /data, with datasets under /data/datasets,
 * models under /data/models, outputs under /data/outputs/<job>, code
 * under /data/code and recipe configs under /data/configs.  A namespace
 * without the PVC gets a mirror of default/s3-claim's volume (a static
 * PV on the same bucket and a PVC bound to it): wl_storage_plan().
 */
#include <stdio.h>
#include <string.h>

#include "handlers/workloads.h"
#include "pipelines/volumes.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"
#include "api/optable.h"

/* ---- Kubernetes plumbing ------------------------------------------------ */

/* A client for cluster; on failure the problem is filled. */
sw_err
wl_kube_open(struct sw_req *r, const char *cluster, struct sw_kube *kb)
{
	return h_kube(r, cluster, kb);
}

/* A failed Kubernetes call as the request's problem. */
static sw_err
kube_fail(struct sw_req *r, sw_err e, const struct k8s_error *ke,
    const char *verb, const char *what)
{
	if (e == SW_EINVAL || e == SW_EFORBIDDEN)
		e = SW_EUPSTREAM;
	return sw_req_fail(r, e, "Kubernetes %s %s: %s", verb, what,
	    ke->message[0]      ? ke->message
		: ke->reason[0] ? ke->reason
				: "failed");
}

/* Lower-case kind + "s" ("es" after s): every kind we use. */
static void
kind_plural(const char *kind, char *out, size_t outsz)
{
	size_t i;

	for (i = 0; kind[i] != '\0' && i + 3 < outsz; i++)
		out[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] + 32
								 : kind[i]);
	if (i > 0 && out[i - 1] == 's')
		out[i++] = 'e';
	out[i++] = 's';
	out[i] = '\0';
}

/* The API path of a manifest (borrowed). */
static sw_err
manifest_path(json_object *m, char *path, size_t pathsz)
{
	char plural[64];
	const char *kind = sw_json_get_str(m, "kind");

	if (kind == NULL)
		return SW_EINVAL;
	kind_plural(kind, plural, sizeof(plural));
	return k8s_path(path, pathsz, sw_json_get_str(m, "apiVersion"),
	    sw_json_path_str(m, "metadata.namespace"), plural,
	    sw_json_path_str(m, "metadata.name"));
}

/* Name the caller on m (WL_REQUESTED_BY), so kubectl shows who asked. */
static void
annotate_requester(const struct sw_req *r, json_object *m)
{
	json_object *meta = sw_json_get(m, "metadata"), *ann;

	if (r->who.name[0] == '\0' || meta == NULL ||
	    !json_object_is_type(meta, json_type_object))
		return;
	if ((ann = sw_json_get(meta, "annotations")) == NULL ||
	    !json_object_is_type(ann, json_type_object)) {
		ann = json_object_new_object();
		json_object_object_add(meta, "annotations", ann);
	}
	sw_json_add_str(ann, WL_REQUESTED_BY, r->who.name);
}

/*
 * Server-side apply of one manifest (borrowed); *out (may be NULL) gets
 * the applied object.  On failure the problem is filled.  The object is
 * annotated with the person (or service account) who asked.
 */
sw_err
wl_apply_one(
    struct sw_req *r, struct sw_kube *kb, json_object *m, json_object **out)
{
	char path[512], what[160];
	struct k8s_error ke;
	sw_err e;

	sw_fmt_text(what, sizeof(what), "%s/%s", sw_json_get_str(m, "kind"),
	    sw_json_path_str(m, "metadata.name"));
	if (manifest_path(m, path, sizeof(path)) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "no API path for %s", what);
	annotate_requester(r, m);
	memset(&ke, 0, sizeof(ke));
	if ((e = k8s_apply(&kb->k, path, m, out, &ke)) != SW_OK)
		return kube_fail(r, e, &ke, "apply", what);
	return SW_OK;
}

/* {kind, name, namespace} of a manifest, for answers.  New reference. */
json_object *
wl_manifest_ref(json_object *m)
{
	const char *ns = sw_json_path_str(m, "metadata.namespace");

	return sw_jo("kind", sw_js(sw_json_get_str(m, "kind")), "name",
	    sw_js(sw_json_path_str(m, "metadata.name")), "namespace",
	    ns ? sw_js(ns) : NULL, NULL);
}

/* Apply every manifest of list in order; refs (may be NULL) gets refs. */
sw_err
wl_apply_all(
    struct sw_req *r, struct sw_kube *kb, json_object *list, json_object *refs)
{
	size_t i;

	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *m = json_object_array_get_idx(list, i);

		if (wl_apply_one(r, kb, m, NULL) != SW_OK)
			return r->err;
		if (refs != NULL)
			json_object_array_add(refs, wl_manifest_ref(m));
	}
	return SW_OK;
}

/* 1 when the CRD exists, 0 when not, -1 (problem filled) on error. */
int
wl_crd_present(struct sw_req *r, struct sw_kube *kb, const char *crd)
{
	char path[256];
	struct k8s_error ke;
	json_object *out = NULL;
	sw_err e;

	if (k8s_path(path, sizeof(path), "apiextensions.k8s.io/v1", NULL,
		"customresourcedefinitions", crd) != SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "bad CRD name %s", crd);
		return -1;
	}
	memset(&ke, 0, sizeof(ke));
	e = k8s_get(&kb->k, path, &out, &ke);
	json_object_put(out);
	if (e == SW_OK)
		return 1;
	if (e == SW_ENOTFOUND)
		return 0;
	kube_fail(r, e, &ke, "get", crd);
	return -1;
}

/* 409 that names the feature to turn on with feature_set. */
sw_err
wl_need_feature(
    struct sw_req *r, const char *field, const char *feature, const char *what)
{
	sw_ferr_add(&r->ferrs, field, "feature",
	    "needs %s: enable feature "
	    "%s with feature_set",
	    what, feature);
	return sw_req_fail(r, SW_ECONFLICT,
	    "%s is not installed on this "
	    "cluster: enable it with feature_set %s, then submit again",
	    what, feature);
}

/* GET one object; SW_ENOTFOUND is returned without filling a problem. */
sw_err
wl_get_obj(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name, json_object **out)
{
	char path[512];
	struct k8s_error ke;
	sw_err e;

	*out = NULL;
	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
	memset(&ke, 0, sizeof(ke));
	e = k8s_get(&kb->k, path, out, &ke);
	if (e == SW_OK || e == SW_ENOTFOUND)
		return e;
	return kube_fail(r, e, &ke, "get", name);
}

/*
 * List (ns may be NULL: all namespaces) with a label selector.  A 404
 * (the kind's CRD is absent) gives an empty list.  *items is a new
 * reference to the items array.
 */
sw_err
wl_list_objs(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *selector,
    json_object **items)
{
	char path[512];
	struct k8s_error ke;
	json_object *out = NULL;
	sw_err e;

	*items = NULL;
	if (k8s_path(path, sizeof(path), api, ns, plural, NULL) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", plural);
	memset(&ke, 0, sizeof(ke));
	e = k8s_list(&kb->k, path, selector, &out, &ke);
	if (e == SW_ENOTFOUND) {
		*items = json_object_new_array();
		return SW_OK;
	}
	if (e != SW_OK)
		return kube_fail(r, e, &ke, "list", plural);
	*items = json_object_get(sw_json_get(out, "items"));
	if (*items == NULL)
		*items = json_object_new_array();
	json_object_put(out);
	return SW_OK;
}

/* Merge-patch one object; *out (may be NULL) gets the result.  A 404
 * is SW_ENOTFOUND with the problem filled. */
sw_err
wl_patch_obj(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name, json_object *patch,
    json_object **out)
{
	char path[512];
	struct k8s_error ke;
	sw_err e;

	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
	memset(&ke, 0, sizeof(ke));
	if ((e = k8s_merge_patch(&kb->k, path, patch, out, &ke)) != SW_OK)
		return kube_fail(r, e, &ke, "patch", name);
	return SW_OK;
}

/* Delete; 404 counts as done.  Returns 1 when something was deleted. */
int
wl_delete_obj(struct sw_req *r, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name)
{
	char path[512];
	struct k8s_error ke;
	sw_err e;

	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK) {
		sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
		return -1;
	}
	memset(&ke, 0, sizeof(ke));
	e = k8s_delete(&kb->k, path, &ke);
	if (e == SW_OK)
		return 1;
	if (e == SW_ENOTFOUND)
		return 0;
	kube_fail(r, e, &ke, "delete", name);
	return -1;
}

/* ---- manifest pieces ---------------------------------------------------- */

json_object *
wl_env_var(const char *name, const char *value)
{
	return sw_jo("name", sw_js(name), "value", sw_js(value), NULL);
}

json_object *
wl_data_volumes(const char *pvc, int read_only)
{
	return sw_ja(sw_jo("name", sw_js("data"), "persistentVolumeClaim",
			 sw_jo("claimName", sw_js(pvc), "readOnly",
			     read_only ? sw_jb(1) : NULL, NULL),
			 NULL),
	    sw_jo("name", sw_js("shm"), "emptyDir",
		sw_jo("medium", sw_js("Memory"), NULL), NULL));
}

json_object *
wl_data_mounts(int read_only)
{
	return sw_ja(sw_jo("name", sw_js("data"), "mountPath", sw_js("/data"),
			 "readOnly", read_only ? sw_jb(1) : NULL, NULL),
	    sw_jo("name", sw_js("shm"), "mountPath", sw_js("/dev/shm"), NULL));
}

/* Node selection: healthy HyperPod nodes, of one type when given. */
json_object *
wl_node_selector(const char *instance_type)
{
	return sw_jo(WL_HEALTH, sw_js("Schedulable"),
	    "node.kubernetes.io/instance-type",
	    instance_type ? sw_js(instance_type) : NULL, NULL);
}

json_object *
wl_gpu_tolerations(void)
{
	return sw_ja(sw_jo("key", sw_js(WL_GPU), "operator", sw_js("Exists"),
	    "effect", sw_js("NoSchedule"), NULL));
}

/* limits = requests = {gpu: g, efa: e (when > 0)}. */
json_object *
wl_accel_resources(int64_t gpus, int64_t efa)
{
	json_object *lim = json_object_new_object(), *req = NULL;

	json_object_object_add(lim, WL_GPU, sw_ji(gpus));
	if (efa > 0)
		json_object_object_add(lim, WL_EFA, sw_ji(efa));
	json_object_deep_copy(lim, &req, NULL);
	return sw_jo("limits", lim, "requests", req, NULL);
}

static json_object *
namespace_manifest(const char *ns)
{
	return sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Namespace"),
	    "metadata",
	    sw_jo("name", sw_js(ns), "labels",
		sw_jo(WL_MANAGED, sw_js("slipway"), NULL), NULL),
	    NULL);
}

/* The labels a job's objects and pods are found by. */
json_object *
wl_job_labels(const char *job)
{
	return sw_jo(WL_MANAGED, sw_js("slipway"), WL_JOB, sw_js(job), NULL);
}

/* A string field of the request's input, or its default. */
const char *
wl_str_or(json_object *o, const char *key, const char *dflt)
{
	const char *s = sw_json_get_str(o, key);

	return s != NULL ? s : dflt;
}

/*
 * The namespace of the request: its namespace, else the team namespace
 * hyperpod-ns-<team> of a team queue hyperpod-ns-<team>-localqueue it
 * names (HyperPod's queue of a compute quota admits that namespace
 * only), else dflt.  buf holds the team namespace.
 */
const char *
wl_ns_or(json_object *o, char *buf, size_t sz, const char *dflt)
{
	static const char pre[] = "hyperpod-ns-", suf[] = "-localqueue";
	const char *q = sw_json_get_str(o, "queue");
	size_t n;

	if (sw_json_get_str(o, "namespace") != NULL)
		return sw_json_get_str(o, "namespace");
	if (q == NULL || (n = strlen(q)) <= sizeof(pre) - 1 + sizeof(suf) - 1 ||
	    strncmp(q, pre, sizeof(pre) - 1) != 0 ||
	    strcmp(q + n - (sizeof(suf) - 1), suf) != 0 ||
	    n - (sizeof(suf) - 1) >= sz)
		return dflt;
	memcpy(buf, q, n - (sizeof(suf) - 1));
	buf[n - (sizeof(suf) - 1)] = '\0';
	return buf;
}

/*
 * Storage and namespace for a workload in ns: appends to list the
 * Namespace (unless "default") and, when ns has no PVC pvc and pvc is
 * the default claim, a mirror of default/<pvc>'s volume (a static PV
 * on the same bucket with its own volumeHandle, and a PVC bound to it).
 * A PVC that is absent is a 409 naming the field.
 */
sw_err
wl_storage_plan(struct sw_req *r, struct sw_kube *kb, const char *cluster,
    const char *ns, const char *pvc, int named, json_object *list)
{
	json_object *claim = NULL, *src = NULL, *pv = NULL, *spec, *csi;
	json_object *mirror_pv, *mirror_pvc;
	const char *vol;
	char pvname[200];
	sw_err e;

	if (strcmp(ns, "default") != 0)
		json_object_array_add(list, namespace_manifest(ns));
	if ((e = wl_get_obj(r, kb, "v1", ns, "persistentvolumeclaims", pvc,
		 &claim)) == SW_OK) {
		json_object_put(claim);
		return SW_OK;
	}
	if (e != SW_ENOTFOUND)
		return e;
	if (named || strcmp(ns, "default") == 0)
		goto absent;
	if ((e = wl_get_obj(r, kb, "v1", "default", "persistentvolumeclaims",
		 pvc, &src)) == SW_ENOTFOUND)
		goto absent;
	if (e != SW_OK)
		return e;
	vol = sw_json_path_str(src, "spec.volumeName");
	if (vol == NULL ||
	    (e = wl_get_obj(
		 r, kb, "v1", NULL, "persistentvolumes", vol, &pv)) != SW_OK) {
		json_object_put(src);
		if (r->err != SW_OK)
			return r->err;
		return sw_req_fail(r, SW_ECONFLICT,
		    "PVC default/%s is not "
		    "bound to a volume yet",
		    pvc);
	}
	if (sw_fmt(pvname, sizeof(pvname), "%s-%s-%s", pvc, ns, cluster) !=
	    SW_OK) {
		json_object_put(src);
		json_object_put(pv);
		return sw_req_fail(r, SW_EINVAL,
		    "the volume name for PVC %s "
		    "in %s is too long",
		    pvc, ns);
	}
	spec = sw_json_get(pv, "spec");
	csi = NULL;
	json_object_deep_copy(sw_json_get(spec, "csi"), &csi, NULL);
	if (csi == NULL) {
		json_object_put(src);
		json_object_put(pv);
		return sw_req_fail(r, SW_ECONFLICT,
		    "volume %s of default/%s "
		    "is not a CSI volume; create PVC %s in %s first",
		    vol, pvc, pvc, ns);
	}
	sw_json_add_str(csi, "volumeHandle", pvname);
	sw_pv_pair_build(
	    &(struct sw_pv_pair){ .pv = pvname,
		.ns = ns,
		.claim = pvc,
		.capacity = json_object_get(sw_json_get(spec, "capacity")),
		.request = "1Gi",
		.mount_options =
		    json_object_get(sw_json_get(spec, "mountOptions")),
		.csi = csi,
		.flags = SW_PV_RETAIN | SW_PV_LABELLED | SW_PVC_LABELLED },
	    &mirror_pv, &mirror_pvc);
	json_object_array_add(list, mirror_pv);
	json_object_array_add(list, mirror_pvc);
	json_object_put(src);
	json_object_put(pv);
	return SW_OK;
absent:
	sw_ferr_add(&r->ferrs, "pvc", "exists",
	    "no PVC %s in namespace %s; "
	    "set up S3 storage for the cluster first",
	    pvc, ns);
	return sw_req_fail(
	    r, SW_ECONFLICT, "no PVC %s in namespace %s", pvc, ns);
}

/* The dry-run answer: the manifests that would be applied (stolen). */
sw_err
wl_answer_plan(struct sw_req *r, json_object *list, json_object *extra)
{
	json_object *o = sw_jo("dry_run", sw_jb(1), "manifests", list, NULL);

	if (extra != NULL) {
		json_object_object_foreach(extra, k, v)
		    json_object_object_add(o, k, json_object_get(v));
		json_object_put(extra);
	}
	sw_req_reply(r, 200, o);
	return SW_OK;
}

/* The answer of a mutation: what was applied and how to follow it. */
void
wl_answer_applied(
    struct sw_req *r, int status, json_object *o, json_object *refs)
{
	json_object_object_add(o, "applied", refs);
	json_object_object_add(o, "status_tool", sw_js(r->op->status_tool));
	json_object_object_add(
	    o, "poll_interval_seconds", sw_ji(r->op->poll_seconds));
	sw_req_reply(r, status, o);
}
