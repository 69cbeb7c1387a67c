#!/usr/bin/python3
# 74-notifications.t: subscriptions and the notification outbox.
#   - bad subscriptions get a 400 problem+json naming the field (a plain
#     http URL off loopback, a member of another target, a missing
#     topic ARN or secret, an unknown event kind); a taken name is 409;
#   - a webhook receiver on loopback gets every event of a cluster create
#     (each stage and the operation) exactly once, each with a valid
#     HMAC-SHA256 signature over timestamp "." body and the event id in
#     both the Slipway-Event-Id header and the body; the Slack format
#     sends a Slack message;
#   - the sandbox refuses as SNS and EventBridge do (no topic, a FIFO
#     name without FifoTopic, entries failing alone, the model's limit);
#   - the SNS topic and the EventBridge bus get the operation's result:
#     Publish and PutEvents appear in the sandbox's request log, answered
#     200, and the sandbox holds the message and the event, carrying the
#     same event id;
#   - a receiver that answers 500 is tried SLIPWAY_NOTIFY_ATTEMPTS times
#     with the same event id, then the delivery is dead and listed by
#     delivery_list state=dead with its last error;
#   - 20 SIGKILLs of the poller at random moments while operations run:
#     every event still reaches the receiver, none is lost, and a copy
#     sent twice (a kill between the send and its record) carries the
#     same event id, so the receiver keeps each event exactly once;
#   - the UI's notifications page (from the Operations page) lists the
#     subscriptions and, filtered by state, the dead letter;
#   - deleting a subscription deletes it (again: 404).
import json
import os
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SRCDIR, Stack, aws_cli, aws_cli_error
from harness import kill_if
from harness import need_clusters
from harness import sandbox_call, sandbox_requests, wait_for, wait_operation
import webhook

t = T()
need_clusters(t)

SECRET = "a-test-secret-of-some-length"
ATTEMPTS = 3
KILLS = int(os.environ.get("SW_NOTIFY_KILLS") or 20)
seed = int(os.environ.get("SW_NOTIFY_SEED") or
           random.SystemRandom().randrange(1, 1 << 31))
t.diag("seed %d (replay with SW_NOTIFY_SEED=%d)" % (seed, seed))
rng = random.Random(seed)

rx = webhook.Receiver()
base = rx.url

os.environ["SLIPWAY_NOTIFY_ATTEMPTS"] = str(ATTEMPTS)
os.environ["SLIPWAY_NOTIFY_BACKOFF_MS"] = "200"
s = Stack(t, sandbox=True, speed=3000)
del os.environ["SLIPWAY_NOTIFY_ATTEMPTS"]
del os.environ["SLIPWAY_NOTIFY_BACKOFF_MS"]
ALL = ["operation.succeeded", "operation.failed", "operation.cancelled",
       "stage.succeeded", "stage.failed"]


def refused(body, field, why):
    r = s.post("/api/v1/subscriptions", body)
    fields = [e.get("field") for e in (r.json or {}).get("errors", [])]
    t.ok(r.status == 400 and any(f == field or f.startswith(field + "[")
                                 for f in fields) and
         r.header("Content-Type").startswith("application/problem+json"),
         "%s: 400 naming %s (%s %s)" % (why, field, r.status, fields))


hook = {"name": "hook", "target": "webhook", "url": base + "/ok",
        "secret": SECRET, "events": ALL}
refused(dict(hook, url="http://example.com/hook"), "url",
        "plain http off loopback")
refused(dict(hook, topic_arn="arn:aws:sns:us-west-2:123456789012:x"),
        "topic_arn", "a member of another target")
refused({k: v for k, v in hook.items() if k != "secret"}, "secret",
        "a webhook without a secret")
refused({"name": "t", "target": "sns", "events": ALL}, "topic_arn",
        "sns without a topic")
refused(dict(hook, events=["operation.exploded"]), "events",
        "an unknown event kind")
region = s.config().get("sandbox_info", {}).get("region", "us-west-2")
other = "eu-west-1" if region != "eu-west-1" else "us-east-1"
refused({"name": "t", "target": "sns", "events": ALL, "topic_arn":
         "arn:aws:sns:%s:123456789012:x" % other}, "topic_arn",
        "a topic of another region")
refused({"name": "t", "target": "eventbridge", "events": ALL, "event_bus":
         "arn:aws:events:%s:123456789012:event-bus/b" % other}, "event_bus",
        "a bus of another region")

rc, out = aws_cli(s, "--region", region, "sns", "create-topic", "--name",
                  "slipway-events")
if rc is None:
    t.skip_all("the aws CLI is needed to create the SNS topic")
t.eq(rc, 0, "the SNS topic is made (%s)" % out)
topic = out.get("TopicArn", "") if isinstance(out, dict) else ""

# The sandbox says no where SNS and EventBridge do.
account = topic.split(":")[4] if topic.count(":") == 5 else "123456789012"
rc, err = aws_cli_error(s, "--region", region, "sns", "publish",
                        "--topic-arn", "arn:aws:sns:%s:%s:nope" % (region,
                                                                  account),
                        "--message", "x")
t.ok(rc != 0 and "NotFound" in err, "SNS: Publish to no topic is NotFound "
     "(%s)" % err.strip()[-200:])
rc, err = aws_cli_error(s, "--region", region, "sns", "create-topic",
                        "--name", "plain.fifo")
t.ok(rc != 0 and "InvalidParameter" in err,
     "SNS: a .fifo name without FifoTopic is InvalidParameter")
rc, out = aws_cli(s, "--region", region, "events", "put-events", "--entries",
                  json.dumps([{"Source": "t", "DetailType": "d",
                               "Detail": "{}", "EventBusName": "nope"},
                              {"Source": "t", "DetailType": "d",
                               "Detail": "[1]"},
                              {"Source": "t", "DetailType": "d",
                               "Detail": "{}"}]))
t.ok(rc == 0 and out.get("FailedEntryCount") == 2 and
     [e.get("ErrorCode") for e in out.get("Entries", [])] ==
     ["InvalidArgument", "MalformedDetail", None],
     "EventBridge: entries on no bus or with a detail that is not an "
     "object fail alone (%s)" % out)
rc, err = aws_cli_error(s, "--region", region, "events", "put-events",
                        "--entries", json.dumps(
                            [{"Source": "t", "DetailType": "d",
                              "Detail": "{}"}] * 11))
t.ok(rc != 0 and "ValidationException" in err,
     "EventBridge: 11 entries break the model's limit of 10 (%s)" %
     err.strip()[-200:])
st, evs = sandbox_call(s, "GET", "/_sandbox/eventbridge/events")
t.eq(len(evs.get("events", [])), 1, "only the good entry was put")

for body in (hook,
             {"name": "chat", "target": "webhook", "url": base + "/slack",
              "secret": SECRET, "format": "slack",
              "events": ["operation.succeeded"]},
             {"name": "failing", "target": "webhook", "url": base + "/fail",
              "secret": SECRET, "events": ["operation.succeeded"]},
             {"name": "topic", "target": "sns", "topic_arn": topic,
              "events": ["operation.succeeded", "operation.failed"]},
             {"name": "bus", "target": "eventbridge",
              "events": ["operation.succeeded"]}):
    r = s.post("/api/v1/subscriptions", body)
    t.eq(r.status, 201, "subscription %s made (%s)" % (body["name"],
                                                       r.json))
r = s.post("/api/v1/subscriptions", hook)
t.eq(r.status, 409, "a taken name is a conflict")
subs = {x["name"]: x for x in s.get("/api/v1/subscriptions").json["items"]}
t.ok(subs["hook"]["secret_set"] and "secret" not in subs["hook"],
     "the list says a secret is kept, never what it is")


def deliveries(**q):
    qs = "&".join("%s=%s" % kv for kv in q.items())
    return s.get("/api/v1/deliveries?limit=500&" + qs).json["items"]


def settled():
    """Nothing pending any more (dead or delivered)."""
    return not deliveries(state="pending")


received = rx.received


def signed_ok(h, b):
    return webhook.signed_ok(SECRET, h, b)


# ---- one cluster create: its stages and its end ------------------------
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "nt", "node_recovery": "None",
                                "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
op_id = r.json.get("operation_id", "")
d = wait_operation(s, op_id, timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")
t.ok(wait_for(settled, timeout=120), "every delivery settled")

outbox = deliveries(subscription="hook")
ids = sorted(x["event_id"] for x in outbox)
kinds = sorted({x["kind"] for x in outbox})
t.ok("operation.succeeded" in kinds and "stage.succeeded" in kinds,
     "the outbox holds the stages' and the operation's results (%s)" % kinds)
t.eq(len([x for x in outbox if x["kind"] == "stage.succeeded"]),
     len([x for x in d.get("stages", []) if x["state"] == "succeeded"]),
     "one event per stage that succeeded")
hooks = received("/ok")
t.eq(sorted(h.get("Slipway-Event-Id") for h, b in hooks), ids,
     "the webhook got each of the %d events exactly once" % len(ids))
t.ok(all(signed_ok(h, b) for h, b in hooks),
     "each carries a valid HMAC-SHA256 signature")
t.ok(all(json.loads(b)["id"] == h.get("Slipway-Event-Id") and
         json.loads(b)["operation_id"] == op_id for h, b in hooks),
     "the body names the same event and the operation")
lag = [h["received"] - json.loads(b)["time_ms"] / 1000.0 for h, b in hooks]
t.diag("from event to webhook: %.0f ms at most, %.0f ms on average" %
       (1000 * max(lag or [0]), 1000 * sum(lag) / max(len(lag), 1)))
t.ok(all(x["state"] == "delivered" and x["attempts"] == 1 for x in outbox),
     "each is recorded delivered at the first attempt")
slack = received("/slack")
t.ok(len(slack) == 1 and "text" in json.loads(slack[0][1]) and
     "succeeded" in json.loads(slack[0][1])["text"],
     "the Slack format sends one Slack message (%s)" % slack[:1])

end = next(x["event_id"] for x in outbox if x["kind"] ==
           "operation.succeeded")
pub = [e for e in sandbox_requests(s, operation="Publish")
       if e["params"].get("TopicArn") == topic]
put = [e for e in sandbox_requests(s, operation="PutEvents")
       if e["params"]["Entries"][0].get("Source") == "slipway"]
t.ok(len(pub) == 1 and pub[0].get("status") == 200,
     "one SNS Publish, answered 200, in the request log (%s)" % pub)
t.ok(len(put) == 1 and put[0].get("status") == 200,
     "one EventBridge PutEvents, answered 200, in the request log (%s)" % put)
st, msgs = sandbox_call(s, "GET", "/_sandbox/sns/messages")
t.ok(st == 200 and [json.loads(m["Message"])["id"] for m in
                    msgs["messages"] if m["TopicArn"] == topic] == [end],
     "the topic holds the operation's event")
st, evs = sandbox_call(s, "GET", "/_sandbox/eventbridge/events")
t.ok(st == 200 and [(e["Source"], e["Bus"], json.loads(e["Detail"])["id"])
                    for e in evs["events"] if e["Source"] == "slipway"] ==
     [("slipway", "default", end)],
     "the default bus holds the operation's event, source slipway")

dead = deliveries(state="dead", subscription="failing")
fails = received("/fail")
t.ok(len(dead) == 1 and dead[0]["attempts"] == ATTEMPTS and
     "HTTP 500" in dead[0].get("last_error", ""),
     "the failing receiver's delivery is a dead letter after %d attempts "
     "(%s)" % (ATTEMPTS, dead))
t.eq([h.get("Slipway-Event-Id") for h, b in fails], [end] * ATTEMPTS,
     "it was tried %d times, each with the same event id" % ATTEMPTS)
subs = {x["name"]: x for x in s.get("/api/v1/subscriptions").json["items"]}
t.eq((subs["failing"]["dead"], subs["hook"]["delivered"]),
     (1, len(ids)), "the list counts dead and delivered deliveries")
if (os.path.isdir(os.path.join(SRCDIR, "t", "node_modules",
                               "playwright-core")) and
        os.path.exists("/usr/bin/chromium") and shutil.which("node")):
    r = subprocess.run(["node", os.path.join(SRCDIR, "t", "lib",
                                             "notify-ui.js"),
                        "http://127.0.0.1:%d" % s.port, s.token],
                       capture_output=True, text=True, timeout=300)
    ui = json.loads(r.stdout or "{}")
    t.ok(not ui.get("error") and sorted(ui.get("subs", [])) ==
         ["bus", "chat", "failing", "hook", "topic"],
         "the UI's notifications page lists the subscriptions (%s %s)" %
         (ui, r.stderr[-500:]))
    t.ok(ui.get("dead") == ["failing"] and
         "HTTP 500" in ui.get("dead_error", ""),
         "filtered by state dead, it shows the dead letter and its error")
else:
    t.skip("playwright-core, chromium or node missing", 2)
r = s.request("DELETE", "/api/v1/subscriptions/failing")
t.eq(r.status, 200, "a subscription is deleted")
r = s.request("DELETE", "/api/v1/subscriptions/failing")
t.eq(r.status, 404, "and is gone")
for name in ("chat", "topic", "bus"):
    s.request("DELETE", "/api/v1/subscriptions/" + name)

# ---- kills of the poller while events stream ----------------------------


kills = 0
done_ops = []
with rx.lock:
    rx.got.clear()
counts = [2, 1]
while kills < KILLS:
    n = counts[len(done_ops) % 2]
    r = s.request("PATCH", "/api/v1/clusters/nt/instance-groups/w",
                  body={"count": n})
    if r.status != 202:
        t.diag("scale refused: %s %s" % (r.status, r.json))
        time.sleep(0.5)
        continue
    op = r.json["operation_id"]
    while kills < KILLS:
        time.sleep(rng.uniform(0.05, 0.6))
        pid = s.component_pid("poller")
        if pid and kill_if(pid, "slipway-poller"):
            kills += 1
        if s.get("/api/v1/operations/" + op).json.get("state") in (
                "succeeded", "failed", "cancelled"):
            break
    d = wait_operation(s, op, timeout=240)
    done_ops.append((op, d.get("state")))
t.ok(all(st == "succeeded" for op, st in done_ops),
     "the %d operations the kills fell in succeeded (%s)" %
     (len(done_ops), done_ops))
t.eq(kills, KILLS, "the poller was killed %d times" % KILLS)
t.ok(wait_for(settled, timeout=180), "every delivery settled after the kills")
ops = {op for op, st in done_ops}
want = sorted(x["event_id"] for x in deliveries(subscription="hook")
              if x["operation_id"] in ops)
hooks = received("/ok")
seen = [h.get("Slipway-Event-Id") for h, b in hooks]
t.ok(len(want) >= 2 * len(ops), "the operations made %d events" % len(want))
t.eq(sorted(set(seen)), want,
     "the receiver has every event, none missing and none unknown")
t.ok(all(x["state"] == "delivered" for x in deliveries(subscription="hook")),
     "each is recorded delivered")
dups = len(seen) - len(set(seen))
t.diag("%d copies sent again after a kill between send and record" % dups)
t.ok(dups <= kills, "a repeat only follows a kill (%d repeats, %d kills)" %
     (dups, kills))
t.ok(all(signed_ok(h, b) for h, b in hooks), "every copy is signed")
t.ok(all(json.loads(b)["id"] == h.get("Slipway-Event-Id")
         for h, b in hooks), "a repeat carries the same event id")
rx.stop()
s.stop()
t.done()
