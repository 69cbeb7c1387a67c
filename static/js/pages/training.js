// training.js: training on a cluster: the recipe forms (PyTorch,
// LLaMA-Factory, MS-Swift, VERL; the fields and their limits are those
// of training_job_submit in the OpenAPI document), the job list, and a
// job's page: its pods with why each is not running (the scheduler's
// message), restarts, links to their nodes, live logs (role="log") of
// the pod chosen, with search, pause and download, and the throughput
// and loss charts, progress and ETA parsed from the log lines, and its
// checkpoints (the newest complete one marked) with "resume from this
// checkpoint" and the retention rule, dry run first.  The job list and
// the job are live; deleting a job asks first.  The account's managed
// MLflow Apps are listed beside them: one is created for the cluster
// (its fields are mlflow_app_create's), a ready one opens in a new tab
// by a presigned URL, and a job names one with mlflow_app.
import { html, useState, useEffect, useRef } from "../lib.js";
import { api, enc, openapi, bodySchema } from "../api.js";
import { go } from "../router.js";
import {
  Badge, Loading, ErrorText, useLoad, useLive, Updated, SchemaField,
  FormErrors, problemErrors, buildBody, labelOf, scalarFields, confirmAction,
  toYaml, CopyRequest, Copy, fmtTime,
} from "../ui.js";
import { followLogs } from "../live.js";
import { ThroughputChart, LossChart, parseMetric } from "../chart.js";
import { DataTable } from "../table.js";
import { Diagnose } from "../diagnose.js";
import { OpForm } from "../opform.js";

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

export function Training({ nav, cluster, query }) {
  return html`<section class="card"><h1>Training</h1>
    <${ClusterPicker} nav=${nav} section="training" cluster=${cluster}/>
    </section>
    ${cluster && html`<${Jobs} nav=${nav} cluster=${cluster} query=${query}/>
      <${Submit} nav=${nav} cluster=${cluster}/>
      <${MlflowApps} nav=${nav} cluster=${cluster}/>
      <${Download} nav=${nav} cluster=${cluster}/>`}`;
}

// Managed MLflow Apps: their status, the UI of a ready one, a new one.
function MlflowApps({ nav, cluster }) {
  const [st] = useLive(nav, async () => {
    const [doc, apps] = await Promise.all([openapi(),
      api("GET", "/mlflow-apps")]);
    return { doc, items: apps.items || [] };
  }, [cluster], 15000);
  const [error, setError] = useState(null);
  const open = async (app) => {
    setError(null);
    try {
      const r = await api("POST", "/mlflow-apps/" + enc(app) +
        ":presigned-url", {});
      if (nav.current() && r && r.url) window.open(r.url, "_blank",
        "noopener");
    } catch (x) {
      if (nav.current()) setError(x);
    }
  };
  if (!st.data) return html`<section class="card" id="mlflow-apps">
    <h2>MLflow Apps</h2><${ErrorText} error=${st.error}/></section>`;
  return html`<section class="card" id="mlflow-apps"><h2>MLflow Apps</h2>
    <p class="muted">A job logs to a ready app when its mlflow_app names
      it; its ARN becomes MLFLOW_TRACKING_URI.</p>
    ${st.data.items.length === 0 ? html`<p class="muted">None yet.</p>` :
      html`<ul class="plain">${st.data.items.map((a) => html`<li
        data-app=${a.name}>${a.name} <${Badge} state=${a.status}/>
        ${a.ready && html`<button type="button" class="link"
          id=${"mlflow-open-" + a.name} onClick=${() => open(a.name)}>Open
          MLflow UI</button>`}</li>`)}</ul>`}
    <${ErrorText} error=${error}/>
    <details class="add"><summary>Create an MLflow App</summary>
      <${OpForm} nav=${nav} doc=${st.data.doc} opId="mlflow_app_create"
        method="POST" id="mlflow-create-form" cluster=${cluster}
        initial=${{ cluster }} path=${() => "/mlflow-apps"}
        submit="Create MLflow App"/></details></section>`;
}

// A Hugging Face model into the cluster's S3 (/data/models).
function Download({ nav, cluster }) {
  const [st] = useLoad(nav, openapi, []);
  if (!st.data) return null;
  return html`<section class="card" id="model-download"><h2>Download a
    model</h2><details class="add"><summary>Into /data/models</summary>
    <${OpForm} nav=${nav} doc=${st.data} opId="model_download"
      method="POST" id="download-form" cluster=${cluster}
      args=${{ name: cluster }}
      path=${() => `/clusters/${enc(cluster)}/models:download`}
      submit="Download model"/></details></section>`;
}

function Jobs({ nav, cluster, query }) {
  const [st] = useLive(nav, () => api("GET", "/clusters/" + enc(cluster) +
    "/training-jobs"), [cluster], 10000);
  const items = (st.data && st.data.items) || [];
  const columns = [
    { key: "job", label: "Job", cell: (j) => html`<a
      href=${`#/training/${enc(cluster)}/${enc(j.job)}`}>${j.job}</a>` },
    { key: "kind", label: "Kind", filter: true },
    { key: "namespace", label: "Namespace", filter: true },
    { key: "state", label: "State", filter: true,
      cell: (j) => html`<${Badge} state=${j.state}/>` },
    { key: "pending", label: "Why pending", cls: "reason",
      value: (j) => (j.pending ? j.pending.reason + " " + j.pending.message
        : ""),
      cell: (j) => j.pending && html`<strong>${j.pending.reason}</strong>
        ${j.pending.position && html` · #${j.pending.position} in queue`}
        <div class="pod-message">${j.pending.message}</div>` },
    { key: "elastic", label: "Nodes", cls: "reason",
      value: (j) => (j.elastic ? j.elastic.nodes + "/" + j.elastic.max_nodes
        + " " + j.elastic.reason : ""),
      cell: (j) => j.elastic && html`${
        j.elastic.nodes + " of " + j.elastic.max_nodes + " · "}<strong>${
        j.elastic.reason}</strong>` },
    { key: "created", label: "Created" },
  ];
  return html`<section class="card" id="jobs"><h2>Jobs</h2>
    <${Updated} st=${st}/>
    ${st.loading && !st.data && !st.error && html`<${Loading}/>`}
    <${ErrorText} error=${st.error}/>
    ${st.data && html`<${DataTable} id="job-list" label="Training jobs"
      columns=${columns} rows=${items} query=${query}
      rowAttrs=${(j) => ({ "data-job": j.job })} empty="No jobs."/>`}
  </section>`;
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
    onChange=${(val) => {
      setV({ ...v, [x.name]: val });
      if (errors[x.name]) setErrors({ ...errors, [x.name]: undefined });
    }}/>`;
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
      <${FormErrors} errors=${errors} cluster=${cluster}
        shown=${fields.map((x) => x.name).concat(SKIP)}/>
      <div class="actions">
        <button type="button" id="job-plan" onClick=${() => send(true)}>
          Dry run</button>
        <button type="submit" class="primary" id="job-submit">${"Submit " +
          v.recipe + " job"}</button>
        <${CopyRequest} method="POST"
          path=${`/clusters/${enc(cluster)}/training-jobs`} body=${body()}
          tool="training_job_submit" args=${{ name: cluster, ...body() }}/>
      </div>
    </form>
    ${plan && html`<h3>Manifests (dry run)</h3><ul class="plan"
      id="job-plan-list">${(plan.manifests || []).map((m) => html`<li>
      ${m.kind}/${m.metadata && m.metadata.name}</li>`)}</ul>
      <pre class="snippet yaml" id="job-plan-yaml" tabindex="0">${(
        plan.manifests || []).map((m) => toYaml(m)).join("\n---\n")}</pre>
      <${Copy} text=${(plan.manifests || []).map((m) => toYaml(m))
        .join("\n---\n")} label="manifests as YAML"/>`}
  </section>`;
}

export function TrainingJob({ nav, cluster, job, query }) {
  const [st] = useLive(nav, () => api("GET", `/clusters/` +
    `${enc(cluster)}/training-jobs/${enc(job)}`), [cluster, job], 5000);
  const j = st.data;
  const [pick, setPick] = useState("");
  const [err, setErr] = useState(null);
  const del = async () => {
    if (!await confirmAction(`Delete training job ${job} on ${cluster}? Its
      pods are stopped; its outputs in S3 stay.`, { title: "Delete job " +
      job, yes: "Delete job" })) return;
    try {
      await api("DELETE", `/clusters/${enc(cluster)}/training-jobs/` +
        enc(job));
      if (nav.current()) go("#/training/" + enc(cluster));
    } catch (e) { if (nav.current()) setErr(e); }
  };
  const pods = (j && j.pods) || [];
  const pod = pods.find((p) => p.name === pick) || pods[0];
  const stuck = pods.filter((p) => p.phase === "Pending" && p.message);
  return html`<section class="card" id="job" data-state=${j && j.state}>
    <h1>Job ${job} ${j && html`<${Badge} state=${j.state}/>`}</h1>
    <p class="muted">${cluster} · ${j && j.kind} · ${j && j.namespace}</p>
    <${Updated} st=${st}/>
    ${st.loading && !j && !st.error && html`<${Loading}/>`}
    <${ErrorText} error=${st.error || err}/>
    ${j && j.pending && html`<div class="why" id="why-pending"
      role="status"><strong>Why it waits: ${j.pending.reason}</strong>
      ${j.pending.queue && html`<p>Queue ${j.pending.queue}${
        j.pending.position ? ", position " + j.pending.position : ""}${
        j.pending.admitted ? ", admitted" : ", not admitted yet"}</p>`}
      <p>${j.pending.message}</p><p><em>Next:</em> ${j.pending.next_step}</p>
      ${j.pending.detail && html`<p class="muted">${j.pending.detail}</p>`}
      </div>`}
    ${j && j.elastic && html`<div class="why" id="why-elastic"
      role="status"><strong>${"Elastic: " + j.elastic.nodes +
        " of at most " + j.elastic.max_nodes + " nodes (at least " +
        j.elastic.min_nodes + "), " + j.elastic.running + " running · " +
        j.elastic.reason}</strong>
      <p>${j.elastic.message}</p><p><em>Next:</em> ${j.elastic.next_step}</p>
      ${j.elastic.detail && html`<p class="muted">${j.elastic.detail}</p>`}
      </div>`}
    ${stuck.length > 0 && html`<div class="why" id="why-stuck"
      role="status"><strong>Why ${stuck.length === 1 ? "a pod is" :
      stuck.length + " pods are"} not running:</strong>
      ${[...new Set(stuck.map((p) => (p.reason ? p.reason + ": " : "") +
        p.message))].map((m) => html`<p>${m}</p>`)}</div>`}
    ${j && html`<h2>Pods</h2><${DataTable} id="pods" ns="pods" label="Pods"
      rows=${pods} query=${query} rowAttrs=${(p) => ({ "data-pod": p.name })}
      columns=${[
        { key: "name", label: "Pod" },
        { key: "phase", label: "Phase", filter: true,
          cell: (p) => html`<${Badge} state=${p.phase}/>` },
        { key: "node", label: "Node", cell: (p) => (nodeId(p.node) ?
          html`<a href=${"#/clusters/" + enc(cluster) + "/nodes/" +
          enc(nodeId(p.node))}>${p.node}</a>` : p.node || "—") },
        { key: "restarts", label: "Restarts" },
        { key: "reason", label: "Reason", cls: "reason",
          value: (p) => (p.reason || "") + " " + (p.message || ""),
          cell: (p) => html`${p.reason && html`<strong>${p.reason}</strong>`}
            ${p.message && html`<div class="pod-message">${p.message}</div>`}`
        }]}/>
      <${PodEvents} pods=${pods} query=${query}/>
      <h2>Conditions and recovery</h2>
      <ul class="conditions">${((j.status && j.status.conditions) || [])
        .map((c) => html`<li>${c.lastTransitionTime} ${c.type}=${c.status}
          ${c.reason ? " (" + c.reason + ")" : ""} ${c.message}</li>`)}
        ${j.status && j.status.restartCount > 0 && html`<li>restarted
          ${j.status.restartCount} times</li>`}</ul>
      <div class="actions"><button type="button" class="danger"
        id="job-delete" onClick=${del}>Delete job</button></div>
      ${(stuck.length > 0 || j.state === "Failed") && html`<${Diagnose}
        nav=${nav} cluster=${cluster}/>`}`}
    </section>
    ${j && j.kind !== "Job" && html`<${Checkpoints} nav=${nav}
      cluster=${cluster} job=${job} namespace=${j.namespace}
      query=${query}/>`}
    ${pod && html`<section class="card" id="logs-card">
      <h2>Logs</h2>
      ${pods.length > 1 && html`<label for="log-pod" class="picker">Pod (rank)
        <select id="log-pod" value=${pod.name}
          onChange=${(e) => setPick(e.target.value)}>${pods.map((p, i) =>
          html`<option value=${p.name}>${"rank " + i + ": " + p.name}
          </option>`)}</select></label>`}
      ${started(pod) ? html`<${Logs} key=${pod.name} nav=${nav}
        cluster=${cluster} job=${job} namespace=${j.namespace}
        pod=${pod.name}/>` : html`<p class="muted" id="logs-waiting">
        The log of ${pod.name} follows once its container has started.</p>`}
    </section>`}`;
}

// Each pod's newest Kubernetes events (the scheduler's FailedScheduling
// says why a pod waits; the kubelet's Pulling, BackOff... why it does
// not start), as training_job_get answers them.
function PodEvents({ pods, query }) {
  const rows = pods.flatMap((p) => (p.events || []).map((e, i) =>
    ({ ...e, pod: p.name, key: p.name + "-" + i })));
  if (rows.length === 0) return null;
  return html`<h2>Pod events</h2><${DataTable} id="pod-events"
    ns="podevents" label="Pod events" rows=${rows} query=${query}
    rowAttrs=${(e) => ({ "data-pod": e.pod, "data-reason": e.reason,
      class: e.type === "Warning" ? "level-Warn" : "" })} columns=${[
      { key: "pod", label: "Pod", filter: true },
      { key: "type", label: "Type", filter: true,
        cell: (e) => html`<${Badge} state=${e.type}/>` },
      { key: "reason", label: "Reason", filter: true },
      { key: "message", label: "Message", cls: "event-message" },
      { key: "count", label: "Count" },
      { key: "time", label: "Last seen", cell: (e) => (e.time ?
        fmtTime(Date.parse(e.time)) : "—") }]}/>`;
}

/* The HyperPod node id of a Kubernetes node ("hyperpod-i-0abc..."). */
const nodeId = (name) => {
  const m = /(i-[0-9a-f]{8,17})$/.exec(name || "");
  return m ? m[1] : "";
};

/* A pod has a log to follow once its container started; before that
 * the API server answers the log request with an error. */
const started = (p) => ["Running", "Succeeded", "Failed"].includes(p.phase);

function Logs({ nav, cluster, job, namespace, pod }) {
  const [lines, setLines] = useState([]);
  const [points, setPoints] = useState([]);
  const [ended, setEnded] = useState("");
  const [paused, setPaused] = useState(false);
  const [find, setFind] = useState("");
  const pausedRef = useRef(false);
  const box = useRef(null);
  const seen = useRef([]);
  useEffect(() => {
    const buf = [];
    const pts = [];
    let end = "";
    let flush = null;
    /* Lines are shown once a frame; the end is shown with the last of
     * them, never before.  Paused, they are kept but not shown. */
    const later = () => {
      if (flush) return;
      flush = requestAnimationFrame(() => {
        flush = null;
        if (!nav.current()) return;
        if (!pausedRef.current) setLines(buf.slice(-2000));
        setPoints(pts.slice());
        if (end) setEnded(end);
      });
    };
    seen.current = buf;
    const stop = followLogs({ cluster, namespace, pod, job },
      (seq, text) => {
        buf.push({ seq, text });
        const m = parseMetric(text);
        if (m) { m.at = Date.now(); pts.push(m); }
        later();
      }, (via) => { end = via; later(); });
    return () => { stop(); if (flush) cancelAnimationFrame(flush); };
  }, [cluster, job, pod]);
  useEffect(() => {
    if (box.current && !paused) box.current.scrollTop = box.current.scrollHeight;
  }, [lines]);
  const needle = find.trim().toLowerCase();
  const shown = needle ? lines.filter((l) => l.text.toLowerCase()
    .includes(needle)) : lines;
  const last = points[points.length - 1];
  let eta = "";
  if (last && last.total && points.length >= 2) {
    const first = points[0];
    const rate = (last.step - first.step) / ((last.at - first.at) / 1000);
    if (rate > 0 && last.at - first.at > 1000)
      eta = Math.round((last.total - last.step) / rate) + " s";
  }
  const download = () => {
    const blob = new Blob([seen.current.map((l) => l.text).join("\n") +
      "\n"], { type: "text/plain" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `${job}-${pod}.log`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  return html`<div id="log-view">
    ${last && last.total && html`<label for="train-progress"
      class="progress-label" id="train-progress-label">${`step ${last.step}
      of ${last.total}`}${eta ? " · about " + eta + " left" : ""}${last.loss
      !== null ? " · loss " + last.loss : ""}
      <progress id="train-progress" max=${last.total}
        value=${last.step}></progress></label>`}
    <div class="charts"><${ThroughputChart} points=${points}/>
      <${LossChart} points=${points}/></div>
    <div class="table-tools">
      <label class="compact" for="log-find">Search
        <input type="search" id="log-find" value=${find}
          onInput=${(e) => setFind(e.target.value)}/></label>
      <button type="button" id="log-pause" aria-pressed=${paused ? "true" :
        "false"} onClick=${() => {
          pausedRef.current = !paused;
          setPaused(!paused);
          if (paused) setLines(seen.current.slice(-2000));
        }}>${paused ? "Resume" : "Pause"}</button>
      <button type="button" id="log-download" onClick=${download}>Download
        </button>
    </div>
    <div class="logs" id="logs" role="log" aria-live="polite" tabindex="0"
      aria-label=${"Log of " + pod} ref=${box}><ol>${shown.map((l) =>
      html`<li data-seq=${l.seq}>${l.text}</li>`)}</ol></div>
    ${ended && html`<p class="muted" id="logs-ended">The pod's log ended.</p>`}
  </div>`;
}

const fmtBytes = (n) => (n >= 1 << 30 ? (n / (1 << 30)).toFixed(1) + " GiB"
  : n >= 1 << 20 ? (n / (1 << 20)).toFixed(1) + " MiB"
    : n >= 1024 ? (n / 1024).toFixed(1) + " KiB" : n + " B");

// A job's checkpoints (training_checkpoint_list), resuming from one
// (training_checkpoint_resume) and its retention rule
// (training_checkpoint_retain: the dry run lists the keys it deletes).
function Checkpoints({ nav, cluster, job, namespace, query }) {
  const base = `/clusters/${enc(cluster)}/training-jobs/${enc(job)}`;
  const ns = "?namespace=" + enc(namespace);
  const [st] = useLive(nav, () => api("GET", base + "/checkpoints" + ns),
    [cluster, job], 15000);
  const [resume, setResume] = useState("");
  const [name, setName] = useState("");
  const [keep, setKeep] = useState(2);
  const [plan, setPlan] = useState(null);
  const [errors, setErrors] = useState({});
  const [err, setErr] = useState(null);
  const c = st.data;
  const doResume = async (e) => {
    e.preventDefault();
    try {
      const r = await api("POST", `${base}/checkpoints/${enc(resume)}` +
        "/resume" + ns, { job_name: name });
      if (nav.current()) go(`#/training/${enc(cluster)}/${enc(r.job)}`);
    } catch (x) { if (nav.current()) setErrors(problemErrors(x)); }
  };
  const retain = async (dry) => {
    try {
      const r = await api("POST", base + "/checkpoint-retention" + ns +
        (dry ? "&dry_run=true" : ""), { keep_last: Number(keep) });
      if (!nav.current()) return;
      setErr(null);
      if (dry) setPlan(r); else go("#/operations/" + enc(r.operation_id));
    } catch (x) { if (nav.current()) setErr(x); }
  };
  const keys = plan ? (plan.calls || []).filter((x) =>
    x.operation === "DeleteObjects").flatMap((x) =>
    x.input.Delete.Objects.map((o) => o.Key)) : [];
  return html`<section class="card" id="checkpoints"><h2>Checkpoints</h2>
    <${Updated} st=${st}/>
    <${ErrorText} error=${st.error || err}/>
    ${c && html`<p class="muted">${c.listed ? `s3://${c.bucket}/${c.prefix}`
      : c.note}</p>`}
    ${c && c.listed && html`<${DataTable} id="checkpoint-list"
      ns="ckpt" label="Checkpoints" rows=${c.items} query=${query}
      empty="No checkpoints yet."
      rowAttrs=${(x) => ({ "data-checkpoint": x.name })} columns=${[
        { key: "name", label: "Checkpoint", cell: (x) => html`${x.name}
          ${x.newest_complete && html` <strong id="newest-complete">
          (newest complete)</strong>`}` },
        { key: "step", label: "Step" },
        { key: "time", label: "Written", cell: (x) => (x.time ?
          fmtTime(Date.parse(x.time)) : "—") },
        { key: "size_bytes", label: "Size", cell: (x) => fmtBytes(
          x.size_bytes) },
        { key: "complete", label: "State", filter: true,
          value: (x) => (x.complete ? "complete" : "partial"),
          cell: (x) => html`<${Badge} state=${x.complete ? "Complete" :
            "Partial"}/>` },
        { key: "resume", label: "", cell: (x) => x.complete && html`<button
          type="button" class="resume" onClick=${() => {
            setResume(x.name); setName(job + "-" + x.name);
          }}>Resume from this checkpoint</button>` }]}/>`}
    ${resume && html`<form id="resume-form" onSubmit=${doResume}>
      <p>A new job with ${job}'s spec, resuming from ${resume}.</p>
      <label for="resume-name">New job name <input id="resume-name"
        data-field="job_name" value=${name}
        onInput=${(e) => setName(e.target.value)}/></label>
      <${FormErrors} errors=${errors} cluster=${cluster}
        shown=${["job_name"]}/>
      <div class="actions"><button type="submit" class="primary"
        id="resume-submit">Submit resumed job</button></div></form>`}
    ${c && c.listed && html`<details class="add"><summary>Retention
      </summary><label for="keep-last">Keep the last complete checkpoints
      <input id="keep-last" type="number" min="1" max="1000" value=${keep}
        onInput=${(e) => setKeep(e.target.value)}/></label>
      <div class="actions"><button type="button" id="retain-plan"
        onClick=${() => retain(true)}>Dry run</button>
        <button type="button" class="danger" id="retain-apply"
          onClick=${() => retain(false)}>Delete older checkpoints</button>
      </div>
      ${plan && html`<p>${keys.length} object(s) would be deleted:</p>
        <ul class="plan" id="retain-keys">${keys.map((k) => html`<li>${k}
        </li>`)}</ul>`}</details>`}
  </section>`;
}
