#!/usr/bin/python3
# 52-cluster-faults.t: with 20% throttling and 5% 5xx injected, 20
# concurrent pipelines all complete; InsufficientCapacity fails the
# HyperPod stage with a clear message, and after the fault is lifted a
# retry completes without recreating the network or the EKS cluster; a
# quota below the request refuses the create up front.
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, sandbox_call, sandbox_requests, wait_operation
from harness import need_clusters

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])


def body(name, count=1):
    return {"name": name, "instance_groups": [
        {"name": "w", "instance_type": g["instance_type"], "count": count,
         "availability_zone": g["availability_zones"][0]}]}


# ---- quota below the request: refused before anything is created
st, _ = sandbox_call(s, "POST", "/_sandbox/quotas",
                     {"%s for cluster usage" % g["instance_type"]: 1})
t.eq(st, 200, "quota lowered to 1")
before = len(sandbox_requests(s, mutating="true"))
r = s.post("/api/v1/clusters", body("quota", count=3))
t.ok(r.status == 422 and "quota" in (r.json or {}).get("detail", ""),
     "a quota below the count refuses the create (422): %s" %
     (r.json or {}).get("detail"))
t.eq(len(sandbox_requests(s, mutating="true")), before,
     "nothing was created")
sandbox_call(s, "POST", "/_sandbox/quotas",
             {"%s for cluster usage" % g["instance_type"]: 500})

# ---- insufficient capacity, then retry
sandbox_call(s, "POST", "/_sandbox/faults",
             {"insufficient_capacity": [g["instance_type"]]})
r = s.post("/api/v1/clusters", body("scarce"))
t.eq(r.status, 202, "create accepted")
op = r.json["operation_id"]
d = wait_operation(s, op, timeout=240)
t.eq(d.get("state"), "failed", "the operation failed")
hp = [st for st in d["stages"] if st["name"] == "hyperpod"][0]
t.eq(hp["state"], "failed", "at the hyperpod stage")
t.ok("apacity" in (hp.get("error") or ""),
     "with a clear message: %s" % hp.get("error"))
t.ok(all(st["state"] == "succeeded" for st in d["stages"]
         if st["seq"] < hp["seq"]), "earlier stages succeeded")
sandbox_call(s, "POST", "/_sandbox/faults", {"insufficient_capacity": []})
r = s.post("/api/v1/operations/%s:retry" % op)
t.eq(r.status, 202, "retry accepted")
d = wait_operation(s, op, timeout=240)
t.eq(d.get("state"), "succeeded", "the retry completed")
reqs = [e for e in sandbox_requests(s, mutating="true")
        if e.get("status", 200) < 300]
t.eq(sum(1 for e in reqs if e["operation"] == "CreateVpc"), 1,
     "the network was not recreated")
t.eq(sum(1 for e in reqs if e["service"] == "eks" and
         e["operation"] == "CreateCluster"), 1,
     "the EKS cluster was not recreated")
t.eq(sum(1 for e in reqs if e["service"] == "sagemaker" and
         e["operation"] == "CreateCluster"), 2,
     "HyperPod CreateCluster ran again after the failed one was deleted")

# ---- 20 concurrent pipelines under throttling and 5xx
st, _ = sandbox_call(s, "POST", "/_sandbox/faults",
                     {"throttle": {"*": 0.2}, "error_5xx": {"*": 0.05}})
t.eq(st, 200, "20% throttling and 5% 5xx injected")
ops = []
for i in range(20):
    # A throttled or failing pre-flight answers 429/503 with Retry-After:
    # do as told.
    for attempt in range(15):
        r = s.post("/api/v1/clusters", body("c%02d" % i),
                   headers={"Idempotency-Key": "c%02d" % i})
        if r.status not in (429, 503):
            break
        time.sleep(float(r.header("Retry-After") or 1))
    if r.status == 202:
        ops.append(r.json["operation_id"])
    else:
        t.diag(repr(r))
t.eq(len(ops), 20, "20 creates accepted")
deadline = time.time() + 600
states = {}
while time.time() < deadline:
    states = {o: s.get("/api/v1/operations/%s" % o).json["state"]
              for o in ops}
    if all(v in ("succeeded", "failed", "cancelled")
           for v in states.values()):
        break
    time.sleep(1)
done = sum(1 for v in states.values() if v == "succeeded")
t.eq(done, 20, "all 20 pipelines succeeded (%d)" % done)
for o, v in states.items():
    if v != "succeeded":
        t.diag("%s %s: %s" % (o, v, s.get("/api/v1/operations/%s" % o)
                              .json.get("error")))
# What EKS offers for a Kubernetes version is kept (15 minutes) for
# every pipeline: the 21 creates asked for it once each version.
asked = [json.dumps(e.get("params"), sort_keys=True)
         for e in sandbox_requests(s, service="eks",
                                   operation="DescribeAddonVersions")
         if e.get("status", 200) < 300]
t.ok(asked and len(asked) == len(set(asked)),
     "DescribeAddonVersions answered %d time(s) for %d input(s)" %
     (len(asked), len(set(asked))))
thr = sum(1 for e in sandbox_requests(s)
          if e.get("error") in ("ThrottlingException", "RequestLimitExceeded",
                                "Throttling", "SlowDown"))
t.ok(thr > 20, "the sandbox really throttled (%d times)" % thr)
sandbox_call(s, "DELETE", "/_sandbox/faults")

# ---- a delete whose network reads fail (5xx on every retry of each):
# the stage is tried again and completes, and a failed read leaves
# nothing behind (the sanitizer build's leak check at stop)
READS = ("DescribeAddresses", "DescribeSubnets", "DescribeSecurityGroups",
         "DescribeVpcs")
since = max([e["seq"] for e in sandbox_requests(s)] or [0])
st, _ = sandbox_call(s, "POST", "/_sandbox/faults", {"rules": [
    {"service": "ec2", "operation": op, "fault": "error_5xx", "count": 3}
    for op in READS]})
t.eq(st, 200, "each of the network stage's reads fails three times")
r = s.request("DELETE", "/api/v1/clusters/scarce")
t.eq(r.status, 202, "delete accepted")
d = wait_operation(s, r.json.get("operation_id"), timeout=300)
t.eq(d.get("state"), "succeeded", "the delete completed")
failed = {e["operation"] for e in sandbox_requests(s, since=since)
          if e.get("operation") in READS and e.get("status", 0) >= 500}
t.eq(sorted(failed), sorted(READS), "each of those reads failed first")
sandbox_call(s, "DELETE", "/_sandbox/faults")
s.stop()
t.done()
