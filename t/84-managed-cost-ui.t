#!/usr/bin/python3
# 84-managed-cost-ui.t: the Inference page's deploy form in Chromium
# (playwright-core, t/lib/managed-cost-ui.js) shows what a managed
# endpoint's plan costs: the dry run of 2 replicas on the cluster's GPU
# type says their hourly and daily cost in dollars, as the API's plan
# does, and where the prices come from.
import os
import sys
from decimal import Decimal, ROUND_HALF_UP

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, wait_operation
from harness import need_browser, ui_script

t = T()
need_browser(t)
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
import harness  # noqa: E402
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)
s = Stack(t, sandbox=True, speed=3000)
C = "/api/v1/clusters/mcu"
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"] and i["gpus"] >= 1)
r = s.post("/api/v1/clusters", {"name": "mcu", "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")
r = s.request("PATCH", C + "/features", {"inference_operator": True})
d = wait_operation(s, r.json["operation_id"], timeout=240) \
    if r.status == 202 else {}
t.eq(d.get("state"), "succeeded", "the inference operator is on")
r = s.post(C + "/inference?dry_run=true", {
    "endpoint_name": "uiplan", "kind": "managed",
    "instance_type": g["instance_type"], "replicas": 2,
    "model_source": {"type": "huggingface", "uri": "Qwen/Qwen3-0.6B"}})
c = (r.json or {}).get("cost") or {}
t.ok(r.status == 200 and c.get("complete") is True,
     "the API's plan has a known cost (%s)" % c)


def usd(v):
    """As the UI writes dollars (static/js/ui.js fmtUsd): two decimals
    from $1 up, else up to four, rounded half away from zero."""
    a = Decimal(str(v))
    q = a.quantize(Decimal("0.01") if a >= 1 else Decimal("0.0001"),
                   ROUND_HALF_UP)
    text = "{:,}".format(q)
    while a < 1 and text.endswith("0") and len(text.split(".")[1]) > 2:
        text = text[:-1]
    return "$" + text


out = ui_script(t, "managed-cost-ui.js", "http://127.0.0.1:%d" % s.port,
                s.token, "mcu", g["instance_type"])
text = out.get("cost") or ""
t.ok(usd(c.get("added_per_hour", 0)) + " an hour" in text and
     usd(c.get("added_per_day", 0)) + " a day" in text,
     "the form's plan says %s an hour and %s a day: %r" %
     (usd(c.get("added_per_hour", 0)), usd(c.get("added_per_day", 0)),
      text))
t.ok("Price List API" in text and g["instance_type"] in text,
     "on %s, with where the price comes from" % g["instance_type"])
t.done()
