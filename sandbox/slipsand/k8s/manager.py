"""Lifecycle of the per-EKS-cluster Kubernetes API servers and their shared helpers.

KubeManager starts an HTTPS listener when an EKS cluster becomes ACTIVE
(on a port kept across restarts when possible), seeds the bootstrap
objects, installs add-on CRDs, mirrors HyperPod instances as Nodes, mints
static tokens for kubectl tests and tears everything down when the EKS
cluster is deleted.  KubeCluster wraps one cluster's object store with the
create/delete/event helpers used by the API server and the controllers.
"""
import copy
import os
import secrets
import shutil
import ssl
import time

from ..server import Acceptor, BaseHandler, BadRequest, Server
from ..protocols import Response
from . import addons, certs, helm
from . import lifecycle
from .admission import Invalid, default_and_validate, name_for
from .apiserver import Api, status_body
from .controllers import Controllers, owned_by
from .kueue import webhook as kueue_webhook
from .patch import record_update
from .resources import Registry
from .store import ObjectStore, now_rfc3339
from ..services import catalog

# Field managers of the simulated controllers: a pod they make that the API
# refuses becomes a FailedCreate event on its owner instead of an error.
CONTROLLER_MANAGERS = {"kube-controller-manager", "ray-operator", "hyperpod-inference-operator"}
COMPACT_AFTER = 300  # sandbox seconds of watch history kept (at least 60 s of real time)
# Real seconds between two controller passes of one cluster: the first
# while its objects change, then longer after each pass that found
# nothing to do and saw nothing written (a finished cluster among a
# thousand costs a pass every IDLE_PASSES[-1] seconds, not 20 a second).
IDLE_PASSES = (0.05, 0.1, 0.2, 0.4)
# A cluster settled (that many idle passes, nothing written since) runs
# again when one of its objects changes, when the soonest time its last
# pass compared against comes (Clock.track), or after SETTLED_PASS real
# seconds, longer with many clusters: at most SETTLED_RATE settled
# clusters' passes a second however many there are.
SETTLED_PASS = 10.0
SETTLED_RATE = 10.0
# Every cluster's API server is accepted for by one thread.
ACCEPTOR = Acceptor("k8s-acceptor")
NODE_RESYNC = 5.0    # real seconds after which unchanged HyperPod nodes are written again
KUBELET = {"1.29": "v1.29.15-eks-473151a", "1.30": "v1.30.11-eks-473151a", "1.31": "v1.31.7-eks-473151a",
           "1.32": "v1.32.3-eks-473151a", "1.33": "v1.33.0-eks-802817d", "1.34": "v1.34.1-eks-113cf36"}


class KubeHandler(BaseHandler):
    server_name = ""

    def version_string(self):
        return ""

    def _any(self):
        head = self.command == "HEAD"
        try:
            req = self.read_request()
        except BadRequest as e:
            import json
            self.send_response_obj(Response(e.status, json.dumps(status_body(e.status, "BadRequest", e.message)),
                                            "application/json"))
            self.close_connection = True
            return
        kc = self.server.kube
        resp = kc.api.handle(req)
        self.send_response_obj(resp, head=head)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _any


class KubeCluster:
    def __init__(self, world, name, pki_dir):
        self.world = world
        self.name = name
        self.pki_dir = pki_dir
        self.store = ObjectStore(world, name)
        self.api = Api(self)
        self.controllers = Controllers(self)
        self.server = None
        self.port = None
        self.stopped = False
        self._registry = None
        self._registry_version = -1
        self._last_run = 0.0
        self._idle = 0              # passes in a row that changed nothing
        self._rv_seen = None        # store.rv after the last pass
        self._wake = None           # sandbox time the last pass waits for
        self._failed_seen = set()

    # --- server ------------------------------------------------------------------
    def start(self, preferred_port=None):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(self.pki_dir, "server.crt"), os.path.join(self.pki_dir, "server.key"))
        server = None
        for port in ([preferred_port] if preferred_port else []) + [0]:
            try:
                server = Server((self.world.host, port), KubeHandler, self.world, ssl_context=ctx, name="k8s:" + self.name)
                break
            except OSError:
                continue
        server.kube = self
        self.server = server
        self.port = server.server_address[1]
        self.stopped = False
        ACCEPTOR.add(server)
        return self.port

    def stop(self):
        self.stopped = True
        with self.store.cond:
            self.store.cond.notify_all()
        if self.server is not None:
            srv = self.server
            self.server = None
            ACCEPTOR.remove(srv)

    # --- info ----------------------------------------------------------------------
    def eks(self):
        return self.world.store.get("eks:clusters", self.name) or {}

    def version_info(self):
        v = self.eks().get("version", "1.32")
        git = KUBELET.get(v, "v%s.0-eks" % v)
        major, minor = v.split(".")
        return {"major": major, "minor": minor + "+", "gitVersion": git, "gitCommit": "0" * 40,
                "gitTreeState": "clean", "buildDate": "2025-06-01T00:00:00Z", "goVersion": "go1.23.8",
                "compiler": "gc", "platform": "linux/amd64"}

    def registry(self):
        if self._registry is None or self._registry_version != self.store.crd_version:
            self._registry = Registry(self.store.list("apiextensions.k8s.io", "customresourcedefinitions"))
            self._registry_version = self.store.crd_version
        return self._registry

    def allocate_ip(self):
        n = (self.world.store.get("k8smeta:" + self.name, "next_ip") or 10) + 1
        self.world.store.put("k8smeta:" + self.name, "next_ip", n)
        return "10.100.%d.%d" % ((n // 250) % 250, n % 250 + 1)

    def allocate_pod_ip(self, uid):
        h = int(uid.replace("-", "")[:8], 16)
        return "10.1.%d.%d" % ((h >> 8) % 250 + 1, h % 250 + 2)

    def default_storage_class(self):
        for sc in self.store.list("storage.k8s.io", "storageclasses"):
            if (sc["metadata"].get("annotations") or {}).get("storageclass.kubernetes.io/is-default-class") == "true":
                return sc["metadata"]["name"]
        return None

    # --- object helpers -----------------------------------------------------------------
    def create_object(self, group, plural, obj, manager=None, rtype=None):
        rtype = rtype or self.registry().find(group, _version_of(obj), plural) or _find_any(self.registry(), group, plural)
        name_for(obj)
        md = obj.setdefault("metadata", {})
        if rtype.namespaced:
            md.setdefault("namespace", "default")
        from .admission import validate_name
        validate_name(rtype, obj)
        now = self.world.clock.now()
        md["creationTimestamp"] = now_rfc3339(now)
        kueue_webhook(self, group, plural, obj)
        try:
            default_and_validate(self, rtype, obj)
        except Invalid as e:
            if plural != "pods" or manager not in CONTROLLER_MANAGERS:
                raise
            self._failed_create(obj, e)
            return None
        if manager:
            record_update(None, obj, manager, now_rfc3339(now))
        return self.store.create(group, plural, obj, now)

    def _failed_create(self, pod, err):
        """A controller's pod was refused: a FailedCreate event on its owner, as the real controllers do."""
        ref = (pod["metadata"].get("ownerReferences") or [{}])[0]
        if not ref.get("kind"):
            return
        group = ref.get("apiVersion", "").rpartition("/")[0]
        rtype = self.registry().by_kind(group, ref["kind"])
        owner = rtype and self.store.get(group, rtype.plural, pod["metadata"].get("namespace"), ref.get("name"))
        seen = (ref.get("uid"), err.message)
        if owner is not None and seen not in self._failed_seen:
            self._failed_seen.add(seen)
            component = {"ReplicaSet": "replicaset-controller", "Job": "job-controller",
                         "StatefulSet": "statefulset-controller", "DaemonSet": "daemonset-controller"}.get(
                ref["kind"], "%s-controller" % ref["kind"].lower())
            self.record_event(owner, "FailedCreate", "Error creating: " + err.message, "Warning", component)

    def ensure(self, obj, manager="eks"):
        """Create `obj` unless an object of that kind and name exists (bootstrap/add-ons)."""
        group, _, version = obj["apiVersion"].rpartition("/")
        rtype = self.registry().by_kind(group, obj["kind"])
        if rtype is None:
            return None
        md = obj["metadata"]
        if self.store.get(group, rtype.plural, md.get("namespace"), md["name"]) is not None:
            return None
        return self.create_object(group, rtype.plural, copy.deepcopy(obj), manager=manager, rtype=rtype)

    def delete_object(self, group, plural, ns, name, policy="Background", grace=None):
        obj = self.store.get(group, plural, ns, name)
        if obj is None:
            return None
        uid = obj["metadata"].get("uid")
        if group == "" and plural == "namespaces":
            return lifecycle.terminate_namespace(self, obj)
        if group == "" and plural == "pods":
            held = lifecycle.graceful_pod(self, obj, grace)
            if held is not None:
                return held
        held = lifecycle.hold(self, group, plural, obj)
        if group == "apiextensions.k8s.io" and plural == "customresourcedefinitions":
            if held is not None and not lifecycle.finish_crd(self, held):
                return held
            if held is None:
                for g, p, ons, oname in lifecycle.custom_objects(self, obj):
                    self.delete_object(g, p, ons, oname)
        elif held is not None:
            return held
        gone = self.store.delete(group, plural, ns, name) or obj
        if policy == "Orphan":
            for key, o in list(self.store.all_objects()):
                if owned_by(o, uid):
                    o = copy.deepcopy(o)
                    o["metadata"]["ownerReferences"] = [r for r in o["metadata"]["ownerReferences"] if r.get("uid") != uid]
                    g, p, ons, oname = key.split("|", 3)
                    self.store.update(g, p, o)
        elif policy == "Foreground":
            for key, o in list(self.store.all_objects()):
                if owned_by(o, uid):
                    g, p, ons, oname = key.split("|", 3)
                    self.delete_object(g, p, ons or None, oname, "Foreground")
        return gone

    def record_event(self, obj, reason, message, etype="Normal", component="default-scheduler"):
        md = obj["metadata"]
        ns = md.get("namespace") or "default"
        now = now_rfc3339(self.world.clock.now())
        ev = {"apiVersion": "v1", "kind": "Event",
              "metadata": {"name": "%s.%s" % (md["name"], secrets.token_hex(8)), "namespace": ns},
              "involvedObject": {"kind": obj.get("kind"), "namespace": md.get("namespace"), "name": md["name"],
                                 "uid": md.get("uid"), "apiVersion": obj.get("apiVersion"),
                                 "resourceVersion": md.get("resourceVersion")},
              "reason": reason, "message": message, "type": etype, "count": 1,
              "source": {"component": component}, "firstTimestamp": now, "lastTimestamp": now,
              "reportingComponent": component, "reportingInstance": ""}
        self.store.create("", "events", ev, self.world.clock.now())
        events = self.store.list("", "events")
        if len(events) > 1500:
            events.sort(key=lambda e: e["metadata"]["resourceVersion"] and int(e["metadata"]["resourceVersion"]))
            for e in events[:300]:
                self.store.delete("", "events", e["metadata"]["namespace"], e["metadata"]["name"])

    def bootstrap(self):
        if self.store.get("", "namespaces", None, "default") is not None:
            return
        for obj in addons.bootstrap(self.name):
            self.ensure(obj)

    def run_controllers(self, now, settled_pass=SETTLED_PASS):
        self.store.compact(now - max(self.world.clock.real(COMPACT_AFTER), 60.0))
        t = time.time()
        quiet = self.store.rv == self._rv_seen
        if quiet and self._idle >= len(IDLE_PASSES):
            if (self._wake is None or now < self._wake) and t - self._last_run < settled_pass:
                return
        wait = IDLE_PASSES[min(self._idle, len(IDLE_PASSES) - 1)] if quiet else IDLE_PASSES[0]
        if t - self._last_run < wait:
            return
        self._last_run = t
        before = self.store.rv
        clock = self.world.clock
        clock.track()
        try:
            self.controllers.run(now)
            helm.step(self, now)
        finally:
            self._wake = clock.wakes()
        self._idle = self._idle + 1 if quiet and self.store.rv == before else 0
        self._rv_seen = self.store.rv

    # --- HyperPod nodes ----------------------------------------------------------------
    def sync_nodes(self, desired):
        want = {}
        region = self.world.region
        kubelet = KUBELET.get(self.eks().get("version", "1.32"), "v1.32.3-eks-473151a")
        for n in desired:
            name = "hyperpod-" + n["instance_id"]
            spec = catalog.spec(n["type"]) or {"vcpus": 8, "memory_gib": 32, "gpus": 0, "efa": 0, "neuron": False,
                                               "accelerators": 0}
            failed = n["status"] == "Failure"
            checking = n["status"] == "DeepHealthCheckInProgress"
            # HyperPod's health label: a node rebooting (BatchRebootClusterNodes) stays,
            # UnschedulablePendingReboot and NotReady, until it runs again.
            rebooting = n["status"] == "Rebooting"
            health = "UnschedulablePendingReplacement" if failed else "UnschedulablePendingReboot" \
                if rebooting else ("Unschedulable" if checking else "Schedulable")
            labels = {
                "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": n["type"], "beta.kubernetes.io/instance-type": n["type"],
                "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": n["az"],
                "failure-domain.beta.kubernetes.io/region": region, "failure-domain.beta.kubernetes.io/zone": n["az"],
                "topology.k8s.aws/zone-id": n["az_id"],
                "sagemaker.amazonaws.com/compute-type": "hyperpod",
                "sagemaker.amazonaws.com/cluster-name": n["cluster"],
                "sagemaker.amazonaws.com/instance-group-name": n["group"],
                "sagemaker.amazonaws.com/node-health-status": health,
            }
            if n.get("capacity_type"):
                labels["sagemaker.amazonaws.com/capacity-type"] = n["capacity_type"]
            if n["dhc"]:
                labels["sagemaker.amazonaws.com/deep-health-check-status"] = (
                    "InProgress" if checking else "Passed" if n["dhc_passed"] else "Pending")
            labels.update(n["labels"])
            taints = [{"key": t.get("Key"), "value": t.get("Value", ""), "effect": t.get("Effect")} for t in n["taints"]]
            if failed or checking or rebooting:
                taints.append({"key": "sagemaker.amazonaws.com/node-health-status", "value": health,
                               "effect": "NoSchedule"})
            cap = {"cpu": str(spec["vcpus"]), "memory": "%dKi" % (spec["memory_gib"] * 1024 * 1024),
                   "pods": "737" if spec["vcpus"] >= 96 else "110", "ephemeral-storage": "104845292Ki",
                   "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
            # nvidia.com/gpu and vpc.amazonaws.com/efa appear only once a
            # device plugin registers them (Controllers.device_plugins).
            if spec.get("neuron"):
                cap["aws.amazon.com/neuron"] = str(spec["accelerators"])
                cap["aws.amazon.com/neuroncore"] = str(spec["accelerators"] * 2)
            alloc = dict(cap)
            alloc["cpu"] = "%dm" % (spec["vcpus"] * 1000 - 90)
            alloc["memory"] = "%dKi" % (spec["memory_gib"] * 1024 * 1024 - 900000)
            ready = "False" if failed or rebooting else "True"
            t0 = now_rfc3339(n["launch"])
            node = {"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": name, "labels": labels,
                                 "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                                 "sagemaker.amazonaws.com/instance-id": n["instance_id"],
                                                 "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
                    "spec": {"providerID": "aws:///%s/%s" % (n["az"], n["instance_id"]), "taints": taints},
                    "status": {"capacity": cap, "allocatable": alloc,
                               "conditions": [
                                   {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
                                    "message": "kubelet has sufficient memory available",
                                    "lastHeartbeatTime": t0, "lastTransitionTime": t0},
                                   {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure",
                                    "message": "kubelet has no disk pressure",
                                    "lastHeartbeatTime": t0, "lastTransitionTime": t0},
                                   {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID",
                                    "message": "kubelet has sufficient PID available",
                                    "lastHeartbeatTime": t0, "lastTransitionTime": t0},
                                   {"type": "Ready", "status": ready,
                                    "reason": "KubeletReady" if ready == "True" else "KubeletNotReady",
                                    "message": "kubelet is posting ready status" if ready == "True"
                                    else "node is rebooting" if rebooting
                                    else "node failed HyperPod health checks",
                                    "lastHeartbeatTime": t0, "lastTransitionTime": t0}],
                               "addresses": [{"type": "InternalIP", "address": n["ip"]},
                                             {"type": "InternalDNS", "address": n["hostname"]},
                                             {"type": "Hostname", "address": n["hostname"]}],
                               "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                               "nodeInfo": {"machineID": n["instance_id"][2:].ljust(32, "0"),
                                            "systemUUID": "ec2" + n["instance_id"][2:].ljust(29, "0"),
                                            "bootID": n["instance_id"][2:].ljust(32, "1"),
                                            "kernelVersion": "6.1.141-155.222.amzn2023.x86_64",
                                            "osImage": "Amazon Linux 2023.7.20250623",
                                            "containerRuntimeVersion": "containerd://1.7.27",
                                            "kubeletVersion": kubelet, "kubeProxyVersion": kubelet,
                                            "operatingSystem": "linux", "architecture": "amd64"}}}
            if n.get("logical_id"):
                node["metadata"]["annotations"]["sagemaker.amazonaws.com/node-logical-id"] = n["logical_id"]
            want[name] = node
        existing = {o["metadata"]["name"]: o for o in self.store.list("", "nodes")
                    if (o["metadata"].get("labels") or {}).get("sagemaker.amazonaws.com/compute-type") == "hyperpod"}
        for name, node in want.items():
            cur = existing.get(name)
            if cur is None:
                self.create_object("", "nodes", node, manager="kubelet")
                continue
            changed = False
            for path in (("metadata", "labels"), ("spec", "taints"), ("status", "conditions")):
                a, b = cur[path[0]].get(path[1]), node[path[0]][path[1]]
                if path[1] == "conditions":
                    a = [(c["type"], c["status"]) for c in a or []]
                    b = [(c["type"], c["status"]) for c in b]
                if path[1] == "labels":
                    merged = dict(a or {})
                    for k, v in b.items():
                        if merged.get(k) != v:
                            changed = True
                    continue
                if a != b:
                    changed = True
            if changed:
                new = copy.deepcopy(cur)
                new["metadata"]["labels"].update(node["metadata"]["labels"])
                new["spec"]["taints"] = node["spec"]["taints"]
                new["status"] = _keep_plugin_resources(cur["status"], node["status"])
                self.store.update("", "nodes", new)
        for name in existing:
            if name not in want:
                self.store.delete("", "nodes", None, name)


def _keep_plugin_resources(old, new):
    """`new` node status with the device-plugin resources of `old` kept."""
    from .controllers import PLUGIN_RESOURCES
    for part in ("capacity", "allocatable"):
        for res in PLUGIN_RESOURCES:
            if res in (old.get(part) or {}):
                new.setdefault(part, {})[res] = old[part][res]
    return new


def _version_of(obj):
    av = obj.get("apiVersion", "")
    return av.rpartition("/")[2] if av else ""


def _find_any(reg, group, plural):
    for t in reg.types:
        if t.group == group and t.plural == plural:
            return t
    raise KeyError("%s/%s" % (group, plural))


class KubeManager:
    def __init__(self, world):
        self.world = world
        self.clusters = {}
        self._nodes_synced = {}     # name -> (server, desired nodes, when)

    def _pki_dir(self, name):
        return os.path.join(self.world.state_dir, "clusters", name)

    def prepare_cluster(self, name):
        if self.world.store.get("k8spart", name) is None:
            # the partition of the EKS request that made the cluster
            self.world.store.put("k8spart", name, [self.world.account, self.world.region])
        d = self._pki_dir(name)
        certs.ensure_pki(d, name)
        return certs.ca_b64(d)

    def _cluster(self, name):
        kc = self.clusters.get(name)
        if kc is None:
            self.prepare_cluster(name)
            kc = KubeCluster(self.world, name, self._pki_dir(name))
            self.clusters[name] = kc
        return kc

    def ensure_server(self, name):
        kc = self._cluster(name)
        if kc.server is None:
            preferred = self.world.store.get("k8sport", name)
            port = kc.start(preferred)
            self.world.store.put("k8sport", name, port)
            kc.bootstrap()
            c = self.world.store.get("eks:clusters", name)
            if c is not None and c.get("endpoint") and not c["endpoint"].endswith(":%d" % port):
                c["endpoint"] = "https://%s:%d" % (self.world.host, port)
                self.world.store.put("eks:clusters", name, c)
        return kc.port

    def start_all(self):
        with self.world.lock:
            for account, region in self.world.partitions():
                with self.world.scope(account, region):
                    for c in self.world.store.values("eks:clusters"):
                        if c["status"] in ("ACTIVE", "UPDATING", "DELETING") and c.get("endpoint"):
                            self.ensure_server(c["name"])

    def in_scope(self, name):
        """True when cluster name belongs to this thread's partition."""
        where = self.world.store.get("k8spart", name)
        return where is None or (where[0], where[1]) == (self.world.account, self.world.region)

    def advance(self, now):
        settled_pass = max(SETTLED_PASS, len(self.clusters) / SETTLED_RATE)
        for c in list(self.world.store.values("eks:clusters")):
            if c["status"] in ("ACTIVE", "UPDATING", "DELETING") and c.get("endpoint"):
                kc = self.clusters.get(c["name"])
                if kc is None or kc.server is None:
                    self.ensure_server(c["name"])
                    kc = self.clusters[c["name"]]
                kc.run_controllers(now, settled_pass)

    def install_addon(self, cluster, addon, record):
        kc = self._cluster(cluster)
        if kc.server is None:
            self.ensure_server(cluster)
        factory = addons.ADDON_OBJECTS.get(addon)
        if factory is None:
            return
        objs = factory()
        for obj in objs:
            if obj["kind"] == "CustomResourceDefinition" or obj["kind"] == "Namespace":
                kc.ensure(obj, manager="eks")
        for obj in objs:
            if obj["kind"] not in ("CustomResourceDefinition", "Namespace"):
                obj.setdefault("metadata", {}).setdefault("labels", {})["app.kubernetes.io/managed-by"] = "EKS"
                kc.ensure(obj, manager="eks")

    def uninstall_addon(self, cluster, addon):
        kc = self.clusters.get(cluster)
        if kc is None:
            return
        factory = addons.ADDON_OBJECTS.get(addon)
        if factory is None:
            return
        for obj in reversed(factory()):
            if obj["kind"] == "Namespace":
                continue
            group = obj["apiVersion"].rpartition("/")[0]
            rtype = kc.registry().by_kind(group, obj["kind"])
            if rtype is not None:
                kc.delete_object(group, rtype.plural, obj["metadata"].get("namespace"), obj["metadata"]["name"])

    def remove_cluster(self, name):
        kc = self.clusters.pop(name, None)
        if kc is not None:
            kc.stop()
            kc.store.drop()
        else:
            self.world.store.drop_space("k8s:" + name)
            self.world.store.drop_space("k8smeta:" + name)
        self.world.store.delete("k8sport", name)
        self.world.store.delete("k8spart", name)
        for tok, rec in list(self.world.store.all("k8stokens").items()):
            if rec.get("cluster") == name:
                self.world.store.delete("k8stokens", tok)
        shutil.rmtree(self._pki_dir(name), ignore_errors=True)

    def servers_version(self):
        """Changes each time an API server starts or stops."""
        return sum(1 for kc in self.clusters.values() if kc.server is not None)

    def sync_hyperpod_nodes(self, desired):
        """Each cluster's HyperPod nodes as desired: written only when
        what HyperPod wants of them changed since the last time, or
        NODE_RESYNC seconds have passed (a node changed on the Kubernetes
        side is put back)."""
        now = time.monotonic()
        for name, kc in self.clusters.items():
            if kc.server is None or not self.in_scope(name):
                continue
            want = desired.get(name, [])
            last = self._nodes_synced.get(name)
            if last is not None and last[0] is kc.server and last[1] == want and \
                    now - last[2] < NODE_RESYNC:
                continue
            kc.sync_nodes(want)
            self._nodes_synced[name] = (kc.server, want, now)

    def mint_token(self, cluster, user="sandbox-admin", groups=None):
        with self.world.scope_of_cluster(cluster or ""):
            return self._mint_token(cluster, user, groups)

    def _mint_token(self, cluster, user, groups):
        c = self.world.store.get("eks:clusters", cluster or "")
        if c is None:
            raise KeyError("EKS cluster %s" % cluster)
        token = "sandbox-" + secrets.token_hex(24)
        self.world.store.put("k8stokens", token, {"cluster": cluster, "user": user,
                                                  "groups": groups or ["system:masters"]})
        ca = c.get("certificateAuthority", {}).get("data")
        return {"token": token, "cluster": cluster, "endpoint": c.get("endpoint"), "certificate_authority_data": ca,
                "status": c["status"]}

    def endpoints(self):
        out = {}
        for name, kc in self.clusters.items():
            if kc.server is not None:
                out[name] = "https://%s:%d" % (self.world.host, kc.port)
        return out

    def snapshot(self):
        out = {}
        for name, kc in self.clusters.items():
            counts = {}
            for key, _ in kc.store.all_objects():
                g, p = key.split("|")[:2]
                k = "%s.%s" % (p, g) if g else p
                counts[k] = counts.get(k, 0) + 1
            out[name] = {"endpoint": self.endpoints().get(name), "objects": counts}
        return out

    def stop_all(self):
        for kc in self.clusters.values():
            kc.stop()

    def reload(self):
        for kc in self.clusters.values():
            kc.stop()
        self.clusters = {}


def validation_notes():
    """Lines the sandbox prints at start: which Kubernetes validations are off or partial."""
    from . import crdbundle, schema
    notes = []
    if not schema.available():
        notes.append("Kubernetes built-in schema validation is off (no ../shared/testdata/crds/"
                     "kubernetes-1.31.json): only the Go-coded checks run")
    if not crdbundle.available():
        notes.append("no upstream CRDs are installed for add-ons or Helm charts, so their custom "
                     "resources are not served (no ../shared/testdata/crds); CRDs created through the "
                     "API are still enforced")
    else:
        done, skipped = schema.cel_rules()
        notes.append("CEL rules (x-kubernetes-validations) in the CRD bundles: %d evaluated, %d skipped"
                     % (done, skipped))
    missing = sorted(n for names in addons.MISSING_CRDS.values() for n in names)
    missing += helm.MISSING_CRDS
    if missing:
        notes.append("CRDs with no upstream schema are not installed: " + ", ".join(missing))
    return notes
