// Export of a session as asciicast v2 (plays in asciinema's player): a header with width,
// height, timestamp, command and env.TERM, then `[seconds, "o"|"i"|"r", data]` lines. Output
// streams (ttyout, stdout, stderr) become "o", input streams "i", window changes "r" with
// "COLSxROWS". Bytes are decoded as UTF-8 per stream, keeping characters split across records
// whole. As sudoreplay does on a terminal, a bare LF in stdout/stderr (no tty, so no output
// post-processing) is written as CR LF so the player shows lines as the user saw them.
// An asciicast source keeps its `title` and its exit events (v3's "x", written as "x" lines:
// players of v2 ignore codes they do not know, as the format asks).
//
// `asciinema play` writes the "o" events to the terminal of whoever watches, so their bytes pass
// the terminal filter first (src/replay/terminal-filter.ts, one filter per stream so that a
// sequence split over records is judged whole): no clipboard write, title, hyperlink or query of
// the recorded user reaches the viewer's terminal. `raw` exports the bytes as recorded. "i"
// events (the keys typed) are kept as recorded: players do not write them to the terminal.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { TerminalFilter } from '../replay/terminal-filter.js';
import { checkAborted, type IologSession, type StreamName } from './session.js';

function seconds(sec: number, nsec: number): string {
  return `${sec}.${String(Math.floor(nsec / 1000)).padStart(6, '0')}`;
}

export interface ExportStats {
  events: number;
}

export interface ExportOptions {
  /** Output bytes as recorded, without the terminal filter. */
  raw?: boolean;
}

export async function exportAsciicast(session: IologSession, out: Writable, signal?: AbortSignal, options: ExportOptions = {}): Promise<ExportStats> {
  const info = await session.info();
  const header: Record<string, unknown> = { version: 2, width: info.cols, height: info.rows, timestamp: info.startSec };
  if (info.runcmd) header.command = info.runcmd;
  const title = session.format === 'asciicast' ? (await session.variables()).title : undefined;
  if (typeof title === 'string') header.title = title;
  header.env = { TERM: info.term };
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  await write(`${JSON.stringify(header)}\n`);
  const decoders = new Map<StreamName, TextDecoder>();
  const lastCr = new Map<StreamName, boolean>();
  const filters = new Map<StreamName, TerminalFilter>();
  let events = 0;
  let n = 0;
  for await (const ev of session.events({ signal })) {
    if ((++n & 255) === 0) checkAborted(signal);
    const t = seconds(ev.sec, ev.nsec);
    if (ev.kind === 'winch') {
      await write(`[${t}, "r", "${ev.cols}x${ev.rows}"]\n`);
      events++;
      continue;
    }
    if (ev.kind === 'marker') {
      await write(`[${t}, "m", ${JSON.stringify(ev.label)}]\n`);
      events++;
      continue;
    }
    if (ev.kind === 'exit') {
      await write(`[${t}, "x", ${JSON.stringify(ev.status)}]\n`);
      events++;
      continue;
    }
    if (ev.kind !== 'data') continue;
    const input = ev.stream === 'ttyin' || ev.stream === 'stdin';
    let bytes = ev.bytes;
    if (!input && !options.raw) {
      let f = filters.get(ev.stream);
      if (!f) {
        f = new TerminalFilter();
        filters.set(ev.stream, f);
      }
      bytes = f.write(bytes);
    }
    let d = decoders.get(ev.stream);
    if (!d) {
      d = new TextDecoder('utf-8', { fatal: false });
      decoders.set(ev.stream, d);
    }
    let text = d.decode(bytes, { stream: true });
    if (text === '') continue;
    if (ev.stream === 'stdout' || ev.stream === 'stderr') {
      const prevCr = lastCr.get(ev.stream) ?? false;
      const raw = text;
      text = raw.replace(/(?<!\r)\n/g, '\r\n');
      if (prevCr && raw.startsWith('\n')) text = text.slice(1); // its CR ended the previous piece
      lastCr.set(ev.stream, raw.endsWith('\r'));
    }
    const code = input ? 'i' : 'o';
    await write(`[${t}, "${code}", ${JSON.stringify(text)}]\n`);
    events++;
  }
  return { events };
}
