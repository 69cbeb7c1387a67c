#!/usr/bin/python3
"""instr.py: instructions per request of the REST and the MCP worker.

Latency on a shared machine moves with its load; instruction counts do
not.  This starts a stack (for its state directory and a token), then
runs each worker program of the build tree alone under callgrind
(--toggle-collect=serve: only the worker's own request path, from the
FastCGI parameters to the answer written), listening on a socket of its
own, and sends it WARM requests and then N more with the parameters
nginx sends that location (/api/: fastcgi_params and every header; /mcp:
only what slipway-mcp reads).  Prints instructions per request of:

  REST GET /api/v1/whoami        MCP tools/call whoami
  REST POST /api/v1/clusters     MCP tools/call cluster_create
    (refused by validation: the same JSON body, no AWS call)

With --wall it runs both workers without valgrind and prints the median
time of N (default 2000) requests sent to each straight over its socket,
interleaved: the worker alone, without nginx or an HTTP client.

Usage: cd build && ../bench/instr.py [--wall] [N]  (default 100; valgrind)
       SW_INSTR_KEEP=DIR keeps each callgrind output file in DIR.
"""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))
from tap import T                       # noqa: E402
from harness import Stack               # noqa: E402

BUILD = os.environ.get("SW_BUILDDIR", os.getcwd())
MODERN = "2026-07-28"
WARM = 5


def record(kind, rid, content):
    """FastCGI records of one stream (empty content: its end)."""
    out = b""
    for i in range(0, max(len(content), 1), 65535):
        part = content[i:i + 65535]
        out += struct.pack(">BBHHBx", 1, kind, rid, len(part), 0) + part
    if content:
        out += struct.pack(">BBHHBx", 1, kind, rid, 0, 0)
    return out


def pair(k, v):
    k, v = k.encode(), v.encode()

    def n(x):
        return (struct.pack(">B", len(x)) if len(x) < 128 else
                struct.pack(">I", len(x) | 0x80000000))
    return n(k) + n(v) + k + v


def fcgi(sock_path, params, body):
    """One request; the answer's bytes (head and body)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    msg = struct.pack(">BBHHBx", 1, 1, 1, 8, 0) + struct.pack(">HB5x", 1, 0)
    msg += record(4, 1, b"".join(pair(k, v) for k, v in params))
    msg += record(5, 1, body)
    s.sendall(msg)
    out, data = b"", b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    while len(data) >= 8:
        _, kind, _, clen, plen = struct.unpack(">BBHHB", data[:7])
        if kind == 6:
            out += data[8:8 + clen]
        data = data[8 + clen + plen:]
    return out


def api_params(port, token, method, uri, body):
    p = [("QUERY_STRING", ""), ("REQUEST_METHOD", method),
         ("CONTENT_TYPE", "application/json" if body else ""),
         ("CONTENT_LENGTH", str(len(body)) if body else ""),
         ("SCRIPT_NAME", uri), ("REQUEST_URI", uri), ("DOCUMENT_URI", uri),
         ("DOCUMENT_ROOT", "/usr/share/slipway/static"),
         ("SERVER_PROTOCOL", "HTTP/1.1"), ("REQUEST_SCHEME", "http"),
         ("GATEWAY_INTERFACE", "CGI/1.1"),
         ("SERVER_SOFTWARE", "nginx/1.22.1"),
         ("REMOTE_ADDR", "127.0.0.1"), ("REMOTE_PORT", "40000"),
         ("REMOTE_USER", ""), ("SERVER_ADDR", "127.0.0.1"),
         ("SERVER_PORT", str(port)), ("SERVER_NAME", "_"),
         ("REDIRECT_STATUS", "200"), ("HTTP_HOST", "127.0.0.1:%d" % port),
         ("HTTP_ACCEPT_ENCODING", "identity"),
         ("HTTP_AUTHORIZATION", "Bearer " + token), ("HTTP_PROXY", ""),
         ("SW_HTTP_HOST", "127.0.0.1:%d" % port),
         ("SW_REQUEST_ID", "0123456789abcdef0123456789abcdef")]
    if body:
        p.append(("HTTP_CONTENT_TYPE", "application/json"))
        p.append(("HTTP_CONTENT_LENGTH", str(len(body))))
    return p


def mcp_params(port, token, tool, body):
    return [("REQUEST_METHOD", "POST"), ("CONTENT_TYPE", "application/json"),
            ("CONTENT_LENGTH", str(len(body))),
            ("HTTP_AUTHORIZATION", "Bearer " + token),
            ("SW_HTTP_HOST", "127.0.0.1:%d" % port),
            ("HTTP_HOST", "127.0.0.1"),
            ("HTTP_ACCEPT", "application/json, text/event-stream"),
            ("HTTP_MCP_PROTOCOL_VERSION", MODERN),
            ("HTTP_MCP_METHOD", "tools/call"), ("HTTP_MCP_NAME", tool),
            ("SW_REQUEST_ID", "0123456789abcdef0123456789abcdef")]


def mcp_body(tool, args=None):
    params = {"name": tool, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench",
                                               "version": "1"}}}
    if args is not None:
        params["arguments"] = args
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": params}).encode()


REFUSED_ARGS = {"name": "Bad_Name", "instance_groups": [
    {"name": "w", "instance_type": "ml.g5.xlarge", "count": 1,
     "availability_zone": "us-east-1a"}]}


def run(state, program, requests, n, tmp):
    """Instructions program spends in serve() on requests (a list of
    (params, body, expected bytes in the answer)) sent n times."""
    sock_path = os.path.join(tmp, "w.sock")
    out = os.path.join(tmp, "cg.out")
    for p in (sock_path, out):
        if os.path.exists(p):
            os.unlink(p)
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(sock_path)
    ls.listen(16)
    env = dict(os.environ, SLIPWAY_STATE_DIR=state)
    w = subprocess.Popen(["valgrind", "--tool=callgrind",
                          "--toggle-collect=serve",
                          "--callgrind-out-file=" + out,
                          os.path.join(BUILD, "cgi", program)],
                         stdin=ls.fileno(), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    ls.close()
    try:
        for i in range(n):
            for params, body, want in requests:
                got = fcgi(sock_path, params, body)
                if want not in got:
                    raise RuntimeError("%s: %r" % (program, got[:400]))
    finally:
        # SIGTERM stops the loop at its next accept: wake it.
        w.terminate()
        try:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(sock_path)
            c.close()
        except OSError:
            pass
        w.wait(timeout=120)
    with open(out) as f:
        text = f.read()
    if os.environ.get("SW_INSTR_KEEP"):     # for callgrind_annotate
        shutil.copy(out, os.path.join(os.environ["SW_INSTR_KEEP"],
                                      "%s.%d.%d" % (program, n, len(
                                          requests[0][1]))))
    total = int(re.search(r"^(?:summary|totals):\s*(\d+)", text,
                          re.M).group(1))
    return total


def count(state, program, requests, n, tmp):
    """Instructions per request past the first WARM rounds (which open
    the database and prepare statements): two runs, the difference."""
    warm = run(state, program, requests, WARM, tmp)
    return (run(state, program, requests, WARM + n, tmp) - warm) / \
        float(n * len(requests))


def start(state, program, sock_path):
    """program of the build tree serving its own socket."""
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(sock_path)
    ls.listen(16)
    w = subprocess.Popen([os.path.join(BUILD, "cgi", program)],
                         stdin=ls.fileno(), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL,
                         env=dict(os.environ, SLIPWAY_STATE_DIR=state))
    ls.close()
    return w


def stop(w, sock_path):
    """SIGTERM stops the loop at its next accept: wake it."""
    w.terminate()
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(sock_path)
        c.close()
    except OSError:
        pass
    w.wait(timeout=120)


def wall(s, rows, n, tmp):
    """Median microseconds of each row's request, the rows interleaved
    request by request, each worker program on a socket of its own."""
    socks = {p: os.path.join(tmp, p + ".sock") for _, p, _ in rows}
    workers = {p: start(s.state, p, path) for p, path in socks.items()}
    times = [[] for _ in rows]
    try:
        for i in range(WARM + n):
            for k, (_, program, reqs) in enumerate(rows):
                params, body, want = reqs[0]
                t0 = time.perf_counter()
                got = fcgi(socks[program], params, body)
                dt = time.perf_counter() - t0
                if want not in got:
                    raise RuntimeError("%s: %r" % (program, got[:400]))
                if i >= WARM:
                    times[k].append(dt * 1e6)
    finally:
        for p, w in workers.items():
            stop(w, socks[p])
    return [sorted(t)[len(t) // 2] for t in times]


def main():
    args = sys.argv[1:]
    timing = args[:1] == ["--wall"]
    args = args[1:] if timing else args
    n = int(args[0]) if args else (2000 if timing else 100)
    if not timing and shutil.which("valgrind") is None:
        sys.exit("instr.py: valgrind is not installed")
    s = Stack(T(), workers=1)
    tmp = tempfile.mkdtemp(prefix="sw-instr-")
    refused = json.dumps(REFUSED_ARGS).encode()
    rows = [
        ("REST GET /api/v1/whoami", "slipway-api",
         [(api_params(s.port, s.token, "GET", "/api/v1/whoami", b""), b"",
           b"Status: 200")]),
        ("MCP tools/call whoami", "slipway-mcp",
         [(mcp_params(s.port, s.token, "whoami", mcp_body("whoami")),
           mcp_body("whoami"), b'"structuredContent"')]),
        ("REST POST /api/v1/clusters refused", "slipway-api",
         [(api_params(s.port, s.token, "POST", "/api/v1/clusters", refused),
           refused, b"Status: 400")]),
        ("MCP tools/call cluster_create refused", "slipway-mcp",
         [(mcp_params(s.port, s.token, "cluster_create",
                      mcp_body("cluster_create", REFUSED_ARGS)),
           mcp_body("cluster_create", REFUSED_ARGS), b'"isError":true')]),
    ]
    try:
        if timing:
            for (name, _, _), us in zip(rows, wall(s, rows, n, tmp)):
                print("%-40s %8.1f us per request (median of %d)" %
                      (name, us, n))
            return
        for name, program, reqs in rows:
            print("%-40s %8.1fk instructions per request" %
                  (name, count(s.state, program, reqs, n, tmp) / 1000.0))
            sys.stdout.flush()
    finally:
        s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        time.sleep(0)


if __name__ == "__main__":
    main()
