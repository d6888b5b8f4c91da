// Every route the service answers, from every handler module.
import { eventRoutes } from './handlers/events.js';
import { iologRoutes } from './handlers/iolog.js';
import { replayRoutes } from './handlers/replay.js';
import { purgeRoutes } from './handlers/purge.js';
import type { Route } from './types.js';

export function allRoutes(): Route[] {
  return [...eventRoutes, ...iologRoutes, ...replayRoutes, ...purgeRoutes];
}
