"""What a training pod writes to its storage: PyTorch DCP checkpoints.

A real trainer saves a distributed checkpoint every few steps into
OUTPUT_DIR/checkpoints/step-<N>/: every rank writes its shard
(`__<rank>_0.distcp`), and when all shards are down the coordinator
(rank 0) writes `.metadata`; a save that stops part way leaves shards
without it.  Saves are asynchronous: training goes on while a save is
written, and a process that exits before its last save finished leaves
that checkpoint partial.

Here the pod's OUTPUT_DIR is resolved through its volume mounts to the
PersistentVolume behind the claim; on an S3 Mountpoint volume
(s3.csi.aws.com, bucketName, an optional `prefix` mount option) the
objects are written into the sandbox's S3 with the time they were due.
Other volumes (FSx, emptyDir) keep their files where only a mount sees
them, as on a real cluster.

Cadence: CHECKPOINT_EVERY_STEPS (default: every quarter of the run, as
the log says), CHECKPOINT_SAVE_SECONDS (sandbox seconds a save takes,
default 1).  What a pod has written is counted in an annotation, so an
object deleted later (retention) is not written again.
"""
import hashlib

from . import logs

WRITTEN = "sandbox.slipway.dev/checkpoint-writes"
SHARD_BYTES = 4096


def _float_env(container, name, dflt):
    v = logs._env(container, name)
    try:
        return max(0.0, float(v)) if v is not None else dflt
    except ValueError:
        return dflt


def _mount_of(kc, pod, container, path):
    """(bucket, key prefix of path) when path lies on an S3 Mountpoint
    volume of the pod, else None."""
    md, spec = pod["metadata"], pod.get("spec") or {}
    best = None
    for vm in container.get("volumeMounts") or []:
        mp = (vm.get("mountPath") or "").rstrip("/")
        if mp and (path == mp or path.startswith(mp + "/")) and (best is None or len(mp) > len(best[0])):
            best = (mp, vm.get("name"))
    if best is None:
        return None
    vol = next((v for v in spec.get("volumes") or [] if v.get("name") == best[1]), None)
    claim = ((vol or {}).get("persistentVolumeClaim") or {}).get("claimName")
    if not claim:
        return None
    pvc = kc.store.get("", "persistentvolumeclaims", md.get("namespace", "default"), claim)
    pvname = ((pvc or {}).get("spec") or {}).get("volumeName")
    pv = kc.store.get("", "persistentvolumes", None, pvname) if pvname else None
    csi = ((pv or {}).get("spec") or {}).get("csi") or {}
    if csi.get("driver") != "s3.csi.aws.com":
        return None
    bucket = (csi.get("volumeAttributes") or {}).get("bucketName")
    prefix = ""
    for opt in (pv["spec"].get("mountOptions") or []):
        words = opt.replace("=", " ").split()
        if len(words) == 2 and words[0].lstrip("-") == "prefix":
            prefix = words[1].rstrip("/") + "/"
    rel = path[len(best[0]):].strip("/")
    return bucket, prefix + (rel + "/" if rel else "")


def writes(pod, container):
    """[(sandbox offset, relative key, size)] this pod writes over its run,
    in time order."""
    ann = pod["metadata"].get("annotations") or {}
    rank = int(ann.get("sandbox.slipway.dev/rank", "0") or 0)
    steps, step_s = logs.training_params(pod, container)
    every = logs.checkpoint_every(container, steps)
    save = _float_env(container, "CHECKPOINT_SAVE_SECONDS", 1.0)
    out = []
    for step in range(every, steps + 1, every):
        t = logs.WARMUP + step * step_s
        d = "checkpoints/step-%d/" % step
        size = SHARD_BYTES + int(hashlib.sha256(("%s%d" % (pod["metadata"]["name"], step)).encode()).hexdigest()[:3], 16)
        out.append((t + 0.05, d + "__%d_0.distcp" % rank, size))
        if rank == 0:
            out.append((t + save, d + ".metadata", 512))
    out.sort(key=lambda w: w[0])
    return out


def write_due(kc, pod, upto):
    """Write the objects due by the absolute time upto (at most the
    pod's end); answers True when the pod's annotation changed."""
    md = pod["metadata"]
    ann = md.get("annotations") or {}
    if ann.get("sandbox.slipway.dev/workload") != "training":
        return False
    containers = (pod.get("spec") or {}).get("containers") or []
    if not containers:
        return False
    c = containers[0]
    out_dir = logs._env(c, "OUTPUT_DIR")
    started = ann.get("sandbox.slipway.dev/started-at")
    if not out_dir or started is None:
        return False
    done = int(ann.get(WRITTEN, "0") or 0)
    plan = writes(pod, c)
    if done >= len(plan):
        return False
    clock = kc.world.clock
    due = [w for w in plan[done:] if clock.due(w[0], float(started)) <= upto]
    if not due:
        return False
    where = _mount_of(kc, pod, c, out_dir.rstrip("/"))
    s3 = kc.world.services.get("s3")
    for off, rel, size in due:
        if where is not None and s3 is not None:
            body = hashlib.sha256(("%s/%s" % (md["name"], rel)).encode()).digest() * (size // 32 + 1)
            s3.write_object(where[0], where[1] + rel, body[:size], clock.due(off, float(started)))
    ann[WRITTEN] = str(done + len(due))
    md["annotations"] = ann
    return True
