// The command timeline against the shell's own record of what it ran: real sudo sessions
// (fixtures/iolog/timeline-corpus, recorded through tmux by its record.sh) in which commands
// were edited (emacs and vi mode), recalled, searched with ^R and completed, and secrets typed
// at no-echo prompts (`read -s`, sudo's password prompt). bash wrote every command it ran to
// the truth file of the session (HISTFILE with `history -a` before each prompt).
// An edited command must never be hidden (hiding it is an evasion hole: edit once and the
// auditor never sees it); a secret must never be shown.
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologCommands, iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import type { SearchMatch } from '../../src/iolog/search.js';
import { copyTree, makeEngine, removeDir, tempDir } from './helpers.js';

const FIXTURES = new URL('../../fixtures/iolog/timeline-corpus', import.meta.url).pathname;

/** The secrets typed in each session (at `read -s` and at sudo's password prompt), never echoed. */
const SECRETS: Record<string, string[]> = {
  '01': ['tok3n-XyZzy', 'vtp@m/tp', 'p4ss-at-0nce', 'Tr0ub4dor-Evio'],
  '02': ['vi-s3cret'],
};
/** And in session 06 (bash, `read -s -p "PIN: "`; 08 types sudo's password again), whose truth has timestamps (timeline-accuracy measures them). */
const ALL_SECRETS = [...Object.values(SECRETS).flat(), '9876-zq'];

let root: string;
let engine: Engine;
let open: Engine;

beforeAll(() => {
  root = tempDir('evio-timeline-');
  copyTree(FIXTURES, root);
  for (const s of ['01', '02', '03', '04', '05']) chmodSync(join(root, '00/00', s, 'timing'), 0o400); // sudo's complete mark
  engine = makeEngine([root]);
  open = makeEngine([root], { searchHiddenInput: true });
});
afterAll(async () => {
  await engine.close();
  await open.close();
  removeDir(root);
});

function truth(session: string): string[] {
  return readFileSync(join(FIXTURES, 'truth', session), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.trimEnd());
}

async function search(e: Engine, file: string, query: string): Promise<Array<SearchMatch & { file: string }>> {
  const run = await iologSearch(e, { file, query, detail: '1' });
  const answer = new SearchAnswer();
  for await (const _ of matchingPaths(run, answer)) void _;
  expect(answer.warnings).toEqual([]);
  return answer.detail;
}

describe('command timeline against what the shell ran', () => {
  for (const session of Object.keys(SECRETS)) {
    it(`session ${session}: every command run is in the timeline, not hidden, as run; only the secrets are hidden`, async () => {
      const c = await iologCommands(engine, { file: `00/00/${session}` });
      expect(c.warnings).toEqual([]);
      const shownLines = c.log.filter((e) => !e.hidden).map((e) => e.shown ?? e.line);
      expect(shownLines).toEqual(truth(session));
      // the hidden ones are the secrets, blanked
      const hidden = c.log.filter((e) => e.hidden);
      expect(hidden.map((e) => e.line)).toEqual(SECRETS[session]!.map(() => ''));
      // with hidden lines kept (searchHiddenInput), they are exactly the secrets typed
      const kept = await iologCommands(open, { file: `00/00/${session}` });
      expect(kept.log.filter((e) => e.hidden).map((e) => e.line)).toEqual(SECRETS[session]);
      const json = JSON.stringify(c);
      for (const s of ALL_SECRETS) expect(json).not.toContain(s);
    });
  }

  it('edited commands are not hidden and keep the text as edited (emacs mode)', async () => {
    const c = await iologCommands(engine, { file: '00/00/01' });
    const find = (line: string) => c.log.find((e) => e.line === line);
    expect(find('ls -h -l /etc/hosts')).toMatchObject({ edited: true }); // ^A Alt-F " -h"
    expect(find('ls -h -l /etc/hosts')).not.toHaveProperty('hidden');
    expect(find('echo one four five')).toMatchObject({ edited: true }); // ^U, ^W ^W, ^A Alt-F ^E
    expect(find('echo one four five')).not.toHaveProperty('hidden');
    expect(find('echo aXbc')).not.toHaveProperty('hidden');
    // ↑ then ^W "six": the typed part, and what the shell showed
    expect(c.log[2]).toMatchObject({ line: 'six', shown: 'echo one four six', recalled: true, edited: true });
    expect(c.log[2]).not.toHaveProperty('hidden');
    // ^R: the search text typed, and the line the shell ran
    expect(c.log[4]).toMatchObject({ line: 'hosts', shown: 'ls -h -l /etc/hosts', recalled: true });
    expect(c.log[5]).toMatchObject({ line: 'six seven', shown: 'echo one four six seven', recalled: true });
  });

  it('vi mode: edited commands are not hidden', async () => {
    const c = await iologCommands(engine, { file: '00/00/02' });
    const run = truth('02');
    expect(c.log.length).toBe(run.length + 1); // + the secret
    expect(c.log.filter((e) => e.hidden).length).toBe(1);
  });
});

describe('search of typed input over the corpus', () => {
  it('a ttyin search finds the edited commands', async () => {
    expect((await search(engine, '00/00/01', 'ttyin:ls -h -l /etc/hosts$')).map((h) => h.line)).toEqual(['ls -h -l /etc/hosts', 'ls -h -l /etc/hosts']); // typed, and found again with ^R
    expect((await search(engine, '00/00/01', 'ttyin:echo one four five')).map((h) => h.line)).toEqual(['echo one four five']);
    expect((await search(engine, '00/00/02', 'ttyin:^echo hello')).length).toBeGreaterThan(0);
  });

  it('finds a recalled, searched (^R), completed or vi-mode line as the shell showed it, once', async () => {
    expect((await search(engine, '00/00/01', 'ttyin:echo one four six$')).map((h) => h.line)).toEqual(['echo one four six']); // ↑ ^W six
    expect((await search(engine, '00/00/01', 'ttyin:cat /etc/hostname')).map((h) => h.line)).toEqual(['cat /etc/hostname']); // Tab
    expect((await search(engine, '00/00/02', 'ttyin:echo hello world$')).map((h) => h.line)).toEqual(['echo hello world']); // vi: b l i o
    // `echo one \` then `two` at the continuation prompt: found as the shell joined it
    expect((await search(engine, '00/00/03', 'ttyin:echo one two')).map((h) => h.line)).toEqual(['echo one two']);
    // history expansion: found as bash expanded it
    expect((await search(engine, '00/00/03', 'ttyin:echo daemon daemon')).map((h) => h.line)).toEqual(['echo daemon daemon']);
    // typed as `ls -l /etc/hosts` and edited in vi mode: typed text and shown line both match, one hit
    expect((await search(engine, '00/00/02', 'ttyin:^ls')).map((h) => h.line)).toEqual(['ls -l /etc/hostswi-h']);
  });

  it('never finds a secret, unless searchHiddenInput is set', async () => {
    for (const s of ALL_SECRETS) {
      expect(await search(engine, '**', `any:${s.replace(/[@/]/g, '.')}`)).toEqual([]);
      expect(await search(engine, '**', `ttyin:${s.slice(0, 4)}`)).toEqual([]);
      // (sudo's password is typed in 01 and in 08)
      expect((await search(open, '**', `input:${s.replace(/[@/]/g, '.')}`)).map((h) => h.line)).toEqual(s === 'Tr0ub4dor-Evio' ? [s, s] : [s]);
    }
    // nor any typed line holding one
    const lines = (await search(engine, '**', 'ttyin:.')).map((h) => h.line);
    expect(lines.length).toBeGreaterThan(20);
    for (const l of lines) for (const s of ALL_SECRETS) expect(l).not.toContain(s);
  });
});
