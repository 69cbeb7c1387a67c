#!/usr/bin/python3
# 87-fleet.t: the fleet document against a stack on the sandbox.  Its
# JSON Schema is written from the rows it takes (cluster_create,
# feature_set, team_access_set, compute_quota_create, budget_set,
# subscription_create); `slipway plan -f` lists the changes with their
# cost and exits 2, `slipway apply -f --yes` creates three clusters, a
# budget and a subscription at once; applied again, and as exported, it
# makes no AWS or Kubernetes write at all (counted in the sandbox's
# request log) and plan exits 0; a group scaled with the real aws CLI
# shows in plan as a count that differs and apply scales it back; a
# cluster the document leaves out is kept unless prune is true; an
# invalid document exits 5 naming the field and the rule.  fleet_drift
# plans the document applied last (a group scaled outside shows there
# too).  Governance:
# task governance turned on by the document's features, then a team's
# compute quota (deferred until the feature is on), exported, and a
# changed count planned as an update of that member alone; its add-on
# deleted with the aws CLI shows in plan as the feature off, and apply
# turns it back on.
import json
import os
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from fleetcli import FleetCli
from harness import Stack, need_clusters, aws_cli, wait_operation, wait_for

t = T()
need_clusters(t)
tmp = tempfile.mkdtemp(prefix="sw-fleet-")
s = Stack(t, sandbox=True, speed=3000)
fleet = FleetCli(s, tmp)
cli, cli_json, write = fleet.cli, fleet.cli_json, fleet.write
last_seq, writes_since = fleet.last_seq, fleet.writes_since



# ---- the schema comes from the rows ----------------------------------
sch = s.get("/api/v1/fleet/schema")
doc = s.get("/api/v1/openapi.json").json
create_body = doc["paths"]["/api/v1/clusters"]["post"]["requestBody"][
    "content"]["application/json"]["schema"]
cl = ((sch.json or {}).get("properties", {}).get("clusters", {})
      .get("items", {}))


def body_of(path, method):
    return doc["paths"][path][method]["requestBody"]["content"][
        "application/json"]["schema"]


t.ok(sch.status == 200 and set(cl.get("properties", {})) ==
     set(create_body["properties"]) | {"features", "team_access",
                                       "scheduler_config",
                                       "space_templates",
                                       "compute_quotas"} and
     cl["properties"]["instance_groups"] ==
     create_body["properties"]["instance_groups"] and
     cl["properties"]["features"] == body_of(
         "/api/v1/clusters/{name}/features", "patch") and
     cl["properties"]["team_access"] == body_of(
         "/api/v1/clusters/{name}/team-access", "put") and
     cl["properties"]["compute_quotas"]["items"] == body_of(
         "/api/v1/clusters/{name}/compute-quotas", "post") and
     sch.json["properties"]["subscriptions"]["items"] == body_of(
         "/api/v1/subscriptions", "post"),
     "fleet_schema: a cluster is cluster_create's fields plus features "
     "(feature_set's), team_access (team_access_set's), scheduler_config, "
     "space_templates and compute_quotas (compute_quota_create's), a subscription subscription_create's: "
     "the OpenAPI document's schemas")
bud = sch.json["properties"]["budgets"]["items"]
t.ok({"scope", "name", "limit_usd", "thresholds"} <= set(bud["properties"])
     and sch.json["required"] == ["apiVersion"],
     "a budget is budget_set's scope, name and fields; apiVersion is "
     "required")

dr = s.get("/api/v1/fleet/drift")
t.eq((dr.status, dr.json.get("applied"), dr.json.get("changes")),
     (200, False, []), "fleet_drift before any apply: none applied")

# ---- three clusters and a budget, by one apply -----------------------
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
itype, az = g["instance_type"], g["availability_zones"][0]
SECRET = "s" * 24
FLEET = """apiVersion: slipway/v1
clusters:
%(clusters)s
budgets:
  - scope: cluster
    name: fl-a
    limit_usd: 5000
    thresholds: [50, 90]
subscriptions:
  - name: fleet-hook
    target: webhook
    url: https://hooks.example.com/fleet
    secret: "%(secret)s"
    events: [operation.failed]
    cluster: fl-a
"""
CL = """  - name: %s
    kubernetes_version: "1.31"
    instance_groups:
      - name: workers
        instance_type: %s
        count: 1
        availability_zone: %s
"""


def fleet_text(*names, extra=""):
    """The fleet of names; extra lines go to the first cluster."""
    cls = [CL % (n, itype, az) for n in names]
    cls[0] += extra
    return FLEET % {"clusters": "".join(cls), "secret": SECRET}


fleet = write("fleet.yaml", fleet_text("fl-a", "fl-b", "fl-c"))
rc, plan, err = cli_json("plan", "-f", fleet)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c["target"], c["reason"]) for c in ch]
     == [("cluster_create", "fl-a", "absent"),
         ("cluster_create", "fl-b", "absent"),
         ("cluster_create", "fl-c", "absent"),
         ("budget_set", "cluster/fl-a", "absent"),
         ("subscription_create", "fleet-hook", "absent")],
     "plan -f: exit 2, three creates, the budget and the subscription, "
     "in order (%d %s)" % (rc, err.strip()[:200]))
t.ok(ch and ch[-1]["arguments"]["secret"] == "(not shown)" and
     SECRET not in json.dumps(plan),
     "the plan never echoes the webhook's secret")
t.ok(all(c.get("cost", {}).get("added_per_hour", 0) > 0 for c in ch[:3])
     and abs(plan["added_per_hour"] - sum(c["cost"]["added_per_hour"]
                                          for c in ch[:3])) < 0.01,
     "each create carries its dry run's hourly cost; the plan sums them "
     "(%s USD/hour)" % (plan or {}).get("added_per_hour"))
rc, out, _ = cli("plan", "-f", fleet)
t.ok(rc == 2 and "cluster_create" in out and "USD/hour" in out,
     "plan -f as text for people")
rc, _, err = cli("apply", "-f", fleet)
t.ok(rc == 2 and "--yes" in err, "apply without --yes off a terminal: "
     "refused, 2 (%s)" % err.strip())
seq = last_seq()
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
started = (ap or {}).get("started", [])
ops = [x.get("operation_id") for x in started if x.get("operation_id")]
t.ok(rc == 0 and len(ops) == 3 and [x["status"] for x in started] ==
     [202, 202, 202, 201, 201], "apply -f --yes: three creates started, "
     "the budget set and the subscription made (%d %s %s)" %
     (rc, [x["status"] for x in started], err.strip()[:200]))
sub = next((x for x in s.get("/api/v1/subscriptions").json["items"]
            if x["name"] == "fleet-hook"), {})
t.ok(sub.get("secret_set") is True and sub.get("cluster") == "fl-a",
     "the subscription has its secret and cluster")
states = [wait_operation(s, op, timeout=900).get("state") for op in ops]
t.eq(states, ["succeeded"] * 3, "the three clusters are created")
made = writes_since(seq)
t.ok(sum(1 for w in made if w == ("sagemaker", "CreateCluster")) == 3 and
     sum(1 for w in made if w == ("eks", "CreateCluster")) == 3,
     "the request log counts that apply's writes: 3 EKS and 3 HyperPod "
     "CreateCluster among %d" % len(made))
t.eq(s.get("/api/v1/operations/%s" % ops[0]).json.get("requested_by"),
     "test-admin", "each operation is the caller's, as a request of its own")

# ---- applied again: nothing to do, no write --------------------------
seq = last_seq()
rc, plan, _ = cli_json("plan", "-f", fleet)
t.ok(rc == 0 and plan["changes"] == [], "plan again: exit 0, no change")
rc, out, err = cli("apply", "-f", fleet, "--yes")
t.ok(rc == 0 and "No changes" in out, "apply again: no changes")
w = writes_since(seq)
t.eq(w, [], "re-apply: 0 AWS or Kubernetes writes in the request log")

# ---- export, then apply the export -----------------------------------
rc, out, err = cli("export")
exp = yaml.safe_load(out) if rc == 0 else {}
names = sorted(c["name"] for c in exp.get("clusters", []))
a = next((c for c in exp.get("clusters", []) if c["name"] == "fl-a"), {})
t.ok(rc == 0 and names == ["fl-a", "fl-b", "fl-c"] and
     a.get("instance_groups") == [{"name": "workers",
                                   "instance_type": itype, "count": 1}]
     and isinstance(a.get("features"), dict) and a["features"] and
     exp.get("budgets") == [{"scope": "cluster", "name": "fl-a",
                             "limit_usd": 5000, "thresholds": [50, 90]}]
     and a.get("team_access") == {"enabled": False} and
     exp.get("subscriptions") == [{
         "name": "fleet-hook", "target": "webhook",
         "events": ["operation.failed"], "format": "slipway",
         "cluster": "fl-a", "url": "https://hooks.example.com/fleet"}],
     "export: YAML with the three clusters, their groups, features and "
     "team access, the budget and the subscription without its secret "
     "(%s)" % err.strip()[:200])
exported = write("export.yaml", out)
seq = last_seq()
rc, plan, err = cli_json("plan", "-f", exported)
t.ok(rc == 0 and plan and plan["changes"] == [], "plan of the export: "
     "no change (%s %s)" % ((plan or {}).get("changes"), err.strip()[:200]))
rc, out, err = cli("apply", "-f", exported, "--yes")
t.eq((rc, writes_since(seq)), (0, []), "apply of the export: 0 writes")

# ---- drift: the real aws CLI scales a group --------------------------
rc, d = aws_cli(s, "sagemaker", "describe-cluster", "--cluster-name", "fl-b")
grp = (d.get("InstanceGroups") or [{}])[0] if isinstance(d, dict) else {}
spec = {"InstanceGroupName": grp.get("InstanceGroupName"),
        "InstanceType": grp.get("InstanceType"), "InstanceCount": 2,
        "ExecutionRole": grp.get("ExecutionRole"),
        "LifeCycleConfig": grp.get("LifeCycleConfig")}
rc, out = aws_cli(s, "sagemaker", "update-cluster", "--cluster-name", "fl-b",
                  "--instance-groups", json.dumps([spec]))
t.eq(rc, 0, "aws sagemaker update-cluster scales fl-b/workers to 2 (%s)" %
     (out if rc else ""))


def in_service():
    rc, d = aws_cli(s, "sagemaker", "describe-cluster", "--cluster-name",
                    "fl-b")
    return rc == 0 and d.get("ClusterStatus") == "InService"


wait_for(in_service, timeout=300, every=1)
dr = s.get("/api/v1/fleet/drift?cluster=fl-b")
t.ok(dr.status == 200 and [(c["operation"], c["target"], c["live"],
                            c["desired"]) for c in dr.json["changes"]] ==
     [("instance_group_scale", "fl-b/workers", 2, 1)] and
     dr.json["applied_by"] == "test-admin",
     "fleet_drift of fl-b: against the document applied last (the "
     "export), the scale that brings it back (%s)" % dr.json)
t.eq(s.get("/api/v1/fleet/drift?cluster=fl-a").json.get("changes"), [],
     "... and fl-a has not drifted")
rc, plan, err = cli_json("plan", "-f", fleet)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and len(ch) == 1 and ch[0]["operation"] ==
     "instance_group_scale" and ch[0]["target"] == "fl-b/workers" and
     (ch[0]["reason"], ch[0]["field"], ch[0]["live"], ch[0]["desired"]) ==
     ("differs", "count", 2, 1) and ch[0]["arguments"] ==
     {"name": "fl-b", "group": "workers", "count": 1} and
     ch[0]["cost"]["added_per_hour"] < 0,
     "plan: the drift is one scale of fl-b/workers, count live 2 -> "
     "desired 1, saving per hour (%s)" % (ch or err.strip()[:200]))
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
op = ((ap or {}).get("started") or [{}])[0].get("operation_id")
t.ok(rc == 0 and op, "apply repairs it with instance_group_scale (%s)" % op)
t.eq(wait_operation(s, op, timeout=600).get("state"), "succeeded",
     "the scale succeeds")
rc, plan, _ = cli_json("plan", "-f", fleet)
t.ok(rc == 0 and plan["changes"] == [], "plan after the repair: no change")
t.eq(s.get("/api/v1/fleet/drift").json.get("changes"), [],
     "fleet_drift after the repair: none")

# ---- prune -----------------------------------------------------------
two = write("two.yaml", fleet_text("fl-a", "fl-b"))
rc, plan, _ = cli_json("plan", "-f", two)
t.ok(rc == 0 and plan["changes"] == [] and plan["kept"] == ["fl-c"] and
     plan["prune"] is False, "a cluster the document leaves out is kept "
     "and named, without prune")
pruned = write("prune.yaml", "prune: true\n" + open(two).read())
rc, plan, _ = cli_json("plan", "-f", pruned)
t.ok(rc == 2 and [(c["operation"], c["target"], c["reason"])
                  for c in plan["changes"]] ==
     [("cluster_delete", "fl-c", "not_in_document")],
     "with prune: true the plan deletes it")

# ---- governance: a feature, then a team's quota ----------------------
GOV = """    features:
      task_governance: true
    compute_quotas:
      - quota_name: fq
        team: ml
        instance_type: %s
        count: %%d
""" % itype
gov = write("gov.yaml", fleet_text("fl-a", "fl-b", "fl-c", extra=GOV % 1))
rc, plan, err = cli_json("plan", "-f", gov)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c["target"], c["reason"],
                   c.get("waits_for")) for c in ch] ==
     [("feature_set", "fl-a", "differs", None),
      ("compute_quota_create", "fl-a/fq", "absent", "feature_set")],
     "plan: task governance on fl-a (feature_set's own diff), then the "
     "quota, which waits for it (%s)" % (ch or err.strip()[:200]))
rc, ap, err = cli_json("apply", "-f", gov, "--yes")
st = (ap or {}).get("started", [])
t.ok(rc == 0 and [x["operation"] for x in st] == ["feature_set"] and
     ap["deferred"] == 1, "apply: the feature first, the quota deferred")
t.eq(wait_operation(s, st[0]["operation_id"] if st else "op-0",
                    timeout=600).get("state"), "succeeded",
     "task governance is on")
rc, ap, err = cli_json("apply", "-f", gov, "--yes")
st = (ap or {}).get("started", [])
t.ok(rc == 0 and [(x["operation"], x["status"] < 300) for x in st] ==
     [("compute_quota_create", True)], "apply again: the quota is made "
     "(%s %s)" % (st, err.strip()[:200]))
q = wait_for(lambda: (lambda x: x.json if x.json.get("status") not in
                      ("Creating", None) else None)(
    s.get("/api/v1/clusters/fl-a/compute-quotas/fq")), timeout=120)
t.eq((q or {}).get("status"), "Created", "SageMaker has the quota")
rc, plan, _ = cli_json("plan", "-f", gov)
t.ok(rc == 0 and plan["changes"] == [], "plan: live is the document")
rc, out, err = cli("export")
exp = yaml.safe_load(out) if rc == 0 else {}
a = next((c for c in exp.get("clusters", []) if c["name"] == "fl-a"), {})
t.ok(a.get("features", {}).get("task_governance") is True and
     [(x["quota_name"], x["team"], x["count"]) for x in
      a.get("compute_quotas", [])] == [("fq", "ml", 1)],
     "export has the feature and the quota")
exported = write("export2.yaml", out)
seq = last_seq()
rc, plan, err = cli_json("plan", "-f", exported)
t.ok(rc == 0 and plan and plan["changes"] == [] and
     writes_since(seq) == [], "plan of that export: no change, no write "
     "(%s)" % ((plan or {}).get("changes"), ))

# ---- drift: an add-on removed with the aws CLI -----------------------
rc, out = aws_cli(s, "eks", "delete-addon", "--cluster-name", "fl-a",
                  "--addon-name", "amazon-sagemaker-hyperpod-taskgovernance")
t.eq(rc, 0, "aws eks delete-addon removes task governance's add-on from "
     "fl-a (%s)" % (out if rc else ""))


def addon_gone():
    rc, _ = aws_cli(s, "eks", "describe-addon", "--cluster-name", "fl-a",
                    "--addon-name",
                    "amazon-sagemaker-hyperpod-taskgovernance")
    return rc != 0


wait_for(addon_gone, timeout=300, every=1)
rc, plan, err = cli_json("plan", "-f", gov)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c["target"], c["reason"], c["field"],
                   c["live"], c["desired"], c["why"]) for c in ch][:1] ==
     [("feature_set", "fl-a", "differs", "features.task_governance",
       False, True, "task_governance: live off -> desired on")],
     "plan: the removed add-on is task governance off on fl-a, a "
     "feature_set to turn it back on (%s)" % (ch or err.strip()[:200]))
rc, ap, err = cli_json("apply", "-f", gov, "--yes")
st = [x for x in (ap or {}).get("started", [])
      if x["operation"] == "feature_set"]
t.ok(rc == 0 and st and st[0].get("operation_id"),
     "apply: feature_set started (%s)" % err.strip()[:200])
t.eq(wait_operation(s, st[0]["operation_id"] if st else "op-0",
                    timeout=600).get("state"), "succeeded",
     "task governance is back")
rc, plan, _ = cli_json("plan", "-f", gov)
t.ok(rc == 0 and plan["changes"] == [], "plan after the repair: no change "
     "(%s)" % (plan or {}).get("changes"))
more = write("gov2.yaml", fleet_text("fl-a", "fl-b", "fl-c", extra=GOV % 2))
rc, plan, _ = cli_json("plan", "-f", more)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c["target"], c.get("field"),
                   c.get("live"), c.get("desired"), c["arguments"])
                  for c in ch] ==
     [("compute_quota_update", "fl-a/fq", "count", 1, 2,
       {"name": "fl-a", "quota": "fq", "count": 2})],
     "a quota's count changed in the document: one compute_quota_update "
     "of that member only (%s)" % ch)

# ---- an invalid document ---------------------------------------------
bad = write("bad.yaml", fleet_text("fl-a").replace("count: 1", "count: 0"))
rc, out, err = cli("plan", "-f", bad)
t.ok(rc == 5 and "clusters[0].instance_groups[0].count" in err and
     "minimum" in err, "count 0: exit 5 naming the field and the rule "
     "(%s)" % err.strip().replace("\n", " | ")[:300])
other = next(i for i in types if i["instance_type"] != itype)
bad = write("bad-type.yaml", fleet_text("fl-a").replace(
    "instance_type: %s" % itype, "instance_type: %s" % other["instance_type"]))
rc, out, err = cli("plan", "-f", bad)
t.ok(rc == 5 and "clusters[0].instance_groups[0].instance_type" in err and
     "mmutable" in err, "another instance type for a live group: exit 5, "
     "the scale row's refusal (immutable) naming the document's field "
     "(%s)" % err.strip().replace("\n", " | ")[:300])
bad = write("bad2.yaml", "apiVersion: slipway/v2\nclusters: []\n")
rc, out, err = cli("apply", "-f", bad, "--yes")
t.ok(rc == 5 and "apiVersion" in err, "apiVersion slipway/v2: exit 5 "
     "naming apiVersion")
bad = write("bad3.yaml", "apiVersion: slipway/v1\nclusters: [\n")
rc, out, err = cli("plan", "-f", bad)
t.ok(rc == 2 and "bad3.yaml:" in err, "not YAML: exit 2 with the place "
     "(%s)" % err.strip())
s.stop()
t.done()
