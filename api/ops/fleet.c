/*
 * fleet.c: the operation table's rows for the fleet document (the
 * clusters, their instance groups, features, team access, compute
 * quotas, scheduler config and Space templates, and the
 * budgets and subscriptions a platform keeps in git): its JSON Schema, the plan of the changes that
 * make the live state the document's, applying them, and today's state
 * as a document.  A cluster of the document is validated by the fields
 * of cluster_create, its features by feature_set's, its team access by
 * team_access_set's, its scheduler config by scheduler_config_set's,
 * its Space templates by space_template_set's, a
 * budget by budget_set's and a subscription by
 * subscription_create's (handlers/fleet.c); the rows here take the document's
 * outline only.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const fleet_versions[] = { "slipway/v1", NULL };
static const char *const change_reasons[] = { "absent", "differs",
	"not_in_document", NULL };

/* clang-format off */
static const struct sw_field f_fleet_cluster_item[] = {
	{ .name = "cluster", .type = SW_T_OBJECT,
	  .desc = "A cluster: the fields of cluster_create, features (the "
	  "fields of feature_set), team_access (team_access_set's), "
	  "scheduler_config (scheduler_config_set's), space_templates "
	  "(each space_template_set's template and fields) and "
	  "compute_quotas (each compute_quota_create's)." },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_fleet_sub_item[] = {
	{ .name = "subscription", .type = SW_T_OBJECT,
	  .desc = "A subscription as subscription_create takes it." },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_fleet_budget_item[] = {
	{ .name = "budget", .type = SW_T_OBJECT,
	  .desc = "A budget: scope and name (budget_set's path) with "
	  "budget_set's fields." },
};
/* clang-format on */

/* The document's outline; GET /api/v1/fleet/schema has it whole. */
/* clang-format off */
static const struct sw_field f_fleet_doc[] = {
	{ .name = "apiVersion", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = fleet_versions,
	  .desc = "The document's version: slipway/v1." },
	{ .name = "prune", .type = SW_T_BOOL,
	  .desc = "Delete the clusters Slipway manages that the document "
	  "does not name (default false: they are kept, and the plan "
	  "says so)." },
	{ .name = "clusters", .type = SW_T_ARRAY, .max = 50,
	  .items = f_fleet_cluster_item,
	  .desc = "The clusters, each as cluster_create takes it, with "
	  "features as feature_set takes them." },
	{ .name = "budgets", .type = SW_T_ARRAY, .max = 200,
	  .items = f_fleet_budget_item,
	  .desc = "Monthly budgets, each {scope, name, limit_usd, "
	  "thresholds}." },
	{ .name = "subscriptions", .type = SW_T_ARRAY, .max = 200,
	  .items = f_fleet_sub_item,
	  .desc = "Notification subscriptions, by name." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_change[] = {
	OUT("order", SW_T_INT, "Its place: changes run in this order."),
	OUT("operation", SW_T_STRING, "The operation it runs (a row of "
	    "the table)."),
	OUT("target", SW_T_STRING, "What it acts on."),
	OUT("arguments", SW_T_ANY, "The operation's arguments."),
	{ .name = "reason", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = change_reasons, .desc = "absent: live has none; "
	  "differs: a field's live value is not the document's; "
	  "not_in_document: live has it, the document not (prune)." },
	OUT_OPT("field", SW_T_STRING, "The field that differs."),
	OUT_OPT("live", SW_T_ANY, "Its live value."),
	OUT_OPT("desired", SW_T_ANY, "The document's value."),
	OUT("why", SW_T_STRING, "The reason in words."),
	{ .name = "cost", .type = SW_T_OBJECT, .fields = sw_cost_fields,
	  .desc = "What it adds per hour (changes of instance counts), "
	  "from the operation's own plan." },
	OUT_OPT("waits_for", SW_T_STRING, "A change it needs done first "
	    "(a cluster being created): apply runs it on a later apply."),
	OUT_OPT("first_seen_ms", SW_T_INT, "A difference the poller "
	    "recorded (fleet_drift_recorded): when Slipway first saw it. "
	    "Who made it is not known."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_change_item[] = {
	{ .name = "change", .type = SW_T_OBJECT, .fields = o_change },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_kept_item[] = {
	{ .name = "cluster", .type = SW_T_STRING },
};
/* clang-format on */
#define F_PLAN_MEMBERS \
	{ .name = "changes", \
		.type = SW_T_ARRAY, \
		.flags = SW_F_REQUIRED, \
		.items = o_change_item, \
		.desc = "The changes, in order; none " \
			"when live is the document." }, \
	    OUT("prune", SW_T_BOOL, \
		"Whether clusters not in the document " \
		"are deleted."), \
	    { .name = "kept", \
		    .type = SW_T_ARRAY, \
		    .flags = SW_F_REQUIRED, \
		    .items = o_kept_item, \
		    .desc = "Managed clusters the document " \
			    "does not name, kept because prune is false." }, \
	{ \
		.name = "added_per_hour", .type = SW_T_NUMBER, \
		.flags = SW_F_REQUIRED | SW_F_NULLABLE, \
		.desc = "What the changes add per hour, USD (null: some " \
			"price is unknown)." \
	}
/* clang-format off */
static const struct sw_field o_fleet_plan[] = {
	F_PLAN_MEMBERS,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_fleet_plan[] = {
	{ .status = 200, .fields = o_fleet_plan,
	  .desc = "The ordered changes; nothing is changed." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_started[] = {
	OUT("operation", SW_T_STRING, "The operation it ran."),
	OUT("target", SW_T_STRING, "What it acted on."),
	OUT("status", SW_T_INT, "Its HTTP status."),
	OUT_OPT("operation_id", SW_T_STRING, "The long operation it "
	    "started: follow it with operation_wait."),
	OUT_OPT("error", SW_T_STRING, "Why it was refused."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_started_item[] = {
	{ .name = "started", .type = SW_T_OBJECT, .fields = o_started },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_fleet_apply[] = {
	F_PLAN_MEMBERS,
	{ .name = "started", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_started_item, .desc = "What each change ran, in "
	  "order; empty when live is the document." },
	OUT("deferred", SW_T_INT, "Changes left for a later apply (they "
	    "wait for a cluster being created)."),
	OUT("failed", SW_T_INT, "Changes whose operation was refused."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_fleet_apply[] = {
	{ .status = 200, .fields = o_fleet_apply,
	  .desc = "The changes and the operations they started." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_any_item[] = {
	{ .name = "item", .type = SW_T_ANY },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_fleet_doc[] = {
	OUT("apiVersion", SW_T_STRING, "slipway/v1."),
	{ .name = "clusters", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_any_item, .desc = "Every cluster Slipway manages, as "
	  "cluster_create takes it, with its features." },
	{ .name = "budgets", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_any_item, .desc = "Every budget." },
	{ .name = "subscriptions", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_any_item, .desc = "Every subscription the caller may "
	  "see, without its secret." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_fleet_export[] = {
	{ .status = 200, .fields = o_fleet_doc,
	  .desc = "Today's state as a fleet document; applied, it changes "
	  "nothing." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_fleet_drift[] = {
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 2, .max = 32, .pattern = PAT_CLUSTER,
	  .desc = "Only this cluster's changes (its groups, features, team "
	  "access and quotas)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_fleet_drift[] = {
	F_PLAN_MEMBERS,
	OUT("applied", SW_T_BOOL, "A document was applied (else there "
	    "is nothing to drift from)."),
	OUT_OPT("applied_by", SW_T_STRING, "Who applied the document."),
	OUT_OPT("applied_ms", SW_T_INT, "When."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_fleet_drift[] = {
	{ .status = 200, .fields = o_fleet_drift,
	  .desc = "What differs from the fleet document applied last: its "
	  "plan now; none when nothing drifted." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_recorded[] = {
	OUT("cluster", SW_T_STRING, "The cluster."),
	OUT("target", SW_T_STRING, "The instance group, cluster/group, or "
	    "the cluster (a feature)."),
	OUT("field", SW_T_STRING, "What differs: count, instance_type, "
	    "present (the group is gone), or features.<name> (the feature's "
	    "EKS add-on is gone)."),
	OUT("live", SW_T_ANY, "Its live value."),
	OUT("desired", SW_T_ANY, "The document's value."),
	OUT("first_seen_ms", SW_T_INT, "When Slipway first saw it (this "
	    "value), ms since the epoch."),
	OUT("seen_ms", SW_T_INT, "When Slipway last saw it."),
	OUT("changed_by", SW_T_STRING, "Who changed it: unknown (no audit "
	    "trail of AWS is read)."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_recorded_item[] = {
	{ .name = "drift", .type = SW_T_OBJECT, .fields = o_recorded },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_fleet_drift_recorded[] = {
	OUT("applied", SW_T_BOOL, "A document was applied."),
	OUT_OPT("applied_by", SW_T_STRING, "Who applied the document."),
	OUT_OPT("applied_ms", SW_T_INT, "When."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_recorded_item, .desc = "The differences found at the "
	  "poller's last pass; none when nothing drifted." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_fleet_drift_recorded[] = {
	{ .status = 200, .fields = o_fleet_drift_recorded,
	  .desc = "The drift recorded, without reading live state." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_schema[] = {
	OUT("$schema", SW_T_STRING, "The JSON Schema dialect."),
	OUT("$id", SW_T_STRING, "The schema's name."),
	OUT("title", SW_T_STRING, "What it describes."),
	OUT("type", SW_T_STRING, "object."),
	OUT("properties", SW_T_ANY, "The document's members."),
	OUT("required", SW_T_ANY, "Those it must have."),
	OUT("additionalProperties", SW_T_BOOL, "Always false."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_fleet_schema[] = {
	{ .status = 200, .fields = o_schema,
	  .desc = "The fleet document's JSON Schema." },
	{ 0 }
};
/* clang-format on */

#define FLEET_ABOUT \
	" The document: apiVersion slipway/v1, clusters (each " \
	"as cluster_create takes it, with features as feature_set takes " \
	"them, team_access as team_access_set does, scheduler_config as " \
	"scheduler_config_set does, space_templates as space_template_set " \
	"does and compute_quotas as " \
	"compute_quota_create does), budgets ({scope, " \
	"name, limit_usd, thresholds}), subscriptions (as " \
	"subscription_create takes them) and prune; its JSON Schema is " \
	"fleet_schema."

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "fleet_schema",
	  .method = "GET",
	  .path = "/api/v1/fleet/schema",
	  .tag = "fleet",
	  .summary = "The fleet document's JSON Schema, from the operation "
	    "table",
	  .description = "Written from the fields of cluster_create, "
	    "feature_set, team_access_set, scheduler_config_set, "
	    "space_template_set, "
	    "compute_quota_create, budget_set "
	    "and "
	    "subscription_create, so the document takes what the "
	    "operations take.",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_fleet_schema,
	},
	{
	  .name = "fleet_plan",
	  .method = "POST",
	  .path = "/api/v1/fleet/plan",
	  .tag = "fleet",
	  .summary = "The ordered changes that make the live state a fleet "
	    "document's, with their hourly cost",
	  .description = "Reads the live state through the same reads as "
	    "cluster_list, instance_group_list, feature_set's diff, "
	    "team_access_get, scheduler_config_get, space_template_list, "
	    "compute_quota_list, "
	    "budget_list and "
	    "subscription_list, and answers each change with the operation it "
	    "would run, its arguments and why (absent, or a field's live "
	    "and desired value). Changes nothing. Clusters the document "
	    "does not name are deleted only with prune: true." FLEET_ABOUT,
	  .body = f_fleet_doc,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_fleet_plan,
	},
	{
	  .name = "fleet_apply",
	  .method = "POST",
	  .path = "/api/v1/fleet/apply",
	  .tag = "fleet",
	  .summary = "Run the plan of a fleet document as ordinary "
	    "operations",
	  .description = "Plans as fleet_plan, then runs each change as "
	    "its operation with the same validation, audit and person; "
	    "nothing at all in AWS or Kubernetes when live is the document. "
	    "The document (without secrets) is kept as the one applied last, "
	    "which fleet_drift plans against. A cluster being "
	    "created gets its feature changes on a later apply, once it is "
	    "ACTIVE." FLEET_ABOUT,
	  .body = f_fleet_doc,
	  .flags = SW_OP_DESTRUCTIVE,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_fleet_apply,
	},
	{
	  .name = "fleet_export",
	  .method = "GET",
	  .path = "/api/v1/fleet/export",
	  .tag = "fleet",
	  .summary = "Today's state as a fleet document (applies as a "
	    "no-op)",
	  .description = "Every cluster Slipway manages with its instance "
	    "groups, features, team access, scheduler config, the Space "
	    "templates Slipway keeps and compute quotas, every budget "
	    "and every "
	    "subscription (without its secret).",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_fleet_export,
	},
	{
	  .name = "fleet_drift",
	  .method = "GET",
	  .path = "/api/v1/fleet/drift",
	  .tag = "fleet",
	  .summary = "What differs now from the fleet document applied last "
	    "(drift)",
	  .description = "The plan, now, of the document fleet_apply "
	    "applied last (who and when), of one cluster when asked: a "
	    "change made outside Slipway shows here as in fleet_plan; "
	    "applied is false when no document was applied.",
	  .params = f_fleet_drift,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_fleet_drift,
	},
	{
	  .name = "fleet_drift_recorded",
	  .method = "GET",
	  .path = "/api/v1/fleet/drift/recorded",
	  .tag = "fleet",
	  .summary = "The drift the poller recorded, with when Slipway first "
	    "saw each difference",
	  .description = "Once per poll interval the poller reads each "
	    "cluster of the document fleet_apply applied last in its own "
	    "account and region and records each instance group whose type "
	    "or count differs (or that is gone) and each feature the "
	    "document turns on whose EKS add-on is gone, keeping when it was "
	    "first seen; read here from the state store alone, without reading "
	    "live state or planning. Who made a change is not known. "
	    "fleet_drift plans everything (features, team access, scheduler "
	    "config, quotas) now.",
	  .params = f_fleet_drift,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_fleet_drift_recorded,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_fleet = { rows,
	sizeof(rows) / sizeof(rows[0]) };
