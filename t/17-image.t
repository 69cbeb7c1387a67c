#!/usr/bin/python3
# 17-image.t: the release image is built from pinned bases and without
# the test hooks.  Every FROM of the Dockerfile names its base by digest
# (debian:12-slim@sha256:<64 hex>), so a rebuild gets the same bytes
# whatever the tag points at later; its configure line does not turn on
# fault injection; a default configure leaves the hooks out (config.h
# has no SW_FAULT_INJECTION), and with that config.h lib/fault.c's hooks
# never fire whatever SLIPWAY_FAULT says, while with the hooks built in
# the same program does fail (so the check can fail).
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T

SRCDIR = os.path.abspath(os.environ.get(
    "SW_SRCDIR", os.path.join(os.path.dirname(__file__), "..")))

t = T()
with open(os.path.join(SRCDIR, "Dockerfile")) as f:
    docker = f.read().replace("\\\n", " ")
lines = [l.strip() for l in docker.splitlines()
         if l.strip() and not l.strip().startswith("#")]
froms = [l.split()[1] for l in lines if l.startswith("FROM ")]
t.eq(len(froms), 2, "two stages (build, runtime)")
unpinned = [f for f in froms
            if not re.fullmatch(r"[a-z0-9./-]+:[A-Za-z0-9._-]+"
                                r"@sha256:[0-9a-f]{64}", f)]
t.eq(unpinned, [], "every FROM names its base image by tag and digest")
t.eq(len(set(froms)), 1, "both stages start from the same image")

conf = [l for l in lines if l.startswith("RUN ") and "./configure" in l]
t.ok(conf and "--enable-fault-injection" not in conf[0] and
     "--disable-fault-injection" in conf[0],
     "the image's configure leaves fault injection out")

# --- a default configure, and what lib/fault.c is with it --------------------
PROG = r'''
#include <stdlib.h>
#include "lib/fault.h"
int
main(void)
{
	int fired = 0;

	setenv("SLIPWAY_FAULT", "alloc:1+", 1);
	fired += sw_fault_hit(SW_FAULT_ALLOC, "a") != 0;
	fired += sw_fault_hit(SW_FAULT_ALLOC, "b") != 0;
	return fired;
}
'''
tmp = tempfile.mkdtemp(prefix="sw-image-")
try:
    cfg = os.path.join(tmp, "build")
    os.makedirs(cfg)
    r = subprocess.run([os.path.join(SRCDIR, "configure"), "-q"], cwd=cfg,
                       capture_output=True, text=True, timeout=600)
    t.eq(r.returncode, 0, "configure with no option succeeds")
    if r.returncode:
        t.diag(r.stderr[-2000:])
    with open(os.path.join(cfg, "config.h")) as f:
        config_h = f.read()
    t.ok(re.search(r"^#define SW_FAULT_INJECTION", config_h, re.M) is None,
         "a default configure does not build the fault hooks")
    with open(os.path.join(tmp, "prog.c"), "w") as f:
        f.write(PROG)
    cc = shutil.which("cc") or shutil.which("gcc")

    def run(confdir):
        exe = os.path.join(tmp, "prog")
        c = subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-I", confdir,
                            "-I", SRCDIR, os.path.join(tmp, "prog.c"),
                            os.path.join(SRCDIR, "lib", "fault.c"),
                            os.path.join(SRCDIR, "lib", "log.c"),
                            "-o", exe], capture_output=True, text=True)
        if c.returncode:
            t.diag(c.stderr[-2000:])
            return None
        return subprocess.run([exe], capture_output=True).returncode

    t.eq(run(cfg), 0, "a default build ignores SLIPWAY_FAULT (no hook fires)")
    on = os.path.join(tmp, "on")
    os.makedirs(on)
    with open(os.path.join(on, "config.h"), "w") as f:
        f.write(config_h + "\n#define SW_FAULT_INJECTION 1\n")
    t.eq(run(on), 2, "built with --enable-fault-injection, the same "
         "SLIPWAY_FAULT makes both calls fail")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.done()
