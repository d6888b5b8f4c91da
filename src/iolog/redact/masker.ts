// Redaction of terminal data before it is written (docs/logserver.md, "Redaction"): the records of
// a session pass through here on their way to the I/O-log writer, and what they carry of a secret
// is replaced by `*`, byte for byte, so every byte count of the timing file stays true.
//
// Two kinds of masking:
// - typed passwords, as sudo_logsrvd's log_passwords=false: after the terminal's output leaves
//   the cursor on a line matching passprompt (default `[Pp]assword[: ]*`), tty input is masked
//   until a CR or LF is typed or the terminal writes output again;
// - rules: named regular expressions over the input streams (stdin, ttyin), the output streams
//   (stdout, stderr, ttyout) or both, matched over each stream's bytes read as Latin-1 (a byte
//   per character, so offsets are byte offsets).
// A secret can be split over records (sudo sends what each read() returned). Records are held
// back until REDACT_MAX_MATCH more bytes of their stream have arrived, or the queue holds more
// than HOLD_MAX_BYTES, or the caller flushes (a commit point, the exit): a match is masked
// wherever it lies in the held bytes, and records leave in the order they came. The hold happens
// in memory only; the writer sees masked records.
import { REDACT_MAX_MATCH, type RedactRule } from '../../settings-redact.js';

export type IoStream = 0 | 1 | 2 | 3 | 4;

export interface Delay {
  sec: number;
  nsec: number;
}

export type MaskRecord =
  | { kind: 'io'; stream: IoStream; delay: Delay; data: Buffer }
  | { kind: 'winsize'; delay: Delay; rows: number; cols: number }
  | { kind: 'suspend'; delay: Delay; signal: string };

/** Where released records go (the I/O-log writer's record calls). */
export interface MaskSink {
  writeIo(stream: IoStream, delay: Delay, data: Uint8Array): void;
  writeWinsize(delay: Delay, rows: number, cols: number): void;
  writeSuspend(delay: Delay, signal: string): void;
}

export interface MaskOptions {
  rules: readonly RedactRule[];
  /** Mask tty input typed after a password prompt (sudo_logsrvd's log_passwords=false). */
  maskPasswords: boolean;
  /** The prompt, matched at the end of the terminal's output (sudo_logsrvd's passprompt_regex). */
  passprompt: string;
  /**
   * Called for each match masked (`redact test`): the rule ("password" for a typed password),
   * the stream, the match's offset in that stream's bytes and its length; never the bytes. A
   * rule's match may be reported more than once (the same offset, as long or longer).
   */
  onHit?: (rule: string, stream: IoStream, offset: number, length: number) => void;
}

/** Bytes held back at most before the oldest record is released anyway. */
export const HOLD_MAX_BYTES = 4 * REDACT_MAX_MATCH;
/** Output kept to recognise a prompt at its end. */
const PROMPT_TAIL = 256;
const STAR = 0x2a;

interface Compiled {
  name: string;
  re: RegExp;
  streams: ReadonlySet<IoStream>;
}

/** One stream's held bytes: the records' buffers in order, their absolute start offsets. */
interface Held {
  /** Absolute offset (bytes of this stream since the session began) of the first held byte. */
  base: number;
  bufs: Buffer[];
  /**
   * The same bytes before any rule masked them: the rules match these, so a match that grows as
   * bytes arrive ("Bearer abc" + "def...") is seen whole, not cut short by its own stars.
   */
  orig: Buffer[];
  /** Total held bytes. */
  length: number;
  /** Absolute offsets of matches already counted, per rule (a masked match is not counted twice). */
  counted: Map<string, Set<number>>;
}

export class SessionMasker {
  private readonly rules: Compiled[];
  /** Per stream: some rule looks at it (its records are held back). */
  private readonly ruled: boolean[];
  private readonly prompt: RegExp | null;
  private readonly queue: MaskRecord[] = [];
  private queuedBytes = 0;
  private readonly held = new Map<IoStream, Held>();
  private masking = false;
  private outputTail = '';
  /** Bytes pushed so far, per stream (offsets reported to onHit). */
  private readonly pushed = [0, 0, 0, 0, 0];
  /** The typed password being masked: its start offset in ttyin and length so far. */
  private pwSpan: { offset: number; length: number } | null = null;
  private readonly onHit: MaskOptions['onHit'];
  /** Matches masked, per rule name (and "password" for typed passwords, counted per line). */
  readonly hits = new Map<string, number>();

  constructor(
    private readonly sink: MaskSink,
    opts: MaskOptions,
  ) {
    this.rules = opts.rules.map((r) => ({
      name: r.name,
      re: new RegExp(r.pattern, 'g'),
      streams: new Set<IoStream>(r.on === 'input' ? [0, 3] : r.on === 'output' ? [1, 2, 4] : [0, 1, 2, 3, 4]),
    }));
    this.ruled = [0, 1, 2, 3, 4].map((i) => this.rules.some((r) => r.streams.has(i as IoStream)));
    this.prompt = opts.maskPasswords ? new RegExp(opts.passprompt) : null;
    this.onHit = opts.onHit;
  }

  /** True when nothing would be masked: the caller may skip the masker. */
  static idle(opts: MaskOptions): boolean {
    return opts.rules.length === 0 && !opts.maskPasswords;
  }

  /** Takes one record; records whose bytes can no longer be part of a match go on to the sink. */
  push(rec: MaskRecord): void {
    if (rec.kind === 'io') {
      const ruled = this.ruled[rec.stream];
      // The record's bytes are the caller's (a view of a frame): a copy when they are masked in
      // place or held; passed through as they are otherwise.
      const data = ruled || this.queue.length > 0 || (rec.stream === 3 && this.masking) ? Buffer.from(rec.data) : rec.data;
      this.typedPassword(rec.stream, data, this.pushed[rec.stream]!);
      this.pushed[rec.stream]! += data.length;
      const mine: MaskRecord = { kind: 'io', stream: rec.stream, delay: rec.delay, data };
      if (ruled) {
        this.hold(rec.stream, data);
        this.queue.push(mine);
        this.queuedBytes += data.length;
        this.release(false);
        return;
      }
      if (this.queue.length === 0) this.emit(mine);
      else {
        this.queue.push(mine);
        this.queuedBytes += data.length;
      }
      return;
    }
    if (this.queue.length === 0) this.emit(rec);
    else this.queue.push(rec);
  }

  /** Releases every held record (a commit point or the end of the session). */
  flush(): void {
    this.endPassword();
    this.release(true);
  }

  /** Bytes held back now. */
  get holding(): number {
    return this.queuedBytes;
  }

  /** Reports the typed password masked so far (its line ended). */
  private endPassword(): void {
    if (this.pwSpan && this.pwSpan.length > 0) this.onHit?.('password', 3, this.pwSpan.offset, this.pwSpan.length);
    this.pwSpan = null;
  }

  private typedPassword(stream: IoStream, data: Buffer, offset: number): void {
    if (!this.prompt) return;
    if (stream === 3) {
      if (!this.masking) return;
      for (let i = 0; i < data.length; i++) {
        const b = data[i]!;
        if (b === 0x0d || b === 0x0a) {
          this.masking = false;
          this.endPassword();
          return;
        }
        data[i] = STAR;
        if (this.onHit) {
          if (this.pwSpan && this.pwSpan.offset + this.pwSpan.length === offset + i) this.pwSpan.length++;
          else {
            this.endPassword();
            this.pwSpan = { offset: offset + i, length: 1 };
          }
        }
      }
      return;
    }
    if (stream !== 4 && stream !== 1 && stream !== 2) return;
    // Output ends a masked line, and may itself end in a prompt.
    this.masking = false;
    this.endPassword();
    this.outputTail = (this.outputTail + data.toString('latin1')).slice(-PROMPT_TAIL);
    // A prompt is on the line the cursor is on: the output after its last line break. Matched
    // anywhere in that line, as sudo_logsrvd matches it ("[sudo] password for alice: "), but not
    // in lines already ended ("Password changed.\r\n$ " asks for nothing).
    const line = this.outputTail.slice(Math.max(this.outputTail.lastIndexOf('\n'), this.outputTail.lastIndexOf('\r')) + 1);
    if (line !== '' && this.prompt.test(line)) {
      this.masking = true;
      this.hits.set('password', (this.hits.get('password') ?? 0) + 1);
    }
  }

  private hold(stream: IoStream, data: Buffer): void {
    let h = this.held.get(stream);
    if (!h) {
      h = { base: 0, bufs: [], orig: [], length: 0, counted: new Map() };
      this.held.set(stream, h);
    }
    h.bufs.push(data);
    h.orig.push(Buffer.from(data));
    h.length += data.length;
    this.scan(stream, h, data.length);
  }

  /**
   * Masks every match of the stream's rules that includes one of the `added` newest bytes: such a
   * match starts at most REDACT_MAX_MATCH bytes before them, so only that tail is read.
   */
  private scan(stream: IoStream, h: Held, added: number): void {
    const from = Math.max(0, h.length - added - REDACT_MAX_MATCH);
    let skip = from;
    let first = 0;
    while (first < h.orig.length && skip >= h.orig[first]!.length) skip -= h.orig[first++]!.length;
    const tail = Buffer.concat(h.orig.slice(first));
    const text = tail.toString('latin1', skip);
    for (const r of this.rules) {
      if (!r.streams.has(stream)) continue;
      r.re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = r.re.exec(text)) !== null) {
        if (m[0].length === 0) {
          r.re.lastIndex++;
          continue;
        }
        const start = from + m.index;
        this.mask(h, start, start + m[0].length);
        let seen = h.counted.get(r.name);
        if (!seen) h.counted.set(r.name, (seen = new Set()));
        if (!seen.has(h.base + start)) {
          seen.add(h.base + start);
          this.hits.set(r.name, (this.hits.get(r.name) ?? 0) + 1);
        }
        // Every time it is seen: a match that grows as bytes arrive is reported again, longer.
        this.onHit?.(r.name, stream, h.base + start, m[0].length);
      }
    }
  }

  private mask(h: Held, from: number, to: number): void {
    let at = 0;
    for (const b of h.bufs) {
      const s = Math.max(from, at);
      const e = Math.min(to, at + b.length);
      if (s < e) b.fill(STAR, s - at, e - at);
      at += b.length;
      if (at >= to) break;
    }
  }

  /** Sends records from the head of the queue while they can no longer be part of a match. */
  private release(all: boolean): void {
    while (this.queue.length > 0) {
      const rec = this.queue[0]!;
      if (rec.kind === 'io' && !all && this.queuedBytes <= HOLD_MAX_BYTES) {
        const h = this.held.get(rec.stream);
        // Bytes of this stream after the record: enough to hold any match that starts in it.
        if (h && h.bufs[0] === rec.data && h.length - rec.data.length < REDACT_MAX_MATCH) break;
      }
      this.queue.shift();
      if (rec.kind === 'io') {
        this.queuedBytes -= rec.data.length;
        const h = this.held.get(rec.stream);
        if (h && h.bufs[0] === rec.data) {
          h.bufs.shift();
          h.orig.shift();
          h.length -= rec.data.length;
          h.base += rec.data.length;
          for (const seen of h.counted.values()) for (const off of seen) if (off < h.base) seen.delete(off);
        }
      }
      this.emit(rec);
    }
  }

  private emit(rec: MaskRecord): void {
    if (rec.kind === 'io') this.sink.writeIo(rec.stream, rec.delay, rec.data);
    else if (rec.kind === 'winsize') this.sink.writeWinsize(rec.delay, rec.rows, rec.cols);
    else this.sink.writeSuspend(rec.delay, rec.signal);
  }
}
