// Lines as other writers may produce them: keys in any order, spaces, \uXXXX and \/ escapes, no
// recnum; and lines that are not events at all. Used to check that the byte prefilter never
// drops a line the parser would accept.
import fc from 'fast-check';
import { rng } from '../../helpers/rng.js';

function escapeString(s: string, rnd: () => number): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const r = rnd();
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else if (ch === '/' && r < 0.5) out += '\\/';
    else if (c <= 0xffff && r < 0.2) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** JSON text of `v` written the way another tool might: same value once parsed. */
export function foreignJson(v: unknown, seed: number): string {
  const rnd = rng(seed);
  const sp = () => (rnd() < 0.3 ? ' ' : '');
  const write = (x: unknown): string => {
    if (typeof x === 'string') return escapeString(x, rnd);
    if (Array.isArray(x)) return '[' + sp() + x.map(write).join(',' + sp()) + sp() + ']';
    if (x && typeof x === 'object') {
      const entries = Object.entries(x);
      for (let i = entries.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [entries[i], entries[j]] = [entries[j]!, entries[i]!];
      }
      return '{' + sp() + entries.map(([k, val]) => escapeString(k, rnd) + sp() + ':' + sp() + write(val)).join(',' + sp()) + sp() + '}';
    }
    return JSON.stringify(x);
  };
  return write(v);
}

export const MALFORMED_LINES = [
  '',
  'not json',
  '[1,2,3]',
  '{"recnum":"7","uniqueid":"u1","etype":"A","time":1000}',
  '{"recnum":3,"uniqueid":"u1","etype":"X","time":1000}',
  '{"recnum":4,"uniqueid":"u1","etype":"F","time":"late"}',
  '{"uniqueid":"u1","etype":"A"}',
  '{"recnum":5,"uniqueid":"u1","etype":"A","time":1000',
  '{"recnum":6,"uniqueid":"alice","etype":"A","time":null,"submituser":"alice"}',
];

export const arbMalformed = fc.constantFrom(...MALFORMED_LINES);
