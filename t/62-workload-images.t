#!/usr/bin/python3
# 62-workload-images.t: workload manifests that would run on a real
# cluster, checked against the sandbox's image catalogue and kubelet.
# The catalogue parses references like the kubelet and knows what the
# default images carry; a container whose command is not in its image
# fails as containerd fails it (StartError, then CrashLoopBackOff, or
# Failed under restartPolicy Never).  HyperPodPyTorchJob pods install
# the elastic agent before hyperpodrun and carry log-monitoring rules
# that match the progress line; RayJobs run a Ray image; training pods
# use tiered-storage-sa when tiered checkpointing is on; the Mountpoint
# PV names its region; KEDA refuses scale-to-zero, takes kv-cache
# fractions and selects exactly one endpoint's pods; the dry-run token
# Secret applies as written; every default image is in docs/images.md.
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SRCDIR, Kubectl, Stack, wait_for, gpu_cluster, wait_operation

t = T()
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None or shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
sys.path.insert(0, os.path.join(SRCDIR, "sandbox"))
from slipsand.k8s import images  # noqa: E402

NOT_FOUND = ('failed to create containerd task: failed to create shim '
             'task: OCI runtime create failed: runc create failed: unable '
             'to start container process: exec: "%s": executable file not '
             'found in $PATH: unknown')

# ---- the catalogue on its own: reference parsing and exec checks
for ref, want in [
        ("python:3.12-slim", ("docker.io/library/python", "3.12-slim")),
        ("pytorch/pytorch", ("docker.io/pytorch/pytorch", "latest")),
        ("docker.io/alpine/helm:3.16.4", ("docker.io/alpine/helm", "3.16.4")),
        ("localhost:5000/team/img:1", ("localhost:5000/team/img", "1")),
        ("quay.io/kuberay/operator:v1.4.2@sha256:" + "0" * 64,
         ("quay.io/kuberay/operator", "v1.4.2"))]:
    t.eq(images.parse_reference(ref), want, "reference %s" % ref)
p = images.check({"name": "c", "image": "pytorch/pytorch:2.7.1",
                  "command": ["hyperpodrun", "train.py"]})
t.ok(p and p["reason"] == "StartError" and p["exitCode"] == 128 and
     p["message"] == NOT_FOUND % "hyperpodrun",
     "pytorch/pytorch has no hyperpodrun: StartError with runc's message")
t.eq(images.check({"name": "c", "image": "docker.io/alpine/helm:3.16.4",
                   "args": ["version"]}), None,
     "alpine/helm with args only runs its helm entrypoint")
p = images.check({"name": "c", "image": "alpine/helm:3.16.4",
                  "command": ["bash"]})
t.ok(p and p["message"] == NOT_FOUND % "bash", "alpine/helm has no bash")
p = images.check({"name": "c", "image": "vllm/vllm-openai:v0.10.2",
                  "command": ["python3", "-m", "sglang.launch_server"]})
t.ok(p and p["reason"] == "Error" and p["exitCode"] == 1,
     "sglang module in the vLLM image: the process exits 1")
t.eq(images.check({"name": "c", "image": "lmsysorg/sglang:v0.5.2-cu126",
                   "command": ["python3", "-m", "sglang.launch_server"]}),
     None, "sglang module in the SGLang image starts")
AGENT = ("python3 -m pip install --no-cache-dir --quiet "
         "'hyperpod-elastic-agent==1.1.3' && exec hyperpodrun \"$@\"")
t.eq(images.check({"name": "c", "image": "pytorch/pytorch:2.7.1",
                   "command": ["sh", "-c", AGENT, "hyperpodrun", "x.py"]}),
     None, "sh -c: pip install of the agent puts hyperpodrun on PATH")
p = images.check({"name": "c", "image": "alpine:3.20",
                  "command": ["sh", "-c", AGENT, "hyperpodrun", "x.py"]})
t.ok(p and p["exitCode"] == 127 and "python3: not found" in p["message"],
     "sh -c in an image without python3: the shell exits 127")
p = images.check({"name": "c", "image": "pytorch/pytorch:2.7.1",
                  "command": ["/bin/bash", "-lc", "--"],
                  "args": ["ulimit -n 65536; ray start --head"]})
t.ok(p and p["exitCode"] == 127 and "ray: not found" in p["message"],
     "KubeRay's start line in pytorch/pytorch: ray not found")
t.eq(images.check({"name": "c", "image": "rayproject/ray:2.46.0-py311-gpu",
                   "command": ["/bin/bash", "-lc", "--"],
                   "args": ["ulimit -n 65536; ray start --head"]}), None,
     "KubeRay's start line in rayproject/ray runs")
bad = [row["repo"] for row in images.CATALOGUE if row["entrypoint"] and
       images._exec_problem(row, row["entrypoint"][0]) is not None]
t.eq(bad, [], "every catalogued entrypoint is in its own image")
t.eq(images.check({"name": "c", "image": "example.com/own/image:1",
                   "command": ["anything"]}), None,
     "an unknown image runs anything")

s = Stack(t, sandbox=True, speed=2000)
C = "/api/v1/clusters/img"
TOKEN = "hf_SlipwayImagesSecret0123456789abc"


def field_error(r, field, rule=None):
    return any(e.get("field") == field and (rule is None or
                                            e.get("rule") == rule)
               for e in (r.json or {}).get("errors", []))


def manifest(r, kind):
    return next((m for m in (r.json or {}).get("manifests", [])
                 if m.get("kind") == kind), {})


# ---- a cluster with S3 storage
gtype, types = gpu_cluster(t, s, "img", 3)

kube = Kubectl(s, "img")
desc = kube.desc
region = desc["cluster"]["arn"].split(":")[3]
k = kube.run
kget = kube.get

# ---- the Mountpoint PV made by cluster create names its region
pv = kget("pv", "pv-img") or {}
opts = pv.get("spec", {}).get("mountOptions", [])
t.ok("region %s" % region in opts and "region" not in opts,
     "s3 PV mountOptions carry 'region %s': %s" % (region, opts))

# ---- the features the workloads need
r = s.request("PATCH", C + "/features", {
    "training_operator": True, "kuberay": True,
    "tiered_checkpointing": {"enabled": True, "bucket": "img-ckpt"}})
t.eq(r.status, 202, "feature_set: operator, KubeRay, tiered checkpointing")
d = wait_operation(s, r.json["operation_id"], timeout=240)
if not t.eq(d.get("state"), "succeeded", "features on"):
    t.diag(json.dumps(d)[-2000:])
t.ok(kget("serviceaccount", "tiered-storage-sa") is not None,
     "tiered-storage-sa exists in default")

job = {"job_name": "agent-default", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": 1, "dataset": "alpaca",
       "max_steps": 20, "env": {"STEP_SECONDS": "2"}}

# ---- HyperPodPyTorchJob plan: agent install, log monitoring, identity
r = s.post(C + "/training-jobs?dry_run=true", job)
hpj = manifest(r, "HyperPodPyTorchJob")
pod = hpj.get("spec", {}).get("replicaSpecs", [{}])[0].get(
    "template", {}).get("spec", {})
c0 = (pod.get("containers") or [{}])[0]
cmd = c0.get("command", [])
t.ok(r.status == 200 and cmd[:2] == ["sh", "-c"] and
     re.search(r"pip install .*'hyperpod-elastic-agent==[0-9.]+'", cmd[2]) and
     cmd[2].endswith('&& exec hyperpodrun "$@"') and cmd[3] == "hyperpodrun"
     and cmd[4].startswith("--nnodes="),
     "the pod installs the pinned agent, then execs hyperpodrun with argv")
t.eq(images.check(c0), None, "the default image can run that command")
rules = {m["name"]: m for m in hpj.get("spec", {}).get("runPolicy", {}).get(
    "logMonitoringConfiguration", [])}
t.ok(set(rules) == {"JobStart", "JobHang"} and
     rules["JobStart"].get("expectedStartCutOffInSeconds", 0) >= 60 and
     rules["JobHang"].get("expectedRecurringFrequencyInSeconds", 0) >= 60,
     "logMonitoringConfiguration: JobStart and JobHang rules")
line = "step 120/1000 loss=1.93 tokens/s=48211 lr=3.00e-04"
pat = rules.get("JobStart", {}).get("logPattern", "^$")
t.ok(re.fullmatch(pat, line) and not re.fullmatch(
    pat, "loading dataset shards from /fsx/data (40 shards)"),
     "the pattern matches the progress line and not start-up chatter")
t.eq(pod.get("serviceAccountName"), "tiered-storage-sa",
     "tiered checkpointing on: the pods use tiered-storage-sa")
r = s.post(C + "/training-jobs?dry_run=true", dict(job, log_monitoring={
    "log_pattern": ".*it/s.*", "start_seconds": 600, "hang_seconds": 120}))
rules = {m["name"]: m for m in manifest(r, "HyperPodPyTorchJob").get(
    "spec", {}).get("runPolicy", {}).get("logMonitoringConfiguration", [])}
t.ok(rules.get("JobStart", {}).get("logPattern") == ".*it/s.*" and
     rules["JobStart"].get("expectedStartCutOffInSeconds") == 600 and
     rules.get("JobHang", {}).get("expectedRecurringFrequencyInSeconds")
     == 120, "log_monitoring overrides pattern and times")
# RE2 syntax, as the operator (Go) reads it: POSIX ERE would refuse this.
go_pat = "(?i)loss[=:]\\s*(?P<loss>[0-9.]+)"
r = s.post(C + "/training-jobs?dry_run=true",
           dict(job, log_monitoring={"log_pattern": go_pat}))
t.ok(r.status == 200 and [m.get("logPattern") for m in manifest(
    r, "HyperPodPyTorchJob").get("spec", {}).get("runPolicy", {}).get(
    "logMonitoringConfiguration", [])] == [go_pat, go_pat],
     "an RE2 log_pattern (flags, named group, \\s) reaches both rules")
r = s.post(C + "/training-jobs?dry_run=true",
           dict(job, log_monitoring={"enabled": False}))
t.ok(r.status == 200 and "logMonitoringConfiguration" not in manifest(
    r, "HyperPodPyTorchJob").get("spec", {}).get("runPolicy", {}),
     "log_monitoring.enabled false: no rules")
for body, field, rule in [
        (dict(job, log_monitoring={"log_pattern": "step ("}),
         "log_monitoring.log_pattern", "regex"),
        (dict(job, log_monitoring={"hang_seconds": 5}),
         "log_monitoring.hang_seconds", "minimum"),
        (dict(job, kind="ray", log_monitoring={"enabled": True}),
         "log_monitoring", "kind"),
        (dict(job, kind="ray", elastic_agent="image"), "elastic_agent",
         "kind"),
        (dict(job, elastic_agent="pip"), "elastic_agent", "enum")]:
    r = s.post(C + "/training-jobs", body)
    if not t.ok(r.status == 400 and field_error(r, field, rule),
                "400 names %s (%s)" % (field, rule)):
        t.diag(repr(r))
r = s.post(C + "/training-jobs?dry_run=true", dict(job, namespace="team-b"))
pod = manifest(r, "HyperPodPyTorchJob").get("spec", {}).get(
    "replicaSpecs", [{}])[0].get("template", {}).get("spec", {})
t.ok(r.status == 200 and "serviceAccountName" not in pod,
     "no tiered-storage-sa in team-b: the pods keep the default account")

# ---- the job really starts; elastic_agent=image on an image without
# the agent fails the way containerd fails it
r = s.post(C + "/training-jobs", job)
t.eq(r.status, 201, "default job submitted")
r = s.post(C + "/training-jobs", dict(job, job_name="agent-image",
                                      elastic_agent="image"))
t.eq(r.status, 201, "elastic_agent=image job submitted")


def pod_of(name, cond):
    def f():
        items = (kget("pods", "-l", "slipway.dev/job=" + name) or
                 {}).get("items") or []
        return items[0] if items and cond(items[0]) else None
    return f


def started(p):
    return (p.get("status", {}).get("containerStatuses") or [{}])[0].get(
        "state", {})


good = wait_for(pod_of("agent-default", lambda p: started(p)), 60)
t.ok(good and ("running" in started(good) or started(good).get(
    "terminated", {}).get("reason") == "Completed") and
     good["spec"].get("serviceAccountName") == "tiered-storage-sa",
     "the default job's container runs, as tiered-storage-sa: %s" %
     json.dumps(started(good) if good else None))
bad = wait_for(pod_of("agent-image", lambda p: started(p)), 60)
cs = (bad or {}).get("status", {}).get("containerStatuses", [{}])[0]
last = cs.get("lastState", {}).get("terminated", {})
t.ok(bad and cs.get("state", {}).get("waiting", {}).get("reason") ==
     "CrashLoopBackOff" and last.get("reason") == "StartError" and
     last.get("exitCode") == 128 and
     last.get("message") == NOT_FOUND % "hyperpodrun" and
     cs.get("ready") is False and cs.get("restartCount", 0) >= 1,
     "hyperpodrun missing: CrashLoopBackOff after StartError (%s)" %
     json.dumps(cs)[:300])
t.eq((bad or {}).get("status", {}).get("phase"), "Running",
     "restartPolicy OnFailure keeps the pod Running while it restarts")
again = wait_for(pod_of("agent-image", lambda p: (p["status"].get(
    "containerStatuses") or [{}])[0].get("restartCount", 0) >= 3), 30)
t.ok(again and "waiting" in started(again),
     "the kubelet keeps retrying: restartCount grows with the back-off")
r = s.get(C + "/training-jobs/agent-image")
p0 = ((r.json or {}).get("pods") or [{}])[0]
t.ok(r.status == 200 and p0.get("reason") == "CrashLoopBackOff" and
     'exec: "hyperpodrun"' in p0.get("message", ""),
     "training_job_get says why the pod does not run: %s" % p0)
ev = [e for e in (kget("events") or {}).get("items", [])
      if e.get("involvedObject", {}).get("name") ==
      (bad or {}).get("metadata", {}).get("name")]
t.ok(any(e.get("reason") == "Failed" and e.get("type") == "Warning" and
         "executable file not found" in e.get("message", "") for e in ev),
     "a Warning Failed event carries the runtime's message")

# ---- the agent install in an image without python3: the shell exits
r = s.post(C + "/training-jobs", dict(job, job_name="agent-alpine",
                                      image="alpine:3.20"))
t.eq(r.status, 201, "job on alpine submitted")
bad = wait_for(pod_of("agent-alpine", lambda p: started(p)), 60)
cs = (bad or {}).get("status", {}).get("containerStatuses", [{}])[0]
last = cs.get("lastState", {}).get("terminated", {})
t.ok(bad and cs.get("state", {}).get("waiting", {}).get("reason") ==
     "CrashLoopBackOff" and last.get("reason") == "Error" and
     last.get("exitCode") == 127,
     "python3 missing: the container exits 127 and backs off (%s)" %
     json.dumps(cs)[:300])

# ---- RayJob on the Ray image
r = s.post(C + "/training-jobs?dry_run=true", dict(job, kind="ray",
                                                   job_name="ray-img"))
rj = manifest(r, "RayJob")
rcs = rj.get("spec", {}).get("rayClusterSpec", {})
imgs = [c.get("image") for g in [rcs.get("headGroupSpec", {})] +
        rcs.get("workerGroupSpecs", [])
        for c in g.get("template", {}).get("spec", {}).get("containers", [])]
t.ok(imgs and all(i and "ray" in (images.lookup(i) or {}).get("bins", ())
                  for i in imgs),
     "head and workers run an image that has ray: %s" % imgs)
t.ok(rcs.get("rayVersion") and all(rcs["rayVersion"] in i for i in imgs),
     "rayVersion %s matches the image tag" % rcs.get("rayVersion"))
t.ok("torch==" in rj.get("spec", {}).get("runtimeEnvYAML", "") and
     rj["spec"]["entrypoint"].startswith("python3 /data/code/train.py"),
     "torch comes in the runtime env; the entrypoint runs the program")
t.ok(all(g.get("template", {}).get("spec", {}).get("serviceAccountName") ==
         "tiered-storage-sa" for g in [rcs.get("headGroupSpec", {})] +
         rcs.get("workerGroupSpecs", [])),
     "Ray pods use tiered-storage-sa too")

# ---- a download on an image without python3: Job pods fail (Never)
r = s.post(C + "/models:download", {"model_id": "Qwen/Qwen3-0.6B",
                                    "job_name": "dl-noshell",
                                    "image": "alpine:3.20"})
t.eq(r.status, 201, "download on alpine submitted")
bad = wait_for(lambda: next((p for p in (kget(
    "pods", "-n", "slipway-models", "-l", "slipway.dev/job=dl-noshell")
    or {}).get("items", []) if p["status"].get("phase") == "Failed"), None),
    60)
term = ((bad or {}).get("status", {}).get("containerStatuses") or [{}])[
    0].get("state", {}).get("terminated", {})
t.ok(bad and term.get("reason") == "StartError" and
     term.get("message") == NOT_FOUND % "python3",
     "restartPolicy Never: the pod is Failed with StartError")

# ---- the dry-run token Secret applies as written, and says no token
r = s.post(C + "/models:download?dry_run=true",
           {"model_id": "Qwen/Qwen3-0.6B", "hf_token": TOKEN})
sec = manifest(r, "Secret")
dl_img = manifest(r, "Job")["spec"]["template"]["spec"]["containers"][0][
    "image"]
t.ok(sec and "data" not in sec and sec.get("stringData", {}).get("token")
     and TOKEN not in r.body, "the plan's Secret has a stringData "
     "placeholder, not the token")
sec["metadata"] = {"name": "plan-check", "namespace": "default"}
p = k("apply", "-f", "-", stdin=json.dumps(sec))
t.ok(p.returncode == 0 and kget("secret", "plan-check") is not None,
     "kubectl applies the planned Secret as written")

# ---- KEDA
inf = {"endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B"}
for a, field, rule in [
        ({"min_replicas": 0, "max_replicas": 2}, "autoscaling.min_replicas",
         "scale-to-zero"),
        ({"metric": "kv-cache", "threshold": 5, "max_replicas": 2},
         "autoscaling.threshold", "fraction"),
        ({"metric": "queue", "threshold": 0.5, "max_replicas": 2},
         "autoscaling.threshold", "integer")]:
    a["prometheus_url"] = "http://prom:9090"
    r = s.post(C + "/inference", dict(inf, autoscaling=a))
    if not t.ok(r.status == 400 and field_error(r, field, rule),
                "400 names %s (%s)" % (field, rule)):
        t.diag(repr(r))
# KEDA's CRD comes with the inference operator add-on, which bundles
# KEDA; nothing is applied by hand.
r = s.request("PATCH", C + "/features", {"inference_operator": True})
d = wait_operation(s, r.json["operation_id"], timeout=240) \
    if r.status == 202 else {}
if not t.eq(d.get("state"), "succeeded", "feature_set inference_operator"):
    t.diag(repr(r) + json.dumps(d)[-1500:])
so = kget("crd", "scaledobjects.keda.sh") or {}
t.ok(so and all(v.get("schema", {}).get("openAPIV3Schema", {}).get(
    "properties", {}).get("spec") for v in so["spec"]["versions"]),
     "KEDA ScaledObject CRD installed with its upstream schema")
r = s.post(C + "/inference?dry_run=true", dict(inf, autoscaling={
    "metric": "kv-cache", "threshold": 0.75, "min_replicas": 1,
    "max_replicas": 3, "prometheus_url": "http://prom:9090"}))
trig = (manifest(r, "ScaledObject").get("spec", {}).get("triggers") or
        [{}])[0].get("metadata", {})
t.eq(trig.get("threshold"), "0.75", "kv-cache threshold is the fraction")
m = re.search(r'pod=~"([^"]+)"', trig.get("query", ""))
sel = m.group(1) if m else "^$"
t.ok(m and "vllm:kv_cache_usage_perc" in trig["query"] and
     re.fullmatch(sel, "qwen-7d9f8b6c4-x2k9p") and
     not re.fullmatch(sel, "qwen-router-7d9f8b6c4-x2k9p") and
     not re.fullmatch(sel, "qwen-2-7d9f8b6c4-x2k9p"),
     "the query selects qwen's pods and no other endpoint's: %s" % sel)
dep = manifest(r, "Deployment")
t.eq(images.check(dep["spec"]["template"]["spec"]["containers"][0]), None,
     "the vLLM server command is in its image")

# ---- every default image is named in docs/images.md
with open(os.path.join(SRCDIR, "docs", "images.md")) as f:
    doc = f.read()
src = ""
for rel in ("handlers/workloads.c", "pipelines/cluster.c",
            "pipelines/features.c"):
    with open(os.path.join(SRCDIR, rel)) as f:
        src += re.sub(r'"\s*\n\s*"', "", f.read())
found = set(re.findall(r'"([a-z0-9][a-z0-9.-]*(?:/[a-z0-9._-]+)+:'
                       r'[A-Za-z0-9][A-Za-z0-9._-]*)"', src))
found |= set(i for i in imgs if i) | {dl_img}
missing = sorted(i for i in found if i not in doc)
t.ok(len(found) >= 8 and not missing,
     "docs/images.md names all %d default images; missing %s" % (
         len(found), missing))

kube.close()
s.stop()
t.done()
