#!/usr/bin/python3
# 78-training-plans-ui.t: the web UI's Training plans page in Chromium
# (playwright-core, t/lib/plans-ui.js): a search lists the offerings
# with their upfront fee; Reserve asks to confirm the fee its dry run
# answered; confirming starts the training_plan.reserve operation, which
# buys the plan once, and the API then has it with time left.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import SRCDIR, Stack, sandbox_requests, wait_operation
from harness import need_browser, ui_script

t = T()
need_browser(t)
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
s = Stack(t, sandbox=True, speed=3000)

out = ui_script(t, "plans-ui.js", "http://127.0.0.1:%d" % s.port,
                 s.token)
fee = "$%s" % "{:,.2f}".format(2 * 48 * 31.46)
offs = out.get("offerings") or []
t.ok(offs and all(fee in row for row in offs),
     "the search lists the offerings with their fee %s: %s" % (fee, offs))
t.ok(fee in (out.get("confirm") or ""),
     "Reserve asks to confirm the fee first: %s" % out.get("confirm"))
op = out.get("operation") or ""
d = wait_operation(s, op) if op.startswith("op-") else {}
t.ok(d.get("kind") == "training_plan.reserve" and d.get("state") == "succeeded",
     "confirming started the reserve, which succeeded (%s %s)" %
     (d.get("kind"), d.get("state")))
t.eq(len(sandbox_requests(s, operation="CreateTrainingPlan")), 1,
     "one plan was bought")
r = s.get("/api/v1/training-plans/ui-plan")
t.ok(r.status == 200 and r.json.get("remaining_seconds", 0) > 0,
     "the plan is there with time left")
s.stop()
t.done()
