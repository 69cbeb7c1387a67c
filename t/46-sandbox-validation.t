#!/usr/bin/python3
"""Model validation (from ../shared/testdata/aws-models): missing members, enums,
lengths, patterns and wrong types answered like AWS in each protocol; unknown
operations; malformed bodies; never a traceback."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import SHARED, Sandbox  # noqa: E402

t = T()
if not os.path.isdir(os.path.join(SHARED, "testdata", "aws-models")):
    t.skip_all("shared aws-models absent")
sb = Sandbox(speed=600)


def sm(op, params):
    r = sb.aws_json("sagemaker", op, params)
    return r.status, r.json().get("__type"), r.json().get("message") or r.json().get("Message", "")


st, code, msg = sm("DescribeCluster", {})
t.eq((st, code), (400, "ValidationException"), "missing required member -> ValidationException")
t.ok("Value null at 'clusterName' failed to satisfy constraint: Member must not be null" in msg, "names the member: " + msg)
st, code, msg = sm("CreateCluster", {"ClusterName": "bad_name!"})
t.ok(code == "ValidationException" and "regular expression pattern" in msg and "clusterName" in msg,
     "pattern violation names the member")
st, code, msg = sm("CreateCluster", {"ClusterName": "ok", "NodeRecovery": "Sometimes"})
t.ok(code == "ValidationException" and "enum value set: [Automatic, None]" in msg, "enum violation: " + msg[:120])
st, code, msg = sm("CreateCluster", {"ClusterName": "x" * 64})
t.ok(code == "ValidationException" and "length less than or equal to 63" in msg, "length violation")
st, code, msg = sm("CreateCluster", {"ClusterName": "ok", "InstanceGroups": [
    {"InstanceGroupName": "g", "InstanceType": "ml.p5.48xlarge", "InstanceCount": 99999, "ExecutionRole": "arn:aws:iam::123456789012:role/r"}]})
t.ok(code == "ValidationException" and "instanceGroups.1.member.instanceCount" in msg and "less than or equal to 6758" in msg,
     "range violation inside a list: " + msg[:160])
st, code, msg = sm("CreateCluster", {"ClusterName": 5})
t.eq(code, "SerializationException", "wrong JSON type -> SerializationException")
st, code, msg = sm("FrobnicateCluster", {})
t.eq((st, code), (400, "UnknownOperationException"), "unknown json operation -> UnknownOperationException")
r = sb.signed("POST", "/", "sagemaker", b"{not json", {"Content-Type": "application/x-amz-json-1.1",
                                                        "X-Amz-Target": "SageMaker.ListClusters"})
t.eq(r.json().get("__type"), "SerializationException", "malformed JSON body -> SerializationException")

r = sb.aws_rest("eks", "POST", "/clusters", {"name": "c1"})
t.ok(r.status == 400 and r.headers.get("x-amzn-errortype") == "InvalidParameterException" and "roleArn" in r.json()["message"],
     "eks missing roleArn -> InvalidParameterException naming it")
r = sb.aws_rest("eks", "POST", "/clusters", {"name": "c1", "roleArn": "r", "resourcesVpcConfig": {},
                                             "accessConfig": {"authenticationMode": "MAGIC"}})
t.ok(r.headers.get("x-amzn-errortype") == "InvalidParameterException" and "enum value set" in r.json()["message"],
     "eks enum violation")
r = sb.aws_rest("eks", "GET", "/no/such/path")
t.eq((r.status, r.headers.get("x-amzn-errortype")), (404, "UnknownOperationException"), "eks unknown path")
r = sb.aws_rest("eks", "GET", "/clusters?maxResults=1000")
t.ok(r.status == 400 and "maxResults" in r.json()["message"], "eks querystring range checked")

r = sb.aws_query("iam", {"Action": "CreateRole", "RoleName": "has space", "AssumeRolePolicyDocument": "{}"})
t.ok(r.status == 400 and "<Code>ValidationError</Code>" in r.text and "roleName" in r.text, "iam pattern -> ValidationError")
r = sb.aws_query("iam", {"Action": "GetRole"})
t.ok("<Code>ValidationError</Code>" in r.text and "must not be null" in r.text, "iam missing member -> ValidationError")
r = sb.aws_query("iam", {"Action": "Frobnicate"})
t.ok("<Code>InvalidAction</Code>" in r.text, "iam unknown action -> InvalidAction")
r = sb.aws_query("iam", {"Action": "CreateRole", "RoleName": "r", "AssumeRolePolicyDocument": "not json"})
t.ok("<Code>MalformedPolicyDocument</Code>" in r.text, "bad policy JSON -> MalformedPolicyDocument")

r = sb.aws_query("ec2", {"Action": "CreateSubnet", "CidrBlock": "10.0.0.0/24"})
t.ok("<Code>MissingParameter</Code>" in r.text and "VpcId" in r.text, "ec2 missing member -> MissingParameter")
r = sb.aws_query("ec2", {"Action": "Frobnicate"})
t.ok("<Response><Errors><Error><Code>InvalidAction</Code>" in r.text, "ec2 unknown action -> InvalidAction")
r = sb.aws_query("ec2", {"Action": "DescribeVpcs", "VpcId.1": "vpc-0123456789abcdef0"})
t.ok("<Code>InvalidVpcID.NotFound</Code>" in r.text, "ec2 unknown id -> InvalidVpcID.NotFound")
r = sb.aws_query("ec2", {"Action": "DescribeVpcs", "Filter.1.Name": "bogus", "Filter.1.Value.1": "x"})
t.ok("<Code>InvalidParameterValue</Code>" in r.text, "ec2 unknown filter -> InvalidParameterValue")
r = sb.aws_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.0.0.0/16", "DryRun": "true"})
t.ok(r.status == 412 and "<Code>DryRunOperation</Code>" in r.text, "ec2 DryRun -> DryRunOperation")

r = sb.aws_json("fsx", "CreateFileSystem", {"FileSystemType": "LUSTRE"})
t.ok(r.json().get("__type") == "ValidationException" and "subnetIds" in r.json().get("message", ""),
     "fsx missing SubnetIds -> ValidationException")
r = sb.raw("POST", "/", {"Content-Length": "abc"}, b"")
t.ok(r.status in (400, 403), "garbage request answered (%d), no traceback" % r.status)
t.ok("Traceback" not in sb.stderr(), "no Python traceback on stderr")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
