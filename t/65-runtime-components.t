#!/usr/bin/python3
# 65-runtime-components.t: the in-cluster components Slipway installs, the
# way a real EKS cluster gets them.  Cluster create applies HyperPod's
# health-monitoring agent as its chart has it and installs the NVIDIA and
# EFA device plugins by Helm installer Jobs (the contract: image, args,
# ServiceAccount, labels), following them.  With the sandbox's Helm Job
# simulation the rest runs end to end: GPUs appear once the plugin runs;
# KubeRay comes from its chart (real CRDs, no stub) and goes by helm
# uninstall; an inference endpoint behind a load balancer gets the AWS
# Load Balancer Controller (Pod Identity role with its IAM policy) and
# then an NLB address; autoscaling refuses a group not at 0, sets
# NodeProvisioningMode Continuous, and a training job makes the group at
# 0 grow and shrink back.
import json
import os
import re
import ssl
import sys
import http.client
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, aws_cli, helm_simulated, sandbox_call,
                     sandbox_requests, wait_for, wait_operation)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
t = T()
if not os.path.exists(os.path.join(ROOT, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
HELM_SIM = helm_simulated()
s = Stack(t, sandbox=True, speed=3000)
C = "rt"
HELM_ARGS = ["--namespace", "kube-system", "--create-namespace", "--wait",
             "--timeout", "10m0s"]


class Kube:
    def __init__(self):
        st, tok = sandbox_call(s, "POST", "/_sandbox/kube-token",
                               {"cluster": C})
        self.token = tok.get("token") if st == 200 and \
            tok.get("endpoint") else None
        u = urllib.parse.urlparse(tok.get("endpoint") or "https://x:1")
        self.host, self.port = u.hostname, u.port
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    def get(self, path):
        c = http.client.HTTPSConnection(self.host, self.port,
                                        context=self.ctx, timeout=30)
        c.request("GET", path,
                  headers={"Authorization": "Bearer %s" % self.token})
        r = c.getresponse()
        body = r.read()
        c.close()
        try:
            return r.status, json.loads(body or b"{}")
        except ValueError:
            return r.status, {}

    def post(self, path, body):
        c = http.client.HTTPSConnection(self.host, self.port,
                                        context=self.ctx, timeout=30)
        c.request("POST", path, body=json.dumps(body).encode(),
                  headers={"Authorization": "Bearer %s" % self.token,
                           "Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        c.close()
        return r.status

    def patch_status(self, path, body):
        c = http.client.HTTPSConnection(self.host, self.port,
                                        context=self.ctx, timeout=30)
        c.request("PATCH", path, body=json.dumps(body).encode(),
                  headers={"Authorization": "Bearer %s" % self.token,
                           "Content-Type":
                           "application/merge-patch+json"})
        r = c.getresponse()
        r.read()
        c.close()
        return r.status

    def obj(self, path):
        st, o = self.get(path)
        return o if st == 200 else None


def mutations(since, op=None):
    return [e for e in sandbox_requests(s, mutating="true", since=since)
            if e.get("status", 200) < 300 and
            (op is None or e["operation"] == op)]


def last_seq():
    reqs = sandbox_requests(s)
    return reqs[-1]["seq"] if reqs else 0


def check_helm_job(job, release, chart, repo, version, ns, sets=None,
                   uninstall=False):
    name = "helm-%s%s" % (release, "-uninstall" if uninstall else "")
    if not t.ok(job is not None, "Job %s exists" % name):
        return
    spec = job["spec"]
    pod = spec["template"]["spec"]
    cs = pod["containers"]
    if uninstall:
        want = ["uninstall", release, "--namespace", ns, "--wait",
                "--timeout", "10m0s"]
    else:
        want = ["upgrade", "--install", release, chart, "--repo", repo,
                "--version", version, "--namespace", ns,
                "--create-namespace", "--wait", "--timeout", "10m0s"]
    args = cs[0].get("args") or []
    t.eq(args[:len(want)], want, "%s: helm args" % name)
    if sets is not None:
        got = [args[i + 1] for i in range(len(want), len(args) - 1, 2)
               if args[i] == "--set"]
        t.ok(all(x in got for x in sets), "%s: --set %s" % (name, sets))
    t.ok(len(cs) == 1 and cs[0]["name"] == "helm" and
         cs[0]["image"] == "docker.io/alpine/helm:3.16.4" and
         "command" not in cs[0], "%s: one helm container, image, no "
         "command" % name)
    t.ok(pod.get("serviceAccountName") == "slipway-helm" and
         pod.get("restartPolicy") == "Never" and
         spec.get("backoffLimit") == 2 and
         "ttlSecondsAfterFinished" not in spec,
         "%s: SA, restartPolicy Never, backoffLimit 2" % name)
    for where, labels in (("Job", job["metadata"].get("labels") or {}),
                          ("pod", spec["template"]["metadata"]
                           .get("labels") or {})):
        t.ok(labels.get("app.kubernetes.io/managed-by") == "slipway" and
             labels.get("slipway.dev/helm-release") == release,
             "%s: %s labels" % (name, where))


JOBS = "/apis/batch/v1/namespaces/kube-system/jobs/"

# ---- a cluster with a GPU+EFA group
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if i["efa_supported"] and i["gpus"] >= 1)
cpu = next(i for i in s.get("/api/v1/instance-types").json["items"]
           if not i["gpus"] and g["availability_zones"][0] in
           i["availability_zones"])
r = s.post("/api/v1/clusters", {"name": C, "storage": {"s3_bucket": "rt-data"},
                                "instance_groups": [
    {"name": "gpu", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]},
    {"name": "train", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]},
    {"name": "sys", "instance_type": cpu["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
op = r.json["operation_id"]
k = None


def nvidia_job():
    global k
    try:
        if k is None or k.token is None:
            k = Kube()
        return k.obj(JOBS + "helm-nvidia-device-plugin") if k.token else None
    except OSError:
        k = None
        return None


t.ok(wait_for(nvidia_job, timeout=240), "cluster create made the NVIDIA "
     "device plugin's Helm Job")
check_helm_job(nvidia_job(), "nvidia-device-plugin", "nvidia-device-plugin",
               "https://nvidia.github.io/k8s-device-plugin", "0.16.1",
               "kube-system", sets=[
                   "tolerations[0].key=nvidia.com/gpu",
                   "tolerations[0].operator=Exists"])
sa = k.obj("/api/v1/namespaces/kube-system/serviceaccounts/slipway-helm")
crb = k.obj("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/"
            "slipway-helm")
t.ok(sa and sa["metadata"]["labels"].get("app.kubernetes.io/managed-by") ==
     "slipway", "ServiceAccount slipway-helm, labelled")
t.ok(crb and crb["roleRef"]["name"] == "cluster-admin" and
     crb["subjects"][0] == {"kind": "ServiceAccount", "name": "slipway-helm",
                            "namespace": "kube-system"} and
     crb["metadata"]["labels"].get("app.kubernetes.io/managed-by") ==
     "slipway", "ClusterRoleBinding slipway-helm -> cluster-admin")

# HyperPod's health-monitoring agent, as its chart deploys it.
region = (s.config().get("sandbox_info") or {}).get("region", "us-west-2")
accounts = {"us-west-2": "905418368575", "us-east-1": "767398015722",
            "us-east-2": "851725546812"}
hma = k.obj("/apis/apps/v1/namespaces/aws-hyperpod/daemonsets/"
            "health-monitoring-agent")
if t.ok(hma is not None, "health-monitoring-agent DaemonSet in aws-hyperpod"):
    ps = hma["spec"]["template"]["spec"]
    c0 = ps["containers"][0]
    t.eq(c0["image"], "%s.dkr.ecr.%s.amazonaws.com/hyperpod-health-"
         "monitoring-agent:1.0.1892.0_1.0.424.0" % (accounts.get(region),
                                                    region),
         "agent image from the regional ECR account the chart maps")
    mounts = {m["mountPath"]: m.get("readOnly", False)
              for m in c0.get("volumeMounts") or []}
    paths = {v["hostPath"]["path"] for v in ps.get("volumes") or []}
    t.ok(mounts.get("/dev/kmsg") is True and "/var/log" in mounts and
         {"/dev/kmsg", "/var/log/", "/etc/localtime"} <= paths,
         "agent mounts /var/log and /dev/kmsg (read-only) from the host")
    t.ok({"effect": "NoSchedule", "operator": "Exists"} in ps["tolerations"]
         and {"effect": "NoExecute", "operator": "Exists"} in
         ps["tolerations"], "agent tolerates every NoSchedule/NoExecute")
    t.eq(ps.get("serviceAccountName"), "health-monitoring-agent",
         "agent runs as its ServiceAccount")
cr = k.obj("/apis/rbac.authorization.k8s.io/v1/clusterroles/"
           "health-monitoring-agent")
t.ok(cr and any("nodes/status" in r_.get("resources", []) and
                "patch" in r_["verbs"] for r_ in cr["rules"]) and
     any("events" in r_.get("resources", []) and "create" in r_["verbs"]
         for r_ in cr["rules"]), "agent ClusterRole: patch nodes/status, "
     "create events")
t.ok(k.obj("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/"
           "health-monitoring-agent") is not None and
     k.obj("/api/v1/namespaces/aws-hyperpod/serviceaccounts/"
           "health-monitoring-agent") is not None,
     "agent ServiceAccount and binding")
t.ok(k.obj("/apis/apps/v1/namespaces/aws-hyperpod/daemonsets/"
           "health-monitoring-agent-non-nvidia") is not None,
     "the chart's second agent DaemonSet (Neuron instance types)")
st, ds = k.get("/apis/apps/v1/daemonsets")
images = [c["image"] for d in ds.get("items", [])
          for c in d["spec"]["template"]["spec"]["containers"]]
t.ok(not any(i.endswith(":1.0.0") or "k8s-device-plugin:v0.17.0" in i or
             "aws-efa-k8s-device-plugin:v0.5.6" in i for i in images),
     "no hand-made placeholder DaemonSets")
doc = s.get("/api/v1/operations/%s" % op).json
t.ok(doc.get("state") in ("running", "pending", "succeeded"),
     "create is following the Helm Job (%s)" % doc.get("state"))

if not HELM_SIM:
    # The installer's pod ends as helm does on an error (exit 1); the Job
    # fails after its retries and the create reports it, not success.
    def fail_helm_pods():
        st_, pods = k.get("/api/v1/namespaces/kube-system/pods?"
                          "labelSelector=batch.kubernetes.io%2Fjob-name%3D"
                          "helm-nvidia-device-plugin")
        for p in pods.get("items", []):
            if p["status"].get("phase") in ("Pending", "Running"):
                k.patch_status("/api/v1/namespaces/kube-system/pods/%s"
                               "/status" % p["metadata"]["name"],
                               {"status": {"phase": "Failed", "reason":
                                           "Error"}})
        j = k.obj(JOBS + "helm-nvidia-device-plugin") or {}
        return any(c.get("type") == "Failed" and c.get("status") == "True"
                   for c in (j.get("status") or {}).get("conditions") or [])
    t.ok(wait_for(fail_helm_pods, timeout=60),
         "the installer Job ends Failed after its retries")
    d = wait_operation(s, op, timeout=120)
    fails = [e.get("message", "") for e in d.get("events", [])
             if e.get("level") == "error"]
    t.ok(d.get("state") == "failed" and any(
        "helm install nvidia-device-plugin 0.16.1 failed" in m
        for m in fails), "the create fails with the Helm Job's failure "
         "(%s: %s)" % (d.get("state"), fails[-1:]))
    t.skip("the sandbox has no Helm Job simulation "
           "(sandbox/slipsand/k8s/helm.py): the Jobs never run, so the "
           "end-to-end half (device plugins, KubeRay, load balancer, "
           "autoscaling) cannot run here", 1)
    s.stop()
    t.done()
    sys.exit(0)

# ---- end to end, with Helm Jobs that run
d = wait_operation(s, op, timeout=300)
if not t.eq(d.get("state"), "succeeded", "cluster created"):
    t.diag(json.dumps(d, indent=1)[-2000:])
    s.stop()
    t.done()
    sys.exit(0)
check_helm_job(k.obj(JOBS + "helm-aws-efa-k8s-device-plugin"),
               "aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin",
               "https://aws.github.io/eks-charts", "0.5.20", "kube-system")
st, nodes = k.get("/api/v1/nodes")
gpus = [n["status"]["capacity"].get("nvidia.com/gpu")
        for n in nodes.get("items", [])
        if n["metadata"]["labels"].get("sagemaker.amazonaws.com/"
                                       "instance-group-name") == "gpu"]
t.ok(wait_for(lambda: [n["status"]["capacity"].get("nvidia.com/gpu")
                       for n in k.get("/api/v1/nodes")[1].get("items", [])
                       if n["metadata"]["labels"].get(
                           "sagemaker.amazonaws.com/instance-group-name")
                       == "gpu"] == [str(g["gpus"])], timeout=30),
     "the GPU node advertises its GPUs once the plugin runs")

# ---- KubeRay from its chart
F = "/api/v1/clusters/%s/features" % C
r = s.request("PATCH", F, {"kuberay": True})
t.eq(r.status, 202, "kuberay on: 202")
d = wait_operation(s, r.json["operation_id"], timeout=180)
t.eq(d.get("state"), "succeeded", "kuberay on succeeded")
check_helm_job(k.obj(JOBS + "helm-kuberay-operator"), "kuberay-operator",
               "kuberay-operator",
               "https://ray-project.github.io/kuberay-helm/", "1.4.2",
               "ray-system")
crd = k.obj("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
            "rayjobs.ray.io")
root = ((crd or {}).get("spec", {}).get("versions") or [{}])[0] \
    .get("schema", {}).get("openAPIV3Schema", {})
t.ok(crd and "x-kubernetes-preserve-unknown-fields" not in root and
     "spec" in root.get("properties", {}),
     "rayjobs.ray.io is the chart's CRD with its schema, not a stub")
t.ok((crd or {}).get("metadata", {}).get("labels", {})
     .get("app.kubernetes.io/managed-by") != "slipway",
     "Slipway wrote no ray.io CRD")
r = s.request("PATCH", F, {"kuberay": True})
t.ok(r.status == 200 and r.json.get("changed") is False,
     "kuberay on again: changed:false")
r = s.request("PATCH", F, {"kuberay": False})
t.eq(r.status, 202, "kuberay off: 202")
d = wait_operation(s, r.json["operation_id"], timeout=180)
t.eq(d.get("state"), "succeeded", "kuberay off succeeded")
check_helm_job(k.obj(JOBS + "helm-kuberay-operator-uninstall"),
               "kuberay-operator", None, None, None, "ray-system",
               uninstall=True)
t.ok(k.obj("/apis/apps/v1/namespaces/ray-system/deployments/"
           "kuberay-operator") is None, "the operator is gone")
t.ok(k.obj("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
           "rayjobs.ray.io") is not None, "Helm kept the CRDs")
t.eq(s.get(F).json["features"]["kuberay"]["status"], "absent",
     "feature_list: KubeRay absent without its operator")
# Someone else's KubeRay is not Slipway's to remove.
lab = {"app.kubernetes.io/name": "kuberay-operator"}
t.eq(k.post("/apis/apps/v1/namespaces/ray-system/deployments", {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "kuberay-operator", "namespace": "ray-system"},
    "spec": {"replicas": 1, "selector": {"matchLabels": lab},
             "template": {"metadata": {"labels": lab}, "spec": {
                 "containers": [{"name": "op", "image":
                                 "quay.io/kuberay/operator:v1.4.2"}]}}}}),
     201, "a KubeRay operator installed by hand")
r = s.request("PATCH", F, {"kuberay": False})
t.ok(r.status == 409 and "not installed by Slipway" in
     (r.json or {}).get("detail", ""),
     "kuberay off leaves a foreign install alone: 409 (%s)" %
     (r.json or {}).get("detail"))

# ---- an inference endpoint behind a load balancer
seq = last_seq()
inf = {"endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B",
       "exposure": "load-balancer", "gpus_per_replica": 1, "replicas": 1}
r = s.post("/api/v1/clusters/%s/inference" % C, inf)
if not t.ok(r.status == 200 and (r.json.get("load_balancer_controller") or
                                 {}).get("status") in ("installing",
                                                       "deployed"),
            "inference deploy answers with the controller's state: %s" %
            (r.json or {}).get("load_balancer_controller")):
    t.diag(repr(r))
lbc = k.obj(JOBS + "helm-aws-load-balancer-controller")
check_helm_job(lbc, "aws-load-balancer-controller",
               "aws-load-balancer-controller",
               "https://aws.github.io/eks-charts", "1.13.2", "kube-system",
               sets=["clusterName=%s" % C, "region=%s" % region,
                     "serviceAccount.name=aws-load-balancer-controller"])
pia = mutations(seq, "CreatePodIdentityAssociation")
t.ok(pia and pia[0]["params"].get("namespace") == "kube-system" and
     pia[0]["params"].get("serviceAccount") ==
     "aws-load-balancer-controller",
     "pod identity association kube-system/aws-load-balancer-controller")
t.ok(mutations(seq, "PutRolePolicy"), "the controller's role got its policy")
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
         "ec2:CreateSecurityGroup" in text and
         "elbv2.k8s.aws/cluster" in text,
         "the role carries the controller's IAM policy, writes scoped to "
         "tagged resources")
host = wait_for(lambda: ((((k.obj("/api/v1/namespaces/default/services/qwen")
                            or {}).get("status") or {}).get("loadBalancer")
                          or {}).get("ingress") or [{}])[0].get("hostname"),
                timeout=60)
t.ok(host and re.match(r"^k8s-default-qwen-[0-9a-f]{10}-[0-9a-f]{16}\.elb\."
                       + re.escape(region) + r"\.amazonaws\.com$", host),
     "the Service gets an NLB address: %s" % host)

# ---- autoscaling: groups at 0 only, Continuous provisioning
r = s.request("PATCH", F, {"autoscaling": {"enabled": True,
                                           "instance_groups": ["gpu"]}})
t.ok(r.status == 409 and "gpu" in (r.json or {}).get("detail", ""),
     "a group with nodes: 409 naming it (%s)" % (r.json or {}).get("detail"))
r = s.request("PATCH", F, {"autoscaling": {"enabled": True}})
t.ok(r.status == 409 and "at 0" in (r.json or {}).get("detail", ""),
     "no group at 0: 409")
r = s.request("PATCH", "/api/v1/clusters/%s/instance-groups/train" % C,
              {"count": 0})
t.eq(r.status, 202, "train group scaled to 0")
t.eq(wait_operation(s, r.json["operation_id"], timeout=240).get("state"),
     "succeeded", "train group at 0")
seq = last_seq()
r = s.request("PATCH", F, {"training_operator": True,
                           "autoscaling": {"enabled": True,
                                           "consolidate_after": "30s"}})
t.eq(r.status, 202, "autoscaling + training operator: 202")
d = wait_operation(s, r.json["operation_id"], timeout=300)
if not t.eq(d.get("state"), "succeeded", "autoscaling enabled"):
    t.diag(json.dumps(d, indent=1)[-2000:])
upd = [e["params"] for e in mutations(seq, "UpdateCluster")
       if e["params"].get("AutoScaling")]
t.ok(upd and upd[0].get("NodeProvisioningMode") == "Continuous" and
     upd[0]["AutoScaling"] == {"Mode": "Enable", "AutoScalerType":
                               "Karpenter"},
     "UpdateCluster sets AutoScaling Karpenter and NodeProvisioningMode "
     "Continuous")
nc = k.obj("/apis/karpenter.sagemaker.amazonaws.com/v1/hyperpodnodeclasses/"
           "slipway-default")
t.eq((nc or {}).get("spec", {}).get("instanceGroups"), ["train"],
     "the node class takes only the group at 0")


def group(name):
    r_ = s.get("/api/v1/clusters/%s/instance-groups" % C)
    return next((x for x in (r_.json or {}).get("items", [])
                 if x.get("name") == name), {})


job = {"job_name": "scale", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": g["gpus"], "dataset": "alpaca",
       "model": "llama-3-8b", "max_steps": 20,
       "env": {"STEP_SECONDS": "2"}}
r = s.post("/api/v1/clusters/%s/training-jobs" % C, job)
if not t.ok(r.status in (200, 201, 202), "training job submitted (%d)" %
            r.status):
    t.diag(repr(r))
# The gpu group's node serves the endpoint on one of its GPUs and the
# job asks for all of a node's GPUs, so only a new node can take it.
grew = wait_for(lambda: group("train").get("target_count", 0) >= 1, 120)
t.ok(grew, "autoscaling grew the group at 0: %s" % group("train"))
t.ok(grew and wait_for(lambda: group("train").get("current_count", 0) >= 1,
                       120), "its node came up: %s" % group("train"))
t.ok(grew and wait_for(lambda: group("train").get("target_count") == 0 and
                       group("train").get("current_count") == 0, 240),
     "and the group went back to 0 once the job finished: %s" %
     group("train"))

seq = last_seq()
r = s.request("PATCH", F, {"autoscaling": {"enabled": False}})
t.eq(r.status, 202, "autoscaling off: 202")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "autoscaling off succeeded")
ops = [e["operation"] for e in mutations(seq)]
upd = [e["params"] for e in mutations(seq, "UpdateCluster")]
t.ok(upd and upd[-1].get("AutoScaling") == {"Mode": "Disable"} and
     any("nodepools" in o for o in ops),
     "NodePool deleted, then UpdateCluster AutoScaling Disable")
t.ok(wait_for(lambda: k.get("/apis/karpenter.sh/v1/nodepools")[0] == 404,
              60), "HyperPod no longer serves NodePool")

s.stop()
t.done()
