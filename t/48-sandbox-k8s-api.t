#!/usr/bin/python3
"""Kubernetes API semantics over HTTPS: discovery, Status errors, CRDs making kinds
servable, server-side apply (conflict/force/removal), merge and JSON patch,
selectors, resourceVersion conflicts, watch (and 410 Expired), Table output,
workloads -> pods, PVC binding, delete propagation, logs, auth."""
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("api", net)
sb.hyperpod("api-hp", eks["arn"], net, [("gpu", "ml.g5.12xlarge", 2)])
k = sb.kube("api", sb.kube_token("api")["token"])
NS = "/api/v1/namespaces/default"

r = k.req("GET", "/version")
t.eq((r.status, r.json().get("major"), r.json().get("minor")), (200, "1", "32+"), "/version")
t.ok(any(res["name"] == "pods" for res in k.req("GET", "/api/v1").json()["resources"]), "/api/v1 lists pods")
groups = [g["name"] for g in k.req("GET", "/apis").json()["groups"]]
t.ok("apps" in groups and "apiextensions.k8s.io" in groups, "/apis lists groups")
t.eq(k.req("GET", "/openapi/v3").status, 200, "/openapi/v3 served")

noauth = sb.kube("api", None)
r = noauth.req("GET", "/api/v1/pods")
t.eq((r.status, r.json().get("kind"), r.json().get("reason")), (401, "Status", "Unauthorized"), "no token -> 401 Status")
bad = sb.kube("api", "sandbox-not-a-token")
t.eq(bad.req("GET", "/api/v1/pods").status, 401, "unknown token -> 401")

r = k.req("GET", NS + "/pods/none")
t.eq(r.json(), {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": 'pods "none" not found', "reason": "NotFound",
                "details": {"name": "none", "group": "", "kind": "pods"}, "code": 404}, "NotFound Status object")
r = k.req("GET", "/apis/ray.io/v1/namespaces/default/rayjobs")
t.eq((r.status, r.json().get("reason")), (404, "NotFound"), "unknown kind -> 404 before its CRD exists")
r = k.req("POST", "/api/v1/namespaces/nope/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})
t.eq((r.status, r.json().get("message")), (404, 'namespaces "nope" not found'), "create in missing namespace")
r = k.req("POST", NS + "/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "Bad_Name"},
                                 "spec": {"containers": [{"name": "c", "image": "x"}]}})
t.eq((r.status, r.json().get("reason")), (422, "Invalid"), "invalid name -> 422 Invalid")

crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                              "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}]}]}}
t.eq(k.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).status, 201, "CRD created")
W = "/apis/example.com/v1/namespaces/default/widgets"
apply = "application/apply-patch+yaml"
w = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1", "labels": {"tier": "a"}},
     "spec": {"size": 3, "color": "red"}}
r = k.req("PATCH", W + "/w1?fieldManager=alice", w, ctype=apply)
t.eq((r.status, r.json()["spec"]), (201, {"size": 3, "color": "red"}), "server-side apply creates the CR")
t.eq([m["manager"] for m in r.json()["metadata"]["managedFields"]], ["alice"], "managedFields records the manager")
r = k.req("PATCH", W + "/w1", w, ctype=apply)
t.eq(r.status, 422, "apply without fieldManager rejected")
r = k.req("PATCH", W + "/w1?fieldManager=bob", {"apiVersion": "example.com/v1", "kind": "Widget",
                                                   "metadata": {"name": "w1"}, "spec": {"size": 5}}, ctype=apply)
t.eq((r.status, r.json().get("reason")), (409, "Conflict"), "apply by another manager conflicts")
t.ok("conflict with \"alice\"" in r.json().get("message", ""), "conflict message names the owner")
r = k.req("PATCH", W + "/w1?fieldManager=bob&force=true", {"apiVersion": "example.com/v1", "kind": "Widget",
                                                              "metadata": {"name": "w1"}, "spec": {"size": 5}}, ctype=apply)
t.eq((r.status, r.json()["spec"]["size"]), (200, 5), "force=true takes ownership")
r = k.req("PATCH", W + "/w1?fieldManager=alice", {"apiVersion": "example.com/v1", "kind": "Widget",
                                                     "metadata": {"name": "w1", "labels": {"tier": "a"}}, "spec": {}},
          ctype=apply)
t.eq(r.json()["spec"], {"size": 5}, "fields alice stops applying are removed, bob's stay")
r = k.req("PATCH", W + "/w1", {"spec": {"color": "blue"}, "metadata": {"labels": {"tier": None}}},
          ctype="application/merge-patch+json")
t.eq((r.json()["spec"].get("color"), r.json()["metadata"].get("labels", {}).get("tier")), ("blue", None), "merge patch")
r = k.req("PATCH", W + "/w1", [{"op": "replace", "path": "/spec/size", "value": 9}], ctype="application/json-patch+json")
t.eq(r.json()["spec"]["size"], 9, "JSON patch")
r = k.req("PATCH", W + "/w1", {"spec": {"size": 1}}, ctype="application/strategic-merge-patch+json")
t.eq(r.status, 415, "strategic merge patch on a CR -> 415 like kube-apiserver")
cur = k.req("GET", W + "/w1").json()
stale = dict(cur, metadata=dict(cur["metadata"], resourceVersion="1"))
r = k.req("PUT", W + "/w1", stale)
t.eq((r.status, r.json().get("reason")), (409, "Conflict"), "PUT with stale resourceVersion -> 409 Conflict")
r = k.req("GET", W, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
tab = r.json()
t.eq(([c["name"] for c in tab["columnDefinitions"]], tab["rows"][0]["cells"][:2]), (["Name", "Size", "Age"], ["w1", 9]),
     "Table output uses the CRD's printer columns")

for i, tier in enumerate(("a", "b", "b")):
    k.req("POST", NS + "/configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": "cm%d" % i, "labels": {"tier": tier}}})
names = [o["metadata"]["name"] for o in k.req("GET", NS + "/configmaps?labelSelector=tier%3Db").json()["items"]]
t.eq(names, ["cm1", "cm2"], "labelSelector")
names = [o["metadata"]["name"] for o in k.req("GET", NS + "/configmaps?labelSelector=tier+in+(a),!missing").json()["items"]]
t.eq(names, ["cm0"], "set-based labelSelector")
names = [o["metadata"]["name"] for o in k.req("GET", NS + "/configmaps?fieldSelector=metadata.name%3Dcm2").json()["items"]]
t.eq(names, ["cm2"], "fieldSelector")
lst = k.req("GET", NS + "/configmaps?limit=2").json()
nxt = k.req("GET", NS + "/configmaps?limit=2&continue=" + lst["metadata"]["continue"]).json()
t.eq(len(lst["items"]) + len(nxt["items"]), len(k.req("GET", NS + "/configmaps").json()["items"]), "limit/continue paging")
r = k.req("POST", NS + "/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm0"}})
t.eq((r.status, r.json().get("reason")), (409, "AlreadyExists"), "duplicate create -> AlreadyExists")

rv = k.req("GET", NS + "/configmaps").json()["metadata"]["resourceVersion"]
result = {}


def watcher():
    result["w"] = k.stream(NS + "/configmaps?watch=1&resourceVersion=%s&timeoutSeconds=3" % rv, seconds=2.5)


th = threading.Thread(target=watcher)
th.start()
time.sleep(0.4)
k.req("POST", NS + "/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "watched"}})
k.req("DELETE", NS + "/configmaps/watched")
th.join()
status, lines = result["w"]
events = [(json.loads(x)["type"], json.loads(x)["object"]["metadata"]["name"]) for x in lines]
t.eq(events, [("ADDED", "watched"), ("DELETED", "watched")], "watch streams ADDED and DELETED events")
sb.control("POST", "/advance", {"seconds": 40000})
status, lines = k.stream(NS + "/configmaps?watch=1&resourceVersion=%s" % rv, seconds=1.5)
ev = json.loads(lines[0]) if lines else {}
t.eq((status, ev.get("type"), ev.get("object", {}).get("code"), ev.get("object", {}).get("reason")),
     (200, "ERROR", 410, "Expired"), "watch from a compacted resourceVersion -> ERROR 410 Expired")

dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
       "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": [{"name": "srv", "image": "vllm/vllm-openai:v0.9.1",
                                                      "ports": [{"containerPort": 8000}]}]}}}}
t.eq(k.req("POST", "/apis/apps/v1/namespaces/default/deployments", dep).status, 201, "deployment created")
ok = wait_for(lambda: k.req("GET", "/apis/apps/v1/namespaces/default/deployments/web").json()
              .get("status", {}).get("availableReplicas") == 3, timeout=4)
t.ok(ok, "deployment -> replicaset -> 3 available pods")
pods = k.req("GET", NS + "/pods?labelSelector=app%3Dweb").json()["items"]
t.ok(len(pods) == 3 and all(p["spec"].get("nodeName", "").startswith("hyperpod-") for p in pods), "pods scheduled on HyperPod nodes")
r = k.req("GET", NS + "/pods/%s/log?tailLines=2" % pods[0]["metadata"]["name"])
t.ok(r.status == 200 and len(r.text.strip().splitlines()) == 2, "pod log with tailLines")
r = k.req("PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale", {"spec": {"replicas": 1}},
          ctype="application/merge-patch+json")
t.eq((r.status, r.json().get("kind")), (200, "Scale"), "scale subresource")
t.ok(wait_for(lambda: len(k.req("GET", NS + "/pods?labelSelector=app%3Dweb").json()["items"]) == 1, timeout=60),
     "scaled down to 1 pod")
k.req("DELETE", "/apis/apps/v1/namespaces/default/deployments/web")
t.ok(wait_for(lambda: not k.req("GET", NS + "/pods?labelSelector=app%3Dweb").json()["items"] and
              not k.req("GET", "/apis/apps/v1/namespaces/default/replicasets").json()["items"], timeout=60),
     "deleting the deployment garbage-collects replicasets and pods")

job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "big"},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "16"}}}]}}}}
k.req("POST", "/apis/batch/v1/namespaces/default/jobs", job)
ok = wait_for(lambda: any(e.get("reason") == "FailedScheduling" and "Insufficient nvidia.com/gpu" in e.get("message", "")
                          for e in k.req("GET", NS + "/events").json()["items"]), timeout=3)
t.ok(ok, "pod asking for 16 GPUs stays Pending with FailedScheduling event")

pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "fsx-pv"},
      "spec": {"capacity": {"storage": "1200Gi"}, "accessModes": ["ReadWriteMany"], "storageClassName": "",
               "csi": {"driver": "fsx.csi.aws.com", "volumeHandle": "fs-0123"}}}
pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "fsx-claim"},
       "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "", "resources": {"requests": {"storage": "1200Gi"}}}}
k.req("POST", "/api/v1/persistentvolumes", pv)
k.req("POST", NS + "/persistentvolumeclaims", pvc)
t.ok(wait_for(lambda: k.req("GET", NS + "/persistentvolumeclaims/fsx-claim").json()["status"].get("phase") == "Bound",
              timeout=60), "PVC Bound to the matching PV")
t.eq(k.req("GET", "/api/v1/persistentvolumes/fsx-pv").json()["status"]["phase"], "Bound", "PV Bound")

r = k.req("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
t.eq(r.status, 200, "CRD deleted")
t.eq(k.req("GET", W).status, 404, "its kind is no longer served")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
