#!/usr/bin/python3
# 17-cfn.t: cfn/slipway.yaml passes cfn-lint with no error or warning,
# and Slipway's role grants exactly the AWS actions the code can call
# (derived from the sources by cfn/aws-actions.py, never listed here):
# none missing, none extra, no wildcard, no mutating action on every
# resource without a condition, iam:PassRole only for its own roles and
# named services.  The roles it creates carry its permissions boundary
# (CreateRole and every change to a role need it; removing it is
# denied), AttachRolePolicy names exactly the AWS managed policies the
# code attaches, and the boundary grants no IAM or STS.  Also: the
# single instance has no inbound rule and IMDSv2 only, the bucket is
# encrypted, versioned, private and TLS-only, and the outputs give the
# port-forwarding command.  The high-availability shape (Shape) is
# consistent: under every combination of the parameters conditions
# choose between, every resource and output that exists refers only to
# resources that exist (none dangling; the check fails on a template
# with one condition removed), its resources exist only under
# HighAvailability, and single keeps one instance and no load balancer
# or database.  In it: two instances in two AZs behind an internal load
# balancer whose health check is the health operation's path, inbound
# rules only from one security group to another (never a CIDR), Aurora
# PostgreSQL 15 Serverless v2 encrypted in the private subnets admitting
# the instances only, the instances' role reading exactly the database
# secret, user data writing listen = 0.0.0.0 and database =
# postgresql://... into slipway.conf, and the port forward through the
# load balancer.  cfn/member-role.yaml (the role Slipway assumes in a member
# account) passes cfn-lint too, grants what the code calls but entering
# other accounts, and trusts only Slipway's role with the external id;
# Slipway's role may assume only that role, in the listed accounts.
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T

SRCDIR = os.environ.get("SW_SRCDIR",
                        os.path.join(os.path.dirname(__file__), ".."))
TEMPLATE = os.path.join(SRCDIR, "cfn", "slipway.yaml")
MODELS = os.path.join(SRCDIR, "..", "shared", "testdata", "aws-models")

spec = importlib.util.spec_from_file_location(
    "awsactions", os.path.join(SRCDIR, "cfn", "aws-actions.py"))
awsactions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(awsactions)


class CfnLoader(yaml.SafeLoader):
    pass


def _tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        v = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        v = loader.construct_sequence(node, deep=True)
    else:
        v = loader.construct_mapping(node, deep=True)
    return {"Fn::" + suffix if suffix != "Ref" else "Ref": v}


CfnLoader.add_multi_constructor("!", _tag)

READ_VERBS = ("Describe", "List", "Get", "Head", "Simulate", "Search")


def as_list(v):
    return v if isinstance(v, list) else [v]


def slipway_statements(tpl):
    """Statements of the managed policies Slipway's role carries."""
    res = tpl["Resources"]
    out = []
    for ref in res["SlipwayRole"]["Properties"]["ManagedPolicyArns"]:
        pol = res[ref["Ref"]]["Properties"]["PolicyDocument"]
        for st in pol["Statement"]:
            out.append((ref["Ref"], st))
    return out


def policy_findings(statements, derived):
    """What is wrong with a set of statements against the derived
    actions; empty when all is well."""
    bad = []
    granted = {}
    for name, st in statements:
        if st.get("Effect") != "Allow":
            continue
        for a in as_list(st["Action"]):
            granted.setdefault(a.lower(), a)
            if "*" in a or "?" in a:
                bad.append("%s/%s: wildcard action %s" % (name, st.get("Sid"),
                                                          a))
        res = as_list(st.get("Resource", []))
        mutating = [a for a in as_list(st["Action"])
                    if not a.split(":")[1].startswith(READ_VERBS)]
        if mutating and "*" in res and not st.get("Condition"):
            bad.append("%s/%s: %s on every resource with no condition" %
                       (name, st.get("Sid"), ", ".join(mutating)))
        if "iam:PassRole" in as_list(st["Action"]):
            cond = st.get("Condition", {}).get("StringEquals", {})
            if "*" in res or "iam:PassedToService" not in cond:
                bad.append("%s/%s: iam:PassRole without own roles and "
                           "iam:PassedToService" % (name, st.get("Sid")))
    for a in sorted(derived):
        if a.lower() not in granted:
            bad.append("missing %s (%s)" % (a, "; ".join(derived[a][:2])))
    want = {a.lower() for a in derived}
    for a in sorted(granted):
        if a not in want:
            bad.append("granted but never called: %s" % granted[a])
    return bad


t = T()

# --- cfn-lint ---------------------------------------------------------------
lint = shutil.which("cfn-lint")
if lint is None:
    t.skip("cfn-lint is not installed (pip install cfn-lint)")
else:
    r = subprocess.run([lint, "--", TEMPLATE], capture_output=True,
                       text=True, timeout=300)
    t.ok(r.returncode == 0 and r.stdout.strip() == "",
         "cfn-lint: no errors or warnings")
    if r.returncode or r.stdout.strip():
        t.diag((r.stdout + r.stderr)[-3000:])

# --- the deriver resolves what it must, and refuses what it cannot ----------
fake = tempfile.mkdtemp(prefix="sw-actions-")
try:
    os.makedirs(os.path.join(fake, "cloud"))
    os.makedirs(os.path.join(fake, "pipelines"))
    shutil.copy(os.path.join(SRCDIR, "cloud", "aws.c"),
                os.path.join(fake, "cloud", "aws.c"))
    with open(os.path.join(fake, "pipelines", "x.c"), "w") as f:
        f.write('int\nrun(struct s *s, enum aws_service svc, const char *op,'
                ' int x)\n{\n\treturn 0;\n}\n\n'
                'static int\nfind(struct s *s, const char *describe)\n{\n'
                '\treturn run(s, AWS_SVC_EC2, describe, 1);\n}\n\n'
                'static int\npick(struct s *s, int n)\n{\n'
                '\tconst char *op = n ? "BatchRebootClusterNodes" :\n'
                '\t    "BatchDeleteClusterNodes";\n'
                '\tfind(s, "DescribeVpcs");\n'
                '\treturn run(s, AWS_SVC_SAGEMAKER, op, sw_jo("Tags", 1));\n'
                '}\n')
    got = awsactions.derive(fake, MODELS if os.path.isdir(MODELS) else None)
    t.eq(sorted(got), ["ec2:DescribeVpcs",
                       "sagemaker:BatchDeleteClusterNodes",
                       "sagemaker:BatchRebootClusterNodes"],
         "the deriver follows a wrapper's parameter and a variable "
         "operation")
    with open(os.path.join(fake, "pipelines", "y.c"), "w") as f:
        f.write('static int\nhidden(struct s *s, const char **tab)\n{\n'
                '\treturn run(s, AWS_SVC_EKS, tab[0], 1);\n}\n')
    try:
        awsactions.derive(fake, None)
        t.ok(False, "an unresolvable call site is an error")
    except SystemExit as e:
        t.ok("cannot tell" in str(e), "an unresolvable call site is an error")
finally:
    shutil.rmtree(fake, ignore_errors=True)

# --- the policy against the code ---------------------------------------------
derived = awsactions.derive(SRCDIR, MODELS if os.path.isdir(MODELS) else None)
t.ok(len(derived) > 40, "derived %d actions from the code" % len(derived))
t.eq(sorted(awsactions.derive(SRCDIR, None)), sorted(derived),
     "the same actions are derived without the AWS models (a build "
     "without ../shared, e.g. the image)")
tpl = yaml.load(open(TEMPLATE), Loader=CfnLoader)
stmts = slipway_statements(tpl)
bad = policy_findings(stmts, derived)
t.eq(bad, [], "Slipway's role grants exactly what the code calls, scoped")

# The check can fail: a missing action, an extra wildcard.
less = [(n, dict(st, Action=[a for a in as_list(st["Action"])
                             if a != "eks:CreateCluster"]))
        for n, st in stmts]
less = [(n, st) for n, st in less if st["Action"]]
t.ok(any("missing eks:CreateCluster" in b
         for b in policy_findings(less, derived)),
     "a template without eks:CreateCluster fails the check")
more = stmts + [("X", {"Sid": "Wide", "Effect": "Allow", "Action": "ec2:*",
                       "Resource": "*"})]
t.ok(any("wildcard action ec2:*" in b for b in policy_findings(more, derived))
     and any("every resource with no condition" in b
             for b in policy_findings(more, derived)),
     "a wildcard over mutating actions fails the check")

# Nothing else in the template may use a wildcard action either.
res = tpl["Resources"]
agent = res["SlipwayRole"]["Properties"]["Policies"]
wild = [a for p in agent for st in p["PolicyDocument"]["Statement"]
        for a in as_list(st["Action"]) if "*" in a]
t.eq(wild, [], "the instance agent's policy has no wildcard action")
trust = res["SlipwayRole"]["Properties"]["AssumeRolePolicyDocument"]
t.eq([st["Principal"] for st in trust["Statement"]],
     [{"Service": "ec2.amazonaws.com"}], "only EC2 may assume the role")

# --- the roles Slipway creates: bounded, named policies only ------------------

BOUNDARY = {"Ref": "SlipwayRoleBoundary"}
t.eq(res.get("SlipwayRoleBoundary", {}).get("Type"), "AWS::IAM::ManagedPolicy",
     "the template defines the permissions boundary policy")
by_action = {}
for name, st in stmts:
    for a in as_list(st["Action"]):
        by_action.setdefault(a, []).append(st)


def bounded(st):
    return st.get("Condition", {}).get("StringEquals", {}).get(
        "iam:PermissionsBoundary") == BOUNDARY


for a in ("iam:CreateRole", "iam:PutRolePolicy", "iam:AttachRolePolicy",
          "iam:DetachRolePolicy", "iam:DeleteRolePolicy"):
    allows = [st for st in by_action.get(a, []) if st["Effect"] == "Allow"]
    t.ok(allows and all(bounded(st) for st in allows),
         "%s only on roles with Slipway's permissions boundary" % a)
# The AWS managed policies the code attaches, from the sources.
code_arns = set()
for f in glob.glob(os.path.join(SRCDIR, "pipelines", "*.[ch]")) + \
        glob.glob(os.path.join(SRCDIR, "handlers", "*.[ch]")):
    src = re.sub(r'"\s*\\?\n\s*"', "", open(f).read())
    code_arns |= set(re.findall(r'"arn:aws:iam::aws:policy/([A-Za-z0-9+=,.@_-]+)"',
                                src))
attach = [st for st in by_action.get("iam:AttachRolePolicy", [])
          if st["Effect"] == "Allow"]
named = set()
wild = False
for st in attach:
    for op, keys in st.get("Condition", {}).items():
        for k, v in keys.items():
            if k.lower() != "iam:policyarn":
                continue
            wild |= op != "ArnEquals"
            for x in as_list(v):
                x = x.get("Fn::Sub", x) if isinstance(x, dict) else x
                wild |= "*" in x
                named.add(x.rsplit("/", 1)[-1])
t.ok(len(code_arns) >= 2 and attach and not wild and named == code_arns,
     "iam:AttachRolePolicy only for the policies the code attaches, by ARN "
     "(%s)" % ", ".join(sorted(code_arns)))
denies = [st for _, st in stmts if st["Effect"] == "Deny"]
t.ok(any({"iam:DeleteRolePermissionsBoundary",
          "iam:PutRolePermissionsBoundary"} <= set(as_list(st["Action"])) and
         "role/slipway-*" in str(st["Resource"]) for st in denies),
     "removing or replacing the boundary of its roles is denied")
bdoc = res["SlipwayRoleBoundary"]["Properties"]["PolicyDocument"]["Statement"]
b_allow = [a for st in bdoc if st["Effect"] == "Allow"
           for a in as_list(st["Action"])]
t.ok(not [a for a in b_allow if a.startswith("iam:") and
          a != "iam:CreateServiceLinkedRole"] and
     not [a for a in b_allow if a.startswith(("sts:", "organizations:"))]
     and "*" not in b_allow,
     "the boundary grants no IAM (but service-linked roles), STS or "
     "Organizations action")
t.ok(any(st["Effect"] == "Deny" and "NotAction" in st for st in bdoc),
     "and denies every other action outright")
user_data = res["Instance"]["Properties"]["UserData"]["Fn::Base64"]["Fn::Sub"]
t.ok("SLIPWAY_IAM_PERMISSIONS_BOUNDARY=${SlipwayRoleBoundary}" in user_data,
     "the instance runs Slipway with the boundary configured")

# --- the instance --------------------------------------------------------------
inst = res["Instance"]["Properties"]
t.eq(inst["MetadataOptions"].get("HttpTokens"), "required", "IMDSv2 only")
t.ok("NetworkInterfaces" not in inst and
     not res["PrivateSubnet"]["Properties"].get("MapPublicIpOnLaunch"),
     "the instance sits in a private subnet with no public address")
t.ok(any(v["Type"] == "AWS::EC2::NatGateway" for v in res.values()),
     "a new VPC gives the private subnet a NAT gateway")

# --- the bucket ----------------------------------------------------------------
b = res["SharedBucket"]["Properties"]
t.ok(b["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]
     ["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in ("aws:kms",
                                                          "AES256"),
     "bucket encrypted")
t.eq(b["VersioningConfiguration"]["Status"], "Enabled", "bucket versioned")
t.eq(sorted(k for k, v in b["PublicAccessBlockConfiguration"].items() if v),
     ["BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls",
      "RestrictPublicBuckets"], "public access blocked")
bp = res["SharedBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
t.ok(any(st["Effect"] == "Deny" and
         st.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport")
         == "false" for st in bp), "bucket refuses requests without TLS")

# --- outputs ----------------------------------------------------------------------
cmd = tpl["Outputs"]["PortForwardCommand"]["Value"]["Fn::Sub"]
t.ok(cmd.startswith("aws ssm start-session ") and
     "--target ${Instance}" in cmd and
     "--document-name AWS-StartPortForwardingSession" in cmd and
     '"portNumber":["3099"]' in cmd,
     "outputs give the SSM port-forwarding command to 3099")

# --- the member account's role -------------------------------------------------
MEMBER = os.path.join(SRCDIR, "cfn", "member-role.yaml")
if lint is None:
    t.skip("cfn-lint is not installed (pip install cfn-lint)")
else:
    r = subprocess.run([lint, "--", MEMBER], capture_output=True, text=True,
                       timeout=300)
    t.ok(r.returncode == 0 and r.stdout.strip() == "",
         "cfn-lint: the member template has no errors or warnings")
    if r.returncode or r.stdout.strip():
        t.diag((r.stdout + r.stderr)[-3000:])
mtpl = yaml.load(open(MEMBER), Loader=CfnLoader)
mres = mtpl["Resources"]
mstmts = [(ref["Ref"], st)
          for ref in mres["MemberRole"]["Properties"]["ManagedPolicyArns"]
          for st in mres[ref["Ref"]]["Properties"]["PolicyDocument"]["Statement"]]
home_only = {"sts:AssumeRole"}
t.eq(policy_findings(mstmts, {a: w for a, w in derived.items()
                              if a not in home_only}), [],
     "the member role grants what the code calls but entering accounts, "
     "scoped")
mtrust = mres["MemberRole"]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
t.eq([(st["Principal"], st["Action"], st.get("Condition")) for st in mtrust],
     [({"AWS": {"Ref": "SlipwayRoleArn"}}, "sts:AssumeRole",
       {"StringEquals": {"sts:ExternalId": {"Ref": "ExternalId"}}})],
     "only Slipway's role may assume it, with the external id")
member_sts = [st for _, st in stmts if "sts:AssumeRole" in as_list(st["Action"])]
t.ok(len(member_sts) == 1 and "role/${MemberRoleName}" in str(
    member_sts[0]["Resource"]) and member_sts[0].get("Condition", {}).get(
    "StringEquals", {}).get("aws:ResourceAccount") == {"Ref": "MemberAccountIds"},
     "Slipway's role assumes only the member role, in the listed accounts")
t.ok("SLIPWAY_MEMBER_EXTERNAL_ID=${MemberExternalId}" in user_data,
     "the instance runs Slipway with the member role's external id")
# --- the shapes: conditions consistent, none dangling --------------------------
import copy
import itertools

PSEUDO = ("AWS::",)


def cond_value(tpl, expr, params, seen=()):
    """The value of a condition expression for these parameters."""
    if isinstance(expr, str):
        return expr
    if not isinstance(expr, dict) or len(expr) != 1:
        raise ValueError("not a condition: %r" % (expr,))
    (fn, arg), = expr.items()
    if fn == "Ref":
        return params.get(arg, tpl["Parameters"].get(arg, {}).get("Default"))
    if fn == "Fn::Condition":
        return condition(tpl, arg, params, seen)
    if fn == "Fn::Equals":
        a, b = (cond_value(tpl, x, params, seen) for x in arg)
        return str(a) == str(b)
    if fn == "Fn::Not":
        return not cond_value(tpl, arg[0], params, seen)
    if fn == "Fn::And":
        return all(cond_value(tpl, x, params, seen) for x in arg)
    if fn == "Fn::Or":
        return any(cond_value(tpl, x, params, seen) for x in arg)
    raise ValueError("unknown condition function %s" % fn)


def condition(tpl, name, params, seen=()):
    if name in seen or name not in tpl.get("Conditions", {}):
        raise KeyError("condition %s undefined or circular" % name)
    return cond_value(tpl, tpl["Conditions"][name], params, seen + (name,))


def refs(tpl, node, params):
    """Names a node refers to (Ref, GetAtt, Sub), following the branch
    of each Fn::If these parameters take."""
    out = set()
    if isinstance(node, list):
        for x in node:
            out |= refs(tpl, x, params)
    elif isinstance(node, dict):
        if len(node) == 1 and "Fn::If" in node:
            c, a, b = node["Fn::If"]
            return refs(tpl, a if condition(tpl, c, params) else b, params)
        for k, v in node.items():
            if k == "Ref" and isinstance(v, str):
                out.add(v)
            elif k == "Fn::GetAtt":
                out.add(v[0] if isinstance(v, list) else v.split(".")[0])
            elif k == "Fn::Sub":
                text, more = (v, {}) if isinstance(v, str) else v
                for m in re.findall(r"\$\{([^!}][^}]*)\}", text):
                    if m not in (more or {}):
                        out.add(m.split(".")[0])
                out |= refs(tpl, more, params)
            else:
                out |= refs(tpl, v, params)
    return {r for r in out if not r.startswith(PSEUDO)}


def scenarios(tpl):
    """Every combination of the parameter values the conditions read."""
    shapes = tpl["Parameters"]["Shape"]["AllowedValues"]
    for vpc, shape in itertools.product(["", "vpc-0123456789abcdef0"],
                                        shapes):
        yield {"VpcId": vpc, "Shape": shape,
               "SubnetId": "subnet-0123456789abcdef0" if vpc else "",
               "SecondSubnetId": "subnet-0fedcba9876543210" if vpc else ""}


def shape_findings(tpl):
    """What dangles or is named but undefined, per scenario."""
    bad = []
    resources, outputs = tpl["Resources"], tpl.get("Outputs", {})
    params = set(tpl.get("Parameters", {}))
    for sc in scenarios(tpl):
        tag = "%s/%s" % (sc["Shape"], "new VPC" if not sc["VpcId"] else
                         "own VPC")
        try:
            live = {k for k, v in resources.items()
                    if "Condition" not in v or
                    condition(tpl, v["Condition"], sc)}
            for kind, table in (("resource", resources),
                                ("output", outputs)):
                for k, v in table.items():
                    if "Condition" in v and not condition(
                            tpl, v["Condition"], sc):
                        continue
                    named = refs(tpl, {kk: vv for kk, vv in v.items()
                                       if kk != "DependsOn"}, sc)
                    named |= set(as_list(v.get("DependsOn", [])))
                    for r in sorted(named - live - params):
                        bad.append("%s: %s %s refers to %s, %s" % (
                            tag, kind, k, r, "which does not exist then"
                            if r in resources else "undefined"))
        except (KeyError, ValueError) as e:
            bad.append("%s: %s" % (tag, e))
    return bad


t.eq(shape_findings(tpl), [],
     "under every shape and VPC choice, nothing refers to a resource "
     "that does not exist then")
broken = copy.deepcopy(tpl)
del broken["Resources"]["DatabaseWriter"]["Condition"]
t.ok(any("DatabaseWriter refers to DatabaseCluster" in b
         for b in shape_findings(broken)),
     "the check fails on a template with the writer's condition removed")
broken = copy.deepcopy(tpl)
broken["Resources"]["SharedBucket"]["Properties"]["Tags"] = [
    {"Key": "lb", "Value": {"Fn::GetAtt": ["LoadBalancer", "DNSName"]}}]
t.ok(any("SharedBucket refers to LoadBalancer" in b
         for b in shape_findings(broken)),
     "and on an unconditional resource naming a high-availability one")

HA_ONLY = {"AWS::ElasticLoadBalancingV2::LoadBalancer",
           "AWS::ElasticLoadBalancingV2::TargetGroup",
           "AWS::ElasticLoadBalancingV2::Listener",
           "AWS::AutoScaling::AutoScalingGroup", "AWS::EC2::LaunchTemplate",
           "AWS::RDS::DBCluster", "AWS::RDS::DBInstance",
           "AWS::RDS::DBSubnetGroup", "AWS::SecretsManager::Secret",
           "AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress",
           "AWS::IAM::RolePolicy"}
t.eq(tpl["Parameters"]["Shape"]["Default"], "single",
     "the single-instance shape is the default")
for sc in scenarios(tpl):
    live = [k for k, v in res.items() if "Condition" not in v or
            condition(tpl, v["Condition"], sc)]
    types = {}
    for k in live:
        types.setdefault(res[k]["Type"], []).append(k)
    tag = "%s, %s" % (sc["Shape"], "new VPC" if not sc["VpcId"] else
                      "own VPC")
    if sc["Shape"] == "single":
        t.ok(types.get("AWS::EC2::Instance") == ["Instance"] and
             not HA_ONLY & set(types) and
             all("SecurityGroupIngress" not in res[k]["Properties"]
                 for k in types.get("AWS::EC2::SecurityGroup", [])),
             "%s: one instance, no inbound rule, none of %d "
             "high-availability resource types" % (tag, len(HA_ONLY)))
    else:
        t.ok("AWS::EC2::Instance" not in types and HA_ONLY <= set(types),
             "%s: every high-availability resource type and no single "
             "instance" % tag)
ha_res = [k for k, v in res.items() if v["Type"] in HA_ONLY or
          k in ("LoadBalancerSecurityGroup", "DatabaseSecurityGroup")]
t.eq([k for k in ha_res if res[k].get("Condition") != "HighAvailability"],
     [], "each of them carries the condition HighAvailability")

# --- the high-availability shape ------------------------------------------------
ha = {"VpcId": "", "Shape": "high-availability"}
asg = res["InstanceGroup"]["Properties"]
subnets = refs(tpl, asg["VPCZoneIdentifier"], ha)
t.ok(asg["MinSize"] == asg["MaxSize"] == "2" and
     subnets == {"PrivateSubnet", "PrivateSubnet2"} and
     res["PrivateSubnet"]["Properties"]["AvailabilityZone"] !=
     res["PrivateSubnet2"]["Properties"]["AvailabilityZone"] and
     not res["PrivateSubnet2"]["Properties"].get("MapPublicIpOnLaunch"),
     "two instances in two private subnets of two AZs")
t.ok(refs(tpl, asg["VPCZoneIdentifier"], dict(ha, VpcId="vpc-1")) ==
     {"SubnetId", "SecondSubnetId"} and
     "SecondSubnetWithVpcHa" in tpl.get("Rules", {}),
     "with an existing VPC: the two subnets given (a rule asks for both)")
lt = res["LaunchTemplate"]["Properties"]["LaunchTemplateData"]
t.eq(lt["MetadataOptions"].get("HttpTokens"), "required",
     "their launch template: IMDSv2 only")
lb = res["LoadBalancer"]["Properties"]
tg = res["TargetGroup"]["Properties"]
health = re.search(r'\.name = "health",\s*\.method = "GET",\s*'
                   r'\.path = "([^"]+)"',
                   open(os.path.join(SRCDIR, "api", "ops",
                                     "system.c")).read())
t.ok(lb["Scheme"] == "internal" and
     refs(tpl, lb["Subnets"], ha) == {"PrivateSubnet", "PrivateSubnet2"} and
     health is not None and tg.get("HealthCheckPath") == health.group(1) and
     tg.get("HealthCheckProtocol") == "HTTP" and
     refs(tpl, asg["TargetGroupARNs"], ha) == {"TargetGroup"},
     "an internal load balancer in both subnets; its health check is the "
     "health operation's path (%s)" % (health.group(1) if health else "?"))
# Inbound rules: each from one security group, none from an address.
ingress = [(k, r) for k, v in res.items()
           if v["Type"] == "AWS::EC2::SecurityGroup"
           for r in v["Properties"].get("SecurityGroupIngress", [])]
ingress += [(k, v["Properties"]) for k, v in res.items()
            if v["Type"] == "AWS::EC2::SecurityGroupIngress"]
t.ok(ingress and all("SourceSecurityGroupId" in r and "CidrIp" not in r and
                     "CidrIpv6" not in r for _, r in ingress),
     "every inbound rule admits one security group, never an address "
     "(%d rules)" % len(ingress))
dbsg = res["DatabaseSecurityGroup"]["Properties"]["SecurityGroupIngress"]
t.ok([(r["FromPort"], r["ToPort"], r["SourceSecurityGroupId"])
      for r in dbsg] == [(5432, 5432, {"Ref": "InstanceSecurityGroup"})] and
     not [k for k, v in res.items()
          if v["Type"] == "AWS::EC2::SecurityGroupIngress" and
          v["Properties"]["GroupId"] == {"Ref": "DatabaseSecurityGroup"}],
     "the database admits the instances on 5432, nothing else")
db = res["DatabaseCluster"]["Properties"]
writer = res["DatabaseWriter"]["Properties"]
ver = tpl["Parameters"]["DatabaseEngineVersion"]
t.ok(db["Engine"] == "aurora-postgresql" and
     db["EngineVersion"] == {"Ref": "DatabaseEngineVersion"} and
     re.fullmatch(ver["AllowedPattern"], ver["Default"]) and
     ver["Default"].startswith("15.") and
     re.fullmatch(ver["AllowedPattern"], "16.4") is None and
     db.get("StorageEncrypted") is True and
     "ServerlessV2ScalingConfiguration" in db and
     writer["DBInstanceClass"] == "db.serverless" and
     writer["DBClusterIdentifier"] == {"Ref": "DatabaseCluster"} and
     writer.get("PubliclyAccessible") is False and
     refs(tpl, res["DatabaseSubnets"]["Properties"]["SubnetIds"], ha) ==
     {"PrivateSubnet", "PrivateSubnet2"},
     "Aurora PostgreSQL 15.x Serverless v2: a cluster and a writer, "
     "encrypted, in the private subnets")
t.ok("DatabaseSecret" in refs(tpl, db["MasterUserPassword"], ha) and
     "{{resolve:secretsmanager:" in db["MasterUserPassword"]["Fn::Sub"],
     "its password comes from the Secrets Manager secret")
rp = res["DatabaseSecretRead"]["Properties"]
t.ok(rp["RoleName"] == {"Ref": "SlipwayRole"} and
     [(st["Effect"], as_list(st["Action"]), as_list(st["Resource"]))
      for st in rp["PolicyDocument"]["Statement"]] ==
     [("Allow", ["secretsmanager:GetSecretValue"],
       [{"Ref": "DatabaseSecret"}])],
     "the instances' role may read exactly that secret, nothing more")
ud = lt["UserData"]["Fn::Base64"]["Fn::Sub"]
t.ok(re.search(r"^listen = 0\.0\.0\.0$", ud, re.M) and
     re.search(r"^database = postgresql://slipway:\$pw@"
               r"\$\{DatabaseCluster\.Endpoint\.Address\}:"
               r"\$\{DatabaseCluster\.Endpoint\.Port\}/slipway\?"
               r"sslmode=verify-full", ud, re.M) and
     "--secret-id ${DatabaseSecret}" in ud and
     "-v /etc/slipway:/etc/slipway:ro" in ud and
     "SLIPWAY_IAM_PERMISSIONS_BOUNDARY=${SlipwayRoleBoundary}" in ud,
     "user data writes listen = 0.0.0.0 and the database URL (TLS "
     "verified) into slipway.conf, which the container reads")
cmd = tpl["Outputs"]["PortForwardThroughLoadBalancer"]["Value"]["Fn::Sub"]
t.ok(cmd.startswith("aws ssm start-session ") and
     "--document-name AWS-StartPortForwardingSessionToRemoteHost" in cmd and
     '"host":["${LoadBalancer.DNSName}"]' in cmd and
     '"portNumber":["3099"]' in cmd and "${InstanceGroup}" in cmd,
     "outputs give the port forward through the load balancer")
t.done()
