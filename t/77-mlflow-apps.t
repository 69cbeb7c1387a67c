#!/usr/bin/python3
# 77-mlflow-apps.t: SageMaker managed MLflow Apps against the sandbox.
# The dry run names the cluster's role, its inline policy and
# CreateMlflowApp and sends nothing; the create makes the role
# slipway-<cluster>-mlflow with the policy for the artifact bucket and
# an app the aws CLI sees Created with that role and store; the list and
# the read show it ready; the same name again is refused; a presigned
# URL opens it; a training job naming it with mlflow_app gets its ARN as
# MLFLOW_TRACKING_URI.  Refusals naming the field: an unknown app (404),
# an app not ready (one made with the aws CLI whose role SageMaker may
# not assume ends CreateFailed: no URL, no job, and the aws CLI is
# refused too), an app Slipway did not make (no delete), bad input
# (400).  The delete goes through MCP: the aws CLI sees the app Deleted
# and the role's policy for it is gone.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import (Kubectl, Stack, aws_cli, aws_cli_error, sandbox_info,
                     sandbox_requests, wait_for, wait_operation)
from mcp_raw import Mcp

t = T()
if not os.path.exists(os.path.join(os.path.dirname(__file__), "..",
                                   "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)
C = "ml"
A = "/api/v1/mlflow-apps"
BUCKET = "ml-mlflow-artifacts"
region = sandbox_info(s).get("region", "us-west-2")


def cli(*args):
    rc, out = aws_cli(s, *args)
    return out if rc == 0 and isinstance(out, dict) else None


def field_error(r, status, field, rule=None):
    return r.status == status and any(
        e.get("field") == field and rule in (None, e.get("rule"))
        for e in (r.json or {}).get("errors", []))


def app_arn(name):
    out = cli("sagemaker", "list-mlflow-apps") or {}
    return next((a["Arn"] for a in out.get("Summaries", [])
                 if a["Name"] == name), None)


# ---- a cluster, an artifact bucket -----------------------------------------
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"] and i["gpus"] > 0)
r = s.post("/api/v1/clusters", {
    "name": C, "storage": {"s3_bucket": "ml-training-data"},
    "instance_groups": [{"name": "gpu", "instance_type": g["instance_type"],
                         "count": 1,
                         "availability_zone": g["availability_zones"][0]}]})
t.eq(r.status, 202, "cluster create accepted")
d = wait_operation(s, r.json["operation_id"], timeout=240)
t.eq(d.get("state"), "succeeded", "cluster created (%s)" % d.get("error"))
t.ok(cli("s3api", "create-bucket", "--bucket", BUCKET,
         "--create-bucket-configuration",
         "LocationConstraint=%s" % region) is not None,
     "aws CLI creates the artifact bucket")
t.eq(s.get(A).json, {"items": []}, "mlflow_app_list: none yet")

# ---- bad input: 400 naming the field -----------------------------------------
body = {"name": "exp1", "cluster": C, "artifact_bucket": BUCKET}
for bad, field in ((dict(body, name="Bad_Name"), "name"),
                   (dict(body, artifact_bucket="B"), "artifact_bucket"),
                   (dict(body, weekly_maintenance="Tue-03:30"),
                    "weekly_maintenance"),
                   ({"name": "exp1", "artifact_bucket": BUCKET}, "cluster")):
    t.ok(field_error(s.post(A, bad), 400, field), "400 naming %s" % field)

# ---- dry run -----------------------------------------------------------------
seq = (sandbox_requests(s) or [{"seq": 0}])[-1]["seq"]
r = s.post(A + "?dry_run=true", body)
t.eq(r.status, 200, "dry run answers 200")
calls = [c for c in (r.json or {}).get("calls", []) if c.get("operation") in
         ("CreateRole", "PutRolePolicy", "CreateMlflowApp")]
t.eq([c["operation"] for c in calls],
     ["CreateRole", "PutRolePolicy", "CreateMlflowApp"],
     "the plan: the cluster's role, its policy, the app")
inp = calls[-1].get("input", {}) if calls else {}
t.ok(inp.get("Name") == "exp1" and inp.get("ArtifactStoreUri") ==
     "s3://%s/mlflow/exp1" % BUCKET and {"Key": "slipway:cluster",
                                         "Value": C} in inp.get("Tags", []),
     "CreateMlflowApp with its name, store and the cluster's tag: %s" % inp)
t.eq([e["operation"] for e in sandbox_requests(s, mutating="true", since=seq)],
     [], "the dry run sent nothing that changes")

# ---- the create ------------------------------------------------------------------
r = s.post(A, body)
t.eq(r.status, 202, "mlflow_app_create accepted")
d = wait_operation(s, r.json.get("operation_id", ""), timeout=180)
t.eq(d.get("state"), "succeeded", "created (%s)" % d.get("error"))
arn = app_arn("exp1")
desc = cli("sagemaker", "describe-mlflow-app", "--arn", arn or "x") or {}
t.ok(desc.get("Status") == "Created" and desc.get("RoleArn", "").endswith(
    ":role/slipway-%s-mlflow" % C) and desc.get("ArtifactStoreUri") ==
    "s3://%s/mlflow/exp1" % BUCKET,
    "aws CLI: the app is Created, with the cluster's role and the store")
pol = cli("iam", "get-role-policy", "--role-name", "slipway-%s-mlflow" % C,
          "--policy-name", "mlflow-exp1") or {}
t.ok("arn:aws:s3:::%s/*" % BUCKET in json.dumps(pol.get("PolicyDocument")),
     "aws CLI: the role's policy mlflow-exp1 reaches the bucket")
items = s.get(A).json.get("items", [])
t.eq([(a["name"], a["arn"], a["status"], a["ready"]) for a in items],
     [("exp1", arn, "Created", True)], "mlflow_app_list shows it ready")
r = s.get(A + "/exp1")
t.ok(r.status == 200 and r.json.get("artifact_store_uri") ==
     "s3://%s/mlflow/exp1" % BUCKET and r.json.get("model_registration") is
     False, "mlflow_app_get: its store and settings")
t.ok(field_error(s.post(A, body), 409, "name", "exists"),
     "the same name again: 409 naming name")
t.ok(field_error(s.get(A + "/nope"), 404, "app", "exists"),
     "an unknown app: 404 naming app")

# ---- its UI, by a presigned URL ---------------------------------------------------
r = s.post(A + "/exp1:presigned-url", {"expires_in_seconds": 60})
t.ok(r.status == 200 and r.json["url"].startswith("https://") and
     "authToken=" in r.json["url"] and r.json["expires_in_seconds"] == 60,
     "mlflow_app_url: a presigned URL (%s)" % (r.json or {}).get("url"))
sent = [e["params"] for e in sandbox_requests(
    s, operation="CreatePresignedMlflowAppUrl") if e["status"] == 200]
t.eq([(p.get("Arn"), p.get("ExpiresInSeconds")) for p in sent], [(arn, 60)],
     "CreatePresignedMlflowAppUrl sent for the app, with the expiry")
t.ok(field_error(s.post(A + "/exp1:presigned-url",
                        {"expires_in_seconds": 1}), 400,
                 "expires_in_seconds"), "an expiry under 5 s: 400")

# ---- a training job logs to it -------------------------------------------------
rc, _ = aws_cli(s, "eks", "create-addon", "--cluster-name", C, "--addon-name",
                "amazon-sagemaker-hyperpod-training-operator")
kube = Kubectl(s, C)
t.ok(rc == 0 and wait_for(lambda: kube.run(
    "get", "crd", "hyperpodpytorchjobs.sagemaker.amazonaws.com")
    .returncode == 0, 60), "the training operator's CRD is installed")
J = "/api/v1/clusters/%s/training-jobs" % C
job = {"job_name": "tracked", "recipe": "pytorch", "nodes": 1,
       "gpus_per_node": 1, "dataset": "alpaca", "model": "llama-3-8b",
       "mlflow_app": "exp1", "max_steps": 5}
r = s.post(J + "?dry_run=true", job)
hpj = next((m for m in (r.json or {}).get("manifests", [])
            if m.get("kind") == "HyperPodPyTorchJob"), {})
c0 = hpj.get("spec", {}).get("replicaSpecs", [{}])[0].get(
    "template", {}).get("spec", {}).get("containers", [{}])[0]
envs = {e["name"]: e.get("value") for e in c0.get("env", [])}
t.eq(envs.get("MLFLOW_TRACKING_URI"), arn,
     "a job with mlflow_app: MLFLOW_TRACKING_URI is the app's ARN")
r = s.post(J, job)
t.eq(r.status, 201, "the job is submitted (%s)" % (r.json or {}).get("detail"))
k = kube.get("hyperpodpytorchjobs", "tracked", "-n", "default") or {}
kenv = {e["name"]: e.get("value") for e in (k.get("spec", {}).get(
    "replicaSpecs", [{}])[0].get("template", {}).get("spec", {}).get(
    "containers", [{}])[0].get("env", []))}
t.eq(kenv.get("MLFLOW_TRACKING_URI"), arn,
     "the HyperPodPyTorchJob in the cluster carries it")
t.ok(field_error(s.post(J + "?dry_run=true", dict(job, mlflow_app="nope")),
                 404, "mlflow_app", "exists"),
     "a job naming an unknown app: 404 naming mlflow_app")
t.ok(field_error(s.post(J + "?dry_run=true", dict(
    job, mlflow_tracking_uri="http://mlflow.mlflow:5000")), 400,
    "mlflow_app"), "mlflow_app with mlflow_tracking_uri: 400")

# ---- an app not ready, and not Slipway's ---------------------------------------
trust = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
    "Action": "sts:AssumeRole"}]}
role = (cli("iam", "create-role", "--role-name", "ext-mlflow",
            "--assume-role-policy-document", json.dumps(trust)) or {}) \
    .get("Role", {}).get("Arn", "")
ext = (cli("sagemaker", "create-mlflow-app", "--name", "ext",
           "--artifact-store-uri", "s3://%s/ext" % BUCKET,
           "--role-arn", role) or {}).get("Arn")
t.ok(ext, "aws CLI creates an app whose role SageMaker may not assume")
st = wait_for(lambda: (cli("sagemaker", "describe-mlflow-app", "--arn", ext)
                       or {}).get("Status") == "CreateFailed", timeout=60)
t.ok(st, "it ends CreateFailed")
t.ok(field_error(s.post(A + "/ext:presigned-url", {}), 409, "app", "state"),
     "no URL for an app not ready: 409 naming app")
t.ok(field_error(s.post(J + "?dry_run=true", dict(job, mlflow_app="ext")),
                 409, "mlflow_app", "state"),
     "no job on an app not ready: 409 naming mlflow_app")
rc, err = aws_cli_error(s, "sagemaker", "create-presigned-mlflow-app-url",
                        "--arn", ext)
t.ok(rc != 0 and "ValidationException" in err,
     "aws CLI: SageMaker refuses its URL too")
t.ok(field_error(s.request("DELETE", A + "/ext"), 409, "app", "owned"),
     "an app Slipway did not make: no delete, 409 naming app")
rc, err = aws_cli_error(s, "sagemaker", "create-mlflow-app", "--name", "nob",
                        "--artifact-store-uri", "s3://no-such-bucket-x/a",
                        "--role-arn", role)
t.ok(rc != 0 and "ValidationException" in err,
     "aws CLI: a store in a bucket that does not exist is refused")

# ---- the delete, through MCP ------------------------------------------------------
mc = Mcp(s)
sid = mc.initialize()[1]
res = mc.legacy("tools/call", {"name": "mlflow_app_delete", "arguments": {
    "app": "exp1", "confirm": True}}, sid=sid).json or {}
sc = (res.get("result") or {}).get("structuredContent") or {}
t.ok(sc.get("operation_id"), "MCP mlflow_app_delete starts an operation")
d = wait_operation(s, sc.get("operation_id", ""), timeout=180)
t.eq(d.get("state"), "succeeded", "deleted (%s)" % d.get("error"))
desc = cli("sagemaker", "describe-mlflow-app", "--arn", arn or "x") or {}
t.ok(desc.get("Status", "Deleted") == "Deleted",
     "aws CLI: the app is Deleted (%s)" % desc.get("Status"))
rc, err = aws_cli_error(s, "iam", "get-role-policy", "--role-name",
                        "slipway-%s-mlflow" % C, "--policy-name",
                        "mlflow-exp1")
t.ok(rc != 0 and "NoSuchEntity" in err, "its policy left the role")
t.eq([a["name"] for a in s.get(A).json.get("items", [])], ["ext"],
     "mlflow_app_list no longer shows it")
t.done()
