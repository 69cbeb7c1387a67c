#!/usr/bin/python3
"""rest-mcp.py: what a REST read, an MCP tools/call and a long poll cost.

Starts the real stack (nginx + workers, no sandbox) with bench/hello as
a plugin under /ext/hello/, and with wrk against the same nginx in one
run measures:

  1. (median of 3 interleaved rounds for 1 and 2)
     an authenticated REST read (GET /api/v1/whoami) against the hello
     FastCGI program: the ratio is Slipway's own cost (target >= 0.8);
  2. an MCP tools/call of whoami (2026-07-28, stateless) against the
     REST request it wraps (target >= 0.8);
  3. with 8 concurrent 60 s operation_waits open (4 read tokens, 2 each),
     the latency of /api/v1/health and of the REST read, 300 requests
     one after another (target: every one under 50 ms), and under wrk
     load for reference (there the tail is the machine's, not the
     waits').

Usage: bench/rest-mcp.py [seconds per wrk run] [connections]
       (defaults 10 and 8).  Needs wrk (apt-get install wrk).
Run by hand from a build tree: cd build && ../bench/rest-mcp.py
"""
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))
from tap import T                       # noqa: E402
from harness import Stack               # noqa: E402

BUILD = os.environ.get("SW_BUILDDIR", os.getcwd())
HELLO = os.path.join(BUILD, "bench", "slipway-bench-hello")
MODERN = "2026-07-28"


def install_hello(state):
    os.makedirs(os.path.join(state, "plugins.d"), exist_ok=True)
    with open(os.path.join(state, "plugins.d", "hello.json"), "w") as f:
        json.dump({"name": "hello", "program": HELLO,
                   "location": "/ext/hello/", "workers": 4}, f)


def wrk(port, path, secs, conns, token=None, lua=None):
    """Requests/s and latency (avg, max in ms) of one wrk run."""
    args = ["wrk", "-t2", "-c%d" % conns, "-d%ds" % secs, "--latency"]
    if token:
        args += ["-H", "Authorization: Bearer " + token]
    if lua:
        args += ["-s", lua]
    args.append("http://127.0.0.1:%d%s" % (port, path))
    out = subprocess.run(args, capture_output=True, text=True,
                         timeout=secs + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    lat = re.search(r"Latency\s+([\d.]+)(us|ms|s)\s+[\d.]+\w+\s+"
                    r"([\d.]+)(us|ms|s)", out)

    def ms(v, u):
        return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[u]
    return {"rps": rps, "non2xx": int(bad.group(1)) if bad else 0,
            "avg_ms": ms(lat.group(1), lat.group(2)),
            "max_ms": ms(lat.group(3), lat.group(4))}


ROUNDS = 3


def median(results):
    """The run with the median requests/s."""
    return sorted(results, key=lambda r: r["rps"])[len(results) // 2]


def probe(port, path, token=None, n=300):
    """n requests one after another (keep-alive): latencies in ms, the
    way a person or a script sees them, not under a saturating load."""
    import http.client
    h = {"Authorization": "Bearer " + token} if token else {}
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=90)
    out = []
    start = time.time()
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            c.request("GET", path, headers=h)
            r = c.getresponse()
            r.read()
            ok = r.status == 200
        except (OSError, http.client.HTTPException):
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=90)
            ok = False
        out.append((time.perf_counter() - t0) * 1000)
        if not ok:
            out[-1] = float("inf")
        if time.time() - start > 60:
            break               # a starved service: enough seen
    c.close()
    out.sort()
    return {"p50": out[len(out) // 2], "p99": out[int(len(out) * 0.99)],
            "max": out[-1]}


def mcp_lua(tmp):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "whoami", "_meta": {
                           "io.modelcontextprotocol/protocolVersion":
                           MODERN,
                           "io.modelcontextprotocol/clientCapabilities": {},
                           "io.modelcontextprotocol/clientInfo": {
                               "name": "bench", "version": "1"}}}})
    path = os.path.join(tmp, "mcp.lua")
    with open(path, "w") as f:
        f.write('wrk.method = "POST"\n'
                'wrk.body = %s\n'
                'wrk.headers["Content-Type"] = "application/json"\n'
                'wrk.headers["Accept"] = "application/json, '
                'text/event-stream"\n'
                'wrk.headers["MCP-Protocol-Version"] = "%s"\n'
                'wrk.headers["Mcp-Method"] = "tools/call"\n'
                'wrk.headers["Mcp-Name"] = "whoami"\n'
                % (json.dumps(body), MODERN))
    return path


def main():
    secs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    conns = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    if shutil.which("wrk") is None:
        sys.exit("rest-mcp.py: wrk is not installed (apt-get install wrk)")
    if not os.access(HELLO, os.X_OK):
        sys.exit("rest-mcp.py: build %s first (make)" % HELLO)
    t = T()
    s = Stack(t, workers=4, pre_start=install_hello)
    tmp = tempfile.mkdtemp(prefix="sw-bench-")
    try:
        # Warm up every worker (first requests open the database).
        wrk(s.port, "/api/v1/whoami", 2, conns, s.token)
        wrk(s.port, "/ext/hello/", 2, conns)
        # Interleaved rounds, median of each: the machine is shared, so
        # one run of each would compare moments, not programs.
        lua = mcp_lua(tmp)
        runs = {"hello": [], "rest": [], "mcp": []}
        for _ in range(ROUNDS):
            runs["hello"].append(wrk(s.port, "/ext/hello/", secs, conns))
            runs["rest"].append(wrk(s.port, "/api/v1/whoami", secs, conns,
                                    s.token))
            runs["mcp"].append(wrk(s.port, "/mcp", secs, conns, s.token,
                                   lua))
        hello, rest, mcp = (median(runs[k]) for k in ("hello", "rest",
                                                       "mcp"))
        health_idle = wrk(s.port, "/api/v1/health", secs, conns)
        probe_idle = probe(s.port, "/api/v1/health")

        # 8 long polls of 60 s on an operation that never changes.
        db = glob.glob(os.path.join(s.state, "*.db"))[0]
        now = int(time.time() * 1000)
        op = "op-00000000000000b1"
        with sqlite3.connect(db, timeout=10) as c:
            c.execute("INSERT INTO operations (id, kind, target, params,"
                      " state, token_name, created, updated, due) VALUES"
                      " (?, 'bench.wait', 't', '{}', 'pending', 'bench',"
                      " ?, ?, ?)", (op, now, now, now + 3600 * 1000))
        readers = [s.cli("token", "create", "--scope", "read", "--name",
                         "bench%d" % i).strip() for i in range(4)]
        waits = []

        def wait(tok):
            try:
                s.get("/api/v1/operations/%s:wait?timeout=60" % op,
                      token=tok, timeout=200)
            except Exception:       # noqa: BLE001 - the stack stopped
                pass
        for i in range(8):
            th = threading.Thread(target=wait, args=(readers[i % 4],),
                                  daemon=True)
            th.start()
            waits.append(th)
        time.sleep(1)
        probe_busy = probe(s.port, "/api/v1/health")
        probe_rest = probe(s.port, "/api/v1/whoami", s.token)
        busy_secs = min(secs, 25)
        health_busy = wrk(s.port, "/api/v1/health", busy_secs, conns)
        rest_busy = wrk(s.port, "/api/v1/whoami", busy_secs, conns,
                        s.token)
    finally:
        s.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    def line(name, r):
        print("%-34s %9.0f req/s  avg %7.2f ms  max %8.2f ms  non-2xx %d"
              % (name, r["rps"], r["avg_ms"], r["max_ms"], r["non2xx"]))
    print("# wrk -t2 -c%d -d%ds, one stack, 4 workers per pool; hello, "
          "REST and MCP: median of %d interleaved rounds" % (conns, secs,
                                                            ROUNDS))
    line("hello FastCGI (/ext/hello/)", hello)
    line("REST GET /api/v1/whoami", rest)
    line("MCP tools/call whoami", mcp)
    line("health, idle", health_idle)
    line("health, 8 x 60 s waits open", health_busy)
    line("REST whoami, 8 x 60 s waits open", rest_busy)
    print("REST / hello            %.2f  (target >= 0.80)" %
          (rest["rps"] / hello["rps"]))
    print("MCP / REST              %.2f  (target >= 0.80)" %
          (mcp["rps"] / rest["rps"]))
    for name, p in (("health one by one, idle", probe_idle),
                    ("health one by one, 8 waits open", probe_busy),
                    ("whoami one by one, 8 waits open", probe_rest)):
        print("%-34s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms" %
              (name, p["p50"], p["p99"], p["max"]))
    print("max latency, 8 waits open: %.1f ms health, %.1f ms REST "
          "(target < 50 ms; one request at a time)" %
          (probe_busy["max"], probe_rest["max"]))


if __name__ == "__main__":
    main()
