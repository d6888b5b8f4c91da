// What the search view adds around the search call: the filters that narrow it to sessions of a
// user, a host and a time span (the session list's filters, which the search call takes too),
// each hit group's session facts (who, as whom, the command, start, length, end, exit status:
// the session list's row for it), and the matched text marked in each hit line.
import type { Api } from '../api.js';
import { field, h, input } from '../dom.js';
import { exitText, lengthText, type ListedRow } from './session-list-table.js';

export const NARROWING: readonly (readonly [string, string, string])[] = [
  ['submituser', 'User', 'who ran sudo, wildcard'],
  ['submithost', 'Host', 'where, wildcard'],
  ['from', 'From', 'e.g. -7d, 2026-01-01'],
  ['to', 'To', 'e.g. today'],
];

export function narrowingRow(p: URLSearchParams): { row: HTMLElement; values(): Record<string, string> } {
  const inputs = NARROWING.map(([name, label, hint]) => ({ name, el: input(name, { value: p.get(name) ?? '', placeholder: hint }), label }));
  return {
    row: h('div', { class: 'row' }, ...inputs.map((x) => field(x.label, x.el))),
    values() {
      const out: Record<string, string> = {};
      for (const x of inputs) if (x.el.value.trim()) out[x.name] = x.el.value.trim();
      return out;
    },
  };
}

/** The pattern as a JavaScript regex for marking (global); null when it is not one JavaScript reads. */
export function markRegex(pattern: string): RegExp | null {
  let flags = 'g';
  let src = pattern;
  if (src.startsWith('(?i)')) {
    flags += 'i';
    src = src.slice(4);
  }
  try {
    const re = new RegExp(src, flags);
    return re.test('') ? null : re; // a pattern matching the empty string marks nothing useful
  } catch {
    return null;
  }
}

/** A hit line with every match of `re` in a <mark>. */
export function marked(line: string, re: RegExp | null): (Node | string)[] {
  if (!re) return [line];
  const out: (Node | string)[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) out.push(line.slice(last, m.index));
    out.push(h('mark', {}, m[0]));
    last = m.index + m[0].length;
  }
  if (last < line.length) out.push(line.slice(last));
  return out;
}

/** A minimatch glob naming exactly this path. */
function exactGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, (c) => `\\${c}`);
}

/** The session's row of the cached list, as one line of facts; empty when it is not listed. */
export async function sessionFacts(api: Api, file: string, signal: AbortSignal): Promise<HTMLElement> {
  const box = h('div', { class: 'hit-facts muted' });
  try {
    const ans = await api.get<{ result: ListedRow[] }>('/REST/iolog/list', { path: exactGlob(file), len: 1 }, signal);
    const r = ans.result[0];
    if (!r) return box;
    const exit = exitText(r.exitstatus);
    const parts: (Node | string)[] = [
      h('span', { 'data-fact': 'user' }, `${r.submituser}@${r.submithost}`),
      ' → ',
      h('span', { 'data-fact': 'runas' }, `${r.runuser}@${r.runhost}`),
      ' · ',
      h('code', { 'data-fact': 'command' }, r.runcmd),
      ' · ',
      h('span', { 'data-fact': 'start' }, r.createtime_iso.replace('T', ' ')),
    ];
    if (r.live) parts.push(' · ', h('span', { class: 'badge badge-live' }, 'live'));
    else {
      if (r.duration !== undefined && r.duration >= 0) parts.push(' · ', h('span', { 'data-fact': 'duration' }, lengthText(r.duration)));
      if (r.end_iso) parts.push(' · ended ', h('span', { 'data-fact': 'end' }, r.end_iso.replace('T', ' ')));
      parts.push(' · ', h('span', { 'data-fact': 'exit' }, exit || 'exit not recorded'));
    }
    box.append(...parts.map((x) => (typeof x === 'string' ? document.createTextNode(x) : x)));
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
  }
  return box;
}
