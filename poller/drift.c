/*
 * drift.c: the poller records the drift of the fleet document applied
 * last (fleet_apply), once per poll interval.  The poller is the layer
 * that reads live state on a clock (it watches clusters and samples the
 * ledger); handlers only answer requests.  For each cluster of the
 * document it reads the HyperPod cluster (DescribeCluster) in the
 * cluster's own account and region (cloud/aws_member.h) and compares
 * each instance group of the document with the live one: its instance
 * type and its target count.  Each feature the document turns on that
 * is an EKS add-on (pipelines/featdefs.c) is looked up on the cluster's
 * EKS cluster (DescribeAddon): one removed outside Slipway is recorded
 * as the feature off, as fleet_plan shows it.  The differences are kept
 * with when Slipway first saw each (lib/db.c, fleet_drift); one gone is
 * forgotten.  A cluster that cannot be read keeps what was recorded.
 * Team access, quotas, the scheduler config and the rest of a feature
 * are compared by fleet_plan and fleet_drift's plan, which run the reads
 * of the operation table.
 * Who made a change is not known: AWS's audit trail is not read.
 */
#include <stdio.h>
#include <string.h>

#include "cloud/aws_member.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/ops.h"
#include "pipelines/featdefs.h"
#include "poller/drift.h"

/* The live group of name in a DescribeCluster document, or NULL. */
static json_object *
live_group(json_object *hp, const char *name)
{
	json_object *gs = sw_json_get(hp, "InstanceGroups");
	size_t i;

	for (i = 0; gs != NULL && i < json_object_array_length(gs); i++) {
		json_object *g = json_object_array_get_idx(gs, i);
		const char *n = sw_json_get_str(g, "InstanceGroupName");

		if (n != NULL && strcmp(n, name) == 0)
			return g;
	}
	return NULL;
}

/* Add {target, field, live, desired} to found when they differ. */
static void
compare(json_object *found, const char *target, const char *field,
    json_object *live, json_object *desired)
{
	if (live == NULL || desired == NULL ||
	    strcmp(json_object_to_json_string(live),
		json_object_to_json_string(desired)) == 0)
		return;
	json_object_array_add(found,
	    sw_jo("target", sw_js(target), "field", sw_js(field), "live",
		json_object_get(live), "desired", json_object_get(desired),
		NULL));
}

/* The differences of one cluster of the document into found. */
static void
cluster_drift(
    const char *cl, json_object *want, json_object *hp, json_object *found)
{
	json_object *groups = sw_json_get(want, "instance_groups");
	char target[160];
	size_t i;

	for (i = 0; groups != NULL && i < json_object_array_length(groups);
	     i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		const char *gn = sw_json_get_str(g, "name");
		json_object *lg;

		if (gn == NULL)
			continue;
		sw_fmt_text(target, sizeof(target), "%s/%s", cl, gn);
		if ((lg = live_group(hp, gn)) == NULL) {
			json_object *no = json_object_new_boolean(0);
			json_object *yes = json_object_new_boolean(1);

			compare(found, target, "present", no, yes);
			json_object_put(no);
			json_object_put(yes);
			continue;
		}
		compare(found, target, "instance_type",
		    sw_json_get(lg, "InstanceType"),
		    sw_json_get(g, "instance_type"));
		compare(found, target, "count", sw_json_get(lg, "TargetCount"),
		    sw_json_get(g, "count"));
	}
}

/* Does the document turn feature on (true, or {enabled: true})? */
static int
wants_on(json_object *v)
{
	if (v != NULL && json_object_is_type(v, json_type_object))
		v = sw_json_get(v, "enabled");
	return v != NULL && json_object_is_type(v, json_type_boolean) &&
	    json_object_get_boolean(v);
}

/* Is the add-on gone from EKS cluster eks (absent or being deleted)?
 * 1 gone, 0 there, -1 not read. */
static int
addon_gone(struct aws_ctx *ctx, const char *eks, const char *addon)
{
	json_object *in, *out = NULL;
	struct aws_error err;
	const char *st;
	sw_err e;
	int gone;

	memset(&err, 0, sizeof(err));
	in = sw_jo("clusterName", sw_js(eks), "addonName", sw_js(addon), NULL);
	e = aws_call(ctx, AWS_SVC_EKS, "DescribeAddon", in, &out, &err);
	json_object_put(in);
	if (e == SW_ENOTFOUND)
		return 1;
	if (e != SW_OK)
		return -1;
	st = sw_json_path_str(out, "addon.status");
	gone = st != NULL && strcmp(st, "DELETING") == 0;
	json_object_put(out);
	return gone;
}

/* Each add-on feature the document turns on whose add-on is gone, as
 * fleet_plan's change names it (cluster, features.<name>, live false);
 * -1 when one could not be read (the cluster keeps its record). */
static int
feature_drift(struct aws_ctx *ctx, const char *cl, json_object *want,
    json_object *hp, json_object *found)
{
	json_object *feats = sw_json_get(want, "features");
	const char *arn = sw_json_path_str(hp, "Orchestrator.Eks.ClusterArn");
	const char *eks = arn != NULL ? strrchr(arn, '/') : NULL;
	char field[96];
	int i, gone;

	if (feats == NULL || eks == NULL)
		return 0;
	for (i = 0; i < SW_FEAT__MAX; i++) {
		const struct sw_featdef *d = &sw_featdefs[i];

		if (d->addon == NULL || !wants_on(sw_json_get(feats, d->name)))
			continue;
		if ((gone = addon_gone(ctx, eks + 1, d->addon)) < 0)
			return -1;
		if (!gone)
			continue;
		sw_fmt_text(field, sizeof(field), "features.%s", d->name);
		json_object_array_add(found,
		    sw_jo("target", sw_js(cl), "field", sw_js(field), "live",
			sw_jb(0), "desired", sw_jb(1), NULL));
	}
	return 0;
}

/* Read one cluster in its place and record its drift. */
static void
drift_one(struct sw_db *db, struct aws_ctx *aws, const struct sw_config *cfg,
    json_object *want, int64_t now, int64_t every_ms)
{
	const char *cl = sw_json_get_str(want, "name");
	char turn[128];
	int mine;
	struct sw_cluster_rec rec;
	struct aws_ctx *ctx = NULL;
	struct aws_error err;
	json_object *hp = NULL, *found, *in;
	sw_err e;

	if (cl == NULL || sw_cluster_get(db, cl, &rec) != SW_OK)
		return; /* not created yet: fleet_plan's "absent" */
	if (sw_fmt(turn, sizeof(turn), "drift %s", cl) != SW_OK ||
	    sw_turn_take(db, turn, every_ms, &mine) != SW_OK || !mine)
		return; /* another poller's turn */
	memset(&err, 0, sizeof(err));
	if (aws_member_ctx(aws, cfg, rec.account, rec.region, &ctx, NULL, 0,
		&err) != SW_OK) {
		sw_warn("fleet drift: cannot reach %s: %s", cl, err.message);
		return;
	}
	in = sw_jo("ClusterName", sw_js(cl), NULL);
	e = aws_call(ctx, AWS_SVC_SAGEMAKER, "DescribeCluster", in, &hp, &err);
	json_object_put(in);
	if (e != SW_OK) {
		sw_info("fleet drift: %s not read: %s", cl, err.message);
		return;
	}
	found = json_object_new_array();
	cluster_drift(cl, want, hp, found);
	if (feature_drift(ctx, cl, want, hp, found) < 0)
		sw_info("fleet drift: %s's add-ons not read", cl);
	else if (sw_db_drift_record(db, cl, found, now) != SW_OK)
		sw_warn("fleet drift: cannot record %s's", cl);
	json_object_put(found);
	json_object_put(hp);
}

void
sw_drift_tick(struct sw_db *db, struct aws_ctx *aws,
    const struct sw_config *cfg, int64_t every_ms)
{
	json_object *doc = NULL, *cs;
	char by[256];
	int64_t applied, now = sw_db_now_ms(db);
	size_t i;

	if (sw_db_fleet_get(db, &doc, by, sizeof(by), &applied) != SW_OK)
		return;
	cs = sw_json_get(doc, "clusters");
	for (i = 0; cs != NULL && i < json_object_array_length(cs); i++)
		drift_one(db, aws, cfg, json_object_array_get_idx(cs, i), now,
		    every_ms);
	json_object_put(doc);
}
