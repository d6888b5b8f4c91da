// A file read as lines with exact byte positions, streamed in large reads: the import readers
// report where they stopped by byte offset and line number, so positions are counted on the
// raw bytes (before UTF-8 decoding, which is tolerant: invalid bytes become U+FFFD, as sudo
// copies bytes >= 0x80 raw into its logs). A UTF-8 byte order mark at the start of the file is
// not part of the first line: that line starts at byte 3.
import { open, type FileHandle } from 'node:fs/promises';
import { evioError } from '../../errors.js';
import { hasBomAt } from '../flatfile/bom.js';

export interface SourceLine {
  /** The line's text without its '\n' (nor a '\r' before it). */
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just after the line's '\n', or the end of the data for a last line without one. */
  end: number;
  /** 1-based line number. */
  line: number;
  /** False for a last line that has no '\n' (a writer may still be writing it). */
  complete: boolean;
  /** The line was longer than maxLineBytes; `text` is empty. */
  oversized: boolean;
}

export interface LineSourceOptions {
  /** Bytes of the file to read (default: its size when opened, so a growing file reads a fixed prefix). */
  limit?: number;
  /** Longer lines are reported as oversized and not decoded. Default 16 MiB. */
  maxLineBytes?: number;
  readSize?: number;
  signal?: AbortSignal | undefined;
  /** Called after each read with the bytes consumed so far (progress). */
  onBytes?: (bytes: number) => void;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

export async function openSource(path: string): Promise<{ fh: FileHandle; size: number; mtimeMs: number }> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw evioError('JOB_SOURCE_UNREADABLE', `cannot open ${path}: ${(err as Error).message}`, err);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw evioError('JOB_SOURCE_UNREADABLE', `${path} is not a regular file`);
    return { fh, size: st.size, mtimeMs: st.mtimeMs };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

function decode(buf: Buffer, start: number, end: number): string {
  if (end > start && buf[end - 1] === 13) end--; // CRLF files
  return buf.toString('utf8', start, end);
}

/** Streams the lines of `path` (up to `limit` bytes), one at a time. */
export async function* readLines(path: string, opts: LineSourceOptions = {}): AsyncGenerator<SourceLine> {
  for await (const batch of readLineBatches(path, opts)) yield* batch;
}

/**
 * Streams the lines of `path` (up to `limit` bytes) in batches, one per read: the readers walk a
 * batch synchronously, which keeps the per-line cost of async iteration out of the hot loop.
 */
export async function* readLineBatches(path: string, opts: LineSourceOptions = {}): AsyncGenerator<SourceLine[]> {
  const { fh, size } = await openSource(path);
  const limit = Math.min(opts.limit ?? size, size);
  const maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const readSize = opts.readSize ?? 1 << 20;
  try {
    let buf = Buffer.allocUnsafe(readSize);
    let filled = 0; // bytes of buf holding data
    let bufPos = 0; // file offset of buf[0]
    let lineStartInBuf = 0;
    let lineNo = 0;
    let discarding = false; // inside an oversized line: skip to its newline
    let discardStart = 0;
    let pos = 0; // next file offset to read
    let bomChecked = false;
    while (pos < limit || filled > lineStartInBuf) {
      opts.signal?.throwIfAborted();
      const batch: SourceLine[] = [];
      if (pos < limit) {
        // Make room: drop consumed bytes, grow when one line fills the buffer.
        if (lineStartInBuf > 0) {
          buf.copy(buf, 0, lineStartInBuf, filled);
          filled -= lineStartInBuf;
          bufPos += lineStartInBuf;
          lineStartInBuf = 0;
        }
        if (filled === buf.length) {
          if (discarding || buf.length >= maxLine) {
            // An oversized line: forget its bytes and keep looking for its end.
            if (!discarding) discardStart = bufPos;
            discarding = true;
            bufPos += filled;
            filled = 0;
          } else {
            const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxLine));
            buf.copy(bigger, 0, 0, filled);
            buf = bigger;
          }
        }
        let got: number;
        try {
          ({ bytesRead: got } = await fh.read(buf, filled, Math.min(buf.length - filled, limit - pos), pos));
        } catch (err) {
          throw evioError('JOB_SOURCE_UNREADABLE', `reading ${path} failed: ${(err as Error).message}`, err);
        }
        if (got <= 0) break; // the file shrank
        filled += got;
        pos += got;
        opts.onBytes?.(pos);
      }
      if (!bomChecked && (filled >= 3 || pos >= limit)) {
        // The mark holds no '\n', so no line was cut from these bytes before this check.
        bomChecked = true;
        if (bufPos === 0 && lineStartInBuf === 0 && hasBomAt(buf, 0, filled)) lineStartInBuf = 3;
      }
      let i = buf.indexOf(10, lineStartInBuf);
      while (i !== -1 && i < filled) {
        lineNo++;
        if (discarding) {
          batch.push({ text: '', start: discardStart, end: bufPos + i + 1, line: lineNo, complete: true, oversized: true });
          discarding = false;
        } else {
          batch.push({ text: decode(buf, lineStartInBuf, i), start: bufPos + lineStartInBuf, end: bufPos + i + 1, line: lineNo, complete: true, oversized: false });
        }
        lineStartInBuf = i + 1;
        i = buf.indexOf(10, lineStartInBuf);
      }
      if (pos >= limit) {
        // The data ends: a last line without '\n'.
        if (filled > lineStartInBuf || discarding) {
          lineNo++;
          if (discarding) batch.push({ text: '', start: discardStart, end: bufPos + filled, line: lineNo, complete: false, oversized: true });
          else batch.push({ text: decode(buf, lineStartInBuf, filled), start: bufPos + lineStartInBuf, end: bufPos + filled, line: lineNo, complete: false, oversized: false });
        }
        if (batch.length) yield batch;
        break;
      }
      if (batch.length) yield batch;
    }
  } finally {
    await fh.close();
  }
}
