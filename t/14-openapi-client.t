#!/usr/bin/python3
# 14-openapi-client.t: a client generated from the served document works.
# openapi-typescript (npm) turns /api/v1/openapi.json into TypeScript
# types; t/lib/openapi-lifecycle.mts calls Slipway through openapi-fetch
# with them and is compiled by tsc (strict): a path, parameter, body
# member or answer field the document does not describe fails the build.
# A script that reads an undocumented field and sends a count as a string
# must not compile, so the check can fail.  The compiled lifecycle
# then runs against the sandbox: create as a dry run, create, wait, list,
# get, delete, wait.
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, need_clusters

t = T()
mods = os.path.join(SRCDIR, "t", "node_modules")
if not shutil.which("node"):
    t.skip_all("node missing")
need = ("openapi-typescript", "openapi-fetch", "typescript", "@types/node")
missing = [m for m in need if not os.path.isdir(os.path.join(mods, m))]
if missing:
    t.skip_all("%s missing (cd t && npm install)" % ", ".join(missing))
need_clusters(t)

work = tempfile.mkdtemp(prefix="sw-client-")
os.symlink(mods, os.path.join(work, "node_modules"))


def node(*args, timeout=300):
    return subprocess.run(["node"] + list(args), capture_output=True,
                          text=True, timeout=timeout, cwd=work)


def tsc(source):
    """Compile source (a file of work) against the generated types;
    JavaScript is written only when nothing is wrong."""
    with open(os.path.join(work, "tsconfig.json"), "w") as f:
        json.dump({"compilerOptions": {
            "strict": True, "module": "nodenext",
            "moduleResolution": "nodenext", "target": "es2022",
            "types": ["node"], "skipLibCheck": False,
            "noEmitOnError": True, "outDir": "out"},
            "files": [source]}, f)
    return node(os.path.join(mods, "typescript", "bin", "tsc"), "-p",
                "tsconfig.json")


s = Stack(t, sandbox=True, speed=2000)
r = s.get("/api/v1/openapi.json", token=None)
t.eq(r.status, 200, "the document is served")
with open(os.path.join(work, "openapi.json"), "w") as f:
    f.write(r.body)

# ---- generate
g = node(os.path.join(mods, "openapi-typescript", "bin", "cli.js"),
         "openapi.json", "-o", "api.d.ts")
t.ok(g.returncode == 0 and os.path.exists(os.path.join(work, "api.d.ts")),
     "openapi-typescript generates the client's types")
if g.returncode != 0:
    t.diag(g.stdout + g.stderr)
with open(os.path.join(work, "api.d.ts")) as f:
    types = f.read()
t.ok('"/api/v1/clusters/{name}"' in types and "operation_id" in types,
     "the types describe the paths and the answers")

# ---- compile: the lifecycle builds, a script outside the document does not
shutil.copy(os.path.join(SRCDIR, "t", "lib", "openapi-lifecycle.mts"), work)
c = tsc("openapi-lifecycle.mts")
t.ok(c.returncode == 0, "tsc compiles the lifecycle against the types")
if c.returncode != 0:
    t.diag(c.stdout + c.stderr)
with open(os.path.join(work, "wrong.mts"), "w") as f:
    f.write('''import createClient from "openapi-fetch";
import type { paths } from "./api.js";
const api = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });
const got = await api.GET("/api/v1/clusters/{name}",
    { params: { path: { name: "x" } } });
const size: number = got.data ? got.data.no_such_field : 0;
await api.POST("/api/v1/clusters", { body: { name: "x", instance_groups: [
    { name: "w", instance_type: "ml.g5.8xlarge", count: "one" }] } });
console.log(size);
''')
w = tsc("wrong.mts")
t.ok(w.returncode != 0 and "'no_such_field' does not exist" in w.stdout
     and "not assignable to type 'number'" in w.stdout,
     "a script reading an undocumented field, or sending a count as a "
     "string, does not compile")
if w.returncode == 0:
    t.diag(w.stdout)

# ---- run the lifecycle against the sandbox
types_r = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
it = next((i for i in types_r if i["instance_type"] == "ml.g5.8xlarge"),
          types_r[0])
run = None
if c.returncode == 0:
    run = node(os.path.join("out", "openapi-lifecycle.mjs"),
               "http://127.0.0.1:%d" % s.port, s.token, "gen-client",
               it["instance_type"], it["availability_zones"][0], timeout=900)
    if run.returncode != 0:
        t.diag(run.stdout + run.stderr[-3000:])
try:
    seen = json.loads(run.stdout) if run else {}
except ValueError:
    seen = {}
t.ok(run is not None and run.returncode == 0 and "failed" not in seen,
     "the generated client runs the lifecycle%s" %
     (" (failed at %s)" % seen["failed"] if "failed" in seen else ""))
t.ok(seen.get("plan_dry_run") is True and seen.get("plan_calls", 0) > 0,
     "the dry run answers the plan")
t.eq(seen.get("create_kind"), "cluster.create", "create started")
t.eq(seen.get("create_state"), "succeeded", "the create succeeded")
t.eq(seen.get("listed"), [True], "the list has the cluster, managed")
t.eq((seen.get("got_name"), seen.get("got_managed")), ("gen-client", True),
     "get reads it")
t.eq(seen.get("delete_kind"), "cluster.delete", "delete started")
t.eq(seen.get("delete_state"), "succeeded", "the delete succeeded")
t.eq(seen.get("after_status"), 404, "then it is gone")
s.stop()
shutil.rmtree(work, ignore_errors=True)
t.done()
