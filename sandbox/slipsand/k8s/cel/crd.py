"""x-kubernetes-validations on custom resources, as kube-apiserver's CEL validator runs them.

`validate(schema, obj, old, resolve)` walks the (pruned, defaulted) object
beside its structural schema and evaluates each rule with `self` bound to
the node, typed by the schema (UnstructuredToVal: format byte/duration/
date-time/date strings become bytes/durations/timestamps, number fields
doubles, set and map lists compare regardless of order, property names
escaped as `__dash__` and so on).  Transition rules (those naming
`oldSelf`) run only on update and only where an old value correlates
(object properties, map values, map-list items with equal keys), unless
`optionalOldSelf` is set, when `oldSelf` is an optional.  Ratcheting: on
update, a failing rule without oldSelf on a value equal to its old value
is a warning, not an error.

Findings are (kind, field, value, detail) tuples, kind in "Invalid value",
"Forbidden", "Required value", "Duplicate value", "Internal error", in the
wording of apiextensions-apiserver's validation.go.  Cost: each rule's
evaluation is capped at PER_CALL_LIMIT; all rules of one object share
RUNTIME_BUDGET; both counted by the interpreter's approximate cost.
"""
import base64
import binascii
import re

from . import PER_CALL_LIMIT, RUNTIME_BUDGET, CompileError, compile
from .values import CelError, CostExceeded, ListValue, NoSuchOverload, ObjectValue, Optional, NONE
from . import stdlib
from .parser import RESERVED

_CEL_RESERVED = RESERVED | {"true", "false", "null", "in"}
_IDENT = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
MAX_MESSAGE = 5 * 1024


def escape(name):
    """A property name as CEL sees it (Kubernetes' escaping), or None when it cannot be named."""
    if name in _CEL_RESERVED:
        return "__%s__" % name
    out = name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__") \
        .replace("/", "__slash__")
    return out if _IDENT.match(out) else None


class _Conv:
    def __init__(self, resolve):
        self.resolve = resolve

    def value(self, s, v, root=False):
        """The CEL value of `v` under schema `s`."""
        s = self.resolve(s)
        if v is None:
            return None
        t = s.get("type")
        if s.get("x-kubernetes-int-or-string"):
            return v
        if isinstance(v, dict):
            props = s.get("properties")
            add = s.get("additionalProperties")
            if props is not None or root or s.get("x-kubernetes-embedded-resource"):
                out = {}
                for k, x in v.items():
                    name = escape(k)
                    if name is None:
                        continue
                    top = root or s.get("x-kubernetes-embedded-resource")
                    if top and k == "metadata" and isinstance(x, dict):
                        # only name and generateName of ObjectMeta are visible to rules
                        out[name] = ObjectValue({m: x[m] for m in ("name", "generateName") if m in x},
                                                "metadata")
                    elif props and k in props:
                        out[name] = self.value(props[k], x)
                    elif top and k in ("apiVersion", "kind"):
                        out[name] = x
                    elif s.get("x-kubernetes-preserve-unknown-fields"):
                        out[name] = _raw(x)
                return ObjectValue(out)
            if isinstance(add, dict):
                return {k: self.value(add, x) for k, x in v.items()}
            return _raw(v)
        if isinstance(v, list):
            items = s.get("items") or {}
            out = [self.value(items, x) for x in v]
            lt = s.get("x-kubernetes-list-type")
            if lt in ("set", "map"):
                return ListValue(out, lt, s.get("x-kubernetes-list-map-keys") or ())
            return out
        if t == "number" and isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        if t == "integer" and isinstance(v, float) and v == int(v):
            return int(v)
        if t == "string" and isinstance(v, str):
            return _formatted(s.get("format"), v)
        return v


def _formatted(fmt, v):
    try:
        if fmt == "byte":
            return base64.b64decode(v.encode(), validate=True)
        if fmt == "duration":
            return stdlib.parse_duration(v)
        if fmt == "date-time":
            return stdlib.parse_timestamp(v)
        if fmt == "date":
            return stdlib.parse_timestamp(v + "T00:00:00Z")
    except (CelError, binascii.Error, ValueError):
        return v
    return v


def _raw(v):
    return v


def _field_path(base, fp):
    """A rule's fieldPath ('.a.b', ".a['x-y']") appended to `base`."""
    parts = []
    for m in re.finditer(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]", fp):
        if m.group(1) is not None:
            parts.append("." + m.group(1))
        else:
            parts.append("[%s]" % m.group(2).replace("\\'", "'"))
    rel = "".join(parts).lstrip(".")
    if not base:
        return rel
    return base + ("" if rel.startswith("[") else ".") + rel


def rule_text(rule):
    return (rule.get("message") or "").strip() or (rule.get("rule") or "").strip()


class Validator:
    def __init__(self, resolve):
        self.resolve = resolve
        self.conv = _Conv(resolve)
        self.budget = RUNTIME_BUDGET
        self.errors = []
        self.warnings = []
        self.stopped = False
        self.evaluated = 0

    def walk(self, s, v, old, path, root, ratchet):
        if self.stopped or v is None:
            return
        s = self.resolve(s)
        rules = list(s.get("x-kubernetes-validations") or ())
        for sub in s.get("allOf") or ():
            rules += list(self.resolve(sub).get("x-kubernetes-validations") or ())
        if rules:
            self.rules(s, rules, v, old, path, root, ratchet)
        if isinstance(v, dict):
            self.children_map(s, v, old, path, ratchet)
        elif isinstance(v, list):
            self.children_list(s, v, old, path, ratchet)

    def children_map(self, s, v, old, path, ratchet):
        props = s.get("properties") or {}
        add = s.get("additionalProperties")
        correlate = isinstance(old, dict) and s.get("x-kubernetes-map-type") != "atomic"
        pre = path + "." if path else ""
        for k, x in v.items():
            child = props.get(k) if k in props else (add if isinstance(add, dict) else None)
            if child is None:
                continue
            cpath = pre + k if k in props else "%s[%s]" % (path, k)
            o = old.get(k) if correlate else None
            r = (o == x) if correlate and o is not None else (ratchet and not correlate)
            self.walk(child, x, o, cpath, self.resolve(child).get("x-kubernetes-embedded-resource"), r)

    def children_list(self, s, v, old, path, ratchet):
        items = s.get("items")
        if items is None:
            return
        keys = s.get("x-kubernetes-list-map-keys") or ()
        by_key = {}
        if s.get("x-kubernetes-list-type") == "map" and keys and isinstance(old, list):
            for o in old:
                if isinstance(o, dict):
                    by_key[tuple(repr(o.get(k)) for k in keys)] = o
        embedded = self.resolve(items).get("x-kubernetes-embedded-resource")
        for i, x in enumerate(v):
            o = by_key.get(tuple(repr(x.get(k)) for k in keys)) if by_key and isinstance(x, dict) else None
            r = (o == x) if o is not None else ratchet
            self.walk(items, x, o, "%s[%d]" % (path, i), embedded, r)

    def rules(self, s, rules, v, old, path, root, ratchet):
        stype = s.get("type") or ""
        this = old_v = None
        for rule in rules:
            src = rule.get("rule") or ""
            if not src.strip():
                continue
            try:
                prog = compile(src)
            except CompileError as e:
                self.errors.append(("Invalid value", path, stype, "rule compile error: compilation failed: %s" % e))
                continue
            optional_old = bool(rule.get("optionalOldSelf"))
            if prog.uses_old_self and old is None and not optional_old:
                continue  # a transition rule: only on update, where an old value correlates
            if this is None:
                this = self.conv.value(s, v, root)
                old_v = self.conv.value(s, old, root) if old is not None else None
            act = {"self": this}
            if prog.uses_old_self or optional_old:
                act["oldSelf"] = (Optional(old_v, True) if old is not None else NONE) if optional_old else old_v
            if self.budget <= 0:
                self.errors.append(("Invalid value", path, stype, "validation failed due to running out of cost "
                                    "budget, no further validation rules will be run"))
                self.stopped = True
                return
            self.evaluated += 1
            try:
                result, cost = prog.eval(act, min(PER_CALL_LIMIT, self.budget + 1))
            except CostExceeded as e:
                if self.budget < PER_CALL_LIMIT:
                    msg = "validation failed due to running out of cost budget, no further validation rules " \
                          "will be run"
                else:
                    msg = "'%s': no further validation rules will be run due to call cost exceeds limit for " \
                          "rule: %s" % (e, rule_text(rule))
                self.errors.append(("Invalid value", path, stype, msg))
                self.stopped = True
                return
            except NoSuchOverload as e:
                self.errors.append(("Invalid value", path, stype, "'%s': call arguments did not match a supported "
                                    "operator, function or macro signature for rule: %s" % (e, rule_text(rule))))
                continue
            except CelError as e:
                self.errors.append(("Invalid value", path, stype, "%s evaluating rule: %s" % (e, rule_text(rule))))
                continue
            self.budget -= cost
            if result is True:
                continue
            if not isinstance(result, bool):
                self.errors.append(("Invalid value", path, stype, "rule result must be a bool, got %s evaluating "
                                    "rule: %s" % (type(result).__name__, rule_text(rule))))
                continue
            field = _field_path(path, rule["fieldPath"]) if rule.get("fieldPath") else path
            detail = self.message(rule, act)
            kind = {"FieldValueForbidden": "Forbidden", "FieldValueRequired": "Required value",
                    "FieldValueDuplicate": "Duplicate value"}.get(rule.get("reason") or "", "Invalid value")
            finding = (kind, field, stype, detail)
            if ratchet and not prog.uses_old_self:
                self.warnings.append(finding)
            else:
                self.errors.append(finding)

    def message(self, rule, act):
        me = rule.get("messageExpression")
        if me:
            try:
                prog = compile(me)
                out, cost = prog.eval(act, min(PER_CALL_LIMIT, self.budget + 1))
                self.budget -= cost
                if isinstance(out, str):
                    out = out.strip()
                    if out and "\n" not in out and len(out) <= MAX_MESSAGE:
                        return out
            except (CompileError, CelError):
                pass
        if (rule.get("message") or "").strip():
            return rule["message"].strip()
        return "failed rule: %s" % rule_text(rule)


def validate(schema, obj, old, resolve):
    """(errors, warnings, rules evaluated) of the CEL rules in `schema` over `obj` (and `old` on update)."""
    v = Validator(resolve)
    v.walk(schema, obj, old, "", True, old is not None and old == obj)
    return v.errors, v.warnings, v.evaluated


def count_rules(schema_doc):
    """(compiled, failed to compile) over every x-kubernetes-validations rule under `schema_doc`."""
    ok = bad = 0
    stack = [schema_doc]
    while stack:
        s = stack.pop()
        if isinstance(s, dict):
            rules = s.get("x-kubernetes-validations")
            if isinstance(rules, list) and all(isinstance(r, dict) and "rule" in r for r in rules):
                for r in rules:
                    try:
                        compile(r["rule"])
                        if r.get("messageExpression"):
                            compile(r["messageExpression"])
                        ok += 1
                    except CompileError:
                        bad += 1
            stack.extend(s.values())
        elif isinstance(s, list):
            stack.extend(s)
    return ok, bad
