"""webhook.py: a webhook receiver on loopback for the notification tests.

Receiver() listens on a free port below the ephemeral range and keeps
every POST: its path, headers (with the time it arrived under
"received") and body.  A path in fail answers 500, so a test can watch
retries and the dead-letter list; every other path answers 204.
signed_ok() checks Slipway's signature headers as a receiver would:
HMAC-SHA256 over "<timestamp>.<body>" with the subscription's secret,
and a timestamp within ten minutes.
"""
import hashlib
import hmac
import http.server
import threading
import time

from harness import free_port


class Receiver:
    def __init__(self, fail=("/fail",)):
        self.got = []           # (path, headers, body)
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(n)
                h = dict(self.headers)
                h["received"] = time.time()
                with outer.lock:
                    outer.got.append((self.path, h, body))
                self.send_response(500 if self.path in fail else 204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", self.port),
                                                   Handler)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.port

    def received(self, path):
        """(headers, body) of every POST to path, in order."""
        with self.lock:
            return [(h, b) for p, h, b in self.got if p == path]

    def stop(self):
        self.srv.shutdown()


def signed_ok(secret, h, b):
    ts = h.get("Slipway-Timestamp", "")
    want = "v1=" + hmac.new(secret.encode(), ts.encode() + b"." + b,
                            hashlib.sha256).hexdigest()
    return (hmac.compare_digest(h.get("Slipway-Signature", ""), want) and
            abs(time.time() - int(ts or 0)) < 600)
