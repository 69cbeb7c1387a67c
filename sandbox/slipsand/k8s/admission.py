"""Admission: defaulting and validation of objects on create/update, like kube-apiserver.

Fills in what the real API server defaults (pod spec fields, service cluster
IPs, job selectors, namespace phase, CRD status, secret stringData) and
rejects invalid objects with the exact "is invalid" Status wording.
"""
import base64
import random
import re
import string
import uuid

DNS1123_SUB = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
SUB_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
           "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
           "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                  "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
                  "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


class Invalid(Exception):
    """422 Invalid with field causes."""

    def __init__(self, kind, name, causes):
        self.kind = kind
        self.name = name
        self.causes = causes  # [(field, reason_text, value)]
        parts = []
        for field, text, value in causes:
            if value is None:
                parts.append("%s: %s" % (field, text))
            else:
                parts.append('%s: Invalid value: "%s": %s' % (field, value, text))
        msg = '%s "%s" is invalid: %s' % (kind, name, parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]")
        super().__init__(msg)
        self.message = msg


def suffix(n=5):
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    return "".join(random.choice(alphabet) for _ in range(n))


def name_for(obj):
    md = obj.setdefault("metadata", {})
    if not md.get("name") and md.get("generateName"):
        md["name"] = md["generateName"] + suffix()
    return md.get("name")


def validate_name(rtype, obj):
    name = obj["metadata"].get("name")
    if not name:
        raise Invalid(rtype.kind, "", [("metadata.name", "Required value: name or generateName is required", None)])
    if rtype.plural == "services":
        if not DNS1035_LABEL.match(name) or len(name) > 63:
            raise Invalid(rtype.kind, name, [("metadata.name", LABEL_1035_MSG, name)])
    elif rtype.plural in ("namespaces",):
        if not DNS1123_LABEL.match(name) or len(name) > 63:
            raise Invalid(rtype.kind, name, [("metadata.name", SUB_MSG.replace("subdomain", "label"), name)])
    elif rtype.group == "apiextensions.k8s.io":
        pass
    elif len(name) > 253 or not DNS1123_SUB.match(name):
        if rtype.group.startswith("rbac") and ":" in name:
            return
        raise Invalid(rtype.kind, name, [("metadata.name", SUB_MSG, name)])


def _labels_match(selector, labels):
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    return True


def default_and_validate(cluster, rtype, obj, old=None):
    md = obj.setdefault("metadata", {})
    name = md.get("name", "")
    kind = rtype.kind
    plural = rtype.plural
    group = rtype.group
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else None
    if group == "" and plural == "pods":
        if not spec or not spec.get("containers"):
            raise Invalid(kind, name, [("spec.containers", "Required value", None)])
        causes = []
        for i, c in enumerate(spec["containers"]):
            if not c.get("name"):
                causes.append(("spec.containers[%d].name" % i, "Required value", None))
            if not c.get("image"):
                causes.append(("spec.containers[%d].image" % i, "Required value", None))
        if causes:
            raise Invalid(kind, name, causes)
        spec.setdefault("restartPolicy", "Always")
        spec.setdefault("schedulerName", "default-scheduler")
        spec.setdefault("serviceAccountName", "default")
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
        spec.setdefault("terminationGracePeriodSeconds", 30)
        spec.setdefault("dnsPolicy", "ClusterFirst")
        spec.setdefault("securityContext", {})
        spec.setdefault("enableServiceLinks", True)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        spec.setdefault("priority", 0)
        spec.setdefault("tolerations", [])
        for t in ({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                   "tolerationSeconds": 300},
                  {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                   "tolerationSeconds": 300}):
            if not any(x.get("key") == t["key"] for x in spec["tolerations"]):
                spec["tolerations"].append(t)
        for c in spec["containers"] + (spec.get("initContainers") or []):
            img = str(c.get("image", ""))
            c.setdefault("imagePullPolicy", "Always" if img.endswith(":latest") or ":" not in img.split("/")[-1] else "IfNotPresent")
            c.setdefault("terminationMessagePath", "/dev/termination-log")
            c.setdefault("terminationMessagePolicy", "File")
            c.setdefault("resources", {})
        if old is None:
            obj["status"] = {"phase": "Pending", "qosClass": _qos(spec)}
    elif group == "" and plural == "services":
        spec = obj.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        if old is not None and (old.get("spec") or {}).get("clusterIP"):
            spec["clusterIP"] = old["spec"]["clusterIP"]
        if spec.get("clusterIP") != "None":
            spec.setdefault("clusterIP", cluster.allocate_ip())
            spec["clusterIPs"] = [spec["clusterIP"]]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        spec.setdefault("internalTrafficPolicy", "Cluster")
        for p in spec.get("ports") or []:
            p.setdefault("protocol", "TCP")
            p.setdefault("targetPort", p.get("port"))
        obj.setdefault("status", {"loadBalancer": {}})
    elif group == "" and plural == "namespaces":
        obj["spec"] = {"finalizers": ["kubernetes"]}
        obj.setdefault("status", {})["phase"] = (old or {}).get("status", {}).get("phase", "Active")
        md.setdefault("labels", {})["kubernetes.io/metadata.name"] = name
    elif group == "" and plural == "secrets":
        obj.setdefault("type", "Opaque")
        sd = obj.pop("stringData", None)
        if sd:
            data = obj.setdefault("data", {})
            for k, v in sd.items():
                data[k] = base64.b64encode(str(v).encode()).decode()
    elif group == "" and plural == "persistentvolumeclaims":
        if old is None:
            obj["status"] = {"phase": "Pending"}
        spec = obj.setdefault("spec", {})
        spec.setdefault("volumeMode", "Filesystem")
        if "storageClassName" not in spec:
            default = cluster.default_storage_class()
            if default:
                spec["storageClassName"] = default
    elif group == "" and plural == "persistentvolumes":
        spec = obj.setdefault("spec", {})
        spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        spec.setdefault("volumeMode", "Filesystem")
        if old is None:
            obj["status"] = {"phase": "Available"}
    elif group == "apps" and plural in ("deployments", "statefulsets", "replicasets", "daemonsets"):
        spec = obj.setdefault("spec", {})
        sel = spec.get("selector")
        tmpl_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if not sel:
            raise Invalid(kind, name, [("spec.selector", "Required value", None)])
        if not _labels_match(sel, tmpl_labels):
            raise Invalid(kind, name, [("spec.template.metadata.labels",
                                        "`selector` does not match template `labels`",
                                        "map[%s]" % " ".join("%s:%s" % kv for kv in sorted(tmpl_labels.items())))])
        if not ((spec.get("template") or {}).get("spec") or {}).get("containers"):
            raise Invalid(kind, name, [("spec.template.spec.containers", "Required value", None)])
        if plural != "daemonsets":
            spec.setdefault("replicas", 1)
        if plural == "deployments":
            spec.setdefault("strategy", {"type": "RollingUpdate",
                                         "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("progressDeadlineSeconds", 600)
        if plural == "statefulsets":
            spec.setdefault("podManagementPolicy", "OrderedReady")
            spec.setdefault("serviceName", spec.get("serviceName", ""))
        obj.setdefault("status", {})
    elif group == "batch" and plural == "jobs":
        spec = obj.setdefault("spec", {})
        if not ((spec.get("template") or {}).get("spec") or {}).get("containers"):
            raise Invalid(kind, name, [("spec.template.spec.containers", "Required value", None)])
        rp = spec["template"]["spec"].get("restartPolicy")
        if rp not in ("Never", "OnFailure"):
            raise Invalid(kind, name, [("spec.template.spec.restartPolicy",
                                        'Unsupported value: "%s": supported values: "OnFailure", "Never"' % (rp or "Always"),
                                        None)])
        spec.setdefault("parallelism", 1)
        spec.setdefault("completions", 1)
        spec.setdefault("backoffLimit", 6)
        spec.setdefault("completionMode", "NonIndexed")
        spec.setdefault("suspend", False)
        uid = md.setdefault("uid", str(uuid.uuid4()))
        if not spec.get("selector"):
            spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
            labels = spec["template"].setdefault("metadata", {}).setdefault("labels", {})
            labels.setdefault("batch.kubernetes.io/controller-uid", uid)
            labels.setdefault("controller-uid", uid)
            labels.setdefault("batch.kubernetes.io/job-name", name)
            labels.setdefault("job-name", name)
        obj.setdefault("status", {})
    elif group == "apiextensions.k8s.io":
        spec = obj.get("spec") or {}
        names = spec.get("names") or {}
        causes = []
        if not spec.get("group"):
            causes.append(("spec.group", "Required value", None))
        if not names.get("plural"):
            causes.append(("spec.names.plural", "Required value", None))
        if not names.get("kind"):
            causes.append(("spec.names.kind", "Required value", None))
        if not spec.get("versions"):
            causes.append(("spec.versions", "Invalid value: must have exactly one version marked as storage version", None))
        if not causes and name != "%s.%s" % (names["plural"], spec["group"]):
            causes.append(("metadata.name", 'must be spec.names.plural+"."+spec.group', name))
        if causes:
            raise Invalid(kind, name, causes)
        names.setdefault("singular", names["kind"].lower())
        names.setdefault("listKind", names["kind"] + "List")
        spec.setdefault("scope", "Namespaced")
        obj["status"] = {"acceptedNames": dict(names), "storedVersions": [
            v["name"] for v in spec["versions"] if v.get("storage")] or [spec["versions"][0]["name"]],
            "conditions": [{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                            "message": "no conflicts found", "lastTransitionTime": md.get("creationTimestamp")},
                           {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                            "message": "the initial names have been accepted",
                            "lastTransitionTime": md.get("creationTimestamp")}]}
    return obj


def _qos(spec):
    reqs = [c.get("resources") or {} for c in spec.get("containers") or []]
    if not any(r.get("requests") or r.get("limits") for r in reqs):
        return "BestEffort"
    if all(r.get("limits") and (not r.get("requests") or r.get("requests") == r.get("limits")) for r in reqs):
        return "Guaranteed"
    return "Burstable"


def random_hash(n=10):
    return "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(n))
