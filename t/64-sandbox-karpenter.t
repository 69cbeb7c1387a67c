#!/usr/bin/python3
"""64-sandbox-karpenter.t: HyperPod managed autoscaling in the sandbox.
UpdateCluster refuses AutoScaling without its prerequisites (ClusterRole,
NodeProvisioningMode Continuous); once enabled, HyperPod serves NodePool and
HyperpodNodeClass (upstream schemas); a pending GPU pod makes a group at 0
grow through the SageMaker state (TargetCount, ListClusterNodes, then a
Node); the empty node goes after the NodePool's consolidateAfter; disabling
stops serving the kinds."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("ka", net)
hp = sb.hyperpod("ka-hp", eks["arn"], net, [("sys", "ml.m5.2xlarge", 1), ("gpu", "ml.p5.48xlarge", 0)])
t.eq(hp["ClusterStatus"], "InService", "cluster with a group at 0 is InService")
k = sb.kube("ka", sb.kube_token("ka")["token"])
NP = "/apis/karpenter.sh/v1/nodepools"
NC = "/apis/karpenter.sagemaker.amazonaws.com/v1/hyperpodnodeclasses"


def describe():
    return sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": "ka-hp"})


def resend():
    return [{"InstanceGroupName": g["InstanceGroupName"], "InstanceType": g["InstanceType"],
             "InstanceCount": g["TargetCount"], "ExecutionRole": net["role"]}
            for g in describe()["InstanceGroups"]]


def update(**extra):
    body = {"ClusterName": "ka-hp", "InstanceGroups": resend()}
    body.update(extra)
    return sb.aws_json("sagemaker", "UpdateCluster", body)


def group(name):
    return next(g for g in describe()["InstanceGroups"] if g["InstanceGroupName"] == name)


t.eq(k.req("GET", NP).status, 404, "NodePool is not served before AutoScaling")
r = update(ClusterRole=net["role"], AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"})
t.ok(r.status == 400 and "NodeProvisioningMode" in r.text,
     "AutoScaling without NodeProvisioningMode Continuous refused: %s" % r.text[:200])
r = update(NodeProvisioningMode="Continuous", AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"})
t.ok(r.status == 400 and "ClusterRole" in r.text, "AutoScaling without a ClusterRole refused")
r = update(ClusterRole=net["role"], NodeProvisioningMode="Continuous",
           AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"})
t.eq(r.status, 200, "UpdateCluster AutoScaling Enable + Continuous accepted")
t.eq(describe()["AutoScaling"].get("Status"), "Creating", "AutoScaling Creating")
t.ok(wait_for(lambda: describe()["AutoScaling"].get("Status") == "InService", timeout=60), "AutoScaling InService")
d = describe()
t.eq((d["AutoScaling"]["Mode"], d["AutoScaling"].get("AutoScalerType"), d.get("NodeProvisioningMode")),
     ("Enable", "Karpenter", "Continuous"), "DescribeCluster: Enable, Karpenter, Continuous")
t.ok(wait_for(lambda: k.req("GET", NP).status == 200 and k.req("GET", NC).status == 200, timeout=60),
     "NodePool and HyperpodNodeClass are served")
crd = k.req("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                   "hyperpodnodeclasses.karpenter.sagemaker.amazonaws.com").json()
schema = (crd.get("spec", {}).get("versions") or [{}])[0].get("schema", {}).get("openAPIV3Schema", {})
t.eq(schema.get("properties", {}).get("spec", {}).get("properties", {}).get("instanceGroups", {}).get("maxItems"),
     10, "HyperpodNodeClass CRD carries the upstream schema (at most 10 groups)")

# GPUs need their device plugin, as on a real cluster.
k.req("POST", "/apis/apps/v1/namespaces/kube-system/daemonsets", {
    "apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "nvidia-device-plugin", "namespace": "kube-system"},
    "spec": {"selector": {"matchLabels": {"app": "nvdp"}}, "template": {
        "metadata": {"labels": {"app": "nvdp"}}, "spec": {
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.16.1",
                            "volumeMounts": [{"name": "dp", "mountPath": "/var/lib/kubelet/device-plugins"}]}],
            "volumes": [{"name": "dp", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}}]}}}})
t.eq(k.req("POST", NC, {"apiVersion": "karpenter.sagemaker.amazonaws.com/v1", "kind": "HyperpodNodeClass",
                        "metadata": {"name": "default"}, "spec": {"instanceGroups": ["gpu"]}}).status, 201,
     "HyperpodNodeClass over the group at 0")
t.eq(k.req("POST", NP, {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
                        "spec": {"template": {"spec": {
                            "nodeClassRef": {"group": "karpenter.sagemaker.amazonaws.com",
                                             "kind": "HyperpodNodeClass", "name": "default"},
                            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "Exists"}]}},
                            "disruption": {"consolidationPolicy": "WhenEmpty",
                                           "consolidateAfter": "30s"}}}).status, 201,
     "NodePool referencing it")
t.ok(wait_for(lambda: any(c.get("type") == "Ready" and c.get("status") == "True" for c in
                          (k.req("GET", NC + "/default").json().get("status") or {}).get("conditions") or []),
              timeout=60), "HyperpodNodeClass Ready")
t.eq(group("gpu")["TargetCount"], 0, "the GPU group is at 0 before any work")

job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train"},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "c", "image": "example.com/train:1",
            "env": [{"name": "MAX_STEPS", "value": "20"}, {"name": "STEP_SECONDS", "value": "3"}],
            "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}
t.eq(k.req("POST", "/apis/batch/v1/namespaces/default/jobs", job).status, 201, "8-GPU job created")
t.ok(wait_for(lambda: group("gpu")["TargetCount"] == 1, timeout=60),
     "Karpenter scaled the GPU group from 0 to 1 (DescribeCluster TargetCount)")
nodes = sb.ok_json("sagemaker", "ListClusterNodes", {"ClusterName": "ka-hp"})["ClusterNodeSummaries"]
gpu_nodes = [n for n in nodes if n["InstanceGroupName"] == "gpu"]
t.ok(len(gpu_nodes) == 1 and gpu_nodes[0].get("NodeLogicalId"), "ListClusterNodes shows the new node")


def kube_gpu_nodes():
    return [n for n in k.req("GET", "/api/v1/nodes").json()["items"]
            if n["metadata"]["labels"].get("sagemaker.amazonaws.com/instance-group-name") == "gpu"]


def job_pod_phase():
    items = k.req("GET", "/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtrain").json()["items"]
    return items[0]["status"].get("phase") if items else None


t.ok(wait_for(lambda: len(kube_gpu_nodes()) == 1, timeout=15), "the node registers in Kubernetes")
t.ok(wait_for(lambda: job_pod_phase() in ("Running", "Succeeded"), timeout=15), "the job's pod runs on it")
# The node may already be gone again (the job is short at this speed and
# consolidateAfter shorter): count the scale-ups HyperPod recorded.
ups = [e["Description"] for e in sb.ok_json("sagemaker", "ListClusterEvents", {
    "ClusterName": "ka-hp", "InstanceGroupName": "gpu", "MaxResults": 100})["Events"]
    if "scaled instance group" in e.get("Description", "")]
t.eq(ups, ["Karpenter scaled instance group gpu up by 1 node(s) for pending pods."],
     "one pending pod asked for one node only (ListClusterEvents)")
t.ok(wait_for(lambda: job_pod_phase() == "Succeeded", timeout=15), "the job completes")
t.ok(wait_for(lambda: group("gpu")["TargetCount"] == 0, timeout=15),
     "the empty node is removed after consolidateAfter (TargetCount back to 0)")
t.ok(wait_for(lambda: not kube_gpu_nodes(), timeout=15), "and its Kubernetes Node goes")
t.eq(group("sys")["TargetCount"], 1, "the group outside the node class is untouched")

r = update(AutoScaling={"Mode": "Disable"})
t.eq(r.status, 200, "AutoScaling Disable accepted")
t.ok(wait_for(lambda: describe()["AutoScaling"] == {"Mode": "Disable", "Status": "InService"}, timeout=60),
     "AutoScaling disabled")
t.ok(wait_for(lambda: k.req("GET", NP).status == 404, timeout=60), "NodePool no longer served")

sb.stop()
t.done()
