#!/usr/bin/python3
# 74-budgets-ui.t: the budgets beside the ledger on the web UI's Costs
# page, in Chromium (playwright-core, t/lib/budgets-ui.js): a budget set
# over REST is listed with its spent, forecast and limit; the page's form
# copies its request as curl and MCP, shows the server's refusal beside
# the thresholds, and sets a budget that the table then lists and the
# API answers.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, need_browser, ui_script

t = T()
need_browser(t)
s = Stack(t)
r = s.request("PUT", "/api/v1/budgets/team/ml", {"limit_usd": 500})
t.eq(r.status, 201, "a budget of team ml is set over REST")

out = ui_script(t, "budgets-ui.js", "http://127.0.0.1:%d" % s.port, s.token)
rows = {x[0]: x[1:] for x in out.get("rows") or []}
ml = rows.get("team/ml") or []
t.ok(ml and "$500.00" in ml and "$0.00" in ml,
     "the Costs page lists it: spent, forecast and limit (%s)" % ml)
t.eq(out.get("copy"), ["Copy as curl", "Copy as MCP call"],
     "the budget form copies its request as curl and as an MCP call")
t.ok(any(f == "thresholds[1]" for f, _ in out.get("refusal") or []),
     "thresholds out of order: the server's refusal is shown (%s)" %
     out.get("refusal"))
after = {x[0]: x[1:] for x in out.get("after") or []}
t.ok("cluster/c9" in after and "$1,200.00" in after["cluster/c9"],
     "the form sets a cluster budget, and the table lists it (%s)" %
     after.get("cluster/c9"))
b = s.get("/api/v1/budgets/cluster/c9").json or {}
t.eq((b.get("limit_usd"), b.get("thresholds")), (1200, [75, 90]),
     "the API answers what the form set")
t.done()
