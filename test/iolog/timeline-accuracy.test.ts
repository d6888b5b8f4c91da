// The measurement of the command timeline against the shells' own truth
// (scripts/timeline-accuracy.mjs): its truth parsers and alignment, and that docs/iolog.md
// shows the figures the script gives today on fixtures/iolog/timeline-corpus (so an
// improvement, or a regression, cannot leave the documented figures behind).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types
import { parseTruth, score, timelineCommands } from '../../scripts/timeline-accuracy.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('truth files, as each shell writes them', () => {
  it("bash's HISTFILE with timestamps: a multi-line command is one entry; a completion's blank is dropped", () => {
    expect(parseTruth('#1\nls /etc/sysctl.conf \n#2\nfor i in 1 2\ndo echo $i\ndone\n#3\ncat <<EOF\nx\nEOF\n\n')).toEqual(['ls /etc/sysctl.conf', 'for i in 1 2\ndo echo $i\ndone', 'cat <<EOF\nx\nEOF']);
  });
  it("zsh's extended history: a newline inside a command is a backslash at the end of the line", () => {
    expect(parseTruth(': 17:0;echo a\n: 18:0;for i in a b\\\necho $i\n: 19:0;exit\n')).toEqual(['echo a', 'for i in a b\necho $i', 'exit']);
  });
  it('plain lines (bash without timestamps, dash bytes typed)', () => {
    expect(parseTruth('echo a\n\necho ab\x1b[DX\n')).toEqual(['echo a', 'echo ab\x1b[DX']);
  });
});

describe('alignment', () => {
  it('counts a multi-line command typed as consecutive lines, and a continued line without its backslash', () => {
    const r = score(['echo a', 'for i in 1 2\ndo echo $i\ndone', 'echo one two'], ['echo a', 'for i in 1 2', 'do echo $i', 'done', 'echo one \\', 'two']);
    expect([r.matched, r.precision, r.recall, r.missed, r.extra]).toEqual([3, 1, 1, [], []]);
  });
  it('an extra entry lowers precision, a missed command recall', () => {
    const r = score(['echo a', 'echo b', 'echo c'], ['echo a', 'print(6*7)', 'echo c']);
    expect([r.matched, r.precision, r.recall, r.missed, r.extra]).toEqual([2, 2 / 3, 2 / 3, ['echo b'], ['print(6*7)']]);
  });
  it('a timeline entry is what the terminal showed when there is one; hidden entries and lines typed to another program are not commands', () => {
    expect(timelineCommands([{ line: 'six', shown: 'echo six' }, { line: '', hidden: true }, { line: ':q!', program: true }, { line: 'ls ' }])).toEqual(['echo six', 'ls']);
  });
});

describe('docs/iolog.md', () => {
  it('shows the figures the script measures today', () => {
    const out = execFileSync(process.execPath, [`${ROOT}/scripts/timeline-accuracy.mjs`], { encoding: 'utf8' });
    const table = out.split('\n').filter((l) => l.startsWith('|'));
    expect(table.length).toBeGreaterThan(3);
    const doc = readFileSync(`${ROOT}/docs/iolog.md`, 'utf8');
    for (const row of table) expect(doc).toContain(row);
  }, 120_000);
});
