#!/usr/bin/python3
"""The sandbox runs the Helm installer Job of the Helm contract: a Job whose pod runs
alpine/helm with `upgrade --install` installs what the chart version really
installs (KubeRay: upstream CRDs, the operator's ClusterRole rules, Deployment),
records the release Secret and logs helm's output; an unknown chart version
fails the Job after its retries with helm's error; uninstall removes the
release but keeps the CRDs."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

t = T()
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("hl", net)
sb.hyperpod("hl-hp", eks["arn"], net, [("gpu", "ml.g5.12xlarge", 1)])
k = sb.kube("hl", sb.kube_token("hl")["token"])
APPLY = "application/apply-patch+yaml"
KS = "/apis/batch/v1/namespaces/kube-system/jobs"
MB = {"app.kubernetes.io/managed-by": "slipway"}
REPO = "https://ray-project.github.io/kuberay-helm/"

r = k.req("PATCH", "/api/v1/namespaces/kube-system/serviceaccounts/slipway-helm?fieldManager=slipway",
          {"apiVersion": "v1", "kind": "ServiceAccount",
           "metadata": {"name": "slipway-helm", "namespace": "kube-system", "labels": MB}}, ctype=APPLY)
t.eq(r.status, 201, "ServiceAccount slipway-helm applied")
r = k.req("PATCH", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/slipway-helm?fieldManager=slipway",
          {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
           "metadata": {"name": "slipway-helm", "labels": MB},
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
           "subjects": [{"kind": "ServiceAccount", "name": "slipway-helm", "namespace": "kube-system"}]},
          ctype=APPLY)
t.eq(r.status, 201, "ClusterRoleBinding slipway-helm applied")


def job(name, release, args):
    labels = dict(MB, **{"slipway.dev/helm-release": release})
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "kube-system", "labels": labels},
            "spec": {"backoffLimit": 2, "template": {"metadata": {"labels": labels}, "spec": {
                "restartPolicy": "Never", "serviceAccountName": "slipway-helm",
                "containers": [{"name": "helm", "image": "docker.io/alpine/helm:3.16.4", "args": args}]}}}}


def run_job(name, release, args):
    r = k.req("PATCH", KS + "/%s?fieldManager=slipway" % name, job(name, release, args), ctype=APPLY)
    t.eq(r.status, 201, "Job %s applied (%s)" % (name, r.json().get("message", "")[:200]))

    def finished():
        conds = (k.req("GET", KS + "/" + name).json().get("status") or {}).get("conditions") or []
        return next((c for c in conds if c["type"] in ("Complete", "Failed") and c["status"] == "True"), None)
    return wait_for(finished, timeout=30)


def pod_logs(name):
    pods = k.req("GET", "/api/v1/namespaces/kube-system/pods?labelSelector=job-name%3D" + name).json()["items"]
    return pods, [k.req("GET", "/api/v1/namespaces/kube-system/pods/%s/log" % p["metadata"]["name"]).text
                  for p in pods]


INSTALL = ["upgrade", "--install", "kuberay-operator", "kuberay-operator", "--repo", REPO, "--version", "1.4.2",
           "--namespace", "ray-system", "--create-namespace", "--wait", "--timeout", "10m0s",
           "--set", "image.pullPolicy=IfNotPresent"]
cond = run_job("helm-kuberay-operator", "kuberay-operator", INSTALL)
t.eq((cond or {}).get("type"), "Complete", "install Job completes")
pods, logs = pod_logs("helm-kuberay-operator")
t.ok(logs and 'Release "kuberay-operator" does not exist. Installing it now.' in logs[0] and
     "STATUS: deployed" in logs[0], "helm output in the pod log: %r" % (logs[:1],))
crd = k.req("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayjobs.ray.io").json()
sch = crd.get("spec", {}).get("versions", [{}])[0].get("schema", {}).get("openAPIV3Schema", {})
t.ok("submissionMode" in sch.get("properties", {}).get("spec", {}).get("properties", {}),
     "rayjobs.ray.io is the upstream CRD with its schema")
cr = k.req("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/kuberay-operator").json()
res = {(g, x) for rule in cr.get("rules", []) for g in rule["apiGroups"] for x in rule["resources"]}
t.ok({("coordination.k8s.io", "leases"), ("", "endpoints"), ("", "pods/status"),
      ("rbac.authorization.k8s.io", "roles"), ("rbac.authorization.k8s.io", "rolebindings"),
      ("networking.k8s.io", "ingresses")} <= res, "operator ClusterRole carries the chart's rules")
d = k.req("GET", "/apis/apps/v1/namespaces/ray-system/deployments/kuberay-operator").json()
t.eq(d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [{}])[0].get("image"),
     "quay.io/kuberay/operator:v1.4.2", "operator Deployment with the chart's image")
s = k.req("GET", "/api/v1/namespaces/ray-system/secrets/sh.helm.release.v1.kuberay-operator.v1").json()
t.eq((s.get("type"), s.get("metadata", {}).get("labels", {}).get("status")), ("helm.sh/release.v1", "deployed"),
     "release Secret as Helm stores it")

cond = run_job("helm-kuberay-operator-2", "kuberay-operator", INSTALL)
pods, logs = pod_logs("helm-kuberay-operator-2")
t.ok((cond or {}).get("type") == "Complete" and logs and
     'Release "kuberay-operator" has been upgraded. Happy Helming!' in logs[0] and "REVISION: 2" in logs[0],
     "second run upgrades to revision 2")

BAD = ["upgrade", "--install", "foo", "foo", "--repo", "https://aws.github.io/eks-charts", "--version", "9.9.9",
       "--namespace", "kube-system", "--create-namespace", "--wait", "--timeout", "10m0s"]
cond = run_job("helm-foo", "foo", BAD)
t.eq(((cond or {}).get("type"), (cond or {}).get("reason")), ("Failed", "BackoffLimitExceeded"),
     "unknown chart: Job Failed after its retries")
pods, logs = pod_logs("helm-foo")
t.eq(len(pods), 3, "backoffLimit 2: three pods tried")
t.ok(logs and all('Error: chart "foo" version "9.9.9" not found in https://aws.github.io/eks-charts repository'
                  in x for x in logs), "helm's error in each pod log: %r" % (logs[:1],))
t.ok(all(p["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 1 for p in pods),
     "each helm pod exits 1")

LBC = ["upgrade", "--install", "aws-load-balancer-controller", "aws-load-balancer-controller", "--repo",
       "https://aws.github.io/eks-charts", "--version", "1.13.2", "--namespace", "kube-system",
       "--set", "clusterName=hl", "--wait", "--timeout", "10m0s"]
cond = run_job("helm-lbc", "aws-load-balancer-controller", LBC)
t.eq((cond or {}).get("type"), "Complete", "load balancer controller chart installs")
for name in ("targetgroupbindings.elbv2.k8s.aws", "ingressclassparams.elbv2.k8s.aws"):
    crd = k.req("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name).json()
    sch = crd.get("spec", {}).get("versions", [{}])[0].get("schema", {}).get("openAPIV3Schema", {})
    t.ok("spec" in sch.get("properties", {}), "the chart brings %s with its upstream schema" % name)

cond = run_job("helm-kuberay-operator-uninstall", "kuberay-operator",
               ["uninstall", "kuberay-operator", "--namespace", "ray-system", "--wait", "--timeout", "10m0s"])
t.eq((cond or {}).get("type"), "Complete", "uninstall Job completes")
t.eq(k.req("GET", "/apis/apps/v1/namespaces/ray-system/deployments/kuberay-operator").status, 404,
     "uninstall removes the operator")
t.eq(k.req("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/kuberay-operator").status, 404,
     "uninstall removes the ClusterRole")
t.eq(k.req("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayjobs.ray.io").status, 200,
     "uninstall keeps the CRDs, as Helm does")
t.eq(k.req("GET", "/api/v1/namespaces/ray-system/secrets/sh.helm.release.v1.kuberay-operator.v1").status, 404,
     "release Secrets removed")
t.done()
