// The writer against real sudo_logsrvd 1.9.13 output: the two sessions of samples/logsrvd-io
// (a tty session: `ls -la /etc/hostname`; a pipe session: `sh -c 'echo err >&2; exit 4'`)
// are written again from what their client sent (the info messages of their log.json, in the
// order sudo's log client sends them, their timing records and stream bytes, their exit) and
// must come out byte for byte the same: log, log.json with its exit, timing, stream files, the
// set of files (logsrvd creates stdout, stderr and ttyout at Accept, stdin and ttyin on their
// first record), and seq. sudoreplay then lists and replays both roots identically.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIologSession } from '../../../src/iolog/writer/index.js';
import type { InfoValue, IoStream } from '../../../src/iolog/writer/types.js';
import { SAMPLES } from '../../helpers/samples.js';
import { copyTree } from '../helpers.js';
import { removeRoot, runSudoreplay, sudoreplay, tempRoot, writerOptions } from './helpers.js';

const SAMPLE_ROOT = join(SAMPLES, 'logsrvd-io');
const STREAMS = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];

interface SampleJson {
  timestamp: { seconds: number; nanoseconds: number };
  run_time: { seconds: number; nanoseconds: number };
  exit_value: number;
  [k: string]: unknown;
}

/** The InfoMessages sudo's log client sent for a sample, in log_client.c's order. */
function infoOf(j: SampleJson): Map<string, InfoValue> {
  const order = ['columns', 'command', 'lines', 'runargv', 'runchroot', 'runcwd', 'runenv', 'rungid', 'rungroup', 'runuid', 'runuser', 'submitcwd', 'submithost', 'submituser', 'ttyname'];
  const m = new Map<string, InfoValue>();
  for (const k of order) if (k in j) m.set(k, j[k] as InfoValue);
  return m;
}

let root: string;
let copy: string;

beforeAll(async () => {
  root = tempRoot();
  copy = tempRoot('evio-writer-sample-');
  copyTree(SAMPLE_ROOT, copy);
  for (const id of ['00/00/01', '00/00/02']) {
    const dir = join(SAMPLE_ROOT, id);
    const j = JSON.parse(readFileSync(join(dir, 'log.json'), 'utf8')) as SampleJson;
    const s = await createIologSession(writerOptions(root), { sec: j.timestamp.seconds, nsec: j.timestamp.nanoseconds }, infoOf(j));
    expect(s.relPath).toBe(id);
    const offsets = [0, 0, 0, 0, 0];
    for (const line of readFileSync(join(dir, 'timing'), 'latin1').split('\n').filter(Boolean)) {
      const [type, delay, n] = line.split(' ') as [string, string, string];
      const [sec, nsec] = delay.split('.').map(Number) as [number, number];
      const stream = Number(type) as IoStream;
      const file = readFileSync(join(dir, STREAMS[stream]!));
      s.writeIo(stream, { sec, nsec }, file.subarray(offsets[stream], offsets[stream]! + Number(n)));
      offsets[stream]! += Number(n);
    }
    await s.flush();
    await s.finish({ runTime: { sec: j.run_time.seconds, nsec: j.run_time.nanoseconds }, exitValue: j.exit_value });
  }
});

afterAll(() => {
  removeRoot(root);
  removeRoot(copy);
});

describe('sessions written again from what the client sent are logsrvd\'s bytes', () => {
  for (const id of ['00/00/01', '00/00/02']) {
    it(`${id}: the same files, byte for byte`, () => {
      const want = join(SAMPLE_ROOT, id);
      const got = join(root, id);
      expect(readdirSync(got).sort()).toEqual(readdirSync(want).sort());
      for (const name of readdirSync(want)) {
        expect(readFileSync(join(got, name)).toString('latin1'), name).toBe(readFileSync(join(want, name)).toString('latin1'));
      }
      // Modes: 0600 files, timing 0400 once complete, 0700 directories.
      for (const name of readdirSync(got)) expect(statSync(join(got, name)).mode & 0o777, name).toBe(name === 'timing' ? 0o400 : 0o600);
      expect(statSync(got).mode & 0o777).toBe(0o700);
    });
  }

  it('the root: the same entries and the same seq', () => {
    expect(readdirSync(root).sort()).toEqual(readdirSync(SAMPLE_ROOT).sort());
    expect(readFileSync(join(root, 'seq'))).toEqual(readFileSync(join(SAMPLE_ROOT, 'seq')));
  });

  it.runIf(runSudoreplay)('sudoreplay lists and replays both roots identically', () => {
    const mine = sudoreplay(['-d', root, '-l']);
    const theirs = sudoreplay(['-d', copy, '-l']);
    expect(mine.status).toBe(0);
    expect(mine.stdout.toString()).toBe(theirs.stdout.toString());
    expect(mine.stdout.toString().split('\n').filter(Boolean)).toHaveLength(2);
    for (const id of ['000001', '000002']) {
      for (const filter of ['ttyout,stdout,stderr', 'stdin,stdout,stderr,ttyin,ttyout']) {
        const a = sudoreplay(['-d', root, '-n', '-m', '0', '-f', filter, id]);
        const b = sudoreplay(['-d', copy, '-n', '-m', '0', '-f', filter, id]);
        expect(a.status).toBe(0);
        expect(a.stdout.equals(b.stdout)).toBe(true);
      }
    }
  });
});
