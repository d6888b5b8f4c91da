// Every route the service answers, from every handler module.
import { eventRoutes } from './events.js';
import { iologRoutes } from './iolog.js';
import { replayRoutes } from './replay.js';
import { seekRoutes } from './seek.js';
import { purgeRoutes } from './purge.js';
import { exportRoutes } from './export.js';
import type { Route } from '../types.js';

export function allRoutes(): Route[] {
  return [...eventRoutes, ...iologRoutes, ...replayRoutes, ...seekRoutes, ...purgeRoutes, ...exportRoutes];
}
