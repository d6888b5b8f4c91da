// The log server's destinations as the application layer runs them: GET /events/destinations
// answers what is configured (through the router both doors use), startDestinations feeds a
// database and a program from the flat-file spool after the receiver's append and wake(), the
// cursors live in <home>/spool, and GET /metrics shows how far behind each destination is.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvents, copyEvents, queryEvents } from '../../src/app/events.js';
import { runningDestinations, startDestinations } from '../../src/app/event-destinations.js';
import { dispatch } from '../../src/app/router.js';
import { buildServer } from '../../src/http/server.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { makeHome } from '../http/server/helpers.js';

const req = (method: string, path: string) => ({ method, path, query: {}, signal: new AbortController().signal });

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const COPY_STDIN = `
import { appendFileSync } from 'node:fs';
process.stdin.on('data', (b) => appendFileSync(process.argv[2], b));
`;

describe('GET /REST/v2.0/events/destinations', () => {
  it('answers the flat-file spool and null for every destination not configured', async () => {
    const h = makeHome();
    try {
      const r = await dispatch(h.engine, req('GET', '/REST/v2.0/events/destinations'));
      expect(r).toEqual({ kind: 'json', http: 200, body: { status: 0, destinations: { db: null, ff: 'events.ndjson', prog: null, odbc: null, syslog: null } } });
    } finally {
      await h.cleanup();
    }
  });
  it('answers exactly what the forwarders deliver to: a database by its name (never its URL), the program as one line', async () => {
    const h = makeHome({
      databases: { central: 'postgres://evio:secret@db.internal/audit' },
      destinations: { db: 'central', odbc: 'legacy_events', prog: ['/usr/local/bin/siem feed', '--tag', "it's"], syslog: 'tcp://127.0.0.1:601?facility=local3' },
    });
    try {
      const r = await dispatch(h.engine, req('GET', '/REST/v2/events/destinations'));
      if (r.kind !== 'json') throw new Error(`a JSON answer, not ${r.kind}`);
      expect(r.body).toEqual({
        status: 0,
        destinations: { db: 'central', ff: 'events.ndjson', prog: `'/usr/local/bin/siem feed' --tag 'it'\\''s'`, odbc: 'legacy_events', syslog: 'tcp://127.0.0.1:601?facility=local3' },
      });
      expect(JSON.stringify(r.body)).not.toContain('secret');
    } finally {
      await h.cleanup();
    }
  });
});

describe('startDestinations', () => {
  it('feeds a database and a program from the spool after each append, with cursors in <home>/spool and the lag in /metrics', async () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'evio-dest-app-')));
    const script = join(elsewhere, 'copy.mjs');
    writeFileSync(script, COPY_STDIN);
    const out = join(elsewhere, 'prog.ndjson');
    const copy = join(elsewhere, 'copy.sqlite');
    const h = makeHome({ destinations: { db: copy, prog: [process.execPath, script, out] } });
    const logged: string[] = [];
    const set = startDestinations(h.engine, { log: (l) => logged.push(l) });
    try {
      expect(() => startDestinations(h.engine)).toThrow(/^1000 the event destinations of this engine are already started$/);
      expect(runningDestinations(h.engine)).toBe(set);
      const recs = [...generateEvents({ count: 400, seed: 11 })].map(({ recnum: _r, ...rest }) => rest);
      // The receiver: append (fsynced, acknowledged), then wake the forwarders.
      const first = await appendEvents(h.engine, `ff:${h.settings.eventlog}`, recs.slice(0, 300));
      set.wake(first.last!);
      const second = await appendEvents(h.engine, `ff:${h.settings.eventlog}`, recs.slice(300));
      set.wake(second.last!);
      await until(() => set.status().every((s) => s.deliveredRecnum === 400 && s.pendingSince === undefined), 'both destinations at recnum 400, caught up');
      expect(set.status()).toEqual([
        { name: 'db', target: copy, deliveredRecnum: 400, failures: 0 },
        { name: 'prog', target: `${process.execPath} ${script} ${out}`, deliveredRecnum: 400, failures: 0 },
      ]);
      // The database holds the spool's records with their recnums; so does the program's output.
      const spoolText = readFileSync(h.settings.eventlog, 'utf8');
      const inDb: unknown[] = [];
      for await (const e of (await queryEvents(h.engine, { dump: '1', verbose: '1' }, { store: `db:${copy}`, everything: true })).events) inDb.push(e);
      expect(inDb.map((e) => (e as { recnum: number }).recnum)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
      await until(() => existsSync(out) && readFileSync(out, 'utf8').length === spoolText.length, 'the program to have every line');
      expect(readFileSync(out, 'utf8')).toBe(spoolText);
      // A copy of the spool into the same database adds nothing: the destination has it all.
      expect((await copyEvents(h.engine, { from: `ff:${h.settings.eventlog}`, to: `db:${copy}` })).written).toBe(0);
      for (const name of ['db', 'prog']) expect(JSON.parse(readFileSync(join(h.dir, 'spool', `${name}.cursor`), 'utf8')).recnum).toBe(400);
      expect((await set.lag()).map((d) => [d.name, d.spoolRecnum, d.lagRecords])).toEqual([['db', 400, 0], ['prog', 400, 0]]);
      const { app } = await buildServer(h.engine);
      try {
        const m = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
        expect(m.body).toMatch(/^evio_destination_lag_records\{destination="db"\} 0$/m);
        expect(m.body).toMatch(/^evio_destination_delivered_recnum\{destination="prog"\} 400$/m);
        expect(m.body).toMatch(/^evio_destination_pending_seconds\{destination="db"\} 0$/m);
        expect(m.body).toMatch(/^evio_destination_failures\{destination="prog"\} 0$/m);
      } finally {
        await app.close();
      }
    } finally {
      await set.close();
      await h.cleanup();
      rmSync(elsewhere, { recursive: true, force: true });
    }
    expect(runningDestinations(h.engine)).toBeNull();
  });

  it('refuses at start a target that cannot be used as written', async () => {
    const h = makeHome({ destinations: { odbc: 'bad;DRIVER=x' } });
    try {
      expect(() => startDestinations(h.engine)).toThrow(/^1119 /);
      expect(runningDestinations(h.engine)).toBeNull();
    } finally {
      await h.cleanup();
    }
  });
});
