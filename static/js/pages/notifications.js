// notifications.js: where operation and stage results, budget
// thresholds crossed, training plans about to end, and the changes the
// poller watches (job, endpoint and node health changes, HyperPod
// cluster events) are sent (the
// subscriptions, with their delivered and dead counts) and the outbox's
// deliveries, newest first: pending ones with their next attempt,
// delivered ones, and the dead letters with the last error.  A table
// filters by state, so "dead" lists the dead letters.  Read-only:
// subscriptions are made and deleted through the API or MCP.
import { html } from "../lib.js";
import { api, enc } from "../api.js";
import {
  Badge, Loading, ErrorText, useLive, Updated, fmtTime, CopyRequest,
} from "../ui.js";
import { DataTable } from "../table.js";

const SUB_COLUMNS = [
  { key: "name", label: "Name", filter: true },
  { key: "target", label: "Target", filter: true },
  { key: "address", label: "Sends to", cell: (s) => html`<code>
    ${s.address}</code>` },
  { key: "events", label: "Events", value: (s) => s.events.join(", ") },
  { key: "cluster", label: "Cluster", value: (s) => s.cluster || "all" },
  { key: "team", label: "Team", filter: true,
    value: (s) => s.team || "all" },
  { key: "created_by", label: "Owner" },
  { key: "delivered", label: "Delivered" },
  { key: "pending", label: "Pending" },
  { key: "dead", label: "Dead" },
];

const about = (d) => d.operation_id || (d.budget ? "budget " + d.budget :
  d.subject || "training plans" + (d.cluster ? " of " + d.cluster : ""));

const DELIVERY_COLUMNS = [
  { key: "time_ms", label: "Event at", cell: (d) => html`<time>${fmtTime(
    d.time_ms)}</time>` },
  { key: "kind", label: "Event", filter: true },
  { key: "operation_id", label: "About", value: about, cell: (d) =>
    d.operation_id ? html`<a href=${"#/operations/" + enc(
      d.operation_id)}>${d.operation_id}</a>` : d.budget ? html`<a
      href="#/costs">budget ${d.budget}</a>` : d.subject ?
      html`<span>${d.subject}</span>` : html`<a href="#/plans">
      ${about(d)}</a>` },
  { key: "subscription", label: "Subscription", filter: true },
  { key: "state", label: "State", filter: true,
    cell: (d) => html`<${Badge} state=${d.state}/>` },
  { key: "attempts", label: "Attempts" },
  { key: "last_error", label: "Last error", value: (d) => d.last_error ||
    "" },
  { key: "event_id", label: "Event id", cell: (d) => html`<code>
    ${d.event_id}</code>` },
];

export function Notifications({ nav, query }) {
  const [st] = useLive(nav, async () => {
    const [subs, deliveries] = await Promise.all([
      api("GET", "/subscriptions"), api("GET", "/deliveries?limit=500")]);
    return { subs, deliveries };
  }, [], 15000);
  const d = st.data;
  return html`<section class="card" id="notifications">
    <h1>Notifications</h1>
    <${Updated} st=${st}/>
    <p class="muted">Operation and stage results, budget thresholds
      crossed, training plans about to end, jobs that failed, succeeded,
      were preempted or recovered (job.*), endpoints that failed or
      recovered (endpoint.*), node health changes (node.unhealthy,
      node.recovered) and HyperPod cluster events (cluster.event), for
      everyone or one team, sent to webhooks, SNS topics and EventBridge
      buses; a delivery that failed every retry is dead (filter State:
      dead).</p>
    <${CopyRequest} method="GET" path="/deliveries?state=dead"
      tool="delivery_list"/>
    ${st.loading && !d && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${d && html`<h2>Subscriptions</h2><${DataTable} id="subscription-list"
      ns="subs" label="Subscriptions" columns=${SUB_COLUMNS}
      rows=${d.subs.items} query=${query}
      rowAttrs=${(s) => ({ "data-subscription": s.name })}
      empty="No subscriptions: make one with subscription_create."/>
    <h2>Deliveries</h2><${DataTable} id="delivery-list" ns="deliveries"
      label="Deliveries" columns=${DELIVERY_COLUMNS}
      rows=${d.deliveries.items} query=${query}
      rowAttrs=${(x) => ({ "data-event": x.event_id, "data-state": x.state })}
      empty="Nothing sent yet."/>`}
  </section>`;
}
