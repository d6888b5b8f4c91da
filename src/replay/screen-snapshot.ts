// A keyframe of the screen model: its whole state (both buffers with scrollback, cursor, saved
// cursor, scroll region, tab stops, modes, charsets, cell and current attributes) as bytes, and back. The seek index of
// src/iolog stores one every few hundred KB of output, so the screen at any moment costs one
// restore plus the bytes since the keyframe. The parser is not part of it: a snapshot is only
// taken while the parser is idle (no escape sequence or UTF-8 character partly read).
//
// Layout (then deflated, raw, level 1: rows of cells compress well):
//   u32 header length, header JSON (sizes, cursor, modes, charsets, combined characters) padded
//   to a multiple of 8, then per buffer (normal, alt) per line: u32 length, u32 flags (1 wrapped,
//   2 has attributes), f64 time, length × u32 cells, and with flag 2 length × 2 u32 attributes
//   (fg, bg per cell). Everything stays 4-byte aligned, so a restore makes each line's cells a
//   view into one copy of the inflated bytes instead of a copy per line.
//
// Version 2 added the attributes, version 3 the pipe stream's newline (Screen.lineFeedIsNewline,
// until then forced into LNM) and DECSCA protection (a bit of the bg word); a keyframe of another version raises SnapshotError, and the
// seek index (src/iolog/seek.ts) then rebuilds its keyframes.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DEC_SPECIAL_GRAPHICS, UK, type Charset } from './charsets.js';
import { LineRing } from './line-ring.js';
import { Screen, type ScreenModes } from './screen.js';
import { ScreenBuffer } from './screen-buffer.js';
import { ScreenLine } from './screen-line.js';

/** Raised when snapshot bytes do not decode (a damaged seek index; the caller rebuilds it). */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

const CHARSET_IDS: ReadonlyArray<Charset> = [null, DEC_SPECIAL_GRAPHICS, UK];
const charsetId = (c: Charset): number => Math.max(0, CHARSET_IDS.indexOf(c));
const charsetOf = (id: number): Charset => CHARSET_IDS[id] ?? null;

interface BufferHeader {
  ybase: number;
  x: number;
  y: number;
  scrollTop: number;
  scrollBottom: number;
  tabs: number[];
  savedX: number;
  savedY: number;
  savedCharset: number;
  savedFg: number;
  savedBg: number;
  cols: number;
  rows: number;
  maxLength: number;
  lines: number;
  /** [line index, column, text] of cells holding combining characters. */
  combined: Array<[number, number, string]>;
}

export const SNAPSHOT_VERSION = 3;

interface Header {
  v: typeof SNAPSHOT_VERSION;
  cols: number;
  rows: number;
  scrollback: number;
  alternate: boolean;
  modes: ScreenModes;
  charsets: number[];
  glevel: number;
  charset: number;
  joinState: number;
  time: number;
  lineFeedIsNewline: boolean;
  fg: number;
  bg: number;
  normal: BufferHeader;
  alt: BufferHeader;
}

function bufferHeader(b: ScreenBuffer): BufferHeader {
  const combined: Array<[number, number, string]> = [];
  for (let i = 0; i < b.lines.length; i++) {
    const m = b.lines.at(i).combined;
    if (m) for (const [col, text] of m) combined.push([i, col, text]);
  }
  const tabs: number[] = [];
  for (let x = 0; x < b.tabs.length; x++) if (b.tabs[x]) tabs.push(x);
  return {
    ybase: b.ybase, x: b.x, y: b.y, scrollTop: b.scrollTop, scrollBottom: b.scrollBottom, tabs,
    savedX: b.savedX, savedY: b.savedY, savedCharset: charsetId(b.savedCharset), savedFg: b.savedFg >>> 0, savedBg: b.savedBg >>> 0,
    cols: b.cols, rows: b.rows, maxLength: b.lines.maxLength, lines: b.lines.length, combined,
  };
}

function linesSize(b: ScreenBuffer): number {
  let n = 0;
  for (let i = 0; i < b.lines.length; i++) {
    const line = b.lines.at(i);
    n += 16 + (line.attrs ? 12 : 4) * line.length;
  }
  return n;
}

function writeLines(b: ScreenBuffer, view: DataView, out: Uint8Array, at: number): number {
  for (let i = 0; i < b.lines.length; i++) {
    const line = b.lines.at(i);
    view.setUint32(at, line.length, true);
    view.setUint32(at + 4, (line.isWrapped ? 1 : 0) | (line.attrs ? 2 : 0), true);
    view.setFloat64(at + 8, line.time, true);
    at += 16;
    const cells = new Uint8Array(line.cells.buffer, line.cells.byteOffset, line.length * 4);
    out.set(cells, at);
    at += cells.length;
    if (line.attrs) {
      const attrs = new Uint8Array(line.attrs.buffer, line.attrs.byteOffset, line.length * 8);
      out.set(attrs, at);
      at += attrs.length;
    }
  }
  return at;
}

/** The screen's state as deflated bytes. The parser must be idle (Screen.parserIdle). */
export function snapshotScreen(screen: Screen): Uint8Array {
  const s = screen.exportState();
  const header: Header = {
    v: SNAPSHOT_VERSION, cols: s.cols, rows: s.rows, scrollback: s.scrollback, alternate: s.alternate, modes: s.modes,
    charsets: s.charsets.map(charsetId), glevel: s.glevel, charset: charsetId(s.charset),
    joinState: s.joinState, time: s.time, lineFeedIsNewline: s.lineFeedIsNewline, fg: s.fg >>> 0, bg: s.bg >>> 0, normal: bufferHeader(s.normal), alt: bufferHeader(s.alt),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const body = align8(4 + json.length);
  const size = body + linesSize(s.normal) + linesSize(s.alt);
  const out = new Uint8Array(size).fill(0x20, 4 + json.length, body);
  const view = new DataView(out.buffer);
  view.setUint32(0, body - 4, true);
  out.set(json, 4);
  let at = writeLines(s.normal, view, out, body);
  at = writeLines(s.alt, view, out, at);
  return deflateRawSync(out, { level: 1 });
}

const align8 = (n: number): number => (n + 7) & ~7;

function readBuffer(h: BufferHeader, hasScrollback: boolean, scrollback: number, view: DataView, at: number): [ScreenBuffer, number] {
  const b = new ScreenBuffer(hasScrollback, scrollback, h.cols, h.rows);
  b.lines = new LineRing(h.maxLength);
  for (let i = 0; i < h.lines; i++) {
    if (at + 16 > view.byteLength) throw new SnapshotError('snapshot is truncated');
    const len = view.getUint32(at, true);
    const flags = view.getUint32(at + 4, true);
    const line = new ScreenLine(0, (flags & 1) === 1);
    line.time = view.getFloat64(at + 8, true);
    at += 16;
    if (at + len * 4 > view.byteLength) throw new SnapshotError('snapshot is truncated');
    // A view: the bytes were copied once to an aligned buffer of their own (restoreScreen).
    line.cells = new Uint32Array(view.buffer, view.byteOffset + at, len);
    line.length = len;
    at += len * 4;
    if (flags & 2) {
      if (at + len * 8 > view.byteLength) throw new SnapshotError('snapshot is truncated');
      line.attrs = new Uint32Array(view.buffer, view.byteOffset + at, len * 2);
      at += len * 8;
    }
    b.lines.push(line);
  }
  for (const [i, col, text] of h.combined) {
    const line = b.lines.get(i);
    if (!line) continue;
    line.combined ??= new Map();
    line.combined.set(col, text);
  }
  b.ybase = h.ybase;
  b.x = h.x;
  b.y = h.y;
  b.scrollTop = h.scrollTop;
  b.scrollBottom = h.scrollBottom;
  b.tabs = new Uint8Array(Math.max(h.cols, 8, (h.tabs[h.tabs.length - 1] ?? 0) + 1));
  for (const x of h.tabs) b.tabs[x] = 1;
  b.savedX = h.savedX;
  b.savedY = h.savedY;
  b.savedCharset = charsetOf(h.savedCharset);
  b.savedFg = h.savedFg;
  b.savedBg = h.savedBg;
  return [b, at];
}

/** A screen model in the state a snapshot recorded. */
export function restoreScreen(bytes: Uint8Array): Screen {
  let raw: Uint8Array;
  let header: Header;
  try {
    // One copy into a buffer of its own: aligned, and not part of Node's shared pool.
    raw = new Uint8Array(inflateRawSync(bytes));
    const len = new DataView(raw.buffer).getUint32(0, true);
    header = JSON.parse(Buffer.from(raw.buffer, 4, len).toString('utf8')) as Header;
    if (header.v !== SNAPSHOT_VERSION) throw new SnapshotError(`snapshot version ${String(header.v)} is unknown`);
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(`snapshot does not decode: ${(err as Error).message}`);
  }
  const view = new DataView(raw.buffer, 0, raw.byteLength);
  const [normal, after] = readBuffer(header.normal, true, header.scrollback, view, 4 + view.getUint32(0, true));
  const [alt] = readBuffer(header.alt, false, 0, view, after);
  return Screen.fromState({
    cols: header.cols, rows: header.rows, scrollback: header.scrollback, alternate: header.alternate, modes: header.modes,
    charsets: header.charsets.map(charsetOf), glevel: header.glevel, charset: charsetOf(header.charset),
    joinState: header.joinState, time: header.time, lineFeedIsNewline: header.lineFeedIsNewline, fg: header.fg, bg: header.bg, normal, alt,
  });
}
