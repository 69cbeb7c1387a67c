#!/usr/bin/python3
"""State machines with time compression: EKS, add-ons, HyperPod (create, scale,
batch node ops, software update, delete), NAT gateway, FSx, training plans;
and that nothing is left behind in /_sandbox/state after deletes."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()

# --- EKS: CREATING -> ACTIVE in 8-12 sandbox minutes ---------------------------------------
sb.ok_rest("eks", "POST", "/clusters", {"name": "sm", "roleArn": net["role"],
                                        "resourcesVpcConfig": {"subnetIds": net["subnets"]}})
c = sb.ok_rest("eks", "GET", "/clusters/sm")["cluster"]
t.eq((c["status"], c.get("endpoint"), c["certificateAuthority"]), ("CREATING", None, {}),
     "EKS CreateCluster starts CREATING without endpoint or CA")
# The switch happened after the last request that still saw CREATING was
# sent and before the first answer that said ACTIVE came back: both ends,
# from the cluster's own createdAt, must fit 8-12 minutes however slowly a
# busy machine polls (wall time around the calls measured the machine).
last_creating, first_active = c["createdAt"], None
deadline = time.time() + 4
while time.time() < deadline:
    sent = time.time()
    status = sb.ok_rest("eks", "GET", "/clusters/sm")["cluster"]["status"]
    if status == "ACTIVE":
        first_active = time.time()
        break
    last_creating = sent
    time.sleep(0.05)
lo = (last_creating - c["createdAt"]) * 600
hi = ((first_active or time.time()) - c["createdAt"]) * 600
t.ok(first_active is not None and lo <= 720 and hi >= 480,
     "EKS ACTIVE between %.0f and %.0f sandbox seconds (8-12 min)" % (lo, hi))
r = sb.aws_rest("eks", "DELETE", "/clusters/nope")
t.eq((r.status, r.headers.get("x-amzn-errortype")), (404, "ResourceNotFoundException"), "DeleteCluster unknown -> 404")
r = sb.aws_rest("eks", "POST", "/clusters", {"name": "sm", "roleArn": net["role"],
                                             "resourcesVpcConfig": {"subnetIds": net["subnets"]}})
t.eq((r.status, r.headers.get("x-amzn-errortype")), (409, "ResourceInUseException"), "duplicate CreateCluster -> 409")
eks = sb.ok_rest("eks", "GET", "/clusters/sm")["cluster"]
entries = sb.ok_rest("eks", "GET", "/clusters/sm/access-entries")["accessEntries"]
t.eq(entries, ["arn:aws:iam::123456789012:user/slipway-sandbox"], "cluster creator got an access entry")

a = sb.ok_rest("eks", "POST", "/clusters/sm/addons", {"addonName": "amazon-sagemaker-hyperpod-inference"})["addon"]
t.eq(a["status"], "CREATING", "CreateAddon starts CREATING")
t.ok(wait_for(lambda: sb.ok_rest("eks", "GET", "/clusters/sm/addons/amazon-sagemaker-hyperpod-inference")
              ["addon"]["status"] == "ACTIVE", timeout=60), "add-on becomes ACTIVE")
t.eq(sb.ok_rest("eks", "GET", "/clusters/sm/addons")["addons"], ["amazon-sagemaker-hyperpod-inference"], "ListAddons")
r = sb.aws_rest("eks", "POST", "/clusters/sm/addons", {"addonName": "no-such-addon"})
t.eq(r.headers.get("x-amzn-errortype"), "InvalidParameterException", "unknown add-on -> InvalidParameterException")

# --- HyperPod: create ---------------------------------------------------------------
sb.ok_json("sagemaker", "CreateCluster", {
    "ClusterName": "hp", "Orchestrator": {"Eks": {"ClusterArn": eks["arn"]}},
    "VpcConfig": {"SecurityGroupIds": [net["sg"]], "Subnets": net["subnets"][:1]},
    "InstanceGroups": [{"InstanceGroupName": "gpu", "InstanceType": "ml.g5.12xlarge", "InstanceCount": 2,
                        "ExecutionRole": net["role"], "OnStartDeepHealthChecks": ["InstanceStress"]},
                       {"InstanceGroupName": "cpu", "InstanceType": "ml.m5.xlarge", "InstanceCount": 1,
                        "ExecutionRole": net["role"]}]})
d = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})
nodes = sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "hp"})["ClusterNodeSummaries"]
t.eq((d["ClusterStatus"], len(nodes), {n["InstanceStatus"]["Status"] for n in nodes}), ("Creating", 3, {"Pending"}),
     "HyperPod starts Creating with Pending nodes")
seen = set()


def progressed():
    for n in sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "hp"})["ClusterNodeSummaries"]:
        seen.add(n["InstanceStatus"]["Status"])
    return sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})["ClusterStatus"] == "InService"


t.ok(wait_for(progressed, timeout=6, interval=0.02), "HyperPod reaches InService")
t.ok("DeepHealthCheckInProgress" in seen and "Running" in seen, "deep health checks ran before Running: %s" % sorted(seen))
d = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})
t.eq(sorted((g["InstanceGroupName"], g["CurrentCount"], g["Status"]) for g in d["InstanceGroups"]),
     [("cpu", 1, "InService"), ("gpu", 2, "InService")], "instance groups InService with counts")

# --- UpdateCluster: scale gpu to 3, drop cpu -----------------------------------------------
sb.ok_json("sagemaker", "UpdateCluster", {"ClusterName": "hp", "InstanceGroups": [
    {"InstanceGroupName": "gpu", "InstanceType": "ml.g5.12xlarge", "InstanceCount": 3, "ExecutionRole": net["role"]}],
    "InstanceGroupsToDelete": ["cpu"]})
t.eq(sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})["ClusterStatus"], "Updating", "UpdateCluster -> Updating")
r = sb.aws_json("sagemaker", "UpdateCluster", {"ClusterName": "hp", "NodeRecovery": "None"})
t.eq(r.json().get("__type"), "ConflictException", "UpdateCluster while Updating -> ConflictException")
t.ok(wait_for(lambda: sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})["ClusterStatus"] == "InService",
              timeout=60), "Updating -> InService")
d = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})
t.eq([(g["InstanceGroupName"], g["CurrentCount"]) for g in d["InstanceGroups"]], [("gpu", 3)], "scaled to 3, cpu group removed")

# --- batch node operations -----------------------------------------------------------
ids = sorted(n["InstanceId"] for n in sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "hp"})["ClusterNodeSummaries"])
out = sb.ok_json("sagemaker", "BatchDeleteClusterNodes", {"ClusterName": "hp", "NodeIds": [ids[0], "i-0000000000000000f"]})
t.eq((out["Successful"], [(f["NodeId"], f["Code"]) for f in out["Failed"]]),
     ([ids[0]], [("i-0000000000000000f", "NodeIdNotFound")]), "BatchDeleteClusterNodes: per-node Failed entry")
out = sb.ok_json("sagemaker", "BatchRebootClusterNodes", {"ClusterName": "hp", "NodeIds": [ids[1], "i-00000000000000001"]})
t.eq((out["Successful"], [f["ErrorCode"] for f in out["Failed"]]), ([ids[1]], ["InstanceIdNotFound"]), "BatchReboot")
node = sb.ok_json("sagemaker", "DescribeClusterNode", {"ClusterName": "hp", "NodeId": ids[1]})["NodeDetails"]
t.eq(node["InstanceStatus"]["Status"], "Pending", "rebooting node is Pending")
out = sb.ok_json("sagemaker", "BatchReplaceClusterNodes", {"ClusterName": "hp", "NodeIds": [ids[2]]})
t.eq(out["Successful"], [ids[2]], "BatchReplace accepted")
wait_for(lambda: ids[2] not in [n["InstanceId"] for n in sb.ok_json("sagemaker", "ListClusterNodes",
                                                                      {"ClusterName": "hp"})["ClusterNodeSummaries"]], timeout=4)
now_ids = [n["InstanceId"] for n in sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "hp"})["ClusterNodeSummaries"]]
t.ok(ids[2] not in now_ids and ids[0] not in now_ids and len(now_ids) == 2, "replaced/deleted instances are gone")
wait_for(lambda: all(n["InstanceStatus"]["Status"] == "Running" for n in sb.ok_json(
    "sagemaker", "ListClusterNodes", {"ClusterName": "hp"})["ClusterNodeSummaries"]), timeout=4)
r = sb.aws_json("sagemaker", "DescribeClusterNode", {"ClusterName": "hp", "NodeId": ids[0]})
t.eq(r.json().get("__type"), "ResourceNotFound", "DescribeClusterNode on a deleted node -> ResourceNotFound")

sb.ok_json("sagemaker", "UpdateClusterSoftware", {"ClusterName": "hp"})
t.eq(sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})["ClusterStatus"], "SystemUpdating",
     "UpdateClusterSoftware -> SystemUpdating")
t.ok(wait_for(lambda: sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"})["InstanceGroups"][0]
              .get("SoftwareUpdateStatus") == "Succeeded", timeout=60), "software update Succeeded, back InService")

# --- NAT gateway and FSx -------------------------------------------------------------------
x = sb.ok_query("ec2", {"Action": "AllocateAddress", "Domain": "vpc"})
alloc = re.search(r"<allocationId>(.*?)<", x).group(1)
x = sb.ok_query("ec2", {"Action": "CreateNatGateway", "SubnetId": net["subnets"][0], "AllocationId": alloc})
nat = re.search(r"<natGatewayId>(.*?)<", x).group(1)
t.ok("<state>pending</state>" in x, "NAT gateway starts pending")
t.ok(wait_for(lambda: "<state>available</state>" in sb.ok_query("ec2", {"Action": "DescribeNatGateways",
                                                                          "NatGatewayId.1": nat}), timeout=60),
     "NAT gateway becomes available")
fs = sb.ok_json("fsx", "CreateFileSystem", {"FileSystemType": "LUSTRE", "StorageCapacity": 1200,
                                            "SubnetIds": net["subnets"][:1],
                                            "LustreConfiguration": {"DeploymentType": "PERSISTENT_2",
                                                                    "PerUnitStorageThroughput": 125}})["FileSystem"]
t.eq(fs["Lifecycle"], "CREATING", "FSx Lustre starts CREATING")
t.ok(wait_for(lambda: sb.ok_json("fsx", "DescribeFileSystems", {"FileSystemIds": [fs["FileSystemId"]]})
              ["FileSystems"][0]["Lifecycle"] == "AVAILABLE", timeout=60), "FSx becomes AVAILABLE")

# --- training plans -------------------------------------------------------------------
offs = sb.ok_json("sagemaker", "SearchTrainingPlanOfferings", {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2,
                                                                "DurationHours": 48, "TargetResources": ["hyperpod-cluster"]})
oid = offs["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]
arn = sb.ok_json("sagemaker", "CreateTrainingPlan", {"TrainingPlanName": "plan1", "TrainingPlanOfferingId": oid})["TrainingPlanArn"]
t.ok(arn.endswith(":training-plan/plan1"), "CreateTrainingPlan returns the plan ARN")
t.ok(wait_for(lambda: sb.ok_json("sagemaker", "DescribeTrainingPlan", {"TrainingPlanName": "plan1"})["Status"]
              in ("Scheduled", "Active"), timeout=60), "training plan Pending -> Scheduled")
t.eq(len(sb.ok_json("sagemaker", "ListTrainingPlans", {})["TrainingPlanSummaries"]), 1, "ListTrainingPlans")

# --- teardown: everything goes away ---------------------------------------------------
sb.ok_json("sagemaker", "DeleteCluster", {"ClusterName": "hp"})
sb.ok_json("fsx", "DeleteFileSystem", {"FileSystemId": fs["FileSystemId"]})
sb.ok_query("ec2", {"Action": "DeleteNatGateway", "NatGatewayId": nat})
t.ok(wait_for(lambda: sb.aws_json("sagemaker", "DescribeCluster", {"ClusterName": "hp"}).status == 400, timeout=60),
     "HyperPod Deleting -> ResourceNotFound")
r = sb.aws_rest("eks", "DELETE", "/clusters/sm")
t.eq(r.json()["cluster"]["status"], "DELETING", "EKS DeleteCluster -> DELETING")
t.ok(wait_for(lambda: sb.aws_rest("eks", "GET", "/clusters/sm").status == 404, timeout=60), "EKS cluster gone")
wait_for(lambda: "<state>deleted</state>" in sb.ok_query("ec2", {"Action": "DescribeNatGateways"}), timeout=3)
t.ok(wait_for(lambda: not sb.dump()["fsx"]["file_systems"], timeout=60), "FSx deleted")
sb.ok_query("ec2", {"Action": "ReleaseAddress", "AllocationId": alloc})
r = sb.aws_query("ec2", {"Action": "DeleteVpc", "VpcId": net["vpc"]})
t.ok("DependencyViolation" in r.text, "DeleteVpc with subnets -> DependencyViolation")
for s in net["subnets"]:
    sb.ok_query("ec2", {"Action": "DeleteSubnet", "SubnetId": s})
sb.ok_query("ec2", {"Action": "DeleteSecurityGroup", "GroupId": net["sg"]})
sb.ok_query("ec2", {"Action": "DeleteVpc", "VpcId": net["vpc"]})
sb.ok_query("iam", {"Action": "DeleteRole", "RoleName": "sandbox-test-role"})
st = sb.dump()
left = {k: v for k, v in st["ec2"].items() if v}
t.eq((left, st["eks"]["clusters"], st["sagemaker"]["clusters"], st["sagemaker"]["nodes"], st["iam"]["roles"],
      st["kubernetes"]), ({}, {}, {}, {}, [], {}), "/_sandbox/state shows nothing left behind")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
