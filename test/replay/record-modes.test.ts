// Terminal state across record boundaries, and selective erase (issue "Fidelity", points 3 and 5):
//   - LNM (CSI 20 h) a program sets lasts across records of a session without a tty (asciicast,
//     sudo pipe sessions), on the screen at a time (straight and from a keyframe) and in the search
//     text, as on one terminal; a pipe stream's own newline (sudoreplay's CR LF) is kept apart;
//   - DECSCA (CSI 1 " q) protects characters from DECSED/DECSEL (CSI ? J, CSI ? K), not from
//     ED/EL; compared with @xterm/headless, also cut at every byte into two records.
import { describe, expect, it } from 'vitest';
import { ProcessedText } from '../../src/replay/processed-text.js';
import { repaintScreen } from '../../src/replay/screen-repaint.js';
import { restoreScreen, snapshotScreen } from '../../src/replay/screen-snapshot.js';
import { Screen } from '../../src/replay/screen.js';
import { screenAt, writeSessionOutput, type ReplaySourceEvent } from '../../src/replay/session-replay.js';
import type { SessionEvent } from './helpers/session-events.js';
import { xtermFinalScreen, type ScreenSnapshot } from './helpers/xterm-oracle.js';

const enc = new TextEncoder();
const COLS = 20;
const ROWS = 5;

function dataEvents(records: string[]): SessionEvent[] {
  return records.map((r, i) => ({ kind: 'data', bytes: enc.encode(r), timeMs: i }));
}

function shot(screen: Screen): ScreenSnapshot {
  const lines: string[] = [];
  for (let y = 0; y < screen.rows; y++) lines.push(screen.row(y).translateToString(true));
  return { lines, cursorX: screen.cursorX, cursorY: screen.cursorY };
}

/** A session's records on the screen the way `evio iolog screen` and the seek index apply them. */
function sessionScreen(records: string[], stream: string, ttyOnly: boolean): Screen {
  const screen = new Screen({ cols: COLS, rows: ROWS });
  records.forEach((r, i) => writeSessionOutput(screen, stream, enc.encode(r), i, ttyOnly));
  return screen;
}

/** Every cut of `s` into two records (and the whole as one). */
function cuts(s: string): string[][] {
  const out: string[][] = [[s]];
  for (let i = 1; i < s.length; i++) out.push([s.slice(0, i), s.slice(i)]);
  return out;
}

async function* source(records: string[], stream: string): AsyncGenerator<ReplaySourceEvent> {
  let pos = 0;
  for (let i = 0; i < records.length; i++) {
    const bytes = enc.encode(records[i]!);
    yield { kind: 'data', pos, sec: i, nsec: 0, stream, bytes };
    pos += bytes.length;
  }
}

const LNM_SESSIONS: string[][] = [
  ['a\x1b[20h', '\nb'],
  ['one\x1b[20h', '\ntwo', '\nthree\x1b[20l', '\nfour'],
  ['x\x1b[20h\n', 'y\n', '\x1b[2;3Hz', '\nw'],
];

describe('LNM across records of a session without a tty', () => {
  for (const records of LNM_SESSIONS) {
    it(`ttyout records ${JSON.stringify(records)}: the screen equals xterm.js's, cut anywhere`, async () => {
      const whole = records.join('');
      const oracle = await xtermFinalScreen(dataEvents([whole]), COLS, ROWS);
      for (const cut of [records, ...cuts(whole)]) {
        expect(shot(sessionScreen(cut, 'ttyout', false)), JSON.stringify(cut)).toEqual(oracle);
        // As xterm.js fed the same records one by one.
        expect(await xtermFinalScreen(dataEvents(cut), COLS, ROWS)).toEqual(oracle);
      }
    });
  }

  it('the screen at a time (screenAt) keeps the mode: a / b', async () => {
    const screen = await screenAt(source(['a\x1b[20h', '\nb'], 'ttyout'), { cols: COLS, rows: ROWS, atMs: Infinity });
    expect(shot(screen).lines.slice(0, 2)).toEqual(['a', 'b']);
  });

  it('a screen restored from a keyframe after the LNM record goes on as a straight replay', async () => {
    const records = ['top\x1b[20h', '\nmid', '\nlow', '\x1b[20l\nend'];
    const straight = shot(sessionScreen(records, 'ttyout', false));
    expect(straight).toEqual(await xtermFinalScreen(dataEvents(records), COLS, ROWS));
    for (let k = 1; k < records.length; k++) {
      const first = sessionScreen(records.slice(0, k), 'ttyout', false);
      const restored = restoreScreen(snapshotScreen(first));
      records.slice(k).forEach((r, i) => writeSessionOutput(restored, 'ttyout', enc.encode(r), k + i, false));
      expect(shot(restored), `keyframe after record ${k}`).toEqual(straight);
    }
  });

  it('a pipe stream (stdout) shows a bare LF as a new line whatever LNM a program sets, also from a keyframe', () => {
    const records = ['a\x1b[20l\nb', '\nc'];
    const want = ['a', 'b', 'c', '', ''];
    expect(shot(sessionScreen(records, 'stdout', false)).lines).toEqual(want);
    const restored = restoreScreen(snapshotScreen(sessionScreen(records.slice(0, 1), 'stdout', false)));
    writeSessionOutput(restored, 'stdout', enc.encode(records[1]!), 1, false);
    expect(shot(restored).lines).toEqual(want);
  });

  it('the repaint of a screen with LNM set makes a terminal go on the same way', async () => {
    const screen = sessionScreen(['a\x1b[20h'], 'ttyout', false);
    const after = '\nb';
    writeSessionOutput(screen, 'ttyout', enc.encode(after), 1, false);
    const repainted = await xtermFinalScreen(dataEvents([repaintScreen(sessionScreen(['a\x1b[20h'], 'ttyout', false)), after]), COLS, ROWS);
    expect(repainted).toEqual(shot(screen));
  });

  it('search text: a program\'s LNM lasts across records; a pipe stream\'s newline survives CSI 20 l', () => {
    const lines = (records: string[], pipe: boolean): string[] => {
      const pt = new ProcessedText({ cols: COLS, rows: ROWS, lineFeedIsNewline: pipe });
      records.forEach((r, i) => pt.write(enc.encode(r), i));
      return pt.end().map((l) => l.text);
    };
    expect(lines(['a\x1b[20h', '\nb'], false)).toEqual(['a', 'b']);
    expect(lines(['a\x1b[20l', '\nb'], true)).toEqual(['a', 'b']);
  });
});

const PROTECT_CASES: string[] = [
  // DECSEL whole line: the protected word stays.
  'ab\x1b[1"qKEEP\x1b[0"qgone\x1b[?2K',
  // DECSED whole screen over several rows; CSI 2 " q also unprotects.
  '\x1b[1"qP1\x1b[2"q x1\r\nx2 \x1b[1"qP2\x1b[0"q x3\r\n\x1b[1"qP3\x1b[H\x1b[?2J',
  // Plain ED and EL erase protected characters too.
  '\x1b[1"qKEEP\x1b[0"q gone\r\n\x1b[1"qK2\x1b[0"q g2\x1b[2J',
  '\x1b[1"qKEEP\x1b[0"q gone\x1b[1G\x1b[K',
  // SGR 0 ends protection (xterm.js resets the whole attribute word).
  '\x1b[1"qX\x1b[mY\x1b[1G\x1b[?K',
  // From and to the cursor, on the line and the screen.
  'aa\x1b[1"qBB\x1b[0"qcc\x1b[1"qDD\x1b[0"qee\x1b[5G\x1b[?1K\r\nff\x1b[1"qGG\x1b[0"qhh\x1b[2;4H\x1b[?0K',
  'r1\x1b[1"qP\x1b[0"qr1\r\nr2\x1b[1"qQ\x1b[0"qr2\r\nr3\x1b[1"qR\x1b[0"qr3\x1b[2;3H\x1b[?0J',
  'r1\x1b[1"qP\x1b[0"qr1\r\nr2\x1b[1"qQ\x1b[0"qr2\r\nr3\x1b[1"qR\x1b[0"qr3\x1b[2;3H\x1b[?1J',
  // Wide characters at the edges of the erased range.
  '\x1b[1"q中\x1b[0"q文字\x1b[3G\x1b[?1K',
  '文\x1b[1"q字\x1b[0"q中\x1b[4G\x1b[?0K',
  // Saved with the cursor (DECSC/DECRC), and lost by DECSTR.
  '\x1b[1"q\x1b7\x1b[0"qa\x1b8b\x1b[1G\x1b[?2K\r\n\x1b[1"qc\x1b[!pd\x1b[2;1H\x1b[?2K',
];

describe('selective erase (DECSCA, DECSED, DECSEL)', () => {
  for (const c of PROTECT_CASES) {
    it(`${JSON.stringify(c)}: equals xterm.js, cut into two records anywhere`, async () => {
      const oracle = await xtermFinalScreen(dataEvents([c]), COLS, ROWS);
      for (const cut of cuts(c)) expect(shot(sessionScreen(cut, 'ttyout', false)), JSON.stringify(cut)).toEqual(oracle);
    });
  }

  it('protection survives a keyframe and a repaint', async () => {
    const before = '\x1b[1"qKEEP\x1b[0"q gone\r\n\x1b[1"qK2\x1b[0"q g2';
    const after = '\x1b[H\x1b[?2J';
    const oracle = await xtermFinalScreen(dataEvents([before, after]), COLS, ROWS);
    const restored = restoreScreen(snapshotScreen(sessionScreen([before], 'ttyout', false)));
    restored.write(enc.encode(after));
    expect(shot(restored)).toEqual(oracle);
    const repaint = repaintScreen(sessionScreen([before], 'ttyout', false));
    const viaRepaint = await xtermFinalScreen(dataEvents([repaint, after]), COLS, ROWS);
    expect(viaRepaint.lines).toEqual(oracle.lines);
  });

  it('search text keeps what a selective erase destroyed and what it left', () => {
    const pt = new ProcessedText({ cols: COLS, rows: ROWS });
    pt.write(enc.encode('\x1b[1"qKEEP\x1b[0"q gone'), 0);
    pt.write(enc.encode('\x1b[?2K'), 1);
    pt.write(enc.encode('\x1b[1;6Hnew'), 2);
    expect(pt.end().map((l) => l.text)).toEqual(['KEEP gone', 'KEEP new']);
  });
});
