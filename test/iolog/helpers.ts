// Shared test helpers: the real samples, temp copies, engines over temp roots, and an
// independent reference decoder (timing + decompressed stream files) to compare against.
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as zc, gunzipSync } from 'node:zlib';
import { Engine } from '../../src/engine.js';
import { loadSettings, type Settings } from '../../src/settings.js';

import { SAMPLES } from '../helpers/samples.js';

/** shared/samples beside the repository (as CI lays it out), or EVIO_SAMPLES. */
export { SAMPLES };

export function tempDir(prefix = 'evio-iolog-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A writable copy of the samples (git keeps no write bits; tests set marks themselves). */
export function copySamples(): string {
  const dir = tempDir('evio-samples-');
  copyTree(SAMPLES, dir);
  return dir;
}

/** cp -r, then u+w everywhere (the samples are read-only; copies are written to by tests). */
export function copyTree(src: string, dst: string): void {
  cpSync(src, dst, { recursive: true });
  const walk = (p: string) => {
    const st = statSync(p);
    chmodSync(p, st.mode | 0o200);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(dst);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function makeEngine(roots: string[], extra: Partial<Settings> = {}): Engine {
  const home = tempDir('evio-home-');
  return new Engine(loadSettings({ env: {}, cwd: home, overrides: { home, iologdirs: roots, iologcache: join(home, 'iolog-index.sqlite'), workers: 2, ...extra } }));
}

/** Decompressed content of a session file as sudo's reader would see it ('' when missing). */
export function decoded(path: string): Buffer {
  if (!existsSync(path)) return Buffer.alloc(0);
  const raw = readFileSync(path);
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) return gunzipSync(raw, { finishFlush: zc.Z_SYNC_FLUSH });
  return raw;
}

const STREAMS = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];

/** Reference: the data stream in timing order, computed without the engine's code. */
export function referenceStream(dir: string, only?: readonly string[]): Buffer {
  const timing = decoded(join(dir, 'timing')).toString('latin1');
  const files = new Map(STREAMS.map((s) => [s, decoded(join(dir, s))]));
  const offsets = new Map(STREAMS.map((s) => [s, 0]));
  const out: Buffer[] = [];
  for (const line of timing.split('\n').slice(0, -1)) {
    const [type, , n] = line.split(' ');
    const t = Number(type);
    if (t > 4) continue;
    const name = STREAMS[t]!;
    const off = offsets.get(name)!;
    const piece = files.get(name)!.subarray(off, off + Number(n));
    offsets.set(name, off + Number(n));
    if (!only || only.includes(name)) out.push(piece);
  }
  return Buffer.concat(out);
}

/** Every sudo session directory under a root (timing + log.json or log). */
export function sudoSessionDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    const names = readdirSync(d).sort();
    if (names.includes('timing') && (names.includes('log.json') || names.includes('log'))) {
      out.push(d);
      return;
    }
    for (const n of names) if (statSync(join(d, n)).isDirectory()) walk(join(d, n));
  };
  walk(root);
  return out;
}

/** Collects a json-stream answer into one parsed object. */
export async function collectJson(chunks: AsyncIterable<string>): Promise<Record<string, unknown>> {
  let text = '';
  for await (const c of chunks) text += c;
  return JSON.parse(text) as Record<string, unknown>;
}

/** Concatenated blob bytes of chunk items. */
export function blobBytes(items: ReadonlyArray<Record<string, unknown>>, only?: readonly string[]): Buffer {
  return Buffer.concat(items.filter((i) => typeof i.blob === 'string' && (!only || only.includes(i.cmd as string))).map((i) => Buffer.from(i.blob as string, 'base64')));
}
