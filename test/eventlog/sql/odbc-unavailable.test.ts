// Without the odbc module (a machine where it could not be built), evio still loads, and every
// ODBC call answers ODBC_UNAVAILABLE saying what to install. DSN names cannot smuggle
// connection-string attributes.
import { describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { OdbcStore } from '../../../src/eventlog/odbc/index.js';
import { DELETE_ALL, DUMP_ALL } from './model.js';

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}

describe('ODBC without the odbc module', () => {
  it('answers ODBC_UNAVAILABLE, with what to install, for every call', async () => {
    const s = new OdbcStore({ dsn: 'central', moduleName: 'evio-odbc-module-that-is-not-installed' });
    expect(s.kind).toBe('odbc');
    expect(s.name).toBe('odbc:central');
    const calls = [
      s.query(DUMP_ALL)[Symbol.asyncIterator]().next(),
      s.append([{ uniqueid: 'a', etype: 'A', time: 1 }]),
      s.delete(DELETE_ALL),
      s.lastRecnum(),
    ];
    for (const c of calls) {
      const err = await errorOf(c);
      expect(isEvioError(err, 'ODBC_UNAVAILABLE')).toBe(true);
      expect((err as Error).message).toMatch(/^1304 the evio-odbc-module-that-is-not-installed module cannot be loaded .*apt-get install unixodbc unixodbc-dev.*npm rebuild odbc/);
      expect((err as Error).message).not.toMatch(/\n\s+at /);
    }
    await s.close();
  });
});

describe('ODBC data source names', () => {
  it('refuses a name that is not a plain DSN (no attributes can be added through it)', () => {
    expect(() => new OdbcStore('evio_pg;Database=/etc/passwd')).toThrow(/^1119 dsn "evio_pg;Database=\/etc\/passwd" is not a data source name/);
    expect(() => new OdbcStore('{x}')).toThrow(/^1119 /);
    expect(() => new OdbcStore('')).toThrow(/^1119 /);
    expect(new OdbcStore('My Events-2.db').name).toBe('odbc:My Events-2.db');
  });
});
