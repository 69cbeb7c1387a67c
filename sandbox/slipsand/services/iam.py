"""IAM (query protocol): roles, role policies, managed policies, OIDC providers.

Errors use IAM's wire codes (NoSuchEntity, EntityAlreadyExists,
DeleteConflict, MalformedPolicyDocument) in the <ErrorResponse> shape;
policy documents are returned URL-encoded, as IAM does.
"""
import json
import urllib.parse

from ..gateway import AwsService
from ..identity import rand_id
from ..models import unflatten
from ..protocols import AwsError, QueryProtocol, iso
from .util import page
from . import iamsim

XMLNS = "https://iam.amazonaws.com/doc/2010-05-08/"


def _no_such(msg):
    return AwsError("NoSuchEntity", msg, 404)


def _policy_doc(doc, field="policyDocument"):
    try:
        parsed = json.loads(doc)
    except (TypeError, ValueError):
        raise AwsError("MalformedPolicyDocument", "This policy contains invalid Json", 400)
    if not isinstance(parsed, dict) or "Statement" not in parsed:
        raise AwsError("MalformedPolicyDocument", "Syntax errors in policy.", 400)
    return doc


class IamService(AwsService):
    name = "iam"
    protocol = QueryProtocol("2010-05-08", XMLNS, internal_code="ServiceFailure")
    global_region = "us-east-1"

    def allowed_regions(self):
        # IAM is global and signed for us-east-1; botocore signs with the
        # client's region when --endpoint-url is given, so accept that too.
        return {"us-east-1"} | set(self.world.regions())

    def parse(self, ctx, req):
        op, flat = self.protocol.parse(req)
        return op, unflatten(flat)

    def model_params(self, op, params):
        if op == "SimulatePrincipalPolicy":
            # not in the trimmed model: read and checked by hand below
            return params
        return self.model.from_form(op, params)

    # --- roles -----------------------------------------------------------
    def _role(self, name):
        role = self.store.get("iam:roles", name or "")
        if role is None:
            raise _no_such("The role with name %s cannot be found." % name)
        return role

    def _role_out(self, r, listed=False):
        out = {"Path": r["Path"], "RoleName": r["RoleName"], "RoleId": r["RoleId"],
               "Arn": r["Arn"], "CreateDate": iso(r["CreateDate"], False),
               "AssumeRolePolicyDocument": urllib.parse.quote(r["AssumeRolePolicyDocument"], safe=""),
               "MaxSessionDuration": r.get("MaxSessionDuration", 3600)}
        if r.get("Description"):
            out["Description"] = r["Description"]
        if r.get("Tags"):
            out["Tags"] = r["Tags"]
        if r.get("PermissionsBoundary") and not listed:
            # ListRoles leaves the boundary out, as IAM does
            out["PermissionsBoundary"] = {
                "PermissionsBoundaryType": "PermissionsBoundaryPolicy",
                "PermissionsBoundaryArn": r["PermissionsBoundary"]}
        out["RoleLastUsed"] = {}
        return out

    def op_CreateRole(self, ctx, p):
        name = p.get("RoleName")
        if self.store.get("iam:roles", name):
            raise AwsError("EntityAlreadyExists", "Role with name %s already exists." % name, 409)
        doc = _policy_doc(p.get("AssumeRolePolicyDocument"))
        boundary = p.get("PermissionsBoundary") or None
        if boundary is not None and not boundary.startswith("arn:aws:iam::"):
            raise AwsError("InvalidInput", "ARN %s is not valid." % boundary, 400)
        path = p.get("Path") or "/"
        arn = "arn:aws:iam::%s:role%s%s" % (self.world.account, path, name)
        role = {"RoleName": name, "Path": path, "Arn": arn,
                "RoleId": self.store.get("iam:roleids", arn) or rand_id("AROA", 17),
                "CreateDate": self.clock.now(), "AssumeRolePolicyDocument": doc,
                "Description": p.get("Description"),
                "MaxSessionDuration": int(p.get("MaxSessionDuration") or 3600),
                "Tags": p.get("Tags") or [], "attached": [], "inline": {},
                "PermissionsBoundary": boundary}
        if boundary is not None:
            self._boundary_count(boundary, +1)
        self.store.put("iam:roleids", arn, role["RoleId"])
        self.store.put("iam:roles", name, role)
        return {"Role": self._role_out(role)}

    def op_GetRole(self, ctx, p):
        return {"Role": self._role_out(self._role(p.get("RoleName")))}

    def op_ListRoles(self, ctx, p):
        roles = sorted(self.store.values("iam:roles"), key=lambda r: r["RoleName"])
        prefix = p.get("PathPrefix") or "/"
        roles = [r for r in roles if r["Path"].startswith(prefix)]
        items, marker = page(roles, int(p.get("MaxItems") or 100), p.get("Marker"))
        out = {"Roles": [self._role_out(r, listed=True) for r in items],
               "IsTruncated": bool(marker)}
        if marker:
            out["Marker"] = marker
        return out

    def op_DeleteRole(self, ctx, p):
        role = self._role(p.get("RoleName"))
        if role["attached"] or role["inline"]:
            raise AwsError("DeleteConflict", "Cannot delete entity, must %s first." % (
                "detach all policies" if role["attached"] else "delete policies"), 409)
        if role.get("PermissionsBoundary"):
            self._boundary_count(role["PermissionsBoundary"], -1)
        self.store.delete("iam:roles", role["RoleName"])
        return None

    def op_UpdateAssumeRolePolicy(self, ctx, p):
        role = self._role(p.get("RoleName"))
        role["AssumeRolePolicyDocument"] = _policy_doc(p.get("PolicyDocument"))
        self.store.put("iam:roles", role["RoleName"], role)
        return None

    def op_TagRole(self, ctx, p):
        role = self._role(p.get("RoleName"))
        tags = {t["Key"]: t.get("Value", "") for t in role.get("Tags", [])}
        for t in p.get("Tags") or []:
            tags[t.get("Key")] = t.get("Value", "")
        role["Tags"] = [{"Key": k, "Value": v} for k, v in tags.items()]
        self.store.put("iam:roles", role["RoleName"], role)
        return None

    def op_AttachRolePolicy(self, ctx, p):
        role = self._role(p.get("RoleName"))
        arn = p.get("PolicyArn") or ""
        if not arn.startswith("arn:aws:iam::"):
            raise AwsError("InvalidInput", "ARN %s is not valid." % arn, 400)
        if not arn.startswith("arn:aws:iam::aws:policy/"):
            pol = self.store.get("iam:policies", arn)
            if pol is None:
                raise _no_such("Policy %s does not exist or is not attachable." % arn)
        if arn not in role["attached"]:
            role["attached"].append(arn)
            self._count(arn, +1)
        self.store.put("iam:roles", role["RoleName"], role)
        return None

    def _boundary_count(self, arn, delta):
        pol = self.store.get("iam:policies", arn)
        if pol is not None:
            pol["PermissionsBoundaryUsageCount"] = max(
                0, pol.get("PermissionsBoundaryUsageCount", 0) + delta)
            self.store.put("iam:policies", arn, pol)

    def _count(self, arn, delta):
        pol = self.store.get("iam:policies", arn)
        if pol is not None:
            pol["AttachmentCount"] = max(0, pol.get("AttachmentCount", 0) + delta)
            self.store.put("iam:policies", arn, pol)

    def op_DetachRolePolicy(self, ctx, p):
        role = self._role(p.get("RoleName"))
        arn = p.get("PolicyArn")
        if arn not in role["attached"]:
            raise _no_such("Policy %s was not found." % arn)
        role["attached"].remove(arn)
        self._count(arn, -1)
        self.store.put("iam:roles", role["RoleName"], role)
        return None

    def op_ListAttachedRolePolicies(self, ctx, p):
        role = self._role(p.get("RoleName"))
        return {"AttachedPolicies": [{"PolicyName": a.rsplit("/", 1)[-1], "PolicyArn": a}
                                     for a in role["attached"]], "IsTruncated": False}

    def op_PutRolePolicy(self, ctx, p):
        role = self._role(p.get("RoleName"))
        role["inline"][p.get("PolicyName")] = _policy_doc(p.get("PolicyDocument"))
        self.store.put("iam:roles", role["RoleName"], role)
        return None

    def op_GetRolePolicy(self, ctx, p):
        role = self._role(p.get("RoleName"))
        name = p.get("PolicyName")
        if name not in role["inline"]:
            raise _no_such("The role policy with name %s cannot be found." % name)
        return {"RoleName": role["RoleName"], "PolicyName": name,
                "PolicyDocument": urllib.parse.quote(role["inline"][name], safe="")}

    def op_DeleteRolePolicy(self, ctx, p):
        role = self._role(p.get("RoleName"))
        name = p.get("PolicyName")
        if name not in role["inline"]:
            raise _no_such("The role policy with name %s cannot be found." % name)
        del role["inline"][name]
        self.store.put("iam:roles", role["RoleName"], role)
        return None

    def op_ListRolePolicies(self, ctx, p):
        role = self._role(p.get("RoleName"))
        return {"PolicyNames": sorted(role["inline"]), "IsTruncated": False}

    # --- policy simulation ----------------------------------------------
    @staticmethod
    def _members(v):
        """A query list (Name.member.N) as a Python list, in order."""
        if isinstance(v, list):
            return v
        if isinstance(v, dict) and isinstance(v.get("member"), dict):
            m = v["member"]
            return [m[k] for k in sorted(m, key=lambda k: int(k) if k.isdigit() else 0)]
        if v in (None, "", {}):
            return []
        return [v]

    def op_SimulatePrincipalPolicy(self, ctx, p):
        src = p.get("PolicySourceArn") or ""
        actions = self._members(p.get("ActionNames"))
        resources = self._members(p.get("ResourceArns")) or ["*"]
        if not src:
            raise AwsError("ValidationError", "1 validation error detected: Value null at "
                           "'policySourceArn' failed to satisfy constraint: Member must not be null", 400)
        if not actions:
            raise AwsError("ValidationError", "1 validation error detected: Value null at "
                           "'actionNames' failed to satisfy constraint: Member must not be null", 400)
        if len(actions) > 128 or any(not isinstance(a, str) or ":" not in a for a in actions):
            raise AwsError("InvalidInput", "Invalid action names.", 400)
        if not src.startswith("arn:aws:iam::%s:" % self.world.account) or \
                src.split(":", 5)[-1].split("/")[0] not in ("user", "role", "group"):
            raise AwsError("InvalidInput", "Invalid ARN: %s" % src, 400)
        docs = iamsim.principal_documents(self.store, self.world.account, src)
        if docs is None:
            raise _no_such("The user, group or role with ARN %s cannot be found." % src)
        context = {}
        for e in self._members(p.get("ContextEntries")):
            if not isinstance(e, dict) or not e.get("ContextKeyName"):
                raise AwsError("InvalidInput", "Invalid context entry.", 400)
            context[e["ContextKeyName"].lower()] = [str(v) for v in
                                                    self._members(e.get("ContextKeyValues"))]
        results = []
        for a in actions:
            for r in resources:
                decision, matched = iamsim.evaluate(docs, a, r, context)
                results.append({"EvalActionName": a, "EvalResourceName": r,
                                "EvalDecision": decision, "MatchedStatements": matched,
                                "MissingContextValues": []})
        return {"EvaluationResults": results, "IsTruncated": False}

    # --- managed policies -----------------------------------------------
    def _policy_out(self, pol):
        return {k: (iso(v, False) if k in ("CreateDate", "UpdateDate") else v)
                for k, v in pol.items() if not k.startswith("_")}

    def op_CreatePolicy(self, ctx, p):
        name = p.get("PolicyName")
        path = p.get("Path") or "/"
        arn = "arn:aws:iam::%s:policy%s%s" % (self.world.account, path, name)
        if self.store.get("iam:policies", arn):
            raise AwsError("EntityAlreadyExists", "A policy called %s already exists. "
                           "Duplicate names are not allowed." % name, 409)
        now = self.clock.now()
        pol = {"PolicyName": name, "PolicyId": rand_id("ANPA", 17), "Arn": arn, "Path": path,
               "DefaultVersionId": "v1", "AttachmentCount": 0, "PermissionsBoundaryUsageCount": 0,
               "IsAttachable": True, "CreateDate": now, "UpdateDate": now,
               "_document": _policy_doc(p.get("PolicyDocument"))}
        if p.get("Description"):
            pol["Description"] = p["Description"]
        if p.get("Tags"):
            pol["Tags"] = p["Tags"]
        self.store.put("iam:policies", arn, pol)
        return {"Policy": self._policy_out(pol)}

    def _policy(self, arn):
        pol = self.store.get("iam:policies", arn or "")
        if pol is None:
            raise _no_such("Policy %s was not found." % arn)
        return pol

    def op_GetPolicy(self, ctx, p):
        return {"Policy": self._policy_out(self._policy(p.get("PolicyArn")))}

    def op_DeletePolicy(self, ctx, p):
        pol = self._policy(p.get("PolicyArn"))
        if pol.get("AttachmentCount"):
            raise AwsError("DeleteConflict", "Cannot delete a policy attached to entities.", 409)
        self.store.delete("iam:policies", pol["Arn"])
        return None

    def op_ListPolicies(self, ctx, p):
        pols = sorted(self.store.values("iam:policies"), key=lambda x: x["PolicyName"])
        return {"Policies": [self._policy_out(x) for x in pols], "IsTruncated": False}

    # --- OIDC providers --------------------------------------------------
    def op_CreateOpenIDConnectProvider(self, ctx, p):
        url = p.get("Url") or ""
        if not url.startswith("https://"):
            raise AwsError("ValidationError", "Invalid Url: must start with https://", 400)
        host = url[len("https://"):].rstrip("/")
        arn = "arn:aws:iam::%s:oidc-provider/%s" % (self.world.account, host)
        if self.store.get("iam:oidc", arn):
            raise AwsError("EntityAlreadyExists", "Provider with url %s already exists." % url, 409)
        rec = {"Arn": arn, "Url": host, "ClientIDList": p.get("ClientIDList") or [],
               "ThumbprintList": p.get("ThumbprintList") or [], "CreateDate": self.clock.now(),
               "Tags": p.get("Tags") or []}
        self.store.put("iam:oidc", arn, rec)
        return {"OpenIDConnectProviderArn": arn, "Tags": rec["Tags"] or None}

    def _oidc(self, arn):
        rec = self.store.get("iam:oidc", arn or "")
        if rec is None:
            raise _no_such("OpenIDConnect Provider not found for arn %s" % arn)
        return rec

    def op_GetOpenIDConnectProvider(self, ctx, p):
        rec = self._oidc(p.get("OpenIDConnectProviderArn"))
        return {"Url": rec["Url"], "ClientIDList": rec["ClientIDList"],
                "ThumbprintList": rec["ThumbprintList"], "CreateDate": iso(rec["CreateDate"], False),
                "Tags": rec.get("Tags") or None}

    def op_DeleteOpenIDConnectProvider(self, ctx, p):
        rec = self._oidc(p.get("OpenIDConnectProviderArn"))
        self.store.delete("iam:oidc", rec["Arn"])
        return None

    def op_ListOpenIDConnectProviders(self, ctx, p):
        return {"OpenIDConnectProviderList": [{"Arn": a} for a in sorted(self.store.all("iam:oidc"))]}

    def snapshot(self):
        return {"roles": sorted(self.store.all("iam:roles")),
                "policies": sorted(self.store.all("iam:policies")),
                "oidc_providers": sorted(self.store.all("iam:oidc"))}
