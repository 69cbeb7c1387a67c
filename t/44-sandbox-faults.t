#!/usr/bin/python3
"""Fault injection: throttling and 5xx in each protocol's shape, latency, dropped
connections, insufficient capacity, failing nodes with NodeRecovery Automatic vs
None, quotas, Kubernetes throttling, and the control token."""
import http.client
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600, args=["--seed", "7"])

st, out = sb.control("GET", "/faults", token=False)
t.eq(st, 401, "control endpoint needs X-Sandbox-Token")
st, out = sb.raw("GET", "/_sandbox/faults", {"X-Sandbox-Token": "wrong"}).status, None
t.eq(st, 403, "wrong control token -> 403")

sb.control("POST", "/faults", {"throttle": {"*": 1.0}})
r = sb.aws_query("ec2", {"Action": "DescribeVpcs"})
t.eq((r.status, "<Code>RequestLimitExceeded</Code>" in r.text), (503, True), "ec2 throttled -> RequestLimitExceeded")
r = sb.aws_query("iam", {"Action": "ListRoles"})
t.ok("<Code>Throttling</Code>" in r.text and "<ErrorResponse" in r.text, "iam throttled -> Throttling")
r = sb.aws_query("sts", {"Action": "GetCallerIdentity"})
t.ok("<Code>Throttling</Code>" in r.text, "sts throttled -> Throttling")
r = sb.aws_json("sagemaker", "ListClusters", {})
t.eq((r.status, r.json().get("__type")), (400, "ThrottlingException"), "sagemaker throttled -> ThrottlingException")
r = sb.aws_rest("eks", "GET", "/clusters")
t.eq((r.status, r.headers.get("x-amzn-errortype")), (429, "ThrottlingException"), "eks throttled -> 429 ThrottlingException")
r = sb.signed("GET", "/", "s3", b"", s3=True)
t.ok(r.status == 503 and "<Code>SlowDown</Code>" in r.text, "s3 throttled -> SlowDown")
sb.control("DELETE", "/faults")

sb.control("POST", "/faults", {"error_5xx": {"sagemaker": 1.0}})
r = sb.aws_json("sagemaker", "ListClusters", {})
t.eq((r.status, r.json().get("__type")), (500, "InternalFailure"), "sagemaker 5xx -> InternalFailure")
r = sb.aws_rest("eks", "GET", "/clusters")
t.eq(r.status, 200, "5xx rate for one service leaves the others alone")
sb.control("DELETE", "/faults")

sb.control("POST", "/faults", {"rules": [{"service": "ec2", "operation": "CreateVpc", "fault": "throttle", "count": 2}]})
codes = [sb.aws_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.9.0.0/16"}).status for _ in range(3)]
t.eq(codes, [503, 503, 200], "one-shot rule throttles exactly twice")

sb.control("POST", "/faults", {"latency_ms": {"sts": 300}})
t0 = time.time()
sb.aws_query("sts", {"Action": "GetCallerIdentity"})
t.ok(time.time() - t0 >= 0.3, "latency added (%.2fs)" % (time.time() - t0))
sb.control("DELETE", "/faults")

sb.control("POST", "/faults", {"drop": {"sts": 1.0}})
try:
    r = sb.aws_query("sts", {"Action": "GetCallerIdentity"})
    dropped = False
except (http.client.HTTPException, ConnectionError, OSError):
    dropped = True
t.ok(dropped, "dropped connection: no HTTP response")
sb.control("DELETE", "/faults")
t.eq(sb.aws_query("sts", {"Action": "GetCallerIdentity"}).status, 200, "clearing faults restores service")

# --- capacity, quotas, failing nodes --------------------------------------------------
net = sb.network()
eks = sb.eks_cluster("f", net)
sb.control("POST", "/faults", {"insufficient_capacity": ["ml.p5.48xlarge"]})
d = sb.hyperpod("ice", eks["arn"], net, [("gpu", "ml.p5.48xlarge", 2)])
t.eq(d["ClusterStatus"], "Failed", "insufficient capacity: HyperPod cluster goes Failed")
t.ok("insufficient capacity" in d.get("FailureMessage", "").lower() or
     "sufficient capacity" in d.get("FailureMessage", ""), "FailureMessage mentions capacity: %s" % d.get("FailureMessage"))
sb.ok_json("sagemaker", "DeleteCluster", {"ClusterName": "ice"})
sb.control("POST", "/faults", {"insufficient_capacity": []})

st, q = sb.control("POST", "/quotas", {"ml.g5.8xlarge": 2})
t.eq(q.get("ml.g5.8xlarge for cluster usage"), 2, "quota set through the control endpoint")
code = [x for x in [sb.ok_json("servicequotas", "ListServiceQuotas", {"ServiceCode": "sagemaker"})] for x in x["Quotas"]
        if x["QuotaName"] == "ml.g5.8xlarge for cluster usage"][0]["QuotaCode"]
got = sb.ok_json("servicequotas", "GetServiceQuota", {"ServiceCode": "sagemaker", "QuotaCode": code})["Quota"]
t.eq((got["QuotaName"], got["Value"]), ("ml.g5.8xlarge for cluster usage", 2.0), "GetServiceQuota sees the value")
r = sb.aws_json("sagemaker", "CreateCluster", {
    "ClusterName": "big", "Orchestrator": {"Eks": {"ClusterArn": eks["arn"]}},
    "VpcConfig": {"SecurityGroupIds": [net["sg"]], "Subnets": net["subnets"][:1]},
    "InstanceGroups": [{"InstanceGroupName": "g", "InstanceType": "ml.g5.8xlarge", "InstanceCount": 3,
                        "ExecutionRole": net["role"]}]})
t.ok(r.json().get("__type") == "ResourceLimitExceeded" and "ml.g5.8xlarge for cluster usage" in r.json().get("Message", ""),
     "over quota -> ResourceLimitExceeded naming the quota")

for name, recovery in (("auto", "Automatic"), ("manual", "None")):
    sb.hyperpod(name, eks["arn"], net, [("g", "ml.g5.8xlarge", 1)], recovery=recovery)
auto_node = sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "auto"})["ClusterNodeSummaries"][0]["InstanceId"]
man_node = sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "manual"})["ClusterNodeSummaries"][0]["InstanceId"]
st, _ = sb.control("POST", "/fail-node", {"cluster": "auto", "node_id": auto_node})
st2, _ = sb.control("POST", "/faults", {"fail_nodes": [{"cluster": "manual", "node_id": man_node}]})
t.eq((st, st2), (200, 200), "nodes failed through the control endpoint")
kube = sb.kube("f", sb.kube_token("f")["token"])
n = kube.req("GET", "/api/v1/nodes/hyperpod-" + man_node)
wait_for(lambda: kube.req("GET", "/api/v1/nodes/hyperpod-" + man_node).json()["metadata"]["labels"]
         ["sagemaker.amazonaws.com/node-health-status"] == "UnschedulablePendingReplacement", timeout=2)
n = kube.req("GET", "/api/v1/nodes/hyperpod-" + man_node).json()
t.eq(n["metadata"]["labels"]["sagemaker.amazonaws.com/node-health-status"], "UnschedulablePendingReplacement",
     "failed node labelled UnschedulablePendingReplacement")
t.ok(any(c["type"] == "Ready" and c["status"] == "False" for c in n["status"]["conditions"]), "failed node NotReady")
replaced = wait_for(lambda: auto_node not in [x["InstanceId"] for x in sb.ok_json(
    "sagemaker", "ListClusterNodes", {"ClusterName": "auto"})["ClusterNodeSummaries"]], timeout=4)
t.ok(replaced, "NodeRecovery Automatic: failed node replaced")
t.ok(wait_for(lambda: [x["InstanceStatus"]["Status"] for x in sb.ok_json(
    "sagemaker", "ListClusterNodes", {"ClusterName": "auto"})["ClusterNodeSummaries"]] == ["Running"], timeout=60),
    "replacement node Running")
time.sleep(0.5)
st = [x["InstanceStatus"]["Status"] for x in sb.ok_json("sagemaker", "ListClusterNodes",
                                                         {"ClusterName": "manual"})["ClusterNodeSummaries"]]
t.eq(st, ["Failure"], "NodeRecovery None: node left in Failure")
groups = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "manual"})["InstanceGroups"]
t.eq(groups[0]["Status"], "Degraded", "instance group Degraded while a node has failed")

sb.control("POST", "/faults", {"throttle": {"kubernetes": 1.0}})
r = kube.req("GET", "/api/v1/nodes")
t.eq((r.status, r.json().get("reason"), r.headers.get("retry-after")), (429, "TooManyRequests", "1"),
     "Kubernetes throttling -> 429 TooManyRequests Status with Retry-After")
sb.control("DELETE", "/faults")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
