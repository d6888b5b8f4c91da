// Typed input on real sudo sessions (fixtures/iolog/sudo-typed, recorded through tmux): the
// command timeline, search of typed lines, passwords typed at no-echo prompts kept out of
// search, and the round trip search hit → `screen --at` → the hit is on that screen.
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologChunk, iologCommands, iologScreen, iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import type { SearchMatch } from '../../src/iolog/search.js';
import { copyTree, makeEngine, removeDir, tempDir } from './helpers.js';

const FIXTURES = new URL('../../fixtures/iolog/sudo-typed', import.meta.url).pathname;
const bin = new URL('../../bin/evio.js', import.meta.url).pathname;

let root: string;
let engine: Engine;
let open: Engine;

beforeAll(() => {
  root = tempDir('evio-typed-');
  copyTree(FIXTURES, root);
  for (const s of ['01', '02']) chmodSync(join(root, '00/00', s, 'timing'), 0o400); // sudo's complete mark
  engine = makeEngine([root]);
  open = makeEngine([root], { searchHiddenInput: true });
});
afterAll(async () => {
  await engine.close();
  await open.close();
  removeDir(root);
});

async function search(e: Engine, file: string, query: string): Promise<Array<SearchMatch & { file: string }>> {
  const run = await iologSearch(e, { file, query, detail: '1' });
  const answer = new SearchAnswer();
  for await (const _ of matchingPaths(run, answer)) void _;
  expect(answer.warnings).toEqual([]);
  return answer.detail;
}

describe('command timeline of real sessions', () => {
  it('lists what was entered, edited, recalled, completed, and blanks the passwords', async () => {
    const c = await iologCommands(engine, { file: '00/00/01' });
    expect(c.warnings).toEqual([]);
    expect(c.log.map((e) => [e.line, e.recalled ?? e.completed ?? e.edited ?? e.hidden ?? false])).toEqual([
      ['cd ~', false],
      ['ls --color=auto -la', false],
      ['stty size', false],
      ['', true], // ↑ ↑ ⏎: recalled
      ['echo hello world', true],
      ['echo aXbc', true],
      ['cat /etc/hostn', true],
      ['true', true],
      ['echo one four', true],
      ['sleep 30', false],
      [`PROMPT_COMMAND='printf "\\e]7;file://%s%s\\a" "$HOSTNAME" "$PWD"'`, false],
      ['cd /var/tmp', false],
      ['pwd', false],
      ['su -c true', false],
      ['', true], // hunter2 at Password:
      ['passwd', false],
      ['', true], // Sesame42 at Current password:
      ['read -s -p "Enter value: " x', false],
      ['', true], // w1zard, not echoed
      ['echo ${#x}', false],
      ['exit', false],
    ]);
    const byLine = new Map(c.log.map((e) => [e.line, e]));
    // what the shell showed of a recalled / completed line
    expect(c.log[3]).toMatchObject({ recalled: true, shown: 'ls --color=auto -la' });
    expect(byLine.get('cat /etc/hostn')).toMatchObject({ completed: true, shown: 'cat /etc/hostname' });
    // directories: log.json's at the start, the prompt's, then OSC 7's
    expect(c.log[0]!.cwd).toBe('/work/main');
    expect(byLine.get('stty size')!.cwd).toBe('~');
    expect(byLine.get('cd /var/tmp')!.cwd).toBe('/tmp/typedin-home'); // OSC 7 says where ~ is
    expect(byLine.get('pwd')!.cwd).toBe('/var/tmp');
    // the next prompt: after the Enter; the password prompt of su is not a shell prompt
    for (const e of c.log.slice(0, -1)) expect(e.prompt_at).toBeGreaterThanOrEqual(e.at);
    expect(byLine.get('su -c true')!.prompt_at! - byLine.get('su -c true')!.at).toBeGreaterThan(2); // su's failure delay
    expect(c.log.at(-1)!.prompt_at).toBeUndefined(); // exit: no prompt after it
    expect(c.exit).toBeUndefined(); // local sudo logs never record the exit status
  });

  it('offsets point at the Enter byte of the data stream', async () => {
    const c = await iologCommands(engine, { file: '00/00/02' });
    for (const e of c.log) {
      const chunk = await iologChunk(engine, { file: '00/00/02', start: String(e.offset), len: '1' });
      const blob = chunk.items.find((i): i is { blob: string; blen: number; cmd: string } => 'blob' in i);
      expect(blob?.cmd).toBe('ttyin');
      expect(Buffer.from(blob!.blob, 'base64').toString()).toBe('\r');
    }
    expect(c.log.map((e) => [e.line, e.pasted ?? e.recalled ?? e.edited ?? e.hidden ?? false])).toEqual([
      ['cd /tmp', false],
      ['echo pasted-one', true],
      ['echo hello world!', true],
      ['uname -s', false],
      ['unam', true], // ^R search: flagged, not guessed
      ['sudo -k true', false],
      ['', true], // opensesame at [sudo] password for typedin:
      ['echo This is a rather long line that will wrap past the eighty columns of this terminal window ok', false],
      ['exit', false],
    ]);
  });

  it('evio iolog commands prints NDJSON; the REST call answers {log, file, status}', () => {
    const cfg = join(root, '..', `typed-cfg-${process.pid}.json`);
    writeFileSync(cfg, JSON.stringify({ iologdirs: [root], home: join(root, '..', `typed-home-${process.pid}`) }));
    const r = spawnSync(process.execPath, [bin, '--config', cfg, 'iolog', 'commands', '00/00/01'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(22);
    expect(lines[2]).toMatchObject({ line: 'stty size', stream: 'ttyin', cwd: '~' });
    expect(lines.at(-1)).toEqual({ file: join(root, '00/00/01'), commands: 21, status: 0 });
    const rest = spawnSync(process.execPath, [bin, '--config', cfg, 'call', 'GET', '/REST/iolog/commands?file=00/00/02'], { encoding: 'utf8', timeout: 60_000 });
    const body = JSON.parse(rest.stdout) as { log: Array<{ line: string }>; file: string; status: number };
    expect(body.status).toBe(0);
    expect(body.file).toBe(join(root, '00/00/02'));
    expect(body.log.map((e) => e.line)).toContain('echo pasted-one');
  });
});

describe('search of typed input in real sessions', () => {
  it('finds commands as typed, case-insensitively too', async () => {
    expect((await search(engine, '**', 'ttyin:stty')).map((h) => h.line)).toEqual(['stty size']);
    expect((await search(engine, '**', 'input:(?i)^ECHO HELLO')).map((h) => h.line)).toEqual(['echo hello world', 'echo hello world!']);
    expect((await search(engine, '**', 'input:(?i)^U.AM')).map((h) => h.line)).toEqual(['uname -s', 'unam']);
  });

  it('never finds a password typed at a no-echo prompt, unless searchHiddenInput is set', async () => {
    for (const secret of ['hunter2', 'Sesame42', 'w1zard', 'opensesame']) {
      expect(await search(engine, '**', `any:${secret}`)).toEqual([]);
      expect((await search(open, '**', `input:${secret}`)).map((h) => h.line)).toEqual([secret]);
    }
  });

  it('a hit\'s at, given to screen --at as is, shows the hit', async () => {
    let checked = 0;
    for (const file of ['00/00/01', '00/00/02']) {
      const hits = await search(engine, file, 'any:.');
      const cols = file.endsWith('01') ? 100 : 80;
      for (const h of hits) {
        if (h.line.length > cols - 20 || h.stream === 'ttyin' && h.line === '') continue;
        const screen = await iologScreen(engine, { file, at: String(h.at) });
        const rows = screen.lines.map((r) => r.trimEnd());
        // a typed line is on the prompt's row (completed: as the start of what the shell completed)
        const shown = rows.some((r) => r.includes(h.line));
        expect({ hit: h, shown, rows }).toEqual({ hit: h, shown: true, rows });
        // and the moment before it, a millisecond earlier, does not show a typed line yet
        if (h.stream === 'ttyin' && h.line === 'stty size') {
          const before = await iologScreen(engine, { file, at: String(h.time / 1000) });
          expect(before.lines.some((r) => r.trimEnd().endsWith('stty size'))).toBe(false);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  }, 120_000);
});
