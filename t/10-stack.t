#!/usr/bin/python3
# 10-stack.t: `slipway start` brings up nginx and the REST workers on a
# free port; health, version, the static UI and `slipway status` answer;
# `slipway stop` leaves no process behind.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack

t = T()
s = Stack(t)

r = s.get("/api/v1/health", token=None)
t.eq(r.status, 200, "health answers without a token")
t.eq(r.json and r.json.get("status"), "ok", "health says ok")

r = s.get("/api/v1/version")
t.eq(r.status, 200, "version answers with the admin token")
t.eq(r.json.get("name"), "slipway", "version names the product")
t.ok(r.json.get("schema_version", 0) >= 1, "schema version reported")
t.eq(r.header("Content-Type"), "application/json", "JSON content type")
t.eq(r.header("X-Content-Type-Options"), "nosniff", "nosniff header")
t.eq([v for k, v in r.headers if k.lower() == "x-content-type-options"],
     ["nosniff"], "and only once")

r = s.get("/", token=None)
t.eq(r.status, 200, "static UI served at /")
t.ok("Slipway" in r.body, "the UI page is ours")
t.ok(r.header("Content-Security-Policy") is not None, "CSP on static")

r = s.get("/api", token=None)
t.eq(r.status, 308, "/api redirects to /api/")

st = s.status()
t.ok(st.get("running"), "status --json says running")
names = sorted(c["name"] for c in st["components"])
t.ok("nginx" in names and "api.0" in names and "api.1" in names,
     "status lists nginx and two api workers: %s" % names)
t.ok(all(c["pid"] > 0 for c in st["components"]), "every component has a pid")
t.eq(st.get("port"), s.port, "status reports the port")

text = s.cli("status")
t.ok("running at http://127.0.0.1:%d" % s.port in text, "plain status")

import subprocess
from harness import SLIPWAY
p = subprocess.run([SLIPWAY, "start", "--state-dir", s.state, "--port",
                    str(s.port)], capture_output=True, text=True)
t.ok(p.returncode != 0 and "already running" in p.stderr,
     "a second start on the same state dir is refused")

s.stop()
st = subprocess.run([SLIPWAY, "status", "--json", "--state-dir", s.state],
                    capture_output=True, text=True)
t.ok(st.returncode != 0 and '"running":false' in st.stdout.replace(" ", ""),
     "status after stop says not running")
t.done()
