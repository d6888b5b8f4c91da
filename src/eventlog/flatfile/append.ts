// Appending to a flat file; the caller holds the writer lock (lock.ts). The file is opened anew
// for every append: a delete may have renamed a new file over the path since the last one, and
// an fd kept across lock releases would write into the replaced inode, losing the records.
//
// Steps: open (create) with O_APPEND; seal a torn last line with a '\n' so that the torn bytes
// stay one malformed line of their own and no record is glued onto them; read the last recnum
// from the tail (cached per dev/ino/size); validate every record like every store does
// (normalizeNewEvent); write in large batches; fsync before returning, so an acknowledged
// append is durable.
//
// Failures, two kinds:
// - the input stops early (a bad record, a recnum out of order, an abort): the records before it
//   are written and synced (as MemoryStore keeps them), and the error says how many;
// - a write or fsync fails (disk full, quota, I/O error): the file is cut back to its size
//   before this append (still under the lock) and synced, so the append is all-or-nothing and
//   the caller can send the same records again without duplicating any (STORE_APPEND_UNDONE).
//   Only when the cut itself fails is the outcome unknown (STORE_APPEND_UNCERTAIN, naming the
//   byte range). Readers do not take the lock, so a query running meanwhile may have seen
//   records of the undone append.
import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { evioError, isEvioError } from '../../errors.js';
import { OPEN_APPEND, type DirHandle } from '../../safe-open.js';
import { normalizeNewEvent } from '../record.js';
import type { AppendResult, NewEvent } from '../types.js';
import { endsWithNewline, readLastRecnum } from './tail.js';

/** What the appender knew of the file's end after its last visit. */
export interface TailCache {
  dev: bigint;
  ino: bigint;
  size: number;
  last: number;
}

const BATCH_BYTES = 1 << 20;
/** New flat-file stores are 0600: event records are as private as the sudo logs they come from. */
export const FILE_MODE = 0o600;

/** A write or fsync of this append failed (not the input): the append is undone. */
class WriteFailure extends Error {
  constructor(readonly failure: unknown) {
    super((failure as Error)?.message ?? String(failure));
  }
}

async function writeAll(fh: FileHandle, text: string): Promise<number> {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  try {
    while (off < buf.length) {
      const { bytesWritten } = await fh.write(buf, off, buf.length - off);
      off += bytesWritten;
    }
  } catch (err) {
    throw new WriteFailure(err);
  }
  return buf.length;
}

async function syncData(fh: FileHandle): Promise<void> {
  try {
    await fh.sync();
  } catch (err) {
    throw new WriteFailure(err);
  }
}

/** Cuts the file back to `size0` (its size before this append) and reports the failure. */
async function undo(fh: FileHandle, path: string, size0: number, failure: WriteFailure): Promise<never> {
  const cause = failure.failure;
  try {
    await fh.truncate(size0);
    await fh.sync();
  } catch (err) {
    throw evioError(
      'STORE_APPEND_UNCERTAIN',
      `appending to ${path} failed (${failure.message}), and cutting it back to its ${size0} bytes before the append failed too (${(err as Error).message}): the bytes from offset ${size0} on may hold part of the batch`,
      cause,
    );
  }
  throw evioError('STORE_APPEND_UNDONE', `appending to ${path} failed (${failure.message}); the file was cut back to its ${size0} bytes before the append, so no record was appended`, cause);
}

export interface AppendContext {
  path: string;
  /** The file's directory, held open: the file is opened in it (safe-open.ts). */
  dir: DirHandle;
  /** The previous tail, if any; replaced by the new one. */
  cache: TailCache | null;
  signal?: AbortSignal | undefined;
}

export async function appendEvents(
  ctx: AppendContext,
  events: Iterable<NewEvent> | AsyncIterable<NewEvent>,
): Promise<{ result: AppendResult; cache: TailCache }> {
  let fh: FileHandle;
  try {
    fh = await ctx.dir.openFile(basename(ctx.path), OPEN_APPEND, FILE_MODE);
  } catch (err) {
    if (isEvioError(err)) throw err;
    throw evioError('STORE_IO', `cannot open ${ctx.path} for appending: ${(err as Error).message}`, err);
  }
  const result: AppendResult = { first: null, last: null, count: 0, skipped: 0 };
  /** The file's size before this append wrote anything: where a failed write cuts it back to. */
  let size0 = -1;
  try {
    const st = await fh.stat({ bigint: true });
    let size = Number(st.size);
    size0 = size;
    if (!(await endsWithNewline(fh, size))) {
      size += await writeAll(fh, '\n');
    }
    const c = ctx.cache;
    const fileLast = c && c.dev === st.dev && c.ino === st.ino && c.size === size ? c.last : await readLastRecnum(fh, size, ctx.signal);
    let last = fileLast;
    let parts: string[] = [];
    let pending = 0;
    let pendingFirst: number | null = null;
    let pendingLast = 0;
    let pendingCount = 0;
    const flush = async () => {
      if (parts.length === 0) return;
      size += await writeAll(fh, parts.join(''));
      parts = [];
      pending = 0;
      result.first ??= pendingFirst;
      result.last = pendingLast;
      result.count += pendingCount;
      pendingFirst = null;
      pendingCount = 0;
    };
    let index = 0;
    try {
      for await (const ev0 of events) {
        ctx.signal?.throwIfAborted();
        const ev = normalizeNewEvent(ev0, index++);
        let recnum: number;
        if (ev.recnum === undefined) {
          recnum = last + 1;
        } else if (ev.recnum > last) {
          recnum = ev.recnum;
        } else if (ev.recnum <= fileLast) {
          // Already in the file (a copy run again): recnums increase, so a recnum at or below
          // the file's last one is taken as present. Flat files do not look it up.
          result.skipped++;
          continue;
        } else {
          throw evioError('STORE_RECNUM_ORDER', `record ${index}: recnum ${ev.recnum} is not greater than the previous recnum ${last} of this append`);
        }
        const line = JSON.stringify(ev.recnum === recnum ? ev : { recnum, ...ev }) + '\n';
        parts.push(line);
        pending += line.length;
        pendingFirst ??= recnum;
        pendingLast = recnum;
        pendingCount++;
        last = recnum;
        if (pending >= BATCH_BYTES) await flush();
      }
      await flush();
    } catch (err) {
      if (err instanceof WriteFailure) throw err;
      // The input stopped early: keep (and make durable) what was accepted before it.
      await flush();
      await syncData(fh);
      const e = isEvioError(err) ? err : null;
      if (e && result.count > 0) e.message += ` (the ${result.count} records before it were appended, recnums ${result.first}..${result.last})`;
      throw err;
    }
    await syncData(fh);
    return { result, cache: { dev: st.dev, ino: st.ino, size, last } };
  } catch (err) {
    if (err instanceof WriteFailure) return await undo(fh, ctx.path, size0, err);
    if (isEvioError(err) || (err as { name?: string }).name === 'AbortError') throw err;
    throw evioError('STORE_IO', `appending to ${ctx.path} failed: ${(err as Error).message}`, err);
  } finally {
    await fh.close();
  }
}
