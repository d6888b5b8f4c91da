// Deterministic synthetic event logs for tests, demos and benchmarks: the same seed and count
// give the same bytes. Shape of a busy sudo fleet: a few hundred users and hosts, realistic
// commands with argv, ~5 % rejects, ~20 % I/O-logged (K) sessions, finish records arriving some
// records after their accepts, and a few sessions still running at the end.
import { prng } from '../prng.js';
import type { StoredEvent } from './types.js';

export { prng } from '../prng.js';

const FIRST = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yara'];
const RUNUSERS = ['root', 'root', 'root', 'root', 'postgres', 'www-data', 'oracle', 'nobody', 'deploy', 'backup'];
const SITES = ['lon', 'nyc', 'fra', 'sgp', 'syd'];
const ROLES = ['web', 'db', 'app', 'cache', 'build', 'bastion', 'mail', 'log'];
const COMMANDS: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<string>>]> = [
  ['/usr/bin/systemctl', [['restart', 'nginx'], ['status', 'postgresql'], ['reload', 'sshd'], ['stop', 'cron'], ['start', 'docker']]],
  ['/usr/bin/apt-get', [['update'], ['-y', 'upgrade'], ['install', '-y', 'htop'], ['remove', 'telnet']]],
  ['/usr/bin/journalctl', [['-u', 'nginx', '--since', 'today'], ['-xe'], ['-f']]],
  ['/bin/bash', [[], ['-l'], ['-c', 'tail -n 100 /var/log/syslog']]],
  ['/usr/bin/vim', [['/etc/hosts'], ['/etc/nginx/nginx.conf'], ['/etc/sudoers.d/ops']]],
  ['/bin/cat', [['/etc/shadow'], ['/var/log/auth.log'], ['/root/.bash_history']]],
  ['/usr/bin/id', [[], ['-u']]],
  ['/bin/ls', [['-la', '/root'], ['-l', '/var/lib/postgresql'], ['/etc/ssl/private']]],
  ['/usr/sbin/useradd', [['-m', 'tempuser'], ['-G', 'wheel', 'svc_backup']]],
  ['/usr/bin/kill', [['-9', '4242'], ['-HUP', '1']]],
  ['/usr/bin/tcpdump', [['-i', 'eth0', '-c', '100'], ['-nn', 'port', '443']]],
  ['/usr/bin/psql', [['-c', 'select 1'], ['-d', 'app']]],
];
const REJECT_REASONS = ['command not allowed', 'user NOT in sudoers', 'a password is required', '3 incorrect password attempts', 'user NOT authorized on host'];

export interface GenerateOptions {
  count: number;
  seed: number;
  /** Unix seconds of the first record. */
  start?: number;
  /** Root prefix written into K records' iolog paths. */
  iologRoot?: string;
  /**
   * Share (0..1, default 1) of the would-be keystroke records that stay K records; the others
   * become plain accepts. The random sequence is the same whatever the share, so every other
   * field is unchanged: a demo keeps few enough sessions to write them all.
   */
  keystrokeShare?: number;
  /** How many distinct submitting users (default 200: one user on ~0.5 % of the records). */
  users?: number;
  /** How many distinct hosts (default 300). */
  hosts?: number;
}

interface Open {
  due: number;
  accept: StoredEvent;
}

/** Keeps `open` sorted by due record number (binary search, then one splice). */
function insertByDue(open: Open[], item: Open): void {
  let lo = 0;
  let hi = open.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (open[mid]!.due <= item.due) lo = mid + 1;
    else hi = mid;
  }
  open.splice(lo, 0, item);
}

const positive = (n: number | undefined, dflt: number): number => (n !== undefined && Number.isInteger(n) && n > 0 ? n : dflt);

const pick = <T>(rnd: () => number, list: ReadonlyArray<T>): T => list[Math.floor(rnd() * list.length)]!;

/** Yields `count` records in recnum order. */
export function* generateEvents(opts: GenerateOptions): Generator<StoredEvent> {
  const rnd = prng(opts.seed);
  const users = Array.from({ length: positive(opts.users, 200) }, (_, i) => `${FIRST[i % FIRST.length]}${i < FIRST.length ? '' : i}`);
  const hosts = Array.from({ length: positive(opts.hosts, 300) }, (_, i) => `${pick(rnd, ROLES)}${String(i).padStart(3, '0')}.${SITES[i % SITES.length]}.example.com`);
  const masters = SITES.map((s) => `pmmaster.${s}.example.com`);
  const root = opts.iologRoot ?? '/var/log/sudo-io';
  let time = opts.start ?? 1_767_225_600; // 2026-01-01T00:00:00Z
  const open: Open[] = [];
  let session = 0;
  for (let recnum = 1; recnum <= opts.count; recnum++) {
    time += Math.floor(rnd() * 4000) / 1000;
    const remaining = opts.count - recnum;
    // Finish the oldest due session (finishes come later than their accepts; near the end of
    // the log a few stay open: still-running sessions).
    const head = open[0];
    if (head && head.due <= recnum && remaining > 20) {
      open.shift();
      const a = head.accept;
      const code = rnd() < 0.85 ? 0 : pick(rnd, [1, 2, 127, 130, 137, 143]);
      const fin: StoredEvent = {
        recnum,
        uniqueid: a.uniqueid,
        etype: 'F',
        time: Math.round(time * 1000) / 1000,
        submituser: a.submituser!,
        submithost: a.submithost!,
        runuser: a.runuser!,
        runhost: a.runhost!,
        runcommand: a.runcommand!,
        exitstatus: code > 128 ? `Command killed by signal ${code - 128}` : `Command finished with exit status ${code}`,
        exitcode: code,
      };
      if (code > 128) fin.signal = code - 128;
      yield fin;
      continue;
    }
    session++;
    const user = pick(rnd, users);
    const host = pick(rnd, hosts);
    const [cmd, argvs] = pick(rnd, COMMANDS);
    const args = pick(rnd, argvs);
    const base = cmd.slice(cmd.lastIndexOf('/') + 1);
    const uniqueid = `${(session * 2654435761 >>> 0).toString(16).padStart(8, '0')}${Math.floor(rnd() * 0xffffffff).toString(16).padStart(8, '0')}${session.toString(16).padStart(8, '0')}`;
    const r = rnd();
    const share = opts.keystrokeShare ?? 1;
    const etype = r < 0.05 ? 'R' : r < 0.05 + 0.2 * share ? 'K' : 'A';
    const rec: StoredEvent = {
      recnum,
      uniqueid,
      etype,
      time: Math.round(time * 1000) / 1000,
      submituser: user,
      submithost: host,
      runuser: pick(rnd, RUNUSERS),
      runhost: host,
      runcommand: cmd,
      runargv: [base, ...args],
      cwd: `/home/${user}`,
      ttyname: `/dev/pts/${Math.floor(rnd() * 8)}`,
      masterhost: pick(rnd, masters),
    };
    if (etype === 'R') {
      rec.reason = pick(rnd, REJECT_REASONS);
      rec.exitstatus = `Request rejected: ${rec.reason}`;
    } else {
      if (etype === 'K') rec.iolog = `${root}/${host}/${user}/${uniqueid}`;
      // Most sessions end within a few dozen records; interactive shells last much longer.
      const span = base === 'bash' || base === 'vim' ? 50 + Math.floor(rnd() * 2000) : 1 + Math.floor(rnd() * 40);
      insertByDue(open, { due: recnum + span, accept: rec });
    }
    yield rec;
  }
}

/**
 * The key orders a generated log can be written in: evio's own (recnum first, as evio writes
 * its logs), another program's (the same fields, recnum last, the fields in another order), or
 * no recnum at all (the reader numbers lines). Benchmarks must also run on logs evio did not
 * write (BENCHMARKS.md, section 11).
 */
export const KEY_ORDERS = ['evio', 'recnum-last', 'no-recnum'] as const;
export type KeyOrder = (typeof KEY_ORDERS)[number];

const FOREIGN_ORDER = ['time', 'etype', 'submithost', 'submituser', 'runhost', 'runuser', 'runcommand', 'runargv', 'cwd', 'ttyname', 'masterhost', 'iolog', 'reason', 'exitstatus', 'exitcode', 'signal', 'uniqueid', 'recnum'];

/** One record as an NDJSON line (without the newline) in the given key order. */
export function recordLine(rec: StoredEvent, order: KeyOrder = 'evio'): string {
  if (order === 'evio') return JSON.stringify(rec);
  const out: Record<string, unknown> = {};
  const r = rec as unknown as Record<string, unknown>;
  for (const k of FOREIGN_ORDER) if (r[k] !== undefined && !(order === 'no-recnum' && k === 'recnum')) out[k] = r[k];
  for (const k of Object.keys(r)) if (!(k in out) && !(order === 'no-recnum' && k === 'recnum')) out[k] = r[k];
  return JSON.stringify(out);
}
