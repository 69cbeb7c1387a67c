"""SageMaker managed MLflow Apps: create, list, describe, delete, presigned URL.

An app has the MlflowAppStatus state machine of the model: Creating ->
Created (CreateFailed when its role is gone by then, or its trust policy
does not let sagemaker.amazonaws.com assume it),
Deleting -> Deleted, and a Deleted app is forgotten an hour later.  Its
ARN is mlflow-app/app-<12 characters>; the name is not part of it, and
names are unique among apps that are not Deleted.  The role must exist and
the artifact store's bucket too (ValidationException otherwise, as for a
tracking server).  A presigned URL is given only for an app that is
Created or Updated (ValidationException otherwise); ExpiresInSeconds and
SessionExpirationDurationInSeconds are checked by the model's ranges.
"""
import json
import secrets

from ..protocols import AwsError
from .util import page

CREATE_TIME = 600       # sandbox seconds Creating -> Created
DELETE_TIME = 300       # sandbox seconds Deleting -> Deleted
FORGET_AFTER = 3600     # sandbox seconds a Deleted app is still described
MLFLOW_VERSION = "3.0.0"
READY = ("Created", "Updated")
SETTLED = ("Created", "CreateFailed", "Updated", "UpdateFailed", "DeleteFailed")


def _nf(msg):
    return AwsError("ResourceNotFound", msg, 400)


def _val(msg):
    return AwsError("ValidationException", msg, 400)


def _sagemaker_may_assume(role):
    """Does the role's trust policy allow sagemaker.amazonaws.com sts:AssumeRole?"""
    try:
        doc = json.loads(role.get("AssumeRolePolicyDocument") or "{}")
    except ValueError:
        return False
    sts = doc.get("Statement")
    for st in sts if isinstance(sts, list) else [sts]:
        if not isinstance(st, dict) or st.get("Effect") != "Allow":
            continue
        who = st.get("Principal")
        svc = who.get("Service") if isinstance(who, dict) else who
        svcs = svc if isinstance(svc, list) else [svc]
        acts = st.get("Action")
        acts = acts if isinstance(acts, list) else [acts]
        if ("sagemaker.amazonaws.com" in svcs or "*" in svcs) and \
                any(a in ("sts:AssumeRole", "sts:*", "*") for a in acts):
            return True
    return False


def _user():
    return {"UserProfileName": "", "DomainId": ""}


class MlflowAppMixin:
    """Mixed into SageMakerService (sagemaker.py)."""

    def _mlflow_app(self, arn):
        app = self.store.get("sm:mlflow-apps", arn)
        if app is None:
            raise _nf("MLflow App %s not found." % arn)
        return app

    def op_CreateMlflowApp(self, ctx, p):
        name = p["Name"]
        if any(a["Name"] == name and a["Status"] != "Deleted" for a in self.store.values("sm:mlflow-apps")):
            raise _val("An MLflow App named %s already exists." % name)
        role = p["RoleArn"]
        r = self.store.get("iam:roles", role.rsplit("/", 1)[-1])
        if r is None or r["Arn"] != role:
            raise _val("The role %s does not exist or cannot be assumed by SageMaker." % role)
        uri = p["ArtifactStoreUri"]
        bucket = uri.split("://", 1)[-1].split("/", 1)[0]
        if uri.startswith("s3://") and self.store.get("s3:buckets", bucket) is None:
            raise _val("The artifact store %s does not exist: no bucket %s." % (uri, bucket))
        now = self.clock.now()
        arn = self._arn("mlflow-app", "app-" + secrets.token_hex(6))
        app = {"Arn": arn, "Name": name, "ArtifactStoreUri": uri, "RoleArn": role,
               "MlflowVersion": MLFLOW_VERSION, "Status": "Creating",
               "ModelRegistrationMode": p.get("ModelRegistrationMode") or "AutoModelRegistrationDisabled",
               "AccountDefaultStatus": p.get("AccountDefaultStatus") or "DISABLED",
               "DefaultDomainIdList": p.get("DefaultDomainIdList") or [],
               "CreationTime": now, "CreatedBy": _user(), "LastModifiedTime": now,
               "LastModifiedBy": _user(), "_next": self.clock.due(CREATE_TIME, now),
               "_tags": p.get("Tags") or []}
        if p.get("WeeklyMaintenanceWindowStart"):
            app["WeeklyMaintenanceWindowStart"] = p["WeeklyMaintenanceWindowStart"]
        self.store.put("sm:mlflow-apps", arn, app)
        return {"Arn": arn}

    def op_DescribeMlflowApp(self, ctx, p):
        app = self._mlflow_app(p["Arn"])
        return {k: v for k, v in app.items() if not k.startswith("_")}

    def op_ListMlflowApps(self, ctx, p):
        apps = list(self.store.values("sm:mlflow-apps"))
        if p.get("Status"):
            apps = [a for a in apps if a["Status"] == p["Status"]]
        if p.get("MlflowVersion"):
            apps = [a for a in apps if a["MlflowVersion"] == p["MlflowVersion"]]
        if p.get("AccountDefaultStatus"):
            apps = [a for a in apps if a["AccountDefaultStatus"] == p["AccountDefaultStatus"]]
        if p.get("DefaultForDomainId"):
            apps = [a for a in apps if p["DefaultForDomainId"] in a["DefaultDomainIdList"]]
        if p.get("CreatedAfter") is not None:
            apps = [a for a in apps if a["CreationTime"] > float(p["CreatedAfter"])]
        if p.get("CreatedBefore") is not None:
            apps = [a for a in apps if a["CreationTime"] < float(p["CreatedBefore"])]
        key = {"Name": lambda a: a["Name"], "Status": lambda a: a["Status"]}.get(
            p.get("SortBy"), lambda a: a["CreationTime"])
        apps.sort(key=key, reverse=p.get("SortOrder", "Descending") == "Descending")
        apps, token = page(apps, p.get("MaxResults"), p.get("NextToken"))
        out = {"Summaries": [{k: a[k] for k in ("Arn", "Name", "Status", "CreationTime", "LastModifiedTime",
                                                  "MlflowVersion")} for a in apps]}
        if token:
            out["NextToken"] = token
        return out

    def op_DeleteMlflowApp(self, ctx, p):
        app = self._mlflow_app(p["Arn"])
        if app["Status"] not in SETTLED:
            raise _val("MLflow App %s is %s; it can be deleted once it is not changing." % (
                app["Arn"], app["Status"]))
        now = self.clock.now()
        app["Status"] = "Deleting"
        app["LastModifiedTime"] = now
        app["_next"] = self.clock.due(DELETE_TIME, now)
        self.store.put("sm:mlflow-apps", app["Arn"], app)
        return {"Arn": app["Arn"]}

    def op_CreatePresignedMlflowAppUrl(self, ctx, p):
        app = self._mlflow_app(p["Arn"])
        if app["Status"] not in READY:
            raise _val("MLflow App %s is %s; a presigned URL is given once it is Created." % (
                app["Arn"], app["Status"]))
        host = "%s.%s.experiments.sagemaker.aws" % (app["Arn"].rsplit("/", 1)[-1], self.world.region)
        return {"AuthorizedUrl": "https://%s/auth?authToken=%s" % (host, secrets.token_urlsafe(48))}

    def advance_mlflow_apps(self, now):
        for arn, app in list(self.store.all("sm:mlflow-apps").items()):
            if app.get("_next") is None or now < app["_next"]:
                continue
            if app["Status"] == "Creating":
                r = self.store.get("iam:roles", app["RoleArn"].rsplit("/", 1)[-1])
                ok = r is not None and _sagemaker_may_assume(r)
                app["Status"] = "Created" if ok else "CreateFailed"
            elif app["Status"] == "Deleting":
                app["Status"] = "Deleted"
                app["_next"] = self.clock.due(FORGET_AFTER, now)
            elif app["Status"] == "Deleted":
                self.store.delete("sm:mlflow-apps", arn)
                continue
            else:
                continue
            app["LastModifiedTime"] = now
            if app["Status"] != "Deleted":
                app["_next"] = None
            self.store.put("sm:mlflow-apps", arn, app)
