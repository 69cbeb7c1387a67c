"""sandbox_fixture.py: start/stop slipway-sandbox for a test and talk to it.

Usage:
    from sandbox_fixture import Sandbox
    sb = Sandbox(speed=600)          # fresh temp state dir, free port
    sb.aws_json("sagemaker", "SageMaker", "ListClusters", {})
    sb.control("GET", "/state")
    sb.stop()                        # SIGTERM; returns the exit status

Requests are signed with the sandbox's own SigV4 module, so tests can drive
every protocol quickly; the real `aws` CLI and `kubectl` are found with
find_aws()/find_kubectl() (None when absent, so tests can skip).
"""
import atexit
import base64
import glob
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SANDBOX = os.path.join(ROOT, "sandbox", "slipway-sandbox")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "sandbox"))

from slipsand import sigv4  # noqa: E402

TARGETS = {"sagemaker": "SageMaker", "fsx": "AWSSimbaAPIService_v20180301",
           "servicequotas": "ServiceQuotasV20190624"}


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers}
        self.body = body

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body or b"{}")

    def __repr__(self):
        return "Reply(%d, %s)" % (self.status, self.text[:300])


class Sandbox:
    def __init__(self, speed=600, args=(), state_dir=None, start=True):
        self.tmp = tempfile.mkdtemp(prefix="sbx-test-")
        self.state = state_dir or os.path.join(self.tmp, "state")
        self.speed = speed
        self.args = list(args)
        self.proc = None
        self.info = None
        atexit.register(self._cleanup)
        if start:
            self.start()

    # --- process ----------------------------------------------------------------
    def start(self, timeout=20):
        path = os.path.join(self.state, "sandbox.json")
        if os.path.exists(path):
            os.unlink(path)
        self.log = open(os.path.join(self.tmp, "sandbox.stderr"), "ab")
        self.proc = subprocess.Popen([PYTHON, SANDBOX, "--state-dir", self.state, "--port", "0",
                                      "--speed", str(self.speed)] + self.args,
                                     stdout=self.log, stderr=self.log)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("sandbox exited with %s: %s" % (self.proc.returncode, self.stderr()))
            try:
                with open(path) as f:
                    info = json.load(f)
                if info.get("pid") == self.proc.pid:
                    self.info = info
                    return info
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise RuntimeError("sandbox did not become ready: %s" % self.stderr())

    def stop(self, sig=signal.SIGTERM):
        if self.proc is None:
            return None
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.proc = None
        return rc

    def stderr(self):
        try:
            with open(os.path.join(self.tmp, "sandbox.stderr"), encoding="utf-8", errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def _cleanup(self):
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except Exception:  # noqa: BLE001
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refresh(self):
        with open(os.path.join(self.state, "sandbox.json")) as f:
            self.info = json.load(f)
        return self.info

    # --- raw HTTP -------------------------------------------------------------------
    @property
    def endpoint(self):
        return self.info["aws_endpoint"]

    @property
    def region(self):
        return self.info["region"]

    @property
    def creds(self):
        return self.info["access_key_id"], self.info["secret_access_key"]

    def raw(self, method, path, headers=None, body=b"", timeout=30):
        u = urllib.parse.urlsplit(self.endpoint)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            hdrs = dict(headers or {})
            hdrs.setdefault("Host", u.netloc)
            for k, v in hdrs.items():
                conn.putheader(k, v)
            if body or method in ("POST", "PUT", "PATCH"):
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body or None)
            r = conn.getresponse()
            return Reply(r.status, r.getheaders(), r.read())
        finally:
            conn.close()

    def signed(self, method, path, service, body=b"", headers=None, region=None, creds=None, token=None,
               when=None, s3=False, host=None):
        ak, sk = creds or self.creds
        u = urllib.parse.urlsplit(self.endpoint)
        hdrs = dict(headers or {})
        hdrs["Host"] = host or u.netloc
        signed = sigv4.sign_headers(method, "http://%s%s" % (hdrs["Host"], path), hdrs, body, ak, sk,
                                    region or self.region, service, when or time.time(), token=token, s3=s3)
        return self.raw(method, path, signed, body)

    # --- protocol helpers --------------------------------------------------------------
    def aws_json(self, service, op, params=None, **kw):
        body = json.dumps(params or {}).encode()
        return self.signed("POST", "/", service, body, {"Content-Type": "application/x-amz-json-1.1",
                                                        "X-Amz-Target": "%s.%s" % (TARGETS[service], op)}, **kw)

    def aws_query(self, service, params, version=None, **kw):
        version = version or {"iam": "2010-05-08", "sts": "2011-06-15", "ec2": "2016-11-15"}[service]
        p = dict(params)
        p.setdefault("Version", version)
        body = urllib.parse.urlencode(p).encode()
        return self.signed("POST", "/", service, body,
                           {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}, **kw)

    def aws_rest(self, service, method, path, body=None, **kw):
        data = json.dumps(body).encode() if body is not None else b""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        return self.signed(method, path, service, data, headers, **kw)

    def ok_json(self, service, op, params=None):
        r = self.aws_json(service, op, params)
        if r.status != 200:
            raise AssertionError("%s %s -> %r" % (service, op, r))
        return r.json()

    def ok_query(self, service, params):
        r = self.aws_query(service, params)
        if r.status != 200:
            raise AssertionError("%s %s -> %r" % (service, params.get("Action"), r))
        return r.text

    def ok_rest(self, service, method, path, body=None):
        r = self.aws_rest(service, method, path, body)
        if r.status not in (200, 201, 202):
            raise AssertionError("%s %s %s -> %r" % (service, method, path, r))
        return r.json()

    # --- control endpoint ---------------------------------------------------------------
    def control(self, method, path, body=None, token=True):
        headers = {"X-Sandbox-Token": self.info["control_token"]} if token else {}
        data = json.dumps(body).encode() if body is not None else b""
        if body is not None:
            headers["Content-Type"] = "application/json"
        r = self.raw(method, "/_sandbox" + path, headers, data)
        try:
            return r.status, r.json()
        except ValueError:
            return r.status, r.text

    def requests(self, **query):
        st, out = self.control("GET", "/requests?" + urllib.parse.urlencode(query))
        return out["requests"]

    def dump(self):
        return self.control("GET", "/state")[1]

    # --- scenario helpers -------------------------------------------------------------
    def network(self):
        """VPC, two subnets in different AZs, a security group and an IAM role."""
        import re
        vpc = re.search(r"<vpcId>(.*?)</vpcId>", self.ok_query("ec2", {"Action": "CreateVpc", "CidrBlock": "10.0.0.0/16"})).group(1)
        subnets = []
        for cidr, az in (("10.0.1.0/24", self.region + "a"), ("10.0.2.0/24", self.region + "c")):
            x = self.ok_query("ec2", {"Action": "CreateSubnet", "VpcId": vpc, "CidrBlock": cidr, "AvailabilityZone": az})
            subnets.append(re.search(r"<subnetId>(.*?)</subnetId>", x).group(1))
        sg = re.search(r"<groupId>(.*?)</groupId>", self.ok_query("ec2", {
            "Action": "CreateSecurityGroup", "GroupName": "hp", "GroupDescription": "hp", "VpcId": vpc})).group(1)
        doc = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
            "Service": ["eks.amazonaws.com", "sagemaker.amazonaws.com"]}, "Action": "sts:AssumeRole"}]})
        role = re.search(r"<Arn>(.*?)</Arn>", self.ok_query("iam", {
            "Action": "CreateRole", "RoleName": "sandbox-test-role", "AssumeRolePolicyDocument": doc})).group(1)
        return {"vpc": vpc, "subnets": subnets, "sg": sg, "role": role}

    def eks_cluster(self, name, net, wait=True):
        self.ok_rest("eks", "POST", "/clusters", {"name": name, "roleArn": net["role"], "resourcesVpcConfig": {
            "subnetIds": net["subnets"], "securityGroupIds": [net["sg"]]}})
        if wait:
            wait_for(lambda: self.ok_rest("eks", "GET", "/clusters/" + name)["cluster"]["status"] == "ACTIVE",
                     timeout=5 + 720.0 / self.speed)
        return self.ok_rest("eks", "GET", "/clusters/" + name)["cluster"]

    def hyperpod(self, name, eks_arn, net, groups, wait=True, recovery="Automatic"):
        params = {"ClusterName": name, "Orchestrator": {"Eks": {"ClusterArn": eks_arn}},
                  "VpcConfig": {"SecurityGroupIds": [net["sg"]], "Subnets": net["subnets"][:1]},
                  "NodeRecovery": recovery,
                  "InstanceGroups": [{"InstanceGroupName": g, "InstanceType": t, "InstanceCount": n,
                                      "ExecutionRole": net["role"]} for g, t, n in groups]}
        self.ok_json("sagemaker", "CreateCluster", params)
        if wait:
            wait_for(lambda: self.ok_json("sagemaker", "DescribeCluster", {"ClusterName": name})["ClusterStatus"]
                     in ("InService", "Failed"), timeout=5 + 1200.0 / self.speed)
        return self.ok_json("sagemaker", "DescribeCluster", {"ClusterName": name})

    def aws_env(self, home=None):
        env = dict(os.environ)
        ak, sk = self.creds
        env.update({"AWS_ACCESS_KEY_ID": ak, "AWS_SECRET_ACCESS_KEY": sk, "AWS_DEFAULT_REGION": self.region,
                    "AWS_REGION": self.region, "AWS_EC2_METADATA_DISABLED": "true", "AWS_MAX_ATTEMPTS": "1",
                    "AWS_PAGER": "", "AWS_CONFIG_FILE": os.path.join(self.tmp, "nope-config"),
                    "AWS_SHARED_CREDENTIALS_FILE": os.path.join(self.tmp, "nope-creds")})
        env.pop("AWS_PROFILE", None)
        env.pop("AWS_SESSION_TOKEN", None)
        if home:
            env["HOME"] = home
        return env

    def kube_token(self, cluster):
        st, out = self.control("POST", "/kube-token", {"cluster": cluster})
        if st != 200:
            raise AssertionError("kube-token: %s %s" % (st, out))
        return out

    def kubeconfig(self, cluster, token=None, exec_cmd=None, exec_env=None, name="kubeconfig"):
        c = self.ok_rest("eks", "GET", "/clusters/" + cluster)["cluster"]
        lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: %s" % cluster, "  cluster:",
                 "    server: %s" % c["endpoint"],
                 "    certificate-authority-data: %s" % c["certificateAuthority"]["data"],
                 "users:", "- name: user", "  user:"]
        if token:
            lines.append("    token: %s" % token)
        else:
            lines += ["    exec:", "      apiVersion: client.authentication.k8s.io/v1beta1",
                      "      command: %s" % json.dumps(exec_cmd[0]),
                      "      args: %s" % json.dumps(exec_cmd[1:]), "      interactiveMode: Never", "      env:"]
            for k, v in (exec_env or {}).items():
                lines.append("      - {name: %s, value: %s}" % (json.dumps(k), json.dumps(v)))
        lines += ["contexts:", "- name: ctx", "  context: {cluster: %s, user: user, namespace: default}" % cluster,
                  "current-context: ctx", ""]
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("\n".join(lines))
        return path

    def kube(self, cluster, token):
        return KubeClient(self, cluster, token)


class KubeClient:
    """Minimal HTTPS client for a sandbox cluster, verifying its CA."""

    def __init__(self, sb, cluster, token):
        c = sb.ok_rest("eks", "GET", "/clusters/" + cluster)["cluster"]
        self.endpoint = c["endpoint"]
        self.token = token
        ca = base64.b64decode(c["certificateAuthority"]["data"]).decode()
        self.ctx = ssl.create_default_context(cadata=ca)

    def req(self, method, path, body=None, ctype="application/json", headers=None, timeout=20):
        u = urllib.parse.urlsplit(self.endpoint)
        conn = http.client.HTTPSConnection(u.hostname, u.port, context=self.ctx, timeout=timeout)
        hdrs = {"Accept": "application/json"}
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs["Content-Type"] = ctype
        hdrs.update(headers or {})
        try:
            conn.request(method, path, body=data, headers=hdrs)
            r = conn.getresponse()
            return Reply(r.status, r.getheaders(), r.read())
        finally:
            conn.close()

    def stream(self, path, seconds=3.0):
        """Read a streaming response (watch/follow) for up to `seconds`; returns lines."""
        u = urllib.parse.urlsplit(self.endpoint)
        conn = http.client.HTTPSConnection(u.hostname, u.port, context=self.ctx, timeout=seconds)
        conn.request("GET", path, headers={"Authorization": "Bearer " + self.token})
        r = conn.getresponse()
        out = b""
        end = time.time() + seconds
        try:
            while time.time() < end:
                chunk = r.read1(65536) if hasattr(r, "read1") else r.read(1)
                if not chunk:
                    break
                out += chunk
        except (OSError, http.client.HTTPException):
            pass
        finally:
            conn.close()
        return r.status, [line for line in out.decode("utf-8", "replace").split("\n") if line]


def wait_for(fn, timeout=10.0, interval=0.05):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = fn()
            if last:
                return last
        except AssertionError:
            pass
        time.sleep(interval)
    return fn()


def find_aws():
    return shutil.which("aws")


def find_debian_aws():
    return "/usr/bin/aws" if os.path.exists("/usr/bin/aws") else None


def find_kubectl(prefer=("1.32", "1.31", "1.33", "1.30", "1.29")):
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    base = shutil.which("kubectl")
    if base:
        dirs.append(os.path.dirname(os.path.realpath(base)))
    for v in prefer:
        name = "kubectl." + v
        found = shutil.which(name)
        if found:
            return found
        for d in dirs:
            cand = os.path.join(d, name)
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    for d in dirs:
        for cand in sorted(glob.glob(os.path.join(d, "kubectl.1.*")), reverse=True):
            if os.access(cand, os.X_OK):
                return cand
    return None


def run(cmd, env=None, timeout=60, input=None):
    p = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout, input=input)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
