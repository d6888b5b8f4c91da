// Shared helpers of the destination tests: a flat-file spool with generated records, and waiting
// for a condition with a deadline (a failure names what never happened; no assertion on time).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlatFileStore } from '../../../src/eventlog/flatfile/index.js';
import { generateEvents } from '../../../src/eventlog/generate.js';
import { openSpool, type Spool } from '../../../src/eventlog/destinations/spool.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';

export function tempDir(prefix = 'evio-dest-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Polls `cond` every 10 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function records(count: number, seed = 7, start?: number): StoredEvent[] {
  return [...generateEvents({ count, seed, ...(start !== undefined ? { start } : {}) })];
}

/** A flat-file log holding `recs` (appended through the store, as the receiver does). */
export async function flatFileWith(path: string, recs: StoredEvent[]): Promise<FlatFileStore> {
  const ff = new FlatFileStore({ path });
  if (recs.length) await ff.append(recs);
  return ff;
}

export function spoolOf(path: string): Spool {
  return openSpool({ path, lockTimeoutMs: 10_000, maxOpenAccepts: 1_000_000, index: { enabled: true, cacheDir: null } });
}

/** Fast retries for tests (the service waits 0.5 s doubling to 30 s). */
export const FAST = { firstMs: 10, maxMs: 100 };
