"""OpenAPI and structural-schema checks of objects, as kube-apiserver 1.31 does them.

Two schema sources, both loaded through crdbundle from ../shared:
- built-in kinds: the Kubernetes 1.31 OpenAPI v3 components (`#/components/
  schemas/...` refs resolved across every bundle).  The real server decodes
  these into Go structs, so a wrong type, a bad quantity or bad base64 is a
  400 decoding error, and unknown fields are dropped (with a warning) or, under
  `fieldValidation=Strict`, refused;
- custom resources: the CRD's own `openAPIV3Schema` (structural): types,
  required, enum, pattern, bounds, lengths, int-or-string, nullable,
  preserve-unknown-fields, embedded resources, list-type map/set uniqueness,
  defaults.  Value errors are 422 field causes; unknown fields are pruned.

`check()` walks one object once and returns a Result; the API server decides
from the request (create/update/patch or apply, fieldValidation) what each
finding means.  Resolved schemas are cached per schema node, so the cost per
object is one walk over the object.

CEL rules (`x-kubernetes-validations`) are evaluated after the schema walk by
the CEL evaluator in cel/ (cel/crd.py: self, oldSelf on update, ratcheting,
messageExpression, reason, fieldPath, cost limits); `cel_rules()` counts
them for the start message.
"""
import base64
import binascii
import copy
import json
import re

from . import crdbundle
from .cel import crd as cel_crd

QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
QUANTITY_MSG = ("quantities must match the regular expression "
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
QUANTITY_REF = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INTSTR_REF = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
OBJECTMETA_REF = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
BUILTIN_BUNDLE = "kubernetes-1.31"

# Required in the OpenAPI but defaulted or optional in 1.31's Go validation.
NOT_REQUIRED = {("io.k8s.api.apps.v1.StatefulSetSpec", "serviceName")}

META = {"$ref": "#/components/schemas/" + OBJECTMETA_REF}
STRING = {"type": "string"}
MAX_RESOLVED = 100000  # cached schema nodes; CRD updates add new ones
_components = None
_ROOT_REFS = {}
_resolved = {}
_builtin_roots = None


class GoValue:
    """A value already written the way Go's %#v prints it (maps, structs)."""

    def __init__(self, text):
        self.text = text


def go_map(d, value_type="string"):
    if value_type == "string":
        inner = ", ".join('"%s":"%s"' % (k, v) for k, v in sorted(d.items()))
        return GoValue("map[string]string{%s}" % inner)
    inner = ", ".join('"%s":%s' % (k, json.dumps(v)) for k, v in sorted(d.items()))
    return GoValue("map[string]interface {}{%s}" % inner)


class Cause:
    """One field error, worded like k8s.io/apimachinery/pkg/util/validation/field."""

    REASONS = {"Invalid value": "FieldValueInvalid", "Required value": "FieldValueRequired",
               "Unsupported value": "FieldValueNotSupported", "Duplicate value": "FieldValueDuplicate",
               "Forbidden": "FieldValueForbidden", "Not found": "FieldValueNotFound",
               "Too long": "FieldValueTooLong", "Too many": "FieldValueTooMany",
               "Internal error": "InternalError"}

    def __init__(self, etype, field, value=None, detail="", type_invalid=False, has_value=True):
        self.etype = etype
        self.field = field
        self.value = value
        self.detail = detail
        self.has_value = has_value
        self.reason = "FieldValueTypeInvalid" if type_invalid else self.REASONS[etype]

    def body(self):
        if self.etype in ("Required value", "Forbidden", "Internal error") or not self.has_value:
            s = self.etype
        elif self.etype == "Too long":
            s = self.etype
        else:
            s = "%s: %s" % (self.etype, go_repr(self.value))
        if self.detail:
            s += ": " + self.detail
        return s

    def text(self):
        return "%s: %s" % (self.field, self.body())


def go_repr(v):
    if isinstance(v, GoValue):
        return v.text
    if v is None:
        return '"null"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return go_map(v, "any").text
    return json.dumps(v)


def invalid(field, value, detail):
    return Cause("Invalid value", field, value, detail)


def required(field, detail=""):
    return Cause("Required value", field, detail=detail)


def not_supported(field, value, valid):
    return Cause("Unsupported value", field, value,
                 "supported values: " + ", ".join('"%s"' % v for v in valid))


def duplicate(field, value):
    return Cause("Duplicate value", field, value)


def not_found(field, value):
    return Cause("Not found", field, value)


def forbidden(field, detail):
    return Cause("Forbidden", field, detail=detail)


class Result:
    def __init__(self):
        self.decode = []     # (path, message): built-in decoding errors (400)
        self.apply_type = []  # (ssa path, message): type errors in an apply configuration
        self.unknown = []    # (path, ssa path) of fields the schema does not declare
        self.dup_keys = []   # (ssa path of list, key text): list-type map duplicates
        self.causes = []     # Cause: 422 field errors


def available():
    return crdbundle.available() and crdbundle.load(BUILTIN_BUNDLE) is not None


def components():
    global _components
    if _components is None:
        merged = {}
        for b in crdbundle.bundle_names():
            doc = crdbundle.load(b)
            if doc:
                merged.update(doc.get("components") or {})
        _components = merged
    return _components


def builtin_root(group, version, kind):
    """The component name of a built-in kind, or None when the bundle lacks it."""
    global _builtin_roots
    if _builtin_roots is None:
        _builtin_roots = {}
        doc = crdbundle.load(BUILTIN_BUNDLE)
        for key, s in ((doc or {}).get("kinds") or {}).items():
            ref = s.get("$ref", "")
            _builtin_roots[key] = ref.rsplit("/", 1)[-1]
    key = "%s/%s/%s" % (group, version, kind) if group else "%s/%s" % (version, kind)
    return _builtin_roots.get(key)


def cel_rules():
    """(evaluated, skipped) counts of the CEL rules in every bundle of testdata/crds.

    Every rule compiles with the sandbox's CEL evaluator and is evaluated; a
    rule that does not compile (none in the bundles) counts as skipped.
    """
    done = skipped = 0
    for b in crdbundle.bundle_names():
        doc = crdbundle.load(b)
        if doc and doc.get("mode") == "crd":
            ok, bad = cel_crd.count_rules(doc.get("kinds"))
            done += ok
            skipped += bad
    return done, skipped


def _resolved_schema(s):
    return resolve(s)[0]


def cel_validate(schema, obj, old, r):
    """Evaluate the x-kubernetes-validations of `schema` over `obj` (`old` on update) into `r`."""
    errs, warns, _ = cel_crd.validate(schema, obj, old, _resolved_schema)
    for kind, field, value, detail in errs:
        r.causes.append(_cel_cause(kind, field, value, detail))
    for kind, field, value, detail in warns:
        warn(_cel_cause(kind, field, value, detail).text())


def _cel_cause(kind, field, value, detail):
    if kind == "Duplicate value":
        return Cause(kind, field, value)
    if kind in ("Required value", "Forbidden"):
        return Cause(kind, field, detail=detail)
    return Cause(kind, field, value, detail)


def _ref_name(s):
    ref = s.get("$ref")
    if ref is None and len(s.get("allOf") or ()) == 1 and "$ref" in s["allOf"][0]:
        ref = s["allOf"][0]["$ref"]
    return ref.rsplit("/", 1)[-1] if ref else None


def resolve(s):
    """(schema, component name or None) with `$ref`/`allOf:[{$ref}]` followed; cached."""
    key = id(s)
    hit = _resolved.get(key)
    if hit is not None and hit[0] is s:
        return hit[1], hit[2]
    if len(_resolved) > MAX_RESOLVED:
        _resolved.clear()
    name = _ref_name(s)
    out = s
    if name:
        target = components().get(name)
        if target is None:
            out = {}
        else:
            out, _ = resolve(target)
            extra = {k: v for k, v in s.items() if k not in ("$ref", "allOf")}
            if extra:
                out = dict(out)
                out.update(extra)
    _resolved[key] = (s, out, name)
    return out, name


def _json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _ssa_type(v):
    return {"integer": "numeric (int or float)", "number": "numeric (int or float)", "boolean": "bool",
            "array": "list", "object": "map", "null": "null"}.get(_json_type(v), _json_type(v))


def _go_type(s, name):
    t = s.get("type")
    if name:
        return "v1." + name.rsplit(".", 1)[-1] if name not in (QUANTITY_REF, INTSTR_REF) else (
            "resource.Quantity" if name == QUANTITY_REF else "intstr.IntOrString")
    if t == "integer":
        return s.get("format") or "int"
    if t == "number":
        return "float64"
    if t == "boolean":
        return "bool"
    if t == "array":
        items, iname = resolve(s.get("items") or {})
        return "[]" + _go_type(items, iname)
    if t == "object":
        add = s.get("additionalProperties")
        if isinstance(add, dict):
            a, aname = resolve(add)
            return "map[string]" + _go_type(a, aname)
        return "map[string]interface {}"
    if s.get("format") == "byte":
        return "[]uint8"
    return t or "interface {}"


def _type_ok(t, v):
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v == int(v))
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "boolean":
        return isinstance(v, bool)
    return True


class Walker:
    """One walk over an object: `builtin` picks decoding vs structural-schema semantics."""

    def __init__(self, builtin, result):
        self.builtin = builtin
        self.r = result

    def walk(self, s, v, path, ssa, parent=None):
        """Check `v` against `s`; returns False when the caller must drop the field."""
        s, name = resolve(s)
        r = self.r
        if v is None:
            if self.builtin or s.get("nullable") or s.get("x-kubernetes-preserve-unknown-fields") and not s.get("type"):
                return True
            return False  # non-nullable nulls are pruned (then defaulted)
        if name == QUANTITY_REF or (self.builtin and name is None and s.get("oneOf") and
                                     [o.get("type") for o in s["oneOf"]] == ["string", "number"]):
            self._quantity(v, path, ssa)
            return True
        if name == INTSTR_REF or s.get("x-kubernetes-int-or-string") or s.get("format") == "int-or-string":
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                self._type_error(s, name, v, path, ssa, parent, want="integer or string")
                return True
            self._scalar_checks(s, v, path)
            return True
        t = s.get("type")
        if t and not _type_ok(t, v):
            self._type_error(s, name, v, path, ssa, parent)
            return True
        if isinstance(v, dict):
            self._object(s, name, v, path, ssa)
        elif isinstance(v, list):
            self._array(s, v, path, ssa)
        else:
            if self.builtin and s.get("format") == "byte" and isinstance(v, str):
                try:
                    base64.b64decode(v.encode(), validate=True)
                except (binascii.Error, ValueError):
                    r.decode.append((path, "illegal base64 data at input byte %d" % _bad_b64_offset(v)))
            if not self.builtin:
                self._scalar_checks(s, v, path)
        return True

    def _type_error(self, s, name, v, path, ssa, parent, want=None):
        r = self.r
        want = want or s.get("type")
        r.apply_type.append((ssa, "expected %s, got %s" % (
            {"integer": "numeric (int or float)", "number": "numeric (int or float)",
             "boolean": "bool", "array": "list", "object": "map"}.get(want, want), _ssa_type(v))))
        if self.builtin:
            jt = _json_type(v)
            r.decode.append((path, "json: cannot unmarshal %s into Go struct field %s.%s of type %s" % (
                {"integer": "number", "array": "array", "object": "object", "boolean": "bool"}.get(jt, jt),
                (parent or "Object").rsplit(".", 1)[-1], path, _go_type(s, name))))
        else:
            jt = _json_type(v)
            c = Cause("Invalid value", path, jt, "%s in body must be of type %s: \"%s\"" % (
                path, want if want != "integer or string" else "integer,string", jt), type_invalid=True)
            r.causes.append(c)

    def _quantity(self, v, path, ssa):
        if isinstance(v, bool) or not isinstance(v, (str, int, float)) or (
                isinstance(v, str) and not QUANTITY_RE.match(v.strip() or "x")):
            if self.builtin:
                self.r.decode.append((path, QUANTITY_MSG))
            else:
                self.r.causes.append(invalid(path, v, QUANTITY_MSG))

    def _scalar_checks(self, s, v, path):
        r = self.r
        enum = s.get("enum")
        if enum is not None and v not in enum:
            r.causes.append(not_supported(path, v, enum))
            return
        if isinstance(v, str):
            pat = s.get("pattern")
            if pat is not None and not _regex(pat).search(v):
                r.causes.append(invalid(path, v, "%s in body should match '%s'" % (path, pat)))
            if s.get("maxLength") is not None and len(v) > s["maxLength"]:
                r.causes.append(Cause("Too long", path, v, "may not be longer than %d" % s["maxLength"]))
            if s.get("minLength") is not None and len(v) < s["minLength"]:
                r.causes.append(invalid(path, v, "%s in body should be at least %d chars long" % (
                    path, s["minLength"])))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            mn, mx = s.get("minimum"), s.get("maximum")
            if mn is not None and (v <= mn if s.get("exclusiveMinimum") else v < mn):
                r.causes.append(invalid(path, v, "%s in body should be greater than %s%s" % (
                    path, "" if s.get("exclusiveMinimum") else "or equal to ", _num(mn))))
            if mx is not None and (v >= mx if s.get("exclusiveMaximum") else v > mx):
                r.causes.append(invalid(path, v, "%s in body should be less than %s%s" % (
                    path, "" if s.get("exclusiveMaximum") else "or equal to ", _num(mx))))

    def _object(self, s, name, v, path, ssa):
        r = self.r
        props = s.get("properties")
        add = s.get("additionalProperties")
        preserve = s.get("x-kubernetes-preserve-unknown-fields")
        embedded = s.get("x-kubernetes-embedded-resource")
        pre = path + "." if path else ""
        spre = ssa + "."
        if not self.builtin and props:
            for k, ps in props.items():
                if k not in v or v[k] is None:
                    rs, _ = resolve(ps)
                    if "default" in rs and not (k in v and rs.get("nullable")):
                        v[k] = copy.deepcopy(rs["default"])
        for k in list(v.keys()):
            child = None
            if props and k in props:
                child = props[k]
            elif isinstance(add, dict):
                child = add
            elif embedded and k in ("apiVersion", "kind"):
                child = STRING
            if k == "metadata" and (embedded or not path) and not self.builtin:
                # ObjectMeta is decoded into Go structs even inside a custom resource.
                if isinstance(v[k], dict):
                    Walker(True, r).walk(META, v[k], pre + k, spre + k, "ObjectMeta")
                continue
            if child is None:
                if props is None and add is None and (preserve or self.builtin or not s.get("type")):
                    continue
                if add is True or preserve:
                    continue
                if not path and k in ("apiVersion", "kind", "status"):
                    continue
                r.unknown.append((pre + k, spre + k))
                del v[k]
                continue
            if self.builtin and not path and k == "status":
                continue
            if not self.walk(child, v[k], pre + k, spre + k, name):
                del v[k]
        if s.get("maxProperties") is not None and len(v) > s["maxProperties"]:
            r.causes.append(Cause("Too many", path, len(v), "must have at most %d items" % s["maxProperties"]))
        for k in s.get("required") or ():
            if k not in v and (name, k) not in NOT_REQUIRED:
                r.causes.append(required(pre + k))

    def _array(self, s, v, path, ssa):
        r = self.r
        items = s.get("items")
        lt = s.get("x-kubernetes-list-type")
        keys = s.get("x-kubernetes-list-map-keys") or ()
        seen = {}
        for i, item in enumerate(v):
            if lt == "map" and keys and isinstance(item, dict):
                sel = ",".join('%s=%s' % (k, json.dumps(item.get(k))) for k in keys)
                ipath_ssa = "%s[%s]" % (ssa, sel)
                key = tuple(json.dumps(item.get(k), sort_keys=True) for k in keys)
                if key in seen:
                    r.dup_keys.append((ssa, "[%s]" % sel))
                    if not self.builtin:
                        r.causes.append(duplicate("%s[%d]" % (path, i), go_map(
                            {k: item.get(k) for k in keys if k in item}, "any")))
                seen[key] = i
            elif lt == "set" and not isinstance(item, (dict, list)):
                ipath_ssa = "%s[%d]" % (ssa, i)
                key = json.dumps(item)
                if key in seen:
                    r.dup_keys.append((ssa, "[%s]" % key))
                    if not self.builtin:
                        r.causes.append(duplicate("%s[%d]" % (path, i), item))
                seen[key] = i
            else:
                ipath_ssa = "%s[%d]" % (ssa, i)
            if items is not None:
                if not self.walk(items, item, "%s[%d]" % (path, i), ipath_ssa):
                    v[i] = None
        if not self.builtin:
            if s.get("maxItems") is not None and len(v) > s["maxItems"]:
                r.causes.append(Cause("Too many", path, len(v), "must have at most %d items" % s["maxItems"]))
            if s.get("minItems") is not None and len(v) < s["minItems"]:
                r.causes.append(invalid(path, len(v), "%s in body should have at least %d items" % (
                    path, s["minItems"])))
            enum = s.get("enum")
            if enum is not None and v not in enum:
                r.causes.append(not_supported(path, GoValue(json.dumps(v)), [json.dumps(e) for e in enum]))


_regex_cache = {}


def _regex(p):
    rx = _regex_cache.get(p)
    if rx is None:
        rx = _regex_cache[p] = re.compile(p)
    return rx


def _num(n):
    return str(int(n)) if isinstance(n, float) and n == int(n) else str(n)


def _bad_b64_offset(v):
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    for i, ch in enumerate(v):
        if ch == "=":
            return i if (len(v) % 4) else i
        if ch not in alphabet:
            return i
    return len(v) - len(v) % 4


def check_builtin(group, version, kind, obj):
    """Walk a built-in object against the 1.31 OpenAPI; None when the bundle lacks the kind."""
    root = builtin_root(group, version, kind)
    if root is None or components().get(root) is None:
        return None
    r = Result()
    ref = _ROOT_REFS.get(root)
    if ref is None:
        ref = _ROOT_REFS[root] = {"$ref": "#/components/schemas/" + root}
    Walker(True, r).walk(ref, obj, "", "")
    return r


def check_custom(schema, obj, old=None):
    """Walk a custom resource against its version's openAPIV3Schema (prunes, defaults), then run
    its CEL rules over the result (`old`: the stored object on update, for transition rules)."""
    r = Result()
    if not schema:
        return r
    w = Walker(False, r)
    w.walk(schema, obj, "", "")
    cel_validate(schema, obj, old, r)
    return r


# --- warnings of the request being served (Warning: 299 headers) ----------------------
import threading  # noqa: E402

_tls = threading.local()


def begin_warnings():
    _tls.warnings = []


def warn(text):
    w = getattr(_tls, "warnings", None)
    if w is not None and text not in w:
        w.append(text)


def end_warnings():
    w = getattr(_tls, "warnings", None) or []
    _tls.warnings = None
    return w
