"""Request log: one JSON line per request in DIR/requests.jsonl.

Each entry records time, service, operation, key parameters (never
secrets), outcome (HTTP status, error code) and whether the call mutates
state, so tests can assert exactly which mutations happened and how often.
"""
import collections
import json
import os
import threading
import time

SECRET_WORDS = ("secret", "password", "token", "credential", "authorization",
                "policydocument", "assumerolepolicy", "body", "userdata", "privatekey",
                "webidentity", "configurationvalues", "key_material")
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
    def __init__(self, state_dir, keep=20000):
        self.path = os.path.join(state_dir, "requests.jsonl")
        self.lock = threading.Lock()
        self.entries = collections.deque(maxlen=keep)
        self.keep = keep
        self.seq = 0
        self.file = None
        if os.path.exists(self.path):
            try:
                with open(self.path, encoding="utf-8") as f:
                    for line in f:
                        try:
                            self.entries.append(json.loads(line))
                        except ValueError:
                            pass
            except OSError:
                pass
            if self.entries:
                self.seq = self.entries[-1].get("seq", len(self.entries))

    def add(self, service, operation, params=None, status=200, error=None, mutating=None,
            method=None, principal=None, request_id=None, fault=None, path=None):
        with self.lock:
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
            if request_id:
                entry["request_id"] = request_id
            if fault:
                entry["fault"] = fault
            self.entries.append(entry)
            try:
                # One open file, a write and a flush per request.
                if self.file is None:
                    self.file = open(self.path, "a", encoding="utf-8")
                self.file.write(json.dumps(entry, separators=(",", ":")) + "\n")
                self.file.flush()
            except OSError:
                self.file = None
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
        with self.lock:
            self.entries.clear()
            try:
                if self.file is not None:
                    self.file.close()
                self.file = None
                open(self.path, "w").close()
            except OSError:
                pass
