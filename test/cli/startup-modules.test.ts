// A one-shot command loads the code of the command it runs and nothing else (BENCHMARKS.md,
// "Start-up steps"): every module is a file to resolve, read and compile before any work.
// Counted in child processes running the built bin/evio.js, with an ESM loader hook that lists
// each module loaded; the assertions name modules, never times.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'evio.js');
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function load(url, ctx, next) { if (url.startsWith("file:")) process._rawDebug("loaded " + url); return next(url, ctx); }'));
`)}`;

let work: string;
const env = () => ({ ...process.env, EVIO_HOME: join(work, 'home'), EVIO_CONFIG: '' });

/** The package files (relative to the repository) a command loads, and its exit status. */
function loaded(args: string[]): { status: number | null; files: string[] } {
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], { env: env(), encoding: 'utf8', timeout: 60_000 });
  const files = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded file://'))
    .map((l) => fileURLToPath(l.slice('loaded '.length)).slice(ROOT.length));
  return { status: r.status, files };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'evio-startup-'));
  const gen = (a: string[]) => spawnSync(process.execPath, [BIN, 'generate', ...a], { env: env(), encoding: 'utf8' });
  expect(gen(['events', '--count', '20', '--seed', '1', '--out', join(work, 'events.ndjson')]).status).toBe(0);
  expect(gen(['sessions', '--count', '3', '--seed', '1', '--out', join(work, 'sessions')]).status).toBe(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('start-up: what a command loads', () => {
  it('--version and --help load the entry point, the dispatcher and the error table only', () => {
    for (const arg of ['--version', '--help']) {
      const r = loaded([arg]);
      expect(r.status).toBe(0);
      expect(r.files.sort()).toEqual(['bin/evio.js', 'dist/cli/commands.js', 'dist/cli/main.js', 'dist/cli/printable.js', 'dist/errors.js']);
    }
  });

  it('events query on a flat file loads no other command, no destination, no HTTP and no database driver', () => {
    const r = loaded(['events', 'query', `ff:${join(work, 'events.ndjson')}`, '-n', '1']);
    expect(r.status).toBe(0);
    expect(r.files).toContain('dist/cli/events.js');
    expect(r.files).toContain('dist/eventlog/flatfile/index.js');
    const stray = r.files.filter((f) => /^dist\/(http|logsrvd|iolog|worker|replay)\/|^dist\/eventlog\/(destinations|copy|postgres\/(?!pg-url)|sql|sqlite|odbc\/(?!dsn-name))|^dist\/cli\/(?!events|main|commands|printable|io|audit|flags|rest-flags|next-page|shell-quote|load-rate)|^node_modules\//.test(f));
    expect(stray).toEqual([]);
    // A read of one file: none of the flat-file writers, the index builders or the family code.
    const writers = r.files.filter((f) => /^dist\/eventlog\/flatfile\/(append|rewrite|rotate|compress|retire|index-build|index-builder|index-write|index-upkeep|index-files|family|family-snapshot)\.js$/.test(f));
    expect(writers).toEqual([]);
  });

  it('iolog list loads no event-log store, destination or HTTP module', () => {
    const r = loaded(['iolog', 'list', '-d', join(work, 'sessions'), '--json']);
    expect(r.status).toBe(0);
    expect(r.files).toContain('dist/cli/iolog.js');
    const stray = r.files.filter((f) => /^dist\/(http|logsrvd)\/|^dist\/eventlog\/(flatfile\/(?!index-key)|destinations|sql|sqlite|postgres\/(?!pg-url))|^dist\/app\/(events|event-destinations|session-events)\.js$/.test(f));
    expect(stray).toEqual([]);
  });
});
