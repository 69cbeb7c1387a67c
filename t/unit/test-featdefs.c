/*
 * test-featdefs.c: the table of managed features is the one source of
 * the dependency rule, so check what the rest of the tree relies on:
 * every row is named, add-on names are unique, an add-on-only row needs
 * nothing (so table order is install order), needs and needed_by are
 * each other's mirror, the feature_set body accepts exactly the rows a
 * client may name, and the feature.set pipeline installs what a row
 * needs before the row's own stage and removes it after the row's off
 * stage.
 */
#include <stdio.h>
#include <string.h>

#include "api/optable.h"
#include "pipelines/featdefs.h"
#include "pipelines/pipelines.h"
#include "t/tap.h"

/* Index of stage name in the feature.set pipeline; -1 when absent. */
static int
stage_at(const char *name)
{
	const struct sw_stage_def *st = sw_pl_feature_set.stages;
	int i;

	for (i = 0; st[i].name != NULL; i++)
		if (strcmp(st[i].name, name) == 0)
			return i;
	return -1;
}

/* Is name in the JSON array of strings a? */
static int
has(json_object *a, const char *name)
{
	size_t i;

	for (i = 0; i < json_object_array_length(a); i++)
		if (strcmp(
			json_object_get_string(json_object_array_get_idx(a, i)),
			name) == 0)
			return 1;
	return 0;
}

int
main(void)
{
	const struct sw_op *op = sw_op_by_name("feature_set");
	const struct sw_field *fl;
	json_object *a;
	char off[64];
	int f, g, n, bad;

	bad = 0;
	for (f = 0; f < SW_FEAT__MAX; f++)
		bad |= sw_featdefs[f].name == NULL ||
		    sw_feat_by_name(sw_featdefs[f].name) != f;
	ok(!bad, "every row has a name that finds it");
	ok(sw_feat_by_name("nope") == -1 && sw_feat_by_name(NULL) == -1,
	    "an unknown name finds no row");

	bad = 0;
	for (f = 0; f < SW_FEAT__MAX; f++)
		for (g = f + 1; g < SW_FEAT__MAX; g++)
			bad |= SW_FEAT_ADDON(f) != NULL &&
			    SW_FEAT_ADDON(g) != NULL &&
			    strcmp(SW_FEAT_ADDON(f), SW_FEAT_ADDON(g)) == 0;
	ok(!bad, "no add-on belongs to two rows");

	bad = 0;
	for (f = 0; f < SW_FEAT__MAX; f++)
		if (sw_featdefs[f].flags & SW_FEATF_ADDON_ONLY)
			bad |= SW_FEAT_ADDON(f) == NULL ||
			    sw_featdefs[f].needs != 0;
	ok(!bad, "an add-on-only row has an add-on and needs nothing");
	bad = 0;
	for (f = 0; f < SW_FEAT__MAX; f++)
		bad |= sw_feat_needs((enum sw_feat)f, (enum sw_feat)f);
	ok(!bad, "no row needs itself");

	ok(sw_feat_needs(SW_FEAT_INFERENCE_OPERATOR, SW_FEAT_FSX_CSI) &&
		sw_feat_needs(
		    SW_FEAT_INFERENCE_OPERATOR, SW_FEAT_CERT_MANAGER) &&
		sw_feat_needs(
		    SW_FEAT_INFERENCE_OPERATOR, SW_FEAT_METRICS_SERVER),
	    "the inference operator needs "
	    "cert_manager, fsx_csi and metrics_server");
	ok(sw_feat_needs(SW_FEAT_TRAINING_OPERATOR, SW_FEAT_CERT_MANAGER) &&
		!sw_feat_needs(SW_FEAT_TRAINING_OPERATOR, SW_FEAT_FSX_CSI),
	    "the training operator needs cert_manager, not fsx_csi");
	a = sw_feat_needed_by_json(SW_FEAT_FSX_CSI);
	is_int((long long)json_object_array_length(a), 1,
	    "one feature needs fsx_csi");
	ok(has(a, "inference_operator"), "it is the inference operator");
	json_object_put(a);

	bad = 0;
	for (f = 0; f < SW_FEAT__MAX; f++) {
		json_object *nb = sw_feat_needed_by_json((enum sw_feat)f);

		for (g = 0; g < SW_FEAT__MAX; g++) {
			json_object *nd = sw_feat_needs_json((enum sw_feat)g);

			bad |= has(nb, sw_featdefs[g].name) !=
			    has(nd, sw_featdefs[f].name);
			json_object_put(nd);
		}
		json_object_put(nb);
	}
	ok(!bad, "needed_by mirrors needs for every pair");

	/* the body feature_set validates: exactly the rows a client names */
	ok(op != NULL && op->body != NULL, "feature_set has a body");
	n = 0;
	bad = 0;
	for (fl = op ? op->body : NULL; fl != NULL && fl->name != NULL; fl++) {
		f = sw_feat_by_name(fl->name);
		if (f < 0 || (sw_featdefs[f].flags & SW_FEATF_PREREQ)) {
			diag("body field %s is no feature a client names",
			    fl->name);
			bad = 1;
		}
		n++;
	}
	for (f = 0; f < SW_FEAT__MAX; f++)
		if (!(sw_featdefs[f].flags & SW_FEATF_PREREQ))
			n--;
	ok(!bad && n == 0, "the body's fields are the table's named rows");

	/* the pipeline's stages follow the table */
	bad = 0;
	for (f = 0; f < SW_FEAT__MAX; f++) {
		const char *name = sw_featdefs[f].name;

		if (sw_featdefs[f].flags & SW_FEATF_ADDON_ONLY)
			continue;
		if (stage_at(name) < 0) {
			diag("no stage %s", name);
			bad = 1;
			continue;
		}
		if (sw_featdefs[f].needs != 0 &&
		    stage_at(name) < stage_at("prerequisites")) {
			diag("%s runs before its prerequisites", name);
			bad = 1;
		}
		snprintf(off, sizeof(off), "off_%s", name);
		if (sw_featdefs[f].needs != 0 &&
		    (stage_at(off) < 0 ||
			stage_at(off) > stage_at("off_addons"))) {
			diag("%s is not removed before the add-ons it needs",
			    name);
			bad = 1;
		}
	}
	ok(!bad && stage_at("prerequisites") >= 0 &&
		stage_at("off_addons") >= 0,
	    "every row with stages of its own "
	    "has them on the right side of prerequisites and off_addons");
	return tap_done();
}
