"""mcp_raw.py: MCP over raw HTTP for the t/3x-mcp-*.t tests.

Mcp(stack) builds JSON-RPC requests by hand, from the spec, for both
eras: legacy (initialize, Mcp-Session-Id, MCP-Protocol-Version) and
modern 2026-07-28 (params._meta, MCP-Protocol-Version, Mcp-Method,
Mcp-Name).  AuthProxy is a loopback forward proxy that adds an
Authorization header, for clients that cannot send one (MCP Inspector
0.15.0 CLI, the conformance suite); the server still checks the token.
"""
import http.client
import http.server
import json
import threading

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


class Mcp:
    def __init__(self, stack, token="default"):
        self.s = stack
        self.token = stack.token if token == "default" else token

    def post(self, body=None, headers=None, raw=None, token="default",
             method="POST"):
        h = {"Accept": ACCEPT, "Content-Type": "application/json"}
        h.update(headers or {})
        if raw is None and body is not None:
            raw = json.dumps(body).encode()
        return self.s.request(method, "/mcp", raw=raw, headers=h,
                              token=self.token if token == "default"
                              else token)

    # ---- legacy era ------------------------------------------------------
    def initialize(self, version=LEGACY, token="default"):
        r = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": version,
                                  "capabilities": {},
                                  "clientInfo": {"name": "raw-test",
                                                 "version": "1"}}},
                      token=token)
        return r, r.header("Mcp-Session-Id")

    def legacy(self, method, params=None, sid=None, version=LEGACY, rid=1,
               headers=None, token="default"):
        msg = {"jsonrpc": "2.0", "method": method}
        if rid is not None:
            msg["id"] = rid
        if params is not None:
            msg["params"] = params
        h = {}
        if sid:
            h["Mcp-Session-Id"] = sid
        if version:
            h["MCP-Protocol-Version"] = version
        h.update(headers or {})
        return self.post(msg, headers=h, token=token)

    # ---- modern era (2026-07-28) -----------------------------------------
    @staticmethod
    def meta(version=MODERN):
        return {"io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw-test",
                                                       "version": "1"}}

    def modern(self, method, params=None, rid=1, version=MODERN,
               headers=None, name=None, drop=(), token="default"):
        p = dict(params or {})
        p["_meta"] = self.meta(version)
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}
        h = {"MCP-Protocol-Version": version, "Mcp-Method": method}
        if name is not None:
            h["Mcp-Name"] = name
        elif method == "tools/call":
            h["Mcp-Name"] = p.get("name", "")
        h.update(headers or {})
        for d in drop:
            h.pop(d, None)
        return self.post(msg, headers=h, token=token)

    def call(self, name, args=None, token="default"):
        """tools/call in the modern era; returns the Response."""
        params = {"name": name}
        if args is not None:
            params["arguments"] = args
        return self.modern("tools/call", params, token=token)


def err_code(r):
    try:
        return r.json["error"]["code"]
    except (TypeError, KeyError):
        return None


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _forward(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        h = {k: v for k, v in self.headers.items()
             if k.lower() not in ("authorization", "connection",
                                  "content-length", "keep-alive")}
        h["Authorization"] = "Bearer " + self.server.token
        c = http.client.HTTPConnection("127.0.0.1", self.server.port,
                                       timeout=120)
        c.request(self.command, self.path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("transfer-encoding", "connection",
                                 "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        c.close()

    def _safe_forward(self):
        try:
            self._forward()
        except (BrokenPipeError, ConnectionResetError):
            pass        # the client went away; nothing to relay

    do_GET = do_POST = do_DELETE = do_PUT = do_OPTIONS = _safe_forward

    def log_message(self, *a):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass            # clients that hang up are not our test's failure


class AuthProxy:
    """Loopback proxy to the stack's nginx that adds a bearer token."""

    def __init__(self, stack, token):
        self.httpd = _QuietServer(("127.0.0.1", 0), _ProxyHandler)
        self.httpd.token = token
        self.httpd.port = stack.port
        self.port = self.httpd.server_address[1]
        self.url = "http://127.0.0.1:%d/mcp" % self.port
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
