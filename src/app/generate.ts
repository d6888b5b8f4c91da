// `evio generate events|sessions`: deterministic synthetic data of any size, written with
// backpressure (events) or session by session (sudo I/O log directories).
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { generateEvents } from '../eventlog/generate.js';
import { generateSessions } from '../iolog/generate-sessions.js';

export interface GenerateEventsRequest {
  count: number;
  seed: number;
  /** Unix seconds of the first record (default: the generator's own start). */
  start?: number | undefined;
  out: string;
  signal?: AbortSignal;
  onProgress?: (written: number) => void;
}

/** Writes the NDJSON event log; returns the records written and the file's path. */
export async function generateEventLog(r: GenerateEventsRequest): Promise<{ events: number; path: string }> {
  const path = resolve(r.out);
  await mkdir(dirname(path), { recursive: true });
  const ws = createWriteStream(path);
  const opts = r.start !== undefined ? { count: r.count, seed: r.seed, start: r.start } : { count: r.count, seed: r.seed };
  let buf = '';
  let n = 0;
  for (const rec of generateEvents(opts)) {
    buf += `${JSON.stringify(rec)}\n`;
    if (++n % 2000 === 0) {
      if (!ws.write(buf)) await new Promise<void>((done) => ws.once('drain', () => done()));
      buf = '';
      if (n % 100_000 === 0) r.onProgress?.(n);
      if (r.signal?.aborted) break;
    }
  }
  await new Promise<void>((done, fail) => {
    ws.once('error', fail);
    ws.end(buf, () => done());
  });
  return { events: n, path };
}

export function generateSessionTree(r: { count: number; seed: number; out: string; onProgress?: (n: number) => void }): { sessions: number; bytes: number; out: string } {
  const out = resolve(r.out);
  const res = generateSessions({ count: r.count, seed: r.seed, out, ...(r.onProgress ? { onProgress: r.onProgress } : {}) });
  return { sessions: res.sessions, bytes: res.bytes, out };
}
