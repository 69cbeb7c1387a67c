"""More of the validation kube-apiserver does in Go rather than in the OpenAPI.

Each rule names the upstream function it follows:
  Service node ports   pkg/apis/core/validation ValidateService (nodePort
                       with type ClusterIP, duplicates) and
                       pkg/registry/core/service/portallocator (range
                       30000-32767, allocation, "already allocated")
  Secret               ValidateSecret (config keys, the fields each type
                       needs, 1 MiB) and ValidateSecretUpdate (type and an
                       immutable secret's data)
  ConfigMap            ValidateConfigMap (keys, data/binaryData overlap) and
                       ValidateConfigMapUpdate (immutable)
  PVC                  ValidatePersistentVolumeClaimUpdate (no shrink; a
                       resize only for a bound claim)
  Deployment           pkg/apis/apps/validation ValidateDeploymentSpec,
                       ValidateDeploymentStrategy, ValidateRollingUpdateDeployment
  Job                  pkg/apis/batch/validation ValidateJobSpec (counts >= 0)
  label selectors      apimachinery/pkg/apis/meta/v1/validation
                       ValidateLabelSelector (operators and their values)
  RBAC bindings        pkg/apis/rbac/validation ValidateRoleBinding,
                       ValidateClusterRoleBinding (roleRef, subjects) and
                       ValidateRoleBindingUpdate (roleRef cannot change)
"""
import base64
import json
import random
import re

from . import schema

NODE_PORT_MIN, NODE_PORT_MAX = 30000, 32767
CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
CONFIG_KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                  "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
IMMUTABLE_MSG = "field is immutable when `immutable` is set"
PERCENT = re.compile(r"^[0-9]+%$")
PERCENT_MSG = ("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
               "regex used for validation is '[0-9]+%')")
SECRET_MAX = 1024 * 1024


# --- Service node ports ------------------------------------------------------------------
def _ports_in_use(cluster, obj):
    md = obj["metadata"]
    used = set()
    for svc in cluster.store.list("", "services"):
        smd = svc["metadata"]
        if smd.get("namespace") == md.get("namespace") and smd["name"] == md.get("name"):
            continue
        for p in (svc.get("spec") or {}).get("ports") or []:
            if p.get("nodePort"):
                used.add(int(p["nodePort"]))
    return used


def node_ports(cluster, obj, old):
    """Check asked-for node ports and allocate missing ones (NodePort and
    LoadBalancer services); returns causes."""
    spec = obj.get("spec") or {}
    ports = spec.get("ports") or []
    stype = spec.get("type", "ClusterIP")
    causes = []
    if stype in ("ClusterIP", "ExternalName"):
        for i, p in enumerate(ports):
            if p.get("nodePort"):
                causes.append(schema.forbidden("spec.ports[%d].nodePort" % i,
                                               "may not be used when `type` is '%s'" % stype))
        return causes
    seen = set()
    for i, p in enumerate(ports):
        np = p.get("nodePort")
        if not np:
            continue
        key = (p.get("protocol", "TCP"), np)
        if key in seen:
            causes.append(schema.duplicate("spec.ports[%d].nodePort" % i, np))
        seen.add(key)
    if causes:
        return causes
    if stype == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is False:
        return causes
    used = _ports_in_use(cluster, obj)
    mine = {int(p["nodePort"]) for p in ((old or {}).get("spec") or {}).get("ports") or [] if p.get("nodePort")}
    for i, p in enumerate(ports):
        np = p.get("nodePort")
        if not np:
            continue
        if not isinstance(np, int) or not NODE_PORT_MIN <= np <= NODE_PORT_MAX:
            causes.append(schema.invalid("spec.ports[%d].nodePort" % i, np, "provided port is not in the valid "
                                         "range. The range of valid ports is %d-%d" % (NODE_PORT_MIN, NODE_PORT_MAX)))
        elif np in used and np not in mine:
            causes.append(schema.invalid("spec.ports[%d].nodePort" % i, np, "provided port is already allocated"))
    if causes:
        return causes
    taken = used | {p["nodePort"] for p in ports if p.get("nodePort")}
    free = [n for n in range(NODE_PORT_MIN, NODE_PORT_MAX + 1) if n not in taken]
    for p in ports:
        if not p.get("nodePort") and free:
            p["nodePort"] = free.pop(random.randrange(len(free)))
    return causes


# --- Secrets and ConfigMaps -----------------------------------------------------------------
def _keys(data, path, causes):
    for k in sorted(data or {}):
        if len(k) > 253:
            causes.append(schema.invalid("%s[%s]" % (path, k), k, "must be no more than 253 characters"))
        elif not CONFIG_KEY.match(k) or k in (".", ".."):
            causes.append(schema.invalid("%s[%s]" % (path, k), k, CONFIG_KEY_MSG if CONFIG_KEY.match(k) is None
                                         else "must not be '.' or '..'"))


def secret(obj):
    causes = []
    data = obj.get("data") or {}
    _keys(data, "data", causes)
    size = 0
    for v in data.values():
        try:
            size += len(base64.b64decode(str(v)))
        except ValueError:
            pass
    if size > SECRET_MAX:
        causes.append(schema.Cause("Too long", "data", "", "must have at most %d bytes" % SECRET_MAX))
    t = obj.get("type", "Opaque")
    need = {"kubernetes.io/tls": ("tls.crt", "tls.key"), "kubernetes.io/ssh-auth": ("ssh-privatekey",),
            "kubernetes.io/dockerconfigjson": (".dockerconfigjson",), "kubernetes.io/dockercfg": (".dockercfg",)}
    for key in need.get(t, ()):
        if key not in data:
            causes.append(schema.required("data[%s]" % key))
    if t == "kubernetes.io/basic-auth" and "username" not in data and "password" not in data:
        causes.append(schema.required("data[username]"))
        causes.append(schema.required("data[password]"))
    if t == "kubernetes.io/dockerconfigjson" and ".dockerconfigjson" in data:
        try:
            json.loads(base64.b64decode(str(data[".dockerconfigjson"])))
        except ValueError as e:
            causes.append(schema.invalid("data[.dockerconfigjson]", "<secret contents redacted>", str(e)))
    if t == "kubernetes.io/service-account-token" and not (
            (obj["metadata"].get("annotations") or {}).get("kubernetes.io/service-account.name")):
        causes.append(schema.required("metadata.annotations[kubernetes.io/service-account.name]"))
    return causes


def configmap(obj):
    causes = []
    size = sum(len(str(v).encode()) for v in (obj.get("data") or {}).values()) + sum(
        len(str(v)) * 3 // 4 for v in (obj.get("binaryData") or {}).values())
    if size > SECRET_MAX:
        causes.append(schema.Cause("Too long", "", "", "must have at most %d bytes" % SECRET_MAX))
    _keys(obj.get("data"), "data", causes)
    _keys(obj.get("binaryData"), "binaryData", causes)
    for k in sorted(set(obj.get("data") or {}) & set(obj.get("binaryData") or {})):
        causes.append(schema.invalid("data[%s]" % k, k, "duplicate of key present in binaryData"))
    return causes


def immutable_update(new, old, secret_kind):
    causes = []
    if secret_kind and new.get("type", "Opaque") != old.get("type", "Opaque"):
        causes.append(schema.invalid("type", new.get("type", "Opaque"), "field is immutable"))
    if old.get("immutable"):
        if not new.get("immutable"):
            causes.append(schema.forbidden("immutable", IMMUTABLE_MSG))
        if (new.get("data") or {}) != (old.get("data") or {}):
            causes.append(schema.forbidden("data", IMMUTABLE_MSG))
        if not secret_kind and (new.get("binaryData") or {}) != (old.get("binaryData") or {}):
            causes.append(schema.forbidden("binaryData", IMMUTABLE_MSG))
    return causes


# --- PVC ------------------------------------------------------------------------------------
def pvc_update(new, old, quantity_value, recover_gate):
    """Shrink and resize rules.  recover_gate: RecoverVolumeExpansionFailure
    (beta, on, from 1.32): a request may go back down to, not below, the
    capacity the claim reports."""
    causes = []
    want = (((new.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
    had = (((old.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
    nv, ov = quantity_value(want), quantity_value(had)
    bound = (old.get("status") or {}).get("phase") == "Bound"
    if nv is not None and ov is not None and nv != ov and not bound:
        causes.append(schema.forbidden("spec", "spec is immutable after creation except resources.requests and "
                                               "volumeAttributesClassName for bound claims"))
    elif nv is not None and ov is not None and nv < ov:
        cap = quantity_value(((old.get("status") or {}).get("capacity") or {}).get("storage"))
        if not recover_gate:
            causes.append(schema.forbidden("spec.resources.requests.storage",
                                           "field can not be less than previous value"))
        elif cap is None or nv <= cap:
            causes.append(schema.forbidden("spec.resources.requests.storage",
                                           "field can not be less than status.capacity"))
    return causes


# --- Deployments and Jobs -------------------------------------------------------------------
def _int_or_percent(v, path, causes):
    """ValidatePositiveIntOrPercent; returns the value as a number (percent kept as is)."""
    if isinstance(v, str):
        if not PERCENT.match(v):
            causes.append(schema.invalid(path, v, PERCENT_MSG))
            return None
        return int(v[:-1])
    if isinstance(v, int) and v < 0:
        causes.append(schema.invalid(path, v, "must be greater than or equal to 0"))
    return v if isinstance(v, int) else None


def _nonneg(spec, key, path, causes):
    v = spec.get(key)
    if isinstance(v, int) and not isinstance(v, bool) and v < 0:
        causes.append(schema.invalid(path + "." + key, v, "must be greater than or equal to 0"))


def deployment(spec):
    causes = []
    for key in ("replicas", "minReadySeconds", "revisionHistoryLimit"):
        _nonneg(spec, key, "spec", causes)
    st = spec.get("strategy") or {}
    t = st.get("type")
    ru = st.get("rollingUpdate")
    if t == "Recreate":
        if ru is not None:
            causes.append(schema.forbidden("spec.strategy.rollingUpdate",
                                           "may not be specified when strategy `type` is 'Recreate'"))
    elif t == "RollingUpdate":
        if ru is None:
            causes.append(schema.required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"))
        else:
            p = "spec.strategy.rollingUpdate"
            mu = _int_or_percent(ru.get("maxUnavailable", "25%"), p + ".maxUnavailable", causes)
            ms = _int_or_percent(ru.get("maxSurge", "25%"), p + ".maxSurge", causes)
            if mu == 0 and ms == 0:
                causes.append(schema.invalid(p + ".maxUnavailable", schema.GoValue(str(ru.get("maxUnavailable"))),
                                             "may not be 0 when `maxSurge` is 0"))
            if isinstance(ru.get("maxUnavailable"), str) and mu is not None and mu > 100:
                causes.append(schema.invalid(p + ".maxUnavailable", schema.GoValue(ru["maxUnavailable"]),
                                             "must not be greater than 100%"))
    else:
        causes.append(schema.not_supported("spec.strategy", schema.GoValue(
            'apps.DeploymentStrategy{Type:"%s", RollingUpdate:(*apps.RollingUpdateDeployment)(%s)}' % (
                t or "", "nil" if ru is None else "...")), ["Recreate", "RollingUpdate"]))
    pds = spec.get("progressDeadlineSeconds")
    if isinstance(pds, int) and not isinstance(pds, bool):
        if pds < 0:
            causes.append(schema.invalid("spec.progressDeadlineSeconds", pds, "must be greater than or equal to 0"))
        elif pds <= int(spec.get("minReadySeconds") or 0):
            causes.append(schema.invalid("spec.progressDeadlineSeconds", pds, "must be greater than minReadySeconds"))
    rp = (((spec.get("template") or {}).get("spec")) or {}).get("restartPolicy")
    if rp is not None and rp != "Always":
        causes.append(schema.not_supported("spec.template.spec.restartPolicy", rp, ["Always"]))
    return causes


def job(spec):
    causes = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        _nonneg(spec, key, "spec", causes)
    return causes


# --- label selectors ------------------------------------------------------------------------
def label_selector(sel, path):
    causes = []
    if not isinstance(sel, dict):
        return causes
    for i, e in enumerate(sel.get("matchExpressions") or []):
        if not isinstance(e, dict):
            continue
        p = "%s.matchExpressions[%d]" % (path, i)
        op, vals = e.get("operator"), e.get("values") or []
        if op in ("In", "NotIn"):
            if not vals:
                causes.append(schema.required(p + ".values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if vals:
                causes.append(schema.forbidden(p + ".values", "may not be specified when `operator` is 'Exists' or "
                                                              "'DoesNotExist'"))
        else:
            causes.append(schema.invalid(p + ".operator", op, "not a valid selector operator"))
    return causes


# --- RBAC bindings --------------------------------------------------------------------------
RBAC_GROUP = "rbac.authorization.k8s.io"


def _role_ref_text(ref):
    ref = ref or {}
    return schema.GoValue('rbac.RoleRef{APIGroup:"%s", Kind:"%s", Name:"%s"}' % (
        ref.get("apiGroup", ""), ref.get("kind", ""), ref.get("name", "")))


def role_binding(obj, cluster_scoped):
    causes = []
    ref = obj.get("roleRef") or {}
    if ref.get("apiGroup") != RBAC_GROUP:
        causes.append(schema.not_supported("roleRef.apiGroup", ref.get("apiGroup", ""), [RBAC_GROUP]))
    kinds = ["ClusterRole"] if cluster_scoped else ["Role", "ClusterRole"]
    if ref.get("kind") not in kinds:
        causes.append(schema.not_supported("roleRef.kind", ref.get("kind", ""), kinds))
    if not ref.get("name"):
        causes.append(schema.required("roleRef.name"))
    for i, sub in enumerate(obj.get("subjects") or []):
        p = "subjects[%d]" % i
        if not isinstance(sub, dict):
            continue
        if not sub.get("name"):
            causes.append(schema.required(p + ".name"))
        kind = sub.get("kind")
        if kind == "ServiceAccount":
            if sub.get("apiGroup"):
                causes.append(schema.not_supported(p + ".apiGroup", sub["apiGroup"], [""]))
            if cluster_scoped and not sub.get("namespace"):
                causes.append(schema.required(p + ".namespace"))
        elif kind in ("User", "Group"):
            if sub.get("apiGroup") != RBAC_GROUP:
                causes.append(schema.not_supported(p + ".apiGroup", sub.get("apiGroup", ""), [RBAC_GROUP]))
        else:
            causes.append(schema.not_supported(p + ".kind", kind or "", ["ServiceAccount", "User", "Group"]))
    return causes


def role_binding_update(new, old):
    if (new.get("roleRef") or {}) != (old.get("roleRef") or {}):
        return [schema.invalid("roleRef", _role_ref_text(new.get("roleRef")), "cannot change roleRef")]
    return []
