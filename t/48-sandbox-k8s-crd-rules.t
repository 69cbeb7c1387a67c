#!/usr/bin/python3
"""The sandbox Kubernetes API applies a CRD's schema and CEL rules the way
apiextensions-apiserver 1.31 does where the other tests do not look:

- writes to the status subresource (PUT, merge and JSON patch, apply) are
  validated as the whole object they make, schema and every CEL rule,
  transition rules against the old object
  (pkg/registry/customresource/status_strategy.go PrepareForUpdate and
  ValidateUpdate); each refusal has a valid twin that is taken;
- a CRD whose x-kubernetes-validations rule or messageExpression does not
  compile is refused at create and at update with 422 Invalid naming the
  rule (pkg/apis/apiextensions/validation/validation.go
  ValidateCustomResourceDefinitionOpenAPISchema), and so is a rule that uses
  cel.bind, which 1.31's base CEL environment lacks
  (k8s.io/apiserver/pkg/cel/environment/base.go)."""
import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("cr", net)
k = sb.kube("cr", sb.kube_token("cr")["token"])
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
MERGE = "application/merge-patch+json"
JSONP = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"


def cause(r, i=0):
    return ((r.json().get("details") or {}).get("causes") or [{}])[i]


def answer(r):
    j = r.json()
    return (r.status, j.get("kind"), j.get("reason"))


SPEC = {"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 0}}}
STATUS = {"type": "object",
          "properties": {"phase": {"type": "string", "enum": ["Pending", "Running", "Done"]},
                         "ready": {"type": "integer"},
                         "generation": {"type": "integer",
                                        "x-kubernetes-validations": [{"rule": "self >= oldSelf",
                                                                      "message": "may not go back"}]}},
          "x-kubernetes-validations": [{"rule": "self.phase != 'Done' || has(self.ready)",
                                        "message": "a Done widget says how many are ready"}]}
ROOT = {"type": "object",
        "properties": {"spec": SPEC, "status": STATUS},
        "x-kubernetes-validations": [{"rule": "!has(self.status) || !has(self.status.ready) || "
                                              "self.status.ready <= self.spec.replicas",
                                      "message": "status.ready exceeds spec.replicas", "fieldPath": ".status.ready"}]}


def crd(name, schema, subresources=True):
    plural = name.split(".")[0]
    kind = plural[:-1].capitalize()
    v = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if subresources:
        v["subresources"] = {"status": {}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": name},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": plural, "singular": plural[:-1], "kind": kind}, "versions": [v]}}


# ---- the status subresource: customresource/status_strategy.go ------------------------------
t.eq(k.req("POST", CRDS, crd("widgets.example.com", ROOT)).status, 201, "CRD with schema, rules and /status")
W = "/apis/example.com/v1/namespaces/default/widgets"
t.ok(wait_for(lambda: k.req("GET", W).status == 200, timeout=60), "its kind is served")
r = k.req("POST", W, {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
                      "spec": {"replicas": 2}})
t.eq(r.status, 201, "a widget is created")

r = k.req("PATCH", W + "/w1/status", {"status": {"phase": "Sideways"}}, ctype=MERGE)
t.eq((answer(r), cause(r).get("field"), cause(r).get("reason")),
     ((422, "Status", "Invalid"), "status.phase", "FieldValueNotSupported"),
     "status_strategy.go ValidateUpdate: a merge patch of /status is checked against the schema (enum)")
t.ok(r.json().get("message", "").startswith('Widget.example.com "w1" is invalid: status.phase: Unsupported value: '
                                            '"Sideways": supported values: "Pending", "Running", "Done"'),
     "the refusal's wording: %s" % r.json().get("message"))
r = k.req("PATCH", W + "/w1/status", {"status": {"phase": "Running", "ready": 1, "generation": 3}}, ctype=MERGE)
t.eq((r.status, r.json().get("status")), (200, {"phase": "Running", "ready": 1, "generation": 3}),
     "status_strategy.go: a valid status patch is taken (twin)")

r = k.req("PATCH", W + "/w1/status", {"status": {"phase": "Done", "ready": None}}, ctype=MERGE)
t.eq((answer(r), cause(r).get("field"), cause(r).get("message")),
     ((422, "Status", "Invalid"), "status", "Invalid value: \"object\": a Done widget says how many are ready"),
     "status_strategy.go ValidateUpdate: a CEL rule on .status runs on a /status write")
r = k.req("PATCH", W + "/w1/status", {"status": {"phase": "Done"}}, ctype=MERGE)
t.eq(r.status, 200, "the same rule holds when ready stays (twin)")

r = k.req("PATCH", W + "/w1/status", {"status": {"generation": 2}}, ctype=MERGE)
t.eq((answer(r), cause(r).get("field"), cause(r).get("message")),
     ((422, "Status", "Invalid"), "status.generation", "Invalid value: \"integer\": may not go back"),
     "status_strategy.go ValidateUpdate: a transition rule compares with the stored status")
r = k.req("PATCH", W + "/w1/status", [{"op": "replace", "path": "/status/generation", "value": 4}], ctype=JSONP)
t.eq((r.status, r.json().get("status", {}).get("generation")), (200, 4),
     "a JSON patch moving it forward is taken (twin)")

r = k.req("PATCH", W + "/w1/status", [{"op": "replace", "path": "/status/ready", "value": 3}], ctype=JSONP)
t.eq((answer(r), cause(r).get("field"), cause(r).get("message")),
     ((422, "Status", "Invalid"), "status.ready", "Invalid value: \"object\": status.ready exceeds spec.replicas"),
     "status_strategy.go ValidateUpdate: a root rule over spec and status runs on the whole object")

cur = k.req("GET", W + "/w1").json()
bad = copy.deepcopy(cur)
bad["status"]["ready"] = "three"
r = k.req("PUT", W + "/w1/status", bad)
t.eq((answer(r), cause(r).get("field")), ((422, "Status", "Invalid"), "status.ready"),
     "status_strategy.go ValidateUpdate: a PUT of /status is checked against the schema (type)")
good = copy.deepcopy(cur)
good["status"]["ready"] = 2
r = k.req("PUT", W + "/w1/status", good)
t.eq((r.status, r.json()["status"]["ready"]), (200, 2), "the PUT with an integer is taken (twin)")

cfg = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
       "status": {"phase": "Lost"}}
r = k.req("PATCH", W + "/w1/status?fieldManager=t&force=true", cfg, ctype=APPLY)
t.eq((answer(r), cause(r).get("field")), ((422, "Status", "Invalid"), "status.phase"),
     "status_strategy.go ValidateUpdate: server-side apply of /status is checked too")
cfg["status"]["phase"] = "Pending"
r = k.req("PATCH", W + "/w1/status?fieldManager=t&force=true", cfg, ctype=APPLY)
t.eq((r.status, r.json()["status"]["phase"]), (200, "Pending"), "the apply with a listed phase is taken (twin)")
t.eq(k.req("GET", W + "/w1").json()["status"]["phase"], "Pending", "and stored")

# ---- CRDs whose rules do not compile: apiextensions validation.go ------------------------------
broken = copy.deepcopy(ROOT)
broken["properties"]["spec"]["x-kubernetes-validations"] = [{"rule": "self.replicas >= 0"},
                                                           {"rule": "self.replicas +", "message": "m"}]
r = k.req("POST", CRDS, crd("gizmos.example.com", broken))
field = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule"
t.eq((answer(r), cause(r).get("field"), cause(r).get("reason")), ((422, "Status", "Invalid"), field,
                                                                  "FieldValueInvalid"),
     "validation.go: a CRD with a rule that does not compile is refused, naming the rule")
msg = r.json().get("message", "")
t.ok(msg.startswith('CustomResourceDefinition.apiextensions.k8s.io "gizmos.example.com" is invalid: ' + field +
                    ': Invalid value: apiextensions.ValidationRule{Rule:"self.replicas +", Message:"m", '
                    'MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", '
                    'OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:16: Syntax error: '),
     "its wording: %s" % msg)
t.ok(msg.endswith("\n | self.replicas +\n | ...............^"), "cel-go's line and caret close it")
t.eq(k.req("GET", CRDS + "/gizmos.example.com").status, 404, "and nothing is stored")

for rule, why in (("size(self.nope())", "undeclared reference to 'nope'"),
                  ("cel.bind(r, self.replicas, r >= 0)", "undeclared reference to 'cel'")):
    b = copy.deepcopy(ROOT)
    b["properties"]["spec"]["x-kubernetes-validations"] = [{"rule": rule}]
    r = k.req("POST", CRDS, crd("gizmos.example.com", b))
    t.ok(r.status == 422 and why in cause(r).get("message", ""),
         "validation.go: %s is refused at create: %s" % (rule, cause(r).get("message")))

b = copy.deepcopy(ROOT)
b["properties"]["spec"]["x-kubernetes-validations"] = [{"rule": "self.replicas >= 0",
                                                       "messageExpression": "'bad: ' + nope(self)"}]
r = k.req("POST", CRDS, crd("gizmos.example.com", b))
t.eq((r.status, cause(r).get("field")),
     (422, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression"),
     "validation.go: a messageExpression that does not compile is refused too")
t.ok("messageExpression compilation failed" in cause(r).get("message", ""), "its detail: %s" % cause(r).get("message"))

two = crd("gizmos.example.com", ROOT)
v2 = copy.deepcopy(two["spec"]["versions"][0])
v2.update(name="v2", storage=False)
v2["schema"]["openAPIV3Schema"] = copy.deepcopy(broken)
two["spec"]["versions"].append(v2)
r = k.req("POST", CRDS, two)
t.eq((r.status, cause(r).get("field")),
     (422, "spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule"),
     "validation.go: with schemas that differ per version the path names the version")

t.eq(k.req("POST", CRDS, crd("gizmos.example.com", ROOT)).status, 201, "the CRD with rules that compile (twin)")
g = k.req("GET", CRDS + "/gizmos.example.com").json()
g["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = broken
r = k.req("PUT", CRDS + "/gizmos.example.com", g)
t.eq((answer(r), cause(r).get("field")), ((422, "Status", "Invalid"), field),
     "validation.go ValidateCustomResourceDefinitionUpdate: an update adding a rule that does not compile is refused")
r = k.req("PATCH", CRDS + "/gizmos.example.com",
          [{"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations",
            "value": [{"rule": "self.replicas <= 100"}]}], ctype=JSONP)
t.eq(r.status, 200, "an update adding a rule that compiles is taken (twin)")
t.done()
