"""SageMaker HyperPod node volumes: AttachClusterNodeVolume and DetachClusterNodeVolume.

The rules are the model's documentation: the cluster (named by its ARN)
must be orchestrated by Amazon EKS and InService; the node must belong to
it and, to attach, be Running and not in a restricted instance group; the
EBS volume must exist and be available to attach, and be attached to that
node to detach.  EBS itself
attaches a volume only to an instance in its Availability Zone.  The
volume lives in the EC2 service's store (ec2.py add_volume; the trimmed
EC2 model has no volume operations, so tests create one through
/_sandbox/ec2/volumes): attaching -> in-use/attached after a few sandbox
seconds, detaching -> available.  A missing cluster, node or volume is
ResourceNotFound, every other refusal a ValidationException.
"""
from ..protocols import AwsError

ATTACH_TIME = 20        # sandbox seconds attaching -> attached
DETACH_TIME = 15        # sandbox seconds detaching -> detached
DEVICES = ["/dev/xvd" + c for c in "fghijklmnopqrstuvwxyz"]


def _nf(msg):
    return AwsError("ResourceNotFound", msg, 400)


def _val(msg):
    return AwsError("ValidationException", msg, 400)


class NodeVolumeMixin:
    """Mixed into SageMakerService (sagemaker.py)."""

    def _vol_cluster(self, arn):
        for c in self.store.values("sm:clusters"):
            if c["ClusterArn"] == arn:
                return c
        raise _nf("Cluster %s not found." % arn)

    def _vol_target(self, p, attach):
        """The cluster, node and volume of a request, checked as AWS does."""
        c = self._vol_cluster(p["ClusterArn"])
        if ((c.get("Orchestrator") or {}).get("Eks")) is None:
            raise _val("Cluster %s is not orchestrated by Amazon EKS: node volumes are supported "
                       "only on EKS-orchestrated clusters." % c["ClusterArn"])
        if c["ClusterStatus"] != "InService":
            raise _val("Cluster %s is in %s status; it must be InService." % (c["ClusterArn"], c["ClusterStatus"]))
        n = self._node(c, p["NodeId"])
        if n is None:
            raise _nf("Node %s not found in cluster %s." % (p["NodeId"], c["ClusterArn"]))
        entry = c["_groups"].get(n["InstanceGroupName"]) or {}
        if attach and entry.get("restricted"):
            raise _val("Node %s belongs to restricted instance group %s; volumes cannot be attached "
                       "to or detached from nodes of a restricted instance group."
                       % (p["NodeId"], n["InstanceGroupName"]))
        if attach and n["InstanceStatus"]["Status"] != "Running":
            raise _val("Node %s is in %s status; it must be Running." % (p["NodeId"], n["InstanceStatus"]["Status"]))
        vol = self.world.services["ec2"].volume(p["VolumeId"])
        if vol is None:
            raise _nf("Volume %s not found." % p["VolumeId"])
        return c, n, vol

    def _vol_answer(self, c, n, vol, att):
        return {"ClusterArn": c["ClusterArn"], "NodeId": n["InstanceId"], "VolumeId": vol["volumeId"],
                "AttachTime": att["_time"], "Status": att["status"], "DeviceName": att["device"]}

    def op_AttachClusterNodeVolume(self, ctx, p):
        c, n, vol = self._vol_target(p, True)
        if vol["state"] != "available":
            raise _val("Volume %s is in %s state; it must be available." % (vol["volumeId"], vol["state"]))
        if vol["availabilityZone"] != n["Placement"]["AvailabilityZone"]:
            raise _val("Volume %s is in Availability Zone %s and node %s in %s; a volume attaches only "
                       "to a node in its Availability Zone." % (
                           vol["volumeId"], vol["availabilityZone"], n["InstanceId"],
                           n["Placement"]["AvailabilityZone"]))
        ec2 = self.world.services["ec2"]
        used = {a["device"] for v in ec2.volumes() for a in v["_attachments"]
                if a["instanceId"] == n["InstanceId"]}
        device = next(d for d in DEVICES if d not in used)
        now = self.clock.now()
        att = {"instanceId": n["InstanceId"], "device": device, "status": "attaching",
               "_time": now, "_next": self.clock.due(ATTACH_TIME, now), "_cluster": c["ClusterName"]}
        vol["_attachments"] = [att]
        vol["state"] = "in-use"
        ec2.save_volume(vol)
        self._event(c, "Instance", "Volume %s is attaching to instance %s as %s." % (
            vol["volumeId"], n["InstanceId"], device), n["InstanceGroupName"], n["InstanceId"])
        return self._vol_answer(c, n, vol, att)

    def op_DetachClusterNodeVolume(self, ctx, p):
        c, n, vol = self._vol_target(p, False)
        att = next((a for a in vol["_attachments"] if a["instanceId"] == n["InstanceId"]), None)
        if att is None or att["status"] != "attached":
            raise _val("Volume %s is not attached to node %s%s." % (
                vol["volumeId"], n["InstanceId"], " (it is %s)" % att["status"] if att else ""))
        now = self.clock.now()
        att["status"] = "detaching"
        att["_next"] = self.clock.due(DETACH_TIME, now)
        self.world.services["ec2"].save_volume(vol)
        self._event(c, "Instance", "Volume %s is detaching from instance %s." % (
            vol["volumeId"], n["InstanceId"]), n["InstanceGroupName"], n["InstanceId"])
        return self._vol_answer(c, n, vol, att)

    def advance_volumes(self, now):
        """attaching -> attached, detaching -> gone (the volume available
        again); a volume whose node went away is released."""
        ec2 = self.world.services["ec2"]
        for vol in ec2.volumes():
            changed = False
            for att in list(vol["_attachments"]):
                node = self.store.get("sm:nodes", att["instanceId"])
                if att["status"] == "attaching" and now >= att["_next"]:
                    att["status"] = "attached"
                    changed = True
                elif (att["status"] == "detaching" and now >= att["_next"]) or node is None:
                    vol["_attachments"].remove(att)
                    changed = True
            if changed:
                if not vol["_attachments"]:
                    vol["state"] = "available"
                ec2.save_volume(vol)
