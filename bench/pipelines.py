#!/usr/bin/python3
"""pipelines.py: N concurrent cluster pipelines against the sandbox.

Starts the real stack with the sandbox, submits N cluster creates at
once, waits for all of them, and reports, side by side in one run:

  - wall time, and the poller's CPU seconds (from /proc);
  - AWS requests per pipeline as the sandbox logged them, against the
    minimum a pipeline needs: the mutating calls of its dry-run plan
    plus one read per resource it has to wait for (the plan's floor);
  - the ratio of the two (1.0 would be a poller that never re-reads).

Usage: bench/pipelines.py [N] [speed]   (defaults 200, 5000)
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))
from tap import T                       # noqa: E402
from harness import Stack, sandbox_call, sandbox_requests   # noqa: E402

# Resources a create waits for: EKS cluster, NAT gateway, 5 add-ons,
# HyperPod cluster, nodes Running, nodes Ready (one read each at least).
WAITS = 10


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    speed = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    t = T()
    s = Stack(t, sandbox=True, speed=speed, workers=4)
    types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
    g = next(i for i in types if not i["efa_supported"])

    def body(name):
        return {"name": name, "instance_groups": [
            {"name": "w", "instance_type": g["instance_type"], "count": 1,
             "availability_zone": g["availability_zones"][0]}]}

    # The account quota must hold N clusters' instances, or HyperPod
    # refuses some of them (as AWS would).
    sandbox_call(s, "POST", "/_sandbox/quotas",
                 {"%s for cluster usage" % g["instance_type"]: n + 10,
                  "Total number of instances allowed across SageMaker "
                  "HyperPod clusters": n + 10})
    plan = s.post("/api/v1/clusters?dry_run=true", body("probe")).json
    floor = len(plan["calls"]) + WAITS
    poller = next(c["pid"] for c in s.status()["components"]
                  if c["name"] == "poller")
    cpu0 = cpu_seconds(poller)
    before = len(sandbox_requests(s))
    start = time.time()
    ops = []
    for i in range(n):
        r = s.post("/api/v1/clusters", body("b%03d" % i))
        if r.status != 202:
            print("# create %d refused: %s" % (i, r), flush=True)
            continue
        ops.append(r.json["operation_id"])
    pending = set(ops)
    states = {}
    while pending and time.time() - start < 3600:
        time.sleep(1)
        for o in list(pending):
            st = s.get("/api/v1/operations/%s" % o).json["state"]
            if st in ("succeeded", "failed", "cancelled"):
                states[o] = st
                pending.discard(o)
    wall = time.time() - start
    cpu = cpu_seconds(poller) - cpu0
    reqs = len(sandbox_requests(s)) - before
    ok = sum(1 for v in states.values() if v == "succeeded")
    for o, v in states.items():
        if v != "succeeded":
            d = s.get("/api/v1/operations/%s" % o).json
            print("# %s %s: %s" % (o, v, d.get("error")), flush=True)
    per = reqs / max(len(ops), 1)
    print("pipelines            %d (%d succeeded)" % (len(ops), ok))
    print("wall time            %.1f s (sandbox speed %dx)" % (wall, speed))
    print("poller CPU           %.2f s (%.1f ms per pipeline)" %
          (cpu, 1000 * cpu / max(len(ops), 1)))
    print("AWS requests         %d (%.1f per pipeline)" % (reqs, per))
    print("minimum per pipeline %d (plan %d + %d waits)" %
          (floor, len(plan["calls"]), WAITS))
    print("ratio to minimum     %.2f" % (per / floor))
    s.stop()
    return 0 if ok == len(ops) else 1


if __name__ == "__main__":
    sys.exit(main())
