#!/usr/bin/python3
# 56-holes.t: the small holes an attack on main found, each closed: no
# query string in the access log, 0600 state and logs, an exact Origin
# allow-list for /mcp and REST, a Host allow-list for REST, invalid
# UTF-8 and NUL refused with a 400 naming the field and answered in
# valid UTF-8, reserved env names, log patterns too large to compile,
# the CSP, and who may cancel.
import json
import os
import socket
import stat
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack

t = T()
s = Stack(t)
ours = "http://127.0.0.1:%d" % s.port
writer = s.cli("token", "create", "--scope", "write", "--name", "w1").strip()
other = s.cli("token", "create", "--scope", "write", "--name", "w2").strip()
MCPH = {"Accept": "application/json, text/event-stream"}


def raw(method, target, body=b"", headers=None, token="default"):
    """One request as bytes on the wire; (status, headers, body bytes)."""
    if token == "default":
        token = s.token
    h = {"Host": "127.0.0.1:%d" % s.port, "Connection": "close",
         "Content-Length": str(len(body))}
    if token:
        h["Authorization"] = "Bearer " + token
    if body:
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    req = method.encode() + b" " + target + b" HTTP/1.1\r\n"
    for k, v in h.items():
        req += k.encode() + b": " + (v if isinstance(v, bytes) else
                                     v.encode()) + b"\r\n"
    req += b"\r\n" + body
    c = socket.create_connection(("127.0.0.1", s.port), timeout=30)
    c.sendall(req)
    data = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    c.close()
    head, _, payload = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(b":")
        hdrs[k.decode().lower()] = v.strip()
    return status, hdrs, payload


def utf8_json(payload):
    """The payload as JSON if it is valid UTF-8, else None."""
    try:
        return json.loads(payload.decode("utf-8", "strict"))
    except (UnicodeDecodeError, ValueError):
        return None


def fields(doc):
    return [e.get("field") for e in (doc or {}).get("errors", [])]


# ---- the access log keeps no query string ---------------------------------
secret = "QSsecret" + "x" * 20
s.get("/api/v1/version?access_token=" + secret)
s.request("POST", "/mcp?access_token=" + secret, raw=b"{}",
          headers=dict(MCPH, **{"Content-Type": "application/json"}))
s.get("/api/v1/version")


def access_log_has_version():
    return "/api/v1/version" in s.log_text("access.log")


deadline = time.time() + 10
while not access_log_has_version() and time.time() < deadline:
    time.sleep(0.1)
log = s.log_text("access.log")
t.ok("/api/v1/version" in log and "/mcp" in log,
     "the access log records /api and /mcp requests")
t.ok(secret not in log and "access_token" not in log,
     "no query string of /api or /mcp reaches the access log")

# ---- private files ---------------------------------------------------------
loose = []
for path in [os.path.join(s.state, "state.db")] + [
        os.path.join(s.state, "logs", n)
        for n in os.listdir(os.path.join(s.state, "logs"))]:
    if os.path.isfile(path) and stat.S_IMODE(os.stat(path).st_mode) & 0o077:
        loose.append("%s %o" % (os.path.basename(path),
                                stat.S_IMODE(os.stat(path).st_mode)))
t.ok(not loose, "state.db (on SQLite) and every log are 0600 (%s)" % loose)

# ---- Origin and Host -------------------------------------------------------
ping = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25",
                              "capabilities": {},
                              "clientInfo": {"name": "t56",
                                             "version": "1"}}}).encode()
for o in ("http://localhost:1", "http://127.0.0.1:1", "http://[::1]:9999",
          "http://127.0.0.1:%d" % (s.port + 1)):
    st, _, _ = raw("POST", b"/mcp", ping,
                   headers=dict(MCPH, Origin=o))
    t.eq(st, 403, "/mcp refuses the loopback Origin %s" % o)
st, _, _ = raw("POST", b"/mcp", ping, headers=dict(MCPH, Origin=ours))
t.eq(st, 200, "/mcp accepts our own Origin")

st, _, _ = raw("GET", b"/api/v1/version", headers={"Host": "evil.example"})
t.eq(st, 403, "REST refuses a foreign Host (DNS rebinding)")
st, _, _ = raw("GET", b"/api/v1/version",
               headers={"Host": "localhost:%d" % s.port})
t.eq(st, 200, "REST accepts a loopback Host")
r = s.post("/api/v1/login", {"token": writer}, token=None)
sess = (r.header("Set-Cookie") or "").split(";")[0]
for host, origin in (("evil.example", "http://evil.example"),
                     ("localhost:1", "http://localhost:1")):
    st, _, _ = raw("POST", b"/api/v1/operations/op-0123456789abcdef:cancel",
                   token=None, headers={"Cookie": sess, "Host": host,
                                        "Origin": origin})
    t.eq(st, 403, "cookie POST with forged Host %s and Origin %s: 403" %
         (host, origin))
st, _, _ = raw("POST", b"/api/v1/operations/op-0123456789abcdef:cancel",
               token=None, headers={"Cookie": sess, "Origin": ours})
t.eq(st, 404, "cookie POST with our Origin passes (404: no such op)")

# ---- invalid UTF-8 and NUL -------------------------------------------------
cases = [
    ("key with invalid UTF-8", "POST", b"/api/v1/clusters/c1/training-jobs",
     b'{"job_name":"j","env":{"A\xff":"1"}}', "env"),
    ("string with invalid UTF-8", "POST", b"/api/v1/clusters/c1/training-jobs",
     b'{"job_name":"j","env":{"A":"\xc3\x28"}}', "env.A"),
    ("overlong UTF-8", "POST", b"/api/v1/clusters/c1/training-jobs",
     b'{"job_name":"j\xc0\xaf"}', "job_name"),
    ("encoded surrogate", "POST", b"/api/v1/clusters/c1/training-jobs",
     b'{"job_name":"j\xed\xa0\x80"}', "job_name"),
    ("NUL in an env value", "POST", b"/api/v1/clusters/c1/training-jobs",
     b'{"job_name":"j","env":{"A":"x\\u0000y"}}', "env.A"),
    ("NUL in a key", "POST", b"/api/v1/clusters/c1/training-jobs",
     b'{"job_name":"j","env":{"A\\u0000B":"1"}}', "key"),
    ("percent-encoded invalid UTF-8 in a path variable", "GET",
     b"/api/v1/clusters/c%FF1", b"", "name"),
    ("raw invalid UTF-8 in a path variable", "GET",
     b"/api/v1/clusters/c\xff1", b"", "name"),
    ("invalid UTF-8 in an operation id", "GET",
     b"/api/v1/operations/op-%C3%28", b"", "id"),
    ("invalid UTF-8 in a query value", "GET",
     b"/api/v1/operations?state=%FF", b"", "state"),
]
for what, method, target, body, field in cases:
    st, hdrs, payload = raw(method, target, body)
    doc = utf8_json(payload)
    named = doc is not None and (field in fields(doc) or
                                 field in doc.get("detail", ""))
    t.ok(st == 400 and doc is not None and named,
         "%s: 400, valid UTF-8, names %s (%d %r)" % (what, field, st,
                                                       payload[:200]))
    t.ok(b"\xff" not in payload and b"\xc3\x28" not in payload and
         b"\x00" not in payload, "%s: the bad bytes are not echoed" % what)
# (nginx itself refuses %00 in a path with its own 400.)
st, _, _ = raw("GET", b"/api/v1/operations/op-%00")
t.eq(st, 400, "NUL in an operation id: 400")
st, _, payload = raw("GET", b"/api/v1/no\xffroute")
t.ok(st == 404 and utf8_json(payload) is not None,
     "an unknown path with invalid UTF-8: 404 in valid UTF-8")

st, _, payload = raw("POST", b"/api/v1/clusters/c1/training-jobs", b"\0\0")
t.ok(st == 400 and utf8_json(payload) is not None,
     "a body of NUL bytes is malformed JSON, not an empty body (%d)" % st)
st, _, payload = raw("POST", b"/mcp", ping, headers=dict(
    MCPH, **{"MCP-Protocol-Version": b"2026-07-28\xc2"}))
doc = utf8_json(payload)
t.ok(st == 400 and doc is not None and "MCP-Protocol-Version" in
     (doc.get("error") or {}).get("message", ""),
     "an MCP header with invalid UTF-8: 400 naming it, in valid UTF-8 "
     "(%d %r)" % (st, payload[:160]))

mcp_cases = [
    ("MCP method with invalid UTF-8",
     b'{"jsonrpc":"2.0","id":1,"method":"tools/ca\xffll"}', "method"),
    ("MCP method with NUL",
     b'{"jsonrpc":"2.0","id":1,"method":"ping\\u0000x"}', "method"),
    ("MCP tool name with invalid UTF-8",
     b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
     b'{"name":"cluster_li\xfest","arguments":{}}}', "params.name"),
    ("MCP argument with NUL",
     b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
     b'{"name":"cluster_get","arguments":{"name":"a\\u0000b"}}}',
     "params.arguments.name"),
    # a long member path is cut in the message: on a character, not
    # inside one (fuzz_mcp)
    ("MCP long key path with invalid UTF-8 below it",
     b'{"' + b"9" * 120 + "\U000987a0\U000987a0".encode() +
     b'":{"x":"\xdb\xd5"}}', "9" * 120 + "\U000987a0"),
]
for what, body, field in mcp_cases:
    st, _, payload = raw("POST", b"/mcp", body, headers=MCPH)
    doc = utf8_json(payload)
    err = (doc or {}).get("error") or {}
    t.ok(st == 400 and err.get("code") == -32700 and
         field in err.get("message", ""),
         "%s: JSON-RPC parse error naming %s (%d %r)" % (what, field, st,
                                                          payload[:200]))

# ---- reserved env names ----------------------------------------------------
for name in ("MAX_STEPS", "OUTPUT_DIR", "MLFLOW_EXPERIMENT_NAME"):
    r = s.post("/api/v1/clusters/c1/training-jobs",
               {"job_name": "j1", "env": {name: "5"}})
    t.ok(r.status == 400 and "env." + name in fields(r.json),
         "env %s is reserved: 400 naming env.%s" % (name, name))

# ---- log patterns: RE2 syntax, checked without compiling ------------------
# The pattern goes to the training operator (Go's regexp).  glibc's regcomp,
# which checked it before, took seconds and gigabytes on the first two, held
# a worker for minutes on the third (exponential in its count), and refused
# the RE2 forms below.
for pat, why in (("((a{1,100}){1,100}){1,100}", "invalid repeat count"),
                 ("a" + "+" * 40, "invalid nested repetition operator"),
                 ("((\\b)*)*{10}", "invalid nested repetition operator"),
                 ("(?=loss)", "invalid or unsupported Perl syntax"),
                 ("loss=(\\d+)\\1", "invalid escape sequence")):
    began = time.time()
    r = s.post("/api/v1/clusters/c1/training-jobs",
               {"job_name": "j1", "log_monitoring": {"log_pattern": pat}})
    msg = " ".join(e.get("message", "") for e in
                   (r.json or {}).get("errors", [])
                   if e.get("field") == "log_monitoring.log_pattern")
    t.ok(r.status == 400 and why in msg and time.time() - began < 5,
         "log_pattern %s: 400 naming the field and Go's words, at once (%s)"
         % (pat[:16], msg[:80]))
for pat in ("(((\\b)*)*){10}", "(?i)loss[=:]\\s*(?P<loss>[0-9.]+)",
            "(?:step|iter) \\d+", "\\p{Greek}+"):
    began = time.time()
    r = s.post("/api/v1/clusters/c1/training-jobs?dry_run=true",
               {"job_name": "j1", "log_monitoring": {"log_pattern": pat}})
    t.ok("log_monitoring.log_pattern" not in fields(r.json)
         and time.time() - began < 5,
         "log_pattern %s: taken, at once (%d)" % (pat, r.status))

# ---- CSP -------------------------------------------------------------------
csp = s.get("/", token=None).header("Content-Security-Policy") or ""
t.ok("form-action 'self'" in csp and "base-uri 'none'" in csp,
     "the CSP sets form-action 'self' and base-uri 'none'")

# ---- who may cancel --------------------------------------------------------
now = int(time.time() * 1000)
for oid, owner in (("op-00000000000000a1", "w1"),
                   ("op-00000000000000a2", "w1")):
    s.sql("INSERT INTO operations (id, kind, target, params, state,"
          " token_name, created, updated, due) VALUES"
          " ('%s', 'cluster.create', 'x', '{}', 'pending', '%s', %d, %d, %d)"
          % (oid, owner, now, now, now + 3600 * 1000))
r = s.post("/api/v1/operations/op-00000000000000a1:cancel", token=other)
t.ok(r.status == 403 and "w1" in r.json.get("detail", ""),
     "a write token cannot cancel another token's operation (403 names it)")
r = s.post("/api/v1/operations/op-00000000000000a1:cancel", token=writer)
t.eq(r.status, 202, "the token that started an operation may cancel it")
r = s.post("/api/v1/operations/op-00000000000000a2:cancel")
t.eq(r.status, 202, "an admin token may cancel any operation")

s.stop()
t.done()
