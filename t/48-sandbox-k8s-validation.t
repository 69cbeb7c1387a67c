#!/usr/bin/python3
"""The sandbox Kubernetes API refuses what kube-apiserver 1.31 refuses.

One defective object per rule, each sent by create (POST) and by server-side
apply (PATCH application/apply-patch+yaml), must be refused with the status
and wording of the real server and name the field; a valid twin of each must
be accepted.  Built-in kinds are checked against the 1.31 OpenAPI and the
Go-coded rules, custom resources against the upstream CRD schemas that the
EKS add-ons install (or, for KubeRay and Karpenter, that the test installs
from the same bundles).  Then the same through real kubectl."""
import copy
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, find_kubectl, run, wait_for  # noqa: E402

SRC = os.environ.get("SW_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import crdbundle  # noqa: E402

t = T()
if not crdbundle.available():
    t.skip_all("no ../shared/testdata/crds beside the project")

sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("val", net)
sb.hyperpod("val-hp", eks["arn"], net, [("gpu", "ml.g5.12xlarge", 1)])
for addon in ("amazon-sagemaker-hyperpod-training-operator", "amazon-sagemaker-hyperpod-inference", "cert-manager"):
    sb.ok_rest("eks", "POST", "/clusters/val/addons", {"addonName": addon})
    wait_for(lambda: sb.ok_rest("eks", "GET", "/clusters/val/addons/" + addon)["addon"]["status"] == "ACTIVE",
             timeout=10)
tok = sb.kube_token("val")["token"]
k = sb.kube("val", tok)
APPLY = "application/apply-patch+yaml"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

# ---- add-ons install the upstream CRDs, no stubs ----------------------------------
for name in ("hyperpodpytorchjobs.sagemaker.amazonaws.com", "scaledobjects.keda.sh",
             "inferenceendpointconfigs.inference.sagemaker.aws.amazon.com",
             "jumpstartmodels.inference.sagemaker.aws.amazon.com"):
    r = k.req("GET", CRDS + "/" + name)
    sch = (r.json().get("spec", {}).get("versions") or [{}])[0].get("schema", {}).get("openAPIV3Schema", {})
    t.ok(r.status == 200 and "spec" in sch.get("properties", {}) and
         not sch.get("x-kubernetes-preserve-unknown-fields"), "add-on installs upstream CRD %s" % name)
crds = k.req("GET", CRDS).json()["items"]
t.ok("sagemakerendpointregistrations.inference.sagemaker.aws.amazon.com" in
     [c["metadata"]["name"] for c in crds], "the inference add-on installs SageMakerEndpointRegistration too")
t.ok({"certificates.cert-manager.io", "certificaterequests.cert-manager.io", "issuers.cert-manager.io",
      "clusterissuers.cert-manager.io"} <= {c["metadata"]["name"] for c in crds},
     "the cert-manager add-on installs its four CRDs")
t.ok(all(v.get("schema", {}).get("openAPIV3Schema", {}).get("properties") and
         not v["schema"]["openAPIV3Schema"].get("x-kubernetes-preserve-unknown-fields")
         for c in crds for v in c["spec"]["versions"]),
     "no schema-less CRDs: %s" % ", ".join(c["metadata"]["name"] for c in crds))
r = k.req("GET", "/apis/apps/v1/namespaces/keda/deployments/keda-operator")
t.ok(r.status == 200 and "kedacore/keda:2.17.1" in json.dumps(r.json()), "inference add-on brings the KEDA operator")
t.ok("CEL rules" in sb.stderr() and "not installed" not in sb.stderr(),
     "start message: CEL rules counted, and every add-on and chart CRD has its upstream schema")
t.ok(" 0 skipped" in sb.stderr() and "not evaluated" not in sb.stderr(),
     "start message: every CEL rule evaluated, none skipped")

# KubeRay and Karpenter CRDs come with Helm / HyperPod autoscaling; install them here.
for bundle in ("kuberay-v1.4.2", "karpenter-v1.14.1", "hyperpod-karpenter-nodeclass"):
    for crd in crdbundle.crds(bundle):
        r = k.req("POST", CRDS, crd)
        t.eq(r.status, 201, "CRD %s created" % crd["metadata"]["name"])

# ---- valid objects ---------------------------------------------------------------
LABELS = {"app": "web"}


def pod(**spec):
    s = {"containers": [{"name": "app", "image": "nginx:1.27"}]}
    s.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": s}


def deployment():
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": dict(LABELS)},
            "spec": {"replicas": 1, "selector": {"matchLabels": dict(LABELS)},
                     "template": {"metadata": {"labels": dict(LABELS)},
                                  "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}}


def service():
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"type": "LoadBalancer", "selector": dict(LABELS), "ports": [{"port": 80}]}}


def secret():
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec"}, "data": {"token": "aGVsbG8="}}


def pvc():
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def hpj():
    return {"apiVersion": "sagemaker.amazonaws.com/v1", "kind": "HyperPodPyTorchJob", "metadata": {"name": "j"},
            "spec": {"nprocPerNode": "1", "runPolicy": {"cleanPodPolicy": "None"},
                     "replicaSpecs": [{"name": "pods", "replicas": 1, "template": {"spec": {
                         "containers": [{"name": "pytorch", "image": "pytorch:2.5"}]}}}]}}


def rayjob():
    tmpl = {"spec": {"containers": [{"name": "ray", "image": "rayproject/ray:2.46.0"}]}}
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "rj"},
            "spec": {"entrypoint": "python run.py", "shutdownAfterJobFinishes": True,
                     "rayClusterSpec": {"headGroupSpec": {"rayStartParams": {}, "template": copy.deepcopy(tmpl)},
                                        "workerGroupSpecs": [{"groupName": "w", "replicas": 1, "minReplicas": 1,
                                                              "maxReplicas": 1, "rayStartParams": {},
                                                              "template": copy.deepcopy(tmpl)}]}}}


def scaledobject():
    return {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "so"},
            "spec": {"scaleTargetRef": {"name": "d"}, "minReplicaCount": 1, "maxReplicaCount": 3,
                     "triggers": [{"type": "prometheus", "metadata": {"serverAddress": "http://p:9090",
                                                                      "query": "sum(x)", "threshold": "5"}}]}}


def nodepool():
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "np"},
            "spec": {"disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"},
                     "template": {"spec": {"nodeClassRef": {"group": "karpenter.sagemaker.amazonaws.com",
                                                            "kind": "HyperpodNodeClass", "name": "hp"},
                                           "requirements": [{"key": "node.kubernetes.io/instance-type",
                                                             "operator": "In", "values": ["ml.g5.12xlarge"]}]}}}}


def c0(o):
    """The first container of a pod or a workload template."""
    spec = o["spec"]["template"]["spec"] if "template" in o["spec"] else o["spec"]
    return spec["containers"][0]


def bad_mount(o):
    c0(o)["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]


def bad_gpu(o):
    c0(o)["resources"] = {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}


PATHS = {"Pod": "/api/v1/namespaces/default/pods", "Deployment": "/apis/apps/v1/namespaces/default/deployments",
         "Service": "/api/v1/namespaces/default/services", "Secret": "/api/v1/namespaces/default/secrets",
         "PersistentVolumeClaim": "/api/v1/namespaces/default/persistentvolumeclaims",
         "HyperPodPyTorchJob": "/apis/sagemaker.amazonaws.com/v1/namespaces/default/hyperpodpytorchjobs",
         "RayJob": "/apis/ray.io/v1/namespaces/default/rayjobs",
         "ScaledObject": "/apis/keda.sh/v1alpha1/namespaces/default/scaledobjects",
         "NodePool": "/apis/karpenter.sh/v1/nodepools"}

# (rule, valid object, defect, create expectation, apply expectation)
# expectation: (status, reason, field or message fragment, cause reason or None)
UNKNOWN_C = 'unknown field "spec.template.spec.containers[0].foo"'
CASES = [
    ("unknown container field", deployment, lambda o: c0(o).update(foo=1),
     (400, "BadRequest", "strict decoding error: " + UNKNOWN_C, None),
     (400, "BadRequest", '.spec.template.spec.containers[name="app"].foo: field not declared in schema', None)),
    ("imagePullPolicy Sometimes", pod, lambda o: c0(o).update(imagePullPolicy="Sometimes"),
     (422, "Invalid", "spec.containers[0].imagePullPolicy", "FieldValueNotSupported"), "same"),
    ("cpu limit two", pod, lambda o: c0(o).update(resources={"limits": {"cpu": "two"}}),
     (400, "BadRequest", 'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular '
                         'expression', None), "same"),
    ("container name Bad_Name", pod, lambda o: c0(o).update(name="Bad_Name"),
     (422, "Invalid", "spec.containers[0].name", "FieldValueInvalid"), "same"),
    ("duplicate env names", pod, lambda o: c0(o).update(env=[{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]),
     (201, "warning", 'spec.containers[0].env[1]: hides previous definition of environment variable \\"A\\"', None),
     (400, "BadRequest", '.spec.containers[name="app"].env: duplicate entries for key [name="A"]', None)),
    ("replicas string", deployment, lambda o: o["spec"].update(replicas="1"),
     (400, "BadRequest", "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
      None),
     (400, "BadRequest", ".spec.replicas: expected numeric (int or float), got string", None)),
    ("nvidia.com/gpu request != limit", pod, bad_gpu,
     (422, "Invalid", "spec.containers[0].resources.requests", "FieldValueInvalid"), "same"),
    ("Service type LoadBalancr", service, lambda o: o["spec"].update(type="LoadBalancr"),
     (422, "Invalid", "spec.type", "FieldValueNotSupported"), "same"),
    ("Secret data not base64", secret, lambda o: o["data"].update(token="not base64!"),
     (400, "BadRequest", 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte',
      None), "same"),
    ("PVC without storage request", pvc, lambda o: o["spec"].pop("resources"),
     (422, "Invalid", "spec.resources[storage]", "FieldValueRequired"), "same"),
    ("HyperPodPyTorchJob integer nprocPerNode", hpj, lambda o: o["spec"].update(nprocPerNode=8),
     (422, "Invalid", "spec.nprocPerNode", "FieldValueTypeInvalid"), "same"),
    ("HyperPodPyTorchJob unknown runPolicy field", hpj, lambda o: o["spec"]["runPolicy"].update(retries=3),
     (400, "BadRequest", 'strict decoding error: unknown field "spec.runPolicy.retries"', None),
     (400, "BadRequest", ".spec.runPolicy.retries: field not declared in schema", None)),
    ("RayJob shutdownAfterJobFinishes yes", rayjob, lambda o: o["spec"].update(shutdownAfterJobFinishes="yes"),
     (422, "Invalid", "spec.shutdownAfterJobFinishes", "FieldValueTypeInvalid"), "same"),
    ("RayJob worker group without groupName", rayjob,
     lambda o: o["spec"]["rayClusterSpec"]["workerGroupSpecs"][0].pop("groupName"),
     (422, "Invalid", "spec.rayClusterSpec.workerGroupSpecs[0].groupName", "FieldValueRequired"), "same"),
    ("ScaledObject without triggers", scaledobject, lambda o: o["spec"].pop("triggers"),
     (422, "Invalid", "spec.triggers", "FieldValueRequired"), "same"),
    ("ScaledObject minReplicaCount string", scaledobject, lambda o: o["spec"].update(minReplicaCount="1"),
     (422, "Invalid", "spec.minReplicaCount", "FieldValueTypeInvalid"), "same"),
    ("NodePool consolidationPolicy Sometimes", nodepool,
     lambda o: o["spec"]["disruption"].update(consolidationPolicy="Sometimes"),
     (422, "Invalid", "spec.disruption.consolidationPolicy", "FieldValueNotSupported"), "same"),
    ("NodePool consolidateAfter 5 minutes", nodepool,
     lambda o: o["spec"]["disruption"].update(consolidateAfter="5 minutes"),
     (422, "Invalid", "spec.disruption.consolidateAfter", "FieldValueInvalid"), "same"),
    ("NodePool CEL rule: empty nodeClassRef.group", nodepool,
     lambda o: o["spec"]["template"]["spec"]["nodeClassRef"].update(group=""),
     (422, "Invalid", "spec.template.spec.nodeClassRef.group", "FieldValueInvalid"), "same"),
    ("NodePool CEL rule with a ternary and size(): In without values", nodepool,
     lambda o: o["spec"]["template"]["spec"]["requirements"][0].update(values=[]),
     (422, "Invalid", "spec.template.spec.requirements", "FieldValueInvalid"), "same"),
    ("NodePool CEL rule with has(): weight on a static NodePool", nodepool,
     lambda o: o["spec"].update(replicas=1, weight=5),
     (422, "Invalid", "spec", "FieldValueInvalid"), "same"),
    ("NodePool CEL rule with find(): restricted label domain", nodepool,
     lambda o: o["spec"]["template"]["spec"]["requirements"][0].update(key="foo.karpenter.sh/x"),
     (422, "Invalid", "spec.template.spec.requirements[0].key", "FieldValueInvalid"), "same"),
    ("selector does not match template labels", deployment,
     lambda o: o["spec"]["template"]["metadata"].update(labels={"app": "other"}),
     (422, "Invalid", "spec.template.metadata.labels", "FieldValueInvalid"), "same"),
    ("volumeMount of an undeclared volume", pod, bad_mount,
     (422, "Invalid", "spec.containers[0].volumeMounts[0].name", "FieldValueNotFound"), "same"),
    ("bad label value", pod, lambda o: o["metadata"].update(labels={"tier": "front end!"}),
     (422, "Invalid", "metadata.labels", "FieldValueInvalid"), "same"),
]


def check(label, r, exp, name):
    status, reason, frag, cause = exp
    body = r.json() if r.body else {}
    if status == 201:
        warn = r.headers.get("warning", "")
        t.ok(r.status == 201 and frag in warn, "%s: accepted with Warning (%s)" % (label, warn[:160] or r.status))
        return
    ok = r.status == status and body.get("reason") == reason and frag in body.get("message", "")
    if cause:
        causes = (body.get("details") or {}).get("causes") or []
        ok = ok and any(c.get("field") == frag and c.get("reason") == cause for c in causes)
        want = '"%s" is invalid: ' % name
        ok = ok and want in body.get("message", "")
    t.ok(ok, "%s: %d %s (%s)" % (label, r.status, body.get("reason"), body.get("message", "")[:220]))


def cleanup(kind, name):
    k.req("DELETE", PATHS[kind] + "/" + name)


for i, (label, good, defect, exp_create, exp_apply) in enumerate(CASES):
    obj = good()
    kind = obj["kind"]
    base = PATHS[kind]
    bad = good()
    defect(bad)
    name = "bad%d" % i
    bad["metadata"]["name"] = name
    strict = "?fieldValidation=Strict" if exp_create[0] == 400 and "unknown field" in exp_create[2] else ""
    check("create " + label, k.req("POST", base + strict, bad), exp_create, name)
    cleanup(kind, name)
    if exp_apply is not None:
        exp = exp_create if exp_apply == "same" else exp_apply
        check("apply " + label, k.req("PATCH", "%s/%s?fieldManager=t" % (base, name), bad, ctype=APPLY), exp, name)
        cleanup(kind, name)
    obj["metadata"]["name"] = "good%d" % i
    r = k.req("POST", base + "?fieldValidation=Strict", obj)
    t.ok(r.status == 201, "create valid twin of %s: %d %s" % (label, r.status, r.json().get("message", "")[:200]))
    cleanup(kind, obj["metadata"]["name"])
    obj["metadata"]["name"] = "goodapply%d" % i
    r = k.req("PATCH", "%s/goodapply%d?fieldManager=t" % (base, i), obj, ctype=APPLY)
    t.ok(r.status == 201, "apply valid twin of %s: %d %s" % (label, r.status, r.json().get("message", "")[:200]))
    cleanup(kind, obj["metadata"]["name"])

# ---- CEL transition rules (oldSelf) on update ------------------------------------------
obj = nodepool()
obj["metadata"]["name"] = "np-transition"
r = k.req("POST", PATHS["NodePool"], obj)
t.eq(r.status, 201, "NodePool created: transition rules do not run on create")
cur = r.json()
cur["spec"]["replicas"] = 2
r = k.req("PUT", PATHS["NodePool"] + "/np-transition", cur)
body = r.json()
t.ok(r.status == 422 and "Cannot transition NodePool between static (replicas set) and dynamic" in
     body.get("message", "") and any(c.get("field") == "spec" for c in body["details"]["causes"]),
     "PUT: a CEL transition rule refuses static replicas on a dynamic NodePool (%s)" % body.get("message", "")[:200])
r = k.req("PATCH", PATHS["NodePool"] + "/np-transition",
          {"spec": {"template": {"spec": {"nodeClassRef": {"kind": "OtherNodeClass"}}}}},
          ctype="application/merge-patch+json")
t.ok(r.status == 422 and "nodeClassRef.kind is immutable" in r.json().get("message", ""),
     "merge patch: nodeClassRef.kind is immutable (%s)" % r.json().get("message", "")[:200])
r = k.req("PATCH", PATHS["NodePool"] + "/np-transition", {"spec": {"weight": 7}},
          ctype="application/merge-patch+json")
t.eq(r.status, 200, "an update the transition rules allow is accepted")
cleanup("NodePool", "np-transition")

# ---- the exact Status of one refusal ------------------------------------------------
bad = pod()
c0(bad)["imagePullPolicy"] = "Sometimes"
r = k.req("POST", PATHS["Pod"], bad)
t.eq(r.json(), {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": 'Pod "p" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": '
                           'supported values: "Always", "IfNotPresent", "Never"',
                "reason": "Invalid", "code": 422,
                "details": {"name": "p", "kind": "Pod", "causes": [
                    {"reason": "FieldValueNotSupported", "field": "spec.containers[0].imagePullPolicy",
                     "message": 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", '
                                '"Never"'}]}},
     "422 Status as kube-apiserver words it")
bad = rayjob()
bad["spec"]["shutdownAfterJobFinishes"] = "yes"
r = k.req("POST", PATHS["RayJob"], bad)
t.eq((r.json().get("message"), r.json().get("details", {}).get("group")),
     ('RayJob.ray.io "rj" is invalid: spec.shutdownAfterJobFinishes: Invalid value: "string": '
      'spec.shutdownAfterJobFinishes in body must be of type boolean: "string"', "ray.io"),
     "CR refusal names the qualified kind and the type")

# ---- pruning, defaulting, warnings ---------------------------------------------------
obj = rayjob()
r = k.req("POST", PATHS["RayJob"], obj)
t.eq((r.status, r.json()["spec"].get("submissionMode")), (201, "K8sJobMode"),
     "RayJob spec.submissionMode defaulted from the CRD schema")
wg = r.json()["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
t.eq(wg.get("numOfHosts"), 1, "nested defaults applied (workerGroupSpecs[].numOfHosts)")
obj = hpj()
obj["spec"]["runPolicy"]["retries"] = 3
r = k.req("POST", PATHS["HyperPodPyTorchJob"], obj)
warn = r.headers.get("warning", "")
t.ok(r.status == 201 and "retries" not in r.json()["spec"]["runPolicy"] and
     'unknown field \\"spec.runPolicy.retries\\"' in warn,
     "without Strict an unknown CR field is pruned with a warning (%s)" % warn)
cleanup("HyperPodPyTorchJob", "j")
obj = deployment()
obj["spec"]["template"]["spec"]["containers"][0]["foo"] = 1
r = k.req("POST", PATHS["Deployment"], obj)
t.ok(r.status == 201 and "foo" not in r.json()["spec"]["template"]["spec"]["containers"][0],
     "without Strict an unknown built-in field is dropped")
r = k.req("PATCH", PATHS["Deployment"] + "/d", {"spec": {"replicas": "2"}}, ctype="application/merge-patch+json")
t.eq(r.status, 400, "merge patch result is validated too")
r = k.req("PATCH", PATHS["Deployment"] + "/d", [{"op": "replace", "path": "/spec/template/metadata/labels",
                                                 "value": {"app": "x"}}], ctype="application/json-patch+json")
t.eq((r.status, r.json().get("reason")), (422, "Invalid"), "JSON patch breaking the selector is refused")
cur = k.req("GET", PATHS["Deployment"] + "/d").json()
cur["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "Sometimes"
del cur["metadata"]["resourceVersion"]  # the controllers keep writing status
t.eq(k.req("PUT", PATHS["Deployment"] + "/d", cur).status, 422, "update (PUT) is validated")
d2 = deployment()
d2["spec"]["selector"]["matchLabels"]["tier"] = "a"
d2["spec"]["template"]["metadata"]["labels"]["tier"] = "a"
r = k.req("PATCH", PATHS["Deployment"] + "/d?fieldManager=t&force=true", d2, ctype=APPLY)
t.ok(r.status == 422 and "spec.selector: Invalid value: " in r.json().get("message", "") and
     "field is immutable" in r.json()["message"], "Deployment selector is immutable: " + r.json().get("message", "")[:200])
cleanup("Deployment", "d")
cleanup("RayJob", "rj")
JOBS = "/apis/batch/v1/namespaces/default/jobs"
job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "jb"},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36",
                                                                              "args": ["one"]}]}}}}
t.eq(k.req("PATCH", JOBS + "/jb?fieldManager=t", job, ctype=APPLY).status, 201, "Job applied")
job["spec"]["template"]["spec"]["containers"][0]["args"] = ["two"]
r = k.req("PATCH", JOBS + "/jb?fieldManager=t", job, ctype=APPLY)
t.ok(r.status == 422 and "spec.template: Invalid value: " in r.json().get("message", "") and
     "field is immutable" in r.json()["message"], "a Job's pod template is immutable: " +
     r.json().get("message", "")[:200])
k.req("DELETE", JOBS + "/jb")

# ---- a controller's refused pod is a FailedCreate event, as in a real cluster
obj = hpj()
obj["metadata"]["name"] = "badpod"
c0r = obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]
c0r["name"] = "Bad_Name"
t.eq(k.req("POST", PATHS["HyperPodPyTorchJob"], obj).status, 201,
     "the CRD schema does not check container names: HyperPodPyTorchJob accepted")


def failed_create():
    evs = k.req("GET", "/api/v1/namespaces/default/events").json()["items"]
    return [e for e in evs if e["reason"] == "FailedCreate" and e["involvedObject"]["name"] == "badpod"]


evs = wait_for(failed_create, timeout=10)
t.ok(evs and 'Pod "badpod-pods-0" is invalid: spec.containers[0].name: Invalid value: "Bad_Name"' in
     evs[0]["message"] and len(evs) == 1, "its pod is refused: one FailedCreate event (%s)" % (
         evs and evs[0]["message"][:160]))
cleanup("HyperPodPyTorchJob", "badpod")

# ---- real kubectl ---------------------------------------------------------------------
KUBECTL = find_kubectl()
if not KUBECTL:
    t.skip("no kubectl binary: kubectl cases")
else:
    cfg = sb.kubeconfig("val", token=tok)
    cache = os.path.join(sb.tmp, "kcache")

    def kubectl(*args):
        return run([KUBECTL, "--kubeconfig", cfg, "--cache-dir", cache, "--request-timeout=20s"] + list(args))

    def manifest(obj):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", dir=sb.tmp, delete=False)
        json.dump(obj, f)
        f.close()
        return f.name

    bad = deployment()
    c0(bad)["foo"] = 1
    rc, out, err = kubectl("create", "-f", manifest(bad))
    t.ok(rc != 0 and UNKNOWN_C in err, "kubectl create refuses an unknown field: " + err.strip()[:200])
    bad = rayjob()
    bad["spec"]["shutdownAfterJobFinishes"] = "yes"
    rc, out, err = kubectl("apply", "--server-side", "-f", manifest(bad))
    t.ok(rc != 0 and "spec.shutdownAfterJobFinishes in body must be of type boolean" in err,
         "kubectl apply --server-side refuses a wrong type: " + err.strip()[:200])
    bad = scaledobject()
    del bad["spec"]["triggers"]
    rc, out, err = kubectl("create", "-f", manifest(bad))
    t.ok(rc != 0 and "spec.triggers: Required value" in err, "kubectl create refuses a missing required field: "
         + err.strip()[:200])
    rc, out, err = kubectl("apply", "--server-side", "-f", manifest(nodepool()))
    t.ok(rc == 0 and "serverside-applied" in out, "kubectl apply --server-side accepts a valid NodePool: "
         + (out + err).strip()[:200])
    rc, out, err = kubectl("get", "nodepool", "np", "-o", "jsonpath={.spec.disruption.budgets[0].nodes}")
    t.eq((rc, out.strip()), (0, "10%"), "NodePool defaults applied (disruption.budgets)")

t.done()
