"""Patch types and server-side apply field ownership.

JSON merge patch (RFC 7386), JSON patch (RFC 6902), a strategic merge
patch that merges the well-known keyed lists (containers, env, ports, ...)
and understands the $patch / $setElementOrder directives kubectl sends, and
a simplified server-side apply: leaf field sets per manager, conflicts
(409) unless force, removal of fields a manager stops applying, and
managedFields written in the fieldsV1 format.
"""
import copy
import json

MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name",
              "env": "name", "volumes": "name", "volumeMounts": "mountPath", "ports": None,
              "imagePullSecrets": "name", "tolerations": None, "conditions": "type",
              "hostAliases": "ip", "topologySpreadConstraints": None, "replicaSpecs": "name",
              "workerGroupSpecs": "groupName"}
IGNORED_META = {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
                "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}


class PatchError(Exception):
    def __init__(self, message, code=422, reason="Invalid", details=None):
        super().__init__(message)
        self.details = details
        self.message = message
        self.code = code
        self.reason = reason


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def strategic_merge(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$setElementOrder/") or k in ("$retainKeys", "$patch"):
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            field = k.split("/", 1)[1]
            if isinstance(out.get(field), list):
                out[field] = [x for x in out[field] if x not in (v or [])]
            continue
        if v is None:
            out.pop(k, None)
        elif isinstance(v, list) and isinstance(out.get(k), list) and _keyed(k, v, out[k]):
            out[k] = _merge_list(k, out[k], v)
        elif isinstance(v, dict):
            out[k] = strategic_merge(out.get(k), v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _merge_key(field, items):
    key = MERGE_KEYS.get(field, "")
    if key is None:
        if field == "ports":
            for cand in ("containerPort", "port"):
                if all(isinstance(i, dict) and cand in i for i in items):
                    return cand
        return None
    return key or None


def _keyed(field, patch_items, cur_items):
    key = _merge_key(field, patch_items + cur_items)
    return bool(key) and all(isinstance(i, dict) and (key in i or i.get("$patch")) for i in patch_items)


def _merge_list(field, cur, patch):
    key = _merge_key(field, patch + cur)
    if any(isinstance(i, dict) and i.get("$patch") == "replace" for i in patch):
        return [{k: v for k, v in i.items() if k != "$patch"} for i in patch if i.get("$patch") != "replace"]
    out = [copy.deepcopy(x) for x in cur]
    for item in patch:
        if item.get("$patch") == "delete":
            out = [x for x in out if not (isinstance(x, dict) and x.get(key) == item.get(key))]
            continue
        for i, x in enumerate(out):
            if isinstance(x, dict) and x.get(key) == item.get(key):
                out[i] = strategic_merge(x, item)
                break
        else:
            out.append(copy.deepcopy(item))
    return out


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError("invalid JSON pointer %r" % path, 422)
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _walk(doc, parts):
    cur = doc
    for p in parts:
        if isinstance(cur, list):
            cur = cur[int(p)]
        else:
            cur = cur[p]
    return cur


REJECTED = "the server rejected our request due to an error in our request"


def _patch_failed(text):
    """apiserver/pkg/endpoints/handlers/patch.go: a JSON patch that does not
    apply is NewGenericServerResponse(422, ...) with the json-patch error as
    an UnexpectedServerResponse cause."""
    return PatchError(REJECTED, 422, "Invalid", {"causes": [{"reason": "UnexpectedServerResponse",
                                                              "message": text}]})


def json_patch(doc, ops):
    """RFC 6902 as gopkg.in/evanphx/json-patch.v4 applies it (its error texts)."""
    if not isinstance(ops, list):
        raise PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch", 400, "BadRequest")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict):
            raise PatchError("json: cannot unmarshal into Go value of type jsonpatch.Operation", 400, "BadRequest")
        kind = op.get("op")
        path = op.get("path", "")
        try:
            parts = _pointer(path)
        except PatchError:
            raise _patch_failed("%s operation does not apply: doc is missing path: %s: missing value" % (kind, path))
        if kind == "test":
            try:
                cur = _walk(doc, parts)
            except (KeyError, IndexError, ValueError, TypeError):
                raise _patch_failed("test operation does not apply: is missing path: %s: missing value" % path)
            if cur != op.get("value"):
                raise _patch_failed("testing value %s failed: test failed" % path)
            continue
        try:
            if kind in ("move", "copy"):
                src = _pointer(op.get("from", ""))
                value = copy.deepcopy(_walk(doc, src))
                if kind == "move":
                    _remove(doc, src)
                _add(doc, parts, value)
            elif kind == "add":
                _add(doc, parts, copy.deepcopy(op.get("value")))
            elif kind == "remove":
                _remove(doc, parts)
            elif kind == "replace":
                _remove(doc, parts)
                _add(doc, parts, copy.deepcopy(op.get("value")))
            else:
                raise _patch_failed("Unexpected kind: %s: unknown object type" % kind)
        except (KeyError, IndexError, ValueError, TypeError, PatchError) as e:
            if isinstance(e, PatchError) and e.details:
                raise
            if kind == "replace":
                raise _patch_failed("replace operation does not apply: doc is missing key: %s: missing value" % path)
            raise _patch_failed('%s operation does not apply: doc is missing path: "%s": missing value' % (kind, path))
    return doc


def _add(doc, parts, value):
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, list):
        if last == "-":
            parent.append(value)
        else:
            parent.insert(int(last), value)
    else:
        parent[last] = value


def _remove(doc, parts):
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, list):
        del parent[int(last)]
    else:
        del parent[last]


# --- server-side apply ---------------------------------------------------------

def leaves(obj, prefix=()):
    """Set of leaf paths (lists are atomic) excluding identity/system metadata and status."""
    out = {}
    if not isinstance(obj, dict):
        return out
    for k, v in obj.items():
        path = prefix + (k,)
        if not prefix and k in ("apiVersion", "kind", "status"):
            continue
        if prefix == ("metadata",) and k in IGNORED_META | {"name", "namespace"}:
            continue
        if isinstance(v, dict):
            if v:
                out.update(leaves(v, path))
            elif prefix:
                out[path] = v
        else:
            out[path] = v
    return out


def get_path(obj, path):
    cur = obj
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None, False
        cur = cur[p]
    return cur, True


def set_path(obj, path, value):
    cur = obj
    for p in path[:-1]:
        if not isinstance(cur.get(p), dict):
            cur[p] = {}
        cur = cur[p]
    cur[path[-1]] = copy.deepcopy(value)


def del_path(obj, path):
    stack = []
    cur = obj
    for p in path[:-1]:
        if not isinstance(cur, dict) or p not in cur:
            return
        stack.append((cur, p))
        cur = cur[p]
    if isinstance(cur, dict):
        cur.pop(path[-1], None)
    for parent, key in reversed(stack):
        if isinstance(parent[key], dict) and not parent[key]:
            del parent[key]
        else:
            break


def fields_v1(paths):
    tree = {}
    for path in sorted(paths):
        cur = tree
        for p in path:
            cur = cur.setdefault("f:" + p, {})
    return tree


def paths_from_fields_v1(tree, prefix=()):
    out = set()
    for k, v in (tree or {}).items():
        if not k.startswith("f:"):
            continue
        path = prefix + (k[2:],)
        if v:
            out |= paths_from_fields_v1(v, path)
        else:
            out.add(path)
    return out


def _owners(obj):
    res = {}
    for mf in (obj.get("metadata") or {}).get("managedFields") or []:
        key = (mf.get("manager"), mf.get("operation"), mf.get("subresource", ""))
        res[key] = {"paths": paths_from_fields_v1(mf.get("fieldsV1")), "entry": mf}
    return res


def _write_owners(obj, owners, api_version, now_text):
    mfs = []
    for (manager, op, sub), data in owners.items():
        if not data["paths"]:
            continue
        entry = {"manager": manager, "operation": op, "apiVersion": api_version,
                 "time": data.get("time") or data["entry"].get("time") or now_text,
                 "fieldsType": "FieldsV1", "fieldsV1": fields_v1(data["paths"])}
        if sub:
            entry["subresource"] = sub
        mfs.append(entry)
    obj.setdefault("metadata", {})["managedFields"] = mfs


def _overlap(a, b):
    return a[:len(b)] == b or b[:len(a)] == a


def apply(live, intent, manager, force, now_text, sub=""):
    """Server-side apply of `intent` onto `live` (None = create). Returns the new object.
    `sub` "status": an apply to the status subresource, which sets and owns only .status."""
    if sub == "status":
        intent_leaves = leaves(intent.get("status") or {}, ("status",))
    else:
        intent_leaves = leaves(intent)
    base = copy.deepcopy(live) if live is not None else {}
    owners = _owners(base) if live is not None else {}
    me = (manager, "Apply", sub)
    conflicts = []
    for path, value in intent_leaves.items():
        cur, present = get_path(base, path)
        for key, data in owners.items():
            if key == me:
                continue
            owned = [p for p in data["paths"] if _overlap(p, path)]
            if owned and present and cur != value:
                if force:
                    data["paths"] = {p for p in data["paths"] if not _overlap(p, path)}
                else:
                    conflicts.append((key[0], path))
    if conflicts:
        text = "; ".join('conflict with "%s": .%s' % (m, ".".join(p)) for m, p in conflicts[:10])
        raise PatchError("Apply failed with %d conflict%s: %s" % (
            len(conflicts), "" if len(conflicts) == 1 else "s", text), 409, "Conflict")
    previous = owners.get(me, {}).get("paths", set())
    others = set()
    for key, data in owners.items():
        if key != me:
            others |= data["paths"]
    for path in previous:
        if path not in intent_leaves and not any(_overlap(path, o) for o in others):
            del_path(base, path)
    for path, value in intent_leaves.items():
        set_path(base, path, value)
    for k in ("apiVersion", "kind"):
        if k in intent:
            base[k] = intent[k]
    md = base.setdefault("metadata", {})
    for k in ("name", "namespace"):
        if (intent.get("metadata") or {}).get(k):
            md[k] = intent["metadata"][k]
    owners[me] = {"paths": set(intent_leaves), "entry": {}, "time": now_text}
    _write_owners(base, owners, intent.get("apiVersion") or base.get("apiVersion"), now_text)
    return base


def record_update(old, new, manager, now_text, subresource=""):
    """Give `manager` (operation Update) ownership of the fields that changed."""
    if not manager:
        return new
    old_leaves = leaves(old or {})
    new_leaves = leaves(new)
    changed = {p for p, v in new_leaves.items() if old_leaves.get(p, object()) != v}
    owners = _owners(old or {})
    for key, data in owners.items():
        data["paths"] = {p for p in data["paths"] if not any(_overlap(p, c) for c in changed)
                         and p in new_leaves}
    me = (manager, "Update", subresource)
    mine = owners.get(me, {"paths": set(), "entry": {}})
    mine["paths"] = (mine["paths"] & set(new_leaves)) | changed
    mine["time"] = now_text
    owners[me] = mine
    _write_owners(new, owners, new.get("apiVersion"), now_text)
    return new


def decode_body(body, content_type):
    """Parse a request body as JSON (YAML when PyYAML happens to be importable)."""
    text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else body
    try:
        return json.loads(text)
    except ValueError:
        pass
    if "yaml" in (content_type or ""):
        try:
            import yaml  # optional; apply bodies from kubectl are JSON anyway
            return yaml.safe_load(text)
        except Exception:  # noqa: BLE001
            pass
    raise PatchError("error decoding request body: invalid JSON", 400, "BadRequest")
