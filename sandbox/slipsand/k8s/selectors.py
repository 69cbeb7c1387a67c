"""Label and field selectors of list and watch requests, parsed as kube-apiserver parses them.

Label selectors follow k8s.io/apimachinery/pkg/labels/selector.go: a lexer
of identifiers and the operators = == != ! in notin ( ) , > <, a
recursive-descent parser, and NewRequirement's checks (one value for the
exact-match operators, at least one for in/notin, keys that are qualified
names, values that are label values).  Errors carry the upstream wording
("unable to parse requirement: found '...', expected: ...").

Field selectors follow k8s.io/apimachinery/pkg/fields/selector.go
(`=`, `==`, `!=`, backslash escapes) and only the fields each kind
registers as selectable: pkg/apis/core/v1/conversion.go (pods, nodes,
events, namespaces, secrets, replication controllers), the apps and batch
conversions (replicasets status.replicas, jobs status.successful),
runtime.DefaultMetaV1FieldSelectorConversion for every other built-in
kind, and a CRD's spec.versions[].selectableFields for custom resources.
"""
import re

from .admission import LABEL_VALUE, LABEL_VALUE_MSG, _qualified_name


class SelectorError(Exception):
    """A selector the server refuses: 400 BadRequest with this message."""


# --- label selectors: lexer --------------------------------------------------------
_TOKENS = {")": "ClosedPar", ",": "Comma", "!": "DoesNotExist", "==": "DoubleEquals", "=": "Equals",
           ">": "GreaterThan", "in": "In", "<": "LessThan", "!=": "NotEquals", "notin": "NotIn", "(": "OpenPar"}
_SPECIAL = set("=!(),><")
_WHITE = set(" \t\r\n")


def _lex(s):
    items, pos, n = [], 0, len(s)
    while True:
        while pos < n and s[pos] in _WHITE:
            pos += 1
        if pos >= n:
            items.append(("EndOfString", ""))
            return items
        if s[pos] in _SPECIAL:
            buf, last = "", None
            while pos < n and s[pos] in _SPECIAL:
                if buf + s[pos] in _TOKENS:
                    buf += s[pos]
                    last = (_TOKENS[buf], buf)
                    pos += 1
                elif last is not None:
                    break
                else:
                    buf += s[pos]
                    pos += 1
            items.append(last or ("Error", "error expected: keyword found '%s'" % buf))
            continue
        start = pos
        while pos < n and s[pos] not in _SPECIAL and s[pos] not in _WHITE:
            pos += 1
        word = s[start:pos]
        items.append((_TOKENS[word], word) if word in _TOKENS else ("Identifier", word))


class _Parser:
    def __init__(self, text):
        self.items = _lex(text)
        self.pos = 0

    def look(self, values=True):
        tok, lit = self.items[self.pos]
        if values and tok in ("In", "NotIn"):
            tok = "Identifier"
        return tok, lit

    def take(self, values=True):
        tok, lit = self.look(values)
        self.pos += 1
        return tok, lit

    def parse(self):
        reqs = []
        while True:
            tok, lit = self.look()
            if tok in ("Identifier", "DoesNotExist"):
                try:
                    reqs.append(self.requirement())
                except SelectorError as e:
                    raise SelectorError("unable to parse requirement: %s" % e)
                t, lit2 = self.take()
                if t == "EndOfString":
                    return reqs
                if t == "Comma":
                    t2, l2 = self.look()
                    if t2 not in ("Identifier", "DoesNotExist"):
                        raise SelectorError("found '%s', expected: identifier after ','" % l2)
                    continue
                raise SelectorError("found '%s', expected: ',' or 'end of string'" % lit2)
            if tok == "EndOfString":
                return reqs
            raise SelectorError("found '%s', expected: !, identifier, or 'end of string'" % lit)

    def requirement(self):
        op = None
        tok, key = self.take()
        if tok == "DoesNotExist":
            op = "!"
            tok, key = self.take()
        if tok != "Identifier":
            raise SelectorError("found '%s', expected: identifier" % key)
        err = _qualified_name(key)
        if err:
            raise SelectorError('<nil>: Invalid value: "%s": %s' % (key, err))
        if op == "!" or self.look()[0] in ("EndOfString", "Comma"):
            return _new_requirement(key, op or "exists", [])
        tok, lit = self.take(values=False)
        ops = {"In": "in", "NotIn": "notin", "Equals": "=", "DoubleEquals": "=", "NotEquals": "!=",
               "GreaterThan": "gt", "LessThan": "lt"}
        if tok not in ops:
            raise SelectorError("found '%s', expected: '=', '!=', '==', 'in', notin'" % lit)
        op = ops[tok]
        values = self.values() if op in ("in", "notin") else self.exact_value()
        return _new_requirement(key, op, sorted(values))

    def values(self):
        tok, lit = self.take()
        if tok != "OpenPar":
            raise SelectorError("found '%s' expected: '('" % lit)
        tok, lit = self.look()
        if tok == "ClosedPar":
            self.take()
            return {""}
        if tok not in ("Identifier", "Comma"):
            raise SelectorError("found '%s', expected: ',', ')' or identifier" % lit)
        out = set()
        while True:
            tok, lit = self.take()
            if tok == "Identifier":
                out.add(lit)
                t2, l2 = self.look()
                if t2 == "Comma":
                    continue
                if t2 == "ClosedPar":
                    break
                raise SelectorError("found '%s', expected: ',' or ')'" % l2)
            if tok == "Comma":
                out.add("") if not out else None
                t2, _ = self.look()
                if t2 == "ClosedPar":
                    out.add("")
                    break
                if t2 == "Comma":
                    self.take()
                    out.add("")
                continue
            raise SelectorError("found '%s', expected: ',', or identifier" % lit)
        tok, _ = self.take()
        if tok != "ClosedPar":
            raise SelectorError("found '%s', expected: ')'" % lit)
        return out

    def exact_value(self):
        tok, _ = self.look()
        if tok in ("EndOfString", "Comma"):
            return {""}
        tok, lit = self.take()
        if tok == "Identifier":
            return {lit}
        raise SelectorError("found '%s', expected: identifier" % lit)


def _new_requirement(key, op, values):
    """NewRequirement's checks on the values (labels/selector.go)."""
    errs = []
    if op in ("in", "notin") and not values:
        errs.append("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty")
    if op in ("gt", "lt"):
        for i, v in enumerate(values):
            if not re.match(r"^[+-]?[0-9]+$", v):
                errs.append('values[%d]: Invalid value: "%s": for \'Gt\', \'Lt\' operators, the value must be '
                            'an integer' % (i, v))
    for i, v in enumerate(values):
        if len(v) > 63:
            errs.append('values[%d][%s]: Invalid value: "%s": must be no more than 63 characters' % (i, key, v))
        elif not LABEL_VALUE.match(v):
            errs.append('values[%d][%s]: Invalid value: "%s": %s' % (i, key, v, LABEL_VALUE_MSG))
    if errs:
        raise SelectorError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
    return (key, op, values)


def parse_labels(text):
    """A label selector string -> [(key, op, values)], op one of = != in notin exists ! gt lt."""
    if not text:
        return []
    return _Parser(text).parse()


def labels_match(reqs, labels):
    for key, op, vals in reqs:
        has = key in labels
        v = labels.get(key)
        if op == "=" and v != vals[0]:
            return False
        if op == "!=" and has and v == vals[0]:
            return False
        if op == "in" and (not has or v not in vals):
            return False
        if op == "notin" and has and v in vals:
            return False
        if op == "exists" and not has:
            return False
        if op == "!" and has:
            return False
        if op in ("gt", "lt"):
            try:
                n, lim = int(v), int(vals[0])
            except (TypeError, ValueError):
                return False
            if (op == "gt" and not n > lim) or (op == "lt" and not n < lim):
                return False
    return True


# --- field selectors ------------------------------------------------------------------
_META = ("metadata.name", "metadata.namespace")
SELECTABLE = {
    ("", "pods"): _META + ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                           "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
                           "status.nominatedNodeName"),
    ("", "nodes"): ("metadata.name", "spec.unschedulable"),
    ("", "events"): _META + ("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                             "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                             "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"),
    ("", "namespaces"): ("metadata.name", "status.phase"),
    ("", "secrets"): _META + ("type",),
    ("", "replicationcontrollers"): _META + ("status.replicas",),
    ("apps", "replicasets"): _META + ("status.replicas",),
    ("batch", "jobs"): _META + ("status.successful",),
    ("certificates.k8s.io", "certificatesigningrequests"): _META + ("spec.signerName",),
}
# Kinds whose conversion says "field label not supported"; the rest use
# DefaultMetaV1FieldSelectorConversion's wording.
_OWN_WORDING = {("", "pods"), ("", "nodes"), ("", "events"), ("", "namespaces"), ("", "secrets"),
                ("", "replicationcontrollers"), ("apps", "replicasets"), ("batch", "jobs"),
                ("certificates.k8s.io", "certificatesigningrequests")}


def _split_unescaped(text, sep):
    parts, cur, esc = [], "", False
    for ch in text:
        if esc:
            cur += "\\" + ch
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == sep:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur + ("\\" if esc else ""))
    return parts


def _unescape(value, whole):
    out, esc = "", False
    for ch in value:
        if esc:
            if ch not in "\\,=":
                raise SelectorError("invalid field selector: invalid escape sequence: \\%s" % ch)
            out += ch
            esc = False
        elif ch == "\\":
            esc = True
        else:
            out += ch
    if esc:
        raise SelectorError("invalid field selector: unterminated escape sequence")
    return out


def parse_fields(text, group="", plural="", custom_fields=None):
    """A field selector string -> [(path, equal?, value)], checked against what the kind can select."""
    out = []
    if not text:
        return out
    for part in _split_unescaped(text, ","):
        if part == "":
            continue
        m = None
        for op in ("!=", "==", "="):
            idx = _find_op(part, op)
            if idx is not None:
                m = (part[:idx], op, part[idx + len(op):])
                break
        if m is None:
            raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (text, part))
        key, op, value = m
        out.append((key.strip(), op != "!=", _unescape(value, text)))
    for key, _, _ in out:
        _check_field(key, group, plural, custom_fields)
    return out


def _find_op(part, op):
    i, esc = 0, False
    while i < len(part):
        if esc:
            esc = False
        elif part[i] == "\\":
            esc = True
        elif part.startswith(op, i):
            if op == "=" and i > 0 and part[i - 1] in "!=":
                i += 1
                continue
            return i
        i += 1
    return None


def _check_field(key, group, plural, custom_fields):
    if custom_fields is not None:
        # apiextensions-apiserver: the CRD's selectable fields, else
        # DefaultMetaV1FieldSelectorConversion.
        if key in _META or key in custom_fields:
            return
        raise SelectorError('"%s" is not a known field selector: only "metadata.name", "metadata.namespace"' % key)
    allowed = SELECTABLE.get((group, plural), _META)
    if key in allowed:
        return
    if (group, plural) in _OWN_WORDING:
        raise SelectorError("field label not supported: %s" % key)
    raise SelectorError('"%s" is not a known field selector: only "metadata.name", "metadata.namespace"' % key)


# Fields whose Go type is a bool or an int: an unset one reads as its zero value.
_ZERO = {"spec.hostNetwork": "false", "spec.unschedulable": "false", "status.replicas": "0",
         "status.successful": "0"}


def field_value(obj, path):
    if path == "source":  # events: the reporting component
        return str(((obj.get("source") or {}).get("component")) or "")
    cur = obj
    for p in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(p)
    if isinstance(cur, bool):
        return "true" if cur else "false"
    if isinstance(cur, list):  # status.podIPs: any of them
        return [str(x.get("ip") if isinstance(x, dict) else x) for x in cur]
    return _ZERO.get(path, "") if cur is None else str(cur)


def fields_match(reqs, obj):
    for path, eq, val in reqs:
        have = field_value(obj, path)
        hit = (val in have) if isinstance(have, list) else (have == val)
        if hit != eq:
            return False
    return True
