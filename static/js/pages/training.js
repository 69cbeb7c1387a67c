// training.js: training on a cluster: the recipe forms (PyTorch,
// LLaMA-Factory, MS-Swift, VERL; the fields and their limits are those
// of training_job_submit in the OpenAPI document), the job list, and a
// job's page with its pods and restarts, live logs (role="log") and a
// throughput chart parsed from the log lines.
import { html, useState, useEffect, useRef } from "../lib.js";
import { api, enc, openapi, bodySchema } from "../api.js";
import { go } from "../router.js";
import {
  Badge, Loading, ErrorText, useLoad, SchemaField, FormErrors,
  problemErrors, buildBody, labelOf, scalarFields,
} from "../ui.js";
import { followLogs } from "../live.js";
import { ThroughputChart, parseMetric } from "../chart.js";

// The cluster picker shared by the training and inference pages.
export function ClusterPicker({ nav, section, cluster }) {
  const [st] = useLoad(nav, () => api("GET", "/clusters"), []);
  const items = (st.data && st.data.items) || [];
  return html`<label for="cluster-pick" class="picker">Cluster
    <select id="cluster-pick" value=${cluster || ""}
      onChange=${(e) => go(`#/${section}/` + enc(e.target.value))}>
      <option value="">(choose a cluster)</option>
      ${items.map((c) => html`<option value=${c.name}>${c.name}</option>`)}
    </select></label>`;
}

export function Training({ nav, cluster }) {
  return html`<section class="card"><h1>Training</h1>
    <${ClusterPicker} nav=${nav} section="training" cluster=${cluster}/>
    </section>
    ${cluster && html`<${Jobs} nav=${nav} cluster=${cluster}/>
      <${Submit} nav=${nav} cluster=${cluster}/>`}`;
}

function Jobs({ nav, cluster }) {
  const [st] = useLoad(nav, () => api("GET", "/clusters/" + enc(cluster) +
    "/training-jobs"), [cluster]);
  const items = (st.data && st.data.items) || [];
  return html`<section class="card" id="jobs"><h2>Jobs</h2>
    ${st.loading && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${st.data && items.length === 0 && html`<p class="muted">No jobs.</p>`}
    ${items.length > 0 && html`<table><thead><tr><th>Job</th><th>Kind</th>
      <th>Namespace</th><th>State</th><th>Created</th></tr></thead>
      <tbody>${items.map((j) => html`<tr data-job=${j.job}>
        <td><a href=${`#/training/${enc(cluster)}/${enc(j.job)}`}>${j.job}</a>
        </td><td>${j.kind}</td><td>${j.namespace}</td>
        <td><${Badge} state=${j.state}/></td><td>${j.created}</td></tr>`)}
      </tbody></table>`}</section>`;
}

const SKIP = ["job_name", "recipe", "kind"];

function Submit({ nav, cluster }) {
  const [st] = useLoad(nav, openapi, []);
  const [v, setV] = useState({ job_name: "", recipe: "pytorch", kind: "" });
  const [env, setEnv] = useState("");
  const [errors, setErrors] = useState({});
  const [plan, setPlan] = useState(null);
  if (!st.data) return null;
  const schema = bodySchema(st.data, "training_job_submit");
  const props = schema.properties || {};
  const recipes = (props.recipe && props.recipe.enum) || [];
  const fields = scalarFields(schema).filter((x) => !SKIP.includes(x.name));
  const main = fields.filter((x) => !x.name.includes("."));
  const nested = fields.filter((x) => x.name.includes("."));
  const body = () => {
    const b = buildBody(schema, v);
    const m = {};
    for (const line of env.split("\n")) {
      const i = line.indexOf("=");
      if (i > 0) m[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    if (Object.keys(m).length) b.env = m;
    return b;
  };
  const send = async (dry) => {
    try {
      const r = await api("POST", `/clusters/${enc(cluster)}/training-jobs` +
        (dry ? "?dry_run=true" : ""), body());
      if (!nav.current()) return;
      setErrors({});
      if (dry) setPlan(r);
      else go(`#/training/${enc(cluster)}/${enc(r.job)}`);
    } catch (e) {
      if (nav.current()) { setErrors(problemErrors(e)); setPlan(null); }
    }
  };
  const f = (x) => html`<${SchemaField} label=${labelOf(x.name)}
    field=${x.name} id=${"tj-" + x.name.replace(".", "-")} schema=${x.schema}
    value=${v[x.name]} errors=${errors}
    onChange=${(val) => setV({ ...v, [x.name]: val })}/>`;
  return html`<section class="card" id="submit-job"><h2>Submit a job</h2>
    <div class="tabs" role="tablist" aria-label="Recipe">
      ${recipes.map((r) => html`<button type="button" role="tab"
        id=${"recipe-" + r} aria-selected=${v.recipe === r ? "true" : "false"}
        onClick=${() => setV({ ...v, recipe: r,
          kind: r === "verl" ? "ray" : v.kind })}>${r}</button>`)}
    </div>
    <form id="job-form" novalidate onSubmit=${(e) => {
      e.preventDefault(); send(false);
    }}>
      <div class="grid">
        ${f({ name: "job_name", schema: props.job_name })}
        ${f({ name: "kind", schema: props.kind })}
        ${main.map(f)}
      </div>
      <label for="tj-env">Environment (one NAME=value a line)
        <textarea id="tj-env" data-field="env" rows="3" value=${env}
          onInput=${(e) => setEnv(e.target.value)}></textarea></label>
      <details><summary>Log monitoring</summary>
        <div class="grid">${nested.map(f)}</div></details>
      <${FormErrors} errors=${errors} shown=${fields.map((x) => x.name)
        .concat(SKIP)}/>
      <div class="actions">
        <button type="button" id="job-plan" onClick=${() => send(true)}>
          Dry run</button>
        <button type="submit" class="primary" id="job-submit">Submit
          ${v.recipe} job</button></div>
    </form>
    ${plan && html`<h3>Manifests</h3><ul class="plan">${(plan.manifests ||
      []).map((m) => html`<li>${m.kind}/${m.metadata && m.metadata.name}
      </li>`)}</ul>`}
  </section>`;
}

export function TrainingJob({ nav, cluster, job }) {
  const [st, reload] = useLoad(nav, () => api("GET", `/clusters/` +
    `${enc(cluster)}/training-jobs/${enc(job)}`), [cluster, job]);
  const j = st.data;
  useEffect(() => {
    if (!j || j.terminal) return undefined;
    const t = setTimeout(reload, 3000);
    return () => clearTimeout(t);
  }, [j]);
  const del = async () => {
    await api("DELETE", `/clusters/${enc(cluster)}/training-jobs/` +
      enc(job));
    go("#/training/" + enc(cluster));
  };
  return html`<section class="card" id="job" data-state=${j && j.state}>
    <h1>Job ${job} ${j && html`<${Badge} state=${j.state}/>`}</h1>
    <p class="muted">${cluster} · ${j && j.kind} · ${j && j.namespace}</p>
    ${st.loading && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${j && html`<h2>Pods</h2><table id="pods"><thead><tr><th>Pod</th>
      <th>Phase</th><th>Node</th><th>Restarts</th><th>Reason</th></tr></thead>
      <tbody>${(j.pods || []).map((p) => html`<tr data-pod=${p.name}>
        <td>${p.name}</td><td><${Badge} state=${p.phase}/></td>
        <td>${p.node}</td><td>${p.restarts}</td><td>${p.reason}</td></tr>`)}
      </tbody></table>
      <h2>Conditions and recovery</h2>
      <ul class="conditions">${((j.status && j.status.conditions) || [])
        .map((c) => html`<li>${c.lastTransitionTime} ${c.type}=${c.status}
          ${c.reason ? " (" + c.reason + ")" : ""} ${c.message}</li>`)}
        ${j.status && j.status.restartCount > 0 && html`<li>restarted
          ${j.status.restartCount} times</li>`}</ul>
      <div class="actions"><button type="button" class="danger"
        id="job-delete" onClick=${del}>Delete job</button></div>`}
    </section>
    ${j && (j.pods || []).length > 0 && (started(j.pods[0]) ? html`<${Logs}
      nav=${nav} cluster=${cluster} job=${job} namespace=${j.namespace}
      pod=${j.pods[0].name}/>` : html`<section class="card" id="logs-card">
      <h2>Logs of ${j.pods[0].name}</h2><p class="muted" id="logs-waiting">
      The log follows once the pod's container has started.</p></section>`)}`;
}

/* A pod has a log to follow once its container started; before that
 * the API server answers the log request with an error. */
const started = (p) => ["Running", "Succeeded", "Failed"].includes(p.phase);

function Logs({ nav, cluster, job, namespace, pod }) {
  const [lines, setLines] = useState([]);
  const [points, setPoints] = useState([]);
  const [ended, setEnded] = useState("");
  const box = useRef(null);
  useEffect(() => {
    const buf = [];
    const pts = [];
    let end = "";
    let flush = null;
    /* Lines are shown once a frame; the end is shown with the last of
     * them, never before. */
    const later = () => {
      if (flush) return;
      flush = requestAnimationFrame(() => {
        flush = null;
        if (!nav.current()) return;
        setLines(buf.slice(-2000));
        setPoints(pts.slice());
        if (end) setEnded(end);
      });
    };
    const stop = followLogs({ cluster, namespace, pod, job },
      (seq, text) => {
        buf.push({ seq, text });
        const m = parseMetric(text);
        if (m) pts.push(m);
        later();
      }, (via) => { end = via; later(); });
    return () => { stop(); if (flush) cancelAnimationFrame(flush); };
  }, [cluster, job, pod]);
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines]);
  return html`<section class="card" id="logs-card">
    <h2>Logs of ${pod}</h2>
    <${ThroughputChart} points=${points}/>
    <ol class="logs" id="logs" role="log" aria-live="polite"
      aria-label=${"Log of " + pod} ref=${box}>${lines.map((l) => html`<li
      data-seq=${l.seq}>${l.text}</li>`)}</ol>
    ${ended && html`<p class="muted" id="logs-ended">The pod's log ended.</p>`}
  </section>`;
}
