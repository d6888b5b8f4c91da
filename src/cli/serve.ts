// `evio serve`: the REST service. With no settings file it runs on the data folder at
// 127.0.0.1:24351, creating the folder, the I/O log root and a keystore with one app on first
// start (its key goes to a 0600 file, never to the output), and prints a signed example call.
// On SIGINT/SIGTERM it stops gracefully: new calls are refused, those in flight finish within
// shutdownTimeoutMs, then it exits 0.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { prepareDataFolder } from '../app/first-start.js';
import { findApp, readKeystore } from '../keystore.js';
import { signedUrl } from '../app/rest-client.js';
import { checkListenPolicy, startServer } from '../http/server.js';
import { startLogServer, type LogServer } from '../logsrvd/server.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { untilStopped, type CliCommand } from './io.js';
import { shellQuote } from './shell-quote.js';

const HELP = `Usage: evio serve [--host HOST] [--port PORT] [--allow-insecure]

Runs the REST service (docs/service.md). Settings come from --config/EVIO_CONFIG; with none, the
data folder ($EVIO_HOME, else ./evio-data) is used on 127.0.0.1:24351. On first start a keystore
with an app "admin" is created, its key written to a 0600 file beside the keystore (the path is
printed, not the key), and example calls are printed (a signed curl URL only on a terminal:
never into a journal or log file). On SIGTERM calls in flight finish
(at most shutdownTimeoutMs) before it exits.

  --host HOST        listen address (default: the settings' host, 127.0.0.1)
  --port PORT        listen port (default: the settings' port, 24351; 0 = any free port)
  --allow-insecure   allow plain HTTP on an address that is not loopback

Example:
  EVIO_HOME=/tmp/evio evio serve --port 24351`;

const EXAMPLE_PATH = '/REST/v2.0/events/destinations';

/** The example calls: `evio rest` first (it signs when run), then curl with a signature made now. */
export function exampleCalls(opts: { url: string; appid: string; key: string; keystore: string; skewSeconds: number; prefix: string; terminal: boolean }): string {
  // A wildcard listen address is reached through loopback.
  const url = opts.url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://[::1]:');
  const path = `${opts.prefix}${EXAMPLE_PATH}`;
  const insecure = url.startsWith('https:') ? ' --insecure' : '';
  // The key itself is never printed: the output of a service is kept in its journal.
  const keyArg = `--keystore ${shellQuote(opts.keystore)}`;
  const lines = ['Try it (evio rest signs the call when it runs):', `  evio rest --url ${url} --appid ${opts.appid} ${keyArg}${insecure} GET ${path}`, ''];
  // A signed URL is a credential until it expires: it is printed only on a terminal, never into
  // the journal or file a service's output goes to.
  if (!opts.terminal) return [...lines, 'A signed curl example is printed only when the output is a terminal (a signed URL in a log could be used by whoever reads it).', ''].join('\n');
  const signed = signedUrl({ url, appid: opts.appid, key: opts.key, method: 'GET', path });
  return [
    ...lines,
    `Or with curl: this signature was made now, expires after ${opts.skewSeconds} s and works once (replays are refused):`,
    `  curl${insecure ? ' -k' : ''} ${shellQuote(signed.href)}`,
    '',
  ].join('\n');
}

/** Where the console is and how to sign in to it (the key itself is never printed). */
export function consoleLine(url: string, prefix: string, appid: string | null, keyFile: string | null): string {
  const base = url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://[::1]:');
  const how = !appid
    ? 'add an app first (evio keys add APPID)'
    : keyFile
      ? `sign in as "${appid}" with the key in ${keyFile}`
      : `sign in as "${appid}" with its key (evio keys list --show-key)`;
  return `Console: ${base}${prefix}/console/  (${how})\n\n`;
}

function firstApp(keystore: string): { appid: string; key: string } | null {
  const ks = readKeystore(keystore);
  const id = findApp(ks, 'admin') ? 'admin' : Object.keys(ks.apps).sort()[0];
  return id ? { appid: id, key: findApp(ks, id)!.key } : null;
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'run the REST service (HTTPS, signed calls, OpenAPI at /docs)',
  async run(argv, io) {
    if (wantsHelp(argv, HELP, io.out)) return 0;
    const f = parseFlags(argv, { command: 'serve', values: ['host', 'port'], switches: ['allow-insecure'] });
    const engine = io.serviceEngine();
    const s = engine.settings;
    const host = strFlag(f, 'host') ?? s.host;
    const port = intFlag(f, 'port', s.port);
    const allowInsecure = f.bools.has('allow-insecure') || s.allowInsecure;
    // Refuse an insecure address before creating anything (a new key would go unseen).
    await checkListenPolicy(host, s.tls, allowInsecure);
    const first = prepareDataFolder(s);
    for (const w of first.warnings) io.err.write(`evio serve: warning: ${w}\n`);
    const log = (line: string) => io.err.write(`${new Date().toISOString()} ${line}\n`);
    let server;
    try {
      server = await startServer(engine, { host, port, allowInsecure, log });
    } catch (err) {
      if (first.created) io.err.write(`evio serve: the keystore ${s.keystore} was created with app "${first.created.appid}"; its key is in ${first.created.keyFile}\n`);
      throw err;
    }
    io.out.write(`evio serving ${server.url} (data folder ${s.home}, keystore ${s.keystore})\n`);
    // The log server, when the settings name listeners (docs/logserver.md).
    let logServer: LogServer | null = null;
    if (s.logsrvd.listen.length > 0) {
      try {
        logServer = await startLogServer(engine, { allowInsecure });
      } catch (err) {
        await server.close();
        throw err;
      }
      for (const a of logServer.addresses) io.out.write(`Log server (sudo log_servers): ${a.host}:${a.port}${a.tls ? ' (tls)' : ''}\n`);
    }
    io.out.write(`OpenAPI: ${server.url}/openapi.json   Swagger UI: ${server.url}/docs\n\n`);
    if (first.created) {
      io.out.write(`First start: created app "${first.created.appid}" in ${s.keystore}. Its key is in ${first.created.keyFile} (mode 0600; read it, then delete the file: evio keys list --show-key shows the key again)\n\n`);
    }
    const app = first.created ?? firstApp(s.keystore);
    // The first start's key file, while the operator has not deleted it yet.
    const keyFile = first.created?.keyFile ?? (app ? join(dirname(s.keystore), `${app.appid}.key`) : null);
    io.out.write(consoleLine(server.url, s.prefix, app?.appid ?? null, keyFile && existsSync(keyFile) ? keyFile : null));
    if (app) {
      io.out.write(exampleCalls({ url: server.url, appid: app.appid, key: app.key, keystore: s.keystore, skewSeconds: s.authSkewSeconds, prefix: s.prefix, terminal: io.out.isTTY === true }));
    } else {
      io.out.write(`The keystore has no apps: add one with evio keys add APPID\n`);
    }
    await untilStopped(io);
    io.err.write(`evio serve: stopping: new calls are refused, calls in flight may finish within ${s.shutdownTimeoutMs} ms\n`);
    if (logServer) await logServer.close();
    const left = await server.drain(s.shutdownTimeoutMs);
    if (left > 0) io.err.write(`evio serve: ${left} call(s) still running after ${s.shutdownTimeoutMs} ms (shutdownTimeoutMs); their connections are closed\n`);
    await server.close();
    io.err.write('evio serve: stopped\n');
    return 0;
  },
};
