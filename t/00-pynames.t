#!/bin/sh
# 00-pynames.t: every Python file of the tests, benches and sandbox binds
# each name it reads (tools/pynames.py).
srcdir=${SW_SRCDIR:-$(dirname "$0")/..}
exec python3 "$srcdir/tools/pynames.py" "$srcdir"
