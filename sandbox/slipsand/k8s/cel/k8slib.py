"""The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) on top of stdlib:
regex (find, findAll), URLs, quantities, IP addresses and CIDRs, and named formats.

The lists library (isSorted, sum, min, max, indexOf, lastIndexOf) is in stdlib
beside the string functions it shares names with.
"""
import ipaddress
import re
import urllib.parse
import uuid
from fractions import Fraction

from . import stdlib
from .stdlib import F, RECEIVER, fn, regex
from .values import INT_MAX, INT_MIN, CelError, NoSuchOverload, Optional, NONE


# --- regex ------------------------------------------------------------------------------
@fn("find", member=True, glob=False)
def find(ev, a):
    if len(a) != 2 or not all(isinstance(x, str) for x in a):
        raise NoSuchOverload("find", *a)
    ev.charge(len(a[0]) // 10 + 1)
    m = regex(a[1]).search(a[0])
    return m.group(0) if m else ""


@fn("findAll", member=True, glob=False)
def find_all(ev, a):
    if len(a) not in (2, 3) or not isinstance(a[0], str) or not isinstance(a[1], str) or (
            len(a) == 3 and (isinstance(a[2], bool) or not isinstance(a[2], int))):
        raise NoSuchOverload("findAll", *a)
    ev.charge(len(a[0]) // 10 + 1)
    limit = a[2] if len(a) == 3 else -1
    if limit == 0:
        return []
    out = [m.group(0) for m in regex(a[1]).finditer(a[0])]
    return out[:limit] if limit > 0 else out


# --- URLs -------------------------------------------------------------------------------
class URL:
    cel_type = "kubernetes.URL"

    def __init__(self, text, parts):
        self.text, self.parts = text, parts

    def __eq__(self, o):
        return isinstance(o, URL) and o.text == self.text

    def __hash__(self):
        return hash(self.text)

    def cel_string(self):
        return self.text


def _parse_url(s):
    """Go's url.ParseRequestURI: an absolute URI, or an absolute path."""
    if not s or any(ord(c) < 0x20 or c == "\x7f" or c == " " for c in s):
        return None
    p = urllib.parse.urlsplit(s)
    if p.scheme:
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*$", p.scheme):
            return None
        if not s[len(p.scheme) + 1:].startswith("/") and not p.netloc:
            return None  # an opaque URI (scheme:rest) is no request URI
    elif not s.startswith("/"):
        return None
    try:
        p.port
    except ValueError:
        return None
    return p


@fn("url")
def url(ev, a):
    if len(a) != 1 or not isinstance(a[0], str):
        raise NoSuchOverload("url", *a)
    p = _parse_url(a[0])
    if p is None:
        raise CelError("URL parse error during conversion from string: parse \"%s\": invalid URI for request"
                       % a[0])
    return URL(a[0], p)


@fn("isURL")
def is_url(ev, a):
    if len(a) != 1 or not isinstance(a[0], str):
        raise NoSuchOverload("isURL", *a)
    return _parse_url(a[0]) is not None


def _url_getter(name, get):
    def f(ev, a):
        if len(a) != 1 or not isinstance(a[0], URL):
            raise NoSuchOverload(name, *a)
        return get(a[0].parts)
    F[name] = f
    RECEIVER.add(name)


def _hostname(p):
    net = p.netloc.rsplit("@", 1)[-1]
    if net.startswith("["):
        return net[1:net.index("]")] if "]" in net else net
    return net.split(":", 1)[0]


def _port(p):
    net = p.netloc.rsplit("@", 1)[-1]
    if net.startswith("["):
        rest = net[net.index("]") + 1:] if "]" in net else ""
        return rest[1:] if rest.startswith(":") else ""
    return net.split(":", 1)[1] if ":" in net else ""


_url_getter("getScheme", lambda p: p.scheme)
_url_getter("getHost", lambda p: p.netloc.rsplit("@", 1)[-1])
_url_getter("getHostname", _hostname)
_url_getter("getPort", _port)
_url_getter("getEscapedPath", lambda p: urllib.parse.quote(urllib.parse.unquote(p.path), safe="/:@!$&'()*+,;=-._~"))


def _query(p):
    out = {}
    for k, v in urllib.parse.parse_qsl(p.query, keep_blank_values=True):
        out.setdefault(k, []).append(v)
    return out


_url_getter("getQuery", _query)


# --- quantities --------------------------------------------------------------------------
_Q_RE = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")
_SUFFIX = {"": Fraction(1), "n": Fraction(1, 10 ** 9), "u": Fraction(1, 10 ** 6), "m": Fraction(1, 1000),
           "k": Fraction(10 ** 3), "M": Fraction(10 ** 6), "G": Fraction(10 ** 9), "T": Fraction(10 ** 12),
           "P": Fraction(10 ** 15), "E": Fraction(10 ** 18), "Ki": Fraction(2 ** 10), "Mi": Fraction(2 ** 20),
           "Gi": Fraction(2 ** 30), "Ti": Fraction(2 ** 40), "Pi": Fraction(2 ** 50), "Ei": Fraction(2 ** 60)}
QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def parse_quantity(s):
    """The exact value of a Kubernetes quantity string, or None when it is not one."""
    if not isinstance(s, str) or not s:
        return None
    m = _Q_RE.match(s)
    if not m or (not m.group(2) and not m.group(3)):
        return None
    sign, whole, frac, suf = m.group(1), m.group(2) or "0", m.group(3) or "", m.group(4) or ""
    v = Fraction(int(whole + frac), 10 ** len(frac))
    if suf[:1] in ("e", "E"):
        exp = int(suf[1:])
        if abs(exp) > 400:
            return None
        v *= Fraction(10) ** exp
    else:
        v *= _SUFFIX[suf]
    v = -v if sign == "-" else v
    # Kubernetes keeps nano precision: smaller fractions round up
    scaled = v * 10 ** 9
    if scaled.denominator != 1:
        v = Fraction(-((-scaled.numerator) // scaled.denominator) if scaled > 0 else
                     -((-scaled.numerator) // scaled.denominator), 10 ** 9)
    return v


class Quantity:
    cel_type = "kubernetes.Quantity"

    def __init__(self, value, text):
        self.value, self.text = value, text

    def __eq__(self, o):
        return isinstance(o, Quantity) and o.value == self.value

    def __hash__(self):
        return hash(self.value)

    def cel_string(self):
        return self.text


def _fmt_quantity(v):
    if v.denominator == 1:
        return str(v.numerator)
    for suf, mult in (("m", 1000), ("u", 10 ** 6), ("n", 10 ** 9)):
        x = v * mult
        if x.denominator == 1:
            return "%d%s" % (x.numerator, suf)
    return str(float(v))


@fn("quantity")
def quantity(ev, a):
    if len(a) != 1 or not isinstance(a[0], str):
        raise NoSuchOverload("quantity", *a)
    v = parse_quantity(a[0])
    if v is None:
        raise CelError(QUANTITY_MSG)
    return Quantity(v, a[0])


@fn("isQuantity")
def is_quantity(ev, a):
    if len(a) != 1 or not isinstance(a[0], str):
        raise NoSuchOverload("isQuantity", *a)
    return parse_quantity(a[0]) is not None


def _q(name, a, n, other=False):
    if len(a) != n or not isinstance(a[0], Quantity):
        raise NoSuchOverload(name, *a)
    if other and n == 2 and not isinstance(a[1], Quantity):
        raise NoSuchOverload(name, *a)
    return a[0]


def _q_method(name, n, body, other=False):
    def f(ev, a):
        # lists share min/max/sum/indexOf names; quantities only these
        return body(_q(name, a, n, other), *a[1:])
    F[name] = f
    RECEIVER.add(name)


def _as_int(q):
    v = q.value
    if v.denominator != 1 or v.numerator < INT_MIN or v.numerator > INT_MAX:
        raise CelError("cannot convert value to integer")
    return v.numerator


def _sign(v):
    return (v > 0) - (v < 0)


_q_method("isInteger", 1, lambda q: q.value.denominator == 1 and INT_MIN <= q.value.numerator <= INT_MAX)
_q_method("asInteger", 1, _as_int)
_q_method("asApproximateFloat", 1, lambda q: float(q.value))
_q_method("sign", 1, lambda q: _sign(q.value))
_q_method("compareTo", 2, lambda q, o: _sign(q.value - o.value), other=True)
_q_method("isGreaterThan", 2, lambda q, o: q.value > o.value, other=True)
_q_method("isLessThan", 2, lambda q, o: q.value < o.value, other=True)


def _q_arith(name, op):
    def f(ev, a):
        q = _q(name, a, 2)
        o = a[1]
        if isinstance(o, Quantity):
            ov = o.value
        elif isinstance(o, int) and not isinstance(o, bool):
            ov = Fraction(o)
        else:
            raise NoSuchOverload(name, *a)
        v = op(q.value, ov)
        return Quantity(v, _fmt_quantity(v))
    F[name] = f
    RECEIVER.add(name)


_q_arith("add", lambda x, y: x + y)
_q_arith("sub", lambda x, y: x - y)


# --- IP addresses and CIDRs -----------------------------------------------------------------
class IP:
    cel_type = "net.IP"

    def __init__(self, addr):
        self.addr = addr

    def __eq__(self, o):
        return isinstance(o, IP) and o.addr == self.addr

    def __hash__(self):
        return hash(self.addr)

    def cel_string(self):
        return str(self.addr)


class CIDR:
    cel_type = "net.CIDR"

    def __init__(self, addr, prefix):
        self.addr, self.prefix = addr, prefix
        self.net = ipaddress.ip_network("%s/%d" % (addr, prefix), strict=False)

    def __eq__(self, o):
        return isinstance(o, CIDR) and (o.addr, o.prefix) == (self.addr, self.prefix)

    def __hash__(self):
        return hash((self.addr, self.prefix))

    def cel_string(self):
        return "%s/%d" % (self.addr, self.prefix)


def parse_ip(s):
    """An address as the Kubernetes IP library takes it: no zones, no IPv4-mapped IPv6, no leading zeros."""
    if not isinstance(s, str) or "%" in s:
        return None
    try:
        addr = ipaddress.ip_address(s)
    except ValueError:
        return None
    if addr.version == 6 and addr.ipv4_mapped is not None:
        return None
    return addr


def parse_cidr(s):
    if not isinstance(s, str) or "/" not in s:
        return None
    a, _, p = s.partition("/")
    addr = parse_ip(a)
    if addr is None or not re.match(r"^[0-9]{1,3}$", p) or int(p) > addr.max_prefixlen or (
            len(p) > 1 and p[0] == "0"):
        return None
    return CIDR(addr, int(p))


def _one_str(name, a):
    if len(a) != 1 or not isinstance(a[0], str):
        raise NoSuchOverload(name, *a)
    return a[0]


@fn("ip")
def ip(ev, a):
    if len(a) == 1 and isinstance(a[0], CIDR):
        return IP(a[0].addr)
    s = _one_str("ip", a)
    addr = parse_ip(s)
    if addr is None:
        if isinstance(s, str) and re.match(r"^::ffff:", s, re.I):
            raise CelError("IPv4-mapped IPv6 address %q is not allowed".replace("%q", '"%s"' % s))
        raise CelError('IP Address "%s" parse error during conversion from string: ParseAddr("%s"): '
                       'unable to parse IP' % (s, s))
    return IP(addr)


@fn("isIP")
def is_ip(ev, a):
    return parse_ip(_one_str("isIP", a)) is not None


@fn("ip.isCanonical", glob=False)
def ip_is_canonical(ev, a):
    s = _one_str("ip.isCanonical", a)
    addr = parse_ip(s)
    if addr is None:
        raise CelError('IP Address "%s" parse error during conversion from string' % s)
    return str(addr) == s


def _ip_method(name, body):
    def f(ev, a):
        if len(a) != 1 or not isinstance(a[0], IP):
            raise NoSuchOverload(name, *a)
        return body(a[0].addr)
    F[name] = f
    RECEIVER.add(name)


def _global_unicast(x):
    if x.version == 4:
        return not (x.is_unspecified or x.is_loopback or x.is_multicast or x.is_link_local or
                    x == ipaddress.IPv4Address("255.255.255.255"))
    return not (x.is_unspecified or x.is_loopback or x.is_multicast or x.is_link_local)


_ip_method("family", lambda x: x.version)
_ip_method("isUnspecified", lambda x: x.is_unspecified)
_ip_method("isLoopback", lambda x: x.is_loopback)
_ip_method("isLinkLocalMulticast", lambda x: x.is_multicast and (
    x in ipaddress.ip_network("224.0.0.0/24") if x.version == 4 else (x.packed[1] & 0x0f) == 2))
_ip_method("isLinkLocalUnicast", lambda x: x.is_link_local)
_ip_method("isGlobalUnicast", _global_unicast)


@fn("cidr")
def cidr(ev, a):
    s = _one_str("cidr", a)
    c = parse_cidr(s)
    if c is None:
        raise CelError('network address "%s" parse error during conversion from string: netip.ParsePrefix("%s"): '
                       'bad prefix' % (s, s))
    return c


@fn("isCIDR")
def is_cidr(ev, a):
    return parse_cidr(_one_str("isCIDR", a)) is not None


def _cidr_self(name, a, n):
    if len(a) != n or not isinstance(a[0], CIDR):
        raise NoSuchOverload(name, *a)
    return a[0]


@fn("containsIP", member=True, glob=False)
def contains_ip(ev, a):
    c = _cidr_self("containsIP", a, 2)
    x = a[1]
    if isinstance(x, str):
        addr = parse_ip(x)
        if addr is None:
            raise CelError('IP Address "%s" parse error during conversion from string' % x)
    elif isinstance(x, IP):
        addr = x.addr
    else:
        raise NoSuchOverload("containsIP", *a)
    return addr.version == c.net.version and addr in c.net


@fn("containsCIDR", member=True, glob=False)
def contains_cidr(ev, a):
    c = _cidr_self("containsCIDR", a, 2)
    x = a[1]
    if isinstance(x, str):
        o = parse_cidr(x)
        if o is None:
            raise CelError('network address "%s" parse error during conversion from string' % x)
    elif isinstance(x, CIDR):
        o = x
    else:
        raise NoSuchOverload("containsCIDR", *a)
    return o.net.version == c.net.version and o.prefix >= c.prefix and o.addr in c.net


@fn("masked", member=True, glob=False)
def masked(ev, a):
    c = _cidr_self("masked", a, 1)
    return CIDR(c.net.network_address, c.prefix)


@fn("prefixLength", member=True, glob=False)
def prefix_length(ev, a):
    return _cidr_self("prefixLength", a, 1).prefix


# --- named formats ---------------------------------------------------------------------
_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUB = _DNS1123_LABEL + r"(\." + _DNS1123_LABEL + r")*"
_DNS1035 = r"[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"


def _regex_msg(what, rx, examples):
    return "%s (e.g. %s, regex used for validation is '%s')" % (
        what, ",  or ".join("'%s'" % e for e in examples), rx)


def _max_len(n):
    return "must be no more than %d characters" % n


def _v_dns1123_label(s, prefix=False):
    if prefix and s.endswith("-"):
        s = s[:-1] + "a"
    errs = []
    if len(s) > 63:
        errs.append(_max_len(63))
    if not re.fullmatch(_DNS1123_LABEL, s):
        errs.append(_regex_msg("a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                               "or '-', and must start and end with an alphanumeric character",
                               _DNS1123_LABEL, ["my-name", "123-abc"]))
    return errs


def _v_dns1123_sub(s, prefix=False):
    if prefix and s.endswith((".", "-")):
        s = s[:-1] + "a"
    errs = []
    if len(s) > 253:
        errs.append(_max_len(253))
    if not re.fullmatch(_DNS1123_SUB, s):
        errs.append(_regex_msg("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                               "characters, '-' or '.', and must start and end with an alphanumeric character",
                               _DNS1123_SUB, ["example.com"]))
    return errs


def _v_dns1035(s, prefix=False):
    if prefix and s.endswith("-"):
        s = s[:-1] + "a"
    errs = []
    if len(s) > 63:
        errs.append(_max_len(63))
    if not re.fullmatch(_DNS1035, s):
        errs.append(_regex_msg("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                               "start with an alphabetic character, and end with an alphanumeric character",
                               _DNS1035, ["my-name", "abc-123"]))
    return errs


def _v_qualified(s):
    errs = []
    parts = s.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        pre, name = parts
        if not pre:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + e for e in _v_dns1123_sub(pre)]
    else:
        return [_regex_msg("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                           "must start and end with an alphanumeric character", _QNAME,
                           ["MyName", "my.name", "123-abc"]) +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if name and not re.fullmatch(_QNAME, name):
        errs.append("name part " + _regex_msg(
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character", _QNAME, ["MyName", "my.name", "123-abc"]))
    return errs


def _v_label_value(s):
    errs = []
    if len(s) > 63:
        errs.append(_max_len(63))
    if not re.fullmatch(_LABEL_VALUE, s):
        errs.append(_regex_msg("a valid label must be an empty string or consist of alphanumeric characters, "
                               "'-', '_' or '.', and must start and end with an alphanumeric character",
                               _LABEL_VALUE, ["MyValue", "my_value", "12345"]))
    return errs


def _v_uri(s):
    return [] if _parse_url(s) is not None else ["invalid URI"]


def _v_uuid(s):
    try:
        uuid.UUID(s)
        ok = re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", s)
    except ValueError:
        ok = False
    return [] if ok else ["does not match the UUID format"]


def _v_byte(s):
    import base64
    import binascii
    try:
        base64.b64decode(s.encode(), validate=True)
        return []
    except (binascii.Error, ValueError):
        return ["invalid base64"]


def _v_date(s):
    import datetime
    try:
        datetime.date.fromisoformat(s) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s) else 1 / 0
        return []
    except (ValueError, ZeroDivisionError):
        return ["invalid date"]


def _v_datetime(s):
    try:
        stdlib.parse_timestamp(s)
        return []
    except CelError:
        return ["invalid datetime"]


FORMATS = {
    "dns1123Label": _v_dns1123_label,
    "dns1123Subdomain": _v_dns1123_sub,
    "dns1035Label": _v_dns1035,
    "qualifiedName": _v_qualified,
    "dns1123LabelPrefix": lambda s: _v_dns1123_label(s, True),
    "dns1123SubdomainPrefix": lambda s: _v_dns1123_sub(s, True),
    "dns1035LabelPrefix": lambda s: _v_dns1035(s, True),
    "labelValue": _v_label_value,
    "uri": _v_uri,
    "uuid": _v_uuid,
    "byte": _v_byte,
    "date": _v_date,
    "datetime": _v_datetime,
}


class Format:
    cel_type = "kubernetes.NamedFormat"

    def __init__(self, name):
        self.name = name

    def __eq__(self, o):
        return isinstance(o, Format) and o.name == self.name

    def __hash__(self):
        return hash(self.name)


@fn("format.named", glob=False)
def format_named(ev, a):
    name = _one_str("format.named", a)
    return Optional(Format(name), True) if name in FORMATS else NONE


def _format_ctor(name):
    def f(ev, a):
        if a:
            raise NoSuchOverload("format." + name, *a)
        return Format(name)
    F["format." + name] = f


for _n in FORMATS:
    _format_ctor(_n)


@fn("validate", member=True, glob=False)
def validate(ev, a):
    if len(a) != 2 or not isinstance(a[0], Format) or not isinstance(a[1], str):
        raise NoSuchOverload("validate", *a)
    ev.charge(len(a[1]) // 10 + 1)
    errs = FORMATS[a[0].name](a[1])
    return Optional(errs, True) if errs else NONE
