"""Request log: one JSON line per request in DIR/requests.jsonl.

Each entry records time, service, operation, key parameters (never
secrets), outcome (HTTP status, error code) and whether the call mutates
state, so tests can assert exactly which mutations happened and how often.

The entries are kept in the state database (table requests), written in
the same transaction as the state the request changed: a sandbox killed
at any point has logged exactly the requests whose effects it kept.
requests.jsonl is a copy for people, appended once an entry is
committed and completed from the table at start.
"""
import collections
import json
import os
import threading
import time

SECRET_WORDS = ("secret", "password", "token", "credential", "authorization",
                "policydocument", "assumerolepolicy", "body", "userdata", "privatekey",
                "webidentity", "configurationvalues", "key_material")
# Names that hold a SECRET_WORDS word but no secret: an idempotency token
# is an identifier the caller chose, and tests check it was resent.
NOT_SECRET = ("clienttoken", "idempotencytoken")
MUTATING_PREFIXES = ("Create", "Delete", "Update", "Put", "Attach", "Detach", "Associate",
                     "Disassociate", "Authorize", "Revoke", "Allocate", "Release", "Batch",
                     "Tag", "Untag", "Start", "Stop", "Reboot", "Replace", "Modify", "Extend",
                     "Register", "Deregister", "Enable", "Disable", "Add", "Remove", "Set",
                     "Cancel", "Reset", "Copy", "Import", "Restore", "Apply", "Patch")


def is_mutating(service, operation, method=None):
    if service == "s3" or service.startswith("kubernetes"):
        return (method or "GET") in ("PUT", "POST", "DELETE", "PATCH")
    return operation.startswith(MUTATING_PREFIXES)


def _is_secret(name):
    n = name.lower().replace("_", "").replace("-", "")
    if n in NOT_SECRET:
        return False
    return any(w.replace("_", "") in n for w in SECRET_WORDS)


def key_params(params, depth=0):
    """Scalars and short lists from the request, secrets removed, long values cut."""
    if not isinstance(params, dict):
        return {}
    out = {}
    for k, v in params.items():
        if _is_secret(str(k)):
            continue
        if isinstance(v, str):
            out[k] = v if len(v) <= 200 else v[:200] + "..."
        elif isinstance(v, (bool, int, float)) or v is None:
            out[k] = v
        elif isinstance(v, list) and depth < 2:
            items = [x if not isinstance(x, dict) else key_params(x, depth + 1) for x in v[:20]]
            out[k] = items
        elif isinstance(v, dict) and depth < 2:
            out[k] = key_params(v, depth + 1)
    return out


class RequestLog:
    def __init__(self, store, world_lock, state_dir, keep=20000):
        self.path = os.path.join(state_dir, "requests.jsonl")
        self.store = store
        self.world_lock = world_lock
        self.lock = threading.Lock()
        self.entries = collections.deque(maxlen=keep)
        self.keep = keep
        self.seq = 0
        self.file = None
        db = store.db
        db.execute("CREATE TABLE IF NOT EXISTS requests (seq INTEGER PRIMARY KEY, "
                   "entry TEXT NOT NULL)")
        mirrored = self._read_file()
        if not db.execute("SELECT 1 FROM requests LIMIT 1").fetchone() and mirrored:
            # A state directory from before the table: the file is all there is.
            with world_lock, store.transaction():
                db.executemany("INSERT OR IGNORE INTO requests (seq, entry) VALUES (?, ?)",
                               [(e.get("seq", i + 1), json.dumps(e, separators=(",", ":")))
                                for i, e in enumerate(mirrored[-keep:])])
        for (text,) in db.execute("SELECT entry FROM (SELECT seq, entry FROM requests "
                                  "ORDER BY seq DESC LIMIT ?) ORDER BY seq", (keep,)):
            try:
                self.entries.append(json.loads(text))
            except ValueError:
                pass
        row = db.execute("SELECT MAX(seq) FROM requests").fetchone()
        self.seq = row[0] or 0
        last = mirrored[-1].get("seq", 0) if mirrored else 0
        self._append([e for e in self.entries if e.get("seq", 0) > last])

    def _read_file(self):
        out = []
        try:
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
        except OSError:
            pass
        return out

    def _append(self, entries):
        if not entries:
            return
        try:
            # One open file, a write and a flush per commit.
            if self.file is None:
                self.file = open(self.path, "a", encoding="utf-8")
            for e in entries:
                self.file.write(json.dumps(e, separators=(",", ":")) + "\n")
            self.file.flush()
        except OSError:
            self.file = None

    def add(self, service, operation, params=None, status=200, error=None, mutating=None,
            method=None, principal=None, request_id=None, fault=None, path=None,
            identity=None):
        """Log one request.  Called inside the request's transaction, the
        entry commits with the request's changes."""
        with self.world_lock, self.lock:
            self.seq += 1
            entry = {
                "seq": self.seq, "time": round(time.time(), 3), "service": service,
                "operation": operation, "params": key_params(params or {}),
                "status": status, "error": error,
                "mutating": bool(is_mutating(service, operation or "", method)
                                 if mutating is None else mutating),
            }
            if method:
                entry["method"] = method
            if path:
                entry["path"] = path
            if principal:
                entry["principal"] = principal
            if identity:
                entry["userIdentity"] = identity
            if request_id:
                entry["request_id"] = request_id
            if fault:
                entry["fault"] = fault
            db = self.store.db
            db.execute("INSERT OR REPLACE INTO requests (seq, entry) VALUES (?, ?)",
                       (self.seq, json.dumps(entry, separators=(",", ":"))))
            if self.seq % 1000 == 0:
                db.execute("DELETE FROM requests WHERE seq <= ?", (self.seq - self.keep,))
            self.entries.append(entry)
            if len(self.entries) > self.keep:
                del self.entries[: len(self.entries) - self.keep]
            self.store.after_commit(lambda: self._append([entry]))
            return entry

    def query(self, service=None, operation=None, mutating=None, since=0, error=None):
        with self.lock:
            out = []
            for e in self.entries:
                if e.get("seq", 0) <= since:
                    continue
                if service and e["service"] != service:
                    continue
                if operation and e["operation"] != operation:
                    continue
                if mutating is not None and e["mutating"] != mutating:
                    continue
                if error is not None and (e.get("error") or "") != error:
                    continue
                out.append(e)
            return out

    def clear(self):
        with self.world_lock, self.lock:
            self.entries = []
            self.store.db.execute("DELETE FROM requests")
            try:
                if self.file is not None:
                    self.file.close()
                self.file = None
                open(self.path, "w").close()
            except OSError:
                pass
