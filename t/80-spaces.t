#!/usr/bin/python3
# 80-spaces.t: HyperPod Spaces against the sandbox.  Before feature
# spaces a Space is refused naming it; turning it on installs the
# amazon-sagemaker-spaces add-on (and the EBS CSI driver it needs), whose
# jupyter-k8s kinds the sandbox serves from the upstream schema.  A team
# with one GPU of quota: ana's GPU Space in the team's queue runs and
# gives its web URL and the SSM route; a second GPU Space is over the
# team's quota and waits, saying why (Kueue's QuotaInUse); bob, of the
# same team, may read but not stop or delete ana's owner-only Space and
# sees no URL; ana stops hers (the volume stays, the other Space gets
# the GPU), starts it again (it now waits for quota), and deletes the
# other.  A Space with a short idle timeout is stopped by the operator
# (stopped_by idle) and started again.  A bad template is a 400 naming
# the field; dry runs send nothing; delete removes the Workspace.  Every
# Workspace read back is valid against the upstream jupyter-k8s schema.
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Kubectl, Stack, sandbox_requests, wait_for, \
    wait_operation

SRC = os.environ.get("SW_SRCDIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import crdbundle, schema  # noqa: E402

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
if (shutil.which("kubectl.1.32") or shutil.which("kubectl")) is None:
    t.skip_all("kubectl missing")
if not crdbundle.available():
    t.skip_all("no ../shared/testdata/crds beside the project")
s = Stack(t, sandbox=True, speed=2000)
C = "/api/v1/clusters/sp"
SP = C + "/spaces"
Q = "hyperpod-ns-alpha-localqueue"
NS = "hyperpod-ns-alpha"

r = s.get("/api/v1/instance-types?gpu_only=true")
types = {i["instance_type"]: i for i in r.json["items"]}
gtype = next(n for n, i in sorted(types.items())
             if not i["efa_supported"] and i["gpus"] == 1)
r = s.post("/api/v1/clusters", {
    "name": "sp", "storage": {"s3_bucket": "sp-training-data"},
    "instance_groups": [{"name": "gpu", "instance_type": gtype, "count": 2,
                         "availability_zone":
                         types[gtype]["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
if not t.eq(d.get("state"), "succeeded", "cluster created"):
    t.diag(json.dumps(d)[-2000:])
    s.stop()
    t.done()
    sys.exit(0)

# ---- people: ana and bob, operators of team alpha
tok = {}
for who in ("ana", "bob"):
    r = s.post("/api/v1/tokens", {"name": who, "team": "alpha",
                                  "role": "operator"})
    t.eq(r.status, 201, "token of %s made" % who)
    tok[who] = r.json.get("token")


def space(name, who="ana", **extra):
    body = {"space": name}
    body.update(extra)
    return s.post(SP, body, token=tok[who])


def get(name, who="ana"):
    r = s.get(SP + "/" + name, token=tok[who])
    return r.json if r.status == 200 else {}


def state(name):
    return get(name).get("state")


# ---- refused before the add-on, naming the feature
r = space("early", gpus=0)
t.eq(r.status, 409, "space_create before feature spaces: 409")
t.ok("spaces" in r.json.get("detail", ""), "... naming feature spaces")
seq = (sandbox_requests(s) or [{"seq": 0}])[-1]["seq"]
r = s.request("PATCH", C + "/features", {"spaces": True,
                                         "task_governance": True})
d = wait_operation(s, r.json["operation_id"], timeout=240) \
    if r.status == 202 else {}
t.eq(d.get("state"), "succeeded", "spaces and task governance on")
added = [json.dumps(e) for e in
         sandbox_requests(s, operation="CreateAddon", since=seq)]
ebs = [i for i, a in enumerate(added) if "aws-ebs-csi-driver" in a]
spc = [i for i, a in enumerate(added) if "amazon-sagemaker-spaces" in a]
t.ok(ebs and spc and ebs[0] < spc[0],
     "CreateAddon aws-ebs-csi-driver, then amazon-sagemaker-spaces")
f = s.get(C + "/features").json["features"]
t.ok(f.get("spaces", {}).get("enabled"), "feature_list: spaces on")
kube = Kubectl(s, "sp")
t.ok(kube.get("crd", "workspaces.workspace.jupyter.org") is not None,
     "the Workspace CRD is served")

# ---- the team: one GPU of quota
r = s.request("PUT", C + "/scheduler-config", {"priority_classes": [
    {"name": "high", "weight": 90}, {"name": "low", "weight": 10}]})
t.eq(r.status, 201, "scheduler config asked for")
r = s.post(C + "/compute-quotas", {
    "quota_name": "alpha-q", "team": "alpha", "instance_type": gtype,
    "count": 1})
t.eq(r.status, 201, "team alpha's quota asked for")
t.ok(wait_for(lambda: s.get(C + "/compute-quotas/alpha-q").json.get(
    "status") == "Created" and s.get(C + "/scheduler-config").json.get(
    "status") == "Created", timeout=60), "quota and scheduler config Created")
t.ok(wait_for(lambda: kube.get("localqueues.kueue.x-k8s.io", "-n", NS, Q),
              timeout=60), "the team's LocalQueue exists")

# ---- refusals at the door
r = space("bad", template="rstudio")
t.eq(r.status, 400, "unknown template: 400")
t.ok(any(e.get("field") == "template" for e in r.json.get("errors", [])),
     "... naming template")
r = space("bad", gpus=1, queue="hyperpod-ns-nobody-localqueue")
t.eq(r.status, 400, "a queue no quota has: 400")
seq = (sandbox_requests(s) or [{"seq": 0}])[-1]["seq"]
r = s.post(SP + "?dry_run=true", {"space": "nb1", "gpus": 1, "queue": Q,
                                  "priority": "high"}, token=tok["ana"])
ws_plan = [m for m in r.json.get("manifests", [])
           if m.get("kind") == "Workspace"]
t.ok(r.status == 200 and len(ws_plan) == 1, "dry run: the Workspace planned")
t.eq(kube.get("workspaces.workspace.jupyter.org", "-n", NS, "nb1"), None,
     "... and nothing applied")

# ---- ana's GPU Space runs and says how to connect
r = space("nb1", gpus=1, queue=Q, priority="high", idle_timeout_minutes=0,
          display_name="Ana's notebook")
if not t.eq(r.status, 201, "space_create: 201"):
    t.diag(r.body)
t.eq((r.json.get("owner"), r.json.get("namespace"), r.json.get(
    "status_tool")), ("ana", NS, "space_get"),
    "... owned by ana, in the team's namespace, followed by space_get")
t.ok(wait_for(lambda: state("nb1") == "Running", timeout=120),
     "nb1 Running")
g = get("nb1")
t.eq((g.get("template"), g.get("gpus"), g.get("queue"), g.get("priority"),
      g.get("access"), g.get("owner")),
     ("jupyterlab", 1, Q, "high", "owner-only", "ana"),
     "space_get: template, GPU, queue, priority, access, owner")
url = g.get("connect", {}).get("web_url") or ""
t.ok(url.startswith("https://") and url.endswith(
    "/workspaces/%s/nb1/" % NS), "connect.web_url is the access URL: " + url)
ide = g.get("connect", {}).get("ide") or {}
t.ok(ide.get("ssm_target", "").startswith("sagemaker-cluster:") and
     "AWS-StartPortForwardingSessionToRemoteHost" in ide.get(
         "ssm_command", "") and "portNumber=8888" in ide.get(
         "ssm_command", ""), "connect.ide: the SSM port forward to its node")
ws = kube.get("workspaces.workspace.jupyter.org", "-n", NS, "nb1") or {}
t.eq((ws.get("metadata", {}).get("labels", {}).get(
    "kueue.x-k8s.io/queue-name"), ws.get("metadata", {}).get(
    "labels", {}).get("kueue.x-k8s.io/priority-class")),
    (Q, "high-priority"), "the Workspace carries the team's Kueue labels")

# ---- over the team's quota: held pending with the reason
r = space("nb2", gpus=1, queue=Q, priority="low", idle_timeout_minutes=0)
t.eq(r.status, 201, "a second GPU Space accepted")
p = wait_for(lambda: (get("nb2").get("pending") or {}).get("reason")
             not in (None, "Starting", "NotQueuedYet") and
             get("nb2").get("pending"), timeout=60) or {}
t.eq((get("nb2").get("state"), p.get("reason"), p.get("admitted")),
     ("Pending", "QuotaInUse", False),
     "nb2 waits: QuotaInUse, not admitted (%s)" % p.get("message"))
t.ok("insufficient unused quota" in (p.get("detail") or ""),
     "... with Kueue's own words")
t.eq(get("nb2").get("connect", {}).get("web_url"), None,
     "a waiting Space has no URL")

# ---- bob: same team, not the owner
b = get("nb1", "bob")
t.ok(b.get("state") == "Running" and b["connect"].get("allowed") is False
     and "web_url" not in b["connect"],
     "bob reads ana's owner-only Space but gets no URL")
r = s.post(SP + "/nb1:stop", None, token=tok["bob"])
t.eq(r.status, 403, "bob may not stop it: 403")
t.ok(any(e.get("field") == "space" for e in r.json.get("errors", [])),
     "... naming space")
t.eq(s.request("DELETE", SP + "/nb1", token=tok["bob"]).status, 403,
     "bob may not delete it: 403")

# ---- ana stops hers: the GPU goes to nb2, the volume stays
r = s.post(SP + "/nb1:stop?dry_run=true", None, token=tok["ana"])
t.ok(r.status == 200 and r.json.get("patch", {}).get("spec") ==
     {"desiredStatus": "Stopped"}, "stop dry run: the patch")
t.eq(get("nb1").get("desired"), "Running", "... and nothing sent")
r = s.post(SP + "/nb1:stop", None, token=tok["ana"])
t.ok(r.status == 200 and r.json.get("changed") is True, "ana stops nb1")
t.ok(wait_for(lambda: state("nb1") == "Stopped", timeout=60), "nb1 Stopped")
t.eq(get("nb1").get("stopped_by"), "ana", "... stopped_by ana")
t.eq(kube.get("deployment", "-n", NS, "workspace-nb1"), None,
     "its Deployment is gone")
t.ok(kube.get("pvc", "-n", NS, "workspace-nb1-pvc") is not None,
     "its volume stays")
t.ok(wait_for(lambda: state("nb2") == "Running", timeout=120),
     "nb2 gets the team's GPU and runs")
r = s.post(SP + "/nb1:start", None, token=tok["ana"])
t.eq(r.status, 200, "ana starts nb1 again")
t.ok(wait_for(lambda: (get("nb1").get("pending") or {}).get("reason") ==
              "QuotaInUse", timeout=60),
     "nb1 now waits for the quota nb2 holds")
r = s.request("DELETE", SP + "/nb2", token=tok["ana"])
t.eq(r.status, 200, "ana deletes nb2")
t.ok(wait_for(lambda: state("nb1") == "Running", timeout=120),
     "nb1 runs again")

# ---- idle shutdown, then start again
r = space("idle", cpu=1, memory_gib=2, idle_timeout_minutes=600,
          template="code-editor", access="public")
t.eq(r.status, 201, "a Code Editor Space with a 600-minute idle timeout")
if not t.ok(wait_for(lambda: state("idle") in ("Running", "Stopped"),
                    timeout=120), "it starts"):
    t.diag(json.dumps(get("idle"))[:3000])
    t.diag(json.dumps(kube.get("pods", "-n", "default"))[-3000:])
t.ok(wait_for(lambda: state("idle") == "Stopped", timeout=120),
     "the operator stops it once idle")
g = get("idle")
t.eq((g.get("stopped_by"), g.get("desired"), g.get("template")),
     ("idle", "Stopped", "code-editor"), "stopped_by idle")
w = next((o for o in (kube.get("workspaces.workspace.jupyter.org", "-A") or
                      {}).get("items", []) if o["metadata"]["name"] == "idle"),
         {})
t.ok(w.get("spec", {}).get("desiredStatus") == "Stopped" and
     "slipway.dev/stopped-by" not in (w["metadata"].get("annotations") or {})
     and any(c["type"] == "Stopped" and c["status"] == "True"
             for c in w.get("status", {}).get("conditions", [])),
     "the operator set desiredStatus Stopped, and its Stopped condition") \
    or t.diag(json.dumps(w)[-2500:])
t.ok(get("idle", "bob").get("connect", {}).get("allowed") is True,
     "a public Space is reachable by bob")
r = s.post(SP + "/idle:start", None, token=tok["ana"])
t.eq((r.status, r.json.get("desired")), (200, "Running"), "started again")
t.ok(wait_for(lambda: get("idle").get("desired") == "Running" and
              state("idle") in ("Running", "Pending", "Stopped"),
              timeout=60), "it runs again until idle")

# ---- list
items = s.get(SP, token=tok["ana"]).json.get("items", [])
t.eq(sorted(i["space"] for i in items), ["idle", "nb1"], "space_list")

# ---- every Workspace valid against the upstream schema
bundle = crdbundle.load("jupyter-k8s-v0.2.0")
sch = bundle["kinds"]["workspace.jupyter.org/v1alpha1/Workspace"]
objs = (kube.get("workspaces.workspace.jupyter.org", "-A") or {}).get(
    "items", [])
bad = []
for o in objs:
    res = schema.check_custom(sch, o)
    if res.causes or res.unknown:
        bad.append((o["metadata"]["name"], res.causes[:2], res.unknown[:2]))
t.ok(len(objs) == 2 and not bad,
     "%d Workspaces valid against the upstream schema: %s" % (
         len(objs), bad[:2]))

# ---- delete
r = s.request("DELETE", SP + "/nb1?dry_run=true", token=tok["ana"])
t.ok(r.status == 200 and r.json.get("deletes", [{}])[0].get("kind") ==
     "Workspace", "delete dry run: the Workspace")
r = s.request("DELETE", SP + "/nb1", token=tok["ana"])
t.eq(r.status, 200, "ana deletes nb1")
t.eq(s.get(SP + "/nb1", token=tok["ana"]).status, 404, "then it is gone")
t.ok(wait_for(lambda: kube.get("pvc", "-n", NS, "workspace-nb1-pvc") is
              None, timeout=60), "its volume goes with it")
kube.close()
s.stop()
t.done()
