// A postgres:// URL without a user connects as libpq does: PGUSER, else the effective user's
// name — also where $USER and $LOGNAME are unset (cron jobs, systemd units).
import { spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { libpqDefaultUser } from '../../../src/eventlog/postgres/pg-url.js';
import { dropPgSchemas, PG_URL, postgresService } from './services.js';

const ROOT = join(import.meta.dirname, '../../..');
const schema = `evio_t_defuser_${process.pid}`;
const NO_USER_URL = `postgres://127.0.0.1:5432/test`;

afterAll(async () => {
  if ((await postgresService()).ok) await dropPgSchemas([schema]);
});

describe('libpq default user', () => {
  it('PGUSER first, then the effective user name; never $USER', () => {
    expect(libpqDefaultUser({ PGUSER: 'evio', USER: 'other' }, () => 'root')).toBe('evio');
    expect(libpqDefaultUser({ USER: 'other' }, () => 'root')).toBe('root');
    expect(libpqDefaultUser({ PGUSER: '' }, () => 'daemon')).toBe('daemon');
    expect(libpqDefaultUser({}, () => { throw new Error('no passwd entry'); })).toBeUndefined();
    expect(libpqDefaultUser({}, () => '')).toBeUndefined();
    expect(libpqDefaultUser({})).toBe(userInfo().username);
  });

  it('a child process without USER, LOGNAME and PGUSER opens a store by a URL without a user', async (ctx) => {
    if (!(await postgresService()).ok) ctx.skip();
    const env = { ...process.env };
    for (const k of ['USER', 'LOGNAME', 'PGUSER', 'USERNAME']) delete env[k];
    const script = `
      import { PostgresStore } from ${JSON.stringify(join(ROOT, 'dist/eventlog/postgres/index.js'))};
      const s = new PostgresStore({ connectionString: ${JSON.stringify(NO_USER_URL)}, schema: ${JSON.stringify(schema)} });
      try { await s.open(); console.log('opened ' + s.name); } catch (e) { console.log('failed ' + e.message); process.exitCode = 3; }
      finally { await s.close(); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout.trim()).toBe(`opened pg:${NO_USER_URL}`);
    expect(r.status).toBe(0);
    // The schema the store created belongs to the effective user, the role it connected as.
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      const owner = await admin.query('SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(owner.rows).toEqual([{ owner: userInfo().username }]);
    } finally {
      await admin.end();
    }
  }, 90_000);
});
