/*
 * costs.c: the operation table's row for the usage ledger (what ran
 * and what it cost), beside the fields it reads and the answer it
 * sends.  Plans carry their own cost (the Cost shape, shapes.c).
 */
#include "api/optable.h"
#include "api/ops/ops.h"

#define PAT_DAY		"[0-9]{4}-[0-9]{2}-[0-9]{2}"
#define PAT_LEDGER_COL	"(day|cluster|instance_group|instance_type|team|job)"

static const char *const ledger_formats[] = { "json", "csv", NULL };

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

/* ---- answers -------------------------------------------------------- */

#define F_LEDGER_SUMS							\
	OUT("node_hours", SW_T_NUMBER, "Node-hours."),			\
	{ .name = "node_usd", .type = SW_T_NUMBER,			\
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,			\
	  .desc = "Their on-demand cost (null: a type with no price)." }, \
	OUT("gpu_hours", SW_T_NUMBER, "GPU-hours jobs held."),		\
	{ .name = "gpu_usd", .type = SW_T_NUMBER,			\
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,			\
	  .desc = "Their share of the nodes' cost." },			\
	OUT("idle_gpu_hours", SW_T_NUMBER, "GPU-hours no job held."),	\
	{ .name = "idle_gpu_usd", .type = SW_T_NUMBER,			\
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,			\
	  .desc = "Their share of the nodes' cost." },			\
	{ .name = "usd", .type = SW_T_NUMBER,				\
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,			\
	  .desc = "What the nodes cost (held and idle GPUs are its "	\
	  "parts)." }
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
static const struct sw_field o_ledger_item[] = {
	{ .name = "row", .type = SW_T_OBJECT, .fields = o_ledger_row },
};
static const struct sw_field o_ledger_totals[] = {
	F_LEDGER_SUMS,
	{ NULL }
};
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
static const struct sw_answer a_ledger[] = {
	{ .status = 200, .fields = o_ledger, .desc = "The ledger, summed." },
	{ .status = 200, .media = "text/csv",
	  .desc = "The same rows as CSV (RFC 4180, a header line)." },
	{ 0 }
};

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
	  .answers = a_ledger,
	},
};

const struct sw_op_family sw_ops_costs = {
	rows, sizeof(rows) / sizeof(rows[0])
};
