// asciicast v1: one JSON object, `{"version": 1, "width", "height", "command", "env", ...,
// "stdout": [[delay, data], ...]}`, the delays in seconds since the previous frame. The file is
// read as a stream of tokens (stream-json, strings in pieces), never as one document: memory
// stays bounded by one frame (CAST_LINE_MAX) and the header (INFO_MAX_BYTES), whatever the
// size of the file. V1Parser is the synchronous core; readV1 feeds it a file.
import { StringDecoder } from 'node:string_decoder';
import { evioError } from '../errors.js';
import { JSON_MAX_DEPTH } from '../json-depth.js';
import { tokenizer, ValueAssembler, type Token } from '../json-stream.js';
import { decodedChunks } from './decoded-file.js';
import { CAST_LINE_MAX, INFO_MAX_BYTES } from './limits.js';
import { checkAborted } from './session.js';

export type V1Item =
  /** A header member (every key but `stdout`), when members are wanted. */
  | { kind: 'member'; key: string; value: unknown }
  /** A frame: its delay after the previous frame in integer ns, and its text. */
  | { kind: 'frame'; delayNs: number; data: string }
  /** A `stdout` entry that is not [delay, data] (index counts every entry from 0). */
  | { kind: 'bad-frame'; index: number; why: string };

/** The data is not asciicast v1 (bad JSON, not one object, a header member out of bounds). */
export class NotAsciicastV1 extends Error {}

/** A pass without members keeps keys up to this length (it only looks for "stdout"). */
const KEY_KEPT_WITHOUT_MEMBERS = 64;

type State = 'start' | 'members' | 'key' | 'value' | 'frames' | 'end';

export class V1Parser {
  private readonly tok = tokenizer({ jsonStreaming: false, streamValues: true });
  private state: State = 'start';
  private keyPieces: string[] = [];
  private keyChars = 0;
  private key = '';
  private asm: ValueAssembler | null = null;
  /** The value being assembled is a frame (else a member's value). */
  private asmIsFrame = false;
  /** Characters of header keys and values so far (bounded by INFO_MAX_BYTES). */
  private headerChars = 0;
  private frameIndex = 0;
  private out: V1Item[] = [];

  /** members: false skips header members without building them (a pass over the frames). */
  constructor(private readonly members: boolean) {}

  /** Feeds text (null at the end); the items it completed. Throws NotAsciicastV1. */
  feed(text: string | null): V1Item[] {
    this.out = [];
    let tokens: Token[];
    try {
      tokens = this.tok(text);
    } catch (err) {
      throw new NotAsciicastV1(`not valid JSON: ${(err as Error).message}`);
    }
    for (const t of tokens) this.token(t);
    if (text === null && this.state !== 'end') throw new NotAsciicastV1('the JSON object is not closed (the file is cut short)');
    return this.out;
  }

  private token(t: Token): void {
    if (this.asm) {
      if (this.asm.push(t)) this.valueDone();
      return;
    }
    switch (this.state) {
      case 'start':
        if (t.name !== 'startObject') throw new NotAsciicastV1('the file is not one JSON object');
        this.state = 'members';
        return;
      case 'members':
        if (t.name === 'startKey') {
          this.keyPieces = [];
          this.keyChars = 0;
          this.state = 'key';
        } else if (t.name === 'endObject') {
          this.state = 'end';
        }
        return;
      case 'key':
        if (t.name === 'stringChunk') {
          this.countHeader(t.value.length);
          this.keyChars += t.value.length;
          // Without members only "stdout" matters: a longer key is not kept.
          if (this.members || this.keyChars <= KEY_KEPT_WITHOUT_MEMBERS) this.keyPieces.push(t.value);
        } else if (t.name === 'endKey') {
          this.key = this.members || this.keyChars <= KEY_KEPT_WITHOUT_MEMBERS ? this.keyPieces.join('') : '';
          this.keyPieces = [];
          this.state = 'value';
        }
        return;
      case 'value':
        if (this.key === 'stdout' && t.name === 'startArray') {
          this.state = 'frames';
          return;
        }
        // A member (a `stdout` that is not an array is followed and dropped: it is never a variable).
        this.startValue(false, this.members && this.key !== 'stdout');
        if (this.asm!.push(t)) this.valueDone();
        return;
      case 'frames':
        if (t.name === 'endArray') {
          this.state = 'members';
          return;
        }
        this.startValue(true, true);
        if (this.asm!.push(t)) this.valueDone();
        return;
      case 'end':
        return; // the tokenizer refuses anything but whitespace after the object
    }
  }

  private startValue(frame: boolean, build: boolean): void {
    this.asmIsFrame = frame;
    // maxChars 0 refuses at the first character: the value is followed, never built.
    const maxChars = !build ? 0 : frame ? CAST_LINE_MAX : INFO_MAX_BYTES - this.headerChars;
    this.asm = new ValueAssembler({ maxDepth: JSON_MAX_DEPTH, maxChars });
  }

  private valueDone(): void {
    const asm = this.asm!;
    this.asm = null;
    if (this.asmIsFrame) {
      this.frame(asm);
      return;
    }
    this.state = 'members';
    if (!this.members || this.key === 'stdout') return;
    if (asm.tooDeep) throw new NotAsciicastV1(`header member "${this.key.slice(0, 64)}" nests deeper than ${JSON_MAX_DEPTH} levels`);
    if (asm.tooLarge) throw new NotAsciicastV1(`the header is larger than ${INFO_MAX_BYTES} bytes`);
    this.countHeader(asm.chars);
    this.out.push({ kind: 'member', key: this.key, value: asm.value });
  }

  private frame(asm: ValueAssembler): void {
    const index = this.frameIndex++;
    if (asm.tooDeep) return void this.out.push({ kind: 'bad-frame', index, why: `nests deeper than ${JSON_MAX_DEPTH} levels` });
    if (asm.tooLarge) return void this.out.push({ kind: 'bad-frame', index, why: `is longer than ${CAST_LINE_MAX} characters` });
    const f = asm.value;
    if (!Array.isArray(f) || typeof f[0] !== 'number' || !(f[0] >= 0) || typeof f[1] !== 'string') {
      return void this.out.push({ kind: 'bad-frame', index, why: 'is not [delay, data]' });
    }
    const delayNs = Math.round(f[0] * 1e9);
    if (!Number.isSafeInteger(delayNs)) return void this.out.push({ kind: 'bad-frame', index, why: 'has a delay out of range' });
    this.out.push({ kind: 'frame', delayNs, data: f[1] });
  }

  private countHeader(n: number): void {
    if (!this.members) return;
    this.headerChars += n;
    if (this.headerChars > INFO_MAX_BYTES) throw new NotAsciicastV1(`the header is larger than ${INFO_MAX_BYTES} bytes`);
  }
}

/**
 * The items of an asciicast v1 file, in batches (one per decoded chunk). Throws NotAsciicastV1
 * when it is not v1 (after yielding what came before), NOT_FOUND when the file does not exist.
 */
export async function* readV1(path: string, opts: { members: boolean; signal?: AbortSignal | undefined; onGzipError: (msg: string) => void }): AsyncGenerator<V1Item[]> {
  const decoded = await decodedChunks(path, opts.onGzipError);
  if (!decoded) throw evioError('NOT_FOUND', `${path} does not exist`);
  const parser = new V1Parser(opts.members);
  const utf8 = new StringDecoder('utf8');
  let first = true;
  for await (const chunk of decoded.chunks) {
    checkAborted(opts.signal);
    let text = utf8.write(chunk);
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const items = parser.feed(text);
    if (items.length > 0) yield items;
  }
  const rest = utf8.end();
  if (rest.length > 0) {
    const items = parser.feed(rest);
    if (items.length > 0) yield items;
  }
  const items = parser.feed(null);
  if (items.length > 0) yield items;
}
