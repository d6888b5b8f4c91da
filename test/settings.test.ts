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
  it('bound readers across stores: maxReaders 64 and 256 MiB of read buffers, at least 64 KiB per reader', () => {
    expect(loadSettings({ env: { EVIO_HOME: '/data/evio' } })).toMatchObject({ maxReaders: 64, maxReaderBufferBytes: 256 * 1024 * 1024 });
    const with_ = (o: Record<string, number>) => () => loadSettings({ env: { EVIO_HOME: '/data/evio' }, overrides: o });
    expect(code(with_({ maxReaders: -1 }))).toBe(1002);
    expect(code(with_({ maxReaders: 1.5 }))).toBe(1002);
    expect(code(with_({ maxReaders: 64, maxReaderBufferBytes: 64 * 64 * 1024 - 1 }))).toBe(1002);
    expect(with_({ maxReaders: 64, maxReaderBufferBytes: 64 * 64 * 1024 })().maxReaderBufferBytes).toBe(4 * 1024 * 1024);
    expect(with_({ maxReaders: 0, maxReaderBufferBytes: 0 })().maxReaders).toBe(0);
  });
  it('bound connections per client address: 128 unless set, a whole number of 1 or more', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evio-settings-'));
    const file = join(dir, 'evio.json');
    expect(loadSettings({ env: { EVIO_HOME: dir } }).maxConnectionsPerAddress).toBe(128);
    writeFileSync(file, '{"maxConnectionsPerAddress": 512}');
    expect(loadSettings({ config: file, env: {} }).maxConnectionsPerAddress).toBe(512);
    for (const bad of ['0', '1.5', '"many"']) {
      writeFileSync(file, `{"maxConnectionsPerAddress": ${bad}}`);
      expect(() => loadSettings({ config: file, env: {} })).toThrow(/maxConnectionsPerAddress/);
    }
  });
});

describe('settings: destinations', () => {
  const load = (destinations: unknown, extra: Record<string, unknown> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'evio-settings-'));
    const file = join(dir, 'evio.json');
    writeFileSync(file, JSON.stringify({ destinations, ...extra }));
    return { dir, s: () => loadSettings({ config: file, env: {} }) };
  };
  it('default to none', () => {
    expect(loadSettings({ env: { EVIO_HOME: '/data/evio' } }).destinations).toEqual({});
  });
  it('keep database names as names and resolve SQLite paths against the settings file', () => {
    const named = load({ db: 'central', odbc: 'legacy_events', prog: ['/usr/bin/logger', '-t', 'evio'], syslog: 'tcp://127.0.0.1:601?facility=local3' }, { databases: { central: 'postgres://x@h/db' } });
    expect(named.s().destinations).toEqual({ db: 'central', odbc: 'legacy_events', prog: ['/usr/bin/logger', '-t', 'evio'], syslog: 'tcp://127.0.0.1:601?facility=local3' });
    const path = load({ db: 'copy.sqlite' });
    expect(path.s().destinations).toEqual({ db: join(path.dir, 'copy.sqlite') });
  });
  it('refuse wrong values with a message naming the destination', () => {
    const cases: Array<[unknown, RegExp]> = [
      [['db'], /"destinations" must be an object/],
      [{ mail: 'x' }, /unknown destination "mail" \(known: db, odbc, prog, syslog\)/],
      [{ db: '' }, /"destinations.db" must be a non-empty string/],
      [{ db: 'postgres://u:secret@h/db' }, /"destinations.db" must be an SQLite path or a key of "databases", not a URL/],
      [{ prog: 'logger -t evio' }, /"destinations.prog" must be a non-empty array of strings/],
      [{ prog: [] }, /"destinations.prog" must be a non-empty array/],
      [{ syslog: 'unix:/dev/log' }, /datagram socket, which Node cannot write to/],
      [{ syslog: 'udp://10.0.0.5:514' }, /must be a loopback address/],
      [{ syslog: 'tcp://127.0.0.1' }, /must be udp:\/\/HOST:PORT or tcp:\/\/HOST:PORT/],
      [{ syslog: 'tcp://127.0.0.1:70000' }, /the port must be 1-65535/],
      [{ syslog: 'udp://[::1]:514?facility=nope' }, /unknown facility "nope"/],
    ];
    for (const [v, re] of cases) {
      const { s } = load(v);
      expect(() => s()).toThrow(re);
      expect(code(() => s())).toBe(1002);
    }
  });
  it('check values given as overrides too', () => {
    expect(() => loadSettings({ env: { EVIO_HOME: '/data/evio' }, overrides: { destinations: { syslog: 'tcp://192.168.1.1:601' } } })).toThrow(/loopback/);
  });
});
