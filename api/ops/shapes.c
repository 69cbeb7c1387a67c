/*
 * shapes.c: the shapes of answers that more than one operation sends,
 * defined once: the problem document, an operation as it is read,
 * waited on, listed and accepted, and the plan a dry run answers with.
 * The OpenAPI document lists them under components/schemas; answer
 * rows name them (struct sw_answer's .shape).
 */
#include "api/optable.h"
#include "api/ops/ops.h"

/* clang-format off */
static const struct sw_field problem_error[] = {
	OUT("field", SW_T_STRING, "The field, as a JSON path (a.b[1].c)."),
	OUT("rule", SW_T_STRING, "The rule it breaks (required, type, "
	    "pattern, enum, unknown...)."),
	OUT("message", SW_T_STRING, "The rule in words."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field problem_error_item[] = {
	{ .name = "error", .type = SW_T_OBJECT, .fields = problem_error },
};
/* clang-format on */
/* clang-format off */
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
/* clang-format on */

/* clang-format off */
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
/* clang-format on */
/* clang-format off */
const struct sw_field sw_stage_item[] = {
	{ .name = "stage", .type = SW_T_OBJECT, .fields = stage },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field event[] = {
	OUT("id", SW_T_INT, "Event id, increasing."),
	OUT("time_ms", SW_T_INT, "When (ms since the epoch)."),
	OUT_OPT("stage", SW_T_INT, "The stage's seq."),
	OUT("level", SW_T_STRING, "info, warn or error."),
	OUT("message", SW_T_STRING, "What happened."),
	OUT_OPT("data", SW_T_ANY, "Details, as recorded."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
const struct sw_field sw_event_item[] = {
	{ .name = "event", .type = SW_T_OBJECT, .fields = event },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field operation_summary[] = {
	F_OP_COMMON,
	F_OP_PARAMS,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
const struct sw_field sw_op_summary_item[] = {
	{ .name = "operation", .type = SW_T_OBJECT,
	  .fields = operation_summary },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field operation[] = {
	F_OP_COMMON,
	F_OP_PARAMS,
	F_OP_STAGES,
	{ .name = "events", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = sw_event_item, .desc = "Its events, oldest first (at most "
	  "SW_MAX_EVENTS after since_event)." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field operation_waited[] = {
	F_OP_COMMON,
	F_OP_PARAMS,
	F_OP_STAGES,
	OUT("terminal", SW_T_BOOL, "It has ended (succeeded, failed or "
	    "cancelled)."),
	OUT("timed_out", SW_T_BOOL, "The wait ended with no change."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field accepted[] = {
	F_ACCEPTED,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field operation_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = sw_op_summary_item, .desc = "Newest first." },
	OUT_OPT("next", SW_T_STRING, "The cursor of the next page; absent "
	    "on the last."),
	{ NULL }
};
/* clang-format on */

/* A pipeline's plan: the calls its stages would make, in order. */
/* clang-format off */
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
/* clang-format on */
/* clang-format off */
const struct sw_field sw_plan_call_item[] = {
	{ .name = "call", .type = SW_T_OBJECT, .fields = plan_call },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field plan_wait[] = {
	OUT("stage", SW_T_STRING, "The stage that would wait."),
	OUT("wait", SW_T_STRING, "What for."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
const struct sw_field sw_plan_wait_item[] = {
	{ .name = "wait", .type = SW_T_OBJECT, .fields = plan_wait },
};
/* clang-format on */
/* clang-format off */
const struct sw_field sw_plan_stage_item[] = {
	{ .name = "stage", .type = SW_T_STRING },
};
/* clang-format on */
/* A pod's last log lines (training_job_logs, inference_logs) and the
 * training metrics read from them (handlers/logs.c). */
/* clang-format off */
const struct sw_field sw_log_metrics[] = {
	OUT_OPT("step", SW_T_INT, "The last step logged."),
	OUT_OPT("max_steps", SW_T_INT, "Steps in all."),
	OUT_OPT("progress", SW_T_NUMBER, "step / max_steps."),
	OUT_OPT("loss", SW_T_NUMBER, "The last loss logged."),
	OUT_OPT("tokens_per_second", SW_T_NUMBER, "The last throughput."),
	OUT_OPT("mean_tokens_per_second", SW_T_NUMBER, "Its mean."),
	OUT("samples", SW_T_INT, "Throughput lines read."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_line_item[] = {
	{ .name = "line", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_pod_log[] = {
	OUT_OPT("pod", SW_T_STRING, "Pod name."),
	OUT_OPT("phase", SW_T_STRING, "Its phase."),
	{ .name = "lines", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_line_item, .desc = "Its last lines." },
	OUT("truncated", SW_T_BOOL, "The log was longer than was read."),
	OUT_OPT("error", SW_T_STRING, "Why it could not be read."),
	{ .name = "metrics", .type = SW_T_OBJECT, .fields = sw_log_metrics,
	  .desc = "Training metrics read from its lines." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
const struct sw_field sw_pod_log_item[] = {
	{ .name = "pod", .type = SW_T_OBJECT, .fields = o_pod_log },
};
/* clang-format on */
/* Why a workload waits (handlers/pending.c). */
/* clang-format off */
const struct sw_field sw_pending_fields[] = {
	OUT_OPT("queue", SW_T_STRING, "Its Kueue LocalQueue."),
	OUT_OPT("cluster_queue", SW_T_STRING, "The team's ClusterQueue."),
	OUT_OPT("position", SW_T_INT, "Its place in the queue (1 = next)."),
	OUT_OPT("admitted", SW_T_BOOL, "Kueue admitted it."),
	OUT("reason", SW_T_STRING, "NeverFits, NoSuchQueue, QuotaInUse, "
	    "BorrowingLimitReached, WaitingForHigherPriority, Preempted, "
	    "PreemptingOthers, NoNodeFits, ImagePull, CrashLoop or "
	    "Starting."),
	OUT("message", SW_T_STRING, "Why, in plain words."),
	OUT("next_step", SW_T_STRING, "What to do about it."),
	OUT_OPT("detail", SW_T_STRING, "Kueue's, the scheduler's or the "
	    "kubelet's own words."),
	{ NULL }
};
/* clang-format on */

/* What a plan adds per hour, or a cluster costs (handlers/cost.c). */
/* clang-format off */
static const struct sw_field cost_plan_ref[] = {
	OUT("arn", SW_T_STRING, "The training plan's ARN."),
	OUT_OPT("name", SW_T_STRING, "Its name."),
	OUT_OPT("upfront_fee", SW_T_NUMBER, "What it cost up front."),
	OUT_OPT("currency", SW_T_STRING, "The fee's currency."),
	OUT_OPT("end_time", SW_T_ANY, "When its capacity ends."),
	OUT_OPT("why", SW_T_STRING, "Why it could not be read."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field cost_line[] = {
	OUT("group", SW_T_STRING, "The instance group."),
	OUT("instance_type", SW_T_STRING, "Its instance type."),
	OUT("capacity_type", SW_T_STRING, "on-demand, spot or "
	    "training-plan."),
	OUT("count_now", SW_T_INT, "Instances it has now."),
	OUT("count_after", SW_T_INT, "Instances it has after."),
	OUT("price", SW_T_STRING, "priced, unknown or training-plan."),
	OUT_OPT("usd_per_hour_each", SW_T_NUMBER, "One instance's on-demand "
	    "price per hour."),
	OUT_OPT("sku", SW_T_STRING, "The Price List SKU."),
	OUT_OPT("published", SW_T_STRING, "The price list's publication "
	    "date."),
	OUT_OPT("why", SW_T_STRING, "Why the price is unknown."),
	{ .name = "training_plan", .type = SW_T_OBJECT,
	  .fields = cost_plan_ref, .desc = "The plan its capacity comes "
	  "from." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field cost_line_item[] = {
	{ .name = "line", .type = SW_T_OBJECT, .fields = cost_line },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field cost_unknown_item[] = {
	{ .name = "instance_type", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
const struct sw_field sw_cost_fields[] = {
	OUT("currency", SW_T_STRING, "USD."),
	OUT("complete", SW_T_BOOL, "Every line has a price; when false the "
	    "sums are null (unknown, never zero)."),
	{ .name = "added_per_hour", .type = SW_T_NUMBER,
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,
	  .desc = "What the change adds per hour (negative: saves)." },
	{ .name = "added_per_day", .type = SW_T_NUMBER,
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,
	  .desc = "The same per day." },
	{ .name = "cluster_per_hour", .type = SW_T_NUMBER,
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,
	  .desc = "What the cluster costs per hour after it." },
	{ .name = "lines", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = cost_line_item, .desc = "One per instance group." },
	{ .name = "unknown", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = cost_unknown_item, .desc = "Types with no known price." },
	OUT("region", SW_T_STRING, "Whose prices."),
	OUT("source", SW_T_STRING, "Where the prices come from."),
	OUT("excludes", SW_T_STRING, "What is not counted."),
	{ NULL }
};
/* clang-format on */

/* What an endpoint costs (handlers/cost.c h_endpoint_cost). */
/* clang-format off */
const struct sw_field sw_endpoint_cost_fields[] = {
	OUT("currency", SW_T_STRING, "USD."),
	OUT("complete", SW_T_BOOL, "Its price is known; when false the "
	    "sums are null (unknown, never zero) and why says why."),
	{ .name = "added_per_hour", .type = SW_T_NUMBER,
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,
	  .desc = "What its GPUs cost per hour: their share of their "
	  "nodes' on-demand price (a whole instance per replica for "
	  "JumpStart)." },
	{ .name = "added_per_day", .type = SW_T_NUMBER,
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,
	  .desc = "The same per day." },
	{ .name = "cluster_per_hour", .type = SW_T_NUMBER,
	  .flags = SW_F_REQUIRED | SW_F_NULLABLE,
	  .desc = "What the cluster's nodes cost per hour (the same with "
	  "or without the endpoint)." },
	OUT("replicas", SW_T_INT, "Replicas counted (an autoscaler's "
	    "minimum)."),
	OUT_OPT("gpus", SW_T_INT, "GPUs it holds (replicas x GPUs each); "
	    "absent when a JumpStart model's type is unknown."),
	OUT_OPT("instance_type", SW_T_STRING, "The type its replicas run "
	    "on."),
	OUT_OPT("gpus_per_instance", SW_T_INT, "That type's GPUs."),
	OUT_OPT("usd_per_hour_each", SW_T_NUMBER, "One instance's "
	    "on-demand price per hour."),
	OUT_OPT("sku", SW_T_STRING, "The Price List SKU."),
	OUT_OPT("published", SW_T_STRING, "The price list's publication "
	    "date."),
	OUT_OPT("why", SW_T_STRING, "Why the price is unknown."),
	OUT("region", SW_T_STRING, "Whose prices."),
	OUT("source", SW_T_STRING, "Where the prices come from."),
	OUT("basis", SW_T_STRING, "How it is counted."),
	{ NULL }
};
/* clang-format on */

/* An offering: a new plan's or an extension's. */
/* clang-format off */
const struct sw_field sw_offering_fields[] = {
	OUT("offering_id", SW_T_STRING, "Its id (TrainingPlanOfferingId or "
	    "TrainingPlanExtensionOfferingId)."),
	OUT("kind", SW_T_STRING, "reservation or extension."),
	OUT_OPT("upfront_fee", SW_T_NUMBER, "What it costs up front."),
	OUT_OPT("currency", SW_T_STRING, "The fee's currency."),
	OUT_OPT("instance_type", SW_T_STRING, "Instance type."),
	OUT_OPT("count", SW_T_INT, "Instances."),
	OUT_OPT("availability_zone", SW_T_STRING, "Where."),
	OUT_OPT("start_time", SW_T_INT, "Start (Unix seconds)."),
	OUT_OPT("end_time", SW_T_INT, "End (Unix seconds)."),
	OUT_OPT("duration_hours", SW_T_INT, "Hours."),
	{ NULL }
};
/* clang-format on */
/* The plan a group runs on, as the cluster and job views show it. */
/* clang-format off */
const struct sw_field sw_plan_brief_fields[] = {
	OUT("name", SW_T_STRING, "The training plan."),
	OUT_OPT("status", SW_T_STRING, "Its status."),
	OUT_OPT("end_time", SW_T_INT, "When its capacity ends (Unix "
	    "seconds); the group's nodes go then."),
	OUT_OPT("remaining_seconds", SW_T_INT, "Until then, by AWS's "
	    "clock."),
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field plan[] = {
	F_PLAN,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
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
/* clang-format on */
