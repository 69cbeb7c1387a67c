"""Wire protocols of the AWS services the sandbox speaks.

One class per botocore protocol family: json (awsJson1.1), rest-json,
query, ec2 and rest-xml.  Each knows how to read the operation and
parameters out of a request (where the protocol fixes that), how to write a
success body, and how to write an error in that protocol's own shape
(`__type`, `x-amzn-ErrorType`, `<ErrorResponse>`, `<Response><Errors>`,
`<Error>`), including the codes AWS uses for auth, throttling, validation
and unknown operations.
"""
import datetime
import json
import urllib.parse
from xml.sax.saxutils import escape

from . import models


class AwsError(Exception):
    """An error to send back in the addressed service's shape."""

    def __init__(self, code, message="", status=400, sender=True, extra=None,
                 headers=None, message_key=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.sender = sender
        self.extra = extra or {}
        self.headers = headers or {}
        self.message_key = message_key


class Response:
    """What goes back on the wire: status, headers, body (or a stream callable)."""

    def __init__(self, status=200, body=b"", content_type=None, headers=None, stream=None):
        self.status = status
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.body = body
        self.headers = list((headers or {}).items()) if isinstance(headers, dict) else list(headers or [])
        if content_type:
            self.headers.append(("Content-Type", content_type))
        self.stream = stream
        self.drop = False


def iso(ts, millis=True):
    """ISO 8601 UTC for XML protocols."""
    if ts is None:
        return None
    d = datetime.datetime.fromtimestamp(float(ts), datetime.timezone.utc)
    if millis:
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (d.microsecond // 1000)
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(ts):
    d = datetime.datetime.fromtimestamp(float(ts), datetime.timezone.utc)
    return d.strftime("%a, %d %b %Y %H:%M:%S GMT")


def xml_el(name, value, item="member"):
    """Serialise nested dict/list data; list entries become <item>/<member>."""
    if value is None:
        return ""
    if isinstance(value, dict):
        inner = "".join(xml_el(k, v, item) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        inner = "".join(xml_el(item, v, item) for v in value)
    elif isinstance(value, bool):
        inner = "true" if value else "false"
    else:
        inner = escape(str(value))
    return "<%s>%s</%s>" % (name, inner, name)


AUTH_CODES = {
    # kind: (code, status)
    "json": {
        "missing": ("MissingAuthenticationTokenException", 403),
        "incomplete": ("IncompleteSignatureException", 403),
        "malformed_date": ("IncompleteSignatureException", 403),
        "unknown_key": ("UnrecognizedClientException", 403),
        "bad_token": ("UnrecognizedClientException", 403),
        "mismatch": ("InvalidSignatureException", 403),
        "skewed": ("InvalidSignatureException", 403),
        "expired": ("InvalidSignatureException", 403),
        "region": ("InvalidSignatureException", 403),
        "service": ("InvalidSignatureException", 403),
        "content_sha": ("InvalidSignatureException", 403),
        "denied": ("AccessDeniedException", 403),
    },
    "query": {
        "missing": ("MissingAuthenticationToken", 403),
        "incomplete": ("IncompleteSignature", 400),
        "malformed_date": ("IncompleteSignature", 400),
        "unknown_key": ("InvalidClientTokenId", 403),
        "bad_token": ("InvalidClientTokenId", 403),
        "mismatch": ("SignatureDoesNotMatch", 403),
        "skewed": ("SignatureDoesNotMatch", 403),
        "expired": ("SignatureDoesNotMatch", 403),
        "region": ("SignatureDoesNotMatch", 403),
        "service": ("SignatureDoesNotMatch", 403),
        "content_sha": ("SignatureDoesNotMatch", 403),
        "denied": ("AccessDenied", 403),
    },
    "ec2": {
        "missing": ("MissingAuthenticationToken", 401),
        "incomplete": ("IncompleteSignature", 400),
        "malformed_date": ("IncompleteSignature", 400),
        "unknown_key": ("AuthFailure", 401),
        "bad_token": ("AuthFailure", 401),
        "mismatch": ("SignatureDoesNotMatch", 403),
        "skewed": ("RequestExpired", 400),
        "expired": ("RequestExpired", 400),
        "region": ("AuthFailure", 401),
        "service": ("AuthFailure", 401),
        "content_sha": ("SignatureDoesNotMatch", 403),
        "denied": ("UnauthorizedOperation", 403),
    },
    "rest-xml": {
        "missing": ("AccessDenied", 403),
        "incomplete": ("AuthorizationHeaderMalformed", 400),
        "malformed_date": ("AccessDenied", 403),
        "unknown_key": ("InvalidAccessKeyId", 403),
        "bad_token": ("InvalidToken", 400),
        "mismatch": ("SignatureDoesNotMatch", 403),
        "skewed": ("RequestTimeTooSkewed", 403),
        "expired": ("AccessDenied", 403),
        "region": ("AuthorizationHeaderMalformed", 400),
        "service": ("AuthorizationHeaderMalformed", 400),
        "content_sha": ("XAmzContentSHA256Mismatch", 400),
        "denied": ("AccessDenied", 403),
    },
}
AUTH_CODES["rest-json"] = AUTH_CODES["json"]

AUTH_MESSAGES = {
    "missing": "Missing Authentication Token",
    "unknown_key": "The security token included in the request is invalid.",
    "bad_token": "The security token included in the request is invalid.",
}
EC2_MESSAGES = {
    "unknown_key": "AWS was not able to validate the provided access credentials",
    "bad_token": "AWS was not able to validate the provided access credentials",
    "skewed": "Request has expired.",
    "missing": "Request is missing Authentication Token",
}
S3_MESSAGES = {
    "unknown_key": "The AWS Access Key Id you provided does not exist in our records.",
    "bad_token": "The provided token is malformed or otherwise invalid.",
    "skewed": "The difference between the request time and the current time is too large.",
    "missing": "Access Denied",
}


class Protocol:
    family = "json"
    throttle = ("ThrottlingException", 400, "Rate exceeded")
    internal = ("InternalFailure", 500, "We encountered an internal error. Please try again.")

    def auth_error(self, kind, message, extra=None):
        code, status = AUTH_CODES[self.family].get(kind, ("AccessDenied", 403))
        return AwsError(code, message, status, extra=extra or {})

    def throttle_error(self):
        code, status, msg = self.throttle
        return AwsError(code, msg, status)

    def internal_error(self, status=None):
        code, st, msg = self.internal
        return AwsError(code, msg, status or st, sender=False)

    def validation_error(self, problems):
        return AwsError("ValidationException", models.summarize(problems), 400)

    def type_error(self, message):
        return AwsError("SerializationException", message, 400)

    def unknown_operation(self, op):
        return AwsError("UnknownOperationException", "", 400)


class JsonProtocol(Protocol):
    family = "json"

    def __init__(self, target_prefix, json_version="1.1"):
        self.target_prefix = target_prefix
        self.content_type = "application/x-amz-json-%s" % json_version

    def parse(self, req):
        target = req.header("x-amz-target") or ""
        prefix, _, op = target.partition(".")
        if prefix != self.target_prefix or not op:
            raise AwsError("UnknownOperationException", "", 400)
        if req.method != "POST":
            raise AwsError("UnknownOperationException", "", 400)
        body = req.body.strip()
        if not body:
            return op, {}
        try:
            params = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise AwsError("SerializationException", "Unexpected character found in JSON", 400)
        if not isinstance(params, dict):
            raise AwsError("SerializationException",
                           "Start of list found where not expected", 400)
        return op, params

    def ok(self, op, result, rid):
        body = json.dumps(result if result is not None else {}, separators=(",", ":"))
        return Response(200, body, self.content_type, {"x-amzn-RequestId": rid})

    def error(self, err, rid):
        body = {"__type": err.code}
        key = err.message_key or ("Message" if err.code in self.capital_message else "message")
        if err.message or key == "Message":
            body[key] = err.message
        body.update(err.extra)
        headers = {"x-amzn-RequestId": rid}
        headers.update(err.headers)
        return Response(err.status, json.dumps(body), self.content_type, headers)

    capital_message = {"ResourceNotFound", "ResourceInUse", "ResourceLimitExceeded",
                       "ConflictException", "FileSystemNotFound", "BadRequest",
                       "IncompatibleParameterError", "InternalServerError",
                       "ServiceLimitExceeded", "InvalidNetworkSettings",
                       "NoSuchResourceException", "IllegalArgumentException"}


class RestJsonProtocol(Protocol):
    family = "rest-json"
    throttle = ("ThrottlingException", 429, "Rate exceeded")
    internal = ("ServerException", 500, "An internal error occurred. Try again later.")

    def validation_error(self, problems):
        return AwsError("InvalidParameterException", models.summarize(problems), 400)

    def type_error(self, message):
        return AwsError("InvalidParameterException", message, 400)

    def unknown_operation(self, op):
        return AwsError("UnknownOperationException", "", 404)

    def ok(self, op, result, rid, status=200):
        body = json.dumps(result if result is not None else {}, separators=(",", ":"))
        return Response(status, body, "application/json", {"x-amzn-RequestId": rid})

    def error(self, err, rid):
        body = {"message": err.message}
        body.update(err.extra)
        headers = {"x-amzn-RequestId": rid, "x-amzn-ErrorType": err.code}
        headers.update(err.headers)
        return Response(err.status, json.dumps(body), "application/json", headers)


def form_params(req):
    """Query/EC2 parameters: form body for POST, query string for GET."""
    ctype = (req.header("content-type") or "").lower()
    flat = {}
    if req.method == "POST" and (not ctype or "x-www-form-urlencoded" in ctype):
        text = req.body.decode("utf-8", "replace")
        for k, v in urllib.parse.parse_qsl(text, keep_blank_values=True):
            flat.setdefault(k, v)
    for k, v in req.query_pairs:
        if not k.startswith("X-Amz-"):
            flat.setdefault(k, v)
    return flat


class QueryProtocol(Protocol):
    family = "query"
    throttle = ("Throttling", 400, "Rate exceeded")

    def __init__(self, version, xmlns, internal_code="InternalFailure"):
        self.version = version
        self.xmlns = xmlns
        self.internal = (internal_code, 500, "We encountered an internal error. Please try again.")

    def parse(self, req):
        flat = form_params(req)
        op = flat.pop("Action", None)
        flat.pop("Version", None)
        if not op:
            raise AwsError("MissingAction", "Missing Action", 400)
        return op, flat

    def validation_error(self, problems):
        return AwsError("ValidationError", models.summarize(problems), 400)

    def type_error(self, message):
        return AwsError("ValidationError", message, 400)

    def unknown_operation(self, op):
        return AwsError("InvalidAction", "Could not find operation %s for version %s" % (
            op, self.version), 400)

    def ok(self, op, result, rid, want_json=False):
        if want_json:
            body = {op + "Response": {op + "Result": result or {},
                                      "ResponseMetadata": {"RequestId": rid}}}
            return Response(200, json.dumps(body), "application/json", {"x-amzn-RequestId": rid})
        inner = ""
        if result is not None:
            inner = xml_el(op + "Result", result, "member")
        body = ('<%sResponse xmlns="%s">%s<ResponseMetadata><RequestId>%s</RequestId>'
                '</ResponseMetadata></%sResponse>' % (op, self.xmlns, inner, rid, op))
        return Response(200, body, "text/xml", {"x-amzn-RequestId": rid})

    def error(self, err, rid, want_json=False):
        kind = "Sender" if err.sender else "Receiver"
        if want_json:
            body = json.dumps({"Error": {"Code": err.code, "Message": err.message, "Type": kind},
                               "RequestId": rid})
            return Response(err.status, body, "application/json", {"x-amzn-RequestId": rid})
        body = ('<ErrorResponse xmlns="%s"><Error><Type>%s</Type><Code>%s</Code>'
                '<Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>' % (
                    self.xmlns, kind, escape(err.code), escape(err.message), rid))
        headers = {"x-amzn-RequestId": rid}
        headers.update(err.headers)
        return Response(err.status, body, "text/xml", headers)


class Ec2Protocol(Protocol):
    family = "ec2"
    throttle = ("RequestLimitExceeded", 503, "Request limit exceeded.")
    internal = ("InternalError", 500, "An internal error has occurred")

    def __init__(self, version, xmlns):
        self.version = version
        self.xmlns = xmlns

    parse = QueryProtocol.parse

    def validation_error(self, problems):
        first = problems[0]
        if "must not be null" in first:
            name = first.split("'")[1]
            return AwsError("MissingParameter", "The request must contain the parameter %s" % name, 400)
        return AwsError("InvalidParameterValue", "; ".join(problems), 400)

    def type_error(self, message):
        return AwsError("InvalidParameterValue", message, 400)

    def unknown_operation(self, op):
        return AwsError("InvalidAction", "The action %s is not valid for this web service." % op, 400)

    def ok(self, op, result, rid):
        inner = "".join(xml_el(k, v, "item") for k, v in (result or {}).items())
        body = '<%sResponse xmlns="%s"><requestId>%s</requestId>%s</%sResponse>' % (
            op, self.xmlns, rid, inner, op)
        return Response(200, body, "text/xml;charset=UTF-8")

    def error(self, err, rid):
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>%s</Code>'
                '<Message>%s</Message></Error></Errors><RequestID>%s</RequestID></Response>' % (
                    escape(err.code), escape(err.message), rid))
        return Response(err.status, body, "text/xml;charset=UTF-8", dict(err.headers))


class RestXmlProtocol(Protocol):
    family = "rest-xml"
    throttle = ("SlowDown", 503, "Please reduce your request rate.")
    internal = ("InternalError", 500, "We encountered an internal error. Please try again.")

    def validation_error(self, problems):
        return AwsError("InvalidArgument", models.summarize(problems), 400)

    def type_error(self, message):
        return AwsError("InvalidArgument", message, 400)

    def unknown_operation(self, op):
        return AwsError("NotImplemented", "A header you provided implies functionality "
                        "that is not implemented", 501)

    def error(self, err, rid, head=False):
        headers = {"x-amz-request-id": rid, "x-amz-id-2": "sandbox/" + rid}
        headers.update(err.headers)
        if head:
            return Response(err.status, b"", None, headers)
        extra = "".join(xml_el(k, v) for k, v in err.extra.items())
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>'
                '%s<RequestId>%s</RequestId><HostId>sandbox/%s</HostId></Error>' % (
                    escape(err.code), escape(err.message), extra, rid, rid))
        return Response(err.status, body, "application/xml", headers)
