// A recorded session as the tests replay it: output bytes and window changes, in order.

export type SessionEvent =
  | { kind: 'data'; bytes: Uint8Array; timeMs: number }
  | { kind: 'resize'; cols: number; rows: number; timeMs: number };

const encoder = new TextEncoder();

/** Builds events from strings (UTF-8 encoded), numbers-as-bytes arrays and resizes. */
export class SessionBuilder {
  readonly events: SessionEvent[] = [];
  private t = 0;

  text(s: string): this {
    this.events.push({ kind: 'data', bytes: encoder.encode(s), timeMs: this.t++ });
    return this;
  }

  bytes(b: ArrayLike<number>): this {
    this.events.push({ kind: 'data', bytes: Uint8Array.from(b), timeMs: this.t++ });
    return this;
  }

  resize(cols: number, rows: number): this {
    this.events.push({ kind: 'resize', cols, rows, timeMs: this.t++ });
    return this;
  }
}

/** All data bytes of a session concatenated (resizes dropped). */
export function concatData(events: SessionEvent[]): Uint8Array {
  const parts = events.filter((e): e is Extract<SessionEvent, { kind: 'data' }> => e.kind === 'data').map((e) => e.bytes);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
