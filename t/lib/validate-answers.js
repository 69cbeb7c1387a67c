// validate-answers.js DOC ANSWERS: check recorded answers against an
// OpenAPI 3.1 document with a JSON Schema 2020-12 validator (ajv and
// ajv-formats from npm).  ANSWERS is a JSON array of {method, path,
// status, type, body, dry_run}.  Each answer must match an operation of
// the document, a response of its status (no "default" stands in), a
// media type of that response, and, for JSON, the response's schema.
// A refusal of a path no operation serves (404, 405) is checked against
// the Problem schema alone.  An answer without a body and a media type
// fits a response that documents no content.
// Prints one JSON object: {checked, exact, loose: [operationId...],
// failures: [text...]}; exits 1 when there is a failure.
const fs = require("fs");
const path = require("path");
const mods = path.join(__dirname, "..", "node_modules");
const Ajv2020 = require(path.join(mods, "ajv", "dist", "2020")).default;
const addFormats = require(path.join(mods, "ajv-formats")).default;

const doc = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const answers = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);

// Components by an id of their own, their local references rewritten.
function rewrite(node) {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== "object") return node;
    const out = {};
    for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string" &&
            v.startsWith("#/components/schemas/"))
            out[k] = "urn:slipway:" + v.slice(21);
        else
            out[k] = rewrite(v);
    }
    return out;
}
for (const [name, s] of Object.entries(doc.components.schemas || {}))
    ajv.addSchema(Object.assign(rewrite(s), { $id: "urn:slipway:" + name }));

function deref(r) {
    if (r && r.$ref && r.$ref.startsWith("#/components/responses/"))
        return doc.components.responses[r.$ref.slice(23)];
    return r;
}

// Templates as anchored expressions: {x} is one segment without ':'.
const routes = [];
for (const [tmpl, item] of Object.entries(doc.paths)) {
    const re = new RegExp("^" + tmpl.split(/(\{[^}]+\})/).map((p) =>
        p.startsWith("{") ? "[^/:]+" :
            p.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("") + "$");
    for (const [m, op] of Object.entries(item))
        routes.push({ re, method: m.toUpperCase(), op });
}

function bare(schema) {
    const s = schema && schema.$ref ? doc.components.schemas[
        schema.$ref.slice(21)] : schema;
    return !s || (s.type === "object" && !s.properties && !s.oneOf);
}

const compiled = new Map();
const result = { checked: 0, exact: 0, loose: [], failures: [] };

// One answer's body against a schema (compiled once per key).
function check(where, key, a, schema) {
    if (!compiled.has(key))
        compiled.set(key, ajv.compile(rewrite(schema)));
    const v = compiled.get(key);
    let body;
    try {
        body = JSON.parse(a.body);
    } catch (e) {
        result.failures.push(where + ": not JSON: " + e.message);
        return;
    }
    if (!v(body))
        result.failures.push(where + ": " + key.split(" ")[0] + ": " +
            ajv.errorsText(v.errors, { separator: "; " }).slice(0, 600));
}
for (const a of answers) {
    const where = a.method + " " + a.path + " " + a.status +
        (a.dry_run ? " (dry run)" : "");
    const p = a.path.split("?")[0];
    const route = routes.find((r) => r.method === a.method && r.re.test(p));
    if (!route && (a.status === 404 || a.status === 405) &&
        doc.components.schemas.Problem) {
        check(where, "(no operation)", a,
              { $ref: "#/components/schemas/Problem" });
        continue;
    }
    if (!route) {
        result.failures.push(where + ": no operation in the document");
        continue;
    }
    const op = route.op;
    const resp = deref((op.responses || {})[String(a.status)]);
    if (!resp) {
        result.failures.push(where + ": " + op.operationId +
            " documents no " + a.status + " answer");
        continue;
    }
    const type = (a.type || "").split(";")[0].trim();
    if (!type && !a.body && !Object.keys(resp.content || {}).length) {
        result.checked++;
        result.exact++;
        continue;
    }
    const media = Object.keys(resp.content || {}).find((m) =>
        m.split(";")[0].trim() === type);
    if (!media) {
        result.failures.push(where + ": " + op.operationId + " " +
            a.status + " is documented as " +
            Object.keys(resp.content || {}).join(", ") + ", not " + type);
        continue;
    }
    result.checked++;
    if (!type.endsWith("json")) {
        result.exact++;
        continue;
    }
    const schema = resp.content[media].schema;
    if (bare(schema)) {
        if (!result.loose.includes(op.operationId))
            result.loose.push(op.operationId);
    } else {
        result.exact++;
    }
    check(where, op.operationId + " " + a.status + " " + media, a, schema);
}
console.log(JSON.stringify(result));
process.exit(result.failures.length ? 1 : 0);
