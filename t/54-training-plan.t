#!/usr/bin/python3
# 54-training-plan.t: a training plan is checked in the backend before
# anything is created: its status, instance type, count and AZ; a group
# without an AZ takes the plan's; a mismatching AZ or a count above the
# reservation refuses the request (422) naming the field.
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, aws_cli, sandbox_requests

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
rc, off = aws_cli(s, "sagemaker", "search-training-plan-offerings",
                  "--instance-type", "ml.p5.48xlarge", "--instance-count",
                  "2", "--duration-hours", "48", "--target-resources",
                  "hyperpod-cluster")
if rc is None:
    t.skip_all("aws CLI not installed")
t.ok(rc == 0 and off.get("TrainingPlanOfferings"), "offerings found")
o = off["TrainingPlanOfferings"][0]
plan_az = o["ReservedCapacityOfferings"][0]["AvailabilityZone"]
rc, made = aws_cli(s, "sagemaker", "create-training-plan",
                   "--training-plan-name", "p5-week",
                   "--training-plan-offering-id", o["TrainingPlanOfferingId"])
t.ok(rc == 0 and made.get("TrainingPlanArn"), "plan bought")
arn = made["TrainingPlanArn"]
deadline = time.time() + 30
status = None
while time.time() < deadline:
    r = s.get("/api/v1/training-plans")
    plans = {p["TrainingPlanName"]: p for p in r.json.get("items", [])}
    status = plans.get("p5-week", {}).get("Status")
    if status in ("Active", "Scheduled"):
        break
    time.sleep(0.3)
t.ok(status in ("Active", "Scheduled"), "training_plan_list shows it %s" %
     status)

types = {i["instance_type"]: i for i in
         s.get("/api/v1/instance-types?instance_type=ml.p5.48xlarge")
         .json["items"]}
other = [z for z in types["ml.p5.48xlarge"]["availability_zones"]
         if z != plan_az]


def body(**g):
    grp = {"name": "p5", "instance_type": "ml.p5.48xlarge", "count": 2,
           "capacity_type": "training-plan", "training_plan_arn": arn}
    grp.update(g)
    return {"name": "planned", "instance_groups": [grp]}


before = len(sandbox_requests(s, mutating="true"))
r = s.post("/api/v1/clusters?dry_run=true", body())
t.eq(r.status, 200, "a group without an AZ is accepted")
cost = r.json.get("cost") or {}
line = (cost.get("lines") or [{}])[0]
rc, desc = aws_cli(s, "sagemaker", "describe-training-plan",
                   "--training-plan-name", "p5-week")
t.ok(cost.get("complete") is True and cost.get("added_per_hour") == 0 and
     line.get("price") == "training-plan",
     "the plan's capacity adds nothing per hour: %s" %
     {k: cost.get(k) for k in ("complete", "added_per_hour")})
tp = line.get("training_plan") or {}
t.ok(rc == 0 and tp.get("name") == "p5-week" and
     str(tp.get("upfront_fee")) == str(float(desc["UpfrontFee"])).rstrip("0")
     .rstrip(".") and tp.get("currency") == desc.get("CurrencyCode"),
     "its line names the plan's upfront fee %s %s: %s" %
     (desc.get("UpfrontFee"), desc.get("CurrencyCode"), tp))
t.eq(r.json["params"]["instance_groups"][0].get("availability_zone"),
     plan_az, "and placed in the plan's AZ")
if other:
    r = s.post("/api/v1/clusters", body(availability_zone=other[0]))
    t.ok(r.status == 422 and any(
        e["field"] == "instance_groups[0].training_plan_arn" and
        e["rule"] == "reservation" for e in r.json.get("errors", [])),
        "a group in another AZ than the plan is refused (422)")
else:
    t.skip("the type is offered in one AZ only")
r = s.post("/api/v1/clusters", body(count=3))
t.ok(r.status == 422 and any(e["rule"] == "count"
                             for e in r.json.get("errors", [])),
     "more instances than the plan holds is refused (422)")
r = s.post("/api/v1/clusters", body(training_plan_arn=arn[:-4] + "none"))
t.ok(r.status == 422, "an unknown plan is refused (422)")
t.eq(len(sandbox_requests(s, mutating="true")), before,
     "nothing was created")
s.stop()
t.done()
