// Export of a session as asciicast (plays in asciinema's player): v2 for a sudo session (a
// header with width, height, timestamp, command and env.TERM when log.json has one) and for a
// v1/v2 cast, v3 for a v3 cast (a cast keeps every header field asciinema defines, and gets no
// other), then `[seconds, "o"|"i"|"r", data]` lines (v3: seconds since the previous event). Output
// streams (ttyout, stdout, stderr) become "o", input streams "i", window changes "r" with
// "COLSxROWS". Bytes are decoded as UTF-8 per stream, keeping characters split across records
// whole. As sudoreplay does on a terminal, a bare LF in stdout/stderr (no tty, so no output
// post-processing) is written as CR LF so the player shows lines as the user saw them.
// An asciicast source keeps its markers and its exit events (v3's "x", written as "x" lines:
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
import { envValue } from './log-info.js';
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

/** Header fields asciinema defines, in its order: v2 (also v1's, which are a subset) and v3. */
const V2_FIELDS = ['width', 'height', 'timestamp', 'duration', 'idle_time_limit', 'command', 'title', 'env', 'theme'] as const;
const V3_FIELDS = ['term', 'timestamp', 'idle_time_limit', 'command', 'title', 'env', 'tags'] as const;

/**
 * The header of the export. An asciicast source keeps its version (v1 becomes v2, the same
 * fields) and every header field the format defines, as it has them: nothing is dropped and
 * nothing added (a cast without env.TERM gets none). A sudo session's header comes from its
 * log.json: size, start, command, and env.TERM only when runenv or submitenv has TERM.
 */
async function exportHeader(session: IologSession): Promise<Record<string, unknown>> {
  const info = await session.info();
  if (session.format === 'asciicast') {
    const v = await session.variables();
    const has = (k: string) => Object.prototype.hasOwnProperty.call(v, k);
    if (v.version === 3) {
      const header: Record<string, unknown> = { version: 3 };
      for (const k of V3_FIELDS) if (has(k)) header[k] = v[k];
      return header;
    }
    // v2 needs width and height; a v1 file without them gets the size the reader uses.
    const header: Record<string, unknown> = { version: 2, width: info.cols, height: info.rows };
    for (const k of V2_FIELDS) if (has(k)) header[k] = v[k];
    return header;
  }
  const header: Record<string, unknown> = { version: 2, width: info.cols, height: info.rows, timestamp: info.startSec };
  if (info.runcmd) header.command = info.runcmd;
  const v = await session.variables();
  const term = envValue(v.runenv, 'TERM') || envValue(v.submitenv, 'TERM');
  if (term) header.env = { TERM: term };
  return header;
}

export async function exportAsciicast(session: IologSession, out: Writable, signal?: AbortSignal, options: ExportOptions = {}): Promise<ExportStats> {
  const header = await exportHeader(session);
  // v3 writes each event's time as the interval since the previous one (both cut to µs first,
  // so the intervals add up to the same times a v2 export writes).
  const v3 = header.version === 3;
  let prevUs = 0;
  const stamp = (sec: number, nsec: number): string => {
    if (!v3) return seconds(sec, nsec);
    const us = sec * 1e6 + Math.floor(nsec / 1000);
    const d = Math.max(0, us - prevUs);
    prevUs = Math.max(prevUs, us);
    return seconds(Math.floor(d / 1e6), (d % 1e6) * 1000);
  };
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
    if (ev.kind === 'winch') {
      await write(`[${stamp(ev.sec, ev.nsec)}, "r", "${ev.cols}x${ev.rows}"]\n`);
      events++;
      continue;
    }
    if (ev.kind === 'marker') {
      await write(`[${stamp(ev.sec, ev.nsec)}, "m", ${JSON.stringify(ev.label)}]\n`);
      events++;
      continue;
    }
    if (ev.kind === 'exit') {
      await write(`[${stamp(ev.sec, ev.nsec)}, "x", ${JSON.stringify(ev.status)}]\n`);
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
    await write(`[${stamp(ev.sec, ev.nsec)}, "${code}", ${JSON.stringify(text)}]\n`);
    events++;
  }
  return { events };
}
