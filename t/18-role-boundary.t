#!/usr/bin/python3
# 18-role-boundary.t: with a permissions boundary configured
# (SLIPWAY_IAM_PERMISSIONS_BOUNDARY, as the CloudFormation template sets
# it, or slipway.conf's iam_permissions_boundary), every CreateRole of a
# cluster's plan sends it as PermissionsBoundary; without one, none does.
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SLIPWAY, SRCDIR, Stack, free_port

t = T()
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
BOUNDARY = "arn:aws:iam::123456789012:policy/slipway-role-boundary"


def plan(stack):
    types = stack.get("/api/v1/instance-types?gpu_only=true").json["items"]
    g = types[0]
    body = {"name": "bnd", "instance_groups": [
        {"name": "workers", "instance_type": g["instance_type"], "count": 1,
         "availability_zone": g["availability_zones"][0]}]}
    r = stack.post("/api/v1/clusters?dry_run=true", body)
    t.eq(r.status, 200, "cluster_create dry run")
    return [c for c in (r.json or {}).get("calls", [])
            if c.get("operation") == "CreateRole"]


os.environ["SLIPWAY_IAM_PERMISSIONS_BOUNDARY"] = BOUNDARY
s = Stack(t, sandbox=True)
del os.environ["SLIPWAY_IAM_PERMISSIONS_BOUNDARY"]
t.eq(s.config().get("iam_permissions_boundary"), BOUNDARY,
     "the boundary is in config.json")
roles = plan(s)
t.ok(len(roles) >= 2 and all(c.get("input", {}).get("PermissionsBoundary")
                             == BOUNDARY for c in roles),
     "every CreateRole of the plan (%d) sends the boundary" % len(roles))
s.stop()

s = Stack(t, sandbox=True)
roles = plan(s)
t.ok(roles and not [c for c in roles
                    if "PermissionsBoundary" in c.get("input", {})],
     "without one configured, CreateRole sends none")
s.stop()

os.environ["SLIPWAY_IAM_PERMISSIONS_BOUNDARY"] = "not-an-arn"
state = tempfile.mkdtemp(prefix="sw-bnd-")
r = subprocess.run([SLIPWAY, "start", "--state-dir", state, "--port",
                    str(free_port())], capture_output=True, text=True,
                   timeout=120)
del os.environ["SLIPWAY_IAM_PERMISSIONS_BOUNDARY"]
t.ok(r.returncode != 0 and "SLIPWAY_IAM_PERMISSIONS_BOUNDARY" in r.stderr,
     "a boundary that is not a policy ARN is refused at start")
if r.returncode == 0:
    subprocess.run([SLIPWAY, "stop", "--state-dir", state],
                   capture_output=True, timeout=60)
t.done()
