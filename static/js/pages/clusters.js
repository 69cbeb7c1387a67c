// clusters.js: the clusters of every account and region Slipway manages
// one in, each with its account, region, EKS and HyperPod status, live (re-read every 15 s, and at once when an unfinished
// operation changes: each followed over its stream), in a table that sorts, filters and
// searches with its state in the URL; importing a cluster made outside
// Slipway.
import { html, useEffect } from "../lib.js";
import { api, enc, openapi } from "../api.js";
import { OpForm } from "../opform.js";
import {
  Badge, Loading, ErrorText, useLive, Updated, useFollowOps,
} from "../ui.js";
import { DataTable } from "../table.js";

const COLUMNS = [
  { key: "name", label: "Name", cell: (c) => html`<a
    href=${"#/clusters/" + enc(c.name)}>${c.name}</a>` },
  { key: "account", label: "Account", filter: true,
    value: (c) => c.account || "—" },
  { key: "region", label: "Region", filter: true },
  { key: "managed", label: "Managed by", filter: true,
    value: (c) => (c.managed ? "Slipway" : "not managed") },
  { key: "eks_status", label: "EKS", filter: true,
    cell: (c) => html`<${Badge} state=${c.eks_status}/>` },
  { key: "hyperpod_status", label: "HyperPod", filter: true,
    cell: (c) => (c.hyperpod_status ? html`<${Badge}
      state=${c.hyperpod_status}/>` : "—") },
];

export function Clusters({ nav, query }) {
  const [st, reload] = useLive(nav, async () => {
    const [list, ops] = await Promise.all([api("GET", "/clusters"),
      api("GET", "/operations?limit=50").catch(() => ({ items: [] }))]);
    return { ...list, ops: ops.items || [] };
  }, [], 15000);
  const d = st.data;
  const following = useFollowOps(nav, d && d.ops, reload);
  const elsewhere = d && d.items.some((c) => c.region !== d.region ||
    (c.account && c.account !== d.items[0].account));
  return html`<section class="card">
    <h1>${!d ? "Clusters" : elsewhere ? "Clusters in every account and region"
      : "Clusters in " + d.region}</h1>
    <${Updated} st=${st} following=${following}/>
    ${st.loading && !d && !st.error && html`<${Loading}/>`}
    <${ErrorText} error=${st.error}/>
    ${d && (d.unreachable || []).map((u) => html`<p class="error">Account
      ${u.account || "(own)"} in ${u.region} could not be listed:
      ${u.message}</p>`)}
    ${d && (d.items.length ? html`<${DataTable} id="cluster-list"
      label="Clusters" columns=${COLUMNS} rows=${d.items} query=${query}
      rowAttrs=${(c) => ({ "data-cluster": c.name })}/>` :
      html`<p>No clusters yet.</p>`)}
    <div class="actions"><a class="button primary" href="#/create">Create a
      cluster</a> <a class="button" href="#/fleet" id="fleet-link">Plan a
      fleet document</a></div>
  </section>
  <${Import} nav=${nav} name=${query && query.get("import")}/>`;
}

// Adopt a cluster made outside Slipway (cluster_import).
function Import({ nav, name }) {
  const [st] = useLive(nav, openapi, [], 3600000);
  /* a "fix it" link of a 409 (not Slipway's) names the cluster */
  useEffect(() => {
    const el = name && st.data && document.getElementById("import-form-name");
    if (el) { el.scrollIntoView({ block: "center" }); el.focus(); }
  }, [name, !!st.data]);
  if (!st.data) return null;
  return html`<section class="card" id="import"><h2>Import a cluster</h2>
    <p class="muted">Adopt an EKS (+ HyperPod) cluster made outside
      Slipway; Slipway then manages it, and deleting it later only
      releases it.</p>
    <details class="add" open=${!!name}><summary>Import</summary>
      <${OpForm} nav=${nav} doc=${st.data} opId="cluster_import"
        method="POST" id="import-form" pathFields=${["name"]}
        initial=${name ? { name } : undefined}
        path=${(v) => "/clusters/" + enc(v.name || "") + ":import"}
        submit="Import cluster"/></details></section>`;
}
