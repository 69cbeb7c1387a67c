// conformance-shim.mjs: lets @modelcontextprotocol/conformance 0.1.16 load
// on Node 20.  Its bundle imports `globSync` from 'fs', which Node added
// in 22; the server scenarios never call it.  Registered with
// `node --import ./lib/conformance-shim.mjs`, this resolve hook hands the
// conformance bundle (only) an 'fs' that also exports a globSync which
// fails loudly if it is ever used.
import { register } from 'node:module';

const shim = `
import * as fs from 'node:fs';
export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('globSync is not available on this Node (conformance shim)');
}`;

const hooks = `
const SHIM = ${JSON.stringify('data:text/javascript,' + encodeURIComponent(shim))};
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') &&
      context.parentURL && context.parentURL.includes('/conformance/dist/') &&
      !('globSync' in (await import('node:fs')))) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}`;

register('data:text/javascript,' + encodeURIComponent(hooks), import.meta.url);
