#!/usr/bin/python3
# 20-ui.t: the web UI in a real browser (Debian Chromium driven by
# playwright-core, t/lib/ui-flow.js), the whole journey against the
# sandbox: log in (a bad token is refused; the session cookie is HttpOnly
# and SameSite=Strict) -> a page left behind never renders over the
# current one -> create a cluster (a server field error beside its
# input, the dry-run plan) and watch every stage complete -> add an
# instance group -> "no change" for an unchanged features form, then
# enable the training operator (only that key is sent) -> submit a
# training job and see its log lines (role="log") and the throughput
# chart -> deploy an endpoint, see it ready, and test-call it when the
# server's OpenAPI document has inference_invoke -> create and revoke a
# token, make the agent's read-only token -> tear the cluster down.
# Any console error (CSP violations included), page error, failed
# request, 5xx or unexpected 4xx fails it.  Screenshots of each page go
# to build/t/20-ui-*.png.
#
# What a platform engineer needs besides, each checked where it happens:
# a job that cannot be placed says why (the scheduler's message on its
# page; a per-node request no instance type of the cluster holds is a
# 400 beside its field naming the largest node); a destructive action
# asks first (a job's delete; a cluster's delete wants its name typed
# and lists what goes), and a dialog does not survive Back; the cluster
# page is live (an operation started through the API shows up without a
# reload) and says when it was updated; logging out then Back shows the
# login, and a deep link survives the login; on a phone (390 x 844, dark)
# every page fits the screen; the operations table filters with its
# state in the URL; axe-core finds nothing serious or critical in any
# page state at 1440 x 900 or 390 x 844.
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, BUILDDIR, need_browser, ui_script

t = T()
need_browser(t)
if not os.path.exists(os.path.join(SRCDIR, "sandbox", "slipway-sandbox")):
    t.skip_all("sandbox missing")
import harness  # noqa: E402
if not harness.helm_simulated():
    t.skip_all(harness.NO_HELM)
if not os.path.exists(os.path.join(SRCDIR, "static", "vendor", "preact.js")):
    t.bail("static/vendor/ is missing: the build copies it from "
           "static/node_modules (cd static && npm ci)")
s = Stack(t, sandbox=True, speed=3000)
doc = s.get("/api/v1/openapi.json").json or {}
ops = {o.get("operationId") for p in doc.get("paths", {}).values()
       for o in p.values()}
shots = os.path.join(BUILDDIR, "t")
os.makedirs(shots, exist_ok=True)
for f in os.listdir(shots):
    if f.startswith("20-ui-") and f.endswith(".png"):
        os.unlink(os.path.join(shots, f))
out = ui_script(t, "ui-flow.js", "http://127.0.0.1:%d" % s.port, s.token,
                shots, timeout=900)
t.diag("steps done: %s" % ", ".join(out.get("steps") or []))

# ---- log in
t.ok("unknown" in (out.get("bad_login") or ""), "a bad token is refused "
     "with the server's message")
t.ok("test-admin" in (out.get("logged_in") or ""), "logged in as the token")
t.ok(out.get("cookie_http_only"), "the session cookie is HttpOnly")
t.eq(out.get("cookie_same_site"), "Strict", "and SameSite=Strict")
t.eq(out.get("nav"), ["Clusters", "Create cluster", "Operations", "Training",
                      "Inference", "Costs", "Teams", "Settings"], "a navigation entry per page")

# ---- navigation race
t.eq(out.get("create_kept"), 1, "a late answer of the page left behind "
     "does not replace the create form")
t.eq(out.get("create_h1"), "Create a cluster", "the create page stays shown")

# ---- create wizard
t.ok("×" in (out.get("type_facts") or "") and
     "vCPU" in (out.get("type_facts") or ""), "instance types show their GPU "
     "facts (%s)" % out.get("type_facts"))
t.ok(out.get("azs") and all(a.startswith("us-") for a in out["azs"]),
     "the AZ list offers the zones of the chosen type")
cap = doc.get("paths", {}).get("/api/v1/clusters", {}).get("post", {})
cap = cap.get("requestBody", {}).get("content", {}).get(
    "application/json", {}).get("schema", {}).get("properties", {}).get(
    "instance_groups", {}).get("items", {}).get("properties", {}).get(
    "capacity_type", {}).get("enum")
t.eq([c for c in (out.get("capacity_options") or []) if c], cap,
     "the capacity choices are the OpenAPI document's enum")
t.ok("must be at least 1" in (out.get("field_error") or ""),
     "a server field error is shown beside its input")
t.ok(out.get("field_error_cleared"), "and cleared by a good plan")
t.ok((out.get("plan_steps") or 0) > 20 and "CreateVpc" in
     (out.get("plan_first") or ""), "the plan lists the calls, CreateVpc "
     "first (%s steps)" % out.get("plan_steps"))
t.ok(re.search(r"Adds \$[0-9.,]+ an hour \(\$[0-9.,]+ a day\)",
               out.get("plan_cost") or ""),
     "the plan says what the cluster adds per hour and per day: %r" %
     (out.get("plan_cost") or "")[:120])
t.ok("#/operations/op-" in (out.get("operation_url") or ""),
     "create leads to the operation page")
op = out.get("create_op") or {}
t.eq(op.get("state"), "succeeded", "the page followed the operation to "
     "succeeded")
t.ok(op.get("first") not in ("succeeded", None), "it showed the operation "
     "before it ended (first seen: %s)" % op.get("first"))
seen = out.get("stages_seen") or {}
t.ok(len(seen) == 8 and all(len(v) >= 2 and v[-1] == "succeeded" and
                            v[0] != "succeeded" for v in seen.values()),
     "every stage was seen changing until it succeeded: %s" % seen)
t.ok(any("running" in v for v in seen.values()), "and some while running")
st = op.get("stages") or []
t.ok(len(st) == 8 and all(x[1] == "succeeded" for x in st),
     "eight stages shown, all succeeded: %s" % st)
t.eq(op.get("progress"), [8, 8], "the progress bar is full")
t.ok((op.get("events") or 0) > 8, "the events were shown (%s)"
     % op.get("events"))
ws = out.get("ws_status")
if ws == 101:
    t.eq(op.get("live"), "ws", "the operation page followed the stream "
         "server's WebSocket")
    t.eq(out.get("ws_errors"), 0, "no WebSocket connection failed")
else:
    t.diag("this stack serves no /ws/ (handshake answered %s): the pages "
           "fell back to the long poll and the REST logs" % ws)
    t.eq(op.get("live"), "poll", "without /ws/ the operation page follows "
         "the long poll")
t.ok((out.get("timeline") or 0) >= 1, "the operations timeline lists it")
t.ok("state=succeeded" in (out.get("ops_filter_url") or ""),
     "the operations filter is kept in the URL (%s)" % out.get("ops_filter_url"))
t.ok(out.get("ops_durations") and all(d.endswith("s") or "min" in d
                                      for d in out["ops_durations"]),
     "each operation has its duration: %s" % (out.get("ops_durations") or [])[:3])

# ---- cluster page
t.eq(out.get("dialog_open_after_back"), 0, "a confirmation left open is "
     "closed by Back, never acting on the page left")
t.ok(out.get("cluster_updated"), "the cluster page says when it was updated")
t.ok("aws eks update-kubeconfig --name ui1 --region us-" in
     (out.get("kubeconfig") or ""), "the kubeconfig command is shown")
t.eq(out.get("sum_gpus"), "1", "the overview counts the cluster's GPUs")
t.ok(re.match(r"^\s*\$[0-9,]+\.[0-9]{2,4}\s*$", out.get("cost_usd") or ""),
     "the costs page shows the ledger's cost in dollars: %r" %
     out.get("cost_usd"))
t.ok("/api/v1/costs/ledger?" in (out.get("cost_csv") or "") and
     "format=csv" in (out.get("cost_csv") or ""),
     "and links its CSV export: %s" % out.get("cost_csv"))
t.ok(re.match(r"^\s*\$[0-9]+\.[0-9]{2,4}\s*$", out.get("sum_cost") or ""),
     "the overview shows the cost per hour in dollars: %r" %
     out.get("sum_cost"))
t.ok(out.get("live_op"), "the cluster page is live: an operation started "
     "through the API appears without a reload")
t.eq(out.get("live_op_state"), "succeeded", "and ran to its end")
t.eq(out.get("nodes"), 1, "the node grid shows the node")
t.eq(out.get("node_badge"), "Running", "with its health")
t.ok("Reboot node" in (out.get("confirm_text") or "") and
     out.get("reboot_declined_stays"), "reboot asks first, and No does "
     "nothing")
t.ok("on-demand" in (out.get("group_badges") or []),
     "the instance group has its capacity badge")
t.eq(out.get("storage"), ["s3-claim"], "the S3 claim is listed")
t.ok((out.get("subnets") or 0) >= 1, "compute subnets are listed")
t.eq((out.get("group_op") or {}).get("state"), "succeeded",
     "an instance group added from the cluster page")
t.eq(sorted(out.get("groups") or []), ["extra", "workers"],
     "the cluster page lists both groups")

t.ok("Fix it" in (out.get("fix_quota") or "") and "instance groups" in
     (out.get("fix_quota") or ""), "a count over the service quota links "
     "to the panel that fixes it: %s" % (out.get("fix_quota") or "").strip())
t.ok((out.get("fix_quota_url") or "").endswith("?panel=instance-groups") and
     out.get("fix_quota_focus"), "the link brings the instance groups "
     "panel into focus (%s)" % out.get("fix_quota_url"))
t.eq(out.get("groups_sorted"), ["workers", "extra"], "the instance groups "
     "sort by name, descending on the second click")
tu = out.get("tables_url") or ""
t.ok("groups.sort=name" in tu and "groups.dir=desc" in tu and
     "nodes.q=no-such-node" in tu, "two tables of one page keep their "
     "state in the URL side by side: %s" % tu)
t.eq(out.get("tables_restored"), {"groups": ["workers", "extra"], "nodes": 0,
                                  "search": "no-such-node"},
     "and the link brings the sort and the search back")
t.ok(all(x in (out.get("table_tools") or []) for x in
         ("group-list-q", "node-list-q", "addon-list-q", "storage-list-q",
          "subnet-list-q")),
     "instance groups, nodes, add-ons, storage and subnets each have a "
     "search: %s" % out.get("table_tools"))
t.eq((out.get("storage_op") or {}).get("state"), "succeeded",
     "an S3 claim added from the storage form")
t.eq(out.get("storage_after"), ["more-data", "s3-claim"], "and listed")

# ---- features
t.ok("No change" in (out.get("no_change") or ""), "an unchanged features "
     "form says no change and sends nothing")
t.eq(out.get("feature_body"), {"training_operator": True},
     "enabling a feature sends only what changed")
t.eq((out.get("feature_op") or {}).get("state"), "succeeded",
     "the training operator is on")

# ---- a node's page, the events page, task governance
t.ok((out.get("node_url") or "").endswith("/nodes/%s" % out.get("node_id")),
     "a node in the grid links to its page")
t.ok((out.get("ssm_target") or "").startswith("sagemaker-cluster:") and
     (out.get("ssm_target") or "").endswith(out.get("node_id") or "-"),
     "the node page shows its SSM target")
t.eq(out.get("ssm_command"), "aws ssm start-session --target %s "
     "--region us-west-2" % out.get("ssm_target"),
     "... and the command that opens a shell on it")
t.ok(any((out.get("node_id") or "-") in e and "Running" in e
         for e in out.get("node_events") or []),
     "the node page lists the node's own events")
t.ok(out.get("node_id", "-") in (out.get("health_confirm") or ""),
     "a health check asks first, naming the node")
t.eq((out.get("health_op") or {}).get("state"), "succeeded",
     "the health check ran to its end")
t.ok(out.get("node_live_op"), "the node page is live: a reboot started "
     "through the API appears without a reload")
t.ok(out.get("node_live_end"), "and is followed to its end")
if ws == 101:
    # a reboot the re-read first finds already ended has nothing to follow
    t.ok(out.get("node_live_first") in ("succeeded", "failed") or
         out.get("node_live_ws"), "seen running (%s), it was followed over "
         "the operation's WebSocket" % out.get("node_live_first"))
lm = out.get("live_marker") or {}
t.eq(sorted(k for k, v in lm.items() if v), ["cluster", "clusters", "endpoints",
                                            "job", "jobs", "node"],
     "every status view says when it was updated: %s" % lm)
t.ok((out.get("events_all") or 0) >= 3, "the events page lists the "
     "cluster's events (%s)" % out.get("events_all"))
t.eq(out.get("event_levels"), ["Info", "Warn", "Error"],
     "the level filter's choices come from the OpenAPI document")
t.eq(out.get("events_filter_status"), 200, "filtering by level asks the "
     "server")
t.eq((out.get("governance_op") or {}).get("state"), "succeeded",
     "task governance turned on from the features panel")
t.ok(out.get("scheduler_state") in ("Created", "Creating"),
     "a scheduler config is saved from the governance page (%s)"
     % out.get("scheduler_state"))
t.ok("alpha" in (out.get("quota_row") or "") and "hyperpod-ns-alpha" in
     (out.get("quota_row") or ""), "a team's compute quota is created and "
     "listed with its queue")
t.ok(out.get("quota_deleted"), "... and deleted")

# ---- training
t.eq(out.get("recipes"), ["pytorch", "llama-factory", "ms-swift", "verl"],
     "a recipe form each")
t.ok("at least 1" in (out.get("job_field_error") or ""), "a job field "
     "error from the server is shown beside its input: %s"
     % out.get("job_field_error"))
lines = out.get("log_lines") or []
t.eq(out.get("log_role"), "log", "the logs sit in role=log")
t.ok(any("tokens/s=" in ln for ln in lines), "the job's log lines are "
     "shown (%d)" % len(lines))
seqs = out.get("log_seqs") or []
t.ok(seqs and seqs == list(range(seqs[0], seqs[0] + len(seqs))),
     "each line once, in order")
t.ok((out.get("chart_points") or 0) >= 2, "the throughput chart has "
     "%s points from the log" % out.get("chart_points"))
t.ok((out.get("loss_points") or 0) >= 2, "and the loss chart %s"
     % out.get("loss_points"))
t.ok("of 40" in (out.get("job_progress") or ""), "the progress from the "
     "progress line: %s" % out.get("job_progress"))

t.eq(out.get("copy_buttons"), ["Copy as curl", "Copy as MCP call"],
     "the job form copies as curl and as an MCP call")
t.ok("model_id" in (out.get("download_form") or []), "model_download has a "
     "form: %s" % out.get("download_form"))

# ---- why a job is stuck
fit = out.get("gpu_fit_error") or ""
t.ok("8 GPUs" in fit and "largest node" in fit and "ml." in fit,
     "8 GPUs per node on 1-GPU nodes is refused at the dry run, beside "
     "its field, naming the largest node: %s" % fit)
t.ok(out.get("gpu_error_cleared"), "the error goes when the input changes")
t.ok("kind: HyperPodPyTorchJob" in (out.get("plan_yaml") or ""),
     "the dry run shows the manifests as YAML")
t.ok("Insufficient nvidia.com/gpu" in (out.get("stuck_reason") or ""),
     "a pod that cannot be placed says why on the job page: %s"
     % out.get("stuck_reason"))
t.ok(any("Unschedulable" in r for r in out.get("pod_reasons") or []),
     "its row has the reason: %s" % out.get("pod_reasons"))
t.ok("FailedScheduling" in (out.get("pod_event") or "") and
     "Insufficient nvidia.com/gpu" in (out.get("pod_event") or ""),
     "the job page lists each pod's scheduling events: %s"
     % (out.get("pod_event") or "").strip()[:200])
t.ok(out.get("job_delete_asks") and "wide1" in
     (out.get("job_delete_text") or ""), "deleting a job asks first")

if ws != 101:
    socks = out.get("contract_sockets") or []
    t.eq(out.get("contract_op_stages"), 8, "with the stream contract "
         "played over /ws/, the operation page shows the snapshot live")
    t.ok(len(socks) == 3 and socks[1].endswith("/pods/default/sft1-pods-0/"
                                               "logs") and
         socks[2].endswith("logs?after=3"), "the log view reconnects after "
         "a drop with after=3: %s" % socks[1:])
    n = out.get("contract_log_lines") or 0
    if not t.ok(n > 3 and out.get("contract_log_seqs") ==
                list(range(1, n + 1)), "and shows each of the %d lines "
                "once" % n):
        t.diag("seqs shown: %s" % out.get("contract_log_seqs"))

# ---- inference
sf = out.get("shape_fields") or {}
t.ok("model" in sf.get("self-hosted", []) and "model_id" not in
     sf.get("self-hosted", []) and "kv_cache.l1" not in
     sf.get("self-hosted", []), "the self-hosted form has no managed or "
     "JumpStart member")
t.ok("model_source.uri" in sf.get("managed", []) and "kv_cache.l1" in
     sf.get("managed", []) and "model" not in sf.get("managed", []) and
     "model_id" not in sf.get("managed", []), "the managed form has its "
     "model source and KV cache, no self-hosted or JumpStart member")
t.ok("model_id" in sf.get("jumpstart", []) and "model_source.uri" not in
     sf.get("jumpstart", []) and "pvc" not in sf.get("jumpstart", []),
     "the JumpStart form has its model id only")
t.eq(out.get("engines"), ["vllm", "sglang"], "the engine choices come from "
     "the OpenAPI document")
t.ok(out.get("endpoint_ready"), "the endpoint deployed and is ready")
t.ok("kind: Deployment" in (out.get("deploy_yaml") or "") or
     "kind: " in (out.get("deploy_yaml") or ""), "the inference dry run shows "
     "its manifests as YAML: %s" % (out.get("deploy_yaml") or "")[:120])
cf = out.get("copy_forms") or {}
want = ["import-form", "add-group-form", "storage-form", "features-form",
        "scheduler-form", "quota-form", "job-form", "download-form",
        "deploy-form"]
t.eq({f: cf.get(f) for f in want if cf.get(f) != ["Copy as curl",
                                                   "Copy as MCP call"]}, {},
     "every form copies its request as curl and as an MCP call (%d forms)"
     % len(want))
if "inference_invoke" in ops:
    t.ok(out.get("invoke_offered") and out.get("invoke_answer"),
         "the test call answered: %s" % out.get("invoke_answer"))
else:
    t.ok(not out.get("invoke_offered"), "no test call offered: the server "
         "has no inference_invoke yet")

# ---- settings
t.ok(out.get("token_made"), "a token is created from the settings page")
t.eq(out.get("token_revoked"), "revoked", "and revoked")
t.ok((out.get("mcp_url") or "").endswith("/mcp"), "the MCP URL is shown")
t.ok(out.get("kiro_has_token") and out.get("claude_has_token") and
     "claude mcp add" in (out.get("claude_snippet") or ""),
     "the Kiro and Claude snippets carry the read-only token")

ro = out.get("read_only") or []
t.ok(len(ro) == 4 and all(x[1] is True and "write scope" in (x[2] or "")
                          for x in ro),
     "a read-only token sees each action it may not take disabled, with "
     "why on hover: %s" % ro)
kb = out.get("keyboard") or {}
t.ok(set(kb) >= {"clusters", "cluster", "node", "job", "settings",
                 "phone-cluster"},
     "the keyboard walked the pages: %s" % sorted(kb))
t.eq({n: v["missed"] for n, v in kb.items() if v["missed"]}, {},
     "Tab reaches every button, link and input on each page (%s)"
     % {n: v["controls"] for n, v in kb.items()})
t.eq({n: v["hidden"] for n, v in kb.items() if v["hidden"]}, {},
     "nothing hidden takes the focus (a phone's table header sort buttons "
     "included)")
t.ok(any(n.startswith("dark-") for n in out.get("pages") or {}),
     "pages seen in dark mode "
     "at desktop size too (axe checks their contrast)")

# ---- logging out and in
t.ok(out.get("back_after_logout"), "Back after logging out shows the login, "
     "not an empty page")
t.eq(out.get("relogin_url"), "#/settings", "and logging in returns to the "
     "page")
t.eq(out.get("deep_link"), "#/clusters/ui1", "a deep link survives the login")

# ---- tear down
t.ok(out.get("delete_needs_name"), "deleting a cluster wants its name typed")
t.ok(out.get("delete_wrong_name_disabled"), "a wrong name does not enable it")
t.ok(len(out.get("delete_list") or []) > 3, "the dialog lists what will go "
     "(%d calls from the dry run)" % len(out.get("delete_list") or []))
t.eq((out.get("delete_op") or {}).get("state"), "succeeded",
     "the cluster is deleted from its page")
t.eq(out.get("left"), [], "no cluster is left")

# ---- the page itself
problems = out.get("problems")
if out.get("ws_errors") and ws != 101:
    t.diag("WebSocket handshakes refused (no /ws/ here): %d, e.g. %s"
           % (out["ws_errors"], out.get("ws_error_text")))
t.eq(problems, [], "no console or page error, failed request, 5xx or "
     "unexpected 4xx")
pages = out.get("pages") or {}
t.eq({n: p["h1"] for n, p in pages.items() if p["h1"] != 1}, {},
     "every page has one h1 (%d pages)" % len(pages))
t.eq({n: p["unlabelled"] for n, p in pages.items() if p["unlabelled"]}, {},
     "every input on every page has a label")
r = s.get("/js/pages/cluster.js", token=None,
          headers={"Accept-Encoding": "gzip"})
hd = {k.lower(): v for k, v in r.headers or []}
t.eq(hd.get("content-encoding"), "gzip", "the UI's scripts are sent "
     "compressed")
t.ok("no-cache" in hd.get("cache-control", "") and hd.get("etag"),
     "and revalidated by their ETag (%s)" % hd.get("cache-control"))
# The Costs page draws its chart once the usage ledger has a sample of
# the cluster, which may come before the flow reaches it or after.
t.ok((out.get("uplot_first_page") or "").startswith(("#/training/ui1/",
                                                     "#/costs")),
     "the chart library is first fetched on a page that draws a chart, a "
     "job's or the Costs page (%s)"
     % out.get("uplot_first_page"))
t.ok(any(n.startswith("phone-") for n in pages), "the pages were seen on a "
     "phone")
t.eq({n: p["wide"] for n, p in pages.items() if p.get("wide")}, {},
     "no page is wider than its screen (390 px on the phone)")
axe = out.get("axe") or {}
t.ok(len(axe) >= len(pages), "axe-core ran on every page state (%d)"
     % len(axe))
t.eq({n: v for n, v in axe.items() if v}, {}, "axe-core: no serious or "
     "critical finding")
t.ok(all(os.path.exists(os.path.join(shots, "20-ui-%s.png" % n)) for n in
         ("login", "clusters", "create", "operation", "operations",
          "cluster", "node", "events", "governance", "training", "job",
          "inference", "settings")),
     "a screenshot of each page in build/t/")
s.stop()
t.done()
