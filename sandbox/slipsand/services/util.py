"""Small helpers shared by the AWS service implementations (ids, tags, paging, filters)."""
import base64
import fnmatch
import hashlib
import json
import secrets
import uuid

from ..protocols import AwsError


def hexid(prefix, n=17):
    return "%s-%s" % (prefix, secrets.token_hex((n + 1) // 2)[:n])


def new_uuid():
    return str(uuid.uuid4())


def stable_rand(seed_text, lo, hi):
    """Deterministic pseudo-random number in [lo, hi] from a string."""
    h = int(hashlib.sha256(seed_text.encode()).hexdigest()[:8], 16)
    return lo + (h / 0xFFFFFFFF) * (hi - lo)


def page(items, max_results, next_token, default=None, token_key="o"):
    """Slice a list with an opaque NextToken; returns (items, next_token or None)."""
    start = 0
    if next_token:
        try:
            start = int(json.loads(base64.b64decode(next_token))[token_key])
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            raise AwsError("InvalidNextToken", "The specified token is invalid.", 400)
    limit = max_results or default
    if not limit:
        return items[start:], None
    end = start + int(limit)
    token = None
    if end < len(items):
        token = base64.b64encode(json.dumps({token_key: end}).encode()).decode()
    return items[start:end], token


def wild(pattern, value):
    return fnmatch.fnmatchcase(str(value), str(pattern))


def strip_private(obj):
    """Drop keys starting with '_' (internal bookkeeping) recursively."""
    if isinstance(obj, dict):
        return {k: strip_private(v) for k, v in obj.items() if not k.startswith("_")}
    if isinstance(obj, list):
        return [strip_private(v) for v in obj]
    return obj


def as_list(v):
    if v is None:
        return []
    if isinstance(v, list):
        return v
    return [v]


def arn_name(arn):
    return arn.rsplit("/", 1)[-1] if arn else arn
