"""FSx (json 1.1): Lustre file systems, CREATING -> AVAILABLE, DELETING -> gone.

Deleted file systems answer FileSystemNotFound, as FSx does.
"""
import secrets
import string

from ..gateway import AwsService
from ..protocols import AwsError, JsonProtocol
from .util import as_list, page, stable_rand

CREATE = (300, 600)
DELETE = (120, 300)


class FsxService(AwsService):
    name = "fsx"
    protocol = JsonProtocol("AWSSimbaAPIService_v20180301")

    def uses_subnet(self, sid):
        return any(sid in f["SubnetIds"] for f in self.store.values("fsx:fs"))

    def _public(self, f):
        return {k: v for k, v in f.items() if not k.startswith("_")}

    def op_CreateFileSystem(self, ctx, p):
        ftype = p["FileSystemType"]
        if ftype != "LUSTRE":
            raise AwsError("BadRequest", "Only LUSTRE file systems are supported by this endpoint.", 400)
        token = p.get("ClientRequestToken")
        if token:
            for f in self.store.values("fsx:fs"):
                if f.get("_token") == token:
                    return {"FileSystem": self._public(f)}
        lc = p.get("LustreConfiguration") or {}
        deploy = lc.get("DeploymentType") or "SCRATCH_1"
        cap = p.get("StorageCapacity")
        if cap is None:
            raise AwsError("BadRequest", "StorageCapacity is required for Lustre file systems.", 400)
        if deploy in ("SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"):
            if not (cap == 1200 or (cap >= 2400 and cap % 2400 == 0)):
                raise AwsError("BadRequest", "StorageCapacity must be 1200 or a multiple of 2400 GiB "
                               "for %s file systems." % deploy, 400)
        subnets = as_list(p.get("SubnetIds"))
        for s in subnets:
            if self.store.get("ec2:subnet", s) is None:
                raise AwsError("InvalidNetworkSettings", "The subnet ID '%s' does not exist" % s, 400,
                               extra={"InvalidSubnetId": s})
        for g in as_list(p.get("SecurityGroupIds")):
            if self.store.get("ec2:sg", g) is None:
                raise AwsError("InvalidNetworkSettings", "The security group '%s' does not exist" % g, 400,
                               extra={"InvalidSecurityGroupId": g})
        fid = "fs-" + secrets.token_hex(9)[:17]
        now = self.clock.now()
        sub = self.store.get("ec2:subnet", subnets[0]) if subnets else None
        mount = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(8))
        lustre = {"WeeklyMaintenanceStartTime": lc.get("WeeklyMaintenanceStartTime", "1:03:00"),
                  "DeploymentType": deploy, "MountName": mount,
                  "DataCompressionType": lc.get("DataCompressionType", "NONE")}
        if lc.get("PerUnitStorageThroughput"):
            lustre["PerUnitStorageThroughput"] = lc["PerUnitStorageThroughput"]
        if lc.get("ImportPath"):
            lustre["DataRepositoryConfiguration"] = {"Lifecycle": "CREATING", "ImportPath": lc["ImportPath"]}
        fs = {"OwnerId": self.world.account, "CreationTime": now, "FileSystemId": fid,
              "FileSystemType": "LUSTRE", "Lifecycle": "CREATING", "StorageCapacity": cap,
              "StorageType": p.get("StorageType", "SSD"), "VpcId": sub["vpcId"] if sub else None,
              "SubnetIds": subnets, "NetworkInterfaceIds": ["eni-" + secrets.token_hex(9)[:17]],
              "DNSName": "%s.fsx.%s.amazonaws.com" % (fid, self.world.region),
              "ResourceARN": "arn:aws:fsx:%s:%s:file-system/%s" % (self.world.region, self.world.account, fid),
              "Tags": p.get("Tags") or [], "LustreConfiguration": lustre,
              "FileSystemTypeVersion": p.get("FileSystemTypeVersion", "2.15"),
              "_ready": self.clock.due(stable_rand(fid, *CREATE), now), "_token": token,
              "_sgs": as_list(p.get("SecurityGroupIds"))}
        self.store.put("fsx:fs", fid, fs)
        return {"FileSystem": self._public(fs)}

    def op_DescribeFileSystems(self, ctx, p):
        ids = as_list(p.get("FileSystemIds"))
        all_fs = self.store.all("fsx:fs")
        for i in ids:
            if i not in all_fs:
                raise AwsError("FileSystemNotFound", "File system '%s' does not exist." % i, 400)
        items = [all_fs[i] for i in ids] if ids else sorted(all_fs.values(), key=lambda f: f["CreationTime"])
        items, token = page(items, p.get("MaxResults"), p.get("NextToken"))
        out = {"FileSystems": [self._public(f) for f in items]}
        if token:
            out["NextToken"] = token
        return out

    def op_DeleteFileSystem(self, ctx, p):
        f = self.store.get("fsx:fs", p["FileSystemId"])
        if f is None:
            raise AwsError("FileSystemNotFound", "File system '%s' does not exist." % p["FileSystemId"], 400)
        if f["Lifecycle"] == "CREATING":
            raise AwsError("BadRequest", "Cannot delete file system %s while it is being created." % f["FileSystemId"], 400)
        if f["Lifecycle"] != "DELETING":
            f["Lifecycle"] = "DELETING"
            f["_gone"] = self.clock.due(stable_rand(f["FileSystemId"] + "d", *DELETE))
            self.store.put("fsx:fs", f["FileSystemId"], f)
        return {"FileSystemId": f["FileSystemId"], "Lifecycle": "DELETING",
                "LustreResponse": {"FinalBackupTags": []}}

    def advance(self, now):
        for fid, f in list(self.store.all("fsx:fs").items()):
            if f["Lifecycle"] == "CREATING" and now >= f["_ready"]:
                f["Lifecycle"] = "AVAILABLE"
                drc = f["LustreConfiguration"].get("DataRepositoryConfiguration")
                if drc:
                    drc["Lifecycle"] = "AVAILABLE"
                self.store.put("fsx:fs", fid, f)
            elif f["Lifecycle"] == "DELETING" and now >= f.get("_gone", 0):
                self.store.delete("fsx:fs", fid)

    def snapshot(self):
        return {"file_systems": {k: f["Lifecycle"] for k, f in self.store.all("fsx:fs").items()}}
