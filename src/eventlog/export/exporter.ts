// `evio events export`: the records a query matches, streamed out as NDJSON, CSV or JSON.
// The text is produced in ~64 KiB pieces that the sinks write with backpressure, so memory stays
// bounded whatever the size of the store. A file is written under a temporary name in its
// folder and renamed at the end: a reader never sees half an export, a failed or interrupted
// export leaves the previous file as it was.
import { randomBytes } from 'node:crypto';
import { PRIVATE_FILE_MODE } from '../../private-files.js';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { evioError, isEvioError } from '../../errors.js';
import { pageBatches, type PageEnd } from '../paging.js';
import { shapeEvent } from '../shape.js';
import type { EventQuery, EventStore } from '../types.js';
import { formatWriter, type ExportFormat } from './formats.js';

const PIECE = 64 * 1024;

export interface ExportOptions {
  format: ExportFormat;
  timezone: string;
  signal?: AbortSignal;
  /** Called with the number of records written so far, after each piece. */
  onProgress?: (records: number) => void;
}

export interface ExportCount {
  records: number;
  /** Filled in when given: whether `limit` cut the export, and how to continue. */
  page?: PageEnd;
}

/** The export as text pieces; `count.records` is final once the iterator is done. */
export function exportText(store: EventStore, query: EventQuery, opts: ExportOptions, count: ExportCount): AsyncGenerator<string> {
  const w = formatWriter(opts.format, query.verbose);
  if (w.verbose && !query.verbose) query = { ...query, verbose: true };
  return (async function* () {
    let buf = w.head();
    let n = 0;
    if (query.limit > 0) {
      const end = count.page ?? { more: false, next: null };
      for await (const batch of pageBatches(store, query, opts.signal ? { signal: opts.signal, summary: !query.verbose } : { summary: !query.verbose }, end)) {
        for (const row of batch) {
          const rec = shapeEvent(row, query.verbose, opts.timezone) as Record<string, unknown>;
          // A flat file's resume position is a paging aid, not data: every store exports the same columns.
          delete rec.offset;
          buf += w.row(rec, n++);
          if (buf.length >= PIECE) {
            count.records = n;
            yield buf;
            buf = '';
            opts.onProgress?.(n);
          }
        }
        count.records = n;
      }
    }
    buf += w.tail(n);
    count.records = n;
    opts.onProgress?.(n);
    yield buf;
  })();
}

async function writeAll(fh: import('node:fs/promises').FileHandle, text: string): Promise<number> {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += (await fh.write(buf, off, buf.length - off)).bytesWritten;
  return buf.length;
}

/** Writes the pieces to `path` through a temporary file renamed at the end. Returns the bytes. */
export async function exportToFile(path: string, pieces: AsyncIterable<string>): Promise<number> {
  const target = resolve(path);
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  let fh;
  try {
    fh = await open(tmp, 'wx', PRIVATE_FILE_MODE); // records are private: never group- or world-readable
  } catch (err) {
    throw evioError('EXPORT_OUTPUT', `cannot create ${tmp}: ${(err as Error).message}`, err);
  }
  let bytes = 0;
  let done = false;
  try {
    try {
      for await (const piece of pieces) bytes += await writeAll(fh, piece);
      await fh.sync();
    } catch (err) {
      if (isEvioError(err) || (err as { name?: string }).name === 'AbortError') throw err;
      throw evioError('EXPORT_OUTPUT', `writing ${tmp} failed: ${(err as Error).message}`, err);
    }
    await fh.close();
    fh = null;
    try {
      await rename(tmp, target);
    } catch (err) {
      throw evioError('EXPORT_OUTPUT', `cannot rename ${tmp} to ${target}: ${(err as Error).message}`, err);
    }
    done = true;
    // Make the rename durable.
    const dir = await open(dirname(target), 'r').catch(() => null);
    if (dir) await dir.sync().catch(() => undefined).finally(() => dir.close());
    return bytes;
  } finally {
    if (fh) await fh.close().catch(() => undefined);
    if (!done) await unlink(tmp).catch(() => undefined);
  }
}

/** Writes the pieces to a stream (stdout), waiting for it to drain. Returns the bytes. */
export async function exportToStream(out: Writable, pieces: AsyncIterable<string>): Promise<number> {
  let bytes = 0;
  for await (const piece of pieces) {
    bytes += Buffer.byteLength(piece);
    if (!out.write(piece)) {
      await new Promise<void>((res, rej) => {
        const onDrain = () => {
          out.off('error', onError);
          res();
        };
        const onError = (err: Error) => {
          out.off('drain', onDrain);
          rej(evioError('EXPORT_OUTPUT', `writing the export failed: ${err.message}`, err));
        };
        out.once('drain', onDrain);
        out.once('error', onError);
      });
    }
  }
  return bytes;
}
