#!/usr/bin/python3
# 71-plan-cost.t: every plan that changes instance counts says what it
# costs per hour and per day, priced from the Price List API the sandbox
# serves (never from a price of Slipway's own): a cluster create, a group
# add, a scale and a delete, over REST and MCP.  Prices are cached in the
# state store (a second plan asks AWS nothing), a type AWS lists no price
# for makes the sum unknown (null), never zero, and spot is unknown.
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import aws_price as harness_aws_price
from harness import Stack, sandbox_call, sandbox_requests
from harness import need_clusters, wait_operation
from mcp_raw import Mcp

t = T()
need_clusters(t)
s = Stack(t, sandbox=True, speed=3000)
types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
TYPE, AZ = g["instance_type"], g["availability_zones"][0]
other = next(i for i in types if i["instance_type"] != TYPE and
             AZ in i["availability_zones"] and not i["efa_supported"])
OTHER = other["instance_type"]
REGION = s.get("/api/v1/regions").json["region"]


def aws_price(itype):
    """What every plan must agree with: the sandbox's listed price."""
    return harness_aws_price(s, REGION, itype)


def dec(v):
    return None if v is None else Decimal(str(v))


def body(name, groups):
    return {"name": name, "instance_groups": [
        {"name": n, "instance_type": ty, "count": c, "availability_zone": AZ}
        for n, ty, c in groups]}


def pricing_calls():
    return len(sandbox_requests(s, service="pricing"))


p1, p2 = aws_price(TYPE), aws_price(OTHER)
t.ok(p1 is not None and p1 > 0 and p2 is not None and p2 > 0,
     "the sandbox lists %s at %s and %s at %s" % (TYPE, p1, OTHER, p2))
if p1 is None or p2 is None:
    t.done()
    sys.exit(0)

# ---- a create: every group from nothing
r = s.post("/api/v1/clusters?dry_run=true", body("c1", [("w", TYPE, 3),
                                                        ("x", OTHER, 1)]))
c = (r.json or {}).get("cost") or {}
want = (3 * p1 + p2).quantize(Decimal("0.000001"))
t.eq(r.status, 200, "the create's dry run answers 200")
t.eq((c.get("currency"), c.get("complete"), dec(c.get("added_per_hour"))),
     ("USD", True, want), "it adds 3 x %s + 1 x %s per hour" % (p1, p2))
t.eq(dec(c.get("added_per_day")), want * 24, "and 24 times that a day")
t.eq(dec(c.get("cluster_per_hour")), want, "the whole cluster costs the same")
lines = {l["group"]: l for l in c.get("lines", [])}
t.ok(lines.get("w", {}).get("count_after") == 3 and
     dec(lines["w"].get("usd_per_hour_each")) == p1 and
     lines["w"].get("sku") and lines["w"].get("published"),
     "each line has its count, unit price, SKU and publication date")
t.ok("Price List" in c.get("source", ""), "the source is named: %s" %
     c.get("source"))

# ---- cached: the same plan again asks AWS for no price
before = pricing_calls()
t.ok(before >= 2, "prices were read from the Price List API (%d calls)" %
     before)
r = s.post("/api/v1/clusters?dry_run=true", body("c1", [("w", TYPE, 2)]))
t.eq(pricing_calls(), before, "a second plan reads the cached prices")
t.eq(dec(r.json["cost"]["added_per_hour"]), 2 * p1, "and prices 2 nodes")

# ---- the same plan over MCP
m = Mcp(s)
sid = m.initialize()[1]
res = m.legacy("tools/call", {"name": "cluster_create", "arguments": dict(
    body("c1", [("w", TYPE, 2)]), dry_run=True)}, sid=sid).json or {}
sc = (res.get("result") or {}).get("structuredContent") or {}
t.eq(dec((sc.get("cost") or {}).get("added_per_hour")), 2 * p1,
     "MCP's dry run carries the same cost")

# ---- a real cluster, then scale, add and delete plans
r = s.post("/api/v1/clusters", body("c1", [("w", TYPE, 2)]))
t.eq(r.status, 202, "the cluster is created")
d = wait_operation(s, r.json["operation_id"], timeout=300)
t.eq(d.get("state"), "succeeded", "and runs")
r = s.request("PATCH", "/api/v1/clusters/c1/instance-groups/w?dry_run=true",
              {"count": 5})
c = r.json.get("cost") or {}
t.eq((dec(c.get("added_per_hour")), dec(c.get("cluster_per_hour"))),
     (3 * p1, 5 * p1), "scaling 2 -> 5 adds 3 nodes' price; the cluster "
     "then costs 5")
r = s.post("/api/v1/clusters/c1/instance-groups?dry_run=true",
           {"group_name": "y", "instance_type": OTHER, "count": 2,
            "availability_zone": AZ})
c = r.json.get("cost") or {}
t.eq((dec(c.get("added_per_hour")), dec(c.get("cluster_per_hour"))),
     (2 * p2, 2 * p1 + 2 * p2), "a group add prices the new group beside "
     "the running one")
r = s.request("DELETE", "/api/v1/clusters/c1?dry_run=true")
c = (r.json or {}).get("cost") or {}
t.eq((dec(c.get("added_per_hour")), dec(c.get("cluster_per_hour"))),
     (-2 * p1, Decimal(0)), "a delete saves what the cluster costs")

# ---- unknown is said, never zero
third = next(i["instance_type"] for i in types
             if i["instance_type"] not in (TYPE, OTHER) and
             AZ in i["availability_zones"] and not i["efa_supported"])
st, _ = sandbox_call(s, "POST", "/_sandbox/prices", {third: None})
t.eq(st, 200, "the sandbox lists no price for %s" % third)
r = s.post("/api/v1/clusters?dry_run=true",
           body("c2", [("w", TYPE, 1), ("z", third, 1)]))
c = (r.json or {}).get("cost") or {}
t.ok(r.status == 200 and c.get("complete") is False and
     "added_per_hour" in c and c["added_per_hour"] is None and
     "cluster_per_hour" in c and c["cluster_per_hour"] is None,
     "with one type unpriced the sums are null, not zero: %s" %
     {k: c.get(k) for k in ("complete", "added_per_hour")})
z = next((l for l in c.get("lines", []) if l["group"] == "z"), {})
t.ok(z.get("price") == "unknown" and "usd_per_hour_each" not in z and
     "no on-demand price" in z.get("why", ""),
     "the line says why: %s" % z.get("why"))
t.eq(c.get("unknown"), [third], "unknown names the type")
r = s.post("/api/v1/clusters?dry_run=true",
           {"name": "c3", "instance_groups": [
               {"name": "s", "instance_type": TYPE, "count": 1,
                "availability_zone": AZ, "capacity_type": "spot"}]})
c = (r.json or {}).get("cost") or {}
t.ok(c.get("complete") is False and c.get("lines") and
     c["lines"][0].get("price") == "unknown" and "spot" in
     c["lines"][0].get("why", ""), "a spot group is priced unknown: %r" % r)
t.done()
