// The one reader of a URL query into the handlers' QueryParams, for the HTTP server and for
// `evio call`: a repeated name becomes an array, the signature's own parameters (appid,
// timestamp, hmac, nonce) are left out — the engines know nothing of them — and the table has no
// prototype, so a parameter named `constructor` or `__proto__` is a parameter like any other
// (refused as unknown), never a value inherited from Object.prototype.
import { setOwn } from '../own-property.js';
import { AUTH_PARAMS } from '../signing.js';
import type { QueryParams } from './types.js';

const SIGNATURE_PARAMS: ReadonlySet<string> = new Set(AUTH_PARAMS);

/** The query as QueryParams, without the signature's parameters (a signed URL works in `evio call`). */
export function queryFromSearch(search: URLSearchParams, omit: ReadonlySet<string> = SIGNATURE_PARAMS): QueryParams {
  const q = Object.create(null) as QueryParams;
  for (const [k, v] of search) {
    if (omit.has(k)) continue;
    const prev = Object.hasOwn(q, k) ? q[k] : undefined;
    setOwn<string | string[] | undefined>(q, k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
  }
  return q;
}
