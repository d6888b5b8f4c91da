// What a sudoreplay user types, on sessions Debian's sudo records in the test: `-d DIR ID`
// (DIR becomes the command's only root, ID a TSID), `iolog list` as a table on a terminal (JSON
// when piped or with --json), and `iolog play`'s header and its warning when the terminal is
// smaller than the session — in a real terminal (tmux).
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRecordWithSudo, ensureUser, recordingAttempts, sudoOnTerminal, withSudoers } from '../helpers/real-sudo.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
const RUNAS = 'evio-sr';
const DEADLINE_MS = 30_000;

function evio(config: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--config', config, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmux(socket: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  return { code: r.status, out: r.stdout };
}

/** Runs `cmd` in a fresh tmux pane of cols x rows; the pane's text once `done` shows on it. */
async function inTerminal(cols: number, rows: number, cmd: string, done: RegExp): Promise<string> {
  const socket = `evio-sr-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  expect(tmux(socket, '-f', '/dev/null', 'new-session', '-d', '-s', 't', '-x', String(cols), '-y', String(rows), 'sh').code).toBe(0);
  const socketPath = tmux(socket, 'display-message', '-p', '#{socket_path}').out.trim();
  try {
    tmux(socket, 'send-keys', '-t', 't', `${cmd}; echo CMD-EXIT-$?`, 'Enter');
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      const screen = tmux(socket, 'capture-pane', '-p', '-J', '-t', 't', '-S', '-200').out;
      if (done.test(screen)) return screen;
      if (Date.now() > end) throw new Error(`the terminal never showed ${done}:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    tmux(socket, 'kill-server');
    rmSync(socketPath, { force: true });
  }
}

const enabled = canRecordWithSudo('the sudoreplay-forms CLI test');

describe.skipIf(!enabled)('sudoreplay forms on sessions Debian sudo recorded', () => {
  let dir: string;
  let root: string;
  let config: string;

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-srf-')));

    // The settings name another root: only -d makes the recorded sessions reachable.
    mkdirSync(join(dir, 'other-root'));
    config = join(dir, 'settings.json');
    writeFileSync(config, JSON.stringify({ home: join(dir, 'data'), iologdirs: [join(dir, 'other-root')] }));
    ensureUser(RUNAS);
    // Each attempt records into a root of its own (recordingAttempts: sudo may hang).
    root = recordingAttempts((attempt) => {
      const r = join(dir, `sudo-io-${attempt}`);
      mkdirSync(r, { mode: 0o700 });
      withSudoers('srforms', [`Defaults>${RUNAS} log_input, log_output, iolog_dir=${r}, !syslog`], () => {
        sudoOnTerminal(RUNAS, 'echo first-session-line', { cols: 100, rows: 30 });
        sudoOnTerminal(RUNAS, 'echo second-session-line', { cols: 80, rows: 24 });
      });
      return r;
    });
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('-d DIR ID names DIR/00/00/01, as sudoreplay -d does; without -d the ID is not under the roots', () => {
    const without = evio(config, ['iolog', 'variables', '000001']);
    expect([without.status, without.stderr]).toEqual([1, expect.stringMatching(/^evio: 1004 /)]);
    for (const args of [['iolog', '-d', root, 'variables', '000001'], ['iolog', 'variables', '-d', root, '000001'], ['iolog', 'variables', `--dir=${root}`, '000001']]) {
      const r = evio(config, args);
      expect(r.stderr).toBe('');
      const log = (JSON.parse(r.stdout) as { log: Record<string, unknown> }).log;
      expect([log.runuser, log.columns, log.lines]).toEqual([RUNAS, 100, 30]);
    }
    const missing = evio(config, ['iolog', 'variables', '-d', join(dir, 'nowhere'), '000001']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(join(dir, 'nowhere'));
  });

  it('iolog list prints a table on a terminal and JSON when piped or with --json', async () => {
    const piped = evio(config, ['iolog', 'list', '-d', root]);
    const rows = (JSON.parse(piped.stdout) as { result: { runuser: string }[] }).result;
    expect(rows.map((r) => r.runuser)).toEqual([RUNAS, RUNAS]);
    const screen = await inTerminal(160, 20, `${process.execPath} ${BIN} --config ${config} iolog list -d ${root}`, /CMD-EXIT-\d+/);
    expect(screen).toMatch(/^START\s+USER\s+RUNAS\s+HOST\s+SESSION\s+COMMAND\s*$/m);
    expect(screen).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+root\\s+${RUNAS}\\s+\\S+\\s+000001\\s+/usr/bin/sh -c echo first-session-line\\s*$`, 'm'));
    expect(screen).toMatch(/\s000002\s/);
    expect(screen).toContain('CMD-EXIT-0');
    const json = await inTerminal(160, 20, `${process.execPath} ${BIN} --config ${config} iolog list -d ${root} --json | head -c 12`, /CMD-EXIT-\d+/);
    expect(json).toContain('{"result":[');
  });

  it('iolog play says what it replays and warns when the terminal is smaller than the session', async () => {
    const small = await inTerminal(60, 20, `${process.execPath} ${BIN} --config ${config} iolog play -d ${root} 000001 --idle-limit 0`, /CMD-EXIT-\d+/);
    expect(small).toContain('Replaying sudo session: /usr/bin/sh -c echo first-session-line');
    expect(small).toContain('Warning: your terminal is too small to properly replay the log.');
    expect(small).toContain("Log geometry is 30 x 100, your terminal's geometry is 20 x 60.");
    expect(small).toContain('first-session-line');
    expect(small).toContain('CMD-EXIT-0');
    const fits = await inTerminal(120, 40, `${process.execPath} ${BIN} --config ${config} iolog play -d ${root} 000002 --idle-limit 0`, /CMD-EXIT-\d+/);
    expect(fits).toContain('Replaying sudo session: /usr/bin/sh -c echo second-session-line');
    expect(fits).not.toContain('too small');
    // Piped, standard output is the session's bytes only: the header went to standard error.
    const piped = evio(config, ['iolog', 'play', '-d', root, '000002', '--idle-limit', '0']);
    expect(piped.stdout).not.toContain('Replaying');
    expect(piped.stdout).toContain('second-session-line');
    expect(piped.stderr).toBe('Replaying sudo session: /usr/bin/sh -c echo second-session-line\n');
  });
});
