#!/usr/bin/python3
# 13-supervise.t: a FastCGI worker killed with SIGKILL is replaced (how
# fast is measured by bench/run, not asserted here), the event is logged, the API keeps answering, and nginx
# itself is restarted if it dies.  At the largest --workers every process
# is supervised.
import json
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
    while time.time() - killed < 60:
        c = component(name)
        if c and c["pid"] and c["pid"] != before["pid"] and c["running"]:
            now = c
            break
        time.sleep(0.02)
    took = time.time() - killed
    t.ok(now is not None, "%s replaced after SIGKILL (%.3f s)" % (name, took))
    t.eq(now and now["restarts"], 1, "%s restart counted" % name)
    s.remember_pids()
    deadline = time.time() + 60
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

# ---- each child inherits only the listening socket it serves ---------------
def listening_inodes():
    """inode -> socket file name, for the stack's run/*.sock."""
    run = os.path.join(s.state, "run") + "/"
    out = {}
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            parts = line.split()
            if len(parts) >= 8 and parts[7].startswith(run):
                out[parts[6]] = os.path.basename(parts[7])
    return out


def held_sockets(pid):
    held = set()
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if link.startswith("socket:["):
                held.add(link[8:-1])
    except OSError:
        pass
    return held


socks = listening_inodes()
t.ok({"api.sock", "wait.sock", "mcp.sock", "mcp-wait.sock"} <=
     set(socks.values()),
     "api, wait, mcp and mcp-wait sockets are listening (%s)" %
     sorted(set(socks.values())))
own = {"api": "api.sock", "wait": "wait.sock", "mcp": "mcp.sock",
       "mcp-wait": "mcp-wait.sock", "stream": "stream.sock"}
leaks = []
for c in s.status()["components"]:
    if not c.get("pid"):
        continue
    mine = own.get(c["name"].split(".")[0])
    for inode in held_sockets(c["pid"]):
        if inode in socks and socks[inode] != mine:
            leaks.append("%s holds %s" % (c["name"], socks[inode]))
if not t.ok(not leaks, "no child holds another's listening socket"):
    t.diag("; ".join(leaks))
api = component("api.0")
t.ok(any(socks.get(i) == "api.sock" for i in held_sockets(api["pid"])),
     "... while api.0 does hold api.sock (the check can see sockets)")

# ---- the workers are forked from the launcher, each named for its program
named = {"api": "slipway-api", "wait": "slipway-api --wait",
         "mcp": "slipway-mcp --wait-slots ", "mcp-wait": "slipway-mcp "
         "--wait-pool", "poller": "slipway-poller",
         "stream": "slipway-stream"}
launcher = os.path.realpath(s.slipway)
wrong, seen = [], set()
for c in s.status()["components"]:
    want = named.get(c["name"].split(".")[0])
    if want is None or not c.get("pid"):
        continue
    seen.add(c["name"].split(".")[0])
    pid = c["pid"]
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
        with open("/proc/%d/comm" % pid) as f:
            comm = f.read().strip()
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read().rstrip(b"\0").decode()
    except OSError as e:
        wrong.append("%s: %s" % (c["name"], e))
        continue
    if exe != launcher:
        wrong.append("%s runs %s" % (c["name"], exe))
    if comm != want.split()[0]:
        wrong.append("%s is named %r" % (c["name"], comm))
    if not cmd.startswith(want) or "\0" in cmd:
        wrong.append("%s shows %r" % (c["name"], cmd))
t.eq(sorted(seen), sorted(named), "a worker of each pool is running")
if not t.ok(not wrong, "each runs the launcher's code, named for its "
            "program in comm and cmdline"):
    t.diag("; ".join(wrong))

s.stop()

# At the largest --workers, with the sandbox: every process has its row.
big = Stack(t, sandbox=True, workers=16)
comps = big.status()["components"]
names = {c["name"] for c in comps if c["running"]}
want = {"api.%d" % i for i in range(16)} | {"mcp.%d" % i for i in range(16)}
want |= {"sandbox", "poller", "nginx"} | {"wait.%d" % i for i in range(4)}
want |= {"mcp-wait.%d" % i for i in range(2)}
t.ok(want <= names, "--workers 16: all %d processes supervised (missing "
     "%s)" % (len(want), sorted(want - names)))
t.eq(big.get("/api/v1/health", token=None).status, 200,
     "and the stack answers")

# The sandbox killed is restarted on the port config.json names, so the
# workers reach AWS where they did before (it used to come back on a new
# port, and every AWS call failed until `slipway start` was run again).
endpoint = big.config()["sandbox_info"]["aws_endpoint"]
before = next(c for c in big.status()["components"] if c["name"] == "sandbox")
t.ok(kill_if(before["pid"], "slipway-sandbox"), "sandbox killed with SIGKILL")


def sandbox_back():
    c = next(c for c in big.status()["components"] if c["name"] == "sandbox")
    if not c["running"] or c["pid"] == before["pid"]:
        return None
    try:
        with open(os.path.join(big.state, "sandbox", "sandbox.json")) as f:
            info = json.load(f)
    except (OSError, ValueError):
        return None
    return info if info.get("pid") == c["pid"] else None


deadline = time.time() + 20
info = None
while time.time() < deadline and info is None:
    info = sandbox_back()
    time.sleep(0.05)
t.ok(info is not None, "the supervisor restarted the sandbox")
t.eq(info and info["aws_endpoint"], endpoint,
     "the restarted sandbox listens on the same AWS endpoint")
big.remember_pids()
t.eq(big.get("/api/v1/instance-types?gpu_only=true").status, 200,
     "an API call that reaches the sandbox answers after its restart")
big.stop()
t.done()
