/*
 * diagnostics.c: the operation table's rows for a cluster's events and
 * its diagnosis, each beside the fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const event_levels[] = { "Info", "Warn", "Error", NULL };

static const char *const event_kinds[] = { "Cluster", "InstanceGroup",
	"Instance", NULL };

/* clang-format off */
static const struct sw_field f_events_query[] = {
	F_CLUSTER_PATH,
	{ .name = "instance_group", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_GROUP,
	  .desc = "Only events of this instance group." },
	{ .name = "node_id", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 3, .max = 32, .pattern = PAT_NODE,
	  .desc = "Only events of this node." },
	{ .name = "resource_type", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = event_kinds,
	  .desc = "Only events about the cluster, a group or a node." },
	{ .name = "level", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = event_levels,
	  .desc = "Only events of this level (filters the page)." },
	{ .name = "since", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .min = 0, .max = 9999999999LL,
	  .desc = "Only events after this time (Unix seconds)." },
	{ .name = "limit", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = 100, .dflt = "50",
	  .desc = "Page size (default 50)." },
	{ .name = "cursor", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 2048, .pattern = "[A-Za-z0-9+/=_-]+",
	  .desc = "The 'next' value of the previous page." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_event[] = {
	OUT_OPT("id", SW_T_STRING, "Event id."),
	OUT_OPT("time", SW_T_STRING, "When (RFC 3339, UTC)."),
	OUT_OPT("level", SW_T_STRING, "Info, Warn or Error."),
	OUT_OPT("resource_type", SW_T_STRING, "Cluster, InstanceGroup or "
	    "Instance."),
	OUT_OPT("instance_group", SW_T_STRING, "The group it is about."),
	OUT_OPT("node_id", SW_T_STRING, "The node it is about."),
	OUT_OPT("description", SW_T_STRING, "What happened."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_event_item[] = {
	{ .name = "event", .type = SW_T_OBJECT, .fields = o_event },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_event_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_event_item, .desc = "Newest first." },
	OUT_OPT("next", SW_T_STRING, "The cursor of the next page."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_events[] = {
	{ .status = 200, .fields = o_event_list,
	  .desc = "The cluster's HyperPod events." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_sick[] = {
	OUT_OPT("node_id", SW_T_STRING, "Instance id."),
	OUT_OPT("instance_group", SW_T_STRING, "Its group."),
	OUT_OPT("status", SW_T_STRING, "Its HyperPod status."),
	OUT_OPT("message", SW_T_STRING, "Why."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sick_item[] = {
	{ .name = "node", .type = SW_T_OBJECT, .fields = o_sick },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_stuck[] = {
	OUT_OPT("pod", SW_T_STRING, "Pod name."),
	OUT_OPT("namespace", SW_T_STRING, "Its namespace."),
	OUT("phase", SW_T_STRING, "Pending, Failed, Unknown..."),
	OUT_OPT("reason", SW_T_STRING, "Why, as Kubernetes says."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_stuck_item[] = {
	{ .name = "pod", .type = SW_T_OBJECT, .fields = o_stuck },
};
/* clang-format on */
static const char *const severities[] = { "error", "warning", "info", NULL };
/* clang-format off */
static const struct sw_field o_finding[] = {
	{ .name = "severity", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = severities, .desc = "How bad." },
	OUT("finding", SW_T_STRING, "What is wrong."),
	OUT("suggested_next_step", SW_T_STRING, "What to do next."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_finding_item[] = {
	{ .name = "finding", .type = SW_T_OBJECT, .fields = o_finding },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_diagnosis[] = {
	OUT("cluster", SW_T_STRING, "The cluster."),
	OUT_OPT("eks_status", SW_T_STRING, "EKS status."),
	OUT_OPT("hyperpod_status", SW_T_STRING, "HyperPod status."),
	OUT_OPT("node_recovery", SW_T_STRING, "Automatic or None."),
	OUT_OPT("instance_groups", SW_T_ANY, "Its instance groups as "
	    "SageMaker describes them."),
	{ .name = "unhealthy_nodes", .type = SW_T_ARRAY,
	  .flags = SW_F_REQUIRED, .items = o_sick_item,
	  .desc = "Nodes not Running." },
	OUT_OPT("addons", SW_T_ANY, "The add-ons, as addon_list shows "
	    "them."),
	OUT("kubernetes_nodes", SW_T_INT, "Nodes Kubernetes lists."),
	{ .name = "stuck_pods", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_stuck_item, .desc = "Pods that do not run." },
	{ .name = "findings", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_finding_item, .desc = "What is wrong, worst first, "
	  "each with a next step." },
	OUT("read_only", SW_T_BOOL, "Always true: nothing was changed."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_diagnosis[] = {
	{ .status = 200, .fields = o_diagnosis, .desc = "The diagnosis." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "cluster_events",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/events",
	  .tag = "diagnostics",
	  .summary = "The cluster's event history, newest first",
	  .description = "Every status change of the cluster, its instance "
	    "groups and nodes (ListClusterEvents). Filter by instance_group, "
	    "node_id, resource_type, level or since; page with cursor.",
	  .params = f_events_query,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_events,
	},
	{
	  .name = "diagnostics_cluster",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/diagnostics",
	  .tag = "diagnostics",
	  .summary = "Read-only health report: control plane, HyperPod, "
	    "nodes, pods",
	  .description = "Investigates only and changes nothing; each finding "
	    "names the next step to suggest (investigate -> reboot -> "
	    "replace).",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_diagnosis,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_diagnostics = { rows,
	sizeof(rows) / sizeof(rows[0]) };
