// ui.js: components every page uses: state badges, loading and error
// boxes, a loader hook bound to the navigation token, labelled inputs
// built from an OpenAPI schema (enums become selects, limits become
// min/max), and the mapping of a problem+json answer onto the inputs.
import { html, useState, useEffect, useCallback } from "./lib.js";
import { currentToken } from "./router.js";
import { followOperation } from "./live.js";

export function Badge({ state, kind }) {
  const s = state === undefined || state === null ? "?" : String(state);
  return html`<span class=${"state " + (kind ? kind + " " : "") +
    s.replace(/\s+/g, "-")} data-state=${s}>${s}</span>`;
}

export function Card({ children, id, title, cls }) {
  return html`<section class=${"card " + (cls || "")} id=${id}>
    ${title ? html`<h2>${title}</h2>` : null}${children}</section>`;
}

export function Loading() {
  return html`<p class="muted loading">Loading…</p>`;
}

export function ErrorText({ error, cluster }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><p>${error.message ||
    String(error)}</p><${FixLinks} errors=${problemErrors(error)}
    cluster=${cluster}/></div>`;
}

// The panel that fixes a refusal, by the rule (and field) the server
// names: [rule, field pattern or null, href(cluster, error), words].
const q = encodeURIComponent;
const panel = (p) => (c) => "#/clusters/" + q(c) + "?panel=" + p;
const FIXES = [
  ["feature", null, (c, fe) => "#/clusters/" + q(c) + "?feature=" +
    fe.feature, (fe) => "turn on " + labelOf(fe.feature) +
    " in the cluster's features"],
  ["quota", null, panel("instance-groups"), () => "choose a count within " +
    "the service quota (or another type) in the instance groups panel"],
  ["fits", null, panel("instance-groups"), () => "add an instance group of " +
    "a type large enough in the instance groups panel"],
  ["compatible", null, panel("addons"), () => "pick a version EKS publishes " +
    "for this Kubernetes version in the add-ons panel"],
  ["owned", null, (c) => "#/clusters?import=" + q(c), () => "import the " +
    "cluster first, from the import form"],
  ["exists", /^(queue|priority)$/, (c) => "#/clusters/" + q(c) +
    "/governance", () => "add the team's compute quota or the priority " +
    "class in task governance"],
  ["queue", null, (c) => "#/clusters/" + q(c) + "/governance", () =>
    "give the team a compute quota in task governance"],
  ["exists", /^pvc$/, panel("storage"), () => "add the claim in the " +
    "storage panel"],
];

// The "fix it" links of a problem's field errors.
export function FixLinks({ errors, cluster }) {
  const c = cluster || (errors && errors["@cluster"]);
  const list = ((errors && errors["@fixes"]) || []).flatMap((fe) => {
    const f = FIXES.find(([rule, field]) => rule === fe.rule &&
      (!field || field.test(fe.field)) && (rule !== "feature" ||
        fe.feature));
    return f && c ? [{ href: f[2](c, fe), text: f[3](fe), rule: fe.rule }] :
      [];
  }).filter((x, i, a) => a.findIndex((y) => y.href === x.href) === i);
  if (!list.length) return null;
  return html`${list.map((x) => html`<div><a class="fix"
    data-fix=${x.rule} href=${x.href}>Fix it: ${x.text}</a></div>`)}`;
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

// Errors of a problem document by field ("" for the document's detail;
// "@feature" for a feature the request needs turned on).
export function problemErrors(err) {
  if (!err) return {};
  const out = { "": err.message };
  for (const fe of (err.problem && err.problem.errors) || []) {
    if (out[fe.field] && out[fe.field].includes(fe.message)) continue;
    out[fe.field] = (out[fe.field] ? out[fe.field] + "; " : "") +
      fe.message;
    const m = fe.rule === "feature" && /enable feature ([a-z_]+)/
      .exec(fe.message);
    if (m) out["@feature"] = m[1];
    (out["@fixes"] ||= []).push({ rule: fe.rule, field: fe.field,
      feature: m ? m[1] : null });
  }
  /* the cluster a refusal is about, from the request's path */
  const c = /\/clusters\/([^/:?]+)/.exec((err.problem &&
    err.problem.instance) || "");
  if (c) out["@cluster"] = decodeURIComponent(c[1]);
  return out;
}

// A form's errors beyond those shown beside an input: the detail once
// (not again when every field error is beside its field), and a link to
// the panel that fixes each refusal that names one (FIXES).
export function FormErrors({ errors, shown, cluster }) {
  if (!errors || !errors[""]) return null;
  const fields = Object.keys(errors).filter((f) => f !== "" &&
    !f.startsWith("@") && errors[f]);
  const rest = fields.filter((f) => !(shown || []).includes(f));
  const top = fields.length === 0 || rest.length > 0 ? errors[""] :
    (fields.length === 1 ? "Fix the field marked above." :
      `Fix the ${fields.length} fields marked above.`);
  return html`<div class="error" role="alert">${top}
    ${rest.map((f) => html`<div class="field-error"
      data-error-for=${f}>${f}: ${errors[f]}</div>`)}
    <${FixLinks} errors=${errors} cluster=${cluster}/></div>`;
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
  /* an error stands for the value it was given for: it goes as soon as
   * the input changes */
  const [errFor, setErrFor] = useState({ errors: null, value: null });
  const raw = errors && errors[field];
  if (raw && errFor.errors !== errors) setErrFor({ errors, value });
  const err = raw && (errFor.errors !== errors || errFor.value === value) ?
    raw : null;
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
// tests and people see the same text.  opts: title, yes (the button's
// words), items (what will go, listed), typeName (the name the person
// types before the button acts, as the AWS console asks for a cluster).
// Leaving the page closes the dialog (router.js) and answers no.
export function confirmAction(text, opts) {
  const o = opts || {};
  const t = currentToken();
  return new Promise((resolve) => {
    const d = document.getElementById("confirm");
    const yes = d.querySelector("#confirm-yes");
    const name = d.querySelector("#confirm-name");
    const typed = d.querySelector(".confirm-type");
    const what = d.querySelector(".confirm-what");
    const list = d.querySelector("#confirm-list");
    d.querySelector("#confirm-title").textContent = o.title ||
      "Are you sure?";
    d.querySelector(".confirm-text").textContent = text.replace(/\s+/g,
      " ").trim();
    list.replaceChildren(...(o.items || []).map((x) => {
      const li = document.createElement("li");
      li.textContent = x;
      return li;
    }));
    what.hidden = !(o.items && o.items.length);
    yes.textContent = o.yes || "Yes, go ahead";
    typed.hidden = !o.typeName;
    name.value = "";
    yes.disabled = !!o.typeName;
    if (o.typeName) {
      d.querySelector(".confirm-type-text").textContent =
        `Type ${o.typeName} to confirm`;
    }
    const why = () => {
      yes.title = yes.disabled ? `Type ${o.typeName} first` : "";
    };
    why();
    name.oninput = () => { yes.disabled = name.value !== o.typeName; why(); };
    const done = () => {
      d.removeEventListener("close", done);
      name.oninput = null;
      resolve(d.returnValue === "yes" && currentToken() === t &&
        (!o.typeName || name.value === o.typeName));
    };
    d.returnValue = "";
    d.addEventListener("close", done);
    d.showModal();
    if (o.typeName) name.focus();
  });
}

// useLive(nav, fn, deps, every): like useLoad, and keeps the answer
// fresh while the page is shown: fn() runs again every `every` ms
// (statuses AWS and Kubernetes hold, which nothing pushes) while the tab
// is visible, and at once on reload() (a followed operation changed).
// st.at is when the answer was read; st.stale the error of the last
// refresh, shown beside the data it failed to replace.
export function useLive(nav, fn, deps, every) {
  const [st, setSt] = useState({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let alive = true;
    let timer = null;
    const ok = () => alive && nav.current();
    const run = () => {
      timer = null;
      if (document.visibilityState === "hidden") {
        timer = setTimeout(run, 1000);
        return;
      }
      fn().then((data) => {
        if (ok()) setSt({ data, at: Date.now() });
      }, (error) => {
        if (ok()) setSt((s) => (s.data ? { ...s, stale: error } :
          { error }));
      }).finally(() => {
        if (ok()) timer = setTimeout(run, every || 10000);
      });
    };
    run();
    return () => { alive = false; clearTimeout(timer); };
  }, [...(deps || []), n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return [st, reload];
}

const TERMINAL = ["succeeded", "failed", "cancelled"];

// A page that shows operations is told when they change: every
// unfinished one in ops (at most FOLLOW_MAX at once, the newest first)
// is followed over its stream (/ws/operations/{id}, the long poll
// without it) and reload() runs at each change.  Returns the ids
// followed (the Updated marker says how many).
const FOLLOW_MAX = 6;

export function useFollowOps(nav, ops, reload) {
  const ids = (ops || []).filter((o) => !TERMINAL.includes(o.state))
    .map((o) => o.id).slice(0, FOLLOW_MAX).join(" ");
  useEffect(() => {
    if (!ids) return undefined;
    const seen = {};
    const stops = ids.split(" ").map((id) => followOperation(id, (o) => {
      if (!o || !nav.current()) return;
      const key = o.state + " " + o.updated_ms;
      if (seen[id] !== undefined && seen[id] !== key) reload();
      seen[id] = key;
    }));
    return () => stops.forEach((f) => f());
  }, [ids]);
  return ids ? ids.split(" ") : [];
}

// "updated N s ago" for a live view, and why a refresh failed.
export function Updated({ st, id, following }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const i = setInterval(() => tick((x) => x + 1), 1000);
    return () => clearInterval(i);
  }, []);
  if (!st || !st.at) return null;
  const s = Math.max(0, Math.round((Date.now() - st.at) / 1000));
  const n = (following || []).length;
  return html`<p class="updated muted" id=${id || "updated"}
    data-at=${st.at} data-following=${n}>${"updated " + (s < 2 ?
      "just now" : s + " s ago")}${n ? ` · following ${n} running ` +
      (n === 1 ? "operation" : "operations") + " live" : ""}
    ${st.stale && html`<span class="error stale"> · could not refresh:
      ${st.stale.message}</span>`}</p>`;
}

// A button that copies text (an id, an ARN, a command, a token).
export function Copy({ text, label }) {
  const [done, setDone] = useState(false);
  return html`<button type="button" class="copy"
    aria-label=${"Copy " + (label || text)} data-copy=${text}
    onClick=${async () => {
      try {
        await navigator.clipboard.writeText(text);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      } catch (e) { /* no clipboard: the text is on the page */ }
    }}>${done ? "Copied" : (label && label.startsWith("as ") ? "Copy " +
      label : "Copy")}</button>`;
}

// One time format everywhere: "2026-12-05 19:20:31" in local time.
export function fmtTime(ms) {
  if (!ms) return "—";
  const d = new Date(ms);
  const p = (x) => String(x).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

// A duration in words: "42 s", "3 min 5 s", "1 h 4 min".
export function fmtDuration(ms) {
  if (ms === undefined || ms === null || ms < 0) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}

// A JSON value as YAML (block style; strings quoted when YAML would
// read them as something else).
export function toYaml(v, indent) {
  const pad = "  ".repeat(indent || 0);
  const scalar = (x) => {
    if (x === null || x === undefined) return "null";
    if (typeof x !== "string") return String(x);
    return /^[A-Za-z0-9_./-][A-Za-z0-9_./:= -]*$/.test(x) &&
      !/^(true|false|null|yes|no|on|off|[0-9.+-]+)$/i.test(x) &&
      !/[: ]$/.test(x) && !/: /.test(x) ? x : JSON.stringify(x);
  };
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return v.map((x) => {
      if (x !== null && typeof x === "object" && Object.keys(x).length)
        return pad + "- " + toYaml(x, (indent || 0) + 1).trimStart();
      return pad + "- " + (typeof x === "object" && x !== null ?
        (Array.isArray(x) ? "[]" : "{}") : scalar(x));
    }).join("\n");
  }
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v);
    if (keys.length === 0) return "{}";
    return keys.map((k) => {
      const x = v[k];
      if (x !== null && typeof x === "object" && (Array.isArray(x) ?
        x.length : Object.keys(x).length))
        return pad + scalar(k) + ":\n" + toYaml(x, (indent || 0) + 1);
      return pad + scalar(k) + ": " + (x !== null && typeof x === "object" ?
        (Array.isArray(x) ? "[]" : "{}") : scalar(x));
    }).join("\n");
  }
  return pad + scalar(v);
}

// "Copy as curl" and "Copy as MCP call" for a form's request: the same
// call a script or an agent would make.
export function CopyRequest({ method, path, body, tool, args }) {
  const url = location.origin + "/api/v1" + path;
  const curl = `curl -X ${method} -H "Authorization: Bearer $SLIPWAY_TOKEN"` +
    (body ? ` -H "Content-Type: application/json" \\\n  -d '${JSON.stringify(
      body).replace(/'/g, "'\\''")}'` : "") + ` \\\n  '${url}'`;
  const mcp = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call",
    params: { name: tool, arguments: args || body || {} } });
  return html`<span class="copy-request">
    <${Copy} text=${curl} label="as curl"/>
    <${Copy} text=${mcp} label="as MCP call"/></span>`;
}

// Money per hour as people read it: "$12.34".
export function fmtUsd(v) {
  if (v === null || v === undefined) return "unknown";
  const a = Math.abs(v);
  return (v < 0 ? "-$" : "$") + a.toLocaleString("en-US", {
    minimumFractionDigits: 2, maximumFractionDigits: a < 1 ? 4 : 2 });
}

// One sentence for a plan's cost (the dry run's "cost"), or "" when the
// plan changes no instance count.  Unknown is said, never shown as $0.
export function costText(cost) {
  if (!cost) return "";
  if (!cost.complete)
    return "Cost unknown: AWS lists no on-demand price for " +
      (cost.unknown || []).join(", ") + ".";
  const add = cost.added_per_hour;
  const verb = add < 0 ? "Saves " : "Adds ";
  return verb + fmtUsd(Math.abs(add)) + " an hour (" +
    fmtUsd(Math.abs(cost.added_per_day)) + " a day); the cluster then " +
    "costs " + fmtUsd(cost.cluster_per_hour) + " an hour.";
}

// An endpoint's cost (its dry run's "cost"): its GPUs' share of their
// nodes' price.  Unknown is said, never shown as $0.
export function endpointCostText(cost) {
  if (!cost) return "";
  if (!cost.complete) return "Cost unknown: " + (cost.why || "no price") +
    ".";
  return "Its " + cost.gpus + " GPU" + (cost.gpus === 1 ? "" : "s") +
    " on " + cost.instance_type + " cost " + fmtUsd(cost.added_per_hour) +
    " an hour (" + fmtUsd(cost.added_per_day) + " a day); the cluster's " +
    "nodes cost " + fmtUsd(cost.cluster_per_hour) + " an hour with or " +
    "without it.";
}

export function EndpointCost({ cost }) {
  if (!cost) return null;
  return html`<p class="cost" id="plan-cost">${endpointCostText(cost)}
    <span class="muted"> On-demand prices from the AWS Price List API
    (${cost.region}): ${cost.basis}.</span></p>`;
}

// The cost of a plan, with where the prices come from.
export function PlanCost({ cost }) {
  if (!cost) return null;
  return html`<p class="cost" id="plan-cost">${costText(cost)}
    <span class="muted"> On-demand prices from the AWS Price List API
    (${cost.region}); excludes ${cost.excludes}.</span></p>`;
}
