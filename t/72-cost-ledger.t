#!/usr/bin/python3
# 72-cost-ledger.t: the usage ledger over a month of sandbox time.  The
# poller samples the cluster (every second here, slipway.conf's
# ledger_interval), by the clock of AWS's answers; the sandbox jumps a
# month ahead; the ledger then holds the nodes' hours to the second, split
# per UTC day, priced to the cent at the Price List's price; a pod of team
# "a" holding one GPU is its GPU-hours, and the node's other GPUs are
# idle.  Read over REST (JSON and CSV) and MCP.
import csv
import io
import json
import os
import sys
import time
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import aws_price as harness_aws_price
from harness import Stack, Kubectl, sandbox_call, need_clusters
from harness import sandbox_requests
from harness import wait_operation
from mcp_raw import Mcp

t = T()
need_clusters(t)
os.environ["SLIPWAY_LEDGER_INTERVAL"] = "1"
SPEED = 3000
s = Stack(t, sandbox=True, speed=SPEED)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"] and i["gpus"] >= 1)
TYPE, AZ, GPUS = g["instance_type"], g["availability_zones"][0], g["gpus"]
REGION = s.get("/api/v1/regions").json["region"]
MONTH = 30 * 86400


def aws_price(itype):
    """What every plan must agree with: the sandbox's listed price."""
    return harness_aws_price(s, REGION, itype)


def ledger(query=""):
    r = s.get("/api/v1/costs/ledger?cluster=c1&from=2000-01-01&to=2999-12-31"
              + query)
    return r.json if r.status == 200 else {}


def wait_for(pred, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.5)
    return None


price = aws_price(TYPE)
# HyperPod answers the create's CreateCluster with a 500 three times: the
# stage tries again after each, seconds in which the ledger samples on.
st, _ = sandbox_call(s, "POST", "/_sandbox/faults", {"rules": [
    {"service": "sagemaker", "operation": "CreateCluster",
     "fault": "error_5xx", "count": 3}]})
t.eq(st, 200, "HyperPod's CreateCluster will fail three times")
r = s.post("/api/v1/clusters", {"name": "c1", "instance_groups": [
    {"name": "w", "instance_type": TYPE, "count": 2, "availability_zone": AZ}]})
t.eq(r.status, 202, "a cluster of 2 %s (%d GPUs each) is created" % (TYPE, GPUS))
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and runs")
sandbox_call(s, "DELETE", "/_sandbox/faults")
# Until HyperPod answered the create's CreateCluster there was no
# cluster to list the nodes of: the ledger asked for none.
log = sandbox_requests(s, service="sagemaker")
made = min([q["seq"] for q in log if q.get("operation") == "CreateCluster"
            and q.get("status") == 200] or [0])
failed = [q for q in log if q.get("operation") == "CreateCluster"
          and q.get("status", 0) >= 500]
early = [q["seq"] for q in log if q.get("operation") == "ListClusterNodes"
         and q["seq"] < made]
t.ok(made > 0 and len(failed) == 3 and not early,
     "no ListClusterNodes of c1 before HyperPod had it, through 3 failed"
     " creates (%d before request %d)" % (len(early), made))

first = wait_for(lambda: (ledger().get("totals") or {}).get("node_hours"))
t.ok(first, "the poller's first samples reach the ledger: %s node-hours" % first)

# a pod of team a holds one GPU of one node
k = Kubectl(s, "c1")
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
    "name": "trainer", "namespace": "hyperpod-ns-a",
    "labels": {"batch.kubernetes.io/job-name": "llm-1"}},
    "spec": {"containers": [{"name": "x", "image": "registry.example.com/team/train:1",
                              "resources": {"requests": {"nvidia.com/gpu": "1"},
                                            "limits": {"nvidia.com/gpu": "1"}}}]}}
k.run("create", "namespace", "hyperpod-ns-a")
p = k.run("create", "-f", "-", stdin=json.dumps(pod))
t.eq(p.returncode, 0, "a pod of team a asks for 1 GPU: %s" % p.stderr.strip())
running = wait_for(lambda: (k.get("pod", "-n", "hyperpod-ns-a", "trainer") or {})
                   .get("status", {}).get("phase") == "Running")
t.ok(running, "and runs")
wait_for(lambda: any(i.get("team") == "a" for i in
                     ledger("&group_by=team").get("items", [])))

before = ledger()["totals"]
# advance counts sandbox seconds, which run SPEED times faster than the
# clock of AWS's answers: SPEED months of them move that clock a month
st, _ = sandbox_call(s, "POST", "/_sandbox/advance", {"seconds": MONTH * SPEED})
t.eq(st, 200, "the sandbox's clock jumps a month ahead")
after = wait_for(lambda: (lambda x: x if Decimal(str(x.get("node_hours", 0))) >=
                          Decimal(str(before["node_hours"])) + 2 * 720 else None)
                 (ledger()["totals"]), timeout=120)
t.ok(after, "the next sample adds the month: %s node-hours" %
     (after or {}).get("node_hours"))
after = after or {}
nh = Decimal(str(after.get("node_hours", 0)))
t.ok(nh >= 1440 and nh < 1440 + 2, "2 nodes x 720 h, and no more than the "
     "minutes around it: %s" % nh)
usd = Decimal(str(after.get("node_usd", 0)))
t.ok(abs(usd - (nh * price)) < Decimal("0.01"),
     "node_usd %s = node-hours x %s to the cent (%s)" % (usd, price, nh * price))

days = ledger("&group_by=day")["items"]
t.ok(len(days) >= 30 and all(Decimal(str(x["node_hours"])) <= 48 for x in days),
     "split per UTC day: %d days, none over 2 x 24 h" % len(days))
teams = {x["team"]: x for x in ledger("&group_by=team")["items"]}
a = teams.get("a", {})
ah = Decimal(str(a.get("gpu_hours", 0)))
t.ok(ah >= 720 and ah < 722, "team a's job held 1 GPU for the month: %s GPU-hours" % ah)
# Over the month, every node is registered in Kubernetes, so its GPUs
# are known and split exactly.  (Before, while the create verified its
# nodes, a node HyperPod ran but Kubernetes did not list yet counted
# node time with no GPU split: a few seconds, more on a slow build.)


def month(key):
    return Decimal(str(after.get(key, 0))) - Decimal(str(before.get(key, 0)))


idle, held = month("idle_gpu_hours"), month("gpu_hours")
t.ok(abs(idle + held - month("node_hours") * GPUS) < Decimal("0.001"),
     "the month's idle + held GPU-hours = %d GPUs x its node-hours "
     "(%s + %s vs %s)" % (GPUS, idle, held, month("node_hours") * GPUS))
jobs = {x["job"]: x for x in ledger("&group_by=team,job")["items"]}
t.ok("llm-1" in jobs and jobs["llm-1"]["team"] == "a", "per job: %s" % list(jobs))

r = s.get("/api/v1/costs/ledger?cluster=c1&from=2000-01-01&to=2999-12-31"
          "&group_by=team&format=csv")
rows = list(csv.DictReader(io.StringIO(r.body if isinstance(r.body, str) else r.body.decode())))
t.ok(r.status == 200 and r.header("Content-Type").startswith("text/csv") and
     any(x["team"] == "a" and Decimal(x["gpu_hours"]) == ah for x in rows),
     "CSV export: %d rows, the same numbers" % len(rows))
r = s.get("/api/v1/costs/ledger?group_by=cost")
t.eq(r.status, 400, "an unknown column is refused")

m = Mcp(s)
sid = m.initialize()[1]
res = m.legacy("tools/call", {"name": "cost_ledger", "arguments": {
    "cluster": "c1", "from": "2000-01-01", "to": "2999-12-31"}},
    sid=sid).json or {}
sc = (res.get("result") or {}).get("structuredContent") or {}
t.eq(Decimal(str((sc.get("totals") or {}).get("node_hours", -1))),
     Decimal(str(ledger()["totals"]["node_hours"])),
     "MCP's cost_ledger answers the same totals")
k.close()
t.done()
