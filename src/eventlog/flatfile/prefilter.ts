// The byte-level prefilter: decides from a line's raw bytes, before JSON.parse, that the line
// cannot matter to a query. It may only ever drop lines that cannot match; every line it keeps is
// parsed and checked with the real filter (filter.ts), so a kept line that does not match costs
// time, never correctness.
//
// Two tests:
// - Pattern literals. A record matching `runcommand=*/vim*` holds the string "/vim" in its JSON
//   text, written the canonical way (JSON.stringify) unless the writer used other escapes. So a
//   line is kept when it contains the canonical escaped literal, or could spell it otherwise:
//   it contains `\u` (any character can be written \uXXXX) or, for literals holding '/', `\/`.
// - The canonical prefix `{"recnum":N,"uniqueid":"U","etype":"X"` that evio writes
//   (normalizeNewEvent puts these keys first). It gives recnum, etype and a hash of the uniqueid
//   without parsing. A line that does not start this way (other writers, escapes in the
//   uniqueid) is reported as unknown and parsed. Reading the etype from the first "etype" key
//   assumes no duplicate keys: RFC 8259 §4 leaves duplicate names undefined, and evio never
//   writes them.
import type { EType, EventFilter, PatternField } from '../types.js';
import { admittedTypes } from '../filter.js';

/** The canonical JSON text of a string's characters, without the quotes. */
export function jsonEscaped(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

export interface LiteralPlan {
  /** Bytes every matching line contains when written canonically. */
  needle: Buffer;
  /** Byte strings whose presence means "may spell the literal another way": keep the line. */
  hazards: Buffer[];
  field: PatternField;
}

/**
 * The most selective literal a matching record must contain, or null when no pattern filter
 * gives one. With dump=0 the exitstatus filter sees the finish's value, which is not on the
 * accept's line, so it cannot prefilter.
 */
export function literalPlan(f: EventFilter): LiteralPlan | null {
  let best: { text: string; field: PatternField; score: number } | null = null;
  for (const key in f.patterns) {
    const field = key as PatternField;
    if (field === 'exitstatus' && !f.dump) continue;
    // Alternatives (a repeated parameter) share no literal every match must contain.
    const alternatives = f.patterns[field]!;
    if (alternatives.length !== 1) continue;
    const tokens = alternatives[0]!.tokens;
    for (let t = 0; t < tokens.length; t++) {
      const tok = tokens[t]!;
      if (tok.t !== 'lit') continue;
      // A literal at the start (end) of the pattern sits right after (before) the quote.
      const text = (t === 0 ? '"' : '') + jsonEscaped(tok.s) + (t === tokens.length - 1 ? '"' : '');
      const score = Buffer.byteLength(text);
      if (!best || score > best.score) best = { text, field, score };
    }
  }
  if (!best || best.score < 2) return null;
  const hazards = [Buffer.from('\\u')];
  if (best.text.includes('/')) hazards.push(Buffer.from('\\/'));
  return { needle: Buffer.from(best.text, 'utf8'), hazards, field: best.field };
}

/** Byte codes of the event types a query can use as candidates. */
export function admittedTypeBytes(f: EventFilter): Uint8Array {
  const out = new Uint8Array(256);
  for (const t of admittedTypes(f)) out[t.charCodeAt(0)] = 1;
  return out;
}

export const ETYPE_BYTE: Record<EType, number> = { A: 65, R: 82, K: 75, F: 70 };

/** 1 at the byte codes of A, R, K, F. */
export const VALID_ETYPE: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (const b of Object.values(ETYPE_BYTE)) t[b] = 1;
  return t;
})();

/**
 * The hash that stands for a uniqueid in the finish lookup: FNV-1a over its length, its first 8
 * and its last 8 bytes (bounded work per line; a collision only costs a parse), or -1 for a
 * uniqueid that needs escapes or is not ASCII (the probe reports -1 too, and the line is parsed).
 * Computed from the string's code units, which are the bytes for ASCII.
 */
export function uniqueidHash(uid: string): number {
  const n = uid.length;
  for (let i = 0; i < n; i++) {
    const c = uid.charCodeAt(i);
    if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) return -1;
  }
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  const head = Math.min(n, 8);
  for (let i = 0; i < head; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193);
  for (let i = Math.max(head, n - 8); i < n; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** uniqueidHash of the bytes [s, q) of a canonical line, or -1. */
function bytesHash(buf: Buffer, s: number, q: number): number {
  for (let k = s; k < q; k++) {
    const c = buf[k]!;
    if (c < 0x20 || c >= 0x80 || c === 0x5c) return -1;
  }
  const n = q - s;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  const head = s + Math.min(n, 8);
  for (let k = s; k < head; k++) h = Math.imul(h ^ buf[k]!, 0x01000193);
  for (let k = Math.max(head, q - 8); k < q; k++) h = Math.imul(h ^ buf[k]!, 0x01000193);
  return h >>> 0;
}

/** What the canonical prefix of a line says; reused for every line (no allocation). */
export interface PrefixProbe {
  recnum: number;
  etype: number;
  uidHash: number;
}

const P_RECNUM = Buffer.from('{"recnum":');
const P_UID = Buffer.from(',"uniqueid":"');
const P_ETYPE = Buffer.from('","etype":"');

/**
 * Reads the canonical prefix of the line [s, e). True and `probe` filled when the line starts
 * with it (etype = the letter's byte code; the letter need not be valid), false otherwise.
 * `uidHash` is computed only for F lines when `wantHash`; it is -1 otherwise, and when the
 * uniqueid holds bytes that make the line "unknown" for hash lookups (escapes, non-ASCII).
 */
export function probeCanonicalPrefix(buf: Buffer, s: number, e: number, probe: PrefixProbe, wantHash = true): boolean {
  let i = s;
  if (e - s < 40) return false;
  for (let j = 0; j < 10; j++) if (buf[i + j] !== P_RECNUM[j]) return false;
  i += 10;
  let recnum = 0;
  const digits = i;
  for (;;) {
    const c = buf[i]!;
    if (c < 48 || c > 57) break;
    recnum = recnum * 10 + (c - 48);
    i++;
  }
  // 1..15 digits, no leading zero: exactly what JSON.parse gives as a safe integer.
  const nd = i - digits;
  if (nd === 0 || nd > 15 || (nd > 1 && buf[digits] === 48)) return false;
  for (let j = 0; j < 13; j++) if (buf[i + j] !== P_UID[j]) return false;
  i += 13;
  // The closing quote: an escaped quote inside the uniqueid stops the search early, and then
  // the etype key is not where it must be: the line is reported unknown (and parsed).
  const q = buf.indexOf(0x22, i);
  if (q === -1 || q + 13 > e) return false;
  for (let j = 0; j < 11; j++) if (buf[q + j] !== P_ETYPE[j]) return false;
  if (buf[q + 12] !== 0x22) return false;
  probe.recnum = recnum;
  const etype = buf[q + 11]!;
  probe.etype = etype;
  // Only finish lines are looked up by uniqueid.
  probe.uidHash = wantHash && etype === 70 ? bytesHash(buf, i, q) : -1;
  return true;
}
