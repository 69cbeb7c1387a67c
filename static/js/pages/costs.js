// costs.js: what ran and what it cost, from the usage ledger the poller
// keeps (cost_ledger): GPU-hours per team by day (a chart), each team's
// GPU-hours held and the idle GPU-hours of the nodes, each cluster and
// instance type's node-hours, all priced at AWS's on-demand prices; the
// same as CSV.  The period and cluster are kept in the URL.
import { html, useState } from "../lib.js";
import { api, enc } from "../api.js";
import { go } from "../router.js";
import { Loading, ErrorText, useLoad, fmtUsd, CopyRequest } from "../ui.js";
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
  const [st] = useLoad(nav, async () => {
    const [teams, byDay, nodes] = await Promise.all([
      api("GET", ledgerPath(p, "team")),
      api("GET", ledgerPath(p, "day,team")),
      api("GET", ledgerPath(p, "cluster,instance_type"))]);
    return { teams, byDay, nodes };
  }, [p.from, p.to, p.cluster]);
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
