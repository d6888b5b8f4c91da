// The session list's table: who (submitting user and host), as whom, the command, when it
// started, how long it ran, when it ended and how (exit status), the id, and "Watch". Every
// column header sorts (GET /REST/iolog/list's sort= and order=; newest first by default); the
// column sorted by says so (aria-sort) and a second click turns the order round.
import { h } from '../dom.js';
import type { ViewContext } from '../view-context.js';

export interface ListedRow {
  uniqueid: string;
  createtime: number;
  createtime_iso: string;
  end?: number | null;
  end_iso?: string | null;
  /** Milliseconds; -1 when unknown. */
  duration?: number;
  exitstatus?: string;
  logpath: string;
  submithost: string;
  submituser: string;
  runhost: string;
  runuser: string;
  runcmd: string;
  live?: boolean;
}

export interface ListSort {
  sort: string;
  order: 'asc' | 'desc';
}

export const DEFAULT_SORT: ListSort = { sort: 'createtime', order: 'desc' };

/** The sort of the URL's parameters, newest first when none. */
export function sortFromParams(p: URLSearchParams): ListSort {
  const order = p.get('order');
  return { sort: p.get('sort') || DEFAULT_SORT.sort, order: order === 'asc' || order === 'desc' ? order : DEFAULT_SORT.order };
}

/** "1 h 02 min 03 s", "3 min 05 s", "12.4 s": a session's length. */
export function lengthText(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return '';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  return hh > 0 ? `${hh} h ${String(mm).padStart(2, '0')} min ${String(ss).padStart(2, '0')} s` : `${mm} min ${String(ss).padStart(2, '0')} s`;
}

/** An ISO time as "2026-01-01 10:00:00" (the zone's offset in the title); the end as "10:05:00" on the start's day. */
export function shortTime(iso: string | null | undefined, sameDayAs?: string): string {
  if (!iso) return '';
  const t = iso.replace('T', ' ').replace(/(\.\d+)?([+-]\d\d:\d\d|Z)$/, '');
  return sameDayAs !== undefined && sameDayAs.slice(0, 10) === iso.slice(0, 10) ? t.slice(11) : t;
}

/** sudo's wording made short: "exit 0", "exit 4", "signal SIGKILL". */
export function exitText(status: string | undefined): string {
  if (!status) return '';
  const code = /exit status (\d+)/.exec(status);
  if (code) return `exit ${code[1]}`;
  const sig = /killed by signal (\S+)/.exec(status);
  return sig ? `signal ${sig[1]}` : status;
}

const COLUMNS: readonly (readonly [string, string | null])[] = [
  ['Started', 'createtime'],
  ['Submitted by', 'submituser'],
  ['Run as', 'runuser'],
  ['Command', 'runcmd'],
  ['Duration', 'duration'],
  ['Ended', 'end'],
  ['Exit', 'exitstatus'],
  ['Id', 'logpath'],
  ['', null],
];

/**
 * `started(r)`: the Started cell's content (the list view adds its live badge there);
 * `onSort`: called with the new sort when a header is clicked.
 */
export function sessionListTable(ctx: ViewContext, rows: readonly ListedRow[], sort: ListSort, onSort: (s: ListSort) => void, started: (r: ListedRow) => (Node | string)[]): HTMLElement {
  const body = h('tbody');
  for (const r of rows) {
    const link = h('a', { href: `./?view=session&file=${encodeURIComponent(r.logpath)}&uniqueid=${encodeURIComponent(r.uniqueid)}`, class: 'button small', 'data-action': 'open-session' }, '▶ Watch');
    link.addEventListener('click', (ev) => {
      if ((ev as MouseEvent).ctrlKey || (ev as MouseEvent).metaKey) return;
      ev.preventDefault();
      ctx.navigate({ view: 'session', file: r.logpath, uniqueid: r.uniqueid });
    });
    const exit = exitText(r.exitstatus);
    body.append(
      h(
        'tr',
        { 'data-logpath': r.logpath },
        h('td', { class: 'nowrap', title: r.createtime_iso }, ...started(r)),
        h('td', {}, `${r.submituser}@${r.submithost}`),
        h('td', {}, `${r.runuser}@${r.runhost}`),
        h('td', { class: 'mono' }, r.runcmd),
        h('td', { class: 'nowrap num', 'data-ms': r.duration ?? -1 }, r.live ? h('span', { class: 'muted' }, 'running') : lengthText(r.duration)),
        h('td', { class: 'nowrap', title: r.end_iso ?? '' }, r.live ? '' : shortTime(r.end_iso, r.createtime_iso)),
        h('td', { class: `nowrap ${exit && !/^exit 0$/.test(exit) ? 'warn' : ''}`.trim(), title: r.exitstatus ?? '' }, exit || h('span', { class: 'muted' }, r.live ? '' : 'not recorded')),
        h('td', { class: 'mono muted nowrap', title: r.logpath }, r.uniqueid),
        h('td', { class: 'nowrap' }, link),
      ),
    );
  }
  const head = h(
    'tr',
    {},
    ...COLUMNS.map(([label, field]) => {
      if (!field) return h('th', { scope: 'col' }, label);
      const current = sort.sort === field;
      const next: ListSort = { sort: field, order: current ? (sort.order === 'desc' ? 'asc' : 'desc') : field === 'createtime' || field === 'end' || field === 'duration' ? 'desc' : 'asc' };
      const btn = h('button', { type: 'button', class: 'sort-button', 'data-sort': field, title: `Sort by ${label.toLowerCase()}` }, label, current ? (sort.order === 'desc' ? ' ▼' : ' ▲') : '');
      btn.addEventListener('click', () => onSort(next));
      return h('th', { scope: 'col', 'aria-sort': current ? (sort.order === 'desc' ? 'descending' : 'ascending') : 'none' }, btn);
    }),
  );
  return h('div', { class: 'table-wrap' }, h('table', { class: 'grid sessions-grid' }, h('thead', {}, head), body));
}
