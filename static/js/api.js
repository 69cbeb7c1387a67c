// api.js: the REST client.  Every call goes to /api/v1 with the session
// cookie the login set; a problem+json answer becomes an ApiError that
// carries the problem (its detail and per-field errors).  The OpenAPI
// document is fetched once: forms read their enums and limits from it.
// The team chosen in the header's switcher rides on every call as the
// Slipway-Team header: rows that take a team use it when the request
// names none (the server's rule decides, as for a team argument).

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) ||
      "HTTP " + status);
    this.status = status;
    this.problem = problem || {};
  }
}

let unauthorized = () => {};

// fn() is called when a call answers 401 (the session is gone).
export function onUnauthorized(fn) {
  unauthorized = fn;
}

export const enc = encodeURIComponent;

const TEAM_KEY = "slipway.team";

// The team the UI works as ("" : none chosen), kept for this tab.
export function currentTeam() {
  return sessionStorage.getItem(TEAM_KEY) || "";
}

export function setTeam(team) {
  if (team) sessionStorage.setItem(TEAM_KEY, team);
  else sessionStorage.removeItem(TEAM_KEY);
}

export async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (currentTeam()) opts.headers["Slipway-Team"] = currentTeam();
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch("/api/v1" + path, opts);
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (r.status === 401 && path !== "/login" && path !== "/whoami")
    unauthorized();
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

let openapiDoc = null;

// The server's OpenAPI document, fetched once.
export function openapi() {
  if (!openapiDoc) {
    openapiDoc = api("GET", "/openapi.json").catch((e) => {
      openapiDoc = null;
      throw e;
    });
  }
  return openapiDoc;
}

function findOp(doc, opId) {
  for (const [path, item] of Object.entries(doc.paths || {}))
    for (const [method, op] of Object.entries(item))
      if (op && op.operationId === opId) return { path, method, op };
  return null;
}

// Whether the server offers the operation (an MCP tool name).
export function hasOp(doc, opId) {
  return findOp(doc, opId) !== null;
}

// The JSON schema of an operation's request body ({} when none).
export function bodySchema(doc, opId) {
  const f = findOp(doc, opId);
  const c = f && f.op.requestBody && f.op.requestBody.content;
  return (c && c["application/json"] && c["application/json"].schema) || {};
}

// The schema of an operation's query or path parameter.
export function paramSchema(doc, opId, name) {
  const f = findOp(doc, opId);
  const p = f && (f.op.parameters || []).find((x) => x.name === name);
  return (p && p.schema) || {};
}

// The schema at a dotted path ("instance_groups.count" walks into
// array items and object properties).
export function schemaAt(schema, dotted) {
  let s = schema;
  for (const key of dotted.split(".")) {
    while (s && s.type === "array") s = s.items;
    s = s && s.properties ? s.properties[key] : undefined;
    if (!s) return {};
  }
  return s;
}
