#!/usr/bin/python3
# 18-doctor.t: `slipway doctor` against the sandbox says all is well and
# exits 0: configuration, state directory, nginx -t, credentials, region,
# every service endpoint, and every IAM action the code needs simulated
# (iam:SimulatePrincipalPolicy, seen in the sandbox's request log).  It
# exits 1 and says what is wrong, in plain words, for a principal with
# no policy, for credentials AWS refuses, for a wrong slipway.conf and
# for a state directory others can read.
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (BUILDDIR, SLIPWAY, Stack, aws_cli, sandbox_call,
                     sandbox_requests)

t = T()
s = Stack(t, sandbox=True)
tmp = tempfile.mkdtemp(prefix="sw-doctor-")
env = dict(os.environ, SLIPWAY_CONF=os.path.join(tmp, "none.conf"))


def doctor(state, *extra, conf=None):
    e = dict(env)
    if conf is not None:
        e["SLIPWAY_CONF"] = conf
    r = subprocess.run([SLIPWAY, "doctor", "--json", "--state-dir", state] +
                       list(extra), capture_output=True, text=True,
                       timeout=120, env=e)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        t.diag("doctor said: %r %r" % (r.stdout, r.stderr))
        doc = {"ok": None, "findings": []}
    return r.returncode, doc


def finding(doc, check):
    for f in doc["findings"]:
        if f["check"] == check:
            return f
    return None


def copy_state(name, config):
    d = os.path.join(tmp, name)
    os.makedirs(d, mode=0o700)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f)
    return d


# --- all is well ------------------------------------------------------------
actions = [a for a in open(os.path.join(BUILDDIR, "cfn",
                                        "iam-actions.txt")).read().split()]
rc, doc = doctor(s.state)
t.eq(rc, 0, "doctor exits 0 against the sandbox")
t.ok(doc["ok"] is True and all(f["ok"] for f in doc["findings"]),
     "every finding is good")
if rc:
    t.diag(json.dumps(doc, indent=1)[:3000])
checks = [f["check"] for f in doc["findings"]]
for want in ("configuration", "state directory", "nginx", "credentials",
             "region", "IAM permissions"):
    t.ok(want in checks, "checks %s" % want)
t.eq(sorted(c for c in checks if c.endswith(" endpoint")),
     ["ec2 endpoint", "eks endpoint", "fsx endpoint", "iam endpoint",
      "s3 endpoint", "sagemaker endpoint", "service-quotas endpoint"],
     "checks every service's endpoint")
perm = finding(doc, "IAM permissions") or {"detail": ""}
t.ok("all %d actions" % len(actions) in perm["detail"],
     "simulates all %d derived actions" % len(actions))
sims = sandbox_requests(s, service="iam",
                        operation="SimulatePrincipalPolicy")
t.ok(len(sims) >= 1 and all(e.get("status") == 200 for e in sims),
     "the permissions come from iam:SimulatePrincipalPolicy")
nginx = finding(doc, "nginx") or {"detail": ""}
t.ok("nginx -t accepts" in nginx["detail"], "nginx -t on the rendered "
     "configuration")

# --- a principal with no policy: named actions denied -----------------------
st, user = sandbox_call(s, "POST", "/_sandbox/users", {"user": "no-policy"})
t.eq(st, 200, "the sandbox makes a user with no policy")
cfg = s.config()
cfg["sandbox_info"]["access_key_id"] = user.get("access_key_id", "")
cfg["sandbox_info"]["secret_access_key"] = user.get("secret_access_key", "")
rc, doc = doctor(copy_state("nopolicy", cfg))
perm = finding(doc, "IAM permissions") or {"ok": True, "detail": ""}
t.eq(rc, 1, "doctor exits 1 for a principal without permissions")
t.ok(not perm["ok"] and "may not call %d of the %d" % (len(actions),
                                                       len(actions))
     in perm["detail"] and "eks:CreateCluster" in perm["detail"],
     "and names the actions it may not call")
t.ok((finding(doc, "credentials") or {}).get("ok") is True,
     "its credentials themselves are good")

# --- credentials AWS refuses ------------------------------------------------
cfg = s.config()
cfg["sandbox_info"]["secret_access_key"] = "x" * 40
rc, doc = doctor(copy_state("badcreds", cfg))
cred = finding(doc, "credentials") or {"ok": True, "detail": ""}
t.eq(rc, 1, "doctor exits 1 for wrong credentials")
t.ok(not cred["ok"] and "does not accept the credentials" in cred["detail"]
     and "SignatureDoesNotMatch" in cred["detail"],
     "and says AWS refuses them, with AWS's code")
t.ok(finding(doc, "IAM permissions") is None,
     "nothing is simulated without working credentials")

# --- a wrong slipway.conf, a readable state directory -------------------------
bad = os.path.join(tmp, "bad.conf")
with open(bad, "w") as f:
    f.write("# comment\nregion = us-west-2\nworkers = 400\n")
rc, doc = doctor(s.state, "--local", conf=bad)
conf = finding(doc, "configuration") or {"ok": True, "detail": ""}
t.eq(rc, 1, "doctor exits 1 for a wrong slipway.conf")
t.ok(not conf["ok"] and "line 3: workers" in conf["detail"],
     "and names the line and the key")
t.ok(finding(doc, "credentials") is None, "--local makes no AWS call")
good = os.path.join(tmp, "good.conf")
shutil.copy(os.path.join(os.environ.get("SW_SRCDIR", ".."), "packaging",
                         "slipway.conf"), good)
rc, doc = doctor(s.state, "--local", conf=good)
t.eq(rc, 0, "the shipped slipway.conf reads well")
open_dir = copy_state("open", s.config())
os.chmod(open_dir, 0o755)
rc, doc = doctor(open_dir, "--local")
sd = finding(doc, "state directory") or {"ok": True, "detail": ""}
t.ok(rc == 1 and not sd["ok"] and "chmod 700" in sd["detail"],
     "a state directory others can read is refused")

# --- the sandbox's simulator, through the real aws CLI -------------------------
policy = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "eks:Describe*",
     "Resource": "arn:aws:eks:*:*:cluster/*",
     "Condition": {"StringLike": {"aws:ResourceTag/slipway:cluster": "?*"}}},
    {"Effect": "Deny", "Action": "eks:DescribeAddon", "Resource": "*"}]}
trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
         "Principal": {"Service": "ec2.amazonaws.com"},
         "Action": "sts:AssumeRole"}]}
rc, role = aws_cli(s, "iam", "create-role", "--role-name", "sim-check",
                   "--assume-role-policy-document", json.dumps(trust))
if rc is None:
    t.skip("the aws CLI is not installed", 4)
else:
    aws_cli(s, "iam", "put-role-policy", "--role-name", "sim-check",
            "--policy-name", "p", "--policy-document", json.dumps(policy))
    arn = role["Role"]["Arn"]
    cluster = "arn:aws:eks:us-west-2:123456789012:cluster/c1"

    def decision(action, resource, *context):
        args = ["iam", "simulate-principal-policy", "--policy-source-arn",
                arn, "--action-names", action, "--resource-arns", resource]
        if context:
            args += ["--context-entries"] + list(context)
        rc, out = aws_cli(s, *args)
        if rc != 0:
            t.diag("simulate: %r" % (out,))
            return None
        return out["EvaluationResults"][0]["EvalDecision"]

    tag = ("ContextKeyName=aws:ResourceTag/slipway:cluster,"
           "ContextKeyValues=c1,ContextKeyType=string")
    t.eq(decision("eks:DescribeCluster", cluster, tag), "allowed",
         "simulator: an Allow whose condition the context meets")
    t.eq(decision("eks:DescribeCluster", cluster), "implicitDeny",
         "simulator: a condition key not supplied does not match")
    t.eq(decision("eks:DeleteCluster", cluster, tag), "implicitDeny",
         "simulator: an action no statement names")
    t.eq(decision("eks:DescribeAddon", cluster, tag), "explicitDeny",
         "simulator: an explicit Deny wins")

# --- the permissions boundary of Slipway's roles ----------------------------
BOUNDARY = "arn:aws:iam::123456789012:policy/slipway-role-boundary"
bconf = os.path.join(tmp, "boundary.conf")
with open(bconf, "w") as f:
    f.write("iam_permissions_boundary = %s\n" % BOUNDARY)
rc, doc = doctor(s.state)
t.ok((finding(doc, "IAM permissions boundary") or {}).get("ok") is True,
     "no boundary configured: the boundary check says so and passes")
rc1, _ = aws_cli(s, "iam", "create-role", "--role-name", "slipway-bounded",
                 "--assume-role-policy-document", json.dumps(trust),
                 "--permissions-boundary", BOUNDARY)
if rc1 is None:
    t.skip("the aws CLI is not installed", 4)
else:
    rc2, got = aws_cli(s, "iam", "get-role", "--role-name",
                       "slipway-bounded")
    t.eq((got or {}).get("Role", {}).get("PermissionsBoundary"),
         {"PermissionsBoundaryType": "PermissionsBoundaryPolicy",
          "PermissionsBoundaryArn": BOUNDARY},
         "the sandbox keeps a role's boundary and answers it in GetRole")
    aws_cli(s, "iam", "create-role", "--role-name", "slipway-unbounded",
            "--assume-role-policy-document", json.dumps(trust))
    before = len(sandbox_requests(s, service="iam", operation="GetRole"))
    rc, doc = doctor(s.state, conf=bconf)
    b = finding(doc, "IAM permissions boundary") or {"ok": True,
                                                     "detail": ""}
    t.ok(rc == 1 and not b["ok"] and "slipway-unbounded" in b["detail"] and
         "slipway-bounded" not in b["detail"].replace("slipway-unbounded",
                                                       ""),
         "doctor names the Slipway role without the configured boundary")
    t.ok(len(sandbox_requests(s, service="iam", operation="GetRole")) >
         before, "it reads each role's boundary with iam:GetRole")
    aws_cli(s, "iam", "delete-role", "--role-name", "slipway-unbounded")
    rc, doc = doctor(s.state, conf=bconf)
    b = finding(doc, "IAM permissions boundary") or {"ok": False}
    t.ok(b["ok"] and "carry " + BOUNDARY in b["detail"],
         "with every Slipway role bounded the check passes (%s)" %
         b.get("detail"))
    aws_cli(s, "iam", "delete-role", "--role-name", "slipway-bounded")

# --- plain words on a terminal -----------------------------------------------
r = subprocess.run([SLIPWAY, "doctor", "--state-dir", s.state],
                   capture_output=True, text=True, timeout=120, env=env)
t.ok(r.returncode == 0 and r.stdout.rstrip().endswith("All is well.") and
     "ok    credentials: signed in as arn:aws:iam::" in r.stdout,
     "the text report ends with All is well.")

shutil.rmtree(tmp, ignore_errors=True)
s.stop()
t.done()
