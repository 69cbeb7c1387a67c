#!/usr/bin/python3
# 11-api-errors.t: bad input through the real nginx + worker gets a 4xx
# application/problem+json naming the field and the rule; never a 500,
# never a crash (the workers keep their pids).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack

t = T()
s = Stack(t)
pids_before = sorted(c["pid"] for c in s.status()["components"])


def problem(r, status, name, field=None, rule=None):
    good = (r.status == status and
            (r.header("Content-Type") or "").startswith(
                "application/problem+json") and
            r.json is not None and r.json.get("status") == status and
            r.json.get("type", "").startswith("/problems/"))
    if good and field is not None:
        errs = r.json.get("errors", [])
        good = any(e.get("field") == field and
                   (rule is None or e.get("rule") == rule) for e in errs)
    if not t.ok(good, name):
        t.diag(repr(r))


problem(s.post("/api/v1/tokens", raw=b'{"name": "x"',
               headers={"Content-Type": "application/json"}), 400,
        "truncated JSON is 400 malformed-json")
r = s.post("/api/v1/tokens", raw=b'{"name":"x"} {}',
           headers={"Content-Type": "application/json"})
problem(r, 400, "trailing data is 400")
t.eq(r.json and r.json.get("type"), "/problems/malformed-json",
     "problem type says malformed JSON")
problem(s.post("/api/v1/tokens", {"name": 5, "scope": "read"}), 400,
        "wrong type names the field", "name", "type")
problem(s.post("/api/v1/tokens", {"name": "a", "scope": "root"}), 400,
        "enum violation names the field", "scope", "enum")
problem(s.post("/api/v1/tokens", {"name": "a", "scope": "read", "z": 1}),
        400, "unknown field names the field", "z", "unknown")
problem(s.post("/api/v1/tokens", {"scope": "read"}), 400,
        "missing field names the field", "name", "required")
problem(s.post("/api/v1/tokens", {"name": "has space", "scope": "read"}),
        400, "pattern violation names the field", "name", "pattern")
r = s.post("/api/v1/clusters?dry_run=true", {"name": "9-Bad", "instance_groups":
           [{"name": "g", "instance_type": "ml.g5.xlarge", "count": 1}]})
msg = [e.get("message") for e in (r.json or {}).get("errors", [])
       if e.get("field") == "name"]
t.eq(msg, ["must be lowercase letters, digits and hyphens, starting with a "
           "letter and ending with a letter or digit, 2 to 32 characters"],
     "a pattern's rule is said in words, once, not as a regular expression")
problem(s.post("/api/v1/tokens", raw=b'name=x',
               headers={"Content-Type": "application/x-www-form-urlencoded"}),
        415, "form body is 415")
problem(s.post("/api/v1/tokens", raw=b"[" * 100 + b"]" * 100,
               headers={"Content-Type": "application/json"}), 400,
        "deep nesting refused")

big = b'{"name":"' + b"a" * (2 * 1024 * 1024) + b'"}'
r = s.post("/api/v1/tokens", raw=big,
           headers={"Content-Type": "application/json"})
t.eq(r.status, 413, "a 2 MiB body is refused by nginx with 413")
t.ok(r.header("Content-Type") == "application/problem+json" and
     (r.json or {}).get("status") == 413 and
     (r.json or {}).get("type") == "/problems/too-large",
     "as a problem document, not nginx's HTML page: %s %r" %
     (r.header("Content-Type"), r.body[:80]))
r = s.request("POST", "/mcp", raw=big,
              headers={"Content-Type": "application/json",
                       "Accept": "application/json, text/event-stream"})
t.ok(r.status == 413 and (r.json or {}).get("status") == 413,
     "the same on /mcp: %d" % r.status)
r = s.post("/api/v1/tokens", raw=b'{"name":"' + b"a" * 900000 + b'"}',
           headers={"Content-Type": "application/json"})
problem(r, 400, "a large string field is refused by the validator",
        "name", "maxLength")

problem(s.get("/api/v1/no/such/route"), 404, "unknown route is 404")
problem(s.get("/api/v2/version"), 404, "unknown API version is 404")
r = s.request("DELETE", "/api/v1/version")
problem(r, 405, "wrong method is 405")
t.eq(r.header("Allow"), "GET", "405 carries Allow")
problem(s.get("/api/v1/operations?limit=abc"), 400,
        "non-integer query value", "limit", "type")
problem(s.get("/api/v1/operations?limit=1000"), 400,
        "query over the maximum", "limit", "maximum")
problem(s.get("/api/v1/operations?nope=1"), 400, "unknown query parameter",
        "nope", "unknown")
problem(s.get("/api/v1/operations?state=%ZZ"), 400, "bad percent-encoding")
problem(s.get("/api/v1/operations/op-..%2f..%2fetc"), 400,
        "traversal-looking id refused as one segment", "id", "segment")

# Encoded separators never turn one route into another: the worker
# splits the raw path before decoding (nginx would resolve %2F and ..).
victim = s.post("/api/v1/tokens", {"name": "victim", "scope": "read"})
t.eq(victim.status, 201, "a token to attack")
secret = (victim.json or {}).get("token", "")
r = s.request("DELETE", "/api/v1/clusters/a/training-jobs/..%2F..%2Fb")
problem(r, 400, "DELETE .../training-jobs/..%2F..%2Fb is a 400, not a "
        "cluster delete", "job", "segment")
r = s.get("/api/v1/operations/..%2Ftokens")
problem(r, 400, "GET /operations/..%2Ftokens is a 400", "id", "segment")
t.ok("victim" not in r.body, "... and lists no token")
r = s.request("DELETE", "/api/v1/clusters/a/training-jobs/"
              "..%2F..%2F..%2Ftokens%2Fvictim")
problem(r, 400, "DELETE .../..%2F..%2F..%2Ftokens%2Fvictim is a 400",
        "job", "segment")
r = s.request("DELETE", "/api/v1/clusters/a/training-jobs/%2E%2E")
problem(r, 400, "an encoded '..' segment is a 400", "job", "segment")
r = s.request("DELETE", "/api/v1/clusters/a/training-jobs/..%252F..%252Fb")
problem(r, 400, "double encoding is a 400", "job", "segment")
r = s.get("/api/v1/clusters/a/training-jobs/../../../tokens")
problem(r, 404, "a raw '..' segment matches no route")
t.eq(s.get("/api/v1/whoami", token=secret).status, 200,
     "the attacked token still works")
problem(s.get("/api/v1/operations/op-0123456789abcdef"), 404,
        "unknown operation is 404")
problem(s.post("/api/v1/operations/op-0123456789abcdef:retry"), 404,
        "retry of an unknown operation is 404")
problem(s.post("/api/v1/operations", {}), 405, "POST on a GET route")
problem(s.post("/api/v1/tokens", {"name": "a", "scope": "read"},
               headers={"Idempotency-Key": "bad key with spaces"}), 400,
        "bad Idempotency-Key", "Idempotency-Key", "pattern")

# Nothing above may have crashed or restarted a worker.
pids_after = sorted(c["pid"] for c in s.status()["components"])
t.eq(pids_after, pids_before, "no worker crashed or restarted")
t.ok("500" not in " ".join(l.split('"')[2][:5] for l in
     s.log_text("access.log").splitlines() if l.count('"') >= 3),
     "no 500 in the access log")
# A managed endpoint's model_source.uri is a path like every other: no
# '.' or '..' segment, for S3 and FSx sources too.
mgd = {"endpoint_name": "mgd", "kind": "managed",
       "instance_type": "ml.g5.xlarge", "replicas": 1}
for uri in ("s3://inf-models/../../etc", "s3://inf-models/models/..",
            "s3://inf-models/./x", "fs-0123456789abcdef0/../etc",
            "org/..", "s3://inf-models//etc", "/etc/passwd"):
    problem(s.post("/api/v1/clusters/inf/inference",
                   dict(mgd, model_source={"type": "s3", "uri": uri})), 400,
            "model_source.uri %s: 400 naming the field" % uri,
            "model_source.uri", "pattern")
for uri in ("s3://inf-models/models/qwen", "s3://inf-models/models/qwen/",
            "fs-0123456789abcdef0/models/a..b", "Qwen/Qwen3-0.6B"):
    r = s.post("/api/v1/clusters/inf/inference",
               dict(mgd, model_source={"type": "s3", "uri": uri}))
    t.ok(not any(e.get("field") == "model_source.uri"
                 for e in (r.json or {}).get("errors", [])),
         "model_source.uri %s passes the path rule (%d)" % (uri, r.status))

s.stop()
t.done()
