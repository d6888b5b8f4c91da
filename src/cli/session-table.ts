// `evio iolog list` on a terminal: one aligned row per session, as `sudoreplay -l` lists them
// (when, who, as whom, where, the session ID, the command) — JSON stays the answer when the
// output is piped or --json is given.
import { relative } from 'node:path';
import type { ListedSession } from '../app/iolog.js';
import { printable } from './printable.js';

const HEAD = ['START', 'USER', 'RUNAS', 'HOST', 'SESSION', 'COMMAND'] as const;

/** sudo's %{seq} layout XX/XX/XX is named by its session ID (what sudoreplay prints as TSID). */
export function sessionName(logpath: string, roots: readonly string[]): string {
  for (const root of roots) {
    const rel = relative(root, logpath);
    if (rel && !rel.startsWith('..') && !rel.startsWith('/')) return /^[0-9A-Za-z]{2}\/[0-9A-Za-z]{2}\/[0-9A-Za-z]{2}$/.test(rel) ? rel.replace(/\//g, '') : rel;
  }
  return logpath;
}

export function sessionTable(rows: readonly ListedSession[], roots: readonly string[], width: number): string {
  const cells = rows.map((r) => [
    r.createtime_iso.slice(0, 19).replace('T', ' '),
    r.submituser,
    r.runuser,
    r.submithost,
    sessionName(r.logpath, roots) + (r.live ? ' (live)' : ''),
    r.runcmd,
  ].map((v) => printable(v)));
  const widths = HEAD.map((h, i) => (i === HEAD.length - 1 ? 0 : Math.max(h.length, ...cells.map((c) => c[i]!.length))));
  const line = (c: readonly string[]) => {
    const text = c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
    return width > 0 && text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  return [line(HEAD), ...cells.map(line)].join('\n') + '\n';
}
