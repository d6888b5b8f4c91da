// Errors cross the worker boundary as data: structured cloning keeps an Error's message but
// drops EvioError's class and code, so every task answers {ok, value} or {ok: false, name,
// detail} and the pool rebuilds the EvioError on the main thread.
import { ERRORS, EvioError, type ErrorName } from '../errors.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; name: ErrorName; detail: string };

export async function capture<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    if (err instanceof EvioError) {
      const prefix = `${err.code} `;
      return { ok: false, name: err.errorName, detail: err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message };
    }
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, name: 'INTERNAL', detail: msg };
  }
}

export function unwrap<T>(o: Outcome<T>): T {
  if (o.ok) return o.value;
  const name = o.name in ERRORS ? o.name : 'INTERNAL';
  throw new EvioError(name, o.detail);
}
