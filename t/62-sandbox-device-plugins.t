#!/usr/bin/python3
"""62-sandbox-device-plugins.t: a HyperPod node advertises nvidia.com/gpu and
vpc.amazonaws.com/efa only while a device plugin that could really register
them runs there (the plugin's image family, the kubelet's device-plugins
directory mounted from the host).  Before that a GPU pod stays Pending with
the scheduler's own words; a look-alike plugin (wrong image, or no hostPath
mount, as Slipway's old DaemonSets were) registers nothing."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("dp", net)
sb.hyperpod("dp-hp", eks["arn"], net, [("gpu", "ml.p5.48xlarge", 2)])
k = sb.kube("dp", sb.kube_token("dp")["token"])
DS = "/apis/apps/v1/namespaces/kube-system/daemonsets"


def nodes():
    return k.req("GET", "/api/v1/nodes").json().get("items", [])


def advertised(res):
    return [(n["status"].get("capacity") or {}).get(res) for n in nodes()]


def plugin(name, image, mount=True):
    spec = {"containers": [{"name": name, "image": image}],
            "tolerations": [{"operator": "Exists"}]}
    if mount:
        spec["containers"][0]["volumeMounts"] = [
            {"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"}]
        spec["volumes"] = [{"name": "device-plugin",
                            "hostPath": {"path": "/var/lib/kubelet/device-plugins"}}]
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def running(name):
    pods = k.req("GET", "/api/v1/namespaces/kube-system/pods?labelSelector=app%3D" + name).json()["items"]
    return len(pods) == 2 and all(p["status"].get("phase") == "Running" for p in pods)


t.eq(len(nodes()), 2, "two p5 nodes registered")
t.eq(advertised("nvidia.com/gpu"), [None, None], "no nvidia.com/gpu before a device plugin runs")
t.eq(advertised("vpc.amazonaws.com/efa"), [None, None], "no vpc.amazonaws.com/efa before the EFA plugin runs")

job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "gpu"},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "c", "image": "example.com/train:1",
            "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}
t.eq(k.req("POST", "/apis/batch/v1/namespaces/default/jobs", job).status, 201, "GPU job created")


def gpu_pod():
    items = k.req("GET", "/api/v1/namespaces/default/pods?labelSelector=job-name%3Dgpu").json()["items"]
    return items[0] if items else None


def unschedulable_msg():
    p = gpu_pod()
    conds = (p or {}).get("status", {}).get("conditions") or []
    return conds[0].get("message", "") if conds and conds[0].get("reason") == "Unschedulable" else ""


wait_for(lambda: unschedulable_msg(), timeout=5)
msg = unschedulable_msg()
t.ok(msg.startswith("0/2 nodes are available: 2 Insufficient nvidia.com/gpu."),
     "GPU pod Pending with the scheduler's message: %s" % msg)

# Look-alikes register nothing.
k.req("POST", DS, plugin("fake-gpu", "public.ecr.aws/example/nvidia-device-plugin:1.0"))
k.req("POST", DS, plugin("nomount-gpu", "nvcr.io/nvidia/k8s-device-plugin:v0.16.1", mount=False))
t.ok(wait_for(lambda: running("fake-gpu") and running("nomount-gpu"), timeout=60), "look-alike plugins run")
t.eq(advertised("nvidia.com/gpu"), [None, None],
     "a placeholder image or an unmounted plugin registers no GPUs")
t.ok(gpu_pod()["spec"].get("nodeName") is None, "the GPU pod is still Pending")

# The real plugin registers the node's GPUs; the pod then runs.
t.eq(k.req("POST", DS, plugin("nvidia-device-plugin-daemonset",
                              "nvcr.io/nvidia/k8s-device-plugin:v0.16.1")).status, 201,
     "NVIDIA device plugin DaemonSet created")
t.ok(wait_for(lambda: advertised("nvidia.com/gpu") == ["8", "8"], timeout=60),
     "nodes advertise 8 GPUs once the plugin is Running: %s" % advertised("nvidia.com/gpu"))
t.ok(all((n["status"].get("allocatable") or {}).get("nvidia.com/gpu") == "8" for n in nodes()),
     "allocatable too")
t.ok(wait_for(lambda: (gpu_pod() or {}).get("status", {}).get("phase") == "Running", timeout=60),
     "the GPU pod is scheduled and Running")
t.eq(advertised("vpc.amazonaws.com/efa"), [None, None], "EFA still absent without its plugin")

efa = "602401143452.dkr.ecr.%s.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.20" % sb.region
k.req("POST", DS, plugin("aws-efa-k8s-device-plugin-daemonset", efa))
t.ok(wait_for(lambda: advertised("vpc.amazonaws.com/efa") == ["32", "32"], timeout=60),
     "EFA plugin registers the p5's 32 EFA interfaces: %s" % advertised("vpc.amazonaws.com/efa"))

# The plugin gone: the resource goes with it.
k.req("DELETE", DS + "/nvidia-device-plugin-daemonset")
t.ok(wait_for(lambda: advertised("nvidia.com/gpu") == [None, None], timeout=60),
     "GPUs no longer advertised once the plugin is deleted")

sb.stop()
t.done()
