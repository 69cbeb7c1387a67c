/*
 * nodevol.c: node.volume_attach and node.volume_detach, an EBS volume
 * attached to or detached from one HyperPod node.
 *
 *   csi      (attach only) the Amazon EBS CSI driver add-on
 *            (aws-ebs-csi-driver) created and ACTIVE, when the handler
 *            found the cluster without it and install_csi_driver
 *            asked for it; nothing otherwise
 *   attach   AttachClusterNodeVolume {ClusterArn, NodeId, VolumeId},
 *            sent at most once; SageMaker's answer (status, device
 *            name, time) is recorded in the stage's resources
 *   detach   DetachClusterNodeVolume, the same way
 *
 * SageMaker refuses a volume that is not available, in another zone or
 * unknown (attach) or not attached to that node (detach): the refusal
 * ends the operation with its words.  params: {name, node, group,
 * volume_id, cluster_arn, eks_cluster, install_csi_driver}; the handler
 * (handlers/node_volumes.c) checked the cluster's and node's rules.
 */
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/featkit.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define CSI_ADDON "aws-ebs-csi-driver"

static enum sw_step_rc
stage_csi(struct sw_step *s)
{
	json_object *install = sw_json_get(s->params, "install_csi_driver");

	if (install == NULL || !json_object_get_boolean(install) ||
	    sw_res_get(s, "addon") != NULL)
		return STEP_DONE;
	TRY(feat_ensure_addon(s, CSI_ADDON, 1, NULL));
	sw_res_set(s, "addon", CSI_ADDON);
	return STEP_DONE;
}

/* Record what SageMaker answered (out borrowed; NULL in a plan or when
 * the request was sent before a restart). */
static void
record_answer(struct sw_step *s, json_object *out, int resumed)
{
	char when[32];
	json_object *t;

	if (out == NULL) {
		sw_res_set(s, "status",
		    s->plan       ? "planned"
			: resumed ? "sent before a restart"
				  : "sent");
		return;
	}
	sw_res_set(s, "status", sw_json_get_str(out, "Status"));
	sw_res_set(s, "device_name", sw_json_get_str(out, "DeviceName"));
	if ((t = sw_json_get(out, "AttachTime")) != NULL &&
	    sw_fmt(when, sizeof(when), "%.0f", json_object_get_double(t)) ==
		SW_OK)
		sw_res_set(s, "attach_time", when);
}

/* One AttachClusterNodeVolume or DetachClusterNodeVolume. */
static enum sw_step_rc
volume_call(struct sw_step *s, const char *op)
{
	json_object *out = NULL;
	int resumed = 0;

	if (sw_res_get(s, "status") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws_once(s, "sent", AWS_SVC_SAGEMAKER, op,
	    sw_jo("ClusterArn",
		sw_js(sw_json_get_str(s->params, "cluster_arn")), "NodeId",
		sw_js(sw_json_get_str(s->params, "node")), "VolumeId",
		sw_js(sw_json_get_str(s->params, "volume_id")), NULL),
	    &out, &resumed));
	record_answer(s, out, resumed);
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_attach(struct sw_step *s)
{
	return volume_call(s, "AttachClusterNodeVolume");
}

static enum sw_step_rc
stage_detach(struct sw_step *s)
{
	return volume_call(s, "DetachClusterNodeVolume");
}

/* clang-format off */
static const struct sw_stage_def attach_stages[] = {
	{ "csi", stage_csi },
	{ "attach", stage_attach },
	{ NULL, NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_stage_def detach_stages[] = {
	{ "detach", stage_detach },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_node_volume_attach = { "node.volume_attach",
	attach_stages };

const struct sw_pipeline sw_pl_node_volume_detach = { "node.volume_detach",
	detach_stages };
