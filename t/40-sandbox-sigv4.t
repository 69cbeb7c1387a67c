#!/usr/bin/python3
"""SigV4: the sandbox verifier against the shared signing vectors, and
rejection of tampered/unknown/skewed/mis-scoped requests in each protocol's shape."""
import datetime
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import SHARED, Sandbox, sigv4  # noqa: E402

t = T()
VEC = os.path.join(SHARED, "testdata", "sigv4")
# cases whose signed form deliberately differs from what a server must accept:
# token added after signing, and presigned POSTs that sign a body hash
SPECIAL = {("post-sts-header-after", "query"), ("post-x-www-form-urlencoded", "query"),
           ("post-x-www-form-urlencoded-parameters", "query")}


def parse_req(data):
    head, _, body = data.partition(b"\n\n")
    lines = head.decode("utf-8").split("\n")
    first = lines[0]
    method = first.split(" ", 1)[0]
    target = first[len(method) + 1:].rsplit(" ", 1)[0]
    hdrs = []
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and hdrs:
            hdrs[-1] = (hdrs[-1][0], hdrs[-1][1] + " " + line.strip())
            continue
        k, _, v = line.partition(":")
        hdrs.append((k, v))
    path, _, q = target.partition("?")
    return method, path, q, hdrs, body


if not os.path.isdir(VEC):
    t.skip("shared sigv4 vectors absent (%s)" % VEC)
else:
    dirs = sorted(glob.glob(VEC + "/aws-signing-test-suite/v4/*") + glob.glob(VEC + "/s3/*") +
                  glob.glob(VEC + "/service-requests/*") + glob.glob(VEC + "/smithy-rs-extras/v4/*"))
    good = bad_rejected = creq_ok = total = 0
    failures = []
    for d in dirs:
        ctx = json.load(open(d + "/context.json"))
        ts = datetime.datetime.strptime(ctx["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        s3 = ctx["service"] == "s3"
        for form in ("header", "query"):
            f = "%s/%s-signed-request.txt" % (d, form)
            if not os.path.exists(f) or (os.path.basename(d), form) in SPECIAL:
                continue
            total += 1
            m, p, q, h, b = parse_req(open(f, "rb").read())
            pairs = sigv4.parse_query(q)
            info = sigv4.parse_auth(h, pairs)
            norm = ctx.get("normalize", not s3)
            phash = (sigv4.UNSIGNED_PAYLOAD if s3 else sigv4.EMPTY_SHA256) if info.presigned else \
                sigv4.payload_hash_for(h, b, s3)
            creq = sigv4.canonical_request(m, p, pairs, h, info.signed_headers, phash, s3=s3, normalize=norm,
                                           double_encode=ctx.get("double_uri_encode", not s3),
                                           presigned=info.presigned)
            if creq == open("%s/%s-canonical-request.txt" % (d, form)).read():
                creq_ok += 1
            else:
                failures.append("creq %s %s" % (os.path.basename(d), form))
            if norm != (not s3):
                good += 1   # server-side normalisation rules differ on purpose; canonical form checked above
                bad_rejected += 1
                continue
            secret = ctx["credentials"]["secret_access_key"]
            try:
                sigv4.verify(info, m, p, pairs, h, b, secret, ts + 1, s3=s3)
                good += 1
            except sigv4.SigError as e:
                failures.append("verify %s %s: %s" % (os.path.basename(d), form, e.kind))
            info.signature = ("0" if info.signature[0] != "0" else "1") + info.signature[1:]
            try:
                sigv4.verify(info, m, p, pairs, h, b, secret, ts + 1, s3=s3)
                failures.append("tampered accepted %s %s" % (os.path.basename(d), form))
            except sigv4.SigError as e:
                if e.kind == "mismatch":
                    bad_rejected += 1
    t.ok(total >= 90, "found %d signed vector requests" % total)
    t.eq(creq_ok, total, "canonical requests match the vectors")
    t.eq(good, total, "every vector signature verifies")
    t.eq(bad_rejected, total, "every tampered vector signature is rejected")
    for f in failures[:10]:
        t.diag(f)
    # EKS get-token vectors: recompute the presigned signature
    for d in sorted(glob.glob(VEC + "/eks-get-token/*")):
        ctx = json.load(open(d + "/context.json"))
        url = open(d + "/presigned-url.txt").read().strip()
        token = open(d + "/token.txt").read().strip()
        import base64
        import urllib.parse
        raw = token[len("k8s-aws-v1."):]
        t.eq(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode(), url,
             "%s: token is k8s-aws-v1. + unpadded base64url(url)" % os.path.basename(d))
        parts = urllib.parse.urlsplit(url)
        pairs = sigv4.parse_query(parts.query)
        info = sigv4.parse_auth([], pairs)
        creq = sigv4.canonical_request("GET", "/", pairs, [("host", parts.netloc),
                                                          ("x-k8s-aws-id", ctx["cluster_name"])],
                                       info.signed_headers, sigv4.EMPTY_SHA256, presigned=True)
        t.eq(creq, open(d + "/query-canonical-request.txt").read(), "%s: canonical request" % os.path.basename(d))
        sig = sigv4.signature(ctx["credentials"]["secret_access_key"], info.date, info.region, info.service,
                              sigv4.string_to_sign(info.amz_date, info.scope, creq))
        t.eq(sig, info.signature, "%s: signature recomputed" % os.path.basename(d))

# --- over HTTP: each protocol's error shape ----------------------------------------------
sb = Sandbox(speed=600)
ak, sk = sb.creds
bad = (ak, sk[:-1] + ("A" if sk[-1] != "A" else "B"))

r = sb.aws_query("sts", {"Action": "GetCallerIdentity"})
t.eq(r.status, 200, "sts GetCallerIdentity with good signature")
t.ok("<Account>123456789012</Account>" in r.text, "caller identity names the account")

r = sb.aws_query("sts", {"Action": "GetCallerIdentity"}, creds=bad)
t.eq((r.status, "<Code>SignatureDoesNotMatch</Code>" in r.text, "<ErrorResponse" in r.text), (403, True, True),
     "query: bad signature -> 403 SignatureDoesNotMatch in <ErrorResponse>")
r = sb.aws_query("ec2", {"Action": "DescribeVpcs"}, creds=bad)
t.eq((r.status, "<Response><Errors><Error><Code>SignatureDoesNotMatch</Code>" in r.text), (403, True),
     "ec2: bad signature -> 403 <Response><Errors><Error><Code>")
r = sb.aws_json("sagemaker", "ListClusters", {}, creds=bad)
t.eq((r.status, r.json().get("__type")), (403, "InvalidSignatureException"), "json: bad signature -> __type")
r = sb.aws_rest("eks", "GET", "/clusters", creds=bad)
t.eq((r.status, r.headers.get("x-amzn-errortype")), (403, "InvalidSignatureException"),
     "rest-json: bad signature -> x-amzn-ErrorType")
r = sb.signed("GET", "/", "s3", b"", creds=bad, s3=True)
t.eq((r.status, "<Error><Code>SignatureDoesNotMatch</Code>" in r.text), (403, True), "s3: bad signature -> <Error>")

unknown = ("AKIAUNKNOWNUNKNOWN00", sk)
r = sb.aws_query("iam", {"Action": "ListRoles"}, creds=unknown)
t.eq((r.status, "<Code>InvalidClientTokenId</Code>" in r.text), (403, True), "iam: unknown key -> InvalidClientTokenId")
r = sb.aws_json("sagemaker", "ListClusters", {}, creds=unknown)
t.eq(r.json().get("__type"), "UnrecognizedClientException", "json: unknown key -> UnrecognizedClientException")
r = sb.aws_query("ec2", {"Action": "DescribeVpcs"}, creds=unknown)
t.eq((r.status, "<Code>AuthFailure</Code>" in r.text), (401, True), "ec2: unknown key -> AuthFailure")
r = sb.signed("GET", "/", "s3", b"", creds=unknown, s3=True)
t.ok("<Code>InvalidAccessKeyId</Code>" in r.text, "s3: unknown key -> InvalidAccessKeyId")

import time as _t  # noqa: E402
old = _t.time() - 20 * 60
r = sb.aws_query("sts", {"Action": "GetCallerIdentity"}, when=old)
t.ok(r.status == 403 and "Signature expired" in r.text, "query: 20 min clock skew -> Signature expired")
r = sb.signed("GET", "/", "s3", b"", when=old, s3=True)
t.ok(r.status == 403 and "<Code>RequestTimeTooSkewed</Code>" in r.text, "s3: skew -> RequestTimeTooSkewed")
r = sb.aws_query("ec2", {"Action": "DescribeVpcs"}, when=old)
t.ok("<Code>RequestExpired</Code>" in r.text, "ec2: skew -> RequestExpired")

r = sb.aws_json("sagemaker", "ListClusters", {}, region="eu-west-1")
t.ok(r.status == 403 and "scoped to a valid region" in r.json().get("message", ""), "wrong region in scope rejected")
r = sb.signed("POST", "/", "eks", json.dumps({}).encode(), {"Content-Type": "application/x-amz-json-1.1",
                                                         "X-Amz-Target": "SageMaker.ListClusters"})
t.ok(r.status == 403 and "correct service" in r.text, "credential scope for another service rejected")
r = sb.raw("POST", "/", {"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "SageMaker.ListClusters"}, b"{}")
t.eq(r.json().get("__type"), "MissingAuthenticationTokenException", "unsigned json call -> MissingAuthenticationToken")

# session token: assume a role, then use the session credentials
sb.ok_query("iam", {"Action": "CreateRole", "RoleName": "ops", "AssumeRolePolicyDocument": json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]})})
import re  # noqa: E402
x = sb.ok_query("sts", {"Action": "AssumeRole", "RoleArn": "arn:aws:iam::123456789012:role/ops", "RoleSessionName": "t1"})
sak = re.search(r"<AccessKeyId>(.*?)<", x).group(1)
ssk = re.search(r"<SecretAccessKey>(.*?)<", x).group(1)
stok = re.search(r"<SessionToken>(.*?)<", x).group(1)
r = sb.aws_query("sts", {"Action": "GetCallerIdentity"}, creds=(sak, ssk), token=stok)
t.ok(r.status == 200 and "assumed-role/ops/t1" in r.text, "session credentials with token work")
r = sb.aws_query("sts", {"Action": "GetCallerIdentity"}, creds=(sak, ssk))
t.eq(r.status, 403, "session credentials without their token are rejected")

# presigned query auth
url = sigv4.presign_url("GET", sb.endpoint + "/?Action=GetCallerIdentity&Version=2011-06-15", {}, ak, sk,
                        sb.region, "sts", _t.time(), expires=60)
import urllib.parse  # noqa: E402
u = urllib.parse.urlsplit(url)
r = sb.raw("GET", u.path + "?" + u.query)
t.eq(r.status, 200, "presigned GetCallerIdentity URL accepted")
r = sb.raw("GET", u.path + "?" + u.query.replace("X-Amz-Signature=", "X-Amz-Signature=0"))
t.eq(r.status, 403, "tampered presigned URL rejected")

t.eq(sb.stop(), 0, "sandbox exits 0 on SIGTERM")
t.done()
