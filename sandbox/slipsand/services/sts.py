"""STS (query protocol): GetCallerIdentity, AssumeRole, AssumeRoleWithWebIdentity.

AssumeRole takes a SourceIdentity as AWS does: the model checks its
length (2-64) and characters, a value starting with "aws:" is refused,
the role's trust policy must allow sts:SetSourceIdentity to the caller,
and a session that already carries one passes it on (role chaining) and
cannot change it.  The session's credentials keep it, and the request log
names it with every request they sign (userIdentity.sessionContext).

AssumeRole across accounts is decided as AWS decides it: the role's
trust policy (in the role's account) must allow the caller's principal or
account, a condition on sts:ExternalId must match the ExternalId sent,
and the caller's own identity policies must allow sts:AssumeRole on the
role; otherwise AccessDenied, "User: <caller> is not authorized to
perform: sts:AssumeRole on resource: <role>".  The session belongs to the
role's account, so its calls are served there.

Answers in XML, or in JSON when the caller sends Accept: application/json
(what the EKS authenticator does when it replays a presigned URL).
"""
import base64
import json
import re

from . import iamsim
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
        return {"UserId": pr["user_id"], "Account": self.world.identity.account_of(pr),
                "Arn": pr["arn"]}

    def _role(self, arn):
        """The role named by arn, read in its own account."""
        parts = arn.split(":")
        if len(parts) < 6 or parts[4] not in self.world.accounts():
            return None
        name = arn.rsplit("/", 1)[-1]
        with self.world.scope(parts[4], self.world.region):
            role = self.store.get("iam:roles", name)
        if role is None or role["Arn"] != arn:
            return None
        return role

    def _cross_account_denied(self, ctx, p, role):
        """True when a caller of another account may not assume role:
        its trust policy must name the caller (or its account) with any
        sts:ExternalId condition met, and the caller's identity policies
        must allow sts:AssumeRole on it."""
        if role["Arn"].split(":")[4] == self.world.identity.account_of(ctx.principal):
            return False
        if not self._trust_allows(ctx, role, "sts:AssumeRole", None, p.get("ExternalId")):
            return True
        docs = iamsim.principal_documents(self.store, self.world.account,
                                          ctx.principal.get("principal_arn") or "")
        if docs is None:
            return True
        decision, _ = iamsim.evaluate(docs, "sts:AssumeRole", role["Arn"], {})
        return decision != "allowed"

    def _session(self, ctx, p, role_arn, via, source_identity=None):
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
        with self.world.scope(role_arn.split(":")[4], self.world.region):
            rec = self.world.identity.issue_session(role_arn, name, self.clock.now(), duration,
                                                    via, source_identity)
        return {
            "Credentials": {"AccessKeyId": rec["akid"], "SecretAccessKey": rec["secret"],
                            "SessionToken": rec["token"], "Expiration": iso(rec["expires"], False)},
            "AssumedRoleUser": {"AssumedRoleId": rec["user_id"], "Arn": rec["arn"]},
        }

    def op_AssumeRole(self, ctx, p):
        arn = p.get("RoleArn") or ""
        ctx.log_params = {"RoleArn": arn, "RoleSessionName": p.get("RoleSessionName")}
        role = self._role(arn)
        if role is None or self._cross_account_denied(ctx, p, role):
            raise AwsError("AccessDenied", "User: %s is not authorized to perform: "
                           "sts:AssumeRole on resource: %s" % (ctx.principal["arn"], arn), 403)
        if p.get("SourceIdentity") is not None:
            # asked for: logged with a refusal too, as CloudTrail does
            ctx.log_params["SourceIdentity"] = p["SourceIdentity"]
        source = self._source_identity(ctx, p, self._role(arn))
        if source:
            ctx.log_params["SourceIdentity"] = source
        return self._session(ctx, p, arn, ctx.principal["arn"], source)

    def _source_identity(self, ctx, p, role):
        """The session's source identity: the one asked for, else the
        caller's own (role chaining); refused as AWS refuses it."""
        given = p.get("SourceIdentity")
        have = ctx.principal.get("source_identity")
        if given is not None and given.lower().startswith("aws:"):
            raise AwsError("ValidationError", "1 validation error detected: Value '%s' at "
                           "'sourceIdentity' failed to satisfy constraint: Member must not "
                           "begin with the reserved prefix 'aws:'" % given, 400)
        if given and have and given != have:
            raise AwsError("AccessDenied", "User: %s is not authorized to perform: "
                           "sts:SetSourceIdentity on resource: %s: the source identity of "
                           "a session cannot be changed" % (ctx.principal["arn"], role["Arn"]),
                           403)
        source = given or have
        if source and not self._trust_allows(ctx, role, "sts:SetSourceIdentity", source):
            raise AwsError("AccessDenied", "User: %s is not authorized to perform: "
                           "sts:SetSourceIdentity on resource: %s"
                           % (ctx.principal["arn"], role["Arn"]), 403)
        return source

    def _trust_allows(self, ctx, role, action, source, external_id=None):
        """True when the role's trust policy allows action to the caller
        (an explicit Deny wins); conditions see sts:SourceIdentity and
        sts:ExternalId."""
        try:
            doc = json.loads(role.get("AssumeRolePolicyDocument") or "{}")
        except ValueError:
            return False
        pr = ctx.principal
        acct = self.world.identity.account_of(pr)
        callers = {pr.get("arn"), pr.get("principal_arn"), acct, "arn:aws:iam::%s:root" % acct}
        keys = {"aws:principalarn": [pr.get("principal_arn")],
                "aws:principalaccount": [acct]}
        if source is not None:
            keys["sts:sourceidentity"] = [source]
        if external_id is not None:
            keys["sts:externalid"] = [external_id]
        allowed = False
        for st in iamsim._list(doc.get("Statement")):
            who = st.get("Principal")
            aws = who.get("AWS") if isinstance(who, dict) else who
            if who != "*" and not any(a == "*" or a in callers for a in iamsim._list(aws)):
                continue
            if not any(iamsim._like(a, action, case=False) for a in iamsim._list(st.get("Action"))):
                continue
            if not all(iamsim._match_condition(op, k, want, keys)
                       for op, body in (st.get("Condition") or {}).items()
                       for k, want in body.items()):
                continue
            if st.get("Effect") == "Deny":
                return False
            allowed = allowed or st.get("Effect") == "Allow"
        return allowed

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
