#!/usr/bin/python3
# 35-mcp-subs-cap.t: legacy MCP subscriptions are bounded.  One read
# token subscribing from 40 sessions holds folders for at most 4 of them
# (the others get a JSON-RPC error that says why); unsubscribing the last
# resource of a session frees its folder and its slot; the folder of an
# expired session is swept when another session subscribes.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, need_clusters
from mcp_raw import Mcp

t = T()
need_clusters(t)
s = Stack(t, sandbox=True)
reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()
types = s.get("/api/v1/instance-types").json["items"]
it = types[0]
r = s.post("/api/v1/clusters", {"name": "subs", "instance_groups": [
    {"name": "cpu", "instance_type": it["instance_type"], "count": 1,
     "availability_zone": it["availability_zones"][0]}]})
t.eq(r.status, 202, "an operation to subscribe to")
uri = "slipway://operations/" + r.json["operation_id"]
subs = os.path.join(s.state, "run", "mcp-subs")
m = Mcp(s, token=reader)


def folders():
    return sorted(os.listdir(subs)) if os.path.isdir(subs) else []


def entries():
    return sum(len(os.listdir(os.path.join(subs, d))) for d in folders())


results = []
sids = []
for i in range(40):
    _, sid = m.initialize()
    sids.append(sid)
    r = m.legacy("resources/subscribe", {"uri": uri}, sid=sid, rid=i + 1)
    results.append((r.json or {}).get("error"))
ok = [i for i, e in enumerate(results) if e is None]
t.eq(ok, [0, 1, 2, 3], "the first 4 sessions subscribe")
t.ok(all(e and "Too many subscriptions" in e.get("message", "")
         for e in results[4:]),
     "the other 36 are told why (%s)" % (results[4] or {}).get("message"))
t.eq(len(folders()), 4, "4 session folders, not 40")
t.ok(entries() <= 8, "%d files in all" % entries())

r = m.legacy("resources/unsubscribe", {"uri": uri}, sid=sids[0], rid=99)
t.ok((r.json or {}).get("error") is None, "unsubscribe works")
t.eq(len(folders()), 3, "its now empty folder is gone")
r = m.legacy("resources/subscribe", {"uri": uri}, sid=sids[10], rid=100)
t.ok((r.json or {}).get("error") is None, "and its slot is free again")

# A session of yesterday (the folder name carries the expiry).
stale = os.path.join(subs, "%016x" % 1000000000 + "00" + "ab" * 8)
os.makedirs(stale)
with open(os.path.join(stale, ".token"), "w") as f:
    f.write("someone")
with open(os.path.join(stale, "o-x"), "w") as f:
    f.write("slipway://operations/x\n0\n")
admin = Mcp(s)
_, sid = admin.initialize()
r = admin.legacy("resources/subscribe", {"uri": uri}, sid=sid, rid=1)
t.ok((r.json or {}).get("error") is None, "another token subscribes")
t.ok(not os.path.exists(stale), "an expired session's folder was swept")
s.post("/api/v1/operations/%s:cancel" % uri.rsplit("/", 1)[1], {})
s.stop()
t.done()
