"""harness.py: start the real Slipway stack for an integration test.

Stack() makes a temporary state directory, picks a free port, runs
`slipway start` from the build tree (real nginx, real FastCGI workers,
real SQLite; the sandbox too when asked), makes an admin token, and
offers small HTTP helpers.  stop() stops the stack, checks that no
process it started is left, and fails the test if a log shows an nginx
[alert]/[emerg] or a sanitizer report.

Every answer the helpers get from /api/v1 is recorded (method, path,
status, media type, the body of JSON, whether it was a dry run) in
t/NAME.answers.json of the build tree; when the test ends (T.done), one
run of t/lib/validate-answers.js checks them all against the stack's
/api/v1/openapi.json with a JSON Schema 2020-12 validator, one failing
check naming each answer outside its documented shape.
"""
import atexit
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SRCDIR = os.environ.get("SW_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BUILDDIR = os.environ.get("SW_BUILDDIR") or SRCDIR
SLIPWAY = os.path.join(BUILDDIR, "cli", "slipway")


def free_port():
    """A port below the kernel's ephemeral range, free now.  A port the
    kernel handed out (bind to 0) can be handed out again, to another
    test's client or server, before nginx binds it: tests run in
    parallel, so choose where the kernel never chooses."""
    import random
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random(os.getpid() ^ int(time.time() * 1000))
    for _ in range(200):
        port = rng.randrange(max(1024, low - 12000), low)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise RuntimeError("no free port below %d" % low)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body
        self.json = None
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            pass

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def __repr__(self):
        return "<%d %s>" % (self.status, self.body[:300])


class Answers:
    """The answers of /api/v1 a test got, and their check at its end (one
    node process for the whole test file, whatever its stacks).  A TAP
    object without at_done (no T) records them but checks nothing."""

    def __init__(self, t, name=None):
        self.t = t
        name = name or os.path.splitext(os.path.basename(sys.argv[0]))[0] \
            or "t"
        out = os.path.join(BUILDDIR, "t")
        if not os.path.isdir(out):
            out = tempfile.gettempdir()
        self.file = os.path.join(out, name + ".answers.json")
        self.doc_file = os.path.join(out, name + ".openapi.json")
        self.items = []
        self.doc = None
        if hasattr(t, "at_done"):
            t.at_done.append(self.check)

    @staticmethod
    def of(t):
        a = getattr(t, "answers", None)
        if a is None:
            a = t.answers = Answers(t)
        return a

    def record(self, method, path, resp):
        """An answer of /api/v1: JSON with its body, any other with its
        media type alone (checked against the document's)."""
        ctype = (resp.header("Content-Type") or "").split(";")[0].strip()
        if not path.startswith("/api/v1"):
            return
        query = path.partition("?")[2]
        self.items.append({
            "method": method, "path": path, "status": resp.status,
            "type": ctype,
            "body": resp.body if ctype.endswith("json") else "",
            "dry_run": "dry_run=true" in query.split("&")})

    def save(self, doc):
        if doc and self.doc is None:
            self.doc = doc
        with open(self.file, "w") as f:
            json.dump(self.items, f)

    def check(self):
        mods = os.path.join(SRCDIR, "t", "node_modules")
        if not self.items:
            return
        if not shutil.which("node") or not os.path.isdir(
                os.path.join(mods, "ajv")):
            self.t.skip("node or ajv missing: answers not validated")
            return
        if not self.doc:
            self.t.skip("the document could not be read: %d answers not "
                        "validated" % len(self.items))
            return
        with open(self.doc_file, "w") as f:
            json.dump(self.doc, f)
        self.save(None)
        v = subprocess.run(
            ["node", os.path.join(SRCDIR, "t", "lib", "validate-answers.js"),
             self.doc_file, self.file], capture_output=True, text=True,
            timeout=600)
        try:
            res = json.loads(v.stdout)
        except ValueError:
            res = {"failures": ["validator: " + (v.stdout + v.stderr)[-2000:]]}
        fails = res.get("failures", [])
        seen = {}
        for f in fails:             # the same answer once, with a count
            seen[f] = seen.get(f, 0) + 1
        for f, n in seen.items():
            self.t.ok(False, "answer outside the document: " + f +
                      (" (%d times)" % n if n > 1 else ""))
        self.t.ok(v.returncode == 0 and not fails,
                  "%d answers of /api/v1 checked against the document, "
                  "%d outside it (%s)" % (len(self.items), len(fails),
                                          self.file))


# ---- the suite on PostgreSQL ---------------------------------------------
# SW_TEST_POSTGRESQL names a PostgreSQL server (a postgresql:// URL whose
# database the harness replaces; ./quickstart test starts one for its
# third pass).  Each Stack() then keeps its state in a database of its
# own, created empty for it and dropped at stop, so tests stay
# independent and run in parallel against one server.
PG_SERVER = os.environ.get("SW_TEST_POSTGRESQL", "")


def on_postgresql():
    """Whether the suite runs with PostgreSQL state stores."""
    return PG_SERVER.startswith(("postgresql:", "postgres:"))


def sqlite_only(t, why):
    """Skip a whole test that checks SQLite itself (its state.db) when
    the suite runs on PostgreSQL."""
    if on_postgresql():
        t.skip_all("SQLite only: %s; the suite runs on PostgreSQL "
                   "(SW_TEST_POSTGRESQL)" % why)


def _pg_url(name):
    """PG_SERVER with its database replaced by name."""
    from urllib.parse import urlsplit
    u = urlsplit(PG_SERVER)     # urlunsplit drops an empty host's //
    return "%s://%s/%s%s" % (u.scheme, u.netloc, name,
                             "?" + u.query if u.query else "")


def _pg_admin(sql):
    """Run one statement in the server's postgres database; its error
    text, or None when it succeeded."""
    try:
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1",
                            "-d", _pg_url("postgres"), "-c", sql],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    return None if r.returncode == 0 else (r.stderr or r.stdout).strip()


def pg_create_database():
    """A new empty database on PG_SERVER (C locale, from template0):
    its name and its URL."""
    import random
    name = "sw_%d_%08x" % (os.getpid(), random.getrandbits(32))
    err = _pg_admin("CREATE DATABASE %s TEMPLATE template0 ENCODING "
                    "'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" % name)
    if err is not None:
        raise RuntimeError("CREATE DATABASE %s: %s" % (name, err))
    return name, _pg_url(name)


def pg_drop_database(name):
    """Drop a database pg_create_database made (and its sessions)."""
    return _pg_admin("DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)


class Stack:
    def __init__(self, t, sandbox=False, workers=2, speed=600,
                 pre_start=None, programs=None, database=None,
                 conf=None, token_name="test-admin"):
        """pre_start, when given, is called as pre_start(state_dir)
        after the state directory exists and before `slipway start`,
        e.g. to drop plugins.d/ or tools.d/ files in place.  programs
        maps a program of the build tree to a test build run in its
        place ({"cgi/slipway-mcp": ".../t/slipway-mcp-conformance"}).
        database, a postgresql:// URL, is the stack's state store in
        place of state.db (slipway.conf's database).  conf, a list of
        "key = value" lines, goes into that slipway.conf too.
        token_name names the admin token the stack makes (two stacks
        on one database need two names)."""
        self.t = t
        self.dir = tempfile.mkdtemp(prefix="sw-stack-")
        self.slipway = SLIPWAY
        if programs:
            self.slipway = self._shadow_tree(programs)
        self.state = os.path.join(self.dir, "state")
        self.port = free_port()
        self.sandbox = sandbox
        self.pids = {}          # pid -> start time (pids get reused)
        self.answers = Answers.of(t)
        if pre_start is not None:
            os.makedirs(self.state, mode=0o700, exist_ok=True)
            pre_start(self.state)
        args = [self.slipway, "start", "--state-dir", self.state,
                "--port", str(self.port), "--workers", str(workers)]
        if sandbox:
            args += ["--sandbox", "--speed", str(speed)]
        self.pg_database = None
        if database is None and on_postgresql():
            try:
                self.pg_database, database = pg_create_database()
            except RuntimeError as e:
                t.bail("no database for the stack: %s" % e)
            # dropped at exit when the test never reached stop()
            atexit.register(self._drop_database)
        self.database = database
        lines = list(conf or [])
        if database is not None:
            # the test's own slipway.conf, when it has one, then the
            # database (its last word wins)
            given = os.environ.get("SLIPWAY_CONF")
            if on_postgresql() and given and os.path.isfile(given):
                with open(given) as g:
                    lines = g.read().rstrip("\n").split("\n") + lines
            lines.append("database = %s" % database)
        run_env = dict(os.environ)
        if programs:
            # the launcher forks the workers linked into it; a replaced
            # program is one it executes
            run_env["SLIPWAY_EXEC_WORKERS"] = "1"
        # the configuration the stack reads: the test's own, or the
        # harness's copy of it with the database (rewrite_conf)
        self.conf_path = os.environ.get("SLIPWAY_CONF")
        if lines:
            path = os.path.join(self.dir, "slipway.conf")
            with open(path, "w") as f:
                f.write("".join(ln + "\n" for ln in lines))
            run_env["SLIPWAY_CONF"] = path
            self.conf_path = path
        r = subprocess.run(args, capture_output=True, text=True,
                           timeout=120, env=run_env)
        if r.returncode != 0:
            t.diag("slipway start failed: %s %s" % (r.stdout, r.stderr))
            self.dump_logs()
            t.bail("cannot start the stack")
        self.stopped = False
        # A test that dies before stop() must not leave its stack running.
        atexit.register(self._abandoned)
        self.token = self.cli("token", "create", "--scope", "admin",
                              "--name", token_name).strip()
        if self.answers.doc is None:
            self.answers.doc = self.read_document()
        self.remember_pids()

    def _shadow_tree(self, programs):
        """A build tree of links in self.dir: the launcher finds its
        programs beside its own binary (a copy, as /proc/self/exe names
        the file), each linked to the build's or to its replacement."""
        root = os.path.join(self.dir, "build")
        for rel in ("cgi/slipway-api", "cgi/slipway-mcp",
                    "poller/slipway-poller", "stream/slipway-stream",
                    "cfn/iam-actions.txt"):
            os.makedirs(os.path.join(root, os.path.dirname(rel)),
                        exist_ok=True)
            os.symlink(programs.get(rel, os.path.join(BUILDDIR, rel)),
                       os.path.join(root, rel))
        os.makedirs(os.path.join(root, "cli"))
        shutil.copy2(SLIPWAY, os.path.join(root, "cli", "slipway"))
        return os.path.join(root, "cli", "slipway")

    def _abandoned(self):
        if self.stopped:
            return
        self.dump_logs()
        subprocess.run([self.slipway, "stop", "--state-dir", self.state],
                       capture_output=True, timeout=60)

    def sql(self, statement):
        """Run one SQL statement on the stack's state store, whichever
        engine holds it (state.db, or the PostgreSQL database): the
        rows it returns, NULL as None (on PostgreSQL every value is a
        string).  For tests that look at or prepare the state beside
        the API."""
        if self.database is None:
            import sqlite3
            db = sqlite3.connect(os.path.join(self.state, "state.db"),
                                 timeout=10)
            try:
                with db:
                    return db.execute(statement).fetchall()
            finally:
                db.close()
        r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v",
                            "ON_ERROR_STOP=1", "-F", "\t", "-P",
                            "null=\\N", "-d", self.database, "-c",
                            statement], capture_output=True, text=True,
                           timeout=60)
        if r.returncode != 0:
            raise RuntimeError("psql: %s" % r.stderr.strip())
        return [tuple(None if v == "\\N" else v for v in ln.split("\t"))
                for ln in r.stdout.splitlines() if ln]

    def _drop_database(self):
        # SW_KEEP keeps what a failed test leaves, its database too
        if self.pg_database is not None and not os.environ.get("SW_KEEP"):
            pg_drop_database(self.pg_database)
            self.pg_database = None

    def cli(self, *args, check=True):
        r = subprocess.run([self.slipway] + list(args) + ["--state-dir",
                           self.state], capture_output=True, text=True,
                           timeout=60)
        if check and r.returncode != 0:
            raise RuntimeError("slipway %s: %s" % (args, r.stderr))
        return r.stdout

    def status(self):
        return json.loads(self.cli("status", "--json", check=False))

    def rewrite_conf(self, text):
        """Write the running stack's slipway.conf anew as text, keeping
        the database the harness gave it (its workers read the file
        again when it changes)."""
        if self.database is not None:
            text += "database = %s\n" % self.database
        with open(self.conf_path, "w") as f:
            f.write(text)

    def component_pid(self, kind):
        """The pid of a running component of this kind ("poller",
        "api", ...), 0 if none runs or the status cannot be read."""
        try:
            for c in self.status()["components"]:
                if c["name"].split(".")[0] == kind and c["running"]:
                    return c["pid"]
        except (OSError, ValueError, KeyError, RuntimeError):
            pass
        return 0

    def deliveries_settled(self):
        """True when no webhook delivery is pending."""
        r = self.get("/api/v1/deliveries?state=pending")
        return r.status == 200 and r.json["items"] == []

    def remember_pids(self):
        try:
            st = self.status()
            found = [st.get("supervisor_pid", 0)]
            found += [c["pid"] for c in st.get("components", [])
                      if c.get("pid")]
            for p in found:
                if p and p not in self.pids:
                    self.pids[p] = _start_time(p)
        except Exception:
            pass

    def config(self):
        with open(os.path.join(self.state, "config.json")) as f:
            return json.load(f)

    def request(self, method, path, body=None, token="default",
                headers=None, raw=None, timeout=90):
        h = {}
        if token == "default":
            token = self.token
        if token:
            h["Authorization"] = "Bearer " + token
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        if headers:
            h.update(headers)
        c = http.client.HTTPConnection("127.0.0.1", self.port,
                                       timeout=timeout)
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        out = Response(r.status, r.getheaders(),
                       r.read().decode("utf-8", "replace"))
        c.close()
        self.answers.record(method, path, out)
        return out

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def log_text(self, name):
        try:
            with open(os.path.join(self.state, "logs", name),
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def dump_logs(self):
        logs = os.path.join(self.state, "logs")
        if not os.path.isdir(logs):
            return
        for name in sorted(os.listdir(logs)):
            text = self.log_text(name)
            if text:
                self.t.diag("---- %s (last 40 lines)" % name)
                self.t.diag("\n".join(text.splitlines()[-40:]))

    def check_logs(self):
        """Fail on nginx alerts/emergencies or any sanitizer report."""
        bad = []
        trace = []      # a sanitizer report's frames, to say where
        logs = os.path.join(self.state, "logs")
        for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
            report = False
            for line in self.log_text(name).splitlines():
                if ("[alert]" in line or "[emerg]" in line or
                        "AddressSanitizer" in line or
                        "LeakSanitizer" in line or
                        "runtime error:" in line):
                    bad.append("%s: %s" % (name, line))
                    report = "Sanitizer" in line and "ERROR:" in line
                elif report and len(trace) < 80 and line.strip():
                    trace.append("%s: %s" % (name, line))
        self.t.ok(not bad, "no alerts or sanitizer reports in the logs")
        for b in bad[:20]:
            self.t.diag(b)
        for b in trace:
            self.t.diag(b)

    def read_document(self):
        """The served OpenAPI document, for the check of the answers."""
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port,
                                           timeout=30)
            c.request("GET", "/api/v1/openapi.json")
            r = c.getresponse()
            body = r.read()
            c.close()
            return json.loads(body) if r.status == 200 else None
        except (OSError, ValueError, http.client.HTTPException):
            return None

    def stop(self):
        self.stopped = True
        self.answers.save(self.read_document())
        self.remember_pids()
        r = subprocess.run([self.slipway, "stop", "--state-dir",
                            self.state], capture_output=True, text=True,
                           timeout=60)
        self.t.ok(r.returncode == 0, "slipway stop")
        deadline = time.time() + 10
        alive = []
        while time.time() < deadline:
            alive = [p for p, born in self.pids.items()
                     if p and _alive(p, born)]
            if not alive:
                break
            time.sleep(0.1)
        self.t.ok(not alive, "no process left behind (%s)" % alive)
        for p in alive:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        self.check_logs()
        if self.t.failed:
            self.dump_logs()
        if self.pg_database is not None and not os.environ.get("SW_KEEP"):
            err = pg_drop_database(self.pg_database)
            self.t.ok(err is None, "the stack's database %s dropped%s" %
                      (self.pg_database, "" if err is None else ": " + err))
            self.pg_database = None
        if not os.environ.get("SW_KEEP"):
            shutil.rmtree(self.dir, ignore_errors=True)


def kill_if(pid, program, sig=9):
    """Send sig to pid only if it still runs program (pids get reused)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    if program not in cmd:
        return False
    try:
        os.kill(pid, sig)
    except OSError:
        return False
    return True


def _start_time(pid):
    """Start time of a process (clock ticks since boot), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid, born=None):
    """Is this process (not a later one that reused its pid) running?"""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    if fields[0] == "Z":
        return False
    return born is None or int(fields[19]) == born


# ---- helpers for stacks started with the sandbox ------------------------

def helm_simulated():
    """Whether the sandbox runs Helm installer Jobs (sandbox/slipsand/k8s/
    helm.py).  Cluster create follows the device-plugin Jobs to Complete,
    so a test that needs a created cluster cannot run without it."""
    return os.path.exists(os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "sandbox", "slipsand", "k8s", "helm.py"))


NO_HELM = ("cluster create follows the device-plugin Helm installer Jobs, "
           "which this sandbox does not simulate (sandbox/slipsand/k8s/"
           "helm.py)")


def need_clusters(t):
    """Skip the whole test unless the sandbox is here and can create a
    cluster (helm_simulated)."""
    if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
        t.skip_all("sandbox missing")
    if not helm_simulated():
        t.skip_all(NO_HELM)


def need_browser(t, *modules):
    """Skip the whole test unless Chromium, node and the npm modules the
    UI scripts use (playwright-core, and any named) are here."""
    for mod in ("playwright-core",) + modules:
        if not os.path.isdir(os.path.join(SRCDIR, "t", "node_modules", mod)):
            t.skip_all("t/node_modules is missing %s (cd t && npm ci)" % mod)
    if not os.path.exists("/usr/bin/chromium") or not shutil.which("node"):
        t.skip_all("chromium or node missing")


def ui_script(t, script, *args, timeout=600):
    """Run a UI script of t/lib (node, in Chromium) and read the one JSON
    line it prints last: its findings, with "error" when a step failed
    (said in the test's output)."""
    r = subprocess.run(["node", os.path.join(SRCDIR, "t", "lib", script)] +
                       [str(a) for a in args], capture_output=True,
                       text=True, timeout=timeout)
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        out = {"error": r.stdout[-2000:] + r.stderr[-2000:]}
    if out.get("error"):
        t.diag(out["error"])
    return out


def fault_injection_built():
    """Whether this build has the SLIPWAY_FAULT hooks (configure
    --enable-fault-injection; off in a release build)."""
    r = subprocess.run([SLIPWAY, "version", "--json"], capture_output=True,
                       text=True, timeout=30)
    return r.returncode == 0 and json.loads(r.stdout)["fault_injection"]


def need_fault_injection(t):
    """Skip the whole test unless SLIPWAY_FAULT works in this build
    (./quickstart test configures its builds with it)."""
    if not fault_injection_built():
        t.skip_all("built without --enable-fault-injection "
                   "(./quickstart test builds with it)")


def sandbox_info(stack):
    return stack.config().get("sandbox_info") or {}


def sandbox_call(stack, method, path, body=None):
    """Call the sandbox control endpoint (/_sandbox/...)."""
    import urllib.parse
    info = sandbox_info(stack)
    u = urllib.parse.urlparse(info["aws_endpoint"])
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    h = {"X-Sandbox-Token": info.get("control_token", "")}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    c.request(method, path, body=data, headers=h)
    r = c.getresponse()
    text = r.read().decode()
    c.close()
    try:
        return r.status, json.loads(text)
    except ValueError:
        return r.status, text


def sandbox_requests(stack, **query):
    import urllib.parse
    q = urllib.parse.urlencode(query)
    st, body = sandbox_call(stack, "GET", "/_sandbox/requests" +
                            ("?" + q if q else ""))
    return body.get("requests", []) if st == 200 else []


def aws_env(stack):
    """Environment for the real aws CLI against the sandbox."""
    info = sandbox_info(stack)
    env = dict(os.environ)
    env.update({"AWS_ACCESS_KEY_ID": info["access_key_id"],
                "AWS_SECRET_ACCESS_KEY": info["secret_access_key"],
                "AWS_DEFAULT_REGION": info.get("region", "us-west-2"),
                "AWS_REGION": info.get("region", "us-west-2"),
                "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_MAX_ATTEMPTS": "1",
                "AWS_PAGER": ""})
    env.pop("AWS_PROFILE", None)
    env.pop("AWS_SESSION_TOKEN", None)
    return env


def aws_cli(stack, *args):
    """Run the aws CLI on PATH against the sandbox; (rc, parsed-or-text)."""
    exe = shutil.which("aws")
    if exe is None:
        return None, "aws CLI not installed"
    info = sandbox_info(stack)
    r = subprocess.run([exe, "--endpoint-url", info["aws_endpoint"],
                        "--output", "json"] + list(args),
                       capture_output=True, text=True, timeout=120,
                       env=aws_env(stack))
    try:
        return r.returncode, json.loads(r.stdout) if r.stdout.strip() \
            else {}
    except ValueError:
        return r.returncode, r.stdout + r.stderr


def aws_addon_version(stack, cluster, addon, version, timeout=120):
    """Move an EKS add-on to version with the aws CLI, as a person would,
    and wait for it to be ACTIVE again: (rc, the add-on as DescribeAddon
    tells it, {} if it never settled); rc None without the CLI."""
    rc, out = aws_cli(stack, "eks", "update-addon", "--cluster-name",
                      cluster, "--addon-name", addon, "--addon-version",
                      version)
    if rc != 0:
        return rc, {}

    def active():
        rc, out = aws_cli(stack, "eks", "describe-addon", "--cluster-name",
                          cluster, "--addon-name", addon)
        a = (out or {}).get("addon", {}) if rc == 0 else {}
        return a if a.get("status") == "ACTIVE" else None
    return rc, wait_for(active, timeout=timeout) or {}


def aws_price(stack, region, itype):
    """The on-demand USD per hour (a Decimal) the sandbox's Price List
    lists for HyperPod itype in region, read with the aws CLI; None
    without the CLI or a price."""
    from decimal import Decimal
    rc, out = aws_cli(stack, "--region", "us-east-1", "pricing",
                      "get-products", "--service-code", "AmazonSageMaker",
                      "--filters", json.dumps([
                          {"Type": "TERM_MATCH", "Field": "regionCode",
                           "Value": region},
                          {"Type": "TERM_MATCH", "Field": "instanceName",
                           "Value": itype}]))
    if rc != 0 or not isinstance(out, dict) or not out.get("PriceList"):
        return None
    item = json.loads(out["PriceList"][0])
    for term in item["terms"]["OnDemand"].values():
        for d in term["priceDimensions"].values():
            return Decimal(d["pricePerUnit"]["USD"])
    return None


def aws_cli_error(stack, *args):
    """Run the aws CLI expecting a refusal: (rc, stderr), rc None when
    the CLI is not installed."""
    exe = shutil.which("aws")
    if exe is None:
        return None, ""
    r = subprocess.run([exe, "--endpoint-url",
                        sandbox_info(stack)["aws_endpoint"]] + list(args),
                       capture_output=True, text=True, timeout=120,
                       env=aws_env(stack))
    return r.returncode, r.stderr


def gpu_cluster(t, stack, name, count, bucket=None, gpus=None,
                timeout=240):
    """Make cluster name through Slipway: one group "gpu" of count nodes
    of the first GPU type without EFA (with exactly gpus GPUs if given),
    S3 storage on bucket (default <name>-training-data).  Ends the test
    (plan done, stack stopped) if it is not created.  Answers (the
    instance type, the GPU types by name)."""
    types = {i["instance_type"]: i for i in stack.get(
        "/api/v1/instance-types?gpu_only=true").json["items"]}
    gtype = next(n for n, i in sorted(types.items())
                 if not i["efa_supported"] and i["gpus"] > 0 and
                 (gpus is None or i["gpus"] == gpus))
    r = stack.post("/api/v1/clusters", {
        "name": name, "storage": {"s3_bucket": bucket or
                                  name + "-training-data"},
        "instance_groups": [{"name": "gpu", "instance_type": gtype,
                             "count": count, "availability_zone":
                             types[gtype]["availability_zones"][0]}]})
    t.eq(r.status, 202, "cluster create accepted")
    doc = wait_operation(stack, r.json["operation_id"], timeout=timeout) \
        if r.status == 202 else {}
    if not t.eq(doc.get("state"), "succeeded", "cluster created"):
        t.diag(repr(r) + json.dumps(doc)[-2000:])
        stack.stop()
        t.done()
        sys.exit(0)
    return gtype, types


def wait_operation(stack, op_id, timeout=180):
    """Long-poll an operation to a terminal state; returns its document."""
    deadline = time.time() + timeout
    doc = None
    since = -1
    while time.time() < deadline:
        q = "timeout=20" + ("&since_updated_ms=%d" % since if since >= 0
                            else "")
        r = stack.get("/api/v1/operations/%s:wait?%s" % (op_id, q))
        if r.status != 200:
            return r.json
        doc = r.json
        since = doc.get("updated_ms", since)
        if doc.get("terminal"):
            return stack.get("/api/v1/operations/%s" % op_id).json
    return stack.get("/api/v1/operations/%s" % op_id).json


def wait_for(fn, timeout=60, every=0.3):
    """Call fn until it answers something true or timeout seconds pass;
    its last answer.  The pause starts at 20 ms and grows by half up to
    every: most conditions hold within a few hundred milliseconds, and
    a flat 0.3 s pause added 0.15 s to each wait on average."""
    deadline = time.time() + timeout
    pause = min(0.02, every)
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(pause)
        pause = min(pause * 1.5, every)
    return fn()


class Kubectl:
    """The real kubectl against the Kubernetes API of a sandbox EKS
    cluster: the endpoint and CA from `aws eks describe-cluster`, a static
    sandbox token.  desc is the DescribeCluster answer."""

    def __init__(self, stack, cluster):
        self.bin = shutil.which("kubectl.1.32") or shutil.which("kubectl")
        st, tok = sandbox_call(stack, "POST", "/_sandbox/kube-token",
                               {"cluster": cluster})
        rc, self.desc = aws_cli(stack, "eks", "describe-cluster", "--name",
                                cluster)
        self.dir = tempfile.mkdtemp(prefix="sw-kube-")
        self.config = os.path.join(self.dir, "kubeconfig")
        c = self.desc["cluster"]
        with open(self.config, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "Config",
                       "clusters": [{"name": cluster, "cluster": {
                           "server": c["endpoint"],
                           "certificate-authority-data":
                           c["certificateAuthority"]["data"]}}],
                       "users": [{"name": "u", "user": {
                           "token": tok["token"]}}],
                       "contexts": [{"name": cluster, "context": {
                           "cluster": cluster, "user": "u"}}],
                       "current-context": cluster}, f)

    def run(self, *args, stdin=None):
        return subprocess.run([self.bin, "--kubeconfig", self.config,
                               "--cache-dir",
                               os.path.join(self.dir, "cache")] +
                              list(args), capture_output=True, text=True,
                              timeout=60, input=stdin)

    def get(self, *args):
        """`kubectl get -o json ARGS` parsed, or None when it fails."""
        p = self.run("get", "-o", "json", *args)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)
