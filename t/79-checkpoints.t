#!/usr/bin/python3
# 79-checkpoints.t: a training job's checkpoints on the sandbox.  The
# job's pods save PyTorch DCP checkpoints into its S3 volume as a
# trainer does (shards, then .metadata; the last save is cut off when
# the process exits first), and training_checkpoint_list shows them
# with step, time and size, the newest complete one marked and the
# partial one not.  The sandbox's S3 pages ListObjectsV2 with
# continuation tokens and refuses a bad token and an oversized
# DeleteObjects as S3 does (aws CLI).  training_checkpoint_resume from
# the second-newest complete checkpoint makes a job whose spec names it
# (a partial one is a 422, an unknown one a 404); retention keeping the
# last complete one deletes with its stage exactly the keys its dry run
# listed, recorded in the stage, and S3 keeps the rest.  The job's page
# (Chromium) lists the checkpoints, marks the newest complete one,
# offers resume on complete ones only and shows the retention dry run.
# With the bucket gone the list says so (listed false), not an error.
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import ui_script
from harness import (SRCDIR, Kubectl, Stack, aws_cli, aws_cli_error,
                     gpu_cluster, sandbox_requests, wait_for, wait_operation)

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
kubectl = shutil.which("kubectl.1.32") or shutil.which("kubectl")
if kubectl is None or shutil.which("aws") is None:
    t.skip_all("kubectl or aws CLI missing")
s = Stack(t, sandbox=True, speed=2000)
C = "/api/v1/clusters/ck"
BUCKET = "slipway-ckpt-data"
PREFIX = "outputs/pretrain/checkpoints/"


def field_error(r, field, rule=None):
    return any(e.get("field") == field and (rule is None or
                                            e.get("rule") == rule)
               for e in (r.json or {}).get("errors", []))


def s3_keys(prefix=PREFIX):
    rc, out = aws_cli(s, "s3api", "list-objects-v2", "--bucket", BUCKET,
                      "--prefix", prefix)
    return {o["Key"]: o["Size"] for o in (out or {}).get("Contents", [])} \
        if rc == 0 else None


# ---- a cluster whose /data is an S3 bucket, and the training operator
rc, _ = aws_cli(s, "s3api", "create-bucket", "--bucket", BUCKET,
                "--create-bucket-configuration",
                "LocationConstraint=us-west-2")
t.eq(rc, 0, "the data bucket exists (aws s3api create-bucket)")
gtype, types = gpu_cluster(t, s, "ck", 2, bucket=BUCKET)
kube = Kubectl(s, "ck")
rc, _ = aws_cli(s, "eks", "create-addon", "--cluster-name", "ck",
                "--addon-name", "amazon-sagemaker-hyperpod-training-operator")
t.ok(rc == 0 and wait_for(lambda: kube.run(
    "get", "crd", "hyperpodpytorchjobs.sagemaker.amazonaws.com").returncode
    == 0, 60), "training operator installed")

# ---- a job that saves every 10 steps; each save takes 8 s, so the one
# at the last step is still being written when the process exits
job = {"job_name": "pretrain", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": 1, "dataset": "web", "max_steps": 40,
       "env": {"STEP_SECONDS": "2", "CHECKPOINT_EVERY_STEPS": "10",
               "CHECKPOINT_SAVE_SECONDS": "8"}}
r = s.post(C + "/training-jobs", job)
t.eq(r.status, 201, "job submitted")
done = wait_for(lambda: (s.get(C + "/training-jobs/pretrain").json or {})
                .get("terminal"), 180)
got = s.get(C + "/training-jobs/pretrain").json or {}
t.ok(done and got.get("state") == "Succeeded",
     "the job ran to Succeeded (%s)" % got.get("state"))

keys = s3_keys()
t.ok(keys is not None and
     sorted({k[len(PREFIX):].split("/")[0] for k in keys}) ==
     ["step-10", "step-20", "step-30", "step-40"],
     "the trainer wrote step-10..40 under the job's prefix (aws s3api): %s"
     % sorted(keys or {}))
t.ok(keys and PREFIX + "step-30/.metadata" in keys and
     PREFIX + "step-40/__0_0.distcp" in keys and
     PREFIX + "step-40/.metadata" not in keys,
     "step-30 has its .metadata; step-40 only its shard")

# ---- the sandbox's S3 pages and refuses as S3 does
rc, out = aws_cli(s, "s3api", "list-objects-v2", "--bucket", BUCKET,
                  "--prefix", PREFIX, "--max-keys", "3", "--no-paginate")
tok = (out or {}).get("NextContinuationToken") if rc == 0 else None
t.ok(rc == 0 and out.get("IsTruncated") is True and out.get("KeyCount") == 3
     and tok, "ListObjectsV2 max-keys 3: a truncated page with a token")
rc, out2 = aws_cli(s, "s3api", "list-objects-v2", "--bucket", BUCKET,
                   "--prefix", PREFIX, "--continuation-token", tok or "x",
                   "--no-paginate")
t.ok(rc == 0 and [o["Key"] for o in out.get("Contents", [])] +
     [o["Key"] for o in out2.get("Contents", [])] == sorted(keys or {}),
     "the continuation token gives the rest, in key order")
rc, err = aws_cli_error(s, "s3api", "list-objects-v2", "--bucket", BUCKET,
                        "--continuation-token", "bm90LWEtdG9rZW4=")
t.ok(rc != 0 and "InvalidArgument" in err,
     "a forged continuation token: InvalidArgument")
rc, err = aws_cli_error(s, "s3api", "delete-objects", "--bucket", BUCKET,
                        "--delete", json.dumps({"Objects": [
                            {"Key": "k%d" % i} for i in range(1001)]}))
t.ok(rc != 0 and "MalformedXML" in err,
     "DeleteObjects of 1001 keys: MalformedXML")
rc, err = aws_cli_error(s, "s3api", "list-objects-v2", "--bucket",
                        "slipway-no-such-bucket")
t.ok(rc != 0 and "NoSuchBucket" in err, "a missing bucket: NoSuchBucket")

# ---- the list
r = s.get(C + "/training-jobs/pretrain/checkpoints")
items = {i["name"]: i for i in (r.json or {}).get("items", [])}
t.ok(r.status == 200 and [i["name"] for i in r.json["items"]] ==
     ["step-40", "step-30", "step-20", "step-10"],
     "training_checkpoint_list: four checkpoints, newest step first")
t.ok(r.json.get("storage") == "s3" and r.json.get("bucket") == BUCKET and
     r.json.get("prefix") == PREFIX and r.json.get("listed") is True,
     "it names the bucket and prefix it read")
t.ok(r.json.get("newest_complete") == "step-30" and
     items["step-30"]["newest_complete"] is True and
     items["step-30"]["complete"] is True,
     "step-30 is the newest complete one, marked")
t.ok(items["step-40"]["complete"] is False and
     items["step-40"]["newest_complete"] is False,
     "step-40 is partial and not marked")
t.ok(all(not items[n]["newest_complete"] and items[n]["complete"]
         for n in ("step-20", "step-10")), "older ones complete, unmarked")
t.ok(all(i["size_bytes"] == sum(v for k, v in keys.items()
                                if k.startswith(PREFIX + n + "/")) and
         i["objects"] == len([k for k in keys
                              if k.startswith(PREFIX + n + "/")]) and
         i["step"] == int(n.split("-")[1]) and i.get("time")
         for n, i in items.items()),
     "each one's step, size and object count match S3, with a time")
t.eq(s.get(C + "/training-jobs/nope/checkpoints").status, 404,
     "an unknown job: 404")

# ---- resume
R = C + "/training-jobs/pretrain/checkpoints/%s/resume"
r = s.post(R % "step-40", {"job_name": "pretrain-r"})
t.ok(r.status == 422 and field_error(r, "checkpoint", "complete"),
     "resume from the partial step-40: 422 naming checkpoint")
r = s.post(R % "step-99", {"job_name": "pretrain-r"})
t.ok(r.status == 404 and field_error(r, "checkpoint", "exists"),
     "resume from a checkpoint that is not there: 404")
r = s.post(R % "bad", {"job_name": "pretrain-r"})
t.ok(r.status == 400 and field_error(r, "checkpoint"),
     "a checkpoint name outside the pattern: 400 naming it")
r = s.post((R % "step-20") + "?dry_run=true", {"job_name": "pretrain-r"})
if not t.ok(r.status == 200 and r.json.get("dry_run") is True and
            kube.get("hyperpodpytorchjobs", "pretrain-r") is None,
            "resume dry run: the plan, no job"):
    t.diag(repr(r))
r = s.post(R % "step-20", {"job_name": "pretrain-r"})
t.ok(r.status == 201 and r.json.get("job") == "pretrain-r",
     "resume from step-20 (the second-newest complete): 201")
hpj = kube.get("hyperpodpytorchjobs", "pretrain-r") or {}
c0 = (hpj.get("spec", {}).get("replicaSpecs") or [{}])[0].get(
    "template", {}).get("spec", {}).get("containers", [{}])[0]
env = {e["name"]: e.get("value") for e in c0.get("env", [])}
t.eq(env.get("RESUME_FROM_CHECKPOINT"),
     "/data/outputs/pretrain/checkpoints/step-20",
     "the new job's pods resume from step-20")
spec = json.loads(hpj.get("metadata", {}).get("annotations", {}).get(
    "slipway.io/submit-spec", "{}"))
t.ok(spec.get("resume_from") == "pretrain/checkpoints/step-20" and
     spec.get("job_name") == "pretrain-r" and spec.get("max_steps") == 40 and
     spec.get("env") == job["env"] and spec.get("dataset") == "web",
     "its recorded spec is the old one, renamed, naming the checkpoint")
t.ok(env.get("OUTPUT_DIR") == "/data/outputs/pretrain-r" and
     env.get("MAX_STEPS") == "40", "same spec, its own output directory")

# ---- a checkpoint of a 1000-rank run: more keys than one ListObjectsV2
# page or one DeleteObjects call holds (aws s3 sync puts them)
big = os.path.join(s.state, "step-5")
os.makedirs(big)
for i in range(1000):
    with open(os.path.join(big, "__%d_0.distcp" % i), "w") as f:
        f.write("shard %d\n" % i)
with open(os.path.join(big, ".metadata"), "w") as f:
    f.write("dcp metadata\n")
rc, _ = aws_cli(s, "s3", "sync", big, "s3://%s/%sstep-5/" % (BUCKET, PREFIX))
t.eq(rc, 0, "1001 objects of step-5 uploaded (aws s3 sync)")
pages_before = len(sandbox_requests(s, service="s3",
                                    operation="ListObjectsV2"))
r = s.get(C + "/training-jobs/pretrain/checkpoints")
items = {i["name"]: i for i in (r.json or {}).get("items", [])}
pages = len(sandbox_requests(s, service="s3",
                             operation="ListObjectsV2")) - pages_before
t.ok(r.status == 200 and [i["name"] for i in r.json["items"]] ==
     ["step-40", "step-30", "step-20", "step-10", "step-5"] and
     items["step-5"]["objects"] == 1001 and items["step-5"]["complete"],
     "the list reads every page: step-5 with its 1001 objects, complete")
t.ok(pages >= 2, "it followed the continuation token (%d pages)" % pages)

# ---- retention: keep the last complete one
P = C + "/training-jobs/pretrain/checkpoint-retention"
r = s.post(P, {"keep_last": 0})
t.ok(r.status == 400 and field_error(r, "keep_last"),
     "keep_last 0: 400 naming keep_last")
before = s3_keys()
r = s.post(P + "?dry_run=true", {"keep_last": 1})
calls = [c for c in (r.json or {}).get("calls", [])
         if c.get("operation") == "DeleteObjects"]
planned = [o["Key"] for c in calls
           for o in c["input"]["Delete"]["Objects"]]
want = sorted(k for k in before if k.startswith(PREFIX + "step-10/") or
              k.startswith(PREFIX + "step-20/") or
              k.startswith(PREFIX + "step-5/"))
t.ok(r.status == 200 and sorted(planned) == want and
     all(c["input"]["Bucket"] == BUCKET for c in calls),
     "dry run lists DeleteObjects of exactly step-20, step-10 and step-5's "
     "keys (%d)" % len(want))
t.ok(len(calls) == 2 and all(len(c["input"]["Delete"]["Objects"]) <= 1000
                             for c in calls),
     "in two DeleteObjects calls of at most 1000 keys")

# ---- the job's page shows the same (Chromium), when it can run
if os.path.isdir(os.path.join(SRCDIR, "t", "node_modules",
                              "playwright-core")) and \
        os.path.exists("/usr/bin/chromium") and shutil.which("node"):
    ui = ui_script(t, "checkpoints-ui.js", "http://127.0.0.1:%d" % s.port,
                    s.token, "ck", "pretrain")
    t.ok(ui.get("rows") == ["step-40", "step-30", "step-20", "step-10",
                            "step-5"] and
         ui.get("newest") == ["step-30"] and
         ui.get("resumable") == ["step-30", "step-20", "step-10", "step-5"],
         "the job page lists them, marks step-30 and offers resume on the "
         "complete ones only (%s)" % {k: ui.get(k) for k in
                                      ("rows", "newest", "resumable")})
    t.eq(sorted(ui.get("keys") or []), want,
         "the page's retention dry run lists the same keys")
else:
    t.skip("chromium, node or playwright-core missing: no UI check")
t.eq(s3_keys(), before, "the dry run deleted nothing")
r = s.post(P, {"keep_last": 1})
op = wait_operation(s, r.json["operation_id"], timeout=120) \
    if r.status == 202 else {}
t.eq(op.get("state"), "succeeded", "checkpoint.retain succeeded")
st = next((x for x in op.get("stages", []) if x.get("name") == "prune"), {})
res = st.get("resources", {})
t.ok(sorted(res.get("deleted", [])) == sorted(planned) and
     res.get("checkpoints") == ["step-20", "step-10", "step-5"],
     "the stage recorded exactly the keys the dry run listed")
after = s3_keys()
t.ok(after is not None and sorted(after) ==
     sorted(set(before) - set(planned)),
     "S3 holds the rest: step-30 and the partial step-40 (aws s3api)")
reqs = sandbox_requests(s, service="s3", operation="DeleteObjects")
reqs = [q for q in reqs if q.get("status") == 200]
t.eq(len(reqs), 2, "the stage called DeleteObjects twice (request log)")
r = s.get(C + "/training-jobs/pretrain/checkpoints")
t.ok(r.status == 200 and [i["name"] for i in r.json["items"]] ==
     ["step-40", "step-30"] and r.json.get("newest_complete") == "step-30",
     "the list now shows step-40 (partial) and step-30")

# ---- a bucket that is gone: nothing to list, said so, no error
t.ok(wait_for(lambda: (s.get(C + "/training-jobs/pretrain-r").json or {})
              .get("terminal"), 180), "the resumed job ended")
rc1, _ = aws_cli(s, "s3", "rm", "--recursive", "s3://" + BUCKET)
rc2, _ = aws_cli(s, "s3api", "delete-bucket", "--bucket", BUCKET)
t.ok(rc1 == 0 and rc2 == 0, "the bucket is emptied and deleted (aws CLI)")
r = s.get(C + "/training-jobs/pretrain/checkpoints")
t.ok(r.status == 200 and r.json.get("listed") is False and
     r.json.get("items") == [] and "NoSuchBucket" in r.json.get("note", ""),
     "the list answers listed false, its note naming NoSuchBucket")
r = s.post(R % "step-30", {"job_name": "pretrain-r2"})
t.ok(r.status == 404 and field_error(r, "checkpoint", "exists"),
     "resume from a checkpoint in a deleted bucket: 404")

kube.close()
s.stop()
t.done()
