#!/usr/bin/python3
# 82-hyperpod-2026.t: what HyperPod gained in 2026, in one life on the
# sandbox.  A training plan is reserved (its fee shown first); a cluster
# in Continuous node provisioning mode gets a group on the plan at 0
# nodes and scales it with BatchAddClusterNodes while the poller is
# killed twice (no node added twice, by the request log); an EBS volume
# is attached to one of its nodes; a job writes checkpoints and a new job
# resumes from the second-newest complete one; a Space is opened and seen
# stopped when idle; and the plan's expiry warning reaches a webhook,
# naming the group on it.
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Kubectl, Stack, aws_cli, need_clusters
from harness import need_fault_injection, sandbox_call, sandbox_requests
from harness import wait_for, wait_operation
import webhook

t = T()
need_clusters(t)
need_fault_injection(t)

SPEED = 3000
WARN = 3600
PLAN_TYPE = "ml.p5.48xlarge"
BUCKET = "life-data"
rx = webhook.Receiver()
once = os.path.join(tempfile.mkdtemp(prefix="sw-fault-"), "killed")
env = {"SLIPWAY_TRAINING_PLAN_WARN_BEFORE": str(WARN),
       "SLIPWAY_LEDGER_INTERVAL": "1",
       "SLIPWAY_FAULT": "kill-after:BatchAddClusterNodes*2",
       "SLIPWAY_FAULT_ONCE": once}
os.environ.update(env)
s = Stack(t, sandbox=True, speed=SPEED)
for k in env:
    del os.environ[k]
r = s.post("/api/v1/subscriptions", {
    "name": "plans", "target": "webhook", "url": rx.url + "/plans",
    "secret": "a-test-secret-of-some-length",
    "events": ["training_plan.expiring"]})
t.eq(r.status, 201, "a webhook subscribes to training_plan.expiring")


def ok_op(r, what, timeout=400):
    """An accepted operation, run to its end: succeeded?"""
    if r.status != 202:
        t.diag("%s: %d %s" % (what, r.status, r.body[:400]))
        return t.ok(False, what)
    d = wait_operation(s, r.json.get("operation_id", ""), timeout=timeout)
    return t.ok(d.get("state") == "succeeded", "%s (%s)" %
                (what, d.get("error") or "succeeded"))


# ---- a training plan: its fee first, then reserved
body = {"name": "life", "instance_type": PLAN_TYPE, "count": 2,
        "duration_hours": 48}
r = s.post("/api/v1/training-plans?dry_run=true", body)
fee = ((r.json or {}).get("purchase") or {}).get("upfront_fee")
t.ok(r.status == 200 and fee and fee > 0,
     "the reservation's dry run shows its upfront fee ($%s)" % fee)
ok_op(s.post("/api/v1/training-plans", body), "the plan is reserved")
plan = s.get("/api/v1/training-plans/life").json or {}
arn = plan.get("arn") or plan.get("TrainingPlanArn") or next(
    (p.get("TrainingPlanArn") for p in s.get("/api/v1/training-plans")
     .json.get("items", []) if p.get("TrainingPlanName") == "life"), "")
t.ok(arn.startswith("arn:aws:sagemaker:"), "the plan has its ARN")
offer = ((r.json or {}).get("purchase") or {})
plan_az = offer.get("availability_zone")

# ---- a cluster in Continuous mode, and a group on the plan at 0 nodes
rc, _ = aws_cli(s, "s3api", "create-bucket", "--bucket", BUCKET,
                "--create-bucket-configuration",
                "LocationConstraint=us-west-2")
t.eq(rc, 0, "the data bucket exists (aws s3api create-bucket)")
types = {i["instance_type"]: i for i in s.get(
    "/api/v1/instance-types?gpu_only=true").json["items"]}
gtype = next(n for n, i in sorted(types.items())
             if not i["efa_supported"] and i["gpus"] > 0)
ok_op(s.post("/api/v1/clusters", {
    "name": "life", "node_provisioning_mode": "Continuous",
    "storage": {"s3_bucket": BUCKET},
    "instance_groups": [{"name": "gpu", "instance_type": gtype, "count": 1,
                         "availability_zone":
                         types[gtype]["availability_zones"][0]}]}),
    "a cluster in Continuous node provisioning mode is created")
G = "/api/v1/clusters/life/instance-groups"
ok_op(s.post(G, {"group_name": "p5", "instance_type": PLAN_TYPE, "count": 0,
                 "capacity_type": "training-plan", "training_plan_arn": arn,
                 "availability_zone": plan_az}),
      "a group on the plan is added at 0 nodes")


def group(name):
    return next((g for g in s.get(G).json.get("items", [])
                 if g.get("name") == name), {})


t.eq((group("p5").get("target_count"),
      (group("p5").get("training_plan") or {}).get("name")), (0, "life"),
     "the group has 0 nodes and names its plan")

# ---- scaled by BatchAddClusterNodes, the poller killed twice
ok_op(s.request("PATCH", G + "/p5", body={"count": 2}),
      "the group is scaled to 2 through two poller kills")
t.eq(s.log_text("poller.log").count("fault injection: SIGKILL after "
                                    "BatchAddClusterNodes"), 2,
     "the poller was killed twice, each time right after "
     "BatchAddClusterNodes")
adds = [e for e in sandbox_requests(s, mutating="true", service="sagemaker")
        if e["operation"] == "BatchAddClusterNodes" and e["status"] == 200]
t.ok(len(adds) == 3 and len({e["params"].get("ClientToken")
                             for e in adds}) == 1 and
     len({json.dumps(e["params"].get("NodesToAdd"), sort_keys=True)
          for e in adds}) == 1,
     "the request log: the one call sent 3 times with one ClientToken and "
     "the same nodes (%d)" % len(adds))
nodes = s.get("/api/v1/clusters/life/nodes?instance_group=p5").json.get(
    "items", [])
t.ok(len(nodes) == 2 and len({n.get("node_logical_id") for n in nodes}) == 2
     and group("p5").get("target_count") == 2,
     "no node was added twice: exactly 2 nodes, each its own logical id")

# ---- an EBS volume on one of them
st, vol = sandbox_call(s, "POST", "/_sandbox/ec2/volumes",
                       {"availability_zone": plan_az, "size": 50})
vid = (vol or {}).get("volumeId")
n0 = nodes[0]["node_id"] if nodes else "i-none"
ok_op(s.post("/api/v1/clusters/life/nodes/%s/volumes" % n0,
             {"volume_id": vid, "install_csi_driver": True}),
      "an EBS volume is attached to %s" % n0)


def volume():
    st, b = sandbox_call(s, "GET", "/_sandbox/ec2/volumes")
    return next((v for v in (b or {}).get("volumes", [])
                 if v["volumeId"] == vid), {})


t.ok(wait_for(lambda: volume().get("state") == "in-use" and
              volume()["attachmentSet"][0]["instanceId"] == n0, 60),
     "the volume is in use on that node")

# ---- a job that writes checkpoints, and a new one resumed from one
kube = Kubectl(s, "life")
rc, _ = aws_cli(s, "eks", "create-addon", "--cluster-name", "life",
                "--addon-name", "amazon-sagemaker-hyperpod-training-operator")
t.ok(rc == 0 and wait_for(lambda: kube.run(
    "get", "crd", "hyperpodpytorchjobs.sagemaker.amazonaws.com").returncode
    == 0, 60), "the training operator is installed")
C = "/api/v1/clusters/life"
r = s.post(C + "/training-jobs", {
    "job_name": "pretrain", "recipe": "pytorch", "nodes": 1,
    "gpus_per_node": 1, "dataset": "web", "max_steps": 40,
    "env": {"STEP_SECONDS": "2", "CHECKPOINT_EVERY_STEPS": "10",
            "CHECKPOINT_SAVE_SECONDS": "8"}})
t.eq(r.status, 201, "a job that saves every 10 steps is submitted")
t.ok(wait_for(lambda: (s.get(C + "/training-jobs/pretrain").json or {})
              .get("terminal"), 240), "it runs to its end")
r = s.get(C + "/training-jobs/pretrain/checkpoints")
done = [i["name"] for i in (r.json or {}).get("items", []) if i["complete"]]
t.ok(r.status == 200 and len(done) >= 2 and
     r.json.get("newest_complete") == done[0],
     "its checkpoints are listed, the newest complete one marked: %s" % done)
second = done[1] if len(done) > 1 else "none"
r = s.post(C + "/training-jobs/pretrain/checkpoints/%s/resume" % second,
           {"job_name": "pretrain-r"})
t.eq(r.status, 201, "a new job resumes from the second-newest (%s)" % second)
hpj = kube.get("hyperpodpytorchjobs", "pretrain-r") or {}
c0 = (hpj.get("spec", {}).get("replicaSpecs") or [{}])[0].get(
    "template", {}).get("spec", {}).get("containers", [{}])[0]
t.eq({e["name"]: e.get("value") for e in c0.get("env", [])}.get(
    "RESUME_FROM_CHECKPOINT"),
    "/data/outputs/pretrain/checkpoints/%s" % second,
    "its pods resume from that checkpoint")

# ---- a Space: opened, then stopped by the operator once idle
ok_op(s.request("PATCH", C + "/features", {"spaces": True}),
      "Spaces are turned on")
SP = C + "/spaces"


def space():
    r = s.get(SP + "/notebook")
    return r.json if r.status == 200 else {}


r = s.post(SP, {"space": "notebook", "template": "code-editor", "cpu": 1,
                "memory_gib": 2, "idle_timeout_minutes": 1800})
t.eq(r.status, 201, "a Code Editor Space with a 30-hour idle timeout "
     "is opened")
t.ok(wait_for(lambda: space().get("state") == "Running" and (space().get(
    "connect") or {}).get("web_url", "").startswith("https://"), 120),
    "it runs, with its web URL to connect to (36 s of this clock before "
    "it is idle)")
t.ok(wait_for(lambda: space().get("state") == "Stopped", 180) and
     space().get("stopped_by") == "idle",
     "the operator stops it once idle (stopped_by %s)" %
     space().get("stopped_by"))

# ---- the plan's expiry warning
left = (s.get("/api/v1/training-plans/life").json or {}).get(
    "remaining_seconds", 0)
sandbox_call(s, "POST", "/_sandbox/advance",
             {"seconds": (left - WARN / 2) * SPEED})
t.ok(wait_for(lambda: rx.received("/plans"), timeout=120),
     "the plan's expiry warning reaches the webhook")
ev = json.loads(rx.received("/plans")[0][1]) if rx.received("/plans") else {}
det = ev.get("detail") or {}
t.ok(ev.get("kind") == "training_plan.expiring" and det.get("plan") == "life"
     and {"cluster": "life", "group": "p5", "count": 2}
     in det.get("groups", []),
     "it names the plan and the group on it: %s" % json.dumps(det)[:300])
t.ok(webhook.signed_ok("a-test-secret-of-some-length",
                       *rx.received("/plans")[0]), "signed")
rx.stop()
s.stop()
t.done()
