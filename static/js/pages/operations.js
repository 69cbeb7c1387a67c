// operations.js: the timeline of operations, and one operation's page
// with every stage, its resources and its events as they are written,
// followed live (live.js), with retry and cancel.
import { html, useState, useEffect } from "../lib.js";
import { api, enc } from "../api.js";
import {
  Badge, Loading, ErrorText, useLoad, fmtTime, confirmAction,
} from "../ui.js";
import { followOperation } from "../live.js";

const TERMINAL = ["succeeded", "failed", "cancelled"];

export function Operations({ nav }) {
  const [st] = useLoad(nav, () => api("GET", "/operations?limit=100"), []);
  const items = (st.data && st.data.items) || [];
  return html`<section class="card">
    <h1>Operations</h1>
    ${st.loading && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    <ol class="timeline" id="operation-list">${items.map((o) => html`<li
      data-operation=${o.id} class=${"op " + o.state}>
      <time>${fmtTime(o.created_ms)}</time>
      <a href=${"#/operations/" + enc(o.id)}>${o.kind} ${o.target}</a>
      <${Badge} state=${o.state}/>
      <span class="muted">${o.id} · ${o.requested_by}</span></li>`)}</ol>
    ${st.data && items.length === 0 && html`<p>No operations yet.</p>`}
  </section>`;
}

export function Operation({ nav, id }) {
  const [op, setOp] = useState(null);
  const [via, setVia] = useState("");
  const [error, setError] = useState(null);
  const [gen, setGen] = useState(0);
  useEffect(() => followOperation(id, (o, how, err) => {
    if (!nav.current()) return;
    if (err) { setError(err); return; }
    setOp(o);
    setVia(how);
  }), [id, gen]);
  if (!op) return html`<section class="card"><h1>Operation ${id}</h1>
    ${error ? html`<${ErrorText} error=${error}/>` : html`<${Loading}/>`}
    </section>`;
  const done = op.stages.filter((s) => s.state === "succeeded" ||
    s.state === "skipped").length;
  const terminal = TERMINAL.includes(op.state);
  const act = async (what) => {
    try {
      if (what === "cancel" && !await confirmAction(`Cancel ${op.kind}
        ${op.target}?`)) return;
      await api("POST", `/operations/${enc(op.id)}:${what}`);
      if (nav.current()) { setError(null); setGen((g) => g + 1); }
    } catch (e) {
      if (nav.current()) setError(e);
    }
  };
  return html`<section class="card" id="operation" data-state=${op.state}
    data-live=${via}>
    <h1>${op.kind} ${op.target} <${Badge} state=${op.state}/></h1>
    <p class="muted">${op.id} · requested by ${op.requested_by} ·
      ${fmtTime(op.created_ms)} · ${via === "ws" ? "live" : "following"}</p>
    <label for="op-progress" class="progress-label">
      ${`${done} of ${op.stages.length} stages done`}
      <progress id="op-progress" max=${op.stages.length || 1}
        value=${done}></progress></label>
    ${op.error && html`<p class=${op.state === "failed" ? "error" : "muted"}>
      ${op.error}</p>`}
    <${ErrorText} error=${error}/>
    <ol class="stages">${op.stages.map((s) => html`<li data-stage=${s.name}
      data-state=${s.state}>
      <div class="stage-head"><span class="name">${s.name}</span>
        <${Badge} state=${s.state}/>
        <span class="muted">${s.attempts > 1 ? s.attempts + " attempts" :
          ""}</span></div>
      ${s.error && html`<p class="error">${s.error}</p>`}
      ${Object.keys(s.resources || {}).length > 0 && html`<details>
        <summary>${Object.keys(s.resources).length} resources</summary>
        <dl class="resources">${Object.entries(s.resources).map(([k, v]) =>
          html`<dt>${k}</dt><dd>${typeof v === "string" ? v :
            JSON.stringify(v)}</dd>`)}</dl></details>`}
    </li>`)}</ol>
    <div class="actions">
      <button type="button" id="retry" disabled=${!["failed",
        "cancelled"].includes(op.state)} onClick=${() => act("retry")}>
        Retry failed stage</button>
      <button type="button" id="cancel" class="danger" disabled=${terminal}
        onClick=${() => act("cancel")}>Cancel</button>
      ${op.cluster && html`<a class="button" href=${"#/clusters/" +
        enc(op.cluster)}>Cluster ${op.cluster}</a>`}
    </div>
    <h2>Events</h2>
    <ol class="events" id="events" role="log">${(op.events || []).map((e) =>
      html`<li class=${"event " + e.level}><time>${new Date(e.time_ms)
        .toISOString().slice(11, 19)}</time> <span class="level">
        ${e.level}</span> ${e.message}</li>`)}</ol>
  </section>`;
}
