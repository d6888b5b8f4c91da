// Full-text search across sessions (GET /REST/iolog/search?detail=1): each hit with its line
// and its time; a hit opens the player at that moment (#t=), with the query's hits marked.
import { clear, clock, field, h, input, select } from '../dom.js';
import { resultsPane } from '../results-pane.js';
import type { ViewContext } from '../view-context.js';
import { marked, markRegex, narrowingRow, sessionFacts } from './search-extras.js';

export interface SearchHit {
  file: string;
  stream: string;
  /** Milliseconds since the session start at which the line began. */
  time: number;
  /** Seconds since the start, where the server gives it (what screen?at= takes). */
  at?: number;
  line: string;
}

export function hitSeconds(hit: SearchHit): number {
  return typeof hit.at === 'number' ? hit.at : hit.time / 1000;
}

const KEYWORDS = ['any', 'output', 'input', 'ttyout', 'ttyin', 'stdout', 'stderr', 'stdin'] as const;

export function renderSearch(ctx: ViewContext): void {
  document.title = 'Search sessions · evio console';
  const p = ctx.params;
  const [kw0, ...rest] = (p.get('q') ?? 'output:').split(':');
  const keyword = select('keyword', KEYWORDS.map((k) => [k, k] as const), KEYWORDS.includes(kw0 as never) ? kw0 : 'output');
  const pattern = input('pattern', { value: rest.join(':'), placeholder: 'text or regular expression, e.g. id_rsa|passwd', size: 40, required: true });
  const glob = input('glob', { value: p.get('glob') ?? '**', placeholder: '** = every session' });
  const results = h('section', { class: 'results', 'aria-live': 'polite', 'aria-label': 'Search results' });
  const narrow = narrowingRow(p);
  const form = h(
    'form',
    { class: 'filters card', 'aria-label': 'Search' },
    h('div', { class: 'row' }, field('Stream', keyword, undefined, 'narrow'), field('Pattern', pattern, 'one line at a time; a plain word is a substring search', 'wide'), field('Sessions', glob, 'glob on the session path'), h('button', { type: 'submit', class: 'primary' }, 'Search')),
    narrow.row,
  );
  const load = resultsPane(ctx, results);

  async function run(): Promise<void> {
    if (!pattern.value) return;
    const q = `${keyword.value}:${pattern.value}`;
    const only = narrow.values();
    const re = markRegex(pattern.value);
    ctx.remember({ view: 'search', q, glob: glob.value, ...only });
    await load('Searching…', async (signal) => {
      const ans = await ctx.api.get<{ iologs: string[]; detail?: SearchHit[]; truncated?: boolean; warnings?: unknown[] }>('/REST/iolog/search', { file: glob.value || '**', query: q, detail: 1, ...only }, signal);
      clear(results);
      results.append(h('p', { class: 'muted' }, `${ans.iologs.length} session${ans.iologs.length === 1 ? '' : 's'}, ${ans.detail?.length ?? 0} line${ans.detail?.length === 1 ? '' : 's'}${ans.truncated ? ' (cut: more lines match)' : ''}`));
      const byFile = new Map<string, SearchHit[]>();
      for (const f of ans.iologs) byFile.set(f, []);
      for (const d of ans.detail ?? []) byFile.get(d.file)?.push(d) ?? byFile.set(d.file, [d]);
      for (const [file, hits] of byFile) {
        const list = h('ol', { class: 'hits' });
        for (const hit of hits) {
          const t = hitSeconds(hit);
          const a = h('a', { href: `./?view=session&file=${encodeURIComponent(file)}&q=${encodeURIComponent(q)}#t=${t.toFixed(3)}`, class: 'hit', 'data-action': 'open-hit' }, h('span', { class: 'hit-time' }, clock(t)), h('code', { class: 'hit-line' }, ...marked(hit.line, re)), h('span', { class: 'hit-stream muted' }, hit.stream));
          a.addEventListener('click', (ev) => {
            if ((ev as MouseEvent).ctrlKey || (ev as MouseEvent).metaKey) return;
            ev.preventDefault();
            ctx.navigate({ view: 'session', file, q }, `#t=${t.toFixed(3)}`);
          });
          list.append(h('li', {}, a));
        }
        const open = h('a', { href: `./?view=session&file=${encodeURIComponent(file)}&q=${encodeURIComponent(q)}`, class: 'button small' }, '▶ Watch');
        open.addEventListener('click', (ev) => {
          ev.preventDefault();
          ctx.navigate({ view: 'session', file, q });
        });
        const facts = h('div');
        void sessionFacts(ctx.api, file, signal).then((f) => facts.replaceWith(f), () => {});
        results.append(h('article', { class: 'card hit-group' }, h('header', { class: 'hit-head' }, h('code', {}, file), open), facts, list));
      }
      if (ans.warnings?.length) results.append(h('details', { class: 'warn' }, h('summary', {}, `${ans.warnings.length} warning(s)`), h('pre', {}, JSON.stringify(ans.warnings, null, 2))));
    });
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void run();
  });
  ctx.root.append(h('h1', { class: 'view-title' }, 'Search inside sessions'), form, results);
  if (pattern.value) void run();
  else pattern.focus();
}
