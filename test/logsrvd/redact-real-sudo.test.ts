// The password prompt of real `sudo -k` through the log server: Debian's sudo sends a session
// (a sudoers drop-in scoped to a run-as user of this test, `Defaults>USER log_servers=...`) in
// which a shell runs `sudo -k; sudo true`; that inner sudo asks for a password on the recorded
// terminal, and the password is typed with tmux send-keys. The typed password then reaches no
// file under the data folder and the I/O log root (compressed streams decompressed), no search,
// none of the console's answers (chunk, replay, screen, commands) and no export.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologChunk, iologCommands, iologExport, iologReplay, iologScreen, iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { events, settled, startTestServer, sudoToolsAvailable, type TestServer } from './helpers.js';

const RUNAS = 'evio-redact';
const DROPIN = `/etc/sudoers.d/zz-evio-redact-test-${process.pid}`;
const TMUX = `evio-redact-${process.pid}`;
const PASSWORD = `Pw-${randomBytes(6).toString('hex')}`;

function canRun(): boolean {
  if (!sudoToolsAvailable()) return false;
  const ok = process.getuid?.() === 0 && spawnSync('tmux', ['-V']).status === 0;
  if (!ok) {
    if (process.env.CI) throw new Error('the real-sudo redaction test needs root and tmux in CI');
    console.warn('skipping the real-sudo redaction test: it needs root (a sudoers drop-in) and tmux');
  }
  return ok;
}

const enabled = canRun();

const tmux = (...args: string[]) => spawnSync('tmux', ['-L', TMUX, ...args], { encoding: 'utf8' });

/** Waits until the pane shows `text` (the shell or sudo answering), failing with the pane's content. */
async function paneShows(text: string | RegExp): Promise<string> {
  let pane = '';
  for (let i = 0; i < 300; i++) {
    pane = tmux('capture-pane', '-p', '-t', 's').stdout;
    if (typeof text === 'string' ? pane.includes(text) : text.test(pane)) return pane;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the pane never showed ${String(text)}:\n${pane}`);
}

/** Every regular file below `dir`, decompressed when it is gzip (the log server's compressed streams). */
function* filesBelow(dir: string): Generator<{ path: string; bytes: Buffer }> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* filesBelow(p);
    else if (e.isFile()) {
      let bytes = readFileSync(p);
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
      yield { path: p, bytes };
    }
  }
}

describe.skipIf(!enabled)("Debian sudo -> evio logsrvd: the password typed at sudo -k's prompt", () => {
  let t: TestServer;
  let dir = '';
  let file = '';
  beforeAll(async () => {
    t = await startTestServer({ commitIntervalMs: 100, compress: true });
    if (spawnSync('id', [RUNAS]).status !== 0) execFileSync('useradd', ['-M', '-s', '/bin/bash', RUNAS]);
    writeFileSync(DROPIN, `Defaults>${RUNAS} log_servers=127.0.0.1:${t.port}, log_input, log_output, log_exit_status\n`, { mode: 0o440 });
    chmodSync(DROPIN, 0o440);
    expect(spawnSync('visudo', ['-c', '-f', DROPIN]).status).toBe(0);

    // The recorded session: a shell run as RUNAS; in it, sudo -k and a sudo that asks for RUNAS's password.
    expect(tmux('new-session', '-d', '-s', 's', '-x', '100', '-y', '30', `sudo -u ${RUNAS} bash --norc --noprofile`).status).toBe(0);
    await paneShows('$');
    tmux('send-keys', '-t', 's', 'sudo -k; sudo true', 'Enter');
    await paneShows(`[sudo] password for ${RUNAS}:`);
    tmux('send-keys', '-t', 's', '-l', PASSWORD);
    tmux('send-keys', '-t', 's', 'Enter');
    // RUNAS has no password: sudo says so and asks again; Ctrl-C ends it, exit ends the session.
    await paneShows('Sorry, try again.');
    tmux('send-keys', '-t', 's', 'C-c');
    await paneShows(/incorrect password attempt[\s\S]*\$\s*$/);
    tmux('send-keys', '-t', 's', 'exit', 'Enter');
    for (let i = 0; i < 300 && tmux('has-session', '-t', 's').status === 0; i++) await new Promise((r) => setTimeout(r, 100));
    await settled(t);
    const k = events(t.settings).find((r) => r.etype === 'K' && r.runuser === RUNAS);
    expect(k).toBeDefined();
    dir = k!.iolog as string;
    file = relative(t.root, dir);
  }, 120_000);
  afterAll(async () => {
    tmux('kill-server');
    rmSync(DROPIN, { force: true });
    await t?.close();
  });

  it('was recorded with the prompt, the password masked byte for byte, and counted in log.json', () => {
    const read = (name: string) => [...filesBelow(dir)].find((f) => f.path === join(dir, name))!.bytes.toString('latin1');
    expect(lstatSync(join(dir, 'ttyout')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'ttyout'))[0]).toBe(0x1f); // compressed on disk
    expect(read('ttyout')).toContain(`[sudo] password for ${RUNAS}: `);
    expect(read('ttyin')).toContain(`${'*'.repeat(PASSWORD.length)}\r`);
    expect(read('ttyin')).toContain('sudo -k; sudo true\r');
    const log = JSON.parse(read('log.json')) as { redactions?: Record<string, number> };
    expect(log.redactions?.password).toBeGreaterThanOrEqual(1);
  });

  it('reaches no file under the data folder or the I/O log root', () => {
    const roots = [t.home, ...t.settings.iologdirs];
    let files = 0;
    for (const root of roots) {
      for (const f of filesBelow(root)) {
        files++;
        expect(f.bytes.includes(PASSWORD), f.path).toBe(false);
        expect(f.bytes.includes(PASSWORD.slice(3)), f.path).toBe(false);
      }
    }
    expect(files).toBeGreaterThan(5);
  });

  it('reaches neither the search, nor the console data, nor an export', async () => {
    const search = async (query: string) => {
      const run = await iologSearch(t.engine, { file: '**', query, detail: '1' });
      const answer = new SearchAnswer();
      const paths: string[] = [];
      for await (const p of matchingPaths(run, answer)) paths.push(p);
      return { paths, detail: JSON.stringify(answer.tail(true)) };
    };
    for (const q of [`any:${PASSWORD}`, `input:${PASSWORD.slice(0, 6)}`, `ttyin:${PASSWORD.slice(3)}`]) expect((await search(q)).paths, q).toEqual([]);
    // The session is searched: the prompt is found, and its hit shows no password.
    const found = await search(`any:password for ${RUNAS}`);
    expect(found.paths).toEqual([dir]);
    const hidden = await search('input:.');
    expect(hidden.detail).not.toContain(PASSWORD);

    const chunk = await iologChunk(t.engine, { file, start: '0', len: '1048576' });
    const blobs = chunk.items.map((i) => ('blob' in i && typeof i.blob === 'string' ? Buffer.from(i.blob, 'base64').toString('latin1') : '')).join('');
    expect(JSON.stringify(chunk) + blobs).not.toContain(PASSWORD);
    expect(blobs).toContain('*'.repeat(PASSWORD.length));
    const replay = await iologReplay(t.engine, { file });
    let replayed = '';
    for await (const item of replay.items) replayed += JSON.stringify(item);
    expect(replayed).not.toContain(PASSWORD);
    for (const at of ['0.5', '1', '2', '5']) expect(JSON.stringify(await iologScreen(t.engine, { file, at }))).not.toContain(PASSWORD);
    expect(JSON.stringify(await iologScreen(t.engine, { file }))).not.toContain(PASSWORD);
    expect(JSON.stringify(await iologCommands(t.engine, { file }))).not.toContain(PASSWORD);

    for (const raw of [{}, { raw: '1' }]) {
      const out = new PassThrough();
      const parts: Buffer[] = [];
      out.on('data', (b: Buffer) => parts.push(b));
      await iologExport(t.engine, { format: 'asciicast', file, ...raw }, () => out);
      const cast = Buffer.concat(parts).toString('utf8');
      expect(cast).toContain('password for');
      expect(cast).not.toContain(PASSWORD);
    }
  });
});
