#!/usr/bin/python3
# 58-capacity-preflight.t: instance counts are held to the service quota
# net of what the account already runs, before any change: a second
# cluster that would go over is refused 422 (dry run and create alike)
# naming instance_groups[0].count with quota, use and ask, and no
# mutating call reaches AWS; group add and scale are checked the same
# way; SageMaker itself refuses UpdateCluster over the quota net of use.
# The patching schedule of a group: set without a count, with a
# rollback batch size, batch_count with batch_percent refused (oneOf),
# and shown by instance_group_list.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, aws_cli, sandbox_call, sandbox_requests
from harness import aws_cli_error, need_clusters, wait_operation


def aws_error(*args):
    return aws_cli_error(s, *args)

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
TYPE, AZ = g["instance_type"], g["availability_zones"][0]


def body(name, count):
    return {"name": name, "instance_groups": [
        {"name": "w", "instance_type": TYPE, "count": count,
         "availability_zone": AZ}]}


def mutating():
    return len(sandbox_requests(s, mutating="true"))


def refusal(r, field):
    """The 422's errors name field; its message, or None."""
    errs = (r.json or {}).get("errors") or []
    if r.status != 422:
        return None
    for e in errs:
        if e.get("field") == field:
            return e.get("message", "")
    return None


st, _ = sandbox_call(s, "POST", "/_sandbox/quotas",
                     {"%s for cluster usage" % TYPE: 4})
t.eq(st, 200, "quota for %s set to 4" % TYPE)

r = s.post("/api/v1/clusters", body("one", 3))
t.eq(r.status, 202, "a first cluster with 3 instances is accepted")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and created")

# ---- a second cluster with 2: 3 + 2 > 4
before = mutating()
r = s.post("/api/v1/clusters?dry_run=true", body("two", 2))
msg = refusal(r, "instance_groups[0].count")
t.ok(msg is not None, "the dry run is refused 422 naming "
     "instance_groups[0].count: %r" % r)
t.ok(msg is not None and "is 4" in msg and "3 in use" in msg and
     "2 requested" in msg, "with quota, use and ask: %s" % msg)
r = s.post("/api/v1/clusters", body("two", 2))
t.ok(refusal(r, "instance_groups[0].count") is not None,
     "the create is refused the same way: %r" % r)
t.eq(mutating(), before, "no mutating call was sent to AWS")
r = s.post("/api/v1/clusters?dry_run=true", body("two", 1))
t.eq(r.status, 200, "a second cluster with 1 fits (3 + 1 = 4): %r" % r)

# ---- group add and scale, the same quota
r = s.post("/api/v1/clusters/one/instance-groups",
           {"group_name": "x", "instance_type": TYPE, "count": 2,
            "availability_zone": AZ})
t.ok(refusal(r, "count") is not None, "a group add over the quota is "
     "refused 422 naming count: %r" % r)
r = s.post("/api/v1/clusters/one/instance-groups?dry_run=true",
           {"group_name": "x", "instance_type": TYPE, "count": 1,
            "availability_zone": AZ})
t.eq(r.status, 200, "a group add that fits passes its dry run: %r" % r)
r = s.request("PATCH", "/api/v1/clusters/one/instance-groups/w",
              {"count": 5})
t.ok(refusal(r, "count") is not None, "scaling past the quota is refused "
     "422 naming count: %r" % r)
r = s.request("PATCH", "/api/v1/clusters/one/instance-groups/w"
              "?dry_run=true", {"count": 4})
t.eq(r.status, 200, "scaling to the quota passes (the group's own 3 are "
     "not counted twice): %r" % r)
t.eq(mutating(), before, "still no mutating call")

# The region's facts are read once and kept for every worker: the
# pre-flights above (a create, two dry runs, a refused create, a group
# add and a scale) asked EC2 for the zones, the type's offering in the
# zone and what the type is once each, not once per request.
for op in ("DescribeAvailabilityZones", "DescribeInstanceTypeOfferings",
           "DescribeInstanceTypes"):
    sent = sandbox_requests(s, service="ec2", operation=op)
    inputs = [json.dumps(q.get("params"), sort_keys=True) for q in sent]
    t.ok(sent and len(inputs) == len(set(inputs)),
         "ec2 %s: each input asked once (%d sent, %d inputs)" %
         (op, len(sent), len(set(inputs))))

# Each cluster's groups are kept by its ARN and status (30 s): four
# pre-flights in a row read cluster one's groups once at most, not once
# each.
def describes_of_one():
    return len([q for q in sandbox_requests(s, service="sagemaker",
                                            operation="DescribeCluster")
                if (q.get("params") or {}).get("ClusterName") == "one"])


def quota_reads():
    return len(sandbox_requests(s, service="servicequotas",
                                operation="ListServiceQuotas"))


n0, q0 = describes_of_one(), quota_reads()
codes = [s.post("/api/v1/clusters?dry_run=true", body("three", 1)).status
         for _ in range(4)]
t.ok(codes == [200] * 4 and describes_of_one() - n0 <= 1,
     "four pre-flights (%s) read cluster one %d time(s)" %
     (codes, describes_of_one() - n0))
# The account's quotas are kept a minute: the same four asked Service
# Quotas once at most.  A request the kept quotas refuse reads them
# again first, so an increase granted meanwhile counts at once.
t.ok(quota_reads() - q0 <= 1, "and read the quotas %d time(s)" %
     (quota_reads() - q0))
r = s.post("/api/v1/clusters?dry_run=true", body("two", 2))
t.ok(refusal(r, "instance_groups[0].count") is not None,
     "3 + 2 over the kept quota of 4: refused: %r" % r)
st, _ = sandbox_call(s, "POST", "/_sandbox/quotas",
                     {"%s for cluster usage" % TYPE: 5})
q0 = quota_reads()
r = s.post("/api/v1/clusters?dry_run=true", body("two", 2))
t.ok(st == 200 and r.status == 200 and quota_reads() > q0,
     "the quota raised to 5, the same dry run passes at once, the quotas "
     "read again: %r" % r)
sandbox_call(s, "POST", "/_sandbox/quotas", {"%s for cluster usage" % TYPE: 4})

# ---- SageMaker refuses the same net of use
rc, out = aws_cli(s, "sagemaker", "describe-cluster", "--cluster-name",
                  "one")
if rc is None:
    t.skip("aws CLI not installed")
else:
    grp = out["InstanceGroups"][0]
    spec = {"InstanceGroupName": "w", "InstanceType": TYPE,
            "InstanceCount": 5, "ExecutionRole": grp["ExecutionRole"],
            "LifeCycleConfig": grp["LifeCycleConfig"]}
    import json
    rc, out = aws_error("sagemaker", "update-cluster", "--cluster-name",
                        "one", "--instance-groups", json.dumps([spec]))
    t.ok(rc != 0 and "ResourceLimitExceeded" in str(out),
         "UpdateCluster past the quota: ResourceLimitExceeded: %s" %
         str(out)[:200])

# ---- the patching schedule
bad = {"scheduled_update": {"cron": "cron(0 2 ? * SUN *)",
                            "batch_count": 1, "batch_percent": 10}}
r = s.request("PATCH", "/api/v1/clusters/one/instance-groups/w", bad)
errs = (r.json or {}).get("errors") or []
t.ok(r.status == 400 and any(e.get("rule") == "oneOf" and
     e.get("field") == "scheduled_update.batch_percent" for e in errs),
     "batch_count with batch_percent is refused 400 (oneOf): %r" % r)
r = s.request("PATCH", "/api/v1/clusters/one/instance-groups/w", {})
t.eq(r.status, 400, "a scale with nothing to change is refused")
sched = {"scheduled_update": {"cron": "cron(0 2 ? * SUN *)",
                              "batch_count": 1,
                              "rollback_batch_percent": 50,
                              "wait_seconds": 120}}
r = s.request("PATCH", "/api/v1/clusters/one/instance-groups/w", sched)
t.eq(r.status, 202, "a schedule is set without a count: %r" % r)
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "the schedule operation succeeded")
upd = [e for e in sandbox_requests(s, mutating="true")
       if e.get("operation") == "UpdateCluster"]
t.ok(upd, "UpdateCluster was sent")
items = s.get("/api/v1/clusters/one/instance-groups").json["items"]
w = next(i for i in items if i["name"] == "w")
t.eq(w.get("target_count"), 3, "the count stayed 3")
su = w.get("scheduled_update") or {}
t.eq(su.get("cron"), "cron(0 2 ? * SUN *)",
     "instance_group_list shows the schedule")
t.eq((su.get("batch_count"), su.get("rollback_batch_percent"),
      su.get("wait_seconds")), (1, 50, 120),
     "with its batch, rollback batch and wait: %s" % su)

s.stop()
t.done()
