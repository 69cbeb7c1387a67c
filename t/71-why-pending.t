#!/usr/bin/python3
# 71-why-pending.t: "why is my job pending", answered from Kueue as
# HyperPod task governance runs it, against the sandbox.  Two teams with
# one GPU of quota each in one cohort (compute quotas and the scheduler
# config made through Slipway); a job that names a team's queue without
# a namespace goes to the team's namespace; a team borrows the other's
# idle GPU; a third job waits (QuotaInUse, position 1, not admitted);
# the lender's job takes its GPU back and the borrower says Preempted
# (reclaimed); a higher-priority job of a team preempts its own
# lower-priority one; a job bigger than the team plus all it may borrow
# says NeverFits at once.  At each step the reason matches the Workload
# Kueue keeps (its QuotaReserved/Preempted conditions, read with
# kubectl), the list carries the same pending member, and a job with no
# queue that no node can take says NoNodeFits with the scheduler's words,
# and so does an endpoint short of ready replicas (inference_get).
# team_usage shows each team's nominal, use, borrowing, lending and
# waiting demand.  Elastic training is a job option: spec.elasticPolicy
# from min_nodes, max_nodes and increment_step, a refused pair is a 400
# naming both, and a training operator older than v1.2.0 is a 422.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from governed import governed_cluster, job_body
from harness import aws_addon_version, wait_for

t = T()
s, C, gtype, kube = governed_cluster(t, "pq", 2, [
    ("alpha", 1, "LowerPriority"), ("beta", 1, "Never")])


def submit(name, team, priority="low", nodes=1, **extra):
    return s.post(C + "/training-jobs", job_body(name, team, priority,
                                                 nodes, **extra))


def get(name):
    r = s.get(C + "/training-jobs/" + name)
    return r.json if r.status == 200 else {}


def pending(name):
    return get(name).get("pending") or {}


def workload(name, ns):
    items = (kube.get("workloads.kueue.x-k8s.io", "-n", ns) or {}).get(
        "items") or []
    return next((w for w in items if any(
        o.get("name") == name for o in w["metadata"].get(
            "ownerReferences") or [])), None)


def cond(w, ctype):
    return next((c for c in ((w or {}).get("status") or {}).get(
        "conditions") or [] if c["type"] == ctype), {})


# Deliverable: a team's queue without a namespace goes to the team's.
r = submit("a1", "alpha")
t.ok(r.status == 201 and r.json.get("namespace") == "hyperpod-ns-alpha",
     "queue hyperpod-ns-alpha-localqueue without namespace: 201 in "
     "hyperpod-ns-alpha (%s)" % r.status)
t.ok(wait_for(lambda: get("a1").get("state") == "Running", timeout=120),
     "a1 admitted and running")
t.ok("pending" not in get("a1"), "a running job has no pending member")
r = submit("a2", "alpha")
t.ok(wait_for(lambda: cond(workload("a2", "hyperpod-ns-alpha"),
                           "Admitted").get("status") == "True", timeout=120),
     "a2 admitted, borrowing team beta's idle GPU")



def team(name, res="nvidia.com/gpu"):
    items = s.get(C + "/teams").json.get("items") or []
    row = next((x for x in items if x.get("team") == name), {})
    return next((x for x in row.get("resources") or []
                 if x["resource"] == res), {})


t.ok(wait_for(lambda: team("alpha").get("borrowed") == 1 and
              team("beta").get("lent") == 1, timeout=60),
     "team_usage: alpha borrows the GPU beta lends")
t.eq((team("alpha").get("nominal"), team("alpha").get("in_use"),
      team("alpha").get("borrowing_limit"), team("alpha").get(
          "instance_type")), (1, 2, 1, gtype),
     "team_usage: alpha's nominal, in use and borrowing limit on " + gtype)
r = submit("a3", "alpha")
t.ok(wait_for(lambda: pending("a3").get("reason") in (
    "QuotaInUse", "BorrowingLimitReached", "WaitingForHigherPriority"),
    timeout=120), "a3 waits for quota: %s" % pending("a3"))
p = pending("a3")
w = workload("a3", "hyperpod-ns-alpha")
t.eq((p.get("queue"), p.get("cluster_queue"), p.get("position"),
      p.get("admitted")), ("hyperpod-ns-alpha-localqueue",
                           "hyperpod-ns-alpha-clusterqueue", 1, False),
     "a3: queue, cluster queue, position 1, not admitted")
t.eq(p.get("detail"), cond(w, "QuotaReserved").get("message"),
     "a3: detail is the Workload's QuotaReserved message")
t.ok(p.get("message") and p.get("next_step") and "GPU" not in
     p.get("reason", "x"), "a3: plain message and next step: %s / %s"
     % (p.get("message"), p.get("next_step")))
lst = s.get(C + "/training-jobs").json.get("items") or []
t.eq(next((j.get("pending", {}).get("reason") for j in lst
           if j["job"] == "a3"), None), p.get("reason"),
     "training_job_list carries the same pending reason")

r = submit("b1", "beta")
t.ok(wait_for(lambda: pending("a2").get("reason") == "Preempted",
              timeout=120), "a2 preempted when beta takes its GPU back")
w = workload("a2", "hyperpod-ns-alpha")
t.eq(cond(w, "Preempted").get("reason"), "InCohortReclamation",
     "... the Workload says InCohortReclamation")
t.ok("took its quota back" in pending("a2").get("message", "") and
     "reclamation within the cohort" in pending("a2").get("detail", ""),
     "a2: reclaimed, in plain words and Kueue's")
t.ok(wait_for(lambda: get("b1").get("state") == "Running", timeout=120),
     "b1 runs")

r = submit("a4", "alpha", priority="high")
t.ok(wait_for(lambda: pending("a1").get("reason") == "Preempted",
              timeout=120), "a1 preempted by the higher-priority a4")
t.ok("higher-priority" in pending("a1").get("message", "") and
     cond(workload("a1", "hyperpod-ns-alpha"), "Preempted").get(
         "reason") == "InClusterQueue", "a1: within the team, InClusterQueue")
t.ok(wait_for(lambda: get("a4").get("state") == "Running", timeout=120),
     "a4 runs")

r = submit("a5", "alpha", nodes=4)
t.ok(wait_for(lambda: pending("a5").get("reason") == "NeverFits",
              timeout=120), "4 GPUs against a quota of 1 (+1 to borrow): "
     "NeverFits at once")
t.eq(cond(workload("a5", "hyperpod-ns-alpha"), "QuotaReserved").get(
    "reason"), "ExceedsMaxQuota", "... the Workload says ExceedsMaxQuota")
t.ok("compute_quota_update" in pending("a5").get("next_step", ""),
     "... and the next step names compute_quota_update")

t.ok(wait_for(lambda: team("alpha").get("pending") == 7, timeout=60),
     "team_usage: alpha's waiting demand is 7 GPUs (a1, a2, a3, a5): %s"
     % team("alpha"))

# No queue: the scheduler's words.  Every GPU is taken.
r = s.post(C + "/training-jobs", {"job_name": "free", "recipe": "pytorch",
                                  "gpus_per_node": 1, "max_steps": 1000})
t.eq(r.status, 201, "a job with no queue")
t.ok(wait_for(lambda: pending("free").get("reason") == "NoNodeFits",
              timeout=120), "no queue, no free GPU: NoNodeFits")
t.ok("Insufficient nvidia.com/gpu" in pending("free").get("detail", ""),
     "... with the scheduler's message: %s" % pending("free").get("detail"))
r = s.post(C + "/inference", {
    "endpoint_name": "busy", "engine": "vllm", "model": "Qwen3-0.6B",
    "gpus_per_replica": 1})
t.ok(r.status in (200, 201), "an endpoint with no GPU left for it: %d" % r.status)
t.ok(wait_for(lambda: (s.get(C + "/inference/busy").json.get("pending") or
                       {}).get("reason") == "NoNodeFits", timeout=120),
     "inference_get: the endpoint says NoNodeFits: %s"
     % s.get(C + "/inference/busy").json.get("pending"))

r = s.post(C + "/inference?dry_run=true", {
    "endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B",
    "gpus_per_replica": 1, "queue": "hyperpod-ns-beta-localqueue"})
dep = next((m for m in (r.json or {}).get("manifests", [])
            if m.get("kind") == "Deployment"), {})
t.eq((r.status, dep.get("metadata", {}).get("namespace")),
     (200, "hyperpod-ns-beta"),
     "an endpoint on a team's queue without namespace: the team's")

# Elastic training as a job option: refused pairs name both fields.
def fields(r):
    return {e.get("field") for e in (r.json or {}).get("errors", [])}


base = {"job_name": "el", "recipe": "pytorch", "gpus_per_node": 1}
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, kind="ray", elastic={"min_nodes": 1, "max_nodes": 2}))
t.ok(r.status == 400 and {"elastic", "kind"} <= fields(r),
     "elastic with kind ray: 400 naming elastic and kind")
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, elastic={"min_nodes": 3, "max_nodes": 2}))
t.ok(r.status == 400 and {"elastic.min_nodes", "elastic.max_nodes"} <=
     fields(r), "min_nodes above max_nodes: 400 naming both")
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, nodes=3, elastic={"min_nodes": 1, "max_nodes": 2}))
t.ok(r.status == 400 and {"nodes", "elastic.max_nodes"} <= fields(r),
     "nodes outside the elastic range: 400 naming nodes and max_nodes")
r = s.post(C + "/training-jobs?dry_run=true", dict(
    base, nodes=1, elastic={"min_nodes": 1, "max_nodes": 2}))
hpj = next((m for m in (r.json or {}).get("manifests", [])
            if m.get("kind") == "HyperPodPyTorchJob"), {})
t.eq((hpj.get("spec", {}).get("elasticPolicy"),
      hpj.get("spec", {}).get("replicaSpecs", [{}])[0].get("maxReplicas")),
     ({"minReplicas": 1, "maxReplicas": 2, "replicaIncrementStep": 1}, 2),
     "elastic dry run: spec.elasticPolicy and the replica spec's maxReplicas")

# Elastic training needs the training operator v1.2.0 or later: on an
# older add-on (put there with the aws CLI, as a user who installed it
# earlier would have it) an elastic job is refused before anything is
# applied, naming the field and the version; a plain job still goes.
OP = "amazon-sagemaker-hyperpod-training-operator"
rc, a = aws_addon_version(s, "pq", OP, "v1.1.3-eksbuild.1")
if rc is None:
    t.skip("aws CLI not installed", 3)
else:
    t.eq(rc, 0, "the training operator moved to v1.1.3 with the aws CLI")
    r = s.post(C + "/training-jobs?dry_run=true", dict(
        base, nodes=1, elastic={"min_nodes": 1, "max_nodes": 2}))
    t.ok(r.status == 422 and "elastic" in fields(r) and
         "v1.2.0" in (r.json or {}).get("detail", "") and
         a.get("addonVersion", "") in (r.json or {}).get("detail", ""),
         "elastic on training operator %s: 422 naming elastic and v1.2.0:"
         " %s %s" % (a.get("addonVersion"), r.status,
                     (r.json or {}).get("detail")))
    r = s.post(C + "/training-jobs?dry_run=true", dict(base, nodes=1))
    t.eq(r.status, 200, "a job that is not elastic still plans there")
kube.close()
s.stop()
t.done()
