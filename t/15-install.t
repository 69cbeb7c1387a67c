#!/usr/bin/python3
# 15-install.t: `make install DESTDIR=...` puts the programs, the nginx
# template, the web UI and the sandbox under the staging root, and
# nothing outside it.
import os
import subprocess
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import BUILDDIR

t = T()
dest = tempfile.mkdtemp(prefix="sw-install-")
prefix = subprocess.run(["sed", "-n", "s/^prefix = //p",
                         os.path.join(BUILDDIR, "Makefile")],
                        capture_output=True, text=True).stdout.strip()
r = subprocess.run(["make", "-s", "-C", BUILDDIR, "install",
                    "DESTDIR=" + dest], capture_output=True, text=True,
                   timeout=300)
t.eq(r.returncode, 0, "make install DESTDIR=... succeeds")
if r.returncode:
    t.diag(r.stderr[-2000:])
root = dest + prefix
found = []
for d, _, files in os.walk(dest):
    for f in files:
        found.append(os.path.relpath(os.path.join(d, f), root))
t.ok(all(not f.startswith("..") for f in found),
     "everything is under DESTDIR/prefix")
for want in ("bin/slipway", "libexec/slipway/slipway-api",
             "libexec/slipway/slipway-poller",
             "share/slipway/nginx/slipway.conf.in",
             "share/slipway/static/index.html"):
    t.ok(want in found, "installs %s" % want)
t.ok(os.access(os.path.join(root, "bin/slipway"), os.X_OK),
     "slipway is executable")
shutil.rmtree(dest, ignore_errors=True)
t.done()
