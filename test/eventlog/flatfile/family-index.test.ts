// Log families (rotated, gzipped files read as one log) and the sidecar skip index: the
// conformance table and the property test on a single file and on families, with the index
// present (tiny blocks, so that every answer crosses many blocks), absent (turned off) and with
// gzip files of both kinds (our members with their index; a foreign single-member gzip, scanned);
// then indexes that are stale, truncated, corrupt or of another version, appends after the
// index, deletes, resume positions across files, rotate --compress.
import { appendFileSync, mkdtempSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { compressRotated } from '../../../src/eventlog/flatfile/compress.js';
import { listFamily } from '../../../src/eventlog/flatfile/family.js';
import { FAMILY_BASE } from '../../../src/eventlog/flatfile/file-query.js';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../../src/eventlog/flatfile/index-files.js';
import { indexKeyFileIn, useIndexKeyFile } from '../../../src/eventlog/flatfile/index-key.js';
import { rotateFlatFile } from '../../../src/eventlog/flatfile/rotate.js';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import type { EventQuery, EventRow, ScanStats, StoredEvent } from '../../../src/eventlog/types.js';
import { runConformance } from '../conformance/run.js';
import { runPropertyTest } from '../property/run.js';
import { collect, comparable, query, tempDir } from './helpers.js';
import { answers, lines, makeLog, reference } from './index-cases.js';

const tmp = tempDir('evio-ffidx-');
afterAll(() => tmp.cleanup());
let n = 0;


/**
 * Index settings of the variants: tiny blocks so that small logs have many; the index used
 * whenever it is valid (the planner would scan such small files: it is tested on its own in
 * index-foreign.test.ts and by the conformance table).
 */
const ON = { enabled: true, cacheDir: null, budgetMs: 60_000, blockBytes: 300, plan: 'index' as const };
const OFF = { enabled: false, cacheDir: null, budgetMs: 0 };

/**
 * Writes `records` as a family in `dir`: oldest NAME.3.gz (our members, indexed), NAME.2.gz (a
 * foreign gzip), NAME.1 (plain), NAME (live, appended). Returns the live path.
 */
async function writeFamily(dir: string, records: StoredEvent[], foreignGzip = true): Promise<string> {
  const live = join(dir, 'events.ndjson');
  const k = Math.ceil(records.length / 4);
  const parts = [records.slice(0, k), records.slice(k, 2 * k), records.slice(2 * k, 3 * k), records.slice(3 * k)];
  writeFileSync(`${live}.3`, lines(parts[0]!));
  await compressRotated(`${live}.3`, { blockBytes: 200, index: { enabled: true, cacheDir: null } });
  if (foreignGzip) writeFileSync(`${live}.2.gz`, gzipSync(Buffer.from(lines(parts[1]!))));
  else {
    writeFileSync(`${live}.2`, lines(parts[1]!));
    await compressRotated(`${live}.2`, { blockBytes: 500, index: { enabled: true, cacheDir: null } });
  }
  writeFileSync(`${live}.1`, lines(parts[2]!));
  writeFileSync(live, lines(parts[3]!));
  return live;
}

const single = (index: typeof ON | typeof OFF) => () => ({
  format: 'ff' as const,
  params: { file: 'x.ndjson' },
  async make(records: StoredEvent[]) {
    const dir = mkdtempSync(join(tmp.dir, 's-'));
    const s = new FlatFileStore({ path: join(dir, `log-${n++}.ndjson`), readSize: 97, index });
    await s.append(records);
    return s;
  },
});

const family = (index: typeof ON | typeof OFF, foreignGzip: boolean) => () => ({
  format: 'ff' as const,
  params: { file: 'x.ndjson', family: '1' },
  queriesOnly: true,
  async make(records: StoredEvent[]) {
    const dir = mkdtempSync(join(tmp.dir, 'f-'));
    return new FlatFileStore({ path: await writeFamily(dir, records, foreignGzip), readSize: 61, family: true, index });
  },
});

describe('single file with a skip index (tiny blocks)', () => {
  runConformance('flat file, index', single(ON));
  runPropertyTest('flat file, index', single(ON), 40);
});

describe('single file, index turned off', () => {
  runConformance('flat file, no index', single(OFF));
});

describe('log family: gzip members with their index, a foreign gzip, plain files', () => {
  runConformance('family, index', family(ON, true));
  runPropertyTest('family, index', family(ON, true), 40);
  runPropertyTest('family, every gzip ours', family(ON, false), 25);
});

describe('log family without indexes', () => {
  runConformance('family, no index', family(OFF, true));
  runPropertyTest('family, no index', family(OFF, true), 25);
});

// ---- the index is an accelerator only ----

describe('skip index: missing, stale, truncated, corrupt, another version, appended to', () => {
  const log = makeLog(1500);

  it('answers as the reference with the index, and skips blocks (reads less)', async () => {
    const path = join(tmp.dir, `ix-${n++}.ndjson`);
    writeFileSync(path, lines(log));
    const [rep] = await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 4096 });
    expect(rep!.outcome).toBe('built');
    expect(rep!.blocks).toBeGreaterThan(20);
    const s = new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } });
    expect(await answers(s)).toEqual(await reference(log));
    // A selective query reads a fraction of the file.
    await collect(s.query(parseEventQuery({ format: 'ff', file: 'x', uniqueid: 's120' }).query));
    expect(s.lastRead.bytes).toBeLessThan(statSync(path).size / 10);
    const selectiveAlone = s.lastRead.bytes;
    const scan = new FlatFileStore({ path, index: OFF });
    await collect(scan.query(parseEventQuery({ format: 'ff', file: 'x', uniqueid: 's120' }).query));
    expect(scan.lastRead.bytes).toBeGreaterThanOrEqual(statSync(path).size);
    // Each query counts its own bytes (the metrics' evio_flatfile_bytes_read_total), also when
    // two run at once on one store: a selective one through the index, a full one that scans.
    const selective: ScanStats = { malformed: 0 };
    const full: ScanStats = { malformed: 0 };
    await Promise.all([
      collect(s.query(parseEventQuery({ format: 'ff', file: 'x', uniqueid: 's120' }).query, { stats: selective })),
      collect(s.query(parseEventQuery({ format: 'ff', file: 'x', dump: '1' }).query, { stats: full })),
    ]);
    expect(selective.bytesRead).toBe(selectiveAlone);
    expect(full.bytesRead).toBe(statSync(path).size);
  });

  const damages: Array<[string, (path: string, idx: string) => void]> = [
    ['index truncated', (_p, idx) => writeFileSync(idx, readFileSync(idx).subarray(0, 200))],
    ['index body corrupt', (_p, idx) => {
      const b = readFileSync(idx);
      b[b.length - 5] = b[b.length - 5]! ^ 0xff;
      writeFileSync(idx, b);
    }],
    ['index of another version', (_p, idx) => writeFileSync(idx, readFileSync(idx).toString('latin1').replace('"version":4', '"version":9'), 'latin1')],
    ['data rewritten in place (same inode, same size)', (p) => {
      const b = readFileSync(p);
      b.write('{"recnum":1,"uniqueid":"zz","etype":"R","time":1767225601}', 0);
      // Keep the line structure: pad the rest of the first line with spaces.
      writeFileSync(p, b);
    }],
    ['data replaced by another file (new inode)', (p) => {
      writeFileSync(`${p}.new`, lines(log.slice(0, 700)));
      renameSync(`${p}.new`, p);
    }],
    ['data truncated below the indexed size', (p) => writeFileSync(p, readFileSync(p).subarray(0, 5000))],
    ['data appended to', (p) => appendFileSync(p, lines(makeLog(200, 99).map((r) => ({ ...r, recnum: r.recnum + 5000, uniqueid: `t${r.uniqueid}` }))))],
  ];
  for (const [name, damage] of damages) {
    it(`${name}: the same answer as a scan`, async () => {
      const path = join(tmp.dir, `dmg-${n++}.ndjson`);
      writeFileSync(path, lines(log));
      await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 4096 });
      damage(path, `${path}.evidx`);
      const want = await answers(new FlatFileStore({ path, index: OFF }));
      // With no time to rebuild (the damaged index is ignored), and with time (rebuilt or extended).
      expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(want);
      expect(await answers(new FlatFileStore({ path, index: { ...ON, blockBytes: 4096 } }))).toEqual(want);
      expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(want);
    });
  }

  it('an index in a cache folder; a store that kept an index in memory sees the file change', async () => {
    const cacheDir = join(tmp.dir, `cache-${n++}`);
    const path = join(tmp.dir, `c-${n++}.ndjson`);
    const s = new FlatFileStore({ path, index: { enabled: true, cacheDir, budgetMs: 60_000, blockBytes: 2048 } });
    await s.append(log.slice(0, 800));
    const m = new MemoryStore();
    await m.append(log.slice(0, 800));
    const q = query({ patterns: { submituser: [parseEventQuery({ submituser: 'user4' }).query.patterns.submituser![0]!] } });
    expect(comparable(await collect(s.query(q)))).toEqual(comparable(await collect(m.query(q))));
    expect(statSync(cacheDir).isDirectory()).toBe(true);
    // Appends (index extended or tail scanned) and a delete (a new inode) later.
    await s.append(log.slice(800));
    await m.append(log.slice(800));
    expect(comparable(await collect(s.query(q)))).toEqual(comparable(await collect(m.query(q))));
    const del = parseEventQuery({ submituser: 'user4' }).query;
    expect(await s.delete(del)).toEqual(await m.delete(del));
    for (const qq of [q, query({ dump: true })]) expect(comparable(await collect(s.query(qq)))).toEqual(comparable(await collect(m.query(qq))));
  });
});

describe('log families', () => {
  it('lists rotation names oldest first: dateext, evio stamps, numbers, plain beats .gz', async () => {
    const dir = mkdtempSync(join(tmp.dir, 'names-'));
    const live = join(dir, 'ev.log');
    for (const name of ['ev.log', 'ev.log.1', 'ev.log.2.gz', 'ev.log.10.gz', 'ev.log-20261101.gz', 'ev.log-20261102', 'ev.log.20261103T010000Z.gz', 'ev.log.20261103T010000Z-2', 'ev.log.1.evidx', 'ev.log.lock', 'ev.log.x', 'ev.log.3', 'ev.log.3.gz']) {
      writeFileSync(join(dir, name), '');
    }
    const got = (await listFamily(live)).map((m) => m.path.slice(dir.length + 1));
    expect(got).toEqual(['ev.log-20261101.gz', 'ev.log-20261102', 'ev.log.20261103T010000Z.gz', 'ev.log.20261103T010000Z-2', 'ev.log.10.gz', 'ev.log.3', 'ev.log.2.gz', 'ev.log.1', 'ev.log']);
  });

  it('rotate --compress, appends, family queries: one recnum sequence, finishes merged across files, resume across files', async () => {
    const dir = mkdtempSync(join(tmp.dir, 'rot-'));
    const live = join(dir, 'events.ndjson');
    const log = makeLog(900, 3);
    const s = new FlatFileStore({ path: live, index: { ...ON, blockBytes: 2048 } });
    const fam = new FlatFileStore({ path: live, family: true, index: { ...ON, blockBytes: 2048 } });
    const m = new MemoryStore();
    let t = 0;
    for (const cut of [300, 600, 900]) {
      await s.append(log.slice(t, cut));
      await m.append(log.slice(t, cut));
      t = cut;
      const r = await rotateFlatFile({ path: live, compress: true, index: { enabled: true, cacheDir: null }, now: () => new Date(Date.UTC(2026, 10, 24, 0, 0, cut / 100)) });
      expect(r.compressedTo).toMatch(/\.gz$/);
    }
    expect((await listFamily(live)).length).toBe(4);
    const famAnswers = await answers(fam, true);
    expect(famAnswers).toEqual(await reference(log));
    // Paging through the family with the offsets of its rows gives every row once, in order.
    const all = comparable(await collect(m.query(query({ dump: true }))));
    const paged: EventRow[] = [];
    let offset = 0;
    for (;;) {
      const page = await collect(fam.query(query({ dump: true, byteOffset: offset, limit: 37 })));
      paged.push(...page);
      if (page.length < 37) break;
      offset = page[page.length - 1]!.offset!;
    }
    expect(comparable(paged)).toEqual(all);
    expect(paged.some((r) => r.offset! >= FAMILY_BASE)).toBe(true);
    // Offsets of the live file alone stay valid in a family query.
    const liveRows = await collect(s.query(query({ dump: true })));
    const mid = liveRows[Math.floor(liveRows.length / 2)]!;
    const rest = await collect(fam.query(query({ dump: true, byteOffset: mid.offset! })));
    expect(rest.map((r) => r.rec.recnum)).toEqual(liveRows.slice(Math.floor(liveRows.length / 2) + 1).map((r) => r.rec.recnum));
    // Without family=1, a family position is refused.
    await expect(collect(s.query(query({ byteOffset: FAMILY_BASE + 5 })))).rejects.toMatchObject({ code: 1252 });
  });

  it('a one-hour range reads a small part of a compressed family', async () => {
    const dir = mkdtempSync(join(tmp.dir, 'range-'));
    const live = join(dir, 'events.ndjson');
    const log = makeLog(6000, 11);
    await writeFamily(dir, log, false);
    const fam = new FlatFileStore({ path: live, family: true, index: { ...ON, blockBytes: 2048 } });
    const t0 = log[3000]!.time;
    const q = parseEventQuery({ format: 'ff', file: 'x', family: '1', from: String(t0), to: String(t0 + 600), dump: '1' }).query;
    const m = new MemoryStore();
    await m.append(log);
    const { family: _f, ...dbq } = { ...q, family: 1 };
    void _f;
    expect(comparable(await collect(fam.query(q)))).toEqual(comparable(await collect(m.query(dbq as EventQuery))));
    const total = (await listFamily(live)).reduce((a, f) => a + statSync(f.path).size, 0);
    expect(fam.lastRead.bytes).toBeLessThan(total * 0.2);
  });
});

describe('where indexes are written', () => {
  it('a request-named (confined) log: never beside it; in flatfileIndexDir when set. Small files get none from queries', async () => {
    const { existsSync, readdirSync, realpathSync } = await import('node:fs');
    const dir = realpathSync(mkdtempSync(join(tmp.dir, 'conf-')));
    const path = join(dir, 'events.ndjson');
    writeFileSync(path, lines(makeLog(3000, 8)));
    const q = parseEventQuery({ format: 'ff', file: 'x', submituser: 'user1' }).query;
    const want = comparable(await collect(new FlatFileStore({ path, index: OFF }).query(q)));
    expect(comparable(await collect(new FlatFileStore({ path, confined: true, index: { ...ON, blockBytes: 4096 } }).query(q)))).toEqual(want);
    expect(existsSync(`${path}.evidx`)).toBe(false);
    const cacheDir = join(tmp.dir, `conf-cache-${n++}`);
    expect(comparable(await collect(new FlatFileStore({ path, confined: true, index: { ...ON, blockBytes: 4096, cacheDir } }).query(q)))).toEqual(want);
    expect(existsSync(`${path}.evidx`)).toBe(false);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('-events.ndjson.evidx'))).toHaveLength(1);
    // The operator's store indexes beside the file, but not a file of fewer than 4 blocks.
    const small = new FlatFileStore({ path, index: { ...ON, blockBytes: statSync(path).size } });
    await collect(small.query(q));
    expect(existsSync(`${path}.evidx`)).toBe(false);
    await collect(new FlatFileStore({ path, index: { ...ON, blockBytes: 4096 } }).query(q));
    expect(existsSync(`${path}.evidx`)).toBe(true);
  });
});

describe('the doors: family=1 and evio events index', () => {
  it('family=1 goes with format=ff only', () => {
    expect(() => parseEventQuery({ format: 'db', family: '1' })).toThrow(expect.objectContaining({ code: 1114 }));
    expect(parseEventQuery({ format: 'ff', file: 'x', family: '1' }).store).toEqual({ format: 'ff', file: 'x', family: true });
  });

  it('evio events index --family, then evio events query --family answers every record once', async () => {
    const { execFileSync } = await import('node:child_process');
    const bin = join(import.meta.dirname, '../../../bin/evio.js');
    const dir = mkdtempSync(join(tmp.dir, 'cli-'));
    const log = makeLog(2000, 5);
    // Indexes written here under the key the CLI will use (that of its home: index-key.ts).
    useIndexKeyFile(indexKeyFileIn(dir));
    const live = await writeFamily(dir, log);
    const env = { ...process.env, EVIO_HOME: dir };
    const out = execFileSync(process.execPath, [bin, 'events', 'index', live, '--family'], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
    const reports = out.trim().split('\n').map((l) => JSON.parse(l) as { path: string; outcome: string });
    expect(reports.map((r) => r.outcome.split(' ')[0])).toEqual(['current', 'not', 'built', 'built']);
    const rows = execFileSync(process.execPath, [bin, 'events', 'query', `ff:${live}`, '--family', '--dump', '1', '--limit', '100000'], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(rows.trim().split('\n').map((l) => (JSON.parse(l) as { recnum: number }).recnum)).toEqual(log.map((r) => r.recnum));
  });
});
