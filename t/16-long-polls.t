#!/usr/bin/python3
# 16-long-polls.t: long polls cannot starve the service.  operation_wait
# runs in its own pool of workers (nginx: location ...:wait ->
# slipway-api --wait), one token holds at most a few waits at once (429
# problem+json with Retry-After past that); MCP waits of 2026-07-28
# clients (Mcp-Name: operation_wait) run in the MCP wait pool, and those
# of legacy clients, in process, are capped so the other MCP workers keep
# answering.
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack
from mcp_raw import Mcp

MAX_PER_TOKEN = 2       # SW_MAX_WAITS_PER_TOKEN
WAIT_WORKERS = 4        # SW_WAIT_WORKERS

t = T()
s = Stack(t, workers=2)

# An operation that stays pending: due far in the future, so the poller
# never claims it and every wait runs to its timeout.
now = int(time.time() * 1000)
op = "op-00000000000000f1"
s.sql("INSERT INTO operations (id, kind, target, params, state,"
      " token_name, created, updated, due) VALUES ('%s', 'test.wait',"
      " 't', '{}', 'pending', 'test-admin', %d, %d, %d)" %
      (op, now, now, now + 3600 * 1000))
tokens = [s.cli("token", "create", "--scope", "read", "--name",
                "waiter%d" % i).strip() for i in range(4)]
WAIT = "/api/v1/operations/%s:wait?timeout=%%d" % op


def run_all(reqs):
    """Run (method, path, token) requests at once; [(status, secs, r)]."""
    out = [None] * len(reqs)

    def one(i, req):
        t0 = time.time()
        try:
            r = s.request(req[0], req[1], token=req[2], timeout=30)
            out[i] = (r.status, time.time() - t0, r)
        except Exception as e:          # noqa: BLE001 - report it
            out[i] = (0, time.time() - t0, e)
    th = [threading.Thread(target=one, args=(i, q))
          for i, q in enumerate(reqs)]
    for x in th:
        x.start()
    return th, out


def quick(name, n=10, path="/api/v1/health", token="default"):
    worst = 0.0
    bad = []
    for _ in range(n):
        t0 = time.time()
        r = s.get(path, token=token)
        worst = max(worst, time.time() - t0)
        if r.status != 200:
            bad.append(r.status)
    if not t.ok(not bad and worst < 0.5, "%s (worst %.3f s)" % (name,
                                                                worst)):
        t.diag("statuses %r" % bad)


# ---- one read token, 8 waits: 2 held, 6 refused at once -------------------
th, res = run_all([("GET", WAIT % 4, tokens[0])] * 8)
time.sleep(1.0)
quick("health answers while one token's 8 waits are open")
quick("whoami answers too", path="/api/v1/whoami", token=tokens[1])
for x in th:
    x.join()
codes = sorted(r[0] for r in res)
t.eq(codes, [200] * MAX_PER_TOKEN + [429] * (8 - MAX_PER_TOKEN),
     "one token: %d waits held, the rest 429" % MAX_PER_TOKEN)
refused = [r[2] for r in res if r[0] == 429]
ok = all((r.header("Content-Type") or "").startswith(
    "application/problem+json") and r.header("Retry-After") and
    r.json.get("status") == 429 for r in refused)
t.ok(ok, "each 429 is problem+json with Retry-After")
t.ok(all(r[1] < 2 for r in res if r[0] == 429),
     "the 429s come at once, not after a wait")
t.ok(all(r[2].json.get("timed_out") for r in res if r[0] == 200),
     "the held waits ran to their timeout")

# ---- 4 tokens x 2 waits: the wait pool holds them, nothing else waits -----
th, res = run_all([("GET", WAIT % 4, tokens[i % 4]) for i in range(8)])
time.sleep(1.0)
quick("health answers while 8 waits fill the wait pool")
quick("an operation read answers too", path="/api/v1/operations/" + op)
for x in th:
    x.join()
t.eq(sorted(r[0] for r in res), [200] * 8,
     "8 waits of 4 tokens all answered (queued behind the pool, not 429)")

# ---- MCP 2026-07-28: Mcp-Name routes waits to the MCP wait pool ----------
mcp = [Mcp(s, token=tok) for tok in tokens[:3]]
out = [None] * 3


def mcp_wait(i):
    out[i] = mcp[i].call("operation_wait", {"id": op, "timeout": 4})


t0 = time.time()
th = [threading.Thread(target=mcp_wait, args=(i,)) for i in range(2)]
for x in th:
    x.start()
time.sleep(1.0)
t1 = time.time()
r = mcp[2].call("whoami")
t.ok(r.status == 200 and time.time() - t1 < 0.5,
     "MCP whoami answers while two MCP waits are held")
for x in th:
    x.join()
held = [((o.json or {}).get("result") or {}) for o in out[:2]]
t.ok(all(not h.get("isError") and h["structuredContent"].get("timed_out")
         for h in held), "two modern MCP waits both ran to their timeout")
t.ok(time.time() - t0 < 7.5, "... side by side in the wait pool (%.1f s)"
     % (time.time() - t0))

# ---- MCP legacy (no Mcp-Name): in-process waits are capped -----------------
legacy = []
for tok in tokens[:2]:
    m = Mcp(s, token=tok)
    sid = m.initialize()[1]
    legacy.append((m, sid))
lout = [None]


def legacy_wait():
    m, sid = legacy[0]
    lout[0] = m.legacy("tools/call", {"name": "operation_wait", "arguments":
                                      {"id": op, "timeout": 4}}, sid=sid)


th = threading.Thread(target=legacy_wait)
th.start()
time.sleep(1.0)
m, sid = legacy[1]
t1 = time.time()
r = m.legacy("tools/call", {"name": "operation_wait",
                            "arguments": {"id": op, "timeout": 4}}, sid=sid)
res = (r.json or {}).get("result") or {}
t.ok(res.get("isError") and res["structuredContent"]["status"] == 429 and
     time.time() - t1 < 2,
     "a second legacy MCP wait while the in-process slot is held: 429 "
     "tool error")
t1 = time.time()
r = m.legacy("tools/call", {"name": "whoami"}, sid=sid)
t.ok(r.status == 200 and time.time() - t1 < 0.5,
     "legacy MCP whoami answers while an in-process wait is held")
th.join()
res = (lout[0].json or {}).get("result") or {}
t.ok(not res.get("isError") and res["structuredContent"].get("timed_out"),
     "the held legacy MCP wait ran to its timeout")

s.stop()
t.done()
