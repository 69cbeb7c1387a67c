// app.js: Slipway's web UI.  Plain DOM, no framework; every page is a
// function of the route (#/clusters, #/create, #/operations/<id>, ...)
// and talks only to the REST API, with the session cookie set at login.
// Text from the API is always inserted as text, never as HTML.
"use strict";

const viewRoot = document.getElementById("view");
let navGen = 0;

// Each navigation renders into a fresh element: an answer that arrives
// after the user has moved on lands in a detached node, never on the
// page the user is looking at now.
function mount() {
  const el = h("div", { class: "page" });
  viewRoot.replaceChildren(el);
  return el;
}

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function badge(state) {
  return h("span", { class: "state " + (state || ""), "data-state": state || "" }, state || "?");
}

class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || "HTTP " + status);
    this.status = status;
    this.problem = problem || {};
  }
}

async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch("/api/v1" + path, opts);
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (r.status === 401 && path !== "/login") {
    location.hash = "#/login";
    throw new ApiError(401, data);
  }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

// Show a problem document: its detail, and each field error beside its
// input (inputs carry data-field="instance_groups[0].count" etc.).
function showProblem(form, err) {
  form.querySelectorAll(".field-error").forEach((e) => e.remove());
  const msg = form.querySelector(".error");
  if (msg) msg.textContent = err.message;
  for (const fe of err.problem.errors || []) {
    const input = form.querySelector(`[data-field="${CSS.escape(fe.field)}"]`);
    const note = h("div", { class: "field-error", "data-error-for": fe.field },
      fe.field + ": " + fe.message);
    if (input) input.closest("label").append(note);
    else if (msg) msg.append(h("br"), note);
  }
}

// ---- pages -----------------------------------------------------------

function pageLogin() {
  const view = mount();
  document.getElementById("nav").hidden = true;
  view.replaceChildren(document.getElementById("t-login").content.cloneNode(true));
  document.getElementById("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const token = document.getElementById("token").value.trim();
    try {
      await api("POST", "/login", { token });
      location.hash = "#/clusters";
    } catch (e) {
      document.getElementById("login-error").textContent = e.message;
    }
  });
}

async function pageClusters() {
  const view = mount();
  view.replaceChildren(h("section", { class: "card" }, h("h1", {}, "Clusters"),
    h("p", { class: "muted" }, "Loading…")));
  const data = await api("GET", "/clusters");
  const rows = data.items.map((c) => h("tr", { "data-cluster": c.name },
    h("td", {}, h("a", { href: "#/clusters/" + encodeURIComponent(c.name) }, c.name)),
    h("td", {}, c.managed ? "Slipway" : "not managed"),
    h("td", {}, badge(c.eks_status)),
    h("td", {}, c.hyperpod_status ? badge(c.hyperpod_status) : "—")));
  view.replaceChildren(h("section", { class: "card" },
    h("h1", {}, "Clusters in " + data.region),
    rows.length ? h("table", {}, h("thead", {}, h("tr", {},
      h("th", {}, "Name"), h("th", {}, "Managed by"), h("th", {}, "EKS"),
      h("th", {}, "HyperPod"))), h("tbody", {}, rows))
      : h("p", {}, "No clusters yet. ", h("a", { href: "#/create" }, "Create one."))));
}

async function pageCluster(name) {
  const view = mount();
  const [c, groups, nodes] = await Promise.all([
    api("GET", "/clusters/" + encodeURIComponent(name)),
    api("GET", "/clusters/" + encodeURIComponent(name) + "/instance-groups").catch(() => ({ items: [] })),
    api("GET", "/clusters/" + encodeURIComponent(name) + "/nodes").catch(() => ({ items: [] })),
  ]);
  const act = async (action, ids) => {
    if (!confirm(`${action} ${ids.length} node(s)?`)) return;
    const r = await api("POST", `/clusters/${encodeURIComponent(name)}/nodes:${action}`, { node_ids: ids });
    location.hash = "#/operations/" + r.operation_id;
  };
  view.replaceChildren(
    h("section", { class: "card" },
      h("h1", {}, name, " ", badge(c.eks.status), " ",
        c.hyperpod ? badge(c.hyperpod.status) : ""),
      h("p", { class: "muted" }, c.eks.arn || ""),
      c.hyperpod && c.hyperpod.failure_message
        ? h("p", { class: "error" }, c.hyperpod.failure_message) : null,
      h("div", { class: "actions" },
        h("button", { class: "danger", onclick: async () => {
          if (!confirm(`Delete ${name} and everything Slipway created for it?`)) return;
          const r = await api("DELETE", "/clusters/" + encodeURIComponent(name));
          location.hash = "#/operations/" + r.operation_id;
        } }, "Delete cluster"))),
    h("section", { class: "card" }, h("h2", {}, "Instance groups"),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Group"), h("th", {}, "Type"),
        h("th", {}, "Nodes"), h("th", {}, "Status"))),
      h("tbody", {}, groups.items.map((g) => h("tr", {},
        h("td", {}, g.name), h("td", {}, g.instance_type),
        h("td", {}, `${g.current_count} / ${g.target_count}`), h("td", {}, badge(g.status))))))),
    h("section", { class: "card" }, h("h2", {}, "Nodes"),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Node"), h("th", {}, "Group"),
        h("th", {}, "Type"), h("th", {}, "Status"), h("th", {}, ""))),
      h("tbody", {}, nodes.items.map((n) => h("tr", { "data-node": n.node_id },
        h("td", {}, n.node_id), h("td", {}, n.instance_group), h("td", {}, n.instance_type),
        h("td", {}, badge(n.status)),
        h("td", {}, h("button", { onclick: () => act("reboot", [n.node_id]) }, "Reboot"), " ",
          h("button", { class: "danger", onclick: () => act("replace", [n.node_id]) }, "Replace"))))))));
}

async function pageCreate() {
  const view = mount();
  const types = (await api("GET", "/instance-types?gpu_only=true")).items;
  const typeSel = h("select", { id: "instance_type", "data-field": "instance_groups[0].instance_type" },
    types.map((t) => h("option", { value: t.instance_type },
      `${t.instance_type} — ${t.gpus}× ${t.gpu_name}${t.efa_supported ? ", EFA" : ""}`)));
  const azSel = h("select", { id: "availability_zone", "data-field": "instance_groups[0].availability_zone" });
  const efa = h("input", { id: "efa_only", type: "checkbox", "data-field": "instance_groups[0].efa_only" });
  const syncType = () => {
    const t = types.find((x) => x.instance_type === typeSel.value);
    azSel.replaceChildren(...(t ? t.availability_zones : []).map((z) => h("option", { value: z }, z)));
    efa.disabled = !(t && t.efa_supported);
    if (efa.disabled) efa.checked = false;
  };
  typeSel.addEventListener("change", syncType);
  const field = (label, input) => h("label", {}, label, input);
  // The server validates (one set of rules for UI, REST and MCP) and
  // its per-field errors are shown beside the inputs.
  const form = h("form", { id: "create-form", novalidate: true },
    h("div", { class: "grid" },
      field("Cluster name", h("input", { id: "name", "data-field": "name", required: true,
        pattern: "[a-z][a-z0-9-]{0,30}[a-z0-9]", placeholder: "training-1" })),
      field("Instance group", h("input", { id: "group", "data-field": "instance_groups[0].name", value: "workers" })),
      field("Instance type", typeSel),
      field("Count", h("input", { id: "count", type: "number", min: 1, max: 1000, value: 2,
        "data-field": "instance_groups[0].count" })),
      field("Availability zone", azSel),
      field("Capacity", h("select", { id: "capacity_type", "data-field": "instance_groups[0].capacity_type" },
        h("option", { value: "on-demand" }, "On-demand"), h("option", { value: "spot" }, "Spot"))),
      field("S3 bucket for data (optional)", h("input", { id: "s3_bucket", "data-field": "storage.s3_bucket",
        placeholder: "my-training-data" })),
      field("Node recovery", h("select", { id: "node_recovery", "data-field": "node_recovery" },
        h("option", { value: "Automatic" }, "Automatic"), h("option", { value: "None" }, "None")))),
    h("label", { class: "inline" }, efa, "EFA-only network interfaces"),
    h("p", { class: "muted" }, "Network ranges, subnets, route tables and security groups are planned for you."),
    h("p", { class: "error" }),
    h("div", { class: "actions" },
      h("button", { type: "button", id: "plan" }, "Plan (dry run)"),
      h("button", { type: "submit", class: "primary", id: "create" }, "Create cluster")),
    h("ol", { class: "plan", id: "plan-list" }));
  const body = () => {
    const g = { name: form.querySelector("#group").value, instance_type: typeSel.value,
      count: Number(form.querySelector("#count").value), availability_zone: azSel.value,
      capacity_type: form.querySelector("#capacity_type").value };
    if (efa.checked) g.efa_only = true;
    const b = { name: form.querySelector("#name").value, instance_groups: [g],
      node_recovery: form.querySelector("#node_recovery").value };
    const bucket = form.querySelector("#s3_bucket").value.trim();
    if (bucket) b.storage = { s3_bucket: bucket };
    return b;
  };
  form.querySelector("#plan").addEventListener("click", async () => {
    const list = form.querySelector("#plan-list");
    list.replaceChildren();
    try {
      const p = await api("POST", "/clusters?dry_run=true", body());
      showProblem(form, { message: "", problem: {} });
      list.replaceChildren(...p.calls.map((c) => h("li", {},
        `${c.stage}: ${c.service ? c.service + " " + c.operation : "kubectl apply " + c.kind + "/" + c.name}`)));
    } catch (e) { showProblem(form, e); }
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const r = await api("POST", "/clusters", body());
      location.hash = "#/operations/" + r.operation_id;
    } catch (e) { showProblem(form, e); }
  });
  view.replaceChildren(h("section", { class: "card" }, h("h1", {}, "Create a cluster"), form));
  syncType();
}

async function pageOperations() {
  const view = mount();
  const data = await api("GET", "/operations?limit=100");
  view.replaceChildren(h("section", { class: "card" }, h("h1", {}, "Operations"),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Operation"), h("th", {}, "Kind"),
      h("th", {}, "Target"), h("th", {}, "State"), h("th", {}, "By"), h("th", {}, "Started"))),
    h("tbody", {}, data.items.map((o) => h("tr", {},
      h("td", {}, h("a", { href: "#/operations/" + o.id }, o.id)), h("td", {}, o.kind),
      h("td", {}, o.target), h("td", {}, badge(o.state)), h("td", {}, o.requested_by),
      h("td", {}, new Date(o.created_ms).toLocaleString())))))));
}

// The operation page follows the operation live: operation_wait returns
// as soon as it changes, so the stages update without polling blindly.
async function pageOperation(id) {
  const view = mount();
  const token = {};
  current = token;
  let since = -1;
  for (;;) {
    const op = await api("GET", "/operations/" + id);
    if (current !== token) return;
    renderOperation(view, op);
    if (["succeeded", "failed", "cancelled"].includes(op.state)) return;
    since = op.updated_ms;
    await api("GET", `/operations/${id}:wait?timeout=20&since_updated_ms=${since}`);
    if (current !== token) return;
  }
}

// A bar whose width is set through the CSSOM: the policy forbids inline
// style attributes, not style properties set from script.
function progressBar(pct) {
  const bar = h("div", { class: "bar" });
  bar.style.width = pct + "%";
  return h("div", { class: "progress", role: "progressbar", "aria-valuenow": String(pct),
    "aria-valuemin": "0", "aria-valuemax": "100" }, bar);
}

function renderOperation(view, op) {
  const done = op.stages.filter((s) => s.state === "succeeded" || s.state === "skipped").length;
  const pct = op.stages.length ? Math.round((100 * done) / op.stages.length) : 0;
  const retry = h("button", { id: "retry", disabled: !["failed", "cancelled"].includes(op.state),
    onclick: async () => { await api("POST", `/operations/${op.id}:retry`); pageOperation(op.id); } },
  "Retry failed stage");
  const cancel = h("button", { id: "cancel", class: "danger",
    disabled: ["succeeded", "failed", "cancelled"].includes(op.state),
    onclick: async () => { await api("POST", `/operations/${op.id}:cancel`); } }, "Cancel");
  view.replaceChildren(h("section", { class: "card", id: "operation", "data-state": op.state },
    h("h1", {}, `${op.kind} ${op.target} `, badge(op.state)),
    h("p", { class: "muted" }, `${op.id} · requested by ${op.requested_by}`),
    progressBar(pct),
    op.error ? h("p", { class: op.state === "failed" ? "error" : "muted" }, op.error) : null,
    h("ol", { class: "stages" }, op.stages.map((s) => h("li", { "data-stage": s.name },
      h("span", { class: "name" }, s.name), badge(s.state),
      h("span", { class: "detail" }, s.error || Object.keys(s.resources || {}).length + " resources"),
      h("span", { class: "muted" }, s.attempts > 1 ? `${s.attempts} attempts` : "")))),
    h("div", { class: "actions" }, retry, cancel),
    h("h2", {}, "Events"),
    h("pre", { class: "events" }, (op.events || []).map((e) =>
      `${new Date(e.time_ms).toISOString().slice(11, 19)} ${e.level.padEnd(5)} ${e.message}\n`).join(""))));
}

// ---- router ------------------------------------------------------------

let current = null;

async function route() {
  current = null;
  const gen = ++navGen;
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "login") return pageLogin();
    const me = await api("GET", "/whoami");
    document.getElementById("nav").hidden = false;
    document.getElementById("who").textContent = `${me.name} (${me.scope})`;
    if (parts[0] === "create") return await pageCreate();
    if (parts[0] === "operations" && parts[1]) return await pageOperation(parts[1]);
    if (parts[0] === "operations") return await pageOperations();
    if (parts[0] === "clusters" && parts[1]) return await pageCluster(parts[1]);
    return await pageClusters();
  } catch (e) {
    if (e.status === 401 || gen !== navGen) return;
    mount().replaceChildren(h("section", { class: "card" }, h("p", { class: "error" }, e.message)));
  }
}

document.getElementById("logout").addEventListener("click", async () => {
  await api("POST", "/logout").catch(() => {});
  location.hash = "#/login";
});
window.addEventListener("hashchange", route);
route();
