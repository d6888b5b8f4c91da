// Sessions and event logs written by Debian's sudo itself, for tests that must run on real
// sudo output: a sudoers drop-in scoped to run-as users of the test's own (`Defaults>USER …`,
// so no other sudo call on the machine is recorded), sessions run under script(1) so that sudo
// has a terminal, the drop-in removed again at once.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';

/** Root, sudo, visudo and script(1) are here; in CI their absence is a failure, not a skip. */
export function canRecordWithSudo(what: string): boolean {
  const ok = process.getuid?.() === 0 && spawnSync('sudo', ['-V']).status === 0 && spawnSync('script', ['-V']).status === 0;
  if (!ok && process.env.CI) throw new Error(`${what} needs root, Debian sudo and script(1) in CI`);
  if (!ok) console.warn(`skipping ${what}: it needs root (a sudoers drop-in), sudo and script(1)`);
  return ok;
}

/** Creates the run-as user (no home, /bin/sh) when it does not exist. */
export function ensureUser(name: string): void {
  if (spawnSync('id', [name]).status !== 0) execFileSync('useradd', ['-M', '-s', '/bin/sh', name]);
}

/**
 * Runs `record` with the sudoers lines in a drop-in (checked by visudo first), then removes it.
 * `tag` keeps concurrent test files' drop-ins apart.
 */
export function withSudoers<T>(tag: string, lines: readonly string[], record: () => T): T {
  const dropin = `/etc/sudoers.d/zz-evio-${tag}-${process.pid}`;
  writeFileSync(dropin, `${lines.join('\n')}\n`, { mode: 0o440 });
  chmodSync(dropin, 0o440);
  try {
    const check = spawnSync('visudo', ['-c', '-f', dropin], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`visudo refused the test's drop-in: ${check.stdout}${check.stderr}`);
    return record();
  } finally {
    rmSync(dropin, { force: true });
  }
}

/**
 * One command through sudo as `runas`, on a terminal of `cols` x `rows` (what sudo records as
 * the session's geometry). `script` is the shell text sh -c runs; it must not hold `'`.
 */
export function sudoOnTerminal(runas: string, script: string, size: { cols: number; rows: number } = { cols: 80, rows: 24 }): void {
  if (script.includes("'")) throw new Error('the sudo test script must not contain a single quote');
  // A recording takes a few seconds; timeout(1) ends one that sudo never finishes (below).
  const r = spawnSync('timeout', ['-k', '5', String(SUDO_SECONDS), 'script', '-qec', `stty cols ${size.cols} rows ${size.rows}; sudo -u ${runas} sh -c '${script}'`, '/dev/null'], { stdio: 'ignore' });
  if (r.status === 124 || r.status === 137) {
    // What is left of it (sudo itself, orphaned when script(1) was ended), by its command line.
    spawnSync('pkill', ['-KILL', '-f', `^sudo -u ${runas} sh -c `]);
    throw new SudoHung(`sudo -u ${runas} did not finish within ${SUDO_SECONDS} s`);
  }
}

/** Seconds a recording may take before it counts as hung. */
const SUDO_SECONDS = 40;

/**
 * sudo hung during a recording. Seen once in CI with Debian's sudo 1.9.13 under script(1): its
 * monitor process exited (a zombie) before the command ran, and sudo waited in poll() forever,
 * having logged the accept and made the session's directory. Without a bound the test's
 * synchronous spawn never returned, and no test timeout could fire.
 */
export class SudoHung extends Error {
  override name = 'SudoHung';
}

/**
 * Records with `record(attempt)`, again from the start when sudo hung, up to `attempts` times:
 * `record` must put each attempt's sessions and event logs in paths of their own (a hung sudo
 * leaves an accept in the event log and a session directory without output behind).
 */
export function recordingAttempts<T>(record: (attempt: number) => T, attempts = 3): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return record(attempt);
    } catch (err) {
      if (!(err instanceof SudoHung) || attempt >= attempts) throw err;
      console.warn(`${err.message}; recording again (attempt ${attempt + 1} of ${attempts})`);
    }
  }
}
