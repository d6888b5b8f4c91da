// Following a live session from the page: GET /REST/iolog/follow (server-sent events), signed
// like every call. Read with fetch rather than EventSource: a signed URL is good once (its
// nonce), so a reconnection is a new signed call from the last position received, made here.
import { ApiError, type Api } from '../api.js';
import type { ChunkAnswer } from './frames.js';

export interface FollowHandlers {
  /** The first event: whether the session is still being written. */
  state?(s: { live: boolean; start: number }): void;
  /** What was appended (a chunk answer's fields; `start + len` is the next position). */
  chunk(c: ChunkAnswer): void;
  /** The session is complete and all of it was sent. */
  end(bytes: number): void;
}

/** Follows `file` from data-stream position `start` until its end or `signal`; reconnects after a broken stream. */
export async function followSession(api: Api, file: string, start: number, on: FollowHandlers, signal: AbortSignal): Promise<void> {
  let pos = start;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const url = await api.signedUrl('/REST/iolog/follow', { file, start: pos });
      const res = await fetch(url, { signal, credentials: 'omit', cache: 'no-store', headers: { accept: 'text/event-stream' } });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => ({}))) as { status?: number; error?: string };
        throw new ApiError(body.status ?? -1, res.status, body.error ?? `HTTP ${res.status}`);
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        failures = 0;
        buf += value;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;
          const d = JSON.parse(data) as Record<string, unknown>;
          if (event === 'state') on.state?.(d as { live: boolean; start: number });
          else if (event === 'chunk') {
            const c = d as unknown as ChunkAnswer;
            pos = c.start + c.len;
            on.chunk(c);
          } else if (event === 'end') {
            on.end(Number(d.bytes));
            return;
          }
        }
      }
    } catch (err) {
      if (signal.aborted || (err as Error).name === 'AbortError') return;
      if (err instanceof ApiError && err.http >= 400 && err.http < 500) throw err;
      if (++failures > 5) throw err;
    }
    // The stream broke off without an end: again from where it stopped, after a moment.
    await new Promise((r) => setTimeout(r, 1000));
  }
}
