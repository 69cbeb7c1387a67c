#!/usr/bin/python3
"""Every CEL rule of every CRD bundle is evaluated, and decides: for each rule,
objects generated from the rule's schema node include one the rule accepts
and one it refuses (transition rules: an old/new pair each way), and no rule
ends in a compile or `no such overload` error.  Then, through the sandbox's
schema check of whole custom resources: message, messageExpression, reason,
fieldPath, transition rules only on update, optionalOldSelf, ratcheting and
the cost budget; and CRDs built from the bundles alone, so a kind added to a
bundle is served."""
import copy
import json
import os
import random
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402

SRC = os.environ.get("SW_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import crdbundle, schema  # noqa: E402
from slipsand.k8s import cel  # noqa: E402
from slipsand.k8s.cel import crd as celcrd  # noqa: E402

t = T()
if not crdbundle.available():
    t.skip_all("no ../shared/testdata/crds beside the project")


def resolve(s):
    return schema.resolve(s)[0]


def rule_nodes():
    """(bundle, kind key, path, node schema, is root, rule) for every rule of every CRD bundle."""
    out = []
    for b in crdbundle.bundle_names():
        doc = crdbundle.load(b)
        if not doc or doc.get("mode") != "crd":
            continue
        for key, root in doc["kinds"].items():
            stack = [(root, "", True)]
            while stack:
                s, path, is_root = stack.pop()
                s = resolve(s)
                for r in s.get("x-kubernetes-validations") or ():
                    out.append((b, key, path or "<root>", s, is_root, r))
                for k, ps in (s.get("properties") or {}).items():
                    stack.append((ps, path + "." + k, False))
                if isinstance(s.get("items"), dict):
                    stack.append((s["items"], path + "[]", False))
                if isinstance(s.get("additionalProperties"), dict):
                    stack.append((s["additionalProperties"], path + "{}", False))
    return out


def gen(s, rnd, pool, depth=0):
    s = resolve(s)
    if s.get("x-kubernetes-int-or-string"):
        return rnd.choice([0, 1, 2] + pool)
    if "enum" in s:
        return rnd.choice(s["enum"])
    t_ = s.get("type")
    props = s.get("properties")
    if t_ == "object" or props:
        out = {}
        req = set(s.get("required") or ())
        for k, ps in (props or {}).items():
            if k in req or (depth < 7 and rnd.random() < 0.5):
                out[k] = gen(ps, rnd, pool, depth + 1)
        add = s.get("additionalProperties")
        if isinstance(add, dict) and depth < 7:
            for _ in range(rnd.choice([0, 1, 2])):
                out[rnd.choice(pool) or "k"] = gen(add, rnd, pool, depth + 1)
        return out
    if t_ == "array":
        n = max(s.get("minItems") or 0, rnd.choice([0, 1, 1, 2, 3]) if depth < 7 else 0)
        items = s.get("items") or {"type": "string"}
        vals = [gen(items, rnd, pool, depth + 1) for _ in range(n)]
        return vals
    if t_ == "string":
        return rnd.choice(pool)
    if t_ == "integer":
        return rnd.choice([0, 1, 2, 3, -1])
    if t_ == "number":
        return rnd.choice([0.0, 1.5])
    if t_ == "boolean":
        return rnd.choice([True, False])
    return rnd.choice(pool)


def outcome(prog, s, is_root, v, old):
    conv = celcrd._Conv(resolve)
    act = {"self": conv.value(s, v, is_root)}
    if prog.uses_old_self:
        act["oldSelf"] = conv.value(s, old, is_root)
    try:
        return prog.eval(act)[0]
    except cel.CelError as e:
        return e


nodes = rule_nodes()
per_bundle = {}
undecided = []
bad = []
for i, (b, key, path, s, is_root, rule) in enumerate(nodes):
    per_bundle[b] = per_bundle.get(b, 0) + 1
    src = rule["rule"]
    try:
        prog = cel.compile(src)
    except cel.CompileError as e:
        bad.append("%s %s %s: %s" % (b, key, path, e))
        continue
    pool = sorted(set(re.findall(r"'([^']*)'|\"([^\"]*)\"", src) and
                      [a or b2 for a, b2 in re.findall(r"'([^']*)'|\"([^\"]*)\"", src)]) | {"", "a", "1"})
    rnd = random.Random(i)
    seen = {}
    for _ in range(3000):
        v = gen(s, rnd, pool)
        old = None
        if prog.uses_old_self:
            old = gen(s, rnd, pool) if rnd.random() < 0.6 else copy.deepcopy(v)
        if "QuotaReserved" in src or "Admitted" in src:
            # these rules only decide once the workload holds quota: give both sides the conditions
            conds = [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}]
            for o in (v, old):
                if isinstance(o, dict) and rnd.random() < 0.8:
                    o.setdefault("status", {})["conditions"] = copy.deepcopy(conds)
        got = outcome(prog, s, is_root, v, old)
        if isinstance(got, cel.CelError):
            if "no such overload" in str(got):
                bad.append("%s %s %s: %s" % (b, key, path, got))
                break
            continue
        seen.setdefault(got, (v, old))
        if True in seen and False in seen:
            break
    if not (True in seen and False in seen):
        undecided.append("%s %s %s: %s (seen %s)" % (b, key, path, src, sorted(map(str, seen))))

t.ok(len(nodes) >= 97, "the CRD bundles hold %d CEL rules (%s)" % (len(nodes), ", ".join(
    "%s %d" % kv for kv in sorted(per_bundle.items()))))
t.ok(not bad, "every rule compiles and evaluates without an overload error")
for line in bad:
    t.diag(line)
t.ok(not undecided, "every rule accepts a generated value and refuses another (%d of %d decided both ways)"
     % (len(nodes) - len(undecided), len(nodes)))
for line in undecided:
    t.diag(line)
done, skipped = schema.cel_rules()
t.eq((done, skipped), (len(nodes), 0), "the start message counts every rule evaluated, none skipped")


# ---- whole custom resources through the sandbox's schema check ---------------------------
def causes(sch, obj, old=None):
    schema.begin_warnings()
    r = schema.check_custom(copy.deepcopy(sch), copy.deepcopy(obj), copy.deepcopy(old))
    return [c.text() for c in r.causes], schema.end_warnings()


S = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
        "mode": {"type": "string", "x-kubernetes-validations": [
            {"rule": "self == oldSelf", "message": "mode is immutable"}]},
        "size": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [
            {"rule": "self.all(x, x.matches('^[a-z]+$'))", "messageExpression":
             "'tags must be lowercase, got ' + string(size(self)) + ' tags'"}]},
        "limit": {"type": "string", "x-kubernetes-validations": [
            {"rule": "isQuantity(self) && quantity(self).isLessThan(quantity('10Gi'))"}]},
        "first": {"type": "string"}, "second": {"type": "string"},
        "replicas": {"type": "integer", "x-kubernetes-validations": [
            {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "optionalOldSelf": True,
             "message": "replicas may only grow"}]}},
        "x-kubernetes-validations": [
            {"rule": "has(self.first) == has(self.second)", "message": "first and second go together",
             "reason": "FieldValueRequired", "fieldPath": ".second"},
            {"rule": "!has(self.size) || self.size < 100", "message": "too big", "reason": "FieldValueForbidden"},
            {"rule": "self.size != 13", "reason": "FieldValueDuplicate"}]}}}
OK = {"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"},
      "spec": {"mode": "fast", "size": 1, "tags": ["ab"], "limit": "1Gi", "replicas": 2}}
errs, _ = causes(S, OK)
t.eq(errs, [], "a valid object passes every rule")
bad = copy.deepcopy(OK)
bad["spec"].update(first="x", size=200, tags=["Ab", "c"], limit="20Gi")
errs, _ = causes(S, bad)
t.ok("spec.second: Required value: first and second go together" in errs,
     "reason FieldValueRequired and fieldPath name the field: %s" % errs)
t.ok("spec: Forbidden: too big" in errs, "reason FieldValueForbidden")
t.ok('spec.tags: Invalid value: "array": tags must be lowercase, got 2 tags' in errs,
     "messageExpression gives the message")
t.ok('spec.limit: Invalid value: "string": failed rule: isQuantity(self) && '
     "quantity(self).isLessThan(quantity('10Gi'))" in errs, "a rule without message: failed rule: <rule>")
bad = copy.deepcopy(OK)
bad["spec"]["size"] = 13
t.eq(causes(S, bad)[0], ['spec: Duplicate value: "object"'], "reason FieldValueDuplicate")
t.eq(causes(S, OK, None)[0], [], "transition rules are skipped on create")
changed = copy.deepcopy(OK)
changed["spec"]["mode"] = "slow"
t.eq(causes(S, changed, OK)[0], ['spec.mode: Invalid value: "string": mode is immutable'],
     "a transition rule refuses an update")
shrink = copy.deepcopy(OK)
shrink["spec"]["replicas"] = 1
t.eq(causes(S, shrink, OK)[0], ['spec.replicas: Invalid value: "integer": replicas may only grow'],
     "optionalOldSelf: oldSelf is an optional on update")
t.eq(causes(S, shrink)[0], [], "optionalOldSelf: the rule runs on create with oldSelf none")
old_bad = copy.deepcopy(OK)
old_bad["spec"]["tags"] = ["Up"]
new = copy.deepcopy(old_bad)
new["metadata"]["labels"] = {"x": "y"}
errs, warns = causes(S, new, old_bad)
t.ok(errs == [] and any("tags must be lowercase" in w for w in warns),
     "ratcheting: an unchanged invalid value is a warning on update, not an error (%s / %s)" % (errs, warns))
ints = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "n": {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [{"rule": "self > 0"}]},
    "xs": {"type": "array", "items": {"type": "integer"}, "x-kubernetes-validations": [
        {"rule": "self.all(a, self.all(b, self.all(c, a + b + c >= 0)))"}]}}}}}
errs, _ = causes(ints, {"spec": {"n": "abc"}})
t.ok(errs and "call arguments did not match a supported operator" in errs[0],
     "a runtime overload error on int-or-string, worded as the apiserver: %s" % errs)
errs, _ = causes(ints, {"spec": {"xs": list(range(200))}})
t.ok(errs and "call cost exceeds limit for rule" in errs[0], "a rule over the per-call cost limit is refused: %s" % errs)

# a real bundle object: Karpenter NodePool, transition rule on update
np_crd = crdbundle.crds("karpenter-v1.14.1")[0]
np_schema = np_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
np = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "np"},
      "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.sagemaker.amazonaws.com",
                                                      "kind": "HyperpodNodeClass", "name": "hp"},
                                     "requirements": [{"key": "node.kubernetes.io/instance-type",
                                                       "operator": "In", "values": ["ml.g5.12xlarge"]}]}}}}
t.eq(causes(np_schema, np)[0], [], "a valid NodePool passes its 18 rules")
static = copy.deepcopy(np)
static["spec"]["replicas"] = 2
errs, _ = causes(np_schema, static, np)
t.ok(any("between static (replicas set) and dynamic" in e for e in errs),
     "NodePool: switching to static replicas on update is refused: %s" % errs)
bad_np = copy.deepcopy(np)
bad_np["spec"]["template"]["spec"]["requirements"][0].update(operator="Gt", values=["x"])
errs, _ = causes(np_schema, bad_np)
t.ok(any("evaluating rule" in e or "single positive integer" in e for e in errs),
     "NodePool: Gt with a non-integer value is refused: %s" % errs)

# ---- bundles read as data: a kind added to a bundle is served ------------------------
tmp = tempfile.mkdtemp()
try:
    src_dir = crdbundle.bundle_dir()
    for f in os.listdir(src_dir):
        if f.endswith(".json"):
            shutil.copy(os.path.join(src_dir, f), tmp)
    with open(os.path.join(tmp, "karpenter-v1.14.1.json")) as f:
        doc = json.load(f)
    extra = copy.deepcopy(doc["kinds"]["karpenter.sh/v1/NodePool"])
    extra["x-crdcheck-crd"] = {"name": "nodeclaims.karpenter.sh", "scope": "Cluster", "storage": True}
    doc["kinds"]["karpenter.sh/v1/NodeClaim"] = extra
    with open(os.path.join(tmp, "karpenter-v1.14.1.json"), "w") as f:
        json.dump(doc, f)
    os.environ["SLIPSAND_CRDS"] = tmp
    crdbundle._cache.clear()
    got = {c["metadata"]["name"]: c for c in crdbundle.crds("karpenter-v1.14.1")}
    nc = got.get("nodeclaims.karpenter.sh")
    t.ok(nc is not None and nc["spec"]["names"]["kind"] == "NodeClaim" and
         nc["spec"]["names"]["plural"] == "nodeclaims" and nc["spec"]["scope"] == "Cluster" and
         nc["spec"]["versions"][0]["storage"], "a kind added to a bundle becomes a CRD from x-crdcheck-crd")
    t.ok("nodepools.karpenter.sh" in got and got["nodepools.karpenter.sh"]["spec"]["names"].get("categories") ==
         ["karpenter"], "the bundle's other kinds keep their upstream names")
    kq = {c["metadata"]["name"]: c for c in crdbundle.crds("kueue-v0.19.2")}
    cq = kq.get("clusterqueues.kueue.x-k8s.io")
    t.ok(cq and [v["name"] for v in cq["spec"]["versions"]] == ["v1beta2", "v1beta1"] and
         cq["spec"]["scope"] == "Cluster", "the storage version comes from the bundle (Kueue v1beta2)")
finally:
    os.environ.pop("SLIPSAND_CRDS", None)
    crdbundle._cache.clear()
    shutil.rmtree(tmp, ignore_errors=True)
t.done()
