// A follower's reads of a growing sudo session (GET /REST/iolog/follow): the timing is passed
// over from the point where the previous read ended, not from the start. Checked against the
// plain read at every step: a session is grown one timing record at a time (plain and gzip
// stream files, generated sessions with window changes and every stream, and a sample written by
// sudo), and each tail read must equal the chunk read without a hint; the point a scan resumes
// from, taken at every record boundary, gives the totals of a scan from the start.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSessions } from '../../src/iolog/generate-sessions.js';
import { openSession } from '../../src/iolog/locate.js';
import { seekChunk, type TailHint } from '../../src/iolog/seek.js';
import { startPoint } from '../../src/iolog/session.js';
import { copySamples, removeDir, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

function tmp(): string {
  const d = tempDir('evio-tail-');
  dirs.push(d);
  return d;
}

/** The timing lines of a session (a gzip timing decoded). */
function timingLines(dir: string): string[] {
  const raw = readFileSync(join(dir, 'timing'));
  const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('latin1');
  return text.split('\n').filter(Boolean);
}

/** A live copy of a session: its stream files whole, its timing (plain, writable) holding the first `n` lines. */
function liveCopy(src: string, dest: string, lines: string[], n: number): void {
  mkdirSync(dest, { recursive: true });
  for (const f of readdirSync(src)) if (f !== 'timing') copyFileSync(join(src, f), join(dest, f));
  writeFileSync(join(dest, 'timing'), lines.slice(0, n).map((l) => `${l}\n`).join(''), { mode: 0o600 });
}

function withoutTail<T extends { tail?: unknown }>(c: T): Omit<T, 'tail'> {
  const { tail: _tail, ...rest } = c;
  return rest;
}

describe('following a growing session', () => {
  const gen = tmp();
  generateSessions({ count: 3, seed: 11, out: gen });
  const samples = copySamples();
  dirs.push(samples);
  const cases: Array<[string, string]> = [];
  for (let i = 1; i <= 3; i++) cases.push([gen, `00/00/${i.toString(36).toUpperCase().padStart(2, '0')}`]);
  cases.push([samples, 'sudo-io/00/00/04']);

  it('reads each step of the growth from the last point as the plain read does', async () => {
    const seekFile = join(tmp(), 'seek.sqlite');
    let hinted = 0;
    for (const [root, file] of cases) {
      const lines = timingLines(join(root, file));
      const live = tmp();
      liveCopy(join(root, file), join(live, 's'), lines, 0);
      let pos = 0;
      let hint: TailHint | null = null;
      // Growth in uneven steps (1, 2, 3, 1, 2, 3 ... records), ending with the whole timing.
      for (let n = 0, step = 1; n < lines.length; step = (step % 3) + 1) {
        n = Math.min(lines.length, n + step);
        writeFileSync(join(live, 's', 'timing'), lines.slice(0, n).map((l) => `${l}\n`).join(''));
        for (;;) {
          const tail = await seekChunk([live], seekFile, { file: 's', start: pos, len: 256, follow: { from: hint } });
          const plain = await seekChunk([live], seekFile, { file: 's', start: pos, len: 256 });
          expect(withoutTail(tail), `${file}, ${n} records, from ${pos}`).toEqual(plain);
          if (hint && hint.point.pos === pos) hinted++;
          if (tail.tail) hint = tail.tail;
          pos += tail.len;
          if (tail.len === 0 || pos >= tail.bytes) break;
        }
      }
      expect(pos).toBe((await seekChunk([live], seekFile, { file: 's', start: 0, len: 1 })).bytes);
    }
    // The hint was taken, not only offered: most reads after the first resumed from a point.
    expect(hinted).toBeGreaterThan(cases.length * 5);
  });

  it('a scan resumed at any record boundary gives the totals and end point of a scan from the start', async () => {
    for (const [root, file] of cases) {
      const lines = timingLines(join(root, file));
      const live = tmp();
      liveCopy(join(root, file), join(live, 's'), lines, lines.length);
      const whole = await openSession([live], 's');
      const full = await whole.scanFrom!(startPoint());
      expect(withoutEnd(full)).toEqual(await whole.scan());
      for (let k = 0; k <= lines.length; k++) {
        const part = tmp();
        liveCopy(join(root, file), join(part, 's'), lines, k);
        const point = (await (await openSession([part], 's')).scanFrom!(startPoint())).end;
        const resumed = await whole.scanFrom!(point);
        expect(resumed, `${file} from record ${k}`).toEqual(full);
      }
    }
  });

  it('a point from another timing file (replaced: another inode) is not used', async () => {
    const [root, file] = cases[0]!;
    const lines = timingLines(join(root, file));
    const live = tmp();
    liveCopy(join(root, file), join(live, 's'), lines, lines.length);
    const seekFile = join(tmp(), 'seek.sqlite');
    const first = await seekChunk([live], seekFile, { file: 's', start: 0, len: 1 << 20, follow: { from: null } });
    expect(first.tail?.point.pos).toBe(first.bytes);
    // The same records written to a new file: same size, another inode; a hint that lies about
    // its position (claims the start) must not be taken for it.
    writeFileSync(join(live, 's', 'timing.new'), lines.map((l) => `${l}\n`).join(''), { mode: 0o600 });
    renameSync(join(live, 's', 'timing.new'), join(live, 's', 'timing'));
    chmodSync(join(live, 's', 'timing'), 0o600);
    const lying: TailHint = { ino: first.tail!.ino, point: { ...first.tail!.point, pos: 0 } };
    const again = await seekChunk([live], seekFile, { file: 's', start: 0, len: 1 << 20, follow: { from: lying } });
    expect(withoutTail(again)).toEqual(withoutTail(first));
  });
});

function withoutEnd<T extends { end?: unknown }>(s: T): Omit<T, 'end'> {
  const { end: _end, ...rest } = s;
  return rest;
}
