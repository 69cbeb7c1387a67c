/*
 * featdefs.c: the table of managed features (see featdefs.h) and the
 * dependency questions asked of it.  Add a feature here first: its
 * name, its add-on and what it needs; the handler refuses turning off
 * what another feature still needs, and the pipeline installs what is
 * needed before the feature, both from this row.
 */
#include <stddef.h>
#include <string.h>

#include "pipelines/featdefs.h"

/* clang-format off */
const struct sw_featdef sw_featdefs[SW_FEAT__MAX] = {
	[SW_FEAT_TRAINING_OPERATOR] = {
		.name = "training_operator",
		.addon = "amazon-sagemaker-hyperpod-training-operator",
		.needs = SW_FEAT_BIT(SW_FEAT_CERT_MANAGER),
	},
	[SW_FEAT_INFERENCE_OPERATOR] = {
		.name = "inference_operator",
		.addon = "amazon-sagemaker-hyperpod-inference",
		.needs = SW_FEAT_BIT(SW_FEAT_CERT_MANAGER) |
		    SW_FEAT_BIT(SW_FEAT_FSX_CSI) |
		    SW_FEAT_BIT(SW_FEAT_METRICS_SERVER),
	},
	[SW_FEAT_CERT_MANAGER] = {
		.name = "cert_manager",
		.addon = "cert-manager",
		.flags = SW_FEATF_ADDON_ONLY,
	},
	[SW_FEAT_TIERED_CHECKPOINTING] = {
		.name = "tiered_checkpointing",
	},
	[SW_FEAT_AUTOSCALING] = {
		.name = "autoscaling",
	},
	[SW_FEAT_NODE_RECOVERY] = {
		.name = "node_recovery",
	},
	[SW_FEAT_KUBERAY] = {
		.name = "kuberay",
	},
	/* Kueue with HyperPod's scheduler: compute quotas and the cluster
	 * scheduler config (handlers/governance.c) work through it. */
	[SW_FEAT_TASK_GOVERNANCE] = {
		.name = "task_governance",
		.addon = "amazon-sagemaker-hyperpod-taskgovernance",
		.flags = SW_FEATF_ADDON_ONLY,
	},
	/* Prometheus exporters and the collector that feed Amazon Managed
	 * Prometheus and Grafana dashboards. */
	[SW_FEAT_OBSERVABILITY] = {
		.name = "observability",
		.addon = "amazon-sagemaker-hyperpod-observability",
		.flags = SW_FEATF_ADDON_ONLY,
	},
	[SW_FEAT_FSX_CSI] = {
		.name = "fsx_csi",
		.addon = "aws-fsx-csi-driver",
		.flags = SW_FEATF_ADDON_ONLY,
	},
	[SW_FEAT_METRICS_SERVER] = {
		.name = "metrics_server",
		.addon = "metrics-server",
		.flags = SW_FEATF_ADDON_ONLY | SW_FEATF_PREREQ,
	},
	/* HyperPod Spaces: the jupyter-k8s operator and its Workspace kinds
	 * (handlers/spaces.c); a Space's home volume is an EBS volume, so
	 * the EBS CSI driver goes first (stages spaces and off_spaces). */
	[SW_FEAT_SPACES] = {
		.name = "spaces",
		.addon = "amazon-sagemaker-spaces",
		.needs = SW_FEAT_BIT(SW_FEAT_EBS_CSI),
	},
	[SW_FEAT_EBS_CSI] = {
		.name = "ebs_csi",
		.addon = "aws-ebs-csi-driver",
		.flags = SW_FEATF_ADDON_ONLY | SW_FEATF_PREREQ,
	},
};
/* clang-format on */

int
sw_feat_by_name(const char *name)
{
	int f;

	for (f = 0; name != NULL && f < SW_FEAT__MAX; f++)
		if (strcmp(sw_featdefs[f].name, name) == 0)
			return f;
	return -1;
}

/* Every feature f needs, directly or through another row, as a mask. */
static unsigned
needs_closure(enum sw_feat f)
{
	unsigned all = sw_featdefs[f].needs, prev;
	int g;

	do {
		prev = all;
		for (g = 0; g < SW_FEAT__MAX; g++)
			if (all & SW_FEAT_BIT(g))
				all |= sw_featdefs[g].needs;
	} while (all != prev);
	return all & ~SW_FEAT_BIT(f);
}

int
sw_feat_needs(enum sw_feat f, enum sw_feat g)
{
	if ((unsigned)f >= SW_FEAT__MAX || (unsigned)g >= SW_FEAT__MAX)
		return 0;
	return (needs_closure(f) & SW_FEAT_BIT(g)) != 0;
}

json_object *
sw_feat_needs_json(enum sw_feat f)
{
	json_object *a = json_object_new_array();
	int g;

	for (g = 0; g < SW_FEAT__MAX; g++)
		if (sw_feat_needs(f, g))
			json_object_array_add(
			    a, json_object_new_string(sw_featdefs[g].name));
	return a;
}

json_object *
sw_feat_needed_by_json(enum sw_feat f)
{
	json_object *a = json_object_new_array();
	int g;

	for (g = 0; g < SW_FEAT__MAX; g++)
		if (sw_feat_needs(g, f))
			json_object_array_add(
			    a, json_object_new_string(sw_featdefs[g].name));
	return a;
}
