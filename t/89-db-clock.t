#!/usr/bin/python3
# 89-db-clock.t: when an operation is next due is the database's clock,
# not the host's of the poller that released it.  The poller here runs
# as on a host whose clock is an hour ahead (SLIPWAY_FAULT_CLOCK): a due
# time it took from its own clock would leave each waiting operation
# unclaimed for an hour, as the claims of every replica compare due
# times with the database's clock.  A cluster's whole create, with its
# waits, still completes, and no waiting operation is due further than
# its poll ahead.
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, wait_for, wait_operation
from harness import need_clusters, need_fault_injection

HOUR_MS = 3600 * 1000

t = T()
need_clusters(t)
need_fault_injection(t)
os.environ["SLIPWAY_FAULT_CLOCK"] = "%d@slipway-poller" % HOUR_MS
try:
    s = Stack(t, sandbox=True, speed=3000)
finally:
    del os.environ["SLIPWAY_FAULT_CLOCK"]

t.ok(wait_for(lambda: "the wall clock is moved by %d ms" % HOUR_MS in
              s.log_text("poller.log"), timeout=60),
     "the poller runs an hour ahead of the database")

types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "skewed", "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "create accepted")
op = r.json["operation_id"]

# While it runs, each time it waits it is due within minutes on this
# host's clock (the database's): never an hour ahead.  One that is ends
# the wait: it would not be claimed for an hour.
ahead = []


def done():
    d = s.get("/api/v1/operations/%s" % op).json
    due = d.get("due_ms") or 0
    if due > time.time() * 1000 + HOUR_MS / 2:
        ahead.append(due)
    return d if d.get("terminal") or ahead else None


d = wait_for(done, timeout=900, every=2) or wait_operation(s, op, 30)
t.eq(d.get("state"), "succeeded",
     "the create completed through its waits (%s)" % d.get("error"))
t.eq(ahead, [], "no release put the operation an hour ahead")
t.ok(not any("lease token" in ln and "no longer current" in ln
             for ln in s.log_text("poller.log").splitlines()),
     "no lease of the poller's was lost to its clock")
s.stop()
t.done()
