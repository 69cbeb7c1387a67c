"""The Kubernetes REST API of one cluster: discovery, CRUD, patch/apply, watch, logs.

Paths and verbs follow kube-apiserver (`/api/v1/...`, `/apis/G/V/...`,
namespaced and cluster-scoped, subresources status/scale/log/eviction, and
the services/proxy subresource answered by the model servers of inference.py);
answers are the same JSON documents, Table output when kubectl asks for
`as=Table`, chunked JSON-lines watches with 410 Expired for compacted
resourceVersions, and `Status` objects for every error.
"""
import base64
import copy
import contextlib
import json
import time
import urllib.parse
import uuid

from ..protocols import Response
from . import helm, inference, lifecycle, logs, proto, schema, selectors
from .admission import Invalid, default_and_validate
from .auth import AuthError, authenticate, authorize
from .patch import PatchError, apply, decode_body, json_patch, merge_patch, record_update, strategic_merge
from .resources import table
from .store import now_rfc3339

MAX_WATCH_SECONDS = 1800
_CRD_SCHEMAS = {}  # (crd name, resourceVersion, version) -> openAPIV3Schema


class KError(Exception):
    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers = headers or {}


def status_body(code, reason, message, details=None, status="Failure"):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": status, "message": message,
            "reason": reason, "code": code}
    if not reason:
        body.pop("reason")  # StatusReasonUnknown is "" and omitted
    if details is not None:
        body["details"] = details
    if status == "Success":
        body.pop("message")
        body.pop("reason", None)
    return body


def _json(code, obj, headers=None):
    return Response(code, json.dumps(obj, separators=(",", ":")), "application/json", headers)


def not_found(rtype, name):
    res = rtype.plural if not rtype.group else "%s.%s" % (rtype.plural, rtype.group)
    return KError(404, "NotFound", '%s "%s" not found' % (res, name),
                  {"name": name, "group": rtype.group, "kind": rtype.plural})


def _selectors(req, rtype, custom_fields=None):
    """(label requirements, field requirements) of a list or watch request."""
    try:
        labels = selectors.parse_labels(req.query.get("labelSelector"))
        fields = selectors.parse_fields(req.query.get("fieldSelector"), rtype.group, rtype.plural, custom_fields)
    except selectors.SelectorError as e:
        raise KError(400, "BadRequest", str(e))
    return labels, fields


def _matches(labels, fields, obj):
    return selectors.labels_match(labels, obj["metadata"].get("labels") or {}) and \
        selectors.fields_match(fields, obj)


class Api:
    def __init__(self, kc):
        self.kc = kc
        self.world = kc.world

    # --- entry ---------------------------------------------------------------------
    def handle(self, req):
        """One request, in the partition (account, region) of the cluster."""
        with self.world.scope_of_cluster(self.kc.name):
            return self._handle(req)

    def _handle(self, req):
        started = time.time()
        req.query = {}
        for k, v in urllib.parse.parse_qsl(req.raw_query, keep_blank_values=True):
            req.query.setdefault(k, v)
        verb, resource = req.method, req.path
        mutating = req.method in ("POST", "PUT", "PATCH", "DELETE")
        schema.begin_warnings()
        try:
            user = None
            if req.path not in ("/healthz", "/livez", "/readyz", "/version", "/version/"):
                user = authenticate(self.world, self.kc.name, req.header("authorization"))
            elif req.header("authorization"):
                user = authenticate(self.world, self.kc.name, req.header("authorization"))
            with self.world.lock:
                fault, latency = self.world.faults.decide("kubernetes:" + self.kc.name, req.method)
            if latency:
                time.sleep(min(latency, 30000) / 1000.0)
            if fault == "drop":
                resp = Response(0)
                resp.drop = True
                return resp
            if fault == "throttle":
                raise KError(429, "TooManyRequests", "Too many requests, please try again later.",
                             {"retryAfterSeconds": 1}, {"Retry-After": "1"})
            if fault == "error_5xx":
                raise KError(500, "InternalError", "Internal error occurred: injected fault")
            resp, verb, resource = self.route(req, user)
            for w in schema.end_warnings():
                resp.headers.append(("Warning", '299 - "%s"' % w.replace("\\", "\\\\").replace('"', '\\"')))
            status = resp.status
            self._log(req, verb, resource, status, None, mutating)
            return resp
        except AuthError as e:
            resp = _json(e.code, status_body(e.code, e.reason, e.message,
                                             {} if e.code == 403 else None))
            self._log(req, verb, resource, e.code, e.reason, mutating)
            return resp
        except KError as e:
            resp = _json(e.code, status_body(e.code, e.reason, e.message, e.details), e.headers)
            self._log(req, verb, resource, e.code, e.reason, mutating)
            return resp
        except Invalid as e:
            resp = _json(422, status_body(422, "Invalid", e.message, e.details()))
            self._log(req, verb, resource, 422, "Invalid", mutating)
            return resp
        except lifecycle.ApiError as e:
            resp = _json(e.code, status_body(e.code, e.reason, e.message, e.details))
            self._log(req, verb, resource, e.code, e.reason or "Unknown", mutating)
            return resp
        except PatchError as e:
            resp = _json(e.code, status_body(e.code, e.reason, e.message, e.details))
            self._log(req, verb, resource, e.code, e.reason, mutating)
            return resp
        finally:
            schema.end_warnings()
            _ = started

    def _log(self, req, verb, resource, status, error, mutating):
        self.world.reqlog.add("kubernetes:" + self.kc.name, "%s %s" % (verb, resource),
                              {"path": req.path, "query": req.raw_query[:200]} if req.raw_query else {"path": req.path},
                              status, error, mutating, method=req.method)

    # --- routing --------------------------------------------------------------------
    def route(self, req, user):
        path = req.path.rstrip("/") or "/"
        reg = self.kc.registry()
        if path == "/version":
            return _json(200, self.kc.version_info()), "get", "version"
        if path in ("/healthz", "/livez", "/readyz"):
            return Response(200, "ok", "text/plain"), "get", path
        if path == "/api":
            return _json(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % self.kc.port}]}), "get", "discovery"
        if path == "/apis":
            return _json(200, reg.group_list()), "get", "discovery"
        if path == "/openapi/v3":
            return _json(200, reg.openapi_root()), "get", "openapi"
        if path.startswith("/openapi/v3/"):
            rest = path[len("/openapi/v3/"):].split("/")
            if rest[0] == "api" and len(rest) == 2:
                g, v = "", rest[1]
            elif rest[0] == "apis" and len(rest) == 3:
                g, v = rest[1], rest[2]
            else:
                raise KError(404, "NotFound", "the server could not find the requested resource")
            if v not in reg.groups.get(g, []):
                raise KError(404, "NotFound", "the server could not find the requested resource")
            return _json(200, reg.openapi_gv(g, v)), "get", "openapi"
        if path == "/openapi/v2":
            raise KError(404, "NotFound", "the server could not find the requested resource")
        segs = [s for s in path.split("/") if s]
        if not segs or segs[0] not in ("api", "apis"):
            raise KError(404, "NotFound", "the server could not find the requested resource")
        if segs[0] == "api":
            if len(segs) < 2:
                raise KError(404, "NotFound", "the server could not find the requested resource")
            group, version, rest = "", segs[1], segs[2:]
        else:
            if len(segs) == 2:
                doc = reg.group_doc(segs[1])
                if doc is None:
                    raise KError(404, "NotFound", "the server could not find the requested resource")
                return _json(200, doc), "get", "discovery"
            group, version, rest = segs[1], segs[2], segs[3:]
        if version not in reg.groups.get(group, []):
            raise KError(404, "NotFound", "the server could not find the requested resource")
        if not rest:
            return _json(200, reg.resource_list(group, version)), "get", "discovery"
        watch_prefix = False
        if rest[0] == "watch":
            watch_prefix = True
            rest = rest[1:]
        ns = None
        if len(rest) >= 3 and rest[0] == "namespaces" and not (len(rest) == 3 and rest[2] in ("status", "finalize")):
            ns = rest[1]
            rest = rest[2:]
        if group == "" and ns is not None and len(rest) >= 3 and rest[0] == "services" and rest[2] == "proxy":
            return self.service_proxy(req, user, ns, rest[1], "/".join(rest[3:]))
        if not rest or len(rest) > 3:
            raise KError(404, "NotFound", "the server could not find the requested resource")
        plural = rest[0]
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        rtype = reg.find(group, version, plural)
        if rtype is None or (ns is not None and not rtype.namespaced):
            raise KError(404, "NotFound", "the server could not find the requested resource")
        if sub and sub not in rtype.subresources:
            raise KError(404, "NotFound", "the server could not find the requested resource")
        q = req.query
        m = req.method
        is_watch = watch_prefix or q.get("watch") in ("1", "true", "True")
        if m == "GET":
            verb = "watch" if is_watch else ("get" if name else "list")
        elif m == "POST":
            verb = "create"
        elif m == "PUT":
            verb = "update"
        elif m == "PATCH":
            verb = "patch"
        elif m == "DELETE":
            verb = "delete" if name else "deletecollection"
        else:
            raise KError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        resource = plural + ("/" + sub if sub else "")
        if m == "POST" and plural in ("selfsubjectreviews", "selfsubjectaccessreviews") and not name:
            return self.review(req, rtype, version, user), verb, resource
        authorize(self.kc, user, verb, group, resource, ns, name)
        # A write and what it sets off (owners, finalizers) commit together.
        txn = self.world.store.transaction() if m != "GET" else contextlib.nullcontext()
        with self.world.lock, txn:
            if is_watch and m == "GET":
                return self.watch(req, rtype, version, ns, name), verb, resource
            if m == "GET" and sub == "log":
                return self.pod_log(req, rtype, ns, name), verb, resource
            if m == "GET":
                if name:
                    return self.get(req, rtype, version, ns, name, sub), verb, resource
                return self.list(req, rtype, version, ns), verb, resource
            if m == "POST":
                if name and sub == "eviction":
                    return self.evict(rtype, ns, name), verb, resource
                if name:
                    raise KError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
                return self.create(req, rtype, version, ns), verb, resource
            if not name:
                if m == "DELETE":
                    return self.delete_collection(req, rtype, version, ns), verb, resource
                raise KError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
            if m == "PUT":
                return self.update(req, rtype, version, ns, name, sub), verb, resource
            if m == "PATCH":
                return self.patch(req, rtype, version, ns, name, sub), verb, resource
            return self.delete(req, rtype, version, ns, name), verb, resource

    # --- helpers --------------------------------------------------------------------
    def _out(self, rtype, version, obj):
        obj = copy.deepcopy(obj)
        obj["apiVersion"] = "%s/%s" % (rtype.group, version) if rtype.group else version
        obj["kind"] = rtype.kind
        return obj

    def _fetch(self, rtype, ns, name):
        obj = self.kc.store.get(rtype.group, rtype.plural, ns, name)
        if obj is None:
            raise not_found(rtype, name)
        return obj

    def _body(self, req, rtype=None):
        if "protobuf" in (req.header("content-type") or ""):
            try:
                return proto.decode(req.body, rtype.kind if rtype else None)
            except (ValueError, IndexError, UnicodeDecodeError):
                raise KError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                             "accepted media types include: application/json, application/yaml")
        if not req.body.strip():
            raise KError(400, "BadRequest", "the body of the request is empty")
        obj = decode_body(req.body, req.header("content-type"))
        if not isinstance(obj, (dict, list)):
            raise KError(400, "BadRequest", "the body of the request must be a JSON object")
        return obj

    def _manager(self, req, default="unknown"):
        fm = req.query.get("fieldManager")
        if fm:
            return fm
        ua = req.header("user-agent") or default
        return ua.split("/")[0][:128] or default

    def _check_ns(self, rtype, ns):
        if rtype.namespaced and ns and self.kc.store.get("", "namespaces", None, ns) is None:
            raise KError(404, "NotFound", 'namespaces "%s" not found' % ns,
                         {"name": ns, "kind": "namespaces"})

    def _check_identity(self, rtype, version, obj, ns, name=None):
        if not isinstance(obj, dict):
            raise KError(400, "BadRequest", "the body of the request was in an unknown format")
        want = "%s/%s" % (rtype.group, version) if rtype.group else version
        if obj.get("apiVersion") and obj["apiVersion"] != want and obj["apiVersion"] not in rtype.gv_list():
            raise KError(400, "BadRequest", "the API version in the data (%s) does not match the expected API "
                         "version (%s)" % (obj["apiVersion"], want))
        if obj.get("kind") and obj["kind"] != rtype.kind:
            raise KError(400, "BadRequest", "the kind in the data (%s) does not match the expected kind (%s)" % (
                obj["kind"], rtype.kind))
        md = obj.setdefault("metadata", {})
        if not isinstance(md, dict):
            raise KError(400, "BadRequest", "metadata must be an object")
        if rtype.namespaced:
            if md.get("namespace") and ns and md["namespace"] != ns:
                raise KError(400, "BadRequest", "the namespace of the provided object does not match the "
                             "namespace sent on the request")
            md["namespace"] = ns or md.get("namespace") or "default"
        else:
            md.pop("namespace", None)
        if name is not None and md.get("name") and md["name"] != name:
            raise KError(400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)" % (
                md["name"], name))
        if name is not None:
            md["name"] = name
        obj["apiVersion"] = want
        obj["kind"] = rtype.kind

    # --- schema checks ----------------------------------------------------------------
    def _crd_schema(self, rtype, version):
        """The openAPIV3Schema of `rtype` at `version` (cached per CRD resourceVersion)."""
        crd = self.kc.store.get("apiextensions.k8s.io", "customresourcedefinitions", None,
                                "%s.%s" % (rtype.plural, rtype.group))
        if crd is None:
            return None
        key = (crd["metadata"]["name"], crd["metadata"].get("resourceVersion"), version)
        hit = _CRD_SCHEMAS.get(key)
        if hit is None:
            for v in (crd.get("spec") or {}).get("versions") or []:
                if v.get("name") == version:
                    hit = copy.deepcopy(((v.get("schema") or {}).get("openAPIV3Schema")) or {})
            if len(_CRD_SCHEMAS) > 512:
                _CRD_SCHEMAS.clear()
            _CRD_SCHEMAS[key] = hit = hit or {}
        return hit

    def _schema_pass(self, req, rtype, version, obj, apply_config=False, old=None):
        """Decode/validate `obj` against its schema as kube-apiserver does; prunes and defaults.

        `apply_config`: `obj` is a server-side apply configuration (errors are
        the typed-patch 400s); otherwise it is the object about to be stored.
        `old`: the stored object on update (CEL transition rules and ratcheting).
        """
        builtin = rtype in _builtin()
        if apply_config:
            obj = copy.deepcopy(obj)  # the configuration itself is neither pruned nor defaulted
        if builtin:
            r = schema.check_builtin(rtype.group, version, rtype.kind, obj)
        else:
            r = schema.check_custom(self._crd_schema(rtype, version), obj,
                                    None if old is None or apply_config else self._out(rtype, version, old))
        if r is None:
            return
        fv = req.query.get("fieldValidation") or ("Strict" if apply_config else "Warn")
        gv = "%s/%s" % (rtype.group, version)
        if apply_config:
            errs = [("%s: %s" % e) for e in (r.apply_type if builtin else [])]
            if fv == "Strict":
                errs += ["%s: field not declared in schema" % ssa for _, ssa in r.unknown]
            errs += ["%s: duplicate entries for key %s" % d for d in r.dup_keys]
            if errs:
                raise KError(400, "BadRequest", "failed to create typed patch object (%s, Kind=%s): %s" % (
                    gv, rtype.kind, errs[0] if len(errs) == 1 else "errors:\n  " + "\n  ".join(errs)))
        if r.decode and not (apply_config and r.apply_type):
            raise KError(400, "BadRequest", '%s in version "%s" cannot be handled as a %s: %s' % (
                rtype.kind, version, rtype.kind, r.decode[0][1]))
        if r.unknown and not apply_config:
            if fv == "Strict":
                raise KError(400, "BadRequest", "strict decoding error: " + ", ".join(
                    'unknown field "%s"' % p for p, _ in r.unknown))
            if fv == "Warn":
                for p, _ in r.unknown:
                    schema.warn('unknown field "%s"' % p)
        elif r.unknown and fv == "Warn":
            for p, _ in r.unknown:
                schema.warn('unknown field "%s"' % p)
        if r.causes and not apply_config:
            raise Invalid(rtype.kind, (obj.get("metadata") or {}).get("name", ""), r.causes, rtype.group)

    def _status_pass(self, req, rtype, version, new, old):
        """Validate a write to /status as the whole object it makes: the stored object with the new
        status.  apiextensions-apiserver's status_strategy.go PrepareForUpdate keeps everything but
        .status from the old object and ValidateUpdate runs the schema and every CEL rule over the
        result (transition rules and ratcheting against the old one); the built-in kinds decode
        and validate the whole object too.  `new` gets the status as decoded (pruned, defaulted)."""
        merged = copy.deepcopy(self._out(rtype, version, old))
        if "status" in new:
            merged["status"] = copy.deepcopy(new["status"])
        else:
            merged.pop("status", None)
        self._schema_pass(req, rtype, version, merged, old=old)
        if "status" in merged:
            new["status"] = merged["status"]

    # --- read ------------------------------------------------------------------------
    def get(self, req, rtype, version, ns, name, sub):
        obj = self._fetch(rtype, ns, name)
        if sub == "scale":
            return _json(200, self._scale(rtype, obj))
        out = self._out(rtype, version, obj)
        if "as=Table" in (req.header("accept") or ""):
            return _json(200, table(rtype, [out], self.world.clock.now(), str(self.kc.store.rv),
                                    req.query.get("includeObject", "Metadata")))
        return _json(200, out)

    def _custom_fields(self, rtype, version):
        """A custom resource's selectable fields (None for built-in kinds)."""
        if rtype in _builtin():
            return None
        crd = self.kc.store.get("apiextensions.k8s.io", "customresourcedefinitions", None,
                                "%s.%s" % (rtype.plural, rtype.group))
        for v in ((crd or {}).get("spec") or {}).get("versions") or []:
            if v.get("name") == version:
                return [f.get("jsonPath", "").lstrip(".") for f in v.get("selectableFields") or []]
        return []

    def _filtered(self, req, rtype, ns, version=None):
        labels, fields = _selectors(req, rtype, self._custom_fields(rtype, version))
        objs = self.kc.store.list(rtype.group, rtype.plural, ns if rtype.namespaced else None)
        return [o for o in objs if _matches(labels, fields, o)]

    def list(self, req, rtype, version, ns):
        store = self.kc.store
        lifecycle.check_list_options(req.query, watch=False)
        self._list_rv(req.query)
        objs = self._filtered(req, rtype, ns, version)
        start = 0
        cont = req.query.get("continue")
        if cont:
            try:
                tok = json.loads(base64.b64decode(cont))
                start, rv = int(tok["start"]), int(tok["rv"])
            except (ValueError, KeyError, TypeError):
                raise KError(400, "BadRequest", "continue key is not valid: illegal base64 data")
            if rv < store.oldest:
                raise KError(410, "Expired", "The provided continue parameter is too old to display a consistent "
                             "list result. You can start a new list without the continue parameter, or use the "
                             "continue token in this response to retrieve the remainder of the results.")
        limit = req.query.get("limit")
        meta = {"resourceVersion": str(store.rv)}
        try:
            limit = int(limit) if limit else 0
        except ValueError:
            limit = 0
        items = objs[start:]
        if limit and len(items) > limit:
            items = items[:limit]
            meta["continue"] = base64.b64encode(json.dumps({"start": start + limit, "rv": store.rv}).encode()).decode()
            meta["remainingItemCount"] = len(objs) - start - limit
        out_items = [self._out(rtype, version, o) for o in items]
        if "as=Table" in (req.header("accept") or ""):
            t = table(rtype, out_items, self.world.clock.now(), str(store.rv), req.query.get("includeObject", "Metadata"))
            t["metadata"] = meta
            return _json(200, t)
        gv = "%s/%s" % (rtype.group, version) if rtype.group else version
        return _json(200, {"kind": rtype.kind + "List", "apiVersion": gv, "metadata": meta, "items": out_items})

    def _list_rv(self, q):
        """resourceVersion of a list: a number; Exact below the compaction
        point is 410 (etcd3 store: "The resourceVersion for the provided list
        is too old."); one ahead of the store times out as the watch cache
        does (504, ResourceVersionTooLarge)."""
        rvq = q.get("resourceVersion")
        if not rvq:
            return
        try:
            rv = int(rvq)
        except ValueError:
            raise KError(400, "BadRequest", 'invalid resource version "%s": strconv.ParseUint: parsing "%s": '
                                            'invalid syntax' % (rvq, rvq))
        store = self.kc.store
        if rv > store.rv:
            raise KError(504, "Timeout", "Too large resource version: %d, current: %d" % (rv, store.rv),
                         {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                          "retryAfterSeconds": 1})
        if rv and q.get("resourceVersionMatch") == "Exact" and rv <= store.oldest:
            raise KError(410, "Expired", "The resourceVersion for the provided list is too old.")

    # --- write -------------------------------------------------------------------------
    def create(self, req, rtype, version, ns):
        obj = self._body(req, rtype)
        if not isinstance(obj, dict):
            raise KError(400, "BadRequest", "the body of the request was in an unknown format")
        lifecycle.check_options(req.query, "create")
        self._check_identity(rtype, version, obj, ns)
        lifecycle.generate_name(obj["metadata"])
        self._schema_pass(req, rtype, version, obj)
        self._check_ns(rtype, obj["metadata"].get("namespace") if rtype.namespaced else None)
        if not obj["metadata"].get("name"):
            raise Invalid(rtype.kind, "", [("metadata.name", "Required value: name or generateName is required", None)])
        lifecycle.namespace_refusal(self.kc, rtype, obj)
        lifecycle.prepare_create(rtype, obj)
        causes = lifecycle.finalizer_causes(rtype, obj["metadata"], None)
        if causes:
            raise Invalid(rtype.kind, obj["metadata"]["name"], causes, rtype.group)
        existing = self.kc.store.get(rtype.group, rtype.plural, obj["metadata"].get("namespace"), obj["metadata"]["name"])
        if existing is not None:
            res = rtype.plural if not rtype.group else "%s.%s" % (rtype.plural, rtype.group)
            # registry/generic/registry/store.go Create: a name still held by
            # an object being deleted says so.
            gone = "object is being deleted: " if existing["metadata"].get("deletionTimestamp") else ""
            raise KError(409, "AlreadyExists", '%s%s "%s" already exists' % (gone, res, obj["metadata"]["name"]),
                         {"name": obj["metadata"]["name"], "group": rtype.group, "kind": rtype.plural})
        obj["metadata"].pop("managedFields", None)
        if req.query.get("dryRun") == "All":
            default_and_validate(self.kc, rtype, obj)
            return _json(201, self._out(rtype, version, obj))
        created = self.kc.create_object(rtype.group, rtype.plural, obj, manager=self._manager(req), rtype=rtype)
        return _json(201, self._out(rtype, version, created))

    def _store_update(self, rtype, old, new, manager, sub=None):
        if sub != "status" and "status" in rtype.subresources and old is not None:
            if "status" in old:
                new["status"] = copy.deepcopy(old["status"])
            else:
                new.pop("status", None)
        if sub == "status":
            keep = copy.deepcopy(old)
            keep["status"] = new.get("status")
            new = keep
        md = new["metadata"]
        lifecycle.keep_system_fields(md, old["metadata"])
        if sub is None:
            causes = lifecycle.finalizer_causes(rtype, md, old["metadata"])
            if causes:
                raise Invalid(rtype.kind, md.get("name", ""), causes, rtype.group)
            default_and_validate(self.kc, rtype, new, old=old)
        # The strategies bump metadata.generation when the object's desired
        # state changes: everything but metadata and, where /status is a
        # subresource, status (customresource strategy, apps/batch strategies).
        skip = ("metadata", "status") if "status" in rtype.subresources else ("metadata",)
        spec_changed = sub is None and {k: v for k, v in new.items() if k not in skip} != \
            {k: v for k, v in old.items() if k not in skip}
        record_update(old, new, manager, now_rfc3339(self.world.clock.now()), sub or "")
        if new == old:
            return old
        updated = self.kc.store.update(rtype.group, rtype.plural, new, bump_generation=spec_changed)
        if lifecycle.emptied(updated):
            md = updated["metadata"]
            self.kc.delete_object(rtype.group, rtype.plural, md.get("namespace"), md["name"])
        return updated

    def update(self, req, rtype, version, ns, name, sub):
        old = self._fetch(rtype, ns, name)
        obj = self._body(req, rtype)
        if sub == "scale":
            return self._update_scale(rtype, old, obj)
        lifecycle.check_options(req.query, "update")
        self._check_identity(rtype, version, obj, ns, name)
        lifecycle.check_update(rtype, obj, old, name, custom=rtype not in _builtin())
        obj["metadata"].pop("managedFields", None)
        if sub is None:
            self._schema_pass(req, rtype, version, obj, old=old)
        elif sub == "status":
            self._status_pass(req, rtype, version, obj, old)
        obj["metadata"]["managedFields"] = old["metadata"].get("managedFields", [])
        if req.query.get("dryRun") == "All":
            return _json(200, self._out(rtype, version, obj))
        new = self._store_update(rtype, old, obj, self._manager(req), sub)
        return _json(200, self._out(rtype, version, new))

    def patch(self, req, rtype, version, ns, name, sub):
        ctype = (req.header("content-type") or "").split(";")[0].strip()
        lifecycle.check_options(req.query, "patch", ctype)
        body = self._body(req)
        old = self.kc.store.get(rtype.group, rtype.plural, ns, name)
        nt = now_rfc3339(self.world.clock.now())
        if ctype == "application/apply-patch+yaml":
            manager = req.query.get("fieldManager")
            if not isinstance(body, dict):
                raise KError(400, "BadRequest", "apply patch must be an object")
            self._check_identity(rtype, version, body, ns, name)
            force = req.query.get("force") in ("true", "1")
            if body["metadata"].get("managedFields"):
                raise KError(400, "BadRequest", "metadata.managedFields must be nil")
            if sub is None:
                self._schema_pass(req, rtype, version, body, apply_config=True)
            if old is None:
                self._check_ns(rtype, ns)
                lifecycle.namespace_refusal(self.kc, rtype, body)
                new = apply(None, body, manager, force, nt)
                self._schema_pass(req, rtype, version, new)
                if req.query.get("dryRun") == "All":
                    return _json(201, self._out(rtype, version, new))
                created = self.kc.create_object(rtype.group, rtype.plural, new, manager=None, rtype=rtype)
                return _json(201, self._out(rtype, version, created))
            base = copy.deepcopy(old)
            new = apply(base, body, manager, force, nt, "status" if sub == "status" else "")
            if sub is None:
                self._schema_pass(req, rtype, version, new, old=old)
            elif sub == "status":
                self._status_pass(req, rtype, version, new, old)
            if req.query.get("dryRun") == "All":
                return _json(200, self._out(rtype, version, new))
            mf = new["metadata"].get("managedFields")
            updated = self._store_update(rtype, old, new, None, sub)
            if mf is not None and updated is not old:
                updated["metadata"]["managedFields"] = mf
                self.kc.store.db.put(self.kc.store.space, _okey(rtype, updated), updated)
            return _json(200, self._out(rtype, version, updated))
        if old is None:
            raise not_found(rtype, name)
        if sub == "scale":
            scale = self._scale(rtype, old)
            if ctype == "application/json-patch+json":
                scale = json_patch(scale, body)
            else:
                scale = merge_patch(scale, body)
            return self._update_scale(rtype, old, scale)
        cur = self._out(rtype, version, old)
        if ctype == "application/json-patch+json":
            new = json_patch(cur, body)
        elif ctype == "application/merge-patch+json":
            new = merge_patch(cur, body)
        elif ctype == "application/strategic-merge-patch+json":
            if rtype not in _builtin():
                raise KError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                             "accepted media types include: application/json-patch+json, "
                             "application/merge-patch+json, application/apply-patch+yaml")
            new = strategic_merge(cur, body)
        else:
            raise KError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted "
                         "media types include: application/json-patch+json, application/merge-patch+json, "
                         "application/apply-patch+yaml, application/strategic-merge-patch+json")
        if not isinstance(new, dict):
            raise KError(422, "Invalid", "patched object is not an object")
        self._check_identity(rtype, version, new, ns, name)
        if sub is None:
            self._schema_pass(req, rtype, version, new, old=old)
        elif sub == "status":
            self._status_pass(req, rtype, version, new, old)
        sent = new["metadata"].get("resourceVersion")
        if sent and sent != old["metadata"]["resourceVersion"]:
            # A resourceVersion in the patch is a precondition of the update.
            raise lifecycle.conflict(rtype, name, "the object has been modified; please apply your changes to the "
                                                  "latest version and try again")
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if req.query.get("dryRun") == "All":
            return _json(200, self._out(rtype, version, new))
        updated = self._store_update(rtype, old, new, self._manager(req), sub)
        return _json(200, self._out(rtype, version, updated))

    def _scale(self, rtype, obj):
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        sel = (spec.get("selector") or {}).get("matchLabels") or {}
        selector = st.get("selector") or ",".join("%s=%s" % kv for kv in sorted(sel.items()))
        return {"kind": "Scale", "apiVersion": "autoscaling/v1",
                "metadata": {"name": obj["metadata"]["name"], "namespace": obj["metadata"].get("namespace"),
                             "uid": obj["metadata"]["uid"], "resourceVersion": obj["metadata"]["resourceVersion"],
                             "creationTimestamp": obj["metadata"]["creationTimestamp"]},
                "spec": {"replicas": spec.get("replicas", 0)},
                "status": {"replicas": st.get("replicas", 0), "selector": selector}}

    def _update_scale(self, rtype, old, scale):
        try:
            replicas = int((scale.get("spec") or {}).get("replicas"))
        except (TypeError, ValueError):
            raise Invalid("Scale", old["metadata"]["name"], [("spec.replicas", "Required value", None)])
        if replicas < 0:
            raise Invalid("Scale", old["metadata"]["name"], [("spec.replicas", "must be greater than or equal to 0", replicas)])
        new = copy.deepcopy(old)
        new.setdefault("spec", {})["replicas"] = replicas
        updated = self.kc.store.update(rtype.group, rtype.plural, new, bump_generation=True)
        return _json(200, self._scale(rtype, updated))

    def delete(self, req, rtype, version, ns, name):
        lifecycle.check_options(req.query, "delete")
        obj = self._fetch(rtype, ns, name)
        policy = req.query.get("propagationPolicy")
        opts = {}
        if req.body.strip():
            try:
                opts = json.loads(req.body.decode("utf-8"))
            except ValueError:
                raise KError(400, "BadRequest", "the body of the request was in an unknown format")
            if not isinstance(opts, dict):
                opts = {}
            policy = opts.get("propagationPolicy") or policy
            if opts.get("dryRun"):
                lifecycle.check_options({"dryRun": ",".join(opts["dryRun"])}, "delete")
        if policy is not None and policy not in ("Foreground", "Background", "Orphan"):
            raise Invalid("DeleteOptions", "", [schema.not_supported(
                "propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"])], "meta.k8s.io")
        lifecycle.delete_preconditions(rtype, obj, opts)
        if req.query.get("dryRun") == "All" or (opts.get("dryRun") or []) == ["All"]:
            return _json(200, self._out(rtype, version, obj))
        grace = opts.get("gracePeriodSeconds", req.query.get("gracePeriodSeconds"))
        gone = self.kc.delete_object(rtype.group, rtype.plural, ns, name, policy or "Background", grace=grace)
        still = self.kc.store.get(rtype.group, rtype.plural, ns, name)
        if still is not None:
            # registry/generic/registry/store.go: pending finalizers (or a
            # terminating namespace) answer 200 with the object as it now is.
            return _json(200, self._out(rtype, version, still))
        if rtype.plural == "pods" and rtype.group == "":
            out = self._out(rtype, version, gone or obj)
            out["metadata"]["deletionTimestamp"] = now_rfc3339(self.world.clock.now())
            return _json(200, out)
        return _json(200, status_body(200, "", "", {"name": name, "group": rtype.group, "kind": rtype.plural,
                                                     "uid": obj["metadata"]["uid"]}, status="Success"))

    def delete_collection(self, req, rtype, version, ns):
        lifecycle.check_options(req.query, "delete")
        objs = self._filtered(req, rtype, ns, version)
        for o in objs:
            self.kc.delete_object(rtype.group, rtype.plural, o["metadata"].get("namespace"), o["metadata"]["name"])
        gv = "%s/%s" % (rtype.group, version) if rtype.group else version
        return _json(200, {"kind": rtype.kind + "List", "apiVersion": gv,
                           "metadata": {"resourceVersion": str(self.kc.store.rv)},
                           "items": [self._out(rtype, version, o) for o in objs]})

    def evict(self, rtype, ns, name):
        self._fetch(rtype, ns, name)
        self.kc.delete_object("", "pods", ns, name)
        return _json(201, status_body(201, "", "", None, status="Success"))

    def review(self, req, rtype, version, user):
        body = self._body(req, rtype) if req.body.strip() else {}
        out = {"kind": rtype.kind, "apiVersion": "%s/%s" % (rtype.group, version), "metadata": {
            "creationTimestamp": None}}
        if rtype.plural == "selfsubjectreviews":
            out["status"] = {"userInfo": {"username": user.name, "groups": user.groups}}
            if user.arn:
                out["status"]["userInfo"]["extra"] = {"arn": [user.arn]}
            return _json(201, out)
        attrs = (body.get("spec") or {}).get("resourceAttributes") or {}
        try:
            authorize(self.kc, user, attrs.get("verb", "get"), attrs.get("group", ""),
                      attrs.get("resource", "") + ("/" + attrs["subresource"] if attrs.get("subresource") else ""),
                      attrs.get("namespace") or None, attrs.get("name") or None)
            allowed, reason = True, "allowed by sandbox authorizer"
        except AuthError as e:
            allowed, reason = False, e.message
        out["spec"] = body.get("spec") or {}
        out["status"] = {"allowed": allowed, "reason": reason} if allowed else {"allowed": False, "reason": reason}
        return _json(201, out)

    # --- watch -------------------------------------------------------------------------
    def watch(self, req, rtype, version, ns, name):
        store = self.kc.store
        q = req.query
        lifecycle.check_list_options(q, watch=True)
        labels, fields = _selectors(req, rtype, self._custom_fields(rtype, version))
        if name:
            fields.append(("metadata.name", True, name))
        try:
            timeout = min(float(q.get("timeoutSeconds") or MAX_WATCH_SECONDS), MAX_WATCH_SECONDS)
        except ValueError:
            timeout = MAX_WATCH_SECONDS
        bookmarks = q.get("allowWatchBookmarks") in ("true", "1")
        rvq = q.get("resourceVersion")
        expired = False
        initial = []
        if rvq in (None, "", "0") or q.get("sendInitialEvents") == "true":
            start_rv = store.rv
            initial = [o for o in store.list(rtype.group, rtype.plural, ns if rtype.namespaced else None)
                       if _matches(labels, fields, o)]
        else:
            try:
                start_rv = int(rvq)
            except ValueError:
                raise KError(400, "BadRequest", "invalid resourceVersion %r" % rvq)
            if start_rv < store.oldest:
                expired = True
        api = self
        kc = self.kc
        gv = "%s/%s" % (rtype.group, version) if rtype.group else version

        def matches(o):
            if rtype.namespaced and ns and o["metadata"].get("namespace") != ns:
                return False
            return _matches(labels, fields, o)

        def stream():
            if expired:
                yield json.dumps({"type": "ERROR", "object": status_body(
                    410, "Expired", "too old resource version: %s (%d)" % (rvq, store.oldest + 1))}) + "\n"
                return
            for o in initial:
                yield json.dumps({"type": "ADDED", "object": api._out(rtype, version, o)}) + "\n"
            if q.get("sendInitialEvents") == "true" and bookmarks:
                yield json.dumps({"type": "BOOKMARK", "object": {"kind": rtype.kind, "apiVersion": gv, "metadata": {
                    "resourceVersion": str(start_rv), "annotations": {"k8s.io/initial-events-end": "true"}}}}) + "\n"
            last = start_rv
            deadline = time.time() + timeout
            next_bookmark = time.time() + 5
            while time.time() < deadline and not kc.stopped:
                with store.cond:
                    evs = store.events_since(last, rtype.group, rtype.plural)
                    if not evs:
                        store.cond.wait(0.5)
                        evs = store.events_since(last, rtype.group, rtype.plural)
                    too_old = last < store.oldest
                    oldest = store.oldest
                if too_old:
                    yield json.dumps({"type": "ERROR", "object": status_body(
                        410, "Expired", "too old resource version: %d (%d)" % (last, oldest + 1))}) + "\n"
                    return
                out = []
                for rv, etype, o in evs:
                    last = max(last, rv)
                    if matches(o):
                        out.append(json.dumps({"type": etype, "object": api._out(rtype, version, o)}) + "\n")
                if out:
                    yield "".join(out)
                elif bookmarks and time.time() >= next_bookmark:
                    next_bookmark = time.time() + 5
                    yield json.dumps({"type": "BOOKMARK", "object": {"kind": rtype.kind, "apiVersion": gv,
                                                                     "metadata": {"resourceVersion": str(store.rv)}}}) + "\n"
        return Response(200, b"", "application/json", stream=stream)

    # --- services/proxy ---------------------------------------------------------------------
    def service_proxy(self, req, user, ns, ref, subpath):
        """/api/v1/namespaces/<ns>/services/[<scheme>:]<name>[:<port>]/proxy/<path>: the
        request goes to a Ready endpoint of the Service, answered as its server would."""
        verbs = {"GET": "get", "HEAD": "get", "POST": "create", "PUT": "update", "PATCH": "patch",
                 "DELETE": "delete"}
        if req.method not in verbs:
            raise KError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        parts = ref.split(":")
        if len(parts) == 3:
            name, port = parts[1], parts[2]
        elif len(parts) == 2:
            name, port = parts
        else:
            name, port = parts[0], None
        verb = verbs[req.method]
        authorize(self.kc, user, verb, "", "services/proxy", ns, name)
        with self.world.lock:
            svc = self.kc.store.get("", "services", ns, name)
            if svc is None:
                raise not_found(self.kc.registry().find("", "v1", "services"), name)
            try:
                pod, container = inference.pick_endpoint(svc, self.kc.store.list("", "pods", ns), port)
            except inference.ProxyError as e:
                raise KError(e.code, e.reason, e.message)
            status, doc = inference.serve(copy.deepcopy(pod), copy.deepcopy(container), req.method,
                                          subpath, req.body)
        return _json(status, doc), verb, "services/proxy"

    # --- logs ---------------------------------------------------------------------------
    def pod_log(self, req, rtype, ns, name):
        pod = self._fetch(rtype, ns, name)
        q = req.query
        containers = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
        cname = q.get("container")
        if not cname:
            if len(containers) != 1:
                raise KError(400, "BadRequest", "a container name must be specified for pod %s, choose one of: "
                             "[%s]" % (name, " ".join(containers)))
            cname = containers[0]
        elif cname not in containers:
            raise KError(400, "BadRequest", "container %s is not valid for pod %s" % (cname, name))
        if pod["status"].get("phase") == "Pending":
            reason = "ContainerCreating" if (pod.get("spec") or {}).get("nodeName") else "ContainerCreating"
            raise KError(400, "BadRequest", 'container "%s" in pod "%s" is waiting to start: %s' % (cname, name, reason))
        clock = self.world.clock
        started = float((pod["metadata"].get("annotations") or {}).get("sandbox.slipway.dev/started-at", clock.now()))
        follow = q.get("follow") in ("true", "1")
        timestamps = q.get("timestamps") in ("true", "1")
        try:
            tail = int(q["tailLines"]) if q.get("tailLines") else None
        except ValueError:
            tail = None
        try:
            since = float(q["sinceSeconds"]) if q.get("sinceSeconds") else None
        except ValueError:
            since = None
        try:
            limit_bytes = int(q["limitBytes"]) if q.get("limitBytes") else None
        except ValueError:
            limit_bytes = None
        store = self.kc.store
        dur = logs.duration(pod)

        def fmt(offset, text):
            if timestamps:
                ts = started + offset / clock.speed
                return "%s.%09dZ %s\n" % (now_rfc3339(ts)[:-1], int((ts % 1) * 1e9), text)
            return text + "\n"

        def elapsed_now():
            e = clock.elapsed(started)
            return min(e, dur) if dur is not None and pod["status"].get("phase") != "Running" else e

        helm_out = helm.log_lines(pod)
        first = helm_out if helm_out is not None else logs.lines(pod, cname, elapsed_now())
        if since is not None:
            cutoff = clock.now() - since
            first = [(t, s) for t, s in first if started + t / clock.speed >= cutoff]
        if tail is not None:
            first = first[-tail:] if tail > 0 else []
        text = "".join(fmt(t, s) for t, s in first)
        if not follow or helm_out is not None:
            data = text.encode("utf-8")
            if limit_bytes is not None:
                data = data[:limit_bytes]
            return Response(200, data, "text/plain")
        sent = first[-1][0] if first else -1.0
        all_sent = len(logs.lines(pod, cname, elapsed_now()))
        kc = self.kc

        def stream():
            nonlocal sent, all_sent
            if text:
                yield text
            while not kc.stopped:
                time.sleep(0.2)
                with store.cond:
                    cur = store.get("", "pods", ns, name)
                if cur is None or cur["metadata"]["uid"] != pod["metadata"]["uid"]:
                    return
                el = clock.elapsed(started)
                if dur is not None:
                    el = min(el, dur)
                lines = logs.lines(cur, cname, el)
                new = lines[all_sent:] if len(lines) >= all_sent else [l for l in lines if l[0] > sent]
                all_sent = len(lines)
                if new:
                    sent = new[-1][0]
                    yield "".join(fmt(t, s) for t, s in new)
                if cur["status"].get("phase") in ("Succeeded", "Failed"):
                    return
        return Response(200, b"", "text/plain", stream=stream)


def _okey(rtype, obj):
    from .store import okey
    return okey(rtype.group, rtype.plural, obj["metadata"].get("namespace"), obj["metadata"]["name"])


def _builtin():
    from .resources import BUILTIN
    return BUILTIN


def new_uid():
    return str(uuid.uuid4())
