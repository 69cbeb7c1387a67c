#!/usr/bin/python3
# 50-person-source-identity.t: with a person role configured
# (slipway.conf person_role_arn), the AWS calls of an operation asked for
# by a person, and the AWS calls a request makes itself (its pre-flight
# and reads), are made through sts:AssumeRole of that role with
# SourceIdentity = the person: the sandbox's request log (CloudTrail's
# userIdentity.sessionContext.sourceIdentity) names the person on every
# change the operation makes and on the request's own reads, one session
# per process serves them.  A role that refuses the person refuses the
# request (403 naming the person) or fails the operation, and nothing is
# done in Slipway's own name instead.  Reads made meanwhile by the
# poller for itself (the ledger) are not the operation's, and are not
# asserted on.
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Stack, sandbox_info, sandbox_requests, wait_operation,
                     need_clusters, SRCDIR)

sys.path.insert(0, os.path.join(SRCDIR, "sandbox"))
from slipsand import sigv4  # noqa: E402

t = T()
need_clusters(t)
ROLE = "arn:aws:iam::123456789012:role/slipway-people"
PERSON = "alice.smith"
conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
conf.write("person_role_arn = %s\n" % ROLE)
conf.close()
os.environ["SLIPWAY_CONF"] = conf.name
s = Stack(t, sandbox=True, speed=2000)
del os.environ["SLIPWAY_CONF"]
t.eq(s.config().get("person_role_arn"), ROLE, "the person role is in config.json")


def iam(params):
    """A signed IAM query call to the stack's sandbox, as its base user."""
    import http.client
    import urllib.parse
    info = sandbox_info(s)
    u = urllib.parse.urlsplit(info["aws_endpoint"])
    body = urllib.parse.urlencode(dict(params, Version="2010-05-08")).encode()
    h = sigv4.sign_headers("POST", info["aws_endpoint"] + "/", {
        "Host": u.netloc, "Content-Type": "application/x-www-form-urlencoded"},
        body, info["access_key_id"], info["secret_access_key"], "us-east-1",
        "iam", time.time())
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.request("POST", "/", body=body, headers=h)
    r = c.getresponse()
    return r.status, r.read().decode()


trust = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
    "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"]}]}
st, text = iam({"Action": "CreateRole", "RoleName": "slipway-people",
                "AssumeRolePolicyDocument": json.dumps(trust)})
t.eq(st, 200, "the person role exists, trusting the account with sts:SetSourceIdentity")

tok = s.cli("token", "create", "--scope", "admin", "--name", PERSON).strip()
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = types[0]
body = {"name": "pp", "instance_groups": [
    {"name": "workers", "instance_type": g["instance_type"], "count": 1,
     "availability_zone": g["availability_zones"][0]}]}
before = max([e["seq"] for e in sandbox_requests(s)] or [0])
r = s.post("/api/v1/clusters", body, token=tok)
t.eq(r.status, 202, "the person asks for a cluster")
doc = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq((doc.get("state"), doc.get("requested_by")), ("succeeded", PERSON),
     "the operation succeeded, recorded as the person's")
if doc.get("state") != "succeeded":
    t.diag(json.dumps(doc, indent=1)[-2000:])
# The AWS calls (the Kubernetes API's requests are logged beside them).
log = [e for e in sandbox_requests(s, since=before)
       if e["service"] != "control" and not e["service"].startswith("kubernetes")]


def source(e):
    return ((e.get("userIdentity") or {}).get("sessionContext") or {}).get("sourceIdentity")


assumes = [e for e in log if e["operation"] == "AssumeRole"]
t.ok(0 < len(assumes) <= 3 and
     {(a["params"].get("RoleArn"), a["params"].get("SourceIdentity"),
       a["params"].get("RoleSessionName"), a["status"]) for a in assumes} ==
     {(ROLE, PERSON, "slipway-" + PERSON, 200)},
     "AssumeRole of the person role with SourceIdentity = the person, at "
     "most once in each process that acted (%d: the request's pre-flight "
     "and the poller)" % len(assumes))
muts = [e for e in log if e["mutating"] and e["operation"] != "AssumeRole"]
bad = [(e["service"], e["operation"], e.get("principal")) for e in muts if source(e) != PERSON]
t.ok(len(muts) >= 10 and not bad,
     "every one of the %d changes names the person as its source identity" % len(muts))
if bad:
    t.diag("without it: %r" % bad[:10])
made = {(e["service"], e["operation"]) for e in muts}
t.ok({("ec2", "CreateVpc"), ("eks", "CreateCluster"), ("sagemaker", "CreateCluster"),
      ("iam", "CreateRole")} <= made, "the network, EKS, IAM and HyperPod creates among them")
t.ok(all(e["userIdentity"]["sessionContext"]["sessionIssuer"]["arn"] == ROLE and
         e.get("principal", "").endswith("/slipway-" + PERSON) for e in muts),
     "made by the person's session of the person role")
reads = [e for e in log if source(e) == PERSON and not e["mutating"]]
t.ok(len(reads) > 0, "the operation's reads go through the session too (%d)" % len(reads))
others = [(e["service"], e["operation"]) for e in log
          if source(e) != PERSON and e["mutating"] and e["operation"] != "AssumeRole"]
t.eq(others, [], "nothing is changed under Slipway's own identity")
# A request's own AWS calls act for its caller too.
before = max([e["seq"] for e in sandbox_requests(s)] or [0])
r = s.get("/api/v1/clusters/pp/nodes", token=tok)
t.eq(r.status, 200, "the person lists the cluster's nodes")
log = [e for e in sandbox_requests(s, since=before)
       if e["service"] not in ("control", "sts") and
       not e["service"].startswith("kubernetes")]
t.ok(log and all(source(e) == PERSON for e in log),
     "the request's own AWS calls (%s) name the person as their source "
     "identity" % sorted({e["operation"] for e in log}))
r = s.get("/api/v1/clusters/pp/nodes")
t.eq(r.status, 200, "another token reads the cluster too, as itself")

# A trust policy without sts:SetSourceIdentity: the person's operation
# fails with AWS's refusal, and nothing is done in Slipway's name instead.
trust["Statement"][0]["Action"] = "sts:AssumeRole"
st, text = iam({"Action": "UpdateAssumeRolePolicy", "RoleName": "slipway-people",
                "PolicyDocument": json.dumps(trust)})
t.eq(st, 200, "the role no longer allows sts:SetSourceIdentity")
tok2 = s.cli("token", "create", "--scope", "admin", "--name", "bob.jones").strip()
before = max([e["seq"] for e in sandbox_requests(s)] or [0])
r = s.post("/api/v1/clusters", dict(body, name="pp2"), token=tok2)
t.ok(r.status == 403 and "bob.jones" in r.body and "AccessDenied" in r.body,
     "another person's create is refused in its pre-flight with STS's "
     "answer, naming the person (%d %s)" % (r.status, r.body[:200]))
t.eq([e["operation"] for e in sandbox_requests(s, since=before)
      if e["service"] not in ("control", "sts") and
      not e["service"].startswith("kubernetes")], [],
     "... and nothing is read with Slipway's own credentials in its place")
r = s.request("DELETE", "/api/v1/clusters/pp", token=tok2)
t.eq(r.status, 202, "the person asks to delete a cluster (no AWS call in "
     "the request)")
doc = wait_operation(s, r.json["operation_id"], timeout=120)
t.ok(doc.get("state") == "failed" and "AccessDenied" in (doc.get("error") or "") and
     "bob.jones" in (doc.get("error") or ""),
     "the operation fails with the refusal, naming the person (%s)" % doc.get("error"))
log = [e for e in sandbox_requests(s, since=before)
       if e["service"] != "control" and not e["service"].startswith("kubernetes")]
t.ok({(e["operation"], e["error"], e["params"].get("SourceIdentity")) for e in log
      if e["operation"] == "AssumeRole"} == {("AssumeRole", "AccessDenied", "bob.jones")},
     "its AWS calls were refused AssumeRoles")
t.eq([(e["service"], e["operation"]) for e in log if e["operation"] != "AssumeRole"],
     [], "nothing was read or changed with Slipway's own credentials in the person's place")
# Every token names a person here, the stack's own too, and a worker that
# has no session yet for its caller would be refused as well: the trust
# comes back before the cluster is read.
trust["Statement"][0]["Action"] = ["sts:AssumeRole", "sts:SetSourceIdentity"]
st, text = iam({"Action": "UpdateAssumeRolePolicy", "RoleName": "slipway-people",
                "PolicyDocument": json.dumps(trust)})
t.eq(st, 200, "the role allows sts:SetSourceIdentity again")
r = s.get("/api/v1/clusters/pp", token=tok2)
t.ok(r.status == 200 and r.json["eks"]["status"] == "ACTIVE" and
     r.json["hyperpod"]["status"] == "InService",
     "the cluster is still there, read as the person who asked to delete it "
     "(%d %s)" % (r.status, r.body[:200]))
s.stop()
os.unlink(conf.name)
t.done()
