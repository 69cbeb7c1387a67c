"""SageMaker HyperPod (json 1.1): clusters, instance groups, nodes, training plans.

CreateCluster: Creating -> InService once every node went Pending ->
(DeepHealthCheckInProgress ->) Running.  UpdateCluster scales or adds and
removes groups (Updating -> InService); batch reboot/replace/delete work per
node with per-node Failed entries; UpdateClusterSoftware goes through
SystemUpdating.  Injected insufficient capacity turns a create or update
into Failed with a FailureMessage; failed nodes are replaced when
NodeRecovery is Automatic and left in Failure when it is None.  Quotas come
from the Service Quotas service.  EKS-orchestrated clusters register their
nodes in the EKS cluster's Kubernetes API with the real HyperPod labels.
"""
import hashlib
import ipaddress
import json
import math
import secrets
import time

from ..gateway import AwsService
from ..protocols import AwsError, JsonProtocol
from . import catalog
from .sagemaker_gov import GovernanceMixin
from .sagemaker_mlflow import MlflowAppMixin
from .sagemaker_vol import NodeVolumeMixin
from .util import as_list, hexid, new_uuid, page, stable_rand
from ..k8s import karpenter
from ..k8s.store import now_rfc3339

IMAGE_VERSION = "2025.09.15"
IMAGE_LATEST = "2025.10.01"
IMAGE_RELEASES = ("2025.08.20", IMAGE_VERSION, IMAGE_LATEST)   # oldest first
NODE_BOOT = (420, 780)          # sandbox seconds Pending -> Running
DHC_TIME = (300, 420)           # deep health checks
SHUTDOWN = 120
REBOOT = 180
DELETE_CLUSTER = (240, 420)
CAPACITY_FAIL_AFTER = (180, 300)
AUTO_REPAIR_AFTER = 90
SOFTWARE_UPDATE = 600
AUTOSCALING_CHANGE = (300, 600)  # sandbox seconds AutoScaling Creating/Deleting -> InService
CLIENT_TOKEN_TTL = 8 * 3600     # BatchAddClusterNodes keeps a ClientToken this long
BATCH_ADD_MAX_NODES = 50        # nodes per BatchAddClusterNodes call, all groups together
PLAN_POOL = 64                  # instances of a type per AZ training plans can reserve at once
BATCH_DELETE_MAX_IDS = 50       # NodeIds and NodeLogicalIds per BatchDeleteClusterNodes call


def _nf(msg):
    return AwsError("ResourceNotFound", msg, 400)


def _val(msg):
    return AwsError("ValidationException", msg, 400)


RIG_DETAIL_KEYS = ("CurrentCount", "TargetCount", "InstanceGroupName", "InstanceType", "ExecutionRole",
                   "ThreadsPerCore", "InstanceStorageConfigs", "OnStartDeepHealthChecks", "Status",
                   "TrainingPlanArn", "TrainingPlanStatus", "OverrideVpcConfig", "ScheduledUpdateConfig")


def _with_restricted(p, orch):
    """InstanceGroups and RestrictedInstanceGroups of a request as one list
    of (spec, restricted); restricted groups need an EKS orchestrator."""
    rigs = as_list(p.get("RestrictedInstanceGroups"))
    if rigs and (orch or {}).get("Eks") is None:
        raise _val("RestrictedInstanceGroups are supported only for clusters orchestrated by Amazon EKS.")
    return [(g, False) for g in as_list(p.get("InstanceGroups"))] + [(g, True) for g in rigs]


class SageMakerService(GovernanceMixin, MlflowAppMixin, NodeVolumeMixin, AwsService):
    name = "sagemaker"
    signing_name = "sagemaker"
    protocol = JsonProtocol("SageMaker")

    # --- lookup -------------------------------------------------------------
    def _arn(self, kind, rest):
        return "arn:aws:sagemaker:%s:%s:%s/%s" % (self.world.region, self.world.account, kind, rest)

    def _cluster(self, name_or_arn):
        if name_or_arn and name_or_arn.startswith("arn:"):
            for c in self.store.values("sm:clusters"):
                if c["ClusterArn"] == name_or_arn:
                    return c
        else:
            c = self.store.get("sm:clusters", name_or_arn or "")
            if c is not None:
                return c
        raise _nf("Cluster %s not found" % self._cluster_arn_guess(name_or_arn))

    def _cluster_arn_guess(self, name_or_arn):
        if name_or_arn and name_or_arn.startswith("arn:"):
            return name_or_arn
        return "with name %s" % name_or_arn

    def __init__(self, world):
        super().__init__(world)
        self.store.index("sm:nodes", lambda n: n["_cluster"])
        self._synced = {}           # partition -> what _sync_kubernetes last saw

    def _nodes(self, cname):
        return list(self.store.indexed("sm:nodes", cname).values())

    def _save(self, c):
        """Store c; each change of its or a group's status is an event.
        Records are live objects, so the last status seen is kept in them."""
        seen = c.get("_seen")
        if seen is not None and seen != c["ClusterStatus"]:
            failed = c["ClusterStatus"] == "Failed"
            self._event(c, "Cluster", "Cluster status changed from %s to %s.%s" % (
                seen, c["ClusterStatus"], " " + c.get("FailureMessage", "") if failed else ""),
                level="Error" if failed else "Info")
        c["_seen"] = c["ClusterStatus"]
        for gname, e in c["_groups"].items():
            was = e.get("_seen")
            if was is not None and was != e["Status"]:
                bad = e["Status"] in ("Failed", "Degraded")
                self._event(c, "InstanceGroup", "Instance group %s status changed from %s to %s." % (
                    gname, was, e["Status"]), gname, level="Warn" if bad else "Info")
            e["_seen"] = e["Status"]
        self.store.put("sm:clusters", c["ClusterName"], c)

    def _save_node(self, n):
        """Store n; each change of its status is an event."""
        st = n["InstanceStatus"]["Status"]
        seen = n.get("_seen")
        n["_seen"] = st
        self.store.put("sm:nodes", n["InstanceId"], n)
        c = self.store.get("sm:clusters", n["_cluster"])
        if seen is None or seen == st or c is None:
            return
        msg = n["InstanceStatus"].get("Message")
        self._event(c, "Instance", "Instance %s status changed from %s to %s.%s" % (
            n["InstanceId"], seen, st, " " + msg if msg else ""),
            n["InstanceGroupName"], n["InstanceId"], level="Error" if st == "Failure" else "Info")

    def uses_subnet(self, sid):
        return any(sid in (c.get("VpcConfig") or {}).get("Subnets", []) for c in self.store.values("sm:clusters"))

    def uses_sg(self, gid):
        return any(gid in (c.get("VpcConfig") or {}).get("SecurityGroupIds", []) for c in self.store.values("sm:clusters"))

    def eks_name(self, c):
        arn = ((c.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn")
        return arn.rsplit("/", 1)[-1] if arn else None

    # --- validation helpers ----------------------------------------------------
    def _check_autoscaling(self, auto, role, provisioning, orch):
        """HyperPod autoscaling's prerequisites (EKS orchestrator, a ClusterRole,
        continuous node provisioning)."""
        if not auto or auto.get("Mode") != "Enable":
            return
        if (orch or {}).get("Eks") is None:
            raise _val("AutoScaling is only supported for clusters orchestrated by Amazon EKS.")
        if auto.get("AutoScalerType", "Karpenter") != "Karpenter":
            raise _val("AutoScalerType must be Karpenter.")
        if not role:
            raise _val("ClusterRole is required when AutoScaling is enabled.")
        if provisioning != "Continuous":
            raise _val("AutoScaling requires NodeProvisioningMode to be Continuous.")

    def _check_orchestrator(self, orch, vpc):
        if orch is None:
            return
        keys = [k for k in ("Eks", "Slurm") if orch.get(k) is not None]
        if len(keys) != 1:
            raise _val("Exactly one orchestrator (Eks or Slurm) must be specified in Orchestrator.")
        if keys[0] == "Eks":
            arn = orch["Eks"]["ClusterArn"]
            eks = self.world.services["eks"].cluster_by_arn(arn)
            if eks is None:
                raise _val("The EKS cluster %s does not exist." % arn)
            if eks["status"] != "ACTIVE":
                raise _val("The EKS cluster %s is not in ACTIVE status (current status: %s)." % (arn, eks["status"]))
            if eks["accessConfig"]["authenticationMode"] == "CONFIG_MAP":
                raise _val("The EKS cluster %s must use authentication mode API or API_AND_CONFIG_MAP." % arn)
            if vpc is None:
                raise _val("VpcConfig is required for clusters with an Amazon EKS orchestrator.")

    def _check_vpc(self, vpc):
        if not vpc:
            return
        missing = [s for s in vpc.get("Subnets", []) if self.store.get("ec2:subnet", s) is None]
        if missing:
            raise _val("Subnet(s) %s do not exist." % ", ".join(missing))
        missing = [g for g in vpc.get("SecurityGroupIds", []) if self.store.get("ec2:sg", g) is None]
        if missing:
            raise _val("Security group(s) %s do not exist." % ", ".join(missing))
        vpcs = {self.store.get("ec2:subnet", s)["vpcId"] for s in vpc.get("Subnets", [])}
        vpcs |= {self.store.get("ec2:sg", g)["vpcId"] for g in vpc.get("SecurityGroupIds", [])}
        if len(vpcs) > 1:
            raise _val("Subnets and security groups must belong to the same VPC.")

    def _check_group(self, g):
        if bool(g.get("InstanceType")) == bool(g.get("InstanceRequirements")):
            raise _val("Exactly one of InstanceType or InstanceRequirements must be specified for "
                       "instance group %s." % g["InstanceGroupName"])
        role = g.get("ExecutionRole", "")
        r = self.store.get("iam:roles", role.rsplit("/", 1)[-1])
        if r is None or r["Arn"] != role:
            raise _val("The execution role %s for instance group %s does not exist or cannot be "
                       "assumed by SageMaker." % (role, g["InstanceGroupName"]))
        for cfg in as_list(g.get("InstanceStorageConfigs")):
            ebs = cfg.get("EbsVolumeConfig")
            if ebs and ebs.get("RootVolume") and ebs.get("VolumeSizeInGB") is not None:
                raise _val("VolumeSizeInGB must not be specified when RootVolume is true.")
        self._check_vpc(g.get("OverrideVpcConfig"))
        self._check_patching(g)
        plan_arn = g.get("TrainingPlanArn")
        if plan_arn:
            plan = self._plan_by_arn(plan_arn)
            if plan is None:
                raise _val("Training plan %s does not exist." % plan_arn)
            if "hyperpod-cluster" not in plan["TargetResources"]:
                raise _val("Training plan %s is not available for hyperpod-cluster." % plan_arn)
            rc = plan["ReservedCapacitySummaries"][0]
            if rc["InstanceType"] != g.get("InstanceType"):
                raise _val("Instance type %s of instance group %s does not match training plan %s "
                           "(%s)." % (g.get("InstanceType"), g["InstanceGroupName"], plan_arn, rc["InstanceType"]))
            if g["InstanceCount"] > rc["TotalInstanceCount"]:
                raise _val("Instance count %d exceeds the %d instances reserved by training plan %s." % (
                    g["InstanceCount"], rc["TotalInstanceCount"], plan_arn))

    def _check_release(self, version, gname):
        if version is not None and version not in IMAGE_RELEASES:
            raise _val("ImageReleaseVersion %s is not a valid HyperPod AMI release for instance group %s "
                       "(available: %s)." % (version, gname, ", ".join(IMAGE_RELEASES)))

    def _check_deployment(self, dc, gname):
        batch = ((dc or {}).get("RollingUpdatePolicy") or {}).get("MaximumBatchSize")
        if batch and batch["Type"] == "CAPACITY_PERCENTAGE" and not 1 <= batch["Value"] <= 100:
            raise _val("MaximumBatchSize of type CAPACITY_PERCENTAGE must be between 1 and 100 for "
                       "instance group %s." % gname)

    def _check_patching(self, g):
        """ScheduledUpdateConfig: a cron(...) of six fields; a known release."""
        gname = g["InstanceGroupName"]
        su = g.get("ScheduledUpdateConfig")
        if su:
            expr = su["ScheduleExpression"]
            fields = expr[5:-1].split() if expr.startswith("cron(") and expr.endswith(")") else []
            if len(fields) != 6:
                raise _val("ScheduleExpression %s of instance group %s is not a valid cron expression: use "
                           "cron(Minutes Hours Day-of-month Month Day-of-week Year)." % (expr, gname))
            self._check_deployment(su.get("DeploymentConfig"), gname)
        if g.get("AutoPatchConfig"):
            self._check_deployment(g["AutoPatchConfig"].get("DeploymentConfig"), gname)
        self._check_release(g.get("ImageReleaseVersion"), gname)

    def _group_type(self, g):
        if g.get("InstanceType"):
            return g["InstanceType"]
        types = (g.get("InstanceRequirements") or {}).get("InstanceTypes") or ["ml.m5.xlarge"]
        return types[0]

    def _check_quota(self, cname, groups):
        """groups: {name: spec}; raises ResourceLimitExceeded like SageMaker."""
        quotas = self.world.services["servicequotas"]
        usage = {}
        for c in self.store.values("sm:clusters"):
            if c["ClusterName"] == cname or c["ClusterStatus"] in ("Deleting", "Failed"):
                continue
            for g in c["_groups"].values():
                t = self._group_type(g["spec"])
                usage[t] = usage.get(t, 0) + g["spec"]["InstanceCount"]
        delta = {}
        for g in groups.values():
            if g.get("TrainingPlanArn"):
                continue
            t = self._group_type(g)
            delta[t] = delta.get(t, 0) + g["InstanceCount"]
        for t, d in sorted(delta.items()):
            name = "%s for cluster usage" % t
            limit = quotas.quota_value(name)
            if usage.get(t, 0) + d > limit:
                raise AwsError("ResourceLimitExceeded",
                               "The account-level service limit '%s' is %d Instances, with current "
                               "utilization of %d Instances and a request delta of %d Instances. Please "
                               "use AWS Service Quotas to request an increase for this quota. If AWS "
                               "Service Quotas is not available, contact AWS support to request an "
                               "increase for this quota." % (name, limit, usage.get(t, 0), d), 400)

    # --- node creation -----------------------------------------------------
    def _subnets_for(self, c, g):
        vpc = g.get("OverrideVpcConfig") or c.get("VpcConfig") or {}
        return [self.store.get("ec2:subnet", s) for s in vpc.get("Subnets", [])
                if self.store.get("ec2:subnet", s)]

    def _placement(self, c, g, itype, index):
        subnets = self._subnets_for(c, g)
        good = [s for s in subnets if catalog.spec(itype) is None or catalog.offered_in(itype, s["availabilityZone"])]
        if subnets and not good:
            return None
        if good:
            sub = good[index % len(good)]
            az, azid, cidr = sub["availabilityZone"], sub["availabilityZoneId"], sub["cidrBlock"]
        else:
            az = self.world.region + "a"
            azid, cidr = catalog.zone_id(self.world.region, az), "10.1.0.0/16"
        return az, azid, cidr

    def _new_node(self, c, gname, now, start_delay=0.0, index=0):
        g = c["_groups"][gname]["spec"]
        itype = self._group_type(g)
        placement = self._placement(c, g, itype, index)
        az, azid, cidr = placement or (self.world.region + "a", catalog.zone_id(self.world.region, self.world.region + "a"), "10.1.0.0/16")
        iid = hexid("i")
        net = ipaddress.ip_network(cidr)
        offset = 10 + int(stable_rand(iid, 0, max(1, net.num_addresses - 20)))
        ip = str(net.network_address + offset)
        boot = stable_rand(iid, *NODE_BOOT)
        dhc = bool(g.get("OnStartDeepHealthChecks"))
        node = {
            "InstanceGroupName": gname, "InstanceId": iid, "InstanceType": itype,
            "LaunchTime": now, "InstanceStatus": {"Status": "Pending", "Message": ""},
            "PrivatePrimaryIp": ip, "PrivateDnsHostname": "ip-%s.%s.compute.internal" % (
                ip.replace(".", "-"), self.world.region),
            "Placement": {"AvailabilityZone": az, "AvailabilityZoneId": azid},
            "ThreadsPerCore": g.get("ThreadsPerCore", 2 if (catalog.spec(itype) or {}).get("vcpus", 2) > 1 else 1),
            "CapacityType": "Spot" if (g.get("CapacityRequirements") or {}).get("Spot") is not None else "OnDemand",
            "CurrentImageReleaseVersion": IMAGE_VERSION, "ImageVersionStatus": "UpToDate",
            "_cluster": c["ClusterName"], "_next": self.clock.due(start_delay + boot, now),
            "_dhc": dhc,
        }
        if c.get("NodeProvisioningMode") == "Continuous":
            node["NodeLogicalId"] = "%s-%s" % (gname, secrets.token_hex(6))
        for k in ("LifeCycleConfig", "InstanceStorageConfigs", "OverrideVpcConfig", "KubernetesConfig"):
            if g.get(k) is not None:
                node[k] = g[k]
        self._save_node(node)
        self._event(c, "Instance", "Instance %s is being provisioned." % iid, gname, iid)
        return node

    def _event(self, c, rtype, desc, group=None, iid=None, level="Info"):
        ev = {"EventId": new_uuid(), "ClusterArn": c["ClusterArn"], "ClusterName": c["ClusterName"],
              "ResourceType": rtype, "EventTime": self.clock.now(), "Description": desc, "EventLevel": level}
        if group:
            ev["InstanceGroupName"] = group
        if iid:
            ev["InstanceId"] = iid
        self.store.put("sm:events", ev["EventId"], ev)

    def _capacity_problem(self, c, groups):
        """Return a FailureMessage if any group cannot get capacity, else None."""
        for gname in groups:
            g = c["_groups"][gname]["spec"]
            itype = self._group_type(g)
            if self.world.faults.insufficient(itype):
                az = (self._placement(c, g, itype, 0) or (self.world.region + "a",))[0]
                return self._ice(itype, az, gname)
            if self._placement(c, g, itype, 0) is None:
                zones = sorted({s["availabilityZone"] for s in self._subnets_for(c, g)})
                return self._ice(itype, ", ".join(zones), gname)
        return None

    def _ice(self, itype, az, gname):
        return ("We currently do not have sufficient capacity to launch new %s instances in the "
                "requested Availability Zone(s) (%s) for instance group %s "
                "(InsufficientInstanceCapacity). Please try again later or choose a different "
                "Availability Zone." % (itype, az, gname))

    # --- clusters -----------------------------------------------------------
    def op_CreateCluster(self, ctx, p):
        name = p["ClusterName"]
        if self.store.get("sm:clusters", name):
            raise AwsError("ResourceInUse", "Cluster %s already exists." % self._arn("cluster", name), 400)
        orch = p.get("Orchestrator")
        both = _with_restricted(p, orch)
        groups = [g for g, _ in both]
        restricted = {g["InstanceGroupName"] for g, r in both if r}
        names = [g["InstanceGroupName"] for g in groups]
        if len(set(names)) != len(names):
            raise _val("Instance group names must be unique within a cluster.")
        vpc = p.get("VpcConfig")
        self._check_orchestrator(orch, vpc)
        self._check_vpc(vpc)
        if orch is None or orch.get("Slurm") is not None:
            for g in groups:
                if not g.get("LifeCycleConfig"):
                    raise _val("LifeCycleConfig is required for instance group %s." % g["InstanceGroupName"])
        for g in groups:
            self._check_group(g)
        auto = p.get("AutoScaling")
        self._check_autoscaling(auto, p.get("ClusterRole"), p.get("NodeProvisioningMode"), orch)
        self._check_quota(name, {g["InstanceGroupName"]: g for g in groups})
        now = self.clock.now()
        cid = secrets.token_hex(6)
        c = {"ClusterName": name, "ClusterArn": self._arn("cluster", cid), "ClusterStatus": "Creating",
             "CreationTime": now, "NodeRecovery": p.get("NodeRecovery") or "Automatic",
             "_groups": {}, "_op": "create", "_tags": p.get("Tags") or []}
        for k in ("Orchestrator", "VpcConfig", "TieredStorageConfig", "NodeProvisioningMode", "ClusterRole"):
            if p.get(k) is not None:
                c[k] = p[k]
        if auto:
            c["AutoScaling"] = dict(auto, Status="Creating" if auto.get("Mode") == "Enable" else "InService")
            c["_as_ready"] = now
        for g in groups:
            c["_groups"][g["InstanceGroupName"]] = {"spec": g, "Status": "Creating"}
            if g["InstanceGroupName"] in restricted:
                c["_groups"][g["InstanceGroupName"]]["restricted"] = True
        problem = self._capacity_problem(c, names)
        if problem:
            c["_fail_at"] = self.clock.due(stable_rand(name, *CAPACITY_FAIL_AFTER), now)
            c["_fail_msg"] = problem
        self._save(c)
        for g in groups:
            for i in range(g["InstanceCount"]):
                self._new_node(c, g["InstanceGroupName"], now, index=i)
        self._event(c, "Cluster", "Cluster creation started.")
        return {"ClusterArn": c["ClusterArn"]}

    def _group_details(self, c, gname, entry, nodes):
        g = entry["spec"]
        mine = [n for n in nodes if n["InstanceGroupName"] == gname]
        live = [n for n in mine if n["InstanceStatus"]["Status"] in ("Running", "Failure", "SystemUpdating")]
        out = {"CurrentCount": len(live), "TargetCount": g["InstanceCount"],
               "InstanceGroupName": gname, "Status": entry["Status"]}
        for k in ("MinInstanceCount", "InstanceType", "LifeCycleConfig", "ExecutionRole", "ThreadsPerCore",
                  "InstanceStorageConfigs", "OnStartDeepHealthChecks", "TrainingPlanArn",
                  "OverrideVpcConfig", "ScheduledUpdateConfig", "AutoPatchConfig",
                  "CapacityRequirements"):
            if g.get(k) is not None:
                out["MinCount" if k == "MinInstanceCount" else k] = g[k]
        if g.get("InstanceRequirements"):
            out["InstanceRequirements"] = {"CurrentInstanceTypes": g["InstanceRequirements"]["InstanceTypes"][:1],
                                           "DesiredInstanceTypes": g["InstanceRequirements"]["InstanceTypes"]}
        if "ThreadsPerCore" not in out:
            out["ThreadsPerCore"] = 2
        if g.get("TrainingPlanArn"):
            plan = self._plan_by_arn(g["TrainingPlanArn"])
            out["TrainingPlanStatus"] = plan["Status"] if plan else "NotFound"
        if g.get("KubernetesConfig"):
            kc = g["KubernetesConfig"]
            out["KubernetesConfig"] = {"CurrentLabels": kc.get("Labels", {}), "DesiredLabels": kc.get("Labels", {}),
                                       "CurrentTaints": kc.get("Taints", []), "DesiredTaints": kc.get("Taints", [])}
        if g.get("NetworkInterface"):
            out["NetworkInterface"] = g["NetworkInterface"]
        out["CurrentImageReleaseVersion"] = entry.get("image", IMAGE_VERSION)
        out["DesiredImageReleaseVersion"] = entry.get("desired_image", g.get("ImageReleaseVersion")
                                                      or entry.get("image", IMAGE_VERSION))
        out["ImageVersionStatus"] = "UpToDate"
        if entry.get("SoftwareUpdateStatus"):
            out["SoftwareUpdateStatus"] = entry["SoftwareUpdateStatus"]
        pending = len([n for n in mine if n["InstanceStatus"]["Status"] == "Pending"])
        if entry["Status"] == "Updating" and pending:
            out["ActiveOperations"] = {"Scaling": 1}
        return out

    def op_DescribeCluster(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        nodes = self._nodes(c["ClusterName"])
        out = {"ClusterArn": c["ClusterArn"], "ClusterName": c["ClusterName"],
               "ClusterStatus": c["ClusterStatus"], "CreationTime": c["CreationTime"],
               "InstanceGroups": [self._group_details(c, n, e, nodes) for n, e in c["_groups"].items()
                                  if not e.get("restricted")],
               "NodeRecovery": c["NodeRecovery"]}
        rigs = [{k: v for k, v in self._group_details(c, n, e, nodes).items() if k in RIG_DETAIL_KEYS}
                for n, e in c["_groups"].items() if e.get("restricted")]
        if rigs:
            out["RestrictedInstanceGroups"] = rigs
        for k in ("FailureMessage", "Orchestrator", "VpcConfig", "TieredStorageConfig",
                  "NodeProvisioningMode", "ClusterRole", "AutoScaling"):
            if c.get(k) is not None:
                out[k] = c[k]
        return out

    def op_ListClusters(self, ctx, p):
        items = list(self.store.values("sm:clusters"))
        if p.get("NameContains"):
            items = [c for c in items if p["NameContains"] in c["ClusterName"]]
        if p.get("CreationTimeAfter") is not None:
            items = [c for c in items if c["CreationTime"] > _ts(p["CreationTimeAfter"])]
        if p.get("CreationTimeBefore") is not None:
            items = [c for c in items if c["CreationTime"] < _ts(p["CreationTimeBefore"])]
        if p.get("TrainingPlanArn"):
            items = [c for c in items if p["TrainingPlanArn"] in self._plans_of(c)]
        key = (lambda c: c["ClusterName"]) if p.get("SortBy") == "NAME" else (lambda c: c["CreationTime"])
        items.sort(key=key, reverse=(p.get("SortOrder", "Descending") == "Descending"))
        items, token = page(items, p.get("MaxResults"), p.get("NextToken"))
        out = {"ClusterSummaries": []}
        for c in items:
            s = {"ClusterArn": c["ClusterArn"], "ClusterName": c["ClusterName"],
                 "CreationTime": c["CreationTime"], "ClusterStatus": c["ClusterStatus"]}
            plans = self._plans_of(c)
            if plans:
                s["TrainingPlanArns"] = plans
            out["ClusterSummaries"].append(s)
        if token:
            out["NextToken"] = token
        return out

    def _plans_of(self, c):
        return sorted({e["spec"]["TrainingPlanArn"] for e in c["_groups"].values()
                       if e["spec"].get("TrainingPlanArn")})

    def op_DeleteCluster(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        if c["ClusterStatus"] != "Deleting":
            now = self.clock.now()
            c["ClusterStatus"] = "Deleting"
            c["_gone"] = self.clock.due(stable_rand(c["ClusterArn"], *DELETE_CLUSTER), now)
            c.pop("_fail_at", None)
            for e in c["_groups"].values():
                e["Status"] = "Deleting"
            self._save(c)
            for n in self._nodes(c["ClusterName"]):
                self._shutdown(n, now)
        return {"ClusterArn": c["ClusterArn"]}

    def _shutdown(self, n, now):
        n["InstanceStatus"] = {"Status": "ShuttingDown", "Message": ""}
        n["_next"] = self.clock.due(SHUTDOWN, now)
        self._save_node(n)

    def op_UpdateCluster(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        if c["ClusterStatus"] != "InService":
            raise AwsError("ConflictException", "Cluster %s is in %s status. Updates are only allowed "
                           "when the cluster is InService." % (c["ClusterArn"], c["ClusterStatus"]), 400)
        both = _with_restricted(p, c.get("Orchestrator"))
        groups = [g for g, _ in both]
        restricted = {g["InstanceGroupName"] for g, r in both if r}
        to_delete = as_list(p.get("InstanceGroupsToDelete"))
        for gname in to_delete:
            if gname not in c["_groups"]:
                raise _val("Instance group %s does not exist in cluster %s." % (gname, c["ClusterName"]))
        for g in groups:
            self._check_group(g)
            old = c["_groups"].get(g["InstanceGroupName"])
            if old and old["spec"].get("InstanceType") != g.get("InstanceType"):
                raise _val("InstanceType of an existing instance group (%s) cannot be changed." % g["InstanceGroupName"])
            if g["InstanceGroupName"] in to_delete:
                raise _val("Instance group %s cannot be both updated and deleted." % g["InstanceGroupName"])
        merged = {n: e["spec"] for n, e in c["_groups"].items() if n not in to_delete}
        for g in groups:
            merged[g["InstanceGroupName"]] = g
        self._check_quota(c["ClusterName"], merged)
        now = self.clock.now()
        changed = []
        for g in groups:
            gname = g["InstanceGroupName"]
            entry = c["_groups"].get(gname)
            if entry is None:
                c["_groups"][gname] = {"spec": g, "Status": "Creating"}
                if gname in restricted:
                    c["_groups"][gname]["restricted"] = True
                changed.append(gname)
                continue
            entry["spec"] = g
            if g["InstanceCount"] != len([n for n in self._nodes(c["ClusterName"])
                                          if n["InstanceGroupName"] == gname
                                          and n["InstanceStatus"]["Status"] != "ShuttingDown"]):
                entry["Status"] = "Updating"
                changed.append(gname)
        for gname in to_delete:
            c["_groups"][gname]["Status"] = "Deleting"
            c["_groups"][gname]["_deleting"] = True
        auto = p.get("AutoScaling")
        self._check_autoscaling(auto, p.get("ClusterRole") or c.get("ClusterRole"),
                                p.get("NodeProvisioningMode") or c.get("NodeProvisioningMode"), c.get("Orchestrator"))
        for k in ("NodeRecovery", "TieredStorageConfig", "NodeProvisioningMode", "ClusterRole"):
            if p.get(k) is not None:
                c[k] = p[k]
        if auto and auto.get("Mode") != (c.get("AutoScaling") or {}).get("Mode", "Disable"):
            enable = auto["Mode"] == "Enable"
            c["AutoScaling"] = {"Mode": auto["Mode"], "Status": "Creating" if enable else "Deleting"}
            if enable:
                c["AutoScaling"]["AutoScalerType"] = auto.get("AutoScalerType", "Karpenter")
            c["_as_ready"] = self.clock.due(stable_rand(c["ClusterArn"] + auto["Mode"], *AUTOSCALING_CHANGE), now)
        if changed or to_delete:
            c["ClusterStatus"] = "Updating"
            c["_op"] = "update"
            c.pop("FailureMessage", None)
            problem = self._capacity_problem(c, [g for g in changed if len(self._live(c, g)) < c["_groups"][g]["spec"]["InstanceCount"]])
            if problem:
                c["_fail_at"] = self.clock.due(stable_rand(c["ClusterArn"] + str(now), *CAPACITY_FAIL_AFTER), now)
                c["_fail_msg"] = problem
        self._save(c)
        for gname in changed:
            self._reconcile_group(c, gname, now)
        for gname in to_delete:
            for n in self._nodes(c["ClusterName"]):
                if n["InstanceGroupName"] == gname and n["InstanceStatus"]["Status"] != "ShuttingDown":
                    self._shutdown(n, now)
        return {"ClusterArn": c["ClusterArn"]}

    def _live(self, c, gname):
        return [n for n in self._nodes(c["ClusterName"]) if n["InstanceGroupName"] == gname
                and n["InstanceStatus"]["Status"] != "ShuttingDown"]

    def _reconcile_group(self, c, gname, now):
        want = c["_groups"][gname]["spec"]["InstanceCount"]
        live = sorted(self._live(c, gname), key=lambda n: n["LaunchTime"])
        if len(live) < want:
            for i in range(want - len(live)):
                self._new_node(c, gname, now, index=len(live) + i)
        elif len(live) > want:
            for n in live[want:]:
                self._shutdown(n, now)

    def op_ListClusterNodes(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        nodes = self._nodes(c["ClusterName"])
        if p.get("InstanceGroupNameContains"):
            nodes = [n for n in nodes if p["InstanceGroupNameContains"] in n["InstanceGroupName"]]
        if p.get("CreationTimeAfter") is not None:
            nodes = [n for n in nodes if n["LaunchTime"] > _ts(p["CreationTimeAfter"])]
        if p.get("CreationTimeBefore") is not None:
            nodes = [n for n in nodes if n["LaunchTime"] < _ts(p["CreationTimeBefore"])]
        key = (lambda n: n["InstanceId"]) if p.get("SortBy") == "NAME" else (lambda n: (n["LaunchTime"], n["InstanceId"]))
        nodes.sort(key=key, reverse=(p.get("SortOrder", "Ascending") == "Descending"))
        nodes, token = page(nodes, p.get("MaxResults"), p.get("NextToken"))
        out = {"ClusterNodeSummaries": []}
        for n in nodes:
            s = {k: n[k] for k in ("InstanceGroupName", "InstanceId", "InstanceType", "LaunchTime",
                                   "InstanceStatus", "PrivateDnsHostname", "CurrentImageReleaseVersion",
                                   "ImageVersionStatus")}
            if n.get("NodeLogicalId") and (p.get("IncludeNodeLogicalIds") or c.get("NodeProvisioningMode") == "Continuous"):
                s["NodeLogicalId"] = n["NodeLogicalId"]
            if n.get("LastSoftwareUpdateTime"):
                s["LastSoftwareUpdateTime"] = n["LastSoftwareUpdateTime"]
            out["ClusterNodeSummaries"].append(s)
        out["NextToken"] = token or ""
        return out

    def _node(self, c, node_id=None, logical=None):
        for n in self._nodes(c["ClusterName"]):
            if (node_id and n["InstanceId"] == node_id) or (logical and n.get("NodeLogicalId") == logical):
                return n
        return None

    def op_DescribeClusterNode(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        if bool(p.get("NodeId")) == bool(p.get("NodeLogicalId")):
            raise _val("Exactly one of NodeId or NodeLogicalId must be specified.")
        n = self._node(c, p.get("NodeId"), p.get("NodeLogicalId"))
        if n is None:
            raise _nf("Node %s not found in cluster %s." % (p.get("NodeId") or p.get("NodeLogicalId"), c["ClusterArn"]))
        out = {k: v for k, v in n.items() if not k.startswith("_")}
        out["LifeCycleConfig"] = n.get("LifeCycleConfig") or c["_groups"].get(n["InstanceGroupName"], {}).get("spec", {}).get("LifeCycleConfig")
        out["DesiredImageReleaseVersion"] = out.get("CurrentImageReleaseVersion")
        if out.get("LifeCycleConfig") is None:
            out.pop("LifeCycleConfig")
        return {"NodeDetails": out}

    def _batch(self, c, p, code_key, notfound_code, allowed, action):
        ok, failed = [], []
        for nid in as_list(p.get("NodeIds")):
            n = self._node(c, nid)
            if n is None:
                failed.append({"NodeId": nid, code_key: notfound_code, "Message": "Node %s not found." % nid})
            elif n["InstanceStatus"]["Status"] not in allowed:
                failed.append({"NodeId": nid, code_key: "InvalidNodeStatus" if code_key == "Code" else "InvalidInstanceStatus",
                               "Message": "Node %s is in %s status." % (nid, n["InstanceStatus"]["Status"])})
            else:
                action(n)
                ok.append(nid)
        lok, lfailed = [], []
        for lid in as_list(p.get("NodeLogicalIds")):
            n = self._node(c, logical=lid)
            if n is None:
                lfailed.append({"NodeLogicalId": lid, "ErrorCode": "InstanceIdNotFound" if code_key != "Code" else "NodeIdNotFound",
                                "Message": "Node %s not found." % lid})
            elif n["InstanceStatus"]["Status"] not in allowed:
                lfailed.append({"NodeLogicalId": lid, "ErrorCode": "InvalidInstanceStatus" if code_key != "Code" else "InvalidNodeStatus",
                                "Message": "Node %s is in %s status." % (lid, n["InstanceStatus"]["Status"])})
            else:
                action(n)
                lok.append(lid)
        out = {"Successful": ok, "Failed": failed}
        if p.get("NodeLogicalIds"):
            out["SuccessfulNodeLogicalIds"] = lok
            out["FailedNodeLogicalIds"] = lfailed
        return out

    def op_BatchDeleteClusterNodes(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        ids, lids = as_list(p.get("NodeIds")), as_list(p.get("NodeLogicalIds"))
        if not ids and not lids:
            raise _val("Specify NodeIds, NodeLogicalIds, or both.")
        if lids and len(ids) + len(lids) > BATCH_DELETE_MAX_IDS:
            raise _val("NodeIds and NodeLogicalIds together may name at most %d nodes (got %d)."
                       % (BATCH_DELETE_MAX_IDS, len(ids) + len(lids)))
        now = self.clock.now()

        def delete(n):
            self._shutdown(n, now)
            spec = c["_groups"][n["InstanceGroupName"]]["spec"]
            spec["InstanceCount"] = max(0, spec["InstanceCount"] - 1)
        out = self._batch(c, p, "Code", "NodeIdNotFound", ("Running", "Failure", "Pending", "DeepHealthCheckInProgress"), delete)
        self._save(c)
        return out

    def op_BatchRebootClusterNodes(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        now = self.clock.now()

        def reboot(n):
            n["InstanceStatus"] = {"Status": "Pending", "Message": "Rebooting"}
            n["_next"] = self.clock.due(REBOOT, now)
            n["_dhc"] = False
            n.pop("_failed", None)
            self._save_node(n)
        return self._batch(c, p, "ErrorCode", "InstanceIdNotFound", ("Running", "Failure"), reboot)

    def op_BatchReplaceClusterNodes(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        now = self.clock.now()

        def replace(n):
            self._replace(c, n, now)
        return self._batch(c, p, "ErrorCode", "InstanceIdNotFound", ("Running", "Failure"), replace)

    def _replace(self, c, n, now):
        self._shutdown(n, now)
        new = self._new_node(c, n["InstanceGroupName"], now)
        if n.get("NodeLogicalId"):
            new["NodeLogicalId"] = n["NodeLogicalId"]
            self._save_node(new)
        self._event(c, "Instance", "Instance %s replaced by %s." % (n["InstanceId"], new["InstanceId"]),
                    n["InstanceGroupName"], n["InstanceId"])
        return new

    def op_BatchAddClusterNodes(self, ctx, p):
        """Continuous-mode clusters only; at most 50 nodes a call in all.
        A ClientToken seen in the last 8 hours with the same NodesToAdd
        answers the nodes it added then, with their latest status, and
        adds nothing; with other NodesToAdd it is refused."""
        c = self._cluster(p["ClusterName"])
        if c.get("NodeProvisioningMode") != "Continuous":
            raise _val("BatchAddClusterNodes is only supported for clusters with NodeProvisioningMode "
                       "set to Continuous.")
        specs = as_list(p.get("NodesToAdd"))
        total = sum(s["IncrementTargetCountBy"] for s in specs)
        if total > BATCH_ADD_MAX_NODES:
            raise _val("The total number of nodes to add (%d) exceeds the maximum of %d per request."
                       % (total, BATCH_ADD_MAX_NODES))
        names = [s["InstanceGroupName"] for s in specs]
        if len(set(names)) != len(names):
            raise _val("Each instance group may appear only once in NodesToAdd.")
        now = self.clock.now()
        token = p.get("ClientToken")
        key = "%s|%s" % (c["ClusterArn"], token)
        asked = json.dumps(specs, sort_keys=True)
        seen = self.store.get("sm:addtokens", key) if token else None
        if seen is not None and now < seen["expires"]:
            if seen["asked"] != asked:
                raise _val("ClientToken %s was already used with different parameters in the last "
                           "8 hours." % token)
            return self._added(c, seen)
        merged = {n: e["spec"] for n, e in c["_groups"].items()}
        for s in specs:
            if s["InstanceGroupName"] in merged:
                g = merged[s["InstanceGroupName"]]
                merged[s["InstanceGroupName"]] = dict(g, InstanceCount=g["InstanceCount"] + s["IncrementTargetCountBy"])
        self._check_quota(c["ClusterName"], merged)
        added, failed = [], []
        for spec in specs:
            gname = spec["InstanceGroupName"]
            e = c["_groups"].get(gname)
            why = self._add_refusal(c, gname, e)
            if why:
                failed.append(dict(why, InstanceGroupName=gname, FailedCount=spec["IncrementTargetCountBy"]))
                continue
            e["spec"]["InstanceCount"] += spec["IncrementTargetCountBy"]
            live = len(self._live(c, gname))
            for i in range(spec["IncrementTargetCountBy"]):
                n = self._new_node(c, gname, now, index=live + i)
                if not n.get("NodeLogicalId"):
                    n["NodeLogicalId"] = "%s-%s" % (gname, secrets.token_hex(6))
                    self._save_node(n)
                added.append({"NodeLogicalId": n["NodeLogicalId"], "InstanceGroupName": gname})
        self._save(c)
        rec = {"asked": asked, "added": added, "failed": failed,
               "expires": self.clock.due(CLIENT_TOKEN_TTL, now)}
        if token:
            self.store.put("sm:addtokens", key, rec)
        return self._added(c, rec)

    def _add_refusal(self, c, gname, e):
        if e is None:
            return {"ErrorCode": "InstanceGroupNotFound", "Message": "Instance group %s not found." % gname}
        if e.get("_deleting") or e["Status"] in ("Deleting", "Failed") or \
                c["ClusterStatus"] in ("Deleting", "Failed"):
            return {"ErrorCode": "InvalidInstanceGroupStatus",
                    "Message": "Instance group %s is in %s status." % (gname, e["Status"])}
        return None

    def _added(self, c, rec):
        """A BatchAddClusterNodes answer: the nodes added, with their status now."""
        ok = []
        for a in rec["added"]:
            n = self._node(c, logical=a["NodeLogicalId"])
            ok.append(dict(a, Status=n["InstanceStatus"]["Status"] if n else "NotFound"))
        return {"Successful": ok, "Failed": [dict(f) for f in rec["failed"]]}

    def op_UpdateClusterSoftware(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        if c["ClusterStatus"] != "InService":
            raise AwsError("ConflictException", "Cluster %s is in %s status." % (c["ClusterArn"], c["ClusterStatus"]), 400)
        specs = {g["InstanceGroupName"]: g for g in as_list(p.get("InstanceGroups"))}
        groups = list(specs) or list(c["_groups"])
        for gname in groups:
            if gname not in c["_groups"]:
                raise _val("Instance group %s does not exist in cluster %s." % (gname, c["ClusterName"]))
            self._check_release((specs.get(gname) or {}).get("ImageReleaseVersion"), gname)
        self._check_deployment(p.get("DeploymentConfig"), c["ClusterName"])
        now = self.clock.now()
        c["ClusterStatus"] = "SystemUpdating"
        c["_op"] = "software"
        c["_sw_done"] = self.clock.due(SOFTWARE_UPDATE, now)
        for gname in groups:
            e = c["_groups"][gname]
            e["Status"] = "SystemUpdating"
            e["SoftwareUpdateStatus"] = "InProgress"
            e["desired_image"] = (specs.get(gname) or {}).get("ImageReleaseVersion") or IMAGE_LATEST
            if p.get("DeploymentConfig"):
                e["deployment"] = p["DeploymentConfig"]
        self._save(c)
        for n in self._nodes(c["ClusterName"]):
            if n["InstanceGroupName"] in groups and n["InstanceStatus"]["Status"] == "Running":
                n["InstanceStatus"] = {"Status": "SystemUpdating", "Message": ""}
                self._save_node(n)
        return {"ClusterArn": c["ClusterArn"]}

    def op_StartClusterHealthCheck(self, ctx, p):
        """On-demand deep health checks: every named node must be Running;
        each goes DeepHealthCheckInProgress, then Running (passed) or
        Failure (failed, replaced when NodeRecovery is Automatic)."""
        c = self._cluster(p["ClusterName"])
        if not self.eks_name(c):
            raise _val("Deep health checks are only supported for clusters orchestrated by Amazon EKS.")
        if c["ClusterStatus"] != "InService":
            raise AwsError("ConflictException", "Cluster %s is in %s status." % (c["ClusterArn"], c["ClusterStatus"]), 400)
        now = self.clock.now()
        chosen = []
        for cfg in as_list(p.get("DeepHealthCheckConfigurations")):
            gname = cfg["InstanceGroupName"]
            if gname not in c["_groups"]:
                raise _val("Instance group %s does not exist in cluster %s." % (gname, c["ClusterName"]))
            mine = {n["InstanceId"]: n for n in self._nodes(c["ClusterName"]) if n["InstanceGroupName"] == gname}
            ids = as_list(cfg.get("InstanceIds")) or sorted(mine)
            for iid in ids:
                n = mine.get(iid)
                if n is None:
                    raise _val("Instance %s does not belong to instance group %s." % (iid, gname))
                if n["InstanceStatus"]["Status"] != "Running":
                    raise _val("Instance %s is in %s status; deep health checks can only run on Running "
                               "instances." % (iid, n["InstanceStatus"]["Status"]))
                chosen.append((n, list(cfg["DeepHealthChecks"])))
        for n, checks in chosen:
            n["InstanceStatus"] = {"Status": "DeepHealthCheckInProgress",
                                   "Message": "Running deep health checks: %s." % ", ".join(checks)}
            n["_next"] = self.clock.due(stable_rand(n["InstanceId"] + "dhc", *DHC_TIME), now)
            n["_dhc"] = False
            n["_dhc_checks"] = checks
            self._save_node(n)
        return {"ClusterArn": c["ClusterArn"]}

    def _dhc_done(self, c, n, now):
        checks = ", ".join(n.pop("_dhc_checks", None) or ["InstanceStress", "InstanceConnectivity"])
        if n.pop("_dhc_fail", None):
            n["InstanceStatus"] = {"Status": "Failure", "Message": "Deep health checks failed (%s): %s" % (
                checks, n.pop("_dhc_fail_msg", "GPU stress test failed: DCGM diagnostic level 4 reported "
                              "an XID 79 error."))}
            n["_failed"] = now
            if c["NodeRecovery"] == "Automatic":
                n["_repair_at"] = self.clock.due(AUTO_REPAIR_AFTER, now)
        else:
            n["InstanceStatus"] = {"Status": "Running", "Message": "Deep health checks passed (%s)." % checks}
            n["_dhc_passed"] = True
        self._save_node(n)

    def op_ListClusterEvents(self, ctx, p):
        c = self._cluster(p["ClusterName"])
        evs = [e for e in self.store.values("sm:events") if e["ClusterArn"] == c["ClusterArn"]]
        for key, field in (("InstanceGroupName", "InstanceGroupName"), ("NodeId", "InstanceId"),
                           ("ResourceType", "ResourceType")):
            if p.get(key):
                evs = [e for e in evs if e.get(field) == p[key]]
        if p.get("EventTimeAfter") is not None:
            evs = [e for e in evs if e["EventTime"] > _ts(p["EventTimeAfter"])]
        if p.get("EventTimeBefore") is not None:
            evs = [e for e in evs if e["EventTime"] < _ts(p["EventTimeBefore"])]
        evs.sort(key=lambda e: e["EventTime"], reverse=p.get("SortOrder", "Descending") == "Descending")
        evs, token = page(evs, p.get("MaxResults"), p.get("NextToken"))
        out = {"Events": evs}
        if token:
            out["NextToken"] = token
        return out

    def op_DescribeClusterEvent(self, ctx, p):
        self._cluster(p["ClusterName"])
        ev = self.store.get("sm:events", p.get("EventId", ""))
        if ev is None:
            raise _nf("Event %s not found." % p.get("EventId"))
        return {"EventDetails": ev}

    # --- training plans -----------------------------------------------------
    def _plan_by_arn(self, arn):
        for plan in self.store.values("sm:plans"):
            if plan["TrainingPlanArn"] == arn:
                return plan
        return None

    def op_SearchTrainingPlanOfferings(self, ctx, p):
        if p.get("TrainingPlanArn"):
            return self._extension_offerings(p)
        itype = p.get("InstanceType") or "ml.p5.48xlarge"
        count = p.get("InstanceCount") or 1
        hours = p.get("DurationHours") or 24
        now = self.clock.now()
        # Capacity is offered from now on: a window asked for in the past
        # starts now, and one that must end before it can start has none.
        start = max(now, _ts(p["StartTimeAfter"])) if p.get("StartTimeAfter") is not None else now + 86400
        # Reserved capacity starts on the hour; an offering's id names
        # what it offers, so the same search finds the same offering.
        start = math.ceil(start / 3600) * 3600
        end_before = _ts(p["EndTimeBefore"]) if p.get("EndTimeBefore") is not None else None
        targets = p.get("TargetResources") or ["hyperpod-cluster"]
        offerings = []
        spec = catalog.spec(itype)
        zones = [z for z, _ in catalog.zones(self.world.region) if spec is None or catalog.offered_in(itype, z)]
        for i, az in enumerate(zones[:3]):
            st = start + i * 86400
            hrs = int(hours)
            if count > PLAN_POOL - self._reserved(itype, az, st, st + hrs * 3600):
                continue
            if end_before is not None and st + hrs * 3600 > end_before:
                continue
            oid = "tpo-sha256-%s" % _digest(itype, count, az, st, hrs, targets)
            rc = {"ReservedCapacityType": "Instance", "InstanceType": itype, "InstanceCount": count,
                  "AvailabilityZone": az, "DurationHours": hrs, "DurationMinutes": 0,
                  "StartTime": st, "EndTime": st + hrs * 3600}
            off = {"TrainingPlanOfferingId": oid, "TargetResources": targets,
                   "RequestedStartTimeAfter": start, "DurationHours": hrs, "DurationMinutes": 0,
                   "UpfrontFee": "%.2f" % (count * hrs * _plan_rate(itype)),
                   "CurrencyCode": "USD", "ReservedCapacityOfferings": [rc]}
            if end_before is not None:
                off["RequestedEndTimeBefore"] = end_before
            self.store.put("sm:offerings", oid, off)
            offerings.append(off)
        return {"TrainingPlanOfferings": offerings}

    def _reserved(self, itype, az, start, end):
        """Instances of a type in an AZ the account's live plans hold
        at some time in [start, end)."""
        n = 0
        for plan in self.store.values("sm:plans"):
            if plan["Status"] in ("Expired", "Failed"):
                continue
            for rc in plan["ReservedCapacitySummaries"]:
                if (rc["InstanceType"] == itype and rc["AvailabilityZone"] == az and
                        rc["StartTime"] < end and rc["EndTime"] > start):
                    n += rc["TotalInstanceCount"]
        return n

    def _extension_offerings(self, p):
        """Extension offerings of a plan (SearchTrainingPlanOfferings
        with TrainingPlanArn): its capacity, right after its end, in its
        AZ.  An expired or failed plan has none."""
        plan = self._plan_by_arn(p["TrainingPlanArn"])
        if plan is None:
            raise _nf("Training plan %s not found." % p["TrainingPlanArn"])
        out = {"TrainingPlanOfferings": [], "TrainingPlanExtensionOfferings": []}
        if plan["Status"] in ("Expired", "Failed"):
            return out
        hrs = int(p.get("DurationHours") or 24)
        rc0 = plan["ReservedCapacitySummaries"][0]
        count = rc0["TotalInstanceCount"]
        if count > PLAN_POOL - self._reserved(rc0["InstanceType"], rc0["AvailabilityZone"], plan["EndTime"],
                                              plan["EndTime"] + hrs * 3600):
            return out
        oid = "tpeo-sha256-%s" % _digest(plan["TrainingPlanArn"], plan["EndTime"], hrs)
        ext = {"TrainingPlanExtensionOfferingId": oid, "AvailabilityZone": rc0["AvailabilityZone"],
               "StartDate": plan["EndTime"], "EndDate": plan["EndTime"] + hrs * 3600, "DurationHours": hrs,
               "UpfrontFee": "%.2f" % (count * hrs * _plan_rate(rc0["InstanceType"])), "CurrencyCode": "USD"}
        self.store.put("sm:extoffers", oid, dict(ext, _plan=plan["TrainingPlanName"]))
        out["TrainingPlanExtensionOfferings"].append(ext)
        return out

    def op_ExtendTrainingPlan(self, ctx, p):
        oid = p["TrainingPlanExtensionOfferingId"]
        off = self.store.get("sm:extoffers", oid)
        plan = self.store.get("sm:plans", off["_plan"]) if off else None
        if off is None or plan is None:
            raise _nf("Training plan extension offering %s not found." % oid)
        if plan["Status"] in ("Expired", "Failed") or off["StartDate"] != plan["EndTime"]:
            raise _val("Training plan %s can no longer be extended by offering %s (it is %s)." % (
                plan["TrainingPlanName"], oid, plan["Status"]))
        now = self.clock.now()
        ext = {k: v for k, v in off.items() if not k.startswith("_")}
        ext.update({"ExtendedAt": now, "Status": "Pending", "PaymentStatus": "Pending",
                    "AvailabilityZoneId": catalog.zone_id(self.world.region, off["AvailabilityZone"]),
                    "_ready": self.clock.due(60, now)})
        plan["EndTime"] = off["EndDate"]
        plan["DurationHours"] = plan["DurationHours"] + off["DurationHours"]
        for rc in plan["ReservedCapacitySummaries"]:
            rc["EndTime"] = off["EndDate"]
            rc["DurationHours"] = rc["DurationHours"] + off["DurationHours"]
        plan.setdefault("_extensions", []).append(ext)
        self.store.put("sm:plans", plan["TrainingPlanName"], plan)
        self.store.delete("sm:extoffers", oid)
        return {"TrainingPlanExtensions": [{k: v for k, v in ext.items() if not k.startswith("_")}]}

    def op_DescribeTrainingPlanExtensionHistory(self, ctx, p):
        plan = self._plan_by_arn(p["TrainingPlanArn"])
        if plan is None:
            raise _nf("Training plan %s not found." % p["TrainingPlanArn"])
        exts = [{k: v for k, v in e.items() if not k.startswith("_")} for e in plan.get("_extensions", [])]
        exts, token = page(exts, p.get("MaxResults"), p.get("NextToken"))
        out = {"TrainingPlanExtensions": exts}
        if token:
            out["NextToken"] = token
        return out

    def op_CreateTrainingPlan(self, ctx, p):
        name = p["TrainingPlanName"]
        if self.store.get("sm:plans", name):
            raise AwsError("ResourceInUse", "Training plan %s already exists." % name, 400)
        off = self.store.get("sm:offerings", p["TrainingPlanOfferingId"])
        if off is None:
            raise _nf("Training plan offering %s not found." % p["TrainingPlanOfferingId"])
        rc0 = off["ReservedCapacityOfferings"][0]
        now = self.clock.now()
        arn = self._arn("training-plan", name)
        rc = {"ReservedCapacityArn": self._arn("reserved-capacity", "%s-%s" % (name, secrets.token_hex(4))),
              "ReservedCapacityType": "Instance", "InstanceType": rc0["InstanceType"],
              "TotalInstanceCount": rc0["InstanceCount"], "Status": "Pending",
              "AvailabilityZone": rc0["AvailabilityZone"],
              "AvailabilityZoneId": catalog.zone_id(self.world.region, rc0["AvailabilityZone"]),
              "DurationHours": rc0["DurationHours"], "DurationMinutes": 0,
              "StartTime": rc0["StartTime"], "EndTime": rc0["EndTime"]}
        plan = {"TrainingPlanArn": arn, "TrainingPlanName": name, "Status": "Pending",
                "StatusMessage": "Payment is being processed.",
                "DurationHours": off["DurationHours"], "DurationMinutes": 0,
                "StartTime": rc0["StartTime"], "EndTime": rc0["EndTime"], "UpfrontFee": off["UpfrontFee"],
                "CurrencyCode": "USD", "TotalInstanceCount": rc0["InstanceCount"],
                "AvailableInstanceCount": rc0["InstanceCount"], "InUseInstanceCount": 0,
                "TargetResources": off["TargetResources"], "ReservedCapacitySummaries": [rc],
                "_ready": self.clock.due(60, now), "_tags": p.get("Tags") or []}
        self.store.put("sm:plans", name, plan)
        self.store.delete("sm:offerings", p["TrainingPlanOfferingId"])
        return {"TrainingPlanArn": arn}

    def _plan_out(self, plan, summary=False):
        out = {k: v for k, v in plan.items() if not k.startswith("_")}
        used = 0
        for c in self.store.values("sm:clusters"):
            for e in c["_groups"].values():
                if e["spec"].get("TrainingPlanArn") == plan["TrainingPlanArn"] and c["ClusterStatus"] != "Deleting":
                    used += e["spec"]["InstanceCount"]
        out["InUseInstanceCount"] = used
        out["AvailableInstanceCount"] = max(0, plan["TotalInstanceCount"] - used)
        if not summary:
            out["UnhealthyInstanceCount"] = 0
            out["AvailableSpareInstanceCount"] = 0
        return out

    def op_DescribeTrainingPlan(self, ctx, p):
        plan = self.store.get("sm:plans", p["TrainingPlanName"])
        if plan is None:
            raise _nf("Training plan %s not found." % p["TrainingPlanName"])
        return self._plan_out(plan)

    def op_ListTrainingPlans(self, ctx, p):
        plans = list(self.store.values("sm:plans"))
        for f in as_list(p.get("Filters")):
            if f.get("Name") == "Status":
                plans = [x for x in plans if x["Status"] == f.get("Value")]
        key = {"TrainingPlanName": lambda x: x["TrainingPlanName"], "Status": lambda x: x["Status"]}.get(
            p.get("SortBy"), lambda x: x["StartTime"])
        plans.sort(key=key, reverse=p.get("SortOrder", "Ascending") == "Descending")
        plans, token = page(plans, p.get("MaxResults"), p.get("NextToken"))
        out = {"TrainingPlanSummaries": [self._plan_out(x, True) for x in plans]}
        if token:
            out["NextToken"] = token
        return out

    # --- faults -------------------------------------------------------------
    def fail_node(self, cluster, node_id, message=None, when="now"):
        """Fail a node now, or (when="health_check") make its next deep
        health check fail."""
        c = self._cluster(cluster)
        n = self._node(c, node_id) if node_id else next(
            (x for x in sorted(self._nodes(c["ClusterName"]), key=lambda x: x["LaunchTime"])
             if x["InstanceStatus"]["Status"] == "Running"), None)
        if n is None:
            raise KeyError("node %s in cluster %s" % (node_id, cluster))
        if when == "health_check":
            n["_dhc_fail"] = True
            if message:
                n["_dhc_fail_msg"] = message
            self._save_node(n)
            return {k: v for k, v in n.items() if not k.startswith("_")}
        now = self.clock.now()
        n["InstanceStatus"] = {"Status": "Failure", "Message": message or
                               "Node health check failed: GPU XID 79 (GPU has fallen off the bus)."}
        n["_failed"] = now
        if c["NodeRecovery"] == "Automatic":
            n["_repair_at"] = self.clock.due(AUTO_REPAIR_AFTER, now)
        self._save_node(n)
        entry = c["_groups"].get(n["InstanceGroupName"])
        if entry and entry["Status"] == "InService":
            entry["Status"] = "Degraded"
            self._save(c)
        self._event(c, "Instance", "Instance %s failed health checks." % n["InstanceId"],
                    n["InstanceGroupName"], n["InstanceId"], level="Error")
        return {k: v for k, v in n.items() if not k.startswith("_")}

    # --- state machine -------------------------------------------------------
    def advance(self, now):
        for c in list(self.store.values("sm:clusters")):
            self._advance_cluster(c, now)
            c = self.store.get("sm:clusters", c["ClusterName"])
            if c is not None and c.get("AutoScaling"):
                self._advance_autoscaling(c, now)
        for name, plan in list(self.store.all("sm:plans").items()):
            if plan["Status"] == "Pending" and now >= plan["_ready"]:
                plan["Status"] = "Active" if plan["StartTime"] <= now else "Scheduled"
                plan["StatusMessage"] = ""
                for rc in plan["ReservedCapacitySummaries"]:
                    rc["Status"] = plan["Status"]
                self.store.put("sm:plans", name, plan)
            elif plan["Status"] == "Scheduled" and plan["StartTime"] <= now:
                plan["Status"] = "Active"
                for rc in plan["ReservedCapacitySummaries"]:
                    rc["Status"] = "Active"
                self.store.put("sm:plans", name, plan)
            if plan["Status"] in ("Active", "Scheduled") and plan["EndTime"] <= now:
                plan["Status"] = "Expired"
                plan["StatusMessage"] = "The training plan's reserved capacity has ended."
                for rc in plan["ReservedCapacitySummaries"]:
                    rc["Status"] = "Expired"
                self.store.put("sm:plans", name, plan)
            for ext in plan.get("_extensions", []):
                if ext["PaymentStatus"] == "Pending" and now >= ext["_ready"]:
                    ext["Status"], ext["PaymentStatus"] = "Active", "Completed"
                    self.store.put("sm:plans", name, plan)
        self.advance_governance(now)
        self.advance_volumes(now)
        self.advance_mlflow_apps(now)
        self._sync_kubernetes()

    def _advance_cluster(self, c, now):
        cname = c["ClusterName"]
        nodes = self._nodes(cname)
        for n in nodes:
            st = n["InstanceStatus"]["Status"]
            if st == "ShuttingDown" and now >= n["_next"]:
                self.store.delete("sm:nodes", n["InstanceId"])
            elif st == "Pending" and now >= n["_next"] and not c.get("_fail_at"):
                if n.get("_dhc"):
                    n["InstanceStatus"] = {"Status": "DeepHealthCheckInProgress", "Message": ""}
                    n["_next"] = self.clock.due(stable_rand(n["InstanceId"] + "dhc", *DHC_TIME), n["_next"])
                    n["_dhc"] = False
                else:
                    n["InstanceStatus"] = {"Status": "Running", "Message": ""}
                self._save_node(n)
            elif st == "DeepHealthCheckInProgress" and now >= n["_next"]:
                self._dhc_done(c, n, now)
            elif st == "Failure" and n.get("_repair_at") and now >= n["_repair_at"] \
                    and c["ClusterStatus"] not in ("Deleting",):
                n.pop("_repair_at", None)
                self._save_node(n)
                self._replace(c, n, now)
        nodes = self._nodes(cname)
        status = c["ClusterStatus"]
        if status in ("Creating", "Updating") and c.get("_fail_at") and now >= c["_fail_at"]:
            c["ClusterStatus"] = "Failed"
            c["FailureMessage"] = c.pop("_fail_msg", "Cluster provisioning failed.")
            c.pop("_fail_at", None)
            for e in c["_groups"].values():
                if e["Status"] in ("Creating", "Updating"):
                    e["Status"] = "Failed"
            for n in nodes:
                if n["InstanceStatus"]["Status"] in ("Pending", "DeepHealthCheckInProgress"):
                    self._shutdown(n, now)
            self._save(c)
            return
        if status in ("Creating", "Updating"):
            done = True
            changed = False
            for gname, e in list(c["_groups"].items()):
                mine = [n for n in nodes if n["InstanceGroupName"] == gname]
                if e.get("_deleting"):
                    if mine:
                        done = False
                    else:
                        del c["_groups"][gname]
                        changed = True
                    continue
                running = [n for n in mine if n["InstanceStatus"]["Status"] in ("Running", "Failure")]
                pending = [n for n in mine if n["InstanceStatus"]["Status"] in ("Pending", "DeepHealthCheckInProgress", "ShuttingDown")]
                if len(running) >= e["spec"]["InstanceCount"] and not pending:
                    if e["Status"] in ("Creating", "Updating"):
                        e["Status"] = "InService"
                        changed = True
                else:
                    done = False
            if done:
                c["ClusterStatus"] = "InService"
                c.pop("_op", None)
                changed = True
            # Written only when it changed: a cluster waiting for its
            # nodes costs no write per request.
            if changed or c.get("_seen") != c["ClusterStatus"]:
                self._save(c)
        elif status == "SystemUpdating" and now >= c.get("_sw_done", 0):
            for e in c["_groups"].values():
                if e.get("SoftwareUpdateStatus") == "InProgress":
                    e["SoftwareUpdateStatus"] = "Succeeded"
                    e["image"] = e.get("desired_image", IMAGE_VERSION)
                    e["Status"] = "InService"
            for n in nodes:
                if n["InstanceStatus"]["Status"] == "SystemUpdating":
                    n["InstanceStatus"] = {"Status": "Running", "Message": ""}
                    n["LastSoftwareUpdateTime"] = now
                    n["CurrentImageReleaseVersion"] = c["_groups"].get(n["InstanceGroupName"], {}).get("image", IMAGE_VERSION)
                    self._save_node(n)
            c["ClusterStatus"] = "InService"
            self._save(c)
        elif status == "Deleting":
            if not nodes and now >= c.get("_gone", 0):
                self.store.delete("sm:clusters", cname)
                for key, ev in list(self.store.all("sm:events").items()):
                    if ev["ClusterArn"] == c["ClusterArn"]:
                        self.store.delete("sm:events", key)
                return
        if c["ClusterStatus"] == "InService":
            changed = False
            for gname, e in c["_groups"].items():
                mine = [n for n in nodes if n["InstanceGroupName"] == gname]
                bad = any(n["InstanceStatus"]["Status"] == "Failure" for n in mine)
                want = "Degraded" if bad else "InService"
                if e["Status"] in ("InService", "Degraded") and e["Status"] != want:
                    e["Status"] = want
                    changed = True
            if changed:
                self._save(c)

    def _advance_autoscaling(self, c, now):
        """AutoScaling Creating/Deleting -> InService; while enabled, HyperPod serves the
        Karpenter kinds in the EKS cluster and its Karpenter scales the groups."""
        a = c["AutoScaling"]
        kc = self.world.kube.clusters.get(self.eks_name(c) or "")
        if kc is None or kc.server is None:
            return
        if a.get("Status") in ("Creating", "Deleting") and now >= c.get("_as_ready", 0):
            if a["Mode"] == "Enable":
                karpenter.install_crds(kc)
                a["Status"] = "InService"
            else:
                karpenter.remove_crds(kc)
                c["AutoScaling"] = {"Mode": "Disable", "Status": "InService"}
            c.pop("_as_ready", None)
            self._event(c, "Cluster", "AutoScaling is %s." % ("enabled" if a["Mode"] == "Enable" else "disabled"))
            self._save(c)
            return
        if a.get("Mode") == "Enable" and a.get("Status") == "InService" and c["ClusterStatus"] == "InService":
            karpenter.nodeclass_status(kc, c, now_rfc3339(now))
            karpenter.Karpenter(self).reconcile(c, kc, now)

    def _sync_kubernetes(self):
        """Register nodes of EKS-orchestrated clusters as Kubernetes Nodes.
        Done again only when a cluster, a node or the set of running API
        servers changed since the last time, or a second has passed (an
        object changed on the Kubernetes side is put back)."""
        seen = (self.store.version("sm:nodes"), self.store.version("sm:clusters"),
                self.world.kube.servers_version())
        now = time.monotonic()
        where = (self.world.account, self.world.region)
        last = self._synced.get(where)
        if last is not None and last[0] == seen and now - last[1] < 1.0:
            return
        self._synced[where] = (seen, now)
        desired = {}
        for c in self.store.values("sm:clusters"):
            eks = self.eks_name(c)
            if not eks:
                continue
            for n in self._nodes(c["ClusterName"]):
                st = n["InstanceStatus"]["Status"]
                if st == "Pending" and n["InstanceStatus"].get("Message") == "Rebooting":
                    st = "Rebooting"  # a node rebooting keeps its Node object
                if st in ("Running", "Failure", "SystemUpdating", "DeepHealthCheckInProgress", "Rebooting"):
                    g = c["_groups"].get(n["InstanceGroupName"], {}).get("spec", {})
                    desired.setdefault(eks, []).append({
                        "cluster": c["ClusterName"], "instance_id": n["InstanceId"],
                        "group": n["InstanceGroupName"], "type": n["InstanceType"], "status": st,
                        "ip": n["PrivatePrimaryIp"], "hostname": n["PrivateDnsHostname"],
                        "az": n["Placement"]["AvailabilityZone"], "az_id": n["Placement"]["AvailabilityZoneId"],
                        "labels": (g.get("KubernetesConfig") or {}).get("Labels") or {},
                        "taints": (g.get("KubernetesConfig") or {}).get("Taints") or [],
                        "recovery": c["NodeRecovery"], "dhc": bool(g.get("OnStartDeepHealthChecks")),
                        "dhc_passed": bool(n.get("_dhc_passed")), "launch": n["LaunchTime"],
                        "capacity_type": n.get("CapacityType"), "logical_id": n.get("NodeLogicalId"),
                    })
        self.world.kube.sync_hyperpod_nodes(desired)

    def snapshot(self):
        return {"clusters": {n: c["ClusterStatus"] for n, c in self.store.all("sm:clusters").items()},
                "nodes": {i: n["InstanceStatus"]["Status"] for i, n in self.store.all("sm:nodes").items()},
                "training_plans": {n: p["Status"] for n, p in self.store.all("sm:plans").items()},
                "mlflow_apps": {a["Name"]: a["Status"] for a in self.store.values("sm:mlflow-apps")}}


def _digest(*parts):
    """32 hex digits naming what an offering offers."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def _plan_rate(itype):
    """The sandbox's training-plan price of one instance-hour."""
    return 31.46 if "p5" in itype else 12.0


def _ts(v):
    if isinstance(v, (int, float)):
        return float(v)
    import datetime
    try:
        return datetime.datetime.fromisoformat(str(v).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
