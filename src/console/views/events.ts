// Event search: the filters of GET /REST/v2.0/events, on a database (with sort) or a flat file
// (chosen as the API chooses, format=db|ff), paged with the answer's `next`. A keystroke record
// links to its session.
import type { Params } from '../api.js';
import { clear, field, h, input, select } from '../dom.js';
import { hasSavedEventSource, loadEventSource, saveEventSource, sourceParams, type EventSource } from '../event-source.js';
import { storePicker } from '../store-picker.js';
import { resultsPane } from '../results-pane.js';
import type { ViewContext } from '../view-context.js';

export interface EventRecord {
  recnum: number;
  uniqueid: string;
  etype: string;
  epoch: string;
  epoch_iso?: string;
  time?: number;
  submituser: string | null;
  submithost: string | null;
  runuser: string | null;
  runhost: string | null;
  runcommand: string | null;
  runargv?: string[];
  exitstatus: string | null;
  iolog?: string;
  [k: string]: unknown;
}

interface EventsAnswer {
  events: EventRecord[];
  more?: boolean;
  next?: Record<string, number>;
  malformed?: number;
}

const WILDCARDS = ['submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'uniqueid'] as const;
const ORDERS = ['recnum', 'epoch', 'uniqueid', 'etype', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'exittime'] as const;
const TYPES: readonly (readonly [string, string])[] = [
  ['A', 'Accept'],
  ['R', 'Reject'],
  ['K', 'Keystroke (I/O logged)'],
];
const TYPE_NAMES: Record<string, string> = { A: 'accept', R: 'reject', K: 'keystroke', F: 'finish' };

/** The filter names this view keeps in the page URL. */
const KEPT = ['format', 'file', 'dsn', 'etype', 'from', 'to', 'exittime_from', 'exittime_to', ...WILDCARDS, 'order', 'orderdirection', 'limit', 'dump'] as const;

export function renderEvents(ctx: ViewContext): void {
  document.title = 'Events · evio console';
  const p = ctx.params;
  const saved = loadEventSource();
  const chosen = p.get('format') !== null || hasSavedEventSource();
  const format = select('format', [['db', 'Database (format=db)'], ['ff', 'Flat file (format=ff)'], ['odbc', 'ODBC source (format=odbc)']], p.get('format') ?? saved.format);
  const file = input('file', { value: p.get('file') ?? p.get('dsn') ?? saved.file, placeholder: 'default database', size: 34 });
  const fields: Record<string, HTMLInputElement> = {};
  const text = (name: string, placeholder: string) => (fields[name] = input(name, { value: p.get(name) ?? '', placeholder }));
  const types = new Set((p.get('etype') ?? 'A,R,K').split(',').filter(Boolean));
  const typeBoxes = TYPES.map(([t, label]) => {
    const box = h('input', { type: 'checkbox', name: 'etype', value: t, checked: types.has(t) });
    return { t, box, el: h('label', { class: 'check' }, box, ` ${label}`) };
  });
  const dump = h('input', { type: 'checkbox', name: 'dump', checked: p.get('dump') === '1' });
  const order = select('order', ORDERS.map((o) => [o, o] as const), p.get('order') ?? 'recnum');
  const direction = select('orderdirection', [['desc', 'newest / highest first'], ['asc', 'oldest / lowest first']], p.get('orderdirection') ?? 'desc');
  const limit = select('limit', ['25', '50', '100', '250', '500'].map((n) => [n, `${n} per page`] as const), p.get('limit') ?? '50');
  const sortBox = h('fieldset', { class: 'inline sort' }, h('legend', {}, 'Sort (databases)'), field('Field', order), field('Direction', direction));

  const results = h('section', { class: 'results', 'aria-live': 'polite', 'aria-label': 'Matching events' });
  const form = h(
    'form',
    { class: 'filters card', 'aria-label': 'Event filters' },
    h('div', { class: 'row' }, field('Event log', format, undefined, 'narrow'), field('File, database or DSN', file, 'flat file: the log (e.g. events.ndjson); database: empty = the default; ODBC: the data source name', 'wide')),
    h('fieldset', { class: 'inline' }, h('legend', {}, 'Types'), ...typeBoxes.map((x) => x.el), h('label', { class: 'check' }, dump, ' finish records separately (dump=1)')),
    h(
      'div',
      { class: 'row' },
      field('From', text('from', 'e.g. 2026-01-01 10:00, -7d, today')),
      field('To', text('to', 'e.g. 2026-01-02, now')),
      field('Finished from', text('exittime_from', 'exit time, same forms')),
      field('Finished to', text('exittime_to', 'exit time')),
    ),
    h(
      'div',
      { class: 'row' },
      field('Submit user', text('submituser', 'wildcard, e.g. alice*')),
      field('Submit host', text('submithost', 'e.g. web*')),
      field('Run as user', text('runuser', 'e.g. root')),
      field('Run host', text('runhost', 'wildcard')),
    ),
    h(
      'div',
      { class: 'row' },
      field('Command', text('runcommand', 'e.g. /bin/bash')),
      field('Exit status', text('exitstatus', 'e.g. *status [1-9]*')),
      field('Unique id', text('uniqueid', 'wildcard')),
    ),
    h('div', { class: 'row actions' }, sortBox, field('Page size', limit), h('button', { type: 'submit', class: 'primary' }, 'Search events')),
  );

  const syncSort = () => {
    const db = format.value !== 'ff';
    sortBox.toggleAttribute('disabled', !db);
    sortBox.title = db ? '' : 'a flat file is read in record order';
    file.placeholder = format.value === 'db' ? 'default database' : format.value === 'odbc' ? 'required: the DSN' : 'required, e.g. events.ndjson';
  };
  format.addEventListener('change', syncSort);
  syncSort();

  /** The filters as REST parameters (without paging). */
  function filters(): Record<string, string> {
    const out: Record<string, string> = { format: format.value };
    if (file.value.trim()) out[format.value === 'odbc' ? 'dsn' : 'file'] = file.value.trim();
    const et = typeBoxes.filter((x) => x.box.checked).map((x) => x.t);
    if (dump.checked) et.push('F');
    if (et.length && et.length < TYPES.length + (dump.checked ? 1 : 0)) out.etype = et.join(',');
    if (dump.checked) out.dump = '1';
    for (const [k, el] of Object.entries(fields)) if (el.value.trim()) out[k] = el.value.trim();
    if (format.value !== 'ff') {
      out.order = order.value;
      out.orderdirection = direction.value;
    }
    out.limit = limit.value;
    return out;
  }

  let pages: Record<string, number>[] = [];
  const load = resultsPane(ctx, results);

  async function run(page: Record<string, number>): Promise<void> {
    const f = filters();
    const source: EventSource = { format: f.format === 'ff' || f.format === 'odbc' ? f.format : 'db', file: f.file ?? f.dsn ?? '' };
    saveEventSource(source);
    ctx.remember({ view: 'events', ...Object.fromEntries(KEPT.filter((k) => f[k] !== undefined).map((k) => [k, f[k]!])) });
    await load('Searching…', async (signal) => {
      const params: Params = { ...f, ...page, verbose: '1' };
      const ans = await ctx.api.get<EventsAnswer>('/REST/v2.0/events', params, signal);
      clear(results);
      results.append(eventTable(ctx, ans.events, { dump: f.dump === '1' }));
      const nav = h('div', { class: 'pager' });
      const shown = h('span', { class: 'muted' }, ans.events.length ? `${ans.events.length} record${ans.events.length === 1 ? '' : 's'} on this page${ans.more ? '; more match' : ''}` : 'No record matches.');
      if (pages.length) nav.append(h('button', { type: 'button', onclick: () => void run(pages.pop()!) }, '← Previous page'));
      nav.append(shown);
      if (ans.more && ans.next) {
        const next = ans.next;
        nav.append(h('button', { type: 'button', onclick: () => { pages.push(page); void run(next); } }, 'Next page →'));
      }
      if (ans.malformed) nav.append(h('span', { class: 'warn' }, `${ans.malformed} malformed line(s) skipped`));
      results.append(nav);
    });
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    pages = [];
    void run({});
  });
  ctx.root.append(h('h1', { class: 'view-title' }, 'Events'), form, results);
  // A flat file needs its name: fill in the configured one.
  if (!file.value) {
    ctx.api
      .get<{ destinations: Record<string, unknown> }>('/REST/v2.0/events/destinations')
      .then((d) => {
        const ff = d.destinations.ff;
        if (typeof ff === 'string') file.dataset.ff = ff;
        format.addEventListener('change', () => {
          if (format.value === 'ff' && !file.value && file.dataset.ff) file.value = file.dataset.ff;
          if (format.value !== 'ff' && file.value === file.dataset.ff) file.value = '';
        });
        if (format.value === 'ff' && !file.value && file.dataset.ff) file.value = file.dataset.ff;
      })
      .catch(() => {});
  }
  void storePicker(ctx.api, format, file, !chosen).then(() => {
    if (format.value === 'db' || file.value) void run({});
  });
}

function who(user: string | null, host: string | null): string {
  return `${user ?? '?'}${host ? `@${host}` : ''}`;
}

/** `dump`: records as stored (an accept's exit status is on its finish record). */
export function eventTable(ctx: ViewContext, events: readonly EventRecord[], opts: { dump?: boolean } = {}): HTMLElement {
  if (!events.length) return h('div');
  const body = h('tbody');
  for (const e of events) {
    const open = e.etype === 'K' && e.iolog
      ? h('a', { href: `./?view=session&file=${encodeURIComponent(e.iolog)}&uniqueid=${encodeURIComponent(e.uniqueid)}`, class: 'button small', 'data-action': 'open-session', onclick: (ev: Event) => {
          if ((ev as MouseEvent).ctrlKey || (ev as MouseEvent).metaKey) return;
          ev.preventDefault();
          // The path as sudo logged it may not be the directory (1.9.13 logs an iolog_file
          // template unexpanded): the server resolves it, near the record's time.
          const time = typeof e.time === 'number' ? { time: String(e.time) } : {};
          ctx.api
            .get<{ session: { file: string } }>('/REST/iolog/session', { iolog: e.iolog!, ...time })
            .then((a) => ctx.navigate({ view: 'session', file: a.session.file, uniqueid: e.uniqueid }))
            .catch(() => ctx.navigate({ view: 'session', file: e.iolog!, uniqueid: e.uniqueid }));
        } }, '▶ Watch session')
      : null;
    const detailsRow = h('tr', { class: 'details-row', hidden: true }, h('td', { colspan: 7 }, recordDetails(e)));
    const toggle = h('button', { type: 'button', class: 'link-button', 'aria-expanded': 'false', title: 'every field of the record' }, 'details');
    toggle.addEventListener('click', () => {
      detailsRow.hidden = !detailsRow.hidden;
      toggle.setAttribute('aria-expanded', String(!detailsRow.hidden));
    });
    body.append(
      h(
        'tr',
        { class: `etype-${e.etype}`, 'data-recnum': e.recnum },
        h('td', { class: 'nowrap', title: e.epoch_iso ?? '' }, e.epoch),
        h('td', {}, h('span', { class: `badge badge-${e.etype}`, title: TYPE_NAMES[e.etype] ?? '' }, e.etype)),
        h('td', {}, who(e.submituser, e.submithost)),
        h('td', {}, who(e.runuser, e.runhost)),
        h('td', { class: 'mono' }, e.runargv?.join(' ') ?? e.runcommand ?? ''),
        h('td', {}, e.exitstatus ?? (e.etype === 'R' || opts.dump ? '' : h('span', { class: 'muted' }, 'running or unknown'))),
        h('td', { class: 'nowrap' }, open, ' ', toggle),
      ),
      detailsRow,
    );
  }
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'grid' },
      h('thead', {}, h('tr', {}, ...['Time', 'Type', 'Submitted by', 'Run as', 'Command', 'Exit', ''].map((t) => h('th', { scope: 'col' }, t)))),
      body,
    ),
  );
}

function recordDetails(e: EventRecord): HTMLElement {
  const dl = h('dl', { class: 'kv' });
  for (const [k, v] of Object.entries(e)) {
    dl.append(h('dt', {}, k), h('dd', { class: 'mono' }, typeof v === 'string' ? v : JSON.stringify(v)));
  }
  return dl;
}
