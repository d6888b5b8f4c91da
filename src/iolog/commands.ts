// The command timeline of a session: every line a person entered (src/replay/text/typed-input/), when and
// where in the data stream its Enter was, the directory it was entered in where the session
// shows it, and when the next prompt appeared; plus the exit status of the session's own
// command where the session records it. One pass over the session; runs in a worker.
//
// Directory, in order of trust: the OSC 7 report (`ESC ] 7 ; file://host/path`) the shell
// last sent before the prompt the line was typed at; the directory that prompt shows
// (prompt.ts); for the first line of the session, when neither is known, the directory the
// session's command ran in (log.json runcwd/cwd). Otherwise absent: a `cd` is never guessed.
// The prompt a line was typed at is the last one that appeared before its first key.
import { atSeconds } from './moment.js';
import { COMMANDS_MAX } from './limits.js';
import { openSession, type CastCacheUse } from './locate.js';
import type { RedactView } from './redact/redacted-session.js';
import { recognisePrompt } from './prompt.js';
import { checkAborted } from './session.js';
import type { StreamName } from './timing.js';
import { LINE_FLAGS, TypedInput, type LineFlags, type TypedLine } from '../replay/text/typed-input/index.js';

export interface CommandsRequest {
  file: string;
  /** Show lines typed at a no-echo prompt (else their text is blanked). */
  hidden: boolean;
  /** Read through these redaction rules (absent: as recorded). */
  redact?: RedactView;
  /** An asciicast v1 file: read from its cache here (see CastCacheUse). */
  cast?: CastCacheUse;
}

export interface CommandEntry extends LineFlags {
  /** Milliseconds since the session start at which the line was entered (its Enter), rounded down. */
  time: number;
  /** The same moment in seconds, rounded up to the microsecond: `screen --at` shows the line entered. */
  at: number;
  /** Data-stream position of the Enter key's byte (the chunk API's positions). */
  offset: number;
  line: string;
  /** The line as the terminal showed it when entered, where that differs (a recalled or completed line). */
  shown?: string;
  stream: StreamName;
  cwd?: string;
  /** Seconds (rounded up) at which the next prompt appeared after the Enter. */
  prompt_at?: number;
}

export interface SessionExit {
  /** The exit status (0-255; 128 + signal number when a signal killed it). */
  status?: number;
  /** The signal that killed it, without SIG. */
  signal?: string;
  source: 'log.json' | 'asciicast';
}

export interface CommandsResult {
  file: string;
  log: CommandEntry[];
  exit?: SessionExit;
  /** More than COMMANDS_MAX lines: the rest were left out. */
  truncated?: boolean;
  warnings: string[];
}

interface PromptSeen {
  timeMs: number;
  cwd: string | null;
}

/** Prompts remembered to place lines (a line is emitted at most ECHO_GRACE_MS after its Enter). */
const PROMPTS_KEPT = 256;

export async function sessionCommands(roots: readonly string[], r: CommandsRequest, signal?: AbortSignal): Promise<CommandsResult> {
  const session = await openSession([...roots], r.file, r.redact, r.cast);
  const info = await session.info();
  const vars = await session.variables();
  const mode = r.hidden ? 'keep' : 'redact';
  const ttyin = new TypedInput({ hidden: mode, cols: info.cols, rows: info.rows });
  ttyin.watchOutput();
  const stdin = new TypedInput({ hidden: mode, editing: false }); // a pipe: no line editing
  const log: CommandEntry[] = [];
  let truncated = false;
  const prompts: PromptSeen[] = [];
  let lastPromptRow: string | null = null;
  /** log[awaiting..] may still get their prompt_at; enterMs[i] is log[i]'s exact Enter time. */
  let awaiting = 0;
  const enterMs: number[] = [];
  let castExit: string | null = null;

  const promptBefore = (ms: number): PromptSeen | undefined => {
    for (let i = prompts.length - 1; i >= 0; i--) if (prompts[i]!.timeMs <= ms) return prompts[i];
    return undefined;
  };

  const add = (stream: StreamName, lines: TypedLine[]): void => {
    for (const l of lines) {
      if (log.length >= COMMANDS_MAX) {
        truncated = true;
        return;
      }
      const e: CommandEntry = { time: Math.floor(l.endMs), at: atSeconds(l.endMs), offset: l.endPos, line: l.text, stream };
      const p = promptBefore(l.timeMs);
      const cwd = p?.cwd ?? (log.length === 0 && info.cwd ? info.cwd : undefined);
      if (cwd !== undefined) e.cwd = cwd;
      const next = prompts.find((q) => q.timeMs > l.endMs);
      if (next) e.prompt_at = atSeconds(next.timeMs);
      if (l.shown !== undefined) e.shown = l.shown;
      for (const f of LINE_FLAGS) if (l[f]) e[f] = true;
      log.push(e);
      enterMs.push(l.endMs);
    }
  };

  const promptAppeared = (timeMs: number): void => {
    const row = ttyin.promptText();
    const p = recognisePrompt(row);
    if (!p) {
      lastPromptRow = null;
      return;
    }
    if (row === lastPromptRow) return;
    lastPromptRow = row;
    prompts.push({ timeMs, cwd: ttyin.outputCwd ?? p.cwd ?? null });
    if (prompts.length > PROMPTS_KEPT) prompts.shift();
    // Only lines entered since the previous prompt can still be waiting: a short scan.
    for (let i = awaiting; i < log.length; i++) {
      if (log[i]!.prompt_at === undefined && enterMs[i]! < timeMs) log[i]!.prompt_at = atSeconds(timeMs);
    }
    while (awaiting < log.length && log[awaiting]!.prompt_at !== undefined) awaiting++;
  };

  let n = 0;
  const events = session.events(signal ? { signal } : {});
  try {
    for await (const ev of events) {
      if ((++n & 255) === 0) checkAborted(signal);
      if (ev.kind === 'exit') castExit = ev.status;
      if (ev.kind === 'winch') ttyin.resize(ev.cols, ev.rows);
      if (ev.kind !== 'data') continue;
      const t = ev.sec * 1000 + ev.nsec / 1e6;
      if (ev.stream === 'ttyout') {
        ttyin.observeOutput(ev.bytes, t);
        add('ttyin', ttyin.takeLines());
        promptAppeared(t);
      } else if (ev.stream === 'ttyin') {
        ttyin.writeAt(ev.bytes, t, ev.pos);
        add('ttyin', ttyin.takeLines());
      } else if (ev.stream === 'stdin') {
        stdin.writeAt(ev.bytes, t, ev.pos);
        add('stdin', stdin.takeLines());
      }
    }
  } finally {
    await events.return(undefined);
  }
  add('ttyin', ttyin.end());
  add('stdin', stdin.end());
  log.sort((a, b) => a.offset - b.offset);

  const result: CommandsResult = { file: session.path, log, warnings: [...session.warnings] };
  const exit = sessionExit(vars, castExit);
  if (exit) result.exit = exit;
  if (truncated) result.truncated = true;
  return result;
}

/** The exit of the session's command: sudo_logsrvd's appended exit info, or asciicast's "x". */
function sessionExit(vars: Record<string, unknown>, castExit: string | null): SessionExit | undefined {
  if (castExit !== null) {
    const status = /^\d{1,3}$/.test(castExit.trim()) ? Number(castExit.trim()) : undefined;
    return status !== undefined ? { status, source: 'asciicast' } : undefined;
  }
  const status = vars.exit_value;
  const sig = vars.signal;
  if (typeof status !== 'number' && typeof sig !== 'string') return undefined;
  const e: SessionExit = { source: 'log.json' };
  if (typeof status === 'number' && Number.isInteger(status)) e.status = status;
  if (typeof sig === 'string' && sig !== '') e.signal = sig;
  return e;
}
