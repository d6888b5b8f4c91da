import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CapabilityMap } from '../../src/replay/capability-map.js';
import { BUILTIN_TERM_NAMES, loadTerminfo } from '../../src/replay/terminfo.js';
import { Tokenizer } from '../../src/replay/tokenizer.js';
import type { ReplayItem } from '../../src/replay/types.js';
import { sampleTtySessions } from './helpers/sample-sessions.js';
import { scenarios } from './helpers/scenarios.js';
import { concatData } from './helpers/session-events.js';

const enc = new TextEncoder();
const E = '\x1b';

/** A tokenizer on a built-in entry (no terminfo directories searched): the same on every machine. */
function builtin(term = 'xterm-256color'): Tokenizer {
  return new Tokenizer({ term, terminfo: { dirs: [] } });
}

function tokensOnce(data: Uint8Array, term: string, time: number): ReplayItem[] {
  const t = builtin(term);
  return [...t.write(data, time), ...t.end()];
}

/** Tokenizes; the input is also split at every byte offset, which must change nothing. */
function tokens(input: string | Uint8Array, term = 'xterm-256color', time = 0): ReplayItem[] {
  const data = typeof input === 'string' ? enc.encode(input) : input;
  const items = tokensOnce(data, term, time);
  const whole = JSON.stringify(items);
  for (let k = 0; k <= data.length; k++) {
    const t = builtin(term);
    const split = JSON.stringify([...t.write(data.subarray(0, k), time), ...t.write(data.subarray(k), time), ...t.end()]);
    if (split !== whole) expect(split, `split at ${k}`).toBe(whole);
  }
  return items;
}

function names(items: ReplayItem[]): string[] {
  return items.map((i) => (i.type === 'text' ? `"${i.value}"` : i.values ? `${i.name}(${i.values.join(',')})` : i.name));
}

describe('tokenizer', () => {
  it('names the capabilities of xterm-256color', () => {
    const input = `${E}[H${E}[2Jhello${E}[01;34m dir${E}[0m\r\n\tx${E}[5G${E}[3;7H${E}[K${E}[J${E}[1K${E}[2;20r${E}M${E}[?1049h${E}[22;0;0t${E}[?1049l${E}[23;0;0t\x07\r${E}[C${E}[4C${E}[D\b${E}[A${E}[2B${E}[3d${E}[2P${E}[4@${E}[3X${E}[L${E}[5M${E}[H${E}(0q${E}(B${E}[m${E}7${E}8${E}E${E}[?25l${E}[?12l${E}[?25h`;
    expect(names(tokens(input))).toEqual([
      'clear', '"hello"', 'sgr(1,34)', '" dir"', 'sgr0', 'nel', 'htab', '"x"', 'absx(4)', 'cup(2,6)', 'el', 'ed', 'el1', 'csr(1,19)', 'ri',
      'smcup', 'rmcup', 'bel', 'cr', 'cuf1', 'cuf(4)', 'cub(1)', 'cub1', 'cuu1', 'cud(2)', 'vpa(2)', 'dch(2)', 'ich(4)', 'ech(3)', 'il1', 'dl(5)',
      'home', 'smacs', '"q"', 'sgr0', 'sc', 'rc', 'nel', 'civis', 'cnorm',
    ]);
  });

  it('applies ECMA-48 defaults before naming: CSI H = CSI 1;1 H, CSI 0 C = CSI C', () => {
    expect(names(tokens(`${E}[1;1H${E}[;H${E}[0C${E}[1C${E}[5;H${E}[G${E}[0G`))).toEqual(['home', 'home', 'cuf1', 'cuf1', 'cup(4,0)', 'absx(0)', 'absx(0)']);
  });

  it('reports unnamed sequences generically with their identifier', () => {
    expect(tokens(`${E}[2J${E}[>4;1m${E}[?2026h${E}[6 q${E}=${E}#8\x0e\u0090`)).toEqual([
      { type: 'token', name: 'csi', id: 'J', values: [2] },
      { type: 'token', name: 'csi', id: '>m', values: [4, 1] },
      { type: 'token', name: 'csi', id: '?h', values: [2026] },
      { type: 'token', name: 'Ss', values: [6] },
      { type: 'token', name: 'esc', id: '=' },
      { type: 'token', name: 'esc', id: '#8' },
      { type: 'token', name: 'ctrl', values: [14] },
    ]);
  });

  it('carries OSC, DCS and APC payloads; sub-parameters of SGR', () => {
    expect(tokens(`${E}]0;my title\x07${E}]8;;http://x${E}\\${E}P$qm${E}\\${E}_apc${E}\\${E}[38:2::1:2:3m`)).toEqual([
      { type: 'token', name: 'osc', values: [0], data: 'my title' },
      { type: 'token', name: 'osc', values: [8], data: ';http://x' },
      { type: 'token', name: 'esc', id: '\\' },
      { type: 'token', name: 'dcs', id: '$q', values: [0], data: 'm' },
      { type: 'token', name: 'esc', id: '\\' },
      { type: 'token', name: 'apc', data: 'apc' },
      { type: 'token', name: 'esc', id: '\\' },
      { type: 'token', name: 'sgr', values: [38], sub: [[2, -1, 1, 2, 3]] },
    ]);
  });

  it('reports window changes as sz [cols, rows]', () => {
    const t = builtin();
    expect([...t.write(enc.encode('a'), 1), ...t.resize(100, 30), ...t.write(enc.encode('b'), 2), ...t.end()]).toEqual([
      { type: 'text', time: 1, value: 'a' },
      { type: 'token', name: 'sz', values: [100, 30] },
      { type: 'text', time: 2, value: 'b' },
    ]);
  });

  it('keeps a text run across writes of the same time, splits it when time advances', () => {
    const t = builtin();
    const items = [...t.write(enc.encode('ab'), 5), ...t.write(enc.encode('cd'), 5), ...t.write(enc.encode('ef\r\n'), 9), ...t.end()];
    expect(items).toEqual([
      { type: 'text', time: 5, value: 'abcd' },
      { type: 'text', time: 9, value: 'ef' },
      { type: 'token', name: 'nel' },
    ]);
  });

  it('names by the selected terminal: vt100, linux, screen', () => {
    expect(names(tokens(`${E}[H${E}[J${E}(B${E}[m\x0f${E}M\r\n${E}[5G`, 'vt100'))).toEqual(['clear', 'esc', 'sgr0', 'ri', 'nel', 'csi(5)']);
    expect(names(tokens(`${E}[H${E}[J\x0e\x0f${E}[?25l${E}[?1c\r\n${E}[5G`, 'linux'))).toEqual(['clear', 'smacs', 'rmacs', 'civis', 'nel', 'absx(4)']);
    expect(names(tokens(`${E}M${E}[?1049h${E}[34h${E}[?25h${E}E`, 'screen'))).toEqual(['ri', 'smcup', 'cnorm', 'nel']);
  });

  it('uses the system terminfo entry when there is one', () => {
    const entry = loadTerminfo('xterm-256color');
    const t = new Tokenizer({ term: entry });
    expect(t.term).toBe('xterm-256color');
    expect(names([...t.write(enc.encode(`${E}[3;4H${E}[?2004h\t`), 0), ...t.end()])).toEqual(['cup(2,3)', 'BE', 'htab']);
  });

  it('emits through a callback when given one', () => {
    const got: ReplayItem[] = [];
    const t = new Tokenizer({ term: 'xterm', terminfo: { dirs: [] }, onItem: (i) => got.push(i) });
    expect(t.write(enc.encode('x\r\n'), 3)).toEqual([]);
    t.end();
    expect(got).toEqual([{ type: 'text', time: 3, value: 'x' }, { type: 'token', name: 'nel' }]);
  });

  describe('split at every byte offset gives the unsplit items', () => {
    const inputs: Array<[string, Uint8Array]> = [
      ['mixed', enc.encode(`${E}[H${E}[2Jh\u00e9llo \u65e5\u672c${E}[01;34m${E}]0;t\x07\r\n${E}(B${E}[m${E}[?1049h${E}[22;0;0tq\r\r\n${E}[38:2::1:2:3m\u{1f600}`)],
      ...scenarios().map((s): [string, Uint8Array] => [s.name, concatData(s.session.events).subarray(0, 1500)]),
      ...sampleTtySessions().map((s): [string, Uint8Array] => [s.name, concatData(s.events)]),
    ];
    for (const [name, data] of inputs) {
      it(`${name} (${data.length} bytes)`, () => {
        const whole = JSON.stringify(tokensOnce(data, 'xterm-256color', 0));
        for (let k = 0; k <= data.length; k++) {
          const t = builtin();
          const split = JSON.stringify([...t.write(data.subarray(0, k), 0), ...t.write(data.subarray(k), 0), ...t.end()]);
          if (split !== whole) expect(split, `split at ${k}`).toBe(whole);
        }
      });
    }
  });

  it('tokenizes the sample sessions: ls output as text with nel, window changes as sz', () => {
    for (const s of sampleTtySessions()) {
      const t = builtin();
      const items: ReplayItem[] = [...t.resize(s.cols, s.rows)];
      for (const e of s.events) items.push(...(e.kind === 'data' ? t.write(e.bytes, e.timeMs) : t.resize(e.cols, e.rows)));
      items.push(...t.end());
      expect(items[0]).toEqual({ type: 'token', name: 'sz', values: [s.cols, s.rows] });
      const text = items.map((i) => (i.type === 'text' ? i.value : i.name === 'nel' ? '\n' : '')).join('');
      if (s.name === 'sudo-io/00/00/01') {
        expect(text).toContain('drwxr-xr-x');
        expect(items.filter((i) => i.type === 'token' && i.name === 'nel').length).toBeGreaterThan(10);
      }
      if (s.name === 'sudo-io/00/00/04') {
        expect(items).toContainEqual({ type: 'token', name: 'sz', values: [100, 30] });
        expect(text).toBe('24 80\n30 100\n');
      }
    }
  });

  it('docs/replay.md lists every token name the built-in and system entries can produce', () => {
    const doc = readFileSync(new URL('../../docs/replay.md', import.meta.url), 'utf8');
    const names = new Set(['sz', 'nel', 'sgr', 'sgr0', 'absx', 'htab', 'csi', 'esc', 'ctrl', 'osc', 'dcs', 'sos', 'pm', 'apc']);
    for (const term of BUILTIN_TERM_NAMES) {
      for (const p of new CapabilityMap(loadTerminfo(term, { dirs: [] })).patterns()) names.add(p.name);
      for (const p of new CapabilityMap(loadTerminfo(term)).patterns()) names.add(p.name);
    }
    const missing = [...names].filter((n) => !doc.includes('`' + n + '`'));
    expect(missing).toEqual([]);
  });
});
