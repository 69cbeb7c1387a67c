#!/usr/bin/python3
# 25-cli-client.t: the user CLI, `slipway <verb>`, against a stack on the
# sandbox.  Every operation of the table has its verb, with the same
# fields in the same places as the OpenAPI document (and in the bash
# completion); contexts name the server and the token; get, describe,
# create (dry run, then for real), wait and delete run a cluster's life;
# and the exit codes say what happened: 3 not found, 4 refused, 5
# invalid, 2 usage, 7 no answer.
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SLIPWAY, need_clusters

t = T()
need_clusters(t)
tmp = tempfile.mkdtemp(prefix="sw-cli-")
ENV = dict(os.environ, SLIPWAY_CONTEXTS=os.path.join(tmp, "contexts.json"))
ENV.pop("SLIPWAY_SERVER", None)
ENV.pop("SLIPWAY_TOKEN", None)


def cli(*args, env=None):
    r = subprocess.run([SLIPWAY] + list(args), capture_output=True,
                       text=True, timeout=300, env=env or ENV)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = None
    return r.returncode, doc, r.stdout, r.stderr


s = Stack(t, sandbox=True, speed=3000)
doc = s.get("/api/v1/openapi.json").json

# ---- every operation has its verb, with the same fields -------------
wrong, verbs = [], 0
rc, _, completion, _ = cli("completion", "bash")
for path, item in doc["paths"].items():
    if not path.startswith("/api/v1/"):
        continue
    for method, op in item.items():
        if not isinstance(op, dict) or "operationId" not in op:
            continue
        verbs += 1
        verb = op["operationId"].replace("_", "-")
        want = {(p["name"], p["in"], bool(p.get("required")))
                for p in op.get("parameters", []) if p["in"] != "header"}
        body = ((op.get("requestBody") or {}).get("content") or {}).get(
            "application/json", {}).get("schema", {})
        want |= {(k, "body", k in body.get("required", []))
                 for k in body.get("properties", {})}
        rc, got, out, err = cli("help", verb, "--json")
        have = {(f["name"], f["in"], f["required"])
                for f in (got or {}).get("fields", [])}
        if rc != 0 or have != want or (got or {}).get("method") != \
                method.upper() or (got or {}).get("path") != path:
            wrong.append("%s: %s" % (verb, sorted(have ^ want)))
        if " %s " % verb not in completion and \
                " %s\"" % verb not in completion:
            wrong.append("%s: not in the completion" % verb)
for w in wrong[:10]:
    t.diag(w)
t.ok(verbs > 50 and not wrong, "every one of the %d operations has its "
     "verb with the OpenAPI document's fields, places and required "
     "flags, and the bash completion names it (%d wrong)" %
     (verbs, len(wrong)))

# ---- contexts and a cluster's life ----------------------------------
rc, _, _, err = cli("get", "clusters")
t.eq(rc, 2, "no context and no SLIPWAY_SERVER: usage error 2 (%s)" %
     err.strip())
tokfile = os.path.join(tmp, "token")
with open(tokfile, "w") as f:
    f.write(s.token + "\n")
base = "http://127.0.0.1:%d" % s.port
rc, _, _, _ = cli("context", "set", "dev", "--server", base,
                  "--token-file", tokfile)
t.eq(rc, 0, "slipway context set dev --server --token-file")
t.eq(oct(os.stat(ENV["SLIPWAY_CONTEXTS"]).st_mode & 0o777), "0o600",
     "the contexts file holds a token: 0600")
rc, who, _, _ = cli("whoami", "-o", "json")
t.eq((rc, (who or {}).get("name")), (0, "test-admin"),
     "slipway whoami answers as the context's token")
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
spec = os.path.join(tmp, "cluster.json")
with open(spec, "w") as f:
    json.dump({"name": "cli1", "instance_groups": [
        {"name": "w", "instance_type": g["instance_type"], "count": 1,
         "availability_zone": g["availability_zones"][0]}]}, f)
rc, plan, _, _ = cli("create", "cluster", "-f", spec, "--dry-run", "-o",
                     "json")
t.ok(rc == 0 and (plan or {}).get("dry_run") is True and
     not s.get("/api/v1/clusters/cli1").status == 200,
     "create cluster -f --dry-run: the plan, and nothing made")
rc, acc, _, _ = cli("create", "clusters", "-f", spec, "-o", "json")
op = (acc or {}).get("operation_id")
t.ok(rc == 0 and op, "create clusters -f: accepted (%s)" % op)
state = None
for _ in range(60):
    rc, w, _, _ = cli("wait", op or "none", "--timeout", "10", "-o", "json")
    state = (w or {}).get("state")
    if state in ("succeeded", "failed", "cancelled") or rc != 0:
        break
t.eq(state, "succeeded", "slipway wait until the operation ends")
rc, got, _, _ = cli("describe", "cluster", "cli1", "-o", "json")
t.eq((rc, (got or {}).get("name")), (0, "cli1"),
     "describe cluster cli1 (the name is its first path field)")
rc, _, table, _ = cli("get", "clusters", "-o", "table")
t.ok(rc == 0 and "cli1" in table and table.splitlines()[0].split()[0] ==
     "name", "get clusters -o table: a header row and the cluster")

# ---- what the exit codes say ------------------------------------------
rc, _, _, err = cli("describe", "cluster", "nothere")
t.eq(rc, 3, "not found: 3 (%s)" % err.strip().splitlines()[0])
rc, _, _, err = cli("cluster-create", "--name", "Bad Name", "-o", "json")
t.ok(rc == 5 and "name" in err, "refused input: 5, naming the field "
     "(%s)" % err.strip().replace("\n", " | ")[:200])
ro = s.cli("token", "create", "--scope", "read", "--name", "cli-ro").strip()
rc, _, _, err = cli("delete", "cluster", "cli1", env=dict(
    ENV, SLIPWAY_TOKEN=ro))
t.eq(rc, 4, "a read-only token deleting: refused, 4")
rc, _, _, err = cli("cluster-get", "--nope", "x")
t.ok(rc == 2 and "--nope" in err, "an option the verb does not take: 2")
rc, _, _, err = cli("cluster-create", "--name", "x1", "--instance-groups",
                   "[not json", "-o", "json")
t.ok(rc == 2 and "instance_groups" in err,
     "a value that is not of the field's type: 2, naming it (%s)" %
     err.strip())
rc, _, _, _ = cli("get", "clusters", env=dict(
    ENV, SLIPWAY_SERVER="http://127.0.0.1:1"))
t.eq(rc, 7, "no answer from the server: 7")
rc, d, _, _ = cli("delete", "cluster", "cli1", "-o", "json")
t.ok(rc == 0 and (d or {}).get("operation_id"),
     "delete cluster cli1: accepted")
s.stop()
t.done()
