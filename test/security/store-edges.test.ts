// Findings 12 of the attack review that concern the service's own edges: a read-only app turned
// an emptied flat file into an SQLite database with a GET (reads never create or convert a
// store); a TLS private key readable by others was accepted; a malformed dsn answered 503.
import { execFileSync } from 'node:child_process';
import { chmodSync as chmod, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvioError } from '../../src/errors.js';
import type { RunningServer } from '../../src/http/server.js';
import { startServer } from '../../src/http/server.js';
import { makeHome, serve, signed, type TestHome } from '../http/server/helpers.js';

let home: TestHome;
let server: RunningServer;

beforeAll(async () => {
  home = makeHome();
  server = await serve(home);
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

describe('reads never create or convert a store', () => {
  it('a GET with format=db on an emptied flat file answers 1200 and leaves the file as it was', async () => {
    const file = join(home.dir, 'emptied.ndjson');
    writeFileSync(file, '');
    for (const appid of ['reader', 'admin']) {
      const a = await signed(server, appid, 'GET', '/REST/v2.0/events?format=db&file=emptied.ndjson');
      expect({ appid, http: a.http, status: a.body.status }).toEqual({ appid, http: 404, status: 1200 });
    }
    expect(statSync(file).size).toBe(0);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('a flat file with records is not converted either', async () => {
    const file = join(home.dir, 'events.ndjson');
    const text = `${JSON.stringify({ recnum: 1, uniqueid: 'u', etype: 'A', time: 1, submituser: 'a', submithost: 'h', runuser: 'r', runhost: 'h', runcommand: '/x' })}\n`;
    writeFileSync(file, text);
    const a = await signed(server, 'reader', 'GET', '/REST/v2.0/events?format=db&file=events.ndjson');
    expect(a.body.status).toBe(1200);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('the default event database is not created by a read or a delete', async () => {
    const db = home.settings.eventdb;
    for (const [method, path] of [['GET', '/REST/v2.0/events?format=db'], ['DELETE', '/REST/v2.0/events?format=db&all=1']] as const) {
      const a = await signed(server, 'admin', method, path);
      expect({ method, status: a.body.status }).toEqual({ method, status: 1200 });
    }
    expect(existsSync(db)).toBe(false);
  });

  it('an SQLite file without evio tables is refused, not given a schema', async () => {
    const file = join(home.dir, 'foreign.sqlite');
    execFileSync('node', ['-e', `const D=require('better-sqlite3'); const d=new D(${JSON.stringify(file)}); d.exec('CREATE TABLE t(x)'); d.close();`], { cwd: process.cwd() });
    const before = readFileSync(file);
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=db&file=foreign.sqlite');
    expect(a.body.status).toBe(1200);
    const tables = execFileSync('node', ['-e', `const D=require('better-sqlite3'); const d=new D(${JSON.stringify(file)}, {readonly:true}); console.log(d.prepare("select group_concat(name) n from sqlite_master where type='table'").get().n); d.close();`], { encoding: 'utf8' }).trim();
    expect(tables).toBe('t');
    expect(before.length).toBeGreaterThan(0);
  });
});

describe('a malformed dsn', () => {
  it('answers 400 with 1119, before any connection is tried', async () => {
    for (const dsn of ['x;DRIVER=/tmp/evil.so', '{x}', 'a=b', ' lead', 'x'.repeat(65)]) {
      const a = await signed(server, 'admin', 'GET', `/REST/v2.0/events?format=odbc&dsn=${encodeURIComponent(dsn)}`);
      expect({ dsn, http: a.http, status: a.body.status }).toEqual({ dsn, http: 400, status: 1119 });
    }
  });
});

describe('the TLS private key', () => {
  it('is refused when others may read it or the group may write it (1621), accepted at 0600 and 0640', async () => {
    const cert = join(home.dir, 'cert.pem');
    const key = join(home.dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const tlsHome = makeHome({ tls: { cert, key } });
    try {
      for (const mode of [0o644, 0o604, 0o660]) {
        chmod(key, mode);
        const err = await startServer(tlsHome.engine).then(async (s) => { await s.close(); return null; }, (e: unknown) => e);
        expect({ mode: mode.toString(8), code: (err as EvioError | null)?.code }).toEqual({ mode: mode.toString(8), code: 1621 });
      }
      for (const mode of [0o600, 0o640]) {
        chmod(key, mode);
        const s = await startServer(tlsHome.engine);
        await s.close();
      }
    } finally {
      await tlsHome.cleanup();
    }
  });
});
