#!/usr/bin/python3
"""Restart persistence: credentials, resources, in-progress state machines,
Kubernetes objects and the API server endpoint survive a SIGTERM + restart."""
import os
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
t.ok(wait_for(lambda: "later" in sb.refresh()["kubernetes"], timeout=3), "sandbox.json kubernetes map refreshed")
sb.control("POST", "/reset")
st = sb.dump()
t.eq((st["eks"]["clusters"], st["kubernetes"]), ({}, {}), "POST /_sandbox/reset forgets every resource")
t.eq(sb.creds, creds, "credentials survive reset")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
