"""pgserver.py: a PostgreSQL cluster of a test's own, for the tests that
run Slipway on PostgreSQL with a server they control (stop, restart,
several replicas on one database).  Made with Debian's postgresql
binaries in a temporary directory, listening only on a unix socket
there; as root it is the postgres user's (initdb refuses root).  The
database `slipway` exists, owned by the user slipway; stopped and
removed at exit."""
import atexit
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading

from harness import free_port


def binaries(t):
    """The newest installed PostgreSQL's bin directory; skips the whole
    test when there is none."""
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not bins:
        t.skip_all("PostgreSQL is not installed (Debian's postgresql "
                   "package: /usr/lib/postgresql/<version>/bin/initdb "
                   "is missing)")
    return os.path.dirname(bins[-1])


class Server:
    def __init__(self, t, prefix="sw-pg-", settings=()):
        """settings: more `-c name=value` server options."""
        self.t = t
        self.bin = binaries(t)
        self.dir = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.dir, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.options = "-k %s -p %d -c listen_addresses=''" % (
            self.dir, self.port) + "".join(" -c %s" % s for s in settings)
        self.as_user = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.run("initdb", "-D", self.data, "-A", "trust", "-U", "slipway",
                 "-E", "UTF8", "--locale=C")
        self.start()
        atexit.register(self.remove)
        self.createdb("slipway")
        self.url = self.url_of("slipway")

    def run(self, prog, *args, check=True):
        """Run one of the server's programs as its owner."""
        r = subprocess.run(self.as_user + [os.path.join(self.bin, prog)] +
                           list(args), capture_output=True, text=True,
                           timeout=120, cwd=self.dir)
        if check and r.returncode != 0:
            self.t.diag("%s: %s %s" % (prog, r.stdout, r.stderr))
            self.t.bail("cannot run %s" % prog)
        return r

    def start(self):
        self.run("pg_ctl", "-D", self.data, "-l",
                 os.path.join(self.dir, "log"), "-w", "-o", self.options,
                 "start")

    def stop(self, check=True):
        self.run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop",
                 check=check)

    def remove(self):
        self.stop(check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def url_of(self, db):
        return "postgresql:///%s?host=%s&port=%d&user=slipway" % (
            db, self.dir, self.port)

    def createdb(self, name):
        self.run("createdb", "-h", self.dir, "-p", str(self.port), "-U",
                 "slipway", name)

    def psql(self, sql, db="slipway"):
        """One statement's rows, unaligned, as text ("" on an error)."""
        r = self.run("psql", "-h", self.dir, "-p", str(self.port), "-U",
                     "slipway", "-d", db, "-At", "-c", sql, check=False)
        return r.stdout.strip()


class Session:
    """One psql kept open on the server: a test that asks many times a
    second (a lease's owner, its token) asks without a process each."""

    def __init__(self, server, db="slipway"):
        self.p = subprocess.Popen(
            server.as_user + [os.path.join(server.bin, "psql"), "-h",
                              server.dir, "-p", str(server.port), "-U",
                              "slipway", "-d", db, "-X", "-At", "-q", "-F",
                              "|"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1, cwd=server.dir)
        self.lock = threading.Lock()
        atexit.register(self.close)

    def rows(self, sql):
        """One statement's rows, each a list of its columns ([] on an
        error)."""
        with self.lock:
            self.p.stdin.write(sql.rstrip().rstrip(";") +
                               ";\n\\echo __END__\n")
            self.p.stdin.flush()
            out = []
            for line in self.p.stdout:
                line = line.rstrip("\n")
                if line == "__END__":
                    break
                if line:
                    out.append(line.split("|"))
            return out

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=30)
