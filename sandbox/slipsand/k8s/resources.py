"""Resource types, discovery documents, minimal OpenAPI v3 and Table output.

Built-in kinds are listed here; CustomResourceDefinitions stored in the
cluster add their kinds (served versions, scope, names, printer columns).
Discovery is the legacy JSON form every kubectl accepts; OpenAPI v3 has the
PATCH operations kubectl's field-validation probe looks for and each kind's
real schema (the Kubernetes 1.31 components, a CRD's openAPIV3Schema).
"""
import datetime
import hashlib
import json
import re

from . import schema

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


class ResourceType:
    def __init__(self, group, version, kind, plural, namespaced, short=(), singular=None,
                 subresources=("status",), versions=None, printer=None, categories=(),
                 verbs=None, storage_version=None):
        self.group = group
        self.version = version
        self.versions = versions or [version]
        self.kind = kind
        self.plural = plural
        self.namespaced = namespaced
        self.short = list(short)
        self.singular = singular or kind.lower()
        self.subresources = list(subresources)
        self.printer = printer
        self.categories = list(categories)
        self.verbs = verbs or VERBS

    @property
    def api_version(self):
        return "%s/%s" % (self.group, self.version) if self.group else self.version

    def gv_list(self):
        return ["%s/%s" % (self.group, v) if self.group else v for v in self.versions]


BUILTIN = [
    ResourceType("", "v1", "Namespace", "namespaces", False, ["ns"], subresources=("status", "finalize")),
    ResourceType("", "v1", "Node", "nodes", False, ["no"]),
    ResourceType("", "v1", "Pod", "pods", True, ["po"], subresources=("status", "log", "eviction", "binding"),
                 categories=["all"]),
    ResourceType("", "v1", "Service", "services", True, ["svc"], categories=["all"]),
    ResourceType("", "v1", "ServiceAccount", "serviceaccounts", True, ["sa"], subresources=("token",)),
    ResourceType("", "v1", "ConfigMap", "configmaps", True, ["cm"], subresources=()),
    ResourceType("", "v1", "Secret", "secrets", True, [], subresources=()),
    ResourceType("", "v1", "PersistentVolume", "persistentvolumes", False, ["pv"]),
    ResourceType("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True, ["pvc"]),
    ResourceType("", "v1", "Event", "events", True, ["ev"], subresources=()),
    ResourceType("", "v1", "Endpoints", "endpoints", True, ["ep"], subresources=()),
    ResourceType("", "v1", "ResourceQuota", "resourcequotas", True, ["quota"]),
    ResourceType("", "v1", "LimitRange", "limitranges", True, ["limits"], subresources=()),
    ResourceType("apps", "v1", "Deployment", "deployments", True, ["deploy"], subresources=("status", "scale"),
                 categories=["all"]),
    ResourceType("apps", "v1", "StatefulSet", "statefulsets", True, ["sts"], subresources=("status", "scale"),
                 categories=["all"]),
    ResourceType("apps", "v1", "DaemonSet", "daemonsets", True, ["ds"], categories=["all"]),
    ResourceType("apps", "v1", "ReplicaSet", "replicasets", True, ["rs"], subresources=("status", "scale"),
                 categories=["all"]),
    ResourceType("batch", "v1", "Job", "jobs", True, [], categories=["all"]),
    ResourceType("batch", "v1", "CronJob", "cronjobs", True, ["cj"], categories=["all"]),
    ResourceType("storage.k8s.io", "v1", "StorageClass", "storageclasses", False, ["sc"], subresources=()),
    ResourceType("storage.k8s.io", "v1", "CSIDriver", "csidrivers", False, [], subresources=()),
    ResourceType("rbac.authorization.k8s.io", "v1", "Role", "roles", True, [], subresources=()),
    ResourceType("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", True, [], subresources=()),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False, [], subresources=()),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False, [],
                 subresources=()),
    ResourceType("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False,
                 ["crd", "crds"]),
    ResourceType("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", False, ["pc"], subresources=()),
    ResourceType("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", True, ["pdb"]),
    ResourceType("networking.k8s.io", "v1", "Ingress", "ingresses", True, ["ing"]),
    ResourceType("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True, ["netpol"], subresources=()),
    ResourceType("coordination.k8s.io", "v1", "Lease", "leases", True, [], subresources=()),
    ResourceType("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", True, ["hpa"],
                 categories=["all"]),
    ResourceType("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", False, [],
                 subresources=(), verbs=["create"]),
    ResourceType("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", False, [],
                 subresources=(), verbs=["create"]),
    ResourceType("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
                 "mutatingwebhookconfigurations", False, [], subresources=()),
    ResourceType("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
                 "validatingwebhookconfigurations", False, [], subresources=()),
]


def crd_types(crds):
    out = []
    for crd in crds:
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        served = [v for v in spec.get("versions") or [] if v.get("served", True)]
        if not served or not names.get("plural") or not names.get("kind"):
            continue
        storage = next((v for v in served if v.get("storage")), served[0])
        subs = []
        if (storage.get("subresources") or {}).get("status") is not None:
            subs.append("status")
        if (storage.get("subresources") or {}).get("scale") is not None:
            subs.append("scale")
        rt = ResourceType(spec.get("group", ""), storage["name"], names["kind"], names["plural"],
                          spec.get("scope", "Namespaced") == "Namespaced", names.get("shortNames") or [],
                          names.get("singular"), subresources=subs,
                          versions=[v["name"] for v in served],
                          printer=storage.get("additionalPrinterColumns"),
                          categories=names.get("categories") or [])
        out.append(rt)
    return out


class Registry:
    """Kinds served by one cluster (built-ins + established CRDs)."""

    def __init__(self, crds):
        self.crds = crds
        self._openapi = {}
        self.types = list(BUILTIN) + crd_types(crds)
        self.by_gv_plural = {}
        self.groups = {}
        for t in self.types:
            for v in t.versions:
                self.by_gv_plural[(t.group, v, t.plural)] = t
                self.groups.setdefault(t.group, [])
                if v not in self.groups[t.group]:
                    self.groups[t.group].append(v)

    def find(self, group, version, plural):
        return self.by_gv_plural.get((group, version, plural))

    def by_kind(self, group, kind):
        for t in self.types:
            if t.group == group and t.kind == kind:
                return t
        return None

    def resource_list(self, group, version):
        gv = "%s/%s" % (group, version) if group else version
        resources = []
        for t in self.types:
            if t.group != group or version not in t.versions:
                continue
            item = {"name": t.plural, "singularName": t.singular, "namespaced": t.namespaced,
                    "kind": t.kind, "verbs": t.verbs}
            if t.short:
                item["shortNames"] = t.short
            if t.categories:
                item["categories"] = t.categories
            resources.append(item)
            for sub in t.subresources:
                sub_kind = {"scale": "Scale", "eviction": "Eviction", "binding": "Binding",
                            "token": "TokenRequest", "log": "Pod"}.get(sub, t.kind)
                verbs = {"log": ["get"], "eviction": ["create"], "binding": ["create"],
                         "token": ["create"], "finalize": ["update"]}.get(sub, ["get", "patch", "update"])
                sitem = {"name": "%s/%s" % (t.plural, sub), "singularName": "", "namespaced": t.namespaced,
                         "kind": sub_kind, "verbs": verbs}
                if sub == "scale":
                    sitem["group"] = "autoscaling"
                    sitem["version"] = "v1"
                resources.append(sitem)
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}

    def group_list(self):
        groups = []
        for g, versions in self.groups.items():
            if g == "":
                continue
            groups.append(self.group_doc(g))
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def group_doc(self, g):
        versions = self.groups.get(g)
        if not versions:
            return None
        vs = [{"groupVersion": "%s/%s" % (g, v), "version": v} for v in versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": g, "versions": vs, "preferredVersion": vs[0]}

    # --- OpenAPI v3: kubectl's field-validation probe and the real schemas --
    def openapi_root(self):
        paths = {}
        for g, versions in self.groups.items():
            for v in versions:
                key = "api/%s" % v if g == "" else "apis/%s/%s" % (g, v)
                doc = json.dumps(self.openapi_gv(g, v), sort_keys=True)
                h = hashlib.sha256(doc.encode()).hexdigest()[:32].upper()
                paths[key] = {"serverRelativeURL": "/openapi/v3/%s?hash=%s" % (key, h)}
        return {"paths": paths}

    def openapi_gv(self, group, version):
        if (group, version) in self._openapi:
            return self._openapi[(group, version)]
        paths = {}
        schemas = {}
        for t in self.types:
            if t.group != group or version not in t.versions:
                continue
            base = "/api/%s" % version if group == "" else "/apis/%s/%s" % (group, version)
            item = ("%s/namespaces/{namespace}/%s/{name}" % (base, t.plural) if t.namespaced
                    else "%s/%s/{name}" % (base, t.plural))
            gvk = {"group": group, "version": version, "kind": t.kind}
            params = [{"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                      {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                      {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                      {"name": "force", "in": "query", "schema": {"type": "boolean", "uniqueItems": True}}]
            op = {"operationId": "patch%s" % t.kind, "x-kubernetes-action": "patch",
                  "x-kubernetes-group-version-kind": gvk, "parameters": params,
                  "responses": {"200": {"description": "OK"}}}
            get = {"operationId": "read%s" % t.kind, "x-kubernetes-action": "get",
                   "x-kubernetes-group-version-kind": gvk, "responses": {"200": {"description": "OK"}}}
            paths[item] = {"get": get, "patch": op}
            name, found = self._kind_schema(t, version)
            if found is not None:
                schemas[name] = dict(found, **{"x-kubernetes-group-version-kind": [gvk]})
        if any("$ref" in json.dumps(v) for v in schemas.values()):
            for name, comp in schema.components().items():
                schemas.setdefault(name, comp)
        doc = {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "unversioned"},
               "paths": paths, "components": {"schemas": schemas}}
        self._openapi[(group, version)] = doc
        return doc

    def _kind_schema(self, t, version):
        """The real schema of a kind: the Kubernetes 1.31 component of a
        built-in, the served version's openAPIV3Schema of a CRD; None
        when there is none (no ../shared), and the kind is then left out
        rather than described as accepting anything."""
        root = schema.builtin_root(t.group, version, t.kind)
        if root is not None:
            return root, schema.components().get(root)
        for crd in self.crds:
            spec = crd.get("spec") or {}
            if spec.get("group") != t.group or (spec.get("names") or {}).get("kind") != t.kind:
                continue
            for v in spec.get("versions") or []:
                if v.get("name") == version:
                    return _schema_name(t, version), (v.get("schema") or {}).get("openAPIV3Schema")
        return None, None


def _schema_name(t, version):
    if t.group == "":
        return "io.k8s.api.core.%s.%s" % (version, t.kind)
    parts = t.group.split(".")
    return "%s.%s.%s" % (".".join(reversed(parts)), version, t.kind)


# --- Table output --------------------------------------------------------------

def human_duration(seconds):
    s = int(max(0, seconds))
    if s < 120:
        return "%ds" % s
    m = s // 60
    if m < 10:
        return "%dm%ds" % (m, s % 60) if s % 60 else "%dm" % m
    if m < 180:
        return "%dm" % m
    h = m // 60
    if h < 8:
        return "%dh%dm" % (h, m % 60) if m % 60 else "%dh" % h
    if h < 48:
        return "%dh" % h
    d = h // 24
    if d < 8:
        return "%dd%dh" % (d, h % 24) if h % 24 else "%dd" % d
    return "%dd" % d


def _ts(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return None


def age(obj, now):
    ts = _ts(obj.get("metadata", {}).get("creationTimestamp"))
    return human_duration(now - ts) if ts else "<unknown>"


def jsonpath(obj, path):
    """Tiny JSONPath for printer columns: .a.b, [n], [-1:], [?(@.k=="v")]."""
    cur = [obj]
    for tok in re.findall(r"\.([A-Za-z0-9_\-/]+)|\[([^\]]+)\]", path or ""):
        name, index = tok
        nxt = []
        for c in cur:
            if name:
                if isinstance(c, dict) and name in c:
                    nxt.append(c[name])
            elif isinstance(c, list):
                idx = index.strip()
                m = re.match(r'^\?\(@\.([A-Za-z0-9_]+)\s*==\s*["\']([^"\']*)["\']\)$', idx)
                if m:
                    nxt.extend(x for x in c if isinstance(x, dict) and str(x.get(m.group(1))) == m.group(2))
                elif idx.endswith(":"):
                    try:
                        nxt.extend(c[int(idx[:-1]):])
                    except ValueError:
                        pass
                elif idx == "*":
                    nxt.extend(c)
                else:
                    try:
                        nxt.append(c[int(idx)])
                    except (ValueError, IndexError):
                        pass
        cur = nxt
    if not cur:
        return None
    return cur[0] if len(cur) == 1 else ",".join(str(x) for x in cur)


def _col(name, typ="string", fmt="", priority=0, desc=""):
    return {"name": name, "type": typ, "format": fmt, "description": desc or name, "priority": priority}


def _pod_cells(o, now):
    st = o.get("status", {})
    cs = st.get("containerStatuses") or []
    total = len((o.get("spec") or {}).get("containers") or []) or len(cs)
    ready = len([c for c in cs if c.get("ready")])
    restarts = sum(c.get("restartCount", 0) for c in cs)
    status = st.get("phase", "Pending")
    for c in cs:
        w = (c.get("state") or {}).get("waiting")
        if w and w.get("reason"):
            status = w["reason"]
        t = (c.get("state") or {}).get("terminated")
        if t and t.get("reason") and status not in ("Running",):
            status = t["reason"]
    if o["metadata"].get("deletionTimestamp"):
        status = "Terminating"
    return [o["metadata"]["name"], "%d/%d" % (ready, total), status, restarts, age(o, now),
            st.get("podIP") or "<none>", (o.get("spec") or {}).get("nodeName") or "<none>"]


def _node_cells(o, now):
    conds = {c["type"]: c["status"] for c in (o.get("status") or {}).get("conditions") or []}
    status = "Ready" if conds.get("Ready") == "True" else "NotReady"
    if (o.get("spec") or {}).get("unschedulable"):
        status += ",SchedulingDisabled"
    roles = sorted(k.split("/", 1)[1] for k in o["metadata"].get("labels", {})
                   if k.startswith("node-role.kubernetes.io/")) or ["<none>"]
    info = (o.get("status") or {}).get("nodeInfo") or {}
    ip = next((a["address"] for a in (o.get("status") or {}).get("addresses") or []
               if a.get("type") == "InternalIP"), "<none>")
    return [o["metadata"]["name"], status, ",".join(roles), age(o, now), info.get("kubeletVersion", ""),
            ip, info.get("osImage", ""), info.get("containerRuntimeVersion", "")]


def _deploy_cells(o, now):
    spec, st = o.get("spec") or {}, o.get("status") or {}
    return [o["metadata"]["name"], "%d/%d" % (st.get("readyReplicas", 0), spec.get("replicas", 1)),
            st.get("updatedReplicas", 0), st.get("availableReplicas", 0), age(o, now)]


def _sts_cells(o, now):
    spec, st = o.get("spec") or {}, o.get("status") or {}
    return [o["metadata"]["name"], "%d/%d" % (st.get("readyReplicas", 0), spec.get("replicas", 1)), age(o, now)]


def _job_cells(o, now):
    spec, st = o.get("spec") or {}, o.get("status") or {}
    conds = {c["type"]: c["status"] for c in st.get("conditions") or []}
    status = "Complete" if conds.get("Complete") == "True" else "Failed" if conds.get("Failed") == "True" else "Running"
    start, end = _ts(st.get("startTime")), _ts(st.get("completionTime"))
    dur = human_duration((end or now) - start) if start else ""
    return [o["metadata"]["name"], status, "%d/%d" % (st.get("succeeded", 0), spec.get("completions", 1)),
            dur, age(o, now)]


def _svc_cells(o, now):
    spec = o.get("spec") or {}
    ports = ",".join("%s/%s" % (p.get("port"), p.get("protocol", "TCP")) for p in spec.get("ports") or []) or "<none>"
    return [o["metadata"]["name"], spec.get("type", "ClusterIP"), spec.get("clusterIP", "<none>"),
            "<none>", ports, age(o, now)]


def _pvc_cells(o, now):
    spec, st = o.get("spec") or {}, o.get("status") or {}
    return [o["metadata"]["name"], st.get("phase", "Pending"), spec.get("volumeName", ""),
            (st.get("capacity") or {}).get("storage", ""), ",".join(_short_modes(st.get("accessModes") or [])),
            spec.get("storageClassName", ""), age(o, now)]


def _pv_cells(o, now):
    spec, st = o.get("spec") or {}, o.get("status") or {}
    ref = spec.get("claimRef") or {}
    claim = "%s/%s" % (ref.get("namespace"), ref.get("name")) if ref else ""
    return [o["metadata"]["name"], (spec.get("capacity") or {}).get("storage", ""),
            ",".join(_short_modes(spec.get("accessModes") or [])),
            spec.get("persistentVolumeReclaimPolicy", "Retain"), st.get("phase", "Available"), claim,
            spec.get("storageClassName", ""), age(o, now)]


def _short_modes(modes):
    return [{"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX",
             "ReadWriteOncePod": "RWOP"}.get(m, m) for m in modes]


def _event_cells(o, now):
    inv = o.get("involvedObject") or {}
    last = _ts(o.get("lastTimestamp")) or _ts(o["metadata"].get("creationTimestamp")) or now
    return [human_duration(now - last), o.get("type", "Normal"), o.get("reason", ""),
            "%s/%s" % ((inv.get("kind") or "").lower(), inv.get("name", "")), o.get("message", "")]


TABLES = {
    ("", "pods"): ([_col("Name", fmt="name"), _col("Ready"), _col("Status"), _col("Restarts", "string"),
                    _col("Age"), _col("IP", priority=1), _col("Node", priority=1)], _pod_cells),
    ("", "nodes"): ([_col("Name", fmt="name"), _col("Status"), _col("Roles"), _col("Age"), _col("Version"),
                     _col("Internal-IP", priority=1), _col("OS-Image", priority=1),
                     _col("Container-Runtime", priority=1)], _node_cells),
    ("apps", "deployments"): ([_col("Name", fmt="name"), _col("Ready"), _col("Up-to-date", "integer"),
                               _col("Available", "integer"), _col("Age")], _deploy_cells),
    ("apps", "statefulsets"): ([_col("Name", fmt="name"), _col("Ready"), _col("Age")], _sts_cells),
    ("batch", "jobs"): ([_col("Name", fmt="name"), _col("Status"), _col("Completions"), _col("Duration"),
                         _col("Age")], _job_cells),
    ("", "services"): ([_col("Name", fmt="name"), _col("Type"), _col("Cluster-IP"), _col("External-IP"),
                        _col("Port(s)"), _col("Age")], _svc_cells),
    ("", "namespaces"): ([_col("Name", fmt="name"), _col("Status"), _col("Age")],
                         lambda o, now: [o["metadata"]["name"], (o.get("status") or {}).get("phase", "Active"),
                                         age(o, now)]),
    ("", "persistentvolumeclaims"): ([_col("Name", fmt="name"), _col("Status"), _col("Volume"), _col("Capacity"),
                                      _col("Access Modes"), _col("StorageClass"), _col("Age")], _pvc_cells),
    ("", "persistentvolumes"): ([_col("Name", fmt="name"), _col("Capacity"), _col("Access Modes"),
                                 _col("Reclaim Policy"), _col("Status"), _col("Claim"), _col("StorageClass"),
                                 _col("Age")], _pv_cells),
    ("", "events"): ([_col("Last Seen"), _col("Type"), _col("Reason"), _col("Object"), _col("Message")],
                     _event_cells),
    ("", "configmaps"): ([_col("Name", fmt="name"), _col("Data", "integer"), _col("Age")],
                         lambda o, now: [o["metadata"]["name"], len(o.get("data") or {}) + len(o.get("binaryData") or {}),
                                         age(o, now)]),
    ("", "secrets"): ([_col("Name", fmt="name"), _col("Type"), _col("Data", "integer"), _col("Age")],
                      lambda o, now: [o["metadata"]["name"], o.get("type", "Opaque"), len(o.get("data") or {}),
                                      age(o, now)]),
    ("apiextensions.k8s.io", "customresourcedefinitions"): (
        [_col("Name", fmt="name"), _col("Created At", "date")],
        lambda o, now: [o["metadata"]["name"], o["metadata"].get("creationTimestamp")]),
}


def table(rtype, objs, now, rv, include="Metadata"):
    key = (rtype.group, rtype.plural)
    if key in TABLES:
        cols, cells = TABLES[key]
    elif rtype.printer:
        cols = [_col("Name", fmt="name")]
        fns = []
        has_age = False
        for pc in rtype.printer:
            typ = pc.get("type", "string")
            cols.append(_col(pc.get("name", ""), "string" if typ == "date" else typ, "",
                             pc.get("priority", 0), pc.get("description", "")))
            fns.append(pc)
            has_age = has_age or pc.get("name", "").lower() == "age"
        if not has_age:
            cols.append(_col("Age"))

        def cells(o, now, fns=fns, has_age=has_age):
            out = [o["metadata"]["name"]]
            for pc in fns:
                val = jsonpath(o, pc.get("jsonPath"))
                if pc.get("type") == "date":
                    ts = _ts(val) if isinstance(val, str) else None
                    val = human_duration(now - ts) if ts else "<unknown>"
                out.append("<none>" if val is None else val)
            if not has_age:
                out.append(age(o, now))
            return out
    else:
        cols = [_col("Name", fmt="name"), _col("Age")]

        def cells(o, now):
            return [o["metadata"]["name"], age(o, now)]
    rows = []
    for o in objs:
        row = {"cells": cells(o, now)}
        if include == "Object":
            row["object"] = o
        elif include != "None":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": o["metadata"]}
        rows.append(row)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": rv},
            "columnDefinitions": cols, "rows": rows}
