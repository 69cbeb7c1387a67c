#!/usr/bin/python3
"""The sandbox's CEL evaluator follows cel-spec and the Kubernetes CEL libraries.

A table of (expression, expected value) or (expression, error text) cases
per area: literals and types, int64/uint64 overflow, doubles, strings and
bytes, lists and maps, `in`, the ternary, commutative `&&`/`||` error
absorption, macros (has, all, exists, exists_one, map, filter; cel.bind is not
in kube-apiserver 1.31's environment for CRD rules),
conversions, durations and timestamps, the strings extension, optional
types, and the Kubernetes libraries (lists, regex, URLs, quantities,
IP/CIDR, named formats); compile errors; the runtime cost limit."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402

SRC = os.environ.get("SW_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import cel  # noqa: E402
from slipsand.k8s.cel.values import UInt  # noqa: E402

t = T()
ERR = object()

CASES = [
    # literals, types, equality
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("0x1F", 31), ("7u", UInt(7)), ("1.5e2", 150.0), (".5", 0.5),
    ("'a' + \"b\"", "ab"), ("r'\\n'", "\\n"), ("'\\x41\\u00e9'", "A\u00e9"), ("'''x\ny'''", "x\ny"),
    ("b'ab' + b'c'", b"abc"), ("size(b'\\xff')", 1), ("null == null", True), ("true != false", True),
    ("type(1) == int && type(1u) == uint && type(1.0) == double", True),
    ("type('') == string && type(b'') == bytes && type(null) == null_type", True),
    ("type([]) == list && type({}) == map && type(int) == type", True),
    ("1 == 1.0 && 1u == 1 && 2.0 == 2u", True), ("1 == 'a'", False), ("[1, 2] == [1, 2.0]", True),
    ("{'a': 1} == {'a': 1.0}", True), ("[1] == [1, 2]", False), ("1 < 1.5 && 2u > 1 && 3.0 >= 3", True),
    ("'abc' < 'abd' && b'a' < b'b' && false < true", True),
    # int64 / uint64 overflow, division
    ("9223372036854775807 + 1", (ERR, "overflow")), ("-9223372036854775808 - 1", (ERR, "overflow")),
    ("-9223372036854775808", -9223372036854775808), ("-(-9223372036854775807 - 1)", (ERR, "overflow")),
    ("4611686018427387904 * 2", (ERR, "overflow")), ("18446744073709551615u + 1u", (ERR, "overflow")),
    ("0u - 1u", (ERR, "overflow")), ("-7 / 2", -3), ("-7 % 2", -1), ("7 % -2", 1), ("1 / 0", (ERR, "division by zero")),
    ("1 % 0", (ERR, "modulus by zero")), ("1 + 1u", (ERR, "no such overload")), ("1 + 1.0", (ERR, "no such overload")),
    ("1.0 / 0.0 > 1e308", True), ("-1.0 / 0.0 < 0.0", True), ("0.0 / 0.0 == 0.0 / 0.0", False),
    ("-(5)", -5), ("!!true", True), ("--5", 5),
    # strings
    ("'hello'.size() == 5 && size('héllo') == 5", True), ("'abc'.contains('b')", True),
    ("'abc'.startsWith('ab') && 'abc'.endsWith('bc')", True), ("'abc'.matches('^a.c$')", True),
    ("matches('xyz', 'y')", True), ("'a1'.matches('\\\\d')", True), ("'AbC'.lowerAscii()", "abc"),
    ("'AbC'.upperAscii()", "ABC"), ("'a,b,c'.split(',')", ["a", "b", "c"]), ("'a,b,c'.split(',', 2)", ["a", "b,c"]),
    ("['a', 'b'].join('-')", "a-b"), ("['a', 'b'].join()", "ab"), ("'hello'.indexOf('l')", 2),
    ("'hello'.lastIndexOf('l')", 3), ("'hello'.indexOf('z')", -1), ("'hello'.replace('l', 'L')", "heLLo"),
    ("'hello'.replace('l', 'L', 1)", "heLlo"), ("'hello'.substring(1, 3)", "el"), ("'hello'.substring(2)", "llo"),
    ("'hello'.substring(4, 2)", (ERR, "invalid substring range")), ("'hello'.substring(9)", (ERR, "index out of range")),
    ("'  x \\t'.trim()", "x"), ("'hello'.charAt(1)", "e"), ("'%s is %d'.format(['x', 3])", "x is 3"),
    ("'%.2f'.format([1.005])", "1.00"), ("strings.quote('a\"b')", "\"a\\\"b\""), ("'a' < 1", (ERR, "no such overload")),
    # lists and maps, in, index
    ("[1, 2, 3][1]", 2), ("[1, 2][2]", (ERR, "index out of bounds")), ("{'a': 1}['a']", 1),
    ("{'a': 1}['b']", (ERR, "no such key")), ("{'a': 1}.b", (ERR, "no such key: b")), ("2 in [1, 2]", True),
    ("'a' in {'a': 1}", True), ("3 in [1, 2]", False), ("1.0 in [1]", True), ("{1: 'x'}[1u]", "x"),
    ("[1] + [2]", [1, 2]), ("size({'a': 1, 'b': 2})", 2), ("{'a': 1, 'a': 2}", (ERR, "repeated key")),
    ("{[1]: 2}", (ERR, "unsupported key type")),
    # logic: short-circuit and commutative error absorption, ternary
    ("false && (1 / 0 > 0)", False), ("(1 / 0 > 0) && false", False), ("true || (1 / 0 > 0)", True),
    ("(1 / 0 > 0) || true", True), ("(1 / 0 > 0) && true", (ERR, "division by zero")),
    ("(1 / 0 > 0) || false", (ERR, "division by zero")), ("true ? 'y' : 1 / 0", "y"),
    ("false ? 1 / 0 : 'n'", "n"), ("1 ? 2 : 3", (ERR, "no such overload")), ("1 && true", (ERR, "no such overload")),
    # macros
    ("has({'a': 1}.a) && !has({'a': 1}.b)", True), ("[1, 2, 3].all(x, x > 0)", True),
    ("[1, 2, 3].all(x, x > 1)", False), ("[1, 2, 3].exists(x, x == 2)", True), ("[].exists(x, true)", False),
    ("[].all(x, false)", True), ("[1, 2, 3].exists_one(x, x > 2)", True), ("[1, 2, 3].exists_one(x, x > 1)", False),
    ("[1, 2, 3].map(x, x * 2)", [2, 4, 6]), ("[1, 2, 3].map(x, x > 1, x * 10)", [20, 30]),
    ("[1, 2, 3].filter(x, x % 2 == 1)", [1, 3]), ("{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])", True),
    ("{'a': 1, 'b': 2}.map(k, k)", ["a", "b"]), ("[0, 1].all(x, 1 / x > 0)", (ERR, "division by zero")), ("[0, -1].all(x, 1 / x > 0)", False),
    ("[1, 0].exists(x, 1 / x == 1)", True), ("[0, 2].exists(x, 1 / x == 1)", (ERR, "division by zero")),
    ("[1, 2].all(x, [3, 4].exists(y, y > x))", True), ("cel.bind(a, 'x' + 'y', a + a)", (ERR, "compile: ERROR: <input>:1:1: undeclared reference to 'cel'")),
    ("[[1], [2, 3]].map(l, size(l))", [1, 2]),
    # conversions
    ("int('42')", 42), ("int('-7')", -7), ("int('4x')", (ERR, "invalid syntax")), ("int(3.9)", 3),
    ("int(-3.9)", -3), ("int(1e19)", (ERR, "range")), ("int(18446744073709551615u)", (ERR, "range")),
    ("uint(3)", UInt(3)), ("uint(-1)", (ERR, "range")), ("double(2)", 2.0), ("double('1.5')", 1.5),
    ("string(12)", "12"), ("string(1.5)", "1.5"), ("string(true)", "true"), ("string(b'ab')", "ab"),
    ("string(7u)", "7"), ("bytes('ab')", b"ab"), ("bool('true')", True), ("bool('yes')", (ERR, "invalid syntax")),
    ("dyn(1) == 1", True), ("int(timestamp('1970-01-01T00:01:00Z'))", 60),
    # durations and timestamps
    ("duration('1h30m') == duration('90m')", True), ("string(duration('1m1.5s'))", "61.5s"),
    ("duration('1h').getMinutes()", 60), ("duration('-1.5s').getMilliseconds()", -500),
    ("duration('x')", (ERR, "invalid duration")),
    ("timestamp('2024-02-29T12:00:00Z') + duration('24h') == timestamp('2024-03-01T12:00:00Z')", True),
    ("timestamp('2024-03-01T00:00:00Z') - timestamp('2024-02-28T00:00:00Z') == duration('48h')", True),
    ("timestamp('2024-02-29T12:34:56.789Z').getFullYear()", 2024), ("timestamp('2024-02-29T12:00:00Z').getMonth()", 1),
    ("timestamp('2024-02-29T12:00:00Z').getDayOfMonth()", 28), ("timestamp('2024-02-29T12:00:00Z').getDate()", 29),
    ("timestamp('2024-02-29T12:00:00Z').getDayOfWeek()", 4), ("timestamp('2024-02-29T12:00:00Z').getDayOfYear()", 59),
    ("timestamp('2024-02-29T23:30:00Z').getHours('+02:00')", 1),
    ("timestamp('2024-02-29T12:34:56.789Z').getMilliseconds()", 789),
    ("string(timestamp('2024-02-29T12:00:00+01:00'))", "2024-02-29T11:00:00Z"),
    ("timestamp('2024-13-01T00:00:00Z')", (ERR, "timestamp")), ("timestamp('2024-01-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')", True),
    # sets and optional types
    ("sets.contains([1, 2, 3], [3, 1])", True), ("sets.equivalent([1, 2], [2, 1, 1])", True),
    ("sets.intersects([1], [2])", False), ("optional.of(1).hasValue()", True), ("optional.none().hasValue()", False),
    ("optional.none().orValue(5)", 5), ("optional.ofNonZeroValue('').hasValue()", False),
    ("{'a': 1}.?a.value()", 1), ("{'a': 1}.?b.hasValue()", False), ("{'a': {'b': 2}}.?a.?b.orValue(0)", 2),
    ("[1, 2][?5].orValue(-1)", -1), ("[?optional.none(), ?optional.of(3)]", [3]),
    ("optional.none().value()", (ERR, "dereference")), ("optional.none().or(optional.of(2)).value()", 2),
    # Kubernetes lists library
    ("[1, 2, 2, 3].isSorted()", True), ("['b', 'a'].isSorted()", False), ("[1, 2, 3].sum()", 6),
    ("[1.5, 2.5].sum()", 4.0), ("[].sum()", 0), ("[3, 1, 2].min()", 1), ("[3, 1, 2].max()", 3),
    ("[].max()", (ERR, "empty list")), ("[1, 2, 1].indexOf(1)", 0), ("[1, 2, 1].lastIndexOf(1)", 2),
    ("[1, 2].indexOf(5)", -1),
    # regex library
    ("'abc 123'.find('[0-9]+')", "123"), ("'abc'.find('[0-9]+')", ""), ("'a1b22c333'.findAll('[0-9]+')", ["1", "22", "333"]),
    ("'a1b22c333'.findAll('[0-9]+', 2)", ["1", "22"]), ("'x'.matches('(')", (ERR, "error parsing regexp")),
    # URL library
    ("isURL('https://example.com:80/a?x=1')", True), ("isURL('example.com')", False), ("isURL('/abs/path')", True),
    ("url('https://example.com:8080/p').getScheme()", "https"), ("url('https://example.com:8080/p').getHost()", "example.com:8080"),
    ("url('https://[::1]:80/').getHostname()", "::1"), ("url('https://example.com/p').getPort()", ""),
    ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
    ("url('https://e.com/?a=1&a=2&b=').getQuery()", {"a": ["1", "2"], "b": [""]}),
    ("url('not a url')", (ERR, "URL parse error")),
    # quantity library
    ("isQuantity('1.5Gi') && isQuantity('100m') && isQuantity('1e3')", True), ("isQuantity('1.5.5')", False),
    ("quantity('1Gi').isGreaterThan(quantity('1G'))", True), ("quantity('500m').isLessThan(quantity('1'))", True),
    ("quantity('1k').compareTo(quantity('1000'))", 0), ("quantity('2Ki').asInteger()", 2048),
    ("quantity('1.5').isInteger()", False), ("quantity('1.5').asInteger()", (ERR, "cannot convert")),
    ("quantity('500m').asApproximateFloat()", 0.5), ("quantity('-3').sign()", -1),
    ("quantity('1').add(quantity('500m')) == quantity('1500m')", True), ("quantity('2').sub(1).asInteger()", 1),
    ("quantity('1000m') == quantity('1')", True), ("quantity('x')", (ERR, "quantities must match")),
    # IP and CIDR libraries
    ("isIP('10.0.0.1') && isIP('fd00::1')", True), ("isIP('10.0.0.01')", False), ("isIP('::ffff:1.2.3.4')", False),
    ("ip('10.0.0.1').family()", 4), ("ip('::1').isLoopback()", True), ("ip('0.0.0.0').isUnspecified()", True),
    ("ip('169.254.1.1').isLinkLocalUnicast()", True), ("ip('224.0.0.1').isLinkLocalMulticast()", True),
    ("ip('10.1.1.1').isGlobalUnicast()", True), ("ip.isCanonical('2001:db8::1')", True),
    ("ip.isCanonical('2001:DB8::1')", False), ("string(ip('10.0.0.1'))", "10.0.0.1"),
    ("cidr('10.0.0.0/8').containsIP('10.2.3.4')", True), ("cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", False),
    ("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", True), ("cidr('10.0.0.0/16').containsCIDR('10.0.0.0/8')", False),
    ("cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", True), ("cidr('10.0.0.0/8').prefixLength()", 8),
    ("cidr('10.1.2.3/8').ip() == ip('10.1.2.3')", True), ("isCIDR('10.0.0.0/33')", False),
    ("ip('nope')", (ERR, "parse error")),
    # named formats
    ("format.named('dns1123Label').hasValue()", True), ("format.named('nope').hasValue()", False),
    ("format.dns1123Label().validate('my-name').hasValue()", False),
    ("format.dns1123Label().validate('My_Name').hasValue()", True),
    ("format.dns1123Subdomain().validate('a.b.c').hasValue()", False),
    ("format.dns1035Label().validate('1abc').hasValue()", True), ("format.labelValue().validate('').hasValue()", False),
    ("format.qualifiedName().validate('example.com/Name').hasValue()", False),
    ("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", False),
    ("format.named('dns1123Label').value().validate('x' * 2).hasValue()", (ERR, "no such overload")),
]

for expr, want in CASES:
    try:
        got = cel.evaluate(expr)
    except cel.CompileError as e:
        got = (ERR, "compile: %s" % e)
    except cel.CelError as e:
        got = (ERR, str(e))
    if isinstance(want, tuple) and want and want[0] is ERR:
        t.ok(isinstance(got, tuple) and got and got[0] is ERR and want[1] in got[1],
             "%r -> error containing %r (got %r)" % (expr, want[1], got if not isinstance(got, tuple) else got[1]))
    else:
        same = got == want and type(got) is type(want)
        if isinstance(want, list) and isinstance(got, list):
            same = list(got) == want and all(type(a) is type(b) for a, b in zip(got, want))
        t.ok(same, "%r == %r (got %r)" % (expr, want, got))

# compile errors (kube-apiserver refuses these when the CRD is written)
for expr, frag in (("self.a +", "Syntax error"), ("foo(self)", "undeclared reference to 'foo'"),
                   ("x == 1", "undeclared reference to 'x'"), ("self.all(1, true)", "simple name"),
                   ("has(self)", "has() macro"), ("'abc", "token recognition"), ("if == 1", "reserved"),
                   ("self.`a-b` == 1", "token recognition error at: '`'")):
    try:
        cel.compile(expr)
        t.ok(False, "%r does not compile" % expr)
    except cel.CompileError as e:
        t.ok(frag in str(e), "%r does not compile: %s" % (expr, e))

prog = cel.compile("self.x > 0 && has(oldSelf.y)")
t.ok(prog.uses_old_self, "a rule naming oldSelf is a transition rule")
t.ok(not cel.compile("self.all(x, x > 0)").uses_old_self, "a rule without oldSelf is not")

# the runtime cost limit: a per-call budget, as the apiserver's PerCallLimit
big = {"self": list(range(2000))}
try:
    cel.compile("self.all(x, self.all(y, x + y >= 0))").eval(big, cel.PER_CALL_LIMIT)
    t.ok(False, "a quadratic rule over 2000 items exceeds the per-call cost limit")
except cel.CostExceeded as e:
    t.ok("actual cost limit exceeded" in str(e), "a quadratic rule over 2000 items exceeds the cost limit: %s" % e)
val, cost = cel.compile("self.all(x, x >= 0)").eval(big, cel.PER_CALL_LIMIT)
t.ok(val is True and 2000 <= cost < 20000, "a linear rule over 2000 items costs %d, within the limit" % cost)
t.done()
