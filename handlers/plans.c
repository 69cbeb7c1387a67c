/*
 * plans.c: SageMaker training plans (reserved capacity).  Search the
 * offerings for a type, count, AZ and window; reserve one or extend a
 * plan (long operations of pipelines/plans.c, whose dry run shows the
 * offering and its fee); list and read plans with the time they have
 * left by AWS's clock, their extension history and the groups of the
 * clusters Slipway owns that run on them.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handlers/handlers.h"
#include "lib/json.h"
#include "lib/ledger.h"

/* A timestamp of the json protocol (epoch seconds, maybe a fraction). */
static int64_t
epoch(json_object *o, const char *key)
{
	json_object *v = sw_json_get(o, key);

	return v == NULL ? 0 : (int64_t)json_object_get_double(v);
}

/* AWS's clock, from the Date of the last answer. */
static int64_t
aws_now(struct sw_req *r)
{
	struct aws_ctx *aws = h_aws(r);

	return aws && aws->server_time > 0 ? (int64_t)aws->server_time
					   : (int64_t)time(NULL);
}

static json_object *
fee(json_object *o)
{
	const char *s = sw_json_get_str(o, "UpfrontFee");

	return s ? json_object_new_double(strtod(s, NULL)) : NULL;
}

static sw_err
plan_call(struct sw_req *r, const char *op, json_object *in, json_object **out)
{
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_SAGEMAKER, op, in, out, &err)) != SW_OK)
		return h_aws_fail(r, AWS_SVC_SAGEMAKER, op, e, &err);
	return SW_OK;
}

/* A TrainingPlanOffering as an offering item. */
static json_object *
reservation_item(json_object *o)
{
	json_object *rc = sw_json_path(o, "ReservedCapacityOfferings[0]");

	return sw_jo("offering_id",
	    sw_js(sw_json_get_str(o, "TrainingPlanOfferingId")), "kind",
	    sw_js("reservation"), "upfront_fee", fee(o), "currency",
	    sw_js(sw_json_get_str(o, "CurrencyCode")), "instance_type",
	    sw_js(sw_json_get_str(rc, "InstanceType")), "count",
	    sw_ji(sw_json_get_int(rc, "InstanceCount", 0)), "availability_zone",
	    sw_js(sw_json_get_str(rc, "AvailabilityZone")), "start_time",
	    sw_ji(epoch(rc, "StartTime")), "end_time",
	    sw_ji(epoch(rc, "EndTime")), "duration_hours",
	    sw_ji(sw_json_get_int(o, "DurationHours", 0)), NULL);
}

/* A TrainingPlanExtensionOffering as an offering item. */
static json_object *
extension_item(json_object *o)
{
	return sw_jo("offering_id",
	    sw_js(sw_json_get_str(o, "TrainingPlanExtensionOfferingId")),
	    "kind", sw_js("extension"), "upfront_fee", fee(o), "currency",
	    sw_js(sw_json_get_str(o, "CurrencyCode")), "availability_zone",
	    sw_js(sw_json_get_str(o, "AvailabilityZone")), "start_time",
	    sw_ji(epoch(o, "StartDate")), "end_time",
	    sw_ji(epoch(o, "EndDate")), "duration_hours",
	    sw_ji(sw_json_get_int(o, "DurationHours", 0)), NULL);
}

/* A window that ends or starts in the past, by AWS's clock: 400 naming
 * the field.  A start up to a few minutes back is "now" (clocks differ a
 * little). */
static sw_err
check_window(struct sw_req *r)
{
	int64_t now = aws_now(r);
	json_object *a = r->args;

	if (sw_json_get(a, "start_after") != NULL &&
	    sw_json_get_int(a, "start_after", 0) < now - 300)
		sw_ferr_add(&r->ferrs, "start_after", "window",
		    "is in the "
		    "past (AWS's clock: %lld)",
		    (long long)now);
	if (sw_json_get(a, "end_before") != NULL &&
	    sw_json_get_int(a, "end_before", 0) <= now)
		sw_ferr_add(&r->ferrs, "end_before", "window",
		    "is in the "
		    "past (AWS's clock: %lld)",
		    (long long)now);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL,
		    "the window is in the past: "
		    "%s",
		    r->ferrs.e[0].field);
	return SW_OK;
}

/* The offerings that fit the request's window, as items in *items. */
static sw_err
search(struct sw_req *r, json_object **items)
{
	json_object *a = r->args, *out = NULL, *list;
	const char *az = sw_json_get_str(a, "availability_zone");
	size_t i;

	*items = NULL;
	if (plan_call(r, "SearchTrainingPlanOfferings",
		sw_jo("InstanceType",
		    sw_js(sw_json_get_str(a, "instance_type")), "InstanceCount",
		    sw_ji(sw_json_get_int(a, "count", 1)), "DurationHours",
		    sw_ji(sw_json_get_int(a, "duration_hours", 1)),
		    "StartTimeAfter",
		    sw_json_get(a, "start_after")
			? sw_ji(sw_json_get_int(a, "start_after", 0))
			: NULL,
		    "EndTimeBefore",
		    sw_json_get(a, "end_before")
			? sw_ji(sw_json_get_int(a, "end_before", 0))
			: NULL,
		    "TargetResources",
		    sw_ja(sw_js(sw_json_get_str(a, "target")
			    ? sw_json_get_str(a, "target")
			    : "hyperpod-cluster")),
		    NULL),
		&out) != SW_OK)
		return r->err;
	if (check_window(r) != SW_OK) {
		json_object_put(out);
		return r->err;
	}
	*items = json_object_new_array();
	list = sw_json_get(out, "TrainingPlanOfferings");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *it =
		    reservation_item(json_object_array_get_idx(list, i));

		if (az != NULL &&
		    strcmp(az,
			sw_json_get_str(it, "availability_zone") ?: "") != 0)
			json_object_put(it);
		else
			json_object_array_add(*items, it);
	}
	json_object_put(out);
	return SW_OK;
}

sw_err
h_training_plan_search(struct sw_req *r)
{
	json_object *items;

	if (search(r, &items) != SW_OK)
		return r->err;
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

/* The item of items whose offering_id is id (id NULL: the first). */
static json_object *
pick(json_object *items, const char *id)
{
	size_t i;

	for (i = 0; items && i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);

		if (id == NULL ||
		    strcmp(id, sw_json_get_str(it, "offering_id")) == 0)
			return it;
	}
	return NULL;
}

/* Start (or plan) the purchase of offering o; a dry run shows it. */
static sw_err
start_purchase(
    struct sw_req *r, const char *kind, const char *target, json_object *o)
{
	json_object_object_add(r->args, "offering", json_object_get(o));
	if (h_start(r, kind, target, NULL) != SW_OK)
		return r->err;
	if (r->dry_run && r->out != NULL)
		json_object_object_add(r->out, "purchase", json_object_get(o));
	return SW_OK;
}

sw_err
h_training_plan_reserve(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *id = sw_json_get_str(r->args, "offering_id");
	json_object *items = NULL, *o, *out = NULL;
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_SAGEMAKER, "DescribeTrainingPlan",
	    sw_jo("TrainingPlanName", sw_js(name), NULL), &out, &err);
	json_object_put(out);
	if (e == SW_OK) {
		sw_ferr_add(&r->ferrs, "name", "unique",
		    "a training plan %s "
		    "exists",
		    name);
		return sw_req_fail(
		    r, SW_ECONFLICT, "training plan %s exists", name);
	}
	if (e != SW_ENOTFOUND)
		return h_aws_fail(
		    r, AWS_SVC_SAGEMAKER, "DescribeTrainingPlan", e, &err);
	if (search(r, &items) != SW_OK)
		return r->err;
	if ((o = pick(items, id)) == NULL) {
		sw_ferr_add(&r->ferrs, id ? "offering_id" : "count", "offering",
		    "no offering has %lld %s for %lld hours in this window%s",
		    (long long)sw_json_get_int(r->args, "count", 1),
		    sw_json_get_str(r->args, "instance_type"),
		    (long long)sw_json_get_int(r->args, "duration_hours", 1),
		    id ? " with this id" : "");
		json_object_put(items);
		return sw_req_fail(r, SW_EPRECONDITION,
		    "no training plan "
		    "offering fits");
	}
	e = start_purchase(r, "training_plan.reserve", name, o);
	json_object_put(items);
	return e;
}

sw_err
h_training_plan_extend(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "plan");
	const char *id = sw_json_get_str(r->args, "offering_id");
	const char *status;
	json_object *plan = NULL, *out = NULL, *items, *list, *o;
	size_t i;
	sw_err e;

	if (plan_call(r, "DescribeTrainingPlan",
		sw_jo("TrainingPlanName", sw_js(name), NULL), &plan) != SW_OK)
		return r->err;
	status = sw_json_get_str(plan, "Status");
	if (status == NULL || strcmp(status, "Expired") == 0 ||
	    strcmp(status, "Failed") == 0) {
		sw_ferr_add(&r->ferrs, "plan", "status",
		    "the plan is %s; "
		    "only a live plan can be extended",
		    status ? status : "?");
		e = sw_req_fail(r, SW_EPRECONDITION, "training plan %s is %s",
		    name, status ? status : "unknown");
		json_object_put(plan);
		return e;
	}
	sw_json_add_str(
	    r->args, "plan_arn", sw_json_get_str(plan, "TrainingPlanArn"));
	json_object_put(plan);
	if (plan_call(r, "SearchTrainingPlanOfferings",
		sw_jo("TrainingPlanArn",
		    sw_js(sw_json_get_str(r->args, "plan_arn")),
		    "DurationHours",
		    sw_ji(sw_json_get_int(r->args, "duration_hours", 1)), NULL),
		&out) != SW_OK)
		return r->err;
	items = json_object_new_array();
	list = sw_json_get(out, "TrainingPlanExtensionOfferings");
	for (i = 0; list && i < json_object_array_length(list); i++)
		json_object_array_add(
		    items, extension_item(json_object_array_get_idx(list, i)));
	json_object_put(out);
	if ((o = pick(items, id)) == NULL) {
		sw_ferr_add(&r->ferrs, id ? "offering_id" : "duration_hours",
		    "offering", "no extension offering of %lld hours%s",
		    (long long)sw_json_get_int(r->args, "duration_hours", 1),
		    id ? " with this id" : "");
		json_object_put(items);
		return sw_req_fail(r, SW_EPRECONDITION,
		    "no extension offering "
		    "fits");
	}
	e = start_purchase(r, "training_plan.extend", name, o);
	json_object_put(items);
	return e;
}

/* The seconds a plan has left by AWS's clock. */
static int64_t
remaining(struct sw_req *r, json_object *p)
{
	int64_t left = epoch(p, "EndTime") - aws_now(r);

	return left > 0 ? left : 0;
}

sw_err
h_training_plan_list(struct sw_req *r)
{
	json_object *out, *items, *list;
	size_t i;

	if (plan_call(r, "ListTrainingPlans",
		sw_jo("MaxResults", sw_ji(100), NULL), &out) != SW_OK)
		return r->err;
	items = json_object_new_array();
	list = sw_json_get(out, "TrainingPlanSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *p =
		    json_object_get(json_object_array_get_idx(list, i));

		sw_json_add_int(p, "remaining_seconds", remaining(r, p));
		json_object_array_add(items, p);
	}
	json_object_put(out);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

json_object *
h_plan_brief(struct sw_req *r, const char *arn)
{
	const char *name = arn ? strrchr(arn, '/') : NULL;
	json_object *p = NULL, *o;
	struct aws_error err;

	if (name == NULL ||
	    h_call(r, AWS_SVC_SAGEMAKER, "DescribeTrainingPlan",
		sw_jo("TrainingPlanName", sw_js(name + 1), NULL), &p,
		&err) != SW_OK)
		return NULL;
	o = sw_jo("name", sw_js(name + 1), "status",
	    sw_js(sw_json_get_str(p, "Status")), "end_time",
	    sw_ji(epoch(p, "EndTime")), "remaining_seconds",
	    sw_ji(remaining(r, p)), NULL);
	json_object_put(p);
	return o;
}

/* The groups of the clusters Slipway owns that run on plan arn. */
json_object *
h_plan_groups(struct sw_req *r, const char *arn)
{
	json_object *names = NULL, *groups = json_object_new_array();
	size_t i, j;

	if (sw_cluster_names(r->db, &names) != SW_OK)
		return groups;
	for (i = 0; i < json_object_array_length(names); i++) {
		const char *c =
		    json_object_get_string(json_object_array_get_idx(names, i));
		json_object *hp = NULL, *igs;
		struct aws_error err;

		if (h_hp_describe(r, c, &hp, &err) != SW_OK)
			continue;
		igs = sw_json_get(hp, "InstanceGroups");
		for (j = 0; igs && j < json_object_array_length(igs); j++) {
			json_object *g = json_object_array_get_idx(igs, j);

			if (strcmp(sw_json_get_str(g, "TrainingPlanArn") ?: "",
				arn) == 0)
				json_object_array_add(groups,
				    sw_jo("cluster", sw_js(c), "group",
					sw_js(sw_json_get_str(
					    g, "InstanceGroupName")),
					"count",
					sw_ji(sw_json_get_int(g, "TargetCount",
					    sw_json_get_int(
						g, "CurrentCount", 0))),
					NULL));
		}
		json_object_put(hp);
	}
	json_object_put(names);
	return groups;
}

sw_err
h_training_plan_get(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "plan");
	json_object *p = NULL, *hist = NULL, *ext;
	const char *arn;

	if (plan_call(r, "DescribeTrainingPlan",
		sw_jo("TrainingPlanName", sw_js(name), NULL), &p) != SW_OK)
		return r->err;
	arn = sw_json_get_str(p, "TrainingPlanArn");
	if (plan_call(r, "DescribeTrainingPlanExtensionHistory",
		sw_jo("TrainingPlanArn", sw_js(arn), "MaxResults", sw_ji(100),
		    NULL),
		&hist) != SW_OK) {
		json_object_put(p);
		return r->err;
	}
	ext = sw_json_get(hist, "TrainingPlanExtensions");
	sw_req_reply(r, 200,
	    sw_jo("name", sw_js(name), "arn", sw_js(arn), "status",
		sw_js(sw_json_get_str(p, "Status")), "start_time",
		sw_ji(epoch(p, "StartTime")), "end_time",
		sw_ji(epoch(p, "EndTime")), "remaining_seconds",
		sw_ji(remaining(r, p)), "upfront_fee", fee(p), "currency",
		sw_js(sw_json_get_str(p, "CurrencyCode")), "plan",
		json_object_get(p), "extensions",
		ext ? json_object_get(ext) : json_object_new_array(), "groups",
		h_plan_groups(r, arn), NULL));
	json_object_put(hist);
	json_object_put(p);
	return SW_OK;
}

/* The group of the node a pod runs on, from HyperPod's node list. */
static const char *
pod_group(json_object *nodes, json_object *pod)
{
	const char *on = sw_json_path_str(pod, "spec.nodeName");
	size_t i;

	for (i = 0; on && nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		const char *id = sw_json_get_str(n, "InstanceId");

		if (id != NULL && strstr(on, id) != NULL)
			return sw_json_get_str(n, "InstanceGroupName");
	}
	return NULL;
}

/* The TrainingPlanArn of group in DescribeCluster's hp, or NULL. */
static const char *
group_plan(json_object *hp, const char *group)
{
	json_object *igs = sw_json_get(hp, "InstanceGroups");
	size_t i;

	for (i = 0; group && igs && i < json_object_array_length(igs); i++) {
		json_object *g = json_object_array_get_idx(igs, i);

		if (strcmp(sw_json_get_str(g, "InstanceGroupName") ?: "",
			group) == 0)
			return sw_json_get_str(g, "TrainingPlanArn");
	}
	return NULL;
}

/* Whether some group of DescribeCluster's hp runs on a plan. */
static int
any_plan(json_object *hp)
{
	json_object *igs = sw_json_get(hp, "InstanceGroups");
	size_t i;

	for (i = 0; igs && i < json_object_array_length(igs); i++)
		if (sw_json_get_str(json_object_array_get_idx(igs, i),
			"TrainingPlanArn") != NULL)
			return 1;
	return 0;
}

json_object *
h_plan_of_pods(struct sw_req *r, const char *cluster, json_object *pods)
{
	json_object *out = json_object_new_array(), *hp = NULL, *nodes = NULL,
		    *seen = json_object_new_object();
	struct aws_error err;
	size_t i;

	if (h_hp_describe(r, cluster, &hp, &err) != SW_OK || !any_plan(hp) ||
	    h_call(r, AWS_SVC_SAGEMAKER, "ListClusterNodes",
		sw_jo("ClusterName", sw_js(cluster), "MaxResults", sw_ji(100),
		    NULL),
		&nodes, &err) != SW_OK)
		goto out;
	for (i = 0; pods && i < json_object_array_length(pods); i++) {
		const char *g =
		    pod_group(sw_json_get(nodes, "ClusterNodeSummaries"),
			json_object_array_get_idx(pods, i));
		const char *arn = group_plan(hp, g);
		json_object *brief;

		if (arn == NULL || sw_json_get(seen, g) != NULL)
			continue;
		sw_json_add_bool(seen, g, 1);
		if ((brief = h_plan_brief(r, arn)) != NULL)
			json_object_array_add(out,
			    sw_jo("group", sw_js(g), "training_plan", brief,
				NULL));
	}
out:
	json_object_put(hp);
	json_object_put(nodes);
	json_object_put(seen);
	return out;
}
