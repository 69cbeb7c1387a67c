#!/usr/bin/python3
# 31-mcp-sdk.t: real MCP clients from npm against the real stack.
#   @modelcontextprotocol/sdk 1.x   legacy era (initialize + session)
#   @modelcontextprotocol/client 2.x  auto (probes server/discover and
#                                   stays in 2026-07-28), pinned 2026,
#                                   and legacy mode
#   @modelcontextprotocol/inspector 0.15.0 --cli  cannot send headers:
#                                   refused without a token (401), and
#                                   run through a loopback proxy that
#                                   adds one (the server still checks it)
# Each client lists the tools and calls read and mutating tools.
import http.client
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR
from mcp_raw import AuthProxy, Mcp, ACCEPT, MODERN

t = T()
TDIR = os.path.join(SRCDIR, "t")
LIB = os.path.join(TDIR, "lib")
mods = os.path.join(TDIR, "node_modules", "@modelcontextprotocol")
if not shutil.which("node") or not os.path.isdir(os.path.join(mods, "sdk")):
    t.skip_all("node or @modelcontextprotocol/* missing "
               "(cd t && npm install)")


def node(script, *args):
    r = subprocess.run(["node", os.path.join(LIB, script)] + list(args),
                       capture_output=True, text=True, timeout=180, cwd=TDIR)
    if r.returncode != 0:
        t.diag("%s failed: %s" % (script, r.stderr[-2000:]))
        return None
    return json.loads(r.stdout)


def is_error_with(res, status):
    return (res and res.get("ok") and res["value"].get("isError") is True
            and res["value"].get("structuredContent", {}).get("status") ==
            status)


s = Stack(t, sandbox=True, speed=2000)
url = "http://127.0.0.1:%d/mcp" % s.port
reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()
rest_ops = {op["operationId"] for item in
            s.get("/api/v1/openapi.json", token=None).json["paths"].values()
            for op in item.values()}

# ---- SDK 1.x ---------------------------------------------------------------
o = node("mcp-sdk1.mjs", url, s.token, reader)
if t.ok(o is not None, "SDK 1.x client ran"):
    t.eq(o["protocolVersion"], "2025-11-25", "SDK 1.x negotiated 2025-11-25")
    t.ok(o["sessionId"] and len(o["sessionId"]) == 66, "got a session id")
    t.eq(o["serverVersion"]["name"], "slipway", "serverInfo")
    t.ok("operation_wait" in (o["instructions"] or ""),
         "instructions tell agents to poll with operation_wait")
    t.ok(len(o["adminTools"]) >= 10 and set(o["adminTools"]) <= rest_ops,
         "SDK 1.x lists %d tools, each a REST operation" %
         len(o["adminTools"]))
    t.eq(o["toolsWithoutSchemas"], [], "every tool has input and output "
         "schemas")
    t.ok("token_create" not in o["adminTools"] and "login" not in
         o["adminTools"], "NO_MCP rows are not tools")
    t.eq(o["annotations"]["operation_get"]["readOnlyHint"], True,
         "operation_get is read-only")
    t.eq(o["annotations"]["operation_cancel"]["readOnlyHint"], False,
         "operation_cancel is not")
    t.ok(o["ping"]["ok"], "ping")
    t.ok(o["whoami"]["ok"] and o["whoami"]["value"]["structuredContent"]
         ["scope"] == "admin", "read tool whoami (SDK validated its "
         "outputSchema)")
    t.ok(o["opList"]["ok"] and "items" in
         o["opList"]["value"]["structuredContent"],
         "operation_list with an argument")
    t.ok(is_error_with(o["cancelUnknown"], 404),
         "mutating operation_cancel on an unknown op: isError 404")
    t.ok(is_error_with(o["retryUnknown"], 404),
         "mutating operation_retry on an unknown op: isError 404")
    t.ok(is_error_with(o["badArgs"], 400), "bad argument: isError 400")
    t.ok(not o["unknownTool"]["ok"] and o["unknownTool"]["code"] == -32602,
         "unknown tool: JSON-RPC -32602")
    t.ok(o["terminate"]["ok"], "session DELETE answered 405, which the SDK "
         "accepts")
    t.ok("operation_get" in o["readTools"] and "operation_cancel" not in
         o["readTools"], "read token lists read-only tools only")
    t.ok(is_error_with(o["readCancel"], 403),
         "read token: mutating call refused by REST (isError 403)")
    t.ok(not o["badToken"]["ok"], "a bad token cannot connect")

# ---- SDK 2.x ---------------------------------------------------------------
if not os.path.isdir(os.path.join(mods, "client")):
    t.skip("@modelcontextprotocol/client missing", 3)
else:
    for mode, era, version in (("auto", "modern", "2026-07-28"),
                               ("pin", "modern", "2026-07-28"),
                               ("legacy", "legacy", "2025-11-25")):
        o = node("mcp-sdk2.mjs", url, mode, s.token, reader)
        if not t.ok(o is not None, "SDK 2.x client ran (%s)" % mode):
            continue
        t.eq((o["era"], o["protocolVersion"]), (era, version),
             "SDK 2.x %s: %s era, %s" % (mode, era, version))
        t.ok(len(o["adminTools"]) >= 10, "SDK 2.x %s lists tools" % mode)
        t.ok(o["whoami"]["ok"] and o["whoami"]["value"]["structuredContent"]
             ["scope"] == "admin", "SDK 2.x %s calls whoami" % mode)
        t.ok(is_error_with(o["cancelUnknown"], 404) and
             is_error_with(o["retryUnknown"], 404),
             "SDK 2.x %s: mutating calls on an unknown op are isError 404"
             % mode)
        t.eq(o["unknownTool"].get("code"), -32602,
             "SDK 2.x %s: unknown tool -32602" % mode)
        t.ok("operation_cancel" not in o["readTools"] and
             is_error_with(o["readCancel"], 403),
             "SDK 2.x %s: read token sees and may do only reads" % mode)
        calls = [w for w in o["wire"] if w["method"] == "tools/call"]
        if era == "modern":
            t.ok(o["wire"][0]["method"] == "server/discover" and
                 all(w["sessionId"] is None for w in o["wire"]),
                 "SDK 2.x %s: server/discover first, no session" % mode)
            t.ok(all(w["mcpMethod"] == "tools/call" and w["mcpName"] and
                     w["protocolVersion"] == "2026-07-28" for w in calls),
                 "SDK 2.x %s: sent Mcp-Method/Mcp-Name/MCP-Protocol-Version"
                 " and we accepted them" % mode)
        else:
            t.ok(o["wire"][0]["method"] == "initialize" and
                 all(w["sessionId"] for w in calls),
                 "SDK 2.x legacy: initialize, then the session id")
            t.ok(any(w["http"] == "GET" and w["status"] == 200
                     for w in o["wire"]), "SDK 2.x legacy: its session's "
                 "GET stream opened (and, with nothing to watch, closed)")

# ---- MCP Inspector 0.15.0 CLI ----------------------------------------------
insp = ["npx", "--no-install", "mcp-inspector", "--cli"]
if not os.path.isdir(os.path.join(mods, "inspector")):
    t.skip("@modelcontextprotocol/inspector missing", 4)
else:
    r = subprocess.run(insp + [url, "--transport", "http", "--method",
                               "tools/list"], capture_output=True, text=True,
                       timeout=180, cwd=TDIR)
    t.ok(r.returncode != 0 and "Unauthorized" in r.stdout + r.stderr,
         "Inspector 0.15.0 without a token is refused (it has no --header)")
    proxy = AuthProxy(s, reader)
    r = subprocess.run(insp + [proxy.url, "--transport", "http", "--method",
                               "tools/list"], capture_output=True, text=True,
                       timeout=180, cwd=TDIR)
    names = []
    try:
        names = [x["name"] for x in json.loads(r.stdout)["tools"]]
    except (ValueError, KeyError):
        t.diag(r.stdout[-1000:] + r.stderr[-1000:])
    t.ok(r.returncode == 0 and "operation_wait" in names and
         "operation_cancel" not in names,
         "Inspector lists the read token's tools through the token proxy")
    r = subprocess.run(insp + [proxy.url, "--transport", "http", "--method",
                               "tools/call", "--tool-name", "whoami"],
                       capture_output=True, text=True, timeout=180, cwd=TDIR)
    try:
        sc = json.loads(r.stdout)["structuredContent"]
    except (ValueError, KeyError):
        sc = {}
    t.eq(sc.get("name"), "ro", "Inspector calls whoami as the proxy's token")
    r = subprocess.run(insp + [proxy.url, "--transport", "http", "--method",
                               "tools/call", "--tool-name", "operation_cancel",
                               "--tool-arg", "id=op-0123456789abcdef"],
                       capture_output=True, text=True, timeout=180, cwd=TDIR)
    t.ok('"isError": true' in r.stdout and "403" in r.stdout,
         "Inspector: read token's mutating call is isError 403")
    proxy.close()

# ---- subscriptions, without polling, and the confirmation of a delete -----
def watch(sdk, op, cluster, answer=""):
    return subprocess.Popen(["node", os.path.join(LIB, "mcp-watch.mjs"), sdk,
                             url, s.token, op, cluster, answer],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=TDIR)


def report(p, what):
    out, err = p.communicate(timeout=200)
    if p.returncode != 0:
        t.diag("%s failed: %s" % (what, err[-2000:]))
        return None
    return json.loads(out.splitlines()[-1])


types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
body = {"name": "watched", "instance_groups": [
    {"name": "workers", "instance_type": types[0]["instance_type"],
     "count": 1, "availability_zone": types[0]["availability_zones"][0]}]}
# Both clients connect first; the operation starts once both listen.
p1 = watch("1", "-", "watched")
p2 = watch("2", "-", "watched", "decline")
ready = [p.stdout.readline().strip() for p in (p1, p2)]
t.eq(ready, ["ready", "ready"], "both SDK clients connected")
r = s.post("/api/v1/clusters", body)
t.eq(r.status, 202, "a cluster create to watch")
op = r.json["operation_id"]
for p in (p1, p2):
    p.stdin.write(op + "\n")
    p.stdin.flush()
o1, o2 = report(p1, "SDK 1.x watch"), report(p2, "SDK 2.x watch")
for name, o in (("SDK 1.x (resources/subscribe, GET stream)", o1),
                ("SDK 2.x (subscriptions/listen)", o2)):
    if not t.ok(o is not None, "%s ran" % name):
        continue
    t.ok(o["capabilities"]["resources"]["subscribe"],
         "%s: the server offers subscriptions" % name)
    t.ok(o["states"][-1] == "succeeded" and o["updates"] > 0,
         "%s: followed the operation to succeeded on %d updates" %
         (name, o["updates"]))
    t.ok(o["reads"] <= o["updates"] + 1,
         "%s: read it only when told (%d reads)" % (name, o["reads"]))
if o1 is not None:
    t.eq((o1["delete"]["isError"], o1["delete"]["status"]), (True, 428),
         "SDK 1.x (no elicitation): cluster_delete without confirm is "
         "refused")
if o2 is not None:
    t.ok(o2["elicited"] and "cluster_delete" in o2["elicited"],
         "SDK 2.x: asked to confirm the delete, with the plan")
    t.eq((o2["delete"]["isError"], o2["delete"]["status"]), (True, 409),
         "SDK 2.x: the user declined, nothing was deleted")
t.eq(s.get("/api/v1/clusters/watched").status, 200,
     "the cluster is still there")
o3 = report(watch("2", op, "watched", "accept"), "SDK 2.x accept")
if t.ok(o3 is not None, "SDK 2.x (accepting) ran"):
    t.ok(not o3["delete"]["isError"] and o3["delete"]["operation_id"],
         "SDK 2.x: the user confirmed and the delete started")
    # operation_wait with a progress token: each event is a progress
    # step on the call's SSE answer, the result comes last.
    msg = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "operation_wait", "_meta": {"progressToken": "del",
        **Mcp.meta()}, "arguments": {"id": o3["delete"]["operation_id"],
                                     "timeout": 60}}}
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
    c.request("POST", "/mcp", body=json.dumps(msg), headers={
        "Authorization": "Bearer " + s.token,
        "Content-Type": "application/json", "Accept": ACCEPT,
        "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call",
        "Mcp-Name": "operation_wait"})
    resp = c.getresponse()
    ctype = resp.getheader("Content-Type")
    events = [json.loads(line[5:]) for line in
              resp.read().decode().splitlines() if line.startswith("data:")]
    c.close()
    steps = [e["params"] for e in events
             if e.get("method") == "notifications/progress"]
    last = events[-1] if events else {}
    t.ok(ctype == "text/event-stream" and steps and
         all(p["progressToken"] == "del" for p in steps) and
         [p["progress"] for p in steps] == sorted(
             set(p["progress"] for p in steps)),
         "operation_wait with a progress token: %d increasing progress "
         "steps on an SSE answer" % len(steps))
    t.ok(last.get("id") == 5 and last["result"]["structuredContent"]
         ["state"] == "succeeded",
         "... then the result: the delete succeeded")
s.stop()
t.done()
