// The wall: every live session of a host or user at once, each a small terminal following its
// session (the screen now, then GET /REST/iolog/follow). The list of live sessions comes from
// the cached session list (its live mark), looked at again every few seconds so that a new
// session joins the wall; a tile whose session ends says so and stays until the next look.
import { explain } from '../api.js';
import { clear, errorBox, field, h, input } from '../dom.js';
import { followSession } from '../player/follow.js';
import { Player } from '../player/player.js';
import { SessionSource } from '../player/source.js';
import type { ViewContext } from '../view-context.js';
import type { SessionRow } from './sessions.js';

/** How often the list of live sessions is looked at again, ms. */
const RELIST_MS = 5000;
/** The list is read in pages of PAGE sessions, at most MAX_PAGES of them (the filters narrow it). */
const PAGE = 1000;
const MAX_PAGES = 10;
/** Tiles at most (each holds a follow call open). */
const MAX_TILES = 24;

interface Tile {
  el: HTMLElement;
  player: Player;
  ac: AbortController;
  ended: boolean;
}

export function renderWall(ctx: ViewContext): void {
  document.title = 'Live sessions · evio console';
  const p = ctx.params;
  const host = input('runhost', { value: p.get('runhost') ?? '', placeholder: 'wildcard, e.g. web*' });
  const user = input('submituser', { value: p.get('submituser') ?? '', placeholder: 'wildcard' });
  const from = input('from', { value: p.get('from') ?? '-1d', placeholder: 'e.g. -1d, today' });
  const form = h('form', { class: 'filters card', 'aria-label': 'Wall filters' }, h('div', { class: 'row' }, field('Run host', host), field('Submit user', user), field('Started after', from), h('button', { type: 'submit', class: 'primary' }, 'Show')));
  const note = h('p', { class: 'muted', 'aria-live': 'polite' });
  const grid = h('div', { class: 'wall', id: 'wall' });
  ctx.root.append(h('h1', { class: 'view-title' }, 'Live sessions'), form, note, grid);

  const tiles = new Map<string, Tile>();
  let timer = 0;
  let listing = new AbortController();
  ctx.onLeave(() => {
    clearTimeout(timer);
    listing.abort();
    for (const t of tiles.values()) drop(t);
    tiles.clear();
  });

  function drop(t: Tile): void {
    t.ac.abort();
    t.player.dispose();
    t.el.remove();
  }

  function filters(): Record<string, string> {
    const f: Record<string, string> = {};
    if (host.value.trim()) f.runhost = host.value.trim();
    if (user.value.trim()) f.submituser = user.value.trim();
    if (from.value.trim()) f.from = from.value.trim();
    return f;
  }

  function addTile(r: SessionRow): void {
    const term = h('div', { class: 'wall-term' });
    const state = h('span', { class: 'badge badge-live' }, 'live');
    const open = h('a', { href: `./?view=session&file=${encodeURIComponent(r.logpath)}`, class: 'wall-title mono', title: r.logpath }, `${r.submituser}@${r.runhost}: ${r.runcmd}`);
    open.addEventListener('click', (ev) => {
      if ((ev as MouseEvent).ctrlKey || (ev as MouseEvent).metaKey) return;
      ev.preventDefault();
      ctx.navigate({ view: 'session', file: r.logpath });
    });
    const el = h('section', { class: 'wall-tile card', 'data-file': r.logpath, 'aria-label': `${r.submituser}@${r.runhost}` }, h('div', { class: 'wall-head' }, state, ' ', open), term);
    grid.append(el);
    const player = new Player(term, new SessionSource(ctx.api, r.logpath), { cols: 80, rows: 24, startMs: r.createtime, duration: null, fontSize: 7 });
    const tile: Tile = { el, player, ac: new AbortController(), ended: false };
    tiles.set(r.logpath, tile);
    void (async () => {
      try {
        const offset = await player.goLive();
        await followSession(ctx.api, r.logpath, offset, {
          chunk: (c) => player.liveChunk(c.log, c.start + c.len),
          end: () => {
            tile.ended = true;
            player.endLive();
            state.textContent = 'ended';
            state.className = 'badge';
            el.dataset.ended = 'true';
          },
        }, tile.ac.signal);
      } catch (err) {
        if (tile.ac.signal.aborted || (err as Error).name === 'AbortError') return;
        term.replaceChildren(errorBox(explain(err)));
      }
    })();
  }

  async function relist(): Promise<void> {
    clearTimeout(timer);
    listing.abort();
    listing = new AbortController();
    const f = filters();
    try {
      // The list is oldest first: read it to its end (a bounded number of pages) for the newest.
      const all: SessionRow[] = [];
      let start = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const ans = await ctx.api.get<{ result: SessionRow[]; more?: boolean; next?: { start: number } }>('/REST/iolog/list', { ...f, start, len: PAGE }, listing.signal);
        all.push(...ans.result.filter((r) => r.live));
        if (!ans.more || !ans.next) break;
        start = ans.next.start;
      }
      const ans = { result: all };
      const live = ans.result.slice(-MAX_TILES);
      const keep = new Set(live.map((r) => r.logpath));
      // Ended sessions leave at this look (they showed "ended" since their end).
      for (const [k, t] of tiles) if (!keep.has(k) && t.ended) {
        drop(t);
        tiles.delete(k);
      }
      for (const r of live) if (!tiles.has(r.logpath)) addTile(r);
      note.textContent = live.length ? `${live.length} live session${live.length === 1 ? '' : 's'}${ans.result.filter((r) => r.live).length > MAX_TILES ? ` (the newest ${MAX_TILES} shown)` : ''}.` : 'No session matching these filters is being recorded now.';
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      note.replaceChildren(errorBox(explain(err)));
    }
    timer = window.setTimeout(() => void relist(), RELIST_MS);
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    ctx.remember({ view: 'wall', ...filters() });
    for (const t of tiles.values()) drop(t);
    tiles.clear();
    clear(grid);
    void relist();
  });
  void relist();
}
