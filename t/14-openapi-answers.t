#!/usr/bin/python3
# 14-openapi-answers.t: the API answers as its document says.  A cluster
# lifecycle on the sandbox (inspect, dry run, create, replay, wait, read,
# list, refusals, delete) is recorded, and every answer is checked by a
# JSON Schema 2020-12 validator (ajv with ajv-formats, from npm) against
# /api/v1/openapi.json: its status must be documented for its operation,
# its media type too, and its body must match that schema.  A copy of an
# answer with a member the document does not name fails, so the check can
# fail.  The document is linted clean by a standard OpenAPI linter
# (@redocly/cli, recommended rules).
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, need_clusters, wait_operation, \
    Answers, Response

t = T()
mods = os.path.join(SRCDIR, "t", "node_modules")
if not shutil.which("node") or not all(
        os.path.isdir(os.path.join(mods, m))
        for m in ("ajv", "ajv-formats", "@redocly")):
    t.skip_all("node, ajv, ajv-formats or @redocly/cli missing "
               "(./quickstart test installs them)")
need_clusters(t)
s = Stack(t, sandbox=True, speed=2000)
answers = []
plain_request = s.request


def recording(method, path, body=None, **kw):
    r = plain_request(method, path, body=body, **kw)
    answers.append({"method": method, "path": path, "status": r.status,
                    "type": r.header("Content-Type") or "",
                    "body": r.body})
    return r


s.request = recording

# ---- the document, and what every caller reads first
doc = s.get("/api/v1/openapi.json", token=None).json
t.ok(doc and doc.get("openapi") == "3.1.0", "the document is served")
t.eq(s.get("/api/v1/health", token=None).status, 200, "health")
t.eq(s.get("/api/v1/version").status, 200, "version")
t.eq(s.get("/api/v1/whoami").status, 200, "whoami")
r = s.get("/metrics")
t.eq(r.status, 200, "metrics")
t.ok((r.header("Content-Type") or "").startswith("text/plain"),
     "metrics are Prometheus text")
r = s.post("/api/v1/tokens", {"name": "reader", "scope": "read"})
t.eq(r.status, 201, "token created")
t.eq(s.get("/api/v1/tokens").status, 200, "tokens listed")
t.eq(s.request("DELETE", "/api/v1/tokens/reader").status, 200,
     "token revoked")

# ---- inspect, then a cluster's life
t.eq(s.get("/api/v1/regions").status, 200, "regions")
t.eq(s.get("/api/v1/availability-zones").status, 200, "zones")
r = s.get("/api/v1/instance-types?gpu_only=true")
t.eq(r.status, 200, "instance types")
types = {i["instance_type"]: i for i in r.json["items"]}
gtype = "ml.g5.8xlarge" if "ml.g5.8xlarge" in types else sorted(types)[0]
gaz = types[gtype]["availability_zones"][0]
t.eq(s.get("/api/v1/training-plans").status, 200, "training plans")
body = {"name": "shape", "instance_groups": [
    {"name": "workers", "instance_type": gtype, "count": 1,
     "availability_zone": gaz}]}
t.eq(s.post("/api/v1/clusters", dict(body, bogus=1)).status, 400,
     "an unknown member is refused")
t.eq(s.get("/api/v1/clusters", token=None).status, 401,
     "no token is refused")
t.eq(s.post("/api/v1/clusters?dry_run=true", body).status, 200,
     "dry run: the plan")
r = s.post("/api/v1/clusters", body, headers={"Idempotency-Key": "shape-1"})
t.eq(r.status, 202, "create accepted")
op = (r.json or {}).get("operation_id", "op-0000000000000000")
r = s.post("/api/v1/clusters", body, headers={"Idempotency-Key": "shape-1"})
t.ok(r.status == 202 and r.json.get("idempotent_replay"),
     "the same key replays")
t.eq(s.get("/api/v1/operations/%s" % op).status, 200, "operation read")
done = wait_operation(s, op, timeout=240)
t.eq(done.get("state"), "succeeded", "the create succeeded")
t.eq(s.get("/api/v1/operations?limit=5").status, 200, "operations listed")
t.eq(s.get("/api/v1/operations/%s:wait?timeout=1" % op).status, 200,
     "a wait on an ended operation answers at once")
t.eq(s.post("/api/v1/operations/%s:cancel" % op).status, 409,
     "an ended operation cannot be cancelled")
t.eq(s.post("/api/v1/operations/%s:retry" % op).status, 409,
     "a succeeded operation cannot be retried")
t.eq(s.get("/api/v1/operations/op-0123456789abcdef").status, 404,
     "an unknown operation is 404")
for path in ("/api/v1/clusters", "/api/v1/clusters/shape",
             "/api/v1/clusters/shape/instance-groups",
             "/api/v1/clusters/shape/compute-subnets",
             "/api/v1/clusters/shape/nodes",
             "/api/v1/clusters/shape/events",
             "/api/v1/clusters/shape/storage",
             "/api/v1/clusters/shape/features",
             "/api/v1/clusters/shape/addons",
             "/api/v1/clusters/shape/diagnostics"):
    r = s.get(path)
    t.eq(r.status, 200, "GET %s" % path)
t.eq(s.request("DELETE", "/api/v1/clusters/shape?dry_run=true").status,
     200, "delete dry run: the plan")
r = s.request("DELETE", "/api/v1/clusters/shape")
t.eq(r.status, 202, "delete accepted")
done = wait_operation(s, (r.json or {}).get("operation_id", op),
                      timeout=240)
t.eq(done.get("state"), "succeeded", "the delete succeeded")
s.request = plain_request

# ---- every answer against the document
tmp = tempfile.mkdtemp()
doc_path = os.path.join(tmp, "openapi.json")
with open(doc_path, "w") as f:
    json.dump(doc, f)
validator = os.path.join(SRCDIR, "t", "lib", "validate-answers.js")


def validate(recorded):
    path = os.path.join(tmp, "answers.json")
    with open(path, "w") as f:
        json.dump(recorded, f)
    v = subprocess.run(["node", validator, doc_path, path],
                       capture_output=True, text=True, timeout=300)
    try:
        return v.returncode, json.loads(v.stdout)
    except ValueError:
        return v.returncode, {"failures": [v.stdout + v.stderr]}


rc, res = validate(answers)
t.ok(rc == 0 and not res.get("failures") and res.get("checked") ==
     len(answers), "all %d answers match the document (%s exact)" %
     (len(answers), res.get("exact")))
for f in res.get("failures", [])[:30]:
    t.diag(f)
if res.get("loose"):
    t.diag("answers documented only as an object: %s" %
           ", ".join(res["loose"]))
health = next(a for a in answers if a["path"] == "/api/v1/health")
extra = dict(health, body=json.dumps(dict(json.loads(health["body"]),
                                          surprise=1)))
rc, res = validate([extra])
t.ok(rc != 0 and res.get("failures"),
     "an answer with an undocumented member fails the check")
gone = dict(health, status=418)
rc, res = validate([gone])
t.ok(rc != 0 and res.get("failures"),
     "an undocumented status fails the check")



# ---- the harness's own check (every integration test's answers) can fail
class Checks:
    def __init__(self):
        self.at_done, self.results = [], []

    def ok(self, cond, name):
        self.results.append((bool(cond), name))

    def skip(self, why):
        self.results.append((None, why))


checks = Checks()
wrong = Answers(checks, name="14-openapi-answers-wrong")
wrong.doc = doc
json_type = [("Content-Type", "application/json")]
wrong.record("GET", "/api/v1/health",
             Response(200, json_type, extra["body"]))
wrong.record("POST", "/api/v1/clusters?dry_run=true",
             Response(200, json_type, json.dumps({"plan": "none"})))
wrong.record("GET", "/api/v1/version",
             Response(201, json_type, json.dumps({})))
wrong.record("GET", "/api/v1/version",
             Response(200, [("Content-Type", "text/html")], "<p>"))
wrong.record("GET", "/metrics", Response(200, json_type, "{}"))
for fn in checks.at_done:
    fn()
bad = [n for good, n in checks.results if good is False]
t.ok(len(wrong.items) == 4 and len(bad) == 5 and
     any("health" in n and "200" in n and "additional" in n for n in bad) and
     any("cluster_create" in n and "(dry run)" in n for n in bad) and
     any("documents no 201" in n for n in bad) and
     any("not text/html" in n for n in bad),
     "the harness records the answers of /api/v1 and reports each one "
     "outside the document")
for n in bad:
    t.diag(n)

# ---- the document linted clean
lint = subprocess.run(
    ["node", os.path.join(mods, "@redocly", "cli", "bin", "cli.js"), "lint",
     "--config", os.path.join(SRCDIR, "t", "redocly.yaml"),
     "--format=json", doc_path],
    capture_output=True, text=True, timeout=300)
try:
    report = json.loads(lint.stdout)
except ValueError:
    report = {}
totals = report.get("totals", {})
t.ok(lint.returncode == 0 and totals.get("errors") == 0 and
     totals.get("warnings") == 0, "the OpenAPI linter finds nothing: %s" %
     totals)
for p in report.get("problems", [])[:20]:
    t.diag("%s: %s" % (p.get("ruleId"), p.get("message")))
with open(doc_path) as f:
    paths = json.load(f)["paths"]
no2xx = ["%s %s" % (m.upper(), p) for p, ops in paths.items()
         for m, o in ops.items() if isinstance(o, dict) and "responses" in o
         and not any(c.startswith("2") for c in o["responses"])
         and not all(c.startswith("3") or c.startswith("4") or
                     c.startswith("5") or c == "default"
                     for c in o["responses"])]
redirects = sorted("%s %s" % (m.upper(), p) for p, ops in paths.items()
                   for m, o in ops.items() if isinstance(o, dict) and
                   "responses" in o and
                   not any(c.startswith("2") for c in o["responses"]))
t.ok(not no2xx and all(r.startswith("GET /api/v1/login/oidc")
                       for r in redirects),
     "every operation has a 2XX answer, but the sign-in redirects: %s" %
     redirects)
shutil.rmtree(tmp)
s.stop()
t.done()
