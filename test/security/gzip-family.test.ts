// Hostile gzip members in a flat-file log family (attack review, finding 5): a 29-byte member
// that is a valid gzip header followed by garbage, a truncated member, and a gzip bomb (200 MB
// of zeros compressed to about 200 KB). A family query (family=1) reads every rotated member,
// so each must end in an answer: a damaged member is FF_GZIP_CORRUPT (1250) — through the app
// function, the REST handlers and the CLI (non-zero exit) — the store's reader slots come back
// on error, on abort and when a client leaves, and decompressing a bomb neither stalls the
// event loop nor goes on after the query is aborted. Every wait here is bounded by a deadline.
// "Does not stall" is asserted as a count, not a time (a loaded machine stretches any time):
// at most STALL_BYTES are decompressed between two turns of the event loop; the longest stall
// is printed for information.
import { execFile } from 'node:child_process';
import { createWriteStream, unlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw, createGzip, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { queryEvents } from '../../src/app/events.js';
import { dispatch } from '../../src/app/router.js';
import type { ApiResponse } from '../../src/app/types.js';
import { toEvioError } from '../../src/errors.js';
import { GzipSource, gzipCounters, gzipMember, readMember } from '../../src/eventlog/flatfile/gzip.js';
import { buildGzipIndex } from '../../src/eventlog/flatfile/index-build.js';
import { activeReaders } from '../../src/eventlog/reader-slots.js';
import { openRequestStore } from '../../src/eventlog/stores.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { makeHome, signedHref, type TestHome } from '../http/server/helpers.js';

const bin = new URL('../../bin/evio.js', import.meta.url).pathname;
const V = '/REST/v2.0';
const MB = 1024 * 1024;

const homes: TestHome[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close().catch(() => {});
  for (const h of homes) await h.cleanup();
});

function line(recnum: number): string {
  return JSON.stringify({ recnum, uniqueid: `u${recnum}`, etype: 'A', time: 1700000000 + recnum, submituser: 'alice', submithost: 'h', runuser: 'root', runhost: 'h', runcommand: '/bin/true', runargv: ['true'] });
}
const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${line(from + i)}\n`).join('');

/** A valid 10-byte gzip header (deflate, no flags) and 19 bytes that are no deflate stream: 29 bytes. */
const GARBAGE_MEMBER = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]), Buffer.from([0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8, 0xf7, 0xf6, 0xf5, 0xf4, 0xf3, 0xf2, 0xf1, 0xf0, 0xef, 0xee, 0xed])]);
/** A real gzip of ten records with its last 20 bytes (part of the deflate data and the trailer) cut off. */
const whole = gzipSync(Buffer.from(lines(1, 10)));
const TRUNCATED_MEMBER = whole.subarray(0, whole.length - 20);

/**
 * A data folder whose log family is events.ndjson (records 21-30), events.ndjson.1.gz (`gz`)
 * and, with `older`, events.ndjson.2 (records 1-10, read first).
 */
function familyHome(gz: Buffer | null, older = false): TestHome {
  const home = makeHome();
  homes.push(home);
  writeFileSync(join(home.dir, 'events.ndjson'), lines(21, 30));
  if (gz) writeFileSync(join(home.dir, 'events.ndjson.1.gz'), gz);
  if (older) writeFileSync(join(home.dir, 'events.ndjson.2'), lines(1, 10));
  return home;
}

const familyParams = (extra: Record<string, string> = {}) => ({ format: 'ff', file: 'events.ndjson', family: '1', ...extra });
const familyStore = (home: TestHome) => openRequestStore(home.engine, { format: 'ff', file: 'events.ndjson', family: true });

/** `p`, or 'hung' when it has not settled by the deadline (a bound on the test, not an assertion on speed). */
async function byDeadline<T>(p: Promise<T>, ms = 20_000): Promise<T | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a family query through the app function: the rows it gave and the code it ended with (0: complete). */
async function appQuery(home: TestHome, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<{ rows: number; code: number }> {
  let rows = 0;
  try {
    const a = await queryEvents(home.engine, familyParams(extra), { signal });
    for await (const _ of a.events) rows++;
    return { rows, code: 0 };
  } catch (err) {
    return { rows, code: toEvioError(err).code };
  }
}

/** A REST call through the service's handlers: the HTTP status and the parsed body. */
async function restQuery(home: TestHome, extra: Record<string, string> = {}): Promise<{ http: number; body: Record<string, unknown> }> {
  const q = new URLSearchParams(familyParams(extra));
  const res: ApiResponse = await dispatch(home.engine, { method: 'GET', path: `${V}/events`, query: Object.fromEntries(q), body: undefined, signal: new AbortController().signal, remote: 'test' });
  if (res.kind === 'json') return { http: res.http, body: res.body };
  if (res.kind !== 'json-stream') throw new Error('unexpected answer kind');
  let text = '';
  for await (const c of res.chunks) text += c;
  return { http: res.http, body: JSON.parse(text) as Record<string, unknown> };
}

/** The CLI as a user runs it; the deadline kills a hung child. */
function cli(args: string[], home: TestHome): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, EVIO_HOME: home.dir, EVIO_CONFIG: '' }, cwd: home.dir, timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

it('the damaged member is 29 bytes', () => {
  expect(GARBAGE_MEMBER.length).toBe(29);
});

describe.each([
  ['a 29-byte member: gzip header, then garbage', GARBAGE_MEMBER],
  ['a truncated member', TRUNCATED_MEMBER],
])('%s', (_name, member) => {
  it('is 1250 through the app function, and the reader slot comes back', async () => {
    const home = familyHome(member);
    expect(await byDeadline(appQuery(home))).toEqual({ rows: 0, code: 1250 });
    expect(activeReaders(await familyStore(home))).toBe(0);
  });

  it('is 1250 in the REST answer: before any record (422), and after the records of an older file (in the body)', async () => {
    const first = await byDeadline(restQuery(familyHome(member)));
    expect(first).not.toBe('hung');
    if (first === 'hung') return;
    expect(first.http).toBe(422);
    expect(first.body.status).toBe(1250);
    expect(String(first.body.error)).toMatch(/^1250 .*events\.ndjson\.1\.gz/);
    // Records 1-10 come from events.ndjson.2 (dump=1: accepts are not held for their finish
    // records), then the damaged member ends the answer.
    const home = familyHome(member, true);
    const mid = await byDeadline(restQuery(home, { dump: '1' }));
    expect(mid).not.toBe('hung');
    if (mid === 'hung') return;
    expect(mid.http).toBe(200);
    expect(mid.body.status).toBe(1250);
    // The ten records of events.ndjson.2, and those a truncated member holds before its cut.
    expect((mid.body.events as unknown[]).length).toBeGreaterThanOrEqual(10);
    expect(activeReaders(await familyStore(home))).toBe(0);
  });

  it('is an error with 1250 and a non-zero exit in the CLI (evio events query --family, evio call)', async () => {
    const home = familyHome(member);
    const q = await cli(['events', 'query', `ff:${join(home.dir, 'events.ndjson')}`, '--family'], home);
    expect(q.code).toBe(1);
    expect(q.stdout).toBe('');
    expect(q.stderr).toMatch(/^evio: 1250 /);
    const c = await cli(['call', 'GET', `${V}/events?format=ff&file=events.ndjson&family=1`], home);
    expect(c.code).toBe(1);
    expect(JSON.parse(c.stdout).status).toBe(1250);
  });
});

describe('reader slots', () => {
  it('40 queries of a family with a damaged member (more than the 32 slots) all end in 1250; then the store answers', async () => {
    const home = familyHome(GARBAGE_MEMBER);
    // One after the other: each ends before the next starts (at once, 40 would be more than the
    // slots by design, and the 33rd would rightly be 1618).
    const sequence = async () => {
      const out: Array<{ body: Record<string, unknown> }> = [];
      for (let i = 0; i < 40; i++) out.push(await restQuery(home));
      return out;
    };
    const all = await byDeadline(sequence());
    expect(all).not.toBe('hung');
    if (all === 'hung') return;
    expect(all.map((a) => a.body.status)).toEqual(Array.from({ length: 40 }, () => 1250));
    const store = await familyStore(home);
    expect(activeReaders(store)).toBe(0);
    // The member is removed: the same store (its slots) answers the whole family.
    unlinkSync(join(home.dir, 'events.ndjson.1.gz'));
    const ok = await byDeadline(restQuery(home));
    expect(ok).not.toBe('hung');
    if (ok === 'hung') return;
    expect(ok.body.status).toBe(0);
    expect((ok.body.events as unknown[]).length).toBe(10);
  });
});

describe('a gzip bomb member (200 MB of zeros, about 200 KB compressed)', () => {
  const bombHome = (): Promise<TestHome> => {
    const home = familyHome(null);
    const zeros = Buffer.alloc(MB);
    const source = Readable.from((function* () {
      for (let i = 0; i < 200; i++) yield zeros;
    })());
    return pipeline(source, createGzip(), createWriteStream(join(home.dir, 'events.ndjson.1.gz'))).then(() => home);
  };

  it('does not stall the event loop while it is decompressed', async () => {
    const home = await bombHome();
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const inflated0 = gzipCounters.inflated;
    const turns = inflatedPerTurn();
    const r = await byDeadline(appQuery(home, { submituser: 'nobody' }), 120_000);
    const perTurn = turns.stop();
    const maxStallMs = await longestStall(h);
    expect(r).toEqual({ rows: 0, code: 0 });
    // The whole member was decompressed (the query reads to the end for its filter).
    expect(gzipCounters.inflated - inflated0).toBeGreaterThanOrEqual(200 * MB);
    console.log(`gzip bomb query: longest event-loop stall ${maxStallMs.toFixed(1)} ms; at most ${perTurn} bytes decompressed in one turn`);
    expect(perTurn).toBeLessThanOrEqual(STALL_BYTES);
  }, 180_000);

  it('is decompressed only as fast as it is read: a paused reader holds about one chunk', async () => {
    const home = await bombHome();
    const fh = await open(join(home.dir, 'events.ndjson.1.gz'), 'r');
    const src = new GzipSource(fh, 'events.ndjson.1.gz');
    try {
      const inflated0 = gzipCounters.inflated;
      const b = Buffer.alloc(100);
      expect(await byDeadline(src.read(b, 0, 100, 0))).toBe(100);
      // The reader pauses; zlib must not go on filling memory meanwhile (64 KiB of this input
      // inflates to 64 MiB).
      await new Promise((r) => setTimeout(r, 300));
      expect(gzipCounters.inflated - inflated0).toBeLessThanOrEqual(256 * 1024);
      expect(await byDeadline(src.read(b, 0, 100, 10 * MB))).toBe(100);
      expect(b.every((x) => x === 0)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(gzipCounters.inflated - inflated0).toBeLessThanOrEqual(10 * MB + 256 * 1024);
    } finally {
      src.close();
      await fh.close();
    }
  });

  it('stops decompressing when the query is aborted, and frees its reader slot', async () => {
    const home = await bombHome();
    const ac = new AbortController();
    const inflated0 = gzipCounters.inflated;
    const running = appQuery(home, { submituser: 'nobody' }, ac.signal);
    for (let i = 0; i < 2000 && gzipCounters.inflated - inflated0 < 16 * MB; i++) await new Promise((r) => setTimeout(r, 5));
    expect(gzipCounters.inflated - inflated0).toBeGreaterThanOrEqual(16 * MB);
    ac.abort();
    expect(await byDeadline(running)).toEqual({ rows: 0, code: 1006 });
    const atAbort = gzipCounters.inflated;
    await new Promise((r) => setTimeout(r, 300));
    expect(gzipCounters.inflated).toBe(atAbort);
    expect(gzipCounters.inflated - inflated0).toBeLessThan(200 * MB);
    expect(activeReaders(await familyStore(home))).toBe(0);
  }, 120_000);

  it('a client that leaves a REST query stops it and frees the reader slot', async () => {
    const home = await bombHome();
    const server = await startServer(home.engine);
    servers.push(server);
    const store = await familyStore(home);
    const inflated0 = gzipCounters.inflated;
    const href = new URL(signedHref(server, 'admin', 'GET', `${V}/events?format=ff&file=events.ndjson&family=1&submituser=nobody`));
    const socket = connect({ port: server.port, host: '127.0.0.1' });
    socket.on('error', () => {});
    socket.write(`GET ${href.pathname}${href.search} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    for (let i = 0; i < 2000 && gzipCounters.inflated - inflated0 < 16 * MB; i++) await new Promise((r) => setTimeout(r, 5));
    expect(activeReaders(store)).toBe(1);
    socket.destroy();
    for (let i = 0; i < 2000 && activeReaders(store) > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(activeReaders(store)).toBe(0);
    const atFree = gzipCounters.inflated;
    await new Promise((r) => setTimeout(r, 300));
    expect(gzipCounters.inflated).toBe(atFree);
    expect(gzipCounters.inflated - inflated0).toBeLessThan(200 * MB);
  }, 120_000);
});

/**
 * One gzip member of ours (an `EV` extra field naming its compressed length, as compress.ts
 * writes them) holding `mb` MB of zeros, deflated as a stream; its trailer states `isize`
 * (default: the true size) — a lying trailer makes a bomb that claims to be small.
 */
async function evMember(mb: number, isize?: number): Promise<Buffer> {
  const zeros = Buffer.alloc(MB);
  let crc = 0;
  const body: Buffer[] = [];
  const source = Readable.from((function* () {
    for (let i = 0; i < mb; i++) {
      crc = crc32(zeros, crc);
      yield zeros;
    }
  })());
  await pipeline(source, createDeflateRaw(), async function* (chunks: AsyncIterable<Buffer>) {
    for await (const c of chunks) body.push(c);
  });
  const deflated = Buffer.concat(body);
  const total = 20 + deflated.length + 8;
  const head = Buffer.from([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 255, 8, 0, 0x45, 0x56, 4, 0, 0, 0, 0, 0]);
  head.writeUInt32LE(total, 16);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((isize ?? mb * MB) >>> 0, 4);
  return Buffer.concat([head, deflated, trailer]);
}

/** Builds the skip index of a gzip file of ours as `evio events index` and a query do; the longest event-loop stall meanwhile. */
async function indexWithStall(path: string): Promise<{ result: 'index' | 'none' | number; stallMs: number; perTurn: number }> {
  const fh = await open(path, 'r');
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const turns = inflatedPerTurn();
  let result: 'index' | 'none' | number;
  try {
    const st = await fh.stat({ bigint: true });
    result = (await buildGzipIndex(fh, { ino: st.ino, size: Number(st.size) }, `${path}.evidx`)) ? 'index' : 'none';
  } catch (err) {
    result = toEvioError(err).code;
  } finally {
    await fh.close();
  }
  const perTurn = turns.stop();
  return { result, stallMs: await longestStall(h), perTurn };
}

/** Bytes that may be decompressed between two turns of the event loop: 64 times zlib's 64 KiB chunk, 0.5 % of the bomb. */
const STALL_BYTES = 4 * MB;

/** Watches the decompression counter at every turn of the event loop (setImmediate); stop() gives the largest step. */
function inflatedPerTurn(): { stop: () => number } {
  let last = gzipCounters.inflated;
  let max = 0;
  let on = true;
  const look = () => {
    const now = gzipCounters.inflated;
    max = Math.max(max, now - last);
    last = now;
    if (on) setImmediate(look);
  };
  setImmediate(look);
  return {
    stop: () => {
      on = false;
      look();
      return max;
    },
  };
}

/** The longest event-loop stall the monitor saw, once a tick after the work has recorded a stall at its very end. */
async function longestStall(h: ReturnType<typeof monitorEventLoopDelay>): Promise<number> {
  await new Promise((r) => setTimeout(r, 50));
  h.disable();
  return h.max / 1e6;
}

describe('a gzip bomb member of ours (EV field, as rotate --compress writes them)', () => {
  it('one that states its 200 MB is not read whole: no index over it (the file is scanned, streamed), no stall', async () => {
    const home = familyHome(null);
    const path = join(home.dir, 'events.ndjson.1.gz');
    const first = gzipMember(Buffer.from(lines(1, 10)));
    const bomb = await evMember(200);
    writeFileSync(path, Buffer.concat([first, bomb]));
    // An index naming such a member (none of ours does) gets 1250 rather than 200 MB in memory.
    const fh = await open(path, 'r');
    try {
      expect(await byDeadline(readMember(fh, first.length, bomb.length).then(() => 0, (err: unknown) => toEvioError(err).code))).toBe(1250);
    } finally {
      await fh.close();
    }
    const r = await byDeadline(indexWithStall(path), 120_000);
    expect(r).not.toBe('hung');
    if (r === 'hung') return;
    console.log(`EV member of 200 MB: index build stalled the event loop ${r.stallMs.toFixed(1)} ms at most; at most ${r.perTurn} bytes decompressed in one turn`);
    expect(r.result).toBe("none");
    expect(r.perTurn).toBeLessThanOrEqual(STALL_BYTES);
    // The family query scans it: records 1-10, then 200 MB of zeros (one malformed line).
    expect(await byDeadline(appQuery(home, { dump: '1' }), 120_000)).toEqual({ rows: 20, code: 0 });
  }, 180_000);

  it('one whose trailer claims 64 KiB but that inflates to 200 MB is 1250 after at most what it claims', async () => {
    const home = familyHome(null);
    const path = join(home.dir, 'events.ndjson.1.gz');
    writeFileSync(path, Buffer.concat([gzipMember(Buffer.from(lines(1, 10))), await evMember(200, 64 * 1024)]));
    const r = await byDeadline(indexWithStall(path), 120_000);
    expect(r).not.toBe('hung');
    if (r === 'hung') return;
    console.log(`EV member lying about its size: index build stalled the event loop ${r.stallMs.toFixed(1)} ms at most; at most ${r.perTurn} bytes decompressed in one turn`);
    expect(r.result).toBe(1250);
    expect(r.perTurn).toBeLessThanOrEqual(STALL_BYTES);
  }, 180_000);
});
