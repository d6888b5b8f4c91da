// The command line is read strictly (util.parseArgs): a mistyped flag, a flag without its value
// or an argument too many is an error that names the command and its valid flags, never
// silently ignored. Switches take no value, or an explicit 0|1. Reads never create a store.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';

const bin = new URL('../../bin/evio.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'evio-flags-'));
const env = { ...process.env, EVIO_HOME: join(dir, 'home') };
function evio(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, cwd: dir, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const log = join(dir, 'events.ndjson');
writeFileSync(log, [...generateEvents({ count: 40, seed: 3 })].map((r) => JSON.stringify(r)).join('\n') + '\n');

describe('unknown flags, missing values and extra arguments', () => {
  it.each([
    [['serve', '--prot', '1234'], /^evio: 1003 serve: unknown flag --prot; valid flags: --allow-insecure, --help, --host, --port\n$/],
    [['demo', '--cont', '5'], /^evio: 1003 demo: unknown flag --cont; valid flags: --count, --help\n$/],
    [['events', 'copy', '--bogus', '1'], /^evio: 1003 events copy: unknown flag --bogus; valid flags: --from, --help, --to\n$/],
    [['events', 'copy', '--from'], /^evio: 1003 events copy: --from needs a value\n$/],
    [['events', 'query', `ff:${log}`, 'extra'], /^evio: 1003 events query takes at most 1 argument \("extra" is one too many\)\n$/],
    [['events', 'query', `ff:${log}`, '--runusr', 'root'], /^evio: 1003 events query: unknown flag --runusr; valid flags: .*--runuser.*\n$/],
    [['iolog', 'list', '--bogus'], /^evio: 1003 iolog list: unknown flag --bogus; valid flags: .*--submituser.*\n$/],
    [['keys', 'list', '--shw-key'], /^evio: 1003 keys list: unknown flag --shw-key; valid flags: .*--show-key.*\n$/],
    [['events', 'delete', `ff:${log}`, '--all=yes'], /^evio: 1003 --all takes no value, or 0 or 1 \(not "yes"\)\n$/],
    [['events', 'delete', `ff:${log}`, '--all', 'yes'], /^evio: 1003 events delete takes at most 1 argument \("yes" is one too many\)\n$/],
  ])('%j is refused with 1003 and exit 2', (args, message) => {
    const r = evio(...args);
    expect({ code: r.code, out: r.out }).toEqual({ code: 2, out: '' });
    expect(r.err).toMatch(message);
  });
});

describe('a negative number is a value', () => {
  it('--at -5 reaches the command, which says what is wrong with it (not "--at needs a value")', () => {
    const r = evio('iolog', 'play', '00/00/01', '--at', '-5');
    expect(r.err).not.toMatch(/needs a value/);
    expect(r.err).toMatch(/^evio: 1401 at="-5" is not a number of seconds/);
  });
});

describe('switches and short flags', () => {
  it('--verbose, --verbose 1 and --verbose=1 are the same; -n is --limit', () => {
    const a = evio('events', 'query', `ff:${log}`, '--verbose', '-n', '3');
    const b = evio('events', 'query', `ff:${log}`, '--verbose', '1', '--limit', '3');
    const c = evio('events', 'query', `ff:${log}`, '--verbose=1', '--limit=3');
    expect(a.code).toBe(0);
    expect(a.out.trim().split('\n')).toHaveLength(3);
    expect(JSON.parse(a.out.split('\n')[0]!)).toHaveProperty('runargv');
    expect(b.out).toBe(a.out);
    expect(c.out).toBe(a.out);
    const plain = evio('events', 'query', `ff:${log}`, '--verbose', '0', '-n', '1');
    expect(JSON.parse(plain.out)).not.toHaveProperty('runargv');
  });

  it('--all and --all 1 delete everything; without a filter or --all nothing is deleted', () => {
    const copy = join(dir, 'copy.ndjson');
    writeFileSync(copy, readFileSync(log));
    const refused = evio('events', 'delete', `ff:${copy}`);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/1111/);
    expect(JSON.parse(evio('events', 'delete', `ff:${copy}`, '--all').out)).toEqual({ status: 0, deleted: 40 });
    writeFileSync(copy, readFileSync(log));
    expect(JSON.parse(evio('events', 'delete', `ff:${copy}`, '--all', '1').out)).toEqual({ status: 0, deleted: 40 });
  });

  it('a subcommand prints its own help, not the group\'s', () => {
    const r = evio('events', 'query', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: evio events query \[STORE\]/);
    expect(evio('events', 'copy', '-h').out).toMatch(/^Usage: evio events copy --from STORE --to STORE/);
    expect(evio('iolog', 'list', '--help').out).toMatch(/^Usage: evio iolog list/);
  });
});

describe('no store is created by a read', () => {
  it.each([
    ['query', `db:${join(dir, 'nosuch.sqlite')}`],
    ['delete', `db:${join(dir, 'nosuch2.sqlite')}`],
    ['query', `ff:${join(dir, 'nosuch.ndjson')}`],
    ['export', `db:${join(dir, 'nosuch3.sqlite')}`],
  ])('events %s %s answers 1200 and creates nothing', (sub, store) => {
    const r = evio('events', sub, store, ...(sub === 'delete' ? ['--all'] : []));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^evio: 1200 .*does not exist; reads and deletes never create one/);
    expect(existsSync(store.slice(3))).toBe(false);
  });

  it('copy --from a missing store creates neither store; append creates its store and says so', () => {
    const to = join(dir, 'made.sqlite');
    expect(evio('events', 'copy', '--from', `db:${join(dir, 'absent.sqlite')}`, '--to', `db:${to}`).code).toBe(1);
    expect(existsSync(to)).toBe(false);
    const r = spawnSync(process.execPath, [bin, 'events', 'append', `db:${to}`], { input: readFileSync(log), encoding: 'utf8', env, cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^appended 40 records/);
    expect(existsSync(to)).toBe(true);
  });

  it('format=db with a dsn is refused instead of querying the default database', () => {
    const r = evio('call', 'GET', '/REST/v2.0/events?format=db&dsn=nosuch');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ status: 1114 });
  });
});
