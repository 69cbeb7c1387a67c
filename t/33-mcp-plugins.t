#!/usr/bin/python3
# 33-mcp-plugins.t: a sysadmin's endpoint becomes a tool.  The example
# examples/plugins/gpu-quota is installed in plugins.d/ (the launcher runs
# it under /ext/gpu-quota/) and tools.d/ (slipway-mcp offers it as
# ext_gpu_quota) before the stack starts.  It must appear in tools/list
# and in the OpenAPI document (which still validates), work through MCP
# for raw HTTP and the SDK 1.x client, keep its scope, and refuse callers
# without a token.  A broken descriptor is skipped, not fatal.
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, BUILDDIR
from mcp_raw import Mcp

t = T()
EX = os.path.join(SRCDIR, "examples", "plugins", "gpu-quota")
PROG = os.path.join(BUILDDIR, "examples", "plugins", "gpu-quota",
                    "slipway-ext-gpu-quota")
if not os.access(PROG, os.X_OK):
    t.skip_all("example plugin not built: %s" % PROG)


def install(state):
    for d in ("plugins.d", "tools.d"):
        os.makedirs(os.path.join(state, d), exist_ok=True)
    with open(os.path.join(EX, "plugin.json")) as f:
        plugin = json.load(f)
    plugin["program"] = PROG
    with open(os.path.join(state, "plugins.d", "gpu-quota.json"), "w") as f:
        json.dump(plugin, f)
    shutil.copy(os.path.join(EX, "tool.json"),
                os.path.join(state, "tools.d", "gpu-quota.json"))
    with open(os.path.join(state, "tools.d", "zz-broken.json"), "w") as f:
        f.write('{"name": "broken", "path": "/api/v1/tokens"}')


s = Stack(t, pre_start=install)
mcp = Mcp(s)
reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()

r = s.get("/ext/gpu-quota/report", token=reader)
t.eq(r.status, 200, "the launcher serves the plugin under /ext/gpu-quota/")
t.eq(s.get("/ext/gpu-quota/report", token=None).status, 401,
     "the plugin refuses a caller without a token")

r = mcp.modern("tools/list", token=reader)
tools = {x["name"]: x for x in r.json["result"]["tools"]}
t.ok("ext_gpu_quota" in tools, "ext_gpu_quota is in tools/list for a read "
     "token")
t.ok("ext_broken" not in tools, "a broken descriptor is skipped")
tq = tools.get("ext_gpu_quota", {})
t.eq(tq.get("annotations", {}).get("readOnlyHint"), True,
     "plugin annotations come from the descriptor")
t.eq(tq.get("_meta", {}).get("slipway/plugin"), True, "flagged as a plugin")
t.ok("instance_type" in tq.get("inputSchema", {}).get("properties", {}),
     "inputSchema from the descriptor")
t.ok("ext_gpu_quota" in s.log_text("mcp.log") or
     "zz-broken.json" in s.log_text("mcp.log"),
     "slipway-mcp logged the skipped descriptor")

r = mcp.call("ext_gpu_quota", {"instance_type": "ml.p5.48xlarge"},
             token=reader)
res = r.json.get("result", {})
t.ok(not res.get("isError") and res.get("structuredContent", {})
     .get("quotas", [{}])[0].get("instance_type") == "ml.p5.48xlarge",
     "calling ext_gpu_quota through MCP reaches the plugin")
t.eq(res.get("structuredContent", {}).get("total_gpus"), 16,
     "the plugin's answer is structuredContent")
r = mcp.call("ext_gpu_quota", {"instance_type": "ml.x9.huge"}, token=reader)
t.ok(r.json["result"].get("isError") and
     r.json["result"]["structuredContent"]["status"] == 404,
     "a plugin 404 is an isError result")

doc = s.get("/api/v1/openapi.json", token=None).json
op = doc["paths"].get("/ext/gpu-quota/report", {}).get("get", {})
t.eq(op.get("operationId"), "ext_gpu_quota",
     "the OpenAPI document lists the plugin endpoint")
t.ok([p["name"] for p in op.get("parameters", [])] == ["instance_type"],
     "its query parameter comes from inputSchema")
validator = os.path.join(SRCDIR, "t", "lib", "validate-openapi.js")
if shutil.which("node") and os.path.isdir(os.path.join(
        SRCDIR, "t", "node_modules", "@apidevtools", "swagger-parser")):
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "openapi.json"), "w") as f:
        json.dump(doc, f)
    v = subprocess.run(["node", validator, os.path.join(tmp, "openapi.json")],
                       capture_output=True, text=True, timeout=120)
    t.ok(v.returncode == 0, "the document with the plugin still validates")
    if v.returncode:
        t.diag(v.stdout + v.stderr)
    shutil.rmtree(tmp)
else:
    t.skip("swagger-parser missing")

sdk = os.path.join(SRCDIR, "t", "lib", "mcp-sdk1.mjs")
if shutil.which("node") and os.path.isdir(os.path.join(
        SRCDIR, "t", "node_modules", "@modelcontextprotocol", "sdk")):
    v = subprocess.run(["node", sdk, "http://127.0.0.1:%d/mcp" % s.port,
                        s.token, reader], capture_output=True, text=True,
                       timeout=180, cwd=os.path.join(SRCDIR, "t"))
    o = json.loads(v.stdout) if v.returncode == 0 else {}
    if v.returncode:
        t.diag(v.stderr[-2000:])
    t.ok(o.get("pluginCall", {}).get("ok") and
         o["pluginCall"]["value"]["structuredContent"]["total_gpus"] == 16,
         "SDK 1.x calls the plugin tool (and validates its outputSchema)")
    t.ok(o.get("pluginMiss", {}).get("value", {}).get("isError") is True,
         "SDK 1.x gets the plugin's 404 as isError")
else:
    t.skip("@modelcontextprotocol/sdk missing", 2)
s.stop()
t.done()
