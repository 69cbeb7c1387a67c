/*
 * operations.c: the operation table's rows for operations: listing,
 * reading, waiting on, retrying and cancelling them, each beside the
 * fields it reads.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/* clang-format off */
static const struct sw_field f_op_id[] = {
	{ .name = "id", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "Operation id (op-...)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_op_get[] = {
	{ .name = "id", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "Operation id (op-...)." },
	{ .name = "since_event", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .max = 9007199254740991LL, .desc = "Only events with a larger id." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_op_wait[] = {
	{ .name = "id", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "Operation id (op-...)." },
	{ .name = "timeout", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = SW_MAX_WAIT,
	  .dflt = "20",
	  .desc = "Seconds to wait for a change (default 20)." },
	{ .name = "since_updated_ms", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .max = 9007199254740991LL,
	  .desc = "Return as soon as the operation changed after this time "
	  "(its updated_ms from a previous answer)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_op_list[] = {
	{ .name = "kind", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 64, .pattern = "[a-z_.]+",
	  .desc = "Only operations of this kind." },
	{ .name = "state", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = op_states, .desc = "Only operations in this state." },
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 100, .pattern = PAT_NAME,
	  .desc = "Only operations on this cluster." },
	{ .name = "requested_by", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .pattern = PAT_TOKEN_NAME,
	  .desc = "Only operations asked for by this token name." },
	{ .name = "limit", .type = SW_T_INT, .flags = SW_F_QUERY, .min = 1,
	  .max = SW_MAX_PAGE, .dflt = "50",
	  .desc = "Page size (default 50)." },
	{ .name = "cursor", .type = SW_T_STRING, .flags = SW_F_QUERY, .min = 1,
	  .max = 64, .pattern = "[0-9]+\\.op-[0-9a-f]{16}",
	  .desc = "The 'next' value of the previous page." },
	{ NULL }
};
/* clang-format on */

/* ---- answers -------------------------------------------------------- */

/* clang-format off */
static const struct sw_answer a_op_list[] = {
	ANSWER(200, "OperationList", "A page of operations, newest first."),
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_op_get[] = {
	ANSWER(200, "Operation", "The operation, its stages and events."),
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_op_wait[] = {
	ANSWER(200, "OperationWaited", "The operation once it changed, "
	    "ended or the wait timed out."),
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_op_restart[] = {
	ANSWER(202, "Accepted", "The operation, queued again."),
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_op_cancel[] = {
	ANSWER(202, "Accepted", "Cancel asked for: the poller stops it at "
	    "its next step."),
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "operation_list",
	  .method = "GET",
	  .path = "/api/v1/operations",
	  .tag = "operations",
	  .summary = "List operations, newest first",
	  .description = "Every change Slipway makes is an operation; filter "
	    "by kind, state, cluster or the token that asked.",
	  .params = f_op_list,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_op_list,
	},
	{
	  .name = "operation_get",
	  .method = "GET",
	  .path = "/api/v1/operations/{id}",
	  .tag = "operations",
	  .summary = "One operation with its stages and events",
	  .description = "State is pending, running, succeeded, failed or "
	    "cancelled; each stage shows the resources it created.",
	  .params = f_op_get,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_op_get,
	},
	{
	  .name = "operation_wait",
	  .method = "GET",
	  .path = "/api/v1/operations/{id}:wait",
	  .tag = "operations",
	  .summary = "Wait (bounded) until an operation changes",
	  .description = "Long-polls up to 'timeout' seconds and returns the "
	    "operation as soon as it changes or ends. Use it instead of "
	    "sleeping. A token holds at most a few waits at once; past "
	    "that the answer is 429 with Retry-After.",
	  .params = f_op_wait,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT | SW_OP_LONG_POLL |
	    SW_OP_PROGRESS,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_op_wait,
	},
	{
	  .name = "operation_retry",
	  .method = "POST",
	  .path = "/api/v1/operations/{id}:retry",
	  .tag = "operations",
	  .summary = "Retry a failed or cancelled operation",
	  .description = "Runs the failed stage again and the ones after it; "
	    "stages that succeeded are not repeated.",
	  .params = f_op_id,
	  .flags = 0,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 5,
	  .answers = a_op_restart,
	},
	{
	  .name = "operation_cancel",
	  .method = "POST",
	  .path = "/api/v1/operations/{id}:cancel",
	  .tag = "operations",
	  .summary = "Cancel an operation",
	  .description = "A pending operation ends at once; a running one "
	    "stops at the next stage boundary.",
	  .params = f_op_id,
	  .flags = SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 5,
	  .answers = a_op_cancel,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_operations = { rows,
	sizeof(rows) / sizeof(rows[0]) };
