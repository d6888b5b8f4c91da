// `evio rest`: the command-line REST caller of the spec. Signs one call with an app's key and
// prints the JSON answer as it arrives (large answers are not held in memory).
import { findApp, readKeystore } from '../keystore.js';
import { sendSigned } from '../app/rest-client.js';
import { filterForTerminal } from '../app/terminal-output.js';
import type { SignatureScheme } from '../signing.js';
import { evioError } from '../errors.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';
import { usageError, type CliCommand, type CliIo } from './io.js';

const HELP = `Usage: evio rest [--url URL] --appid ID (--key KEY | --keystore FILE) [-X METHOD]
                 [--data JSON] [--insecure] [--legacy-md5] [--raw] [METHOD] PATH

Signs one REST call (appid, timestamp, hmac; docs/auth.md), sends it and prints the JSON answer.
Exits 0 when the answer's status is 0.

  --url URL        the service (default: http(s)://host:port of the settings)
  --appid ID       the app to sign as
  --key KEY        its key; or --keystore FILE to read it from a keystore
                   (default: the settings' keystore when neither is given)
  -X, --method M   GET (default), DELETE, POST or PUT; or give METHOD before PATH
  --data JSON      request body
  --insecure       accept a certificate that does not verify (self-signed test setups)
  --legacy-md5     sign with the legacy HMAC-MD5 scheme (apps that enable it)
  --raw            write a raw answer (GET /REST/iologfile: a session file as recorded) as it is
                   also to a terminal; without it, a raw answer written to a terminal passes the
                   terminal filter (no clipboard, title, link or query of the recorded user
                   reaches the terminal). To a file or a pipe it is always written as it is.

Example:
  evio rest --url http://127.0.0.1:24351 --appid admin --keystore evio-data/keystore.json \\
    GET '/REST/v2.0/events?format=ff&file=events.ndjson&limit=3'`;

const METHODS = ['GET', 'DELETE', 'POST', 'PUT'];

/** Reads the status out of the first and last bytes of a JSON answer (status first or last). */
export function answerStatus(head: string, tail: string): number | null {
  const first = /^\s*\{\s*"status"\s*:\s*(\d+)/.exec(head);
  if (first) return Number(first[1]);
  const last = /"status"\s*:\s*(\d+)\s*(?:,\s*"error"\s*:\s*"(?:[^"\\]|\\.)*"\s*)?\}\s*$/.exec(tail);
  return last ? Number(last[1]) : null;
}

function keyFromKeystore(path: string, appid: string): string {
  const app = findApp(readKeystore(path), appid);
  if (!app) throw evioError('KEYSTORE_UNKNOWN_APP', `keystore ${path} has no app "${appid}"`);
  return app.key;
}

function ignoreEpipe(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE') throw err;
}

/** Writes to stdout; resolves false once the reader has gone away (`evio rest ... | head`). */
async function write(io: CliIo, chunk: Buffer | string): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) =>
    io.out.write(chunk, (err) => (!err ? resolve(true) : (err as NodeJS.ErrnoException).code === 'EPIPE' ? resolve(false) : reject(err))),
  );
}

export const restCommand: CliCommand = {
  name: 'rest',
  summary: 'sign and send one REST call to a running service, print the JSON',
  async run(argv, io) {
    if (wantsHelp(argv, HELP, io.out)) return 0;
    // -X METHOD as in curl
    const args = argv.map((a) => (a === '-X' ? '--method' : a));
    const f = parseFlags(args, { command: 'rest', values: ['url', 'appid', 'key', 'keystore', 'method', 'data'], switches: ['insecure', 'legacy-md5', 'raw'], positionals: 2 });
    let method = strFlag(f, 'method')?.toUpperCase();
    let path: string | undefined;
    const pos = f.positionals;
    if (pos.length === 2 && METHODS.includes(pos[0]!.toUpperCase())) {
      if (method && method !== pos[0]!.toUpperCase()) throw usageError('the method is given twice, differently');
      method = pos[0]!.toUpperCase();
      path = pos[1];
    } else if (pos.length === 1) {
      path = pos[0];
    }
    if (!path) throw usageError(`rest needs a PATH\n\n${HELP}`);
    method ??= 'GET';
    if (!METHODS.includes(method)) throw usageError(`method must be one of ${METHODS.join(', ')}`);
    const appid = strFlag(f, 'appid');
    if (!appid) throw usageError(`rest needs --appid\n\n${HELP}`);
    let key = strFlag(f, 'key');
    // SHA-256 unless asked: legacy apps accept it too (docs/auth.md).
    const scheme: SignatureScheme = f.bools.has('legacy-md5') ? 'hmac-md5-legacy' : 'hmac-sha256';
    const keystore = strFlag(f, 'keystore');
    if (key && keystore) throw usageError('give --key or --keystore, not both');
    if (!key) {
      key = keyFromKeystore(keystore ?? io.settings().keystore, appid);
    }
    const data = strFlag(f, 'data');
    if (data !== undefined) {
      try {
        JSON.parse(data);
      } catch {
        throw usageError('--data must be JSON');
      }
    }
    let url = strFlag(f, 'url');
    if (!url) {
      const s = io.settings();
      url = `${s.tls ? 'https' : 'http'}://${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`;
    }
    const res = await sendSigned({
      url, appid, key, method, path, scheme, signal: io.signal,
      ...(data !== undefined ? { body: data } : {}),
      ...(f.bools.has('insecure') ? { insecure: true } : {}),
    });
    const isJson = /json/i.test(String(res.headers['content-type'] ?? ''));
    let head = '';
    let tail = '';
    let last: Buffer | string = '';
    // A closed stdout pipe is the reader having enough, not a failure worth a stack trace (the
    // stream reports it after the write callback, so the listener stays until exit).
    if (!io.out.listeners('error').includes(ignoreEpipe)) io.out.on('error', ignoreEpipe);
    const body = !isJson && io.out.isTTY && !f.bools.has('raw') ? filterForTerminal(res as AsyncIterable<Buffer>) : (res as AsyncIterable<Buffer>);
    for await (const chunk of body) {
      if (head.length < 64) head += chunk.subarray(0, 64).toString('utf8');
      tail = (tail + chunk.subarray(Math.max(0, chunk.length - 4096)).toString('utf8')).slice(-4096);
      last = chunk;
      if (!(await write(io, chunk))) {
        res.destroy();
        return (answerStatus(head, tail) ?? 0) === 0 ? 0 : 1;
      }
    }
    const ok = (res.statusCode ?? 500) < 300;
    if (!isJson) return ok ? 0 : 1; // an attachment (I/O log file)
    if (last.length && !String(last).endsWith('\n')) await write(io, '\n');
    const status = answerStatus(head, tail);
    if (status === null) throw evioError('REST_CLIENT', `the answer (HTTP ${res.statusCode}) is not a JSON object with a status`);
    return status === 0 ? 0 : 1;
  },
};
