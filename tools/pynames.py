#!/usr/bin/env python3
"""pynames.py: fail if a Python file of ours reads a name it never binds.

A test that imports a helper it later stops importing fails only when the
line runs; this finds it before.  Deliberately coarse: a name bound
anywhere in a file counts as bound everywhere in it, so it reports only
names that cannot resolve at all.  Prints TAP, one line per file.
"""
import ast
import builtins
import os
import sys


def unbound(tree):
    bound = set(dir(builtins)) | {"__file__", "__name__"}
    used = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                bound.add((a.asname or a.name).split(".")[0])
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(n.name)
            a = n.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs:
                bound.add(arg.arg)
            for arg in (a.vararg, a.kwarg):
                if arg:
                    bound.add(arg.arg)
        elif isinstance(n, ast.ClassDef):
            bound.add(n.name)
        elif isinstance(n, ast.Lambda):
            for arg in n.args.args + n.args.kwonlyargs:
                bound.add(arg.arg)
        elif isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                used.setdefault(n.id, n.lineno)
            else:
                bound.add(n.id)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bound.update(n.names)
        elif isinstance(n, ast.alias):
            pass
    return sorted((line, name) for name, line in used.items()
                  if name not in bound)


def python_files(root, dirs):
    for d in dirs:
        for base, _, names in os.walk(os.path.join(root, d)):
            if "node_modules" in base or "__pycache__" in base:
                continue
            for name in sorted(names):
                path = os.path.join(base, name)
                if name.endswith(".py"):
                    yield path
                elif name.endswith(".t") or "." not in name:
                    try:
                        with open(path, "rb") as f:
                            first = f.readline()
                    except OSError:
                        continue
                    if first.startswith(b"#!") and b"python" in first:
                        yield path


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = sorted(python_files(root, ["t", "bench", "sandbox", "tools"]))
    print("1..%d" % len(files))
    bad = 0
    for i, path in enumerate(files, 1):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            src = f.read()
        try:
            missing = unbound(ast.parse(src, rel))
        except SyntaxError as e:
            print("not ok %d - %s parses\n# %s" % (i, rel, e))
            bad += 1
            continue
        if missing:
            bad += 1
            print("not ok %d - %s binds every name it reads" % (i, rel))
            for line, name in missing:
                print("# %s:%d: %s is never bound" % (rel, line, name))
        else:
            print("ok %d - %s binds every name it reads" % (i, rel))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
