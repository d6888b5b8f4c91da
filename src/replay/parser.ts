// A streaming DEC VT500-class parser: UTF-8 bytes in, print runs and dispatched controls out.
//
// The state machine is the table in transition-table.ts (vt100.net's DEC ANSI parser, laid out
// the way xterm.js's EscapeSequenceParser lays it out). What we adapted from xterm.js: the
// `state << 8 | class` table, the batching of printable runs into one handler call, the inner
// loop over parameter bytes, and ZDM parameters in typed arrays. What is ours: the UTF-8 decoder
// is folded into the byte loop (WHATWG decoding: invalid bytes become U+FFFD, a partial
// character waits for the next chunk), print runs are UTF-16 code units, and OSC, DCS and
// SOS/PM/APC payloads are captured with a size cap and handed over whole.
//
// Every piece of state (parser state, partial UTF-8, partial sequence, partial string) lives on
// the instance, so input may be split anywhere. Nothing here throws on malformed input.
//
// With `keepSequenceBytes`, the parser also keeps the bytes of the ESC or CSI sequence it is
// reading (across writes, up to MAX_SEQUENCE_BYTES), so that a handler can pass a sequence on
// exactly as it came (the terminal filter, terminal-filter.ts). Without it nothing is kept.
import { Params } from './params.js';
import { Action, NON_ASCII_PRINTABLE, State, STATE_MASK, TRANSITIONS, TRANSITION_ACTION_SHIFT } from './transition-table.js';

/** What a parser drives: the tokenizer and the screen model implement it. */
export interface ParserHandler {
  /** A run of printable characters as UTF-16 code units `buf[start..end)`; buf is reused. */
  print(buf: Uint16Array, start: number, end: number): void;
  /**
   * A run of printable ASCII straight from the input: `data[start..end)` (0x20-0x7E). Runs of
   * ASCII and of other characters may alternate within one printed text.
   */
  printAscii(data: Uint8Array, start: number, end: number): void;
  /**
   * The print run is over: a control or an ignored byte followed it, or the write ended. (The
   * screen model needs run boundaries to treat wide characters at their edges as xterm does.)
   */
  printRunEnd(): void;
  /**
   * A C0 or C1 control (code point 0x00-0x1F or 0x80-0x9F). `at`: the index in the written
   * array of its (last) byte; -1 when it ended a string (a C1 that also ends an OSC, DCS ...).
   */
  execute(code: number, at: number): void;
  /** CSI: `collect` holds the private marker and intermediates, one byte each, first byte highest. */
  csi(params: Params, collect: number, final: number): void;
  /** ESC dispatch; `at`: the index in the written array of the final's (last) byte. */
  esc(collect: number, final: number, at: number): void;
  /** OSC: `id` is the leading number (-1 when there is none); `data` follows its `;`. */
  osc(id: number, data: string, ok: boolean, truncated: boolean): void;
  dcs(params: Params, collect: number, final: number, data: string, ok: boolean, truncated: boolean): void;
  /** SOS (0x58), PM (0x5E) or APC (0x5F) string. */
  str(kind: number, data: string, ok: boolean, truncated: boolean): void;
}

export interface ParserOptions {
  /** UTF-16 code units kept of one OSC/DCS/SOS/PM/APC payload; the rest is counted, not kept. */
  maxStringLength?: number;
  /** Keep the bytes of the current ESC/CSI sequence for `sequenceBytes()` (off: nothing kept). */
  keepSequenceBytes?: boolean;
  /**
   * The transition table: TRANSITIONS (a terminal's output, the default) or INPUT_TRANSITIONS
   * (what a terminal sends: keys, Alt+key, terminal answers; transition-table.ts).
   */
  transitions?: Uint16Array;
}

/** Longest ESC/CSI sequence whose bytes `sequenceBytes()` gives; a longer one gives null. */
export const MAX_SEQUENCE_BYTES = 1024;

const PRINT_BUF_SIZE = 4096;
const REPLACEMENT = 0xfffd;

const enum StringKind {
  NONE = 0,
  OSC = 1,
  DCS = 2,
  SOS_PM_APC = 3,
}

/** Decodes UTF-16 code units without an object per unit (chunked `fromCharCode.apply`). */
export function utf16ToString(buf: Uint16Array, start: number, end: number): string {
  const len = end - start;
  if (len <= 0) return '';
  if (len === 1) return String.fromCharCode(buf[start]!);
  if (len <= 8192) return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
  let s = '';
  for (let i = start; i < end; i += 8192) {
    s += String.fromCharCode.apply(null, buf.subarray(i, Math.min(end, i + 8192)) as unknown as number[]);
  }
  return s;
}

export class Parser {
  private state: number = State.GROUND;
  private readonly params = new Params();
  private collect = 0;
  // UTF-8 decoder state (WHATWG "UTF-8 decoder").
  private u8needed = 0;
  private u8seen = 0;
  private u8acc = 0;
  private u8lower = 0x80;
  private u8upper = 0xbf;
  private readonly printBuf = new Uint16Array(PRINT_BUF_SIZE + 2);
  // String payload (OSC, DCS, SOS/PM/APC).
  private readonly strBuf: Uint16Array;
  private strLen = 0;
  private strDropped = 0;
  private strKind: StringKind = StringKind.NONE;
  private strType = 0;
  private dcsCollect = 0;
  private dcsFinal = 0;
  // Bytes of the ESC/CSI sequence being read (keepSequenceBytes): `seqData[seqStart..)` of the
  // current write, after `seqCarry[0..seqCarryLen)` kept from earlier writes; seqStart -1: none.
  private readonly keepSeq: boolean;
  private readonly table: Uint16Array;
  private seqData: Uint8Array = new Uint8Array(0);
  private seqStart = -1;
  private seqEnd = 0;
  private seqCarry: Uint8Array | null = null;
  private seqCarryLen = 0;
  /** Bytes carried from earlier writes or around controls, stored or not (past the cap). */
  private seqCarried = 0;

  constructor(private readonly handler: ParserHandler, options: ParserOptions = {}) {
    const max = Math.max(0, Math.min(options.maxStringLength ?? 4096, 1 << 20));
    this.strBuf = new Uint16Array(max);
    this.keepSeq = options.keepSequenceBytes === true;
    this.table = options.transitions ?? TRANSITIONS;
    this.params.reset();
  }

  /**
   * Inside an `esc` or `csi` call (with `keepSequenceBytes`): the sequence's bytes as they came,
   * from its introducer (ESC, or the UTF-8 bytes of a C1 CSI) to its final byte, however the input
   * was split. C0 controls inside it are left out (they were handed to `execute` as they came);
   * DEL inside it is kept. Null when the sequence is longer than MAX_SEQUENCE_BYTES or bytes are
   * not kept. The array may be a view of the caller's input: copy it to keep it.
   */
  sequenceBytes(): Uint8Array | null {
    if (this.seqStart < 0 || this.seqCarried + this.seqEnd - this.seqStart > MAX_SEQUENCE_BYTES) return null;
    const tail = this.seqData.subarray(this.seqStart, this.seqEnd);
    if (this.seqCarried === 0) return tail;
    const out = new Uint8Array(this.seqCarryLen + tail.length);
    out.set(this.seqCarry!.subarray(0, this.seqCarryLen));
    out.set(tail, this.seqCarryLen);
    return out;
  }

  /** Back to the initial state (RIS); partial input is forgotten. */
  reset(): void {
    this.state = State.GROUND;
    this.params.reset();
    this.collect = 0;
    this.u8needed = 0;
    this.u8seen = 0;
    this.u8acc = 0;
    this.u8lower = 0x80;
    this.u8upper = 0xbf;
    this.strKind = StringKind.NONE;
    this.strLen = 0;
    this.strDropped = 0;
    this.seqStart = -1;
    this.seqCarryLen = 0;
    this.seqCarried = 0;
  }

  /** True when no sequence, string or UTF-8 character is partially read. */
  get idle(): boolean {
    return this.state === State.GROUND && this.u8needed === 0;
  }

  /**
   * End of input: a dangling partial UTF-8 character becomes U+FFFD (printed in GROUND). An
   * unfinished escape sequence or string is dropped, as a terminal would never finish it.
   */
  end(): void {
    if (this.u8needed !== 0) {
      this.u8needed = 0;
      this.u8seen = 0;
      this.u8lower = 0x80;
      this.u8upper = 0xbf;
      if (this.state === State.GROUND) {
        this.printBuf[0] = REPLACEMENT;
        this.handler.print(this.printBuf, 0, 1);
        this.handler.printRunEnd();
      }
    }
  }

  write(data: Uint8Array): void {
    const table = this.table;
    const handler = this.handler;
    const params = this.params;
    const buf = this.printBuf;
    const n = data.length;
    const keepSeq = this.keepSeq;
    if (keepSeq) this.seqData = data;
    let state = this.state;
    let plen = 0;
    let needed = this.u8needed;
    let inRun = false;
    let i = 0;

    while (i < n) {
      let b = data[i]!;
      let cp: number;
      if (needed === 0 && b < 0x80) {
        if (state === State.GROUND && b >= 0x20 && b < 0x7f) {
          // Printable ASCII run, the hot path: handed over in place, no copy.
          const runStart = i;
          while (++i < n) {
            b = data[i]!;
            if (b < 0x20 || b > 0x7e) break;
          }
          if (plen > 0) {
            handler.print(buf, 0, plen);
            plen = 0;
          }
          handler.printAscii(data, runStart, i);
          inRun = true;
          continue;
        }
        cp = b;
        i++;
      } else if (needed === 0) {
        i++;
        if (b >= 0xc2 && b <= 0xdf) {
          needed = 1;
          this.u8acc = b & 0x1f;
          continue;
        } else if (b >= 0xe0 && b <= 0xef) {
          if (b === 0xe0) this.u8lower = 0xa0;
          else if (b === 0xed) this.u8upper = 0x9f;
          needed = 2;
          this.u8acc = b & 0x0f;
          continue;
        } else if (b >= 0xf0 && b <= 0xf4) {
          if (b === 0xf0) this.u8lower = 0x90;
          else if (b === 0xf4) this.u8upper = 0x8f;
          needed = 3;
          this.u8acc = b & 0x07;
          continue;
        }
        cp = REPLACEMENT;
      } else if (b < this.u8lower || b > this.u8upper) {
        // Broken sequence: U+FFFD now, and the byte is read again as a fresh start.
        needed = 0;
        this.u8seen = 0;
        this.u8lower = 0x80;
        this.u8upper = 0xbf;
        cp = REPLACEMENT;
      } else {
        i++;
        this.u8lower = 0x80;
        this.u8upper = 0xbf;
        this.u8acc = (this.u8acc << 6) | (b & 0x3f);
        if (++this.u8seen !== needed) continue;
        cp = this.u8acc;
        needed = 0;
        this.u8seen = 0;
      }

      const transition = table[(state << 8) | (cp < NON_ASCII_PRINTABLE ? cp : NON_ASCII_PRINTABLE)]!;
      const action = transition >> TRANSITION_ACTION_SHIFT;
      if (action === Action.PRINT) {
        if (plen >= PRINT_BUF_SIZE) {
          handler.print(buf, 0, plen);
          plen = 0;
        }
        if (cp < 0x10000) {
          buf[plen++] = cp;
        } else {
          const v = cp - 0x10000;
          buf[plen++] = 0xd800 | (v >> 10);
          buf[plen++] = 0xdc00 | (v & 0x3ff);
        }
        inRun = true;
        continue;
      }
      if (inRun) {
        // Any other action, even an ignored byte, ends the print run.
        if (plen > 0) {
          handler.print(buf, 0, plen);
          plen = 0;
        }
        handler.printRunEnd();
        inRun = false;
      }
      if (action === Action.IGNORE) {
        state = transition & STATE_MASK;
        if (keepSeq && state === State.GROUND) this.seqStart = -1;
        continue;
      }
      switch (action) {
        case Action.EXECUTE:
          handler.execute(cp, i - 1);
          break;
        case Action.CLEAR:
          params.reset();
          this.collect = 0;
          break;
        case Action.COLLECT:
          this.collect = (this.collect << 8) | cp;
          break;
        case Action.PARAM:
          this.addParamByte(cp);
          // Inner loop over further parameter bytes (digits, ';' and ':').
          while (i < n && needed === 0) {
            b = data[i]!;
            if (b < 0x30 || b > 0x3b) break;
            this.addParamByte(b);
            i++;
          }
          break;
        case Action.ESC_DISPATCH:
          if (keepSeq) this.seqEnd = i;
          handler.esc(this.collect, cp, i - 1);
          break;
        case Action.CSI_DISPATCH:
          if (keepSeq) this.seqEnd = i;
          handler.csi(params, this.collect, cp);
          break;
        case Action.DCS_HOOK:
          this.startString(StringKind.DCS, 0);
          this.dcsCollect = this.collect;
          this.dcsFinal = cp;
          break;
        case Action.OSC_START:
          this.startString(StringKind.OSC, 0);
          break;
        case Action.STRING_START:
          this.startString(StringKind.SOS_PM_APC, cp >= 0x80 ? cp - 0x40 : cp);
          break;
        case Action.DCS_PUT:
        case Action.OSC_PUT:
        case Action.STRING_PUT:
          this.putString(cp);
          // Inner loop over plain ASCII payload bytes.
          while (i < n && needed === 0) {
            b = data[i]!;
            if (b < 0x20 || b > 0x7e) break;
            this.putString(b);
            i++;
          }
          break;
        case Action.STRING_END:
          this.endString(cp, transition & STATE_MASK);
          break;
      }
      state = transition & STATE_MASK;
      if (keepSeq) this.trackSequence(data, i, cp, action, state);
    }
    if (plen > 0) handler.print(buf, 0, plen);
    if (inRun) handler.printRunEnd();
    this.state = state;
    this.u8needed = needed;
    if (keepSeq && this.seqStart >= 0) {
      // The sequence goes on in the next write: keep what this one holds of it.
      this.carrySequence(data, this.seqStart, n);
      this.seqStart = 0;
    }
  }

  /** keepSequenceBytes: where a sequence begins, goes on around a control, or ends. */
  private trackSequence(data: Uint8Array, i: number, cp: number, action: number, next: number): void {
    if ((next === State.ESCAPE && cp === 0x1b) || (next === State.CSI_ENTRY && cp === 0x9b)) {
      // ESC (1 byte) or C1 CSI (C2 9B; its C2 may have come in the previous write).
      this.seqCarryLen = 0;
      this.seqCarried = 0;
      const start = i - (cp === 0x9b ? 2 : 1);
      if (start >= 0) {
        this.seqStart = start;
      } else {
        this.carryByte(0xc2);
        this.seqStart = 0;
      }
    } else if (this.seqStart < 0) {
      return;
    } else if (next === State.GROUND || next > State.CSI_IGNORE) {
      // Dispatched, aborted, or a string begins (its bytes are not kept).
      this.seqStart = -1;
    } else if (action === Action.EXECUTE) {
      // A C0 control inside the sequence: the bytes before it are kept, the control is not.
      this.carrySequence(data, this.seqStart, i - 1);
      this.seqStart = i;
    }
  }

  /** Keeps `data[from..to)` of the current sequence (stored up to MAX_SEQUENCE_BYTES, counted all). */
  private carrySequence(data: Uint8Array, from: number, to: number): void {
    const room = MAX_SEQUENCE_BYTES - this.seqCarryLen;
    const end = Math.min(to, from + Math.max(0, room));
    for (let k = from; k < end; k++) this.carryByte(data[k]!);
    this.seqCarried += to - end;
  }

  private carryByte(b: number): void {
    this.seqCarried++;
    if (this.seqCarryLen >= MAX_SEQUENCE_BYTES) return;
    if (this.seqCarry === null || this.seqCarryLen === this.seqCarry.length) {
      const grown = new Uint8Array(Math.min(MAX_SEQUENCE_BYTES, Math.max(64, this.seqCarryLen * 2)));
      if (this.seqCarry) grown.set(this.seqCarry.subarray(0, this.seqCarryLen));
      this.seqCarry = grown;
    }
    this.seqCarry[this.seqCarryLen++] = b;
  }

  private addParamByte(code: number): void {
    if (code === 0x3b) this.params.addParam(0);
    else if (code === 0x3a) this.params.addSubParam(-1);
    else this.params.addDigit(code - 0x30);
  }

  private startString(kind: StringKind, type: number): void {
    this.strKind = kind;
    this.strType = type;
    this.strLen = 0;
    this.strDropped = 0;
  }

  private putString(cp: number): void {
    const room = this.strBuf.length - this.strLen;
    if (cp < 0x10000) {
      if (room >= 1) this.strBuf[this.strLen++] = cp;
      else this.strDropped++;
    } else if (room >= 2) {
      const v = cp - 0x10000;
      this.strBuf[this.strLen++] = 0xd800 | (v >> 10);
      this.strBuf[this.strLen++] = 0xdc00 | (v & 0x3ff);
    } else {
      this.strDropped += 2;
    }
  }

  /** Ends the current string; `code` is what ended it, `next` the state the table chose. */
  private endString(code: number, next: number): void {
    // ST (0x9C or ESC \) and, for OSC, BEL end a string; CAN, SUB and other C1 controls abort it.
    const ok = code === 0x9c || code === 0x1b || code === 0x07;
    const truncated = this.strDropped > 0;
    const kind = this.strKind;
    this.strKind = StringKind.NONE;
    if (kind === StringKind.OSC) {
      this.emitOsc(ok, truncated);
    } else if (kind === StringKind.DCS) {
      this.handler.dcs(this.params, this.dcsCollect, this.dcsFinal, utf16ToString(this.strBuf, 0, this.strLen), ok, truncated);
    } else if (kind === StringKind.SOS_PM_APC) {
      this.handler.str(this.strType, utf16ToString(this.strBuf, 0, this.strLen), ok, truncated);
    }
    this.strLen = 0;
    this.strDropped = 0;
    this.params.reset();
    this.collect = 0;
    // What the "anywhere" rule would have done with this code besides leaving the string.
    if (next === State.OSC_STRING) this.startString(StringKind.OSC, 0);
    else if (next === State.SOS_PM_APC_STRING) this.startString(StringKind.SOS_PM_APC, code - 0x40);
    else if (next === State.GROUND && code >= 0x80 && code !== 0x9c) this.handler.execute(code, -1);
  }

  private emitOsc(ok: boolean, truncated: boolean): void {
    const buf = this.strBuf;
    const len = this.strLen;
    let id = -1;
    let p = 0;
    while (p < len) {
      const c = buf[p]!;
      if (c < 0x30 || c > 0x39) break;
      id = id < 0 ? c - 0x30 : Math.min(id * 10 + c - 0x30, 0x7fffffff);
      p++;
    }
    if (id >= 0 && (p === len || buf[p] === 0x3b)) {
      this.handler.osc(id, utf16ToString(buf, p === len ? p : p + 1, len), ok, truncated);
    } else {
      this.handler.osc(-1, utf16ToString(buf, 0, len), ok, truncated);
    }
  }
}

/** Renders a `collect` value (private marker and intermediates) as text. */
export function collectToString(collect: number): string {
  let s = '';
  while (collect) {
    s = String.fromCharCode(collect & 0xff) + s;
    collect >>>= 8;
  }
  return s;
}
