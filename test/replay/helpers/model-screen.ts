// Our screen model fed a session, snapshotted the way the oracle is.
import { Screen } from '../../../src/replay/screen.js';
import type { SessionEvent } from './session-events.js';
import type { ScreenSnapshot } from './xterm-oracle.js';

export function modelFinalScreen(events: SessionEvent[], cols: number, rows: number, scrollback = 1000): ScreenSnapshot {
  const screen = new Screen({ cols, rows, scrollback });
  for (const ev of events) {
    if (ev.kind === 'data') screen.write(ev.bytes);
    else screen.resize(ev.cols, ev.rows);
  }
  const lines: string[] = [];
  for (let y = 0; y < screen.rows; y++) lines.push(screen.row(y).translateToString(true));
  return { lines, cursorX: screen.cursorX, cursorY: screen.cursorY };
}
