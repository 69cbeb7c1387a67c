#!/bin/sh
# format.sh: clang-format with the house configuration (.clang-format)
# over every C file outside the sandbox.  The tree is formatted; the
# hand-laid tables (the operation table's rows and fields, handler
# bindings, error and stage tables) sit between "clang-format off" and
# "clang-format on" comments so that a row keeps reading as one unit.
#
#   tools/format.sh           format the tree in place
#   tools/format.sh --check   list the files that are not formatted and
#                             what would change; exit 1 when one is not
set -e
cd "$(dirname "$0")/.."
dirs='api bench cgi cli cloud examples fuzz handlers lib mcp pipelines
	poller stream t'
files=$(find $dirs -path t/node_modules -prune -o \
	\( -name '*.c' -o -name '*.h' \) -print 2>/dev/null | sort)
case "$1" in
--check)
	rc=0
	for f in $files; do
		if ! clang-format "$f" | cmp -s "$f" -; then
			echo "not formatted: $f"
			clang-format "$f" | diff -u "$f" - | sed -n '1,20p'
			rc=1
		fi
	done
	exit $rc
	;;
'')
	clang-format -i $files
	;;
*)
	echo "usage: tools/format.sh [--check]" >&2
	exit 2
	;;
esac
