"""Botocore service models: loading, wire-to-model mapping and input validation.

Reads the trimmed `service-2.json` files given with --models (stdlib json only)
and checks requests the way the AWS front ends do: required members, types,
enums, length/range and patterns.  Problems come back as a list of
coral-style sentences ("Value null at 'clusterName' failed to satisfy
constraint: Member must not be null"); the protocol layer wraps them in the
right error code.
"""
import datetime
import json
import os
import re

SERVICE_FILES = {
    "sagemaker": "sagemaker.json", "eks": "eks.json", "ec2": "ec2.json",
    "iam": "iam.json", "sts": "sts.json", "s3": "s3.json", "fsx": "fsx.json",
    "cloudformation": "cloudformation.json", "pricing": "pricing.json",
    "sns": "sns.json", "events": "events.json",
}


class TypeProblem(Exception):
    """A value of the wrong JSON type (SerializationException on json protocols)."""


class ServiceModel:
    def __init__(self, data):
        self.data = data
        self.metadata = data.get("metadata", {})
        self.operations = data.get("operations", {})
        self.shapes = data.get("shapes", {})
        self._patterns = {}

    def has(self, op):
        return op in self.operations

    def input_shape(self, op):
        o = self.operations.get(op) or {}
        return (o.get("input") or {}).get("shape")

    def error_code(self, shape_name):
        s = self.shapes.get(shape_name) or {}
        return (s.get("error") or {}).get("code") or shape_name

    # --- wire (query/ec2 form) -> model structure -------------------------
    def from_form(self, op, wire, ec2=False):
        """Turn an unflattened query/ec2 dict into model member names and types."""
        shape = self.input_shape(op)
        if not shape:
            return {}
        return self._from_wire(shape, wire, ec2)

    def _wire_name(self, name, member, ec2):
        if ec2:
            if member.get("queryName"):
                return member["queryName"]
            ln = member.get("locationName")
            if ln:
                return ln[0].upper() + ln[1:]
            return name
        return member.get("locationName") or name

    def _from_wire(self, shape_name, value, ec2):
        shape = self.shapes[shape_name]
        t = shape["type"]
        if t == "structure":
            if not isinstance(value, dict):
                return value
            out = {}
            for name, member in shape.get("members", {}).items():
                wn = self._wire_name(name, member, ec2)
                if wn in value:
                    out[name] = self._from_wire(member["shape"], value[wn], ec2)
            return out
        if t == "list":
            if isinstance(value, dict) and not value:
                return []
            if not isinstance(value, list):
                value = [value]
            return [self._from_wire(shape["member"]["shape"], v, ec2) for v in value]
        if t == "map":
            return value
        if t in ("integer", "long"):
            try:
                return int(value)
            except (TypeError, ValueError):
                return value
        if t in ("float", "double"):
            try:
                return float(value)
            except (TypeError, ValueError):
                return value
        if t == "boolean":
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            return value
        return value

    # --- validation --------------------------------------------------------
    def validate(self, op, params, lower_first=True):
        """Return a list of problem sentences; raise TypeProblem on a type error."""
        shape = self.input_shape(op)
        problems = []
        if shape:
            self._check(shape, params if params is not None else {}, "", problems,
                        lower_first, top=True)
        return problems

    def _path(self, prefix, name, lower_first):
        if lower_first and name:
            name = name[0].lower() + name[1:]
        return prefix + "." + name if prefix else name

    def _pattern(self, pat):
        if pat not in self._patterns:
            try:
                self._patterns[pat] = re.compile(pat, re.S)
            except re.error:
                self._patterns[pat] = None
        return self._patterns[pat]

    def _check(self, shape_name, value, path, problems, lf, top=False):
        shape = self.shapes.get(shape_name)
        if shape is None or value is None:
            return
        t = shape["type"]
        if t == "structure":
            if not isinstance(value, dict):
                raise TypeProblem("Start of structure or map found where not expected at '%s'" % path
                                  if isinstance(value, list) else
                                  "Expected a structure at '%s'" % path)
            members = shape.get("members", {})
            for req in shape.get("required", []):
                if value.get(req) is None:
                    problems.append("Value null at '%s' failed to satisfy constraint: "
                                    "Member must not be null" % self._path(path, req, lf))
            if shape.get("union"):
                present = [k for k in members if value.get(k) is not None]
                if len(present) != 1:
                    problems.append("Value at '%s' failed to satisfy constraint: Exactly one "
                                    "member of the union must be set (got %d)" % (path or "input", len(present)))
            for name, member in members.items():
                if name in value:
                    self._check(member["shape"], value.get(name),
                                self._path(path, name, lf), problems, lf)
            return
        if t == "list":
            if not isinstance(value, list):
                raise TypeProblem("Unexpected value type in payload at '%s'" % path)
            self._length(shape, len(value), value, path, problems, "length")
            for i, item in enumerate(value, 1):
                self._check(shape["member"]["shape"], item, "%s.%d.member" % (path, i), problems, lf)
            return
        if t == "map":
            if not isinstance(value, dict):
                raise TypeProblem("Unexpected value type in payload at '%s'" % path)
            self._length(shape, len(value), value, path, problems, "length")
            for k, v in value.items():
                self._check(shape["key"]["shape"], k, "%s.key" % path, problems, lf)
                self._check(shape["value"]["shape"], v, "%s.value" % path, problems, lf)
            return
        if t == "string":
            if not isinstance(value, str):
                raise TypeProblem("%s can not be converted to a String" % _json_kind(value))
            if "enum" in shape and value not in shape["enum"]:
                problems.append("Value '%s' at '%s' failed to satisfy constraint: Member must "
                                "satisfy enum value set: [%s]" % (value, path, ", ".join(shape["enum"])))
                return
            self._length(shape, len(value), value, path, problems, "length")
            pat = shape.get("pattern")
            if pat:
                rx = self._pattern(pat)
                if rx is not None and not rx.fullmatch(value):
                    problems.append("Value '%s' at '%s' failed to satisfy constraint: Member must "
                                    "satisfy regular expression pattern: %s" % (value, path, pat))
            return
        if t in ("integer", "long"):
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                else:
                    raise TypeProblem("%s can not be converted to an Integer" % _json_kind(value))
            self._length(shape, value, value, path, problems, "value")
            return
        if t in ("float", "double"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeProblem("%s can not be converted to a Double" % _json_kind(value))
            self._length(shape, value, value, path, problems, "value")
            return
        if t == "boolean":
            if not isinstance(value, bool):
                raise TypeProblem("%s can not be converted to a Boolean" % _json_kind(value))
            return
        if t == "timestamp":
            if isinstance(value, bool) or not (isinstance(value, (int, float)) or
                                               (isinstance(value, str) and _parse_ts(value))):
                raise TypeProblem("%s can not be converted to a Timestamp" % _json_kind(value))
            return
        if t == "blob":
            if not isinstance(value, (str, bytes)):
                raise TypeProblem("%s can not be converted to a Blob" % _json_kind(value))

    def _length(self, shape, n, value, path, problems, what):
        shown = value if isinstance(value, (int, float, str)) else "[...]"
        if isinstance(shown, str) and what == "length" and not isinstance(value, str):
            shown = "[...]"
        if "min" in shape and n < shape["min"]:
            problems.append("Value '%s' at '%s' failed to satisfy constraint: Member must have %s "
                            "greater than or equal to %s" % (shown, path, what, shape["min"]))
        if "max" in shape and n > shape["max"]:
            problems.append("Value '%s' at '%s' failed to satisfy constraint: Member must have %s "
                            "less than or equal to %s" % (shown, path, what, shape["max"]))


def _json_kind(v):
    if isinstance(v, bool):
        return "VALUE_TRUE" if v else "VALUE_FALSE"
    if isinstance(v, (int, float)):
        return "NUMBER_VALUE"
    if isinstance(v, str):
        return "STRING_VALUE"
    if isinstance(v, list):
        return "START_ARRAY"
    if isinstance(v, dict):
        return "START_OBJECT"
    return "VALUE_NULL"


def _parse_ts(text):
    for fmt in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%S%z",
                "%Y-%m-%dT%H:%M:%S.%f%z"):
        try:
            return datetime.datetime.strptime(text, fmt)
        except ValueError:
            pass
    try:
        float(text)
        return True
    except ValueError:
        return None


def summarize(problems):
    n = len(problems)
    return "%d validation error%s detected: %s" % (n, "" if n == 1 else "s", "; ".join(problems))


def load_models(directory):
    models = {}
    if not directory or not os.path.isdir(directory):
        return models
    for svc, fname in SERVICE_FILES.items():
        path = os.path.join(directory, fname)
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    models[svc] = ServiceModel(json.load(f))
            except (OSError, ValueError):
                pass
    return models


def unflatten(flat):
    """Turn query/ec2 form keys (A.1.B, A.member.2, M.entry.1.key) into nested data."""
    root = {}
    for key, value in flat.items():
        parts = key.split(".")
        node = root
        for p in parts[:-1]:
            nxt = node.get(p)
            if not isinstance(nxt, dict):
                nxt = {}
                node[p] = nxt
            node = nxt
        last = parts[-1]
        if isinstance(node.get(last), dict):
            continue
        node[last] = value
    return _listify(root)


def _listify(node):
    if not isinstance(node, dict):
        return node
    node = {k: _listify(v) for k, v in node.items()}
    if node and all(k.isdigit() for k in node):
        return [node[k] for k in sorted(node, key=int)]
    if set(node) == {"member"}:
        m = node["member"]
        return m if isinstance(m, list) else [m]
    if set(node) == {"entry"} and isinstance(node["entry"], list):
        return {e.get("key"): e.get("value") for e in node["entry"] if isinstance(e, dict)}
    return node
