#!/usr/bin/python3
"""Restart persistence: credentials, resources, in-progress state machines,
Kubernetes objects and the API server endpoint survive a SIGTERM + restart;
a sandbox killed in the middle of a request keeps all of it or none."""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
creds = sb.creds
net = sb.network()
eks = sb.eks_cluster("persist", net)
tok = sb.kube_token("persist")["token"]
kube = sb.kube("persist", tok)
r = kube.req("POST", "/api/v1/namespaces/default/configmaps",
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keep"}, "data": {"k": "v"}})
t.eq(r.status, 201, "configmap created before restart")
old_endpoint = eks["endpoint"]
# slow the world down so the next cluster is still CREATING when we stop
t.eq(sb.stop(), 0, "first sandbox exits 0")
t.ok(not os.path.exists(os.path.join(sb.state, "sandbox.json")), "sandbox.json removed on clean exit")

sb.speed = 60
sb.start()
t.eq(sb.creds, creds, "credentials persist in the state dir")
t.ok(sb.info["kubernetes"].get("persist") == old_endpoint, "kubernetes map lists the cluster at the same endpoint")
c = sb.ok_rest("eks", "GET", "/clusters/persist")["cluster"]
t.eq((c["status"], c["endpoint"]), ("ACTIVE", old_endpoint), "EKS cluster still ACTIVE at its endpoint")
kube = sb.kube("persist", tok)
r = kube.req("GET", "/api/v1/namespaces/default/configmaps/keep")
t.eq((r.status, r.json().get("data")), (200, {"k": "v"}), "Kubernetes objects and static token survive restart")

sb.ok_rest("eks", "POST", "/clusters", {"name": "later", "roleArn": net["role"],
                                        "resourcesVpcConfig": {"subnetIds": net["subnets"]}})
created = time.time()
t.eq(sb.ok_rest("eks", "GET", "/clusters/later")["cluster"]["status"], "CREATING", "second cluster CREATING")
t.eq(sb.stop(), 0, "second sandbox exits 0")
time.sleep(0.3)
sb.speed = 600
sb.start()
t.eq(sb.ok_rest("eks", "GET", "/clusters/later")["cluster"]["status"], "CREATING",
     "in-progress cluster still CREATING after restart (timestamps, not threads)")
remaining = created + 720 / 60.0 - time.time()
t.ok(remaining > 0, "its due time (set at speed 60) is still ahead: %.1fs" % remaining)
sb.control("POST", "/advance", {"seconds": 7200})  # 12 s of real time at speed 600
c = sb.ok_rest("eks", "GET", "/clusters/later")["cluster"]
t.eq(c["status"], "ACTIVE", "time travel via /_sandbox/advance completes it")
sb.refresh()
t.ok(wait_for(lambda: "later" in sb.refresh()["kubernetes"], timeout=60), "sandbox.json kubernetes map refreshed")

# Killed in the middle of a request: what it did and its log entry are
# kept together or not at all.  "crash" kills the sandbox after the
# request's work and before its commit; "crash_after" after the commit,
# before the answer.  Either way the client sees no answer.
def vpcs_with(cidr):
    """VPCs whose primary CIDR block is cidr (DescribeVpcs)."""
    text = sb.ok_query("ec2", {"Action": "DescribeVpcs"})
    return re.findall(r"<state>[a-z]+</state><cidrBlock>%s</cidrBlock>" %
                      re.escape(cidr), text)


for fault, cidr, kept in (("crash", "10.41.0.0/16", False),
                          ("crash_after", "10.42.0.0/16", True)):
    sb.control("POST", "/faults", {"rules": [{"fault": fault, "service": "ec2",
                                              "operation": "CreateVpc"}]})
    try:
        r = sb.aws_query("ec2", {"Action": "CreateVpc", "CidrBlock": cidr})
        answered = r.status
    except OSError:
        answered = None
    t.eq(answered, None, "%s: CreateVpc got no answer" % fault)
    sb.proc.wait(timeout=10)
    sb.proc = None
    sb.start()
    t.eq(len(vpcs_with(cidr)), 1 if kept else 0,
         "%s: the VPC is %s after the restart" % (fault, "there" if kept else "not there"))
    logged = [e for e in sb.requests(service="ec2", operation="CreateVpc")
              if e["params"].get("CidrBlock") == cidr]
    t.eq([e["status"] for e in logged], [200] if kept else [],
         "%s: the request log agrees" % fault)
    with open(os.path.join(sb.state, "requests.jsonl")) as f:
        lines = [json.loads(x) for x in f]
    t.eq(len([e for e in lines if e["params"].get("CidrBlock") == cidr]), 1 if kept else 0,
         "%s: so does requests.jsonl" % fault)
    t.eq(len({e["seq"] for e in lines}), len(lines), "%s: no seq twice in requests.jsonl" % fault)

# "error_after": the change is made and committed, the answer is a 500.
sb.control("POST", "/faults", {"rules": [{"fault": "error_after", "service": "ec2",
                                          "operation": "CreateVpc"}]})
r = sb.aws_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.43.0.0/16"})
t.eq(r.status, 500, "error_after: CreateVpc answered 500")
t.eq(len(vpcs_with("10.43.0.0/16")), 1, "error_after: and the VPC was made")
logged = [e for e in sb.requests(service="ec2", operation="CreateVpc")
          if e["params"].get("CidrBlock") == "10.43.0.0/16"]
t.eq([(e["status"], e.get("fault")) for e in logged], [(200, "error_after")],
     "error_after: the log says it worked, and which fault answered")

sb.control("POST", "/reset")
st = sb.dump()
t.eq((st["eks"]["clusters"], st["kubernetes"]), ({}, {}), "POST /_sandbox/reset forgets every resource")
t.eq(sb.creds, creds, "credentials survive reset")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
