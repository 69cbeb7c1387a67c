// ui.js: components every page uses: state badges, loading and error
// boxes, a loader hook bound to the navigation token, labelled inputs
// built from an OpenAPI schema (enums become selects, limits become
// min/max), and the mapping of a problem+json answer onto the inputs.
import { html, useState, useEffect, useCallback } from "./lib.js";

export function Badge({ state, kind }) {
  const s = state === undefined || state === null ? "?" : String(state);
  return html`<span class=${"state " + (kind ? kind + " " : "") + s}
    data-state=${s}>${s}</span>`;
}

export function Card({ children, id, title, cls }) {
  return html`<section class=${"card " + (cls || "")} id=${id}>
    ${title ? html`<h2>${title}</h2>` : null}${children}</section>`;
}

export function Loading() {
  return html`<p class="muted loading">Loading…</p>`;
}

export function ErrorText({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${error.message || String(error)}</p>`;
}

// useLoad(nav, fn, deps): runs fn() and keeps its answer while the page
// is still the current one.  Returns [{data, error, loading}, reload].
export function useLoad(nav, fn, deps) {
  const [st, setSt] = useState({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let alive = true;
    fn().then((data) => {
      if (alive && nav.current()) setSt({ data });
    }, (error) => {
      if (alive && nav.current()) setSt({ error });
    });
    return () => { alive = false; };
  }, [...(deps || []), n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return [st, reload];
}

// Errors of a problem document by field ("" for the document's detail).
export function problemErrors(err) {
  if (!err) return {};
  const out = { "": err.message };
  for (const fe of (err.problem && err.problem.errors) || [])
    out[fe.field] = (out[fe.field] ? out[fe.field] + "; " : "") +
      fe.message;
  return out;
}

// A form's errors beyond those shown beside an input.
export function FormErrors({ errors, shown }) {
  if (!errors || !errors[""]) return null;
  const rest = Object.entries(errors)
    .filter(([f]) => f !== "" && !(shown || []).includes(f));
  return html`<div class="error" role="alert">${errors[""]}
    ${rest.map(([f, m]) => html`<div class="field-error"
      data-error-for=${f}>${f}: ${m}</div>`)}</div>`;
}

let idSeq = 0;
function newId(field) {
  return "f-" + field.replace(/[^A-Za-z0-9_-]/g, "-") + "-" + (++idSeq);
}

// One labelled input for a schema property.  field is the name the
// server uses in its errors (e.g. "instance_groups[0].count"); value and
// onChange hold the form's state (numbers as strings until submit).
export function SchemaField({ label, schema, field, value, onChange,
  errors, options, id, hint, required }) {
  const [fid] = useState(() => id || newId(field));
  const s = schema || {};
  const err = errors && errors[field];
  let input;
  const common = { id: fid, name: field, "data-field": field,
    "aria-invalid": err ? "true" : null,
    "aria-describedby": err ? fid + "-err" : null };
  if (options || s.enum) {
    const opts = options || s.enum.map((v) => ({ value: v, label: v }));
    input = html`<select ...${common} value=${value ?? ""}
      onChange=${(e) => onChange(e.target.value)}>
      ${!required && html`<option value="">(default)</option>`}
      ${opts.map((o) => html`<option value=${o.value}>${o.label}</option>`)}
    </select>`;
  } else if (s.type === "boolean") {
    return html`<label class="inline">
      <input type="checkbox" ...${common} checked=${!!value}
        onChange=${(e) => onChange(e.target.checked)}/>${label}
      ${err && html`<span class="field-error" id=${fid + "-err"}
        data-error-for=${field}>${err}</span>`}</label>`;
  } else if (s.type === "integer" || s.type === "number") {
    input = html`<input type="number" ...${common}
      min=${s.minimum} max=${s.maximum}
      step=${s.type === "integer" ? 1 : "any"} value=${value ?? ""}
      onInput=${(e) => onChange(e.target.value)}/>`;
  } else {
    input = html`<input type=${s.writeOnly || /token|secret/.test(field)
      ? "password" : "text"} ...${common} autocomplete="off"
      minlength=${s.minLength} maxlength=${s.maxLength}
      value=${value ?? ""} onInput=${(e) => onChange(e.target.value)}/>`;
  }
  return html`<label for=${fid}>${label}
    ${input}
    ${(hint || s.description) && html`<span class="hint">${hint ||
      s.description}</span>`}
    ${err && html`<span class="field-error" id=${fid + "-err"}
      data-error-for=${field}>${err}</span>`}</label>`;
}

// Turn a form's string values into a request body by the schema: empty
// values are left out (the server's default applies), numbers become
// numbers, dotted names become nested objects.
export function buildBody(schema, values) {
  const body = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === "" || v === undefined || v === null || v === false)
      continue;
    const s = schemaAtPath(schema, k);
    let val = v;
    if ((s.type === "integer" || s.type === "number") && typeof v ===
        "string")
      val = Number(v);
    const keys = k.split(".");
    let o = body;
    for (const key of keys.slice(0, -1)) o = o[key] = o[key] || {};
    o[keys[keys.length - 1]] = val;
  }
  return body;
}

function schemaAtPath(schema, dotted) {
  let s = schema;
  for (const key of dotted.split(".")) {
    s = s && s.properties ? s.properties[key] : undefined;
    if (!s) return {};
  }
  return s;
}

// Label text from a property name: "gpus_per_node" -> "Gpus per node".
export function labelOf(name) {
  const t = name.replace(/_/g, " ");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

// Every scalar property of a schema (nested objects flattened with
// dots), in the document's order.
export function scalarFields(schema, prefix) {
  const out = [];
  for (const [k, s] of Object.entries((schema && schema.properties) || {})) {
    const name = prefix ? prefix + "." + k : k;
    if (s.type === "object" && s.properties) out.push(...scalarFields(s, name));
    else if (["string", "integer", "number", "boolean"].includes(s.type))
      out.push({ name, schema: s });
  }
  return out;
}

// Ask before a destructive action; the dialog is a <dialog> element so
// tests and people see the same text.
export function confirmAction(text) {
  return new Promise((resolve) => {
    const d = document.getElementById("confirm");
    d.querySelector(".confirm-text").textContent = text;
    const done = () => {
      d.removeEventListener("close", done);
      resolve(d.returnValue === "yes");
    };
    d.returnValue = "";
    d.addEventListener("close", done);
    d.showModal();
  });
}

export function fmtTime(ms) {
  return ms ? new Date(ms).toLocaleString() : "—";
}
