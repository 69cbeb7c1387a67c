"""EC2 (ec2 protocol): zones, instance-type catalogue and the VPC networking we create.

VPCs, subnets (CIDR inside the VPC, no overlap), internet gateways, elastic
IPs, NAT gateways (pending -> available, deleting -> deleted), route tables,
security groups, VPC endpoints and tags, with filters by id and tag and
EC2's own error codes (InvalidVpcID.NotFound, DependencyViolation,
InvalidSubnet.Conflict, ...) in the <Response><Errors> shape.  EBS volumes
are kept here for SageMaker's node volumes (sagemaker_vol.py); the trimmed
model has no volume operations, so they are made by add_volume
(/_sandbox/ec2/volumes).
"""
import ipaddress

from ..gateway import AwsService
from ..models import unflatten
from ..protocols import AwsError, Ec2Protocol, iso
from . import catalog
from .util import as_list, hexid, page, stable_rand, strip_private, wild

XMLNS = "http://ec2.amazonaws.com/doc/2016-11-15/"

KINDS = {
    # prefix: (space, NotFound code, noun for messages)
    "vpc": ("ec2:vpc", "InvalidVpcID.NotFound", "vpc ID"),
    "subnet": ("ec2:subnet", "InvalidSubnetID.NotFound", "subnet ID"),
    "igw": ("ec2:igw", "InvalidInternetGatewayID.NotFound", "internetGateway ID"),
    "eipalloc": ("ec2:eip", "InvalidAllocationID.NotFound", "allocation ID"),
    "nat": ("ec2:nat", "NatGatewayNotFound", "Nat Gateway"),
    "rtb": ("ec2:rtb", "InvalidRouteTableID.NotFound", "routeTable ID"),
    "sg": ("ec2:sg", "InvalidGroup.NotFound", "security group"),
    "vpce": ("ec2:vpce", "InvalidVpcEndpointId.NotFound", "VPC endpoint"),
}
RESOURCE_TYPES = {"vpc": "vpc", "subnet": "subnet", "igw": "internet-gateway",
                  "eipalloc": "elastic-ip", "nat": "natgateway", "rtb": "route-table",
                  "sg": "security-group", "vpce": "vpc-endpoint"}


def _bool(v):
    return str(v).lower() == "true"


def _tags_from_spec(p, rtype):
    tags = []
    for spec in as_list(p.get("TagSpecification")):
        if isinstance(spec, dict) and spec.get("ResourceType") in (rtype, None):
            for t in as_list(spec.get("Tag")):
                if isinstance(t, dict) and t.get("Key") is not None:
                    tags.append({"key": t["Key"], "value": t.get("Value", "")})
    return tags


class Ec2Service(AwsService):
    name = "ec2"
    protocol = Ec2Protocol("2016-11-15", XMLNS)
    lower_first = False

    def parse(self, ctx, req):
        op, flat = self.protocol.parse(req)
        return op, unflatten(flat)

    def model_params(self, op, params):
        return self.model.from_form(op, params, ec2=True)

    def validate(self, ctx, op, params):
        super().validate(ctx, op, params)

    def dispatch(self, ctx, op, params):
        if _bool(params.get("DryRun")):
            getattr(self, "op_" + op)  # exists (validated)
            raise AwsError("DryRunOperation", "Request would have succeeded, but DryRun flag is set.", 412)
        return super().dispatch(ctx, op, params)

    # --- helpers -----------------------------------------------------------
    def _kind(self, rid):
        prefix = (rid or "").split("-", 1)[0]
        return KINDS.get(prefix)

    def _get(self, rid, prefix):
        space, code, noun = KINDS[prefix]
        if not rid or not rid.startswith(prefix + "-"):
            mal = {"vpc": "InvalidVpcID.Malformed", "subnet": "InvalidSubnetID.Malformed",
                   "igw": "InvalidInternetGatewayID.Malformed", "rtb": "InvalidRouteTableID.Malformed",
                   "sg": "InvalidGroupId.Malformed", "eipalloc": "InvalidAllocationID.Malformed",
                   "nat": "InvalidParameter", "vpce": "InvalidVpcEndpointId.Malformed"}[prefix]
            raise AwsError(mal, 'Invalid id: "%s" (expecting "%s-...")' % (rid, prefix), 400)
        rec = self.store.get(space, rid)
        if rec is None or rec.get("_gone"):
            raise self._not_found(prefix, rid)
        return rec

    def _not_found(self, prefix, rid):
        space, code, noun = KINDS[prefix]
        if prefix == "nat":
            return AwsError(code, "The Nat Gateway %s was not found" % rid, 400)
        if prefix == "sg":
            return AwsError(code, "The security group '%s' does not exist" % rid, 400)
        if prefix == "eipalloc":
            return AwsError(code, "The allocation ID '%s' does not exist" % rid, 400)
        return AwsError(code, "The %s '%s' does not exist" % (noun, rid), 400)

    def _put(self, prefix, rec, rid):
        self.store.put(KINDS[prefix][0], rid, rec)

    def _owner(self):
        return self.world.account

    def _describe(self, prefix, p, id_param, filters, id_field):
        """Generic Describe: ids, filters, paging; returns sorted public records."""
        space = KINDS[prefix][0]
        ids = as_list(p.get(id_param))
        recs = [r for r in self.store.values(space) if not r.get("_gone")]
        if ids:
            found = {r[id_field]: r for r in recs}
            missing = [i for i in ids if i not in found]
            if missing:
                raise self._not_found(prefix, missing[0])
            recs = [found[i] for i in ids]
        for f in as_list(p.get("Filter")):
            if not isinstance(f, dict):
                continue
            name = f.get("Name")
            if not (name in filters or name in ("tag-key", "tag-value") or str(name).startswith("tag:")):
                raise AwsError("InvalidParameterValue", "The filter '%s' is invalid" % name, 400)
            values = [str(v) for v in as_list(f.get("Value"))]
            recs = [r for r in recs if self._match(r, name, values, filters)]
        recs.sort(key=lambda r: r.get("_created", 0))
        return recs

    def _match(self, rec, name, values, filters):
        if name and name.startswith("tag:"):
            key = name[4:]
            got = [t["value"] for t in rec.get("tagSet", []) if t["key"] == key]
        elif name == "tag-key":
            got = [t["key"] for t in rec.get("tagSet", [])]
        elif name == "tag-value":
            got = [t["value"] for t in rec.get("tagSet", [])]
        elif name in filters:
            got = filters[name](rec)
            if not isinstance(got, list):
                got = [got]
        else:
            raise AwsError("InvalidParameterValue", "The filter '%s' is invalid" % name, 400)
        got = ["true" if g is True else "false" if g is False else str(g) for g in got if g is not None]
        return any(wild(v, g) for v in values for g in got)

    def _paged(self, recs, p, key):
        max_results = p.get("MaxResults")
        items, token = page(recs, int(max_results) if max_results else None, p.get("NextToken"))
        out = {key: [strip_private(r) for r in items]}
        if token:
            out["nextToken"] = token
        return out

    # --- zones and instance types ---------------------------------------
    def op_DescribeAvailabilityZones(self, ctx, p):
        region = self.world.region
        items = [{"zoneState": "available", "optInStatus": "opt-in-not-required", "messageSet": [],
                  "regionName": region, "zoneName": n, "zoneId": z, "groupName": region,
                  "networkBorderGroup": region, "zoneType": "availability-zone", "state": "available"}
                 for n, z in catalog.zones(region)]
        names = as_list(p.get("ZoneName"))
        ids = as_list(p.get("ZoneId"))
        for n in names:
            if n not in [i["zoneName"] for i in items]:
                raise AwsError("InvalidParameterValue", "The zone '%s' does not exist." % n, 400)
        for z in ids:
            if z not in [i["zoneId"] for i in items]:
                raise AwsError("InvalidParameterValue", "The zone ID '%s' does not exist." % z, 400)
        if names or ids:
            items = [i for i in items if i["zoneName"] in names or i["zoneId"] in ids]
        filters = {"zone-name": lambda r: r["zoneName"], "zone-id": lambda r: r["zoneId"],
                   "region-name": lambda r: r["regionName"], "state": lambda r: r["state"],
                   "zone-type": lambda r: r["zoneType"], "group-name": lambda r: r["groupName"],
                   "opt-in-status": lambda r: r["optInStatus"]}
        for f in as_list(p.get("Filter")):
            items = [i for i in items if self._match(i, f.get("Name"), as_list(f.get("Value")), filters)]
        return {"availabilityZoneInfo": items}

    def op_DescribeInstanceTypeOfferings(self, ctx, p):
        lt = p.get("LocationType") or "region"
        if lt not in ("region", "availability-zone", "availability-zone-id"):
            raise AwsError("InvalidParameterValue", "Value (%s) for parameter locationType is invalid." % lt, 400)
        region = self.world.region
        items = []
        for t in sorted(catalog.TYPES):
            if lt == "region":
                items.append({"instanceType": t, "locationType": lt, "location": region})
                continue
            for zname, zid in catalog.zones(region):
                if catalog.offered_in(t, zname):
                    items.append({"instanceType": t, "locationType": lt,
                                  "location": zname if lt == "availability-zone" else zid})
        filters = {"instance-type": lambda r: r["instanceType"], "location": lambda r: r["location"]}
        for f in as_list(p.get("Filter")):
            items = [i for i in items if self._match(i, f.get("Name"), as_list(f.get("Value")), filters)]
        out = self._paged(items, p, "instanceTypeOfferingSet")
        return out

    def op_DescribeInstanceTypes(self, ctx, p):
        wanted = as_list(p.get("InstanceType"))
        bad = [t for t in wanted if t not in catalog.TYPES]
        if bad:
            raise AwsError("InvalidInstanceType", "The following supplied instance types do not "
                           "exist: [%s]" % ", ".join(bad), 400)
        names = wanted or sorted(catalog.TYPES)
        items = [catalog.describe(t) for t in names]
        filters = {
            "instance-type": lambda r: r["instanceType"],
            "current-generation": lambda r: r["currentGeneration"],
            "network-info.efa-supported": lambda r: r["networkInfo"]["efaSupported"],
            "processor-info.supported-architecture": lambda r: r["processorInfo"]["supportedArchitectures"],
            "vcpu-info.default-vcpus": lambda r: r["vCpuInfo"]["defaultVCpus"],
            "gpu-info.gpus.count": lambda r: [g["count"] for g in r.get("gpuInfo", {}).get("gpus", [])],
            "gpu-info.gpus.name": lambda r: [g["name"] for g in r.get("gpuInfo", {}).get("gpus", [])],
        }
        for f in as_list(p.get("Filter")):
            items = [i for i in items if self._match(i, f.get("Name"), as_list(f.get("Value")), filters)]
        return self._paged(items, p, "instanceTypeSet")

    # --- VPCs --------------------------------------------------------------
    def op_CreateVpc(self, ctx, p):
        cidr = p.get("CidrBlock")
        if not cidr:
            raise AwsError("MissingParameter", "Either 'cidrBlock' or 'ipv4IpamPoolId' should be provided.", 400)
        try:
            net = ipaddress.ip_network(cidr, strict=True)
        except ValueError:
            raise AwsError("InvalidParameterValue", "Value (%s) for parameter cidrBlock is invalid. "
                           "This is not a valid CIDR block." % cidr, 400)
        if net.version != 4 or not (16 <= net.prefixlen <= 28):
            raise AwsError("InvalidVpc.Range", "The CIDR '%s' is invalid." % cidr, 400)
        vid = hexid("vpc")
        now = self.clock.now()
        rec = {"vpcId": vid, "ownerId": self._owner(), "instanceTenancy": p.get("InstanceTenancy") or "default",
               "cidrBlockAssociationSet": [{"associationId": hexid("vpc-cidr-assoc"), "cidrBlock": cidr,
                                            "cidrBlockState": {"state": "associated"}}],
               "isDefault": False, "tagSet": _tags_from_spec(p, "vpc"), "state": "pending",
               "cidrBlock": cidr, "dhcpOptionsId": "dopt-0sandbox",
               "_created": now, "_ready": self.clock.due(2)}
        self._put("vpc", rec, vid)
        # main route table and default security group, like EC2
        rtb = self._new_rtb(vid, main=True)
        self._put("rtb", rtb, rtb["routeTableId"])
        sg = self._new_sg(vid, "default", "default VPC security group")
        self._put("sg", sg, sg["groupId"])
        return {"vpc": strip_private(rec)}

    def _vpc_filters(self):
        return {"vpc-id": lambda r: r["vpcId"], "cidr": lambda r: r["cidrBlock"],
                "cidr-block-association.cidr-block": lambda r: r["cidrBlock"],
                "state": lambda r: r["state"], "is-default": lambda r: r["isDefault"],
                "owner-id": lambda r: r["ownerId"], "dhcp-options-id": lambda r: r["dhcpOptionsId"]}

    def op_DescribeVpcs(self, ctx, p):
        recs = self._describe("vpc", p, "VpcId", self._vpc_filters(), "vpcId")
        return self._paged(recs, p, "vpcSet")

    def op_ModifyVpcAttribute(self, ctx, p):
        """One attribute per call, as EC2 requires."""
        vpc = self._get(p.get("VpcId"), "vpc")
        attrs = [k for k in ("EnableDnsHostnames", "EnableDnsSupport",
                             "EnableNetworkAddressUsageMetrics") if isinstance(p.get(k), dict)]
        if len(attrs) != 1:
            raise AwsError("InvalidParameterCombination",
                           "Fields for multiple attribute types specified: only one attribute "
                           "can be modified at a time.", 400)
        key = attrs[0][0].lower() + attrs[0][1:]
        vpc["_attr_" + key] = _bool(p[attrs[0]].get("Value"))
        self._put("vpc", vpc, vpc["vpcId"])
        return {"return": True}

    def op_DescribeVpcAttribute(self, ctx, p):
        vpc = self._get(p.get("VpcId"), "vpc")
        attr = p.get("Attribute")
        defaults = {"enableDnsSupport": True, "enableDnsHostnames": False,
                    "enableNetworkAddressUsageMetrics": False}
        if attr not in defaults:
            raise AwsError("InvalidParameterValue", "Value (%s) for parameter attribute is invalid."
                           % attr, 400)
        return {"vpcId": vpc["vpcId"], attr: {"value": vpc.get("_attr_" + attr, defaults[attr])}}

    def op_DeleteVpc(self, ctx, p):
        vpc = self._get(p.get("VpcId"), "vpc")
        vid = vpc["vpcId"]
        deps = (any(s["vpcId"] == vid for s in self.store.values("ec2:subnet"))
                or any(vid in [a["vpcId"] for a in g["attachmentSet"]] for g in self.store.values("ec2:igw"))
                or any(s["vpcId"] == vid and s["groupName"] != "default" for s in self.store.values("ec2:sg"))
                or any(r["vpcId"] == vid and not r["_main"] for r in self.store.values("ec2:rtb"))
                or any(n["vpcId"] == vid and n["state"] not in ("deleted",) for n in self.store.values("ec2:nat"))
                or any(e["vpcId"] == vid for e in self.store.values("ec2:vpce")))
        if deps:
            raise AwsError("DependencyViolation", "The vpc '%s' has dependencies and cannot be deleted." % vid, 400)
        for r in list(self.store.values("ec2:rtb")):
            if r["vpcId"] == vid:
                self.store.delete("ec2:rtb", r["routeTableId"])
        for s in list(self.store.values("ec2:sg")):
            if s["vpcId"] == vid:
                self.store.delete("ec2:sg", s["groupId"])
        self.store.delete("ec2:vpc", vid)
        return {"return": True}

    # --- subnets -----------------------------------------------------------
    def op_CreateSubnet(self, ctx, p):
        vpc = self._get(p.get("VpcId"), "vpc")
        cidr = p.get("CidrBlock")
        if not cidr:
            raise AwsError("MissingParameter", "The request must contain the parameter cidrBlock", 400)
        try:
            net = ipaddress.ip_network(cidr, strict=True)
        except ValueError:
            raise AwsError("InvalidParameterValue", "Value (%s) for parameter cidrBlock is invalid. "
                           "This is not a valid CIDR block." % cidr, 400)
        vnet = ipaddress.ip_network(vpc["cidrBlock"])
        if net.version != 4 or not net.subnet_of(vnet) or not (16 <= net.prefixlen <= 28):
            raise AwsError("InvalidSubnet.Range", "The CIDR '%s' is invalid." % cidr, 400)
        for s in self.store.values("ec2:subnet"):
            if s["vpcId"] == vpc["vpcId"] and ipaddress.ip_network(s["cidrBlock"]).overlaps(net):
                raise AwsError("InvalidSubnet.Conflict", "The CIDR '%s' conflicts with another subnet" % cidr, 400)
        region = self.world.region
        az, azid = p.get("AvailabilityZone"), p.get("AvailabilityZoneId")
        zones = catalog.zones(region)
        if azid and not az:
            az = catalog.zone_name(region, azid)
            if az is None:
                raise AwsError("InvalidParameterValue", "Value (%s) for parameter availabilityZoneId "
                               "is invalid." % azid, 400)
        if az:
            if az not in [z[0] for z in zones]:
                raise AwsError("InvalidParameterValue", "Value (%s) for parameter availabilityZone is "
                               "invalid. Subnets can currently only be created in the following "
                               "availability zones: %s." % (az, ", ".join(z[0] for z in zones)), 400)
        else:
            az = zones[int(stable_rand(cidr, 0, len(zones) - 0.001))][0]
        sid = hexid("subnet")
        rec = {"availabilityZoneId": catalog.zone_id(region, az), "ownerId": self._owner(),
               "assignIpv6AddressOnCreation": False, "ipv6CidrBlockAssociationSet": [],
               "tagSet": _tags_from_spec(p, "subnet"),
               "subnetArn": "arn:aws:ec2:%s:%s:subnet/%s" % (region, self._owner(), sid),
               "enableDns64": False, "ipv6Native": False,
               "privateDnsNameOptionsOnLaunch": {"hostnameType": "ip-name",
                                                 "enableResourceNameDnsARecord": False,
                                                 "enableResourceNameDnsAAAARecord": False},
               "subnetId": sid, "state": "available", "vpcId": vpc["vpcId"], "cidrBlock": cidr,
               "availableIpAddressCount": net.num_addresses - 5, "availabilityZone": az,
               "defaultForAz": False, "mapPublicIpOnLaunch": False, "_created": self.clock.now()}
        self._put("subnet", rec, sid)
        return {"subnet": strip_private(rec)}

    def op_DescribeSubnets(self, ctx, p):
        filters = {"subnet-id": lambda r: r["subnetId"], "vpc-id": lambda r: r["vpcId"],
                   "availability-zone": lambda r: r["availabilityZone"],
                   "availability-zone-id": lambda r: r["availabilityZoneId"],
                   "cidr-block": lambda r: r["cidrBlock"], "state": lambda r: r["state"],
                   "default-for-az": lambda r: r["defaultForAz"],
                   "map-public-ip-on-launch": lambda r: r["mapPublicIpOnLaunch"]}
        recs = self._describe("subnet", p, "SubnetId", filters, "subnetId")
        return self._paged(recs, p, "subnetSet")

    def op_ModifySubnetAttribute(self, ctx, p):
        sub = self._get(p.get("SubnetId"), "subnet")
        mp = p.get("MapPublicIpOnLaunch")
        if isinstance(mp, dict):
            sub["mapPublicIpOnLaunch"] = _bool(mp.get("Value"))
            self._put("subnet", sub, sub["subnetId"])
        return {"return": True}

    def op_DeleteSubnet(self, ctx, p):
        sub = self._get(p.get("SubnetId"), "subnet")
        sid = sub["subnetId"]
        busy = (any(n["subnetId"] == sid and n["state"] not in ("deleted",) for n in self.store.values("ec2:nat"))
                or self.world.services["sagemaker"].uses_subnet(sid)
                or self.world.services["eks"].uses_subnet(sid)
                or self.world.services["fsx"].uses_subnet(sid))
        if busy:
            raise AwsError("DependencyViolation", "The subnet '%s' has dependencies and cannot be deleted." % sid, 400)
        for r in self.store.values("ec2:rtb"):
            before = len(r["associationSet"])
            r["associationSet"] = [a for a in r["associationSet"] if a.get("subnetId") != sid]
            if len(r["associationSet"]) != before:
                self._put("rtb", r, r["routeTableId"])
        self.store.delete("ec2:subnet", sid)
        return {"return": True}

    # --- internet gateways --------------------------------------------------
    def op_CreateInternetGateway(self, ctx, p):
        gid = hexid("igw")
        rec = {"attachmentSet": [], "internetGatewayId": gid, "ownerId": self._owner(),
               "tagSet": _tags_from_spec(p, "internet-gateway"), "_created": self.clock.now()}
        self._put("igw", rec, gid)
        return {"internetGateway": strip_private(rec)}

    def op_AttachInternetGateway(self, ctx, p):
        igw = self._get(p.get("InternetGatewayId"), "igw")
        vpc = self._get(p.get("VpcId"), "vpc")
        if igw["attachmentSet"]:
            raise AwsError("Resource.AlreadyAssociated", "resource %s is already attached to network %s" % (
                igw["internetGatewayId"], igw["attachmentSet"][0]["vpcId"]), 400)
        for g in self.store.values("ec2:igw"):
            if any(a["vpcId"] == vpc["vpcId"] for a in g["attachmentSet"]):
                raise AwsError("Resource.AlreadyAssociated", "Network %s already has an internet "
                               "gateway attached" % vpc["vpcId"], 400)
        igw["attachmentSet"] = [{"state": "available", "vpcId": vpc["vpcId"]}]
        self._put("igw", igw, igw["internetGatewayId"])
        return {"return": True}

    def op_DetachInternetGateway(self, ctx, p):
        igw = self._get(p.get("InternetGatewayId"), "igw")
        vid = p.get("VpcId")
        if not any(a["vpcId"] == vid for a in igw["attachmentSet"]):
            raise AwsError("Gateway.NotAttached", "resource %s is not attached to network %s" % (
                igw["internetGatewayId"], vid), 400)
        igw["attachmentSet"] = []
        self._put("igw", igw, igw["internetGatewayId"])
        return {"return": True}

    def op_DeleteInternetGateway(self, ctx, p):
        igw = self._get(p.get("InternetGatewayId"), "igw")
        if igw["attachmentSet"]:
            raise AwsError("DependencyViolation", "The internetGateway '%s' has dependencies and "
                           "cannot be deleted." % igw["internetGatewayId"], 400)
        self.store.delete("ec2:igw", igw["internetGatewayId"])
        return {"return": True}

    def op_DescribeInternetGateways(self, ctx, p):
        filters = {"internet-gateway-id": lambda r: r["internetGatewayId"],
                   "attachment.vpc-id": lambda r: [a["vpcId"] for a in r["attachmentSet"]],
                   "attachment.state": lambda r: [a["state"] for a in r["attachmentSet"]],
                   "owner-id": lambda r: r["ownerId"]}
        recs = self._describe("igw", p, "InternetGatewayId", filters, "internetGatewayId")
        return self._paged(recs, p, "internetGatewaySet")

    # --- elastic IPs -------------------------------------------------------
    def op_AllocateAddress(self, ctx, p):
        aid = hexid("eipalloc")
        n = len(self.store.all("ec2:eip")) + 1
        ip = "198.51.%d.%d" % (100 + (n // 250) % 100, 1 + n % 250)
        rec = {"allocationId": aid, "publicIpv4Pool": "amazon", "networkBorderGroup": self.world.region,
               "domain": "vpc", "publicIp": ip, "tagSet": _tags_from_spec(p, "elastic-ip"),
               "_created": self.clock.now()}
        self._put("eipalloc", rec, aid)
        return {k: v for k, v in strip_private(rec).items() if k != "tagSet"}

    def op_ReleaseAddress(self, ctx, p):
        rec = self._get(p.get("AllocationId"), "eipalloc")
        if rec.get("associationId"):
            raise AwsError("InvalidIPAddress.InUse", "Address %s is in use." % rec["publicIp"], 400)
        self.store.delete("ec2:eip", rec["allocationId"])
        return {"return": True}

    def op_DescribeAddresses(self, ctx, p):
        filters = {"allocation-id": lambda r: r["allocationId"], "public-ip": lambda r: r["publicIp"],
                   "domain": lambda r: r["domain"], "association-id": lambda r: r.get("associationId")}
        recs = self._describe("eipalloc", p, "AllocationId", filters, "allocationId")
        return {"addressesSet": [strip_private(r) for r in recs]}

    # --- NAT gateways ------------------------------------------------------
    def op_CreateNatGateway(self, ctx, p):
        sub = self._get(p.get("SubnetId"), "subnet")
        conn = p.get("ConnectivityType") or "public"
        addresses = []
        if conn == "public":
            alloc = p.get("AllocationId")
            if not alloc:
                raise AwsError("MissingParameter", "The request must contain the parameter AllocationId", 400)
            eip = self._get(alloc, "eipalloc")
            if eip.get("associationId"):
                raise AwsError("Resource.AlreadyAssociated", "Elastic IP address [%s] is already "
                               "associated" % alloc, 400)
            eip["associationId"] = hexid("eipassoc")
            self._put("eipalloc", eip, alloc)
            addresses.append({"allocationId": alloc, "networkInterfaceId": hexid("eni"),
                              "privateIp": _host_in(sub["cidrBlock"], 10), "publicIp": eip["publicIp"],
                              "associationId": eip["associationId"], "isPrimary": True,
                              "status": "associating"})
        token = p.get("ClientToken")
        if token:
            for n in self.store.values("ec2:nat"):
                if n.get("_token") == token:
                    return {"clientToken": token, "natGateway": strip_private(n)}
        nid = hexid("nat")
        now = self.clock.now()
        rec = {"createTime": iso(now), "natGatewayAddressSet": addresses, "natGatewayId": nid,
               "state": "pending", "subnetId": sub["subnetId"], "vpcId": sub["vpcId"],
               "tagSet": _tags_from_spec(p, "natgateway"), "connectivityType": conn,
               "_created": now, "_ready": self.clock.due(stable_rand(nid, 60, 120)), "_token": token}
        self._put("nat", rec, nid)
        out = {"natGateway": strip_private(rec)}
        if token:
            out["clientToken"] = token
        return out

    def op_DeleteNatGateway(self, ctx, p):
        nat = self._get(p.get("NatGatewayId"), "nat")
        if nat["state"] in ("deleting", "deleted"):
            return {"natGatewayId": nat["natGatewayId"]}
        nat["state"] = "deleting"
        nat["_deleting"] = self.clock.due(stable_rand(nat["natGatewayId"] + "d", 30, 60))
        self._put("nat", nat, nat["natGatewayId"])
        return {"natGatewayId": nat["natGatewayId"]}

    def op_DescribeNatGateways(self, ctx, p):
        filters = {"nat-gateway-id": lambda r: r["natGatewayId"], "state": lambda r: r["state"],
                   "subnet-id": lambda r: r["subnetId"], "vpc-id": lambda r: r["vpcId"]}
        p2 = dict(p)
        if "NatGatewayId" in p2:
            p2["NatGatewayId"] = as_list(p2["NatGatewayId"])
        recs = self._describe("nat", p2, "NatGatewayId", filters, "natGatewayId")
        return self._paged(recs, p, "natGatewaySet")

    # --- route tables --------------------------------------------------------
    def _new_rtb(self, vid, main=False, tags=None):
        rid = hexid("rtb")
        vpc = self.store.get("ec2:vpc", vid)
        rec = {"associationSet": [], "propagatingVgwSet": [], "routeTableId": rid,
               "routeSet": [{"destinationCidrBlock": vpc["cidrBlock"], "gatewayId": "local",
                             "origin": "CreateRouteTable", "state": "active"}],
               "tagSet": tags or [], "vpcId": vid, "ownerId": self._owner(), "_main": main,
               "_created": self.clock.now()}
        if main:
            rec["associationSet"].append({"main": True, "routeTableAssociationId": hexid("rtbassoc"),
                                          "routeTableId": rid, "associationState": {"state": "associated"}})
        return rec

    def op_CreateRouteTable(self, ctx, p):
        vpc = self._get(p.get("VpcId"), "vpc")
        rec = self._new_rtb(vpc["vpcId"], tags=_tags_from_spec(p, "route-table"))
        self._put("rtb", rec, rec["routeTableId"])
        out = {"routeTable": strip_private(rec)}
        if p.get("ClientToken"):
            out["clientToken"] = p["ClientToken"]
        return out

    def op_CreateRoute(self, ctx, p):
        rtb = self._get(p.get("RouteTableId"), "rtb")
        dest = p.get("DestinationCidrBlock")
        if not dest:
            raise AwsError("MissingParameter", "The request must contain the parameter destinationCidrBlock", 400)
        if any(r.get("destinationCidrBlock") == dest for r in rtb["routeSet"]):
            raise AwsError("RouteAlreadyExists", "The route identified by %s already exists." % dest, 400)
        route = {"destinationCidrBlock": dest, "origin": "CreateRoute", "state": "active"}
        if p.get("GatewayId"):
            igw = self.store.get("ec2:igw", p["GatewayId"])
            if igw is None:
                raise AwsError("InvalidGatewayID.NotFound", "The gateway ID '%s' does not exist" % p["GatewayId"], 400)
            if not any(a["vpcId"] == rtb["vpcId"] for a in igw["attachmentSet"]):
                raise AwsError("InvalidParameterValue", "route table %s and network gateway %s belong "
                               "to different networks" % (rtb["routeTableId"], p["GatewayId"]), 400)
            route["gatewayId"] = p["GatewayId"]
        elif p.get("NatGatewayId"):
            nat = self.store.get("ec2:nat", p["NatGatewayId"])
            if nat is None or nat["state"] in ("deleted", "deleting", "failed"):
                raise AwsError("InvalidNatGatewayID.NotFound", "The natGateway ID '%s' does not exist" % p["NatGatewayId"], 400)
            route["natGatewayId"] = p["NatGatewayId"]
        elif p.get("VpcEndpointId") or p.get("TransitGatewayId") or p.get("NetworkInterfaceId"):
            for k in ("VpcEndpointId", "TransitGatewayId", "NetworkInterfaceId"):
                if p.get(k):
                    route[k[0].lower() + k[1:]] = p[k]
        else:
            raise AwsError("MissingParameter", "The request must contain exactly one of gatewayId, "
                           "natGatewayId, networkInterfaceId, vpcPeeringConnectionId or instanceId", 400)
        rtb["routeSet"].append(route)
        self._put("rtb", rtb, rtb["routeTableId"])
        return {"return": True}

    def op_DeleteRoute(self, ctx, p):
        rtb = self._get(p.get("RouteTableId"), "rtb")
        dest = p.get("DestinationCidrBlock")
        keep = [r for r in rtb["routeSet"] if r.get("destinationCidrBlock") != dest or r.get("gatewayId") == "local"]
        if len(keep) == len(rtb["routeSet"]):
            raise AwsError("InvalidRoute.NotFound", "no route with destination-cidr-block %s in route "
                           "table %s" % (dest, rtb["routeTableId"]), 400)
        rtb["routeSet"] = keep
        self._put("rtb", rtb, rtb["routeTableId"])
        return {"return": True}

    def op_AssociateRouteTable(self, ctx, p):
        rtb = self._get(p.get("RouteTableId"), "rtb")
        sub = self._get(p.get("SubnetId"), "subnet")
        if sub["vpcId"] != rtb["vpcId"]:
            raise AwsError("InvalidParameterValue", "Route table %s and subnet %s belong to different "
                           "networks" % (rtb["routeTableId"], sub["subnetId"]), 400)
        for r in self.store.values("ec2:rtb"):
            for a in r["associationSet"]:
                if a.get("subnetId") == sub["subnetId"]:
                    raise AwsError("Resource.AlreadyAssociated", "the specified association for route "
                                   "table %s conflicts with an existing association" % rtb["routeTableId"], 400)
        aid = hexid("rtbassoc")
        rtb["associationSet"].append({"main": False, "routeTableAssociationId": aid,
                                      "routeTableId": rtb["routeTableId"], "subnetId": sub["subnetId"],
                                      "associationState": {"state": "associated"}})
        self._put("rtb", rtb, rtb["routeTableId"])
        return {"associationId": aid, "associationState": {"state": "associated"}}

    def op_DisassociateRouteTable(self, ctx, p):
        aid = p.get("AssociationId")
        for r in self.store.values("ec2:rtb"):
            for a in r["associationSet"]:
                if a["routeTableAssociationId"] == aid:
                    if a.get("main"):
                        raise AwsError("InvalidParameterValue", "cannot disassociate the main route "
                                       "table association %s" % aid, 400)
                    r["associationSet"].remove(a)
                    self._put("rtb", r, r["routeTableId"])
                    return {"return": True}
        raise AwsError("InvalidAssociationID.NotFound", "The association ID '%s' does not exist" % aid, 400)

    def op_DeleteRouteTable(self, ctx, p):
        rtb = self._get(p.get("RouteTableId"), "rtb")
        if rtb["associationSet"]:
            raise AwsError("DependencyViolation", "The routeTable '%s' has dependencies and cannot "
                           "be deleted." % rtb["routeTableId"], 400)
        self.store.delete("ec2:rtb", rtb["routeTableId"])
        return {"return": True}

    def op_DescribeRouteTables(self, ctx, p):
        filters = {"route-table-id": lambda r: r["routeTableId"], "vpc-id": lambda r: r["vpcId"],
                   "association.subnet-id": lambda r: [a.get("subnetId") for a in r["associationSet"]],
                   "association.main": lambda r: [a.get("main") for a in r["associationSet"]] or [False],
                   "association.route-table-association-id":
                       lambda r: [a["routeTableAssociationId"] for a in r["associationSet"]],
                   "route.nat-gateway-id": lambda r: [x.get("natGatewayId") for x in r["routeSet"]],
                   "route.gateway-id": lambda r: [x.get("gatewayId") for x in r["routeSet"]],
                   "route.destination-cidr-block": lambda r: [x.get("destinationCidrBlock") for x in r["routeSet"]]}
        recs = self._describe("rtb", p, "RouteTableId", filters, "routeTableId")
        return self._paged(recs, p, "routeTableSet")

    # --- security groups ---------------------------------------------------
    def _new_sg(self, vid, name, desc, tags=None):
        gid = hexid("sg")
        return {"groupId": gid, "groupName": name, "groupDescription": desc, "vpcId": vid,
                "ownerId": self._owner(), "ipPermissions": [],
                "ipPermissionsEgress": [{"ipProtocol": "-1", "groups": [], "ipRanges": [{"cidrIp": "0.0.0.0/0"}],
                                         "ipv6Ranges": [], "prefixListIds": []}],
                "tagSet": tags or [],
                "securityGroupArn": "arn:aws:ec2:%s:%s:security-group/%s" % (self.world.region, self._owner(), gid),
                "_created": self.clock.now()}

    def op_CreateSecurityGroup(self, ctx, p):
        vpc = self._get(p.get("VpcId"), "vpc")
        name = p.get("GroupName")
        if name == "default" or name.startswith("sg-"):
            raise AwsError("InvalidParameterValue", "Group names may not be in the format sg-* or be "
                           "'default'.", 400)
        for g in self.store.values("ec2:sg"):
            if g["vpcId"] == vpc["vpcId"] and g["groupName"] == name:
                raise AwsError("InvalidGroup.Duplicate", "The security group '%s' already exists for "
                               "VPC '%s'" % (name, vpc["vpcId"]), 400)
        rec = self._new_sg(vpc["vpcId"], name, p.get("GroupDescription") or "",
                           _tags_from_spec(p, "security-group"))
        self._put("sg", rec, rec["groupId"])
        return {"groupId": rec["groupId"], "tagSet": rec["tagSet"] or None,
                "securityGroupArn": rec["securityGroupArn"]}

    def _permissions(self, p):
        perms = []
        if p.get("IpProtocol"):
            perm = {"ipProtocol": p["IpProtocol"], "groups": [], "ipRanges": [], "ipv6Ranges": [],
                    "prefixListIds": []}
            if p.get("FromPort") is not None:
                perm["fromPort"] = int(p["FromPort"])
                perm["toPort"] = int(p.get("ToPort", p["FromPort"]))
            if p.get("CidrIp"):
                perm["ipRanges"].append({"cidrIp": p["CidrIp"]})
            perms.append(perm)
        for ip in as_list(p.get("IpPermissions")):
            if not isinstance(ip, dict):
                continue
            perm = {"ipProtocol": str(ip.get("IpProtocol", "-1")), "groups": [], "ipRanges": [],
                    "ipv6Ranges": [], "prefixListIds": []}
            if ip.get("FromPort") is not None:
                perm["fromPort"] = int(ip["FromPort"])
            if ip.get("ToPort") is not None:
                perm["toPort"] = int(ip["ToPort"])
            for r in as_list(ip.get("IpRanges")):
                item = {"cidrIp": r.get("CidrIp")}
                if r.get("Description"):
                    item["description"] = r["Description"]
                perm["ipRanges"].append(item)
            for r in as_list(ip.get("Ipv6Ranges")):
                perm["ipv6Ranges"].append({"cidrIpv6": r.get("CidrIpv6")})
            for g in as_list(ip.get("Groups")):
                gid = g.get("GroupId")
                if gid and self.store.get("ec2:sg", gid) is None:
                    raise AwsError("InvalidGroup.NotFound", "The security group '%s' does not exist" % gid, 400)
                item = {"groupId": gid, "userId": self._owner()}
                if g.get("Description"):
                    item["description"] = g["Description"]
                perm["groups"].append(item)
            for pl in as_list(ip.get("PrefixListIds")):
                perm["prefixListIds"].append({"prefixListId": pl.get("PrefixListId")})
            perms.append(perm)
        if not perms:
            raise AwsError("MissingParameter", "The request must contain the parameter ipPermissions", 400)
        return perms

    def _authorize(self, p, egress):
        sg = self._get(p.get("GroupId"), "sg")
        key = "ipPermissionsEgress" if egress else "ipPermissions"
        rules = []
        for perm in self._permissions(p):
            sig = _perm_sig(perm)
            if any(_perm_sig(x) == sig for x in sg[key]):
                raise AwsError("InvalidPermission.Duplicate", "the specified rule \"peer: %s, %s\" "
                               "already exists" % (_peer(perm), perm["ipProtocol"].upper()), 400)
            sg[key].append(perm)
            rules.append({"securityGroupRuleId": hexid("sgr"), "groupId": sg["groupId"],
                          "groupOwnerId": self._owner(), "isEgress": egress,
                          "ipProtocol": perm["ipProtocol"], "fromPort": perm.get("fromPort", -1),
                          "toPort": perm.get("toPort", -1),
                          "cidrIpv4": (perm["ipRanges"] or [{}])[0].get("cidrIp"),
                          "referencedGroupInfo": ({"groupId": perm["groups"][0]["groupId"],
                                                   "userId": self._owner()} if perm["groups"] else None)})
        self._put("sg", sg, sg["groupId"])
        return {"return": True, "securityGroupRuleSet": rules}

    def op_AuthorizeSecurityGroupIngress(self, ctx, p):
        return self._authorize(p, False)

    def op_AuthorizeSecurityGroupEgress(self, ctx, p):
        return self._authorize(p, True)

    def _revoke(self, p, egress):
        sg = self._get(p.get("GroupId"), "sg")
        key = "ipPermissionsEgress" if egress else "ipPermissions"
        sigs = {_perm_sig(x) for x in self._permissions(p)}
        before = len(sg[key])
        sg[key] = [x for x in sg[key] if _perm_sig(x) not in sigs]
        if len(sg[key]) == before:
            raise AwsError("InvalidPermission.NotFound", "The specified rule does not exist in this "
                           "security group.", 400)
        self._put("sg", sg, sg["groupId"])
        return {"return": True}

    def op_RevokeSecurityGroupIngress(self, ctx, p):
        return self._revoke(p, False)

    def op_RevokeSecurityGroupEgress(self, ctx, p):
        return self._revoke(p, True)

    def op_DeleteSecurityGroup(self, ctx, p):
        sg = self._get(p.get("GroupId"), "sg")
        gid = sg["groupId"]
        if sg["groupName"] == "default":
            raise AwsError("CannotDelete", "the specified group: \"%s\" name: \"default\" cannot be "
                           "deleted by a user" % gid, 400)
        for other in self.store.values("ec2:sg"):
            if other["groupId"] == gid:
                continue
            for perm in other["ipPermissions"] + other["ipPermissionsEgress"]:
                if any(g.get("groupId") == gid for g in perm["groups"]):
                    raise AwsError("DependencyViolation", "resource %s has a dependent object" % gid, 400)
        if (self.world.services["sagemaker"].uses_sg(gid) or self.world.services["eks"].uses_sg(gid)
                or any(gid in e.get("groupSet", []) for e in self.store.values("ec2:vpce"))):
            raise AwsError("DependencyViolation", "resource %s has a dependent object" % gid, 400)
        self.store.delete("ec2:sg", gid)
        return {"return": True, "groupId": gid}

    def op_DescribeSecurityGroups(self, ctx, p):
        filters = {"group-id": lambda r: r["groupId"], "group-name": lambda r: r["groupName"],
                   "vpc-id": lambda r: r["vpcId"], "description": lambda r: r["groupDescription"],
                   "owner-id": lambda r: r["ownerId"]}
        p2 = dict(p)
        names = as_list(p.get("GroupName"))
        recs = self._describe("sg", p2, "GroupId", filters, "groupId")
        if names:
            recs = [r for r in recs if r["groupName"] in names]
            if not recs:
                raise AwsError("InvalidGroup.NotFound", "The security group '%s' does not exist in "
                               "default VPC" % names[0], 400)
        out = self._paged(recs, p, "securityGroupInfo")
        return out

    # --- VPC endpoints -------------------------------------------------------
    def op_CreateVpcEndpoint(self, ctx, p):
        vpc = self._get(p.get("VpcId"), "vpc")
        etype = p.get("VpcEndpointType") or "Gateway"
        eid = hexid("vpce")
        subnets = as_list(p.get("SubnetId"))
        for s in subnets:
            self._get(s, "subnet")
        rec = {"vpcEndpointId": eid, "vpcEndpointType": etype, "vpcId": vpc["vpcId"],
               "serviceName": p.get("ServiceName"),
               "state": "pending" if etype == "Interface" else "available",
               "routeTableIdSet": as_list(p.get("RouteTableId")), "subnetIdSet": subnets,
               "groupSet": [{"groupId": g, "groupName": (self.store.get("ec2:sg", g) or {}).get("groupName", "")}
                            for g in as_list(p.get("SecurityGroupId"))],
               "privateDnsEnabled": _bool(p.get("PrivateDnsEnabled", etype == "Interface")),
               "requesterManaged": False, "networkInterfaceIdSet": [], "dnsEntrySet": [],
               "creationTimestamp": iso(self.clock.now()), "tagSet": _tags_from_spec(p, "vpc-endpoint"),
               "ownerId": self._owner(), "_created": self.clock.now(), "_ready": self.clock.due(30)}
        self._put("vpce", rec, eid)
        return {"vpcEndpoint": strip_private(rec)}

    def op_DescribeVpcEndpoints(self, ctx, p):
        filters = {"vpc-endpoint-id": lambda r: r["vpcEndpointId"], "vpc-id": lambda r: r["vpcId"],
                   "service-name": lambda r: r["serviceName"], "vpc-endpoint-state": lambda r: r["state"],
                   "vpc-endpoint-type": lambda r: r["vpcEndpointType"]}
        recs = self._describe("vpce", p, "VpcEndpointId", filters, "vpcEndpointId")
        return self._paged(recs, p, "vpcEndpointSet")

    def op_DeleteVpcEndpoints(self, ctx, p):
        failed = []
        for eid in as_list(p.get("VpcEndpointId")):
            if self.store.get("ec2:vpce", eid) is None:
                failed.append({"error": {"code": "InvalidVpcEndpoint.NotFound",
                                         "message": "The VPC endpoint '%s' does not exist" % eid},
                               "resourceId": eid})
            else:
                self.store.delete("ec2:vpce", eid)
        return {"unsuccessful": failed}

    # --- tags --------------------------------------------------------------
    def _tag_target(self, rid):
        kind = self._kind(rid)
        if kind is None:
            raise AwsError("InvalidID", "The ID '%s' is not valid" % rid, 400)
        prefix = rid.split("-", 1)[0]
        return prefix, self._get(rid, prefix)

    def op_CreateTags(self, ctx, p):
        ids = as_list(p.get("ResourceId"))
        tags = [t for t in as_list(p.get("Tag")) if isinstance(t, dict)]
        targets = [self._tag_target(i) for i in ids]
        for prefix, rec in targets:
            cur = {t["key"]: t["value"] for t in rec.get("tagSet", [])}
            for t in tags:
                cur[t.get("Key")] = t.get("Value", "")
            if len(cur) > 50:
                raise AwsError("TagLimitExceeded", "The maximum number of Tags for a resource has been reached.", 400)
            rec["tagSet"] = [{"key": k, "value": v} for k, v in cur.items()]
            self._put(prefix, rec, rec[_id_field(prefix)])
        return {"return": True}

    def op_DeleteTags(self, ctx, p):
        ids = as_list(p.get("ResourceId"))
        tags = [t for t in as_list(p.get("Tag")) if isinstance(t, dict)]
        for prefix, rec in [self._tag_target(i) for i in ids]:
            keep = []
            for t in rec.get("tagSet", []):
                drop = not tags or any(x.get("Key") == t["key"] and
                                       ("Value" not in x or x["Value"] == t["value"]) for x in tags)
                if not drop:
                    keep.append(t)
            rec["tagSet"] = keep
            self._put(prefix, rec, rec[_id_field(prefix)])
        return {"return": True}

    def op_DescribeTags(self, ctx, p):
        out = []
        for prefix, (space, _, _) in KINDS.items():
            for rec in self.store.values(space):
                for t in rec.get("tagSet", []):
                    out.append({"resourceId": rec[_id_field(prefix)], "resourceType": RESOURCE_TYPES[prefix],
                                "key": t["key"], "value": t["value"]})
        filters = {"resource-id": lambda r: r["resourceId"], "resource-type": lambda r: r["resourceType"],
                   "key": lambda r: r["key"], "value": lambda r: r["value"]}
        for f in as_list(p.get("Filter")):
            out = [i for i in out if self._match(i, f.get("Name"), as_list(f.get("Value")), filters)]
        return {"tagSet": out}

    # --- EBS volumes (no API in the trimmed model) ---------------------------
    def add_volume(self, az, size=100, volume_type="gp3"):
        """A new available volume in zone az; its public record."""
        if az not in [z for z, _ in catalog.zones(self.world.region)]:
            raise ValueError("availability_zone must be a zone of %s" % self.world.region)
        if not isinstance(size, int) or not 1 <= size <= 16384:
            raise ValueError("size must be 1-16384 GiB")
        vid = hexid("vol")
        vol = {"volumeId": vid, "availabilityZone": az, "size": size, "volumeType": volume_type,
               "state": "available", "createTime": iso(self.clock.now()), "_attachments": []}
        self.save_volume(vol)
        return self.volume_view(vol)

    def volume(self, vid):
        return self.store.get("ec2:volume", vid or "")

    def volumes(self):
        return list(self.store.values("ec2:volume"))

    def save_volume(self, vol):
        self.store.put("ec2:volume", vol["volumeId"], vol)

    def volume_view(self, vol):
        """As DescribeVolumes would show it: state and attachmentSet."""
        out = strip_private(vol)
        out["attachmentSet"] = [{"volumeId": vol["volumeId"], "instanceId": a["instanceId"],
                                 "device": a["device"], "status": a["status"],
                                 "attachTime": iso(a["_time"])} for a in vol["_attachments"]]
        return out

    # --- state machines -----------------------------------------------------
    def advance(self, now):
        for vpc in self.store.values("ec2:vpc"):
            if vpc["state"] == "pending" and now >= vpc.get("_ready", 0):
                vpc["state"] = "available"
                self._put("vpc", vpc, vpc["vpcId"])
        for e in self.store.values("ec2:vpce"):
            if e["state"] == "pending" and now >= e.get("_ready", 0):
                e["state"] = "available"
                self._put("vpce", e, e["vpcEndpointId"])
        for nat in list(self.store.values("ec2:nat")):
            nid = nat["natGatewayId"]
            if nat["state"] == "pending" and now >= nat.get("_ready", 0):
                nat["state"] = "available"
                for a in nat["natGatewayAddressSet"]:
                    a["status"] = "succeeded"
                self._put("nat", nat, nid)
            elif nat["state"] == "deleting" and now >= nat.get("_deleting", 0):
                nat["state"] = "deleted"
                nat["deleteTime"] = iso(now)
                for a in nat["natGatewayAddressSet"]:
                    eip = self.store.get("ec2:eip", a.get("allocationId") or "")
                    if eip is not None:
                        eip.pop("associationId", None)
                        self._put("eipalloc", eip, eip["allocationId"])
                    a["status"] = "disassociated"
                nat["_purge"] = now + self.clock.real(3600)
                self._put("nat", nat, nid)
            elif nat["state"] == "deleted" and now >= nat.get("_purge", now + 1):
                self.store.delete("ec2:nat", nid)

    def snapshot(self):
        out = {}
        for prefix, (space, _, _) in KINDS.items():
            live = [k for k, r in self.store.all(space).items()
                    if not (prefix == "nat" and r.get("state") == "deleted")]
            out[RESOURCE_TYPES[prefix]] = sorted(live)
        out["volume"] = {v["volumeId"]: v["state"] for v in self.volumes()}
        return out


def _id_field(prefix):
    return {"vpc": "vpcId", "subnet": "subnetId", "igw": "internetGatewayId", "eipalloc": "allocationId",
            "nat": "natGatewayId", "rtb": "routeTableId", "sg": "groupId", "vpce": "vpcEndpointId"}[prefix]


def _perm_sig(perm):
    return (perm["ipProtocol"], perm.get("fromPort"), perm.get("toPort"),
            tuple(sorted(r.get("cidrIp") or "" for r in perm["ipRanges"])),
            tuple(sorted(g.get("groupId") or "" for g in perm["groups"])),
            tuple(sorted(r.get("cidrIpv6") or "" for r in perm["ipv6Ranges"])))


def _peer(perm):
    if perm["ipRanges"]:
        return perm["ipRanges"][0]["cidrIp"]
    if perm["groups"]:
        return perm["groups"][0]["groupId"]
    return "-"


def _host_in(cidr, n):
    net = ipaddress.ip_network(cidr)
    return str(net.network_address + n)
