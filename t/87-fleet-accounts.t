#!/usr/bin/python3
# 87-fleet-accounts.t: a fleet document over two accounts and two
# regions.  The sandbox serves account B beside Slipway's own (A) and
# eu-west-1 beside us-west-2; B's member role trusts A with the
# configured external id.  One `slipway apply -f` creates fa-a in (A,
# us-west-2), fa-b in (A, eu-west-1) and fa-c in (B, us-west-2): the aws
# CLI with each account's keys finds each in its own place only.
# Applied again it makes 0 AWS or Kubernetes writes (the sandbox's
# request log); `slipway export` names each cluster's account and
# region, and the export applied makes 0 writes too.  A document that
# moves a live cluster to another region or account is refused (exit 5)
# naming the field and immutable.  fa-c's group scaled to 2 with the
# aws CLI as account B in us-west-2 shows in plan (count live 2,
# desired 1) and in fleet_drift; the poller records it within one poll
# (fleet_drift_recorded: read in B, first seen after the change and
# kept at the next pass, who unknown) and plan's change carries that
# first_seen_ms; apply scales it back in B (the aws CLI as B reads a
# target count of 1) and the next pass forgets the drift.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from fleetcli import FleetCli
from harness import (Stack, need_clusters, sandbox_call, sandbox_info,
                     wait_for, wait_operation)

t = T()
need_clusters(t)
AWS = shutil.which("aws")
if AWS is None:
    t.skip_all("needs the aws CLI")

A, B = "123456789012", "222233334444"
HOME, OTHER = "us-west-2", "eu-west-1"
EXTERNAL_ID = "slipway-87-external"
PLACE = {"fa-a": (A, HOME), "fa-b": (A, OTHER), "fa-c": (B, HOME)}

tmp = tempfile.mkdtemp(prefix="sw-fleet-acct-")
conf = os.path.join(tmp, "slipway.conf")
with open(conf, "w") as f:
    f.write("member.external_id = %s\n" % EXTERNAL_ID)
os.environ["SLIPWAY_CONF"] = conf
s = Stack(t, sandbox=True, speed=3000)
del os.environ["SLIPWAY_CONF"]
info = sandbox_info(s)
t.eq((info.get("account_id"), info.get("region")), (A, HOME),
     "Slipway's own account and region are the sandbox's default ones")
fleet = FleetCli(s, tmp)
cli, cli_json, write = fleet.cli, fleet.cli_json, fleet.write
last_seq, writes_since = fleet.last_seq, fleet.writes_since

keys = {A: (info["access_key_id"], info["secret_access_key"])}
st, body = sandbox_call(s, "POST", "/_sandbox/accounts", {"account_id": B})
t.eq(st, 200, "the sandbox serves account %s" % B)
keys[B] = (body["access_key_id"], body["secret_access_key"])
st, body = sandbox_call(s, "POST", "/_sandbox/regions", {"region": OTHER})
t.eq(st, 200, "the sandbox serves %s too" % OTHER)


def aws(acct, region, *args):
    """The real aws CLI as account acct in region: (rc, JSON or text)."""
    env = dict(os.environ)
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
        env.pop(k, None)
    env.update({"AWS_ACCESS_KEY_ID": keys[acct][0],
                "AWS_SECRET_ACCESS_KEY": keys[acct][1],
                "AWS_DEFAULT_REGION": region, "AWS_REGION": region,
                "AWS_EC2_METADATA_DISABLED": "true", "AWS_MAX_ATTEMPTS": "1",
                "AWS_PAGER": ""})
    r = subprocess.run([AWS, "--endpoint-url", info["aws_endpoint"],
                        "--output", "json"] + list(args),
                       capture_output=True, text=True, timeout=120, env=env)
    if r.returncode != 0:
        return r.returncode, r.stdout + r.stderr
    try:
        return 0, json.loads(r.stdout) if r.stdout.strip() else {}
    except ValueError:
        return 0, r.stdout


trust = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::%s:root" % A},
    "Action": "sts:AssumeRole",
    "Condition": {"StringEquals": {"sts:ExternalId": EXTERNAL_ID}}}]}
rc, _ = aws(B, HOME, "iam", "create-role", "--role-name", "SlipwayMember",
            "--assume-role-policy-document", json.dumps(trust))
rc2, _ = aws(B, HOME, "iam", "attach-role-policy", "--role-name",
             "SlipwayMember", "--policy-arn",
             "arn:aws:iam::aws:policy/AdministratorAccess")
t.eq((rc, rc2), (0, 0), "account B has the member role trusting A")



itype = s.get("/api/v1/instance-types?gpu_only=true").json["items"][0][
    "instance_type"]
CL = """  - name: %(name)s
%(place)s    kubernetes_version: "1.31"
    instance_groups:
      - name: workers
        instance_type: %(itype)s
        count: 1
"""


def fleet_text(place=None):
    """The fleet; place overrides a cluster's (account, region)."""
    out = "apiVersion: slipway/v1\nclusters:\n"
    for name in sorted(PLACE):
        acct, region = (place or {}).get(name, PLACE[name])
        lines = ""
        if acct != A:
            lines += "    account: \"%s\"\n" % acct
        if region != HOME:
            lines += "    region: %s\n" % region
        out += CL % {"name": name, "place": lines, "itype": itype}
    return out


# ---- one apply: three clusters, two accounts, two regions ------------
fleet = write("fleet.yaml", fleet_text())
rc, plan, err = cli_json("plan", "-f", fleet)
ch = (plan or {}).get("changes", [])
t.ok(rc == 2 and [(c["operation"], c["target"],
                   c["arguments"].get("account"),
                   c["arguments"].get("region")) for c in ch] ==
     [("cluster_create", "fa-a", None, None),
      ("cluster_create", "fa-b", None, OTHER),
      ("cluster_create", "fa-c", B, None)],
     "plan -f: three creates, each with the document's account and "
     "region (%d %s)" % (rc, err.strip()[:300]))
seq = last_seq()
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
started = (ap or {}).get("started", [])
ops = [x.get("operation_id") for x in started if x.get("operation_id")]
t.ok(rc == 0 and len(ops) == 3, "apply -f --yes starts the three creates "
     "(%d %s %s)" % (rc, [x.get("status") for x in started],
                     err.strip()[:300]))
for op in ops:
    doc = wait_operation(s, op, timeout=900)
    t.eq(doc.get("state"), "succeeded", "%s created" % doc.get("cluster"))
    if doc.get("state") != "succeeded":
        t.diag(json.dumps(doc, indent=1)[-3000:])
made = writes_since(seq)
t.eq(sum(1 for w in made if w == ("sagemaker", "CreateCluster")), 3,
     "the request log counts 3 HyperPod CreateCluster for that apply")
for acct in (A, B):
    for region in (HOME, OTHER):
        mine = sorted(n for n, p in PLACE.items() if p == (acct, region))
        rc, hp = aws(acct, region, "sagemaker", "list-clusters")
        names = sorted(c["ClusterName"] for c in
                       hp.get("ClusterSummaries", [])) if rc == 0 else hp
        t.eq(names, mine, "the aws CLI as %s in %s: HyperPod clusters %s"
             % (acct, region, mine))

# ---- again: no change, no write --------------------------------------
seq = last_seq()
rc, plan, err = cli_json("plan", "-f", fleet)
t.ok(rc == 0 and plan and plan["changes"] == [],
     "plan again: exit 0, no change (%s %s)" %
     ((plan or {}).get("changes"), err.strip()[:300]))
rc, out, err = cli("apply", "-f", fleet, "--yes")
t.eq((rc, writes_since(seq)), (0, []),
     "re-apply: 0 AWS or Kubernetes writes in the request log (%s)" %
     err.strip()[:300])

# ---- export names each place and applies as a no-op ------------------
rc, out, err = cli("export")
exp = yaml.safe_load(out) if rc == 0 else {}
got = {c["name"]: (c.get("account"), c.get("region"))
       for c in (exp or {}).get("clusters", [])}
t.eq(got, PLACE, "export writes each cluster's account and region (%s)" %
     err.strip()[:300])
exported = write("export.yaml", out)
seq = last_seq()
rc, plan, err = cli_json("plan", "-f", exported)
t.ok(rc == 0 and plan and plan["changes"] == [], "plan of the export: no "
     "change (%s %s)" % ((plan or {}).get("changes"), err.strip()[:300]))
rc, out, err = cli("apply", "-f", exported, "--yes")
t.eq((rc, writes_since(seq)), (0, []), "apply of the export: 0 writes")

# ---- a cluster does not move -----------------------------------------
moved = write("moved.yaml", fleet_text({"fa-b": (A, HOME)}))
rc, out, err = cli("plan", "-f", moved)
t.ok(rc == 5 and "clusters[1].region" in err and "mmutable" in err and
     OTHER in err, "fa-b's region changed: exit 5 naming clusters[1].region "
     "and immutable (%d %s)" % (rc, err.strip()[:300]))
moved = write("moved2.yaml", fleet_text({"fa-c": (A, HOME)}))
rc, out, err = cli("plan", "-f", moved)
t.ok(rc == 5 and "clusters[2].account" in err and "mmutable" in err and
     B in err, "fa-c's account changed: exit 5 naming clusters[2].account "
     "(%d %s)" % (rc, err.strip()[:300]))

# ---- drift made with the aws CLI in account B ------------------------
def recorded(cluster="fa-c"):
    r = s.get("/api/v1/fleet/drift/recorded?cluster=" + cluster)
    return (r.json or {}).get("items") if r.status == 200 else None


t.eq(recorded(), [], "fleet_drift_recorded of fa-c before any drift: none")
before_ms = int(time.time() * 1000)
rc, d = aws(B, HOME, "sagemaker", "describe-cluster", "--cluster-name", "fa-c")
grp = (d.get("InstanceGroups") or [{}])[0] if rc == 0 else {}
spec = {"InstanceGroupName": grp.get("InstanceGroupName"),
        "InstanceType": grp.get("InstanceType"), "InstanceCount": 2,
        "ExecutionRole": grp.get("ExecutionRole"),
        "LifeCycleConfig": grp.get("LifeCycleConfig")}
rc, out = aws(B, HOME, "sagemaker", "update-cluster", "--cluster-name",
              "fa-c", "--instance-groups", json.dumps([spec]))
t.eq(rc, 0, "aws sagemaker update-cluster as B in %s scales fa-c/workers "
     "to 2 (%s)" % (HOME, out if rc else ""))


def fa_c():
    rc, d = aws(B, HOME, "sagemaker", "describe-cluster", "--cluster-name",
                "fa-c")
    return d if rc == 0 else {}


wait_for(lambda: fa_c().get("ClusterStatus") == "InService", timeout=300,
         every=1)
# The poller records it within one poll, with when Slipway first saw it.
wait_for(lambda: recorded(), timeout=180, every=1)
rec = recorded() or []
first = rec[0].get("first_seen_ms", 0) if rec else 0
t.ok([(x["target"], x["field"], x["live"], x["desired"], x["changed_by"])
      for x in rec] == [("fa-c/workers", "count", 2, 1, "unknown")] and
     before_ms <= first <= time.time() * 1000,
     "the poller records the drift of fa-c (read as account B): count "
     "live 2, desired 1, first seen after the change, who unknown (%s)" % rec)
wait_for(lambda: (recorded() or [{}])[0].get("seen_ms", 0) >
         rec[0]["seen_ms"] if rec else True, timeout=180, every=1)
again = recorded() or [{}]
t.ok(again[0].get("seen_ms", 0) > (rec[0]["seen_ms"] if rec else 0),
     "seen again at the next poll (%s)" % again)
t.eq(again[0].get("first_seen_ms"), first, "... and first seen is kept")
rc, plan, err = cli_json("plan", "-f", fleet)
ch = (plan or {}).get("changes", [])
t.eq([c.get("first_seen_ms") for c in ch], [first],
     "plan's change carries when Slipway first saw it")
t.ok(rc == 2 and [(c["operation"], c["target"], c.get("field"),
                   c.get("live"), c.get("desired")) for c in ch] ==
     [("instance_group_scale", "fa-c/workers", "count", 2, 1)],
     "plan: the drift in account B is one scale of fa-c/workers, live 2, "
     "desired 1 (%s)" % (ch or err.strip()[:300]))
dr = s.get("/api/v1/fleet/drift?cluster=fa-c")
t.ok(dr.status == 200 and [(c["target"], c.get("live"))
                           for c in dr.json.get("changes", [])] ==
     [("fa-c/workers", 2)], "fleet_drift of fa-c shows it (%s)" % dr.json)
rc, ap, err = cli_json("apply", "-f", fleet, "--yes")
op = ((ap or {}).get("started") or [{}])[0].get("operation_id")
t.ok(rc == 0 and op, "apply repairs it (%s)" % err.strip()[:300])
t.eq(wait_operation(s, op, timeout=600).get("state") if op else None,
     "succeeded", "the scale succeeds")
g = (fa_c().get("InstanceGroups") or [{}])[0]
t.eq(g.get("TargetCount"), 1, "the aws CLI as B reads fa-c/workers' target "
     "count back at 1")
rc, plan, _ = cli_json("plan", "-f", fleet)
t.ok(rc == 0 and plan and plan["changes"] == [],
     "plan after the repair: no change")
wait_for(lambda: recorded() == [], timeout=180, every=1)
t.eq(recorded(), [], "the poller forgets the repaired drift at its next pass")

s.stop()
t.done()
