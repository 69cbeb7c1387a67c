"""Fault injection: throttling, 5xx, latency, dropped connections, capacity, crashes.

The configuration is a JSON document (persisted, changed through
POST /_sandbox/faults or command-line flags).  Rates apply per service
("*" for all); `rules` are one-shot faults with a count, optionally limited
to one operation.  `insufficient_capacity` lists instance types HyperPod
cannot get; `withdrawn_addon_versions` lists EKS add-on versions EKS no
longer publishes (deprecated: gone from DescribeAddonVersions and refused
by CreateAddon/UpdateAddon, while add-ons already on them stay there);
`fail_nodes` is handled by the SageMaker service.
"""
import random

RATE_KEYS = ("throttle", "error_5xx", "drop")
# "crash" kills the sandbox (SIGKILL) once a request has done its work
# but before it commits; "crash_after" once it has committed, before the
# answer leaves; "error_after" answers 500 InternalError to a request
# that did its work and committed, as AWS sometimes does.  Only as
# one-shot rules: they test the sandbox's own crash safety and a
# client's handling of an answer lost or misleading.
KINDS = ("throttle", "error_5xx", "drop", "latency", "crash", "crash_after",
         "error_after")


class Faults:
    SPACE = "faults"

    def __init__(self, store, seed=None):
        self.store = store
        self.rng = random.Random(seed)

    def config(self):
        cfg = self.store.get(self.SPACE, "config") or {}
        cfg.setdefault("throttle", {})
        cfg.setdefault("error_5xx", {})
        cfg.setdefault("drop", {})
        cfg.setdefault("latency_ms", {})
        cfg.setdefault("rules", [])
        cfg.setdefault("insufficient_capacity", [])
        cfg.setdefault("withdrawn_addon_versions", [])
        return cfg

    def update(self, spec):
        """Merge a fault spec; returns the new configuration.  Raises ValueError."""
        if not isinstance(spec, dict):
            raise ValueError("fault spec must be a JSON object")
        cfg = self.config()
        for key in RATE_KEYS + ("latency_ms",):
            if key in spec:
                val = spec[key]
                if not isinstance(val, dict):
                    raise ValueError("%s must map service names to numbers" % key)
                for svc, num in val.items():
                    if not isinstance(num, (int, float)) or isinstance(num, bool) or num < 0:
                        raise ValueError("%s.%s must be a non-negative number" % (key, svc))
                    if key != "latency_ms" and num > 1:
                        raise ValueError("%s.%s is a rate between 0 and 1" % (key, svc))
                    if num == 0:
                        cfg[key].pop(svc, None)
                    else:
                        cfg[key][svc] = num
        if "rules" in spec:
            rules = spec["rules"]
            if not isinstance(rules, list):
                raise ValueError("rules must be a list")
            for r in rules:
                if not isinstance(r, dict) or r.get("fault") not in KINDS:
                    raise ValueError("each rule needs fault in %s" % (KINDS,))
                rule = {"service": r.get("service", "*"), "operation": r.get("operation"),
                        "fault": r["fault"], "count": int(r.get("count", 1)),
                        "latency_ms": int(r.get("latency_ms", 0))}
                cfg["rules"].append(rule)
        if "insufficient_capacity" in spec:
            ic = spec["insufficient_capacity"]
            if not isinstance(ic, list) or not all(isinstance(x, str) for x in ic):
                raise ValueError("insufficient_capacity must be a list of instance types")
            cfg["insufficient_capacity"] = ic
        if "withdrawn_addon_versions" in spec:
            wv = spec["withdrawn_addon_versions"]
            if not isinstance(wv, list) or not all(isinstance(x, str) for x in wv):
                raise ValueError("withdrawn_addon_versions must be a list of add-on versions")
            cfg["withdrawn_addon_versions"] = wv
        if "seed" in spec:
            self.rng.seed(spec["seed"])
        self.store.put(self.SPACE, "config", cfg)
        return cfg

    def clear(self):
        self.store.delete(self.SPACE, "config")
        return self.config()

    def _rate(self, table, service):
        if service in table:
            return table[service]
        if service.startswith("kubernetes") and "kubernetes" in table:
            return table["kubernetes"]
        return table.get("*", 0)

    def decide(self, service, operation):
        """Return (fault or None, latency_ms).  Consumes one-shot rules."""
        cfg = self.store.get(self.SPACE, "config")
        if not cfg:
            return None, 0
        latency = self._rate(cfg.get("latency_ms", {}), service)
        rules = cfg.get("rules", [])
        for i, r in enumerate(rules):
            svc_ok = r["service"] in ("*", service) or (
                r["service"] == "kubernetes" and service.startswith("kubernetes"))
            if svc_ok and (not r.get("operation") or r["operation"] == operation):
                r["count"] -= 1
                if r["count"] <= 0:
                    rules.pop(i)
                self.store.put(self.SPACE, "config", cfg)
                if r["fault"] == "latency":
                    return None, latency + r.get("latency_ms", 0)
                return r["fault"], latency
        for key in ("drop", "throttle", "error_5xx"):
            rate = self._rate(cfg.get(key, {}), service)
            if rate and self.rng.random() < rate:
                return key, latency
        return None, latency

    def withdrawn(self, addon_version):
        cfg = self.store.get(self.SPACE, "config") or {}
        return addon_version in cfg.get("withdrawn_addon_versions", [])

    def insufficient(self, instance_type):
        cfg = self.store.get(self.SPACE, "config") or {}
        return instance_type in cfg.get("insufficient_capacity", [])
