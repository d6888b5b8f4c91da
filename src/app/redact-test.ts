// `evio redact test RULES FILE` (docs/iolog.md, "Redaction"): the rules of RULES (a JSON list of
// rules, or a settings file with its `redact` key) tried on FILE (a sudo I/O log session, an
// asciicast file, or any regular file), reporting each match without its bytes. FILE is any
// path the operator can read: the command runs locally, it needs no I/O log root.
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { evioError, isEvioError } from '../errors.js';
import { openSessionOfKind, sessionAt } from '../iolog/locate.js';
import type { IoStream } from '../iolog/redact/masker.js';
import { testRules, type PieceSource, type RuleTestResult } from '../iolog/redact/rule-test.js';
import { STREAM_NAMES } from '../iolog/timing.js';
import { parseRedactRules, type RedactRule } from '../settings-redact.js';

/** The log server's default password prompt (settings-logsrvd.ts). */
const DEFAULT_PASSPROMPT = '[Pp]assword[: ]*';

export interface RedactTestOptions {
  /** Also mask what is typed after a password prompt (sessions only; default true). */
  passwords?: boolean;
  /** Matches listed at most (all are counted). */
  max?: number;
  signal?: AbortSignal;
}

export interface RedactTestReport extends RuleTestResult {
  file: string;
  kind: 'sudo' | 'asciicast' | 'file';
  rules: string[];
  /** The stream names of the hits: a plain file's bytes are the stream "file". */
  streamName(stream: IoStream): string;
}

/** The rules in RULES, and the password prompt a settings file names (logsrvd.passprompt). */
export async function readRulesFile(path: string): Promise<{ rules: RedactRule[]; passprompt: string }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw evioError('REDACT_RULES_INVALID', `${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const isObject = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
  const list = Array.isArray(raw) ? raw : isObject && Object.hasOwn(raw as object, 'redact') ? (raw as { redact: unknown }).redact : undefined;
  if (list === undefined) throw evioError('REDACT_RULES_INVALID', `${path}: neither a JSON array of rules nor an object with a "redact" key`);
  let rules: RedactRule[];
  try {
    rules = parseRedactRules(list, path);
  } catch (err) {
    if (isEvioError(err, 'SETTINGS_INVALID')) throw evioError('REDACT_RULES_INVALID', err.message.replace(/^\d+\s+/, ''));
    throw err;
  }
  if (rules.length === 0) throw evioError('REDACT_RULES_INVALID', `${path}: the redact list is empty`);
  const logsrvd = isObject ? (raw as { logsrvd?: { passprompt?: unknown } }).logsrvd : undefined;
  const passprompt = typeof logsrvd?.passprompt === 'string' ? logsrvd.passprompt : DEFAULT_PASSPROMPT;
  return { rules, passprompt };
}

export async function redactTest(rulesFile: string, file: string, opts: RedactTestOptions = {}): Promise<RedactTestReport> {
  const { rules, passprompt } = await readRulesFile(rulesFile);
  const real = resolve(file);
  const session = await sessionAt(real);
  let source: PieceSource;
  let kind: RedactTestReport['kind'];
  let tested = rules;
  if (session) {
    kind = session.kind;
    source = async function* () {
      const s = openSessionOfKind(session.kind, session.path);
      for await (const ev of s.events(opts.signal ? { signal: opts.signal } : {})) {
        if (ev.kind === 'data') yield { stream: STREAM_NAMES.indexOf(ev.stream) as IoStream, data: ev.bytes };
      }
    };
  } else {
    let st;
    try {
      st = await stat(real);
    } catch (err) {
      throw evioError('REDACT_TEST_INPUT', `${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!st.isFile()) throw evioError('REDACT_TEST_INPUT', `${file}: neither a session nor a regular file`);
    kind = 'file';
    // A plain file is one stream, tried with every rule whatever stream it names.
    tested = rules.map((r) => ({ ...r, on: 'both' }));
    source = async function* () {
      for await (const chunk of createReadStream(real, { highWaterMark: 64 * 1024, ...(opts.signal ? { signal: opts.signal } : {}) })) yield { stream: 1 as IoStream, data: chunk as Buffer };
    };
  }
  const result = await testRules(tested, source, { maskPasswords: session !== null && opts.passwords !== false, passprompt, max: opts.max ?? 1000, ...(opts.signal ? { signal: opts.signal } : {}) });
  return {
    ...result,
    file: session ? session.path : real,
    kind,
    rules: rules.map((r) => r.name),
    streamName: (s) => (kind === 'file' ? 'file' : STREAM_NAMES[s]!),
  };
}
