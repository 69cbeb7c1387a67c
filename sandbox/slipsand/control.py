"""The /_sandbox control endpoint (no SigV4; needs the X-Sandbox-Token header).

GET  /_sandbox/health                 liveness, no token needed
GET  /_sandbox/faults                 current fault configuration
POST /_sandbox/faults                 merge a fault spec (see faults.py)
DELETE /_sandbox/faults               clear all faults
POST /_sandbox/fail-node              {"cluster", "node_id"} make a HyperPod node fail
GET  /_sandbox/requests               request log (?service=&operation=&mutating=1&since=N)
GET  /_sandbox/state                  dump of every resource, for leak checks
POST /_sandbox/reset                  forget every resource (credentials survive)
POST /_sandbox/kube-token             {"cluster"} -> static bearer token for kubectl
POST /_sandbox/users                  {"user"} -> an extra IAM user's key pair
POST /_sandbox/quotas                 {"<quota name or instance type>": value, ...}
POST /_sandbox/prices                 {"<instance type>": USD per hour or null, ...}
POST /_sandbox/advance                {"seconds": N} jump sandbox time forward
GET  /_sandbox/ec2/volumes            EBS volumes with their state and attachments
POST /_sandbox/ec2/volumes            {"availability_zone", "size"} -> a new available volume
GET  /_sandbox/sns/messages           what SNS Publish has published
GET  /_sandbox/eventbridge/events     what EventBridge PutEvents has put
POST /_sandbox/eventbridge/buses      {"name"} -> an extra event bus
"""
import hmac
import json
import re

from .protocols import Response


def _json(status, obj):
    return Response(status, json.dumps(obj, indent=1, sort_keys=True), "application/json")


def _body(req):
    if not req.body.strip():
        return {}
    try:
        data = json.loads(req.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise ValueError("body is not valid JSON")
    if not isinstance(data, dict):
        raise ValueError("body must be a JSON object")
    return data


def handle_control(world, req):
    path = req.path.rstrip("/")
    if path == "/_sandbox/health":
        return _json(200, {"ok": True, "pid": world.info()["pid"]})
    token = req.header("x-sandbox-token") or ""
    if not token:
        return _json(401, {"error": "missing X-Sandbox-Token header"})
    if not hmac.compare_digest(token, world.control_token):
        return _json(403, {"error": "wrong X-Sandbox-Token"})
    try:
        return _route(world, req, path)
    except ValueError as e:
        return _json(400, {"error": str(e)})
    except KeyError as e:
        return _json(404, {"error": "not found: %s" % e})


def _route(world, req, path):
    m = req.method
    if path == "/_sandbox/faults":
        if m == "GET":
            with world.lock:
                return _json(200, world.faults.config())
        if m == "DELETE":
            with world.lock:
                return _json(200, world.faults.clear())
        if m == "POST":
            spec = _body(req)
            with world.lock:
                fail = spec.pop("fail_nodes", None)
                quotas = spec.pop("quotas", None)
                cfg = world.faults.update(spec)
                if fail:
                    for f in fail:
                        world.services["sagemaker"].fail_node(f.get("cluster"), f.get("node_id"),
                                                              f.get("message"))
                if quotas:
                    world.services["servicequotas"].set_quotas(quotas)
            return _json(200, cfg)
    if path == "/_sandbox/fail-node" and m == "POST":
        spec = _body(req)
        with world.lock:
            world.advance_locked()
            node = world.services["sagemaker"].fail_node(spec.get("cluster"), spec.get("node_id"),
                                                         spec.get("message"), spec.get("when", "now"))
        return _json(200, node)
    if path == "/_sandbox/requests" and m == "GET":
        q = req.query
        mut = q.get("mutating")
        entries = world.reqlog.query(
            service=q.get("service"), operation=q.get("operation"),
            mutating=None if mut is None else mut in ("1", "true", "yes"),
            since=int(q.get("since", "0") or 0), error=q.get("error"))
        return _json(200, {"requests": entries})
    if path == "/_sandbox/state" and m == "GET":
        return _json(200, world.snapshot())
    if path == "/_sandbox/reset" and m == "POST":
        world.reset()
        return _json(200, {"reset": True})
    if path == "/_sandbox/kube-token" and m == "POST":
        spec = _body(req)
        with world.lock:
            world.advance_locked()
            out = world.kube.mint_token(spec.get("cluster"), spec.get("user") or "sandbox-admin",
                                        spec.get("groups"))
        return _json(200, out)
    if path == "/_sandbox/accounts":
        return _accounts(world, req, m)
    if path == "/_sandbox/regions":
        return _regions(world, req, m)
    if path == "/_sandbox/users" and m == "POST":
        spec = _body(req)
        user = spec.get("user") or "extra-user"
        account = spec.get("account_id")
        if account is not None and account not in world.accounts():
            return _json(404, {"error": "no account %s" % account})
        with world.lock:
            rec = world.identity.add_user(user, account)
        return _json(200, {"access_key_id": rec["akid"], "secret_access_key": rec["secret"],
                           "arn": rec["arn"]})
    if path == "/_sandbox/quotas":
        with world.lock:
            if m == "POST":
                world.services["servicequotas"].set_quotas(_body(req))
            return _json(200, world.services["servicequotas"].quota_table())
    if path == "/_sandbox/prices":
        with world.lock:
            if m == "POST":
                world.services["pricing"].set_prices(_body(req))
            return _json(200, world.services["pricing"].price_table())
    if path == "/_sandbox/sns/messages" and m == "GET":
        with world.lock:
            return _json(200, {"messages": world.services["sns"].messages()})
    if path == "/_sandbox/eventbridge/events" and m == "GET":
        with world.lock:
            return _json(200, {"events": world.services["events"].events()})
    if path == "/_sandbox/eventbridge/buses":
        with world.lock:
            if m == "POST":
                name = _body(req).get("name")
                if not isinstance(name, str) or not re.match(r"^[.\-_A-Za-z0-9]{1,256}$", name):
                    raise ValueError("name must be an event bus name")
                world.services["events"].add_bus(name)
            return _json(200, {"buses": world.services["events"].buses()})
    if path == "/_sandbox/ec2/volumes":
        with world.lock:
            world.advance_locked()
            ec2 = world.services["ec2"]
            if m == "POST":
                spec = _body(req)
                return _json(200, ec2.add_volume(spec.get("availability_zone"), spec.get("size", 100)))
            return _json(200, {"volumes": [ec2.volume_view(v) for v in ec2.volumes()]})
    if path == "/_sandbox/advance" and m == "POST":
        spec = _body(req)
        secs = spec.get("seconds")
        if not isinstance(secs, (int, float)) or secs < 0:
            raise ValueError("seconds must be a non-negative number")
        world.time_travel(secs)
        return _json(200, {"advanced": secs})
    return _json(404, {"error": "no such control call: %s %s" % (m, path)})


ACCOUNT_RE = re.compile(r"^[0-9]{12}$")
REGION_RE = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-[0-9]$")


def _accounts(world, req, m):
    """GET: the accounts served, each with its base user's keys; POST
    {"account_id"}: serve one more account (its own IAM and, in every
    region, its own resources)."""
    if m == "POST":
        account = str(_body(req).get("account_id") or "")
        if not ACCOUNT_RE.match(account):
            return _json(400, {"error": "account_id must be 12 digits"})
        keys = world.add_account(account)
        world.write_sandbox_json(force=True)
        return _json(200, {"account_id": account, "access_key_id": keys["access_key_id"],
                           "secret_access_key": keys["secret_access_key"]})
    if m != "GET":
        return _json(405, {"error": "GET or POST"})
    with world.lock:
        out = [{"account_id": a, "access_key_id": k["access_key_id"],
                "secret_access_key": k["secret_access_key"]}
               for a in world.accounts()
               for k in [world.identity.ensure_base(account=a)]]
    return _json(200, {"accounts": out})


def _regions(world, req, m):
    """GET: the regions served; POST {"region"}: serve one more."""
    if m == "POST":
        region = str(_body(req).get("region") or "")
        if not REGION_RE.match(region):
            return _json(400, {"error": "region must be a region name such as eu-west-1"})
        world.add_region(region)
        world.write_sandbox_json(force=True)
    elif m != "GET":
        return _json(405, {"error": "GET or POST"})
    with world.lock:
        return _json(200, {"regions": world.regions()})
