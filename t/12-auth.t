#!/usr/bin/python3
# 12-auth.t: tokens and scopes, login to an HttpOnly SameSite=Strict
# session cookie, the Origin rule for cookie-borne changes, revocation,
# and no secret in any log.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack

t = T()
s = Stack(t)

r = s.get("/api/v1/version", token=None)
t.eq(r.status, 401, "no credentials: 401")
t.ok((r.header("WWW-Authenticate") or "").startswith("Bearer"),
     "401 names the Bearer scheme")
t.eq(s.get("/api/v1/version", token="swt_0000000000000000_" + "A" * 43)
     .status, 401, "unknown token: 401")
t.eq(s.get("/api/v1/version", token=s.token[:-1] + ("A" if s.token[-1] != "A"
     else "B")).status, 401, "token with one character changed: 401")
r = s.get("/api/v1/version", token=None,
          headers={"Authorization": "Basic dXNlcjpwYXNz"})
t.eq(r.status, 401, "Basic auth is not accepted")

reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()
writer = s.cli("token", "create", "--scope", "write", "--name", "rw").strip()
t.ok(reader.startswith("swt_") and len(reader) == 64,
     "token create prints only the token")
t.eq(s.get("/api/v1/whoami", token=reader).json.get("scope"), "read",
     "whoami shows the read scope")
t.eq(s.get("/api/v1/tokens", token=reader).status, 403,
     "read token cannot list tokens")
t.eq(s.post("/api/v1/operations/op-0123456789abcdef:cancel", token=reader)
     .status, 403, "read token cannot cancel")
t.eq(s.post("/api/v1/operations/op-0123456789abcdef:cancel", token=writer)
     .status, 404, "write token may cancel (unknown op: 404)")
t.eq(s.get("/api/v1/tokens", token=writer).status, 403,
     "write token cannot list tokens")
r = s.get("/api/v1/tokens")
t.eq(r.status, 200, "admin lists tokens")
t.ok(reader not in r.body and "swt_" not in r.body,
     "token list never shows secrets")

# Browser login.
r = s.post("/api/v1/login", {"token": "swt_bad"}, token=None)
t.eq(r.status, 401, "login with a bad token: 401")
r = s.post("/api/v1/login", {"token": writer}, token=None)
t.eq(r.status, 200, "login with a good token")
cookie = r.header("Set-Cookie") or ""
t.ok("HttpOnly" in cookie and "SameSite=Strict" in cookie and
     "Path=/" in cookie, "session cookie is HttpOnly SameSite=Strict")
sess = cookie.split(";")[0]
t.ok(sess.startswith("sw_session=sws_") and writer not in cookie,
     "the cookie is a session id, not the token")
C = {"Cookie": sess}
r = s.get("/api/v1/whoami", token=None, headers=C)
t.eq((r.status, r.json.get("via")), (200, "session"), "cookie authenticates")
origin = "http://127.0.0.1:%d" % s.port
t.eq(s.post("/api/v1/operations/op-0123456789abcdef:cancel", token=None,
            headers=C).status, 403, "cookie POST without Origin: 403")
t.eq(s.post("/api/v1/operations/op-0123456789abcdef:cancel", token=None,
            headers=dict(C, Origin="http://evil.example")).status, 403,
     "cookie POST from a foreign Origin: 403")
t.eq(s.post("/api/v1/operations/op-0123456789abcdef:cancel", token=None,
            headers=dict(C, Origin=origin)).status, 404,
     "cookie POST from our Origin passes the check (404: no such op)")
t.eq(s.post("/api/v1/login", {"token": writer}, token=None,
            headers={"Origin": "http://evil.example"}).status, 403,
     "login from a foreign Origin: 403")
r = s.post("/api/v1/logout", token=None, headers=dict(C, Origin=origin))
t.eq(r.status, 200, "logout")
t.ok("Max-Age=0" in (r.header("Set-Cookie") or ""), "logout clears cookie")
t.eq(s.get("/api/v1/whoami", token=None, headers=C).status, 401,
     "the session is gone after logout")

# Revocation.
s.cli("token", "revoke", "--name", "ro")
t.eq(s.get("/api/v1/whoami", token=reader).status, 401,
     "revoked token: 401")
r = s.request("DELETE", "/api/v1/tokens/rw")
t.eq(r.status, 200, "admin revokes over the API")
t.eq(s.get("/api/v1/whoami", token=writer).status, 401,
     "token revoked over the API: 401")
listing = s.cli("token", "list")
t.ok("ro" in listing and "revoked" in listing, "token list shows revoked")

# No secret reaches a log.
leaks = []
logs = os.path.join(s.state, "logs")
for name in os.listdir(logs):
    text = s.log_text(name)
    for secret in (s.token, reader, writer, sess.split("=", 1)[1]):
        if secret[8:] in text:
            leaks.append(name)
t.ok(not leaks, "no token or session id in any log (%s)" % leaks)
s.stop()
t.done()
