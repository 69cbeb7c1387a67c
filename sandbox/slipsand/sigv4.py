"""AWS Signature Version 4: canonical requests, signing and verification.

Covers what the sandbox has to check on the wire: the Authorization header
form and the presigned query form, session tokens, the S3 path rules (no
normalisation, single encoding), the x-amz-content-sha256 variants and
aws-chunked streaming bodies.  Verification never needs the protocol: it
raises SigError with a neutral `kind`, and the caller turns that into the
error shape of the service that was addressed.
"""
import datetime
import hashlib
import hmac
import re
import urllib.parse

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
STREAMING_SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
STREAMING_SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
STREAMING_UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
MAX_SKEW = 15 * 60
PRESIGN_MAX_EXPIRES = 7 * 24 * 3600

_AUTH_RE = re.compile(r"^AWS4-HMAC-SHA256\s+(.*)$", re.S)


class SigError(Exception):
    """A signature problem; `kind` says which, the caller picks the wire code.

    kinds: missing, incomplete, malformed_date, unknown_key, bad_token,
    mismatch, skewed, expired, region, service, content_sha.
    """

    def __init__(self, kind, message, **extra):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.extra = extra


class AuthInfo:
    """What the request claims about itself, before any secret is known."""

    def __init__(self, **kw):
        self.access_key = kw.get("access_key")
        self.date = kw.get("date")          # YYYYMMDD from the scope
        self.region = kw.get("region")
        self.service = kw.get("service")
        self.signed_headers = kw.get("signed_headers") or []
        self.signature = kw.get("signature")
        self.amz_date = kw.get("amz_date")  # YYYYMMDDTHHMMSSZ
        self.presigned = kw.get("presigned", False)
        self.expires = kw.get("expires")
        self.token = kw.get("token")

    @property
    def scope(self):
        return "%s/%s/%s/aws4_request" % (self.date, self.region, self.service)


def uri_encode(text, safe="-_.~"):
    """RFC 3986 encoding as SigV4 wants it (upper-case hex, UTF-8)."""
    return urllib.parse.quote(text, safe=safe)


def remove_dot_segments(path):
    """Path normalisation used for every service but S3 (botocore's rules)."""
    if not path:
        return "/"
    out = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    lead = "/" if path.startswith("/") else ""
    trail = "/" if path.endswith("/") and out else ""
    return (lead + "/".join(out) + trail) or "/"


def canonical_uri(raw_path, s3=False, normalize=None, double_encode=None):
    """Canonical URI from the path exactly as it came on the wire."""
    if normalize is None:
        normalize = not s3
    if double_encode is None:
        double_encode = not s3
    path = raw_path or "/"
    if normalize:
        path = remove_dot_segments(path)
    if double_encode:
        return uri_encode(path, safe="/~")
    return uri_encode(urllib.parse.unquote(path), safe="/~")


def parse_query(raw_query):
    """Split a raw query string into decoded (key, value) pairs, in order."""
    pairs = []
    for part in (raw_query or "").split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        pairs.append((urllib.parse.unquote(key), urllib.parse.unquote(value)))
    return pairs


def canonical_query(pairs, exclude=("X-Amz-Signature",)):
    enc = sorted((uri_encode(k), uri_encode(v)) for k, v in pairs
                 if k not in exclude)
    return "&".join("%s=%s" % kv for kv in enc)


def canonical_headers(headers, signed):
    """headers: list of (name, value) in wire order; signed: lower-case names."""
    values = {}
    for name, value in headers:
        values.setdefault(name.lower(), []).append(" ".join(str(value).split()))
    lines = "".join("%s:%s\n" % (h, ",".join(values.get(h, []))) for h in signed)
    return lines


def canonical_request(method, raw_path, pairs, headers, signed, payload_hash,
                      s3=False, normalize=None, double_encode=None,
                      presigned=False):
    return "\n".join([
        method.upper(),
        canonical_uri(raw_path, s3, normalize, double_encode),
        canonical_query(pairs, ("X-Amz-Signature",) if presigned else ()),
        canonical_headers(headers, signed),
        ";".join(signed),
        payload_hash,
    ])


def string_to_sign(amz_date, scope, creq):
    return "\n".join([ALGORITHM, amz_date, scope,
                      hashlib.sha256(creq.encode("utf-8")).hexdigest()])


def signing_key(secret, date, region, service):
    key = ("AWS4" + secret).encode("utf-8")
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode("utf-8"), hashlib.sha256).digest()
    return key


def signature(secret, date, region, service, sts):
    return hmac.new(signing_key(secret, date, region, service),
                    sts.encode("utf-8"), hashlib.sha256).hexdigest()


def parse_amz_date(text):
    try:
        return datetime.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return None


def amz_date(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime(
        "%Y%m%dT%H%M%SZ")


def _header(headers, name):
    name = name.lower()
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def parse_auth(headers, pairs):
    """Find header or query auth.  Returns AuthInfo, or None when unsigned.

    Raises SigError('incomplete') for a malformed Authorization header.
    """
    authz = _header(headers, "authorization")
    qd = {}
    for k, v in pairs:
        qd.setdefault(k, v)
    if authz is not None:
        m = _AUTH_RE.match(authz.strip())
        if not m:
            if authz.startswith("AWS "):
                raise SigError("incomplete", "AWS authentication requires a valid Date or x-amz-date header")
            raise SigError("incomplete", "Authorization header requires 'Credential' parameter. "
                           "Authorization header requires 'Signature' parameter. "
                           "Authorization header requires 'SignedHeaders' parameter. "
                           "Authorization=" + authz[:60])
        parts = {}
        for item in m.group(1).split(","):
            k, _, v = item.strip().partition("=")
            parts[k.strip()] = v.strip()
        missing = [k for k in ("Credential", "SignedHeaders", "Signature") if not parts.get(k)]
        if missing:
            raise SigError("incomplete", " ".join(
                "Authorization header requires '%s' parameter." % k for k in missing))
        cred = parts["Credential"].split("/")
        if len(cred) != 5 or cred[4] != "aws4_request":
            raise SigError("incomplete", "Credential should be scoped to a valid region. ")
        date_hdr = _header(headers, "x-amz-date") or _header(headers, "date")
        amz = date_hdr
        if date_hdr and not re.match(r"^\d{8}T\d{6}Z$", date_hdr):
            try:
                import email.utils
                amz = amz_date(email.utils.parsedate_to_datetime(date_hdr).timestamp())
            except (TypeError, ValueError):
                amz = None
        if not amz:
            raise SigError("incomplete", "Authorization header requires existence of either a "
                           "'X-Amz-Date' or a 'Date' header. Authorization=" + authz[:40])
        return AuthInfo(access_key=cred[0], date=cred[1], region=cred[2], service=cred[3],
                        signed_headers=parts["SignedHeaders"].split(";"),
                        signature=parts["Signature"], amz_date=amz,
                        token=_header(headers, "x-amz-security-token"))
    if "X-Amz-Algorithm" in qd or "X-Amz-Signature" in qd or "X-Amz-Credential" in qd:
        missing = [k for k in ("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date",
                               "X-Amz-SignedHeaders", "X-Amz-Signature") if not qd.get(k)]
        if missing:
            raise SigError("incomplete", "AWS query-string parameters must include %s. "
                           "Re-examine the query-string parameters." % ", ".join(
                               "'%s'" % k for k in missing))
        if qd["X-Amz-Algorithm"] != ALGORITHM:
            raise SigError("incomplete", "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
        cred = qd["X-Amz-Credential"].split("/")
        if len(cred) != 5 or cred[4] != "aws4_request":
            raise SigError("incomplete", "Credential should be scoped to a valid region. ")
        expires = qd.get("X-Amz-Expires")
        try:
            expires = int(expires) if expires is not None else None
        except ValueError:
            raise SigError("incomplete", "X-Amz-Expires should be a number")
        return AuthInfo(access_key=cred[0], date=cred[1], region=cred[2], service=cred[3],
                        signed_headers=qd["X-Amz-SignedHeaders"].split(";"),
                        signature=qd["X-Amz-Signature"], amz_date=qd["X-Amz-Date"],
                        presigned=True, expires=expires,
                        token=qd.get("X-Amz-Security-Token"))
    return None


def payload_hash_for(headers, body, s3):
    """The payload hash the client must have signed; checks x-amz-content-sha256."""
    declared = _header(headers, "x-amz-content-sha256")
    if declared is None:
        if s3:
            raise SigError("content_sha", "Missing required header for this request: x-amz-content-sha256")
        return hashlib.sha256(body).hexdigest()
    declared = declared.strip()
    if declared in (UNSIGNED_PAYLOAD, STREAMING_SIGNED, STREAMING_SIGNED_TRAILER,
                    STREAMING_UNSIGNED_TRAILER):
        return declared
    if not re.match(r"^[0-9a-f]{64}$", declared):
        raise SigError("content_sha", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, "
                       "STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.")
    actual = hashlib.sha256(body).hexdigest()
    if actual != declared:
        raise SigError("content_sha", "The provided 'x-amz-content-sha256' header does not "
                       "match what was computed.", client=declared, server=actual)
    return declared


def verify(info, method, raw_path, pairs, headers, body, secret, now,
           s3=False, payload_hash=None):
    """Check the signature in `info`.  Returns the canonical request on success."""
    if info.date is None or not info.amz_date or not info.amz_date.startswith(info.date):
        raise SigError("mismatch", "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'." % (
            info.date, (info.amz_date or "")[:8], info.amz_date))
    when = parse_amz_date(info.amz_date)
    if when is None:
        raise SigError("malformed_date", "Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601" % info.amz_date)
    if "host" not in info.signed_headers:
        raise SigError("mismatch", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
    if info.presigned:
        if info.expires is not None and (info.expires < 1 or info.expires > PRESIGN_MAX_EXPIRES):
            raise SigError("incomplete", "X-Amz-Expires must be less than a week (in seconds) that is 604800")
        if now < when - MAX_SKEW:
            raise SigError("skewed", _not_yet(info.amz_date, now), when=when)
        limit = when + (info.expires if info.expires is not None else MAX_SKEW)
        if now > limit:
            raise SigError("expired", "Request has expired", when=when, expires=limit)
        if payload_hash is None:
            payload_hash = (UNSIGNED_PAYLOAD if s3 else hashlib.sha256(body or b"").hexdigest())
    else:
        if abs(now - when) > MAX_SKEW:
            msg = (_expired(info.amz_date, now) if now > when else _not_yet(info.amz_date, now))
            raise SigError("skewed", msg, when=when)
        if payload_hash is None:
            payload_hash = payload_hash_for(headers, body, s3)
    creq = canonical_request(method, raw_path, pairs, headers, info.signed_headers,
                             payload_hash, s3=s3, presigned=info.presigned)
    sts = string_to_sign(info.amz_date, info.scope, creq)
    want = signature(secret, info.date, info.region, info.service, sts)
    if not hmac.compare_digest(want, (info.signature or "").lower()):
        raise SigError("mismatch", "The request signature we calculated does not match the "
                       "signature you provided. Check your AWS Secret Access Key and signing "
                       "method. Consult the service documentation for details.",
                       canonical_request=creq, string_to_sign=sts)
    return creq


def _expired(amz, now):
    return "Signature expired: %s is now earlier than %s (%s - 15 min.)" % (
        amz, amz_date(now - MAX_SKEW), amz_date(now))


def _not_yet(amz, now):
    return "Signature not yet current: %s is still later than %s (%s + 15 min.)" % (
        amz, amz_date(now + MAX_SKEW), amz_date(now))


def sign_headers(method, url, headers, body, access_key, secret, region, service,
                 now, token=None, s3=False, unsigned_payload=False):
    """Client-side signer (used by tests and the EKS token helper).

    headers: dict; returns a new dict including Authorization.
    """
    parts = urllib.parse.urlsplit(url)
    out = dict(headers)
    out.setdefault("Host", parts.netloc)
    amz = amz_date(now)
    out["X-Amz-Date"] = amz
    if token:
        out["X-Amz-Security-Token"] = token
    if s3:
        out["X-Amz-Content-SHA256"] = (UNSIGNED_PAYLOAD if unsigned_payload
                                       else hashlib.sha256(body).hexdigest())
    phash = out.get("X-Amz-Content-SHA256") or hashlib.sha256(body).hexdigest()
    signed = sorted(k.lower() for k in out if k.lower() not in ("user-agent", "content-length",
                                                                "authorization", "expect"))
    creq = canonical_request(method, parts.path or "/", parse_query(parts.query),
                             list(out.items()), signed, phash, s3=s3)
    date = amz[:8]
    scope = "%s/%s/%s/aws4_request" % (date, region, service)
    sig = signature(secret, date, region, service, string_to_sign(amz, scope, creq))
    out["Authorization"] = "%s Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        ALGORITHM, access_key, scope, ";".join(signed), sig)
    return out


def presign_url(method, url, extra_headers, access_key, secret, region, service,
                now, expires=60, token=None, s3=False):
    """Client-side presigner: returns the URL with X-Amz-* query auth."""
    parts = urllib.parse.urlsplit(url)
    amz = amz_date(now)
    date = amz[:8]
    scope = "%s/%s/%s/aws4_request" % (date, region, service)
    headers = [("host", parts.netloc)] + [(k.lower(), v) for k, v in extra_headers.items()]
    signed = sorted(h for h, _ in headers)
    pairs = parse_query(parts.query) + [
        ("X-Amz-Algorithm", ALGORITHM), ("X-Amz-Credential", "%s/%s" % (access_key, scope)),
        ("X-Amz-Date", amz), ("X-Amz-Expires", str(expires)),
        ("X-Amz-SignedHeaders", ";".join(signed))]
    if token:
        pairs.append(("X-Amz-Security-Token", token))
    creq = canonical_request(method, parts.path or "/", pairs, headers, signed,
                             UNSIGNED_PAYLOAD if s3 else EMPTY_SHA256, s3=s3, presigned=True)
    sig = signature(secret, date, region, service, string_to_sign(amz, scope, creq))
    pairs.append(("X-Amz-Signature", sig))
    query = "&".join("%s=%s" % (uri_encode(k), uri_encode(v)) for k, v in pairs)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def decode_aws_chunked(body, info=None, secret=None, seed_signature=None):
    """Decode an aws-chunked body; verifies chunk signatures when `secret` is given.

    Returns (payload bytes, trailers dict).  Raises SigError on a bad chunk.
    """
    out = bytearray()
    trailers = {}
    pos = 0
    prev = seed_signature
    key = None
    if secret is not None and info is not None:
        key = signing_key(secret, info.date, info.region, info.service)
    while True:
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            raise SigError("incomplete", "Incomplete aws-chunked body")
        header = body[pos:eol].decode("latin-1")
        size_txt, _, ext = header.partition(";")
        try:
            size = int(size_txt.strip(), 16)
        except ValueError:
            raise SigError("incomplete", "Invalid chunk size in aws-chunked body")
        data = body[eol + 2:eol + 2 + size]
        if len(data) != size:
            raise SigError("incomplete", "Incomplete aws-chunked body")
        if key is not None and ext.startswith("chunk-signature="):
            sig = ext.split("=", 1)[1].strip()
            sts = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", info.amz_date, info.scope, prev,
                             EMPTY_SHA256, hashlib.sha256(data).hexdigest()])
            want = hmac.new(key, sts.encode(), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(want, sig):
                raise SigError("mismatch", "The request signature we calculated does not match "
                               "the signature you provided.")
            prev = sig
        out += data
        pos = eol + 2 + size
        if size == 0:
            rest = body[pos:].decode("latin-1")
            for line in rest.split("\r\n"):
                if ":" in line:
                    k, _, v = line.partition(":")
                    trailers[k.strip().lower()] = v.strip()
            break
        if body[pos:pos + 2] == b"\r\n":
            pos += 2
    return bytes(out), trailers
