"""The Price List Query API (json 1.1): GetProducts, DescribeServices, GetAttributeValues.

Served only from its three real endpoints' regions (us-east-1, eu-central-1,
ap-south-1).  Products come in the real aws_v1 shape: each PriceList item
is a JSON *string* holding product, serviceCode, terms, version and
publicationDate.

No HyperPod price could be confirmed from a public source, so every
AmazonSageMaker price here is ILLUSTRATIVE test data, derived from the
instance's accelerators, and says so in its priceDimensions description.
The one EC2 price with a public source (t3.medium, Linux, shared tenancy,
$0.0416 in us-east-1 and us-west-2) is served as is; other EC2 types are
illustrative too.  Prices can be set or removed through /_sandbox/prices,
so tests can see a price change, or a type with no price at all.
"""
import hashlib
import json

from ..gateway import AwsService
from ..protocols import AwsError, JsonProtocol
from . import catalog
from .util import page

ENDPOINT_REGIONS = ("us-east-1", "eu-central-1", "ap-south-1")
PUBLISHED = "2026-11-01T00:00:00Z"
VERSION = "20261101000000"
ON_DEMAND = "JRTCKXETXF"
RATE = "6YS6EN2CT7"
ILLUSTRATIVE = "illustrative sandbox price, not an AWS price"

# Region code -> (location name, usage-type prefix), as AWS bills them.
REGIONS = {
    "us-east-1": ("US East (N. Virginia)", "USE1"),
    "us-east-2": ("US East (Ohio)", "USE2"),
    "us-west-1": ("US West (N. California)", "USW1"),
    "us-west-2": ("US West (Oregon)", "USW2"),
    "eu-west-1": ("EU (Ireland)", "EU"),
    "eu-central-1": ("EU (Frankfurt)", "EUC1"),
    "ap-northeast-1": ("Asia Pacific (Tokyo)", "APN1"),
    "ap-south-1": ("Asia Pacific (Mumbai)", "APS3"),
}

# Illustrative USD per accelerator-hour, plus a share per vCPU.
ACCEL_RATE = {"A100": 4.10, "H100": 7.60, "H200": 8.90, "B200": 11.40, "A10G": 1.41,
              "L4": 0.98, "L40S": 2.35, "Trainium": 1.49, "Trainium2": 2.90,
              "Inferentia2": 0.81}
VCPU_RATE = 0.048
SOURCED_EC2 = {("t3.medium", "us-east-1"): "0.0416", ("t3.medium", "us-west-2"): "0.0416"}

SERVICES = {
    "AmazonSageMaker": ("Amazon SageMaker", ["component", "gpu", "instanceName", "instanceType",
                                             "location", "locationType", "memory",
                                             "regionCode", "servicecode", "servicename",
                                             "usagetype", "vCpu"]),
    "AmazonEC2": ("Amazon Elastic Compute Cloud", ["capacitystatus", "instanceType",
                                                   "licenseModel", "location", "locationType",
                                                   "memory", "operatingSystem", "operation",
                                                   "preInstalledSw", "regionCode",
                                                   "servicecode", "servicename", "tenancy",
                                                   "usagetype", "vcpu"]),
}


def _sku(*parts):
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(alphabet[b % len(alphabet)] for b in digest[:16])


def illustrative_price(itype):
    s = catalog.spec(itype)
    if s is None:
        return None
    rate = s["vcpus"] * VCPU_RATE
    if s["accelerators"]:
        rate += s["accelerators"] * ACCEL_RATE.get(s["accelerator"], 1.0)
    return "%.10f" % rate


def _item(service, attrs, family, price, note):
    sku = _sku(service, attrs["regionCode"], attrs["usagetype"])
    dim = "%s.%s.%s" % (sku, ON_DEMAND, RATE)
    item = {"product": {"productFamily": family, "attributes": attrs, "sku": sku},
            "serviceCode": service, "version": VERSION, "publicationDate": PUBLISHED,
            "terms": {"OnDemand": {}}}
    if price is not None:
        item["terms"]["OnDemand"]["%s.%s" % (sku, ON_DEMAND)] = {
            "priceDimensions": {dim: {
                "unit": "Hrs", "endRange": "Inf", "beginRange": "0", "appliesTo": [],
                "rateCode": dim, "pricePerUnit": {"USD": price},
                "description": "$%s per hour for %s (%s) - %s" % (
                    price.rstrip("0").rstrip("."), attrs.get("instanceName") or
                    attrs.get("instanceType"), note, attrs["location"])}},
            "sku": sku, "effectiveDate": PUBLISHED, "offerTermCode": ON_DEMAND,
            "termAttributes": {}}
    return item


class PricingService(AwsService):
    name = "pricing"
    signing_name = "pricing"
    protocol = JsonProtocol("AWSPriceListService")

    def allowed_regions(self):
        return set(ENDPOINT_REGIONS)

    # --- the catalogue --------------------------------------------------
    def set_prices(self, spec):
        """{"ml.<type>" | "<ec2 type>": USD per hour, or null to remove the price}."""
        if not isinstance(spec, dict):
            raise ValueError("prices must be an object of instance type -> USD per hour or null")
        for k, v in spec.items():
            if catalog.spec(k) is None:
                raise ValueError("unknown instance type %s" % k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or v < 0):
                raise ValueError("price of %s must be a non-negative number or null" % k)
            self.store.put("pricing", k, "none" if v is None else "%.10f" % v)

    def _price(self, key, default):
        v = self.store.get("pricing", key)
        if v is None:
            return default
        return None if v == "none" else v

    def price_table(self):
        return dict(self.store.all("pricing"))

    def _products(self, service):
        out = []
        for region, (location, prefix) in sorted(REGIONS.items()):
            for base in sorted(catalog.TYPES):
                s = catalog.spec(base)
                if service == "AmazonSageMaker":
                    name = "ml." + base
                    attrs = {"servicecode": service, "servicename": SERVICES[service][0],
                             "regionCode": region, "location": location,
                             "locationType": "AWS Region", "component": "Cluster",
                             "instanceName": name, "instanceType": name + "-Cluster",
                             "usagetype": "%s-Cluster:%s" % (prefix, name),
                             "vCpu": str(s["vcpus"]), "memory": "%d GiB" % s["memory_gib"],
                             "gpu": str(s["gpus"])}
                    price = self._price(name, illustrative_price(base))
                    out.append(_item(service, attrs, "ML Instance", price, "HyperPod cluster, "
                                     + ILLUSTRATIVE))
                else:
                    usage = ("BoxUsage:%s" if region == "us-east-1" else
                             prefix + "-BoxUsage:%s") % base
                    attrs = {"servicecode": service, "servicename": SERVICES[service][0],
                             "regionCode": region, "location": location,
                             "locationType": "AWS Region", "instanceType": base,
                             "operatingSystem": "Linux", "preInstalledSw": "NA",
                             "licenseModel": "No License required", "tenancy": "Shared",
                             "capacitystatus": "Used", "operation": "RunInstances",
                             "usagetype": usage, "vcpu": str(s["vcpus"]),
                             "memory": "%d GiB" % s["memory_gib"]}
                    sourced = SOURCED_EC2.get((base, region))
                    price = self._price(base, sourced or illustrative_price(base))
                    note = ("Linux on-demand" if sourced and price == sourced else
                            "Linux on-demand, " + ILLUSTRATIVE)
                    out.append(_item(service, attrs, "Compute Instance", price, note))
        return out

    # --- the API --------------------------------------------------------
    @staticmethod
    def _need_service(code):
        if code not in SERVICES:
            raise AwsError("NotFoundException", "The requested resource can't be found.", 400)

    @staticmethod
    def _format(p):
        fv = p.get("FormatVersion")
        if fv is not None and fv != "aws_v1":
            raise AwsError("InvalidParameterException", "Input parameters are invalid. "
                           "Invalid FormatVersion: %s" % fv, 400)

    @staticmethod
    def _matches(item, f):
        field, value, ftype = f["Field"], f["Value"], f["Type"]
        if field == "ServiceCode":
            have = item["serviceCode"]
        elif field == "sku":
            have = item["product"]["sku"]
        else:
            have = item["product"]["attributes"].get(field)
        values = [v.strip() for v in value.split(",")]
        if ftype == "NONE_OF":
            return have is None or have not in values
        if have is None:
            return False
        if ftype == "CONTAINS":
            return value in have
        if ftype == "ANY_OF":
            return have in values
        return have == value

    @staticmethod
    def _page(items, p):
        try:
            return page(items, p.get("MaxResults") or 100, p.get("NextToken"))
        except AwsError:
            raise AwsError("InvalidNextTokenException", "The pagination token is invalid. "
                           "Try again without a pagination token.", 400)

    def op_GetProducts(self, ctx, p):
        self._need_service(p["ServiceCode"])
        self._format(p)
        items = [i for i in self._products(p["ServiceCode"])
                 if all(self._matches(i, f) for f in p.get("Filters") or [])]
        items, token = self._page(items, p)
        out = {"FormatVersion": "aws_v1",
               "PriceList": [json.dumps(i, separators=(",", ":")) for i in items]}
        if token:
            out["NextToken"] = token
        return out

    def op_DescribeServices(self, ctx, p):
        self._format(p)
        codes = sorted(SERVICES)
        if p.get("ServiceCode"):
            self._need_service(p["ServiceCode"])
            codes = [p["ServiceCode"]]
        items = [{"ServiceCode": c, "AttributeNames": SERVICES[c][1]} for c in codes]
        items, token = self._page(items, p)
        out = {"FormatVersion": "aws_v1", "Services": items}
        if token:
            out["NextToken"] = token
        return out

    def op_GetAttributeValues(self, ctx, p):
        self._need_service(p["ServiceCode"])
        name = p["AttributeName"]
        if name not in SERVICES[p["ServiceCode"]][1]:
            raise AwsError("NotFoundException", "The requested resource can't be found.", 400)
        values = sorted({i["product"]["attributes"].get(name)
                         for i in self._products(p["ServiceCode"])} - {None})
        items, token = self._page([{"Value": v} for v in values], p)
        out = {"AttributeValues": items}
        if token:
            out["NextToken"] = token
        return out

    def snapshot(self):
        return {"overrides": self.price_table()}
