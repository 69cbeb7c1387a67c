"""Container logs, generated deterministically from the pod's start time.

Training pods (Jobs, HyperPodPyTorchJob, RayJob) print a plausible
distributed-training log with throughput lines such as
`step 120/1000 loss=1.93 tokens/s=48211` and finish after their last step;
inference pods print a model-server log with request throughput; anything
else prints a heartbeat.  Lines are a pure function of elapsed sandbox
time, so `logs -f` can stream them as they become due, across restarts.
"""
import hashlib
import math

WARMUP = 25.0  # sandbox seconds before the first step


def _env(container, name):
    for e in container.get("env") or []:
        if e.get("name") == name and e.get("value") is not None:
            return str(e["value"])
    return None


def _arg(container, flag):
    args = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


def profile(pod):
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    return ann.get("sandbox.slipway.dev/workload", "generic")


def training_params(pod, container):
    steps = _env(container, "MAX_STEPS") or _env(container, "TOTAL_STEPS") or _arg(container, "--max-steps") \
        or _arg(container, "--max_steps")
    step_s = _env(container, "STEP_SECONDS") or (pod["metadata"].get("annotations") or {}).get(
        "sandbox.slipway.dev/step-seconds")
    try:
        steps = max(1, min(100000, int(steps))) if steps else 1000
    except ValueError:
        steps = 1000
    try:
        step_s = max(0.01, float(step_s)) if step_s else 3.0
    except ValueError:
        step_s = 3.0
    return steps, step_s


def checkpoint_every(container, steps):
    """Steps between the trainer's checkpoints: CHECKPOINT_EVERY_STEPS,
    else every quarter of the run."""
    v = _env(container, "CHECKPOINT_EVERY_STEPS")
    try:
        if v is not None and int(v) > 0:
            return int(v)
    except ValueError:
        pass
    every = max(1, steps // 100) if steps > 100 else 10 if steps >= 10 else 1
    return every * 25


def duration(pod):
    """Sandbox seconds until the workload finishes (None = runs forever)."""
    prof = profile(pod)
    if prof != "training":
        return None
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    steps, step_s = training_params(pod, containers[0])
    return WARMUP + steps * step_s + 5.0


def _rand(seed, i, lo, hi):
    h = int(hashlib.sha256(("%s:%d" % (seed, i)).encode()).hexdigest()[:8], 16)
    return lo + (h / 0xFFFFFFFF) * (hi - lo)


def lines(pod, container_name, elapsed):
    """[(sandbox_offset, text)] for every line due by `elapsed` sandbox seconds."""
    spec = pod.get("spec") or {}
    containers = spec.get("containers") or [{"name": "main"}]
    container = next((c for c in containers if c.get("name") == container_name), containers[0])
    name = pod["metadata"]["name"]
    prof = profile(pod)
    out = []
    if prof == "training":
        steps, step_s = training_params(pod, container)
        ann = pod["metadata"].get("annotations") or {}
        world = ann.get("sandbox.slipway.dev/world-size", "1")
        rank = ann.get("sandbox.slipway.dev/rank", "0")
        node = spec.get("nodeName") or "unknown"
        out += [(0.0, "[hyperpodrun] starting elastic agent on %s (rank %s of %s)" % (node, rank, world)),
                (1.0, "[hyperpodrun] rendezvous complete: world_size=%s master_addr=%s-0" % (world, name.rsplit("-", 1)[0])),
                (3.0, "NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct"),
                (6.0, "loading dataset shards from /fsx/data (%d shards)" % int(_rand(name, 0, 16, 256))),
                (12.0, "model initialised: parameters=8.03B dtype=bfloat16 fsdp=FULL_SHARD"),
                (WARMUP - 1, "starting training: max_steps=%d global_batch=%d" % (steps, 1024))]
        every = max(1, steps // 100) if steps > 100 else 10 if steps >= 10 else 1
        tps_base = _rand(name, 1, 38000, 52000)
        for step in range(every, steps + 1, every):
            t = WARMUP + step * step_s
            if t > elapsed:
                break
            loss = 1.2 + 9.6 * math.exp(-step / (steps / 6.0)) + _rand(name, step, -0.05, 0.05)
            tps = int(tps_base + _rand(name, step + 7, -1500, 1500))
            out.append((t, "step %d/%d loss=%.2f tokens/s=%d lr=%.2e" % (
                step, steps, loss, tps, 3e-4 * min(1.0, step / max(1.0, steps * 0.05)))))
            if step % checkpoint_every(container, steps) == 0:
                out.append((t + 0.1, "saving checkpoint step-%d to /fsx/checkpoints/%s" % (step, name)))
        done = WARMUP + steps * step_s + 1
        if done <= elapsed:
            out.append((done, "training complete: %d steps, final loss=%.2f" % (
                steps, 1.2 + 9.6 * math.exp(-6.0))))
    elif prof == "inference":
        port = 8000
        for c in containers:
            for p in c.get("ports") or []:
                port = p.get("containerPort", port)
                break
        out += [(0.0, "INFO:     Started server process [1]"),
                (2.0, "INFO:     Loading model weights from /opt/ml/model"),
                (20.0, "INFO:     Model loaded in 18.4s (15.2 GiB)"),
                (21.0, "INFO:     Uvicorn running on http://0.0.0.0:%d (Press CTRL+C to quit)" % port)]
        start = max(0, int((elapsed - 21.0) / 15.0) - 500)
        i = start
        while True:
            t = 36.0 + i * 15.0
            if t > elapsed:
                break
            out.append((t, "INFO:     10.0.%d.%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK "
                           "throughput=%d tokens/s latency_p50=%dms" % (
                               int(_rand(name, i, 1, 254)), int(_rand(name, i + 1, 1, 254)),
                               int(_rand(name, i + 2, 900, 2400)), int(_rand(name, i + 3, 40, 180)))))
            i += 1
    else:
        out.append((0.0, "container %s started" % container.get("name", "main")))
        start = max(0, int(elapsed / 30.0) - 500)
        i = max(1, start)
        while 30.0 * i <= elapsed:
            out.append((30.0 * i, "heartbeat %d: ok" % i))
            i += 1
    return [(t, s) for t, s in out if t <= elapsed]
