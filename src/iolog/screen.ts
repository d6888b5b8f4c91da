// The screen of a session at a moment, as text rows: the session reader composed with the
// replay screen model (src/replay knows nothing of sessions). Runs in a worker.
import { renderScreen } from '../replay/render.js';
import { screenAt } from '../replay/session-replay.js';
import { openSession } from './locate.js';
import type { RedactView } from './redact/redacted-session.js';

export interface ScreenRequest {
  file: string;
  /** Milliseconds from the session's start; Infinity = its end. */
  atMs: number;
  /** Read through these redaction rules (absent: as recorded). */
  redact?: RedactView;
}

export interface ScreenResult {
  file: string;
  cols: number;
  rows: number;
  /** One string per row, trailing empty rows left out. */
  lines: string[];
  warnings: string[];
}

export async function sessionScreen(roots: readonly string[], r: ScreenRequest, signal?: AbortSignal): Promise<ScreenResult> {
  const session = await openSession([...roots], r.file, r.redact);
  const info = await session.info();
  const ttyOnly = showsTtyOnly(info);
  const screen = await screenAt(session.events(signal ? { signal } : {}), { cols: info.cols, rows: info.rows, atMs: r.atMs, ttyOnly });
  return { file: session.path, cols: info.cols, rows: info.rows, lines: renderScreen(screen, { trimBottom: true }), warnings: [...session.warnings] };
}

/** A session with a tty shows what the tty displayed; its stdout/stderr went to a pipe or file. */
export function showsTtyOnly(info: { ttyname: string }): boolean {
  return info.ttyname !== '' && info.ttyname !== 'unknown';
}
