"""Just enough Kubernetes protobuf decoding for kubectl's typed create calls.

kubectl sends `application/vnd.kubernetes.protobuf` for imperative commands
(`create namespace`, `create configmap/secret/serviceaccount`, `create
deployment`, `run`, `auth whoami`, `auth can-i`).  The body is the `k8s\\0`
magic plus a runtime.Unknown envelope; the object inside is decoded with
field-number schemas for those kinds only.  Anything else is answered 415.
"""
import base64

MAGIC = b"k8s\x00"


def _varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """[(field number, wire type, value)] of one message."""
    out = []
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = _varint(buf, pos)
        elif wt == 2:
            n, pos = _varint(buf, pos)
            val = buf[pos:pos + n]
            pos += n
        elif wt == 1:
            val = buf[pos:pos + 8]
            pos += 8
        elif wt == 5:
            val = buf[pos:pos + 4]
            pos += 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        out.append((num, wt, val))
    return out


# schema: {field: (name, kind, sub)} kind in str, bytes, int, bool, msg, map, mapq (map to Quantity),
#         mapb (map<string,bytes>), rstr (repeated string), rmsg (repeated message)
QUANTITY = {1: ("string", "str", None)}
META = {1: ("name", "str", None), 2: ("generateName", "str", None), 3: ("namespace", "str", None),
        11: ("labels", "map", None), 12: ("annotations", "map", None)}
LABEL_SELECTOR = {1: ("matchLabels", "map", None)}
ENV = {1: ("name", "str", None), 2: ("value", "str", None)}
PORT = {1: ("name", "str", None), 2: ("hostPort", "int", None), 3: ("containerPort", "int", None),
        4: ("protocol", "str", None)}
RESOURCES = {1: ("limits", "mapq", None), 2: ("requests", "mapq", None)}
CONTAINER = {1: ("name", "str", None), 2: ("image", "str", None), 3: ("command", "rstr", None),
             4: ("args", "rstr", None), 5: ("workingDir", "str", None), 6: ("ports", "rmsg", PORT),
             7: ("env", "rmsg", ENV), 8: ("resources", "msg", RESOURCES), 14: ("imagePullPolicy", "str", None),
             16: ("stdin", "bool", None), 18: ("tty", "bool", None)}
POD_SPEC = {2: ("containers", "rmsg", CONTAINER), 3: ("restartPolicy", "str", None),
            7: ("nodeSelector", "map", None), 8: ("serviceAccountName", "str", None)}
POD_TEMPLATE = {1: ("metadata", "msg", META), 2: ("spec", "msg", POD_SPEC)}
DEPLOY_SPEC = {1: ("replicas", "int", None), 2: ("selector", "msg", LABEL_SELECTOR),
               3: ("template", "msg", POD_TEMPLATE)}
RESOURCE_ATTRS = {1: ("namespace", "str", None), 2: ("verb", "str", None), 3: ("group", "str", None),
                  4: ("version", "str", None), 5: ("resource", "str", None), 6: ("subresource", "str", None),
                  7: ("name", "str", None)}
SSAR_SPEC = {1: ("resourceAttributes", "msg", RESOURCE_ATTRS)}
SCHEMAS = {
    "Namespace": {1: ("metadata", "msg", META)},
    "ServiceAccount": {1: ("metadata", "msg", META)},
    "ConfigMap": {1: ("metadata", "msg", META), 2: ("data", "map", None), 3: ("binaryData", "mapb", None),
                  4: ("immutable", "bool", None)},
    "Secret": {1: ("metadata", "msg", META), 2: ("data", "mapb", None), 3: ("type", "str", None),
               4: ("stringData", "map", None), 5: ("immutable", "bool", None)},
    "Pod": {1: ("metadata", "msg", META), 2: ("spec", "msg", POD_SPEC)},
    "Deployment": {1: ("metadata", "msg", META), 2: ("spec", "msg", DEPLOY_SPEC)},
    "SelfSubjectReview": {1: ("metadata", "msg", META)},
    "SelfSubjectAccessReview": {1: ("metadata", "msg", META), 2: ("spec", "msg", SSAR_SPEC)},
}


def _decode(buf, schema):
    out = {}
    for num, wt, val in fields(buf):
        if num not in schema:
            continue
        name, kind, sub = schema[num]
        if kind == "str":
            out[name] = val.decode("utf-8")
        elif kind == "bytes":
            out[name] = base64.b64encode(val).decode()
        elif kind == "int":
            out[name] = val
        elif kind == "bool":
            out[name] = bool(val)
        elif kind == "msg":
            out[name] = _decode(val, sub)
        elif kind == "rstr":
            out.setdefault(name, []).append(val.decode("utf-8"))
        elif kind == "rmsg":
            out.setdefault(name, []).append(_decode(val, sub))
        elif kind in ("map", "mapb", "mapq"):
            k = v = None
            for n2, _, v2 in fields(val):
                if n2 == 1:
                    k = v2.decode("utf-8")
                elif n2 == 2:
                    v = v2
            if k is None:
                continue
            if kind == "map":
                out.setdefault(name, {})[k] = (v or b"").decode("utf-8")
            elif kind == "mapb":
                out.setdefault(name, {})[k] = base64.b64encode(v or b"").decode()
            else:
                out.setdefault(name, {})[k] = _decode(v or b"", QUANTITY).get("string", "0")
    return out


def decode(body, fallback_kind=None):
    """Protobuf request body -> JSON-style object; raises ValueError if unsupported."""
    if not body.startswith(MAGIC):
        raise ValueError("missing protobuf magic")
    env = {}
    for num, wt, val in fields(body[len(MAGIC):]):
        env[num] = val
    type_meta = {n: v.decode("utf-8") for n, _, v in fields(env.get(1, b""))}
    api_version, kind = type_meta.get(1, ""), type_meta.get(2, "") or fallback_kind or ""
    schema = SCHEMAS.get(kind)
    if schema is None:
        raise ValueError("protobuf decoding of %s is not supported" % kind)
    obj = _decode(env.get(2, b""), schema)
    if api_version:
        obj["apiVersion"] = api_version
    obj["kind"] = kind
    return obj
