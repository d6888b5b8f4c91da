// stream-json's tokenizer driven by hand, one line at a time, so that every event can be tied to
// the lines (and so the byte offsets) it came from; plus the two small consumers the sudo JSON
// reader needs: a value assembler and a walker that yields the members of an object one by
// one — duplicate keys included, which is the whole point: sudo's pretty JSON event log is one
// object whose repeated keys "accept", "exit", ... are the events (JSON.parse keeps only the last).
import { jsonParser, type Token } from 'stream-json/parser.js';
import { setOwn } from '../../own-property.js';

// stream-chain's markers, shared through the global symbol registry (no direct dependency).
const NONE = Symbol.for('object-stream.none');
const MANY = Symbol.for('object-stream.many');

export type Tokenizer = (text: string | null) => Token[];

/** A fresh tokenizer: call with text, then with null at the end (flush). Throws on bad JSON. */
export function tokenizer(opts: { jsonStreaming: boolean }): Tokenizer {
  // jsonParser is parser() without its UTF-8 front stage: synchronous, strings in, tokens out.
  const p = jsonParser({ packValues: true, streamValues: false, jsonStreaming: opts.jsonStreaming }) as unknown as (chunk: unknown) => unknown;
  return (text) => {
    const out = p(text === null ? NONE : text);
    if (out === NONE || out === undefined || out === null) return [];
    if ((out as Record<symbol, unknown>)[MANY] === 1) return (out as { values: Token[] }).values;
    return [out as Token];
  };
}

/** Builds one JSON value from packed tokens. */
export class ValueAssembler {
  private readonly stack: Array<Record<string, unknown> | unknown[]> = [];
  private readonly keys: Array<string | null> = [];
  private key: string | null = null;
  value: unknown = undefined;
  done = false;

  /** Feeds one token; true once the value is complete. */
  push(tok: Token): boolean {
    switch (tok.name) {
      case 'startObject':
      case 'startArray': {
        const c: Record<string, unknown> | unknown[] = tok.name === 'startObject' ? {} : [];
        this.stack.push(c);
        this.keys.push(this.key);
        this.key = null;
        return false;
      }
      case 'endObject':
      case 'endArray': {
        const c = this.stack.pop()!;
        this.key = this.keys.pop() ?? null;
        return this.add(c);
      }
      case 'keyValue':
        this.key = tok.value;
        return false;
      case 'stringValue':
        return this.add(tok.value);
      case 'numberValue':
        return this.add(Number(tok.value));
      case 'nullValue':
        return this.add(null);
      case 'trueValue':
        return this.add(true);
      case 'falseValue':
        return this.add(false);
      default:
        return false; // streamed chunks and whitespace are not produced with packValues
    }
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

export class NotAnEventLog extends Error {}

interface Awaiting {
  key: string;
  skip: boolean;
  wrapper: boolean;
}

/**
 * Yields the members of top-level objects as (key, value) pairs, in order, repeated keys
 * included. With `wrapperKey`, the members of the object under that top-level key are yielded
 * instead (`@cee:{"sudo":{"accept":{...}}}`), and other top-level members are skipped.
 */
export class MemberWalker {
  private depth = 0;
  private awaiting: Awaiting | null = null;
  private asm: ValueAssembler | null = null;
  private key = '';
  private skip = false;

  constructor(private readonly wrapperKey: string | null = null) {}

  /** True while inside a top-level value (an event log object not closed yet). */
  get inValue(): boolean {
    return this.depth > 0 || this.asm !== null || this.awaiting !== null;
  }

  /** True while a member's value (an event) is being read. */
  get inMember(): boolean {
    return (this.asm !== null && !this.skip) || (this.awaiting !== null && !this.awaiting.skip);
  }

  feed(tokens: readonly Token[], onMember: (key: string, value: unknown) => void): void {
    const eventDepth = this.wrapperKey === null ? 1 : 2;
    for (const tok of tokens) {
      if (this.asm) {
        if (this.asm.push(tok)) this.finish(onMember);
        continue;
      }
      if (this.awaiting) {
        const a = this.awaiting;
        this.awaiting = null;
        if (a.wrapper && tok.name === 'startObject') {
          this.depth = 2;
          continue;
        }
        this.asm = new ValueAssembler();
        this.key = a.key;
        this.skip = a.skip;
        if (this.asm.push(tok)) this.finish(onMember);
        continue;
      }
      switch (tok.name) {
        case 'startObject':
          if (this.depth !== 0) throw new NotAnEventLog('an object where a key was expected');
          this.depth = 1;
          break;
        case 'endObject':
          if (this.depth === 0) throw new NotAnEventLog('an unexpected end of object');
          this.depth--;
          break;
        case 'keyValue':
          if (this.depth === eventDepth) this.awaiting = { key: tok.value, skip: false, wrapper: false };
          else this.awaiting = { key: tok.value, skip: true, wrapper: this.wrapperKey !== null && tok.value === this.wrapperKey && this.depth === 1 };
          break;
        default:
          throw new NotAnEventLog(`a top-level ${tok.name.replace(/Value$/, '').replace(/^start/, '').toLowerCase()} where an object of events was expected`);
      }
    }
  }

  private finish(onMember: (key: string, value: unknown) => void): void {
    const v = this.asm!.value;
    this.asm = null;
    if (!this.skip) onMember(this.key, v);
  }
}
