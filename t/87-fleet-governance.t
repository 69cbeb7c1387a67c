#!/usr/bin/python3
# 87-fleet-governance.t: a cluster's scheduler config and Space
# templates in the fleet document, and an add-on removed outside Slipway
# as recorded drift.  The schema's scheduler_config is
# scheduler_config_set's body, a Space template space_template_set's
# template and body; a new cluster's plan orders cluster_create, then
# its features, scheduler config and Space template waiting for it;
# applies in turn turn task governance and Spaces on and then create the
# scheduler config and the template (waiting for the features; kubectl
# reads the WorkspaceTemplate); applied again, and as exported (which
# has both), no AWS or Kubernetes write (the sandbox's request log); a
# priority class's weight or a template's storage changed in the
# document is one scheduler_config_set naming priority_classes, or one
# space_template_set naming storage_gib.  Drift: task governance's add-on deleted with the
# real aws CLI is recorded by the poller within a poll as
# features.task_governance off (first seen after the DeleteAddon the
# sandbox's request log holds) and shown by plan with that time; its
# export (the feature off) applied adopts it with 0 writes, and the
# poller records nothing against it; the first document applied again
# brings the add-on back.  The template rows: the list marks what
# Slipway keeps, the add-on's templates are refused (409), a dry run shows
# the Code Editor base, delete removes one (then 404).
import json
import os
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from fleetcli import FleetCli
from harness import (Stack, Kubectl, need_clusters, aws_cli,
                     sandbox_requests, wait_operation, wait_for)

t = T()
need_clusters(t)
tmp = tempfile.mkdtemp(prefix="sw-fleetgov-")
s = Stack(t, sandbox=True, speed=3000)
fleet = FleetCli(s, tmp)
cli, cli_json, write = fleet.cli, fleet.cli_json, fleet.write
last_seq, writes_since = fleet.last_seq, fleet.writes_since
ADDON = "amazon-sagemaker-hyperpod-taskgovernance"



def steps(plan):
    return [(c["operation"], c["target"], c["reason"], c.get("waits_for"))
            for c in (plan or {}).get("changes", [])]


# ---- the schema: scheduler_config is scheduler_config_set's body -------
sch = s.get("/api/v1/fleet/schema").json or {}
api = s.get("/api/v1/openapi.json").json
put = api["paths"]["/api/v1/clusters/{name}/scheduler-config"]["put"][
    "requestBody"]["content"]["application/json"]["schema"]
cl = sch.get("properties", {}).get("clusters", {}).get("items", {})
t.eq(cl.get("properties", {}).get("scheduler_config"), put,
     "fleet_schema: a cluster's scheduler_config is scheduler_config_set's "
     "body, as the OpenAPI document has it")
tput = api["paths"]["/api/v1/clusters/{name}/space-templates/{template}"][
    "put"]
tsch = cl.get("properties", {}).get("space_templates", {}).get("items", {})
t.ok(set(tsch.get("properties", {})) ==
     set(tput["requestBody"]["content"]["application/json"]["schema"][
         "properties"]) | {"template"} and "template" in tsch["required"] and
     "display_name" in tsch["required"],
     "a Space template is space_template_set's body and its template (%s)" %
     sorted(tsch.get("properties", {})))

# ---- a cluster with task governance and a scheduler config -------------
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
FLEET = """apiVersion: slipway/v1
clusters:
  - name: fg-a
    kubernetes_version: "1.31"
    instance_groups:
      - {name: workers, instance_type: %s, count: 1,
         availability_zone: %s}
    features:
      task_governance: true
      spaces: true
    space_templates:
      - {template: team-gpu, display_name: Team GPU, cpu: 2, memory_gib: 8,
         storage_gib: 20}
    scheduler_config:
      priority_classes:
        - {name: high, weight: %%d}
        - {name: low, weight: 10}
      fair_share: true
      idle_resource_sharing: false
""" % (g["instance_type"], g["availability_zones"][0])
fleet = write("fleet.yaml", FLEET % 80)
bad = write("bad.yaml", (FLEET % 80).replace("weight: 10", "weight: 101"))
rc, _, err = cli("plan", "-f", bad)
t.ok(rc == 5 and "clusters[0].scheduler_config.priority_classes[1].weight"
     in err and "maximum" in err, "a weight over 100: exit 5 naming the "
     "field and the rule (%s)" % err.strip().replace("\n", " | ")[:300])
rc, plan, err = cli_json("plan", "-f", fleet)
t.eq((rc, steps(plan)),
     (2, [("cluster_create", "fg-a", "absent", None),
          ("feature_set", "fg-a", "absent", "cluster_create"),
          ("scheduler_config_set", "fg-a", "absent", "cluster_create"),
          ("space_template_set", "fg-a/team-gpu", "absent",
           "cluster_create")]),
     "plan: the cluster, then its features, scheduler config and Space "
     "template, which wait for it (%s)" % err.strip()[:200])
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
st = (ap or {}).get("started", [])
t.ok(rc == 0 and [x["operation"] for x in st] == ["cluster_create"] and
     ap["deferred"] == 3, "apply: the create; three changes deferred (%s)" %
     err.strip()[:200])
t.eq(wait_operation(s, st[0]["operation_id"] if st else "op-0",
                    timeout=900).get("state"), "succeeded",
     "the cluster is created")
rc, plan, err = cli_json("plan", "-f", fleet)
t.eq(steps(plan), [("feature_set", "fg-a", "differs", None),
                   ("scheduler_config_set", "fg-a", "absent",
                    "feature_set"),
                   ("space_template_set", "fg-a/team-gpu", "absent",
                    "feature_set")],
     "plan: the features, then the scheduler config and the template "
     "waiting for them")
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
st = (ap or {}).get("started", [])
t.ok(rc == 0 and [x["operation"] for x in st] == ["feature_set"],
     "apply: the feature (%s)" % err.strip()[:200])
t.eq(wait_operation(s, st[0]["operation_id"] if st else "op-0",
                    timeout=600).get("state"), "succeeded",
     "task governance and Spaces are on")
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
st = (ap or {}).get("started", [])
t.eq((rc, [(x["operation"], x["status"]) for x in st]),
     (0, [("scheduler_config_set", 201), ("space_template_set", 200)]),
     "apply again: the scheduler config and the template are made (%s)" %
     err.strip()[:200])
kube = Kubectl(s, "fg-a")
wt = kube.get("workspacetemplates.workspace.jupyter.org", "-n",
              "jupyter-k8s-system", "team-gpu") or {}
spec = wt.get("spec", {})
t.ok(spec.get("displayName") == "Team GPU" and
     spec.get("defaultResources", {}).get("requests") ==
     {"cpu": "2", "memory": "8Gi"} and
     spec.get("primaryStorage", {}).get("defaultSize") == "20Gi" and
     spec.get("appType") == "jupyterlab" and
     spec.get("defaultAccessStrategy", {}).get("name") ==
     "hyperpod-access-strategy",
     "kubectl reads the WorkspaceTemplate: the add-on's JupyterLab template "
     "with the document's resources and storage (%s)" % spec)
kube.close()


def sched():
    r = s.get("/api/v1/clusters/fg-a/scheduler-config")
    return r.json if r.json.get("status") in ("Created", "Updated") else None


sc = wait_for(sched, timeout=180, every=1) or {}
t.ok(sorted((c["name"], c["weight"]) for c in sc.get("priority_classes",
                                                     [])) ==
     [("high", 80), ("low", 10)] and sc.get("fair_share") is True and
     sc.get("idle_resource_sharing") is False,
     "SageMaker has the document's scheduler config (%s)" % sc)

# ---- no-op re-apply and export -----------------------------------------
seq = last_seq()
rc, plan, _ = cli_json("plan", "-f", fleet)
t.eq((rc, steps(plan)), (0, []), "plan: live is the document")
rc, out, _ = cli("apply", "-f", fleet, "--yes")
t.eq((rc, writes_since(seq)), (0, []), "re-apply: 0 AWS or Kubernetes "
     "writes in the request log")
rc, out, err = cli("export")
exp = yaml.safe_load(out) if rc == 0 else {}
a = next((c for c in exp.get("clusters", []) if c["name"] == "fg-a"), {})
esc = a.get("scheduler_config", {})
t.ok(sorted((c["name"], c["weight"]) for c in
            esc.get("priority_classes", [])) == [("high", 80), ("low", 10)]
     and esc.get("fair_share") is True and
     esc.get("idle_resource_sharing") is False and
     a.get("features", {}).get("task_governance") is True,
     "export: the scheduler config as scheduler_config_set takes it (%s)" %
     esc)
tm = a.get("space_templates", [])
t.ok([(x["template"], x.get("display_name"), x.get("cpu"),
       x.get("memory_gib"), x.get("storage_gib"), x.get("app_type"))
      for x in tm] == [("team-gpu", "Team GPU", 2, 8, 20, "jupyterlab")],
     "export: the Space template Slipway keeps, not the add-on's (%s)" % tm)
exported = write("export.yaml", out)
seq = last_seq()
rc, plan, _ = cli_json("plan", "-f", exported)
t.eq((rc, steps(plan)), (0, []), "plan of the export: no change")
rc, out, _ = cli("apply", "-f", exported, "--yes")
t.eq((rc, writes_since(seq)), (0, []), "apply of the export: 0 writes")
heavier = write("heavier.yaml", FLEET % 90)
rc, plan, _ = cli_json("plan", "-f", heavier)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c["reason"], c.get("field"))
                  for c in ch] ==
     [("scheduler_config_set", "differs", "priority_classes")] and
     {"name": "high", "weight": 90} in ch[0]["desired"],
     "a class's weight changed in the document: one scheduler_config_set, "
     "priority_classes differs (%s)" % ch)
bigger = write("bigger.yaml", (FLEET % 80).replace("storage_gib: 20",
                                                   "storage_gib: 30"))
rc, plan, _ = cli_json("plan", "-f", bigger)
ch = (plan or {}).get("changes", [])
t.eq((rc, [(c["operation"], c["target"], c.get("field"), c.get("live"),
            c.get("desired")) for c in ch]),
     (2, [("space_template_set", "fg-a/team-gpu", "storage_gib", 20, 30)]),
     "a template's storage changed in the document: one space_template_set, "
     "storage_gib live 20 -> desired 30")

# ---- drift: the add-on deleted with the aws CLI ------------------------


def recorded():
    r = s.get("/api/v1/fleet/drift/recorded?cluster=fg-a")
    return (r.json or {}).get("items") if r.status == 200 else None


t.eq(recorded(), [], "fleet_drift_recorded before the drift: none")
seq = last_seq()
rc, out = aws_cli(s, "eks", "delete-addon", "--cluster-name", "fg-a",
                  "--addon-name", ADDON)
t.eq(rc, 0, "aws eks delete-addon removes task governance's add-on (%s)" %
     (out if rc else ""))
dels = [e for e in sandbox_requests(s, since=seq)
        if e.get("operation") == "DeleteAddon"]
wait_for(lambda: recorded(), timeout=180, every=1)
rec = recorded() or []
first = rec[0].get("first_seen_ms", 0) if rec else 0
t.ok([(x["target"], x["field"], x["live"], x["desired"]) for x in rec] ==
     [("fg-a", "features.task_governance", False, True)] and dels and
     first >= dels[0]["time"] * 1000,
     "the poller records the removed add-on as the feature off, first seen "
     "after the DeleteAddon of the request log (%s, %s)" % (rec, dels[:1]))
rc, plan, err = cli_json("plan", "-f", exported)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c.get("field"), c.get("first_seen_ms"))
                  for c in ch][:1] ==
     [("feature_set", "features.task_governance", first)],
     "plan: a feature_set turning it back on, with when Slipway first saw "
     "the drift (%s)" % (ch or err.strip()[:200]))
rc, out, _ = cli("export")
adopt = yaml.safe_load(out) if rc == 0 else {}
a = next((c for c in adopt.get("clusters", []) if c["name"] == "fg-a"), {})
t.ok(a.get("features", {}).get("task_governance") is False and
     a.get("scheduler_config"), "export has it: task governance off, the "
     "scheduler config kept")
seq = last_seq()
rc, out, _ = cli("apply", "-f", write("adopt.yaml", out), "--yes")
t.eq((rc, writes_since(seq)), (0, []), "apply of that export adopts it: "
     "0 writes")
wait_for(lambda: recorded() == [], timeout=180, every=1)
t.eq(recorded(), [], "against the adopted document the poller records no "
     "drift at its next pass")
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
st = [x for x in (ap or {}).get("started", [])
      if x["operation"] == "feature_set"]
t.ok(rc == 0 and st and st[0].get("operation_id"),
     "apply brings it back: feature_set (%s)" % err.strip()[:200])
t.eq(wait_operation(s, st[0]["operation_id"] if st else "op-0",
                    timeout=600).get("state"), "succeeded",
     "task governance is back")
rc, d = aws_cli(s, "eks", "describe-addon", "--cluster-name", "fg-a",
                "--addon-name", ADDON)
t.eq((rc, (d.get("addon") or {}).get("status") if rc == 0 else d),
     (0, "ACTIVE"), "the aws CLI reads the add-on back, ACTIVE")
rc, plan, _ = cli_json("plan", "-f", fleet)
t.eq((rc, steps(plan)), (0, []), "plan after the repair: no change")

# ---- the Space template rows themselves --------------------------------
TP = "/api/v1/clusters/fg-a/space-templates"
ls = s.get(TP)
t.eq(sorted((x["template"], x["managed"]) for x in ls.json.get("items", [])),
     [("sagemaker-code-editor-template", False),
      ("sagemaker-jupyter-template", False), ("team-gpu", True)],
     "space_template_list: the add-on's two and the one Slipway keeps")
r = s.request("PUT", TP + "/sagemaker-jupyter-template",
              body={"display_name": "Mine"})
t.ok(r.status == 409 and "template" in json.dumps(r.json.get("errors")),
     "the add-on's own template is not changed: 409 naming template (%d)" %
     r.status)
r = s.request("PUT", TP + "/ce-small?dry_run=true",
              body={"display_name": "CE small", "app_type": "code-editor",
                    "storage_gib": 4})
t.ok(r.status == 400 and "storage_gib" in r.body, "storage_gib 4: 400 "
     "naming the field (%d)" % r.status)
seq = last_seq()
r = s.request("PUT", TP + "/ce-small?dry_run=true",
              body={"display_name": "CE small", "app_type": "code-editor"})
m = ((r.json or {}).get("manifests") or [{}])[0]
t.ok(r.status == 200 and m.get("spec", {}).get("appType") == "code-editor"
     and "code-editor" in json.dumps(m["spec"].get("defaultContainerConfig"))
     and writes_since(seq) == [], "dry run: the add-on's Code Editor "
     "template as the base, nothing written")
r = s.request("DELETE", TP + "/team-gpu")
t.eq((r.status, r.json.get("deleted")), (200, "team-gpu"),
     "space_template_delete removes it")
t.eq(s.request("DELETE", TP + "/team-gpu").status, 404, "... then 404")
s.stop()
t.done()
