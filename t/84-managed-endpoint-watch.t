#!/usr/bin/python3
# 84-managed-endpoint-watch.t: endpoints the HyperPod inference operator
# runs (InferenceEndpointConfig, JumpStartModel) have a cost in their
# dry run and are watched like self-hosted ones.
# A cluster with two GPU groups: one type the sandbox's Price List lists
# a price for, one it lists none for.  A managed endpoint's dry run of 2
# replicas on the priced type adds their GPUs' share of the node's
# price an hour (the price x 2 when the type has one GPU) and 24 times
# that a day; with an autoscaler its minimum replicas are counted; a
# JumpStart one counts a whole instance per replica; on
# the unpriced type the sums are null (unknown) and why says so, never
# zero.  A managed endpoint of team a is deployed and seen ready; its
# worker is changed to a command its image lacks, its pods cannot
# start, and once its rollout is past maxDeployTimeInSeconds the
# operator says DeploymentFailed: endpoint.failed reaches a loopback
# webhook once.  The poller is killed; the worker is put back, the
# operator says DeploymentComplete: endpoint.recovered arrives once.
# Beside it, on the same cluster: a HyperPodPyTorchJob that runs its
# steps to the end (job.succeeded); one running, then suspended as
# Kueue suspends a job it preempts (job.preempted), then let go
# (job.recovered); a node failed through the sandbox's control API
# (node.unhealthy) and rebooted through node_reboot (HyperPod labels it
# UnschedulablePendingReboot meanwhile: a second node.unhealthy when a
# pass sees it), then Schedulable again (node.recovered).  Each event
# arrives exactly once.
import json
import os
import sys
from decimal import Decimal, ROUND_DOWN

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, Kubectl, sandbox_call, sandbox_requests
from harness import need_clusters, wait_operation, wait_for
from harness import aws_price, kill_if
import harness
import webhook

t = T()
need_clusters(t)
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)

SECRET = "a-managed-watch-secret"
rx = webhook.Receiver(fail=())
os.environ["SLIPWAY_WATCH_INTERVAL"] = "1"
s = Stack(t, sandbox=True, speed=600)
NS = "hyperpod-ns-a"
C = "/api/v1/clusters/m1"


def events(path, kind=None):
    return [json.loads(b) for h, b in rx.received(path)
            if kind is None or json.loads(b)["kind"] == kind]


# ---- two GPU types: one priced, one the Price List lists no price for
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
plain = [i for i in types if not i["efa_supported"] and i["gpus"] >= 1]
g = plain[0]
az = g["availability_zones"][0]
h = next(i for i in plain[1:] if az in i["availability_zones"])
st, _ = sandbox_call(s, "POST", "/_sandbox/prices", {h["instance_type"]: None})
t.eq(st, 200, "the sandbox lists no price for %s" % h["instance_type"])

r = s.post("/api/v1/subscriptions", {
    "name": "all", "target": "webhook", "url": rx.url + "/all",
    "secret": SECRET, "events": ["endpoint.failed", "endpoint.recovered",
                                 "job.succeeded", "job.preempted",
                                 "job.recovered", "job.failed",
                                 "node.unhealthy", "node.recovered"]})
t.eq(r.status, 201, "a subscription to endpoint, job and node changes")

r = s.post("/api/v1/clusters", {
    "name": "m1", "node_provisioning_mode": "Continuous",
    "node_recovery": "None",
    "instance_groups": [
        {"name": "g", "instance_type": g["instance_type"], "count": 1,
         "availability_zone": az},
        {"name": "h", "instance_type": h["instance_type"], "count": 1,
         "availability_zone": az}]})
t.eq(r.status, 202, "cluster m1 is created")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and runs")
r = s.request("PATCH", C + "/features", {"inference_operator": True,
                                        "training_operator": True})
t.eq(r.status, 202, "the inference and training operators are asked for")
d = wait_operation(s, (r.json or {}).get("operation_id"), timeout=300)
t.eq(d.get("state"), "succeeded", "and installed")
k = Kubectl(s, "m1")
t.eq(k.run("create", "namespace", NS).returncode, 0, "team a's namespace")

# ---- what a managed endpoint costs
REGION = s.get("/api/v1/regions").json["region"]
price = Decimal(str(aws_price(s, REGION, g["instance_type"])))
MGD = {"endpoint_name": "ep", "kind": "managed", "namespace": NS,
       "instance_type": g["instance_type"], "replicas": 2,
       "model_source": {"type": "huggingface", "uri": "Qwen/Qwen3-0.6B"}}


def cost_of(body):
    r = s.post(C + "/inference?dry_run=true", body)
    return r.status, (r.json or {}).get("cost") or {}, r


def dec(v):
    return None if v is None else Decimal(str(v))


st, c, r = cost_of(MGD)
hour = (2 * price / g["gpus"]).quantize(Decimal("0.000001"), ROUND_DOWN)
t.ok(st == 200 and c.get("complete") is True and
     dec(c.get("added_per_hour")) == hour and
     dec(c.get("added_per_day")) == hour * 24 and
     c.get("instance_type") == g["instance_type"] and
     c.get("replicas") == 2 and c.get("gpus") == 2 and
     dec(c.get("usd_per_hour_each")) == price,
     "managed dry run: 2 replicas of 1 GPU on %s (%s GPUs, %s an hour) "
     "add %s an hour, %s a day (%s)" % (g["instance_type"], g["gpus"],
                                        price, hour, hour * 24,
                                        c or (r.status, r.body[:300])))
if g["gpus"] == 1:
    t.ok(dec(c.get("added_per_day")) == price * 2 * 24,
         "on a 1-GPU type that is the price x 2 x 24")
else:
    t.ok(True, "%s has %d GPUs: the price x 2 x 24 is JumpStart's" %
         (g["instance_type"], g["gpus"]))
t.ok(dec(c.get("cluster_per_hour")) is None and
     c.get("cluster_per_hour", 0) is None,
     "the cluster's own cost is unknown: one of its types has no price")
AMP = ("https://aps-workspaces.%s.amazonaws.com/workspaces/"
       "ws-0123abcd-4567-89ef-0123-456789abcdef" % REGION)
st, c, r = cost_of(dict({k: v for k, v in MGD.items() if k != "replicas"},
                        autoscaling={"min_replicas": 3, "max_replicas": 5,
                                     "prometheus_url": AMP}))
t.ok(st == 200 and c.get("replicas") == 3 and
     dec(c.get("added_per_hour")) ==
     (3 * price / g["gpus"]).quantize(Decimal("0.000001"), ROUND_DOWN),
     "with an autoscaler its minimum, 3 replicas, is counted (%s)" %
     (c or (r.status, r.body[:300])))
js = {"endpoint_name": "js", "kind": "jumpstart", "namespace": NS,
      "instance_type": g["instance_type"], "replicas": 2,
      "model_id": "meta-textgeneration-llama-3-2-1b", "accept_eula": True}
st, c, r = cost_of(js)
t.ok(st == 200 and c.get("complete") is True and
     dec(c.get("added_per_hour")) == 2 * price and
     dec(c.get("added_per_day")) == 2 * price * 24 and
     c.get("gpus") == 2 * g["gpus"] and "whole instance" in
     c.get("basis", ""),
     "JumpStart dry run: a whole instance per replica, the price x 2 an "
     "hour and x 2 x 24 a day (%s)" % (c or (r.status, r.body[:300])))
st, c, r = cost_of(dict(MGD, instance_type=h["instance_type"]))
t.ok(st == 200 and c.get("complete") is False and
     "added_per_hour" in c and c["added_per_hour"] is None and
     "added_per_day" in c and c["added_per_day"] is None and
     "no on-demand price" in c.get("why", ""),
     "on %s the cost is unknown (null, not zero) and says why: %s" %
     (h["instance_type"], c.get("why") or (r.status, r.body[:300])))
st, c, r = cost_of(dict(MGD, instance_type="ml.p5.48xlarge"))
t.ok(st == 200 and c.get("complete") is False and
     c.get("added_per_hour", 0) is None and "no instance group" in
     c.get("why", ""), "on a type the cluster has no group of: unknown, "
     "and why (%s)" % (c.get("why") or (r.status, r.body[:300])))
t.eq(k.get("inferenceendpointconfigs", "-n", NS, "ep"), None,
     "the dry runs created nothing")

# ---- the managed endpoint runs and is seen


def mark():
    return max([q.get("seq", 0) for q in sandbox_requests(s)] or [0])


def passes(n, since):
    """n more watch passes after since (each begins with its
    ListClusterEvents of m1, after the last one's commit)."""
    def seen():
        reqs = sandbox_requests(s, service="sagemaker",
                                operation="ListClusterEvents", since=since)
        return len([q for q in reqs if "m1" in json.dumps(q)]) >= n
    return wait_for(seen, timeout=120)


def state():
    r = s.get(C + "/inference/ep?namespace=" + NS)
    return (r.json or {}).get("state") if r.status == 200 else None


IMAGE = "docker.io/pytorch/pytorch:2.6.0-cuda12.4-cudnn9-runtime"


def job(name, steps, suspend=False):
    return {"apiVersion": "sagemaker.amazonaws.com/v1",
            "kind": "HyperPodPyTorchJob",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"nprocPerNode": "1",
                     "runPolicy": {"suspend": suspend,
                                   "cleanPodPolicy": "None"},
                     "replicaSpecs": [{"name": "pods", "replicas": 1,
                                       "template": {"spec": {
                                           "containers": [{
                                               "name": "pytorch",
                                               "image": IMAGE,
                                               "command": ["python3",
                                                           "train.py"],
                                               "env": [{"name": "MAX_STEPS",
                                                        "value": str(steps)},
                                                       {"name": "STEP_SECONDS",
                                                        "value": "3"}]
                                           }]}}}]}}


def apply(obj):
    p = k.run("apply", "-f", "-", stdin=json.dumps(obj))
    return p.returncode == 0 or t.diag(p.stderr) or False


def job_conds(name):
    o = k.get("hyperpodpytorchjobs", "-n", NS, name) or {}
    return {c["type"]: c["status"] for c in
            o.get("status", {}).get("conditions") or []}


# about 15 s at the sandbox's speed: seen before it ends
t.ok(apply(job("done", 3000)), "a job that runs 3000 steps and ends")
t.ok(apply(job("long", 100000)), "a job that runs long")

r = s.post(C + "/inference", dict(MGD, replicas=1))
t.ok(r.status == 200, "the managed endpoint is deployed (%d %s)" %
     (r.status, r.body[:300]))
t.ok(wait_for(lambda: state() == "DeploymentComplete", 180),
     "and is ready (DeploymentComplete; last %s)" % state())
t.ok(wait_for(lambda: job_conds("long").get("Running") == "True", 120),
     "the long job runs")
t.ok(passes(2, mark()), "the poller has seen them (two passes)")
t.eq([e["kind"] for e in events("/all")], [], "a first sight is no event")

# ---- it fails as the operator fails it


def worker(cmd):
    p = k.run("patch", "inferenceendpointconfig", "ep", "-n", NS,
              "--type", "merge", "-p", json.dumps(
                  {"spec": {"worker": {"command": cmd}}}))
    return p.returncode == 0 or t.diag(p.stderr) or False


def iec():
    return k.get("inferenceendpointconfigs", "-n", NS, "ep") or {}


t.ok(worker(["/opt/serve/not-here"]),
     "the worker is changed to a command its image lacks")
t.ok(wait_for(lambda: iec().get("status", {}).get("state") ==
              "DeploymentFailed", 180),
     "the operator says DeploymentFailed (%s)" %
     iec().get("status", {}).get("conditions"))
cond = (iec().get("status", {}).get("conditions") or [{}])[0]
t.ok("maxDeployTimeInSeconds" in cond.get("message", "") and
     any(w in cond.get("message", "") for w in ("StartError",
                                                 "CrashLoopBackOff")),
     "naming the deadline and the pod's failure: %s" % cond.get("message"))
t.ok(wait_for(lambda: len(events("/all", "endpoint.failed")) >= 1, 180),
     "endpoint.failed reaches the receiver")
ev = events("/all", "endpoint.failed")
dt = ev[0]["detail"] if ev else {}
t.ok(dt.get("subject") == "endpoint %s/ep" % NS and
     dt.get("endpoint_kind") == "managed" and
     dt.get("resource") == "InferenceEndpointConfig" and
     dt.get("operator_state") == "DeploymentFailed" and
     dt.get("state") == "Failed" and
     dt.get("previous") in ("Ready", "Pending") and
     dt.get("team") == "a" and ev[0].get("cluster") == "m1",
     "it names the endpoint, its kind, the operator's state and team a "
     "(%s)" % dt)

# ---- one kill of the poller


t.ok(wait_for(s.deliveries_settled, 120), "the delivery is settled")
old = s.component_pid("poller")
t.ok(old and kill_if(old, "slipway-poller"), "the poller is killed")
t.ok(wait_for(lambda: s.component_pid("poller") not in (0, old), 120), "and runs again")

# ---- it recovers
t.ok(worker(None), "the worker's command is put back")
t.ok(wait_for(lambda: state() == "DeploymentComplete", 180),
     "the operator says DeploymentComplete again (last %s)" % state())
t.ok(wait_for(lambda: len(events("/all", "endpoint.recovered")) >= 1, 180),
     "endpoint.recovered reaches the receiver")

# ---- jobs: one ends, one is preempted and runs again
JOB = "HyperPodPyTorchJob %s/" % NS
t.ok(wait_for(lambda: len(events("/all", "job.succeeded")) >= 1, 180),
     "job.succeeded reaches the receiver (%s)" % job_conds("done"))
ev = events("/all", "job.succeeded")
t.ok(ev and ev[0]["detail"].get("subject") == JOB + "done" and
     ev[0]["detail"].get("state") == "Succeeded" and
     ev[0]["detail"].get("team") == "a",
     "for job done, of team a (%s)" % (ev[0]["detail"] if ev else None))


def suspend(name, on):
    p = k.run("patch", "hyperpodpytorchjob", name, "-n", NS, "--type",
              "merge", "-p", json.dumps({"spec": {"runPolicy": {
                  "suspend": on}}}))
    return p.returncode == 0 or t.diag(p.stderr) or False


t.ok(suspend("long", True), "the long job is suspended, as Kueue "
     "suspends a job it preempts")
t.ok(wait_for(lambda: len(events("/all", "job.preempted")) >= 1, 180),
     "job.preempted reaches the receiver")
ev = events("/all", "job.preempted")
t.ok(ev and ev[0]["detail"].get("subject") == JOB + "long" and
     ev[0]["detail"].get("previous") == "Running" and
     ev[0]["detail"].get("state") == "Suspended",
     "running, then suspended (%s)" % (ev[0]["detail"] if ev else None))
t.ok(suspend("long", False), "and let go")
t.ok(wait_for(lambda: len(events("/all", "job.recovered")) >= 1, 180),
     "job.recovered reaches the receiver")

# ---- a node fails and is rebooted
nodes = s.get(C + "/nodes").json.get("items", [])
nid = next((n.get("node_id") for n in nodes
            if n.get("instance_group") == "h"), None)
t.ok(nid, "group h has a node to fail (%s)" % nid)
st, body = sandbox_call(s, "POST", "/_sandbox/fail-node",
                        {"cluster": "m1", "node_id": nid})
t.eq(st, 200, "the sandbox fails %s" % nid)
t.ok(wait_for(lambda: len(events("/all", "node.unhealthy")) >= 1, 180),
     "node.unhealthy reaches the receiver")


def health():
    n = k.get("node", "hyperpod-" + nid) or {}
    return n.get("metadata", {}).get("labels", {}).get(
        "sagemaker.amazonaws.com/node-health-status")


r = s.post(C + "/nodes:reboot", {"node_ids": [nid]})
t.eq(r.status, 202, "node_reboot %s" % nid)
seen = set()
t.ok(wait_for(lambda: seen.add(health()) or health() == "Schedulable" and
              len(events("/all", "node.recovered")) >= 1, 180),
     "it comes back Schedulable and node.recovered reaches the receiver "
     "(labels seen: %s)" % sorted(str(x) for x in seen))
ev = events("/all", "node.recovered")
t.ok(ev and ev[0]["detail"].get("subject") == "node hyperpod-" + nid and
     ev[0]["detail"].get("state") == "Schedulable",
     "node.recovered names the node (%s)" % (ev[0]["detail"] if ev else
                                             None))

t.ok(passes(2, mark()), "two more passes")
t.ok(wait_for(s.deliveries_settled, 120), "every delivery settled")
steps = [(e["detail"].get("previous"), e["detail"].get("state"))
         for e in events("/all", "node.unhealthy")]
t.ok(steps in ([("Schedulable", "UnschedulablePendingReplacement")],
               [("Schedulable", "UnschedulablePendingReplacement"),
                ("UnschedulablePendingReplacement",
                 "UnschedulablePendingReboot")]),
     "node.unhealthy: failed, and (when a pass saw it) rebooting: %s" %
     steps)
t.eq(sorted(set((e["kind"], e["detail"].get("subject"))
                for e in events("/all"))),
     sorted([("endpoint.failed", "endpoint %s/ep" % NS),
             ("endpoint.recovered", "endpoint %s/ep" % NS),
             ("job.succeeded", JOB + "done"),
             ("job.preempted", JOB + "long"),
             ("job.recovered", JOB + "long"),
             ("node.unhealthy", "node hyperpod-" + nid),
             ("node.recovered", "node hyperpod-" + nid)]),
     "every change reached the receiver, and nothing else")
t.eq(len(events("/all")), len(set(
    (e["kind"], e["detail"].get("subject"), e["detail"].get("previous"),
     e["detail"].get("state")) for e in events("/all"))),
     "each change exactly once")
ids = [hd.get("Slipway-Event-Id") for hd, b in rx.received("/all")]
want = sorted(x["event_id"] for x in s.get(
    "/api/v1/deliveries?subscription=all&limit=500").json["items"])
t.eq(sorted(ids), want, "the receiver has every event of the outbox, once")
t.ok(all(webhook.signed_ok(SECRET, hd, b) for hd, b in rx.received("/all")),
     "every copy is signed")
rx.stop()
s.stop()
t.done()
