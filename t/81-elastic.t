#!/usr/bin/python3
# 81-elastic.t: the end-to-end of task governance with elastic training,
# against the sandbox.  Two teams with two GPUs of quota each in one
# cohort; an elastic job of team alpha (1..4 nodes) is admitted on all
# four GPUs, borrowing beta's two; beta's job takes one back and the
# elastic job shrinks to three instead of being evicted; a higher-priority
# job of alpha makes it shrink to one (two steps); a job that can
# never fit says NeverFits at once; when the higher-priority job and then
# beta's go, the elastic job grows back to three, then four.  At each
# step the nodes and reason Slipway gives (training_job_get's elastic
# member, pending for those waiting) match the Workload Kueue keeps (its
# admission's count, podSets count/minCount, conditions, events), and
# the training operator runs that many pods.  An endpoint on beta's queue
# is queued pod by pod (Kueue's pod integration) and says why a replica
# waits, in its Workload's words.  Checkpointless training is
# a job option: hyperpodrun --inprocess-restart with INPROCESS_RESTART,
# refused beside elastic or tiered_checkpointing with both fields named,
# and on a training operator older than v1.2.0.
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from governed import governed_cluster, job_body
from harness import aws_addon_version, wait_for
from harness import ui_script
import harness

t = T()
s, C, gtype, kube = governed_cluster(t, "el", 4, [
    ("alpha", 2, "LowerPriority"), ("beta", 2, "LowerPriority")])


def submit(name, team, priority="low", nodes=1, **extra):
    # Steps of a minute: the sandbox's training runs outlast the test.
    extra.setdefault("env", {"STEP_SECONDS": "60"})
    return s.post(C + "/training-jobs", job_body(name, team, priority,
                                                 nodes, **extra))


def get(name):
    r = s.get(C + "/training-jobs/" + name)
    return r.json if r.status == 200 else {}


def elastic(name):
    return get(name).get("elastic") or {}


def workload(name, ns="hyperpod-ns-alpha"):
    items = (kube.get("workloads.kueue.x-k8s.io", "-n", ns) or {}).get(
        "items") or []
    return next((w for w in items if any(
        o.get("name") == name for o in w["metadata"].get(
            "ownerReferences") or [])), None)


def cond(w, ctype):
    return next((c for c in ((w or {}).get("status") or {}).get(
        "conditions") or [] if c["type"] == ctype), {})


def admitted_count(w):
    psa = (((w or {}).get("status") or {}).get("admission") or {}).get(
        "podSetAssignments") or [{}]
    return psa[0].get("count")


def running_pods(name, ns="hyperpod-ns-alpha"):
    items = (kube.get("pods", "-n", ns, "-l",
                      "sagemaker.amazonaws.com/job-name=" + name) or {}).get(
        "items") or []
    return len([p for p in items if p["status"].get("phase") == "Running"
                and not p["metadata"].get("deletionTimestamp")])


def settled(name, nodes, reason):
    """The elastic job runs nodes pods, Slipway says nodes and reason,
    and the Workload's admission holds nodes."""
    e = elastic(name)
    return (e.get("nodes"), e.get("running"), e.get("reason"),
            admitted_count(workload(name)), running_pods(name)) == (
        nodes, nodes, reason, nodes, nodes)


# 1. An elastic job of alpha: admitted on all four GPUs (two borrowed).
r = submit("e1", "alpha", nodes=2, elastic={"min_nodes": 1, "max_nodes": 4,
                                            "increment_step": 1})
t.eq(r.status, 201, "elastic job e1 (1..4 nodes) submitted")
t.ok(wait_for(lambda: settled("e1", 4, "AtMax"), timeout=180),
     "e1 runs on 4 nodes, AtMax: %s" % elastic("e1"))
w = workload("e1")
ps = ((w or {}).get("spec") or {}).get("podSets") or [{}]
t.eq((ps[0].get("count"), ps[0].get("minCount")), (4, 1),
     "its Workload asks for 4 pods and may run on 1 (podSets minCount)")
hpj = kube.get("hyperpodpytorchjobs.sagemaker.amazonaws.com", "e1", "-n",
               "hyperpod-ns-alpha") or {}
t.eq(((hpj.get("status") or {}).get("elasticScalingStatus") or {}).get(
    "targetReplicas"), {"pods": 4},
    "the training operator's elasticScalingStatus targets 4")
t.ok("pending" not in get("e1"), "a running elastic job has no pending")

# 2. Beta takes one of its GPUs back: e1 shrinks to 3, not evicted.
r = submit("b1", "beta")
t.eq(r.status, 201, "beta's job b1 submitted")
t.ok(wait_for(lambda: settled("e1", 3, "Shrunk"), timeout=180),
     "e1 shrinks to 3 when beta reclaims a GPU: %s" % elastic("e1"))
w = workload("e1")
t.ok(cond(w, "Admitted").get("status") == "True" and
     cond(w, "Evicted").get("status") != "True",
     "... its Workload stays admitted, never Evicted")
e = elastic("e1")
t.ok("scaled down from 4 to 3" in e.get("detail", "") and
     "reclamation within the cohort" in e.get("detail", ""),
     "... detail is Kueue's resize event: %s" % e.get("detail"))
t.ok(e.get("message") and "grows back" in e.get("next_step", ""),
     "... with plain words and a next step: %s / %s" % (
         e.get("message"), e.get("next_step")))
t.ok(wait_for(lambda: get("b1").get("state") == "Running", timeout=120),
     "b1 runs")

# The web UI shows the same: the job page's elastic box and the list's
# Nodes column (Chromium, playwright-core, t/lib/elastic-ui.js).
if not os.path.isdir(os.path.join(harness.SRCDIR, "t", "node_modules",
                                  "playwright-core")) or \
        not os.path.exists("/usr/bin/chromium") or not shutil.which("node"):
    t.skip("playwright-core, chromium or node missing", 2)
else:
    ui = ui_script(t, "elastic-ui.js", "http://127.0.0.1:%d" % s.port,
                    s.token, "el", "e1")
    box = ui.get("box") or ""
    t.ok("3 of at most 4 nodes (at least 1), 3 running" in box and
         "Shrunk" in box and
         "scaled down from 4 to 3" in box,
         "the job page's elastic box: 3 of 4, Shrunk, Kueue's words (%s)"
         % box[:300])
    t.ok("3 of 4" in (ui.get("cell") or ""),
         "the job list's Nodes column: 3 of 4 (%s)" % ui.get("cell"))

# 3. A higher-priority job of alpha: e1 gives up two more steps.
r = submit("h1", "alpha", priority="high", nodes=2)
t.eq(r.status, 201, "high-priority h1 (2 nodes) submitted")
t.ok(wait_for(lambda: get("h1").get("state") == "Running", timeout=180),
     "h1 runs")
t.ok(wait_for(lambda: settled("e1", 1, "Shrunk"), timeout=180),
     "e1 shrinks to its minimum, 1: %s" % elastic("e1"))
t.ok("prioritization in the ClusterQueue" in elastic("e1").get("detail",
                                                             ""),
     "... Kueue's words: prioritization in the ClusterQueue")
t.ok(cond(workload("e1"), "Evicted").get("status") != "True",
     "... still never Evicted")
evs = (kube.get("events", "-n", "hyperpod-ns-alpha") or {}).get("items") or []
downs = [ev["message"] for ev in evs if ev.get("reason") == "ScaledDown" and
         ev["involvedObject"]["name"] == (workload("e1") or {}).get(
             "metadata", {}).get("name")]
t.ok(any("from 3 to 1" in m for m in downs),
     "... by as many steps as h1 needs: 3 to 1 (%s)" % downs)

# 4. A job that can never fit says so at once.
r = submit("big", "beta", nodes=8)
t.eq(r.status, 201, "an 8-node job on a 4-GPU cohort submitted")
t.ok(wait_for(lambda: (get("big").get("pending") or {}).get("reason") ==
              "NeverFits", timeout=60), "big: NeverFits at once")
t.eq(cond(workload("big", "hyperpod-ns-beta"), "QuotaReserved").get(
    "reason"), "ExceedsMaxQuota", "... the Workload says ExceedsMaxQuota")
r = s.request("DELETE", C + "/training-jobs/big")
t.eq(r.status, 200, "big deleted")

# 5. The high-priority job goes: e1 grows back to 3 (b1 still holds 1);
# the job that never fits does not hold it back.
r = s.request("DELETE", C + "/training-jobs/h1")
t.eq(r.status, 200, "h1 deleted")
t.ok(wait_for(lambda: settled("e1", 3, "Shrunk"), timeout=180),
     "e1 grows back to 3: %s" % elastic("e1"))
t.ok("scaled up from 2 to 3" in elastic("e1").get("detail", ""),
     "... detail: scaled up from 2 to 3 (%s)" % elastic("e1").get("detail"))
r = s.request("DELETE", C + "/training-jobs/b1")
t.eq(r.status, 200, "b1 deleted")
t.ok(wait_for(lambda: settled("e1", 4, "AtMax"), timeout=180),
     "e1 grows back to 4, AtMax: %s" % elastic("e1"))
lst = s.get(C + "/training-jobs").json.get("items") or []
t.eq(next(((j.get("elastic") or {}).get("nodes") for j in lst
           if j["job"] == "e1"), None), 4,
     "training_job_list carries the same elastic member")

# 6. An endpoint on beta's queue: each of its pods is a Workload of
# Kueue's pod integration, held by a scheduling gate until admitted.
# Beta takes its two GPUs back from e1 (which shrinks to 2) and the third
# replica waits; inference_get says why, in the Workload's words.
r = s.post(C + "/inference", {
    "endpoint_name": "srv", "engine": "vllm", "model": "Qwen3-0.6B",
    "gpus_per_replica": 1, "replicas": 3,
    "queue": "hyperpod-ns-beta-localqueue", "priority": "low"})
t.ok(r.status in (200, 201), "endpoint srv (3 replicas) on beta's queue: %d"
     % r.status)


def ep_pending():
    return (s.get(C + "/inference/srv").json or {}).get("pending") or {}


t.ok(wait_for(lambda: ep_pending().get("reason") == "QuotaInUse" and
              settled("e1", 2, "Shrunk"), timeout=180),
     "srv's third replica waits for quota and e1 runs on 2: %s / %s" % (
         ep_pending(), elastic("e1")))
p = ep_pending()
pods = (kube.get("pods", "-n", "hyperpod-ns-beta", "-l",
                 "kueue.x-k8s.io/queue-name=hyperpod-ns-beta-localqueue") or
        {}).get("items") or []
gated = [x for x in pods if any(g.get("name") == "kueue.x-k8s.io/admission"
                                for g in x["spec"].get("schedulingGates") or [])
         and not x["metadata"].get("deletionTimestamp")]
t.eq(len(gated), 1, "one of srv's pods is held by Kueue's scheduling gate")
w = workload(gated[0]["metadata"]["name"], "hyperpod-ns-beta") if gated \
    else None
t.eq((p.get("queue"), p.get("cluster_queue"), p.get("position"),
      p.get("admitted"), p.get("detail")),
     ("hyperpod-ns-beta-localqueue", "hyperpod-ns-beta-clusterqueue", 1,
      False, cond(w, "QuotaReserved").get("message")),
     "inference_get: queue, cluster queue, position 1, not admitted, and "
     "the pod's "
     "Workload's own words")
r = s.request("DELETE", C + "/inference/srv")
t.ok(r.status in (200, 202), "srv deleted")
t.ok(wait_for(lambda: settled("e1", 4, "AtMax"), timeout=180),
     "e1 grows back to 4 once the endpoint is gone: %s" % elastic("e1"))

# 7. Checkpointless training: what AWS's checkpointless manifests run,
# and the refused combinations name both fields.
def fields(r):
    return {e.get("field") for e in (r.json or {}).get("errors", [])}


base = {"job_name": "cl", "recipe": "pytorch", "gpus_per_node": 1}
r = s.post(C + "/training-jobs?dry_run=true", dict(base, checkpointless=True))
hpj = next((m for m in (r.json or {}).get("manifests", [])
            if m.get("kind") == "HyperPodPyTorchJob"), {})
ctr = (((hpj.get("spec") or {}).get("replicaSpecs") or [{}])[0].get(
    "template", {}).get("spec", {}).get("containers") or [{}])[0]
env = {e["name"]: e.get("value") for e in ctr.get("env") or []}
t.ok(r.status == 200 and "--inprocess-restart" in ctr.get("command", []) and
     env.get("INPROCESS_RESTART") == "1" and
     env.get("INPROCESS_RESTART_TIMEOUT"),
     "checkpointless dry run: hyperpodrun --inprocess-restart, "
     "INPROCESS_RESTART=1 (%s)" % r.status)
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, checkpointless=True, elastic={"min_nodes": 1, "max_nodes": 2}))
t.ok(r.status == 400 and {"checkpointless", "elastic"} <= fields(r),
     "checkpointless with elastic: 400 naming both (%s)" % fields(r))
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, checkpointless=True, tiered_checkpointing=True))
t.ok(r.status == 400 and {"checkpointless", "tiered_checkpointing"} <=
     fields(r), "checkpointless with tiered_checkpointing: 400 naming both")
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, checkpointless=True, kind="ray"))
t.ok(r.status == 400 and {"checkpointless", "kind"} <= fields(r),
     "checkpointless with kind ray: 400 naming both")
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, env={"INPROCESS_RESTART": "0"}))
t.ok(r.status == 400 and "env.INPROCESS_RESTART" in fields(r),
     "INPROCESS_RESTART is Slipway's to set: 400")

# Checkpointless needs the training operator v1.2.0 or later: on an
# older add-on (put there with the aws CLI) it is refused before anything
# is applied, naming the field and the version.
OP = "amazon-sagemaker-hyperpod-training-operator"
rc, a = aws_addon_version(s, "el", OP, "v1.1.3-eksbuild.1")
if rc is None:
    t.skip("aws CLI not installed", 2)
else:
    t.eq(rc, 0, "the training operator moved to v1.1.3 with the aws CLI")
    r = s.post(C + "/training-jobs?dry_run=true", dict(base,
                                                       checkpointless=True))
    t.ok(r.status == 422 and "checkpointless" in fields(r) and
         "v1.2.0" in (r.json or {}).get("detail", ""),
         "checkpointless on training operator %s: 422 naming checkpointless "
         "and v1.2.0: %s %s" % (a.get("addonVersion"), r.status,
                                (r.json or {}).get("detail")))
kube.close()
s.stop()
t.done()
