#!/usr/bin/python3
# 73-budgets.t: monthly budgets against the usage ledger, over a month of
# sandbox time.  A cluster of 2 GPU nodes runs a pod of team "a" holding
# one GPU; a budget of the cluster and one of team a are set so that the
# rest of the month would reach about 125 % of each.  The sandbox's clock
# then jumps in three steps to about 60 %, 90 % and 110 % of the limits:
# after each, the poller's sample records exactly the thresholds reached
# (50, then 80, then 100), each once, and later samples add none.  Spent
# is the ledger's cost of the month; the burn rate is the nodes' (the
# team's GPU's) price an hour; the forecast is spent + burn x the hours
# left, to the cent.  Bad input is a 400 problem naming the field; MCP's
# budget tools answer the same.
# Each crossing is a budget.threshold notification: a webhook receiver on
# loopback subscribed to every cluster gets exactly one event per
# threshold of each budget (3 + 3), none repeated over later samples, and
# one subscribed to cluster c1 only the cluster budget's 3 (a team
# budget belongs to no cluster), each with a valid HMAC-SHA256 signature
# and the budget, month, threshold, spent, limit and forecast; a Slack
# subscription gets one line per crossing.
import json
import os
import re
import sys
import time
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import aws_price as harness_aws_price
from harness import Stack, Kubectl, sandbox_call, need_clusters
from harness import wait_operation
from mcp_raw import Mcp
import webhook

t = T()
need_clusters(t)

SECRET = "a-budget-secret-of-some-length"
rx = webhook.Receiver()
hook = rx.url

os.environ["SLIPWAY_LEDGER_INTERVAL"] = "1"
SPEED = 3000
s = Stack(t, sandbox=True, speed=SPEED)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"] and i["gpus"] >= 1)
TYPE, AZ, GPUS = g["instance_type"], g["availability_zones"][0], g["gpus"]
REGION = s.get("/api/v1/regions").json["region"]
CENT = Decimal("0.01")


def D(v):
    return Decimal(str(v))


def wait_for(pred, timeout=180):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.5)
    return None


def budget(scope, name):
    r = s.get("/api/v1/budgets/%s/%s" % (scope, name))
    return r.json if r.status == 200 else {}


def put(scope, name, body):
    return s.request("PUT", "/api/v1/budgets/%s/%s" % (scope, name), body)


def names_field(r, field, rule=None):
    errs = (r.json or {}).get("errors", [])
    return (r.status == 400 and
            (r.header("Content-Type") or "").startswith(
                "application/problem+json") and
            any(e.get("field") == field and (rule is None or
                                             e.get("rule") == rule)
                for e in errs))


# ---- refusals: a 400 problem naming the field and its rule
for path, body, field, rule in [
        ("cluster/c1", {}, "limit_usd", "required"),
        ("cluster/c1", {"limit_usd": 0}, "limit_usd", "minimum"),
        ("cluster/c1", {"limit_usd": "ten"}, "limit_usd", "type"),
        ("cluster/c1", {"limit_usd": 100, "thresholds": [80, 50]},
         "thresholds[1]", "ascending"),
        ("cluster/c1", {"limit_usd": 100, "thresholds": [0]},
         "thresholds[0]", "minimum"),
        ("cluster/c1", {"limit_usd": 100, "stop": True}, "stop", None),
        ("org/acme", {"limit_usd": 100}, "scope", "enum"),
        ("cluster/9lives", {"limit_usd": 100}, "name", "pattern"),
        ("team/Team_A", {"limit_usd": 100}, "name", "pattern")]:
    r = put(*path.split("/"), body)
    if not t.ok(names_field(r, field, rule),
                "PUT %s %s: 400 naming %s (%s)" % (path, json.dumps(body),
                                                  field, rule)):
        t.diag("%s %s" % (r.status, r.body))
t.eq(s.get("/api/v1/budgets/team/nobody").status, 404,
     "a budget never set is 404")
t.eq(s.request("DELETE", "/api/v1/budgets/team/nobody").status, 404,
     "and so is removing it")

# ---- subscriptions to budget thresholds, before anything is crossed
for body in ({"name": "money", "target": "webhook", "url": hook + "/all",
              "secret": SECRET, "events": ["budget.threshold"]},
             {"name": "money-c1", "target": "webhook", "url": hook + "/c1",
              "secret": SECRET, "cluster": "c1",
              "events": ["budget.threshold", "operation.failed"]},
             {"name": "chat", "target": "webhook", "url": hook + "/slack",
              "secret": SECRET, "format": "slack",
              "events": ["budget.threshold"]}):
    r = s.post("/api/v1/subscriptions", body)
    t.eq(r.status, 201, "subscription %s to budget.threshold (%s)" %
         (body["name"], r.json))

# ---- a cluster of 2 nodes; team a's pod holds one GPU of one
price = harness_aws_price(s, REGION, TYPE)
r = s.post("/api/v1/clusters", {"name": "c1", "instance_groups": [
    {"name": "w", "instance_type": TYPE, "count": 2, "availability_zone": AZ}]})
t.eq(r.status, 202, "a cluster of 2 %s (%d GPUs each) is created" % (TYPE, GPUS))
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and runs")
k = Kubectl(s, "c1")
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
    "name": "trainer", "namespace": "hyperpod-ns-a",
    "labels": {"batch.kubernetes.io/job-name": "llm-1"}},
    "spec": {"containers": [{"name": "x", "image": "registry.example.com/team/train:1",
                              "resources": {"requests": {"nvidia.com/gpu": "1"},
                                            "limits": {"nvidia.com/gpu": "1"}}}]}}
k.run("create", "namespace", "hyperpod-ns-a")
p = k.run("create", "-f", "-", stdin=json.dumps(pod))
t.eq(p.returncode, 0, "a pod of team a asks for 1 GPU: %s" % p.stderr.strip())
t.ok(wait_for(lambda: (k.get("pod", "-n", "hyperpod-ns-a", "trainer") or {})
              .get("status", {}).get("phase") == "Running"), "and runs")

# Budgets far out of reach first, to read the burn rates and the month
# (a threshold crossed stays crossed for the month, whatever the limit)
t.eq(put("cluster", "c1", {"limit_usd": 1e9}).status, 201, "cluster budget set")
r = put("team", "a", {"limit_usd": 1e9, "thresholds": [50, 80, 100]})
t.eq(r.status, 201, "team budget set")
node_burn, gpu_burn = 2 * price, price / GPUS
c = wait_for(lambda: (lambda b: b if abs(D(b.get("burn_usd_per_hour", 0)) -
                                         node_burn) < CENT else None)
             (budget("cluster", "c1")))
t.ok(c, "the cluster burns its 2 nodes' price an hour: %s (2 x %s)" %
     ((c or {}).get("burn_usd_per_hour"), price))
a = wait_for(lambda: (lambda b: b if abs(D(b.get("burn_usd_per_hour", 0)) -
                                         gpu_burn) < CENT else None)
             (budget("team", "a")))
t.ok(a, "team a burns its GPU's share: %s (%s / %d)" %
     ((a or {}).get("burn_usd_per_hour"), price, GPUS))
c = c or {}

# Near a month's end, start in the next month: the steps need room.
if c.get("remaining_seconds", 0) < 3 * 86400:
    month = c.get("month")
    sandbox_call(s, "POST", "/_sandbox/advance",
                 {"seconds": (c["remaining_seconds"] + 86400) * SPEED})
    t.ok(wait_for(lambda: budget("cluster", "c1").get("month") != month),
         "the ledger's clock moves into the next month")
    t.ok(wait_for(lambda: D(budget("cluster", "c1").get(
        "burn_usd_per_hour", 0)) > 0), "and samples it")


def forecast_ok(b):
    rest = D(b["burn_usd_per_hour"]) * D(b["remaining_seconds"]) / 3600
    return abs(D(b["forecast_usd"]) - (D(b["spent_usd"]) + rest)) <= CENT


limits = {}
for scope, name in (("cluster", "c1"), ("team", "a")):
    b = budget(scope, name)
    t.ok(b and forecast_ok(b), "%s %s: forecast %s = spent %s + %s/h x %s s"
         % (scope, name, b.get("forecast_usd"), b.get("spent_usd"),
            b.get("burn_usd_per_hour"), b.get("remaining_seconds")))
    # the rest of the month would cost 125 % of the limit
    lim = ((D(b["spent_usd"]) + D(b["burn_usd_per_hour"]) *
            D(b["remaining_seconds"]) / 3600 * Decimal("0.8"))
           .quantize(CENT))
    lim = max(lim, Decimal(1))
    limits[(scope, name)] = lim
    r = put(scope, name, {"limit_usd": float(lim)})
    t.ok(r.status == 200 and D(r.json["limit_usd"]) == lim,
         "%s %s: limit %s (changed: 200)" % (scope, name, lim))
    t.eq([x["threshold"] for x in b.get("alerts", [])], [],
         "%s %s: no threshold crossed yet (%s %%)" % (scope, name,
                                                       b.get("percent")))

seen = {}
for target, want in ((Decimal("0.60"), [50]), (Decimal("0.90"), [50, 80]),
                     (Decimal("1.10"), [50, 80, 100])):
    c = budget("cluster", "c1")
    lim = limits[("cluster", "c1")]
    hours = (target * lim - D(c["spent_usd"])) / D(c["burn_usd_per_hour"])
    st, _ = sandbox_call(s, "POST", "/_sandbox/advance",
                         {"seconds": int(hours * 3600 * SPEED)})
    t.eq(st, 200, "the clock jumps %.1f hours, to about %d %%" %
         (hours, target * 100))
    for scope, name in (("cluster", "c1"), ("team", "a")):
        b = wait_for(lambda: (lambda x: x if [a["threshold"] for a in
                                                x.get("alerts", [])] == want
                              else None)(budget(scope, name)))
        t.ok(b, "%s %s: crossed %s at %s %% of %s" % (
            scope, name, want, (b or {}).get("percent"),
            limits[(scope, name)]))
        b = b or {}
        for a in b.get("alerts", []):
            key = (scope, name, a["threshold"])
            if key in seen:
                t.eq(a["crossed_at"], seen[key],
                     "%s %s: %d %% still crossed once, at %s" %
                     (scope, name, a["threshold"], seen[key]))
            seen[key] = a["crossed_at"]

# later samples cross nothing again
as_of = budget("cluster", "c1").get("as_of")
t.ok(wait_for(lambda: budget("cluster", "c1").get("as_of", "") > as_of and
              budget("cluster", "c1").get("as_of"), timeout=60),
     "the poller samples on")
time_marks = set()
t.ok(wait_for(lambda: time_marks.add(budget("cluster", "c1").get("as_of")) or
              len(time_marks) >= 3, timeout=60), "three more samples")
fired = {}
logs = os.path.join(s.state, "logs")
for f in os.listdir(logs):
    for line in s.log_text(f).splitlines():
        m = re.search(r"budget (\S+): crossed (\d+) threshold", line)
        if m:
            fired[m.group(1)] = fired.get(m.group(1), 0) + int(m.group(2))
t.eq(fired, {"cluster/c1": 3, "team/a": 3},
     "the poller fired each budget's 3 thresholds once each")
for scope, name in (("cluster", "c1"), ("team", "a")):
    b = budget(scope, name)
    t.eq([a["threshold"] for a in b.get("alerts", [])], [50, 80, 100],
         "%s %s: 50, 80 and 100 %% once each" % (scope, name))
    t.ok(D(b.get("percent", 0)) >= 100 and D(b.get("forecast_usd", 0)) >
         D(b.get("limit_usd", 0)), "%s %s: %s %% spent, forecast %s" %
         (scope, name, b.get("percent"), b.get("forecast_usd")))
    t.ok(forecast_ok(b), "%s %s: forecast %s = spent %s + %s/h x %s s" %
         (scope, name, b.get("forecast_usd"), b.get("spent_usd"),
          b.get("burn_usd_per_hour"), b.get("remaining_seconds")))

# spent is the ledger's month so far
c = budget("cluster", "c1")
m = c["month"]
q = "from=%s-01&to=%s-31" % (m, m)
led = s.get("/api/v1/costs/ledger?cluster=c1&" + q).json["totals"]
t.ok(abs(D(led["node_usd"]) - D(c["spent_usd"])) <= CENT,
     "cluster spent %s = the ledger's node cost of %s (%s)" %
     (c["spent_usd"], m, led["node_usd"]))
a = budget("team", "a")
led = s.get("/api/v1/costs/ledger?team=a&" + q).json["totals"]
t.ok(abs(D(led["gpu_usd"]) - D(a["spent_usd"])) <= CENT,
     "team spent %s = the ledger's GPU cost of team a (%s)" %
     (a["spent_usd"], led["gpu_usd"]))


# ---- the notifications: one per crossing, to whom it concerns


received = rx.received


def signed_ok(h, b):
    return webhook.signed_ok(SECRET, h, b)


def crossed(path):
    return sorted((json.loads(b)["detail"]["scope"],
                   json.loads(b)["detail"]["name"],
                   json.loads(b)["detail"]["threshold"])
                  for h, b in received(path))


want_all = sorted((sc, nm, th) for sc, nm in (("cluster", "c1"),
                                              ("team", "a"))
                  for th in (50, 80, 100))
t.ok(wait_for(lambda: len(received("/all")) >= 6 and
              len(received("/c1")) >= 3 and len(received("/slack")) >= 6,
              timeout=120), "the receivers got the crossings' events")
t.ok(wait_for(lambda: not s.get("/api/v1/deliveries?state=pending")
              .json["items"], timeout=120), "nothing is left pending")
hooks = received("/all")
t.eq(crossed("/all"), want_all,
     "every cluster's subscription: one event per threshold of each "
     "budget, 6 in all (%d received)" % len(hooks))
ids = [h.get("Slipway-Event-Id") for h, b in hooks]
t.ok(len(set(ids)) == len(ids) == 6 and
     all(json.loads(b)["id"] == h.get("Slipway-Event-Id") and
         json.loads(b)["kind"] == "budget.threshold" for h, b in hooks),
     "each a distinct budget.threshold event, its id in the header and "
     "the body")
t.ok(all(signed_ok(h, b) for h, b in hooks + received("/c1")),
     "each carries a valid HMAC-SHA256 signature")
t.eq(crossed("/c1"), [x for x in want_all if x[0] == "cluster"],
     "cluster c1's subscription: the cluster budget's 3, no team's")
month = budget("cluster", "c1")["month"]
bad = []
for h, b in hooks:
    ev = json.loads(b)
    d = ev["detail"]
    lim = limits[(d["scope"], d["name"])]
    if not (d["month"] == month and D(d["limit_usd"]) == lim and
            D(d["spent_usd"]) * 100 >= lim * d["threshold"] and
            D(d["forecast_usd"]) >= D(d["spent_usd"]) and
            "operation_id" not in ev and
            ev.get("cluster") == (d["name"] if d["scope"] == "cluster"
                                  else None)):
        bad.append(d)
t.eq(bad, [], "each names its month, limit, a spend at or over its "
     "threshold and a forecast; a cluster budget's its cluster")
slack = [json.loads(b).get("text", "") for h, b in received("/slack")]
t.ok(len(slack) == 6 and all(re.match(r"Slipway: budget (cluster/c1|team/a)"
                                      r" crossed (50|80|100) % in ", x)
                             for x in slack),
     "the Slack format says each crossing in one line (%s)" % slack[:1])
outbox = s.get("/api/v1/deliveries?subscription=money-c1").json["items"]
t.ok(len(outbox) == 3 and all(x.get("budget") == "cluster/c1" and
                              x["state"] == "delivered" and
                              "operation_id" not in x for x in outbox),
     "delivery_list shows them delivered, each naming its budget")
as_of = budget("cluster", "c1").get("as_of")
t.ok(wait_for(lambda: budget("cluster", "c1").get("as_of", "") > as_of,
              timeout=60), "the poller samples again")
t.eq((len(received("/all")), len(received("/c1"))), (6, 3),
     "and no crossing is sent again")

lst = s.get("/api/v1/budgets").json
t.eq([(b["scope"], b["name"]) for b in lst["items"]],
     [("cluster", "c1"), ("team", "a")], "budget_list has both")
t.eq([b["name"] for b in s.get("/api/v1/budgets?scope=team").json["items"]],
     ["a"], "and one scope of them")

mc = Mcp(s)
sid = mc.initialize()[1]
res = mc.legacy("tools/call", {"name": "budget_get", "arguments": {
    "scope": "team", "name": "a"}}, sid=sid).json or {}
sc = (res.get("result") or {}).get("structuredContent") or {}
t.eq([x["threshold"] for x in sc.get("alerts", [])], [50, 80, 100],
     "MCP's budget_get: the same alerts")
res = mc.legacy("tools/call", {"name": "budget_set", "arguments": {
    "scope": "team", "name": "b", "limit_usd": 250,
    "thresholds": [90]}}, sid=sid).json or {}
sc = (res.get("result") or {}).get("structuredContent") or {}
t.ok(D(sc.get("limit_usd", 0)) == 250 and sc.get("thresholds") == [90],
     "MCP's budget_set sets one: %s" % sc)
t.eq(s.request("DELETE", "/api/v1/budgets/team/b").status, 200,
     "it is removed")
t.eq(s.get("/api/v1/budgets/team/b").status, 404, "and gone")
k.close()
rx.stop()
t.done()
