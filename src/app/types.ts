// The framework-free front door: a request is (method, path, query, body); a handler answers
// status + JSON, or a stream. fastify (server.ts) and `evio call` (cli) both drive these.
import type { Readable } from 'node:stream';
import type { Engine } from '../engine.js';
import type { ErrorName } from '../errors.js';

export type QueryParams = Record<string, string | string[] | undefined>;

export interface ApiRequest {
  method: string;
  /** Path without the optional prefix and without the query string, e.g. /REST/v2.0/events. */
  path: string;
  query: QueryParams;
  body?: unknown;
  /** Aborted when the client goes away: handlers pass it to every engine call. */
  signal: AbortSignal;
  /** Caller address, for messages (auth). */
  remote?: string;
  /** The caller may read I/O logs as recorded (keystore app `unredacted`; docs/auth.md). */
  unredacted?: boolean;
}

/** A JSON answer held whole (small answers). */
export interface JsonResponse {
  kind: 'json';
  http: number;
  body: Record<string, unknown>;
}

/**
 * A JSON answer produced piece by piece: `chunks` yields JSON text that concatenates to one
 * object (used for event lists and chunk items). An error after the first piece ends the
 * stream early; the handler writes a closing `"status":CODE,"error":...}` tail itself.
 */
export interface JsonStreamResponse {
  kind: 'json-stream';
  http: number;
  chunks: AsyncIterable<string>;
  /** The answer's final status (0, or the code of a failure after the first piece), once `chunks` is exhausted. */
  status(): number;
  /** Items of the array streamed so far (the request log's row count). */
  items(): number;
}

/** A binary attachment (I/O log file or tar of a session). */
export interface FileResponse {
  kind: 'file';
  http: number;
  contentType: string;
  filename: string;
  stream: Readable;
  size?: number;
}

/**
 * Server-sent events (text/event-stream): `events` yields each event already framed
 * (`event:`/`id:`/`data:` lines and a blank line) as text, or as UTF-8 bytes that may be shared
 * by every client of the same stream (the bytes are never changed once yielded); it ends when
 * the stream is over.
 */
export interface EventStreamResponse {
  kind: 'event-stream';
  http: number;
  events: AsyncIterable<string | Buffer>;
}

export type ApiResponse = JsonResponse | JsonStreamResponse | FileResponse | EventStreamResponse;

export type Handler = (req: ApiRequest, engine: Engine) => Promise<ApiResponse>;

export interface Route {
  method: 'GET' | 'DELETE' | 'POST' | 'PUT';
  /** Path after /REST, /REST/v2 or /REST/v2.0, e.g. "/events", "/iolog/search". */
  path: string;
  /** Versions the route answers under: '' = /REST, 'v2' = /REST/v2, 'v2.0' = /REST/v2.0. */
  versions: ReadonlyArray<'' | 'v2' | 'v2.0'>;
  /** Changes data: refused for read-only apps. */
  writes: boolean;
  summary: string;
  /** What a successful answer is when it is not JSON (the OpenAPI document says so). */
  produces?: 'text/event-stream';
  /**
   * The query parameters, each declared once: the OpenAPI document publishes them, the HTTP
   * server checks calls against the schema derived from them, the CLI takes its flags from them.
   */
  params: Record<string, ParamSpec>;
  handler: Handler;
}

/**
 * One query parameter. Values reach the handlers as the strings sent (the engines read and
 * check them again); this declaration says what a good value looks like and which registry
 * code a bad one is answered with.
 */
export interface ParamSpec {
  description: string;
  /** text; a whole number of 0 or more (digits); a 0|1 flag (true|false also read). */
  type: 'string' | 'integer' | 'flag';
  /** The values a text parameter may take. */
  enum?: readonly string[];
  /** `enum` is matched whatever the case (the engine lowercases the value). */
  anyCase?: boolean;
  /** A comma-separated list of `enum` values; the parameter may also be repeated. */
  list?: boolean;
  /**
   * The parameter may be repeated, each value an alternative (OR): `runuser=root&runuser=admin`.
   * Used for wildcards, whose values may hold commas, so there is no comma-separated form.
   */
  repeat?: boolean;
  /** An empty value is read as absent (whole numbers and flags always are). */
  allowEmpty?: boolean;
  /** The value assumed when the parameter is absent, for the document. */
  default?: string;
  /** The registry code the engine answers a bad value with; the schema check answers the same. */
  invalid?: ErrorName;
}
