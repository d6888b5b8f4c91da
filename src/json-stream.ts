// stream-json's tokenizer driven by hand (synchronous: text in, tokens out) and a value
// assembler over its tokens with bounds on depth and size, for the readers that must not hold a
// whole document in memory (sudo JSON event logs, asciicast v1 files).
import { jsonParser, type Token } from 'stream-json/parser.js';
import { JSON_MAX_DEPTH } from './json-depth.js';
import { setOwn } from './own-property.js';

export type { Token } from 'stream-json/parser.js';

// stream-chain's markers, shared through the global symbol registry (no direct dependency).
const NONE = Symbol.for('object-stream.none');
const MANY = Symbol.for('object-stream.many');

export type Tokenizer = (text: string | null) => Token[];

export interface TokenizerOptions {
  jsonStreaming: boolean;
  /**
   * Strings, keys and numbers come in pieces (stringChunk, numberChunk between start and end
   * tokens) instead of whole: the tokenizer then never holds one whole string, so a huge one
   * costs no memory unless the consumer keeps it. Default false (packed values).
   */
  streamValues?: boolean;
}

/** A fresh tokenizer: call with text, then with null at the end (flush). Throws on bad JSON. */
export function tokenizer(opts: TokenizerOptions): Tokenizer {
  // jsonParser is parser() without its UTF-8 front stage: synchronous, strings in, tokens out.
  const streamed = opts.streamValues === true;
  const p = jsonParser({ packValues: !streamed, streamValues: streamed, jsonStreaming: opts.jsonStreaming }) as unknown as (chunk: unknown) => unknown;
  return (text) => {
    const out = p(text === null ? NONE : text);
    if (out === NONE || out === undefined || out === null) return [];
    if ((out as Record<symbol, unknown>)[MANY] === 1) return (out as { values: Token[] }).values;
    return [out as Token];
  };
}

export interface AssemblerLimits {
  /** Objects and arrays nested deeper than this make the value `tooDeep`. */
  maxDepth?: number;
  /** Characters of strings, keys and numbers beyond this make the value `tooLarge`. */
  maxChars?: number;
}

/**
 * Builds one JSON value from tokens, packed or streamed. Past a bound it stops building (the
 * value is then undefined and `tooDeep` or `tooLarge` says why) but keeps following the tokens,
 * so `push` still reports the end of the value and the reader can go on after it.
 */
export class ValueAssembler {
  private readonly stack: Array<Record<string, unknown> | unknown[]> = [];
  private readonly keys: Array<string | null> = [];
  private key: string | null = null;
  /** Containers open, counted also once nothing is built any more. */
  private depth = 0;
  /** The pieces of a streamed string, key or number. */
  private pieces: string[] = [];
  /** Characters of strings, keys and numbers met so far (built or not). */
  chars = 0;
  private readonly maxDepth: number;
  private readonly maxChars: number;
  value: unknown = undefined;
  done = false;
  tooDeep = false;
  tooLarge = false;

  constructor(limits: AssemblerLimits = {}) {
    this.maxDepth = limits.maxDepth ?? JSON_MAX_DEPTH;
    this.maxChars = limits.maxChars ?? Infinity;
  }

  /** True once a bound was passed: nothing more is built. */
  get refused(): boolean {
    return this.tooDeep || this.tooLarge;
  }

  /** Feeds one token; true once the value is complete. */
  push(tok: Token): boolean {
    switch (tok.name) {
      case 'startObject':
      case 'startArray': {
        this.depth++;
        if (this.depth > this.maxDepth) this.refuse('deep');
        if (this.refused) return false;
        const c: Record<string, unknown> | unknown[] = tok.name === 'startObject' ? {} : [];
        this.stack.push(c);
        this.keys.push(this.key);
        this.key = null;
        return false;
      }
      case 'endObject':
      case 'endArray': {
        this.depth--;
        if (this.refused) return this.finishRefused();
        const c = this.stack.pop()!;
        this.key = this.keys.pop() ?? null;
        return this.add(c);
      }
      case 'startKey':
      case 'startString':
      case 'startNumber':
        this.pieces = [];
        return false;
      case 'stringChunk':
      case 'numberChunk':
        this.count(tok.value.length);
        if (!this.refused) this.pieces.push(tok.value);
        return false;
      case 'endKey':
        if (!this.refused) this.key = this.joinPieces();
        return false;
      case 'endString':
        return this.refused ? this.finishRefused() : this.add(this.joinPieces());
      case 'endNumber':
        return this.refused ? this.finishRefused() : this.add(Number(this.joinPieces()));
      case 'keyValue':
        this.count(tok.value.length);
        if (!this.refused) this.key = tok.value;
        return false;
      case 'stringValue':
        this.count(tok.value.length);
        return this.refused ? this.finishRefused() : this.add(tok.value);
      case 'numberValue':
        this.count(tok.value.length);
        return this.refused ? this.finishRefused() : this.add(Number(tok.value));
      case 'nullValue':
        return this.refused ? this.finishRefused() : this.add(null);
      case 'trueValue':
        return this.refused ? this.finishRefused() : this.add(true);
      case 'falseValue':
        return this.refused ? this.finishRefused() : this.add(false);
      default:
        return false; // whitespace tokens carry no value
    }
  }

  private count(n: number): void {
    this.chars += n;
    if (this.chars > this.maxChars) this.refuse('large');
  }

  private refuse(why: 'deep' | 'large'): void {
    if (this.refused) return;
    if (why === 'deep') this.tooDeep = true;
    else this.tooLarge = true;
    // What was built so far is dropped at once: it may be large.
    this.stack.length = 0;
    this.keys.length = 0;
    this.pieces = [];
  }

  private joinPieces(): string {
    const s = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
    this.pieces = [];
    return s;
  }

  /** A refused value ends when its outermost container (or its one scalar) ends. */
  private finishRefused(): boolean {
    if (this.depth > 0) return false;
    this.done = true;
    return true;
  }

  private add(v: unknown): boolean {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.value = v;
      this.done = true;
      return true;
    }
    if (Array.isArray(top)) top.push(v);
    else setOwn(top, this.key ?? '', v); // a "__proto__" key becomes an own property, as with JSON.parse
    this.key = null;
    return false;
  }
}
