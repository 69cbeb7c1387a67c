#!/usr/bin/python3
"""The Price List Query API of the sandbox through the real aws CLI: the
three endpoint regions only, GetProducts with every filter type and
pagination, PriceList items as JSON strings in the aws_v1 shape, errors
from the model, and prices set or removed through the control API."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, find_aws, run  # noqa: E402

t = T()
AWS = find_aws()
if not AWS:
    t.skip_all("aws CLI not on PATH")

sb = Sandbox(speed=600)
env = sb.aws_env()


def aws(*args, region="us-east-1"):
    rc, out, err = run([AWS, "--endpoint-url", sb.endpoint, "--region", region,
                        "--output", "json", "pricing"] + list(args), env=env)
    try:
        data = json.loads(out) if out.strip() else None
    except ValueError:
        data = None
    return rc, data, err


def products(*filters, extra=()):
    args = ["get-products", "--service-code", "AmazonSageMaker"]
    if filters:
        args += ["--filters", json.dumps([{"Type": a, "Field": b, "Value": c}
                                          for a, b, c in filters])]
    rc, out, err = aws(*(args + list(extra)))
    return rc, out, err


rc, out, err = products(("TERM_MATCH", "regionCode", "us-west-2"),
                        ("TERM_MATCH", "usagetype", "USW2-Cluster:ml.p5.48xlarge"))
items = (out or {}).get("PriceList", [])
t.ok(rc == 0 and len(items) == 1 and isinstance(items[0], str),
     "get-products: one HyperPod p5.48xlarge product in us-west-2, as a JSON string")
item = json.loads(items[0]) if items else {}
attrs = item.get("product", {}).get("attributes", {})
t.eq((item.get("serviceCode"), attrs.get("instanceName"), attrs.get("component"),
      attrs.get("location")),
     ("AmazonSageMaker", "ml.p5.48xlarge", "Cluster", "US West (Oregon)"),
     "the product's service, instance name, component and location")
terms = list(item.get("terms", {}).get("OnDemand", {}).values())
dims = list(terms[0]["priceDimensions"].values()) if terms else []
t.ok(len(dims) == 1 and dims[0]["unit"] == "Hrs" and float(dims[0]["pricePerUnit"]["USD"]) > 0
     and "illustrative" in dims[0]["description"],
     "one on-demand dimension in Hrs with a USD price labelled illustrative")
t.eq(out.get("FormatVersion") if out else None, "aws_v1", "FormatVersion aws_v1")
t.ok(item.get("publicationDate", "").endswith("Z") and terms and
     terms[0]["offerTermCode"] == "JRTCKXETXF", "publicationDate and the on-demand offer term")

rc, out, err = products(("TERM_MATCH", "regionCode", "us-west-2"),
                        ("CONTAINS", "usagetype", "-Cluster:ml.g5."))
names = sorted(json.loads(i)["product"]["attributes"]["instanceName"]
               for i in (out or {}).get("PriceList", []))
t.ok(rc == 0 and names and all(n.startswith("ml.g5.") for n in names) and "ml.g5.2xlarge" in names,
     "CONTAINS matches a substring (%d g5 types)" % len(names))
rc, out, err = products(("TERM_MATCH", "regionCode", "us-west-2"),
                        ("ANY_OF", "instanceName", "ml.g5.2xlarge,ml.p5.48xlarge"))
t.eq(len((out or {}).get("PriceList", [])), 2, "ANY_OF takes a comma-separated list")
rc, out, err = products(("TERM_MATCH", "regionCode", "us-west-2"),
                        ("CONTAINS", "instanceName", "ml.g5."),
                        ("NONE_OF", "instanceName", "ml.g5.2xlarge,ml.g5.xlarge"))
left = [json.loads(i)["product"]["attributes"]["instanceName"] for i in (out or {}).get("PriceList", [])]
t.ok(rc == 0 and left and "ml.g5.2xlarge" not in left and "ml.g5.xlarge" not in left,
     "NONE_OF excludes the listed values")

rc, out, err = products(("TERM_MATCH", "regionCode", "us-west-2"), extra=["--max-items", "7"])
rc2, whole, err2 = products(("TERM_MATCH", "regionCode", "us-west-2"))
t.ok(rc == 0 and len(out.get("PriceList", [])) == 7 and out.get("NextToken"),
     "--max-items 7 pages with a NextToken")
rc, page1, err = products(("TERM_MATCH", "regionCode", "us-west-2"),
                          extra=["--max-results", "5", "--no-paginate"])
t.ok(rc == 0 and len(page1.get("PriceList", [])) == 5 and page1.get("NextToken"),
     "MaxResults 5 answers 5 and a NextToken")
t.ok(rc2 == 0 and len(whole["PriceList"]) > 20, "the CLI's pagination gathers every page")

rc, out, err = aws("get-products", "--service-code", "AmazonSageMaker",
                   "--next-token", "bm90LWEtdG9rZW4=", "--no-paginate")
t.ok(rc != 0 and "InvalidNextTokenException" in err, "a forged NextToken: InvalidNextTokenException")
rc, out, err = aws("get-products", "--service-code", "AmazonNothing")
t.ok(rc != 0 and "NotFoundException" in err, "an unknown service code: NotFoundException")
rc, out, err = aws("get-products", "--service-code", "AmazonSageMaker", "--filters",
                   "Type=SOUNDS_LIKE,Field=regionCode,Value=us-west-2")
t.ok(rc != 0 and "SOUNDS_LIKE" in err, "a filter type outside the enum is refused")
rc, out, err = aws("get-products", "--service-code", "AmazonSageMaker", region="us-west-2")
t.ok(rc != 0 and ("region" in err.lower() or "SignatureDoesNotMatch" in err or
                  "InvalidSignature" in err or "UnrecognizedClient" in err),
     "us-west-2 has no Price List endpoint: a request signed for it is refused")

rc, out, err = aws("describe-services", "--service-code", "AmazonSageMaker")
svc = (out or {}).get("Services", [{}])[0]
t.ok(rc == 0 and "usagetype" in svc.get("AttributeNames", []), "describe-services names usagetype")
rc, out, err = aws("get-attribute-values", "--service-code", "AmazonSageMaker",
                   "--attribute-name", "component")
t.eq([v["Value"] for v in (out or {}).get("AttributeValues", [])], ["Cluster"],
     "get-attribute-values component: Cluster")
rc, out, err = aws("get-products", "--service-code", "AmazonEC2", "--filters",
                   "Type=TERM_MATCH,Field=instanceType,Value=t3.medium",
                   "Type=TERM_MATCH,Field=regionCode,Value=us-east-1")
ec2 = [json.loads(i) for i in (out or {}).get("PriceList", [])]
usd = [d["pricePerUnit"]["USD"] for i in ec2 for term in i["terms"]["OnDemand"].values()
       for d in term["priceDimensions"].values()]
t.ok(rc == 0 and len(ec2) == 1 and float(usd[0]) == 0.0416
     and ec2[0]["product"]["attributes"]["usagetype"] == "BoxUsage:t3.medium",
     "EC2 t3.medium in us-east-1: the public $0.0416, usage type without a prefix")

sb.control("POST", "/prices", {"ml.g5.2xlarge": None, "ml.g5.4xlarge": 2.5})
rc, out, err = products(("TERM_MATCH", "regionCode", "us-west-2"),
                        ("ANY_OF", "instanceName", "ml.g5.2xlarge,ml.g5.4xlarge"))
got = {}
for i in (out or {}).get("PriceList", []):
    p = json.loads(i)
    dims = [d for term in p["terms"]["OnDemand"].values() for d in term["priceDimensions"].values()]
    got[p["product"]["attributes"]["instanceName"]] = dims[0]["pricePerUnit"]["USD"] if dims else None
t.eq(got, {"ml.g5.2xlarge": None, "ml.g5.4xlarge": "2.5000000000"},
     "a removed price leaves the product with no on-demand term; a set price is served")
status, body = sb.control("POST", "/prices", {"ml.g5.2xlarge": -1})
t.eq(status, 400, "a negative price is refused by the control API")
t.done()
