#!/usr/bin/python3
# 75-notify-watch.t: the poller watches what changes on a cluster without
# an operation, and each change reaches a loopback webhook once.
# A cluster (node recovery None, so a failed node stays failed) gets the
# training operator; team a and team b each have a HyperPodPyTorchJob
# whose command is not in its image, held suspended until the poller has
# seen it (a first sight is a baseline, never an event), then released:
# its pod fails at start as the kubelet fails it (StartError), the
# operator marks the job Failed, and that is one job.failed each.  Team
# a's self-hosted endpoint (a server Deployment) is seen ready, then
# rolled to a command its image lacks (its new pod crash-loops:
# endpoint.failed), then back (endpoint.recovered).  A node failed
# through the sandbox's control API turns HyperPod's health label to
# UnschedulablePendingReplacement (node.unhealthy) and HyperPod records
# a cluster event of level Error (cluster.event).  The poller is killed
# once between the changes.  The subscription of every team gets each
# of these events exactly once (distinct ids; no event of a node, job or
# endpoint that did not change); team a's subscription gets team a's
# job and endpoint events only.  Who may make which subscription follows
# the team rule: an operator of team b may not make one for team a, nor
# one of every team; bad input is a 400 naming the field.  An
# endpoint's dry run says what its GPUs cost an hour and a day: their
# share of their node's price, beside what the cluster costs.
import json
import os
import sys
from decimal import Decimal, ROUND_DOWN

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, Kubectl, sandbox_call, sandbox_requests
from harness import need_clusters, wait_operation, wait_for
from harness import aws_cli, aws_price, kill_if
import webhook

t = T()
need_clusters(t)

SECRET = "a-watch-secret-of-some-length"
rx = webhook.Receiver(fail=())
hook = rx.url

os.environ["SLIPWAY_WATCH_INTERVAL"] = "1"
s = Stack(t, sandbox=True, speed=600)
WATCHED = ["job.failed", "job.succeeded", "job.preempted", "job.recovered",
           "endpoint.failed", "endpoint.recovered", "node.unhealthy",
           "node.recovered", "cluster.event"]


received = rx.received


def events(path):
    return [json.loads(b) for h, b in received(path)]


def signed_ok(h, b):
    return webhook.signed_ok(SECRET, h, b)


def names_field(r, field, rule=None):
    errs = (r.json or {}).get("errors", [])
    return any(e.get("field") == field and (rule is None or
                                            e.get("rule") == rule)
               for e in errs)


# ---- who may subscribe to what
sa = {}
for team, role in (("a", "operator"), ("b", "operator"),
                   ("b", "platform-admin")):
    r = s.post("/api/v1/tokens", {"name": "sa-%s-%s" % (team, role),
                                  "team": team, "role": role})
    t.eq(r.status, 201, "service account %s/%s" % (team, role))
    sa[(team, role)] = r.json.get("token")
sub = {"name": "x", "target": "webhook", "url": hook + "/x",
       "secret": SECRET, "events": ["job.failed"]}
r = s.post("/api/v1/subscriptions", dict(sub, team="a"),
           token=sa[("b", "operator")])
t.ok(r.status == 403 and names_field(r, "team", "team-rule"),
     "an operator of team b may not subscribe for team a: 403 naming the "
     "team rule (%s)" % r.status)
r = s.post("/api/v1/subscriptions", sub, token=sa[("b", "operator")])
t.ok(r.status == 403 and names_field(r, "team", "team-rule"),
     "nor for every team: that needs a platform-admin (%s)" % r.status)
r = s.post("/api/v1/subscriptions", dict(sub, team="A_team"))
t.ok(r.status == 400 and names_field(r, "team", "pattern"),
     "a team that is no team name: 400 naming team")
r = s.post("/api/v1/subscriptions", dict(sub, events=["job.exploded"]))
t.ok(r.status == 400 and names_field(r, "events[0]"),
     "an unknown kind: 400 naming events[0]")
r = s.post("/api/v1/subscriptions", dict(sub, name="b-own", team="b"),
           token=sa[("b", "operator")])
t.eq(r.status, 201, "an operator of team b subscribes for team b")
t.eq((r.json.get("team"), r.json.get("created_by")), ("b", "sa-b-operator"),
     "the subscription is team b's, owned by who made it")
r = s.request("DELETE", "/api/v1/subscriptions/b-own",
              token=sa[("a", "operator")])
t.eq(r.status, 403, "an operator of team a may not delete it")
r = s.request("DELETE", "/api/v1/subscriptions/b-own",
              token=sa[("b", "operator")])
t.eq(r.status, 200, "its owner may")

r = s.post("/api/v1/subscriptions", {
    "name": "all", "target": "webhook", "url": hook + "/all",
    "secret": SECRET, "events": WATCHED})
t.eq(r.status, 201, "a subscription of every team to the watched kinds")
r = s.post("/api/v1/subscriptions", {
    "name": "team-a", "target": "webhook", "url": hook + "/a",
    "secret": SECRET, "team": "a", "events": WATCHED},
    token=sa[("a", "operator")])
t.eq(r.status, 201, "team a's operator subscribes for team a")
r = s.post("/api/v1/subscriptions", {
    "name": "chat", "target": "webhook", "url": hook + "/slack",
    "secret": SECRET, "format": "slack", "team": "a",
    "events": ["job.failed"]})
t.eq(r.status, 201, "and a Slack one for team a's failed jobs")

# ---- a cluster whose failed nodes stay failed
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"] and i["gpus"] >= 1)
r = s.post("/api/v1/clusters", {
    "name": "w1", "node_recovery": "None",
    "node_provisioning_mode": "Continuous",
    "instance_groups": [{"name": "w", "instance_type": g["instance_type"],
                         "count": 2,
                         "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster w1 is created")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and runs")


def watch_only(q):
    """A Kubernetes read of w1 that only the watch makes (the create
    lists nodes and gets its installer Jobs, nothing else)."""
    op = q.get("operation") or ""
    return (q.get("service") == "kubernetes:w1" and q.get("method") == "GET"
            and (op.startswith("GET /apis/") or
                 (op.startswith("list ") and op != "list nodes")))


# The create's last read is the wait for its installer Jobs; until then
# the watch read HyperPod's events of w1 and nothing of its Kubernetes.
log = sandbox_requests(s)
last = max([q["seq"] for q in log if q.get("service") == "kubernetes:w1"
            and q.get("operation") == "get jobs"] or [0])
early = [q for q in log if q["seq"] < last and watch_only(q)]
t.ok(last > 0 and not early,
     "while w1 was created the watch listed none of its Kubernetes objects"
     " (%d before the create's last read: %s)" %
     (len(early), sorted({q["operation"] for q in early})))
made = min([q["seq"] for q in log if q.get("service") == "sagemaker" and
            q.get("operation") == "CreateCluster" and q.get("status") == 200
            and "w1" in json.dumps(q)] or [0])
asked = [q["seq"] for q in log if q.get("operation") == "ListClusterEvents"
         and "w1" in json.dumps(q)]
t.ok(made > 0 and asked and min(asked) > made,
     "and its HyperPod events only once HyperPod had answered its"
     " CreateCluster (first at request %s, the create at %s)" %
     (min(asked or [0]), made))
# A role the create made is whole once made: a stage that comes back to
# it after a wait (the EKS cluster's, here) reads nothing of it again.
iam = [q["operation"] for q in log if q.get("service") == "iam"]
t.ok(iam.count("CreateRole") >= 2 and iam.count("AttachRolePolicy") >= 2
     and "ListAttachedRolePolicies" not in iam and "GetRole" not in iam,
     "the create made its roles and read none of them back (%s)" %
     sorted(set(iam)))
rc, out = aws_cli(s, "eks", "create-addon", "--cluster-name", "w1",
                  "--addon-name",
                  "amazon-sagemaker-hyperpod-training-operator")
t.eq(rc, 0, "the training operator add-on is installed")
k = Kubectl(s, "w1")
t.ok(wait_for(lambda: k.run("get", "crd", "hyperpodpytorchjobs.sagemaker."
                            "amazonaws.com").returncode == 0, 60),
     "HyperPodPyTorchJob CRD installed")
for ns in ("hyperpod-ns-a", "hyperpod-ns-b"):
    k.run("create", "namespace", ns)

# ---- an endpoint's dry run says what its GPUs cost
p = k.run("create", "-f", "-", stdin=json.dumps({
    "apiVersion": "v1", "kind": "PersistentVolumeClaim",
    "metadata": {"name": "s3-claim", "namespace": "hyperpod-ns-a"},
    "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "",
             "resources": {"requests": {"storage": "1200Gi"}}}}))
t.eq(p.returncode, 0, "team a's model storage claim: %s" % p.stderr.strip())
REGION = s.get("/api/v1/regions").json["region"]
price = Decimal(str(aws_price(s, REGION, g["instance_type"])))
r = s.post("/api/v1/clusters/w1/inference?dry_run=true&team=a", {
    "endpoint_name": "plan", "engine": "vllm", "model": "m",
    "replicas": 2, "gpus_per_replica": 1})
c = (r.json or {}).get("cost") or {}
hour = (2 * price / g["gpus"]).quantize(Decimal("0.000001"), ROUND_DOWN)
t.ok(r.status == 200 and c.get("complete") is True and
     Decimal(str(c.get("added_per_hour"))) == hour and
     Decimal(str(c.get("added_per_day"))) == hour * 24 and
     c.get("instance_type") == g["instance_type"] and c.get("gpus") == 2,
     "an endpoint's dry run: 2 GPUs of %s cost %s an hour, %s a day (%s)" %
     (g["instance_type"], hour, hour * 24, c or (r.status, r.json)))
t.ok(c.get("cluster_per_hour") is not None and
     Decimal(str(c["cluster_per_hour"])) == 2 * price,
     "beside what the cluster's 2 nodes cost an hour (%s)" %
     c.get("cluster_per_hour"))


def passes(n, since):
    """n more watch passes after since (each begins with its
    ListClusterEvents of w1, after the last one's commit)."""
    def seen():
        reqs = sandbox_requests(s, service="sagemaker",
                                operation="ListClusterEvents", since=since)
        return len([q for q in reqs if "w1" in json.dumps(q)]) >= n
    return wait_for(seen, timeout=120)


def mark():
    reqs = sandbox_requests(s)
    return max([q.get("seq", 0) for q in reqs] or [0])


IMAGE = "docker.io/pytorch/pytorch:2.6.0-cuda12.4-cudnn9-runtime"


def job(ns, name, suspend):
    return {"apiVersion": "sagemaker.amazonaws.com/v1",
            "kind": "HyperPodPyTorchJob",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"nprocPerNode": "1",
                     "runPolicy": {"suspend": suspend,
                                   "cleanPodPolicy": "None"},
                     "replicaSpecs": [{"name": "pods", "replicas": 1,
                                       "template": {"spec": {
                                           "restartPolicy": "Never",
                                           "containers": [{
                                               "name": "pytorch",
                                               "image": IMAGE,
                                               "command": ["/opt/train/run"]
                                           }]}}}]}}


def server(cmd):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "ep1", "namespace": "hyperpod-ns-a",
                         "labels": {"slipway.dev/role": "server",
                                    "slipway.dev/inference": "ep1"}},
            "spec": {"replicas": 1,
                     "selector": {"matchLabels": {
                         "slipway.dev/inference": "ep1"}},
                     "template": {"metadata": {"labels": {
                         "slipway.dev/role": "server",
                         "slipway.dev/inference": "ep1"}},
                         "spec": {"containers": [{
                             "name": "server", "image": IMAGE,
                             "command": cmd}]}}}}


def apply(obj):
    p = k.run("apply", "-f", "-", stdin=json.dumps(obj))
    return p.returncode == 0 or t.diag(p.stderr) or False


since = mark()
t.ok(apply(job("hyperpod-ns-a", "bad-a", True)) and
     apply(job("hyperpod-ns-b", "bad-b", True)),
     "a job of team a and one of team b, held suspended")
t.ok(apply(server(["sleep", "infinity"])), "team a's endpoint ep1")
t.ok(wait_for(lambda: (k.get("deployment", "-n", "hyperpod-ns-a", "ep1") or
                       {}).get("status", {}).get("readyReplicas") == 1,
              120), "ep1 is ready")
since = mark()
t.ok(passes(2, since), "the poller has seen them (two passes)")
t.eq([e for e in events("/all") if e["kind"] != "cluster.event"], [],
     "nothing seen for the first time is an event")
t.ok(all(e["detail"]["event"]["ClusterName"] == "w1"
         for e in events("/all")),
     "HyperPod's cluster events since the first look are (%d)" %
     len(events("/all")))

# ---- the jobs fail
for ns, name in (("hyperpod-ns-a", "bad-a"), ("hyperpod-ns-b", "bad-b")):
    t.ok(apply(job(ns, name, False)), "%s/%s is released" % (ns, name))


def kinds_at(path, kind):
    return sorted(e["detail"].get("subject", "") for e in events(path)
                  if e["kind"] == kind)


want_jobs = ["HyperPodPyTorchJob hyperpod-ns-a/bad-a",
             "HyperPodPyTorchJob hyperpod-ns-b/bad-b"]
t.ok(wait_for(lambda: kinds_at("/all", "job.failed") == want_jobs, 180),
     "both failed jobs reach the receiver (%s)" %
     kinds_at("/all", "job.failed"))
ev = [e for e in events("/all") if e["kind"] == "job.failed"]
t.ok(all(e["detail"].get("state") == "Failed" and
         "Suspended" in (e["detail"].get("previous"),
                         e["detail"].get("after")) and
         e["cluster"] == "w1" for e in ev),
     "each says the job failed after it was suspended, on w1 (%s)" %
     [(e["detail"].get("previous"), e["detail"].get("after")) for e in ev])
t.eq(sorted(e["detail"].get("team") for e in ev), ["a", "b"],
     "and whose team it is")
t.ok(wait_for(lambda: len(received("/slack")) == 1, 60),
     "the Slack subscription gets team a's failed job")
lines = [json.loads(b).get("text", "") for h, b in received("/slack")]
t.ok(lines and lines[0].startswith(
    "Slipway: job.failed: HyperPodPyTorchJob hyperpod-ns-a/bad-a on w1 is "
    "Failed"), "in one line: %s" % lines)

# ---- one kill of the poller, when nothing is on its way


t.ok(wait_for(s.deliveries_settled, 120), "every delivery so far is settled")
old = s.component_pid("poller")
t.ok(old and kill_if(old, "slipway-poller"), "the poller is killed")
t.ok(wait_for(lambda: s.component_pid("poller") not in (0, old), 120),
     "and runs again")

# ---- the endpoint fails, then recovers
t.ok(apply(server(["/opt/serve/not-here"])),
     "ep1 rolls to a command its image lacks")
t.ok(wait_for(lambda: kinds_at("/all", "endpoint.failed") ==
              ["endpoint hyperpod-ns-a/ep1"], 180),
     "endpoint.failed reaches the receiver")
t.ok(apply(server(["sleep", "infinity"])), "ep1 rolls back")
t.ok(wait_for(lambda: kinds_at("/all", "endpoint.recovered") ==
              ["endpoint hyperpod-ns-a/ep1"], 180),
     "endpoint.recovered reaches the receiver")

# ---- a node fails
nodes = s.get("/api/v1/clusters/w1/nodes").json.get("items", [])
nid = nodes[0].get("node_id") if nodes else None
t.ok(nid, "w1 has a node to fail (%s)" % nid)
st, body = sandbox_call(s, "POST", "/_sandbox/fail-node",
                        {"cluster": "w1", "node_id": nid})
t.eq(st, 200, "the sandbox fails %s" % nid)
t.ok(wait_for(lambda: kinds_at("/all", "node.unhealthy") ==
              ["node hyperpod-" + nid], 180),
     "node.unhealthy reaches the receiver")
nu = [e for e in events("/all") if e["kind"] == "node.unhealthy"]
t.ok(nu and nu[0]["detail"].get("state") ==
     "UnschedulablePendingReplacement" and
     nu[0]["detail"].get("previous") == "Schedulable" and
     nu[0]["detail"].get("instance_id") == nid,
     "with HyperPod's health label, before and after")


def failure_events():
    return [e for e in events("/all") if e["kind"] == "cluster.event" and
            e["detail"]["event"].get("InstanceId") == nid and
            e["detail"]["event"].get("EventLevel") == "Error"]


t.ok(wait_for(lambda: len(failure_events()) >= 1, 180),
     "HyperPod's cluster event of the failure reaches the receiver")
fe = failure_events()
t.ok(fe and "Failure" in fe[0]["detail"]["event"].get("Description", ""),
     "with HyperPod's words (%s)" %
     (fe[0]["detail"]["event"].get("Description") if fe else None))

# ---- every event once
t.ok(wait_for(s.deliveries_settled, 120), "every delivery settled")
hooks = received("/all")
ids = [h.get("Slipway-Event-Id") for h, b in hooks]
want = sorted(x["event_id"] for x in s.get(
    "/api/v1/deliveries?subscription=all&limit=500").json["items"])
t.eq(sorted(set(ids)), want,
     "the receiver has every event of the outbox, none missing or unknown")
dups = len(ids) - len(set(ids))
t.ok(dups <= 1, "a repeat only follows the one kill (%d)" % dups)
t.ok(all(signed_ok(h, b) for h, b in hooks), "every copy is signed")
# cluster events come and go with provisioning; the rest are exactly these
t.eq(sorted((e["kind"], e["detail"].get("subject")) for e in events("/all")
            if e["kind"] != "cluster.event"),
     sorted([("job.failed", j) for j in want_jobs] +
            [("endpoint.failed", "endpoint hyperpod-ns-a/ep1"),
             ("endpoint.recovered", "endpoint hyperpod-ns-a/ep1"),
             ("node.unhealthy", "node hyperpod-" + nid)]),
     "no job, endpoint or node that did not change made an event")
r = s.get("/api/v1/deliveries?subscription=all&limit=500")
t.ok(any(x.get("subject") == "endpoint hyperpod-ns-a/ep1" and
         x["kind"] == "endpoint.failed" for x in r.json["items"]),
     "a delivery names what it is about (subject)")

# ---- team a's subscription: team a's events only
ta = events("/a")
t.eq(sorted((e["kind"], e["detail"].get("subject")) for e in ta),
     [("endpoint.failed", "endpoint hyperpod-ns-a/ep1"),
      ("endpoint.recovered", "endpoint hyperpod-ns-a/ep1"),
      ("job.failed", "HyperPodPyTorchJob hyperpod-ns-a/bad-a")],
     "team a's subscription got team a's job and endpoint events only")
t.ok(all(e["detail"].get("team") == "a" for e in ta), "each of team a")
rx.stop()
s.stop()
t.done()
