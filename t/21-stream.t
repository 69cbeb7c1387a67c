#!/usr/bin/python3
# 21-stream.t: slipway-stream over nginx's /ws/.  Refusals before the
# upgrade (401 without credentials, 403 for a foreign Origin, problem+
# json bodies); a cluster create's operation pushed as the poller
# writes it (snapshot, updates well under a second after each write,
# end, close 1000, the last update equal to GET); 50 concurrent viewers
# of one pod's log each get every line exactly once from ONE upstream
# follow request, which stops when the last viewer leaves; a reconnect
# with after= gets exactly the lines after it; a finished pod ends the
# stream; a missing pod is an error and close 1008.  Only a Slipway
# workload's pod is served (403 for another's, kube-system's included,
# the rule REST's training_job_logs applies); a stream that never
# existed leaves no file and an ended one removes its own.  A viewer
# whose token is revoked, or whose session logs out, is closed with
# 1008 and gets nothing more; viewers are capped per token and in all
# (429 before the upgrade) while health and REST still answer.
import json
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Kubectl, Stack, sandbox_requests, wait_for
import wsclient

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
if (shutil.which("kubectl.1.32") or shutil.which("kubectl")) is None or \
        shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
s = Stack(t, sandbox=True, speed=1000)
ORIGIN = "http://127.0.0.1:%d" % s.port
AUTH = {"Authorization": "Bearer " + s.token}


def ws(path, headers=None):
    h = dict(AUTH)
    h.update(headers or {})
    return wsclient.connect(s.port, path, h)


def refused(path, headers):
    try:
        wsclient.connect(s.port, path, headers).close()
    except wsclient.Refused as r:
        return r
    return None


# ---- refusals before the upgrade
r = refused("/ws/operations/x", {})
t.eq(r and r.status, 401, "no credentials: 401 before the upgrade")
t.eq(r and r.headers.get("content-type"), "application/problem+json",
     "the refusal is problem+json")
t.eq(r and (r.json or {}).get("status"), 401, "its body says 401")
r = refused("/ws/operations/x", {"Authorization": "Bearer swt_00"})
t.eq(r and r.status, 401, "a bad token: 401")
r = refused("/ws/operations/x", {"Cookie": "sw_session=sws_nope"})
t.eq(r and r.status, 401, "a bad session cookie: 401")
r = refused("/ws/operations/x", dict(AUTH, Origin="http://evil.example"))
t.eq(r and r.status, 403, "a foreign Origin: 403")
t.eq(r and (r.json or {}).get("type"), "/problems/forbidden",
     "its problem type")
# A browser session (the UI's login) with our own Origin is let in.
lr = s.post("/api/v1/login", {"token": s.token}, token=None,
           headers={"Origin": ORIGIN})
cookie = None
for k, v in lr.headers:
    if k.lower() == "set-cookie" and v.startswith("sw_session="):
        cookie = v.split(";")[0]
if t.ok(cookie is not None, "login sets a session cookie (%d)" % lr.status):
    w = wsclient.connect(s.port, "/ws/operations/nope",
                         {"Cookie": cookie, "Origin": ORIGIN})
    m = w.recv()
    t.eq((m or {}).get("type"), "error", "session + our Origin: upgraded, "
         "then an error for a missing operation")
    t.eq((m or {}).get("status"), 404, "the error is a 404")
    t.eq((w.recv(), w.close_code), (None, 1008), "then close 1008")
    w.close()

# ---- Debian's Chromium under our CSP (connect-src 'self'): a
# same-origin WebSocket with the UI's session is allowed, another
# origin's is blocked
mod = os.path.join(os.path.dirname(__file__), "node_modules",
                   "playwright-core")
if os.path.exists("/usr/bin/chromium") and os.path.isdir(mod):
    p = subprocess.run(["node", os.path.join(os.path.dirname(__file__),
                                             "lib", "ws-csp.js"),
                        "http://127.0.0.1:%d" % s.port, s.token],
                       capture_output=True, text=True, timeout=120)
    try:
        b = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        b = {"error": p.stdout + p.stderr}
    t.ok("connect-src 'self';" in (b.get("csp") or ""),
         "the CSP says connect-src 'self' (%s)" % b.get("error", "ok"))
    t.eq(b.get("login"), 200, "logged in from the page")
    same = b.get("same") or {}
    t.eq([m.get("status") for m in same.get("seen", [])
          if isinstance(m, dict)], [404],
         "same-origin ws:// is allowed by 'self' and served (%s)" % same)
    t.ok(not [c for c in b.get("console", []) if "127.0.0.1" in c and
              "Content Security Policy" in c],
         "no CSP complaint about our own origin")
    foreign = b.get("foreign") or {}
    t.ok("csp:connect-src" in foreign.get("seen", []) or
         any("Content Security Policy" in c and "127.0.0.2" in c
             for c in b.get("console", [])),
         "another origin's WebSocket is blocked by the CSP")
else:
    t.skip("chromium or playwright-core missing", 5)

# ---- an operation pushed as it is written


def written_ms(op):
    """The newest time written into the operation."""
    times = [op.get("updated_ms") or 0]
    for st in op.get("stages") or []:
        times += [st.get("started_ms") or 0, st.get("finished_ms") or 0]
    times += [e.get("time_ms") or 0 for e in op.get("events") or []]
    return max(times)


r = s.get("/api/v1/instance-types")
types = {i["instance_type"]: i for i in r.json["items"]}
itype = "ml.m5.xlarge" if "ml.m5.xlarge" in types else sorted(types)[0]
r = s.post("/api/v1/clusters", {
    "name": "st", "instance_groups": [{
        "name": "cpu", "instance_type": itype, "count": 1,
        "availability_zone": types[itype]["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
op_id = r.json["operation_id"]
w = ws("/ws/operations/" + op_id, {"Origin": ORIGIN})
msgs = []
delays = []
seen_ws = []           # (time, events, updated_ms) as pushed
seen_get = []          # the same as GET saw them, polled every 100 ms
polling = True


def poll_get():
    while polling:
        d = s.get("/api/v1/operations/" + op_id).json or {}
        seen_get.append((time.time(), len(d.get("events") or []),
                         d.get("updated_ms", 0)))
        time.sleep(0.1)


poller = threading.Thread(target=poll_get)
poller.start()
while True:
    m = w.recv()
    if m is None:
        break
    now = time.time() * 1000
    msgs.append(m)
    if "operation" in m:
        seen_ws.append((time.time(), len(m["operation"].get("events")
                                         or []),
                        m["operation"].get("updated_ms", 0)))
    if m.get("type") == "update":
        delays.append(now - written_ms(m["operation"]))
w.close()
polling = False
poller.join()


def late_ms(when, nev, upd):
    """How long after GET saw it the stream had pushed this state."""
    for (tw, ne, up) in seen_ws:
        if ne >= nev and up >= upd:
            return max(0.0, (tw - when) * 1000)
    return 1e9


lates = sorted(late_ms(*g) for g in seen_get)
t.ok(lates and lates[-1] < 500,
     "every state GET saw had been pushed within 0.5 s (worst %.0f ms "
     "over %d polls)" % (lates[-1] if lates else -1, len(lates)))
t.eq(msgs[0].get("type") if msgs else None, "snapshot",
     "the first message is the snapshot")
t.ok(len(delays) >= 5, "%d updates pushed while it ran" % len(delays))
t.eq(msgs[-1], {"type": "end", "state": "succeeded"},
     "it ends with the terminal state")
t.eq(w.close_code, 1000, "and a normal close")
ops = [m["operation"] for m in msgs if "operation" in m]
final = s.get("/api/v1/operations/" + op_id).json
if ops and ops[-1] != final:
    t.diag("differs: %s" % [(k, ops[-1].get(k), final.get(k)) for k in
                            set(ops[-1]) | set(final)
                            if ops[-1].get(k) != final.get(k)])
t.eq(ops[-1] if ops else None, final,
     "the last operation pushed is exactly GET's body")
nev = [len(o.get("events") or []) for o in ops]
t.ok(nev == sorted(nev) and nev[-1] > nev[0],
     "events only grow (%s ... %s)" % (nev[:3], nev[-3:]))
delays.sort()
med = delays[len(delays) // 2] if delays else 1e9
t.ok(med < 400, "pushed when written: median %.0f ms after the write"
     % med)
w = ws("/ws/operations/" + op_id)
a, b = w.recv(), w.recv()
t.eq((a["type"], a["operation"], b), ("snapshot", final,
     {"type": "end", "state": "succeeded"}),
     "a terminal operation: snapshot, end")
w.close()

# ---- pod logs: 50 viewers, one upstream follow
kube = Kubectl(s, "st")
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "chatty", "namespace": "default",
                    "labels": {"app.kubernetes.io/managed-by": "slipway",
                               "slipway.dev/job": "chatty"}},
       "spec": {"containers": [{"name": "main", "image": "busybox",
                                "command": ["sleep", "86400"]}]}}
p = kube.run("apply", "-f", "-", stdin=json.dumps(pod))
t.eq(p.returncode, 0, "pod created " + p.stderr.strip())
t.ok(wait_for(lambda: ((kube.get("pod", "chatty") or {}).get("status")
                       or {}).get("phase") == "Running", timeout=60),
     "the pod runs")
LOG = "/ws/clusters/st/pods/default/chatty/logs?container=main"


def follows():
    return [e for e in sandbox_requests(s, service="kubernetes:st")
            if "/pods/chatty/log" in (e.get("params") or {}).get("path", "")
            and "follow=true" in (e.get("params") or {}).get("query", "")]


N, WANT = 50, 40
got = [None] * N
errs = []
ready = threading.Barrier(N)


def viewer(i):
    try:
        c = ws(LOG)
        ready.wait(30)
        seqs = []
        while True:
            m = c.recv()
            if m is None or m.get("type") != "line":
                errs.append((i, m, c.close_code))
                break
            seqs.append((m["seq"], m["text"]))
            if m["seq"] >= WANT:
                break
        c.close()
        got[i] = seqs
    except Exception as e:  # noqa: BLE001 - reported below
        errs.append((i, repr(e)))


# A viewer that never reads must not hold the others back.
stalled = ws(LOG)
th = [threading.Thread(target=viewer, args=(i,)) for i in range(N)]
for x in th:
    x.start()
for x in th:
    x.join(120)
t.eq(errs, [], "no viewer failed")
ok = [g for g in got if g is not None]
t.eq(len(ok), N, "%d viewers read the log" % N)
ref = ok[0] if ok else []
t.eq([q for q, _ in ref[:WANT]], list(range(1, WANT + 1)),
     "lines are numbered from 1 without a gap")
t.ok(all(g[:WANT] == ref[:WANT] for g in ok),
     "every viewer got every line exactly once, the same lines, "
     "beside a viewer that reads nothing")
t.ok(all(len({q for q, _ in g}) == len(g) for g in ok), "no duplicates")
t.eq(len(follows()), 1, "ONE upstream follow request for all viewers")
stalled.close()
t.ok(wait_for(lambda: "st/default/chatty/main stopped" in
              s.log_text("stream.log"), timeout=60),
     "the follow stopped after the last viewer left")
path = os.path.join(s.state, "podlogs", "st", "default", "chatty",
                    "main.log")
stored = open(path).read().splitlines() if os.path.exists(path) else []
t.ok(len(stored) >= WANT and stored[0].startswith("1\t") and
     stored[WANT - 1].split("\t", 2)[2] == ref[WANT - 1][1],
     "lines are on disk with their seq (%d)" % len(stored))

# ---- reconnect with after=: exactly the lines after it, the stored
# ones from the file, then new ones from a new follow (deduplicated)
M = 25
c = ws(LOG + "&after=%d" % M)
seqs = []
while not seqs or seqs[-1][0] < len(stored) + 3:
    m = c.recv()
    if m is None or m.get("type") != "line":
        break
    seqs.append((m["seq"], m["text"]))
c.close()
t.eq([q for q, _ in seqs], list(range(M + 1, M + 1 + len(seqs))),
     "after=%d resumes at %d, no duplicates, no gap (to %s)" %
     (M, M + 1, seqs[-1][0] if seqs else None))
t.eq(seqs[:WANT - M], ref[M:WANT], "the same lines as before")
hb = [int(x.split()[1].rstrip(":")) for _, x in seqs
      if x.startswith("heartbeat ")]
if not (len(hb) > 3 and hb == list(range(hb[0], hb[0] + len(hb)))):
    t.diag("heartbeats: %s" % hb)
t.ok(len(hb) > 3 and hb == list(range(hb[0], hb[0] + len(hb))),
     "across the two follows each heartbeat once, in order")
t.eq(len(follows()), 2, "a new viewer after the stop: one new follow")
later = [ln.split("\t", 2)[2] for ln in
         open(path).read().splitlines()] if os.path.exists(path) else []
t.eq(len(later), len(set(enumerate(later))),
     "the file holds each line once")
t.ok(len(later) == len(set(zip(later, range(len(later))))) and
     all(ln.split("\t")[0] == str(i + 1) for i, ln in
         enumerate(open(path).read().splitlines())),
     "file seqs are 1..n after the second follow")



def drain(c):
    out = []
    while True:
        m = c.recv()
        if m is None:
            return out
        out.append(m)


# ---- one rule with REST: only a Slipway workload's pod is served
plain = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "plain", "namespace": "default"},
         "spec": {"containers": [{"name": "main", "image": "busybox",
                                  "command": ["sleep", "86400"]}]}}
p = kube.run("apply", "-f", "-", stdin=json.dumps(plain))
t.eq(p.returncode, 0, "an unlabelled pod created " + p.stderr.strip())
wait_for(lambda: ((kube.get("pod", "plain") or {}).get("status")
                  or {}).get("phase") == "Running", timeout=60)
system = (kube.get("pods", "-n", "kube-system") or {}).get("items") or []
targets = ["default/plain"] + ["kube-system/" + x["metadata"]["name"]
                               for x in system[:1]]
t.ok(len(targets) == 2, "a kube-system pod to try (%s)" % targets)
for tg in targets:
    c = ws("/ws/clusters/st/pods/%s/logs" % tg)
    out = drain(c)
    c.close()
    t.eq([(m.get("type"), m.get("status")) for m in out], [("error", 403)],
         "%s: no line, error 403" % tg)
    t.eq(c.close_code, 1008, "%s: then close 1008" % tg)
t.ok(not os.path.exists(os.path.join(s.state, "podlogs", "st",
                                     "kube-system")) and
     not os.path.exists(os.path.join(s.state, "podlogs", "st", "default",
                                     "plain")),
     "nothing was written for them")

# ---- streams that do not exist leave nothing behind
before = sorted(os.walk(os.path.join(s.state, "podlogs")))
for i in range(100):
    c = ws("/ws/clusters/nope%d/pods/default/x/logs?container=c" % (i % 7))
    drain(c)
    c.close()
after = sorted(os.walk(os.path.join(s.state, "podlogs")))
t.eq(after, before, "100 viewers of clusters that do not exist wrote "
     "nothing under podlogs/")

# ---- credentials are checked while a viewer lives
ro1 = s.cli("token", "create", "--scope", "read", "--name", "ro1").strip()
lr = s.post("/api/v1/login", {"token": ro1}, token=None,
            headers={"Origin": ORIGIN})
ck = next((v.split(";")[0] for k, v in lr.headers
           if k.lower() == "set-cookie" and v.startswith("sw_session=")),
          None)
r = s.post("/api/v1/clusters", {
    "name": "st2", "instance_groups": [{
        "name": "cpu", "instance_type": itype, "count": 1,
        "availability_zone": types[itype]["availability_zones"][0]}]})
t.eq(r.status, 202, "a second create to watch")
op2 = r.json["operation_id"]
by_token = wsclient.connect(s.port, "/ws/operations/" + op2,
                            {"Authorization": "Bearer " + ro1})
log_token = wsclient.connect(s.port, LOG, {"Authorization": "Bearer " + ro1})
by_cookie = wsclient.connect(s.port, LOG, {"Cookie": ck, "Origin": ORIGIN})
first = by_token.recv()
t.eq((first or {}).get("type"), "snapshot", "the read token's viewer "
     "gets its snapshot")
t.eq((log_token.recv() or {}).get("type"), "line", "and log lines")
t.eq((by_cookie.recv() or {}).get("type"), "line",
     "so does the session's viewer")
r = s.request("DELETE", "/api/v1/tokens/ro1")
t.ok(r.status in (200, 204), "the token is revoked (%d)" % r.status)
for name, c in (("operation", by_token), ("log", log_token)):
    rest = drain(c)
    kinds = [m.get("type") for m in rest]
    t.ok(kinds[-1:] == ["error"] and (rest[-1] or {}).get("status") == 401,
         "%s viewer: told 401 once revoked (%s)" % (name, kinds[-3:]))
    t.eq(c.close_code, 1008, "%s viewer: closed with 1008" % name)
    c.close()
# The session dies with its token; a logout ends another one too.
rest = drain(by_cookie)
t.eq(((rest or [{}])[-1].get("status"), by_cookie.close_code), (401, 1008),
     "the session's viewer is closed with its token")
by_cookie.close()
lr = s.post("/api/v1/login", {"token": s.token}, token=None,
            headers={"Origin": ORIGIN})
ck = next((v.split(";")[0] for k, v in lr.headers
           if k.lower() == "set-cookie" and v.startswith("sw_session=")),
          None)
c = wsclient.connect(s.port, LOG, {"Cookie": ck, "Origin": ORIGIN})
t.eq((c.recv() or {}).get("type"), "line", "a new session's viewer reads")
r = s.post("/api/v1/logout", {}, token=None,
           headers={"Origin": ORIGIN, "Cookie": ck})
t.ok(r.status in (200, 204), "logout (%d)" % r.status)
rest = drain(c)
t.eq(((rest or [{}])[-1].get("status"), c.close_code), (401, 1008),
     "logging out closes its viewer with 1008")
c.close()
s.post("/api/v1/operations/%s:cancel" % op2, {})

# ---- caps: per token, and in all; health and REST answer meanwhile
PER, ALL = 64, 512
held = []
toks = [s.cli("token", "create", "--scope", "read", "--name",
              "cap%d" % i).strip() for i in range(ALL // PER + 1)]
for i in range(PER):
    held.append(wsclient.connect(s.port, LOG,
                                 {"Authorization": "Bearer " + toks[0]}))
r = refused(LOG, {"Authorization": "Bearer " + toks[0]})
t.eq(r and r.status, 429, "viewer %d of one token: 429" % (PER + 1))
t.eq(r and r.headers.get("content-type"), "application/problem+json",
     "a problem+json refusal")
t.ok(r and r.headers.get("retry-after"), "with Retry-After")
for k in range(1, ALL // PER):
    for i in range(PER):
        held.append(wsclient.connect(s.port, LOG,
                                     {"Authorization": "Bearer " + toks[k]}))
r = refused(LOG, {"Authorization": "Bearer " + toks[-1]})
t.eq(r and r.status, 429, "viewer %d in all, from a fresh token: 429"
     % (ALL + 1))
slow = 0.0
codes = set()
for _ in range(20):
    t0 = time.time()
    codes.add(s.get("/api/v1/health", token=None).status)
    codes.add(s.get("/api/v1/clusters").status)
    slow = max(slow, time.time() - t0)
t.eq(codes, {200}, "health and REST answer at the cap (slowest pair "
     "%.1f ms)" % (slow * 1000))
for c in held:
    c.close()
t.ok(wait_for(lambda: refused(LOG, {"Authorization": "Bearer " + toks[-1]})
              is None, timeout=30),
     "after they leave, a viewer is let in again")

# ---- the pod is gone: a later viewer still gets the stored history,
# then the error
p = kube.run("delete", "pod", "chatty", "--grace-period=0", "--force")
t.eq(p.returncode, 0, "pod deleted")
wait_for(lambda: kube.get("pod", "chatty") is None, timeout=30)
have = len(open(path).read().splitlines())
c = ws(LOG)
out = []
while True:
    m = c.recv()
    if m is None:
        break
    out.append(m)
c.close()
t.eq([m["seq"] for m in out if m.get("type") == "line"],
     list(range(1, have + 1)), "a deleted pod: its %d stored lines" % have)
t.eq(((out[-1] if out else {}).get("type"), (out[-1] if out else
      {}).get("status"), c.close_code), ("error", 404, 1008),
     "then error 404 and close 1008")
t.ok(wait_for(lambda: not os.path.exists(path), timeout=60),
     "the ended stream's file is removed")

# ---- a pod that finishes: its lines, then end and close 1000
job = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "short", "namespace": "default",
                    "labels": {"app.kubernetes.io/managed-by": "slipway",
                               "slipway.dev/job": "short"},
                    "annotations": {"sandbox.slipway.dev/workload":
                                    "training"}},
       "spec": {"restartPolicy": "Never",
                "containers": [{"name": "main", "image": "busybox",
                                "command": ["sleep", "1"],
                                "env": [{"name": "MAX_STEPS", "value": "5"},
                                        {"name": "STEP_SECONDS",
                                         "value": "1"}]}]}}
p = kube.run("apply", "-f", "-", stdin=json.dumps(job))
t.eq(p.returncode, 0, "a short pod created " + p.stderr.strip())
wait_for(lambda: ((kube.get("pod", "short") or {}).get("status")
                  or {}).get("phase") in ("Running", "Succeeded"),
         timeout=60)
c = ws("/ws/clusters/st/pods/default/short/logs")
out = []
while True:
    m = c.recv()
    if m is None:
        break
    out.append(m)
c.close()
lines = [m["text"] for m in out if m.get("type") == "line"]
t.ok(any("training complete" in x for x in lines),
     "a finished pod's log arrives whole (%d lines)" % len(lines))
t.eq((out[-1] if out else None, c.close_code), ({"type": "end"}, 1000),
     "then end and close 1000")
t.ok(wait_for(lambda: not os.path.exists(os.path.join(
    s.state, "podlogs", "st", "default", "short")), timeout=60),
     "a finished pod's stream removes what it wrote")

# ---- a missing pod: error, close 1008
c = ws("/ws/clusters/st/pods/default/ghost/logs")
m = c.recv()
t.eq(((m or {}).get("type"), (m or {}).get("status")), ("error", 404),
     "a missing pod: error 404")
t.eq((c.recv(), c.close_code), (None, 1008), "then close 1008")
c.close()
r = refused("/ws/clusters/st/pods/Bad_NS/x/logs", AUTH)
t.eq(r and r.status, 404, "a malformed path: 404 before the upgrade")

# ---- supervised: a killed stream comes back on the same socket, and a
# viewer connecting meanwhile waits instead of being refused
st = {c["name"]: c for c in s.status().get("components", [])}
old = (st.get("stream") or {}).get("pid")
t.ok(old, "the supervisor runs slipway-stream (pid %s)" % old)
if old:
    os.kill(old, 9)
    try:
        w = ws("/ws/operations/" + op_id)
        m = w.recv()
        w.close()
    except wsclient.Refused as e:
        m = {"refused": e.status}
    t.eq((m or {}).get("type"), "snapshot",
         "a viewer connecting while it restarts is served")
    new = wait_for(lambda: next((c["pid"] for c in s.status().get(
        "components", []) if c["name"] == "stream" and c.get("pid") and
        c["pid"] != old), None), timeout=10)
    t.ok(new, "restarted as pid %s" % new)

kube.close()
s.stop()
t.done()
