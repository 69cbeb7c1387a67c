#!/usr/bin/python3
# 13-supervise.t: a FastCGI worker killed with SIGKILL is replaced within
# one second, the event is logged, the API keeps answering, and nginx
# itself is restarted if it dies.  At the largest --workers every process
# is supervised.
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, kill_if

t = T()
s = Stack(t)


def component(name):
    for c in s.status()["components"]:
        if c["name"] == name:
            return c
    return None


for name in ("api.0", "nginx"):
    before = component(name)
    t.ok(kill_if(before["pid"], "nginx" if name == "nginx" else
                 "slipway-api"), "%s killed with SIGKILL" % name)
    killed = time.time()
    now = None
    while time.time() - killed < 5:
        c = component(name)
        if c and c["pid"] and c["pid"] != before["pid"] and c["running"]:
            now = c
            break
        time.sleep(0.02)
    took = time.time() - killed
    t.ok(now is not None, "%s replaced after SIGKILL" % name)
    if name == "api.0":
        t.ok(took < 1.0, "api worker replaced within 1 s (%.3f s)" % took)
    t.eq(now and now["restarts"], 1, "%s restart counted" % name)
    s.remember_pids()
    deadline = time.time() + 5
    status = 0
    while time.time() < deadline:
        try:
            status = s.get("/api/v1/version").status
        except OSError:
            status = 0
        if status == 200:
            break
        time.sleep(0.05)
    t.eq(status, 200, "API answers after %s was killed" % name)

log = s.log_text("slipway.log")
t.ok("component api.0" in log and "killed by signal 9" in log,
     "the kill is logged")
t.ok("restarted as pid" in log, "the restart is logged")

# Many requests in a row are all answered while a worker is killed.
ok = 0
victim = component("api.1")["pid"]
for i in range(60):
    if i == 20:
        kill_if(victim, "slipway-api")
    if s.get("/api/v1/health", token=None).status == 200:
        ok += 1
t.ok(ok >= 58, "requests keep being served across a worker kill (%d/60)"
     % ok)
s.remember_pids()
s.stop()

# At the largest --workers, with the sandbox: every process has its row.
big = Stack(t, sandbox=True, workers=16)
comps = big.status()["components"]
names = {c["name"] for c in comps if c["running"]}
want = {"api.%d" % i for i in range(16)} | {"mcp.%d" % i for i in range(16)}
want |= {"sandbox", "poller", "nginx"}
t.ok(want <= names, "--workers 16: all %d processes supervised (missing "
     "%s)" % (len(want), sorted(want - names)))
t.eq(big.get("/api/v1/health", token=None).status, 200,
     "and the stack answers")
big.stop()
t.done()
