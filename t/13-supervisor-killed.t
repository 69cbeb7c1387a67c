#!/usr/bin/python3
# 13-supervisor-killed.t: a supervisor killed with SIGKILL (no chance to
# stop its children) leaves no process of the stack behind: each child
# asked the kernel for its stop signal when its parent dies
# (PR_SET_PDEATHSIG), nginx's master then stops its own workers, and
# nothing the sandbox started survives either.
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, _alive, _start_time, wait_for

t = T()
sandbox = os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox"))
s = Stack(t, sandbox=sandbox)


def parents():
    """pid -> parent pid of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                out[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            pass
    return out


def descendants(root):
    pp = parents()
    found, todo = set(), [root]
    while todo:
        p = todo.pop()
        for c, parent in pp.items():
            if parent == p and c not in found:
                found.add(c)
                todo.append(c)
    return found


st = s.status()
sup = st["supervisor_pid"]
names = {c["pid"]: c["name"] for c in st["components"] if c.get("pid")}
nginx = [p for p, n in names.items() if n == "nginx"]
workers = descendants(nginx[0]) if nginx else set()
t.ok(nginx and workers, "nginx runs with %d worker(s)" % len(workers))
stack = descendants(sup)
t.ok(set(names) <= stack, "every component (%d) is a child of the "
     "supervisor" % len(names))
if sandbox:
    t.ok("sandbox" in names.values(), "the sandbox is one of them")
else:
    t.skip("sandbox missing")
born = {p: _start_time(p) for p in stack}

os.kill(sup, signal.SIGKILL)
t.ok(wait_for(lambda: not _alive(sup), timeout=30),
     "the supervisor is gone")
left = wait_for(lambda: not [p for p in stack if _alive(p, born[p])],
                timeout=60)
alive = [p for p in stack if _alive(p, born[p])]
t.ok(left, "none of its %d processes survive it (left: %s)" % (
    len(stack), ", ".join("%d %s" % (p, names.get(p, "nginx worker" if p in
                                                  workers else "?"))
                          for p in alive)))
t.ok(not [p for p in workers if _alive(p, born[p])],
     "nginx's workers are gone too (the port is free)")
for p in alive:
    try:
        os.kill(p, signal.SIGKILL)
    except OSError:
        pass
s.stopped = True
shutil.rmtree(s.dir, ignore_errors=True)
t.done()
