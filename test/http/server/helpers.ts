// Shared pieces of the server tests: a temp data folder with a keystore, a real server on a
// loopback port, and plain HTTP calls (signed with the shared signing module, or not at all).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Engine } from '../../../src/engine.js';
import { writeKeystore, type AppEntry } from '../../../src/keystore.js';
import { sendSigned, signedUrl, type RestCall } from '../../../src/app/rest-client.js';
import { startServer, type ListenOptions, type RunningServer } from '../../../src/http/server.js';
import { loadSettings, type Settings } from '../../../src/settings.js';

export const KEYS = {
  admin: 'a'.repeat(32) + '0123456789abcdef0123456789abcdef',
  auditor: 'b'.repeat(64),
  reader: 'c'.repeat(64),
  legacy: 'd'.repeat(64),
  limited: 'e'.repeat(64),
};

export const APPS: Record<string, AppEntry> = {
  admin: { key: KEYS.admin, scheme: 'hmac-sha256', created: '2026-01-01T00:00:00.000Z', rateLimit: 0 },
  auditor: { key: KEYS.auditor, scheme: 'hmac-sha256', created: '2026-01-01T00:00:00.000Z', routes: ['GET /events/destinations'] },
  reader: { key: KEYS.reader, scheme: 'hmac-sha256', created: '2026-01-01T00:00:00.000Z', readOnly: true },
  legacy: { key: KEYS.legacy, scheme: 'hmac-md5-legacy', created: '2026-01-01T00:00:00.000Z' },
  limited: { key: KEYS.limited, scheme: 'hmac-sha256', created: '2026-01-01T00:00:00.000Z', rateLimit: 3 },
};

export interface TestHome {
  dir: string;
  settings: Settings;
  engine: Engine;
  cleanup(): Promise<void>;
}

/** A temp data folder (real path: stores are keyed by resolved paths) with the test keystore. */
export function makeHome(overrides: Partial<Settings> = {}, apps: Record<string, AppEntry> = APPS): TestHome {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-srv-')));
  const settings = loadSettings({ env: { EVIO_HOME: dir }, overrides: { host: '127.0.0.1', port: 0, requestLog: 'off', ...overrides } });
  writeKeystore(settings.keystore, { apps });
  const engine = new Engine(settings);
  return {
    dir,
    settings,
    engine,
    async cleanup() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function serve(home: TestHome, opts: ListenOptions = {}): Promise<RunningServer> {
  return startServer(home.engine, opts);
}

/**
 * The data folder and server a test makes, closed after each test of the calling describe
 * (register it there): a test sets `home` and `server` as it makes them, or clears `server` when
 * it closed it itself.
 */
export function serverPerTest(): { home?: TestHome; server?: RunningServer } {
  const held: { home?: TestHome; server?: RunningServer } = {};
  afterEach(async () => {
    await held.server?.close();
    held.server = undefined;
    await held.home?.cleanup();
    held.home = undefined;
  });
  return held;
}

export interface Answer {
  http: number;
  headers: IncomingMessage['headers'];
  text: string;
  body: Record<string, unknown>;
}

export async function readAnswer(res: IncomingMessage): Promise<Answer> {
  const parts: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) parts.push(c);
  const text = Buffer.concat(parts).toString('utf8');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparsable: text.slice(0, 200) };
  }
  return { http: res.statusCode ?? 0, headers: res.headers, text, body };
}

/** A signed call through the same client `evio rest` uses. */
export async function signed(server: RunningServer, appid: keyof typeof KEYS | string, method: string, path: string, extra: Partial<RestCall> = {}): Promise<Answer> {
  const key = (KEYS as Record<string, string>)[appid] ?? 'unknown-key-unknown-key';
  return readAnswer(await sendSigned({ url: server.url, appid, key, method, path, ...extra }));
}

export function signedHref(server: RunningServer, appid: string, method: string, path: string, extra: Partial<RestCall> = {}): string {
  const key = (KEYS as Record<string, string>)[appid] ?? 'unknown-key-unknown-key';
  return signedUrl({ url: server.url, appid, key, method, path, ...extra }).href;
}

/** A call sent exactly as given (no signature added). */
export function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; insecure?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const headers = { ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}), ...opts.headers };
    const req = send(url, { method: opts.method ?? 'GET', headers, ...(opts.insecure ? { rejectUnauthorized: false } : {}) }, (res) => {
      readAnswer(res).then(resolve, reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
