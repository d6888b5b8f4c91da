// A session: what it was (log.json), its accept and finish events (GET /REST/iolog/events in the
// event log the events view uses: linked by uuid, the records' iolog path, or time and user), the player, and the command timeline and search hits as
// lists and as timeline markers. The URL's #t=SECONDS opens (and follows) a moment.
import { ApiError, explain } from '../api.js';
import { clock, errorBox, h, select } from '../dom.js';
import { loadEventSource, sourceParams } from '../event-source.js';
import type { ViewContext } from '../view-context.js';
import { Player, SPEEDS } from '../player/player.js';
import { TermFit } from '../player/fit.js';
import { downloadLinks } from './session-downloads.js';
import { SessionSource } from '../player/source.js';
import { firstTime } from '../player/frames.js';
import { Timeline, type Marker } from '../player/timeline.js';
import { followSession } from '../player/follow.js';
import { eventTable, type EventRecord } from './events.js';
import { commandLabel, type TimelineEntry } from './command-label.js';
import { hitSeconds, type SearchHit } from './search.js';

interface Command extends TimelineEntry {
  at: number;
  time?: number;
  offset?: number;
  prompt_at?: number;
  exitstatus?: string;
}

type Vars = Record<string, unknown>;

/** The session's start in Unix ms from its variables (log.json timestamp, asciicast header). */
function startMs(v: Vars): number | null {
  const ts = v.timestamp;
  if (ts && typeof ts === 'object') {
    const t = ts as { seconds?: number; nanoseconds?: number };
    if (typeof t.seconds === 'number') return t.seconds * 1000 + Math.floor((t.nanoseconds ?? 0) / 1e6);
  }
  if (typeof ts === 'number') return ts * 1000;
  if (typeof ts === 'string' && /^\d+(\.\d+)?$/.test(ts)) return Number(ts) * 1000;
  return null;
}

function num(v: unknown, dflt: number): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : dflt;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : v === undefined || v === null ? '' : JSON.stringify(v);
}

/** A minimatch glob that names exactly this path (its metacharacters escaped). */
function exactGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, (c) => `\\${c}`);
}

function hashTime(): number | null {
  const m = /(?:^#|&)t=(\d+(?:\.\d+)?)/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

export function renderSession(ctx: ViewContext): void {
  const file = ctx.params.get('file') ?? '';
  const q = ctx.params.get('q') ?? '';
  document.title = 'Session · evio console';
  const root = ctx.root;
  const back = h('a', { href: './?view=sessions', class: 'back' }, '← Sessions');
  back.addEventListener('click', (ev) => {
    if (history.length > 1) {
      ev.preventDefault();
      history.back();
    }
  });
  const title = h('h1', { class: 'view-title' }, 'Session');
  const meta = h('dl', { class: 'meta' });
  const status = h('div', { 'aria-live': 'polite' });
  const termBox = h('div', { class: 'term', id: 'terminal' });
  const side = h('aside', { class: 'side', 'aria-label': 'Commands and hits' });
  const eventsBox = h('section', { class: 'card session-events', 'aria-labelledby': 'ev-title' }, h('h2', { id: 'ev-title' }, 'Events of this session'));
  const liveBadge = h('span', { class: 'badge badge-live', id: 'live-badge', title: 'still being recorded: new output shows as it arrives', hidden: true }, 'live');
  root.append(back, h('div', { class: 'title-row' }, title, liveBadge), meta, status);
  if (!file) {
    status.append(errorBox('No session given (file=).'));
    return;
  }

  // Controls.
  const playBtn = h('button', { type: 'button', class: 'primary play', 'aria-label': 'Play', title: 'Play / pause (space)' }, '▶');
  const timeLabel = h('span', { class: 'time mono', 'aria-live': 'off' }, '0:00.0');
  const speed = select('speed', SPEEDS.map((s) => [String(s), `${s}×`] as const), '1');
  speed.title = 'Speed (< and >)';
  const skip = h('input', { type: 'checkbox', name: 'skip-idle', checked: true });
  const prevBtn = h('button', { type: 'button', title: 'Previous marker ([)', 'aria-label': 'Previous marker' }, '« prev');
  const nextBtn = h('button', { type: 'button', title: 'Next marker (])', 'aria-label': 'Next marker' }, 'next »');
  const copyBtn = h('button', { type: 'button', title: 'Copy the text on the screen' }, 'Copy screen text');
  const linkBtn = h('button', { type: 'button', title: 'Copy a link that opens this moment' }, 'Copy link to this moment');
  const stateLabel = h('span', { class: 'state muted', role: 'status' });
  const nowBtn = h('button', { type: 'button', class: 'now', title: 'Show the session as it is now and follow it', hidden: true }, 'Jump to now');
  const timeline = new Timeline((t) => void seekTo(t));
  const controls = h(
    'div',
    { class: 'controls', role: 'group', 'aria-label': 'Player controls' },
    playBtn,
    prevBtn,
    nextBtn,
    timeLabel,
    nowBtn,
    timeline.el,
    h('label', { class: 'inline-field' }, h('span', {}, 'Speed'), speed),
    h('label', { class: 'check', title: 'Pauses longer than 1 s are shortened to 1 s' }, skip, ' Skip idle time'),
  );
  const tools = h(
    'div',
    { class: 'tools' },
    copyBtn,
    linkBtn,
    stateLabel,
    h(
      'details',
      { class: 'keys' },
      h('summary', {}, 'Keyboard'),
      h('dl', { class: 'kv' }, ...[
        ['Space', 'play / pause'],
        ['← →', 'back / forward 5 s (with Shift: 30 s)'],
        ['< >', 'slower / faster'],
        ['[ ]', 'previous / next command or hit'],
        ['Home End', 'start / end (on the timeline)'],
      ].flatMap(([k, v]) => [h('dt', {}, h('kbd', {}, k!)), h('dd', {}, v!)])),
    ),
  );
  const termWrap = h('div', { class: 'term-wrap' }, termBox);
  const playerCard = h('section', { class: 'card player', 'aria-label': 'Player' }, termWrap, controls, tools);
  tools.append(downloadLinks(ctx.api, file));
  // Drawn once the player has its size and the command list is in (nothing moves on load).
  const layout = h('div', { class: 'session-layout is-loading' }, playerCard, side);
  eventsBox.classList.add('is-loading');
  root.append(layout, eventsBox);

  const source = new SessionSource(ctx.api, file);
  // A damaged recording (corrupt stream, timing cut short): a badge above the player, the
  // warnings in it; what could be read still plays.
  const damage = h('details', { class: 'warn damaged', 'data-testid': 'session-damaged', hidden: true });
  playerCard.prepend(damage);
  source.onWarnings = (all) => {
    damage.hidden = false;
    damage.replaceChildren(h('summary', {}, `Damaged recording: ${all.length} warning${all.length === 1 ? '' : 's'} (what could be read is shown)`), h('pre', {}, all.join('\n')));
  };
  let player: Player | null = null;
  let fit: TermFit | null = null;
  let markers: Marker[] = [];
  let wasPlaying = false;
  let markerTimer = 0;
  let markersLoading: Promise<void> | null = null;
  const ac = new AbortController();
  ctx.onLeave(() => {
    ac.abort();
    fit?.dispose();
    player?.dispose();
    document.removeEventListener('keydown', onKey, true);
    window.removeEventListener('hashchange', onHash);
    delete (window as unknown as { evioPlayer?: unknown }).evioPlayer;
  });

  function updateUi(): void {
    if (!player) return;
    const d = player.duration ?? 0;
    timeline.setDuration(d);
    timeline.setTime(player.time);
    timeLabel.textContent = `${clock(player.time)} / ${player.duration === null ? '…' : clock(d)}`;
    const playing = player.playing;
    // Pausing leaves the moment in the URL: the address bar is then a link to it.
    if (wasPlaying && !playing && player.state !== 'seeking') history.replaceState(null, '', `${location.pathname}${location.search}#t=${player.time.toFixed(3)}`);
    wasPlaying = playing;
    playBtn.textContent = playing ? '❚❚' : '▶';
    playBtn.setAttribute('aria-label', playing ? 'Pause' : 'Play');
    stateLabel.textContent = player.error ? '' : player.state === 'live' ? 'following live' : player.state === 'buffering' ? 'loading…' : player.state === 'seeking' ? 'seeking…' : player.state === 'ended' ? 'end of session' : '';
    if (player.error) {
      status.replaceChildren(errorBox(explain(player.error)));
    }
    // The side lists follow the clock: in each, the last command (or hit) begun is the current one.
    for (const list of side.querySelectorAll<HTMLElement>('.markers-list')) {
      let current: HTMLElement | null = null;
      for (const b of list.querySelectorAll<HTMLElement>('.marker-item')) if (Number(b.dataset.t) <= player.time + 0.001) current = b;
      const before = list.querySelector<HTMLElement>('.marker-item[aria-current]');
      if (current !== before) {
        before?.removeAttribute('aria-current');
        current?.setAttribute('aria-current', 'true');
      }
    }
    termBox.dataset.state = player.state;
    nowBtn.disabled = player.state === 'live';
    termBox.dataset.time = player.time.toFixed(3);
  }

  async function seekTo(t: number): Promise<void> {
    if (!player) return;
    await player.seek(t);
    if (!player.playing) history.replaceState(null, '', `${location.pathname}${location.search}#t=${player.time.toFixed(3)}`);
  }

  function marker(dir: 1 | -1): void {
    if (!player || !markers.length) return;
    const now = player.time;
    const m = dir > 0 ? markers.find((x) => x.t > now + 0.05) : [...markers].reverse().find((x) => x.t < now - 0.3);
    if (m) void seekTo(m.t);
  }

  function setSpeed(step: number): void {
    if (!player) return;
    const i = SPEEDS.indexOf(player.speed as (typeof SPEEDS)[number]);
    const next = SPEEDS[Math.min(Math.max(i + step, 0), SPEEDS.length - 1)]!;
    player.speed = next;
    speed.value = String(next);
  }

  function onKey(ev: KeyboardEvent): void {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || !player) return;
    const t = ev.target as HTMLElement | null;
    const inTerm = !!t?.closest('.xterm');
    if (!inTerm && t && (/^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t.isContentEditable)) return;
    // Space on a button or a disclosure activates it (the play button's own click toggles).
    if (ev.key === ' ' && t && /^(BUTTON|SUMMARY|A)$/.test(t.tagName)) return;
    const step = ev.shiftKey ? 30 : 5;
    switch (ev.key) {
      case ' ':
        player.toggle();
        break;
      case 'ArrowLeft':
        void seekTo(player.time - step);
        break;
      case 'ArrowRight':
        void seekTo(player.time + step);
        break;
      case '<':
        setSpeed(-1);
        break;
      case '>':
        setSpeed(1);
        break;
      case '[':
        marker(-1);
        break;
      case ']':
        marker(1);
        break;
      default:
        return;
    }
    ev.preventDefault();
    ev.stopPropagation();
  }

  function onHash(): void {
    const t = hashTime();
    if (t !== null && player && Math.abs(t - player.time) > 0.001) void seekTo(t);
  }

  playBtn.addEventListener('click', () => player?.toggle());
  nowBtn.addEventListener('click', () => void startLive());
  prevBtn.addEventListener('click', () => marker(-1));
  nextBtn.addEventListener('click', () => marker(1));
  speed.addEventListener('change', () => player && (player.speed = Number(speed.value)));
  skip.addEventListener('change', () => player && (player.skipIdle = skip.checked));
  copyBtn.addEventListener('click', () => player && void copyText(player.screenText(), 'Screen text copied.'));
  linkBtn.addEventListener('click', () => {
    if (!player) return;
    // Millisecond precision: a typed command's moment must still show it.
    const url = `${location.origin}${location.pathname}${location.search}#t=${Number(player.time.toFixed(3))}`;
    void copyText(url, 'Link copied.');
  });
  document.addEventListener('keydown', onKey, true);
  window.addEventListener('hashchange', onHash);

  async function copyText(text: string, done: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      stateLabel.textContent = done;
    } catch {
      // No clipboard permission: show the text selected, for Ctrl+C.
      const area = h('textarea', { class: 'copy-area mono', rows: 8, 'aria-label': 'Text to copy', readonly: true });
      area.value = text;
      const dlg = h('dialog', { class: 'copy-dialog' }, h('p', {}, 'Press Ctrl+C to copy:'), area, h('form', { method: 'dialog' }, h('button', { type: 'submit' }, 'Close')));
      dlg.addEventListener('close', () => dlg.remove());
      document.body.append(dlg);
      dlg.showModal();
      area.select();
    }
  }

  void (async () => {
    let vars: Vars = {};
    try {
      vars = (await ctx.api.get<{ log: Vars }>('/REST/iolog/variables', { file }, ac.signal)).log;
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      status.append(errorBox(`This session cannot be opened: ${explain(err)}`));
      playerCard.hidden = true;
      return;
    }
    const command = str(vars.command ?? vars.cmd) + (Array.isArray(vars.runargv) ? ` ${(vars.runargv as string[]).slice(1).join(' ')}` : '');
    const host = str(vars.runhost ?? vars.submithost);
    title.textContent = `${str(vars.runuser) || '?'}${host ? `@${host}` : ''}: ${command.trim() || str(vars.title) || 'session'}`;
    document.title = `${title.textContent} · evio console`;
    // The zero of the timeline: log.json's or the header's timestamp; without one (a session
    // dated by its file's mtime), the first time the data stream carries.
    let start = startMs(vars);
    if (start === null) {
      try {
        start = firstTime((await source.chunk(0, 1, ac.signal)).log);
      } catch {
        start = null;
      }
    }
    const facts: [string, string][] = [
      ['Submitted by', `${str(vars.submituser)}${vars.submithost ? `@${str(vars.submithost)}` : ''}`],
      ['Started', start !== null ? new Date(start).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : ''],
      ['Directory', str(vars.runcwd ?? vars.cwd ?? vars.submitcwd)],
      ['Terminal', str(vars.ttyname)],
      ['File', file],
    ];
    for (const [k, v] of facts) if (v) meta.append(h('div', {}, h('dt', {}, k), h('dd', { class: k === 'File' ? 'mono' : '' }, v)));

    const cols = num(vars.columns ?? vars.width, 80);
    const rows = num(vars.lines ?? vars.height, 24);
    player = new Player(termBox, source, { cols, rows, startMs: start, duration: null });
    player.onChange = updateUi;
    fit = new TermFit(player.term, termWrap, playerCard);
    controls.append(fit.controls());
    (window as unknown as { evioPlayer?: unknown }).evioPlayer = player;
    const t0 = hashTime() ?? 0;
    if (await isLive()) {
      liveBadge.hidden = false;
      nowBtn.hidden = false;
      termBox.dataset.live = 'true';
      // A live session opens at now, unless a moment was asked for.
      void startLive(hashTime() === null ? null : t0);
      playBtn.focus({ preventScroll: true });
      markersLoading = loadMarkers();
      void markersLoading.finally(() => {
        fit?.refit();
        layout.classList.remove('is-loading');
        eventsBox.classList.remove('is-loading');
      });
      void loadEvents();
      return;
    }
    const seeking = player.seek(t0).then(() => {
      if (source.screenSupported === false) tools.append(h('span', { class: 'muted note' }, 'This server has no screen-at-time call: seeking replays from the start.'));
    });
    playBtn.focus({ preventScroll: true }); // opening a session never scrolls the page
    void Promise.all([seeking, loadMarkers()]).finally(() => {
      fit?.refit();
      layout.classList.remove('is-loading');
      eventsBox.classList.remove('is-loading');
    });
    void loadEvents();
  })();

  /** Whether the session is still being written (the session list's live mark). */
  async function isLive(): Promise<boolean> {
    try {
      const ans = await ctx.api.get<{ result: Array<{ live?: boolean }> }>('/REST/iolog/list', { path: exactGlob(file), len: 1 }, ac.signal);
      return ans.result[0]?.live === true;
    } catch {
      return false;
    }
  }

  let follow: AbortController | null = null;
  /**
   * Follows the live session: the screen now, then what arrives (GET /REST/iolog/follow, from
   * the screen's offset). With `at`, the player shows that moment instead and the following
   * only makes the session longer until "Jump to now". At the end: a recording like any other.
   */
  async function startLive(at: number | null = null): Promise<void> {
    if (!player) return;
    follow?.abort();
    const mine = new AbortController();
    follow = mine;
    ac.signal.addEventListener('abort', () => mine.abort(), { once: true });
    try {
      const from = await player.goLive();
      if (at !== null) void player.seek(at);
      await followSession(ctx.api, file, from, {
        chunk: (c) => {
          player?.liveChunk(c.log, c.start + c.len);
          scheduleMarkers();
        },
        end: () => {
          liveBadge.hidden = true;
          nowBtn.hidden = true;
          termBox.dataset.live = 'ended';
          player?.endLive();
          clearTimeout(markerTimer);
          void reloadMarkers();
        },
      }, mine.signal);
    } catch (err) {
      if (mine.signal.aborted || (err as Error).name === 'AbortError') return;
      status.append(errorBox(`Following this session stopped: ${explain(err)}`));
    }
  }

  // While live, the command timeline is asked again at most every MARKERS_MS once output came
  // (one call for the whole session's commands; the output itself is never polled).
  const MARKERS_MS = 5000;
  function scheduleMarkers(): void {
    if (markerTimer) return;
    markerTimer = window.setTimeout(() => {
      markerTimer = 0;
      if (!ac.signal.aborted) void reloadMarkers();
    }, MARKERS_MS);
  }
  async function reloadMarkers(): Promise<void> {
    await markersLoading;
    for (const s of side.querySelectorAll('section')) s.remove();
    markersLoading = loadMarkers();
    await markersLoading;
  }
  ctx.onLeave(() => clearTimeout(markerTimer));

  async function loadMarkers(): Promise<void> {
    const cmds: Marker[] = [];
    const hits: Marker[] = [];
    const cmdList = h('ol', { class: 'markers-list' });
    const cmdBox = h('section', { class: 'card', 'aria-labelledby': 'cmd-title' }, h('h2', { id: 'cmd-title' }, 'Commands'), cmdList);
    side.append(cmdBox);
    try {
      const ans = await ctx.api.get<{ log: Command[] }>('/REST/iolog/commands', { file }, ac.signal);
      for (const c of ans.log) {
        const t = typeof c.at === 'number' ? c.at : 0;
        const { text, note } = commandLabel(c);
        cmds.push({ t, kind: 'command', label: text });
        cmdList.append(markerItem(t, text, note, 'command'));
      }
      if (!ans.log.length) cmdList.append(h('li', { class: 'muted' }, 'No typed command was recognised.'));
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      cmdList.append(h('li', { class: 'muted' }, err instanceof ApiError && err.isMissingRoute ? 'This server has no command timeline.' : explain(err)));
    }
    if (q) {
      const hitList = h('ol', { class: 'markers-list' });
      side.append(h('section', { class: 'card', 'aria-labelledby': 'hit-title' }, h('h2', { id: 'hit-title' }, 'Search hits ', h('code', {}, q)), hitList));
      try {
        const ans = await ctx.api.get<{ detail?: SearchHit[] }>('/REST/iolog/search', { file: exactGlob(file), query: q, detail: 1 }, ac.signal);
        for (const d of ans.detail ?? []) {
          const t = hitSeconds(d);
          hits.push({ t, kind: 'hit', label: d.line });
          hitList.append(markerItem(t, d.line, d.stream, 'hit'));
        }
        if (!hits.length) hitList.append(h('li', { class: 'muted' }, 'No line of this session matches.'));
      } catch (err) {
        if ((err as Error).name === 'AbortError') return;
        hitList.append(h('li', {}, errorBox(explain(err))));
      }
    }
    markers = [...cmds, ...hits].sort((a, b) => a.t - b.t);
    timeline.setMarkers(markers);
  }

  function markerItem(t: number, text: string, note: string, kind: string): HTMLElement {
    const b = h('button', { type: 'button', class: `marker-item marker-${kind}`, 'data-t': String(t) }, h('span', { class: 'marker-time mono' }, clock(t)), h('code', { class: 'marker-text' }, text), note ? h('span', { class: 'muted marker-note' }, note) : null);
    b.addEventListener('click', () => void seekTo(t));
    return h('li', {}, b);
  }

  async function loadEvents(): Promise<void> {
    const src = loadEventSource();
    // The events view's store; file= names the session here, so the log is log= (or dsn=).
    const store: Record<string, string> = src.format === 'odbc' ? { format: 'odbc', dsn: src.file } : src.file ? { format: src.format, log: src.file } : src.format === 'db' ? { format: 'db' } : {};
    const where = src.format === 'ff' ? (src.file ? `flat file ${src.file}` : 'configured event log') : src.format === 'odbc' ? `ODBC source ${src.file}` : `database${src.file ? ` ${src.file}` : ''}`;
    const how: Record<string, string> = { uniqueid: 'by the session\'s uuid', iolog: 'by the I/O log path the records name', time: 'by submit time, user, host and command (the log names no session)' };
    try {
      const ans = await ctx.api.get<{ match: string; uniqueid: string | null; events: EventRecord[] }>('/REST/iolog/events', { file, ...store }, ac.signal);
      if (!ans.events.length) {
        eventsBox.append(h('p', { class: 'muted', 'data-match': 'none' }, `No record in the ${where} is this session's (none has its uuid, names its I/O log, or was submitted at its start by its user).`));
        return;
      }
      eventsBox.append(h('p', { class: 'muted', 'data-match': ans.match }, `Records in the ${where}, linked ${how[ans.match] ?? ans.match}:`));
      const uniqueid = ans.uniqueid ?? '';
      const params = { ...sourceParams(src), uniqueid, dump: '1' };
      const link = h('a', { href: `./?view=events&${new URLSearchParams(params).toString()}` }, 'Open in the events view');
      link.addEventListener('click', (ev) => {
        ev.preventDefault();
        ctx.navigate({ view: 'events', ...params });
      });
      eventsBox.append(eventTable(ctx, ans.events, { dump: true }));
      if (uniqueid) eventsBox.append(h('p', {}, link));
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      eventsBox.append(errorBox(explain(err)));
    }
  }

}
