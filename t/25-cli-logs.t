#!/usr/bin/python3
# 25-cli-logs.t: `slipway logs [-f] job NAME --cluster C` against a stack
# on the sandbox.  -f follows the job's pods over the stream service's
# WebSocket with the context's token, prints each line once, in order,
# to the end of the log, and exits with the job's outcome: 0 when it
# succeeded, 1 when it failed; Ctrl-C ends it with 130.  Without -f the
# bounded tail of training_job_logs.  A job that does not exist is 3, a
# kind without logs is usage (2), and a context whose token is revoked
# is refused (4).  `slipway logs [-f] endpoint NAME` is the same for an
# inference endpoint's pods (inference_logs): the server's start lines;
# -f follows until Ctrl-C (130) or until the endpoint is gone (0); an
# endpoint that does not exist is 3.
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SLIPWAY, SRCDIR, Stack, gpu_cluster, wait_for, \
    wait_operation

t = T()
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None or shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
import harness  # noqa: E402
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)
tmp = tempfile.mkdtemp(prefix="sw-cli-logs-")
ENV = dict(os.environ, SLIPWAY_CONTEXTS=os.path.join(tmp, "contexts.json"))
ENV.pop("SLIPWAY_SERVER", None)
ENV.pop("SLIPWAY_TOKEN", None)
s = Stack(t, sandbox=True, speed=3000)
C = "/api/v1/clusters/lg"


def cli(*args, timeout=600):
    r = subprocess.run([SLIPWAY] + list(args), capture_output=True,
                       text=True, timeout=timeout, env=ENV)
    return r.returncode, r.stdout, r.stderr


tokf = os.path.join(tmp, "token")
with open(tokf, "w") as f:
    f.write(s.token + "\n")
rc, _, err = cli("context", "set", "sb", "--server",
                 "http://127.0.0.1:%d" % s.port, "--token-file", tokf)
t.eq(rc, 0, "a context with the server and a token " + err)

gpu_cluster(t, s, "lg", 2, timeout=400)

r = s.request("PATCH", C + "/features", body={"training_operator": True})
d = wait_operation(s, r.json["operation_id"], timeout=300) \
    if r.status == 202 else {}
t.eq(d.get("state"), "succeeded", "the training operator installed")

job = {"job_name": "short", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": 1, "dataset": "alpaca", "model": "llama-3-8b",
       "max_steps": 30, "env": {"STEP_SECONDS": "2"}}
r = s.post(C + "/training-jobs", job)
t.ok(r.status in (200, 201, 202), "a training job submitted (%d %s)" %
     (r.status, r.body[:300]))

# ---- -f: the whole log, once, in order, and the job's outcome --------
rc, out, err = cli("logs", "-f", "job", "short", "--cluster", "lg")
lines = out.splitlines()
steps = [int(m.group(1)) for m in (re.match(r"step (\d+)/30 ", x)
                                   for x in lines) if m]
t.eq(rc, 0, "logs -f of a job that succeeds: exit 0 (%s)" % err.strip())
t.ok(any(x.startswith("[hyperpodrun] starting") for x in lines[:3]),
     "from the log's first line (%s)" % lines[:1])
t.ok(lines and lines[-1].startswith("training complete"),
     "to its last (%s)" % lines[-1:])
t.ok(steps and steps == sorted(set(steps)) and steps[-1] == 30,
     "each step line once, in order (%s)" % steps)
t.ok("Succeeded" in err, "and says how the job ended (%s)" % err.strip())

# ---- without -f: the bounded tail ------------------------------------
rc, out, err = cli("logs", "job", "short", "--cluster", "lg", "--tail", "3")
t.eq((rc, len(out.splitlines())), (0, 3), "logs --tail 3: three lines")
t.ok(out.splitlines()[-1:] == lines[-1:], "the same last line")

# ---- a job that fails ------------------------------------------------
r = s.post(C + "/models:download", {"model_id": "Qwen/Qwen3-0.6B",
                                    "job_name": "dl-noshell",
                                    "image": "alpine:3.20"})
t.eq(r.status, 201, "a download on an image without python3 submitted")
rc, out, err = cli("logs", "-f", "job", "dl-noshell", "--cluster", "lg")
t.ok(rc == 1 and "Failed" in err,
     "logs -f of a job that fails: exit 1, saying so (%d %s)" %
     (rc, err.strip()))

# ---- an inference endpoint --------------------------------------------
r = s.post(C + "/inference", {"endpoint_name": "srv", "engine": "vllm",
                              "model": "Qwen3-0.6B", "replicas": 1})
t.eq(r.status, 200, "a self-hosted endpoint deployed (%s)" % r.body[:300])


def started():
    # the whole log (the sandbox keeps its last 500 request lines), so
    # the start lines are there however late the first look comes
    rc, out, _ = cli("logs", "endpoint", "srv", "--cluster", "lg",
                     "--tail", "2000")
    return out if rc == 0 and "Started server process" in out else None


out = wait_for(started, 300, every=2)
t.ok(out and out.splitlines()[0].startswith("INFO:     Started server"),
     "logs endpoint: the server's start lines (%s)" % (out or "")[:200])
r = s.get(C + "/inference/srv/logs?tail=2")
pods = (r.json or {}).get("pods") or [{}]
t.ok(r.status == 200 and r.json.get("kind") == "self-hosted" and
     len(pods) == 1 and 0 < len(pods[0].get("lines", [])) <= 2,
     "inference_logs: the server pod's last 2 lines (%d %s)" %
     (r.status, r.body[:300]))
p = subprocess.Popen([SLIPWAY, "logs", "-f", "endpoint", "srv", "--cluster",
                      "lg"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, env=ENV)
first = p.stdout.readline()
p.send_signal(signal.SIGINT)
try:
    p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    p.communicate()
t.ok(first.startswith("INFO:     Started server"),
     "logs -f endpoint: from the server's first line (%s)" % first.strip())
t.eq(p.returncode, 130, "Ctrl-C ends an endpoint's follow: exit 130")
p = subprocess.Popen([SLIPWAY, "logs", "-f", "endpoint", "srv", "--cluster",
                      "lg"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, env=ENV)
first = p.stdout.readline()
r = s.request("DELETE", C + "/inference/srv")
t.eq(r.status, 200, "the endpoint deleted (%s)" % r.body[:200])
try:
    _, err = p.communicate(timeout=300)
except subprocess.TimeoutExpired:
    p.kill()
    _, err = p.communicate()
t.ok(p.returncode == 0 and "gone" in err, "logs -f endpoint ends with the "
     "endpoint: exit 0, saying so (%s %s)" % (p.returncode, err.strip()))
rc, _, err = cli("logs", "-f", "endpoint", "nope", "--cluster", "lg")
t.eq(rc, 3, "an endpoint that does not exist: exit 3 (%s)" % err.strip())
rc, _, err = cli("logs", "endpoint", "nope", "--cluster", "lg")
t.eq(rc, 3, "and without -f: exit 3")

# ---- Ctrl-C ------------------------------------------------------------
r = s.post(C + "/training-jobs", dict(job, job_name="long", max_steps=5000,
                                      env={"STEP_SECONDS": "30"}))
t.ok(r.status in (200, 201, 202), "a long job submitted")
p = subprocess.Popen([SLIPWAY, "logs", "-f", "job", "long", "--cluster",
                      "lg"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, env=ENV)
first = p.stdout.readline()
p.send_signal(signal.SIGINT)
try:
    p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    p.communicate()
t.ok(first.startswith("[hyperpodrun]"), "a running job's log arrives "
     "(%s)" % first.strip())
t.eq(p.returncode, 130, "Ctrl-C ends the follow: exit 130")

# ---- refusals and mistakes --------------------------------------------
rc, _, err = cli("logs", "-f", "job", "nope", "--cluster", "lg")
t.eq(rc, 3, "a job that does not exist: exit 3 (%s)" % err.strip())
rc, _, err = cli("logs", "-f", "volume", "x", "--cluster", "lg")
t.eq(rc, 2, "a kind without logs: usage, exit 2")
rc, _, err = cli("logs", "-f", "job", "short")
t.eq(rc, 2, "no --cluster: usage, exit 2")
bad = os.path.join(tmp, "bad")
with open(bad, "w") as f:
    f.write("swt_0000000000000000_" + "A" * 43 + "\n")
rc, _, err = cli("context", "set", "nobody", "--server",
                 "http://127.0.0.1:%d" % s.port, "--token-file", bad)
rc, _, err = cli("logs", "-f", "job", "short", "--cluster", "lg")
t.eq(rc, 4, "a token the server does not know: refused, exit 4")
s.stop()
t.done()
