// The real recordings under ../shared/samples as replayable sessions, read here directly (the
// I/O-log reader lives in src/iolog and is not a dependency of replay): sudo's `timing` gives the
// order of ttyout chunks and window changes (`5 <delay> <rows> <cols>`), asciicast gives "o" and
// "r" events.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import type { SessionEvent } from './session-events.js';

import { SAMPLES } from '../../helpers/samples.js';
export { SAMPLES };

export interface SampleSession {
  name: string;
  cols: number;
  rows: number;
  events: SessionEvent[];
}

function readMaybeGzip(path: string): Buffer {
  if (!existsSync(path)) return Buffer.alloc(0);
  const raw = readFileSync(path);
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) return gunzipSync(raw, { finishFlush: constants.Z_SYNC_FLUSH });
  return raw;
}

/** A sudo session directory: ttyout chunks and window changes in timing order. */
export function readSudoSession(dir: string): SampleSession {
  let cols = 80;
  let rows = 24;
  const json = join(dir, 'log.json');
  if (existsSync(json)) {
    const info = JSON.parse(readFileSync(json, 'utf8')) as { columns?: number; lines?: number };
    cols = info.columns ?? cols;
    rows = info.lines ?? rows;
  } else if (existsSync(join(dir, 'log'))) {
    const f = readFileSync(join(dir, 'log'), 'utf8').split('\n')[0]!.split(':');
    rows = Number(f[5]) || rows;
    cols = Number(f[6]) || cols;
  }
  const timing = readMaybeGzip(join(dir, 'timing')).toString('latin1');
  const ttyout = readMaybeGzip(join(dir, 'ttyout'));
  const events: SessionEvent[] = [];
  let offset = 0;
  let timeNs = 0n;
  for (const line of timing.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 3) continue;
    const [sec, frac = ''] = f[1]!.replace(',', '.').split('.');
    timeNs += BigInt(sec || '0') * 1_000_000_000n + BigInt((frac + '000000000').slice(0, 9));
    const timeMs = Number(timeNs / 1_000_000n);
    const type = Number(f[0]);
    if (type === 4) {
      const n = Number(f[2]);
      events.push({ kind: 'data', bytes: new Uint8Array(ttyout.subarray(offset, offset + n)), timeMs });
      offset += n;
    } else if (type === 5) {
      events.push({ kind: 'resize', rows: Number(f[2]), cols: Number(f[3]), timeMs });
    }
  }
  return { name: dir, cols, rows, events };
}

/** An asciicast v2 file: "o" output and "r" resizes. */
export function readAsciicast(path: string): SampleSession {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim());
  const header = JSON.parse(lines[0]!) as { width: number; height: number };
  const enc = new TextEncoder();
  const events: SessionEvent[] = [];
  for (const l of lines.slice(1)) {
    const [t, code, data] = JSON.parse(l) as [number, string, string];
    const timeMs = Math.round(t * 1000);
    if (code === 'o') events.push({ kind: 'data', bytes: enc.encode(data), timeMs });
    else if (code === 'r') {
      const [c, r] = data.split('x').map(Number);
      events.push({ kind: 'resize', cols: c!, rows: r!, timeMs });
    }
  }
  return { name: path, cols: header.width, rows: header.height, events };
}

function sessionDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'timing') out.push(dir);
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

/** Every tty session of the samples (non-empty ttyout), plus the asciicast demo. */
export function sampleTtySessions(): SampleSession[] {
  const out: SampleSession[] = [];
  for (const root of ['sudo-io', 'logsrvd-io']) {
    for (const dir of sessionDirs(join(SAMPLES, root))) {
      const s = readSudoSession(dir);
      if (s.events.some((e) => e.kind === 'data' && e.bytes.length > 0)) out.push({ ...s, name: relative(SAMPLES, dir) });
    }
  }
  const cast = join(SAMPLES, 'demo.cast');
  if (existsSync(cast)) out.push({ ...readAsciicast(cast), name: 'demo.cast' });
  return out;
}
