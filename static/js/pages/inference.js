// inference.js: inference on a cluster: the deploy form for every shape
// the server has (its fields, enums and limits are read from
// inference_deploy in the OpenAPI document, so new shapes appear as the
// server grows them), the endpoint list with readiness, scaling and a
// test call where the server offers inference_scale / inference_invoke.
import { html, useState } from "../lib.js";
import { api, enc, openapi, bodySchema, hasOp } from "../api.js";
import { go } from "../router.js";
import {
  Badge, Loading, ErrorText, useLive, Updated, Copy, SchemaField, FormErrors,
  CopyRequest, problemErrors, buildBody, labelOf, scalarFields, confirmAction,
  toYaml, EndpointCost,
} from "../ui.js";
import { ClusterPicker } from "./training.js";
import { useTable } from "../table.js";

export function Inference({ nav, cluster, query }) {
  const [st, reload] = useLive(nav, async () => {
    if (!cluster) return { doc: await openapi() };
    const [doc, list] = await Promise.all([openapi(), api("GET",
      "/clusters/" + enc(cluster) + "/inference")]);
    return { doc, items: list.items || [] };
  }, [cluster], 5000);
  const d = st.data;
  return html`<section class="card"><h1>Inference</h1>
    <${ClusterPicker} nav=${nav} section="inference" cluster=${cluster}/>
    ${st.loading && cluster && !d && html`<${Loading}/>`}
    ${cluster && html`<${Updated} st=${st}/>`}
    <${ErrorText} error=${st.error}/></section>
    ${d && cluster && html`<${Endpoints} nav=${nav} doc=${d.doc}
      cluster=${cluster} items=${d.items} reload=${reload} query=${query}/>
      <${Deploy} nav=${nav} doc=${d.doc} cluster=${cluster}
        reload=${reload}/>`}`;
}

function readiness(e) {
  if (e.ready !== undefined) return e.ready ? "Ready" : "NotReady";
  if (e.state) return e.state;
  if (e.ready_replicas !== undefined)
    return e.ready_replicas >= (e.replicas || 1) ? "Ready" : "NotReady";
  return "?";
}

const EP_COLUMNS = [
  { key: "name", label: "Endpoint", value: (e) => e.endpoint ||
    e.endpoint_name || e.name },
  { key: "kind", label: "Kind", filter: true },
  { key: "engine", label: "Engine", filter: true },
  { key: "ready", label: "Readiness", filter: true, value: readiness },
  { key: "model", label: "Model" },
];

function Endpoints({ nav, doc, cluster, items: all, reload, query }) {
  const { shown: items, tools } = useTable({ id: "endpoint-list",
    label: "Endpoints", ns: "endpoints", columns: EP_COLUMNS, rows: all,
    query });
  const base = "/clusters/" + enc(cluster) + "/inference/";
  const canScale = hasOp(doc, "inference_scale");
  const canInvoke = hasOp(doc, "inference_invoke");
  const [err, setErr] = useState(null);
  const run = async (fn) => {
    try { await fn(); if (nav.current()) { setErr(null); reload(); } } catch (e) {
      if (nav.current()) setErr(e);
    }
  };
  return html`<section class="card" id="endpoints"><h2>Endpoints</h2>
    ${all.length === 0 ? html`<p class="muted">No endpoints.</p>` :
      html`<div class="list-tools">${tools}</div>`}
    ${items.map((e) => {
      const name = e.endpoint || e.endpoint_name || e.name;
      return html`<article class="endpoint" data-endpoint=${name}>
        <h3>${name} <${Badge} state=${readiness(e)}/></h3>
        <p class="muted">${[e.kind, e.engine, e.model, e.exposure,
          e.address || e.service].filter(Boolean).join(" · ")}
          ${e.replicas !== undefined && ` · ${e.ready_replicas ?? "?"}/` +
            `${e.replicas} replicas`}</p>
        <div class="actions">
          ${canScale && html`<${Scale} name=${name} value=${e.replicas}
            onScale=${(n) => run(() => api("PATCH", base + enc(name),
              { replicas: n }))}/>`}
          <button type="button" class="danger" onClick=${() => run(async () => {
            if (await confirmAction(`Undeploy ${name}?`))
              await api("DELETE", base + enc(name));
          })}>Undeploy</button></div>
        ${e.address && html`<p>Endpoint URL <code>${e.address}</code>
          <${Copy} text=${e.address} label=${"URL of " + name}/></p>`}
        ${canInvoke && html`<${CurlExample} path=${base + enc(name) +
          ":invoke"}/>`}
        ${canInvoke && html`<${Invoke} path=${base + enc(name) + ":invoke"}
          name=${name}/>`}
      </article>`;
    })}<${ErrorText} error=${err}/></section>`;
}

function Scale({ name, value, onScale }) {
  const [n, setN] = useState(String(value ?? 1));
  return html`<label class="compact" for=${"scale-ep-" + name}>Replicas
    <input type="number" id=${"scale-ep-" + name} min="0" value=${n}
      onInput=${(e) => setN(e.target.value)}/></label>
    <button type="button" onClick=${() => onScale(Number(n))}>Scale</button>`;
}

// How to call it from a terminal, through Slipway.
function CurlExample({ path }) {
  const cmd = `curl -X POST -H "Authorization: Bearer $SLIPWAY_TOKEN" ` +
    `-H "Content-Type: application/json" \\\n  -d '{"messages": [{"role": ` +
    `"user", "content": "Say hello."}], "max_tokens": 64}' \\\n  ` +
    `'${location.origin}/api/v1${path}'`;
  return html`<details class="curl"><summary>Call it with curl</summary>
    <pre class="snippet" tabindex="0">${cmd}</pre><${Copy} text=${cmd}
      label="curl example"/></details>`;
}

// The test call: an OpenAI-style chat request through the server.
function Invoke({ path, name }) {
  const [prompt, setPrompt] = useState("Say hello.");
  const [answer, setAnswer] = useState(null);
  const [err, setErr] = useState(null);
  const send = async (e) => {
    e.preventDefault();
    try {
      const r = await api("POST", path, { messages: [{ role: "user",
        content: prompt }], max_tokens: 64, stream: false });
      setErr(null);
      const c = r && r.choices && r.choices[0];
      setAnswer(c && c.message ? c.message.content : JSON.stringify(r));
    } catch (x) { setErr(x); }
  };
  return html`<form class="invoke" onSubmit=${send}>
    <label for=${"prompt-" + name}>Test prompt
      <input id=${"prompt-" + name} value=${prompt}
        onInput=${(e) => setPrompt(e.target.value)}/></label>
    <button type="submit" class="invoke-send">Send test call</button>
    ${answer !== null && html`<pre class="answer">${answer}</pre>`}
    <${ErrorText} error=${err}/></form>`;
}

function Deploy({ nav, doc, cluster, reload }) {
  const schema = bodySchema(doc, "inference_deploy");
  const props = schema.properties || {};
  const kinds = (props.kind && props.kind.enum) || [];
  /* a required choice starts at the server's first value */
  const [v, setV] = useState(() => {
    const init = { kind: kinds[0] || "" };
    for (const r of schema.required || [])
      if (props[r] && props[r].enum) init[r] = props[r].enum[0];
    return init;
  });
  const [errors, setErrors] = useState({});
  const [done, setDone] = useState(null);
  // Only the members that go with the chosen kind (the table's
  // x-slipway-only on the top-level member, lib/valid.h).
  const goes = (name) => {
    const only = (props[name.split(".")[0]] || {})["x-slipway-only"];
    return !only || Object.entries(only).every(([k, vals]) =>
      vals.includes(v[k] || (props[k] && props[k].enum || [])[0]));
  };
  const fields = scalarFields(schema).filter((x) => x.name !== "kind" &&
    goes(x.name));
  const top = fields.filter((x) => !x.name.includes("."));
  const groups = {};
  for (const x of fields.filter((y) => y.name.includes(".")))
    (groups[x.name.split(".")[0]] ||= []).push(x);
  // keyed by member: the fields change with the kind
  const f = (x) => html`<${SchemaField} key=${x.name}
    label=${labelOf(x.name.split(".").pop())} field=${x.name}
    id=${"inf-" + x.name.replace(/\./g, "-")} schema=${x.schema}
    value=${v[x.name]} errors=${errors}
    required=${(schema.required || []).includes(x.name)}
    onChange=${(val) => setV({ ...v, [x.name]: val })}/>`;
  const body = () => buildBody(schema, Object.fromEntries(
    Object.entries(v).filter(([k]) => goes(k))));
  const send = async (dry) => {
    try {
      const r = await api("POST", "/clusters/" + enc(cluster) + "/inference" +
        (dry ? "?dry_run=true" : ""), body());
      if (!nav.current()) return;
      setErrors({});
      if (r && r.operation_id && !dry) go("#/operations/" + r.operation_id);
      else { setDone(r); if (!dry) reload(); }
    } catch (e) {
      if (nav.current()) setErrors(problemErrors(e));
    }
  };
  return html`<section class="card" id="deploy"><h2>Deploy an endpoint</h2>
    ${kinds.length > 0 && html`<div class="tabs" role="tablist"
      aria-label="Shape">${kinds.map((k) => html`<button type="button"
      role="tab" id=${"shape-" + k} aria-selected=${v.kind === k ? "true"
        : "false"} onClick=${() => setV({ ...v, kind: k })}>${k}</button>`)}
    </div>`}
    <form id="deploy-form" novalidate onSubmit=${(e) => {
      e.preventDefault(); send(false);
    }}>
      <div class="grid">${top.map(f)}</div>
      ${Object.entries(groups).map(([g, xs]) => html`<fieldset key=${g}
        data-group=${g}><legend>${labelOf(g)}</legend>
        <div class="grid">${xs.map(f)}</div></fieldset>`)}
      <${FormErrors} errors=${errors} cluster=${cluster}
        shown=${fields.map((x) => x.name)}/>
      <div class="actions">
        <button type="button" id="deploy-plan" onClick=${() => send(true)}>
          Dry run</button>
        <button type="submit" class="primary" id="deploy-submit">Deploy
        </button>
        <${CopyRequest} method="POST"
          path=${"/clusters/" + enc(cluster) + "/inference"} body=${body()}
          tool="inference_deploy" args=${{ name: cluster, ...body() }}/></div>
    </form>
    ${done && html`<p class="muted" id="deploy-result" role="status">
      ${done.dry_run ? "Dry run: " : "Deployed: "}${(done.applied ||
        done.manifests || []).map((m) => m.kind + "/" + (m.name ||
        (m.metadata && m.metadata.name))).join(", ")}</p>`}
    ${done && done.dry_run && html`<${EndpointCost} cost=${done.cost}/>`}
    ${done && done.dry_run && (done.manifests || []).length > 0 && html`
      <h3>Manifests (dry run)</h3>
      <pre class="snippet yaml" id="deploy-plan-yaml" tabindex="0">${
        done.manifests.map((m) => toYaml(m)).join("\n---\n")}</pre>
      <${Copy} text=${done.manifests.map((m) => toYaml(m)).join("\n---\n")}
        label="manifests as YAML"/>`}
  </section>`;
}
