// `evio demo`: the main job on the embedded default, no server needed. Fills the data folder
// with a generated flat-file log (once), copies it into the default SQLite database, and
// answers a few typical auditor questions through the same handlers the service uses.
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { iologScreen } from '../app/iolog.js';
import { mkdir } from 'node:fs/promises';
import { relative } from 'node:path';
import { dispatch } from '../app/router.js';
import { copyEvents } from '../app/events.js';
import { generateCommand } from './generate.js';
import { runGenerateSessions } from './generate-sessions.js';
import { queryFromSearch } from '../app/query-params.js';
import { writeResponse } from './call.js';
import { intFlag, parseFlags, wantsHelp } from './flags.js';
import { progress, progressDone, type CliCommand } from './io.js';

const HELP = `Usage: evio demo [--count N]

Generates N events (default 100000) into the data folder's flat-file log if it is empty, with
the recorded session of each keystroke (K) event under the first I/O log root (about 300: the
other would-be K events are plain accepts), copies them into the default SQLite event
database, and prints the answers to a few queries. Every K event's iolog field names a session
that exists (shells show a prompt and commands typed and run).

Example:
  EVIO_HOME=/tmp/evio evio demo --count 20000`;

/** Sessions the demo's events point at (each a small directory). */
const DEMO_SESSIONS = 300;

/** The iolog path of the first K record of an interactive root bash in the flat file. */
async function firstRootShell(eventlog: string): Promise<string | null> {
  const lines = createInterface({ input: createReadStream(eventlog), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (!line.includes('"etype":"K"') || !line.includes('"runuser":"root"')) continue;
      const r = JSON.parse(line) as { runcommand?: string; runargv?: string[]; iolog?: string };
      if (r.runcommand === '/bin/bash' && r.iolog && !r.runargv?.includes('-c')) return r.iolog;
    }
  } finally {
    lines.close();
  }
  return null;
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'fill the default data folder and answer sample queries (flat file + SQLite)',
  async run(argv, io) {
    if (wantsHelp(argv, HELP, io.out)) return 0;
    const f = parseFlags(argv, { command: 'demo', values: ['count'] });
    const engine = io.engine();
    const s = engine.settings;
    await mkdir(s.home, { recursive: true });
    const count = intFlag(f, 'count', 100_000);
    const iologRoot = s.iologdirs[0]!;
    if (!existsSync(s.eventlog)) {
      await generateCommand.run(['events', '--count', String(count), '--seed', '1', '--out', s.eventlog, '--iolog-root', iologRoot, '--max-sessions', String(DEMO_SESSIONS)], io);
    }
    const copied = await copyEvents(engine, { from: `ff:${s.eventlog}`, to: `db:${s.eventdb}`, signal: io.signal, onProgress: (p) => progress(io, `SQLite: ${p.written} new records`) });
    progressDone(io);
    io.err.write(`flat file ${s.eventlog} -> SQLite ${s.eventdb}: ${copied.written} new, ${copied.skipped} already there\n`);
    if (!existsSync(iologRoot) || readdirSync(iologRoot).length === 0) {
      await runGenerateSessions(['--count', '30', '--seed', '1', '--out', iologRoot], io);
    }
    const file = relative(s.eventlogdirs[0]!, s.eventlog);
    const questions: [string, string][] = [
      ['Who ran a root shell from web hosts, and how did it end? (flat file)', `/REST/v2.0/events?format=ff&file=${encodeURIComponent(file)}&runuser=root&runcommand=/bin/bash&submithost=web*&limit=3`],
      ['The latest failed commands (SQLite, newest first)', '/REST/v2.0/events?format=db&exitstatus=*exit%20status%20[1-9]*&order=epoch&orderdirection=desc&limit=3'],
      ['Rejected requests of one day (SQLite)', '/REST/v2.0/events?etype=R&from=2026/01/02&to=2026/01/02&limit=3'],
      ['Legacy listing of keystroke sessions (flat file)', `/REST/events?file=${encodeURIComponent(file)}&accept=0&reject=0&limit=2`],
      ['Recorded sessions run as root (cached I/O log index)', '/REST/iolog/list?runuser=root&len=2'],
      ['Which sessions showed a private key file on screen?', '/REST/iolog/search?file=**&query=output:id_rsa&detail=1'],
      ['Keystroke (K) events of root shells: each iolog field names a recorded session', `/REST/v2.0/events?format=ff&file=${encodeURIComponent(file)}&etype=K&runuser=root&runcommand=/bin/bash&limit=2`],
    ];
    for (const [q, target] of questions) {
      io.out.write(`\n# ${q}\n# evio call GET '${target}'\n`);
      const url = new URL(target, 'http://local');
      const res = await dispatch(engine, { method: 'GET', path: url.pathname, query: queryFromSearch(url.searchParams), signal: io.signal, remote: 'local' });
      const status = await writeResponse(res, io.out);
      if (status !== 0) return 1;
    }
    const shell = await firstRootShell(s.eventlog);
    if (shell) {
      io.out.write(`\n# What that root shell did: its screen half-way through\n# evio iolog screen '${shell}' --at 5\n`);
      const screen = await iologScreen(engine, { file: shell, at: '5' }, io.signal);
      const lines = [...screen.lines];
      while (lines.length && lines[lines.length - 1]!.trim() === '') lines.pop();
      io.out.write(`${lines.join('\n')}\n# (evio iolog play '${shell}' plays it; GET /REST/iolog/screen?file=...&at=SECONDS seeks)\n`);
    }
    const listen = s.host === '0.0.0.0' ? '127.0.0.1' : s.host === '::' ? '::1' : s.host;
    const host = listen.includes(':') ? `[${listen}]` : listen;
    io.out.write(`\n# Watch the recorded sessions in the browser: run evio serve, then open\n#   ${s.tls ? 'https' : 'http'}://${host}:${s.port}${s.prefix}/console/\n# and sign in as "admin" with the key evio serve names (admin.key beside the keystore).\n`);
    return 0;
  },
};
