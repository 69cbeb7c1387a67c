// spaces.js: a cluster's Spaces (HyperPod's JupyterLab and Code Editor
// environments): the list with owner, state, GPUs and why one waits,
// how to connect (the web UI URL, or the Session Manager port forward
// for a local IDE), stop, start and delete for their owner, and the
// create form (its fields, enums and limits read from space_create in
// the OpenAPI document).
import { html, useState } from "../lib.js";
import { api, enc, openapi, bodySchema } from "../api.js";
import {
  Badge, Loading, ErrorText, useLive, Updated, Copy, SchemaField, FormErrors,
  CopyRequest, problemErrors, buildBody, labelOf, scalarFields, confirmAction,
} from "../ui.js";
import { ClusterPicker } from "./training.js";

export function Spaces({ nav, cluster }) {
  const [st, reload] = useLive(nav, async () => {
    if (!cluster) return { doc: await openapi() };
    const [doc, list] = await Promise.all([openapi(), api("GET",
      "/clusters/" + enc(cluster) + "/spaces")]);
    return { doc, items: list.items || [] };
  }, [cluster], 5000);
  const d = st.data;
  return html`<section class="card"><h1>Spaces</h1>
    <${ClusterPicker} nav=${nav} section="spaces" cluster=${cluster}/>
    ${st.loading && cluster && !d && html`<${Loading}/>`}
    ${cluster && html`<${Updated} st=${st}/>`}
    <${ErrorText} error=${st.error}/></section>
    ${d && cluster && html`<${List} nav=${nav} cluster=${cluster}
      items=${d.items} reload=${reload}/>
      <${Create} nav=${nav} doc=${d.doc} cluster=${cluster}
        reload=${reload}/>`}`;
}

function List({ nav, cluster, items, reload }) {
  const base = "/clusters/" + enc(cluster) + "/spaces/";
  const [err, setErr] = useState(null);
  const run = async (fn) => {
    try { await fn(); if (nav.current()) { setErr(null); reload(); } } catch (e) {
      if (nav.current()) setErr(e);
    }
  };
  return html`<section class="card" id="spaces"><h2>Spaces</h2>
    ${items.length === 0 && html`<p class="muted">No Spaces.</p>`}
    ${items.map((sp) => {
      const path = base + enc(sp.space) + "?namespace=" + enc(sp.namespace);
      const verb = (v) => base + enc(sp.space) + ":" + v + "?namespace=" +
        enc(sp.namespace);
      return html`<article class="space" data-space=${sp.space}>
        <h3>${sp.display_name || sp.space} <${Badge} state=${sp.state}/></h3>
        <p class="muted">${[sp.template, sp.owner && "owner " + sp.owner,
          sp.access, sp.gpus ? sp.gpus + " GPU" : "CPU", sp.namespace,
          sp.queue, sp.idle_timeout_minutes && "idle shutdown after " +
          sp.idle_timeout_minutes + " min", sp.stopped_by && "stopped by " +
          sp.stopped_by].filter(Boolean).join(" · ")}</p>
        ${sp.pending && html`<p class="pending">${sp.pending.message}
          <span class="muted"> ${sp.pending.next_step}</span></p>`}
        <div class="actions">
          ${sp.desired === "Stopped" ? html`<button type="button"
            class="primary" onClick=${() => run(() => api("POST",
              verb("start")))}>Start</button>` : html`<button type="button"
            class="scale" onClick=${() => run(() => api("POST",
              verb("stop")))}>Stop</button>`}
          <button type="button" class="danger" onClick=${() => run(async () => {
            if (await confirmAction(`Delete Space ${sp.space} and its ` +
              "volume?"))
              await api("DELETE", path);
          })}>Delete</button></div>
        ${sp.state === "Running" && html`<${Connect} path=${path}
          name=${sp.space}/>`}
      </article>`;
    })}<${ErrorText} error=${err}/></section>`;
}

// How to reach a running Space: read from space_get when asked.
function Connect({ path, name }) {
  const [c, setC] = useState(null);
  const [err, setErr] = useState(null);
  const load = async () => {
    try { setC((await api("GET", path)).connect || {}); setErr(null); } catch (e) {
      setErr(e);
    }
  };
  return html`<details class="connect" onToggle=${(e) => e.target.open &&
    !c && load()}><summary>Connect</summary>
    ${c && c.allowed === false && html`<p class="muted">Only its owner may
      connect to this Space.</p>`}
    ${c && c.web_url && html`<p>Web UI <a href=${c.web_url} target="_blank"
      rel="noopener">${c.web_url}</a> <${Copy} text=${c.web_url}
      label=${"URL of " + name}/></p>`}
    ${c && c.ide && html`<p>Local IDE (Session Manager port forward, then
      open localhost:8888)</p><pre class="snippet" tabindex="0">${
        c.ide.ssm_command}</pre><${Copy} text=${c.ide.ssm_command}
      label=${"SSM command of " + name}/>`}
    <${ErrorText} error=${err}/></details>`;
}

function Create({ nav, doc, cluster, reload }) {
  const schema = bodySchema(doc, "space_create");
  const [v, setV] = useState({});
  const [errors, setErrors] = useState({});
  const [done, setDone] = useState(null);
  const fields = scalarFields(schema);
  const body = () => buildBody(schema, v);
  const send = async (dry) => {
    try {
      const r = await api("POST", "/clusters/" + enc(cluster) + "/spaces" +
        (dry ? "?dry_run=true" : ""), body());
      if (!nav.current()) return;
      setErrors({});
      setDone(r);
      if (!dry) reload();
    } catch (e) {
      if (nav.current()) setErrors(problemErrors(e));
    }
  };
  return html`<section class="card" id="space-create"><h2>Create a Space
    </h2><form id="space-form" novalidate onSubmit=${(e) => {
      e.preventDefault(); send(false);
    }}>
      <div class="grid">${fields.map((x) => html`<${SchemaField}
        key=${x.name} label=${labelOf(x.name)} field=${x.name}
        id=${"space-" + x.name.replace(/\./g, "-")} schema=${x.schema}
        value=${v[x.name]} errors=${errors}
        required=${(schema.required || []).includes(x.name)}
        onChange=${(val) => setV({ ...v, [x.name]: val })}/>`)}</div>
      <${FormErrors} errors=${errors} cluster=${cluster}
        shown=${fields.map((x) => x.name)}/>
      <div class="actions">
        <button type="button" id="space-plan" onClick=${() => send(true)}>
          Dry run</button>
        <button type="submit" class="primary" id="space-submit">Create
        </button>
        <${CopyRequest} method="POST"
          path=${"/clusters/" + enc(cluster) + "/spaces"} body=${body()}
          tool="space_create" args=${{ name: cluster, ...body() }}/></div>
    </form>
    ${done && html`<p class="muted" id="space-result" role="status">
      ${done.dry_run ? "Dry run: " : "Created: "}${(done.applied ||
        done.manifests || []).map((m) => m.kind + "/" + (m.name ||
        (m.metadata && m.metadata.name))).join(", ")}</p>`}
  </section>`;
}
