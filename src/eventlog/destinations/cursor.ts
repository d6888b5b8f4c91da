// The cursor of one destination: the recnum of the last record it was delivered, in
// `<spool>/<destination>.cursor` (one JSON line: {"recnum":N,"target":...,"time":...}).
// Written atomically: a temporary file in the same folder, fsynced, renamed over the cursor, and
// the folder fsynced, so a crash leaves the old cursor or the new one, never a mix.
//
// Resuming takes the recnum only: a flat-file query resumes after it through the log family
// (offset 2^52 + recnum, docs/flatfile.md "Log families"), which stays right across rotations
// and deletes, where a byte offset of the live file would name another line (or a line of the
// next file) afterwards.
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { evioError } from '../../errors.js';

/** A cursor file is one short line; anything longer is not one. */
const MAX_CURSOR_BYTES = 4096;

export interface CursorFile {
  readonly path: string;
  /** The recnum after which delivery resumes: 0 when no cursor was written yet. */
  read(): Promise<number>;
  write(recnum: number): Promise<void>;
  /** Moves a damaged cursor aside (`.damaged`), keeping it for inspection. */
  setAside(): Promise<string>;
}

export function cursorPath(spoolDir: string, destination: string): string {
  return join(spoolDir, `${destination}.cursor`);
}

/** The recnum a cursor file's text holds, or null when it is not a cursor. */
export function parseCursor(text: string): number | null {
  if (!text.endsWith('\n')) return null; // cut short: every cursor ends with its newline
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const r = (v as { recnum?: unknown }).recnum;
  return typeof r === 'number' && Number.isSafeInteger(r) && r >= 0 ? r : null;
}

export function cursorFile(path: string, target: string): CursorFile {
  return {
    path,
    async read() {
      let text: string;
      try {
        const buf = await readFile(path);
        if (buf.length > MAX_CURSOR_BYTES) throw evioError('DEST_CURSOR_DAMAGED', `${path} holds ${buf.length} bytes: not a cursor (at most ${MAX_CURSOR_BYTES})`);
        text = buf.toString('utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        if ((err as { name?: string }).name === 'EvioError') throw err;
        throw evioError('DEST_CURSOR_DAMAGED', `cannot read ${path}: ${(err as Error).message}`, err);
      }
      const r = parseCursor(text);
      if (r === null) throw evioError('DEST_CURSOR_DAMAGED', `${path} is not a cursor (cut short or not {"recnum": N} on one line): ${JSON.stringify(text.slice(0, 80))}`);
      return r;
    },
    async write(recnum) {
      const dir = dirname(path);
      const tmp = `${path}.tmp-${process.pid}`;
      const text = `${JSON.stringify({ recnum, target, time: new Date().toISOString() })}\n`;
      try {
        await mkdir(dir, { recursive: true, mode: 0o750 });
        const fh = await open(tmp, 'w', 0o640);
        try {
          await fh.writeFile(text);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, path);
        const d = await open(dir, 'r');
        try {
          await d.sync();
        } finally {
          await d.close();
        }
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw evioError('DEST_CURSOR_WRITE', `cannot write ${path}: ${(err as Error).message}`, err);
      }
    },
    async setAside() {
      const aside = `${path}.damaged`;
      await rename(path, aside).catch(() => {});
      return aside;
    },
  };
}
