// docs/service.md lists every route the service answers, and nothing else.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { allRoutes } from '../../src/app/routes/index.js';

it('docs/service.md has one row per route', () => {
  const doc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| (GET|DELETE|POST|PUT) \| `([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
  const routes = allRoutes().map((r) => `${r.method} ${r.path}`).sort();
  expect(rows).toEqual(routes);
});
