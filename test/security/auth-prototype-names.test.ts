// Finding 1 of the attack review: the keystore was a plain object, so `appid=constructor`,
// `toString`, `__proto__` ... were "known apps" with no key, and a call signed with the public
// dummy key passed. Every Object.prototype name, signed with every key an attacker could guess,
// is refused on every route, and a DELETE all=1 removes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSigned } from '../../src/app/rest-client.js';
import { allRoutes } from '../../src/app/routes/index.js';
import type { RunningServer } from '../../src/http/server.js';
import { makeHome, readAnswer, serve, signed, type TestHome } from '../http/server/helpers.js';

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
/** Keys an attacker can guess: the old public dummy key, empty and "undefined"-like strings. */
const GUESSED_KEYS = ['0'.repeat(64), '', 'undefined', 'null', '[object Object]'];

let home: TestHome;
let server: RunningServer;
const RECORDS = 5;

beforeAll(async () => {
  home = makeHome();
  const lines = Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ recnum: i + 1, uniqueid: `u${i}`, etype: 'A', time: 1_767_225_600 + i, submituser: 'alice', submithost: 'h', runuser: 'root', runhost: 'h', runcommand: '/bin/true', runargv: ['/bin/true'] }));
  writeFileSync(join(home.dir, 'events.ndjson'), `${lines.join('\n')}\n`);
  server = await serve(home);
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

function lineCount(): number {
  return readFileSync(join(home.dir, 'events.ndjson'), 'utf8').split('\n').filter(Boolean).length;
}

describe('Object.prototype names as appid', () => {
  it('covers the names the review used', () => {
    expect(PROTOTYPE_NAMES).toEqual(expect.arrayContaining(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']));
  });

  it('are refused with 8119 on every route, whatever key signs them', async () => {
    const routes = allRoutes();
    let calls = 0;
    for (const route of routes) {
      const version = route.versions.includes('v2.0') ? '/v2.0' : route.versions.includes('v2') ? '/v2' : '';
      const path = `/REST${version}${route.path}?format=ff&file=events.ndjson&all=1`;
      for (const appid of PROTOTYPE_NAMES) {
        for (const key of GUESSED_KEYS) {
          const a = await readAnswer(await sendSigned({ url: server.url, appid, key, method: route.method, path, nonce: `${calls}` }));
          calls++;
          expect({ route: `${route.method} ${route.path}`, appid, http: a.http, status: a.body.status }).toEqual({ route: `${route.method} ${route.path}`, appid, http: 401, status: 8119 });
        }
      }
    }
    expect(calls).toBe(routes.length * PROTOTYPE_NAMES.length * GUESSED_KEYS.length);
    expect(lineCount()).toBe(RECORDS);
  });

  it('a DELETE all=1 signed as "constructor" removes nothing; the real admin still can', async () => {
    const a = await readAnswer(await sendSigned({ url: server.url, appid: 'constructor', key: '0'.repeat(64), method: 'DELETE', path: '/REST/v2.0/events?format=ff&file=events.ndjson&all=1' }));
    expect(a.body.status).toBe(8119);
    expect(lineCount()).toBe(RECORDS);
    const ok = await signed(server, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&uniqueid=u0');
    expect(ok.body).toMatchObject({ status: 0, deleted: 1 });
    expect(lineCount()).toBe(RECORDS - 1);
  });
});

describe('other tables keyed by names from requests', () => {
  it('format=db&file=<prototype name> is not a configured database', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const a = await signed(server, 'admin', 'GET', `/REST/v2.0/events?format=db&file=${name}`);
      expect(a.http).toBeLessThan(500);
      expect(a.body.status).not.toBe(0);
      expect([1004, 1200]).toContain(a.body.status);
    }
  });

  it('a query parameter named after a prototype member is an unknown parameter, not an inherited value', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'valueOf']) {
      const a = await signed(server, 'admin', 'GET', `/REST/v2.0/events?format=ff&file=events.ndjson&${name}=x`);
      expect({ name, http: a.http, status: a.body.status }).toEqual({ name, http: 400, status: 1114 });
    }
  });
});
