// `evio events rotate`: close a flat-file event log under its lock and start a new one; list
// the rotated files of a log.
import { resolve } from 'node:path';
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { parseDuration, parseSize } from '../common/units.js';
import { listRotated, rotateFlatFile, type RotateResult } from '../eventlog/flatfile/rotate.js';
import { retireRotated, type RetiredFile } from '../eventlog/flatfile/retire.js';
import { flatfileIndexSettings } from '../eventlog/stores.js';
import { refuseAuditRotation } from './audit.js';

export type { RotateResult } from '../eventlog/flatfile/rotate.js';
export type { RetiredFile } from '../eventlog/flatfile/retire.js';

/** The flat file a rotate names: FILE or ff:FILE (default the configured event log). */
function rotatedPath(engine: Engine, named: string | undefined): string {
  if (named !== undefined && /^(db|pg|odbc):/.test(named)) throw evioError('ROTATE_NOT_FLATFILE', `${named} is not a flat file; only flat-file event logs are rotated`);
  return resolve(named === undefined ? engine.settings.eventlog : named.replace(/^ff:/, ''));
}

export async function rotateEvents(engine: Engine, r: { file?: string | undefined; maxSize?: string | undefined; compress?: boolean; signal?: AbortSignal }): Promise<RotateResult & { path: string }> {
  const path = rotatedPath(engine, r.file);
  refuseAuditRotation(engine, path);
  const ix = flatfileIndexSettings(engine);
  const res = await rotateFlatFile({
    path,
    maxSize: r.maxSize === undefined ? null : parseSize(r.maxSize),
    lockTimeoutMs: engine.settings.lockTimeoutMs,
    compress: r.compress ?? false,
    index: { enabled: ix.enabled, cacheDir: ix.cacheDir },
    ...(r.signal ? { signal: r.signal } : {}),
  });
  return { ...res, path };
}

export async function listRotatedEvents(engine: Engine, file: string | undefined): Promise<Array<{ path: string; size: number }>> {
  return listRotated(rotatedPath(engine, file));
}

/**
 * `evio events rotate [FILE] --remove-older-than AGE`: removes the whole rotated files of FILE
 * rotated more than AGE ago (retire.ts). For the audit log this is the one way evio retires old
 * audit records, and the CLI records it in the audit log (every file, its size and its stamp).
 */
export async function retireRotatedEvents(engine: Engine, r: { file?: string | undefined; olderThan: string; dryRun?: boolean; signal?: AbortSignal }): Promise<{ path: string; removed: RetiredFile[] }> {
  const path = rotatedPath(engine, r.file);
  refuseAuditRotation(engine, path);
  const before = new Date(Date.now() - parseDuration(r.olderThan, '--remove-older-than') * 1000);
  const removed = await retireRotated({
    path,
    before,
    dryRun: r.dryRun ?? false,
    cacheDir: flatfileIndexSettings(engine).cacheDir,
    lockTimeoutMs: engine.settings.lockTimeoutMs,
    ...(r.signal ? { signal: r.signal } : {}),
  });
  return { path, removed };
}
