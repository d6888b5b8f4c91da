// Export of a session as a text transcript: the lines its output showed (ttyout, stdout,
// stderr), each once, as the search reads them (the replay module's screen model: overwrites
// resolved, cursor moves applied, full-screen repaints not repeated), in the order they stood
// complete on screen, each after its time since the session start: `[m:ss.s] text`. No escape
// sequence reaches the file, so it can be read with any pager or attached to a report.
// Streamed line by line with the writable's back-pressure; memory is the screen model's.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { textExtractorFactory, type TextExtractor } from './text-factory.js';
import { checkAborted, type IologSession, type StreamName } from './session.js';

const OUTPUT: ReadonlySet<StreamName> = new Set<StreamName>(['ttyout', 'stdout', 'stderr']);

/** Milliseconds as m:ss.s (h:mm:ss.s from an hour on). */
export function transcriptClock(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = (s % 60).toFixed(1).padStart(4, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

export async function exportText(session: IologSession, out: Writable, signal?: AbortSignal): Promise<{ lines: number }> {
  const info = await session.info();
  const make = await textExtractorFactory();
  const extractors = new Map<StreamName, TextExtractor>();
  let lines = 0;
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const emit = async (ls: readonly { text: string; timeMs: number; endMs?: number }[]): Promise<void> => {
    for (const l of ls) {
      lines++;
      await write(`[${transcriptClock(l.endMs ?? l.timeMs)}] ${l.text}\n`);
    }
  };
  let n = 0;
  const events = session.events({ signal, streams: OUTPUT });
  try {
    for await (const ev of events) {
      if ((++n & 255) === 0) checkAborted(signal);
      if (ev.kind === 'winch') {
        for (const x of extractors.values()) x.resize(ev.cols, ev.rows);
        continue;
      }
      if (ev.kind !== 'data' || !OUTPUT.has(ev.stream)) continue;
      let x = extractors.get(ev.stream);
      if (!x) extractors.set(ev.stream, (x = make({ cols: info.cols, rows: info.rows, stream: ev.stream })));
      x.write(ev.bytes, ev.sec * 1000 + ev.nsec / 1e6, ev.first);
      await emit(x.takeLines());
    }
  } finally {
    await events.return(undefined);
  }
  for (const x of extractors.values()) await emit(x.end());
  return { lines };
}
