#!/usr/bin/python3
# 01-layers.t: layers point one way.  Each folder is a layer with its own
# library (Makefile.am); a file may include only from its own folder and
# the folders below it, and each layer's library may call only into the
# libraries below it (its undefined symbols are found there or in the
# system's libraries).  No two files include each other, directly or
# through a longer loop.  Prints TAP; each offending line is listed.
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T

SRC = os.environ.get("SW_SRCDIR",
                     os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.environ.get("SW_BUILDDIR", SRC)

# folder -> the folders it may include from (besides itself), lowest
# layer first.
ALLOWED = {
    "lib": [],
    "cloud": ["lib"],
    "api": ["lib"],
    "mcp": ["lib", "api"],
    "pipelines": ["lib", "cloud"],
    "handlers": ["lib", "cloud", "api", "pipelines"],
    "cgi": ["lib", "cloud", "api", "mcp", "pipelines", "handlers"],
    "poller": ["lib", "cloud", "pipelines"],
    "stream": ["lib", "cloud", "pipelines"],
    "cli": ["lib", "cloud", "api", "pipelines", "cgi", "poller", "stream"],
    "bench": ["lib", "cloud", "api", "pipelines", "poller"],
    "examples": ["lib", "api"],
}
# The library each layer builds, for the symbol check.
LIBS = {
    "lib": "lib/libslipway.a",
    "cloud": "cloud/libswcloud.a",
    "api": "api/libswapi.a",
    "mcp": "mcp/libswmcp.a",
    "pipelines": "pipelines/libswpipelines.a",
    "handlers": "handlers/libswhandlers.a",
    "cgi": "cgi/libswcgi.a",
    "poller": "poller/libswpoller.a",
    "stream": "stream/libswstream.a",
}
INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

t = T()


def sources(folder):
    out = []
    for root, _, names in os.walk(os.path.join(SRC, folder)):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(root, n), SRC))
    return sorted(out)


def includes(rel):
    with open(os.path.join(SRC, rel), errors="replace") as f:
        return [i for i in INC.findall(f.read()) if "/" in i]


# 1: every folder has files, and each file's includes stay in its floor.
graph = {}
bad = []
for folder, below in ALLOWED.items():
    files = sources(folder)
    if not files:
        bad.append("%s/ has no C files" % folder)
    for rel in files:
        graph[rel] = includes(rel)
        for inc in graph[rel]:
            top = inc.split("/")[0]
            if top == "config.h" or top == folder:
                continue
            if top not in below:
                bad.append("%s includes %s (%s/ may include %s)" % (
                    rel, inc, folder, ", ".join(below) or "only itself"))
t.ok(not bad, "every folder includes only from the folders below it")
for b in bad:
    t.diag(b)


# 2: no two modules (x.c with x.h) include each other, however far round.
def module(rel):
    return os.path.splitext(rel)[0]


mgraph = {}
for rel, incs in graph.items():
    edges = mgraph.setdefault(module(rel), set())
    for inc in incs:
        if module(inc) != module(rel) and \
                os.path.exists(os.path.join(SRC, inc)):
            edges.add(module(inc))
loops = []
state = {}


def visit(m, path):
    state[m] = 1
    for n in sorted(mgraph.get(m, ())):
        if state.get(n) == 1:
            loops.append(" -> ".join(path[path.index(n):] + [n]))
        elif n not in state:
            visit(n, path + [n])
    state[m] = 2


for m in sorted(mgraph):
    if m not in state:
        visit(m, [m])
t.ok(not loops, "no two files include each other (%d modules)" %
     len(mgraph))
for lp in loops:
    t.diag(lp)


# 3: calls run only downward: a layer's library leaves undefined only
# what the layers below it (or the system) define.
def nm(path, defined):
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-g", flag, path], capture_output=True,
                         text=True)
    syms = set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.endswith(":"):
            syms.add(parts[-1])
    return syms


built = {k: os.path.join(BUILD, v) for k, v in LIBS.items()}
if not all(os.path.exists(p) for p in built.values()):
    t.skip("the libraries are not built in %s" % BUILD)
else:
    defs = {k: nm(p, True) for k, p in built.items()}
    owner = {}
    for k, syms in defs.items():
        for s in syms:
            owner.setdefault(s, k)
    up = []
    for k, p in built.items():
        below = set(ALLOWED[k]) | {k}
        for s in sorted(nm(p, False)):
            o = owner.get(s)
            if o is not None and o not in below:
                up.append("%s calls %s, defined in %s/" % (LIBS[k], s, o))
    t.ok(not up, "each library calls only into the layers below it")
    for u in up:
        t.diag(u)
t.done()
