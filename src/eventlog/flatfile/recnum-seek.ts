// Finding where to resume after a recnum in a plain file that has no usable index: recnums
// increase strictly within a file (DESIGN.md), so a binary search over byte positions narrows
// the walk to a few hundred KiB, where a walk from the start would read the whole file for
// every page of a family query. Narrowing stops (the walk then covers more) at anything it
// cannot read as a numbered record: a line longer than the probe, lines without recnum.
import type { ByteSource } from './line-reader.js';
import { lacksRecnum, parseJsonText, toStoredEvent } from './parse-line.js';
import { probeCanonicalPrefix, type PrefixProbe } from './prefilter.js';

/** Below this span the walk reads on from `lo`. */
const CLOSE_ENOUGH = 256 << 10;
const PROBE = 64 << 10;

/** The recnum of the numbered line starting at buf[s] (ended by '\n' before e), or null. */
function recnumOf(buf: Buffer, s: number, nl: number, probe: PrefixProbe): number | null {
  if (probeCanonicalPrefix(buf, s, nl, probe, false)) return probe.recnum;
  const v = parseJsonText(buf.toString('utf8', s, nl));
  const rec = v === undefined || lacksRecnum(v) ? null : toStoredEvent(v, null);
  return rec ? rec.recnum : null;
}

/**
 * A line start at or before the first line with a recnum above `r`, found between `from` (a
 * line start) and `end` (the end of the file's readable part).
 */
export async function narrowToRecnum(source: ByteSource, from: number, end: number, r: number, signal?: AbortSignal): Promise<number> {
  let lo = from;
  let hi = end;
  const buf = Buffer.allocUnsafe(PROBE);
  const probe: PrefixProbe = { recnum: 0, etype: 0, uidHash: 0 };
  while (hi - lo > CLOSE_ENOUGH) {
    signal?.throwIfAborted();
    const mid = lo + Math.floor((hi - lo) / 2);
    const n = await source.read(buf, 0, Math.min(PROBE, hi - mid), mid);
    // The first line starting after mid, and the recnum of the first numbered line from there.
    let s = buf.indexOf(10, 0);
    if (s === -1 || s + 1 >= n) return lo;
    s++;
    let found: { at: number; recnum: number } | null = null;
    for (let tries = 0; tries < 4 && found === null; tries++) {
      const nl = buf.indexOf(10, s);
      if (nl === -1 || nl >= n) break;
      const rec = recnumOf(buf, s, nl, probe);
      if (rec !== null) found = { at: mid + s, recnum: rec };
      s = nl + 1;
    }
    if (found === null) return lo;
    if (found.recnum > r) hi = found.at;
    else lo = found.at;
  }
  return lo;
}
