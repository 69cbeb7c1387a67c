#!/usr/bin/python3
# 50-cluster-lifecycle.t: the whole cluster lifecycle against the
# sandbox: inspect, dry run (no mutation), create with an idempotency
# key, every stage to succeeded, the result seen with the real aws CLI
# and kubectl, instance groups and nodes, and teardown leaving nothing.
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, aws_cli, sandbox_call, sandbox_requests,
                     sandbox_info, wait_operation)
from harness import need_clusters

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=2000)

# ---- inspect before create
r = s.get("/api/v1/availability-zones")
t.eq(r.status, 200, "availability zones")
zones = [z["name"] for z in r.json["items"]]
t.ok(len(zones) >= 2 and all(z["id"] for z in r.json["items"]),
     "zones have names and ids: %s" % zones)
r = s.get("/api/v1/instance-types?gpu_only=true")
t.eq(r.status, 200, "instance types")
types = {i["instance_type"]: i for i in r.json["items"]}
t.ok("ml.g5.8xlarge" in types or len(types) > 3, "GPU types listed")
efa_type = next((n for n, i in sorted(types.items())
                 if i["efa_supported"]), None)
plain_type = next((n for n, i in sorted(types.items())
                   if not i["efa_supported"] and i["gpus"] > 0), None)
t.ok(efa_type and plain_type, "types with and without EFA: %s %s" %
     (efa_type, plain_type))
gtype = "ml.g5.8xlarge" if "ml.g5.8xlarge" in types else plain_type
gaz = types[gtype]["availability_zones"][0]
t.ok(gaz in zones, "the type is offered in a zone of the region")
r = s.get("/api/v1/regions")
t.ok(r.status == 200 and r.json["region"] in
     [x["name"] for x in r.json["items"]], "regions include the current")

body = {"name": "demo", "instance_groups": [
    {"name": "workers", "instance_type": gtype, "count": 2,
     "availability_zone": gaz}],
    "storage": {"s3_bucket": "demo-training-data"}}

# ---- bad input: 400 naming the field, nothing created
mut_before = len(sandbox_requests(s, mutating="true"))
bad = [
    (dict(body, vpc_cidr="10.0.1.0/16"), "vpc_cidr", "pattern"),
    (dict(body, vpc_cidr="127.5.0.0/16"), "vpc_cidr", "range"),
    (dict(body, vpc_cidr="10.300.0.0/16"), "vpc_cidr", "range"),
    (dict(body, availability_zones=["us-west-2a", "mars-1a"]),
     "availability_zones[1]", "pattern"),
    (dict(body, availability_zones=[zones[0], "us-west-2z"]),
     "availability_zones[1]", "exists"),
    (dict(body, instance_groups=[dict(body["instance_groups"][0],
                                      count=0)]),
     "instance_groups[0].count", "minimum"),
    (dict(body, instance_groups=[dict(body["instance_groups"][0],
                                      count=5000)]),
     "instance_groups[0].count", "maximum"),
    (dict(body, instance_groups=[dict(body["instance_groups"][0],
                                      capacity_type="spot",
                                      training_plan_arn="arn:aws:sagemaker:"
                                      "us-west-2:123456789012:training-plan/"
                                      "p1")]),
     "instance_groups[0].training_plan_arn", "conflict"),
    (dict(body, instance_groups=[{"name": "e", "instance_type": plain_type,
                                  "count": 1, "efa_only": True}]),
     "instance_groups[0].efa_only", "efa"),
    (dict(body, instance_groups=[body["instance_groups"][0],
                                 body["instance_groups"][0]]),
     "instance_groups[1].name", "unique"),
    (dict(body, bogus=1), "bogus", "unknown"),
]
for b, field, rule in bad:
    r = s.post("/api/v1/clusters", b)
    errs = (r.json or {}).get("errors", [])
    if not t.ok(r.status == 400 and any(e["field"] == field and
                                        e["rule"] == rule for e in errs),
                "400 names %s (%s)" % (field, rule)):
        t.diag(repr(r))
t.eq(len(sandbox_requests(s, mutating="true")), mut_before,
     "bad requests made no mutating AWS call")

# ---- dry run: the ordered plan, and nothing mutated
r = s.post("/api/v1/clusters?dry_run=true", body)
t.eq(r.status, 200, "dry run answers 200")
calls = (r.json or {}).get("calls", [])
ops = [c.get("operation") or c.get("kubernetes") for c in calls]
t.ok(ops[:1] == ["CreateVpc"], "plan starts with CreateVpc")
for need in ("CreateSubnet", "CreateNatGateway", "CreateCluster",
             "CreateAddon", "PutObject", "apply"):
    t.ok(need in ops, "plan includes %s" % need)
t.ok(ops.index("CreateVpc") < ops.index("CreateNatGateway") <
     [i for i, c in enumerate(calls) if c.get("service") == "sagemaker"
      and c.get("operation") == "CreateCluster"][0],
     "plan is ordered network -> EKS -> HyperPod")
waits = [(w.get("stage"), w.get("wait")) for w in
         (r.json or {}).get("waits", [])]
t.eq(waits, [("network", "NAT gateway available"),
             ("eks", "EKS cluster ACTIVE")] +
     [("dependencies", "EKS add-on ACTIVE")] * 5 +
     [("hyperpod", "HyperPod cluster InService"),
      ("verify", "HyperPod nodes Running"),
      ("verify", "Kubernetes nodes Ready")] +
     [("verify", "Helm installer Job Complete")] * 2,
     "the plan lists what the run waits for, in order")
t.eq(len([c for c in calls if c.get("kind") == "ServiceAccount" and
          c.get("name") == "slipway-helm"]), 1,
     "the Helm installer's identity is applied once")
t.eq(len(sandbox_requests(s, mutating="true")), mut_before,
     "dry run made zero mutating AWS calls")

# ---- create
r = s.post("/api/v1/clusters", body, headers={"Idempotency-Key": "demo-1"})
t.eq(r.status, 202, "create accepted")
op = r.json["operation_id"]
t.eq(r.json.get("status_tool"), "operation_wait", "names its status tool")
t.ok(r.json.get("poll_interval_seconds", 0) > 0, "suggests a poll interval")
r2 = s.post("/api/v1/clusters", body, headers={"Idempotency-Key": "demo-1"})
t.ok(r2.status == 202 and r2.json["operation_id"] == op and
     r2.json["idempotent_replay"], "same key gives the same operation")
r3 = s.post("/api/v1/clusters", body)
t.ok(r3.status == 202 and (r3.json or {}).get("operation_id") == op,
     "the same body while it runs answers the running create (%d)"
     % r3.status)
doc = wait_operation(s, op, timeout=240)
t.eq(doc.get("state"), "succeeded", "the pipeline succeeded")
if doc.get("state") != "succeeded":
    t.diag(json.dumps(doc, indent=1)[-3000:])
t.ok(all(st["state"] == "succeeded" for st in doc.get("stages", [])),
     "every stage succeeded")
t.eq([st["name"] for st in doc.get("stages", [])],
     ["network", "eks", "access", "select", "dependencies", "hyperpod",
      "storage", "verify"], "stages in order")
t.eq(doc.get("requested_by"), "test-admin", "audit: who asked")

# ---- a create under an existing cluster's name: the same body is that
# create again, another body is refused before any AWS change
mut_before = len(sandbox_requests(s, mutating="true"))
again = s.post("/api/v1/clusters", body)
t.ok(again.status in (200, 202) and (again.json or {}).get(
    "operation_id") == op, "the same body again answers the first create "
     "(%d %s)" % (again.status, (again.json or {}).get("detail")))
other = json.loads(json.dumps(body))
other["instance_groups"][0]["count"] = other["instance_groups"][0].get(
    "count", 1) + 1
r = s.post("/api/v1/clusters", other)
t.eq(r.status, 409, "another body for an existing cluster: 409")
t.ok(any(e.get("field") == "name" for e in (r.json or {}).get(
    "errors", [])) and "demo" in (r.json or {}).get("detail", ""),
     "naming the cluster and the field (%s)" % (r.json or {}).get("detail"))
r = s.post("/api/v1/clusters?dry_run=true", other)
t.eq(r.status, 409, "its dry run says so too")
t.eq(len(sandbox_requests(s, mutating="true")), mut_before,
     "and nothing was changed")

# ---- exactly one create per resource
creates = {}
for e in sandbox_requests(s, mutating="true"):
    if e["operation"].startswith("Create") or e["operation"] in (
            "AllocateAddress", "PutObject"):
        if e.get("status", 200) < 300:
            k = e["service"] + ":" + e["operation"]
            creates[k] = creates.get(k, 0) + 1
t.eq(creates.get("ec2:CreateVpc"), 1, "one CreateVpc")
t.eq(creates.get("ec2:CreateSubnet"), 5, "five subnets (2+2+compute)")
t.eq(creates.get("eks:CreateCluster"), 1, "one EKS CreateCluster")
t.eq(creates.get("sagemaker:CreateCluster"), 1, "one HyperPod CreateCluster")
t.eq(creates.get("ec2:CreateNatGateway"), 1, "one NAT gateway")

# ---- seen with the real aws CLI
rc, out = aws_cli(s, "eks", "describe-cluster", "--name", "demo")
if rc is None:
    t.skip("aws CLI not installed", 4)
else:
    t.ok(rc == 0 and out["cluster"]["status"] == "ACTIVE",
         "aws eks describe-cluster: ACTIVE")
    rc, out = aws_cli(s, "sagemaker", "describe-cluster", "--cluster-name",
                      "demo")
    t.ok(rc == 0 and out["ClusterStatus"] == "InService" and
         out.get("NodeRecovery") == "Automatic",
         "aws sagemaker describe-cluster: InService, NodeRecovery Automatic")
    rc, out = aws_cli(s, "sagemaker", "list-cluster-nodes", "--cluster-name",
                      "demo")
    t.ok(rc == 0 and len(out["ClusterNodeSummaries"]) == 2,
         "aws sagemaker list-cluster-nodes: 2 nodes")
    rc, out = aws_cli(s, "ec2", "describe-vpcs", "--filters",
                      "Name=tag:slipway:cluster,Values=demo")
    t.ok(rc == 0 and len(out["Vpcs"]) == 1, "aws ec2 describe-vpcs: our VPC")

# ---- seen with kubectl
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None:
    t.skip("kubectl not installed", 3)
else:
    st, tok = sandbox_call(s, "POST", "/_sandbox/kube-token",
                           {"cluster": "demo"})
    rc, desc = aws_cli(s, "eks", "describe-cluster", "--name", "demo")
    kdir = tempfile.mkdtemp()
    kc = os.path.join(kdir, "kubeconfig")
    with open(kc, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config",
                   "clusters": [{"name": "demo", "cluster": {
                       "server": desc["cluster"]["endpoint"],
                       "certificate-authority-data":
                       desc["cluster"]["certificateAuthority"]["data"]}}],
                   "users": [{"name": "u", "user": {"token": tok["token"]}}],
                   "contexts": [{"name": "demo", "context": {
                       "cluster": "demo", "user": "u"}}],
                   "current-context": "demo"}, f)

    def k(*a):
        return subprocess.run([kubectl, "--kubeconfig", kc, "--cache-dir",
                               os.path.join(kdir, "cache")] + list(a),
                              capture_output=True, text=True, timeout=60)
    p = k("get", "nodes", "-o", "json")
    nodes = json.loads(p.stdout)["items"] if p.returncode == 0 else []
    t.eq(len(nodes), 2, "kubectl get nodes: 2 HyperPod nodes")
    p = k("get", "pvc", "s3-claim", "-n", "default", "-o", "json")
    t.ok(p.returncode == 0 and json.loads(p.stdout)["metadata"]["name"] ==
         "s3-claim", "kubectl get pvc s3-claim")
    p = k("get", "daemonsets", "-n", "kube-system", "-o", "name")
    t.ok("nvidia-device-plugin" in p.stdout, "device plugin applied")
    shutil.rmtree(kdir, ignore_errors=True)

# ---- cluster read APIs
r = s.get("/api/v1/clusters")
t.ok(r.status == 200 and any(c["name"] == "demo" and c["managed"]
                             for c in r.json["items"]),
     "cluster_list shows demo as managed")
r = s.get("/api/v1/clusters/demo")
t.ok(r.status == 200 and r.json["hyperpod"]["status"] == "InService",
     "cluster_get shows HyperPod InService")

# ---- instance groups
r = s.post("/api/v1/clusters/demo/instance-groups",
           {"group_name": "extra", "instance_type": gtype, "count": 1})
t.eq(r.status, 202, "instance_group_add accepted")
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "instance group added")
r = s.get("/api/v1/clusters/demo/instance-groups")
names = {g["name"]: g for g in r.json.get("items", [])}
t.ok("extra" in names and "workers" in names, "both groups listed")
r = s.request("PATCH", "/api/v1/clusters/demo/instance-groups/extra",
              body={"count": 2, "instance_type": "ml.p5.48xlarge"})
t.ok(r.status == 400 and any(e["rule"] == "immutable"
                             for e in r.json.get("errors", [])),
     "changing an immutable field is refused")
r = s.request("PATCH", "/api/v1/clusters/demo/instance-groups/extra",
              body={"count": 2})
t.eq(r.status, 202, "scale accepted")
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "scaled")
r = s.get("/api/v1/clusters/demo/nodes?instance_group=extra")
t.eq(len(r.json.get("items", [])), 2, "two nodes in the scaled group")

# ---- nodes
r = s.get("/api/v1/clusters/demo/nodes")
ids = [n["node_id"] for n in r.json["items"]]
t.ok(len(ids) == 4 and all(n["status"] for n in r.json["items"]),
     "four nodes with status")
r = s.post("/api/v1/clusters/demo/nodes:reboot",
           {"node_ids": [ids[0], "i-0000000000000dead"]})
t.eq(r.status, 202, "reboot accepted")
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "reboot finished")
failed = d["stages"][0]["resources"].get("failed", [])
t.ok(any(f.get("NodeId") == "i-0000000000000dead" for f in failed),
     "the unknown node is reported as a per-node failure")
r = s.request("DELETE", "/api/v1/clusters/demo/instance-groups/extra")
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "instance group deleted")

# ---- teardown
r = s.request("DELETE", "/api/v1/clusters/demo")
t.eq(r.status, 202, "delete accepted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "teardown succeeded")
if d.get("state") != "succeeded":
    t.diag(json.dumps(d, indent=1)[-2000:])
st, state = sandbox_call(s, "GET", "/_sandbox/state")
left = json.dumps(state)
t.ok('"slipway:cluster"' not in left.replace(" ", "") or
     "demo" not in left, "nothing tagged for demo is left in the sandbox")
rc, out = aws_cli(s, "eks", "list-clusters")
if rc is not None:
    t.ok(rc == 0 and "demo" not in out.get("clusters", []),
         "aws eks list-clusters: gone")
s.stop()
t.done()
