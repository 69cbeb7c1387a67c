"""STS (query protocol): GetCallerIdentity, AssumeRole, AssumeRoleWithWebIdentity.

Answers in XML, or in JSON when the caller sends Accept: application/json
(what the EKS authenticator does when it replays a presigned URL).
"""
import base64
import json
import re

from ..gateway import AwsService
from ..models import unflatten
from ..protocols import AwsError, QueryProtocol, iso

XMLNS = "https://sts.amazonaws.com/doc/2011-06-15/"
SESSION_RE = re.compile(r"^[\w+=,.@-]{2,64}$")


class StsService(AwsService):
    name = "sts"
    protocol = QueryProtocol("2011-06-15", XMLNS)
    global_region = "us-east-1"

    def parse(self, ctx, req):
        op, flat = self.protocol.parse(req)
        return op, unflatten(flat)

    def model_params(self, op, params):
        return self.model.from_form(op, params)

    def _json(self, ctx):
        return "application/json" in (ctx.req.header("accept") or "")

    def dispatch(self, ctx, op, params):
        result = getattr(self, "op_" + op)(ctx, params)
        return self.protocol.ok(op, result, ctx.request_id, want_json=self._json(ctx))

    def render_error(self, err, rid, req):
        return self.protocol.error(err, rid, want_json="application/json" in (req.header("accept") or ""))

    def op_GetCallerIdentity(self, ctx, p):
        pr = ctx.principal
        return {"UserId": pr["user_id"], "Account": self.world.account, "Arn": pr["arn"]}

    def _role(self, arn):
        name = arn.rsplit("/", 1)[-1]
        role = self.store.get("iam:roles", name)
        if role is None or role["Arn"] != arn:
            return None
        return role

    def _session(self, ctx, p, role_arn, via):
        name = p.get("RoleSessionName") or ""
        if not SESSION_RE.match(name):
            raise AwsError("ValidationError", "1 validation error detected: Value '%s' at "
                           "'roleSessionName' failed to satisfy constraint: Member must satisfy "
                           "regular expression pattern: [\\w+=,.@-]*" % name, 400)
        try:
            duration = int(p.get("DurationSeconds") or 3600)
        except ValueError:
            duration = 3600
        if duration < 900 or duration > 43200:
            raise AwsError("ValidationError", "The requested DurationSeconds exceeds the "
                           "MaxSessionDuration set for this role.", 400)
        rec = self.world.identity.issue_session(role_arn, name, self.clock.now(), duration, via)
        return {
            "Credentials": {"AccessKeyId": rec["akid"], "SecretAccessKey": rec["secret"],
                            "SessionToken": rec["token"], "Expiration": iso(rec["expires"], False)},
            "AssumedRoleUser": {"AssumedRoleId": rec["user_id"], "Arn": rec["arn"]},
        }

    def op_AssumeRole(self, ctx, p):
        arn = p.get("RoleArn") or ""
        if self._role(arn) is None:
            raise AwsError("AccessDenied", "User: %s is not authorized to perform: "
                           "sts:AssumeRole on resource: %s" % (ctx.principal["arn"], arn), 403)
        ctx.log_params = {"RoleArn": arn, "RoleSessionName": p.get("RoleSessionName")}
        return self._session(ctx, p, arn, ctx.principal["arn"])

    def op_AssumeRoleWithWebIdentity(self, ctx, p):
        arn = p.get("RoleArn") or ""
        token = p.get("WebIdentityToken") or ""
        ctx.log_params = {"RoleArn": arn, "RoleSessionName": p.get("RoleSessionName")}
        claims = _jwt_claims(token)
        if claims is None:
            raise AwsError("InvalidIdentityToken", "Couldn't parse the identity token.", 400)
        issuer = str(claims.get("iss", ""))
        host = issuer.replace("https://", "")
        provider = "arn:aws:iam::%s:oidc-provider/%s" % (self.world.account, host)
        if self.store.get("iam:oidc", provider) is None:
            raise AwsError("InvalidIdentityToken", "No OpenIDConnect provider found in your "
                           "account for %s" % issuer, 400)
        if self._role(arn) is None:
            raise AwsError("AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity", 403)
        out = self._session(ctx, p, arn, provider)
        out["SubjectFromWebIdentityToken"] = claims.get("sub")
        out["Audience"] = claims.get("aud") if isinstance(claims.get("aud"), str) else "sts.amazonaws.com"
        out["Provider"] = provider
        return out

    def op_GetSessionToken(self, ctx, p):
        rec = self.world.identity.issue_session(
            "arn:aws:iam::%s:role/session" % self.world.account, "session", self.clock.now())
        return {"Credentials": {"AccessKeyId": rec["akid"], "SecretAccessKey": rec["secret"],
                                "SessionToken": rec["token"], "Expiration": iso(rec["expires"], False)}}


def _jwt_claims(token):
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        pad = "=" * (-len(parts[1]) % 4)
        return json.loads(base64.urlsafe_b64decode(parts[1] + pad))
    except (ValueError, TypeError):
        return None
