// sudo's iolog_dir / iolog_file templates (sudoers(5) "I/O LOG FILES", sudo_logsrvd.conf(5)):
// %{seq} %{user} %{group} %{runas_user} %{runas_group} %{hostname} %{command}, strftime(3)
// conversions (strftime.ts) of the submit time, and %%. Expanded in one pass, unlike sudo (which
// substitutes the escapes and then runs strftime over the result, so a "%" a client sends in its
// user name would be read as a conversion): what a client sends is never read as a template.
//
// Every substituted value except %{seq} comes from the client and is untrusted. A "/" in it
// becomes "_" (as sudo does), and so does every control character (NUL, newline ...: sudo
// copies them; evio does not put them in names). What the expansion gives is then split into
// components; a component "." or ".." (a value that is exactly that), one longer than 255 bytes
// or a path that names no directory below its root is refused (IOLOG_PATH_UNSAFE): the result
// can only name directories inside the root the template names.
import { randomBytes } from 'node:crypto';
import { evioError } from '../../errors.js';
import { brokenDown, STRFTIME_CONVERSIONS, strftimeConversion, type BrokenDown } from './strftime.js';

export const ESCAPE_NAMES = ['seq', 'user', 'group', 'runas_user', 'runas_group', 'hostname', 'command'] as const;
export type EscapeName = (typeof ESCAPE_NAMES)[number];

export type Token = { kind: 'text'; text: string } | { kind: 'escape'; name: EscapeName } | { kind: 'time'; conversion: string };

export interface CompiledTemplate {
  readonly source: string;
  readonly tokens: readonly Token[];
  readonly usesSeq: boolean;
  /** Number of trailing literal X (6 or more: replaced with random characters, as mkdtemp), else 0. */
  readonly trailingX: number;
}

/** The values of the escapes; seq is the split ID ("00/00/01"), the rest client values. */
export type TemplateValues = Record<Exclude<EscapeName, 'seq'>, string> & { seq?: string };

/** Longest path component a Linux file system takes (NAME_MAX, bytes). */
export const NAME_MAX = 255;
/** Longest path (PATH_MAX, bytes). */
export const PATH_MAX = 4096;

function invalid(source: string, why: string): never {
  throw evioError('IOLOG_TEMPLATE_INVALID', `I/O log template ${JSON.stringify(source)}: ${why}`);
}

/** Parses a template; IOLOG_TEMPLATE_INVALID for what sudo would misread or evio does not render. */
export function compileTemplate(source: string, part: 'dir' | 'file'): CompiledTemplate {
  if (typeof source !== 'string' || source === '') invalid(String(source), 'it is empty');
  if (part === 'dir' && !source.startsWith('/')) invalid(source, 'the directory template must be an absolute path');
  if (part === 'file' && source.startsWith('/')) invalid(source, 'the file template is relative to the directory; it must not start with /');
  const tokens: Token[] = [];
  let text = '';
  const flush = () => {
    if (text) tokens.push({ kind: 'text', text });
    text = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c.charCodeAt(0) < 0x20 || c === '\u007f') invalid(source, 'it contains a control character');
    if (c !== '%') {
      text += c;
      continue;
    }
    const next = source[i + 1];
    if (next === '%') {
      text += '%';
      i++;
    } else if (next === '{') {
      const end = source.indexOf('}', i + 2);
      const name = end < 0 ? '' : source.slice(i + 2, end);
      if (!(ESCAPE_NAMES as readonly string[]).includes(name)) {
        invalid(source, `${end < 0 ? 'an unterminated %{' : `unknown escape %{${name}}`}; the escapes are ${ESCAPE_NAMES.map((n) => `%{${n}}`).join(' ')}`);
      }
      if (name === 'seq' && part === 'dir') invalid(source, '%{seq} belongs in the file template (the counter lives in the directory)');
      flush();
      tokens.push({ kind: 'escape', name: name as EscapeName });
      i = end;
    } else if (next !== undefined && STRFTIME_CONVERSIONS.includes(next)) {
      flush();
      tokens.push({ kind: 'time', conversion: next });
      i++;
    } else {
      invalid(source, `%${next ?? ''} is not a supported conversion (strftime: %${STRFTIME_CONVERSIONS.split('').join(' %')}; and %%)`);
    }
  }
  flush();
  const last = tokens[tokens.length - 1];
  const xs = last?.kind === 'text' ? /X*$/.exec(last.text)![0].length : 0;
  const compiled: CompiledTemplate = { source, tokens, usesSeq: tokens.some((t) => t.kind === 'escape' && t.name === 'seq'), trailingX: part === 'file' && xs >= 6 ? xs : 0 };
  // A "." or ".." written in the template itself (not from a value) is the template's fault.
  const probe = expandTemplate(compiled, { user: 'u', group: 'g', runas_user: 'r', runas_group: 'q', hostname: 'h', command: 'c', seq: '00/00/01' }, brokenDown(0, 'UTC'));
  for (const comp of probe.split('/')) if (comp === '.' || comp === '..') invalid(source, `a path component is "${comp}"`);
  return compiled;
}

/** A client value made safe for one path component: "/" and control characters become "_". */
export function sanitizeValue(v: string): string {
  // eslint-disable-next-line no-control-regex
  return v.replace(/[/\u0000-\u001f\u007f]/g, '_');
}

/** The template with values and time filled in (values sanitised, %{seq} as given). */
export function expandTemplate(t: CompiledTemplate, values: TemplateValues, time: BrokenDown): string {
  let out = '';
  for (const tok of t.tokens) {
    if (tok.kind === 'text') out += tok.text;
    else if (tok.kind === 'time') out += strftimeConversion(tok.conversion, time);
    else if (tok.name === 'seq') out += values.seq ?? '';
    else out += sanitizeValue(values[tok.name]);
  }
  return out;
}

const RANDOM_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` random characters of [A-Za-z0-9] (unbiased: bytes >= 248 are drawn again). */
export function randomName(n: number): string {
  let s = '';
  while (s.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && s.length < n) s += RANDOM_CHARS[b % 62];
    }
  }
  return s;
}

/** The expansion with its trailing X (trailingX of them) replaced by random characters. */
export function fillTrailingX(path: string, trailingX: number): string {
  return trailingX > 0 ? path.slice(0, path.length - trailingX) + randomName(trailingX) : path;
}

/**
 * The components of an expanded path (empty ones, from "//" or an empty value, dropped).
 * IOLOG_PATH_UNSAFE for "." or "..", a component over NAME_MAX bytes, or a path over PATH_MAX.
 */
export function pathComponents(path: string, shown: string): string[] {
  if (Buffer.byteLength(path) > PATH_MAX) throw evioError('IOLOG_PATH_UNSAFE', `the session path ${JSON.stringify(shown)} is longer than ${PATH_MAX} bytes`);
  const out: string[] = [];
  for (const comp of path.split('/')) {
    if (comp === '') continue;
    if (comp === '.' || comp === '..') throw evioError('IOLOG_PATH_UNSAFE', `the session path ${JSON.stringify(shown)} has a component "${comp}" (from a value the client sent); it is refused`);
    if (Buffer.byteLength(comp) > NAME_MAX) throw evioError('IOLOG_PATH_UNSAFE', `a component of the session path ${JSON.stringify(shown.slice(0, 300))} is longer than ${NAME_MAX} bytes`);
    out.push(comp);
  }
  return out;
}
