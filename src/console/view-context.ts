// What a view gets from the router (main.ts): the API, its URL parameters, and how to go
// elsewhere. In its own module so that the views do not import the router (no import cycle).
import type { Api } from './api.js';

export type ViewName = 'events' | 'sessions' | 'search' | 'session' | 'wall';

export interface ViewContext {
  api: Api;
  params: URLSearchParams;
  root: HTMLElement;
  navigate(params: Record<string, string>, hash?: string): void;
  /** Replaces the current URL's query (a view's filters), without a new history entry. */
  remember(params: Record<string, string>): void;
  /** Runs when the view is left (stops the player, aborts fetches). */
  onLeave(fn: () => void): void;
}

export function hrefFor(params: Record<string, string>, hash = ''): string {
  const q = new URLSearchParams(params).toString();
  return `./${q ? `?${q}` : ''}${hash}`;
}
