import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import { codeOfCall as code } from './helpers/errors.js';


describe('settings', () => {
  it('work with no file: a data folder under EVIO_HOME', () => {
    const s = loadSettings({ env: { EVIO_HOME: '/data/evio' } });
    expect(s).toMatchObject({ home: '/data/evio', eventlog: '/data/evio/events.ndjson', eventdb: '/data/evio/events.sqlite', eventlogdirs: ['/data/evio'], iologdirs: ['/data/evio/iolog'], timezone: 'UTC', port: 24351, host: '127.0.0.1', source: null });
  });
  it('resolve relative paths against the settings file, and keep database names as names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evio-settings-'));
    const file = join(dir, 'evio.json');
    writeFileSync(file, JSON.stringify({ home: 'data', eventlogdirs: ['logs'], databases: { central: 'postgres://x@h/db' }, eventdb: 'central', timezone: 'Europe/Paris' }));
    const s = loadSettings({ config: file, env: {} });
    expect(s).toMatchObject({ home: join(dir, 'data'), eventlogdirs: [join(dir, 'logs')], eventdb: 'central', timezone: 'Europe/Paris', source: file });
  });
  it('name the key that is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evio-settings-'));
    const file = join(dir, 'evio.json');
    writeFileSync(file, '{"port": "eighty"}');
    expect(() => loadSettings({ config: file, env: {} })).toThrow(/"port" must be a number/);
    writeFileSync(file, '{"colour": 1}');
    expect(code(() => loadSettings({ config: file, env: {} }))).toBe(1002);
    writeFileSync(file, '{"timezone": "Mars/Olympus"}');
    expect(code(() => loadSettings({ config: file, env: {} }))).toBe(1002);
    writeFileSync(file, '{not json');
    expect(code(() => loadSettings({ config: file, env: {} }))).toBe(1001);
    expect(code(() => loadSettings({ config: join(dir, 'missing.json'), env: {} }))).toBe(1001);
  });
});
