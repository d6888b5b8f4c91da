// The replay tokenizer: session bytes in, text items and terminfo-named tokens out.
//
// Text runs become one `text` item each (runs continue across writes of the same time). Control
// functions become `token` items named by the capability of the selected terminfo entry that
// produces them (capability-map.ts), with ECMA-48 defaults applied to parameters. Sequences that
// begin a multi-sequence capability (clear = `CSI H` `CSI 2 J`, CR LF = nel, ...) are held until
// the next event decides; so a write's items may appear with a later write, and flush()/end()
// hand over what is still held. Window changes come in through resize() as `sz` tokens.
import { CapabilityMap, type CapPattern, c1AsEsc, matchSeq } from './capability-map.js';
import type { Params } from './params.js';
import { Parser, type ParserHandler, utf16ToString } from './parser.js';
import { canonicalParams, identToString, SeqKind, type Sequence } from './sequence.js';
import { loadTerminfo, type LoadTerminfoOptions, type TerminfoEntry } from './terminfo.js';
import type { ReplayItem, TextItem, TokenItem } from './types.js';

export interface TokenizerOptions {
  /** Terminal type (default xterm-256color), or an entry / capability map already loaded. */
  term?: string | TerminfoEntry | CapabilityMap;
  /** Where to look for terminfo (tests); default: the environment's search path. */
  terminfo?: LoadTerminfoOptions;
  /** Receives each item as it is produced; without it, write() and friends return the items. */
  onItem?: (item: ReplayItem) => void;
  /** UTF-16 code units kept of an OSC/DCS/SOS/PM/APC payload (default 4096). */
  maxStringLength?: number;
}

interface PendingSeq extends Sequence {
  sub?: number[][] | undefined;
}

const SGR = 0x6d;
const NO_ITEMS: ReplayItem[] = [];
const CR: Sequence = Object.freeze({ kind: SeqKind.CONTROL, ident: 0x0d, params: [] }) as Sequence;
/** Tokens without values are shared, frozen objects. */
const SGR0: TokenItem = Object.freeze({ type: 'token', name: 'sgr0' }) as TokenItem;
const mapCache = new Map<string, CapabilityMap>();

/** The capability map of a terminal type, built once per process and type. */
export function capabilityMapFor(term: string | undefined, options: LoadTerminfoOptions = {}): CapabilityMap {
  const entry = loadTerminfo(term, options);
  const key = `${entry.source}\0${entry.names[0] ?? ''}`;
  let map = mapCache.get(key);
  if (!map) {
    map = new CapabilityMap(entry);
    if (mapCache.size > 64) mapCache.clear();
    mapCache.set(key, map);
  }
  return map;
}

export class Tokenizer implements ParserHandler {
  readonly map: CapabilityMap;
  /** Primary name of the terminfo entry in use. */
  readonly term: string;
  private readonly parser: Parser;
  private readonly onItem: ((item: ReplayItem) => void) | null;
  private out: ReplayItem[] = [];
  private now = 0;
  private text: string | null = null;
  private textTime = 0;
  private readonly pending: PendingSeq[] = [];
  /** The current write's bytes as a latin1 string, made on first use: ASCII runs are slices of it. */
  private chunk: Uint8Array | null = null;
  private chunkText = '';
  /** CR LF's capability when CR starts nothing else (then a lone CR is held without matching). */
  private readonly crlf: CapPattern | null;
  /** `pending` is exactly [CR], held on the fast path. */
  private crHeld = false;
  private readonly scratch: PendingSeq = { kind: SeqKind.CSI, ident: 0, params: [] };
  /** Scratch for capability arguments (at most 9). */
  private readonly args: number[] = new Array<number>(9).fill(0);

  constructor(options: TokenizerOptions = {}) {
    const t = options.term;
    this.map = t instanceof CapabilityMap ? t : typeof t === 'object' ? new CapabilityMap(t) : capabilityMapFor(t, options.terminfo);
    this.term = this.map.entry.names[0] ?? 'unknown';
    this.parser = new Parser(this, { maxStringLength: options.maxStringLength ?? 4096 });
    this.onItem = options.onItem ?? null;
    const crStarts = this.map.multiStartingWith(CR);
    const only = crStarts?.length === 1 ? crStarts[0]! : null;
    this.crlf = only && only.seqs.length === 2 && only.arity === 0 && only.seqs[1]!.kind === SeqKind.CONTROL && only.seqs[1]!.ident === 0x0a ? only : null;
  }

  /** Bytes written to the terminal at `timeMs`; returns the items completed (none with onItem). */
  write(bytes: Uint8Array, timeMs: number): ReplayItem[] {
    if (this.text !== null && timeMs !== this.textTime) this.flushText();
    this.now = timeMs;
    this.chunk = null;
    this.parser.write(bytes);
    this.chunk = null;
    this.chunkText = '';
    return this.drain();
  }

  /** A window change: `sz` with [cols, rows]. */
  resize(cols: number, rows: number): ReplayItem[] {
    this.flushText();
    this.resolve(true);
    this.emit({ type: 'token', name: 'sz', values: [cols, rows] });
    return this.drain();
  }

  /** Hands over held items (text and sequences); the parser keeps any partial sequence. */
  flush(): ReplayItem[] {
    this.resolve(true);
    this.flushText();
    return this.drain();
  }

  /** End of the session: a dangling partial UTF-8 character becomes U+FFFD; everything is handed over. */
  end(): ReplayItem[] {
    this.parser.end();
    return this.flush();
  }

  private drain(): ReplayItem[] {
    if (this.onItem) return NO_ITEMS;
    const items = this.out;
    this.out = [];
    return items;
  }

  private emit(item: ReplayItem): void {
    if (this.onItem) this.onItem(item);
    else this.out.push(item);
  }

  private flushText(): void {
    if (this.text === null) return;
    const item: TextItem = { type: 'text', time: this.textTime, value: this.text };
    this.text = null;
    this.emit(item);
  }

  // ---- ParserHandler

  print(buf: Uint16Array, start: number, end: number): void {
    if (this.pending.length) this.resolve(true);
    const s = utf16ToString(buf, start, end);
    if (this.text === null) {
      this.text = s;
      this.textTime = this.now;
    } else {
      this.text += s;
    }
  }

  printAscii(data: Uint8Array, start: number, end: number): void {
    if (this.pending.length) this.resolve(true);
    if (data !== this.chunk) {
      this.chunk = data;
      this.chunkText = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
    }
    const s = this.chunkText.slice(start, end);
    if (this.text === null) {
      this.text = s;
      this.textTime = this.now;
    } else {
      this.text += s;
    }
  }

  printRunEnd(): void {
    // Text runs are cut by time and by controls, not by the parser's run boundaries.
  }

  execute(code: number): void {
    if (this.text !== null) this.flushText();
    if (this.crHeld) {
      // Fast path for the commonest pair: CR held alone, LF completes CR LF.
      this.crHeld = false;
      if (code === 0x0a && this.crlf) {
        this.pending.pop();
        this.emitCap(this.crlf, this.args);
        return;
      }
    }
    if (code === 0x0d && this.crlf && this.pending.length === 0) {
      this.pending.push(CR);
      this.crHeld = true;
      return;
    }
    this.handle(c1AsEsc(code) ?? { kind: SeqKind.CONTROL, ident: code, params: [] });
  }

  csi(params: Params, collect: number, final: number): void {
    if (this.text !== null) this.flushText();
    const sub = params.hasAnySubParams() ? subParams(params) : undefined;
    if (final === SGR && collect === 0 && this.pending.length === 0 && this.map.hasSgr) {
      this.crHeld = false;
      this.emitSgr(params.toArray(), sub);
      return;
    }
    const ident = (collect << 8) | final;
    const values = canonicalParams(collect, final, params);
    if (this.pending.length === 0) {
      // The common case names the sequence at once, through a reused object.
      const seq = this.scratch;
      seq.kind = SeqKind.CSI;
      seq.ident = ident;
      seq.params = values;
      seq.sub = sub;
      if (!this.mayStartMulti(seq)) {
        this.emitSingle(seq);
        return;
      }
    }
    this.handle({ kind: SeqKind.CSI, ident, params: values, sub });
  }

  esc(collect: number, final: number): void {
    if (this.text !== null) this.flushText();
    this.handle({ kind: SeqKind.ESC, ident: (collect << 8) | final, params: [] });
  }

  osc(id: number, data: string, ok: boolean, truncated: boolean): void {
    this.flushText();
    this.resolve(true);
    const item: TokenItem = { type: 'token', name: 'osc' };
    if (id >= 0) item.values = [id];
    this.emit(withPayload(item, data, ok, truncated));
  }

  dcs(params: Params, collect: number, final: number, data: string, ok: boolean, truncated: boolean): void {
    this.flushText();
    this.resolve(true);
    const item: TokenItem = { type: 'token', name: 'dcs', id: identToString((collect << 8) | final), values: params.toArray() };
    this.emit(withPayload(item, data, ok, truncated));
  }

  str(kind: number, data: string, ok: boolean, truncated: boolean): void {
    this.flushText();
    this.resolve(true);
    const name = kind === 0x58 ? 'sos' : kind === 0x5e ? 'pm' : 'apc';
    this.emit(withPayload({ type: 'token', name }, data, ok, truncated));
  }

  // ---- naming

  private handle(seq: PendingSeq): void {
    this.crHeld = false;
    if (this.pending.length === 0 && !this.mayStartMulti(seq)) {
      this.emitSingle(seq);
      return;
    }
    this.pending.push(seq);
    this.resolve(false);
  }

  /** Whether seq matches the first sequence of some multi-sequence capability. */
  private mayStartMulti(seq: Sequence): boolean {
    const candidates = this.map.multiStartingWith(seq);
    if (!candidates) return false;
    for (const cap of candidates) if (matchSeq(cap.seqs[0]!, seq, seq.params, this.args)) return true;
    return false;
  }

  /**
   * Names held sequences. Unless `final`, waits while they are a strict prefix of some
   * multi-sequence capability; otherwise takes the longest complete one, else names the first
   * sequence alone, and repeats.
   */
  private resolve(final: boolean): void {
    this.crHeld = false;
    const pending = this.pending;
    while (pending.length) {
      const candidates = this.map.multiStartingWith(pending[0]!);
      if (!final && candidates && this.isStrictPrefix(candidates)) return;
      let done = false;
      if (candidates) {
        for (let k = pending.length; k >= 2 && !done; k--) {
          for (const cap of candidates) {
            if (cap.seqs.length === k && this.matches(cap, k)) {
              this.emitCap(cap, this.args);
              pending.splice(0, k);
              done = true;
              break;
            }
          }
        }
      }
      if (!done) this.emitSingle(pending.shift()!);
    }
  }

  /** Whether the first k held sequences match the first k sequences of cap (arguments in this.args). */
  private matches(cap: CapPattern, k: number): boolean {
    const args = this.args;
    for (let i = 0; i < cap.arity; i++) args[i] = 0;
    for (let i = 0; i < k; i++) {
      const seq = this.pending[i]!;
      if (!matchSeq(cap.seqs[i]!, seq, seq.params, args)) return false;
    }
    return true;
  }

  private isStrictPrefix(candidates: CapPattern[]): boolean {
    const n = this.pending.length;
    for (const cap of candidates) if (cap.seqs.length > n && this.matches(cap, n)) return true;
    return false;
  }

  private emitSingle(seq: PendingSeq): void {
    const map = this.map;
    if (seq.kind === SeqKind.CSI && seq.ident === SGR && map.hasSgr) {
      this.emitSgr(seq.params, seq.sub);
      return;
    }
    const cap = map.find(seq, this.args);
    if (cap) {
      this.emitCap(cap, this.args);
      return;
    }
    this.emitGeneric(seq);
  }

  private emitCap(cap: CapPattern, args: number[]): void {
    if (cap.arity === 0) {
      this.emit((cap.token ??= Object.freeze({ type: 'token', name: cap.name }) as TokenItem));
      return;
    }
    this.emit({ type: 'token', name: cap.name, values: args.slice(0, cap.arity) });
  }

  private emitSgr(values: number[], sub: number[][] | undefined): void {
    if (!sub && values.length === 1 && values[0] === 0) {
      this.emit(SGR0);
      return;
    }
    const item: TokenItem = { type: 'token', name: 'sgr', values };
    if (sub) item.sub = sub;
    this.emit(item);
  }

  private emitGeneric(seq: PendingSeq): void {
    if (seq.kind === SeqKind.CONTROL) {
      this.emit({ type: 'token', name: 'ctrl', values: [seq.ident] });
    } else if (seq.kind === SeqKind.ESC) {
      this.emit({ type: 'token', name: 'esc', id: identToString(seq.ident) });
    } else {
      const item: TokenItem = { type: 'token', name: 'csi', id: identToString(seq.ident), values: seq.params };
      if (seq.sub) item.sub = seq.sub;
      this.emit(item);
    }
  }
}

function subParams(params: Params): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < params.length; i++) out.push(params.hasSubParams(i) ? params.subParams(i) : []);
  return out;
}

function withPayload(item: TokenItem, data: string, ok: boolean, truncated: boolean): TokenItem {
  item.data = data;
  if (truncated) item.truncated = true;
  if (!ok) item.aborted = true;
  return item;
}
