// Streams a JSON object whose one array member is produced lazily:
//   {"events":[...],"status":0}
// `status` comes last so that a failure after the first item can still be reported inside a
// valid JSON body: {"events":[...partial],"status":1302,"error":"1302 ..."}.
// The first item (batch) is pulled before anything is sent, so errors that happen up front (bad
// parameters, a store that cannot be opened) still get a proper HTTP status.
import { toEvioError } from '../errors.js';
import type { ApiResponse } from './types.js';

const CHUNK_BYTES = 64 * 1024;

export function jsonArrayResponse<T>(
  arrayKey: string,
  items: AsyncIterable<T>,
  head: Record<string, unknown> = {},
  tail: () => Record<string, unknown> = () => ({}),
): Promise<ApiResponse> {
  return jsonBatchesResponse(arrayKey, singles(items), head, tail);
}

async function* singles<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const item of items) yield [item];
}

/** The same over items that come in batches (event answers): a batch is written in one pass. */
export async function jsonBatchesResponse<T>(
  arrayKey: string,
  batches: AsyncIterable<readonly T[]>,
  head: Record<string, unknown> = {},
  tail: () => Record<string, unknown> = () => ({}),
): Promise<ApiResponse> {
  const it = batches[Symbol.asyncIterator]();
  const first = await it.next(); // throws up front: the caller answers an error status
  const outcome = { status: 0, items: 0 };
  async function* chunks(): AsyncGenerator<string> {
    let buf = '{';
    for (const [k, v] of Object.entries(head)) buf += `${JSON.stringify(k)}:${JSON.stringify(v)},`;
    buf += `${JSON.stringify(arrayKey)}:[`;
    let n = 0;
    let failure: Record<string, unknown> | null = null;
    try {
      let r = first;
      while (!r.done) {
        for (const item of r.value) {
          buf += (n++ ? ',' : '') + JSON.stringify(item);
          // Pieces stay about CHUNK_BYTES whatever the batch: what a paused reader holds is bounded.
          if (buf.length >= CHUNK_BYTES) {
            outcome.items = n;
            yield buf;
            buf = '';
          }
        }
        outcome.items = n;
        r = await it.next();
      }
    } catch (err) {
      failure = toEvioError(err).toBody();
    } finally {
      // A consumer that stops early (aborted request) closes the source too.
      if (failure === null) await it.return?.();
    }
    buf += ']';
    const end = failure ?? { ...tail(), status: 0 };
    outcome.status = end.status as number;
    for (const [k, v] of Object.entries(end)) buf += `,${JSON.stringify(k)}:${JSON.stringify(v)}`;
    yield `${buf}}`;
  }
  return { kind: 'json-stream', http: 200, chunks: chunks(), status: () => outcome.status, items: () => outcome.items };
}

export function jsonOk(body: Record<string, unknown>): ApiResponse {
  return { kind: 'json', http: 200, body: { status: 0, ...body } };
}
