"""SageMaker HyperPod task governance: compute quotas and cluster scheduler configs.

Both are versioned resources of an EKS-orchestrated cluster, with the
SchedulerResourceStatus state machine of the model: Creating -> Created (or
CreateFailed), Updating -> Updated (or UpdateFailed), Deleting -> gone.  They
are served by the cluster's task governance add-on
(amazon-sagemaker-hyperpod-taskgovernance): one created or updated while the
add-on is not ACTIVE ends CreateFailed / UpdateFailed with a FailureReason,
as on AWS.  An update names the version it replaces (TargetVersion); a stale
one, or one while the resource is still changing, is a ConflictException.
One scheduler config per cluster, one compute quota per team and cluster.
Once one is Created or Updated (or gone), the add-on's Kueue objects in the
EKS cluster follow (k8s/kueue.py apply_governance): the team's namespace,
ClusterQueue and LocalQueue, the flavors, and the WorkloadPriorityClasses.
Every change of a cluster, instance group or node is an event
(ListClusterEvents), recorded by the SageMaker service when it saves one.
"""
import copy
import secrets

from ..protocols import AwsError
from .util import as_list, page

TASK_GOVERNANCE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"
SETTLE = 30             # sandbox seconds Creating/Updating/Deleting -> next


def _nf(msg):
    return AwsError("ResourceNotFound", msg, 400)


def _val(msg):
    return AwsError("ValidationException", msg, 400)


def _conflict(msg):
    return AwsError("ConflictException", msg, 400)


def _public(r):
    return {k: copy.deepcopy(v) for k, v in r.items() if not k.startswith("_")}


class GovernanceMixin:
    """The compute quota and scheduler config operations of SageMakerService."""

    # --- shared -------------------------------------------------------------
    def _gov_cluster(self, arn):
        for c in self.store.values("sm:clusters"):
            if c["ClusterArn"] == arn:
                return c
        raise _val("Cluster %s does not exist." % arn)

    def _gov_addon_active(self, c):
        eks = self.eks_name(c)
        if not eks:
            return False
        a = self.store.get("eks:addons", "%s/%s" % (eks, TASK_GOVERNANCE_ADDON))
        return a is not None and a.get("status") == "ACTIVE"

    def _gov_user(self, ctx):
        arn = ctx.principal.get("arn") if ctx.principal else None
        return {"IamIdentity": {"Arn": arn or "arn:aws:iam::%s:root" % self.world.account}}

    def _gov_new_id(self, table):
        while True:
            rid = secrets.token_hex(6)
            if self.store.get(table, rid) is None:
                return rid

    def _gov_get(self, table, rid, what):
        r = self.store.get(table, rid or "")
        if r is None:
            raise _nf("%s %s not found." % (what, rid))
        return r

    def _gov_version(self, r, version, what):
        if version is None or version == r["_version"]:
            return r
        for old in r["_history"]:
            if old["_version"] == version:
                return old
        raise _nf("%s %s version %d not found." % (what, r["_id"], version))

    def _gov_begin_update(self, r, target, what):
        if r["Status"] in ("Creating", "Updating", "Deleting"):
            raise _conflict("%s %s is in %s status and cannot be updated." % (what, r["_id"], r["Status"]))
        if r["Status"] == "CreateFailed":
            raise _conflict("%s %s is in CreateFailed status; delete it and create it again." % (what, r["_id"]))
        if target != r["_version"]:
            raise _conflict("TargetVersion %d does not match the latest version %d of %s %s." % (
                target, r["_version"], what, r["_id"]))
        snap = {k: copy.deepcopy(v) for k, v in r.items() if k != "_history"}
        r["_history"].append(snap)
        r["_version"] += 1
        r["Status"] = "Updating"
        r.pop("FailureReason", None)
        r["_next"] = self.clock.due(SETTLE, self.clock.now())
        r["LastModifiedTime"] = self.clock.now()

    def _gov_begin_delete(self, r, what):
        if r["Status"] in ("Creating", "Updating", "Deleting"):
            raise _conflict("%s %s is in %s status and cannot be deleted." % (what, r["_id"], r["Status"]))
        r["Status"] = "Deleting"
        r["_next"] = self.clock.due(SETTLE, self.clock.now())

    def _gov_list(self, table, p, summary):
        items = list(self.store.values(table))
        if p.get("ClusterArn"):
            items = [r for r in items if r["ClusterArn"] == p["ClusterArn"]]
        if p.get("NameContains"):
            items = [r for r in items if p["NameContains"] in r["Name"]]
        if p.get("Status"):
            items = [r for r in items if r["Status"] == p["Status"]]
        from .sagemaker import _ts
        if p.get("CreatedAfter") is not None:
            items = [r for r in items if r["CreationTime"] > _ts(p["CreatedAfter"])]
        if p.get("CreatedBefore") is not None:
            items = [r for r in items if r["CreationTime"] < _ts(p["CreatedBefore"])]
        key = {"Name": lambda r: r["Name"], "Status": lambda r: r["Status"],
               "ClusterArn": lambda r: r["ClusterArn"]}.get(p.get("SortBy"), lambda r: r["CreationTime"])
        items.sort(key=key, reverse=p.get("SortOrder", "Descending") == "Descending")
        items, token = page(items, p.get("MaxResults"), p.get("NextToken"))
        return [summary(r) for r in items], token

    def _gov_kueue(self, c):
        """The add-on's Kueue objects of c, from its live quotas and scheduler config."""
        kc = self.world.kube.clusters.get(self.eks_name(c) or "")
        if kc is None or kc.server is None or not self._gov_addon_active(c):
            return
        live = ("Created", "Updated", "Updating", "UpdateFailed")
        quotas = [q for q in self.store.values("sm:quotas") if q["ClusterArn"] == c["ClusterArn"]
                  and q["Status"] in live and q.get("ActivationState", "Enabled") == "Enabled"]
        sched = next((s for s in self.store.values("sm:schedcfg") if s["ClusterArn"] == c["ClusterArn"]
                      and s["Status"] in live), None)
        from ..k8s import kueue
        kueue.apply_governance(kc, quotas, sched)

    def advance_governance(self, now):
        for table, what in (("sm:quotas", "compute quota"), ("sm:schedcfg", "cluster scheduler config")):
            for rid, r in list(self.store.all(table).items()):
                if not any(x["ClusterArn"] == r["ClusterArn"] for x in self.store.values("sm:clusters")):
                    self.store.delete(table, rid)
                    continue
                if r["Status"] not in ("Creating", "Updating", "Deleting") or now < r.get("_next", 0):
                    continue
                c = next((x for x in self.store.values("sm:clusters") if x["ClusterArn"] == r["ClusterArn"]), None)
                if r["Status"] == "Deleting":
                    self.store.delete(table, rid)
                    if c is not None:
                        self._gov_kueue(c)
                    continue
                ok = c is not None and self._gov_addon_active(c)
                if r["Status"] == "Creating":
                    r["Status"] = "Created" if ok else "CreateFailed"
                else:
                    r["Status"] = "Updated" if ok else "UpdateFailed"
                if not ok:
                    r["FailureReason"] = ("The %s add-on is not installed or not active on the EKS cluster "
                                          "of %s; install it before creating a %s." % (
                                              TASK_GOVERNANCE_ADDON, r["ClusterArn"], what))
                if what == "cluster scheduler config":
                    r["StatusDetails"] = {"Kueue": r["Status"], "PriorityClasses": r["Status"]}
                self.store.put(table, rid, r)
                if ok:
                    self._gov_kueue(c)

    # --- compute quotas ---------------------------------------------------
    def _check_quota_config(self, c, cfg):
        groups = {self._group_type(e["spec"]) for e in c["_groups"].values()}
        res = as_list(cfg.get("ComputeQuotaResources"))
        if not res:
            raise _val("ComputeQuotaResources must contain at least one resource.")
        for r in res:
            if r["InstanceType"] not in groups:
                raise _val("Instance type %s is not present in cluster %s." % (r["InstanceType"], c["ClusterArn"]))
            if all(r.get(k) is None for k in ("Count", "Accelerators", "VCpu", "MemoryInGiB")):
                raise _val("One of Count, Accelerators, VCpu or MemoryInGiB must be specified for %s."
                           % r["InstanceType"])
        share = cfg.get("ResourceSharingConfig") or {}
        if share.get("BorrowLimit") is not None and share.get("Strategy") != "LendAndBorrow":
            raise _val("BorrowLimit can only be specified when Strategy is LendAndBorrow.")

    def _quota_out(self, q):
        out = _public(q)
        out["ComputeQuotaVersion"] = q["_version"]
        return out

    def op_CreateComputeQuota(self, ctx, p):
        c = self._gov_cluster(p["ClusterArn"])
        if not self.eks_name(c):
            raise _val("Compute quotas are only supported for clusters orchestrated by Amazon EKS.")
        self._check_quota_config(c, p["ComputeQuotaConfig"])
        team = p["ComputeQuotaTarget"]["TeamName"]
        for q in self.store.values("sm:quotas"):
            if q["ClusterArn"] != c["ClusterArn"]:
                continue
            if q["Name"] == p["Name"]:
                raise _conflict("Compute quota with name %s already exists for cluster %s." % (p["Name"], c["ClusterArn"]))
            if q["ComputeQuotaTarget"]["TeamName"] == team:
                raise _conflict("Team %s already has compute quota %s in cluster %s." % (
                    team, q["ComputeQuotaId"], c["ClusterArn"]))
        now = self.clock.now()
        qid = self._gov_new_id("sm:quotas")
        cfg = copy.deepcopy(p["ComputeQuotaConfig"])
        cfg.setdefault("ResourceSharingConfig", {"Strategy": "LendAndBorrow", "BorrowLimit": 50})
        cfg.setdefault("PreemptTeamTasks", "Never")
        q = {"ComputeQuotaArn": self._arn("compute-quota", qid), "ComputeQuotaId": qid, "Name": p["Name"],
             "Status": "Creating", "ClusterArn": c["ClusterArn"], "ComputeQuotaConfig": cfg,
             "ComputeQuotaTarget": dict({"FairShareWeight": 0}, **p["ComputeQuotaTarget"]),
             "ActivationState": p.get("ActivationState") or "Enabled", "CreationTime": now,
             "CreatedBy": self._gov_user(ctx), "LastModifiedTime": now,
             "_id": qid, "_version": 1, "_history": [], "_next": self.clock.due(SETTLE, now),
             "_tags": p.get("Tags") or []}
        if p.get("Description") is not None:
            q["Description"] = p["Description"]
        self.store.put("sm:quotas", qid, q)
        return {"ComputeQuotaArn": q["ComputeQuotaArn"], "ComputeQuotaId": qid}

    def op_DescribeComputeQuota(self, ctx, p):
        q = self._gov_get("sm:quotas", p["ComputeQuotaId"], "Compute quota")
        return self._quota_out(self._gov_version(q, p.get("ComputeQuotaVersion"), "Compute quota"))

    def op_ListComputeQuotas(self, ctx, p):
        def summary(q):
            return {k: v for k, v in self._quota_out(q).items()
                    if k not in ("Description", "CreatedBy", "LastModifiedBy")}
        items, token = self._gov_list("sm:quotas", p, summary)
        out = {"ComputeQuotaSummaries": items}
        if token:
            out["NextToken"] = token
        return out

    def op_UpdateComputeQuota(self, ctx, p):
        q = self._gov_get("sm:quotas", p["ComputeQuotaId"], "Compute quota")
        c = self._gov_cluster(q["ClusterArn"])
        if p.get("ComputeQuotaConfig") is not None:
            self._check_quota_config(c, p["ComputeQuotaConfig"])
        target = p.get("ComputeQuotaTarget")
        if target and target["TeamName"] != q["ComputeQuotaTarget"]["TeamName"]:
            raise _val("The team of compute quota %s cannot be changed." % q["ComputeQuotaId"])
        self._gov_begin_update(q, p["TargetVersion"], "Compute quota")
        if p.get("ComputeQuotaConfig") is not None:
            cfg = copy.deepcopy(p["ComputeQuotaConfig"])
            cfg.setdefault("ResourceSharingConfig", q["ComputeQuotaConfig"].get("ResourceSharingConfig"))
            cfg.setdefault("PreemptTeamTasks", q["ComputeQuotaConfig"].get("PreemptTeamTasks", "Never"))
            q["ComputeQuotaConfig"] = cfg
        if target:
            q["ComputeQuotaTarget"] = dict(q["ComputeQuotaTarget"], **target)
        for k in ("ActivationState", "Description"):
            if p.get(k) is not None:
                q[k] = p[k]
        q["LastModifiedBy"] = self._gov_user(ctx)
        self.store.put("sm:quotas", q["_id"], q)
        return {"ComputeQuotaArn": q["ComputeQuotaArn"], "ComputeQuotaVersion": q["_version"]}

    def op_DeleteComputeQuota(self, ctx, p):
        q = self._gov_get("sm:quotas", p["ComputeQuotaId"], "Compute quota")
        self._gov_begin_delete(q, "Compute quota")
        self.store.put("sm:quotas", q["_id"], q)
        return {}

    # --- cluster scheduler configs -------------------------------------------
    def _sched_out(self, s):
        out = _public(s)
        out["ClusterSchedulerConfigVersion"] = s["_version"]
        return out

    def _check_sched(self, cfg):
        names = [pc["Name"] for pc in as_list((cfg or {}).get("PriorityClasses"))]
        if len(names) != len(set(names)):
            raise _val("Priority class names must be unique.")

    def op_CreateClusterSchedulerConfig(self, ctx, p):
        c = self._gov_cluster(p["ClusterArn"])
        if not self.eks_name(c):
            raise _val("Cluster scheduler configs are only supported for clusters orchestrated by Amazon EKS.")
        self._check_sched(p["SchedulerConfig"])
        for s in self.store.values("sm:schedcfg"):
            if s["ClusterArn"] == c["ClusterArn"]:
                raise _conflict("Cluster %s already has cluster scheduler config %s." % (
                    c["ClusterArn"], s["ClusterSchedulerConfigId"]))
        now = self.clock.now()
        sid = self._gov_new_id("sm:schedcfg")
        cfg = copy.deepcopy(p["SchedulerConfig"])
        cfg.setdefault("FairShare", "Enabled")
        cfg.setdefault("IdleResourceSharing", "Enabled")
        s = {"ClusterSchedulerConfigArn": self._arn("cluster-scheduler-config", sid),
             "ClusterSchedulerConfigId": sid, "Name": p["Name"], "Status": "Creating",
             "ClusterArn": c["ClusterArn"], "SchedulerConfig": cfg, "CreationTime": now,
             "CreatedBy": self._gov_user(ctx), "LastModifiedTime": now,
             "_id": sid, "_version": 1, "_history": [], "_next": self.clock.due(SETTLE, now),
             "_tags": p.get("Tags") or []}
        if p.get("Description") is not None:
            s["Description"] = p["Description"]
        self.store.put("sm:schedcfg", sid, s)
        return {"ClusterSchedulerConfigArn": s["ClusterSchedulerConfigArn"], "ClusterSchedulerConfigId": sid}

    def op_DescribeClusterSchedulerConfig(self, ctx, p):
        s = self._gov_get("sm:schedcfg", p["ClusterSchedulerConfigId"], "Cluster scheduler config")
        return self._sched_out(self._gov_version(s, p.get("ClusterSchedulerConfigVersion"),
                                                 "Cluster scheduler config"))

    def op_ListClusterSchedulerConfigs(self, ctx, p):
        def summary(s):
            return {k: v for k, v in self._sched_out(s).items()
                    if k in ("ClusterSchedulerConfigArn", "ClusterSchedulerConfigId", "ClusterSchedulerConfigVersion",
                             "Name", "CreationTime", "LastModifiedTime", "Status", "ClusterArn")}
        items, token = self._gov_list("sm:schedcfg", p, summary)
        out = {"ClusterSchedulerConfigSummaries": items}
        if token:
            out["NextToken"] = token
        return out

    def op_UpdateClusterSchedulerConfig(self, ctx, p):
        s = self._gov_get("sm:schedcfg", p["ClusterSchedulerConfigId"], "Cluster scheduler config")
        if p.get("SchedulerConfig") is not None:
            self._check_sched(p["SchedulerConfig"])
        self._gov_begin_update(s, p["TargetVersion"], "Cluster scheduler config")
        if p.get("SchedulerConfig") is not None:
            s["SchedulerConfig"] = dict(s["SchedulerConfig"], **copy.deepcopy(p["SchedulerConfig"]))
        if p.get("Description") is not None:
            s["Description"] = p["Description"]
        s["LastModifiedBy"] = self._gov_user(ctx)
        self.store.put("sm:schedcfg", s["_id"], s)
        return {"ClusterSchedulerConfigArn": s["ClusterSchedulerConfigArn"],
                "ClusterSchedulerConfigVersion": s["_version"]}

    def op_DeleteClusterSchedulerConfig(self, ctx, p):
        s = self._gov_get("sm:schedcfg", p["ClusterSchedulerConfigId"], "Cluster scheduler config")
        self._gov_begin_delete(s, "Cluster scheduler config")
        self.store.put("sm:schedcfg", s["_id"], s)
        return {}
