#!/usr/bin/python3
# 76-node-volumes.t: EBS volumes attached to and detached from HyperPod
# nodes (node_volume_attach, node_volume_detach) against the sandbox.
# Without the EBS CSI driver add-on the attach is refused naming
# install_csi_driver; the dry run names CreateAddon and
# AttachClusterNodeVolume and sends neither; with install_csi_driver the
# add-on is created ACTIVE (aws CLI) and the volume attached: the stage
# records SageMaker's device name and the sandbox's volume is in-use,
# attached to that node.  SageMaker's refusals end an operation with its
# words (a volume in use, an unknown volume, one in another zone), and
# the aws CLI sees the same refusals.  The detach goes through MCP and
# leaves the volume available; a second detach is refused by SageMaker.
# Refused before anything starts, naming the field: a node of a
# restricted instance group (added with the aws CLI), a cluster not
# orchestrated by EKS (a Slurm cluster made with the aws CLI), a cluster
# not InService (a scale-up without capacity), an unknown node.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, aws_cli, aws_cli_error, sandbox_call,
                     sandbox_requests, wait_for, wait_operation)
from mcp_raw import Mcp

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
C = "nv"
B = "/api/v1/clusters/%s" % C


def cli(*args):
    rc, out = aws_cli(s, *args)
    return out if rc == 0 and isinstance(out, dict) else None


def field_error(r, status, field, rule):
    return r.status == status and any(
        e.get("field") == field and e.get("rule") == rule
        for e in (r.json or {}).get("errors", []))


def volume(vid):
    st, body = sandbox_call(s, "GET", "/_sandbox/ec2/volumes")
    return next((v for v in body.get("volumes", []) if v["volumeId"] == vid),
                None) if st == 200 else None


def new_volume(az):
    st, body = sandbox_call(s, "POST", "/_sandbox/ec2/volumes",
                            {"availability_zone": az, "size": 50})
    return body.get("volumeId") if st == 200 else None


def attach(node, vid, **extra):
    return s.post(B + "/nodes/%s/volumes" % node,
                  dict({"volume_id": vid}, **extra))


def failed_with(r, words):
    """The operation r started failed, its error containing words."""
    if r.status != 202:
        return False, "answered %d" % r.status
    d = wait_operation(s, r.json["operation_id"], timeout=120)
    return (d.get("state") == "failed" and words in (d.get("error") or ""),
            "%s: %s" % (d.get("state"), d.get("error")))


# ---- a cluster with two nodes, and volumes in the first node's zone ------
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
itype = g["instance_type"]
r = s.post("/api/v1/clusters", {"name": C, "instance_groups": [
    {"name": "w", "instance_type": itype, "count": 2,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created (%s)" % d.get("error"))
nodes = s.get(B + "/nodes").json["items"]
t.eq(len(nodes), 2, "two nodes")
n0, n1 = nodes[0]["node_id"], nodes[1]["node_id"]
az = s.get(B + "/nodes/" + n0).json["availability_zone"]
vol, vol2 = new_volume(az), new_volume(az)
t.ok(vol and vol2, "two available volumes in %s: %s %s" % (az, vol, vol2))
other = next((v for v in (new_volume(az[:-1] + c) for c in "abcdef"
                          if az[:-1] + c != az) if v), None)
t.ok(other, "a volume in another zone: %s" % other)
desc = cli("sagemaker", "describe-cluster", "--cluster-name", C) or {}
arn = desc.get("ClusterArn", "")

# ---- without the EBS CSI driver: refused, naming install_csi_driver -------
r = attach(n0, vol)
t.ok(field_error(r, 409, "install_csi_driver", "csi-driver"),
     "no EBS CSI driver add-on: 409 naming install_csi_driver (%d %s)" %
     (r.status, (r.json or {}).get("detail")))

# ---- dry run: the calls, none sent -----------------------------------------
seq = (sandbox_requests(s) or [{"seq": 0}])[-1]["seq"]
r = s.post(B + "/nodes/%s/volumes?dry_run=true" % n0,
           {"volume_id": vol, "install_csi_driver": True})
t.eq(r.status, 200, "dry run answers 200")
ops = [(c.get("service"), c.get("operation")) for c in
       (r.json or {}).get("calls", []) if c.get("operation") in
       ("CreateAddon", "AttachClusterNodeVolume")]
t.eq(ops, [("eks", "CreateAddon"), ("sagemaker", "AttachClusterNodeVolume")],
     "the plan creates the add-on, then attaches")
call = next((c for c in r.json.get("calls", [])
             if c.get("operation") == "AttachClusterNodeVolume"), {})
t.eq(call.get("input"), {"ClusterArn": arn, "NodeId": n0, "VolumeId": vol},
     "with the cluster's ARN, the node and the volume")
t.eq([e["operation"] for e in sandbox_requests(s, mutating="true", since=seq)],
     [], "the dry run sent nothing that changes")

# ---- the attach, with the add-on installed first ---------------------------
r = attach(n0, vol, install_csi_driver=True)
t.eq(r.status, 202, "attach accepted")
d = wait_operation(s, r.json.get("operation_id", ""), timeout=180)
t.eq(d.get("state"), "succeeded", "attach succeeded (%s)" % d.get("error"))
res = next((x["resources"] for x in d.get("stages", [])
            if x["name"] == "attach"), {})
t.eq((res.get("status"), res.get("device_name")), ("attaching", "/dev/xvdf"),
     "the attach stage records SageMaker's answer: %s" % res)
addon = cli("eks", "describe-addon", "--cluster-name", C, "--addon-name",
            "aws-ebs-csi-driver") or {}
t.eq(addon.get("addon", {}).get("status"), "ACTIVE",
     "aws CLI: the EBS CSI driver add-on is ACTIVE")
v = wait_for(lambda: (volume(vol) or {}).get("attachmentSet", [{}])[0]
             .get("status") == "attached" and volume(vol), timeout=60)
t.ok(v and v["state"] == "in-use" and v["attachmentSet"][0]["instanceId"] ==
     n0, "the sandbox's volume is in-use, attached to %s: %s" % (n0, v))
sent = [e["params"] for e in sandbox_requests(
    s, service="sagemaker", operation="AttachClusterNodeVolume")
    if e["status"] == 200]
t.eq(sent, [{"ClusterArn": arn, "NodeId": n0, "VolumeId": vol}],
     "one AttachClusterNodeVolume was sent")

# ---- SageMaker's refusals end an operation with its words ------------------
ok, why = failed_with(attach(n1, vol), "must be available")
t.ok(ok, "a volume in use: the operation fails (%s)" % why)
ok, why = failed_with(attach(n1, "vol-0123456789abcdef0"), "not found")
t.ok(ok, "an unknown volume: the operation fails (%s)" % why)
ok, why = failed_with(attach(n0, other), "Availability Zone")
t.ok(ok, "a volume in another zone: the operation fails (%s)" % why)
rc, err = aws_cli_error(s, "sagemaker", "attach-cluster-node-volume",
                        "--cluster-arn", arn, "--node-id", n1,
                        "--volume-id", "vol-0123456789abcdef0")
t.ok(rc != 0 and "ResourceNotFound" in err,
     "aws CLI: an unknown volume is ResourceNotFound")
rc, err = aws_cli_error(s, "sagemaker", "attach-cluster-node-volume",
                        "--cluster-arn", arn, "--node-id", n1,
                        "--volume-id", vol)
t.ok(rc != 0 and "ValidationException" in err,
     "aws CLI: a volume in use is a ValidationException")

# ---- refused before anything starts ------------------------------------------
r = attach("i-0123456789abcdef0", vol2)
t.ok(field_error(r, 404, "node", "exists"), "an unknown node: 404 naming node")
t.eq(s.post(B + "/nodes/%s/volumes" % n0, {"volume_id": "vol-xyz"}).status,
     400, "a malformed volume id: 400")

# ---- the detach, through MCP (a destructive tool: confirmed) ---------------
mc = Mcp(s)
sid = mc.initialize()[1]
res = mc.legacy("tools/call", {"name": "node_volume_detach", "arguments": {
    "name": C, "node": n0, "volume": vol, "confirm": True}},
    sid=sid).json or {}
sc = (res.get("result") or {}).get("structuredContent") or {}
t.ok(sc.get("operation_id"), "MCP node_volume_detach starts an operation")
d = wait_operation(s, sc.get("operation_id", ""), timeout=120)
t.eq(d.get("state"), "succeeded", "detach succeeded (%s)" % d.get("error"))
v = wait_for(lambda: (volume(vol) or {}).get("state") == "available" and
             volume(vol), timeout=60)
t.ok(v and v["attachmentSet"] == [], "the volume is available again: %s" % v)
ok, why = failed_with(s.request("DELETE", B + "/nodes/%s/volumes/%s" %
                                (n0, vol)), "not attached")
t.ok(ok, "a volume not attached: the detach fails (%s)" % why)

# ---- a restricted instance group -------------------------------------------
role = (desc.get("InstanceGroups") or [{}])[0].get("ExecutionRole", "")
out = cli("sagemaker", "update-cluster", "--cluster-name", C,
          "--restricted-instance-groups", json.dumps([{
              "InstanceGroupName": "rig", "InstanceType": itype,
              "InstanceCount": 1, "ExecutionRole": role}]))
t.ok(out and out.get("ClusterArn") == arn, "aws CLI adds a restricted group")


def rig_node():
    d = cli("sagemaker", "describe-cluster", "--cluster-name", C) or {}
    if d.get("ClusterStatus") != "InService":
        return None
    n = cli("sagemaker", "list-cluster-nodes", "--cluster-name", C) or {}
    return next((x["InstanceId"] for x in n.get("ClusterNodeSummaries", [])
                 if x["InstanceGroupName"] == "rig"), None)


rn = wait_for(rig_node, timeout=120)
t.ok(rn, "its node runs and the cluster is InService: %s" % rn)
desc = cli("sagemaker", "describe-cluster", "--cluster-name", C) or {}
t.eq([x["InstanceGroupName"] for x in desc.get("RestrictedInstanceGroups",
                                                  [])], ["rig"],
     "DescribeCluster lists it under RestrictedInstanceGroups")
r = attach(rn, vol2)
t.ok(field_error(r, 409, "node", "restricted"),
     "a node of a restricted group: 409 naming node (%s)" %
     (r.json or {}).get("detail"))
rc, err = aws_cli_error(s, "sagemaker", "attach-cluster-node-volume",
                        "--cluster-arn", arn, "--node-id", rn,
                        "--volume-id", vol2)
t.ok(rc != 0 and "ValidationException" in err and "restricted" in err,
     "aws CLI: SageMaker refuses it too")

# ---- a Slurm cluster -----------------------------------------------------------
out = cli("sagemaker", "create-cluster", "--cluster-name", "slurm1",
          "--instance-groups", json.dumps([{
              "InstanceGroupName": "c", "InstanceType": itype,
              "InstanceCount": 1, "ExecutionRole": role,
              "LifeCycleConfig": {"SourceS3Uri": "s3://lc-bucket/lc",
                                  "OnCreate": "on_create.sh"}}]))
t.ok(out and out.get("ClusterArn"), "aws CLI creates a Slurm cluster")
sn = wait_for(lambda: ((cli("sagemaker", "list-cluster-nodes",
                            "--cluster-name", "slurm1") or {})
                       .get("ClusterNodeSummaries") or [{}])[0]
              .get("InstanceId"), timeout=60)
r = s.post("/api/v1/clusters/slurm1/nodes/%s/volumes" % sn,
           {"volume_id": vol2})
t.ok(field_error(r, 409, "name", "orchestrator"),
     "a cluster not orchestrated by EKS: 409 naming name (%s)" %
     (r.json or {}).get("detail"))

# ---- a cluster not InService -------------------------------------------------
st, _ = sandbox_call(s, "POST", "/_sandbox/faults",
                     {"insufficient_capacity": [itype]})
r = s.request("PATCH", B + "/instance-groups/w", body={"count": 3})
t.eq(r.status, 202, "a scale-up without capacity starts")
busy = wait_for(lambda: (cli("sagemaker", "describe-cluster", "--cluster-name",
                             C) or {}).get("ClusterStatus") not in
                (None, "InService"), timeout=120)
t.ok(busy, "the cluster leaves InService")
r = attach(n1, vol2)
t.ok(field_error(r, 409, "name", "state"),
     "a cluster not InService: 409 naming name (%s)" %
     (r.json or {}).get("detail"))
rc, err = aws_cli_error(s, "sagemaker", "attach-cluster-node-volume",
                        "--cluster-arn", arn, "--node-id", n1,
                        "--volume-id", vol2)
t.ok(rc != 0 and "InService" in err, "aws CLI: SageMaker refuses it too")
t.eq((volume(vol2) or {}).get("state"), "available",
     "no refused request attached anything")
sandbox_call(s, "DELETE", "/_sandbox/faults")
t.done()
