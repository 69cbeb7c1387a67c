#!/bin/sh
# 00-format.t: every C file is laid out as clang-format lays it out with
# the house configuration (.clang-format; tools/format.sh --check).
srcdir=${SW_SRCDIR:-$(dirname "$0")/..}
echo 1..1
if out=$(sh "$srcdir/tools/format.sh" --check 2>&1); then
	echo "ok 1 - every C file is formatted (tools/format.sh)"
else
	echo "not ok 1 - every C file is formatted (tools/format.sh)"
	echo "$out" | sed -n '1,60p' | sed 's/^/# /'
	exit 1
fi
