#!/usr/bin/python3
"""The sandbox's CEL evaluator passes cel-spec's own conformance tests.

The simple-test files of cel-spec (from @bufbuild/cel-spec, dumped to JSON by
t/lib/cel-spec-dump.mjs) are run through the evaluator: each case's
expression, over its bindings, must give the expected value (same type and
value) or an error where an error is expected.  One line per section with
its counts.  What Kubernetes' CEL environment does not have is left out only
through EXCLUDE below, each entry with its reason; everything else must
pass."""
import base64
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402

SRC = os.environ.get("SW_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import cel  # noqa: E402
from slipsand.k8s.cel.values import (CelType, Duration, Optional, Timestamp, UInt,  # noqa: E402
                                     key_value, map_key, type_name)
from slipsand.k8s.cel import stdlib  # noqa: E402

t = T()
DUMP = os.path.join(SRC, "t", "lib", "cel-spec-dump.mjs")
MODULE = os.path.join(SRC, "t", "node_modules", "@bufbuild", "cel-spec")
if not shutil.which("node") or not os.path.isdir(MODULE):
    t.skip_all("node or @bufbuild/cel-spec missing (./quickstart test installs them)")

PROTO = "protobuf messages: Kubernetes CEL has no protobuf message types"
# Whole files, sections ("file/section") and single cases ("file/section/name") left out, and why.
EXCLUDE = {
    "proto2": PROTO, "proto3": PROTO, "proto2_ext": PROTO,
    "enums": "protobuf enums: Kubernetes CEL has no protobuf enum types",
    "dynamic": "protobuf wrapper, Struct, Value and Any messages: Kubernetes CEL has no protobuf messages",
    "fields/quoted_map_fields": "backquoted field names (a.`b-c`): cel-go 0.22 syntax, kube-apiserver 1.31 has "
                                "cel-go 0.20.1, which refuses a backquote",
    "comparisons/eq_wrapper": "protobuf wrapper messages: Kubernetes CEL has no protobuf messages",
    "math_ext": "the math extension: not in kube-apiserver 1.31's CEL environment",
    "encoders_ext": "the encoders extension (base64): not in kube-apiserver 1.31's CEL environment",
    "block_ext": "cel.@block: an optimizer's internal form, not in kube-apiserver 1.31's CEL environment",
    "macros2": "two-variable comprehensions: added to Kubernetes CEL in 1.32, not in 1.31",
    "type_deductions": "checker output types (deducedType): the sandbox checks names and evaluates; "
                       "it has no type inference to compare",
}
# The files whose cases must run (not all excluded).
COVERED = ("basic", "bindings_ext", "comparisons", "conversions", "fields", "fp_math", "integer_math", "lists",
           "logic", "macros", "namespace", "optionals", "parse", "plumbing", "string", "string_ext", "timestamps")
# Cases of any section that need a protobuf message: a message literal or message-typed value.
MESSAGE_MARKS = ("TestAllTypes", "NestedTestAllTypes", "google.protobuf.", "cel.expr.conformance.")


def excluded(file, section, case):
    for key in (file, file + "/" + section, file + "/" + section + "/" + case["name"]):
        if key in EXCLUDE:
            return EXCLUDE[key]
    blob = json.dumps([case.get("expr"), case.get("bindings"), case.get("value"), case.get("typeEnv"),
                       case.get("container")])
    if any(m in blob for m in MESSAGE_MARKS):
        if "google.protobuf.Duration" in blob or "google.protobuf.Timestamp" in blob:
            rest = blob.replace("google.protobuf.Duration", "").replace("google.protobuf.Timestamp", "")
            if not any(m in rest for m in MESSAGE_MARKS):
                return None
        return PROTO
    if case.get("checkOnly"):
        return "check only: the expectation is the checker's deduced type, not a value"
    return None


class Unsupported(Exception):
    pass


def from_json(v):
    """A cel.expr.Value in proto3 JSON as the evaluator's value."""
    if "nullValue" in v:
        return None
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "int64Value" in v:
        return int(v["int64Value"])
    if "uint64Value" in v:
        return UInt(int(v["uint64Value"]))
    if "doubleValue" in v:
        d = v["doubleValue"]
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(d, d)) \
            if isinstance(d, str) else float(d)
    if "stringValue" in v:
        return v["stringValue"]
    if "bytesValue" in v:
        return base64.b64decode(v["bytesValue"])
    if "listValue" in v:
        return [from_json(x) for x in v["listValue"].get("values", [])]
    if "mapValue" in v:
        return {map_key(from_json(e["key"])): from_json(e["value"]) for e in v["mapValue"].get("entries", [])}
    if "typeValue" in v:
        return CelType(v["typeValue"])
    if "objectValue" in v:
        o = v["objectValue"]
        kind = o.get("@type", "").rsplit("/", 1)[-1]
        if kind == "google.protobuf.Duration":
            return stdlib.parse_duration(o["value"])
        if kind == "google.protobuf.Timestamp":
            return stdlib.parse_timestamp(o["value"])
        raise Unsupported(kind)
    if not v:
        return None  # an unset Value: the null of a message-less world
    raise Unsupported(",".join(v))


def same(got, want):
    """Equal in type and value (NaN equal to NaN), as the conformance runner compares."""
    if type_name(got) != type_name(want) and not (isinstance(got, list) and isinstance(want, list)) \
            and not (isinstance(got, dict) and isinstance(want, dict)):
        return False
    if isinstance(want, float):
        return (math.isnan(got) and math.isnan(want)) or got == want
    if isinstance(want, list):
        return len(got) == len(want) and all(same(a, b) for a, b in zip(got, want))
    if isinstance(want, dict):
        if len(got) != len(want):
            return False
        for k, v in want.items():
            match = [gv for gk, gv in got.items() if same(key_value(gk), key_value(k))]
            if len(match) != 1 or not same(match[0], v):
                return False
        return True
    if isinstance(want, (Duration, Timestamp, CelType, Optional)):
        return got == want
    return got == want


def run(case, with_bind):
    """None when the case passes, else what went wrong."""
    bindings = {k: from_json(b.get("value", {})) for k, b in (case.get("bindings") or {}).items()}
    names = [d["name"] for d in case.get("typeEnv") or () if "ident" in d] + list(bindings)
    want_err = "evalError" in case or "anyEvalErrors" in case
    want = None
    if not want_err:
        # no expectation given means `true`, as the simple-test format says
        want = from_json(case.get("value") or (case.get("typedResult") or {}).get("result") or {"boolValue": True})
    try:
        prog = cel.compile(case["expr"], tuple(dict.fromkeys(names)), container=case.get("container", ""),
                           check=not case.get("disableCheck"), bindings=with_bind)
        got = prog.eval(bindings)[0]
    except (cel.CompileError, cel.CelError) as e:
        if want_err:
            return None
        return "error %s" % e
    except RecursionError:
        return "recursion limit"
    except Exception as e:  # a crash of the evaluator is a failure of the case, not of the run
        return "crash: %s: %s" % (type(e).__name__, e)
    if want_err:
        return "value %r where an error is expected" % (got,)
    if not same(got, want):
        return "got %r, want %r" % (got, want)
    return None


out = subprocess.run(["node", DUMP], cwd=os.path.join(SRC, "t"), capture_output=True, check=True)
sections = json.loads(out.stdout)
sys.setrecursionlimit(20000)
totals = [0, 0, 0]
for sec in sections:
    passed, failed, skipped = 0, [], {}
    for case in sec["tests"]:
        why = excluded(sec["file"], sec["section"], case)
        if why is None:
            try:
                # cel.bind is not in CRD rules' environment (kube-apiserver 1.31 gives it to DRA only):
                # its own file runs with it on, the others as CRD rules compile
                problem = run(case, sec["file"] == "bindings_ext")
            except Unsupported as e:
                problem = "a value the runner cannot read: %s" % e
            if problem is None:
                passed += 1
            else:
                failed.append((case["name"], case["expr"], problem))
            continue
        skipped[why] = skipped.get(why, 0) + 1
    totals[0] += passed
    totals[1] += len(failed)
    totals[2] += sum(skipped.values())
    ran = passed + len(failed)
    name = "%s/%s: %d of %d pass, %d excluded" % (sec["file"], sec["section"], passed, ran,
                                                  sum(skipped.values()))
    if ran == 0:
        t.skip("%s/%s: all %d excluded (%s)" % (sec["file"], sec["section"], sum(skipped.values()),
                                               "; ".join(sorted(skipped))))
        continue
    if not t.ok(not failed, name):
        for n, e, p in failed[:15]:
            t.diag("%s: %s -> %s" % (n, e.replace("\n", " ")[:160], p[:200]))
    for why, n in sorted(skipped.items()):
        t.diag("  excluded %d: %s" % (n, why))
ran_files = {sec["file"] for sec in sections
             if any(excluded(sec["file"], sec["section"], c) is None for c in sec["tests"])}
t.eq(sorted(set(COVERED) - ran_files), [], "every file the sandbox's CEL covers has cases that ran")
t.diag("all sections: %d pass, %d fail, %d excluded" % tuple(totals))
t.done()
