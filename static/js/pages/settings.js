// settings.js: API tokens (create with a scope, list, revoke) and the
// agent connection: the MCP URL, a read-only token made for it, and the
// Kiro and Claude configuration that use them.
import { html, useState } from "../lib.js";
import { api, enc, openapi, bodySchema, schemaAt } from "../api.js";
import {
  Badge, Loading, ErrorText, useLoad, SchemaField, FormErrors,
  problemErrors, fmtTime, confirmAction, Copy,
} from "../ui.js";
import { DataTable } from "../table.js";

export function Settings({ nav, query }) {
  const [st, reload] = useLoad(nav, async () => {
    const [doc, list] = await Promise.all([openapi(),
      api("GET", "/tokens").catch((e) => ({ error: e }))]);
    return { doc, list };
  }, []);
  const d = st.data;
  return html`<section class="card"><h1>Settings</h1>
    ${st.loading && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    </section>
    ${d && html`<${Tokens} nav=${nav} doc=${d.doc} list=${d.list}
      reload=${reload} query=${query}/><${Agent} nav=${nav}/>`}`;
}

function Tokens({ nav, doc, list, reload, query }) {
  const schema = bodySchema(doc, "token_create");
  const [v, setV] = useState({ name: "", scope: "read" });
  const [errors, setErrors] = useState({});
  const [made, setMade] = useState(null);
  if (list.error) return html`<section class="card" id="tokens">
    <h2>Tokens</h2><${ErrorText} error=${list.error}/></section>`;
  const create = async (e) => {
    e.preventDefault();
    try {
      const r = await api("POST", "/tokens", v);
      if (!nav.current()) return;
      setErrors({});
      setMade(r);
      reload();
    } catch (x) { if (nav.current()) setErrors(problemErrors(x)); }
  };
  return html`<section class="card" id="tokens"><h2>Tokens</h2>
    <${DataTable} id="token-list" ns="tokens" label="Tokens"
      rows=${list.items} query=${query} columns=${[
        { key: "name", label: "Name" },
        { key: "scope", label: "Scope", filter: true },
        { key: "created_ms", label: "Created",
          cell: (t) => fmtTime(t.created_ms) },
        { key: "last_used_ms", label: "Last used",
          cell: (t) => fmtTime(t.last_used_ms) },
        { key: "state", label: "State", filter: true,
          value: (t) => (t.revoked ? "revoked" : "active"),
          cell: (t) => (t.revoked ? html`<${Badge} state="revoked"/>` :
            html`<button type="button" class="danger revoke"
            onClick=${async () => {
              if (!await confirmAction(`Revoke token ${t.name}?`)) return;
              await api("DELETE", "/tokens/" + enc(t.name));
              reload();
            }}>Revoke</button>`) }]}
      rowAttrs=${(t) => ({ "data-token": t.name })}/>
    <form id="token-form" novalidate onSubmit=${create}><div class="grid">
      <${SchemaField} label="Token name" field="name" id="token-name"
        schema=${schemaAt(schema, "name")} value=${v.name} errors=${errors}
        onChange=${(x) => setV({ ...v, name: x })}/>
      <${SchemaField} label="Scope" field="scope" id="token-scope" required
        schema=${schemaAt(schema, "scope")} value=${v.scope} errors=${errors}
        onChange=${(x) => setV({ ...v, scope: x })}/></div>
      <${FormErrors} errors=${errors} shown=${["name", "scope"]}/>
      <div class="actions"><button type="submit" class="primary"
        id="token-create">Create token</button></div></form>
    ${made && html`<p role="status" id="token-made">New token
      (shown once): <code>${made.token}</code><${Copy} text=${made.token}
      label="the new token"/></p>`}</section>`;
}

function Agent({ nav }) {
  const url = location.origin + "/mcp";
  const [token, setToken] = useState("");
  const [err, setErr] = useState(null);
  const shown = token || "<a read-only token>";
  const make = async () => {
    try {
      const r = await api("POST", "/tokens", { name: "agent-" +
        new Date().toISOString().replace(/[^0-9]/g, "").slice(0, 14),
        scope: "read" });
      if (nav.current()) { setErr(null); setToken(r.token); }
    } catch (e) { if (nav.current()) setErr(e); }
  };
  const kiro = JSON.stringify({ mcpServers: { slipway: { url,
    headers: { Authorization: "Bearer " + shown } } } }, null, 2);
  const claude = `claude mcp add --transport http slipway ${url} \\\n` +
    `  --header "Authorization: Bearer ${shown}"`;
  return html`<section class="card" id="agent"><h2>Agent connection</h2>
    <dl><dt>MCP URL</dt><dd><code id="mcp-url">${url}</code><${Copy}
      text=${url} label="MCP URL"/></dd>
      <dt>Read-only token</dt><dd>${token ? html`<code id="agent-token">
        ${token}</code><${Copy} text=${token} label="read-only token"/>` :
        html`<button type="button" id="agent-token-make"
        onClick=${make}>Create a read-only token</button>`}</dd></dl>
    <${ErrorText} error=${err}/>
    <h3>Kiro (<code>.kiro/settings/mcp.json</code>)</h3>
    <pre class="snippet" id="kiro-snippet" tabindex="0">${kiro}</pre>
    <${Copy} text=${kiro} label="Kiro configuration"/>
    <h3>Claude Code</h3>
    <pre class="snippet" id="claude-snippet" tabindex="0">${claude}</pre>
    <${Copy} text=${claude} label="Claude Code command"/>
  </section>`;
}
