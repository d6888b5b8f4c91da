// GET /REST/iolog/export through the route table: a bad format or a missing session answers a
// JSON error before any byte; format=text and format=asciicast stream the session (the same
// bytes `evio iolog export` writes), with an attachment name; an aborted request stops it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { dispatch } from '../../src/app/router.js';
import { loadSettings } from '../../src/settings.js';

let home: string;
let engine: Engine;
let session: string;
const req = (query: Record<string, string>, signal = new AbortController().signal) => ({ method: 'GET', path: '/REST/iolog/export', query, signal });

async function text(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'evio-export-route-'));
  session = join(home, 'iolog', 'a', 'b');
  mkdirSync(session, { recursive: true });
  // A colour, an overwrite (CR) and a title sequence: the transcript keeps only what showed.
  const out = ['\x1b]0;title\x07\x1b[31mred\x1b[0m line\r\n', 'first\rsecond\r\n', 'last\r\n'];
  writeFileSync(join(session, 'ttyout'), out.join(''));
  writeFileSync(join(session, 'timing'), `4 0.500000 ${Buffer.byteLength(out[0]!)}\n4 1.000000 ${Buffer.byteLength(out[1]!)}\n4 60.250000 ${Buffer.byteLength(out[2]!)}\n`);
  writeFileSync(join(session, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/bin/sh', runargv: ['sh'], lines: 24, columns: 80 }));
  engine = new Engine(loadSettings({ env: { EVIO_HOME: home } }));
});

afterAll(async () => {
  await engine.close();
  rmSync(home, { recursive: true, force: true });
});

describe('GET /REST/iolog/export', () => {
  it('answers a bad format and a missing session as JSON errors', async () => {
    expect(await dispatch(engine, req({ file: session, format: 'mp4' }))).toMatchObject({ kind: 'json', http: 400, body: { status: 1417 } });
    const missing = await dispatch(engine, req({ file: join(home, 'iolog', 'nope'), format: 'text' }));
    expect(missing.kind).toBe('json');
    expect((missing as unknown as { body: { status: number } }).body.status).not.toBe(0);
  });

  it('streams a text transcript: each line the output showed, after its time, no escape sequence', async () => {
    const r = await dispatch(engine, req({ file: session, format: 'text' }));
    expect(r).toMatchObject({ kind: 'file', http: 200, contentType: 'text/plain; charset=utf-8', filename: 'iolog-a-b.txt' });
    expect(await text((r as { stream: Readable }).stream)).toBe('[0:00.5] red line\n[0:01.5] second\n[1:01.8] last\n');
  });

  it('streams asciicast v2', async () => {
    const r = await dispatch(engine, req({ file: session, format: 'asciicast' }));
    expect(r).toMatchObject({ kind: 'file', http: 200, contentType: 'application/x-asciicast', filename: 'iolog-a-b.cast' });
    const lines = (await text((r as { stream: Readable }).stream)).trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ version: 2, width: 80, height: 24, timestamp: 1767225600 });
    expect(lines.slice(1).map((l) => (JSON.parse(l) as [number, string])[0])).toEqual([0.5, 1.5, 61.75]);
  });
});
