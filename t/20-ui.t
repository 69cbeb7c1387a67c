#!/usr/bin/python3
# 20-ui.t: the web UI in a real browser (Debian Chromium driven by
# playwright-core): login (a bad token is refused, a good one gives an
# HttpOnly SameSite=Strict cookie), the create form shows the server's
# per-field error, plans with a dry run, creates a cluster, and the
# operation page follows it live to "succeeded"; the cluster page lists
# its nodes.
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR

t = T()
mod = os.path.join(SRCDIR, "t", "node_modules", "playwright-core")
if not os.path.exists("/usr/bin/chromium") or not os.path.isdir(mod) or \
        not shutil.which("node"):
    t.skip_all("chromium or playwright-core missing (./quickstart test "
               "installs them)")
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
import harness  # noqa: E402
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)
s = Stack(t, sandbox=True, speed=3000)
shots = tempfile.mkdtemp(prefix="sw-ui-")
r = subprocess.run(["node", os.path.join(SRCDIR, "t", "lib", "ui-flow.js"),
                    "http://127.0.0.1:%d" % s.port, s.token, shots],
                   capture_output=True, text=True, timeout=400)
try:
    out = json.loads(r.stdout.strip().splitlines()[-1])
except (ValueError, IndexError):
    out = {"error": r.stdout[-2000:] + r.stderr[-2000:]}
if out.get("error"):
    t.diag(out["error"])
t.ok("unknown" in (out.get("bad_login") or ""), "a bad token is refused "
     "with the server's message")
t.ok("test-admin" in (out.get("logged_in") or ""), "logged in as the token")
t.ok(out.get("cookie_http_only"), "the session cookie is HttpOnly")
t.eq(out.get("cookie_same_site"), "Strict", "and SameSite=Strict")
t.eq(out.get("create_kept"), 1, "a late answer of the page left behind "
     "does not replace the create form")
t.eq(out.get("create_h1"), "Create a cluster", "the create page stays shown")
t.ok("must be at least 1" in (out.get("field_error") or ""),
     "a server field error is shown beside its input")
t.ok((out.get("plan_steps") or 0) > 20 and "CreateVpc" in
     (out.get("plan_first") or ""), "the plan lists the calls, CreateVpc "
     "first (%s steps)" % out.get("plan_steps"))
t.ok("#/operations/op-" in (out.get("operation_url") or ""),
     "create leads to the operation page")
t.eq(out.get("final_state"), "succeeded", "the page followed the "
     "operation to succeeded")
t.ok(out.get("stages") == 8 and out.get("stages_succeeded") == 8,
     "eight stages shown, all succeeded")
t.eq(out.get("nodes"), 1, "the cluster page lists its node")
t.eq(out.get("page_errors"), [], "no script or console errors in the page")
shutil.rmtree(shots, ignore_errors=True)
s.stop()
t.done()
