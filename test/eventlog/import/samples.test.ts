// Every real sample (../shared/samples, recorded with Debian's sudo 1.9.13p3) and every fixture
// (fixtures/eventlog, recorded the same way) imported, with values read from the files.
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { fixture, importToMemory, sample } from './helpers.js';

const byKind = (records: readonly StoredEvent[], etype: string) => records.filter((r) => r.etype === etype);
const one = (records: readonly StoredEvent[], uniqueid: string, etype: string) => {
  const r = records.filter((x) => x.uniqueid === uniqueid && x.etype === etype);
  expect(r, `${etype} ${uniqueid}`).toHaveLength(1);
  return r[0]!;
};

describe('sudo JSON samples', () => {
  it('sudo-json.log: five accept/exit pairs joined by uuid, three rejects', async () => {
    const { records, report } = await importToMemory('sudo-json', sample('sudo-json.log'));
    expect(report.framing).toBe('pretty');
    expect(report.events).toEqual({ accept: 5, exit: 5, reject: 3 });
    expect(report.imported).toEqual({ A: 0, K: 5, F: 5, R: 3 });
    expect(report.stop).toBeNull();
    expect(records.map((r) => r.etype).join('')).toBe('KFKFKFKFRRRKF');

    const k = one(records, '41845e56ca-cd94-4a9a-98e0-bba5b12264', 'K');
    expect(k).toMatchObject({
      submituser: 'root', submithost: 'vm', runuser: 'nobody', runhost: 'vm', runcommand: '/usr/bin/id', runargv: ['id'],
      cwd: '/tmp', ttyname: '/dev/pts/1',
      // sudo 1.9.13 logs the unexpanded iolog_file template (sudo-notes §3.2): kept as logged.
      iolog: '/var/log/sudo-io/root/nobody-20261122-XXXXXX',
      sudo_kind: 'accept', uuid: '41845e56ca-cd94-4a9a-98e0-bba5b12264',
    });
    expect(k.time).toBeCloseTo(1795315499.962316459, 6);
    // Every source field is kept.
    expect(k.submit_time).toEqual({ seconds: 1795315499, nanoseconds: 962316459, iso8601: '20261122024459Z', localtime: 'Nov 22 02:44:59 2026' });
    expect(Array.isArray(k.runenv)).toBe(true);
    const f = one(records, '41845e56ca-cd94-4a9a-98e0-bba5b12264', 'F');
    // The exit carries no user or command: the finish repeats them from its accept.
    expect(f).toMatchObject({ submituser: 'root', submithost: 'vm', runuser: 'nobody', runhost: 'vm', runcommand: '/usr/bin/id', exitstatus: 'Command finished with exit status 0', exitcode: 0, exit_value: 0 });
    expect(f.run_time).toEqual({ seconds: 0, nanoseconds: expect.any(Number) });

    expect(one(records, 'a3ee5e909a-8a4c-40a6-0edb-45df7a4863', 'K')).toMatchObject({ iolog: '/var/log/sudo-io/00/00/06', runargv: ['ls', '/nonexistent'] });
    expect(one(records, 'a3ee5e909a-8a4c-40a6-0edb-45df7a4863', 'F')).toMatchObject({ exitstatus: 'Command finished with exit status 2', exitcode: 2 });
    expect(one(records, '7d1b4d31fb-e255-4bbe-1611-ca24211804', 'F')).toMatchObject({
      exitstatus: 'Command killed by signal SEGV', exitcode: 139, signal: 'SEGV', dumped_core: false, runcommand: '/usr/bin/sh',
    });
    const rejects = byKind(records, 'R');
    expect(rejects.map((r) => [r.uniqueid, r.submituser, r.runcommand, r.reason, r.exitstatus])).toEqual([
      ['a8920608c6-197c-4794-4df4-4a58b074e5', 'nobody', '/usr/bin/ls', 'a password is required', 'Request rejected: a password is required'],
      ['79ac55ba3e-c2ae-48a7-6fed-9ac731ed00', 'nobody', '/usr/bin/id', 'a password is required', 'Request rejected: a password is required'],
      ['99468a778c-260d-439c-9fc5-55b48bdd2c', 'daemon', '/usr/bin/id', 'a password is required', 'Request rejected: a password is required'],
    ]);
  });

  it('sudo-json2.log: rejects with their reasons; the alert is skipped and counted, or stored as R', async () => {
    const { records, report } = await importToMemory('sudo-json', sample('sudo-json2.log'));
    expect(report.events).toEqual({ reject: 2, alert: 1, accept: 1, exit: 1 });
    expect(report.skipped.alerts).toBe(1);
    expect(records.map((r) => [r.etype, r.reason ?? null, r.submituser])).toEqual([
      ['R', 'command not allowed', 'nobody'],
      ['R', 'user NOT in sudoers', 'daemon'],
      ['K', null, 'root'],
      ['F', null, 'root'],
    ]);
    expect(records[2]).toMatchObject({ uniqueid: '3ad5f2ec37-17ab-499c-a2f8-be3ec9b790', iolog: '/var/log/sudo-io/00/00/09', runcommand: '/usr/bin/true' });

    const withAlerts = await importToMemory('sudo-json', sample('sudo-json2.log'), { alerts: 'reject' });
    const alert = withAlerts.records.find((r) => r.sudo_kind === 'alert')!;
    // The alert shares its uuid with the accept that follows; the import keys still differ.
    expect(alert).toMatchObject({
      etype: 'R', uniqueid: '3ad5f2ec37-17ab-499c-a2f8-be3ec9b790', submituser: 'root',
      reason: '/etc/sudoers.d/zz_bogus:1:26: unknown defaults entry "bogus_option_xyz"',
      exitstatus: 'Alert: /etc/sudoers.d/zz_bogus:1:26: unknown defaults entry "bogus_option_xyz"',
    });
    expect(withAlerts.records).toHaveLength(5);
  });

  it('logsrvd-events.json (sudo_logsrvd): peeraddr kept, exits joined', async () => {
    const { records, report } = await importToMemory('sudo-json', sample('logsrvd-events.json'));
    expect(report.framing).toBe('pretty');
    expect(records.map((r) => r.etype).join('')).toBe('KFKFR');
    expect(records[0]).toMatchObject({ uniqueid: 'dd18586a26-af70-488b-ecb6-7340dd2d30', iolog: '/var/log/logsrvd-io/00/00/01', runargv: ['ls', '-la', '/etc/hostname'], peeraddr: '127.0.0.1', ttyname: '/dev/pts/1' });
    expect(records[3]).toMatchObject({ uniqueid: '785d5c1699-01a4-46b0-d0cc-6bec70a3f5', exitstatus: 'Command finished with exit status 4', submituser: 'root', runuser: 'nobody' });
    expect(records[4]).toMatchObject({ etype: 'R', submituser: 'daemon', reason: 'a password is required', runcommand: '/usr/bin/id' });
  });

  it('the three framings of the same events give the same records (pretty, compact, @cee: syslog)', async () => {
    const pretty = await importToMemory('sudo-json', fixture('sudo-json3.log'));
    const compact = await importToMemory('sudo-json', fixture('sudo-compact.json'));
    const cee = await importToMemory('sudo-json', fixture('syslog-json.log'));
    expect([pretty.report.framing, compact.report.framing, cee.report.framing]).toEqual(['pretty', 'compact', 'cee']);
    // server_time is when each copy was written: the one field that differs between the logs.
    const strip = (rs: readonly StoredEvent[]) => rs.map((r) => ({ ...r, recnum: 0, server_time: null }));
    expect(strip(compact.records)).toEqual(strip(pretty.records));
    // syslog got the same events but the last reject (sudo -n sent it to the log file only).
    expect(strip(cee.records)).toEqual(strip(pretty.records).slice(0, 7));
    // ... with the same import keys, so importing both into one store stores each event once.
    expect(cee.records.map((r) => r.import_key)).toEqual(pretty.records.slice(0, 7).map((r) => r.import_key));
    expect(cee.report.skipped.otherLines).toBe(26); // PAM and runuser lines
    expect(pretty.records.map((r) => [r.etype, r.exitstatus ?? null])).toEqual([
      ['K', null], ['F', 'Command finished with exit status 0'],
      ['K', null], ['F', 'Command finished with exit status 7'],
      ['A', null], ['F', 'Command killed by signal TERM'],
      ['R', 'Request rejected: 1 incorrect password attempt'],
      ['R', 'Request rejected: a password is required'],
    ]);
    expect(pretty.records[0]).toMatchObject({ runargv: ['/tmp/evio-sudo/bin/evt', 'one ; two', "it's", 'plain'], runuser: 'daemon', iolog: '/tmp/evio-sudo/io/00/00/06' });
  });
});

describe('sudo text samples', () => {
  it('sudo-text.log: wrapped records, accepts joined to exits, the 1.9.13 short TSID completed', async () => {
    const { records, report } = await importToMemory('sudo-text', sample('sudo-text.log'), { iologDir: '/var/log/sudo-io' });
    expect(report.framing).toBe('file');
    expect(report.events).toEqual({ accept: 5, exit: 5 });
    expect(records.map((r) => r.etype).join('')).toBe('KFKFKFKFKF');
    const [k1, f1] = records;
    expect(k1).toMatchObject({
      etype: 'K', time: 1795315409, submituser: 'root', submithost: 'vm', runuser: 'nobody', runhost: 'vm', runcommand: '/usr/bin/ls', runargv: ['/usr/bin/ls', '-la', '/'],
      cwd: '/tmp', ttyname: '/dev/pts/0',
      // The accept line says TSID=01; its exit line says TSID=000001.
      iolog: '/var/log/sudo-io/00/00/01',
      sudo_fields: { HOST: 'vm', TTY: 'pts/0', PWD: '/tmp', USER: 'nobody', TSID: '01', COMMAND: '/usr/bin/ls -la /' },
      sudo_line: 'Nov 22 02:43:29 2026 : root : HOST=vm ; TTY=pts/0 ; PWD=/tmp ; USER=nobody ; TSID=01 ; COMMAND=/usr/bin/ls -la /',
    });
    expect(f1).toMatchObject({ etype: 'F', uniqueid: k1!.uniqueid, exitstatus: 'Command finished with exit status 0', exitcode: 0, submituser: 'root', runcommand: '/usr/bin/ls' });
    // The wrapped command "...; sleep\n    1' ; EXIT=0" joins back with one space.
    const k4 = records[6]!;
    const f4 = records[7]!;
    expect(k4.runargv).toEqual(['/usr/bin/sh', '-c', 'stty size; sleep 2; stty size; sleep 1']);
    expect(f4).toMatchObject({ uniqueid: k4.uniqueid, time: 1795315471, exitstatus: 'Command finished with exit status 0' });
    expect(records[4]).toMatchObject({ runargv: ['/usr/bin/sh', '-c', 'cat; echo to-stderr >&2; exit 3'], iolog: '/var/log/sudo-io/00/00/03' });
    expect(records[4]!.ttyname).toBeUndefined();
    expect(records[5]).toMatchObject({ exitstatus: 'Command finished with exit status 3', exitcode: 3 });
    // Without --iolog-dir the session path stays relative (a purge resolves it in the first root).
    const rel = await importToMemory('sudo-text', sample('sudo-text.log'));
    expect(rel.records[0]!.iolog).toBe('00/00/01');
  });

  it('sudo-text2.log: reasons first, the alert, SIGNAL=, #ooo escapes and quoted arguments, ENV=', async () => {
    const { records, report } = await importToMemory('sudo-text', sample('sudo-text2.log'));
    expect(report.events).toEqual({ reject: 2, alert: 1, accept: 4, exit: 4 });
    expect(report.skipped.alerts).toBe(1);
    expect(records.slice(0, 2).map((r) => [r.etype, r.submituser, r.reason, r.exitstatus, r.runargv])).toEqual([
      ['R', 'nobody', 'command not allowed', 'Request rejected: command not allowed', ['/usr/bin/ls', '/root']],
      ['R', 'daemon', 'user NOT in sudoers', 'Request rejected: user NOT in sudoers', ['/usr/bin/id']],
    ]);
    const killed = records.find((r) => r.etype === 'F' && r.signal === 'TERM')!;
    expect(killed).toMatchObject({ exitstatus: 'Command killed by signal TERM', exitcode: 143, runargv: ['/usr/bin/sh', '-c', 'kill -TERM $$'] });
    const printf = records.find((r) => r.etype === 'K' && r.runcommand === '/usr/bin/env' && (r.runargv as string[]).length > 1)!;
    expect(printf.runargv).toEqual(['/usr/bin/env', 'FOO=bar', 'sh', '-c', `printf '%s\\n' "tab\tx"`]);
    expect(printf.iolog).toBe('00/00/0C');
    const env = records.find((r) => r.etype === 'K' && (r.sudo_fields as Record<string, string>).ENV !== undefined)!;
    expect(env).toMatchObject({ runargv: ['/usr/bin/env'], sudo_fields: { ENV: 'FOO=bar', TSID: '0D' }, iolog: '00/00/0D' });
    const withAlerts = await importToMemory('sudo-text', sample('sudo-text2.log'), { alerts: 'reject' });
    expect(withAlerts.records[2]).toMatchObject({ etype: 'R', submituser: 'root', reason: '/etc/sudoers.d/zz_bogus:1:26: unknown defaults entry "bogus_option_xyz"' });
  });

  it('sudo-text3.log (no year, no HOST=): --year and --host fill them; accepts without TSID are A', async () => {
    const { records } = await importToMemory('sudo-text', sample('sudo-text3.log'), { year: 2026, host: 'vm' });
    expect(records.map((r) => r.etype).join('')).toBe('AFAFR');
    expect(records[0]).toMatchObject({ time: 1795315546, submithost: 'vm', runhost: 'vm', runargv: ['/usr/bin/ls', '-la', '/etc/hostname'], ttyname: '/dev/pts/1' });
    expect(records[1]).toMatchObject({ uniqueid: records[0]!.uniqueid, exitstatus: 'Command finished with exit status 0' });
    expect(records[3]).toMatchObject({ uniqueid: records[2]!.uniqueid, exitstatus: 'Command finished with exit status 4' });
    expect(records[4]).toMatchObject({ etype: 'R', submituser: 'daemon', reason: 'a password is required', runuser: 'root' });
    const noHost = await importToMemory('sudo-text', sample('sudo-text3.log'), { year: 2026 });
    expect(noHost.records[0]!.submithost).toBeUndefined();
  });

  it('fixtures: " ; " inside quoted arguments and in ENV=, GROUP= wrapped, SIGNAL=KILL, incorrect password attempts', async () => {
    const { records } = await importToMemory('sudo-text', fixture('sudo-text4.log'), { iologDir: '/tmp/evio-sudo/io' });
    expect(records.map((r) => r.etype).join('')).toBe('KFKFKFAFRRKFKF');
    expect(records[0]).toMatchObject({ runuser: 'daemon', runargv: ['/tmp/evio-sudo/bin/evt', 'one ; two', "it's", 'back\\slash', 'tab', 'x', 'plain'], iolog: '/tmp/evio-sudo/io/00/00/01' });
    expect(records[1]).toMatchObject({ uniqueid: records[0]!.uniqueid, exitstatus: 'Command finished with exit status 0' });
    expect((records[2]!.runargv as string[]).length).toBe(41);
    expect(records[7]).toMatchObject({ etype: 'F', exitstatus: 'Command killed by signal KILL', exitcode: 137, signal: 'KILL' });
    expect(records[8]).toMatchObject({ etype: 'R', submituser: 'daemon', reason: '1 incorrect password attempt', runcommand: '/usr/bin/id' });
    expect(records[10]).toMatchObject({ sudo_fields: { GROUP: 'daemon', TSID: '04' }, iolog: '/tmp/evio-sudo/io/00/00/04', submituser: 'daemon' });
    expect(records[12]).toMatchObject({ sudo_fields: { GROUP: 'nogroup', ENV: 'FOO=a ; b', COMMAND: '/tmp/evio-sudo/bin/evt envtest' }, runargv: ['/tmp/evio-sudo/bin/evt', 'envtest'] });
    expect(records[13]).toMatchObject({ uniqueid: records[12]!.uniqueid, exitstatus: 'Command finished with exit status 0' });
  });

  it('syslog lines: the same events, "(command continued)" joined, PAM lines skipped', async () => {
    const file = await importToMemory('sudo-text', fixture('sudo-text4.log'));
    const sys = await importToMemory('sudo-text', fixture('syslog-text.log'), { year: 2026 });
    expect(sys.report.framing).toBe('syslog');
    expect(sys.report.skipped.otherLines).toBe(45);
    // The file log has one more reject (sudo -n logged "a password is required" to the file only).
    const summary = (rs: readonly StoredEvent[]) => rs.map((r) => [r.etype, r.submituser, r.runuser, JSON.stringify(r.runargv), r.exitstatus ?? null]);
    expect(summary(sys.records)).toEqual(summary(file.records).filter((_, i) => i !== 9));
    // syslog stamps the time a line is sent: the reject after the password prompt is 2 s later.
    expect(sys.records.map((r) => r.time)).toEqual(file.records.filter((_, i) => i !== 9).map((r) => r.time).map((t, i) => (i === 8 ? t + 2 : t)));
    const long = sys.records[2]!;
    expect((long.runargv as string[]).slice(-2)).toEqual(['arg39', 'arg40']);
    expect(sys.records[3]!.uniqueid).toBe(long.uniqueid);
    expect(long.sudo_syslog).toEqual({ pri: 85, stamp: 'Nov 22 03:51:31', host: null, pid: null });
  });
});
