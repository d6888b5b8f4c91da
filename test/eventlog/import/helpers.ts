// Shared helpers of the import tests: sample paths, temp dirs, importing into a memory store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importSudoLog, type ImportOptions, type ImportReport } from '../../../src/eventlog/import/importer.js';
import type { ImportFormat } from '../../../src/eventlog/import/types.js';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import type { EventStore, StoredEvent } from '../../../src/eventlog/types.js';

import { SAMPLES } from '../../helpers/samples.js';
export { SAMPLES };
export const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/eventlog');
export const sample = (name: string) => join(SAMPLES, name);
export const fixture = (name: string) => join(FIXTURES, name);

export function tempDir(prefix = 'evio-import-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function importFile(store: EventStore, format: ImportFormat, file: string, over: Partial<ImportOptions> = {}): Promise<ImportReport> {
  return importSudoLog({ format, file, store, timezone: 'UTC', lockDir: null, ...over });
}

/** Imports into a fresh memory store; returns the stored records and the report. */
export async function importToMemory(format: ImportFormat, file: string, over: Partial<ImportOptions> = {}): Promise<{ records: readonly StoredEvent[]; report: ImportReport; store: MemoryStore }> {
  const store = new MemoryStore();
  const report = await importFile(store, format, file, over);
  return { records: store.all(), report, store };
}

/** A record's evio fields only (what most assertions look at). */
export function core(r: StoredEvent): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['uniqueid', 'etype', 'time', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'runargv', 'cwd', 'ttyname', 'iolog', 'reason', 'exitstatus', 'exitcode', 'signal']) {
    if (r[k] !== undefined) out[k] = r[k];
  }
  return out;
}

/** Records without their recnum (two imports compared by content). */
export function contents(records: readonly StoredEvent[]): Array<Record<string, unknown>> {
  return records.map(({ recnum: _r, ...rest }) => rest);
}
