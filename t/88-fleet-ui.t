#!/usr/bin/python3
# 88-fleet-ui.t: the Fleet page of the web UI, in Chromium
# (playwright-core, t/lib/fleet-ui.js): reached from the Clusters page,
# it loads today's state (fleet_export), shows the plan of a pasted
# document (a cluster_create with its hourly cost, and the total) and
# the YAML of it, and a refused document's error by field; nothing is
# created.  Once the document is applied, the cluster's page names it,
# who applied it, and that nothing drifted.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, need_browser, need_clusters, ui_script,
                     wait_operation)

t = T()
need_browser(t)
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
doc = {"apiVersion": "slipway/v1", "clusters": [{
    "name": "ui-a", "instance_groups": [{
        "name": "workers", "instance_type": g["instance_type"], "count": 1,
        "availability_zone": g["availability_zones"][0]}]}]}
bad = json.loads(json.dumps(doc))
bad["clusters"][0]["instance_groups"][0]["count"] = 0
out = ui_script(t, "fleet-ui.js", "http://127.0.0.1:%d" % s.port, s.token,
                json.dumps(doc), json.dumps(bad))
t.eq(out.get("loaded"), "slipway/v1",
     "Load today's state fills the box with the export")
rows = out.get("rows") or []
t.ok(len(rows) == 1 and rows[0][:3] == ["1", "cluster_create", "ui-a"] and
     rows[0][3].startswith("absent:") and rows[0][4].startswith("$"),
     "the plan: one cluster_create of ui-a, why, and its USD/hour (%s)" %
     rows)
t.ok((out.get("total") or "").startswith("1 change, $"),
     "the plan's total per hour (%s)" % out.get("total"))
t.ok("name: ui-a" in (out.get("yaml") or ""), "the document as YAML")
t.ok(any(f == "clusters[0].instance_groups[0].count" and "at least 1" in m
         for f, m in out.get("refusal") or []),
     "count 0: the refusal by field (%s)" % out.get("refusal"))
t.eq(s.get("/api/v1/clusters/ui-a").status, 404, "a plan creates nothing")

# ---- the cluster page names the document applied and its drift ------
r = s.post("/api/v1/fleet/apply", doc)
op = ((r.json or {}).get("started") or [{}])[0].get("operation_id")
t.ok(r.status == 200 and op, "fleet_apply over REST creates ui-a")
t.eq(wait_operation(s, op or "op-0", timeout=600).get("state"), "succeeded",
     "ui-a is created")
out = ui_script(t, "fleet-ui.js", "http://127.0.0.1:%d" % s.port, s.token,
                "drift", "ui-a")
t.ok("Applied by test-admin" in (out.get("drift") or "") and
     "No drift" in out.get("drift", ""), "the cluster page: the fleet "
     "document applied, by whom, and no drift (%s)" % out.get("drift"))
s.stop()
t.done()
