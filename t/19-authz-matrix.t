#!/usr/bin/python3
# 19-authz-matrix.t: the authorization matrix, generated from the
# operation table through the OpenAPI document it produces, so a new
# route cannot skip it: every route x {no token, bad token, revoked,
# read, write, admin, session cookie without Origin, with a foreign
# Origin, with our Origin}, and every MCP tool x {read, write, admin} in
# tools/list and tools/call.  "Allowed" means the answer is neither 401
# nor 403; what the handler then says (400, 404, 202...) is not the
# matrix's business.
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack
from mcp_raw import Mcp

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True)
ours = "http://127.0.0.1:%d" % s.port
RANK = {"none": 0, "read": 1, "write": 2, "admin": 3}
tok = {"admin": s.token}
for sc in ("read", "write"):
    tok[sc] = s.cli("token", "create", "--scope", sc, "--name",
                    "m-" + sc).strip()
revoked = s.cli("token", "create", "--scope", "admin", "--name",
                "m-gone").strip()
s.cli("token", "revoke", "--name", "m-gone")
bad = "swt_0000000000000000_" + "A" * 43


def session():
    """A fresh admin session cookie (logout ends one)."""
    r = s.post("/api/v1/login", {"token": s.token}, token=None)
    return (r.header("Set-Cookie") or "").split(";")[0]


doc = s.get("/api/v1/openapi.json").json
ops = []
for path, item in sorted(doc["paths"].items()):
    for method, op in sorted(item.items()):
        if method not in ("get", "post", "put", "patch", "delete"):
            continue
        ops.append((method.upper(), path, op))
t.ok(len(ops) >= 40, "the OpenAPI document lists %d operations" % len(ops))
t.ok(all(op.get("x-slipway-scope") in RANK for _, _, op in ops),
     "every operation names its least scope")


def sample(var):
    """A well-formed value for a path variable: validation comes after
    authorization in REST, but a tool's path arguments are checked
    before its request is routed."""
    return "op-0123456789abcdef" if var == "id" else "zz1"


def concrete(path):
    return re.sub(r"\{([^}]+)\}", lambda m: sample(m.group(1)), path)


def call(method, path, token=None, cookie=None, origin=None):
    h = {}
    if cookie:
        h["Cookie"] = cookie
    if origin:
        h["Origin"] = origin
    body = {} if method in ("POST", "PUT", "PATCH") else None
    return s.request(method, path, body=body, token=token, headers=h,
                     timeout=60)


wrong = []
cells = 0
cookie = session()
for method, path, op in ops:
    name = op.get("operationId", path)
    need = RANK[op["x-slipway-scope"]]
    public = op.get("security") == []
    safe = method in ("GET", "HEAD")
    url = concrete(path)
    if path.endswith(":wait"):
        url += "?timeout=1"
    cases = [("no token", dict(), "401"), ("bad token", dict(token=bad),
                                           "401"),
             ("revoked", dict(token=revoked), "401")]
    for sc in ("read", "write", "admin"):
        cases.append((sc, dict(token=tok[sc]),
                      "ok" if RANK[sc] >= need else "403"))
    cases += [("cookie, no Origin", dict(cookie=True),
               "ok" if safe else "403"),
              ("cookie, foreign Origin",
               dict(cookie=True, origin="http://evil.example"),
               "ok" if safe else "403"),
              ("cookie, our Origin", dict(cookie=True, origin=ours), "ok")]
    for what, kw, want in cases:
        if public:
            # No credentials needed; a foreign Origin still may not
            # change anything.
            want = "403" if (kw.get("origin") == "http://evil.example"
                             and not safe) else "ok"
        if kw.pop("cookie", False):
            kw["cookie"] = cookie
        r = call(method, url, **kw)
        got = str(r.status) if r.status in (401, 403) else "ok"
        cells += 1
        if got != want:
            wrong.append("%s %s [%s] %s: %d, want %s" % (
                method, path, name, what, r.status, want))
        if name == "logout" and kw.get("cookie"):
            cookie = session()
for w in wrong[:30]:
    t.diag(w)
t.ok(not wrong, "every route x credential cell holds (%d cells, %d wrong)" %
     (cells, len(wrong)))
t.eq(cells, len(ops) * 9, "nine cells per route")

# ---- MCP: every tool x scope -------------------------------------------
by_tool = {op.get("operationId"): (path, op) for _, path, op in ops}
admin_list = Mcp(s).modern("tools/list").json["result"]["tools"]
tools = [x["name"] for x in admin_list]
t.ok(len(tools) >= 30, "tools/list shows an admin %d tools" % len(tools))
missing = [n for n in tools if n not in by_tool]
t.ok(not missing, "every tool is a row of the operation table (%s)" %
     missing)
mwrong = []
mcells = 0
for sc in ("read", "write", "admin"):
    m = Mcp(s, token=tok[sc])
    listed = {x["name"] for x in m.modern("tools/list").json["result"]
              ["tools"]}
    for name in tools:
        path, op = by_tool.get(name, ("", {"x-slipway-scope": "admin"}))
        may = RANK[sc] >= RANK[op["x-slipway-scope"]]
        if (name in listed) != may:
            mwrong.append("%s listed=%s for %s" % (name, name in listed,
                                                   sc))
        args = {v: sample(v) for v in re.findall(r"\{([^}]+)\}", path)}
        if name == "operation_wait":
            args["timeout"] = 1
        r = m.call(name, args)
        text = r.body
        refused = r.status == 403 or "needs scope" in text
        mcells += 1
        if refused == may:
            mwrong.append("%s called by %s: %d %s" % (name, sc, r.status,
                                                      text[:160]))
for w in mwrong[:30]:
    t.diag(w)
t.ok(not mwrong, "every MCP tool x scope holds in tools/list and "
     "tools/call (%d cells, %d wrong)" % (mcells, len(mwrong)))
s.stop()
t.done()
