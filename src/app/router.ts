// Routing for both doors: finds the route for (method, path) under /REST, /REST/v2, /REST/v2.0
// and the optional configured prefix, runs its handler and turns every failure into the
// {status, error} body with the registry's HTTP status.
import type { Engine } from '../engine.js';
import { evioError, toEvioError } from '../errors.js';
import { allRoutes } from './routes/index.js';
import type { ApiRequest, ApiResponse, Route } from './types.js';

const VERSION_RE = /^\/REST(?:\/(v2\.0|v2))?(\/.*)$/;

export interface RouteMatch {
  route: Route;
  version: '' | 'v2' | 'v2.0';
}

/** Strips the prefix, reads the version and finds the route; throws NOT_FOUND / METHOD_NOT_ALLOWED. */
export function matchRoute(method: string, fullPath: string, prefix: string, routes: readonly Route[] = allRoutes()): RouteMatch {
  let path = fullPath;
  if (prefix && (path === prefix || path.startsWith(`${prefix}/`))) path = path.slice(prefix.length);
  const m = VERSION_RE.exec(path);
  if (!m) throw evioError('NOT_FOUND', `no route ${fullPath}`);
  const version = (m[1] ?? '') as RouteMatch['version'];
  const rest = m[2]!.replace(/\/+$/, '') || '/';
  const candidates = routes.filter((r) => r.path === rest && r.versions.includes(version));
  if (candidates.length === 0) throw evioError('NOT_FOUND', `no route ${fullPath}`);
  const route = candidates.find((r) => r.method === method.toUpperCase());
  if (!route) {
    throw evioError('METHOD_NOT_ALLOWED', `${method.toUpperCase()} ${fullPath}: this route answers ${candidates.map((r) => r.method).join(', ')}`);
  }
  return { route, version };
}

export function errorResponse(err: unknown): ApiResponse {
  const e = toEvioError(err);
  return { kind: 'json', http: e.http, body: e.toBody() };
}

/** Runs one request through the route table. Never throws. */
export async function dispatch(engine: Engine, req: ApiRequest): Promise<ApiResponse> {
  try {
    const { route } = matchRoute(req.method, req.path, engine.settings.prefix);
    return await route.handler(req, engine);
  } catch (err) {
    return errorResponse(err);
  }
}
