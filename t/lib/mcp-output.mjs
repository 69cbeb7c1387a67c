// mcp-output.mjs URL ADMIN_TOKEN CLUSTER: every read-only tool, and a
// create/delete lifecycle, through the official TypeScript SDK 1.x
// client (@modelcontextprotocol/sdk).  After tools/list the client
// checks each call's structuredContent against the tool's outputSchema
// (with ajv) and throws when it does not match or is missing, so a
// thrown call is an answer outside its schema.  Arguments come from
// what the lifecycle made: the cluster, its operation, a node, a quota.
// First, whoami with its outputSchema made to ask for a member it lacks
// must be refused (the check can fail).  Prints one JSON report: {tools,
// readOnly, negative, bare (tools whose outputSchema names no member),
// calls: [{tool, args, ok, isError, status, code, message}]}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from
  '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, cluster] = process.argv.slice(2);
const client = new Client({ name: 'slipway-output-test', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
}));
const tools = (await client.listTools()).tools;
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
const calls = [];

// The SDK's check can fail: with whoami's outputSchema asking for one
// more member, its real answer must be refused.
const tampered = tools.map((t) => t.name !== 'whoami' ? t : {
  ...t, outputSchema: { ...t.outputSchema, required: [
    ...(t.outputSchema.required ?? []), 'no_such_member'] } });
client.cacheToolMetadata(tampered);
let negative = { threw: false };
try {
  await client.callTool({ name: 'whoami', arguments: {} });
} catch (e) {
  negative = { threw: true, code: e.code ?? null, message: String(e.message) };
}
client.cacheToolMetadata(tools);
const bare = tools.filter((t) => { const o = t.outputSchema ?? {};
  return !o.properties && !o.oneOf && !o.anyOf && !o.allOf && !o.$ref; })
  .map((t) => t.name);

async function call(name, args = {}) {
  const rec = { tool: name, args };
  try {
    const r = await client.callTool({ name, arguments: args });
    rec.ok = true;
    rec.isError = r.isError === true;
    rec.status = r.structuredContent?.status ?? null;
    rec.content = r.structuredContent ?? null;
    if (rec.isError) rec.message = r.structuredContent?.detail ?? null;
  } catch (e) {
    rec.ok = false;
    rec.code = e.code ?? null;
    rec.message = String(e.message || e);
  }
  calls.push(rec);
  return rec;
}

async function wait(id) {
  const deadline = Date.now() + 300000;
  while (Date.now() < deadline) {
    const w = await call('operation_wait', { id, timeout: 20 });
    if (!w.ok || w.isError || w.content.terminal) return w.content?.state;
  }
  return null;
}

const types = (await call('instance_type_list', { gpu_only: true })).content;
const it = types.items.find((i) => i.instance_type === 'ml.g5.8xlarge') ??
  types.items[0];
const zone = it.availability_zones[0];
const body = { name: cluster, instance_groups: [{ name: 'workers',
  instance_type: it.instance_type, count: 1, availability_zone: zone }] };

// ---- the lifecycle's first half: a cluster, a quota on it
if (byName.cluster_create.inputSchema.properties?.dry_run)
  await call('cluster_create', { ...body, dry_run: true });
const created = await call('cluster_create', body);
const op = created.content?.operation_id ?? 'op-0123456789abcdef';
const state = await wait(op);
const quota = await call('compute_quota_create', { name: cluster,
  quota_name: 'outq', team: 'outq', instance_type: it.instance_type,
  count: 1 });
const nodes = (await call('node_list', { name: cluster })).content;

// ---- every read-only tool, with what the lifecycle made
const fill = {
  name: cluster, id: op, node: nodes?.items?.[0]?.node_id ?? 'i-0',
  quota: 'outq', job: 'no-such-job', endpoint: 'no-such-endpoint',
  scope: 'cluster', app: 'no-such-app', plan: 'no-such-plan',
  space: 'no-such-space',
};
// Tools whose required arguments the lifecycle did not make.
const extra = {
  training_plan_search: { instance_type: 'ml.p5.48xlarge', count: 1,
    duration_hours: 24 },
  fleet_plan: { apiVersion: 'slipway/v1', clusters: [body] },
};
const readOnly = tools.filter((t) => t.annotations?.readOnlyHint)
  .map((t) => t.name);
for (const name of readOnly) {
  const schema = byName[name].inputSchema;
  const args = {};
  for (const p of schema.required ?? [])
    if (p in fill) args[p] = fill[p];
  if (name === 'operation_wait') args.timeout = 1;
  Object.assign(args, extra[name] ?? {});
  await call(name, args);
}

// ---- the lifecycle's second half: the quota and the cluster deleted
await call('compute_quota_delete', { name: cluster, quota: 'outq',
  confirm: true });
const gone = await call('cluster_delete', { name: cluster, confirm: true });
const goneState = gone.content?.operation_id ?
  await wait(gone.content.operation_id) : null;
await call('operation_get', { id: op });
await call('operation_list', { limit: 50 });
await client.close();
process.stdout.write(JSON.stringify({
  tools: tools.map((t) => t.name), readOnly, negative, bare,
  createState: state,
  quotaStatus: quota.content?.status ?? null, deleteState: goneState,
  calls: calls.map(({ content, ...c }) => c),
}) + '\n');
