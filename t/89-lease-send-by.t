#!/usr/bin/python3
# 89-lease-send-by.t: a poller paused between its lease check and an AWS
# call that cannot be made twice does not send the call when it wakes
# after another poller took the operation over.
#
# EC2 AllocateAddress has no idempotency token: two calls make two
# Elastic IPs.  Two replicas on one PostgreSQL database; the fault
# stop-before:AllocateAddress (SLIPWAY_FAULT, once) stops the first
# poller to reach the call with SIGSTOP, right after the lease check
# that precedes it.  Its lease runs out, the other replica's poller
# claims the operation, finds no address and allocates one.  Then the
# stopped poller is continued: the lease it checked may have moved, so
# the call is past its send-by time (sw_lease_send_by) and is not sent.
# The sandbox's request log holds one AllocateAddress, and the cluster
# is created.  PostgreSQL 15 as in t/85-postgresql.t; skips when its
# binaries are absent.
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, sandbox_requests, wait_for, wait_operation
import pgserver

once = tempfile.mkdtemp(prefix="sw-sendby-")
os.environ["SLIPWAY_FAULT"] = "stop-before:AllocateAddress"
os.environ["SLIPWAY_FAULT_ONCE"] = os.path.join(once, "fired")

t = T()
srv = pgserver.Server(t, prefix="sw-pgsend-")
a = Stack(t, sandbox=True, speed=3000, database=srv.url)
b = Stack(t, database=srv.url, token_name="replica-b", conf=[
    "sandbox_join = %s" % os.path.join(a.state, "sandbox", "sandbox.json")])
b.token = a.token
del os.environ["SLIPWAY_FAULT"]


def pollers():
    return [c["pid"] for s in (a, b) for c in s.status().get(
        "components", []) if c.get("name") == "poller" and c.get("pid")]


def stopped():
    for pid in pollers():
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "T":
                    return pid
        except OSError:
            pass
    return None


def allocations():
    return [e for e in sandbox_requests(a, service="ec2")
            if e.get("operation") == "AllocateAddress"]


types = a.get("/api/v1/instance-types?gpu_only=true").json["items"]
gtype = next(i for i in types if not i["efa_supported"])
r = a.post("/api/v1/clusters", {
    "name": "sendby", "node_recovery": "None", "instance_groups": [
        {"name": "w", "instance_type": gtype["instance_type"], "count": 1,
         "availability_zone": gtype["availability_zones"][0]}]})
t.eq(r.status, 202, "a cluster create is accepted")
op_id = r.json.get("id")

pid = wait_for(stopped, timeout=180, every=0.5)
t.ok(pid, "a poller stopped itself right before AllocateAddress")
t.eq(len(allocations()), 0, "and had not sent it")
t.ok(wait_for(lambda: len(allocations()) >= 1, timeout=120, every=0.5),
     "its lease ran out and another poller allocated the address")

try:
    os.kill(pid, signal.SIGCONT)
except (TypeError, ProcessLookupError):
    t.diag("the stopped poller is gone")
doc = wait_operation(a, op_id, timeout=300)
t.eq(doc.get("state"), "succeeded", "the cluster is created")


def woke():
    mine = "slipway-poller[%d]" % pid
    return any(mine in line and "moved to another poller" in line
               for s in (a, b) for n in os.listdir(
                   os.path.join(s.state, "logs"))
               for line in s.log_text(n).splitlines())


t.ok(pid and wait_for(woke, timeout=120, every=0.5),
     "the continued poller found its lease moved")
calls = allocations()
t.eq(len(calls), 1, "one AllocateAddress in the sandbox's request log, "
     "none sent by the poller that woke past its send-by time")
for s in (a, b):
    s.check_logs()
b.stop()
a.stop()
t.done()
