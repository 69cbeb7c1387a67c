/*
 * models.c: model_download, a batch Job that fetches a Hugging Face
 * model into the S3 contract's /data/models/<target>.  The Job is
 * found, followed and deleted like every job (handlers/jobs.c).
 *
 * A Hugging Face token goes into a Secret owned by the download Job and
 * reaches the container through secretKeyRef; it is never put in the
 * Job, never answered back and never logged.  Dry runs answer with the
 * manifests (the Secret's token a stringData placeholder) and apply
 * nothing.
 */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/manifests.h"
#include "handlers/workloads.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"

/* What a dry run shows instead of the token: applicable as written. */
#define TOKEN_PLACEHOLDER "REPLACE-WITH-HUGGING-FACE-TOKEN"

/*
 * The downloader: a fixed Python program; the model id, target,
 * revision and worker count arrive as argv, the token as HF_TOKEN from
 * the Secret.  Nothing the user sends is ever parsed by a shell.
 */
static const char download_py[] =
    "import os, subprocess, sys\n"
    "subprocess.check_call([sys.executable, '-m', 'pip', 'install', "
    "'-q', 'huggingface_hub>=0.34'])\n"
    "from huggingface_hub import snapshot_download\n"
    "repo, dest, rev, workers = sys.argv[1:5]\n"
    "os.makedirs(dest, exist_ok=True)\n"
    "print('downloading', repo, 'revision', rev, 'to', dest, "
    "flush=True)\n"
    "path = snapshot_download(repo_id=repo, revision=rev, local_dir=dest,"
    " max_workers=int(workers), token=os.environ.get('HF_TOKEN') or "
    "None)\n"
    "print('downloaded', repo, 'to', path, flush=True)\n";

/* "dl-<model name, lower-cased and cut>-<5 random hex>". */
static sw_err
download_job_name(const char *model_id, char *out, size_t outsz)
{
	const char *base = strrchr(model_id, '/');
	unsigned char rnd[3];
	char part[40];
	size_t i, n = 0;

	base = base ? base + 1 : model_id;
	for (i = 0; base[i] != '\0' && n < 38; i++) {
		char c = base[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '-';
		if (c == '-' && (n == 0 || part[n - 1] == '-'))
			continue;
		part[n++] = c;
	}
	while (n > 0 && part[n - 1] == '-')
		n--;
	part[n] = '\0';
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		memset(rnd, 0, sizeof(rnd));
	return sw_fmt(out, outsz, "dl-%s%s%02x%02x%x", part, n ? "-" : "",
	    rnd[0], rnd[1], rnd[2] & 0xf);
}

sw_err
wl_download_read(struct sw_req *r, struct download *d)
{
	json_object *a = r->args;

	memset(d, 0, sizeof(*d));
	d->cluster = sw_json_get_str(a, "name");
	d->model = sw_json_get_str(a, "model_id");
	d->ns = wl_ns_or(a, d->team_ns, sizeof(d->team_ns), "slipway-models");
	d->pvc = wl_str_or(a, "pvc", "s3-claim");
	d->token = sw_json_get_str(a, "hf_token");
	d->target = sw_json_get_str(a, "target");
	if ((sw_json_get_str(a, "job_name") != NULL
		    ? sw_fmt(d->name, sizeof(d->name), "%s",
			  sw_json_get_str(a, "job_name"))
		    : download_job_name(d->model, d->name, sizeof(d->name))) !=
	    SW_OK)
		return sw_req_fail(r, SW_EINTERNAL,
		    "no room for the job "
		    "name");
	if (d->target == NULL)
		d->target = strrchr(d->model, '/') ? strrchr(d->model, '/') + 1
						   : d->model;
	if (strcmp(d->target, ".") == 0 || strcmp(d->target, "..") == 0 ||
	    d->target[0] == '.') {
		sw_ferr_add(&r->ferrs, "target", "pattern",
		    "must not start "
		    "with a dot");
		return sw_req_fail(r, SW_EINVAL,
		    "target: must not start "
		    "with a dot");
	}
	if (sw_fmt(d->dest, sizeof(d->dest), "/data/models/%s", d->target) !=
		SW_OK ||
	    sw_fmt(d->secret, sizeof(d->secret), "%s-hf-token", d->name) !=
		SW_OK ||
	    sw_fmt(d->workers, sizeof(d->workers), "%lld",
		(long long)sw_json_get_int(a, "max_workers", 8)) != SW_OK) {
		sw_ferr_add(&r->ferrs, "target", "length",
		    "is too long for "
		    "a model path");
		return sw_req_fail(r, SW_EINVAL,
		    "target: is too long for a "
		    "model path");
	}
	return SW_OK;
}

json_object *
wl_download_job(struct sw_req *r, const struct download *d)
{
	json_object *a = r->args, *env;

	env = sw_ja(wl_env_var("HF_HOME", "/tmp/hf-home"),
	    wl_env_var("HF_HUB_DISABLE_TELEMETRY", "1"));
	if (d->token != NULL)
		json_object_array_add(env,
		    sw_jo("name", sw_js("HF_TOKEN"), "valueFrom",
			sw_jo("secretKeyRef",
			    sw_jo("name", sw_js(d->secret), "key",
				sw_js("token"), NULL),
			    NULL),
			NULL));
	return sw_jo("apiVersion", sw_js("batch/v1"), "kind", sw_js("Job"),
	    "metadata",
	    sw_jo("name", sw_js(d->name), "namespace", sw_js(d->ns), "labels",
		wl_job_labels(d->name), "annotations",
		sw_jo("slipway.dev/model-id", sw_js(d->model),
		    "slipway.dev/target", sw_js(d->dest), NULL),
		NULL),
	    "spec",
	    sw_jo("backoffLimit", sw_ji(2), "template",
		sw_jo("metadata", sw_jo("labels", wl_job_labels(d->name), NULL),
		    "spec",
		    sw_jo("restartPolicy", sw_js("Never"), "containers",
			sw_ja(sw_jo("name", sw_js("download"), "image",
			    sw_js(sw_json_get_str(a, "image")), "command",
			    sw_ja(sw_js("python3"), sw_js("-c"),
				sw_js(download_py), sw_js(d->model),
				sw_js(d->dest),
				sw_js(sw_json_get_str(a, "revision")),

				sw_js(d->workers)),
			    "env", env, "resources",
			    sw_jo("requests",
				sw_jo("cpu", sw_js("2"), "memory", sw_js("4Gi"),
				    NULL),
				NULL),
			    "volumeMounts",
			    sw_ja(sw_jo("name", sw_js("data"), "mountPath",
				sw_js("/data"), NULL)),
			    NULL)),
			"volumes",
			sw_ja(sw_jo("name", sw_js("data"),
			    "persistentVolumeClaim",
			    sw_jo("claimName", sw_js(d->pvc), NULL), NULL)),
			NULL),
		    NULL),
		NULL),
	    NULL);
}

sw_err
h_model_download(struct sw_req *r)
{
	json_object *a = r->args, *list = NULL, *job = NULL, *applied = NULL;
	json_object *refs, *existing = NULL;
	struct download d;
	struct sw_kube kb;
	sw_err e;

	memset(&kb, 0, sizeof(kb));
	if (wl_download_read(r, &d) != SW_OK)
		return r->err;
	if (wl_kube_open(r, d.cluster, &kb) != SW_OK)
		return r->err;
	e = wl_get_obj(r, &kb, "batch/v1", d.ns, "jobs", d.name, &existing);
	json_object_put(existing);
	if (e == SW_OK) {
		sw_ferr_add(&r->ferrs, "job_name", "unique",
		    "job %s exists in "
		    "namespace %s",
		    d.name, d.ns);
		sw_req_fail(r, SW_ECONFLICT, "job %s exists", d.name);
		goto out;
	}
	if (e != SW_ENOTFOUND)
		goto out;
	list = json_object_new_array();
	if (wl_storage_plan(r, &kb, d.cluster, d.ns, d.pvc,
		sw_json_get(a, "pvc") != NULL, list) != SW_OK)
		goto out;
	job = wl_download_job(r, &d);
	if (h_kueue_labels(r, d.cluster, d.ns, job) != SW_OK)
		goto out;
	if (r->dry_run) {
		json_object_array_add(list, job);
		job = NULL;
		if (d.token != NULL)
			json_object_array_add(list,
			    sw_jo("apiVersion", sw_js("v1"), "kind",
				sw_js("Secret"), "metadata",
				sw_jo("name", sw_js(d.secret), "namespace",
				    sw_js(d.ns), NULL),
				"type", sw_js("Opaque"), "stringData",
				sw_jo("token", sw_js(TOKEN_PLACEHOLDER), NULL),
				NULL));
		wl_answer_plan(r, list,
		    sw_jo("job", sw_js(d.name), "target", sw_js(d.dest), NULL));
		list = NULL;
		goto out;
	}
	refs = json_object_new_array();
	if (wl_apply_all(r, &kb, list, refs) != SW_OK ||
	    wl_apply_one(r, &kb, job, &applied) != SW_OK) {
		json_object_put(refs);
		goto out;
	}
	json_object_array_add(refs, wl_manifest_ref(job));
	if (d.token != NULL) {
		/* The Secret is owned by the Job: deleting one deletes both.
		 * The token is base64'd straight into the manifest and the
		 * manifest is freed after the call. */
		size_t tl = strlen(d.token);
		char *b64 = sw_calloc(1, 4 * ((tl + 2) / 3) + 1);
		json_object *sec;

		if (b64 == NULL) {
			json_object_put(refs);
			sw_req_fail(r, SW_ENOMEM, "out of memory");
			goto out;
		}
		EVP_EncodeBlock((unsigned char *)b64,
		    (const unsigned char *)d.token, (int)tl);
		sec = sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Secret"),
		    "metadata",
		    sw_jo("name", sw_js(d.secret), "namespace", sw_js(d.ns),
			"labels", wl_job_labels(d.name), "ownerReferences",
			sw_ja(sw_jo("apiVersion", sw_js("batch/v1"), "kind",
			    sw_js("Job"), "name", sw_js(d.name), "uid",
			    sw_js(sw_json_path_str(applied, "metadata.uid")),
			    NULL)),
			NULL),
		    "type", sw_js("Opaque"), "data",
		    sw_jo("token", sw_js(b64), NULL), NULL);
		OPENSSL_cleanse(b64, strlen(b64));
		free(b64);
		e = wl_apply_one(r, &kb, sec, NULL);
		json_object_put(sec);
		if (e != SW_OK) {
			json_object_put(refs);
			goto out;
		}
		json_object_array_add(refs,
		    sw_jo("kind", sw_js("Secret"), "name", sw_js(d.secret),
			"namespace", sw_js(d.ns), NULL));
	}
	wl_answer_applied(r, 201,
	    sw_jo("job", sw_js(d.name), "namespace", sw_js(d.ns), "model_id",
		sw_js(d.model), "target", sw_js(d.dest), "token_secret",
		d.token ? sw_js(d.secret) : NULL, NULL),
	    refs);
out:
	json_object_put(list);
	json_object_put(job);
	json_object_put(applied);
	sw_kube_close(&kb);
	return r->err;
}
