#!/usr/bin/python3
# 36-mcp-params.t: nginx sends /mcp only the FastCGI parameters that
# slipway-mcp reads (nginx/slipway.conf.in turns the request's headers
# off there), so a parameter the worker starts to read must be added to
# that location too, or it would never arrive.  Reads both files: every
# name in cgi/mcp.c's parameter table and every sw_fcgi_param() lookup
# of the worker's FastCGI loop is a fastcgi_param of `location = /mcp`,
# and that location names nothing the worker does not read.
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T

SRC = os.environ.get("SW_SRCDIR",
                     os.path.join(os.path.dirname(__file__), ".."))


def text(rel):
    with open(os.path.join(SRC, rel)) as f:
        return f.read()


t = T()
worker = set(re.findall(r'PARAM\("([A-Z_]+)"\)', text("cgi/mcp.c")))
t.ok(len(worker) >= 10, "cgi/mcp.c names its parameters in one table "
     "(%d)" % len(worker))
# The FastCGI loop and the body reader look up their own.
worker |= set(re.findall(r'sw_fcgi_param\([^,]+,\s*"([A-Z_]+)"\)',
                         text("api/fcgi.c")))
t.ok({"CONTENT_LENGTH", "SW_REQUEST_ID"} <= worker,
     "the body's length and the request id are read in api/fcgi.c")

conf = text("nginx/slipway.conf.in")
m = re.search(r"location = /mcp \{(.*?)\n\t\t\}", conf, re.S)
t.ok(m is not None, "nginx/slipway.conf.in has location = /mcp")
block = m.group(1) if m else ""
t.ok(re.search(r"^\s*fastcgi_pass_request_headers off;", block, re.M)
     is not None, "/mcp does not pass every request header")
t.ok("include" not in block, "/mcp includes no parameter file")
sent = set(re.findall(r"^\s*fastcgi_param\s+([A-Z_]+)\s", block, re.M))
missing = sorted(worker - sent)
t.ok(not missing, "every parameter slipway-mcp reads is sent (missing: "
     "%s)" % (", ".join(missing) or "none"))
extra = sorted(sent - worker)
t.ok(not extra, "no parameter is sent that slipway-mcp does not read "
     "(extra: %s)" % (", ".join(extra) or "none"))
t.done()
