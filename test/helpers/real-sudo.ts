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
  spawnSync('script', ['-qec', `stty cols ${size.cols} rows ${size.rows}; sudo -u ${runas} sh -c '${script}'`, '/dev/null'], { stdio: 'ignore' });
}
