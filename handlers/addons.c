/*
 * addons.c: the EKS add-ons of a cluster and their versions
 * (addon_list, addon_upgrade).  Every add-on on the cluster is shown,
 * the ones EKS itself needs (vpc-cni, coredns, kube-proxy) as well as
 * those features install, with the installed version set against what
 * EKS publishes for the cluster's Kubernetes version: DescribeAddonVersions
 * with kubernetesVersion lists the compatible versions, and marks the
 * default one.  An installed version not in that list is incompatible
 * (or withdrawn); diagnostics_cluster reports it through
 * h_addon_versions.  addon_upgrade moves one add-on to a compatible
 * version as an operation (pipelines/addons.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/pipelines.h"

/* Largest number of ListAddons / DescribeAddonVersions pages read. */
#define ADDON_PAGES 20

/* Order of two add-on versions ("v1.31.13-eksbuild.2"): the runs of
 * digits compared in turn as numbers. */
static int
version_cmp(const char *a, const char *b)
{
	while (*a != '\0' || *b != '\0') {
		unsigned long x, y;
		char *ea, *eb;

		while (*a != '\0' && (*a < '0' || *a > '9'))
			a++;
		while (*b != '\0' && (*b < '0' || *b > '9'))
			b++;
		if (*a == '\0' || *b == '\0')
			return (*a != '\0') - (*b != '\0');
		x = strtoul(a, &ea, 10);
		y = strtoul(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a = ea;
		b = eb;
	}
	return 0;
}

/* One EKS read; on failure the problem is filled. */
static sw_err
eks_read(struct sw_req *r, const char *op, json_object *in, json_object **out)
{
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_EKS, op, in, out, &err)) == SW_OK)
		return SW_OK;
	return h_aws_fail(r, AWS_SVC_EKS, op, e, &err);
}

/* One addonVersions item v (borrowed) into entry {versions, default}
 * when it lists kver among its compatibilities. */
static void
add_version(json_object *entry, json_object *v, const char *kver)
{
	json_object *comp = sw_json_get(v, "compatibilities");
	const char *name = sw_json_get_str(v, "addonVersion");
	size_t k;

	for (k = 0; name && comp && k < json_object_array_length(comp); k++) {
		json_object *c = json_object_array_get_idx(comp, k);

		if (strcmp(sw_json_get_str(c, "clusterVersion") ?: "", kver))
			continue;
		json_object_array_add(
		    sw_json_get(entry, "versions"), sw_js(name));
		if (sw_json_get_bool(c, "defaultVersion", 0))
			sw_json_add_str(entry, "default", name);
		return;
	}
}

/* {addon: {"versions": [v, ...], "default": v}} published for kver; new
 * or NULL with the problem filled. */
static json_object *
published(struct sw_req *r, const char *kver)
{
	json_object *map = json_object_new_object(), *out = NULL, *list;
	char tok[1024];
	const char *token = NULL;
	int pages = 0;
	size_t i, j;

	do {
		if (eks_read(r, "DescribeAddonVersions",
			sw_jo("kubernetesVersion", sw_js(kver), "nextToken",
			    token ? sw_js(token) : NULL, NULL),
			&out) != SW_OK) {
			json_object_put(map);
			return NULL;
		}
		list = sw_json_get(out, "addons");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *a = json_object_array_get_idx(list, i);
			json_object *vers = sw_json_get(a, "addonVersions");
			json_object *entry =
			    sw_jo("versions", json_object_new_array(), NULL);

			for (j = 0; vers && j < json_object_array_length(vers);
			     j++)
				add_version(entry,
				    json_object_array_get_idx(vers, j), kver);
			json_object_object_add(
			    map, sw_json_get_str(a, "addonName") ?: "?", entry);
		}
		token = sw_json_copy_str(out, "nextToken", tok, sizeof(tok));
		json_object_put(out);
		out = NULL;
	} while (token != NULL && ++pages < ADDON_PAGES);
	return map;
}

/* The view of one installed add-on (out: DescribeAddon, borrowed)
 * against what is published for the cluster (pub, borrowed).  New. */
static json_object *
addon_view(const char *name, json_object *out, json_object *pub)
{
	json_object *entry = sw_json_get(pub, name);
	json_object *vers = sw_json_get(entry, "versions");
	const char *have = sw_json_path_str(out, "addon.addonVersion");
	const char *newest = NULL;
	int compatible = 0;
	size_t i;

	for (i = 0; vers && i < json_object_array_length(vers); i++) {
		const char *v =
		    json_object_get_string(json_object_array_get_idx(vers, i));

		if (newest == NULL || version_cmp(v, newest) > 0)
			newest = v;
		if (have != NULL && strcmp(v, have) == 0)
			compatible = 1;
	}
	return sw_jo("addon", sw_js(name), "status",
	    sw_js(sw_json_path_str(out, "addon.status")), "installed_version",
	    have ? sw_js(have) : NULL, "compatible", sw_jb(compatible),
	    "default_version",
	    sw_json_get_str(entry, "default")
		? sw_js(sw_json_get_str(entry, "default"))
		: NULL,
	    "newest_version", newest ? sw_js(newest) : NULL,
	    "compatible_versions",
	    vers ? json_object_get(vers) : json_object_new_array(),
	    "upgrade_available",
	    sw_jb(newest != NULL &&
		(have == NULL || version_cmp(newest, have) > 0)),
	    NULL);
}

sw_err
h_addon_versions(struct sw_req *r, const char *cluster, const char *kver,
    json_object **items)
{
	json_object *list = NULL, *pub = NULL, *names, *out;
	size_t i;

	*items = NULL;
	if (eks_read(r, "ListAddons",
		sw_jo("clusterName", sw_js(cluster), "maxResults", sw_ji(100),
		    NULL),
		&list) != SW_OK ||
	    (pub = published(r, kver)) == NULL) {
		json_object_put(list);
		return r->err;
	}
	*items = json_object_new_array();
	names = sw_json_get(list, "addons");
	for (i = 0; names && i < json_object_array_length(names); i++) {
		const char *name =
		    json_object_get_string(json_object_array_get_idx(names, i));

		if (eks_read(r, "DescribeAddon",
			sw_jo("clusterName", sw_js(cluster), "addonName",
			    sw_js(name), NULL),
			&out) != SW_OK) {
			if (r->err != SW_ENOTFOUND)
				break;
			r->err = SW_OK; /* deleted meanwhile */
			r->detail[0] = '\0';
			continue;
		}
		json_object_array_add(*items, addon_view(name, out, pub));
		json_object_put(out);
	}
	json_object_put(list);
	json_object_put(pub);
	if (r->err != SW_OK) {
		json_object_put(*items);
		*items = NULL;
	}
	return r->err;
}

/*
 * Is add-on addon on EKS cluster at version min or later?  1 yes, or
 * not an EKS add-on there (installed some other way: its version is not
 * EKS's to say); 0 older, its version into have; -1 when it could not
 * be read (the problem is filled).
 */
int
h_addon_at_least(struct sw_req *r, const char *cluster, const char *addon,
    const char *min, char *have, size_t sz)
{
	json_object *out;
	struct aws_error err;
	const char *v;
	int ok;
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo(
		"clusterName", sw_js(cluster), "addonName", sw_js(addon), NULL),
	    &out, &err);
	if (e == SW_ENOTFOUND)
		return 1;
	if (e != SW_OK) {
		h_aws_fail(r, AWS_SVC_EKS, "DescribeAddon", e, &err);
		return -1;
	}
	v = sw_json_path_str(out, "addon.addonVersion");
	ok = v == NULL || version_cmp(v, min) >= 0;
	sw_fmt_text(have, sz, "%s", v ? v : "");
	json_object_put(out);
	return ok;
}

/* The EKS cluster's Kubernetes version into kver. */
static sw_err
cluster_version(struct sw_req *r, const char *cluster, char *kver, size_t sz)
{
	json_object *out;
	const char *v;

	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL, "no AWS client");
	if (eks_read(r, "DescribeCluster", sw_jo("name", sw_js(cluster), NULL),
		&out) != SW_OK)
		return r->err == SW_ENOTFOUND
		    ? sw_req_fail(r, SW_ENOTFOUND, "no EKS cluster %s", cluster)
		    : r->err;
	v = sw_json_path_str(out, "cluster.version");
	if (v == NULL || (size_t)snprintf(kver, sz, "%s", v) >= sz) {
		json_object_put(out);
		return sw_req_fail(r, SW_EUPSTREAM,
		    "EKS cluster %s has no "
		    "Kubernetes version",
		    cluster);
	}
	json_object_put(out);
	return SW_OK;
}

sw_err
h_addon_list(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *items;
	char kver[16];

	if (cluster_version(r, name, kver, sizeof(kver)) != SW_OK ||
	    h_addon_versions(r, name, kver, &items) != SW_OK)
		return r->err;
	sw_req_reply(r, 200,
	    sw_jo("kubernetes_version", sw_js(kver), "items", items, NULL));
	return SW_OK;
}

/* The item of items (borrowed) for addon, or NULL. */
static json_object *
find_addon(json_object *items, const char *addon)
{
	size_t i;

	for (i = 0; items && i < json_object_array_length(items); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(items, i), "addon")
			    ?: "",
			addon) == 0)
			return json_object_array_get_idx(items, i);
	return NULL;
}

/* Is v in the array of strings a (borrowed)? */
static int
listed(json_object *a, const char *v)
{
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++)
		if (strcmp(
			json_object_get_string(json_object_array_get_idx(a, i)),
			v) == 0)
			return 1;
	return 0;
}

sw_err
h_addon_upgrade(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *addon = sw_json_get_str(r->args, "addon");
	const char *want = sw_json_get_str(r->args, "version");
	json_object *items, *it, *input;
	char kver[16], target[80];
	sw_err e;

	if (cluster_version(r, name, kver, sizeof(kver)) != SW_OK ||
	    h_addon_versions(r, name, kver, &items) != SW_OK)
		return r->err;
	if ((it = find_addon(items, addon)) == NULL) {
		json_object_put(items);
		return sw_req_fail(
		    r, SW_ENOTFOUND, "no add-on %s on %s", addon, name);
	}
	if (want != NULL &&
	    !listed(sw_json_get(it, "compatible_versions"), want)) {
		sw_ferr_add(&r->ferrs, "version", "compatible",
		    "%s is not "
		    "published as compatible with Kubernetes %s",
		    want, kver);
		json_object_put(items);
		return sw_req_fail(r, SW_EPRECONDITION,
		    "%s %s is not "
		    "published as compatible with Kubernetes %s",
		    addon, want, kver);
	}
	if (want == NULL && sw_json_get_str(it, "newest_version") == NULL) {
		json_object_put(items);
		return sw_req_fail(r, SW_EPRECONDITION,
		    "EKS publishes no "
		    "version of %s for Kubernetes %s",
		    addon, kver);
	}
	if (sw_fmt(target, sizeof(target), "%s",
		want ? want : sw_json_get_str(it, "newest_version")) != SW_OK) {
		json_object_put(items);
		return sw_req_fail(r, SW_EINTERNAL,
		    "add-on version of %s "
		    "too long",
		    addon);
	}
	if (strcmp(sw_json_get_str(it, "installed_version") ?: "", target) ==
	    0) {
		sw_req_reply(r, 200,
		    sw_jo("changed", sw_jb(0), "addon", sw_js(addon), "version",
			sw_js(target), NULL));
		json_object_put(items);
		return SW_OK;
	}
	json_object_put(items);
	input = r->args;
	r->args = sw_jo("name", sw_js(name), "addon", sw_js(addon), "version",
	    sw_js(target), NULL);
	e = h_start(r, "addon.upgrade", addon, name);
	json_object_put(input);
	return e;
}
