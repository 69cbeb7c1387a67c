#!/usr/bin/python3
# 89-listen-lb.t: slipway.conf's listen, for instances behind a load
# balancer (the high-availability shape of cfn/slipway.yaml).  By default
# nginx answers on loopback only: a connection to the host's own
# non-loopback address is refused.  With listen = 0.0.0.0 the health
# check a load balancer sends (GET /api/v1/health, Host the target's
# address) and an authenticated call answer on that address as on
# loopback, while every other route still refuses a Host that is
# neither loopback nor an allowed origin (DNS rebinding).  Any other
# value is refused before anything starts, naming the key and the
# values it takes.
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SLIPWAY, Stack

t = T()


def own_address():
    """This host's address on its default route (no packet is sent)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


ADDR = own_address()
if ADDR is None or ADDR.startswith("127."):
    t.skip_all("this host has no non-loopback IPv4 address")


def get(addr, port, path, token=None, host=None):
    """(status, body) of GET path at addr:port (Host: host, else
    addr:port), or (None, why)."""
    h = {"Host": host or "%s:%d" % (addr, port)}
    if token:
        h["Authorization"] = "Bearer " + token
    try:
        c = http.client.HTTPConnection(addr, port, timeout=30)
        c.request("GET", path, headers=h)
        r = c.getresponse()
        body = r.read().decode("utf-8", "replace")
        c.close()
        return r.status, body
    except OSError as e:
        return None, str(e)


# --- the default: loopback only ----------------------------------------------
s = Stack(t)
st, _ = get("127.0.0.1", s.port, "/api/v1/health")
t.eq(st, 200, "default: health answers on 127.0.0.1")
st, why = get(ADDR, s.port, "/api/v1/health")
t.eq(st, None, "default: nothing answers on %s (%s)" % (ADDR, why))
s.stop()

# --- listen = 0.0.0.0 ------------------------------------------------------------
s = Stack(t, conf=["listen = 0.0.0.0"])
st, body = get(ADDR, s.port, "/api/v1/health")
doc = json.loads(body) if st == 200 else {}
t.ok(st == 200 and doc.get("status") == "ok" and
     doc.get("state_store") == "ok",
     "listen = 0.0.0.0: the load balancer's health check answers 200 on "
     "%s (%s %s)" % (ADDR, st, body[:200]))
# Through the SSM port forward to the load balancer the browser's Host
# is 127.0.0.1:<port>, as on one instance.
LOCAL = "127.0.0.1:%d" % s.port
st, body = get(ADDR, s.port, "/api/v1/whoami", token=s.token, host=LOCAL)
t.ok(st == 200 and json.loads(body).get("name") == "test-admin",
     "an authenticated call answers on %s too (%s)" % (ADDR, st))
st, body = get(ADDR, s.port, "/api/v1/whoami", host=LOCAL)
t.eq(st, 401, "and still asks for credentials there")
# Only the health check answers any Host: DNS rebinding stays refused.
for path in ("/api/v1/whoami", "/api/v1/version", "/api/v1/openapi.json"):
    st, body = get(ADDR, s.port, path, token=s.token,
                   host="rebound.example:%d" % s.port)
    t.ok(st == 403 and "Host header" in body,
         "%s with a foreign Host is still refused (%s)" % (path, st))
st, _ = get(ADDR, s.port, "/api/v1/health", host="rebound.example")
t.eq(st, 200, "the health check answers a foreign Host")
st, _ = get("127.0.0.1", s.port, "/api/v1/health")
t.eq(st, 200, "loopback still answers (the container's health check)")
s.check_logs()
s.stop()

# --- any other value is refused ----------------------------------------------------
tmp = tempfile.mkdtemp(prefix="sw-listen-")
conf = os.path.join(tmp, "slipway.conf")
with open(conf, "w") as f:
    f.write("listen = %s\n" % ADDR)
r = subprocess.run([SLIPWAY, "start", "--state-dir",
                    os.path.join(tmp, "state"), "--port", "1"],
                   capture_output=True, text=True, timeout=60,
                   env=dict(os.environ, SLIPWAY_CONF=conf))
t.ok(r.returncode != 0 and "listen is 127.0.0.1" in r.stderr and
     "0.0.0.0" in r.stderr,
     "listen = %s is refused, naming the key and its values (%r)" %
     (ADDR, r.stderr.strip()[:200]))
t.ok(not os.path.exists(os.path.join(tmp, "state", "run", "slipway.pid")),
     "and nothing was started")
t.done()
