// operations.js: the timeline of operations, and one operation's page
// with every stage, its resources and its events as they are written,
// followed live (live.js), with retry and cancel.  The timeline is a
// table filtered by cluster, kind, state and person, with durations;
// stages a failed or cancelled operation never reached say "not run".
import { html, useState, useEffect, useRef } from "../lib.js";
import { api, enc } from "../api.js";
import {
  Badge, Loading, ErrorText, useLive, Updated, Copy, fmtTime, fmtDuration,
  confirmAction, useFollowOps,
} from "../ui.js";
import { followOperation } from "../live.js";
import { DataTable } from "../table.js";
import { Diagnose } from "../diagnose.js";

const TERMINAL = ["succeeded", "failed", "cancelled"];

const OP_COLUMNS = [
  { key: "created_ms", label: "Started", cell: (o) => html`<time>${fmtTime(
    o.created_ms)}</time>` },
  { key: "what", label: "Operation", value: (o) => o.kind + " " + o.target,
    cell: (o) => html`<a href=${"#/operations/" + enc(o.id)}>${o.kind}
      ${" " + o.target}</a>` },
  { key: "cluster", label: "Cluster", filter: true },
  { key: "kind", label: "Kind", filter: true },
  { key: "state", label: "State", filter: true,
    cell: (o) => html`<${Badge} state=${o.state}/>` },
  { key: "requested_by", label: "Person", filter: true },
  { key: "duration", label: "Duration", value: (o) => (TERMINAL.includes(
    o.state) ? o.updated_ms : Date.now()) - o.created_ms,
    cell: (o) => fmtDuration((TERMINAL.includes(o.state) ? o.updated_ms :
      Date.now()) - o.created_ms) },
  { key: "id", label: "Id", cell: (o) => html`<code>${o.id}</code>
    <${Copy} text=${o.id} label=${"operation id " + o.id}/>` },
];

export function Operations({ nav, query }) {
  const [st, reload] = useLive(nav, () => api("GET",
    "/operations?limit=200"), [], 15000);
  const items = (st.data && st.data.items) || [];
  const following = useFollowOps(nav, items, reload);
  return html`<section class="card">
    <h1>Operations</h1>
    <${Updated} st=${st} following=${following}/>
    <p><a href="#/notifications" id="notifications-link">Notifications</a>:
      where results are sent, and the deliveries that failed.</p>
    ${st.loading && !st.data && !st.error && html`<${Loading}/>`}
    <${ErrorText} error=${st.error}/>
    ${st.data && html`<${DataTable} id="operation-list" label="Operations"
      columns=${OP_COLUMNS} rows=${items} query=${query}
      rowAttrs=${(o) => ({ "data-operation": o.id, class: "op " + o.state })}
      empty="No operations yet."/>`}
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
    <p class="muted"><code>${op.id}</code><${Copy} text=${op.id}
      label="operation id"/>${[" · requested by " + op.requested_by,
        fmtTime(op.created_ms), fmtDuration((terminal ? op.updated_ms :
          Date.now()) - op.created_ms), via === "ws" ? "live" : "following"]
        .join(" · ")}</p>
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
        <${Badge} state=${terminal && s.state === "pending" ? "not run" :
          s.state}/>
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
    ${op.state === "failed" && html`<${Diagnose} nav=${nav}
      cluster=${op.cluster}/>`}
    <h2>Events</h2>
    <${EventLog} events=${op.events || []}/>
  </section>`;
}

// The events box follows its tail while the reader is at the bottom;
// scrolled up, it stays where the reader is.  It takes the keyboard's
// focus so it scrolls without a mouse.
function EventLog({ events }) {
  const box = useRef(null);
  const atEnd = useRef(true);
  useEffect(() => {
    const b = box.current;
    if (b && atEnd.current) b.scrollTop = b.scrollHeight;
  }, [events.length]);
  return html`<div class="event-log" id="events" role="log" tabindex="0"
    aria-label="Events" ref=${box} onScroll=${(e) => {
      const b = e.currentTarget;
      atEnd.current = b.scrollTop + b.clientHeight >= b.scrollHeight - 4;
    }}>${events.map((e) => html`<p class=${"event " + e.level}>
      <time>${fmtTime(e.time_ms)}</time> <span class="level">${e.level}</span>
      ${" " + e.message}</p>`)}</div>`;
}
