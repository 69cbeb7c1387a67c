/*
 * shapes.c: the shapes of answers that more than one operation sends,
 * defined once: the problem document, an operation as it is read,
 * waited on, listed and accepted, and the plan a dry run answers with.
 * The OpenAPI document lists them under components/schemas; answer
 * rows name them (struct sw_answer's .shape).
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const struct sw_field problem_error[] = {
	OUT("field", SW_T_STRING, "The field, as a JSON path (a.b[1].c)."),
	OUT("rule", SW_T_STRING, "The rule it breaks (required, type, "
	    "pattern, enum, unknown...)."),
	OUT("message", SW_T_STRING, "The rule in words."),
	{ NULL }
};
static const struct sw_field problem_error_item[] = {
	{ .name = "error", .type = SW_T_OBJECT, .fields = problem_error },
};
static const struct sw_field problem[] = {
	{ .name = "type", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .pattern = "/problems/[a-z-]+",
	  .desc = "/problems/<slug>: validation, malformed-json, "
	  "unauthorized, forbidden, not-found, method-not-allowed, "
	  "conflict, busy, too-large, unsupported-media-type, "
	  "precondition, throttled, out-of-memory, state-store, internal, "
	  "upstream, unavailable or timeout." },
	OUT("title", SW_T_STRING, "The type in words."),
	{ .name = "status", .type = SW_T_INT, .flags = SW_F_REQUIRED,
	  .min = 400, .max = 599, .desc = "The HTTP status." },
	OUT_OPT("detail", SW_T_STRING, "What went wrong here."),
	OUT_OPT("instance", SW_T_STRING, "The request's path."),
	{ .name = "errors", .type = SW_T_ARRAY, .items = problem_error_item,
	  .desc = "Each field refused, with its rule." },
	{ NULL }
};

static const char *const op_states[] = {
	"pending", "running", "succeeded", "failed", "cancelled", NULL
};

static const struct sw_field stage[] = {
	OUT("seq", SW_T_INT, "Position in the pipeline, from 0."),
	OUT("name", SW_T_STRING, "The stage."),
	OUT("state", SW_T_STRING, "pending, running, succeeded, failed "
	    "or skipped."),
	OUT("attempts", SW_T_INT, "Runs so far."),
	OUT_OPT("started_ms", SW_T_INT, "When it first ran (ms since the "
	    "epoch)."),
	OUT_OPT("finished_ms", SW_T_INT, "When it ended."),
	OUT("resources", SW_T_ANY, "What the stage made or found, as it "
	    "recorded them (ids and ARNs by name)."),
	OUT_OPT("error", SW_T_STRING, "Why it failed."),
	{ NULL }
};
static const struct sw_field stage_item[] = {
	{ .name = "stage", .type = SW_T_OBJECT, .fields = stage },
};
static const struct sw_field event[] = {
	OUT("id", SW_T_INT, "Event id, increasing."),
	OUT("time_ms", SW_T_INT, "When (ms since the epoch)."),
	OUT_OPT("stage", SW_T_INT, "The stage's seq."),
	OUT("level", SW_T_STRING, "info, warn or error."),
	OUT("message", SW_T_STRING, "What happened."),
	OUT_OPT("data", SW_T_ANY, "Details, as recorded."),
	{ NULL }
};
static const struct sw_field event_item[] = {
	{ .name = "event", .type = SW_T_OBJECT, .fields = event },
};

/* The members of every operation read from the store; params only
 * where the operation is read back, not in a 202. */
#define F_OP_COMMON							\
	{ .name = "id", .type = SW_T_STRING, .flags = SW_F_REQUIRED,	\
	  .pattern = PAT_OP_ID, .desc = "Operation id." },		\
	OUT("kind", SW_T_STRING, "What it does (cluster.create...)."),	\
	OUT("target", SW_T_STRING, "What it acts on."),			\
	OUT_OPT("cluster", SW_T_STRING, "The cluster, when it acts on "	\
	    "one."),							\
	{ .name = "state", .type = SW_T_STRING, .flags = SW_F_REQUIRED,	\
	  .enumv = op_states, .desc = "Where it is." },			\
	OUT("requested_by", SW_T_STRING, "The token name that asked."),	\
	OUT("created_ms", SW_T_INT, "When it was asked for."),		\
	OUT("updated_ms", SW_T_INT, "When it last changed."),		\
	OUT_OPT("result", SW_T_ANY, "What it produced, once succeeded."), \
	OUT_OPT("error", SW_T_STRING, "Why it failed."),		\
	OUT("cancel_requested", SW_T_BOOL, "A cancel was asked for."),	\
	OUT_OPT("idempotency_key", SW_T_STRING, "The Idempotency-Key it "	\
	    "was started with."),					\
	OUT("due_ms", SW_T_INT, "When the poller takes it up next.")
#define F_OP_PARAMS							\
	OUT("params", SW_T_ANY, "The validated request it runs.")
#define F_OP_STAGES							\
	{ .name = "stages", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,	\
	  .items = stage_item, .desc = "Its stages, in order." }

static const struct sw_field operation_summary[] = {
	F_OP_COMMON,
	F_OP_PARAMS,
	{ NULL }
};
const struct sw_field sw_op_summary_item[] = {
	{ .name = "operation", .type = SW_T_OBJECT,
	  .fields = operation_summary },
};
static const struct sw_field operation[] = {
	F_OP_COMMON,
	F_OP_PARAMS,
	F_OP_STAGES,
	{ .name = "events", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = event_item, .desc = "Its events, oldest first (at most "
	  "SW_MAX_EVENTS after since_event)." },
	{ NULL }
};
static const struct sw_field operation_waited[] = {
	F_OP_COMMON,
	F_OP_PARAMS,
	F_OP_STAGES,
	OUT("terminal", SW_T_BOOL, "It has ended (succeeded, failed or "
	    "cancelled)."),
	OUT("timed_out", SW_T_BOOL, "The wait ended with no change."),
	{ NULL }
};
static const struct sw_field accepted[] = {
	F_OP_COMMON,
	F_OP_STAGES,
	{ .name = "operation_id", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED, .pattern = PAT_OP_ID,
	  .desc = "The operation to follow (as id)." },
	OUT("status_tool", SW_T_STRING, "The tool that says when it is "
	    "done."),
	OUT("poll_interval_seconds", SW_T_INT, "How often to ask."),
	OUT("idempotent_replay", SW_T_BOOL, "The same Idempotency-Key and "
	    "request started it before: this is that operation."),
	{ NULL }
};
static const struct sw_field operation_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = sw_op_summary_item, .desc = "Newest first." },
	OUT_OPT("next", SW_T_STRING, "The cursor of the next page; absent "
	    "on the last."),
	{ NULL }
};

/* A pipeline's plan: the calls its stages would make, in order. */
static const struct sw_field plan_call[] = {
	OUT("stage", SW_T_STRING, "The stage that would make it."),
	OUT_OPT("service", SW_T_STRING, "The AWS service (or slipway)."),
	OUT_OPT("operation", SW_T_STRING, "The API call."),
	OUT_OPT("input", SW_T_ANY, "Its input."),
	OUT_OPT("kubernetes", SW_T_STRING, "apply or delete, for a "
	    "Kubernetes object."),
	OUT_OPT("apiVersion", SW_T_STRING, "The object's apiVersion."),
	OUT_OPT("kind", SW_T_STRING, "The object's kind."),
	OUT_OPT("namespace", SW_T_STRING, "The object's namespace."),
	OUT_OPT("name", SW_T_STRING, "The object's name."),
	OUT_OPT("refused", SW_T_STRING, "Why the stage would fail: the "
	    "plan stops here."),
	{ NULL }
};
static const struct sw_field plan_call_item[] = {
	{ .name = "call", .type = SW_T_OBJECT, .fields = plan_call },
};
static const struct sw_field plan_wait[] = {
	OUT("stage", SW_T_STRING, "The stage that would wait."),
	OUT("wait", SW_T_STRING, "What for."),
	{ NULL }
};
static const struct sw_field plan_wait_item[] = {
	{ .name = "wait", .type = SW_T_OBJECT, .fields = plan_wait },
};
static const struct sw_field plan_stage_item[] = {
	{ .name = "stage", .type = SW_T_STRING },
};
static const struct sw_field plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true: nothing was changed."),
	OUT("kind", SW_T_STRING, "The operation kind it would start."),
	OUT("target", SW_T_STRING, "What it would act on."),
	OUT("params", SW_T_ANY, "The validated request."),
	{ .name = "calls", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = plan_call_item, .desc = "The calls, in order." },
	{ .name = "waits", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = plan_wait_item, .desc = "The waits between them." },
	{ .name = "stages", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = plan_stage_item, .desc = "The stages it would run." },
	{ NULL }
};

const struct sw_shape sw_shapes[] = {
	{ "Problem", "An RFC 9457 problem document: every failed request "
	  "answers with one (application/problem+json).", problem },
	{ "Operation", "An operation with its stages and events.",
	  operation },
	{ "OperationWaited", "An operation after a wait: stages, and "
	  "whether it ended or the wait timed out.", operation_waited },
	{ "OperationList", "A page of operations.", operation_list },
	{ "Accepted", "The operation a request started (202), with how to "
	  "follow it; a Location header names it.", accepted },
	{ "Plan", "What a long operation would do (dry_run=true): its "
	  "calls and waits; nothing is changed.", plan },
	{ NULL, NULL, NULL }
};
