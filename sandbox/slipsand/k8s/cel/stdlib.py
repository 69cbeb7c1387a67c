"""The CEL standard library: operators, conversions, strings, time, and the cel-go
extensions Kubernetes enables (strings v2, sets, optional types).

Each function takes (evaluator, argv) where argv starts with the receiver for
member calls, and dispatches on the runtime types like cel-go's overloads;
anything else is a `no such overload` error.
"""
import datetime
import math
import re

from .values import (INT_MAX, INT_MIN, NS, CelError, CelType, Duration, NoSuchOverload, Optional, NONE,
                      Timestamp, UInt, check_int, check_uint, equal, fmt_duration, is_num, map_get,
                      num_cmp, type_name, MISSING, key_value)

F = {}
RECEIVER = set()   # names usable as member calls
GLOBAL = set()     # names usable as global calls


def fn(name, member=False, glob=True):
    def deco(f):
        F[name] = f
        if member:
            RECEIVER.add(name)
        if glob:
            GLOBAL.add(name)
        return f
    return deco


def _t(v):
    return type_name(v)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, (bool, UInt))


def _is_uint(v):
    return isinstance(v, UInt)


# --- arithmetic --------------------------------------------------------------------------
@fn("_+_")
def add(ev, a):
    x, y = a
    if _is_int(x) and _is_int(y):
        return check_int(x + y)
    if _is_uint(x) and _is_uint(y):
        return check_uint(x + y)
    if isinstance(x, float) and isinstance(y, float):
        return x + y
    if isinstance(x, str) and isinstance(y, str):
        ev.charge((len(x) + len(y)) // 10)
        return x + y
    if isinstance(x, bytes) and isinstance(y, bytes):
        return x + y
    if isinstance(x, list) and isinstance(y, list):
        ev.charge((len(x) + len(y)) // 10)
        return list(x) + list(y)
    if isinstance(x, Duration) and isinstance(y, Duration):
        return Duration(x.ns + y.ns)
    if isinstance(x, Timestamp) and isinstance(y, Duration):
        return Timestamp(x.ns + y.ns)
    if isinstance(x, Duration) and isinstance(y, Timestamp):
        return Timestamp(x.ns + y.ns)
    raise NoSuchOverload("_+_", x, y)


@fn("_-_")
def sub(ev, a):
    x, y = a
    if _is_int(x) and _is_int(y):
        return check_int(x - y)
    if _is_uint(x) and _is_uint(y):
        return check_uint(x - y)
    if isinstance(x, float) and isinstance(y, float):
        return x - y
    if isinstance(x, Duration) and isinstance(y, Duration):
        return Duration(x.ns - y.ns)
    if isinstance(x, Timestamp) and isinstance(y, Timestamp):
        return Duration(x.ns - y.ns)
    if isinstance(x, Timestamp) and isinstance(y, Duration):
        return Timestamp(x.ns - y.ns)
    raise NoSuchOverload("_-_", x, y)


@fn("_*_")
def mul(ev, a):
    x, y = a
    if _is_int(x) and _is_int(y):
        return check_int(x * y)
    if _is_uint(x) and _is_uint(y):
        return check_uint(x * y)
    if isinstance(x, float) and isinstance(y, float):
        return x * y
    raise NoSuchOverload("_*_", x, y)


def _trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


@fn("_/_")
def div(ev, a):
    x, y = a
    if (_is_int(x) and _is_int(y)) or (_is_uint(x) and _is_uint(y)):
        if y == 0:
            raise CelError("division by zero")
        if _is_uint(x):
            return UInt(x // y)
        return check_int(_trunc_div(x, y))
    if isinstance(x, float) and isinstance(y, float):
        if y == 0.0:
            if x == 0.0 or math.isnan(x):
                return math.nan
            return math.copysign(math.inf, x) * math.copysign(1.0, y)
        return x / y
    raise NoSuchOverload("_/_", x, y)


@fn("_%_")
def mod(ev, a):
    x, y = a
    if (_is_int(x) and _is_int(y)) or (_is_uint(x) and _is_uint(y)):
        if y == 0:
            raise CelError("modulus by zero")
        if _is_uint(x):
            return UInt(x % y)
        if x == INT_MIN and y == -1:
            raise CelError("integer overflow")
        return x - _trunc_div(x, y) * y
    raise NoSuchOverload("_%_", x, y)


@fn("-_")
def neg(ev, a):
    x = a[0]
    if _is_int(x):
        return check_int(-x)
    if isinstance(x, float):
        return -x
    raise NoSuchOverload("-_", x)


@fn("!_")
def not_(ev, a):
    if isinstance(a[0], bool):
        return not a[0]
    raise NoSuchOverload("!_", a[0])


# --- comparison ----------------------------------------------------------------------
def compare(fname, x, y):
    if is_num(x) and is_num(y):
        return num_cmp(x, y)
    for cls in (str, bytes, bool):
        if isinstance(x, cls) and isinstance(y, cls) and (cls is not bool or True):
            if cls is not bool and (isinstance(x, bool) or isinstance(y, bool)):
                break
            return (x > y) - (x < y)
    if isinstance(x, (Duration, Timestamp)) and type(x) is type(y):
        return (x.ns > y.ns) - (x.ns < y.ns)
    raise NoSuchOverload(fname, x, y)


def _rel(name, test):
    def f(ev, a):
        c = compare(name, a[0], a[1])
        return False if c is None else test(c)
    F[name] = f
    GLOBAL.add(name)


_rel("_<_", lambda c: c < 0)
_rel("_<=_", lambda c: c <= 0)
_rel("_>_", lambda c: c > 0)
_rel("_>=_", lambda c: c >= 0)


@fn("_==_")
def eq(ev, a):
    return equal(a[0], a[1])


@fn("_!=_")
def ne(ev, a):
    return not equal(a[0], a[1])


@fn("@in")
def in_(ev, a):
    x, c = a
    if isinstance(c, list):
        ev.charge(len(c) // 10)
        return any(equal(x, y) for y in c)
    if isinstance(c, dict):
        return map_get(c, x) is not MISSING
    raise NoSuchOverload("@in", x, c)


@fn("_[_]")
def index(ev, a):
    c, i = a
    if isinstance(c, list):
        if isinstance(i, float) and i == int(i):
            i = int(i)
        if isinstance(i, bool) or not isinstance(i, int):
            raise NoSuchOverload("_[_]", c, i)
        if i < 0 or i >= len(c):
            raise CelError("index out of bounds: %d" % i)
        return c[i]
    if isinstance(c, dict):
        v = map_get(c, i)
        if v is MISSING:
            raise CelError("no such key: %s" % (_plain(i),))
        return v
    if isinstance(c, Optional):
        return opt_index(ev, a)
    raise NoSuchOverload("_[_]", c, i)


@fn("_[?_]")
def opt_index(ev, a):
    c, i = a
    if isinstance(c, Optional):
        if not c.present:
            return NONE
        c = c.value
    try:
        return Optional(index(ev, [c, i]), True)
    except CelError as e:
        if str(e).startswith(("no such key", "index out of bounds")):
            return NONE
        raise


def _plain(v):
    return to_string(v) if not isinstance(v, str) else v


# --- size, type, conversions ----------------------------------------------------------
@fn("size", member=True)
def size(ev, a):
    x = a[0]
    if isinstance(x, str):
        return len(x)
    if isinstance(x, (bytes, list, dict)):
        return len(x)
    raise NoSuchOverload("size", x)


@fn("type")
def type_(ev, a):
    x = a[0]
    return CelType(_t(x) if not isinstance(x, dict) or type(x) is dict else "map")


@fn("dyn")
def dyn(ev, a):
    return a[0]


_INT_RE = re.compile(r"^[+-]?[0-9]+$")


@fn("int")
def to_int(ev, a):
    x = a[0]
    if _is_int(x):
        return x
    if _is_uint(x):
        if x > INT_MAX:
            raise CelError("range error converting %d to int" % x)
        return int(x)
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x) or x <= -9.223372036854776e18 or x >= 9.223372036854776e18:
            raise CelError("range error converting %s to int" % to_string(x))
        return int(x)
    if isinstance(x, str):
        if not _INT_RE.match(x):
            raise CelError('strconv.ParseInt: parsing "%s": invalid syntax' % x)
        v = int(x)
        if v < INT_MIN or v > INT_MAX:
            raise CelError('strconv.ParseInt: parsing "%s": value out of range' % x)
        return v
    if isinstance(x, Timestamp):
        return x.ns // NS
    if isinstance(x, Duration):
        return x.ns
    raise NoSuchOverload("int", x)


@fn("uint")
def to_uint(ev, a):
    x = a[0]
    if _is_uint(x):
        return x
    if _is_int(x):
        if x < 0:
            raise CelError("range error converting %d to uint" % x)
        return UInt(x)
    if isinstance(x, float):
        if math.isnan(x) or x < 0 or x >= 1.8446744073709552e19:
            raise CelError("range error converting %s to uint" % to_string(x))
        return UInt(int(x))
    if isinstance(x, str):
        if not re.match(r"^\+?[0-9]+$", x) or int(x) > (1 << 64) - 1:
            raise CelError('strconv.ParseUint: parsing "%s": invalid syntax' % x)
        return UInt(int(x))
    raise NoSuchOverload("uint", x)


_FLOAT_RE = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?"
                       r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])$")


@fn("double")
def to_double(ev, a):
    x = a[0]
    if isinstance(x, float):
        return x
    if is_num(x):
        return float(x)
    if isinstance(x, str):
        if not _FLOAT_RE.match(x):
            raise CelError('strconv.ParseFloat: parsing "%s": invalid syntax' % x)
        return float(x)
    raise NoSuchOverload("double", x)


@fn("bool")
def to_bool(ev, a):
    x = a[0]
    if isinstance(x, bool):
        return x
    if isinstance(x, str):
        if x in ("1", "t", "T", "TRUE", "true", "True"):
            return True
        if x in ("0", "f", "F", "FALSE", "false", "False"):
            return False
        raise CelError('strconv.ParseBool: parsing "%s": invalid syntax' % x)
    raise NoSuchOverload("bool", x)


@fn("bytes")
def to_bytes(ev, a):
    x = a[0]
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    raise NoSuchOverload("bytes", x)


def fmt_double(d):
    """A double as Go's strconv.FormatFloat(d, 'g', -1, 64) writes it."""
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "+Inf" if d > 0 else "-Inf"
    if d == 0:
        return "-0" if math.copysign(1, d) < 0 else "0"
    r = repr(d)
    sign = "-" if r.startswith("-") else ""
    r = r.lstrip("-")
    mant, _, exp = r.partition("e")
    exp = int(exp) if exp else 0
    ip, _, fp = mant.partition(".")
    fp = "" if fp == "0" else fp
    digits = (ip + fp).lstrip("0")
    lead = len(ip + fp) - len((ip + fp).lstrip("0"))
    dp = len(ip) + exp - lead  # position of the decimal point among `digits`
    digits = digits.rstrip("0") or "0"
    x = dp - 1
    if x < -4 or x >= 6:  # shortest 'g': exponent form outside [1e-4, 1e6)
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return "%s%se%s%02d" % (sign, m, "+" if x >= 0 else "-", abs(x))
    if dp <= 0:
        return sign + "0." + "0" * (-dp) + digits
    if dp >= len(digits):
        return sign + digits + "0" * (dp - len(digits))
    return sign + digits[:dp] + "." + digits[dp:]


def to_string(x):
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(int(x))
    if isinstance(x, float):
        return fmt_double(x)
    if isinstance(x, bytes):
        try:
            return x.decode("utf-8")
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string")
    if isinstance(x, Duration):
        return fmt_duration(x.ns)
    if isinstance(x, Timestamp):
        return fmt_timestamp(x.ns)
    if isinstance(x, CelType):
        return x.name
    hook = getattr(x, "cel_string", None)
    if hook is not None:
        return hook()
    raise NoSuchOverload("string", x)


@fn("string")
def string_(ev, a):
    return to_string(a[0])


# --- time -------------------------------------------------------------------------
_TS_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def parse_timestamp(s):
    m = _TS_RE.match(s)
    if not m:
        raise CelError('timestamp parsing error: parsing time "%s" as RFC3339' % s)
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    frac = int((m.group(7) or ".")[1:].ljust(9, "0") or 0)
    try:
        dt = datetime.datetime(y, mo, d, h, mi, sec, tzinfo=datetime.timezone.utc)
    except ValueError:
        raise CelError('timestamp parsing error: parsing time "%s": day out of range' % s)
    off = m.group(8)
    secs = (dt - EPOCH) // datetime.timedelta(seconds=1)
    if off not in ("Z", "z"):
        sign = 1 if off[0] == "+" else -1
        secs -= sign * (int(off[1:3]) * 3600 + int(off[4:6]) * 60)
    return Timestamp(secs * NS + frac)


def fmt_timestamp(ns):
    secs, frac = divmod(ns, NS)
    dt = EPOCH + datetime.timedelta(seconds=secs)
    out = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if len(out.split("-")[0]) < 4:
        out = out.zfill(len(out) + 4 - len(out.split("-")[0]))
    if frac:
        out += "." + ("%09d" % frac).rstrip("0")
    return out + "Z"


_DUR_RE = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 1000000, "s": NS, "m": 60 * NS, "h": 3600 * NS}


def parse_duration(s):
    """Go's time.ParseDuration."""
    orig = s
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise CelError('time: invalid duration "%s"' % orig)
    total = 0
    pos = 0
    while pos < len(s):
        m = _DUR_RE.match(s, pos)
        if not m or m.group(1) in ("", "."):
            raise CelError('time: invalid duration "%s"' % orig)
        num = m.group(1)
        whole, _, frac = num.partition(".")
        unit = _UNITS[m.group(2)]
        total += int(whole or "0") * unit
        if frac:
            total += int(frac) * unit // (10 ** len(frac))
        pos = m.end()
    if total > (1 << 63) - 1:
        raise CelError('time: invalid duration "%s"' % orig)
    return Duration(-total if neg else total)


@fn("duration")
def duration_(ev, a):
    x = a[0]
    if isinstance(x, Duration):
        return x
    if isinstance(x, str):
        return parse_duration(x)
    if _is_int(x):
        return Duration(x)
    raise NoSuchOverload("duration", x)


@fn("timestamp")
def timestamp_(ev, a):
    x = a[0]
    if isinstance(x, Timestamp):
        return x
    if isinstance(x, str):
        return parse_timestamp(x)
    if _is_int(x):
        return Timestamp(x * NS)
    raise NoSuchOverload("timestamp", x)


def _tz(name):
    if name is None:
        return datetime.timezone.utc
    m = re.match(r"^([+-]?)(\d{1,2}):(\d{2})$", name)
    if m:
        off = datetime.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)))
        return datetime.timezone(-off if m.group(1) == "-" else off)
    try:
        import zoneinfo
        return zoneinfo.ZoneInfo(name)
    except Exception:
        raise CelError("unknown time zone %s" % name)


def _dt(a):
    ts = a[0]
    tz = _tz(a[1] if len(a) > 1 else None)
    secs, frac = divmod(ts.ns, NS)
    return (EPOCH + datetime.timedelta(seconds=secs)).astimezone(tz), frac


def _time_getter(name, ts_fn, dur_fn=None):
    def f(ev, a):
        x = a[0]
        if isinstance(x, Timestamp) and (len(a) == 1 or isinstance(a[1], str)):
            dt, frac = _dt(a)
            return ts_fn(dt, frac)
        if dur_fn is not None and isinstance(x, Duration) and len(a) == 1:
            return dur_fn(x.ns)
        raise NoSuchOverload(name, *a)
    F[name] = f
    RECEIVER.add(name)


def _trunc_ns(ns, unit):
    return int(ns / unit) if ns < 0 else ns // unit


_time_getter("getFullYear", lambda d, f: d.year)
_time_getter("getMonth", lambda d, f: d.month - 1)
_time_getter("getDayOfYear", lambda d, f: d.timetuple().tm_yday - 1)
_time_getter("getDayOfMonth", lambda d, f: d.day - 1)
_time_getter("getDate", lambda d, f: d.day)
_time_getter("getDayOfWeek", lambda d, f: (d.weekday() + 1) % 7)
_time_getter("getHours", lambda d, f: d.hour, lambda ns: _trunc_ns(ns, 3600 * NS))
_time_getter("getMinutes", lambda d, f: d.minute, lambda ns: _trunc_ns(ns, 60 * NS))
_time_getter("getSeconds", lambda d, f: d.second, lambda ns: _trunc_ns(ns, NS))
_time_getter("getMilliseconds", lambda d, f: f // 1000000, lambda ns: _trunc_ns(ns, 1000000) % 1000
             if ns >= 0 else -((-ns // 1000000) % 1000))


# --- strings ----------------------------------------------------------------------
_regex_cache = {}


def regex(p):
    """A Python pattern for an RE2 expression (\\z as \\Z; \\d, \\w, \\s ASCII as in RE2)."""
    rx = _regex_cache.get(p)
    if rx is None:
        if len(_regex_cache) > 2000:
            _regex_cache.clear()
        q = re.sub(r"(?<!\\)((?:\\\\)*)\\z", r"\1\\Z", p)
        try:
            rx = re.compile(q, re.ASCII if "\\p" not in q else 0)
        except re.error as e:
            raise CelError("error parsing regexp: %s: `%s`" % (e, p))
        _regex_cache[p] = rx
    return rx


def _str_args(name, a, *types):
    if len(a) != len(types) or not all(isinstance(v, t) and not (t is int and isinstance(v, bool))
                                      for v, t in zip(a, types)):
        raise NoSuchOverload(name, *a)


@fn("matches", member=True)
def matches(ev, a):
    _str_args("matches", a, str, str)
    ev.charge(len(a[0]) // 10 + 1)
    return regex(a[1]).search(a[0]) is not None


@fn("contains", member=True, glob=False)
def contains(ev, a):
    _str_args("contains", a, str, str)
    ev.charge(len(a[0]) // 10)
    return a[1] in a[0]


@fn("startsWith", member=True, glob=False)
def starts_with(ev, a):
    _str_args("startsWith", a, str, str)
    return a[0].startswith(a[1])


@fn("endsWith", member=True, glob=False)
def ends_with(ev, a):
    _str_args("endsWith", a, str, str)
    return a[0].endswith(a[1])


@fn("charAt", member=True, glob=False)
def char_at(ev, a):
    _str_args("charAt", a, str, int)
    s, i = a
    if i < 0 or i > len(s):
        raise CelError("index out of range: %d" % i)
    return s[i:i + 1]


@fn("indexOf", member=True, glob=False)
def index_of(ev, a):
    if isinstance(a[0], list):
        return F["@list.indexOf"](ev, a)
    if len(a) == 3:
        _str_args("indexOf", a, str, str, int)
    else:
        _str_args("indexOf", a, str, str)
    s, sub = a[0], a[1]
    start = a[2] if len(a) == 3 else 0
    if start < 0 or start > len(s):
        raise CelError("index out of range: %d" % start)
    ev.charge(len(s) // 10)
    return s.find(sub, start)


@fn("lastIndexOf", member=True, glob=False)
def last_index_of(ev, a):
    if isinstance(a[0], list):
        return F["@list.lastIndexOf"](ev, a)
    if len(a) == 3:
        _str_args("lastIndexOf", a, str, str, int)
    else:
        _str_args("lastIndexOf", a, str, str)
    s, sub = a[0], a[1]
    end = a[2] if len(a) == 3 else len(s)
    if end < 0 or end > len(s):
        raise CelError("index out of range: %d" % end)
    ev.charge(len(s) // 10)
    if sub == "":
        return end
    return s.rfind(sub, 0, end + len(sub))


def _ascii_map(s, upper):
    return "".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in s)


@fn("lowerAscii", member=True, glob=False)
def lower_ascii(ev, a):
    _str_args("lowerAscii", a, str)
    return _ascii_map(a[0], False)


@fn("upperAscii", member=True, glob=False)
def upper_ascii(ev, a):
    _str_args("upperAscii", a, str)
    return _ascii_map(a[0], True)


@fn("replace", member=True, glob=False)
def replace(ev, a):
    if len(a) == 4:
        _str_args("replace", a, str, str, str, int)
        n = a[3]
    else:
        _str_args("replace", a, str, str, str)
        n = -1
    ev.charge(len(a[0]) // 10)
    return a[0].replace(a[1], a[2], n if n >= 0 else -1)


@fn("split", member=True, glob=False)
def split(ev, a):
    if len(a) == 3:
        _str_args("split", a, str, str, int)
        n = a[2]
    else:
        _str_args("split", a, str, str)
        n = -1
    s, sep = a[0], a[1]
    ev.charge(len(s) // 10)
    if n == 0:
        return []
    if sep == "":
        parts = list(s)
        if n > 0 and len(parts) > n:
            parts = parts[:n - 1] + ["".join(parts[n - 1:])]
        return parts
    return s.split(sep, n - 1 if n > 0 else -1)


@fn("substring", member=True, glob=False)
def substring(ev, a):
    if len(a) == 3:
        _str_args("substring", a, str, int, int)
        s, i, j = a
    else:
        _str_args("substring", a, str, int)
        s, i = a
        j = len(s)
    if i < 0 or i > len(s):
        raise CelError("index out of range: %d" % i)
    if j < 0 or j > len(s):
        raise CelError("index out of range: %d" % j)
    if i > j:
        raise CelError("invalid substring range. start: %d, end: %d" % (i, j))
    return s[i:j]


_WS = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
      "\u2028\u2029\u202f\u205f\u3000"


@fn("trim", member=True, glob=False)
def trim(ev, a):
    _str_args("trim", a, str)
    return a[0].strip(_WS)


@fn("join", member=True, glob=False)
def join(ev, a):
    if not isinstance(a[0], list) or not all(isinstance(x, str) for x in a[0]) or (
            len(a) == 2 and not isinstance(a[1], str)) or len(a) > 2:
        raise NoSuchOverload("join", *a)
    ev.charge(sum(len(x) for x in a[0]) // 10)
    return (a[1] if len(a) == 2 else "").join(a[0])


@fn("strings.quote", glob=False)
def quote(ev, a):
    _str_args("strings.quote", a, str)
    out = ['"']
    for c in a[0]:
        out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                    "\v": "\\v", "\\": "\\\\", '"': '\\"'}.get(c, c))
    out.append('"')
    return "".join(out)


@fn("format", member=True, glob=False)
def format_(ev, a):
    if len(a) != 2 or not isinstance(a[0], str) or not isinstance(a[1], list):
        raise NoSuchOverload("format", *a)
    s, args = a
    out, i, k = [], 0, 0
    while i < len(s):
        c = s[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        m = re.match(r"%(?:\.(\d+))?([sdfeboxX%])", s[i:])
        if not m:
            raise CelError("could not parse formatting clause: unrecognized formatting clause")
        i += m.end()
        verb = m.group(2)
        if verb == "%":
            out.append("%")
            continue
        if k >= len(args):
            raise CelError("index %d out of range" % k)
        v = args[k]
        k += 1
        out.append(_format_clause(verb, m.group(1), v))
    return "".join(out)


def _fmt_special(v):
    """NaN and the infinities as the format clauses write them, else None."""
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return None


def _fmt_error(what):
    return CelError("error during formatting: %s" % what)


def _format_s(v):
    if isinstance(v, list):
        return "[" + ", ".join(_format_s(x) for x in v) + "]"
    if isinstance(v, dict):
        parts = sorted((_format_s(key_value(k)), _format_s(x)) for k, x in v.items())
        return "{" + ", ".join("%s: %s" % kv for kv in parts) + "}"
    if v is None:
        return "null"
    special = _fmt_special(v)
    if special is not None:
        return special
    try:
        return to_string(v)
    except CelError:
        raise _fmt_error("string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
                         "lists, types, durations, and timestamps, was given %s" % _t(v))


def _format_clause(verb, prec, v):
    """One formatting clause of the strings extension's format(), as cel-go's ext/formatting."""
    if verb == "s":
        return _format_s(v)
    if verb == "d":
        special = _fmt_special(v)
        if special is not None:
            return special
        if isinstance(v, bool) or not isinstance(v, int):
            raise _fmt_error("decimal clause can only be used on integers, was given %s" % _t(v))
        return str(int(v))
    if verb in "fe":
        special = _fmt_special(v)
        if special is not None:
            return special
        if not is_num(v):
            raise _fmt_error("%s clause can only be used on doubles, was given %s" % (
                "fixed-point" if verb == "f" else "scientific", _t(v)))
        p = int(prec) if prec is not None else 6
        return ("%." + str(p) + verb) % float(v)
    if verb == "b":
        if isinstance(v, bool):
            return "1" if v else "0"
        if not isinstance(v, int):
            raise _fmt_error("only integers and bools can be formatted as binary, was given %s" % _t(v))
        return bin(int(v))[2:] if int(v) >= 0 else "-" + bin(-int(v))[2:]
    if verb == "o":
        if isinstance(v, bool) or not isinstance(v, int):
            raise _fmt_error("octal clause can only be used on integers, was given %s" % _t(v))
        return "%o" % int(v) if int(v) >= 0 else "-%o" % -int(v)
    if isinstance(v, (str, bytes)):
        h = (v.encode() if isinstance(v, str) else v).hex()
    elif isinstance(v, int) and not isinstance(v, bool):
        h = "%x" % int(v) if int(v) >= 0 else "-%x" % -int(v)
    else:
        raise _fmt_error("only integers, byte buffers, and strings can be formatted as hex, was given %s" % _t(v))
    return h.upper() if verb == "X" else h


# --- lists (Kubernetes library) and sets (cel-go ext) ------------------------------------
def _sortable(name, lst):
    if not isinstance(lst, list):
        raise NoSuchOverload(name, lst)
    kinds = {("num" if is_num(x) else _t(x)) for x in lst}
    if len(kinds) > 1 or (kinds and next(iter(kinds)) not in ("num", "string", "bytes", "bool",
                                                             "google.protobuf.Duration",
                                                             "google.protobuf.Timestamp")):
        raise NoSuchOverload(name, lst)


def _cmp_key(x):
    import functools
    return functools.cmp_to_key(lambda p, q: compare("sort", p, q) or 0)(x)


@fn("isSorted", member=True, glob=False)
def is_sorted(ev, a):
    _sortable("isSorted", a[0])
    ev.charge(len(a[0]))
    lst = a[0]
    return all((compare("isSorted", lst[i], lst[i + 1]) or 0) <= 0 for i in range(len(lst) - 1))


@fn("sum", member=True, glob=False)
def sum_(ev, a):
    lst = a[0]
    _sortable("sum", lst)
    ev.charge(len(lst))
    if not lst:
        return 0
    total = lst[0]
    for x in lst[1:]:
        total = add(ev, [total, x])
    return total


def _minmax(name, pick):
    def f(ev, a):
        if len(a) == 1 and isinstance(a[0], list):
            lst = a[0]
            _sortable(name, lst)
            ev.charge(len(lst))
            if not lst:
                raise CelError("%s called on empty list" % name)
            best = lst[0]
            for x in lst[1:]:
                if pick(compare(name, x, best) or 0):
                    best = x
            return best
        raise NoSuchOverload(name, *a)
    F[name] = f
    RECEIVER.add(name)


_minmax("min", lambda c: c < 0)
_minmax("max", lambda c: c > 0)


def _list_index(last):
    def f(ev, a):
        lst, x = a
        ev.charge(len(lst))
        rng = range(len(lst) - 1, -1, -1) if last else range(len(lst))
        for i in rng:
            if equal(lst[i], x):
                return i
        return -1
    return f


F["@list.indexOf"] = _list_index(False)
F["@list.lastIndexOf"] = _list_index(True)


def _set_args(name, a):
    if len(a) != 2 or not all(isinstance(x, list) for x in a):
        raise NoSuchOverload(name, *a)


@fn("sets.contains", glob=False)
def sets_contains(ev, a):
    _set_args("sets.contains", a)
    ev.charge(len(a[0]) * max(1, len(a[1])) // 10)
    return all(any(equal(x, y) for y in a[0]) for x in a[1])


@fn("sets.equivalent", glob=False)
def sets_equivalent(ev, a):
    return sets_contains(ev, a) and sets_contains(ev, [a[1], a[0]])


@fn("sets.intersects", glob=False)
def sets_intersects(ev, a):
    _set_args("sets.intersects", a)
    ev.charge(len(a[0]) * max(1, len(a[1])) // 10)
    return any(any(equal(x, y) for y in a[0]) for x in a[1])


# --- optional types -----------------------------------------------------------------
@fn("optional.of", glob=False)
def opt_of(ev, a):
    return Optional(a[0], True)


@fn("optional.none", glob=False)
def opt_none(ev, a):
    return NONE


def zero_value(v):
    if v is None:
        return True
    if isinstance(v, bool):
        return v is False
    if isinstance(v, (int, float)):
        return v == 0
    if isinstance(v, (str, bytes, list, dict)):
        return len(v) == 0
    if isinstance(v, (Duration, Timestamp)):
        return v.ns == 0
    return False


@fn("optional.ofNonZeroValue", glob=False)
def opt_nonzero(ev, a):
    return NONE if zero_value(a[0]) else Optional(a[0], True)


def _opt(name, a, n):
    if len(a) != n or not isinstance(a[0], Optional):
        raise NoSuchOverload(name, *a)
    return a[0]


@fn("hasValue", member=True, glob=False)
def has_value(ev, a):
    return _opt("hasValue", a, 1).present


@fn("value", member=True, glob=False)
def value(ev, a):
    o = _opt("value", a, 1)
    if not o.present:
        raise CelError("optional.none() dereference")
    return o.value


@fn("orValue", member=True, glob=False)
def or_value(ev, a):
    o = _opt("orValue", a, 2)
    return o.value if o.present else a[1]


@fn("or", member=True, glob=False)
def or_(ev, a):
    o = _opt("or", a, 2)
    if not isinstance(a[1], Optional):
        raise NoSuchOverload("or", *a)
    return o if o.present else a[1]
