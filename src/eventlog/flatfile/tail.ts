// The last recnum of a flat file, read backwards from its end: the appender needs it under the
// lock before every append, so it must not cost a scan. Malformed lines at the end (a torn last
// line, garbage) are stepped over. Only when the last event line has no recnum (a legacy line:
// its recnum is its line number) are the file's newlines counted from the start. Every loop
// takes the caller's abort signal: a file of one huge line (gigabytes without a newline) is read
// backwards to its start, and the caller may leave meanwhile.
import type { FileHandle } from 'node:fs/promises';
import { hasBomAt } from './bom.js';
import { countNewlines } from './line-counter.js';
import { parseJsonLine, toStoredEvent, lacksRecnum } from './parse-line.js';
import { DEFAULT_MAX_LINE_BYTES } from './line-reader.js';

const BLOCK = 64 * 1024;

async function readAt(fh: FileHandle, buf: Buffer, len: number, pos: number): Promise<number> {
  let got = 0;
  while (got < len) {
    const { bytesRead } = await fh.read(buf, got, len - got, pos + got);
    if (bytesRead <= 0) break;
    got += bytesRead;
  }
  return got;
}

/** Index of the last '\n' at a position < `before`, or -1. */
export async function lastNewlineBefore(fh: FileHandle, before: number, signal?: AbortSignal): Promise<number> {
  const buf = Buffer.allocUnsafe(BLOCK);
  let end = before;
  while (end > 0) {
    signal?.throwIfAborted();
    const start = Math.max(0, end - BLOCK);
    const n = await readAt(fh, buf, end - start, start);
    const i = buf.lastIndexOf(10, n - 1);
    if (i !== -1) return start + i;
    end = start;
  }
  return -1;
}

async function countNewlinesBefore(fh: FileHandle, end: number, signal: AbortSignal | undefined): Promise<number> {
  const buf = Buffer.allocUnsafe(1 << 20);
  let pos = 0;
  let n = 0;
  while (pos < end) {
    signal?.throwIfAborted();
    const got = await readAt(fh, buf, Math.min(buf.length, end - pos), pos);
    if (got <= 0) break;
    n += countNewlines(buf, 0, got);
    pos += got;
  }
  return n;
}

/** Highest recnum of the file (the last event line's), or 0 when it holds no event. */
export async function readLastRecnum(fh: FileHandle, size: number, signal?: AbortSignal): Promise<number> {
  // The newline that ends the line we look at; a torn last line (no newline) is not an event.
  let nl = await lastNewlineBefore(fh, size, signal);
  while (nl >= 0) {
    const prev = await lastNewlineBefore(fh, nl, signal);
    const start = prev + 1;
    const len = nl - start;
    if (len > 0 && len <= DEFAULT_MAX_LINE_BYTES) {
      const buf = Buffer.allocUnsafe(len);
      const got = await readAt(fh, buf, len, start);
      // The file's first line may follow a byte order mark (bom.ts).
      const v = parseJsonLine(buf, start === 0 && hasBomAt(buf, 0, got) ? 3 : 0, got);
      if (v !== undefined) {
        const lineNumber = lacksRecnum(v) ? (await countNewlinesBefore(fh, start, signal)) + 1 : null;
        const rec = toStoredEvent(v, lineNumber);
        if (rec) return rec.recnum;
      }
    }
    nl = prev;
  }
  return 0;
}

/** The file's last byte is a newline, or the file is empty (or holds only a byte order mark). */
export async function endsWithNewline(fh: FileHandle, size: number): Promise<boolean> {
  if (size === 0) return true;
  if (size === 3) {
    const m = Buffer.allocUnsafe(3);
    if (hasBomAt(m, 0, await readAt(fh, m, 3, 0))) return true;
  }
  const b = Buffer.allocUnsafe(1);
  const n = await readAt(fh, b, 1, size - 1);
  return n === 1 && b[0] === 10;
}
