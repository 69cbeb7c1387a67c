"""Authentication and authorization of the per-cluster Kubernetes API servers.

Bearer tokens are either static sandbox tokens (minted through the control
endpoint, cluster-admin) or EKS tokens: `k8s-aws-v1.` + base64url of a
presigned STS GetCallerIdentity URL, checked the way aws-iam-authenticator
does (host, path, parameter whitelist, signed x-k8s-aws-id equal to the
cluster name, 15-minute validity) and whose SigV4 signature is recomputed
with the sandbox's secret.  The caller then needs an EKS access entry;
access policies and RBAC bindings decide what it may do.
"""
import base64
import hmac
import re
import time
import urllib.parse

from .. import sigv4

TOKEN_PREFIX = "k8s-aws-v1."
ALLOWED_PARAMS = {"action", "version", "x-amz-algorithm", "x-amz-credential", "x-amz-date",
                  "x-amz-expires", "x-amz-security-token", "x-amz-signature", "x-amz-signedheaders"}
STS_HOST = re.compile(r"^sts(-fips)?(\.[a-z0-9-]+)?\.(amazonaws\.com|api\.aws)$")
POLICY_PREFIX = "arn:aws:eks::aws:cluster-access-policy/"
READ_VERBS = {"get", "list", "watch"}


class AuthError(Exception):
    def __init__(self, code, message, reason=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or ("Unauthorized" if code == 401 else "Forbidden")


class User:
    def __init__(self, name, groups, admin=False, policies=None, arn=None):
        self.name = name
        self.groups = groups
        self.admin = admin
        self.policies = policies or []
        self.arn = arn


def verify_eks_token(world, cluster, token, now=None):
    """Return (credential record, access entry) or raise AuthError(401)."""
    now = time.time() if now is None else now
    unauthorized = AuthError(401, "Unauthorized")
    if len(token) > 4096 or not token.startswith(TOKEN_PREFIX):
        raise unauthorized
    raw = token[len(TOKEN_PREFIX):]
    try:
        url = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        raise unauthorized
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "https" or parts.path != "/" or not STS_HOST.match(parts.hostname or ""):
        raise unauthorized
    pairs = sigv4.parse_query(parts.query)
    seen = set()
    for k, _ in pairs:
        lk = k.lower()
        if lk not in ALLOWED_PARAMS or lk in seen:
            raise unauthorized
        seen.add(lk)
    q = dict(pairs)
    if q.get("Action") != "GetCallerIdentity":
        raise unauthorized
    signed = (q.get("X-Amz-SignedHeaders") or "").split(";")
    if "x-k8s-aws-id" not in signed or "host" not in signed:
        raise unauthorized
    try:
        expires = int(q.get("X-Amz-Expires", "0"))
    except ValueError:
        raise unauthorized
    if expires < 0 or expires > 900:
        raise unauthorized
    when = sigv4.parse_amz_date(q.get("X-Amz-Date"))
    if when is None or now > when + 15 * 60 or when > now + 15 * 60:
        raise unauthorized
    try:
        info = sigv4.parse_auth([], pairs)
    except sigv4.SigError:
        raise unauthorized
    if info is None or info.service != "sts":
        raise unauthorized
    cred = world.identity.lookup(info.access_key)
    if cred is None or (cred.get("token") or None) != (info.token or None):
        raise unauthorized
    if cred.get("expires") and cred["expires"] < now:
        raise unauthorized
    headers = [("host", parts.netloc), ("x-k8s-aws-id", cluster)]
    creq = sigv4.canonical_request("GET", "/", pairs, headers, signed, sigv4.EMPTY_SHA256, presigned=True)
    sts = sigv4.string_to_sign(info.amz_date, info.scope, creq)
    want = sigv4.signature(cred["secret"], info.date, info.region, info.service, sts)
    if not hmac.compare_digest(want, info.signature or ""):
        raise unauthorized
    return cred


def authenticate(world, cluster, header):
    if not header or not header.lower().startswith("bearer "):
        raise AuthError(401, "Unauthorized")
    token = header[7:].strip()
    static = world.store.get("k8stokens", token)
    if static is not None:
        if static.get("cluster") != cluster:
            raise AuthError(401, "Unauthorized")
        groups = list(static.get("groups") or ["system:masters"])
        return User(static.get("user", "sandbox-admin"), groups + ["system:authenticated"],
                    admin="system:masters" in groups)
    cred = verify_eks_token(world, cluster, token)
    eks = world.services["eks"]
    c = world.store.get("eks:clusters", cluster)
    entry = eks.access_entry(cluster, cred["principal_arn"])
    if entry is None or c is None or c["accessConfig"]["authenticationMode"] == "CONFIG_MAP":
        if c is not None and c.get("_creator") == cred["principal_arn"] and \
                c["accessConfig"]["authenticationMode"] == "CONFIG_MAP":
            return User(cred["arn"], ["system:masters", "system:authenticated"], admin=True, arn=cred["arn"])
        raise AuthError(401, "Unauthorized")
    session = cred["arn"].rsplit("/", 1)[-1]
    name = (entry.get("username") or cred["arn"]).replace("{{SessionName}}", session)
    groups = list(entry.get("kubernetesGroups") or [])
    admin = any(p["policyArn"] == POLICY_PREFIX + "AmazonEKSClusterAdminPolicy" and
                p["accessScope"]["type"] == "cluster" for p in entry.get("_policies", []))
    if entry.get("type") == "HYPERPOD_LINUX":
        groups.append("system:nodes")
    return User(name, groups + ["system:authenticated"], admin=admin, policies=entry.get("_policies", []),
                arn=cred["arn"])


def _rule_allows(rule, verb, group, resource, name):
    if "*" not in rule.get("verbs", []) and verb not in rule.get("verbs", []):
        return False
    if "*" not in rule.get("apiGroups", []) and group not in rule.get("apiGroups", []):
        return False
    res = rule.get("resources", [])
    if "*" not in res and resource not in res and not (
            "/" in resource and resource.split("/")[0] + "/*" in res):
        return False
    names = rule.get("resourceNames")
    if names and name not in names:
        return False
    return True


def authorize(kc, user, verb, group, resource, namespace, name):
    """Raise AuthError(403) unless `user` may do `verb` on the resource."""
    if user.admin or "system:masters" in user.groups:
        return
    for pol in user.policies:
        pname = pol["policyArn"][len(POLICY_PREFIX):]
        scope = pol.get("accessScope") or {}
        in_scope = scope.get("type") == "cluster" or (namespace and any(
            _ns_matches(n, namespace) for n in scope.get("namespaces", [])))
        if not in_scope:
            continue
        if pname == "AmazonEKSClusterAdminPolicy":
            return
        if pname in ("AmazonEKSAdminPolicy", "AmazonEKSEditPolicy") or pname.startswith("AmazonSagemakerHyperpod"):
            if namespace or verb in READ_VERBS:
                return
        if pname in ("AmazonEKSViewPolicy", "AmazonEKSAdminViewPolicy") and verb in READ_VERBS:
            if pname == "AmazonEKSAdminViewPolicy" or resource != "secrets":
                return
    store = kc.store
    roles = []
    for b in store.list("rbac.authorization.k8s.io", "clusterrolebindings"):
        if _subject_matches(b, user):
            roles.append(store.get("rbac.authorization.k8s.io", "clusterroles", None, b["roleRef"]["name"]))
    if namespace:
        for b in store.list("rbac.authorization.k8s.io", "rolebindings", namespace):
            if _subject_matches(b, user):
                ref = b.get("roleRef") or {}
                if ref.get("kind") == "ClusterRole":
                    roles.append(store.get("rbac.authorization.k8s.io", "clusterroles", None, ref.get("name")))
                else:
                    roles.append(store.get("rbac.authorization.k8s.io", "roles", namespace, ref.get("name")))
    for role in roles:
        for rule in (role or {}).get("rules") or []:
            if _rule_allows(rule, verb, group, resource, name):
                return
    where = ('in the namespace "%s"' % namespace) if namespace else "at the cluster scope"
    raise AuthError(403, '%s%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s' % (
        resource.split("/")[0], ' "%s"' % name if name else "", user.name, verb, resource, group, where))


def _ns_matches(scope_ns, namespace):
    """An access scope's namespace: the name, or a prefix ending in *."""
    if scope_ns.endswith("*"):
        return namespace.startswith(scope_ns[:-1])
    return namespace == scope_ns


def _subject_matches(binding, user):
    for s in binding.get("subjects") or []:
        if s.get("kind") == "User" and s.get("name") in (user.name, user.arn):
            return True
        if s.get("kind") == "Group" and s.get("name") in user.groups:
            return True
    return False
