// The units batch jobs take on the command line: ages (--older-than 90d) and sizes (--max-size 1G).
import { evioError } from '../errors.js';

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `90d`, `12h`, `30m`, `2w`, `3600s` -> seconds. A unit is required (no guessing days vs seconds). */
export function parseDuration(v: string, what = '--older-than'): number {
  const m = /^(\d+)([smhdw])$/.exec(v.trim());
  if (!m) throw evioError('JOB_BAD_DURATION', `${what} "${v}" is not a duration: give a whole number with a unit (s, m, h, d, w), e.g. 90d`);
  return Number(m[1]) * SECONDS[m[2]!]!;
}

const BYTES: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `1G`, `500M`, `64k`, `1048576` -> bytes (powers of 1024; a trailing B or iB is allowed). */
export function parseSize(v: string, what = '--max-size'): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(v.trim());
  if (!m) throw evioError('JOB_BAD_SIZE', `${what} "${v}" is not a size: give bytes or a number with K, M, G or T, e.g. 1G`);
  const n = Math.floor(Number(m[1]) * BYTES[m[2]!.toLowerCase()]!);
  if (!Number.isSafeInteger(n) || n < 1) throw evioError('JOB_BAD_SIZE', `${what} "${v}" is not a size of at least one byte`);
  return n;
}

/** 1536 -> "1.5 KiB", for summaries. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
