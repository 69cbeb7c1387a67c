#!/usr/bin/python3
# 24-teams-ui.t: teams in the web UI, in Chromium (playwright-core,
# t/lib/teams-ui.js).  A service account of one team sees its team and
# role in the header and works as that team at once; the Teams page
# lists its team alone and no service accounts (it administers none).
# A token of no team sees every team (configured, or of a service
# account) with each team's service accounts, and "Work as b" sets the
# switcher, whose team then rides on the UI's calls as Slipway-Team.
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, need_browser, ui_script

t = T()
need_browser(t)
tmp = tempfile.mkdtemp(prefix="sw-teams-ui-")
conf = os.path.join(tmp, "slipway.conf")
with open(conf, "w") as f:
    f.write("team.a.operator = ml-team-a\nteam.b.viewer = ml-team-b\n")
os.environ["SLIPWAY_CONF"] = conf
s = Stack(t)
tok = {}
for name, team, role in (("sa-a-op", "a", "operator"),
                         ("sa-b-admin", "b", "platform-admin"),
                         ("sa-c-view", "c", "viewer")):
    r = s.post("/api/v1/tokens", {"name": name, "team": team, "role": role})
    t.eq(r.status, 201, "service account %s made" % name)
    tok[name] = r.json.get("token")

out = ui_script(t, "teams-ui.js", "http://127.0.0.1:%d" % s.port,
                tok["sa-a-op"], s.token)
t.eq((out.get("op_roles") or "").strip(), "a: operator",
     "the header shows the service account's team and role")
t.eq(out.get("op_team"), "a", "... and it works as its one team at once")
t.eq(out.get("op_teams"), [["a", "operator"]],
     "its Teams page lists team a alone, with its role")
t.eq(out.get("op_accounts"), [],
     "... and no service accounts: it administers no team")
t.eq((out.get("admin_roles") or "").strip(), "every team",
     "a token of no team: every team, in the header")
t.eq([x[0] for x in out.get("admin_teams") or []], ["a", "b", "c"],
     "its Teams page lists every team: configured or of a service account")
acc = dict((k, v) for k, v in out.get("admin_accounts") or [])
t.eq((acc.get("accounts-a"), acc.get("accounts-b"), acc.get("accounts-c")),
     (["sa-a-op"], ["sa-b-admin"], ["sa-c-view"]),
     "... with each team's service accounts")
t.eq(out.get("switched"), "b", "'Work as b' sets the header's switcher")
t.eq(out.get("sent"), "b", "... and the UI's calls carry Slipway-Team: b")
s.stop()
shutil.rmtree(tmp, ignore_errors=True)
t.done()
