// The console's REST client: every call signed (sign.ts), answers parsed, failures turned into
// ApiError with evio's status code and message. The base path is where the page was served
// from, minus /console/ (so a configured prefix is kept).
import { signUrl, type Credentials } from './sign.js';

export type Params = Record<string, string | number | undefined | null | readonly string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly http: number,
    message: string,
  ) {
    super(message);
  }
  /** 8119: the signature was refused (wrong appid or key, clock off). */
  get isAuth(): boolean {
    return this.status === 8119;
  }
  /** The route is not on this server (an older evio), or the app may not call it. */
  get isMissingRoute(): boolean {
    return this.http === 404 && this.status === 1004;
  }
}

export function apiBase(): string {
  const p = location.pathname;
  const i = p.indexOf('/console/');
  return i < 0 ? '' : p.slice(0, i);
}

export class Api {
  constructor(private readonly creds: Credentials) {}

  get appid(): string {
    return this.creds.appid;
  }

  url(path: string, params: Params = {}): URL {
    const url = new URL(`${apiBase()}${path}`, location.origin);
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined || v === null || v === '') continue;
      if (Array.isArray(v)) for (const x of v) url.searchParams.append(k, x);
      else url.searchParams.append(k, String(v));
    }
    return url;
  }

  /** A signed URL for the browser to open itself (a download): valid for the signature's few minutes. */
  async signedUrl(path: string, params: Params = {}): Promise<string> {
    return String(await signUrl(this.url(path, params), 'GET', this.creds));
  }

  async get<T = Record<string, unknown>>(path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
    const url = await signUrl(this.url(path, params), 'GET', this.creds);
    let res: Response;
    try {
      res = await fetch(url, { method: 'GET', signal: signal ?? null, credentials: 'omit', cache: 'no-store' });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 0, `the service cannot be reached (${(err as Error).message})`);
    }
    const text = await res.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ApiError(0, res.status, `HTTP ${res.status}: the answer is not JSON`);
    }
    const status = typeof body.status === 'number' ? body.status : -1;
    if (!res.ok || status !== 0) {
      throw new ApiError(status, res.status, typeof body.error === 'string' ? body.error : `HTTP ${res.status}`);
    }
    return body as T;
  }
}

/** The message a person reads for a failed call. */
export function explain(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.isAuth) return `Sign-in refused: the appid or the key is wrong, or this computer's clock is more than a few minutes off the server's. (${err.message})`;
    return err.message;
  }
  return (err as Error)?.message ?? String(err);
}
