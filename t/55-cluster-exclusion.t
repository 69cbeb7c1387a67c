#!/usr/bin/python3
# 55-cluster-exclusion.t: one live operation per cluster.  Two creates of
# one cluster sent at once make one operation: the other is 409 naming
# it, or (when it comes once the first is recorded) the same create
# again, answered with that operation.  While an
# operation holds a cluster every other mutating operation on it is 409
# naming the holder; other clusters are free.  A cancelled operation
# retried runs again instead of being cancelled at once.  A create of a
# cluster that exists and is ours reaches the "already exists" branch
# (the sanitizer build checks it).  State writes of the runner that fail
# (a trigger in the state store refuses them) hold the operation back until they
# work again; nothing is created that could not be recorded.
import os
import signal
import sqlite3
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, kill_if, sandbox_call, sandbox_requests,
                     wait_operation)

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=2000, workers=4)


def poller_pid():
    for c in s.status()["components"]:
        if c["name"] == "poller":
            return c["pid"] if c["running"] else 0
    return 0


types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
body = {"name": "excl", "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]}

# ---- two creates at once: exactly one wins
results = []
gate = threading.Barrier(2)


def create():
    gate.wait()
    results.append(s.post("/api/v1/clusters", body))


threads = [threading.Thread(target=create) for _ in range(2)]
for th in threads:
    th.start()
for th in threads:
    th.join()
codes = sorted(r.status for r in results)
made = {r.json.get("operation_id") for r in results if r.status == 202}
t.ok(codes in ([202, 409], [202, 202]) and len(made) == 1,
     "two concurrent creates of one cluster make one operation: %s" % codes)
won = next(r for r in results if r.status == 202)
lost = next((r for r in results if r.status == 409), None)
if lost is not None:
    t.ok(lost.json.get("type", "").endswith("/busy") and
         won.json["operation_id"] in lost.json.get("detail", ""),
         "the loser names the operation holding the cluster: %s" %
         lost.json.get("detail"))
else:
    # The second came once the first was recorded: the same create
    # again, answered with its operation.
    t.ok(any(r.json.get("idempotent_replay") for r in results),
         "the other is the same create again, answered with its operation")
d = wait_operation(s, won.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "the winner created the cluster")

# ---- the "exists and ours" branch of create
r = s.post("/api/v1/clusters?dry_run=true", body)
if not t.eq(r.status, 200, "dry-run create of a cluster that is ours plans"):
    t.diag(r.body)

# ---- hold the cluster with an operation the poller cannot take
DB = os.path.join(s.state, "state.db")


def pause_idle(pid):
    """SIGSTOP the poller outside a write transaction: one stopped inside
    would hold the state store's write lock until it runs again."""
    end = time.time() + 120
    while time.time() < end:
        if not kill_if(pid, "slipway-poller", signal.SIGSTOP):
            return False
        try:
            if s.database is None:
                c = sqlite3.connect(DB, timeout=0.5)
                c.execute("BEGIN IMMEDIATE")
                c.rollback()
                c.close()
                return True
            # PostgreSQL: no session of the stack's sits in a transaction
            if s.sql("SELECT count(*) FROM pg_stat_activity WHERE datname"
                     " = current_database() AND pid <> pg_backend_pid()"
                     " AND state LIKE 'idle in transaction%%'")[0][0] == "0":
                return True
            raise sqlite3.OperationalError("a transaction is open")
        except sqlite3.OperationalError:
            kill_if(pid, "slipway-poller", signal.SIGCONT)
            time.sleep(0.05)
    return False


pid = poller_pid()
t.ok(pid and pause_idle(pid), "poller paused")
node = s.get("/api/v1/clusters/excl/nodes").json["items"][0]["node_id"]
r = s.post("/api/v1/clusters/excl/nodes:reboot", {"node_ids": [node]})
if not t.eq(r.status, 202, "an operation holds the cluster"):
    t.diag(r.body)
holder = r.json["operation_id"]
others = [
    ("POST", "/api/v1/clusters/excl/instance-groups",
     {"group_name": "extra", "instance_type": g["instance_type"],
      "count": 1}),
    ("PATCH", "/api/v1/clusters/excl/instance-groups/w", {"count": 2}),
    ("DELETE", "/api/v1/clusters/excl/instance-groups/w", None),
    ("POST", "/api/v1/clusters/excl/nodes:replace",
     {"node_ids": ["i-0000000000000dead"]}),
    ("POST", "/api/v1/clusters/excl/storage",
     {"kind": "s3", "claim": "data", "bucket": "excl-data",
      "create_bucket": True}),
    ("POST", "/api/v1/clusters/excl:update-software", {}),
    ("PATCH", "/api/v1/clusters/excl/features",
     {"kuberay": True}),
    ("DELETE", "/api/v1/clusters/excl", None),
]
for method, path, b in others:
    r = s.request(method, path, body=b)
    t.ok(r.status == 409 and holder in (r.json or {}).get("detail", ""),
         "%s %s while held: 409 naming %s (%s)" % (method, path, holder,
                                                    r))

# ---- cancel, then retry: the retry runs
r = s.post("/api/v1/operations/%s:cancel" % holder)
t.ok(r.status in (200, 202), "cancel accepted (%s)" % r)
r = s.get("/api/v1/operations/" + holder)
t.eq(r.json.get("state"), "cancelled", "a pending operation is cancelled "
     "at once")
r = s.post("/api/v1/operations/%s:retry" % holder)
t.eq(r.status, 202, "retry accepted")
r = s.get("/api/v1/operations/" + holder)
t.ok(r.json.get("state") == "pending" and
     not r.json.get("cancel_requested"),
     "the retried operation is pending, its old cancel request cleared")
t.ok(kill_if(pid, "slipway-poller", signal.SIGCONT), "poller resumed")
d = wait_operation(s, holder)
t.eq(d.get("state"), "succeeded", "the retried operation ran to the end")

# ---- the runner's state writes fail: the operation waits, loses nothing
t.ok(pause_idle(pid), "poller paused again")
for _ in range(5):
    r = s.post("/api/v1/clusters/excl/storage",
               {"kind": "s3", "claim": "data", "bucket": "excl-data",
                "create_bucket": True})
    # A read that timed out on a loaded machine is a 503 with
    # Retry-After: a client comes back then, as this one does.
    if r.status not in (429, 503):
        break
    t.diag("storage_add: %d %s" % (r.status, r.body[:300]))
    time.sleep(float(r.header("Retry-After") or 1))
if not t.eq(r.status, 202, "storage_add accepted"):
    t.diag(r.body[:500])
sop = r.json["operation_id"]
if s.database is None:
    s.sql("CREATE TRIGGER inject_write_failure BEFORE UPDATE OF ext ON "
          "stages WHEN NEW.op_id = '%s' BEGIN SELECT RAISE(ABORT, "
          "'injected'); END;" % sop)
else:
    s.sql("CREATE FUNCTION inject_write_failure() RETURNS trigger "
          "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$")
    s.sql("CREATE TRIGGER inject_write_failure BEFORE UPDATE OF ext ON "
          "stages FOR EACH ROW WHEN (NEW.op_id = '%s') EXECUTE FUNCTION "
          "inject_write_failure()" % sop)
kill_if(pid, "slipway-poller", signal.SIGCONT)
time.sleep(4)
r = s.get("/api/v1/operations/" + sop)
t.ok(r.json.get("state") in ("pending", "running") and
     not any(st["state"] == "succeeded" for st in r.json["stages"]),
     "while its resources cannot be recorded no stage succeeds and the "
     "operation does not end (%s)" % r.json.get("state"))
t.ok("cannot record its resources" in s.log_text("poller.log"),
     "the poller says why")
s.sql("DROP TRIGGER inject_write_failure" +
      ("" if s.database is None else " ON stages"))
d = wait_operation(s, sop)
t.eq(d.get("state"), "succeeded", "once writes work the operation ends")
t.eq(d["stages"][0]["resources"].get("bucket"), "excl-data",
     "with its resources recorded")
t.eq(len([e for e in sandbox_requests(s, mutating="true")
          if e["operation"] == "CreateBucket" and
          e["params"].get("Bucket") == "excl-data"]), 1,
     "the bucket was created once, however often the stage ran")

# ---- a 5xx from EKS while reaching the Kubernetes API is transient
st, _ = sandbox_call(s, "POST", "/_sandbox/faults", {"rules": [
    {"service": "eks", "operation": "DescribeCluster", "fault": "error_5xx",
     "count": 12}]})
r = s.get("/api/v1/clusters/excl/storage")
t.ok(r.status == 503 and r.header("Retry-After"),
     "a request whose Kubernetes client cannot be had for 5xx: 503 with "
     "Retry-After (%s)" % r)
sandbox_call(s, "DELETE", "/_sandbox/faults")
sandbox_call(s, "POST", "/_sandbox/faults", {"rules": [
    {"service": "eks", "operation": "DescribeCluster", "fault": "error_5xx",
     "count": 6}]})
r = s.post("/api/v1/clusters/excl/storage",
           {"kind": "s3", "claim": "data2", "bucket": "excl-data"})
t.eq(r.status, 202, "storage_add while EKS answers 5xx")
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "the stage waited out the 5xx instead "
     "of failing (%s)" % d.get("error"))
sandbox_call(s, "DELETE", "/_sandbox/faults")

r = s.request("DELETE", "/api/v1/clusters/excl")
t.eq(r.status, 202, "once free, the cluster can be deleted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "teardown succeeded")
s.stop()
t.done()
