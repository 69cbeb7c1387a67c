"""Persistence: a write-through cache over one SQLite key/value table.

Everything the sandbox knows (credentials, AWS resources, Kubernetes
objects, faults) lives in named spaces of JSON documents.  Reads come from
memory; each put/delete is written to DIR/state.db immediately, so a
restarted sandbox continues where it was.  Callers hold the world lock.
"""
import json
import os
import sqlite3


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
        for space, key, value in self.db.execute("SELECT space, key, value FROM kv"):
            try:
                self.data.setdefault(space, {})[key] = json.loads(value)
            except ValueError:
                continue

    def get(self, space, key, default=None):
        return self.data.get(space, {}).get(key, default)

    def all(self, space):
        """The live dict of a space (do not mutate without put)."""
        return self.data.get(space, {})

    def values(self, space):
        return list(self.data.get(space, {}).values())

    def put(self, space, key, value):
        self.data.setdefault(space, {})[key] = value
        self.db.execute("INSERT OR REPLACE INTO kv (space, key, value) VALUES (?, ?, ?)",
                        (space, key, json.dumps(value, separators=(",", ":"))))

    def delete(self, space, key):
        sp = self.data.get(space)
        if sp is not None:
            sp.pop(key, None)
        self.db.execute("DELETE FROM kv WHERE space = ? AND key = ?", (space, key))

    def spaces(self):
        return [s for s, d in self.data.items() if d]

    def drop_space(self, space):
        self.data.pop(space, None)
        self.db.execute("DELETE FROM kv WHERE space = ?", (space,))

    def drop_prefix(self, prefix):
        for space in [s for s in self.data if s.startswith(prefix)]:
            self.drop_space(space)

    def clear(self, keep=()):
        for space in list(self.data):
            if space not in keep:
                self.drop_space(space)

    def close(self):
        try:
            self.db.close()
        except sqlite3.Error:
            pass
