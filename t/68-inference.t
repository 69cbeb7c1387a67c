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
from harness import Kubectl, Stack, wait_for, gpu_cluster, wait_operation

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None or shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
import harness  # noqa: E402
import wsclient  # noqa: E402
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
gtype, types = gpu_cluster(t, s, "inf", 3, bucket="inf-models")
other = next(n for n, i in sorted(types.items()) if n != gtype)
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

# ---- a request no node of the cluster can hold is refused up front
r = call("POST", C + "/inference", {
    "endpoint_name": "nowhere", "engine": "sglang", "model": "Qwen3-0.6B",
    "instance_type": other})
t.ok(r.status == 400 and field_error(r, "instance_type"),
     "deploy on an instance type the cluster has no group of: 400 naming "
     "instance_type")

# ---- no Ready server: the proxy's own 503 (a vLLM tag that was never
# published fails to pull, so no pod is ever Ready)
r = call("POST", C + "/inference", {
    "endpoint_name": "stuck", "engine": "vllm", "model": "Qwen3-0.6B",
    "image": "vllm/vllm-openai:v0.9.9"})
t.eq(r.status, 200, "deploy an endpoint whose image cannot be pulled")
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

# ---- the self-hosted endpoints go (their GPUs are needed below)
for name in ("qwen", "sg"):
    r = call("DELETE", C + "/inference/" + name)
    t.eq(r.status, 200, "inference_delete " + name)


def staying():
    """The endpoints' objects not on their way out (the garbage collector
    removes a Deployment's pods after it, as a real cluster's does)."""
    left = kget("all", "-l", "app.kubernetes.io/managed-by=slipway,"
                "slipway.dev/inference")
    if left is None:
        return ["(kubectl failed)"]
    return [i["kind"] + "/" + i["metadata"]["name"] for i in left["items"]
            if i["kind"] != "Pod" or not
            i["metadata"].get("deletionTimestamp")]


wait_for(lambda: not staying(), 30)
stay = staying()
t.ok(not stay, "no endpoint object is left (%s)" % ", ".join(stay))


# ---- the hot GPU pool: pods move to an endpoint by label
P = C + "/inference-pools"
pool = {"pool_name": "gpool", "engine": "vllm", "model": "Qwen3-0.6B",
        "served_model_name": "pooled", "replicas": 2}
r = call("POST", P + "?dry_run=true", pool)
t.ok(r.status == 200 and [m["kind"] for m in r.json["manifests"]] ==
     ["ConfigMap", "Pod", "Pod"] and kget("pod", "gpool-0") is None,
     "pool dry run: its record and two pods, nothing created")
r = call("POST", P, pool)
t.ok(r.status == 200 and r.json.get("status_tool") == "inference_pool_list",
     "inference_pool_create names inference_pool_list")


def pool_state():
    r = call("GET", P)
    return next((i for i in (r.json or {}).get("items", [])
                 if i["pool"] == "gpool"), None)


t.ok(wait_for(lambda: (pool_state() or {}).get("ready") == 2, 30),
     "inference_pool_list: 2 ready pods")
r = call("POST", C + "/inference", {"endpoint_name": "hot",
                                    "exposure": "pool", "pool": "nope"})
t.eq(r.status, 404, "a pool endpoint on an unknown pool: 404")
r = call("POST", C + "/inference", {"endpoint_name": "hot",
                                    "exposure": "pool", "pool": "gpool",
                                    "replicas": 2})
t.ok(r.status == 400 and field_error(r, "replicas", "pool"),
     "a pool endpoint takes no replicas: 400")
r = call("POST", C + "/inference", {"endpoint_name": "hot",
                                    "exposure": "pool", "pool": "gpool"})
t.eq(r.status, 200, "inference_deploy exposure pool")
r = call("GET", C + "/inference/hot")
t.ok(r.status == 200 and r.json.get("replicas") == 0 and
     not r.json.get("ready"), "the pool endpoint has no pod yet")
r = call("POST", C + "/inference/hot:invoke", chat)
t.eq(r.status, 503, "invoke before an assignment: 503")
r = call("POST", P + "/gpool:assign?dry_run=true", {"endpoint": "hot",
                                                    "count": 2})
t.ok(r.status == 200 and len(r.json.get("assigned", [])) == 2 and
     not (kget("pods", "-l", "slipway.dev/assigned-to=hot") or
          {"items": [1]})["items"], "assign dry run moves nothing")
r = call("POST", P + "/gpool:assign", {"endpoint": "hot", "count": 2})
t.ok(r.status == 200 and sorted(r.json.get("assigned", [])) ==
     ["gpool-0", "gpool-1"], "inference_pool_assign 2 pods")
pods = kget("pods", "-l", "slipway.dev/assigned-to=hot") or {"items": []}
t.eq(sorted(p["metadata"]["name"] for p in pods["items"]),
     ["gpool-0", "gpool-1"], "kubectl: both pods carry assigned-to=hot")
r = wait_for(ready("hot", 2), 10)
t.ok(r and r.json.get("exposure") == "pool", "inference_get: 2 ready")
r = call("GET", C + "/inference/hot/logs?tail=5")
j = r.json or {}
t.ok(r.status == 200 and j.get("kind") == "pool" and
     sorted(x["pod"] for x in j.get("pods", [])) == ["gpool-0", "gpool-1"]
     and all(0 < len(x["lines"]) <= 5 for x in j["pods"]),
     "inference_logs of the pool endpoint: its two assigned pods' lines "
     "(%d %s)" % (r.status, r.body[:300]))
r = call("POST", C + "/inference/hot:invoke", chat)
t.ok(r.status == 200 and r.json.get("model") == "pooled",
     "invoke the pool endpoint: a pool pod answers")
r = call("POST", P + "/gpool:assign", {"endpoint": "hot"})
t.ok(r.status == 409 and "inference_pool_create" in r.json.get("detail", ""),
     "assign with no free pod: 409")
r = call("POST", P, dict(pool, replicas=1))
t.ok(r.status == 200 and r.json.get("kept_assigned") == ["gpool-1"],
     "pool scale-in to 1 keeps the assigned gpool-1")
t.ok(kget("pod", "gpool-1") is not None and
     not kget("pod", "gpool-1")["metadata"].get("deletionTimestamp"),
     "kubectl: gpool-1 still runs")
r = call("POST", P + "/gpool:release", {"endpoint": "hot", "count": 1})
t.ok(r.status == 200 and len(r.json.get("released", [])) == 1,
     "inference_pool_release 1 pod")
t.ok(wait_for(ready("hot", 1), 10), "the endpoint keeps 1 ready pod")
r = call("DELETE", P + "/gpool")
t.ok(r.status == 409 and "release" in r.json.get("detail", ""),
     "pool delete while serving an endpoint: 409")
r = call("DELETE", C + "/inference/hot")
t.ok(r.status == 200 and kget("service", "hot") is None and
     not (kget("pods", "-l", "slipway.dev/assigned-to") or
          {"items": [1]})["items"],
     "inference_delete hot gives its pods back to the pool")
r = call("POST", P, dict(pool, replicas=1))
t.ok(r.status == 200 and r.json.get("kept_assigned") == [],
     "resize to 1 again: the now free gpool-1 goes")
r = call("DELETE", P + "/gpool")
t.eq(r.status, 200, "inference_pool_delete")
t.ok(wait_for(lambda: not (kget("pods", "-l", "slipway.dev/pool") or
                           {"items": [1]})["items"], 20) and
     kget("configmap", "gpool-pool") is None, "no pool pod or record left")

# ---- managed: the HyperPod inference operator's InferenceEndpointConfig
mgd = {"endpoint_name": "mgd", "kind": "managed", "instance_type": gtype,
       "model_source": {"type": "s3", "uri": "s3://inf-models/models/qwen"},
       "kv_cache": {"l1": True, "l2": "tieredstorage"},
       "routing": {"strategy": "kvaware"}, "replicas": 1}
r = call("POST", C + "/inference", mgd)
t.ok(r.status == 409 and "feature_set" in (r.json or {}).get("detail", ""),
     "managed before the operator is installed: 409 naming feature_set")
r = s.request("PATCH", C + "/features", {"inference_operator": True})
t.eq(r.status, 202, "feature_set inference_operator: 202")
d = wait_operation(s, (r.json or {}).get("operation_id"), timeout=180)
t.eq(d.get("state"), "succeeded", "inference operator installed")
for body, field in (
        ({k: v for k, v in mgd.items() if k != "model_source"},
         "model_source"),
        (dict(mgd, engine="sglang"), "engine"),
        (dict(mgd, model="x"), "model"),
        (dict(mgd, model_source={"type": "s3", "uri": "inf-models"}),
         "model_source.uri"),
        (dict(mgd, model_source={"type": "s3",
                                 "uri": "s3://inf-models/../../etc"}),
         "model_source.uri"),
        (dict(mgd, model_source={"type": "fsx",
                                 "uri": "fs-0123456789abcdef0/../etc"}),
         "model_source.uri"),
        (dict({k: v for k, v in mgd.items() if k != "replicas"},
              autoscaling={"max_replicas": 2,
                           "prometheus_url": "http://prom:9090"}),
         "autoscaling.prometheus_url")):
    r = call("POST", C + "/inference", body)
    t.ok(r.status == 400 and field_error(r, field),
         "managed: 400 naming %s" % field)
r = call("POST", C + "/inference?dry_run=true", mgd)
man = ((r.json or {}).get("manifests") or [{}])[0]
t.ok(r.status == 200 and man.get("kind") == "InferenceEndpointConfig" and
     [a["create"] for a in r.json.get("aws", [])] ==
     ["S3 bucket", "IAM role policy"],
     "managed dry run: the InferenceEndpointConfig, its bucket and policy")
t.ok(kget("inferenceendpointconfigs", "mgd") is None,
     "the dry run created nothing")
r = call("POST", C + "/inference", mgd)
t.ok(r.status == 200 and r.json.get("status_tool") == "inference_get",
     "inference_deploy managed (%d %s)" % (r.status, r.body[:300]))
tls = (r.json or {}).get("tls_bucket", "")
iec = kget("inferenceendpointconfigs", "mgd") or {}
spec = iec.get("spec", {})
t.ok(spec.get("kvCacheSpec", {}).get("enableL2Cache") is True and
     spec["kvCacheSpec"]["l2CacheSpec"]["l2CacheBackend"] ==
     "tieredstorage" and spec.get("intelligentRoutingSpec") ==
     {"enabled": True, "routingStrategy": "kvaware"} and
     spec.get("modelSourceConfig", {}).get("s3Storage", {}).get(
         "bucketName") == "inf-models" and
     spec.get("tlsConfig", {}).get("tlsCertificateOutputS3Uri") ==
     "s3://%s/" % tls, "kubectl: kvCacheSpec, intelligentRoutingSpec, "
     "modelSourceConfig and tlsConfig as asked")
# The API server checks the upstream CRD's schema: a bad strategy is refused.
bad = json.loads(json.dumps(iec))
for k in ("status", "metadata"):
    bad.pop(k, None)
bad["metadata"] = {"name": "bad", "namespace": "default"}
bad["spec"]["intelligentRoutingSpec"]["routingStrategy"] = "random"
p = kube.run("apply", "-f", "-", stdin=json.dumps(bad))
t.ok(p.returncode != 0 and "routingStrategy" in p.stderr,
     "kubectl: the CRD schema refuses routingStrategy random")
rc, _ = harness.aws_cli(s, "s3api", "head-bucket", "--bucket", tls)
t.eq(rc, 0, "aws: the TLS bucket exists")
rc, pol = harness.aws_cli(s, "iam", "get-role-policy", "--role-name",
                          "slipway-inf-hp-inference", "--policy-name",
                          "slipway-inference-default-mgd")
t.ok(rc == 0 and tls in json.dumps(pol), "aws: the operator's role may "
     "write the TLS bucket")
r = wait_for(ready("mgd"), 60)
if not r:
    t.diag(kube.run("get", "pods", "-o", "wide").stdout)
    t.diag(json.dumps(kget("pods", "-l", "app=mgd")
                      )[-1500:])
t.ok(r and r.json.get("kind") == "managed" and r.json.get("state") ==
     "DeploymentComplete", "managed endpoint ready (DeploymentComplete)")
r = call("POST", C + "/inference/mgd:invoke", chat)
t.ok(r.status == 200 and r.json.get("model") == "mgd",
     "invoke the managed endpoint (%d %s)" % (r.status, r.body[:200]))
r = call("PATCH", C + "/inference/mgd", {"replicas": 2})
t.eq(r.status, 200, "inference_scale the managed endpoint")
t.eq((kget("inferenceendpointconfigs", "mgd") or {}).get("spec", {}).get(
    "replicas"), 2, "kubectl: spec.replicas 2")
t.ok(wait_for(ready("mgd", 2), 60), "2 managed replicas ready")
r = call("GET", C + "/inference/mgd/logs")
j = r.json or {}
t.ok(r.status == 200 and j.get("kind") == "managed" and
     len(j.get("pods", [])) == 2 and all(
         x["pod"].startswith("mgd-") and x["lines"] and
         all(ln.startswith("INFO:") for ln in x["lines"])
         for x in j["pods"]),
     "inference_logs of the managed endpoint: the server lines of the "
     "operator's Deployment's 2 pods (%d %s)" % (r.status, [
         (x.get("pod"), x.get("phase"), x.get("lines", [])[:1],
          x.get("error")) for x in j.get("pods", [])]))


# The stream follows an operator's pod too: it is Slipway's through its
# ReplicaSet and Deployment, owned by the InferenceEndpointConfig Slipway
# made (no Slipway label on the pod itself).
def first_line(pod):
    try:
        c = wsclient.connect(s.port, "/ws/clusters/inf/pods/default/%s/logs"
                             % pod, {"Authorization": "Bearer " + s.token})
    except wsclient.Refused as e:
        return "refused %s" % e.status
    m = c.recv()
    c.close()
    return m


pods = [x["pod"] for x in j.get("pods", [])]
m = first_line(pods[0]) if pods else None
t.ok(isinstance(m, dict) and m.get("type") == "line" and
     m.get("text", "").startswith("INFO:"),
     "the stream follows the operator's pod %s: %s" % (
         pods[:1], str(m)[:200]))

AMP = ("https://aps-workspaces.us-west-2.amazonaws.com/workspaces/"
       "ws-0123abcd-4567-89ef-0123-456789abcdef")
r = call("PATCH", C + "/inference/mgd", {"autoscaling": {
    "min_replicas": 1, "max_replicas": 3, "prometheus_url": AMP}})
t.eq(r.status, 200, "inference_scale managed: autoscaling")
t.eq(((kget("inferenceendpointconfigs", "mgd") or {}).get("spec", {})
      .get("autoScalingSpec") or {}).get("maxReplicaCount"), 3,
     "kubectl: autoScalingSpec.maxReplicaCount 3")


def mgd_scaledobjects():
    so = kget("scaledobjects", "-l", "app=mgd") or {"items": []}
    return so["items"]


t.ok(wait_for(mgd_scaledobjects, 10), "the operator made a ScaledObject")
r = call("PATCH", C + "/inference/mgd", {"replicas": 2})
t.ok(r.status == 200 and "autoScalingSpec" not in
     (kget("inferenceendpointconfigs", "mgd") or {}).get("spec", {"x": 1}),
     "replicas again drops autoScalingSpec")
t.ok(wait_for(lambda: not mgd_scaledobjects(), 10),
     "and the operator removes its ScaledObject")

# ---- JumpStart
js = {"endpoint_name": "js", "kind": "jumpstart", "instance_type": gtype,
      "model_id": "meta-textgeneration-llama-3-2-1b", "accept_eula": True}
r = call("POST", C + "/inference", {k: v for k, v in js.items()
                                    if k != "model_id"})
t.ok(r.status == 400 and field_error(r, "model_id", "required"),
     "jumpstart without model_id: 400")
r = call("POST", C + "/inference", js)
t.eq(r.status, 200, "inference_deploy jumpstart")
jsm = kget("jumpstartmodels", "js") or {}
t.ok(jsm.get("spec", {}).get("model", {}).get("modelId") ==
     js["model_id"] and jsm["spec"]["server"]["instanceType"] == gtype,
     "kubectl: a JumpStartModel")
t.ok(wait_for(ready("js"), 60), "jumpstart endpoint ready")
r = call("POST", C + "/inference/js:invoke", chat)
t.ok(r.status == 200 and r.json.get("model") == js["model_id"],
     "invoke the JumpStart endpoint (%d %s)" % (r.status, r.body[:200]))
r = call("GET", C + "/inference")
kinds = {i["endpoint"]: i.get("kind", "self-hosted")
         for i in r.json.get("items", [])}
t.ok(kinds.get("mgd") == "managed" and kinds.get("js") == "jumpstart" and
     True, "inference_list shows the managed kinds")

# ---- undeploy leaves nothing
for name in ("mgd", "js"):
    r = call("DELETE", C + "/inference/" + name)
    t.eq(r.status, 200, "inference_delete " + name)
t.ok(kget("inferenceendpointconfigs", "mgd") is None and
     kget("jumpstartmodels", "js") is None, "the operator's resources are "
     "gone")
t.ok(wait_for(lambda: not (kget("deployments", "-l",
                                "inference.sagemaker.aws.amazon.com/"
                                "endpoint") or {"items": [1]})["items"],
              30), "their Deployments are garbage-collected")
st, state = harness.sandbox_call(s, "GET", "/_sandbox/state")
state = json.dumps(state)
t.ok(st == 200 and len(state) > 1000 and "slipway-inf-hp-inference" in
     state, "the sandbox's state dump has the operator's role")
t.ok(tls not in state, "sandbox state: the TLS bucket is gone")
t.ok("slipway-inference-default-mgd" not in state,
     "sandbox state: the operator's role policy is gone")
# ---- a self-hosted endpoint onto KEDA (installed with the operator)
r = call("POST", C + "/inference", {
    "endpoint_name": "auto", "engine": "vllm", "model": "Qwen3-0.6B"})
t.eq(r.status, 200, "deploy a self-hosted endpoint to autoscale")
r = call("PATCH", C + "/inference/auto", {"autoscaling": {
    "min_replicas": 1, "max_replicas": 4, "metric": "kv-cache",
    "threshold": 0.7, "prometheus_url": "http://prom.monitoring:9090"}})
so = kget("scaledobject", "auto") or {}
t.ok(r.status == 200 and so.get("spec", {}).get("maxReplicaCount") == 4 and
     so["spec"]["triggers"][0]["metadata"]["threshold"] == "0.7",
     "inference_scale autoscaling: a KEDA ScaledObject on the endpoint")
r = call("PATCH", C + "/inference/auto", {"replicas": 1})
t.ok(r.status == 200 and kget("scaledobject", "auto") is None,
     "replicas again removes the ScaledObject")
r = call("DELETE", C + "/inference/auto")
t.ok(r.status == 200 and kget("deployment", "auto") is None,
     "inference_delete auto")

ids = set()
for pth in s.get("/api/v1/openapi.json").json["paths"].values():
    for op in pth.values():
        if isinstance(op, dict) and "operationId" in op:
            ids.add(op["operationId"])
need = {"inference_invoke", "inference_scale", "inference_pool_create",
        "inference_pool_list", "inference_pool_delete",
        "inference_pool_assign", "inference_pool_release"}
t.ok(need <= ids, "operations published: %s" % sorted(need - ids))

kube.close()
s.stop()
t.done()
