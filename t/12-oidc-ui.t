#!/usr/bin/python3
# 12-oidc-ui.t: the web UI's "Sign in with <provider>" against a real
# OpenID provider (oidc-provider on loopback, t/lib/oidc-provider.mjs),
# driven in Chromium: Authorization Code with PKCE, state and nonce, and
# the session cookie at the end.  Also: the callback refuses a state
# this browser did not start, a missing sign-in cookie and a provider's
# error, without a session.
import os
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import need_browser, ui_script
from oidcop import ui_sign_in_stack

t = T()
need_browser(t, "oidc-provider")
tmp, provider, s = ui_sign_in_stack(t, "sw-oidc-ui-")
issuer = provider.issuer
base = "http://127.0.0.1:%d" % s.port
callback = base + "/api/v1/login/oidc/callback"

# ---- the start of a sign-in, by hand ---------------------------------
r = s.get("/api/v1/login/options", token=None)
t.eq((r.status, (r.json or {}).get("provider")),
     (200, {"name": urllib.parse.urlsplit(issuer).netloc,
            "url": "/api/v1/login/oidc"}),
     "the login options name the provider and where its sign-in starts")
r = s.get("/api/v1/login/oidc", token=None)
loc = r.header("Location") or ""
q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(loc).query))
t.eq(r.status, 302, "sign-in starts with a redirect")
t.ok(loc.startswith(issuer + "/auth?"), "to the provider's authorization "
     "endpoint (from discovery)")
t.eq((q.get("response_type"), q.get("client_id"), q.get("redirect_uri"),
      q.get("code_challenge_method")),
     ("code", "slipway-ui", callback, "S256"),
     "Authorization Code for our client and callback, with PKCE S256")
t.ok(len(q.get("state", "")) == 43 and len(q.get("nonce", "")) == 43 and
     len(q.get("code_challenge", "")) == 43,
     "a 256-bit state, nonce and code challenge")
flow = r.header("Set-Cookie") or ""
t.ok(flow.startswith("sw_oidc=") and "HttpOnly" in flow and
     "SameSite=Lax" in flow and "Path=/api/v1/login/oidc" in flow,
     "state, nonce and verifier ride in an HttpOnly cookie for the callback")
t.ok(q.get("code_challenge", "-") not in flow and
     flow.split("=", 1)[1].split(".")[0] == q.get("state"),
     "the cookie holds the state, and the verifier, not the challenge")
cookie = flow.split(";")[0]

# ---- callbacks that must not sign anyone in --------------------------
r = s.get("/api/v1/login/oidc/callback?code=abc&state=%s" % ("x" * 43),
          token=None, headers={"Cookie": cookie})
t.ok(r.status == 401 and "sw_session=swp" not in (r.header("Set-Cookie")
     or ""), "a state this browser did not start: 401, no session")
r = s.get("/api/v1/login/oidc/callback?code=abc&state=%s" % q["state"],
          token=None)
t.ok(r.status == 401 and "no sign-in cookie" in
     ((r.json or {}).get("detail") or ""), "no sign-in cookie: 401")
r = s.get("/api/v1/login/oidc/callback?error=access_denied&state=%s" %
          q["state"], token=None, headers={"Cookie": cookie})
t.eq(r.status, 401, "the provider's error: 401")
r = s.get("/api/v1/login/oidc/callback?code=not-a-code&state=%s" %
          q["state"], token=None, headers={"Cookie": cookie})
t.ok(r.status == 401 and "refused the code" in
     ((r.json or {}).get("detail") or ""),
     "a code the provider never issued: 401 (%s)" %
     (r.json or {}).get("detail"))

# ---- the whole sign-in in Chromium -----------------------------------
out = ui_script(t, "oidc-login.js", base, "bob")
t.ok("Sign in with 127.0.0.1:" in (out.get("button") or ""),
     "the login page offers the provider (%s)" % out.get("button"))
t.ok("bob@example.com" in (out.get("who") or ""),
     "after the provider's sign-in the UI shows the person (%s)" %
     out.get("who"))
t.eq(out.get("url"), base + "/", "and lands on the UI")
t.eq((out.get("cookie"), out.get("http_only"), out.get("same_site")),
     ("swp_", True, "Strict"),
     "the session cookie: a person's session, HttpOnly, SameSite=Strict")
t.ok(not out.get("flow_cookie_left"), "the sign-in cookie is spent")
who = out.get("whoami") or {}
t.eq((who.get("name"), who.get("via"), who.get("scope"), who.get("teams")),
     ("bob@example.com", "session", "write",
      [{"team": "b", "role": "viewer"}]),
     "whoami: the person, by session, with the configured scope and the "
     "team role their provider group gives")
t.eq(((out.get("roles") or "").strip(), out.get("team")), ("b: viewer", "b"),
     "the header shows the team and role, and the UI works as team b at "
     "once: the person lands on their team's view")
t.ok("read" in (out.get("plan_title") or "").lower(),
     "a viewer's actions that change things are disabled, saying why (%s)"
     % out.get("plan_title"))
s.stop()
provider.stop()
t.done()
