// The replay front doors: GET /REST/iolog/replay and `evio iolog replay|screen`, over the real
// samples through the I/O-log session reader.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runReplay, runScreen } from '../../src/cli/replay.js';
import { Engine } from '../../src/engine.js';
import { replayRoutes } from '../../src/app/routes/replay.js';
import type { ApiResponse } from '../../src/app/types.js';
import { loadSettings } from '../../src/settings.js';
import { SAMPLES } from './helpers/sample-sessions.js';

let home: string;
let engine: Engine;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'evio-replay-'));
  engine = new Engine(loadSettings({ env: {}, cwd: home, overrides: { home, iologdirs: [SAMPLES], iologcache: join(home, 'index.sqlite'), workers: 1 } }));
});
afterAll(async () => {
  await engine.close();
  rmSync(home, { recursive: true, force: true });
});

async function call(query: Record<string, string>): Promise<Record<string, unknown>> {
  const route = replayRoutes[0]!;
  const res: ApiResponse = await route.handler({ method: 'GET', path: '/iolog/replay', query, signal: new AbortController().signal }, engine);
  expect(res.kind).toBe('json-stream');
  let text = '';
  if (res.kind === 'json-stream') for await (const c of res.chunks) text += c;
  return JSON.parse(text) as Record<string, unknown>;
}

function fakeIo(): CliIo & { text(): string } {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, err: new PassThrough(), config: undefined, settings: () => engine.settings, engine: () => engine, serviceEngine: () => engine, signal: new AbortController().signal, text: () => Buffer.concat(chunks).toString() };
}

describe('GET /REST/iolog/replay', () => {
  it('answers the items of a session with its window changes', async () => {
    const body = await call({ file: 'sudo-io/00/00/04', term: 'xterm-256color' });
    expect(body).toMatchObject({ status: 0, term: 'xterm-256color', start: 0, len: 15, bytes: 15 });
    const log = body.log as Array<Record<string, unknown>>;
    expect(log.map((i) => (i.type === 'text' ? i.value : i.values ? `${String(i.name)}(${String(i.values)})` : i.name))).toEqual(['sz(80,24)', '24 80', 'nel', 'sz(100,30)', '30 100', 'nel']);
    // Text carries Unix milliseconds, as chunk items do.
    expect(Math.floor((log[1] as { time: number }).time / 1000)).toBe(1795315468);
    expect((log[4] as { time: number }).time - (log[1] as { time: number }).time).toBe(2002);
  });

  it('serves a byte range, with the window size in force at its start', async () => {
    const body = await call({ file: 'sudo-io/00/00/04', start: '7', len: '3' });
    expect(body.log).toEqual([{ type: 'token', name: 'sz', values: [100, 30] }, { type: 'text', time: expect.any(Number), value: '30 ' }]);
    expect(body).toMatchObject({ start: 7, len: 3 });
  });

  it('reads a range that starts inside a sequence as the whole session would', async () => {
    const whole = (await call({ file: 'demo.cast' })).log as unknown[];
    const cut = (await call({ file: 'demo.cast', start: '3', len: '1000' })).log as Array<{ type: string; value?: string }>;
    // demo.cast begins with ESC [ ? 2004 h: from byte 3 on, no stray "2004h" text appears, and
    // the sequence, which ends inside the range, is still named.
    expect(cut.some((i) => i.type === 'text' && i.value?.includes('2004h'))).toBe(false);
    expect(JSON.stringify(cut.slice(1))).toBe(JSON.stringify(whole.slice(1)));
  });

  it('refuses an unknown terminal type and a bad name with their codes', async () => {
    await expect(call({ file: 'sudo-io/00/00/04', term: 'no-such-term-xyz' })).rejects.toThrow(/^1500 /);
    await expect(call({ file: 'sudo-io/00/00/04', term: '../x' })).rejects.toThrow(/^1501 /);
  });
});

describe('evio iolog replay | screen', () => {
  it('prints the replay answer', async () => {
    const io = fakeIo();
    expect(await runReplay(['sudo-io/00/00/01', '--term', 'vt100', '--len', '100'], io)).toBe(0);
    const body = JSON.parse(io.text()) as { status: number; term: string; len: number; log: unknown[] };
    expect(body).toMatchObject({ status: 0, term: 'vt100', len: 100 });
    expect(body.log[0]).toEqual({ type: 'token', name: 'sz', values: [80, 24] });
  });

  it('prints the screen at the end and at a time offset', async () => {
    let io = fakeIo();
    expect(await runScreen(['sudo-io/00/00/04'], io)).toBe(0);
    expect(io.text()).toBe('24 80\n30 100\n');
    io = fakeIo();
    expect(await runScreen(['sudo-io/00/00/04', '--at', '0.5'], io)).toBe(0);
    expect(io.text()).toBe('24 80\n');
  });

  it('rejects bad usage', async () => {
    // A bad value is the parameter's error (the same as over REST); a bad command line is 1003.
    await expect(runScreen(['sudo-io/00/00/04', '--at', 'soon'], fakeIo())).rejects.toThrow(/^1401 at="soon" is not a number of seconds/);
    await expect(runScreen(['sudo-io/00/00/04', '--when', '1'], fakeIo())).rejects.toThrow(/^1003 iolog screen: unknown flag --when/);
    await expect(runReplay([], fakeIo())).rejects.toThrow(/^1003 /);
    const io = fakeIo();
    expect(await runScreen(['--help'], io)).toBe(0);
    expect(io.text()).toContain('Example:');
  });
});
