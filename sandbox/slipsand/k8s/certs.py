"""Per-cluster PKI made with the `openssl` command: a CA and a server cert for 127.0.0.1.

The CA PEM (base64) becomes EKS DescribeCluster's certificateAuthority.data;
the server certificate carries SAN IP:127.0.0.1 and DNS:localhost so
kubectl and libcurl verify the endpoint https://127.0.0.1:PORT.
"""
import base64
import os
import subprocess


def _run(args, cwd):
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   timeout=30)


def ensure_pki(directory, cluster):
    """Create ca.crt/ca.key/server.crt/server.key in `directory` unless present."""
    os.makedirs(directory, exist_ok=True)
    ca_crt = os.path.join(directory, "ca.crt")
    srv_crt = os.path.join(directory, "server.crt")
    if os.path.exists(ca_crt) and os.path.exists(srv_crt) and os.path.exists(os.path.join(directory, "server.key")):
        return ca_crt
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run(["openssl", "req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.crt", "-days", "3650",
          "-subj", "/CN=kubernetes", "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"], directory)
    _run(["openssl", "req", "-new"] + ec + ["-keyout", "server.key", "-out", "server.csr",
          "-subj", "/CN=kube-apiserver"], directory)
    with open(os.path.join(directory, "server.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\n"
                "extendedKeyUsage=serverAuth\n"
                "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,"
                "DNS:kubernetes.default.svc,DNS:%s.sandbox.eks.local\n" % cluster.lower().replace("_", "-"))
    _run(["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
          "-CAcreateserial", "-out", "server.crt", "-days", "825", "-sha256", "-extfile", "server.ext"],
         directory)
    for name in ("server.csr", "server.ext", "ca.srl"):
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass
    os.chmod(os.path.join(directory, "ca.key"), 0o600)
    os.chmod(os.path.join(directory, "server.key"), 0o600)
    return ca_crt


def ca_b64(directory):
    with open(os.path.join(directory, "ca.crt"), "rb") as f:
        return base64.b64encode(f.read()).decode()
