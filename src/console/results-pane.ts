// The results area of a search view: one request at a time (a new one aborts the last, leaving
// the view aborts it), a busy note while it runs, and its error shown in place. The events,
// sessions and search views all load their answers this way.
import { explain } from './api.js';
import { clear, errorBox, h } from './dom.js';
import type { ViewContext } from './view-context.js';

/** Loads into `results`: `fill` gets the request's signal and replaces the busy note with the answer. */
export type PaneLoad = (busyText: string, fill: (signal: AbortSignal) => Promise<void>) => Promise<void>;

export function resultsPane(ctx: ViewContext, results: HTMLElement): PaneLoad {
  let ac: AbortController | null = null;
  ctx.onLeave(() => ac?.abort());
  return async (busyText, fill) => {
    ac?.abort();
    ac = new AbortController();
    const signal = ac.signal;
    clear(results);
    results.append(h('p', { class: 'muted' }, busyText));
    results.setAttribute('aria-busy', 'true');
    try {
      await fill(signal);
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      clear(results);
      results.append(errorBox(explain(err)));
    } finally {
      if (!ac?.signal.aborted) results.setAttribute('aria-busy', 'false');
    }
  };
}
