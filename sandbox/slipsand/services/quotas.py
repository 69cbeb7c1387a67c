"""Service Quotas (json 1.1): SageMaker HyperPod instance quotas, settable via /_sandbox/quotas.

Quota names follow SageMaker's ("ml.p5.48xlarge for cluster usage"); quota
codes are stable per name.  HyperPod CreateCluster/UpdateCluster consult the
same values and answer ResourceLimitExceeded when a request would exceed one.
"""
import hashlib

from ..gateway import AwsService
from ..protocols import AwsError, JsonProtocol
from . import catalog
from .util import page

DEFAULT_LIMIT = 16
SMALL_DEFAULTS = {"ml.p5.48xlarge": 8, "ml.p5e.48xlarge": 4, "ml.p5en.48xlarge": 4,
                  "ml.p6-b200.48xlarge": 2, "ml.p4de.24xlarge": 4, "ml.trn2.48xlarge": 4}


def quota_code(name):
    return "L-" + hashlib.sha256(name.encode()).hexdigest()[:8].upper()


class QuotasService(AwsService):
    name = "servicequotas"
    protocol = JsonProtocol("ServiceQuotasV20190624")

    def _names(self):
        names = ["ml.%s for cluster usage" % t for t in sorted(catalog.TYPES)]
        names.append("Maximum number of instances per cluster")
        names.append("Total number of instances allowed across SageMaker HyperPod clusters")
        return names

    def default_value(self, name):
        if name.endswith(" for cluster usage"):
            itype = name[: -len(" for cluster usage")]
            return SMALL_DEFAULTS.get(itype, DEFAULT_LIMIT)
        if name.startswith("Total number"):
            return 100
        return 100

    def quota_value(self, name):
        v = self.store.get("quotas", name)
        return v if v is not None else self.default_value(name)

    def set_quotas(self, spec):
        if not isinstance(spec, dict):
            raise ValueError("quotas must be an object of name -> value")
        for k, v in spec.items():
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                raise ValueError("quota %s must be a non-negative number" % k)
            name = k if " " in k else "%s for cluster usage" % (k if k.startswith("ml.") else "ml." + k)
            self.store.put("quotas", name, v)

    def quota_table(self):
        return {n: self.quota_value(n) for n in self._names()}

    def _quota(self, name):
        return {"ServiceCode": "sagemaker", "ServiceName": "Amazon SageMaker",
                "QuotaArn": "arn:aws:servicequotas:%s:%s:sagemaker/%s" % (
                    self.world.region, self.world.account, quota_code(name)),
                "QuotaCode": quota_code(name), "QuotaName": name, "Value": float(self.quota_value(name)),
                "Unit": "None", "Adjustable": True, "GlobalQuota": False,
                "QuotaAppliedAtLevel": "ACCOUNT"}

    def _by_code(self, service, code):
        if service != "sagemaker":
            raise AwsError("NoSuchResourceException", "The request failed because the specified service "
                           "does not exist.", 400)
        for n in self._names():
            if quota_code(n) == code:
                return n
        raise AwsError("NoSuchResourceException", "The request failed because the specified quota does "
                       "not exist.", 400)

    def op_GetServiceQuota(self, ctx, p):
        return {"Quota": self._quota(self._by_code(p.get("ServiceCode"), p.get("QuotaCode")))}

    def op_GetAWSDefaultServiceQuota(self, ctx, p):
        name = self._by_code(p.get("ServiceCode"), p.get("QuotaCode"))
        q = self._quota(name)
        q["Value"] = float(self.default_value(name))
        return {"Quota": q}

    def op_ListServiceQuotas(self, ctx, p):
        if p.get("ServiceCode") != "sagemaker":
            raise AwsError("NoSuchResourceException", "The request failed because the specified service "
                           "does not exist.", 400)
        items = [self._quota(n) for n in self._names()]
        if p.get("QuotaCode"):
            items = [q for q in items if q["QuotaCode"] == p["QuotaCode"]]
        items, token = page(items, p.get("MaxResults") or 100, p.get("NextToken"))
        out = {"Quotas": items}
        if token:
            out["NextToken"] = token
        return out

    def op_RequestServiceQuotaIncrease(self, ctx, p):
        name = self._by_code(p.get("ServiceCode"), p.get("QuotaCode"))
        self.store.put("quotas", name, p.get("DesiredValue"))
        return {"RequestedQuota": {"Id": quota_code(name) + "-req", "ServiceCode": "sagemaker",
                                   "QuotaCode": quota_code(name), "QuotaName": name,
                                   "DesiredValue": p.get("DesiredValue"), "Status": "APPROVED"}}

    def snapshot(self):
        return {"overrides": dict(self.store.all("quotas"))}
