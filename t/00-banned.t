#!/bin/sh
# 00-banned.t: the banned-function check (tools/banned.sh) over all C.
exec sh "${SW_SRCDIR:-$(dirname "$0")/..}/tools/banned.sh"
