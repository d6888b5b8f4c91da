// The terminal filter: a recorded session's output bytes in, the bytes that are safe to show on
// the auditor's own terminal out. The person being audited controls every byte of a recording;
// played raw (as sudoreplay 1.9.13 does), an OSC 52 writes the auditor's clipboard, an OSC 0/2
// sets its window title, OSC 8 plants links, and queries (DA, DSR, XTVERSION, DECRQSS ...) make
// the auditor's terminal type answers into its input. docs/security.md "Recordings played in
// the auditor's terminal" is the threat model; test/replay/terminal-filter.test.ts the tests.
//
// The rule is an allow-list over what the one parser of src/replay (parser.ts, the VT500 table)
// dispatches: this class is only a handler of it. It passes what renders — text, SGR, cursor
// movement, erase, insert and delete, scroll regions, tab stops, charsets, and the screen modes
// listed in SAFE_PRIVATE_MODES — and drops everything else: every OSC, DCS, SOS, PM and APC
// string; device, status and version reports (DA1/2/3, DSR/CPR, DECRQM, XTVERSION); window
// operations (CSI t); mouse and focus reporting; keyboard-protocol and modifier changes; ENQ;
// media copy; anything it does not know. Allowed sequences go out byte for byte as they came
// (`Parser.sequenceBytes`); mode sequences (SM/RM, DECSET/DECRST) are written again from the
// parameters judged, with the refused modes left out. Text goes out as UTF-8 of the decoded
// characters: valid UTF-8 is unchanged, an invalid byte becomes U+FFFD (a raw 0x80-0x9F byte
// would be a C1 control to a terminal that is not in UTF-8 mode). C0 controls inside a sequence
// (rare: `CSI 1 LF ; 2 H`) are written before it, as a terminal executes them then.
//
// State (the parser's, a partial sequence or UTF-8 character) lives on the instance, so a
// sequence split over two records is judged as one; the output never holds part of a sequence.
import { Parser, type ParserHandler } from './parser.js';
import type { Params } from './params.js';

/** C0 controls that only move the cursor, ring the bell or shift charsets. ENQ, NUL ... are dropped. */
const SAFE_C0 = new Set([0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f]);
/** C1 controls (U+0080-U+009F) that move the cursor or shift charsets: IND, NEL, HTS, RI, SS2, SS3. */
const SAFE_C1 = new Set([0x84, 0x85, 0x88, 0x8d, 0x8e, 0x8f]);

const code = (s: string): number => s.charCodeAt(0);
const finals = (s: string): Set<number> => new Set([...s].map(code));

/**
 * ESC Fs/Fp without intermediates: DECBI 6, DECSC 7, DECRC 8, DECFI 9, DECKPAM =, DECKPNM >,
 * IND D, NEL E, F (cursor to lower left), HTS H, RI M, SS2 N, SS3 O, RIS c, LS2 n, LS3 o,
 * LS3R |, LS2R }, LS1R ~. Not: DECID Z (asks for DA), ST \ (ends a string, all dropped),
 * memory lock l/m, and anything else.
 */
const SAFE_ESC = finals('6789=>DEFHMNOcno|}~');
/** ESC # Fp: DECDHL 3/4, DECSWL 5, DECDWL 6, DECALN 8. */
const SAFE_ESC_HASH = finals('34568');
/** First intermediate of a charset designation: ESC ( ) * + (94-character G0-G3), - . / (96-character G1-G3). */
const CHARSET_DESIGNATORS = finals('()*+-./');

/**
 * CSI without private marker or intermediate: ICH @, CUU A, CUD B, CUF C, CUB D, CNL E, CPL F,
 * CHA G, CUP H, CHT I, ED J, EL K, IL L, DL M, DCH P, SU S, SD T (one parameter only: five are
 * xterm's mouse highlight tracking), ECH X, CBT Z, HPA `, HPR a, REP b, VPA d, VPR e, HVP f,
 * TBC g, SGR m, DECSTBM r, SCOSC/DECSLRM s, SCORC u. (SM h and RM l: see SAFE_ANSI_MODES.)
 * Not: DA c, DSR n, MC i, window operations t, DECLL q, DECREQTPARM x, DECTST y ...
 */
const SAFE_CSI = finals('@ABCDEFGHIJKLMPSTXZ`abdefgmrsu');
/** CSI with intermediates (collect << 8 | final): SL ` @`, SR ` A`, DECSCUSR ` q`, DECSTR `!p`, DECSCA `"q`, DECIC `'}`, DECDC `'~`. */
const SAFE_CSI_INTERMEDIATE = new Set([0x2040, 0x2041, 0x2071, 0x2170, 0x2271, 0x277d, 0x277e]);
/** CSI ? with these finals: DECSED J, DECSEL K. (DECSET h / DECRST l: see SAFE_PRIVATE_MODES.) */
const SAFE_CSI_PRIVATE = finals('JK');

/** ANSI modes (SM/RM): IRM 4 (insert), LNM 20 (LF as CR LF). Not KAM 2 (locks the keyboard), SRM 12 (local echo). */
export const SAFE_ANSI_MODES: ReadonlySet<number> = new Set([4, 20]);

/**
 * DEC private modes (DECSET/DECRST) that change only the screen or how cursor and keypad keys
 * are encoded: DECCKM 1, DECSCNM 5 (reverse video), DECOM 6, DECAWM 7, 12 (cursor blink),
 * DECTCEM 25, 45 (reverse wrap), 47/1047/1048/1049 (alternate screen, saved cursor), DECNKM 66,
 * DECLRMM 69. Everything else is dropped, among them mouse tracking (9, 1000-1006, 1015, 1016),
 * focus reports (1004), bracketed paste (2004), DECCOLM 3 (resizes the window), 1034/1036/1039
 * (meta key), 67 (backspace key), 2026 (synchronized output).
 */
export const SAFE_PRIVATE_MODES: ReadonlySet<number> = new Set([1, 5, 6, 7, 12, 25, 45, 47, 66, 69, 1047, 1048, 1049]);

const enum Verdict {
  DROP = 0,
  /** The sequence's own bytes. */
  PASS = 1,
  /** Written again with the allowed modes only. */
  MODES = 2,
}

/** What the filter does with a CSI sequence. */
function judgeCsi(params: Params, collect: number, final: number): Verdict {
  // Colon sub-parameters belong to SGR; elsewhere a terminal may count them as parameters.
  if (params.hasAnySubParams() && !(collect === 0 && final === 0x6d)) return Verdict.DROP;
  if (collect === 0) {
    if (final === 0x68 || final === 0x6c) return Verdict.MODES;
    if (final === 0x54) return params.length <= 1 ? Verdict.PASS : Verdict.DROP;
    return SAFE_CSI.has(final) ? Verdict.PASS : Verdict.DROP;
  }
  if (collect === 0x3f) {
    if (final === 0x68 || final === 0x6c) return Verdict.MODES;
    return SAFE_CSI_PRIVATE.has(final) ? Verdict.PASS : Verdict.DROP;
  }
  // Any other private marker (< = >) or intermediate: reports, keyboard protocols, rectangles ...
  return SAFE_CSI_INTERMEDIATE.has((collect << 8) | final) ? Verdict.PASS : Verdict.DROP;
}

function safeEsc(collect: number, final: number): boolean {
  if (collect === 0) return SAFE_ESC.has(final);
  if (collect === 0x23) return SAFE_ESC_HASH.has(final);
  // Charset designations, also with a second intermediate (ESC ( % 5, ESC ( " >); the first
  // intermediate is the highest byte of collect. ESC % (leaves UTF-8), ESC SP F/G (C1 form of
  // answers) and the rest are dropped.
  let first = collect;
  while (first > 0xff) first >>>= 8;
  return CHARSET_DESIGNATORS.has(first);
}

export class TerminalFilter implements ParserHandler {
  private readonly parser: Parser;
  private out = new Uint8Array(4096);
  private len = 0;

  constructor() {
    // Strings are dropped whole: none of their payload is kept.
    this.parser = new Parser(this, { maxStringLength: 0, keepSequenceBytes: true });
  }

  /** The bytes of `data` to show (a fresh array; empty while a sequence is still open). */
  write(data: Uint8Array): Uint8Array {
    this.len = 0;
    this.parser.write(data);
    return this.take();
  }

  /** End of the output: a partial UTF-8 character becomes U+FFFD, an open sequence is dropped. */
  end(): Uint8Array {
    this.len = 0;
    this.parser.end();
    this.parser.reset();
    return this.take();
  }

  /** Forgets any partial sequence (playing goes on from another place). */
  reset(): void {
    this.parser.reset();
  }

  private take(): Uint8Array {
    return this.out.slice(0, this.len);
  }

  private room(n: number): void {
    if (this.len + n <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.len + n));
    grown.set(this.out.subarray(0, this.len));
    this.out = grown;
  }

  private put(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.out.set(bytes, this.len);
    this.len += bytes.length;
  }

  private putAscii(s: string): void {
    this.room(s.length);
    for (let k = 0; k < s.length; k++) this.out[this.len++] = s.charCodeAt(k);
  }

  printAscii(data: Uint8Array, start: number, end: number): void {
    this.put(data.subarray(start, end));
  }

  print(buf: Uint16Array, start: number, end: number): void {
    // UTF-16 (surrogate pairs are whole: the parser writes them together) to UTF-8.
    this.room((end - start) * 3);
    const out = this.out;
    let len = this.len;
    for (let k = start; k < end; k++) {
      let c = buf[k]!;
      if (c >= 0xd800 && c <= 0xdbff && k + 1 < end) {
        c = 0x10000 + ((c - 0xd800) << 10) + (buf[++k]! - 0xdc00);
        out[len++] = 0xf0 | (c >> 18);
        out[len++] = 0x80 | ((c >> 12) & 0x3f);
        out[len++] = 0x80 | ((c >> 6) & 0x3f);
        out[len++] = 0x80 | (c & 0x3f);
      } else if (c < 0x80) {
        out[len++] = c;
      } else if (c < 0x800) {
        out[len++] = 0xc0 | (c >> 6);
        out[len++] = 0x80 | (c & 0x3f);
      } else {
        out[len++] = 0xe0 | (c >> 12);
        out[len++] = 0x80 | ((c >> 6) & 0x3f);
        out[len++] = 0x80 | (c & 0x3f);
      }
    }
    this.len = len;
  }

  printRunEnd(): void {}

  execute(c: number): void {
    if (c < 0x80) {
      if (SAFE_C0.has(c)) {
        this.room(1);
        this.out[this.len++] = c;
      }
    } else if (SAFE_C1.has(c)) {
      // A C1 control arrives only as UTF-8 (C2 80-C2 9F): written as it came.
      this.room(2);
      this.out[this.len++] = 0xc2;
      this.out[this.len++] = c;
    }
  }

  esc(collect: number, final: number): void {
    if (!safeEsc(collect, final)) return;
    const bytes = this.parser.sequenceBytes();
    if (bytes) this.put(bytes);
  }

  csi(params: Params, collect: number, final: number): void {
    const verdict = judgeCsi(params, collect, final);
    if (verdict === Verdict.PASS) {
      const bytes = this.parser.sequenceBytes();
      if (bytes) this.put(bytes);
    } else if (verdict === Verdict.MODES) {
      // Written from the values judged, never from the bytes: what the terminal reads is what
      // was allowed, whatever it makes of leading zeros or more than 32 parameters.
      const allowed = collect === 0 ? SAFE_ANSI_MODES : SAFE_PRIVATE_MODES;
      const kept: number[] = [];
      for (let k = 0; k < params.length; k++) if (allowed.has(params.values[k]!)) kept.push(params.values[k]!);
      if (kept.length) this.putAscii(`\x1b[${collect === 0 ? '' : '?'}${kept.join(';')}${String.fromCharCode(final)}`);
    }
  }

  osc(): void {}

  dcs(): void {}

  str(): void {}
}

/** The whole of `data` through a fresh filter (tests, one-shot callers). */
export function filterTerminalOutput(data: Uint8Array): Uint8Array {
  const f = new TerminalFilter();
  const a = f.write(data);
  const b = f.end();
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
