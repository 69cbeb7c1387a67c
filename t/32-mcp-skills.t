#!/usr/bin/python3
# 32-mcp-skills.t: skills and agent configurations never drift from the
# server.  Every tool a skill or agent names must be in tools/list of a
# running Slipway (reported by name when it is not); every tool must have
# input and output schemas; diagnostic skills use read-only tools only;
# Kiro allow-lists name read-only tools only.  A planted bad skill proves
# the checker can fail.
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR
from mcp_raw import Mcp

try:
    import yaml
except ImportError:
    yaml = None

SKILLS = os.path.join(SRCDIR, "skills")
EXPECTED = ["create-cluster-pipeline", "add-instance-group", "manage-features",
            "deploy-model", "submit-training", "nccl-efa-diagnosis",
            "node-health-diagnosis", "cluster-creation-failure",
            "team-governance", "cost-report", "use-spaces",
            "fleet-as-code"]
# Tool names agreed with the operation table's owner; skills may use them
# before their rows land, and this test fails (naming them) until then.
PLANNED = set("""cluster_list cluster_get cluster_create cluster_delete
cluster_import region_list az_list instance_type_list training_plan_list
compute_subnet_list instance_group_list instance_group_add
instance_group_scale instance_group_delete node_list node_reboot
node_replace node_delete cluster_software_update feature_list feature_set
storage_list storage_add model_download training_job_submit
training_job_list training_job_get training_job_logs inference_deploy
inference_list inference_get inference_delete diagnostics_cluster
operation_list operation_get operation_wait operation_retry
operation_cancel""".split())
# A backticked snake_case word that starts like a tool noun is a tool
# reference unless it is an argument/field name of some tool.
TOOL_NOUNS = ("cluster_", "instance_group_", "instance_type_", "node_",
              "operation_", "feature_", "storage_", "model_",
              "training_job_", "training_plan_", "inference_", "region_",
              "az_", "compute_subnet_", "diagnostics_", "hyperpod_", "job_",
              "karpenter_", "s3_storage_", "wait_")


def front_matter(text):
    m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    if not m:
        return None, text
    if yaml is not None:
        return yaml.safe_load(m.group(1)), m.group(2)
    fm, key = {}, None
    for line in m.group(1).splitlines():
        if line.startswith("  - ") and key:
            fm.setdefault(key, []).append(line[4:].strip())
        elif re.match(r"^[a-z_]+:", line):
            key, _, val = line.partition(":")
            val = val.strip()
            fm[key] = val if val and val != ">-" else fm.get(key, "")
        elif key and line.startswith("  "):
            fm[key] = (str(fm.get(key) or "") + " " + line.strip()).strip()
    return fm, m.group(2)


def check_skill(name, text, tools, fields):
    """Problems with one SKILL.md, as a list of strings."""
    bad = []
    fm, body = front_matter(text)
    if not isinstance(fm, dict):
        return ["no YAML front matter"]
    if fm.get("name") != name:
        bad.append("name %r is not the folder name" % fm.get("name"))
    if not fm.get("description") or len(str(fm["description"])) < 40:
        bad.append("description missing or too short")
    if not re.match(r"^\d+\.\d+\.\d+$", str(fm.get("version", ""))):
        bad.append("version is not x.y.z")
    if fm.get("mode") not in ("read-only", "mutating"):
        bad.append("mode must be read-only or mutating")
    used = list(fm.get("tools") or [])
    sugg = list(fm.get("suggests") or [])
    if not used:
        bad.append("tools list is empty")
    missing = sorted(set(x for x in used + sugg if x not in tools))
    planned = [x for x in missing if x in PLANNED]
    if planned:
        bad.append("names tools not (yet) in tools/list - planned, "
                   "waiting for their operation-table rows: %s" %
                   ", ".join(planned))
    unplanned = [x for x in missing if x not in PLANNED]
    if unplanned:
        bad.append("names tools that do not exist: %s" %
                   ", ".join(unplanned))
    for word in sorted(set(re.findall(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)",
                                      body))):
        if word in fields and word not in tools:
            continue
        if word in tools or word.startswith(TOOL_NOUNS):
            if word not in used and word not in sugg:
                bad.append("body names `%s`, which is not in tools/"
                           "suggests%s" % (word, "" if word in tools else
                                           " (and does not exist)"))
    if fm.get("mode") == "read-only":
        rw = [x for x in used if x in tools and not tools[x]]
        if rw:
            bad.append("read-only skill uses mutating tools: %s" %
                       ", ".join(rw))
    elif "operation_wait" not in used:
        bad.append("a mutating skill must poll with operation_wait")
    return bad


t = T()
s = Stack(t)
mcp = Mcp(s)
r = mcp.modern("tools/list")
listed = r.json["result"]["tools"] if r.status == 200 else []
t.ok(len(listed) > 0, "tools/list answered (%d tools)" % len(listed))
tools = {x["name"]: bool(x.get("annotations", {}).get("readOnlyHint"))
         for x in listed}
fields = set()


def schema_props(sch):
    """Every property name in a schema, however nested."""
    out = set()
    if isinstance(sch, dict):
        for k, v in sch.items():
            if k == "properties" and isinstance(v, dict):
                out |= set(v.keys())
            out |= schema_props(v)
    elif isinstance(sch, list):
        for v in sch:
            out |= schema_props(v)
    return out


for x in listed:
    fields |= schema_props(x.get("inputSchema"))
    fields |= schema_props(x.get("outputSchema"))
no_schema = [x["name"] for x in listed
             if x.get("inputSchema", {}).get("type") != "object" or
             (not x["name"].startswith("ext_") and
              x.get("outputSchema", {}).get("type") != "object") or
             not x.get("description")]
t.ok(not no_schema, "every tool has a description, an inputSchema and an "
     "outputSchema")
if no_schema:
    t.diag("without schema: %s" % ", ".join(no_schema))

# The checker can fail: a skill naming InstantStart's tool names.
planted = ("---\nname: planted\ndescription: a planted skill that names a "
           "tool the server does not have\nversion: 1.0.0\nmode: mutating\n"
           "tools:\n  - cluster_get_status\n  - operation_wait\n---\n"
           "Call `cluster_get_status`, then `hyperpod_get_creation_status`.\n")
bad = check_skill("planted", planted, tools, fields)
t.ok(any("cluster_get_status" in b for b in bad) and
     any("hyperpod_get_creation_status" in b for b in bad),
     "the checker reports a planted skill's unknown tools by name")

present = sorted(d for d in os.listdir(SKILLS)
                 if os.path.isfile(os.path.join(SKILLS, d, "SKILL.md")))
t.eq(present, sorted(EXPECTED), "the twelve skills are there")
for name in EXPECTED:
    path = os.path.join(SKILLS, name, "SKILL.md")
    if not os.path.isfile(path):
        t.ok(False, "skill %s exists" % name)
        continue
    with open(path) as f:
        problems = check_skill(name, f.read(), tools, fields)
    t.ok(not problems, "skill %s names only existing tools and is "
         "well-formed" % name)
    for p in problems:
        t.diag("%s: %s" % (name, p))

# ---- agent configurations ---------------------------------------------
AG = os.path.join(SKILLS, "agents")
for fn in sorted(glob.glob(os.path.join(AG, "kiro", "*.json"))):
    base = os.path.basename(fn)
    with open(fn) as f:
        cfg = json.load(f)
    srv = cfg.get("mcpServers", {}).get("slipway", {})
    t.ok(srv.get("url", "").endswith("/mcp") and
         re.match(r"^Bearer \$\{[A-Z_]+\}$",
                  srv.get("headers", {}).get("Authorization", "")),
         "%s: MCP server by URL, token from an environment variable" % base)
    allowed = [a.split("/", 1)[1] for a in cfg.get("allowedTools", [])
               if a.startswith("@slipway/")]
    t.ok(allowed and len(allowed) == len(cfg.get("allowedTools", [])),
         "%s: allowedTools names Slipway tools one by one" % base)
    unknown = [a for a in allowed if a not in tools]
    rw = [a for a in allowed if a in tools and not tools[a]]
    t.ok(not unknown and not rw, "%s: allow-list is existing read-only "
         "tools only" % base)
    if unknown or rw:
        t.diag("unknown: %s; mutating: %s" % (unknown, rw))
    res = [x for x in cfg.get("resources", []) if x.startswith("skill://")]
    hits = [p for x in res for p in glob.glob(os.path.join(SRCDIR,
                                                           x[len("skill://"):]))]
    t.ok(res and hits, "%s: skill resources resolve to SKILL.md files "
         "(%d)" % (base, len(hits)))
with open(os.path.join(AG, "claude", ".mcp.json")) as f:
    cm = json.load(f)["mcpServers"]["slipway"]
t.ok(cm.get("type") == "http" and cm.get("url", "").endswith("/mcp") and
     "${SLIPWAY_TOKEN}" in cm.get("headers", {}).get("Authorization", ""),
     "Claude .mcp.json: http server with the token from the environment")
with open(os.path.join(AG, "claude", "agents", "slipway-operator.md")) as f:
    fm, body = front_matter(f.read())
named = [x.strip()[len("mcp__slipway__"):] for x in
         str(fm.get("tools", "")).split(",") if "mcp__slipway__" in x]
missing = [x for x in named if x not in tools]
t.ok(named and not missing, "Claude agent names %d existing Slipway tools" %
     len(named))
if missing:
    t.diag("missing: %s" % ", ".join(missing))
s.stop()
t.done()
