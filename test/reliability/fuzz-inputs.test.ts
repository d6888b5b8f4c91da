// Fuzzing the untrusted inputs not covered elsewhere: sudo JSON and text event logs (real samples
// mutated byte by byte: flips, cuts, insertions) and the authentication inputs (random
// parameters against a real keystore). Seeded and bounded. Each must answer a sane result or an
// EvioError: no other exception, no hang, no output beyond what the input can hold.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvioError } from '../../src/errors.js';
import { SudoJsonMapper } from '../../src/eventlog/import/map-json.js';
import { SudoTextMapper } from '../../src/eventlog/import/map-text.js';
import { emptyJsonReport, readSudoJson } from '../../src/eventlog/import/sudo-json-reader.js';
import { emptyTextReport, readSudoText } from '../../src/eventlog/import/sudo-text-reader.js';
import type { MapContext } from '../../src/eventlog/import/types.js';
import { Authenticator } from '../../src/http/auth.js';
import { writeKeystore } from '../../src/keystore.js';
import { canonicalQuery, signSha256 } from '../../src/signing.js';

import { SAMPLES } from '../helpers/samples.js';
const FIXTURES = new URL('../../fixtures/eventlog', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'evio-fuzz-'));

function sources(pattern: RegExp): Buffer[] {
  const out: Buffer[] = [];
  for (const d of [SAMPLES, FIXTURES]) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) if (pattern.test(n)) out.push(readFileSync(join(d, n)));
  }
  return out;
}

const ctx = (): MapContext => ({
  alerts: 'skip', host: null, timezone: 'UTC', year: 2026, mtimeMs: Date.now(), iologDir: null,
  tsidFixes: new Map(), storeAccepts: new Map(), maxOpenAccepts: 1000,
});

/** A mutation: flip bytes, cut the file, or insert garbage at a random place. */
const mutation = fc.record({
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
  insert: fc.option(fc.tuple(fc.nat(), fc.uint8Array({ maxLength: 40 })), { nil: undefined }),
});

interface Mutation {
  flips: [number, number][];
  cut: number | undefined;
  insert: [number, Uint8Array] | undefined;
}

function mutate(src: Buffer, m: Mutation): Buffer {
  let b = Buffer.from(src);
  for (const [at, v] of m.flips) if (b.length) b[at % b.length] = v;
  if (m.insert) {
    const at = m.insert[0] % (b.length + 1);
    b = Buffer.concat([b.subarray(0, at), Buffer.from(m.insert[1]), b.subarray(at)]);
  }
  if (m.cut !== undefined) b = b.subarray(0, m.cut % (b.length + 1));
  return b;
}

async function expectSane(run: () => Promise<number>, size: number): Promise<void> {
  try {
    const n = await run();
    expect(n).toBeLessThanOrEqual(size); // never more events than bytes
  } catch (err) {
    expect(err).toBeInstanceOf(EvioError);
  }
}

describe('sudo event-log readers on mutated real logs', () => {
  const json = sources(/^(sudo-json.*|logsrvd-events\.json|syslog-json\.log|sudo-compact\.json)$/);
  const text = sources(/^(sudo-text.*|syslog-text\.log)$/);

  it('have samples to mutate', () => {
    expect(json.length).toBeGreaterThanOrEqual(3);
    expect(text.length).toBeGreaterThanOrEqual(3);
  });

  it('JSON: every mutation reads to events or a clear error', async () => {
    let i = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: json.length - 1 }), mutation, async (which, m) => {
        const data = mutate(json[which]!, m);
        const file = join(dir, `j${i++}.json`);
        writeFileSync(file, data);
        await expectSane(async () => {
          const report = emptyJsonReport();
          const mapper = new SudoJsonMapper(ctx());
          let n = 0;
          for await (const ev of readSudoJson(file, report)) {
            mapper.map(ev);
            n++;
          }
          expect(report.endOffset).toBeLessThanOrEqual(data.length);
          return n;
        }, data.length);
      }),
      { numRuns: 300, seed: 1122 },
    );
  });

  it('text: every mutation reads to records or a clear error', async () => {
    let i = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: text.length - 1 }), mutation, async (which, m) => {
        const data = mutate(text[which]!, m);
        const file = join(dir, `t${i++}.log`);
        writeFileSync(file, data);
        await expectSane(async () => {
          const report = emptyTextReport();
          const mapper = new SudoTextMapper(ctx());
          let n = 0;
          for await (const r of readSudoText(file, report)) {
            mapper.map(r);
            n++;
          }
          expect(report.endOffset).toBeLessThanOrEqual(data.length);
          return n;
        }, data.length);
      }),
      { numRuns: 300, seed: 2211 },
    );
  });
});

describe('authentication inputs', () => {
  const keystore = join(dir, 'keystore.json');
  const KEY = 'k'.repeat(64);
  writeKeystore(keystore, { apps: { app1: { key: KEY, scheme: 'hmac-sha256', created: '2026-11-22T00:00:00Z' } } });
  const NOW = 1_795_000_000;
  const auth = new Authenticator({ keystorePath: keystore, skewSeconds: 300, replayCapacityPerApp: 100_000, now: () => NOW });
  const text = fc.string({ unit: 'grapheme', maxLength: 12 });
  const params = fc.array(fc.tuple(fc.constantFrom('appid', 'timestamp', 'hmac', 'nonce', 'file', 'x', 'hmac', '', 'a&b', '=') as fc.Arbitrary<string>, text), { maxLength: 8 });

  it('random parameters are refused with 8119, never anything else', () => {
    fc.assert(
      fc.property(params, fc.uint8Array({ maxLength: 64 }), fc.constantFrom('GET', 'DELETE', 'PUT'), (pairs, body, method) => {
        const q = new URLSearchParams(pairs);
        try {
          auth.authenticate({ method, rawPath: '/REST/v2.0/events', query: q, body, remote: '127.0.0.1' });
          expect.unreachable('a random request authenticated');
        } catch (err) {
          expect(err).toBeInstanceOf(EvioError);
          expect((err as EvioError).code).toBe(8119);
          expect((err as EvioError).message).not.toContain(KEY);
        }
      }),
      { numRuns: 2000, seed: 33 },
    );
  });

  it('a correctly signed random request passes once; any changed value fails', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('file', 'etype', 'from', 'q'), text), { maxLength: 5 }), fc.uint8Array({ maxLength: 64 }), text, (extra, body, change) => {
        const pairs: [string, string][] = [...extra, ['appid', 'app1'], ['timestamp', String(NOW)], ['nonce', `n${n++}`]];
        const hmac = signSha256(KEY, { method: 'GET', path: '/REST/v2.0/events', query: pairs, body });
        const ok = new URLSearchParams([...pairs, ['hmac', hmac]]);
        expect(auth.authenticate({ method: 'GET', rawPath: '/REST/v2.0/events', query: ok, body, remote: 'x' }).appid).toBe('app1');
        // The same signature again is a replay.
        expect(() => auth.authenticate({ method: 'GET', rawPath: '/REST/v2.0/events', query: ok, body, remote: 'x' })).toThrow(/^8119 /);
        if (extra.length && extra[0]![1] !== change) {
          const tampered = new URLSearchParams([[extra[0]![0], change], ...extra.slice(1), ...pairs.slice(extra.length), ['hmac', hmac]]);
          expect(() => auth.authenticate({ method: 'GET', rawPath: '/REST/v2.0/events', query: tampered, body, remote: 'x' })).toThrow(/^8119 /);
        }
      }),
      { numRuns: 500, seed: 44 },
    );
  });

  it('the canonical query is independent of order and tells different queries apart', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 6 }), fc.array(fc.tuple(text, text), { maxLength: 6 }), (a, b) => {
        const shuffled = [...a].reverse();
        expect(canonicalQuery(shuffled)).toBe(canonicalQuery(a));
        const key = (l: [string, string][]) => JSON.stringify(l.filter(([k]) => k !== 'hmac').map(([k, v]) => `${k}\u0000${v}`).sort());
        if (key(a) !== key(b)) expect(canonicalQuery(a)).not.toBe(canonicalQuery(b));
      }),
      { numRuns: 2000, seed: 55 },
    );
  });
});
