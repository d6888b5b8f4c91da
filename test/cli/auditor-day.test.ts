// An auditor's day on real sudo data (issue 27, points 1, 7 and 8), on sessions and event logs
// Debian's sudo writes in the test: a damaged session is read as far as it can be, with each
// warning on stderr and exit 1 (0 with --allow-damaged), and a `warnings` field over REST; store
// names resolve against the event-log folders whatever the working directory (cron); a purge
// keeps the records of the I/O logs it refuses to touch; stores and exports are created 0600.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import { makeHome, serve, signed, type TestHome } from '../http/server/helpers.js';
import { canRecordWithSudo, ensureUser, recordingAttempts, sudoOnTerminal, withSudoers } from '../helpers/real-sudo.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
const USERS = { inside: 'evio-ad1', outside: 'evio-ad2' };

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const enabled = canRecordWithSudo('the auditor-day CLI test');

describe.skipIf(!enabled)("an auditor's day on sessions and logs Debian sudo wrote", () => {
  let home: TestHome;
  let server: RunningServer;
  let io: string;
  let outside: string;
  let logs: string;
  let config: string;

  /** evio with the test's settings, umask 022 (what a cron job has), from `cwd` (default /). */
  function evio(args: string[], cwd = '/'): Run {
    const r = spawnSync('sh', ['-c', 'umask 022; exec "$0" "$@"', process.execPath, BIN, '--config', config, ...args], { encoding: 'utf8', cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** A copy of the recorded session under io/damaged/NAME, as sudo left it (timing read-only). */
  function damagedCopy(name: string, damage: (dir: string) => void): string {
    const dir = join(io, 'damaged', name);
    cpSync(join(io, '00', '00', '01'), dir, { recursive: true });
    chmodSync(join(dir, 'timing'), 0o600);
    damage(dir);
    chmodSync(join(dir, 'timing'), 0o400);
    return `damaged/${name}`;
  }

  beforeAll(async () => {
    home = makeHome();
    logs = join(home.dir, 'logs');
    mkdirSync(logs, { mode: 0o700 });
    for (const u of Object.values(USERS)) ensureUser(u);
    /** The two sessions, their accepts and finishes in `sudoJson`. */
    function record(sudoJson: string): void {
      const common = `log_input, log_output, log_exit_status, !syslog, log_format=json, logfile=${sudoJson}`;
      withSudoers('auditor', [`Defaults>${USERS.inside} ${common}, iolog_dir=${io}`, `Defaults>${USERS.outside} ${common}, iolog_dir=${outside}`], () => {
        // About 1.5 s of output, a line every 0.3 s: a cut timing shortens it visibly.
        sudoOnTerminal(USERS.inside, 'for i in 1 2 3 4 5 6; do echo audit-line-$i; sleep 0.3; done');
        sudoOnTerminal(USERS.outside, 'echo recorded-outside-the-roots');
      });
    }
    // Each attempt records into folders and an event log of its own (recordingAttempts: sudo may hang).
    const sudoJson = recordingAttempts((attempt) => {
      const tag = attempt === 1 ? '' : `-${attempt}`;
      io = join(home.dir, `io${tag}`);
      outside = join(home.dir, `outside-io${tag}`);
      for (const d of [io, outside]) mkdirSync(d, { mode: 0o700 });
      const log = join(home.dir, `sudo${tag}.json`);
      record(log);
      return log;
    });
    // The event log is named relative to the event-log folder: `logs` holds it.
    config = join(home.dir, 'settings.json');
    writeFileSync(config, JSON.stringify({ home: join(home.dir, 'data'), iologdirs: [io], eventlogdirs: [logs], eventlog: join(logs, 'sudo.ndjson') }));
    const imported = evio(['events', 'import', '--from', 'sudo-json', sudoJson]);
    expect(imported.stderr).toMatch(/^imported 4 records/);
    home.settings.iologdirs.splice(0, home.settings.iologdirs.length, io);
    server = await serve(home);
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  describe('point 1: damaged recordings are reported, and still read', () => {
    let cut: string;
    let corrupt: string;
    let short: string;
    let badJson: string;
    beforeAll(() => {
      // The timing cut after its 4th line (gzip intact: a cut at a line, the way a copy cut short looks).
      cut = damagedCopy('cut-timing', (d) => {
        const lines = gunzipSync(readFileSync(join(d, 'timing'))).toString('latin1').split('\n');
        writeFileSync(join(d, 'timing'), gzipSync(Buffer.from(`${lines.slice(0, 4).join('\n')}\n`, 'latin1')));
      });
      // ttyout's deflate data scrambled after its header.
      corrupt = damagedCopy('corrupt-ttyout', (d) => {
        const b = readFileSync(join(d, 'ttyout'));
        for (let i = 12; i < b.length - 8; i++) b[i]! ^= 0x5a;
        writeFileSync(join(d, 'ttyout'), b);
      });
      // ttyout cut in half.
      short = damagedCopy('short-ttyout', (d) => truncateSync(join(d, 'ttyout'), Math.floor(statSync(join(d, 'ttyout')).size / 2)));
      // log.json unreadable: the legacy log is read instead.
      badJson = damagedCopy('bad-log-json', (d) => writeFileSync(join(d, 'log.json'), '{"submituser": '));
    });

    it('an intact session: exit 0, nothing on stderr', () => {
      for (const args of [['chunk', '00/00/01'], ['screen', '00/00/01'], ['commands', '00/00/01']]) {
        const r = evio(['iolog', ...args]);
        expect([args[0], r.status, r.stderr]).toEqual([args[0], 0, '']);
      }
    });

    it('a timing file cut short: 1470 on stderr and in the JSON, exit 1, the readable part printed; --allow-damaged exits 0', () => {
      const whole = JSON.parse(evio(['iolog', 'screen', '00/00/01', '--json']).stdout) as { duration: number; lines: string[] };
      expect(whole.lines.join('\n')).toContain('audit-line-6');
      const r = evio(['iolog', 'screen', cut, '--json']);
      expect(r.status).toBe(1);
      const body = JSON.parse(r.stdout) as { duration: number; lines: string[]; warnings: string[] };
      expect(body.duration).toBeLessThan(whole.duration - 0.5);
      expect(body.lines.join('\n')).toContain('audit-line-1');
      expect(body.lines.join('\n')).not.toContain('audit-line-6');
      expect(body.warnings).toEqual([expect.stringMatching(/^1470 .*cut-timing\/timing: the timing file ends before the stream file\(s\) ttyout do/)]);
      expect(r.stderr.split('\n')).toEqual([`evio: warning: ${body.warnings[0]}`, expect.stringMatching(/^evio: 1471 evio iolog screen read a damaged session \(1 warning above\)/), '']);
      const allowed = evio(['iolog', 'screen', cut, '--allow-damaged']);
      expect(allowed.status).toBe(0);
      expect(allowed.stdout).toContain('audit-line-1');
      expect(allowed.stderr).toMatch(/^evio: warning: 1470 /);
      expect(allowed.stderr).not.toMatch(/1471/);
    });

    it('every reader reports a corrupt and a short ttyout and a bad log.json: chunk, replay, screen, play, export, search, commands', () => {
      const cases: Array<[string, string]> = [
        [corrupt, '1411 .*corrupt-ttyout/ttyout: its gzip data is damaged'],
        [short, '1411 .*short-ttyout/ttyout: it is shorter than the timing file says'],
        [badJson, '1472 .*bad-log-json/log.json: .*the legacy log file was read instead'],
      ];
      for (const [file, warning] of cases) {
        const commands = [
          ['chunk', file],
          ['replay', file],
          ['screen', file],
          ['play', file, '--speed', '64'],
          ['export', '--format', 'asciicast', file],
          ['commands', file],
        ];
        for (const args of commands) {
          const r = evio(['iolog', ...args]);
          // (play writes sudoreplay's header on stderr first)
          expect({ args, status: r.status, stderr: r.stderr }).toEqual({ args, status: 1, stderr: expect.stringMatching(new RegExp(`(^|\\n)evio: warning: ${warning}[^\\n]*\\nevio: 1471 evio iolog ${args[0]} `)) });
          const allowed = evio(['iolog', ...args, '--allow-damaged']);
          expect({ args, status: allowed.status }).toEqual({ args, status: 0 });
        }
      }
      // Every --allow-damaged run still printed its warnings: only the exit status changed.
      // What could be read is still there: the short ttyout's first line, the bad log.json's session.
      expect(evio(['iolog', 'screen', short, '--allow-damaged']).stdout).toContain('audit-line-1');
      expect(evio(['iolog', 'export', '--format', 'asciicast', badJson, '--allow-damaged']).stdout).toContain('audit-line-6');
      const search = evio(['iolog', 'search', 'damaged/*', 'output:audit-line-1']);
      expect(search.status).toBe(1);
      expect((JSON.parse(search.stdout) as { iologs: string[] }).iologs.length).toBeGreaterThanOrEqual(3);
      expect(search.stderr).toMatch(/^evio: warning: 1411 .*corrupt-ttyout/m);
      expect(search.stderr).toMatch(/^evio: 1471 evio iolog search /m);
    }, 300_000); // 37 CLI runs: minutes on a loaded 2-core machine

    it('over REST the answers carry warnings, the duration of a cut timing included', async () => {
      const screen = await signed(server, 'admin', 'GET', `/REST/iolog/screen?file=${encodeURIComponent(cut)}`);
      expect(screen.body).toMatchObject({ status: 0, warnings: [expect.stringMatching(/^1470 /)] });
      const chunk = await signed(server, 'admin', 'GET', `/REST/iolog?file=${encodeURIComponent(corrupt)}`);
      expect(chunk.body).toMatchObject({ status: 0, warnings: [expect.stringMatching(/^1411 .*gzip data is damaged/)] });
      const intact = await signed(server, 'admin', 'GET', '/REST/iolog?file=00/00/01');
      expect(intact.body.status).toBe(0);
      expect(intact.body.warnings).toBeUndefined();
    });
  });

  describe('point 7: cron', () => {
    it('store names resolve against the event-log folder, not the working directory; an error names the resolved path', () => {
      for (const cwd of ['/', home.dir]) {
        const r = evio(['events', 'query', 'ff:sudo.ndjson', '--etype', 'K'], cwd);
        expect({ cwd, status: r.status }).toEqual({ cwd, status: 0 });
        expect(r.stdout.trim().split('\n')).toHaveLength(2);
      }
      const missing = evio(['events', 'query', 'ff:nope.ndjson']);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toBe(`evio: 1200 event log ff:nope.ndjson (resolved as ${join(logs, 'nope.ndjson')}) does not exist; reads and deletes never create one (evio events append, copy or import does)\n`);
    });

    it('query and export default to the configured event log', () => {
      const q = evio(['events', 'query', '--etype', 'K']);
      expect(q.status).toBe(0);
      expect(q.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { runuser: string }).runuser).sort()).toEqual([USERS.inside, USERS.outside]);
      const x = evio(['events', 'export', '--format', 'csv']);
      expect(x.status).toBe(0);
      expect(x.stderr).toMatch(new RegExp(`^exported 2 records .* from ff:${join(logs, 'sudo.ndjson')}`));
    });
  });

  describe('point 8: files and purges', () => {
    it('stores and exports are created 0600 under umask 022', () => {
      expect(statSync(join(logs, 'sudo.ndjson')).mode & 0o777).toBe(0o600);
      expect(evio(['events', 'copy', '--from', 'ff:sudo.ndjson', '--to', 'db:copy.sqlite']).status).toBe(0);
      expect(statSync(join(logs, 'copy.sqlite')).mode & 0o777).toBe(0o600);
      const csv = join(home.dir, 'export.csv');
      expect(evio(['events', 'export', '--format', 'csv', '--out', csv]).status).toBe(0);
      expect(statSync(csv).mode & 0o777).toBe(0o600);
      const cast = join(home.dir, 'session.cast');
      expect(evio(['iolog', 'export', '--format', 'asciicast', '00/00/01', '--out', cast]).status).toBe(0);
      expect(statSync(cast).mode & 0o777).toBe(0o600);
    });

    it('purge --dry-run: JSON on stdout, human lines on stderr; a purge keeps the records of I/O logs it refuses', () => {
      const dry = evio(['events', 'purge', '--all', '1', '--iologs', '--dry-run']);
      expect(dry.status).toBe(0);
      const plan = JSON.parse(dry.stdout) as { dryRun: boolean; sessions: number; refused: number; kept: number; records: number };
      // --all 1 reads finishes as records of their own: the refused session's accept and finish are kept.
      expect(plan).toMatchObject({ dryRun: true, sessions: 1, refused: 1, kept: 2, records: 2 });
      expect(dry.stderr).toMatch(new RegExp(`^would remove ${join(io, '00/00/01')} `, 'm'));
      expect(dry.stderr).toMatch(new RegExp(`^refused ${join(outside, '00/00/01')}: is outside the I/O log roots$`, 'm'));

      const run = evio(['events', 'purge', '--all', '1', '--iologs', '--yes']);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ dryRun: false, sessions: 1, refused: 1, kept: 2, records: 2 });
      expect(existsSync(join(io, '00/00/01'))).toBe(false);
      expect(existsSync(join(outside, '00/00/01', 'timing'))).toBe(true);
      // The refused I/O log's record is still there, and still leads to it.
      const left = evio(['events', 'query', '--verbose', '1']).stdout.trim().split('\n').map((l) => JSON.parse(l) as { runuser: string; iolog?: string });
      expect(left.map((e) => [e.runuser, e.iolog])).toEqual([[USERS.outside, join(outside, '00/00/01')]]);
    });
  });

  it('cleans up its own copies', () => {
    rmSync(join(io, 'damaged'), { recursive: true, force: true });
  });
});
