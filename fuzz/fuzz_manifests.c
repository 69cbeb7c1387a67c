/*
 * fuzz_manifests.c: the workload manifest builders (handlers/
 * manifests.h) on requests the API accepts.  The first byte picks the
 * operation (training_job_submit, model_download, inference_deploy);
 * the rest is its JSON body, routed by sw_route() as a POST with an
 * admin principal, so the body goes through the very parsing and field
 * validation of a real request.  The row's handler here runs the
 * handler's own read and cross-field check, then every builder the
 * input reaches (a training job with and without the tiered-storage
 * service account; a download Job; a self-hosted endpoint's objects or
 * a managed or JumpStart resource and its policy), with no Kubernetes
 * or AWS server.
 * Invariants: a builder never fails on an accepted input (that would
 * be a 500); each manifest serialises to valid UTF-8 JSON, has an
 * apiVersion, kind and name that make an API path, and label values
 * Kubernetes accepts; the rendered answer is valid UTF-8 JSON.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "handlers/manifests.h"
#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"
#include "api/req.h"
#include "api/router.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fail(const char *why, json_object *m)
{
	fprintf(stderr, "%s: %s\n", why,
	    m != NULL ? json_object_to_json_string(m) : "(none)");
	abort();
}

/* A label value: at most 63 of [A-Za-z0-9-_.], alphanumeric at both
 * ends, or empty. */
static int
label_value_ok(const char *v)
{
	size_t n = strlen(v), i;

	if (n == 0)
		return 1;
	if (n > 63)
		return 0;
	for (i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') ||
			(v[i] >= 'A' && v[i] <= 'Z') ||
			(v[i] >= '0' && v[i] <= '9') || v[i] == '-' ||
			v[i] == '_' || v[i] == '.'))
			return 0;
	return strchr("-_.", v[0]) == NULL && strchr("-_.", v[n - 1]) == NULL;
}

static void
check_labels(json_object *labels, json_object *m)
{
	if (labels == NULL)
		return;
	if (!json_object_is_type(labels, json_type_object))
		fail("labels are not an object", m);
	json_object_object_foreach(labels, k, v)
	{
		(void)k;
		if (!json_object_is_type(v, json_type_string) ||
		    !label_value_ok(json_object_get_string(v)))
			fail("a label value Kubernetes refuses", m);
	}
}

/* One manifest (borrowed) against the invariants. */
static void
check_manifest(json_object *m)
{
	const char *text, *api, *kind, *name, *ns;
	char path[1024];

	if (m == NULL || !json_object_is_type(m, json_type_object))
		fail("a manifest that is not an object", m);
	text = json_object_to_json_string_ext(
	    m, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	fz_assert_json(text, strlen(text), "a manifest");
	api = sw_json_get_str(m, "apiVersion");
	kind = sw_json_get_str(m, "kind");
	name = sw_json_path_str(m, "metadata.name");
	ns = sw_json_path_str(m, "metadata.namespace");
	if (api == NULL || kind == NULL || name == NULL)
		fail("a manifest without apiVersion, kind or name", m);
	if (k8s_path(path, sizeof(path), api, ns, "objects", name) != SW_OK)
		fail("a manifest whose name makes no API path", m);
	check_labels(sw_json_path(m, "metadata.labels"), m);
	check_labels(sw_json_path(m, "spec.template.metadata.labels"), m);
}

/* A builder failed on an input the API accepted: only a 400 may. */
static sw_err
refused(struct sw_req *r)
{
	if (r->err != SW_EINVAL)
		fail(r->detail, NULL);
	return r->err;
}

static sw_err
fz_training(struct sw_req *r)
{
	struct train t;
	json_object *m;
	int sa;

	if (wl_train_read(r, &t) != SW_OK)
		return refused(r);
	for (sa = 0; sa < 2; sa++) {
		t.sa = sa ? "tiered-storage-sa" : NULL;
		if ((m = wl_train_manifest(r, &t)) == NULL)
			return refused(r);
		check_manifest(m);
		json_object_put(m);
	}
	sw_req_reply(r, 200, json_object_new_object());
	return SW_OK;
}

static sw_err
fz_download(struct sw_req *r)
{
	struct download d;
	json_object *job;

	if (wl_download_read(r, &d) != SW_OK)
		return refused(r);
	job = wl_download_job(r, &d);
	check_manifest(job);
	json_object_put(job);
	sw_req_reply(r, 200, json_object_new_object());
	return SW_OK;
}

static sw_err
fz_inference(struct sw_req *r)
{
	const char *kind = wl_str_or(r->args, "kind", "self-hosted");
	json_object *list, *cr = NULL, *pol = NULL;
	char bucket[64];
	size_t i;

	if (strcmp(kind, "self-hosted") != 0) {
		if (inf_managed_build(r, strcmp(kind, "managed") == 0,
			"us-west-2", bucket, &cr, &pol) != SW_OK)
			return refused(r);
		check_manifest(cr);
		fz_assert_json(json_object_to_json_string(pol),
		    strlen(json_object_to_json_string(pol)), "the policy");
		json_object_put(cr);
		json_object_put(pol);
		sw_req_reply(r, 200, json_object_new_object());
		return SW_OK;
	}
	/* A pool endpoint is only its Service, made from the pool's. */
	if (strcmp(wl_str_or(r->args, "exposure", "service"), "pool") == 0 ||
	    sw_json_get(r->args, "pool") != NULL)
		return SW_OK;
	if (inf_selfhosted_check(r) != SW_OK)
		return refused(r);
	list = json_object_new_array();
	if (inf_selfhosted_manifests(r, list) != SW_OK) {
		json_object_put(list);
		return refused(r);
	}
	for (i = 0; i < json_object_array_length(list); i++)
		check_manifest(json_object_array_get_idx(list, i));
	json_object_put(list);
	sw_req_reply(r, 200, json_object_new_object());
	return SW_OK;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sw_handler_row table[] = {
		{ .op = "training_job_submit", .fn = fz_training },
		{ .op = "model_download", .fn = fz_download },
		{ .op = "inference_deploy", .fn = fz_inference }, { .op = NULL }
	};
	static const char *const paths[] = {
		"/api/v1/clusters/c1/training-jobs",
		"/api/v1/clusters/c1/models:download",
		"/api/v1/clusters/c1/inference",
	};
	static char copy[1 << 16];
	struct sw_principal admin;
	struct sw_req r;
	struct sw_buf out;
	const char *body;

	if (size < 1 || size > sizeof(copy))
		return 0;
	/* The body as a worker holds it: its bytes and a NUL after them. */
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	memset(&admin, 0, sizeof(admin));
	admin.scope = SW_SCOPE_ADMIN;
	memcpy(admin.token_id, "0000000000000000", 17);
	memcpy(admin.name, "fuzz", 5);
	memset(&r, 0, sizeof(r));
	sw_buf_init(&r.headers, 16384);
	r.method = "POST";
	r.uri = paths[data[0] % 3];
	r.content_type = "application/json";
	r.body = copy;
	r.body_len = size - 1;
	r.principal = &admin;
	sw_route(&r, table);
	sw_buf_init(&out, 1 << 20);
	if (sw_req_render(&r, &out) == SW_OK) {
		/* FUZZ_VERBOSE=1 shows each answer, to check a seed. */
		if (getenv("FUZZ_VERBOSE") != NULL)
			fprintf(stderr, "%s\n", sw_buf_str(&out));
		body = strstr(sw_buf_str(&out), "\r\n\r\n");
		if (body == NULL)
			abort();
		body += 4;
		fz_assert_json(body,
		    out.len - (size_t)(body - sw_buf_str(&out)), "the answer");
	}
	sw_buf_free(&out);
	sw_req_free(&r);
	return 0;
}
