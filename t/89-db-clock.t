#!/usr/bin/python3
# 89-db-clock.t: when an operation is next due is the database's clock,
# not the host's of the poller that released it.  The poller here runs
# as on a host whose clock is an hour ahead (SLIPWAY_FAULT_CLOCK): a due
# time it took from its own clock would leave each waiting operation
# unclaimed for an hour, as the claims of every replica compare due
# times with the database's clock.  A cluster's whole create, with its
# waits, still completes, and no waiting operation is due further than
# its poll ahead.  Every time it writes (an update, a stage's start and
# end, an event) is the database's too: updated_ms only grows, so a
# long poll from the last one seen wakes on the next change.  Token and
# session expiry are the database's clock as well.
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

# Followed through its long poll, as a client does: every answer is a
# change (updated_ms only grows, so a wait from the last one seen wakes
# on the next), and while it waits it is due within minutes on this
# host's clock (the database's), never an hour ahead: one that is would
# not be claimed for an hour.
d = s.get("/api/v1/operations/%s" % op).json
seen, ahead, since = [d.get("updated_ms", 0)], [], d.get("updated_ms", 0)
deadline = time.time() + 600
while time.time() < deadline:
    r = s.get("/api/v1/operations/%s:wait?timeout=60&since_updated_ms=%d" %
              (op, since))
    if r.status != 200:
        break
    d = r.json
    seen.append(d.get("updated_ms", 0))
    if (d.get("due_ms") or 0) > time.time() * 1000 + HOUR_MS / 2:
        ahead.append(d.get("due_ms"))
    since = max(since, d.get("updated_ms", since))
    if d.get("terminal") or ahead:
        break
d = s.get("/api/v1/operations/%s" % op).json
t.eq(d.get("state"), "succeeded",
     "the create completed through its waits (%s)" % d.get("error"))
t.eq(ahead, [], "no release put the operation an hour ahead")
t.eq([b for a, b in zip(seen, seen[1:]) if b < a], [],
     "its updated time never went back (%d answers)" % len(seen))

# Every time the poller wrote (a stage's start and end, an event, the
# operation's update) is the database's: none is an hour ahead.
limit = time.time() * 1000 + HOUR_MS / 2
stamps = [("updated", d.get("updated_ms", 0))]
for st in d.get("stages", []):
    stamps += [(st["name"] + " started", st.get("started_ms", 0)),
               (st["name"] + " finished", st.get("finished_ms", 0))]
stamps += [("event " + (e.get("message") or ""), e.get("time_ms", 0))
           for e in d.get("events", [])]
t.ok(len(stamps) > 10, "the stages and events carry times (%d)" %
     len(stamps))
t.eq([n for n, v in stamps if v > limit], [],
     "no time the poller wrote is an hour ahead")
t.ok(not any("lease token" in ln and "no longer current" in ln
             for ln in s.log_text("poller.log").splitlines()),
     "no lease of the poller's was lost to its clock")
s.stop()

# A token's and a session's expiry are measured by the database's clock
# too: a token made by the CLI on this host with an hour to live is
# accepted by API workers on a host whose clock is an hour and a half
# ahead, and a browser session made there ends 12 hours from the
# database's now.
os.environ["SLIPWAY_FAULT_CLOCK"] = "%d@slipway-api" % (HOUR_MS * 3 // 2)
try:
    s = Stack(t)
finally:
    del os.environ["SLIPWAY_FAULT_CLOCK"]
tok = s.cli("token", "create", "--team", "a", "--role", "viewer", "--name",
            "hour", "--ttl", "3600").strip()
r = s.get("/api/v1/whoami", token=tok)
t.eq((r.status, r.json.get("name")), (200, "hour"),
     "a token with an hour to live works on a worker 90 minutes ahead")
r = s.post("/api/v1/login", {"token": s.token}, token=None,
           headers={"Origin": "http://127.0.0.1:%d" % s.port})
cookie = (r.header("Set-Cookie") or "").split(";")[0]
t.ok(r.status == 200 and cookie, "a session made by that worker")
r = s.get("/api/v1/whoami", token=None, headers={"Cookie": cookie})
t.eq(r.status, 200, "is accepted")
ends = [int(x[0]) for x in s.sql("SELECT expires FROM sessions")]
limit = time.time() * 1000 + 12 * 3600 * 1000 + 60000
t.ok(ends and all(e <= limit for e in ends),
     "and ends 12 hours from the database's now, not the worker's")
s.stop()
t.done()
