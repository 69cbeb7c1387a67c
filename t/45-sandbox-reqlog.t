#!/usr/bin/python3
"""Request log: one JSON line per request with service, operation, key params,
outcome and mutating flag; secrets never logged; queryable by filters."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox  # noqa: E402

t = T()
sb = Sandbox(speed=600)
sb.ok_query("ec2", {"Action": "DescribeAvailabilityZones"})
sb.ok_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.0.0.0/16"})
sb.ok_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.1.0.0/16"})
sb.aws_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.0.0.0/8"})
doc = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "x"},
                                                          "Action": "sts:AssumeRole"}]})
sb.ok_query("iam", {"Action": "CreateRole", "RoleName": "logged", "AssumeRolePolicyDocument": doc})
x = sb.ok_query("sts", {"Action": "AssumeRole", "RoleArn": "arn:aws:iam::123456789012:role/logged",
                        "RoleSessionName": "s1"})
sb.aws_json("sagemaker", "DescribeCluster", {"ClusterName": "missing"})

creates = sb.requests(service="ec2", operation="CreateVpc")
t.eq([(e["status"], e["error"]) for e in creates], [(200, None), (200, None), (400, "InvalidVpc.Range")],
     "three CreateVpc calls logged with outcomes")
t.ok(all(e["mutating"] for e in creates), "CreateVpc is mutating")
t.eq(creates[0]["params"].get("CidrBlock"), "10.0.0.0/16", "key parameters are logged")
muts = sb.requests(mutating=1)
t.eq(sorted({(e["service"], e["operation"]) for e in muts}), [("ec2", "CreateVpc"), ("iam", "CreateRole")],
     "mutating filter lists exactly the mutations")
ro = sb.requests(service="ec2", operation="DescribeAvailabilityZones")
t.eq((len(ro), ro[0]["mutating"]), (1, False), "describe calls are not mutating")
err = sb.requests(service="sagemaker")
t.eq((err[0]["status"], err[0]["error"]), (400, "ResourceNotFound"), "errors carry the error code")
t.ok(all(e.get("principal") == "arn:aws:iam::123456789012:user/slipway-sandbox" for e in muts), "principal recorded")

path = os.path.join(sb.state, "requests.jsonl")
raw = open(path).read()
lines = [json.loads(line) for line in raw.splitlines()]
t.ok(len(lines) == 7 and all("time" in e and "service" in e for e in lines), "DIR/requests.jsonl has one JSON line each")
import re  # noqa: E402
secret = re.search(r"<SecretAccessKey>(.*?)<", x).group(1)
token = re.search(r"<SessionToken>(.*?)<", x).group(1)
t.ok(sb.creds[1] not in raw and secret not in raw and token not in raw, "no secrets in the request log")
t.ok("AssumeRolePolicyDocument" not in raw, "policy documents are not logged")
since = lines[-1]["seq"]
sb.ok_rest("eks", "GET", "/clusters")
later = sb.requests(since=since)
t.eq([(e["service"], e["operation"]) for e in later if e["service"] != "control"], [("eks", "ListClusters")],
     "since= returns only newer entries")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
