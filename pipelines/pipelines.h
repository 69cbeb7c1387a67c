/*
 * pipelines.h: every pipeline Slipway runs, one file each, and the
 * naming and address-planning rules they share.
 */
#ifndef SW_PIPELINES_H
#define SW_PIPELINES_H

#include "pipelines/pipeline.h"

extern const struct sw_pipeline sw_pl_cluster_create; /* cluster.c */
extern const struct sw_pipeline sw_pl_cluster_delete; /* teardown.c */
extern const struct sw_pipeline sw_pl_cluster_release; /* teardown.c */
extern const struct sw_pipeline sw_pl_ig_add; /* igroup.c */
extern const struct sw_pipeline sw_pl_ig_update; /* igroup.c */
extern const struct sw_pipeline sw_pl_ig_delete; /* igroup.c */
extern const struct sw_pipeline sw_pl_node_action; /* igroup.c */
extern const struct sw_pipeline sw_pl_node_health_check; /* healthcheck.c */
extern const struct sw_pipeline sw_pl_storage_add; /* storage.c */
extern const struct sw_pipeline sw_pl_plan_reserve; /* plans.c */
extern const struct sw_pipeline sw_pl_plan_extend; /* plans.c */
extern const struct sw_pipeline sw_pl_software_update; /* storage.c */
extern const struct sw_pipeline sw_pl_feature_set; /* features.c */
extern const struct sw_pipeline sw_pl_addon_upgrade; /* addons.c */
extern const struct sw_pipeline sw_pl_node_volume_attach; /* nodevol.c */
extern const struct sw_pipeline sw_pl_node_volume_detach; /* nodevol.c */
extern const struct sw_pipeline sw_pl_mlflow_app_create; /* mlflow.c */
extern const struct sw_pipeline sw_pl_mlflow_app_delete; /* mlflow.c */
extern const struct sw_pipeline sw_pl_checkpoint_retain; /* checkpoints.c */
extern const struct sw_pipeline sw_pl_team_access_set; /* access.c */

/* Names derived from the cluster name (deterministic, so a resumed
 * stage finds what an earlier attempt created). */
void sw_name(char *out, size_t sz, const char *cluster, const char *what);

/* The IAM roles Slipway makes for a cluster, sw_name(cluster, suffix).
 * Teardown deletes exactly these names, each only when it carries the
 * cluster's id tag (SW_TAG_CLUSTER_ID). */
#define SW_ROLE_EKS "eks-role"
#define SW_ROLE_HP_EXEC "hp-exec"
#define SW_ROLE_AUTOSCALE "hp-autoscale"
#define SW_ROLE_TIERED "tiered-ckpt"
#define SW_ROLE_LBC "lb-controller"
#define SW_ROLE_TRAINING_OP "hp-training-op"
#define SW_ROLE_INFERENCE "hp-inference"
#define SW_ROLE_MLFLOW "mlflow"
/* All of them, NULL-ended. */
extern const char *const sw_role_suffixes[];

/*
 * Address plan inside a /16 VPC "A.B.0.0/16":
 *   public subnets   A.B.0.0/24,  A.B.1.0/24
 *   private subnets  A.B.16.0/20, A.B.32.0/20
 *   compute subnets  A.B.(64+16k).0/20, k = 0..11, one per AZ (shared)
 *                    or per dedicated instance group
 * sw_cidr_* write the CIDR text; -1 when out of range.
 */
int sw_cidr_public(const char *vpc_cidr, int i, char *out, size_t sz);
int sw_cidr_private(const char *vpc_cidr, int i, char *out, size_t sz);
int sw_cidr_compute(const char *vpc_cidr, int k, char *out, size_t sz);
/* Parse "a.b.c.d/n" into a host-order base and prefix; -1 if bad. */
int sw_cidr_parse(const char *cidr, uint32_t *base, int *prefix);
int sw_cidr_overlap(const char *a, const char *b);

/* The EC2 instance type behind a HyperPod one: "ml.p5.48xlarge" ->
 * "p5.48xlarge". */
const char *sw_ec2_type(const char *ml_type);

/* igroup.c: an existing group (a DescribeCluster InstanceGroups item,
 * borrowed) as UpdateCluster takes it, through the allow-list; count < 0
 * keeps its target count.  New reference. */
json_object *sw_hp_resend_group(json_object *detail, int64_t count);

/* patching.c: a HyperPod DeploymentConfig from Slipway's rolling
 * fields {batch_percent|batch_count, rollback_batch_percent|
 * rollback_batch_count, wait_seconds, rollback_alarms}
 * (borrowed); NULL for NULL.  New reference. */
json_object *sw_hp_deployment_config(json_object *rolling);
/* Add the ScheduledUpdateConfig, AutoPatchConfig and ImageReleaseVersion
 * that src (borrowed) asks for (scheduled_update, auto_patch,
 * image_release_version) to a HyperPod group spec (borrowed). */
void sw_hp_patch_members(json_object *src, json_object *group);
/* The other way: a DescribeCluster group's (borrowed) ScheduledUpdateConfig
 * (which "scheduled_update") or AutoPatchConfig ("auto_patch") as
 * Slipway's fields, or NULL when the group has none.  New reference. */
json_object *sw_hp_patch_view(json_object *group, const char *which);

/* cluster.c, shared with igroup.c */
/* The HyperPod InstanceGroups document for groups (borrowed).  New. */
json_object *sw_hp_instance_groups(struct sw_step *, json_object *groups,
    const char *exec_role, const char *lc_uri);
/* The bucket shared by every cluster's lifecycle scripts (HyperPod
 * wants "sagemaker-" names); a plan names the account only with ask. */
void sw_lifecycle_bucket(struct sw_step *, int ask, char *out, size_t sz);
/* Lifecycle script uploaded; its S3 prefix into uri. */
enum sw_step_rc sw_ensure_lifecycle(struct sw_step *, char *uri, size_t urisz);
/* The shared compute subnet of az, or a dedicated one for the group
 * named dedicated; its id is recorded in s->res under the key written
 * to key. */
enum sw_step_rc sw_ensure_compute_subnet(struct sw_step *, const char *az,
    const char *dedicated, char *key, size_t keysz);

#endif
