// A CLI command's engine is one-shot (short pool tasks run in its own thread); the service's is
// not: a task on the server's main thread would make every other call wait.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeIo } from '../../src/cli/io.js';

const home = mkdtempSync(join(tmpdir(), 'evio-engine-kind-'));
const saved = process.env.EVIO_HOME;
process.env.EVIO_HOME = home;
afterAll(() => {
  if (saved === undefined) delete process.env.EVIO_HOME;
  else process.env.EVIO_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

describe('the CLI engines', () => {
  it('a command gets a one-shot engine, evio serve a service engine', async () => {
    const cmd = makeIo(undefined, new AbortController().signal);
    const svc = makeIo(undefined, new AbortController().signal);
    try {
      expect(cmd.engine().oneShot).toBe(true);
      expect(svc.serviceEngine().oneShot).toBe(false);
    } finally {
      await cmd.dispose();
      await svc.dispose();
    }
  });
});
