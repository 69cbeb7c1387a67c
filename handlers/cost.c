/*
 * cost.c: what a planned change costs per hour, from the prices AWS
 * lists in its Price List API (cloud/aws_pricing.c), cached in the
 * state store (pipelines/prices.c).  Slipway carries no price of its own: a
 * type AWS lists no price for, a spot group, or a Price List API that
 * cannot be reached makes the sum "unknown" (null), never zero.
 *
 * A plan's cost compares the cluster's instance groups now (HyperPod
 * DescribeCluster, target counts) with what they are after the
 * operation, per group:
 *   cluster.create          every group of the request, from nothing
 *   instance_group.add      the new group, beside the others
 *   instance_group.update   the group at its new count
 *   instance_group.delete   the group at 0
 *   cluster.delete          every group at 0 (a release changes nothing,
 *                           and is not costed)
 * Capacity from a training plan is paid for up front, not per hour: its
 * line names the plan's upfront fee and end instead.
 *
 * An inference endpoint adds no instance: it holds GPUs of the
 * cluster's nodes, and its cost is their share of the node's on-demand
 * price (the ledger's rule, poller/ledger.c), known only when the one
 * type it can run on is (instance_type, or the only group type with
 * GPUs enough).  That holds for a self-hosted endpoint and for the
 * inference operator's InferenceEndpointConfig (the GPUs its worker
 * asks for); a JumpStartModel's server takes what the model's
 * deployment configuration sets for its type, counted as a whole
 * instance per replica.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "handlers/handlers.h"
#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/prices.h"
#include "pipelines/prices.h"

#define PRICE_SERVICE SW_PRICE_HYPERPOD
#define MAX_LINES 64

struct cost_line {
	char group[64];
	const char *type; /* borrowed from the documents */
	const char *capacity; /* on-demand, spot, training-plan */
	const char *plan; /* its training plan's ARN, or NULL */
	int64_t now, after;
	struct sw_price price;
	const char *why; /* why no price, or NULL */
};

struct cost_plan {
	struct cost_line line[MAX_LINES];
	size_t n;
};

static struct cost_line *
line_add(struct cost_plan *cp, const char *group, const char *type,
    const char *capacity, const char *plan, int64_t now, int64_t after)
{
	struct cost_line *l;

	if (cp->n == MAX_LINES || type == NULL)
		return NULL;
	l = &cp->line[cp->n++];
	memset(l, 0, sizeof(*l));
	sw_fmt_text(l->group, sizeof(l->group), "%s", group ? group : "");
	l->type = type;
	l->plan = plan;
	l->capacity = plan ? "training-plan"
	    : capacity     ? capacity
			   : "on-demand";
	l->now = now;
	l->after = after;
	return l;
}

static struct cost_line *
line_of(struct cost_plan *cp, const char *group)
{
	size_t i;

	for (i = 0; group && i < cp->n; i++)
		if (strcmp(cp->line[i].group, group) == 0)
			return &cp->line[i];
	return NULL;
}

/* The groups as they run now (hp borrowed), unchanged by default. */
static void
lines_now(struct cost_plan *cp, json_object *hp)
{
	json_object *groups = sw_json_get(hp, "InstanceGroups");
	size_t i;

	for (i = 0; groups && i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		int64_t n = sw_json_get_int(
		    g, "TargetCount", sw_json_get_int(g, "CurrentCount", 0));

		line_add(cp, sw_json_get_str(g, "InstanceGroupName"),
		    sw_json_get_str(g, "InstanceType"), "on-demand",
		    sw_json_get_str(g, "TrainingPlanArn"), n, n);
	}
}

/* What the operation of kind with params changes. */
static void
lines_after(struct cost_plan *cp, const char *kind, json_object *params)
{
	json_object *groups, *g;
	struct cost_line *l;
	size_t i;

	if (strcmp(kind, "cluster.create") == 0) {
		groups = sw_json_get(params, "instance_groups");
		for (i = 0; groups && i < json_object_array_length(groups);
		     i++) {
			g = json_object_array_get_idx(groups, i);
			if (line_of(cp, sw_json_get_str(g, "name")) == NULL)
				line_add(cp, sw_json_get_str(g, "name"),
				    sw_json_get_str(g, "instance_type"),
				    sw_json_get_str(g, "capacity_type"),
				    sw_json_get_str(g, "training_plan_arn"), 0,
				    sw_json_get_int(g, "count", 1));
		}
	} else if (strcmp(kind, "instance_group.add") == 0) {
		g = sw_json_get(params, "group");
		line_add(cp, sw_json_get_str(g, "name"),
		    sw_json_get_str(g, "instance_type"),
		    sw_json_get_str(g, "capacity_type"),
		    sw_json_get_str(g, "training_plan_arn"), 0,
		    sw_json_get_int(g, "count", 1));
	} else if (strcmp(kind, "instance_group.update") == 0) {
		l = line_of(cp, sw_json_get_str(params, "group_name"));
		if (l != NULL && sw_json_get_int(params, "count", -1) >= 0)
			l->after = sw_json_get_int(params, "count", -1);
	} else if (strcmp(kind, "instance_group.delete") == 0) {
		if ((l = line_of(cp, sw_json_get_str(params, "group"))) != NULL)
			l->after = 0;
	} else if (strcmp(kind, "cluster.delete") == 0)
		for (i = 0; i < cp->n; i++)
			cp->line[i].after = 0;
}

/* Money as a JSON number written exactly: 12.5 from 12500000. */
json_object *
h_usd(int64_t micro)
{
	char text[48];
	int64_t a = micro < 0 ? -micro : micro;
	size_t n;

	if (sw_fmt(text, sizeof(text), "%s%" PRId64 ".%06" PRId64,
		micro < 0 ? "-" : "", a / 1000000, a % 1000000) != SW_OK)
		return NULL;
	n = strlen(text);
	while (text[n - 1] == '0')
		text[--n] = '\0';
	if (text[n - 1] == '.')
		text[--n] = '\0';
	return json_object_new_double_s((double)micro / 1e6, text);
}

/*
 * A training plan is paid for up front: its fee, currency and end, as
 * DescribeTrainingPlan says, or NULL when it cannot be read.
 */
static json_object *
plan_json(struct sw_req *r, const char *arn)
{
	const char *name = arn ? strrchr(arn, '/') : NULL;
	json_object *in, *out = NULL, *o;
	struct aws_error err;
	int64_t fee;

	if (name == NULL)
		return NULL;
	in = sw_jo("TrainingPlanName", sw_js(name + 1), NULL);
	if (aws_call(h_aws(r), AWS_SVC_SAGEMAKER, "DescribeTrainingPlan", in,
		&out, &err) != SW_OK) {
		json_object_put(in);
		return sw_jo(
		    "arn", sw_js(arn), "why", sw_js(err.message), NULL);
	}
	json_object_put(in);
	o = sw_jo("arn", sw_js(arn), "name", sw_js(name + 1), "upfront_fee",
	    aws_price_micro(sw_json_get_str(out, "UpfrontFee"), &fee) == 0
		? h_usd(fee)
		: NULL,
	    "currency", sw_js(sw_json_get_str(out, "CurrencyCode")), "end_time",
	    json_object_get(sw_json_get(out, "EndTime")), NULL);
	json_object_put(out);
	return o;
}

static json_object *
line_json(struct sw_req *r, const struct cost_line *l)
{
	const char *state = l->why                      ? "unknown"
	    : strcmp(l->capacity, "training-plan") == 0 ? "training-plan"
							: "priced";

	return sw_jo("group", sw_js(l->group), "instance_type", sw_js(l->type),
	    "capacity_type", sw_js(l->capacity), "count_now", sw_ji(l->now),
	    "count_after", sw_ji(l->after), "price", sw_js(state),
	    "usd_per_hour_each",
	    l->price.known && !l->why ? h_usd(l->price.usd_micro) : NULL, "sku",
	    l->price.sku[0] ? sw_js(l->price.sku) : NULL, "published",
	    l->price.published[0] ? sw_js(l->price.published) : NULL, "why",
	    l->why ? sw_js(l->why) : NULL, "training_plan",
	    l->plan ? plan_json(r, l->plan) : NULL, NULL);
}

/* Price every line of cp and say what the change and the cluster cost. */
static json_object *
cost_json(struct sw_req *r, struct cost_plan *cp)
{
	json_object *lines, *unknown, *out;
	const char *region = h_aws(r)->region;
	int64_t added = 0, total = 0;
	int complete = 1;
	size_t i;

	lines = json_object_new_array();
	unknown = json_object_new_array();
	for (i = 0; i < cp->n; i++) {
		struct cost_line *l = &cp->line[i];

		if (strcmp(l->capacity, "spot") == 0)
			l->why = "spot prices change with demand";
		else if (strcmp(l->capacity, "training-plan") != 0)
			sw_price_hour(
			    r->db, h_aws(r), l->type, &l->price, &l->why);
		if (l->why != NULL) {
			complete = 0;
			json_object_array_add(unknown, sw_js(l->type));
		} else if (strcmp(l->capacity, "training-plan") != 0) {
			added += (l->after - l->now) * l->price.usd_micro;
			total += l->after * l->price.usd_micro;
		}
		json_object_array_add(lines, line_json(r, l));
	}
	out = sw_jo("currency", sw_js("USD"), "complete", sw_jb(complete),
	    "added_per_hour", complete ? h_usd(added) : NULL, "added_per_day",
	    complete ? h_usd(added * 24) : NULL, "cluster_per_hour",
	    complete ? h_usd(total) : NULL, "lines", lines, "unknown", unknown,
	    "region", sw_js(region), "source",
	    sw_js("AWS Price List API: GetProducts, " PRICE_SERVICE
		  ", on-demand"),
	    "excludes",
	    sw_js("EKS control plane, storage, data transfer; "
		  "training plans are paid up front (see their lines)"),
	    NULL);
	if (!complete) {
		/* unknown, said as null: never a sum that leaves a part out */
		json_object_object_add(out, "added_per_hour", NULL);
		json_object_object_add(out, "added_per_day", NULL);
		json_object_object_add(out, "cluster_per_hour", NULL);
	}
	return out;
}

json_object *
h_plan_cost(struct sw_req *r, const char *kind, json_object *params,
    const char *cluster)
{
	struct cost_plan cp;
	json_object *hp = NULL, *out;
	struct aws_error err;

	if (strcmp(kind, "cluster.create") != 0 &&
	    strcmp(kind, "cluster.delete") != 0 &&
	    strncmp(kind, "instance_group.", 15) != 0)
		return NULL;
	memset(&cp, 0, sizeof(cp));
	if (cluster != NULL && h_hp_describe(r, cluster, &hp, &err) == SW_OK)
		lines_now(&cp, hp);
	lines_after(&cp, kind, params);
	out = cost_json(r, &cp);
	json_object_put(hp);
	return out;
}

json_object *
h_cluster_cost(struct sw_req *r, json_object *hp)
{
	struct cost_plan cp;

	if (hp == NULL)
		return NULL;
	memset(&cp, 0, sizeof(cp));
	lines_now(&cp, hp);
	return cost_json(r, &cp);
}

/* Which type an endpoint's replicas run on, into *t; NULL or why not
 * (into buf). */
static const char *
endpoint_type(struct sw_req *r, const char *cluster, const char *itype,
    int64_t gpus, struct wl_fit_type *t, char *buf, size_t sz)
{
	struct wl_fit_type types[SW_MAX_GROUPS];
	int n, k;
	size_t len;

	n = wl_fit_types(r, cluster, itype, gpus, types, SW_MAX_GROUPS);
	if (n < 0)
		return "the cluster's instance groups or their GPUs cannot "
		       "be read";
	if (n == 0)
		return "no instance group of the cluster has a node it fits";
	if (n == 1) {
		*t = types[0];
		return NULL;
	}
	sw_fmt_text(buf, sz,
	    "it may run on nodes of %d types, priced "
	    "apart (",
	    n);
	for (k = 0; k < n && (len = strlen(buf)) < sz; k++)
		sw_fmt_text(
		    buf + len, sz - len, "%s%s", k ? ", " : "", types[k].name);
	len = strlen(buf);
	sw_fmt_text(buf + len, sz - len, "): give instance_type");
	return buf;
}

/* How an endpoint's cost is counted: its GPUs' share, or (gpus 0) a
 * whole instance per replica. */
static const char *
endpoint_basis(int64_t gpus)
{
	if (gpus == 0)
		return "a whole instance of its type per replica (a JumpStart "
		       "model's server takes the GPUs its deployment "
		       "configuration sets for the type); the nodes are the "
		       "cluster's and cost it the same with or without the "
		       "endpoint";
	return "its GPUs' share of their nodes' on-demand price (the cost "
	       "ledger's rule); the nodes are the cluster's and cost it the "
	       "same with or without the endpoint";
}

json_object *
h_endpoint_cost(struct sw_req *r, const char *cluster, const char *itype,
    int64_t replicas, int64_t gpus)
{
	struct wl_fit_type t;
	struct sw_price price;
	struct aws_error err;
	json_object *hp = NULL, *now = NULL, *out;
	const char *why;
	char buf[320];
	int64_t hour = 0, each;

	memset(&price, 0, sizeof(price));
	memset(&t, 0, sizeof(t));
	why = endpoint_type(
	    r, cluster, itype, gpus > 0 ? gpus : 1, &t, buf, sizeof(buf));
	if (why == NULL)
		sw_price_hour(r->db, h_aws(r), t.name, &price, &why);
	each = gpus > 0 ? gpus : t.gpus;
	if (why == NULL)
		hour = replicas * each * price.usd_micro / t.gpus;
	if (h_hp_describe(r, cluster, &hp, &err) == SW_OK)
		now = h_cluster_cost(r, hp);
	out = sw_jo("currency", sw_js("USD"), "complete", sw_jb(why == NULL),
	    "instance_type", t.name[0] ? sw_js(t.name) : NULL, "replicas",
	    sw_ji(replicas), "gpus", each > 0 ? sw_ji(replicas * each) : NULL,
	    "gpus_per_instance", t.gpus > 0 ? sw_ji(t.gpus) : NULL,
	    "usd_per_hour_each", why == NULL ? h_usd(price.usd_micro) : NULL,
	    "sku", why == NULL && price.sku[0] ? sw_js(price.sku) : NULL,
	    "published",
	    why == NULL && price.published[0] ? sw_js(price.published) : NULL,
	    "why", why ? sw_js(why) : NULL, "region", sw_js(h_aws(r)->region),
	    "source",
	    sw_js("AWS Price List API: GetProducts, " PRICE_SERVICE
		  ", on-demand"),
	    "basis", sw_js(endpoint_basis(gpus)), NULL);
	/* unknown, said as null: never zero */
	json_object_object_add(out, "added_per_hour", why ? NULL : h_usd(hour));
	json_object_object_add(
	    out, "added_per_day", why ? NULL : h_usd(hour * 24));
	json_object_object_add(out, "cluster_per_hour",
	    json_object_get(sw_json_get(now, "cluster_per_hour")));
	json_object_put(now);
	json_object_put(hp);
	return out;
}
