// Credentials never reach the audit log or the request log. Before, `evio events copy --to
// pg:postgres://u:secret@host/db` wrote the password into the audit log's runargv (and the error
// text into exitstatus), where any app allowed to read the audit log over REST could read it.
// Now every recorded string — arguments, parameters, outcome, extra keys — has URL passwords,
// `password=`/`pwd=`-style pairs (connection strings, ODBC `PWD=...;`) and the values of
// secret-named flags and parameters replaced by `***`.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/app/audit.js';
import { redactText } from '../../src/app/audit-redact.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { makeHome, serverPerTest, serve, signed, type TestHome } from '../http/server/helpers.js';

const bin = join(import.meta.dirname, '../../bin/evio.js');

describe('redactText', () => {
  it('hides URL passwords, secret pairs in connection strings and ODBC strings, and leaves the rest', () => {
    expect(redactText('pg:postgres://u:S3cr3t@db.example:5432/evio')).toBe('pg:postgres://u:***@db.example:5432/evio');
    expect(redactText('postgresql://u:p%40ss@h/db?sslmode=require')).toBe('postgresql://u:***@h/db?sslmode=require');
    expect(redactText('host=h user=u password=S3cr3t dbname=d')).toBe('host=h user=u password=*** dbname=d');
    expect(redactText("host=h password='a b c' port=1")).toBe('host=h password=*** port=1');
    expect(redactText('DSN=evio;UID=u;PWD=S3cr3t;Server=h')).toBe('DSN=evio;UID=u;PWD=***;Server=h');
    expect(redactText('Driver={PostgreSQL};Pwd={se;cret};Uid=u')).toBe('Driver={PostgreSQL};Pwd=***;Uid=u');
    expect(redactText('postgres://h/db?user=u&password=S3cr3t&x=1')).toBe('postgres://h/db?user=u&password=***&x=1');
    expect(redactText('client_secret=abc api_key=def token=ghi sslkey=/etc/k.pem')).toBe('client_secret=*** api_key=*** token=*** sslkey=/etc/k.pem');
    expect(redactText('ff:/var/lib/evio/events.ndjson --submituser alice')).toBe('ff:/var/lib/evio/events.ndjson --submituser alice');
    expect(redactText('postgres://u@h/db')).toBe('postgres://u@h/db');
  });
});

describe('no credential in the audit log', () => {
  const held = serverPerTest();

  it('CLI: a pg URL password, a key=value password and an ODBC PWD given to evio events copy appear nowhere in the audit file', async () => {
    const h = makeHome();
    held.home = h;
    const events = join(h.dir, 'events.ndjson');
    writeFileSync(events, `${[...generateEvents({ count: 5, seed: 1 })].map((r) => JSON.stringify(r)).join('\n')}\n`);
    const secrets = ['S3cr3t-url-pw', 'S3cr3t-kv-pw', 'S3cr3t-odbc-pw', 'S3cr3t-query-pw'];
    const targets = [
      // Nothing listens on port 1: the copy fails after naming the store (argv and error text).
      `pg:postgres://evio:${secrets[0]}@127.0.0.1:1/db`,
      `pg:host=127.0.0.1 port=1 password=${secrets[1]}`,
      `odbc:DSN=evio;UID=u;PWD=${secrets[2]};`,
      `pg:postgres://evio@127.0.0.1:1/db?password=${secrets[3]}`,
    ];
    for (const to of targets) {
      const r = spawnSync(process.execPath, [bin, 'events', 'copy', '--from', `ff:${events}`, '--to', to], {
        encoding: 'utf8',
        env: { ...process.env, EVIO_HOME: h.dir, EVIO_CONFIG: '', PGCONNECT_TIMEOUT: '3' },
        timeout: 60_000,
      });
      expect([to, r.status]).toEqual([to, 1]);
    }
    const text = readFileSync(h.settings.auditlog, 'utf8');
    const records = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r.runcommand)).toEqual(['evio events copy', 'evio events copy', 'evio events copy', 'evio events copy', 'evio events copy', 'evio events copy', 'evio events copy', 'evio events copy']);
    for (const s of secrets) expect(text).not.toContain(s);
    // What was asked is still readable, without the password.
    expect(records[0]!.runargv).toEqual(['--from', `ff:${events}`, '--to', 'pg:postgres://evio:***@127.0.0.1:1/db']);
    expect(records[4]!.runargv).toContain('odbc:DSN=evio;UID=u;PWD=***;');
  }, 120_000);

  it('recordAudit: secret-named flags (--password X, --token=Y) and every string of the extra keys are redacted', async () => {
    const h = makeHome();
    held.home = h;
    await recordAudit(h.engine, {
      accepted: true,
      user: 'op',
      from: 'host',
      command: 'evio events copy',
      argv: ['--password', 'S3cr3t-a', '--api-token=S3cr3t-b', '--to', 'pg:postgres://u:S3cr3t-c@h/db', '--secret'],
      outcome: 'could not connect to postgres://u:S3cr3t-d@h/db',
      status: 1301,
      started: 1,
      extra: { store: 'pg:postgres://u:S3cr3t-e@h/db', nested: { dsn: 'DSN=x;PWD=S3cr3t-f' }, list: ['password=S3cr3t-g'] },
    });
    const text = readFileSync(h.settings.auditlog, 'utf8');
    for (const s of 'abcdefg') expect(text).not.toContain(`S3cr3t-${s}`);
    const a = JSON.parse(text.split('\n')[0]!) as Record<string, unknown>;
    expect(a.runargv).toEqual(['--password', '***', '--api-token=***', '--to', 'pg:postgres://u:***@h/db', '--secret']);
  });

  it('REST: a dsn with PWD= and a secret-named parameter reach neither the audit log nor the request log', async () => {
    const h = makeHome();
    held.home = h;
    const requestLog = join(h.dir, 'requests.log');
    h.settings.requestLog = requestLog;
    const s = await serve(h);
    held.server = s;
    const a = await signed(s, 'admin', 'DELETE', `/REST/v2.0/events?format=odbc&dsn=${encodeURIComponent('DSN=x;PWD=S3cr3t-rest-1;')}&all=1`);
    expect(a.http).toBeGreaterThanOrEqual(400);
    const b = await signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&all=1&db_password=S3cr3t-rest-2');
    expect(b.http).toBeGreaterThanOrEqual(400);
    await s.close();
    held.server = undefined;
    const audit = readFileSync(h.settings.auditlog, 'utf8');
    expect(audit.split('\n').filter(Boolean).length).toBe(4); // two calls, A + F each
    const log = readFileSync(requestLog, 'utf8');
    for (const text of [audit, log]) {
      expect(text).not.toContain('S3cr3t-rest-1');
      expect(text).not.toContain('S3cr3t-rest-2');
    }
    expect(audit).toContain('PWD=***');
  });
});
