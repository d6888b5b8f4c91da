import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../src/errors.js';
import { BUILTIN_TERM_NAMES, checkTermName, loadTerminfo, parseTerminfo, terminfoDirs } from '../../src/replay/terminfo.js';

const SYSTEM_DIRS = ['/lib/terminfo', '/usr/share/terminfo', '/etc/terminfo'].filter((d) => existsSync(d));

/** Every compiled entry file of the system database. */
function systemEntries(): string[] {
  const out: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    for (const sub of readdirSync(dir, { withFileTypes: true })) {
      if (!sub.isDirectory()) continue;
      for (const f of readdirSync(join(dir, sub.name))) out.push(join(dir, sub.name, f));
    }
  }
  return out;
}

const hasInfocmp = (() => {
  try {
    execFileSync('infocmp', ['-V'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

/** infocmp's source form of an entry, decoded: { strings, numbers, booleans }. */
function infocmp(path: string): { strings: Record<string, string>; numbers: Record<string, number>; booleans: string[] } {
  const text = execFileSync('infocmp', ['-1', '-x', '-q', '-A', join(path, '..', '..'), path.split('/').pop()!], { encoding: 'latin1' });
  const strings: Record<string, string> = {};
  const numbers: Record<string, number> = {};
  const booleans: string[] = [];
  for (const raw of text.split('\n').slice(1)) {
    const line = raw.trim().replace(/,$/, '');
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const hash = line.indexOf('#');
    if (eq > 0 && (hash < 0 || eq < hash)) strings[line.slice(0, eq)] = unescapeTerminfo(line.slice(eq + 1));
    else if (hash > 0) numbers[line.slice(0, hash)] = Number(line.slice(hash + 1));
    else if (!line.endsWith('@')) booleans.push(line);
  }
  return { strings, numbers, booleans };
}

function unescapeTerminfo(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '^' && i + 1 < s.length) {
      const n = s[++i]!;
      out += n === '?' ? '\x7f' : String.fromCharCode(n.toUpperCase().charCodeAt(0) & 0x1f);
    } else if (c === '\\' && i + 1 < s.length) {
      const n = s[++i]!;
      const simple: Record<string, string> = { E: '\x1b', e: '\x1b', n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', s: ' ', l: '\n', '^': '^', '\\': '\\', ',': ',', ':': ':' };
      if (simple[n] !== undefined) out += simple[n];
      else if (/[0-7]/.test(n)) {
        const oct = s.slice(i, i + 3);
        i += 2;
        const v = parseInt(oct, 8);
        out += String.fromCharCode(v === 0 ? 0x80 : v);
      } else out += n;
    } else out += c;
  }
  return out;
}

const tmp = mkdtempSync(join(tmpdir(), 'evio-terminfo-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('terminfo reader', () => {
  const entries = systemEntries();

  it('reads both magic numbers from the system database', () => {
    if (!entries.length) return;
    const magics = new Set(entries.map((p) => readFileSync(p).readUInt16LE(0)));
    for (const p of entries) expect(() => parseTerminfo(readFileSync(p), p)).not.toThrow();
    // Debian ships legacy (0o432) entries and 32-bit-number (0o1036) ones such as xterm-256color.
    if (existsSync('/lib/terminfo/x/xterm-256color')) {
      expect(magics).toContain(0o432);
      expect(magics).toContain(0o1036);
    }
  });

  it.runIf(hasInfocmp && entries.length > 0)('matches infocmp -x on every system entry (strings, numbers, booleans)', () => {
    for (const p of entries) {
      const ours = parseTerminfo(readFileSync(p), p);
      const ref = infocmp(p);
      // infocmp prints acsc with its pairs sorted; compare it as a set of pairs.
      const pairs = (v: string | undefined): string[] => (v ?? '').match(/[\s\S]{1,2}/g)?.sort() ?? [];
      expect(pairs(ours.strings.acsc), p).toEqual(pairs(ref.strings.acsc));
      expect({ ...ours.strings, acsc: '' }, p).toEqual({ ...ref.strings, acsc: '' });
      expect(ours.numbers, p).toEqual(ref.numbers);
      expect(Object.keys(ours.booleans).sort(), p).toEqual(ref.booleans.sort());
    }
  });

  it('reads xterm-256color: names, numbers and extended capabilities', () => {
    const p = entries.find((e) => e.endsWith('/x/xterm-256color'));
    if (!p) return;
    const e = parseTerminfo(readFileSync(p), p);
    expect(e.names[0]).toBe('xterm-256color');
    expect(e.numbers.colors).toBe(256);
    expect(e.strings.cup).toBe('\x1b[%i%p1%d;%p2%dH');
    expect(e.strings.BE).toBe('\x1b[?2004h');
    expect(e.booleans.am).toBe(true);
  });

  it('rejects truncated files with REPLAY_TERMINFO_CORRUPT at every length', () => {
    const p = entries.find((e) => e.endsWith('/x/xterm-256color')) ?? entries[0];
    if (!p) return;
    const data = readFileSync(p);
    for (let n = 0; n < data.length; n++) {
      try {
        parseTerminfo(data.subarray(0, n), 'cut');
      } catch (err) {
        expect(isEvioError(err, 'REPLAY_TERMINFO_CORRUPT'), `length ${n}: ${String(err)}`).toBe(true);
      }
    }
  });

  it('never fails otherwise on fuzzed files (seeded)', () => {
    const p = entries.find((e) => e.endsWith('/v/vt100')) ?? entries[0];
    const base = p ? readFileSync(p) : Buffer.from([0x1a, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), fc.nat(base.length), (flips, cut) => {
        const data = Buffer.from(base);
        for (const [at, v] of flips) data[at] = v;
        try {
          const e = parseTerminfo(data.subarray(0, Math.max(cut, 12)), 'fuzz');
          expect(Array.isArray(e.names)).toBe(true);
        } catch (err) {
          expect(isEvioError(err, 'REPLAY_TERMINFO_CORRUPT'), String(err)).toBe(true);
        }
      }),
      { seed: 7, numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (data) => {
        try {
          parseTerminfo(data, 'random');
        } catch (err) {
          expect(isEvioError(err, 'REPLAY_TERMINFO_CORRUPT'), String(err)).toBe(true);
        }
      }),
      { seed: 8, numRuns: 2000 },
    );
  });
});

describe('terminfo search and selection', () => {
  const source = ['/lib/terminfo/v/vt100', '/usr/share/terminfo/v/vt100'].find((p) => existsSync(p));

  it('searches $TERMINFO, ~/.terminfo and $TERMINFO_DIRS before the system directories', () => {
    const env = { TERMINFO: '/a', HOME: '/home/u', TERMINFO_DIRS: '/b::/c' };
    expect(terminfoDirs(env)).toEqual(['/a', '/home/u/.terminfo', '/b', '/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo', '/c']);
  });

  it.runIf(source !== undefined)('finds entries in the letter and the hex layout', () => {
    const letter = join(tmp, 'letter');
    const hex = join(tmp, 'hex');
    mkdirSync(join(letter, 'm'), { recursive: true });
    mkdirSync(join(hex, '6d'), { recursive: true });
    copyFileSync(source!, join(letter, 'm', 'mine-a'));
    copyFileSync(source!, join(hex, '6d', 'mine-b'));
    expect(loadTerminfo('mine-a', { env: { TERMINFO: letter, HOME: tmp } }).source).toBe(join(letter, 'm', 'mine-a'));
    expect(loadTerminfo('mine-b', { env: { HOME: tmp, TERMINFO_DIRS: hex } }).source).toBe(join(hex, '6d', 'mine-b'));
    mkdirSync(join(tmp, '.terminfo', 'm'), { recursive: true });
    copyFileSync(source!, join(tmp, '.terminfo', 'm', 'mine-c'));
    expect(loadTerminfo('mine-c', { env: { HOME: tmp } }).source).toBe(join(tmp, '.terminfo', 'm', 'mine-c'));
  });

  it('defaults to xterm-256color and falls back to built-in entries', () => {
    expect(loadTerminfo(undefined, { dirs: [] }).source).toBe('builtin:xterm-256color');
    for (const name of ['xterm', 'xterm-256color', 'vt100', 'linux', 'screen']) {
      const e = loadTerminfo(name, { dirs: [] });
      expect(e.source).toBe(`builtin:${name}`);
      expect(e.strings.cup).toBe('\x1b[%i%p1%d;%p2%dH');
    }
    expect(BUILTIN_TERM_NAMES).toHaveLength(5);
  });

  it('skips a corrupt file for the next place or the built-in entry', () => {
    const bad = join(tmp, 'bad');
    mkdirSync(join(bad, 'x'), { recursive: true });
    writeFileSync(join(bad, 'x', 'xterm'), Buffer.from([0x1a, 0x01, 0xff, 0x7f]));
    writeFileSync(join(bad, 'x', 'xbroken'), Buffer.from('not terminfo'));
    expect(loadTerminfo('xterm', { dirs: [bad] }).source).toBe('builtin:xterm');
    expect(() => loadTerminfo('xbroken', { dirs: [bad] })).toThrow(/^1502 /);
  });

  it('refuses unknown and malformed names with their codes', () => {
    expect(() => loadTerminfo('no-such-terminal-xyz', { dirs: [] })).toThrow(/^1500 /);
    for (const bad of ['../etc/passwd', 'a/b', '..', 'x\x00y', 'x y', 'x'.repeat(200)]) expect(() => checkTermName(bad)).toThrow(/^1501 /);
  });
});
