/*
 * fit.c: does a workload's per-node request fit any node the cluster
 * can have?  The cluster's instance types are those of its HyperPod
 * instance groups (SageMaker DescribeCluster); their GPUs and EFA
 * interfaces are EC2's facts (DescribeInstanceTypes).  A request no
 * type can satisfy would stay Pending for ever ("0/4 nodes are
 * available: 4 Insufficient nvidia.com/gpu"), so the submit and its
 * dry run refuse it up front: 400 naming the field and the largest
 * node.  A cluster without HyperPod groups (or whose groups cannot be
 * read) is not judged here: the scheduler says what it says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/workloads.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"

/* What one instance type offers a pod. */
struct fit_type {
	char name[64]; /* ml.<type> */
	int64_t gpus, efa;
};

/* The distinct ml.* types of the cluster's groups into types (at most
 * max); the count, or -1 when the groups cannot be read. */
static int
fit_group_types(
    struct sw_req *r, const char *cluster, struct fit_type *types, int max)
{
	json_object *hp = NULL, *groups;
	struct aws_error err;
	size_t i;
	int n = 0, k;

	if (h_hp_describe(r, cluster, &hp, &err) != SW_OK)
		return -1;
	groups = sw_json_get(hp, "InstanceGroups");
	for (i = 0; groups && i < json_object_array_length(groups); i++) {
		const char *t = sw_json_get_str(
		    json_object_array_get_idx(groups, i), "InstanceType");

		if (t == NULL || strncmp(t, "ml.", 3) != 0 || n == max)
			continue;
		for (k = 0; k < n && strcmp(types[k].name, t) != 0; k++)
			;
		if (k == n &&
		    sw_fmt(types[n].name, sizeof(types[0].name), "%s", t) ==
			SW_OK)
			n++;
	}
	json_object_put(hp);
	return n;
}

/* GPUs and EFA interfaces of each type from EC2; -1 when unknown. */
static int
fit_type_facts(struct sw_req *r, struct fit_type *types, int n)
{
	json_object *names = json_object_new_array(), *out = NULL, *list;
	struct aws_error err;
	size_t i;
	int k;

	for (k = 0; k < n; k++)
		json_object_array_add(names, sw_js(types[k].name + 3));
	memset(&err, 0, sizeof(err));
	if (h_call_fact(r, AWS_SVC_EC2, "DescribeInstanceTypes",
		sw_jo("InstanceTypes", names, NULL), &out, &err) != SW_OK)
		return -1;
	list = sw_json_get(out, "instanceTypeSet");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);
		const char *t = sw_json_get_str(o, "instanceType");
		const char *g = sw_json_path_str(o, "gpuInfo.gpus[0].count");
		const char *e = sw_json_path_str(
		    o, "networkInfo.efaInfo.maximumEfaInterfaces");

		for (k = 0; t != NULL && k < n; k++)
			if (strcmp(types[k].name + 3, t) == 0) {
				types[k].gpus = g ? strtoll(g, NULL, 10) : 0;
				types[k].efa = e ? strtoll(e, NULL, 10) : 0;
			}
	}
	json_object_put(out);
	return 0;
}

/* "ml.a, ml.b" of types into buf. */
static void
fit_type_names(const struct fit_type *types, int n, char *buf, size_t sz)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < n && len < sz; k++)
		len += (size_t)snprintf(
		    buf + len, sz - len, "%s%s", k ? ", " : "", types[k].name);
}

sw_err
wl_check_fit(struct sw_req *r, const struct wl_fit *ask)
{
	struct fit_type types[SW_MAX_GROUPS];
	const struct fit_type *gpu_max = NULL, *efa_max = NULL;
	char names[256];
	int n, k, named = 0;

	n = fit_group_types(r, ask->cluster, types, SW_MAX_GROUPS);
	if (n <= 0 || fit_type_facts(r, types, n) != 0)
		return SW_OK;
	for (k = 0; k < n; k++) {
		if (ask->instance_type != NULL &&
		    strcmp(types[k].name, ask->instance_type) != 0)
			continue;
		named = 1;
		if (gpu_max == NULL || types[k].gpus > gpu_max->gpus)
			gpu_max = &types[k];
		if (efa_max == NULL || types[k].efa > efa_max->efa)
			efa_max = &types[k];
	}
	if (!named) {
		fit_type_names(types, n, names, sizeof(names));
		sw_ferr_add(&r->ferrs, "instance_type", "cluster",
		    "cluster "
		    "%s has no instance group of type %s; its types are %s",
		    ask->cluster, ask->instance_type, names);
	} else {
		if (ask->gpus > gpu_max->gpus)
			sw_ferr_add(&r->ferrs, ask->gpu_field, "fits",
			    "asks for %lld GPUs on one node; the largest "
			    "node of cluster %s (%s) has %lld",
			    (long long)ask->gpus, ask->cluster, gpu_max->name,
			    (long long)gpu_max->gpus);
		if (ask->efa > efa_max->efa)
			sw_ferr_add(&r->ferrs, ask->efa_field, "fits",
			    "asks for %lld EFA interfaces on one node; the "
			    "most any node of cluster %s has is %lld (%s)",
			    (long long)ask->efa, ask->cluster,
			    (long long)efa_max->efa, efa_max->name);
	}
	if (r->ferrs.n == 0)
		return SW_OK;
	return sw_req_fail(
	    r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field, r->ferrs.e[0].msg);
}

int
wl_fit_types(struct sw_req *r, const char *cluster, const char *itype,
    int64_t gpus, struct wl_fit_type *out, int max)
{
	struct fit_type types[SW_MAX_GROUPS];
	int n, k, found = 0;

	n = fit_group_types(r, cluster, types, SW_MAX_GROUPS);
	if (n <= 0 || fit_type_facts(r, types, n) != 0)
		return -1;
	for (k = 0; k < n && found < max; k++) {
		if ((itype != NULL && strcmp(types[k].name, itype) != 0) ||
		    types[k].gpus < gpus || types[k].gpus <= 0)
			continue;
		memcpy(out[found].name, types[k].name, sizeof(out[0].name));
		out[found++].gpus = types[k].gpus;
	}
	return found;
}
