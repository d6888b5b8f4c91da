// The four job subcommands through the real `evio` process: help, output, exit codes, and the
// refusal to purge without a terminal or --yes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/eventlog/export/csv.js';
import { buildCli, runCli, type CliBuild } from './cli-build.js';
import { copySession, makeHome, type JobHome } from './helpers.js';

let build: CliBuild;
let h: JobHome;
let cfg: string;
beforeAll(() => {
  build = buildCli('jobs-cli');
  h = makeHome('evio-cli-');
  cfg = join(h.dir, 'evio.json');
  writeFileSync(cfg, JSON.stringify({ home: 'home', eventlog: 'events.ndjson', eventlogdirs: ['.'], iologdirs: ['io'] }));
}, 120_000);
afterAll(async () => {
  build?.cleanup();
  await h?.cleanup();
});

const evio = (...args: string[]) => runCli(build, ['--config', cfg, ...args], { cwd: h.dir });

describe('evio events import|export|purge|rotate', () => {
  it('each has --help with an example', async () => {
    for (const sub of ['import', 'export', 'purge', 'rotate']) {
      const r = await evio('events', sub, '--help');
      expect(r.code, sub).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Usage: evio events ${sub}[\\s\\S]*Example`));
    }
    expect((await evio('events', '--help')).stdout).toMatch(/import --from sudo-json\|sudo-text FILE/);
  });

  it('imports into the configured event log, then adds nothing; damaged data exits 1 with 1703', async () => {
    const first = await evio('events', 'import', '--from', 'sudo-json', '/work/shared/samples/sudo-json.log');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 0, importedTotal: 13, store: `ff:${join(h.dir, 'events.ndjson')}` });
    expect(first.stderr).toMatch(/^imported 13 records \(R 3, K 5, F 5\) from/);
    const again = await evio('events', 'import', '--from', 'sudo-json', '/work/shared/samples/sudo-json.log');
    expect(JSON.parse(again.stdout)).toMatchObject({ importedTotal: 0, alreadyPresent: 13 });

    const text = readFileSync('/work/shared/samples/sudo-json.log', 'utf8');
    const bad = join(h.dir, 'bad.json');
    writeFileSync(bad, text.replace('    "reject"', '    nonsense\n    "reject"'));
    const r = await evio('events', 'import', '--from', 'sudo-json', bad, '--to', 'ff:other.ndjson');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 1703, importedTotal: 8, stop: { truncated: false } });
    expect(r.stderr).toMatch(/evio: 1703 stopped at byte \d+ \(line 263\)/);

    const unknown = await evio('events', 'import', '--from', 'xml', bad);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/1701/);
  });

  it('exports to a file with every filter, and to stdout', async () => {
    const out = join(h.dir, 'rejects.csv');
    const r = await evio('events', 'export', 'ff:events.ndjson', '--etype', 'R', '--format', 'csv', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^exported 3 records/);
    const rows = parseCsv(readFileSync(out, 'utf8'));
    expect(rows.slice(1).map((x) => x[2])).toEqual(['R', 'R', 'R']);
    const nd = await evio('events', 'export', 'ff:events.ndjson', '--dump', '1');
    expect(nd.stdout.trim().split('\n')).toHaveLength(13);
  });

  it('purge refuses without a terminal and without --yes; --dry-run lists; --yes runs', async () => {
    copySession('01', join(h.dir, 'io', 'root', 'nobody-20261122-XXXXXX'));
    const refused = await evio('events', 'purge', 'ff:events.ndjson', '--to', '2026/11/22 02:45:01', '--iologs');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/1706/);
    const dry = await evio('events', 'purge', 'ff:events.ndjson', '--to', '2026/11/22 02:45:01', '--iologs', '--dry-run');
    expect(dry.code).toBe(0);
    // The human lines on stderr, stdout the JSON report alone.
    expect(dry.stderr).toMatch(/refused \/var\/log\/sudo-io\/root\/nobody-20261122-XXXXXX: is outside the I\/O log roots/);
    expect(JSON.parse(dry.stdout)).toMatchObject({ status: 0, dryRun: true, refused: 4, kept: 4 });
    expect(dry.stderr).toMatch(/would delete 0 records; .*4 refused .*, 4 records referencing them would be kept/);
    const run = await evio('events', 'purge', 'ff:events.ndjson', '--to', '2026/11/22 02:45:01', '--yes');
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 0, records: 8, dryRun: false });
    const bad = await evio('events', 'purge', 'ff:events.ndjson', '--older-than', '90 days', '--yes');
    expect(bad.stderr).toMatch(/1707/);
  });

  it('rotate: --max-size, --list, and refuses a database', async () => {
    const small = await evio('events', 'rotate', '--max-size', '1G');
    expect(JSON.parse(small.stdout)).toMatchObject({ rotated: false });
    const r = await evio('events', 'rotate');
    expect(JSON.parse(r.stdout)).toMatchObject({ rotated: true, carriedRecnum: 13 });
    const list = await evio('events', 'rotate', '--list');
    expect(list.stdout.trim().split('\n')).toHaveLength(1);
    expect(existsSync(list.stdout.split('\t')[0]!)).toBe(true);
    expect((await evio('events', 'rotate', 'db:x.sqlite')).stderr).toMatch(/1709/);
    expect((await evio('events', 'rotate', '--max-size', 'big')).stderr).toMatch(/1708/);
  });

  it('purge on a terminal shows what would go and asks; "n" deletes nothing, "y" purges', async (ctx) => {
    // `script` gives the command a pseudo-terminal (util-linux).
    if (spawnSync('script', ['--version']).status !== 0) return ctx.skip();
    await evio('events', 'import', '--from', 'sudo-json', '/work/shared/samples/sudo-json2.log', '--to', 'ff:tty.ndjson');
    const ask = (answer: string) =>
      new Promise<{ code: number | null; out: string }>((res) => {
        const cmd = [process.execPath, build.entry, '--config', cfg, 'events', 'purge', 'ff:tty.ndjson', '--etype', 'R'].map((a) => `'${a}'`).join(' ');
        const p = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: h.dir, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let answered = false;
        p.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (!answered && out.includes('Proceed? [y/N]')) {
            answered = true;
            p.stdin.write(`${answer}\n`);
          }
        });
        p.on('exit', (code) => res({ code, out }));
      });
    const no = await ask('n');
    expect(no.out).toMatch(/would delete 2 records/);
    expect(no.out).toMatch(/nothing was deleted/);
    expect(no.code).toBe(1);
    expect(readFileSync(join(h.dir, 'tty.ndjson'), 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
    const yes = await ask('y');
    expect(yes.code).toBe(0);
    expect(yes.out).toMatch(/deleted 2 records/);
    expect(readFileSync(join(h.dir, 'tty.ndjson'), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });
});
