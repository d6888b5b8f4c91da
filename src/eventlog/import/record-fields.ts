// Helpers both sudo mappers use to build stored records: the exit-status phrases, stable derived
// IDs, and keeping source fields without letting them break evio's own fields.
import { createHash } from 'node:crypto';
import { setOwn } from '../../own-property.js';
import type { ImportRecord } from './types.js';

/** Fields evio derives itself; a source field of the same name is kept as `sudo_<name>`. */
const DERIVED = new Set(['recnum', 'uniqueid', 'etype', 'time', 'runhost', 'runcommand', 'cwd', 'masterhost', 'iolog', 'exitstatus', 'exitcode', 'import_key', 'sudo_kind']);
/** Fields every store checks the type of (record.ts); a source value of another type is renamed. */
const STRING_FIELDS = new Set(['submituser', 'submithost', 'runuser', 'ttyname', 'reason']);

/** The source fields as extra keys of a record: every one kept, none clashing with evio's. */
export function sourceFields(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const clash =
      DERIVED.has(k) ||
      (STRING_FIELDS.has(k) && v !== null && typeof v !== 'string') ||
      (k === 'runargv' && !(Array.isArray(v) && v.every((a) => typeof a === 'string')));
    if (clash) out[`sudo_${k}`] = v;
    else setOwn(out, k, v);
  }
  return out;
}

export function exitStatusText(exitValue: number | null, signal: string | null, coreDumped = false): string {
  if (signal) return `Command killed by signal ${signal}${coreDumped ? ' (core dumped)' : ''}`;
  if (exitValue !== null) return `Command finished with exit status ${exitValue}`;
  return 'Command finished with an unknown exit status';
}

export function rejectStatusText(reason: string): string {
  return `Request rejected: ${reason}`;
}

export function alertStatusText(reason: string): string {
  return `Alert: ${reason}`;
}

export function sha1Hex(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A stable UUID-shaped ID (8-4-4-4-12 hex) derived from `material`: same input, same ID. */
export function derivedId(material: string): string {
  const h = createHash('sha256').update(material).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Unix seconds of a sudo time object `{seconds, nanoseconds}`, or null. */
export function sudoTime(v: unknown): { seconds: number; nanoseconds: number; value: number } | null {
  if (!v || typeof v !== 'object') return null;
  const t = v as { seconds?: unknown; nanoseconds?: unknown };
  if (typeof t.seconds !== 'number' || !Number.isFinite(t.seconds) || t.seconds < 0) return null;
  const ns = typeof t.nanoseconds === 'number' && Number.isFinite(t.nanoseconds) ? Math.trunc(t.nanoseconds) : 0;
  return { seconds: Math.trunc(t.seconds), nanoseconds: ns, value: Math.trunc(t.seconds) + ns / 1e9 };
}

/** Drops undefined values so that records stay as lean as the source. */
export function compact(rec: Record<string, unknown>): ImportRecord {
  for (const k of Object.keys(rec)) if (rec[k] === undefined) delete rec[k];
  return rec as ImportRecord;
}

/** A bounded FIFO map: beyond `max` entries the oldest is forgotten. */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  evicted = 0;
  constructor(private readonly max: number) {}
  get(k: K): V | undefined {
    return this.map.get(k);
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as K;
      this.map.delete(oldest);
      this.evicted++;
    }
  }
  delete(k: K): boolean {
    return this.map.delete(k);
  }
  get size(): number {
    return this.map.size;
  }
}
