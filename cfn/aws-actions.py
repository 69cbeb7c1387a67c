#!/usr/bin/python3
# aws-actions.py: derive, from the C sources, every IAM action Slipway's
# own code can make AWS authorise, so that the CloudFormation policy
# (cfn/slipway.yaml, checked by t/17-cfn.t) and `slipway doctor` (which
# simulates them) follow the code instead of a list kept by hand.
#
#   cfn/aws-actions.py SRCDIR [MODELDIR]     one "service:Action" a line
#   cfn/aws-actions.py --explain SRCDIR      ... with where each comes from
#
# How the actions are found:
#  1. a call whose argument after an `enum aws_service` is the operation:
#     every function declared `(..., enum aws_service svc, const char *op,`
#     (aws_call, sw_step_aws, h_call, ...).  A literal operation is taken
#     as it is.  A variable is resolved inside its function: the string
#     literals there that are operations of that service (from its model,
#     or a verb and a noun where there is none); when it is the function's own
#     parameter, the literals its callers pass in that position.  A call
#     site that cannot be resolved is an error, never silently skipped.
#  2. the typed calls of cloud/aws_api.h (aws_s3_head_bucket, ...) called
#     from outside cloud/: the operation is the function name in CamelCase,
#     checked against the service's model.
#  3. what AWS authorises besides the call itself, from the call's input:
#     tags on create (TagSpecifications/Tags/tags), iam:PassRole for a
#     role ARN member, and the service-linked role a first create makes.
#
# The IAM action is "<signing name>:<Operation>" except for the S3
# operations IAM names differently (table S3_ACTION below).
import json
import os
import re
import sys

SOURCE_DIRS = ("lib", "cloud", "api", "mcp", "handlers", "pipelines", "cli", "poller", "cgi")

# S3 API operations whose IAM action has another name (Amazon S3 user
# guide, "Policy actions for Amazon S3").
S3_ACTION = {
    "HeadBucket": "ListBucket",
    "ListObjectsV2": "ListBucket",
    "ListObjects": "ListBucket",
    "HeadObject": "GetObject",
    "DeleteObjects": "DeleteObject",
}

# AWS authorises these without an IAM permission.
NEEDS_NO_PERMISSION = {"sts:GetCallerIdentity"}

# Which action tags a resource on create, per IAM prefix (for IAM the
# resource's own Tag<Resource> action).
TAG_ACTION = {
    "ec2": lambda op: "ec2:CreateTags",
    "eks": lambda op: "eks:TagResource",
    "sagemaker": lambda op: "sagemaker:AddTags",
    "fsx": lambda op: "fsx:TagResource",
    "iam": lambda op: "iam:Tag" + op[len("Create"):],
}

# Input members that name a role AWS will assume: passing one is
# iam:PassRole.
ROLE_MEMBERS = ("roleArn", "RoleArn", "ExecutionRole", "ClusterRole",
                "serviceAccountRoleArn", "nodeRole")

# A first create in an account makes the service's service-linked role.
SERVICE_LINKED = {
    "eks:CreateCluster": "eks.amazonaws.com",
    "sagemaker:CreateCluster": "sagemaker.amazonaws.com",
    "fsx:CreateFileSystem": "fsx.amazonaws.com",
}

# The verbs AWS operation names start with, for a service without model.
VERBS = ("Add", "Allocate", "Associate", "Attach", "Authorize", "Batch",
         "Create", "Delete", "Deregister", "Describe", "Detach",
         "Disassociate", "Get", "Head", "List", "Modify", "Put", "Register",
         "Release", "Remove", "Replace", "Revoke", "Simulate", "Start",
         "Stop", "Tag", "Untag", "Update")

MODEL_FILE = {"sts": "sts", "ec2": "ec2", "iam": "iam", "eks": "eks",
              "sagemaker": "sagemaker", "s3": "s3", "fsx": "fsx"}


def strip_comments(src):
    """C source with comments blanked (newlines kept for line numbers)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, src, flags=re.S)


def services(srcdir):
    """enum name (EC2) -> (model id, IAM prefix) from cloud/aws.c."""
    src = open(os.path.join(srcdir, "cloud", "aws.c")).read()
    out = {}
    for m in re.finditer(r'\[AWS_SVC_(\w+)\]\s*=\s*\{\s*"([^"]+)"\s*,'
                         r'\s*"[^"]*"\s*,\s*"[^"]*"\s*,\s*"([^"]+)"', src):
        out[m.group(1)] = (m.group(2), m.group(3))
    if not out:
        raise SystemExit("aws-actions: no service table in cloud/aws.c")
    return out


def model_ops(modeldir, svc_id):
    name = MODEL_FILE.get(svc_id)
    if modeldir is None or name is None:
        return None
    path = os.path.join(modeldir, name + ".json")
    if not os.path.exists(path):
        return None
    return set(json.load(open(path)).get("operations", {}))


def sandbox_has(srcdir, svc_id, op):
    """The trimmed models keep only some operations (S3 has no
    DeleteBucket there); the sandbox serves the others by their real
    names, so an operation it implements is a real one."""
    path = os.path.join(srcdir, "sandbox", "slipsand", "services",
                        svc_id + ".py")
    if not os.path.exists(path):
        return False
    return re.search(r"def op_%s\(" % op, open(path).read()) is not None


def call_args(src, open_paren):
    """Text of a call's arguments, from the '(' to its matching ')'."""
    depth = 0
    i = open_paren
    while i < len(src):
        c = src[i]
        if c == '"':
            i += 1
            while i < len(src) and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return src[open_paren + 1:i]
        i += 1
    return src[open_paren + 1:]


def split_args(args):
    """Top-level comma split of an argument list."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(args):
        c = args[i]
        if c == '"':
            j = i + 1
            while j < len(args) and args[j] != '"':
                j += 2 if args[j] == "\\" else 1
            cur += args[i:j + 1]
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def functions(src):
    """(name, params, body start, body end) of each function definition."""
    out = []
    for m in re.finditer(r"^(\w+)\(([^;{}]*?)\)\s*\n\{", src, re.M):
        start = m.end() - 1
        depth, i = 0, start
        while i < len(src):
            if src[i] == "{":
                depth += 1
            elif src[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.append((m.group(1), m.group(2), start, i))
    return out


def enclosing(funcs, pos):
    for f in funcs:
        if f[2] <= pos <= f[3]:
            return f
    return None


def param_index(params, name):
    for i, p in enumerate(split_args(params)):
        if re.search(r"\b%s$" % re.escape(name), p.strip()):
            return i
    return None


def derive(srcdir, modeldir=None):
    """{action: [reason, ...]}; raises SystemExit on a call it cannot
    resolve."""
    svcs = services(srcdir)
    files = {}
    for d in SOURCE_DIRS:
        p = os.path.join(srcdir, d)
        if not os.path.isdir(p):
            continue
        for f in sorted(os.listdir(p)):
            if f.endswith(".c") or f.endswith(".h"):
                rel = os.path.join(d, f)
                files[rel] = strip_comments(open(os.path.join(p, f)).read())
    # Functions taking (enum aws_service, const char *op): the callers.
    callers = set()
    for text in files.values():
        for m in re.finditer(r"\b(\w+)\s*\([^;{)]*enum aws_service\s*\w*\s*,"
                             r"\s*const char\s*\*\s*\w+", text):
            callers.add(m.group(1))
    acts = {}
    errors = []

    def add(action, why):
        acts.setdefault(action, []).append(why)

    def literals(text):
        return re.findall(r'"([A-Z][A-Za-z0-9]+)"', text)

    def is_op(svc, name):
        ops = model_ops(modeldir, svcs[svc][0])
        if ops is not None:
            return name in ops
        # no model (Service Quotas; a tree without ../shared): an AWS
        # operation is a verb and a noun
        # ... but never a state such as CreateFailed or UpdateInProgress
        return re.match(r"^(%s)[A-Z][A-Za-z0-9]*$" % "|".join(VERBS),
                        name) is not None and re.search(
            r"(Failed|InProgress|Complete|Completed|Succeeded|Pending)$",
            name) is None

    def action_of(svc, op):
        prefix = svcs[svc][1]
        if prefix == "s3":
            op = S3_ACTION.get(op, op)
        return prefix + ":" + op

    def implied(svc, op, args, where):
        prefix = svcs[svc][1]
        action = prefix + ":" + op
        if op.startswith("Create") or op.startswith("Allocate"):
            if re.search(r'"(TagSpecifications|Tags|tags)"', args) and \
                    prefix in TAG_ACTION:
                add(TAG_ACTION[prefix](op), "tags on %s (%s)" % (op, where))
        if action in SERVICE_LINKED:
            add("iam:CreateServiceLinkedRole",
                "first %s makes the %s service-linked role" %
                (action, SERVICE_LINKED[action]))

    def resolve_var(rel, text, funcs, pos, svc, var, depth=0):
        """Operation names a variable can hold at a call site."""
        f = enclosing(funcs, pos)
        if f is None:
            return []
        body = text[f[2]:f[3]]
        found = [x for x in literals(body) if is_op(svc, x)]
        if found:
            return found
        idx = param_index(f[1], var)
        if idx is None or depth > 3:
            return []
        # the callers of this wrapper pass the operation in position idx
        out = []
        for crel, ctext in files.items():
            cfuncs = functions(ctext)
            for m in re.finditer(r"\b%s\s*\(" % re.escape(f[0]), ctext):
                a = split_args(call_args(ctext, m.end() - 1))
                if len(a) <= idx or m.start() == f[2] - len(f[0]) - 1:
                    continue
                arg = a[idx]
                lm = re.match(r'^"(\w+)"$', arg)
                if lm:
                    out.append(lm.group(1))
                elif re.match(r"^\w+$", arg):
                    out += resolve_var(crel, ctext, cfuncs, m.start(), svc,
                                       arg, depth + 1)
        return out

    for rel, text in files.items():
        funcs = functions(text)
        for m in re.finditer(r"\b(\w+)\s*\(", text):
            if m.group(1) not in callers:
                continue
            args = call_args(text, m.end() - 1)
            a = split_args(args)
            for i in range(len(a) - 1):
                sm = re.match(r"^AWS_SVC_(\w+)$", a[i])
                if sm is None:
                    continue
                svc = sm.group(1)
                if svc not in svcs:
                    errors.append("%s: unknown service %s" % (rel, svc))
                    continue
                line = text[:m.start()].count("\n") + 1
                where = "%s:%d" % (rel, line)
                lm = re.match(r'^"(\w+)"$', a[i + 1])
                if lm:
                    ops = [lm.group(1)]
                else:
                    ops = resolve_var(rel, text, funcs, m.start(), svc,
                                      a[i + 1])
                    if not ops:
                        errors.append("%s: cannot tell which %s operation "
                                      "%s holds" % (where, svc, a[i + 1]))
                for op in ops:
                    add(action_of(svc, op), where)
                    implied(svc, op, args, where)
    # A role ARN member written anywhere into a request is a role passed.
    for rel, text in files.items():
        for m in re.finditer(r'"(%s)"\s*,' % "|".join(ROLE_MEMBERS), text):
            add("iam:PassRole", "%s:%d sends %s" % (
                rel, text[:m.start()].count("\n") + 1, m.group(1)))
    # Typed calls (cloud/aws_api.h) used above cloud/aws_*.c.
    api = files.get(os.path.join("cloud", "aws_api.h"), "")
    typed = set(re.findall(r"\baws_(sts|s3|eks|ec2|iam)_(\w+)\s*\(", api))
    for svc_id, fn in sorted(typed):
        svc = [k for k, v in svcs.items() if v[0] == svc_id][0]
        op = "".join(w.capitalize() for w in fn.split("_"))
        op = re.sub(r"V(\d)$", r"V\1", op)
        for rel, text in files.items():
            if re.match(r"cloud/aws_\w+\.c$", rel):
                continue
            for m in re.finditer(r"\baws_%s_%s\s*\(" % (svc_id, fn), text):
                if rel.endswith(".h"):
                    continue
                where = "%s:%d" % (rel, text[:m.start()].count("\n") + 1)
                if svc_id == "eks" and fn == "cluster_access":
                    op2 = "DescribeCluster"
                else:
                    op2 = op
                ops = model_ops(modeldir, svc_id)
                if ops is not None and op2 not in ops and \
                        not sandbox_has(srcdir, svc_id, op2):
                    errors.append("%s: aws_%s_%s is no %s operation (%s)" %
                                  (where, svc_id, fn, svc_id, op2))
                    continue
                add(action_of(svc, op2), where)
    if errors:
        raise SystemExit("aws-actions: " + "\n  ".join(errors))
    for a in NEEDS_NO_PERMISSION:
        acts.pop(a, None)
    return acts


def main(argv):
    explain = "--explain" in argv
    argv = [a for a in argv if a != "--explain"]
    if len(argv) < 2:
        raise SystemExit("usage: aws-actions.py [--explain] SRCDIR "
                         "[MODELDIR]")
    srcdir = argv[1]
    modeldir = argv[2] if len(argv) > 2 else os.path.join(
        srcdir, "..", "shared", "testdata", "aws-models")
    if not os.path.isdir(modeldir):
        modeldir = None
    acts = derive(srcdir, modeldir)
    for a in sorted(acts):
        if explain:
            print("%s\t%s" % (a, "; ".join(sorted(set(acts[a]))[:3])))
        else:
            print(a)


if __name__ == "__main__":
    main(sys.argv)
