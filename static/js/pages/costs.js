// costs.js: what ran and what it cost, from the usage ledger the poller
// keeps (cost_ledger): GPU-hours per team by day (a chart), each team's
// GPU-hours held and the idle GPU-hours of the nodes, each cluster and
// instance type's node-hours, all priced at AWS's on-demand prices; the
// same as CSV.  The period and cluster are kept in the URL.  Beside the
// ledger, the monthly budgets (budget_list): each team's or cluster's
// spend this month, its forecast, its limit and the thresholds crossed,
// and a form that sets one (budget_set).
import { html, useState } from "../lib.js";
import { api, enc, openapi, bodySchema, paramSchema, schemaAt } from
  "../api.js";
import { go } from "../router.js";
import { Loading, ErrorText, useLoad, fmtUsd, CopyRequest, SchemaField,
  FormErrors, problemErrors, confirmAction } from "../ui.js";
import { DataTable } from "../table.js";
import { DailyChart } from "../chart.js";

const day = (d) => d.toISOString().slice(0, 10);

function period(query) {
  const to = query.get("to") || day(new Date());
  const from = query.get("from") ||
    day(new Date(Date.parse(to) - 29 * 86400000));
  return { from, to, cluster: query.get("cluster") || "" };
}

function ledgerPath(p, groupBy, csv) {
  return "/costs/ledger?from=" + enc(p.from) + "&to=" + enc(p.to) +
    (p.cluster ? "&cluster=" + enc(p.cluster) : "") +
    "&group_by=" + groupBy + (csv ? "&format=csv" : "");
}

const hours = (k) => (r) => Number(r[k]).toLocaleString("en-US",
  { maximumFractionDigits: 1 });
const money = (k) => (r) => r[k] === null ? "unknown" : fmtUsd(r[k]);

export function Costs({ nav, query }) {
  const p = period(query);
  const [form, setForm] = useState(p);
  const [budgetsSeen, setBudgetsSeen] = useState(0);
  const [st] = useLoad(nav, async () => {
    const [teams, byDay, nodes, budgets, doc] = await Promise.all([
      api("GET", ledgerPath(p, "team")),
      api("GET", ledgerPath(p, "day,team")),
      api("GET", ledgerPath(p, "cluster,instance_type")),
      api("GET", "/budgets"), openapi()]);
    return { teams, byDay, nodes, budgets, doc };
  }, [p.from, p.to, p.cluster, budgetsSeen]);
  const d = st.data;
  const apply = (e) => {
    e.preventDefault();
    go("#/costs?from=" + enc(form.from) + "&to=" + enc(form.to) +
      (form.cluster ? "&cluster=" + enc(form.cluster) : ""));
  };
  let chart = null;
  if (d) {
    const days = [...new Set(d.byDay.items.map((r) => r.day))].sort();
    const teams = [...new Set(d.byDay.items.filter((r) => r.team)
      .map((r) => r.team))].sort();
    const series = teams.map((t) => ({ label: "team " + t,
      values: days.map((x) => Number((d.byDay.items.find((r) =>
        r.day === x && r.team === t) || {}).gpu_hours || 0)) }));
    series.push({ label: "idle", values: days.map((x) => d.byDay.items
      .filter((r) => r.day === x && !r.team)
      .reduce((a, r) => a + Number(r.idle_gpu_hours), 0)) });
    chart = html`<${DailyChart} id="gpu-chart" days=${days} series=${series}
      label="GPU-hours"/>`;
  }
  const tot = d && d.teams.totals;
  return html`<section class="card" id="costs"><h1>Costs</h1>
    <p><a href="#/plans" id="plans-link">Training plans</a>: reserved
      capacity paid up front, its end, and offerings to reserve.</p>
    <form class="inline" onSubmit=${apply}>
      <label>From <input type="date" id="cost-from" value=${form.from}
        onInput=${(e) => setForm({ ...form, from: e.target.value })}/></label>
      <label>To <input type="date" id="cost-to" value=${form.to}
        onInput=${(e) => setForm({ ...form, to: e.target.value })}/></label>
      <label>Cluster <input id="cost-cluster" value=${form.cluster}
        placeholder="all" onInput=${(e) => setForm({ ...form,
          cluster: e.target.value })}/></label>
      <button type="submit">Show</button>
      <a href=${"/api/v1" + ledgerPath(p, "day,cluster,team,job", true)}
        id="cost-csv" download="slipway-ledger.csv">CSV</a>
      <${CopyRequest} method="GET" path=${ledgerPath(p, "team")}
        tool="cost_ledger"/>
    </form>
    <p class="muted">On-demand prices from the AWS Price List API;
      GPU-hours are what workloads requested, idle is what no workload
      held.</p>
    ${st.loading && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${tot && html`<dl class="summary" id="cost-totals">
      <div><dt>Node-hours</dt><dd>${hours("node_hours")(tot)}</dd></div>
      <div><dt>Cost</dt><dd id="cost-usd">${money("usd")(tot)}</dd></div>
      <div><dt>GPU-hours held</dt><dd>${hours("gpu_hours")(tot)}</dd></div>
      <div><dt>Idle GPU-hours</dt><dd id="cost-idle">
        ${hours("idle_gpu_hours")(tot)}</dd></div></dl>`}
    ${d && html`<${Budgets} nav=${nav} doc=${d.doc} list=${d.budgets}
      query=${query} reload=${() => setBudgetsSeen((n) => n + 1)}/>`}
    ${chart}
    ${d && html`<h2>By team</h2><${DataTable} id="cost-teams" ns="teams"
      label="Cost by team" query=${query}
      rows=${d.teams.items.map((r) => ({ ...r, team: r.team || "(idle)" }))}
      rowAttrs=${(r) => ({ "data-team": r.team })}
      empty="Nothing ran in this period." columns=${[
        { key: "team", label: "Team", filter: true },
        { key: "gpu_hours", label: "GPU-hours", cell: hours("gpu_hours") },
        { key: "gpu_usd", label: "GPU cost", cell: money("gpu_usd") },
        { key: "idle_gpu_hours", label: "Idle GPU-hours",
          cell: hours("idle_gpu_hours") },
      ]}/>
    <h2>By cluster and instance type</h2><${DataTable} id="cost-nodes"
      ns="nodes" label="Cost by cluster" query=${query}
      rows=${d.nodes.items} empty="No nodes ran in this period." columns=${[
        { key: "cluster", label: "Cluster", filter: true },
        { key: "instance_type", label: "Instance type", filter: true },
        { key: "node_hours", label: "Node-hours", cell: hours("node_hours") },
        { key: "usd", label: "Cost", cell: money("usd") },
      ]}/>`}
  </section>`;
}

const pct = (k) => (r) => Number(r[k]).toLocaleString("en-US",
  { maximumFractionDigits: 1 }) + " %";

// The monthly budgets, by the ledger's clock, and a form that sets one.
function Budgets({ nav, doc, list, query, reload }) {
  const schema = bodySchema(doc, "budget_set");
  const [v, setV] = useState({ scope: "team", name: "", limit_usd: "",
    thresholds: "50,80,100" });
  const [errors, setErrors] = useState({});
  const body = { limit_usd: Number(v.limit_usd),
    thresholds: v.thresholds.split(",").map((x) => x.trim())
      .filter((x) => x !== "").map(Number) };
  const path = "/budgets/" + enc(v.scope) + "/" + enc(v.name);
  const set = async (e) => {
    e.preventDefault();
    try {
      await api("PUT", path, body);
      if (!nav.current()) return;
      setErrors({});
      reload();
    } catch (x) { if (nav.current()) setErrors(problemErrors(x)); }
  };
  const remove = async (b) => {
    if (!await confirmAction(`Remove the budget of ${b.scope} ${b.name}?`))
      return;
    await api("DELETE", "/budgets/" + enc(b.scope) + "/" + enc(b.name));
    reload();
  };
  return html`<h2>Budgets, ${list.month}</h2>
    <p class="muted">Soft monthly limits: they alert at their thresholds
      and stop nothing.  Spent is the ledger's cost of the month so far
      (as of ${list.as_of}); the forecast adds what the last sample burns
      an hour until the month's end.</p>
    <${DataTable} id="budgets" ns="budgets" label="Budgets" query=${query}
      rows=${list.items} rowAttrs=${(b) => ({ "data-budget":
        b.scope + "/" + b.name })}
      empty="No budget is set." columns=${[
        { key: "scope", label: "Scope", filter: true },
        { key: "name", label: "Team or cluster", filter: true },
        { key: "spent_usd", label: "Spent", cell: money("spent_usd") },
        { key: "forecast_usd", label: "Forecast",
          cell: money("forecast_usd") },
        { key: "limit_usd", label: "Limit", cell: money("limit_usd") },
        { key: "percent", label: "Spent of limit", cell: pct("percent") },
        { key: "alerts", label: "Crossed",
          value: (b) => b.alerts.map((a) => a.threshold).join(", "),
          cell: (b) => b.alerts.length ? b.alerts.map((a) => html`<span
            class="badge warn" title=${"at " + a.crossed_at}
            >${a.threshold} %</span> `) : "none" },
        { key: "remove", label: "", cell: (b) => html`<button type="button"
          class="danger" onClick=${() => remove(b)}>Remove</button>` },
      ]}/>
    <form id="budget-form" novalidate onSubmit=${set}><div class="grid">
      <${SchemaField} label="Scope" field="scope" id="budget-scope" required
        schema=${paramSchema(doc, "budget_set", "scope")} value=${v.scope}
        errors=${errors} onChange=${(x) => setV({ ...v, scope: x })}/>
      <${SchemaField} label="Team or cluster" field="name" id="budget-name"
        schema=${paramSchema(doc, "budget_set", "name")} value=${v.name}
        errors=${errors} onChange=${(x) => setV({ ...v, name: x })}/>
      <${SchemaField} label="Limit (USD a month)" field="limit_usd"
        id="budget-limit" schema=${schemaAt(schema, "limit_usd")}
        value=${v.limit_usd} errors=${errors}
        onChange=${(x) => setV({ ...v, limit_usd: x })}/>
      <${SchemaField} label="Alert at (percent)" field="thresholds"
        id="budget-thresholds" hint="Comma-separated, ascending."
        schema=${{ type: "string" }} value=${v.thresholds} errors=${errors}
        onChange=${(x) => setV({ ...v, thresholds: x })}/></div>
      <${FormErrors} errors=${errors}
        shown=${["scope", "name", "limit_usd", "thresholds"]}/>
      <div class="actions"><button type="submit" class="primary"
        id="budget-set">Set budget</button>
        <${CopyRequest} method="PUT" path=${path} body=${body}
          tool="budget_set" args=${{ scope: v.scope, name: v.name,
            ...body }}/></div></form>`;
}
