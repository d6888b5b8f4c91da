// `evio call METHOD 'PATH?QUERY' [--data JSON]`: one request through the same handlers as the
// service, in-process: no signature, but the same settings, roots and validation.
import { dispatch } from '../app/router.js';
import { queryFromSearch } from '../app/query-params.js';
import { filterForTerminal } from '../app/terminal-output.js';
import type { ApiResponse } from '../app/types.js';
import { usageError, type CliCommand, type CliIo } from './io.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';

const HELP = `Usage: evio call METHOD 'PATH?QUERY' [--data JSON] [--raw] [--unredacted]

Runs one REST request through the service's handlers in-process and prints the JSON body.
Exits 0 when the answer's status is 0.
A raw answer (GET /REST/iologfile: a session file as recorded) written to a terminal passes the
terminal filter: what the recorded user could aim at this terminal (clipboard, titles, links,
queries) is dropped. To a file or a pipe it is written as it is; --raw writes it as it is always.
I/O-log calls read through the redact setting's rules (what they match reads as *);
--unredacted reads the sessions as recorded, as a keystore app with "unredacted": true does.

Example:
  evio call GET '/REST/v2.0/events?format=ff&file=events.ndjson&runuser=root&limit=3'
  evio call DELETE '/REST/v2.0/events?format=db&to=2026/01/31'`;

/**
 * Writes a response body to `out`; returns the answer's status code (0 = success). A raw answer
 * goes through the terminal filter when `out` is a terminal, unless `raw`.
 */
export async function writeResponse(res: ApiResponse, out: CliIo['out'], options: { raw?: boolean } = {}): Promise<number> {
  const write = (s: string | Buffer) => new Promise<void>((resolve, reject) => out.write(s, (err) => (err ? reject(err) : resolve())));
  if (res.kind === 'json') {
    await write(`${JSON.stringify(res.body)}\n`);
    return typeof res.body.status === 'number' ? res.body.status : 0;
  }
  if (res.kind === 'json-stream') {
    for await (const chunk of res.chunks) await write(chunk);
    await write('\n');
    return res.status();
  }
  const stream = out.isTTY && !options.raw ? filterForTerminal(res.stream as AsyncIterable<Uint8Array>) : res.stream;
  for await (const chunk of stream) await write(chunk as Buffer);
  return 0;
}

export const callCommand: CliCommand = {
  name: 'call',
  summary: 'run one REST request in-process (no signature) and print the JSON',
  async run(argv, io) {
    if (wantsHelp(argv, HELP, io.out)) return 0;
    const f = parseFlags(argv, { command: 'call', values: ['data'], switches: ['raw', 'unredacted'], positionals: 2 });
    const [method, target] = f.positionals;
    if (!method || !target) throw usageError(`call needs METHOD and PATH\n\n${HELP}`);
    const url = new URL(target, 'http://local');
    const data = strFlag(f, 'data');
    let body: unknown;
    if (data !== undefined) {
      try {
        body = JSON.parse(data);
      } catch {
        throw usageError('--data must be JSON');
      }
    }
    const res = await dispatch(io.engine(), {
      method: method.toUpperCase(),
      path: url.pathname,
      query: queryFromSearch(url.searchParams),
      body,
      signal: io.signal,
      remote: 'local',
      unredacted: f.bools.has('unredacted'),
    });
    const status = await writeResponse(res, io.out, { raw: f.bools.has('raw') });
    return status === 0 ? 0 : 1;
  },
};
