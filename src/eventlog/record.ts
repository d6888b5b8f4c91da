// Validation of records before they are stored, shared by every store, so that no adapter
// accepts what another would refuse.
import { evioError } from '../errors.js';
import { setOwn } from '../own-property.js';
import { JSON_MAX_DEPTH, valueTooDeep } from '../json-depth.js';
import type { EType, NewEvent, StoredEvent } from './types.js';

const ETYPE_SET = new Set<string>(['A', 'R', 'K', 'F']);
const STRING_FIELDS = ['uniqueid', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'cwd', 'ttyname', 'masterhost', 'iolog', 'reason', 'exitstatus'] as const;

/** Checks a record to append and returns it with its fields in the canonical order. */
export function normalizeNewEvent(ev: NewEvent, index = 0): NewEvent {
  checkNewEvent(ev, index);
  return canonicalCopy(ev);
}

/**
 * normalizeNewEvent's checks and result, without the copy when `ev` is already a plain object
 * in the canonical order with no undefined field (a record read back from a store): then `ev`
 * itself, which serialises exactly as the copy would. The caller must not change it.
 */
export function normalizedView(ev: NewEvent, index = 0): NewEvent {
  checkNewEvent(ev, index);
  return inCanonicalOrder(ev) ? ev : canonicalCopy(ev);
}

/** The keys a canonical record starts with, with and without its recnum. */
const HEAD = ['recnum', 'uniqueid', 'etype', 'time'];

function inCanonicalOrder(ev: NewEvent): boolean {
  if (Object.getPrototypeOf(ev) !== Object.prototype) return false;
  let i = ev.recnum === undefined ? 1 : 0;
  for (const k in ev) {
    if (i < HEAD.length) {
      if (k !== HEAD[i]) return false;
      i++;
    } else if ((ev as unknown as Record<string, unknown>)[k] === undefined) {
      return false;
    }
  }
  return i === HEAD.length;
}

function canonicalCopy(ev: NewEvent): NewEvent {
  // Canonical key order: recnum, uniqueid, etype, time first (the flat-file prefilter and
  // readers of the file rely on nothing else, but a stable order keeps files diffable).
  const { recnum, uniqueid, etype, time, ...rest } = ev;
  const out: NewEvent = recnum === undefined ? { uniqueid, etype: etype as EType, time } : { recnum, uniqueid, etype: etype as EType, time };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) setOwn(out, k, v);
  return out;
}

/** The checks of a record to append (the STORE_BAD_RECORD error of the first it fails). */
function checkNewEvent(ev: NewEvent, index: number): void {
  const where = `record ${index + 1}`;
  if (!ev || typeof ev !== 'object' || Array.isArray(ev)) throw evioError('STORE_BAD_RECORD', `${where} is not an object`);
  if (typeof ev.etype !== 'string' || !ETYPE_SET.has(ev.etype)) {
    throw evioError('STORE_BAD_RECORD', `${where}: etype must be A, R, K or F`);
  }
  if (typeof ev.time !== 'number' || !Number.isFinite(ev.time) || ev.time < 0) {
    throw evioError('STORE_BAD_RECORD', `${where}: time must be Unix seconds (a number of 0 or more)`);
  }
  if (ev.recnum !== undefined && (!Number.isSafeInteger(ev.recnum) || ev.recnum < 1)) {
    throw evioError('STORE_BAD_RECORD', `${where}: recnum must be a positive integer`);
  }
  if (typeof ev.uniqueid !== 'string') throw evioError('STORE_BAD_RECORD', `${where}: uniqueid must be a string`);
  for (const f of STRING_FIELDS) {
    const v = ev[f];
    if (v !== undefined && v !== null && typeof v !== 'string') throw evioError('STORE_BAD_RECORD', `${where}: ${f} must be a string`);
  }
  if (ev.runargv !== undefined && (!Array.isArray(ev.runargv) || ev.runargv.some((a) => typeof a !== 'string'))) {
    throw evioError('STORE_BAD_RECORD', `${where}: runargv must be an array of strings`);
  }
  // Stored, it could not be written (JSON.stringify recurses) nor served verbose: refused here.
  if (valueTooDeep(ev, JSON_MAX_DEPTH)) throw evioError('STORE_BAD_RECORD', `${where} nests objects or arrays deeper than ${JSON_MAX_DEPTH} levels`);
}

/** A stored record read back from any store: tolerant of extra keys, strict on the core ones. */
export function isStoredEvent(v: unknown): v is StoredEvent {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.recnum === 'number' &&
    typeof r.etype === 'string' &&
    ETYPE_SET.has(r.etype) &&
    typeof r.time === 'number' &&
    Number.isFinite(r.time) &&
    (r.uniqueid === undefined || typeof r.uniqueid === 'string')
  );
}
