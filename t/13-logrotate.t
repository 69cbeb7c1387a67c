#!/usr/bin/python3
# 13-logrotate.t: the logs rotate, and what a client without valid
# credentials can make Slipway write is bounded.  After every log file is
# renamed (as logrotate does) and `slipway logs reopen` is run, nginx
# writes access.log anew, the supervisor slipway.log, and the renamed
# files stop growing.  1000 unauthenticated requests grow the logs by a
# few kilobytes at most (nginx logs one in a hundred of them; before,
# 130 bytes each), while every authenticated request is still logged.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, wait_for

t = T()
s = Stack(t)
logs = os.path.join(s.state, "logs")


def size(name):
    try:
        return os.path.getsize(os.path.join(logs, name))
    except OSError:
        return -1


def text(name):
    try:
        with open(os.path.join(logs, name), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def total():
    return sum(os.path.getsize(os.path.join(logs, f))
               for f in os.listdir(logs))


t.eq(s.get("/api/v1/whoami").status, 200, "an authenticated request")
t.ok(wait_for(lambda: "GET /api/v1/whoami " in text("access.log"),
              timeout=30), "is in access.log")

# --- rotation ------------------------------------------------------------------
rotated = sorted(f for f in os.listdir(logs) if f.endswith(".log"))
for f in rotated:
    os.rename(os.path.join(logs, f), os.path.join(logs, f + ".1"))
s.cli("logs", "reopen")
t.ok(wait_for(lambda: "log files reopened" in text("slipway.log"),
              timeout=30), "the supervisor writes a new slipway.log")


def fresh_line():
    s.get("/api/v1/version")
    return "GET /api/v1/version " in text("access.log")


t.ok(wait_for(fresh_line, timeout=30),
     "nginx writes a new access.log after the reopen")
old = size("access.log.1")
for _ in range(5):
    s.get("/api/v1/version")
t.ok(wait_for(lambda: text("access.log").count("GET /api/v1/version ")
              >= 6, timeout=30), "later requests go to the new file")
t.eq(size("access.log.1"), old, "and none to the renamed one")

# --- what unauthenticated requests can write -------------------------------
before = total()
refused = 0
for i in range(1000):
    r = s.request("GET", "/api/v1/clusters", token=None if i % 2 else
                  "swt_not-a-token")
    refused += r.status == 401
t.eq(refused, 1000, "1000 unauthenticated requests refused with 401")
grown = total() - before
t.diag("the logs grew by %d bytes for 1000 refused requests" % grown)
t.ok(grown < 20000, "they grow the logs by %d bytes, under 20 kB (about "
     "130 kB when each was logged)" % grown)
lines = text("access.log").count("req=")
for _ in range(20):
    s.get("/api/v1/whoami")
t.ok(wait_for(lambda: text("access.log").count("req=") -
              lines >= 20, timeout=30) and
     text("access.log").count("GET /api/v1/whoami HTTP/1.1\" 200") >= 20,
     "every authenticated request is still logged")
s.stop()
t.done()
