/*
 * capacity.c: the pre-flight of instance counts, shared by cluster
 * create, instance_group_add and instance_group_scale.  A request for
 * instances of a type is held to SageMaker's service quota for that type
 * ("ml.<type> for cluster usage", read by name from Service Quotas) net
 * of what the account already runs of it: every HyperPod cluster in the
 * account and region (ListClusters, DescribeCluster), not only Slipway's,
 * counting each group's larger of current and target count.  Groups on a
 * training plan use reserved capacity and count against the plan instead
 * (h_check_training_plan), as SageMaker counts them.
 *
 * Each cluster's groups are kept in the database (aws_facts) for
 * CAPACITY_KEEP_MS, keyed by its ARN and status, so a thousand creates
 * in an account of a thousand clusters do not each describe every one:
 * a cluster that Slipway or anyone changes leaves InService for
 * Updating and is read again; a change that never shows in its status
 * counts within CAPACITY_KEEP_MS, and SageMaker itself refuses a create
 * or update over its quota meanwhile.  The cluster being resized is
 * always read.
 *
 * The account's quotas are kept QUOTA_KEEP_MS too: a request they
 * would refuse reads them again first, so an increase counts at once.
 *
 * Refusals are 422 problem+json naming the field (e.g.
 * instance_groups[1].count) with the quota, what is in use and what was
 * requested, so a dry run answers the same as the create would, before
 * any change is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/json.h"
#include "pipelines/pipelines.h"

/* Largest number of ListClusters / ListServiceQuotas pages read. */
#define CAPACITY_PAGES 20
/* How long a cluster's groups are counted as last read. */
#define CAPACITY_KEEP_MS (30 * 1000)
/* How long the account's quotas are kept; a request they refuse reads
 * them again before it is refused. */
#define QUOTA_KEEP_MS (60 * 1000)

/* One AWS read for the pre-flight, its answer kept keep_ms (0: read
 * each time; fresh: read, and kept, h_call_kept); on failure the
 * problem is filled. */
static sw_err
read_aws_as(struct sw_req *r, enum aws_service svc, const char *op,
    json_object *in, json_object **out, int64_t keep_ms, int fresh)
{
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = keep_ms > 0 ? h_call_kept(r, svc, op, in, out, &err, keep_ms, fresh)
			: h_call(r, svc, op, in, out, &err);
	return e == SW_OK ? SW_OK : h_aws_fail(r, svc, op, e, &err);
}

static sw_err
read_aws(struct sw_req *r, enum aws_service svc, const char *op,
    json_object *in, json_object **out)
{
	return read_aws_as(r, svc, op, in, out, 0, 0);
}

/* Add one cluster's groups (hp, borrowed) to use {type: n}, leaving out
 * the group skip_group of cluster skip_cluster (it is being resized). */
static void
add_cluster_use(json_object *hp, json_object *use, const char *skip_cluster,
    const char *skip_group)
{
	json_object *groups = sw_json_get(hp, "InstanceGroups");
	const char *cname = sw_json_get_str(hp, "ClusterName");
	size_t i;

	for (i = 0; groups && i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		const char *t = sw_json_get_str(g, "InstanceType");
		const char *gname = sw_json_get_str(g, "InstanceGroupName");
		int64_t cur = sw_json_get_int(g, "CurrentCount", 0);
		int64_t want = sw_json_get_int(g, "TargetCount", 0);

		if (t == NULL || sw_json_get_str(g, "TrainingPlanArn") != NULL)
			continue;
		if (skip_group != NULL && cname != NULL && gname != NULL &&
		    strcmp(cname, skip_cluster) == 0 &&
		    strcmp(gname, skip_group) == 0)
			continue;
		sw_json_add_int(use, t,
		    sw_json_get_int(use, t, 0) + (cur > want ? cur : want));
	}
}

/* The groups of cluster c (a ClusterSummaries item) as a DescribeCluster
 * document with only what add_cluster_use reads: kept, or read and kept
 * (fresh: read, the cluster being resized). */
static sw_err
cluster_groups(struct sw_req *r, json_object *c, int fresh, json_object **hp,
    struct aws_error *err)
{
	const char *name = sw_json_get_str(c, "ClusterName");
	const char *arn = sw_json_get_str(c, "ClusterArn");
	const char *st = sw_json_get_str(c, "ClusterStatus");
	static const char *const keep[] = { "InstanceType", "InstanceGroupName",
		"CurrentCount", "TargetCount", "TrainingPlanArn", NULL };
	json_object *doc, *list, *groups, *g, *out;
	char key[512], *text = NULL, why[128];
	size_t i, k;
	sw_err e;

	*hp = NULL;
	if (name == NULL)
		return SW_ENOTFOUND;
	if (arn == NULL || st == NULL ||
	    sw_fmt(key, sizeof(key), "capacity %s %s", arn, st) != SW_OK)
		key[0] = '\0';
	if (!fresh && key[0] != '\0' &&
	    sw_fact_get(r->db, key, &text) == SW_OK && text != NULL &&
	    sw_json_parse(text, strlen(text), hp, why, sizeof(why)) == SW_OK) {
		free(text);
		return SW_OK;
	}
	free(text);
	if ((e = h_hp_describe(r, name, &doc, err)) != SW_OK)
		return e;
	list = sw_json_get(doc, "InstanceGroups");
	groups = json_object_new_array();
	for (i = 0; list && i < json_object_array_length(list); i++) {
		g = json_object_array_get_idx(list, i);
		out = json_object_new_object();
		for (k = 0; keep[k] != NULL; k++)
			if (sw_json_get(g, keep[k]) != NULL)
				json_object_object_add(out, keep[k],
				    json_object_get(sw_json_get(g, keep[k])));
		json_object_array_add(groups, out);
	}
	*hp = sw_jo("ClusterName", sw_js(name), "InstanceGroups", groups, NULL);
	json_object_put(doc);
	if (key[0] != '\0')
		(void)sw_fact_put(
		    r->db, key, sw_json_str(*hp), CAPACITY_KEEP_MS);
	return SW_OK;
}

/* Instances in use per type across the account's HyperPod clusters, as
 * {type: n}; new, or NULL with the problem filled. */
static json_object *
instances_in_use(
    struct sw_req *r, const char *skip_cluster, const char *skip_group)
{
	json_object *use = json_object_new_object(), *out = NULL, *list, *hp;
	struct aws_error err;
	char tok[1024];
	sw_err e;
	const char *token = NULL;
	int pages = 0;
	size_t i;

	do {
		if (read_aws(r, AWS_SVC_SAGEMAKER, "ListClusters",
			sw_jo("MaxResults", sw_ji(100), "NextToken",
			    token ? sw_js(token) : NULL, NULL),
			&out) != SW_OK)
			goto fail;
		list = sw_json_get(out, "ClusterSummaries");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *c = json_object_array_get_idx(list, i);
			const char *st = sw_json_get_str(c, "ClusterStatus");

			/* SageMaker counts no instance of these. */
			if (st != NULL &&
			    (strcmp(st, "Deleting") == 0 ||
				strcmp(st, "Failed") == 0))
				continue;
			e = cluster_groups(r, c,
			    skip_cluster != NULL &&
				sw_json_get_str(c, "ClusterName") != NULL &&
				strcmp(skip_cluster,
				    sw_json_get_str(c, "ClusterName")) == 0,
			    &hp, &err);
			if (e == SW_ENOTFOUND)
				continue; /* gone meanwhile */
			if (e != SW_OK) {
				h_aws_fail(r, AWS_SVC_SAGEMAKER,
				    "DescribeCluster", e, &err);
				goto fail;
			}
			add_cluster_use(hp, use, skip_cluster, skip_group);
			json_object_put(hp);
		}
		token = sw_json_copy_str(out, "NextToken", tok, sizeof(tok));
		json_object_put(out);
		out = NULL;
	} while (token != NULL && ++pages < CAPACITY_PAGES);
	return use;
fail:
	json_object_put(out);
	json_object_put(use);
	return NULL;
}

/* SageMaker's cluster-usage quotas by instance type {type: value},
 * kept QUOTA_KEEP_MS (fresh: read now); new, or NULL with the problem
 * filled.  A type with no quota on record is not held to one. */
static json_object *
cluster_quotas(struct sw_req *r, int fresh)
{
	static const char suffix[] = " for cluster usage";
	json_object *q = json_object_new_object(), *out = NULL, *list;
	char tok[1024], type[128];
	const char *token = NULL;
	int pages = 0;
	size_t i, n;

	do {
		if (read_aws_as(r, AWS_SVC_QUOTAS, "ListServiceQuotas",
			sw_jo("ServiceCode", sw_js("sagemaker"), "MaxResults",
			    sw_ji(100), "NextToken",
			    token ? sw_js(token) : NULL, NULL),
			&out, QUOTA_KEEP_MS, fresh) != SW_OK) {
			json_object_put(q);
			return NULL;
		}
		list = sw_json_get(out, "Quotas");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *e = json_object_array_get_idx(list, i);
			const char *qn = sw_json_get_str(e, "QuotaName");

			if (qn == NULL ||
			    (n = strlen(qn)) <= sizeof(suffix) - 1 ||
			    strcmp(qn + n - (sizeof(suffix) - 1), suffix) !=
				0 ||
			    n - (sizeof(suffix) - 1) >= sizeof(type))
				continue;
			memcpy(type, qn, n - (sizeof(suffix) - 1));
			type[n - (sizeof(suffix) - 1)] = '\0';
			sw_json_add_int(q, type,
			    (int64_t)json_object_get_double(
				sw_json_get(e, "Value")));
		}
		token = sw_json_copy_str(out, "NextToken", tok, sizeof(tok));
		json_object_put(out);
		out = NULL;
	} while (token != NULL && ++pages < CAPACITY_PAGES);
	return q;
}

/* The ask (want: {type: n} of every ask) goes past its type's quota. */
static int
ask_over(const struct h_capacity_ask *a, json_object *quotas, json_object *use,
    json_object *want)
{
	int64_t limit = sw_json_get_int(quotas, a->type, -1);

	return a->plan == NULL && limit >= 0 &&
	    sw_json_get_int(use, a->type, 0) +
		sw_json_get_int(want, a->type, 0) >
	    limit;
}

static int
over_quota(const struct h_capacity_ask *asks, size_t n, json_object *quotas,
    json_object *use, json_object *want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ask_over(&asks[i], quotas, use, want))
			return 1;
	return 0;
}

sw_err
h_check_quota(struct sw_req *r, const struct h_capacity_ask *asks, size_t n,
    const char *skip_cluster, const char *skip_group)
{
	json_object *use = NULL, *quotas = NULL, *want;
	size_t i, k;
	sw_err e = SW_OK;

	want = json_object_new_object();
	for (i = 0; i < n; i++)
		if (asks[i].plan == NULL)
			sw_json_add_int(want, asks[i].type,
			    sw_json_get_int(want, asks[i].type, 0) +
				asks[i].count);
	if (json_object_object_length(want) == 0)
		goto out;
	if ((quotas = cluster_quotas(r, 0)) == NULL ||
	    (use = instances_in_use(r, skip_cluster, skip_group)) == NULL) {
		e = r->err;
		goto out;
	}
	/* Refused by the quotas as kept: by the account's quotas now? (An
	 * increase granted meanwhile counts at once.) */
	if (over_quota(asks, n, quotas, use, want)) {
		json_object_put(quotas);
		if ((quotas = cluster_quotas(r, 1)) == NULL) {
			e = r->err;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		const char *t = asks[i].type;
		int64_t limit = sw_json_get_int(quotas, t, -1);
		int64_t inuse = sw_json_get_int(use, t, 0);
		int64_t asked = sw_json_get_int(want, t, 0);

		if (!ask_over(&asks[i], quotas, use, want))
			continue;
		for (k = 0; k < i; k++) /* one error per type */
			if (asks[k].plan == NULL &&
			    strcmp(asks[k].type, t) == 0)
				break;
		if (k < i)
			continue;
		sw_ferr_add(&r->ferrs, asks[i].field, "quota",
		    "service quota "
		    "'%s for cluster usage' is %lld; %lld in use in the "
		    "account; %lld requested (%lld over)",
		    t, (long long)limit, (long long)inuse, (long long)asked,
		    (long long)(inuse + asked - limit));
	}
	if (r->ferrs.n > 0)
		e = sw_req_fail(r, SW_EPRECONDITION,
		    "%s: %s; ask for an "
		    "increase in Service Quotas, or free instances first",
		    r->ferrs.e[0].field, r->ferrs.e[0].msg);
out:
	json_object_put(want);
	json_object_put(quotas);
	json_object_put(use);
	return e;
}

sw_err
h_check_offered(
    struct sw_req *r, const char *type, const char *az, const char *field)
{
	json_object *out, *list;
	size_t i;
	int found = 0;

	if (read_aws_as(r, AWS_SVC_EC2, "DescribeInstanceTypeOfferings",
		sw_jo("LocationType", sw_js("availability-zone"), "Filters",
		    sw_ja(sw_jo("Name", sw_js("instance-type"), "Values",
			      sw_ja(sw_js(sw_ec2_type(type))), NULL),
			sw_jo("Name", sw_js("location"), "Values",
			    sw_ja(sw_js(az)), NULL)),
		    NULL),
		&out, H_FACT_KEEP_MS, 0) != SW_OK)
		return r->err;
	list = sw_json_get(out, "instanceTypeOfferingSet");
	for (i = 0; list && i < json_object_array_length(list); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(list, i), "location")
			    ?: "",
			az) == 0)
			found = 1;
	json_object_put(out);
	if (found)
		return SW_OK;
	sw_ferr_add(
	    &r->ferrs, field, "offered", "%s is not offered in %s", type, az);
	return sw_req_fail(
	    r, SW_EPRECONDITION, "%s is not offered in %s", type, az);
}
