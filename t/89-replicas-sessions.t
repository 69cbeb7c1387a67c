#!/usr/bin/python3
# 89-replicas-sessions.t: two Slipway instances on one PostgreSQL database,
# as the high-availability shape of cfn/slipway.yaml runs them (separate
# state directories, listen = 0.0.0.0, one database): a request may land
# on either.  A session made by logging in on one is accepted by the
# other; logging out on the other ends it on both.  A token made on one
# works on the other, and revoked on the other it is refused by both.
# Each instance's health check answers 200 with the state store ok.
# PostgreSQL 15 as in t/85-postgresql.t (a cluster in a temporary
# directory, started by the test); skips when its binaries are absent.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack
import pgserver

t = T()
URL = pgserver.Server(t).url

CONF = ["listen = 0.0.0.0"]
a = Stack(t, database=URL, conf=CONF)
b = Stack(t, database=URL, conf=CONF, token_name="test-admin-b")
for name, s in (("a", a), ("b", b)):
    r = s.get("/api/v1/health", token=None)
    t.ok(r.status == 200 and r.json.get("state_store") == "ok",
         "instance %s: health 200, state store ok" % name)


def origin(s):
    return "http://127.0.0.1:%d" % s.port


# A session made on a, used on b.
r = a.post("/api/v1/login", {"token": a.token}, token=None,
           headers={"Origin": origin(a)})
cookie = (r.header("Set-Cookie") or "").split(";")[0]
t.ok(r.status == 200 and cookie.startswith("sw_session=sws_"),
     "login on a gives a session cookie")
C = {"Cookie": cookie}
r = b.get("/api/v1/whoami", token=None, headers=C)
t.eq((r.status, r.json.get("via"), r.json.get("name")),
     (200, "session", "test-admin"), "b accepts the session made on a")
r = b.post("/api/v1/logout", token=None, headers=dict(C, Origin=origin(b)))
t.eq(r.status, 200, "logout on b")
t.eq(a.get("/api/v1/whoami", token=None, headers=C).status, 401,
     "and a no longer accepts that session")

# A token made on a, revoked on b.
made = a.cli("token", "create", "--scope", "read", "--name",
             "replica-reader").strip()
t.eq(b.get("/api/v1/whoami", token=made).status, 200,
     "a token made on a works on b")
t.eq(b.request("DELETE", "/api/v1/tokens/replica-reader").status, 200,
     "revoked on b")
t.eq([a.get("/api/v1/whoami", token=made).status,
      b.get("/api/v1/whoami", token=made).status], [401, 401],
     "and refused by both")
for s in (a, b):
    s.check_logs()
b.stop()
a.stop()
t.done()
