#!/usr/bin/python3
# 25-cli-device.t: `slipway login --device`, the OAuth 2.0 device flow
# (RFC 8628) through Slipway against a real OpenID provider
# (oidc-provider on loopback, t/lib/oidc-provider.mjs).  The CLI asks
# the server to start a device authorization, prints where to approve
# and the user code, and polls; the person approves at the provider in
# Chromium; the context then holds the person's credential (the
# contexts file 0600) and acts as them: whoami names them with the
# team role their provider group gives, and a viewer's write is
# refused.  A person who aborts, and a code that expires, end the CLI
# with exit code 4 and words that say which; no credential is kept.
import json
import os
import re
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SLIPWAY, need_browser, ui_script
from oidcop import ui_sign_in_stack

t = T()
need_browser(t, "oidc-provider")
tmp, provider, s = ui_sign_in_stack(t, "sw-cli-device-")
issuer = provider.issuer
base = "http://127.0.0.1:%d" % s.port
CONTEXTS = os.path.join(tmp, "cfg", "contexts.json")
ENV = dict(os.environ, SLIPWAY_CONTEXTS=CONTEXTS)
ENV.pop("SLIPWAY_SERVER", None)
ENV.pop("SLIPWAY_TOKEN", None)


def cli(*args):
    r = subprocess.run([SLIPWAY] + list(args), capture_output=True,
                       text=True, timeout=300, env=ENV)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = None
    return r.returncode, doc, r.stdout, r.stderr


def contexts():
    with open(CONTEXTS) as f:
        return json.load(f)["contexts"]


def device_login(context, login, what):
    """Start `slipway login --device`, act at the provider as login
    (approve, abort, or nothing), and wait for the CLI to end."""
    p = subprocess.Popen([SLIPWAY, "login", "--device", "--context",
                          context], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ENV)
    shown = []
    while True:
        ln = p.stdout.readline()
        if not ln:
            break
        shown.append(ln)
        if ln.startswith("Waiting"):
            break
    text = "".join(shown)
    m = re.search(r"\(or open (\S+)\)", text)
    out = {}
    if m and what != "nothing":
        out = ui_script(t, "oidc-device.js", m.group(1), login, what)
    try:
        rest, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        rest, err = p.communicate()
    return p.returncode, text + rest, err, out


for name in ("dev", "deny", "late"):
    rc, _, _, err = cli("context", "set", name, "--server", base)
    t.eq(rc, 0, "context %s names the server, no token %s" % (name, err))

# ---- the rows, by hand -----------------------------------------------
r = s.post("/api/v1/login/device", {}, token=None)
d = r.json or {}
t.ok(r.status == 200 and d.get("user_code") and d.get("device_code") and
     (d.get("verification_uri") or "").startswith(issuer) and
     d.get("interval", 0) > 0 and d.get("expires_in", 0) > 0,
     "login_device: the provider's device authorization (%s)" %
     {k: v for k, v in d.items() if k != "device_code"})
r = s.post("/api/v1/login/device/token",
           {"device_code": d.get("device_code")}, token=None)
t.eq((r.status, (r.json or {}).get("pending")),
     (202, "authorization_pending"),
     "login_device_token before approval: 202, pending")
r = s.post("/api/v1/login/device/token", {"device_code": "nope"},
           token=None)
t.eq(r.status, 401, "a device code the provider never issued: 401")
r = s.post("/api/v1/login/device/token", {}, token=None)
t.ok(r.status == 400 and "device_code" in json.dumps(r.json),
     "no device_code: 400 naming the field")

# ---- the person approves ---------------------------------------------
rc, out, err, seen = device_login("dev", "bob", "approve")
t.ok("enter the code" in out and "To sign in, open %s" % issuer in out,
     "the CLI prints where to go and the user code")
t.eq(rc, 0, "approved: login --device exits 0 (%s)" % err.strip())
t.ok("Signed in as bob@example.com" in out, "and names the person")
t.ok(not seen.get("error"), "the person approved at the provider")
mode = stat.S_IMODE(os.stat(CONTEXTS).st_mode)
t.eq(mode, 0o600, "the contexts file is 0600")
tok = (contexts().get("dev") or {}).get("token") or ""
t.ok(tok.startswith("swp_"), "the context holds the person's credential")
rc, who, _, err = cli("whoami", "-o", "json")
t.eq((rc, (who or {}).get("name"), (who or {}).get("via"),
      (who or {}).get("teams")),
     (0, "bob@example.com", "provider", [{"team": "b", "role": "viewer"}]),
     "whoami through the context: the person, from the provider, viewer "
     "of team b as their group gives %s" % err.strip())
rc, _, _, err = cli("training-job-delete", "--name", "c1", "--job", "j1",
                    "--team", "b")
t.ok(rc == 4 and "needs role operator" in err,
     "a viewer's delete of a team's job is refused for the role: exit 4 "
     "(%s)" % err.strip())
r = s.get("/api/v1/whoami", token=tok)
t.eq((r.status, (r.json or {}).get("name")), (200, "bob@example.com"),
     "the credential is a Bearer for REST")

# ---- the person aborts; a code expires -------------------------------
rc, out, err, seen = device_login("deny", "bob", "abort")
t.ok(rc == 4 and "denied" in err,
     "aborted at the provider: exit 4, saying so (%s)" % err.strip())
t.ok("token" not in (contexts().get("deny") or {}),
     "no credential is kept")
provider.post("/test/device-ttl", {"seconds": 2})
rc, out, err, seen = device_login("late", "bob", "nothing")
t.ok(rc == 4 and "expired" in err,
     "a code nobody approved in time: exit 4, expired (%s)" % err.strip())
t.ok("token" not in (contexts().get("late") or {}),
     "no credential is kept")
s.stop()
provider.stop()
t.done()
