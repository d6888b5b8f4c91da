// The audit log's whole family is protected, not only the live file: its rotated files (made by
// evio events rotate, plain or gzipped, or named by logrotate) and the files kept beside it
// cannot be deleted from, purged, appended, copied or imported into, written over by an export,
// or rotated away, through REST or the CLI. Before, `DELETE /REST/v2.0/events?format=ff&file=audit.ndjson.<stamp>&all=1`
// emptied a rotated audit file (the attack review removed 697 of 697 records), and the CLI could
// append forged records to the live file.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvents, copyEvents } from '../../src/app/events.js';
import { importEvents } from '../../src/app/events-import.js';
import { rotateEvents } from '../../src/app/events-rotate.js';
import { Engine } from '../../src/engine.js';
import { toEvioError } from '../../src/errors.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import type { RunningServer } from '../../src/http/server.js';
import { makeHome, serverPerTest, serve, signed, type TestHome } from '../http/server/helpers.js';

const bin = join(import.meta.dirname, '../../bin/evio.js');

function writeLog(path: string, count: number): void {
  writeFileSync(path, `${[...generateEvents({ count, seed: 7 })].map((r) => JSON.stringify(r)).join('\n')}\n`);
}

async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (err) {
    return toEvioError(err).code;
  }
}

function cli(home: TestHome, args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVIO_HOME: home.dir, EVIO_CONFIG: '' },
    timeout: 60_000,
    ...(input !== undefined ? { input } : {}),
  });
}

describe("the audit log's family", () => {
  const held = serverPerTest();

  /** A server whose audit log has `calls` DELETEs recorded, rotated twice (the second compressed). */
  async function rotatedAudit(calls: number): Promise<{ h: TestHome; s: RunningServer; plain: string; gz: string }> {
    const h = makeHome();
    held.home = h;
    writeLog(join(h.dir, 'events.ndjson'), 10);
    const s = await serve(h);
    held.server = s;
    const del = () => signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&submituser=nobody-matches');
    for (let i = 0; i < calls; i++) expect((await del()).http).toBe(200);
    const first = await rotateEvents(h.engine, { file: h.settings.auditlog });
    expect(first.rotated).toBe(true);
    for (let i = 0; i < calls; i++) expect((await del()).http).toBe(200);
    const second = await rotateEvents(h.engine, { file: h.settings.auditlog, compress: true });
    expect(second.compressedTo).toMatch(/\.gz$/);
    return { h, s, plain: first.rotatedTo!, gz: second.compressedTo! };
  }

  it('REST: a DELETE or purge of a rotated audit file, plain or gzipped, or a logrotate-named one, is 1622 and changes nothing', async () => {
    const { h, s, plain, gz } = await rotatedAudit(6);
    // A copy under logrotate's numbering, as an operator's logrotate would have left it.
    const numbered = `${h.settings.auditlog}.1`;
    copyFileSync(plain, numbered);
    const before = new Map([plain, gz, numbered].map((p) => [p, readFileSync(p)]));
    const recordsOf = async (name: string) => ((await signed(s, 'admin', 'GET', `/REST/v2.0/events?format=ff&file=${name}&dump=1&limit=1000`)).body.events as unknown[]).length;
    const plainName = plain.slice(h.dir.length + 1);
    expect(await recordsOf(plainName)).toBe(11); // 6 A + 6 F - the record that moved into the new live file

    for (const p of [plain, gz, numbered]) {
      const name = p.slice(h.dir.length + 1);
      const del = await signed(s, 'admin', 'DELETE', `/REST/v2.0/events?format=ff&file=${name}&all=1`);
      expect([name, del.http, del.body.status]).toEqual([name, 403, 1622]);
      const purge = await signed(s, 'admin', 'DELETE', `/REST/v2.0/events/iologs?format=ff&file=${name}&all=1`);
      expect([name, purge.http, purge.body.status]).toEqual([name, 403, 1622]);
    }
    // A file kept beside the audit log (its lock, journal or skip index) is no event store either.
    writeFileSync(`${h.settings.auditlog}.evidx`, '');
    const side = await signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=audit.ndjson.evidx&all=1');
    expect([side.http, side.body.status]).toEqual([403, 1622]);

    for (const [p, bytes] of before) expect(readFileSync(p).equals(bytes)).toBe(true);
    expect(await recordsOf(plainName)).toBe(11);
  });

  it('CLI: delete, purge and rotate of a rotated audit file are 1622; append, copy and import into any audit file 1636; each refusal is recorded', async () => {
    const { h, plain } = await rotatedAudit(3);
    await held.server!.close();
    held.server = undefined;
    const plainBytes = readFileSync(plain);
    const events = join(h.dir, 'events.ndjson');
    const sudoJson = join(h.dir, 'sudo.json');
    writeFileSync(sudoJson, '');

    const refusals: Array<[string[], number, string?]> = [
      [['events', 'delete', `ff:${plain}`, '--all'], 1622],
      [['events', 'purge', `ff:${plain}`, '--all', '--yes'], 1622],
      [['events', 'rotate', plain], 1622],
      [['events', 'append', `ff:${h.settings.auditlog}`], 1636, `${JSON.stringify({ etype: 'A', time: 1, submituser: 'forged', submithost: 'h', runuser: 'root', runhost: 'h', runcommand: 'x', uniqueid: 'forged-1' })}\n`],
      [['events', 'append', `ff:${plain}`], 1636, `${JSON.stringify({ etype: 'A', time: 1, submituser: 'forged', submithost: 'h', runuser: 'root', runhost: 'h', runcommand: 'x', uniqueid: 'forged-2' })}\n`],
      [['events', 'copy', '--from', `ff:${events}`, '--to', `ff:${h.settings.auditlog}`], 1636],
      [['events', 'copy', '--from', `ff:${events}`, '--to', `ff:${h.settings.auditlog}.20990101T000000Z`], 1636],
    ];
    // Output files: an export or a generated log renamed or written over the audit log would replace it.
    const outputs: Array<[string[], number]> = [
      [['events', 'export', `ff:${events}`, '--out', h.settings.auditlog], 1636],
      [['events', 'export', `ff:${events}`, '--out', `${h.settings.auditlog}.20990101T000000Z`], 1636],
      [['generate', 'events', '--count', '5', '--out', h.settings.auditlog], 1636],
      [['generate', 'sessions', '--count', '1', '--out', `${h.settings.auditlog}-20990101`], 1636],
    ];
    const liveBefore = readFileSync(h.settings.auditlog);
    for (const [args, code] of outputs) {
      const r = cli(h, args);
      expect([args.join(' '), r.status, r.stderr.match(/\b(16\d\d)\b/)?.[1]]).toEqual([args.join(' '), 1, String(code)]);
    }
    expect(readFileSync(h.settings.auditlog).equals(liveBefore)).toBe(true);
    for (const [args, code, input] of refusals) {
      const r = cli(h, args, input);
      expect([args.join(' '), r.status, r.stderr.match(/\b(16\d\d)\b/)?.[1]]).toEqual([args.join(' '), 1, String(code)]);
    }
    // The import's door, in-process (the CLI calls the same function).
    const engine = new Engine(h.settings);
    try {
      expect(await codeOf(importEvents(engine, { format: 'sudo-json', file: sudoJson, to: `ff:${h.settings.auditlog}` }))).toBe(1636);
      expect(await codeOf(appendEvents(engine, `ff:${h.settings.auditlog}-20990101`, []))).toBe(1636);
      expect(await codeOf(copyEvents(engine, { from: `ff:${events}`, to: `ff:${h.settings.auditlog}.gz` }))).toBe(1636);
    } finally {
      await engine.close();
    }

    expect(readFileSync(plain).equals(plainBytes)).toBe(true);
    expect(readdirSync(h.dir).filter((n) => n.includes('20990101'))).toEqual([]);
    const live = readFileSync(h.settings.auditlog, 'utf8');
    expect(live).not.toContain('forged');
    // Every CLI refusal is itself in the audit log.
    const recorded = live.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { runcommand: string; exitstatus?: string }).filter((r) => r.runcommand.startsWith('evio ') && r.exitstatus);
    expect(recorded.map((r) => [r.runcommand, r.exitstatus!.slice(0, 4)])).toEqual([
      ['evio events delete', '1622'],
      ['evio events purge', '1622'],
      ['evio events rotate', '1622'],
      ['evio events append', '1636'],
      ['evio events append', '1636'],
      ['evio events copy', '1636'],
      ['evio events copy', '1636'],
    ]);
  }, 120_000);

  it('retention: evio events rotate AUDIT --remove-older-than removes whole old rotated files and records each', async () => {
    const { h, plain, gz } = await rotatedAudit(2);
    await held.server!.close();
    held.server = undefined;
    // Two files rotated long ago (their stamps say so), one gzipped, each with a skip index beside it.
    const old1 = `${h.settings.auditlog}.20200101T000000Z`;
    const old2 = `${h.settings.auditlog}.20200201T000000Z.gz`;
    copyFileSync(plain, old1);
    copyFileSync(gz, old2);
    writeFileSync(`${old1}.evidx`, 'x');
    const oldSize = readFileSync(old1).length;

    const dry = cli(h, ['events', 'rotate', h.settings.auditlog, '--remove-older-than', '365d', '--dry-run']);
    expect(dry.status).toBe(0);
    expect((JSON.parse(dry.stdout) as { removed: Array<{ path: string }> }).removed.map((r) => r.path)).toEqual([old1, old2]);
    expect(readdirSync(h.dir)).toContain('audit.ndjson.20200101T000000Z');

    const run = cli(h, ['events', 'rotate', h.settings.auditlog, '--remove-older-than', '365d']);
    expect(run.stderr).toMatch(/^removed 2 rotated files/);
    expect((JSON.parse(run.stdout) as { removed: Array<{ path: string; size: number; rotatedAt: string }> }).removed).toEqual([
      { path: old1, size: oldSize, rotatedAt: '2020-01-01T00:00:00.000Z' },
      { path: old2, size: readFileSync(gz).length, rotatedAt: '2020-02-01T00:00:00.000Z' },
    ]);
    const left = readdirSync(h.dir).filter((n) => n.startsWith('audit.ndjson'));
    expect(left.filter((n) => !n.endsWith('.evidx')).sort()).toEqual(['audit.ndjson', plain.slice(h.dir.length + 1), gz.slice(h.dir.length + 1)].sort());
    expect(left.filter((n) => n.includes('2020'))).toEqual([]); // the skip index went with its file

    // The removal is in the audit log, naming every file; the dry run is not.
    const recorded = readFileSync(h.settings.auditlog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.runcommand === 'evio events rotate');
    expect(recorded.map((r) => r.etype)).toEqual(['A', 'F']);
    expect(recorded[1]).toMatchObject({ exitcode: 0, removed: [old1, old2], bytes: oldSize + readFileSync(gz).length });
    expect(String(recorded[1]!.exitstatus)).toContain(old1);
    expect(recorded[0]!.runargv).toEqual([h.settings.auditlog, '--remove-older-than', '365d']);
  }, 120_000);
});
