"""CEL lexer and parser: source text to an AST of plain node objects.

Follows the cel-spec grammar (langdef.md) as cel-go 0.20.1 (kube-apiserver
1.31's) parses it: conditional, logical, relational, additive,
multiplicative, unary and member expressions, list/map literals, message
construction, optional selection (`a.?b`, `a[?k]`, `[?x]`), and the macros
(has, all, exists, exists_one, map, filter, optMap, optFlatMap, and cel.bind
where the bindings extension is on), which are expanded here into
Has/Comprehension/Bind nodes.  Backquoted field names came with cel-go 0.22:
a backquote is a token recognition error.
"""
import re

RESERVED = {"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
            "loop", "package", "namespace", "return", "var", "void", "while"}
MAX_DEPTH = 250  # nesting limit, as cel-go's parser recursion limit


class ParseError(Exception):
    """A syntax error; `pos` is the offset of the offending input where known."""

    def __init__(self, msg, pos=None):
        Exception.__init__(self, msg)
        self.pos = pos


# --- AST ---------------------------------------------------------------------------
class Node:
    __slots__ = ()


class Lit(Node):
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Ident(Node):
    __slots__ = ("name", "pos")

    def __init__(self, name, pos=-1):
        self.name, self.pos = name, pos


class Select(Node):
    __slots__ = ("operand", "field", "test_only", "optional")

    def __init__(self, operand, field, test_only=False, optional=False):
        self.operand, self.field, self.test_only, self.optional = operand, field, test_only, optional


class Call(Node):
    __slots__ = ("fn", "target", "args", "pos")

    def __init__(self, fn, target, args, pos=-1):
        self.fn, self.target, self.args, self.pos = fn, target, args, pos


class ListLit(Node):
    __slots__ = ("elems", "optional")

    def __init__(self, elems, optional):
        self.elems, self.optional = elems, optional


class MapLit(Node):
    __slots__ = ("entries",)  # (key, value, optional)

    def __init__(self, entries):
        self.entries = entries


class StructLit(Node):
    __slots__ = ("type_name", "fields")

    def __init__(self, type_name, fields):
        self.type_name, self.fields = type_name, fields


class Comprehension(Node):
    """A macro: kind in all/exists/exists_one/map/filter over `range_`, or optMap/optFlatMap over an
    optional."""
    __slots__ = ("kind", "range_", "var", "pred", "transform")

    def __init__(self, kind, range_, var, pred, transform=None):
        self.kind, self.range_, self.var, self.pred, self.transform = kind, range_, var, pred, transform


class Bind(Node):
    __slots__ = ("var", "init", "body")

    def __init__(self, var, init, body):
        self.var, self.init, self.body = var, init, body


# --- lexer -------------------------------------------------------------------------
_TOKEN = re.compile(r"""
  (?P<ws>[ \t\r\n\f]+|//[^\n]*)
| (?P<float>(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?))
| (?P<hex>0[xX][0-9a-fA-F]+[uU]?)
| (?P<int>[0-9]+[uU]?)
| (?P<str>(?:[rR][bB]?|[bB][rR]?)?(?:'''|\"\"\"|'|\"))
| (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
| (?P<op>\.\?|\[\?|==|!=|<=|>=|&&|\|\||[-+*/%!<>?:.,\[\](){}])
""", re.X)

_ESC = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
        "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}


def _string(src, pos, prefix, quote):
    """Read a string literal body starting after the opening quote; (value, new pos)."""
    raw = "r" in prefix.lower()
    is_bytes = "b" in prefix.lower()
    out = []
    i = pos
    n = len(src)
    while True:
        if i >= n:
            raise ParseError("Syntax error: token recognition error at: '%s'" % src[pos - len(quote):][:20],
                             pos - len(quote))
        if src.startswith(quote, i):
            i += len(quote)
            break
        ch = src[i]
        if ch == "\n" and len(quote) == 1:
            raise ParseError("Syntax error: token recognition error: newline in string literal", i)
        if ch == "\\" and not raw:
            i += 1
            if i >= n:
                raise ParseError("Syntax error: unterminated escape")
            e = src[i]
            if e in _ESC:
                out.append(_ESC[e])
                i += 1
            elif e in "xX":
                out.append(_code(src[i + 1:i + 3], 2, is_bytes))
                i += 3
            elif e == "u" and not is_bytes:
                out.append(_code(src[i + 1:i + 5], 4, False))
                i += 5
            elif e == "U" and not is_bytes:
                out.append(_code(src[i + 1:i + 9], 8, False))
                i += 9
            elif e in "0123":
                digits = src[i:i + 3]
                if not re.fullmatch(r"[0-3][0-7][0-7]", digits):
                    raise ParseError("Syntax error: invalid octal escape")
                v = int(digits, 8)
                out.append(chr(v) if not is_bytes else ("\x00", v))
                i += 3
            else:
                raise ParseError("Syntax error: invalid escape sequence '\\%s'" % e)
        else:
            out.append(ch)
            i += 1
    if is_bytes:
        b = bytearray()
        for p in out:
            if isinstance(p, tuple):
                b.append(p[1])
            else:
                b.extend(p.encode("utf-8"))
        return bytes(b), i
    return "".join(p if not isinstance(p, tuple) else chr(p[1]) for p in out), i


def _code(digits, width, is_bytes):
    if len(digits) != width or not re.fullmatch(r"[0-9a-fA-F]+", digits):
        raise ParseError("Syntax error: invalid escape sequence")
    v = int(digits, 16)
    if is_bytes:
        return ("\x00", v)
    if 0xD800 <= v <= 0xDFFF or v > 0x10FFFF:
        raise ParseError("Syntax error: invalid unicode code point")
    return chr(v)


def tokenize(src):
    toks = []
    i, n = 0, len(src)
    while i < n:
        m = _TOKEN.match(src, i)
        if not m:
            raise ParseError("Syntax error: token recognition error at: '%s'" % src[i], i)
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "ws":
            i = m.end()
            continue
        if kind == "str":
            quote = text.lstrip("rRbB")
            prefix = text[:len(text) - len(quote)]
            val, i = _string(src, m.end(), prefix, quote)
            toks.append(("lit", val, m.start()))
            continue
        i = m.end()
        if kind == "float":
            toks.append(("lit", float(text), m.start()))
        elif kind in ("int", "hex"):
            unsigned = text[-1] in "uU"
            body = text[:-1] if unsigned else text
            v = int(body, 16) if kind == "hex" else int(body)
            toks.append(("uint" if unsigned else "int", v, m.start()))
        elif kind == "ident":
            toks.append(("ident", text, m.start()))
        elif text == "[?" and not (toks and (toks[-1][0] != "op" or toks[-1][1] in (")", "]", "}"))):
            # `[?x` opening a list literal: a list with an optional first element
            toks.append(("op", "[", m.start()))
            toks.append(("op", "?", m.start() + 1))
        else:
            toks.append(("op", text, m.start()))
    toks.append(("eof", None, n))
    return toks


# --- parser ------------------------------------------------------------------------
class Parser:
    def __init__(self, src, values, bindings=False):
        self.bindings = bindings  # the cel.bind macro (cel-go's bindings extension) is enabled
        self.toks = tokenize(src)
        self.i = 0
        self.depth = 0
        self.values = values  # module providing Int/UInt constructors

    def peek(self, k=0):
        return self.toks[self.i + k]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, op):
        t = self.toks[self.i]
        if t[0] == "op" and t[1] == op:
            self.i += 1
            return True
        return False

    def expect(self, op):
        if not self.accept(op):
            t = self.peek()
            raise ParseError("Syntax error: mismatched input '%s' expecting '%s'" % (
                t[1] if t[0] != "eof" else "<EOF>", op), t[2])

    def parse(self):
        try:
            e = self.expr()
        except ParseError as err:
            if err.pos is None:  # the token the parser stood at
                err.pos = self.toks[min(self.i, len(self.toks) - 1)][2]
            raise
        t = self.peek()
        if t[0] != "eof":
            raise ParseError("Syntax error: extraneous input '%s' expecting <EOF>" % (t[1],), t[2])
        return e

    def expr(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError("expression recursion limit exceeded: %d" % MAX_DEPTH)
        c = self.or_()
        if self.accept("?"):
            a = self.or_()
            self.expect(":")
            b = self.expr()
            c = Call("_?_:_", None, [c, a, b])
        self.depth -= 1
        return c

    def or_(self):
        e = self.and_()
        while self.accept("||"):
            e = Call("_||_", None, [e, self.and_()])
        return e

    def and_(self):
        e = self.rel()
        while self.accept("&&"):
            e = Call("_&&_", None, [e, self.rel()])
        return e

    _REL = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_"}

    def rel(self):
        e = self.add()
        while True:
            t = self.peek()
            if t[0] == "op" and t[1] in self._REL:
                self.i += 1
                e = Call(self._REL[t[1]], None, [e, self.add()])
            elif t[0] == "ident" and t[1] == "in":
                self.i += 1
                e = Call("@in", None, [e, self.add()])
            else:
                return e

    def add(self):
        e = self.mul()
        while True:
            t = self.peek()
            if t[0] == "op" and t[1] in "+-" and len(t[1]) == 1:
                self.i += 1
                e = Call("_%s_" % t[1], None, [e, self.mul()])
            else:
                return e

    def mul(self):
        e = self.unary()
        while True:
            t = self.peek()
            if t[0] == "op" and t[1] in ("*", "/", "%"):
                self.i += 1
                e = Call("_%s_" % t[1], None, [e, self.unary()])
            else:
                return e

    def unary(self):
        t = self.peek()
        if t[0] == "op" and t[1] == "!":
            n = 0
            while self.accept("!"):
                n += 1
            e = self.member()
            return Call("!_", None, [e]) if n % 2 else (Call("!_", None, [Call("!_", None, [e])]) if n else e)
        if t[0] == "op" and t[1] == "-":
            n = 0
            while self.accept("-"):
                n += 1
            nt = self.peek()
            if n == 1 and nt[0] in ("int", "lit") and (nt[0] == "int" or isinstance(nt[1], float)):
                # a negative numeric literal, folded (so the int64 minimum parses)
                self.i += 1
                lit = Lit(self._num(nt[0], -nt[1]))
                return self.member_tail(lit)
            e = self.member()
            for _ in range(n):
                e = Call("-_", None, [e])
            return e
        return self.member()

    def _num(self, kind, v):
        V = self.values
        if kind == "int":
            if v < V.INT_MIN or v > V.INT_MAX:
                raise ParseError("invalid int literal")
            return v
        if kind == "uint":
            if v > V.UINT_MAX:
                raise ParseError("invalid uint literal")
            return V.UInt(v)
        return v

    def member(self):
        return self.member_tail(self.primary())

    def member_tail(self, e):
        while True:
            t = self.peek()
            if t[0] != "op":
                return e
            if t[1] in (".", ".?"):
                self.i += 1
                nt = self.next()
                if nt[0] != "ident":
                    raise ParseError("Syntax error: no viable alternative at input '.%s'" % (nt[1],), nt[2])
                name = nt[1]
                if t[1] == "." and self.accept("("):
                    pos = self.toks[self.i - 1][2]
                    args = self.args(")")
                    e = self.macro_or_call(name, e, args, pos)
                else:
                    e = Select(e, name, optional=(t[1] == ".?"))
            elif t[1] in ("[", "[?"):
                self.i += 1
                idx = self.expr()
                self.expect("]")
                e = Call("_[?_]" if t[1] == "[?" else "_[_]", None, [e, idx])
            elif t[1] == "{" and self._is_type_name(e):
                self.i += 1
                fields = []
                while not self.accept("}"):
                    opt = self.accept("?")
                    ft = self.next()
                    if ft[0] != "ident":
                        raise ParseError("Syntax error: mismatched input in message construction")
                    self.expect(":")
                    fields.append((ft[1], self.expr(), opt))
                    if not self.accept(","):
                        self.expect("}")
                        break
                e = StructLit(self._type_name(e), fields)
            else:
                return e

    def _is_type_name(self, e):
        return isinstance(e, Ident) or (isinstance(e, Select) and not e.test_only and self._is_type_name(e.operand))

    def _type_name(self, e):
        return e.name if isinstance(e, Ident) else self._type_name(e.operand) + "." + e.field

    def args(self, close):
        out = []
        if self.accept(close):
            return out
        while True:
            out.append(self.expr())
            if self.accept(close):
                return out
            self.expect(",")
            if self.accept(close):
                return out

    def primary(self):
        t = self.next()
        kind, v = t[0], t[1]
        if kind == "lit":
            return Lit(v)
        if kind in ("int", "uint"):
            return Lit(self._num(kind, v))
        if kind == "ident":
            if v == "true":
                return Lit(True)
            if v == "false":
                return Lit(False)
            if v == "null":
                return Lit(None)
            if v in RESERVED or v == "in":
                raise ParseError("Syntax error: reserved identifier: %s" % v, t[2])
            if self.accept("("):
                pos = self.toks[self.i - 1][2]
                return self.macro_or_call(v, None, self.args(")"), pos)
            return Ident(v, t[2])
        if kind == "op":
            if v == ".":
                nt = self.next()
                if nt[0] != "ident":
                    raise ParseError("Syntax error: mismatched input '.'")
                if self.accept("("):
                    return Call(nt[1], None, self.args(")"))
                return Ident(nt[1])
            if v == "(":
                e = self.expr()
                self.expect(")")
                return e
            if v == "[":
                elems, opts = [], set()
                while not self.accept("]"):
                    if self.accept("?"):
                        opts.add(len(elems))
                    elems.append(self.expr())
                    if not self.accept(","):
                        self.expect("]")
                        break
                return ListLit(elems, opts)
            if v == "{":
                entries = []
                while not self.accept("}"):
                    opt = self.accept("?")
                    k = self.expr()
                    self.expect(":")
                    entries.append((k, self.expr(), opt))
                    if not self.accept(","):
                        self.expect("}")
                        break
                return MapLit(entries)
        raise ParseError("Syntax error: mismatched input '%s'" % (v if kind != "eof" else "<EOF>"), t[2])

    def macro_or_call(self, name, target, args, pos=-1):
        if target is None and name == "has":
            if len(args) != 1 or not isinstance(args[0], Select) or args[0].optional:
                raise ParseError("invalid argument to has() macro")
            return Select(args[0].operand, args[0].field, test_only=True)
        if target is not None and name in ("all", "exists", "exists_one", "filter") and len(args) == 2:
            return Comprehension(name, target, self._var(args[0]), args[1])
        if target is not None and name == "map" and len(args) in (2, 3):
            if len(args) == 2:
                return Comprehension("map", target, self._var(args[0]), None, args[1])
            return Comprehension("map", target, self._var(args[0]), args[1], args[2])
        if target is not None and name in ("optMap", "optFlatMap") and len(args) == 2:
            return Comprehension(name, target, self._var(args[0]), None, args[1])
        if self.bindings and name == "bind" and isinstance(target, Ident) and target.name == "cel" and len(args) == 3:
            return Bind(self._var(args[0]), args[1], args[2])
        if target is not None and name in ("all", "exists", "exists_one", "filter", "map"):
            raise ParseError("%s() macro wants 2 arguments" % name, pos)
        return Call(name, target, args, pos)

    @staticmethod
    def _var(e):
        if not isinstance(e, Ident):
            raise ParseError("argument must be a simple name")
        return e.name


def parse(src, values, bindings=False):
    if len(src) > 100000:
        raise ParseError("expression size %d exceeds limit" % len(src))
    return Parser(src, values, bindings).parse()
