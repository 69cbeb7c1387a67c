#!/usr/bin/python3
# 58-write-contention.t: writes wait their turn, they do not fail, when
# the machine is merely slow.  Two CPU-bound processes compete with the
# stack while eight clients write at once (cluster creates, each an
# operation the poller then runs and writes to, tokens made and revoked,
# operations cancelled) and read; every write is accepted.
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, need_clusters

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, workers=2)
types = s.get("/api/v1/instance-types").json["items"]
it = types[0]
HOG = "import time\nend = time.time() + 300\nwhile time.time() < end: pass\n"
hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2)]
bad = []
accepted = []
ops = []
lock = threading.Lock()


def note(what, r, ok):
    with lock:
        if r.status in ok:
            accepted.append(what)
        else:
            bad.append((what, r.status, (r.json or {}).get("detail")))


def client(k):
    for i in range(6):
        name = "w%d-%d" % (k, i)
        r = s.post("/api/v1/clusters", {"name": name, "instance_groups": [
            {"name": "cpu", "instance_type": it["instance_type"],
             "count": 1,
             "availability_zone": it["availability_zones"][0]}]})
        note("create " + name, r, (202,))
        if r.status == 202:
            with lock:
                ops.append(r.json["operation_id"])
        r = s.post("/api/v1/tokens", {"name": "t" + name, "scope": "read"})
        note("token " + name, r, (201,))
        r = s.request("DELETE", "/api/v1/tokens/t" + name)
        note("revoke " + name, r, (200, 204))
        note("list", s.get("/api/v1/operations?limit=20"), (200,))


try:
    th = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for x in th:
        x.start()
    for x in th:
        x.join(600)
    for op in ops[::2]:
        r = s.post("/api/v1/operations/%s:cancel" % op, {})
        note("cancel " + op, r, (200, 202, 409))
finally:
    for h in hogs:
        h.kill()
        h.wait()
for b in bad[:10]:
    t.diag("refused: %s" % (b,))
t.eq(bad, [], "every write accepted beside two CPU hogs (%d requests)"
     % len(accepted))
t.eq(len(ops), 48, "48 operations recorded")
s.stop()
t.done()
