"""Controllers run by the ticker: what kube-controller-manager, the scheduler, the
kubelet and the add-on operators would do in a real cluster.

Deployments -> ReplicaSets -> Pods, StatefulSets, DaemonSets, Jobs,
HyperPodPyTorchJob, RayCluster/RayJob and HyperPod inference endpoints make
pods; a scheduler binds pods to nodes by selector, taints and GPU/CPU
requests; the "kubelet" moves pods Pending -> Running -> Succeeded/Failed;
PVCs bind to matching (or dynamically made) PVs; owner references are
garbage-collected.  All timings come from stored timestamps.
"""
import copy
import hashlib
import json
import re

from . import images, inference, lifecycle, logs, spaces, trainer
from .admission import random_hash, suffix
from .store import now_rfc3339

START_DELAY = 8.0      # sandbox seconds from binding to Running
TERMINATE_SECONDS = 2.0   # a container's exit after SIGTERM, in sandbox seconds
PULL_FAILED = "sandbox.slipway.dev/pull-failed-at"
PULL_STATE = "sandbox.slipway.dev/pull-state"
PULL_BACKOFF = 10.0   # seconds of the kubelet's first image pull back-off
START_FAILED = "sandbox.slipway.dev/start-failed"   # set by the start hook
GPU = "nvidia.com/gpu"
NEURON = "aws.amazon.com/neuron"
EFA = "vpc.amazonaws.com/efa"
DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins"
# Extended resource -> (image repositories of the plugins that register it,
# catalogue field giving the count).  The kubelet advertises a resource only
# while such a plugin runs on the node with the kubelet's socket directory.
PLUGIN_RESOURCES = {
    GPU: (re.compile(r"^nvcr\.io/nvidia/k8s-device-plugin$"), "gpus"),
    EFA: (re.compile(r"^[0-9]{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com/eks/aws-efa-k8s-device-plugin$"), "efa"),
}


def parse_qty(v):
    s = str(v).strip()
    if not s:
        return 0.0
    mult = {"Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "Ti": 1024 ** 4, "k": 1e3, "M": 1e6, "G": 1e9,
            "T": 1e12, "m": 0.001}
    for suf in ("Ki", "Mi", "Gi", "Ti", "k", "M", "G", "T", "m"):
        if s.endswith(suf):
            try:
                return float(s[: -len(suf)]) * mult[suf]
            except ValueError:
                return 0.0
    try:
        return float(s)
    except ValueError:
        return 0.0


def pod_requests(pod):
    total = {}
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        req = dict(res.get("limits") or {})
        req.update(res.get("requests") or {})
        for k, v in req.items():
            total[k] = total.get(k, 0.0) + parse_qty(v)
    return total


def owner_ref(obj, api_version, kind, controller=True):
    return {"apiVersion": api_version, "kind": kind, "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": controller, "blockOwnerDeletion": True}


def owned_by(obj, uid):
    return any(r.get("uid") == uid for r in (obj.get("metadata") or {}).get("ownerReferences") or [])


def template_hash(template):
    return hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]


def _cond(type_, status, reason="", message="", now_text=None):
    c = {"type": type_, "status": status, "lastTransitionTime": now_text}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def selector_matches(selector, labels):
    if not selector:
        return True
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, vals = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in vals:
            return False
        if op == "NotIn" and labels.get(key) in vals:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


class Controllers:
    def __init__(self, kc):
        self.kc = kc

    @property
    def st(self):
        return self.kc.store

    def now_text(self):
        return now_rfc3339(self.kc.world.clock.now())

    def run(self, now):
        from . import kueue
        spaces.reconcile(self, now)
        self.deployments(now)
        self.replicasets(now)
        self.statefulsets(now)
        self.daemonsets(now)
        kueue.Kueue(self.kc).reconcile(now)
        self.jobs(now)
        self.hyperpod_jobs(now)
        self.ray(now)
        self.inference(now)
        self.device_plugins(now)
        self.load_balancers(now)
        self.schedule(now)
        self.kubelet(now)
        self.volumes(now)
        self.gc(now)
        lifecycle.finish_namespaces(self.kc)

    # --- helpers -----------------------------------------------------------------
    def make_pod(self, owner, owner_av, owner_kind, template, name, now, workload="generic", extra_ann=None,
                 extra_labels=None):
        tmeta = copy.deepcopy((template or {}).get("metadata") or {})
        spec = copy.deepcopy((template or {}).get("spec") or {})
        ns = owner["metadata"].get("namespace", "default")
        if workload == "training":
            spec.setdefault("restartPolicy", "OnFailure")
        labels = dict(tmeta.get("labels") or {})
        labels.update(extra_labels or {})
        ann = dict(tmeta.get("annotations") or {})
        ann["sandbox.slipway.dev/workload"] = workload
        ann.update(extra_ann or {})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": ns, "labels": labels, "annotations": ann,
                            "ownerReferences": [owner_ref(owner, owner_av, owner_kind)]},
               "spec": spec}
        if self.st.get("", "pods", ns, name) is not None:
            return None  # AlreadyExists (one still terminating): the controller tries again later
        return self.kc.create_object("", "pods", pod, manager="kube-controller-manager")

    def event(self, obj, reason, message, etype="Normal", component="default-scheduler"):
        self.kc.record_event(obj, reason, message, etype, component)

    def _pods_of(self, owner):
        uid = owner["metadata"]["uid"]
        return [p for p in self.st.list("", "pods", owner["metadata"].get("namespace"))
                if owned_by(p, uid) and not p["metadata"].get("deletionTimestamp")]

    def _stop_pods(self, owner):
        """A suspended job has no running pods: its controller deletes them."""
        for p in self._pods_of(owner):
            if p["status"].get("phase") in ("Pending", "Running"):
                self.kc.delete_object("", "pods", p["metadata"].get("namespace"), p["metadata"]["name"])

    def _set_status(self, group, plural, obj, status):
        if obj.get("status") != status:
            obj["status"] = status
            self.st.update(group, plural, obj)

    # --- apps ------------------------------------------------------------------------
    def deployments(self, now):
        for d in self.st.list("apps", "deployments"):
            spec = d.get("spec") or {}
            h = template_hash(spec.get("template"))
            rs_name = "%s-%s" % (d["metadata"]["name"], h)[:63]
            uid = d["metadata"]["uid"]
            ns = d["metadata"]["namespace"]
            rss = [r for r in self.st.list("apps", "replicasets", ns) if owned_by(r, uid)]
            current = next((r for r in rss if r["metadata"]["name"] == rs_name), None)
            if current is None:
                tmpl = copy.deepcopy(spec.get("template") or {})
                tmpl.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = h
                sel = copy.deepcopy(spec.get("selector") or {})
                sel.setdefault("matchLabels", {})["pod-template-hash"] = h
                rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                      "metadata": {"name": rs_name, "namespace": ns,
                                   "labels": dict(tmpl["metadata"]["labels"]),
                                   "annotations": {"deployment.kubernetes.io/revision": str(len(rss) + 1)},
                                   "ownerReferences": [owner_ref(d, "apps/v1", "Deployment")]},
                      "spec": {"replicas": spec.get("replicas", 1), "selector": sel, "template": tmpl}}
                self.kc.create_object("apps", "replicasets", rs, manager="kube-controller-manager")
                self.event(d, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d" % (
                    rs_name, spec.get("replicas", 1)), component="deployment-controller")
            elif current["spec"].get("replicas") != spec.get("replicas", 1):
                current["spec"]["replicas"] = spec.get("replicas", 1)
                self.st.update("apps", "replicasets", current, bump_generation=True)
            for r in rss:
                if r["metadata"]["name"] != rs_name and r["spec"].get("replicas", 0) != 0:
                    r["spec"]["replicas"] = 0
                    self.st.update("apps", "replicasets", r, bump_generation=True)
            total = ready = avail = updated = 0
            for r in [x for x in self.st.list("apps", "replicasets", ns) if owned_by(x, uid)]:
                rst = r.get("status") or {}
                total += rst.get("replicas", 0)
                ready += rst.get("readyReplicas", 0)
                avail += rst.get("availableReplicas", 0)
                if r["metadata"]["name"] == rs_name:
                    updated = rst.get("replicas", 0)
            want = spec.get("replicas", 1)
            status = {"observedGeneration": d["metadata"].get("generation", 1), "replicas": total,
                      "updatedReplicas": updated, "readyReplicas": ready, "availableReplicas": avail}
            if want - avail > 0:
                status["unavailableReplicas"] = want - avail
            old_conds = {c["type"]: c for c in (d.get("status") or {}).get("conditions") or []}
            avail_ok = "True" if avail >= want else "False"
            conds = [old_conds.get("Available") if old_conds.get("Available", {}).get("status") == avail_ok else
                     _cond("Available", avail_ok, "MinimumReplicasAvailable" if avail_ok == "True"
                           else "MinimumReplicasUnavailable",
                           "Deployment has minimum availability." if avail_ok == "True"
                           else "Deployment does not have minimum availability.", self.now_text()),
                     old_conds.get("Progressing") or _cond("Progressing", "True", "NewReplicaSetAvailable",
                                                           'ReplicaSet "%s" has successfully progressed.' % rs_name,
                                                           self.now_text())]
            status["conditions"] = conds
            for k in [k for k, v in status.items() if v == 0 and k != "replicas"]:
                status.pop(k)
            self._set_status("apps", "deployments", d, status)

    def replicasets(self, now):
        for rs in self.st.list("apps", "replicasets"):
            pods = self._pods_of(rs)
            want = rs["spec"].get("replicas", 1)
            alive = [p for p in pods if p["status"].get("phase") not in ("Succeeded", "Failed")]
            for p in pods:
                if p["status"].get("phase") in ("Succeeded", "Failed"):
                    self.kc.delete_object("", "pods", p["metadata"]["namespace"], p["metadata"]["name"])
            if len(alive) < want:
                for _ in range(want - len(alive)):
                    self.make_pod(rs, "apps/v1", "ReplicaSet", rs["spec"].get("template"),
                                  "%s-%s" % (rs["metadata"]["name"], suffix()), now,
                                  workload=_guess_workload(rs["spec"].get("template")))
            elif len(alive) > want:
                for p in sorted(alive, key=lambda p: p["metadata"]["creationTimestamp"], reverse=True)[:len(alive) - want]:
                    self.kc.delete_object("", "pods", p["metadata"]["namespace"], p["metadata"]["name"])
            pods = self._pods_of(rs)
            ready = len([p for p in pods if _ready(p)])
            status = {"replicas": len(pods), "fullyLabeledReplicas": len(pods), "readyReplicas": ready,
                      "availableReplicas": ready, "observedGeneration": rs["metadata"].get("generation", 1)}
            self._set_status("apps", "replicasets", rs, {k: v for k, v in status.items() if v or k == "replicas"})

    def statefulsets(self, now):
        for s in self.st.list("apps", "statefulsets"):
            pods = {p["metadata"]["name"]: p for p in self._pods_of(s)}
            want = s["spec"].get("replicas", 1)
            for i in range(want):
                name = "%s-%d" % (s["metadata"]["name"], i)
                if name not in pods:
                    if i > 0 and s["spec"].get("podManagementPolicy") != "Parallel" and not _ready(
                            pods.get("%s-%d" % (s["metadata"]["name"], i - 1), {"status": {}})):
                        break
                    self.make_pod(s, "apps/v1", "StatefulSet", s["spec"].get("template"), name, now,
                                  workload=_guess_workload(s["spec"].get("template")),
                                  extra_labels={"statefulset.kubernetes.io/pod-name": name,
                                                "apps.kubernetes.io/pod-index": str(i)})
                    break
            for name, p in pods.items():
                idx = name.rsplit("-", 1)[-1]
                if idx.isdigit() and int(idx) >= want:
                    self.kc.delete_object("", "pods", p["metadata"]["namespace"], name)
            pods = self._pods_of(s)
            ready = len([p for p in pods if _ready(p)])
            self._set_status("apps", "statefulsets", s, {
                "replicas": len(pods), "readyReplicas": ready, "currentReplicas": len(pods),
                "updatedReplicas": len(pods), "availableReplicas": ready,
                "observedGeneration": s["metadata"].get("generation", 1)})

    def daemonsets(self, now):
        nodes = [n for n in self.st.list("", "nodes") if _node_ready(n)]
        for ds in self.st.list("apps", "daemonsets"):
            pods = self._pods_of(ds)
            by_node = {(p.get("spec") or {}).get("nodeName"): p for p in pods}
            pspec = (ds["spec"].get("template") or {}).get("spec") or {}
            sel = pspec.get("nodeSelector") or {}
            terms = ((((pspec.get("affinity") or {}).get("nodeAffinity") or {})
                      .get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms") or [])
            targets = [n for n in nodes if all(n["metadata"].get("labels", {}).get(k) == v for k, v in sel.items())
                       and (not terms or any(selector_matches({"matchExpressions": t.get("matchExpressions")},
                                                              n["metadata"].get("labels") or {}) for t in terms))]
            for n in targets:
                if n["metadata"]["name"] not in by_node:
                    tmpl = copy.deepcopy(ds["spec"].get("template") or {})
                    tmpl.setdefault("spec", {})["nodeName"] = n["metadata"]["name"]
                    tmpl["spec"].setdefault("tolerations", []).append({"operator": "Exists"})
                    # bound by the DaemonSet controller: the kubelet starts it from now
                    self.make_pod(ds, "apps/v1", "DaemonSet", tmpl, "%s-%s" % (ds["metadata"]["name"], suffix()), now,
                                  extra_ann={"sandbox.slipway.dev/bound-at": str(now)})
            names = {n["metadata"]["name"] for n in targets}
            for node_name, p in by_node.items():
                if node_name not in names:
                    self.kc.delete_object("", "pods", p["metadata"]["namespace"], p["metadata"]["name"])
            ready = len([p for p in self._pods_of(ds) if _ready(p)])
            self._set_status("apps", "daemonsets", ds, {
                "currentNumberScheduled": len(targets), "desiredNumberScheduled": len(targets),
                "numberReady": ready, "numberAvailable": ready, "updatedNumberScheduled": len(targets),
                "numberMisscheduled": 0, "observedGeneration": ds["metadata"].get("generation", 1)})

    # --- batch -------------------------------------------------------------------------
    def jobs(self, now):
        for j in self.st.list("batch", "jobs"):
            spec = j["spec"]
            st = copy.deepcopy(j.get("status") or {})
            if any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in st.get("conditions") or []):
                continue
            if spec.get("suspend"):
                self._stop_pods(j)
                continue
            pods = self._pods_of(j)
            succeeded = len([p for p in pods if p["status"].get("phase") == "Succeeded"])
            failed = len([p for p in pods if p["status"].get("phase") == "Failed"])
            active = [p for p in pods if p["status"].get("phase") in ("Pending", "Running")]
            completions = spec.get("completions", 1)
            st.setdefault("startTime", self.now_text())
            if succeeded >= completions:
                st["completionTime"] = self.now_text()
                st["conditions"] = [_cond("SuccessCriteriaMet", "True", "CompletionsReached",
                                          "Reached expected number of succeeded pods", self.now_text()),
                                    _cond("Complete", "True", "CompletionsReached",
                                          "Reached expected number of succeeded pods", self.now_text())]
                self.event(j, "Completed", "Job completed", component="job-controller")
            elif failed > spec.get("backoffLimit", 6):
                st["conditions"] = [_cond("Failed", "True", "BackoffLimitExceeded",
                                          "Job has reached the specified backoff limit", self.now_text())]
            else:
                need = min(spec.get("parallelism", 1), completions - succeeded) - len(active)
                for _ in range(max(0, need)):
                    self.make_pod(j, "batch/v1", "Job", spec.get("template"),
                                  "%s-%s" % (j["metadata"]["name"], suffix()), now, workload="training",
                                  extra_labels={"batch.kubernetes.io/job-name": j["metadata"]["name"],
                                                "job-name": j["metadata"]["name"]})
            st["active"] = len(active)
            st["succeeded"] = succeeded
            st["failed"] = failed
            st["ready"] = len([p for p in active if _ready(p)])
            st["terminating"] = 0
            st = {k: v for k, v in st.items() if v not in (0,) or k in ("ready", "terminating")}
            self._set_status("batch", "jobs", j, st)

    def hyperpod_jobs(self, now):
        if self.kc.registry().find("sagemaker.amazonaws.com", "v1", "hyperpodpytorchjobs") is None:
            return
        for job in self.st.list("sagemaker.amazonaws.com", "hyperpodpytorchjobs"):
            spec = job.get("spec") or {}
            st = copy.deepcopy(job.get("status") or {})
            conds = st.get("conditions") or []
            types = {c["type"]: c for c in conds}
            if types.get("Completed", {}).get("status") == "True" or types.get("Failed", {}).get("status") == "True":
                continue
            if (spec.get("runPolicy") or {}).get("suspend"):
                self._stop_pods(job)
                continue
            pods = self._pods_of(job)
            want = self._elastic_target(job, st)
            names = {p["metadata"]["name"] for p in pods}
            world = sum(want.get(r.get("name", "pods"), max(1, int(r.get("replicas") or 1)))
                        for r in spec.get("replicaSpecs") or [])
            rank = 0
            for rsp in spec.get("replicaSpecs") or []:
                for i in range(want.get(rsp.get("name", "pods"), max(1, int(rsp.get("replicas") or 1)))):
                    name = "%s-%s-%d" % (job["metadata"]["name"], rsp.get("name", "pods"), i)
                    if name not in names:
                        self.make_pod(job, job["apiVersion"], "HyperPodPyTorchJob", rsp.get("template"), name, now,
                                      workload="training",
                                      extra_ann={"sandbox.slipway.dev/world-size": str(world),
                                                 "sandbox.slipway.dev/rank": str(rank)},
                                      extra_labels={"sagemaker.amazonaws.com/job-name": job["metadata"]["name"],
                                                    "sagemaker.amazonaws.com/replica-type": rsp.get("name", "pods"),
                                                    "sagemaker.amazonaws.com/replica-index": str(i)})
                    rank += 1
            pods = self._pods_of(job)
            phases = [p["status"].get("phase") for p in pods]
            nt = self.now_text()
            if "Created" not in types:
                conds.append(_cond("Created", "True", "JobCreated", "HyperPodPyTorchJob %s is created." %
                                   job["metadata"]["name"], nt))
                st["startTime"] = nt
            if pods and all(p == "Running" for p in phases) and "Running" not in types:
                conds.append(_cond("Running", "True", "JobRunning", "All pods are running.", nt))
            if pods and len(pods) >= world and all(p == "Succeeded" for p in phases):
                for c in conds:
                    if c["type"] == "Running":
                        c["status"] = "False"
                conds.append(_cond("Completed", "True", "JobCompleted", "HyperPodPyTorchJob completed.", nt))
                st["completionTime"] = nt
            if any(p == "Failed" for p in phases):
                conds.append(_cond("Failed", "True", "PodFailed", "A pod of the job failed.", nt))
            st["conditions"] = conds
            st["restartCount"] = st.get("restartCount", 0)
            # The operator's status lists its pods as ObjectReferences
            # (the upstream schema has no other fields there).
            st["jobPods"] = [{"apiVersion": "v1", "kind": "Pod", "name": p["metadata"]["name"],
                              "namespace": p["metadata"].get("namespace", "default"),
                              "uid": p["metadata"].get("uid", "")} for p in pods]
            if pods:
                st["masterAddr"] = "%s-%s-0" % (job["metadata"]["name"], (spec.get("replicaSpecs") or [{}])[0].get("name", "pods"))
                st["masterPort"] = "23456"
            self._set_status("sagemaker.amazonaws.com", "hyperpodpytorchjobs", job, st)

    def _elastic_target(self, job, st):
        """An elastic job under Kueue runs as many replicas as its Workload's admission holds:
        pods past that are stopped (highest index first), missing ones made.  Records
        status.elasticWorkloadRef and elasticScalingStatus; {replica spec: replicas}."""
        from . import kueue
        el = kueue.elastic_policy(job)
        if el is None:
            return {}
        wl = next((w for w in self.st.list(kueue.GROUP, "workloads", job["metadata"].get("namespace"))
                   if (w["metadata"].get("labels") or {}).get(kueue.JOB_UID_LABEL) == job["metadata"]["uid"]),
                  None)
        psa = ((((wl or {}).get("status") or {}).get("admission") or {}).get("podSetAssignments") or [None])[0]
        rsp = job["spec"]["replicaSpecs"][0]
        name = rsp.get("name", "pods")
        target = int(psa["count"]) if psa else max(1, int(rsp.get("replicas") or 1))
        if wl is not None:
            st["elasticWorkloadRef"] = {"name": wl["metadata"]["name"], "namespace": wl["metadata"]["namespace"]}
        es = st.setdefault("elasticScalingStatus", {})
        before = (es.get("targetReplicas") or {}).get(name)
        nt = self.now_text()
        if before != target:
            if before is not None:
                self.event(job, "ElasticScaling", "Scaling replica spec %s from %d to %d replicas" % (
                    name, before, target), component="hyperpod-training-operator")
                es["lastScalingTime"] = nt
            es["targetReplicas"] = {name: target}
            es["lastUpdated"] = nt
        for p in self._pods_of(job):
            lab = p["metadata"].get("labels") or {}
            if lab.get("sagemaker.amazonaws.com/replica-type") == name and \
                    int(lab.get("sagemaker.amazonaws.com/replica-index", "0")) >= target:
                self.kc.delete_object("", "pods", p["metadata"].get("namespace"), p["metadata"]["name"])
        es["podsScaled"] = len(self._pods_of(job)) == target
        return {name: target}

    def ray(self, now):
        reg = self.kc.registry()
        rc_type = reg.by_kind("ray.io", "RayCluster")
        if reg.by_kind("ray.io", "RayJob") is not None and rc_type is not None:
            for job in self.st.list("ray.io", "rayjobs"):
                spec = job.get("spec") or {}
                st = copy.deepcopy(job.get("status") or {})
                if st.get("jobDeploymentStatus") in ("Complete", "Failed"):
                    continue
                ns = job["metadata"]["namespace"]
                clusters = [c for c in self.st.list("ray.io", "rayclusters", ns) if owned_by(c, job["metadata"]["uid"])]
                if spec.get("suspend"):
                    # KubeRay: a suspended RayJob has no RayCluster and no submitter.
                    for c in clusters:
                        self.kc.delete_object("ray.io", "rayclusters", ns, c["metadata"]["name"])
                    self._stop_pods(job)
                    st["jobDeploymentStatus"] = "Suspended"
                    for k in ("jobStatus", "rayClusterName", "dashboardURL", "startTime"):
                        st.pop(k, None)
                    self._set_status("ray.io", "rayjobs", job, st)
                    continue
                if not clusters and spec.get("rayClusterSpec"):
                    rc = {"apiVersion": "ray.io/%s" % rc_type.version, "kind": "RayCluster",
                          "metadata": {"name": "%s-raycluster-%s" % (job["metadata"]["name"], suffix()),
                                       "namespace": ns, "labels": {"ray.io/originated-from-crd": "RayJob"},
                                       "ownerReferences": [owner_ref(job, job["apiVersion"], "RayJob")]},
                          "spec": copy.deepcopy(spec["rayClusterSpec"])}
                    created = self.kc.create_object("ray.io", "rayclusters", rc, manager="ray-operator")
                    st.update({"jobDeploymentStatus": "Initializing", "jobStatus": "PENDING",
                               "rayClusterName": created["metadata"]["name"],
                               "jobId": "%s-%s" % (job["metadata"]["name"], suffix()),
                               "startTime": self.now_text()})
                    self._set_status("ray.io", "rayjobs", job, st)
                    continue
                rc = clusters[0] if clusters else None
                if rc and (rc.get("status") or {}).get("state") == "ready":
                    subs = self._pods_of(job)
                    if not subs:
                        tmpl = {"metadata": {"labels": {"ray.io/originated-from-crd": "RayJob"}},
                                "spec": {"restartPolicy": "Never", "containers": [{
                                    "name": "ray-job-submitter", "image": "rayproject/ray:2.52.0",
                                    "command": ["ray", "job", "submit", "--", spec.get("entrypoint", "python")],
                                    "env": [{"name": "MAX_STEPS", "value": "200"}, {"name": "STEP_SECONDS", "value": "3"}]}]}}
                        self.make_pod(job, job["apiVersion"], "RayJob", tmpl, "%s-%s" % (job["metadata"]["name"], suffix()),
                                      now, workload="training")
                        st.update({"jobDeploymentStatus": "Running", "jobStatus": "RUNNING",
                                   "dashboardURL": "%s-head-svc.%s.svc.cluster.local:8265" % (rc["metadata"]["name"], ns)})
                    elif all(p["status"].get("phase") == "Succeeded" for p in subs):
                        st.update({"jobDeploymentStatus": "Complete", "jobStatus": "SUCCEEDED",
                                   "endTime": self.now_text(), "message": "Job finished successfully."})
                        if spec.get("shutdownAfterJobFinishes"):
                            self.kc.delete_object("ray.io", "rayclusters", ns, rc["metadata"]["name"])
                    elif any(p["status"].get("phase") == "Failed" for p in subs):
                        st.update({"jobDeploymentStatus": "Failed", "jobStatus": "FAILED", "endTime": self.now_text()})
                    self._set_status("ray.io", "rayjobs", job, st)
        if rc_type is not None:
            for rc in self.st.list("ray.io", "rayclusters"):
                spec = rc.get("spec") or {}
                pods = self._pods_of(rc)
                names = {p["metadata"].get("labels", {}).get("ray.io/group", "") + "/" +
                         p["metadata"].get("labels", {}).get("sandbox.slipway.dev/index", "") for p in pods}
                cname = rc["metadata"]["name"]
                if "headgroup/0" not in names:
                    self.make_pod(rc, rc["apiVersion"], "RayCluster", (spec.get("headGroupSpec") or {}).get("template"),
                                  "%s-head-%s" % (cname, suffix()), now, workload="generic",
                                  extra_labels={"ray.io/cluster": cname, "ray.io/node-type": "head",
                                                "ray.io/group": "headgroup", "sandbox.slipway.dev/index": "0"})
                for wg in spec.get("workerGroupSpecs") or []:
                    g = wg.get("groupName", "workers")
                    for i in range(int(wg.get("replicas", wg.get("minReplicas", 0)) or 0)):
                        if "%s/%d" % (g, i) not in names:
                            self.make_pod(rc, rc["apiVersion"], "RayCluster", wg.get("template"),
                                          "%s-%s-worker-%s" % (cname, g, suffix()), now, workload="generic",
                                          extra_labels={"ray.io/cluster": cname, "ray.io/node-type": "worker",
                                                        "ray.io/group": g, "sandbox.slipway.dev/index": str(i)})
                pods = self._pods_of(rc)
                ready = pods and all(_ready(p) for p in pods)
                st = {"state": "ready" if ready else "unhealthy" if False else "",
                      "availableWorkerReplicas": len([p for p in pods if p["metadata"]["labels"].get("ray.io/node-type") == "worker" and _ready(p)]),
                      "desiredWorkerReplicas": sum(int(w.get("replicas", 0) or 0) for w in spec.get("workerGroupSpecs") or []),
                      "readyWorkerReplicas": len([p for p in pods if p["metadata"]["labels"].get("ray.io/node-type") == "worker" and _ready(p)])}
                if not st["state"]:
                    st.pop("state")
                self._set_status("ray.io", "rayclusters", rc, st)

    def inference(self, now):
        """The HyperPod inference operator (inference.py)."""
        inference.reconcile(self, now)

    # --- device plugins ----------------------------------------------------------------
    def device_plugins(self, now):
        """What the kubelet's device manager does: a resource is in a node's capacity and
        allocatable only while a plugin that can register it is Running there."""
        from ..services import catalog
        registered = {}
        for p in self.st.list("", "pods"):
            node = (p.get("spec") or {}).get("nodeName")
            if not node or p["status"].get("phase") != "Running" or p["metadata"].get("deletionTimestamp"):
                continue
            for res in _plugin_resources(p):
                registered.setdefault(node, set()).add(res)
        for n in self.st.list("", "nodes"):
            labels = n["metadata"].get("labels") or {}
            if labels.get("sagemaker.amazonaws.com/compute-type") != "hyperpod":
                continue
            spec = catalog.spec(labels.get("node.kubernetes.io/instance-type", "")) or {}
            st = n.get("status") or {}
            cap, alloc = dict(st.get("capacity") or {}), dict(st.get("allocatable") or {})
            for res, (_, field) in PLUGIN_RESOURCES.items():
                count = spec.get(field) or 0
                if count and res in registered.get(n["metadata"]["name"], ()):
                    cap[res] = alloc[res] = str(count)
                else:
                    cap.pop(res, None)
                    alloc.pop(res, None)
            if cap != st.get("capacity") or alloc != st.get("allocatable"):
                n = copy.deepcopy(n)
                n["status"]["capacity"], n["status"]["allocatable"] = cap, alloc
                self.st.update("", "nodes", n)

    # --- load balancers -----------------------------------------------------------------
    def load_balancers(self, now):
        """What the AWS Load Balancer Controller does for a Service of type LoadBalancer that
        it owns (NLB annotations, or loadBalancerClass service.k8s.aws/nlb): an NLB whose DNS
        name goes in status.loadBalancer.  No running controller: the address stays pending."""
        running = any(_is_lb_controller(d) and ((d.get("status") or {}).get("availableReplicas") or 0) >= 1
                      for d in self.st.list("apps", "deployments"))
        region = self.kc.world.region
        for svc in self.st.list("", "services"):
            spec = svc.get("spec") or {}
            if spec.get("type") != "LoadBalancer":
                continue
            md = svc["metadata"]
            ann = md.get("annotations") or {}
            owned = (spec.get("loadBalancerClass") == "service.k8s.aws/nlb" or
                     ann.get("service.beta.kubernetes.io/aws-load-balancer-type") == "external" and
                     ann.get("service.beta.kubernetes.io/aws-load-balancer-nlb-target-type") in ("ip", "instance"))
            st = svc.get("status") or {}
            want = {}
            if owned and not running and (st.get("loadBalancer") or {}).get("ingress"):
                continue  # an NLB already made outlives its controller
            if running and owned:
                h = hashlib.sha256(("%s/%s/%s" % (self.kc.name, md["namespace"], md["uid"])).encode()).hexdigest()
                host = "k8s-%s-%s-%s-%s.elb.%s.amazonaws.com" % (
                    md["namespace"][:8].rstrip("-"), md["name"][:8].rstrip("-"), h[:10], h[10:26], region)
                want = {"ingress": [{"hostname": host}]}
            if (st.get("loadBalancer") or {}) != want:
                svc = copy.deepcopy(svc)
                svc.setdefault("status", {})["loadBalancer"] = want
                self.st.update("", "services", svc)
                if want:
                    self.event(svc, "SuccessfullyReconciled", "Successfully reconciled", component="service")

    # --- scheduler and kubelet ---------------------------------------------------------
    def schedule(self, now):
        nodes = self.st.list("", "nodes")
        pending = [p for p in self.st.list("", "pods")
                   if not (p.get("spec") or {}).get("nodeName") and p["status"].get("phase") == "Pending"
                   and not p["metadata"].get("deletionTimestamp") and not self._gated(p)]
        if not pending:
            return
        used = {}
        for p in self.st.list("", "pods"):
            n = (p.get("spec") or {}).get("nodeName")
            if n and p["status"].get("phase") in ("Pending", "Running"):
                u = used.setdefault(n, {})
                for k, v in pod_requests(p).items():
                    u[k] = u.get(k, 0.0) + v
        for pod in sorted(pending, key=lambda p: p["metadata"]["creationTimestamp"]):
            if (pod.get("spec") or {}).get("schedulingGates"):
                # kube-scheduler leaves a gated pod alone and says so.
                conds = pod["status"].get("conditions") or []
                if not conds or conds[0].get("reason") != "SchedulingGated":
                    pod["status"]["conditions"] = [_cond("PodScheduled", "False", "SchedulingGated",
                                                         "Scheduling is blocked due to non-empty scheduling gates",
                                                         self.now_text())]
                    self.st.update("", "pods", pod)
                continue
            req = pod_requests(pod)
            reasons = {}
            chosen = None
            for n in sorted(nodes, key=lambda n: n["metadata"]["name"]):
                why = self._unfit(pod, n, req, used.get(n["metadata"]["name"], {}))
                if why:
                    reasons[why] = reasons.get(why, 0) + 1
                    continue
                chosen = n
                break
            if chosen is None:
                msg = "0/%d nodes are available: %s. preemption: 0/%d nodes are available: %d Preemption is " \
                      "not helpful for scheduling." % (len(nodes), ", ".join(
                          "%d %s" % (c, r) for r, c in sorted(reasons.items())) or "no nodes available to schedule pods",
                          len(nodes), len(nodes))
                conds = pod["status"].get("conditions") or []
                if not conds or conds[0].get("message") != msg:
                    pod["status"]["conditions"] = [_cond("PodScheduled", "False", "Unschedulable", msg, self.now_text())]
                    self.st.update("", "pods", pod)
                    self.event(pod, "FailedScheduling", msg, "Warning")
                continue
            name = chosen["metadata"]["name"]
            u = used.setdefault(name, {})
            for k, v in req.items():
                u[k] = u.get(k, 0.0) + v
            pod["spec"]["nodeName"] = name
            pod["status"]["conditions"] = [_cond("PodScheduled", "True", "", "", self.now_text())]
            pod["metadata"].setdefault("annotations", {})["sandbox.slipway.dev/bound-at"] = str(now)
            self.st.update("", "pods", pod)
            self.event(pod, "Scheduled", "Successfully assigned %s/%s to %s" % (
                pod["metadata"]["namespace"], pod["metadata"]["name"], name))

    def _gated(self, pod):
        """A pod with scheduling gates waits unscheduled (reason SchedulingGated) until they are removed."""
        gates = (pod.get("spec") or {}).get("schedulingGates")
        if not gates:
            return False
        conds = pod["status"].get("conditions") or []
        if not conds or conds[0].get("reason") != "SchedulingGated":
            pod["status"]["conditions"] = [_cond("PodScheduled", "False", "SchedulingGated",
                                                 "Scheduling is blocked due to non-empty scheduling gates",
                                                 self.now_text())]
            self.st.update("", "pods", pod)
        return True

    def _unfit(self, pod, node, req, used):
        spec = pod.get("spec") or {}
        labels = node["metadata"].get("labels") or {}
        if not _node_ready(node):
            return "node(s) had untolerated taint {node.kubernetes.io/not-ready: }"
        if (node.get("spec") or {}).get("unschedulable"):
            return "node(s) were unschedulable"
        for k, v in (spec.get("nodeSelector") or {}).items():
            if labels.get(k) != v:
                return "node(s) didn't match Pod's node affinity/selector"
        aff = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
               .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
        terms = aff.get("nodeSelectorTerms") or []
        if terms and not any(selector_matches({"matchExpressions": t.get("matchExpressions")}, labels) for t in terms):
            return "node(s) didn't match Pod's node affinity/selector"
        tols = spec.get("tolerations") or []
        for taint in (node.get("spec") or {}).get("taints") or []:
            if taint.get("effect") not in ("NoSchedule", "NoExecute"):
                continue
            if not any(_tolerates(t, taint) for t in tols):
                return "node(s) had untolerated taint {%s: %s}" % (taint.get("key"), taint.get("value", ""))
        alloc = (node.get("status") or {}).get("allocatable") or {}
        for res, amount in req.items():
            if res in ("cpu", "memory", GPU, NEURON, EFA, "pods") or "/" in res:
                cap = parse_qty(alloc.get(res, 0))
                if used.get(res, 0.0) + amount > cap + 1e-9:
                    return "Insufficient %s" % res
        return None

    def kubelet(self, now):
        clock = self.kc.world.clock
        node_names = {n["metadata"]["name"]: n for n in self.st.list("", "nodes")}
        for pod in self.st.list("", "pods"):
            spec = pod.get("spec") or {}
            st = pod["status"]
            node = spec.get("nodeName")
            md = pod["metadata"]
            if md.get("deletionTimestamp"):
                self._terminate(pod, now, node in node_names)
                continue
            if node and node not in node_names:
                if st.get("phase") in ("Pending", "Running"):
                    if any(r.get("kind") in ("ReplicaSet", "StatefulSet", "DaemonSet") for r in md.get("ownerReferences") or []):
                        self.kc.delete_object("", "pods", md["namespace"], md["name"])
                    else:
                        st["phase"] = "Failed"
                        st["reason"] = "NodeLost"
                        st["message"] = "Node %s which was running pod %s is unresponsive" % (node, md["name"])
                        self.st.update("", "pods", pod)
                continue
            if not node:
                continue
            bound = float((md.get("annotations") or {}).get("sandbox.slipway.dev/bound-at", now))
            nd = node_names[node]
            if st.get("phase") == "Pending":
                if now >= clock.due(START_DELAY, bound) and self._pull_failed(pod, now):
                    continue
                if now >= clock.due(START_DELAY, bound) and self._start_failed(pod, nd, clock.due(START_DELAY, bound)):
                    continue
                if now >= clock.due(START_DELAY, bound):
                    started = clock.due(START_DELAY, bound)
                    st["phase"] = "Running"
                    st["startTime"] = now_rfc3339(started)
                    st["hostIP"] = _node_ip(nd)
                    st["hostIPs"] = [{"ip": st["hostIP"]}]
                    st["podIP"] = self.kc.allocate_pod_ip(md["uid"])
                    st["podIPs"] = [{"ip": st["podIP"]}]
                    st["containerStatuses"] = [{"name": c["name"], "image": c.get("image"),
                                                "imageID": "%s@sha256:%s" % (c.get("image"), hashlib.sha256(
                                                    str(c.get("image")).encode()).hexdigest()),
                                                "containerID": "containerd://" + hashlib.sha256(
                                                    (md["uid"] + c["name"]).encode()).hexdigest(),
                                                "ready": True, "started": True, "restartCount": 0,
                                                "state": {"running": {"startedAt": st["startTime"]}}}
                                               for c in spec.get("containers") or []]
                    nt = self.now_text()
                    st["conditions"] = [_cond(t, "True", "", "", nt) for t in
                                        ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                                         "PodScheduled")]
                    md.setdefault("annotations", {})["sandbox.slipway.dev/started-at"] = str(started)
                    self.st.update("", "pods", pod)
                    self.event(pod, "Pulled", "Container image \"%s\" already present on machine" % (
                        (spec.get("containers") or [{}])[0].get("image")), component="kubelet")
                    self.event(pod, "Started", "Started container %s" % (spec.get("containers") or [{}])[0].get("name"),
                               component="kubelet")
            elif st.get("phase") == "Running":
                if (md.get("annotations") or {}).get(START_FAILED):
                    self._crash_loop(pod, now)
                    continue
                dur = logs.duration(pod)
                started = float((md.get("annotations") or {}).get("sandbox.slipway.dev/started-at", now))
                if trainer.write_due(self.kc, pod, now if dur is None else min(now, clock.due(dur, started))):
                    self.st.update("", "pods", pod)
                if dur is not None and now >= clock.due(dur, started) and spec.get("restartPolicy") != "Always":
                    end = now_rfc3339(clock.due(dur, started))
                    st["phase"] = "Succeeded"
                    for cs in st.get("containerStatuses") or []:
                        cs["ready"] = False
                        cs["started"] = False
                        cs["state"] = {"terminated": {"exitCode": 0, "reason": "Completed",
                                                      "startedAt": st.get("startTime"), "finishedAt": end}}
                    for c in st.get("conditions") or []:
                        if c["type"] in ("Ready", "ContainersReady"):
                            c["status"] = "False"
                            c["reason"] = "PodCompleted"
                    self.st.update("", "pods", pod)
                elif not _node_ready(nd) and _ready(pod):
                    for c in st.get("conditions") or []:
                        if c["type"] in ("Ready",):
                            c["status"] = "False"
                    self.st.update("", "pods", pod)

    def _terminate(self, pod, now, node_up):
        """A pod being deleted gracefully: its containers get SIGTERM and
        stop (TERMINATE_SECONDS, at most the grace period); then the
        kubelet deletes it for good (grace 0), finalizers permitting.  A
        pod whose node is gone is removed by the pod GC."""
        md = pod["metadata"]
        grace = int(md.get("deletionGracePeriodSeconds") or 0)
        asked = float((md.get("annotations") or {}).get(lifecycle.DELETE_REQUESTED, now))
        if node_up and grace and now < self.kc.world.clock.due(min(grace, TERMINATE_SECONDS), asked):
            return
        if md.get("finalizers"):
            if grace:
                md["deletionGracePeriodSeconds"] = 0
                self.st.update("", "pods", pod)
            return
        self.st.delete("", "pods", md.get("namespace"), md["name"])

    def _pull_failed(self, pod, now):
        """The image pull: a tag a catalogued repository never published
        (images.pull_problem) leaves the pod Pending with the container
        waiting in ErrImagePull, then, after the first back-off, in
        ImagePullBackOff, with the kubelet's events (Pulling, Failed,
        BackOff).  Answers True while the pull fails."""
        spec = pod.get("spec") or {}
        md = pod["metadata"]
        conts = (spec.get("initContainers") or []) + (spec.get("containers") or [])
        bad = [(c, images.pull_problem(c.get("image"))) for c in conts]
        bad = [(c, p) for c, p in bad if p]
        if not bad:
            return False
        ann = md.setdefault("annotations", {})
        first = ann.get(PULL_FAILED)
        clock = self.kc.world.clock
        if first is None:
            phase, reason = "first", "ErrImagePull"
        elif now >= clock.due(PULL_BACKOFF, float(first)) and ann.get(PULL_STATE) != "ImagePullBackOff":
            phase, reason = "backoff", "ImagePullBackOff"
        else:
            return True
        waiting = {}
        for c, problem in bad:
            img = c.get("image")
            if phase == "first":
                self.event(pod, "Pulling", 'Pulling image "%s"' % img, component="kubelet")
                self.event(pod, "Failed", 'Failed to pull image "%s": %s' % (img, problem), etype="Warning",
                           component="kubelet")
                self.event(pod, "Failed", "Error: ErrImagePull", etype="Warning", component="kubelet")
                waiting[c["name"]] = {"reason": "ErrImagePull", "message": problem}
            else:
                self.event(pod, "BackOff", 'Back-off pulling image "%s"' % img, component="kubelet")
                self.event(pod, "Failed", "Error: ImagePullBackOff", etype="Warning", component="kubelet")
                waiting[c["name"]] = {"reason": "ImagePullBackOff",
                                      "message": 'Back-off pulling image "%s": ErrImagePull: %s' % (img, problem)}
        st = pod["status"]
        nt = self.now_text()
        statuses = [{"name": c["name"], "image": c.get("image"), "imageID": "", "ready": False, "started": False,
                     "restartCount": 0, "state": {"waiting": waiting.get(c["name"], {"reason": "PodInitializing"})},
                     "lastState": {}} for c in spec.get("containers") or []]
        names = ",".join(c["name"] for c in spec.get("containers") or [])
        st["containerStatuses"] = statuses
        st["conditions"] = [_cond("PodReadyToStartContainers", "True", "", "", nt),
                            _cond("Initialized", "True", "", "", nt),
                            _cond("Ready", "False", "ContainersNotReady",
                                  "containers with unready status: [%s]" % names, nt),
                            _cond("ContainersReady", "False", "ContainersNotReady",
                                  "containers with unready status: [%s]" % names, nt),
                            _cond("PodScheduled", "True", "", "", nt)]
        if phase == "first":
            ann[PULL_FAILED] = str(now)
        ann[PULL_STATE] = reason
        self.st.update("", "pods", pod)
        return True

    def _start_failed(self, pod, node, when):
        """The container start hook: when a container's command is not in
        its image (images.check), fail the pod the way the kubelet does
        (StartError, then CrashLoopBackOff or Failed for restartPolicy
        Never) and answer True; otherwise False and the pod starts."""
        spec = pod.get("spec") or {}
        md = pod["metadata"]
        st = pod["status"]
        bad = [(c, images.check(c)) for c in spec.get("containers") or []]
        if not any(p for _, p in bad):
            return False
        policy = spec.get("restartPolicy") or "Always"
        at = now_rfc3339(when)
        statuses = []
        for c, problem in bad:
            if problem is None:
                statuses.append({"name": c["name"], "image": c.get("image"), "ready": False, "started": True,
                                 "restartCount": 0, "state": {"running": {"startedAt": at}}})
                continue
            statuses.append(images.failure_status(c, problem, at, at, policy, 0 if policy == "Never" else 1))
            self.event(pod, "Failed", "Error: %s" % problem["message"], etype="Warning", component="kubelet")
            if policy != "Never":
                self.event(pod, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)" % (
                    c["name"], md["name"], md.get("namespace", "default"), md.get("uid", "")),
                    etype="Warning", component="kubelet")
        for cs in statuses:
            cs["imageID"] = "%s@sha256:%s" % (cs["image"], hashlib.sha256(str(cs["image"]).encode()).hexdigest())
            cs["containerID"] = "containerd://" + hashlib.sha256((md["uid"] + cs["name"]).encode()).hexdigest()
        st["phase"] = "Failed" if policy == "Never" else "Running"
        st["startTime"] = at
        st["hostIP"] = _node_ip(node)
        st["hostIPs"] = [{"ip": st["hostIP"]}]
        st["podIP"] = self.kc.allocate_pod_ip(md["uid"])
        st["podIPs"] = [{"ip": st["podIP"]}]
        st["containerStatuses"] = statuses
        nt = self.now_text()
        names = ",".join(cs["name"] for cs in statuses if not cs.get("state", {}).get("running"))
        st["conditions"] = [_cond("PodReadyToStartContainers", "True", "", "", nt), _cond("Initialized", "True", "", "", nt),
                            _cond("Ready", "False", "PodFailed" if policy == "Never" else "ContainersNotReady",
                                  "" if policy == "Never" else "containers with unready status: [%s]" % names, nt),
                            _cond("ContainersReady", "False", "PodFailed" if policy == "Never" else
                                  "ContainersNotReady", "" if policy == "Never" else
                                  "containers with unready status: [%s]" % names, nt),
                            _cond("PodScheduled", "True", "", "", nt)]
        md.setdefault("annotations", {})[START_FAILED] = str(when)
        self.st.update("", "pods", pod)
        return True

    def _crash_loop(self, pod, now):
        """A container the start hook failed is retried by the kubelet
        after 10 s, 20 s, 40 s ... (at most 300 s) and fails again each
        time: restartCount follows the back-off."""
        try:
            failed = float(pod["metadata"]["annotations"][START_FAILED])
        except (KeyError, ValueError):
            return
        elapsed = max(0.0, (now - failed) * self.kc.world.clock.speed)
        delay, restarts = 10.0, 1
        while elapsed >= delay and delay < 300.0:
            elapsed -= delay
            delay = min(300.0, delay * 2)
            restarts += 1
        if delay >= 300.0:
            restarts += int(elapsed // 300.0)
        changed = False
        for cs in pod["status"].get("containerStatuses") or []:
            if "waiting" in cs.get("state", {}) and cs.get("restartCount", 0) < restarts:
                cs["restartCount"] = restarts
                changed = True
        if changed:
            self.st.update("", "pods", pod)

    # --- storage ------------------------------------------------------------------------
    def volumes(self, now):
        pvs = self.st.list("", "persistentvolumes")
        for pvc in self.st.list("", "persistentvolumeclaims"):
            if pvc["status"].get("phase") == "Bound":
                continue
            spec = pvc.get("spec") or {}
            want = parse_qty(((spec.get("resources") or {}).get("requests") or {}).get("storage", "0"))
            modes = set(spec.get("accessModes") or [])
            sc = spec.get("storageClassName")
            chosen = None
            if spec.get("volumeName"):
                chosen = next((pv for pv in pvs if pv["metadata"]["name"] == spec["volumeName"]), None)
            else:
                for pv in sorted(pvs, key=lambda v: parse_qty((v["spec"].get("capacity") or {}).get("storage", "0"))):
                    ps = pv["spec"]
                    if pv["status"].get("phase") != "Available":
                        continue
                    if (ps.get("storageClassName") or "") != (sc or ""):
                        continue
                    if not modes <= set(ps.get("accessModes") or []):
                        continue
                    if parse_qty((ps.get("capacity") or {}).get("storage", "0")) < want:
                        continue
                    if not selector_matches(spec.get("selector"), pv["metadata"].get("labels") or {}):
                        continue
                    chosen = pv
                    break
            if chosen is None and sc:
                cls = self.st.get("storage.k8s.io", "storageclasses", None, sc)
                if cls is not None and cls.get("provisioner") != "kubernetes.io/no-provisioner":
                    chosen = self.kc.create_object("", "persistentvolumes", {
                        "apiVersion": "v1", "kind": "PersistentVolume",
                        "metadata": {"name": "pvc-" + pvc["metadata"]["uid"],
                                     "annotations": {"pv.kubernetes.io/provisioned-by": cls.get("provisioner")}},
                        "spec": {"capacity": {"storage": spec.get("resources", {}).get("requests", {}).get("storage", "1Gi")},
                                 "accessModes": list(modes) or ["ReadWriteOnce"], "storageClassName": sc,
                                 "persistentVolumeReclaimPolicy": cls.get("reclaimPolicy", "Delete"),
                                 "csi": {"driver": cls.get("provisioner"), "volumeHandle": "vol-" + random_hash(17)}}},
                        manager="csi-provisioner")
                    self.event(pvc, "ProvisioningSucceeded", "Successfully provisioned volume %s" % chosen["metadata"]["name"],
                               component="csi-provisioner")
            if chosen is None:
                continue
            chosen["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": pvc["metadata"]["namespace"],
                                          "name": pvc["metadata"]["name"], "uid": pvc["metadata"]["uid"],
                                          "apiVersion": "v1", "resourceVersion": pvc["metadata"]["resourceVersion"]}
            chosen["status"] = {"phase": "Bound"}
            self.st.update("", "persistentvolumes", chosen)
            pvc["spec"]["volumeName"] = chosen["metadata"]["name"]
            pvc["status"] = {"phase": "Bound", "accessModes": chosen["spec"].get("accessModes"),
                             "capacity": chosen["spec"].get("capacity")}
            pvc["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
            self.st.update("", "persistentvolumeclaims", pvc)
        claims = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in self.st.list("", "persistentvolumeclaims")}
        for pv in self.st.list("", "persistentvolumes"):
            ref = pv["spec"].get("claimRef")
            if ref and pv["status"].get("phase") == "Bound" and (ref.get("namespace"), ref.get("name")) not in claims:
                if pv["spec"].get("persistentVolumeReclaimPolicy") == "Delete":
                    self.kc.delete_object("", "persistentvolumes", None, pv["metadata"]["name"])
                else:
                    pv["status"] = {"phase": "Released"}
                    self.st.update("", "persistentvolumes", pv)

    # --- garbage collection --------------------------------------------------------------
    def gc(self, now):
        uids = set()
        objs = self.st.all_objects()
        for _, o in objs:
            uids.add(o["metadata"].get("uid"))
        for key, o in objs:
            refs = o["metadata"].get("ownerReferences") or []
            if refs and not any(r.get("uid") in uids for r in refs):
                group, plural, ns, name = key.split("|", 3)
                self.kc.delete_object(group, plural, ns or None, name)


LB_CONTROLLER_IMAGE = re.compile(r"^(public\.ecr\.aws/eks|[0-9]{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com/amazon)"
                                 r"/aws-load-balancer-controller$")


def _is_lb_controller(dep):
    """A Deployment running the AWS Load Balancer Controller's image."""
    tmpl = ((dep.get("spec") or {}).get("template") or {}).get("spec") or {}
    return any(LB_CONTROLLER_IMAGE.match((c.get("image") or "").rsplit(":", 1)[0].split("@", 1)[0])
               for c in tmpl.get("containers") or [])


def _plugin_resources(pod):
    """Resources a pod's containers can register as a device plugin: the plugin's image
    family, with the kubelet's device-plugins directory mounted from the host."""
    spec = pod.get("spec") or {}
    host_dirs = {v.get("name") for v in spec.get("volumes") or []
                 if ((v.get("hostPath") or {}).get("path") or "").rstrip("/") == DEVICE_PLUGIN_DIR}
    out = set()
    for c in spec.get("containers") or []:
        repo = (c.get("image") or "").rsplit(":", 1)[0].split("@", 1)[0]
        mounted = any(m.get("name") in host_dirs and (m.get("mountPath") or "").rstrip("/") == DEVICE_PLUGIN_DIR
                      for m in c.get("volumeMounts") or [])
        if not mounted:
            continue
        for res, (family, _) in PLUGIN_RESOURCES.items():
            if family.match(repo):
                out.add(res)
    return out


def _guess_workload(template):
    ann = ((template or {}).get("metadata") or {}).get("annotations") or {}
    if ann.get("sandbox.slipway.dev/workload"):
        return ann["sandbox.slipway.dev/workload"]
    text = json.dumps((template or {}).get("spec") or {}).lower()
    if any(w in text for w in ("vllm", "sglang", "inference", "serve", "tgi", "triton", "djl", "8000")):
        return "inference"
    return "generic"


def _ready(pod):
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def _node_ready(node):
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def _node_ip(node):
    for a in (node.get("status") or {}).get("addresses") or []:
        if a.get("type") == "InternalIP":
            return a.get("address")
    return "10.0.0.1"


def _tolerates(tol, taint):
    if tol.get("effect") and tol.get("effect") != taint.get("effect"):
        return False
    if tol.get("operator") == "Exists":
        return not tol.get("key") or tol.get("key") == taint.get("key")
    return tol.get("key") == taint.get("key") and tol.get("value", "") == taint.get("value", "")
