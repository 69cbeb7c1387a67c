// opform.js: a form for an operation of the table that has no page of
// its own (cluster import, model download): its fields, enums and limits
// are the OpenAPI document's, errors stand beside their fields, and it
// offers the same call as curl or as an MCP tool call.  An answer that
// starts an operation leads to the operation's page.
import { html, useState } from "./lib.js";
import { api, bodySchema, paramSchema } from "./api.js";
import { go } from "./router.js";
import {
  SchemaField, FormErrors, problemErrors, buildBody, labelOf, scalarFields,
  CopyRequest,
} from "./ui.js";

// path(values) is the request's path under /api/v1; pathFields names
// the path parameters the person fills in (e.g. a cluster's name).
export function OpForm({ nav, doc, opId, method, path, pathFields, args,
  id, submit, cluster, initial }) {
  const schema = bodySchema(doc, opId);
  const fields = (pathFields || []).map((name) => ({ name,
    schema: paramSchema(doc, opId, name), path: true }))
    .concat(scalarFields(schema));
  const [v, setV] = useState(initial || {});
  const [errors, setErrors] = useState({});
  const [answer, setAnswer] = useState(null);
  const bodyVals = Object.fromEntries(Object.entries(v).filter(([k]) =>
    !(pathFields || []).includes(k)));
  const body = buildBody(schema, bodyVals);
  const send = async (e) => {
    e.preventDefault();
    try {
      const r = await api(method, path(v), body);
      if (!nav.current()) return;
      setErrors({});
      if (r && r.operation_id) go("#/operations/" + r.operation_id);
      else setAnswer(r);
    } catch (err) {
      if (nav.current()) setErrors(problemErrors(err));
    }
  };
  return html`<form id=${id} novalidate onSubmit=${send}>
    <div class="grid">${fields.map((x) => html`<${SchemaField}
      label=${labelOf(x.name)} field=${x.name} id=${id + "-" +
        x.name.replace(/\./g, "-")} schema=${x.schema} value=${v[x.name]}
      errors=${errors} onChange=${(val) => setV({ ...v, [x.name]: val })}/>`)}
    </div>
    <${FormErrors} errors=${errors} cluster=${cluster}
      shown=${fields.map((x) => x.name)}/>
    <div class="actions"><button type="submit" class="primary"
      id=${id + "-submit"}>${submit}</button>
      <${CopyRequest} method=${method} path=${path(v)} body=${body}
        tool=${opId} args=${{ ...(args || {}), ...v, ...body }}/></div>
    ${answer && html`<pre class="answer" tabindex="0">${JSON.stringify(answer,
      null, 2)}</pre>`}
  </form>`;
}
