"""HyperPod task governance in the sandbox: Kueue v0.19.2 as the add-on runs it.

The add-on `amazon-sagemaker-hyperpod-taskgovernance` serves the Kueue kinds
(the upstream CRDs, crdbundle 'kueue-v0.19.2') and runs Kueue.  SageMaker
turns its task governance resources into Kueue objects (`apply_governance`):

- a compute quota of team T: namespace `hyperpod-ns-T`, ClusterQueue
  `hyperpod-ns-T-clusterqueue` in the cluster's cohort, LocalQueue
  `hyperpod-ns-T-localqueue` in that namespace, and a ResourceFlavor per
  instance type (named after it, selecting its nodes), as the HyperPod CLI's
  own tests set them up by hand;
- the scheduler config: a WorkloadPriorityClass `<Name>-priority` per priority
  class, its value the class's weight (the label value jobs carry).

Kueue itself (`reconcile`, run by the controllers before the job controllers):
a HyperPodPyTorchJob, batch Job or RayJob labelled `kueue.x-k8s.io/queue-name` gets a
Workload, and stays suspended until the Workload is admitted.  A plain pod with
that label (a Deployment's, such as a Space's) is gated instead (pod
integration: scheduling gate `kueue.x-k8s.io/admission`, label
`kueue.x-k8s.io/managed`) and runs once its own Workload is admitted.  Admission is by
flavor quota in the LocalQueue's ClusterQueue (nominalQuota, then what the
cohort lends within borrowingLimit and lendingLimit), highest priority first,
then oldest (BestEffortFIFO lets a later one that fits go first; StrictFIFO
does not).  A workload that does not fit may preempt lower-priority ones of
its ClusterQueue (preemption.withinClusterQueue) or reclaim quota other
ClusterQueues borrow (reclaimWithinCohort).  Conditions, reasons, messages and
events are worded as Kueue words them (pkg/scheduler, pkg/workload,
pkg/controller/jobframework).  Every Kueue object is written only after it
passes its CRD's schema and CEL rules.
"""
import copy
import hashlib

from . import schema
from .admission import Invalid
from .controllers import parse_qty, pod_requests, owner_ref, EFA, GPU
from .store import now_rfc3339
from ..services import catalog

GROUP = "kueue.x-k8s.io"
VERSION = "v1beta2"
API = GROUP + "/" + VERSION
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
MANAGED_LABEL = "sagemaker.amazonaws.com/sagemaker-managed-queue"
TEAM_LABEL = "sagemaker.amazonaws.com/quota-allocation-id"
# AWS does not publish the cohort's name; every team queue of a cluster is in it.
COHORT = "hyperpod-cohort"
COVERED = ("cpu", "memory", GPU, EFA)
MANAGER = "kueue-controller-manager"
GIB = 1024.0 ** 3

# Job kinds Kueue manages here: (group, plural, kind, path of the suspend flag).
JOB_KINDS = (
    ("sagemaker.amazonaws.com", "hyperpodpytorchjobs", "HyperPodPyTorchJob", ("runPolicy", "suspend")),
    ("batch", "jobs", "Job", ("suspend",)),
    ("ray.io", "rayjobs", "RayJob", ("suspend",)),
)


# --- writing Kueue objects ----------------------------------------------------------
def _schema_of(kc, plural):
    crd = kc.store.get("apiextensions.k8s.io", "customresourcedefinitions", None, "%s.%s" % (plural, GROUP))
    for v in ((crd or {}).get("spec") or {}).get("versions") or []:
        if v.get("name") == VERSION:
            return (v.get("schema") or {}).get("openAPIV3Schema")
    return None


def _checked(kc, plural, obj, old=None):
    """Default and validate obj as the API server would (schema + CEL); raises Invalid."""
    r = schema.check_custom(_schema_of(kc, plural), obj, old)
    if r.causes or r.unknown or r.decode:
        causes = list(r.causes) + [(p, "field not declared in schema", None) for p, _ in r.unknown]
        causes += [("", d[1], None) for d in r.decode]
        raise Invalid(obj.get("kind", ""), obj["metadata"].get("name", ""), causes, GROUP)
    return obj


def _create(kc, plural, obj):
    rtype = kc.registry().find(GROUP, VERSION, plural)
    if rtype is None:
        return None
    _checked(kc, plural, obj)
    return kc.create_object(GROUP, plural, obj, manager=MANAGER, rtype=rtype)


def _update(kc, plural, old, new):
    if new == old:
        return old
    _checked(kc, plural, new, old)
    return kc.store.update(GROUP, plural, new)


def _ensure(kc, plural, obj):
    """Create obj, or bring the stored one's spec/value/labels to it."""
    md = obj["metadata"]
    old = kc.store.get(GROUP, plural, md.get("namespace"), md["name"])
    if old is None:
        return _create(kc, plural, obj)
    new = copy.deepcopy(old)
    for k in ("spec", "value", "description"):
        if k in obj:
            new[k] = copy.deepcopy(obj[k])
    new["metadata"].setdefault("labels", {}).update(md.get("labels") or {})
    return _update(kc, plural, old, new)


# --- SageMaker task governance -> Kueue objects ---------------------------------------
def _qty(res, amount):
    """A Kubernetes quantity for amount of res (cores, bytes or a count)."""
    if res == "memory":
        gi = amount / GIB
        return "%dGi" % round(gi) if abs(gi - round(gi)) < 1e-9 else "%dMi" % round(amount / 1024.0 ** 2)
    if res == "cpu" and abs(amount - round(amount)) > 1e-9:
        return "%dm" % round(amount * 1000)
    return int(round(amount))


def _quota_amounts(item):
    """{resource: amount} of one ComputeQuotaResourceConfig."""
    s = catalog.spec(item["InstanceType"]) or {}
    per = {"cpu": float(s.get("vcpus") or 0), "memory": float(s.get("memory_gib") or 0) * GIB,
           GPU: float(s.get("gpus") or 0), EFA: float(s.get("efa") or 0)}
    if item.get("Count") is not None:
        n = float(item["Count"])
    elif item.get("Accelerators") is not None and per[GPU]:
        n = float(item["Accelerators"]) / per[GPU]
    elif item.get("VCpu") is not None and per["cpu"]:
        n = float(item["VCpu"]) / per["cpu"]
    else:
        n = 0.0
    out = {r: per[r] * n for r in COVERED}
    if item.get("Accelerators") is not None:
        out[GPU] = float(item["Accelerators"])
    if item.get("VCpu") is not None:
        out["cpu"] = float(item["VCpu"])
    if item.get("MemoryInGiB") is not None:
        out["memory"] = float(item["MemoryInGiB"]) * GIB
    return out


def _cluster_queue(q):
    team = q["ComputeQuotaTarget"]["TeamName"]
    cfg = q["ComputeQuotaConfig"]
    share = cfg.get("ResourceSharingConfig") or {}
    strategy = share.get("Strategy", "LendAndBorrow")
    absolute = {}
    for a in share.get("AbsoluteBorrowLimits") or []:
        absolute[a["InstanceType"]] = _quota_amounts(a)
    flavors = []
    for item in cfg.get("ComputeQuotaResources") or []:
        amounts = _quota_amounts(item)
        resources = []
        for res in COVERED:
            r = {"name": res, "nominalQuota": _qty(res, amounts[res])}
            if strategy == "DontLend":
                r["lendingLimit"] = 0
                r["borrowingLimit"] = 0
            elif strategy == "Lend":
                r["borrowingLimit"] = 0
            elif item["InstanceType"] in absolute:
                r["borrowingLimit"] = _qty(res, absolute[item["InstanceType"]][res])
            elif share.get("BorrowLimit") is not None:
                r["borrowingLimit"] = _qty(res, amounts[res] * float(share["BorrowLimit"]) / 100.0)
            resources.append(r)
        flavors.append({"name": item["InstanceType"], "resources": resources})
    within = "LowerPriority" if cfg.get("PreemptTeamTasks") == "LowerPriority" else "Never"
    return {"apiVersion": API, "kind": "ClusterQueue",
            "metadata": {"name": "hyperpod-ns-%s-clusterqueue" % team, "labels": {MANAGED_LABEL: "true",
                                                                                 TEAM_LABEL: team}},
            "spec": {"cohortName": COHORT, "namespaceSelector": {},
                     "queueingStrategy": "BestEffortFIFO",
                     "preemption": {"withinClusterQueue": within, "reclaimWithinCohort": "Any"},
                     "resourceGroups": [{"coveredResources": list(COVERED), "flavors": flavors}] if flavors else []}}


def governance_objects(quotas, sched):
    """(plural, object) pairs HyperPod keeps for the live quotas and scheduler config."""
    out = []
    types = []
    for q in quotas:
        for item in q["ComputeQuotaConfig"].get("ComputeQuotaResources") or []:
            if item["InstanceType"] not in types:
                types.append(item["InstanceType"])
    for t in types:
        out.append(("resourceflavors", {"apiVersion": API, "kind": "ResourceFlavor",
                                        "metadata": {"name": t, "labels": {MANAGED_LABEL: "true"}},
                                        "spec": {"nodeLabels": {"node.kubernetes.io/instance-type": t}}}))
    for q in quotas:
        team = q["ComputeQuotaTarget"]["TeamName"]
        ns = "hyperpod-ns-" + team
        out.append(("namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                   "metadata": {"name": ns, "labels": {MANAGED_LABEL: "true", TEAM_LABEL: team}}}))
        out.append(("clusterqueues", _cluster_queue(q)))
        out.append(("localqueues", {"apiVersion": API, "kind": "LocalQueue",
                                    "metadata": {"name": ns + "-localqueue", "namespace": ns,
                                                 "labels": {MANAGED_LABEL: "true", TEAM_LABEL: team}},
                                    "spec": {"clusterQueue": ns + "-clusterqueue"}}))
    for pc in ((sched or {}).get("SchedulerConfig") or {}).get("PriorityClasses") or []:
        out.append(("workloadpriorityclasses", {
            "apiVersion": API, "kind": "WorkloadPriorityClass",
            "metadata": {"name": "%s-priority" % pc["Name"], "labels": {MANAGED_LABEL: "true"}},
            "value": int(pc["Weight"])}))
    return out


def apply_governance(kc, quotas, sched):
    """Bring the cluster's HyperPod-managed Kueue objects to the quotas and scheduler config."""
    if kc.registry().find(GROUP, VERSION, "clusterqueues") is None:
        return
    want = governance_objects(quotas, sched)
    keep = set()
    for plural, obj in want:
        md = obj["metadata"]
        keep.add((plural, md.get("namespace"), md["name"]))
        if plural == "namespaces":
            if kc.store.get("", "namespaces", None, md["name"]) is None:
                kc.ensure(obj, manager="sagemaker-hyperpod")
            continue
        _ensure(kc, plural, obj)
    for plural in ("localqueues", "clusterqueues", "workloadpriorityclasses", "resourceflavors"):
        for o in kc.store.list(GROUP, plural):
            md = o["metadata"]
            if (md.get("labels") or {}).get(MANAGED_LABEL) == "true" and \
                    (plural, md.get("namespace"), md["name"]) not in keep:
                kc.delete_object(GROUP, plural, md.get("namespace"), md["name"])


# --- Kueue's webhooks: Deployments and their pods ------------------------------------------
GATE = "kueue.x-k8s.io/admission"
POD_MANAGED_LABEL = "kueue.x-k8s.io/managed"
# Kueue's pod integration leaves these namespaces alone (podOptions.namespaceSelector).
POD_SKIP_NAMESPACES = ("kube-system", "kueue-system")


def webhook(kc, group, plural, obj):
    """Kueue's mutating webhooks at create, when Kueue runs: a Deployment labelled with a queue
    passes its queue and priority labels to its pod template (the deployment integration);
    a pod labelled with a queue gets the admission scheduling gate and the managed label (the
    pod integration), so it waits for its Workload's admission."""
    if kc.registry().find(GROUP, VERSION, "workloads") is None:
        return
    md = obj.get("metadata") or {}
    labels = md.get("labels") or {}
    if group == "apps" and plural == "deployments" and labels.get(QUEUE_LABEL):
        tmd = obj.setdefault("spec", {}).setdefault("template", {}).setdefault("metadata", {})
        tl = tmd.setdefault("labels", {})
        for k in (QUEUE_LABEL, PRIORITY_LABEL):
            if labels.get(k):
                tl[k] = labels[k]
    elif group == "" and plural == "pods" and labels.get(QUEUE_LABEL) and \
            md.get("namespace", "default") not in POD_SKIP_NAMESPACES and \
            not (obj.get("spec") or {}).get("nodeName"):
        md.setdefault("labels", {})[POD_MANAGED_LABEL] = "true"
        gates = obj.setdefault("spec", {}).setdefault("schedulingGates", [])
        if not any(g.get("name") == GATE for g in gates):
            gates.append({"name": GATE})


# --- Kueue: jobs -> Workloads ----------------------------------------------------------
def _cond(wl, ctype):
    return next((c for c in (wl.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def _true(wl, ctype):
    c = _cond(wl, ctype)
    return c is not None and c.get("status") == "True"


def _set_cond(wl, ctype, status, reason, message, now_text):
    conds = wl.setdefault("status", {}).setdefault("conditions", [])
    gen = int(wl["metadata"].get("generation", 1))
    for c in conds:
        if c["type"] == ctype:
            if (c["status"], c["reason"], c["message"]) != (status, reason, message):
                if c["status"] != status:
                    c["lastTransitionTime"] = now_text
                c.update(status=status, reason=reason, message=message[:32768], observedGeneration=gen)
            return
    conds.append({"type": ctype, "status": status, "reason": reason, "message": message[:32768],
                  "observedGeneration": gen, "lastTransitionTime": now_text})


def _reset(wl, ctype, reason, now_text):
    """Kueue's resetActiveCondition: a True condition becomes False, 'Previously: ...'."""
    c = _cond(wl, ctype)
    if c is not None and c["status"] == "True":
        _set_cond(wl, ctype, "False", reason, "Previously: " + c["message"], now_text)


def workload_name(job, kind, group):
    """jobframework.GetWorkloadNameForOwnerWithGVK: <kind>-<name>-<5 hex of sha1>."""
    name = job["metadata"]["name"]
    prefix = (kind.lower() + "-" + name)[:253 - 1 - 5]
    h = hashlib.sha1("\n".join([kind, group, name, job["metadata"]["uid"]]).encode()).hexdigest()
    return "%s-%s" % (prefix, h[:5])


def _podsets(job, kind):
    spec = job.get("spec") or {}
    if kind == "Job":
        return [{"name": "main", "count": int(spec.get("parallelism", 1)),
                 "template": copy.deepcopy(spec.get("template") or {})}]
    if kind == "RayJob":
        rc = spec.get("rayClusterSpec") or {}
        out = [{"name": "head", "count": 1,
                "template": copy.deepcopy((rc.get("headGroupSpec") or {}).get("template") or {})}]
        for wg in rc.get("workerGroupSpecs") or []:
            out.append({"name": (wg.get("groupName") or "workers").lower()[:63],
                        "count": int(wg.get("replicas", wg.get("minReplicas", 1)) or 0),
                        "template": copy.deepcopy(wg.get("template") or {})})
        return out
    out = [{"name": (r.get("name") or "pods").lower()[:63], "count": max(1, int(r.get("replicas") or 1)),
            "template": copy.deepcopy(r.get("template") or {})} for r in spec.get("replicaSpecs") or []]
    el = elastic_policy(job)
    if el is not None:
        # An elastic job asks for its most and may run on its fewest (partial admission).
        out[0]["count"], out[0]["minCount"] = el[1], el[0]
    return out


def elastic_policy(job):
    """(minReplicas, maxReplicas, replicaIncrementStep) of an elastic HyperPodPyTorchJob with one
    replica spec, else None."""
    spec = job.get("spec") or {}
    el = spec.get("elasticPolicy")
    if not el or len(spec.get("replicaSpecs") or []) != 1:
        return None
    n = max(1, int(spec["replicaSpecs"][0].get("replicas") or 1))
    lo = max(1, int(el.get("minReplicas") or n))
    hi = max(lo, int(el.get("maxReplicas") or n))
    return lo, hi, max(1, int(el.get("replicaIncrementStep") or 1))


def _suspended(job, path):
    o = job.get("spec") or {}
    for k in path[:-1]:
        o = o.get(k) or {}
    return bool(o.get(path[-1]))


def _set_suspend(kc, group, plural, job, path, value):
    job = copy.deepcopy(job)
    o = job.setdefault("spec", {})
    for k in path[:-1]:
        o = o.setdefault(k, {})
    o[path[-1]] = value
    kc.store.update(group, plural, job, bump_generation=True)
    return job


def _finished(job, kind):
    if kind == "RayJob":
        st = (job.get("status") or {}).get("jobDeploymentStatus")
        return {"type": "Failed" if st == "Failed" else "Complete", "message": (job.get("status") or {}).get(
            "message", "")} if st in ("Complete", "Failed") else None
    conds = (job.get("status") or {}).get("conditions") or []
    for c in conds:
        if c.get("status") == "True" and c.get("type") in ("Complete", "Completed", "Failed"):
            return c
    return None


def _new_workload(kc, job, group, kind, queue):
    md = job["metadata"]
    spec = {"queueName": queue, "podSets": _podsets(job, kind), "active": True}
    pclass = (md.get("labels") or {}).get(PRIORITY_LABEL)
    wpc = kc.store.get(GROUP, "workloadpriorityclasses", None, pclass) if pclass else None
    if wpc is not None:
        spec["priorityClassRef"] = {"group": GROUP, "kind": "WorkloadPriorityClass", "name": pclass}
        spec["priority"] = int(wpc.get("value", 0))
    av = job.get("apiVersion") or ("%s/v1" % group if group else "v1")
    return {"apiVersion": API, "kind": "Workload",
            "metadata": {"name": workload_name(job, kind, group), "namespace": md.get("namespace", "default"),
                         "labels": {JOB_UID_LABEL: md["uid"]},
                         "ownerReferences": [owner_ref(job, av, kind)]},
            "spec": spec}


def _with_count(wl, count):
    """wl as if its one pod set asked for count pods (for partial admission and resizing)."""
    w = dict(wl)
    w["spec"] = dict(wl.get("spec") or {})
    w["spec"]["podSets"] = [dict(w["spec"]["podSets"][0], count=count)]
    return w


def _admitted_count(wl):
    psa = ((wl.get("status") or {}).get("admission") or {}).get("podSetAssignments") or [{}]
    return int(psa[0].get("count") or 1)


def _owner_uid(wl):
    return next((r.get("uid") for r in wl["metadata"].get("ownerReferences") or [] if r.get("controller")), None)


class Kueue:
    def __init__(self, kc):
        self.kc = kc

    @property
    def st(self):
        return self.kc.store

    def now_text(self):
        return now_rfc3339(self.kc.world.clock.now())

    def event(self, obj, reason, message, etype="Normal"):
        self.kc.record_event(obj, reason, message[:1024], etype, MANAGER)

    def reconcile(self, now):
        reg = self.kc.registry()
        if reg.find(GROUP, VERSION, "workloads") is None:
            return
        self.jobs_to_workloads()
        self.pods_to_workloads()
        self.schedule()
        self.workloads_to_jobs()
        self.workloads_to_pods()
        self.queue_status()

    def _jobs(self):
        reg = self.kc.registry()
        for group, plural, kind, path in JOB_KINDS:
            if reg.by_kind(group, kind) is None:
                continue
            for job in self.st.list(group, plural):
                queue = (job["metadata"].get("labels") or {}).get(QUEUE_LABEL)
                if queue and not job["metadata"].get("deletionTimestamp"):
                    yield group, plural, kind, path, job, queue

    def jobs_to_workloads(self):
        have = {_owner_uid(w) for w in self.st.list(GROUP, "workloads")}
        for group, plural, kind, path, job, queue in self._jobs():
            if job["metadata"]["uid"] in have or _finished(job, kind):
                continue
            if not _suspended(job, path):
                # Kueue's webhook suspends a queued job when it is created.
                job = _set_suspend(self.kc, group, plural, job, path, True)
            try:
                wl = _create(self.kc, "workloads", _new_workload(self.kc, job, group, kind, queue))
            except Invalid as e:
                self.event(job, "ErrorCreatingWorkload", e.message, "Warning")
                continue
            if wl is not None:
                self.event(job, "CreatedWorkload", "Created Workload: %s/%s" % (
                    wl["metadata"]["namespace"], wl["metadata"]["name"]))

    def _managed_pods(self):
        for p in self.st.list("", "pods"):
            labels = p["metadata"].get("labels") or {}
            if labels.get(POD_MANAGED_LABEL) == "true" and labels.get(QUEUE_LABEL) and \
                    not p["metadata"].get("deletionTimestamp"):
                yield p

    def pods_to_workloads(self):
        """The pod integration: a Workload "pod-<name>-<hash>" of one pod set for each gated pod."""
        have = {_owner_uid(w) for w in self.st.list(GROUP, "workloads")}
        for pod in self._managed_pods():
            if pod["metadata"]["uid"] in have or not any(
                    g.get("name") == GATE for g in (pod.get("spec") or {}).get("schedulingGates") or []):
                continue
            spec = copy.deepcopy(pod.get("spec") or {})
            for k in ("schedulingGates", "nodeName"):
                spec.pop(k, None)
            job = dict(pod, spec={"template": {"metadata": {"labels": dict(pod["metadata"].get("labels") or {})},
                                               "spec": spec}})
            wl = _new_workload(self.kc, job, "", "Pod", pod["metadata"]["labels"][QUEUE_LABEL])
            wl["spec"]["podSets"] = [{"name": "main", "count": 1, "template": job["spec"]["template"]}]
            try:
                wl = _create(self.kc, "workloads", wl)
            except Invalid as e:
                self.event(pod, "ErrorCreatingWorkload", e.message, "Warning")
                continue
            if wl is not None:
                self.event(pod, "CreatedWorkload", "Created Workload: %s/%s" % (
                    wl["metadata"]["namespace"], wl["metadata"]["name"]))

    def workloads_to_pods(self):
        """An admitted pod loses its gate and is scheduled; a preempted one is stopped (its
        ReplicaSet makes another, queued anew); a finished pod finishes its Workload."""
        wls = {_owner_uid(w): w for w in self.st.list(GROUP, "workloads")}
        for pod in list(self._managed_pods()):
            wl = wls.get(pod["metadata"]["uid"])
            if wl is None:
                continue
            phase = (pod.get("status") or {}).get("phase")
            if phase in ("Succeeded", "Failed"):
                if not _true(wl, "Finished"):
                    old = copy.deepcopy(wl)
                    _set_cond(wl, "Finished", "True", "Succeeded" if phase == "Succeeded" else "Failed",
                              "Job finished successfully" if phase == "Succeeded" else "Pod failed",
                              self.now_text())
                    _update(self.kc, "workloads", old, wl)
                continue
            gates = (pod.get("spec") or {}).get("schedulingGates") or []
            gated = any(g.get("name") == GATE for g in gates)
            if _true(wl, "Admitted") and gated:
                pod = copy.deepcopy(pod)
                pod["spec"]["schedulingGates"] = [g for g in gates if g.get("name") != GATE]
                if not pod["spec"]["schedulingGates"]:
                    del pod["spec"]["schedulingGates"]
                self.st.update("", "pods", pod)
                self.event(pod, "Started", "Admitted by clusterQueue %s" % wl["status"]["admission"]["clusterQueue"])
            elif not gated and _true(wl, "Evicted"):
                ev = _cond(wl, "Evicted")
                self.event(pod, "Stopped", ev["message"])
                self.kc.delete_object("", "pods", pod["metadata"].get("namespace"), pod["metadata"]["name"])

    # --- quota arithmetic --------------------------------------------------------------
    def _queues(self):
        cqs = {o["metadata"]["name"]: o for o in self.st.list(GROUP, "clusterqueues")}
        lqs = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in self.st.list(GROUP, "localqueues")}
        return cqs, lqs

    @staticmethod
    def _quota(cq):
        """{(flavor, resource): (nominal, borrowingLimit|None, lendingLimit|None)}."""
        out = {}
        for rg in (cq.get("spec") or {}).get("resourceGroups") or []:
            for f in rg.get("flavors") or []:
                for r in f.get("resources") or []:
                    out[(f["name"], r["name"])] = (
                        parse_qty(r.get("nominalQuota", 0)),
                        parse_qty(r["borrowingLimit"]) if r.get("borrowingLimit") is not None else None,
                        parse_qty(r["lendingLimit"]) if r.get("lendingLimit") is not None else None)
        return out

    @staticmethod
    def _wl_usage(wl):
        """{(flavor, resource): amount} a workload with an admission holds."""
        out = {}
        for psa in ((wl.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []:
            for res, q in (psa.get("resourceUsage") or {}).items():
                f = (psa.get("flavors") or {}).get(res)
                if f:
                    out[(f, res)] = out.get((f, res), 0.0) + parse_qty(q)
        return out

    def _usage(self, wls):
        """{cq: {(flavor, resource): amount}} of workloads holding quota."""
        out = {}
        for wl in wls:
            adm = (wl.get("status") or {}).get("admission")
            if adm and not _true(wl, "Finished"):
                u = out.setdefault(adm["clusterQueue"], {})
                for k, v in self._wl_usage(wl).items():
                    u[k] = u.get(k, 0.0) + v
        return out

    @staticmethod
    def _cohort_of(cq):
        return (cq.get("spec") or {}).get("cohortName")

    def _available(self, name, fr, cqs, usage, potential=False):
        """Kueue's Available / PotentialAvailable for one flavor-resource of a ClusterQueue
        (one level of cohort)."""
        quotas = {n: self._quota(c) for n, c in cqs.items()}
        nominal, borrow, lend = quotas[name].get(fr, (0.0, None, 0.0))
        used = 0.0 if potential else usage.get(name, {}).get(fr, 0.0)
        cohort = self._cohort_of(cqs[name])
        if not cohort:
            return nominal - used
        guaranteed = nominal - lend if lend is not None else 0.0
        local = max(0.0, guaranteed - used)
        pool = pool_used = 0.0
        for n, c in cqs.items():
            if self._cohort_of(c) != cohort or fr not in quotas[n]:
                continue
            nom, _, ln = quotas[n][fr]
            g = nom - ln if ln is not None else 0.0
            pool += nom - g
            u = 0.0 if potential else usage.get(n, {}).get(fr, 0.0)
            pool_used += max(0.0, u - g)
        parent = pool - pool_used
        if borrow is not None:
            parent = min(parent, (nominal - guaranteed) - max(0.0, used - guaranteed) + borrow)
        return local + parent

    @staticmethod
    def _requests(wl):
        """[(podset name, count, {resource: per-pod amount}, nodeSelector)]."""
        out = []
        for ps in (wl.get("spec") or {}).get("podSets") or []:
            tmpl = ps.get("template") or {}
            req = {k: v for k, v in pod_requests(tmpl).items() if v > 0}
            out.append((ps.get("name", "main"), int(ps.get("count", 1)), req,
                        (tmpl.get("spec") or {}).get("nodeSelector") or {}))
        return out

    def _assign(self, wl, cq_name, cqs, usage):
        """(podSetAssignments, None, []) when wl fits now; else (None, message, [(flavor-resource,
        amount needed)] that preemption would have to free, or None when it can never fit)."""
        cq = cqs[cq_name]
        groups = (cq.get("spec") or {}).get("resourceGroups") or []
        flavors = {}
        for rg in groups:
            for f in rg.get("flavors") or []:
                flavors.setdefault(f["name"], set()).update(rg.get("coveredResources") or [])
        assigned = []
        taken = {}
        messages = []
        shortfall = []
        for name, count, req, selector in self._requests(wl):
            missing = [r for r in req if not any(r in cov for cov in flavors.values())]
            if missing:
                return None, "couldn't assign flavors to pod set %s: resource %s unavailable in ClusterQueue" % (
                    name, missing[0]), None
            status = []
            chosen = None
            short = None
            for fname in flavors:
                rf = self.st.get(GROUP, "resourceflavors", None, fname)
                labels = ((rf or {}).get("spec") or {}).get("nodeLabels") or {}
                if any(k in labels and labels[k] != v for k, v in selector.items()):
                    status.append("flavor %s doesn't match node affinity" % fname)
                    continue
                ok = True
                need = []
                for res, per in req.items():
                    fr = (fname, res)
                    amount = per * count
                    before = taken.get(fr, 0.0)
                    cap = self._available(cq_name, fr, cqs, usage, potential=True)
                    if before + amount > cap + 1e-9:
                        status.append("insufficient quota for %s in flavor %s, previously considered podsets "
                                      "requests (%s) + current podset request (%s) > maximum capacity (%s)" % (
                                          res, fname, _qty(res, before), _qty(res, amount), _qty(res, cap)))
                        ok = False
                        need = None
                        break
                    avail = self._available(cq_name, fr, cqs, usage)
                    if before + amount > avail + 1e-9:
                        more = before + amount - avail
                        status.append("insufficient unused quota for %s in flavor %s, %s more needed" % (
                            res, fname, _qty(res, more)))
                        ok = False
                        need.append((fr, more))
                if ok:
                    chosen = fname
                    break
                if need and short is None:
                    short = need
            if chosen is None:
                messages.append("couldn't assign flavors to pod set %s: %s" % (name, ", ".join(status)))
                if short is None:
                    shortfall = None
                elif shortfall is not None:
                    shortfall += short
                continue
            for res, per in req.items():
                taken[(chosen, res)] = taken.get((chosen, res), 0.0) + per * count
            assigned.append({"name": name, "count": count,
                             "flavors": {res: chosen for res in req},
                             "resourceUsage": {res: _qty(res, per * count) for res, per in req.items()}})
        if messages:
            return None, "; ".join(messages), shortfall
        return assigned, None, []

    # --- the scheduler -----------------------------------------------------------------
    def _priority(self, wl):
        return int((wl.get("spec") or {}).get("priority") or 0)

    def _pending_reason(self, wl, reason, message):
        old = copy.deepcopy(wl)
        nt = self.now_text()
        _set_cond(wl, "QuotaReserved", "False", reason, message, nt)
        wl["status"]["resourceRequests"] = [
            {"name": n, "resources": {r: _qty(r, v) for r, v in req.items()}} for n, _, req, _ in self._requests(wl)]
        c = _cond(old, "QuotaReserved")
        if c is None or (c["reason"], c["message"]) != (reason, message):
            _update(self.kc, "workloads", old, wl)
            self.event(wl, reason, message, "Warning")

    def _admit(self, wl, cq_name, assigned, queued_since):
        old = copy.deepcopy(wl)
        nt = self.now_text()
        wl.setdefault("status", {})["admission"] = {"clusterQueue": cq_name, "podSetAssignments": assigned}
        _set_cond(wl, "QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue %s" % cq_name, nt)
        _reset(wl, "Evicted", "QuotaReserved", nt)
        _reset(wl, "Preempted", "QuotaReserved", nt)
        _set_cond(wl, "Admitted", "True", "Admitted", "The workload is admitted", nt)
        wl["status"].pop("resourceRequests", None)
        _update(self.kc, "workloads", old, wl)
        wait = max(0.0, self.kc.world.clock.now() - queued_since)
        self.event(wl, "QuotaReserved", "Quota reserved in ClusterQueue %s, wait time since queued was %.0fs" % (
            cq_name, wait))
        self.event(wl, "Admitted", "Admitted by ClusterQueue %s, wait time since reservation was 0s" % cq_name)

    def _evict(self, wl, preemptor, preemptor_cq, reason, cqs):
        old = copy.deepcopy(wl)
        nt = self.now_text()

        def path(cq_name):
            cohort = self._cohort_of(cqs.get(cq_name) or {})
            return "/" + "/".join(([cohort] if cohort else []) + [cq_name])
        human = {"InClusterQueue": "prioritization in the ClusterQueue",
                 "InCohortReclamation": "reclamation within the cohort"}[reason]
        msg = ("Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s; preemptor path: %s; "
               "preemptee path: %s" % (preemptor["metadata"]["uid"],
                                       preemptor["metadata"].get("labels", {}).get(JOB_UID_LABEL, "UNKNOWN"), human,
                                       path(preemptor_cq), path(wl["status"]["admission"]["clusterQueue"])))
        _set_cond(wl, "Evicted", "True", "Preempted", msg, nt)
        _set_cond(wl, "Preempted", "True", reason, msg, nt)
        _set_cond(wl, "QuotaReserved", "False", "Pending", msg, nt)
        _set_cond(wl, "Admitted", "False", "NoReservation", "The workload has no reservation", nt)
        wl["status"].pop("admission", None)
        counts = wl["status"].setdefault("schedulingStats", {}).setdefault("evictions", [])
        e = next((x for x in counts if x["reason"] == "Preempted"), None)
        if e is None:
            counts.append({"reason": "Preempted", "underlyingCause": "", "count": 1})
        else:
            e["count"] += 1
        _update(self.kc, "workloads", old, wl)
        self.event(wl, "EvictedDueToPreempted", msg)
        self.event(wl, "Preempted", msg)

    def _preempt(self, wl, cq_name, cqs, usage, wls, shortfall):
        """Evict what lets wl fit under its ClusterQueue's preemption policy; True when done."""
        cq = cqs[cq_name]
        policy = (cq.get("spec") or {}).get("preemption") or {}
        within = policy.get("withinClusterQueue", "Never")
        reclaim = policy.get("reclaimWithinCohort", "Never")
        prio = self._priority(wl)
        cohort = self._cohort_of(cq)
        quotas = {n: self._quota(c) for n, c in cqs.items()}
        frs = {fr for fr, _ in shortfall}
        cands = []
        for other in wls:
            adm = (other.get("status") or {}).get("admission")
            if not adm or _true(other, "Finished") or other is wl:
                continue
            ocq = adm["clusterQueue"]
            held = self._wl_usage(other)
            if not frs & set(held):
                continue
            if ocq == cq_name:
                if within == "LowerPriority" and self._priority(other) < prio:
                    cands.append((0, self._priority(other), other, "InClusterQueue"))
            elif cohort and self._cohort_of(cqs.get(ocq) or {}) == cohort and reclaim != "Never":
                borrowing = any(usage.get(ocq, {}).get(fr, 0.0) > quotas[ocq].get(fr, (0.0,))[0] + 1e-9
                                for fr in frs)
                mine_ok = all(usage.get(cq_name, {}).get(fr, 0.0) + dict(shortfall)[fr] <=
                              quotas[cq_name].get(fr, (0.0,))[0] + 1e-9 for fr in frs)
                if borrowing and mine_ok and (reclaim == "Any" or self._priority(other) < prio):
                    cands.append((-1, self._priority(other), other, "InCohortReclamation"))
        # Borrowers of other queues first, then the lowest priority, then the most recently admitted.
        # (Ties within a second: the newer object, then the later name.)
        cands.sort(key=lambda c: (c[2]["metadata"]["creationTimestamp"], c[2]["metadata"]["name"]), reverse=True)
        cands.sort(key=lambda c: (c[0], c[1], -_parse_time((_cond(c[2], "QuotaReserved") or {}).get(
            "lastTransitionTime"))))
        # An elastic workload gives up replicas a step at a time down to its minCount before
        # anything is evicted whole; only when that is not enough is it evicted too.
        el = self._elastic(wl)
        target = _with_count(wl, el[0]) if el else wl
        sim = copy.deepcopy(usage)
        chosen = {}
        order = [(other, reason, True) for _, _, other, reason in cands] + \
                [(other, reason, False) for _, _, other, reason in cands if self._elastic(other)]
        for other, reason, first in order:
            ocq = other["status"]["admission"]["clusterQueue"]
            oel = self._elastic(other)
            cur = _admitted_count(other)
            steps = list(range(cur - oel[2], oel[0] - 1, -oel[2])) if first and oel else [0]
            for c in steps:
                left = chosen.get(id(other), (other, reason, cur))[2]
                for fr, v in self._wl_usage(other).items():
                    sim[ocq][fr] = sim[ocq].get(fr, 0.0) - v * (left - c) / cur
                chosen[id(other)] = (other, reason, c)
                if self._assign(target, cq_name, cqs, sim)[0] is not None:
                    for o, why, c2 in chosen.values():
                        if c2 == 0:
                            self._evict(o, wl, cq_name, why, cqs)
                        else:
                            self._resize(o, c2, wl, cq_name, why, cqs)
                    return len(chosen)
        return 0

    def _elastic(self, wl):
        """(min, max, step) when wl is the Workload of an elastic HyperPodPyTorchJob, else None."""
        ps = (wl.get("spec") or {}).get("podSets") or []
        ref = next((r for r in wl["metadata"].get("ownerReferences") or [] if r.get("controller")), {})
        if len(ps) != 1 or "minCount" not in ps[0] or ref.get("kind") != "HyperPodPyTorchJob":
            return None
        job = self.st.get("sagemaker.amazonaws.com", "hyperpodpytorchjobs", wl["metadata"]["namespace"], ref["name"])
        return elastic_policy(job) if job else None

    def _resize(self, wl, count, preemptor, preemptor_cq, reason, cqs):
        """Change an admitted elastic Workload's replicas in place (scale down for a preemptor, or up
        when quota is free); the training operator follows its admission."""
        old = copy.deepcopy(wl)
        psa = wl["status"]["admission"]["podSetAssignments"][0]
        before = int(psa.get("count", 1))
        psa["resourceUsage"] = {r: _qty(r, parse_qty(q) * count / before) for r, q in psa["resourceUsage"].items()}
        psa["count"] = count
        _update(self.kc, "workloads", old, wl)
        ps = psa["name"]
        if preemptor is None:
            self.event(wl, "ScaledUp", "Pod set %s scaled up from %d to %d replicas: quota is free in "
                       "ClusterQueue %s" % (ps, before, count, wl["status"]["admission"]["clusterQueue"]))
            return
        human = {"InClusterQueue": "prioritization in the ClusterQueue",
                 "InCohortReclamation": "reclamation within the cohort"}[reason]
        self.event(wl, "ScaledDown", "Pod set %s scaled down from %d to %d replicas to accommodate a workload "
                   "(UID: %s, JobUID: %s) due to %s; preemptor path: /%s" % (
                       ps, before, count, preemptor["metadata"]["uid"],
                       preemptor["metadata"].get("labels", {}).get(JOB_UID_LABEL, "UNKNOWN"), human,
                       "/".join(x for x in (self._cohort_of(cqs.get(preemptor_cq) or {}), preemptor_cq) if x)))

    def _grow(self, cqs, usage, wls):
        """Admitted elastic Workloads below their count grow a step when nothing else in their
        cohort waits for quota and the step fits."""
        def cohort(cq_name):
            return self._cohort_of(cqs.get(cq_name) or {}) or cq_name
        _, lqs = self._queues()
        busy = set()
        for w in wls:
            if (w.get("status") or {}).get("admission") or _true(w, "Finished") or \
                    not (w.get("spec") or {}).get("active", True) or \
                    (_cond(w, "QuotaReserved") or {}).get("reason") in ("ExceedsMaxQuota", "Misconfigured"):
                continue
            lq = lqs.get((w["metadata"]["namespace"], (w.get("spec") or {}).get("queueName")))
            busy.add(cohort(((lq or {}).get("spec") or {}).get("clusterQueue")))
        for w in wls:
            adm = (w.get("status") or {}).get("admission")
            el = self._elastic(w) if adm and not _true(w, "Finished") else None
            cur = _admitted_count(w) if el else 0
            if el is None or cur >= el[1] or cohort(adm["clusterQueue"]) in busy:
                continue
            cq_name = adm["clusterQueue"]
            held = self._wl_usage(w)
            sim = copy.deepcopy(usage)
            for fr, v in held.items():
                sim[cq_name][fr] = sim[cq_name].get(fr, 0.0) - v
            c = min(el[1], cur + el[2])
            if self._assign(_with_count(w, c), cq_name, cqs, sim)[0] is None:
                continue
            self._resize(w, c, None, None, None, cqs)
            for fr, v in held.items():
                usage[cq_name][fr] = usage[cq_name].get(fr, 0.0) + v * (c - cur) / cur

    def schedule(self):
        cqs, lqs = self._queues()
        wls = self.st.list(GROUP, "workloads")
        usage = self._usage(wls)
        heads = {}
        for wl in wls:
            if (wl.get("status") or {}).get("admission") or _true(wl, "Finished") or \
                    not (wl.get("spec") or {}).get("active", True):
                continue
            q = (wl.get("spec") or {}).get("queueName")
            lq = lqs.get((wl["metadata"]["namespace"], q))
            if lq is None:
                self._pending_reason(wl, "Misconfigured", "LocalQueue %s doesn't exist" % q)
                continue
            cq_name = (lq.get("spec") or {}).get("clusterQueue")
            if cq_name not in cqs:
                self._pending_reason(wl, "Misconfigured", "ClusterQueue %s doesn't exist" % cq_name)
                continue
            heads.setdefault(cq_name, []).append(wl)
        for pending in heads.values():
            pending.sort(key=lambda w: (-self._priority(w), w["metadata"]["creationTimestamp"], w["metadata"]["name"]))
        # Kueue's cycle: the head of every ClusterQueue, those that fit without
        # borrowing first, then by priority and age; a ClusterQueue whose head
        # does not fit moves on to its next (BestEffortFIFO) or stops (StrictFIFO).
        # A cycle that issues preemptions ends there: the quota they free is the
        # preemptor's in the next cycle.
        while heads:
            entries = []
            for cq_name in sorted(heads):
                wl = heads[cq_name].pop(0)
                assigned, _, _ = self._assign(wl, cq_name, cqs, usage)
                entries.append((not assigned or self._borrows(cq_name, cqs, usage, wl, assigned),
                                -self._priority(wl), wl["metadata"]["creationTimestamp"], cq_name, wl))
            entries.sort(key=lambda e: e[:4])
            for _, _, _, cq_name, wl in entries:
                if self._try(wl, cq_name, cqs, usage, wls) == "preempted":
                    return
                strict = (cqs[cq_name].get("spec") or {}).get("queueingStrategy") == "StrictFIFO"
                if strict and not (wl.get("status") or {}).get("admission"):
                    heads[cq_name] = []
            heads = {k: v for k, v in heads.items() if v}
        self._grow(cqs, usage, wls)

    def _borrows(self, cq_name, cqs, usage, wl, assigned):
        quota = self._quota(cqs[cq_name])
        add = self._wl_usage({"status": {"admission": {"podSetAssignments": assigned}}})
        return any(usage.get(cq_name, {}).get(fr, 0.0) + v > quota.get(fr, (0.0,))[0] + 1e-9
                   for fr, v in add.items())

    def _try(self, wl, cq_name, cqs, usage, wls):
        """Admit wl, or say why not (and preempt for it when its policy allows)."""
        assigned, msg, shortfall = self._assign(wl, cq_name, cqs, usage)
        el = self._elastic(wl) if assigned is None else None
        if el is not None:
            # Partial admission: the most replicas that fit now, in whole steps down to minCount;
            # when none does, what preemption must free is counted for minCount.
            for c in range(el[1] - el[2], el[0] - 1, -el[2]):
                assigned = self._assign(_with_count(wl, c), cq_name, cqs, usage)[0]
                if assigned is not None:
                    break
            else:
                _, msg, shortfall = self._assign(_with_count(wl, el[0]), cq_name, cqs, usage)
        if assigned is not None:
            queued = _cond(wl, "QuotaReserved")
            since = wl["metadata"]["creationTimestamp"] if queued is None else queued["lastTransitionTime"]
            self._admit(wl, cq_name, assigned, _parse_time(since))
            u = usage.setdefault(cq_name, {})
            for fr, v in self._wl_usage(wl).items():
                u[fr] = u.get(fr, 0.0) + v
            return "admitted"
        if shortfall is None:
            self._pending_reason(wl, "ExceedsMaxQuota" if "maximum capacity" in msg else "Pending", msg)
            return "never"
        n = self._preempt(wl, cq_name, cqs, usage, wls, shortfall) if shortfall else 0
        if n:
            msg += ". Pending the preemption of %d workload(s)" % n
        self._pending_reason(wl, "Pending", msg)
        return "preempted" if n else "pending"

    # --- Workloads -> jobs -------------------------------------------------------------
    def workloads_to_jobs(self):
        wls = {_owner_uid(w): w for w in self.st.list(GROUP, "workloads")}
        for group, plural, kind, path, job, queue in self._jobs():
            wl = wls.get(job["metadata"]["uid"])
            if wl is None:
                continue
            done = _finished(job, kind)
            if done is not None:
                if not _true(wl, "Finished"):
                    old = copy.deepcopy(wl)
                    ok = done.get("type") != "Failed"
                    _set_cond(wl, "Finished", "True", "Succeeded" if ok else "Failed",
                              "Job finished successfully" if ok else (done.get("message") or "Job failed"),
                              self.now_text())
                    _update(self.kc, "workloads", old, wl)
                continue
            admitted = _true(wl, "Admitted")
            if admitted and _suspended(job, path):
                _set_suspend(self.kc, group, plural, job, path, False)
                self.event(job, "Started", "Admitted by clusterQueue %s" % wl["status"]["admission"]["clusterQueue"])
            elif not admitted and not _suspended(job, path):
                _set_suspend(self.kc, group, plural, job, path, True)
                ev = _cond(wl, "Evicted")
                self.event(job, "Stopped", ev["message"] if ev and ev["status"] == "True"
                           else "Not admitted by cluster queue")

    def queue_status(self):
        """ClusterQueue and LocalQueue status: pending, reserving and admitted counts, usage."""
        cqs, lqs = self._queues()
        wls = self.st.list(GROUP, "workloads")
        usage = self._usage(wls)
        counts = {}
        lcounts = {}
        for wl in wls:
            if _true(wl, "Finished"):
                continue
            adm = (wl.get("status") or {}).get("admission")
            key = (wl["metadata"]["namespace"], (wl.get("spec") or {}).get("queueName"))
            lq = lqs.get(key)
            cq_name = adm["clusterQueue"] if adm else ((lq or {}).get("spec") or {}).get("clusterQueue")
            slot = 1 if adm else 0
            c = counts.setdefault(cq_name, [0, 0])
            c[slot] += 1
            lc = lcounts.setdefault(key, [0, 0])
            lc[slot] += 1
        nt = self.now_text()
        for name, cq in cqs.items():
            quota = self._quota(cq)
            flavors = []
            for rg in (cq.get("spec") or {}).get("resourceGroups") or []:
                for f in rg.get("flavors") or []:
                    res = []
                    for r in f.get("resources") or []:
                        fr = (f["name"], r["name"])
                        used = usage.get(name, {}).get(fr, 0.0)
                        res.append({"name": r["name"], "total": _qty(r["name"], used),
                                    "borrowed": _qty(r["name"], max(0.0, used - quota[fr][0]))})
                    flavors.append({"name": f["name"], "resources": res})
            pend, adm = counts.get(name, [0, 0])
            st = {"pendingWorkloads": pend, "reservingWorkloads": adm, "admittedWorkloads": adm,
                  "flavorsReservation": flavors, "flavorsUsage": copy.deepcopy(flavors),
                  "conditions": [{"type": "Active", "status": "True", "reason": "Ready",
                                  "message": "Can admit new workloads", "observedGeneration":
                                      int(cq["metadata"].get("generation", 1)), "lastTransitionTime": nt}]}
            self._status(cq, "clusterqueues", st)
        for key, lq in lqs.items():
            pend, adm = lcounts.get(key, [0, 0])
            ok = (lq.get("spec") or {}).get("clusterQueue") in cqs
            st = {"pendingWorkloads": pend, "reservingWorkloads": adm, "admittedWorkloads": adm,
                  "conditions": [{"type": "Active", "status": "True" if ok else "False",
                                  "reason": "Ready" if ok else "ClusterQueueDoesNotExist",
                                  "message": "Can submit new workloads to localQueue" if ok
                                  else "Can't submit new workloads to clusterQueue",
                                  "observedGeneration": int(lq["metadata"].get("generation", 1)),
                                  "lastTransitionTime": nt}]}
            self._status(lq, "localqueues", st)

    def _status(self, obj, plural, st):
        old_st = obj.get("status") or {}
        conds = old_st.get("conditions") or []
        if conds and conds[0]["status"] == st["conditions"][0]["status"]:
            st["conditions"][0]["lastTransitionTime"] = conds[0]["lastTransitionTime"]
        if old_st == st:
            return
        new = copy.deepcopy(obj)
        new["status"] = st
        _update(self.kc, plural, obj, new)


def _parse_time(text):
    import calendar
    import time
    try:
        return float(calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")))
    except (TypeError, ValueError):
        return 0.0
