// The sudo reader on the awkward inputs of the notes: live (trailer-less) and truncated gzip,
// missing and 0-byte stream files, a last timing line without newline, garbage timing lines,
// short stream files, legacy `log` only, the completion mark, and fuzzed timing files.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { buildChunk } from '../../src/iolog/chunk.js';
import { iologChunk, iologVariables } from '../../src/app/iolog.js';
import { SudoSession } from '../../src/iolog/sudo-session.js';
import { blobBytes, copySamples, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

const LOG = '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/usr/bin/ls -la /\n';

function session(root: string, name: string, files: Record<string, string | Buffer>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (!('log' in files) && !('log.json' in files)) writeFileSync(join(dir, 'log'), LOG);
  for (const [f, c] of Object.entries(files)) writeFileSync(join(dir, f), c);
  return dir;
}

async function allData(dir: string): Promise<{ bytes: Buffer; warnings: string[]; winches: number }> {
  const s = new SudoSession(dir);
  const parts: Buffer[] = [];
  let winches = 0;
  for await (const ev of s.events()) {
    if (ev.kind === 'data') parts.push(Buffer.from(ev.bytes));
    if (ev.kind === 'winch') winches++;
  }
  return { bytes: Buffer.concat(parts), warnings: s.warnings, winches };
}

let root: string;
let engine: Engine;
beforeAll(() => {
  root = tempDir();
  engine = makeEngine([root]);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

describe('sudo reader, awkward inputs', () => {
  it('decodes a live session whose gzip files have no trailer yet (the partial samples)', async () => {
    const dir = session(root, 'live', { timing: readFileSync(join(SAMPLES, 'timing.partial.gz')), ttyout: readFileSync(join(SAMPLES, 'ttyout.partial.gz')) });
    const r = await allData(dir);
    expect(r.bytes.toString()).toBe('aaa\r\n');
    expect(r.warnings).toEqual([]);
    expect(await new SudoSession(dir).complete()).toBe(false);
  });

  it('reads a gzip stream cut at every offset without failing, keeping what decodes', async () => {
    const text = Buffer.from('hello world, this is ttyout\r\n'.repeat(20));
    const gz = gzipSync(text);
    for (let cut = 0; cut <= gz.length; cut += 3) {
      const dir = session(root, `cut-${cut}`, { timing: `4 0.1 ${text.length}\n`, ttyout: gz.subarray(0, cut) });
      const r = await allData(dir);
      expect(text.subarray(0, r.bytes.length).equals(r.bytes)).toBe(true);
      if (cut === gz.length) expect(r.bytes.equals(text)).toBe(true);
      if (r.bytes.length < text.length) expect(r.warnings.join()).toMatch(/^1411 /);
      rmSync(dir, { recursive: true });
    }
  });

  it('treats missing and 0-byte stream files as empty streams', async () => {
    const dir = session(root, 'missing', { timing: '4 0.1 3\n1 0.1 2\n', ttyout: 'abc', stdout: '' });
    const c = await iologChunk(engine, { file: dir });
    expect(c.bytes).toBe(5);
    expect(blobBytes(c.items as Array<Record<string, unknown>>).toString()).toBe('abc');
    expect(c.warnings.join()).toMatch(/1411 .*stdout.*premature EOF/);
  });

  it('holds back a last timing line without newline', async () => {
    const dir = session(root, 'partial-line', { timing: '4 0.1 3\n4 0.1 2', ttyout: 'abcde' });
    const r = await allData(dir);
    expect(r.bytes.toString()).toBe('abc');
    expect(r.warnings).toEqual([]);
  });

  it('stops at a garbage timing line with a warning and serves what came before', async () => {
    const dir = session(root, 'garbage', { timing: '4 0.1 3\n5 0.2 30 100\n\u0000garbage!\n4 0.1 2\n', ttyout: 'abcde' });
    const r = await allData(dir);
    expect(r.bytes.toString()).toBe('abc');
    expect(r.winches).toBe(1);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^1402 .*line 3 is not a valid timing record/);
    const c = await iologChunk(engine, { file: dir });
    expect(c.bytes).toBe(3);
    expect(c.warnings[0]).toMatch(/^1402 /);
  });

  it('splits a huge record into bounded pieces and clamps a huge len', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 5, 0x61);
    const dir = session(root, 'big', { timing: `4 0.1 ${big.length}\n`, ttyout: gzipSync(big) });
    const c = await iologChunk(engine, { file: dir, len: '99999999999999999999999999' });
    expect(c.bytes).toBe(big.length);
    expect(c.len).toBe(1024 * 1024);
    const blobs = c.items.filter((i) => 'blob' in i) as Array<{ blen: number }>;
    expect(blobs.every((b) => b.blen <= 64 * 1024)).toBe(true);
    expect(blobBytes(c.items as Array<Record<string, unknown>>).length).toBe(1024 * 1024);
    const tail = await iologChunk(engine, { file: dir, start: String(big.length - 2), len: '10' });
    expect(blobBytes(tail.items as Array<Record<string, unknown>>).toString()).toBe('aa');
    const past = await iologChunk(engine, { file: dir, start: String(big.length + 100) });
    expect(past).toMatchObject({ start: big.length + 100, len: 0, items: [] });
  });

  it('a timing record that claims more bytes than the file has does not allocate them', async () => {
    const dir = session(root, 'liar', { timing: '4 0.1 9007199254740000\n', ttyout: 'xyz' });
    const c = await iologChunk(engine, { file: dir, len: '1048576' });
    expect(c.bytes).toBe(9007199254740000);
    expect(blobBytes(c.items as Array<Record<string, unknown>>).toString()).toBe('xyz');
    expect(c.warnings.join()).toMatch(/1411 /);
  });

  it('reads the legacy type-6 numbering of sudo 1.8.7 logs', async () => {
    const dir = session(root, 'legacy6', { timing: '6 0.1 3\n7 0.2 30 100\n5 0.1 1\n6 0.1 2\n', ttyout: 'abcde', ttyin: 'q' });
    const c = await buildChunk(new SudoSession(dir), 0, 100);
    expect(c.items.filter((i) => !('time' in i))).toEqual([
      { blob: Buffer.from('abc').toString('base64'), blen: 3, cmd: 'ttyout' },
      { cols: 100, rows: 30, cmd: 'CMD_WINCH' },
      { blob: Buffer.from('q').toString('base64'), blen: 1, cmd: 'ttyin' },
      { blob: Buffer.from('de').toString('base64'), blen: 2, cmd: 'ttyout' },
    ]);
  });

  it('falls back to the legacy log file, and prefers log.json when both exist', async () => {
    const dir = session(root, 'legacy', { timing: '4 0.1 1\n', ttyout: 'x' });
    const v = await iologVariables(engine, { file: dir });
    expect(v.variables).toEqual({
      timestamp: { seconds: 1795315409, nanoseconds: 0 },
      submituser: 'root',
      runuser: 'nobody',
      ttyname: '/dev/pts/0',
      lines: 24,
      columns: 80,
      submitcwd: '/tmp',
      command: '/usr/bin/ls -la /',
    });
    writeFileSync(join(dir, 'log.json'), '{"submituser": "alice", "command": "/bin/x\\u0001", "odd": "\u00e9"}');
    expect((await iologVariables(engine, { file: dir })).variables).toEqual({ submituser: 'alice', command: '/bin/x\u0001', odd: '\u00e9' });
    // bytes >= 0x80 copied raw by sudo's writer: invalid UTF-8 is decoded, not refused
    writeFileSync(join(dir, 'log.json'), Buffer.concat([Buffer.from('{"submituser": "b'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]));
    expect((await iologVariables(engine, { file: dir })).variables).toEqual({ submituser: 'b\ufffd\ufffdb' });
    // logsrvd rewriting its closing brace: invalid JSON falls back to log
    writeFileSync(join(dir, 'log.json'), '{"submituser": "alice",');
    expect((await iologVariables(engine, { file: dir })).variables).toMatchObject({ submituser: 'root', command: '/usr/bin/ls -la /' });
  });

  it('variables of the logsrvd sample include the appended exit info', async () => {
    const e = makeEngine([SAMPLES]);
    try {
      const v = await iologVariables(e, { file: 'logsrvd-io/00/00/02' });
      expect(v.variables).toMatchObject({ exit_value: 4, run_time: { seconds: 0, nanoseconds: 2579650 }, runcwd: '/tmp', runargv: ['sh', '-c', 'echo err >&2; exit 4'] });
    } finally {
      await e.close();
    }
  });

  it('the completion mark is a timing file without write bits', async () => {
    const copy = copySamples();
    try {
      const dir = join(copy, 'sudo-io/00/00/01');
      chmodSync(join(dir, 'timing'), 0o600);
      expect(await new SudoSession(dir).complete()).toBe(false);
      chmodSync(join(dir, 'timing'), 0o644);
      expect(await new SudoSession(dir).complete()).toBe(false);
      chmodSync(join(dir, 'timing'), 0o444); // chmod a-w
      expect(await new SudoSession(dir).complete()).toBe(true);
      chmodSync(join(dir, 'timing'), 0o400); // sudo's -r--------
      expect(await new SudoSession(dir).complete()).toBe(true);
    } finally {
      removeDir(copy);
    }
  });

  it('gives the same bytes from plain (uncompressed) copies of a gzip session', async () => {
    const src = join(SAMPLES, 'sudo-io/00/00/02');
    const ref = (await allData(src)).bytes;
    // plain copies of the same session, decoded through a different path (no gzip)
    const plain = session(root, 'plain02', {
      timing: Buffer.from(gunzipSync(readFileSync(join(src, 'timing')))),
      ttyout: Buffer.from(gunzipSync(readFileSync(join(src, 'ttyout')))),
      ttyin: Buffer.from(gunzipSync(readFileSync(join(src, 'ttyin')))),
    });
    copyFileSync(join(src, 'log.json'), join(plain, 'log.json'));
    expect((await allData(plain)).bytes.equals(ref)).toBe(true);
  });

  it('never throws on fuzzed timing files and never yields more than the stream holds (seeded)', async () => {
    const dir = join(root, 'fuzz');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'log'), LOG);
    writeFileSync(join(dir, 'ttyout'), 'abcdefghij');
    writeFileSync(join(dir, 'stdout'), '0123456789');
    const line = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.tuple(fc.nat(9), fc.nat(5), fc.nat(20)).map(([t, s, n]) => `${t} ${s}.5 ${n}`),
      fc.tuple(fc.nat(40), fc.nat(200)).map(([r, c]) => `5 0.1 ${r} ${c}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 20 }), fc.boolean(), async (lines, gz) => {
        const text = lines.join('\n') + '\n';
        writeFileSync(join(dir, 'timing'), gz ? gzipSync(text) : text);
        const s = new SudoSession(dir);
        const c = await buildChunk(s, 0, 1 << 20);
        const got = blobBytes(c.items as Array<Record<string, unknown>>);
        expect(got.length).toBeLessThanOrEqual(20);
        expect(c.len).toBeLessThanOrEqual(c.bytes);
      }),
      { seed: 11, numRuns: 300 },
    );
  });
});
