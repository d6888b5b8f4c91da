// Compiled terminfo: the reader, the database search, and entry selection with built-in fallbacks.
//
// Format (term(5)): a header of six little-endian 16-bit numbers (magic, then the sizes of the
// names, booleans, numbers, string offsets and string table), the sections in that order (a pad
// byte before the numbers when names+booleans is odd), then optionally the extended section
// (user-defined capabilities with their names). Magic 0o432 stores numbers in 16 bits, 0o1036
// (ncurses 6.1 and later) in 32 bits. Every size and offset is checked against the file, so a
// truncated or hostile file gives REPLAY_TERMINFO_CORRUPT, never an exception of another kind.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { evioError } from '../errors.js';
import { BUILTIN_TERMINFO } from './terminfo-builtin.js';
import { BOOLEAN_NAMES, NUMBER_NAMES, STRING_NAMES } from './terminfo-capnames.js';

export interface TerminfoEntry {
  /** The entry's names: the primary name first, the description last. */
  names: string[];
  booleans: Record<string, boolean>;
  numbers: Record<string, number>;
  /** Capability strings, one char per byte (latin1), as stored. */
  strings: Record<string, string>;
  /** Where it came from: a file path, or "builtin:NAME". */
  source: string;
}

const MAGIC_16 = 0o432;
const MAGIC_32 = 0o1036;
const MAX_FILE = 1 << 20;
const MAX_COUNT = 4096;
const DEFAULT_TERM = 'xterm-256color';

function corrupt(source: string, why: string): Error {
  return evioError('REPLAY_TERMINFO_CORRUPT', `terminfo file ${source} is corrupt: ${why}`);
}

/** Reads a compiled terminfo entry. */
export function parseTerminfo(data: Uint8Array, source = '(buffer)'): TerminfoEntry {
  if (data.length > MAX_FILE) throw corrupt(source, `larger than ${MAX_FILE} bytes`);
  let pos = 0;
  const need = (n: number, what: string): void => {
    if (n < 0 || pos + n > data.length) throw corrupt(source, `truncated in the ${what}`);
  };
  const i16 = (): number => {
    need(2, 'header');
    const v = data[pos]! | (data[pos + 1]! << 8);
    pos += 2;
    return v >= 0x8000 ? v - 0x10000 : v;
  };
  const count = (v: number, what: string): number => {
    if (v < 0 || v > MAX_COUNT * 16) throw corrupt(source, `bad ${what} size ${v}`);
    return v;
  };

  const magic = i16();
  if (magic !== MAGIC_16 && magic !== MAGIC_32) throw corrupt(source, `bad magic number 0o${(magic & 0xffff).toString(8)}`);
  const numWidth = magic === MAGIC_32 ? 4 : 2;
  const namesSize = count(i16(), 'names');
  const boolCount = count(i16(), 'booleans');
  const numCount = count(i16(), 'numbers');
  const strCount = count(i16(), 'strings');
  const tableSize = count(i16(), 'string table');

  need(namesSize, 'names');
  const names = latin1(data, pos, pos + namesSize).split('\0')[0]!.split('|');
  pos += namesSize;

  const entry: TerminfoEntry = { names, booleans: {}, numbers: {}, strings: {}, source };

  need(boolCount, 'booleans');
  for (let i = 0; i < boolCount; i++) {
    const name = BOOLEAN_NAMES[i];
    if (name !== undefined && data[pos + i] === 1) entry.booleans[name] = true;
  }
  pos += boolCount;
  if ((namesSize + boolCount) % 2 === 1) pos++;

  const readNumber = (): number => {
    need(numWidth, 'numbers');
    let v: number;
    if (numWidth === 4) v = data[pos]! | (data[pos + 1]! << 8) | (data[pos + 2]! << 16) | (data[pos + 3]! << 24);
    else {
      v = data[pos]! | (data[pos + 1]! << 8);
      if (v >= 0x8000) v -= 0x10000;
    }
    pos += numWidth;
    return v;
  };
  for (let i = 0; i < numCount; i++) {
    const v = readNumber();
    const name = NUMBER_NAMES[i];
    if (name !== undefined && v >= 0) entry.numbers[name] = v;
  }

  need(strCount * 2, 'string offsets');
  const offsets: number[] = [];
  for (let i = 0; i < strCount; i++) offsets.push(i16());
  need(tableSize, 'string table');
  const tableStart = pos;
  for (let i = 0; i < strCount; i++) {
    const off = offsets[i]!;
    const name = STRING_NAMES[i];
    if (off < 0 || name === undefined) continue;
    entry.strings[name] = cString(data, tableStart, tableSize, off, source);
  }
  pos += tableSize;

  if (pos % 2 === 1 && pos < data.length) pos++;
  if (data.length - pos >= 10) readExtended();
  return entry;

  function readExtended(): void {
    const extBools = count(i16(), 'extended booleans');
    const extNums = count(i16(), 'extended numbers');
    const extStrs = count(i16(), 'extended strings');
    count(i16(), 'extended string items'); // strings actually stored; the offsets cover every slot
    const extTableSize = count(i16(), 'extended string table');
    const items = extStrs + extBools + extNums + extStrs;

    need(extBools, 'extended booleans');
    const boolValues = Array.from(data.subarray(pos, pos + extBools));
    pos += extBools;
    if (extBools % 2 === 1) pos++;
    const numValues: number[] = [];
    for (let i = 0; i < extNums; i++) numValues.push(readNumber());
    need(items * 2, 'extended string offsets');
    const extOffsets: number[] = [];
    for (let i = 0; i < items; i++) extOffsets.push(i16());
    need(extTableSize, 'extended string table');
    const base = pos;
    // Values come first in the table; the names follow the last value present (as ncurses reads it).
    let valuesEnd = 0;
    const values: Array<string | undefined> = [];
    for (let i = 0; i < extStrs; i++) {
      const off = extOffsets[i]!;
      if (off < 0) {
        values.push(undefined);
        continue;
      }
      const s = cString(data, base, extTableSize, off, source);
      values.push(s);
      valuesEnd = off + s.length + 1;
    }
    const nameAt = (k: number): string => {
      const off = extOffsets[extStrs + k]!;
      if (off < 0) throw corrupt(source, 'extended capability without a name');
      return cString(data, base + valuesEnd, extTableSize - valuesEnd, off, source);
    };
    for (let i = 0; i < extBools; i++) if (boolValues[i] === 1) entry.booleans[nameAt(i)] = true;
    for (let i = 0; i < extNums; i++) {
      const v = numValues[i]!;
      if (v >= 0) entry.numbers[nameAt(extBools + i)] = v;
    }
    for (let i = 0; i < extStrs; i++) {
      const v = values[i];
      if (v !== undefined) entry.strings[nameAt(extBools + extNums + i)] = v;
    }
  }
}

function latin1(data: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(data[i]!);
  return s;
}

/** The NUL-terminated string at `off` of a table [start, start+size). */
function cString(data: Uint8Array, start: number, size: number, off: number, source: string): string {
  if (off < 0 || off >= size) throw corrupt(source, `string offset ${off} outside a table of ${size} bytes`);
  const end = start + size;
  let i = start + off;
  while (i < end && data[i] !== 0) i++;
  if (i >= end) throw corrupt(source, 'unterminated string');
  return latin1(data, start + off, i);
}

// ---- database search

/** A terminal type name usable as a file name: no path separators, controls or dot names. */
export function checkTermName(term: string): string {
  // eslint-disable-next-line no-control-regex
  if (!term || term.length > 128 || /[/\\\x00-\x20\x7f]/.test(term) || term === '.' || term === '..') {
    throw evioError('REPLAY_TERM_BAD_NAME', `"${term.slice(0, 64).replace(/[^\x21-\x7e]/g, '?')}" is not a terminal type name`);
  }
  return term;
}

/** Directories searched, in ncurses' order. */
export function terminfoDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const system = ['/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo'];
  const dirs: string[] = [];
  if (env.TERMINFO) dirs.push(env.TERMINFO);
  const home = env.HOME ?? safeHomedir();
  if (home) dirs.push(join(home, '.terminfo'));
  if (env.TERMINFO_DIRS !== undefined) {
    // An empty element stands for the system directories.
    for (const d of env.TERMINFO_DIRS.split(':')) dirs.push(...(d === '' ? system : [d]));
  }
  dirs.push(...system);
  return [...new Set(dirs)];
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/** The first compiled file for `term` in `dirs` (`x/xterm` or hex `78/xterm` layout), or null. */
export function findTerminfoFile(term: string, dirs: string[]): { path: string; data: Uint8Array } | null {
  checkTermName(term);
  const first = term.charAt(0);
  const hex = term.charCodeAt(0).toString(16).padStart(2, '0');
  for (const dir of dirs) {
    for (const sub of [first, hex]) {
      const path = join(dir, sub, term);
      try {
        return { path, data: readFileSync(path) };
      } catch {
        // not here; try the next place
      }
    }
  }
  return null;
}

export interface LoadTerminfoOptions {
  env?: NodeJS.ProcessEnv;
  /** Directories to search instead of the environment's (tests). */
  dirs?: string[];
}

/**
 * The entry for `term` (default xterm-256color): from the terminfo database if it has one, else a
 * built-in entry. A corrupt compiled file is skipped in favour of the next place, then the
 * built-in entry; it is reported only when nothing else has the name.
 */
export function loadTerminfo(term: string | undefined, options: LoadTerminfoOptions = {}): TerminfoEntry {
  const name = checkTermName(term || DEFAULT_TERM);
  const dirs = options.dirs ?? terminfoDirs(options.env);
  let firstError: unknown = null;
  for (const dir of dirs) {
    const found = findTerminfoFile(name, [dir]);
    if (!found) continue;
    try {
      return parseTerminfo(found.data, found.path);
    } catch (err) {
      firstError ??= err;
    }
  }
  const builtin = builtinTerminfo(name);
  if (builtin) return builtin;
  if (firstError) throw firstError;
  throw evioError('REPLAY_TERM_UNKNOWN', `no terminfo entry for "${name}" (searched ${dirs.join(', ')}) and no built-in one`);
}

/** A built-in entry (xterm, xterm-256color, vt100, linux, screen), or null. */
export function builtinTerminfo(name: string): TerminfoEntry | null {
  const b = BUILTIN_TERMINFO[name];
  if (!b) return null;
  return { names: [name, b.description], booleans: {}, numbers: { ...b.numbers }, strings: { ...b.strings }, source: `builtin:${name}` };
}

export const BUILTIN_TERM_NAMES: readonly string[] = Object.keys(BUILTIN_TERMINFO);
