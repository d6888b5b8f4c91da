// The DEC ANSI (VT500) parser as a transition table: (state, input class) -> action | next state.
//
// States and transitions follow Paul Williams' state diagram (https://vt100.net/emu/dec_ansi_parser).
// Adapted from the design of xterm.js's EscapeSequenceParser (MIT): the table is indexed by
// `state << 8 | class`, where the class is the code point itself below 0xA0 and one shared class
// (0xA0) for every printable non-ASCII code point; C1 controls arrive as code points 0x80-0x9F
// (UTF-8 `C2 80`..`C2 9F`). Where xterm.js deviates from the diagram (ESC and CAN/SUB end strings,
// `<=>?` only as the first parameter byte, DEL ignored in GROUND) we follow xterm.js so that our
// screen model and the test oracle see the same sequences. Unlike xterm.js, SOS/PM/APC strings are
// captured (with a size cap) instead of dropped, and leaving a string state always ends the string.

export const enum State {
  GROUND = 0,
  ESCAPE = 1,
  ESCAPE_INTERMEDIATE = 2,
  CSI_ENTRY = 3,
  CSI_PARAM = 4,
  CSI_INTERMEDIATE = 5,
  CSI_IGNORE = 6,
  SOS_PM_APC_STRING = 7,
  OSC_STRING = 8,
  DCS_ENTRY = 9,
  DCS_PARAM = 10,
  DCS_IGNORE = 11,
  DCS_INTERMEDIATE = 12,
  DCS_PASSTHROUGH = 13,
}

export const enum Action {
  IGNORE = 0,
  PRINT = 1,
  EXECUTE = 2,
  /** Reset parameters and intermediates (entering ESC, CSI or DCS). */
  CLEAR = 3,
  COLLECT = 4,
  PARAM = 5,
  ESC_DISPATCH = 6,
  CSI_DISPATCH = 7,
  DCS_HOOK = 8,
  DCS_PUT = 9,
  OSC_START = 10,
  OSC_PUT = 11,
  STRING_START = 12,
  STRING_PUT = 13,
  /** Leave a string state (OSC, DCS, SOS/PM/APC): the code decides success, the next state what follows. */
  STRING_END = 14,
}

/** Class shared by all printable code points >= 0xA0. */
export const NON_ASCII_PRINTABLE = 0xa0;

const STATE_COUNT = 14;
const ACTION_SHIFT = 4;
export const STATE_MASK = 0x0f;

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let c = from; c < to; c++) out.push(c);
  return out;
}

/** Builds the table once; entries are `action << 4 | next`. */
function buildTable(): Uint16Array {
  const table = new Uint16Array(STATE_COUNT << 8);
  const add = (codes: number[], state: State, action: Action, next: State): void => {
    for (const c of codes) table[(state << 8) | c] = (action << ACTION_SHIFT) | next;
  };
  const PRINTABLES = range(0x20, 0x7f);
  const EXECUTABLES = [...range(0x00, 0x18), 0x19, ...range(0x1c, 0x20)];
  const ALL = range(0, 0xa1);

  // Default: anything unexpected is dropped and the parser returns to GROUND.
  for (let s = 0; s < STATE_COUNT; s++) add(ALL, s, Action.IGNORE, State.GROUND);
  add(PRINTABLES, State.GROUND, Action.PRINT, State.GROUND);
  add([NON_ASCII_PRINTABLE], State.GROUND, Action.PRINT, State.GROUND);

  // "Anywhere" transitions.
  for (let s = 0; s < STATE_COUNT; s++) {
    add([0x18, 0x1a, 0x99, 0x9a], s, Action.EXECUTE, State.GROUND);
    add(range(0x80, 0x90), s, Action.EXECUTE, State.GROUND);
    add(range(0x91, 0x98), s, Action.EXECUTE, State.GROUND);
    add([0x9c], s, Action.IGNORE, State.GROUND);
    add([0x1b], s, Action.CLEAR, State.ESCAPE);
    add([0x9d], s, Action.OSC_START, State.OSC_STRING);
    add([0x98, 0x9e, 0x9f], s, Action.STRING_START, State.SOS_PM_APC_STRING);
    add([0x9b], s, Action.CLEAR, State.CSI_ENTRY);
    add([0x90], s, Action.CLEAR, State.DCS_ENTRY);
  }

  // C0 controls execute inside ESC and CSI sequences without ending them.
  add(EXECUTABLES, State.GROUND, Action.EXECUTE, State.GROUND);
  for (const s of [State.ESCAPE, State.ESCAPE_INTERMEDIATE, State.CSI_ENTRY, State.CSI_PARAM, State.CSI_INTERMEDIATE, State.CSI_IGNORE]) {
    add(EXECUTABLES, s, Action.EXECUTE, s);
    add([0x7f], s, Action.IGNORE, s);
  }

  // ESC
  add(range(0x20, 0x30), State.ESCAPE, Action.COLLECT, State.ESCAPE_INTERMEDIATE);
  add(range(0x30, 0x50), State.ESCAPE, Action.ESC_DISPATCH, State.GROUND);
  add(range(0x51, 0x58), State.ESCAPE, Action.ESC_DISPATCH, State.GROUND);
  add([0x59, 0x5a, 0x5c], State.ESCAPE, Action.ESC_DISPATCH, State.GROUND);
  add(range(0x60, 0x7f), State.ESCAPE, Action.ESC_DISPATCH, State.GROUND);
  add([0x5b], State.ESCAPE, Action.CLEAR, State.CSI_ENTRY);
  add([0x5d], State.ESCAPE, Action.OSC_START, State.OSC_STRING);
  add([0x50], State.ESCAPE, Action.CLEAR, State.DCS_ENTRY);
  add([0x58, 0x5e, 0x5f], State.ESCAPE, Action.STRING_START, State.SOS_PM_APC_STRING);
  add(range(0x20, 0x30), State.ESCAPE_INTERMEDIATE, Action.COLLECT, State.ESCAPE_INTERMEDIATE);
  add(range(0x30, 0x7f), State.ESCAPE_INTERMEDIATE, Action.ESC_DISPATCH, State.GROUND);

  // CSI
  add(range(0x30, 0x3c), State.CSI_ENTRY, Action.PARAM, State.CSI_PARAM);
  add([0x3c, 0x3d, 0x3e, 0x3f], State.CSI_ENTRY, Action.COLLECT, State.CSI_PARAM);
  add(range(0x20, 0x30), State.CSI_ENTRY, Action.COLLECT, State.CSI_INTERMEDIATE);
  add(range(0x40, 0x7f), State.CSI_ENTRY, Action.CSI_DISPATCH, State.GROUND);
  add(range(0x30, 0x3c), State.CSI_PARAM, Action.PARAM, State.CSI_PARAM);
  add([0x3c, 0x3d, 0x3e, 0x3f], State.CSI_PARAM, Action.IGNORE, State.CSI_IGNORE);
  add(range(0x20, 0x30), State.CSI_PARAM, Action.COLLECT, State.CSI_INTERMEDIATE);
  add(range(0x40, 0x7f), State.CSI_PARAM, Action.CSI_DISPATCH, State.GROUND);
  add(range(0x20, 0x30), State.CSI_INTERMEDIATE, Action.COLLECT, State.CSI_INTERMEDIATE);
  add(range(0x30, 0x40), State.CSI_INTERMEDIATE, Action.IGNORE, State.CSI_IGNORE);
  add(range(0x40, 0x7f), State.CSI_INTERMEDIATE, Action.CSI_DISPATCH, State.GROUND);
  add(range(0x20, 0x40), State.CSI_IGNORE, Action.IGNORE, State.CSI_IGNORE);
  add([NON_ASCII_PRINTABLE], State.CSI_IGNORE, Action.IGNORE, State.CSI_IGNORE);
  add(range(0x40, 0x7f), State.CSI_IGNORE, Action.IGNORE, State.GROUND);

  // OSC: BEL, ST (0x9C or ESC \) end it; CAN/SUB abort it; other C0 are dropped.
  add(PRINTABLES, State.OSC_STRING, Action.OSC_PUT, State.OSC_STRING);
  add([0x7f, NON_ASCII_PRINTABLE], State.OSC_STRING, Action.OSC_PUT, State.OSC_STRING);
  add(EXECUTABLES, State.OSC_STRING, Action.IGNORE, State.OSC_STRING);

  // SOS / PM / APC: everything up to ST is the payload.
  add(PRINTABLES, State.SOS_PM_APC_STRING, Action.STRING_PUT, State.SOS_PM_APC_STRING);
  add([0x7f, NON_ASCII_PRINTABLE], State.SOS_PM_APC_STRING, Action.STRING_PUT, State.SOS_PM_APC_STRING);
  add(EXECUTABLES, State.SOS_PM_APC_STRING, Action.STRING_PUT, State.SOS_PM_APC_STRING);

  // DCS
  for (const s of [State.DCS_ENTRY, State.DCS_PARAM, State.DCS_INTERMEDIATE, State.DCS_IGNORE]) {
    add(EXECUTABLES, s, Action.IGNORE, s);
    add([0x7f], s, Action.IGNORE, s);
  }
  add(range(0x20, 0x30), State.DCS_ENTRY, Action.COLLECT, State.DCS_INTERMEDIATE);
  add(range(0x30, 0x3c), State.DCS_ENTRY, Action.PARAM, State.DCS_PARAM);
  add([0x3c, 0x3d, 0x3e, 0x3f], State.DCS_ENTRY, Action.COLLECT, State.DCS_PARAM);
  add(range(0x40, 0x7f), State.DCS_ENTRY, Action.DCS_HOOK, State.DCS_PASSTHROUGH);
  add(range(0x30, 0x3c), State.DCS_PARAM, Action.PARAM, State.DCS_PARAM);
  add([0x3c, 0x3d, 0x3e, 0x3f], State.DCS_PARAM, Action.IGNORE, State.DCS_IGNORE);
  add(range(0x20, 0x30), State.DCS_PARAM, Action.COLLECT, State.DCS_INTERMEDIATE);
  add(range(0x40, 0x7f), State.DCS_PARAM, Action.DCS_HOOK, State.DCS_PASSTHROUGH);
  add(range(0x20, 0x30), State.DCS_INTERMEDIATE, Action.COLLECT, State.DCS_INTERMEDIATE);
  add(range(0x30, 0x40), State.DCS_INTERMEDIATE, Action.IGNORE, State.DCS_IGNORE);
  add(range(0x40, 0x7f), State.DCS_INTERMEDIATE, Action.DCS_HOOK, State.DCS_PASSTHROUGH);
  add(range(0x20, 0x80), State.DCS_IGNORE, Action.IGNORE, State.DCS_IGNORE);
  add([NON_ASCII_PRINTABLE], State.DCS_IGNORE, Action.IGNORE, State.DCS_IGNORE);
  add(EXECUTABLES, State.DCS_PASSTHROUGH, Action.DCS_PUT, State.DCS_PASSTHROUGH);
  add(PRINTABLES, State.DCS_PASSTHROUGH, Action.DCS_PUT, State.DCS_PASSTHROUGH);
  add([NON_ASCII_PRINTABLE], State.DCS_PASSTHROUGH, Action.DCS_PUT, State.DCS_PASSTHROUGH);
  add([0x7f], State.DCS_PASSTHROUGH, Action.IGNORE, State.DCS_PASSTHROUGH);

  // Leaving a string state (ST, ESC, BEL for OSC, CAN/SUB, any C1 that starts something else)
  // always ends the string first; the next state is the one the "anywhere" rule chose.
  for (const s of [State.OSC_STRING, State.DCS_PASSTHROUGH, State.SOS_PM_APC_STRING]) {
    for (let c = 0; c <= NON_ASCII_PRINTABLE; c++) {
      const entry = table[(s << 8) | c]!;
      const next = entry & STATE_MASK;
      if (next !== s) table[(s << 8) | c] = (Action.STRING_END << ACTION_SHIFT) | next;
    }
  }
  table[(State.OSC_STRING << 8) | 0x07] = (Action.STRING_END << ACTION_SHIFT) | State.GROUND;
  return table;
}

export const TRANSITIONS: Uint16Array = buildTable();
export const TRANSITION_ACTION_SHIFT = ACTION_SHIFT;

/**
 * The same parser for the other direction: what a terminal sends (keys typed, terminal answers).
 * The output table with these rows changed, since a key is not a control sequence to obey:
 * - GROUND: DEL (the Backspace key) is executed; a C1 control (U+0080-U+009F typed) is dropped.
 * - ESCAPE: ESC and a key is Alt+key, so every code point after ESC dispatches at once (also
 *   intermediates, C0 controls, DEL and non-ASCII), except `[` (CSI), `]`, `P`, `X`, `^`, `_`
 *   (strings: terminal answers) and ESC itself. `ESC O` (SS3) dispatches and its key follows.
 * - CSI: C0 controls inside a key sequence are dropped (a key never holds one).
 * - Strings (terminal answers: OSC, DCS, APC ...) end at BEL too.
 * - C1 code points never start or end anything.
 */
function buildInputTable(): Uint16Array {
  const table = TRANSITIONS.slice();
  const set = (state: State, c: number, action: Action, next: State): void => {
    table[(state << 8) | c] = (action << ACTION_SHIFT) | next;
  };
  set(State.GROUND, 0x7f, Action.EXECUTE, State.GROUND);
  const strings = new Set([0x1b, 0x5b, 0x5d, 0x50, 0x58, 0x5e, 0x5f]);
  for (let c = 0; c < 0x80; c++) if (!strings.has(c)) set(State.ESCAPE, c, Action.ESC_DISPATCH, State.GROUND);
  set(State.ESCAPE, NON_ASCII_PRINTABLE, Action.ESC_DISPATCH, State.GROUND);
  for (const s of [State.CSI_ENTRY, State.CSI_PARAM, State.CSI_INTERMEDIATE, State.CSI_IGNORE]) {
    for (let c = 0; c < 0x20; c++) if (c !== 0x1b && c !== 0x18 && c !== 0x1a) set(s, c, Action.IGNORE, s);
  }
  for (const s of [State.DCS_ENTRY, State.DCS_PARAM, State.DCS_INTERMEDIATE, State.DCS_IGNORE]) set(s, 0x07, Action.IGNORE, State.GROUND);
  for (const s of [State.DCS_PASSTHROUGH, State.SOS_PM_APC_STRING, State.OSC_STRING]) set(s, 0x07, Action.STRING_END, State.GROUND);
  for (let s = 0; s < STATE_COUNT; s++) {
    for (let c = 0x80; c < 0xa0; c++) set(s, c, Action.IGNORE, s === State.ESCAPE ? State.GROUND : s);
  }
  return table;
}

export const INPUT_TRANSITIONS: Uint16Array = buildInputTable();
