// fleet.js: the fleet document on the web UI: paste one (JSON, as the
// API takes it; `slipway plan -f` reads the YAML kept in git) and see
// its plan (fleet_plan): each change in order with the operation it
// would run, its target, why, and its hourly cost, the plan's total,
// and the clusters kept because prune is not true; a refusal is shown
// by field.  "Load today's state" fills the box with fleet_export, and
// today's state is shown as YAML too.  Read-only: applying is
// `slipway apply -f` (or fleet_apply), reviewed like any change.
import { html, useState } from "../lib.js";
import { api } from "../api.js";
import { fmtUsd, toYaml, CopyRequest, problemErrors } from "../ui.js";

function Changes({ plan }) {
  if (plan.changes.length === 0)
    return html`<p id="fleet-none">No changes: the live state is the
      document.</p>`;
  return html`<table id="fleet-changes"><thead><tr><th>#</th>
    <th>Operation</th><th>Target</th><th>Why</th><th>USD/hour</th>
    </tr></thead><tbody>${plan.changes.map((c) => html`<tr
      data-change=${c.operation + " " + c.target}>
      <td>${c.order}</td><td><code>${c.operation}</code></td>
      <td>${c.target}</td><td>${c.reason}: ${c.why}${c.waits_for ?
        " (on a later apply, after " + c.waits_for + ")" : ""}</td>
      <td>${c.cost ? fmtUsd(c.cost.added_per_hour) : ""}</td></tr>`)}
    </tbody></table>
    <p id="fleet-total">${plan.changes.length} change${
      plan.changes.length === 1 ? "" : "s"}, ${
      plan.added_per_hour === null ? "cost unknown" :
        fmtUsd(plan.added_per_hour) + " an hour"}.</p>`;
}

export function Fleet() {
  const [text, setText] = useState("");
  const [plan, setPlan] = useState(null);
  const [errors, setErrors] = useState(null);
  const [busy, setBusy] = useState(false);
  let body = null;
  try { body = text.trim() ? JSON.parse(text) : null; } catch (e) {
    body = undefined;
  }
  const submit = async (e) => {
    e.preventDefault();
    setPlan(null);
    setErrors(null);
    if (!body) {
      setErrors({ "": "Paste the document as JSON (slipway plan -f " +
        "reads YAML)." });
      return;
    }
    setBusy(true);
    try { setPlan(await api("POST", "/fleet/plan", body)); } catch (err) {
      setErrors(problemErrors(err));
    }
    setBusy(false);
  };
  const load = async () => {
    const doc = await api("GET", "/fleet/export");
    setText(JSON.stringify(doc, null, 2));
    setPlan(null);
    setErrors(null);
  };
  const fields = errors ? Object.keys(errors).filter((f) => f &&
    !f.startsWith("@")) : [];
  return html`<section class="card" id="fleet"><h1>Fleet</h1>
    <p>A fleet document names clusters (as creating one takes them, with
      features, team access and compute quotas), budgets and
      subscriptions. Its plan is what <code>slipway apply -f</code> would
      run. <a href="/api/v1/fleet/schema" target="_blank">JSON Schema</a>
    </p>
    <form id="fleet-form" onSubmit=${submit}>
      <textarea id="fleet-doc" rows="16" spellcheck="false"
        placeholder='{"apiVersion": "slipway/v1", "clusters": []}'
        onInput=${(e) => setText(e.target.value)} value=${text}/>
      <div class="actions">
        <button type="submit" id="fleet-plan" disabled=${busy}>Plan</button>
        <button type="button" id="fleet-load" onClick=${load}>Load
          today's state</button>
        ${body ? html`<${CopyRequest} method="POST" path="/fleet/plan"
          body=${body} tool="fleet_plan"/>` : null}
      </div>
      ${errors ? html`<div class="error" role="alert">${errors[""]}
        ${fields.map((f) => html`<div class="field-error"
          data-error-for=${f}>${f}: ${errors[f]}</div>`)}</div>` : null}
    </form>
    ${plan ? html`<${Changes} plan=${plan}/>
      ${plan.kept.length ? html`<p id="fleet-kept">Kept (not in the
        document; prune is not true): ${plan.kept.join(", ")}</p>` : null}`
      : null}
    ${body ? html`<details><summary>As YAML</summary><pre id="fleet-yaml">${
      toYaml(body)}</pre></details>` : null}
  </section>`;
}
