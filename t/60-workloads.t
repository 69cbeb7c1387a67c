#!/usr/bin/python3
# 60-workloads.t: training jobs, model downloads and inference on a
# sandbox cluster: field and cross-field errors (400 naming the field),
# 409 naming feature_set before the operator's CRD exists, dry runs
# that apply nothing, HyperPodPyTorchJob and RayJob pods seen with
# kubectl, status, bounded logs with parsed metrics, a model download
# whose returned name is the Job's and whose token lives only in a
# Secret, vLLM behind a LoadBalancer Service, and the delete paths.
# The operators come as on a real cluster: the training operator by
# its EKS add-on, KubeRay by feature_set (its Helm Job).
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Kubectl, Stack, aws_cli, wait_for, gpu_cluster, wait_operation

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
C = "/api/v1/clusters/wl"
TOKEN = "hf_SlipwayTestSecret0123456789abcdef"
answers = []


def call(method, path, body=None):
    r = s.request(method, path, body=body)
    answers.append(r.body)
    return r


def field_error(r, field, rule=None):
    return any(e.get("field") == field and (rule is None or
                                            e.get("rule") == rule)
               for e in (r.json or {}).get("errors", []))


# ---- a small cluster with S3 storage
gtype, types = gpu_cluster(t, s, "wl", 3)

kube = Kubectl(s, "wl")
desc = kube.desc
k = kube.run
kget = kube.get

job = {"job_name": "llama-sft", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": 1, "dataset": "alpaca", "model": "llama-3-8b",
       "mlflow_tracking_uri": "http://mlflow.mlflow:5000",
       "max_steps": 40, "env": {"STEP_SECONDS": "2"}}

# ---- bad input: 400 naming the field, before any cluster call
bad = [
    (dict(job, job_name="Bad_Name"), "job_name", "pattern"),
    (dict(job, gpus_per_node=0), "gpus_per_node", "minimum"),
    (dict(job, recipe="nope"), "recipe", "enum"),
    (dict(job, image="bad image:1"), "image", "pattern"),
    (dict(job, dataset="../etc/passwd"), "dataset", "pattern"),
    (dict(job, recipe="verl"), "recipe", "kind"),
    (dict(job, recipe="llama-factory"), "config", "required"),
    (dict(job, env={"BAD-NAME": "x"}), "env.BAD-NAME", "pattern"),
    (dict(job, env={"HF_TOKEN": "x"}), "env.HF_TOKEN", "reserved"),
    (dict(job, bogus=1), "bogus", "unknown"),
]
for b, field, rule in bad:
    r = call("POST", C + "/training-jobs", b)
    if not t.ok(r.status == 400 and field_error(r, field, rule),
                "400 names %s (%s)" % (field, rule)):
        t.diag(repr(r))
# ---- a per-node request no instance type of the cluster holds: 400
# naming the field and the largest node, at the dry run and the submit
g = types[gtype]["gpus"]
r = call("POST", C + "/training-jobs?dry_run=true",
         dict(job, gpus_per_node=g + 1))
t.ok(r.status == 400 and field_error(r, "gpus_per_node", "fits") and
     "largest node" in r.body and gtype in r.body,
     "%d GPUs per node on %d-GPU nodes: 400 naming the largest node"
     % (g + 1, g))
r = call("POST", C + "/training-jobs", dict(job, efa_per_node=1))
t.ok(r.status == 400 and field_error(r, "efa_per_node", "fits"),
     "an EFA interface on nodes without EFA: 400 names efa_per_node")
r = call("POST", C + "/training-jobs?dry_run=true",
         dict(job, instance_type="ml.p5.48xlarge"))
t.ok(r.status == 400 and field_error(r, "instance_type", "cluster") and
     gtype in r.body, "an instance type the cluster has no group of: 400 "
     "lists its types")
r = call("POST", C + "/inference?dry_run=true",
         {"endpoint_name": "x", "engine": "vllm", "model": "m",
          "gpus_per_replica": g + 1})
t.ok(r.status == 400 and field_error(r, "gpus_per_replica", "fits"),
     "an endpoint replica larger than any node: 400 names gpus_per_replica")
r = call("POST", C + "/training-jobs?dry_run=true",
         dict(job, gpus_per_node=g))
t.ok(r.status != 400, "a request that fits is not refused (%d GPUs: %d)"
     % (g, r.status))

r = call("POST", C + "/inference", {"endpoint_name": "x", "engine": "vllm",
                                    "model": "m", "router": True})
t.ok(r.status == 400 and field_error(r, "router", "engine"),
     "router with vllm: 400 names router")
r = call("POST", C + "/inference", {"endpoint_name": "x", "engine": "tgi",
                                    "model": "m"})
t.ok(r.status == 400 and field_error(r, "engine", "enum"),
     "unknown engine: 400")
r = call("POST", C + "/models:download", {"model_id": "a b"})
t.ok(r.status == 400 and field_error(r, "model_id", "pattern"),
     "model id with a space: 400")

# ---- no operator yet: 409 naming feature_set
r = call("POST", C + "/training-jobs", job)
t.ok(r.status == 409 and "feature_set training_operator" in
     r.json.get("detail", ""), "HyperPodPyTorchJob before the CRD: 409 "
     "naming feature_set training_operator")
t.ok(field_error(r, "kind", "feature"), "the 409 names the field")
r = call("POST", C + "/training-jobs", dict(job, kind="ray",
                                            job_name="ray-early"))
t.ok(r.status == 409 and "kuberay" in r.json.get("detail", ""),
     "RayJob before KubeRay: 409 naming kuberay")

# ---- install the training operator add-on, and KubeRay by feature_set
rc, out = aws_cli(s, "eks", "create-addon", "--cluster-name", "wl",
                  "--addon-name", "amazon-sagemaker-hyperpod-training-operator")
t.eq(rc, 0, "aws eks create-addon training operator")
t.ok(wait_for(lambda: k("get", "crd", "hyperpodpytorchjobs.sagemaker."
                        "amazonaws.com").returncode == 0, 30),
     "HyperPodPyTorchJob CRD installed")
# KubeRay's Helm Job installs the upstream ray.io CRDs (with their
# schemas), as on a real cluster; nothing is applied by hand.
r = call("PATCH", C + "/features", {"kuberay": True})
d = wait_operation(s, r.json["operation_id"], timeout=180) \
    if r.status == 202 else {}
if not t.eq(d.get("state"), "succeeded", "feature_set kuberay"):
    t.diag(repr(r) + json.dumps(d)[-1500:])
rcrds = [kget("crd", n + ".ray.io") for n in ("rayclusters", "rayjobs")]
t.ok(all(c and all(v.get("schema", {}).get("openAPIV3Schema", {}).get(
    "properties", {}).get("spec") for v in c["spec"]["versions"])
    for c in rcrds), "KubeRay CRDs installed with their upstream schemas")

# ---- dry run applies nothing
r = call("POST", C + "/training-jobs?dry_run=true", job)
kinds = [m.get("kind") for m in (r.json or {}).get("manifests", [])]
if r.status != 200:
    t.diag(repr(r))
t.ok(r.status == 200 and "HyperPodPyTorchJob" in kinds,
     "dry run answers the HyperPodPyTorchJob manifest")
hpj = next((m for m in (r.json or {}).get("manifests", [])
            if m.get("kind") == "HyperPodPyTorchJob"), {})
c0 = hpj.get("spec", {}).get("replicaSpecs", [{}])[0].get(
    "template", {}).get("spec", {}).get("containers", [{}])[0]
cmd = c0.get("command", [""])
t.ok(cmd[:2] == ["sh", "-c"] and "hyperpod-elastic-agent==" in cmd[2] and
     cmd[2].endswith('exec hyperpodrun "$@"') and cmd[3] == "hyperpodrun" and
     "/data/code/train.py" in cmd and "/data/datasets/alpaca" in cmd,
     "argv: install the pinned agent, exec hyperpodrun + script + S3 paths")
rules = {m.get("name"): m for m in hpj.get("spec", {}).get(
    "runPolicy", {}).get("logMonitoringConfiguration", [])}
t.ok(rules.get("JobStart", {}).get("expectedStartCutOffInSeconds", 0) > 0 and
     rules.get("JobHang", {}).get("expectedRecurringFrequencyInSeconds",
                                  0) > 0,
     "runPolicy.logMonitoringConfiguration: start and hang rules")
envs = {e["name"]: e.get("value") for e in c0.get("env", [])}
t.ok(envs.get("OUTPUT_DIR") == "/data/outputs/llama-sft" and
     envs.get("MLFLOW_TRACKING_URI") == "http://mlflow.mlflow:5000",
     "env: output dir and MLflow URI")
t.eq(kget("hyperpodpytorchjobs", "-A")["items"], [],
     "dry run created no HyperPodPyTorchJob")

# ---- HyperPodPyTorchJob
r = call("POST", C + "/training-jobs", job)
t.ok(r.status == 201 and r.json.get("job") == "llama-sft" and
     r.json.get("status_tool") == "training_job_get",
     "submit: 201, names the job and training_job_get")
r = call("POST", C + "/training-jobs", job)
t.ok(r.status == 409 and field_error(r, "job_name", "unique"),
     "the same name again: 409")
pods = wait_for(lambda: (kget("pods", "-l", "slipway.dev/job=llama-sft")
                         or {}).get("items"))
t.ok(pods and pods[0]["spec"]["volumes"][0]["persistentVolumeClaim"]
     ["claimName"] == "s3-claim", "kubectl: the job's pod mounts s3-claim")


def state_of(name):
    r = call("GET", C + "/training-jobs/" + name)
    return r.json.get("state") if r.status == 200 else None


st = wait_for(lambda: state_of("llama-sft") in ("Running", "Succeeded") and
              state_of("llama-sft"))
t.ok(st in ("Running", "Succeeded"), "training_job_get: %s" % st)
r = call("GET", C + "/training-jobs/llama-sft")
t.ok(r.json.get("kind") == "HyperPodPyTorchJob" and r.json.get("pods"),
     "training_job_get lists the pods")


def logs_with_metrics():
    r = call("GET", C + "/training-jobs/llama-sft/logs?tail=30")
    m = (r.json or {}).get("metrics") or {}
    return r if m.get("tokens_per_second") else None


r = wait_for(logs_with_metrics, 20)
lines = [ln for p in (r.json["pods"] if r else []) for ln in p["lines"]]
t.ok(r and any("tokens/s=" in ln for ln in lines),
     "logs return throughput lines")
t.ok(r and len(r.json["pods"][0]["lines"]) <= 30, "logs are bounded by tail")
m = r.json["metrics"] if r else {}
t.ok(m.get("step", 0) > 0 and m.get("max_steps") == 40 and
     m.get("loss", 0) > 0 and m.get("tokens_per_second", 0) > 1000,
     "metrics parsed: step %s/%s loss %s tokens/s %s" % (
         m.get("step"), m.get("max_steps"), m.get("loss"),
         m.get("tokens_per_second")))
r = call("GET", C + "/training-jobs/llama-sft/logs?tail=0")
t.ok(r.status == 400 and field_error(r, "tail", "minimum"),
     "tail=0 refused")

# ---- RayJob
# The Ray cluster's pods may come and go between two polls (the job is
# short and the cluster is shut down after it), so the test replays the
# pod events since a resourceVersion taken before the submit: a watch
# from there sees every pod that existed.
p = k("get", "--raw", "/api/v1/pods?limit=1")
rv = json.loads(p.stdout)["metadata"]["resourceVersion"] \
    if p.returncode == 0 else None
t.ok(rv, "pods listed at resourceVersion %s" % rv)
r = call("POST", C + "/training-jobs", dict(job, kind="ray",
                                            job_name="ray-train"))
t.eq(r.status, 201, "ray job submitted")
t.ok(wait_for(lambda: kget("rayjobs", "ray-train")), "kubectl: RayJob")


def ray_started():
    # The RayJob may finish (and its cluster go) before a pod list sees
    # it, so read the kubelet's events, which outlive the pods.
    rc = ((kget("rayjobs", "ray-train") or {}).get("status") or {}).get(
        "rayClusterName")
    ev = [e for e in (kget("events") or {}).get("items", [])
          if rc and e.get("reason") == "Pulled" and
          e.get("involvedObject", {}).get("name", "").startswith(rc + "-")]
    kinds = {"head" if "-head-" in e["involvedObject"]["name"] else "worker"
             for e in ev}
    return ev if kinds == {"head", "worker"} else None


ev = wait_for(ray_started, 30)
t.ok(ev and all('"rayproject/ray:' in e.get("message", "") for e in ev),
     "the RayJob's head and worker pods started on the Ray image")
if not ev:
    t.diag(json.dumps((kget("rayjobs", "ray-train") or {}).get("status")))
st = wait_for(lambda: state_of("ray-train") in ("Running", "Succeeded") and
              state_of("ray-train"), 60)
t.ok(st in ("Running", "Succeeded"), "ray training_job_get: %s" % st)
p = k("get", "--raw", "/api/v1/pods?watch=1&resourceVersion=%s"
      "&labelSelector=slipway.dev%%2Fjob%%3Dray-train&timeoutSeconds=2" % rv)
added = sorted({json.loads(ln)["object"]["metadata"]["name"]
                for ln in p.stdout.splitlines() if ln.strip() and
                json.loads(ln).get("type") == "ADDED"})
t.ok(added, "kubectl watch from before the submit: the RayJob's cluster "
     "pods existed (%s)" % " ".join(added))
r = call("GET", C + "/training-jobs")
names = {j["job"]: j for j in r.json.get("items", [])}
t.ok("llama-sft" in names and "ray-train" in names,
     "training_job_list shows both jobs")

# ---- an image tag that was never published fails to pull, and says so
# (PyTorch publishes no bare version tag, only CUDA builds).
r = call("POST", C + "/training-jobs", dict(job, job_name="typo-img",
                                            image="pytorch/pytorch:2.7.1"))
t.eq(r.status, 201, "a job with an unpublished image tag is submitted")


def pull_failed():
    r = call("GET", C + "/training-jobs/typo-img")
    p = ((r.json or {}).get("pods") or [{}])[0] if r.status == 200 else {}
    return p if p.get("reason") == "ImagePullBackOff" else None


p = wait_for(pull_failed, 60)
t.ok(p and p.get("phase") == "Pending" and "pytorch/pytorch:2.7.1" in
     p.get("message", "") and "not found" in p.get("message", ""),
     "training_job_get: its pod waits in ImagePullBackOff with the "
     "registry's not found (%s)" % p)
t.eq(call("DELETE", C + "/training-jobs/typo-img").status, 200,
     "the job with the unpublished image is deleted")

# ---- model download
r = call("POST", C + "/models:download?dry_run=true",
         {"model_id": "Qwen/Qwen3-0.6B", "hf_token": TOKEN})
t.ok(r.status == 200 and any(m["kind"] == "Job" for m in
                             r.json["manifests"]), "download dry run")
t.ok(kget("jobs", "-n", "slipway-models") in (None, {"items": []}) or
     not kget("jobs", "-n", "slipway-models")["items"],
     "dry run created no Job")
r = call("POST", C + "/models:download",
         {"model_id": "Qwen/Qwen3-0.6B", "hf_token": TOKEN})
t.ok(r.status == 201 and r.json.get("status_tool") == "training_job_get",
     "model_download: 201 naming training_job_get")
dl = r.json.get("job", "")
t.ok(dl.startswith("dl-qwen3-0-6b-"), "job name derived from the model")
kjob = kget("job", dl, "-n", "slipway-models")
t.ok(kjob is not None, "kubectl: Job %s exists under the returned name" % dl)
t.ok(kjob and TOKEN not in json.dumps(kjob),
     "the token is not in the Job")
cmd = kjob["spec"]["template"]["spec"]["containers"][0]["command"] \
    if kjob else []
t.ok(cmd[:2] == ["python3", "-c"] and "Qwen/Qwen3-0.6B" in cmd and
     "/data/models/Qwen3-0.6B" in cmd, "argv carries the model id, no shell")
sec = kget("secret", dl + "-hf-token", "-n", "slipway-models")
t.ok(sec is not None and sec.get("metadata", {}).get(
    "ownerReferences", [{}])[0].get("name") == dl,
    "token Secret exists, owned by the Job")
t.ok(kget("pvc", "s3-claim", "-n", "slipway-models") is not None,
     "s3-claim mirrored into slipway-models")
r = call("GET", C + "/training-jobs/" + dl)
t.ok(r.status == 200 and r.json.get("type") == "model-download",
     "training_job_get finds the download by the returned name")

# ---- inference
inf = {"endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B",
       "exposure": "load-balancer", "gpus_per_replica": 1, "replicas": 1}
r = call("POST", C + "/inference?dry_run=true", dict(inf,
                                                     endpoint_name="dry"))
t.ok(r.status == 200 and [m["kind"] for m in r.json["manifests"]] ==
     ["Deployment", "Service"], "inference dry run: Deployment + Service")
t.ok(kget("deployment", "dry") is None, "dry run created no Deployment")
r = call("POST", C + "/inference", dict(inf, autoscaling={
    "max_replicas": 2, "prometheus_url": "http://prom:9090"}))
t.ok(r.status == 400 and field_error(r, "replicas", "autoscaling"),
     "replicas with autoscaling: 400 names replicas")
noreps = {k2: v for k2, v in inf.items() if k2 != "replicas"}
r = call("POST", C + "/inference", dict(noreps, autoscaling={
    "min_replicas": 3, "max_replicas": 2,
    "prometheus_url": "http://prom:9090"}))
t.ok(r.status == 400 and field_error(r, "autoscaling.min_replicas",
                                     "range"), "min > max: 400")
r = call("POST", C + "/inference", dict(noreps, autoscaling={
    "max_replicas": 2, "prometheus_url": "http://prom:9090"}))
t.ok(r.status == 409 and "feature_set" in r.json.get("detail", ""),
     "autoscaling without KEDA: 409 naming feature_set")
r = call("POST", C + "/inference", inf)
t.ok(r.status == 200 and r.json.get("status_tool") == "inference_get",
     "inference_deploy: 200 naming inference_get")
d = kget("deployment", "qwen")
t.ok(d and d["spec"]["template"]["spec"]["containers"][0]["command"][:2]
     == ["vllm", "serve"], "kubectl: vLLM Deployment")
svc = kget("service", "qwen")
t.ok(svc and svc["spec"]["type"] == "LoadBalancer",
     "kubectl: LoadBalancer Service")


def ready():
    r = call("GET", C + "/inference/qwen")
    return r if r.status == 200 and r.json.get("ready") else None


r = wait_for(ready, 30)
t.ok(r and r.json["ready_replicas"] == 1 and
     r.json["service"]["type"] == "LoadBalancer",
     "inference_get: 1 ready replica behind the load balancer")
r = call("GET", C + "/inference")
t.ok(any(i["endpoint"] == "qwen" for i in r.json.get("items", [])),
     "inference_list shows it")

# ---- deletes
r = call("DELETE", C + "/training-jobs/llama-sft?dry_run=true")
t.ok(r.status == 200 and kget("hyperpodpytorchjobs", "llama-sft"),
     "delete dry run keeps the job")
r = call("DELETE", C + "/training-jobs/llama-sft")
t.eq(r.status, 200, "training_job_delete")
t.ok(kget("hyperpodpytorchjobs", "llama-sft") is None and
     not (kget("pods", "-l", "slipway.dev/job=llama-sft") or
          {}).get("items"), "the job and its pods are gone")
t.eq(call("GET", C + "/training-jobs/llama-sft").status, 404,
     "training_job_get after delete: 404")
r = call("DELETE", C + "/training-jobs/" + dl)
t.ok(r.status == 200 and kget("job", dl, "-n", "slipway-models") is None and
     kget("secret", dl + "-hf-token", "-n", "slipway-models") is None,
     "download delete removes the Job and the Secret")
r = call("DELETE", C + "/inference/qwen")
t.ok(r.status == 200 and kget("deployment", "qwen") is None and
     kget("service", "qwen") is None, "inference_delete")
t.eq(call("GET", C + "/inference/qwen").status, 404,
     "inference_get after delete: 404")

# ---- every tool is in the API, and the token leaked nowhere
ids = set()
for pth in s.get("/api/v1/openapi.json").json["paths"].values():
    for op in pth.values():
        if isinstance(op, dict) and "operationId" in op:
            ids.add(op["operationId"])
need = {"training_job_submit", "training_job_list", "training_job_get",
        "training_job_logs", "training_job_delete", "model_download",
        "inference_deploy", "inference_list", "inference_get",
        "inference_delete"}
t.ok(need <= ids, "all workload operations published: %s" %
     sorted(need - ids))
t.ok(all(TOKEN not in a for a in answers), "the token is in no API answer")
logs = os.path.join(s.state, "logs")
leak = [n for n in os.listdir(logs) if TOKEN in s.log_text(n)]
t.ok(not leak, "the token is in no log: %s" % leak)

kube.close()
s.stop()
t.done()
