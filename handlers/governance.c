/*
 * governance.c: task governance of a HyperPod cluster (compute quotas
 * per team and the cluster's scheduler config) and the cluster's event
 * history.  Each request is one or two SageMaker calls, so nothing here
 * starts an operation: a change answers with the resource as SageMaker
 * now reports it (status Creating or Updating) and names the tool that
 * follows it to Created or Updated.
 *
 * A quota is addressed by its name within the cluster; SageMaker knows
 * it by an id, found by listing the cluster's quotas.  A team's quota
 * covers the namespace hyperpod-ns-<team>, whose Kueue queue is
 * hyperpod-ns-<team>-localqueue.  The scheduler config is created only
 * once the task governance add-on is ACTIVE: SageMaker would accept it
 * earlier and end it CreateFailed.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/ops.h"
#include "pipelines/featdefs.h"

#define ARN_MAX 256
#define ID_MAX 64

/* What names a HyperPod cluster: its ARN and its SageMaker id. */
struct hp_ref {
	char arn[ARN_MAX];
	char id[ID_MAX];
	char eks[ARN_MAX]; /* EKS cluster name, "" when none */
	char types[512]; /* " ml.a ml.b ": its groups' instance types */
};

/* One SageMaker call; on failure the request's problem is filled. */
static sw_err
sm_call(struct sw_req *r, const char *op, json_object *in, json_object **out)
{
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_SAGEMAKER, op, in, out, &err);
	if (e == SW_OK)
		return SW_OK;
	return h_aws_fail(r, AWS_SVC_SAGEMAKER, op, e, &err);
}

static sw_err
copy_str(
    struct sw_req *r, char *dst, size_t sz, const char *src, const char *what)
{
	int n = snprintf(dst, sz, "%s", src ? src : "");

	if (n < 0 || (size_t)n >= sz)
		return sw_req_fail(r, SW_EUPSTREAM, "%s too long", what);
	return SW_OK;
}

/* The instance types of a DescribeCluster answer's groups (hp,
 * borrowed) into ref->types, each between spaces. */
static sw_err
group_types(struct sw_req *r, json_object *hp, struct hp_ref *ref)
{
	json_object *groups = sw_json_get(hp, "InstanceGroups");
	size_t i, len = 1;
	int n;

	memcpy(ref->types, " ", 2);
	for (i = 0; groups && i < json_object_array_length(groups); i++) {
		n = snprintf(ref->types + len, sizeof(ref->types) - len, "%s ",
		    sw_json_get_str(
			json_object_array_get_idx(groups, i), "InstanceType")
			?: "");
		if (n < 0 || (size_t)n >= sizeof(ref->types) - len)
			return sw_req_fail(r, SW_EUPSTREAM,
			    "too many instance "
			    "groups in the cluster's description");
		len += (size_t)n;
	}
	return SW_OK;
}

/* SageMaker's rule, checked before asking it so the answer names the
 * field: a quota's instance type is one of the cluster's groups'. */
static sw_err
quota_type_ok(struct sw_req *r, const struct hp_ref *ref, json_object *a)
{
	const char *type = sw_json_get_str(a, "instance_type");
	char word[80];
	int n;

	if (type == NULL)
		return SW_OK;
	n = snprintf(word, sizeof(word), " %s ", type);
	if (n > 0 && (size_t)n < sizeof(word) && strstr(ref->types, word))
		return SW_OK;
	sw_ferr_add(&r->ferrs, "instance_type", "exists",
	    "%s is not the "
	    "instance type of any group of the cluster (it has:%s)",
	    type, ref->types);
	return sw_req_fail(r, SW_EINVAL,
	    "instance_type %s is not in the "
	    "cluster",
	    type);
}

/* The HyperPod cluster name: its ARN, id and EKS cluster into ref. */
static sw_err
hp_lookup(struct sw_req *r, const char *name, struct hp_ref *ref)
{
	json_object *out;
	const char *arn, *eks, *slash;
	sw_err e;

	memset(ref, 0, sizeof(*ref));
	if (h_hp_need(r, name, &out) != SW_OK)
		return r->err;
	arn = sw_json_get_str(out, "ClusterArn");
	eks = sw_json_path_str(out, "Orchestrator.Eks.ClusterArn");
	slash = arn ? strrchr(arn, '/') : NULL;
	e = copy_str(r, ref->arn, sizeof(ref->arn), arn, "ClusterArn");
	if (e == SW_OK)
		e = copy_str(r, ref->id, sizeof(ref->id),
		    slash ? slash + 1 : NULL, "cluster id");
	if (e == SW_OK && eks != NULL && strrchr(eks, '/') != NULL)
		e = copy_str(r, ref->eks, sizeof(ref->eks),
		    strrchr(eks, '/') + 1, "EKS cluster name");
	if (e == SW_OK)
		e = group_types(r, out, ref);
	json_object_put(out);
	if (e == SW_OK && ref->arn[0] == '\0')
		return sw_req_fail(r, SW_EUPSTREAM,
		    "DescribeCluster %s gave "
		    "no ClusterArn",
		    name);
	return e;
}

/* As hp_lookup, for a change: only of a cluster Slipway owns (the one
 * rule every mutating operation goes through, handlers/ownership.c). */
static sw_err
hp_change(struct sw_req *r, const char *name, struct hp_ref *ref)
{
	struct sw_cluster_rec rec;

	if (h_owned(r, name, &rec) != SW_OK)
		return r->err;
	return hp_lookup(r, name, ref);
}

/* Is the task governance add-on ACTIVE on the EKS cluster?  1 yes, 0
 * no, -1 when it could not be read (the problem is filled). */
static int
task_governance_active(
    struct sw_req *r, const struct hp_ref *ref, char *status, size_t sz)
{
	json_object *out;
	struct aws_error err;
	const char *st;
	sw_err e;

	sw_fmt_text(status, sz, "absent");
	if (ref->eks[0] == '\0')
		return 0;
	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo("clusterName", sw_js(ref->eks), "addonName",
		sw_js(SW_FEAT_ADDON(SW_FEAT_TASK_GOVERNANCE)), NULL),
	    &out, &err);
	if (e != SW_OK) {
		if (e == SW_ENOTFOUND)
			return 0;
		h_aws_fail(r, AWS_SVC_EKS, "DescribeAddon", e, &err);
		return -1;
	}
	st = sw_json_path_str(out, "addon.status");
	sw_fmt_text(status, sz, "%s", st ? st : "unknown");
	json_object_put(out);
	return strcmp(status, "ACTIVE") == 0;
}

/* The answer of a dry run: the one call that would be made (in stolen). */
static sw_err
dry_answer(struct sw_req *r, const char *op, json_object *in)
{
	sw_req_reply(r, 200,
	    sw_jo("dry_run", sw_jb(1), "calls",
		sw_ja(sw_jo("service", sw_js("sagemaker"), "operation",
		    sw_js(op), "input", in, NULL)),
		NULL));
	return SW_OK;
}

static json_object *
time_json(json_object *o, const char *key)
{
	json_object *v = sw_json_get(o, key);
	char buf[32];
	struct tm tm;
	time_t t;

	if (v == NULL)
		return NULL;
	t = (time_t)json_object_get_double(v);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return NULL;
	return json_object_new_string(buf);
}

/* ---- compute quotas --------------------------------------------------- */

static json_object *
quota_view(json_object *q)
{
	json_object *res =
	    sw_json_path(q, "ComputeQuotaConfig.ComputeQuotaResources[0]");
	const char *team = sw_json_path_str(q, "ComputeQuotaTarget.TeamName");
	char ns[128], queue[160];
	int named;

	/* A name that does not fit is left out, never cut. */
	named = sw_fmt(ns, sizeof(ns), "hyperpod-ns-%s", team ? team : "") ==
		SW_OK &&
	    sw_fmt(queue, sizeof(queue), "%s-localqueue", ns) == SW_OK;
	return sw_jo("quota_name", sw_js(sw_json_get_str(q, "Name")), "id",
	    sw_js(sw_json_get_str(q, "ComputeQuotaId")), "arn",
	    sw_js(sw_json_get_str(q, "ComputeQuotaArn")), "team", sw_js(team),
	    "namespace", named ? sw_js(ns) : NULL, "queue",
	    named ? sw_js(queue) : NULL, "instance_type",
	    sw_js(sw_json_get_str(res, "InstanceType")), "count",
	    json_object_get(sw_json_get(res, "Count")), "accelerators",
	    json_object_get(sw_json_get(res, "Accelerators")), "vcpu",
	    json_object_get(sw_json_get(res, "VCpu")), "memory_gib",
	    json_object_get(sw_json_get(res, "MemoryInGiB")),
	    "fair_share_weight",
	    json_object_get(
		sw_json_path(q, "ComputeQuotaTarget.FairShareWeight")),
	    "sharing",
	    sw_js(sw_json_path_str(
		q, "ComputeQuotaConfig.ResourceSharingConfig.Strategy")),
	    "borrow_limit",
	    json_object_get(sw_json_path(
		q, "ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit")),
	    "preempt",
	    sw_js(sw_json_path_str(q, "ComputeQuotaConfig.PreemptTeamTasks")),
	    "enabled",
	    sw_jb(sw_json_get_str(q, "ActivationState") == NULL ||
		strcmp(sw_json_get_str(q, "ActivationState"), "Enabled") == 0),
	    "status", sw_js(sw_json_get_str(q, "Status")), "version",
	    json_object_get(sw_json_get(q, "ComputeQuotaVersion")),
	    "failure_reason", sw_js(sw_json_get_str(q, "FailureReason")),
	    "created", time_json(q, "CreationTime"), NULL);
}

/* The SageMaker id of the quota called qname in the cluster into id. */
static sw_err
quota_find(struct sw_req *r, const struct hp_ref *ref, const char *qname,
    char *id, size_t sz)
{
	json_object *out, *list;
	size_t i;
	sw_err e = SW_ENOTFOUND;

	if (sm_call(r, "ListComputeQuotas",
		sw_jo("ClusterArn", sw_js(ref->arn), "NameContains",
		    sw_js(qname), "MaxResults", sw_ji(100), NULL),
		&out) != SW_OK)
		return r->err;
	list = sw_json_get(out, "ComputeQuotaSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *q = json_object_array_get_idx(list, i);

		if (strcmp(sw_json_get_str(q, "Name") ?: "", qname) == 0 &&
		    strcmp(sw_json_get_str(q, "Status") ?: "", "Deleting")) {
			e = copy_str(r, id, sz,
			    sw_json_get_str(q, "ComputeQuotaId"),
			    "ComputeQuotaId");
			break;
		}
	}
	json_object_put(out);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(
		    r, e, "no compute quota %s in this cluster", qname);
	return e;
}

/* The ComputeQuotaResources item of the request, merged over old (the
 * current item, borrowed, may be NULL).  New reference. */
static json_object *
quota_resource(json_object *a, json_object *old)
{
	static const struct {
		const char *arg, *key;
	} keys[] = {
		{ "count", "Count" },
		{ "accelerators", "Accelerators" },
		{ "vcpu", "VCpu" },
		{ "memory_gib", "MemoryInGiB" },
	};
	json_object *res = json_object_new_object();
	const char *type = sw_json_get_str(a, "instance_type");
	int given = 0;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		given |= sw_json_get(a, keys[i].arg) != NULL;
	if (type == NULL && old != NULL)
		type = sw_json_get_str(old, "InstanceType");
	json_object_object_add(res, "InstanceType", sw_js(type));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v = sw_json_get(a, keys[i].arg);

		if (v == NULL && !given && old != NULL)
			v = sw_json_get(old, keys[i].key);
		if (v != NULL)
			json_object_object_add(
			    res, keys[i].key, json_object_get(v));
	}
	return res;
}

/* The ResourceSharingConfig of the request over old (may be NULL).
 * New reference, or NULL when the request names neither sharing nor
 * borrow_limit. */
static json_object *
quota_sharing(json_object *a, json_object *old)
{
	const char *strategy = sw_json_get_str(a, "sharing");
	json_object *limit = sw_json_get(a, "borrow_limit");

	if (strategy == NULL && limit == NULL)
		return NULL;
	if (strategy == NULL && old != NULL)
		strategy = sw_json_get_str(old, "Strategy");
	if (limit == NULL && old != NULL &&
	    sw_json_get_str(a, "sharing") == NULL)
		limit = sw_json_get(old, "BorrowLimit");
	return sw_jo("Strategy", sw_js(strategy ? strategy : "LendAndBorrow"),
	    "BorrowLimit", json_object_get(limit), NULL);
}

/* Cross-field rules the field table cannot say. */
static sw_err
quota_rules(struct sw_req *r, json_object *a, int creating)
{
	const char *sharing = sw_json_get_str(a, "sharing");

	if (creating && sw_json_get(a, "count") == NULL &&
	    sw_json_get(a, "accelerators") == NULL &&
	    sw_json_get(a, "vcpu") == NULL &&
	    sw_json_get(a, "memory_gib") == NULL)
		sw_ferr_add(&r->ferrs, "count", "required",
		    "give count, "
		    "accelerators, vcpu or memory_gib");
	if (sw_json_get(a, "borrow_limit") != NULL && sharing != NULL &&
	    strcmp(sharing, "LendAndBorrow") != 0)
		sw_ferr_add(&r->ferrs, "borrow_limit", "conflict",
		    "only with "
		    "sharing LendAndBorrow");
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	return SW_OK;
}

/* The quota called qname as it is now, answered with status (201 for a
 * create, 200 otherwise) and the tool that follows it. */
static sw_err
quota_answer(
    struct sw_req *r, const struct hp_ref *ref, const char *qname, int status)
{
	char id[ID_MAX];
	json_object *out, *view;

	if (quota_find(r, ref, qname, id, sizeof(id)) != SW_OK ||
	    sm_call(r, "DescribeComputeQuota",
		sw_jo("ComputeQuotaId", sw_js(id), NULL), &out) != SW_OK)
		return r->err;
	view = quota_view(out);
	json_object_put(out);
	json_object_object_add(view, "status_tool", sw_js("compute_quota_get"));
	sw_req_reply(r, status, view);
	return SW_OK;
}

sw_err
h_compute_quota_list(struct sw_req *r)
{
	struct hp_ref ref;
	json_object *out, *list, *items;
	size_t i;

	if (hp_lookup(r, sw_json_get_str(r->args, "name"), &ref) != SW_OK)
		return r->err;
	if (sm_call(r, "ListComputeQuotas",
		sw_jo("ClusterArn", sw_js(ref.arn), "SortBy", sw_js("Name"),
		    "SortOrder", sw_js("Ascending"), "MaxResults", sw_ji(100),
		    NULL),
		&out) != SW_OK)
		return r->err;
	items = json_object_new_array();
	list = sw_json_get(out, "ComputeQuotaSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++)
		json_object_array_add(
		    items, quota_view(json_object_array_get_idx(list, i)));
	json_object_put(out);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

sw_err
h_compute_quota_get(struct sw_req *r)
{
	struct hp_ref ref;
	char id[ID_MAX];
	json_object *out;

	if (hp_lookup(r, sw_json_get_str(r->args, "name"), &ref) != SW_OK ||
	    quota_find(r, &ref, sw_json_get_str(r->args, "quota"), id,
		sizeof(id)) != SW_OK)
		return r->err;
	if (sm_call(r, "DescribeComputeQuota",
		sw_jo("ComputeQuotaId", sw_js(id), NULL), &out) != SW_OK)
		return r->err;
	sw_req_reply(r, 200, quota_view(out));
	json_object_put(out);
	return SW_OK;
}

sw_err
h_compute_quota_create(struct sw_req *r)
{
	json_object *a = r->args, *in, *out, *cfg, *sharing;
	const char *qname = sw_json_get_str(a, "quota_name");
	struct hp_ref ref;

	if (quota_rules(r, a, 1) != SW_OK ||
	    hp_change(r, sw_json_get_str(a, "name"), &ref) != SW_OK ||
	    quota_type_ok(r, &ref, a) != SW_OK)
		return r->err;
	cfg = sw_jo("ComputeQuotaResources", sw_ja(quota_resource(a, NULL)),
	    "PreemptTeamTasks", sw_js(sw_json_get_str(a, "preempt")), NULL);
	if ((sharing = quota_sharing(a, NULL)) != NULL)
		json_object_object_add(cfg, "ResourceSharingConfig", sharing);
	in = sw_jo("Name", sw_js(qname), "ClusterArn", sw_js(ref.arn),
	    "Description", sw_js(sw_json_get_str(a, "description")),
	    "ComputeQuotaConfig", cfg, "ComputeQuotaTarget",
	    sw_jo("TeamName", sw_js(sw_json_get_str(a, "team")),
		"FairShareWeight",
		json_object_get(sw_json_get(a, "fair_share_weight")), NULL),
	    "ActivationState",
	    sw_js(sw_json_get_bool(a, "enabled", 1) ? "Enabled" : "Disabled"),
	    NULL);
	if (r->dry_run)
		return dry_answer(r, "CreateComputeQuota", in);
	if (sm_call(r, "CreateComputeQuota", in, &out) != SW_OK)
		return r->err;
	json_object_put(out);
	return quota_answer(r, &ref, qname, 201);
}

sw_err
h_compute_quota_update(struct sw_req *r)
{
	json_object *a = r->args, *cur, *in, *out, *cfg = NULL, *sharing;
	const char *qname = sw_json_get_str(a, "quota");
	struct hp_ref ref;
	char id[ID_MAX];
	int resource;

	if (quota_rules(r, a, 0) != SW_OK ||
	    hp_change(r, sw_json_get_str(a, "name"), &ref) != SW_OK ||
	    quota_type_ok(r, &ref, a) != SW_OK ||
	    quota_find(r, &ref, qname, id, sizeof(id)) != SW_OK)
		return r->err;
	if (sm_call(r, "DescribeComputeQuota",
		sw_jo("ComputeQuotaId", sw_js(id), NULL), &cur) != SW_OK)
		return r->err;
	resource = sw_json_get(a, "instance_type") || sw_json_get(a, "count") ||
	    sw_json_get(a, "accelerators") || sw_json_get(a, "vcpu") ||
	    sw_json_get(a, "memory_gib");
	sharing = quota_sharing(
	    a, sw_json_path(cur, "ComputeQuotaConfig.ResourceSharingConfig"));
	if (resource || sharing != NULL || sw_json_get(a, "preempt")) {
		cfg = sw_jo("ComputeQuotaResources",
		    sw_ja(quota_resource(a,
			sw_json_path(cur,
			    "ComputeQuotaConfig.ComputeQuotaResources[0]"))),
		    "PreemptTeamTasks",
		    sw_js(sw_json_get_str(a, "preempt")
			    ?: sw_json_path_str(
				   cur, "ComputeQuotaConfig.PreemptTeamTasks")),
		    NULL);
		if (sharing != NULL)
			json_object_object_add(
			    cfg, "ResourceSharingConfig", sharing);
	}
	in = sw_jo("ComputeQuotaId", sw_js(id), "TargetVersion",
	    json_object_get(sw_json_get(cur, "ComputeQuotaVersion")),
	    "ComputeQuotaConfig", cfg, "ComputeQuotaTarget",
	    sw_json_get(a, "fair_share_weight")
		? sw_jo("TeamName",
		      sw_js(
			  sw_json_path_str(cur, "ComputeQuotaTarget.TeamName")),
		      "FairShareWeight",
		      json_object_get(sw_json_get(a, "fair_share_weight")),
		      NULL)
		: NULL,
	    "ActivationState",
	    sw_json_get(a, "enabled")
		? sw_js(sw_json_get_bool(a, "enabled", 1) ? "Enabled"
							  : "Disabled")
		: NULL,
	    "Description", sw_js(sw_json_get_str(a, "description")), NULL);
	json_object_put(cur);
	if (json_object_object_length(in) <= 2) {
		json_object_put(in);
		return sw_req_fail(r, SW_EINVAL,
		    "nothing to change: give at "
		    "least one field");
	}
	if (r->dry_run)
		return dry_answer(r, "UpdateComputeQuota", in);
	if (sm_call(r, "UpdateComputeQuota", in, &out) != SW_OK)
		return r->err;
	json_object_put(out);
	return quota_answer(r, &ref, qname, 200);
}

sw_err
h_compute_quota_delete(struct sw_req *r)
{
	const char *qname = sw_json_get_str(r->args, "quota");
	struct hp_ref ref;
	char id[ID_MAX];
	json_object *in, *out;

	if (hp_change(r, sw_json_get_str(r->args, "name"), &ref) != SW_OK ||
	    quota_find(r, &ref, qname, id, sizeof(id)) != SW_OK)
		return r->err;
	in = sw_jo("ComputeQuotaId", sw_js(id), NULL);
	if (r->dry_run)
		return dry_answer(r, "DeleteComputeQuota", in);
	if (sm_call(r, "DeleteComputeQuota", in, &out) != SW_OK)
		return r->err;
	json_object_put(out);
	sw_req_reply(r, 202,
	    sw_jo("quota_name", sw_js(qname), "id", sw_js(id), "status",
		sw_js("Deleting"), "status_tool", sw_js("compute_quota_list"),
		NULL));
	return SW_OK;
}

/* ---- scheduler config -------------------------------------------------- */

static json_object *
sched_view(json_object *s)
{
	json_object *pcs = sw_json_path(s, "SchedulerConfig.PriorityClasses");
	json_object *items = json_object_new_array();
	const char *fs = sw_json_path_str(s, "SchedulerConfig.FairShare");
	const char *idle =
	    sw_json_path_str(s, "SchedulerConfig.IdleResourceSharing");
	size_t i;

	for (i = 0; pcs && i < json_object_array_length(pcs); i++) {
		json_object *pc = json_object_array_get_idx(pcs, i);

		json_object_array_add(items,
		    sw_jo("name", sw_js(sw_json_get_str(pc, "Name")), "weight",
			json_object_get(sw_json_get(pc, "Weight")), NULL));
	}
	return sw_jo("id",
	    sw_js(sw_json_get_str(s, "ClusterSchedulerConfigId")),
	    "config_name", sw_js(sw_json_get_str(s, "Name")), "arn",
	    sw_js(sw_json_get_str(s, "ClusterSchedulerConfigArn")), "status",
	    sw_js(sw_json_get_str(s, "Status")), "version",
	    json_object_get(sw_json_get(s, "ClusterSchedulerConfigVersion")),
	    "failure_reason", sw_js(sw_json_get_str(s, "FailureReason")),
	    "priority_classes", items, "fair_share",
	    sw_jb(fs == NULL || strcmp(fs, "Enabled") == 0),
	    "idle_resource_sharing",
	    sw_jb(idle == NULL || strcmp(idle, "Enabled") == 0), NULL);
}

/* The cluster's scheduler config (Describe answer) into *out, or NULL
 * when it has none; SW_OK either way unless a call failed. */
static sw_err
sched_current(struct sw_req *r, const struct hp_ref *ref, json_object **out)
{
	json_object *list, *l;
	const char *id = NULL;
	size_t i;
	sw_err e = SW_OK;

	*out = NULL;
	if (sm_call(r, "ListClusterSchedulerConfigs",
		sw_jo("ClusterArn", sw_js(ref->arn), "MaxResults", sw_ji(100),
		    NULL),
		&list) != SW_OK)
		return r->err;
	l = sw_json_get(list, "ClusterSchedulerConfigSummaries");
	for (i = 0; l && i < json_object_array_length(l); i++) {
		json_object *s = json_object_array_get_idx(l, i);

		if (strcmp(sw_json_get_str(s, "Status") ?: "", "Deleting")) {
			id = sw_json_get_str(s, "ClusterSchedulerConfigId");
			break;
		}
	}
	if (id != NULL)
		e = sm_call(r, "DescribeClusterSchedulerConfig",
		    sw_jo("ClusterSchedulerConfigId", sw_js(id), NULL), out);
	json_object_put(list);
	return e;
}

sw_err
h_scheduler_config_get(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	struct hp_ref ref;
	json_object *cur;
	char addon[32];
	int active;

	if (hp_lookup(r, name, &ref) != SW_OK ||
	    sched_current(r, &ref, &cur) != SW_OK)
		return r->err;
	if ((active = task_governance_active(r, &ref, addon, sizeof(addon))) <
	    0) {
		json_object_put(cur);
		return r->err;
	}
	if (cur == NULL) {
		sw_req_reply(r, 200,
		    sw_jo("configured", sw_jb(0), "task_governance",
			sw_js(addon), NULL));
		return SW_OK;
	}
	{
		json_object *view = sched_view(cur);

		json_object_object_add(view, "configured", sw_jb(1));
		json_object_object_add(view, "task_governance", sw_js(addon));
		json_object_put(cur);
		sw_req_reply(r, 200, view);
	}
	return SW_OK;
}

/* The SchedulerConfig document of the request over cur (may be NULL). */
static json_object *
sched_doc(json_object *a, json_object *cur)
{
	json_object *pcs = sw_json_get(a, "priority_classes"), *list;
	json_object *fs = sw_json_get(a, "fair_share");
	json_object *idle = sw_json_get(a, "idle_resource_sharing");
	size_t i;

	if (pcs != NULL) {
		list = json_object_new_array();
		for (i = 0; i < json_object_array_length(pcs); i++) {
			json_object *pc = json_object_array_get_idx(pcs, i);

			json_object_array_add(list,
			    sw_jo("Name", sw_js(sw_json_get_str(pc, "name")),
				"Weight",
				json_object_get(sw_json_get(pc, "weight")),
				NULL));
		}
	} else
		list = json_object_get(
		    sw_json_path(cur, "SchedulerConfig.PriorityClasses"));
	return sw_jo("PriorityClasses", list, "FairShare",
	    fs ? sw_js(json_object_get_boolean(fs) ? "Enabled" : "Disabled")
	       : sw_js(sw_json_path_str(cur, "SchedulerConfig.FairShare")),
	    "IdleResourceSharing",
	    idle ? sw_js(json_object_get_boolean(idle) ? "Enabled" : "Disabled")
		 : sw_js(sw_json_path_str(
		       cur, "SchedulerConfig.IdleResourceSharing")),
	    NULL);
}

sw_err
h_scheduler_config_set(struct sw_req *r)
{
	json_object *a = r->args, *cur, *in, *out;
	const char *name = sw_json_get_str(a, "name");
	const char *op, *st;
	struct hp_ref ref;
	char addon[32], cname[96];
	int active, n;

	if (hp_change(r, name, &ref) != SW_OK)
		return r->err;
	if ((active = task_governance_active(r, &ref, addon, sizeof(addon))) <
	    0)
		return r->err;
	if (!active)
		return sw_req_fail(r, SW_ECONFLICT,
		    "the task governance "
		    "add-on is %s on %s: turn it on first (feature_set "
		    "{\"task_governance\": true}); a scheduler config created "
		    "before it is active ends CreateFailed",
		    addon, name);
	if (sched_current(r, &ref, &cur) != SW_OK)
		return r->err;
	st = cur ? sw_json_get_str(cur, "Status") : NULL;
	if (st != NULL &&
	    (strcmp(st, "CreateFailed") == 0 || strcmp(st, "Creating") == 0 ||
		strcmp(st, "Updating") == 0)) {
		sw_req_fail(r, SW_ECONFLICT,
		    "the scheduler config of %s is "
		    "%s%s%s",
		    name, st, sw_json_get_str(cur, "FailureReason") ? ": " : "",
		    sw_json_get_str(cur, "FailureReason") ?: "");
		json_object_put(cur);
		return r->err;
	}
	if (cur == NULL) {
		n = snprintf(cname, sizeof(cname), "%s-scheduler", name);
		if (n < 0 || (size_t)n >= sizeof(cname))
			return sw_req_fail(r, SW_EINVAL,
			    "cluster name too "
			    "long");
		op = "CreateClusterSchedulerConfig";
		in = sw_jo("Name", sw_js(cname), "ClusterArn", sw_js(ref.arn),
		    "SchedulerConfig", sched_doc(a, NULL), NULL);
	} else {
		op = "UpdateClusterSchedulerConfig";
		in = sw_jo("ClusterSchedulerConfigId",
		    sw_js(sw_json_get_str(cur, "ClusterSchedulerConfigId")),
		    "TargetVersion",
		    json_object_get(
			sw_json_get(cur, "ClusterSchedulerConfigVersion")),
		    "SchedulerConfig", sched_doc(a, cur), NULL);
	}
	json_object_put(cur);
	if (r->dry_run)
		return dry_answer(r, op, in);
	if (sm_call(r, op, in, &out) != SW_OK)
		return r->err;
	json_object_put(out);
	if (sched_current(r, &ref, &cur) != SW_OK)
		return r->err;
	if (cur == NULL)
		return sw_req_fail(r, SW_EUPSTREAM,
		    "%s answered but the "
		    "config is not listed",
		    op);
	{
		json_object *view = sched_view(cur);

		json_object_put(cur);
		json_object_object_add(
		    view, "status_tool", sw_js("scheduler_config_get"));
		sw_req_reply(r,
		    strcmp(op, "CreateClusterSchedulerConfig") ? 200 : 201,
		    view);
	}
	return SW_OK;
}

/* ---- events ----------------------------------------------------------- */

sw_err
h_cluster_events(struct sw_req *r)
{
	json_object *a = r->args, *out, *list, *items;
	const char *level = sw_json_get_str(a, "level");
	const char *next;
	size_t i;

	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL, "no AWS client");
	if (sm_call(r, "ListClusterEvents",
		sw_jo("ClusterName", sw_js(sw_json_get_str(a, "name")),
		    "InstanceGroupName",
		    sw_js(sw_json_get_str(a, "instance_group")), "NodeId",
		    sw_js(sw_json_get_str(a, "node_id")), "ResourceType",
		    sw_js(sw_json_get_str(a, "resource_type")),
		    "EventTimeAfter", json_object_get(sw_json_get(a, "since")),
		    "SortBy", sw_js("EventTime"), "SortOrder",
		    sw_js("Descending"), "MaxResults",
		    sw_ji(sw_json_get_int(a, "limit", 50)), "NextToken",
		    sw_js(sw_json_get_str(a, "cursor")), NULL),
		&out) != SW_OK) {
		if (r->err == SW_ENOTFOUND)
			return sw_req_fail(r, SW_ENOTFOUND,
			    "no HyperPod "
			    "cluster %s",
			    sw_json_get_str(a, "name"));
		return r->err;
	}
	items = json_object_new_array();
	list = sw_json_get(out, "Events");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);

		if (level != NULL &&
		    strcmp(sw_json_get_str(e, "EventLevel") ?: "", level) != 0)
			continue;
		json_object_array_add(items,
		    sw_jo("id", sw_js(sw_json_get_str(e, "EventId")), "time",
			time_json(e, "EventTime"), "level",
			sw_js(sw_json_get_str(e, "EventLevel")),
			"resource_type",
			sw_js(sw_json_get_str(e, "ResourceType")),
			"instance_group",
			sw_js(sw_json_get_str(e, "InstanceGroupName")),
			"node_id", sw_js(sw_json_get_str(e, "InstanceId")),
			"description", sw_js(sw_json_get_str(e, "Description")),
			NULL));
	}
	next = sw_json_get_str(out, "NextToken");
	sw_req_reply(r, 200,
	    sw_jo("items", items, "next", sw_js(next && *next ? next : NULL),
		NULL));
	json_object_put(out);
	return SW_OK;
}

/* ---- Kueue labels of workloads ----------------------------------------- */

/*
 * Does the cluster have a live compute quota for the team whose queue
 * is queue?  The team's namespace into team_ns.  1 yes, 0 no, -1 when
 * the quotas could not be read (problem filled).
 */
static int
queue_team(struct sw_req *r, const struct hp_ref *ref, const char *queue,
    char *team_ns, size_t sz)
{
	json_object *out, *list;
	size_t i;
	int found = 0;

	if (sm_call(r, "ListComputeQuotas",
		sw_jo("ClusterArn", sw_js(ref->arn), "MaxResults", sw_ji(100),
		    NULL),
		&out) != SW_OK)
		return -1;
	list = sw_json_get(out, "ComputeQuotaSummaries");
	for (i = 0; !found && list && i < json_object_array_length(list); i++) {
		json_object *q = json_object_array_get_idx(list, i);
		const char *st = sw_json_get_str(q, "Status") ?: "";
		char want[160];
		int n;

		if (strcmp(st, "Created") != 0 && strcmp(st, "Updated") != 0 &&
		    strcmp(st, "Updating") != 0)
			continue;
		n = snprintf(want, sizeof(want), "hyperpod-ns-%s-localqueue",
		    sw_json_path_str(q, "ComputeQuotaTarget.TeamName") ?: "");
		if (n < 0 || (size_t)n >= sizeof(want) ||
		    strcmp(want, queue) != 0)
			continue;
		if (sw_fmt(team_ns, sz, "hyperpod-ns-%s",
			sw_json_path_str(q, "ComputeQuotaTarget.TeamName")) !=
		    SW_OK)
			continue;
		found = 1;
	}
	json_object_put(out);
	return found;
}

/* Is class one of the scheduler config's priority classes?  1, 0, -1. */
static int
priority_known(struct sw_req *r, const struct hp_ref *ref, const char *class)
{
	json_object *cur, *pcs;
	size_t i;
	int found = 0;

	if (sched_current(r, ref, &cur) != SW_OK)
		return -1;
	pcs = sw_json_path(cur, "SchedulerConfig.PriorityClasses");
	for (i = 0; pcs && i < json_object_array_length(pcs); i++)
		found |= strcmp(sw_json_get_str(
				    json_object_array_get_idx(pcs, i), "Name")
				 ?: "",
			     class) == 0;
	json_object_put(cur);
	return found;
}

sw_err
h_kueue_labels(struct sw_req *r, const char *cluster, const char *ns,
    json_object *manifest)
{
	const char *queue = sw_json_get_str(r->args, "queue");
	const char *priority = sw_json_get_str(r->args, "priority");
	json_object *meta, *labels;
	struct hp_ref ref;
	char team_ns[128], value[128];
	int got, n;

	if (queue == NULL && priority == NULL)
		return SW_OK;
	if (hp_lookup(r, cluster, &ref) != SW_OK)
		return r->err;
	if (queue != NULL) {
		if ((got = queue_team(
			 r, &ref, queue, team_ns, sizeof(team_ns))) < 0)
			return r->err;
		if (got == 0) {
			sw_ferr_add(&r->ferrs, "queue", "exists",
			    "no compute "
			    "quota of %s has queue %s (a team's queue is "
			    "hyperpod-ns-<team>-localqueue; see "
			    "compute_quota_list)",
			    cluster, queue);
			return sw_req_fail(
			    r, SW_EINVAL, "unknown queue %s", queue);
		}
		if (strcmp(ns, team_ns) != 0) {
			sw_ferr_add(&r->ferrs, "namespace", "queue",
			    "queue %s "
			    "admits workloads of namespace %s only",
			    queue, team_ns);
			return sw_req_fail(r, SW_EINVAL,
			    "namespace must be %s "
			    "for queue %s",
			    team_ns, queue);
		}
	}
	if (priority != NULL) {
		if ((got = priority_known(r, &ref, priority)) < 0)
			return r->err;
		if (got == 0) {
			sw_ferr_add(&r->ferrs, "priority", "exists",
			    "%s has "
			    "no priority class %s (see scheduler_config_get)",
			    cluster, priority);
			return sw_req_fail(r, SW_EINVAL,
			    "unknown priority "
			    "class %s",
			    priority);
		}
	}
	if (json_object_is_type(manifest, json_type_array)) {
		json_object *list = manifest;
		size_t i;

		manifest = NULL;
		for (i = 0;
		     manifest == NULL && i < json_object_array_length(list);
		     i++)
			if (strcmp(
				sw_json_get_str(
				    json_object_array_get_idx(list, i), "kind")
				    ?: "",
				"Deployment") == 0)
				manifest = json_object_array_get_idx(list, i);
	}
	if ((meta = sw_json_get(manifest, "metadata")) == NULL)
		return sw_req_fail(r, SW_EINTERNAL, "manifest has no metadata");
	if ((labels = sw_json_get(meta, "labels")) == NULL) {
		labels = json_object_new_object();
		json_object_object_add(meta, "labels", labels);
	}
	if (queue != NULL)
		json_object_object_add(
		    labels, "kueue.x-k8s.io/queue-name", sw_js(queue));
	if (priority != NULL) {
		n = snprintf(value, sizeof(value), "%s-priority", priority);
		if (n < 0 || (size_t)n >= sizeof(value))
			return sw_req_fail(r, SW_EINVAL, "priority too long");
		json_object_object_add(
		    labels, "kueue.x-k8s.io/priority-class", sw_js(value));
	}
	return SW_OK;
}
