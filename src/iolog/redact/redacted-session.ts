// Redaction on the way out (docs/iolog.md, "Redaction"): a session read through the same masker
// the log server applies at ingest (masker.ts), so that a session recorded before the rules
// existed shows `*` where its secrets are — in chunks, replay, screens, search, the command
// timeline and exports alike, since all of them read a session's events.
//
// Every byte keeps its place (a secret becomes as many `*`), so positions and timing are those
// of the recording. The masker holds records back until enough bytes of their stream follow
// (a secret split over records, or over the pieces a read is cut into, is masked whole). A read
// of a range [from, to) starts HOLD_MAX_BYTES before `from` and goes on HOLD_MAX_BYTES past
// `to`, so a secret crossing either edge is seen whole and only the range is yielded. A redacted
// session does not resume from a seek keyframe (those hold screens of the unmasked bytes): it is
// read from its start, as an asciicast file is.
import type { RedactRule } from '../../settings-redact.js';
import type { SessionInfo, Variables } from '../log-info.js';
import type { EventOptions, IologSession, ScanResult, SessionEvent } from '../session.js';
import { STREAM_NAMES, type StreamName } from '../timing.js';
import { HOLD_MAX_BYTES, SessionMasker, type Delay, type IoStream, type MaskOptions } from './masker.js';

/** What a redacted read masks: the settings' rules and the log server's password prompt. Plain data (crosses to workers). */
export interface RedactView {
  rules: RedactRule[];
  maskPasswords: boolean;
  passprompt: string;
}

const OUTPUT_STREAMS: readonly StreamName[] = ['stdout', 'stderr', 'ttyout'];

/** The event travels with its record through the masker (which passes `delay` on as given). */
interface Tagged extends Delay {
  ev: SessionEvent;
}

export class RedactedSession implements IologSession {
  readonly resumable = false;

  constructor(
    private readonly inner: IologSession,
    private readonly view: RedactView,
  ) {}

  get path(): string {
    return this.inner.path;
  }
  get format(): 'sudo' | 'asciicast' {
    return this.inner.format;
  }
  get warnings(): string[] {
    return this.inner.warnings;
  }
  variables(): Promise<Variables> {
    return this.inner.variables();
  }
  info(): Promise<SessionInfo> {
    return this.inner.info();
  }
  complete(): Promise<boolean> {
    return this.inner.complete();
  }
  scan(signal?: AbortSignal): Promise<ScanResult> {
    return this.inner.scan(signal);
  }

  async *events(opts: EventOptions = {}): AsyncGenerator<SessionEvent> {
    const from = opts.from ?? 0;
    const to = opts.to ?? Infinity;
    const wanted = opts.streams;
    // A typed password is recognised by the prompt before it: output is read when input is.
    let streams = wanted;
    if (wanted && this.view.maskPasswords && (wanted.has('ttyin') || wanted.has('stdin'))) streams = new Set([...wanted, ...OUTPUT_STREAMS]);
    const out: SessionEvent[] = [];
    const masker = new SessionMasker(
      {
        writeIo: (_stream, delay, data) => {
          const ev = (delay as Tagged).ev;
          if (ev.kind === 'data') out.push({ ...ev, bytes: data });
        },
        writeWinsize: (delay) => out.push((delay as Tagged).ev),
        writeSuspend: (delay) => out.push((delay as Tagged).ev),
      },
      { rules: this.view.rules, maskPasswords: this.view.maskPasswords, passprompt: this.view.passprompt },
    );
    const inner = this.inner.events({
      from: Math.max(0, from - HOLD_MAX_BYTES),
      to: to + HOLD_MAX_BYTES,
      ...(streams ? { streams } : {}),
      ...(opts.maxRecords !== undefined ? { maxRecords: opts.maxRecords } : {}),
      ...(opts.untilMs !== undefined ? { untilMs: opts.untilMs } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const drain = function* (): Generator<SessionEvent> {
      while (out.length > 0) {
        const ev = out.shift()!;
        if (ev.kind !== 'data') {
          if (ev.pos <= to) yield ev;
          continue;
        }
        if (wanted && !wanted.has(ev.stream)) continue;
        const end = ev.pos + ev.bytes.length;
        if (end <= from || ev.pos >= to) continue;
        const lo = Math.max(ev.pos, from);
        const hi = Math.min(end, to);
        const bytes = lo === ev.pos && hi === end ? ev.bytes : ev.bytes.subarray(lo - ev.pos, hi - ev.pos);
        yield { ...ev, pos: lo, bytes, first: ev.first || (ev.pos <= from && end > from) };
      }
    };
    for await (const ev of inner) {
      const tag: Tagged = { sec: ev.sec, nsec: ev.nsec, ev };
      if (ev.kind === 'data') {
        const bytes = Buffer.from(ev.bytes.buffer, ev.bytes.byteOffset, ev.bytes.byteLength);
        masker.push({ kind: 'io', stream: STREAM_NAMES.indexOf(ev.stream) as IoStream, delay: tag, data: bytes });
      } else {
        masker.push({ kind: 'suspend', delay: tag, signal: '' });
      }
      yield* drain();
    }
    masker.flush();
    yield* drain();
  }
}

/** The session as the view shows it: itself when the view masks nothing. */
export function redacted(session: IologSession, view: RedactView | undefined): IologSession {
  if (!view || SessionMasker.idle(view)) return session;
  return new RedactedSession(session, view);
}
