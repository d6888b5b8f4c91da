// The keystore file (docs/auth.md): appid -> key, signature scheme, allowed routes, read-only,
// rate limit. Mode 0600: evio refuses a keystore that group or others can read or write, and
// writes it atomically (temporary file with 0600, then rename) so a running server never reads
// half a file.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { evioError } from './errors.js';
import { ownRecord, ownValue } from './own-property.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from './signing.js';

export interface AppEntry {
  key: string;
  scheme: SignatureScheme;
  /** Route patterns the app may call ("GET /events", "* /iolog/*"); absent = every route. */
  routes?: string[];
  /** Refuses routes that change data (DELETE). */
  readOnly?: boolean;
  /** Calls per minute; absent = DEFAULT_RATE_LIMIT; 0 = unlimited. */
  rateLimit?: number;
  /** Reads I/O logs as recorded even when redaction rules are set (docs/auth.md); absent = redacted. */
  unredacted?: boolean;
  /** ISO 8601 creation (or last rotation) time. */
  created: string;
}

export interface Keystore {
  /** appid -> app. Read it with `findApp`: a keystore read from disk has no prototype. */
  apps: Record<string, AppEntry>;
}

/** The app of `appid`, or undefined: only the keystore's own entries, never Object.prototype's. */
export function findApp(ks: Keystore, appid: string): AppEntry | undefined {
  return ownValue(ks.apps, appid);
}

export const DEFAULT_RATE_LIMIT = 600;
export const APPID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A new random key: 32 bytes as 64 hex characters (used as the UTF-8 bytes of that text). */
export function newKey(): string {
  return randomBytes(32).toString('hex');
}

export function checkAppid(appid: string): void {
  if (!APPID_RE.test(appid)) {
    throw evioError('CLI_USAGE', `appid "${appid}" must be 1-64 characters of A-Z a-z 0-9 . _ - starting with a letter or digit`);
  }
}

/** Refuses a keystore that is not a regular file or that group/others may read or write. */
export function checkKeystoreMode(path: string, st: Stats): void {
  if (!st.isFile()) throw evioError('KEYSTORE_INSECURE', `keystore ${path} is not a regular file`);
  if ((st.mode & 0o077) !== 0) {
    throw evioError('KEYSTORE_INSECURE', `keystore ${path} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}: group or others may access it; run chmod 600 ${path}`);
  }
}

function validEntry(path: string, appid: string, raw: unknown): AppEntry {
  const bad = (what: string) => evioError('KEYSTORE_INVALID', `keystore ${path}: app "${appid}" ${what}`);
  if (!APPID_RE.test(appid)) throw bad('is not a valid appid');
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('must be an object');
  const e = raw as Record<string, unknown>;
  if (typeof e.key !== 'string' || e.key.length < 16) throw bad('needs a "key" of at least 16 characters');
  const scheme = e.scheme ?? 'hmac-sha256';
  if (!SIGNATURE_SCHEMES.includes(scheme as SignatureScheme)) throw bad(`has "scheme" ${JSON.stringify(scheme)}; use ${SIGNATURE_SCHEMES.join(' or ')}`);
  if (e.routes !== undefined && (!Array.isArray(e.routes) || e.routes.some((r) => typeof r !== 'string' || !parseRoutePattern(r)))) {
    throw bad('has "routes" that are not patterns like "GET /events" or "* /iolog/*"');
  }
  if (e.readOnly !== undefined && typeof e.readOnly !== 'boolean') throw bad('has a "readOnly" that is not true or false');
  if (e.unredacted !== undefined && typeof e.unredacted !== 'boolean') throw bad('has an "unredacted" that is not true or false');
  if (e.rateLimit !== undefined && (typeof e.rateLimit !== 'number' || !Number.isInteger(e.rateLimit) || e.rateLimit < 0)) {
    throw bad('has a "rateLimit" that is not a whole number of 0 or more');
  }
  const entry: AppEntry = { key: e.key, scheme: scheme as SignatureScheme, created: typeof e.created === 'string' ? e.created : '' };
  if (e.routes !== undefined) entry.routes = e.routes as string[];
  if (e.readOnly !== undefined) entry.readOnly = e.readOnly;
  if (e.rateLimit !== undefined) entry.rateLimit = e.rateLimit;
  if (e.unredacted !== undefined) entry.unredacted = e.unredacted;
  return entry;
}

export function parseKeystore(path: string, text: string): Keystore {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw evioError('KEYSTORE_INVALID', `keystore ${path} is not valid JSON: ${(err as Error).message}`);
  }
  const apps = (raw as { apps?: unknown } | null)?.apps;
  if (!apps || typeof apps !== 'object' || Array.isArray(apps)) throw evioError('KEYSTORE_INVALID', `keystore ${path} must hold {"apps": {...}}`);
  return { apps: ownRecord(Object.entries(apps).map(([appid, entry]) => [appid, validEntry(path, appid, entry)] as const)) };
}

/** Reads and checks a keystore (mode first: an exposed key file is refused before it is read). */
export function readKeystore(path: string): Keystore {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    throw evioError('KEYSTORE_INVALID', `cannot read keystore ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  checkKeystoreMode(path, st);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw evioError('KEYSTORE_INVALID', `cannot read keystore ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseKeystore(path, text);
}

/** A keystore, or an empty one when the file does not exist yet. */
export function readKeystoreOrEmpty(path: string): Keystore {
  try {
    lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { apps: ownRecord() };
  }
  return readKeystore(path);
}

/** Writes the keystore atomically with mode 0600 (its folder is created 0700 when missing). */
export function writeKeystore(path: string, ks: Keystore): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeOwnerOnly(path, `${JSON.stringify(ks, null, 2)}\n`);
}

/**
 * Writes `text` to `path` durably with mode 0600 from the start: a new file (opened `wx` with
 * 0600, fsynced) renamed over any old one, so a reader never sees half a secret or a moment of
 * a wider mode. For the keystore and the first-start key file.
 */
export function writeOwnerOnly(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  chmodSync(tmp, 0o600); // the umask can only narrow the mode, but be explicit
  renameSync(tmp, path);
}

export interface RoutePattern {
  method: string;
  /** Exact path, or a prefix when `subtree`. */
  path: string;
  subtree: boolean;
}

/** "GET /events", "DELETE /events/iologs", "* /iolog/*", "* *". Null when malformed. */
export function parseRoutePattern(text: string): RoutePattern | null {
  const m = /^\s*(\*|GET|DELETE|POST|PUT)\s+(\*|\/[A-Za-z0-9._/-]*?)(\/\*)?\s*$/i.exec(text);
  if (!m) return null;
  const [, method, path, star] = m as unknown as [string, string, string, string | undefined];
  if (path === '*') return { method: method.toUpperCase(), path: '/', subtree: true };
  return { method: method.toUpperCase(), path: path.replace(/\/+$/, '') || '/', subtree: star !== undefined };
}

/** Whether one of the patterns allows `method` on the route path (version-independent, e.g. /events). */
export function routeAllowed(patterns: readonly string[], method: string, routePath: string): boolean {
  return patterns.some((text) => {
    const p = parseRoutePattern(text);
    if (!p) return false;
    if (p.method !== '*' && p.method !== method.toUpperCase()) return false;
    if (!p.subtree) return routePath === p.path;
    return p.path === '/' || routePath === p.path || routePath.startsWith(`${p.path}/`);
  });
}
