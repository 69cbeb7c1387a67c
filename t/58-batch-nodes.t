#!/usr/bin/python3
# 58-batch-nodes.t: on a cluster created in Continuous node provisioning,
# scaling a group up goes as BatchAddClusterNodes, at most 50 nodes a
# call, each call with a ClientToken of the operation, its stage and the
# call's number.  The poller is killed twice right after SageMaker
# answered a BatchAddClusterNodes call, before the answer was recorded
# (SLIPWAY_FAULT=kill-after:BatchAddClusterNodes*2, lib/fault.h); each
# resumed stage sends that call again with the same token, and the
# sandbox, as AWS, answers the nodes it added then and adds nothing.
# By the sandbox's request log: no UpdateCluster for the scale, every
# BatchAddClusterNodes with one token carries one same input, there is
# one token per call of the split, and the group ends at exactly the
# count asked for.  The dry run lists the calls it would make.  A group
# is created at 0 nodes directly, and grows from 0 the same way; a chosen
# node is scaled away with BatchDeleteClusterNodes.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import need_clusters, need_fault_injection
from harness import sandbox_call, sandbox_requests, Stack, wait_for
from harness import wait_operation

t = T()
need_clusters(t)
need_fault_injection(t)

once = os.path.join(tempfile.mkdtemp(prefix="sw-fault-"), "killed")
os.environ["SLIPWAY_FAULT"] = "kill-after:BatchAddClusterNodes*2"
os.environ["SLIPWAY_FAULT_ONCE"] = once
# Slow enough that AWS's 8 hours of a ClientToken outlast a restart.
s = Stack(t, sandbox=True, speed=600)
del os.environ["SLIPWAY_FAULT"]
del os.environ["SLIPWAY_FAULT_ONCE"]
TARGET = 53                     # from 1: calls of 50 and 2


def requests(op):
    return [e for e in sandbox_requests(s, mutating="true", service="sagemaker")
            if e["operation"] == op]


def group(name):
    items = s.get("/api/v1/clusters/bn/instance-groups").json["items"]
    return next((g for g in items if g["name"] == name), None)


types = s.get("/api/v1/instance-types?gpu_only=true").json["items"]
g = next(i for i in types if not i["efa_supported"])
itype, az = g["instance_type"], g["availability_zones"][0]
st, _ = sandbox_call(s, "POST", "/_sandbox/quotas", {itype: 200})
t.eq(st, 200, "the sandbox quota for %s is raised to 200" % itype)
r = s.post("/api/v1/clusters", {"name": "bn", "node_recovery": "None",
                                "node_provisioning_mode": "Continuous",
                                "instance_groups": [
    {"name": "w", "instance_type": itype, "count": 1, "availability_zone": az}]})
t.eq(r.status, 202, "cluster create with node_provisioning_mode accepted")
d = wait_operation(s, r.json.get("operation_id", ""), timeout=300)
t.eq(d.get("state"), "succeeded", "cluster created (%s)" % d.get("error"))
hp = s.get("/api/v1/clusters/bn").json.get("hyperpod") or {}
t.eq(hp.get("node_provisioning_mode"), "Continuous",
     "the cluster shows node_provisioning_mode Continuous")
creates = [e for e in sandbox_requests(s, service="sagemaker")
           if e["operation"] == "CreateCluster"]
t.eq([e["params"].get("NodeProvisioningMode") for e in creates], ["Continuous"],
     "CreateCluster asked for NodeProvisioningMode Continuous")

# ---- the dry run names the calls of the split ---------------------------
r = s.request("PATCH", "/api/v1/clusters/bn/instance-groups/w?dry_run=true",
              body={"count": TARGET})
t.eq(r.status, 200, "dry run of the scale answers 200")
calls = [c for c in (r.json or {}).get("calls", [])
         if c.get("service") == "sagemaker"]
t.eq([c.get("operation") for c in calls], ["BatchAddClusterNodes"] * 2,
     "the plan is two BatchAddClusterNodes calls and no UpdateCluster")
t.eq([[(n["InstanceGroupName"], n["IncrementTargetCountBy"])
       for n in c["input"]["NodesToAdd"]] for c in calls],
     [[("w", 50)], [("w", TARGET - 51)]], "of 50 nodes and the rest")
tokens = [c["input"].get("ClientToken", "") for c in calls]
t.ok(len(set(tokens)) == 2 and all(0 < len(k) <= 64 for k in tokens),
     "each planned call has its own ClientToken of 1-64 characters: %s" % tokens)
t.eq(group("w")["target_count"], 1, "the dry run changed nothing")

# ---- the scale, with the poller killed twice ------------------------------
updates = len(requests("UpdateCluster"))
r = s.request("PATCH", "/api/v1/clusters/bn/instance-groups/w",
              body={"count": TARGET})
t.eq(r.status, 202, "scale accepted")
d = wait_operation(s, r.json.get("operation_id", ""), timeout=300)
t.eq(d.get("state"), "succeeded", "the scale succeeded after the kills (%s)" %
     d.get("error"))
t.ok(os.path.exists(once + ".BatchAddClusterNodes") and
     os.path.exists(once + ".BatchAddClusterNodes.2"),
     "the poller was killed twice right after BatchAddClusterNodes")
t.eq(s.log_text("poller.log").count("fault injection: SIGKILL after "
                                    "BatchAddClusterNodes"), 2,
     "the poller log shows the two kills")
adds = [e for e in requests("BatchAddClusterNodes") if e["status"] == 200]
by_token = {}
for e in adds:
    by_token.setdefault(e["params"].get("ClientToken"), []).append(
        repr(e["params"].get("NodesToAdd")))
t.eq(len(by_token), 2, "two ClientTokens: one for each call of the split")
t.ok(None not in by_token and all(len(set(v)) == 1 for v in by_token.values()),
     "every BatchAddClusterNodes carries a token, and a token always the same input")
t.eq(len(adds), 4, "the call cut by each kill was sent again (4 requests, "
     "2 calls): %s" % {k: len(v) for k, v in by_token.items()})
t.eq(len(requests("UpdateCluster")), updates, "no UpdateCluster for the scale")
w = group("w")
t.eq((w["target_count"], w["current_count"]), (TARGET, TARGET),
     "the group ends at exactly %d nodes, all running" % TARGET)
nodes = s.get("/api/v1/clusters/bn/nodes?instance_group=w").json.get("items", [])
t.eq(len(nodes), TARGET, "ListClusterNodes shows exactly %d nodes" % TARGET)
t.eq(len({n.get("node_logical_id") for n in nodes if n.get("node_logical_id")}),
     TARGET, "each node shows its own node_logical_id")

# ---- scaling down a chosen node: BatchDeleteClusterNodes --------------------
dels = len(requests("BatchDeleteClusterNodes"))
chosen = nodes[0]["node_id"]
r = s.post("/api/v1/clusters/bn/nodes:delete", {"node_ids": [chosen]})
d = wait_operation(s, (r.json or {}).get("operation_id", ""), timeout=300)
t.eq(d.get("state"), "succeeded", "the chosen node is deleted (%s)" % d.get("error"))
sent = requests("BatchDeleteClusterNodes")[dels:]
t.eq([e["params"].get("NodeIds") for e in sent], [[chosen]],
     "with one BatchDeleteClusterNodes naming it")
t.eq(group("w")["target_count"], TARGET - 1, "the group's target count is one less")

# ---- a group created at 0, grown from 0 -----------------------------------
updates = len(requests("UpdateCluster"))
r = s.post("/api/v1/clusters/bn/instance-groups",
           {"group_name": "z", "instance_type": itype, "count": 0,
            "availability_zone": az})
t.eq(r.status, 202, "an instance group at count 0 is accepted (%s)" %
     (r.json or {}).get("detail"))
d = wait_operation(s, (r.json or {}).get("operation_id", ""), timeout=300)
t.eq(d.get("state"), "succeeded", "and created (%s)" % d.get("error"))
sent = requests("UpdateCluster")[updates:]
t.eq(len(sent), 1, "with one UpdateCluster")
z = [gr for gr in (sent[0]["params"].get("InstanceGroups") or [])
     if gr.get("InstanceGroupName") == "z"] if sent else []
t.eq([gr.get("InstanceCount") for gr in z], [0], "that asks for 0 nodes in z")
zg = group("z")
t.eq((zg or {}).get("target_count"), 0, "the group is there with 0 nodes")
r = s.request("PATCH", "/api/v1/clusters/bn/instance-groups/z",
              body={"count": 2})
d = wait_operation(s, (r.json or {}).get("operation_id", ""), timeout=300)
t.eq(d.get("state"), "succeeded", "z scaled from 0 to 2 (%s)" % d.get("error"))
last = requests("BatchAddClusterNodes")[-1]["params"]
t.eq([(n["InstanceGroupName"], n["IncrementTargetCountBy"])
      for n in last.get("NodesToAdd", [])], [("z", 2)],
     "by one BatchAddClusterNodes of 2 nodes")
t.ok(wait_for(lambda: (group("z") or {}).get("current_count") == 2, timeout=60),
     "z runs its 2 nodes")
s.stop()
t.done()
