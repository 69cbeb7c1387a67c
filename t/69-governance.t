#!/usr/bin/python3
# 69-governance.t: task governance, cluster events, deep health checks
# and node access against the sandbox.  A scheduler config is refused
# until task_governance is on (SageMaker would end it CreateFailed, and
# a quota created then does end CreateFailed); then the scheduler
# config and a team's compute quota are created, listed, changed and
# removed, and the aws CLI sees each state; the cluster's events list
# its history newest first and filter by node; a health check runs on
# a chosen node and reports passed, and on a node made to fail reports
# failed with SageMaker's message; node_get gives the SSM target; the
# observability add-on turns on and off; dry_run sends nothing.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Kubectl, Stack, aws_cli, sandbox_call,
                     sandbox_requests, wait_for, wait_operation)

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
C = "gov"
B = "/api/v1/clusters/%s" % C


def last_seq():
    reqs = sandbox_requests(s)
    return reqs[-1]["seq"] if reqs else 0


def sent(since, operation):
    return [e for e in sandbox_requests(s, operation=operation, since=since)]


def cli(*args):
    rc, out = aws_cli(s, *args)
    return out if rc == 0 and isinstance(out, dict) else None


# ---- a small cluster with two nodes
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": C, "storage": {
    "s3_bucket": "gov-training-data"}, "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 2,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created")
nodes = s.get(B + "/nodes").json["items"]
t.eq(len(nodes), 2, "two nodes")
n0, n1 = nodes[0]["node_id"], nodes[1]["node_id"]

# ---- events: the cluster's history, newest first
r = s.get(B + "/events")
t.eq(r.status, 200, "cluster_events answers")
ev = r.json["items"]
descs = [e["description"] for e in ev]
t.ok(any("from Creating to InService" in d and e["resource_type"] ==
         "Cluster" for d, e in zip(descs, ev)),
     "events: the cluster went Creating -> InService")
t.ok(descs.index(next(d for d in descs if "Cluster creation started" in d))
     > descs.index(next(d for d in descs if "to InService" in d)),
     "events: newest first")
r = s.get(B + "/events?node_id=%s" % n0)
t.ok(r.status == 200 and r.json["items"] and
     all(e["node_id"] == n0 for e in r.json["items"]) and
     any("Pending to Running" in e["description"] for e in r.json["items"]),
     "events: filtered by node, with its Pending -> Running")
r = s.get(B + "/events?limit=2")
t.ok(r.status == 200 and len(r.json["items"]) == 2 and r.json.get("next"),
     "events: a page of 2 with a cursor")
r2 = s.get(B + "/events?limit=2&cursor=%s" % r.json.get("next", "x"))
t.ok(r2.status == 200 and r2.json["items"] and r2.json["items"][0]["id"]
     not in [e["id"] for e in r.json["items"]], "events: the next page")
t.eq(s.get(B + "/events?level=Fatal").status, 400, "events: bad level 400")
t.eq(s.get("/api/v1/clusters/nope/events").status, 404,
     "events: unknown cluster 404")

# ---- node_get: detail and SSM access
r = s.get(B + "/nodes/%s" % n0)
t.eq(r.status, 200, "node_get answers")
hp = cli("sagemaker", "describe-cluster", "--cluster-name", C) or {}
cid = hp.get("ClusterArn", "").rsplit("/", 1)[-1]
target = "sagemaker-cluster:%s_w-%s" % (cid, n0)
t.eq(r.json.get("ssm_target"), target, "node_get: ssm_target")
t.ok(r.json.get("ssm_command", "").startswith(
    "aws ssm start-session --target %s --region " % target),
    "node_get: the start-session command")
t.eq((r.json.get("instance_group"), r.json.get("status")), ("w", "Running"),
     "node_get: group and status")
t.eq(s.get(B + "/nodes/i-0123456789abcdef0").status, 404,
     "node_get: unknown node 404")

# ---- before task governance: refused, or CreateFailed as on AWS
r = s.request("PUT", B + "/scheduler-config", {"priority_classes": [
    {"name": "high", "weight": 90}]})
t.eq(r.status, 409, "scheduler_config_set before task_governance: 409")
t.ok("task_governance" in r.json.get("detail", ""),
     "... naming feature_set task_governance")
r = s.post(B + "/compute-quotas", {"quota_name": "early", "team": "early",
                                   "instance_type": g["instance_type"],
                                   "count": 1})
t.ok(r.status == 201 and r.json.get("status") in ("Creating",
                                                   "CreateFailed"),
     "quota before task governance: accepted by SageMaker")
q = wait_for(lambda: (lambda x: x.json if x.json.get("status") !=
                      "Creating" else None)(
    s.get(B + "/compute-quotas/early")), timeout=30)
t.eq((q or {}).get("status"), "CreateFailed",
     "... and SageMaker ends it CreateFailed")
t.ok("amazon-sagemaker-hyperpod-taskgovernance" in
     (q or {}).get("failure_reason", ""), "... saying why")
t.eq(s.request("DELETE", B + "/compute-quotas/early").status, 202,
     "the failed quota is deleted")

# ---- task governance refuses another Kueue
other = json.dumps({
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "clusterqueues.kueue.x-k8s.io"},
    "spec": {"group": "kueue.x-k8s.io", "scope": "Cluster",
             "names": {"plural": "clusterqueues", "singular": "clusterqueue",
                       "kind": "ClusterQueue"},
             "versions": [{"name": "v1beta1", "served": True,
                           "storage": True, "schema": {
                               "openAPIV3Schema": {"type": "object"}}}]}})
kube = Kubectl(s, C)
p = kube.run("apply", "-f", "-", stdin=other)
t.eq(p.returncode, 0, "kubectl: someone else's Kueue CRD installed")
r = s.request("PATCH", B + "/features", {"task_governance": True})
t.eq(r.status, 409, "feature_set task_governance beside another Kueue: 409")
t.ok("another Kueue" in r.json.get("detail", ""), "... saying why")
p = kube.run("delete", "crd", "clusterqueues.kueue.x-k8s.io")
t.eq(p.returncode, 0, "kubectl: the other Kueue removed")
kube.close()
rc, out = aws_cli(s, "eks", "describe-addon-versions", "--addon-name",
                  "amazon-sagemaker-hyperpod-taskgovernance",
                  "--kubernetes-version", "1.29")
t.eq([c for a in (out or {}).get("addons", [])
      for v in a.get("addonVersions", [])
      for c in v.get("compatibilities", [])
      if c.get("clusterVersion") == "1.29"], [],
     "aws CLI: the task governance add-on has no version for Kubernetes 1.29")
t.eq(rc, 0, "... and the CLI call itself succeeded")

# ---- task governance on
r = s.request("PATCH", B + "/features", {"task_governance": True})
t.eq(r.status, 202, "feature_set task_governance accepted")
d = wait_operation(s, r.json["operation_id"], timeout=120)
t.eq(d.get("state"), "succeeded", "task governance on")
f = s.get(B + "/features").json["features"]
t.ok(f["task_governance"]["enabled"], "feature_list: task_governance on")
vs = sent(0, "DescribeAddonVersions")
t.ok(vs, "DescribeAddonVersions read before CreateAddon")

# ---- scheduler config
seq = last_seq()
r = s.request("PUT", B + "/scheduler-config?dry_run=true", {
    "priority_classes": [{"name": "high", "weight": 90}]})
t.ok(r.status == 200 and r.json["calls"][0]["operation"] ==
     "CreateClusterSchedulerConfig", "scheduler_config_set dry_run: plan")
t.eq(sent(seq, "CreateClusterSchedulerConfig"), [], "... and nothing sent")
r = s.request("PUT", B + "/scheduler-config", {
    "priority_classes": [{"name": "high", "weight": 90},
                         {"name": "low", "weight": 10}],
    "fair_share": True})
t.ok(r.status == 201 and r.json.get("status") in ("Creating", "Created"),
     "scheduler_config_set: 201, a create")
t.eq(r.json.get("status_tool"), "scheduler_config_get", "... names its tool")
sc = wait_for(lambda: (lambda x: x.json if x.json.get("status") ==
                       "Created" else None)(s.get(B + "/scheduler-config")),
              timeout=30)
t.eq([(p["name"], p["weight"]) for p in (sc or {}).get("priority_classes",
                                                      [])],
     [("high", 90), ("low", 10)], "scheduler config Created with its classes")
out = cli("sagemaker", "list-cluster-scheduler-configs",
          "--cluster-arn", hp.get("ClusterArn", "")) or {}
ids = [x["ClusterSchedulerConfigId"] for x in
       out.get("ClusterSchedulerConfigSummaries", [])]
t.eq(ids, [(sc or {}).get("id")], "aws CLI lists the scheduler config")
r = s.request("PUT", B + "/scheduler-config", {"fair_share": False})
t.eq((r.status, r.json.get("version")), (200, 2),
     "scheduler_config_set again: an update to version 2")
sc = wait_for(lambda: (lambda x: x.json if x.json.get("status") ==
                       "Updated" else None)(s.get(B + "/scheduler-config")),
              timeout=30)
t.ok(sc and sc["fair_share"] is False and len(sc["priority_classes"]) == 2,
     "Updated: fair share off, classes kept")
out = cli("sagemaker", "describe-cluster-scheduler-config",
          "--cluster-scheduler-config-id", (sc or {}).get("id", "x")) or {}
t.eq((out.get("ClusterSchedulerConfigVersion"),
      out.get("SchedulerConfig", {}).get("FairShare")), (2, "Disabled"),
     "aws CLI sees version 2 with FairShare Disabled")
t.eq(s.request("PUT", B + "/scheduler-config", {"priority_classes": [
    {"name": "Bad_Name", "weight": 1}]}).status, 400,
     "a bad priority class name: 400")

# ---- compute quotas
body = {"quota_name": "alpha-q", "team": "alpha",
        "instance_type": g["instance_type"], "count": 1,
        "fair_share_weight": 10, "sharing": "LendAndBorrow",
        "borrow_limit": 50, "preempt": "LowerPriority"}
seq = last_seq()
r = s.post(B + "/compute-quotas?dry_run=true", body)
t.ok(r.status == 200 and r.json["calls"][0]["operation"] ==
     "CreateComputeQuota", "compute_quota_create dry_run: plan")
t.eq(sent(seq, "CreateComputeQuota"), [], "... and nothing sent")
r = s.post(B + "/compute-quotas", body)
t.ok(r.status == 201 and r.json.get("status") in ("Creating", "Created"),
     "compute_quota_create: 201, a create")
t.eq((r.json.get("namespace"), r.json.get("queue")),
     ("hyperpod-ns-alpha", "hyperpod-ns-alpha-localqueue"),
     "... the team's namespace and queue")
q = wait_for(lambda: (lambda x: x.json if x.json.get("status") ==
                      "Created" else None)(
    s.get(B + "/compute-quotas/alpha-q")), timeout=30)
t.ok(q and q["count"] == 1 and q["sharing"] == "LendAndBorrow" and
     q["borrow_limit"] == 50 and q["preempt"] == "LowerPriority" and
     q["fair_share_weight"] == 10, "quota Created as asked")
r = s.post(B + "/compute-quotas", dict(body, quota_name="alpha-2"))
t.eq(r.status, 409, "a second quota for the team: 409")
r = s.post(B + "/compute-quotas", dict(body, quota_name="x", team="x",
                                       sharing="Lend"))
t.eq(r.status, 400, "borrow_limit without LendAndBorrow: 400")
r = s.post(B + "/compute-quotas", dict(body, quota_name="y", team="y",
                                       instance_type="ml.p5.48xlarge"))
t.eq(r.status, 400, "an instance type the cluster lacks: 400")
out = cli("sagemaker", "list-compute-quotas", "--cluster-arn",
          hp.get("ClusterArn", "")) or {}
t.eq([(x["Name"], x["Status"]) for x in out.get("ComputeQuotaSummaries",
                                                [])],
     [("alpha-q", "Created")], "aws CLI lists the quota")
r = s.request("PATCH", B + "/compute-quotas/alpha-q", {"count": 2})
t.ok(r.status == 200 and r.json.get("status") in ("Updating", "Updated")
     and r.json.get("version") == 2, "compute_quota_update: version 2")
q = wait_for(lambda: (lambda x: x.json if x.json.get("status") ==
                      "Updated" else None)(
    s.get(B + "/compute-quotas/alpha-q")), timeout=30)
t.ok(q and q["count"] == 2 and q["sharing"] == "LendAndBorrow",
     "quota Updated: count 2, sharing kept")
out = cli("sagemaker", "describe-compute-quota", "--compute-quota-id",
          (q or {}).get("id", "x")) or {}
t.eq(out.get("ComputeQuotaConfig", {}).get("ComputeQuotaResources",
                                            [{}])[0].get("Count"), 2,
     "aws CLI sees count 2")
t.eq(s.request("PATCH", B + "/compute-quotas/alpha-q", {}).status, 400,
     "an update that changes nothing: 400")
t.eq(s.get(B + "/compute-quotas/nope").status, 404, "unknown quota 404")
r = s.get(B + "/compute-quotas")
t.eq([x["quota_name"] for x in r.json.get("items", [])], ["alpha-q"],
     "compute_quota_list")
# ---- a workload with queue and priority carries the Kueue labels
dl = {"model_id": "Qwen/Qwen3-0.6B", "namespace": "hyperpod-ns-alpha",
      "queue": "hyperpod-ns-alpha-localqueue", "priority": "high"}


def field_error(r, field):
    return r.status == 400 and any(e.get("field") == field for e in
                                   (r.json or {}).get("errors", []))


t.ok(field_error(s.post(B + "/models:download", dict(
    dl, queue="hyperpod-ns-beta-localqueue")), "queue"),
    "a queue no quota has: 400 naming queue")
t.ok(field_error(s.post(B + "/models:download", dict(
    dl, namespace="default")), "namespace"),
    "the team's queue from another namespace: 400 naming namespace")
t.ok(field_error(s.post(B + "/models:download", dict(
    dl, priority="urgent")), "priority"),
    "a priority class the scheduler config lacks: 400 naming priority")
r = s.post(B + "/models:download", dl)
t.eq(r.status, 201, "model_download with queue and priority: 201")
kube = Kubectl(s, C)
kjob = kube.get("job", r.json.get("job", "x"), "-n", "hyperpod-ns-alpha")
labels = ((kjob or {}).get("metadata") or {}).get("labels") or {}
t.eq((labels.get("kueue.x-k8s.io/queue-name"),
      labels.get("kueue.x-k8s.io/priority-class")),
     ("hyperpod-ns-alpha-localqueue", "high-priority"),
     "kubectl: the Job carries the Kueue labels")
kube.close()
r = s.post(B + "/inference?dry_run=true", {
    "endpoint_name": "qwen", "engine": "vllm", "model": "Qwen3-0.6B",
    "gpus_per_replica": 1, "replicas": 1, "namespace": "hyperpod-ns-alpha",
    "queue": "hyperpod-ns-alpha-localqueue", "priority": "low"})
dep = next((m for m in (r.json or {}).get("manifests", [])
            if m.get("kind") == "Deployment"), {})
t.eq(dep.get("metadata", {}).get("labels", {}).get(
    "kueue.x-k8s.io/priority-class"), "low-priority",
    "inference_deploy dry run: the Deployment carries the Kueue labels")

r = s.request("DELETE", B + "/compute-quotas/alpha-q")
t.eq(r.status, 202, "compute_quota_delete: 202")
gone = wait_for(lambda: not (cli("sagemaker", "list-compute-quotas",
                                 "--cluster-arn", hp.get("ClusterArn", ""))
                             or {"x": [1]}).get("ComputeQuotaSummaries"),
                timeout=30)
t.ok(gone, "the aws CLI no longer lists it")

# ---- deep health checks
r = s.post(B + "/nodes:health-check", {"node_ids": [n0],
                                        "checks": ["Bogus"]})
t.eq(r.status, 400, "health check: unknown check 400")
r = s.post(B + "/nodes:health-check", {"node_ids": ["i-0123456789abcdef0"]})
t.eq(r.status, 404, "health check: unknown node 404")
seq = last_seq()
r = s.post(B + "/nodes:health-check?dry_run=true", {"node_ids": [n0]})
t.eq(r.status, 200, "health check dry_run answers")
t.eq(sent(seq, "StartClusterHealthCheck"), [], "... and sends nothing")
r = s.post(B + "/nodes:health-check", {"node_ids": [n0],
                                        "checks": ["InstanceStress"]})
t.eq(r.status, 202, "health check on one node accepted")
d = wait_operation(s, r.json["operation_id"], timeout=120)
t.eq(d.get("state"), "succeeded", "health check operation succeeded")
stage = next((x for x in d.get("stages", []) if x["name"] == "follow"), {})
o = stage.get("resources", {}).get("outcomes", {})
t.eq(o.get(n0, {}).get("outcome"), "passed", "node passed its checks")
t.eq(list(o), [n0], "only the chosen node was checked")
st, _ = sandbox_call(s, "POST", "/_sandbox/fail-node", {
    "cluster": C, "node_id": n1, "when": "health_check"})
t.eq(st, 200, "sandbox: the next check of the other node fails")
r = s.post(B + "/nodes:health-check", {"node_ids": [n1]})
d = wait_operation(s, r.json["operation_id"], timeout=120)
stage = next((x for x in d.get("stages", []) if x["name"] == "follow"), {})
o = stage.get("resources", {}).get("outcomes", {}).get(n1, {})
t.eq(o.get("outcome"), "failed", "the failing node reports failed")
t.ok("Deep health checks failed" in (o.get("message") or ""),
     "... with SageMaker's message")
r = s.get(B + "/events?node_id=%s&level=Error" % n1)
t.ok(any("DeepHealthCheckInProgress to Failure" in e["description"]
         for e in r.json.get("items", [])),
     "events: the failed check is an Error event of the node")

# ---- patching: a group with its scheduled update, a software update
su = {"cron": "cron(0 2 ? * SUN *)", "batch_percent": 25,
      "wait_seconds": 120, "rollback_alarms": ["gpu-errors"]}
r = s.post(B + "/instance-groups", {
    "group_name": "w2", "instance_type": g["instance_type"], "count": 1,
    "availability_zone": g["availability_zones"][0],
    "scheduled_update": dict(su, cron="every sunday")})
t.eq(r.status, 400, "instance_group_add: a schedule that is no cron: 400")
r = s.post(B + "/instance-groups", {
    "group_name": "w2", "instance_type": g["instance_type"], "count": 1,
    "availability_zone": g["availability_zones"][0],
    "scheduled_update": su, "image_release_version": "2025.09.15"})
t.eq(r.status, 202, "instance_group_add with scheduled_update accepted")
d = wait_operation(s, r.json["operation_id"], timeout=120)
t.eq(d.get("state"), "succeeded", "group w2 added")
hp = cli("sagemaker", "describe-cluster", "--cluster-name", C) or {}
w2 = next((x for x in hp.get("InstanceGroups", [])
           if x["InstanceGroupName"] == "w2"), {})
t.eq(w2.get("ScheduledUpdateConfig"), {
    "ScheduleExpression": "cron(0 2 ? * SUN *)",
    "DeploymentConfig": {
        "RollingUpdatePolicy": {"MaximumBatchSize": {
            "Type": "CAPACITY_PERCENTAGE", "Value": 25}},
        "WaitIntervalInSeconds": 120,
        "AutoRollbackConfiguration": [{"AlarmName": "gpu-errors"}]}},
    "aws CLI: the group carries its scheduled update")
seq = last_seq()
r = s.request("PATCH", B + "/instance-groups/w2", {
    "count": 1, "auto_patch": {"strategy": "WhenIdle", "batch_count": 1}})
t.eq(r.status, 202, "instance_group_scale with auto_patch accepted")
d = wait_operation(s, r.json["operation_id"], timeout=120)
t.eq(d.get("state"), "succeeded", "group w2 updated")
upd = sent(seq, "UpdateCluster")
w2 = next((x for x in (upd[-1]["params"].get("InstanceGroups", [])
                       if upd else [])
           if x.get("InstanceGroupName") == "w2"), {})
if not t.ok(w2.get("AutoPatchConfig", {}).get("PatchingStrategy") ==
            "WhenIdle" and
            w2.get("ScheduledUpdateConfig", {}).get("ScheduleExpression") ==
            "cron(0 2 ? * SUN *)",
            "UpdateCluster: auto patch set, schedule resent"):
    t.diag("group %s" % w2)
r = s.post(B + ":update-software", {"image_release_version": "2025.10.01",
                                    "rolling": {"batch_percent": 50}})
t.eq(r.status, 202, "cluster_software_update to a release accepted")
d = wait_operation(s, r.json["operation_id"], timeout=120)
t.eq(d.get("state"), "succeeded", "software update done")
up = [e for e in sent(0, "UpdateClusterSoftware")]
t.ok(up and all(x.get("ImageReleaseVersion") == "2025.10.01" for x in
                (up[-1].get("params") or up[-1].get("input") or {}).get(
                    "InstanceGroups", [{}])),
     "UpdateClusterSoftware named the release for every group")
t.eq(s.get(B + "/nodes/%s" % n0).json.get("image_release_version"),
     "2025.10.01", "node_get: the node runs the new release")

# ---- observability on and off
r = s.request("PATCH", B + "/features", {"observability": {
    "enabled": True, "grafana_workspace": "g-0123456789"}})
t.eq(r.status, 202, "observability on accepted")
d = wait_operation(s, r.json["operation_id"], timeout=120)
t.eq(d.get("state"), "succeeded", "observability on")
f = s.get(B + "/features").json["features"]
t.ok(f["observability"]["enabled"], "feature_list: observability on")
t.ok(f["observability"].get("grafana_url", "").startswith(
    "https://g-0123456789.grafana-workspace."),
    "feature_list: the Grafana URL")
r = s.request("PATCH", B + "/features", {"observability": {
    "enabled": False}})
d = wait_operation(s, r.json["operation_id"], timeout=120)
f = s.get(B + "/features").json["features"]
t.ok(d.get("state") == "succeeded" and not f["observability"]["enabled"],
     "observability off")

s.stop()
t.done()
