// Raw answers (the `/iologfile` download: a session file as recorded, or a tar) that the CLI
// would write to a terminal: their bytes pass the terminal filter (src/replay/terminal-filter.ts),
// so a session file shown by `evio call` or `evio rest` cannot write the auditor's clipboard, set
// titles or make the terminal answer (docs/security.md). To a file or a pipe they stay as they are.
import { TerminalFilter } from '../replay/terminal-filter.js';

/** `chunks` through one terminal filter (a sequence split over chunks is judged whole). */
export async function* filterForTerminal(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  const filter = new TerminalFilter();
  for await (const c of chunks) {
    const out = filter.write(c);
    if (out.length) yield Buffer.from(out.buffer, out.byteOffset, out.length);
  }
  const tail = filter.end();
  if (tail.length) yield Buffer.from(tail.buffer, tail.byteOffset, tail.length);
}
