"""The sandbox world: shared state, services, Kubernetes clusters and the ticker.

Holds the one lock around all shared state.  Serves one account and one
region unless more are declared (add_account(), add_region(), through the
control endpoint): each (account, region) is a partition with its own AWS
resources (IAM is per account), and a request or a pass of the state
machines works in one partition at a time (scope()).  `advance_locked()` applies
every state transition whose due time has passed (called before each
request and by a background ticker), so state machines are driven by stored
timestamps and survive restarts; the ticker also runs the Kubernetes
controllers and keeps DIR/sandbox.json's `kubernetes` map current.
"""
import contextlib
import json
import os
import secrets
import sys
import threading
import time
import traceback

from . import models
from .clock import Clock
from .faults import Faults
from .identity import Identity
from .reqlog import RequestLog
from .state import Store

ACCOUNT_ID = "123456789012"
# Real seconds an AWS request's pass over the state machines stands for.
ADVANCE_EVERY = 0.01


class _Where(threading.local):
    """The partition a thread works in; None: the default one."""
    account = None
    region = None


class World:
    def __init__(self, state_dir, region="us-west-2", speed=1.0, models_dir=None,
                 host="127.0.0.1", seed=None):
        self.state_dir = os.path.abspath(state_dir)
        os.makedirs(self.state_dir, exist_ok=True)
        self.default_region = region
        self.default_account = ACCOUNT_ID
        self._tls = _Where()
        self.host = host
        self.lock = threading.RLock()
        self.store = Store(self.state_dir)
        offset = self.store.get("meta", "clock_offset") or 0.0
        self.clock = Clock(speed, offset)
        self.speed = self.clock.speed
        self.models_dir = models_dir
        self.models = models.load_models(models_dir)
        self.faults = Faults(self.store, seed)
        self.reqlog = RequestLog(self.store, self.lock, self.state_dir)
        self.identity = Identity(self.store, self.account)
        self.base_creds = self.identity.ensure_base()
        token = self.store.get("meta", "control_token")
        if not token:
            token = secrets.token_hex(16)
            self.store.put("meta", "control_token", token)
        self.control_token = token
        self.aws_port = None
        self._advanced = 0.0        # time.monotonic() of the last pass
        self._stop = threading.Event()
        self._ticker = None
        self._last_json = None
        # one writer of sandbox.json at a time: two threads writing the
        # one temporary file would rename it from under each other
        self._json_lock = threading.Lock()
        from .services import make_services
        self.services = make_services(self)
        from .k8s.manager import KubeManager
        self.kube = KubeManager(self)
        from .k8s import certs
        certs.prewarm(os.path.join(self.state_dir, "clusters"))

    # --- accounts and regions ----------------------------------------------
    @property
    def account(self):
        """The account of the partition this thread works in."""
        return self._tls.account or self.default_account

    @property
    def region(self):
        return self._tls.region or self.default_region

    def accounts(self):
        return [self.default_account] + list(self.store.get("meta", "accounts") or [])

    def regions(self):
        return [self.default_region] + list(self.store.get("meta", "regions") or [])

    def partitions(self):
        return [(a, r) for a in self.accounts() for r in self.regions()]

    @contextlib.contextmanager
    def scope(self, account, region):
        """Work in the partition of account and region on this thread."""
        saved = (self._tls.account, self._tls.region,
                 self.store.scope())
        account = account or self.default_account
        region = region or self.default_region
        self._tls.account, self._tls.region = account, region
        ap = "" if account == self.default_account else "@%s/" % account
        rp = "" if (account, region) == (self.default_account, self.default_region) \
            else "@%s/%s/" % (account, region)
        self.store.set_scope(ap, rp)
        try:
            yield
        finally:
            self._tls.account, self._tls.region = saved[0], saved[1]
            self.store.set_scope(*saved[2])

    def scope_of_cluster(self, name):
        """The partition an EKS cluster's Kubernetes objects belong to."""
        where = self.store.get("k8spart", name) or [None, None]
        return self.scope(where[0], where[1])

    def add_account(self, account):
        """Declare account (12 digits); its base user's keys."""
        with self.lock, self.store.transaction():
            have = self.store.get("meta", "accounts") or []
            if account != self.default_account and account not in have:
                self.store.put("meta", "accounts", have + [account])
            return self.identity.ensure_base(account=account)

    def add_region(self, region):
        with self.lock, self.store.transaction():
            have = self.store.get("meta", "regions") or []
            if region != self.default_region and region not in have:
                self.store.put("meta", "regions", have + [region])

    # --- time ------------------------------------------------------------
    def advance_locked(self):
        now = self.clock.now()
        self._advanced = time.monotonic()
        for account, region in self.partitions():
            with self.scope(account, region):
                for svc in self.services.values():
                    svc.advance(now)
                self.kube.advance(now)

    def advance_services_locked(self):
        """What an AWS request needs before it reads or writes: every AWS
        state machine whose due time has passed.  The Kubernetes
        controllers are left to the ticker, asynchronous as in a real
        cluster (the Kubernetes API servers never ran them either), so a
        request's cost does not grow with the number of clusters'
        controllers.  Requests arriving together share one pass: a pass
        made less than ADVANCE_EVERY (real seconds) ago stands, so a
        transition is seen at most that much after it fell due, never
        before, and a thousand clusters' state machines are not walked
        once per request."""
        real = time.monotonic()
        if real - self._advanced < ADVANCE_EVERY:
            return
        self._advanced = real
        now = self.clock.now()
        for account, region in self.partitions():
            with self.scope(account, region):
                for svc in self.services.values():
                    svc.advance(now)

    def time_travel(self, sandbox_seconds):
        with self.lock:
            self.clock.advance(sandbox_seconds)
            self.store.put("meta", "clock_offset", self.clock.offset)
            self.advance_locked()

    def start_ticker(self, interval=0.1):
        def loop():
            while not self._stop.wait(interval):
                try:
                    with self.lock, self.store.transaction():
                        self.advance_locked()
                    self.write_sandbox_json()
                except Exception:  # noqa: BLE001
                    traceback.print_exc(file=sys.stderr)
        self._ticker = threading.Thread(target=loop, name="ticker", daemon=True)
        self._ticker.start()

    # --- sandbox.json ------------------------------------------------------
    def info(self):
        return {
            "pid": os.getpid(),
            "aws_endpoint": "http://%s:%d" % (self.host, self.aws_port),
            "region": self.region,
            "account_id": self.account,
            "access_key_id": self.base_creds["access_key_id"],
            "secret_access_key": self.base_creds["secret_access_key"],
            "control_endpoint": "http://%s:%d/_sandbox" % (self.host, self.aws_port),
            "control_token": self.control_token,
            "speed": self.speed if self.speed != int(self.speed) else int(self.speed),
            "state_dir": self.state_dir,
            "models_dir": self.models_dir,
            "kubernetes": self.kube.endpoints(),
            "accounts": {a: self.identity.ensure_base(account=a) for a in self.accounts()[1:]},
            "regions": self.regions(),
        }

    def write_sandbox_json(self, force=False):
        if self.aws_port is None:
            return
        with self.lock:
            data = self.info()
        text = json.dumps(data, indent=1, sort_keys=True)
        with self._json_lock:
            if text == self._last_json and not force:
                return
            path = os.path.join(self.state_dir, "sandbox.json")
            tmp = path + ".tmp.%d" % os.getpid()
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
            self._last_json = text

    # --- control ---------------------------------------------------------
    def snapshot(self):
        with self.lock:
            self.advance_locked()
            out = {name: svc.snapshot() for name, svc in self.services.items()}
            out["kubernetes"] = self.kube.snapshot()
            out["faults"] = self.faults.config()
            return out

    def reset(self):
        with self.lock:
            self.kube.stop_all()
            for svc in self.services.values():
                svc.reset()
            keep = ("meta", "creds")
            self.store.clear(keep=keep)
            self.reqlog.clear()
            self.kube.reload()
        self.write_sandbox_json(force=True)

    def shutdown(self):
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
        with self.lock:
            self.kube.stop_all()
            self.store.close()
        try:
            os.unlink(os.path.join(self.state_dir, "sandbox.json"))
        except OSError:
            pass

    def log(self, msg):
        try:
            with open(os.path.join(self.state_dir, "sandbox.log"), "a", encoding="utf-8") as f:
                f.write("%s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), msg))
        except OSError:
            pass
