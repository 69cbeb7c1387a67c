/*
 * features.c: the operation table's rows for a cluster's optional
 * features and its EKS add-ons, each beside the fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/*
 * Managed features, explicit-diff: a body names only the features it
 * changes.  Plain features take true/false; tiered_checkpointing and
 * autoscaling take an object whose "enabled" is required.
 */
static const char *const consolidation_policies[] = { "WhenEmpty",
	"WhenEmptyOrUnderutilized", NULL };

/* clang-format off */
static const struct sw_field f_feat_tiered[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "Turn managed tiered checkpointing on or off." },
	{ .name = "bucket", .type = SW_T_STRING, .min = 3, .max = 63,
	  .pattern = PAT_BUCKET,
	  .desc = "S3 bucket for checkpoints (required to enable); the "
	  "pods' IAM policy allows this bucket and nothing else." },
	{ .name = "memory_percent", .type = SW_T_INT, .min = 20, .max = 100,
	  .desc = "Share of node memory for checkpoints (default 20)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "Namespace of the service account tiered-storage-sa that "
	  "training pods use (default: default)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_feat_group_item[] = {
	{ .name = "group", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_GROUP },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_feat_autoscaling[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "Turn HyperPod managed Karpenter on or off." },
	{ .name = "consolidation_policy", .type = SW_T_STRING,
	  .enumv = consolidation_policies,
	  .desc = "NodePool disruption.consolidationPolicy (default "
	  "WhenEmptyOrUnderutilized)." },
	{ .name = "consolidate_after", .type = SW_T_STRING, .min = 2, .max = 8,
	  .pattern = "[0-9]{1,5}(s|m|h)|Never",
	  .desc = "NodePool disruption.consolidateAfter, e.g. 5m (default) "
	  "or Never." },
	{ .name = "instance_groups", .type = SW_T_ARRAY, .min = 1, .max = 10,
	  .desc = "Instance groups Karpenter may scale, each starting at 0 "
	  "nodes (default: every group at 0; HyperPod takes at most 10).",
	  .items = f_feat_group_item },
	{ NULL }
};
/* clang-format on */

#define PAT_AMP_WS "ws-[0-9a-f-]{8,64}"
#define PAT_AMG_WS "g-[0-9a-f]{8,32}"

/* clang-format off */
static const struct sw_field f_feat_observability[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "Turn the observability add-on on or off." },
	{ .name = "prometheus_workspace", .type = SW_T_STRING, .min = 4,
	  .max = 80, .pattern = PAT_AMP_WS,
	  .desc = "Amazon Managed Prometheus workspace id (ws-...) the "
	  "metrics are written to." },
	{ .name = "grafana_workspace", .type = SW_T_STRING, .min = 4,
	  .max = 40, .pattern = PAT_AMG_WS,
	  .desc = "Amazon Managed Grafana workspace id (g-...) whose URL "
	  "feature_list shows." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_features[] = {
	{ .name = "training_operator", .type = SW_T_BOOL,
	  .desc = "HyperPod training operator add-on (HyperPodPyTorchJob); "
	  "turning it on installs cert-manager first." },
	{ .name = "inference_operator", .type = SW_T_BOOL,
	  .desc = "HyperPod inference operator add-on; installs "
	  "cert-manager, FSx CSI and metrics-server first." },
	{ .name = "cert_manager", .type = SW_T_BOOL,
	  .desc = "cert-manager add-on (cannot go while an operator needs "
	  "it)." },
	{ .name = "kuberay", .type = SW_T_BOOL,
	  .desc = "KubeRay operator and the ray.io CRDs (RayJob, "
	  "RayCluster)." },
	{ .name = "fsx_csi", .type = SW_T_BOOL,
	  .desc = "FSx for Lustre CSI driver add-on." },
	{ .name = "task_governance", .type = SW_T_BOOL,
	  .desc = "HyperPod task governance add-on (Kueue): compute quotas "
	  "and the scheduler config. Needs Kubernetes 1.30 or later and no "
	  "other Kueue on the cluster." },
	{ .name = "observability", .type = SW_T_OBJECT,
	  .desc = "HyperPod observability add-on (metrics to Amazon Managed "
	  "Prometheus, dashboards in Amazon Managed Grafana).",
	  .fields = f_feat_observability },
	{ .name = "spaces", .type = SW_T_BOOL,
	  .desc = "HyperPod Spaces add-on (amazon-sagemaker-spaces, the "
	  "jupyter-k8s operator): JupyterLab and Code Editor Spaces "
	  "(space_create); installs the EBS CSI driver first." },
	{ .name = "node_recovery", .type = SW_T_BOOL,
	  .desc = "true: NodeRecovery Automatic; false: None." },
	{ .name = "tiered_checkpointing", .type = SW_T_OBJECT,
	  .desc = "Managed tiered checkpointing with its identity chain.",
	  .fields = f_feat_tiered },
	{ .name = "autoscaling", .type = SW_T_OBJECT,
	  .desc = "HyperPod autoscaling (Karpenter) with its ClusterRole.",
	  .fields = f_feat_autoscaling },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_addon_path[] = {
	F_CLUSTER_PATH,
	{ .name = "addon", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 100,
	  .pattern = "[a-z0-9][a-z0-9-]*",
	  .desc = "EKS add-on name, e.g. kube-proxy." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_addon_upgrade[] = {
	{ .name = "version", .type = SW_T_STRING, .min = 6, .max = 64,
	  .pattern = PAT_ADDON_VERSION,
	  .desc = "Add-on version, e.g. v1.31.13-eksbuild.2 (default: the "
	  "newest EKS publishes as compatible with the cluster's Kubernetes "
	  "version)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_feature_same[] = {
	OUT("changed", SW_T_BOOL, "Always false: every feature asked for "
	    "is already as asked."),
	OUT("cluster", SW_T_STRING, "The cluster."),
	OUT("features", SW_T_ANY, "Each feature's live state, as "
	    "feature_list shows it."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_feature_change_item[] = {
	{ .name = "stage", .type = SW_T_STRING },
};
/* clang-format on */
#define F_FEATURE_CHANGES \
	OUT("changed", SW_T_BOOL, "Always true: something changes."), \
	{ \
		.name = "changes", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED, \
		.items = o_feature_change_item, \
		.desc = "The feature stages that would run." \
	}
/* clang-format off */
static const struct sw_field o_feature_accepted[] = {
	F_ACCEPTED,
	/* a replay of an Idempotency-Key is the operation alone */
	OUT_OPT("changed", SW_T_BOOL, "True: something changes (absent "
	    "when the answer replays an Idempotency-Key)."),
	{ .name = "changes", .type = SW_T_ARRAY, .items = o_feature_change_item,
	  .desc = "The feature stages that will run (absent when the "
	  "answer replays an Idempotency-Key)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_feature_plan[] = {
	F_PLAN,
	F_FEATURE_CHANGES,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_feature_set[] = {
	{ .status = 202, .fields = o_feature_accepted,
	  .desc = "Started: the operation and what changes." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_feature_plan,
	  .desc = "The plan (dry_run=true) and what would change." },
	{ .status = 200, .dry_run = SW_DRY_TOO, .fields = o_feature_same,
	  .desc = "Nothing to change (a dry run too)." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_addon_same[] = {
	OUT("changed", SW_T_BOOL, "Always false: the add-on is at that "
	    "version."),
	OUT("addon", SW_T_STRING, "The add-on."),
	OUT("version", SW_T_STRING, "Its version."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_addon_upgrade[] = {
	ANSWERS_LONG,
	{ .status = 200, .dry_run = SW_DRY_TOO, .fields = o_addon_same,
	  .desc = "Already at that version (a dry run too)." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_version_item[] = {
	{ .name = "version", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_addon[] = {
	OUT("addon", SW_T_STRING, "Add-on name."),
	OUT_OPT("status", SW_T_STRING, "ACTIVE, CREATING, DEGRADED..."),
	OUT_OPT("installed_version", SW_T_STRING, "The version it runs."),
	OUT("compatible", SW_T_BOOL, "That version is published for the "
	    "cluster's Kubernetes version."),
	OUT_OPT("default_version", SW_T_STRING, "EKS's default for it."),
	OUT_OPT("newest_version", SW_T_STRING, "The newest published."),
	{ .name = "compatible_versions", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_version_item,
	  .desc = "Every version published for the cluster." },
	OUT("upgrade_available", SW_T_BOOL, "A newer version is "
	    "published."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_addon_item[] = {
	{ .name = "addon", .type = SW_T_OBJECT, .fields = o_addon },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_addon_list[] = {
	OUT("kubernetes_version", SW_T_STRING, "The cluster's."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_addon_item, .desc = "The installed add-ons." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_addon_list[] = {
	{ .status = 200, .fields = o_addon_list,
	  .desc = "The cluster's add-ons and their versions." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_feature_item[] = {
	{ .name = "feature", .type = SW_T_ANY,
	  .desc = "One feature's live state and its name; the members "
	  "differ by feature (feature_set's body names them)." },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_feature_list[] = {
	OUT("cluster", SW_T_STRING, "The cluster."),
	OUT("features", SW_T_ANY, "Each feature's live state, by name."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_feature_item, .desc = "The same, as a list." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_feature_list[] = {
	{ .status = 200, .fields = o_feature_list,
	  .desc = "The cluster's features." },
	{ 0 }
};
/* clang-format on */

/* Kubernetes access following the teams (handlers/access.c). */
/* clang-format off */
static const struct sw_field f_team_access[] = {
	{ .name = "enabled", .type = SW_T_BOOL, .flags = SW_F_REQUIRED,
	  .desc = "On: every team.<team>.<role>.iam_role_arn of the "
	  "configuration gets an EKS access entry (viewer "
	  "AmazonEKSViewPolicy and operator AmazonEKSEditPolicy scoped to "
	  "hyperpod-ns-<team>, platform-admin AmazonEKSClusterAdminPolicy "
	  "cluster-wide) and entries of teams no longer configured go; "
	  "sent again, it reconciles. Off: every entry it made goes." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_ns_item[] = {
	{ .name = "namespace", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_access_entry[] = {
	OUT("team", SW_T_STRING, "The team."),
	OUT("role", SW_T_STRING, "viewer, operator or platform-admin."),
	OUT("principal_arn", SW_T_STRING, "The IAM role its members "
	    "assume (team.<team>.<role>.iam_role_arn)."),
	OUT_OPT("policy_arn", SW_T_STRING, "The EKS access policy asked "
	    "for (absent for a stale entry)."),
	OUT_OPT("scope", SW_T_STRING, "namespace or cluster."),
	{ .name = "namespaces", .type = SW_T_ARRAY, .items = o_ns_item,
	  .desc = "The namespaces of a namespace scope." },
	OUT("state", SW_T_STRING, "present (as asked), differs (its "
	    "policies differ; team_access_set fixes them), missing (not "
	    "made yet) or stale (made for a team role no longer "
	    "configured)."),
	OUT("live_policies", SW_T_ANY, "The access policies EKS has "
	    "associated with it (ListAssociatedAccessPolicies)."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_access_item[] = {
	{ .name = "entry", .type = SW_T_OBJECT, .fields = o_team_access_entry },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_team_access[] = {
	OUT("cluster", SW_T_STRING, "The cluster."),
	OUT("enabled", SW_T_BOOL, "Team access is on (the EKS cluster's "
	    "tag slipway:team-access)."),
	OUT("authentication_mode", SW_T_STRING, "The EKS cluster's: API, "
	    "API_AND_CONFIG_MAP or CONFIG_MAP (which has no access "
	    "entries)."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_team_access_item,
	  .desc = "Each entry asked for by the configuration and each "
	  "live one Slipway made, with its state." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_team_access_get[] = {
	{ .status = 200, .fields = o_team_access,
	  .desc = "The team access entries, asked and live." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_team_access_set[] = {
	ANSWERS_LONG,
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "feature_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/features",
	  .tag = "features",
	  .summary = "Managed features and their live state",
	  .description = "Read from AWS and Kubernetes on every call: "
	    "training_operator, inference_operator, cert_manager, "
	    "tiered_checkpointing, autoscaling, node_recovery, kuberay, "
	    "task_governance, observability (with grafana_url when a Grafana "
	    "workspace was given), fsx_csi, spaces, each with enabled, status and "
	    "details.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_feature_list,
	},
	{
	  .name = "feature_set",
	  .method = "PATCH",
	  .path = "/api/v1/clusters/{name}/features",
	  .tag = "features",
	  .summary = "Turn managed features on or off (send only what changes)",
	  .description = "Explicit diff: name only the features to change, "
	    "e.g. {\"training_operator\": true}. When the live state already "
	    "matches, answers 200 changed:false and starts nothing; otherwise "
	    "202 with an operation that applies the differences in dependency "
	    "order (prerequisites first, removals in reverse). Poll with "
	    "operation_wait.",
	  .params = f_cluster_name,
	  .body = f_features,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN | SW_OP_IDEMPOTENT |
	    SW_OP_CONFIRM_OFF,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .answers = a_feature_set,
	},
	{
	  .name = "addon_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/addons",
	  .tag = "features",
	  .summary = "EKS add-ons with installed and newest compatible versions",
	  .description = "Every EKS add-on on the cluster (vpc-cni, coredns, "
	    "kube-proxy and those features install) with its status, the "
	    "installed version, whether EKS publishes it as compatible with "
	    "the cluster's Kubernetes version (DescribeAddonVersions), the "
	    "default and newest compatible versions, and whether an "
	    "addon_upgrade is available.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_addon_list,
	},
	{
	  .name = "addon_upgrade",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/addons/{addon}:upgrade",
	  .tag = "features",
	  .summary = "Move an EKS add-on to a compatible version",
	  .description = "UpdateAddon to version (default: the newest "
	    "compatible with the cluster's Kubernetes version), then waits "
	    "for the add-on to be ACTIVE at it. A version EKS does not publish "
	    "as compatible is refused (422 naming version). Already there: "
	    "200 changed:false. dry_run shows the UpdateAddon call.",
	  .params = f_addon_path,
	  .body = f_addon_upgrade,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 15,
	  .answers = a_addon_upgrade,
	},
	{
	  .name = "team_access_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/team-access",
	  .tag = "features",
	  .summary = "Kubernetes access of the teams: EKS access entries",
	  .description = "Whether the cluster's Kubernetes access follows "
	    "the teams, its EKS authenticationMode, and for each "
	    "team.<team>.<role>.iam_role_arn configured the access entry, "
	    "its policy and namespace scope, read from EKS on every call "
	    "(ListAccessEntries, DescribeAccessEntry, "
	    "ListAssociatedAccessPolicies): present, differs, missing, or "
	    "stale for a team no longer configured.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_team_access_get,
	},
	{
	  .name = "team_access_set",
	  .method = "PUT",
	  .path = "/api/v1/clusters/{name}/team-access",
	  .tag = "features",
	  .summary = "Make kubectl access follow the teams (EKS access "
	    "entries), or stop",
	  .description = "enabled:true creates an EKS access entry for each "
	    "team.<team>.<role>.iam_role_arn configured (read from "
	    "slipway.conf when the request comes) with AmazonEKSViewPolicy "
	    "(viewer) or AmazonEKSEditPolicy (operator) scoped to "
	    "hyperpod-ns-<team>, or AmazonEKSClusterAdminPolicy "
	    "(platform-admin), and removes the entries it made for team "
	    "roles no longer configured; sent again it reconciles. "
	    "enabled:false removes every entry it made. Entries it did not "
	    "make are never touched. A cluster whose authenticationMode is "
	    "CONFIG_MAP is refused (422). dry_run lists the calls.",
	  .params = f_cluster_name,
	  .body = f_team_access,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 5,
	  .answers = a_team_access_set,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_features = { rows,
	sizeof(rows) / sizeof(rows[0]) };
