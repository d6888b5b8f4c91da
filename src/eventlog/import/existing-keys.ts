// What the target store already holds of a source: every imported record carries its
// `import_key`, and a re-import skips the keys found. Two ways to look, with the same answers:
// - range: one dump query over the source's whole time range, keys kept as 64-bit hashes
//   (16 bytes a key at most half full): one sequential scan for a flat file;
// - window: one dump query per batch over the batch's time range: bounded memory, for
//   databases, whose time index makes each query cheap.
import { createHash } from 'node:crypto';
import { isEvioError } from '../../errors.js';
import { dumpQuery } from '../query.js';
import { compileWildcard } from '../../common/wildcard.js';
import type { EventStore, StoredEvent } from '../types.js';
import type { AcceptInfo } from './types.js';

/** An open-addressing set of 64-bit hashes of strings (two Uint32 halves; 0/0 marks empty). */
export class KeySet {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  private static hash(key: string): [number, number] {
    const d = createHash('sha1').update(key).digest();
    const hi = d.readUInt32LE(0);
    const lo = d.readUInt32LE(4);
    return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
  }

  private slot(hi: number, lo: number, hiArr: Uint32Array, loArr: Uint32Array): number {
    const mask = hiArr.length - 1;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    while (hiArr[i] !== 0 || loArr[i] !== 0) {
      if (hiArr[i] === hi && loArr[i] === lo) return i;
      i = (i + 1) & mask;
    }
    return i;
  }

  has(key: string): boolean {
    const [hi, lo] = KeySet.hash(key);
    const i = this.slot(hi, lo, this.hi, this.lo);
    return this.hi[i] === hi && this.lo[i] === lo;
  }

  /** Adds the key; false when it was there already. */
  add(key: string): boolean {
    const [hi, lo] = KeySet.hash(key);
    const i = this.slot(hi, lo, this.hi, this.lo);
    if (this.hi[i] === hi && this.lo[i] === lo) return false;
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.count++;
    if (this.count * 2 > this.hi.length) this.grow();
    return true;
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    this.hi = new Uint32Array(oldHi.length * 2);
    this.lo = new Uint32Array(oldLo.length * 2);
    for (let j = 0; j < oldHi.length; j++) {
      const h = oldHi[j]!;
      const l = oldLo[j]!;
      if (h === 0 && l === 0) continue;
      const i = this.slot(h, l, this.hi, this.lo);
      this.hi[i] = h;
      this.lo[i] = l;
    }
  }
}

/** Every record of the store in [from, to] (time), as stored; nothing when the store does not exist yet. */
export async function* recordsInRange(store: EventStore, from: number, to: number, signal?: AbortSignal): AsyncGenerator<StoredEvent> {
  try {
    for await (const row of store.query(dumpQuery({ from, to }), signal ? { signal } : {})) yield row.rec;
  } catch (err) {
    if (isEvioError(err, 'STORE_NOT_FOUND')) return;
    throw err;
  }
}

/** The import keys of the store's records whose time lies in [from, to] (widened by a second). */
export async function loadImportKeys(store: EventStore, from: number, to: number, into: KeySet, signal?: AbortSignal): Promise<number> {
  let n = 0;
  for await (const rec of recordsInRange(store, from - 1, to + 1, signal)) {
    if (typeof rec.import_key === 'string') {
      into.add(rec.import_key);
      n++;
    }
  }
  return n;
}

/** The import keys of the store's records in [from, to], as a plain set (one batch's window). */
export async function windowImportKeys(store: EventStore, from: number, to: number, signal?: AbortSignal): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const rec of recordsInRange(store, from - 1, to + 1, signal)) if (typeof rec.import_key === 'string') out.add(rec.import_key);
  return out;
}

function escapeWildcard(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

function acceptInfo(rec: StoredEvent): AcceptInfo {
  const info: AcceptInfo = { uniqueid: rec.uniqueid };
  for (const k of ['submituser', 'submithost', 'runuser', 'runhost', 'runcommand'] as const) if (typeof rec[k] === 'string') info[k] = rec[k];
  return info;
}

/**
 * The accepts (A/K) of the store with the given uniqueids: exits whose accept came in an earlier
 * file are filled from them. A flat file is scanned once; a database is asked per uniqueid
 * (indexed) unless there are many.
 */
export async function findStoredAccepts(store: EventStore, uniqueids: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, AcceptInfo>> {
  const found = new Map<string, AcceptInfo>();
  if (uniqueids.size === 0) return found;
  const opts = signal ? { signal } : {};
  try {
    if (store.kind === 'ff' || store.kind === 'memory' || uniqueids.size > 64) {
      for await (const row of store.query(dumpQuery({ etypes: ['A', 'K'] }), opts)) {
        if (uniqueids.has(row.rec.uniqueid)) found.set(row.rec.uniqueid, acceptInfo(row.rec));
      }
    } else {
      for (const id of uniqueids) {
        const q = dumpQuery({ etypes: ['A', 'K'], patterns: { uniqueid: [compileWildcard(escapeWildcard(id), 'uniqueid')] } });
        for await (const row of store.query(q, opts)) found.set(id, acceptInfo(row.rec));
      }
    }
  } catch (err) {
    if (!isEvioError(err, 'STORE_NOT_FOUND')) throw err;
  }
  return found;
}
