"""Object storage of one Kubernetes cluster: objects, resourceVersions, watch history.

Objects are persisted in the world store (space "k8s:<cluster>") and keyed
by group/resource/namespace/name, independent of the served version.  Every
change gets the next resourceVersion and is appended to a bounded in-memory
event history that watches read from; a watch asking for a version older
than the history gets 410 Expired, like etcd compaction.
"""
import collections
import copy
import datetime
import threading
import uuid

HISTORY = 4000


def now_rfc3339(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def okey(group, plural, namespace, name):
    return "%s|%s|%s|%s" % (group, plural, namespace or "", name)


class ObjectStore:
    def __init__(self, world, cluster):
        self.world = world
        self.cluster = cluster
        self.space = "k8s:" + cluster
        self.meta_space = "k8smeta:" + cluster
        self.cond = threading.Condition(world.lock)
        self.history = collections.deque(maxlen=HISTORY)
        rv = world.store.get(self.meta_space, "rv") or 0
        self.rv = int(rv)
        self.oldest = self.rv          # history covers versions > oldest
        self.crd_version = 0

    @property
    def db(self):
        return self.world.store

    def next_rv(self):
        self.rv += 1
        self.db.put(self.meta_space, "rv", self.rv)
        return str(self.rv)

    def get(self, group, plural, namespace, name):
        return self.db.get(self.space, okey(group, plural, namespace, name))

    def list(self, group, plural, namespace=None):
        prefix = "%s|%s|" % (group, plural)
        out = []
        for k, v in self.db.kind(self.space, prefix).items():
            if namespace is None or k.split("|")[2] == namespace:
                out.append(v)
        out.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
        return out

    def all_objects(self):
        return list(self.db.all(self.space).items())

    def _record(self, etype, group, plural, obj):
        self.history.append((int(obj["metadata"]["resourceVersion"]), etype, group, plural,
                             copy.deepcopy(obj), self.world.clock.now()))
        if len(self.history) == self.history.maxlen:
            self.oldest = self.history[0][0] - 1
        if group == "apiextensions.k8s.io":
            self.crd_version += 1
        self.cond.notify_all()

    def create(self, group, plural, obj, now):
        md = obj.setdefault("metadata", {})
        md.setdefault("uid", str(uuid.uuid4()))
        md["creationTimestamp"] = now_rfc3339(now)
        md["resourceVersion"] = self.next_rv()
        if "generation" not in md:
            md["generation"] = 1
        self.db.put(self.space, okey(group, plural, md.get("namespace"), md["name"]), obj)
        self._record("ADDED", group, plural, obj)
        return obj

    def update(self, group, plural, obj, bump_generation=False):
        md = obj["metadata"]
        md["resourceVersion"] = self.next_rv()
        if bump_generation:
            md["generation"] = int(md.get("generation", 1)) + 1
        self.db.put(self.space, okey(group, plural, md.get("namespace"), md["name"]), obj)
        self._record("MODIFIED", group, plural, obj)
        return obj

    def delete(self, group, plural, namespace, name):
        key = okey(group, plural, namespace, name)
        obj = self.db.get(self.space, key)
        if obj is None:
            return None
        self.db.delete(self.space, key)
        obj = copy.deepcopy(obj)
        obj["metadata"]["resourceVersion"] = self.next_rv()
        self._record("DELETED", group, plural, obj)
        return obj

    def events_since(self, rv, group, plural):
        return [(r, t, o) for (r, t, g, p, o, _) in self.history if r > rv and g == group and p == plural]

    def compact(self, cutoff):
        """Forget history older than `cutoff` (like etcd compaction); watches from before get 410."""
        while self.history and self.history[0][5] < cutoff:
            self.oldest = self.history.popleft()[0]

    def drop(self):
        self.db.drop_space(self.space)
        self.db.drop_space(self.meta_space)
        with self.cond:
            self.history.clear()
            self.cond.notify_all()
