"""HTTP plumbing shared by the AWS listener and the Kubernetes API servers.

ThreadingHTTPServer with HTTP/1.1 keep-alive, explicit Content-Length,
chunked streaming for watches and log follows, bounded bodies, socket
timeouts, optional TLS done in the worker thread, and a catch-all so a bug
becomes a 500 in the protocol's shape instead of a traceback or a hang.
"""
import http.server
import selectors
import socket
import socketserver
import ssl
import sys
import threading
import traceback
import urllib.parse

from .sigv4 import parse_query

MAX_BODY = 64 * 1024 * 1024


class Request:
    """A parsed HTTP request: raw path and query (for SigV4) plus decoded forms."""

    def __init__(self, method, target, headers, body, client=None):
        self.method = method
        if target.startswith(("http://", "https://")):
            parts = urllib.parse.urlsplit(target)
            target = parts.path + ("?" + parts.query if parts.query else "")
        self.target = target
        raw_path, _, raw_query = target.partition("?")
        self.raw_path = raw_path or "/"
        self.raw_query = raw_query
        self.path = urllib.parse.unquote(self.raw_path)
        self.query_pairs = parse_query(raw_query)
        self.query = {}
        for k, v in self.query_pairs:
            self.query.setdefault(k, v)
        self.headers = headers
        self.body = body
        self.client = client
        self._lower = {}
        for k, v in headers:
            self._lower.setdefault(k.lower(), v)

    def header(self, name, default=None):
        return self._lower.get(name.lower(), default)

    @property
    def host(self):
        return self.header("host", "")


class BadRequest(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class BaseHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60
    server_name = "sandbox"

    def version_string(self):
        return self.server_name

    def log_message(self, fmt, *args):
        pass

    def read_request(self):
        raw = self.path.encode("latin-1", "replace").decode("utf-8", "replace")
        headers = list(self.headers.items())
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            body = self._read_chunked()
        else:
            length = self.headers.get("Content-Length")
            try:
                n = int(length) if length else 0
            except ValueError:
                raise BadRequest(400, "invalid Content-Length")
            if n < 0 or n > MAX_BODY:
                raise BadRequest(413, "request body too large")
            body = self.rfile.read(n) if n else b""
            if len(body) != n:
                raise BadRequest(400, "incomplete body")
        if (self.headers.get("Expect") or "").lower() == "100-continue":
            pass
        return Request(self.command, raw, headers, body, self.client_address)

    def _read_chunked(self):
        out = bytearray()
        while True:
            line = self.rfile.readline(1024)
            if not line:
                raise BadRequest(400, "incomplete chunked body")
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise BadRequest(400, "bad chunk size")
            if size == 0:
                while True:
                    trailer = self.rfile.readline(8192)
                    if trailer in (b"\r\n", b"\n", b""):
                        break
                break
            if len(out) + size > MAX_BODY:
                raise BadRequest(413, "request body too large")
            out += self.rfile.read(size)
            self.rfile.readline(8)
        return bytes(out)

    def send_response_obj(self, resp, head=False):
        """Write a protocols.Response-like object (status, headers, body, stream)."""
        if getattr(resp, "drop", False):
            self.drop_connection()
            return
        self.send_response(resp.status)
        names = set()
        for k, v in resp.headers:
            self.send_header(k, v)
            names.add(k.lower())
        if resp.stream is not None:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for chunk in resp.stream():
                    if not chunk:
                        continue
                    if isinstance(chunk, str):
                        chunk = chunk.encode("utf-8")
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, socket.timeout, ssl.SSLError, OSError):
                self.close_connection = True
            return
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(resp.body)))
        # Headers and body leave in one write: two small writes on one
        # connection meet Nagle and the peer's delayed ACK (40 ms each).
        self._headers_buffer.append(b"\r\n")
        if not head and resp.body:
            self._headers_buffer.append(resp.body if isinstance(resp.body, bytes)
                                        else resp.body.encode("utf-8"))
        self.wfile.write(b"".join(self._headers_buffer))
        self._headers_buffer = []

    def drop_connection(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (ConnectionResetError, BrokenPipeError, socket.timeout, ssl.SSLError):
            self.close_connection = True
        except Exception:  # noqa: BLE001 - last resort, never leak a traceback
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """Threaded server; optional TLS handshake happens in the worker thread."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, addr, handler, world, ssl_context=None, name="aws"):
        self.world = world
        self.ssl_context = ssl_context
        self.name = name
        super().__init__(addr, handler)

    def finish_request(self, request, client_address):
        request.settimeout(60)
        try:
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        if self.ssl_context is not None:
            try:
                request = self.ssl_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                try:
                    request.close()
                except OSError:
                    pass
                return
        self.RequestHandlerClass(request, client_address, self)

    def handle_error(self, request, client_address):
        pass


class Acceptor:
    """One thread accepting connections for many servers (every
    cluster's Kubernetes API server): each connection is then served on
    a thread of its own as before.  A thread per listener, each waking
    to poll for a shutdown, cost a thousand clusters' sandbox thousands
    of wake-ups a second, all contending for the interpreter."""

    def __init__(self, name):
        self.sel = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.name = name
        self.thread = None

    def add(self, server):
        """Accept server's connections from now on."""
        server.socket.setblocking(False)
        with self.lock:
            self.sel.register(server.socket, selectors.EVENT_READ, server)
            if self.thread is None:
                self.thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self.thread.start()

    def remove(self, server):
        """Stop accepting server's connections and close its listener;
        connections being served finish on their own threads."""
        with self.lock:
            try:
                self.sel.unregister(server.socket)
            except (KeyError, ValueError):
                pass
        server.server_close()

    def _loop(self):
        while True:
            with self.lock:
                empty = not self.sel.get_map()
            if empty:
                threading.Event().wait(0.2)
                continue
            try:
                ready = self.sel.select(timeout=0.5)
            except OSError:
                continue
            for key, _ in ready:
                server = key.data
                with self.lock:
                    live = key.fileobj in self.sel.get_map()
                if live:
                    # accept (a listener closed meanwhile: OSError,
                    # which socketserver ignores) and hand the
                    # connection to a thread of its own
                    server._handle_request_noblock()
