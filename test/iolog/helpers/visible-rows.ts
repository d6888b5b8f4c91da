// What xterm.js showed of a session at every moment of its recording: @xterm/headless is fed the
// ttyout chunks and window changes one timing record at a time, and after each one
//   - `rows` gets every non-blank row of the screen (trimmed right): the text a person saw;
//   - `logical` gets every logical line of the buffer (screen and the scrollback written since
//     the last moment): rows joined only where the row above ran to the right margin and the row
//     below is marked wrapped, i.e. autowrap really continued the text. Nothing a search line
//     holds should go beyond one of these.
import xtermHeadless from '@xterm/headless';
import type { SessionEvent } from '../../replay/helpers/session-events.js';

const { Terminal } = xtermHeadless;
type Term = InstanceType<typeof Terminal>;

export interface VisibleText {
  rows: Set<string>;
  logical: Set<string>;
  moments: number;
}

function rowText(term: Term, y: number): { text: string; full: boolean; wrapped: boolean } {
  const line = term.buffer.active.getLine(y);
  if (!line) return { text: '', full: false, wrapped: false };
  const text = line.translateToString(true);
  const last = line.getCell(term.cols - 1);
  // The last cell holds a character (or, with a wide character moved down, stays empty by design).
  const next = term.buffer.active.getLine(y + 1);
  const wideDown = next?.isWrapped === true && (next.getCell(0)?.getWidth() ?? 1) === 2 && (last?.getChars() ?? '') === '';
  return { text, full: (last?.getChars() ?? '') !== '' || (last?.getWidth() ?? 1) === 0 || wideDown, wrapped: line.isWrapped };
}

export async function visibleText(events: SessionEvent[], cols: number, rows: number): Promise<VisibleText> {
  const term = new Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true });
  const out: VisibleText = { rows: new Set(), logical: new Set(), moments: 0 };
  let seenBase = 0;
  const collect = (): void => {
    out.moments++;
    const buf = term.buffer.active;
    for (let y = 0; y < term.rows; y++) {
      const t = (buf.getLine(buf.baseY + y)?.translateToString(true) ?? '').replace(/ +$/, '');
      if (t !== '') out.rows.add(t);
    }
    // Logical lines from the first row not yet looked at (back to the start of its wrapped group).
    let from = Math.min(seenBase, buf.baseY);
    while (from > 0 && buf.getLine(from)?.isWrapped) from--;
    const end = buf.baseY + term.rows;
    let cur = '';
    let prevFull = false;
    for (let y = from; y < end; y++) {
      const r = rowText(term, y);
      if (y > from && r.wrapped && prevFull) cur += r.text;
      else {
        if (cur.trim() !== '') out.logical.add(cur.replace(/ +$/, ''));
        cur = r.text;
      }
      prevFull = r.full;
    }
    if (cur.trim() !== '') out.logical.add(cur.replace(/ +$/, ''));
    seenBase = buf.baseY;
  };
  try {
    for (const ev of events) {
      if (ev.kind === 'data') await new Promise<void>((resolve) => term.write(ev.bytes, resolve));
      else {
        term.resize(ev.cols, ev.rows);
        seenBase = 0; // a reflow moves the scrollback: look at all of it again
      }
      collect();
    }
  } finally {
    term.dispose();
  }
  return out;
}

/** Rows of `rows` that no search line contains (a literal search would not find them). */
export function missingRows(rows: Iterable<string>, lines: string[]): string[] {
  const all = lines.join('\n');
  return [...rows].filter((r) => !all.includes(r));
}

/** Search lines that are not part of any one logical line that was on screen (glued or invented). */
export function foreignLines(lines: string[], logical: Set<string>): string[] {
  const all = [...logical].join('\n');
  return lines.filter((l) => !logical.has(l) && !all.includes(l));
}

export interface SessionCoverage {
  name: string;
  moments: number;
  rows: number;
  missing: string[];
  lines: string[];
  foreign: string[];
}

/** The visible rows of a recorded session against the lines its search text holds. */
export function coverage(name: string, seen: VisibleText, lines: string[]): SessionCoverage {
  return { name, moments: seen.moments, rows: seen.rows.size, missing: missingRows(seen.rows, lines), lines, foreign: foreignLines(lines, seen.logical) };
}
