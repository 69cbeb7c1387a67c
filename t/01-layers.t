#!/bin/sh
# 01-layers.t: layers point one way.  lib/ is the core every program
# links; it must not include anything from handlers/, pipelines/, cgi/,
# cli/ or poller/ (the programs own their handler tables and pipelines).
# Prints TAP; a test that can fail: each offending line is listed.
srcdir=${SW_SRCDIR:-$(dirname "$0")/..}
echo "1..2"
n=$(cd "$srcdir" && ls lib/*.c lib/*.h 2>/dev/null | wc -l)
if [ "$n" -gt 0 ]; then
	echo "ok 1 - lib/ has $n C files to check"
else
	echo "not ok 1 - lib/ has C files to check"
fi
hits=$(cd "$srcdir" && grep -nE \
	'^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](\.\./)*(handlers|pipelines|cgi|cli|poller)/' \
	lib/*.c lib/*.h 2>/dev/null)
if [ -n "$hits" ]; then
	echo "not ok 2 - lib/ includes nothing from handlers/, pipelines/ or the programs"
	echo "$hits" | sed 's/^/# /'
	exit 1
fi
echo "ok 2 - lib/ includes nothing from handlers/, pipelines/ or the programs"
