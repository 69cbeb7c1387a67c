"""Admission: defaulting and validation of objects on create/update, like kube-apiserver.

Fills in what the real API server defaults (pod spec fields, service cluster
IPs, job selectors, namespace phase, CRD status, secret stringData) and
rejects invalid objects with the exact "is invalid" Status wording.
"""
import base64
import json
import random
import re
import string
import uuid

from . import cel, gorules, schema
from .schema import Cause, GoValue

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
    """422 Invalid with field causes, worded as kube-apiserver's NewInvalid.

    `causes` are schema.Cause objects; the older (field, text, value) triples
    are still accepted (text already holds the error type).
    """

    def __init__(self, kind, name, causes, group=""):
        self.kind = kind
        self.name = name
        self.group = group
        self.causes = []
        for c in causes:
            if isinstance(c, Cause):
                self.causes.append(c)
                continue
            field, text, value = c
            if value is None:
                etype, _, detail = text.partition(": ")
                if etype not in Cause.REASONS:
                    etype, detail = "Invalid value", text
                    self.causes.append(Cause(etype, field, detail=detail, has_value=False))
                    continue
                self.causes.append(Cause(etype, field, detail=detail))
            else:
                self.causes.append(Cause("Invalid value", field, value, text))
        parts = [c.text() for c in self.causes]
        qkind = "%s.%s" % (kind, group) if group else kind
        msg = '%s "%s" is invalid: %s' % (qkind, name, parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]")
        super().__init__(msg)
        self.message = msg

    def details(self):
        d = {"name": self.name} if self.name else {}  # StatusDetails.name is omitempty
        if self.group:
            d["group"] = self.group
        d["kind"] = self.kind
        d["causes"] = [{"reason": c.reason, "message": c.body(), "field": c.field} for c in self.causes]
        return d


def suffix(n=5):
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    return "".join(random.choice(alphabet) for _ in range(n))


def name_for(obj):
    md = obj.setdefault("metadata", {})
    if not md.get("name") and md.get("generateName"):
        # apiserver/pkg/storage/names SimpleNameGenerator: the base is cut
        # to 58 characters (63 - 5) before the random suffix.
        md["name"] = md["generateName"][:58] + suffix()
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
    """Default `obj` as kube-apiserver does, then run the Go-coded checks; raises Invalid."""
    try:
        _default(cluster, rtype, obj, old)
        causes, warnings = go_rules(rtype, obj)
        if old is not None:
            causes += update_rules(rtype, obj, old)
            causes += _update_rules_of(cluster, rtype, obj, old)
        if not causes and rtype.group == "" and rtype.plural == "services":
            causes += gorules.node_ports(cluster, obj, old)
    except Invalid as e:
        raise Invalid(e.kind, e.name, e.causes, rtype.group)
    if causes:
        raise Invalid(rtype.kind, (obj.get("metadata") or {}).get("name", ""), causes, rtype.group)
    for w in warnings:
        schema.warn(w)
    return warnings


def _default(cluster, rtype, obj, old=None):
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
        if not sel:
            raise Invalid(kind, name, [("spec.selector", "Required value", None)])
        if not ((spec.get("template") or {}).get("spec") or {}).get("containers"):
            raise Invalid(kind, name, [("spec.template.spec.containers", "Required value", None)])
        if plural != "daemonsets":
            spec.setdefault("replicas", 1)
        if plural == "deployments":
            # pkg/apis/apps/v1/defaults.go SetDefaults_Deployment
            st = spec.setdefault("strategy", {})
            st.setdefault("type", "RollingUpdate")
            if st["type"] == "RollingUpdate":
                ru = st.setdefault("rollingUpdate", {})
                if isinstance(ru, dict):
                    ru.setdefault("maxUnavailable", "25%")
                    ru.setdefault("maxSurge", "25%")
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
            raise Invalid(kind, name, [schema.not_supported("spec.template.spec.restartPolicy", rp or "Always",
                                                            ("OnFailure", "Never"))])
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
        causes += crd_rule_causes(spec)
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


def crd_rule_causes(spec):
    """A cause for each x-kubernetes-validations rule or messageExpression of a CRD that does not compile,
    as apiextensions-apiserver's validation.go (ValidateCustomResourceDefinitionOpenAPISchema) words it.
    Identical schemas of all versions are one spec.validation schema in the internal version, and
    that is the path the errors name."""
    versions = spec.get("versions") or []
    schemas = [(v.get("schema") or {}).get("openAPIV3Schema") for v in versions if isinstance(v, dict)]
    out = []
    if schemas and schemas[0] is not None and all(x == schemas[0] for x in schemas):
        _rule_causes(schemas[0], "spec.validation.openAPIV3Schema", out)
    else:
        for i, x in enumerate(schemas):
            _rule_causes(x, "spec.versions[%d].schema.openAPIV3Schema" % i, out)
    return out


def _rule_causes(s, path, out):
    if not isinstance(s, dict):
        return
    for i, r in enumerate(s.get("x-kubernetes-validations") or ()):
        if not isinstance(r, dict):
            continue
        for key, what in (("rule", "compilation failed"), ("messageExpression", "messageExpression compilation failed")):
            src = r.get(key)
            if not isinstance(src, str) or not src.strip():
                continue
            try:
                cel.compile(src)
            except cel.CompileError as e:
                out.append(("%s.x-kubernetes-validations[%d].%s" % (path, i, key), "%s: %s" % (what, e),
                            GoValue(_go_rule(r))))
    for k, p in sorted((s.get("properties") or {}).items()):
        _rule_causes(p, "%s.properties[%s]" % (path, k), out)
    for k in ("items", "additionalProperties", "not"):
        _rule_causes(s.get(k), "%s.%s" % (path, k), out)
    for k in ("allOf", "anyOf", "oneOf"):
        for i, p in enumerate(s.get(k) or ()):
            _rule_causes(p, "%s.%s[%d]" % (path, k, i), out)


def _go_rule(r):
    """An apiextensions.ValidationRule as Go's %#v prints it (pointers that are set print as addresses)."""
    def q(v):
        return json.dumps(v if isinstance(v, str) else "", ensure_ascii=False)

    def ptr(t, v):
        return "(*%s)(nil)" % t if v is None else "(*%s)(0xc000a1c2d0)" % t
    return ("apiextensions.ValidationRule{Rule:%s, Message:%s, MessageExpression:%s, Reason:%s, FieldPath:%s, "
            "OptionalOldSelf:%s}" % (q(r.get("rule")), q(r.get("message")), q(r.get("messageExpression")),
                                     ptr("apiextensions.FieldValueErrorReason", r.get("reason")),
                                     q(r.get("fieldPath")), ptr("bool", r.get("optionalOldSelf"))))


def _qos(spec):
    reqs = [c.get("resources") or {} for c in spec.get("containers") or []]
    if not any(r.get("requests") or r.get("limits") for r in reqs):
        return "BestEffort"
    if all(r.get("limits") and (not r.get("requests") or r.get("requests") == r.get("limits")) for r in reqs):
        return "Guaranteed"
    return "Burstable"


def random_hash(n=10):
    return "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(n))


# --- rules kube-apiserver 1.31 enforces in Go (pkg/apis/core/validation et al.) ------------
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
IANA_SVC = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
LABEL_1123_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                  "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
                  "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
QNAME_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
             "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
             "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                   "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None")
PROTOCOLS = ("SCTP", "TCP", "UDP")
SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
POD_TEMPLATE_KINDS = {("apps", "deployments"), ("apps", "daemonsets"), ("apps", "statefulsets"),
                      ("apps", "replicasets"), ("batch", "jobs")}
_SUFFIX = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60,
           "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def quantity_value(q):
    """A parsed resource quantity as a number, or None when it does not parse."""
    if isinstance(q, bool):
        return None
    if isinstance(q, (int, float)):
        return q
    m = re.match(r"^([+-]?[0-9.]+)(([eE][-+]?[0-9]+)|[a-zA-Z]*)$", str(q).strip())
    if not m:
        return None
    try:
        n = float(m.group(1))
    except ValueError:
        return None
    suf = m.group(2)
    if m.group(3):
        return n * 10 ** int(suf[1:])
    if suf not in _SUFFIX:
        return None
    return n * _SUFFIX[suf]


def _is_extended(res):
    if "/" not in res:
        return False
    return not res.startswith("kubernetes.io/") and not res.startswith("requests.") and \
        not res.startswith("hugepages-")


def _qualified_name(key):
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not DNS1123_SUB.match(prefix)):
        return "prefix part " + SUB_MSG
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not QUALIFIED_NAME.match(name):
        return QNAME_MSG
    return None


def validate_meta(md, path, causes):
    for key, val in (md.get("labels") or {}).items():
        err = _qualified_name(key)
        if err:
            causes.append(schema.invalid(path + ".labels", key, err))
        if not isinstance(val, str):
            continue
        if len(val) > 63:
            causes.append(schema.invalid(path + ".labels", val, "must be no more than 63 characters"))
        elif not LABEL_VALUE.match(val):
            causes.append(schema.invalid(path + ".labels", val, LABEL_VALUE_MSG))
    for key in (md.get("annotations") or {}):
        err = _qualified_name(key.lower())
        if err:
            causes.append(schema.invalid(path + ".annotations", key, err))


def _dns_label(value, path, causes):
    if not isinstance(value, str):
        return
    if len(value) > 63:
        causes.append(schema.invalid(path, value, "must be no more than 63 characters"))
    elif not DNS1123_LABEL.match(value):
        causes.append(schema.invalid(path, value, LABEL_1123_MSG))


def _port_name(value, path, causes):
    if not isinstance(value, str) or not value:
        return
    if len(value) > 15:
        causes.append(schema.invalid(path, value, "must be no more than 15 characters"))
    elif not IANA_SVC.match(value) or "--" in value:
        causes.append(schema.invalid(path, value, "must contain only alpha-numeric characters (a-z, 0-9), "
                                                  "and hyphens (-)"))
    elif not re.search("[a-z]", value):
        causes.append(schema.invalid(path, value, "must contain at least one letter (a-z)"))


def _resources(res, path, causes):
    limits = res.get("limits") or {}
    requests = res.get("requests") or {}
    for kind, table in (("limits", limits), ("requests", requests)):
        for name, q in table.items():
            if _is_extended(name):
                v = quantity_value(q)
                if v is not None and v != int(v):
                    causes.append(schema.invalid("%s.%s[%s]" % (path, kind, name), q, "must be an integer"))
    for name, q in requests.items():
        # pkg/apis/core/validation ValidateContainerResourceRequirements: the
        # request errors name the requests map, not the key.
        rv = quantity_value(q)
        lq = limits.get(name)
        lv = quantity_value(lq) if lq is not None else None
        overcommit = not _is_extended(name) and not name.startswith("hugepages-")
        if lq is not None:
            if rv is not None and lv is not None and rv != lv and not overcommit:
                causes.append(schema.invalid("%s.requests" % path, q, "must be equal to %s limit of %s" % (
                    name, lq)))
            elif rv is not None and lv is not None and rv > lv:
                causes.append(schema.invalid("%s.requests" % path, q, "must be less than or equal to %s limit "
                                                                     "of %s" % (name, lq)))
        elif not overcommit:
            causes.append(schema.required("%s.limits" % path, "Limit must be set for non overcommitable "
                                                              "resources"))


def validate_pod_spec(spec, path, causes, warnings):
    if not isinstance(spec, dict):
        return
    volumes = set()
    for i, vol in enumerate(spec.get("volumes") or []):
        vp = "%s.volumes[%d].name" % (path, i)
        n = vol.get("name")
        if not n:
            continue
        _dns_label(n, vp, causes)
        if n in volumes:
            causes.append(schema.duplicate(vp, n))
        volumes.add(n)
    names = set()
    for field in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(field) or []):
            if not isinstance(c, dict):
                continue
            cp = "%s.%s[%d]" % (path, field, i)
            n = c.get("name")
            if n:
                _dns_label(n, cp + ".name", causes)
                if n in names:
                    causes.append(schema.duplicate(cp + ".name", n))
                names.add(n)
            if not c.get("image") and field == "containers":
                causes.append(schema.required(cp + ".image"))
            pp = c.get("imagePullPolicy")
            if pp is not None and pp not in PULL_POLICIES:
                causes.append(schema.not_supported(cp + ".imagePullPolicy", pp, PULL_POLICIES))
            port_names = set()
            for j, p in enumerate(c.get("ports") or []):
                pfx = "%s.ports[%d]" % (cp, j)
                _port_name(p.get("name"), pfx + ".name", causes)
                if p.get("name"):
                    if p["name"] in port_names:
                        causes.append(schema.duplicate(pfx + ".name", p["name"]))
                    port_names.add(p["name"])
                cport = p.get("containerPort")
                if isinstance(cport, int) and not 1 <= cport <= 65535:
                    causes.append(schema.invalid(pfx + ".containerPort", cport, "must be between 1 and 65535, "
                                                                             "inclusive"))
                proto = p.get("protocol")
                if proto is not None and proto not in PROTOCOLS:
                    causes.append(schema.not_supported(pfx + ".protocol", proto, PROTOCOLS))
            seen = {}
            for j, e in enumerate(c.get("env") or []):
                en = e.get("name") if isinstance(e, dict) else None
                if en in seen:
                    warnings.append('%s.env[%d]: hides previous definition of environment variable "%s"' % (
                        cp, j, en))
                seen[en] = j
            for j, m in enumerate(c.get("volumeMounts") or []):
                mn = m.get("name")
                if mn and mn not in volumes:
                    causes.append(schema.not_found("%s.volumeMounts[%d].name" % (cp, j), mn))
            if isinstance(c.get("resources"), dict):
                _resources(c["resources"], cp + ".resources", causes)
    rp = spec.get("restartPolicy")
    if rp is not None and rp not in RESTART_POLICIES:
        causes.append(schema.not_supported(path + ".restartPolicy", rp, RESTART_POLICIES))
    dp = spec.get("dnsPolicy")
    if dp is not None and dp not in DNS_POLICIES:
        causes.append(schema.not_supported(path + ".dnsPolicy", dp, DNS_POLICIES))


def go_rules(rtype, obj):
    """(causes, warnings) of the Go-coded checks for `obj` of `rtype`."""
    causes, warnings = [], []
    md = obj.get("metadata") or {}
    validate_meta(md, "metadata", causes)
    group, plural = rtype.group, rtype.plural
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if group == "" and plural == "pods":
        validate_pod_spec(spec, "spec", causes, warnings)
    elif (group, plural) in POD_TEMPLATE_KINDS:
        causes += gorules.label_selector(spec.get("selector"), "spec.selector")
        if plural == "deployments":
            causes += gorules.deployment(spec)
        elif plural == "jobs":
            causes += gorules.job(spec)
        tmpl = spec.get("template") if isinstance(spec.get("template"), dict) else {}
        tmd = tmpl.get("metadata") or {}
        validate_meta(tmd, "spec.template.metadata", causes)
        validate_pod_spec(tmpl.get("spec"), "spec.template.spec", causes, warnings)
        sel = spec.get("selector")
        labels = tmd.get("labels") or {}
        if group == "apps":
            if not sel:
                causes.append(schema.required("spec.selector"))
            elif not (sel.get("matchLabels") or sel.get("matchExpressions")):
                causes.append(schema.invalid("spec.selector", schema.GoValue(_go_selector(sel)),
                                             "empty selector is invalid for %s" % rtype.kind.lower()))
            elif not _labels_match(sel, labels) or not _exprs_match(sel, labels):
                causes.append(schema.invalid("spec.template.metadata.labels", schema.go_map(labels),
                                             "`selector` does not match template `labels`"))
        elif sel and (spec.get("manualSelector") or not _auto_selector(sel)):
            if not _labels_match(sel, labels) or not _exprs_match(sel, labels):
                causes.append(schema.invalid("spec.template.metadata.labels", schema.go_map(labels),
                                             "`selector` does not match template `labels`"))
    elif group == "" and plural == "services":
        t = spec.get("type")
        if t is not None and t not in SERVICE_TYPES:
            causes.append(schema.not_supported("spec.type", t, SERVICE_TYPES))
        ports = spec.get("ports") or []
        pnames = set()
        for i, p in enumerate(ports):
            pp = "spec.ports[%d]" % i
            n = p.get("name")
            if len(ports) > 1 and not n:
                causes.append(schema.required(pp + ".name"))
            elif n:
                _dns_label(n, pp + ".name", causes)
                if n in pnames:
                    causes.append(schema.duplicate(pp + ".name", n))
                pnames.add(n)
            port = p.get("port")
            if isinstance(port, int) and not 1 <= port <= 65535:
                causes.append(schema.invalid(pp + ".port", port, "must be between 1 and 65535, inclusive"))
            proto = p.get("protocol")
            if proto is not None and proto not in PROTOCOLS:
                causes.append(schema.not_supported(pp + ".protocol", proto, PROTOCOLS))
        if t != "ExternalName" and not ports and spec.get("clusterIP") != "None":
            causes.append(schema.required("spec.ports"))
    elif group == "rbac.authorization.k8s.io" and plural in ("rolebindings", "clusterrolebindings"):
        causes += gorules.role_binding(obj, plural == "clusterrolebindings")
    elif group == "" and plural == "secrets":
        causes += gorules.secret(obj)
    elif group == "" and plural == "configmaps":
        causes += gorules.configmap(obj)
    elif group == "" and plural == "persistentvolumeclaims":
        modes = spec.get("accessModes")
        if not modes:
            causes.append(schema.required("spec.accessModes", "at least 1 access mode is required"))
        for m in modes or []:
            if m not in ACCESS_MODES:
                causes.append(schema.not_supported("spec.accessModes", m, ACCESS_MODES))
        if "storage" not in ((spec.get("resources") or {}).get("requests") or {}):
            causes.append(schema.required("spec.resources[storage]"))
    return causes, warnings


def _go_selector(sel):
    return "&v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"


def _auto_selector(sel):
    return "batch.kubernetes.io/controller-uid" in (sel.get("matchLabels") or {}) or \
        "controller-uid" in (sel.get("matchLabels") or {})


def _exprs_match(selector, labels):
    for e in selector.get("matchExpressions") or []:
        k, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and labels.get(k) in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
    return True


# --- update rules: what 1.31 keeps immutable --------------------------------------------
POD_UPDATE_MSG = ("pod updates may not change fields other than `spec.containers[*].image`,"
                  "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                  "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
                  "to 1 if it was previously negative)")
PVC_UPDATE_MSG = ("spec is immutable after creation except resources.requests and volumeAttributesClassName "
                  "for bound claims")


def _go_label_selector(sel):
    sel = sel or {}
    ml = sel.get("matchLabels")
    labels = "map[string]string(nil)" if ml is None else schema.go_map(ml).text
    return schema.GoValue("&v1.LabelSelector{MatchLabels:%s, MatchExpressions:[]v1.LabelSelectorRequirement(%s)}"
                          % (labels, "nil" if not sel.get("matchExpressions") else "..."))


def _pod_spec_mutable_view(spec):
    spec = dict(spec or {})
    for k in ("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"):
        spec.pop(k, None)
    for field in ("containers", "initContainers"):
        if isinstance(spec.get(field), list):
            spec[field] = [dict(c, image=None) if isinstance(c, dict) else c for c in spec[field]]
    return spec


def update_rules(rtype, new, old):
    """Causes for changes kube-apiserver refuses on update (immutable fields)."""
    causes = []
    group, plural = rtype.group, rtype.plural
    ns, os_ = new.get("spec") or {}, old.get("spec") or {}
    if group == "apps" and plural in ("deployments", "replicasets", "daemonsets", "statefulsets"):
        if ns.get("selector") != os_.get("selector"):
            causes.append(schema.invalid("spec.selector", _go_label_selector(ns.get("selector")),
                                         "field is immutable"))
        if plural == "statefulsets":
            for k in ("serviceName", "podManagementPolicy", "volumeClaimTemplates"):
                if ns.get(k) != os_.get(k):
                    causes.append(schema.forbidden("spec", "updates to statefulset spec for fields other than "
                                                           "'replicas', 'ordinals', 'template', 'updateStrategy', "
                                                           "'persistentVolumeClaimRetentionPolicy' and "
                                                           "'minReadySeconds' are forbidden"))
                    break
    elif group == "batch" and plural == "jobs":
        if ns.get("selector") != os_.get("selector"):
            causes.append(schema.invalid("spec.selector", _go_label_selector(ns.get("selector")),
                                         "field is immutable"))
        if ns.get("template") != os_.get("template") and not os_.get("suspend"):
            causes.append(schema.invalid("spec.template", schema.GoValue("core.PodTemplateSpec{...}"),
                                         "field is immutable"))
        if ns.get("completionMode") != os_.get("completionMode"):
            causes.append(schema.invalid("spec.completionMode", ns.get("completionMode"), "field is immutable"))
        # pkg/apis/batch/validation ValidateJobSpecUpdate: completions change
        # only for an Indexed job that keeps completions == parallelism.
        if ns.get("completions") != os_.get("completions") and not (
                ns.get("completionMode") == "Indexed" and ns.get("completions") == ns.get("parallelism")):
            causes.append(schema.invalid("spec.completions", ns.get("completions"), "field is immutable"))
    elif group == "" and plural == "pods":
        if _pod_spec_mutable_view(ns) != _pod_spec_mutable_view(os_):
            causes.append(schema.forbidden("spec", POD_UPDATE_MSG))
    elif group == "" and plural == "services":
        if os_.get("clusterIP") and ns.get("clusterIP") not in (None, os_.get("clusterIP")):
            causes.append(schema.invalid("spec.clusterIPs[0]", ns.get("clusterIP"), "may not change once set"))
    elif group == "" and plural == "persistentvolumeclaims":
        a = {k: v for k, v in ns.items() if k not in ("resources", "volumeAttributesClassName", "volumeName")}
        b = {k: v for k, v in os_.items() if k not in ("resources", "volumeAttributesClassName", "volumeName")}
        if a != b:
            causes.append(schema.forbidden("spec", PVC_UPDATE_MSG))
    elif group == "" and plural in ("secrets", "configmaps"):
        causes += gorules.immutable_update(new, old, plural == "secrets")
    elif group == "rbac.authorization.k8s.io" and plural in ("rolebindings", "clusterrolebindings"):
        causes += gorules.role_binding_update(new, old)
    return causes


def _update_rules_of(cluster, rtype, new, old):
    """Update rules that depend on the cluster's version."""
    if rtype.group == "" and rtype.plural == "persistentvolumeclaims":
        try:
            minor = int(str(cluster.eks().get("version", "1.32")).split(".")[1])
        except (IndexError, ValueError, AttributeError):
            minor = 32
        return gorules.pvc_update(new, old, quantity_value, minor >= 32)
    return []
