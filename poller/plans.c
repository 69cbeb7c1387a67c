/*
 * plans.c: the poller warns before a training plan ends.  With the
 * ledger's samples it lists the account's training plans; one that is
 * Active or Scheduled and ends within training_plan.warn_before
 * (SLIPWAY_TRAINING_PLAN_WARN_BEFORE, seconds, by AWS's clock) gets one
 * training_plan.expiring event (lib/notify.h, sw_notify_emit), keyed
 * by the plan and its end: an extended plan is warned again before its
 * new end.  The event names the instance groups of the clusters
 * Slipway owns that run on the plan and the workloads (the jobs of the
 * running pods on their nodes, but node agents and the platform's:
 * DaemonSets, kube-*, aws-* and amazon-* namespaces) that will lose
 * their nodes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloud/aws_api.h"
#include "cloud/kube.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ledger.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "poller/ledger.h"
#include "poller/plans.h"

/* The nodes of cluster's group (InstanceIds) into ids. */
static void
group_nodes(struct aws_ctx *aws, const char *cluster, const char *group,
    json_object *ids)
{
	json_object *out = NULL, *list, *in;
	struct aws_error err;
	size_t i;

	in = sw_jo("ClusterName", sw_js(cluster), "InstanceGroupNameContains",
	    sw_js(group), "MaxResults", sw_ji(100), NULL);
	if (aws_call(aws, AWS_SVC_SAGEMAKER, "ListClusterNodes", in, &out,
		&err) == SW_OK) {
		list = sw_json_get(out, "ClusterNodeSummaries");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *n = json_object_array_get_idx(list, i);

			if (strcmp(
				sw_json_get_str(n, "InstanceGroupName") ?: "",
				group) == 0 &&
			    sw_json_get_str(n, "InstanceId"))
				json_object_array_add(ids,
				    sw_js(sw_json_get_str(n, "InstanceId")));
		}
	}
	json_object_put(in);
	json_object_put(out);
}

static int
on_nodes(const char *node, json_object *ids)
{
	size_t i;

	for (i = 0; node && i < json_object_array_length(ids); i++)
		if (strstr(node,
			json_object_get_string(
			    json_object_array_get_idx(ids, i))) != NULL)
			return 1;
	return 0;
}

/* A pod that runs on every node (a DaemonSet's) or for the platform
 * (kube-*, and the add-ons' aws-* and amazon-* namespaces): no workload
 * of a team loses it. */
static int
node_agent(json_object *pod)
{
	const char *ns = sw_json_path_str(pod, "metadata.namespace") ?: "";

	return strncmp(ns, "kube-", 5) == 0 || strncmp(ns, "aws-", 4) == 0 ||
	    strncmp(ns, "amazon-", 7) == 0 ||
	    strcmp(
		sw_json_path_str(pod, "metadata.ownerReferences[0].kind") ?: "",
		"DaemonSet") == 0;
}

/* The workloads of cluster with running pods on nodes ids, once each. */
static void
add_workloads(
    struct aws_ctx *aws, const char *cluster, json_object *ids, json_object *wl)
{
	struct sw_kube kb;
	struct aws_error err;
	struct k8s_error ke;
	int asked = 1;
	json_object *pods = NULL, *items;
	char key[400];
	size_t i;

	memset(&kb, 0, sizeof(kb));
	if (json_object_array_length(ids) == 0 ||
	    sw_kube_connect_known(aws, cluster, NULL, &kb, &err, &asked) !=
		SW_OK) {
		sw_kube_close(&kb);
		return;
	}
	if (k8s_list(&kb.k,
		"/api/v1/pods?fieldSelector=status.phase"
		"%3DRunning",
		NULL, &pods, &ke) != SW_OK) {
		/* nothing read where it was seen last: ask EKS next time */
		if (!asked)
			sw_kube_forget(cluster);
		sw_kube_close(&kb);
		return;
	}
	sw_kube_close(&kb);
	items = sw_json_get(pods, "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *pod = json_object_array_get_idx(items, i);
		const char *ns = sw_json_path_str(pod, "metadata.namespace");
		const char *job = sw_pod_job(pod);

		if (!on_nodes(sw_json_path_str(pod, "spec.nodeName"), ids) ||
		    ns == NULL || job == NULL || node_agent(pod) ||
		    sw_fmt(key, sizeof(key), "%s/%s/%s", cluster, ns, job) !=
			SW_OK ||
		    sw_json_get(wl, key) != NULL)
			continue;
		json_object_object_add(wl, key,
		    sw_jo("cluster", sw_js(cluster), "namespace", sw_js(ns),
			"name", sw_js(job), NULL));
	}
	json_object_put(pods);
}

/* The groups on plan arn of the clusters Slipway owns, and their
 * workloads (an object keyed cluster/namespace/name); *cluster is the
 * one cluster they are all in, or NULL. */
static void
plan_users(struct sw_db *db, struct aws_ctx *aws, const char *arn,
    json_object *groups, json_object *wl, char *cluster, size_t sz)
{
	json_object *names = NULL;
	size_t i, j, clusters = 0;

	cluster[0] = '\0';
	if (sw_cluster_names(db, &names) != SW_OK)
		return;
	for (i = 0; i < json_object_array_length(names); i++) {
		const char *c =
		    json_object_get_string(json_object_array_get_idx(names, i));
		json_object *hp = NULL, *igs, *ids = json_object_new_array();
		struct aws_error err;
		int used = 0;

		if (aws_hp_describe(aws, c, &hp, &err) == SW_OK)
			igs = sw_json_get(hp, "InstanceGroups");
		else
			igs = NULL;
		for (j = 0; igs && j < json_object_array_length(igs); j++) {
			json_object *g = json_object_array_get_idx(igs, j);
			const char *gn =
			    sw_json_get_str(g, "InstanceGroupName");

			if (gn == NULL ||
			    strcmp(sw_json_get_str(g, "TrainingPlanArn") ?: "",
				arn) != 0)
				continue;
			used = 1;
			json_object_array_add(groups,
			    sw_jo("cluster", sw_js(c), "group", sw_js(gn),
				"count",
				sw_ji(sw_json_get_int(g, "CurrentCount", 0)),
				NULL));
			group_nodes(aws, c, gn, ids);
		}
		if (used && clusters++ == 0)
			sw_fmt_text(cluster, sz, "%s", c);
		add_workloads(aws, c, ids, wl);
		json_object_put(ids);
		json_object_put(hp);
	}
	if (clusters > 1)
		cluster[0] = '\0';
	json_object_put(names);
}

static void
warn_plan(struct sw_db *db, struct aws_ctx *aws, json_object *p, int64_t now,
    int64_t before)
{
	const char *name = sw_json_get_str(p, "TrainingPlanName");
	const char *arn = sw_json_get_str(p, "TrainingPlanArn");
	int64_t end =
	    (int64_t)json_object_get_double(sw_json_get(p, "EndTime"));
	json_object *groups, *wl, *list, *data;
	char once[160], cluster[64], when[32];
	struct tm tm;
	time_t t = (time_t)end;
	int fresh = 0;

	if (sw_fmt(once, sizeof(once), "training-plan-%s-%" PRId64, name,
		end) != SW_OK ||
	    sw_notify_seen(db, once))
		return;
	groups = json_object_new_array();
	wl = json_object_new_object();
	plan_users(db, aws, arn, groups, wl, cluster, sizeof(cluster));
	list = json_object_new_array();
	json_object_object_foreach(wl, k, v)
	{
		(void)k;
		json_object_array_add(list, json_object_get(v));
	}
	json_object_put(wl);
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	data = sw_jo("plan", sw_js(name), "plan_arn", sw_js(arn), "status",
	    sw_js(sw_json_get_str(p, "Status")), "end_time", sw_js(when),
	    "remaining_seconds", sw_ji(end - now), "warn_before_seconds",
	    sw_ji(before), "groups", groups, "workloads", list, NULL);
	if (sw_notify_emit(db, "training_plan.expiring",
		cluster[0] ? cluster : NULL, once, data, &fresh) != SW_OK)
		sw_warn(
		    "training plan %s: cannot record its expiry warning", name);
	else if (fresh)
		sw_info("training plan %s ends in %" PRId64 " s: warned (%zu "
			"workloads)",
		    name, end - now, json_object_array_length(list));
	json_object_put(data);
}

void
sw_plan_tick(struct sw_db *db, struct aws_ctx *aws)
{
	const char *v = getenv("SLIPWAY_TRAINING_PLAN_WARN_BEFORE");
	int64_t before = v && strtoll(v, NULL, 10) > 0 ? strtoll(v, NULL, 10)
						       : SW_PLAN_WARN_BEFORE,
		now;
	json_object *in, *out = NULL, *list;
	struct aws_error err;
	size_t i;

	in = sw_jo("MaxResults", sw_ji(100), NULL);
	if (aws_call(aws, AWS_SVC_SAGEMAKER, "ListTrainingPlans", in, &out,
		&err) != SW_OK) {
		json_object_put(in);
		return;
	}
	json_object_put(in);
	now = aws->server_time > 0 ? (int64_t)aws->server_time
				   : (int64_t)time(NULL);
	list = sw_json_get(out, "TrainingPlanSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *p = json_object_array_get_idx(list, i);
		const char *st = sw_json_get_str(p, "Status") ?: "";
		int64_t end =
		    (int64_t)json_object_get_double(sw_json_get(p, "EndTime"));

		if ((strcmp(st, "Active") == 0 ||
			strcmp(st, "Scheduled") == 0) &&
		    end > now && end - now <= before)
			warn_plan(db, aws, p, now, before);
	}
	json_object_put(out);
	(void)sw_db_idle(db);
}
