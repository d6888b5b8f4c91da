// The conformance log: fifteen records chosen so that every rule shows: accepts with and without
// finishes, a finish far from its accept, an orphan finish, rejects with their own exit status,
// unicode, wildcard metacharacters in values, records across three days.
import type { StoredEvent } from '../../../src/eventlog/types.js';

export const T0 = 1767225600; // 2026-01-01 00:00:00 UTC

const base = (recnum: number, uniqueid: string, etype: StoredEvent['etype'], dt: number, submituser: string, submithost: string, runuser: string, runcommand: string, extra: Partial<StoredEvent> = {}): StoredEvent => ({
  recnum, uniqueid, etype, time: T0 + dt, submituser, submithost, runuser, runhost: submithost, runcommand,
  runargv: [runcommand.slice(runcommand.lastIndexOf('/') + 1)], ...extra,
});

export const FIXTURE: StoredEvent[] = [
  base(1, 'u1', 'A', 0, 'alice', 'web1', 'root', '/usr/bin/id', { cwd: '/home/alice', ttyname: '/dev/pts/0' }),
  base(2, 'u2', 'K', 60, 'bob', 'db1', 'postgres', '/bin/bash', { iolog: '/var/log/sudo-io/00/00/02' }),
  base(3, 'u3', 'R', 120, 'mallory', 'web1', 'root', '/bin/cat', { reason: 'command not allowed', exitstatus: 'Request rejected: command not allowed' }),
  base(4, 'u1', 'F', 180, 'alice', 'web1', 'root', '/usr/bin/id', { exitstatus: 'Command finished with exit status 0', exitcode: 0 }),
  base(5, 'u5', 'A', 86400, 'carol', 'web2', 'www-data', '/usr/bin/systemctl'),
  base(6, 'u6', 'K', 86460, 'alice', 'db1', 'root', '/usr/bin/vim', { iolog: '/var/log/sudo-io/00/00/06' }),
  base(7, 'u2', 'F', 86500, 'bob', 'db1', 'postgres', '/bin/bash', { exitstatus: 'Command finished with exit status 1', exitcode: 1 }),
  base(8, 'u8', 'A', 86520, 'dåvid', 'web1', 'root', '/usr/bin/printf', { note: { nested: ['kept', 1] } }),
  base(9, 'u6', 'F', 90000, 'alice', 'db1', 'root', '/usr/bin/vim', { exitstatus: 'Command killed by signal 9', signal: 9 }),
  base(10, 'u10', 'A', 172800, 'eve', 'web1', 'root', '/bin/ls'),
  base(11, 'u99', 'F', 172900, 'ghost', 'web9', 'root', '/bin/true', { exitstatus: 'Command finished with exit status 0', exitcode: 0 }),
  base(12, 'u12', 'R', 172950, 'bob', 'web2', 'root', '/usr/bin/su', { reason: 'user NOT in sudoers', exitstatus: 'Request rejected: user NOT in sudoers' }),
  base(13, 'u5', 'F', 173000, 'carol', 'web2', 'www-data', '/usr/bin/systemctl', { exitstatus: 'Command finished with exit status 0', exitcode: 0 }),
  base(14, 'u14', 'A', 180000, 'alice', 'web1', 'root', '/opt/odd[1]/run*me'),
  base(15, 'u14', 'F', 180100, 'alice', 'web1', 'root', '/opt/odd[1]/run*me', { exitstatus: 'Command finished with exit status 2', exitcode: 2 }),
];
