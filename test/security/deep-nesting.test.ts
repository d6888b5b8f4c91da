// Deeply nested JSON: JSON.parse copes, but JSON.stringify, structuredClone (worker answers) and
// recursive walkers overflow the stack. Every door refuses nesting deeper than JSON_MAX_DEPTH
// (64) with a 4xx code and goes on past it: a stored line or row is skipped as malformed (the
// records after it are still answered), an append is refused (1203), an imported event is
// skipped and reported (1712), a log.json (1403) or asciicast header (1415) is refused.
// Served over a real HTTP server on 127.0.0.1 with the real worker pool (dist/).
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { importSudoLog } from '../../src/eventlog/import/importer.js';
import { MemoryStore } from '../../src/eventlog/memory-store.js';
import { parseEventQuery } from '../../src/eventlog/query.js';
import { SqliteStore } from '../../src/eventlog/sqlite/index.js';
import type { EventStore, NewEvent } from '../../src/eventlog/types.js';
import type { RunningServer } from '../../src/http/server.js';
import { JSON_MAX_DEPTH, jsonTextTooDeep, valueTooDeep } from '../../src/json-depth.js';
import { makeHome, serve, signed, type TestHome } from '../http/server/helpers.js';

/** `depth` nested arrays as JSON text. */
const deepText = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** `depth` nested arrays as a value, built without recursion. */
function deepValue(depth: number): unknown {
  let v: unknown[] = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

const T = 1_700_000_000;
const good = (n: number, extra = '') =>
  `{"recnum":${n},"uniqueid":"u${n}","etype":"A","time":${T + n},"submituser":"alice","submithost":"h1","runuser":"root","runhost":"h1","runcommand":"/bin/ls","runargv":["ls"]${extra}}`;

let home: TestHome;
let server: RunningServer;
beforeAll(async () => {
  home = makeHome();
  server = await serve(home);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

describe('the depth check', () => {
  it('counts brackets outside strings only, and refuses one level past the limit', () => {
    expect(jsonTextTooDeep(deepText(JSON_MAX_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(deepText(JSON_MAX_DEPTH + 1))).toBe(true);
    expect(jsonTextTooDeep(JSON.stringify({ s: '['.repeat(10_000), t: '\\"[[[' }))).toBe(false);
    expect(jsonTextTooDeep(`{"a":${'[{"b":'.repeat(40)}1${'}]'.repeat(40)}}`)).toBe(true);
    expect(valueTooDeep(deepValue(JSON_MAX_DEPTH))).toBe(false);
    expect(valueTooDeep(deepValue(JSON_MAX_DEPTH + 1))).toBe(true);
    expect(valueTooDeep(deepValue(200_000))).toBe(true);
  });
});

describe('event logs', () => {
  it('a flat file with a 200,000-deep record: queries skip it as malformed and answer the records after it', async () => {
    const file = join(home.dir, 'deep.ndjson');
    writeFileSync(file, `${[good(1), good(2, `,"x":${deepText(200_000)}`), good(3), good(4)].join('\n')}\n`);
    for (const verbose of ['1', '0']) {
      const a = await signed(server, 'admin', 'GET', `/REST/v2.0/events?format=ff&file=deep.ndjson&verbose=${verbose}`);
      expect(a.http, a.text.slice(0, 300)).toBe(200);
      expect(a.body.status).toBe(0);
      expect((a.body.events as Array<{ recnum: number }>).map((e) => e.recnum)).toEqual([1, 3, 4]);
      expect(a.body.malformed).toBe(1);
    }
    const legacy = await signed(server, 'admin', 'GET', '/REST/events?file=deep.ndjson');
    expect(legacy.http, legacy.text.slice(0, 300)).toBe(200);
    expect((legacy.body.events as Array<{ id: string }>).map((e) => e.id)).toEqual(['u1', 'u3', 'u4']);
  });

  it('appends refuse a too-deep record with 1203 (400) and store nothing', async () => {
    const flat = join(home.dir, 'append.ndjson');
    const stores: EventStore[] = [new FlatFileStore({ path: flat }), new SqliteStore(join(home.dir, 'append.sqlite')), new MemoryStore()];
    const ok: NewEvent = { uniqueid: 'ok', etype: 'A', time: T };
    for (const store of stores) {
      await store.append([ok]);
      for (const depth of [200_000, JSON_MAX_DEPTH]) {
        const bad: NewEvent = { uniqueid: 'bad', etype: 'A', time: T + 1, x: deepValue(depth) };
        await expect(store.append([bad]), store.kind).rejects.toMatchObject({ code: 1203, message: expect.stringContaining(`deeper than ${JSON_MAX_DEPTH} levels`) });
      }
      // One level less than the limit is an ordinary record.
      await store.append([{ uniqueid: 'fits', etype: 'A', time: T + 2, x: deepValue(JSON_MAX_DEPTH - 1) }]);
      const rows = [];
      for await (const r of store.query(parseEventQuery({ format: 'ff', file: 'x', dump: '1' }).query)) rows.push(r.rec.uniqueid);
      expect(rows, store.kind).toEqual(['ok', 'fits']);
      await store.close();
    }
    expect(readFileSync(flat, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('an SQLite row whose stored record is too deep is skipped as malformed by verbose queries', async () => {
    const path = join(home.dir, 'rows.sqlite');
    const store = new SqliteStore(path);
    await store.append([1, 2, 3].map((n) => ({ uniqueid: `u${n}`, etype: 'A' as const, time: T + n, submituser: 'alice' })));
    await store.close();
    const db = new Database(path);
    db.prepare('UPDATE events SET record = ? WHERE recnum = 2').run(good(2, `,"x":${deepText(200_000)}`));
    db.close();
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=db&file=rows.sqlite&verbose=1');
    expect(a.http, a.text.slice(0, 300)).toBe(200);
    expect(a.body.status).toBe(0);
    // Database answers carry no malformed count (only flat-file ones do); the row is skipped.
    expect((a.body.events as Array<{ recnum: number }>).map((e) => e.recnum)).toEqual([1, 3]);
  });
});

describe('sudo JSON import', () => {
  const accept = (uuid: string, t: number, extra = '') =>
    `{"uuid":"${uuid}","submit_time":{"seconds":${t},"nanoseconds":0},"submituser":"alice","submithost":"h1","runuser":"root","command":"/bin/ls"${extra}}`;

  it('skips an event with a 10,000-deep field with 1712 and imports the events after it', async () => {
    const deep = `,"x":${deepText(10_000)}`;
    const pretty = join(home.dir, 'sudo-pretty.json');
    writeFileSync(pretty, `{\n  "accept": ${accept('a1', T + 1)},\n  "accept": ${accept('a2', T + 2, `,\n    ${deep.slice(1)}`)},\n  "accept": ${accept('a3', T + 3)}\n}\n`);
    const compact = join(home.dir, 'sudo-compact.json');
    writeFileSync(compact, `{"accept":${accept('c1', T + 1)}}\n{"accept":${accept('c2', T + 2, deep)}}\n{"accept":${accept('c3', T + 3)}}\n`);
    for (const [file, ids, line] of [[pretty, ['a1', 'a3'], 3], [compact, ['c1', 'c3'], 2]] as const) {
      const target = join(home.dir, `imported-${ids[0]}.ndjson`);
      const store = new FlatFileStore({ path: target });
      const report = await importSudoLog({ format: 'sudo-json', file, store, timezone: 'UTC', lockDir: null });
      await store.close();
      expect(report.importedTotal, file).toBe(2);
      expect(report.skipped.badEvents).toBe(1);
      expect(report.stop).toBeNull();
      expect(report.firstBadEvent).toMatchObject({ code: 1712, line, reason: expect.stringMatching(/^1712 .*nests deeper than 64 levels/) });
      const stored = readFileSync(target, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { uniqueid: string });
      expect(stored.map((r) => r.uniqueid)).toEqual(ids);
    }
  });
});

describe('I/O logs over HTTP', () => {
  it('a deep log.json answers 1403 (422) and a deep asciicast header 1415 (422), not 500; a search goes on past them', async () => {
    const root = home.settings.iologdirs[0]!;
    const session = (name: string, logJson: string, legacy?: string) => {
      const d = join(root, name);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'log.json'), logJson);
      if (legacy !== undefined) writeFileSync(join(d, 'log'), legacy);
      writeFileSync(join(d, 'timing'), '4 0.100000 9\n');
      writeFileSync(join(d, 'ttyout'), 'findme!\r\n');
    };
    const deepLog = `{"timestamp":{"seconds":${T},"nanoseconds":0},"submituser":"alice","runuser":"root","command":"/bin/sh","x":${deepText(200_000)}}`;
    session('deep-log', deepLog);
    session('deep-log-legacy', deepLog, `${T}:alice:root::pts/1:24:80\n/home/alice\n/bin/sh\n`);
    session('good', `{"timestamp":{"seconds":${T},"nanoseconds":0},"submituser":"alice","runuser":"root","command":"/bin/sh"}`);
    writeFileSync(join(root, 'deep-header.cast'), `{"version":2,"width":80,"height":24,"x":${deepText(200_000)}}\n[0.1,"o","findme!\\r\\n"]\n`);

    for (const [file, code] of [['deep-log', 1403], ['deep-header.cast', 1415]] as const) {
      for (const route of ['/REST/v2.0/iolog/variables', '/REST/v2.0/iolog']) {
        const a = await signed(server, 'admin', 'GET', `${route}?file=${file}`);
        expect(a.http, `${route} ${file}: ${a.text.slice(0, 300)}`).toBe(422);
        expect(a.body.status).toBe(code);
        expect(a.body.error).toMatch(new RegExp(`^${code} .*nests deeper than 64 levels`));
      }
    }
    // A session whose log.json is refused is still read through its legacy log.
    const legacy = await signed(server, 'admin', 'GET', '/REST/v2.0/iolog/variables?file=deep-log-legacy');
    expect(legacy.http, legacy.text.slice(0, 300)).toBe(200);
    expect(legacy.body.log).toMatchObject({ submituser: 'alice', command: '/bin/sh' });

    const s = await signed(server, 'admin', 'GET', `/REST/v2.0/iolog/search?file=${encodeURIComponent('*')}&query=${encodeURIComponent('output:findme')}`);
    expect(s.http, s.text.slice(0, 300)).toBe(200);
    expect(s.body.status).toBe(0);
    // Named relative to their root (docs/api.md, "Numbers and paths in answers").
    expect((s.body.iologs as string[]).sort()).toEqual(['deep-log-legacy', 'good']);
    const warnings = s.body.warnings as string[];
    expect(warnings.some((w) => w.startsWith('1403 ') && w.includes('deep-log:'))).toBe(true);
    expect(warnings.some((w) => w.startsWith('1415 ') && w.includes('deep-header.cast'))).toBe(true);
    expect(statSync(join(root, 'deep-header.cast')).size).toBeGreaterThan(400_000);
  }, 60_000);
});
