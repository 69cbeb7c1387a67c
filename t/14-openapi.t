#!/usr/bin/python3
# 14-openapi.t: /api/v1/openapi.json is generated from the operation
# table and passes a real validator (@apidevtools/swagger-parser from
# npm); a deliberately broken copy fails it, so the check can fail.
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR

t = T()
validator = os.path.join(SRCDIR, "t", "lib", "validate-openapi.js")
modules = os.path.join(SRCDIR, "t", "node_modules", "@apidevtools",
                       "swagger-parser")
if not shutil.which("node") or not os.path.isdir(modules):
    t.skip_all("node or @apidevtools/swagger-parser missing "
               "(./quickstart test installs them)")

s = Stack(t)
r = s.get("/api/v1/openapi.json", token=None)
t.eq(r.status, 200, "openapi.json served without a token")
doc = r.json
t.eq(doc.get("openapi"), "3.1.0", "OpenAPI 3.1")
ops = {}
for p, item in doc["paths"].items():
    for m, op in item.items():
        ops[op["operationId"]] = (m.upper(), p, op)
for name in ("health", "version", "operation_list", "operation_get",
             "operation_wait", "operation_retry", "operation_cancel",
             "login"):
    t.ok(name in ops, "operation %s is documented" % name)
t.eq(ops["operation_get"][0:2], ("GET", "/api/v1/operations/{id}"),
     "method and path from the table")
params = {p["name"]: p for p in ops["operation_list"][2]["parameters"]}
t.eq(params["limit"]["schema"].get("maximum"), 200,
     "query bounds come from the field table")
t.eq(ops["health"][2]["security"], [], "public operations need no auth")
t.ok(ops["version"][2]["security"], "other operations declare auth")
t.eq(params["limit"]["schema"].get("default"), 50,
     "a row's default is the schema's default")


def defaults(node, where, out):
    """(where, schema) of every schema in node that has a default."""
    if isinstance(node, dict):
        if "default" in node and "type" in node:
            out.append((where, node))
        for k, v in node.items():
            defaults(v, where + "/" + str(k), out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            defaults(v, where + "/" + str(i), out)
    return out


found = defaults(doc, "", [])
t.ok(len(found) >= 15, "defaults come from the rows (%d schemas)" %
     len(found))
said = [w for w, sch in found
        if json.dumps(sch["default"]).strip('"') not in
        sch.get("description", "")]
t.eq(said, [], "each default is the one its description names")


tmp = tempfile.mkdtemp()
good = os.path.join(tmp, "openapi.json")
with open(good, "w") as f:
    json.dump(doc, f)
v = subprocess.run(["node", validator, good], capture_output=True, text=True,
                   timeout=120)
t.ok(v.returncode == 0, "swagger-parser validates the document: %s" %
     v.stdout.strip())
if v.returncode:
    t.diag(v.stderr)
broken = json.loads(json.dumps(doc))
broken["paths"]["/api/v1/operations/{id}"]["get"]["parameters"][0]["in"] = \
    "nowhere"
with open(os.path.join(tmp, "broken.json"), "w") as f:
    json.dump(broken, f)
v = subprocess.run(["node", validator, os.path.join(tmp, "broken.json")],
                   capture_output=True, text=True, timeout=120)
t.ok(v.returncode != 0, "a copy with a bad parameter location is rejected: %s" %
     (v.stdout.strip().splitlines() or [""])[0][:120])
shutil.rmtree(tmp)
# An answer of the row's own at a problem status (health's 503) also
# lists the problem document nginx or the worker may send there.
h503 = doc["paths"].get("/api/v1/health", {}).get("get", {}) \
    .get("responses", {}).get("503", {}).get("content", {})
t.ok("application/json" in h503 and "application/problem+json" in h503,
     "health's 503 is its own JSON or a problem document: %s" %
     sorted(h503))
s.stop()
t.done()
