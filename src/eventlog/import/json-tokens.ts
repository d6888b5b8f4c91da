// stream-json's tokenizer (json-stream.ts) driven by hand, one line at a time, so that every
// event can be tied to the lines (and so the byte offsets) it came from; plus the walker the
// sudo JSON reader needs, which yields the members of an object one by one — duplicate keys
// included, which is the whole point: sudo's pretty JSON event log is one object whose repeated
// keys "accept", "exit", ... are the events (JSON.parse keeps only the last).
import { ValueAssembler, type Token } from '../../json-stream.js';

export { tokenizer, type Tokenizer } from '../../json-stream.js';

/** The value of a member that nests deeper than JSON_MAX_DEPTH (not built: see json-depth.ts). */
export const TOO_DEEP: unique symbol = Symbol('too deep');

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
    const v = this.asm!.tooDeep ? TOO_DEEP : this.asm!.value;
    this.asm = null;
    if (!this.skip) onMember(this.key, v);
  }
}
