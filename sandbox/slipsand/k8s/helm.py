"""The in-cluster Helm installer Job, simulated: what `helm upgrade --install` really does.

Slipway installs chart-only components by running a Job whose pod runs the
image `alpine/helm` with helm's arguments (see the Helm contract in the
project's docs).  When the kubelet simulation has such a pod Running, `step()`
performs the command once: for a chart in CHARTS it creates what that chart
version installs (upstream CRDs from ../shared where the chart ships them, the
ServiceAccount, RBAC with the chart's rules, the Deployment or DaemonSet with
the chart's image and mounts), records the release in a
`sh.helm.release.v1.<release>.v<N>` Secret as Helm does, writes helm's output
as the pod log and ends the pod Succeeded; an unknown repository, chart or
version ends it Failed (exit 1) with helm's error line, and the Job controller
retries it up to backoffLimit.  `uninstall` removes what the release created
except CRDs (Helm keeps them).

Known limits: `--set` values other than those a chart below reads are
ignored; `--wait` does not wait for rollouts.  The load balancer controller's
chart brings its elbv2.k8s.aws CRDs (TargetGroupBinding, IngressClassParams;
bundle aws-load-balancer-controller-v2.13.2); a chart CRD with no upstream
schema in ../shared would not be installed (MISSING_CRDS).
"""
import base64
import copy
import gzip
import json
import re
import time

from . import crdbundle

IMAGE_RE = re.compile(r"(^|/)alpine/helm(:|@|$)")
LOG_ANN = "sandbox.slipway.dev/helm-log"
DONE_ANN = "sandbox.slipway.dev/helm-done"
EKS_CHARTS = "https://aws.github.io/eks-charts"

KUBERAY_RULES = [
    {"apiGroups": [""], "resources": ["endpoints"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["events", "pods/status", "services"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": [""], "resources": ["pods"],
     "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": [""], "resources": ["pods/proxy", "services/status"], "verbs": ["get", "patch", "update"]},
    {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["create", "delete", "get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["services/proxy"], "verbs": ["create", "get", "patch", "update"]},
    {"apiGroups": ["batch"], "resources": ["jobs"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create", "get", "list", "update"]},
    {"apiGroups": ["extensions", "networking.k8s.io"], "resources": ["ingresses"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingressclasses"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["ray.io"], "resources": ["rayclusters", "rayjobs", "rayservices"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["ray.io"], "resources": ["rayclusters/finalizers", "rayjobs/finalizers",
                                            "rayservices/finalizers"], "verbs": ["update"]},
    {"apiGroups": ["ray.io"], "resources": ["rayclusters/status", "rayjobs/status", "rayservices/status"],
     "verbs": ["get", "patch", "update"]},
    {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["rolebindings"],
     "verbs": ["create", "delete", "get", "list", "watch"]},
    {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
     "verbs": ["create", "delete", "get", "list", "update", "watch"]},
    {"apiGroups": ["route.openshift.io"], "resources": ["routes"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
]
LEADER_ELECTION_RULES = [
    {"apiGroups": [""], "resources": ["configmaps"],
     "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create", "get", "list", "update"]},
]
LBC_RULES = [
    {"apiGroups": ["elbv2.k8s.aws"], "resources": ["targetgroupbindings"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["elbv2.k8s.aws"], "resources": ["ingressclassparams"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingressclasses"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["", "extensions", "networking.k8s.io"], "resources": ["services", "ingresses"],
     "verbs": ["get", "list", "patch", "update", "watch"]},
    {"apiGroups": [""], "resources": ["nodes", "namespaces", "endpoints"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["elbv2.k8s.aws", "", "extensions", "networking.k8s.io"],
     "resources": ["targetgroupbindings/status", "pods/status", "services/status", "ingresses/status"],
     "verbs": ["update", "patch"]},
    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["get", "list", "watch"]},
]

MISSING_CRDS = []


def _labels(release, chart, version, app_version, name):
    return {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release,
            "app.kubernetes.io/version": app_version, "app.kubernetes.io/managed-by": "Helm",
            "helm.sh/chart": "%s-%s" % (chart, version)}


def _kuberay(release, ns, values):
    name = "kuberay-operator"
    labels = _labels(release, "kuberay-operator", "1.4.2", "v1.4.2", name)
    sel = {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release}
    pod_labels = dict(labels, **{"app.kubernetes.io/component": "kuberay-operator"})
    return crdbundle.crds("kuberay-v1.4.2") + [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns, "labels": labels}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": name, "labels": labels}, "rules": KUBERAY_RULES},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": name, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
         "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
         "metadata": {"name": name + "-leader-election", "namespace": ns, "labels": labels},
         "rules": LEADER_ELECTION_RULES},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": {"name": name + "-leader-election", "namespace": ns, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name + "-leader-election"},
         "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}]},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns, "labels": labels},
         "spec": {"replicas": 1, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": sel},
                  "template": {"metadata": {"labels": pod_labels}, "spec": {
                      "serviceAccountName": name,
                      "securityContext": {},
                      "containers": [{"name": name, "image": "quay.io/kuberay/operator:v1.4.2",
                                      "imagePullPolicy": "IfNotPresent", "command": ["/manager"],
                                      "args": ["--feature-gates=RayClusterStatusConditions=true"],
                                      "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                                      "env": [{"name": "ENABLE_INIT_CONTAINER_INJECTION", "value": "true"}],
                                      "livenessProbe": {"httpGet": {"path": "/metrics", "port": "http"},
                                                        "initialDelaySeconds": 10, "periodSeconds": 5,
                                                        "failureThreshold": 5},
                                      "readinessProbe": {"httpGet": {"path": "/metrics", "port": "http"},
                                                         "initialDelaySeconds": 10, "periodSeconds": 5,
                                                         "failureThreshold": 5},
                                      "resources": {"limits": {"cpu": "100m", "memory": "512Mi"}}}]}}}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns, "labels": labels},
         "spec": {"type": "ClusterIP", "selector": sel,
                  "ports": [{"name": "monitoring-port", "port": 8080, "targetPort": 8080, "protocol": "TCP"}]}},
    ]


def _lbc(release, ns, values):
    if not values.get("clusterName"):
        raise HelmError("Error: execution error at (aws-load-balancer-controller/templates/deployment.yaml:"
                        "84:12): Chart cannot be installed without a valid clusterName!")
    name = "aws-load-balancer-controller"
    labels = _labels(release, name, "1.13.2", "v2.13.2", name)
    sel = {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release}
    sa_name = values.get("serviceAccount.name") or name
    objs = crdbundle.crds("aws-load-balancer-controller-v2.13.2")
    if values.get("serviceAccount.create", "true") != "false":
        objs.append({"apiVersion": "v1", "kind": "ServiceAccount",
                     "metadata": {"name": sa_name, "namespace": ns, "labels": labels}})
    args = ["--cluster-name=" + values["clusterName"], "--ingress-class=alb"]
    if values.get("region"):
        args.append("--aws-region=" + values["region"])
    if values.get("vpcId"):
        args.append("--aws-vpc-id=" + values["vpcId"])
    return objs + [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": name + "-role", "labels": labels}, "rules": LBC_RULES},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": name + "-rolebinding", "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name + "-role"},
         "subjects": [{"kind": "ServiceAccount", "name": sa_name, "namespace": ns}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
         "metadata": {"name": name + "-leader-election-role", "namespace": ns, "labels": labels},
         "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
                   {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["aws-load-balancer-controller-leader"],
                    "verbs": ["get", "patch", "update"]},
                   {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
                   {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                    "resourceNames": ["aws-load-balancer-controller-leader"], "verbs": ["get", "update", "patch"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": {"name": name + "-leader-election-rolebinding", "namespace": ns, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name + "-leader-election-role"},
         "subjects": [{"kind": "ServiceAccount", "name": sa_name, "namespace": ns}]},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns, "labels": labels},
         "spec": {"replicas": 2, "revisionHistoryLimit": 10, "selector": {"matchLabels": sel},
                  "template": {"metadata": {"labels": sel}, "spec": {
                      "serviceAccountName": sa_name, "priorityClassName": "system-cluster-critical",
                      "securityContext": {"fsGroup": 65534},
                      "volumes": [{"name": "cert", "secret": {"secretName": "aws-load-balancer-tls",
                                                              "defaultMode": 420}}],
                      "containers": [{"name": "aws-load-balancer-controller",
                                      "image": "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.2",
                                      "imagePullPolicy": "IfNotPresent", "args": args,
                                      "ports": [{"name": "webhook-server", "containerPort": 9443,
                                                 "protocol": "TCP"},
                                                {"name": "metrics-server", "containerPort": 8080,
                                                 "protocol": "TCP"}],
                                      "volumeMounts": [{"name": "cert", "mountPath": "/tmp/k8s-webhook-server/"
                                                                                     "serving-certs",
                                                        "readOnly": True}],
                                      "securityContext": {"readOnlyRootFilesystem": True, "runAsNonRoot": True,
                                                          "allowPrivilegeEscalation": False}}]}}}},
        {"apiVersion": "v1", "kind": "Service",
         "metadata": {"name": "aws-load-balancer-webhook-service", "namespace": ns, "labels": labels},
         "spec": {"selector": sel, "ports": [{"name": "webhook-server", "port": 443, "targetPort": "webhook-server",
                                              "protocol": "TCP"}]}},
        {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
         "metadata": {"name": "aws-load-balancer-tls", "namespace": ns, "labels": labels},
         "data": {"ca.crt": "", "tls.crt": "", "tls.key": ""}},
    ]


def _nvidia(release, ns, values):
    name = "nvidia-device-plugin"
    labels = _labels(release, name, "0.16.1", "0.16.1", name)
    sel = {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release}
    return [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": ns,
                                                                          "labels": labels},
             "spec": {"selector": {"matchLabels": sel}, "updateStrategy": {"type": "RollingUpdate"},
                      "template": {"metadata": {"labels": sel}, "spec": {
                          "priorityClassName": "system-node-critical", "securityContext": {},
                          "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                                          {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                          "containers": [{"name": "nvidia-device-plugin-ctr",
                                          "image": "nvcr.io/nvidia/k8s-device-plugin:v0.16.1",
                                          "imagePullPolicy": "IfNotPresent",
                                          "command": ["nvidia-device-plugin"],
                                          "env": [{"name": "MPS_ROOT", "value": "/run/nvidia/mps"},
                                                  {"name": "NVIDIA_MIG_MONITOR_DEVICES", "value": "all"},
                                                  {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
                                                  {"name": "NVIDIA_DRIVER_CAPABILITIES",
                                                   "value": "compute,utility"}],
                                          "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}},
                                          "volumeMounts": [
                                              {"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"},
                                              {"name": "mps-root", "mountPath": "/mps"},
                                              {"name": "mps-shm", "mountPath": "/dev/shm"},
                                              {"name": "cdi-root", "mountPath": "/var/run/cdi"}]}],
                          "volumes": [
                              {"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}},
                              {"name": "mps-root", "hostPath": {"path": "/run/nvidia/mps",
                                                                "type": "DirectoryOrCreate"}},
                              {"name": "mps-shm", "hostPath": {"path": "/run/nvidia/mps/shm"}},
                              {"name": "cdi-root", "hostPath": {"path": "/var/run/cdi",
                                                                "type": "DirectoryOrCreate"}}]}}}}]


def _efa(release, ns, values):
    name = "aws-efa-k8s-device-plugin"
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release,
              "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "%s-v0.5.20" % name}
    return [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": ns,
                                                                          "labels": labels},
             "spec": {"selector": {"matchLabels": {"name": name}},
                      "template": {"metadata": {"labels": {"name": name}}, "spec": {
                          "automountServiceAccountToken": False, "hostNetwork": True,
                          "priorityClassName": "system-node-critical",
                          "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                                          {"key": "aws.amazon.com/efa", "operator": "Exists",
                                           "effect": "NoSchedule"}],
                          "containers": [{"name": name,
                                          "image": "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/"
                                                   "aws-efa-k8s-device-plugin:v0.5.20",
                                          "securityContext": {"allowPrivilegeEscalation": False,
                                                              "capabilities": {"drop": ["ALL"]},
                                                              "runAsNonRoot": False},
                                          "resources": {"requests": {"cpu": "10m", "memory": "20Mi"}},
                                          "volumeMounts": [
                                              {"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"},
                                              {"name": "infiniband-volume", "mountPath": "/dev/infiniband/"},
                                              {"name": "neuron-tools", "mountPath": "/opt/aws/neuron/"}]}],
                          "volumes": [
                              {"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}},
                              {"name": "infiniband-volume", "hostPath": {"path": "/dev/infiniband/"}},
                              {"name": "neuron-tools", "hostPath": {"path": "/opt/aws/neuron/",
                                                                    "type": "DirectoryOrCreate"}}]}}}}]


# (repo URL, chart) -> {version: (app version, manifest builder)}
CHARTS = {
    ("https://ray-project.github.io/kuberay-helm", "kuberay-operator"): {"1.4.2": ("v1.4.2", _kuberay)},
    (EKS_CHARTS, "aws-load-balancer-controller"): {"1.13.2": ("v2.13.2", _lbc)},
    ("https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin"): {"0.16.1": ("0.16.1", _nvidia)},
    (EKS_CHARTS, "aws-efa-k8s-device-plugin"): {"0.5.20": ("v0.5.20", _efa)},
}
REPOS = {repo for repo, _ in CHARTS}


class HelmError(Exception):
    pass


def is_helm_pod(pod):
    cs = (pod.get("spec") or {}).get("containers") or []
    return len(cs) >= 1 and bool(IMAGE_RE.search(str(cs[0].get("image") or "")))


def parse(args):
    """helm argv (after the entrypoint) -> dict; raises HelmError as helm's flag parser does."""
    args = [str(a) for a in args or []]
    if not args:
        raise HelmError("Error: unknown command \"\" for \"helm\"")
    cmd = {"verb": args[0], "pos": [], "set": {}, "flags": {}}
    i = 1
    takes = {"--repo", "--version", "--namespace", "-n", "--timeout", "--set", "--values", "-f"}
    while i < len(args):
        a = args[i]
        if a.startswith("--") and "=" in a:
            a, v = a.split("=", 1)
            args[i:i + 1] = [a, v]
        if a in takes:
            if i + 1 >= len(args):
                raise HelmError("Error: flag needs an argument: %s" % a)
            v = args[i + 1]
            if a == "--set":
                for kv in v.split(","):
                    k, _, val = kv.partition("=")
                    cmd["set"][k] = val
            else:
                cmd["flags"][{"-n": "--namespace"}.get(a, a)] = v
            i += 2
            continue
        if a.startswith("-"):
            cmd["flags"][a] = True
        else:
            cmd["pos"].append(a)
        i += 1
    return cmd


def _release_secret(release, ns, revision, chart, version, app, status, manifest, now_text):
    rel = {"name": release, "namespace": ns, "version": revision,
           "info": {"first_deployed": now_text, "last_deployed": now_text, "status": status,
                    "description": "Install complete" if revision == 1 else "Upgrade complete"},
           "chart": {"metadata": {"name": chart, "version": version, "appVersion": app, "apiVersion": "v2"}},
           "manifest": manifest, "config": {}}
    blob = base64.b64encode(gzip.compress(json.dumps(rel).encode())).decode()
    return {"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
            "metadata": {"name": "sh.helm.release.v1.%s.v%d" % (release, revision), "namespace": ns,
                         "labels": {"name": release, "owner": "helm", "status": status,
                                    "version": str(revision)}},
            "data": {"release": base64.b64encode(blob.encode()).decode()}}


def _revisions(kc, release, ns):
    out = []
    for s in kc.store.list("", "secrets", ns):
        lb = s["metadata"].get("labels") or {}
        if s.get("type") == "helm.sh/release.v1" and lb.get("name") == release and lb.get("owner") == "helm":
            out.append(s)
    return sorted(out, key=lambda s: int((s["metadata"].get("labels") or {}).get("version", "0")))


def _date(now):
    return time.strftime("%a %b %e %H:%M:%S %Y", time.gmtime(now))


def _ensure_ns(kc, ns):
    if kc.store.get("", "namespaces", None, ns) is None:
        kc.ensure({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}, manager="helm")


def install(kc, cmd, now):
    """Run `helm upgrade --install`; returns the log lines; raises HelmError."""
    if len(cmd["pos"]) < 2:
        raise HelmError('Error: "helm upgrade" requires 2 arguments')
    release, chart = cmd["pos"][0], cmd["pos"][1]
    repo_arg = str(cmd["flags"].get("--repo", ""))
    repo = repo_arg.rstrip("/")
    version = cmd["flags"].get("--version")
    ns = cmd["flags"].get("--namespace", "default")
    if not repo:
        raise HelmError("Error: repo %s not found" % chart.split("/")[0])
    if repo not in REPOS:
        raise HelmError('Error: looks like "%s/" is not a valid chart repository or cannot be reached: '
                        'failed to fetch %s/index.yaml : 404 Not Found' % (repo, repo))
    versions = CHARTS.get((repo, chart))
    if versions is None or (version and version.lstrip("v") not in versions):
        if version:
            raise HelmError('Error: chart "%s" version "%s" not found in %s repository' % (chart, version, repo_arg))
        raise HelmError('Error: chart "%s" not found in %s repository' % (chart, repo_arg))
    version = (version or sorted(versions)[-1]).lstrip("v")
    app, build = versions[version]
    if kc.store.get("", "namespaces", None, ns) is None:
        if not cmd["flags"].get("--create-namespace"):
            raise HelmError('Error: create: failed to create: namespaces "%s" not found' % ns)
        _ensure_ns(kc, ns)
    objs = build(release, ns, cmd["set"])
    revs = _revisions(kc, release, ns)
    revision = len(revs) + 1 if revs else 1
    for obj in objs:
        md = obj.setdefault("metadata", {})
        if obj["kind"] != "CustomResourceDefinition":
            md.setdefault("annotations", {}).update({"meta.helm.sh/release-name": release,
                                                     "meta.helm.sh/release-namespace": ns})
        group, _, _ = obj["apiVersion"].rpartition("/")
        rtype = kc.registry().by_kind(group, obj["kind"])
        if rtype is None:
            continue
        cur = kc.store.get(group, rtype.plural, md.get("namespace") if rtype.namespaced else None, md["name"])
        if cur is None:
            kc.create_object(group, rtype.plural, copy.deepcopy(obj), manager="helm", rtype=rtype)
        elif obj["kind"] != "CustomResourceDefinition":
            new = copy.deepcopy(obj)
            new["metadata"] = dict(cur["metadata"], labels=md.get("labels"), annotations=md.get("annotations"))
            new.pop("status", None)
            if "status" in cur:
                new["status"] = cur["status"]
            kc.store.update(group, rtype.plural, new, bump_generation=True)
    manifest = "\n---\n".join(json.dumps(o) for o in objs if o["kind"] != "CustomResourceDefinition")
    for old in revs:
        if (old["metadata"].get("labels") or {}).get("status") == "deployed":
            o = copy.deepcopy(old)
            o["metadata"]["labels"]["status"] = "superseded"
            kc.store.update("", "secrets", o)
    from .store import now_rfc3339
    kc.create_object("", "secrets", _release_secret(release, ns, revision, chart, version, app, "deployed",
                                                     manifest, now_rfc3339(now)), manager="helm")
    head = ('Release "%s" does not exist. Installing it now.' % release if revision == 1
            else 'Release "%s" has been upgraded. Happy Helming!' % release)
    return [head, "NAME: %s" % release, "LAST DEPLOYED: %s" % _date(now), "NAMESPACE: %s" % ns,
            "STATUS: deployed", "REVISION: %d" % revision, "TEST SUITE: None"]


def uninstall(kc, cmd):
    if not cmd["pos"]:
        raise HelmError('Error: "helm uninstall" requires at least 1 argument')
    release = cmd["pos"][0]
    ns = cmd["flags"].get("--namespace", "default")
    revs = _revisions(kc, release, ns)
    if not revs:
        raise HelmError("Error: uninstall: Release not loaded: %s: release: not found" % release)
    data = base64.b64decode(revs[-1]["data"]["release"]).decode()
    rel = json.loads(gzip.decompress(base64.b64decode(data)))
    docs = [json.loads(d) for d in rel.get("manifest", "").split("\n---\n") if d.strip()]
    for obj in reversed(docs):
        group, _, _ = obj["apiVersion"].rpartition("/")
        rtype = kc.registry().by_kind(group, obj["kind"])
        if rtype is not None:
            kc.delete_object(group, rtype.plural, obj["metadata"].get("namespace") if rtype.namespaced else None,
                             obj["metadata"]["name"])
    for s in revs:
        kc.delete_object("", "secrets", ns, s["metadata"]["name"])
    return ['release "%s" uninstalled' % release]


def step(kc, now):
    """Perform the helm command of every helm pod the kubelet has started; end the pod."""
    for pod in kc.store.list("", "pods"):
        if pod["status"].get("phase") != "Running" or not is_helm_pod(pod):
            continue
        ann = pod["metadata"].get("annotations") or {}
        if ann.get(DONE_ANN):
            continue
        c = pod["spec"]["containers"][0]
        ok = True
        try:
            if c.get("command"):
                raise HelmError("Error: unknown command \"%s\" for \"helm\"" % c["command"][0])
            cmd = parse(c.get("args"))
            if cmd["verb"] in ("upgrade", "install"):
                if cmd["verb"] == "upgrade" and not cmd["flags"].get("--install") and \
                        not _revisions(kc, (cmd["pos"] or [""])[0], cmd["flags"].get("--namespace", "default")):
                    raise HelmError('Error: UPGRADE FAILED: "%s" has no deployed releases' % (cmd["pos"] or [""])[0])
                out = install(kc, cmd, now)
            elif cmd["verb"] == "uninstall":
                out = uninstall(kc, cmd)
            else:
                raise HelmError("Error: unknown command \"%s\" for \"helm\"" % cmd["verb"])
        except HelmError as e:
            ok = False
            out = [str(e)]
        pod = kc.store.get("", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
        if pod is None:
            continue
        pod = copy.deepcopy(pod)
        from .store import now_rfc3339
        end = now_rfc3339(now)
        pod["metadata"].setdefault("annotations", {}).update({DONE_ANN: "true", LOG_ANN: json.dumps(out)})
        st = pod["status"]
        st["phase"] = "Succeeded" if ok else "Failed"
        for cs in st.get("containerStatuses") or []:
            cs["ready"] = False
            cs["started"] = False
            cs["state"] = {"terminated": {"exitCode": 0 if ok else 1, "reason": "Completed" if ok else "Error",
                                          "startedAt": st.get("startTime"), "finishedAt": end}}
        for cond in st.get("conditions") or []:
            if cond["type"] in ("Ready", "ContainersReady"):
                cond["status"] = "False"
                cond["reason"] = "PodCompleted" if ok else "PodFailed"
        kc.store.update("", "pods", pod)


def log_lines(pod):
    """[(offset, text)] of a finished helm pod's output, or None for other pods."""
    raw = ((pod.get("metadata") or {}).get("annotations") or {}).get(LOG_ANN)
    if raw is None:
        return None
    return [(0.0, line) for line in json.loads(raw)]
