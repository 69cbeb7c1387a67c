#!/usr/bin/python3
# 57-crash-rounds.t: crash safety across processes.  20 rounds of
# mutations on small clusters (create, instance group add, scale and
# delete, node reboot, feature changes, cluster delete), each sent like a
# real client sends it: with an Idempotency-Key, and sent again with the
# same key when a kill cut the request.  During each round nginx, an API
# worker, the poller, the stream process or the sandbox is killed with
# SIGKILL at random points; the supervisor restarts each.  Then:
#   - every operation succeeded, and each key names exactly one of them
#     (none lost, none run twice);
#   - per round, the sandbox's request log shows each resource created
#     once and each mutation that is not a create (UpdateCluster, node
#     reboots) sent at most once, exactly once where the round needs it;
#   - PRAGMA integrity_check is ok for Slipway's and the sandbox's store.
# The poller also dies once right after AWS answered each of 8 mutations
# (SLIPWAY_FAULT=kill-after, lib/fault.h), before it records the answer.
# The schedule is seeded: the seed is printed, SW_CRASH_SEED replays it
# (kill instants are wall-clock and vary a little between runs).
import http.client
import json
import os
import random
import sqlite3
import shutil
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, kill_if, sandbox_call, sandbox_requests
from harness import need_clusters, need_fault_injection
import wsclient

t = T()
need_clusters(t)
need_fault_injection(t)

ROUNDS = int(os.environ.get("SW_CRASH_ROUNDS") or 20)
# Slow enough that an operation lasts a few seconds, so kills land in the
# middle of it; fast enough for 20 rounds in well under three minutes.
SPEED = int(os.environ.get("SW_CRASH_SPEED") or 500)
seed = int(os.environ.get("SW_CRASH_SEED") or
           random.SystemRandom().randrange(1, 1 << 31))
t.diag("seed %d (replay with SW_CRASH_SEED=%d)" % (seed, seed))
rng = random.Random(seed)
started = time.time()

# What a kill hits: component name prefix -> program name (kill_if checks
# the pid still runs it).  The poller and the sandbox hold the state that
# matters, so they are chosen more often.
PROGRAMS = {"nginx": "nginx", "api": "slipway-api", "wait": "slipway-api",
            "poller": "slipway-poller", "stream": "slipway-stream",
            "sandbox": "slipway-sandbox"}
VICTIMS = ["poller"] * 3 + ["sandbox"] * 3 + ["nginx", "api", "wait",
                                               "stream"]
# Mutations that are not creates: each must reach AWS at most once per
# operation.
ONCE = ("UpdateCluster", "UpdateClusterSoftware", "BatchRebootClusterNodes",
        "BatchReplaceClusterNodes", "BatchDeleteClusterNodes")
# Where the sandbox may kill itself in the middle of a request (one-shot
# fault rules): "crash" after the request's work, before its commit;
# "crash_after" after the commit, before the answer, so the caller never
# learns that it worked; or "error_after": it worked, and the answer is
# a 500.  By the mutations each kind of round sends.
SENDS = {
    "create": ["CreateVpc", "CreateSubnet", "CreateInternetGateway",
               "AllocateAddress", "CreateNatGateway", "CreateRouteTable",
               "CreateSecurityGroup", "CreateRole",
               "CreateOpenIDConnectProvider", "CreateCluster",
               "AttachInternetGateway", "AssociateRouteTable",
               "CreateAccessEntry", "CreateAddon"],
    "scale": ["UpdateCluster"], "add": ["UpdateCluster"],
    "drop": ["UpdateCluster"], "recovery": ["UpdateCluster"],
    "reboot": ["BatchRebootClusterNodes"],
    "training": ["CreateAddon", "DeleteAddon", "CreateRole",
                 "CreatePodIdentityAssociation"],
    "delete": ["DeleteCluster", "DeleteNatGateway", "DeleteSubnet",
               "DeleteVpc", "ReleaseAddress", "DeleteRole"],
}
kills = {}
lock = threading.Lock()

# And the poller dies right after AWS answered some of them, before it
# records the answer (lib/fault.h), once per point: 8 points of the
# seed's choosing.
POINTS = sorted(rng.sample(sorted({op for ops in SENDS.values()
                                   for op in ops}), 8))
t.diag("the poller dies once right after %s" % ", ".join(POINTS))
once_dir = tempfile.mkdtemp(prefix="sw-crash-")
os.environ["SLIPWAY_FAULT"] = "kill-after:" + ",".join(POINTS)
os.environ["SLIPWAY_FAULT_ONCE"] = os.path.join(once_dir, "killed")
s = Stack(t, sandbox=True, speed=SPEED)
del os.environ["SLIPWAY_FAULT"]
del os.environ["SLIPWAY_FAULT_ONCE"]


def components():
    try:
        return s.status()["components"]
    except (OSError, ValueError, KeyError, RuntimeError):
        return []


def kill(kind):
    """SIGKILL one running component of this kind; True if one was hit."""
    found = [c for c in components() if c["name"].split(".")[0] == kind
             and c["running"] and c["pid"]]
    if not found:
        return False
    c = rng.choice(found)
    if kill_if(c["pid"], PROGRAMS[kind]):
        with lock:
            kills[kind] = kills.get(kind, 0) + 1
        return True
    return False


def call(method, path, body=None, key=None, give_up=90):
    """One request as a careful client makes it: a connection cut or a
    5xx/429 answer is sent again, with the same Idempotency-Key, until
    it is answered."""
    headers = {"Idempotency-Key": key} if key else None
    deadline = time.time() + give_up
    tries = 0
    while True:
        tries += 1
        try:
            r = s.request(method, path, body=body, headers=headers,
                          timeout=30)
            if r.status < 500 and r.status != 429:
                return r, tries
        except (OSError, http.client.HTTPException) as e:
            r = e
        if time.time() > deadline:
            raise RuntimeError("%s %s: no answer (%r)" % (method, path, r))
        time.sleep(0.1)


def seq_now():
    for _ in range(200):
        try:
            reqs = sandbox_requests(s)
            return reqs[-1]["seq"] if reqs else 0
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise RuntimeError("the sandbox did not answer")


def requests_since(seq):
    for _ in range(200):
        try:
            return sandbox_requests(s, since=seq)
        except (OSError, ValueError):
            time.sleep(0.1)
    raise RuntimeError("the sandbox did not answer")


def get_json(path):
    r, _ = call("GET", path)
    return r.json if r.status == 200 else None


# ---- the model: what the cluster should look like ----------------------
types = get_json("/api/v1/instance-types?gpu_only=true")["items"]
gtype = next(i for i in types if not i["efa_supported"])
AZ = gtype["availability_zones"][0]
C = "crashy"
model = None           # None: no cluster; else {"groups": {name: count},
#                        "recovery": bool, "training": bool}


def choose():
    """The next mutation, valid for the model: (what, method, path, body,
    the ONCE requests it must send exactly once)."""
    base = "/api/v1/clusters/%s" % C
    if model is None:
        return ("create", "POST", "/api/v1/clusters",
                {"name": C, "instance_groups": [
                    {"name": "w", "instance_type": gtype["instance_type"],
                     "count": 1, "availability_zone": AZ}]}, {})
    moves = ["scale", "scale", "reboot", "recovery", "training"]
    moves += ["add"] if len(model["groups"]) < 2 else ["drop"]
    if model["ops"] >= 6:
        moves.append("delete")
    what = rng.choice(moves)
    if what == "scale":
        g = rng.choice(sorted(model["groups"]))
        n = 2 if model["groups"][g] == 1 else 1
        return ("scale", "PATCH", base + "/instance-groups/" + g,
                {"count": n}, {"UpdateCluster": 1}, g, n)
    if what == "add":
        return ("add", "POST", base + "/instance-groups",
                {"group_name": "x", "instance_type": gtype["instance_type"],
                 "count": 1}, {"UpdateCluster": 1}, "x", 1)
    if what == "drop":
        return ("drop", "DELETE", base + "/instance-groups/x", None,
                {"UpdateCluster": 1}, "x", 0)
    if what == "reboot":
        return ("reboot", "POST", base + "/nodes:reboot", None,
                {"BatchRebootClusterNodes": 1})
    if what == "recovery":
        return ("recovery", "PATCH", base + "/features",
                {"node_recovery": not model["recovery"]},
                {"UpdateCluster": 1})
    if what == "training":
        return ("training", "PATCH", base + "/features",
                {"training_operator": not model["training"]}, {})
    return ("delete", "DELETE", base, None, {})


def nodes():
    d = get_json("/api/v1/clusters/%s/nodes" % C)
    return (d or {}).get("items", [])


def apply(move):
    global model
    what = move[0]
    if what == "create":
        model = {"groups": {"w": 1}, "recovery": True, "training": False,
                 "ops": 0}
        return
    if what == "delete":
        model = None
        return
    model["ops"] += 1
    if what in ("scale", "add", "drop"):
        g, n = move[5], move[6]
        if n:
            model["groups"][g] = n
        else:
            model["groups"].pop(g, None)
    elif what == "recovery":
        model["recovery"] = not model["recovery"]
    elif what == "training":
        model["training"] = not model["training"]


def wait_terminal(op, plan, t0, limit=150):
    """Poll the operation, carrying out the kills of plan as they fall
    due: ("at", seconds after the request, victim) or ("stage", n,
    victim), at the n-th stage seen starting.  Kills not due by the end
    are dropped.  The operation's last document."""
    doc = {}
    pending = list(plan)
    seen = set()
    while time.time() - t0 < limit:
        now = time.time() - t0
        for k in [k for k in pending if k[0] == "at" and k[1] <= now]:
            pending.remove(k)
            kill(k[2])
        try:
            r = s.request("GET", "/api/v1/operations/%s" % op, timeout=10)
            if r.status == 200:
                doc = r.json
                if doc.get("terminal") or doc.get("state") in (
                        "succeeded", "failed", "cancelled"):
                    return doc
                for st in doc.get("stages", []):
                    if st["state"] != "pending":
                        seen.add(st["name"])
                for k in [k for k in pending if k[0] == "stage" and
                          k[1] <= len(seen)]:
                    pending.remove(k)
                    kill(k[2])
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.02)
    return doc


def follow(op, out):
    """Follow /ws/operations/op as the UI does, connecting again when a
    kill closes the stream, until its end message; out["end"] is that
    message and out["connects"] how many connections it took."""
    deadline = time.time() + 150
    out["connects"] = 0
    while time.time() < deadline:
        try:
            w = wsclient.connect(s.port, "/ws/operations/%s" % op,
                                 {"Authorization": "Bearer " + s.token},
                                 timeout=20)
        except (OSError, ValueError, wsclient.Refused):
            time.sleep(0.1)
            continue
        out["connects"] += 1
        try:
            while True:
                m = w.recv()
                if m is None:
                    break
                if m.get("type") == "end":
                    out["end"] = m
                    return
        except (OSError, EOFError, ValueError, struct.error):
            pass
        finally:
            w.close()
        time.sleep(0.05)


# ---- the rounds ----------------------------------------------------------
keys = []              # (key, what)
expected_creates = None
bad_rounds = []
for rnd in range(1, ROUNDS + 1):
    move = choose()
    what, method, path, body = move[:4]
    once = move[4]
    if what == "reboot":
        ids = [n["node_id"] for n in nodes()]
        body = {"node_ids": [rng.choice(sorted(ids))]}
    key = "crash-%d-%d" % (seed, rnd)
    keys.append((key, what))
    # Kills during the operation: 1 to 3, each at a random instant of its
    # first 1.5 s or as its first, second or third stage starts.
    plan = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            plan.append(("at", rng.uniform(0.02, 1.5), rng.choice(VICTIMS)))
        else:
            plan.append(("stage", rng.randint(1, 3), rng.choice(VICTIMS)))
    # Half the rounds also cut the request itself: nginx, an API worker
    # or the sandbox (which the handler's pre-flight reads) killed while
    # it is in flight.
    cut = rng.choice(["nginx", "api", "sandbox"]) if rng.random() < 0.5 \
        else None
    cut_delay = rng.uniform(0.0, 0.06)
    crash = None
    if rng.random() < 0.5:
        crash = (rng.choice(["crash", "crash_after", "error_after"]),
                 rng.choice(SENDS[what]))
    seq0 = seq_now()
    if crash:
        sandbox_call(s, "POST", "/_sandbox/faults", {"rules": [
            {"fault": crash[0], "operation": crash[1]}]})
    t0 = time.time()
    if cut:
        threading.Timer(cut_delay, kill, (cut,)).start()
    t.diag("round %d %s: kills %s%s%s" % (
        rnd, what, plan, ", request cut by killing %s" % cut if cut else "",
        ", sandbox %s at %s" % crash if crash else ""))
    r, tries = call(method, path, body, key)
    op = (r.json or {}).get("operation_id")
    if not t.ok(r.status == 202 and op, "round %d %s: accepted (%d tries)" %
                (rnd, what, tries)):
        t.diag("%r" % r)
        bad_rounds.append(rnd)
        break
    # The same request again with the same key: the same operation.
    r2, _ = call(method, path, body, key)
    t.eq((r2.json or {}).get("operation_id"), op,
         "round %d: the key replays the same operation" % rnd)
    seen = {}
    follower = threading.Thread(target=follow, args=(op, seen), daemon=True)
    follower.start()
    doc = wait_terminal(op, plan, t0)
    if not t.eq(doc.get("state"), "succeeded",
                "round %d %s succeeded (%.1f s)" % (rnd, what,
                                                    time.time() - t0)):
        t.diag(json.dumps([(st["name"], st["state"], st.get("error"))
                           for st in doc.get("stages", [])]))
        t.diag(s.log_text("poller.log")[-2500:])
        bad_rounds.append(rnd)
        break
    if crash:
        for _ in range(100):
            try:
                sandbox_call(s, "DELETE", "/_sandbox/faults")
                break
            except OSError:
                time.sleep(0.1)
        hit = any(e.get("operation") == crash[1]
                  for e in requests_since(seq0))
        if hit:
            with lock:
                kills["sandbox:" + crash[0]] = \
                    kills.get("sandbox:" + crash[0], 0) + 1
    follower.join(30)
    t.eq(seen.get("end"), {"type": "end", "state": "succeeded"},
         "round %d: the stream reported the end (%d connection(s))" %
         (rnd, seen.get("connects", 0)))
    apply(move)
    # What reached the sandbox during the round.
    log = [e for e in requests_since(seq0) if e.get("mutating") and
           not e["service"].startswith("kubernetes")]
    sent = {}
    for e in log:
        if e["operation"] in ONCE:
            sent[e["operation"]] = sent.get(e["operation"], 0) + 1
    # A reboot leaves no trace to read, so a poller that sent it and got
    # no answer counts it as sent (DESIGN.md): when the sandbox died with
    # the request in flight it may never have been applied.
    sandbox_died = (crash is not None and crash[1] in once) or any(
        k[2] == "sandbox" for k in plan) or cut == "sandbox"
    for name in ONCE:
        want = once.get(name, 0)
        allowed = {0, want} if name.startswith("BatchReboot") and \
            sandbox_died else {want}
        if not t.ok(sent.get(name, 0) in allowed,
                    "round %d %s: %s sent %s time(s) (%d)" %
                    (rnd, what, name, " or ".join(map(str, sorted(
                        allowed))), sent.get(name, 0))):
            t.diag(json.dumps([x for x in log if x["operation"] == name]))
    made = {}
    for e in log:
        if (e["operation"].startswith("Create") or
                e["operation"] == "AllocateAddress") and \
                e.get("status", 200) < 300:
            k = "%s:%s %s" % (e["service"], e["operation"],
                              json.dumps(e.get("params"), sort_keys=True))
            made[k] = made.get(k, 0) + 1
    twice = [k for k, v in made.items() if v > 1]
    if not t.ok(not twice, "round %d %s: no resource created twice" %
                (rnd, what)):
        t.diag("\n".join(twice)[:2000])
    if what == "create":
        counts = {}
        for k, v in made.items():
            kind = k.split(" ")[0]
            counts[kind] = counts.get(kind, 0) + v
        if expected_creates is None:
            expected_creates = {
                "ec2:CreateVpc": 1, "ec2:CreateSubnet": 5,
                "ec2:CreateInternetGateway": 1, "ec2:AllocateAddress": 1,
                "ec2:CreateNatGateway": 1, "ec2:CreateRouteTable": 2,
                "ec2:CreateSecurityGroup": 1, "eks:CreateCluster": 1,
                "sagemaker:CreateCluster": 1}
        got = {k: counts.get(k, 0) for k in expected_creates}
        if not t.eq(got, expected_creates,
                    "round %d: each network and cluster resource created "
                    "exactly once" % rnd):
            t.diag(json.dumps(counts, sort_keys=True))
    if what == "training":
        adds = [e["params"].get("addonName") for e in log
                if e["operation"] == "CreateAddon" and
                e.get("status", 200) < 300]
        t.ok(len(adds) == len(set(adds)),
             "round %d: each add-on created at most once (%s)" %
             (rnd, adds))
    if what in ("scale", "add", "drop"):
        by = {}
        for n in nodes():
            g = n.get("instance_group")
            by[g] = by.get(g, 0) + 1
        t.eq(by, model["groups"], "round %d: the nodes are as asked" % rnd)

# What every acknowledged change left behind is still there, whatever
# was killed since: the groups, their sizes and the features.
if model is not None and not bad_rounds:
    f = (get_json("/api/v1/clusters/%s/features" % C) or {}).get(
        "features", {})
    t.eq((f.get("node_recovery", {}).get("enabled"),
          f.get("training_operator", {}).get("enabled")),
         (model["recovery"], model["training"]),
         "the cluster's features are as the rounds left them")
    groups = (get_json("/api/v1/clusters/%s/instance-groups" % C) or {}
              ).get("items", [])
    t.eq({g["name"]: g.get("count", g.get("current_count"))
          for g in groups}, model["groups"],
         "its instance groups are as the rounds left them")
else:
    t.ok(not bad_rounds, "no round failed, and no cluster is left at the "
         "end of this schedule")

kills["poller:after-answer"] = s.log_text("poller.log").count(
    "fault injection: SIGKILL after")
shutil.rmtree(once_dir, ignore_errors=True)
elapsed = time.time() - started
t.diag("%d rounds in %.0f s; kills: %s" % (len(keys), elapsed,
                                           json.dumps(kills, sort_keys=True)))
t.ok(sum(kills.values()) >= ROUNDS, "at least one kill a round (%d)" %
     sum(kills.values()))
t.ok(kills.get("poller", 0) > 0 and kills.get("sandbox", 0) > 0,
     "the poller and the sandbox were both killed")

t.eq([l for l in s.log_text("poller.log").splitlines()
      if "array builder" in l], [],
     "no request body was built with a missing value")

# ---- every key: exactly one operation, succeeded -------------------------
rows = s.sql("SELECT idem_key, state FROM operations")
per_key = {}
for k, st in rows:
    per_key.setdefault(k, []).append(st)
t.eq([k for k, _ in keys if per_key.get(k) != ["succeeded"]], [],
     "each key names exactly one operation, succeeded")
t.eq(len(rows), len(keys), "no operation without a key (none run twice)")
if s.database is None:
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(s.state,
                         "state.db"), uri=True, timeout=10)
    t.eq(db.execute("PRAGMA integrity_check").fetchone()[0], "ok",
         "integrity_check of Slipway's state")
    db.close()
else:
    t.skip("integrity_check is SQLite's; the state is in PostgreSQL")
sdb = sqlite3.connect("file:%s?mode=ro" % os.path.join(
    s.state, "sandbox", "state.db"), uri=True, timeout=10)
t.eq(sdb.execute("PRAGMA integrity_check").fetchone()[0], "ok",
     "integrity_check of the sandbox's state")
sdb.close()
s.stop()
t.done()
