#!/usr/bin/python3
# 68-inference.t: inference endpoints end to end on a sandbox cluster:
# inference_invoke reaches the endpoint's own Service through the API
# server's service proxy (and nothing else: no URL field, no foreign
# Service), the proxy answers 503 while no server pod is Ready, and
# inference_scale changes the replicas or puts an autoscaler on.
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Kubectl, Stack, wait_for, wait_operation

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None or shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
import harness  # noqa: E402
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)
s = Stack(t, sandbox=True, speed=2000)
C = "/api/v1/clusters/inf"


def field_error(r, field, rule=None):
    return any(e.get("field") == field and (rule is None or
                                            e.get("rule") == rule)
               for e in (r.json or {}).get("errors", []))


def call(method, path, body=None):
    return s.request(method, path, body=body)


# ---- a small GPU cluster with S3 storage
r = s.get("/api/v1/instance-types?gpu_only=true")
types = {i["instance_type"]: i for i in r.json["items"]}
gtype = next(n for n, i in sorted(types.items())
             if not i["efa_supported"] and i["gpus"] > 0)
other = next(n for n, i in sorted(types.items()) if n != gtype)
r = s.post("/api/v1/clusters", {
    "name": "inf", "storage": {"s3_bucket": "inf-models"},
    "instance_groups": [{"name": "gpu", "instance_type": gtype, "count": 3,
                         "availability_zone":
                         types[gtype]["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
doc = wait_operation(s, r.json["operation_id"], timeout=240)
if not t.eq(doc.get("state"), "succeeded", "cluster created"):
    t.diag(json.dumps(doc)[-2000:])
    s.stop()
    t.done()
    sys.exit(0)
kube = Kubectl(s, "inf")
kget = kube.get


def ready(name, want=1):
    def f():
        r = call("GET", C + "/inference/" + name)
        return r if r.status == 200 and r.json.get("ready") and \
            r.json.get("ready_replicas") == want else None
    return f


chat = {"messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "say hello"}],
        "max_tokens": 32, "temperature": 0}

# ---- self-hosted behind a ClusterIP Service
r = call("POST", C + "/inference", {
    "endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B",
    "served_model_name": "qwen3", "replicas": 1})
t.eq(r.status, 200, "inference_deploy self-hosted ClusterIP")
t.ok(wait_for(ready("qwen"), 30), "qwen becomes ready")

# The sandbox's API server proxies to a Ready pod, as a real one would.
p = kube.run("get", "--raw",
             "/api/v1/namespaces/default/services/qwen:80/proxy/v1/models")
t.ok(p.returncode == 0 and json.loads(p.stdout or "{}").get(
    "data", [{}])[0].get("id") == "qwen3",
     "kubectl get --raw through services/proxy: vLLM lists qwen3")

r = call("POST", C + "/inference/qwen:invoke", chat)
j = r.json or {}
t.ok(r.status == 200 and j.get("object") == "chat.completion" and
     j.get("model") == "qwen3", "inference_invoke: the server's "
     "chat.completion naming the model (%d %s)" % (r.status, r.body[:200]))
msg = ((j.get("choices") or [{}])[0].get("message") or {})
t.ok(msg.get("role") == "assistant" and "say hello" in
     (msg.get("content") or ""), "the reply answers the user message")
r2 = call("POST", C + "/inference/qwen:invoke", chat)
t.ok(r2.status == 200 and r2.json == j, "the reply is deterministic")
r = call("POST", C + "/inference/qwen:invoke", dict(chat, max_tokens=2))
t.ok(r.status == 200 and r.json["choices"][0]["finish_reason"] ==
     "length" and r.json["usage"]["completion_tokens"] == 2,
     "max_tokens reaches the server")
r = call("POST", C + "/inference/qwen:invoke?dry_run=true", chat)
t.ok(r.status == 200 and r.json.get("proxy_path") ==
     "/api/v1/namespaces/default/services/qwen:80/proxy/v1/chat/"
     "completions" and r.json["request"]["model"] == "qwen3",
     "invoke dry run: the proxy path and the body it would send")

# ---- what invoke refuses
for extra in ({"url": "http://169.254.169.254/"}, {"host": "evil"},
              {"port": 22}, {"service": "kubernetes"}):
    r = call("POST", C + "/inference/qwen:invoke", dict(chat, **extra))
    key = list(extra)[0]
    t.ok(r.status == 400 and field_error(r, key),
         "invoke with a %s field: 400 naming it" % key)
r = call("POST", C + "/inference/qwen:invoke", dict(chat, stream=True))
t.ok(r.status == 400 and field_error(r, "stream"), "stream true: 400")
r = call("POST", C + "/inference/qwen:invoke", {"messages": []})
t.ok(r.status == 400 and field_error(r, "messages"), "no messages: 400")
r = call("POST", C + "/inference/qwen:invoke", {
    "messages": [{"role": "wizard", "content": "x"}]})
t.ok(r.status == 400 and field_error(r, "messages[0].role", "enum"),
     "a bad role: 400 naming messages[0].role")
r = call("POST", C + "/inference/nope:invoke", chat)
t.eq(r.status, 404, "invoke of an unknown endpoint: 404")
# A Service Slipway did not make, even one selecting the same pods.
foreign = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": "foreign", "namespace": "default",
                        "labels": {"slipway.dev/inference": "foreign"}},
           "spec": {"selector": {"slipway.dev/inference": "qwen"},
                    "ports": [{"port": 80, "targetPort": 8000}]}}
p = kube.run("apply", "-f", "-", stdin=json.dumps(foreign))
t.eq(p.returncode, 0, "kubectl: a foreign Service selecting qwen's pods")
r = call("POST", C + "/inference/foreign:invoke", chat)
t.eq(r.status, 404, "invoke of a foreign Service: 404")
kube.run("delete", "service", "foreign")

# ---- no Ready server: the proxy's own 503
r = call("POST", C + "/inference", {
    "endpoint_name": "stuck", "engine": "sglang", "model": "Qwen3-0.6B",
    "instance_type": other})
t.eq(r.status, 200, "deploy an endpoint no node can run")
r = call("POST", C + "/inference/stuck:invoke", chat)
t.ok(r.status == 503 and "no endpoints available for service" in
     (r.json or {}).get("detail", ""), "invoke with no Ready pod: 503 "
     "with the proxy's words (%d %s)" % (r.status, r.body[:200]))
r = call("DELETE", C + "/inference/stuck")
t.eq(r.status, 200, "stuck endpoint deleted")

# ---- self-hosted behind an internal NLB, SGLang
r = call("POST", C + "/inference", {
    "endpoint_name": "sg", "engine": "sglang", "model": "Qwen3-0.6B",
    "exposure": "load-balancer"})
t.eq(r.status, 200, "inference_deploy self-hosted NLB")
t.ok(wait_for(ready("sg"), 60), "sg becomes ready")
r = call("POST", C + "/inference/sg:invoke", chat)
t.ok(r.status == 200 and r.json.get("model") == "Qwen3-0.6B" and
     r.json.get("system_fingerprint", "").startswith("sglang:"),
     "invoke the NLB endpoint: SGLang answers (%d %s)" %
     (r.status, r.body[:200]))

# ---- scaling
r = call("PATCH", C + "/inference/qwen", {"replicas": 2, "autoscaling": {
    "max_replicas": 2, "prometheus_url": "http://prom:9090"}})
t.ok(r.status == 400, "scale with replicas and autoscaling: 400")
r = call("PATCH", C + "/inference/qwen", {})
t.ok(r.status == 400, "scale with neither: 400")
r = call("PATCH", C + "/inference/qwen?dry_run=true", {"replicas": 2})
t.ok(r.status == 200 and r.json.get("dry_run") and
     kget("deployment", "qwen")["spec"]["replicas"] == 1,
     "scale dry run changes nothing")
r = call("PATCH", C + "/inference/qwen", {"replicas": 2})
t.ok(r.status == 200 and r.json.get("status_tool") == "inference_get",
     "inference_scale replicas 2 names inference_get")
t.eq(kget("deployment", "qwen")["spec"]["replicas"], 2,
     "kubectl: the Deployment wants 2")
t.ok(wait_for(ready("qwen", 2), 30), "2 ready replicas")
r = call("PATCH", C + "/inference/qwen", {"autoscaling": {
    "max_replicas": 3, "prometheus_url": "http://prom:9090"}})
t.ok(r.status == 409 and "feature_set" in r.json.get("detail", ""),
     "autoscaling without KEDA: 409 naming feature_set")
r = call("PATCH", C + "/inference/nope", {"replicas": 2})
t.eq(r.status, 404, "scale an unknown endpoint: 404")

# ---- undeploy leaves nothing
for name in ("qwen", "sg"):
    r = call("DELETE", C + "/inference/" + name)
    t.eq(r.status, 200, "inference_delete " + name)
left = kget("all", "-l", "app.kubernetes.io/managed-by=slipway,"
            "slipway.dev/inference")
t.ok(left is not None and not [i for i in left["items"]
                               if i["kind"] != "Pod" or not
                               i["metadata"].get("deletionTimestamp")],
     "no endpoint object is left")

ids = set()
for pth in s.get("/api/v1/openapi.json").json["paths"].values():
    for op in pth.values():
        if isinstance(op, dict) and "operationId" in op:
            ids.add(op["operationId"])
need = {"inference_invoke", "inference_scale"}
t.ok(need <= ids, "operations published: %s" % sorted(need - ids))

kube.close()
s.stop()
t.done()
