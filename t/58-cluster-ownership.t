#!/usr/bin/python3
# 58-cluster-ownership.t: Slipway deletes only what it owns.  Two
# clusters "c2" and "c2-b" made through Slipway: deleting c2 leaves every
# resource of c2-b (its roles above all), names only what carries c2's
# recorded id, and removes c2's lifecycle/c2/ prefix from the shared
# bucket.  A cluster made with the aws CLI is refused (409, pointing at
# cluster_import) for delete and every other change; imported, a delete
# releases it (AWS keeps both clusters) and only delete_resources=true
# deletes them.
import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, aws_cli, need_clusters, sandbox_call,
                     sandbox_requests, wait_for, wait_operation)

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=2000)

r = s.get("/api/v1/instance-types?gpu_only=true")
types = {i["instance_type"]: i for i in r.json["items"]}
gtype = "ml.g5.8xlarge" if "ml.g5.8xlarge" in types else sorted(types)[0]
gaz = types[gtype]["availability_zones"][0]


def body(name):
    return {"name": name, "node_recovery": "None", "instance_groups": [
        {"name": "workers", "instance_type": gtype, "count": 1,
         "availability_zone": gaz}]}


def state():
    st, doc = sandbox_call(s, "GET", "/_sandbox/state")
    return doc if st == 200 else {}


def roles():
    return set(state().get("iam", {}).get("roles", []))


# ---- two clusters through Slipway, one's name a prefix of the other's
ops = {}
for name in ("c2", "c2-b"):
    r = s.post("/api/v1/clusters", body(name))
    t.eq(r.status, 202, "create %s accepted" % name)
    ops[name] = (r.json or {}).get("operation_id")
done = {}


def follow(name):
    done[name] = wait_operation(s, ops[name], timeout=300)


threads = [threading.Thread(target=follow, args=(n,)) for n in ops]
for th in threads:
    th.start()
for th in threads:
    th.join()
for name in ops:
    t.eq(done[name].get("state"), "succeeded", "%s created" % name)
ids = {n: done[n]["params"].get("cluster_id") for n in ops}
t.ok(all(ids.values()) and ids["c2"] != ids["c2-b"],
     "each create recorded an id of its own: %s" % ids)
r = s.get("/api/v1/clusters")
listed = {c["name"]: c for c in (r.json or {}).get("items", [])}
t.ok(all(listed.get(n, {}).get("managed") and
         listed[n].get("origin") == "created" for n in ops),
     "both listed as managed, created by Slipway")

b_roles = {x for x in roles() if x.startswith("slipway-c2-b-")}
t.ok({"slipway-c2-b-eks-role", "slipway-c2-b-hp-exec"} <= b_roles,
     "c2-b has its cluster and execution roles")
rc, acct = aws_cli(s, "sts", "get-caller-identity")
bucket = "sagemaker-slipway-%s-%s" % ((acct or {}).get("Account"),
                                       s.config().get("region", "us-west-2"))


def objects(prefix):
    rc, out = aws_cli(s, "s3api", "list-objects-v2", "--bucket", bucket,
                      "--prefix", prefix)
    if rc is None:
        return None
    return [o["Key"] for o in (out or {}).get("Contents", [])] \
        if rc == 0 else "error: %s" % out


if objects("lifecycle/") is not None:
    t.ok(objects("lifecycle/c2/") and objects("lifecycle/c2-b/"),
         "both clusters have lifecycle scripts in the shared bucket")

# ---- dry run of deleting c2: nothing of c2-b in the plan
r = s.request("DELETE", "/api/v1/clusters/c2?dry_run=true")
t.eq(r.status, 200, "dry run of delete c2")
plan = json.dumps((r.json or {}).get("calls", []))
t.ok("c2-b" not in plan, "the plan names nothing of c2-b")
calls = [(c.get("operation"), json.dumps(c.get("input")))
         for c in (r.json or {}).get("calls", [])]
t.ok(("DeleteRole", json.dumps({"RoleName": "slipway-c2-eks-role"}))
     in calls, "the plan deletes c2's cluster role")
t.ok(any(op == "DeleteObject" and "lifecycle/c2/" in i for op, i in calls),
     "the plan deletes c2's lifecycle scripts")

# ---- delete c2: c2-b untouched
since = max([e.get("seq", 0) for e in sandbox_requests(s)] or [0])
r = s.request("DELETE", "/api/v1/clusters/c2")
t.eq(r.status, 202, "delete c2 accepted")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "teardown of c2 succeeded")
if d.get("state") != "succeeded":
    t.diag(json.dumps(d, indent=1)[-2000:])
muts = [e for e in sandbox_requests(s, since=since) if e.get("mutating")]
t.ok(muts, "the teardown made mutating calls")
bad = [e for e in muts if "c2-b" in json.dumps(e.get("params"))]
if not t.ok(not bad, "no mutating request of the teardown names c2-b"):
    t.diag(json.dumps(bad)[:2000])
after = state()
t.eq({x for x in after.get("iam", {}).get("roles", [])
      if x.startswith("slipway-c2-b-")}, b_roles, "c2-b's roles all kept")
t.ok(not [x for x in after.get("iam", {}).get("roles", [])
          if x.startswith("slipway-c2-") and
          not x.startswith("slipway-c2-b-")], "c2's roles are gone")
t.eq(after.get("eks", {}).get("clusters", {}).get("c2-b"), "ACTIVE",
     "c2-b's EKS cluster is ACTIVE")
t.ok("c2" not in after.get("eks", {}).get("clusters", {}),
     "c2's EKS cluster is gone")
r = s.get("/api/v1/clusters/c2-b")
t.ok(r.status == 200 and (r.json.get("hyperpod") or {}).get("status") ==
     "InService", "c2-b's HyperPod cluster is InService")
# every resource id a teardown request named was tagged with c2's id
rc, vpcs = aws_cli(s, "ec2", "describe-vpcs", "--filters",
                   "Name=tag:slipway:cluster-id,Values=" + ids["c2-b"])
b_vpc = [v["VpcId"] for v in (vpcs or {}).get("Vpcs", [])] if rc == 0 else []
t.ok(rc is None or (len(b_vpc) == 1 and
                    not [e for e in muts if b_vpc[0] in json.dumps(e.get("params"))]),
     "c2-b's VPC (found by its id tag) is named by no teardown request")
if objects("lifecycle/") is not None:
    t.eq(objects("lifecycle/c2/"), [], "lifecycle/c2/ is gone from the "
         "shared bucket")
    t.ok(objects("lifecycle/c2-b/"), "lifecycle/c2-b/ is kept")
r = s.get("/api/v1/clusters")
t.ok("c2" not in {c["name"] for c in (r.json or {}).get("items", [])},
     "c2 is no longer listed")
r = s.request("DELETE", "/api/v1/clusters/c2")
t.eq(r.status, 404, "a second delete of c2: no such cluster")

# ---- a cluster made with the aws CLI is not Slipway's
rc, _ = aws_cli(s, "sts", "get-caller-identity")
if rc is None:
    t.skip("aws CLI not installed", 12)
    s.stop()
    t.done()
    sys.exit(0)
rc, out = aws_cli(s, "ec2", "create-vpc", "--cidr-block", "10.200.0.0/16")
vpc = out["Vpc"]["VpcId"]
zones = [z["name"] for z in s.get("/api/v1/availability-zones").json["items"]]
subnets = []
for i, az in enumerate(zones[:2]):
    rc, out = aws_cli(s, "ec2", "create-subnet", "--vpc-id", vpc,
                      "--cidr-block", "10.200.%d.0/24" % i,
                      "--availability-zone", az)
    subnets.append(out["Subnet"]["SubnetId"])
rc, out = aws_cli(s, "ec2", "create-security-group", "--group-name", "cli",
                  "--description", "cli", "--vpc-id", vpc)
sg = out["GroupId"]
doc = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Service": [
        "eks.amazonaws.com", "sagemaker.amazonaws.com"]},
    "Action": "sts:AssumeRole"}]})
rc, out = aws_cli(s, "iam", "create-role", "--role-name", "cli-role",
                  "--assume-role-policy-document", doc)
role = out["Role"]["Arn"]
rc, out = aws_cli(s, "eks", "create-cluster", "--name", "cli1",
                  "--role-arn", role, "--resources-vpc-config",
                  "subnetIds=%s,securityGroupIds=%s" % (",".join(subnets),
                                                        sg))
t.eq(rc, 0, "aws eks create-cluster cli1")


def eks_status(name):
    rc, out = aws_cli(s, "eks", "describe-cluster", "--name", name)
    return (out or {}).get("cluster", {}).get("status") if rc == 0 else None


def hp_status(name):
    rc, out = aws_cli(s, "sagemaker", "describe-cluster", "--cluster-name",
                      name)
    return (out or {}).get("ClusterStatus") if rc == 0 else None


t.ok(wait_for(lambda: eks_status("cli1") == "ACTIVE", timeout=120),
     "cli1 EKS ACTIVE")
rc, out = aws_cli(s, "eks", "describe-cluster", "--name", "cli1")
eks_arn = out["cluster"]["arn"]
rc, out = aws_cli(s, "sagemaker", "create-cluster", "--cluster-name", "cli1",
                  "--orchestrator", json.dumps({"Eks": {
                      "ClusterArn": eks_arn}}),
                  "--vpc-config", json.dumps({"SecurityGroupIds": [sg],
                                              "Subnets": subnets[:1]}),
                  "--node-recovery", "None",
                  "--instance-groups", json.dumps([{
                      "InstanceGroupName": "w", "InstanceType": gtype,
                      "InstanceCount": 1, "ExecutionRole": role,
                      "LifeCycleConfig": {
                          "SourceS3Uri": "s3://%s/cli/" % bucket,
                          "OnCreate": "on_create.sh"}}]))
t.eq(rc, 0, "aws sagemaker create-cluster cli1")
t.ok(wait_for(lambda: hp_status("cli1") == "InService", timeout=120),
     "cli1 HyperPod InService")

seq0 = max([e.get("seq", 0) for e in sandbox_requests(s)] or [0])
r = s.request("DELETE", "/api/v1/clusters/cli1")
t.eq(r.status, 409, "delete of a CLI-made cluster: 409")
t.ok("cluster_import" in (r.json or {}).get("detail", "") and
     any(e.get("field") == "name" and e.get("rule") == "owned"
         for e in (r.json or {}).get("errors", [])),
     "the problem names what is not Slipway's and how to import it")
r = s.request("PATCH", "/api/v1/clusters/cli1/instance-groups/w",
              {"count": 2})
t.eq(r.status, 409, "scaling a CLI-made cluster: 409")
r = s.post("/api/v1/clusters/cli1:update-software", {})
t.eq(r.status, 409, "a software update of a CLI-made cluster: 409")
r = s.post("/api/v1/clusters/cli1/compute-quotas", {
    "quota_name": "q", "team": "t", "instance_type": gtype, "count": 1})
t.eq(r.status, 409, "a compute quota on a CLI-made cluster: 409")
r = s.request("PUT", "/api/v1/clusters/cli1/scheduler-config", {
    "priority_classes": [{"name": "high", "weight": 90}]})
t.eq(r.status, 409, "its scheduler config: 409")
t.ok("cluster_import" in (r.json or {}).get("detail", ""),
     "... by the same rule, naming cluster_import")
t.eq([e for e in sandbox_requests(s, since=seq0) if e.get("mutating")], [],
     "the refusals changed nothing in AWS")

# ---- imported: delete releases it; delete_resources deletes it
r = s.post("/api/v1/clusters/cli1:import")
t.eq(r.status, 200, "import cli1")
r = s.request("DELETE", "/api/v1/clusters/cli1?dry_run=true")
t.ok(r.status == 200 and r.json.get("kind") == "cluster.release" and
     not [c for c in r.json.get("calls", []) if c.get("service") in
          ("eks", "sagemaker")], "the plan of a plain delete: release, "
     "no AWS deletes")
r = s.request("DELETE", "/api/v1/clusters/cli1")
t.eq(r.status, 202, "delete of the imported cluster accepted")
d = wait_operation(s, r.json["operation_id"])
t.eq((d.get("kind"), d.get("state")), ("cluster.release", "succeeded"),
     "it was released")
t.ok(eks_status("cli1") == "ACTIVE" and hp_status("cli1") == "InService",
     "AWS still has both clusters")
r = s.get("/api/v1/clusters")
t.ok({c["name"]: c["managed"] for c in r.json["items"]}.get("cli1") is False,
     "Slipway forgot it (managed: false)")
r = s.request("DELETE", "/api/v1/clusters/cli1")
t.eq(r.status, 409, "released, it is refused again")

r = s.post("/api/v1/clusters/cli1:import")
t.eq(r.status, 200, "import cli1 again")
r = s.request("DELETE", "/api/v1/clusters/cli1?delete_resources=true"
              "&dry_run=true")
deletes = [(c.get("service"), c.get("operation"))
           for c in (r.json or {}).get("calls", [])]
t.ok(r.status == 200 and ("sagemaker", "DeleteCluster") in deletes and
     ("eks", "DeleteCluster") in deletes and
     not [x for x in deletes if x[1] == "DeleteRole"],
     "the plan with delete_resources deletes both clusters, no role")
r = s.request("DELETE", "/api/v1/clusters/cli1?delete_resources=true")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "deleted with delete_resources")
t.ok(eks_status("cli1") is None and hp_status("cli1") is None,
     "both clusters are gone")
t.ok("cli-role" in roles(), "the imported cluster's role is kept")

s.stop()
t.done()
