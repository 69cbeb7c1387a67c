#!/usr/bin/python3
# 80-spaces-ui.t: the Spaces page of the web UI in Chromium
# (playwright-core, t/lib/spaces-ui.js): a Space made over REST is listed
# with its state; the create form offers the templates the server has;
# Connect shows the Space's web URL; its Stop button stops it, and the
# API then says so.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, wait_for, wait_operation
from harness import need_browser, ui_script

t = T()
need_browser(t)
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
C = "/api/v1/clusters/spu"
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "spu", "storage": {
    "s3_bucket": "spu-training-data"}, "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")
r = s.request("PATCH", C + "/features", {"spaces": True})
d = wait_operation(s, r.json["operation_id"], timeout=240) \
    if r.status == 202 else {}
t.eq(d.get("state"), "succeeded", "spaces on")
r = s.post(C + "/spaces", {"space": "web", "idle_timeout_minutes": 0})
t.eq(r.status, 201, "a Space made over REST")
t.ok(wait_for(lambda: s.get(C + "/spaces/web").json.get("state") ==
              "Running", timeout=120), "it runs")
out = ui_script(t, "spaces-ui.js", "http://127.0.0.1:%d" % s.port, s.token,
                "spu")
sp = dict((n, h) for n, h in out.get("spaces") or [])
t.ok("Running" in sp.get("web", ""), "the page lists it Running (%s)" % sp)
t.eq(sorted(out.get("templates") or []), ["code-editor", "jupyterlab"],
     "the form offers the server's templates")
t.ok((out.get("url") or "").endswith("/workspaces/default/web/"),
     "Connect shows its web URL (%s)" % out.get("url"))
t.ok(out.get("stopped"), "its Stop button turned into Start")
t.eq(s.get(C + "/spaces/web").json.get("desired"), "Stopped",
     "the API says it is stopped")
t.done()
