// node-postgres, loaded without the cost of its Cloudflare probe on Node 20. While it loads,
// pg (lib/stream.js) asks whether it runs in a Cloudflare Worker: from navigator.userAgent
// where a navigator exists (Node 21 and later), else by building a fetch Response and looking
// for Cloudflare's `cf` property, which on Node 20 first loads Node's bundled fetch (undici):
// about 20 ms of every one-shot command that opens a PostgreSQL store (BENCHMARKS.md, "Start-up
// steps"). A navigator saying "Node.js" for the length of the synchronous require gives the
// probe the answer Node 21 gives; nothing else runs meanwhile, and it is removed after.
import { createRequire } from 'node:module';

type Pg = typeof import('pg');

function loadPg(): Pg {
  const require = createRequire(import.meta.url);
  if ('navigator' in globalThis) return require('pg') as Pg;
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Node.js' }, configurable: true, writable: true });
  try {
    return require('pg') as Pg;
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

export const pg: Pg = loadPg();
