"""Persistence: a write-through cache over one SQLite key/value table.

Everything the sandbox knows (credentials, AWS resources, Kubernetes
objects, faults) lives in named spaces of JSON documents.  Reads come from
memory; each put/delete is written to DIR/state.db immediately (one row per
resource, WAL), so a restarted sandbox continues where it was.  What one
request or one tick changes is written in one transaction (transaction()),
so a sandbox killed half way through leaves none of it on disk, and what
it answered is there whole.  Keys shaped
"group|plural|namespace|name" (Kubernetes objects) are also indexed by
their "group|plural|" prefix, so listing one kind reads that kind only,
however many objects the space holds.  A space can also be indexed by a
field of its documents (index()), so "the nodes of cluster X" is one
dict lookup, and every space counts its changes (version()), so a
caller can tell that nothing changed since it last looked.  Callers
hold the world lock.
"""
import contextlib
import json
import os
import sqlite3
import threading

# Spaces of AWS resources living in one account and region, and those
# living in one account (IAM): the spaces a partition scope renames.
REGIONAL = ("eks:", "sm:", "ec2:", "s3:", "fsx:", "sns:", "events:")
ACCOUNT_WIDE = ("iam:",)


class _Scope(threading.local):
    """A thread's partition prefixes; both "" for the default partition
    (an account other than the default has a region prefix too)."""
    ap = ""
    rp = ""


def _kind(key):
    """The "a|b|" prefix of a key with at least two "|", else None."""
    first = key.find("|")
    if first < 0:
        return None
    second = key.find("|", first + 1)
    if second < 0:
        return None
    return key[:second + 1]


class Store:
    def __init__(self, state_dir):
        self.path = os.path.join(state_dir, "state.db")
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                  timeout=10)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS kv (space TEXT NOT NULL, key TEXT NOT NULL, "
                        "value TEXT NOT NULL, PRIMARY KEY (space, key))")
        self.data = {}
        self.kinds = {}         # space -> "group|plural|" -> {key: value}
        self.depth = 0          # nesting of transaction()
        self.committed = []     # what to run once the open transaction commits
        self.versions = {}      # space -> changes so far
        self.indexes = {}       # space -> (field function, {ikey: {key: value}}, {key: ikey})
        self.fields = {}        # space -> field function asked for by index()
        self.tls = _Scope()     # this thread's partition prefixes
        for space, key, value in self.db.execute("SELECT space, key, value FROM kv"):
            try:
                self._remember(space, key, json.loads(value))
            except ValueError:
                continue

    def _remember(self, space, key, value):
        self.data.setdefault(space, {})[key] = value
        self.versions[space] = self.versions.get(space, 0) + 1
        kind = _kind(key)
        if kind is not None:
            self.kinds.setdefault(space, {}).setdefault(kind, {})[key] = value
        ix = self.indexes.get(space)
        if ix is not None:
            fn, groups, where = ix
            ikey = fn(value)
            old = where.get(key)
            if old is not None and old != ikey:
                groups.get(old, {}).pop(key, None)
            groups.setdefault(ikey, {})[key] = value
            where[key] = ikey

    def _forget(self, space, key):
        sp = self.data.get(space)
        if sp is not None:
            sp.pop(key, None)
        self.versions[space] = self.versions.get(space, 0) + 1
        kind = _kind(key)
        if kind is not None:
            sp = self.kinds.get(space, {}).get(kind)
            if sp is not None:
                sp.pop(key, None)
        ix = self.indexes.get(space)
        if ix is not None:
            old = ix[2].pop(key, None)
            if old is not None:
                ix[1].get(old, {}).pop(key, None)

    def set_scope(self, account_prefix, region_prefix):
        """This thread's partition from now on: AWS resource spaces are
        read and written under these prefixes ("" for the default
        account and region, whose spaces keep their plain names)."""
        self.tls.ap = account_prefix
        self.tls.rp = region_prefix

    def scope(self):
        return self.tls.ap, self.tls.rp

    def _sp(self, space):
        t = self.tls
        if not t.rp:
            return space
        if space.startswith(REGIONAL):
            return t.rp + space
        if t.ap and space.startswith(ACCOUNT_WIDE):
            return t.ap + space
        return space

    def index(self, space, field):
        """Index space by field(document) from now on (idempotent)."""
        self.fields[space] = field
        space = self._sp(space)
        if space in self.indexes:
            return
        self.indexes[space] = (field, {}, {})
        for key, value in list(self.data.get(space, {}).items()):
            self._remember(space, key, value)

    def indexed(self, space, ikey):
        """The live {key: value} of the documents whose indexed field is
        ikey (do not mutate without put)."""
        real = self._sp(space)
        if real not in self.indexes:
            self.index(space, self.fields[space])
        return self.indexes[real][1].get(ikey, {})

    def version(self, space):
        """How many times space has changed: equal numbers, same space."""
        return self.versions.get(self._sp(space), 0)

    @contextlib.contextmanager
    def transaction(self):
        """Every put and delete inside reaches the disk in one commit, or
        none does (the sandbox killed before the commit).  A nested call
        joins the outer one.  Callers hold the world lock.  An exception
        commits too: memory already holds the change, and disk must
        match it, as it did before transactions."""
        outer = self.depth == 0
        if outer:
            self.db.execute("BEGIN IMMEDIATE")
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if outer:
                self.db.execute("COMMIT")
                done, self.committed = self.committed, []
                for fn in done:
                    fn()

    def after_commit(self, fn):
        """Run fn once what is written so far is on disk: now, outside a
        transaction; else when the outermost transaction commits."""
        if self.depth == 0:
            fn()
        else:
            self.committed.append(fn)

    def get(self, space, key, default=None):
        return self.data.get(self._sp(space), {}).get(key, default)

    def all(self, space):
        """The live dict of a space (do not mutate without put)."""
        return self.data.get(self._sp(space), {})

    def kind(self, space, prefix):
        """The live {key: value} of one "group|plural|" prefix (do not mutate)."""
        if _kind(prefix) == prefix:
            return self.kinds.get(self._sp(space), {}).get(prefix, {})
        return {k: v for k, v in self.all(space).items() if k.startswith(prefix)}

    def values(self, space):
        return list(self.data.get(self._sp(space), {}).values())

    def put(self, space, key, value):
        space = self._sp(space)
        self._remember(space, key, value)
        self.db.execute("INSERT OR REPLACE INTO kv (space, key, value) VALUES (?, ?, ?)",
                        (space, key, json.dumps(value, separators=(",", ":"))))

    def delete(self, space, key):
        space = self._sp(space)
        self._forget(space, key)
        self.db.execute("DELETE FROM kv WHERE space = ? AND key = ?", (space, key))

    def spaces(self):
        return [s for s, d in self.data.items() if d]

    def drop_space(self, space):
        space = self._sp(space)
        self.data.pop(space, None)
        self.kinds.pop(space, None)
        self.versions[space] = self.versions.get(space, 0) + 1
        ix = self.indexes.get(space)
        if ix is not None:
            ix[1].clear()
            ix[2].clear()
        self.db.execute("DELETE FROM kv WHERE space = ?", (space,))

    def drop_prefix(self, prefix):
        prefix = self._sp(prefix)
        for space in [s for s in self.data if s.startswith(prefix)]:
            self._drop_raw(space)

    def clear(self, keep=()):
        for space in list(self.data):
            if space not in keep:
                self._drop_raw(space)

    def _drop_raw(self, space):
        saved = self.scope()
        self.set_scope("", "")
        try:
            self.drop_space(space)
        finally:
            self.set_scope(*saved)

    def close(self):
        try:
            self.db.close()
        except sqlite3.Error:
            pass
