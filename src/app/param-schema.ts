// The query parameters of a route, declared once (ParamSpec), and what is derived from them: the
// JSON Schema a call's query is checked against, and the registry answer to a failed check. The
// OpenAPI document (src/http/openapi.ts) publishes the same declarations.
//
// The check never changes a value: every parameter is validated as the string sent (a whole
// number by its digits, a flag by its spelling), because the engines read the strings again.
// Unknown parameters pass (the engines answer them with their own code, 1114), and so does a
// parameter repeated where one value is expected (the engines answer 1009); a list parameter
// (etype) and a repeatable one (the wildcards: each value an alternative) have each of their
// repeats checked.
import { evioError, type ErrorName, type EvioError } from '../errors.js';
import type { ParamSpec, Route } from './types.js';

/** The spellings of a 0|1 flag, as the engines read them (src/common/params.ts). */
export const FLAG_VALUES: readonly string[] = ['0', '1', 'true', 'false'];

export function textParam(description: string, extra: Partial<ParamSpec> = {}): ParamSpec {
  return { description, type: 'string', ...extra };
}

export function numberParam(description: string, invalid: ErrorName): ParamSpec {
  return { description, type: 'integer', invalid };
}

export function flagParam(description: string, invalid: ErrorName, extra: Partial<ParamSpec> = {}): ParamSpec {
  return { description, type: 'flag', invalid, ...extra };
}

/** A wildcard that may be repeated, each value an alternative (OR). */
export function wildcardParam(description: string): ParamSpec {
  return { description: `${description}; repeat the parameter for alternatives (any of them matches)`, type: 'string', repeat: true };
}

/** The parameters of `params` that may be given more than once (the CLI's repeatable flags). */
export function repeatableParams(params: Record<string, ParamSpec>): string[] {
  return Object.entries(params).filter(([, s]) => s.list || s.repeat).map(([n]) => n);
}

export function enumParam(description: string, values: readonly string[], invalid: ErrorName, extra: Partial<ParamSpec> = {}): ParamSpec {
  return { description, type: 'string', enum: values, invalid, ...extra };
}

/** A literal in a regular expression (valid with the u flag, which validators use). */
function literal(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** A literal matching either case: "db" -> "[dD][bB]". */
function anyCaseLiteral(s: string): string {
  return [...s].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : literal(c))).join('');
}

function alternatives(spec: ParamSpec): string {
  return `(?:${(spec.enum ?? []).map(spec.anyCase ? anyCaseLiteral : literal).join('|')})`;
}

/** The schema of one value of a parameter (a string). */
export function valueSchema(spec: ParamSpec): Record<string, unknown> {
  if (spec.type === 'integer') return { type: 'string', pattern: '^[0-9]*$' };
  if (spec.type === 'flag') return { type: 'string', enum: [...FLAG_VALUES, ''] };
  if (!spec.enum) return { type: 'string' };
  const one = alternatives(spec);
  // A list is split at commas and each part trimmed, as the engine reads it.
  if (spec.list) return { type: 'string', pattern: `^\\s*${one}\\s*(?:,\\s*${one}\\s*)*$` };
  if (spec.anyCase) return { type: 'string', pattern: `^${one}${spec.allowEmpty ? '?' : ''}$` };
  return { type: 'string', enum: [...spec.enum, ...(spec.allowEmpty ? [''] : [])] };
}

/** The JSON Schema of a route's query, as the HTTP server's validator checks it. */
export function querySchema(route: Route): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.params)) {
    const one = valueSchema(spec);
    properties[name] = { anyOf: [one, spec.list || spec.repeat ? { type: 'array', items: one } : { type: 'array' }] };
  }
  return { type: 'object', properties, additionalProperties: true };
}

/** One failure as JSON Schema validators (Ajv) report it. */
export interface SchemaFailure {
  instancePath: string;
  keyword: string;
  message?: string;
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

function expectation(spec: ParamSpec): string {
  if (spec.type === 'integer') return 'is not a whole number of 0 or more';
  if (spec.type === 'flag') return 'must be 0 or 1';
  if (spec.list) return `is not a comma-separated list of ${spec.enum!.join(', ')}`;
  if (spec.enum) return `is not one of ${spec.enum.join(', ')}`;
  return 'is not valid';
}

/**
 * A failed check of a route's query as the registry answer: the code the engine answers a bad
 * value of that parameter with (its `invalid`), else HTTP_BAD_REQUEST naming the parameter.
 */
export function queryRefusal(route: Route, failures: readonly SchemaFailure[], query: unknown): EvioError {
  // The most telling failure: a value's own (enum, pattern), not "matches no branch of anyOf".
  const f = failures.find((x) => x.keyword !== 'anyOf' && x.keyword !== 'type') ?? failures[0];
  const [, rawName = '', index] = (f?.instancePath ?? '').split('/');
  const name = unescapePointer(rawName);
  const spec = Object.hasOwn(route.params, name) ? route.params[name] : undefined;
  if (!spec) return evioError('HTTP_BAD_REQUEST', `parameter "${name}": ${f?.message ?? 'is not valid'}`);
  const given = query !== null && typeof query === 'object' && Object.hasOwn(query, name) ? (query as Record<string, unknown>)[name] : undefined;
  const value = Array.isArray(given) && index !== undefined ? given[Number(index)] : given;
  return evioError(spec.invalid ?? 'HTTP_BAD_REQUEST', `${name}="${String(value).slice(0, 40)}" ${expectation(spec)}`);
}
