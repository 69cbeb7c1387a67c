"""HyperPod's managed Karpenter, as the sandbox plays it.

When a HyperPod cluster's AutoScaling is enabled (Mode Enable, Karpenter),
HyperPod serves the NodePool and HyperpodNodeClass kinds in the EKS cluster
(the upstream schemas, crdbundle 'karpenter-v1.14.1' and
'hyperpod-karpenter-nodeclass') and runs Karpenter for it:

- a pod the scheduler could not place, whose requests fit the instance type
  of a group named by a HyperpodNodeClass that a NodePool references, makes
  that group grow by a node, through the same SageMaker state that
  BatchAddClusterNodes changes (DescribeCluster's TargetCount, a Pending
  node in ListClusterNodes, then a Kubernetes Node);
- a node of such a group with nothing on it but DaemonSet pods is removed
  once it has been empty for the NodePool's disruption.consolidateAfter
  ("Never" keeps it).

Nodes still booting, or registered but not yet advertising what their
device plugins bring, count as capacity on the way, so one pending pod
never asks for two nodes.
"""
import copy
import re

from ..services import catalog
from .controllers import EFA, GPU, PLUGIN_RESOURCES, _node_ready, _tolerates, pod_requests

CRD_BUNDLES = ("karpenter-v1.14.1", "hyperpod-karpenter-nodeclass")
NODECLASS = ("karpenter.sagemaker.amazonaws.com", "hyperpodnodeclasses")
NODEPOOL = ("karpenter.sh", "nodepools")
MAX_NEW_PER_PASS = 10      # nodes one reconcile may ask for in one group
_DURATION = re.compile(r"([0-9]+)(h|m|s)")


def consolidate_after(pool):
    """Seconds of emptiness before a node of `pool` goes; None for Never."""
    v = ((pool.get("spec") or {}).get("disruption") or {}).get("consolidateAfter", "0s")
    if v == "Never":
        return None
    return float(sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in _DURATION.findall(v)))


def install_crds(kc):
    """Serve the NodePool and HyperpodNodeClass kinds (HyperPod does it on enable)."""
    from . import crdbundle
    for bundle in CRD_BUNDLES:
        for crd in crdbundle.crds(bundle):
            kc.ensure(crd, manager="sagemaker-hyperpod")


def remove_crds(kc):
    """Stop serving them (AutoScaling disabled); their objects go with them."""
    from . import crdbundle
    for bundle in CRD_BUNDLES:
        for crd in crdbundle.crds(bundle):
            kc.delete_object("apiextensions.k8s.io", "customresourcedefinitions", None, crd["metadata"]["name"])


def _capacity(itype):
    s = catalog.spec(itype) or {}
    if not s:
        return None
    return {"cpu": s["vcpus"] - 0.09, "memory": s["memory_gib"] * 1024.0 ** 3 - 900000 * 1024.0,
            GPU: float(s.get("gpus") or 0), EFA: float(s.get("efa") or 0),
            "pods": 737.0 if s["vcpus"] >= 96 else 110.0}


def _fits(req, free):
    for res, amount in req.items():
        if res in ("cpu", "memory", GPU, EFA, "pods") or "/" in res:
            if amount > free.get(res, 0.0) + 1e-9:
                return False
    return True


def _take(req, free):
    for res, amount in req.items():
        if res in free:
            free[res] -= amount
    free["pods"] = free.get("pods", 0.0) - 1


class Karpenter:
    def __init__(self, sm):
        self.sm = sm

    def groups(self, kc):
        """{group name: NodePool} of every group a NodePool can scale."""
        classes = {o["metadata"]["name"]: o for o in kc.store.list(*NODECLASS)}
        out = {}
        for pool in kc.store.list(*NODEPOOL):
            ref = ((((pool.get("spec") or {}).get("template") or {}).get("spec") or {}).get("nodeClassRef") or {})
            cls = classes.get(ref.get("name")) if ref.get("kind") == "HyperpodNodeClass" else None
            for g in ((cls or {}).get("spec") or {}).get("instanceGroups") or []:
                out.setdefault(g, pool)
        return out

    def _group_fits(self, c, gname, pod, req):
        entry = c["_groups"].get(gname)
        if entry is None or entry.get("_deleting"):
            return None
        g = entry["spec"]
        itype = self.sm._group_type(g)
        cap = _capacity(itype)
        if cap is None or not _fits(req, cap):
            return None
        spec = pod.get("spec") or {}
        kcfg = g.get("KubernetesConfig") or {}
        labels = {"node.kubernetes.io/instance-type": itype, "sagemaker.amazonaws.com/instance-group-name": gname,
                  "sagemaker.amazonaws.com/compute-type": "hyperpod", "kubernetes.io/os": "linux",
                  "kubernetes.io/arch": "amd64", "sagemaker.amazonaws.com/node-health-status": "Schedulable"}
        labels.update(kcfg.get("Labels") or {})
        if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
            return None
        for t in kcfg.get("Taints") or []:
            taint = {"key": t.get("Key"), "value": t.get("Value", ""), "effect": t.get("Effect")}
            if taint["effect"] in ("NoSchedule", "NoExecute") and not any(
                    _tolerates(x, taint) for x in spec.get("tolerations") or []):
                return None
        return cap

    def _on_the_way(self, c, gname, kc):
        """SageMaker nodes of the group that cannot take pods yet (booting, not Ready, or
        without the extended resources their device plugins will bring)."""
        knodes = {(n["metadata"].get("annotations") or {}).get("sagemaker.amazonaws.com/instance-id"): n
                  for n in kc.store.list("", "nodes")}
        out = []
        for n in self.sm._live(c, gname):
            k = knodes.get(n["InstanceId"])
            spec = catalog.spec(n["InstanceType"]) or {}
            alloc = ((k or {}).get("status") or {}).get("allocatable") or {}
            waiting = k is None or not _node_ready(k) or any(
                spec.get(field) and res not in alloc for res, (_, field) in PLUGIN_RESOURCES.items())
            if waiting and n["InstanceStatus"]["Status"] in ("Pending", "Running", "DeepHealthCheckInProgress"):
                out.append(n)
        return out

    def reconcile(self, c, kc, now):
        if kc.registry().find(NODECLASS[0], "v1", NODECLASS[1]) is None:
            return
        groups = self.groups(kc)
        if not groups:
            return
        pending = [p for p in kc.store.list("", "pods")
                   if not (p.get("spec") or {}).get("nodeName") and p["status"].get("phase") == "Pending"
                   and not p["metadata"].get("deletionTimestamp")
                   and any(x.get("type") == "PodScheduled" and x.get("reason") == "Unschedulable"
                           for x in p["status"].get("conditions") or [])]
        pending.sort(key=lambda p: p["metadata"]["creationTimestamp"])
        slots = {}
        for g in groups:
            slots[g] = [_capacity(n["InstanceType"]) for n in self._on_the_way(c, g, kc)]
        wanted = {}
        for pod in pending:
            req = pod_requests(pod)
            for gname in groups:
                cap = self._group_fits(c, gname, pod, req)
                if cap is None:
                    continue
                free = next((s for s in slots[gname] if s and _fits(req, s)), None)
                if free is None:
                    if wanted.get(gname, 0) >= MAX_NEW_PER_PASS:
                        break
                    free = dict(cap)
                    slots[gname].append(free)
                    wanted[gname] = wanted.get(gname, 0) + 1
                _take(req, free)
                break
        changed = False
        for gname, n in wanted.items():
            entry = c["_groups"][gname]
            entry["spec"]["InstanceCount"] += n
            for _ in range(n):
                node = self.sm._new_node(c, gname, now)
                if not node.get("NodeLogicalId"):
                    node["NodeLogicalId"] = "%s-%s" % (gname, node["InstanceId"][2:14])
                    self.sm._save_node(node)
            self.sm._event(c, "InstanceGroup", "Karpenter scaled instance group %s up by %d node(s) for "
                           "pending pods." % (gname, n), gname)
            changed = True
        changed |= self._consolidate(c, kc, groups, pending, now)
        if changed:
            self.sm._save(c)

    def _consolidate(self, c, kc, groups, pending, now):
        busy = {}
        for p in kc.store.list("", "pods"):
            node = (p.get("spec") or {}).get("nodeName")
            if node and p["status"].get("phase") in ("Pending", "Running") and not any(
                    r.get("kind") == "DaemonSet" for r in p["metadata"].get("ownerReferences") or []):
                busy[node] = True
        knodes = {(n["metadata"].get("annotations") or {}).get("sagemaker.amazonaws.com/instance-id"): n
                  for n in kc.store.list("", "nodes")}
        changed = False
        for gname, pool in groups.items():
            entry = c["_groups"].get(gname)
            if entry is None:
                continue
            after = consolidate_after(pool)
            wanted_here = any(self._group_fits(c, gname, p, pod_requests(p)) is not None for p in pending)
            for n in self.sm._live(c, gname):
                k = knodes.get(n["InstanceId"])
                if k is None or n["InstanceStatus"]["Status"] != "Running":
                    continue
                if busy.get(k["metadata"]["name"]) or wanted_here or after is None:
                    if n.pop("_empty_since", None) is not None:
                        self.sm._save_node(n)
                    continue
                if n.get("_empty_since") is None:
                    n["_empty_since"] = now
                    self.sm._save_node(n)
                    continue
                if now >= self.sm.clock.due(after, n["_empty_since"]):
                    entry["spec"]["InstanceCount"] = max(0, entry["spec"]["InstanceCount"] - 1)
                    n.pop("_empty_since", None)
                    self.sm._shutdown(n, now)
                    self.sm._event(c, "Instance", "Karpenter removed empty node %s (empty for %s)." % (
                        n["InstanceId"], (pool.get("spec") or {}).get("disruption", {}).get("consolidateAfter")),
                        gname, n["InstanceId"])
                    changed = True
        return changed


def nodeclass_status(kc, c, now_text):
    """Ready condition on each HyperpodNodeClass: every group it names exists."""
    for cls in kc.store.list(*NODECLASS):
        missing = [g for g in ((cls.get("spec") or {}).get("instanceGroups") or []) if g not in c["_groups"]]
        ok = not missing
        cond = {"type": "Ready", "status": "True" if ok else "False",
                "reason": "Ready" if ok else "InstanceGroupNotFound",
                "message": "" if ok else "instance group(s) %s not found in cluster %s" % (
                    ", ".join(missing), c["ClusterName"]),
                "lastTransitionTime": now_text}
        old = ((cls.get("status") or {}).get("conditions") or [{}])[0]
        if (old.get("status"), old.get("message")) != (cond["status"], cond["message"]):
            cls = copy.deepcopy(cls)
            cls["status"] = {"conditions": [cond]}
            kc.store.update(NODECLASS[0], NODECLASS[1], cls)

