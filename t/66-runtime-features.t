#!/usr/bin/python3
# 66-runtime-features.t: features and the load balancer against a cluster
# made straight in the sandbox (EKS + HyperPod through their APIs), so no
# cluster-create pipeline is needed.  Autoscaling refuses a group that is
# not at 0 (409 naming it) and more than ten groups, sets
# NodeProvisioningMode Continuous, applies a node class over the groups at
# 0 only, and a GPU job then grows that group and the empty node goes;
# KubeRay is installed by its Helm Job (no CRD written by Slipway); an
# endpoint behind a load balancer gets the AWS Load Balancer Controller's
# role, pod identity association and Helm Job, and its Service stays
# pending until a controller runs.
import json
import os
import re
import ssl
import sys
import http.client
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, aws_cli, helm_simulated, sandbox_info,
                     sandbox_requests, wait_for, wait_operation)
from sandbox_fixture import Sandbox

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
t = T()
if not os.path.exists(os.path.join(ROOT, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
C = "direct"
F = "/api/v1/clusters/%s/features" % C

# The same sandbox, driven through its own APIs.
sb = Sandbox(start=False)
sb.info = sandbox_info(s)
sb.speed = 3000
net = sb.network()
eks = sb.eks_cluster(C, net)
hp = sb.hyperpod(C, eks["arn"], net, [("busy", "ml.m5.2xlarge", 1),
                                      ("idle", "ml.p5.48xlarge", 0)])
t.eq(hp["ClusterStatus"], "InService", "cluster made in the sandbox")
kube = sb.kube(C, sb.kube_token(C)["token"])
# Slipway changes only what it owns: the cluster is adopted first.
r = s.request("PATCH", F, {"kuberay": True})
t.ok(r.status == 409 and any(e.get("rule") == "owned" for e in
                             (r.json or {}).get("errors", [])),
     "a feature change before the import: 409 owned")
r = s.post("/api/v1/clusters/%s:import" % C)
t.eq(r.status, 200, "the cluster is imported")


def mutations(since, op=None):
    return [e for e in sandbox_requests(s, mutating="true", since=since)
            if e.get("status", 200) < 300 and
            (op is None or e["operation"] == op)]


def last_seq():
    reqs = sandbox_requests(s)
    return reqs[-1]["seq"] if reqs else 0


def group(name):
    d = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": C})
    return next(g for g in d["InstanceGroups"]
                if g["InstanceGroupName"] == name)


def obj(path):
    r = kube.req("GET", path)
    return r.json() if r.status == 200 else None


# ---- autoscaling: AWS's rules on groups
seq = last_seq()
r = s.request("PATCH", F, {"autoscaling": {"enabled": True,
                                           "instance_groups": ["busy"]}})
t.ok(r.status == 409 and "instance group busy" in
     (r.json or {}).get("detail", ""),
     "a group with a node: 409 naming it (%s)" % (r.json or {}).get("detail"))
r = s.request("PATCH", F, {"autoscaling": {"enabled": True,
                                           "instance_groups": ["nope"]}})
t.ok(r.status == 409 and "nope" in (r.json or {}).get("detail", ""),
     "an unknown group: 409 naming it")
r = s.request("PATCH", F, {"autoscaling": {
    "enabled": True, "instance_groups": ["g%d" % i for i in range(11)]}})
t.ok(r.status == 400 and any(e.get("field") ==
                             "autoscaling.instance_groups" for e in
                             (r.json or {}).get("errors", [])),
     "eleven groups: 400 naming autoscaling.instance_groups")
t.eq(mutations(seq), [], "refusals sent nothing")

r = s.request("PATCH", F, {"autoscaling": {"enabled": True,
                                           "consolidate_after": "30s"}})
if not t.eq(r.status, 202, "autoscaling on: 202"):
    t.diag(repr(r.json))
d = wait_operation(s, r.json["operation_id"], timeout=240)
if not t.eq(d.get("state"), "succeeded", "autoscaling enabled"):
    t.diag(json.dumps(d, indent=1)[-1500:])
upd = [e["params"] for e in mutations(seq, "UpdateCluster")]
t.ok(upd and upd[-1].get("NodeProvisioningMode") == "Continuous" and
     upd[-1].get("AutoScaling") == {"Mode": "Enable",
                                    "AutoScalerType": "Karpenter"} and
     upd[-1].get("ClusterRole", "").endswith("-hp-autoscale"),
     "UpdateCluster: AutoScaling Karpenter, NodeProvisioningMode "
     "Continuous, the ClusterRole")
d = sb.ok_json("sagemaker", "DescribeCluster", {"ClusterName": C})
t.eq((d.get("NodeProvisioningMode"), d["AutoScaling"].get("Status")),
     ("Continuous", "InService"), "DescribeCluster: Continuous, InService")
nc = obj("/apis/karpenter.sagemaker.amazonaws.com/v1/hyperpodnodeclasses/"
         "slipway-default")
t.eq((nc or {}).get("spec", {}).get("instanceGroups"), ["idle"],
     "the node class takes the group at 0 only")
np = obj("/apis/karpenter.sh/v1/nodepools/slipway-default")
t.eq((np or {}).get("spec", {}).get("disruption", {}).get("consolidateAfter"),
     "30s", "NodePool with consolidateAfter 30s")

# A GPU job (with the NVIDIA device plugin running) grows the group at 0.
kube.req("POST", "/apis/apps/v1/namespaces/kube-system/daemonsets", {
    "apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "nvidia-device-plugin", "namespace": "kube-system"},
    "spec": {"selector": {"matchLabels": {"app": "nvdp"}}, "template": {
        "metadata": {"labels": {"app": "nvdp"}}, "spec": {
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "p",
                            "image": "nvcr.io/nvidia/k8s-device-plugin:v0.16.1",
                            "volumeMounts": [{"name": "dp", "mountPath":
                                              "/var/lib/kubelet/device-plugins"}]}],
            "volumes": [{"name": "dp", "hostPath": {
                "path": "/var/lib/kubelet/device-plugins"}}]}}}})
kube.req("POST", "/apis/batch/v1/namespaces/default/jobs", {
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train"},
    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "example.com/train:1",
         "env": [{"name": "MAX_STEPS", "value": "20"},
                 {"name": "STEP_SECONDS", "value": "3"}],
         "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}})
grew = wait_for(lambda: group("idle")["TargetCount"] == 1, 60)
t.ok(grew, "the pending GPU pod grew the group at 0")
t.ok(grew and wait_for(lambda: group("idle")["CurrentCount"] == 1, 60),
     "its node came up")


def job_done():
    j = obj("/apis/batch/v1/namespaces/default/jobs/train") or {}
    return any(c.get("type") == "Complete" and c.get("status") == "True"
               for c in (j.get("status") or {}).get("conditions") or [])


t.ok(grew and wait_for(job_done, 60), "the job ran to Complete")
t.ok(grew and wait_for(lambda: group("idle")["TargetCount"] == 0 and
                       group("idle")["CurrentCount"] == 0, 60),
     "the empty node went after consolidateAfter")
t.eq(group("busy")["TargetCount"], 1, "the busy group was left alone")

# ---- the load balancer controller before a LoadBalancer Service
kube.req("POST", "/api/v1/persistentvolumes", {
    "apiVersion": "v1", "kind": "PersistentVolume",
    "metadata": {"name": "s3-pv"},
    "spec": {"capacity": {"storage": "1200Gi"},
             "accessModes": ["ReadWriteMany"], "storageClassName": "",
             "csi": {"driver": "s3.csi.aws.com", "volumeHandle": "s3-csi",
                     "volumeAttributes": {"bucketName": "direct-data"}}}})
kube.req("POST", "/api/v1/namespaces/default/persistentvolumeclaims", {
    "apiVersion": "v1", "kind": "PersistentVolumeClaim",
    "metadata": {"name": "s3-claim"},
    "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "",
             "volumeName": "s3-pv",
             "resources": {"requests": {"storage": "1200Gi"}}}})
wait_for(lambda: (obj("/api/v1/namespaces/default/persistentvolumeclaims/"
                      "s3-claim") or {}).get("status", {}).get("phase") ==
         "Bound", 10)
seq = last_seq()
r = s.post("/api/v1/clusters/%s/inference" % C, {
    "endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B",
    "exposure": "load-balancer", "gpus_per_replica": 1, "replicas": 1})
lbc = (r.json or {}).get("load_balancer_controller") or {}
if not t.ok(r.status == 200 and lbc.get("status") in ("installing",
                                                      "deployed"),
            "inference deploy: 200 with the controller's state (%s)" % lbc):
    t.diag(repr(r))
job = obj("/apis/batch/v1/namespaces/kube-system/jobs/"
          "helm-aws-load-balancer-controller")
args = ((((job or {}).get("spec") or {}).get("template") or {})
        .get("spec", {}).get("containers") or [{}])[0].get("args") or []
t.eq(args[:14], ["upgrade", "--install", "aws-load-balancer-controller",
                 "aws-load-balancer-controller", "--repo",
                 "https://aws.github.io/eks-charts", "--version", "1.13.2",
                 "--namespace", "kube-system", "--create-namespace",
                 "--wait", "--timeout", "10m0s"],
     "the controller's Helm Job: chart 1.13.2")
t.ok("clusterName=%s" % C in args and
     "serviceAccount.name=aws-load-balancer-controller" in args and
     any(a.startswith("vpcId=vpc-") for a in args),
     "with clusterName, its ServiceAccount and the VPC")
m = mutations(seq)
names = [e["operation"] for e in m]
pia = [e["params"] for e in m
       if e["operation"] == "CreatePodIdentityAssociation"]
t.ok(pia and pia[0].get("namespace") == "kube-system" and
     pia[0].get("serviceAccount") == "aws-load-balancer-controller",
     "pod identity association for kube-system/aws-load-balancer-controller")
svc_at = [i for i, e in enumerate(m) if "services" in e["operation"]]
job_at = [i for i, e in enumerate(m) if "jobs" in e["operation"]]
t.ok(job_at and svc_at and job_at[0] < svc_at[0],
     "the controller is ensured before the Service is applied")
rc, pol = aws_cli(s, "iam", "get-role-policy", "--role-name",
                  "slipway-%s-lb-controller" % C, "--policy-name",
                  "slipway-aws-load-balancer-controller")
if rc is None:
    t.skip("aws CLI not installed", 1)
else:
    text = pol.get("PolicyDocument") if rc == 0 else ""
    text = urllib.parse.unquote(text) if isinstance(text, str) else \
        json.dumps(text)
    t.ok("elasticloadbalancing:CreateLoadBalancer" in text and
         "elbv2.k8s.aws/cluster" in text,
         "the role has the controller's IAM policy")
svc = obj("/api/v1/namespaces/default/services/qwen") or {}
if helm_simulated():
    t.ok(wait_for(lambda: ((obj("/api/v1/namespaces/default/services/qwen")
                            or {}).get("status", {}).get("loadBalancer", {})
                           .get("ingress")), 60),
         "the Service gets its NLB address once the controller runs")
else:
    t.eq(svc.get("status", {}).get("loadBalancer", {}).get("ingress"), None,
         "no controller running yet (Helm Jobs not simulated): the "
         "address stays pending")

# ---- KubeRay by its Helm Job
seq = last_seq()
r = s.request("PATCH", F, {"kuberay": True})
t.eq(r.status, 202, "kuberay on: 202")
kr = wait_for(lambda: obj("/apis/batch/v1/namespaces/kube-system/jobs/"
                          "helm-kuberay-operator"), 60)
args = (((kr or {}).get("spec", {}).get("template") or {}).get("spec", {})
        .get("containers") or [{}])[0].get("args") or []
t.eq(args, ["upgrade", "--install", "kuberay-operator", "kuberay-operator",
            "--repo", "https://ray-project.github.io/kuberay-helm/",
            "--version", "1.4.2", "--namespace", "ray-system",
            "--create-namespace", "--wait", "--timeout", "10m0s"],
     "KubeRay's Helm Job: kuberay-operator 1.4.2 into ray-system")
kops = [e["operation"] for e in mutations(seq)
        if e["service"].startswith("kubernetes")]
t.ok(not any("customresourcedefinitions" in o or "clusterroles" in o and
             "bindings" not in o for o in kops),
     "Slipway wrote no CRD and no ClusterRole of its own: %s" % kops)
if helm_simulated():
    d = wait_operation(s, r.json["operation_id"], timeout=180)
    t.eq(d.get("state"), "succeeded", "kuberay on succeeded")
else:
    doc = s.get("/api/v1/operations/%s" % r.json["operation_id"]).json
    t.ok(doc.get("state") in ("pending", "running"),
         "the feature follows the Helm Job (Helm Jobs not simulated here)")

# ---- autoscaling off: the NodePool's finalizers are waited for
# (apiserver/pkg/registry/generic/registry/store.go: an object with
# finalizers outlives its DELETE until they are removed).
NP = "/apis/karpenter.sh/v1/nodepools/slipway-default"
kube.req("PATCH", NP, {"metadata": {"finalizers": ["example.com/drain"]}},
         ctype="application/merge-patch+json")
seq = last_seq()
r = s.request("PATCH", F, {"autoscaling": {"enabled": False}})
t.eq(r.status, 202, "autoscaling off: 202")
op = r.json["operation_id"]
t.ok(wait_for(lambda: "finalizers: example.com/drain" in json.dumps(
    s.get("/api/v1/operations/%s" % op).json), 60),
     "the operation waits for the NodePool's finalizer")
t.ok((obj(NP) or {}).get("metadata", {}).get("deletionTimestamp"),
     "the NodePool is being deleted, not gone")
t.eq([e["params"] for e in mutations(seq, "UpdateCluster")], [],
     "HyperPod autoscaling stays on while the NodePool is finalized")
kube.req("PATCH", NP, {"metadata": {"finalizers": None}},
         ctype="application/merge-patch+json")
d = wait_operation(s, op, timeout=240)
t.eq(d.get("state"), "succeeded", "autoscaling off succeeded once the "
     "finalizer was removed")
upd = [e["params"] for e in mutations(seq, "UpdateCluster")]
t.ok(obj(NP) is None and upd and
     upd[-1].get("AutoScaling", {}).get("Mode") == "Disable",
     "the NodePool went, then AutoScaling Disable")

s.stop()
t.done()
