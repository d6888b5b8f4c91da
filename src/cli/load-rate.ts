// Progress of a long load on a terminal (evio events copy and import): records per second and
// the time left, estimated from how much of the source has been read. Silent when stderr is not
// a terminal (io.ts progress), and redrawn at most every quarter second.
import { progress, type CliIo } from './io.js';

/** "12,345 records/s, ETA 1:05" (no ETA before anything is read or with no size known). */
export function rateText(records: number, elapsedMs: number, fractionRead: number | null): string {
  const secs = Math.max(elapsedMs, 1) / 1000;
  const rate = Math.round(records / secs);
  let out = `${rate.toLocaleString('en-US')} records/s`;
  if (fractionRead !== null && fractionRead > 0 && Number.isFinite(fractionRead)) {
    const left = Math.max(0, Math.round((secs * (1 - Math.min(1, fractionRead))) / Math.min(1, fractionRead)));
    out += `, ETA ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  }
  return out;
}

/** A progress writer for one load: call it with the line's text and the numbers behind the rate. */
export function loadProgress(io: CliIo, now: () => number = Date.now): (text: string, records: number, fractionRead: number | null) => void {
  const started = now();
  let last = 0;
  return (text, records, fractionRead) => {
    const t = now();
    if (t - last < 250) return;
    last = t;
    progress(io, `${text} — ${rateText(records, t - started, fractionRead)}`);
  };
}
