// The console's entry: sign-in, the navigation and a router over the page's query string
// (?view=events|sessions|search|session|wall&file=...; the hash carries the player's #t=SECONDS).
// Everything runs in the page: the key stays in sessionStorage and signs each call (sign.ts).
import { Api } from './api.js';
import { clearCredentials, loadCredentials } from './credentials.js';
import { clear, h } from './dom.js';
import { renderSignIn } from './views/signin.js';
import { renderEvents } from './views/events.js';
import { renderSessions } from './views/sessions.js';
import { renderSearch } from './views/search.js';
import { renderSession } from './views/session.js';
import { renderWall } from './views/wall.js';
import { hrefFor, type ViewContext, type ViewName } from './view-context.js';

const VIEWS: readonly (readonly [ViewName, string])[] = [
  ['events', 'Events'],
  ['sessions', 'Sessions'],
  ['search', 'Search sessions'],
  ['wall', 'Live wall'],
];

let leaving: (() => void)[] = [];

function route(): void {
  renderedSearch = location.search;
  for (const fn of leaving) fn();
  leaving = [];
  const root = document.getElementById('main')!;
  const nav = document.getElementById('nav')!;
  const who = document.getElementById('who')!;
  clear(root);
  clear(nav);
  clear(who);
  const creds = loadCredentials();
  if (!creds) {
    document.title = 'Sign in · evio console';
    renderSignIn(root, () => route());
    return;
  }
  const api = new Api(creds);
  const params = new URLSearchParams(location.search);
  const view = (params.get('view') ?? 'events') as ViewName;
  for (const [name, label] of VIEWS) {
    const a = h('a', { href: hrefFor({ view: name }), class: 'nav-link', 'aria-current': view === name || (view === 'session' && name === 'sessions') ? 'page' : undefined }, label);
    a.addEventListener('click', (ev) => {
      if ((ev as MouseEvent).ctrlKey || (ev as MouseEvent).metaKey) return;
      ev.preventDefault();
      go({ view: name });
    });
    nav.append(a);
  }
  who.append(
    h('span', { class: 'who-app', title: 'the app whose key signs every call' }, `app ${creds.appid}`),
    h('a', { href: '../docs', class: 'nav-link' }, 'API docs'),
    h('button', { type: 'button', class: 'link-button', onclick: () => { clearCredentials(); route(); } }, 'Sign out'),
  );
  const ctx: ViewContext = {
    api,
    params,
    root,
    navigate: go,
    remember(p) {
      history.replaceState(null, '', hrefFor(p, location.hash));
    },
    onLeave(fn) {
      leaving.push(fn);
    },
  };
  if (view === 'session') renderSession(ctx);
  else if (view === 'sessions') renderSessions(ctx);
  else if (view === 'search') renderSearch(ctx);
  else if (view === 'wall') renderWall(ctx);
  else renderEvents(ctx);
}

function go(params: Record<string, string>, hash = ''): void {
  history.pushState(null, '', hrefFor(params, hash));
  route();
  document.getElementById('main')?.focus({ preventScroll: true });
}

// A change of the hash alone (#t=) is the player's business (it listens for hashchange).
let renderedSearch: string | null = null;
window.addEventListener('popstate', () => {
  if (location.search === renderedSearch && loadCredentials()) return;
  route();
});
document.addEventListener('DOMContentLoaded', () => route());
if (document.readyState !== 'loading') route();
