// `evio logsrvd`: the log server alone, for a host that only receives what sudo clients send
// (docs/logserver.md). With no settings file it runs on the data folder ($EVIO_HOME, else
// ./evio-data), writing sessions under its I/O-log root and events to its flat-file log, and
// listens on 127.0.0.1:30343 (and 0.0.0.0:30344 with TLS when logsrvd.tls is configured).
// On SIGINT/SIGTERM each connection's data is synced and acknowledged before it is closed.
import { mkdirSync } from 'node:fs';
import { startLogServer } from '../logsrvd/server.js';
import { parseFlags, wantsHelp } from './flags.js';
import { untilStopped, type CliCommand } from './io.js';

const HELP = `Usage: evio logsrvd [--listen HOST:PORT[(tls)]]... [--allow-insecure]

Receives sudo's event and I/O logs over sudo's log-server protocol, as sudo_logsrvd does
(docs/logserver.md): point sudoers at it with
  Defaults log_servers=HOST:30344(tls)      (or HOST:30343 on a trusted network)
Sessions are written under the settings' logsrvd.iologDir (default: the first of iologdirs) as
sudo writes them (sudoreplay reads them); accept, reject, alert and exit events are appended to
the flat-file event log (eventlog), from which the configured destinations are fed.

  --listen ADDR      HOST:PORT, or HOST:PORT(tls) for TLS with logsrvd.tls (repeatable; default:
                     the settings' logsrvd.listen, else 127.0.0.1:30343, plus 0.0.0.0:30344(tls)
                     when logsrvd.tls is set)
  --allow-insecure   allow plain TCP on an address that is not loopback

Example:
  EVIO_HOME=/srv/evio evio logsrvd --listen 127.0.0.1:30343`;

export const logsrvdCommand: CliCommand = {
  name: 'logsrvd',
  summary: 'receive sudo event and I/O logs over sudo\'s log-server protocol (replaces sudo_logsrvd)',
  async run(argv, io) {
    if (wantsHelp(argv, HELP, io.out)) return 0;
    const f = parseFlags(argv, { command: 'logsrvd', values: ['listen'], repeatable: ['listen'], switches: ['allow-insecure'] });
    const engine = io.serviceEngine();
    const s = engine.settings;
    const given = f.flags.listen === undefined ? [] : ([] as string[]).concat(f.flags.listen);
    const listen = given.length > 0 ? given : s.logsrvd.listen.length > 0 ? s.logsrvd.listen : ['127.0.0.1:30343', ...(s.logsrvd.tls ? ['0.0.0.0:30344(tls)'] : [])];
    for (const d of s.iologdirs) mkdirSync(d, { recursive: true, mode: 0o700 });
    const server = await startLogServer(engine, { listen, allowInsecure: f.bools.has('allow-insecure') || s.allowInsecure });
    for (const a of server.addresses) io.out.write(`evio logsrvd listening on ${a.host}:${a.port}${a.tls ? ' (tls)' : ''}\n`);
    io.out.write(`sessions under ${s.logsrvd.iologDir || s.iologdirs[0]}, events in ${s.eventlog}\n`);
    await untilStopped(io);
    io.err.write(`evio logsrvd: stopping: syncing ${server.openSessions} open session(s)\n`);
    await server.close();
    io.err.write('evio logsrvd: stopped\n');
    return 0;
  },
};
