#!/usr/bin/python3
"""pipelines.py: N concurrent cluster pipelines against the sandbox.

Starts the real stack with the sandbox, submits N cluster creates at
once, waits for all of them, and reports, side by side in one run:

  - wall time, and the poller's CPU seconds (from /proc);
  - AWS requests per pipeline as the sandbox logged them (its request
    log, Kubernetes API requests included), against the minimum a
    pipeline needs: the calls of its dry-run plan (every mutation,
    Kubernetes applies included) plus one read per thing the plan says
    it waits for (its "waits": the NAT gateway, the EKS cluster, each
    add-on, ...), both as the same pipeline code reports them;
  - the ratio of the two (1.0 would be a poller that never re-reads);
  - every operation sent, per pipeline on average.

Usage: bench/pipelines.py [N] [speed]   (defaults 200, 5000)
bench/pipelines-replicas.py runs the same measurement (measure()) over
two replicas on PostgreSQL beside this one-stack SQLite reference.
"""
import collections
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))
from tap import T                       # noqa: E402
from harness import Stack, sandbox_call, sandbox_info   # noqa: E402

# A /16 for each cluster's VPC: more clusters than the 256 of
# 10.x.0.0/16 take other ranges a VPC may have.
CIDRS = ["%d.%d.0.0/16" % (a, b) for a in (10, 172, 192, 100, 11, 12)
         for b in range(256)]


def request_log(stack):
    """The sandbox's request log file (every request, one JSON a line)."""
    return os.path.join(sandbox_info(stack)["state_dir"], "requests.jsonl")


def logged_since(path, seq):
    """Entries of the request log after sequence number seq."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("seq", 0) > seq:
                out.append(e)
    return out


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick


def poller_pids(stack):
    return [c["pid"] for c in stack.status().get("components", [])
            if c.get("name") == "poller" and c.get("pid")]


class PollerCPU:
    """utime+stime of every poller of the stacks, across restarts: a
    poller there at the start counts from its CPU then, one started
    later (a supervisor's replacement) from zero; a poller about to be
    killed is read first (last()), one that died unread keeps its last
    sample (a second of its CPU at most is lost)."""

    def __init__(self, stacks):
        self.stacks = stacks
        self.first, self.latest = {}, {}
        self.lock = threading.Lock()
        for s in stacks:
            for p in poller_pids(s):
                self.first[p] = self.latest[p] = cpu_seconds(p)

    def last(self, pid):
        try:
            v = cpu_seconds(pid)
        except OSError:
            return
        with self.lock:
            self.first.setdefault(pid, 0.0)
            self.latest[pid] = v

    def sample(self):
        for s in self.stacks:
            try:
                pids = poller_pids(s)
            except Exception:       # noqa: BLE001 - a status cut short
                continue
            for p in pids:
                self.last(p)

    def total(self):
        with self.lock:
            return sum(self.latest[p] - self.first[p] for p in self.latest)


def cluster_body(g, name):
    return {"name": name, "instance_groups": [
        {"name": "w", "instance_type": g["instance_type"], "count": 1,
         "availability_zone": g["availability_zones"][0]}]}


def measure(stacks, n, during=None):
    """N cluster creates spread over the stacks' APIs (the first one
    holds the sandbox; all share one state), waited for; during, when
    given, runs beside the wait as during(stop_event, cpu).  A dict of
    what was measured."""
    s = stacks[0]
    types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
    g = next(i for i in types if not i["efa_supported"])
    # The account quota must hold N clusters' instances, or HyperPod
    # refuses some of them (as AWS would).
    sandbox_call(s, "POST", "/_sandbox/quotas",
                 {"%s for cluster usage" % g["instance_type"]: n + 10,
                  "Total number of instances allowed across SageMaker "
                  "HyperPod clusters": n + 10})
    plan = s.post("/api/v1/clusters?dry_run=true",
                  cluster_body(g, "probe")).json
    calls, waits = len(plan["calls"]), len(plan.get("waits") or [])
    log = request_log(s)
    seen = logged_since(log, 0)
    before = seen[-1]["seq"] if seen else 0
    cpu = PollerCPU(stacks)
    start = time.time()
    ops = []
    cidrs = list(CIDRS)
    for i in range(n):
        r = None
        api = stacks[i % len(stacks)]
        while cidrs:
            b = cluster_body(g, "b%03d" % i)
            b["vpc_cidr"] = cidrs.pop(0)
            r = api.post("/api/v1/clusters", b)
            # a /16 that an existing VPC (the default one) overlaps
            if r.status != 400 or "vpc_cidr" not in r.body:
                break
        if r is None or r.status != 202:
            print("# create %d refused: %s" % (i, r), flush=True)
            continue
        ops.append(r.json["operation_id"])
    stop = threading.Event()
    side = None
    if during is not None:
        side = threading.Thread(target=during, args=(stop, cpu))
        side.start()
    # One small list request a second tells whether any create is still
    # live (a GET per operation would load the stack it measures).
    while time.time() - start < 3600:
        cpu.sample()
        live = [x for state in ("pending", "running") for x in s.get(
            "/api/v1/operations?kind=cluster.create&state=%s&limit=1" %
            state).json["items"]]
        if not live:
            break
        time.sleep(1)
    wall = time.time() - start
    stop.set()
    if side is not None:
        side.join()
    cpu.sample()
    states = {o: s.get("/api/v1/operations/%s" % o).json["state"]
              for o in ops}
    entries = logged_since(log, before)
    for o, v in states.items():
        if v != "succeeded":
            d = s.get("/api/v1/operations/%s" % o).json
            print("# %s %s: %s" % (o, v, d.get("error")), flush=True)
    return {"ops": len(ops), "n": n,
            "ok": sum(1 for v in states.values() if v == "succeeded"),
            "wall": wall, "cpu": cpu.total(), "reqs": len(entries),
            "calls": calls, "waits": waits, "entries": entries}


def report(m, speed, label=""):
    """The measurement as lines bench/run reads (label prefixes each)."""
    ops = max(m["ops"], 1)
    per = m["reqs"] / ops
    floor = m["calls"] + m["waits"]
    p = label
    print("%spipelines            %d (%d succeeded)" % (p, m["ops"], m["ok"]))
    print("%swall time            %.1f s (sandbox speed %dx)" %
          (p, m["wall"], speed))
    print("%spoller CPU           %.2f s (%.1f ms per pipeline)" %
          (p, m["cpu"], 1000 * m["cpu"] / ops))
    print("%sAWS requests         %d (%.1f per pipeline)" % (p, m["reqs"],
                                                            per))
    print("%sminimum per pipeline %d (plan %d + %d waits)" %
          (p, floor, m["calls"], m["waits"]))
    print("%sratio to minimum     %.2f" % (p, per / floor))
    by_op = collections.Counter(
        ("kubernetes" if e["service"].startswith("kubernetes") else
         e["service"]) + " " + (e.get("method") or "") + " " +
        e["operation"] for e in m["entries"])
    for what, count in by_op.most_common():
        print("# %s%5.2f per pipeline  %s" % (p, count / ops, what))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    speed = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    t = T()
    s = Stack(t, sandbox=True, speed=speed, workers=4)
    m = measure([s], n)
    report(m, speed)
    s.stop()
    return 0 if m["ok"] == m["ops"] else 1


if __name__ == "__main__":
    sys.exit(main())
