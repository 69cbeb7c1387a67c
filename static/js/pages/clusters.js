// clusters.js: the clusters of the region with their EKS and HyperPod
// status, live (re-read every 10 s), in a table that sorts, filters and
// searches with its state in the URL.
import { html } from "../lib.js";
import { api, enc } from "../api.js";
import { Badge, Loading, ErrorText, useLive, Updated } from "../ui.js";
import { DataTable } from "../table.js";

const COLUMNS = [
  { key: "name", label: "Name", cell: (c) => html`<a
    href=${"#/clusters/" + enc(c.name)}>${c.name}</a>` },
  { key: "managed", label: "Managed by", filter: true,
    value: (c) => (c.managed ? "Slipway" : "not managed") },
  { key: "eks_status", label: "EKS", filter: true,
    cell: (c) => html`<${Badge} state=${c.eks_status}/>` },
  { key: "hyperpod_status", label: "HyperPod", filter: true,
    cell: (c) => (c.hyperpod_status ? html`<${Badge}
      state=${c.hyperpod_status}/>` : "—") },
];

export function Clusters({ nav, query }) {
  const [st] = useLive(nav, () => api("GET", "/clusters"), [], 10000);
  const d = st.data;
  return html`<section class="card">
    <h1>${d ? "Clusters in " + d.region : "Clusters"}</h1>
    <${Updated} st=${st}/>
    ${st.loading && !d && !st.error && html`<${Loading}/>`}
    <${ErrorText} error=${st.error}/>
    ${d && (d.items.length ? html`<${DataTable} id="cluster-list"
      label="Clusters" columns=${COLUMNS} rows=${d.items} query=${query}
      rowAttrs=${(c) => ({ "data-cluster": c.name })}/>` :
      html`<p>No clusters yet.</p>`)}
    <div class="actions"><a class="button primary" href="#/create">Create a
      cluster</a></div>
  </section>`;
}
