// mcp-sdk2.mjs: drive slipway-mcp with the TypeScript SDK 2.x client
// (@modelcontextprotocol/client).  MODE is "auto" (probe server/discover,
// expect the stateless 2026-07-28 era), "pin" (2026-07-28, no fallback)
// or "legacy" (initialize handshake).
// Usage: node mcp-sdk2.mjs URL MODE ADMIN_TOKEN READ_TOKEN
// Prints one JSON report on stdout; t/31-mcp-sdk.t asserts on it.
import { Client, StreamableHTTPClientTransport } from
  '@modelcontextprotocol/client';

const [url, mode, admin, reader] = process.argv.slice(2);
const negotiation = mode === 'auto' ? { mode: 'auto' } :
  mode === 'pin' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' };

// Record what goes over the wire (method, headers the SDK added, status).
const wire = [];
async function recordingFetch(input, init) {
  const headers = new Headers(init?.headers);
  let method = null;
  try { method = JSON.parse(init?.body ?? 'null')?.method ?? null; } catch {}
  const res = await fetch(input, init);
  wire.push({
    http: init?.method ?? 'GET', method, status: res.status,
    protocolVersion: headers.get('mcp-protocol-version'),
    mcpMethod: headers.get('mcp-method'), mcpName: headers.get('mcp-name'),
    sessionId: headers.get('mcp-session-id'),
  });
  return res;
}

async function connect(token) {
  const client = new Client({ name: 'slipway-sdk2-test', version: '1.0.0' },
    { versionNegotiation: negotiation });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch,
  });
  await client.connect(transport);
  return client;
}

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, code: e.code, message: String(e.message || e) };
  }
}

const out = { mode };
{
  const client = await connect(admin);
  out.era = typeof client.getProtocolEra === 'function' ?
    client.getProtocolEra() : null;
  out.protocolVersion = typeof client.getNegotiatedProtocolVersion ===
    'function' ? client.getNegotiatedProtocolVersion() : null;
  const tools = (await client.listTools()).tools;
  out.adminTools = tools.map((t) => t.name);
  out.whoami = await attempt(() => client.callTool({ name: 'whoami' }));
  out.cancelUnknown = await attempt(() => client.callTool({
    name: 'operation_cancel', arguments: { id: 'op-0123456789abcdef' } }));
  out.retryUnknown = await attempt(() => client.callTool({
    name: 'operation_retry', arguments: { id: 'op-0123456789abcdef' } }));
  out.unknownTool = await attempt(() =>
    client.callTool({ name: 'no_such_tool', arguments: {} }));
  await client.close();
}
{
  const client = await connect(reader);
  out.readTools = (await client.listTools()).tools.map((t) => t.name);
  out.readCancel = await attempt(() => client.callTool({
    name: 'operation_cancel', arguments: { id: 'op-0123456789abcdef' } }));
  await client.close();
}
out.wire = wire;
process.stdout.write(JSON.stringify(out) + '\n');
