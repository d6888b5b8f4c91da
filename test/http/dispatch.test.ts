import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { dispatch, matchRoute } from '../../src/app/router.js';
import { loadSettings } from '../../src/settings.js';

const engine = new Engine(loadSettings({ env: { EVIO_HOME: '/nonexistent-evio-home' }, overrides: { prefix: '/pm' } }));
const req = (method: string, path: string, query: Record<string, string> = {}) => ({ method, path, query, signal: new AbortController().signal });

describe('routing', () => {
  it('answers under /REST, /REST/v2, /REST/v2.0 and the configured prefix', () => {
    expect(matchRoute('GET', '/REST/v2.0/events', '').version).toBe('v2.0');
    expect(matchRoute('GET', '/REST/v2/events', '').version).toBe('v2');
    expect(matchRoute('GET', '/pm/REST/v2.0/events/destinations', '/pm').route.path).toBe('/events/destinations');
    expect(matchRoute('GET', '/REST/events', '').route.summary).toMatch(/Legacy/);
  });
  it('answers unknown routes 1004 and wrong methods 1005, with the HTTP status of the registry', async () => {
    expect(await dispatch(engine, req('GET', '/REST/v2.0/nothing'))).toEqual({ kind: 'json', http: 404, body: { status: 1004, error: '1004 no route /REST/v2.0/nothing' } });
    const r = await dispatch(engine, req('PUT', '/REST/v2.0/events'));
    expect(r).toMatchObject({ http: 405, body: { status: 1005 } });
  });
  it('turns parameter errors into bodies, never exceptions', async () => {
    const r = await dispatch(engine, req('GET', '/REST/v2.0/events', { etype: 'F' }));
    expect(r).toEqual({ kind: 'json', http: 400, body: { status: 1104, error: '1104 etype=F needs dump=1: without it finish records are merged into their accepts' } });
  });
  it('confines flat-file names to eventlogdirs', async () => {
    const r = await dispatch(engine, req('GET', '/REST/v2.0/events', { format: 'ff', file: '../../etc/passwd' }));
    expect(r).toMatchObject({ http: 403, body: { status: 1008 } });
  });
  it('lists destinations: the flat-file spool, and null for each destination not configured (no forwarder feeds eventdb)', async () => {
    const r = await dispatch(engine, req('GET', '/REST/v2.0/events/destinations'));
    expect(r).toEqual({ kind: 'json', http: 200, body: { status: 0, destinations: { db: null, ff: 'events.ndjson', prog: null, odbc: null, syslog: null } } });
  });
});

describe('private files', () => {
  it('refuses to open the keystore, the I/O log index or an I/O log root as an event store', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, existsSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const home = mkdtempSync(join(tmpdir(), 'evio-private-'));
    mkdirSync(join(home, 'iolog'));
    writeFileSync(join(home, 'keystore.json'), '{"apps":{}}', { mode: 0o600 });
    writeFileSync(join(home, 'iolog-index.sqlite'), '');
    writeFileSync(join(home, 'iolog', 'x.ndjson'), '');
    const e = new Engine(loadSettings({ env: { EVIO_HOME: home } }));
    try {
      for (const q of [
        { format: 'ff', file: 'keystore.json' },
        { format: 'db', file: 'keystore.json' },
        { format: 'db', file: 'iolog-index.sqlite' },
        { format: 'ff', file: 'iolog/x.ndjson' },
      ]) {
        const r = await dispatch(e, req('GET', '/REST/v2.0/events', q));
        expect({ q, r }).toMatchObject({ q, r: { http: 403, body: { status: 1008 } } });
      }
      expect(readFileSync(join(home, 'iolog-index.sqlite')).length).toBe(0);
      expect(existsSync(join(home, 'events.ndjson'))).toBe(false);
    } finally {
      await e.close();
    }
  });
});
