#!/usr/bin/python3
# 56-metrics.t: GET /metrics is Prometheus text for an admin token only,
# and its counters agree with the sandbox: the AWS requests it counts by
# operation and outcome are the ones in the sandbox's request log, one
# for one; operations, stage durations, MCP calls by tool and worker
# restarts are there too.
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, sandbox_requests, wait_operation, wait_for
from harness import need_clusters
from mcp_raw import Mcp

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()


def scrape():
    r = s.get("/metrics")
    series = {}
    for line in r.body.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, _, value = line.rpartition(" ")
        series[key] = float(value)
    return r, series


def labels(key):
    return dict(re.findall(r'(\w+)="([^"]*)"', key))


t.eq(s.get("/metrics", token=None).status, 401, "no token: 401")
t.eq(s.get("/metrics", token=reader).status, 403, "a read token: 403")

types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "met", "node_recovery": "None",
                                "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")
mcp = Mcp(s)
for _ in range(2):
    mcp.call("cluster_list", {})
mcp.call("cluster_get", {"name": "met"})

r, m = scrape()
t.eq(r.status, 200, "admin scrapes /metrics")
t.ok((r.header("Content-Type") or "").startswith("text/plain; version=0.0.4"),
     "Prometheus text exposition format")
t.eq(m.get('slipway_operations{kind="cluster.create",state="succeeded"}'),
     1.0, "operations by kind and state")
stages = [k for k in m if k.startswith("slipway_stage_duration_seconds_count")
          and labels(k).get("kind") == "cluster.create"]
t.ok(len(stages) >= 5 and all(m[k] == 1 for k in stages),
     "a duration for each stage of the create (%d stages)" % len(stages))
t.ok("slipway_poller_lag_seconds" in m, "poller lag is reported")
t.eq(m.get('slipway_mcp_calls_total{tool="cluster_list",outcome="ok"}'),
     2.0, "MCP calls by tool: two cluster_list")
t.eq(m.get('slipway_mcp_calls_total{tool="cluster_get",outcome="ok"}'),
     1.0, "MCP calls by tool: one cluster_get")

# Every AWS request, by operation and outcome, against the request log.
# (Kubernetes API calls are in the log too, and S3 is counted under its
# HTTP method, not its operation name: both are left out.)
AWS_OP = re.compile(r"^[A-Z][A-Za-z0-9]+$")
want = {}
for e in sandbox_requests(s):
    op = e.get("operation") or ""
    if not AWS_OP.match(op) or e.get("service") == "s3":
        continue
    outcome = "ok" if int(e.get("status") or 200) < 300 else (
        e.get("error") or "error")
    want[(op, outcome)] = want.get((op, outcome), 0) + 1
got = {}
for k, v in m.items():
    if k.startswith("slipway_aws_requests_total{"):
        lb = labels(k)
        if lb["service"] == "s3":
            continue
        key = (lb["operation"], lb["outcome"])
        got[key] = got.get(key, 0) + int(v)
t.ok(sum(got.values()) > 20, "AWS requests were counted (%d)" %
     sum(got.values()))
diff = sorted(set(k for k in set(want) | set(got)
                  if want.get(k, 0) != got.get(k, 0)))
for k in diff[:20]:
    t.diag("%s %s: metrics %d, request log %d" % (k[0], k[1], got.get(k, 0),
                                                  want.get(k, 0)))
t.ok(not diff, "AWS requests by operation and outcome match the sandbox "
     "request log (%d series)" % len(want))

# A worker restart is counted.
pid = next(c["pid"] for c in s.status()["components"]
           if c["name"] == "poller")
os.kill(pid, signal.SIGKILL)
t.ok(wait_for(lambda: any(c["name"] == "poller" and c["running"] and
                          c["pid"] != pid
                          for c in s.status()["components"]), timeout=30),
     "the poller is restarted")
r, m = scrape()
t.eq(m.get('slipway_worker_restarts_total{component="poller"}'), 1.0,
     "the restart is counted")
s.stop()
t.done()
