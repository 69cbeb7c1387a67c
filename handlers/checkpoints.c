/*
 * checkpoints.c: a training job's checkpoints, where its trainer saves
 * them: <output_dir>/checkpoints/step-<N>/ on the job's /data volume.
 *
 *   training_checkpoint_list     the checkpoints with step, time, size
 *                                and complete or partial, the newest
 *                                complete one marked
 *   training_checkpoint_resume   a new job with the same spec (the
 *                                request the job recorded, WL_SUBMIT_SPEC)
 *                                and resume_from naming the checkpoint
 *   training_checkpoint_retain   keep the last N complete: the
 *                                checkpoint.retain operation deletes
 *                                the rest (pipelines/checkpoints.c)
 *
 * The job's volume says where the files are.  On an S3 Mountpoint
 * volume (s3.csi.aws.com) the directory is a key prefix of its bucket,
 * after the volume's own prefix mount option if it has one, and
 * ListObjectsV2 reads it.  FSx for Lustre content can only be read by
 * mounting the file system, which the control plane does not do: such
 * a job's answer says so (listed false, with the file system) instead
 * of listing anything.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/handlers.h"
#include "handlers/manifests.h"
#include "handlers/workloads.h"
#include "cloud/aws_api.h"
#include "lib/json.h"
#include "pipelines/checkpoints.h"

#define FSX_NOTE \
	"checkpoints on FSx for Lustre are not listed: the " \
	"file system's content is reached only by mounting it, and the " \
	"control plane has no mount (read it from a pod of the cluster)"

/* Where a job's checkpoints are. */
struct ckpt_where {
	json_object *job; /* the job object */
	const struct job_kind *kind;
	const char *ns; /* borrowed from job */
	const char *storage; /* s3, fsx or other (static) */
	char bucket[64];
	char fs_id[64];
	char prefix[1024]; /* ends in checkpoints/ */
	char note[320]; /* why S3 could not be read */
};

/* The pod spec of the job's template (borrowed), by kind. */
static json_object *
job_pod_spec(struct ckpt_where *w)
{
	if (strcmp(w->kind->plural, "hyperpodpytorchjobs") == 0)
		return sw_json_path(
		    w->job, "spec.replicaSpecs[0].template.spec");
	if (strcmp(w->kind->plural, "rayjobs") == 0)
		return sw_json_path(
		    w->job, "spec.rayClusterSpec.headGroupSpec.template.spec");
	return NULL;
}

/* The claim mounted at /data and the output dir below it ("outputs/x"). */
static const char *
data_claim(json_object *pspec, const char **outdir)
{
	json_object *c = sw_json_path(pspec, "containers[0]");
	json_object *env = sw_json_get(c, "env"), *vols;
	size_t i;

	*outdir = NULL;
	for (i = 0; env && i < json_object_array_length(env); i++) {
		json_object *e = json_object_array_get_idx(env, i);

		if (strcmp(sw_json_get_str(e, "name") ?: "", "OUTPUT_DIR") ==
			0 &&
		    strncmp(sw_json_get_str(e, "value") ?: "", "/data/", 6) ==
			0)
			*outdir = sw_json_get_str(e, "value") + 6;
	}
	vols = sw_json_get(pspec, "volumes");
	for (i = 0; vols && i < json_object_array_length(vols); i++) {
		json_object *v = json_object_array_get_idx(vols, i);

		if (strcmp(sw_json_get_str(v, "name") ?: "", "data") == 0)
			return sw_json_path_str(
			    v, "persistentVolumeClaim.claimName");
	}
	return NULL;
}

/* The prefix mount option of a Mountpoint volume ("prefix p/"), or "". */
static const char *
mount_prefix(json_object *pv, char *buf, size_t sz)
{
	json_object *opts = sw_json_path(pv, "spec.mountOptions");
	size_t i;

	for (i = 0; opts && i < json_object_array_length(opts); i++) {
		const char *o =
		    json_object_get_string(json_object_array_get_idx(opts, i));

		if (strncmp(o, "prefix ", 7) == 0 ||
		    strncmp(o, "prefix=", 7) == 0) {
			if (sw_fmt(buf, sz, "%s%s", o + 7,
				o[strlen(o) - 1] == '/' ? "" : "/") != SW_OK)
				return NULL;
			return buf;
		}
	}
	return "";
}

/* Fill w's storage from the PersistentVolume behind claim. */
static sw_err
where_from_pv(struct sw_req *r, struct sw_kube *kb, struct ckpt_where *w,
    const char *claim, const char *outdir)
{
	json_object *pvc = NULL, *pv = NULL;
	const char *vol, *driver, *mp;
	char mbuf[512];
	sw_err e;

	e = wl_get_obj(
	    r, kb, "v1", w->ns, "persistentvolumeclaims", claim, &pvc);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, SW_ECONFLICT,
		    "job %s's claim %s/%s is "
		    "gone",
		    sw_json_path_str(w->job, "metadata.name"), w->ns, claim);
	if (e != SW_OK)
		return r->err;
	vol = sw_json_path_str(pvc, "spec.volumeName");
	if (vol != NULL &&
	    (e = wl_get_obj(
		 r, kb, "v1", NULL, "persistentvolumes", vol, &pv)) != SW_OK &&
	    e != SW_ENOTFOUND)
		goto out;
	e = SW_OK;
	driver = sw_json_path_str(pv, "spec.csi.driver") ?: "";
	w->storage = strcmp(driver, "s3.csi.aws.com") == 0 ? "s3"
	    : strcmp(driver, "fsx.csi.aws.com") == 0       ? "fsx"
							   : "other";
	if (strcmp(w->storage, "fsx") == 0)
		sw_fmt_text(w->fs_id, sizeof(w->fs_id), "%s",
		    sw_json_path_str(pv, "spec.csi.volumeHandle") ?: "");
	if (strcmp(w->storage, "s3") != 0)
		goto out;
	mp = mount_prefix(pv, mbuf, sizeof(mbuf));
	if (mp == NULL ||
	    sw_fmt(w->bucket, sizeof(w->bucket), "%s",
		sw_json_path_str(pv, "spec.csi.volumeAttributes.bucketName")
		    ?: "") != SW_OK ||
	    sw_fmt(w->prefix, sizeof(w->prefix), "%s%s/%s/", mp, outdir,
		SW_CKPT_DIR) != SW_OK)
		e = sw_req_fail(r, SW_EINTERNAL,
		    "the job's S3 location is too "
		    "long");
out:
	json_object_put(pvc);
	json_object_put(pv);
	return e;
}

/* Find the job of the request (path job, query namespace) and where its
 * checkpoints are.  w->job is a new reference (NULL on failure). */
static sw_err
ckpt_where(struct sw_req *r, struct sw_kube *kb, struct ckpt_where *w)
{
	const char *claim, *outdir;
	json_object *pspec;

	memset(w, 0, sizeof(*w));
	w->storage = "other";
	if (wl_job_find(r, kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "job"), &w->job, &w->kind) != SW_OK)
		return r->err;
	w->ns = sw_json_path_str(w->job, "metadata.namespace");
	if ((pspec = job_pod_spec(w)) == NULL) {
		sw_ferr_add(&r->ferrs, "job", "kind",
		    "is a %s, not a training "
		    "job",
		    w->kind->type);
		return sw_req_fail(r, SW_ECONFLICT,
		    "%s is a %s: only training "
		    "jobs save checkpoints",
		    sw_json_get_str(r->args, "job"), w->kind->type);
	}
	claim = data_claim(pspec, &outdir);
	if (claim == NULL || outdir == NULL || *outdir == '\0')
		return SW_OK; /* not on the data contract: nothing listed */
	return where_from_pv(r, kb, w, claim, outdir);
}

/*
 * The items of w (new), listed from S3; NULL with the problem filled.
 * A bucket that is not there or not readable holds no checkpoints Slipway
 * can see: no items, and w->note says why.
 */
static json_object *
ckpt_items(struct sw_req *r, struct ckpt_where *w)
{
	struct aws_error err;
	json_object *items = NULL;
	int calls = 0;

	if (strcmp(w->storage, "s3") != 0)
		return json_object_new_array();
	memset(&err, 0, sizeof(err));
	if (sw_ckpt_list(
		h_aws(r), w->bucket, w->prefix, &items, &calls, &err) == SW_OK)
		return items;
	if (strcmp(err.code, "NoSuchBucket") == 0 ||
	    strcmp(err.code, "AccessDenied") == 0) {
		sw_fmt_text(w->note, sizeof(w->note),
		    "S3 answered %s for "
		    "s3://%s/%s: %s",
		    err.code, w->bucket, w->prefix, err.message);
		return json_object_new_array();
	}
	sw_req_fail(r, SW_EUPSTREAM, "listing s3://%s/%s: %s %s", w->bucket,
	    w->prefix, err.code, err.message);
	return NULL;
}

/* The answer's note: why nothing (or not everything) was listed. */
static json_object *
ckpt_note(struct ckpt_where *w)
{
	if (w->note[0] != '\0')
		return sw_js(w->note);
	if (strcmp(w->storage, "fsx") == 0)
		return sw_js(FSX_NOTE);
	if (strcmp(w->storage, "s3") != 0)
		return sw_js("the job's /data volume is not an S3 bucket "
			     "Slipway can list");
	return NULL;
}

/* The item named name in items (borrowed), or NULL. */
static json_object *
item_named(json_object *items, const char *name)
{
	size_t i;

	for (i = 0; i < json_object_array_length(items); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(items, i), "name")
			    ?: "",
			name) == 0)
			return json_object_array_get_idx(items, i);
	return NULL;
}

static void
where_free(struct ckpt_where *w)
{
	json_object_put(w->job);
	w->job = NULL;
}

sw_err
h_checkpoint_list(struct sw_req *r)
{
	struct ckpt_where w;
	struct sw_kube kb;
	json_object *items = NULL, *newest = NULL;
	size_t i;
	int s3;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (ckpt_where(r, &kb, &w) != SW_OK ||
	    (items = ckpt_items(r, &w)) == NULL)
		goto out;
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);

		json_object_object_del(it, "keys");
		if (newest == NULL &&
		    sw_json_get_bool(it, "newest_complete", 0))
			newest = it;
	}
	s3 = strcmp(w.storage, "s3") == 0 && w.note[0] == '\0';
	sw_req_reply(r, 200,
	    sw_jo("job", sw_js(sw_json_path_str(w.job, "metadata.name")),
		"namespace", sw_js(w.ns), "storage", sw_js(w.storage), "bucket",
		w.bucket[0] ? sw_js(w.bucket) : NULL, "prefix",
		w.prefix[0] ? sw_js(w.prefix) : NULL, "file_system_id",
		w.fs_id[0] ? sw_js(w.fs_id) : NULL, "listed", sw_jb(s3), "note",
		ckpt_note(&w), "newest_complete",
		newest ? sw_js(sw_json_get_str(newest, "name")) : NULL, "items",
		json_object_get(items), NULL));
out:
	json_object_put(items);
	where_free(&w);
	sw_kube_close(&kb);
	return r->err;
}

/* The checkpoint the request names must be listed and complete. */
static sw_err
check_resumable(struct sw_req *r, struct ckpt_where *w, const char *name)
{
	json_object *items, *it;
	sw_err e = SW_OK;

	if (strcmp(w->storage, "s3") != 0) {
		sw_ferr_add(&r->ferrs, "checkpoint", "storage",
		    "cannot be "
		    "checked: the job's checkpoints are on %s",
		    w->storage);
		return sw_req_fail(r, SW_EPRECONDITION,
		    "the job's "
		    "checkpoints are not on S3, so Slipway cannot see %s",
		    name);
	}
	if ((items = ckpt_items(r, w)) == NULL)
		return r->err;
	it = item_named(items, name);
	if (it == NULL) {
		sw_ferr_add(&r->ferrs, "checkpoint", "exists",
		    "no checkpoint "
		    "%s under s3://%s/%s%s%s",
		    name, w->bucket, w->prefix, w->note[0] ? "; " : "",
		    w->note);
		e = sw_req_fail(r, SW_ENOTFOUND, "job %s has no checkpoint %s",
		    sw_json_path_str(w->job, "metadata.name"), name);
	} else if (!sw_json_get_bool(it, "complete", 0)) {
		sw_ferr_add(&r->ferrs, "checkpoint", "complete",
		    "%s is "
		    "partial (no .metadata): its save never finished",
		    name);
		e = sw_req_fail(r, SW_EPRECONDITION,
		    "checkpoint %s is "
		    "partial; resume from a complete one",
		    name);
	}
	json_object_put(items);
	return e;
}

/* The new job's request: the recorded spec, renamed, resuming.  New. */
static json_object *
resume_args(struct sw_req *r, struct ckpt_where *w, const char *ckpt)
{
	const char *spec = sw_json_get_str(
	    sw_json_path(w->job, "metadata.annotations"), WL_SUBMIT_SPEC);
	json_object *a;

	if (spec == NULL || (a = json_tokener_parse(spec)) == NULL ||
	    !json_object_is_type(a, json_type_object)) {
		sw_ferr_add(&r->ferrs, "job", "spec",
		    "carries no recorded "
		    "spec (%s)",
		    WL_SUBMIT_SPEC);
		sw_req_fail(r, SW_ECONFLICT,
		    "job %s was not submitted by this "
		    "version of Slipway: submit a new job with resume_from "
		    "instead",
		    sw_json_path_str(w->job, "metadata.name"));
		return NULL;
	}
	/* resume_from is under /data/outputs/, where the job wrote. */
	json_object_object_add(a, "resume_from",
	    sw_jsf("%s/%s/%s", sw_json_path_str(w->job, "metadata.name"),
		SW_CKPT_DIR, ckpt));
	sw_json_add_str(a, "name", sw_json_get_str(r->args, "name"));
	sw_json_add_str(a, "job_name", sw_json_get_str(r->args, "job_name"));
	return a;
}

sw_err
h_checkpoint_resume(struct sw_req *r)
{
	const char *ckpt = sw_json_get_str(r->args, "checkpoint");
	json_object *args = NULL, *saved;
	struct ckpt_where w;
	struct sw_kube kb;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (ckpt_where(r, &kb, &w) != SW_OK ||
	    check_resumable(r, &w, ckpt) != SW_OK ||
	    (args = resume_args(r, &w, ckpt)) == NULL)
		goto out;
	sw_kube_close(&kb);
	/* The same submit as training_job_submit, on the recorded spec. */
	saved = r->args;
	r->args = args;
	h_training_job_submit(r);
	r->args = saved;
	json_object_put(args);
	where_free(&w);
	return r->err;
out:
	where_free(&w);
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_checkpoint_retain(struct sw_req *r)
{
	struct ckpt_where w;
	struct sw_kube kb;
	char target[160];

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (ckpt_where(r, &kb, &w) != SW_OK)
		goto out;
	if (strcmp(w.storage, "s3") != 0) {
		sw_ferr_add(&r->ferrs, "job", "storage",
		    "keeps its "
		    "checkpoints on %s, which Slipway cannot list",
		    w.storage);
		sw_req_fail(r, SW_EPRECONDITION,
		    "retention needs the job's "
		    "checkpoints on S3; %s",
		    strcmp(w.storage, "fsx") == 0
			? FSX_NOTE
			: "its /data volume is no S3 bucket");
		goto out;
	}
	sw_kube_close(&kb);
	sw_json_add_str(r->args, "bucket", w.bucket);
	sw_json_add_str(r->args, "prefix", w.prefix);
	sw_json_add_str(r->args, "namespace", w.ns);
	sw_fmt_text(target, sizeof(target), "%s/%s", w.ns,
	    sw_json_get_str(r->args, "job"));
	h_start(
	    r, "checkpoint.retain", target, sw_json_get_str(r->args, "name"));
	where_free(&w);
	return r->err;
out:
	where_free(&w);
	sw_kube_close(&kb);
	return r->err;
}
