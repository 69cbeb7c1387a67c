// ui-flow.js URL TOKEN SHOTDIR: the journey a platform team takes
// through Slipway's web UI, in headless Debian Chromium driven by
// playwright-core: log in, create a cluster and watch every stage
// complete, add an instance group, enable a feature, submit a training
// job and see its log lines and throughput chart, deploy an endpoint
// (and test-call it where the server has inference_invoke), manage
// tokens, tear the cluster down.  Every wait is on the page's state,
// never on time.  Prints one JSON line of findings for t/20-ui.t; a
// screenshot of each page goes to SHOTDIR.
"use strict";
const http = require("http");
const path = require("path");
const fs = require("fs");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));
const AXE = fs.readFileSync(path.join(__dirname, "..", "node_modules",
  "axe-core", "axe.min.js"), "utf8");
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

const LONG = { timeout: 240000 };

// The status of a WebSocket handshake to path (101 when the stream
// server answers, 404 when nothing serves /ws/).
function wsStatus(base, token, p) {
  return new Promise((resolve) => {
    const u = new URL(base);
    const req = http.request({ host: u.hostname, port: u.port, path: p,
      headers: { Connection: "Upgrade", Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        Authorization: "Bearer " + token } });
    req.on("upgrade", (res, sock) => { sock.destroy(); resolve(101); });
    req.on("response", (res) => { res.resume(); resolve(res.statusCode); });
    req.on("error", () => resolve(0));
    req.end();
  });
}

(async () => {
  const [url, token, shots] = process.argv.slice(2);
  const out = { steps: [], problems: [], expected_4xx: [], ws_errors: 0 };
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update",
      "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: DESKTOP });
  // Waits are on the page's state; the bound only has to hold on a
  // loaded machine.
  context.setDefaultTimeout(120000);
  const page = await context.newPage();
  // 4xx answers the journey provokes on purpose; any other 4xx, every
  // 5xx and every failed request is a problem.
  const allowed4xx = [
    /^GET \/api\/v1\/whoami 401$/,                  // before logging in
    /^POST \/api\/v1\/login 401$/,                  // the wrong token
    /^POST \/api\/v1\/clusters\?dry_run=true 400$/, // the count of 0
    /^POST \/api\/v1\/clusters\/ui1\/training-jobs 400$/, // 0 or 8 GPUs
    /^POST \/api\/v1\/clusters\/ui1\/training-jobs\?dry_run=true 400$/,
    // a count over the service quota
    /^PATCH \/api\/v1\/clusters\/ui1\/instance-groups\/workers 422$/,
  ];
  page.on("pageerror", (e) => out.problems.push("pageerror: " + e));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const text = m.text();
    // Chromium logs every 4xx answer like this; the response handler
    // below decides whether the answer itself was expected.
    if (/^Failed to load resource: the server responded with a status of 4\d\d/
      .test(text)) return;
    if (/^WebSocket connection to .* failed/.test(text)) {
      out.ws_errors++;
      out.ws_error_text = text;
      return;
    }
    out.problems.push("console: " + text);
  });
  // The chart library is fetched only where a chart is drawn.
  page.on("request", (r) => {
    if (/\/vendor\/uPlot/.test(r.url()) && !out.uplot_first_page)
      out.uplot_first_page = page.url().replace(/.*#/, "#");
  });
  // The WebSockets the pages open (an operation followed over its stream).
  out.ws_opened = [];
  page.on("websocket", (w) => out.ws_opened.push(new URL(w.url()).pathname));
  // Each status view says when it was updated.
  out.live_marker = {};
  const marker = async (name, scope) => {
    out.live_marker[name] = await page.waitForSelector((scope || "") +
      " .updated[data-at]", { timeout: 30000 }).then(() => true, () => false);
  };
  // The copy buttons of each form ("Copy as curl", "Copy as MCP call").
  out.copy_forms = {};
  // A page's forms may come after its data: each form named is waited
  // for (its copy buttons in place) before the page's forms are read.
  const copyForms = async (...ids) => {
    for (const id of ids)
      await page.waitForSelector(`form#${id} button.copy`,
        { state: "attached", timeout: 60000 }).catch(() => {});
    Object.assign(out.copy_forms,
      Object.fromEntries(await page.$$eval("form[id]", (l) => l.map((f) =>
        [f.id, [...f.querySelectorAll("button.copy")].map((b) =>
          b.textContent.trim())]))));
  };
  page.on("requestfailed", (r) => {
    out.problems.push("request failed: " + r.method() + " " + r.url() + " " +
      (r.failure() && r.failure().errorText));
  });
  page.on("response", (r) => {
    const u = new URL(r.url());
    const key = `${r.request().method()} ${u.pathname}${u.search} ${r.status()}`;
    if (r.status() >= 500) out.problems.push("5xx: " + key);
    else if (r.status() >= 400) {
      if (allowed4xx.some((re) => re.test(key))) out.expected_4xx.push(key);
      else out.problems.push("4xx: " + key);
    }
  });
  // Each page: one h1, every input labelled, then a screenshot.
  out.pages = {};
  out.axe = {};
  // axe-core's serious and critical findings on the page as it is now
  // (evaluated through the debugger protocol: the page's CSP stays on).
  const axe = async (pg, name) => {
    if (!await pg.evaluate(() => !!window.axe)) await pg.evaluate(AXE + ";0");
    const v = await pg.evaluate(async () => (await window.axe.run(document, {
      resultTypes: ["violations"] })).violations);
    out.axe[name] = v.filter((x) => ["serious", "critical"].includes(x.impact))
      .map((x) => x.id + ": " + x.nodes.slice(0, 3).map((n) =>
        n.target.join(" ")).join(", "));
  };
  const shot = async (name, pg) => {
    pg = pg || page;
    await axe(pg, name);
    out.pages[name] = await pg.evaluate(() => ({
      wide: document.documentElement.scrollWidth > window.innerWidth + 1 ?
        document.documentElement.scrollWidth : 0,
      h1: document.querySelectorAll("h1").length,
      unlabelled: [...document.querySelectorAll("input, select, textarea")]
        .filter((e) => e.labels.length === 0 &&
          !e.getAttribute("aria-label") && !e.closest("dialog"))
        .map((e) => e.id || e.name || e.outerHTML.slice(0, 60)),
    }));
    await pg.screenshot({ path: path.join(shots, `20-ui-${name}.png`),
      fullPage: true });
    // After a full-page screenshot Chromium may scroll the page between
    // the next mousedown and mouseup, so the click lands on the parent:
    // start from the top, once the page has painted.
    await pg.evaluate(() => new Promise((r) => {
      window.scrollTo(0, 0);
      requestAnimationFrame(() => requestAnimationFrame(r));
    }));
  };
  // Tab through the page: every control shown is reached by the
  // keyboard, and nothing hidden takes the focus.
  out.keyboard = {};
  const tabWalk = async (pg, name) => {
    const n = await pg.evaluate(() => {
      const sel = "a[href], button:not([disabled]), input:not([disabled])," +
        " select:not([disabled]), textarea, summary, [tabindex='0']";
      let i = 0;
      for (const e of document.querySelectorAll(sel)) {
        delete e.dataset.kb;
        if (e.getClientRects().length === 0 || e.closest("dialog")) continue;
        const d = e.closest("details:not([open])");
        if (d && e.tagName !== "SUMMARY") continue;
        e.dataset.kb = String(i++);
      }
      document.activeElement && document.activeElement.blur();
      return i;
    });
    const seen = new Set();
    const hidden = [];
    for (let k = 0; k < n + 40 && seen.size < n; k++) {
      await pg.keyboard.press("Tab");
      const f = await pg.evaluate(() => {
        const e = document.activeElement;
        if (!e || e === document.body) return null;
        const r = e.getBoundingClientRect();
        return { kb: e.dataset.kb, tag: e.tagName + (e.id ? "#" + e.id : ""),
          hidden: r.width < 2 || r.height < 2 || !!e.closest("thead") &&
            getComputedStyle(e.closest("thead")).display === "none" };
      });
      if (!f) continue;
      if (f.kb !== undefined) seen.add(f.kb);
      if (f.hidden) hidden.push(f.tag);
    }
    const missed = await pg.evaluate((s) => [...document.querySelectorAll(
      "[data-kb]")].filter((e) => !s.includes(e.dataset.kb)).map((e) =>
      e.tagName + (e.id ? "#" + e.id : "") + " " + (e.textContent || "")
        .trim().slice(0, 30)), [...seen]);
    out.keyboard[name] = { controls: n, missed: missed.slice(0, 5),
      hidden: hidden.slice(0, 5) };
  };
  // The same checks of a page state without its own screenshot name.
  const look = (name) => shot(name);
  const go = (hash) => page.evaluate((h) => { location.hash = h; }, hash);
  const t0 = Date.now();
  const step = (s) => out.steps.push(s + " " + ((Date.now() - t0) / 1000) + "s");
  const h1 = () => page.textContent("h1");
  // Wait for the operation page to end and return what it showed.
  const followOperation = async () => {
    await page.waitForURL(/#\/operations\/op-/);
    await page.waitForSelector("#operation[data-state]");
    const first = await page.getAttribute("#operation", "data-state");
    await page.waitForSelector("#operation[data-state=succeeded]," +
      "#operation[data-state=failed],#operation[data-state=cancelled]", LONG);
    return {
      id: page.url().replace(/.*#\/operations\//, ""),
      first,
      state: await page.getAttribute("#operation", "data-state"),
      live: await page.getAttribute("#operation", "data-live"),
      stages: await page.$$eval("ol.stages > li", (l) => l.map((x) =>
        [x.dataset.stage, x.dataset.state])),
      events: await page.$$eval("#events .event", (l) => l.length),
      progress: await page.$eval("#op-progress", (p) => [p.value, p.max]),
    };
  };
  try {
    // ---- log in
    await page.goto(url + "/#/login");
    await page.waitForSelector("#token");
    await page.fill("#token", "swt_wrong");
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#login-error:not(:empty)");
    out.bad_login = await page.textContent("#login-error");
    await shot("login");
    await page.fill("#token", token);
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("h1:has-text('Clusters in')");
    out.logged_in = await page.textContent("#who");
    const cookies = await page.context().cookies();
    const c = cookies.find((x) => x.name === "sw_session");
    out.cookie_http_only = !!(c && c.httpOnly);
    out.cookie_same_site = c ? c.sameSite : null;
    out.nav = await page.$$eval("#nav a", (l) => l.map((a) => a.textContent));
    await marker("clusters");
    await copyForms("import-form");
    await tabWalk(page, "clusters");
    await shot("clusters");
    step("login");

    // ---- a late answer of a page left behind never renders: hold the
    // cluster list back, move on to the create form, let it through.
    let release;
    const held = new Promise((r) => { release = r; });
    await page.route("**/api/v1/clusters", async (r) => {
      await held;
      await r.continue();
    });
    await go("#/operations");
    await page.waitForSelector("h1:has-text('Operations')");
    await go("#/clusters");
    await page.waitForSelector("h1:has-text('Clusters')");
    await go("#/create");
    await page.waitForSelector("#create-form");
    const late = page.waitForResponse((r) =>
      new URL(r.url()).pathname === "/api/v1/clusters");
    release();
    await late;
    // Let the late answer's promise chain run before looking.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() =>
      requestAnimationFrame(r))));
    out.create_kept = await page.$$eval("#create-form", (l) => l.length);
    out.create_h1 = await h1();
    await page.unroute("**/api/v1/clusters");

    // ---- the create wizard: a field error from the server, a plan
    const types = await page.$$eval("#instance_type option", (l) =>
      l.map((o) => [o.value, o.textContent]));
    out.type_facts = types.length && types[0][1];
    const small = types.find(([, t]) => /— 1× /.test(t) && !/EFA/.test(t));
    await page.selectOption("#instance_type", small[0]);
    out.instance_type = small[0];
    out.azs = await page.$$eval("#availability_zone option", (l) =>
      l.map((o) => o.value));
    out.capacity_options = await page.$$eval("#capacity_type option", (l) =>
      l.map((o) => o.value));
    await page.fill("#name", "ui1");
    await page.fill("#count", "0");
    await page.fill("#s3_bucket", "ui1-training-data");
    await page.click("#plan");
    await page.waitForSelector("[data-error-for='instance_groups[0].count']");
    out.field_error = await page.textContent(
      "label:has(#count) [data-error-for='instance_groups[0].count']");
    await page.fill("#count", "1");
    await page.click("#plan");
    await page.waitForSelector("#plan-list li");
    out.field_error_cleared = await page.$$eval("[data-error-for]",
      (l) => l.length) === 0;
    out.plan_steps = await page.$$eval("#plan-list li", (l) => l.length);
    out.plan_first = await page.textContent("#plan-list li");
    out.plan_cost = await page.textContent("#plan-cost", { timeout: 30000 }).catch(() => "");
    await shot("create");
    // Record every state each stage is shown in, as the page changes.
    await page.evaluate(() => {
      window.stagesSeen = {};
      const look = () => {
        for (const li of document.querySelectorAll("ol.stages > li")) {
          const seen = window.stagesSeen[li.dataset.stage] ||= [];
          if (seen[seen.length - 1] !== li.dataset.state)
            seen.push(li.dataset.state);
        }
      };
      new MutationObserver(look).observe(document.body, { subtree: true,
        childList: true, attributes: true, attributeFilter: ["data-state"] });
    });
    await page.click("#create");
    const created = await followOperation();
    out.stages_seen = await page.evaluate(() => window.stagesSeen);
    out.create_op = created;
    out.operation_url = page.url();
    await shot("operation");
    step("create");

    // ---- the stream server, when this stack has one
    out.ws_status = await wsStatus(url, token, "/ws/operations/" + created.id);

    // ---- the timeline
    await go("#/operations");
    await page.waitForSelector(`#operation-list [data-operation='${created.id}']`);
    out.timeline = await page.$$eval("#operation-list [data-operation]",
      (l) => l.length);
    // filtered by state: the filter is kept in the URL
    if (await page.$("#operation-list-f-state")) {
      await page.selectOption("#operation-list-f-state", "succeeded");
      await page.waitForFunction(() => /[?&]state=succeeded/
        .test(location.hash));
    }
    out.ops_filter_url = page.url().replace(/.*#/, "#");
    out.ops_durations = await page.$$eval("#operation-list tr[data-operation] " +
      "td:nth-child(7)", (l) => l.map((x) => x.textContent.trim()));
    await shot("operations");

    // ---- cluster page: nodes, a confirmation that can say no; a dialog
    // left open does not survive Back
    await go("#/clusters/ui1");
    await page.waitForSelector("#nodes li[data-node]");
    await page.click("#nodes li[data-node] button.reboot");
    await page.waitForSelector("#confirm[open]");
    await page.goBack();
    await page.waitForSelector("#operation-list");
    out.dialog_open_after_back = await page.$$eval("#confirm[open]",
      (l) => l.length);
    if (out.dialog_open_after_back)
      await page.click("#confirm-no");
    await go("#/clusters/ui1");
    await page.waitForSelector("#nodes li[data-node]");
    out.cluster_updated = await page.waitForSelector("#updated",
      { timeout: 30000 }).then(() => true, () => false);
    await marker("cluster", "#cluster");
    await go("#/costs");
    await page.waitForSelector("#cost-totals", { timeout: 30000 }).catch(() => null);
    out.cost_usd = await page.textContent("#cost-usd", { timeout: 30000 }).catch(() => "");
    out.cost_csv = await page.getAttribute("#cost-csv", "href").catch(() => "");
    await marker("costs", "#costs");
    await go("#/clusters/ui1");
    await page.waitForSelector("#nodes li[data-node]");
    await tabWalk(page, "cluster");
    out.kubeconfig = await page.textContent("#kubeconfig-cmd", { timeout: 30000 }).catch(() => "");
    out.sum_gpus = await page.textContent("#sum-gpus", { timeout: 30000 }).catch(() => "");
    out.sum_cost = await page.textContent("#sum-cost", { timeout: 30000 }).catch(() => "");
    out.nodes = await page.$$eval("#nodes li[data-node]", (l) => l.length);
    out.node_badge = await page.textContent("#nodes li[data-node] .state");
    await page.click("#nodes li[data-node] button.reboot");
    await page.waitForSelector("#confirm[open]");
    out.confirm_text = await page.textContent("#confirm .confirm-text");
    await page.click("#confirm-no");
    await page.waitForSelector("#confirm:not([open])", { state: "attached" });
    out.reboot_declined_stays = /#\/clusters\/ui1$/.test(page.url());
    out.subnets = await page.$$eval("#subnets tbody tr", (l) => l.length);
    out.storage = await page.$$eval("#storage tbody tr", (l) =>
      l.map((r) => r.dataset.claim));
    out.group_badges = await page.$$eval("#instance-groups tr[data-group] .badge",
      (l) => l.map((b) => b.textContent.trim()));
    await copyForms("add-group-form", "storage-form", "features-form");
    await shot("cluster");

    // ---- add an instance group
    await page.click("#add-group summary");
    await page.fill("#ig-group_name", "extra");
    await page.selectOption("#ig-instance_type", small[0]);
    await page.fill("#ig-count", "1");
    await page.click("#add-group-submit");
    out.group_op = await followOperation();
    await go("#/clusters/ui1");
    await page.waitForSelector("#instance-groups tr[data-group=extra]");
    out.groups = await page.$$eval("#instance-groups tr[data-group]", (l) =>
      l.map((r) => r.dataset.group));
    step("instance group");

    // ---- a refusal that names a panel links to it: a count over the
    // service quota leads to the instance groups panel
    await page.fill("#scale-workers", "1000");
    await page.click("#instance-groups tr[data-group=workers] button.scale");
    out.fix_quota = await page.waitForSelector(
      "#instance-groups a.fix[data-fix=quota]", { timeout: 30000 })
      .then((e) => e.textContent(), () => "");
    await look("cluster-quota-refused");
    if (out.fix_quota) {
      await page.click("#instance-groups a.fix[data-fix=quota]");
      out.fix_quota_url = await page.waitForURL(/panel=instance-groups/)
        .then(() => page.url().replace(/.*#/, "#"), () => "");
      out.fix_quota_focus = await page.waitForFunction(() =>
        document.activeElement && document.activeElement.id ===
        "instance-groups", null, { timeout: 30000 }).then(() => true,
        () => false);
    }

    // ---- every table sorts, filters and searches, its state in the URL
    await go("#/clusters/ui1");
    await page.waitForSelector("#group-list tr[data-group]");
    await page.click("#group-list th button[data-sort=name]");
    await page.click("#group-list th button[data-sort=name]");
    out.groups_sorted = await page.$$eval("#group-list tr[data-group]", (l) =>
      l.map((r) => r.dataset.group));
    await page.fill("#node-list-q", "no-such-node");
    await page.waitForFunction(() => !document.querySelector(
      "#nodes li[data-node]"));
    // the URL follows the render (an effect), so wait for it
    await page.waitForFunction(() => /nodes\.q=no-such-node/.test(
      location.hash), null, { timeout: 60000 }).catch(() => {});
    out.tables_url = page.url().replace(/.*#/, "#");
    // the state comes back with the link
    await go("#/operations");
    await page.waitForSelector("#operation-list");
    await go(out.tables_url.slice(1));
    await page.waitForSelector("#group-list tr[data-group]");
    out.tables_restored = {
      groups: await page.$$eval("#group-list tr[data-group]", (l) =>
        l.map((r) => r.dataset.group)),
      nodes: await page.$$eval("#nodes li[data-node]", (l) => l.length),
      search: await page.inputValue("#node-list-q"),
    };
    out.table_tools = await page.$$eval(".table-tools input[type=search]",
      (l) => l.map((e) => e.id));
    await page.fill("#node-list-q", "");
    await page.click("#group-list th button[data-sort=name]");
    // ---- the cluster page is live: an operation started elsewhere (the
    // API, as a script or an agent would) shows up without a reload
    {
      const nid = await page.getAttribute("#nodes li[data-node]", "data-node");
      const r = await page.request.post(url + "/api/v1/clusters/ui1/" +
        "nodes:reboot", { headers: { Authorization: "Bearer " + token },
        data: { node_ids: [nid] } });
      const opId = (await r.json()).operation_id;
      out.live_op = await page.waitForSelector(
        `#recent-ops li[data-operation='${opId}']`, { timeout: 90000 })
        .then(() => true, () => false);
      await page.waitForSelector(`#recent-ops li[data-operation='${opId}'] ` +
        ".state:is([data-state=succeeded],[data-state=failed])",
        { timeout: 240000 }).catch(() => {});
      const w = await page.request.get(url + `/api/v1/operations/${opId}`,
        { headers: { Authorization: "Bearer " + token } });
      out.live_op_state = (await w.json()).state;
      await look("cluster-live");
    }

    // ---- a storage claim from the form the OpenAPI document describes
    await page.click("#storage summary");
    await page.selectOption("#storage-form [data-field=kind]", "s3");
    await page.fill("#storage-form [data-field=claim]", "more-data");
    await page.fill("#storage-form [data-field=bucket]", "ui1-more-data");
    await page.check("#storage-form [data-field=create_bucket]");
    await page.click("#storage-form button[type=submit]");
    out.storage_op = await followOperation();
    await go("#/clusters/ui1");
    await page.waitForSelector("#storage tr[data-claim=more-data]");
    out.storage_after = await page.$$eval("#storage tbody tr", (l) =>
      l.map((r) => r.dataset.claim).sort());
    step("storage");

    // ---- features: nothing changed says so; the training operator on
    await page.waitForSelector("#features-form");
    await page.click("#features-apply");
    await page.waitForSelector("#features-msg:not(:empty)");
    out.no_change = await page.textContent("#features-msg");
    await page.check("#feat-training_operator");
    const sent = page.waitForRequest((r) => r.method() === "PATCH" &&
      /\/features$/.test(r.url()));
    await page.click("#features-apply");
    out.feature_body = (await sent).postDataJSON();
    out.feature_op = await followOperation();
    step("feature");

    // ---- a node's page: its SSM command, a health check, its events
    await go("#/clusters/ui1");
    await page.waitForSelector("#nodes li[data-node] .node-id a");
    const nodeId = await page.getAttribute("#nodes li[data-node]", "data-node");
    await page.click("#nodes li[data-node] .node-id a");
    await page.waitForSelector("#node dd[data-fact='SSM target']");
    out.node_url = page.url().replace(/.*#/, "#");
    out.ssm_target = await page.textContent("#node dd[data-fact='SSM target']");
    out.ssm_command = await page.inputValue("#ssm-command");
    await page.waitForSelector("#node-event-list tr[data-event]");
    out.node_events = await page.$$eval("#node-event-list tr[data-event] td:nth-child(4)",
      (l) => l.map((x) => x.textContent));
    out.node_id = nodeId;
    await marker("node", "#node");
    await tabWalk(page, "node");
    await shot("node");
    // the node page is live: a reboot started through the API shows up
    // and is followed over its stream to its end, without a reload
    {
      const r = await page.request.post(url + "/api/v1/clusters/ui1/" +
        "nodes:reboot", { headers: { Authorization: "Bearer " + token },
        data: { node_ids: [nodeId] } });
      const opId = (await r.json()).operation_id;
      out.node_live_op = await page.waitForSelector(
        `#node-ops li[data-operation='${opId}']`, { timeout: 90000 })
        .then(() => true, () => false);
      out.node_live_first = await page.getAttribute(
        `#node-ops li[data-operation='${opId}'] .state`, "data-state")
        .catch(() => "");
      out.node_live_end = await page.waitForSelector(
        `#node-ops li[data-operation='${opId}'] .state[data-state=succeeded]`,
        LONG).then(() => true, () => false);
      out.node_live_ws = out.ws_opened.includes("/ws/operations/" + opId);
      await look("node-live");
    }
    await page.click("#health-submit");
    await page.waitForSelector("#confirm[open]");
    out.health_confirm = await page.textContent("#confirm .confirm-text");
    await page.click("#confirm-yes");
    out.health_op = await followOperation();
    step("node");

    // ---- the cluster's events, filtered by level
    await go("#/clusters/ui1/events");
    await page.waitForSelector("#cluster-events tr[data-event]");
    out.events_all = await page.$$eval("#cluster-events tr[data-event]",
      (l) => l.length);
    out.event_levels = await page.$$eval("#ev-level option", (l) =>
      l.map((o) => o.value).filter((v) => v));
    await page.selectOption("#ev-level", "Info");
    const evq = page.waitForResponse((r) => /\/events\?.*level=Info/
      .test(r.url()));
    await page.click("#events-filter");
    out.events_filter_status = (await evq).status();
    await shot("events");
    step("events");

    // ---- task governance: the add-on on, a scheduler config, a quota
    await go("#/clusters/ui1");
    await page.waitForSelector("#feat-task_governance");
    await page.check("#feat-task_governance");
    await page.click("#features-apply");
    out.governance_op = await followOperation();
    await go("#/clusters/ui1/governance");
    await page.waitForSelector("#scheduler-form");
    await page.click("#add-priority");
    await page.fill("#scheduler-form tr[data-priority='0'] [data-field$='.name']",
      "high");
    await page.fill("#scheduler-form tr[data-priority='0'] [data-field$='.weight']",
      "90");
    await page.check("#scheduler-form [data-field=fair_share]");
    await page.click("#scheduler-submit");
    await page.waitForSelector("#scheduler-config .state:is([data-state=Created],[data-state=Creating])");
    out.scheduler_state = await page.getAttribute("#scheduler-config .state",
      "data-state");
    await copyForms("scheduler-form", "quota-form");
    await page.click("#add-quota summary");
    await page.fill("#quota-quota_name", "alpha-q");
    await page.fill("#quota-team", "alpha");
    await page.fill("#quota-count", "1");
    await page.click("#quota-submit");
    await page.waitForSelector("#compute-quotas tr[data-quota=alpha-q]");
    out.quota_row = await page.textContent("#compute-quotas tr[data-quota=alpha-q]");
    await shot("governance");
    await page.click("#compute-quotas tr[data-quota=alpha-q] button.quota-delete");
    await page.click("#confirm-yes");
    await page.waitForSelector("#compute-quotas tr[data-quota=alpha-q] .state:is([data-state=Deleting],[data-state=Deleted])," +
      "#compute-quotas p.muted:has-text('No quotas')");
    out.quota_deleted = true;
    step("governance");

    // ---- a training job: its log lines and the chart
    await go("#/training/ui1");
    await page.waitForSelector("#job-form");
    out.recipes = await page.$$eval(".tabs [role=tab]", (l) =>
      l.map((b) => b.textContent.trim()));
    await marker("jobs", "#jobs");
    await page.click("#recipe-pytorch");
    await page.fill("#tj-job_name", "sft1");
    await page.fill("#tj-dataset", "alpaca");
    await page.fill("#tj-model", "llama-3-8b");
    await page.fill("#tj-nodes", "1");
    await page.fill("#tj-gpus_per_node", "0");
    await page.fill("#tj-max_steps", "40");
    await page.fill("#tj-env", "STEP_SECONDS=1");
    await page.click("#job-submit");
    await page.waitForSelector("label:has(#tj-gpus_per_node) " +
      "[data-error-for=gpus_per_node]");
    out.job_field_error = await page.textContent(
      "[data-error-for=gpus_per_node]");
    await page.fill("#tj-gpus_per_node", "1");
    await shot("training");
    await page.click("#job-submit");
    await page.waitForURL(/#\/training\/ui1\/sft1$/);
    await page.waitForSelector("#pods tr[data-pod]", LONG);
    await page.waitForFunction(() => document.querySelectorAll(
      "#logs li").length >= 4, null, LONG);
    await page.waitForFunction(() => Number(document.querySelector(
      "#throughput").dataset.points) >= 2, null, LONG);
    await page.waitForSelector("#throughput canvas");
    out.log_role = await page.getAttribute("#logs", "role");
    out.log_lines = await page.$$eval("#logs li", (l) => l.map((x) =>
      x.textContent));
    out.log_seqs = await page.$$eval("#logs li", (l) => l.map((x) =>
      Number(x.dataset.seq)));
    out.chart_points = Number(await page.getAttribute("#throughput",
      "data-points"));
    await shot("job");
    await tabWalk(page, "job");
    out.job_progress = await page.textContent("#train-progress-label",
      { timeout: 30000 }).catch(() => "");
    out.loss_points = Number(await page.getAttribute("#loss", "data-points",
      { timeout: 30000 }).catch(() => 0));
    step("training");

    // ---- a request no node can hold is refused, naming the largest node
    await go("#/training/ui1");
    await page.waitForSelector("#job-form");
    await page.waitForSelector("#download-form", { state: "attached",
      timeout: 30000 }).catch(() => {});
    out.copy_buttons = await page.$$eval("#job-form button.copy", (l) =>
      l.map((b) => b.textContent.trim()));
    out.download_form = await page.$$eval("#download-form [data-field]",
      (l) => l.map((e) => e.dataset.field));
    await copyForms("job-form", "download-form");
    await page.fill("#tj-job_name", "big1");
    await page.fill("#tj-dataset", "alpaca");
    await page.fill("#tj-model", "llama-3-8b");
    await page.fill("#tj-gpus_per_node", "8");
    await page.click("#job-plan");
    await page.waitForSelector("[data-error-for=gpus_per_node]",
      { timeout: 30000 }).catch(() => {});
    out.gpu_fit_error = await page.textContent(
      "[data-error-for=gpus_per_node]", { timeout: 30000 }).catch(() => "");
    await page.fill("#tj-gpus_per_node", "1");
    out.gpu_error_cleared = await page.$$eval(
      "[data-error-for=gpus_per_node]", (l) => l.length) === 0;
    // ---- a job wider than the cluster (three pods, each with the GPU
    // of one of its two nodes, running long): why the third waits is shown
    await page.fill("#tj-job_name", "wide1");
    await page.fill("#tj-nodes", "3");
    await page.fill("#tj-max_steps", "100000");
    await page.fill("#tj-env", "STEP_SECONDS=1");
    await page.click("#job-plan");
    out.plan_yaml = await page.waitForSelector("#job-plan-yaml",
      { timeout: 30000 }).then(async () => (await page.textContent(
      "#job-plan-yaml")).slice(0, 400), () => "");
    await page.click("#job-submit");
    await page.waitForURL(/#\/training\/ui1\/wide1$/);
    out.stuck_reason = await page.waitForSelector("#why-stuck",
      { timeout: 120000 }).then(() => page.textContent("#why-stuck"),
      () => "");
    out.pod_reasons = await page.$$eval("#pods td.reason", (l) =>
      l.map((x) => x.textContent.trim()).filter((x) => x));
    out.pod_event = await page.waitForSelector(
      "#pod-events tr[data-reason=FailedScheduling]", { timeout: 60000 })
      .then((e) => e.textContent(), () => "");
    await marker("job", "#job");
    await shot("job-stuck");
    await page.click("#job-delete");
    out.job_delete_asks = await page.waitForSelector("#confirm[open]",
      { timeout: 30000 }).then(() => true, () => false);
    if (out.job_delete_asks) {
      out.job_delete_text = await page.textContent("#confirm .confirm-text");
      await page.click("#confirm-yes");
    }
    await page.waitForURL(/#\/training\/ui1$/);
    step("stuck job");

    // ---- the pages' side of the stream contract, where this stack has
    // no stream server: in a second tab whose /ws/ is answered by a
    // script speaking the contract with the stack's real data (an
    // operation's snapshot and end; the job's log lines with seq, the
    // first socket dropped after three lines and the page expected to
    // reconnect with after=3 and show each line once).
    if (out.ws_status !== 101) {
      const tab = await context.newPage();
      tab.on("pageerror", (e) => out.problems.push("pageerror: " + e));
      tab.on("console", (m) => {
        if (m.type() === "error") out.problems.push("console: " + m.text());
      });
      const real = await (await tab.request.get(url + "/api/v1/clusters/" +
        "ui1/training-jobs/sft1/logs?tail=2000")).json();
      const lines = real.pods[0].lines;
      const op = await (await tab.request.get(url + "/api/v1/operations/" +
        created.id)).json();
      out.contract_sockets = [];
      await tab.routeWebSocket(/\/ws\//, (ws) => {
        const u = new URL(ws.url());
        out.contract_sockets.push(u.pathname + u.search);
        if (u.pathname === "/ws/operations/" + created.id) {
          ws.send(JSON.stringify({ type: "snapshot", operation: op }));
          ws.send(JSON.stringify({ type: "update", operation: op }));
          ws.send(JSON.stringify({ type: "end", state: op.state }));
          ws.close({ code: 1000 });
          return;
        }
        const after = Number(u.searchParams.get("after") || 0);
        const first = after === 0;
        const upto = first ? 3 : lines.length;
        for (let i = after; i < upto; i++)
          ws.send(JSON.stringify({ type: "line", seq: i + 1, text: lines[i] }));
        if (first) ws.close({ code: 1011, reason: "dropped" });
        else {
          ws.send(JSON.stringify({ type: "end" }));
          ws.close({ code: 1000 });
        }
      });
      await tab.goto(url + "/#/operations/" + created.id);
      await tab.waitForSelector("#operation[data-live=ws][data-state=succeeded]");
      out.contract_op_stages = await tab.$$eval("ol.stages > li", (l) =>
        l.length);
      await tab.evaluate(() => { location.hash = "#/training/ui1/sft1"; });
      await tab.waitForSelector("#logs-ended");
      out.contract_log_seqs = await tab.$$eval("#logs li", (l) =>
        l.map((x) => Number(x.dataset.seq)));
      out.contract_log_lines = lines.length;
      await tab.close();
    }

    // ---- inference: deploy, see it ready, test-call it when offered
    await go("#/inference/ui1");
    await page.waitForSelector("#deploy-form");
    out.engines = await page.$$eval("[data-field=engine] option", (l) =>
      l.map((o) => o.value).filter((v) => v !== ""));
    // The form shows the members of the chosen shape only.
    const formFields = () => page.$$eval("#deploy-form [data-field]", (l) =>
      l.map((e) => e.dataset.field));
    out.shape_fields = {};
    for (const k of ["managed", "jumpstart", "self-hosted"]) {
      if (!await page.$("#shape-" + k)) continue;
      await page.click("#shape-" + k);
      await page.waitForSelector(`#shape-${k}[aria-selected=true]`);
      out.shape_fields[k] = await formFields();
    }
    await page.selectOption("[data-field=engine]", "vllm");
    await page.fill("[data-field=endpoint_name]", "chat");
    await page.fill("[data-field=model]", "llama-3-8b");
    await copyForms("deploy-form");
    await page.click("#deploy-plan");
    out.deploy_yaml = await page.waitForSelector("#deploy-plan-yaml",
      { timeout: 30000 }).then(async () => (await page.textContent(
      "#deploy-plan-yaml")).slice(0, 400), () => "");
    await look("inference-plan");
    await page.click("#deploy-submit");
    await page.waitForSelector("#endpoints [data-endpoint=chat]", LONG);
    await page.waitForSelector(
      "#endpoints [data-endpoint=chat] .state[data-state=Ready]", LONG);
    out.endpoint_ready = true;
    await marker("endpoints");
    out.invoke_offered = await page.$$eval(
      "#endpoints [data-endpoint=chat] .invoke-send", (l) => l.length) > 0;
    if (out.invoke_offered) {
      await page.click("#endpoints [data-endpoint=chat] .invoke-send");
      await page.waitForSelector("#endpoints [data-endpoint=chat] .answer",
        LONG);
      out.invoke_answer = await page.textContent(
        "#endpoints [data-endpoint=chat] .answer");
    }
    await shot("inference");
    step("inference");

    // ---- settings: a token made, listed and revoked; the agent set-up
    await go("#/settings");
    await page.waitForSelector("#token-form");
    await page.fill("#token-name", "ui-reader");
    await page.selectOption("#token-scope", "read");
    await page.click("#token-create");
    await page.waitForSelector("#token-made code");
    out.token_made = /^swt_/.test(await page.textContent("#token-made code"));
    await page.waitForSelector("#tokens tr[data-token=ui-reader] button.revoke");
    await page.click("#tokens tr[data-token=ui-reader] button.revoke");
    await page.click("#confirm-yes");
    await page.waitForSelector("#tokens tr[data-token=ui-reader] .state");
    out.token_revoked = await page.textContent(
      "#tokens tr[data-token=ui-reader] .state");
    await page.click("#agent-token-make");
    await page.waitForSelector("#agent-token");
    const agentToken = (await page.textContent("#agent-token")).trim();
    out.mcp_url = await page.textContent("#mcp-url");
    out.kiro_has_token = (await page.textContent("#kiro-snippet"))
      .includes(agentToken);
    out.claude_snippet = await page.textContent("#claude-snippet");
    out.claude_has_token = out.claude_snippet.includes(agentToken);
    await shot("settings");
    await tabWalk(page, "settings");
    step("settings");

    // ---- a read-only token, at desktop size in dark mode: each action it
    // may not take is disabled and says why on hover
    {
      const ro = await browser.newContext({ viewport: DESKTOP,
        colorScheme: "dark" });
      const rp = await ro.newPage();
      rp.on("pageerror", (e) => out.problems.push("ro pageerror: " + e));
      rp.on("console", (m) => {
        if (m.type() !== "error") return;
        const text = m.text();
        if (/^Failed to load resource: the server responded with a status of 401/
          .test(text) || /^WebSocket connection to .* failed/.test(text))
          return;
        out.problems.push("ro console: " + text);
      });
      await rp.goto(url + "/#/clusters/ui1");
      await rp.waitForSelector("#login-form");
      await rp.fill("#token", agentToken);
      await rp.click("#login-form button[type=submit]");
      await rp.waitForSelector("#nodes li[data-node] button.reboot");
      await rp.waitForSelector("#delete-cluster[data-needs-write]");
      out.read_only = await rp.evaluate(() => ["#delete-cluster",
        "#nodes li[data-node] button.reboot", "#add-group-submit",
        "#features-apply"].map((s) => {
        const b = document.querySelector(s);
        return b ? [s, b.disabled, b.title] : [s, null, ""];
      }));
      await shot("dark-read-only-cluster", rp);
      for (const [n, h, sel] of [["clusters", "#/clusters", "#cluster-list"],
        ["operations", "#/operations", "#operation-list"],
        ["job", "#/training/ui1/sft1", "#pods"],
        ["inference", "#/inference/ui1", "#deploy-form"]]) {
        await rp.evaluate((x) => { location.hash = x; }, h);
        await rp.waitForSelector(sel);
        await shot("dark-" + n, rp);
      }
      await ro.close();
    }

    // ---- log out, then Back: the login, never an empty page; logging in
    // returns to the page
    await page.click("#logout");
    await page.waitForSelector("#login-form");
    await page.goBack();
    out.back_after_logout = await page.waitForSelector("#login-form",
      { timeout: 15000 }).then(() => true, () => false);
    if (out.back_after_logout) {
      await page.fill("#token", token);
      await page.click("#login-form button[type=submit]");
      out.relogin_url = await page.waitForURL(/#\/settings/, { timeout:
        15000 }).then(() => page.url().replace(/.*#/, "#"),
        () => page.url().replace(/.*#/, "#"));
    } else {
      await page.goto(url + "/#/login");
      await page.fill("#token", token);
      await page.click("#login-form button[type=submit]");
    }
    await page.waitForSelector("#nav");
    step("logout");

    // ---- a phone (390 x 844, dark): a deep link survives the login;
    // every page fits the screen
    {
      const phone = await browser.newContext({ viewport: PHONE,
        colorScheme: "dark", hasTouch: true });
      const pp = await phone.newPage();
      pp.on("pageerror", (e) => out.problems.push("phone pageerror: " + e));
      pp.on("console", (m) => {
        if (m.type() !== "error") return;
        const text = m.text();
        if (/^Failed to load resource: the server responded with a status of 401/
          .test(text) || /^WebSocket connection to .* failed/.test(text))
          return;
        out.problems.push("phone console: " + text);
      });
      await pp.goto(url + "/#/clusters/ui1");
      await pp.waitForSelector("#login-form");
      await pp.fill("#token", token);
      await pp.click("#login-form button[type=submit]");
      out.deep_link = await pp.waitForSelector("#nodes", { timeout: 30000 })
        .then(() => pp.url().replace(/.*#/, "#"),
          () => pp.url().replace(/.*#/, "#"));
      const phonePages = [
        ["clusters", "#/clusters", "#cluster-list"],
        ["cluster", "#/clusters/ui1", "#nodes"],
        ["create", "#/create", "#create-form"],
        ["operations", "#/operations", "#operation-list"],
        ["operation", "#/operations/" + created.id, "#operation[data-state]"],
        ["events", "#/clusters/ui1/events", "#cluster-events"],
        ["node", "#/clusters/ui1/nodes/" + nodeId, "#node"],
        ["governance", "#/clusters/ui1/governance", "#scheduler-form"],
        ["training", "#/training/ui1", "#job-form"],
        ["job", "#/training/ui1/sft1", "#pods"],
        ["inference", "#/inference/ui1", "#deploy-form"],
        ["settings", "#/settings", "#token-form"],
      ];
      for (const [n, h, sel] of phonePages) {
        await pp.evaluate((x) => { location.hash = x; }, h);
        await pp.waitForSelector(sel);
        await shot("phone-" + n, pp);
      }
      await pp.evaluate(() => { location.hash = "#/clusters/ui1"; });
      await pp.waitForSelector("#group-list tr[data-group]");
      await tabWalk(pp, "phone-cluster");
      // the navigation is readable and the delete dialog fits
      await pp.evaluate(() => { location.hash = "#/clusters/ui1"; });
      await pp.waitForSelector("#delete-cluster");
      await pp.click("#delete-cluster");
      await pp.waitForSelector("#confirm[open]");
      await shot("phone-delete-dialog", pp);
      await pp.click("#confirm-no");
      await phone.close();
    }
    step("phone");

    // ---- tear down
    await go("#/clusters/ui1");
    await page.waitForSelector("#delete-cluster");
    await page.click("#delete-cluster");
    await page.waitForSelector("#confirm[open]");
    out.delete_needs_name = await page.isVisible("#confirm-name") &&
      await page.isDisabled("#confirm-yes");
    out.delete_list = await page.$$eval("#confirm-list li", (l) =>
      l.map((x) => x.textContent));
    await shot("delete-dialog");
    if (await page.isVisible("#confirm-name")) {
      await page.fill("#confirm-name", "ui");
      out.delete_wrong_name_disabled = await page.isDisabled("#confirm-yes");
      await page.fill("#confirm-name", "ui1");
    }
    await page.click("#confirm-yes");
    out.delete_op = await followOperation();
    await go("#/clusters");
    await page.waitForSelector("h1:has-text('Clusters in')");
    await page.waitForSelector("#cluster-list, main p:has-text('No clusters')");
    out.left = await page.$$eval("tr[data-cluster]", (l) =>
      l.map((r) => r.dataset.cluster));
    step("teardown");
  } catch (e) {
    out.error = String(e && e.stack || e);
    await shot("failure").catch(() => {});
  }
  await browser.close();
  console.log(JSON.stringify(out));
})();
