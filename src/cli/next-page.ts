// What the batch commands say when `--limit` cut their answer: that more records match, and the
// command that goes on from there (the same flags with the paging flags of the next page).
import type { NextPage } from '../app/events.js';
import type { CliIo } from './io.js';
import { shellQuote } from './shell-quote.js';

/**
 * The command of the next page: `evio [--config FILE] events SUB STORE` with the given flags, the
 * next page's values replacing theirs. A 0 is a paging parameter's default (no skip, no bound),
 * so it is left out.
 */
export function nextPageCommand(io: CliIo, sub: string, store: string, flags: Record<string, string | string[]>, next: NextPage): string {
  const merged: Record<string, string | string[]> = { ...flags };
  for (const [k, v] of Object.entries(next)) {
    if (v === 0) delete merged[k];
    else merged[k] = String(v);
  }
  const words = ['evio', ...(io.config !== undefined ? ['--config', io.config] : []), 'events', sub, store];
  for (const [k, v] of Object.entries(merged)) {
    for (const one of Array.isArray(v) ? v : [v]) words.push(one.startsWith('-') ? `--${k}=${one}` : `--${k}`, ...(one.startsWith('-') ? [] : [one]));
  }
  return words.map(shellQuote).join(' ');
}

/** The stderr notice of a page cut by `--limit`: the flags to add and the whole command. */
export function cutNotice(limit: string, next: NextPage, command: string): string {
  const flags = Object.entries(next).filter(([, v]) => v !== 0).map(([k, v]) => `--${k} ${v}`).join(' ');
  return `evio: --limit ${limit} reached and more records match; continue with ${flags}:\n  ${command}\n`;
}
