#!/usr/bin/python3
# 31-mcp-output.t: every tool result is what its outputSchema says, as
# the official MCP SDK client (@modelcontextprotocol/sdk 1.x) checks it.
# t/lib/mcp-output.mjs lists the tools (the SDK then validates each
# call's structuredContent against the tool's outputSchema with ajv, and
# throws when it does not match or is missing), creates a cluster and a
# compute quota, calls every read-only tool with what it made, deletes
# the quota and the cluster.  Any call the SDK refuses fails here, naming
# the tool and the validator's message; the read-only tools must all
# have been called, and those whose object exists must have succeeded.
# The SDK must refuse a real answer against an outputSchema asking for
# one more member, so the check can fail; no outputSchema may be a bare
# object.
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, need_clusters

t = T()
TDIR = os.path.join(SRCDIR, "t")
if not shutil.which("node") or not os.path.isdir(os.path.join(
        TDIR, "node_modules", "@modelcontextprotocol", "sdk")):
    t.skip_all("node or @modelcontextprotocol/sdk missing "
               "(cd t && npm install)")
need_clusters(t)

s = Stack(t, sandbox=True, speed=2000)
r = subprocess.run(["node", os.path.join(TDIR, "lib", "mcp-output.mjs"),
                    "http://127.0.0.1:%d/mcp" % s.port, s.token, "outcl"],
                   capture_output=True, text=True, timeout=900, cwd=TDIR)
o = None
try:
    o = json.loads(r.stdout.splitlines()[-1])
except (ValueError, IndexError):
    t.diag(r.stdout[-2000:] + r.stderr[-3000:])
if not t.ok(r.returncode == 0 and o is not None, "the SDK client ran"):
    s.stop()
    t.done()

neg = o["negative"]
t.ok(neg["threw"] and "output schema" in neg.get("message", ""),
     "the SDK refuses whoami's answer against an outputSchema asking for "
     "one more member (the check can fail)")
t.eq(o["bare"], [], "every outputSchema names its members")
calls = o["calls"]
refused = [c for c in calls if not c["ok"]]
t.ok(not refused, "the SDK accepted all %d results (structuredContent "
     "checked against each outputSchema)" % len(calls))
for c in refused:
    t.diag("%s %s: %s %s" % (c["tool"], json.dumps(c["args"]), c["code"],
                             c["message"][:1500]))
called = {c["tool"] for c in calls}
t.ok(len(o["readOnly"]) >= 25 and set(o["readOnly"]) <= called,
     "every read-only tool was called (%d)" % len(o["readOnly"]))
t.eq(o["createState"], "succeeded", "cluster_create succeeded")
t.ok(o["quotaStatus"] in ("Creating", "CreateFailed"),
     "compute_quota_create was accepted")
t.eq(o["deleteState"], "succeeded", "cluster_delete succeeded")
# The objects the lifecycle made exist: reading them must succeed; only
# the job, the MLflow App, the endpoint, the budget and the training
# plan it did not make are 404.
errors = {c["tool"]: c["status"] for c in calls
          if c["ok"] and c["isError"]}
t.eq(errors, {"training_job_get": 404, "training_job_logs": 404,
              "mlflow_app_get": 404, "inference_get": 404,
              "inference_logs": 404,
              "budget_get": 404, "training_plan_get": 404,
              "training_checkpoint_list": 404, "space_get": 404},
     "the read-only calls succeeded but for the objects never made (404)")
for name in ("cluster_create", "compute_quota_create",
             "compute_quota_delete", "cluster_delete", "operation_wait",
             "operation_get", "operation_list"):
    t.ok(any(c["tool"] == name and c["ok"] and not c["isError"]
             for c in calls), "%s succeeded through the SDK" % name)
s.stop()
t.done()
