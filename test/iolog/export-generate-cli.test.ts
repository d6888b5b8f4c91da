// Export to asciicast, the session generator, the CLI and the HTTP handlers on top.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologCommand } from '../../src/cli/iolog.js';
import { runGenerateSessions } from '../../src/cli/generate-sessions.js';
import type { CliIo } from '../../src/cli/io.js';
import type { Engine } from '../../src/engine.js';
import { iologRoutes } from '../../src/app/routes/iolog.js';
import type { ApiRequest } from '../../src/app/types.js';
import { AsciicastSession } from '../../src/iolog/asciicast-session.js';
import { iologChunk } from '../../src/app/iolog.js';
import { blobBytes, collectJson, makeEngine, referenceStream, removeDir, SAMPLES, sudoSessionDirs, tempDir } from './helpers.js';

function fakeIo(engine: Engine): CliIo & { text(): string; errText(): string } {
  const out = new PassThrough();
  const err = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  out.on('data', (c: Buffer) => o.push(c));
  err.on('data', (c: Buffer) => e.push(c));
  return {
    out,
    err,
    config: undefined,
    settings: () => engine.settings,
    engine: () => engine,
    serviceEngine: () => engine,
    signal: new AbortController().signal,
    text: () => Buffer.concat(o).toString(),
    errText: () => Buffer.concat(e).toString(),
  };
}

let gen: string;
let engine: Engine;
beforeAll(() => {
  gen = tempDir('evio-gen-');
  engine = makeEngine([SAMPLES, gen]);
});
afterAll(async () => {
  await engine.close();
  removeDir(gen);
});

describe('export asciicast', () => {
  it('writes v2 whose output text is the session output, with resizes as r events', async () => {
    const io = fakeIo(engine);
    expect(await iologCommand.run(['export', '--format', 'asciicast', join(SAMPLES, 'sudo-io/00/00/04')], io)).toBe(0);
    const lines = io.text().trim().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ version: 2, width: 80, height: 24, timestamp: 1795315468, command: '/usr/bin/sh -c stty size; sleep 2; stty size; sleep 1', env: { TERM: 'tmux-256color' } });
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual([
      [0.004417, 'o', '24 80\r\n'],
      [0.999505, 'r', '100x30'],
      [2.006675, 'o', '30 100\r\n'], // 2.006675952 s, truncated to microseconds
    ]);
  });

  it("drops what would write outside the viewer's screen from output events (one sequence over two records is judged whole); --raw keeps it", async () => {
    // A session (ttyout and ttyin) whose output writes the clipboard, sets a title and asks for a
    // cursor report; the OSC 52 is split over two records.
    const root = tempDir('evio-export-');
    const own = makeEngine([root], { workers: 1 });
    const dir = join(root, 'crafted');
    mkdirSync(dir, { recursive: true });
    const out = ['$ ', '\x1b]52;c;Y3VybCBldmls', 'IHwgc2g=\x07ok', '\x1b]2;pwned\x07\x1b[6n\x1b[1mx\x1b[0m\r\n'];
    const typed = '\x1b[Aq';
    writeFileSync(join(dir, 'ttyout'), out.join(''));
    writeFileSync(join(dir, 'ttyin'), typed);
    writeFileSync(join(dir, 'timing'), [...out.map((o, i) => `4 0.${i + 1}00000 ${Buffer.byteLength(o)}\n`), `3 0.100000 ${typed.length}\n`].join(''));
    writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, runuser: 'root', command: '/bin/sh', columns: 80, lines: 24 }));
    chmodSync(join(dir, 'timing'), 0o400);
    const events = async (...extra: string[]) => {
      const io = fakeIo(own);
      expect(await iologCommand.run(['export', '--format', 'asciicast', dir, ...extra], io)).toBe(0);
      return io.text().trim().split('\n').slice(1).map((l) => JSON.parse(l) as [number, string, string]);
    };
    expect((await events()).map(([, c, d]) => [c, d])).toEqual([
      ['o', '$ '],
      ['o', 'ok'],
      ['o', '\x1b[1mx\x1b[0m\r\n'],
      ['i', typed],
    ]);
    const raw = await events('--raw');
    expect(raw.filter(([, c]) => c === 'o').map(([, , d]) => d).join('')).toBe(out.join(''));
    expect(raw.filter(([, c]) => c === 'i').map(([, , d]) => d)).toEqual([typed]);
    await own.close();
    removeDir(root);
  });

  it('round-trips through the asciicast reader for every sample (output and input text)', async () => {
    const dir = tempDir();
    try {
      for (const s of sudoSessionDirs(join(SAMPLES, 'sudo-io'))) {
        const f = join(dir, 'x.cast');
        const io = fakeIo(engine);
        await iologCommand.run(['export', '--format', 'asciicast', s, '--out', f, '--raw'], io);
        const back = new AsciicastSession(f);
        const parts: Buffer[] = [];
        for await (const ev of back.events()) if (ev.kind === 'data' && ev.stream === 'ttyout') parts.push(Buffer.from(ev.bytes));
        const expected = referenceStream(s, ['ttyout', 'stdout', 'stderr']).toString('utf8').replace(/(?<!\r)\n/g, '\r\n');
        expect(Buffer.concat(parts).toString('utf8')).toBe(expected);
      }
    } finally {
      removeDir(dir);
    }
  });

  it('keeps every header field asciinema defines and adds none (v2, v3, v1; a sudo session without TERM)', async () => {
    const root = tempDir('evio-export-header-');
    const own = makeEngine([root], { workers: 1 });
    const theme = { fg: '#d0d0d0', bg: '#212121', palette: '#000000:#aa0000:#00aa00:#aa5500:#0000aa:#aa00aa:#00aaaa:#aaaaaa' };
    const v2 = { version: 2, width: 100, height: 30, timestamp: 1700000000, duration: 12.5, idle_time_limit: 2.5, command: 'bash -l', title: 'Demo', env: { SHELL: '/bin/bash' }, theme };
    const v3 = {
      version: 3,
      term: { cols: 100, rows: 30, type: 'xterm-256color', version: 'VTE(7600)', theme },
      timestamp: 1700000000,
      idle_time_limit: 1.5,
      command: 'zsh',
      title: 'Three',
      env: { SHELL: '/bin/zsh' },
      tags: ['demo', 'fidelity'],
    };
    const v1 = { version: 1, width: 90, height: 20, duration: 1.75, command: '/bin/sh', title: 'One', env: { SHELL: '/bin/sh' } };
    writeFileSync(join(root, 'v2.cast'), [JSON.stringify(v2), '[0.5, "r", "90x25"]', '[12.5, "o", "end"]', ''].join('\n'));
    writeFileSync(join(root, 'v3.cast'), [JSON.stringify(v3), '[0.4, "o", "x"]', '[2.5, "m", "mark"]', '[0.000001, "i", "q"]', '[10.5, "o", "y"]', '[0.25, "x", "0"]', ''].join('\n'));
    writeFileSync(join(root, 'v1.cast'), JSON.stringify({ ...v1, stdout: [[0.5, 'hi'], [1.25, ' there']] }));
    const dir = join(root, 'sudo');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ttyout'), 'hi\r\n');
    writeFileSync(join(dir, 'timing'), '4 0.500000 4\n');
    writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, runuser: 'root', command: '/bin/sh', columns: 80, lines: 24 }));
    chmodSync(join(dir, 'timing'), 0o400);
    const exported = async (file: string) => {
      const out = join(root, `${file.replace('/', '-')}.out.cast`);
      expect(await iologCommand.run(['export', '--format', 'asciicast', join(root, file), '--out', out], fakeIo(own))).toBe(0);
      return { out, header: JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as Record<string, unknown> };
    };
    const timeline = async (file: string) => {
      const rows = [];
      for await (const ev of new AsciicastSession(file).events()) rows.push([ev.kind, ev.sec, ev.nsec]);
      return rows;
    };
    try {
      for (const [name, src] of [['v2.cast', v2], ['v3.cast', v3]] as const) {
        const { out, header } = await exported(name);
        expect(header).toEqual(src);
        expect(await new AsciicastSession(out).variables()).toEqual(src);
        // The events keep their times (a v3 export writes intervals again).
        expect(await timeline(out)).toEqual(await timeline(join(root, name)));
      }
      // v1 becomes v2 with the same fields (no timestamp invented).
      const one = await exported('v1.cast');
      expect(one.header).toEqual({ ...v1, version: 2 });
      expect(await timeline(one.out)).toEqual(await timeline(join(root, 'v1.cast')));
      // A sudo session whose log.json has no TERM: no env.
      expect((await exported('sudo')).header).toEqual({ version: 2, width: 80, height: 24, timestamp: 1767225600, command: '/bin/sh' });
    } finally {
      await own.close();
      removeDir(root);
    }
  });

  it('refuses an unknown format', async () => {
    await expect(iologCommand.run(['export', '--format', 'mp4', 'sudo-io/00/00/01'], fakeIo(engine))).rejects.toMatchObject({ code: 1417 });
  });
});

describe('generate sessions', () => {
  it('is deterministic, readable by the engine and by sudoreplay', async () => {
    const io = fakeIo(engine);
    expect(await runGenerateSessions(['--count', '40', '--seed', '5', '--out', gen], io)).toBe(0);
    expect(JSON.parse(io.text())).toMatchObject({ sessions: 40 });
    const dirs = sudoSessionDirs(gen);
    expect(dirs).toHaveLength(40);
    expect(dirs[0]).toBe(join(gen, '00/00/01'));
    expect(dirs[39]).toBe(join(gen, '00/00/14')); // 40 in base 36
    expect(readFileSync(join(gen, 'seq'), 'utf8')).toBe('000014\n');
    expect(statSync(join(gen, '00/00/01/timing')).mode & 0o222).toBe(0);
    const first = readFileSync(join(gen, '00/00/07/timing'));
    const other = tempDir('evio-gen2-');
    try {
      await runGenerateSessions(['--count', '8', '--seed', '5', '--out', other], fakeIo(engine));
      expect(readFileSync(join(other, '00/00/07/timing')).equals(first)).toBe(true);
      expect(readFileSync(join(other, '00/00/07/ttyout')).equals(readFileSync(join(gen, '00/00/07/ttyout')))).toBe(true);
    } finally {
      removeDir(other);
    }
    for (const d of dirs.slice(0, 10)) {
      const c = await iologChunk(engine, { file: d, len: '1048576' });
      const ref = referenceStream(d);
      expect(blobBytes(c.items as Array<Record<string, unknown>>, undefined).equals(ref.subarray(0, c.len))).toBe(true);
      expect(c.warnings).toEqual([]);
    }
    if (existsSync('/usr/bin/sudoreplay')) {
      const r = spawnSync('sudoreplay', ['-d', gen, '-n', '-m', '0', '000003'], { env: { ...process.env, LINES: '500', COLUMNS: '500' } });
      expect(r.status).toBe(0);
      expect(r.stdout.includes(referenceStream(join(gen, '00/00/03'), ['stdout', 'stderr', 'ttyout']))).toBe(true);
    }
  });

  it('writes 2000 sessions (its speed is a benchmark figure, not asserted here)', async () => {
    const d = tempDir('evio-gen-big-');
    try {
      await runGenerateSessions(['--count', '2000', '--seed', '9', '--out', d], fakeIo(engine));
      expect(existsSync(join(d, '00/01/JK/timing'))).toBe(true); // 2000 = 0x01JK in base 36
    } finally {
      removeDir(d);
    }
  }, 60_000);

  it('has --help with an example and refuses bad arguments', async () => {
    const io = fakeIo(engine);
    expect(await runGenerateSessions(['--help'], io)).toBe(0);
    expect(io.text()).toMatch(/Example:\n  evio generate sessions --count/);
    await expect(runGenerateSessions(['--count', 'x', '--out', gen], io)).rejects.toMatchObject({ code: 1003 });
    await expect(runGenerateSessions(['--count', '3'], io)).rejects.toMatchObject({ code: 1003 });
  });
});

describe('CLI evio iolog', () => {
  it('every subcommand has --help with an example', async () => {
    for (const sub of ['chunk', 'variables', 'ls', 'search', 'list', 'index', 'export']) {
      const io = fakeIo(engine);
      expect(await iologCommand.run([sub, '--help'], io)).toBe(0);
      expect(io.text()).toMatch(new RegExp(`Usage: evio iolog ${sub}[\\s\\S]*Example:\\n  evio iolog ${sub}`));
    }
  });

  it('chunk, variables, search and list print the service bodies', async () => {
    let io = fakeIo(engine);
    await iologCommand.run(['chunk', 'sudo-io/00/00/03', '--len', '12'], io);
    expect(JSON.parse(io.text())).toMatchObject({ status: 0, bytes: 34, start: 0, len: 12, log: [{ time: expect.any(Number) }, { blob: Buffer.from('hello-stdin\n').toString('base64'), blen: 12, cmd: 'stdin' }] });
    io = fakeIo(engine);
    await iologCommand.run(['variables', 'logsrvd-io/00/00/01'], io);
    expect(JSON.parse(io.text())).toMatchObject({ status: 0, log: { exit_value: 0, command: '/usr/bin/ls' } });
    io = fakeIo(engine);
    await iologCommand.run(['search', 'sudo-io/00/00/*', 'stderr:to-stderr', '--detail'], io);
    expect(JSON.parse(io.text())).toEqual({ iologs: [join(SAMPLES, 'sudo-io/00/00/03')], detail: [{ file: join(SAMPLES, 'sudo-io/00/00/03'), stream: 'stderr', time: 3, at: 0.003416, line: 'to-stderr' }], status: 0 });
    // the command timeline: NDJSON, and the exit status sudo_logsrvd appended to log.json
    io = fakeIo(engine);
    await iologCommand.run(['commands', 'logsrvd-io/00/00/01'], io);
    expect(io.text().trim().split('\n').map((l) => JSON.parse(l)).at(-1)).toEqual({ file: join(SAMPLES, 'logsrvd-io/00/00/01'), commands: 0, exit: { status: 0, source: 'log.json' }, status: 0 });
    io = fakeIo(engine);
    await iologCommand.run(['list', '--submituser', 'nobody', '--refresh', '1'], io);
    expect(JSON.parse(io.text()).result.map((r: { runcmd: string }) => r.runcmd)).toEqual(['/usr/bin/id']);
    await expect(iologCommand.run(['chunk'], fakeIo(engine))).rejects.toMatchObject({ code: 1003 });
    await expect(iologCommand.run(['chunk', 'x', '--bogus', '1'], fakeIo(engine))).rejects.toMatchObject({ code: 1003 });
  });
});

describe('HTTP handlers', () => {
  const route = (path: string) => iologRoutes.find((r) => r.path === path)!;
  const req = (path: string, query: Record<string, string>): ApiRequest => ({ method: 'GET', path: `/REST/v2.0${path}`, query, signal: new AbortController().signal });

  it('declare the seven GET routes under every version', () => {
    expect(iologRoutes.map((r) => [r.method, r.path, r.versions.join('|'), r.writes])).toEqual([
      ['GET', '/iolog', '|v2|v2.0', false],
      ['GET', '/iolog/variables', '|v2|v2.0', false],
      ['GET', '/iologfile', '|v2|v2.0', false],
      ['GET', '/iolog/search', '|v2|v2.0', false],
      ['GET', '/iolog/commands', '|v2|v2.0', false],
      ['GET', '/iolog/follow', '|v2|v2.0', false],
      ['GET', '/iolog/list', '|v2|v2.0', false],
    ]);
  });

  it('stream chunk, listing, search and list answers as JSON', async () => {
    const chunk = await route('/iolog').handler(req('/iolog', { file: 'sudo-io/00/00/01' }), engine);
    expect(chunk.kind).toBe('json-stream');
    const body = await collectJson((chunk as { chunks: AsyncIterable<string> }).chunks);
    // Answers name sessions relative to their root, never by the server's path (docs/api.md).
    expect(body).toMatchObject({ status: 0, file: 'sudo-io/00/00/01', bytes: 1459, start: 0, len: 1459 });
    expect(blobBytes(body.log as Array<Record<string, unknown>>).equals(referenceStream(join(SAMPLES, 'sudo-io/00/00/01')))).toBe(true);
    const dir = await collectJson(((await route('/iolog').handler(req('/iolog', { path: 'logsrvd-io/00/00' }), engine)) as { chunks: AsyncIterable<string> }).chunks);
    expect((dir.dir as Array<{ name: string }>).map((d) => d.name)).toEqual(['01', '02']);
    const s = await collectJson(((await route('/iolog/search').handler(req('/iolog/search', { file: 'logsrvd-io/**', query: 'output:err' }), engine)) as { chunks: AsyncIterable<string> }).chunks);
    expect(s).toEqual({ iologs: ['logsrvd-io/00/00/02'], status: 0 });
    const l = await collectJson(((await route('/iolog/list').handler(req('/iolog/list', { runcmd: '*hostname' }), engine)) as { chunks: AsyncIterable<string> }).chunks);
    expect(l).toMatchObject({ status: 0, result: [{ runcmd: '/usr/bin/ls -la /etc/hostname', uniqueid: 'logsrvd-io/00/00/01' }] });
    const v = await route('/iolog/variables').handler(req('/iolog/variables', { file: 'demo.cast' }), engine);
    expect(v).toMatchObject({ kind: 'json', http: 200, body: { status: 0, log: { version: 2, title: 'Demo' } } });
    const f = await route('/iologfile').handler(req('/iologfile', { file: 'demo.cast' }), engine);
    expect(f).toMatchObject({ kind: 'file', http: 200, filename: 'demo.cast', size: 503 });
    await expect(route('/iolog').handler(req('/iolog', {}), engine)).rejects.toMatchObject({ code: 1413 });
  });

  it('an aborted request stops its worker task', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(route('/iolog').handler({ ...req('/iolog', { file: 'sudo-io/00/00/01' }), signal: ac.signal }, engine)).rejects.toMatchObject({ code: 1006 });
  });
});
