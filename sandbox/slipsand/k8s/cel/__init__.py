"""A Common Expression Language (CEL) evaluator for the sandbox's Kubernetes API server.

`compile(src, variables)` parses and checks an expression (declared
variables, known functions and macros) and returns a Program;
`Program.eval(activation, limit)` evaluates it, raising CelError on a CEL
error and CostExceeded past `limit` cost units.  The language follows
cel-spec; the function set is what kube-apiserver 1.31 offers to
x-kubernetes-validations: the standard library, cel-go's strings (v2), sets
and optional-type extensions, and the Kubernetes libraries (lists, regex,
URLs, quantities, IP/CIDR, named formats).  cel.bind (cel-go's bindings
extension, which 1.31 gives only to DRA's expressions) is there on request.  crd.py applies rules to
custom resources.
"""
from . import k8slib, stdlib  # noqa: F401  (registers the Kubernetes libraries)
from . import parser as P
from . import values
from .interp import TYPE_NAMES, Evaluator
from .values import CelError, CostExceeded  # noqa: F401

PER_CALL_LIMIT = 1000000          # k8s.io/apiserver/pkg/apis/cel PerCallLimit
RUNTIME_BUDGET = 10000000         # RuntimeCELCostBudget: all rules of one object together
NAMESPACES = ("sets", "optional", "strings", "format", "ip", "cel")
SPECIAL = ("_&&_", "_||_", "_?_:_")
QUALIFIED_TYPES = {n for n in TYPE_NAMES if "." in n}  # google.protobuf.Duration, ...Timestamp  # evaluated by the interpreter itself (short-circuiting)


class CompileError(Exception):
    """A compile error; `pos` is the offset of the offending input where known."""

    def __init__(self, msg, pos=None):
        Exception.__init__(self, msg)
        self.pos = pos


def _issue(src, msg, pos):
    """One error as cel-go's Issues print it: `ERROR: <input>:line:column: msg` and the line with a caret."""
    if pos is None or pos < 0:
        return "ERROR: <input>: %s" % msg
    pos = min(pos, len(src))
    line = src.count("\n", 0, pos) + 1
    start = src.rfind("\n", 0, pos) + 1
    end = src.find("\n", pos)
    col = pos - start + 1
    text = src[start:end if end >= 0 else len(src)]
    return "ERROR: <input>:%d:%d: %s\n | %s\n | %s^" % (line, col, msg, text, "." * (col - 1))


class Program:
    __slots__ = ("src", "ast", "uses_old_self")

    def __init__(self, src, ast, uses_old_self):
        self.src, self.ast, self.uses_old_self = src, ast, uses_old_self

    def eval(self, activation, limit=PER_CALL_LIMIT):
        """(value, cost) of the expression; CelError (CostExceeded past `limit`) on error."""
        ev = Evaluator(stdlib.F, activation, limit)
        return ev.eval(self.ast), ev.cost


class _Checker:
    """Names and calls a compiled expression may use (cel-go's checker, minus type inference)."""

    def __init__(self, variables):
        self.vars = set(variables)
        self.used = set()

    def check(self, n, bound=frozenset()):
        t = type(n)
        if t is P.Ident:
            if n.name not in bound and n.name not in self.vars and n.name not in TYPE_NAMES:
                raise CompileError("undeclared reference to '%s' (in container '')" % n.name, n.pos)
            if n.name not in bound:
                self.used.add(n.name)
        elif t is P.Select:
            if not self._namespaced(n, bound):
                self.check(n.operand, bound)
        elif t is P.Call:
            self._call(n, bound)
        elif t is P.ListLit:
            for e in n.elems:
                self.check(e, bound)
        elif t is P.MapLit:
            for k, v, _ in n.entries:
                self.check(k, bound)
                self.check(v, bound)
        elif t is P.StructLit:
            raise CompileError("undeclared reference to '%s' (in container '')" % n.type_name)
        elif t is P.Comprehension:
            self.check(n.range_, bound)
            inner = bound | {n.var}
            for e in (n.pred, n.transform):
                if e is not None:
                    self.check(e, inner)
        elif t is P.Bind:
            self.check(n.init, bound)
            self.check(n.body, bound | {n.var})

    def _namespaced(self, n, bound):
        return isinstance(n.operand, P.Ident) and n.operand.name in NAMESPACES and n.operand.name not in bound \
            and n.operand.name not in self.vars

    def _call(self, n, bound):
        name = n.fn
        if n.target is not None and isinstance(n.target, P.Ident) and n.target.name in NAMESPACES \
                and n.target.name not in bound and n.target.name not in self.vars:
            full = n.target.name + "." + name
            if full not in stdlib.F:  # no such function: cel-go then finds the receiver undeclared
                raise CompileError("undeclared reference to '%s' (in container '')" % n.target.name, n.target.pos)
        else:
            if n.target is not None:  # the receiver first, as cel-go's checker reports
                self.check(n.target, bound)
            if name not in stdlib.F and name not in SPECIAL:
                raise CompileError("undeclared reference to '%s' (in container '')" % name, n.pos)
        for a in n.args:
            self.check(a, bound)


def _candidates(name, container):
    """The names `name` may stand for inside `container`, most qualified first (cel-spec name resolution)."""
    if name.startswith("."):
        return [name[1:]]
    out = []
    parts = container.split(".") if container else []
    for i in range(len(parts), 0, -1):
        out.append(".".join(parts[:i]) + "." + name)
    out.append(name)
    return out


def _path(n):
    """['a', 'b', 'c'] for the selection chain a.b.c on an identifier, else None."""
    parts = []
    while type(n) is P.Select and not n.test_only and not n.optional:
        parts.append(n.field)
        n = n.operand
    if type(n) is not P.Ident:
        return None
    parts.append(n.name)
    return parts[::-1]


def _root(n):
    while type(n) is P.Select:
        n = n.operand
    return n


def _qualify(n, names, container, bound=frozenset()):
    """The AST with each dotted variable name (`a.b.c` declared as one name) and each name of the
    container resolved to the variable it denotes: the longest declared prefix wins."""
    t = type(n)
    if t is P.Ident or (t is P.Select and not n.test_only and not n.optional):
        parts = _path(n)
        if parts is not None and parts[0] not in bound:
            for k in range(len(parts), 0, -1):
                for cand in _candidates(".".join(parts[:k]), container):
                    if cand in names:
                        e = P.Ident(cand, _root(n).pos)
                        for f in parts[k:]:
                            e = P.Select(e, f)
                        return e
            if t is P.Ident:
                return n
    if t is P.Select:
        n.operand = _qualify(n.operand, names, container, bound)
    elif t is P.Call:
        if n.target is not None:
            n.target = _qualify(n.target, names, container, bound)
        n.args = [_qualify(a, names, container, bound) for a in n.args]
    elif t is P.ListLit:
        n.elems = [_qualify(e, names, container, bound) for e in n.elems]
    elif t is P.MapLit:
        n.entries = [(_qualify(k, names, container, bound), _qualify(v, names, container, bound), o)
                     for k, v, o in n.entries]
    elif t is P.Comprehension:
        n.range_ = _qualify(n.range_, names, container, bound)
        inner = bound | {n.var}
        n.pred = n.pred and _qualify(n.pred, names, container, inner)
        n.transform = n.transform and _qualify(n.transform, names, container, inner)
    elif t is P.Bind:
        n.init = _qualify(n.init, names, container, bound)
        n.body = _qualify(n.body, names, container, bound | {n.var})
    return n


_cache = {}


def compile(src, variables=("self", "oldSelf"), container="", check=True, bindings=False):  # noqa: A001
    """A checked Program for `src`; CompileError with cel-go's wording otherwise.  With
    check=False, names are left to evaluation (an unknown one is an evaluation error).
    `bindings` enables cel.bind, which kube-apiserver 1.31's base environment does not have
    (k8s.io/apiserver/pkg/cel/environment/base.go); rules of a CRD compile without it."""
    key = (src, tuple(variables), container, check, bindings)
    hit = _cache.get(key)
    if hit is not None:
        if isinstance(hit, CompileError):
            raise hit
        return hit
    if len(_cache) > 5000:
        _cache.clear()
    try:
        ast = P.parse(src, values, bindings)
        ast = _qualify(ast, set(variables) | QUALIFIED_TYPES, container)
        ch = _Checker(variables)
        if check:
            ch.check(ast)
        prog = Program(src, ast, "oldSelf" in ch.used or (not check and "oldSelf" in src))
    except (P.ParseError, CompileError) as e:
        err = CompileError(_issue(src, e, e.pos))
        _cache[key] = err
        raise err
    _cache[key] = prog
    return prog


def evaluate(src, activation=None, limit=PER_CALL_LIMIT, bindings=False):
    """The value of `src` over `activation` (a name -> value dict): for tests and tools."""
    activation = activation or {}
    return compile(src, tuple(activation), bindings=bindings).eval(activation, limit)[0]
