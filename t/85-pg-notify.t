#!/usr/bin/python3
# 85-pg-notify.t: on PostgreSQL, a viewer's stream and operation_wait are
# woken by the NOTIFY the state's triggers send (sw_db_wait), not by
# reading the database over and over.  A stack runs on a PostgreSQL
# server of the test's own.  While one operation_wait is held and one
# viewer watches the same operation, PostgreSQL shows their LISTEN
# connections (application_name slipway-watch); a write to another
# operation does not end the wait, a write to its own does: the wait
# answers "changed" (not timed out), /metrics counts one wake "by
# notification" and no nap, and the viewer is pushed the new state.
# The watch connections are then terminated by the server: the stream
# listens again and its viewer still gets the next write, and a wait
# started then is woken by its notification too.
# Skips only when the PostgreSQL binaries are absent.
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, wait_for
import pgserver
import wsclient

t = T()
pgserver.binaries(t)
srv = pgserver.Server(t, prefix="sw-pgn-")
s = Stack(t, database=srv.url)
ORIGIN = "http://127.0.0.1:%d" % s.port
WATCHING = ("SELECT count(*) FROM pg_stat_activity WHERE"
            " application_name = 'slipway-watch'"
            " AND query = 'LISTEN slipway'")


def add_op(op):
    """A pending operation the poller never claims (due in an hour)."""
    now = int(time.time() * 1000)
    s.sql("INSERT INTO operations (id, kind, target, params, state,"
          " token_name, created, updated, due) VALUES ('%s', 'test.wait',"
          " 't', '{}', 'pending', 'test-admin', %d, %d, %d)" %
          (op, now, now, now + 3600 * 1000))


def touch(op):
    """A write to op from outside Slipway (psql): its trigger NOTIFYs."""
    s.sql("UPDATE operations SET updated = updated + 1000 WHERE id = '%s'"
          % op)
    return int(s.sql("SELECT updated FROM operations WHERE id = '%s'"
                     % op)[0][0])


def counter(text, name, by):
    m = re.search(r'^%s\{by="%s"\} (\d+)$' % (re.escape(name), by), text,
                  re.M)
    return int(m.group(1)) if m else 0


def wakes():
    r = s.get("/metrics")
    return {k: counter(r.body, "slipway_operation_wait_wakes_total", k)
            for k in ("notification", "change", "nap")}, \
        counter(r.body, "slipway_stream_wakes_total", "notification")


def listening():
    return int(s.sql(WATCHING)[0][0])


def watch_pids():
    return {r[0] for r in s.sql(WATCHING.replace("count(*)", "pid"))}


def start_wait(op, since):
    out = {}

    def run():
        r = s.get("/api/v1/operations/%s:wait?timeout=60"
                  "&since_updated_ms=%d" % (op, since), timeout=120)
        out["r"] = r
    th = threading.Thread(target=run)
    th.start()
    return th, out


def next_update(w, updated):
    """Messages until one shows updated_ms >= updated; True if it came."""
    while True:
        m = w.recv()
        if m is None:
            return False
        if m.get("operation", {}).get("updated_ms", 0) >= updated:
            return True


A, B = "op-00000000000000a1", "op-00000000000000b2"
add_op(A)
add_op(B)
upd = int(s.sql("SELECT updated FROM operations WHERE id = '%s'" % A)[0][0])
before, stream_before = wakes()

w = wsclient.connect(s.port, "/ws/operations/" + A,
                     {"Authorization": "Bearer " + s.token,
                      "Origin": ORIGIN}, timeout=60)
first = w.recv()
t.eq(first and first.get("type"), "snapshot", "a viewer of the operation")
th, out = start_wait(A, upd)
t.ok(wait_for(lambda: listening() >= 2, timeout=60),
     "PostgreSQL shows the stream's and the waiting worker's LISTEN "
     "connections (%d)" % listening())

touch(B)                        # another operation: the wait goes on
new = touch(A)
th.join(120)
r = out.get("r")
t.eq(r and r.status, 200, "operation_wait answered")
t.eq(r and (r.json.get("timed_out"), r.json.get("updated_ms")),
     (False, new), "it answered the write to its operation, not a timeout")
after, stream_after = wakes()
t.eq(after["notification"] - before["notification"], 1,
     "one wake by the notification naming it (the other operation's "
     "was let pass)")
t.eq(after["nap"] - before["nap"], 0, "no nap: it never polled")
t.ok(next_update(w, new), "the viewer was pushed the new state")
t.ok(stream_after > stream_before,
     "the stream counts wakes by notification (%d)" % stream_after)
t.ok(wait_for(lambda: listening() == 1, timeout=60),
     "the wait's LISTEN connection closed with it; the stream's stays")

# ---- the watch connections lost ------------------------------------------
old = watch_pids()
s.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE"
      " application_name = 'slipway-watch'")
t.ok(wait_for(lambda: len(watch_pids() - old) == 1 and
              not (watch_pids() & old), timeout=60),
     "the stream listens again after its connection was terminated")
new = touch(A)
t.ok(next_update(w, new), "and its viewer gets the next write")
before, _ = wakes()
th, out = start_wait(A, new)
t.ok(wait_for(lambda: listening() == 2, timeout=60),
     "a new wait listens on a connection of its own")
new = touch(A)
th.join(120)
r = out.get("r")
t.eq(r and (r.status, r.json.get("timed_out"), r.json.get("updated_ms")),
     (200, False, new), "it answers the write")
after, _ = wakes()
t.eq((after["notification"] - before["notification"],
      after["nap"] - before["nap"]), (1, 0),
     "woken by the notification, with no nap")
w.close()
s.stop()
t.done()
