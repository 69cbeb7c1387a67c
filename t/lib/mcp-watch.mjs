// mcp-watch.mjs: an SDK client subscribes to an operation and follows it
// to its end on the notifications alone (it reads the resource only when
// told it changed; no polling), then tries a destructive call.
//   SDK 1 (@modelcontextprotocol/sdk, legacy era): resources/subscribe,
//     updates on the session's GET stream; declares no elicitation, so
//     cluster_delete without confirm must be refused.
//   SDK 2 (@modelcontextprotocol/client, 2026-07-28 pinned):
//     subscriptions/listen; declares elicitation and answers ANSWER
//     ("accept" or "decline") to the confirmation of cluster_delete.
// Usage: node mcp-watch.mjs 1|2 URL TOKEN OP_ID|- CLUSTER [ANSWER]
// With "-" it connects, prints "ready" and reads the operation id from
// stdin, so the test can start the operation once both clients listen.
// Prints one JSON report on stdout; t/31-mcp-sdk.t asserts on it.
import { createInterface } from 'node:readline';

const [sdk, url, token, opArg, cluster, answer] = process.argv.slice(2);
let uri = null;
const headers = { Authorization: `Bearer ${token}` };
const report = { updates: 0, reads: 0, states: [], elicited: null };

let client, listenHandle = null;
async function operationUri() {
  if (opArg !== '-')
    return `slipway://operations/${opArg}`;
  console.log('ready');
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    rl.close();
    return `slipway://operations/${line.trim()}`;
  }
  throw new Error('no operation id on stdin');
}
function onUpdated(n) {
  if (uri !== null && n.params.uri === uri)
    report.updates++;
  wake();
}
let wake = () => {};

if (sdk === '1') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ResourceUpdatedNotificationSchema } = await import(
    '@modelcontextprotocol/sdk/types.js');
  client = new Client({ name: 'slipway-watch', version: '1.0.0' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, onUpdated);
  await client.connect(new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers } }));
  report.capabilities = client.getServerCapabilities();
  uri = await operationUri();
  await client.subscribeResource({ uri });
} else {
  const { Client, StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/client');
  client = new Client({ name: 'slipway-watch', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } } });
  client.setNotificationHandler('notifications/resources/updated', onUpdated);
  client.setRequestHandler('elicitation/create', async (req) => {
    report.elicited = req.params.message;
    return answer === 'accept' ?
      { action: 'accept', content: { confirm: true } } :
      { action: 'decline' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers } }));
  report.capabilities = client.getServerCapabilities();
  uri = await operationUri();
  listenHandle = await client.listen({ resourceSubscriptions: [uri] });
}

// Read the operation once now and then only when an update arrives.
const deadline = Date.now() + 120000;
let state = null;
for (;;) {
  const r = await client.readResource({ uri });
  report.reads++;
  state = JSON.parse(r.contents[0].text).state;
  if (report.states.at(-1) !== state)
    report.states.push(state);
  if (['succeeded', 'failed', 'cancelled'].includes(state) ||
      Date.now() > deadline)
    break;
  const seen = report.updates;
  await new Promise((resolve) => {
    wake = resolve;
    setTimeout(resolve, 40000);	// a lost update shows as a slow test
    if (report.updates > seen)
      resolve();
  });
}
if (listenHandle !== null)
  await listenHandle.close();

const del = await client.callTool({ name: 'cluster_delete',
  arguments: { name: cluster } });
report.delete = { isError: del.isError === true,
  status: del.structuredContent?.status ?? null,
  operation_id: del.structuredContent?.operation_id ?? null };
await client.close();
console.log(JSON.stringify(report));
process.exit(0);
