// From a session to its events and back, on what Debian's sudo 1.9.13 writes: log.json without
// a uuid, JSON event logs whose iolog_path names the session (and, with an iolog_file template
// ending in XXXXXX, the template unexpanded), text logs with TSIDs. Sessions are recorded by
// the real sudo in the test (a drop-in scoped to run-as users of the test's own), their event
// logs imported with `evio events import`, and the links checked in the library, over REST and
// in the CLI.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologEvents } from '../../src/app/session-events.js';
import { makeHome, serve, signed, type TestHome } from '../http/server/helpers.js';
import type { RunningServer } from '../../src/http/server.js';
import { canRecordWithSudo, ensureUser, recordingAttempts, sudoOnTerminal, withSudoers } from '../helpers/real-sudo.js';

const USERS = { json: 'evio-lj', template: 'evio-lx', text: 'evio-lt' };
const bin = new URL('../../bin/evio.js', import.meta.url).pathname;

function evio(home: TestHome, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, EVIO_CONFIG: join(home.dir, 'settings.json') } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The session directories under io/ (sudo's %{seq} ones and the template's), relative to io/. */
function sessionsUnder(io: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = join(d, e.name);
      if (readdirSync(p).includes('timing')) out.push(relative(io, p));
      else walk(p);
    }
  };
  walk(io);
  return out.sort();
}

const enabled = canRecordWithSudo('the session-events test');

describe.skipIf(!enabled)('a session and its events, on logs Debian sudo wrote', () => {
  let home: TestHome;
  let server: RunningServer;
  let io: string;
  const stores = { json: '', text: '', bare: '' };
  let sessions: { file: string; runuser: string; log: Record<string, unknown> }[] = [];
  /** The JSON event log sudo wrote (the attempt that finished). */
  let sudoJson = '';

  beforeAll(async () => {
    home = makeHome();
    for (const u of Object.values(USERS)) ensureUser(u);
    // Each attempt records into a folder and event logs of its own (recordingAttempts: sudo may hang).
    const logs = recordingAttempts((attempt) => {
      const tag = attempt === 1 ? '' : `-${attempt}`;
      io = join(home.dir, `io${tag}`);
      mkdirSync(io, { mode: 0o700 });
      const json = join(home.dir, `sudo${tag}.json`);
      const text = join(home.dir, `sudo${tag}.log`);
      const common = `log_input, log_output, iolog_dir=${io}, log_exit_status, !syslog`;
      withSudoers(
        'links',
        [
          `Defaults>${USERS.json} ${common}, log_format=json, logfile=${json}`,
          `Defaults>${USERS.template} ${common}, log_format=json, logfile=${json}, iolog_file=%{user}/%{runas_user}-XXXXXX`,
          `Defaults>${USERS.text} ${common}, log_format=sudo, logfile=${text}, log_year`,
        ],
        () => {
          sudoOnTerminal(USERS.json, 'echo first; exit 2');
          sudoOnTerminal(USERS.json, 'echo second');
          sudoOnTerminal(USERS.template, 'echo tpl-one; exit 4');
          sudoOnTerminal(USERS.template, 'echo tpl-two');
          sudoOnTerminal(USERS.text, 'echo from-text; exit 5');
        },
      );
      return { json, text };
    });
    sudoJson = logs.json;
    // The stores an auditor imports the logs into.
    stores.json = join(home.dir, 'json.ndjson');
    stores.text = join(home.dir, 'text.ndjson');
    stores.bare = join(home.dir, 'bare.ndjson');
    writeFileSync(join(home.dir, 'settings.json'), JSON.stringify({ home: home.dir, iologdirs: [io], eventlog: stores.json, eventlogdirs: [home.dir] }));
    const imp = (args: string[]) => expect(evio(home, ['events', 'import', ...args]).stderr).toMatch(/^imported [1-9]/);
    imp(['--from', 'sudo-json', logs.json, '--to', `ff:${stores.json}`]);
    imp(['--from', 'sudo-text', logs.text, '--to', `ff:${stores.text}`, '--iolog-dir', io]);
    // The same JSON log with every iolog_path removed: only time, user, host and command are left.
    const bare = readFileSync(logs.json, 'utf8').replace(/,\n\s*"iolog_path": "[^"]*"/g, '').replace(/"iolog_path": "[^"]*",\n\s*/g, '');
    expect(bare).not.toContain('iolog_path');
    writeFileSync(join(home.dir, 'sudo-bare.json'), bare);
    imp(['--from', 'sudo-json', join(home.dir, 'sudo-bare.json'), '--to', `ff:${stores.bare}`]);

    home.settings.iologdirs.splice(0, home.settings.iologdirs.length, io);
    home.settings.eventlog = stores.json;
    sessions = sessionsUnder(io).map((file) => {
      const log = JSON.parse(readFileSync(join(io, file, 'log.json'), 'utf8')) as Record<string, unknown>;
      return { file, runuser: String(log.runuser), log };
    });
    server = await serve(home);
  }, 900_000);

  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('recorded what the test expects: five sessions, log.json without a uuid (sudo 1.9.13)', () => {
    expect(sessions.map((s) => s.runuser).sort()).toEqual([USERS.json, USERS.json, USERS.text, USERS.template, USERS.template].sort());
    for (const s of sessions) expect(s.log.uuid).toBeUndefined();
    // sudo 1.9.13 logs the template, not the directory it made.
    expect(readFileSync(sudoJson, 'utf8')).toMatch(/"iolog_path": "[^"]*-XXXXXX"/);
  });

  it('links each session to its own accept and finish by the iolog path the JSON log carries, template included', async () => {
    for (const s of sessions.filter((x) => x.runuser !== USERS.text)) {
      const found = await iologEvents(home.engine, { file: s.file });
      expect({ file: found.file, match: found.match }).toEqual({ file: s.file, match: 'iolog' });
      expect(found.events.map((e) => e.etype).sort()).toEqual(['F', 'K']);
      const k = found.events.find((e) => e.etype === 'K')!;
      expect(k.runuser).toBe(s.runuser);
      expect(k.uniqueid).toBe(found.uniqueid);
      // The finish is this session's: its exit status is what the recorded command exited with.
      const expected = s.runuser === USERS.json ? ['Command finished with exit status 0', 'Command finished with exit status 2'] : ['Command finished with exit status 0', 'Command finished with exit status 4'];
      expect(expected).toContain(found.events.find((e) => e.etype === 'F')!.exitstatus);
    }
    // The two sessions of one user are linked to two different accepts.
    const ids = await Promise.all(sessions.filter((x) => x.runuser === USERS.template).map(async (s) => (await iologEvents(home.engine, { file: s.file })).uniqueid));
    expect(new Set(ids).size).toBe(2);
  });

  it('links by TSID in a text log, and by time, user, host and command when no path is logged', async () => {
    const text = sessions.find((s) => s.runuser === USERS.text)!;
    const t = await iologEvents(home.engine, { file: text.file, format: 'ff', log: stores.text });
    expect(t.match).toBe('iolog');
    expect(t.events.map((e) => [e.etype, e.runuser, e.exitstatus ?? null])).toEqual([
      ['K', USERS.text, null],
      ['F', USERS.text, 'Command finished with exit status 5'],
    ]);
    const linked = new Set<string>();
    for (const s of sessions.filter((x) => x.runuser !== USERS.text)) {
      const b = await iologEvents(home.engine, { file: s.file, format: 'ff', log: stores.bare });
      expect(b.match).toBe('time');
      // Without iolog_path the importer stores the accept as A (no session named).
      expect(b.events.map((e) => [e.etype, e.runuser])).toEqual([['A', s.runuser], ['F', s.runuser]]);
      linked.add(String(b.uniqueid));
    }
    expect(linked.size).toBe(4);
    // A session no record describes says so instead of guessing.
    const none = await iologEvents(home.engine, { file: text.file, format: 'ff', log: stores.bare });
    expect(none).toEqual({ file: text.file, match: 'none', uniqueid: null, events: [] });
  });

  it('answers over REST both ways: session -> events, and an event (template path) -> its session', async () => {
    const tpl = sessions.filter((s) => s.runuser === USERS.template);
    for (const s of tpl) {
      const a = await signed(server, 'admin', 'GET', `/REST/iolog/events?${new URLSearchParams({ file: s.file }).toString()}`);
      expect(a.http).toBe(200);
      expect(a.body.match).toBe('iolog');
      const events = a.body.events as { etype: string; iolog?: string; time: number }[];
      const k = events.find((e) => e.etype === 'K')!;
      expect(k.iolog).toMatch(/-XXXXXX$/);
      const back = await signed(server, 'admin', 'GET', `/REST/iolog/session?${new URLSearchParams({ iolog: k.iolog!, time: String(k.time) }).toString()}`);
      expect(back.http).toBe(200);
      expect((back.body.session as { file: string }).file).toBe(s.file);
    }
    const bad = await signed(server, 'admin', 'GET', `/REST/iolog/events?${new URLSearchParams({ file: 'no/such/session' }).toString()}`);
    expect(bad.http).toBe(404);
  });

  it('evio iolog events takes a TSID and a store', () => {
    const text = sessions.find((s) => s.runuser === USERS.text)!;
    const tsid = text.file.replace(/\//g, '');
    const r = evio(home, ['iolog', 'events', tsid, '--store', `ff:${stores.text}`]);
    expect(r.stderr).toBe('');
    const body = JSON.parse(r.stdout) as { file: string; match: string; events: { etype: string }[]; status: number };
    expect([body.file, body.match, body.events.map((e) => e.etype), body.status]).toEqual([text.file, 'iolog', ['K', 'F'], 0]);
  });
});
