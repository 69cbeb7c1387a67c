#!/usr/bin/python3
# 56-exactly-once.t: a mutation that is not a create is recorded as sent
# before it is sent, so a poller killed right after sending it resumes by
# reading the cluster, not by sending it again.  The fault hook
# SLIPWAY_FAULT=kill-after:<op> (lib/fault.h) SIGKILLs the poller just
# after the sandbox answered UpdateClusterSoftware, UpdateCluster and
# BatchRebootClusterNodes, once each; the supervisor restarts it.  Each
# operation must succeed with exactly one such request in the sandbox's
# request log.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import need_clusters, need_fault_injection
from harness import sandbox_requests, Stack, wait_operation

t = T()
need_clusters(t)
need_fault_injection(t)

POINTS = ("UpdateClusterSoftware", "UpdateCluster", "BatchRebootClusterNodes")
once = os.path.join(tempfile.mkdtemp(prefix="sw-fault-"), "killed")
os.environ["SLIPWAY_FAULT"] = "kill-after:" + ",".join(POINTS)
os.environ["SLIPWAY_FAULT_ONCE"] = once
s = Stack(t, sandbox=True, speed=3000)
del os.environ["SLIPWAY_FAULT"]
del os.environ["SLIPWAY_FAULT_ONCE"]


def count(op):
    return sum(1 for e in sandbox_requests(s, mutating="true")
               if e["operation"] == op)


def run(what, op, method, path, body):
    before = count(op)
    r = s.request(method, path, body=body)
    t.eq(r.status, 202, "%s accepted" % what)
    d = wait_operation(s, r.json.get("operation_id", ""), timeout=180)
    t.eq(d.get("state"), "succeeded", "%s succeeded after the kill (%s)" %
         (what, d.get("error")))
    t.ok(os.path.exists(once + "." + op),
         "the poller was killed right after %s" % op)
    t.eq(count(op) - before, 1, "exactly one %s request" % op)


types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "once", "node_recovery": "None",
                                "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")

run("software update", "UpdateClusterSoftware", "POST",
    "/api/v1/clusters/once:update-software", {})
run("instance group scale", "UpdateCluster", "PATCH",
    "/api/v1/clusters/once/instance-groups/w", {"count": 2})
t.eq(len(s.get("/api/v1/clusters/once/nodes").json.get("items", [])), 2,
     "the group has the two nodes asked for")
node = s.get("/api/v1/clusters/once/nodes").json["items"][0]["node_id"]
run("node reboot", "BatchRebootClusterNodes", "POST",
    "/api/v1/clusters/once/nodes:reboot", {"node_ids": [node]})
killed = s.log_text("poller.log").count("fault injection: SIGKILL after")
t.eq(killed, len(POINTS), "the poller log shows each of the %d kills" %
     len(POINTS))
s.stop()
t.done()
