/*
 * space_templates.c: Space templates (space_template_list,
 * space_template_set, space_template_delete), the jupyter-k8s
 * WorkspaceTemplates of jupyter-k8s-system that a Space is made from.
 * A template Slipway keeps is the add-on's template of its app type
 * (its entry point, access strategy and limits) with the fields sent,
 * labelled app.kubernetes.io/managed-by: slipway; the add-on's own
 * templates are read, never changed.
 */
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"

#define T_API "workspace.jupyter.org/v1alpha1"
#define T_CRD "workspacetemplates.workspace.jupyter.org"
#define T_NS "jupyter-k8s-system"
#define T_MANAGED "app.kubernetes.io/managed-by"

/* The add-on's template of each app type. */
static const struct {
	const char *app, *object;
} bases[] = {
	{ "jupyterlab", "sagemaker-jupyter-template" },
	{ "code-editor", "sagemaker-code-editor-template" },
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

static const char *
base_of(const char *app)
{
	size_t i;

	for (i = 0; i < NBASES; i++)
		if (strcmp(bases[i].app, app) == 0)
			return bases[i].object;
	return NULL;
}

static int
is_base(const char *name)
{
	size_t i;

	for (i = 0; i < NBASES; i++)
		if (strcmp(bases[i].object, name) == 0)
			return 1;
	return 0;
}

/* A quantity "12Gi" (unit "Gi") or "12" (unit "") as 12; -1 otherwise. */
static long long
qty(const char *s, const char *unit)
{
	char *end;
	long long n;

	if (s == NULL)
		return -1;
	n = strtoll(s, &end, 10);
	return end != s && strcmp(end, unit) == 0 ? n : -1;
}

static void
add_qty(json_object *v, const char *key, const char *s, const char *unit)
{
	long long n = qty(s, unit);

	if (n >= 0)
		json_object_object_add(v, key, json_object_new_int64(n));
}

/* A WorkspaceTemplate as space_template_list shows it. */
static json_object *
tmpl_view(json_object *t)
{
	json_object *spec = sw_json_get(t, "spec"), *v;
	const char *by =
	    sw_json_get_str(sw_json_path(t, "metadata.labels"), T_MANAGED);

	v = sw_jo("template", sw_js(sw_json_path_str(t, "metadata.name")),
	    "managed", sw_jb(by != NULL && strcmp(by, "slipway") == 0),
	    "display_name", sw_js(sw_json_get_str(spec, "displayName")),
	    "app_type", sw_js(sw_json_get_str(spec, "appType")), "description",
	    sw_js(sw_json_get_str(spec, "description")), "default_image",
	    sw_js(sw_json_get_str(spec, "defaultImage")), "allowed_images",
	    json_object_get(sw_json_get(spec, "allowedImages")),
	    "allow_custom_images",
	    json_object_get(sw_json_get(spec, "allowCustomImages")), NULL);
	add_qty(v, "cpu",
	    sw_json_path_str(spec, "defaultResources.requests.cpu"), "");
	add_qty(v, "memory_gib",
	    sw_json_path_str(spec, "defaultResources.requests.memory"), "Gi");
	add_qty(v, "storage_gib",
	    sw_json_path_str(spec, "primaryStorage.defaultSize"), "Gi");
	return v;
}

sw_err
h_space_template_list(struct sw_req *r)
{
	json_object *items = NULL, *out;
	struct sw_kube kb;
	size_t i;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_list_objs(r, &kb, T_API, T_NS, "workspacetemplates", NULL,
		&items) == SW_OK) {
		out = json_object_new_array();
		for (i = 0; i < json_object_array_length(items); i++)
			json_object_array_add(out,
			    tmpl_view(json_object_array_get_idx(items, i)));
		sw_req_reply(r, 200, sw_jo("items", out, NULL));
	}
	json_object_put(items);
	sw_kube_close(&kb);
	return r->err;
}

/* Set key of o to s printed with unit (n, "Gi" -> "12Gi"). */
static void
set_qty(json_object *o, const char *key, json_object *n, const char *unit)
{
	char buf[32];

	sw_fmt_text(buf, sizeof(buf), "%lld%s",
	    (long long)json_object_get_int64(n), unit);
	json_object_object_add(o, key, sw_js(buf));
}

/* The object of an object member key of o (made when absent). */
static json_object *
member(json_object *o, const char *key)
{
	json_object *m = sw_json_get(o, key);

	if (m == NULL || !json_object_is_type(m, json_type_object)) {
		m = json_object_new_object();
		json_object_object_add(o, key, m);
	}
	return m;
}

/* The request's fields over the spec of the add-on's template. */
static void
tmpl_spec(json_object *a, json_object *spec)
{
	static const char *const keys[][2] = {
		{ "display_name", "displayName" },
		{ "description", "description" },
		{ "default_image", "defaultImage" },
		{ "allowed_images", "allowedImages" },
		{ "allow_custom_images", "allowCustomImages" },
	};
	json_object *v;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((v = sw_json_get(a, keys[i][0])) != NULL)
			json_object_object_add(
			    spec, keys[i][1], json_object_get(v));
	if ((v = sw_json_get(a, "cpu")) != NULL)
		set_qty(member(member(spec, "defaultResources"), "requests"),
		    "cpu", v, "");
	if ((v = sw_json_get(a, "memory_gib")) != NULL)
		set_qty(member(member(spec, "defaultResources"), "requests"),
		    "memory", v, "Gi");
	if ((v = sw_json_get(a, "storage_gib")) != NULL)
		set_qty(member(spec, "primaryStorage"), "defaultSize", v, "Gi");
}

/* The WorkspaceTemplate to apply: the add-on's template of the app type
 * with the request's fields; NULL with the problem filled. */
static json_object *
tmpl_manifest(struct sw_req *r, struct sw_kube *kb, const char *name)
{
	const char *app = sw_json_get_str(r->args, "app_type");
	json_object *base = NULL, *spec = NULL;
	int have = wl_crd_present(r, kb, T_CRD);
	sw_err e;

	if (have <= 0) {
		if (have == 0)
			wl_need_feature(r, "template", "spaces",
			    "HyperPod "
			    "Spaces (the amazon-sagemaker-spaces add-on)");
		return NULL;
	}
	app = app != NULL ? app : "jupyterlab";
	e = wl_get_obj(
	    r, kb, T_API, T_NS, "workspacetemplates", base_of(app), &base);
	if (e == SW_ENOTFOUND) {
		sw_req_fail(r, SW_ECONFLICT,
		    "the add-on's template %s/%s is "
		    "not on the cluster",
		    T_NS, base_of(app));
		return NULL;
	}
	if (e != SW_OK)
		return NULL;
	if (json_object_deep_copy(sw_json_get(base, "spec"), &spec, NULL) != 0)
		spec = json_object_new_object();
	json_object_put(base);
	json_object_object_add(spec, "appType", sw_js(app));
	json_object_object_del(spec, "description"); /* the add-on's own */
	tmpl_spec(r->args, spec);
	return sw_jo("apiVersion", sw_js(T_API), "kind",
	    sw_js("WorkspaceTemplate"), "metadata",
	    sw_jo("name", sw_js(name), "namespace", sw_js(T_NS), "labels",
		sw_jo(T_MANAGED, sw_js("slipway"), NULL), NULL),
	    "spec", spec, NULL);
}

/* 409 for the add-on's own templates. */
static sw_err
not_base(struct sw_req *r, const char *name)
{
	if (!is_base(name))
		return SW_OK;
	sw_ferr_add(&r->ferrs, "template", "immutable",
	    "%s is the add-on's "
	    "template",
	    name);
	return sw_req_fail(r, SW_ECONFLICT,
	    "%s is the spaces add-on's own "
	    "template; name another",
	    name);
}

sw_err
h_space_template_set(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "template");
	json_object *m, *out = NULL;
	struct sw_kube kb;

	if (not_base(r, name) != SW_OK ||
	    wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if ((m = tmpl_manifest(r, &kb, name)) == NULL)
		goto out;
	if (r->dry_run)
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "manifests", sw_ja(m), NULL));
	else {
		if (wl_apply_one(r, &kb, m, &out) == SW_OK)
			sw_req_reply(r, 200, tmpl_view(out));
		json_object_put(m);
		json_object_put(out);
	}
out:
	sw_kube_close(&kb);
	return r->err;
}

sw_err
h_space_template_delete(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "template");
	struct sw_kube kb;
	int got;

	if (not_base(r, name) != SW_OK ||
	    wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	got = wl_delete_obj(r, &kb, T_API, T_NS, "workspacetemplates", name);
	if (got == 0)
		sw_req_fail(r, SW_ENOTFOUND, "no Space template %s", name);
	else if (got > 0)
		sw_req_reply(r, 200, sw_jo("deleted", sw_js(name), NULL));
	sw_kube_close(&kb);
	return r->err;
}
