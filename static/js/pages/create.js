// create.js: the create-cluster wizard.  It asks only decision-level
// questions (name, instance type with its GPU and EFA facts, count, an
// AZ that offers the type, capacity type or training plan, an optional
// S3 bucket); networks, subnets and roles are planned by the server.
// Enums and limits come from the OpenAPI document; the server checks
// everything and its per-field errors are shown beside the inputs.
import { html, useState } from "../lib.js";
import { api, openapi, bodySchema, schemaAt } from "../api.js";
import { go } from "../router.js";
import {
  Loading, ErrorText, useLoad, SchemaField, FormErrors, problemErrors,
  CopyRequest, PlanCost,
} from "../ui.js";

const G = "instance_groups[0].";

async function load() {
  const [doc, types, plans] = await Promise.all([
    openapi(), api("GET", "/instance-types?gpu_only=true"),
    api("GET", "/training-plans").catch(() => ({ items: [] })),
  ]);
  return { schema: bodySchema(doc, "cluster_create"), types: types.items,
    plans: plans.items || [] };
}

export function typeLabel(t) {
  return `${t.instance_type} — ${t.gpus}× ${t.gpu_name}, ${t.vcpus} vCPU` +
    (t.efa_supported ? ", EFA" : "");
}

export function Create({ nav }) {
  const [st] = useLoad(nav, load, []);
  if (st.error) return html`<section class="card"><h1>Create a cluster</h1>
    <${ErrorText} error=${st.error}/></section>`;
  if (!st.data) return html`<section class="card"><h1>Create a cluster</h1>
    <${Loading}/></section>`;
  return html`<${CreateForm} nav=${nav} ...${st.data}/>`;
}

function CreateForm({ nav, schema, types, plans }) {
  const first = types[0] || { availability_zones: [] };
  const [v, setV] = useState({
    name: "", group: "workers", instance_type: first.instance_type,
    count: "1", availability_zone: first.availability_zones[0] || "",
    capacity_type: "", training_plan_arn: "", s3_bucket: "",
    efa_only: false,
  });
  const [errors, setErrors] = useState({});
  const [plan, setPlan] = useState(null);
  const [busy, setBusy] = useState(false);
  const type = types.find((t) => t.instance_type === v.instance_type);
  const set = (k) => (val) => {
    const n = { ...v, [k]: val };
    if (k === "instance_type") {
      const t = types.find((x) => x.instance_type === val);
      const azs = t ? t.availability_zones : [];
      if (!azs.includes(n.availability_zone)) n.availability_zone = azs[0] || "";
      if (!(t && t.efa_supported)) n.efa_only = false;
    }
    setV(n);
  };
  const g = (k) => schemaAt(schema, "instance_groups." + k);
  const body = () => {
    const grp = { name: v.group, instance_type: v.instance_type,
      count: Number(v.count) };
    if (v.availability_zone) grp.availability_zone = v.availability_zone;
    if (v.capacity_type) grp.capacity_type = v.capacity_type;
    if (v.capacity_type === "training-plan" && v.training_plan_arn)
      grp.training_plan_arn = v.training_plan_arn;
    if (v.efa_only) grp.efa_only = true;
    const b = { name: v.name, instance_groups: [grp] };
    if (v.s3_bucket.trim()) b.storage = { s3_bucket: v.s3_bucket.trim() };
    return b;
  };
  const send = async (dry) => {
    setBusy(true);
    try {
      const r = await api("POST", "/clusters" + (dry ? "?dry_run=true" : ""),
        body());
      if (!nav.current()) return;
      setErrors({});
      if (dry) setPlan(r);
      else go("#/operations/" + r.operation_id);
    } catch (e) {
      if (nav.current()) { setErrors(problemErrors(e)); setPlan(null); }
    } finally {
      if (nav.current()) setBusy(false);
    }
  };
  const plansHere = plans.filter((p) => !p.instance_type ||
    p.instance_type === v.instance_type);
  const shown = ["name", G + "name", G + "instance_type", G + "count",
    G + "availability_zone", G + "capacity_type", G + "training_plan_arn",
    G + "efa_only", "storage.s3_bucket"];
  return html`<section class="card">
    <h1>Create a cluster</h1>
    <form id="create-form" novalidate onSubmit=${(e) => {
      e.preventDefault(); send(false);
    }}>
      <div class="grid">
        <${SchemaField} label="Cluster name" id="name" field="name"
          schema=${schemaAt(schema, "name")} value=${v.name}
          onChange=${set("name")} errors=${errors}/>
        <${SchemaField} label="Instance group" id="group" field=${G + "name"}
          schema=${g("name")} value=${v.group} onChange=${set("group")}
          errors=${errors}/>
        <${SchemaField} label="Instance type" id="instance_type" required
          field=${G + "instance_type"} schema=${g("instance_type")}
          value=${v.instance_type} onChange=${set("instance_type")}
          errors=${errors} hint=${type ? `${type.gpus} GPU (${type.gpu_name}),
            ${Math.round(type.memory_mib / 1024)} GiB, ${type.efa_supported
            ? "EFA supported" : "no EFA"}` : ""}
          options=${types.map((t) => ({ value: t.instance_type,
            label: typeLabel(t) }))}/>
        <${SchemaField} label="Count" id="count" field=${G + "count"}
          schema=${g("count")} value=${v.count} onChange=${set("count")}
          errors=${errors}/>
        <${SchemaField} label="Availability zone" id="availability_zone"
          required field=${G + "availability_zone"}
          schema=${g("availability_zone")} value=${v.availability_zone}
          onChange=${set("availability_zone")} errors=${errors}
          hint="The zones that offer this instance type."
          options=${(type ? type.availability_zones : []).map((z) =>
            ({ value: z, label: z }))}/>
        <${SchemaField} label="Capacity" id="capacity_type"
          field=${G + "capacity_type"} schema=${g("capacity_type")}
          value=${v.capacity_type} onChange=${set("capacity_type")}
          errors=${errors}/>
        ${v.capacity_type === "training-plan" && html`<${SchemaField}
          label="Training plan" id="training_plan_arn"
          field=${G + "training_plan_arn"} schema=${g("training_plan_arn")}
          value=${v.training_plan_arn} onChange=${set("training_plan_arn")}
          errors=${errors} options=${plansHere.map((p) => ({
            value: p.arn || p.training_plan_arn,
            label: (p.name || p.arn) + (p.availability_zone ? " (" +
              p.availability_zone + ")" : "") }))}/>`}
        <${SchemaField} label="S3 bucket for data (optional)" id="s3_bucket"
          field="storage.s3_bucket" schema=${schemaAt(schema,
            "storage.s3_bucket")} value=${v.s3_bucket}
          onChange=${set("s3_bucket")} errors=${errors}/>
      </div>
      ${type && type.efa_supported && html`<${SchemaField}
        label="EFA-only network interfaces" id="efa_only"
        field=${G + "efa_only"} schema=${g("efa_only")} value=${v.efa_only}
        onChange=${set("efa_only")} errors=${errors}/>`}
      <p class="muted">Network ranges, subnets, route tables and security
        groups are planned for you.</p>
      <${FormErrors} errors=${errors} shown=${shown}/>
      <div class="actions">
        <button type="button" id="plan" disabled=${busy}
          onClick=${() => send(true)}>Plan (dry run)</button>
        <button type="submit" class="primary" id="create"
          disabled=${busy}>Create cluster</button>
        <${CopyRequest} method="POST" path="/clusters" body=${body()}
          tool="cluster_create"/>
      </div>
    </form>
    ${plan && html`<h2>Plan: ${plan.calls.length} calls</h2>
      <${PlanCost} cost=${plan.cost}/>
      <ol class="plan" id="plan-list">${plan.calls.map((c) => html`<li>
        ${c.stage}: ${c.service ? c.service + " " + c.operation
          : "kubectl apply " + c.kind + "/" + c.name}</li>`)}</ol>`}
  </section>`;
}
