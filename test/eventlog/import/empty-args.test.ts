// Empty arguments in sudo's text log (fixtures/eventlog/*-empty.log, recorded with Debian's sudo
// 1.9.13p3, see the README there): sudo joins argv with single spaces, so N+1 spaces between two
// arguments mean N empty ones, and a trailing space a trailing empty one. The JSON log of the
// same commands is the ground truth.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitCommand } from '../../../src/eventlog/import/sudo-text-parse.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { fixture, importToMemory, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const argvs = (rs: readonly StoredEvent[], etype: string) => rs.filter((r) => r.etype === etype).map((r) => r.runargv);

async function jsonTruth(): Promise<unknown[]> {
  const { records } = await importToMemory('sudo-json', fixture('sudo-json-empty.log'));
  return argvs(records, 'K').length ? argvs(records, 'K') : argvs(records, 'A');
}

describe('empty arguments in the text log', () => {
  it('splitCommand: runs of spaces and a trailing space are empty arguments', () => {
    expect(splitCommand('/bin/echo  end')).toEqual(['/bin/echo', '', 'end']);
    expect(splitCommand('/bin/echo a   b')).toEqual(['/bin/echo', 'a', '', '', 'b']);
    expect(splitCommand('/bin/echo ')).toEqual(['/bin/echo', '']);
    expect(splitCommand('/bin/echo a  ')).toEqual(['/bin/echo', 'a', '', '']);
    expect(splitCommand(";  ;")).toEqual([';', '', ';']);
    expect(splitCommand("/bin/echo 'a b'  z")).toEqual(['/bin/echo', 'a b', '', 'z']);
    expect(splitCommand('/bin/ls')).toEqual(['/bin/ls']);
  });

  it('the JSON log of the same commands: the ground truth', async () => {
    const truth = await jsonTruth();
    expect(truth).toHaveLength(8);
    expect(truth.slice(0, 3)).toEqual([['/bin/echo', '', 'end'], ['/bin/echo', 'a', '', '', 'b'], ['/bin/echo', '']]);
  });

  it('syslog lines (no wrapping): accepts and exits have the argv of the JSON log', async () => {
    const truth = await jsonTruth();
    const { records, report } = await importToMemory('sudo-text', fixture('syslog-text-empty.log'), { year: 2026 });
    expect(report.events).toEqual({ accept: 8, exit: 8 });
    expect(argvs(records, 'A')).toEqual(truth);
    expect(argvs(records, 'F')).toEqual(truth);
    // Each exit is joined to its accept.
    expect(records.filter((r) => r.etype === 'F').map((r) => r.uniqueid)).toEqual(records.filter((r) => r.etype === 'A').map((r) => r.uniqueid));
    expect(records.some((r) => r.sudo_argv_uncertain !== undefined)).toBe(false);
  });

  it('file log (wrapped at 80 columns): the argv of the JSON log, but where a wrap may have eaten spaces', async () => {
    const truth = await jsonTruth();
    const { records, report } = await importToMemory('sudo-text', fixture('sudo-text-empty.log'));
    expect(report.events).toEqual({ accept: 8, exit: 8 });
    const accepts = records.filter((r) => r.etype === 'A');
    const exits = records.filter((r) => r.etype === 'F');
    expect(exits.map((r) => r.uniqueid)).toEqual(accepts.map((r) => r.uniqueid));
    // Command 7 (`echo abcdef '' '' z`) broke at column 80 inside its run of 3 spaces: the line
    // keeps one, the wrap ate two, and how many it ate is not in the text. It keeps the fewest
    // empty arguments the text allows and says so.
    const expected = truth.map((a, i) => (i === 6 ? ['/bin/echo', 'abcdef', '', 'z'] : a));
    expect(argvs(records, 'A')).toEqual(expected);
    expect(argvs(records, 'F')).toEqual(expected);
    expect(records.map((r) => r.sudo_argv_uncertain === true)).toEqual(records.map((_, i) => i === 12 || i === 13));
  });

  it('a trailing empty argument on a trimmed accept line is lost, but the accept still joins its exit', async () => {
    // The file log with the trailing spaces of its lines removed, as a syslog daemon or an editor may.
    const trimmed = join(tmp.dir, 'trimmed.log');
    writeFileSync(trimmed, readFileSync(fixture('sudo-text-empty.log'), 'utf8').replace(/ +$/gm, ''));
    const { records } = await importToMemory('sudo-text', trimmed);
    // `echo ''`: the accept shows no argument, its exit line keeps the space before " ; EXIT=".
    expect(records[4]).toMatchObject({ etype: 'A', runargv: ['/bin/echo'], sudo_fields: { COMMAND: '/bin/echo' } });
    expect(records[5]).toMatchObject({ etype: 'F', runargv: ['/bin/echo', ''], uniqueid: records[4]!.uniqueid });
    // `echo a '' ''`: the same, with two.
    expect(records[6]).toMatchObject({ etype: 'A', runargv: ['/bin/echo', 'a'] });
    expect(records[7]).toMatchObject({ etype: 'F', runargv: ['/bin/echo', 'a', '', ''], uniqueid: records[6]!.uniqueid });
  });

  it('syslog "(command continued)": a piece without spaces was cut, not broken at a space; a piece ending in spaces may have lost some', async () => {
    const json = await importToMemory('sudo-json', fixture('sudo-json-split.log'));
    const truth = argvs(json.records, 'A');
    expect(truth.map((a) => (a as string[]).length)).toEqual([27, 3]);
    const { records, report } = await importToMemory('sudo-text', fixture('syslog-text-split.log'), { year: 2026 });
    expect(report.events).toEqual({ accept: 2, exit: 2 });
    // `echo abcdefghijklmnopqrstuvwxyz0123456789... z`: cut twice inside its long argument.
    expect(records[2]).toMatchObject({ etype: 'A', runargv: truth[1] });
    expect(records[3]).toMatchObject({ etype: 'F', runargv: truth[1], uniqueid: records[2]!.uniqueid });
    expect(records[2]!.sudo_argv_uncertain).toBeUndefined();
    // `echo abcdefghijklmn '' x24 z`: the piece ends with 18 of the 25 spaces, 7 were dropped at
    // the break; the join puts one back: 19 spaces (18 empty arguments of 24), marked uncertain.
    expect((truth[0] as string[]).filter((a) => a === '')).toHaveLength(24);
    const kept = ['/bin/echo', 'abcdefghijklmn', ...Array<string>(18).fill(''), 'z'];
    expect(records[0]).toMatchObject({ etype: 'A', runargv: kept, sudo_argv_uncertain: true });
    expect(records[1]).toMatchObject({ etype: 'F', runargv: kept, sudo_argv_uncertain: true, uniqueid: records[0]!.uniqueid });
  });
});
