// Cursor files: written atomically, read strictly. A cursor cut short at any byte or replaced by
// garbage is DEST_CURSOR_DAMAGED (1260), never a recnum: a destination that repeats records
// visibly (prog, syslog) then waits, delivering nothing and skipping nothing, until the operator
// removes or repairs the file; an idempotent one restarts from the first record (forwarder-db).
import { existsSync, readdirSync, statSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cursorFile, parseCursor } from '../../../src/eventlog/destinations/cursor.js';
import { Forwarder } from '../../../src/eventlog/destinations/forwarder.js';
import type { DeliveryItem, Sink } from '../../../src/eventlog/destinations/sink.js';
import { FAST, flatFileWith, records, spoolOf, tempDir, until } from './helpers.js';

describe('cursor files', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it('are written atomically into the spool folder and read back', async () => {
    const path = join(t.dir, 'spool', 'prog.cursor');
    const c = cursorFile(path, 'logger -t evio');
    expect(await c.read()).toBe(0); // none yet: from the first record
    await c.write(41);
    await c.write(42);
    expect(await c.read()).toBe(42);
    expect(readdirSync(join(t.dir, 'spool'))).toEqual(['prog.cursor']); // no temporary file left
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it('cut short at any byte, or not a cursor, is damaged (1260)', async () => {
    const good = `${JSON.stringify({ recnum: 123456, target: 'tcp://127.0.0.1:601', time: '2026-01-01T00:00:00.000Z' })}\n`;
    expect(parseCursor(good)).toBe(123456);
    const bad = [
      ...Array.from({ length: good.length }, (_, i) => good.slice(0, i)),
      'garbage\n',
      '{"recnum":-1}\n',
      '{"recnum":1.5}\n',
      '{"recnum":"12"}\n',
      '{"recnum":9007199254740993}\n',
      '[12]\n',
      'null\n',
      '{}\n',
    ];
    const path = join(t.dir, 'x.cursor');
    const c = cursorFile(path, 'x');
    for (const text of bad) {
      expect(parseCursor(text)).toBeNull();
      writeFileSync(path, text);
      await expect(c.read()).rejects.toMatchObject({ code: 1260 });
    }
    writeFileSync(path, `{"recnum":1}\n${' '.repeat(5000)}`);
    await expect(c.read()).rejects.toMatchObject({ code: 1260 });
  });

  it('a damaged cursor holds a destination that repeats records visibly until the operator acts, then it delivers from the start', async () => {
    const recs = records(40);
    const log = join(t.dir, 'events.ndjson');
    await flatFileWith(log, recs);
    const spool = spoolOf(log);
    const got: number[] = [];
    const sink: Sink = {
      idempotent: false,
      deliver: async (items: readonly DeliveryItem[]) => void got.push(...items.map((i) => i.rec.recnum)),
      takeRewind: () => null,
      close: async () => {},
    };
    const path = join(t.dir, 'spool', 'syslog.cursor');
    const c = cursorFile(path, 'tcp://127.0.0.1:601');
    await c.write(10);
    writeFileSync(path, '{"recnum":1'); // cut short
    const lines: string[] = [];
    const f = new Forwarder({ name: 'syslog', target: 't', sink, spool, cursor: c, log: (l) => lines.push(l), backoff: FAST }).start();
    await until(() => f.status().failures >= 3, 'three failed attempts');
    expect(got).toEqual([]);
    expect(f.status()).toMatchObject({ deliveredRecnum: null, lastError: expect.stringMatching(/^1260 .*syslog\.cursor is not a cursor/) });
    expect(existsSync(path)).toBe(true); // left for the operator
    unlinkSync(path); // the operator's choice: deliver the whole log again
    await until(() => got.length === 40, 'every record after the cursor was removed');
    await f.close();
    await spool.close();
    expect(got).toEqual(recs.map((r) => r.recnum));
    expect(await c.read()).toBe(40);
  });
});
