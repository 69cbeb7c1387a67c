/*
 * fleet.c: the fleet document (fleet_schema, fleet_plan, fleet_apply,
 * fleet_export).
 *
 * A fleet document names clusters (each as cluster_create takes it,
 * with features as feature_set takes them, team_access as
 * team_access_set does, scheduler_config as scheduler_config_set does,
 * space_templates as space_template_set does and compute_quotas as
 * compute_quota_create does), budgets (budget_set's scope, name and
 * fields) and subscriptions (as subscription_create takes them).
 * Nothing here reads AWS or the store on its own: the live state is
 * read by running the table's read rows in this process as the caller
 * (cluster_list, instance_group_list, feature_set with dry_run, whose
 * diff is the feature contract's, team_access_get, scheduler_config_get,
 * space_template_list, compute_quota_list, budget_list,
 * subscription_list), and each change is one row of the table with its
 * arguments, run the same way by apply: the same validation, audit and
 * person as a request of its own.  A change's cost is the one its
 * operation's dry run plans.
 * Clusters the document does not name are deleted only with prune.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/handlers.h"
#include "handlers/table.h"
#include "api/optable.h"
#include "api/router.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/json.h"
#include "lib/valid.h"

#define FLEET_SCHEMA_ID "https://slipway.dev/schemas/fleet-v1.json"

/* The answer of row name run in this process as r's caller, args
 * stolen; *doc (new reference) its answer or problem, the status. */
static long
run_row(
    struct sw_req *r, const char *name, json_object *args, json_object **doc)
{
	const struct sw_op *op = sw_op_by_name(name);
	struct sw_req sub;
	long status;

	sw_req_from_env(&sub, NULL);
	sub.method = op->method;
	sub.uri = op->path;
	sub.db = r->db;
	sub.cfg = r->cfg;
	sub.team_header = r->team_header;
	/* The caller's request passed the Origin check of a session; the
	 * rows it runs carry its Origin and Host as they came. */
	sub.origin = r->origin;
	sub.host = r->host;
	sw_dispatch(&sub, op, &r->who, args, sw_handler_table);
	json_object_put(args);
	if (sub.err != SW_OK) {
		status = sw_err_http_status(sub.err);
		*doc = sw_req_problem(&sub);
	} else {
		status = sub.status ? sub.status : 200;
		*doc = sub.out != NULL ? json_object_get(sub.out)
				       : json_object_new_object();
	}
	sw_req_free(&sub);
	return status;
}

/* Pass a read's problem on as r's own failure. */
static sw_err
fail_from(struct sw_req *r, long status, json_object *doc, const char *what)
{
	json_object *errs = sw_json_get(doc, "errors");
	size_t i;
	/* A refusal of a part is the document's: 400 naming the part
	 * (a read-only row answers no 404, 409 or 422 of its own). */
	sw_err e = status >= 500 ? SW_EUNAVAIL
	    : status == 403      ? SW_EFORBIDDEN
				 : SW_EINVAL;

	for (i = 0;
	     errs != NULL && json_object_is_type(errs, json_type_array) &&
	     i < json_object_array_length(errs);
	     i++) {
		json_object *x = json_object_array_get_idx(errs, i);
		char f[128];

		if (sw_fmt(f, sizeof(f), "%s.%s", what,
			sw_json_get_str(x, "field")
			    ? sw_json_get_str(x, "field")
			    : "") != SW_OK)
			continue;
		sw_ferr_add(&r->ferrs, f,
		    sw_json_get_str(x, "rule") ? sw_json_get_str(x, "rule")
					       : "invalid",
		    "%s",
		    sw_json_get_str(x, "message")
			? sw_json_get_str(x, "message")
			: "refused");
	}
	return sw_req_fail(r, e, "%s: %s", what,
	    sw_json_get_str(doc, "detail") ? sw_json_get_str(doc, "detail")
					   : "refused");
}

/* ---- the document against the table's fields ------------------------- */

/* Validate a copy of v against fields; errors named under at. */
static void
check_part(struct sw_req *r, json_object *v, const struct sw_field *fields,
    unsigned mask, const char *at)
{
	json_object *copy = NULL;
	struct sw_ferrs errs;
	char name[160];
	int i;

	memset(&errs, 0, sizeof(errs));
	if (json_object_deep_copy(v, &copy, NULL) != 0)
		return;
	if (sw_validate(copy, fields, mask, &errs) != SW_OK)
		for (i = 0; i < errs.n; i++) {
			sw_fmt_text(name, sizeof(name), "%s%s%s", at,
			    errs.e[i].field[0] ? "." : "", errs.e[i].field);
			sw_ferr_add(&r->ferrs, name, errs.e[i].rule, "%s",
			    errs.e[i].msg);
		}
	json_object_put(copy);
}

/* A member of o without key (a new object sharing the others). */
static json_object *
without(json_object *o, const char *key)
{
	json_object *out = json_object_new_object();

	json_object_object_foreach(o, k, v) if (strcmp(k, key) != 0)
	    json_object_object_add(out, k, json_object_get(v));
	return out;
}

/* A cluster's Space templates: each space_template_set's template (its
 * path) and body. */
static void
check_templates(struct sw_req *r, json_object *c, size_t i)
{
	const struct sw_op *ts = sw_op_by_name("space_template_set");
	json_object *f = sw_json_get(c, "space_templates"), *t, *path, *body;
	char at[80];
	size_t j;

	if (f != NULL && !json_object_is_type(f, json_type_array)) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].space_templates", i);
		sw_ferr_add(&r->ferrs, at, "type", "must be array");
		return;
	}
	for (j = 0; f != NULL && j < json_object_array_length(f); j++) {
		t = json_object_array_get_idx(f, j);
		sw_fmt_text(
		    at, sizeof(at), "clusters[%zu].space_templates[%zu]", i, j);
		if (!json_object_is_type(t, json_type_object)) {
			sw_ferr_add(&r->ferrs, at, "type", "must be object");
			continue;
		}
		/* The path's cluster name is a stand-in: the cluster's own
		 * name is checked as cluster_create's. */
		path = sw_jo("name", sw_js("c0"), "template",
		    json_object_get(sw_json_get(t, "template")), NULL);
		body = without(t, "template");
		check_part(r, path, ts->params, SW_F_PATH, at);
		check_part(r, body, ts->body, 0, at);
		json_object_put(path);
		json_object_put(body);
	}
}

static void
check_cluster(struct sw_req *r, json_object *c, size_t i, json_object *names)
{
	const struct sw_op *cc = sw_op_by_name("cluster_create");
	const struct sw_op *fs = sw_op_by_name("feature_set");
	const struct sw_op *ta = sw_op_by_name("team_access_set");
	const struct sw_op *qc = sw_op_by_name("compute_quota_create");
	json_object *body = without(c, "features"), *f;
	const char *name = sw_json_get_str(c, "name");
	char at[64];
	size_t j;

	json_object_object_del(body, "team_access");
	json_object_object_del(body, "compute_quotas");
	json_object_object_del(body, "scheduler_config");
	json_object_object_del(body, "space_templates");
	sw_fmt_text(at, sizeof(at), "clusters[%zu]", i);
	check_part(r, body, cc->body, 0, at);
	json_object_put(body);
	if ((f = sw_json_get(c, "features")) != NULL) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].features", i);
		check_part(r, f, fs->body, 0, at);
	}
	if ((f = sw_json_get(c, "team_access")) != NULL) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].team_access", i);
		if (!json_object_is_type(f, json_type_object))
			sw_ferr_add(&r->ferrs, at, "type", "must be object");
		else
			check_part(r, f, ta->body, 0, at);
	}
	if ((f = sw_json_get(c, "scheduler_config")) != NULL) {
		sw_fmt_text(
		    at, sizeof(at), "clusters[%zu].scheduler_config", i);
		if (!json_object_is_type(f, json_type_object))
			sw_ferr_add(&r->ferrs, at, "type", "must be object");
		else
			check_part(r, f,
			    sw_op_by_name("scheduler_config_set")->body, 0, at);
	}
	check_templates(r, c, i);
	f = sw_json_get(c, "compute_quotas");
	if (f != NULL && !json_object_is_type(f, json_type_array))
		sw_ferr_add(
		    &r->ferrs, "compute_quotas", "type", "must be array");
	for (j = 0; f != NULL && json_object_is_type(f, json_type_array) &&
	     j < json_object_array_length(f);
	     j++) {
		sw_fmt_text(
		    at, sizeof(at), "clusters[%zu].compute_quotas[%zu]", i, j);
		check_part(r, json_object_array_get_idx(f, j), qc->body, 0, at);
	}
	if (name == NULL)
		return;
	sw_fmt_text(at, sizeof(at), "clusters[%zu].name", i);
	if (sw_json_get(names, name) != NULL)
		sw_ferr_add(
		    &r->ferrs, at, "uniqueItems", "%s is named twice", name);
	json_object_object_add(names, name, json_object_new_int64((int64_t)i));
}

static void
check_budget(struct sw_req *r, json_object *b, size_t i)
{
	const struct sw_op *bs = sw_op_by_name("budget_set");
	json_object *path = json_object_new_object(), *body;
	char at[64];

	sw_fmt_text(at, sizeof(at), "budgets[%zu]", i);
	json_object_object_add(
	    path, "scope", json_object_get(sw_json_get(b, "scope")));
	json_object_object_add(
	    path, "name", json_object_get(sw_json_get(b, "name")));
	body = without(b, "scope");
	json_object_object_del(body, "name");
	check_part(r, path, bs->params, SW_F_PATH, at);
	check_part(r, body, bs->body, 0, at);
	json_object_put(path);
	json_object_put(body);
}

/* Every part of the document against the fields of its operation. */
static sw_err
check_doc(struct sw_req *r)
{
	json_object *cs = sw_json_get(r->args, "clusters");
	json_object *bs = sw_json_get(r->args, "budgets");
	json_object *ss = sw_json_get(r->args, "subscriptions");
	json_object *names = json_object_new_object();
	const struct sw_op *sc = sw_op_by_name("subscription_create");
	char at[64];
	size_t i;

	for (i = 0; cs != NULL && i < json_object_array_length(cs); i++)
		check_cluster(r, json_object_array_get_idx(cs, i), i, names);
	for (i = 0; bs != NULL && i < json_object_array_length(bs); i++)
		check_budget(r, json_object_array_get_idx(bs, i), i);
	for (i = 0; ss != NULL && i < json_object_array_length(ss); i++) {
		sw_fmt_text(at, sizeof(at), "subscriptions[%zu]", i);
		check_part(
		    r, json_object_array_get_idx(ss, i), sc->body, 0, at);
	}
	json_object_put(names);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s (%s)",
		    r->ferrs.e[0].field, r->ferrs.e[0].msg, r->ferrs.e[0].rule);
	return SW_OK;
}

/* ---- the plan --------------------------------------------------------- */

struct plan {
	json_object *changes; /* the change rows */
	json_object *kept; /* cluster names */
	double added;
	int unpriced;
};

static json_object *
change(struct plan *p, const char *op, const char *target, json_object *args,
    const char *reason, const char *why)
{
	json_object *c = sw_jo("order",
	    json_object_new_int64(
		(int64_t)json_object_array_length(p->changes) + 1),
	    "operation", sw_js(op), "target", sw_js(target), "arguments", args,
	    "reason", sw_js(reason), "why", sw_js(why), NULL);

	json_object_array_add(p->changes, c);
	return c;
}

/* Field, live and desired values of a change that differs. */
static void
differs(json_object *c, const char *field, json_object *live, json_object *want)
{
	json_object_object_add(c, "field", sw_js(field));
	json_object_object_add(c, "live", json_object_get(live));
	json_object_object_add(c, "desired", json_object_get(want));
}

/* The cost of a change: its operation's dry run (a plan's cost). */
static sw_err
cost_of(struct sw_req *r, struct plan *p, json_object *c, const char *at)
{
	json_object *args = NULL, *doc = NULL, *cost;
	long st;

	json_object_deep_copy(sw_json_get(c, "arguments"), &args, NULL);
	json_object_object_add(args, "dry_run", sw_jb(1));
	st = run_row(r, sw_json_get_str(c, "operation"), args, &doc);
	if (st >= 300) {
		sw_err e = fail_from(r, st, doc, at);

		json_object_put(doc);
		return e;
	}
	if ((cost = sw_json_get(doc, "cost")) != NULL) {
		json_object *per = sw_json_get(cost, "added_per_hour");

		json_object_object_add(c, "cost", json_object_get(cost));
		if (per == NULL || json_object_is_type(per, json_type_null))
			p->unpriced = 1;
		else
			p->added += json_object_get_double(per);
	}
	json_object_put(doc);
	return SW_OK;
}

/* The live group of name in items, or NULL. */
static json_object *
group_named(json_object *items, const char *name)
{
	size_t i;

	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *g = json_object_array_get_idx(items, i);

		if (sw_json_get_str(g, "name") != NULL &&
		    strcmp(sw_json_get_str(g, "name"), name) == 0)
			return g;
	}
	return NULL;
}

/* A group whose instance type differs: the scale row's own refusal
 * (the type is immutable), naming the group of the document. */
static sw_err
immutable(struct sw_req *r, const char *cl, const char *gn, json_object *g,
    const char *at)
{
	json_object *doc = NULL;
	long st;
	sw_err e;

	st = run_row(r, "instance_group_scale",
	    sw_jo("name", sw_js(cl), "group", sw_js(gn), "instance_type",
		json_object_get(sw_json_get(g, "instance_type")), "dry_run",
		sw_jb(1), NULL),
	    &doc);
	e = fail_from(r, st < 300 ? 400 : st, doc, at);
	json_object_put(doc);
	return e;
}

/* One desired group of an existing cluster against its live group. */
static sw_err
plan_group(struct sw_req *r, struct plan *p, const char *cl, json_object *g,
    json_object *live, const char *at)
{
	const char *gn = sw_json_get_str(g, "name");
	json_object *lg = group_named(live, gn), *c, *args;
	char target[160], why[256];

	sw_fmt_text(target, sizeof(target), "%s/%s", cl, gn);
	if (lg == NULL) {
		args = without(g, "name");
		json_object_object_add(args, "name", sw_js(cl));
		json_object_object_add(args, "group_name", sw_js(gn));
		c = change(p, "instance_group_add", target, args, "absent",
		    "the cluster has no such instance group");
		return cost_of(r, p, c, at);
	}
	if (strcmp(sw_json_get_str(lg, "instance_type") ?: "",
		sw_json_get_str(g, "instance_type")) != 0)
		return immutable(r, cl, gn, g, at);
	if (sw_json_get_int(lg, "target_count", -1) ==
	    sw_json_get_int(g, "count", -1))
		return SW_OK;
	sw_fmt_text(why, sizeof(why), "count: live %lld -> desired %lld",
	    (long long)sw_json_get_int(lg, "target_count", -1),
	    (long long)sw_json_get_int(g, "count", -1));
	args = sw_jo("name", sw_js(cl), "group", sw_js(gn), "count",
	    json_object_get(sw_json_get(g, "count")), NULL);
	c = change(p, "instance_group_scale", target, args, "differs", why);
	differs(c, "count", sw_json_get(lg, "target_count"),
	    sw_json_get(g, "count"));
	return cost_of(r, p, c, at);
}

/* Say which features of want differ from live (feature_list's map):
 * the first as the change's field, all of them in its why. */
static void
feature_why(json_object *c, json_object *live, json_object *want)
{
	char why[512], field[96];
	size_t len = 0;
	int n = 0;

	why[0] = '\0';
	json_object_object_foreach(want, k, v)
	{
		int on = json_object_is_type(v, json_type_object)
		    ? sw_json_get_bool(v, "enabled", 0)
		    : json_object_get_boolean(v);
		int was = sw_json_get_bool(sw_json_get(live, k), "enabled", 0);

		if (on == was || len >= sizeof(why))
			continue;
		len += (size_t)snprintf(why + len, sizeof(why) - len,
		    "%s%s: live %s -> desired %s", n ? "; " : "", k,
		    was ? "on" : "off", on ? "on" : "off");
		if (n++ == 0) {
			sw_fmt_text(field, sizeof(field), "features.%s", k);
			differs(c, field,
			    sw_json_get(sw_json_get(live, k), "enabled"),
			    json_object_is_type(v, json_type_object)
				? sw_json_get(v, "enabled")
				: v);
		}
	}
	json_object_object_add(c, "why",
	    sw_js(n > 0 ? why
			: "a feature's "
			  "settings differ (feature_set's plan)"));
	if (n == 0)
		differs(c, "features", NULL, want);
}

/* The features of a cluster: feature_set's own diff, as a dry run. */
static sw_err
plan_features(struct sw_req *r, struct plan *p, const char *cl,
    json_object *want, int ready, const char *at)
{
	json_object *args, *doc = NULL, *c;
	long st;

	args = without(want, "");
	json_object_object_add(args, "name", sw_js(cl));
	if (!ready) {
		c = change(p, "feature_set", cl, args, "absent",
		    "features of "
		    "a cluster being created");
		json_object_object_add(c, "waits_for", sw_js("cluster_create"));
		return SW_OK;
	}
	json_object_get(args);
	json_object_object_add(args, "dry_run", sw_jb(1));
	st = run_row(r, "feature_set", args, &doc);
	json_object_object_del(args, "dry_run");
	if (st >= 300) {
		sw_err e = fail_from(r, st, doc, at);

		json_object_put(args);
		json_object_put(doc);
		return e;
	}
	if (!sw_json_get_bool(doc, "changed", 1)) {
		json_object_put(args);
		json_object_put(doc);
		return SW_OK;
	}
	json_object_put(doc);
	doc = NULL;
	run_row(r, "feature_list", sw_jo("name", sw_js(cl), NULL), &doc);
	c = change(p, "feature_set", cl, args, "differs", "");
	feature_why(c, sw_json_get(doc, "features"), want);
	json_object_put(doc);
	return SW_OK;
}

/* Team access of a cluster (team_access_set's {enabled}): differs when
 * on/off differs, or when on and an entry is not as asked. */
static sw_err
plan_team_access(struct sw_req *r, struct plan *p, const char *cl,
    json_object *want, int ready, const char *at)
{
	json_object *doc = NULL, *c, *items;
	int on = sw_json_get_bool(want, "enabled", 0), live, off = 0;
	size_t i;
	long st;

	if (!ready) {
		c = change(p, "team_access_set", cl,
		    sw_jo("name", sw_js(cl), "enabled", sw_jb(on), NULL),
		    "absent",
		    "team access of a "
		    "cluster being created");
		json_object_object_add(c, "waits_for", sw_js("cluster_create"));
		return SW_OK;
	}
	st =
	    run_row(r, "team_access_get", sw_jo("name", sw_js(cl), NULL), &doc);
	if (st >= 300) {
		sw_err e = fail_from(r, st, doc, at);

		json_object_put(doc);
		return e;
	}
	live = sw_json_get_bool(doc, "enabled", 0);
	items = sw_json_get(doc, "items");
	for (i = 0; on && items != NULL && i < json_object_array_length(items);
	     i++)
		off += strcmp(sw_json_get_str(
				  json_object_array_get_idx(items, i), "state")
			       ?: "",
			   "present") != 0;
	if (live != on || off > 0) {
		c = change(p, "team_access_set", cl,
		    sw_jo("name", sw_js(cl), "enabled", sw_jb(on), NULL),
		    "differs",
		    live != on ? (on ? "enabled: live false -> desired true"
				     : "enabled: "
				       "live true -> desired false")
			       : "an entry is not as the "
				 "teams' configuration asks");
		differs(c, live != on ? "enabled" : "items",
		    live != on ? sw_json_get(doc, "enabled") : items,
		    live != on ? sw_json_get(want, "enabled") : NULL);
	}
	json_object_put(doc);
	return SW_OK;
}

/* The members of a quota compute_quota_update can change. */
static const char *const quota_amounts[] = { "instance_type", "count",
	"accelerators", "vcpu", "memory_gib", "fair_share_weight", "sharing",
	"borrow_limit", "preempt", "enabled", NULL };

/* The live item of items (a list row's answer) whose member key is
 * name, or NULL. */
static json_object *
item_named(json_object *items, const char *key, const char *name)
{
	size_t i;

	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *q = json_object_array_get_idx(items, i);

		if (strcmp(sw_json_get_str(q, key) ?: "", name) == 0)
			return q;
	}
	return NULL;
}

/* Does a live value equal the document's (numbers as numbers)? */
static int
same_value(json_object *live, json_object *want)
{
	if (live == NULL || want == NULL)
		return live == want;
	if ((json_object_is_type(want, json_type_int) ||
		json_object_is_type(want, json_type_double)) &&
	    (json_object_is_type(live, json_type_int) ||
		json_object_is_type(live, json_type_double)))
		return json_object_get_double(live) ==
		    json_object_get_double(want);
	return json_object_equal(live, want);
}

/* One compute quota of the document against the live ones: absent, it
 * is created; its amounts differing, updated (those only); another team,
 * deleted and created again. */
static void
plan_quota(struct plan *p, const char *cl, json_object *want,
    json_object *items, const char *waits)
{
	const char *qn = sw_json_get_str(want, "quota_name");
	json_object *lq = item_named(items, "quota_name", qn), *c, *args;
	char target[160], why[256];
	const char *f = NULL;
	size_t i;

	sw_fmt_text(target, sizeof(target), "%s/%s", cl, qn);
	if (lq != NULL &&
	    strcmp(sw_json_get_str(lq, "team") ?: "",
		sw_json_get_str(want, "team")) != 0) {
		c = change(p, "compute_quota_delete", target,
		    sw_jo("name", sw_js(cl), "quota", sw_js(qn), NULL),
		    "differs", "team differs: deleted and made again");
		differs(c, "team", sw_json_get(lq, "team"),
		    sw_json_get(want, "team"));
		lq = NULL;
	}
	if (lq == NULL) {
		args = without(want, "");
		json_object_object_add(args, "name", sw_js(cl));
		c = change(p, "compute_quota_create", target, args, "absent",
		    "the cluster has no quota of that name");
		if (waits != NULL)
			json_object_object_add(c, "waits_for", sw_js(waits));
		return;
	}
	args = sw_jo("name", sw_js(cl), "quota", sw_js(qn), NULL);
	for (i = 0; quota_amounts[i] != NULL; i++) {
		json_object *w = sw_json_get(want, quota_amounts[i]);

		if (w == NULL ||
		    same_value(sw_json_get(lq, quota_amounts[i]), w))
			continue;
		f = f != NULL ? f : quota_amounts[i];
		json_object_object_add(
		    args, quota_amounts[i], json_object_get(w));
	}
	if (f == NULL) {
		json_object_put(args);
		return;
	}
	sw_fmt_text(why, sizeof(why), "%s: live %s -> desired %s", f,
	    sw_json_get(lq, f) ? json_object_get_string(sw_json_get(lq, f))
			       : "(none)",
	    json_object_get_string(sw_json_get(want, f)));
	c = change(p, "compute_quota_update", target, args, "differs", why);
	differs(c, f, sw_json_get(lq, f), sw_json_get(want, f));
}

/* One item of the document against the live list (NULL: not read). */
typedef void plan_item_fn(struct plan *, const char *cl, json_object *want,
    json_object *items, const char *waits);

/*
 * A cluster's items of one kind (compute quotas, Space templates): the
 * live ones read with list_row, unless the cluster is being created,
 * then each of the document's planned by one.  waits names what they
 * wait for (a cluster being created, features being changed) or is
 * NULL.
 */
static sw_err
plan_listed(struct sw_req *r, struct plan *p, const char *cl, json_object *want,
    const char *waits, const char *at, const char *list_row, plan_item_fn *one)
{
	json_object *doc = NULL;
	size_t i;
	long st;

	if (waits == NULL || strcmp(waits, "cluster_create") != 0) {
		st = run_row(r, list_row, sw_jo("name", sw_js(cl), NULL), &doc);
		if (st >= 300) {
			sw_err e = fail_from(r, st, doc, at);

			json_object_put(doc);
			return e;
		}
	}
	for (i = 0; i < json_object_array_length(want); i++)
		one(p, cl, json_object_array_get_idx(want, i),
		    sw_json_get(doc, "items"), waits);
	json_object_put(doc);
	return SW_OK;
}

/* ---- the scheduler config ---------------------------------------------- */

/* The members of a scheduler config scheduler_config_set takes. */
static const char *const sched_flags[] = { "fair_share",
	"idle_resource_sharing", NULL };

/* Do two lists of priority classes name the same classes with the same
 * weights (the order of a list is not what it means)? */
static int
same_classes(json_object *a, json_object *b)
{
	size_t i, j, n = a != NULL ? json_object_array_length(a) : 0;
	int found;

	if (n != (b != NULL ? json_object_array_length(b) : 0))
		return 0;
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(a, i);

		found = 0;
		for (j = 0; j < n && !found; j++) {
			json_object *y = json_object_array_get_idx(b, j);

			found = strcmp(sw_json_get_str(x, "name") ?: "",
				    sw_json_get_str(y, "name") ?: "") == 0 &&
			    same_value(sw_json_get(x, "weight"),
				sw_json_get(y, "weight"));
		}
		if (!found)
			return 0;
	}
	return 1;
}

/* The first member of the document's scheduler config the live one
 * (scheduler_config_get's answer) does not have, or NULL. */
static const char *
sched_differs(json_object *want, json_object *live)
{
	size_t i;

	for (i = 0; sched_flags[i] != NULL; i++)
		if (sw_json_get(want, sched_flags[i]) != NULL &&
		    sw_json_get_bool(want, sched_flags[i], 0) !=
			sw_json_get_bool(live, sched_flags[i], 0))
			return sched_flags[i];
	if (sw_json_get(want, "priority_classes") == NULL ||
	    same_classes(sw_json_get(want, "priority_classes"),
		sw_json_get(live, "priority_classes")))
		return NULL;
	return "priority_classes";
}

/* A cluster's scheduler config (scheduler_config_set's fields) against
 * scheduler_config_get's; waits names what it waits for (a cluster being
 * created: nothing to read yet; a feature_set of the same plan, as task
 * governance may be turned on by it) or is NULL. */
static sw_err
plan_scheduler(struct sw_req *r, struct plan *p, const char *cl,
    json_object *want, const char *waits, const char *at)
{
	json_object *doc = NULL, *args = without(want, ""), *c;
	const char *f;
	char why[512];
	long st;

	json_object_object_add(args, "name", sw_js(cl));
	if (waits != NULL && strcmp(waits, "cluster_create") == 0) {
		c = change(p, "scheduler_config_set", cl, args, "absent",
		    "the scheduler config of a cluster being created");
		json_object_object_add(c, "waits_for", sw_js(waits));
		return SW_OK;
	}
	st = run_row(
	    r, "scheduler_config_get", sw_jo("name", sw_js(cl), NULL), &doc);
	if (st >= 300) {
		sw_err e = fail_from(r, st, doc, at);

		json_object_put(args);
		json_object_put(doc);
		return e;
	}
	c = NULL;
	if (!sw_json_get_bool(doc, "configured", 0))
		c = change(p, "scheduler_config_set", cl, args, "absent",
		    "the cluster has no scheduler config");
	else if ((f = sched_differs(want, doc)) != NULL) {
		sw_fmt_text(why, sizeof(why), "%s: live %s -> desired %s", f,
		    json_object_to_json_string(sw_json_get(doc, f)),
		    json_object_to_json_string(sw_json_get(want, f)));
		c = change(p, "scheduler_config_set", cl, args, "differs", why);
		differs(c, f, sw_json_get(doc, f), sw_json_get(want, f));
	} else
		json_object_put(args);
	/* It needs task governance on: after a feature_set of this plan. */
	if (c != NULL && waits != NULL)
		json_object_object_add(c, "waits_for", sw_js(waits));
	json_object_put(doc);
	return SW_OK;
}

/* ---- Space templates --------------------------------------------------- */

/* The members of a Space template space_template_set takes. */
static const char *const tmpl_fields[] = { "display_name", "app_type",
	"description", "default_image", "allowed_images", "allow_custom_images",
	"cpu", "memory_gib", "storage_gib", NULL };

/* One Space template of the document against the live ones (NULL: not
 * read, a cluster being created). */
static void
plan_template(struct plan *p, const char *cl, json_object *want,
    json_object *items, const char *waits)
{
	const char *tn = sw_json_get_str(want, "template");
	json_object *lt = item_named(items, "template", tn), *c, *args;
	char target[160], why[256];
	const char *f = NULL;
	size_t i;

	for (i = 0; lt != NULL && f == NULL && tmpl_fields[i] != NULL; i++)
		if (sw_json_get(want, tmpl_fields[i]) != NULL &&
		    !same_value(sw_json_get(lt, tmpl_fields[i]),
			sw_json_get(want, tmpl_fields[i])))
			f = tmpl_fields[i];
	if (lt != NULL && f == NULL)
		return;
	sw_fmt_text(target, sizeof(target), "%s/%s", cl, tn);
	args = without(want, "");
	json_object_object_add(args, "name", sw_js(cl));
	if (lt == NULL)
		c = change(p, "space_template_set", target, args, "absent",
		    "the cluster has no Space template of that name");
	else {
		sw_fmt_text(why, sizeof(why), "%s: live %s -> desired %s", f,
		    sw_json_get(lt, f)
			? json_object_to_json_string(sw_json_get(lt, f))
			: "(none)",
		    json_object_to_json_string(sw_json_get(want, f)));
		c = change(
		    p, "space_template_set", target, args, "differs", why);
		differs(c, f, sw_json_get(lt, f), sw_json_get(want, f));
	}
	if (waits != NULL)
		json_object_object_add(c, "waits_for", sw_js(waits));
}

/* The live cluster of name in the cluster list (the one Slipway
 * manages when another account or region has one of that name too),
 * or NULL. */
static json_object *
cluster_named(json_object *items, const char *name)
{
	json_object *first = NULL;
	size_t i;

	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *c = json_object_array_get_idx(items, i);

		if (sw_json_get_str(c, "name") == NULL ||
		    strcmp(sw_json_get_str(c, "name"), name) != 0)
			continue;
		if (sw_json_get_bool(c, "managed", 0))
			return c;
		if (first == NULL)
			first = c;
	}
	return first;
}

/*
 * The document's account and region of a cluster (default Slipway's
 * own) against where the live one lives: a cluster does not move, so
 * another place is the document's 400 naming the field (immutable).
 */
static sw_err
plan_place(struct sw_req *r, json_object *want, json_object *lc, const char *at)
{
	static const char *const keys[] = { "account", "region" };
	const char *own[2];
	char f[96];
	size_t k;

	own[0] = sw_config_account(r->cfg);
	own[1] = r->cfg->region;
	for (k = 0; k < 2; k++) {
		const char *w = sw_json_get_str(want, keys[k]);
		const char *l = sw_json_get_str(lc, keys[k]);

		w = w != NULL ? w : own[k];
		l = l != NULL ? l : own[k];
		if (w == NULL || l == NULL || strcmp(w, l) == 0)
			continue;
		sw_fmt_text(f, sizeof(f), "%s.%s", at, keys[k]);
		sw_ferr_add(&r->ferrs, f, "immutable",
		    "the cluster lives in "
		    "%s %s; a cluster does not move",
		    keys[k], l);
		return sw_req_fail(r, SW_EINVAL,
		    "%s: the cluster lives in %s "
		    "%s, not %s (immutable)",
		    f, keys[k], l, w);
	}
	return SW_OK;
}

/* Is a live cluster (a cluster_list item) ready for feature and access
 * changes: EKS ACTIVE and HyperPod InService? */
static int
ready(json_object *lc)
{
	const char *eks = sw_json_get_str(lc, "eks_status");
	const char *hp = sw_json_get_str(lc, "hyperpod_status");

	return eks != NULL && strcmp(eks, "ACTIVE") == 0 && hp != NULL &&
	    strcmp(hp, "InService") == 0;
}

/* What a cluster's groups are planned before: features, team access. */
static sw_err
plan_after(
    struct sw_req *r, struct plan *p, json_object *want, int ok, size_t i)
{
	const char *cl = sw_json_get_str(want, "name");
	json_object *feats = sw_json_get(want, "features");
	json_object *ta = sw_json_get(want, "team_access");
	json_object *qs = sw_json_get(want, "compute_quotas");
	json_object *sc = sw_json_get(want, "scheduler_config");
	json_object *ts = sw_json_get(want, "space_templates");
	size_t before = json_object_array_length(p->changes);
	const char *waits;
	char at[64];
	sw_err e = SW_OK;

	if (feats != NULL) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].features", i);
		e = plan_features(r, p, cl, feats, ok, at);
	}
	/* Quotas and the scheduler config need task governance on. */
	waits = !ok                                         ? "cluster_create"
	    : json_object_array_length(p->changes) > before ? "feature_set"
							    : NULL;
	if (e == SW_OK && sc != NULL) {
		sw_fmt_text(
		    at, sizeof(at), "clusters[%zu].scheduler_config", i);
		e = plan_scheduler(r, p, cl, sc, waits, at);
	}
	if (e == SW_OK && ts != NULL && json_object_array_length(ts) > 0) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].space_templates", i);
		e = plan_listed(r, p, cl, ts, waits, at, "space_template_list",
		    plan_template);
	}
	if (e == SW_OK && qs != NULL && json_object_array_length(qs) > 0) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].compute_quotas", i);
		e = plan_listed(
		    r, p, cl, qs, waits, at, "compute_quota_list", plan_quota);
	}
	if (e == SW_OK && ta != NULL) {
		sw_fmt_text(at, sizeof(at), "clusters[%zu].team_access", i);
		e = plan_team_access(r, p, cl, ta, ok, at);
	}
	return e;
}

static sw_err
plan_cluster(struct sw_req *r, struct plan *p, json_object *want,
    json_object *live_items, size_t i)
{
	const char *cl = sw_json_get_str(want, "name");
	json_object *lc = cluster_named(live_items, cl), *groups, *doc = NULL;
	json_object *c;
	char at[64];
	size_t j;
	long st;
	sw_err e = SW_OK;

	sw_fmt_text(at, sizeof(at), "clusters[%zu]", i);
	if (lc == NULL) {
		json_object *args = without(want, "features");

		json_object_object_del(args, "team_access");
		json_object_object_del(args, "compute_quotas");
		json_object_object_del(args, "scheduler_config");
		json_object_object_del(args, "space_templates");
		c = change(p, "cluster_create", cl, args, "absent",
		    "no cluster of that name");
		if ((e = cost_of(r, p, c, at)) != SW_OK)
			return e;
		return plan_after(r, p, want, 0, i);
	}
	if ((e = plan_place(r, want, lc, at)) != SW_OK)
		return e;
	st = run_row(
	    r, "instance_group_list", sw_jo("name", sw_js(cl), NULL), &doc);
	if (st >= 300) {
		e = fail_from(r, st, doc, at);
		json_object_put(doc);
		return e;
	}
	groups = sw_json_get(want, "instance_groups");
	for (j = 0; e == SW_OK && groups != NULL &&
	     j < json_object_array_length(groups);
	     j++) {
		char gat[96];

		sw_fmt_text(gat, sizeof(gat), "%s.instance_groups[%zu]", at, j);
		e = plan_group(r, p, cl, json_object_array_get_idx(groups, j),
		    sw_json_get(doc, "items"), gat);
	}
	json_object_put(doc);
	return e == SW_OK ? plan_after(r, p, want, ready(lc), i) : e;
}

/* Managed clusters the document does not name: deleted with prune,
 * else kept (and the plan says so). */
static void
plan_prune(struct sw_req *r, struct plan *p, json_object *live_items)
{
	json_object *want = sw_json_get(r->args, "clusters");
	int prune = sw_json_get_bool(r->args, "prune", 0);
	size_t i, j;

	for (i = 0; i < json_object_array_length(live_items); i++) {
		json_object *lc = json_object_array_get_idx(live_items, i);
		const char *n = sw_json_get_str(lc, "name");
		int named = 0;

		if (n == NULL || !sw_json_get_bool(lc, "managed", 0))
			continue;
		for (j = 0; want != NULL && j < json_object_array_length(want);
		     j++)
			named |=
			    sw_json_get_str(json_object_array_get_idx(want, j),
				"name") != NULL &&
			    strcmp(
				sw_json_get_str(
				    json_object_array_get_idx(want, j), "name"),
				n) == 0;
		if (named)
			continue;
		if (prune)
			change(p, "cluster_delete", n,
			    sw_jo("name", sw_js(n), NULL), "not_in_document",
			    "prune: true and the "
			    "document does not name it");
		else
			json_object_array_add(p->kept, sw_js(n));
	}
}

/* A budget of the document against the live budgets. */
static void
plan_budget(struct plan *p, json_object *want, json_object *live)
{
	const char *sc = sw_json_get_str(want, "scope");
	const char *n = sw_json_get_str(want, "name");
	json_object *lb = NULL, *c, *th = sw_json_get(want, "thresholds");
	char target[160], why[256];
	size_t i;

	for (i = 0; live != NULL && i < json_object_array_length(live); i++) {
		json_object *b = json_object_array_get_idx(live, i);

		if (strcmp(sw_json_get_str(b, "scope"), sc) == 0 &&
		    strcmp(sw_json_get_str(b, "name"), n) == 0)
			lb = b;
	}
	sw_fmt_text(target, sizeof(target), "%s/%s", sc, n);
	if (lb == NULL) {
		change(p, "budget_set", target, json_object_get(want), "absent",
		    "no budget for it");
		return;
	}
	if (json_object_get_double(sw_json_get(lb, "limit_usd")) !=
	    json_object_get_double(sw_json_get(want, "limit_usd"))) {
		sw_fmt_text(why, sizeof(why),
		    "limit_usd: live %s -> desired %s",
		    json_object_get_string(sw_json_get(lb, "limit_usd")),
		    json_object_get_string(sw_json_get(want, "limit_usd")));
		c = change(p, "budget_set", target, json_object_get(want),
		    "differs", why);
		differs(c, "limit_usd", sw_json_get(lb, "limit_usd"),
		    sw_json_get(want, "limit_usd"));
	} else if (th != NULL &&
	    !json_object_equal(th, sw_json_get(lb, "thresholds"))) {
		c = change(p, "budget_set", target, json_object_get(want),
		    "differs", "thresholds differ");
		differs(c, "thresholds", sw_json_get(lb, "thresholds"), th);
	}
}

static sw_err
plan_budgets(struct sw_req *r, struct plan *p)
{
	json_object *want = sw_json_get(r->args, "budgets"), *doc = NULL;
	size_t i;
	long st;

	if (want == NULL || json_object_array_length(want) == 0)
		return SW_OK;
	if ((st = run_row(r, "budget_list", NULL, &doc)) >= 300) {
		sw_err e = fail_from(r, st, doc, "budgets");

		json_object_put(doc);
		return e;
	}
	for (i = 0; i < json_object_array_length(want); i++)
		plan_budget(p, json_object_array_get_idx(want, i),
		    sw_json_get(doc, "items"));
	json_object_put(doc);
	return SW_OK;
}

/* The address a subscription of the document sends to (its url, topic
 * or bus), or NULL when it names none. */
static const char *
sub_address(json_object *want)
{
	const char *k[] = { "url", "topic_arn", "event_bus" };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (sw_json_get_str(want, k[i]) != NULL)
			return sw_json_get_str(want, k[i]);
	return NULL;
}

/* The events of a subscription, sorted, as one text. */
static void
events_text(json_object *events, char *out, size_t sz)
{
	const char *v[32];
	size_t n = 0, i, j, len = 0;

	for (i = 0;
	     events != NULL && i < json_object_array_length(events) && n < 32;
	     i++)
		v[n++] = json_object_get_string(
		    json_object_array_get_idx(events, i));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			const char *x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	out[0] = '\0';
	for (i = 0; i < n && len < sz; i++)
		len += (size_t)snprintf(
		    out + len, sz - len, "%s%s", i ? "," : "", v[i]);
}

/* The first member in which a live subscription is not the document's
 * (NULL: none): the secret only when the document gives one and live
 * keeps none (a secret cannot be read back). */
static const char *
sub_differs(json_object *want, json_object *live)
{
	static const char *const same[] = { "target", "cluster", "team", NULL };
	const char *a, *fmt = sw_json_get_str(want, "format");
	char ew[1024], el[1024];
	size_t i;

	for (i = 0; same[i] != NULL; i++)
		if (strcmp(sw_json_get_str(want, same[i]) ?: "",
			sw_json_get_str(live, same[i]) ?: "") != 0)
			return same[i];
	events_text(sw_json_get(want, "events"), ew, sizeof(ew));
	events_text(sw_json_get(live, "events"), el, sizeof(el));
	if (strcmp(ew, el) != 0)
		return "events";
	if (strcmp(fmt ?: "slipway", sw_json_get_str(live, "format") ?: "") !=
	    0)
		return "format";
	if ((a = sub_address(want)) != NULL &&
	    strcmp(a, sw_json_get_str(live, "address") ?: "") != 0)
		return "address";
	if (sw_json_get(want, "secret") != NULL &&
	    !sw_json_get_bool(live, "secret_set", 0))
		return "secret";
	return NULL;
}

/* A subscription of the document against the live ones: absent, it is
 * created; differing, deleted and created again (there is no update). */
static void
plan_subscription(struct plan *p, json_object *want, json_object *live)
{
	const char *n = sw_json_get_str(want, "name"), *f;
	json_object *ls = group_named(live, n), *c;
	char why[160];

	if (ls == NULL) {
		change(p, "subscription_create", n, json_object_get(want),
		    "absent", "no subscription of that name");
		return;
	}
	if ((f = sub_differs(want, ls)) == NULL)
		return;
	sw_fmt_text(why, sizeof(why), "%s differs: deleted and made again", f);
	c = change(p, "subscription_delete", n, sw_jo("name", sw_js(n), NULL),
	    "differs", why);
	differs(c, f,
	    sw_json_get(ls, strcmp(f, "secret") == 0 ? "secret_set" : f),
	    strcmp(f, "address") == 0 ? NULL : sw_json_get(want, f));
	change(
	    p, "subscription_create", n, json_object_get(want), "differs", why);
}

static sw_err
plan_subscriptions(struct sw_req *r, struct plan *p)
{
	json_object *want = sw_json_get(r->args, "subscriptions"), *doc = NULL;
	size_t i;
	long st;

	if (want == NULL || json_object_array_length(want) == 0)
		return SW_OK;
	if ((st = run_row(r, "subscription_list", NULL, &doc)) >= 300) {
		sw_err e = fail_from(r, st, doc, "subscriptions");

		json_object_put(doc);
		return e;
	}
	for (i = 0; i < json_object_array_length(want); i++)
		plan_subscription(p, json_object_array_get_idx(want, i),
		    sw_json_get(doc, "items"));
	json_object_put(doc);
	return SW_OK;
}

/* The plan of r's document into p (changes in the order they run). */
/*
 * Each change that is a difference the poller recorded (the same
 * target, field and live value) gets first_seen_ms: when Slipway first
 * saw it (poller/drift.c).  Who made it is not known.
 */
static void
seen_when(struct sw_req *r, json_object *changes)
{
	json_object *rec = NULL;
	size_t i, j;

	if (sw_db_drift_list(r->db, NULL, &rec) != SW_OK)
		return;
	for (i = 0; i < json_object_array_length(changes); i++) {
		json_object *c = json_object_array_get_idx(changes, i);
		const char *f = sw_json_get_str(c, "field");

		for (j = 0; f != NULL && j < json_object_array_length(rec);
		     j++) {
			json_object *d = json_object_array_get_idx(rec, j);

			if (strcmp(sw_json_get_str(d, "target"),
				sw_json_get_str(c, "target")) == 0 &&
			    strcmp(sw_json_get_str(d, "field"), f) == 0 &&
			    json_object_equal(
				sw_json_get(d, "live"), sw_json_get(c, "live")))
				json_object_object_add(c, "first_seen_ms",
				    json_object_get(
					sw_json_get(d, "first_seen_ms")));
		}
	}
	json_object_put(rec);
}

static sw_err
plan_doc(struct sw_req *r, struct plan *p)
{
	json_object *want = sw_json_get(r->args, "clusters"), *doc = NULL;
	json_object *items;
	size_t i;
	long st;
	sw_err e = SW_OK;

	p->changes = json_object_new_array();
	p->kept = json_object_new_array();
	if (check_doc(r) != SW_OK)
		return r->err;
	if ((st = run_row(r, "cluster_list", NULL, &doc)) >= 300) {
		e = fail_from(r, st, doc, "clusters");
		json_object_put(doc);
		return e;
	}
	items = sw_json_get(doc, "items");
	for (i = 0;
	     e == SW_OK && want != NULL && i < json_object_array_length(want);
	     i++)
		e = plan_cluster(
		    r, p, json_object_array_get_idx(want, i), items, i);
	if (e == SW_OK)
		plan_prune(r, p, items);
	json_object_put(doc);
	if (e == SW_OK)
		e = plan_budgets(r, p);
	if (e == SW_OK)
		e = plan_subscriptions(r, p);
	if (e == SW_OK)
		seen_when(r, p->changes);
	return e;
}

/* The changes as answered: a secret argument is never echoed. */
static json_object *
changes_shown(json_object *changes)
{
	json_object *out = NULL;
	size_t i;

	json_object_deep_copy(changes, &out, NULL);
	for (i = 0; out != NULL && i < json_object_array_length(out); i++) {
		json_object *a =
		    sw_json_get(json_object_array_get_idx(out, i), "arguments");

		if (sw_json_get(a, "secret") != NULL)
			sw_json_add_str(a, "secret", "(not shown)");
	}
	return out;
}

static json_object *
plan_json(struct plan *p)
{
	return sw_jo("changes", changes_shown(p->changes), "prune", sw_jb(0),
	    "kept", json_object_get(p->kept), "added_per_hour",
	    p->unpriced ? NULL : json_object_new_double(p->added), NULL);
}

static void
plan_free(struct plan *p)
{
	json_object_put(p->changes);
	json_object_put(p->kept);
}

sw_err
h_fleet_plan(struct sw_req *r)
{
	struct plan p = { 0 };
	json_object *out;

	if (plan_doc(r, &p) != SW_OK) {
		plan_free(&p);
		return r->err;
	}
	out = plan_json(&p);
	json_object_object_add(
	    out, "prune", sw_jb(sw_json_get_bool(r->args, "prune", 0)));
	plan_free(&p);
	sw_req_reply(r, 200, out);
	return SW_OK;
}

/* Keep r's document as the one applied last (fleet_drift), without
 * the subscriptions' secrets. */
static sw_err
remember(struct sw_req *r)
{
	json_object *doc = NULL, *subs;
	size_t i;
	sw_err e;

	json_object_deep_copy(r->args, &doc, NULL);
	subs = sw_json_get(doc, "subscriptions");
	for (i = 0; subs != NULL && i < json_object_array_length(subs); i++)
		json_object_object_del(
		    json_object_array_get_idx(subs, i), "secret");
	e = sw_db_fleet_put(r->db,
	    json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN),
	    r->who.name, sw_db_now_ms(r->db));
	json_object_put(doc);
	return e == SW_OK ? SW_OK
			  : sw_req_fail(r, e,
				"cannot keep the "
				"document applied");
}

/* Run one change as its operation; what it started. */
static json_object *
run_change(struct sw_req *r, json_object *c, int *failed)
{
	json_object *doc = NULL, *args = NULL, *s;
	long st;

	json_object_deep_copy(sw_json_get(c, "arguments"), &args, NULL);
	st = run_row(r, sw_json_get_str(c, "operation"), args, &doc);
	s = sw_jo("operation", sw_js(sw_json_get_str(c, "operation")), "target",
	    sw_js(sw_json_get_str(c, "target")), "status",
	    json_object_new_int64(st), NULL);
	if (st >= 300) {
		(*failed)++;
		sw_json_add_str(s, "error",
		    sw_json_get_str(doc, "detail")
			? sw_json_get_str(doc, "detail")
			: "refused");
	} else if (sw_json_get_str(doc, "operation_id") != NULL)
		sw_json_add_str(
		    s, "operation_id", sw_json_get_str(doc, "operation_id"));
	json_object_put(doc);
	return s;
}

sw_err
h_fleet_apply(struct sw_req *r)
{
	struct plan p = { 0 };
	json_object *out, *started = json_object_new_array();
	size_t i;
	int deferred = 0, failed = 0;

	if (plan_doc(r, &p) != SW_OK) {
		json_object_put(started);
		plan_free(&p);
		return r->err;
	}
	if (remember(r) != SW_OK) {
		json_object_put(started);
		plan_free(&p);
		return r->err;
	}
	for (i = 0; i < json_object_array_length(p.changes); i++) {
		json_object *c = json_object_array_get_idx(p.changes, i);

		if (sw_json_get(c, "waits_for") != NULL)
			deferred++;
		else
			json_object_array_add(
			    started, run_change(r, c, &failed));
	}
	out = plan_json(&p);
	json_object_object_add(
	    out, "prune", sw_jb(sw_json_get_bool(r->args, "prune", 0)));
	json_object_object_add(out, "started", started);
	json_object_object_add(out, "deferred", json_object_new_int(deferred));
	json_object_object_add(out, "failed", json_object_new_int(failed));
	plan_free(&p);
	sw_req_reply(r, 200, out);
	return SW_OK;
}

/* The document applied last, narrowed to one cluster (and nothing
 * else) when cluster is given. */
static void
narrow(json_object *doc, const char *cluster)
{
	json_object *cs = sw_json_get(doc, "clusters"), *keep;
	size_t i;

	if (cluster == NULL)
		return;
	keep = json_object_new_array();
	for (i = 0; cs != NULL && i < json_object_array_length(cs); i++) {
		json_object *c = json_object_array_get_idx(cs, i);

		if (strcmp(sw_json_get_str(c, "name") ?: "", cluster) == 0)
			json_object_array_add(keep, json_object_get(c));
	}
	json_object_object_add(doc, "clusters", keep);
	json_object_object_del(doc, "budgets");
	json_object_object_del(doc, "subscriptions");
	json_object_object_del(doc, "prune");
}

sw_err
h_fleet_drift(struct sw_req *r)
{
	struct plan p = { 0 };
	json_object *doc = NULL, *input, *out;
	const char *cluster = sw_json_get_str(r->args, "cluster");
	char by[128];
	int64_t ms = 0;
	sw_err e;

	e = sw_db_fleet_get(r->db, &doc, by, sizeof(by), &ms);
	if (e == SW_ENOTFOUND) {
		sw_req_reply(r, 200,
		    sw_jo("applied", sw_jb(0), "changes",
			json_object_new_array(), "prune", sw_jb(0), "kept",
			json_object_new_array(), "added_per_hour",
			json_object_new_double(0), NULL));
		return SW_OK;
	}
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot read the document applied");
	narrow(doc, cluster);
	input = r->args;
	r->args = doc;
	e = plan_doc(r, &p);
	r->args = input;
	if (e == SW_OK) {
		out = plan_json(&p);
		json_object_object_add(out, "prune",
		    sw_jb(
			cluster == NULL && sw_json_get_bool(doc, "prune", 0)));
		if (cluster != NULL)
			json_object_object_add(
			    out, "kept", json_object_new_array());
		json_object_object_add(out, "applied", sw_jb(1));
		json_object_object_add(out, "applied_by", sw_js(by));
		json_object_object_add(
		    out, "applied_ms", json_object_new_int64(ms));
		sw_req_reply(r, 200, out);
	}
	json_object_put(doc);
	plan_free(&p);
	return r->err;
}

/* The drift the poller recorded (poller/drift.c), of one cluster when
 * asked: read from the state store only, no live state is read. */
sw_err
h_fleet_drift_recorded(struct sw_req *r)
{
	const char *cluster = sw_json_get_str(r->args, "cluster");
	json_object *doc = NULL, *items = NULL;
	char by[128];
	int64_t ms = 0;
	size_t i;
	sw_err e;

	e = sw_db_fleet_get(r->db, &doc, by, sizeof(by), &ms);
	json_object_put(doc);
	if (e != SW_OK && e != SW_ENOTFOUND)
		return sw_req_fail(r, e, "cannot read the document applied");
	if (sw_db_drift_list(r->db, cluster, &items) != SW_OK)
		return sw_req_fail(r, SW_EDB, "cannot read the recorded drift");
	for (i = 0; i < json_object_array_length(items); i++)
		sw_json_add_str(json_object_array_get_idx(items, i),
		    "changed_by", "unknown");
	sw_req_reply(r, 200,
	    sw_jo("applied", sw_jb(e == SW_OK), "applied_by",
		e == SW_OK ? sw_js(by) : NULL, "applied_ms",
		e == SW_OK ? json_object_new_int64(ms) : NULL, "items", items,
		NULL));
	return SW_OK;
}

/* ---- today's state as a document --------------------------------------- */

/* The features of a cluster as feature_set takes them: each on/off
 * feature as it is; an object feature only when off (its settings are
 * not read back). */
static json_object *
export_features(struct sw_req *r, const char *cl)
{
	const struct sw_field *f = sw_op_by_name("feature_set")->body;
	json_object *doc = NULL, *out = json_object_new_object(), *live;

	if (run_row(r, "feature_list", sw_jo("name", sw_js(cl), NULL), &doc) >=
	    300) {
		json_object_put(doc);
		return out;
	}
	live =
	    sw_json_get(doc, "features") ? sw_json_get(doc, "features") : doc;
	for (; f->name != NULL; f++) {
		json_object *lf = sw_json_get(live, f->name);
		int on;

		if (lf == NULL || sw_json_get(lf, "enabled") == NULL)
			continue;
		on = sw_json_get_bool(lf, "enabled", 0);
		if (f->type == SW_T_BOOL)
			json_object_object_add(out, f->name, sw_jb(on));
		else if (f->type == SW_T_OBJECT && !on)
			json_object_object_add(
			    out, f->name, sw_jo("enabled", sw_jb(0), NULL));
	}
	json_object_put(doc);
	return out;
}

/* A cluster's compute quotas as compute_quota_create takes them. */
static json_object *
export_quotas(struct sw_req *r, const char *cl)
{
	json_object *doc = NULL, *out = json_object_new_array(), *items;
	size_t i, k;

	run_row(r, "compute_quota_list", sw_jo("name", sw_js(cl), NULL), &doc);
	items = sw_json_get(doc, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *l = json_object_array_get_idx(items, i), *q;

		q = sw_jo("quota_name", sw_js(sw_json_get_str(l, "quota_name")),
		    "team", sw_js(sw_json_get_str(l, "team")), NULL);
		for (k = 0; quota_amounts[k] != NULL; k++)
			if (sw_json_get(l, quota_amounts[k]) != NULL)
				json_object_object_add(q, quota_amounts[k],
				    json_object_get(
					sw_json_get(l, quota_amounts[k])));
		json_object_array_add(out, q);
	}
	json_object_put(doc);
	return out;
}

/* The scheduler config as scheduler_config_set takes it, or NULL when
 * the cluster has none. */
static json_object *
export_scheduler(struct sw_req *r, const char *cl)
{
	json_object *doc = NULL, *o = NULL, *pcs, *list;
	size_t i;

	if (run_row(r, "scheduler_config_get", sw_jo("name", sw_js(cl), NULL),
		&doc) < 300 &&
	    sw_json_get_bool(doc, "configured", 0)) {
		pcs = sw_json_get(doc, "priority_classes");
		list = json_object_new_array();
		for (i = 0; pcs != NULL && i < json_object_array_length(pcs);
		     i++) {
			json_object *pc = json_object_array_get_idx(pcs, i);

			json_object_array_add(list,
			    sw_jo("name", sw_js(sw_json_get_str(pc, "name")),
				"weight",
				json_object_get(sw_json_get(pc, "weight")),
				NULL));
		}
		o = sw_jo("priority_classes", list, "fair_share",
		    sw_jb(sw_json_get_bool(doc, "fair_share", 0)),
		    "idle_resource_sharing",
		    sw_jb(sw_json_get_bool(doc, "idle_resource_sharing", 0)),
		    NULL);
	}
	json_object_put(doc);
	return o;
}

/* The Space templates Slipway keeps, as space_template_set takes them. */
static json_object *
export_templates(struct sw_req *r, const char *cl)
{
	json_object *doc = NULL, *out = json_object_new_array(), *items;
	size_t i, k;

	run_row(r, "space_template_list", sw_jo("name", sw_js(cl), NULL), &doc);
	items = sw_json_get(doc, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *l = json_object_array_get_idx(items, i), *t;

		if (!sw_json_get_bool(l, "managed", 0))
			continue;
		t = sw_jo(
		    "template", sw_js(sw_json_get_str(l, "template")), NULL);
		for (k = 0; tmpl_fields[k] != NULL; k++)
			if (sw_json_get(l, tmpl_fields[k]) != NULL)
				json_object_object_add(t, tmpl_fields[k],
				    json_object_get(
					sw_json_get(l, tmpl_fields[k])));
		json_object_array_add(out, t);
	}
	json_object_put(doc);
	return out;
}

/* Team access as team_access_set takes it. */
static json_object *
export_team_access(struct sw_req *r, const char *cl)
{
	json_object *doc = NULL, *o = NULL;

	if (run_row(r, "team_access_get", sw_jo("name", sw_js(cl), NULL),
		&doc) < 300)
		o = sw_jo("enabled", sw_jb(sw_json_get_bool(doc, "enabled", 0)),
		    NULL);
	json_object_put(doc);
	return o;
}

static json_object *
export_cluster(struct sw_req *r, const char *cl)
{
	json_object *doc = NULL, *c = sw_jo("name", sw_js(cl), NULL), *ta;
	json_object *groups = json_object_new_array(), *items;
	size_t i;

	if (run_row(r, "cluster_get", sw_jo("name", sw_js(cl), NULL), &doc) <
	    300) {
		if (sw_json_path_str(doc, "eks.version") != NULL)
			sw_json_add_str(c, "kubernetes_version",
			    sw_json_path_str(doc, "eks.version"));
		if (sw_json_get_str(doc, "account") != NULL)
			sw_json_add_str(
			    c, "account", sw_json_get_str(doc, "account"));
		if (sw_json_get_str(doc, "region") != NULL)
			sw_json_add_str(
			    c, "region", sw_json_get_str(doc, "region"));
		if (sw_json_path_str(doc, "hyperpod.node_recovery") != NULL)
			sw_json_add_str(c, "node_recovery",
			    sw_json_path_str(doc, "hyperpod.node_recovery"));
	}
	json_object_put(doc);
	doc = NULL;
	run_row(r, "instance_group_list", sw_jo("name", sw_js(cl), NULL), &doc);
	items = sw_json_get(doc, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *g = json_object_array_get_idx(items, i);

		json_object_array_add(groups,
		    sw_jo("name", sw_js(sw_json_get_str(g, "name")),
			"instance_type",
			sw_js(sw_json_get_str(g, "instance_type")), "count",
			json_object_get(sw_json_get(g, "target_count")), NULL));
	}
	json_object_put(doc);
	json_object_object_add(c, "instance_groups", groups);
	json_object_object_add(c, "features", export_features(r, cl));
	if ((ta = export_team_access(r, cl)) != NULL)
		json_object_object_add(c, "team_access", ta);
	if ((ta = export_scheduler(r, cl)) != NULL)
		json_object_object_add(c, "scheduler_config", ta);
	ta = export_templates(r, cl);
	if (json_object_array_length(ta) > 0)
		json_object_object_add(c, "space_templates", ta);
	else
		json_object_put(ta);
	ta = export_quotas(r, cl);
	if (json_object_array_length(ta) > 0)
		json_object_object_add(c, "compute_quotas", ta);
	else
		json_object_put(ta);
	return c;
}

static json_object *
export_budgets(struct sw_req *r)
{
	json_object *doc = NULL, *out = json_object_new_array(), *items;
	size_t i;

	run_row(r, "budget_list", NULL, &doc);
	items = sw_json_get(doc, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *b = json_object_array_get_idx(items, i);

		json_object_array_add(out,
		    sw_jo("scope", sw_js(sw_json_get_str(b, "scope")), "name",
			sw_js(sw_json_get_str(b, "name")), "limit_usd",
			json_object_get(sw_json_get(b, "limit_usd")),
			"thresholds",
			json_object_get(sw_json_get(b, "thresholds")), NULL));
	}
	json_object_put(doc);
	return out;
}

/* Every subscription as subscription_create takes it, without its
 * secret (never read back). */
static json_object *
export_subscriptions(struct sw_req *r)
{
	static const char *const addr[][2] = { { "webhook", "url" },
		{ "sns", "topic_arn" }, { "eventbridge", "event_bus" } };
	json_object *doc = NULL, *out = json_object_new_array(), *items;
	size_t i, k;

	run_row(r, "subscription_list", NULL, &doc);
	items = sw_json_get(doc, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *l = json_object_array_get_idx(items, i), *o;
		const char *t = sw_json_get_str(l, "target");

		o = sw_jo("name", sw_js(sw_json_get_str(l, "name")), "target",
		    sw_js(t), "events",
		    json_object_get(sw_json_get(l, "events")), "format",
		    sw_js(sw_json_get_str(l, "format")), NULL);
		if (sw_json_get_str(l, "cluster") != NULL)
			sw_json_add_str(
			    o, "cluster", sw_json_get_str(l, "cluster"));
		if (sw_json_get_str(l, "team") != NULL)
			sw_json_add_str(o, "team", sw_json_get_str(l, "team"));
		for (k = 0; t != NULL && k < sizeof(addr) / sizeof(addr[0]);
		     k++)
			if (strcmp(t, addr[k][0]) == 0)
				sw_json_add_str(o, addr[k][1],
				    sw_json_get_str(l, "address"));
		json_object_array_add(out, o);
	}
	json_object_put(doc);
	return out;
}

sw_err
h_fleet_export(struct sw_req *r)
{
	json_object *doc = NULL, *items, *clusters = json_object_new_array();
	size_t i;
	long st;

	if ((st = run_row(r, "cluster_list", NULL, &doc)) >= 300) {
		sw_err e = fail_from(r, st, doc, "clusters");

		json_object_put(clusters);
		json_object_put(doc);
		return e;
	}
	items = sw_json_get(doc, "items");
	for (i = 0; items != NULL && i < json_object_array_length(items); i++) {
		json_object *lc = json_object_array_get_idx(items, i);

		if (sw_json_get_bool(lc, "managed", 0))
			json_object_array_add(clusters,
			    export_cluster(r, sw_json_get_str(lc, "name")));
	}
	json_object_put(doc);
	sw_req_reply(r, 200,
	    sw_jo("apiVersion", sw_js("slipway/v1"), "clusters", clusters,
		"budgets", export_budgets(r), "subscriptions",
		export_subscriptions(r), NULL));
	return SW_OK;
}

/* ---- the schema, written from the rows --------------------------------- */

/* One object schema of two field tables (budget_set's path and body). */
static json_object *
joined_schema(const struct sw_op *op)
{
	json_object *s = sw_fields_schema(op->params, SW_F_PATH);
	json_object *b = sw_fields_schema(op->body, 0), *req;
	size_t i;

	json_object_object_foreach(sw_json_get(b, "properties"), k, v)
	    json_object_object_add(
		sw_json_get(s, "properties"), k, json_object_get(v));
	req = sw_json_get(b, "required");
	for (i = 0; req != NULL && i < json_object_array_length(req); i++)
		json_object_array_add(sw_json_get(s, "required"),
		    json_object_get(json_object_array_get_idx(req, i)));
	json_object_put(b);
	return s;
}

/* A Space template: space_template_set's template (its path) and body. */
static json_object *
template_schema(void)
{
	json_object *s = joined_schema(sw_op_by_name("space_template_set"));
	json_object *req = sw_json_get(s, "required"), *keep;
	size_t i;

	json_object_object_del(sw_json_get(s, "properties"), "name");
	keep = json_object_new_array();
	for (i = 0; req != NULL && i < json_object_array_length(req); i++) {
		json_object *x = json_object_array_get_idx(req, i);

		if (strcmp(json_object_get_string(x), "name") != 0)
			json_object_array_add(keep, json_object_get(x));
	}
	json_object_object_add(s, "required", keep);
	return s;
}

sw_err
h_fleet_schema(struct sw_req *r)
{
	json_object *cl = sw_fields_schema(
			sw_op_by_name("cluster_create")->body, 0),
		    *props;

	json_object_object_add(sw_json_get(cl, "properties"), "features",
	    sw_fields_schema(sw_op_by_name("feature_set")->body, 0));
	json_object_object_add(sw_json_get(cl, "properties"), "team_access",
	    sw_fields_schema(sw_op_by_name("team_access_set")->body, 0));
	json_object_object_add(sw_json_get(cl, "properties"),
	    "scheduler_config",
	    sw_fields_schema(sw_op_by_name("scheduler_config_set")->body, 0));
	json_object_object_add(sw_json_get(cl, "properties"), "space_templates",
	    sw_jo("type", sw_js("array"), "items", template_schema(), NULL));
	json_object_object_add(sw_json_get(cl, "properties"), "compute_quotas",
	    sw_jo("type", sw_js("array"), "items",
		sw_fields_schema(
		    sw_op_by_name("compute_quota_create")->body, 0),
		NULL));
	props = sw_jo("apiVersion",
	    sw_jo("type", sw_js("string"), "enum", sw_ja(sw_js("slipway/v1")),
		NULL),
	    "prune",
	    sw_jo("type", sw_js("boolean"), "description",
		sw_js("Delete managed clusters the document does not name."),
		NULL),
	    "clusters",
	    sw_jo("type", sw_js("array"), "maxItems", json_object_new_int(50),
		"items", cl, NULL),
	    "budgets",
	    sw_jo("type", sw_js("array"), "maxItems", json_object_new_int(200),
		"items", joined_schema(sw_op_by_name("budget_set")), NULL),
	    "subscriptions",
	    sw_jo("type", sw_js("array"), "maxItems", json_object_new_int(200),
		"items",
		sw_fields_schema(sw_op_by_name("subscription_create")->body, 0),
		NULL),
	    NULL);
	sw_req_reply(r, 200,
	    sw_jo("$schema",
		sw_js("https://json-schema.org/draft/2020-12/schema"), "$id",
		sw_js(FLEET_SCHEMA_ID), "title",
		sw_js("Slipway fleet document"), "type", sw_js("object"),
		"properties", props, "required", sw_ja(sw_js("apiVersion")),
		"additionalProperties", sw_jb(0), NULL));
	return SW_OK;
}
