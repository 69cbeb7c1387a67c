#!/usr/bin/python3
# 59-addon-versions.t: EKS add-on versions fit the cluster's Kubernetes
# version.  The sandbox publishes per-version compatibility and refuses
# an incompatible CreateAddon/UpdateAddon (InvalidParameterException);
# a 1.31 cluster gets kube-proxy and coredns for 1.31; addon_list shows
# installed, default and newest compatible versions of every add-on;
# addon_upgrade refuses an incompatible version, plans UpdateAddon in a
# dry run and applies an upgrade as an operation; diagnostics flag an
# add-on on a version EKS no longer publishes for the cluster.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, aws_cli, sandbox_call, sandbox_requests
from harness import aws_cli_error, need_clusters, wait_operation


def aws_error(*args):
    return aws_cli_error(s, *args)

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])

# ---- what the sandbox publishes
rc, out = aws_cli(s, "eks", "describe-addon-versions", "--addon-name",
                  "kube-proxy", "--kubernetes-version", "1.31")
if rc is None:
    t.skip("aws CLI not installed", 2)
else:
    vers = [v["addonVersion"] for v in out["addons"][0]["addonVersions"]]
    t.ok(vers and all(v.startswith("v1.31.") for v in vers),
         "kube-proxy for 1.31 lists only 1.31 builds: %s" % vers)
    rc, out = aws_cli(s, "eks", "describe-addon-versions", "--addon-name",
                      "coredns", "--kubernetes-version", "1.33")
    vers = [v["addonVersion"] for v in out["addons"][0]["addonVersions"]]
    t.ok(vers and all(v.startswith("v1.12.") for v in vers),
         "coredns for 1.33 is 1.12: %s" % vers)

r = s.post("/api/v1/clusters", {
    "name": "k31", "kubernetes_version": "1.31", "instance_groups": [
        {"name": "w", "instance_type": g["instance_type"], "count": 1,
         "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "a 1.31 cluster is accepted")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and created")

items = s.get("/api/v1/clusters/k31/addons").json
t.eq(items.get("kubernetes_version"), "1.31", "addon_list names 1.31")
by = {i["addon"]: i for i in items.get("items", [])}
t.ok({"vpc-cni", "coredns", "kube-proxy"} <= set(by),
     "addon_list shows vpc-cni, coredns and kube-proxy: %s" % sorted(by))
kp = by.get("kube-proxy", {})
t.eq(kp.get("installed_version"), "v1.31.10-eksbuild.8",
     "kube-proxy is the 1.31 default, not a 1.32 build")
t.ok(all(i.get("compatible") for i in by.values()),
     "every installed add-on is compatible with 1.31")
t.eq(by.get("coredns", {}).get("installed_version"), "v1.11.4-eksbuild.14",
     "coredns is 1.11 on 1.31")
t.eq((kp.get("newest_version"), kp.get("upgrade_available")),
     ("v1.31.13-eksbuild.2", True), "a newer 1.31 build is offered")

# ---- the sandbox says no like EKS
rc, out = aws_error("eks", "update-addon", "--cluster-name", "k31",
                    "--addon-name", "kube-proxy", "--addon-version",
                    "v1.32.6-eksbuild.8")
if rc is None:
    t.skip("aws CLI not installed")
else:
    t.ok(rc != 0 and "InvalidParameterException" in str(out),
         "UpdateAddon to a 1.32 build on 1.31: InvalidParameterException")

# ---- addon_upgrade
r = s.post("/api/v1/clusters/k31/addons/kube-proxy:upgrade",
           {"version": "v1.32.6-eksbuild.8"})
t.ok(r.status == 422 and any(e.get("field") == "version" for e in
     (r.json or {}).get("errors") or []),
     "an incompatible version is refused 422 naming version: %r" % r)
before = len(sandbox_requests(s, mutating="true"))
r = s.post("/api/v1/clusters/k31/addons/kube-proxy:upgrade?dry_run=true")
calls = (r.json or {}).get("calls") or []
t.ok(r.status == 200 and any(c.get("op") == "UpdateAddon" or
     c.get("operation") == "UpdateAddon" for c in calls),
     "the dry run shows UpdateAddon: %r" % r)
t.ok("v1.31.13-eksbuild.2" in r.body, "to the newest compatible build")
t.eq(len(sandbox_requests(s, mutating="true")), before,
     "the dry run sent nothing")
r = s.post("/api/v1/clusters/k31/addons/kube-proxy:upgrade")
t.eq(r.status, 202, "the upgrade is accepted: %r" % r)
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and applied: %s" % d.get("error"))
by = {i["addon"]: i for i in
      s.get("/api/v1/clusters/k31/addons").json.get("items", [])}
t.eq((by["kube-proxy"]["installed_version"],
      by["kube-proxy"]["upgrade_available"]),
     ("v1.31.13-eksbuild.2", False), "kube-proxy is on the newest build")
r = s.post("/api/v1/clusters/k31/addons/kube-proxy:upgrade")
t.ok(r.status == 200 and r.json.get("changed") is False,
     "upgrading again changes nothing: %r" % r)

# ---- diagnostics: an add-on on a version EKS no longer publishes
st, _ = sandbox_call(s, "POST", "/_sandbox/faults",
                     {"withdrawn_addon_versions": ["v1.11.4-eksbuild.14"]})
t.eq(st, 200, "coredns v1.11.4-eksbuild.14 withdrawn")
diag = s.get("/api/v1/clusters/k31/diagnostics").json or {}
found = [f for f in diag.get("findings", []) if "coredns" in f["finding"]]
t.ok(found and "addon_upgrade" in found[0]["suggested_next_step"],
     "diagnostics flag coredns outside 1.31's published versions: %s" %
     diag.get("findings"))
by = {i["addon"]: i for i in
      s.get("/api/v1/clusters/k31/addons").json.get("items", [])}
t.eq(by["coredns"]["compatible"], False, "addon_list marks it too")

s.stop()
t.done()
