// The seek index: the screen at a time from the nearest keyframe equals the screen replayed from
// the session's start (at many times, in sessions long enough for many keyframes, in gzip and
// plain sample sessions), the data-stream offset of a time is the end of its last record, the
// chunk at a time starts there, and a session that grows is extended from its last keyframe.
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSessions } from '../../src/iolog/generate-sessions.js';
import { writeLongSession } from '../../src/iolog/generate-shell-session.js';
import { sessionScreen } from '../../src/iolog/screen.js';
import { buildSeekIndex, seekChunk, seekScreen } from '../../src/iolog/seek.js';
import { SNAPSHOT_VERSION } from '../../src/replay/screen-snapshot.js';
import { dropFromSeekIndex, openSeekDb, readSeekSession, writeSeekSession } from '../../src/iolog/seek-store.js';
import { copySamples, removeDir, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

function tmp(): string {
  const d = tempDir('evio-seek-');
  dirs.push(d);
  return d;
}

/** Records of a sudo session's timing: [ms from start, bytes, type]. */
function timing(dir: string): Array<{ ms: number; n: number; type: number }> {
  let ns = 0n;
  return readFileSync(join(dir, 'timing'), 'latin1')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [t, d, a] = l.split(' ');
      const [s, f = ''] = d!.split('.');
      ns += BigInt(s!) * 1_000_000_000n + BigInt(f.padEnd(9, '0').slice(0, 9));
      const type = Number(t);
      return { ms: Number(ns) / 1e6, n: type <= 4 ? Number(a) : 0, type };
    });
}

function trimBottom(lines: string[]): string[] {
  const out = [...lines];
  while (out.length && out[out.length - 1]!.trim() === '') out.pop();
  return out;
}

describe('seek index', () => {
  const root = tmp();
  const seekFile = join(tmp(), 'index-seek.sqlite');
  const long = join(root, 'long');
  const made = writeLongSession(long, { bytes: 3 * 1024 * 1024, seed: 5 });

  it('builds keyframes for a long session and answers the screen at many times like a straight replay', async () => {
    const stats = await buildSeekIndex([root], seekFile, 'long');
    expect(stats.action).toBe('built');
    expect(stats.keyframes).toBeGreaterThanOrEqual(5);
    expect(stats.bytes).toBe(made.bytes);
    const recs = timing(long);
    const end = recs[recs.length - 1]!.ms;
    expect(stats.duration).toBeCloseTo(end / 1000, 6);
    let fromKeyframe = 0;
    for (let i = 0; i <= 24; i++) {
      const atMs = (end * i) / 24 + (i % 3) * 0.37;
      const at = (atMs / 1000).toFixed(6);
      const atMsParsed = Number(at) * 1000;
      const seek = await seekScreen([root], seekFile, { file: 'long', atMs: atMsParsed });
      const straight = await sessionScreen([root], { file: 'long', atMs: atMsParsed });
      expect(trimBottom(seek.lines), `at ${at}`).toEqual(straight.lines);
      const offset = recs.filter((r) => r.ms <= atMsParsed).reduce((n, r) => n + r.n, 0);
      expect(seek.offset, `offset at ${at}`).toBe(offset);
      expect(seek.duration).toBeCloseTo(end / 1000, 6);
      if (seek.keyframe) fromKeyframe++;
    }
    expect(fromKeyframe).toBeGreaterThan(15);
  });

  it('answers the chunk at a time from the offset of that time', async () => {
    const recs = timing(long);
    const atMs = Number(((recs[recs.length - 1]!.ms * 0.6) / 1000).toFixed(3)) * 1000;
    const screen = await seekScreen([root], seekFile, { file: 'long', atMs });
    const c = await seekChunk([root], seekFile, { file: 'long', atMs, len: 4096 });
    expect(c.start).toBe(screen.offset);
    expect(c.at).toBeCloseTo(atMs / 1000, 6);
    // The same bytes as a chunk by position read without the index.
    const plain = await seekChunk([root], join(tmp(), 'none.sqlite'), { file: 'long', start: screen.offset, len: 4096 });
    expect(c.items).toEqual(plain.items);
    expect(c.bytes).toBe(made.bytes);
  });

  it('extends the index from the last keyframe when the session grows, and rebuilds when it changes', async () => {
    const before = readSeekSession(openSeekDb(seekFile), long)!;
    chmodSync(join(long, 'timing'), 0o600);
    const extra = 'more output\r\n'.repeat(50_000);
    appendFileSync(join(long, 'ttyout'), extra);
    appendFileSync(join(long, 'timing'), `4 2.5 ${Buffer.byteLength(extra)}\n`);
    const stats = await buildSeekIndex([root], seekFile, 'long');
    expect(stats.action).toBe('extended');
    expect(stats.bytes).toBe(made.bytes + extra.length);
    expect(stats.keyframes).toBeGreaterThanOrEqual(before.keyframes);
    const seek = await seekScreen([root], seekFile, { file: 'long', atMs: Infinity });
    const straight = await sessionScreen([root], { file: 'long', atMs: Infinity });
    expect(trimBottom(seek.lines)).toEqual(straight.lines);
    expect(seek.offset).toBe(made.bytes + extra.length);
    expect((await buildSeekIndex([root], seekFile, 'long')).action).toBe('fresh');
    // The timing file replaced (another inode, as a rewritten session has): built anew.
    copyFileSync(join(long, 'timing'), join(long, 'timing.new'));
    renameSync(join(long, 'timing.new'), join(long, 'timing'));
    expect((await buildSeekIndex([root], seekFile, 'long')).action).toBe('built');
  });

  it('gives the same screens as a straight replay in generated gzip and plain sessions and the samples', async () => {
    const gen = tmp();
    generateSessions({ count: 12, seed: 3, out: gen });
    const samples = copySamples();
    dirs.push(samples);
    const cases: Array<[string, string]> = [];
    for (let i = 1; i <= 12; i++) cases.push([gen, `00/00/${i.toString(36).toUpperCase().padStart(2, '0')}`]);
    cases.push([samples, 'sudo-io/00/00/04']);
    for (const [r, file] of cases) {
      for (const atMs of [0, 500, 1500, 4000, 12000, Infinity]) {
        const seek = await seekScreen([r], seekFile, { file, atMs });
        const straight = await sessionScreen([r], { file, atMs });
        expect(trimBottom(seek.lines), `${file} at ${atMs}`).toEqual(straight.lines);
      }
    }
  });

  it('a chunk by position neither needs nor creates the seek index; a seek index that cannot be written still gives the screen', async () => {
    const none = join(tmp(), 'never.sqlite');
    const c = await seekChunk([root], none, { file: 'long', start: 100, len: 50 });
    expect(c.len).toBe(50);
    expect(existsSync(none)).toBe(false);
    const blocked = join(long, 'timing', 'seek.sqlite'); // below a file: cannot be created
    const s = await seekScreen([root], blocked, { file: 'long', atMs: 2000 });
    const straight = await sessionScreen([root], { file: 'long', atMs: 2000 });
    expect(trimBottom(s.lines)).toEqual(straight.lines);
    expect(s.warnings.join(' ')).toMatch(/^1450 /);
  });

  it('drops purged sessions from the seek index', async () => {
    expect(readSeekSession(openSeekDb(seekFile), long)).not.toBeNull();
    expect(dropFromSeekIndex(seekFile, [root])).toBeGreaterThanOrEqual(1);
    expect(readSeekSession(openSeekDb(seekFile), long)).toBeNull();
    expect((await buildSeekIndex([root], seekFile, 'long')).action).toBe('built');
  });

  it('gives a repaint, the cursor and cells', async () => {
    const s = await seekScreen([root], seekFile, { file: 'long', atMs: 1000, cells: true });
    expect(s.repaint.startsWith('\x1b[?7l')).toBe(true);
    expect(s.cells).toHaveLength(s.rows);
    expect(s.cells![0]).toHaveLength(s.cols);
    expect(s.cursor.visible).toBe(true);
    expect(s.lines[0]).toContain('root@build7');
  });

  it('rebuilds an index whose keyframes have an older snapshot format', async () => {
    const db = openSeekDb(seekFile);
    const row = readSeekSession(db, long)!;
    const current = new RegExp(`:s${SNAPSHOT_VERSION}$`);
    expect(SNAPSHOT_VERSION).toBe(3);
    expect(row.sig).toMatch(current);
    // As an older format wrote it: no snapshot version in the signature, then version 2 (LNM
    // forced per record, no DECSCA protection).
    for (const older of ['', ':s2']) {
      writeSeekSession(db, long, { ...readSeekSession(db, long)!, sig: row.sig.replace(current, older) });
      expect((await buildSeekIndex([root], seekFile, 'long')).action).toBe('built');
      expect((await buildSeekIndex([root], seekFile, 'long')).action).toBe('fresh');
    }
  });

  it('an asciicast whose program set LNM (CSI 20 h) keeps it at later records: seek and straight replay as xterm.js', async () => {
    const dir = join(root, 'lnm');
    mkdirSync(dir, { recursive: true });
    const cast = [
      JSON.stringify({ version: 2, width: 20, height: 5 }),
      JSON.stringify([0.1, 'o', 'a\x1b[20h']),
      JSON.stringify([0.2, 'o', '\nb']),
      JSON.stringify([0.3, 'o', '\nc\x1b[1"qP\x1b[0"qd\x1b[1G\x1b[?2K']),
    ].join('\n');
    writeFileSync(join(dir, 'lnm.cast'), cast + '\n');
    for (const [atMs, want] of [[250, ['a', 'b']], [Infinity, ['a', 'b', ' P']]] as const) {
      const s = await seekScreen([root], seekFile, { file: 'lnm/lnm.cast', atMs });
      expect(trimBottom(s.lines)).toEqual(want);
      const straight = await sessionScreen([root], { file: 'lnm/lnm.cast', atMs });
      expect(trimBottom(straight.lines)).toEqual(want);
    }
  });

  it('cells carry colours and flags (defaults left out)', async () => {
    const dir = join(root, 'colours');
    mkdirSync(dir, { recursive: true });
    const out = '\x1b[1;31mred\x1b[0m plain \x1b[48;2;0;0;128;4mblue\x1b[m';
    writeFileSync(join(dir, 'ttyout'), out);
    writeFileSync(join(dir, 'timing'), `4 0.5 ${Buffer.byteLength(out)}\n`);
    writeFileSync(join(dir, 'log'), '1700000000:root:root::/dev/pts/1:24:80\n/root\n/bin/sh\n');
    const s = await seekScreen([root], seekFile, { file: 'colours', atMs: Infinity, cells: true });
    const row = s.cells![0]!;
    expect(row[0]).toEqual({ t: 'r', w: 1, fg: 1, flags: 1 });
    expect(row[3]).toEqual({ t: ' ', w: 1 });
    expect(row[10]).toEqual({ t: 'b', w: 1, bg: '#000080', flags: 8 });
    expect(s.repaint).toContain('\x1b[0;1;31mred');
  });
});
