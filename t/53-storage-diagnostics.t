#!/usr/bin/python3
# 53-storage-diagnostics.t: shared storage (S3 Mountpoint and FSx for
# Lustre claims that end Bound), compute subnets and who uses them,
# software update, and the read-only diagnosis seeing a failed node;
# teardown removes the FSx file system.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, aws_cli, sandbox_call, sandbox_requests,
                     wait_operation)
from harness import need_clusters

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": "store", "node_recovery": "None",
                                "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 2,
     "availability_zone": g["availability_zones"][0]}]})
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")

# ---- storage
r = s.post("/api/v1/clusters/store/storage", {"kind": "s3", "claim": "data"})
t.ok(r.status == 400 and any(e["field"] == "bucket" for e in
                             r.json.get("errors", [])),
     "S3 storage without a bucket: 400 naming bucket")
r = s.post("/api/v1/clusters/store/storage",
           {"kind": "s3", "claim": "data", "bucket": "store-data"})
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "failed", "a missing bucket fails unless asked to "
     "create it")
t.ok("create_bucket" in (d.get("error") or ""), "and says how to fix it")
r = s.post("/api/v1/clusters/store/storage",
           {"kind": "s3", "claim": "data", "bucket": "store-data",
            "create_bucket": True})
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "S3 claim added and Bound")
r = s.post("/api/v1/clusters/store/storage?dry_run=true",
           {"kind": "fsx", "claim": "fsx-claim", "size_gib": 1200})
t.ok(r.status == 200 and any(c.get("operation") == "CreateFileSystem"
                             for c in r.json["calls"]),
     "FSx dry run plans CreateFileSystem")
before = [e for e in sandbox_requests(s, mutating="true")
          if e["operation"] == "CreateFileSystem"]
t.eq(len(before), 0, "the dry run created nothing")
r = s.post("/api/v1/clusters/store/storage",
           {"kind": "fsx", "claim": "fsx-claim", "size_gib": 1200})
d = wait_operation(s, r.json["operation_id"], timeout=180)
t.eq(d.get("state"), "succeeded", "FSx claim added and Bound")
r = s.get("/api/v1/clusters/store/storage")
claims = {c["claim"]: c for c in r.json.get("items", [])}
t.ok(claims.get("data", {}).get("kind") == "s3" and
     claims["data"].get("bucket") == "store-data" and
     claims["data"].get("status") == "Bound", "storage_list: S3 claim")
t.ok(claims.get("fsx-claim", {}).get("kind") == "fsx" and
     claims["fsx-claim"].get("file_system_id", "").startswith("fs-"),
     "storage_list: FSx claim with its file system")
rc, out = aws_cli(s, "fsx", "describe-file-systems")
if rc is None:
    t.skip("aws CLI not installed")
else:
    t.ok(rc == 0 and any(f["Lifecycle"] == "AVAILABLE"
                         for f in out.get("FileSystems", [])),
         "aws fsx describe-file-systems: AVAILABLE")

# ---- compute subnets
r = s.get("/api/v1/clusters/store/compute-subnets")
subs = r.json.get("items", [])
t.ok(len(subs) == 1 and subs[0]["instance_groups"] == ["w"] and
     subs[0]["cidr"].endswith("/20"), "one shared /20 compute subnet, "
     "used by group w")

# ---- diagnosis: healthy, then a failed node (recovery None)
r = s.get("/api/v1/clusters/store/diagnostics")
t.eq(r.status, 200, "diagnostics answers")
t.eq([f["severity"] for f in r.json["findings"]], ["info"],
     "a healthy cluster has no findings")
nodes = s.get("/api/v1/clusters/store/nodes").json["items"]
mut = len(sandbox_requests(s, mutating="true"))
st, _ = sandbox_call(s, "POST", "/_sandbox/fail-node",
                     {"cluster": "store", "node_id": nodes[0]["node_id"],
                      "message": "GPU fell off the bus"})
t.eq(st, 200, "a node failed (sandbox)")
r = s.get("/api/v1/clusters/store/diagnostics")
text = json.dumps(r.json)
t.ok(any(u["node_id"] == nodes[0]["node_id"]
         for u in r.json["unhealthy_nodes"]), "the failed node is reported")
t.ok("node_reboot" in text and "node_replace" in text,
     "findings suggest reboot, then replace")
t.eq(len(sandbox_requests(s, mutating="true")), mut,
     "diagnosis changed nothing")

# ---- software update
r = s.post("/api/v1/clusters/store:update-software", {})
t.eq(r.status, 202, "software update accepted")
d = wait_operation(s, r.json["operation_id"], timeout=180)
t.eq(d.get("state"), "succeeded", "software update finished")
t.eq(sum(1 for e in sandbox_requests(s, mutating="true")
         if e["operation"] == "UpdateClusterSoftware"), 1,
     "one UpdateClusterSoftware call")

# ---- teardown removes FSx too
r = s.request("DELETE", "/api/v1/clusters/store")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "teardown succeeded")
rc, out = aws_cli(s, "fsx", "describe-file-systems")
if rc is not None:
    t.ok(rc == 0 and not out.get("FileSystems"), "no FSx file system left")
s.stop()
t.done()
