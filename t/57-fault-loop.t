#!/usr/bin/python3
# 57-fault-loop.t: fault injection (lib/fault.h) over the whole worker
# path of a cluster create, a feature change and an MCP tools/call.
# t/unit/fault-loop runs each request in process against this stack's
# sandbox, once with no fault and then once for every allocation, SQLite
# call and HTTP request it makes, each made to fail in turn, and checks
# that every run answers a clean error (or succeeds), leaves the
# database whole with the operation absent or complete, and lets the
# same request succeed next; under ASan/LSan each run must also exit
# with no leak.  Its TAP lines are relayed here.
#
# Then the poller: a second stack whose poller alone fails one SQLite
# call in 61 (SLIPWAY_FAULT=sqlite:%61@slipway-poller, dozens of
# failures over a create) must still take a cluster create to the end,
# every stage succeeded: a failed state write is retried, never the end
# of the operation, and a failed stage is never run past.
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import BUILDDIR, Stack, need_fault_injection, wait_operation

t = T()
LOOP = os.path.join(BUILDDIR, "t", "unit", "fault-loop")
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
if not os.path.exists(LOOP):
    t.skip_all("t/unit/fault-loop not built (make check builds it)")
need_fault_injection(t)
s = Stack(t, sandbox=True, speed=3000)
C = "flt"

# ---- a cluster for feature_set to change (as t/61)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
zone = g["availability_zones"][0]
r = s.post("/api/v1/clusters", {"name": C, "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": zone}]})
t.eq(r.status, 202, "cluster create accepted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")


def relay(args, timeout):
    """Run the loop; relay its TAP lines as ours."""
    try:
        p = subprocess.run([LOOP, s.state, C, g["instance_type"], zone] +
                           args, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        t.ok(False, "fault-loop %s finished in %d s" % (args, timeout))
        return
    n = 0
    for line in p.stdout.splitlines():
        m = re.match(r"(not ok|ok) \d+ - (.*)", line)
        if m:
            t.ok(m.group(1) == "ok", m.group(2))
            n += 1
        elif line.startswith("#"):
            print(line, flush=True)
    t.ok(p.returncode == 0 and n > 0, "fault-loop %s exits 0" % args)
    if p.returncode != 0:
        t.diag(p.stderr[-3000:])


# The limit guards against a hang, not a speed: every fault point of
# every request, under ASan on a loaded machine, takes many minutes.
relay([], 1500)
s.stop()

# ---- the poller under SQLite faults
os.environ["SLIPWAY_FAULT"] = "sqlite:%61@slipway-poller"
try:
    p = Stack(t, sandbox=True, speed=3000)
finally:
    del os.environ["SLIPWAY_FAULT"]
r = p.post("/api/v1/clusters", {"name": "pf", "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": zone}]})
t.eq(r.status, 202, "create accepted (only the poller takes faults)")
d = wait_operation(p, r.json["operation_id"], timeout=300)
fired = p.log_text("poller.log").count("fault injection: sqlite")
t.ok(fired >= 10, "the poller met SQLite failures (%d)" % fired)
if not t.eq(d.get("state"), "succeeded", "the create still succeeded"):
    t.diag(json.dumps(d, indent=1)[-3000:])
t.eq([x["state"] for x in d.get("stages", [])],
     ["succeeded"] * len(d.get("stages", [])) or ["?"],
     "every stage succeeded, none skipped or failed")
p.stop()
t.done()
