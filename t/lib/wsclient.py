"""wsclient.py: a small RFC 6455 WebSocket client for the tests.

connect() does the HTTP/1.1 upgrade (checking Sec-WebSocket-Accept) or
returns the refusal as (status, headers, body); a WS object reads text
frames as JSON (recv), answers pings, and reports the close code the
server sent.  Client frames are masked, as the RFC requires.
"""
import base64
import hashlib
import json
import os
import socket
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Refused(Exception):
    def __init__(self, status, headers, body):
        Exception.__init__(self, "HTTP %d" % status)
        self.status = status
        self.headers = headers
        self.body = body
        try:
            self.json = json.loads(body)
        except ValueError:
            self.json = None


class WS:
    def __init__(self, sock, rest):
        self.sock = sock
        self.buf = rest
        self.close_code = None
        self.close_reason = ""

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed without a close frame")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send_frame(self, opcode, payload=b""):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + body)

    def recv(self):
        """The next text message as JSON, or None once the server closed
        (close_code then says how)."""
        if self.close_code is not None:
            return None
        data = b""
        while True:
            b0, b1 = self._read(2)
            if b1 & 0x80:
                raise ValueError("server frames must not be masked")
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            op = b0 & 0x0F
            if op == 0x8:
                self.close_code = struct.unpack("!H", payload[:2])[0] \
                    if len(payload) >= 2 else 1005
                self.close_reason = payload[2:].decode("utf-8", "replace")
                try:
                    self.send_frame(0x8, payload[:2])
                except OSError:
                    pass
                return None
            if op == 0x9:
                self.send_frame(0xA, payload)
                continue
            if op == 0xA:
                continue
            data += payload
            if b0 & 0x80:
                return json.loads(data.decode("utf-8"))

    def close(self, code=1000):
        try:
            self.send_frame(0x8, struct.pack("!H", code))
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def connect(port, path, headers=None, timeout=30):
    """Open ws://127.0.0.1:port/path; a WS, or raises Refused."""
    key = base64.b64encode(os.urandom(16)).decode()
    h = {"Host": "127.0.0.1:%d" % port, "Upgrade": "websocket",
         "Connection": "Upgrade", "Sec-WebSocket-Key": key,
         "Sec-WebSocket-Version": "13"}
    h.update(headers or {})
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    req = "GET %s HTTP/1.1\r\n" % path + "".join(
        "%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
    s.sendall(req.encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0] else 0
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    if status != 101:
        n = int(hdrs.get("content-length", "0") or 0)
        while len(rest) < n:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
        s.close()
        raise Refused(status, hdrs, rest.decode("utf-8", "replace"))
    want = base64.b64encode(hashlib.sha1((key + GUID).encode())
                            .digest()).decode()
    if hdrs.get("sec-websocket-accept") != want:
        s.close()
        raise ValueError("bad Sec-WebSocket-Accept")
    return WS(s, rest)
