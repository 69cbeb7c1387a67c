"""CEL evaluation: walks the parser's AST over an activation, with a runtime cost budget.

Errors are Python exceptions (values.CelError); `&&`, `||`, `?:` and the
all/exists macros absorb an error when the other operand decides the result
(the commutative logical operators of cel-spec).  Cost is approximate: one
unit per identifier, selection, call and comprehension step, plus a
length-proportional share for string, bytes and list work (as cel-go's
actual-cost tracking charges traversal of strings and lists).
"""
from . import parser as P
from .values import (CelError, CostExceeded, CelType, MISSING, NONE, Optional, key_value, map_get, map_key,
                     type_name)

TYPE_NAMES = ("int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type",
              "google.protobuf.Duration", "google.protobuf.Timestamp", "optional_type")


class Lazy:
    """A cel.bind variable: evaluated on first use."""
    __slots__ = ("node", "scope", "done", "value", "err")

    def __init__(self, node, scope):
        self.node, self.scope, self.done, self.value, self.err = node, scope, False, None, None


class Scope:
    __slots__ = ("name", "value", "parent")

    def __init__(self, name, value, parent):
        self.name, self.value, self.parent = name, value, parent


class Evaluator:
    def __init__(self, functions, variables, limit):
        self.fns = functions   # name -> callable(ev, argv) -> value; argv starts with the receiver
        self.vars = variables  # top-level activation
        self.limit = limit
        self.cost = 0

    def charge(self, n=1):
        self.cost += n
        if self.limit is not None and self.cost > self.limit:
            raise CostExceeded()

    def lookup(self, name, scope):
        s = scope
        while s is not None:
            if s.name == name:
                v = s.value
                if isinstance(v, Lazy):
                    if not v.done:
                        try:
                            v.value = self.eval(v.node, v.scope)
                        except CelError as e:
                            v.err = e
                        v.done = True
                    if v.err is not None:
                        raise v.err
                    return v.value
                return v
            s = s.parent
        if name in self.vars:
            return self.vars[name]
        if name in TYPE_NAMES:
            return CelType(name)
        raise CelError("no such attribute: %s" % name)

    def eval(self, n, scope=None):
        t = type(n)
        if t is P.Lit:
            return n.value
        if t is P.Ident:
            self.charge()
            return self.lookup(n.name, scope)
        if t is P.Select:
            return self._select(n, scope)
        if t is P.Call:
            return self._call(n, scope)
        if t is P.ListLit:
            self.charge(1 + len(n.elems))
            out = []
            for i, e in enumerate(n.elems):
                v = self.eval(e, scope)
                if i in n.optional:
                    if not isinstance(v, Optional):
                        raise CelError("no such overload: optional element of type %s" % type_name(v))
                    if v.present:
                        out.append(v.value)
                else:
                    out.append(v)
            return out
        if t is P.MapLit:
            return self._map(n, scope)
        if t is P.Comprehension:
            return self._comprehension(n, scope)
        if t is P.Bind:
            return self.eval(n.body, Scope(n.var, Lazy(n.init, scope), scope))
        if t is P.StructLit:
            raise CelError("unknown type: %s" % n.type_name)
        raise CelError("unsupported expression")

    def _map(self, n, scope):
        self.charge(1 + len(n.entries))
        out = {}
        for k, v, opt in n.entries:
            kv = self.eval(k, scope)
            if type_name(kv) not in ("int", "uint", "bool", "string"):
                raise CelError("unsupported key type: %s" % type_name(kv))
            vv = self.eval(v, scope)
            if map_get(out, kv) is not MISSING:
                raise CelError("Failed with repeated key")
            if opt:
                if not isinstance(vv, Optional):
                    raise CelError("no such overload: optional map entry of type %s" % type_name(vv))
                if not vv.present:
                    continue
                vv = vv.value
            out[map_key(kv)] = vv
        return out

    def _select(self, n, scope):
        self.charge()
        v = self.eval(n.operand, scope)
        if n.optional or isinstance(v, Optional):
            if not isinstance(v, Optional):
                v = Optional(v, True)
            if not v.present:
                return False if n.test_only else NONE
            inner = v.value
            if not isinstance(inner, dict):
                raise CelError("no such overload: optional field selection on %s" % type_name(inner))
            got = inner.get(n.field, MISSING)
            if n.test_only:
                return got is not MISSING
            return NONE if got is MISSING else Optional(got, True)
        if isinstance(v, dict):
            got = v.get(n.field, MISSING)
            if n.test_only:
                return got is not MISSING
            if got is MISSING:
                raise CelError("no such key: %s" % n.field)
            return got
        hook = getattr(v, "cel_field", None)
        if hook is not None:
            return hook(n.field, n.test_only)
        if n.test_only:
            raise CelError("no such overload: has() on %s" % type_name(v))
        raise CelError("type '%s' does not support field selection" % type_name(v))

    def _call(self, n, scope):
        fn = n.fn
        if fn == "_&&_" or fn == "_||_":
            self.charge()
            want = fn == "_||_"  # the value that decides
            err = None
            for a in n.args:
                try:
                    v = self.eval(a, scope)
                except CelError as e:
                    if isinstance(e, CostExceeded):
                        raise
                    err = err or e
                    continue
                if not isinstance(v, bool):
                    err = err or CelError("no such overload: %s(%s)" % (fn, type_name(v)))
                    continue
                if v is want:
                    return want
            if err is not None:
                raise err
            return not want
        if fn == "_?_:_":
            self.charge()
            c = self.eval(n.args[0], scope)
            if not isinstance(c, bool):
                raise CelError("no such overload: _?_:_(%s)" % type_name(c))
            return self.eval(n.args[1] if c else n.args[2], scope)
        if n.target is not None and isinstance(n.target, P.Ident) and scope_free(n.target.name, scope, self) \
                and (n.target.name + "." + fn) in self.fns:
            # a namespaced global such as sets.contains or optional.of
            args = [self.eval(a, scope) for a in n.args]
            self.charge()
            return self.fns[n.target.name + "." + fn](self, args)
        target = self.eval(n.target, scope) if n.target is not None else None
        args = [self.eval(a, scope) for a in n.args]
        self.charge()
        f = self.fns.get(fn)
        if f is None:
            raise CelError("no such overload: %s" % fn)
        return f(self, [target] + args if n.target is not None else args)

    def _comprehension(self, n, scope):
        self.charge()
        rng = self.eval(n.range_, scope)
        if n.kind in ("optMap", "optFlatMap"):
            return self._opt_map(n, rng, scope)
        if isinstance(rng, dict):
            items = [key_value(k) for k in rng]
        elif isinstance(rng, list):
            items = rng
        else:
            raise CelError("no such overload: %s over %s" % (n.kind, type_name(rng)))
        kind = n.kind
        err = None
        count = 0
        out = []
        for x in items:
            self.charge()
            s = Scope(n.var, x, scope)
            if kind in ("all", "exists"):
                try:
                    v = self.eval(n.pred, s)
                except CelError as e:
                    if isinstance(e, CostExceeded):
                        raise
                    err = err or e
                    continue
                if not isinstance(v, bool):
                    err = err or CelError("no such overload: %s predicate of type %s" % (kind, type_name(v)))
                    continue
                if kind == "all" and not v:
                    return False
                if kind == "exists" and v:
                    return True
            elif kind == "exists_one":
                v = self.eval(n.pred, s)
                if not isinstance(v, bool):
                    raise CelError("no such overload: exists_one predicate of type %s" % type_name(v))
                count += v
            elif kind == "filter":
                v = self.eval(n.pred, s)
                if not isinstance(v, bool):
                    raise CelError("no such overload: filter predicate of type %s" % type_name(v))
                if v:
                    out.append(x)
            else:  # map
                if n.pred is not None:
                    v = self.eval(n.pred, s)
                    if not isinstance(v, bool):
                        raise CelError("no such overload: map filter of type %s" % type_name(v))
                    if not v:
                        continue
                out.append(self.eval(n.transform, s))
        if kind in ("all", "exists"):
            if err is not None:
                raise err
            return kind == "all"
        if kind == "exists_one":
            return count == 1
        return out


    def _opt_map(self, n, opt, scope):
        """optional.optMap(x, e) and optFlatMap(x, e): `e` over the value, when there is one."""
        if not isinstance(opt, Optional):
            raise CelError("no such overload: %s on %s" % (n.kind, type_name(opt)))
        if not opt.present:
            return NONE
        v = self.eval(n.transform, Scope(n.var, opt.value, scope))
        if n.kind == "optMap":
            return Optional(v, True)
        if not isinstance(v, Optional):
            raise CelError("no such overload: optFlatMap result of type %s" % type_name(v))
        return v


def scope_free(name, scope, ev):
    """True when `name` is not a variable, so `name.fn(...)` is a namespaced function call."""
    s = scope
    while s is not None:
        if s.name == name:
            return False
        s = s.parent
    return name not in ev.vars
