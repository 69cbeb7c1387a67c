#!/usr/bin/python3
# 19-teams.t: teams and roles, decided by one rule in dispatch.  A
# generated matrix over every operation row (from the OpenAPI document
# the table writes: x-slipway-touch) x {viewer, operator,
# platform-admin} x {own team, other team, no team} x {REST with a
# bearer token, REST with the UI's session cookie, MCP (rows that are
# tools)}, and every stream x role x team over WebSocket with a bearer
# token and with the cookie: denied (401/403) exactly where the rule
# says, 0 wrong cells; tools/list shows exactly what each role may call.  Then
# service accounts (team, role, expiry, revocation by the team's
# platform-admins) and people from a real OpenID provider (oidc-provider
# on loopback) whose groups map to teams: team a's job is in
# hyperpod-ns-a, and team b never sees it.
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from oidcop import Provider
from harness import (Kubectl, Stack, helm_simulated, wait_for,
                     wait_operation)
from mcp_raw import Mcp
import wsclient

SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
t = T()
if not os.path.isdir(os.path.join(SRCDIR, "t", "node_modules",
                                  "oidc-provider")):
    t.skip_all("t/node_modules is missing (cd t && npm ci)")
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
tmp = tempfile.mkdtemp(prefix="sw-teams-")
provider = Provider(t, tmp)
issuer = provider.issuer
conf = os.path.join(tmp, "slipway.conf")
with open(conf, "w") as f:
    f.write("oidc.issuer = %s\n" % issuer)
    f.write("oidc.user_claim = preferred_username\n")
    f.write("oidc.groups_claim = groups\n")
    f.write("oidc.scope = read\n")
    # alice: ml-team-a and platform; bob: ml-team-b
    f.write("team.a.operator = ml-team-a\n")
    f.write("team.b.viewer = ml-team-b\n")
    f.write("team.ops.platform-admin = platform\n")
os.environ["SLIPWAY_CONF"] = conf
s = Stack(t, sandbox=True, speed=2000)
resource = "http://127.0.0.1:%d" % s.port
ROLES = ("viewer", "operator", "platform-admin")
RANK = {"viewer": 1, "operator": 2, "platform-admin": 3}

# ---- service accounts: one per team and role -----------------------
sa = {}
for team in ("a", "b"):
    for role in ROLES:
        r = s.post("/api/v1/tokens", {"name": "sa-%s-%s" % (team, role),
                                      "team": team, "role": role})
        if not t.eq(r.status, 201, "service account %s/%s made" %
                    (team, role)):
            t.diag(r.body)
        sa[(team, role)] = r.json.get("token")
r = s.get("/api/v1/whoami", token=sa[("a", "operator")])
t.eq((r.json.get("teams"), r.json.get("all_teams"), r.json.get("scope")),
     ([{"team": "a", "role": "operator"}], False, "write"),
     "whoami: a service account's team, role and scope")
cli_tok = s.cli("token", "create", "--team", "a", "--role", "viewer",
                "--name", "cli-a-viewer", "--ttl", "3600").strip()
r = s.get("/api/v1/whoami", token=cli_tok)
t.eq(r.json.get("teams"), [{"team": "a", "role": "viewer"}],
     "slipway token create --team --role makes a service account")
r = s.get("/api/v1/whoami")
t.eq((r.json.get("all_teams"), r.json.get("teams")), (True, []),
     "whoami: an admin token of no team is in every team")

# ---- the matrix ------------------------------------------------------
doc = s.get("/api/v1/openapi.json").json
ops = []
for path, item in sorted(doc["paths"].items()):
    for method, op in sorted(item.items()):
        if method in ("get", "post", "put", "patch", "delete"):
            ops.append((method.upper(), path, op))
t.ok(all(op.get("x-slipway-touch") in ("self", "cluster", "team",
                                        "platform") for _, _, op in ops),
     "every row names what it touches (%d rows)" % len(ops))


def expect(op, method, role, case):
    """The rule, written again from the docs: True when allowed."""
    touch = op["x-slipway-touch"]
    if op.get("security") == [] or touch == "self":
        return True
    if touch == "cluster":
        return True
    if touch == "team":
        need = 1 if method == "GET" else 2
        return case != "other" and RANK[role] >= need
    if op.get("x-slipway-team-arg"):
        return case != "other" and role == "platform-admin"
    return role == "platform-admin"


def sample(var):
    return "op-0123456789abcdef" if var == "id" else "zz1"


def with_team(op, method, url, case):
    """The request's URL and body: the team in the query (GET,
    DELETE) or the body."""
    team = {"own": "a", "other": "b"}.get(case)
    body = {} if method in ("POST", "PUT", "PATCH") else None
    if team is None or not (op["x-slipway-touch"] == "team" or
                            op.get("x-slipway-team-arg")):
        return url, body
    if body is not None:
        return url, {"team": team}
    return url + ("&" if "?" in url else "?") + "team=" + team, body




def ui_session(token):
    """The browser's credentials after the login form with token: the
    session cookie, and the Origin a browser sends beside it."""
    r = s.post("/api/v1/login", {"token": token}, token=None)
    cookie = (r.header("Set-Cookie") or "").split(";")[0]
    t.ok(r.status == 200 and cookie.startswith("sw_session="),
         "the login form's session for %s" % r.json.get("name"))
    return {"Cookie": cookie, "Origin": "http://127.0.0.1:%d" % s.port}


# Each face of the same REST request: the service account's bearer
# token (scripts, the CLI) and the session cookie of the UI's login.
FACES = {"REST": lambda role: {"token": sa[("a", role)]},
         "UI cookie": (lambda cookies: lambda role: {
             "token": None, "headers": cookies[role]})(
             {role: ui_session(sa[("a", role)]) for role in ROLES})}
for face, creds in FACES.items():
    wrong = []
    cells = 0
    for method, path, op in ops:
        if op.get("security") == [] or (face == "UI cookie" and
                                        path == "/api/v1/logout"):
            continue        # public: no credentials, no rule
        url = re.sub(r"\{([^}]+)\}", lambda m: sample(m.group(1)), path)
        if path.endswith(":wait"):
            url += "?timeout=1"
        for role in ROLES:
            for case in ("own", "other", "none"):
                want = expect(op, method, role, case)
                u, body = with_team(op, method, url, case)
                r = s.request(method, u, body=body, timeout=60,
                              **creds(role))
                cells += 1
                got = r.status not in (401, 403)
                if got != want or (not got and r.status != 403) or (
                        not got and "rule" not in r.body):
                    wrong.append("%s %s %s %s/%s: %d %s" % (
                        face, method, path, role, case, r.status,
                        r.body[:200]))
    t.diag("%s cells: %d" % (face, cells))
    for w in wrong[:20]:
        t.diag(w)
    t.ok(not wrong and cells > 100, "%s: every row x role x team cell "
         "holds (%d cells, %d wrong); a denial is a 403 naming the rule" %
         (face, cells, len(wrong)))

by_tool = {op.get("operationId"): (method, path, op)
           for method, path, op in ops}
all_tools = [x["name"] for x in Mcp(s).modern("tools/list").json["result"]
             ["tools"] if x["name"] in by_tool]
mwrong = []
mcells = 0
for role in ROLES:
    m = Mcp(s, token=sa[("a", role)])
    listed = {x["name"] for x in m.modern("tools/list").json["result"]
              ["tools"]}
    for name in all_tools:
        method, path, op = by_tool[name]
        for case in ("own", "other", "none"):
            want = expect(op, method, role, case)
            if case == "none" and name not in listed and want:
                mwrong.append("%s not listed for %s" % (name, role))
            if case == "none" and name in listed and not want:
                mwrong.append("%s listed for %s" % (name, role))
            args = {v: sample(v) for v in re.findall(r"\{([^}]+)\}", path)}
            if name == "operation_wait":
                args["timeout"] = 1
            team = {"own": "a", "other": "b"}.get(case)
            if team and op["x-slipway-touch"] == "team":
                args["team"] = team
            r = m.call(name, args)
            res = (r.json or {}).get("result") or {}
            sc = res.get("structuredContent") or {}
            st = sc.get("status") if isinstance(sc, dict) else None
            # a destructive tool's confirmation shows its dry run's plan:
            # refused when that plan is
            refused = st in (401, 403) or "needs scope" in r.body or (
                "HTTP 403" in r.body and "/problems/forbidden" in r.body)
            if name not in listed and not refused:
                # a tool not listed may not exist for this caller
                refused = "unknown tool" in r.body.lower()
            mcells += 1
            if refused == want:
                mwrong.append("MCP %s %s/%s: %s" % (name, role, case,
                                                   r.body[:200]))
t.diag("MCP cells: %d" % mcells)
for w in mwrong[:20]:
    t.diag(w)
t.ok(not mwrong and mcells > 100, "MCP: every tool x role x team cell "
     "holds in tools/call and tools/list (%d cells, %d wrong)" %
     (mcells, len(mwrong)))


def ws_face(path, headers):
    """The WebSocket upgrade's refusal status, or 101 when accepted."""
    try:
        wsclient.connect(s.port, path, headers).close()
        return 101
    except wsclient.Refused as e:
        return e.status


# The streams, by the same rule: an operation's events are a cluster
# read (every role); a pod's log is its namespace's team's workload
# (hyperpod-ns-a is team a's own, hyperpod-ns-b the other's, default
# no team's).
WS_FACES = {"WebSocket bearer": lambda role: {
                "Authorization": "Bearer " + sa[("a", role)]},
            "WebSocket cookie": lambda role: FACES["UI cookie"](role)[
                "headers"]}
WS_CELLS = [("/ws/operations/op-0123456789abcdef", None)] + [
    ("/ws/clusters/zz1/pods/%s/p-0/logs" % ns, case)
    for ns, case in (("hyperpod-ns-a", "own"), ("hyperpod-ns-b", "other"),
                     ("default", "none"))]
for face, creds in WS_FACES.items():
    wrong = []
    cells = 0
    for role in ROLES:
        for path, case in WS_CELLS:
            want = case in (None, "own")
            st = ws_face(path, creds(role))
            cells += 1
            if (st not in (401, 403)) != want or (not want and st != 403):
                wrong.append("%s %s %s: %d" % (face, path, role, st))
    for w in wrong:
        t.diag(w)
    t.ok(not wrong, "%s: every stream x role x team cell holds (%d cells, "
         "%d wrong)" % (face, cells, len(wrong)))
r = s.get("/api/v1/clusters/zz1/training-jobs?team=" + "x" * 40)
t.ok(r.status == 400 and any(e.get("field") == "team" for e in
                             r.json.get("errors", [])),
     "a team name too long: 400 naming team")
r = s.get("/api/v1/clusters/zz1/training-jobs?team=Bad_Team")
t.ok(r.status == 400 and any(e.get("field") == "team" for e in
                             r.json.get("errors", [])),
     "a team name breaking [a-z0-9-]: 400 naming team")

# ---- service accounts: listed with their team, role and expiry ------
pa_a, pa_b = sa[("a", "platform-admin")], sa[("b", "platform-admin")]
r = s.get("/api/v1/tokens", token=pa_a)
names = {i["name"]: i for i in (r.json or {}).get("items", [])}
t.ok(r.status == 200 and names and all(i.get("team") == "a"
                                       for i in names.values()) and
     "sa-a-viewer" in names and "sa-b-viewer" not in names,
     "team a's platform-admin lists team a's service accounts only")
r = s.get("/api/v1/tokens")
items = {i["name"]: i for i in r.json["items"]}
t.eq((items["sa-b-operator"].get("team"), items["sa-b-operator"].get("role"),
      items["sa-b-operator"].get("expires_ms")), ("b", "operator", None),
     "an admin lists every token with its team and role")
r = s.post("/api/v1/tokens", {"name": "sa-a-bot", "role": "operator",
                              "ttl_seconds": 3600}, token=pa_a)
t.ok(r.status == 201 and r.json.get("team") == "a" and
     r.json.get("scope") == "write" and
     r.json.get("expires_ms", 0) > time.time() * 1000 + 3500e3,
     "team a's platform-admin makes an operator of team a, expiring in "
     "an hour (the team is theirs by default)")
bot = r.json.get("token")
r = s.post("/api/v1/tokens", {"name": "sa-x", "team": "b",
                              "role": "viewer"}, token=pa_a)
t.ok(r.status == 403 and "rule platform" in r.body,
     "... but none of team b: 403 naming the rule")
r = s.post("/api/v1/tokens", {"name": "sa-x", "team": "a",
                              "role": "viewer"},
           token=sa[("a", "operator")])
t.eq(r.status, 403, "an operator makes no service account: 403")
r = s.post("/api/v1/tokens", {"name": "sa-x", "role": "viewer",
                              "scope": "admin"}, token=pa_a)
t.ok(r.status == 400 and "scope" in r.body,
     "a scope above the role's: 400 naming scope")
r = s.post("/api/v1/tokens", {"name": "sa-short", "team": "a",
                               "role": "viewer", "ttl_seconds": 1})
short = r.json.get("token")
t.eq(s.get("/api/v1/whoami", token=short).status, 200,
     "a service account works before it expires")
t.ok(wait_for(lambda: s.get("/api/v1/whoami", token=short).status == 401,
              timeout=30), "... and is refused with 401 after")
r = s.request("DELETE", "/api/v1/tokens/sa-a-bot", token=pa_b)
t.eq(r.status, 404, "team b's platform-admin cannot revoke team a's "
     "service account (404 in team b)")
r = s.request("DELETE", "/api/v1/tokens/sa-a-bot?team=a", token=pa_b)
t.eq(r.status, 403, "... nor by naming team a (403)")
t.eq(s.get("/api/v1/whoami", token=bot).status, 200, "... it still works")
r = s.request("DELETE", "/api/v1/tokens/sa-a-bot", token=pa_a)
t.eq(r.status, 200, "team a's platform-admin revokes it")
t.eq(s.get("/api/v1/whoami", token=bot).status, 401, "... then it gets 401")
r = s.request("DELETE", "/api/v1/tokens/sa-b-viewer")
t.eq(r.status, 200, "an admin of no team revokes any team's")


# ---- people from the provider: groups -> team roles -------------------
def provider_token(who, secret):
    return provider.token(who, secret, resource)


alice = provider_token("alice", "alice-secret")
bob = provider_token("bob", "bob-secret")
r = s.get("/api/v1/whoami", token=alice)
t.eq(r.json.get("teams"), [{"team": "a", "role": "operator"},
                           {"team": "ops", "role": "platform-admin"}],
     "alice's groups make her operator of a and platform-admin of ops")
r = s.get("/api/v1/whoami", token=bob)
t.eq(r.json.get("teams"), [{"team": "b", "role": "viewer"}],
     "bob's make him viewer of b")
m = Mcp(s, token=bob)
r = m.call("whoami", {})
t.ok('"viewer"' in r.body and '"b"' in r.body,
     "MCP whoami says the teams and roles")
listed = {x["name"] for x in m.modern("tools/list").json["result"]["tools"]}
t.ok("training_job_list" in listed and "training_job_submit" not in listed
     and "cluster_create" not in listed and "cluster_list" in listed,
     "MCP tools/list shows bob the reads only")

if not helm_simulated():
    t.skip("the sandbox cannot create a cluster", 14)
    s.stop()
    t.done()
    sys.exit(0)
r = s.get("/api/v1/instance-types?gpu_only=true")
types = {i["instance_type"]: i for i in r.json["items"]}
gtype = next(n for n, i in sorted(types.items())
             if not i["efa_supported"] and i["gpus"] > 0)
r = s.post("/api/v1/clusters", {
    "name": "tm", "storage": {"s3_bucket": "tm-teams-data"},
    "instance_groups": [{
        "name": "gpu", "instance_type": gtype, "count": 1,
        "availability_zone": types[gtype]["availability_zones"][0]}]},
    token=alice)
t.eq(r.status, 202, "alice, platform-admin of ops, creates a cluster")
d = wait_operation(s, r.json.get("operation_id", "x"), timeout=300)
if not t.eq(d.get("state"), "succeeded", "cluster created"):
    t.diag(json.dumps(d)[-1500:])
C = "/api/v1/clusters/tm"
dl = {"model_id": "Qwen/Qwen3-0.6B", "job_name": "qwen-a"}
r = s.post(C + "/models:download", dict(dl, team="a"), token=alice)
if not t.ok(r.status in (201, 202), "alice downloads a model for team a"):
    t.diag(r.body[:600])
if shutil.which("kubectl.1.32") or shutil.which("kubectl"):
    kube = Kubectl(s, "tm")
    kjob = kube.get("job", "qwen-a", "-n", "hyperpod-ns-a") or {}
    t.eq(((kjob.get("metadata") or {}).get("annotations") or {}).get(
        "slipway.dev/requested-by"), "alice@example.com",
        "kubectl: the Job is in hyperpod-ns-a, annotated with the person")
    kube.close()
else:
    t.skip("kubectl missing")
r = s.post(C + "/models:download", dict(dl, team="b", job_name="qwen-b"),
           token=alice)
t.ok(r.status == 403 and "team 'b'" in r.body,
     "... not for team b: 403 naming the rule")
r = s.post(C + "/models:download", dict(dl, job_name="qwen-c",
                                        namespace="default"), token=alice)
t.ok(r.status == 400 and any(e.get("field") == "namespace" and
                             e.get("rule") == "team"
                             for e in r.json.get("errors", [])),
     "... nor into a namespace of no team: 400 naming namespace")


def jobs(token, query=""):
    r = s.get(C + "/training-jobs" + query, token=token)
    return r.status, {(j.get("job"), j.get("namespace"))
                      for j in (r.json or {}).get("items", [])}


st, seen = jobs(sa[("a", "viewer")])
t.ok(st == 200 and ("qwen-a", "hyperpod-ns-a") in seen,
     "team a's viewer sees the job, in hyperpod-ns-a")
st, seen = jobs(bob)
t.ok(st == 200 and not any(ns == "hyperpod-ns-a" for _, ns in seen),
     "bob (team b) lists jobs and never sees team a's")
t.eq(jobs(bob, "?team=a")[0], 403, "bob naming team a: 403")
t.eq(jobs(bob, "?namespace=hyperpod-ns-a")[0], 403,
     "bob naming team a's namespace: 403")
st, seen = jobs(s.token)
t.ok(("qwen-a", "hyperpod-ns-a") in seen,
     "an admin token of no team sees every team's")


def jobs_as(token, team):
    """The jobs listed with the UI's team switcher set to team."""
    r = s.get(C + "/training-jobs", token=token,
              headers={"Slipway-Team": team})
    return r.status, {(j.get("job"), j.get("namespace"))
                      for j in (r.json or {}).get("items", [])}


st, seen = jobs_as(s.token, "b")
t.ok(st == 200 and not any(ns == "hyperpod-ns-a" for _, ns in seen),
     "an admin working as team b (Slipway-Team) lists team b's jobs only")
st, seen = jobs_as(s.token, "a")
t.ok(st == 200 and ("qwen-a", "hyperpod-ns-a") in seen,
     "... and as team a, team a's")
t.eq(jobs_as(bob, "a")[0], 403, "bob working as team a: 403, as naming it")
r = s.get(C + "/training-jobs?team=b", token=s.token,
          headers={"Slipway-Team": "a"})
t.ok(r.status == 200 and not any(j.get("namespace") == "hyperpod-ns-a"
                                 for j in r.json["items"]),
     "a team argument wins over the header")
r = s.get(C + "/training-jobs", token=s.token,
          headers={"Slipway-Team": "Bad_Team"})
t.ok(r.status == 400 and any(e.get("field") == "team"
                             for e in r.json.get("errors", [])),
     "a header breaking the team pattern: 400 naming team")

# ---- the teams a caller sees -----------------------------------------
r = s.get("/api/v1/teams", token=sa[("a", "operator")])
t.eq((r.status, r.json.get("all_teams"), [(i["team"], i.get("role"))
                                          for i in r.json["items"]]),
     (200, False, [("a", "operator")]),
     "team_list: a service account sees its one team and its role")
r = s.get("/api/v1/teams", token=alice)
t.eq([(i["team"], i.get("role"), i["groups"]) for i in r.json["items"]],
     [("a", "operator", {"operator": ["ml-team-a"]}),
      ("ops", "platform-admin", {"platform-admin": ["platform"]})],
     "alice sees her teams, her role and the groups that make members")
r = s.get("/api/v1/teams")
names = [i["team"] for i in r.json["items"]]
t.ok(r.json["all_teams"] and names == sorted(names) and
     {"a", "b", "ops"} <= set(names) and
     all("role" not in i for i in r.json["items"]),
     "a token of no team sees every team, configured or of a service "
     "account (%s)" % names)


def ws_status(token, path):
    """The WebSocket upgrade's refusal status, or 101 when accepted."""
    try:
        wsclient.connect(s.port, path, {"Authorization": "Bearer " +
                                        token}).close()
        return 101
    except wsclient.Refused as e:
        return e.status


LOGS = "/ws/clusters/tm/pods/%s/qwen-a-0/logs"
t.eq(ws_status(bob, LOGS % "hyperpod-ns-a"), 403,
     "the log stream of a team a pod: 403 for bob (the same rule)")
t.ok(ws_status(sa[("a", "viewer")], LOGS % "hyperpod-ns-a") != 403,
     "... not for team a's viewer")
t.eq(ws_status(bob, LOGS % "default"), 403,
     "... nor a pod of no team's for bob")
s.stop()
provider.stop()
t.done()
