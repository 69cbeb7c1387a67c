"""Per-cluster PKI made with the `openssl` command: a CA and a server cert for 127.0.0.1.

The CA PEM (base64) becomes EKS DescribeCluster's certificateAuthority.data;
the server certificate carries SAN IP:127.0.0.1 and DNS:localhost so
kubectl and libcurl verify the endpoint https://127.0.0.1:PORT.

Three `openssl` processes cost 100-300 ms, which CreateCluster used to pay
under the world lock, stalling every other request.  A set is now made
ahead of need in CLUSTERS/.spare by a background thread (prewarm() at
start, refilled after each use) and moved into place with one rename; a
cluster only waits for openssl when its spare is not ready yet.  A set is
complete before the rename that publishes it, so a sandbox killed midway
leaves no half-made set behind (only a tmp-* directory, removed at start).
"""
import base64
import os
import shutil
import subprocess
import tempfile
import threading
import time

SPARES = 1          # sets kept ready per sandbox
SAN = ("subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,"
       "DNS:kubernetes.default.svc,DNS:*.sandbox.eks.local\n")
_pools = {}
_pools_lock = threading.Lock()


def _run(args, cwd):
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   timeout=30)


def _make(directory):
    """Write ca.crt/ca.key/server.crt/server.key into `directory`."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run(["openssl", "req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.crt", "-days", "3650",
          "-subj", "/CN=kubernetes", "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"], directory)
    _run(["openssl", "req", "-new"] + ec + ["-keyout", "server.key", "-out", "server.csr",
          "-subj", "/CN=kube-apiserver"], directory)
    with open(os.path.join(directory, "server.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\n"
                "extendedKeyUsage=serverAuth\n" + SAN)
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


def _complete(directory):
    return all(os.path.exists(os.path.join(directory, n))
               for n in ("ca.crt", "ca.key", "server.crt", "server.key"))


class _Pool:
    """Spare PKI sets under PARENT/.spare, made by one daemon thread."""

    def __init__(self, parent):
        self.root = os.path.join(parent, ".spare")
        os.makedirs(self.root, exist_ok=True)
        for name in os.listdir(self.root):
            if name.startswith("tmp-") or not _complete(os.path.join(self.root, name)):
                shutil.rmtree(os.path.join(self.root, name), ignore_errors=True)
        self.lock = threading.Lock()
        self.made = threading.Condition()
        self.making = False
        self.wake = threading.Event()
        self.wake.set()
        threading.Thread(target=self._fill, name="pki-spare", daemon=True).start()

    def _ready(self):
        try:
            return sorted(n for n in os.listdir(self.root) if not n.startswith("tmp-"))
        except OSError:
            return []

    def take(self, directory):
        """Move a spare set to `directory` (absent); False if none.  A set
        being made is waited for: it is done sooner than a new one."""
        with self.made:
            if self.making and not self._ready():
                self.made.wait(timeout=30)
        with self.lock:
            for name in self._ready():
                try:
                    os.rename(os.path.join(self.root, name), directory)
                except OSError:
                    continue
                self.wake.set()
                return True
        self.wake.set()
        return False

    def _fill(self):
        failures = 0
        while failures < 3:
            self.wake.wait()
            self.wake.clear()
            while len(self._ready()) < SPARES:
                with self.made:
                    self.making = True
                try:
                    tmp = tempfile.mkdtemp(prefix="tmp-", dir=self.root)
                    _make(tmp)
                    os.rename(tmp, os.path.join(self.root, "set-%d" % time.time_ns()))
                    failures = 0
                except (OSError, subprocess.SubprocessError):
                    failures += 1   # openssl missing or the state dir gone
                    break
                finally:
                    with self.made:
                        self.making = False
                        self.made.notify_all()


def _pool(parent):
    with _pools_lock:
        pool = _pools.get(parent)
        if pool is None:
            pool = _pools[parent] = _Pool(parent)
        return pool


def prewarm(parent):
    """Start keeping a spare PKI set under `parent` (the clusters directory)."""
    try:
        _pool(os.path.abspath(parent))
    except OSError:
        pass


def ensure_pki(directory, cluster):
    """Create ca.crt/ca.key/server.crt/server.key in `directory` unless present."""
    ca_crt = os.path.join(directory, "ca.crt")
    if _complete(directory):
        return ca_crt
    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    if os.path.isdir(directory) and not os.listdir(directory):
        os.rmdir(directory)
    if not os.path.exists(directory) and _pool(parent).take(directory):
        return ca_crt
    os.makedirs(directory, exist_ok=True)
    _make(directory)
    return ca_crt


def ca_b64(directory):
    with open(os.path.join(directory, "ca.crt"), "rb") as f:
        return base64.b64encode(f.read()).decode()
