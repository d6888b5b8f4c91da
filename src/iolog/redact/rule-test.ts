// `evio redact test RULES FILE`: what the rules would mask in a session or a plain file, told
// without the secrets. The same masker the log server and redacted reads use (masker.ts) runs
// twice over the bytes: the first pass finds the matches (rule, stream, offset, length), the
// second takes each match's surroundings from the masked bytes, so a preview shows the context
// and `*` where the match was, never the matched bytes.
import { SessionMasker, type IoStream, type MaskOptions } from './masker.js';
import type { RedactRule } from '../../settings-redact.js';

export interface TestPiece {
  stream: IoStream;
  data: Uint8Array;
}

/** Reads the bytes again from the start (called once per pass). */
export type PieceSource = () => AsyncIterable<TestPiece>;

export interface RuleHit {
  rule: string;
  stream: IoStream;
  /** Byte offset of the match in its stream. */
  offset: number;
  length: number;
  /** Masked surroundings: up to CONTEXT bytes each side, the match as `*` (long ones shortened). */
  preview: string;
}

export interface RuleTestResult {
  hits: RuleHit[];
  /** More matches than were listed (`max`). */
  more: boolean;
  /** Matches per rule, as the log server counts them ("password": lines typed after a prompt). */
  counts: Record<string, number>;
}

const CONTEXT = 24;
const SHOWN_STARS = 32;
const NO_DELAY = { sec: 0, nsec: 0 };

export async function testRules(rules: readonly RedactRule[], source: PieceSource, opts: { maskPasswords: boolean; passprompt: string; max: number; signal?: AbortSignal }): Promise<RuleTestResult> {
  const found = new Map<string, { rule: string; stream: IoStream; offset: number; length: number }>();
  const maskOptions = (onHit?: MaskOptions['onHit']): MaskOptions => ({ rules, maskPasswords: opts.maskPasswords, passprompt: opts.passprompt, ...(onHit ? { onHit } : {}) });
  const sink = (writeIo: (stream: IoStream, data: Uint8Array) => void) => ({ writeIo: (s: IoStream, _d: unknown, data: Uint8Array) => writeIo(s, data), writeWinsize() {}, writeSuspend() {} });

  // Pass 1: the matches. A match seen again (longer, as its bytes arrived) keeps its longest length.
  const first = new SessionMasker(
    sink(() => undefined),
    maskOptions((rule, stream, offset, length) => {
      const key = `${rule}\u0000${stream}\u0000${offset}`;
      const had = found.get(key);
      if (had) had.length = Math.max(had.length, length);
      else found.set(key, { rule, stream, offset, length });
    }),
  );
  for await (const p of source()) {
    opts.signal?.throwIfAborted();
    first.push({ kind: 'io', stream: p.stream, delay: NO_DELAY, data: Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength) });
  }
  first.flush();
  const all = [...found.values()].sort((a, b) => a.stream - b.stream || a.offset - b.offset || a.rule.localeCompare(b.rule));
  const listed = all.slice(0, opts.max);

  // Pass 2: the masked bytes around each listed match.
  const before = listed.map(() => [] as number[]);
  const after = listed.map(() => [] as number[]);
  const emitted = [0, 0, 0, 0, 0];
  const second = new SessionMasker(
    sink((stream, data) => {
      const e0 = emitted[stream]!;
      const e1 = e0 + data.length;
      emitted[stream] = e1;
      listed.forEach((h, i) => {
        if (h.stream !== stream) return;
        take(data, e0, e1, h.offset - CONTEXT, h.offset, before[i]!);
        take(data, e0, e1, h.offset + h.length, h.offset + h.length + CONTEXT, after[i]!);
      });
    }),
    maskOptions(),
  );
  if (listed.length > 0) {
    for await (const p of source()) {
      opts.signal?.throwIfAborted();
      second.push({ kind: 'io', stream: p.stream, delay: NO_DELAY, data: Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength) });
    }
    second.flush();
  }
  const hits = listed.map((h, i) => {
    const stars = '*'.repeat(Math.min(h.length, SHOWN_STARS)) + (h.length > SHOWN_STARS ? `…(${h.length} bytes)` : '');
    return { ...h, preview: Buffer.from(before[i]!).toString('latin1') + stars + Buffer.from(after[i]!).toString('latin1') };
  });
  return { hits, more: all.length > listed.length, counts: Object.fromEntries(first.hits) };
}

/** Appends the bytes of [lo, hi) that the piece [e0, e1) holds. */
function take(data: Uint8Array, e0: number, e1: number, lo: number, hi: number, into: number[]): void {
  const s = Math.max(lo, e0);
  const e = Math.min(hi, e1);
  for (let at = s; at < e; at++) into.push(data[at - e0]!);
}
