/*
 * featdefs.h: the one table of managed features.  Each row names a
 * feature, the EKS add-on that is the feature (if any) and the features
 * it needs turned on first.  The feature_set handler's dependency check,
 * the feature.set pipeline's prerequisites and removal order, and the
 * feature_list answer all read this table; no other file spells an
 * add-on name of a feature.  What needs a feature is derived from the
 * "needs" of the other rows, so the rule is written once.
 */
#ifndef SW_FEATDEFS_H
#define SW_FEATDEFS_H

#include "lib/json.h"

/* The rows, in the order feature_list shows them. */
enum sw_feat {
	SW_FEAT_TRAINING_OPERATOR,
	SW_FEAT_INFERENCE_OPERATOR,
	SW_FEAT_CERT_MANAGER,
	SW_FEAT_TIERED_CHECKPOINTING,
	SW_FEAT_AUTOSCALING,
	SW_FEAT_NODE_RECOVERY,
	SW_FEAT_KUBERAY,
	SW_FEAT_TASK_GOVERNANCE,
	SW_FEAT_OBSERVABILITY,
	SW_FEAT_FSX_CSI,
	SW_FEAT_METRICS_SERVER,
	SW_FEAT_SPACES,
	SW_FEAT_EBS_CSI,
	SW_FEAT__MAX
};

/* A bit of a needs mask. */
#define SW_FEAT_BIT(f) (1u << (f))

/*
 * The add-on is the whole feature: the prerequisites stage installs it
 * (asked on, or needed by what is asked on) and the off_addons stage
 * removes it, in reverse table order.  Rows without it have stages of
 * their own in pipelines/features.c.
 */
#define SW_FEATF_ADDON_ONLY 0x1
/* Only ever installed as a prerequisite: no request names it and
 * feature_list does not show it. */
#define SW_FEATF_PREREQ 0x2

struct sw_featdef {
	const char *name; /* key in feature_set and feature_list */
	const char *addon; /* EKS add-on name, or NULL */
	unsigned needs; /* SW_FEAT_BIT of each feature it needs */
	unsigned flags; /* SW_FEATF_* */
};

extern const struct sw_featdef sw_featdefs[SW_FEAT__MAX];

/* The EKS add-on name of feature f (NULL when it is none). */
#define SW_FEAT_ADDON(f) (sw_featdefs[(f)].addon)

/* The row called name; -1 when there is none. */
int sw_feat_by_name(const char *name);
/* Does feature f need feature g, directly or through another row? */
int sw_feat_needs(enum sw_feat f, enum sw_feat g);
/* Names of what f needs (directly or not) as a new JSON array. */
json_object *sw_feat_needs_json(enum sw_feat f);
/* Names of what needs f (directly or not) as a new JSON array. */
json_object *sw_feat_needed_by_json(enum sw_feat f);

#endif
