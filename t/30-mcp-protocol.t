#!/usr/bin/python3
# 30-mcp-protocol.t: /mcp on the real stack (nginx -> slipway-mcp, which
# runs the REST router in process), spoken in raw HTTP built from the MCP spec, in
# both eras: the legacy initialize/session flow and the stateless
# 2026-07-28 flow, and every wrong request we can think of: malformed
# JSON-RPC, unknown methods and tools, bad arguments, wrong or missing
# headers, foreign Origin/Host, missing or bad tokens, batches.
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, BUILDDIR
from mcp_raw import Mcp, MODERN, LEGACY, err_code

t = T()
s = Stack(t)
mcp = Mcp(s)
reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()

# ---- HTTP level -----------------------------------------------------------
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, token=None)
t.eq(r.status, 401, "no token: 401")
t.ok((r.header("WWW-Authenticate") or "").startswith("Bearer"),
     "401 carries WWW-Authenticate: Bearer")
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
             token="swt_0000000000000000_" + "A" * 43)
t.eq(r.status, 401, "unknown token: 401")
t.ok("invalid_token" in (r.header("WWW-Authenticate") or ""),
     "bad token: error=\"invalid_token\"")
r = mcp.post({}, token=None, headers={"Authorization": "Basic dTpw"})
t.eq(r.status, 401, "Basic credentials: 401")
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
             headers={"Origin": "http://evil.example"})
t.eq(r.status, 403, "foreign Origin: 403")
t.eq(err_code(r), -32600, "403 body is a JSON-RPC error")
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
             headers={"Origin": "http://evil.example"}, token=None)
t.eq(r.status, 403, "foreign Origin is refused before authentication")
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
             headers={"Host": "evil.example", "Origin": "http://evil.example"})
t.eq(r.status, 403, "DNS rebinding (foreign Host and Origin): 403")
r, sid = mcp.initialize()
t.eq(r.status, 200, "initialize")
r = mcp.initialize()[0]
t.eq(r.status, 200, "initialize again (new session)")
r = mcp.legacy("ping", sid=sid, headers={
    "Origin": "http://127.0.0.1:%d" % s.port})
t.eq(r.status, 200, "our own Origin is accepted")
r = mcp.post(None, method="GET", headers={"Accept": "text/event-stream"})
t.eq((r.status, r.header("Allow")), (405, "POST"), "GET: 405 Allow: POST")
r = mcp.post(None, method="DELETE", headers={"Mcp-Session-Id": sid})
t.eq((r.status, r.header("Allow")), (405, "POST"),
     "DELETE of a session: 405 Allow: POST")
r = mcp.post(raw=b"{}", headers={"Content-Type": "text/plain"})
t.eq(r.status, 415, "text/plain body: 415")
r = mcp.post(raw=b"{}", headers={"Accept": "text/html"})
t.eq(r.status, 406, "Accept without JSON: 406")

# ---- JSON-RPC envelope ----------------------------------------------------
r = mcp.post(raw=b'{"jsonrpc":"2.0","id":1,"method":')
t.eq((r.status, err_code(r)), (400, -32700), "malformed JSON: 400 -32700")
t.ok("id" in r.json and r.json["id"] is None, "parse error has id null")
for body, what in (({"jsonrpc": "1.0", "id": 1, "method": "ping"},
                    "jsonrpc 1.0"),
                   ({"id": 1, "method": "ping"}, "no jsonrpc member"),
                   ({"jsonrpc": "2.0", "id": None, "method": "ping"},
                    "id null"),
                   ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
                    "fractional id"),
                   ({"jsonrpc": "2.0", "id": 1, "method": 7}, "method 7"),
                   ("ping", "a bare string")):
    r = mcp.post(body, headers={"Mcp-Session-Id": sid,
                                "MCP-Protocol-Version": LEGACY})
    t.eq((r.status, err_code(r)), (400, -32600), "%s: 400 -32600" % what)

# ---- legacy era -----------------------------------------------------------
r, _ = mcp.initialize("2025-06-18")
t.eq(r.json["result"]["protocolVersion"], "2025-06-18",
     "initialize keeps a supported version")
r, _ = mcp.initialize("2024-11-05")
t.eq(r.json["result"]["protocolVersion"], LEGACY,
     "an old version gets our latest legacy one")
t.ok(r.json["result"]["capabilities"].get("tools") is not None and
     r.json["result"]["serverInfo"]["name"] == "slipway",
     "tools capability and serverInfo")
t.ok(sid and len(sid) == 66 and all(0x21 <= ord(c) <= 0x7e for c in sid),
     "Mcp-Session-Id is visible ASCII")
r = mcp.legacy("notifications/initialized", sid=sid, rid=None)
t.eq((r.status, r.body), (202, ""), "notifications/initialized: 202, no body")
r = mcp.post({"jsonrpc": "2.0", "id": 99, "result": {}},
             headers={"Mcp-Session-Id": sid, "MCP-Protocol-Version": LEGACY})
t.eq(r.status, 202, "a JSON-RPC response from the client: 202")
r = mcp.legacy("ping", sid=None)
t.eq(r.status, 400, "request without Mcp-Session-Id: 400")
r = mcp.legacy("ping", sid=sid[:-1] + ("0" if sid[-1] != "0" else "1"))
t.eq(r.status, 404, "unknown session id: 404")
r = mcp.legacy("ping", sid=sid, token=reader)
t.eq(r.status, 404, "a session is bound to its token: 404 for another")
r = mcp.legacy("ping", sid=sid, version="2025-06-18")
t.eq(r.status, 200, "another supported MCP-Protocol-Version is accepted "
     "(the session's version rules)")
r = mcp.legacy("ping", sid=sid, version="1999-01-01")
t.eq(r.status, 400, "unsupported MCP-Protocol-Version: 400")
r = mcp.legacy("ping", sid=sid, version=None)
t.eq(r.status, 200, "no MCP-Protocol-Version: the session's version is used")
r = mcp.legacy("sampling/createMessage", sid=sid, rid=5)
t.eq((r.status, err_code(r), r.json.get("id")), (200, -32601, 5),
     "unknown method: -32601 with the request id")
r = mcp.legacy("tools/call", {"name": "no_such_tool"}, sid=sid)
t.eq(err_code(r), -32602, "unknown tool: -32602")
r = mcp.legacy("tools/call", {"name": "whoami", "arguments": [1, 2]},
               sid=sid)
t.eq(err_code(r), -32602, "arguments not an object: -32602")
r = mcp.legacy("tools/call", {}, sid=sid)
t.eq(err_code(r), -32602, "tools/call without a name: -32602")
r = mcp.legacy("tools/list", {"cursor": "bogus"}, sid=sid)
t.eq(err_code(r), -32602, "a cursor we never gave: -32602")
r = mcp.legacy("tools/call", {"name": "operation_get",
                              "arguments": {"id": "nope"}}, sid=sid)
res = r.json["result"]
t.ok(res.get("isError") is True and
     res["structuredContent"]["errors"][0]["field"] == "id",
     "bad argument: isError naming the field (REST validated it)")
t.ok("id" in res["content"][0]["text"], "... and says so in text")
r = mcp.legacy("tools/call", {"name": "operation_list",
                              "arguments": {"limit": 1, "colour": "red"}},
               sid=sid)
t.ok(r.json["result"].get("isError") and
     "colour" in json.dumps(r.json["result"]["structuredContent"]),
     "unknown argument: isError naming it")
r = mcp.legacy("tools/call", {"name": "whoami"}, sid=sid)
rest = s.get("/api/v1/whoami")
t.eq(r.json["result"]["structuredContent"], rest.json,
     "a tool's structuredContent is the REST answer")
t.eq(json.loads(r.json["result"]["content"][0]["text"]), rest.json,
     "... and the same JSON as text")

# Batches: only in 2025-03-26.
r = mcp.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
             headers={"Mcp-Session-Id": sid, "MCP-Protocol-Version": LEGACY})
t.eq((r.status, err_code(r)), (400, -32600), "batch in 2025-11-25: 400 -32600")
r, sid0 = mcp.initialize("2025-03-26")
r = mcp.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"},
              {"jsonrpc": "2.0", "method": "notifications/initialized"},
              {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
              {"jsonrpc": "2.0", "id": 3, "method": "nope"}],
             headers={"Mcp-Session-Id": sid0,
                      "MCP-Protocol-Version": "2025-03-26"})
t.eq(r.status, 200, "batch in 2025-03-26: 200")
t.ok(isinstance(r.json, list) and [x.get("id") for x in r.json] == [1, 2, 3],
     "one response per request, none for the notification")
t.eq(r.json[2]["error"]["code"], -32601, "an error inside a batch")
r = mcp.post([], headers={"Mcp-Session-Id": sid0,
                          "MCP-Protocol-Version": "2025-03-26"})
t.eq((r.status, err_code(r)), (400, -32600), "empty batch: 400 -32600")
MAX_BATCH = 16          # SW_MCP_MAX_BATCH in lib/limits.h
r = mcp.post([{"jsonrpc": "2.0", "id": i, "method": "tools/call",
               "params": {"name": "whoami"}} for i in range(200)],
             headers={"Mcp-Session-Id": sid0,
                      "MCP-Protocol-Version": "2025-03-26"})
t.eq((r.status, err_code(r)), (400, -32600),
     "a batch of 200 tools/call is refused whole: 400 -32600")
t.ok("at most %d" % MAX_BATCH in r.json["error"]["message"],
     "... the error says the limit")
r = mcp.post([{"jsonrpc": "2.0", "id": i, "method": "ping"}
              for i in range(MAX_BATCH)],
             headers={"Mcp-Session-Id": sid0,
                      "MCP-Protocol-Version": "2025-03-26"})
t.ok(r.status == 200 and len(r.json) == MAX_BATCH,
     "a batch at the limit is answered in full")

# ---- modern era (2026-07-28) ----------------------------------------------
r = mcp.modern("server/discover")
t.eq(r.status, 200, "server/discover")
res = r.json["result"]
t.eq(res.get("resultType"), "complete", "resultType complete")
t.ok(MODERN in res["supportedVersions"] and LEGACY in
     res["supportedVersions"], "supportedVersions lists both eras")
t.ok(isinstance(res.get("ttlMs"), int) and res.get("cacheScope") in
     ("public", "private"), "ttlMs and cacheScope")
t.ok(res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "slipway",
     "serverInfo in _meta")
t.ok(r.header("Mcp-Session-Id") is None, "no session in the modern era")
r = mcp.modern("tools/list")
t.ok(r.status == 200 and r.json["result"]["tools"] and
     "ttlMs" in r.json["result"], "modern tools/list with caching hints")
r = mcp.modern("tools/list", headers={"Mcp-Session-Id": "whatever"})
t.eq(r.status, 200, "a stray Mcp-Session-Id is ignored in the modern era")
r = mcp.modern("tools/list", drop=("MCP-Protocol-Version",))
t.eq((r.status, err_code(r)), (400, -32020),
     "missing MCP-Protocol-Version: 400 -32020")
r = mcp.modern("tools/list", headers={"MCP-Protocol-Version": LEGACY})
t.eq((r.status, err_code(r)), (400, -32020),
     "MCP-Protocol-Version differs from _meta: 400 -32020")
r = mcp.modern("tools/list", drop=("Mcp-Method",))
t.eq((r.status, err_code(r)), (400, -32020), "missing Mcp-Method: 400 -32020")
r = mcp.modern("tools/list", headers={"Mcp-Method": "tools/call"})
t.eq((r.status, err_code(r)), (400, -32020), "Mcp-Method mismatch: 400 -32020")
r = mcp.modern("tools/call", {"name": "whoami"}, name="version")
t.eq((r.status, err_code(r)), (400, -32020), "Mcp-Name mismatch: 400 -32020")
r = mcp.modern("tools/call", {"name": "whoami"}, drop=("Mcp-Name",))
t.eq((r.status, err_code(r)), (400, -32020), "missing Mcp-Name: 400 -32020")
r = mcp.modern("tools/call", {"name": "whoami"}, name="=?base64?d2hvYW1p?=")
t.eq(r.status, 200, "Base64 Mcp-Name is decoded before comparing")
t.eq(r.json["result"]["structuredContent"]["scope"], "admin",
     "modern tools/call runs the tool")
t.eq(r.json["result"]["resultType"], "complete", "... with resultType")
r = mcp.modern("tools/list", version="1999-01-01")
t.eq((r.status, err_code(r)), (400, -32022), "unsupported version: 400 -32022")
t.ok(r.json["error"]["data"]["requested"] == "1999-01-01" and
     MODERN in r.json["error"]["data"]["supported"],
     "-32022 data lists supported and requested")
r = mcp.modern("ping")
t.eq((r.status, err_code(r)), (404, -32601),
     "ping is gone in 2026: 404 -32601")
r = mcp.modern("roots/list")
t.eq((r.status, err_code(r)), (404, -32601), "unknown method: 404 -32601")
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
              "params": {"_meta": {
                  "io.modelcontextprotocol/protocolVersion": MODERN}}},
             headers={"MCP-Protocol-Version": MODERN,
                      "Mcp-Method": "tools/list"})
t.eq((r.status, err_code(r)), (400, -32602),
     "_meta without clientCapabilities: 400 -32602")
r = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             headers={"MCP-Protocol-Version": MODERN,
                      "Mcp-Method": "tools/list"})
t.eq((r.status, err_code(r)), (400, -32602),
     "modern header but no _meta: 400 -32602")
r = mcp.post([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}],
             headers={"MCP-Protocol-Version": MODERN})
t.eq((r.status, err_code(r)), (400, -32600), "batch in 2026: 400 -32600")
t.ok("id" not in r.json, "modern error without a readable id omits id")
r = mcp.call("no_such_tool")
t.eq(err_code(r), -32602, "modern unknown tool: -32602")
r = mcp.call("operation_cancel", {"id": "op-0123456789abcdef"})
res = r.json["result"]
t.ok(res.get("isError") and res["structuredContent"]["status"] == 404,
     "mutating tool on an unknown op: isError with the 404 problem")
r = mcp.call("operation_cancel", {"id": "op-0123456789abcdef"}, token=reader)
t.eq(r.json["result"]["structuredContent"]["status"], 403,
     "read token: the mutation is refused by REST (403 isError)")
names = [x["name"] for x in mcp.modern("tools/list", token=reader)
         .json["result"]["tools"]]
t.ok("operation_get" in names and "operation_cancel" not in names and
     "operation_retry" not in names, "read token lists read tools only")

# ---- tools/call runs the router in process -----------------------------------
api_lines = [l for l in s.log_text("access.log").splitlines()
             if '"GET /api/v1/whoami' in l]
r = mcp.call("whoami")
t.eq(r.json["result"]["structuredContent"].get("name"), "test-admin",
     "whoami over MCP answers the caller")
t.eq(len([l for l in s.log_text("access.log").splitlines()
          if '"GET /api/v1/whoami' in l]), len(api_lines),
     "... without a REST request through nginx")

# ---- path arguments cannot reach another route --------------------------------
victim = s.post("/api/v1/tokens", {"name": "victim", "scope": "read"})
secret = (victim.json or {}).get("token", "")


def refused(r, name):
    res = (r.json or {}).get("result") or {}
    errs = (res.get("structuredContent") or {}).get("errors") or []
    if not t.ok(res.get("isError") is True and
                res["structuredContent"].get("status") == 400 and
                any(e.get("rule") == "segment" for e in errs), name):
        t.diag(repr(r))
    return res


refused(mcp.call("training_job_delete", {"name": "a", "job": "../../b"}),
        "training_job_delete job ../../b: a 400 tool error")
res = refused(mcp.call("operation_get", {"id": "../tokens"}),
              "operation_get id ../tokens: a 400 tool error")
t.ok("victim" not in json.dumps(res), "... that lists no token")
refused(mcp.call("training_job_delete",
                 {"name": "a", "job": "../../../tokens/victim"}),
        "training_job_delete job ../../../tokens/victim: a 400 tool error")
refused(mcp.call("operation_get", {"id": "op-1%2F..%2Fx"}),
        "an encoded separator in an argument: a 400 tool error")
t.eq(s.get("/api/v1/whoami", token=secret).status, 200,
     "the token is not revoked")

# ---- resources, prompts, completions, logging ------------------------------
r, sid = mcp.initialize()
caps = r.json["result"]["capabilities"]
t.ok(all(k in caps for k in ("tools", "resources", "prompts", "completions",
                             "logging")),
     "initialize declares tools, resources, prompts, completions, logging")
res = mcp.legacy("resources/list", {}, sid=sid).json["result"]["resources"]
uris = [x["uri"] for x in res]
t.ok("slipway://clusters" in uris and
     "slipway://skills/deploy-model" in uris,
     "resources/list has the clusters and the skills")
tm = mcp.legacy("resources/templates/list", {}, sid=sid).json["result"]
t.eq(sorted(x["uriTemplate"] for x in tm["resourceTemplates"]),
     sorted(["slipway://clusters/{name}", "slipway://operations/{id}",
             "slipway://clusters/{name}/training-jobs/{job}/logs",
             "slipway://skills/{name}"]), "the resource templates")
with open(os.path.join(SRCDIR, "skills", "deploy-model", "SKILL.md")) as f:
    skill_text = f.read()
r = mcp.legacy("resources/read", {"uri": "slipway://skills/deploy-model"},
               sid=sid)
c = r.json["result"]["contents"][0]
t.eq((c["mimeType"], c["text"]), ("text/markdown", skill_text),
     "a skill read as a resource is the skill file")
r = mcp.legacy("resources/read", {"uri": "slipway://skills/../README"},
               sid=sid)
t.eq(err_code(r), -32002, "a skill name with a path in it: not found")
r = mcp.legacy("resources/read", {"uri": "slipway://operations/op-0000000000"
                                  "000000"}, sid=sid)
t.eq((err_code(r), r.json["error"]["data"]["problem"]["status"]),
     (-32002, 404), "an unknown operation: -32002 with the REST problem")
r = mcp.legacy("resources/read", {"uri": "slipway://operations/../tokens"},
               sid=sid)
t.eq(err_code(r), -32002, "an operation URI with a path: not found")
r = mcp.modern("resources/read", {"uri": "slipway://nothing"},
               name="slipway://nothing")
t.eq(err_code(r), -32602, "2026-07-28: an unknown resource is -32602")
r = mcp.modern("resources/list", {})
t.ok(r.json["result"].get("ttlMs") is not None and
     r.json["result"].get("cacheScope") == "private",
     "2026-07-28 resources/list carries ttlMs and cacheScope")
prompts = mcp.legacy("prompts/list", {}, sid=sid).json["result"]["prompts"]
skills = sorted(d for d in os.listdir(os.path.join(SRCDIR, "skills"))
                if os.path.isfile(os.path.join(SRCDIR, "skills", d,
                                               "SKILL.md")))
t.eq(sorted(p["name"] for p in prompts), skills,
     "prompts/list: one prompt per skill")
p = [x for x in prompts if x["name"] == "deploy-model"][0]
with open(os.path.join(SRCDIR, "skills", "deploy-model", "SKILL.md")) as f:
    head = f.read().split("\n---", 1)[0]
version = re.search(r"^version:\s*\"?([^\"\s]+)", head, re.M)
t.ok(p["description"].startswith("Deploy a model") and
     version is not None and
     p["_meta"]["slipway/version"] == version.group(1) and
     p["arguments"][0]["name"] == "cluster",
     "a prompt has the skill's description, version and a cluster argument")
r = mcp.legacy("prompts/get", {"name": "deploy-model",
                               "arguments": {"cluster": "c1"}}, sid=sid)
msg = r.json["result"]["messages"][0]
t.ok(msg["role"] == "user" and '"c1"' in msg["content"]["text"] and
     skill_text in msg["content"]["text"],
     "prompts/get: the skill aimed at the named cluster")
r = mcp.legacy("prompts/get", {"name": "deploy-model",
                               "arguments": {"node": "x"}}, sid=sid)
t.eq(err_code(r), -32602, "prompts/get with an unknown argument: -32602")
r = mcp.legacy("prompts/get", {"name": "no-such-skill"}, sid=sid)
t.eq(err_code(r), -32602, "prompts/get of an unknown prompt: -32602")
r = mcp.legacy("completion/complete", {
    "ref": {"type": "ref/prompt", "name": "deploy-model"},
    "argument": {"name": "engine", "value": "s"}}, sid=sid)
t.eq(r.json["result"]["completion"]["values"], ["sglang"],
     "completion of an engine from the table")
r = mcp.legacy("completion/complete", {
    "ref": {"type": "ref/resource", "uri": "slipway://clusters/{name}"},
    "argument": {"name": "feature", "value": "k"}}, sid=sid)
t.eq(r.json["result"]["completion"]["values"], ["kuberay"],
     "completion of a feature name")
r = mcp.legacy("completion/complete", {"ref": {"type": "ref/prompt"}},
               sid=sid)
t.eq(err_code(r), -32602, "completion without an argument: -32602")
t.eq(mcp.legacy("logging/setLevel", {"level": "info"}, sid=sid).json,
     {"jsonrpc": "2.0", "id": 1, "result": {}}, "logging/setLevel: {}")
t.eq(err_code(mcp.legacy("logging/setLevel", {"level": "loud"}, sid=sid)),
     -32602, "logging/setLevel of no level: -32602")
t.eq(err_code(mcp.modern("logging/setLevel", {"level": "info"})), -32601,
     "2026-07-28 has no logging/setLevel")
r = mcp.legacy("resources/read", {"uri": "slipway://skills/deploy-model"},
               sid=sid, token=None)
t.eq(r.status, 401, "resources/read without a token: 401")

names = [x["name"] for x in mcp.modern("tools/list").json["result"]["tools"]]
t.ok(not [n for n in names if n.startswith("test_") or "2020_12" in n],
     "a normal start offers no conformance fixture tool")
r = mcp.legacy("resources/read", {"uri": "test://static-text"}, sid=sid)
t.eq(err_code(r), -32002, "... and no fixture resource")

# ---- tool classes of a token -------------------------------------------------
ro_tools = s.cli("token", "create", "--scope", "admin", "--name", "ro-tools",
                 "--tools", "read-only").strip()
wl_tools = s.cli("token", "create", "--scope", "write", "--name", "wl-tools",
                 "--tools", "workloads,diagnose").strip()
r = subprocess.run([os.path.join(BUILDDIR, "cli", "slipway"), "token",
                    "create", "--scope", "read", "--name", "bad-tools",
                    "--tools", "everything", "--state-dir", s.state],
                   capture_output=True, text=True)
t.ok(r.returncode != 0 and "--tools" in r.stderr,
     "token create --tools refuses a class that does not exist")
table = {x["name"]: x for x in
         mcp.modern("tools/list").json["result"]["tools"]}
# A tool's class is its row's tag, as the OpenAPI document names it.
tag = {op["operationId"]: op["tags"][0]
       for item in s.get("/api/v1/openapi.json").json["paths"].values()
       for op in item.values() if isinstance(op, dict) and "tags" in op}
for tok, name, want in (
        (ro_tools, "read-only", lambda x: x["annotations"]["readOnlyHint"]),
        (wl_tools, "workloads,diagnose",
         lambda x: x["annotations"]["readOnlyHint"] or
         tag.get(x["name"]) == "workloads")):
    seen = sorted(x["name"] for x in Mcp(s, tok).modern(
        "tools/list").json["result"]["tools"])
    t.eq(seen, sorted(n for n, x in table.items() if want(x)),
         "a token limited to %s lists exactly those tools" % name)
r = s.post("/api/v1/tokens", {"name": "rest-ro", "scope": "write",
                               "tools": "read-only"})
t.eq((r.status, (r.json or {}).get("tools")), (201, "read-only"),
     "POST /api/v1/tokens takes tools")
if r.status == 201:
    seen = [x["name"] for x in Mcp(s, r.json["token"]).modern(
        "tools/list").json["result"]["tools"]]
    t.ok(seen and all(table[n]["annotations"]["readOnlyHint"]
                      for n in seen), "... and the token lists read-only "
         "tools only")
r = s.post("/api/v1/tokens", {"name": "rest-bad", "scope": "read",
                               "tools": "everything"})
t.eq(r.status, 400, "POST /api/v1/tokens refuses an unknown tool class")
r = Mcp(s, ro_tools).call("operation_cancel", {"id": "op-0123456789abcdef"})
t.eq((r.json["result"].get("isError"),
      r.json["result"]["structuredContent"]["status"]), (True, 403),
     "an admin token limited to read-only may not call a mutating tool")
r = Mcp(s, ro_tools).call("whoami")
t.ok(not r.json["result"].get("isError"), "... but calls read-only ones")
r = Mcp(s, wl_tools).call("training_job_delete",
                          {"name": "nope", "job": "j", "confirm": True})
t.ok(r.json["result"]["structuredContent"].get("status") != 403,
     "a workloads token reaches training_job_delete")

# ---- destructive tools need the user's confirmation ------------------------
r = mcp.call("cluster_delete", {"name": "gone"})
res = r.json["result"]
t.ok(res.get("isError") and res["structuredContent"]["status"] == 428 and
     "confirm" in res["content"][0]["text"],
     "cluster_delete without confirm (no elicitation): refused, asks for "
     "confirm: true")
r = mcp.call("cluster_delete", {"name": "gone", "dry_run": True})
t.ok(r.json["result"]["structuredContent"].get("status") != 428,
     "a dry run needs no confirmation")
r = mcp.call("cluster_delete", {"name": "gone", "confirm": True})
t.ok(r.json["result"]["structuredContent"].get("status") != 428,
     "confirm: true lets it through to the REST row")
r = mcp.call("cluster_list", {"confirm": True})
t.ok(r.json["result"].get("isError"),
     "confirm is not an argument of a read-only tool")
tools = mcp.modern("tools/list").json["result"]["tools"]
asked = sorted(x["name"] for x in tools
               if "confirm" in x["inputSchema"]["properties"])
t.ok("cluster_delete" in asked and "node_replace" in asked and
     "instance_group_delete" in asked and "feature_set" in asked and
     "cluster_list" not in asked,
     "confirm is an argument of the destructive tools and feature_set")
s.stop()
t.done()
