#!/usr/bin/python3
# 78-node-volumes-ui.t: a node's EBS volumes on the web UI, in Chromium
# (playwright-core, t/lib/node-volumes-ui.js): on the node's page the
# attach form copies its request as curl and MCP, shows the server's
# refusal beside install_csi_driver when the cluster lacks the EBS CSI
# driver, and with the box ticked starts the attach, leading to its
# operation, which attaches the volume in the sandbox.  The Training page
# shows the MLflow Apps card with its create form.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, sandbox_call, wait_for, wait_operation
from harness import need_browser, ui_script

t = T()
need_browser(t)
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
C = "uv"
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": C, "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
d = wait_operation(s, r.json.get("operation_id", ""), timeout=240)
t.eq(d.get("state"), "succeeded", "a cluster with one node")
node = s.get("/api/v1/clusters/%s/nodes" % C).json["items"][0]["node_id"]
az = s.get("/api/v1/clusters/%s/nodes/%s" % (C, node)).json[
    "availability_zone"]
st, vol = sandbox_call(s, "POST", "/_sandbox/ec2/volumes",
                       {"availability_zone": az})
vid = vol.get("volumeId", "") if st == 200 else ""
t.ok(vid, "a volume in the node's zone: %s" % vid)

out = ui_script(t, "node-volumes-ui.js", "http://127.0.0.1:%d" % s.port,
                 s.token, C, node, vid)
t.eq(out.get("copy"), ["Copy as curl", "Copy as MCP call"],
     "the attach form copies its request as curl and as an MCP call")
t.ok(any(f == "install_csi_driver" for f, _ in out.get("refusal") or []),
     "no EBS CSI driver: the server's refusal stands beside "
     "install_csi_driver (%s)" % out.get("refusal"))
led = out.get("led_to") or ""
t.ok(led.startswith("#/operations/op-"), "the form leads to the "
     "operation it started (%s)" % led)
d = wait_operation(s, led.rsplit("/", 1)[-1], timeout=180) if led else {}
t.ok(d.get("kind") == "node.volume_attach" and d.get("state") == "succeeded",
     "it attaches the volume (%s %s)" % (d.get("kind"), d.get("state")))


def attached():
    st, body = sandbox_call(s, "GET", "/_sandbox/ec2/volumes")
    v = next((x for x in body.get("volumes", []) if x["volumeId"] == vid),
             {}) if st == 200 else {}
    return [a["instanceId"] for a in v.get("attachmentSet", [])
            if a["status"] == "attached"]


t.eq(wait_for(attached, timeout=60), [node],
     "the sandbox's volume is attached to the node")
t.eq(out.get("mlflow"), ["H2:MLflow Apps", "FORM:mlflow-create-form"],
     "the Training page shows the MLflow Apps card and its create form")
t.done()
