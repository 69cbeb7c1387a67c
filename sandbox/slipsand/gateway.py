"""The AWS front door: pick the service, authenticate, inject faults, validate, dispatch.

One listener serves every service.  The service comes from the SigV4
credential scope (cross-checked with X-Amz-Target), or for unsigned calls
from the target, form Action, path or Host.  Errors of every stage are
answered in the addressed service's protocol shape, and every request is
written to the request log.  A request is served in the partition of the
account owning its access key and of its credential scope's region
(world.scope()): what it sees, makes and lists is that account's, there.
"""
import email.utils
import os
import signal
import time
import traceback
import sys
import uuid

from . import models, sigv4
from .protocols import AwsError, Response
from .server import BaseHandler, BadRequest

TARGET_PREFIX = {"SageMaker": "sagemaker", "AWSSimbaAPIService_v20180301": "fsx",
                 "ServiceQuotasV20190624": "servicequotas",
                 "AWSPriceListService": "pricing", "AWSEvents": "events"}
STS_ACTIONS = {"GetCallerIdentity", "AssumeRole", "AssumeRoleWithWebIdentity",
               "AssumeRoleWithSAML", "GetSessionToken", "DecodeAuthorizationMessage",
               "GetAccessKeyInfo", "GetFederationToken"}
UNSIGNED_OK = {("sts", "AssumeRoleWithWebIdentity"), ("sts", "AssumeRoleWithSAML")}


class Context:
    """Per-request facts handed to service operations."""

    def __init__(self, world, req, rid):
        self.world = world
        self.req = req
        self.request_id = rid
        self.principal = None
        self.auth = None
        self.log_params = None
        self.operation = None

    @property
    def account(self):
        return self.world.account

    @property
    def region(self):
        return self.world.region


def _host_service(host):
    h = (host or "").split(":")[0].lower()
    for prefix, svc in (("sts.", "sts"), ("iam.", "iam"), ("ec2.", "ec2"), ("eks.", "eks"),
                        ("api.sagemaker.", "sagemaker"), ("fsx.", "fsx"),
                        ("servicequotas.", "servicequotas"), ("api.pricing.", "pricing"),
                        ("sns.", "sns"), ("events.", "events"), ("s3.", "s3")):
        if h.startswith(prefix):
            return svc
    if ".s3." in h or ".s3-" in h or h.endswith(".localhost"):
        return "s3"
    return None


def pick_service(world, req, info):
    target = req.header("x-amz-target")
    tsvc = TARGET_PREFIX.get((target or "").split(".")[0]) if target else None
    if info is not None:
        return info.service, tsvc
    if tsvc:
        return tsvc, tsvc
    hsvc = _host_service(req.host)
    if hsvc:
        return hsvc, None
    if req.raw_path.startswith(("/clusters", "/addons", "/cluster-versions")):
        return "eks", None
    try:
        from .protocols import form_params
        action = form_params(req).get("Action")
    except Exception:  # noqa: BLE001
        action = None
    if action:
        return ("sts" if action in STS_ACTIONS else "ec2"), None
    return "s3", None


def handle_aws(world, req):
    """Run one AWS request in its partition; returns a protocols.Response."""
    account = region = None
    try:
        info = sigv4.parse_auth(req.headers, req.query_pairs)
    except sigv4.SigError:
        info = None
    if info is not None:
        cred = world.identity.lookup(info.access_key)
        if cred is not None:
            account = world.identity.account_of(cred)
        if info.region in world.regions():
            region = info.region
    with world.scope(account, region):
        return _handle_aws(world, req)


def _handle_aws(world, req):
    rid = str(uuid.uuid4())
    started = time.time()
    info = None
    sig_error = None
    try:
        info = sigv4.parse_auth(req.headers, req.query_pairs)
    except sigv4.SigError as e:
        sig_error = e
    svc_name, tsvc = pick_service(world, req, info)
    svc = world.services.get(svc_name)
    if svc is None:
        svc = world.services["sts"]
        err = svc.protocol.auth_error("service", "Credential should be scoped to correct service. ")
        resp = svc.render_error(err, rid, req)
        world.reqlog.add(svc_name or "unknown", "Unknown", {}, resp.status, err.code, False,
                         request_id=rid)
        return resp
    ctx = Context(world, req, rid)
    op = None
    params = None
    fault = None
    try:
        if sig_error is not None:
            raise svc.protocol.auth_error(sig_error.kind, sig_error.message)
        if tsvc and info is not None and tsvc != info.service:
            svc = world.services[tsvc]
            raise svc.protocol.auth_error("service", "Credential should be scoped to correct "
                                          "service: '%s'. " % svc.signing_name)
        if info is None:
            op, params = svc.parse(ctx, req)
            ctx.operation = op
            _authenticate(world, svc, ctx, req, info, op)
        else:
            _authenticate(world, svc, ctx, req, info, None)
            op, params = svc.parse(ctx, req)
            ctx.operation = op
        fault, latency = world.faults.decide(svc.name, op)
        if latency:
            time.sleep(min(latency, 30000) / 1000.0)
        if fault == "drop":
            resp = Response(0)
            resp.drop = True
            world.reqlog.add(svc.name, op, params, 0, "ConnectionDropped", None,
                             method=req.method, request_id=rid, fault=fault,
                             principal=_who(ctx), identity=_identity(ctx))
            return resp
        if fault == "throttle":
            raise svc.protocol.throttle_error()
        if fault == "error_5xx":
            raise svc.protocol.internal_error()
        svc.validate(ctx, op, params)
    except Exception as e:  # noqa: BLE001 - a bug must still answer like AWS
        return _failed(world, svc, ctx, req, op, params, rid, fault, e)
    # The request's changes and its log entry commit together, before the
    # answer leaves: a sandbox killed at any point either kept the request
    # and logged it, or did neither.
    with world.lock, world.store.transaction():
        try:
            world.advance_services_locked()
            resp = svc.dispatch(ctx, op, params)
        except Exception as e:  # noqa: BLE001
            return _failed(world, svc, ctx, req, op, params, rid, fault, e)
        if svc.protocol.family == "rest-xml" and not any(
                k.lower() == "x-amz-request-id" for k, _ in resp.headers):
            # S3 names every answer, a success too
            resp.headers += [("x-amz-request-id", rid), ("x-amz-id-2", "sandbox/" + rid)]
        world.reqlog.add(svc.name, op, ctx.log_params or params, resp.status, None, None,
                         method=req.method, request_id=rid, principal=_who(ctx), identity=_identity(ctx),
                         fault=fault if fault in ("crash_after", "error_after") else None)
        if fault == "crash":
            os.kill(os.getpid(), signal.SIGKILL)
    if fault == "crash_after":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "error_after":
        return svc.render_error(svc.protocol.internal_error(), rid, req)
    _ = started
    return resp


def _failed(world, svc, ctx, req, op, params, rid, fault, e):
    """The answer to a request that raised e, logged."""
    if isinstance(e, AwsError):
        resp = svc.render_error(e, rid, req)
        world.reqlog.add(svc.name, op or "Unknown", ctx.log_params or params, resp.status,
                         e.code, None, method=req.method, request_id=rid,
                         principal=_who(ctx), identity=_identity(ctx), fault=fault)
        return resp
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    err = svc.protocol.internal_error()
    resp = svc.render_error(err, rid, req)
    world.reqlog.add(svc.name, op or "Unknown", params, resp.status, err.code, None,
                     method=req.method, request_id=rid)
    return resp


def _who(ctx):
    return ctx.principal.get("arn") if ctx.principal else None


def _identity(ctx):
    """For a role session, the caller as CloudTrail's userIdentity names
    it: the session ARN, the role that issued it and, when the session was
    given one, its source identity.  None for other callers."""
    pr = ctx.principal
    if not pr or pr.get("kind") != "assumed-role":
        return None
    sc = {"sessionIssuer": {"type": "Role", "arn": pr.get("principal_arn")}}
    if pr.get("source_identity"):
        sc["sourceIdentity"] = pr["source_identity"]
    return {"type": "AssumedRole", "arn": pr.get("arn"), "sessionContext": sc}


def _authenticate(world, svc, ctx, req, info, op):
    proto = svc.protocol
    if info is None:
        if (svc.name, op) in UNSIGNED_OK:
            return
        raise proto.auth_error("missing", _missing_msg(svc))
    cred = world.identity.lookup(info.access_key)
    if cred is None:
        raise proto.auth_error("unknown_key", _unknown_msg(svc))
    if (cred.get("token") or None) != (info.token or None):
        raise proto.auth_error("bad_token", _unknown_msg(svc))
    if cred.get("expires") and cred["expires"] < time.time():
        code = {"json": "ExpiredTokenException", "rest-json": "ExpiredTokenException",
                "rest-xml": "ExpiredToken"}.get(proto.family, "ExpiredToken")
        raise AwsError(code, "The security token included in the request is expired",
                       400 if proto.family == "rest-xml" else 403)
    allowed = svc.allowed_regions()
    if info.region not in allowed:
        if proto.family == "rest-xml":
            raise AwsError("AuthorizationHeaderMalformed",
                           "The authorization header is malformed; the region '%s' is wrong; "
                           "expecting '%s'" % (info.region, world.default_region), 400,
                           extra={"Region": world.default_region},
                           headers={"x-amz-bucket-region": world.default_region})
        raise proto.auth_error("region", "Credential should be scoped to a valid region. ")
    if info.service != svc.signing_name:
        raise proto.auth_error("service", "Credential should be scoped to correct service: "
                               "'%s'. " % svc.signing_name)
    try:
        payload_hash = None
        if svc.name == "s3" and not info.presigned:
            payload_hash = sigv4.payload_hash_for(req.headers, req.body, True)
        sigv4.verify(info, req.method, req.raw_path, req.query_pairs, req.headers, req.body,
                     cred["secret"], time.time(), s3=(svc.name == "s3"),
                     payload_hash=payload_hash)
        if payload_hash and payload_hash.startswith("STREAMING-"):
            secret = cred["secret"] if payload_hash.startswith("STREAMING-AWS4") else None
            req.body, _ = sigv4.decode_aws_chunked(req.body, info, secret, info.signature)
    except sigv4.SigError as e:
        extra = {}
        if proto.family == "rest-xml":
            if e.kind == "mismatch" and "canonical_request" in e.extra:
                extra = {"AWSAccessKeyId": info.access_key,
                         "StringToSign": e.extra.get("string_to_sign", ""),
                         "SignatureProvided": info.signature,
                         "CanonicalRequest": e.extra.get("canonical_request", "")}
            if e.kind == "skewed":
                extra = {"RequestTime": info.amz_date,
                         "ServerTime": sigv4.amz_date(time.time()), "MaxAllowedSkewMilliseconds": 900000}
            if e.kind == "content_sha":
                extra = {k: v for k, v in (("ClientComputedContentSHA256", e.extra.get("client")),
                                           ("S3ComputedContentSHA256", e.extra.get("server"))) if v}
        msg = e.message
        if e.kind in ("skewed",) and proto.family == "ec2":
            msg = "Request has expired."
        if e.kind == "skewed" and proto.family == "rest-xml":
            msg = "The difference between the request time and the current time is too large."
        raise proto.auth_error(e.kind, msg, extra)
    ctx.principal = cred
    ctx.auth = info


def _missing_msg(svc):
    if svc.protocol.family == "rest-xml":
        return "Access Denied"
    if svc.protocol.family == "query":
        return "Request is missing Authentication Token"
    return "Missing Authentication Token"


def _unknown_msg(svc):
    fam = svc.protocol.family
    if fam == "ec2":
        return "AWS was not able to validate the provided access credentials"
    if fam == "rest-xml":
        return "The AWS Access Key Id you provided does not exist in our records."
    return "The security token included in the request is invalid."


class AwsService:
    """Base for one AWS service: parse, validate with the model, dispatch to op_<Name>."""

    name = "service"
    signing_name = None
    protocol = None
    model_name = None
    global_region = None
    lower_first = True

    def __init__(self, world):
        self.world = world
        if self.signing_name is None:
            self.signing_name = self.name

    @property
    def store(self):
        return self.world.store

    @property
    def clock(self):
        return self.world.clock

    @property
    def model(self):
        return self.world.models.get(self.model_name or self.name)

    def allowed_regions(self):
        regions = set(self.world.regions())
        if self.global_region:
            regions.add(self.global_region)
        return regions

    def parse(self, ctx, req):
        return self.protocol.parse(req)

    def validate(self, ctx, op, params):
        if not hasattr(self, "op_" + op):
            raise self.protocol.unknown_operation(op)
        model = self.model
        if model is None or not model.has(op):
            return
        try:
            problems = model.validate(op, self.model_params(op, params), self.lower_first)
        except models.TypeProblem as e:
            raise self.protocol.type_error(str(e))
        if problems:
            raise self.protocol.validation_error(problems)

    def model_params(self, op, params):
        return params

    def dispatch(self, ctx, op, params):
        result = getattr(self, "op_" + op)(ctx, params)
        if isinstance(result, Response):
            return result
        return self.protocol.ok(op, result, ctx.request_id)

    def render_error(self, err, rid, req):
        return self.protocol.error(err, rid)

    # state machine hooks
    def advance(self, now):
        pass

    def snapshot(self):
        return {}

    def reset(self):
        pass


class AwsHandler(BaseHandler):
    """HTTP handler of the AWS listener (also serves /_sandbox control calls)."""

    server_name = "AmazonAWS-sandbox"

    def date_time_string(self, timestamp=None):
        """AWS's clock is the sandbox's: the Date header follows time travel."""
        if timestamp is None:
            timestamp = self.server.world.clock.now()
        return email.utils.formatdate(timestamp, usegmt=True)

    def _any(self):
        head = self.command == "HEAD"
        try:
            req = self.read_request()
        except BadRequest as e:
            self.send_response_obj(Response(e.status, e.message, "text/plain"))
            self.close_connection = True
            return
        world = self.server.world
        try:
            if req.raw_path.startswith("/_sandbox"):
                from .control import handle_control
                resp = handle_control(world, req)
            else:
                resp = handle_aws(world, req)
        except Exception:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            resp = Response(500, '{"__type":"InternalFailure"}', "application/json")
        self.send_response_obj(resp, head=head)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _any
