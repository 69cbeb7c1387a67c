// plans.js: SageMaker training plans (reserved capacity), reached from
// the Costs page and from a group on a plan on its cluster's page.  The
// list (training_plan_list) with status, end and the time left by AWS's
// clock; a search of offerings (training_plan_search: type, count,
// hours, AZ) whose rows reserve one: the dry run shows the upfront fee
// and the purchase is confirmed before anything is bought
// (training_plan_reserve).  A plan's page (training_plan_get) names
// the instance groups that run on it, its extension history, and
// extends it the same way (training_plan_extend).
import { html, useState } from "../lib.js";
import { api, enc, openapi, paramSchema, bodySchema, schemaAt } from
  "../api.js";
import { go } from "../router.js";
import {
  Badge, Loading, ErrorText, useLive, useLoad, Updated, fmtTime,
  fmtDuration, fmtUsd, CopyRequest, SchemaField, FormErrors, problemErrors,
  confirmAction,
} from "../ui.js";
import { DataTable } from "../table.js";

const secs = (v) => fmtDuration(v === undefined ? undefined : v * 1000);
const when = (v) => fmtTime(v ? v * 1000 : 0);

const PLAN_COLUMNS = [
  { key: "TrainingPlanName", label: "Plan", cell: (p) => html`<a
    href=${"#/plans/" + enc(p.TrainingPlanName)}>${p.TrainingPlanName}</a>` },
  { key: "Status", label: "Status", filter: true,
    cell: (p) => html`<${Badge} state=${p.Status}/>` },
  { key: "type", label: "Capacity", value: (p) => {
    const rc = (p.ReservedCapacitySummaries || [])[0] || {};
    return `${p.TotalInstanceCount} × ${rc.InstanceType || "?"} in ` +
      `${rc.AvailabilityZone || "?"}`;
  } },
  { key: "EndTime", label: "Ends", value: (p) => when(p.EndTime) },
  { key: "remaining_seconds", label: "Left",
    value: (p) => secs(p.remaining_seconds) },
  { key: "UpfrontFee", label: "Upfront fee",
    value: (p) => fmtUsd(Number(p.UpfrontFee)) },
];

// Dry run first: the fee, then the purchase once confirmed.
async function buy(nav, path, body, what) {
  const plan = await api("POST", path + "?dry_run=true", body);
  const p = plan.purchase || {};
  if (!nav.current()) return;
  if (!await confirmAction(`${what}: ${fmtUsd(p.upfront_fee)} ` +
    `${p.currency || ""} up front, from ${when(p.start_time)} to ` +
    `${when(p.end_time)}.`, { title: "Buy reserved capacity?" }))
    return;
  const r = await api("POST", path, body);
  if (nav.current() && r.operation_id) go("#/operations/" + r.operation_id);
}

function Search({ nav, doc }) {
  const [v, setV] = useState({ count: "1", duration_hours: "24" });
  const [name, setName] = useState("");
  const [found, setFound] = useState(null);
  const [errors, setErrors] = useState({});
  const f = (k) => paramSchema(doc, "training_plan_search", k);
  const q = () => "/training-plan-offerings?" + ["instance_type", "count",
    "duration_hours", "availability_zone"].filter((k) => v[k])
    .map((k) => k + "=" + enc(v[k])).join("&");
  const search = async (e) => {
    e.preventDefault();
    try {
      const r = await api("GET", q());
      if (nav.current()) { setErrors({}); setFound(r.items); }
    } catch (err) {
      if (nav.current()) setErrors(problemErrors(err));
    }
  };
  const reserve = (o) => async () => {
    try {
      await buy(nav, "/training-plans", { name, instance_type:
        v.instance_type, count: Number(v.count), duration_hours:
        Number(v.duration_hours), offering_id: o.offering_id,
        ...(v.availability_zone ? { availability_zone:
          v.availability_zone } : {}) }, `Reserve ${o.count} × ` +
        `${o.instance_type} as plan ${name}`);
    } catch (err) {
      if (nav.current()) setErrors(problemErrors(err));
    }
  };
  const columns = [
    { key: "availability_zone", label: "AZ" },
    { key: "start_time", label: "Starts", value: (o) => when(o.start_time) },
    { key: "end_time", label: "Ends", value: (o) => when(o.end_time) },
    { key: "upfront_fee", label: "Upfront fee",
      value: (o) => fmtUsd(o.upfront_fee) },
    { key: "buy", cell: (o) => html`<button type="button" class="primary
      reserve" onClick=${reserve(o)}>Reserve…</button>` },
  ];
  return html`<section class="card" id="plan-search">
    <h2>Search offerings</h2>
    <form id="plan-search-form" novalidate onSubmit=${search}>
      <div class="grid">
        ${["instance_type", "count", "duration_hours",
          "availability_zone"].map((k) => html`<${SchemaField} label=${k
          .replace(/_/g, " ")} field=${k} id=${"plan-" + k} schema=${f(k)}
          value=${v[k]} errors=${errors} required=${k === "instance_type"}
          onChange=${(x) => setV({ ...v, [k]: x })}/>`)}
        <${SchemaField} label="plan name" field="name" id="plan-name"
          schema=${schemaAt(bodySchema(doc, "training_plan_reserve"),
            "name")} value=${name} errors=${errors} onChange=${setName}/>
      </div>
      <${FormErrors} errors=${errors} shown=${["instance_type", "count",
        "duration_hours", "availability_zone", "name"]}/>
      <div class="actions"><button type="submit" id="plan-search-submit">
        Search</button>
        <${CopyRequest} method="GET" path=${q()} tool="training_plan_search"
          args=${v}/></div>
    </form>
    ${found && html`<${DataTable} id="offering-list" ns="offerings"
      label="Offerings" columns=${columns} rows=${found}
      rowAttrs=${(o) => ({ "data-offering": o.offering_id })}
      empty="No offering fits: try another window, count or AZ."/>`}
  </section>`;
}

export function Plans({ nav, query }) {
  const [st] = useLive(nav, async () => {
    const [list, doc] = await Promise.all([api("GET", "/training-plans"),
      openapi()]);
    return { list, doc };
  }, [], 15000);
  const d = st.data;
  return html`<section class="card" id="plans"><h1>Training plans</h1>
    <${Updated} st=${st}/>
    <p class="muted">Reserved capacity for HyperPod instance groups and
      training jobs. A group on a plan loses its nodes when the plan ends;
      subscribe to training_plan.expiring to be warned before.</p>
    ${st.loading && !d && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${d && html`<${DataTable} id="plan-list" ns="plans" label="Training plans"
      columns=${PLAN_COLUMNS} rows=${d.list.items} query=${query}
      rowAttrs=${(p) => ({ "data-plan": p.TrainingPlanName })}
      empty="No training plans."/>`}
  </section>
  ${d && html`<${Search} nav=${nav} doc=${d.doc}/>`}`;
}

const EXT_COLUMNS = [
  { key: "StartDate", label: "From", value: (x) => when(x.StartDate) },
  { key: "EndDate", label: "To", value: (x) => when(x.EndDate) },
  { key: "DurationHours", label: "Hours" },
  { key: "UpfrontFee", label: "Fee", value: (x) => fmtUsd(Number(
    x.UpfrontFee)) },
  { key: "Status", label: "Status" },
  { key: "PaymentStatus", label: "Payment" },
];

const GROUP_COLUMNS = [
  { key: "cluster", label: "Cluster", cell: (g) => html`<a
    href=${"#/clusters/" + enc(g.cluster)}>${g.cluster}</a>` },
  { key: "group", label: "Instance group" },
  { key: "count", label: "Instances" },
];

export function Plan({ nav, name }) {
  const [hours, setHours] = useState("24");
  const [errors, setErrors] = useState({});
  const [st] = useLoad(nav, async () => {
    const [plan, doc] = await Promise.all([api("GET", "/training-plans/" +
      enc(name)), openapi()]);
    return { ...plan, doc };
  }, [name]);
  const p = st.data;
  const extend = async (e) => {
    e.preventDefault();
    try {
      await buy(nav, "/training-plans/" + enc(name) + ":extend",
        { duration_hours: Number(hours) }, `Extend ${name} by ${hours} h`);
    } catch (err) {
      if (nav.current()) setErrors(problemErrors(err));
    }
  };
  return html`<section class="card" id="training-plan"><h1>Training plan ${name}</h1>
    ${st.loading && !p && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${p && html`<p><${Badge} state=${p.status}/> ends
      <time id="plan-end">${when(p.end_time)}</time>
      (<span id="plan-left">${secs(p.remaining_seconds)}</span> left);
      upfront fee ${fmtUsd(p.upfront_fee)}.</p>
    <h2>Instance groups on it</h2>
    <${DataTable} id="plan-groups" ns="groups" label="Instance groups"
      columns=${GROUP_COLUMNS} rows=${p.groups}
      empty="No group of a cluster Slipway owns runs on it."/>
    <h2>Extensions</h2>
    <${DataTable} id="plan-extensions" ns="ext" label="Extensions"
      columns=${EXT_COLUMNS} rows=${p.extensions} empty="Not extended."/>
    <form id="plan-extend" novalidate onSubmit=${extend}>
      <${SchemaField} label="hours to add" field="duration_hours"
        id="plan-extend-hours" value=${hours} errors=${errors}
        schema=${schemaAt(bodySchema(p.doc, "training_plan_extend"),
          "duration_hours")}
        onChange=${setHours}/>
      <${FormErrors} errors=${errors} shown=${["duration_hours"]}/>
      <div class="actions"><button type="submit" class="primary"
        id="plan-extend-submit">Extend…</button></div>
    </form>`}
  </section>`;
}
