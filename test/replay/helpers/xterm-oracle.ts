// The test oracle: @xterm/headless fed the same bytes and window changes as our screen model.
import xtermHeadless from '@xterm/headless';
import type { SessionEvent } from './session-events.js';

const { Terminal } = xtermHeadless;

export interface ScreenSnapshot {
  lines: string[];
  cursorX: number;
  cursorY: number;
}

/** Final screen of xterm.js (active buffer, each row translateToString(true), plus the cursor). */
export async function xtermFinalScreen(events: SessionEvent[], cols: number, rows: number, scrollback = 1000): Promise<ScreenSnapshot> {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  try {
    // write() queues and parses later (one timer tick per batch); a resize applies at once, so
    // the queue is drained before each resize and at the end.
    let pending: Promise<void> | null = null;
    for (const ev of events) {
      if (ev.kind === 'data') {
        pending = new Promise<void>((resolve) => term.write(ev.bytes, resolve));
      } else {
        if (pending) await pending;
        pending = null;
        term.resize(ev.cols, ev.rows);
      }
    }
    if (pending) await pending;
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < term.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
    return { lines, cursorX: buf.cursorX, cursorY: buf.cursorY };
  } finally {
    term.dispose();
  }
}
