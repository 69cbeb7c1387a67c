#!/usr/bin/python3
# 85-postgresql.t: the state store on a real PostgreSQL (lib/db_pg.c).  A
# PostgreSQL 15 cluster is made in a temporary directory and started by
# the test, as the postgres system user when the test runs as root, on a
# free port and a unix socket in that directory.  A whole stack runs on
# it with the sandbox (slipway.conf's database = postgresql://...): a
# cluster is created, an instance group scaled while the poller is killed
# right after it sent UpdateCluster (SLIPWAY_FAULT=kill-after, when the
# build has it; else the poller is SIGKILLed while the scale runs), and
# the cluster deleted.  Every operation succeeds and, in the sandbox's
# request log, no mutation was sent twice.  A webhook subscription gets
# each stage's and operation's result once (PostgreSQL's triggers write
# the outbox, the poller's claims deliver it).  `slipway doctor` reports the
# database: its engine and version, the schema against the build's, and
# that it is reachable, and its clock against the host's; the tables
# hold the stack's rows (read with psql).
# First, the unit tests of the state's callers (operations, tokens and
# sessions, budgets, notifications, MCP) run on an empty PostgreSQL
# database each (t/unit/tmpdb.h's SW_TEST_DATABASE).
# Skips only when the PostgreSQL binaries are absent.
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import BUILDDIR, SLIPWAY, Stack, fault_injection_built
from harness import kill_if, need_clusters, sandbox_requests, wait_for
from harness import wait_operation
import pgserver
import webhook

t = T()
pgserver.binaries(t)
need_clusters(t)

# ---- a PostgreSQL cluster of our own ------------------------------------
srv = pgserver.Server(t)
tmp = srv.dir
URL = srv.url
psql = srv.psql


# ---- the state's unit tests on it ---------------------------------------
for unit in ("test-ops", "test-auth", "test-budget", "test-notify",
             "test-mcp"):
    name = "unit_" + unit.replace("-", "_")
    srv.createdb(name)
    r = subprocess.run([os.path.join(BUILDDIR, "t", "unit", unit)],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, SW_TEST_DATABASE=URL.replace(
                           "/slipway?", "/%s?" % name)))
    lines = r.stdout.splitlines()
    failed = [ln for ln in lines if ln.startswith("not ok")]
    t.ok(r.returncode == 0 and not failed and
         any(ln.startswith("ok") for ln in lines),
         "t/unit/%s passes on PostgreSQL (%d checks)" %
         (unit, sum(1 for ln in lines if ln.startswith("ok"))))
    if failed or r.returncode != 0:
        for ln in failed[:10] + r.stderr.splitlines()[-5:]:
            t.diag(ln)

# ---- a stack on it -------------------------------------------------------
fault = fault_injection_built()
once = os.path.join(tmp, "killed")
if fault:
    os.environ["SLIPWAY_FAULT"] = "kill-after:UpdateCluster"
    os.environ["SLIPWAY_FAULT_ONCE"] = once
s = Stack(t, sandbox=True, speed=3000, database=URL)
os.environ.pop("SLIPWAY_FAULT", None)
os.environ.pop("SLIPWAY_FAULT_ONCE", None)

t.ok(not os.path.exists(os.path.join(s.state, "state.db")),
     "no state.db: the state is in PostgreSQL")
t.eq(psql("SELECT version FROM slipway_schema"),
     str(s.get("/api/v1/version").json.get("schema_version")),
     "the schema version PostgreSQL holds is the one the API reports")


def op(what, method, path, body=None):
    r = s.request(method, path, body=body)
    t.eq(r.status, 202, "%s accepted" % what)
    return r.json.get("operation_id", "")


def done(what, op_id, timeout=300):
    d = wait_operation(s, op_id, timeout=timeout)
    t.eq(d.get("state"), "succeeded", "%s succeeded (%s)" %
         (what, d.get("error")))
    return d


rx = webhook.Receiver()
r = s.post("/api/v1/subscriptions", {
    "name": "hook", "target": "webhook", "url": rx.url + "/ok",
    "secret": "pg-test-secret-0123456789",
    "events": ["operation.succeeded", "stage.succeeded"]})
t.eq(r.status, 201, "a webhook subscription (%s)" % r.body[:200])

types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
done("cluster create", op("cluster create", "POST", "/api/v1/clusters", {
    "name": "pgc", "node_recovery": "None", "instance_groups": [
        {"name": "w", "instance_type": g["instance_type"], "count": 1,
         "availability_zone": g["availability_zones"][0]}]}))
t.eq(psql("SELECT count(*) FROM clusters WHERE name = 'pgc'"), "1",
     "the cluster Slipway owns is a row of PostgreSQL's clusters")

poller_pids = [c["pid"] for c in s.status().get("components", [])
               if c.get("name") == "poller" and c.get("pid")]
scale = op("instance group scale", "PATCH",
           "/api/v1/clusters/pgc/instance-groups/w", {"count": 2})
if not fault:
    # Without the fault hook: kill the poller while the scale runs.
    wait_for(lambda: s.get("/api/v1/operations/%s" % scale).json.get(
        "state") == "running", timeout=60)
    for p in poller_pids:
        kill_if(p, "slipway-poller")
done("instance group scale, the poller killed in its midst", scale)
if fault:
    t.ok(os.path.exists(once + ".UpdateCluster"),
         "the poller was killed right after it sent UpdateCluster")
t.ok(wait_for(lambda: any(
    c.get("name") == "poller" and c.get("pid") and
    c["pid"] not in poller_pids for c in s.status().get("components", [])),
    timeout=60), "the supervisor started a new poller, which resumed")
t.eq(len(s.get("/api/v1/clusters/pgc/nodes").json.get("items", [])), 2,
     "the group has the two nodes asked for")
done("cluster delete", op("cluster delete", "DELETE",
                          "/api/v1/clusters/pgc"))

# ---- exactly once --------------------------------------------------------
sent = [e for e in sandbox_requests(s, mutating="true")
        if 200 <= e.get("status", 0) < 300]
for name in ("CreateCluster", "UpdateCluster", "DeleteCluster"):
    t.eq(sum(1 for e in sent if e["service"] == "sagemaker" and
             e["operation"] == name), 1, "exactly one %s request" % name)
seen = {}
for e in sent:
    key = (e["service"], e["operation"], json.dumps(e.get("params"),
                                                    sort_keys=True))
    seen[key] = seen.get(key, 0) + 1
twice = [k for k, n in seen.items() if n > 1]
t.ok(not twice, "no mutation was sent twice (%d mutations)" % len(sent))
for k in twice[:10]:
    t.diag("sent %d times: %s %s %s" % ((seen[k],) + k))
t.eq(psql("SELECT count(*) FROM operations WHERE state <> 'succeeded'"),
     "0", "every operation PostgreSQL holds succeeded")

# ---- notifications, written by PostgreSQL's triggers -------------------


def deliveries(**q):
    qs = "&".join("%s=%s" % kv for kv in q.items())
    return s.get("/api/v1/deliveries?limit=500&" + qs).json["items"]


t.ok(wait_for(lambda: not deliveries(state="pending"), timeout=120),
     "every delivery settled")
outbox = deliveries(subscription="hook")
ops = [x for x in outbox if x["kind"] == "operation.succeeded"]
t.eq(len(ops), 3, "one operation.succeeded event per operation")
t.ok(len([x for x in outbox if x["kind"] == "stage.succeeded"]) > 3,
     "and the stages' results (%d events in all)" % len(outbox))
got = sorted(h.get("Slipway-Event-Id") for h, b in rx.received("/ok"))
t.eq(got, sorted(x["event_id"] for x in outbox),
     "the webhook got each event exactly once")
t.eq(psql("SELECT count(*) FROM deliveries WHERE state <> 'delivered'"),
     "0", "PostgreSQL's outbox holds every delivery as delivered")
bad = [ln for name in ("api.log", "mcp.log", "poller.log", "stream.log")
       for ln in s.log_text(name).splitlines() if "postgresql" in ln and
       " error " in ln]
t.ok(not bad, "no PostgreSQL error in the stack's logs")
for ln in bad[:10]:
    t.diag(ln)

# ---- doctor --------------------------------------------------------------
r = subprocess.run([SLIPWAY, "doctor", "--json", "--local", "--state-dir",
                    s.state], capture_output=True, text=True, timeout=120)
try:
    found = {f["check"]: f for f in json.loads(r.stdout)["findings"]}
except (ValueError, KeyError):
    found = {}
    t.diag("doctor said: %r %r" % (r.stdout, r.stderr))
db = found.get("database", {})
t.ok(db.get("ok"), "doctor finds the database well (%s)" % db.get("detail"))
t.ok(str(db.get("detail", "")).startswith("postgresql 15."),
     "doctor names the engine and its version")
t.ok("reachable" in db.get("detail", "") and "schema %s of %s" % (
    psql("SELECT version FROM slipway_schema"),
    psql("SELECT version FROM slipway_schema")) in db.get("detail", ""),
    "doctor says it is reachable and migrated to this build's schema")
clock = found.get("database clock", {})
t.ok(clock.get("ok") and "ms of this host" in clock.get("detail", ""),
     "doctor compares the database's clock with the host's (%s)" %
     clock.get("detail"))
t.ok("slipway@" not in r.stdout and tmp not in db.get("detail", ""),
     "doctor does not print the database URL")

# A database that cannot be reached is a finding, not a crash.
srv.stop()
r = subprocess.run([SLIPWAY, "doctor", "--json", "--local", "--state-dir",
                    s.state], capture_output=True, text=True, timeout=120)
try:
    found = {f["check"]: f for f in json.loads(r.stdout)["findings"]}
except (ValueError, KeyError):
    found = {}
t.ok(found.get("database", {}).get("ok") is False,
     "with PostgreSQL stopped, doctor says the database cannot be reached")
srv.start()
s.stop()
t.done()
