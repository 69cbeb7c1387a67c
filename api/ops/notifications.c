/*
 * notifications.c: the operation table's rows for notifications:
 * subscriptions (where the results of operations and stages, the
 * thresholds budgets cross and the changes the poller watches on the
 * clusters (jobs, endpoints, nodes, HyperPod cluster events) are sent,
 * for everyone or one team)
 * and the deliveries of the outbox, dead letters included, each beside
 * the fields it reads and the answer it sends.
 */
#include "api/optable.h"
#include "api/ops/ops.h"
#include "lib/notify.h"

#define PAT_SUB_NAME PAT_NAME
#define PAT_TOPIC_ARN \
	"arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:" \
	"[A-Za-z0-9_-]{1,256}(\\.fifo)?"
#define PAT_EVENT_BUS \
	"(arn:aws[a-z-]*:events:[a-z0-9-]+:[0-9]{12}:" \
	"event-bus/)?[.A-Za-z0-9_-]{1,256}"

static const char *const delivery_states[] = { "pending", "delivered", "dead",
	NULL };

/* clang-format off */
static const struct sw_field f_event_kind[] = {
	{ .name = "event", .type = SW_T_STRING, .enumv = sw_notify_kinds },
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_sub_create[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 63, .pattern = PAT_SUB_NAME,
	  .desc = "Unique name of the subscription (a person's or a "
	  "team's)." },
	{ .name = "target", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = sw_notify_targets,
	  .desc = "Where events go: webhook (url, secret), sns "
	  "(topic_arn) or eventbridge (event_bus)." },
	{ .name = "events", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 16, .items = f_event_kind,
	  .desc = "The event kinds it wants: operation.succeeded, "
	  "operation.failed, operation.cancelled, stage.succeeded, "
	  "stage.failed, budget.threshold (a budget's threshold crossed, "
	  "once per budget, month and threshold); job.failed, "
	  "job.succeeded, job.preempted, job.recovered "
	  "(HyperPodPyTorchJobs and RayJobs); endpoint.failed, "
	  "endpoint.recovered (self-hosted inference endpoints); "
	  "node.unhealthy, node.recovered (HyperPod's node health label); "
	  "cluster.event (each new HyperPod cluster event); "
	  "training_plan.expiring (a training plan ends within "
	  "training_plan.warn_before, once per plan and end, naming the "
	  "workloads that lose their nodes).  A first sight "
	  "of a job, endpoint or node is no event: only its changes are." },
	{ .name = "team", .type = SW_T_STRING, .min = 1, .max = 39,
	  .pattern = PAT_TEAM,
	  .desc = "Only events of this team: its jobs and endpoints "
	  "(namespace hyperpod-ns-<team>) and its team budget's "
	  "thresholds; never operation, stage, node or cluster events, "
	  "which belong to no team.  An operator of the team may make "
	  "it; a subscription of every team needs a platform-admin." },
	{ .name = "cluster", .type = SW_T_STRING, .min = 2, .max = 32,
	  .pattern = PAT_CLUSTER,
	  .desc = "Only events of operations on this cluster and of this "
	  "cluster's budget (never a team budget's)." },
	{ .name = "url", .type = SW_T_STRING, .min = 10, .max = 2048,
	  .pattern = "https?://[!-~]+",
	  .desc = "webhook: the URL POSTed to; https (plain http only to "
	  "127.0.0.1, localhost or [::1])." },
	{ .name = "secret", .type = SW_T_STRING, .min = 16, .max = 256,
	  .pattern = "[!-~]+",
	  .desc = "webhook: the key of the Slipway-Signature HMAC-SHA256 "
	  "(16 to 256 printable characters); never shown again." },
	{ .name = "format", .type = SW_T_STRING, .enumv = sw_notify_formats,
	  .desc = "webhook: slipway (default: the event as JSON) or slack "
	  "(a Slack incoming-webhook message with the event beside)." },
	{ .name = "topic_arn", .type = SW_T_STRING, .min = 20, .max = 400,
	  .pattern = PAT_TOPIC_ARN,
	  .desc = "sns: the topic published to (in the region Slipway "
	  "runs in)." },
	{ .name = "event_bus", .type = SW_T_STRING, .min = 1, .max = 1600,
	  .pattern = PAT_EVENT_BUS,
	  .desc = "eventbridge: the event bus's name or ARN (default is "
	  "the account's default bus)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_sub_name[] = {
	{ .name = "name", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_SUB_NAME, .desc = "Subscription name." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_delivery_list[] = {
	{ .name = "state", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .enumv = delivery_states,
	  .desc = "Only pending, delivered or dead (dead letters) ones." },
	{ .name = "subscription", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_SUB_NAME,
	  .desc = "Only this subscription's." },
	{ .name = "before", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .min = 1, .max = 9007199254740991LL,
	  .desc = "Page: only deliveries older than this seq (the last "
	  "seq of the page before)." },
	{ .name = "limit", .type = SW_T_INT, .flags = SW_F_QUERY,
	  .min = 1, .max = 500, .desc = "At most this many (default 100)." },
	{ NULL }
};
/* clang-format on */

/* ---- answers -------------------------------------------------------- */

/* clang-format off */
static const struct sw_field o_sub[] = {
	OUT("name", SW_T_STRING, "Its name."),
	{ .name = "target", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = sw_notify_targets, .desc = "webhook, sns or "
	  "eventbridge." },
	OUT("address", SW_T_STRING, "The URL, topic ARN or event bus."),
	OUT("secret_set", SW_T_BOOL, "A webhook secret is kept."),
	{ .name = "format", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = sw_notify_formats, .desc = "The payload format." },
	{ .name = "events", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = f_event_kind, .desc = "The event kinds it wants." },
	OUT_OPT("cluster", SW_T_STRING, "Only this cluster's."),
	OUT_OPT("team", SW_T_STRING, "Only this team's events."),
	OUT("created_by", SW_T_STRING, "Who made it (its owner: may "
	    "delete it)."),
	OUT("created_ms", SW_T_INT, "When."),
	OUT("pending", SW_T_INT, "Deliveries still to be made."),
	OUT("delivered", SW_T_INT, "Deliveries made."),
	OUT("dead", SW_T_INT, "Deliveries given up on (dead letters)."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sub_item[] = {
	{ .name = "subscription", .type = SW_T_OBJECT, .fields = o_sub },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sub_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_sub_item, .desc = "The subscriptions, by name." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_sub_list[] = {
	{ .status = 200, .fields = o_sub_list, .desc = "The subscriptions." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_sub_create[] = {
	{ .status = 201, .fields = o_sub, .desc = "Made: events of the "
	  "kinds it names from now on are sent." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_sub_deleted[] = {
	OUT("name", SW_T_STRING, "Its name."),
	OUT("deleted", SW_T_BOOL, "Always true."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_sub_delete[] = {
	{ .status = 200, .fields = o_sub_deleted,
	  .desc = "Deleted, with its deliveries." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_delivery[] = {
	OUT("event_id", SW_T_STRING, "The event's stable id (the "
	    "Slipway-Event-Id header): the same on every attempt."),
	{ .name = "kind", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = sw_notify_kinds, .desc = "What happened." },
	{ .name = "operation_id", .type = SW_T_STRING, .pattern = PAT_OP_ID,
	  .desc = "The operation it is about (operation.* and stage.*)." },
	OUT_OPT("budget", SW_T_STRING, "The budget it is about, "
	    "scope/name (budget.threshold)."),
	OUT_OPT("cluster", SW_T_STRING, "Its cluster."),
	OUT_OPT("subject", SW_T_STRING, "The job, endpoint, node or "
	    "cluster resource it is about (job.*, endpoint.*, node.*, "
	    "cluster.event)."),
	OUT("time_ms", SW_T_INT, "When it happened."),
	OUT("subscription", SW_T_STRING, "Where it goes."),
	{ .name = "state", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .enumv = delivery_states, .desc = "pending, delivered or dead." },
	OUT("attempts", SW_T_INT, "Attempts made."),
	OUT_OPT("next_attempt_ms", SW_T_INT, "When it is tried next "
	    "(pending)."),
	OUT_OPT("last_error", SW_T_STRING, "Why the last attempt failed."),
	OUT_OPT("done_ms", SW_T_INT, "When it was delivered or given up."),
	OUT("seq", SW_T_INT, "Its place in the outbox (before= pages)."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_delivery_item[] = {
	{ .name = "delivery", .type = SW_T_OBJECT, .fields = o_delivery },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_delivery_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_delivery_item, .desc = "Newest event first." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_delivery_list[] = {
	{ .status = 200, .fields = o_delivery_list,
	  .desc = "The deliveries." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "subscription_create",
	  .method = "POST",
	  .path = "/api/v1/subscriptions",
	  .tag = "notifications",
	  .summary = "Subscribe a webhook, SNS topic or EventBridge bus to "
	    "operation and stage results, job, endpoint and node changes, "
	    "cluster events and budget thresholds",
	  .description = "From now on, each event of the kinds named "
	    "(operation.succeeded/failed/cancelled, stage.succeeded/failed, "
	    "budget.threshold, job.failed/succeeded/preempted/recovered, "
	    "endpoint.failed/recovered, node.unhealthy/recovered, "
	    "cluster.event, training_plan.expiring; of one cluster or all: "
	    "a cluster's "
	    "subscription gets its cluster budget's thresholds, never a "
	    "team budget's; of one team or all: a team's gets its jobs', "
	    "endpoints' and team budget's events only) is written to the "
	    "outbox with the state change or the crossing itself (the "
	    "poller watches jobs, endpoints, nodes and cluster events each "
	    "poll interval, and records each change with its event, once) "
	    "and sent by the poller: a webhook gets a POST "
	    "signed with HMAC-SHA256 (Slipway-Signature: v1=<hex> over "
	    "Slipway-Timestamp + \".\" + body, and Slipway-Event-Id to "
	    "deduplicate on), an SNS topic a Publish, an EventBridge bus a "
	    "PutEvents (source slipway).  Failed sends are retried with "
	    "exponential backoff, then kept as dead letters "
	    "(delivery_list state=dead).",
	  .body = f_sub_create,
	  .scope = SW_SCOPE_WRITE,
	  /* the handler applies the team rule to the team it names */
	  .touch = SW_TOUCH_SELF,
	  .answers = a_sub_create,
	},
	{
	  .name = "subscription_list",
	  .method = "GET",
	  .path = "/api/v1/subscriptions",
	  .tag = "notifications",
	  .summary = "List notification subscriptions and their delivery "
	    "counts",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_sub_list,
	},
	{
	  .name = "subscription_delete",
	  .method = "DELETE",
	  .path = "/api/v1/subscriptions/{name}",
	  .tag = "notifications",
	  .summary = "Delete a subscription and its deliveries",
	  .description = "Its owner (created_by) may, and whoever may make "
	    "it: an operator of its team, or a platform-admin for one of "
	    "every team.",
	  .params = f_sub_name,
	  .flags = SW_OP_DESTRUCTIVE,
	  .scope = SW_SCOPE_WRITE,
	  /* the handler applies the team rule to its team */
	  .touch = SW_TOUCH_SELF,
	  .answers = a_sub_delete,
	},
	{
	  .name = "delivery_list",
	  .method = "GET",
	  .path = "/api/v1/deliveries",
	  .tag = "notifications",
	  .summary = "List notification deliveries: pending, delivered and "
	    "dead letters",
	  .description = "Each event sent to each subscription, newest "
	    "first, with its attempts and last error; state=dead lists "
	    "the dead letters (sends given up after the last retry).",
	  .params = f_delivery_list,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_delivery_list,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_notifications = { rows,
	sizeof(rows) / sizeof(rows[0]) };
