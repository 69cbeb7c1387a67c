#!/usr/bin/python3
# 22-db-snapshot.t: a worker that answered GET /metrics (whose statements
# used to be left mid-step, holding the worker on an old snapshot) still
# sees every later change: a token revoked after the scrapes is refused
# by every worker, a token created after them is accepted, and writes
# (token create and revoke, an operation) work.  The same holds for MCP
# workers after their resource reads.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack

t = T()
s = Stack(t, workers=3)
old = s.cli("token", "create", "--scope", "read", "--name", "old").strip()

# Enough scrapes that every worker of the pool answers several.
for _ in range(30):
    r = s.get("/metrics")
    if r.status != 200:
        break
t.eq(r.status, 200, "admin scrapes /metrics 30 times")
t.eq(s.get("/api/v1/whoami", token=old).status, 200,
     "the read token works before its revocation")

r = s.request("DELETE", "/api/v1/tokens/old")
t.ok(r.status in (200, 204), "revoking after the scrapes works (%d)" % r.status)
codes = [s.get("/api/v1/whoami", token=old).status for _ in range(24)]
t.eq(sorted(set(codes)), [401], "the revoked token is refused 24 of 24 times")

r = s.post("/api/v1/tokens", {"name": "new", "scope": "read"})
t.eq(r.status, 201, "creating a token after the scrapes works")
new = (r.json or {}).get("token", "")
codes = [s.get("/api/v1/whoami", token=new).status for _ in range(24)]
t.eq(sorted(set(codes)), [200], "the new token is accepted 24 of 24 times")

r = s.request("DELETE", "/api/v1/tokens/new")
t.ok(r.status in (200, 204), "and revoking it works (%d)" % r.status)
codes = [s.get("/api/v1/whoami", token=new).status for _ in range(24)]
t.eq(sorted(set(codes)), [401], "then it is refused 24 of 24 times")
t.ok("unit of work ended inside" not in s.log_text("slipway-api.log"),
     "no request ended inside a transaction")
s.stop()
t.done()
