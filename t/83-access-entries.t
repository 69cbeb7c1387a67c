#!/usr/bin/python3
# 83-access-entries.t: Kubernetes access follows the teams.  With teams a
# and b configured (team.<team>.<role>.iam_role_arn), team_access_set
# makes one EKS access entry per team role with its access policy scoped
# to hyperpod-ns-<team> (read back with the aws CLI); the real kubectl,
# signed in as team a's viewer role through `aws eks get-token`, lists
# pods in hyperpod-ns-a and is forbidden in hyperpod-ns-b and to create
# in its own, while team a's operator role may create in hyperpod-ns-a.
# The dry run lists the calls and sends none; a second run sends no
# change; team b taken out of slipway.conf and a reconcile removes its
# entry and nothing else; turning it off removes every entry it made and
# leaves the cluster creator's.  Refused: a cluster whose
# authenticationMode is CONFIG_MAP (422 naming the rule), a body
# without enabled (400).
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import ui_script
from harness import (Kubectl, Stack, aws_cli, aws_cli_error,
                     sandbox_info, sandbox_requests, wait_operation)

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
AWS = shutil.which("aws")
KUBECTL = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if AWS is None or KUBECTL is None:
    t.skip_all("needs the aws CLI and kubectl")

SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def ui_missing():
    if not os.path.isdir(os.path.join(SRCDIR, "t", "node_modules",
                                      "playwright-core")):
        return "t/node_modules has no playwright-core"
    if not os.path.exists("/usr/bin/chromium") or not shutil.which("node"):
        return "chromium or node missing"
    return None


ACCOUNT = "123456789012"
ROLES = {("a", "viewer"): "team-a-viewer", ("a", "operator"): "team-a-op",
         ("b", "viewer"): "team-b-viewer"}
POL = "arn:aws:eks::aws:cluster-access-policy/"
tmp = tempfile.mkdtemp(prefix="sw-access-")
conf = os.path.join(tmp, "slipway.conf")


def role_arn(team, role):
    return "arn:aws:iam::%s:role/%s" % (ACCOUNT, ROLES[(team, role)])


def conf_text(teams):
    text = ""
    for (team, role) in sorted(ROLES):
        if team not in teams:
            continue
        text += "team.%s.%s = grp-%s-%s\n" % (team, role, team, role)
        text += "team.%s.%s.iam_role_arn = %s\n" % (
            team, role, role_arn(team, role))
    return text


with open(conf, "w") as f:
    f.write(conf_text(("a", "b")))
os.environ["SLIPWAY_CONF"] = conf
s = Stack(t, sandbox=True, speed=3000)


def write_conf(teams):
    s.rewrite_conf(conf_text(teams))
C = "acc"
B = "/api/v1/clusters/%s/team-access" % C


def cli(*args):
    rc, out = aws_cli(s, *args)
    return out if rc == 0 and isinstance(out, dict) else None


def put(body, q=""):
    return s.request("PUT", B + q, body)


def last_seq():
    reqs = sandbox_requests(s)
    return reqs[-1]["seq"] if reqs else 0


def sent(since, operation):
    return sandbox_requests(s, operation=operation, since=since)


def changes(since):
    return [o for o in ("CreateAccessEntry", "AssociateAccessPolicy",
                        "DisassociateAccessPolicy", "DeleteAccessEntry",
                        "TagResource") if sent(since, o)]


# ---- the IAM roles the teams' members assume, and a cluster
trust = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Action": "sts:AssumeRole",
    "Principal": {"AWS": "arn:aws:iam::%s:root" % ACCOUNT}}]}
for name in ROLES.values():
    t.ok(cli("iam", "create-role", "--role-name", name,
             "--assume-role-policy-document", json.dumps(trust)),
         "IAM role %s" % name)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
r = s.post("/api/v1/clusters", {"name": C, "instance_groups": [
    {"name": "w", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "cluster created")
admin = Kubectl(s, C)
for ns in ("hyperpod-ns-a", "hyperpod-ns-b"):
    p = admin.run("create", "namespace", ns)
    t.eq(p.returncode, 0, "namespace %s (%s)" % (ns, p.stderr.strip()))
creator = set(cli("eks", "list-access-entries", "--cluster-name",
                  C)["accessEntries"])

# ---- before: off, every entry missing
r = s.get(B)
t.eq((r.status, r.json.get("enabled"), r.json.get("authentication_mode")),
     (200, False, "API_AND_CONFIG_MAP"), "team_access_get: off")
t.eq(sorted((i["team"], i["role"], i["state"]) for i in r.json["items"]),
     [("a", "operator", "missing"), ("a", "viewer", "missing"),
      ("b", "viewer", "missing")], "every configured team role missing")

# ---- refusals
r = put({})
t.ok(r.status == 400 and any(e.get("field") == "enabled" for e in
                             r.json.get("errors", [])),
     "no enabled: 400 naming enabled")
desc = cli("eks", "describe-cluster", "--name", C)["cluster"]
vpc = desc["resourcesVpcConfig"]
t.ok(cli("eks", "create-cluster", "--name", "cm", "--role-arn",
         desc["roleArn"], "--resources-vpc-config",
         "subnetIds=%s" % ",".join(vpc["subnetIds"]), "--access-config",
         "authenticationMode=CONFIG_MAP"), "an EKS cluster in CONFIG_MAP mode")
seq = last_seq()
r = s.request("PUT", "/api/v1/clusters/cm/team-access", {"enabled": True})
errs = (r.json or {}).get("errors", [])
if not t.ok(r.status == 422 and any(
        e.get("field") == "enabled" and e.get("rule") == "authentication_mode"
        and "CONFIG_MAP" in e.get("message", "") for e in errs),
        "CONFIG_MAP only: 422 naming enabled and the rule"):
    t.diag(repr(r))
t.eq(changes(seq), [], "and nothing was sent")
r = s.get("/api/v1/clusters/cm/team-access")
t.eq((r.status, r.json.get("enabled"), r.json.get("authentication_mode"),
      sorted(i["state"] for i in r.json.get("items", []))),
     (200, False, "CONFIG_MAP", ["missing"] * 3),
     "team_access_get of a CONFIG_MAP cluster: off, nothing live")

rc, err = aws_cli_error(s, "eks", "list-access-entries", "--cluster-name",
                        "cm")
t.ok(rc != 0 and "InvalidRequestException" in err,
     "EKS: no access entries in CONFIG_MAP mode (InvalidRequestException)")

# ---- dry run: the calls, none sent
seq = last_seq()
r = put({"enabled": True}, "?dry_run=true")
calls = [(c.get("stage"), c.get("operation"),
          (c.get("input") or {}).get("principalArn"))
         for c in (r.json or {}).get("calls", [])]
t.eq(r.status, 200, "dry run answers 200")
t.ok(("flag", "TagResource", None) in calls and
     all(("add", op, role_arn(*k)) in calls for k in ROLES
         for op in ("CreateAccessEntry", "AssociateAccessPolicy")),
     "plan: the tag, then an entry and a policy per team role")
t.eq(changes(seq), [], "dry run sent no change")

# ---- on
r = put({"enabled": True})
t.eq(r.status, 202, "team_access_set accepted")
d = wait_operation(s, r.json["operation_id"])
t.eq(d.get("state"), "succeeded", "team access on")
have = set(cli("eks", "list-access-entries", "--cluster-name",
               C)["accessEntries"])
t.eq(have - creator, set(role_arn(*k) for k in ROLES),
     "aws eks list-access-entries: one entry per team role")
WANT = {("a", "viewer"): ("AmazonEKSViewPolicy", ["hyperpod-ns-a"]),
        ("a", "operator"): ("AmazonEKSEditPolicy", ["hyperpod-ns-a"]),
        ("b", "viewer"): ("AmazonEKSViewPolicy", ["hyperpod-ns-b"])}
for k, (pol, nss) in sorted(WANT.items()):
    out = cli("eks", "list-associated-access-policies", "--cluster-name", C,
              "--principal-arn", role_arn(*k)) or {}
    got = [(p["policyArn"], p["accessScope"]["type"],
            p["accessScope"].get("namespaces"))
           for p in out.get("associatedAccessPolicies", [])]
    t.eq(got, [(POL + pol, "namespace", nss)],
         "%s/%s: %s scoped to %s" % (k[0], k[1], pol, nss[0]))
    e = (cli("eks", "describe-access-entry", "--cluster-name", C,
             "--principal-arn", role_arn(*k)) or {}).get("accessEntry", {})
    t.eq((e.get("type"), e.get("tags", {}).get("slipway:team-access")),
         ("STANDARD", "%s/%s" % k), "%s/%s: a STANDARD entry tagged "
         "with its team role" % k)
r = s.get(B)
t.eq((r.json.get("enabled"), sorted(i["state"] for i in r.json["items"])),
     (True, ["present"] * 3), "team_access_get: on, every entry present")

# EKS says no where AWS does
va = role_arn("a", "viewer")
for args, code, what in (
        (("create-access-entry", "--principal-arn",
          "arn:aws:iam::%s:role/other" % ACCOUNT, "--username", "eks:me"),
         "InvalidParameterException", "a username EKS keeps"),
        (("associate-access-policy", "--principal-arn", va, "--policy-arn",
          POL + "AmazonEKSViewPolicy", "--access-scope",
          "type=namespace,namespaces=Bad_NS"),
         "InvalidParameterException", "a namespace that is no name"),
        (("associate-access-policy", "--principal-arn", va, "--policy-arn",
          POL + "AmazonEKSViewPolicy", "--access-scope", "type=namespace"),
         "InvalidParameterException", "a namespace scope with none"),
        (("associate-access-policy", "--principal-arn", va, "--policy-arn",
          POL + "AmazonEKSNoSuchPolicy", "--access-scope", "type=cluster"),
         "InvalidParameterException", "a policy that does not exist")):
    rc, err = aws_cli_error(s, "eks", *(args + ("--cluster-name", C)))
    t.ok(rc != 0 and code in err, "EKS refuses %s (%s)" % (what, code))
r = s.get(B)
t.eq(sorted(i["state"] for i in r.json["items"]), ["present"] * 3,
     "and nothing changed")

# ---- kubectl as the teams' roles (aws eks get-token, no static token)
info = sandbox_info(s)


def kubectl_as(team, role):
    out = cli("sts", "assume-role", "--role-arn", role_arn(team, role),
              "--role-session-name", "%s-%s" % (team, role))
    cr = out["Credentials"]
    env = [{"name": "AWS_ACCESS_KEY_ID", "value": cr["AccessKeyId"]},
           {"name": "AWS_SECRET_ACCESS_KEY", "value": cr["SecretAccessKey"]},
           {"name": "AWS_SESSION_TOKEN", "value": cr["SessionToken"]},
           {"name": "AWS_CONFIG_FILE", "value": os.path.join(tmp, "none")},
           {"name": "AWS_SHARED_CREDENTIALS_FILE",
            "value": os.path.join(tmp, "none")},
           {"name": "AWS_EC2_METADATA_DISABLED", "value": "true"}]
    path = os.path.join(tmp, "kc-%s-%s" % (team, role))
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config",
                   "clusters": [{"name": C, "cluster": {
                       "server": desc["endpoint"],
                       "certificate-authority-data":
                       desc["certificateAuthority"]["data"]}}],
                   "users": [{"name": "u", "user": {"exec": {
                       "apiVersion": "client.authentication.k8s.io/v1beta1",
                       "command": AWS, "args": [
                           "eks", "get-token", "--cluster-name", C,
                           "--region", info.get("region", "us-west-2")],
                       "env": env, "interactiveMode": "Never"}}}],
                   "contexts": [{"name": C, "context": {
                       "cluster": C, "user": "u"}}],
                   "current-context": C}, f)
    env_run = {k: v for k, v in os.environ.items()
               if not k.startswith("AWS_")}

    def run(*args):
        return subprocess.run([KUBECTL, "--kubeconfig", path, "--cache-dir",
                               os.path.join(tmp, "cache")] + list(args),
                              capture_output=True, text=True, timeout=60,
                              env=env_run)
    return run


viewer = kubectl_as("a", "viewer")
p = viewer("get", "pods", "-n", "hyperpod-ns-a")
if not t.eq(p.returncode, 0, "a's viewer: kubectl get pods -n hyperpod-ns-a"):
    t.diag(p.stderr)
p = viewer("get", "pods", "-n", "hyperpod-ns-b")
t.ok(p.returncode != 0 and "forbidden" in p.stderr,
     "a's viewer: forbidden in hyperpod-ns-b (%s)" % p.stderr.strip()[:120])
p = viewer("create", "configmap", "v", "-n", "hyperpod-ns-a")
t.ok(p.returncode != 0 and "forbidden" in p.stderr,
     "a's viewer: forbidden to create in hyperpod-ns-a")
p = viewer("get", "pods", "-A")
t.ok(p.returncode != 0 and "forbidden" in p.stderr,
     "a's viewer: forbidden across namespaces")
op = kubectl_as("a", "operator")
p = op("create", "configmap", "o", "-n", "hyperpod-ns-a")
if not t.eq(p.returncode, 0, "a's operator: creates in hyperpod-ns-a"):
    t.diag(p.stderr)
p = op("create", "configmap", "o", "-n", "hyperpod-ns-b")
t.ok(p.returncode != 0 and "forbidden" in p.stderr,
     "a's operator: forbidden to create in hyperpod-ns-b")
bview = kubectl_as("b", "viewer")
t.eq(bview("get", "configmaps", "-n", "hyperpod-ns-b").returncode, 0,
     "b's viewer: reads hyperpod-ns-b")

# ---- again, from the cluster page: nothing to change, nothing sent
seq = last_seq()
if ui_missing():
    t.skip("the cluster page: %s" % ui_missing(), 4)
    op_id = put({"enabled": True}).json["operation_id"]
else:
    out = ui_script(t, "access-ui.js", "http://127.0.0.1:%d" % s.port,
                     s.token, C)
    rows = {x[0]: x[1:] for x in out.get("rows") or []}
    t.ok(set(rows) == set(role_arn(*k) for k in ROLES) and
         all("present" in v for v in rows.values()) and
         "hyperpod-ns-a" in rows[va] and
         "AmazonEKSViewPolicy" in rows[va],
         "the cluster page lists each entry, its policy, scope and state")
    t.ok("On" in (out.get("summary") or "") and "API_AND_CONFIG_MAP" in
         out.get("summary", ""), "and says it is on, with the EKS "
         "authentication mode (%s)" % out.get("summary"))
    t.eq((out.get("button"), out.get("listed")),
         ("Reconcile", ["nothing to change"]),
         "Reconcile shows the dry run: nothing to change")
    op_id = out.get("operation") or "none"
    t.ok(op_id.startswith("op-"), "confirmed, the page follows its "
         "operation")
d = wait_operation(s, op_id)
t.eq((d.get("state"), changes(seq)), ("succeeded", []),
     "a second run sends no change")

# ---- team b leaves the configuration: a reconcile removes its entry
write_conf(("a",))
r = s.get(B)
t.eq(sorted((i["team"], i["role"], i["state"]) for i in r.json["items"]),
     [("a", "operator", "present"), ("a", "viewer", "present"),
      ("b", "viewer", "stale")], "team_access_get: b's entry stale")
seq = last_seq()
d = wait_operation(s, put({"enabled": True}).json["operation_id"])
t.eq(d.get("state"), "succeeded", "reconciled")
have = set(cli("eks", "list-access-entries", "--cluster-name",
               C)["accessEntries"])
t.eq(have, creator | {role_arn("a", "viewer"), role_arn("a", "operator")},
     "b's entry removed; a's and the creator's kept")
t.eq(len(sent(seq, "DeleteAccessEntry")), 1, "one DeleteAccessEntry sent")
p = bview("get", "configmaps", "-n", "hyperpod-ns-b")
t.ok(p.returncode != 0, "b's viewer has no access any more")

# ---- off: every entry it made goes, the creator's stays
d = wait_operation(s, put({"enabled": False}).json["operation_id"])
t.eq(d.get("state"), "succeeded", "team access off")
have = set(cli("eks", "list-access-entries", "--cluster-name",
               C)["accessEntries"])
t.eq(have, creator, "only the creator's entry is left")
r = s.get(B)
t.eq((r.json.get("enabled"), sorted(i["state"] for i in r.json["items"])),
     (False, ["missing", "missing"]), "team_access_get: off again")

admin.close()
s.stop()
shutil.rmtree(tmp, ignore_errors=True)
t.done()
