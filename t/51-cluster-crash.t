#!/usr/bin/python3
# 51-cluster-crash.t: the poller is killed with SIGKILL at every stage
# boundary and in the middle of polls; the supervisor restarts it, the
# new poller takes over the lease, and the operation completes with
# exactly one create call per resource (sandbox request log).
import os
import signal
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, kill_if, sandbox_requests, wait_operation
from harness import need_clusters, need_fault_injection

t = T()
need_clusters(t)
need_fault_injection(t)
# The poller dies once at each stage boundary, however fast the stages
# pass on a loaded machine (the fault hook fires there); the loop below
# adds kills while it holds the lease and in the middle of polls.
STAGES = ["network", "eks", "access", "select", "dependencies", "hyperpod",
          "storage", "verify"]
once = tempfile.mkdtemp(prefix="sw-crash-once-")
# Mid-stage too: just after AWS answered a create, before it is recorded.
MID = ["CreateVpc", "CreateNatGateway", "CreateCluster"]
os.environ["SLIPWAY_FAULT"] = "kill-after:" + ",".join(
    ["stage:" + n for n in STAGES] + MID)
os.environ["SLIPWAY_FAULT_ONCE"] = os.path.join(once, "died")
try:
    s = Stack(t, sandbox=True, speed=250)
finally:
    del os.environ["SLIPWAY_FAULT"]
    del os.environ["SLIPWAY_FAULT_ONCE"]


def poller_pid():
    for c in s.status()["components"]:
        if c["name"] == "poller":
            return c["pid"] if c["running"] else 0
    return 0


types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "crashy", "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 2,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "create accepted")
op = r.json["operation_id"]

def leased():
    """The operation is leased by a poller right now (read-only look
    at the store)."""
    try:
        rows = s.sql("SELECT lease_owner FROM operations WHERE id = '%s'"
                     % op)
        return bool(rows) and rows[0][0] is not None
    except (sqlite3.Error, RuntimeError):
        return False


kills = 0
held_kills = 0
boundary_kills = 0
seen_running = set()
deadline = time.time() + 240
born = {}          # poller pid -> when we first saw it
state = "pending"
doc = {}
while time.time() < deadline:
    doc = s.get("/api/v1/operations/%s" % op).json
    state = doc["state"]
    if state in ("succeeded", "failed", "cancelled"):
        break
    running = [st["name"] for st in doc["stages"]
               if st["state"] == "running"]
    pid = poller_pid()
    now = time.time()
    if pid:
        born.setdefault(pid, now)
    fresh = [n for n in running if n not in seen_running]
    if not all(os.path.exists(os.path.join(once, "died." + m))
               for m in MID):
        # The test's own kills come at any moment: one between a
        # create's request and its answer would leave the successor to
        # find what was made, so that fault point would never fire.
        # They wait until every mid-stage point has fired.
        seen_running.update(fresh)
    elif fresh and pid:
        # At each stage boundary: the stage has just started.
        if kill_if(pid, "slipway-poller"):
            kills += 1
            boundary_kills += 1
        seen_running.update(fresh)
    elif pid and held_kills < 10 and leased() and \
            "took over the operations" not in s.log_text("poller.log"):
        # While the poller holds the operation's lease: its successor
        # must take the lease over from the dead owner.
        if kill_if(pid, "slipway-poller"):
            kills += 1
            held_kills += 1
    elif pid and now - born[pid] > 0.6:
        # In the middle of a poll: a poller that has been at work for a
        # while on a stage that waits for AWS.
        if kill_if(pid, "slipway-poller"):
            kills += 1
    time.sleep(0.02)

if not t.eq(state, "succeeded", "the operation completed despite the kills"):
    t.diag(str([(st["name"], st["state"], st.get("error")) for st in
                doc["stages"]]))
    t.diag("\n".join(e["message"] for e in doc.get("events", [])[-15:]))
    t.diag(s.log_text("poller.log")[-3000:])
log = s.log_text("poller.log")
t.ok(all("SIGKILL after %s\n" % m in log for m in MID),
     "killed in the middle of stages, after %s (and %d more times by "
     "this test)" % (", ".join(MID), kills))
hooked = s.log_text("poller.log").count("SIGKILL after stage:")
t.eq(hooked, len(STAGES), "killed once at each of the %d stage boundaries "
     "(and %d more seen starting)" % (len(STAGES), boundary_kills))
log = s.log_text("slipway.log")
t.ok(log.count("component poller") >= kills - 1,
     "each kill was logged and the poller restarted")
t.ok("took over the operations" in s.log_text("poller.log"),
     "a restarted poller took over the dead one's lease")

creates = {}
for e in sandbox_requests(s, mutating="true"):
    op_name = e["operation"]
    if (op_name.startswith("Create") or op_name == "AllocateAddress") and \
            e.get("status", 200) < 300:
        key = e["service"] + ":" + op_name
        creates[key] = creates.get(key, 0) + 1
expect = {"ec2:CreateVpc": 1, "ec2:CreateSubnet": 5,
          "ec2:CreateInternetGateway": 1, "ec2:AllocateAddress": 1,
          "ec2:CreateNatGateway": 1, "ec2:CreateRouteTable": 2,
          "ec2:CreateSecurityGroup": 1, "eks:CreateCluster": 1,
          "sagemaker:CreateCluster": 1, "iam:CreateRole": 2,
          "iam:CreateOpenIDConnectProvider": 1}
for k, v in sorted(expect.items()):
    t.eq(creates.get(k, 0), v, "exactly %d %s" % (v, k))
s.stop()
t.done()
