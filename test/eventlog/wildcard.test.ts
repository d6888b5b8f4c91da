// One wildcard semantics, three executions: the in-memory matcher, SQLite (GLOB and
// case-sensitive LIKE) and PostgreSQL (LIKE / ~) must agree on every pattern and value.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlParams, wildcardSql, type SqlDialect } from '../../src/common/sql-wildcard.js';
import { compileWildcard, matchTokens, parseWildcardTokens } from '../../src/common/wildcard.js';
import { PG_URL, pgAvailable } from '../helpers/services.js';

const ALPHABET = ['a', 'b', 'c', 'A', '%', '_', '\\', '[', ']', '!', '^', '-', '*', '?', 'é', '😀', ' ', '\n', 'z'];
const char = fc.constantFrom(...ALPHABET);
const value = fc.array(char, { maxLength: 8 }).map((a) => a.join(''));
const pattern = fc.array(fc.oneof(char, char, fc.constantFrom('*', '?', '[a-c]', '[!a]', '[^é-😀]', '[]a]', '[a-]', '[\\]]', '\\*', '\\?', '[z-a]', '[!]', '[^]')), { maxLength: 7 }).map((a) => a.join(''));
/** A value built from a pattern's own pieces, so that matches are common, not rare. */
const nearValue = pattern.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.oneof(value, fc.constant(p.replace(/[*?[\]\\]/g, ''))), { maxLength: 3 }).map((v) => v.join(''))));

describe('wildcard parsing and in-memory matching', () => {
  const cases: [string, string, boolean][] = [
    ['alice', 'alice', true],
    ['alice', 'Alice', false],
    ['al*', 'alice', true],
    ['*ice', 'alice', true],
    ['*li*', 'alice', true],
    ['a?ice', 'alice', true],
    ['a?ice', 'aice', false],
    ['?', '😀', true],
    ['??', '😀', false],
    ['[ab]*', 'bob', true],
    ['[!ab]*', 'bob', false],
    ['[^ab]*', 'carol', true],
    ['[a-c]', 'b', true],
    ['[]]', ']', true],
    ['[a-]', '-', true],
    ['\\*', '*', true],
    ['\\*', 'x', false],
    ['50%', '50%', true],
    ['a_b', 'a_b', true],
    ['a_b', 'axb', false],
    ['[', '[', true],
    ['[abc', '[abc', true],
    ['x\\', 'x\\', true],
    ['[z-a]', 'm', false],
    ['*', '', true],
    ['', '', true],
    ['*a*a*a*a*a*a*a*a*b', 'a'.repeat(5000), false],
  ];
  it.each(cases)('%j matches %j: %s', (p, v, expected) => {
    expect(compileWildcard(p).test(v)).toBe(expected);
  });

  it('rejects NUL and over-long patterns with QUERY_BAD_PATTERN', () => {
    expect(() => compileWildcard('a\u0000b')).toThrow(/^1113 /);
    expect(() => compileWildcard('a'.repeat(1025))).toThrow(/^1113 /);
  });

  it('agrees with an independent regular-expression oracle on random patterns', () => {
    const toRegex = (p: string) => {
      let re = '^';
      for (const t of parseWildcardTokens(p)) {
        if (t.t === 'lit') re += [...t.s].map((c) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('');
        else if (t.t === 'one') re += '.';
        else if (t.t === 'star') re += '.*';
        else re += t.ranges.length === 0 ? (t.neg ? '.' : '(?!)') : `[${t.neg ? '^' : ''}${t.ranges.map(([lo, hi]) => `\\u{${lo.toString(16)}}-\\u{${hi.toString(16)}}`).join('')}]`;
      }
      return new RegExp(`${re}$`, 'su');
    };
    fc.assert(
      fc.property(nearValue, ([p, v]) => {
        expect(matchTokens(parseWildcardTokens(p), v)).toBe(toRegex(p).test(v));
        expect(compileWildcard(p).test(v)).toBe(toRegex(p).test(v));
      }),
      { numRuns: 3000, seed: 42 },
    );
  });
});

function sqliteMatch(db: Database.Database, dialect: SqlDialect, p: string, v: string): boolean | null {
  const params = new SqlParams('question');
  const sql = wildcardSql(compileWildcard(p), 'v', dialect, params);
  if (sql === null) return null;
  const row = db.prepare(`SELECT (${sql}) AS m FROM (SELECT ? AS v)`).get(...params.values, v) as { m: number };
  return row.m === 1;
}

describe('wildcards compiled for SQLite agree with the in-memory matcher', () => {
  const db = new Database(':memory:');
  db.pragma('case_sensitive_like = ON');
  for (const dialect of ['sqlite', 'like'] as const) {
    it(`${dialect}: random patterns and values`, () => {
      fc.assert(
        fc.property(nearValue, ([p, v]) => {
          const got = sqliteMatch(db, dialect, p, v);
          if (got !== null) expect(got).toBe(compileWildcard(p).test(v));
        }),
        { numRuns: 3000, seed: 7 },
      );
    });
  }
  it('like: classes are left to memory (null), everything else compiles', () => {
    expect(wildcardSql(compileWildcard('[ab]x'), 'v', 'like', new SqlParams('question'))).toBeNull();
    expect(wildcardSql(compileWildcard('a%b_c*'), 'v', 'like', new SqlParams('question'))).toBe("v LIKE ? ESCAPE '\\'");
  });
});

describe('wildcards compiled for PostgreSQL agree with the in-memory matcher', () => {
  let client: pg.Client | null = null;
  beforeAll(async () => {
    if (await pgAvailable()) {
      client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
    }
  });
  afterAll(async () => {
    await client?.end();
  });

  it('pg: random patterns and values (unicode, %, _, \\, [)', async (ctx) => {
    if (!client) return ctx.skip();
    const samples = fc.sample(nearValue, { numRuns: 1500, seed: 11 });
    for (const [p, v] of samples) {
      const params = new SqlParams('dollar');
      const sql = wildcardSql(compileWildcard(p), 'v', 'pg', params)!;
      const res = await client.query(`SELECT (${sql}) AS m FROM (SELECT $${params.values.length + 1}::text COLLATE "C" AS v) t`, [...params.values, v.replace(/\u0000/g, '')]);
      expect({ p, v, m: res.rows[0].m }).toEqual({ p, v, m: compileWildcard(p).test(v) });
    }
  });
});
