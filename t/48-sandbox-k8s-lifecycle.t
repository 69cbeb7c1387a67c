#!/usr/bin/python3
"""The sandbox Kubernetes API keeps kube-apiserver's object lifecycle, request
and Go-side validation rules, and the kubelet's image pulls.

Every behaviour is checked with a refused case and its valid twin, and each
assertion names the Kubernetes source file it follows (k8s.io/apiserver,
k8s.io/apimachinery, pkg/apis/*/validation, pkg/registry, kubelet).  The
answers must have the real server's Status shape: code, reason, message,
details.causes.  Then some of the same through the real kubectl."""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, find_kubectl, run, wait_for  # noqa: E402

SRC = os.environ.get("SW_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import images  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("lc", net)
sb.hyperpod("lc-hp", eks["arn"], net, [("gpu", "ml.g5.12xlarge", 2)])
tok = sb.kube_token("lc")["token"]
k = sb.kube("lc", tok)
NS = "/api/v1/namespaces/default"
CM = NS + "/configmaps"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
JSONP = "application/json-patch+json"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def cm(name, **md):
    m = {"name": name}
    m.update(md)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": m, "data": {"k": "v"}}


def cause(r, i=0):
    return ((r.json().get("details") or {}).get("causes") or [{}])[i]


def status(r):
    j = r.json()
    return (r.status, j.get("kind"), j.get("reason"), j.get("message"))


# ---- finalizers: apiserver/pkg/registry/generic/registry/store.go (Delete, Update) ----------
t.eq(k.req("POST", CM, cm("held", finalizers=["example.com/hold"])).status, 201,
     "store.go: a ConfigMap with a finalizer is created")
r = k.req("DELETE", CM + "/held")
t.ok(r.status == 200 and r.json().get("kind") == "ConfigMap" and r.json()["metadata"].get("deletionTimestamp"),
     "store.go Delete: with finalizers the answer is the object, now with deletionTimestamp")
g = k.req("GET", CM + "/held")
t.ok(g.status == 200 and g.json()["metadata"].get("deletionTimestamp") and
     g.json()["metadata"].get("deletionGracePeriodSeconds") == 0,
     "store.go Delete: the object stays while a finalizer is left")
r = k.req("PATCH", CM + "/held", {"metadata": {"finalizers": ["example.com/hold", "example.com/other"]}}, ctype=MERGE)
t.eq((r.status, r.json().get("reason"), cause(r).get("field"), cause(r).get("reason")),
     (422, "Invalid", "metadata.finalizers", "FieldValueForbidden"),
     "apimachinery/pkg/api/validation/objectmeta.go ValidateNoNewFinalizers: no finalizer added while deleting")
t.eq(r.json().get("message"), 'ConfigMap "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can '
     'be added if the object is being deleted, found new finalizers []string{"example.com/other"}',
     "objectmeta.go: the refusal's wording")
r = k.req("PATCH", CM + "/held", {"data": {"k": "w"}}, ctype=MERGE)
t.eq(r.status, 200, "objectmeta.go: other updates of a deleting object are allowed (valid twin)")
r = k.req("POST", CM, cm("held"))
t.eq((r.status, r.json().get("reason"), r.json().get("message")),
     (409, "AlreadyExists", 'object is being deleted: configmaps "held" already exists'),
     "store.go Create: the name of an object being deleted is still taken, and the answer says why")
r = k.req("PATCH", CM + "/held", {"metadata": {"resourceVersion": "1"}, "data": {"k": "x"}}, ctype=MERGE)
t.eq((r.status, r.json().get("reason")), (409, "Conflict"),
     "store.go Update: a resourceVersion in a patch is a precondition")
r = k.req("PATCH", CM + "/held", {"metadata": {"finalizers": None}}, ctype=MERGE)
t.ok(r.status == 200 and k.req("GET", CM + "/held").status == 404,
     "store.go Update: removing the last finalizer deletes the object")
r = k.req("POST", CM, cm("badfin", finalizers=["hold"]))
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "metadata.finalizers", 'Invalid value: "hold": name is neither a standard finalizer name nor is it '
                                  'fully qualified'),
     "pkg/apis/core/validation ValidateFinalizerName: an unqualified finalizer is refused")
t.eq(k.req("DELETE", CM + "/nofin").status, 404, "store.go: deleting what is not there is 404")
t.eq(k.req("POST", CM, cm("nofin")).status, 201, "a ConfigMap without finalizers")
r = k.req("DELETE", CM + "/nofin")
t.ok(r.status == 200 and r.json().get("kind") == "Status" and r.json().get("status") == "Success" and
     k.req("GET", CM + "/nofin").status == 404, "store.go Delete: without finalizers it goes at once (Status Success)")
k.req("POST", CM, cm("pre"))
r = k.req("DELETE", CM + "/pre", {"kind": "DeleteOptions", "apiVersion": "v1",
                                  "preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}})
t.ok(r.status == 409 and r.json()["message"].startswith('Operation cannot be fulfilled on configmaps "pre": '
                                                       'Precondition failed: UID in precondition: 0000'),
     "apiserver/pkg/storage/interfaces.go Preconditions.Check: a wrong UID precondition is a 409 Conflict")

# ---- namespaces: plugin/pkg/admission/namespace/lifecycle, the namespace controller -------
t.eq(k.req("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                           "metadata": {"name": "doomed"}}).status, 201, "namespace created")
DNS = "/api/v1/namespaces/doomed/configmaps"
k.req("POST", DNS, cm("keep", finalizers=["example.com/hold"]))
k.req("POST", DNS, cm("plain"))
r = k.req("DELETE", "/api/v1/namespaces/doomed")
t.ok(r.status == 200 and r.json().get("status", {}).get("phase") == "Terminating" and
     r.json()["metadata"].get("deletionTimestamp"), "pkg/registry/core/namespace: DELETE leaves it Terminating")
t.ok(wait_for(lambda: k.req("GET", DNS + "/plain").status == 404, timeout=60),
     "namespace controller: content without finalizers is deleted")
r = k.req("POST", DNS, cm("new"))
t.eq(status(r), (403, "Status", "Forbidden", 'configmaps "new" is forbidden: unable to create new content in '
                                           'namespace doomed because it is being terminated'),
     "admission/namespace/lifecycle: no new content in a terminating namespace")
t.eq(cause(r), {"reason": "NamespaceTerminating", "message": "namespace doomed is being terminated",
                "field": "metadata.namespace"}, "lifecycle admission: the NamespaceTerminating cause")
t.eq(k.req("POST", CM, cm("elsewhere")).status, 201, "lifecycle admission: an Active namespace takes it (twin)")
t.ok(wait_for(lambda: "example.com/hold" in json.dumps(k.req("GET", "/api/v1/namespaces/doomed").json()
                                                       .get("status", {}).get("conditions")), timeout=60),
     "namespace controller: NamespaceFinalizersRemaining names the finalizer that holds it")
t.eq(k.req("GET", "/api/v1/namespaces/doomed").status, 200, "the namespace waits for the finalizer")
k.req("PATCH", DNS + "/keep", {"metadata": {"finalizers": None}}, ctype=MERGE)
t.ok(wait_for(lambda: k.req("GET", "/api/v1/namespaces/doomed").status == 404, timeout=60),
     "namespace controller: once its content is gone the namespace goes")

# ---- generateName: apiserver/pkg/storage/names/generate.go ---------------------------------
base = "x" * 70
r = k.req("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": base}})
n = r.json()["metadata"]["name"]
t.ok(r.status == 201 and len(n) == 63 and n.startswith("x" * 58) and re.match(r"^[bcdfghjklmnpqrstvwxz2456789]{5}$",
                                                                             n[58:]),
     "names.SimpleNameGenerator: the base is cut to 58 characters, then 5 random ones (%s)" % n)
r = k.req("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}})
t.ok(r.status == 201 and re.match(r"^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$", r.json()["metadata"]["name"]),
     "names.SimpleNameGenerator: a short base is kept whole")

# ---- create metadata: registry/rest/create.go BeforeCreate, storage/etcd3 Create --------------
r = k.req("POST", CM, cm("withrv", resourceVersion="5"))
j = r.json()
t.eq((r.status, j.get("kind"), j.get("message"), "reason" in j), (500, "Status", "resourceVersion should not be "
                                                                   "set on objects to be created", False),
     "storage/etcd3/store.go Create: a resourceVersion on create is refused (500, no reason)")
r = k.req("POST", CM, cm("withuid", uid="11111111-2222-3333-4444-555555555555",
                         creationTimestamp="2000-01-01T00:00:00Z"))
md = r.json()["metadata"]
t.ok(r.status == 201 and md["uid"] != "11111111-2222-3333-4444-555555555555" and
     md["creationTimestamp"] != "2000-01-01T00:00:00Z",
     "rest/create.go FillObjectMetaSystemFields: the server sets uid and creationTimestamp")


def deployment(name, **spec):
    s = {"replicas": 1, "selector": {"matchLabels": {"app": name}},
         "template": {"metadata": {"labels": {"app": name}},
                      "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}
    s.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "generation": 7}, "spec": s}


DEP = "/apis/apps/v1/namespaces/default/deployments"
r = k.req("POST", DEP, dict(deployment("gen"), status={"replicas": 9}))
t.eq((r.status, r.json()["metadata"].get("generation"), r.json().get("status", {}).get("replicas")), (201, 1, None),
     "registry/apps/deployment/strategy.go PrepareForCreate: generation 1, status reset")

# ---- update rules: registry/generic/registry/store.go Update, rest/update.go ---------------
def put_fresh(path, change):
    """GET, change, PUT; again when a controller wrote in between (409), as a client would."""
    for _ in range(20):
        o = k.req("GET", path.replace("/status", "")).json()
        change(o)
        r = k.req("PUT", path, o)
        if r.status != 409:
            return r
    return r


def spec_change(o):
    o["spec"]["replicas"] = 2
    o["metadata"]["creationTimestamp"] = "2000-01-01T00:00:00Z"


r = put_fresh(DEP + "/gen", spec_change)
t.eq((r.status, r.json()["metadata"]["generation"]), (200, 2), "deployment strategy: a spec change bumps generation")
t.ok(r.json()["metadata"]["creationTimestamp"] != "2000-01-01T00:00:00Z",
     "rest/update.go BeforeUpdate: creationTimestamp cannot be changed")


def meta_and_status(o):
    o["metadata"].setdefault("labels", {})["x"] = "y"
    o["status"] = {"replicas": 42}


r = put_fresh(DEP + "/gen", meta_and_status)
t.eq((r.status, r.json()["metadata"]["generation"], r.json().get("status", {}).get("replicas") == 42), (200, 2, False),
     "deployment strategy PrepareForUpdate: metadata changes keep generation, .status is not written by PUT")


def status_and_spec(o):
    o["status"] = {"replicas": 42, "observedGeneration": 2}
    o["spec"]["replicas"] = 5


r = put_fresh(DEP + "/gen/status", status_and_spec)
t.eq((r.status, r.json()["status"].get("replicas"), r.json()["spec"]["replicas"]), (200, 42, 2),
     "deployment statusStrategy: /status writes status and leaves spec")
stale = dict(r.json())
stale["metadata"] = dict(stale["metadata"], resourceVersion="1")
r = k.req("PUT", DEP + "/gen", stale)
t.eq(status(r), (409, "Status", "Conflict", 'Operation cannot be fulfilled on deployments.apps "gen": the object '
                                            'has been modified; please apply your changes to the latest version and '
                                            'try again'), "store.go Update: a stale resourceVersion is 409")
nouid = k.req("GET", DEP + "/gen").json()
nouid["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"
r = k.req("PUT", DEP + "/gen", nouid)
t.ok(r.status == 409 and "Precondition failed: UID in precondition" in r.json().get("message", ""),
     "rest.DefaultUpdatedObjectInfo Preconditions: another uid is a 409")
c = k.req("GET", CM + "/elsewhere").json()
del c["metadata"]["resourceVersion"]
c["data"] = {"k": "unconditional"}
t.eq(k.req("PUT", CM + "/elsewhere", c).status, 200,
     "configmap strategy AllowUnconditionalUpdate: a built-in PUT without resourceVersion is taken")

crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "gadgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                              "schema": {"openAPIV3Schema": {"type": "object",
                                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}
t.eq(k.req("POST", CRDS, crd).status, 201, "CRD with a status subresource")
GD = "/apis/example.com/v1/namespaces/default/gadgets"
t.ok(wait_for(lambda: k.req("GET", GD).status == 200, timeout=60), "its kind is served")
r = k.req("POST", GD, {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"},
                       "spec": {"size": 1}, "status": {"ready": True}})
t.eq((r.status, "status" in r.json(), r.json()["metadata"]["generation"]), (201, False, 1),
     "apiextensions-apiserver customresource strategy PrepareForCreate: status dropped, generation 1")
g1 = r.json()
rv = g1["metadata"].pop("resourceVersion")
g1["spec"]["size"] = 2
r = k.req("PUT", GD + "/g1", g1)
t.eq(status(r), (422, "Status", "Invalid", 'gadgets.example.com "g1" is invalid: metadata.resourceVersion: Invalid '
                                           'value: 0x0: must be specified for an update'),
     "store.go Update: a custom resource PUT without resourceVersion is refused")
t.eq(cause(r), {"reason": "FieldValueInvalid", "message": "Invalid value: 0x0: must be specified for an update",
                "field": "metadata.resourceVersion"}, "store.go Update: its cause")
g1["metadata"]["resourceVersion"] = rv
r = k.req("PUT", GD + "/g1", g1)
t.eq((r.status, r.json()["metadata"]["generation"]), (200, 2), "the same PUT with resourceVersion is taken (twin)")
r = k.req("PATCH", GD + "/g1", {"status": {"ready": True}}, ctype=MERGE)
t.eq((r.status, "status" in r.json()), (200, False),
     "customresource strategy PrepareForUpdate: the main resource does not write .status")
r = k.req("PATCH", GD + "/g1/status", {"status": {"ready": True}, "spec": {"size": 99}}, ctype=MERGE)
t.eq((r.status, r.json().get("status"), r.json()["spec"]["size"], r.json()["metadata"]["generation"]),
     (200, {"ready": True}, 2, 2), "customresource statusStrategy: /status writes only status, no generation bump")
k.req("PATCH", GD + "/g1", {"metadata": {"finalizers": ["example.com/keep"]}}, ctype=MERGE)
r = k.req("DELETE", CRDS + "/gadgets.example.com")
t.ok(r.status == 200 and r.json()["metadata"].get("deletionTimestamp"),
     "apiextensions-apiserver finalizer: the CRD waits while an instance has a finalizer")
t.ok(k.req("GET", GD + "/g1").json()["metadata"].get("deletionTimestamp"),
     "apiextensions-apiserver finalizer: the instance is being deleted")
k.req("PATCH", GD + "/g1", {"metadata": {"finalizers": None}}, ctype=MERGE)
t.ok(wait_for(lambda: k.req("GET", CRDS + "/gadgets.example.com").status == 404, timeout=60),
     "apiextensions-apiserver finalizer: with its instances gone the CRD goes")

plain = json.loads(json.dumps(crd).replace("gadget", "doohickey").replace("Gadget", "Doohickey"))
del plain["spec"]["versions"][0]["subresources"]
t.eq(k.req("POST", CRDS, plain).status, 201, "CRD without a status subresource")
DH = "/apis/example.com/v1/namespaces/default/doohickeys"
t.ok(wait_for(lambda: k.req("GET", DH).status == 200, timeout=60), "its kind is served")
r = k.req("POST", DH, {"apiVersion": "example.com/v1", "kind": "Doohickey", "metadata": {"name": "d1"},
                       "spec": {"size": 1}, "status": {"ready": False}})
t.eq((r.status, r.json().get("status")), (201, {"ready": False}),
     "customresource strategy: without a status subresource status is part of the object")
r = k.req("PATCH", DH + "/d1", {"status": {"ready": True}}, ctype=MERGE)
t.eq((r.status, r.json().get("status"), r.json()["metadata"]["generation"]), (200, {"ready": True}, 2),
     "customresource strategy PrepareForUpdate: there a status change bumps generation")
r = k.req("PATCH", DH + "/d1", {"metadata": {"labels": {"a": "b"}}}, ctype=MERGE)
t.eq(r.json()["metadata"]["generation"], 2, "customresource strategy: a metadata change does not")
r = k.req("PATCH", DH + "/d1", {"spec": {"size": 2}}, ctype="application/strategic-merge-patch+json")
t.eq((r.status, r.json().get("reason")), (415, "UnsupportedMediaType"),
     "handlers/patch.go: no strategic merge patch for a custom resource")

# ---- patch types and options: apiserver/pkg/endpoints/handlers/patch.go, meta/v1/validation ---
k.req("POST", CM, cm("pt", labels={"tier": "a"}))
r = k.req("PATCH", CM + "/pt", [{"op": "test", "path": "/data/k", "value": "nope"},
                                {"op": "replace", "path": "/data/k", "value": "x"}], ctype=JSONP)
t.eq((r.status, r.json().get("reason"), r.json().get("message"), cause(r)),
     (422, "Invalid", "the server rejected our request due to an error in our request",
      {"reason": "UnexpectedServerResponse", "message": "testing value /data/k failed: test failed"}),
     "handlers/patch.go applyJSPatch: a failed JSON patch test is a 422 with json-patch's error")
r = k.req("PATCH", CM + "/pt", [{"op": "test", "path": "/data/k", "value": "v"},
                                {"op": "replace", "path": "/data/k", "value": "x"}], ctype=JSONP)
t.eq((r.status, r.json()["data"]["k"]), (200, "x"), "handlers/patch.go: a JSON patch whose test holds applies")
r = k.req("PATCH", CM + "/pt?force=true", {"data": {"k": "y"}}, ctype=MERGE)
t.eq(status(r), (422, "Status", "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be '
                                           'specified for non-apply patch'),
     "meta/v1/validation ValidatePatchOptions: force only with apply")
r = k.req("PATCH", CM + "/pt?fieldManager=t&force=true", cm("pt"), ctype=APPLY)
t.eq(r.status, 200, "ValidatePatchOptions: force with apply is taken (twin)")
r = k.req("PATCH", CM + "/pt", {"data": {"k": "z"}}, ctype="application/strategic-merge-patch+json")
t.eq(r.status, 200, "handlers/patch.go: strategic merge on a built-in kind")
r = k.req("POST", CM + "?dryRun=true", cm("dry"))
t.eq(status(r), (422, "Status", "Invalid", 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: '
                                           '[]string{"true"}: supported values: "All"'),
     "meta/v1/validation ValidateDryRun: only \"All\"")
r = k.req("POST", CM + "?dryRun=All", cm("dry"))
t.ok(r.status == 201 and k.req("GET", CM + "/dry").status == 404, "ValidateDryRun: dryRun=All answers, stores nothing")

r = k.req("DELETE", CM + "/pt", {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Later"})
t.eq((r.status, r.json().get("message")), (422, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: '
                                                'Unsupported value: "Later": supported values: "Foreground", '
                                                '"Background", "Orphan", "nil"'),
     "meta/v1/validation ValidateDeleteOptions: the propagation policies")
r = k.req("POST", CM + "?fieldManager=" + "m" * 129, cm("longfm"))
t.eq((r.status, r.json().get("message")), (422, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: '
                                                'may not be more than 128 bytes'),
     "meta/v1/validation ValidateFieldManager: at most 128 bytes")

# ---- selectors: apimachinery/pkg/labels/selector.go, fields, pkg/apis/core/v1/conversion.go ---
for sel, msg in (("a%3D(", "unable to parse requirement: found '(', expected: identifier"),
                 ("tier%3D-bad", "unable to parse requirement: values[0][tier]: Invalid value: \"-bad\": a valid "
                                 "label must be an empty string or consist of alphanumeric characters"),
                 ("tier+in+a", "unable to parse requirement: found 'a' expected: '('"),
                 ("!tier%3Da", "found '=', expected: ',' or 'end of string'")):
    r = k.req("GET", CM + "?labelSelector=" + sel)
    t.ok(r.status == 400 and r.json().get("reason") == "BadRequest" and r.json().get("message", "").startswith(msg),
         "labels/selector.go Parse refuses %s: %s" % (sel, r.json().get("message")))
names = [o["metadata"]["name"] for o in k.req("GET", CM + "?labelSelector=tier+in+(a,b),!gone").json()["items"]]
t.eq(names, ["pt"], "labels/selector.go: a well-formed set-based selector selects")
r = k.req("GET", CM + "?fieldSelector=data.k%3Dx")
t.eq((r.status, r.json().get("message")), (400, '"data.k" is not a known field selector: only "metadata.name", '
                                                '"metadata.namespace"'),
     "runtime.DefaultMetaV1FieldSelectorConversion: configmaps select only metadata fields")
r = k.req("GET", NS + "/pods?fieldSelector=spec.foo%3D1")
t.eq((r.status, r.json().get("message")), (400, "field label not supported: spec.foo"),
     "core/v1/conversion.go: pods refuse a field they do not register")
r = k.req("GET", NS + "/pods?fieldSelector=status.phase!%3DFailed,spec.restartPolicy%3DAlways")
t.eq(r.status, 200, "core/v1/conversion.go: pods select status.phase and spec.restartPolicy")

# ---- list resourceVersion rules: meta/internalversion/validation ValidateListOptions --------
r = k.req("GET", CM + "?resourceVersionMatch=Exact")
t.eq(status(r), (422, "Status", "Invalid", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                                           'resourceVersionMatch is forbidden unless resourceVersion is provided'),
     "ValidateListOptions: resourceVersionMatch needs resourceVersion")
r = k.req("GET", CM + "?resourceVersion=0&resourceVersionMatch=Exact")
t.ok(r.status == 422 and 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' in r.json()["message"],
     "ValidateListOptions: Exact with resourceVersion 0")
r = k.req("GET", CM + "?resourceVersion=1&resourceVersionMatch=Newest")
t.ok(r.status == 422 and 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""' in
     r.json()["message"], "ValidateListOptions: an unknown resourceVersionMatch")
rv = k.req("GET", CM).json()["metadata"]["resourceVersion"]
r = k.req("GET", CM + "?resourceVersion=%s&resourceVersionMatch=NotOlderThan" % rv)
t.eq(r.status, 200, "ValidateListOptions: NotOlderThan with a resourceVersion (twin)")
r = k.req("GET", CM + "?resourceVersion=%d" % (int(rv) + 100000))
t.eq((r.status, r.json().get("reason"), cause(r).get("reason")), (504, "Timeout", "ResourceVersionTooLarge"),
     "storage/cacher: a resourceVersion ahead of the store times out")
r = k.req("GET", CM + "?limit=1")
r = k.req("GET", CM + "?limit=1&resourceVersion=%s&continue=%s" % (rv, r.json()["metadata"]["continue"]))
t.eq((r.status, r.json().get("message")), (400, "specifying resource version is not allowed when using continue"),
     "storage/etcd3/store.go GetList: continue with a resourceVersion")
r = k.req("GET", CM + "?watch=1&resourceVersionMatch=NotOlderThan")
t.ok(r.status == 422 and "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided" in
     r.json()["message"], "ValidateListOptions (watch): resourceVersionMatch needs sendInitialEvents")
r = k.req("GET", CM + "?watch=1&sendInitialEvents=true")
t.ok(r.status == 422 and "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" in
     r.json()["message"], "validateWatchOptions: sendInitialEvents needs resourceVersionMatch NotOlderThan")
st, lines = k.stream(CM + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
                     "&timeoutSeconds=1", seconds=1.0)
t.ok(st == 200 and any(json.loads(x).get("type") == "BOOKMARK" for x in lines),
     "validateWatchOptions: with NotOlderThan the watch-list streams, ending its initial events with a bookmark")

rv = k.req("GET", CM).json()["metadata"]["resourceVersion"]
k.req("POST", CM, cm("after"))
sb.control("POST", "/advance", {"seconds": 40000})
t.ok(wait_for(lambda: k.stream(CM + "?watch=1&resourceVersion=%s" % rv, seconds=1.0)[1], timeout=60),
     "a watch from before the compaction answers")
st, lines = k.stream(CM + "?watch=1&resourceVersion=%s" % rv, seconds=1.5)
ev = json.loads(lines[0]) if lines else {}
t.ok(st == 200 and ev.get("type") == "ERROR" and ev["object"].get("code") == 410 and
     ev["object"].get("reason") == "Expired" and
     re.match(r"^too old resource version: %s \(\d+\)$" % rv, ev["object"].get("message", "")),
     "storage/cacher watch_cache.go: a watch from a compacted resourceVersion gets ERROR 410 Expired (%s)" % ev)
r = k.req("GET", CM + "?resourceVersion=%s&resourceVersionMatch=Exact" % rv)
t.eq((r.status, r.json().get("reason"), r.json().get("message")),
     (410, "Expired", "The resourceVersion for the provided list is too old."),
     "storage/etcd3/store.go GetList: an Exact list from a compacted resourceVersion is 410")

# ---- Go-side validation: pkg/apis/core/validation, registry/core/service/portallocator ------
SVC = NS + "/services"


def svc(name, stype="NodePort", ports=None):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"type": stype, "selector": {"app": "x"}, "ports": ports or [{"port": 80}]}}


r = k.req("POST", SVC, svc("np0", ports=[{"port": 80, "nodePort": 80}]))
t.eq((r.status, r.json().get("message")), (422, 'Service "np0" is invalid: spec.ports[0].nodePort: Invalid value: 80: '
                                                'provided port is not in the valid range. The range of valid ports '
                                                'is 30000-32767'), "portallocator: a node port out of range")
r = k.req("POST", SVC, svc("np1", ports=[{"port": 80, "nodePort": 30080}]))
t.eq((r.status, r.json()["spec"]["ports"][0]["nodePort"]), (201, 30080), "portallocator: a free node port (twin)")
r = k.req("POST", SVC, svc("np2", ports=[{"port": 80, "nodePort": 30080}]))
t.eq((r.status, cause(r).get("message")), (422, "Invalid value: 30080: provided port is already allocated"),
     "portallocator: a node port another Service holds")
r = k.req("POST", SVC, svc("np3"))
p = (r.json().get("spec") or {}).get("ports", [{}])[0].get("nodePort")
t.ok(r.status == 201 and isinstance(p, int) and 30000 <= p <= 32767 and p != 30080,
     "portallocator: a NodePort Service gets a free node port (%s)" % p)
r = k.req("POST", SVC, svc("np4", "ClusterIP", [{"port": 80, "nodePort": 30100}]))
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "spec.ports[0].nodePort", "Forbidden: may not be used when `type` is 'ClusterIP'"),
     "core/validation ValidateService: no node port on a ClusterIP Service")
r = k.req("POST", SVC, svc("np5", ports=[{"name": "a", "port": 80, "nodePort": 30200},
                                         {"name": "b", "port": 81, "nodePort": 30200}]))
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "spec.ports[1].nodePort", "Duplicate value: 30200"), "core/validation ValidateService: duplicate node ports")

k.req("POST", CM, dict(cm("frozen"), immutable=True))
r = k.req("PATCH", CM + "/frozen", {"data": {"k": "changed"}}, ctype=MERGE)
t.eq((r.status, r.json().get("message")), (422, 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable '
                                                'when `immutable` is set'),
     "core/validation ValidateConfigMapUpdate: an immutable ConfigMap's data")
r = k.req("PATCH", CM + "/frozen", {"immutable": False}, ctype=MERGE)
t.eq((r.status, cause(r).get("field")), (422, "immutable"), "ValidateConfigMapUpdate: immutable cannot be unset")
r = k.req("PATCH", CM + "/frozen", {"metadata": {"labels": {"a": "b"}}}, ctype=MERGE)
t.eq(r.status, 200, "ValidateConfigMapUpdate: metadata of an immutable ConfigMap may change (twin)")
SEC = NS + "/secrets"
r = k.req("POST", SEC, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls0"},
                        "type": "kubernetes.io/tls", "data": {"tls.crt": "Y2VydA=="}})
t.eq((r.status, cause(r).get("field"), cause(r).get("reason")), (422, "data[tls.key]", "FieldValueRequired"),
     "core/validation ValidateSecret: a TLS Secret needs tls.key")
r = k.req("POST", SEC, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls1"},
                        "type": "kubernetes.io/tls", "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}})
t.eq(r.status, 201, "ValidateSecret: a complete TLS Secret (twin)")
r = k.req("PATCH", SEC + "/tls1", {"type": "Opaque"}, ctype=MERGE)
t.eq((r.status, r.json().get("message")), (422, 'Secret "tls1" is invalid: type: Invalid value: "Opaque": field is '
                                                'immutable'), "core/validation ValidateSecretUpdate: type is immutable")
r = k.req("POST", SEC, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "keys"},
                        "data": {"bad key": "eA=="}})
t.eq((r.status, cause(r).get("field")), (422, "data[bad key]"), "ValidateSecret: a key must be a config key")

r = k.req("POST", DEP, deployment("rc", strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}))
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "spec.strategy.rollingUpdate", "Forbidden: may not be specified when strategy `type` is 'Recreate'"),
     "apps/validation ValidateDeploymentStrategy: Recreate takes no rollingUpdate")
r = k.req("POST", DEP, deployment("ru", strategy={"type": "RollingUpdate",
                                                  "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}))
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "spec.strategy.rollingUpdate.maxUnavailable", "Invalid value: 0: may not be 0 when `maxSurge` is 0"),
     "apps/validation ValidateRollingUpdateDeployment: maxSurge and maxUnavailable both 0")
r = k.req("POST", DEP, deployment("ru2", strategy={"type": "RollingUpdate",
                                                   "rollingUpdate": {"maxUnavailable": "150%"}}))
t.ok(r.status == 422 and "must not be greater than 100%" in r.json().get("message", ""),
     "apps/validation IsNotMoreThan100Percent: maxUnavailable over 100%")
r = k.req("POST", DEP, deployment("pd", minReadySeconds=10, progressDeadlineSeconds=10))
t.ok(r.status == 422 and "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds" in
     r.json().get("message", ""), "apps/validation ValidateDeploymentSpec: progressDeadlineSeconds > minReadySeconds")
r = k.req("POST", DEP, deployment("rc2", strategy={"type": "Recreate"}))
t.eq((r.status, r.json()["spec"]["strategy"]), (201, {"type": "Recreate"}),
     "ValidateDeploymentStrategy: Recreate alone is taken, nothing defaulted into it (twin)")
r = k.req("POST", "/apis/batch/v1/namespaces/default/jobs", {
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "neg"},
    "spec": {"backoffLimit": -1, "template": {"spec": {"restartPolicy": "Never",
                                                       "containers": [{"name": "c", "image": "busybox:1.36"}]}}}})
t.ok(r.status == 422 and "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0" in
     r.json().get("message", ""), "batch/validation ValidateJobSpec: backoffLimit >= 0")

sel = deployment("sel")
sel["spec"]["selector"] = {"matchLabels": {"app": "sel"}, "matchExpressions": [{"key": "tier", "operator": "In"}]}
r = k.req("POST", DEP, sel)
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "spec.selector.matchExpressions[0].values", "Required value: must be specified when `operator` is 'In' "
                                                       "or 'NotIn'"),
     "meta/v1/validation ValidateLabelSelectorRequirement: In needs values")
sel["spec"]["selector"]["matchExpressions"][0]["operator"] = "DoesNotExist"
t.eq(k.req("POST", DEP, sel).status, 201, "ValidateLabelSelectorRequirement: DoesNotExist takes none (twin)")

RB = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
crb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "lc-crb"},
       "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
       "subjects": [{"kind": "ServiceAccount", "name": "runner"}]}
r = k.req("POST", RB, crb)
t.eq((r.status, cause(r).get("field"), cause(r).get("reason")), (422, "subjects[0].namespace", "FieldValueRequired"),
     "rbac/validation ValidateRoleBindingSubject: a ServiceAccount subject of a ClusterRoleBinding needs a namespace")
crb["subjects"][0]["namespace"] = "default"
t.eq(k.req("POST", RB, crb).status, 201, "ValidateClusterRoleBinding: with its namespace it is taken (twin)")
r = k.req("PATCH", RB + "/lc-crb", {"roleRef": {"name": "edit"}}, ctype=MERGE)
t.eq((r.status, r.json().get("message")),
     (422, 'ClusterRoleBinding.rbac.authorization.k8s.io "lc-crb" is invalid: roleRef: Invalid value: '
           'rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change '
           'roleRef'), "rbac/validation ValidateRoleBindingUpdate: roleRef cannot change")
r = k.req("PATCH", RB + "/lc-crb", {"subjects": [{"kind": "Group", "name": "devs",
                                                  "apiGroup": "rbac.authorization.k8s.io"}]}, ctype=MERGE)
t.eq(r.status, 200, "ValidateRoleBindingUpdate: subjects may change (twin)")

JOBS = "/apis/batch/v1/namespaces/default/jobs"
k.req("POST", JOBS, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "comp"},
                     "spec": {"completions": 2, "parallelism": 1, "template": {"spec": {
                         "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}})
r = k.req("PATCH", JOBS + "/comp", {"spec": {"completions": 3}}, ctype=MERGE)
t.eq((r.status, cause(r).get("field"), cause(r).get("message")),
     (422, "spec.completions", "Invalid value: 3: field is immutable"),
     "batch/validation ValidateJobSpecUpdate: completions of a NonIndexed job")
r = k.req("PATCH", JOBS + "/comp", {"spec": {"parallelism": 2}}, ctype=MERGE)
t.eq(r.status, 200, "ValidateJobSpecUpdate: parallelism may change (twin)")

PV = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "lc-pv"},
      "spec": {"capacity": {"storage": "100Gi"}, "accessModes": ["ReadWriteMany"], "storageClassName": "",
               "csi": {"driver": "fsx.csi.aws.com", "volumeHandle": "fs-0lc"}}}
k.req("POST", "/api/v1/persistentvolumes", PV)
PVC = NS + "/persistentvolumeclaims"
k.req("POST", PVC, {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "lc-claim"},
                    "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "",
                             "resources": {"requests": {"storage": "100Gi"}}}})
k.req("POST", PVC, {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "lc-unbound"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "nothing-here",
                             "resources": {"requests": {"storage": "1Gi"}}}})
t.ok(wait_for(lambda: k.req("GET", PVC + "/lc-claim").json()["status"].get("phase") == "Bound", timeout=60),
     "PVC bound")
r = k.req("PATCH", PVC + "/lc-claim", {"spec": {"resources": {"requests": {"storage": "50Gi"}}}}, ctype=MERGE)
t.ok(r.status == 422 and cause(r).get("field") == "spec.resources.requests.storage" and
     cause(r).get("message", "").startswith("Forbidden: field can not be less than"),
     "core/validation ValidatePersistentVolumeClaimUpdate: a claim does not shrink: %s" % cause(r).get("message"))
r = k.req("PATCH", PVC + "/lc-claim", {"spec": {"resources": {"requests": {"storage": "200Gi"}}}}, ctype=MERGE)
t.eq(r.status, 200, "ValidatePersistentVolumeClaimUpdate: a bound claim may grow (twin)")
r = k.req("PATCH", PVC + "/lc-unbound", {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, ctype=MERGE)
t.ok(r.status == 422 and "spec is immutable after creation except resources.requests and "
     "volumeAttributesClassName for bound claims" in r.json().get("message", ""),
     "ValidatePersistentVolumeClaimUpdate: an unbound claim is not resized")

# ---- images: the kubelet's pull (pkg/kubelet/images/image_manager.go) ------------------------
def pod(name, image):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "srv", "image": image}]}}


def waiting(name):
    st = (k.req("GET", NS + "/pods/" + name).json().get("status") or {})
    cs = (st.get("containerStatuses") or [{}])[0]
    return st.get("phase"), (cs.get("state") or {}).get("waiting", {}).get("reason"), cs


k.req("POST", NS + "/pods", pod("typo", "vllm/vllm-openai:v0.10.20"))
k.req("POST", NS + "/pods", pod("real", "vllm/vllm-openai:v0.10.2"))
k.req("POST", NS + "/pods", pod("own", "registry.example.com/team/server:1"))
NOT_FOUND = ('rpc error: code = NotFound desc = failed to pull and unpack image '
             '"docker.io/vllm/vllm-openai:v0.10.20": failed to resolve reference '
             '"docker.io/vllm/vllm-openai:v0.10.20": docker.io/vllm/vllm-openai:v0.10.20: not found')
seen = {}


def pull_failed():
    """ErrImagePull seen in the status (its message kept from the same read),
    or already past it: the kubelet's "Error: ErrImagePull" event stays."""
    phase, reason, cs = waiting("typo")
    if reason == "ErrImagePull":
        seen["msg"] = cs.get("state", {}).get("waiting", {}).get("message", "")
    evs = k.req("GET", NS + "/events?fieldSelector=involvedObject.name%3Dtypo").json()["items"]
    return "msg" in seen or any(e["message"] == "Error: ErrImagePull" for e in evs)


t.ok(wait_for(pull_failed, timeout=60),
     "image_manager.go: an unpublished tag of vllm/vllm-openai fails to pull (ErrImagePull)")
t.ok(seen.get("msg", NOT_FOUND) == NOT_FOUND, "containerd's not-found message: %r" %
     seen.get("msg"))
msg = NOT_FOUND
t.ok(wait_for(lambda: waiting("typo")[:2] == ("Pending", "ImagePullBackOff"), timeout=60),
     "image_manager.go: then ImagePullBackOff")
evs = [(e["reason"], e["message"]) for e in k.req("GET", NS + "/events?fieldSelector=involvedObject.name%3Dtypo")
       .json()["items"]]
t.ok(("Failed", 'Failed to pull image "vllm/vllm-openai:v0.10.20": ' + msg) in evs and
     ("BackOff", 'Back-off pulling image "vllm/vllm-openai:v0.10.20"') in evs and
     ("Failed", "Error: ImagePullBackOff") in evs, "kubelet events: Failed, BackOff: %s" % evs)
t.ok(wait_for(lambda: waiting("real")[0] == "Running", timeout=60), "a published vLLM tag runs (twin)")
t.ok(wait_for(lambda: waiting("own")[0] == "Running", timeout=60), "an image of a repository the catalogue "
                                                                      "does not know runs")
# ---- pods: graceful deletion (pkg/registry/core/pod/strategy.go CheckGracefulDelete) -----------
r = k.req("DELETE", NS + "/pods/real")
md = r.json().get("metadata") or {}
t.ok(r.status == 200 and md.get("deletionTimestamp") and md.get("deletionGracePeriodSeconds") == 30,
     "pod strategy CheckGracefulDelete: a running pod gets deletionTimestamp and the 30 s grace period")
t.ok(wait_for(lambda: k.req("GET", NS + "/pods/real").status == 404, timeout=60),
     "kubelet: once its containers stopped the pod is deleted")
t.eq(k.req("POST", NS + "/pods", pod("real", "vllm/vllm-openai:v0.10.2")).status, 201,
     "then the name is free again")
# While a pod terminates its name is taken: one held by a finalizer, so
# the look does not race the grace period (30 s of sandbox time is a
# blink at this speed).
held = pod("held", "vllm/vllm-openai:v0.10.2")
held["metadata"]["finalizers"] = ["example.com/hold"]
t.eq(k.req("POST", NS + "/pods", held).status, 201, "a pod with a finalizer")
t.eq(k.req("DELETE", NS + "/pods/held").status, 200, "deleted: it terminates")
r = k.req("POST", NS + "/pods", pod("held", "vllm/vllm-openai:v0.10.2"))
t.eq((r.status, r.json().get("message")), (409, 'object is being deleted: pods "held" already exists'),
     "store.go Create: its name is taken while it terminates")
k.req("PATCH", NS + "/pods/held", {"metadata": {"finalizers": None}}, ctype=MERGE)
t.ok(wait_for(lambda: k.req("GET", NS + "/pods/held").status == 404, timeout=60),
     "its finalizer removed and its containers stopped, the pod goes")
r = k.req("DELETE", NS + "/pods/own?gracePeriodSeconds=0")
t.ok(r.status == 200 and k.req("GET", NS + "/pods/own").status == 404,
     "CheckGracefulDelete: gracePeriodSeconds=0 deletes at once")
nowhere = pod("nowhere", "busybox:1.36")
nowhere["spec"]["nodeSelector"] = {"no-such-label": "x"}
k.req("POST", NS + "/pods", nowhere)
r = k.req("DELETE", NS + "/pods/nowhere")
t.ok(r.status == 200 and k.req("GET", NS + "/pods/nowhere").status == 404,
     "CheckGracefulDelete: a pod not scheduled to a node goes at once")

t.ok(images.provenance("rayproject/ray:2.46.0-py311-gpu") and images.pull_problem("rayproject/ray:2.46.1")
     and images.pull_problem("pytorch/pytorch:2.7.1"), "images.py: the catalogue knows Ray and PyTorch tags")
defaults = set()
for src in ("handlers/workloads.c", "handlers/inference_managed.c", "sandbox/slipsand/k8s/controllers.py"):
    with open(os.path.join(SRC, src)) as f:
        defaults |= set(re.findall(r'"((?:[a-z0-9.-]+/)+[a-z0-9._-]+:[A-Za-z0-9._-]+)"', f.read()))
known = sorted(d for d in defaults if images.parse_reference(d)[0] in images.RELEASES)
t.ok(known and all(images.provenance(d) for d in known),
     "images.py: every default image of a catalogued repository is a published tag: %s" % known)

# ---- the same through the real kubectl ---------------------------------------------------------
KUBECTL = find_kubectl()
if not KUBECTL:
    t.skip("no kubectl binary: kubectl cases", 6)
else:
    cfg = sb.kubeconfig("lc", token=tok)
    cache = os.path.join(sb.tmp, "kcache")

    def kubectl(*args, stdin=None):
        return run([KUBECTL, "--kubeconfig", cfg, "--cache-dir", cache, "--request-timeout=20s"] + list(args),
                   input=stdin)

    k.req("POST", CM, cm("kheld", finalizers=["example.com/hold"]))
    rc, out, err = kubectl("delete", "configmap", "kheld", "--wait=false")
    rc2, out2, _ = kubectl("get", "configmap", "kheld", "-o", "jsonpath={.metadata.deletionTimestamp}")
    t.ok(rc == 0 and rc2 == 0 and out2.strip(), "kubectl delete of an object with a finalizer: it stays, deleting")
    rc, out, err = kubectl("get", "pods", "--field-selector", "spec.foo=1")
    t.ok(rc != 0 and "field label not supported: spec.foo" in err, "kubectl get --field-selector: " + err.strip()[:200])
    k.req("POST", CRDS, dict(crd, metadata={"name": "gadgets.example.com"}))
    wait_for(lambda: k.req("GET", GD).status == 200, timeout=5)
    g = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "kg", "namespace": "default"},
         "spec": {"size": 1}}
    k.req("POST", GD, g)
    f = tempfile.NamedTemporaryFile("w", suffix=".json", dir=sb.tmp, delete=False)
    json.dump(g, f)
    f.close()
    # kubectl replace fills in the live resourceVersion itself (resource.Helper
    # Replace); --raw sends the object as it is.
    rc, out, err = kubectl("replace", "-f", f.name)
    t.eq(rc, 0, "kubectl replace of a custom resource: kubectl adds the live resourceVersion")
    rc, out, err = kubectl("replace", "--raw", GD + "/kg", "-f", f.name)
    t.ok(rc != 0 and "must be specified for an update" in (err + out),
         "kubectl replace --raw without resourceVersion is refused: " + (err + out).strip()[:200])
    kubectl("create", "namespace", "kdoomed")
    rc, out, err = kubectl("delete", "namespace", "kdoomed", "--timeout=60s")
    t.ok(rc == 0 and k.req("GET", "/api/v1/namespaces/kdoomed").status == 404,
         "kubectl delete namespace waits through Terminating until it is gone: " + (out + err).strip()[:200])
    rc, out, err = kubectl("create", "configmap", "kns", "-n", "default", "--from-literal=a=b", "--dry-run=server",
                           "-o", "name")
    t.ok(rc == 0 and k.req("GET", CM + "/kns").status == 404, "kubectl --dry-run=server sends dryRun=All")

t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
