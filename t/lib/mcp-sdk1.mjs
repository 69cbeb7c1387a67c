// mcp-sdk1.mjs: drive slipway-mcp with the official TypeScript SDK 1.x
// client (@modelcontextprotocol/sdk, legacy era: initialize + session).
// Usage: node mcp-sdk1.mjs URL ADMIN_TOKEN READ_TOKEN
// Prints one JSON report on stdout; t/31-mcp-sdk.t asserts on it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from
  '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, admin, reader] = process.argv.slice(2);

async function connect(token) {
  const client = new Client({ name: 'slipway-sdk1-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, code: e.code, message: String(e.message || e) };
  }
}

const out = {};
{
  const { client, transport } = await connect(admin);
  out.protocolVersion = transport.protocolVersion ?? null;
  out.sessionId = transport.sessionId ?? null;
  out.serverVersion = client.getServerVersion();
  out.instructions = client.getInstructions() ?? null;
  const tools = (await client.listTools()).tools;
  out.adminTools = tools.map((t) => t.name);
  out.toolsWithoutSchemas = tools
    .filter((t) => !t.inputSchema || t.inputSchema.type !== 'object' ||
      (!t.outputSchema && !t.name.startsWith('ext_')))
    .map((t) => t.name);
  out.annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
  out.ping = await attempt(() => client.ping());
  out.whoami = await attempt(() => client.callTool({ name: 'whoami' }));
  out.opList = await attempt(() =>
    client.callTool({ name: 'operation_list', arguments: { limit: 5 } }));
  out.cancelUnknown = await attempt(() => client.callTool({
    name: 'operation_cancel', arguments: { id: 'op-0123456789abcdef' } }));
  out.retryUnknown = await attempt(() => client.callTool({
    name: 'operation_retry', arguments: { id: 'op-0123456789abcdef' } }));
  out.badArgs = await attempt(() => client.callTool({
    name: 'operation_get', arguments: { id: 'not-an-op-id' } }));
  out.unknownTool = await attempt(() =>
    client.callTool({ name: 'no_such_tool', arguments: {} }));
  if (tools.some((t) => t.name === 'ext_gpu_quota')) {
    out.pluginCall = await attempt(() => client.callTool({
      name: 'ext_gpu_quota', arguments: { instance_type: 'ml.p5.48xlarge' } }));
    out.pluginMiss = await attempt(() => client.callTool({
      name: 'ext_gpu_quota', arguments: { instance_type: 'ml.x9.huge' } }));
  }
  out.terminate = await attempt(() => transport.terminateSession());
  await client.close();
}
{
  const { client } = await connect(reader);
  out.readTools = (await client.listTools()).tools.map((t) => t.name);
  out.readCancel = await attempt(() => client.callTool({
    name: 'operation_cancel', arguments: { id: 'op-0123456789abcdef' } }));
  await client.close();
}
out.badToken = await attempt(() => connect('swt_0000000000000000_' + 'A'.repeat(43)));
process.stdout.write(JSON.stringify(out) + '\n');
