// evio's own audit trail: every call that changes data (REST deletes and purges, the CLI's
// event and key changes) is appended to an event log in evio's own flat-file format, so the
// same engine answers "who deleted what, when, from where":
//   evio events query ff:<home>/audit.ndjson --runcommand 'DELETE*'
// An authorized call is an accept record (A) with a finish record (F) carrying the outcome, so a
// default query shows the outcome merged into the accept; a refused call is one reject record (R).
// The log and its rotated files are append-only through evio: deletes and purges of any file of
// the family are refused (1622), and only this module adds records to them (1636).
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Engine } from '../engine.js';
import { evioError, toEvioError } from '../errors.js';
import { realOrNull } from '../paths.js';
import { openStore, type StoreSpec } from '../eventlog/stores.js';
import type { EventStore, NewEvent } from '../eventlog/types.js';
import { isSecretParam, redactArgv, redactText, redactValue } from './audit-redact.js';

export { isSecretParam } from './audit-redact.js';

/**
 * The call's parameters as `name=value` words, in the order sent, without secret-named ones
 * (their values are credentials in any other word: auditRecords redacts every word).
 */
export function auditArgv(params: Iterable<[string, string]>): string[] {
  const out: string[] = [];
  for (const [k, v] of params) if (!isSecretParam(k)) out.push(`${k}=${v}`);
  return out;
}

export interface AuditEntry {
  /** Authorized and run (A + F), or refused before it ran (R). */
  accepted: boolean;
  /**
   * Who asked: the appid whose signature was verified, UNAUTHENTICATED (audit-refusals.ts) for a
   * call whose signature was not, or the OS user of a CLI call.
   */
  user: string;
  /** From where: the client address, or this host for a CLI call. */
  from: string;
  /** e.g. `DELETE /REST/v2.0/events`, `evio events purge`. */
  command: string;
  argv: string[];
  /** The outcome in words: `deleted 12 records`, or the error text. */
  outcome: string;
  /** 0, or the registry code of the failure. */
  status: number;
  /** Unix seconds the call started. */
  started: number;
  /** Extra keys kept with the records (requestid, deleted, store ...). */
  extra?: Record<string, unknown>;
}

const HOST = hostname();

/** The OS user and host of a CLI call. */
export function cliActor(): { user: string; from: string } {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? String(process.getuid?.() ?? 'unknown');
  }
  return { user, from: HOST };
}

/**
 * The records one audited call is written as. Every string recorded is redacted first
 * (audit-redact.ts): a password in an argument, a parameter, an error text or an extra key
 * never reaches the file.
 */
export function auditRecords(e: AuditEntry, now = Date.now() / 1000): NewEvent[] {
  const extra = e.extra ? (redactValue(e.extra) as Record<string, unknown>) : {};
  const outcome = redactText(e.outcome);
  const common = {
    uniqueid: randomUUID(),
    submituser: redactText(e.user),
    submithost: redactText(e.from),
    runuser: 'evio',
    runhost: HOST,
    runcommand: redactText(e.command),
    runargv: redactArgv(e.argv),
    ...extra,
  };
  if (!e.accepted) return [{ ...common, etype: 'R', time: e.started, reason: outcome, exitstatus: outcome, exitcode: e.status }];
  return [
    { ...common, etype: 'A', time: e.started },
    { ...common, etype: 'F', time: now, exitstatus: outcome, exitcode: e.status },
  ];
}

/**
 * The audit log's store, or null when there is none to write: "off", or a CLI command run where
 * the data folder was never set up (its folder does not exist; `evio serve` always creates it).
 * A folder is never created for it: a `keys --keystore` call elsewhere leaves no stray folder.
 */
function auditStore(engine: Engine): Promise<EventStore> | null {
  const path = engine.settings.auditlog;
  if (path === 'off' || !existsSync(dirname(path))) return null;
  return openStore(engine, { kind: 'ff', path });
}

/**
 * Appends one call to the audit log (nothing when auditlog is "off"). Throws AUDIT_WRITE_FAILED:
 * the change happened, and the caller must say that it went unrecorded.
 */
export async function recordAudit(engine: Engine, e: AuditEntry): Promise<void> {
  const opening = auditStore(engine);
  if (!opening) return;
  try {
    const store = await opening;
    await store.append(auditRecords(e));
  } catch (err) {
    throw evioError('AUDIT_WRITE_FAILED', `the audit log ${engine.settings.auditlog} could not record ${e.command} by ${e.user} from ${e.from}: ${toEvioError(err).message}`, err);
  }
}

/** Whether a path is the audit log (both resolved, symlinks included). */
export function isAuditLog(engine: Engine, path: string): boolean {
  const audit = engine.settings.auditlog;
  if (audit === 'off') return false;
  return realPath(path) === realPath(audit);
}

/** A path with its symlinks resolved; a file not there yet by its resolved directory. */
function realPath(p: string): string {
  const abs = resolve(p);
  return realOrNull(abs) ?? join(realOrNull(dirname(abs)) ?? dirname(abs), basename(abs));
}

/**
 * Whether a path belongs to the audit log's family: the live file; its rotated files, plain or
 * gzipped, whatever named them (`audit.ndjson.<stamp>[.gz]` by evio events rotate, logrotate's
 * `audit.ndjson-<date>` and `audit.ndjson.<n>`); and everything kept beside them (the `.evidx`
 * skip indexes, the `.lock` writer lock, the `.rotating` journal, scratch files). All of them are
 * named by the live file's name followed by a dot or a dash, in its directory (both the path as
 * configured and the one its symlinks resolve to), so a prefix names them all; a skip index in
 * flatfileIndexDir is `<hash>-<name>...evidx`. Conservative on purpose: a stray file named like
 * `audit.ndjson.bak` is refused too.
 */
export function isAuditFamily(engine: Engine, path: string): boolean {
  const audit = engine.settings.auditlog;
  if (audit === 'off') return false;
  const p = realPath(path);
  const pdir = dirname(p);
  const pname = basename(p);
  const named = (name: string, base: string) => name.startsWith(`${base}.`) || name.startsWith(`${base}-`);
  const cacheDir = engine.settings.flatfileIndexDir;
  const index = cacheDir !== '' && pdir === realPath(cacheDir) ? /^[0-9a-f]{16}-(.+)$/.exec(pname) : null;
  for (const live of new Set([resolve(audit), realPath(audit)])) {
    if (p === live) return true;
    const base = basename(live);
    if (pdir === realPath(dirname(live)) && named(pname, base)) return true;
    if (index && (index[1] === base || named(index[1]!, base))) return true;
  }
  return false;
}

/** An opened store or a store's spec: a flat file's path, or null. */
type StoreLike = EventStore | StoreSpec;

function storePath(store: StoreLike): string | null {
  const path = (store as { path?: unknown }).path;
  return store.kind === 'ff' && typeof path === 'string' ? path : null;
}

/**
 * Refuses a delete or purge of any file of the audit log's family (1622): the live file and its
 * rotated files are append-only through evio, through every door (REST, evio call, the CLI).
 */
export function refuseAuditLogChange(engine: Engine, store: StoreLike): void {
  const path = storePath(store);
  if (path !== null && isAuditFamily(engine, path)) {
    throw evioError('AUDIT_LOG_APPEND_ONLY', `${path} is ${isAuditLog(engine, path) ? "evio's audit log" : `a file of evio's audit log (${engine.settings.auditlog}) or of its rotated files`}: no delete or purge may change it (retire whole rotated files with evio events rotate --remove-older-than, which is recorded)`);
  }
}

/**
 * Refuses records written into the audit log's family by anyone but evio's own recorder (1636):
 * an append, a copy or an import there would put records in the audit trail that no audited
 * call made.
 */
export function refuseAuditLogWrite(engine: Engine, store: StoreLike): void {
  const path = storePath(store);
  if (path !== null && isAuditFamily(engine, path)) {
    throw evioError('AUDIT_LOG_EVIO_ONLY', `${path} is ${isAuditLog(engine, path) ? "evio's audit log" : `a file of evio's audit log (${engine.settings.auditlog}) or of its rotated files`}: only evio's own recording of calls adds records to it`);
  }
}

/**
 * Refuses an output file named in the audit log's family (1636): an export, a generated log or
 * an I/O log export written there would replace the audit log or a rotated file (they are
 * written through a rename or truncated), or put a file in the family that no audited call made.
 */
export function refuseAuditOutput(engine: Engine, path: string): void {
  if (isAuditFamily(engine, path)) {
    throw evioError('AUDIT_LOG_EVIO_ONLY', `${resolve(path)} is ${isAuditLog(engine, path) ? "evio's audit log" : `named as a file of evio's audit log (${engine.settings.auditlog}) or of its rotated files`}: no output is written there`);
  }
}

/**
 * Refuses a rotation of a file of the audit log's family other than the live file (1622): it
 * would rename a rotated file out of the family (its records no longer read by family=1 queries).
 */
export function refuseAuditRotation(engine: Engine, path: string): void {
  if (isAuditFamily(engine, path) && !isAuditLog(engine, path)) {
    throw evioError('AUDIT_LOG_APPEND_ONLY', `${path} is a file of evio's audit log (${engine.settings.auditlog}) or of its rotated files: only the live audit log is rotated`);
  }
}
