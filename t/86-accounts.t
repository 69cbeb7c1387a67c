#!/usr/bin/python3
# 86-accounts.t: clusters in several accounts and regions.  The sandbox
# serves two more accounts (B, C) and one more region (eu-west-1) beside
# Slipway's own (A, us-west-2).  B's member role trusts A with the
# configured external id; C's asks for another one.  Three clusters are
# created: (A, us-west-2), (A, eu-west-1) and (B, us-west-2).  Read back
# with the real aws CLI, with each account's own keys in each region,
# every cluster's EKS and HyperPod clusters and VPC exist in its own
# account and region only, and their ARNs name them.  The create into C
# is refused with 403 naming the account and AccessDenied (the aws CLI
# sees the same refusal), and records nothing.  cluster_list shows the
# three with their account and region, cluster_get names them too, and
# so does the web UI's cluster list (in Chromium, t/lib/accounts-ui.js,
# when a browser is here).  A pod's log in the cluster of account B is
# followed over slipway-stream (the member role's session reaches its
# Kubernetes API).  Deleting the cluster of account B removes it
# there (the aws CLI, B's keys) and from the list, and leaves the others.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (SRCDIR, Stack, need_clusters, sandbox_call, sandbox_info,
                     ui_script, wait_for, wait_operation)
import wsclient

t = T()
need_clusters(t)
AWS = shutil.which("aws")
if AWS is None:
    t.skip_all("needs the aws CLI")

A, B, C = "123456789012", "222233334444", "555566667777"
HOME, OTHER = "us-west-2", "eu-west-1"
EXTERNAL_ID = "slipway-86-external"

conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
conf.write("member.external_id = %s\n" % EXTERNAL_ID)
conf.close()
os.environ["SLIPWAY_CONF"] = conf.name
s = Stack(t, sandbox=True, speed=2000)
del os.environ["SLIPWAY_CONF"]
os.unlink(conf.name)
info = sandbox_info(s)
t.eq((info.get("account_id"), info.get("region")), (A, HOME),
     "Slipway's own account and region are the sandbox's default ones")

keys = {A: (info["access_key_id"], info["secret_access_key"])}
for acct in (B, C):
    st, body = sandbox_call(s, "POST", "/_sandbox/accounts", {"account_id": acct})
    t.eq(st, 200, "the sandbox serves account %s" % acct)
    keys[acct] = (body["access_key_id"], body["secret_access_key"])
st, body = sandbox_call(s, "POST", "/_sandbox/regions", {"region": OTHER})
t.eq((st, body.get("regions")), (200, [HOME, OTHER]), "the sandbox serves %s too" % OTHER)


def aws(acct, region, *args, session=None):
    """The real aws CLI as account acct's base user (or a session) in
    region: (rc, parsed JSON or text)."""
    env = dict(os.environ)
    env.pop("AWS_PROFILE", None)
    env.update({"AWS_ACCESS_KEY_ID": keys[acct][0],
                "AWS_SECRET_ACCESS_KEY": keys[acct][1],
                "AWS_DEFAULT_REGION": region, "AWS_REGION": region,
                "AWS_EC2_METADATA_DISABLED": "true", "AWS_MAX_ATTEMPTS": "1",
                "AWS_PAGER": ""})
    env.pop("AWS_SESSION_TOKEN", None)
    if session:
        env.update({"AWS_ACCESS_KEY_ID": session["AccessKeyId"],
                    "AWS_SECRET_ACCESS_KEY": session["SecretAccessKey"],
                    "AWS_SESSION_TOKEN": session["SessionToken"]})
    r = subprocess.run([AWS, "--endpoint-url", info["aws_endpoint"], "--output", "json"]
                       + list(args), capture_output=True, text=True, timeout=120, env=env)
    if r.returncode != 0:
        return r.returncode, r.stdout + r.stderr
    try:
        return r.returncode, json.loads(r.stdout) if r.stdout.strip() else {}
    except ValueError:
        return r.returncode, r.stdout + r.stderr


def member_role(acct, external_id):
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::%s:root" % A},
        "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"sts:ExternalId": external_id}}}]}
    rc, out = aws(acct, HOME, "iam", "create-role", "--role-name", "SlipwayMember",
                  "--assume-role-policy-document", json.dumps(trust))
    t.eq(rc, 0, "account %s has the member role" % acct)
    rc, _ = aws(acct, HOME, "iam", "attach-role-policy", "--role-name", "SlipwayMember",
                "--policy-arn", "arn:aws:iam::aws:policy/AdministratorAccess")
    t.eq(rc, 0, "with its permissions")
    return "arn:aws:iam::%s:role/SlipwayMember" % acct


ROLE_B = member_role(B, EXTERNAL_ID)
ROLE_C = member_role(C, "another-external-id")

# STS decides as AWS does: trust policy and external id.
rc, out = aws(A, HOME, "sts", "assume-role", "--role-arn", ROLE_B,
              "--role-session-name", "check", "--external-id", "wrong")
t.ok(rc != 0 and "AccessDenied" in str(out) and ROLE_B in str(out),
     "a wrong external id is refused with AccessDenied")
rc, out = aws(A, HOME, "sts", "assume-role", "--role-arn", ROLE_B,
              "--role-session-name", "check", "--external-id", EXTERNAL_ID)
t.eq(rc, 0, "the right one gives a session")
sess = out.get("Credentials") if rc == 0 else None
rc, who = aws(A, HOME, "sts", "get-caller-identity", session=sess) if sess else (1, {})
t.eq(who.get("Account"), B, "the session is account B's")

types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
itype = types[0]["instance_type"]


def body(name, **place):
    b = {"name": name, "instance_groups": [
        {"name": "workers", "instance_type": itype, "count": 1}]}
    b.update(place)
    return b


# Input rules: the account is 12 digits, the region a HyperPod region.
r = s.post("/api/v1/clusters", body("bad", account="12345"))
t.ok(r.status == 400 and "account" in json.dumps(r.json), "a short account is refused naming the field")
r = s.post("/api/v1/clusters", body("bad", region="mars-north-1"))
t.ok(r.status == 400 and "region" in json.dumps(r.json), "a region that is not one is refused naming the field")

# The account whose role wants another external id refuses Slipway.
r = s.post("/api/v1/clusters", body("c-c1", account=C))
t.eq(r.status, 403, "a create into account C is refused (403)")
detail = (r.json or {}).get("detail", "")
t.ok(C in detail and "AccessDenied" in detail and ROLE_C in detail,
     "the refusal names the account, the role and AccessDenied")
t.diag(detail)
t.eq(s.get("/api/v1/clusters/c-c1").status, 404, "nothing was recorded for it")

want = {"c-a1": (A, HOME), "c-a2": (A, OTHER), "c-b1": (B, HOME)}
ops = {}
for name, (acct, region) in sorted(want.items()):
    place = {}
    if acct != A:
        place["account"] = acct
    if region != HOME:
        place["region"] = region
    r = s.post("/api/v1/clusters", body(name, **place))
    t.eq(r.status, 202, "create %s in (%s, %s) accepted" % (name, acct, region))
    if r.status != 202:
        t.diag(json.dumps(r.json))
    ops[name] = (r.json or {}).get("operation_id")
for name, op in sorted(ops.items()):
    doc = wait_operation(s, op, timeout=900) if op else {}
    t.eq(doc.get("state"), "succeeded", "%s created" % name)
    if doc.get("state") != "succeeded":
        t.diag(json.dumps(doc, indent=1)[-3000:])

# Each cluster's AWS objects, with each account's own keys, per region.
for acct in (A, B):
    for region in (HOME, OTHER):
        mine = sorted(n for n, p in want.items() if p == (acct, region))
        rc, eks = aws(acct, region, "eks", "list-clusters")
        t.eq(sorted(eks.get("clusters", [])) if rc == 0 else eks, mine,
             "EKS clusters of (%s, %s): %s" % (acct, region, mine))
        rc, hp = aws(acct, region, "sagemaker", "list-clusters")
        names = sorted(c["ClusterName"] for c in hp.get("ClusterSummaries", [])) \
            if rc == 0 else hp
        t.eq(names, mine, "HyperPod clusters of (%s, %s)" % (acct, region))
        for n in mine:
            rc, d = aws(acct, region, "eks", "describe-cluster", "--name", n)
            arn = d.get("cluster", {}).get("arn", "") if rc == 0 else ""
            t.eq(arn, "arn:aws:eks:%s:%s:cluster/%s" % (region, acct, n),
                 "%s's EKS ARN names its account and region" % n)
            vpc = d.get("cluster", {}).get("resourcesVpcConfig", {}).get("vpcId")
            rc, v = aws(acct, region, "ec2", "describe-vpcs", "--vpc-ids", vpc or "vpc-none")
            t.eq([x.get("OwnerId") for x in v.get("Vpcs", [])] if rc == 0 else v, [acct],
                 "%s's VPC is account %s's, in %s" % (n, acct, region))
rc, out = aws(B, OTHER, "ec2", "describe-vpcs", "--filters",
              "Name=tag-key,Values=slipway:cluster-id")
t.eq(out.get("Vpcs") if rc == 0 else out, [], "account B has no Slipway VPC in %s" % OTHER)

lifecycle = "sagemaker-slipway-%s-%s" % (A, HOME)
rc, out = aws(A, HOME, "s3api", "head-bucket", "--bucket", lifecycle)
t.eq(rc, 0, "account A has its lifecycle bucket %s" % lifecycle)
rc, out = aws(B, HOME, "s3api", "create-bucket", "--bucket", lifecycle,
              "--create-bucket-configuration", "LocationConstraint=" + HOME)
t.ok(rc != 0 and "BucketAlreadyExists" in str(out),
     "bucket names are one namespace: account B cannot take it")
rc, out = aws(B, HOME, "s3api", "list-objects-v2", "--bucket", lifecycle)
t.ok(rc != 0 and "AccessDenied" in str(out), "nor read it")

# One view of every cluster in every account.
r = s.get("/api/v1/clusters")
t.eq(r.status, 200, "cluster_list answers")
got = {c["name"]: (c.get("account"), c.get("region"), c.get("managed"))
       for c in (r.json or {}).get("items", [])}
t.eq({n: got.get(n) for n in want}, {n: (a, g, True) for n, (a, g) in want.items()},
     "cluster_list shows the three, each with its account and region, managed")
t.eq(len(got), 3, "and nothing else")
for name, (acct, region) in sorted(want.items()):
    r = s.get("/api/v1/clusters/%s" % name)
    t.eq((r.status, (r.json or {}).get("account"), (r.json or {}).get("region"),
          ((r.json or {}).get("eks") or {}).get("status")),
         (200, acct, region, "ACTIVE"), "cluster_get %s names (%s, %s)" % (name, acct, region))

browser = os.path.isdir(os.path.join(SRCDIR, "t", "node_modules", "playwright-core")) \
    and os.path.exists("/usr/bin/chromium") and shutil.which("node")
if not browser:
    t.skip("the UI's cluster list: chromium, node or playwright-core missing")
else:
    out = ui_script(t, "accounts-ui.js", "http://127.0.0.1:%d" % s.port, s.token)
    cols = out.get("columns") or []
    rows = {r[0]: dict(zip(cols, r[1:])) for r in out.get("rows") or []}
    t.eq({n: (rows.get(n, {}).get("Account"), rows.get(n, {}).get("Region"))
          for n in want}, {n: p for n, p in want.items()},
         "the UI's cluster list shows each cluster's account and region (%s)"
         % out.get("heading"))

# A pod's log of the cluster in account B, over slipway-stream.
KUBECTL = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if KUBECTL is None:
    t.skip("a pod's log in account B: kubectl missing", 2)
else:
    st, tok = sandbox_call(s, "POST", "/_sandbox/kube-token", {"cluster": "c-b1"})
    kdir = tempfile.mkdtemp(prefix="sw-kube-")
    kcfg = os.path.join(kdir, "kubeconfig")
    with open(kcfg, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config",
                   "clusters": [{"name": "b", "cluster": {
                       "server": tok.get("endpoint"),
                       "certificate-authority-data": tok.get("certificate_authority_data")}}],
                   "users": [{"name": "u", "user": {"token": tok.get("token")}}],
                   "contexts": [{"name": "b", "context": {"cluster": "b", "user": "u"}}],
                   "current-context": "b"}, f)

    def kubectl(*args, stdin=None):
        return subprocess.run([KUBECTL, "--kubeconfig", kcfg, "--cache-dir",
                               os.path.join(kdir, "cache")] + list(args),
                              capture_output=True, text=True, timeout=60, input=stdin)

    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "chatty", "namespace": "default",
                        "labels": {"app.kubernetes.io/managed-by": "slipway",
                                   "slipway.dev/job": "chatty"}},
           "spec": {"containers": [{"name": "main", "image": "busybox",
                                    "command": ["sleep", "86400"]}]}}
    p = kubectl("apply", "-f", "-", stdin=json.dumps(pod))
    running = p.returncode == 0 and wait_for(lambda: '"Running"' in kubectl(
        "get", "pod", "chatty", "-o", "json").stdout, timeout=120)
    t.ok(running, "a Slipway pod runs in c-b1 " + p.stderr.strip())
    msg = None
    try:
        w = wsclient.connect(s.port, "/ws/clusters/c-b1/pods/default/chatty/logs?container=main",
                             {"Authorization": "Bearer " + s.token})
        msg = w.recv()
        w.close()
    except Exception as e:  # noqa: BLE001 - reported below
        msg = repr(e)
    t.eq((msg or {}).get("type") if isinstance(msg, dict) else msg, "line",
         "its log is followed over slipway-stream with account B's session")
    if not isinstance(msg, dict) or msg.get("type") != "line":
        t.diag(str(msg))
    shutil.rmtree(kdir, ignore_errors=True)

r = s.request("DELETE", "/api/v1/clusters/c-b1")
t.eq(r.status, 202, "delete c-b1 accepted")
doc = wait_operation(s, (r.json or {}).get("operation_id"), timeout=900) \
    if r.status == 202 else {}
t.eq(doc.get("state"), "succeeded", "c-b1 deleted")
if doc.get("state") != "succeeded":
    t.diag(json.dumps(doc, indent=1)[-3000:])
rc, eks = aws(B, HOME, "eks", "list-clusters")
t.eq(eks.get("clusters") if rc == 0 else eks, [], "account B has no EKS cluster left")
rc, eks = aws(A, HOME, "eks", "list-clusters")
t.eq(eks.get("clusters") if rc == 0 else eks, ["c-a1"], "account A keeps its own")
r = s.get("/api/v1/clusters")
t.eq(sorted(c["name"] for c in (r.json or {}).get("items", [])), ["c-a1", "c-a2"],
     "cluster_list no longer shows it")

s.stop()
t.done()
