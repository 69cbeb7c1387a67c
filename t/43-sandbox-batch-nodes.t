#!/usr/bin/python3
"""BatchAddClusterNodes and BatchDeleteClusterNodes as SageMaker answers
them: Continuous node provisioning only; at most 5 groups and 50 nodes a
call; a ClientToken kept 8 hours (the same token and input answers the
same NodeLogicalIds with their latest status and adds nothing, the same
token with another input is refused); the added nodes' NodeLogicalIds in
ListClusterNodes (IncludeNodeLogicalIds) and DescribeClusterNode; a group
created at 0 nodes; BatchDeleteClusterNodes by NodeLogicalId and its
limit of 50 identifiers."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=3000)
net = sb.network()
eks = sb.eks_cluster("bn", net)
sb.control("POST", "/quotas", {"ml.m5.xlarge": 200})


def create(name, mode, groups):
    p = {"ClusterName": name, "Orchestrator": {"Eks": {"ClusterArn": eks["arn"]}},
         "VpcConfig": {"SecurityGroupIds": [net["sg"]], "Subnets": net["subnets"][:1]},
         "InstanceGroups": [{"InstanceGroupName": g, "InstanceType": "ml.m5.xlarge", "InstanceCount": n,
                             "ExecutionRole": net["role"]} for g, n in groups]}
    if mode:
        p["NodeProvisioningMode"] = mode
    sb.ok_json("sagemaker", "CreateCluster", p)
    t.ok(wait_for(lambda: sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": name})["ClusterStatus"]
                  == "InService", timeout=60), "cluster %s InService" % name)


def err(op, params):
    r = sb.aws_json("sagemaker", op, params)
    return r.status, r.json().get("__type"), r.json().get("Message") or r.json().get("message") or ""


def add(name, nodes, token=None):
    p = {"ClusterName": name, "NodesToAdd": [{"InstanceGroupName": g, "IncrementTargetCountBy": n}
                                             for g, n in nodes]}
    if token is not None:
        p["ClientToken"] = token
    return sb.ok_json("sagemaker", "BatchAddClusterNodes", p)


def nodes(name):
    return sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": name, "IncludeNodeLogicalIds": True,
                                                        "MaxResults": 100})["ClusterNodeSummaries"]


def target(name, group):
    d = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": name})
    return next(g["TargetCount"] for g in d["InstanceGroups"] if g["InstanceGroupName"] == group)


# --- only for Continuous node provisioning ------------------------------------------------
create("plain", None, [("w", 1)])
st, code, msg = err("BatchAddClusterNodes", {"ClusterName": "plain", "NodesToAdd": [
    {"InstanceGroupName": "w", "IncrementTargetCountBy": 1}]})
t.eq((st, code), (400, "ValidationException"), "BatchAddClusterNodes without Continuous mode is refused")
t.ok("Continuous" in msg, "the refusal names Continuous: %s" % msg)
t.eq(target("plain", "w"), 1, "and adds nothing")

# --- a group at 0 nodes, then adds ------------------------------------------------------
create("cont", "Continuous", [("a", 1), ("zero", 0)])
t.eq(target("cont", "zero"), 0, "an instance group created at 0 nodes")
out = add("cont", [("zero", 2), ("a", 1)], token="scale-1")
ids = sorted(n["NodeLogicalId"] for n in out["Successful"])
t.eq((len(ids), out["Failed"], {n["Status"] for n in out["Successful"]}), (3, [], {"Pending"}),
     "BatchAddClusterNodes answers one Pending NodeLogicalId a node")
t.eq((target("cont", "zero"), target("cont", "a")), (2, 2), "the target counts grew by the increments")
listed = {n.get("NodeLogicalId") for n in nodes("cont")}
t.ok(set(ids) <= listed, "ListClusterNodes with IncludeNodeLogicalIds lists them")
d = sb.ok_json("sagemaker", "DescribeClusterNode", {"ClusterName": "cont", "NodeLogicalId": ids[0]})
t.eq(d["NodeDetails"]["NodeLogicalId"], ids[0], "DescribeClusterNode finds a node by its NodeLogicalId")

# --- the ClientToken ---------------------------------------------------------------------
again = add("cont", [("zero", 2), ("a", 1)], token="scale-1")
t.eq(sorted(n["NodeLogicalId"] for n in again["Successful"]), ids,
     "the same token and input answers the same NodeLogicalIds")
t.eq((target("cont", "zero"), target("cont", "a"), len(nodes("cont"))), (2, 2, 4), "and adds nothing")
t.ok(wait_for(lambda: all(n["InstanceStatus"]["Status"] == "Running" for n in nodes("cont")), timeout=60),
     "the added nodes reach Running")
late = add("cont", [("zero", 2), ("a", 1)], token="scale-1")
t.eq({n["Status"] for n in late["Successful"]}, {"Running"}, "a repeat answers the nodes' latest status")
st, code, msg = err("BatchAddClusterNodes", {"ClusterName": "cont", "ClientToken": "scale-1", "NodesToAdd": [
    {"InstanceGroupName": "zero", "IncrementTargetCountBy": 3}]})
t.eq((st, code), (400, "ValidationException"), "the same token with another input is refused")
t.eq(len(nodes("cont")), 4, "and adds nothing")
add("cont", [("zero", 1)], token="scale-2")
t.eq(target("cont", "zero"), 3, "a new token adds again")
add("cont", [("zero", 1)])
t.eq(target("cont", "zero"), 4, "no token: every call adds")

# --- limits ------------------------------------------------------------------------------
st, code, msg = err("BatchAddClusterNodes", {"ClusterName": "cont", "NodesToAdd": [
    {"InstanceGroupName": "zero", "IncrementTargetCountBy": 30},
    {"InstanceGroupName": "a", "IncrementTargetCountBy": 21}]})
t.eq((st, code), (400, "ValidationException"), "51 nodes in one call are refused")
t.ok("50" in msg, "naming the limit of 50: %s" % msg)
st, code, msg = err("BatchAddClusterNodes", {"ClusterName": "cont", "NodesToAdd": [
    {"InstanceGroupName": "g%d" % i, "IncrementTargetCountBy": 1} for i in range(6)]})
t.eq((st, code), (400, "ValidationException"), "6 instance groups in one call are refused")
st, code, msg = err("BatchAddClusterNodes", {"ClusterName": "cont", "ClientToken": "x" * 65, "NodesToAdd": [
    {"InstanceGroupName": "a", "IncrementTargetCountBy": 1}]})
t.eq((st, code), (400, "ValidationException"), "a ClientToken over 64 characters is refused")
t.eq(target("cont", "zero") + target("cont", "a"), 6, "refused calls add nothing")
out = add("cont", [("nope", 2)], token="scale-3")
t.eq([(f["InstanceGroupName"], f["ErrorCode"], f["FailedCount"]) for f in out["Failed"]],
     [("nope", "InstanceGroupNotFound", 2)], "an unknown group is a Failed entry")
out = add("cont", [("zero", 50)], token="scale-4")
t.eq(len(out["Successful"]), 50, "50 nodes in one call are accepted")

# --- BatchDeleteClusterNodes by NodeLogicalId ------------------------------------------
gone = ids[0]
out = sb.ok_json("sagemaker", "BatchDeleteClusterNodes", {"ClusterName": "cont", "NodeLogicalIds": [gone]})
t.eq((out.get("SuccessfulNodeLogicalIds"), out.get("FailedNodeLogicalIds")), ([gone], []),
     "BatchDeleteClusterNodes by NodeLogicalId")
t.ok(wait_for(lambda: gone not in {n.get("NodeLogicalId") for n in nodes("cont")}, timeout=60),
     "the deleted node leaves ListClusterNodes")
st, code, msg = err("BatchDeleteClusterNodes", {"ClusterName": "cont",
                                                 "NodeLogicalIds": ["n%d" % i for i in range(51)]})
t.eq((st, code), (400, "ValidationException"), "more than 50 identifiers in one delete are refused")
st, code, msg = err("BatchDeleteClusterNodes", {"ClusterName": "cont"})
t.eq((st, code), (400, "ValidationException"), "a delete naming no node is refused")
t.done()
