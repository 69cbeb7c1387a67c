"""CEL runtime values in Python terms, and the errors evaluation raises.

int -> int, uint -> UInt (an int subclass), double -> float, bool -> bool,
string -> str, bytes -> bytes, null -> None, list -> list (ListValue for a
Kubernetes set/map list, whose equality ignores order), map -> dict,
duration -> Duration, timestamp -> Timestamp, type -> CelType,
optional -> Optional.  Library types (Quantity, URL, IP, CIDR, Format) live
in k8slib and declare `cel_type`.
"""
import math

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
UINT_MAX = (1 << 64) - 1
NS = 1000000000
# Timestamps range over years 0001..9999, as cel-spec says.
TS_MIN = -62135596800 * NS
TS_MAX = 253402300799 * NS + NS - 1
DUR_MAX = (1 << 63) - 1  # cel-go's durations are Go's: int64 nanoseconds (about 292 years)


class CelError(Exception):
    """An evaluation error (a CEL error value)."""


class NoSuchOverload(CelError):
    def __init__(self, fn, *args):
        CelError.__init__(self, "no such overload: %s(%s)" % (fn, ", ".join(type_name(a) for a in args)))


class CostExceeded(CelError):
    def __init__(self):
        CelError.__init__(self, "operation cancelled: actual cost limit exceeded")


class UInt(int):
    __slots__ = ()

    def __repr__(self):
        return "%du" % int(self)


class Duration:
    __slots__ = ("ns",)

    def __init__(self, ns):
        if ns < -DUR_MAX - 1 or ns > DUR_MAX:
            raise CelError("duration out of range")
        self.ns = ns

    def __eq__(self, o):
        return isinstance(o, Duration) and o.ns == self.ns

    def __hash__(self):
        return hash(("dur", self.ns))

    def __repr__(self):
        return "duration(%r)" % fmt_duration(self.ns)


class Timestamp:
    __slots__ = ("ns",)

    def __init__(self, ns):
        if ns < TS_MIN or ns > TS_MAX:
            raise CelError("timestamp out of range")
        self.ns = ns

    def __eq__(self, o):
        return isinstance(o, Timestamp) and o.ns == self.ns

    def __hash__(self):
        return hash(("ts", self.ns))

    def __repr__(self):
        return "timestamp(%d)" % self.ns


class CelType:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, o):
        return isinstance(o, CelType) and o.name == self.name

    def __hash__(self):
        return hash(("type", self.name))

    def __repr__(self):
        return self.name


class Optional:
    __slots__ = ("value", "present")

    def __init__(self, value=None, present=False):
        self.value, self.present = value, present

    def __eq__(self, o):
        return isinstance(o, Optional) and o.present == self.present and (
            not self.present or equal(self.value, o.value))

    def __hash__(self):
        return 0

    def __repr__(self):
        return "optional.of(%r)" % (self.value,) if self.present else "optional.none()"


NONE = Optional()


class ListValue(list):
    """A list with Kubernetes list-type semantics: 'set' or 'map' compare regardless of order."""
    __slots__ = ("list_type", "keys")

    def __init__(self, items, list_type, keys=()):
        list.__init__(self, items)
        self.list_type, self.keys = list_type, tuple(keys)


class ObjectValue(dict):
    """An object of a structural schema: field selection as on a map, type named after the schema path."""
    __slots__ = ("type_name",)

    def __init__(self, items, type_name="object"):
        dict.__init__(self, items)
        self.type_name = type_name


def type_name(v):
    if v is None:
        return "null_type"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, UInt):
        return "uint"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, list):
        return "list"
    if isinstance(v, ObjectValue):
        return v.type_name
    if isinstance(v, dict):
        return "map"
    if isinstance(v, Duration):
        return "google.protobuf.Duration"
    if isinstance(v, Timestamp):
        return "google.protobuf.Timestamp"
    if isinstance(v, CelType):
        return "type"
    if isinstance(v, Optional):
        return "optional_type"
    return getattr(v, "cel_type", type(v).__name__)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_int(v):
    if v < INT_MIN or v > INT_MAX:
        raise CelError("integer overflow")
    return v


def check_uint(v):
    if v < 0 or v > UINT_MAX:
        raise CelError("unsigned integer overflow")
    return UInt(v)


def num_cmp(a, b):
    """-1/0/1 comparing two numbers of any numeric type (NaN: None).  An int or uint against a
    double compares as a double, as cel-go does (so 2^63-1 equals 2^63 as a double)."""
    if isinstance(a, float) or isinstance(b, float):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return None
        return (fa > fb) - (fa < fb)
    return (a > b) - (a < b)


def equal(a, b):
    """CEL heterogeneous equality: numbers by value across types, otherwise same type and value."""
    if is_num(a) and is_num(b):
        return num_cmp(a, b) == 0
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        lt = getattr(a, "list_type", None) or getattr(b, "list_type", None)
        if lt in ("set", "map"):
            rest = list(b)
            for x in a:
                for j, y in enumerate(rest):
                    if equal(x, y):
                        del rest[j]
                        break
                else:
                    return False
            return True
        return all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if len(a) != len(b):
            return False
        for k, v in a.items():
            found = _map_get(b, k)
            if found is _MISSING or not equal(v, found):
                return False
        return True
    if type_name(a) != type_name(b):
        return False
    return a == b


_MISSING = object()


class BoolKey:
    """A bool map key, kept apart from the int keys 1 and 0 that a Python dict would merge it with."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, o):
        return isinstance(o, BoolKey) and o.value == self.value

    def __hash__(self):
        return hash(("bool key", self.value))

    def __repr__(self):
        return repr(self.value)


_BOOL_KEYS = {True: BoolKey(True), False: BoolKey(False)}


def map_key(k):
    """The dict key for CEL map key `k`."""
    return _BOOL_KEYS[k] if isinstance(k, bool) else k


def key_value(k):
    """The CEL value of dict key `k`."""
    return k.value if isinstance(k, BoolKey) else k


def _map_get(m, k):
    """A map lookup with numeric keys equal across int/uint/double, as cel-spec wants."""
    if isinstance(k, str):
        return m.get(k, _MISSING)
    if isinstance(k, BoolKey):
        k = k.value
    if isinstance(k, bool):
        return m.get(_BOOL_KEYS[k], _MISSING)
    if is_num(k):
        for x, v in m.items():
            if is_num(x) and num_cmp(x, k) == 0:
                return v
    return _MISSING


def map_get(m, k):
    return _map_get(m, k)


MISSING = _MISSING


def fmt_duration(ns):
    """A duration as cel-go prints it: seconds with up to 9 fraction digits and 's'."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    s, frac = divmod(ns, NS)
    if frac:
        return "%s%d.%s" % (sign, s, ("%09d" % frac).rstrip("0")) + "s"
    return "%s%ds" % (sign, s)
