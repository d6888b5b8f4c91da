// Replay: bytes of a terminal session in; tokens, screens and processed text out.
// Imports neither src/eventlog nor src/iolog (DESIGN §1).
export { Parser, type ParserHandler, type ParserOptions, utf16ToString } from './parser.js';
export { Params } from './params.js';
export { TerminalFilter, filterTerminalOutput, SAFE_ANSI_MODES, SAFE_PRIVATE_MODES } from './terminal-filter.js';
export { KeyInput } from './key-input.js';
export { Tokenizer, capabilityMapFor, type TokenizerOptions } from './tokenizer.js';
export type { ReplayItem, TokenItem, TextItem } from './types.js';
export { CapabilityMap, REPORTED_NAMES } from './capability-map.js';
export {
  loadTerminfo,
  parseTerminfo,
  findTerminfoFile,
  terminfoDirs,
  checkTermName,
  builtinTerminfo,
  BUILTIN_TERM_NAMES,
  type TerminfoEntry,
  type LoadTerminfoOptions,
} from './terminfo.js';
export { tparm } from './tparm.js';
export { Screen, clampSize, type ScreenOptions } from './screen.js';
export { renderScreen, type RenderOptions } from './render.js';
export { ProcessedText, type ProcessedLine } from './processed-text.js';
export { charWidth } from './char-width.js';
export { replayRange, screenAt, OUTPUT_STREAMS, REPLAY_WARMUP_BYTES, type ReplaySourceEvent, type ReplayRangeOptions, type ScreenAtOptions } from './session-replay.js';
