// governance.js: task governance of one cluster, the cluster's events
// and one node.
//   Governance  the scheduler config (priority classes, fair share, idle
//               sharing) and the teams' compute quotas (list, create,
//               change, delete), each as SageMaker reports it, and
//               each team's use, borrowing and demand (team_usage)
//   Events      ListClusterEvents newest first, filtered by group, node,
//               resource type and level, a page at a time
//   Node        node_get (status, release, SSM target and the command
//               that opens a shell), a deep health check, its EBS
//               volumes (attach, detach), its events
// Every form reads its fields, limits and enums from the OpenAPI document.
import { html, useState } from "../lib.js";
import { api, enc, openapi, bodySchema, paramSchema } from "../api.js";
import { go } from "../router.js";
import {
  Badge, Loading, ErrorText, useLoad, SchemaField, FormErrors,
  problemErrors, buildBody, labelOf, scalarFields, confirmAction, fmtTime,
  useLive, Updated, useFollowOps, CopyRequest,
} from "../ui.js";
import { DataTable } from "../table.js";
import { OpForm } from "../opform.js";

const base = (name) => "/clusters/" + enc(name);

function Crumbs({ name, here }) {
  return html`<p class="muted crumbs"><a href="#/clusters">Clusters</a>
    ${" › "}<a href=${"#/clusters/" + enc(name)}>${name}</a>${" › "}${here}
    </p>`;
}

// ---- task governance

export function Governance({ nav, name, query }) {
  const [st, reload] = useLive(nav, async () => {
    const [doc, sc, quotas, groups, teams] = await Promise.all([openapi(),
      api("GET", base(name) + "/scheduler-config"),
      api("GET", base(name) + "/compute-quotas"),
      api("GET", base(name) + "/instance-groups").catch(() =>
        ({ items: [] })),
      api("GET", base(name) + "/teams").catch(() => ({ items: [] }))]);
    return { doc, sc, quotas: quotas.items, groups: groups.items,
      teams: teams.items };
  }, [name], 15000);
  const d = st.data;
  return html`<section class="card" id="governance">
      <${Crumbs} name=${name} here="Task governance"/>
      <h1>Task governance of ${name}</h1>
      <p class="muted">Teams get compute quotas; Kueue admits their
        workloads by queue and priority class.${" "}
        ${d && html`Task governance add-on:
          <${Badge} state=${d.sc.task_governance}/>`}</p>
      <${Updated} st=${st}/>
      ${st.loading && !d && !st.error && html`<${Loading}/>`}
      <${ErrorText} error=${st.error}/>
    </section>
    ${d && html`<${SchedulerConfig} nav=${nav} doc=${d.doc} name=${name}
      sc=${d.sc} reload=${reload}/>
    <${Quotas} nav=${nav} doc=${d.doc} name=${name} items=${d.quotas}
      groups=${d.groups} reload=${reload} query=${query}/>
    <${Teams} teams=${d.teams} query=${query}/>`}`;
}

// Each team's quota as Kueue enforces it: nominal, in use, borrowed,
// lent and waiting demand per instance type and resource (team_usage).
function Teams({ teams, query }) {
  const rows = [];
  for (const t of teams || []) {
    for (const r of t.resources || []) {
      rows.push({ key: t.cluster_queue + "/" + r.instance_type + "/" +
        r.resource, team: t.team || t.cluster_queue, ...r,
        waiting: t.pending_workloads });
    }
  }
  const num = (k) => (r) => (r[k] === undefined || r[k] === null ? "—" :
    String(Math.round(r[k] * 100) / 100));
  return html`<section class="card" id="team-usage"><h2>Teams: quota and
    use</h2>
    <p class="muted">Borrowed comes from other teams' idle quota; lent is
      this team's idle quota others use; pending is what its waiting jobs
      ask for. Change a quota above.</p>
    <${DataTable} id="team-usage-table" ns="teams" label="Team usage"
      rows=${rows} query=${query} rowAttrs=${(r) => ({ "data-team": r.team })}
      empty="No team queues (task governance off, or no quotas)."
      columns=${[
        { key: "team", label: "Team", filter: true },
        { key: "instance_type", label: "Instance type", filter: true },
        { key: "resource", label: "Resource", filter: true },
        { key: "nominal", label: "Quota", cell: num("nominal") },
        { key: "in_use", label: "In use", cell: num("in_use") },
        { key: "borrowed", label: "Borrowed", cell: num("borrowed") },
        { key: "lent", label: "Lent", cell: num("lent") },
        { key: "pending", label: "Pending", cell: num("pending") },
      ]}/></section>`;
}

function SchedulerConfig({ nav, doc, name, sc, reload }) {
  const schema = bodySchema(doc, "scheduler_config_set");
  const pc = (schema.properties && schema.properties.priority_classes) || {};
  const item = pc.items || {};
  const [rows, setRows] = useState(() => (sc.priority_classes || [])
    .map((p) => ({ name: p.name, weight: String(p.weight) })));
  const [flags, setFlags] = useState({ fair_share: !!sc.fair_share,
    idle_resource_sharing: !!sc.idle_resource_sharing });
  const [errors, setErrors] = useState({});
  const [msg, setMsg] = useState("");
  const setRow = (i, k, v) => setRows(rows.map((r, j) => j === i ?
    { ...r, [k]: v } : r));
  const bodyOf = () => ({ ...flags, priority_classes: rows.filter((r) =>
    r.name !== "" || r.weight !== "").map((r) => ({ name: r.name,
    weight: r.weight === "" ? r.weight : Number(r.weight) })) });
  const submit = async (e) => {
    e.preventDefault();
    setErrors({});
    const body = bodyOf();
    try {
      const r = await api("PUT", base(name) + "/scheduler-config", body);
      if (!nav.current()) return;
      setMsg("Scheduler config " + (r.status || "saved") + ".");
      reload();
    } catch (err) {
      if (nav.current()) setErrors(problemErrors(err));
    }
  };
  const shown = ["fair_share", "idle_resource_sharing"].concat(
    rows.flatMap((_, i) => ["priority_classes[" + i + "].name",
      "priority_classes[" + i + "].weight"]));
  return html`<section class="card" id="scheduler-config">
    <h2>Scheduler config</h2>
    ${sc.configured ? html`<p class="muted">${sc.config_name} ·
        <${Badge} state=${sc.status}/>
        ${sc.failure_reason && html` <span class="error">
          ${sc.failure_reason}</span>`}</p>`
      : html`<p class="muted">No scheduler config yet.</p>`}
    <form id="scheduler-form" novalidate onSubmit=${submit}>
      <table><thead><tr><th>Priority class</th><th>Weight</th><th></th>
        </tr></thead><tbody>${rows.map((r, i) => html`<tr
          data-priority=${i}>
        <td><${SchemaField} label=${"Priority class " + (i + 1)}
          field=${"priority_classes[" + i + "].name"}
          schema=${item.properties && item.properties.name} value=${r.name}
          errors=${errors} onChange=${(v) => setRow(i, "name", v)}/></td>
        <td><${SchemaField} label=${"Weight " + (i + 1)}
          field=${"priority_classes[" + i + "].weight"}
          schema=${item.properties && item.properties.weight}
          value=${r.weight} errors=${errors}
          onChange=${(v) => setRow(i, "weight", v)}/></td>
        <td><button type="button" class="remove-priority"
          onClick=${() => setRows(rows.filter((_, j) => j !== i))}>Remove
          </button></td></tr>`)}</tbody></table>
      <div class="actions">
        <button type="button" id="add-priority" disabled=${pc.maxItems !==
          undefined && rows.length >= pc.maxItems}
          title=${pc.maxItems !== undefined && rows.length >= pc.maxItems ?
            `At most ${pc.maxItems} priority classes` : null}
          onClick=${() => setRows([...rows, { name: "", weight: "" }])}>
          Add a priority class</button></div>
      ${["fair_share", "idle_resource_sharing"].map((k) => html`
        <${SchemaField} label=${labelOf(k)} field=${k}
          schema=${schema.properties && schema.properties[k]}
          value=${flags[k]} errors=${errors}
          onChange=${(v) => setFlags({ ...flags, [k]: v })}/>`)}
      <p class="muted" id="scheduler-msg" role="status">${msg}</p>
      <${FormErrors} errors=${errors} shown=${shown}/>
      <div class="actions"><button type="submit" class="primary"
        id="scheduler-submit">Save scheduler config</button>
        <${CopyRequest} method="PUT" path=${base(name) + "/scheduler-config"}
          body=${bodyOf()} tool="scheduler_config_set"
          args=${{ name, ...bodyOf() }}/></div>
    </form></section>`;
}

function Quotas({ nav, doc, name, items, groups, reload, query }) {
  const schema = bodySchema(doc, "compute_quota_create");
  const types = [...new Set(groups.map((g) => g.instance_type))];
  const [v, setV] = useState({ instance_type: types[0] || "" });
  const [edit, setEdit] = useState({});
  const [errors, setErrors] = useState({});
  const [err, setErr] = useState(null);
  const fields = scalarFields(schema);
  const create = async (e) => {
    e.preventDefault();
    setErrors({});
    try {
      await api("POST", base(name) + "/compute-quotas", buildBody(schema, v));
      if (!nav.current()) return;
      setV({ instance_type: types[0] || "" });
      reload();
    } catch (x) {
      if (nav.current()) setErrors(problemErrors(x));
    }
  };
  const act = async (fn) => {
    setErr(null);
    try { await fn(); if (nav.current()) reload(); } catch (x) {
      if (nav.current()) setErr(x);
    }
  };
  const countMin = schema.properties && schema.properties.count ?
    schema.properties.count : {};
  return html`<section class="card" id="compute-quotas">
    <h2>Compute quotas</h2>
    ${items.length === 0 && html`<p class="muted">No quotas.</p>`}
    ${items.length > 0 && html`<${DataTable} id="quota-list" ns="quotas"
      label="Compute quotas" rows=${items} query=${query}
      rowAttrs=${(q) => ({ "data-quota": q.quota_name })} columns=${[
        { key: "quota_name", label: "Quota" },
        { key: "team", label: "Team", filter: true },
        { key: "queue", label: "Queue", cell: (q) => html`<code>${q.queue}
          </code>` },
        { key: "resources", label: "Resources", value: (q) => (q.count !==
          undefined && q.count !== null ? q.count + " × " : "") +
          q.instance_type },
        { key: "sharing", label: "Sharing", value: (q) => q.sharing +
          (q.preempt ? " · preempt " + q.preempt : "") },
        { key: "status", label: "Status", filter: true,
          cell: (q) => html`<${Badge} state=${q.status}/>${q.failure_reason &&
            html`<div class="error">${q.failure_reason}</div>`}` },
        { key: "count", cell: (q) => html`<label class="compact"
          for=${"quota-count-" + q.quota_name}><span class="sr-only">Count
          for ${q.quota_name}</span><input type="number"
            id=${"quota-count-" + q.quota_name} data-field="count"
            min=${countMin.minimum} max=${countMin.maximum}
            value=${edit[q.quota_name] ?? (q.count ?? "")}
            onInput=${(e) => setEdit({ ...edit, [q.quota_name]:
              e.target.value })}/></label>
          <button type="button" class="quota-update" onClick=${() => act(() =>
            api("PATCH", base(name) + "/compute-quotas/" + enc(q.quota_name),
              { instance_type: q.instance_type,
                count: Number(edit[q.quota_name] ?? q.count) }))}>Change
          </button>` },
        { key: "del", cell: (q) => html`<button type="button"
          class="danger quota-delete" onClick=${() => act(async () => {
            if (await confirmAction(`Delete compute quota ${q.quota_name} of
              team ${q.team}?`))
              await api("DELETE", base(name) + "/compute-quotas/" +
                enc(q.quota_name));
          })}>Delete</button>` }]}/>`}
    <${ErrorText} error=${err}/>
    <details class="add" id="add-quota"><summary>Add a compute quota
      </summary>
      <form id="quota-form" novalidate onSubmit=${create}>
        <div class="grid">${fields.map((x) => html`<${SchemaField}
          label=${labelOf(x.name)} field=${x.name} id=${"quota-" + x.name}
          schema=${x.schema} value=${v[x.name]} errors=${errors}
          required=${(schema.required || []).includes(x.name) ||
            (x.name === "instance_type" && types.length > 0)}
          options=${x.name === "instance_type" && types.length > 0 ?
            types.map((t) => ({ value: t, label: t })) : undefined}
          onChange=${(val) => setV({ ...v, [x.name]: val })}/>`)}</div>
        <${FormErrors} errors=${errors} shown=${fields.map((x) => x.name)}/>
        <div class="actions"><button type="submit" class="primary"
          id="quota-submit">Create quota</button>
          <${CopyRequest} method="POST" path=${base(name) + "/compute-quotas"}
            body=${buildBody(schema, v)} tool="compute_quota_create"
            args=${{ name, ...buildBody(schema, v) }}/></div>
      </form></details></section>`;
}

// ---- events

const FILTERS = ["instance_group", "node_id", "resource_type", "level"];

// A page of the cluster's events; filters go to the server as they are.
export function EventList({ nav, doc, name, fixed, id, gen, query }) {
  const [filter, setFilter] = useState({});
  const [applied, setApplied] = useState({});
  const [pages, setPages] = useState([]);
  const q = { ...applied, ...(fixed || {}) };
  const qs = (cursor) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== "" && v !== undefined)
      p.set(k, v);
    p.set("limit", "25");
    if (cursor) p.set("cursor", cursor);
    return "?" + p.toString();
  };
  const [st] = useLoad(nav, async () => {
    const r = await api("GET", base(name) + "/events" + qs());
    setPages([r]);
    return r;
  }, [name, JSON.stringify(q), gen]);
  const more = async () => {
    const last = pages[pages.length - 1];
    try {
      const r = await api("GET", base(name) + "/events" + qs(last.next));
      if (nav.current()) setPages([...pages, r]);
    } catch (x) { /* the list keeps what it has */ }
  };
  const items = pages.flatMap((p) => p.items || []);
  const last = pages[pages.length - 1];
  const editable = FILTERS.filter((k) => !(fixed && k in fixed));
  return html`<div class="events" id=${id || "events"}>
    <form class="filters" novalidate onSubmit=${(e) => {
      e.preventDefault(); setApplied(filter);
    }}><div class="grid">${editable.map((k) => html`<${SchemaField}
      label=${labelOf(k)} field=${k} id=${"ev-" + k}
      schema=${paramSchema(doc, "cluster_events", k)} value=${filter[k]}
      onChange=${(val) => setFilter({ ...filter, [k]: val })}/>`)}</div>
      <div class="actions"><button type="submit" id="events-filter">
        Filter</button></div></form>
    ${st.loading && pages.length === 0 && html`<${Loading}/>`}
    <${ErrorText} error=${st.error}/>
    ${!st.loading && items.length === 0 && !st.error && html`<p
      class="muted">No events.</p>`}
    ${items.length > 0 && html`<${DataTable} id=${(id || "events") +
      "-table"} ns=${id || "events"} label="Events" rows=${items}
      query=${query} rowAttrs=${(e) => ({ "data-event": e.id,
        class: "level-" + e.level })} columns=${[
        { key: "time", label: "Time" },
        { key: "level", label: "Level", filter: true,
          cell: (e) => html`<${Badge} state=${e.level}/>` },
        { key: "about", label: "About", value: (e) => e.resource_type +
          (e.instance_group ? " " + e.instance_group : "") +
          (e.node_id ? " " + e.node_id : ""),
          cell: (e) => html`${e.resource_type}${e.instance_group ? " " +
            e.instance_group : ""}${e.node_id ? html` <a href=${"#/clusters/" +
            enc(name) + "/nodes/" + enc(e.node_id)}>${e.node_id}</a>` : ""}` },
        { key: "description", label: "Event" }]}/>`}
    ${last && last.next && html`<div class="actions"><button type="button"
      class="events-more" onClick=${more}>Older events</button></div>`}
  </div>`;
}

export function Events({ nav, name, query }) {
  const [st] = useLoad(nav, openapi, []);
  return html`<section class="card" id="cluster-events">
    <${Crumbs} name=${name} here="Events"/>
    <h1>Events of ${name}</h1>
    <p class="muted">What SageMaker recorded for the cluster, its groups and
      its nodes, newest first.</p>
    ${st.data ? html`<${EventList} nav=${nav} doc=${st.data} name=${name}
      query=${query}/>`
      : html`<${Loading}/>`}<${ErrorText} error=${st.error}/></section>`;
}

// ---- one node

export function Node({ nav, name, node, query }) {
  const [st, reload] = useLive(nav, async () => {
    const [doc, n, ops] = await Promise.all([openapi(),
      api("GET", base(name) + "/nodes/" + enc(node)),
      api("GET", "/operations?limit=50&cluster=" + enc(name)).catch(() =>
        ({ items: [] }))]);
    return { doc, n, ops: (ops.items || []).filter((o) =>
      /^node\./.test(o.kind)) };
  }, [name, node], 15000);
  const d = st.data;
  const following = useFollowOps(nav, d && d.ops, reload);
  return html`<section class="card" id="node" data-node=${node}>
      <${Crumbs} name=${name} here=${node}/>
      <h1>Node ${node} ${d && html`<${Badge} state=${d.n.status}/>`}</h1>
      <${Updated} st=${st} following=${following}/>
      ${st.loading && !d && !st.error && html`<${Loading}/>`}
      <${ErrorText} error=${st.error}/>
      ${d && html`<${NodeFacts} n=${d.n}/>`}
    </section>
    ${d && html`<${NodeOps} ops=${d.ops}/>
    <${HealthCheck} nav=${nav} doc=${d.doc} name=${name}
      node=${node}/>
    <${Volumes} nav=${nav} doc=${d.doc} name=${name} node=${node}/>
    <section class="card" id="node-events"><h2>Events of this node</h2>
      <${EventList} nav=${nav} doc=${d.doc} name=${name} gen=${st.at}
        query=${query}
        fixed=${{ node_id: node }} id="node-event-list"/></section>`}`;
}

// The cluster's node operations (reboots, replacements, health
// checks), each followed live while it runs.
function NodeOps({ ops }) {
  return html`<section class="card" id="node-ops"><h2>Node operations</h2>
    ${ops.length === 0 ? html`<p class="muted">None yet.</p>` : html`<ul
      class="plain">${ops.slice(0, 10).map((o) => html`<li
      data-operation=${o.id}><a href=${"#/operations/" + enc(o.id)}>${o.kind}
      ${" " + o.target}</a> <${Badge} state=${o.state}/>
      <span class="muted">${fmtTime(o.created_ms)}</span></li>`)}</ul>`}
    </section>`;
}

function NodeFacts({ n }) {
  const rows = [["Instance group", n.instance_group],
    ["Instance type", n.instance_type], ["Capacity", n.capacity_type],
    ["Availability zone", n.availability_zone], ["Hostname", n.hostname],
    ["Private IP", n.private_ip],
    ["Image release", n.image_release_version],
    ["Desired release", n.desired_image_release_version],
    ["Launched", n.launch_time ? fmtTime(n.launch_time * 1000) : ""],
    ["SSM target", n.ssm_target]];
  return html`
    ${n.message && html`<p class=${["Failure", "ShuttingDown"]
      .includes(n.status) ? "error" : "muted"}>${n.message}</p>`}
    <dl class="facts">${rows.filter(([, v]) => v).map(([k, v]) => html`
      <dt>${k}</dt><dd data-fact=${k}>${v}</dd>`)}</dl>
    ${n.ssm_command && html`<label for="ssm-command">A shell on this node
      (Session Manager)
      <input id="ssm-command" readonly value=${n.ssm_command}
        onFocus=${(e) => e.target.select()}/></label>`}`;
}

// EBS volumes on this node: attach one (node_volume_attach, with the
// EBS CSI driver add-on installed first when asked) or detach one
// (node_volume_detach); both lead to their operation's page.
function Volumes({ nav, doc, name, node }) {
  const at = base(name) + "/nodes/" + enc(node) + "/volumes";
  return html`<section class="card" id="node-volumes"><h2>EBS volumes</h2>
    <p class="muted">Only on an EKS cluster that is InService, for a node
      outside restricted instance groups; the volume must be available in
      the node's zone.</p>
    <details class="add"><summary>Attach a volume</summary>
      <${OpForm} nav=${nav} doc=${doc} opId="node_volume_attach"
        method="POST" id="volume-attach-form" cluster=${name}
        args=${{ name, node }} path=${() => at}
        submit="Attach volume"/></details>
    <details class="add"><summary>Detach a volume</summary>
      <${Detach} nav=${nav} doc=${doc} at=${at} node=${node}/></details>
    </section>`;
}

function Detach({ nav, doc, at, node }) {
  const [vol, setVol] = useState("");
  const [errors, setErrors] = useState({});
  const run = async (e) => {
    e.preventDefault();
    setErrors({});
    if (!await confirmAction(`Detach ${vol} from ${node}? Unmount it
      first: a workload still writing to it loses its writes.`)) return;
    try {
      const r = await api("DELETE", at + "/" + enc(vol));
      if (nav.current() && r && r.operation_id)
        go("#/operations/" + r.operation_id);
    } catch (x) {
      if (nav.current()) setErrors(problemErrors(x));
    }
  };
  return html`<form id="volume-detach-form" novalidate onSubmit=${run}>
    <${SchemaField} label="Volume" field="volume" id="volume-detach-volume"
      schema=${paramSchema(doc, "node_volume_detach", "volume")} value=${vol}
      errors=${errors} onChange=${setVol}/>
    <${FormErrors} errors=${errors}/>
    <div class="actions"><button type="submit" class="primary"
      id="volume-detach-submit" disabled=${!vol}>Detach volume</button></div>
  </form>`;
}

function HealthCheck({ nav, doc, name, node }) {
  const schema = bodySchema(doc, "node_health_check");
  const checks = ((schema.properties && schema.properties.checks &&
    schema.properties.checks.items) || {}).enum || [];
  const [want, setWant] = useState(Object.fromEntries(checks.map((c) =>
    [c, true])));
  const [errors, setErrors] = useState({});
  const run = async (e) => {
    e.preventDefault();
    setErrors({});
    const chosen = checks.filter((c) => want[c]);
    if (!await confirmAction(`Run ${chosen.join(" and ")} on ${node}? The
      node takes no work while it is checked.`)) return;
    try {
      const r = await api("POST", base(name) + "/nodes:health-check",
        { node_ids: [node], checks: chosen });
      if (nav.current() && r && r.operation_id)
        go("#/operations/" + r.operation_id);
    } catch (x) {
      if (nav.current()) setErrors(problemErrors(x));
    }
  };
  return html`<section class="card" id="health-check">
    <h2>Deep health check</h2>
    <p class="muted">${schema.properties && schema.properties.checks &&
      schema.properties.checks.description}</p>
    <form id="health-form" novalidate onSubmit=${run}>
      ${checks.map((c) => html`<${SchemaField} label=${c} field=${"check-" +
        c} schema=${{ type: "boolean" }} value=${want[c]}
        onChange=${(v) => setWant({ ...want, [c]: v })}/>`)}
      <${FormErrors} errors=${errors}/>
      <div class="actions"><button type="submit" class="primary"
        id="health-submit" disabled=${!checks.some((c) => want[c])}
        title=${checks.some((c) => want[c]) ? null :
          "Choose at least one check"}>Run
        health check</button></div>
    </form></section>`;
}
