// cluster.js: one cluster: its instance groups (capacity and EFA
// badges, the training plan a group runs on and its end; add, scale,
// delete), its nodes as a health grid (reboot and
// replace behind a confirmation), the features panel (explicit diff:
// only what changed is sent, and "no change" is said when nothing
// did), the EKS add-ons with their versions (upgrade to the newest
// compatible one), the teams' kubectl access (EKS access entries),
// storage claims and the compute subnets, and what differs from the
// fleet document applied last (the drift the poller recorded,
// fleet_drift_recorded: no plan is run to show the page); links to its task
// governance, its events and each node's page (pages/governance.js).
// The page is live: re-read every 15 s (statuses AWS holds) and at once
// when any unfinished operation on the cluster changes (each followed
// over its stream);
// its overview sums GPUs, nodes by health and AZs, and lists the recent
// operations.  Deleting the cluster asks for its name to be typed and
// lists what will go (the delete's dry run).
import { html, useState, useEffect } from "../lib.js";
import {
  api, enc, openapi, bodySchema, schemaAt, hasOp,
} from "../api.js";
import { go } from "../router.js";
import {
  Badge, Loading, ErrorText, SchemaField, FormErrors, problemErrors,
  buildBody, labelOf, scalarFields, confirmAction, useLive, Updated, Copy,
  fmtTime, fmtDuration, useFollowOps, CopyRequest, costText, fmtUsd,
} from "../ui.js";
import { Diagnose } from "../diagnose.js";
import { typeLabel } from "./create.js";
import { DataTable, useTable } from "../table.js";

const TERMINAL = ["succeeded", "failed", "cancelled"];

// "us-west-2" from an ARN.
export const arnRegion = (arn) => (arn || "").split(":")[3] || "";

const opt = (p) => p.catch(() => ({ items: [] }));

async function load(name) {
  const c = "/clusters/" + enc(name);
  const [doc, cluster, groups, nodes, features, storage, subnets, types,
    addons] = await Promise.all([openapi(), api("GET", c),
      opt(api("GET", c + "/instance-groups")), opt(api("GET", c + "/nodes")),
      api("GET", c + "/features").catch(() => null),
      opt(api("GET", c + "/storage")), opt(api("GET", c + "/compute-subnets")),
      opt(api("GET", "/instance-types?gpu_only=true")),
      opt(api("GET", c + "/addons"))]);
  const access = await api("GET", c + "/team-access").catch(() => null);
  const drift = await api("GET", "/fleet/drift/recorded?cluster=" +
    enc(name)).catch(() => null);
  return { doc, cluster, groups: groups.items, nodes: nodes.items, features,
    storage: storage.items, subnets: subnets.items, types: types.items,
    addons: addons.items, access, drift };
}

export function Cluster({ nav, name, query }) {
  const [st, reload] = useLive(nav, () => load(name), [name], 15000);
  const d = st.data;
  const following = useFollowOps(nav, d && d.cluster.recent_operations,
    reload);
  /* a "fix it" link names the panel that fixes a refusal: show it */
  const want = query && query.get("panel");
  useEffect(() => {
    const el = want && d && document.getElementById(want);
    if (!el) return;
    el.setAttribute("tabindex", "-1");
    el.scrollIntoView({ block: "start" });
    el.focus();
  }, [want, !!d]);
  if (!d) return html`<section class="card"><h1>${name}</h1>
    ${st.loading && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    </section>`;
  const c = d.cluster;
  const startOp = async (method, path, body) => {
    const r = await api(method, "/clusters/" + enc(name) + path, body);
    if (r && r.operation_id) go("#/operations/" + r.operation_id);
    return r;
  };
  const del = async () => {
    let items = [];
    try {
      const plan = await api("DELETE", "/clusters/" + enc(name) +
        "?dry_run=true");
      items = ((plan && plan.calls) || []).map((x) => x.stage + ": " +
        (x.service ? x.service + " " + x.operation : "kubectl delete " +
          x.kind + "/" + x.name));
      if (plan && plan.cost) items.unshift(costText(plan.cost));
    } catch (e) {
      items = ["(the plan could not be read: " + e.message + ")"];
    }
    if (!await confirmAction(`Delete cluster ${name} and everything
      Slipway created for it? This cannot be undone.`, { title:
      "Delete cluster " + name, items, typeName: name,
      yes: "Delete cluster" })) return;
    await startOp("DELETE", "");
  };
  const region = arnRegion(c.eks && c.eks.arn);
  const kubecfg = `aws eks update-kubeconfig --name ${name} --region ` +
    region;
  return html`
    <section class="card" id="cluster" data-cluster=${name}>
      <h1>${name} <${Badge} state=${c.eks && c.eks.status}/>
        ${c.hyperpod && html` <${Badge} state=${c.hyperpod.status}/>`}</h1>
      <${Updated} st=${st} following=${following}/>
      <dl class="facts">
        <dt>EKS ARN</dt><dd><code>${c.eks && c.eks.arn}</code>
          ${c.eks && c.eks.arn && html`<${Copy} text=${c.eks.arn}
            label="EKS ARN"/>`}</dd>
        ${c.hyperpod && c.hyperpod.arn && html`<dt>HyperPod ARN</dt><dd>
          <code>${c.hyperpod.arn}</code><${Copy} text=${c.hyperpod.arn}
            label="HyperPod ARN"/></dd>`}
        ${c.hyperpod && c.hyperpod.node_provisioning_mode && html`
          <dt>Node provisioning</dt><dd>${c.hyperpod.node_provisioning_mode}
          <span class="hint">scaling up adds nodes with
          BatchAddClusterNodes</span></dd>`}
        <dt>Kubernetes</dt><dd>${c.eks && c.eks.version}</dd>
        <dt>kubectl</dt><dd><code id="kubeconfig-cmd">${kubecfg}</code>
          <${Copy} text=${kubecfg} label="kubeconfig command"/>
          <span class="hint">context: ${c.eks && c.eks.arn}</span></dd>
      </dl>
      ${c.hyperpod && c.hyperpod.failure_message && html`<p class="error">
        ${c.hyperpod.failure_message}</p>`}
      <div class="actions">
        <a class="button" href=${"#/training/" + enc(name)}>Training</a>
        <a class="button" href=${"#/inference/" + enc(name)}>Inference</a>
        <a class="button" id="to-governance"
          href=${"#/clusters/" + enc(name) + "/governance"}>Task governance</a>
        <a class="button" id="to-events"
          href=${"#/clusters/" + enc(name) + "/events"}>Events</a>
        <a class="button" id="to-spaces"
          href=${"#/spaces/" + enc(name)}>Spaces</a>
        ${hasOp(d.doc, "cluster_software_update") && html`<button
          type="button" id="update-software" onClick=${async () => {
            if (!await confirmAction(`Update the software of ${name}'s
              nodes to the newest HyperPod image? Nodes are updated a
              batch at a time and restart.`, { title: "Update software",
              yes: "Update software" })) return;
            await startOp("POST", ":update-software");
          }}>Update software</button>`}
        <button class="danger" id="delete-cluster" onClick=${del}>Delete
          cluster</button>
      </div>
      <${Diagnose} nav=${nav} cluster=${name}/>
    </section>
    <${Overview} d=${d}/>
    <${RecentOps} name=${name} ops=${c.recent_operations}/>
    <${Groups} d=${d} name=${name} startOp=${startOp} query=${query}/>
    <${Nodes} name=${name} nodes=${d.nodes} startOp=${startOp}
      query=${query}/>
    ${d.features && html`<${Features} nav=${nav} doc=${d.doc} name=${name}
      focus=${query && query.get("feature")}
      features=${d.features.features} startOp=${startOp} reload=${reload}/>`}
    <${Addons} items=${d.addons} startOp=${startOp} name=${name}
      query=${query}/>
    ${d.access && html`<${TeamAccess} doc=${d.doc} access=${d.access}
      startOp=${startOp} name=${name} query=${query}/>`}
    ${d.drift && d.drift.applied && html`<${Drift} drift=${d.drift}/>`}
    <${Storage} nav=${nav} doc=${d.doc} items=${d.storage} name=${name}
      startOp=${startOp} query=${query}/>
    <${Subnets} items=${d.subnets} query=${query}/>`;
}

// GPUs, nodes by health, AZs and the cost per hour, summed from the
// groups and nodes (the cost from the server, priced by AWS).
function Overview({ d }) {
  const types = Object.fromEntries(d.types.map((t) => [t.instance_type, t]));
  let gpus = 0;
  for (const g of d.groups)
    gpus += (g.current_count || 0) * ((types[g.instance_type] || {}).gpus ||
      0);
  const health = {};
  for (const n of d.nodes) health[n.status] = (health[n.status] || 0) + 1;
  const azs = [...new Set(d.subnets.map((s) => s.availability_zone))];
  const cost = d.cluster.cost;
  return html`<section class="card" id="overview"><h2>Overview</h2>
    <dl class="summary">
      <div><dt>GPUs</dt><dd id="sum-gpus">${gpus}</dd></div>
      <div><dt>Nodes</dt><dd id="sum-nodes">${d.nodes.length}
        ${Object.entries(health).map(([k, v]) => html` <${Badge}
          state=${k}/> ${v}`)}</dd></div>
      <div><dt>Instance groups</dt><dd>${d.groups.length}</dd></div>
      <div><dt>Availability zones</dt><dd>${azs.join(", ") || "—"}</dd></div>
      <div><dt>Cost per hour</dt><dd id="sum-cost" title=${cost ?
        "On-demand prices from the AWS Price List API; excludes " +
        cost.excludes : ""}>${!cost ? "—" : cost.complete ?
        fmtUsd(cost.cluster_per_hour) : html`unknown <span class="muted">
        (no price for ${(cost.unknown || []).join(", ")})</span>`}</dd></div>
    </dl></section>`;
}

// The cluster's latest operations, with how long each took.
function RecentOps({ name, ops }) {
  if (!ops || !ops.length) return null;
  return html`<section class="card" id="recent-ops"><h2>Recent
    operations</h2><ul class="plain">${ops.map((o) => html`<li
      data-operation=${o.id}><a href=${"#/operations/" + enc(o.id)}>${o.kind}
      ${" " + o.target}</a> <${Badge} state=${o.state}/>
      <span class="muted">${fmtTime(o.created_ms)} · ${fmtDuration(
        (TERMINAL.includes(o.state) ? o.updated_ms : Date.now()) -
        o.created_ms)}</span></li>`)}</ul>
    <a href=${"#/operations?cluster=" + enc(name)}>All
      operations of this cluster</a></section>`;
}

// What differs from the fleet document applied last, as the poller
// recorded it at its last pass (fleet_drift_recorded): changes made
// outside Slipway, which `slipway apply -f` brings back, each with when
// Slipway first saw it (who made it is not known).
const utc = (ms) => new Date(ms).toISOString().replace("T", " ")
  .slice(0, 16) + " UTC";
function Drift({ drift }) {
  return html`<section class="card" id="drift"><h2>Fleet document</h2>
    <p class="muted">Applied by ${drift.applied_by}, ${utc(drift.applied_ms)}.
      </p>
    ${drift.items.length === 0 ? html`<p id="drift-none">No drift: the
      cluster is as the document says (at the last poll).</p>` : html`<p>
      Drift: apply the document again to bring it back, or export to
      adopt it.</p><ul>
      ${drift.items.map((c) => html`<li data-drift=${c.target}>
        ${c.target}: ${c.field} is ${JSON.stringify(c.live)}, the document
        says ${JSON.stringify(c.desired)}; first seen by Slipway
        ${utc(c.first_seen_ms)}, changed by ${c.changed_by}</li>`)}</ul>`}
  </section>`;
}

// Kubernetes access following the teams: the EKS access entry of each
// configured team role, its policy and namespace scope, and its state
// (present, differs, missing, stale); on, reconcile and off start
// team_access_set, after showing its dry run's calls.
function TeamAccess({ doc, access, startOp, name, query }) {
  const [err, setErr] = useState(null);
  const set = async (enabled) => {
    let items = [];
    try {
      const plan = await api("PUT", "/clusters/" + enc(name) +
        "/team-access?dry_run=true", { enabled });
      items = ((plan && plan.calls) || []).map((x) => x.stage + ": eks " +
        x.operation + (x.input && x.input.principalArn ? " " +
          x.input.principalArn : ""));
      if (items.length === 0) items = ["nothing to change"];
      if (!await confirmAction(enabled ? `Make kubectl access of ${name}
        follow the teams?` : `Remove the teams' access entries from
        ${name}?`, { title: "Team access", items,
        yes: enabled ? "Apply" : "Turn off" })) return;
      await startOp("PUT", "/team-access", { enabled });
    } catch (e) { setErr(e); }
  };
  const columns = [
    { key: "team", label: "Team", filter: true },
    { key: "role", label: "Role", filter: true },
    { key: "principal_arn", label: "IAM role",
      cell: (e) => html`<code>${e.principal_arn}</code>` },
    { key: "policy_arn", label: "Access policy",
      value: (e) => (e.policy_arn || "").split("/").pop() },
    { key: "scope", label: "Scope",
      value: (e) => (e.scope === "namespace" ? (e.namespaces || [])
        .join(", ") : e.scope || "") },
    { key: "state", label: "State", filter: true,
      cell: (e) => html`<span class=${e.state === "present" ? "" :
        "error"}>${e.state}</span>` },
  ];
  const may = hasOp(doc, "team_access_set") &&
    access.authentication_mode !== "CONFIG_MAP";
  return html`<section class="card" id="team-access"><h2>Team access
    (kubectl)</h2>
    <p>${access.enabled ? "On" : "Off"}: EKS authentication mode
      <code>${access.authentication_mode}</code>.
      <span class="hint">kubectl as a team role's IAM role sees that
      team's namespace only.</span></p>
    ${access.items.length > 0 && html`<${DataTable} id="team-access-list"
      ns="access" label="Team access entries" columns=${columns}
      rows=${access.items} query=${query}
      rowAttrs=${(e) => ({ "data-principal": e.principal_arn })}/>`}
    ${access.items.length === 0 && html`<p class="muted">No
      team.&lt;team&gt;.&lt;role&gt;.iam_role_arn is configured.</p>`}
    ${may && html`<div class="actions">
      <button type="button" id="team-access-on"
        onClick=${() => set(true)}>${access.enabled ? "Reconcile" :
        "Turn on"}</button>
      ${access.enabled && html`<button type="button" class="danger"
        id="team-access-off" onClick=${() => set(false)}>Turn
        off</button>`}</div>`}
    <${ErrorText} error=${err} cluster=${name}/></section>`;
}

// EKS add-ons against the versions EKS publishes for the cluster's
// Kubernetes version; an upgrade goes to the newest compatible one.
function Addons({ items, startOp, name, query }) {
  const [err, setErr] = useState(null);
  if (!items || items.length === 0) return null;
  const columns = [
    { key: "addon", label: "Add-on" },
    { key: "status", label: "Status", filter: true,
      cell: (a) => html`<${Badge} state=${a.status}/>` },
    { key: "installed_version", label: "Installed" },
    { key: "compatible", label: "Compatible", filter: true,
      value: (a) => (a.compatible ? "yes" : "no"),
      cell: (a) => html`<span class=${a.compatible ? "" : "error"}>${
        a.compatible ? "yes" : "no"}</span>` },
    { key: "newest_version", label: "Newest compatible",
      value: (a) => a.newest_version || "none published" },
    { key: "act", cell: (a) => a.upgrade_available && html`<button
      type="button" class="upgrade" onClick=${async () => {
        if (!await confirmAction(`Upgrade ${a.addon} to
          ${a.newest_version}?`)) return;
        try {
          await startOp("POST", "/addons/" + enc(a.addon) + ":upgrade");
        } catch (e) { setErr(e); }
      }}>Upgrade</button>` },
  ];
  return html`<section class="card" id="addons"><h2>Add-ons</h2>
    <${DataTable} id="addon-list" ns="addons" label="Add-ons"
      columns=${columns} rows=${items} query=${query}
      rowAttrs=${(a) => ({ "data-addon": a.addon })}/>
    <${ErrorText} error=${err} cluster=${name}/></section>`;
}

function capacityOf(hpGroup) {
  const req = hpGroup && hpGroup.CapacityRequirements;
  if (hpGroup && hpGroup.TrainingPlanArn) return "training-plan";
  if (req && req.Spot) return "spot";
  return "on-demand";
}

function Groups({ d, name, startOp, query }) {
  const hp = (d.cluster.hyperpod && d.cluster.hyperpod.instance_groups) || [];
  const types = Object.fromEntries(d.types.map((t) => [t.instance_type, t]));
  const [scale, setScale] = useState({});
  const [errors, setErrors] = useState({});
  const run = async (fn) => {
    try { await fn(); } catch (e) { setErrors(problemErrors(e)); }
  };
  const cs = schemaAt(bodySchema(d.doc, "instance_group_scale"), "count");
  const cap = (g) => capacityOf(hp.find((x) => x.InstanceGroupName ===
    g.name));
  const columns = [
    { key: "name", label: "Group" },
    { key: "instance_type", label: "Type", filter: true,
      cell: (g) => html`${g.instance_type} ${types[g.instance_type] &&
        types[g.instance_type].efa_supported &&
        html`<span class="badge efa">EFA</span>`}` },
    { key: "capacity", label: "Capacity", filter: true, value: cap,
      cell: (g) => html`<span class=${"badge capacity " + cap(g)}>
        ${cap(g)}</span>${g.training_plan && html` <a class="plan-end"
        href=${"#/plans/" + enc(g.training_plan.name)}>${
        g.training_plan.name} ends ${fmtTime(g.training_plan.end_time *
        1000)}</a>`}` },
    { key: "current_count", label: "Nodes",
      cell: (g) => `${g.current_count} / ${g.target_count}` },
    { key: "status", label: "Status", filter: true,
      cell: (g) => html`<${Badge} state=${g.status}/>` },
    { key: "scale", cell: (g) => html`<label class="compact"
      for=${"scale-" + g.name}><span class="sr-only">Count for
      ${g.name}</span><input type="number" id=${"scale-" + g.name}
        data-field="count" min=${cs.minimum ?? 0} max=${cs.maximum}
        value=${scale[g.name] ?? g.target_count}
        onInput=${(e) => setScale({ ...scale, [g.name]: e.target.value })}/>
      </label>
      <button type="button" class="scale" onClick=${() => run(() =>
        startOp("PATCH", "/instance-groups/" + enc(g.name),
          { count: Number(scale[g.name] ?? g.target_count) }))}>
        Scale</button>` },
    { key: "del", cell: (g) => html`<button type="button"
      class="danger delete-group" onClick=${() => run(async () => {
        if (await confirmAction(`Delete instance group ${g.name} and
          its nodes?`))
          await startOp("DELETE", "/instance-groups/" + enc(g.name));
      })}>Delete</button>` },
  ];
  return html`<section class="card" id="instance-groups">
    <h2>Instance groups</h2>
    <${DataTable} id="group-list" ns="groups" label="Instance groups"
      columns=${columns} rows=${d.groups} query=${query}
      rowAttrs=${(g) => ({ "data-group": g.name })}/>
    <${FormErrors} errors=${errors} cluster=${name}/>
    <${AddGroup} doc=${d.doc} types=${d.types} startOp=${startOp}
      name=${name}/>
  </section>`;
}

function AddGroup({ doc, types, startOp, name }) {
  const schema = bodySchema(doc, "instance_group_add");
  const first = types[0] || { availability_zones: [] };
  const [v, setV] = useState({ group_name: "", instance_type:
    first.instance_type, count: "1", availability_zone:
    first.availability_zones[0] || "", capacity_type: "" });
  const [errors, setErrors] = useState({});
  const type = types.find((t) => t.instance_type === v.instance_type);
  const set = (k) => (val) => {
    const n = { ...v, [k]: val };
    if (k === "instance_type") {
      const azs = (types.find((t) => t.instance_type === val) ||
        { availability_zones: [] }).availability_zones;
      if (!azs.includes(n.availability_zone)) n.availability_zone = azs[0] || "";
    }
    setV(n);
  };
  const f = (k, label, extra) => html`<${SchemaField} label=${label}
    field=${k} id=${"ig-" + k} schema=${schemaAt(schema, k)} value=${v[k]}
    onChange=${set(k)} errors=${errors} ...${extra || {}}/>`;
  return html`<details class="add" id="add-group">
    <summary>Add an instance group</summary>
    <form id="add-group-form" novalidate onSubmit=${async (e) => {
      e.preventDefault();
      try {
        await startOp("POST", "/instance-groups", buildBody(schema, v));
      } catch (err) { setErrors(problemErrors(err)); }
    }}>
      <div class="grid">
        ${f("group_name", "Group name")}
        ${f("instance_type", "Instance type", { required: true, options:
          types.map((t) => ({ value: t.instance_type, label: typeLabel(t) })) })}
        ${f("count", "Count")}
        ${f("availability_zone", "Availability zone", { required: true,
          options: (type ? type.availability_zones : []).map((z) =>
            ({ value: z, label: z })) })}
        ${f("capacity_type", "Capacity")}
      </div>
      <${FormErrors} errors=${errors} shown=${Object.keys(v)}/>
      <div class="actions"><button type="submit" class="primary"
        id="add-group-submit">Add group</button>
        <${CopyRequest} method="POST" path=${"/clusters/" + enc(name) +
          "/instance-groups"} body=${buildBody(schema, v)}
          tool="instance_group_add" args=${{ name, ...buildBody(schema,
            v) }}/></div>
    </form></details>`;
}

const NODE_COLUMNS = [
  { key: "node_id", label: "Node" },
  { key: "instance_group", label: "Group", filter: true },
  { key: "instance_type", label: "Type", filter: true },
  { key: "status", label: "Health", filter: true },
];

function Nodes({ name, nodes, startOp, query }) {
  const [err, setErr] = useState(null);
  const { shown, tools } = useTable({ id: "node-list", label: "Nodes",
    ns: "nodes", columns: NODE_COLUMNS, rows: nodes, query });
  const act = async (action, n) => {
    if (!await confirmAction(`${labelOf(action)} node ${n.node_id}
      (${n.instance_group})?`)) return;
    try {
      await startOp("POST", "/nodes:" + action, { node_ids: [n.node_id] });
    } catch (e) { setErr(e); }
  };
  return html`<section class="card" id="nodes"><h2>Nodes</h2>
    ${nodes.length === 0 ? html`<p class="muted">No nodes.</p>` :
      html`<div class="list-tools">${tools}</div>`}
    <ul class="node-grid">${shown.map((n) => html`<li
      class=${"node " + n.status} data-node=${n.node_id}>
      <div class="node-id"><a href=${"#/clusters/" + enc(name) + "/nodes/" +
        enc(n.node_id)}>${n.node_id}</a></div>
      <div class="muted">${n.instance_group} · ${n.instance_type}</div>
      <${Badge} state=${n.status}/>
      ${n.message && html`<div class=${["Failure", "ShuttingDown"]
        .includes(n.status) ? "error" : "muted"}>${n.message}</div>`}
      <div class="actions">
        <button type="button" class="reboot"
          onClick=${() => act("reboot", n)}>Reboot</button>
        <button type="button" class="danger replace"
          onClick=${() => act("replace", n)}>Replace</button></div>
    </li>`)}</ul><${ErrorText} error=${err} cluster=${name}/></section>`;
}

// The features panel.  Each toggle starts at the feature's state; the
// request carries only the toggles the user changed.
function Features({ nav, doc, name, features, startOp, reload, focus }) {
  /* a "fix it" link names the feature to turn on: show it */
  useEffect(() => {
    const el = focus && document.getElementById("feat-" + focus);
    if (el) { el.scrollIntoView({ block: "center" }); el.focus(); }
  }, [focus]);
  const schema = bodySchema(doc, "feature_set");
  const names = Object.keys(schema.properties || {})
    .filter((k) => features[k]);
  const initial = Object.fromEntries(names.map((k) => [k,
    !!features[k].enabled]));
  const [want, setWant] = useState(initial);
  const [extra, setExtra] = useState({});
  const [msg, setMsg] = useState("");
  const [errors, setErrors] = useState({});
  const diffOf = () => {
    const diff = {};
    for (const k of names) {
      if (want[k] === initial[k]) continue;
      const s = schema.properties[k];
      if (s.type === "boolean") diff[k] = want[k];
      else {
        const sub = Object.fromEntries(Object.entries(extra)
          .filter(([f]) => f.startsWith(k + "."))
          .map(([f, v]) => [f.slice(k.length + 1), v]));
        diff[k] = { ...buildBody(s, sub), enabled: want[k] };
      }
    }
    return diff;
  };
  const submit = async (e) => {
    e.preventDefault();
    const diff = diffOf();
    setErrors({});
    if (Object.keys(diff).length === 0) {
      setMsg("No change: every feature is already as shown.");
      return;
    }
    try {
      const r = await api("PATCH", "/clusters/" + enc(name) + "/features",
        diff);
      if (!nav.current()) return;
      if (r.operation_id) go("#/operations/" + r.operation_id);
      else { setMsg("No change."); reload(); }
    } catch (err) {
      if (nav.current()) setErrors(problemErrors(err));
    }
  };
  return html`<section class="card" id="features"><h2>Features</h2>
    <form id="features-form" novalidate onSubmit=${submit}>
      <ul class="features">${names.map((k) => {
        const f = features[k];
        const s = schema.properties[k];
        return html`<li data-feature=${k}>
          <${SchemaField} label=${labelOf(k)} field=${k} id=${"feat-" + k}
            schema=${{ type: "boolean" }} value=${want[k]} errors=${errors}
            onChange=${(val) => { setMsg(""); setWant({ ...want, [k]: val }); }}/>
          <${Badge} state=${f.status}/>
          ${f.needs && f.needs.length > 0 && html`<span class="muted">
            needs ${f.needs.join(", ")}</span>`}
          <span class="hint">${s.description}</span>
          ${s.type === "object" && want[k] && !initial[k] && html`<div
            class="grid">${scalarFields(s).filter((x) => x.name !== "enabled")
            .map((x) => html`<${SchemaField} label=${labelOf(x.name)}
              field=${k + "." + x.name} schema=${x.schema}
              value=${extra[k + "." + x.name]} errors=${errors}
              onChange=${(val) => setExtra({ ...extra,
                [k + "." + x.name]: val })}/>`)}</div>`}
        </li>`;
      })}</ul>
      <p class="muted" id="features-msg" role="status">${msg}</p>
      <${FormErrors} errors=${errors} shown=${names}/>
      <div class="actions"><button type="submit" class="primary"
        id="features-apply">Apply changes</button>
        <${CopyRequest} method="PATCH" path=${"/clusters/" + enc(name) +
          "/features"} body=${diffOf()} tool="feature_set"
          args=${{ name, ...diffOf() }}/></div>
    </form></section>`;
}

function Storage({ nav, doc, items, name, startOp, query }) {
  const schema = bodySchema(doc, "storage_add");
  const [v, setV] = useState({ kind: "s3", claim: "" });
  const [errors, setErrors] = useState({});
  const canDelete = hasOp(doc, "storage_delete");
  const fields = scalarFields(schema);
  return html`<section class="card" id="storage"><h2>Storage</h2>
    <${DataTable} id="storage-list" ns="storage" label="Storage"
      columns=${[
        { key: "claim", label: "Claim" },
        { key: "namespace", label: "Namespace", filter: true },
        { key: "kind", label: "Kind", filter: true },
        { key: "source", label: "Source",
          value: (x) => x.bucket || x.file_system_id || "" },
        { key: "status", label: "Status", filter: true,
          cell: (x) => html`<${Badge} state=${x.status}/>` },
        { key: "act", cell: (x) => canDelete && html`<button type="button"
          class="danger" onClick=${async () => {
            if (await confirmAction(`Delete claim ${x.claim}?`))
              await startOp("DELETE", "/storage/" + enc(x.claim));
          }}>Delete</button>` }]}
      rows=${items} query=${query}
      rowAttrs=${(x) => ({ "data-claim": x.claim })}/>
    <details class="add"><summary>Add storage</summary>
      <form id="storage-form" novalidate onSubmit=${async (e) => {
        e.preventDefault();
        try {
          await startOp("POST", "/storage", buildBody(schema, v));
        } catch (err) { if (nav.current()) setErrors(problemErrors(err)); }
      }}><div class="grid">${fields.map((x) => html`<${SchemaField}
        label=${labelOf(x.name)} field=${x.name} schema=${x.schema}
        required=${x.name === "kind"} value=${v[x.name]} errors=${errors}
        onChange=${(val) => setV({ ...v, [x.name]: val })}/>`)}</div>
        <${FormErrors} errors=${errors} shown=${fields.map((x) => x.name)}/>
        <div class="actions"><button type="submit" class="primary">Add
          storage</button>
          <${CopyRequest} method="POST" path=${"/clusters/" + enc(name) +
            "/storage"} body=${buildBody(schema, v)} tool="storage_add"
            args=${{ name, ...buildBody(schema, v) }}/></div></form></details>
  </section>`;
}

function Subnets({ items, query }) {
  return html`<section class="card" id="subnets"><h2>Compute subnets</h2>
    <${DataTable} id="subnet-list" ns="subnets" label="Compute subnets"
      columns=${[
        { key: "subnet_id", label: "Subnet" },
        { key: "availability_zone", label: "AZ", filter: true },
        { key: "cidr", label: "CIDR" },
        { key: "available_ips", label: "Free IPs" },
        { key: "groups", label: "Groups",
          value: (x) => (x.instance_groups || []).join(", ") }]}
      rows=${items} query=${query}/></section>`;
}
