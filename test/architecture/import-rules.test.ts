// The layering of DESIGN §1, kept by a test: the two doors (src/http, src/cli) call the
// application layer (src/app) and nothing below it; the application layer is the only importer
// of the worker pool; src/eventlog and src/iolog are siblings that never import each other;
// src/replay imports only the common ground; and no import cycle exists anywhere in src/.
// The common ground is src/common/ and the files directly in src/ (errors, settings, paths ...).
// Every import counts, `import type` included: a type that reaches upward ties the layers too.
import { describe, expect, it } from 'vitest';
import { importGraph, findCycles, type ImportGraph } from './import-graph.js';

/** Which top-level part a module belongs to: a folder under src/, or "ground" for the rest. */
function partOf(file: string): string {
  const m = /^src\/([^/]+)\//.exec(file);
  if (!m) return file === 'src/index.ts' ? 'library' : 'ground';
  return m[1] === 'common' ? 'ground' : m[1]!;
}

/** What each part may import (besides itself). "library" (src/index.ts) may import anything. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  cli: ['app', 'ground'],
  http: ['app', 'ground'],
  logsrvd: ['app', 'ground'],
  app: ['worker', 'eventlog', 'iolog', 'replay', 'ground'],
  worker: ['eventlog', 'iolog', 'replay', 'ground'],
  eventlog: ['ground'],
  iolog: ['replay', 'ground'],
  replay: ['ground'],
  console: [],
  ground: ['ground'],
};

/** Single edges allowed across the rules: `evio serve` and `evio logsrvd` start the other doors. */
const ALLOWED_EDGES: ReadonlySet<string> = new Set(['src/cli/serve.ts -> src/http/server.ts', 'src/cli/serve.ts -> src/logsrvd/server.ts', 'src/cli/logsrvd.ts -> src/logsrvd/server.ts']);

export function violations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    const fromPart = partOf(from);
    if (fromPart === 'library') continue;
    const allowed = ALLOWED[fromPart];
    for (const to of tos) {
      const toPart = partOf(to);
      if (toPart === fromPart || ALLOWED_EDGES.has(`${from} -> ${to}`)) continue;
      if (!allowed || !allowed.includes(toPart)) out.push(`${from} -> ${to} (${fromPart} may not import ${toPart})`);
    }
  }
  return out.sort();
}

describe('import rules of src/', () => {
  const graph = importGraph('src');

  it('reads the whole tree', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/cli/main.ts')).toBeDefined();
  });

  it('no layer imports upward, eventlog and iolog never import each other, replay imports only the ground', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('fails when a forbidden import is added', () => {
    const bad = new Map(graph);
    bad.set('src/cli/main.ts', [...(graph.get('src/cli/main.ts') ?? []), 'src/eventlog/stores.ts']);
    bad.set('src/eventlog/query.ts', [...(graph.get('src/eventlog/query.ts') ?? []), 'src/iolog/walk.ts']);
    bad.set('src/replay/parser.ts', [...(graph.get('src/replay/parser.ts') ?? []), 'src/iolog/walk.ts']);
    bad.set('src/http/server.ts', [...(graph.get('src/http/server.ts') ?? []), 'src/worker/pool.ts']);
    const before = new Set(violations(graph));
    expect(violations(bad).filter((v) => !before.has(v))).toEqual([
      'src/cli/main.ts -> src/eventlog/stores.ts (cli may not import eventlog)',
      'src/eventlog/query.ts -> src/iolog/walk.ts (eventlog may not import iolog)',
      'src/http/server.ts -> src/worker/pool.ts (http may not import worker)',
      'src/replay/parser.ts -> src/iolog/walk.ts (replay may not import iolog)',
    ]);
  });

  it('fails when a cycle is added', () => {
    const bad = new Map(graph);
    bad.set('src/errors.ts', [...(graph.get('src/errors.ts') ?? []), 'src/settings-logsrvd.ts']);
    expect(findCycles(bad)).toContainEqual(['src/errors.ts', 'src/settings-logsrvd.ts']);
    expect(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['d']], ['e', ['a']]]))).toEqual([['a', 'b', 'c'], ['d']]);
  });
});
