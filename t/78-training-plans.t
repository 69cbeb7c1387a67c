#!/usr/bin/python3
# 78-training-plans.t: training plans end to end on the sandbox.
#   - training_plan_search lists offerings of a type, count and window
#     with their upfront fee;
#   - refusals: a window in the past (400 naming start_after/end_before),
#     a type SageMaker does not reserve (400 naming instance_type), a
#     count no offering has (422 naming count, nothing bought), a name
#     taken (409), extending an expired plan (422 naming plan);
#   - a dry-run reserve shows the offering and its upfront fee and buys
#     nothing (no mutating request reaches the sandbox);
#   - reserve runs to succeeded; training_plan_list shows the plan
#     Scheduled or Active with its remaining time;
#   - a cluster's group on the plan says which plan and when it ends,
#     and the plan names the group; so does a training job's view for
#     the group its pod runs on;
#   - a dry-run extend shows the extension's fee; the extension runs,
#     the plan's history has it paid and the plan ends later (in the
#     plan and the group view);
#   - a training_plan.expiring notification reaches a loopback webhook
#     once (after more checks of the poller), naming the group and the
#     workload whose pod runs on the plan's nodes;
#   - past its end, the plan is Expired with no time left.
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Kubectl, Stack, aws_cli, need_clusters
from harness import sandbox_call, sandbox_requests, wait_for, wait_operation
import webhook

t = T()
need_clusters(t)

SPEED = 3000
WARN = 3600
TYPE = "ml.p5.48xlarge"
rx = webhook.Receiver()


def got():
    """The events the webhook received, in order."""
    return [json.loads(b) for h, b in rx.received("/h")]


os.environ["SLIPWAY_TRAINING_PLAN_WARN_BEFORE"] = str(WARN)
os.environ["SLIPWAY_LEDGER_INTERVAL"] = "1"
s = Stack(t, sandbox=True, speed=SPEED)
del os.environ["SLIPWAY_TRAINING_PLAN_WARN_BEFORE"]
del os.environ["SLIPWAY_LEDGER_INTERVAL"]

r = s.post("/api/v1/subscriptions", {
    "name": "plans", "target": "webhook", "url": rx.url + "/h",
    "secret": "a-test-secret-of-some-length",
    "events": ["training_plan.expiring"]})
t.eq(r.status, 201, "a webhook subscribes to training_plan.expiring")


def fields(r):
    return [(e.get("field"), e.get("rule"))
            for e in (r.json or {}).get("errors", [])]


def plans():
    return {p["TrainingPlanName"]: p for p in
            s.get("/api/v1/training-plans").json.get("items", [])}


# ---- search
q = "/api/v1/training-plan-offerings?instance_type=%s&count=2&duration_hours=48" % TYPE
r = s.get(q)
items = (r.json or {}).get("items", [])
t.ok(r.status == 200 and items and all(
    o["kind"] == "reservation" and o["count"] == 2 and o["instance_type"] == TYPE
    and o["upfront_fee"] > 0 and o["currency"] == "USD" and
    o["end_time"] - o["start_time"] == 48 * 3600 for o in items),
    "search lists offerings of 2 x %s for 48 h with their fee: %s" %
    (TYPE, [(o.get("availability_zone"), o.get("upfront_fee")) for o in items]))
az = items[0]["availability_zone"] if items else None
r = s.get(q + "&availability_zone=%s" % az)
t.ok(r.status == 200 and r.json["items"] and
     all(o["availability_zone"] == az for o in r.json["items"]),
     "and only in one AZ when asked")

# ---- refusals before anything is bought
before = len(sandbox_requests(s, mutating="true"))
r = s.get(q + "&start_after=%d" % (time.time() - 2 * 86400))
t.ok(r.status == 400 and ("start_after", "window") in fields(r),
     "a start in the past is refused (400 start_after): %s %s" % (r.status, fields(r)))
r = s.get(q + "&end_before=%d" % (time.time() - 3600))
t.ok(r.status == 400 and ("end_before", "window") in fields(r),
     "an end in the past is refused (400 end_before): %s %s" % (r.status, fields(r)))
r = s.get("/api/v1/training-plan-offerings?instance_type=ml.g5.48xlarge&count=1&duration_hours=24")
t.ok(r.status == 400 and any(f == "instance_type" for f, _ in fields(r)),
     "a type SageMaker does not reserve is refused (400 instance_type)")
r = s.get("/api/v1/training-plan-offerings?instance_type=%s&count=200&duration_hours=24" % TYPE)
t.ok(r.status == 200 and r.json["items"] == [],
     "no offering has 200 instances: the search is empty")
body = {"name": "p5-run", "instance_type": TYPE, "count": 2, "duration_hours": 48}
r = s.post("/api/v1/training-plans", dict(body, count=200))
t.ok(r.status == 422 and ("count", "offering") in fields(r),
     "reserving a count no offering has is refused (422 count): %s %s" %
     (r.status, fields(r)))
r = s.post("/api/v1/training-plans", dict(body, start_after=int(time.time() - 86400)))
t.ok(r.status == 400 and ("start_after", "window") in fields(r),
     "reserving a window in the past is refused (400 start_after)")

# ---- dry run: the fee, nothing bought
r = s.post("/api/v1/training-plans?dry_run=true", body)
pur = (r.json or {}).get("purchase") or {}
calls = [c.get("operation") for c in (r.json or {}).get("calls", [])]
t.ok(r.status == 200 and pur.get("kind") == "reservation" and
     abs(pur.get("upfront_fee", 0) - 2 * 48 * 31.46) < 0.01 and
     pur.get("currency") == "USD" and "CreateTrainingPlan" in calls,
     "the dry run shows the upfront fee $%s and the CreateTrainingPlan it "
     "would make (%s)" % (pur.get("upfront_fee"), calls))
t.eq(len(sandbox_requests(s, mutating="true")), before,
     "nothing was bought by the refusals and the dry run")

# ---- reserve
r = s.post("/api/v1/training-plans", body)
t.eq(r.status, 202, "reserve starts an operation")
d = wait_operation(s, r.json.get("operation_id", ""))
t.eq(d.get("state"), "succeeded", "and succeeds (%s)" % d.get("error"))
t.eq(len([x for x in sandbox_requests(s, operation="CreateTrainingPlan")]), 1,
     "one CreateTrainingPlan was sent")
p = plans().get("p5-run", {})
t.ok(p.get("Status") in ("Scheduled", "Active") and
     0 < p.get("remaining_seconds", 0) <= 48 * 3600 + 2 * 86400,
     "training_plan_list shows it %s with %s s left" %
     (p.get("Status"), p.get("remaining_seconds")))
arn = p.get("TrainingPlanArn", "")
r = s.post("/api/v1/training-plans", body)
t.ok(r.status == 409 and any(f == "name" for f, _ in fields(r)),
     "a second plan of the same name is refused (409 name)")

# ---- a cluster group on the plan
r = s.post("/api/v1/clusters", {"name": "planned",
                                "storage": {"s3_bucket": "plans-data"},
                                "instance_groups": [
    {"name": "p5", "instance_type": TYPE, "count": 2,
     "capacity_type": "training-plan", "training_plan_arn": arn}]})
t.eq(r.status, 202, "a cluster with a group on the plan is created")
d = wait_operation(s, r.json.get("operation_id", ""), timeout=400)
t.eq(d.get("state"), "succeeded", "and runs (%s)" % d.get("error"))


def group_plan():
    g = [x for x in s.get("/api/v1/clusters/planned/instance-groups")
         .json.get("items", []) if x.get("name") == "p5"]
    return (g[0] if g else {}).get("training_plan") or {}


gp = group_plan()
end = int(p.get("EndTime", 0))
t.ok(gp.get("name") == "p5-run" and gp.get("end_time") == end and
     gp.get("remaining_seconds", 0) > 0,
     "the group view names the plan and its end: %s" % gp)
r = s.get("/api/v1/training-plans/p5-run")
t.ok(r.status == 200 and {"cluster": "planned", "group": "p5", "count": 2}
     in r.json.get("groups", []) and r.json.get("extensions") == [],
     "the plan names the group on it: %s" % (r.json or {}).get("groups"))

k = Kubectl(s, "planned")
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
    "name": "trainer", "namespace": "hyperpod-ns-a",
    "labels": {"batch.kubernetes.io/job-name": "llm-1"}},
    "spec": {"containers": [{"name": "x", "image": "registry.example.com/team/train:1",
                              "resources": {"requests": {"nvidia.com/gpu": "1"},
                                            "limits": {"nvidia.com/gpu": "1"}}}]}}
k.run("create", "namespace", "hyperpod-ns-a")
pr = k.run("create", "-f", "-", stdin=json.dumps(pod))
t.ok(pr.returncode == 0 and wait_for(
    lambda: (k.get("pod", "-n", "hyperpod-ns-a", "trainer") or {})
    .get("status", {}).get("phase") == "Running"),
    "a job's pod runs on the plan's nodes")

# A training job of Slipway's on the plan's group (long enough to outlast
# the time travel below): its view names the group's plan and its end.
rc, out = aws_cli(s, "eks", "create-addon", "--cluster-name", "planned",
                  "--addon-name", "amazon-sagemaker-hyperpod-training-operator")
t.ok(rc == 0 and wait_for(lambda: k.run(
    "get", "crd", "hyperpodpytorchjobs.sagemaker.amazonaws.com")
    .returncode == 0, 60), "the training operator is installed")
job = {"job_name": "plan-sft", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": 1, "dataset": "alpaca", "model": "llama-3-8b",
       "max_steps": 100000, "env": {"STEP_SECONDS": "100000"}}
r = s.post("/api/v1/clusters/planned/training-jobs", job)
t.eq(r.status, 201, "a training job is submitted")


def job_plans():
    j = s.get("/api/v1/clusters/planned/training-jobs/plan-sft").json or {}
    return j.get("training_plans") if any(
        p.get("node") for p in j.get("pods", [])) else None


jp = wait_for(job_plans, timeout=120) or []
t.ok(len(jp) == 1 and jp[0].get("group") == "p5" and
     (jp[0].get("training_plan") or {}).get("name") == "p5-run" and
     jp[0]["training_plan"].get("end_time") == end,
     "the job view names the group's plan and its end: %s" % jp)

# ---- extend
ext = {"duration_hours": 24}
r = s.post("/api/v1/training-plans/p5-run:extend?dry_run=true", ext)
pur = (r.json or {}).get("purchase") or {}
t.ok(r.status == 200 and pur.get("kind") == "extension" and
     abs(pur.get("upfront_fee", 0) - 2 * 24 * 31.46) < 0.01 and
     pur.get("start_time") == end and pur.get("end_time") == end + 24 * 3600,
     "the extend dry run shows its fee $%s, right after the plan's end" %
     pur.get("upfront_fee"))
t.eq(len(sandbox_requests(s, operation="ExtendTrainingPlan")), 0,
     "the dry run bought nothing")
r = s.post("/api/v1/training-plans/p5-run:extend", ext)
t.eq(r.status, 202, "extend starts an operation")
d = wait_operation(s, r.json.get("operation_id", ""))
t.eq(d.get("state"), "succeeded", "and succeeds (%s)" % d.get("error"))
r = s.get("/api/v1/training-plans/p5-run")
h = r.json.get("extensions", [])
t.ok(len(h) == 1 and h[0].get("PaymentStatus") == "Completed" and
     r.json.get("end_time") == end + 24 * 3600,
     "the history shows the paid extension and the plan ends 24 h later: %s"
     % h)
t.eq(len(sandbox_requests(s, operation="ExtendTrainingPlan")), 1,
     "one ExtendTrainingPlan was sent")
t.eq(group_plan().get("end_time"), end + 24 * 3600,
     "and so does the group view")
end += 24 * 3600

# ---- the expiry warning, once
left = r.json.get("remaining_seconds", 0)
sandbox_call(s, "POST", "/_sandbox/advance", {"seconds": (left - WARN / 2) * SPEED})
t.ok(wait_for(got, timeout=120),
     "a training_plan.expiring notification reaches the webhook")
ev = (got() or [{}])[0]
det = ev.get("detail") or ev.get("data") or {}
t.ok(ev.get("kind") == "training_plan.expiring" and det.get("plan") == "p5-run"
     and {"cluster": "planned", "group": "p5", "count": 2} in det.get("groups", []),
     "it names the plan and its group: %s" % json.dumps(ev)[:400])
names = sorted(w.get("name", "") for w in det.get("workloads", []))
t.ok(len(names) == 2 and names[0] == "llm-1" and
     names[1].startswith("plan-sft") and
     {"cluster": "planned", "namespace": "hyperpod-ns-a", "name": "llm-1"}
     in det["workloads"],
     "and names the workloads that lose their nodes, no node agent: %s" %
     det.get("workloads"))
n0 = len(sandbox_requests(s, operation="ListTrainingPlans"))
t.ok(wait_for(lambda: len(sandbox_requests(s, operation="ListTrainingPlans"))
              >= n0 + 3, timeout=60), "the poller checks the plans again")
t.eq(len(got()), 1, "and the warning is sent once")
dl = [x for x in s.get("/api/v1/deliveries").json.get("items", [])
      if x.get("kind") == "training_plan.expiring"]
t.ok(len(dl) == 1 and dl[0].get("state") == "delivered",
     "delivery_list has it once, delivered")

# ---- past its end
sandbox_call(s, "POST", "/_sandbox/advance", {"seconds": WARN * SPEED})
p = wait_for(lambda: (lambda x: x if x.get("Status") == "Expired" else None)
             (plans().get("p5-run", {})), timeout=60) or {}
t.ok(p.get("Status") == "Expired" and p.get("remaining_seconds") == 0,
     "past its end the plan is Expired with no time left (%s, %s)" %
     (p.get("Status"), p.get("remaining_seconds")))
r = s.post("/api/v1/training-plans/p5-run:extend", ext)
t.ok(r.status == 422 and ("plan", "status") in fields(r),
     "an expired plan cannot be extended (422 plan): %s %s" % (r.status, fields(r)))
s.stop()
t.done()
