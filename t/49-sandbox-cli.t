#!/usr/bin/python3
"""Command-line contract and S3 wire details: loopback only, --port 0,
sandbox.json fields, SIGINT exit 0, S3 path- and virtual-host-style,
UNSIGNED-PAYLOAD, aws-chunked streaming uploads, x-amz-content-sha256 checks."""
import hashlib
import hmac
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import PYTHON, SANDBOX, Sandbox, sigv4  # noqa: E402

t = T()
tmp = Sandbox(start=False).tmp
p = subprocess.run([PYTHON, SANDBOX, "--state-dir", os.path.join(tmp, "x"), "--host", "0.0.0.0"],
                   capture_output=True, timeout=20)
t.ok(p.returncode != 0 and b"loopback" in p.stderr, "non-loopback --host is refused")
p = subprocess.run([PYTHON, SANDBOX], capture_output=True, timeout=20)
t.ok(p.returncode != 0 and b"--state-dir" in p.stderr, "--state-dir is required")

sb = Sandbox(speed=600)
info = sb.info
for key in ("pid", "aws_endpoint", "region", "account_id", "access_key_id", "secret_access_key", "control_endpoint",
            "control_token", "speed", "kubernetes"):
    t.ok(key in info, "sandbox.json has %s" % key)
t.ok(info["aws_endpoint"].startswith("http://127.0.0.1:") and info["control_endpoint"] == info["aws_endpoint"] + "/_sandbox",
     "endpoints on loopback with a picked port")
t.eq((info["region"], info["account_id"], info["speed"]), ("us-west-2", "123456789012", 600), "region/account/speed")
t.eq(oct(os.stat(os.path.join(sb.state, "sandbox.json")).st_mode & 0o777), "0o600", "sandbox.json is private")
st, health = sb.control("GET", "/health", token=False)
t.eq((st, health.get("pid")), (200, info["pid"]), "/_sandbox/health needs no token")

# --- S3 wire details --------------------------------------------------------------------------
host = sb.endpoint.split("//")[1]
body = b'<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>us-west-2</LocationConstraint></CreateBucketConfiguration>'
r = sb.signed("PUT", "/wire", "s3", body, s3=True)
t.eq(r.status, 200, "CreateBucket path-style")
r = sb.signed("PUT", "/other", "s3", b"", s3=True)
t.ok(r.status == 400 and "IllegalLocationConstraintException" in r.text, "CreateBucket without LocationConstraint outside us-east-1")
vh = "wire.s3.us-west-2.amazonaws.com"
r = sb.signed("PUT", "/vh/key.txt", "s3", b"virtual host", host=vh, s3=True)
t.eq(r.status, 200, "PutObject virtual-host-style (Host: bucket.s3.region.amazonaws.com)")
r = sb.signed("GET", "/wire/vh/key.txt", "s3", b"", s3=True)
t.eq((r.status, r.body), (200, b"virtual host"), "GetObject path-style reads it back")
ak, sk = sb.creds
hdrs = sigv4.sign_headers("PUT", "http://%s/wire/unsigned.txt" % host, {"Host": host}, b"payload", ak, sk,
                          sb.region, "s3", time.time(), s3=True, unsigned_payload=True)
t.eq(sb.raw("PUT", "/wire/unsigned.txt", hdrs, b"payload").status, 200, "UNSIGNED-PAYLOAD accepted")
hdrs = sigv4.sign_headers("PUT", "http://%s/wire/bad.txt" % host, {"Host": host}, b"payload", ak, sk,
                          sb.region, "s3", time.time(), s3=True)
r = sb.raw("PUT", "/wire/bad.txt", hdrs, b"tampered")
t.ok(r.status == 400 and "XAmzContentSHA256Mismatch" in r.text, "body not matching x-amz-content-sha256 rejected")

# aws-chunked streaming upload with chunk signatures
data = b"x" * 70000
now = time.time()
amz = sigv4.amz_date(now)
scope = "%s/%s/s3/aws4_request" % (amz[:8], sb.region)
headers = {"Host": host, "x-amz-content-sha256": sigv4.STREAMING_SIGNED, "x-amz-date": amz,
           "content-encoding": "aws-chunked", "x-amz-decoded-content-length": str(len(data))}
signed = sorted(k.lower() for k in headers)
creq = sigv4.canonical_request("PUT", "/wire/chunked.bin", [], list(headers.items()), signed,
                               sigv4.STREAMING_SIGNED, s3=True)
seed = sigv4.signature(sk, amz[:8], sb.region, "s3", sigv4.string_to_sign(amz, scope, creq))
headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
    ak, scope, ";".join(signed), seed)
key = sigv4.signing_key(sk, amz[:8], sb.region, "s3")
prev = seed
wire = b""
for chunk in (data[:65536], data[65536:], b""):
    sts = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz, scope, prev, sigv4.EMPTY_SHA256,
                     hashlib.sha256(chunk).hexdigest()])
    prev = hmac.new(key, sts.encode(), hashlib.sha256).hexdigest()
    wire += b"%x;chunk-signature=%s\r\n%s\r\n" % (len(chunk), prev.encode(), chunk)
r = sb.raw("PUT", "/wire/chunked.bin", headers, wire)
t.eq(r.status, 200, "aws-chunked streaming upload with chunk signatures")
r = sb.signed("GET", "/wire/chunked.bin", "s3", b"", s3=True)
t.eq(r.body, data, "chunked upload stored the decoded payload")
r = sb.signed("GET", "/wire?list-type=2&prefix=vh%2F&encoding-type=url", "s3", b"", s3=True)
t.ok(r.status == 200 and "<Key>vh/key.txt</Key>" in r.text and "<KeyCount>1</KeyCount>" in r.text, "ListObjectsV2 prefix")
r = sb.signed("GET", "/wire/nope", "s3", b"", s3=True)
t.ok(r.status == 404 and "<Code>NoSuchKey</Code>" in r.text, "GetObject missing key -> NoSuchKey")
r = sb.signed("HEAD", "/ghost", "s3", b"", s3=True)
t.eq((r.status, r.body), (404, b""), "HeadBucket on a missing bucket -> bare 404")
r = sb.signed("GET", "/ghost?list-type=2", "s3", b"", s3=True)
t.ok("<Code>NoSuchBucket</Code>" in r.text and "<BucketName>ghost</BucketName>" in r.text, "NoSuchBucket")

sb.proc.send_signal(signal.SIGINT)
rc = sb.proc.wait(timeout=15)
sb.proc = None
t.eq(rc, 0, "SIGINT -> clean exit 0")
t.done()
