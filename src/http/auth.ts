// Authentication and authorization of REST calls (DESIGN §5, docs/auth.md). Every call carries
// appid, timestamp and hmac; a failure of any kind answers the same 8119 text naming only the
// appid and the caller address, so a caller learns nothing about which part was wrong (the
// reason goes to the server's log). Authorization (routes, read-only) is checked after the
// caller has proved its key, so it may say what is refused (1605).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { evioError } from '../errors.js';
import { APPID_RE, DEFAULT_RATE_LIMIT, findApp, readKeystore, routeAllowed, type AppEntry, type Keystore } from '../keystore.js';
import { ReplayGuard } from './replay-guard.js';
import { canonicalString, hmacMd5Legacy, hmacSha256, sha256Hex } from '../signing.js';
import type { Route } from '../app/types.js';

export interface AuthInput {
  method: string;
  /** The path as sent (prefix included, no query string). */
  rawPath: string;
  query: URLSearchParams;
  body: Uint8Array | undefined;
  remote: string;
}

export interface AuthenticatedApp {
  appid: string;
  app: AppEntry;
  /** Calls per minute (0 = unlimited). */
  rateLimit: number;
}

export interface AuthenticatorOptions {
  keystorePath: string;
  skewSeconds: number;
  /** Unix seconds; tests move the clock. */
  now?: () => number;
  /** Server-side reasons of refusals (never sent to the caller). */
  log?: (line: string) => void;
  /** Signatures remembered per app at most (replay protection); a full cache refuses (1620). */
  replayCapacityPerApp: number;
}

function single(q: URLSearchParams, name: string): string | null {
  const all = q.getAll(name);
  return all.length === 1 ? all[0]! : null;
}

const HEX_RE = /^[0-9a-fA-F]+$/;

/**
 * The hmac parameter decoded: exactly `bytes` bytes as hex of either case, else null. Both the
 * comparison and the replay cache use these bytes, so `ab..` and `AB..` are one signature.
 */
function signatureBytes(text: string | null, bytes: number): Buffer | null {
  return text !== null && text.length === bytes * 2 && HEX_RE.test(text) ? Buffer.from(text, 'hex') : null;
}

/** Constant-time equality of a digest and the caller's bytes (of equal length when not null). */
function sameBytes(expected: Buffer, given: Buffer | null): boolean {
  return given !== null && given.length === expected.length && timingSafeEqual(expected, given);
}

interface FileId {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

export class Authenticator {
  private readonly opts: AuthenticatorOptions;
  private readonly replays: ReplayGuard;
  /** Signs for unknown appids, so that their answer costs what a known one's does; never valid. */
  private readonly unknownAppKey = randomBytes(32).toString('hex');
  private keystore: Keystore | null = null;
  private loadError: string | null = null;
  private fileId: FileId | null = null;

  constructor(opts: AuthenticatorOptions) {
    this.opts = opts;
    this.replays = new ReplayGuard(opts.replayCapacityPerApp);
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Math.floor(Date.now() / 1000);
  }

  /** Reads the keystore; throws KEYSTORE_INSECURE / KEYSTORE_INVALID (the server refuses to start). */
  load(): Keystore {
    const path = this.opts.keystorePath;
    const st = lstatSync(path, { throwIfNoEntry: false });
    this.keystore = readKeystore(path);
    this.loadError = null;
    this.fileId = st ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : null;
    return this.keystore;
  }

  /** The keystore as it is now on disk: `evio keys` changes apply without a restart. */
  current(): Keystore | null {
    const st = lstatSync(this.opts.keystorePath, { throwIfNoEntry: false });
    const id = st ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : null;
    const same = id && this.fileId && id.ino === this.fileId.ino && id.size === this.fileId.size && id.mtimeMs === this.fileId.mtimeMs && id.ctimeMs === this.fileId.ctimeMs;
    if (!same) {
      try {
        this.load();
      } catch (err) {
        // An unreadable or exposed keystore refuses every call (8119), until it is fixed.
        this.keystore = null;
        this.fileId = id;
        this.loadError = (err as Error).message;
      }
    }
    return this.keystore;
  }

  /** Checks appid, timestamp and hmac; throws AUTH_FAILED (8119) with one text for every reason. */
  authenticate(input: AuthInput): AuthenticatedApp {
    const appidRaw = input.query.getAll('appid');
    const shownAppid = appidRaw.length === 0 ? '(none)' : appidRaw.length === 1 && APPID_RE.test(appidRaw[0]!) ? appidRaw[0]! : '(invalid)';
    const refuse = (reason: string): never => {
      this.opts.log?.(`auth refused: appid ${shownAppid} from ${input.remote}: ${reason}`);
      throw evioError('AUTH_FAILED', `invalid authentication for appid ${shownAppid} from ${input.remote}`);
    };
    const ks = this.current();
    const appid = single(input.query, 'appid');
    const timestamp = single(input.query, 'timestamp');
    const hmac = single(input.query, 'hmac');
    // Own entries only: `constructor`, `__proto__`, `toString` ... are unknown appids.
    const app = appid !== null && ks ? findApp(ks, appid) : undefined;
    const key = app?.key ?? this.unknownAppKey;
    const scheme = app?.scheme ?? 'hmac-sha256';

    // Compute before deciding, so unknown apps and bad fields cost the same time as good ones.
    const canonical = canonicalString({ method: input.method, path: input.rawPath, query: input.query, body: input.body });
    const givenSha = signatureBytes(hmac, 32);
    const okSha = sameBytes(hmacSha256(key, canonical), givenSha);
    const givenMd5 = scheme === 'hmac-md5-legacy' ? signatureBytes(hmac, 16) : null;
    const okMd5 = givenMd5 !== null && sameBytes(hmacMd5Legacy(key, appid ?? '', timestamp ?? ''), givenMd5);

    if (!ks) return refuse(`keystore unusable: ${this.loadError ?? 'not loaded'}`);
    if (appid === null || timestamp === null || hmac === null) return refuse('appid, timestamp and hmac must each be given once');
    if (!app) return refuse('unknown appid');
    if (!/^\d{1,12}$/.test(timestamp)) return refuse('timestamp is not Unix seconds');
    const now = this.now();
    const ts = Number(timestamp);
    const skew = this.opts.skewSeconds;
    if (Math.abs(now - ts) > skew) return refuse(`timestamp ${ts} is ${now - ts} s from the server's clock (allowed ${skew} s)`);
    if (!okSha && !okMd5) return refuse('signature does not match');
    // The legacy signature does not cover the request, so its replay key includes the request:
    // the same old client may make two different calls within one second.
    const replayKey = okSha ? `s:${givenSha!.toString('hex')}` : `m:${givenMd5!.toString('hex')}:${sha256Hex(canonical)}`;
    const verdict = this.replays.remember(appid, replayKey, ts + skew, now);
    if (verdict === 'replay') return refuse('signature already used');
    if (verdict === 'full') {
      this.opts.log?.(`replay protection full: appid ${appid} from ${input.remote} has ${this.opts.replayCapacityPerApp} signatures inside the skew window`);
      throw evioError('AUTH_REPLAY_CAPACITY', `appid ${appid} has made more signed calls inside the ${skew} s timestamp window than replay protection holds (${this.opts.replayCapacityPerApp}); retry later`);
    }
    return { appid, app, rateLimit: app.rateLimit ?? DEFAULT_RATE_LIMIT };
  }

  /**
   * What can be checked before a body is read: appid, timestamp and hmac each given once, an
   * appid of the keystore, a timestamp inside the skew window. Throws the same AUTH_FAILED as
   * authenticate(), so a call whose signature cannot be valid is refused without reading its
   * body. (Unlike authenticate, this answers faster for an unknown appid: appids are names, not
   * secrets; keys are.)
   */
  precheck(query: URLSearchParams, remote: string): void {
    const appid = single(query, 'appid');
    const timestamp = single(query, 'timestamp');
    const refuse = (reason: string): never => {
      const shown = appid === null ? (query.has('appid') ? '(invalid)' : '(none)') : APPID_RE.test(appid) ? appid : '(invalid)';
      this.opts.log?.(`auth refused before reading the body: appid ${shown} from ${remote}: ${reason}`);
      throw evioError('AUTH_FAILED', `invalid authentication for appid ${shown} from ${remote}`);
    };
    if (appid === null || timestamp === null || single(query, 'hmac') === null) refuse('appid, timestamp and hmac must each be given once');
    const ks = this.current();
    if (!ks) refuse(`keystore unusable: ${this.loadError ?? 'not loaded'}`);
    if (!findApp(ks!, appid!)) refuse('unknown appid');
    if (!/^\d{1,12}$/.test(timestamp!) || Math.abs(this.now() - Number(timestamp)) > this.opts.skewSeconds) refuse('timestamp outside the skew window');
  }

  /** Whether the authenticated app may call `route`; throws HTTP_ROUTE_FORBIDDEN. */
  authorize(who: AuthenticatedApp, route: Route): void {
    if (who.app.readOnly && route.writes) {
      throw evioError('HTTP_ROUTE_FORBIDDEN', `appid ${who.appid} is read-only and may not call ${route.method} ${route.path}`);
    }
    if (who.app.routes && !routeAllowed(who.app.routes, route.method, route.path)) {
      throw evioError('HTTP_ROUTE_FORBIDDEN', `appid ${who.appid} may not call ${route.method} ${route.path}`);
    }
  }
}
