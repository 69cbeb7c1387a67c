/*
 * ledger.c: the poller samples the usage ledger (lib/ledger.h).
 *
 * Every interval, for each cluster Slipway owns: HyperPod's node list
 * (ListClusterNodes) gives the nodes and the AWS time of the answer
 * (its Date); the cluster's Kubernetes nodes and running pods give each
 * node's GPUs and what each pod requested.  What ran between the last
 * sample and this one is added, split at UTC midnights:
 *   node   node-seconds per instance group and type;
 *   gpu    GPU-seconds per team (the namespace, "hyperpod-ns-" cut off)
 *          and job (its job label, owner or pod name);
 *   idle   GPU-seconds of nodes that no pod held (a node's GPUs, less
 *          each pod's, so a day's sum is exact).
 * Each is priced at the type's on-demand price (pipelines/prices.c).
 * The sample also keeps the burn rate it saw (the priced nodes' cost an
 * hour, and each team's GPU share of it) for the budgets' forecasts.
 * Everything is read first; then the rows and the cursor move in one
 * transaction, and the cursor moves
 * only from where this poller read it: two pollers never add the same
 * interval twice, and a poller killed mid-sample adds nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloud/aws_api.h"
#include "cloud/kube.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ledger.h"
#include "lib/log.h"
#include "lib/ops.h"
#include "pipelines/prices.h"
#include "pipelines/pipeline.h"
#include "poller/ledger.h"
#include "poller/pace.h"

#define NS_PREFIX "hyperpod-ns-"
#define MAX_NODES 4096

struct node {
	const char *name; /* Kubernetes node name */
	const char *group;
	const char *type;
	int64_t launch; /* AWS time */
	int64_t gpus; /* capacity */
	struct sw_price price;
	int priced;
};

struct sample {
	struct sw_db *db;
	struct aws_ctx *aws;
	const char *cluster;
	int64_t from; /* last sample, -1: never */
	int64_t to; /* this sample's AWS time */
	struct node *node;
	size_t n;
	json_object *pods; /* running pods, read before writing */
};

/* Add kind's units-seconds between a and b to the ledger, per day. */
static sw_err
add_span(struct sample *s, const struct node *nd, const char *team,
    const char *job, const char *kind, int64_t units, int64_t a, int64_t b)
{
	struct sw_ledger_row row;
	char day[16];
	struct tm tm;
	time_t t;
	int64_t end;
	sw_err e;

	while (a < b) {
		t = (time_t)a;
		gmtime_r(&t, &tm);
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		end = a - (a % 86400) + 86400;
		if (end > b)
			end = b;
		memset(&row, 0, sizeof(row));
		row.day = day;
		row.cluster = s->cluster;
		row.group = nd->group;
		row.type = nd->type;
		row.team = team;
		row.job = job;
		row.kind = kind;
		row.seconds = units * (end - a);
		row.priced = nd->priced;
		/* a GPU's share of the node's price */
		row.usd_us = nd->priced
		    ? (strcmp(kind, "node") == 0
			      ? row.seconds * nd->price.usd_micro
			      : row.seconds * nd->price.usd_micro / nd->gpus)
		    : 0;
		if ((e = sw_ledger_add(s->db, &row)) != SW_OK)
			return e;
		a = end;
	}
	return SW_OK;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* An RFC 3339 time of Kubernetes ("2026-12-05T22:40:45Z"), or -1. */
static int64_t
kube_time(const char *s)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (s == NULL ||
	    (end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm)) == NULL ||
	    *end != '\0')
		return -1;
	return (int64_t)timegm(&tm);
}

/* HyperPod's nodes of the cluster, every page; s->to from the first. */
static sw_err
read_nodes(struct sample *s, json_object **all)
{
	json_object *in, *out, *page;
	char token[1024] = "";
	struct aws_error err;
	size_t i;
	sw_err e;

	*all = json_object_new_array();
	do {
		in = sw_jo("ClusterName", sw_js(s->cluster), "MaxResults",
		    json_object_new_int(100), "NextToken",
		    token[0] ? sw_js(token) : NULL, NULL);
		e = aws_call(s->aws, AWS_SVC_SAGEMAKER, "ListClusterNodes", in,
		    &out, &err);
		json_object_put(in);
		if (e != SW_OK)
			return e;
		if (s->to < 0)
			s->to = s->aws->server_time > 0
			    ? (int64_t)s->aws->server_time
			    : (int64_t)time(NULL);
		page = sw_json_get(out, "ClusterNodeSummaries");
		for (i = 0; page && i < json_object_array_length(page); i++)
			json_object_array_add(*all,
			    json_object_get(
				json_object_array_get_idx(page, i)));
		sw_fmt_text(token, sizeof(token), "%s",
		    sw_json_get_str(out, "NextToken")
			? sw_json_get_str(out, "NextToken")
			: "");
		json_object_put(out);
	} while (token[0] != '\0');
	return SW_OK;
}

static int64_t
gpu_quantity(json_object *res)
{
	const char *v = sw_json_get_str(res, "nvidia.com/gpu");

	if (v == NULL)
		v = sw_json_get_str(res, "aws.amazon.com/neuron");
	return v ? strtoll(v, NULL, 10) : 0;
}

/* Each Kubernetes node's GPUs, matched to HyperPod's node by the
 * instance id in its name ("hyperpod-i-..."). */
static void
read_gpus(struct sample *s, struct sw_kube *kb)
{
	json_object *list = NULL, *items;
	struct k8s_error ke;
	size_t i, j;

	if (k8s_list(&kb->k, "/api/v1/nodes", NULL, &list, &ke) != SW_OK)
		return;
	items = sw_json_get(list, "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *kn = json_object_array_get_idx(items, i);
		const char *name = sw_json_path_str(kn, "metadata.name");

		for (j = 0; name && j < s->n; j++)
			if (strstr(name, s->node[j].name) != NULL)
				s->node[j].gpus = gpu_quantity(
				    sw_json_path(kn, "status.capacity"));
	}
	json_object_put(list);
}

const char *
sw_pod_job(json_object *pod)
{
	static const char *const labels[] = {
		"sagemaker.amazonaws.com/job-name",
		"batch.kubernetes.io/job-name", "ray.io/cluster",
		"workspace.jupyter.org/workspace-name",
		"app.kubernetes.io/instance", NULL
	};
	json_object *l = sw_json_path(pod, "metadata.labels");
	size_t i;

	for (i = 0; labels[i] != NULL; i++)
		if (sw_json_get_str(l, labels[i]) != NULL)
			return sw_json_get_str(l, labels[i]);
	if (sw_json_path_str(pod, "metadata.ownerReferences[0].name"))
		return sw_json_path_str(
		    pod, "metadata.ownerReferences[0].name");
	return sw_json_path_str(pod, "metadata.name");
}

static int64_t
pod_gpus(json_object *pod)
{
	json_object *cs = sw_json_path(pod, "spec.containers");
	int64_t n = 0, req;
	size_t i;

	for (i = 0; cs && i < json_object_array_length(cs); i++) {
		json_object *c = json_object_array_get_idx(cs, i);

		req = gpu_quantity(sw_json_path(c, "resources.requests"));
		if (req == 0)
			req = gpu_quantity(sw_json_path(c, "resources.limits"));
		n += req;
	}
	return n;
}

/* The node a running pod holds GPUs of (*gpus of them) and its team,
 * or NULL. */
static struct node *
pod_node(struct sample *s, json_object *pod, int64_t *gpus, const char **team)
{
	const char *on = sw_json_path_str(pod, "spec.nodeName");
	const char *ns = sw_json_path_str(pod, "metadata.namespace");
	size_t j;

	*gpus = pod_gpus(pod);
	if (on == NULL || ns == NULL || *gpus <= 0)
		return NULL;
	for (j = 0; j < s->n; j++)
		if (strstr(on, s->node[j].name) != NULL)
			break;
	if (j == s->n || s->node[j].gpus <= 0)
		return NULL;
	if (*gpus > s->node[j].gpus)
		*gpus = s->node[j].gpus;
	if (strncmp(ns, NS_PREFIX, strlen(NS_PREFIX)) == 0)
		ns += strlen(NS_PREFIX);
	*team = ns;
	return &s->node[j];
}

/*
 * The burn rate at this sample, for budgets (lib/budget.h): what the
 * priced nodes cost an hour, and each team's share of it (the GPUs its
 * running pods hold), replacing the last sample's.
 */
static sw_err
add_burn(struct sample *s)
{
	json_object *items = sw_json_get(s->pods, "items");
	const char *team;
	struct node *nd;
	int64_t nodes = 0, gpus;
	size_t i;
	sw_err e;

	for (i = 0; i < s->n; i++)
		if (s->node[i].priced)
			nodes += s->node[i].price.usd_micro;
	if ((e = sw_ledger_burn_clear(s->db, s->cluster)) != SW_OK ||
	    (e = sw_ledger_burn_add(s->db, s->cluster, "", nodes, s->to)) !=
		SW_OK)
		return e;
	for (i = 0; items && i < json_object_array_length(items); i++) {
		nd = pod_node(
		    s, json_object_array_get_idx(items, i), &gpus, &team);
		if (nd != NULL && nd->priced &&
		    (e = sw_ledger_burn_add(s->db, s->cluster, team,
			 gpus * nd->price.usd_micro / nd->gpus, s->to)) !=
			SW_OK)
			return e;
	}
	return SW_OK;
}

/* The GPUs each running pod held since the last sample, taken from
 * the idle GPUs of its node. */
static sw_err
add_pods(struct sample *s)
{
	json_object *items = sw_json_get(s->pods, "items");
	const char *ns;
	struct node *nd;
	size_t i;
	sw_err e = SW_OK;

	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *pod = json_object_array_get_idx(items, i);
		int64_t gpus, a;

		if ((nd = pod_node(s, pod, &gpus, &ns)) == NULL)
			continue;
		a = max64(max64(s->from, nd->launch),
		    kube_time(sw_json_path_str(pod, "status.startTime")));
		if (a >= s->to)
			continue;
		if ((e = add_span(s, nd, ns, sw_pod_job(pod), "gpu", gpus, a,
			 s->to)) != SW_OK ||
		    (e = add_span(s, nd, "", "", "idle", -gpus, a, s->to)) !=
			SW_OK)
			break;
	}
	return e;
}

/*
 * Everything a sample needs from AWS and Kubernetes, read before the
 * transaction so that no write waits on the network: the nodes with
 * their prices, each node's GPUs, the running pods.
 */
static void
read_cluster(struct sample *s, json_object *hp_nodes)
{
	struct sw_kube kb;
	struct aws_error err;
	struct k8s_error ke;
	const char *why;
	int asked = 1;
	size_t i;

	s->n = 0;
	for (i = 0; i < json_object_array_length(hp_nodes) && s->n < MAX_NODES;
	     i++) {
		json_object *n = json_object_array_get_idx(hp_nodes, i);
		struct node *nd = &s->node[s->n];

		memset(nd, 0, sizeof(*nd));
		nd->name = sw_json_get_str(n, "InstanceId");
		nd->group = sw_json_get_str(n, "InstanceGroupName");
		nd->type = sw_json_get_str(n, "InstanceType");
		/* epoch seconds, with a fraction, in the json protocol */
		nd->launch = sw_json_get(n, "LaunchTime")
		    ? (int64_t)json_object_get_double(
			  sw_json_get(n, "LaunchTime"))
		    : 0;
		if (nd->launch <= 0)
			continue;
		if (nd->name == NULL || nd->group == NULL || nd->type == NULL)
			continue;
		/* a type's price once a sample: nodes of a group share it */
		if (s->n > 0 && strcmp(s->node[s->n - 1].type, nd->type) == 0) {
			nd->price = s->node[s->n - 1].price;
			nd->priced = s->node[s->n - 1].priced;
		} else {
			sw_price_hour(
			    s->db, s->aws, nd->type, &nd->price, &why);
			nd->priced = why == NULL;
		}
		s->n++;
	}
	/* the API server where it was seen last (cloud/kube.h), not
	 * asked of EKS each sample */
	memset(&kb, 0, sizeof(kb));
	if (s->n > 0 &&
	    sw_kube_connect_known(
		s->aws, s->cluster, NULL, &kb, &err, &asked) == SW_OK) {
		read_gpus(s, &kb);
		if (k8s_list(&kb.k,
			"/api/v1/pods?fieldSelector=status.phase"
			"%3DRunning",
			NULL, &s->pods, &ke) != SW_OK) {
			s->pods = NULL; /* none seen: every GPU counts idle */
			if (!asked)
				sw_kube_forget(s->cluster);
		}
	}
	sw_kube_close(&kb);
}

/* What ran on the cluster from s->from to s->to, into the ledger. */
static sw_err
add_cluster(struct sample *s)
{
	int64_t a;
	size_t i;
	sw_err e;

	for (i = 0; i < s->n; i++) {
		struct node *nd = &s->node[i];

		a = max64(s->from, nd->launch);
		if (a >= s->to)
			continue;
		if ((e = add_span(s, nd, "", "", "node", 1, a, s->to)) != SW_OK)
			return e;
		if (nd->gpus > 0 &&
		    (e = add_span(s, nd, "", "", "idle", nd->gpus, a, s->to)) !=
			SW_OK)
			return e;
	}
	if ((e = add_pods(s)) != SW_OK)
		return e;
	return add_burn(s);
}

/* Inside the transaction: move the cursor, add, commit or roll back. */
static void
keep(struct sample *s)
{
	int moved = 0;

	if (sw_ledger_move(s->db, s->cluster, s->from, s->to, &moved) !=
		SW_OK ||
	    !moved || add_cluster(s) != SW_OK)
		sw_db_rollback(s->db);
	else if (sw_db_commit(s->db) != SW_OK)
		sw_warn("ledger: cannot keep the sample of %s", s->cluster);
}

static void
sample_one(struct sample *s)
{
	json_object *nodes = NULL;
	sw_err e;

	s->to = -1;
	if (sw_ledger_cursor(s->db, s->cluster, &s->from) != SW_OK)
		return;
	if ((e = read_nodes(s, &nodes)) != SW_OK) {
		if (e != SW_ENOTFOUND)
			sw_warn(
			    "ledger: cannot list the nodes of %s", s->cluster);
		json_object_put(nodes);
		return;
	}
	if (s->to > s->from) {
		read_cluster(s, nodes);
		if (sw_db_begin(s->db) == SW_OK)
			keep(s);
	}
	json_object_put(s->pods);
	json_object_put(nodes);
}

int
sw_ledger_tick(struct sw_db *db, struct aws_ctx *aws,
    const struct sw_config *cfg, int64_t every_ms, int64_t budget_ms, int rate)
{
	static struct node nodes[MAX_NODES];
	static int64_t last_ms; /* this process's pass before */
	int64_t until = sw_now_ms() + budget_ms;
	struct sw_pace pace;
	struct sample s;
	size_t i;
	int creating, hyperpod, more = 0;

	if (sw_pace_begin(&pace, db, "ledger", every_ms, rate, &last_ms) !=
	    SW_OK)
		return 0;
	for (i = 0; i < sw_pace_count(&pace); i++) {
		if (budget_ms > 0 && sw_now_ms() >= until) {
			more = 1;
			break;
		}
		memset(&s, 0, sizeof(s));
		s.db = db;
		s.node = nodes;
		s.cluster = sw_pace_cluster(&pace, i);
		/* A cluster whose create has yet to hear HyperPod answer has
		 * no nodes to list, nor to pay for. */
		sw_pace_creating(&pace, i, &creating, &hyperpod);
		if (!hyperpod || !sw_pace_take(&pace, db, i))
			continue;
		if ((s.aws = sw_cluster_aws(db, aws, cfg, s.cluster)) == NULL)
			continue;
		sample_one(&s);
		(void)sw_db_idle(db);
	}
	sw_pace_end(&pace);
	return more;
}
