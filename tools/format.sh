#!/bin/sh
# format.sh: clang-format with the house configuration (.clang-format),
# applied to the lines a change touches, never to the whole tree.  The
# configuration matches the code's layout (tabs, 80 columns, KNF
# definitions) but not its hand-filled argument lists and split string
# literals, so formatting every file would rewrite about a quarter of
# the C lines for no gain; new and changed lines follow it instead.
#
#   tools/format.sh [base]          format the lines changed since base
#                                   (default HEAD: the uncommitted ones)
#   tools/format.sh --check [base]  print what it would change, exit 1
#                                   when something would
#   tools/format.sh --measure       how many lines a whole-tree run would
#                                   change (nothing is written)
set -e
cd "$(dirname "$0")/.."
exts='c,h'
case "$1" in
--measure)
	total=0
	for f in $(git ls-files '*.c' '*.h' | grep -v '^sandbox/'); do
		n=$(clang-format "$f" | diff "$f" - | grep -c '^[<>]' || :)
		total=$((total + n))
	done
	echo "$total lines would change (removed plus added)"
	;;
--check)
	out=$(git clang-format --quiet --diff --extensions "$exts" \
	    "${2:-HEAD}" -- ':!sandbox' || :)
	case "$out" in
	''|*'no modified files'*|*'did not modify'*) exit 0 ;;
	esac
	printf "%s\n" "$out"
	exit 1
	;;
*)
	git clang-format --quiet --extensions "$exts" "${1:-HEAD}" \
	    -- ':!sandbox'
	;;
esac
