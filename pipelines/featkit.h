/*
 * featkit.h: the parts of the feature.set pipeline (pipelines/features.c)
 * that live in their own files: the helpers every feature's stages use
 * (featkit.c) and the stages of kuberay.c, tiered.c and autoscaling.c.
 * Pipelines only; nothing above includes it.
 */
#ifndef SW_PIPELINES_FEATKIT_H
#define SW_PIPELINES_FEATKIT_H

#include "cloud/kube.h"
#include "pipelines/featdefs.h"
#include "pipelines/pipeline.h"

#define TRAINING_NS "aws-hyperpod"
#define TRAINING_SA "hp-training-operator-controller-manager"
#define TRAINING_POLICY \
	"arn:aws:iam::aws:policy/" \
	"AmazonSageMakerHyperPodTrainingOperatorAccess"
#define INFERENCE_NS "hyperpod-inference-system"
#define TIERED_SA "tiered-storage-sa"
#define TIERED_POLICY "slipway-tiered-checkpoint-s3"
#define SCALE_POLICY "slipway-hyperpod-autoscaling"
#define RAY_NS "ray-system"

/* What the request asks of a feature: -1 not named, 0 off, 1 on. */
int feat_want(struct sw_step *s, enum sw_feat feature);
/* A member of an object-valued feature (tiered_checkpointing...). */
json_object *feat_want_opt(
    struct sw_step *s, enum sw_feat feature, const char *key);
/*
 * Add-on addon ACTIVE (on) or gone (off).  create holds more CreateAddon
 * members (stolen; may be NULL).  Waits between calls; in plan mode the
 * create or delete is recorded and the step is done.
 */
enum sw_step_rc feat_ensure_addon(
    struct sw_step *s, const char *addon, int on, json_object *create);
/* The association id of ns/sa into id (empty when none). */
enum sw_step_rc feat_find_association(
    struct sw_step *s, const char *ns, const char *sa, char *id, size_t idsz);
/*
 * A client for reads even in plan mode: the plan must see the live
 * objects to leave out what is already there.  Writes still go through
 * sw_kube_apply / kube_delete, which only record in plan mode.
 */
enum sw_step_rc feat_kube_open(struct sw_step *s, struct sw_kube *kb);
/* GET an object: 1 present (*out new, may be NULL), 0 absent, -1 error. */
int feat_kube_get(struct sw_step *s, struct sw_kube *kb, const char *api,
    const char *ns, const char *plural, const char *name, json_object **out);
/* Delete an object (absent is done); recorded in plan mode. */
enum sw_step_rc feat_kube_delete(struct sw_step *s, struct sw_kube *kb,
    const char *api, const char *kind, const char *ns, const char *plural,
    const char *name);
enum sw_step_rc feat_describe_hp(struct sw_step *s, json_object **out);
/*
 * UpdateCluster with members (stolen) and the existing groups resent,
 * once per stage (flag), then wait for InService.  hp is the cluster's
 * DescribeCluster document (borrowed).
 */
enum sw_step_rc feat_update_hp(
    struct sw_step *s, const char *flag, json_object *hp, json_object *members);
enum sw_step_rc sw_st_kuberay_on(struct sw_step *s);
enum sw_step_rc sw_st_kuberay_off(struct sw_step *s);
enum sw_step_rc sw_st_tiered_on(struct sw_step *s);
enum sw_step_rc sw_st_tiered_off(struct sw_step *s);
enum sw_step_rc sw_st_autoscaling_on(struct sw_step *s);
enum sw_step_rc sw_st_autoscaling_off(struct sw_step *s);

/* The HyperPod cluster ARN and the OIDC issuer host into the step. */
enum sw_step_rc feat_cluster_facts(struct sw_step *s);

#endif
