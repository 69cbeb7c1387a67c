// clusters.js: the clusters of the region with their EKS and HyperPod
// status.
import { html } from "../lib.js";
import { api, enc } from "../api.js";
import { Badge, Loading, ErrorText, useLoad } from "../ui.js";

export function Clusters({ nav }) {
  const [st] = useLoad(nav, () => api("GET", "/clusters"), []);
  const d = st.data;
  return html`<section class="card">
    <h1>${d ? "Clusters in " + d.region : "Clusters"}</h1>
    ${st.loading && html`<${Loading}/>`}
    <${ErrorText} error=${st.error}/>
    ${d && (d.items.length ? html`<table id="cluster-list">
      <thead><tr><th>Name</th><th>Managed by</th><th>EKS</th>
        <th>HyperPod</th></tr></thead>
      <tbody>${d.items.map((c) => html`<tr data-cluster=${c.name}>
        <td><a href=${"#/clusters/" + enc(c.name)}>${c.name}</a></td>
        <td>${c.managed ? "Slipway" : "not managed"}</td>
        <td><${Badge} state=${c.eks_status}/></td>
        <td>${c.hyperpod_status ? html`<${Badge}
          state=${c.hyperpod_status}/>` : "—"}</td></tr>`)}</tbody>
    </table>` : html`<p>No clusters yet.</p>`)}
    <div class="actions"><a class="button primary" href="#/create">Create a
      cluster</a></div>
  </section>`;
}
