"""What a new EKS cluster and each EKS add-on put into the Kubernetes API.

Bootstrap objects (namespaces, the `kubernetes` service, gp2 storage class,
default service accounts, cluster roles) and, per add-on, its namespace,
CRDs and operator Deployment/DaemonSet.  CRDs are the upstream ones, built by
crdbundle from ../shared/testdata/crds with their real schemas: the HyperPod
training operator installs `hyperpodpytorchjobs.sagemaker.amazonaws.com`, the
inference operator the `inference.sagemaker.aws.amazon.com` kinds and, since
the real add-on bundles KEDA 2.17.1, `scaledobjects.keda.sh` and a keda
operator in namespace `keda`.

The inference operator also installs its third kind,
SageMakerEndpointRegistration; cert-manager its four kinds (v1.18.2); the
task governance add-on (v1.6.0-eksbuild.1 packages Kueue v0.19.2) the five
Kueue kinds, both served versions (k8s/kueue.py runs Kueue).  A kind with
no upstream schema in the bundles would get no CRD at all (a schema-less
CRD accepts anything, which no real cluster does); `MISSING_CRDS` would
list it so the sandbox says so at start.

HyperPod Spaces (`amazon-sagemaker-spaces`) installs the jupyter-k8s v0.2.0
kinds, its operator in `jupyter-k8s-system` and the system templates and
access strategy (k8s/spaces.py).
"""
from . import crdbundle, spaces

MISSING_CRDS = {}

AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
PRINTERS = {
    "HyperPodPyTorchJob": [{"name": "Status", "type": "string", "jsonPath": ".status.conditions[-1:].type"}, AGE],
    "InferenceEndpointConfig": [{"name": "State", "type": "string", "jsonPath": ".status.state"},
                                {"name": "Replicas", "type": "integer", "jsonPath": ".status.replicas"}, AGE],
    "ScaledObject": [{"name": "ScaleTargetKind", "type": "string", "jsonPath": ".status.scaleTargetKind"},
                     {"name": "ScaleTargetName", "type": "string", "jsonPath": ".spec.scaleTargetRef.name"},
                     {"name": "Min", "type": "integer", "jsonPath": ".spec.minReplicaCount"},
                     {"name": "Max", "type": "integer", "jsonPath": ".spec.maxReplicaCount"},
                     {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
                     {"name": "Active", "type": "string",
                      "jsonPath": ".status.conditions[?(@.type==\"Active\")].status"}, AGE],
}
PRINTERS["JumpStartModel"] = PRINTERS["InferenceEndpointConfig"]


def upstream_crds(bundle, kinds=None):
    """The upstream CRDs of `bundle` (empty when ../shared is missing), with printer columns."""
    out = crdbundle.crds(bundle, kinds)
    for crd in out:
        cols = PRINTERS.get(crd["spec"]["names"]["kind"])
        if cols:
            for v in crd["spec"]["versions"]:
                v["additionalPrinterColumns"] = cols
    return out


def deployment(name, ns, image, replicas=1, labels=None, node_selector=None, sa=None):
    labels = labels or {"app.kubernetes.io/name": name}
    spec = {"containers": [{"name": "manager", "image": image,
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if sa:
        spec["serviceAccountName"] = sa
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": dict(labels)},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)}, "spec": spec}}}


def daemonset(name, ns, image):
    labels = {"k8s-app": name}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": ns, "labels": dict(labels)},
            "spec": {"selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)},
                                  "spec": {"containers": [{"name": name, "image": image}]}}}}


def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def sa(name, ns):
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns}}


def csidriver(name):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": name},
            "spec": {"attachRequired": False, "podInfoOnMount": False}}


ECR = "602401143452.dkr.ecr.us-west-2.amazonaws.com"

ADDON_OBJECTS = {
    "amazon-sagemaker-hyperpod-training-operator": lambda: [
        namespace("aws-hyperpod"),
        *upstream_crds("hyperpod-training-operator"),
        sa("hp-training-operator-controller-manager", "aws-hyperpod"),
        deployment("hp-training-operator-hp-training-controller-manager", "aws-hyperpod",
                   ECR + "/hyperpod-training-operator:v1.2.0",
                   labels={"hp-training-control-plane": "hp-training-controller-manager"},
                   sa="hp-training-operator-controller-manager"),
    ],
    "amazon-sagemaker-hyperpod-inference": lambda: [
        namespace("hyperpod-inference-system"),
        namespace("keda"),
        *upstream_crds("hyperpod-inference-operator"),
        *upstream_crds("hyperpod-endpoint-registration"),
        *upstream_crds("keda-v2.17.1"),
        deployment("hyperpod-inference-operator-controller-manager", "hyperpod-inference-system",
                   ECR + "/hyperpod-inference-operator:v3.1.0"),
        sa("keda-operator", "keda"),
        deployment("keda-operator", "keda", "ghcr.io/kedacore/keda:2.17.1",
                   labels={"app": "keda-operator", "app.kubernetes.io/name": "keda-operator"},
                   sa="keda-operator"),
        deployment("keda-operator-metrics-apiserver", "keda", "ghcr.io/kedacore/keda-metrics-apiserver:2.17.1",
                   labels={"app": "keda-operator-metrics-apiserver",
                           "app.kubernetes.io/name": "keda-operator-metrics-apiserver"},
                   sa="keda-operator"),
    ],
    "cert-manager": lambda: [
        namespace("cert-manager"),
        *upstream_crds("cert-manager-v1.18.2"),
        deployment("cert-manager", "cert-manager", "quay.io/jetstack/cert-manager-controller:v1.18.2"),
        deployment("cert-manager-cainjector", "cert-manager", "quay.io/jetstack/cert-manager-cainjector:v1.18.2"),
        deployment("cert-manager-webhook", "cert-manager", "quay.io/jetstack/cert-manager-webhook:v1.18.2"),
    ],
    "amazon-sagemaker-hyperpod-taskgovernance": lambda: [
        namespace("kueue-system"),
        *upstream_crds("kueue-v0.19.2"),
        deployment("kueue-controller-manager", "kueue-system", "registry.k8s.io/kueue/kueue:v0.19.2"),
    ],
    "amazon-sagemaker-hyperpod-observability": lambda: [
        namespace("hyperpod-observability"),
        deployment("hyperpod-observability-collector", "hyperpod-observability",
                   ECR + "/hyperpod-observability:v1.0.2"),
    ],
    "vpc-cni": lambda: [daemonset("aws-node", "kube-system", ECR + "/amazon-k8s-cni:v1.20.4")],
    "kube-proxy": lambda: [daemonset("kube-proxy", "kube-system", ECR + "/eks/kube-proxy:v1.32.6")],
    "coredns": lambda: [deployment("coredns", "kube-system", ECR + "/eks/coredns:v1.11.4", replicas=2,
                                   labels={"k8s-app": "kube-dns"})],
    "eks-pod-identity-agent": lambda: [daemonset("eks-pod-identity-agent", "kube-system",
                                                 ECR + "/eks/eks-pod-identity-agent:v0.1.29")],
    "metrics-server": lambda: [deployment("metrics-server", "kube-system",
                                          "registry.k8s.io/metrics-server/metrics-server:v0.8.0")],
    "aws-fsx-csi-driver": lambda: [csidriver("fsx.csi.aws.com"),
                                   daemonset("fsx-csi-node", "kube-system", ECR + "/eks/aws-fsx-csi-driver:v1.6.0")],
    "aws-mountpoint-s3-csi-driver": lambda: [csidriver("s3.csi.aws.com"),
                                             daemonset("s3-csi-node", "kube-system",
                                                       "public.ecr.aws/mountpoint-s3-csi-driver/aws-mountpoint-s3-csi-driver:v2.0.0")],
    "aws-ebs-csi-driver": lambda: [csidriver("ebs.csi.aws.com"),
                                   daemonset("ebs-csi-node", "kube-system", ECR + "/eks/aws-ebs-csi-driver:v1.48.0")],
    # HyperPod Spaces: the jupyter-k8s operator, its CRDs, system templates
    # and access strategy (k8s/spaces.py runs the operator).
    "amazon-sagemaker-spaces": lambda: [
        namespace(spaces.SYSTEM_NS),
        *upstream_crds("jupyter-k8s-v0.2.0"),
        sa(spaces.MANAGER, spaces.SYSTEM_NS),
        deployment(spaces.MANAGER, spaces.SYSTEM_NS, "ghcr.io/jupyter-infra/jupyter-k8s:v0.2.0",
                   labels={"control-plane": "controller-manager", "app.kubernetes.io/name": "jupyter-k8s"},
                   sa=spaces.MANAGER),
        *spaces.addon_objects(),
    ],
    "amazon-cloudwatch-observability": lambda: [namespace("amazon-cloudwatch"),
                                                daemonset("cloudwatch-agent", "amazon-cloudwatch",
                                                          "public.ecr.aws/cloudwatch-agent/cloudwatch-agent:1.300")],
}


def bootstrap(cluster_name):
    """Objects a fresh EKS cluster has."""
    objs = [namespace(n) for n in ("default", "kube-system", "kube-public", "kube-node-lease")]
    for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
        objs.append(sa("default", ns))
    objs.append({"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": "kubernetes", "namespace": "default",
                              "labels": {"component": "apiserver", "provider": "kubernetes"}},
                 "spec": {"type": "ClusterIP", "clusterIP": "10.100.0.1",
                          "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 443}]}})
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                 "metadata": {"name": "gp2"}, "provisioner": "kubernetes.io/aws-ebs",
                 "parameters": {"fsType": "ext4", "type": "gp2"}, "reclaimPolicy": "Delete",
                 "volumeBindingMode": "WaitForFirstConsumer"})
    objs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                 "metadata": {"name": "cluster-admin"},
                 "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                           {"nonResourceURLs": ["*"], "verbs": ["*"]}]})
    objs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                 "metadata": {"name": "view"},
                 "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}]})
    objs.append({"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": "kube-root-ca.crt", "namespace": "default"},
                 "data": {"ca.crt": "(cluster CA)"}})
    objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                 "metadata": {"name": "system-cluster-critical"}, "value": 2000000000,
                 "globalDefault": False, "description": "Used for system critical pods."})
    return objs
