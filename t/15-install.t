#!/usr/bin/python3
# 15-install.t: `make install DESTDIR=...` puts the programs, the nginx
# template, the web UI, the sandbox, the skills, the man pages, the
# derived IAM action list, slipway.conf and a hardened systemd unit under
# the staging root, and nothing outside it; each man page renders with
# no warning; the installed stack (run from the staging root) starts on
# the sandbox, answers and stops cleanly.  The Dockerfile's image is that
# same layout: its entrypoint, health check, user, volume and runtime
# packages are checked against what was installed.
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
import harness
from harness import BUILDDIR, SRCDIR

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
             "libexec/slipway/slipway-mcp",
             "share/slipway/nginx/slipway.conf.in",
             "share/slipway/static/index.html",
             "share/slipway/sandbox/slipway-sandbox",
             "share/slipway/iam-actions.txt",
             "share/slipway/skills/README.md",
             "share/slipway/skills/agents/kiro/slipway-ops.json",
             "etc/slipway/slipway.conf",
             "lib/systemd/system/slipway.service",
             "lib/sysusers.d/slipway.conf",
             "etc/logrotate.d/slipway",
             "share/man/man1/slipway.1", "share/man/man1/slipway-sandbox.1",
             "share/man/man5/slipway.conf.5", "share/man/man7/slipway-api.7",
             "share/man/man8/slipway-poller.8"):
    t.ok(want in found, "installs %s" % want)
skills = sorted(os.path.relpath(p, SRCDIR) for p in
                glob.glob(os.path.join(SRCDIR, "skills", "*", "SKILL.md")))
t.ok(skills and all("share/slipway/" + s in found for s in skills),
     "installs every skill (%d)" % len(skills))
t.ok(os.access(os.path.join(root, "bin/slipway"), os.X_OK),
     "slipway is executable")

# --- the systemd unit ----------------------------------------------------------
unit = {}
with open(os.path.join(root, "lib/systemd/system/slipway.service")) as f:
    for line in f:
        m = re.match(r"^(\w+)=(.*)$", line.strip())
        if m:
            unit.setdefault(m.group(1), m.group(2))
for k, v in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"),
             ("StateDirectory", "slipway"), ("ProtectHome", "yes"),
             ("PrivateTmp", "yes"), ("CapabilityBoundingSet", "")):
    t.eq(unit.get(k), v, "slipway.service: %s=%s" % (k, v))
t.ok(unit.get("User") not in (None, "", "root"),
     "slipway.service runs as an unprivileged user")
with open(os.path.join(root, "lib/sysusers.d/slipway.conf")) as f:
    t.ok(re.search(r"^u %s " % re.escape(unit.get("User", "?")), f.read(),
                   re.M), "sysusers.d creates that user")
t.eq(unit.get("ExecStart"), prefix + "/bin/slipway start --foreground "
     "--state-dir /var/lib/slipway", "ExecStart runs the installed "
     "slipway in the foreground")
t.ok(not re.search(r"@[a-z]+@", " ".join(unit.values())),
     "no placeholder left in the unit")

# --- log rotation ------------------------------------------------------------------
with open(os.path.join(root, "etc/logrotate.d/slipway")) as f:
    rot = f.read()
t.ok("/var/lib/slipway/logs/*.log {" in rot and
     re.search(r"^\s*maxsize ", rot, re.M) and
     (prefix + "/bin/slipway logs reopen --state-dir /var/lib/slipway")
     in rot, "logrotate.d/slipway rotates the logs by size too and has "
     "the installed slipway reopen them")
t.ok(unit.get("ExecReload", "").startswith(prefix + "/bin/slipway logs "
                                           "reopen"),
     "systemctl reload slipway reopens the logs")

# --- man pages ---------------------------------------------------------------------
pages = sorted(f for f in found if f.startswith("share/man/"))
for p in pages:
    r = subprocess.run(["man", "--warnings=w", "-l", os.path.join(root, p)],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8",
                                MANPAGER="cat", PAGER="cat"))
    t.ok(r.returncode == 0 and r.stderr.strip() == "" and "NAME" in r.stdout,
         "man -l %s renders with no warning" % os.path.basename(p))
    if r.stderr.strip():
        t.diag(r.stderr[:1500])

# --- the installed stack runs against the sandbox -----------------------------------
harness.SLIPWAY = os.path.join(root, "bin", "slipway")
if harness.on_postgresql():
    # The stack's database comes in a slipway.conf of the harness's,
    # which takes the place of the installed one: name the installed one
    # so the harness writes it first (SQLite's pass finds it unnamed).
    os.environ["SLIPWAY_CONF"] = os.path.join(root, "etc/slipway/slipway.conf")
s = harness.Stack(t, sandbox=True)
r = s.get("/api/v1/health", token=None)
t.eq(r.status, 200, "the installed stack answers /api/v1/health")
st = s.status()
exes = []
for c in st.get("components", []):
    if c.get("pid") and c["name"].startswith(("api", "mcp", "poller")):
        try:
            exes.append(os.readlink("/proc/%d/exe" % c["pid"]))
        except OSError:
            pass
# forked from the installed launcher, which links them
t.ok(exes and all(e == os.path.join(root, "bin", "slipway") for e in exes),
     "its workers and poller run the installed code (%d)" % len(exes))
cfg = s.config()
t.eq(cfg.get("workers"), 2, "the command line wins over slipway.conf")
t.eq(cfg.get("log_format"), "text", "the installed slipway.conf is read")
spec = json.loads(s.get("/api/v1/openapi.json").body)
ops = sorted(o["operationId"] for p in spec["paths"].values()
             for o in p.values() if isinstance(o, dict) and
             "operationId" in o)
with open(os.path.join(root, "share/man/man7/slipway-api.7")) as f:
    api7 = f.read()
missing = [o for o in ops if "\n.Ss %s\n" % o not in api7]
t.ok(ops and not missing, "slipway-api(7) has a section for each of the %d "
     "operations the stack serves" % len(ops))
if missing:
    t.diag("missing: %s" % missing)
s.stop()

# Told to execute them, it runs the installed programs themselves.
os.environ["SLIPWAY_EXEC_WORKERS"] = "1"
s = harness.Stack(t)
del os.environ["SLIPWAY_EXEC_WORKERS"]
progs = {}
for c in s.status().get("components", []):
    if c.get("pid") and c["name"].startswith(("api", "mcp", "poller",
                                              "stream")):
        try:
            progs[c["name"]] = os.readlink("/proc/%d/exe" % c["pid"])
        except OSError:
            pass
lib = os.path.join(root, "libexec", "slipway") + "/"
t.ok(progs and all(e.startswith(lib) for e in progs.values()) and
     {os.path.basename(e) for e in progs.values()} ==
     {"slipway-api", "slipway-mcp", "slipway-poller", "slipway-stream"},
     "with SLIPWAY_EXEC_WORKERS its workers are the installed programs "
     "(%d)" % len(progs))
t.eq(s.get("/api/v1/health", token=None).status, 200,
     "and the stack answers /api/v1/health")
s.stop()

# --- the Dockerfile builds exactly this layout -------------------------------------
with open(os.path.join(SRCDIR, "Dockerfile")) as f:
    docker = f.read().replace("\\\n", " ")
lines = [l.strip() for l in docker.splitlines()
         if l.strip() and not l.strip().startswith("#")]
froms = [l.split()[1] for l in lines if l.startswith("FROM ")]
t.ok(froms and all(f.split("@")[0] == "debian:12-slim" for f in froms),
     "the image is Debian 12 slim")
build = [l for l in lines if l.startswith("RUN ") and "configure" in l]
t.ok(build and "--prefix=/usr" in build[0] and
     "make -s install DESTDIR=/staging" in build[0],
     "it installs with make install DESTDIR=/staging, prefix /usr")
t.ok("COPY --from=build /staging/ /" in lines,
     "and ships the staged tree as the image's filesystem")
entry = [json.loads(l[len("ENTRYPOINT "):]) for l in lines
         if l.startswith("ENTRYPOINT ")]
t.ok(entry and entry[0][:3] == ["/usr/bin/slipway", "start", "--foreground"],
     "the entrypoint is slipway start --foreground")
t.ok(entry and os.access(root + entry[0][0][len("/usr"):], os.X_OK),
     "the entrypoint program is what make install put in bin/")
user = [l.split()[1] for l in lines if l.startswith("USER ")]
t.ok(user and user[-1] not in ("root", "0"), "it runs as a non-root user")
t.ok(any(l.startswith("HEALTHCHECK ") and "/api/v1/health" in l
         for l in lines), "HEALTHCHECK asks /api/v1/health")
t.ok(any(l.startswith("VOLUME ") and "/var/lib/slipway" in l
         for l in lines) and entry and "/var/lib/slipway" in entry[0],
     "the state lives in the volume /var/lib/slipway")
# every library the installed programs link comes from a runtime package
runtime = [l for l in lines if l.startswith("RUN ") and "apt-get install"
           in l and "configure" not in l and "gcc" not in l]
pkgs = set(runtime[0].split()) if runtime else set()
want = set()
for prog in ("bin/slipway", "libexec/slipway/slipway-api",
             "libexec/slipway/slipway-mcp",
             "libexec/slipway/slipway-poller",
             "libexec/slipway/slipway-stream"):
    out = subprocess.run(["readelf", "-d", os.path.join(root, prog)],
                         capture_output=True, text=True).stdout
    for so in re.findall(r"NEEDED.*\[(.+)\]", out):
        for d in ("/usr/lib/x86_64-linux-gnu/", "/lib/x86_64-linux-gnu/",
                  "/usr/lib/aarch64-linux-gnu/", "/lib/aarch64-linux-gnu/"):
            q = subprocess.run(["dpkg", "-S", d + so], capture_output=True,
                               text=True)
            if q.returncode == 0:
                want.add(q.stdout.split(":")[0])
                break
# libc6 is in every Debian image: what the base image itself runs on.
# The sanitizer runtimes come from a --enable-asan/ubsan build of this
# tree; the image is built without them.
# A package the image installs brings what it depends on: a build that
# links a library's own dependencies too (clang's sanitizer build does
# not drop unneeded ones) finds them there.
have = set(pkgs)
for p in pkgs:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", p],
                         capture_output=True, text=True).stdout
    have |= {alt.split()[0].split(":")[0] for dep in out.split(",")
             for alt in dep.split("|") if alt.strip()}
lacking = sorted(p for p in want if p not in have and p != "libc6" and
                 not re.match(r"^lib(asan|ubsan|lsan|tsan)\d", p))
t.ok(want and not lacking, "the image installs every library package the "
     "programs link (%s)" % ", ".join(sorted(want)))
if lacking:
    t.diag("missing from the runtime stage: %s" % lacking)
# every pkg-config module configure.ac requires comes from a package the
# build stage installs (the module's .pc file, found through dpkg -S)
stage = [l for l in lines if l.startswith("RUN ") and "apt-get install"
         in l and "gcc" in l]
bpkgs = set(stage[0].split()) if stage else set()
with open(os.path.join(SRCDIR, "configure.ac")) as f:
    mods = re.findall(r"PKG_CHECK_MODULES\(\[\w+\],\s*\[([\w.+-]+)",
                      f.read())
needs = {}
for m in mods:
    pc = subprocess.run(["pkg-config", "--variable=pcfiledir", m],
                        capture_output=True, text=True).stdout.strip()
    q = subprocess.run(["dpkg", "-S", os.path.join(pc, m + ".pc")],
                       capture_output=True, text=True)
    if q.returncode == 0:
        needs[m] = q.stdout.split(":")[0]
unbuilt = sorted("%s (%s)" % (m, p) for m, p in needs.items()
                 if p not in bpkgs)
t.ok(mods and needs and not unbuilt, "the build stage installs the package "
     "of every module configure requires (%s)" % ", ".join(sorted(needs)))
if unbuilt:
    t.diag("missing from the build stage: %s" % unbuilt)
t.ok(any(p.startswith("nginx") for p in pkgs) and "curl" in pkgs,
     "the image has nginx, and curl for the health check")

# --- the README's layout table names folders that exist ---------------------------
with open(os.path.join(SRCDIR, "README.md")) as f:
    readme = f.read()
table = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
named = re.findall(r"^\| `([^`]+)/` \|", table, re.M)
t.ok(named and all(os.path.isdir(os.path.join(SRCDIR, n)) for n in named),
     "the README's layout table names only folders that exist (%d)" %
     len(named))
shutil.rmtree(dest, ignore_errors=True)
t.done()
