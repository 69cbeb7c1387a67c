"""What a new EKS cluster and each EKS add-on put into the Kubernetes API.

Bootstrap objects (namespaces, the `kubernetes` service, gp2 storage class,
default service accounts, cluster roles) and, per add-on, its namespace,
CRDs and operator Deployment/DaemonSet: the HyperPod training operator
installs `hyperpodpytorchjobs.sagemaker.amazonaws.com`, the inference
operator the `inference.sagemaker.aws.amazon.com` kinds, cert-manager and
task governance (Kueue) theirs.
"""


def crd(group, kind, plural, versions=("v1",), scope="Namespaced", short=(), printer=None, scale=False,
        categories=()):
    vs = []
    for i, v in enumerate(versions):
        sub = {"status": {}}
        if scale:
            sub["scale"] = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                            "labelSelectorPath": ".status.selector"}
        item = {"name": v, "served": True, "storage": i == 0, "subresources": sub,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
        if printer:
            item["additionalPrinterColumns"] = printer
        vs.append(item)
    names = {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": kind + "List"}
    if short:
        names["shortNames"] = list(short)
    if categories:
        names["categories"] = list(categories)
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (plural, group)},
            "spec": {"group": group, "names": names, "scope": scope, "versions": vs}}


AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
HPJ_PRINTER = [{"name": "Status", "type": "string", "jsonPath": ".status.conditions[-1:].type"}, AGE]
RAY_JOB_PRINTER = [{"name": "Job Status", "type": "string", "jsonPath": ".status.jobStatus"},
                   {"name": "Deployment Status", "type": "string", "jsonPath": ".status.jobDeploymentStatus"},
                   {"name": "Ray Cluster Name", "type": "string", "jsonPath": ".status.rayClusterName"}, AGE]
INF_PRINTER = [{"name": "State", "type": "string", "jsonPath": ".status.state"},
               {"name": "Replicas", "type": "integer", "jsonPath": ".status.replicas"}, AGE]


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
        crd("sagemaker.amazonaws.com", "HyperPodPyTorchJob", "hyperpodpytorchjobs", printer=HPJ_PRINTER),
        sa("hp-training-operator-controller-manager", "aws-hyperpod"),
        deployment("hp-training-operator-hp-training-controller-manager", "aws-hyperpod",
                   ECR + "/hyperpod-training-operator:v1.2.0",
                   labels={"hp-training-control-plane": "hp-training-controller-manager"},
                   sa="hp-training-operator-controller-manager"),
    ],
    "amazon-sagemaker-hyperpod-inference": lambda: [
        namespace("hyperpod-inference-system"),
        crd("inference.sagemaker.aws.amazon.com", "InferenceEndpointConfig", "inferenceendpointconfigs",
            versions=("v1", "v1alpha1"), printer=INF_PRINTER, scale=True),
        crd("inference.sagemaker.aws.amazon.com", "JumpStartModel", "jumpstartmodels",
            versions=("v1", "v1alpha1"), printer=INF_PRINTER, scale=True),
        crd("inference.sagemaker.aws.amazon.com", "SageMakerEndpointRegistration",
            "sagemakerendpointregistrations", versions=("v1", "v1alpha1")),
        deployment("hyperpod-inference-operator-controller-manager", "hyperpod-inference-system",
                   ECR + "/hyperpod-inference-operator:v3.1.0"),
    ],
    "cert-manager": lambda: [
        namespace("cert-manager"),
        crd("cert-manager.io", "Certificate", "certificates", short=("cert", "certs")),
        crd("cert-manager.io", "Issuer", "issuers"),
        crd("cert-manager.io", "ClusterIssuer", "clusterissuers", scope="Cluster"),
        crd("cert-manager.io", "CertificateRequest", "certificaterequests", short=("cr", "crs")),
        deployment("cert-manager", "cert-manager", "quay.io/jetstack/cert-manager-controller:v1.18.2"),
        deployment("cert-manager-cainjector", "cert-manager", "quay.io/jetstack/cert-manager-cainjector:v1.18.2"),
        deployment("cert-manager-webhook", "cert-manager", "quay.io/jetstack/cert-manager-webhook:v1.18.2"),
    ],
    "amazon-sagemaker-hyperpod-taskgovernance": lambda: [
        namespace("kueue-system"),
        crd("kueue.x-k8s.io", "ClusterQueue", "clusterqueues", versions=("v1beta1",), scope="Cluster", short=("cq",)),
        crd("kueue.x-k8s.io", "LocalQueue", "localqueues", versions=("v1beta1",), short=("queue", "queues", "lq")),
        crd("kueue.x-k8s.io", "ResourceFlavor", "resourceflavors", versions=("v1beta1",), scope="Cluster",
            short=("flavor", "flavors", "rf")),
        crd("kueue.x-k8s.io", "Workload", "workloads", versions=("v1beta1",), short=("wl",)),
        crd("kueue.x-k8s.io", "WorkloadPriorityClass", "workloadpriorityclasses", versions=("v1beta1",),
            scope="Cluster"),
        deployment("kueue-controller-manager", "kueue-system", "registry.k8s.io/kueue/kueue:v0.12.3"),
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
