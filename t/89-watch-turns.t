#!/usr/bin/python3
# 89-watch-turns.t: two replicas on one PostgreSQL database share the
# cluster watch.  Each cluster's watch is a turn (the table turns, one
# row per cluster) that one poller of one replica takes per watch
# interval, by the database's clock, so a cluster is read once per
# interval however many replicas run, not once per poller.  Measured in
# the sandbox's request log: the HyperPod ListClusterEvents calls for
# one cluster, which two pollers each watching every cluster would send
# twice as often.  No poller asks EKS DescribeCluster for the cluster's
# API server in a pass: the create's saw it, and it is kept with the
# cluster's record, so a poller that takes the turn reaches it, a
# restarted one too.  The usage ledger is such a turn too.  When one
# replica stops, the other keeps the watch.
# PostgreSQL 15 as in t/85-postgresql.t; skips when its binaries are
# absent.
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, sandbox_requests, wait_for, wait_operation
import pgserver

INTERVAL = 3          # s, the watch interval of both replicas
CALLS = 7             # ListClusterEvents calls looked at
os.environ["SLIPWAY_WATCH_INTERVAL"] = str(INTERVAL)

t = T()
srv = pgserver.Server(t, prefix="sw-pgturn-")
a = Stack(t, sandbox=True, speed=3000, database=srv.url)
b = Stack(t, database=srv.url, token_name="replica-b", conf=[
    "sandbox_join = %s" % os.path.join(a.state, "sandbox", "sandbox.json")])
b.token = a.token
t.ok(all(s.get("/api/v1/version").status == 200 for s in (a, b)),
     "two replicas answer on one database")

types = a.get("/api/v1/instance-types?gpu_only=true").json["items"]
gtype = next(i for i in types if not i["efa_supported"])
r = b.post("/api/v1/clusters", {
    "name": "turns", "node_recovery": "None", "instance_groups": [
        {"name": "w", "instance_type": gtype["instance_type"], "count": 1,
         "availability_zone": gtype["availability_zones"][0]}]})
t.eq(r.status, 202, "a cluster created through replica b")
doc = wait_operation(a, r.json.get("id"), timeout=300)
t.eq(doc.get("state"), "succeeded", "and its operation succeeds")


def events_calls(since):
    return [e for e in sandbox_requests(a, since=since)
            if e.get("operation") == "ListClusterEvents" and
            e.get("params", {}).get("ClusterName") == "turns"]


def seq_now():
    reqs = sandbox_requests(a)
    return reqs[-1]["seq"] if reqs else 0


# From now on the pipeline makes no more calls; every ListClusterEvents
# of the cluster is the watch's.
since = seq_now()
calls = wait_for(lambda: len(events_calls(since)) >= CALLS and
                 events_calls(since), timeout=CALLS * INTERVAL * 6, every=1)
times = [e["time"] for e in (calls or [])][:CALLS]
span = times[-1] - times[0] if len(times) == CALLS else 0
# Turns are taken INTERVAL apart by the database's clock; a call follows
# its turn by a pass's few reads, so CALLS calls span at least
# (CALLS - 1) intervals less one.  Two pollers watching on their own
# send them twice as often: about half that span.
t.ok(span >= (CALLS - 1) * INTERVAL - INTERVAL,
     "%d watch reads of one cluster over two replicas span %.1f s, one "
     "per %d s interval (two pollers on their own: about %d s)" % (
         CALLS, span, INTERVAL, (CALLS - 1) * INTERVAL // 2))


def described(since):
    return [e for e in sandbox_requests(a, service="eks", since=since)
            if e.get("operation") == "DescribeCluster"]


t.eq(len(described(since)), 0,
     "the pollers asked EKS where the cluster's API server is 0 times in "
     "those %d passes" % CALLS)
row = srv.psql("SELECT api_endpoint, substr(api_ca, 1, 27) FROM clusters"
               " WHERE name = 'turns'").split("|")
t.ok(len(row) == 2 and row[0].startswith("https://") and
     row[1] == "-----BEGIN CERTIFICATE-----",
     "the cluster's record holds its API server's endpoint and CA (%s)" %
     row[0])

# A poller killed and restarted remembers nothing of its own: it reaches
# the API server at what the record holds.
old = {}
for s in (a, b):
    for c in s.status().get("components", []):
        if c.get("name") == "poller" and c.get("pid"):
            old[c["pid"]] = s
            os.kill(c["pid"], signal.SIGKILL)
t.eq(len(old), 2, "both replicas' pollers SIGKILLed")


def restarted():
    pids = [c.get("pid") for s in (a, b)
            for c in s.status().get("components", [])
            if c.get("name") == "poller" and c.get("pid")]
    return len(pids) == 2 and not set(pids) & set(old)


t.ok(wait_for(restarted, timeout=60), "and restarted by their supervisors")
since = seq_now()
t.ok(wait_for(lambda: len(events_calls(since)) >= 3, timeout=INTERVAL * 30,
              every=1), "the restarted pollers watch the cluster")
t.eq(len(described(since)), 0,
     "and asked EKS DescribeCluster 0 times: the record told them")
rows = srv.psql("SELECT name FROM turns ORDER BY name")
t.eq(rows.split("\n"), ["ledger", "ledger turns", "watch turns"],
     "the turns are rows of the database: budgets and training plans, "
     "the usage ledger's sample of the cluster, and its watch")

# The turn is no replica's: with b gone, a keeps the watch.
b.stop()
since = seq_now()
t.ok(wait_for(lambda: len(events_calls(since)) >= 2, timeout=INTERVAL * 20,
              every=1),
     "with replica b stopped, replica a still watches the cluster")
a.check_logs()
a.stop()
t.done()
