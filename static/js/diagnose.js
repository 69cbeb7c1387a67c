// diagnose.js: the Diagnose button of a cluster, a failed operation and
// a stuck workload.  It asks diagnostics_cluster, which only reads and
// changes nothing, and lists its findings with the next step each one
// suggests.
import { html, useState } from "./lib.js";
import { api, enc } from "./api.js";
import { ErrorText } from "./ui.js";

export function Diagnose({ nav, cluster }) {
  const [st, setSt] = useState(null);
  if (!cluster) return null;
  const run = async () => {
    setSt({ busy: true });
    try {
      const d = await api("GET", "/clusters/" + enc(cluster) +
        "/diagnostics");
      if (nav.current()) setSt({ data: d });
    } catch (e) {
      if (nav.current()) setSt({ error: e });
    }
  };
  const f = (st && st.data && st.data.findings) || [];
  return html`<div class="diagnose">
    <button type="button" class="diagnose-run" disabled=${st && st.busy}
      onClick=${run}>${st && st.busy ? "Diagnosing…" : "Diagnose"}</button>
    <span class="hint">Reads the cluster's health; changes nothing.</span>
    ${st && st.error && html`<${ErrorText} error=${st.error}/>`}
    ${st && st.data && html`<ul class="findings" id="findings">
      ${f.map((x) => html`<li class=${"finding " + x.severity}
        data-severity=${x.severity}><strong>${x.severity}</strong>
        ${" " + x.finding}${x.suggested_next_step &&
          x.suggested_next_step !== "none" ? html`<br/><span class="muted">
          Next: ${x.suggested_next_step}</span>` : null}</li>`)}</ul>`}
  </div>`;
}
