// The last thing a connection is told before the server closes it (a 408 for a request that did
// not arrive in time, a 400/431 from the HTTP parser, a 503 for a connection over a cap). The
// Node server keeps a socket half-open after it ends its side, until the peer ends its own; a
// peer that never reads never does, and such a socket would hold its place under the connection
// caps for good. So the socket is destroyed as soon as the answer has been handed to the kernel,
// and at the latest after FINAL_ANSWER_LINGER_MS when the peer does not take it.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { EvioError } from '../errors.js';

/** How long a last answer may wait for a peer that does not read it, ms. */
export const FINAL_ANSWER_LINGER_MS = 2000;

/** A complete HTTP/1.1 answer with the error's JSON body and `connection: close`. */
export function finalAnswerText(e: EvioError, headers: Record<string, string | number> = {}): string {
  const body = JSON.stringify(e.toBody());
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${e.http} ${STATUS_CODES[e.http] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`;
}

/** Writes `text` and closes the connection for good, whether or not the peer reads it. */
export function sendFinalAnswer(socket: Socket, text: string): void {
  socket.on('error', () => {});
  const timer = setTimeout(() => socket.destroy(), FINAL_ANSWER_LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.end(text, () => socket.destroy());
}
