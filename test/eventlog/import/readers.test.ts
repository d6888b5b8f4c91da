// The readers on their own: framing detection, positions, truncated and damaged files, and the
// parsing of one text-log record.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { readLines } from '../../../src/eventlog/import/line-source.js';
import { emptyJsonReport, readSudoJson, type SudoJsonEvent } from '../../../src/eventlog/import/sudo-json-reader.js';
import { parseTextBody, splitCommand, unescapeOctal } from '../../../src/eventlog/import/sudo-text-parse.js';
import { emptyTextReport, readSudoText, type TextLogRecord } from '../../../src/eventlog/import/sudo-text-reader.js';
import type { ImportFormat } from '../../../src/eventlog/import/types.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { contents, fixture, importToMemory, sample, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function jsonEvents(file: string) {
  const report = emptyJsonReport();
  const events: SudoJsonEvent[] = [];
  for await (const e of readSudoJson(file, report)) events.push(e);
  return { events, report };
}

async function textRecords(file: string) {
  const report = emptyTextReport();
  const records: TextLogRecord[] = [];
  for await (const r of readSudoText(file, report)) records.push(r);
  return { records, report };
}

describe('line source', () => {
  it('gives exact byte offsets and line numbers, CRLF and a last line without newline included', async () => {
    const f = join(tmp.dir, 'lines.txt');
    writeFileSync(f, 'ab\r\nc\n\nh\u00e9llo');
    const lines = [];
    for await (const l of readLines(f, { readSize: 3 })) lines.push(l);
    expect(lines.map((l) => [l.text, l.start, l.end, l.line, l.complete])).toEqual([
      ['ab', 0, 4, 1, true],
      ['c', 4, 6, 2, true],
      ['', 6, 7, 3, true],
      ['h\u00e9llo', 7, 13, 4, false],
    ]);
  });

  it('reports an over-long line without decoding it and goes on', async () => {
    const f = join(tmp.dir, 'long.txt');
    writeFileSync(f, `x\n${'y'.repeat(100)}\nz\n`);
    const lines = [];
    for await (const l of readLines(f, { readSize: 8, maxLineBytes: 16 })) lines.push(l);
    expect(lines.map((l) => [l.text, l.oversized, l.start, l.end])).toEqual([
      ['x', false, 0, 2],
      ['', true, 2, 103],
      ['z', false, 103, 105],
    ]);
  });
});

describe('sudo JSON reader', () => {
  it('streams the pretty framing member by member, duplicate keys included, with positions', async () => {
    const { events, report } = await jsonEvents(sample('sudo-json.log'));
    expect(report.framing).toBe('pretty');
    expect(events.map((e) => e.kind)).toEqual(['accept', 'exit', 'accept', 'exit', 'accept', 'exit', 'accept', 'exit', 'reject', 'reject', 'reject', 'accept', 'exit']);
    const text = readFileSync(sample('sudo-json.log'));
    // Each event's text (its lines) holds its own member, and events tile the file.
    expect(events[0]!.start).toBe(2);
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const part = text.subarray(e.start, e.end).toString();
      expect(part.trimStart().startsWith(`"${e.kind}": {`)).toBe(true);
      if (i > 0) expect(e.start).toBe(events[i - 1]!.end);
    }
    expect(report.endOffset).toBe(text.length);
    expect(report.unterminated).toBe(false);
  });

  it('detects the compact and @cee: framings from the first line', async () => {
    expect((await jsonEvents(fixture('sudo-compact.json'))).report.framing).toBe('compact');
    const cee = await jsonEvents(fixture('syslog-json.log'));
    expect(cee.report.framing).toBe('cee');
    expect(cee.events.map((e) => e.kind)).toEqual(['accept', 'exit', 'accept', 'exit', 'accept', 'exit', 'reject']);
  });

  it('skips a damaged line of the compact framing and goes on', async () => {
    const lines = readFileSync(fixture('sudo-compact.json'), 'utf8').split('\n');
    const f = join(tmp.dir, 'compact-bad.json');
    writeFileSync(f, [lines[0], '{"accept": {"uuid": "x", broken', ...lines.slice(1)].join('\n'));
    const { events, report } = await jsonEvents(f);
    expect(events).toHaveLength(8);
    expect(report.badLines).toBe(1);
    expect(report.firstBadLine).toMatchObject({ line: 2, offset: lines[0]!.length + 1 });
    expect(report.stop).toBeNull();
  });

  it('stops at damaged data in the pretty framing, after every whole event before it', async () => {
    const text = readFileSync(sample('sudo-json.log'), 'utf8');
    const at = text.indexOf('    "reject"');
    const f = join(tmp.dir, 'pretty-bad.json');
    writeFileSync(f, `${text.slice(0, at)}    garbage here\n${text.slice(at)}`);
    const { events, report } = await jsonEvents(f);
    expect(events).toHaveLength(8);
    expect(report.stop).toMatchObject({ offset: at, truncated: false });
    expect(report.stop!.reason).toMatch(/not valid JSON at line 263/);
  });

  it('refuses a file that holds no sudo JSON at all', async () => {
    const f = join(tmp.dir, 'array.json');
    writeFileSync(f, '[1, 2, 3]\n');
    await expect(importToMemory('sudo-json', f)).rejects.toSatisfy((e: unknown) => isEvioError(e, 'IMPORT_NOT_RECOGNISED'));
    const ndjson = join(tmp.dir, 'evio.ndjson');
    writeFileSync(ndjson, '{"recnum":1,"uniqueid":"a","etype":"A","time":1,"runargv":["x"]}\n');
    await expect(importToMemory('sudo-json', ndjson)).rejects.toSatisfy((e: unknown) => isEvioError(e, 'IMPORT_NOT_RECOGNISED'));
    const text = join(tmp.dir, 'text.log');
    writeFileSync(text, 'hello\nworld\n');
    await expect(importToMemory('sudo-text', text)).rejects.toSatisfy((e: unknown) => isEvioError(e, 'IMPORT_NOT_RECOGNISED'));
  });

  it('an empty file imports nothing and is not an error', async () => {
    const f = join(tmp.dir, 'empty.json');
    writeFileSync(f, '');
    const { records, report } = await importToMemory('sudo-json', f);
    expect(records).toHaveLength(0);
    expect(report.stop).toBeNull();
  });
});

describe('sudo text reader', () => {
  it('joins continuation lines with one space and keeps the positions of the whole record', async () => {
    const { records, report } = await textRecords(sample('sudo-text.log'));
    expect(records).toHaveLength(10);
    expect(report.fileRecords).toBe(10);
    const r = records[7]!;
    expect(r.line).toBe(15);
    expect(r.body).toBe("HOST=vm ; TTY=pts/0 ; PWD=/tmp ; USER=nobody ; TSID=000004 ; COMMAND=/usr/bin/sh -c 'stty size; sleep 2; stty size; sleep 1' ; EXIT=0");
    const text = readFileSync(sample('sudo-text.log'), 'utf8');
    expect(text.slice(r.start, r.end).split('\n')).toHaveLength(4); // three lines and the final newline
  });

  it('joins syslog "(command continued)" parts and skips other programs\' lines', async () => {
    const { records, report } = await textRecords(fixture('syslog-text.log'));
    expect(records).toHaveLength(13);
    expect(report.otherLines).toBe(45);
    expect(records[2]!.body.endsWith('arg38 arg39 arg40')).toBe(true);
    expect(records[2]!.syslog).toEqual({ pri: 85, stamp: 'Nov 22 03:51:31', host: null, pid: null });
  });

  it('reads syslog lines with a host, a pid and ISO time stamps', async () => {
    const f = join(tmp.dir, 'iso-syslog.log');
    writeFileSync(
      f,
      [
        '2026-11-22T03:51:31.123456+00:00 web01 sudo[4242]:    alice : TTY=pts/3 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/id',
        '2026-11-22T03:51:31.223456+00:00 web01 sudo[4242]: pam_unix(sudo:session): session opened for user root',
        '2026-11-22T03:51:32.000000+00:00 web01 sudo[4242]:    alice : TTY=pts/3 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/id ; EXIT=0',
        '',
      ].join('\n'),
    );
    const { records } = await importToMemory('sudo-text', f);
    expect(records.map((r) => [r.etype, r.submithost, r.submituser, r.time])).toEqual([
      ['A', 'web01', 'alice', 1795319491.123456],
      ['F', 'web01', 'alice', 1795319492],
    ]);
    expect(records[1]!.uniqueid).toBe(records[0]!.uniqueid);
  });
});

describe('text record parsing', () => {
  it('takes COMMAND to the end, up to SIGNAL=/EXIT=, with " ; " inside', () => {
    const b = parseTextBody("HOST=vm ; PWD=/tmp ; USER=root ; TSID=000007 ; COMMAND=/bin/sh -c 'a ; b' ; SIGNAL=TERM ; EXIT=143");
    expect(b).toMatchObject({ kind: 'exit', exitValue: 143, signal: 'TERM', reason: null, argv: ['/bin/sh', '-c', 'a ; b'] });
    expect(b.fields).toEqual({ HOST: 'vm', PWD: '/tmp', USER: 'root', TSID: '000007', COMMAND: "/bin/sh -c 'a ; b'", SIGNAL: 'TERM', EXIT: '143' });
  });

  it('puts reasons first (with sudo\'s error string) and tells rejects from alerts', () => {
    expect(parseTextBody('3 incorrect password attempts ; TTY=pts/1 ; PWD=/ ; USER=root ; COMMAND=/bin/ls')).toMatchObject({ kind: 'reject', reason: '3 incorrect password attempts' });
    expect(parseTextBody('user NOT authorized on host ; unable to resolve host ; TTY=pts/1 ; PWD=/ ; USER=root ; COMMAND=/bin/ls')).toMatchObject({
      kind: 'reject',
      reason: 'user NOT authorized on host ; unable to resolve host',
    });
    expect(parseTextBody('/etc/sudoers.d/x:1:26: unknown defaults entry "y"')).toMatchObject({ kind: 'alert', reason: '/etc/sudoers.d/x:1:26: unknown defaults entry "y"' });
    expect(parseTextBody('problem with defaults entries ; TTY=pts/0 ; PWD=/tmp ; USER=root')).toMatchObject({ kind: 'alert', reason: 'problem with defaults entries' });
  });

  it('keeps ENV= whole up to COMMAND=', () => {
    expect(parseTextBody('PWD=/tmp ; USER=root ; ENV=A=1 B=x ; y ; COMMAND=/usr/bin/env').fields.ENV).toBe('A=1 B=x ; y');
  });

  it('undoes #ooo escapes and sudo\'s quoting of arguments', () => {
    expect(unescapeOctal('tab#011x#040y##')).toBe('tab\tx y##');
    expect(splitCommand(`/usr/bin/env FOO=bar sh -c 'printf \\'%s\\\\n\\' "tab#011x"'`)).toEqual(['/usr/bin/env', 'FOO=bar', 'sh', '-c', `printf '%s\\n' "tab\tx"`]);
    expect(splitCommand("/bin/echo '' x")).toEqual(['/bin/echo', '', 'x']);
    expect(splitCommand('/opt/my#040tool arg')).toEqual(['/opt/my tool', 'arg']);
  });
});

/** A cut of `file` at `at` bytes imports the events it holds whole, and says where it stopped. */
async function checkCut(format: ImportFormat, file: string, at: number, full: readonly StoredEvent[], ends: readonly number[], starts: readonly number[], ignore: string[] = [], dataEnds: readonly number[] = ends) {
  const f = join(tmp.dir, `cut-${at}`);
  writeFileSync(f, readFileSync(file).subarray(0, at));
  const { records, report } = await importToMemory(format, f, { year: 2026 });
  const strip = (rs: readonly StoredEvent[]) => contents(rs).map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !ignore.includes(k))));
  const whole = ends.filter((e) => e <= at).length;
  const begun = starts.filter((s) => s < at).length;
  expect(records.length, `cut at ${at}`).toBeGreaterThanOrEqual(whole);
  expect(records.length, `cut at ${at}`).toBeLessThanOrEqual(begun);
  expect(strip(records), `cut at ${at}`).toEqual(strip(full.slice(0, records.length)));
  // Data after the last whole event was not imported: the report says where it begins.
  if (records.length < begun) expect(report.stop, `cut at ${at}`).not.toBeNull();
  if (report.stop) {
    expect(report.stop.truncated, `cut at ${at}`).toBe(true);
    expect(report.stop.offset).toBeLessThanOrEqual(at);
    expect(report.stop.offset).toBeGreaterThanOrEqual(records.length ? dataEnds[records.length - 1]! : 0);
  }
}

describe('truncated files import every whole event and report where they stopped', () => {
  for (const [name, file] of [
    ['pretty', sample('sudo-json.log')],
    ['compact', fixture('sudo-compact.json')],
    ['cee', fixture('syslog-json.log')],
  ] as const) {
    it(`sudo-json, ${name} framing, cut every 23 bytes`, async () => {
      const { events } = await jsonEvents(file);
      const { records: full } = await importToMemory('sudo-json', file);
      const size = readFileSync(file).length;
      // An event has begun where its first non-blank byte is (a cut in the indentation begins nothing).
      const bytes = readFileSync(file);
      const starts = events.map((e) => {
        let i = e.start;
        while (i < e.end && (bytes[i] === 32 || bytes[i] === 10)) i++;
        return i;
      });
      for (let at = 0; at <= size; at += 23) await checkCut('sudo-json', file, at, full, events.map((e) => e.end), starts);
      for (const e of events) await checkCut('sudo-json', file, e.end, full, events.map((x) => x.end), starts);
    });
  }

  for (const [name, file] of [
    ['file log', sample('sudo-text.log')],
    ['syslog', fixture('syslog-text.log')],
  ] as const) {
    it(`sudo-text, ${name}, cut every 7 bytes`, async () => {
      const { records: recs } = await textRecords(file);
      const { records: full } = await importToMemory('sudo-text', file, { year: 2026 });
      const size = readFileSync(file).length;
      // A syslog record cut just before its "(command continued)" line looks whole: the format
      // cannot tell (docs/jobs.md); those cut points are left out.
      const text = readFileSync(file, 'utf8');
      const ambiguous = new Set<number>();
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
        if (text.slice(i + 1, text.indexOf('\n', i + 1)).includes('(command continued)')) ambiguous.add(i + 1);
      }
      // A syslog record is known whole once the line after it is (it might be continued).
      const ends = recs.map((r) => (r.syslog && r.end < size ? text.indexOf('\n', r.end) + 1 : r.end));
      // A K record cut off from its exit cannot learn its full TSID, so iolog may differ.
      for (let at = 0; at <= size; at += 7) {
        if (!ambiguous.has(at)) await checkCut('sudo-text', file, at, full, ends, recs.map((r) => r.start), ['iolog'], recs.map((r) => r.end));
      }
    });
  }
});
