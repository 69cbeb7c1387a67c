/*
 * costs.c: the operation table's rows for the usage ledger (what ran
 * and what it cost) and the monthly budgets kept against it, beside
 * the fields they read and the answers they send.  Plans carry their
 * own cost (the Cost shape, shapes.c).
 */
#include "api/optable.h"
#include "api/ops/ops.h"
#include "lib/budget.h"

#define PAT_DAY "[0-9]{4}-[0-9]{2}-[0-9]{2}"
#define PAT_LEDGER_COL "(day|cluster|instance_group|instance_type|team|job)"

static const char *const ledger_formats[] = { "json", "csv", NULL };

/* clang-format off */
static const struct sw_field f_cost_ledger[] = {
	{ .name = "from", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 10,
	  .max = 10, .pattern = PAT_DAY,
	  .desc = "First day, YYYY-MM-DD (UTC; default 6 days before to)." },
	{ .name = "to", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 10,
	  .max = 10, .pattern = PAT_DAY,
	  .desc = "Last day, YYYY-MM-DD (UTC; default today)." },
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 2, .max = 32, .pattern = PAT_CLUSTER,
	  .desc = "Only this cluster." },
	{ .name = "team", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 63, .pattern = "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
	  .desc = "Only this team's GPU-hours." },
	{ .name = "group_by", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 3, .max = 80,
	  .pattern = PAT_LEDGER_COL "(," PAT_LEDGER_COL ")*",
	  .dflt = "day",
	  .desc = "Columns to sum by, comma-separated: day, cluster, "
	  "instance_group, instance_type, team, job (default day)." },
	{ .name = "format", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = ledger_formats, .dflt = "json",
	  .desc = "json (default) or csv." },
	{ NULL }
};
/* clang-format on */

/* ---- answers -------------------------------------------------------- */

#define F_LEDGER_SUMS \
	OUT("node_hours", SW_T_NUMBER, "Node-hours."), \
	    { .name = "node_usd", \
		    .type = SW_T_NUMBER, \
		    .flags = SW_F_REQUIRED | SW_F_NULLABLE, \
		    .desc = \
			"Their on-demand cost (null: a type with no price)." }, \
	    OUT("gpu_hours", SW_T_NUMBER, "GPU-hours jobs held."), \
	    { .name = "gpu_usd", \
		    .type = SW_T_NUMBER, \
		    .flags = SW_F_REQUIRED | SW_F_NULLABLE, \
		    .desc = "Their share of the nodes' cost." }, \
	    OUT("idle_gpu_hours", SW_T_NUMBER, "GPU-hours no job held."), \
	    { .name = "idle_gpu_usd", \
		    .type = SW_T_NUMBER, \
		    .flags = SW_F_REQUIRED | SW_F_NULLABLE, \
		    .desc = "Their share of the nodes' cost." }, \
	{ \
		.name = "usd", .type = SW_T_NUMBER, \
		.flags = SW_F_REQUIRED | SW_F_NULLABLE, \
		.desc = "What the nodes cost (held and idle GPUs are its " \
			"parts)." \
	}
/* clang-format off */
static const struct sw_field o_ledger_row[] = {
	OUT_OPT("day", SW_T_STRING, "The day (UTC)."),
	OUT_OPT("cluster", SW_T_STRING, "The cluster."),
	OUT_OPT("instance_group", SW_T_STRING, "The instance group."),
	OUT_OPT("instance_type", SW_T_STRING, "The instance type."),
	OUT_OPT("team", SW_T_STRING, "The team (empty: nodes and idle "
	    "GPUs)."),
	OUT_OPT("job", SW_T_STRING, "The job (empty: nodes and idle GPUs)."),
	F_LEDGER_SUMS,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ledger_item[] = {
	{ .name = "row", .type = SW_T_OBJECT, .fields = o_ledger_row },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ledger_totals[] = {
	F_LEDGER_SUMS,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_ledger[] = {
	OUT("from", SW_T_STRING, "First day."),
	OUT("to", SW_T_STRING, "Last day."),
	OUT("currency", SW_T_STRING, "USD."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ledger_item, .desc = "One per group of the group_by "
	  "columns." },
	{ .name = "totals", .type = SW_T_OBJECT, .flags = SW_F_REQUIRED,
	  .fields = o_ledger_totals, .desc = "The sums of every row." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_ledger[] = {
	{ .status = 200, .fields = o_ledger, .desc = "The ledger, summed." },
	{ .status = 200, .media = "text/csv",
	  .desc = "The same rows as CSV (RFC 4180, a header line)." },
	{ 0 }
};
/* clang-format on */

/* ---- budgets -------------------------------------------------------- */

static const char *const budget_scopes[] = { "team", "cluster", NULL };

#define F_BUDGET_SCOPE(fl) \
	{ \
		.name = "scope", .type = SW_T_STRING, .flags = (fl), \
		.enumv = budget_scopes, \
		.desc = "team (its workloads' GPU " \
			"share, every cluster) or cluster (its nodes)." \
	}

/* clang-format off */
static const struct sw_field f_budget_path[] = {
	F_BUDGET_SCOPE(SW_F_PATH | SW_F_REQUIRED),
	{ .name = "name", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_NAME,
	  .desc = "The team (namespace without hyperpod-ns-) or the "
	  "cluster." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_budget_list[] = {
	F_BUDGET_SCOPE(SW_F_QUERY),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_threshold_item[] = {
	{ .name = "threshold", .type = SW_T_INT, .min = 1, .max = 1000,
	  .desc = "Percent of the limit." },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_budget_set[] = {
	{ .name = "limit_usd", .type = SW_T_NUMBER, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 1000000000,
	  .desc = "What the month may cost, US dollars." },
	{ .name = "thresholds", .type = SW_T_ARRAY, .min = 1,
	  .max = SW_BUDGET_MAX_THRESHOLDS, .items = f_threshold_item,
	  .desc = "Percents of the limit that alert when what was spent "
	  "reaches them, ascending (default 50, 80, 100)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_budget_alert[] = {
	OUT("threshold", SW_T_INT, "Percent of the limit."),
	OUT("crossed_at", SW_T_STRING, "When the ledger first showed it "
	    "reached (RFC 3339, the ledger's clock)."),
	OUT("spent_usd", SW_T_NUMBER, "What was spent then."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_budget_alert_item[] = {
	{ .name = "alert", .type = SW_T_OBJECT, .fields = o_budget_alert },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_budget[] = {
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = budget_scopes, .desc = "team or cluster." },
	OUT("name", SW_T_STRING, "The team or cluster."),
	OUT("limit_usd", SW_T_NUMBER, "What the month may cost."),
	{ .name = "thresholds", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = f_threshold_item, .desc = "Percents that alert." },
	OUT("month", SW_T_STRING, "The month, YYYY-MM (UTC, the ledger's "
	    "clock)."),
	OUT("as_of", SW_T_STRING, "The ledger's clock: its newest sample "
	    "(RFC 3339)."),
	OUT("month_end", SW_T_STRING, "The month's end (RFC 3339)."),
	OUT("remaining_seconds", SW_T_INT, "From as_of to month_end."),
	OUT("spent_usd", SW_T_NUMBER, "The month so far, from the ledger."),
	OUT("percent", SW_T_NUMBER, "spent_usd of limit_usd, percent."),
	OUT("burn_usd_per_hour", SW_T_NUMBER, "What it costs an hour now: "
	    "the nodes (or the team's GPUs) of the last sample."),
	OUT("forecast_usd", SW_T_NUMBER, "At the month's end if it burns "
	    "on: spent_usd + burn_usd_per_hour x the hours left."),
	OUT("forecast_percent", SW_T_NUMBER, "forecast_usd of limit_usd, "
	    "percent."),
	OUT("unpriced", SW_T_BOOL, "Some usage has no price (AWS lists "
	    "none): spent_usd leaves it out."),
	{ .name = "alerts", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_budget_alert_item, .desc = "The thresholds crossed "
	  "this month, each once." },
	OUT("created_ms", SW_T_INT, "When it was first set."),
	OUT("updated_ms", SW_T_INT, "When it was last set."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_budget_item[] = {
	{ .name = "budget", .type = SW_T_OBJECT, .fields = o_budget },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_budget_list[] = {
	OUT("month", SW_T_STRING, "The month, YYYY-MM (the ledger's clock)."),
	OUT("as_of", SW_T_STRING, "The ledger's clock (RFC 3339)."),
	OUT("currency", SW_T_STRING, "USD."),
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_budget_item, .desc = "Every budget, by scope and "
	  "name." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_budget_deleted[] = {
	{ .name = "scope", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = budget_scopes, .desc = "team or cluster." },
	OUT("name", SW_T_STRING, "The team or cluster."),
	OUT("deleted", SW_T_BOOL, "Always true."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_budget_list[] = {
	{ .status = 200, .fields = o_budget_list, .desc = "The budgets." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_budget_get[] = {
	{ .status = 200, .fields = o_budget, .desc = "The budget now." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_budget_set[] = {
	{ .status = 201, .fields = o_budget, .desc = "Set for the first "
	  "time." },
	{ .status = 200, .fields = o_budget, .desc = "Changed." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_budget_delete[] = {
	{ .status = 200, .fields = o_budget_deleted, .desc = "Removed, with "
	  "the alerts it crossed." },
	{ 0 }
};
/* clang-format on */

#define BUDGET_ABOUT \
	" A budget is monthly and soft: it alerts, it stops " \
	"nothing.  Spent is the ledger's cost of the month so far (UTC, by " \
	"the clock of AWS's answers); the forecast adds the burn rate of " \
	"the last sample until the month's end."

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "cost_ledger",
	  .method = "GET",
	  .path = "/api/v1/costs/ledger",
	  .tag = "costs",
	  .summary = "Node-hours, GPU-hours per team and job, idle GPU-hours, "
	    "and their cost",
	  .description = "What ran, from the ledger the poller keeps by "
	    "sampling every cluster Slipway owns: node-hours per instance "
	    "group and type, GPU-hours each team's jobs held (team: the "
	    "namespace without hyperpod-ns-), GPU-hours no job held "
	    "(idle_gpu), each priced at the type's on-demand price from the "
	    "AWS Price List API (null when AWS lists none).  Summed by the "
	    "group_by columns over the days from..to (UTC; default the last "
	    "7), as JSON or CSV.",
	  .params = f_cost_ledger,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_ledger,
	},
	{
	  .name = "budget_list",
	  .method = "GET",
	  .path = "/api/v1/budgets",
	  .tag = "costs",
	  .summary = "Monthly budgets: spent, forecast and alerts crossed",
	  .description = "Every budget (of one scope when asked) with what "
	    "its team or cluster spent this month, its forecast to the "
	    "month's end and the thresholds it crossed." BUDGET_ABOUT,
	  .params = f_budget_list,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_budget_list,
	},
	{
	  .name = "budget_get",
	  .method = "GET",
	  .path = "/api/v1/budgets/{scope}/{name}",
	  .tag = "costs",
	  .summary = "One budget: spent, forecast and alerts crossed",
	  .description = "404 when none is set." BUDGET_ABOUT,
	  .params = f_budget_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_budget_get,
	},
	{
	  .name = "budget_set",
	  .method = "PUT",
	  .path = "/api/v1/budgets/{scope}/{name}",
	  .tag = "costs",
	  .summary = "Set a team's or a cluster's monthly budget",
	  .description = "Creates or replaces it; thresholds already "
	    "crossed this month stay crossed, and each alerts once a "
	    "month.  The poller sets every budget against the ledger after "
	    "each sample." BUDGET_ABOUT,
	  .params = f_budget_path,
	  .body = f_budget_set,
	  .flags = SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_budget_set,
	},
	{
	  .name = "budget_delete",
	  .method = "DELETE",
	  .path = "/api/v1/budgets/{scope}/{name}",
	  .tag = "costs",
	  .summary = "Remove a budget",
	  .description = "Its alerts go with it; 404 when none is set.",
	  .params = f_budget_path,
	  .flags = SW_OP_DESTRUCTIVE,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_budget_delete,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_costs = { rows,
	sizeof(rows) / sizeof(rows[0]) };
