// The session list from the cached index (GET /REST/iolog/list) with its filters and paging;
// each row opens the player.
import { clear, field, h, input, select } from '../dom.js';
import { resultsPane } from '../results-pane.js';
import type { ViewContext } from '../view-context.js';
import { sessionListTable, shortTime, sortFromParams, type ListedRow, type ListSort } from './session-list-table.js';

/** A row of GET /REST/iolog/list, as the list, the wall and the table read it. */
export type SessionRow = ListedRow;

/** The badge of a session still being recorded, with how long it has run (from its start to now). */
function liveBadge(createtimeMs: number): HTMLElement {
  const t = running(Math.max(0, Math.round((Date.now() - createtimeMs) / 1000)));
  return h('span', { class: 'badge badge-live', title: `still being recorded, for ${t}` }, `live ${t}`);
}

/** "1 h 02 min", "3 min 05 s", "12 s": how long a live session has been running. */
function running(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, '0')} s`;
  return `${s} s`;
}

const FILTERS: readonly (readonly [string, string, string])[] = [
  ['from', 'From', 'e.g. -7d, 2026-01-01'],
  ['to', 'To', 'e.g. today'],
  ['submituser', 'Submit user', 'wildcard'],
  ['submithost', 'Submit host', 'wildcard'],
  ['runuser', 'Run as user', 'e.g. root'],
  ['runhost', 'Run host', 'wildcard'],
  ['runcmd', 'Command', 'e.g. */bash'],
  ['cwd', 'Directory', 'wildcard'],
  ['tty', 'Terminal', 'e.g. /dev/pts/*'],
  ['path', 'Path', 'glob, e.g. 00/00/*'],
];

export function renderSessions(ctx: ViewContext): void {
  document.title = 'Sessions · evio console';
  const p = ctx.params;
  const inputs = FILTERS.map(([name, label, hint]) => ({ name, el: input(name, { value: p.get(name) ?? '', placeholder: hint }), label }));
  const match = select('match', [['all', 'every filter (AND)'], ['any', 'any filter (OR)']], p.get('match') ?? 'all');
  const len = select('len', ['25', '50', '100', '250'].map((n) => [n, `${n} per page`] as const), p.get('len') ?? '50');
  const results = h('section', { class: 'results', 'aria-live': 'polite', 'aria-label': 'Sessions' });
  const rows: HTMLElement[] = [];
  for (let i = 0; i < inputs.length; i += 5) rows.push(h('div', { class: 'row' }, ...inputs.slice(i, i + 5).map((x) => field(x.label, x.el))));
  const form = h('form', { class: 'filters card', 'aria-label': 'Session filters' }, ...rows, h('div', { class: 'row actions' }, field('Match', match), field('Page size', len), h('button', { type: 'submit', class: 'primary' }, 'List sessions')));

  let starts: number[] = [];
  let sort: ListSort = sortFromParams(p);
  const load = resultsPane(ctx, results);

  async function run(start: number): Promise<void> {
    const f: Record<string, string> = {};
    for (const x of inputs) if (x.el.value.trim()) f[x.name] = x.el.value.trim();
    if (match.value !== 'all') f.match = match.value;
    f.len = len.value;
    f.sort = sort.sort;
    f.order = sort.order;
    ctx.remember({ view: 'sessions', ...f });
    await load('Loading…', async (signal) => {
      const ans = await ctx.api.get<{ result: SessionRow[]; more?: boolean; next?: { start: number } }>('/REST/iolog/list', { ...f, start }, signal);
      clear(results);
      if (!ans.result.length) results.append(h('p', { class: 'muted' }, 'No session matches.'));
      else
        results.append(
          sessionListTable(ctx, ans.result, sort, (s) => {
            sort = s;
            starts = [];
            void run(0);
          }, (r) => [shortTime(r.createtime_iso), ...(r.live ? [' ', liveBadge(r.createtime)] : [])]),
        );
      const nav = h('div', { class: 'pager' });
      if (starts.length) nav.append(h('button', { type: 'button', onclick: () => void run(starts.pop()!) }, '← Previous page'));
      nav.append(h('span', { class: 'muted' }, `sessions ${start + 1}–${start + ans.result.length}${ans.more ? '; more match' : ''}`));
      if (ans.more && ans.next) {
        const next = ans.next.start;
        nav.append(h('button', { type: 'button', onclick: () => { starts.push(start); void run(next); } }, 'Next page →'));
      }
      results.append(nav);
    });
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    starts = [];
    void run(0);
  });
  ctx.root.append(h('h1', { class: 'view-title' }, 'Recorded sessions'), form, results);
  void run(0);
}
