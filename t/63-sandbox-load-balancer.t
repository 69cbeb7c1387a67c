#!/usr/bin/python3
"""63-sandbox-load-balancer.t: a Service of type LoadBalancer gets an NLB
address (status.loadBalancer.ingress[0].hostname, k8s-<ns>-<name>-<hash>.elb.
<region>.amazonaws.com) only while an AWS Load Balancer Controller Deployment
runs and the Service carries the annotations it acts on; otherwise the
address stays pending, as on EKS without the controller."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("lb", net)
sb.hyperpod("lb-hp", eks["arn"], net, [("cpu", "ml.m5.2xlarge", 1)])
k = sb.kube("lb", sb.kube_token("lb")["token"])
SVC = "/api/v1/namespaces/default/services"
NLB = {"service.beta.kubernetes.io/aws-load-balancer-type": "external",
       "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
       "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}


def service(name, annotations):
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "annotations": annotations},
            "spec": {"type": "LoadBalancer", "selector": {"app": name},
                     "ports": [{"port": 80, "targetPort": 8000, "protocol": "TCP"}]}}


def address(name):
    ing = ((k.req("GET", SVC + "/" + name).json().get("status") or {})
           .get("loadBalancer") or {}).get("ingress") or []
    return ing[0].get("hostname") if ing else None


def controller(name, image):
    labels = {"app.kubernetes.io/name": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "kube-system", "labels": labels},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {
                         "serviceAccountName": "aws-load-balancer-controller",
                         "containers": [{"name": "controller", "image": image}]}}}}


def available(name):
    d = k.req("GET", "/apis/apps/v1/namespaces/kube-system/deployments/" + name).json()
    return ((d.get("status") or {}).get("availableReplicas") or 0) >= 1


t.eq(k.req("POST", SVC, service("vllm", NLB)).status, 201, "NLB Service created")
t.eq(k.req("POST", SVC, service("plain", {})).status, 201, "Service without the NLB annotations created")
wait_for(lambda: address("vllm"), timeout=2)
t.eq(address("vllm"), None, "no controller: the address stays pending")

DEP = "/apis/apps/v1/namespaces/kube-system/deployments"
k.req("POST", DEP, controller("fake-lbc", "public.ecr.aws/example/lb-controller:1.0"))
t.ok(wait_for(lambda: available("fake-lbc"), timeout=60), "a look-alike controller runs")
wait_for(lambda: address("vllm"), timeout=2)
t.eq(address("vllm"), None, "a placeholder image does not provision load balancers")

k.req("POST", DEP, controller("aws-load-balancer-controller",
                              "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.2"))
t.ok(wait_for(lambda: address("vllm"), timeout=60), "with the controller running the NLB gets an address")
host = address("vllm") or ""
t.ok(re.match(r"^k8s-default-vllm-[0-9a-f]{10}-[0-9a-f]{16}\.elb\.%s\.amazonaws\.com$" % re.escape(sb.region), host),
     "NLB-style hostname: %s" % host)
t.eq(address("plain"), None, "a Service without the annotations the controller needs stays pending")
t.eq(address("vllm"), host, "the address is stable")

k.req("DELETE", DEP + "/aws-load-balancer-controller")
wait_for(lambda: k.req("GET", DEP + "/aws-load-balancer-controller").status == 404, timeout=5)
t.eq(address("vllm"), host, "an NLB already made outlives its controller")
k.req("POST", SVC, service("vllm2", dict(NLB)))
wait_for(lambda: address("vllm2"), timeout=2)
t.eq(address("vllm2"), None, "a Service made after the controller went stays pending")

sb.stop()
t.done()
