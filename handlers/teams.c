/*
 * teams.c: team_usage, each team's share of the cluster as Kueue
 * (HyperPod task governance) enforces it, for a platform lead who
 * rebalances quotas: per team (a ClusterQueue
 * hyperpod-ns-<team>-clusterqueue) and per instance type (flavor) and
 * resource, the nominal quota, the borrowing limit, what is in use,
 * borrowed from the cohort, lent to it (at most the team's idle quota
 * that others borrow) and the demand of the team's waiting Workloads;
 * with the queue's preemption policy and its counts of admitted and
 * waiting Workloads.  Quotas are changed with compute_quota_update.
 * Memory is in GiB, CPU in cores, the rest in counts.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/workloads.h"
#include "lib/json.h"

#define KUEUE_API "kueue.x-k8s.io/v1beta2"
#define GIB (1024.0 * 1024 * 1024)

static int
same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static double
amount(const char *res, json_object *v)
{
	double d = wl_qty(v);

	return same(res, "memory") ? d / GIB : d;
}

/* The flavor-resource entry of a flavors list (spec or status). */
static json_object *
entry(json_object *flavors, const char *flavor, const char *res)
{
	size_t i, j;

	for (i = 0; flavors && i < json_object_array_length(flavors); i++) {
		json_object *f = json_object_array_get_idx(flavors, i);
		json_object *rs = sw_json_get(f, "resources");

		for (j = 0; same(sw_json_get_str(f, "name"), flavor) && rs &&
		     j < json_object_array_length(rs);
		     j++)
			if (same(sw_json_get_str(
				     json_object_array_get_idx(rs, j), "name"),
				res))
				return json_object_array_get_idx(rs, j);
	}
	return NULL;
}

/* What the other ClusterQueues of cq's cohort borrow of flavor/res. */
static double
others_borrow(
    json_object *cqs, json_object *cq, const char *flavor, const char *res)
{
	const char *cohort = sw_json_path_str(cq, "spec.cohortName");
	double sum = 0;
	size_t i;

	for (i = 0; cohort && i < json_object_array_length(cqs); i++) {
		json_object *o = json_object_array_get_idx(cqs, i);

		if (o != cq &&
		    same(sw_json_path_str(o, "spec.cohortName"), cohort))
			sum += amount(res,
			    sw_json_get(
				entry(sw_json_path(o, "status.flavorsUsage"),
				    flavor, res),
				"borrowed"));
	}
	return sum;
}

/* The demand of the waiting Workloads queued to cq (through lqs) for
 * flavor-less resource res: requests per pod times pod count. */
static double
waiting_demand(
    json_object *wls, json_object *lqs, const char *cq_name, const char *res)
{
	double sum = 0;
	size_t i, j, k;

	for (i = 0; i < json_object_array_length(wls); i++) {
		json_object *w = json_object_array_get_idx(wls, i);
		json_object *rr = sw_json_path(w, "status.resourceRequests");
		json_object *ps = sw_json_path(w, "spec.podSets");
		int mine = 0;

		if (sw_json_path(w, "status.admission") != NULL)
			continue;
		for (k = 0; k < json_object_array_length(lqs); k++) {
			json_object *lq = json_object_array_get_idx(lqs, k);

			mine |= same(sw_json_path_str(lq, "metadata.name"),
				    sw_json_path_str(w, "spec.queueName")) &&
			    same(sw_json_path_str(lq, "metadata.namespace"),
				sw_json_path_str(w, "metadata.namespace")) &&
			    same(sw_json_path_str(lq, "spec.clusterQueue"),
				cq_name);
		}
		for (j = 0; mine && rr && j < json_object_array_length(rr);
		     j++) {
			json_object *r = json_object_array_get_idx(rr, j);
			long long n = 1;

			for (k = 0; ps && k < json_object_array_length(ps); k++)
				if (same(sw_json_get_str(
					     json_object_array_get_idx(ps, k),
					     "name"),
					sw_json_get_str(r, "name")))
					n = sw_json_get_int(
					    json_object_array_get_idx(ps, k),
					    "count", 1);
			sum += n *
			    amount(res,
				sw_json_get(sw_json_get(r, "resources"), res));
		}
	}
	return sum;
}

/* One row per flavor and resource of cq. */
static json_object *
team_resources(
    json_object *cq, json_object *cqs, json_object *wls, json_object *lqs)
{
	json_object *out = json_object_new_array();
	json_object *flavors = sw_json_path(cq,
	    "spec.resourceGroups[0]."
	    "flavors");
	const char *name = sw_json_path_str(cq, "metadata.name");
	size_t i, j;

	for (i = 0; flavors && i < json_object_array_length(flavors); i++) {
		json_object *f = json_object_array_get_idx(flavors, i);
		json_object *rs = sw_json_get(f, "resources");
		const char *fl = sw_json_get_str(f, "name");

		for (j = 0; rs && j < json_object_array_length(rs); j++) {
			json_object *r = json_object_array_get_idx(rs, j);
			const char *res = sw_json_get_str(r, "name");
			json_object *u = entry(
			    sw_json_path(cq, "status.flavorsUsage"), fl, res);
			double nominal =
			    amount(res, sw_json_get(r, "nominalQuota"));
			double used = amount(res, sw_json_get(u, "total"));
			double idle = nominal > used ? nominal - used : 0;
			double others = others_borrow(cqs, cq, fl, res);

			json_object_array_add(out,
			    sw_jo("instance_type", sw_js(fl), "resource",
				sw_js(res), "nominal",
				json_object_new_double(nominal),
				"borrowing_limit",
				sw_json_get(r, "borrowingLimit")
				    ? json_object_new_double(amount(res,
					  sw_json_get(r, "borrowingLimit")))
				    : NULL,
				"in_use", json_object_new_double(used),
				"borrowed",
				json_object_new_double(
				    amount(res, sw_json_get(u, "borrowed"))),
				"lent",
				json_object_new_double(
				    idle < others ? idle : others),
				"pending",
				json_object_new_double(
				    waiting_demand(wls, lqs, name, res)),
				NULL));
		}
	}
	return out;
}

/* hyperpod-ns-<team>-clusterqueue: the team, or NULL. */
static json_object *
team_of(const char *cq)
{
	static const char pre[] = "hyperpod-ns-", suf[] = "-clusterqueue";
	char team[64];
	size_t n = cq ? strlen(cq) : 0;

	if (n <= sizeof(pre) + sizeof(suf) - 2 ||
	    strncmp(cq, pre, sizeof(pre) - 1) != 0 ||
	    strcmp(cq + n - (sizeof(suf) - 1), suf) != 0 ||
	    n - (sizeof(pre) - 1) - (sizeof(suf) - 1) >= sizeof(team))
		return NULL;
	memcpy(team, cq + sizeof(pre) - 1,
	    n - (sizeof(pre) - 1) - (sizeof(suf) - 1));
	team[n - (sizeof(pre) - 1) - (sizeof(suf) - 1)] = '\0';
	return sw_js(team);
}

sw_err
h_team_usage(struct sw_req *r)
{
	json_object *cqs = NULL, *lqs = NULL, *wls = NULL, *out;
	struct sw_kube kb;
	size_t i;

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_list_objs(r, &kb, KUEUE_API, NULL, "clusterqueues", NULL,
		&cqs) != SW_OK ||
	    wl_list_objs(r, &kb, KUEUE_API, NULL, "localqueues", NULL, &lqs) !=
		SW_OK ||
	    wl_list_objs(r, &kb, KUEUE_API, NULL, "workloads", NULL, &wls) !=
		SW_OK)
		goto out;
	out = json_object_new_array();
	for (i = 0; i < json_object_array_length(cqs); i++) {
		json_object *cq = json_object_array_get_idx(cqs, i);

		json_object_array_add(out,
		    sw_jo("team",
			team_of(sw_json_path_str(cq, "metadata.name")),
			"cluster_queue",
			sw_js(sw_json_path_str(cq, "metadata.name")), "cohort",
			sw_json_path_str(cq, "spec.cohortName")
			    ? sw_js(sw_json_path_str(cq, "spec.cohortName"))
			    : NULL,
			"preempt_within_team",
			sw_js(sw_json_path_str(
				  cq, "spec.preemption.withinClusterQueue")
				?: "Never"),
			"reclaim_lent",
			sw_js(sw_json_path_str(
				  cq, "spec.preemption.reclaimWithinCohort")
				?: "Never"),
			"admitted_workloads",
			sw_ji(sw_json_get_int(
			    sw_json_get(cq, "status"), "admittedWorkloads", 0)),
			"pending_workloads",
			sw_ji(sw_json_get_int(
			    sw_json_get(cq, "status"), "pendingWorkloads", 0)),
			"resources", team_resources(cq, cqs, wls, lqs), NULL));
	}
	sw_req_reply(r, 200, sw_jo("items", out, NULL));
out:
	json_object_put(cqs);
	json_object_put(lqs);
	json_object_put(wls);
	sw_kube_close(&kb);
	return r->err;
}
