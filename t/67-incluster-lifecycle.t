#!/usr/bin/python3
# 67-incluster-lifecycle.t: every in-cluster path in one lifecycle,
# through the REST API against the sandbox: a cluster with S3 storage,
# FSx added, every feature on (training operator, inference operator,
# KubeRay, tiered checkpointing, autoscaling over a group at 0), one
# training job per recipe on each kind it runs on, a model download,
# vLLM and SGLang (with its router) behind a ClusterIP Service and a
# load balancer, autoscaling on the queue and on the KV cache, then the
# workloads deleted and each feature turned off (the endpoints outgrow
# the GPU group, so Karpenter grows the group at 0).  Every step must
# succeed; then the whole cluster is read with kubectl: every CRD has a
# structural schema, none came from Slipway's field manager for ray.io,
# every custom object (and the dry-run Secret) passes a server-side dry
# run as it stands, the known defects are absent (region on the
# Mountpoint PV, the device plugins' socket directory, the regional
# health agent image, base64 Secret data, one endpoint per KEDA query,
# log monitoring on HyperPodPyTorchJobs, a Ray image on RayJobs,
# tiered-storage-sa on training pods), and the sandbox's request log
# shows no Kubernetes write that was refused and no CRD written.
import base64
import binascii
import json
import os
import re
import shutil
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (SRCDIR, Kubectl, Stack, sandbox_requests, wait_for,
                     wait_operation)

t = T()
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None or shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
import harness  # noqa: E402
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)
sys.path.insert(0, os.path.join(SRCDIR, "sandbox"))
from slipsand.k8s import images  # noqa: E402

s = Stack(t, sandbox=True, speed=3000)
NAME = "life"
C = "/api/v1/clusters/" + NAME
PROM = "http://prometheus.monitoring:9090"
TOKEN = "hf_SlipwayLifecycleSecret0123456789"
failed_steps = []


def field_error(r, field, rule=None):
    return any(e.get("field") == field and (rule is None or
                                            e.get("rule") == rule)
               for e in (r.json or {}).get("errors", []))


def manifest(r, kind):
    return next((m for m in (r.json or {}).get("manifests", [])
                 if m.get("kind") == kind), {})


def step(method, path, body, what, want=(200, 201, 202), timeout=240):
    """One API call that must succeed; an operation is followed to its
    end and must succeed too.  Returns the answer (or None)."""
    r = s.request(method, path, body=body)
    ok = r.status in want
    doc = None
    if ok and r.status == 202 and (r.json or {}).get("operation_id"):
        doc = wait_operation(s, r.json["operation_id"], timeout=timeout)
        ok = doc.get("state") == "succeeded"
    if not t.ok(ok, what):
        failed_steps.append(what)
        t.diag("%s %s -> %d %s" % (method, path, r.status, r.body[:1500]))
        if doc:
            t.diag(json.dumps(doc)[-2000:])
    return r if ok else None


def stop_early():
    s.stop()
    t.done()
    sys.exit(0)


# ---- the cluster: S3 at create, a GPU group with room, FSx added
types = {i["instance_type"]: i for i in s.get(
    "/api/v1/instance-types?gpu_only=true").json["items"]}
gtype = max((n for n, i in types.items() if not i["efa_supported"]),
            key=lambda n: (types[n]["gpus"], n))
az = types[gtype]["availability_zones"][0]
r = step("POST", "/api/v1/clusters", {
    "name": NAME, "storage": {"s3_bucket": "life-training-data"},
    "instance_groups": [{"name": "gpu", "instance_type": gtype, "count": 2,
                         "availability_zone": az}]},
    "cluster with S3 storage created (%s x2)" % gtype, want=(202,),
    timeout=300)
if r is None:
    stop_early()
step("POST", C + "/storage", {"kind": "fsx", "claim": "fsx-claim",
                              "size_gib": 1200},
     "FSx storage added", want=(202,))
# Autoscaling takes groups at 0; a group is added with one node and
# scaled down, as an operator would make one.
step("POST", C + "/instance-groups", {"group_name": "burst",
                                      "instance_type": gtype, "count": 1,
                                      "availability_zone": az},
     "instance group burst added", want=(202,))
step("PATCH", C + "/instance-groups/burst", {"count": 0},
     "instance group burst scaled to 0", want=(202,))

kube = Kubectl(s, NAME)
desc = kube.desc
region = desc["cluster"]["arn"].split(":")[3]
k = kube.run
kget = kube.get

def items(*a):
    return (kget(*a) or {}).get("items") or []


# ---- every feature on
step("PATCH", C + "/features", {
    "training_operator": True, "inference_operator": True, "kuberay": True,
    "tiered_checkpointing": {"enabled": True, "bucket": "life-ckpt"},
    "autoscaling": {"enabled": True, "instance_groups": ["burst"]}},
     "feature_set: every feature on", want=(202,), timeout=300)
f = (s.get(C + "/features").json or {}).get("features", {})
on = sorted(n for n, v in f.items() if v.get("enabled"))
t.ok({"training_operator", "inference_operator", "kuberay",
      "tiered_checkpointing", "autoscaling"} <= set(on),
     "feature_list: all on (%s)" % " ".join(on))

# ---- one training job per recipe on each kind it runs on
ENV = {"STEP_SECONDS": "1"}    # MAX_STEPS is the max_steps field
JOBS = [("hpj-pytorch", "hyperpod-pytorch", "pytorch", {}),
        ("hpj-llama-factory", "hyperpod-pytorch", "llama-factory",
         {"config": "llama3_lora_sft.yaml"}),
        ("hpj-ms-swift", "hyperpod-pytorch", "ms-swift", {}),
        ("ray-pytorch", "ray", "pytorch", {}),
        ("ray-verl", "ray", "verl", {})]
# Ray pods come and go with their short job, so the pods are read back
# later by a watch from a resourceVersion taken before any submit.
p = k("get", "--raw", "/api/v1/pods?limit=1")
pods_rv = json.loads(p.stdout)["metadata"]["resourceVersion"] \
    if p.returncode == 0 else "0"
# A watch held from before the first submit sees every pod added, however
# long the jobs take to start and however soon their pods go.
sas = {n: set() for n, _, _, _ in JOBS}
pods_watch = {"rv": pods_rv, "stop": False, "p": None}


def pods_follow():
    """Watch from pods_rv on, again from the last event when the server
    ends a watch, until the test has what it needs."""
    while not pods_watch["stop"]:
        p = pods_watch["p"] = subprocess.Popen(
            [kube.bin, "--kubeconfig", kube.config, "--cache-dir",
             os.path.join(kube.dir, "cache"), "get", "--raw",
             "/api/v1/pods?watch=1&resourceVersion=%s&labelSelector="
             "slipway.dev%%2Fjob&timeoutSeconds=300" % pods_watch["rv"]],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for ln in p.stdout:
            ev = json.loads(ln) if ln.strip() else {}
            o = ev.get("object") or {}
            meta = o.get("metadata", {})
            pods_watch["rv"] = meta.get("resourceVersion") or \
                pods_watch["rv"]
            j = meta.get("labels", {}).get("slipway.dev/job")
            if ev.get("type") == "ADDED" and j in sas:
                sas[j].add(o["spec"].get("serviceAccountName"))
        p.wait()


pods_thread = threading.Thread(target=pods_follow, daemon=True)
pods_thread.start()
for name, kind, recipe, extra in JOBS:
    body = dict({"job_name": name, "kind": kind, "recipe": recipe,
                 "nodes": 1, "gpus_per_node": 1, "dataset": "alpaca",
                 "model": "Qwen3-0.6B", "max_steps": 10, "env": ENV}, **extra)
    step("POST", C + "/training-jobs", body,
         "training job %s (%s on %s) submitted" % (name, recipe, kind),
         want=(201,))


def job_state(name):
    r = s.get(C + "/training-jobs/" + name)
    return (r.json or {}).get("state") if r.status == 200 else None


for name, kind, recipe, _ in JOBS:
    # One read a round; a bound, not a pace: beside other tests a
    # job's pods can take minutes of wall time to start.
    st = wait_for(lambda: (lambda v: v if v in ("Running", "Succeeded")
                           else None)(job_state(name)), 240)
    if not t.ok(st in ("Running", "Succeeded"),
                "%s runs: %s" % (name, job_state(name))):
        failed_steps.append(name)
        t.diag(s.get(C + "/training-jobs/" + name).body[:1500])

# ---- a model download, and its dry-run Secret
r = s.post(C + "/models:download?dry_run=true",
           {"model_id": "Qwen/Qwen3-0.6B", "hf_token": TOKEN})
plan_secret = manifest(r, "Secret")
r = step("POST", C + "/models:download",
         {"model_id": "Qwen/Qwen3-0.6B", "hf_token": TOKEN},
         "model download submitted", want=(201,))
dl = (r.json or {}).get("job", "") if r else ""
t.ok(dl and wait_for(lambda: job_state(dl) in ("Running", "Succeeded"), 60),
     "model download %s runs: %s" % (dl, job_state(dl)))

# ---- inference: every shape
SHAPES = [
    ("vllm-svc", {"engine": "vllm", "exposure": "service", "replicas": 1}),
    ("vllm-lb", {"engine": "vllm", "exposure": "load-balancer",
                 "replicas": 1}),
    ("sgl-router", {"engine": "sglang", "router": True,
                    "exposure": "service", "replicas": 1}),
    ("sgl-lb", {"engine": "sglang", "router": True,
                "exposure": "load-balancer", "replicas": 1}),
    ("vllm-queue", {"engine": "vllm", "autoscaling": {
        "metric": "queue", "threshold": 8, "min_replicas": 1,
        "max_replicas": 2, "prometheus_url": PROM}}),
    ("sgl-kv", {"engine": "sglang", "autoscaling": {
        "metric": "kv-cache", "threshold": 0.8, "min_replicas": 1,
        "max_replicas": 2, "prometheus_url": PROM}})]
for name, shape in SHAPES:
    step("POST", C + "/inference", dict({"endpoint_name": name,
                                         "model": "Qwen3-0.6B",
                                         "gpus_per_replica": 1}, **shape),
         "inference %s deployed" % name, want=(200,))


def ready(name):
    r = s.get(C + "/inference/" + name)
    return r.status == 200 and r.json.get("ready")


for name, _ in SHAPES:
    if not t.ok(wait_for(lambda: ready(name), 90), "inference %s ready" %
                name):
        t.diag(s.get(C + "/inference/" + name).body[:1500])
t.ok(wait_for(lambda: ((kget("service", "vllm-lb") or {}).get("status", {})
                       .get("loadBalancer", {}).get("ingress")), 60),
     "the load-balancer Service gets its address")
t.eq((kget("service", "vllm-svc") or {}).get("spec", {}).get("type"),
     "ClusterIP", "the service exposure is ClusterIP")

# ---- the cluster at its fullest, read with kubectl
# Two GPU nodes cannot hold six endpoints: Karpenter grew the group at 0.
burst = [n for n in items("nodes") if n["metadata"]["labels"].get(
    "sagemaker.amazonaws.com/instance-group-name") == "burst"]
t.ok(len(burst) >= 1, "the pending endpoints grew the group at 0 to %d "
     "node(s)" % len(burst))


def crd_problems():
    bad = []
    for c in items("crd"):
        for v in c["spec"].get("versions", []):
            sch = (v.get("schema") or {}).get("openAPIV3Schema")
            if not sch or sch.get("type") != "object" or \
                    sch.get("x-kubernetes-preserve-unknown-fields"):
                bad.append("%s/%s" % (c["metadata"]["name"], v["name"]))
    return bad


crds = items("crd")
t.eq(crd_problems(), [], "every CRD version has a structural schema")
groups = {c["spec"]["group"] for c in crds}
t.ok({"sagemaker.amazonaws.com", "ray.io", "keda.sh",
      "inference.sagemaker.aws.amazon.com"} <= groups,
     "the operators' CRDs are in: %s" % sorted(groups))
ray_by_us = [c["metadata"]["name"] for c in crds
             if c["spec"]["group"] == "ray.io" and
             any(m.get("manager") == "slipway"
                 for m in c["metadata"].get("managedFields") or [])]
t.eq(ray_by_us, [], "no ray.io CRD written by Slipway's field manager")
ray_crds = {c["metadata"]["name"] for c in crds
            if c["spec"]["group"] == "ray.io"}
t.ok({"rayjobs.ray.io", "rayclusters.ray.io"} <= ray_crds,
     "KubeRay's upstream CRDs: %s" % sorted(ray_crds))

# Every custom object still passes its CRD's schema: a server-side dry
# run of each, as written, is accepted.
rejected = []
ncustom = 0
for c in crds:
    plural = c["spec"]["names"]["plural"] + "." + c["spec"]["group"]
    for o in items(plural, "-A"):
        ncustom += 1
        o["metadata"].pop("managedFields", None)
        p = k("replace", "--dry-run=server", "-f", "-",
              stdin=json.dumps(o))
        if p.returncode != 0:
            rejected.append("%s %s: %s" % (plural, o["metadata"]["name"],
                                           p.stderr.strip()[:300]))
# 3 HyperPodPyTorchJobs, 2 RayJobs, 2 ScaledObjects, a NodePool and a
# node class at least.
t.ok(ncustom >= 9 and not rejected, "the API server takes back all %d "
     "custom objects as they are: %s" % (ncustom, rejected))

# Mountpoint PV names its region; FSx PV is there.
pvs = items("pv")
s3pv = [p for p in pvs if p["spec"].get("csi", {}).get("driver") ==
        "s3.csi.aws.com"]
t.ok(s3pv and all("region %s" % region in p["spec"].get("mountOptions", [])
                  for p in s3pv),
     "Mountpoint PV mountOptions carry 'region %s'" % region)
t.ok(any(p["spec"].get("csi", {}).get("driver") == "fsx.csi.aws.com"
         for p in pvs), "the FSx PV exists")

# Device plugins mount the kubelet's socket directory.
ds = items("daemonsets", "-A")
plugins = [d for d in ds if "device-plugin" in d["metadata"]["name"]]


def mounts_sockets(d):
    ps = d["spec"]["template"]["spec"]
    vols = {v["name"]: (v.get("hostPath") or {}).get("path", "").rstrip("/")
            for v in ps.get("volumes") or []}
    return any(vols.get(m["name"]) == "/var/lib/kubelet/device-plugins"
               for c in ps["containers"] for m in c.get("volumeMounts")
               or [])


t.ok(len(plugins) >= 2 and all(mounts_sockets(d) for d in plugins),
     "device plugin DaemonSets mount /var/lib/kubelet/device-plugins: %s" %
     [d["metadata"]["name"] for d in plugins])
hma = [d for d in ds if d["metadata"]["name"].startswith(
    "health-monitoring-agent")]
hma_imgs = [c["image"] for d in hma
            for c in d["spec"]["template"]["spec"]["containers"]]
t.ok(hma_imgs and all(re.fullmatch(r"[0-9]{12}\.dkr\.ecr\.%s\.amazonaws\."
                                   r"com/hyperpod-health-monitoring-agent:"
                                   r"[0-9._]+" % region, i)
                      for i in hma_imgs),
     "health agent image from the regional ECR: %s" % hma_imgs)

# The dry-run Secret has no data that is not base64.


def b64_ok(v):
    try:
        base64.b64decode(v, validate=True)
        return True
    except (binascii.Error, ValueError):
        return False


t.ok(plan_secret and all(b64_ok(v) for v in
                         (plan_secret.get("data") or {}).values()) and
     TOKEN not in json.dumps(plan_secret),
     "the dry-run Secret: no non-base64 data, no token")
plan_secret = dict(plan_secret, metadata=dict(
    plan_secret.get("metadata") or {}, namespace="default"))
p = k("create", "--dry-run=server", "-f", "-",
      stdin=json.dumps(plan_secret))
if not t.eq(p.returncode, 0, "the API server takes the dry-run Secret "
            "as planned"):
    t.diag(p.stderr)
live = [sec for sec in items("secrets", "-A")
        if any(not b64_ok(v) for v in (sec.get("data") or {}).values())]
t.eq([x["metadata"]["name"] for x in live], [],
     "no Secret in the cluster holds non-base64 data")

# KEDA: each query selects its own endpoint's pods only.
sos = items("scaledobjects.keda.sh", "-A")
t.eq(sorted(o["metadata"]["name"] for o in sos), ["sgl-kv", "vllm-queue"],
     "a ScaledObject per autoscaled endpoint")
others = [n for n, _ in SHAPES] + ["sgl-kv-router", "vllm-queue-2"]
for o in sos:
    n = o["metadata"]["name"]
    q = ((o["spec"].get("triggers") or [{}])[0].get("metadata") or {}).get(
        "query", "")
    m = re.search(r'pod=~"([^"]+)"', q)
    sel = m.group(1) if m else "^$"
    t.ok(m and re.fullmatch(sel, n + "-7d9f8b6c4-x2k9p") and
         not any(re.fullmatch(sel, x + "-7d9f8b6c4-x2k9p")
                 for x in others if x != n),
         "%s: the KEDA query selects only its pods (%s)" % (n, sel))
    t.eq(o["spec"].get("scaleTargetRef", {}).get("name"), n,
         "%s: scales its own Deployment" % n)

# HyperPodPyTorchJobs carry log monitoring; RayJobs run a Ray image;
# training pods run as tiered-storage-sa.
hpjs = items("hyperpodpytorchjobs")
t.eq(sorted(j["metadata"]["name"] for j in hpjs),
     sorted(n for n, kd, _, _ in JOBS if kd == "hyperpod-pytorch"),
     "a HyperPodPyTorchJob per recipe")
t.ok(hpjs and all({r_["name"] for r_ in j["spec"].get("runPolicy", {}).get(
    "logMonitoringConfiguration") or []} >= {"JobStart", "JobHang"}
    for j in hpjs), "each HyperPodPyTorchJob has logMonitoringConfiguration")
rjs = items("rayjobs")
t.eq(sorted(j["metadata"]["name"] for j in rjs),
     sorted(n for n, kd, _, _ in JOBS if kd == "ray"), "a RayJob per recipe")


def ray_images(j):
    rcs = j["spec"].get("rayClusterSpec", {})
    return [c.get("image") for g in [rcs.get("headGroupSpec", {})] +
            rcs.get("workerGroupSpecs", [])
            for c in g.get("template", {}).get("spec", {}).get(
                "containers", [])]


rimgs = [i for j in rjs for i in ray_images(j)]
t.ok(rimgs and all(i and "ray" in (images.lookup(i) or {}).get("bins", ())
                   for i in rimgs), "RayJob images have ray: %s" %
     sorted(set(rimgs)))
wait_for(lambda: all(sas.values()), timeout=300, every=1)
pods_watch["stop"] = True
if pods_watch["p"] is not None:
    pods_watch["p"].kill()
pods_thread.join(30)
t.ok(all(v == {"tiered-storage-sa"} for v in sas.values()),
     "training pods use tiered-storage-sa: %s" % sas)
sa_specs = [g.get("template", {}).get("spec", {}).get("serviceAccountName")
            for j in rjs for g in [j["spec"]["rayClusterSpec"].get(
                "headGroupSpec", {})] + j["spec"]["rayClusterSpec"].get(
                "workerGroupSpecs", [])] + [
    rs.get("template", {}).get("spec", {}).get("serviceAccountName")
    for j in hpjs for rs in j["spec"].get("replicaSpecs", [])]
t.ok(sa_specs and set(sa_specs) == {"tiered-storage-sa"},
     "every training job's pod template names tiered-storage-sa")

# ---- delete the workloads
for name, _, _, _ in JOBS:
    step("DELETE", C + "/training-jobs/" + name, None,
         "training job %s deleted" % name, want=(200,))
if dl:
    step("DELETE", C + "/training-jobs/" + dl, None,
         "model download deleted", want=(200,))
for name, _ in SHAPES:
    step("DELETE", C + "/inference/" + name, None,
         "inference %s deleted" % name, want=(200,))
t.ok(wait_for(lambda: not items("hyperpodpytorchjobs", "-A") and
              not items("rayjobs", "-A") and
              not items("scaledobjects.keda.sh", "-A") and
              not items("deployments", "-n", "default"), 60),
     "no job, ScaledObject or Deployment left")

# ---- each feature off
for feat, body in [("autoscaling", {"autoscaling": {"enabled": False}}),
                   ("tiered_checkpointing",
                    {"tiered_checkpointing": {"enabled": False}}),
                   ("kuberay", {"kuberay": False}),
                   ("inference_operator", {"inference_operator": False}),
                   ("training_operator", {"training_operator": False})]:
    step("PATCH", C + "/features", body, "feature_set %s off" % feat,
         want=(202,), timeout=300)
f = (s.get(C + "/features").json or {}).get("features", {})
still = sorted(n for n in ("training_operator", "inference_operator",
                           "kuberay", "tiered_checkpointing", "autoscaling")
               if f.get(n, {}).get("enabled"))
t.eq(still, [], "feature_list: every feature off")
t.eq(crd_problems(), [], "after the features went: every CRD is "
     "still structural")

# ---- no Kubernetes write was refused, in the whole run.  A DELETE that
# finds nothing (404) is no refusal: the delete paths remove every part
# an endpoint or job may have, whether it was made or already collected.
# The server-side dry runs above are this test's own reads, not writes.
refused = ["%s %s %s -> %s %s" % (e["service"], e.get("method"),
                                  (e.get("params") or {}).get("path"),
                                  e.get("status"), e.get("error"))
           for e in sandbox_requests(s, mutating="true")
           if e["service"].startswith("kubernetes") and
           e.get("status", 200) >= 400 and
           not (e.get("method") == "DELETE" and e.get("status") == 404) and
           "dryRun=All" not in (e.get("params") or {}).get("query", "")]
t.eq(refused, [], "the request log shows no refused Kubernetes write")
crd_writes = [(e.get("method"), (e.get("params") or {}).get("path"))
              for e in sandbox_requests(s, mutating="true")
              if e["service"].startswith("kubernetes") and
              "customresourcedefinitions" in
              (e.get("params") or {}).get("path", "")]
t.eq(crd_writes, [], "the request log shows no CRD written over the API: "
     "every CRD came with its add-on or chart")
t.eq(failed_steps, [], "every step succeeded")

kube.close()
s.stop()
t.done()
