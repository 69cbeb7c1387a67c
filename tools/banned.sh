#!/bin/sh
# banned.sh: fail if C sources call a banned function.  These either
# overflow buffers (sprintf, strcpy, strcat, gets), hide parse errors
# (atoi, atol), keep hidden state (strtok) or run a shell or program
# (system, popen, exec*p).  Use snprintf, memcpy with sizes, strtol,
# strtok_r and libcurl instead.  Prints TAP.
srcdir=${SW_SRCDIR:-$(dirname "$0")/..}
banned='sprintf|vsprintf|strcpy|strcat|strncat|gets|atoi|atol|atoll|strtok|system|popen|execlp|execvp|execvpe|tmpnam|mktemp'
echo "1..1"
hits=$(cd "$srcdir" && find lib cgi cli handlers pipelines poller stream examples -name '*.c' -o -name '*.h' 2>/dev/null |
	xargs grep -nE "(^|[^a-zA-Z0-9_>.])($banned)[[:space:]]*\(" 2>/dev/null |
	grep -vE '^\S+:[0-9]+:\s*(/\*|\*)' )
if [ -n "$hits" ]; then
	echo "not ok 1 - no banned functions in C sources"
	echo "$hits" | sed 's/^/# /'
	exit 1
fi
echo "ok 1 - no banned functions in C sources"
