"""EKS (rest-json): clusters, add-ons, access entries, pod identity, config updates.

CreateCluster goes CREATING -> ACTIVE after 8-12 minutes of sandbox time;
once ACTIVE, DescribeCluster shows the per-cluster HTTPS API server
(`endpoint`), its CA (`certificateAuthority.data`) and an OIDC issuer.
DeleteCluster goes DELETING -> gone.  Add-ons go CREATING -> ACTIVE and
install their CRDs into the cluster's Kubernetes API.  Errors carry the
`x-amzn-ErrorType` header and a JSON body with `message` and context fields.
"""
import json
import re
import secrets
import urllib.parse

from ..gateway import AwsService
from ..protocols import AwsError, RestJsonProtocol
from .util import as_list, new_uuid, page, stable_rand

VERSIONS = ["1.29", "1.30", "1.31", "1.32", "1.33", "1.34"]
DEFAULT_VERSION = "1.32"
PLATFORM = {"1.29": "eks.38", "1.30": "eks.30", "1.31": "eks.26", "1.32": "eks.17",
            "1.33": "eks.10", "1.34": "eks.4"}
POLICY_PREFIX = "arn:aws:eks::aws:cluster-access-policy/"
# usernames EKS keeps for itself (Creating access entries, EKS User Guide)
RESERVED_USER_PREFIXES = ("system:", "amazon:", "aws:", "eks:", "iam:")
# an access scope's namespace: a namespace name, or a prefix ending in *
NAMESPACE_SCOPE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$|^[a-z0-9][-a-z0-9]*\*$")
ACCESS_POLICIES = ["AmazonEKSClusterAdminPolicy", "AmazonEKSAdminPolicy", "AmazonEKSEditPolicy",
                   "AmazonEKSViewPolicy", "AmazonEKSAdminViewPolicy",
                   "AmazonSagemakerHyperpodClusterSchedulerPolicy",
                   "AmazonSagemakerHyperpodControllerPolicy", "AmazonSagemakerHyperpodSystemNamespacePolicy",
                   "AmazonEKSAutoNodePolicy", "AmazonEKSNetworkingPolicy"]

ADDONS = {
    # name: (type, publisher/owner, versions newest first, default namespace)
    "vpc-cni": ("networking", "eks", ["v1.20.4-eksbuild.2", "v1.19.6-eksbuild.7"], "kube-system"),
    "coredns": ("networking", "eks", ["v1.12.4-eksbuild.1", "v1.11.4-eksbuild.14", "v1.11.3-eksbuild.2"],
                "kube-system"),
    "kube-proxy": ("networking", "eks", ["v1.34.1-eksbuild.2", "v1.33.3-eksbuild.6", "v1.32.6-eksbuild.8",
                                         "v1.31.13-eksbuild.2", "v1.31.10-eksbuild.8", "v1.30.14-eksbuild.8",
                                         "v1.29.15-eksbuild.16"], "kube-system"),
    "eks-pod-identity-agent": ("security", "eks", ["v1.3.8-eksbuild.2"], "kube-system"),
    "aws-ebs-csi-driver": ("storage", "eks", ["v1.48.0-eksbuild.2"], "kube-system"),
    "aws-fsx-csi-driver": ("storage", "eks", ["v1.6.0-eksbuild.1"], "kube-system"),
    "aws-mountpoint-s3-csi-driver": ("storage", "eks", ["v2.0.0-eksbuild.1"], "kube-system"),
    "metrics-server": ("observability", "eks", ["v0.8.0-eksbuild.2"], "kube-system"),
    "cert-manager": ("security", "eks", ["v1.18.2-eksbuild.2"], "cert-manager"),
    "amazon-cloudwatch-observability": ("observability", "eks", ["v4.3.0-eksbuild.1"], "amazon-cloudwatch"),
    "amazon-sagemaker-hyperpod-training-operator": ("machine-learning", "eks", ["v1.2.0-eksbuild.1", "v1.1.3-eksbuild.1"], "aws-hyperpod"),
    "amazon-sagemaker-hyperpod-inference": ("machine-learning", "eks", ["v3.1.0-eksbuild.1", "v3.0.0-eksbuild.1"], "hyperpod-inference-system"),
    "amazon-sagemaker-hyperpod-taskgovernance": ("machine-learning", "eks", ["v1.6.0-eksbuild.1", "v1.3.0-eksbuild.1"], "kueue-system"),
    "amazon-sagemaker-hyperpod-observability": ("observability", "eks", ["v1.0.2-eksbuild.1"], "hyperpod-observability"),
    "amazon-sagemaker-spaces": ("machine-learning", "eks", ["v0.1.6-eksbuild.1"], "jupyter-k8s-system"),
}

# The oldest Kubernetes version an add-on supports (others: every version).
MIN_KUBERNETES = {
    "amazon-sagemaker-hyperpod-taskgovernance": "1.30",
}

# Per-version compatibility as EKS publishes it (the "versions" tables of
# the EKS user guide, and DescribeAddonVersions): version -> (Kubernetes
# versions it runs on, those it is the default for).  kube-proxy follows
# the Kubernetes minor; CoreDNS 1.11 serves 1.29-1.32 and 1.12 serves
# 1.33 on; one VPC CNI release serves every supported version.  The
# default is not always the newest: EKS moves it after a build has
# settled.  Versions not listed here run on every version the add-on
# supports, the newest being the default.
_OLD = ["1.29", "1.30", "1.31", "1.32"]
ADDON_COMPAT = {
    "vpc-cni": {"v1.20.4-eksbuild.2": (VERSIONS, VERSIONS),
                "v1.19.6-eksbuild.7": (VERSIONS[:-1], [])},
    "coredns": {"v1.12.4-eksbuild.1": (["1.33", "1.34"], ["1.33", "1.34"]),
                "v1.11.4-eksbuild.14": (_OLD, _OLD),
                "v1.11.3-eksbuild.2": (_OLD, [])},
    "kube-proxy": {v: ([v[1:5]], [] if v == "v1.31.13-eksbuild.2" else [v[1:5]])
                   for v in ADDONS["kube-proxy"][2]},
}


def _kver(v):
    major, _, minor = str(v).partition(".")
    try:
        return (int(major), int(minor))
    except ValueError:
        return (0, 0)


def addon_supports(name, version):
    """Does add-on name run on Kubernetes version?"""
    return _kver(version) >= _kver(MIN_KUBERNETES.get(name, "0.0"))


def addon_version_compat(name, version):
    """(Kubernetes versions addon version runs on, those it is default for)."""
    table = ADDON_COMPAT.get(name)
    if table is not None and version in table:
        return table[version]
    runs = [k for k in VERSIONS if addon_supports(name, k)]
    return runs, (runs if version == ADDONS[name][2][0] else [])


def addon_default_version(name, kver):
    """The version EKS installs on kver when none is asked for, or None."""
    for v in ADDONS[name][2]:
        if kver in addon_version_compat(name, v)[1]:
            return v
    return None


ROUTES = [
    ("POST", "/clusters", "CreateCluster", []),
    ("GET", "/clusters", "ListClusters", []),
    ("GET", "/clusters/{name}", "DescribeCluster", ["name"]),
    ("DELETE", "/clusters/{name}", "DeleteCluster", ["name"]),
    ("POST", "/tags/{resourceArn}", "TagResource", ["resourceArn"]),
    ("GET", "/tags/{resourceArn}", "ListTagsForResource", ["resourceArn"]),
    ("POST", "/clusters/{name}/update-config", "UpdateClusterConfig", ["name"]),
    ("GET", "/clusters/{name}/updates", "ListUpdates", ["name"]),
    ("GET", "/clusters/{name}/updates/{updateId}", "DescribeUpdate", ["name", "updateId"]),
    ("POST", "/clusters/{name}/addons", "CreateAddon", ["clusterName"]),
    ("GET", "/clusters/{name}/addons", "ListAddons", ["clusterName"]),
    ("GET", "/clusters/{name}/addons/{addonName}", "DescribeAddon", ["clusterName", "addonName"]),
    ("DELETE", "/clusters/{name}/addons/{addonName}", "DeleteAddon", ["clusterName", "addonName"]),
    ("POST", "/clusters/{name}/addons/{addonName}/update", "UpdateAddon", ["clusterName", "addonName"]),
    ("GET", "/addons/supported-versions", "DescribeAddonVersions", []),
    ("POST", "/clusters/{name}/access-entries", "CreateAccessEntry", ["clusterName"]),
    ("GET", "/clusters/{name}/access-entries", "ListAccessEntries", ["clusterName"]),
    ("GET", "/clusters/{name}/access-entries/{principalArn}", "DescribeAccessEntry", ["clusterName", "principalArn"]),
    ("DELETE", "/clusters/{name}/access-entries/{principalArn}", "DeleteAccessEntry", ["clusterName", "principalArn"]),
    ("POST", "/clusters/{name}/access-entries/{principalArn}/access-policies", "AssociateAccessPolicy", ["clusterName", "principalArn"]),
    ("GET", "/clusters/{name}/access-entries/{principalArn}/access-policies", "ListAssociatedAccessPolicies", ["clusterName", "principalArn"]),
    ("DELETE", "/clusters/{name}/access-entries/{principalArn}/access-policies/{policyArn}", "DisassociateAccessPolicy", ["clusterName", "principalArn", "policyArn"]),
    ("GET", "/access-policies", "ListAccessPolicies", []),
    ("POST", "/clusters/{name}/pod-identity-associations", "CreatePodIdentityAssociation", ["clusterName"]),
    ("GET", "/clusters/{name}/pod-identity-associations", "ListPodIdentityAssociations", ["clusterName"]),
    ("GET", "/clusters/{name}/pod-identity-associations/{associationId}", "DescribePodIdentityAssociation", ["clusterName", "associationId"]),
    ("DELETE", "/clusters/{name}/pod-identity-associations/{associationId}", "DeletePodIdentityAssociation", ["clusterName", "associationId"]),
]


def _compile(template):
    parts = template.strip("/").split("/")
    return [None if p.startswith("{") else p for p in parts]


_ROUTES = [(m, _compile(t), op, labels) for m, t, op, labels in ROUTES]


def _nf(msg, **extra):
    return AwsError("ResourceNotFoundException", msg, 404, extra=extra)


def _bad(msg, **extra):
    return AwsError("InvalidParameterException", msg, 400, extra=extra)


def _invalid_request(msg, **extra):
    return AwsError("InvalidRequestException", msg, 400, extra=extra)


class EksService(AwsService):
    name = "eks"
    protocol = RestJsonProtocol()

    def __init__(self, world):
        super().__init__(world)
        # advance() visits only what is on its way somewhere.
        self.store.index("eks:clusters", lambda c: c["status"])
        self.store.index("eks:addons", lambda a: a["status"])

    # --- routing -----------------------------------------------------------
    def parse(self, ctx, req):
        segs = [urllib.parse.unquote(s) for s in req.raw_path.strip("/").split("/")]
        path_matched = False
        for method, parts, op, labels in _ROUTES:
            if len(parts) != len(segs):
                continue
            vals = []
            ok = True
            for want, got in zip(parts, segs):
                if want is None:
                    vals.append(got)
                elif want != got:
                    ok = False
                    break
            if not ok:
                continue
            path_matched = True
            if method != req.method:
                continue
            params = {}
            if req.body.strip():
                try:
                    body = json.loads(req.body.decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    raise AwsError("SerializationException", "Unable to parse request body", 400)
                if not isinstance(body, dict):
                    raise AwsError("SerializationException", "Request body must be a JSON object", 400)
                params.update(body)
            params.update(self._query_params(op, req))
            for name, val in zip(labels, vals):
                params[name] = val
            return op, params
        if path_matched:
            raise AwsError("UnknownOperationException", "", 405)
        raise self.protocol.unknown_operation(None)

    def _query_params(self, op, req):
        model = self.model
        out = {}
        multi = {}
        for k, v in req.query_pairs:
            multi.setdefault(k, []).append(v)
        if model is not None and model.has(op):
            shape = model.shapes[model.input_shape(op)]
            for mname, member in shape.get("members", {}).items():
                if member.get("location") != "querystring":
                    continue
                wire = member.get("locationName", mname)
                if wire not in multi:
                    continue
                mtype = model.shapes[member["shape"]]["type"]
                vals = multi[wire]
                if mtype == "list":
                    out[mname] = vals
                elif mtype in ("integer", "long"):
                    try:
                        out[mname] = int(vals[0])
                    except ValueError:
                        raise _bad("Invalid value for %s: %s" % (wire, vals[0]))
                elif mtype == "boolean":
                    out[mname] = vals[0].lower() == "true"
                else:
                    out[mname] = vals[0]
            return out
        for k, vals in multi.items():
            out[k] = vals[0]
        return out

    def dispatch(self, ctx, op, params):
        result = getattr(self, "op_" + op)(ctx, params)
        return self.protocol.ok(op, result, ctx.request_id)

    # --- helpers -------------------------------------------------------------
    def _arn(self, kind, rest):
        return "arn:aws:eks:%s:%s:%s/%s" % (self.world.region, self.world.account, kind, rest)

    def _cluster(self, name, for_op=True):
        c = self.store.get("eks:clusters", name or "")
        if c is None:
            raise _nf("No cluster found for name: %s." % name, clusterName=name)
        return c

    def _active(self, c):
        if c["status"] != "ACTIVE":
            raise _invalid_request("Cluster '%s' is in %s state. The cluster must be ACTIVE for this "
                                   "operation." % (c["name"], c["status"]), clusterName=c["name"])

    def cluster_public(self, c):
        out = {k: v for k, v in c.items() if not k.startswith("_")}
        if c["status"] != "ACTIVE" and c["status"] != "UPDATING":
            out.pop("endpoint", None)
            out["certificateAuthority"] = {}
        return out

    def uses_subnet(self, sid):
        return any(sid in c["resourcesVpcConfig"]["subnetIds"] for c in self.store.values("eks:clusters"))

    def uses_sg(self, gid):
        return any(gid in c["resourcesVpcConfig"]["securityGroupIds"] or
                   gid == c["resourcesVpcConfig"].get("clusterSecurityGroupId")
                   for c in self.store.values("eks:clusters"))

    def cluster_by_arn(self, arn):
        m = re.match(r"^arn:aws[a-z-]*:eks:([a-z0-9-]+):(\d{12}):cluster/(.+)$", arn or "")
        if not m:
            return None
        c = self.store.get("eks:clusters", m.group(3))
        if c is None or c["arn"] != arn:
            return None
        return c

    # --- clusters -------------------------------------------------------------
    def op_CreateCluster(self, ctx, p):
        name = p["name"]
        if self.store.get("eks:clusters", name):
            raise AwsError("ResourceInUseException", "Cluster already exists with name: %s" % name, 409,
                           extra={"clusterName": name})
        if not re.match(r"^[0-9A-Za-z][A-Za-z0-9\-_]*$", name) or len(name) > 100:
            raise _bad("The cluster name must be 1-100 characters, start with a letter or number, "
                       "and contain only letters, numbers, hyphens and underscores.", clusterName=name)
        version = p.get("version") or DEFAULT_VERSION
        if version not in VERSIONS:
            raise _bad("unsupported Kubernetes version %s" % version, clusterName=name)
        role_arn = p.get("roleArn", "")
        role = self.store.get("iam:roles", role_arn.rsplit("/", 1)[-1])
        if role is None or role["Arn"] != role_arn:
            raise _bad("Role with arn: %s, does not exist" % role_arn, clusterName=name)
        vpc_cfg = p.get("resourcesVpcConfig") or {}
        subnet_ids = as_list(vpc_cfg.get("subnetIds"))
        subnets = []
        for sid in subnet_ids:
            sub = self.store.get("ec2:subnet", sid)
            if sub is None:
                raise _bad("The subnet ID '%s' does not exist (Service: AmazonEC2; Status Code: 400; "
                           "Error Code: InvalidSubnetID.NotFound)" % sid, clusterName=name)
            subnets.append(sub)
        if len({s["availabilityZone"] for s in subnets}) < 2:
            raise _bad("Subnets specified must be in at least two different AZs", clusterName=name)
        if len({s["vpcId"] for s in subnets}) > 1:
            raise _bad("Subnets must belong to the same VPC", clusterName=name)
        vpc_id = subnets[0]["vpcId"]
        for gid in as_list(vpc_cfg.get("securityGroupIds")):
            sg = self.store.get("ec2:sg", gid)
            if sg is None:
                raise _bad("The security group '%s' does not exist" % gid, clusterName=name)
        access = p.get("accessConfig") or {}
        mode = access.get("authenticationMode") or "API_AND_CONFIG_MAP"
        bootstrap = access.get("bootstrapClusterCreatorAdminPermissions")
        bootstrap = True if bootstrap is None else bool(bootstrap)
        now = self.clock.now()
        # EKS makes a cluster security group in the VPC
        ec2 = self.world.services["ec2"]
        csg = ec2._new_sg(vpc_id, "eks-cluster-sg-%s-%s" % (name, secrets.token_hex(5)),
                          "EKS created security group applied to ENI that is attached to EKS Control "
                          "Plane master nodes, as well as any managed workloads.",
                          [{"key": "aws:eks:cluster-name", "value": name},
                           {"key": "kubernetes.io/cluster/%s" % name, "value": "owned"}])
        csg["_eks"] = name
        self.store.put("ec2:sg", csg["groupId"], csg)
        oidc_id = secrets.token_hex(16).upper()
        ca_b64 = self.world.kube.prepare_cluster(name)
        cluster = {
            "name": name, "arn": self._arn("cluster", name), "createdAt": now, "version": version,
            "endpoint": None, "roleArn": role_arn,
            "resourcesVpcConfig": {"subnetIds": subnet_ids,
                                   "securityGroupIds": as_list(vpc_cfg.get("securityGroupIds")),
                                   "clusterSecurityGroupId": csg["groupId"], "vpcId": vpc_id,
                                   "endpointPublicAccess": vpc_cfg.get("endpointPublicAccess", True),
                                   "endpointPrivateAccess": vpc_cfg.get("endpointPrivateAccess", False),
                                   "publicAccessCidrs": vpc_cfg.get("publicAccessCidrs") or ["0.0.0.0/0"]},
            "kubernetesNetworkConfig": {
                "serviceIpv4Cidr": (p.get("kubernetesNetworkConfig") or {}).get("serviceIpv4Cidr") or "10.100.0.0/16",
                "ipFamily": (p.get("kubernetesNetworkConfig") or {}).get("ipFamily") or "ipv4",
                "elasticLoadBalancing": {"enabled": False}},
            "logging": p.get("logging") or {"clusterLogging": [{"types": ["api", "audit", "authenticator",
                                                                         "controllerManager", "scheduler"],
                                                               "enabled": False}]},
            "identity": {"oidc": {"issuer": "https://oidc.eks.%s.amazonaws.com/id/%s" % (self.world.region, oidc_id)}},
            "status": "CREATING", "certificateAuthority": {"data": ca_b64},
            "platformVersion": PLATFORM.get(version, "eks.1"), "tags": p.get("tags") or {},
            "health": {"issues": []},
            "accessConfig": {"bootstrapClusterCreatorAdminPermissions": bootstrap, "authenticationMode": mode},
            "upgradePolicy": {"supportType": (p.get("upgradePolicy") or {}).get("supportType") or "EXTENDED"},
            "deletionProtection": bool(p.get("deletionProtection", False)),
            "_ready": self.clock.due(stable_rand(name + str(now), 480, 720), start=now),
            "_creator": ctx.principal["principal_arn"] if ctx.principal else None,
        }
        if p.get("clientRequestToken"):
            cluster["clientRequestToken"] = p["clientRequestToken"]
        self.store.put("eks:clusters", name, cluster)
        if bootstrap and ctx.principal:
            entry = self._new_entry(name, ctx.principal["principal_arn"], "STANDARD", [], None)
            entry["_policies"] = [{"policyArn": POLICY_PREFIX + "AmazonEKSClusterAdminPolicy",
                                   "accessScope": {"type": "cluster", "namespaces": []},
                                   "associatedAt": now, "modifiedAt": now}]
            self._put_entry(name, entry)
        return {"cluster": self.cluster_public(cluster)}

    def op_DescribeCluster(self, ctx, p):
        return {"cluster": self.cluster_public(self._cluster(p["name"]))}

    def op_ListClusters(self, ctx, p):
        names = sorted(self.store.all("eks:clusters"))
        items, token = page(names, p.get("maxResults") or 100, p.get("nextToken"))
        out = {"clusters": items}
        if token:
            out["nextToken"] = token
        return out

    def _by_arn(self, arn):
        for name in self.store.all("eks:clusters"):
            c = self.store.get("eks:clusters", name)
            if c and c.get("arn") == arn:
                return c
        raise AwsError("ResourceNotFoundException", "No resource found with ARN %s." % arn, 404)

    def op_TagResource(self, ctx, p):
        tags = p.get("tags")
        if not isinstance(tags, dict) or not tags:
            raise AwsError("BadRequestException", "tags must be a non-empty map.", 400)
        c = self._by_arn(p.get("resourceArn"))
        c.setdefault("tags", {}).update(tags)
        self.store.put("eks:clusters", c["name"], c)
        return {}

    def op_ListTagsForResource(self, ctx, p):
        return {"tags": dict(self._by_arn(p.get("resourceArn")).get("tags") or {})}

    def op_DeleteCluster(self, ctx, p):
        c = self._cluster(p["name"])
        if c.get("deletionProtection"):
            raise _invalid_request("Cluster %s has deletion protection enabled." % c["name"], clusterName=c["name"])
        if c["status"] == "CREATING":
            raise AwsError("ResourceInUseException", "Cluster %s is currently being created and cannot "
                           "be deleted until the creation is complete." % c["name"], 409,
                           extra={"clusterName": c["name"]})
        if c["status"] != "DELETING":
            c["status"] = "DELETING"
            c["_gone"] = self.clock.due(stable_rand(c["name"] + "del", 120, 300))
            self.store.put("eks:clusters", c["name"], c)
            for key, a in list(self.store.all("eks:addons").items()):
                if a["clusterName"] == c["name"]:
                    a["status"] = "DELETING"
                    self.store.put("eks:addons", key, a)
        return {"cluster": self.cluster_public(c)}

    def op_UpdateClusterConfig(self, ctx, p):
        c = self._cluster(p["name"])
        self._active(c)
        for u in self.store.values("eks:updates"):
            if u["_cluster"] == c["name"] and u["status"] == "InProgress":
                raise AwsError("ResourceInUseException", "Cannot update cluster %s because it has an "
                               "update in progress" % c["name"], 409, extra={"clusterName": c["name"]})
        params = []
        utype = "ConfigUpdate"
        access = p.get("accessConfig")
        if access and access.get("authenticationMode"):
            cur = c["accessConfig"]["authenticationMode"]
            new = access["authenticationMode"]
            order = ["CONFIG_MAP", "API_AND_CONFIG_MAP", "API"]
            if order.index(new) < order.index(cur):
                raise _bad("Unsupported authentication mode update from %s to %s" % (cur, new),
                           clusterName=c["name"])
            utype = "AccessConfigUpdate"
            params.append({"type": "AuthenticationMode", "value": new})
            c["accessConfig"]["authenticationMode"] = new
        if p.get("logging"):
            utype = "LoggingUpdate"
            c["logging"] = p["logging"]
            params.append({"type": "ClusterLogging", "value": json.dumps(p["logging"])})
        if p.get("resourcesVpcConfig"):
            utype = "EndpointAccessUpdate"
            for k, v in p["resourcesVpcConfig"].items():
                if k in ("endpointPublicAccess", "endpointPrivateAccess", "publicAccessCidrs"):
                    c["resourcesVpcConfig"][k] = v
                    params.append({"type": k[0].upper() + k[1:], "value": json.dumps(v)})
        if "deletionProtection" in p:
            c["deletionProtection"] = bool(p["deletionProtection"])
            utype = "DeletionProtectionUpdate"
            params.append({"type": "DeletionProtection", "value": json.dumps(bool(p["deletionProtection"]))})
        if not params:
            raise _bad("No changes needed for the provided update", clusterName=c["name"])
        self.store.put("eks:clusters", c["name"], c)
        uid = new_uuid()
        upd = {"id": uid, "status": "InProgress", "type": utype, "params": params,
               "createdAt": self.clock.now(), "errors": [], "_cluster": c["name"],
               "_done": self.clock.due(60)}
        self.store.put("eks:updates", uid, upd)
        return {"update": _public(upd)}

    def op_DescribeUpdate(self, ctx, p):
        self._cluster(p["name"])
        upd = self.store.get("eks:updates", p.get("updateId", ""))
        if upd is None or upd["_cluster"] != p["name"]:
            raise _nf("No update found for ID: %s" % p.get("updateId"), clusterName=p["name"])
        return {"update": _public(upd)}

    def op_ListUpdates(self, ctx, p):
        self._cluster(p["name"])
        ids = [u["id"] for u in sorted(self.store.values("eks:updates"), key=lambda u: u["createdAt"])
               if u["_cluster"] == p["name"]]
        return {"updateIds": ids}

    # --- add-ons --------------------------------------------------------------
    def _addon_key(self, cluster, addon):
        return "%s/%s" % (cluster, addon)

    def _addon(self, cluster, addon):
        a = self.store.get("eks:addons", self._addon_key(cluster, addon))
        if a is None:
            raise _nf("No addon: %s found in cluster: %s" % (addon, cluster), clusterName=cluster,
                      addonName=addon)
        return a

    def op_CreateAddon(self, ctx, p):
        c = self._cluster(p["clusterName"])
        self._active(c)
        name = p["addonName"]
        if name not in ADDONS:
            raise _bad("Addon %s specified is not supported in %s kubernetes version" % (name, c["version"]),
                       clusterName=c["name"], addonName=name)
        key = self._addon_key(c["name"], name)
        if self.store.get("eks:addons", key):
            raise AwsError("ResourceInUseException", "Addon already exists.", 409,
                           extra={"clusterName": c["name"], "addonName": name})
        atype, owner, versions, ns = ADDONS[name]
        if not addon_supports(name, c["version"]):
            raise _bad("Addon %s specified is not supported in %s kubernetes version" % (name, c["version"]),
                       clusterName=c["name"], addonName=name)
        version = p.get("addonVersion") or addon_default_version(name, c["version"])
        if not self._version_ok(name, version, c["version"]):
            raise _bad("Addon version specified is not supported", clusterName=c["name"], addonName=name)
        if p.get("configurationValues"):
            try:
                json.loads(p["configurationValues"])
            except ValueError:
                raise _bad("ConfigurationValue provided in request is not supported: Json schema "
                           "validation failed with error: [$: unknown found, object expected]",
                           clusterName=c["name"], addonName=name)
        now = self.clock.now()
        addon = {"addonName": name, "clusterName": c["name"], "status": "CREATING",
                 "addonVersion": version, "health": {"issues": []},
                 "addonArn": self._arn("addon", "%s/%s/%s" % (c["name"], name, secrets.token_hex(8))),
                 "createdAt": now, "modifiedAt": now, "tags": p.get("tags") or {},
                 "publisher": owner, "owner": "aws",
                 "_ready": self.clock.due(stable_rand(name + str(now), 30, 90))}
        if p.get("serviceAccountRoleArn"):
            addon["serviceAccountRoleArn"] = p["serviceAccountRoleArn"]
        if p.get("configurationValues"):
            addon["configurationValues"] = p["configurationValues"]
        if p.get("namespaceConfig"):
            addon["namespaceConfig"] = p["namespaceConfig"]
        assoc_arns = []
        for pia in as_list(p.get("podIdentityAssociations")):
            rec = self._new_pia(c["name"], ns, pia.get("serviceAccount"), pia.get("roleArn"), owner_arn=addon["addonArn"])
            assoc_arns.append(rec["associationArn"])
        if assoc_arns:
            addon["podIdentityAssociations"] = assoc_arns
        self.store.put("eks:addons", key, addon)
        return {"addon": _public(addon)}

    def op_DescribeAddon(self, ctx, p):
        self._cluster(p["clusterName"])
        return {"addon": _public(self._addon(p["clusterName"], p["addonName"]))}

    def op_ListAddons(self, ctx, p):
        self._cluster(p["clusterName"])
        names = sorted(a["addonName"] for a in self.store.values("eks:addons")
                       if a["clusterName"] == p["clusterName"])
        items, token = page(names, p.get("maxResults") or 100, p.get("nextToken"))
        out = {"addons": items}
        if token:
            out["nextToken"] = token
        return out

    def op_DeleteAddon(self, ctx, p):
        self._cluster(p["clusterName"])
        a = self._addon(p["clusterName"], p["addonName"])
        if a["status"] != "DELETING":
            a["status"] = "DELETING"
            a["_gone"] = self.clock.due(stable_rand(a["addonArn"], 20, 60))
            a["_preserve"] = str(p.get("preserve", "false")).lower() == "true"
            self.store.put("eks:addons", self._addon_key(a["clusterName"], a["addonName"]), a)
        return {"addon": _public(a)}

    def op_UpdateAddon(self, ctx, p):
        self._cluster(p["clusterName"])
        a = self._addon(p["clusterName"], p["addonName"])
        if a["status"] not in ("ACTIVE", "DEGRADED", "UPDATE_FAILED"):
            raise AwsError("ResourceInUseException", "Addon %s is in %s state" % (a["addonName"], a["status"]),
                           409, extra={"clusterName": a["clusterName"], "addonName": a["addonName"]})
        if p.get("addonVersion"):
            c = self._cluster(p["clusterName"])
            if not self._version_ok(a["addonName"], p["addonVersion"], c["version"]):
                raise _bad("Addon version specified is not supported", clusterName=a["clusterName"],
                           addonName=a["addonName"])
            a["addonVersion"] = p["addonVersion"]
        if "configurationValues" in p:
            a["configurationValues"] = p["configurationValues"]
        a["status"] = "UPDATING"
        a["_ready"] = self.clock.due(30)
        a["modifiedAt"] = self.clock.now()
        self.store.put("eks:addons", self._addon_key(a["clusterName"], a["addonName"]), a)
        uid = new_uuid()
        upd = {"id": uid, "status": "InProgress", "type": "AddonUpdate",
               "params": [{"type": "AddonVersion", "value": a["addonVersion"]}],
               "createdAt": self.clock.now(), "errors": [], "_cluster": a["clusterName"],
               "_done": self.clock.due(30)}
        self.store.put("eks:updates", uid, upd)
        return {"update": _public(upd)}

    def _version_ok(self, name, version, kver):
        """Is add-on version published and compatible with Kubernetes kver?"""
        return (version is not None and version in ADDONS[name][2] and
                not self.world.faults.withdrawn(version) and
                kver in addon_version_compat(name, version)[0])

    def op_DescribeAddonVersions(self, ctx, p):
        names = [p["addonName"]] if p.get("addonName") else sorted(ADDONS)
        kver = p.get("kubernetesVersion")
        out = []
        for n in names:
            if n not in ADDONS:
                continue
            atype, owner, versions, ns = ADDONS[n]
            if p.get("types") and atype not in p["types"]:
                continue
            listed = []
            for v in versions:
                runs, defaults = addon_version_compat(n, v)
                if self.world.faults.withdrawn(v) or (kver and kver not in runs):
                    continue
                listed.append({"addonVersion": v, "architecture": ["amd64", "arm64"],
                               "computeTypes": ["ec2", "hyperpod"],
                               "compatibilities": [{"clusterVersion": cv, "platformVersions": ["*"],
                                                    "defaultVersion": cv in defaults}
                                                   for cv in ([kver] if kver else runs)],
                               "requiresConfiguration": False,
                               "requiresIamPermissions": n.startswith("amazon-sagemaker")})
            if kver and not listed:
                continue
            out.append({"addonName": n, "type": atype, "publisher": owner, "owner": "aws",
                        "defaultNamespace": ns, "addonVersions": listed})
        items, token = page(out, p.get("maxResults"), p.get("nextToken"))
        res = {"addons": items}
        if token:
            res["nextToken"] = token
        return res

    # --- access entries -----------------------------------------------------
    def _entry_key(self, cluster, principal):
        return "%s|%s" % (cluster, principal)

    def _new_entry(self, cluster, principal, etype, groups, username):
        now = self.clock.now()
        kind = "role" if ":role/" in principal else "user"
        pname = principal.rsplit("/", 1)[-1]
        if username is None:
            if kind == "role":
                username = "arn:aws:sts::%s:assumed-role/%s/{{SessionName}}" % (self.world.account, pname)
            else:
                username = principal
        return {"clusterName": cluster, "principalArn": principal, "kubernetesGroups": groups or [],
                "accessEntryArn": self._arn("access-entry", "%s/%s/%s/%s/%s" % (
                    cluster, kind, self.world.account, pname, secrets.token_hex(8))),
                "createdAt": now, "modifiedAt": now, "tags": {}, "username": username,
                "type": etype, "_policies": []}

    def _put_entry(self, cluster, entry):
        self.store.put("eks:access", self._entry_key(cluster, entry["principalArn"]), entry)

    def _entry(self, cluster, principal):
        e = self.store.get("eks:access", self._entry_key(cluster, principal))
        if e is None:
            raise _nf("The specified principalArn could not be found. You can view your available "
                      "access entries with 'list-access-entries'.", clusterName=cluster)
        return e

    def access_entry(self, cluster, principal):
        """Used by the Kubernetes authenticator."""
        return self.store.get("eks:access", self._entry_key(cluster, principal))

    def _api_mode(self, c):
        if c["accessConfig"]["authenticationMode"] == "CONFIG_MAP":
            raise _invalid_request("The cluster's authentication mode must be set to one of "
                                   "[API, API_AND_CONFIG_MAP] to perform this operation.",
                                   clusterName=c["name"])

    def op_CreateAccessEntry(self, ctx, p):
        c = self._cluster(p["clusterName"])
        self._api_mode(c)
        principal = p["principalArn"]
        if not re.match(r"^arn:aws[a-z-]*:iam::\d{12}:(role|user)/.+$", principal):
            raise _bad("The principalArn parameter format is not valid", clusterName=c["name"])
        if self.store.get("eks:access", self._entry_key(c["name"], principal)):
            raise AwsError("ResourceInUseException", "The specified access entry resource is already in use "
                           "on this cluster.", 409, extra={"clusterName": c["name"]})
        etype = p.get("type") or "STANDARD"
        if etype not in ("STANDARD", "FARGATE_LINUX", "EC2_LINUX", "EC2_WINDOWS", "EC2", "HYPERPOD_LINUX"):
            raise _bad("The type %s is not supported" % etype, clusterName=c["name"])
        groups = as_list(p.get("kubernetesGroups"))
        if etype != "STANDARD" and (groups or p.get("username")):
            raise _bad("kubernetesGroups and username are not allowed for access entries of type %s" % etype,
                       clusterName=c["name"])
        for g in groups:
            if g.startswith("system:"):
                raise _bad("The kubernetes group name %s is invalid, it cannot start with system:" % g,
                           clusterName=c["name"])
        uname = p.get("username")
        if uname is not None and (uname.startswith(RESERVED_USER_PREFIXES) or not uname.strip()):
            raise _bad("The username %s is invalid, it cannot start with %s" % (
                uname, ", ".join(RESERVED_USER_PREFIXES)), clusterName=c["name"])
        entry = self._new_entry(c["name"], principal, etype, groups, p.get("username"))
        if etype == "HYPERPOD_LINUX":
            entry["username"] = "system:node:hyperpod-{{SessionName}}"
        entry["tags"] = p.get("tags") or {}
        self._put_entry(c["name"], entry)
        return {"accessEntry": _public(entry)}

    def op_DescribeAccessEntry(self, ctx, p):
        self._cluster(p["clusterName"])
        return {"accessEntry": _public(self._entry(p["clusterName"], p["principalArn"]))}

    def op_ListAccessEntries(self, ctx, p):
        self._api_mode(self._cluster(p["clusterName"]))
        want = p.get("associatedPolicyArn")
        arns = sorted(e["principalArn"] for e in self.store.values("eks:access")
                      if e["clusterName"] == p["clusterName"] and
                      (not want or any(x["policyArn"] == want for x in e["_policies"])))
        items, token = page(arns, p.get("maxResults"), p.get("nextToken"), default=100)
        res = {"accessEntries": items}
        if token:
            res["nextToken"] = token
        return res

    def op_DeleteAccessEntry(self, ctx, p):
        self._cluster(p["clusterName"])
        e = self._entry(p["clusterName"], p["principalArn"])
        self.store.delete("eks:access", self._entry_key(p["clusterName"], e["principalArn"]))
        return {}

    def op_AssociateAccessPolicy(self, ctx, p):
        c = self._cluster(p["clusterName"])
        self._api_mode(c)
        e = self._entry(c["name"], p["principalArn"])
        parn = p["policyArn"]
        if not parn.startswith(POLICY_PREFIX) or parn[len(POLICY_PREFIX):] not in ACCESS_POLICIES:
            raise _bad("The specified policyArn is invalid", clusterName=c["name"])
        if e["type"] != "STANDARD":
            raise _invalid_request("Access policies can only be associated with access entries of type "
                                   "STANDARD; this one is %s" % e["type"], clusterName=c["name"])
        scope = p.get("accessScope") or {}
        stype = scope.get("type")
        ns = as_list(scope.get("namespaces"))
        if stype not in ("cluster", "namespace"):
            raise _bad("accessScope.type must be cluster or namespace", clusterName=c["name"])
        if stype == "namespace" and not ns:
            raise _bad("The namespaces list must not be empty when accessScope type is namespace",
                       clusterName=c["name"])
        if stype == "cluster" and ns:
            raise _bad("The namespaces list must be empty when accessScope type is cluster",
                       clusterName=c["name"])
        for n in ns:
            if not NAMESPACE_SCOPE.match(n) or len(n) > 63:
                raise _bad("The namespace %s is invalid: a Kubernetes namespace name of at most 63 "
                           "characters, optionally ending in * as a prefix match" % n,
                           clusterName=c["name"])
        now = self.clock.now()
        pol = None
        for x in e["_policies"]:
            if x["policyArn"] == parn:
                pol = x
        if pol is None:
            pol = {"policyArn": parn, "associatedAt": now}
            e["_policies"].append(pol)
        pol["accessScope"] = {"type": stype, "namespaces": ns}
        pol["modifiedAt"] = now
        self._put_entry(c["name"], e)
        return {"clusterName": c["name"], "principalArn": e["principalArn"], "associatedAccessPolicy": pol}

    def op_ListAssociatedAccessPolicies(self, ctx, p):
        c = self._cluster(p["clusterName"])
        self._api_mode(c)
        e = self._entry(c["name"], p["principalArn"])
        items, token = page(e["_policies"], p.get("maxResults"), p.get("nextToken"), default=100)
        res = {"clusterName": p["clusterName"], "principalArn": e["principalArn"],
               "associatedAccessPolicies": items}
        if token:
            res["nextToken"] = token
        return res

    def op_DisassociateAccessPolicy(self, ctx, p):
        e = self._entry(self._cluster(p["clusterName"])["name"], p["principalArn"])
        before = len(e["_policies"])
        e["_policies"] = [x for x in e["_policies"] if x["policyArn"] != p["policyArn"]]
        if len(e["_policies"]) == before:
            raise _nf("The specified policy is not associated with the access entry.",
                      clusterName=p["clusterName"])
        self._put_entry(p["clusterName"], e)
        return {}

    def op_ListAccessPolicies(self, ctx, p):
        return {"accessPolicies": [{"name": n, "arn": POLICY_PREFIX + n} for n in ACCESS_POLICIES]}

    # --- pod identity -----------------------------------------------------------
    def _new_pia(self, cluster, namespace, sa, role_arn, owner_arn=None, tags=None):
        aid = "a-" + secrets.token_hex(9)[:17]
        now = self.clock.now()
        rec = {"clusterName": cluster, "namespace": namespace, "serviceAccount": sa, "roleArn": role_arn,
               "associationArn": self._arn("podidentityassociation", "%s/%s" % (cluster, aid)),
               "associationId": aid, "tags": tags or {}, "createdAt": now, "modifiedAt": now,
               "disableSessionTags": False}
        if owner_arn:
            rec["ownerArn"] = owner_arn
        self.store.put("eks:podid", aid, rec)
        return rec

    def op_CreatePodIdentityAssociation(self, ctx, p):
        c = self._cluster(p["clusterName"])
        for r in self.store.values("eks:podid"):
            if (r["clusterName"], r["namespace"], r["serviceAccount"]) == (c["name"], p["namespace"], p["serviceAccount"]):
                raise AwsError("ResourceInUseException", "Association already exists: %s" % r["associationArn"],
                               409, extra={"clusterName": c["name"]})
        role_arn = p["roleArn"]
        role = self.store.get("iam:roles", role_arn.rsplit("/", 1)[-1])
        if role is None or role["Arn"] != role_arn:
            raise _bad("Role provided in the request does not exist", clusterName=c["name"])
        rec = self._new_pia(c["name"], p["namespace"], p["serviceAccount"], role_arn, tags=p.get("tags"))
        if p.get("targetRoleArn"):
            rec["targetRoleArn"] = p["targetRoleArn"]
            self.store.put("eks:podid", rec["associationId"], rec)
        return {"association": rec}

    def _pia(self, cluster, aid):
        r = self.store.get("eks:podid", aid or "")
        if r is None or r["clusterName"] != cluster:
            raise _nf("Pod identity association %s not found" % aid, clusterName=cluster)
        return r

    def op_DescribePodIdentityAssociation(self, ctx, p):
        self._cluster(p["clusterName"])
        return {"association": self._pia(p["clusterName"], p["associationId"])}

    def op_DeletePodIdentityAssociation(self, ctx, p):
        self._cluster(p["clusterName"])
        r = self._pia(p["clusterName"], p["associationId"])
        self.store.delete("eks:podid", r["associationId"])
        return {"association": r}

    def op_ListPodIdentityAssociations(self, ctx, p):
        self._cluster(p["clusterName"])
        out = [{k: r[k] for k in ("clusterName", "namespace", "serviceAccount", "associationArn",
                                  "associationId") if k in r}
               for r in self.store.values("eks:podid") if r["clusterName"] == p["clusterName"]
               and (not p.get("namespace") or r["namespace"] == p["namespace"])]
        return {"associations": out}

    # --- state machine -----------------------------------------------------------
    def _in_states(self, space, *states):
        """(key, document) of space whose status is one of states."""
        return [kv for st in states for kv in self.store.indexed(space, st).items()]

    def advance(self, now):
        for _, c in self._in_states("eks:clusters", "CREATING", "DELETING"):
            name = c["name"]
            if c["status"] == "CREATING" and now >= c["_ready"]:
                port = self.world.kube.ensure_server(name)
                c["status"] = "ACTIVE"
                c["endpoint"] = "https://%s:%d" % (self.world.host, port)
                self.store.put("eks:clusters", name, c)
                self.world.log("eks cluster %s ACTIVE at %s" % (name, c["endpoint"]))
            elif c["status"] == "DELETING" and now >= c.get("_gone", 0):
                self._purge(c)
        for key, a in self._in_states("eks:addons", "CREATING", "UPDATING", "DELETING"):
            if a["status"] in ("CREATING", "UPDATING") and now >= a.get("_ready", 0):
                c = self.store.get("eks:clusters", a["clusterName"])
                if c is None or c["status"] != "ACTIVE":
                    continue
                self.world.kube.install_addon(a["clusterName"], a["addonName"], a)
                a["status"] = "ACTIVE"
                a["modifiedAt"] = now
                self.store.put("eks:addons", key, a)
            elif a["status"] == "DELETING" and now >= a.get("_gone", 0):
                if not a.get("_preserve"):
                    self.world.kube.uninstall_addon(a["clusterName"], a["addonName"])
                for arn in a.get("podIdentityAssociations", []):
                    self.store.delete("eks:podid", arn.rsplit("/", 1)[-1])
                self.store.delete("eks:addons", key)
        for uid, u in list(self.store.all("eks:updates").items()):
            if u["status"] == "InProgress" and now >= u["_done"]:
                u["status"] = "Successful"
                self.store.put("eks:updates", uid, u)

    def _purge(self, c):
        name = c["name"]
        for key, a in list(self.store.all("eks:addons").items()):
            if a["clusterName"] == name:
                self.store.delete("eks:addons", key)
        for key, e in list(self.store.all("eks:access").items()):
            if e["clusterName"] == name:
                self.store.delete("eks:access", key)
        for key, r in list(self.store.all("eks:podid").items()):
            if r["clusterName"] == name:
                self.store.delete("eks:podid", key)
        for key, u in list(self.store.all("eks:updates").items()):
            if u["_cluster"] == name:
                self.store.delete("eks:updates", key)
        csg = c["resourcesVpcConfig"].get("clusterSecurityGroupId")
        if csg:
            self.store.delete("ec2:sg", csg)
        self.store.delete("eks:clusters", name)
        self.world.kube.remove_cluster(name)
        self.world.log("eks cluster %s deleted" % name)

    def snapshot(self):
        return {"clusters": {n: c["status"] for n, c in self.store.all("eks:clusters").items()},
                "addons": {k: a["status"] for k, a in self.store.all("eks:addons").items()},
                "access_entries": sorted(self.store.all("eks:access")),
                "pod_identity_associations": sorted(self.store.all("eks:podid"))}


def _public(rec):
    return {k: v for k, v in rec.items() if not k.startswith("_")}
