"""Object lifecycle rules of kube-apiserver: request options, create/update
metadata, finalizers, graceful deletion and terminating namespaces.

What each function follows upstream:
  check_options       apimachinery/pkg/apis/meta/v1/validation/validation.go
                      (ValidateCreate/Update/Patch/DeleteOptions: dryRun only
                      "All", force only for apply, fieldManager <= 128 bytes,
                      fieldValidation values)
  check_list_options  apimachinery/pkg/apis/meta/internalversion/validation
                      (ValidateListOptions) and apiserver/pkg/storage/etcd3
                      (continue with a resourceVersion)
  generate_name       apiserver/pkg/storage/names (SimpleNameGenerator: the
                      base cut to 58 characters, then 5 random characters)
  prepare_create      apiserver/pkg/registry/rest/create.go (BeforeCreate:
                      uid, creationTimestamp, generation 1, no deletion
                      fields) and registry/generic/registry/store.go (a
                      resourceVersion on create is refused); the strategies'
                      PrepareForCreate resetting status where the kind has a
                      status subresource
  check_update        registry/generic/registry/store.go (Update: a
                      resourceVersion is required unless the strategy allows
                      unconditional updates, which custom resources do not;
                      the UID precondition) and rest/update.go (BeforeUpdate:
                      uid, creationTimestamp, generation and deletion fields
                      kept; ValidateObjectMetaUpdate's finalizer rule)
  hold / finish       registry/generic/registry/store.go (Delete: an object
                      with finalizers gets deletionTimestamp and stays; an
                      update that empties them deletes it)
  graceful_pod        pkg/registry/core/pod/strategy.go CheckGracefulDelete
                      (a scheduled, unfinished pod gets deletionTimestamp
                      now + grace and stays until its kubelet has stopped
                      it; unscheduled or finished pods go at once)
  namespace admission plugin/pkg/admission/namespace/lifecycle (no new
                      content in a terminating namespace) and the namespace
                      controller (content deleted, then the namespace)
"""
import copy
import random

from . import schema
from .admission import Invalid, _qualified_name
from .store import now_rfc3339

GENERATED_BASE = 58          # maxGeneratedNameLength = 63 - 5
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")
CRD_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
FIELD_VALIDATION = ("", "Ignore", "Strict", "Warn")
# Kinds whose status comes only through /status: create resets it (the
# strategies' PrepareForCreate); nodes may set status on create.
STATUS_ON_CREATE = {("", "nodes")}
DELETE_REQUESTED = "sandbox.slipway.dev/delete-requested-at"


class ApiError(Exception):
    """A refusal that is not a field error: code, reason (may be ""), message, details."""

    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details


def _options_invalid(kind, causes):
    return Invalid(kind, "", causes, "meta.k8s.io")


def check_options(query, verb, patch_type=None):
    """Raise Invalid for options kube-apiserver refuses (CreateOptions, ...)."""
    kind = {"create": "CreateOptions", "update": "UpdateOptions", "patch": "PatchOptions",
            "delete": "DeleteOptions"}[verb]
    causes = []
    if verb == "patch":
        if patch_type != "application/apply-patch+yaml":
            if "force" in query:
                causes.append(schema.forbidden("force", "may not be specified for non-apply patch"))
        elif not query.get("fieldManager"):
            causes.append(schema.required("fieldManager", "is required for apply patch"))
    fm = query.get("fieldManager") or ""
    if verb != "delete" and len(fm.encode()) > 128:
        causes.append(schema.Cause("Too long", "fieldManager", fm, "may not be more than 128 bytes"))
    dry = query.get("dryRun")
    if dry is not None and dry != "All":
        causes.append(schema.not_supported("dryRun", schema.GoValue('[]string{"%s"}' % dry), ["All"]))
    fv = query.get("fieldValidation")
    if verb != "delete" and fv is not None and fv not in FIELD_VALIDATION:
        causes.append(schema.not_supported("fieldValidation", fv, FIELD_VALIDATION))
    if causes:
        raise _options_invalid(kind, causes)


def check_list_options(query, watch):
    """ValidateListOptions: resourceVersionMatch rules (list and watch differ)."""
    match = query.get("resourceVersionMatch") or ""
    rv = query.get("resourceVersion") or ""
    cont = query.get("continue") or ""
    causes = []
    if watch:
        # The WatchList feature (beta, on, in 1.32) is served.
        if query.get("sendInitialEvents") is not None and match != "NotOlderThan":
            causes.append(schema.forbidden("resourceVersionMatch", "sendInitialEvents requires setting "
                                                                   "resourceVersionMatch to NotOlderThan"))
        if match:
            if query.get("sendInitialEvents") is None:
                causes.append(schema.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for "
                                                                       "watch unless sendInitialEvents is provided"))
            if match != "NotOlderThan":
                causes.append(schema.not_supported("resourceVersionMatch", match, ["NotOlderThan"]))
            if cont:
                causes.append(schema.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when "
                                                                       "continue is provided"))
    else:
        if match:
            if not rv:
                causes.append(schema.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless "
                                                                       "resourceVersion is provided"))
            if cont:
                causes.append(schema.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when "
                                                                       "continue is provided"))
            if match not in ("Exact", "NotOlderThan"):
                causes.append(schema.not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
            if match == "Exact" and rv == "0":
                causes.append(schema.forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden '
                                                                       'for resourceVersion "0"'))
        if query.get("sendInitialEvents") is not None:
            causes.append(schema.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    if causes:
        raise _options_invalid("ListOptions", causes)
    if not watch and cont and rv and rv != "0":
        raise ApiError(400, "BadRequest", "specifying resource version is not allowed when using continue")


def generate_name(md):
    """metadata.name from generateName as SimpleNameGenerator makes it."""
    if not md.get("name") and md.get("generateName"):
        base = md["generateName"][:GENERATED_BASE]
        md["name"] = base + "".join(random.choice(ALPHANUMS) for _ in range(5))
    return md.get("name")


def prepare_create(rtype, obj):
    """Create-time metadata and status rules; raises ApiError for a resourceVersion."""
    md = obj["metadata"]
    if md.get("resourceVersion") not in (None, ""):
        # etcd3 store Create: a plain error, so a 500 without a reason.
        raise ApiError(500, "", "resourceVersion should not be set on objects to be created")
    for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
        md.pop(k, None)
    md.pop("resourceVersion", None)
    if "status" in rtype.subresources and (rtype.group, rtype.plural) not in STATUS_ON_CREATE:
        obj.pop("status", None)
    if rtype.group == "apiextensions.k8s.io" and rtype.plural == "customresourcedefinitions":
        fins = md.setdefault("finalizers", [])
        if CRD_FINALIZER not in fins:
            fins.append(CRD_FINALIZER)


def finalizer_causes(rtype, new_md, old_md):
    """ValidateObjectMeta(Update)'s finalizer rules as field causes."""
    causes = []
    fins = new_md.get("finalizers") or []
    # pkg/apis/core/validation's ValidateFinalizerName applies to the kinds
    # kube-apiserver itself serves; apiextensions-apiserver (CRDs and custom
    # resources) only asks for a qualified name.
    kube = rtype.group == "" or "." not in rtype.group or (
        rtype.group.endswith(".k8s.io") and rtype.group != "apiextensions.k8s.io")
    if kube:
        for f in fins:
            err = _qualified_name(f) if isinstance(f, str) else "must be a string"
            if err:
                causes.append(schema.invalid("metadata.finalizers", f, err))
            elif "/" not in f and f not in STANDARD_FINALIZERS:
                causes.append(schema.invalid("metadata.finalizers", f, "name is neither a standard finalizer name "
                                                                       "nor is it fully qualified"))
    if old_md is not None and old_md.get("deletionTimestamp"):
        extra = sorted(set(fins) - set(old_md.get("finalizers") or []))
        if extra:
            causes.append(schema.forbidden("metadata.finalizers", "no new finalizers can be added if the object is "
                                           "being deleted, found new finalizers []string{%s}" % ", ".join(
                                               '"%s"' % f for f in extra)))
    return causes


def check_update(rtype, new, old, name, custom):
    """Store.Update's resourceVersion and UID checks, then BeforeUpdate's metadata rules."""
    md, omd = new["metadata"], old["metadata"]
    rv = md.get("resourceVersion")
    # The storage checks the UID precondition before the update function
    # compares resourceVersions.
    if md.get("uid") and md["uid"] != omd.get("uid"):
        raise conflict(rtype, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s" % (
            md["uid"], omd.get("uid")))
    if not rv and custom:
        raise Invalid(rtype.plural, name, [schema.invalid("metadata.resourceVersion", schema.GoValue("0x0"),
                                                          "must be specified for an update")], rtype.group)
    if rv and rv != omd["resourceVersion"]:
        raise conflict(rtype, name, "the object has been modified; please apply your changes to the latest "
                                    "version and try again")
    keep_system_fields(md, omd)


def keep_system_fields(md, omd):
    for k in ("uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds"):
        if k in omd:
            md[k] = omd[k]
        else:
            md.pop(k, None)


def conflict(rtype, name, why):
    res = rtype.plural if not rtype.group else "%s.%s" % (rtype.plural, rtype.group)
    return ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": %s' % (res, name, why),
                    {"name": name, "group": rtype.group, "kind": rtype.plural})


def delete_preconditions(rtype, obj, opts):
    pre = (opts or {}).get("preconditions") or {}
    md = obj["metadata"]
    if pre.get("uid") and pre["uid"] != md.get("uid"):
        raise conflict(rtype, md["name"], "Precondition failed: UID in precondition: %s, UID in object meta: %s" % (
            pre["uid"], md.get("uid")))
    if pre.get("resourceVersion") and pre["resourceVersion"] != md.get("resourceVersion"):
        raise conflict(rtype, md["name"], "Precondition failed: ResourceVersion in precondition: %s, "
                                          "ResourceVersion in object meta: %s" % (pre["resourceVersion"],
                                                                                  md.get("resourceVersion")))


def hold(kc, group, plural, obj):
    """An object with finalizers is not removed: it gets deletionTimestamp (once)
    and a bumped generation, and stays.  Returns the held object or None."""
    md = obj["metadata"]
    if not md.get("finalizers"):
        return None
    if md.get("deletionTimestamp"):
        return obj
    held = copy.deepcopy(obj)
    held["metadata"]["deletionTimestamp"] = now_rfc3339(kc.world.clock.now())
    held["metadata"]["deletionGracePeriodSeconds"] = 0
    if "generation" in held["metadata"]:
        held["metadata"]["generation"] = int(held["metadata"]["generation"]) + 1
    return kc.store.update(group, plural, held)


def graceful_pod(kc, pod, grace):
    """Pod deletion with a grace period: the held pod, or None to delete now."""
    spec, st, md = pod.get("spec") or {}, pod.get("status") or {}, pod["metadata"]
    if grace is None:
        grace = spec.get("terminationGracePeriodSeconds", 30)
    try:
        grace = max(int(grace), 0)
    except (TypeError, ValueError):
        grace = 30
    if not spec.get("nodeName") or st.get("phase") in ("Succeeded", "Failed"):
        return None
    now = kc.world.clock.now()
    if md.get("deletionTimestamp"):
        if grace < int(md.get("deletionGracePeriodSeconds", grace)):
            held = copy.deepcopy(pod)
            held["metadata"]["deletionGracePeriodSeconds"] = grace
            held["metadata"]["deletionTimestamp"] = now_rfc3339(kc.world.clock.due(grace, now))
            return kc.store.update("", "pods", held)
        return pod
    if grace == 0:
        return None
    held = copy.deepcopy(pod)
    held["metadata"]["deletionTimestamp"] = now_rfc3339(kc.world.clock.due(grace, now))
    held["metadata"]["deletionGracePeriodSeconds"] = grace
    held["metadata"].setdefault("annotations", {})[DELETE_REQUESTED] = str(now)
    return kc.store.update("", "pods", held)


def emptied(obj):
    """An update left a deleting object without finalizers: it goes now."""
    md = obj["metadata"]
    return bool(md.get("deletionTimestamp")) and not md.get("finalizers")


# --- namespaces ------------------------------------------------------------------------
def terminate_namespace(kc, ns_obj):
    """DELETE of a namespace: deletionTimestamp and phase Terminating; the
    namespace controller (finish_namespaces) removes its content, then it."""
    md = ns_obj["metadata"]
    if md.get("deletionTimestamp"):
        return ns_obj
    held = copy.deepcopy(ns_obj)
    held["metadata"]["deletionTimestamp"] = now_rfc3339(kc.world.clock.now())
    held["metadata"]["deletionGracePeriodSeconds"] = 0
    held.setdefault("status", {})["phase"] = "Terminating"
    held["status"]["conditions"] = [
        {"type": "NamespaceDeletionContentFailure", "status": "False", "reason": "ContentDeleted",
         "message": "All content successfully deleted, may be waiting on finalization",
         "lastTransitionTime": held["metadata"]["deletionTimestamp"]}]
    return kc.store.update("", "namespaces", held)


def finish_namespaces(kc):
    """One pass of the namespace controller and the CRD finalizer."""
    for ns_obj in kc.store.list("", "namespaces"):
        if not ns_obj["metadata"].get("deletionTimestamp"):
            continue
        name = ns_obj["metadata"]["name"]
        left = []
        for key, o in list(kc.store.all_objects()):
            g, p, ons, oname = key.split("|", 3)
            if ons != name:
                continue
            if not o["metadata"].get("deletionTimestamp"):
                kc.delete_object(g, p, ons, oname)
            if kc.store.get(g, p, ons, oname) is not None:
                left.append(o)
        if left:
            _note_remaining(kc, ns_obj, left)
            continue
        if ns_obj["metadata"].get("finalizers"):
            continue
        kc.store.delete("", "namespaces", None, name)
    for crd in kc.store.list("apiextensions.k8s.io", "customresourcedefinitions"):
        if crd["metadata"].get("deletionTimestamp") and CRD_FINALIZER in (crd["metadata"].get("finalizers") or []):
            finish_crd(kc, crd)


def _note_remaining(kc, ns_obj, left):
    fins = sorted({f for o in left for f in (o["metadata"].get("finalizers") or [])})
    msg = "Some content in the namespace has finalizers remaining: %s in %d resource instances" % (
        ", ".join(fins), len(left))
    conds = [c for c in (ns_obj.get("status") or {}).get("conditions") or [] if c.get("type") != "NamespaceFinalizersRemaining"]
    want = {"type": "NamespaceFinalizersRemaining", "status": "True", "reason": "SomeFinalizersRemain",
            "message": msg, "lastTransitionTime": ns_obj["metadata"]["deletionTimestamp"]}
    old = [c for c in (ns_obj.get("status") or {}).get("conditions") or [] if c.get("type") == "NamespaceFinalizersRemaining"]
    if old and old[0].get("message") == msg:
        return
    upd = copy.deepcopy(ns_obj)
    upd["status"]["conditions"] = conds + [want]
    kc.store.update("", "namespaces", upd)


def custom_objects(kc, crd):
    spec = crd.get("spec") or {}
    out = []
    for key, o in list(kc.store.all_objects()):
        g, p, ons, oname = key.split("|", 3)
        if g == spec.get("group") and p == (spec.get("names") or {}).get("plural"):
            out.append((g, p, ons or None, oname))
    return out


def finish_crd(kc, crd):
    """The CRD finalizer: delete every instance (their finalizers hold them),
    then drop the finalizer so the CRD goes."""
    left = 0
    for g, p, ns, name in custom_objects(kc, crd):
        kc.delete_object(g, p, ns, name)
        if kc.store.get(g, p, ns, name) is not None:
            left += 1
    if left:
        return False
    cur = kc.store.get("apiextensions.k8s.io", "customresourcedefinitions", None, crd["metadata"]["name"])
    if cur is not None:
        kc.store.delete("apiextensions.k8s.io", "customresourcedefinitions", None, crd["metadata"]["name"])
    return True


def namespace_refusal(kc, rtype, obj):
    """NamespaceLifecycle admission: no new content in a terminating namespace."""
    if not rtype.namespaced:
        return
    ns = obj["metadata"].get("namespace")
    ns_obj = kc.store.get("", "namespaces", None, ns) if ns else None
    if ns_obj is None or not ns_obj["metadata"].get("deletionTimestamp"):
        return
    res = rtype.plural if not rtype.group else "%s.%s" % (rtype.plural, rtype.group)
    name = obj["metadata"].get("name") or ""
    details = {"name": name}
    if rtype.group:
        details["group"] = rtype.group
    details["kind"] = rtype.plural
    details["causes"] = [{"reason": "NamespaceTerminating", "message": "namespace %s is being terminated" % ns,
                          "field": "metadata.namespace"}]
    raise ApiError(403, "Forbidden", '%s "%s" is forbidden: unable to create new content in namespace %s because '
                                     'it is being terminated' % (res, name, ns), details)
