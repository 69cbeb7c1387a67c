#!/usr/bin/python3
# 56-request-id.t: one id follows a request through every log.  nginx
# gives each request an id ($request_id), answers it as X-Request-Id and
# writes it in the access log; the worker's JSON records carry it, and
# the one that accepts an operation names the operation; the poller's
# records carry the operation's id, and each AWS call it makes is
# logged with AWS's own request id, which the sandbox's request log
# holds for that very call.
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, need_clusters, sandbox_requests, wait_operation

t = T()
need_clusters(t)
os.environ["SLIPWAY_LOG_FORMAT"] = "json"
s = Stack(t, sandbox=True, speed=3000)
del os.environ["SLIPWAY_LOG_FORMAT"]
LOGS = os.path.join(s.state, "logs")


def records(name):
    out = []
    with open(os.path.join(LOGS, name), errors="replace") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


r = s.get("/api/v1/clusters")
rid = r.header("X-Request-Id") or ""
t.ok(re.fullmatch(r"[0-9a-f]{32}", rid), "a read answers X-Request-Id")
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "rid", "node_recovery": "None",
                                "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
rid = r.header("X-Request-Id") or ""
op = (r.json or {}).get("operation_id", "")
t.ok(re.fullmatch(r"[0-9a-f]{32}", rid), "... with its X-Request-Id")
d = wait_operation(s, op, timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")

with open(os.path.join(LOGS, "access.log")) as f:
    access = [x for x in f if "req=" + rid in x]
t.ok(len(access) == 1 and "POST /api/v1/clusters " in access[0],
     "the access log has the request with its id")
api = [x for x in records("api.log") if x.get("request_id") == rid]
t.ok(any(x.get("msg", "").startswith("operation %s accepted" % op)
         for x in api), "the worker's record with that id names the "
     "operation it accepted")
others = {x.get("request_id") for x in records("api.log")
          if x.get("request_id")}
t.ok(all(re.fullmatch(r"[0-9a-f]{32}", x) for x in others),
     "every request id in the worker's log is nginx's form")

poller = [x for x in records("poller.log") if x.get("operation_id") == op]
calls = {}
for x in poller:
    m = re.match(r"aws (\S+) (\S+) attempt \d+: (\S+) \(aws request id "
                 r"(\S+)\)", x.get("msg", ""))
    if m:
        calls[m.group(4)] = m.group(2)
t.ok(len(calls) > 10 and "none" not in calls, "the poller logs the "
     "operation's AWS calls, each with its AWS request id (%d)" % len(calls))
# S3's REST calls are named by their HTTP method in the log.
sent = {q["request_id"]: q.get("method") if q.get("service") == "s3" else
        q.get("operation") for q in sandbox_requests(s)
        if q.get("request_id") in calls}
t.eq(sent, calls, "each is the sandbox's request of that id, for that "
     "operation")
mutations = [q for q in sandbox_requests(s) if q.get("mutating") and
             not q.get("service", "").startswith("kubernetes:")]
missing = [q.get("operation") for q in mutations
           if q.get("request_id") not in calls]
t.ok(len(mutations) > 10 and not missing, "every change the sandbox "
     "received (%d) is in the operation's records%s" % (
         len(mutations), ": not %s" % missing if missing else ""))
s.stop()
t.done()
