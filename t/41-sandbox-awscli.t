#!/usr/bin/python3
"""The real aws CLI (and Debian's aws v2 when installed) against the sandbox:
STS, EC2, IAM, EKS, SageMaker HyperPod and S3 commands, plus a tampered secret."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import SHARED, Sandbox, find_aws, find_debian_aws, run  # noqa: E402

t = T()
AWS = find_aws()
if not AWS:
    t.skip_all("aws CLI not on PATH")

sb = Sandbox(speed=600)
env = sb.aws_env()


def aws(*args, env=env, binary=AWS):
    rc, out, err = run([binary, "--endpoint-url", sb.endpoint, "--output", "json"] + list(args), env=env)
    try:
        data = json.loads(out) if out.strip() else None
    except ValueError:
        data = None
    return rc, data, err


rc, out, err = aws("sts", "get-caller-identity")
t.eq((rc, out and out.get("Account")), (0, "123456789012"), "aws sts get-caller-identity")
rc, out, err = aws("ec2", "describe-availability-zones")
zones = [(z["ZoneName"], z["ZoneId"]) for z in (out or {}).get("AvailabilityZones", [])]
t.ok(rc == 0 and ("us-west-2a", "usw2-az2") in zones and len(zones) == 4,
     "aws ec2 describe-availability-zones lists ZoneName + ZoneId")
net = sb.network()
eks = sb.eks_cluster("cli-eks", net)
rc, out, err = aws("eks", "describe-cluster", "--name", "cli-eks")
c = (out or {}).get("cluster", {})
t.ok(rc == 0 and c.get("status") == "ACTIVE" and c.get("endpoint", "").startswith("https://127.0.0.1:"),
     "aws eks describe-cluster: ACTIVE with endpoint")
t.ok(c.get("certificateAuthority", {}).get("data", "").startswith("LS0tLS1CRUdJTi"),
     "certificateAuthority.data is a base64 PEM")
t.ok(c.get("identity", {}).get("oidc", {}).get("issuer", "").startswith("https://oidc.eks.us-west-2.amazonaws.com/id/"),
     "identity.oidc.issuer present")
hp = sb.hyperpod("cli-hp", eks["arn"], net, [("workers", "ml.g5.8xlarge", 2)])
rc, out, err = aws("sagemaker", "describe-cluster", "--cluster-name", "cli-hp")
t.ok(rc == 0 and out["ClusterStatus"] == "InService" and out["InstanceGroups"][0]["CurrentCount"] == 2,
     "aws sagemaker describe-cluster: InService with 2 nodes")
rc, out, err = aws("sagemaker", "list-cluster-nodes", "--cluster-name", "cli-hp")
nodes = (out or {}).get("ClusterNodeSummaries", [])
t.ok(rc == 0 and len(nodes) == 2 and all(n["InstanceStatus"]["Status"] == "Running" for n in nodes),
     "aws sagemaker list-cluster-nodes: 2 Running")
rc, out, err = aws("iam", "get-role", "--role-name", "missing-role")
t.ok(rc != 0 and "NoSuchEntity" in err, "aws iam get-role -> NoSuchEntity")

src = os.path.join(sb.tmp, "hello.txt")
with open(src, "w") as f:
    f.write("hello sandbox\n")
rc, _, err = aws("s3", "mb", "s3://cli-bucket")
t.eq(rc, 0, "aws s3 mb")
rc, _, err = aws("s3", "cp", src, "s3://cli-bucket/dir/hello.txt")
t.eq(rc, 0, "aws s3 cp upload: " + err.strip()[:200])
rc, out, err = run([AWS, "--endpoint-url", sb.endpoint, "s3", "ls", "s3://cli-bucket/dir/"], env=env)
t.ok(rc == 0 and "hello.txt" in out, "aws s3 ls shows the object")
dst = os.path.join(sb.tmp, "back.txt")
rc, _, err = aws("s3", "cp", "s3://cli-bucket/dir/hello.txt", dst)
t.ok(rc == 0 and open(dst).read() == "hello sandbox\n", "aws s3 cp download round-trips")
rc, _, err = aws("s3", "rb", "s3://cli-bucket")
t.ok(rc != 0 and "BucketNotEmpty" in err, "aws s3 rb on a non-empty bucket -> BucketNotEmpty")
rc, _, err = aws("s3", "rb", "s3://cli-bucket", "--force")
t.eq(rc, 0, "aws s3 rb --force")

bad_env = dict(env, AWS_SECRET_ACCESS_KEY=sb.creds[1][:-2] + "xx")
rc, out, err = aws("sagemaker", "list-clusters", env=bad_env)
t.ok(rc != 0 and "InvalidSignatureException" in err, "tampered secret: sagemaker rejects the signature")
deb = find_debian_aws()
models = os.path.join(SHARED, "testdata", "aws-models")
if deb and os.path.isdir(models):
    data = os.path.join(sb.tmp, "models", "sagemaker", "2017-07-24")
    os.makedirs(data)
    shutil.copy(os.path.join(models, "sagemaker.json"), os.path.join(data, "service-2.json"))
    env2 = dict(env, AWS_DATA_PATH=os.path.join(sb.tmp, "models"), HOME=sb.tmp)
    rc, out, err = aws("sagemaker", "list-cluster-nodes", "--cluster-name", "cli-hp", env=env2, binary=deb)
    t.ok(rc == 0 and len(out["ClusterNodeSummaries"]) == 2, "Debian aws v2 with AWS_DATA_PATH models")
    rc, out, err = aws("sts", "get-caller-identity", env=env2, binary=deb)
    t.eq(rc, 0, "Debian aws v2 sts get-caller-identity")
else:
    t.skip("Debian's /usr/bin/aws (v2) is not installed", 2)

t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
