#!/usr/bin/python3
"""pipelines-replicas.py: N concurrent cluster pipelines over two
Slipway replicas on one PostgreSQL database, beside the same N on one
SQLite stack, in one run on one machine.

First the reference: one stack on SQLite with the sandbox, the N
pipelines of bench/pipelines.py.  Then a PostgreSQL 15 cluster of its
own in a temporary directory (t/lib/pgserver.py) and two replicas on
it, the first with a new sandbox, the second joining it (slipway.conf
sandbox_join), each with its own state and run directories; the same N
pipelines are sent to the two replicas' APIs in turn.  While they run,
a poller holding a lease is SIGKILLed K times (its supervisor starts
another), each time the time from the kill until another poller claims
that operation (its lease token grows) or ends it.  Reported for each
run, side by side: pipelines succeeded, wall time, AWS requests per
pipeline against the plan's floor (the sandbox's request log), poller
CPU per pipeline (utime+stime from /proc of every poller, a killed one
read just before its kill); then the take-overs (median, max).

Usage: bench/pipelines-replicas.py [N] [speed] [kills]
       (defaults 200, 5000, 5)
Prints "sqlite:" and "postgresql:" lines as bench/pipelines.py does,
then "take-over" lines; exits 0 when every pipeline succeeded.
"""
import os
import re
import signal
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))
from tap import T                       # noqa: E402
from harness import Stack, wait_for     # noqa: E402
import pgserver                         # noqa: E402
import pipelines                        # noqa: E402


def leases(srv):
    """(poller pid, operation id, token) of the leases held now."""
    out = []
    text = srv.psql("SELECT lease_owner || '|' || id || '|' || fence FROM"
                    " operations WHERE lease_owner IS NOT NULL AND state"
                    " IN ('pending', 'running')")
    for line in text.splitlines():
        owner, op_id, fence = line.split("|")
        m = re.match(r"poller-(\d+)@", owner)
        if m:
            out.append((int(m.group(1)), op_id, int(fence)))
    return out


def owner_of(srv, op_id):
    """(lease owner or "", token) of one operation now."""
    row = srv.psql("SELECT COALESCE(lease_owner, '') || '|' || fence FROM"
                   " operations WHERE id = '%s'" % op_id)
    if "|" not in row:
        return ("", 0)
    owner, fence = row.rsplit("|", 1)
    return (owner, int(fence))


def fence_of(srv, op_id):
    """(token, state) of one operation now."""
    row = srv.psql("SELECT fence || '|' || state FROM operations WHERE"
                   " id = '%s'" % op_id)
    if "|" not in row:
        return (0, "")
    fence, state = row.split("|")
    return (int(fence), state)


class Killer:
    """SIGKILL a poller holding a lease, up to `kills` times, spread over
    the run (one kill, then the next once the replica's supervisor has
    started another poller and `gap` seconds passed)."""

    def __init__(self, srv, stacks, kills, gap):
        self.srv, self.stacks = srv, stacks
        self.kills, self.gap = kills, gap
        self.takeovers, self.late = [], []
        # kills that came just after the poller let its lease go (a
        # stage that waits releases it): nothing was left to take over
        self.unheld = 0

    def held_by(self, stop, pids):
        held = []

        def some():
            held[:] = [h for h in leases(self.srv) if h[0] in pids]
            return bool(held) or stop.is_set()
        wait_for(some, timeout=30, every=0.05)
        return held

    def one(self, stop, cpu, pids):
        held = self.held_by(stop, pids)
        if not held or stop.is_set():
            return False
        pid, op_id, token = held[len(self.takeovers) % len(held)]
        cpu.last(pid)               # its CPU up to the kill
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return False
        t0 = time.time()
        owner, fence = owner_of(self.srv, op_id)
        if not owner.startswith("poller-%d@" % pid) or fence != token:
            self.unheld += 1
            return True

        def moved():
            fence, state = fence_of(self.srv, op_id)
            return fence > token or state in ("succeeded", "failed",
                                              "cancelled")
        if wait_for(moved, timeout=60, every=0.05):
            self.takeovers.append(time.time() - t0)
        else:
            self.late.append((op_id, time.time() - t0))
        return True

    def __call__(self, stop, cpu):
        while len(self.takeovers) + len(self.late) < self.kills and \
                not stop.is_set():
            pids = set()
            for s in self.stacks:
                pids.update(pipelines.poller_pids(s))
            if not self.one(stop, cpu, pids):
                continue
            # the replaced poller back, and some time to run with it
            wait_for(lambda: stop.is_set() or all(
                pipelines.poller_pids(s) for s in self.stacks), timeout=60)
            stop.wait(self.gap)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    speed = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    kills = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    t = T()
    ref = Stack(t, sandbox=True, speed=speed, workers=4)
    m = pipelines.measure([ref], n)
    ref.stop()
    pipelines.report(m, speed, "sqlite: ")
    srv = pgserver.Server(t, prefix="sw-bench-pg-",
                          settings=["max_connections=200"])
    print("postgresql: %s" % srv.psql("SHOW server_version"), flush=True)
    r1 = Stack(t, sandbox=True, speed=speed, workers=4, database=srv.url)
    conf = ["sandbox_join = %s" % os.path.join(r1.state, "sandbox",
                                                "sandbox.json")]
    r2 = Stack(t, workers=4, database=srv.url, conf=conf,
               token_name="replica-2")
    # The kills spread over the run: the reference's wall time tells
    # how long it will be.
    gap = max(1.0, m["wall"] / max(kills + 1, 1))
    killer = Killer(srv, [r1, r2], kills, gap)
    pm = pipelines.measure([r1, r2], n, during=killer)
    r2.stop()
    r1.stop()
    pipelines.report(pm, speed, "postgresql: ")
    took = killer.takeovers
    if took:
        print("take-over            %d kills: median %.2f s, max %.2f s (%s)"
              % (len(took), statistics.median(took), max(took),
                 " ".join("%.2f" % x for x in took)))
    if killer.unheld:
        print("# %d kill(s) came after the poller had let its lease go;"
              " not counted" % killer.unheld)
    for op_id, s in killer.late:
        print("# not taken over: %s after %.1f s" % (op_id, s))
    ratio = (pm["cpu"] / max(pm["ops"], 1)) / max(
        m["cpu"] / max(m["ops"], 1), 1e-9)
    print("poller CPU per pipeline, two replicas on PostgreSQL vs one on "
          "SQLite: %.2fx" % ratio)
    good = m["ok"] == m["ops"] and pm["ok"] == pm["ops"] and not killer.late
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
