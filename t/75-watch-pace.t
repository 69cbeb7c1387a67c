#!/usr/bin/python3
# 75-watch-pace.t: the poller's watch paces its reads per account and
# region (slipway.conf watch_rate).  With watch_interval = 1 and
# watch_rate = 4, forty clusters recorded in Slipway's own account and
# region are each read once every 10 s (40 / 4), about 4 a second in
# all, never the 40 a second an unpaced watch sends; three clusters of
# the same account in another region (eu-west-1) are paced on their own and read
# every second.  What the watch read is the sandbox's request log:
# HyperPod ListClusterEvents, one per cluster and pass (the clusters
# exist only in Slipway's records, so HyperPod answers
# ResourceNotFound, as it would for a cluster deleted behind Slipway's
# back).  The usage ledger's samples (ledger_interval = 1) are paced
# the same way: HyperPod ListClusterNodes, one per cluster and sample.
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, sandbox_call, sandbox_requests, wait_for

t = T()
RATE, MANY, FEW = 4, 40, 3
s = Stack(t, sandbox=True, conf=["watch_interval = 1", "ledger_interval = 1",
                                 "watch_rate = %d" % RATE])
many = ["pace-%02d" % i for i in range(MANY)]
few = ["apart-%d" % i for i in range(FEW)]
rows = ["('%s', 'swc-pace%012d', 'imported', 0, NULL)" % (n, i)
        for i, n in enumerate(many)]
rows += ["('%s', 'swc-apart%011d', 'imported', 0, 'eu-west-1')" % (n, i)
         for i, n in enumerate(few)]
st, body = sandbox_call(s, "POST", "/_sandbox/regions",
                        {"region": "eu-west-1"})
t.eq(st, 200, "the sandbox serves eu-west-1 too")
s.sql("INSERT INTO clusters (name, id, origin, created, region) VALUES " +
      ", ".join(rows))


def reads(operation="ListClusterEvents"):
    """name -> the times operation read it, in order."""
    out = {}
    for e in sandbox_requests(s, service="sagemaker", operation=operation):
        name = (e.get("params") or {}).get("ClusterName")
        if name in many or name in few:
            out.setdefault(name, []).append(e["time"])
    return {k: sorted(v) for k, v in out.items()}


seen = wait_for(lambda: (lambda r: r if all(len(r.get(n, [])) >= 2
                                            for n in many) else None)(
    reads()), timeout=240, every=1.0)
t.ok(seen, "each of the %d clusters of one account and region is read "
     "again" % MANY)
seen = seen or reads()
first = min(v[0] for n, v in seen.items() if n in many) if seen else 0
last = max(v[-1] for n, v in seen.items() if n in many) if seen else 0
gaps = [b - a for n in many for a, b in zip(seen.get(n, []),
                                              seen.get(n, [])[1:])]
t.ok(gaps and min(gaps) >= 0.5 * MANY / RATE,
     "a cluster is read again only after about %d s (%d clusters / %d a "
     "second), not every second: shortest gap %.1f s" % (
         MANY / RATE, MANY, RATE, min(gaps) if gaps else -1))
count = sum(len(seen.get(n, [])) for n in many)
window = last - first
t.ok(count <= RATE * (window + 2) + RATE,
     "%d reads in %.1f s: at most %d a second and one pass's %d more" % (
         count, window, RATE, RATE))
t.diag("reads of the %d clusters: %d in %.1f s (%.1f a second)" % (
    MANY, count, window, count / window if window else 0))

# The other region's three clusters are under its pace: read each pass.
near = {n: [x for x in seen.get(n, []) if first <= x <= last] for n in few}
t.ok(all(len(v) >= 0.3 * window for v in near.values()),
     "another region's clusters are paced on their own, read every "
     "second or so (%s reads in the same %.1f s)" % (
         ", ".join(str(len(v)) for v in near.values()), window))

# The usage ledger's samples: the same pace, on their own turns.
nodes = reads("ListClusterNodes")
counted = [n for n in many if len(nodes.get(n, [])) >= 2]
lgaps = [b - a for n in many for a, b in zip(nodes.get(n, []),
                                               nodes.get(n, [])[1:])]
t.ok(len(counted) >= MANY // 2 and min(lgaps) >= 0.5 * MANY / RATE,
     "the ledger samples a cluster again only after about %d s too "
     "(%d clusters sampled twice, shortest gap %.1f s)" % (
         MANY / RATE, len(counted), min(lgaps) if lgaps else -1))
lfirst = min(v[0] for n, v in nodes.items() if n in many) if nodes else 0
llast = max(v[-1] for n, v in nodes.items() if n in many) if nodes else 0
lcount = sum(len(nodes.get(n, [])) for n in many)
t.ok(lcount <= RATE * (llast - lfirst + 2) + RATE,
     "%d samples in %.1f s: at most %d a second and one pass's %d more" % (
         lcount, llast - lfirst, RATE, RATE))

# Bad input: a rate out of range is refused at start, naming the key.
conf = os.path.join(s.dir, "bad.conf")
with open(conf, "w") as f:
    f.write("watch_rate = 0\n")
r = subprocess.run([s.slipway, "start", "--state-dir",
                    os.path.join(s.dir, "bad")], capture_output=True,
                   text=True, timeout=60,
                   env=dict(os.environ, SLIPWAY_CONF=conf))
t.ok(r.returncode != 0 and "watch_rate must be 1..1000" in r.stderr,
     "watch_rate = 0 is refused, naming the key (%s)" % r.stderr.strip())
s.stop()
t.done()
