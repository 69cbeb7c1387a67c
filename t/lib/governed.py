"""governed.py: a cluster shared by teams under task governance, as the
queueing tests start.

governed_cluster(t, name, nodes, quotas) starts a stack on the sandbox
(skipping the test where the sandbox, kubectl or simulated Helm is
missing) and makes, through Slipway, a cluster of `nodes` 1-GPU nodes
with task governance and the training operator on, the scheduler config
(priority classes high 90 and low 10) and one compute quota per team of
quotas [(team, GPUs, preempt)], lending and borrowing in one cohort; it
waits until Kueue's ClusterQueues exist.  It answers (stack, cluster
path, instance type, Kubectl); a cluster that cannot be made ends the
test.  job_body() is a training job on a team's queue.
"""
import os
import shutil

import harness
from harness import Kubectl, Stack, wait_for, wait_operation


def governed_cluster(t, name, nodes, quotas, speed=2000):
    if not os.path.exists(os.path.join(harness.SRCDIR, "sandbox",
                                       "slipway-sandbox")):
        t.skip_all("sandbox missing")
    if (shutil.which("kubectl.1.32") or shutil.which("kubectl")) is None:
        t.skip_all("kubectl missing")
    if not harness.helm_simulated():
        t.skip_all(harness.NO_HELM)
    s = Stack(t, sandbox=True, speed=speed)
    c = "/api/v1/clusters/" + name
    gtype, _ = harness.gpu_cluster(t, s, name, nodes, gpus=1, timeout=300)
    r = s.request("PATCH", c + "/features", {"task_governance": True,
                                             "training_operator": True})
    d = wait_operation(s, r.json["operation_id"], timeout=240) \
        if r.status == 202 else {}
    t.eq(d.get("state"), "succeeded",
         "task governance and training operator on")
    r = s.request("PUT", c + "/scheduler-config", {"priority_classes": [
        {"name": "high", "weight": 90}, {"name": "low", "weight": 10}]})
    t.eq(r.status, 201, "scheduler config asked for")
    t.ok(wait_for(lambda: s.get(c + "/scheduler-config").json.get(
        "status") == "Created", timeout=60), "scheduler config Created")
    for team, gpus, preempt in quotas:
        r = s.post(c + "/compute-quotas", {
            "quota_name": team + "-q", "team": team, "instance_type": gtype,
            "count": gpus, "sharing": "LendAndBorrow", "borrow_limit": 100,
            "preempt": preempt})
        t.eq(r.status, 201, "quota of team %s (%d GPUs) asked for" %
             (team, gpus))
    t.ok(wait_for(lambda: all(s.get(c + "/compute-quotas/%s-q" % q[0])
                              .json.get("status") == "Created"
                              for q in quotas), timeout=60),
         "the quotas are Created")
    kube = Kubectl(s, name)
    t.ok(wait_for(lambda: all(kube.get(
        "clusterqueues.kueue.x-k8s.io", "hyperpod-ns-%s-clusterqueue" %
        q[0]) for q in quotas), timeout=60),
        "the teams' ClusterQueues exist")
    return s, c, gtype, kube


def job_body(name, team, priority="low", nodes=1, **extra):
    """A PyTorch job of one GPU a node on team's local queue."""
    body = {"job_name": name, "recipe": "pytorch", "nodes": nodes,
            "gpus_per_node": 1, "max_steps": 10000000,
            "queue": "hyperpod-ns-%s-localqueue" % team,
            "priority": priority}
    body.update(extra)
    return body
