"""IAM policy simulation (iam:SimulatePrincipalPolicy) for the sandbox.

Evaluates the identity policies of a principal the sandbox knows, the way
IAM's simulator does for one account with no SCPs, boundaries or
resource policies: an explicit Deny wins, else an Allow whose Action,
Resource and every Condition match, else implicitDeny.  Conditions are
evaluated against the caller's ContextEntries only; a key the caller did
not supply does not match (as in IAM, where the simulator cannot guess
request context), except under Null.

The sandbox's base user authorises every call the sandbox accepts, so it
is described as carrying AWS's AdministratorAccess; an extra user made
through the control endpoint carries no policy at all and is denied
everything, as a new IAM user is.
"""
import fnmatch
import json

ADMIN = "arn:aws:iam::aws:policy/AdministratorAccess"
ADMIN_DOC = {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
BASE_USER = "slipway-sandbox"


def _list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _like(pattern, value, case=True):
    if not case:
        pattern, value = pattern.lower(), value.lower()
    return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))


def _match_condition(op, key, want, ctx):
    """One condition operator on one key against the context entries."""
    quals = ""
    if ":" in op and op.split(":")[0] in ("ForAllValues", "ForAnyValue"):
        quals, op = op.split(":", 1)
    if_exists = op.endswith("IfExists")
    if if_exists:
        op = op[:-len("IfExists")]
    have = ctx.get(key.lower())
    want = [str(w) for w in _list(want)]
    if op == "Null":
        return (have is None) == (want[0].lower() == "true")
    if have is None:
        return if_exists or quals == "ForAllValues"
    if op in ("StringEquals", "ArnEquals"):
        test = lambda h: any(h == w for w in want)
    elif op == "StringEqualsIgnoreCase":
        test = lambda h: any(h.lower() == w.lower() for w in want)
    elif op == "StringNotEquals":
        test = lambda h: all(h != w for w in want)
    elif op in ("StringLike", "ArnLike"):
        test = lambda h: any(_like(w, h) for w in want)
    elif op in ("StringNotLike", "ArnNotLike"):
        test = lambda h: not any(_like(w, h) for w in want)
    elif op == "Bool":
        test = lambda h: any(h.lower() == w.lower() for w in want)
    else:
        return False  # an operator this simulator does not know: no match
    if quals == "ForAllValues":
        return all(test(h) for h in have)
    return any(test(h) for h in have)


def _statement_matches(st, action, resource, ctx):
    acts = _list(st.get("Action"))
    nacts = _list(st.get("NotAction"))
    if acts and not any(_like(a, action, case=False) for a in acts):
        return False
    if nacts and any(_like(a, action, case=False) for a in nacts):
        return False
    res = _list(st.get("Resource"))
    nres = _list(st.get("NotResource"))
    if res and not any(_like(r, resource) for r in res):
        return False
    if nres and any(_like(r, resource) for r in nres):
        return False
    for op, body in (st.get("Condition") or {}).items():
        for key, want in body.items():
            if not _match_condition(op, key, want, ctx):
                return False
    return True


def evaluate(docs, action, resource, ctx):
    """(decision, matched statement ids) for one action and resource."""
    allowed = []
    for source, doc in docs:
        for i, st in enumerate(_list(doc.get("Statement"))):
            if not _statement_matches(st, action, resource, ctx):
                continue
            sid = {"SourcePolicyId": source, "SourcePolicyType": "IAM Policy"}
            if st.get("Effect") == "Deny":
                return "explicitDeny", [sid]
            allowed.append(sid)
    if allowed:
        return "allowed", allowed
    return "implicitDeny", []


def principal_documents(store, account, arn):
    """Identity policies of a user or role ARN, or None if unknown."""
    kind, _, name = arn.split(":", 5)[-1].partition("/")
    name = name.rsplit("/", 1)[-1]
    docs = []
    if kind == "user":
        if name == BASE_USER:
            return [("AdministratorAccess", ADMIN_DOC)]
        for rec in store.values("creds"):
            if rec.get("kind") == "user" and rec.get("arn") == arn:
                return docs
        return None
    if kind != "role":
        return None
    role = store.get("iam:roles", name)
    if role is None or role.get("Arn") != arn:
        return None
    for pname, text in sorted(role.get("inline", {}).items()):
        docs.append((pname, json.loads(text)))
    for parn in role.get("attached", []):
        if parn == ADMIN:
            docs.append(("AdministratorAccess", ADMIN_DOC))
            continue
        pol = store.get("iam:policies", parn)
        if pol is not None:
            docs.append((pol["PolicyName"], json.loads(pol["_document"])))
        # other AWS managed policies: their text is not in the sandbox,
        # so they grant nothing here
    return docs
