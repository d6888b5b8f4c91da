// A small import graph of the TypeScript sources: every static `import`/`export ... from`,
// side-effect import and `import('...')` with a literal specifier, resolved to the file it
// names (".js" specifiers name ".ts" sources). Packages and node: modules are left out.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** file (relative to the repository root) -> the source files it imports. */
export type ImportGraph = Map<string, string[]>;

const SPECIFIER = /(?:^|[^\w$.])(?:import|export)\s*(?:type\s+)?(?:[\w$*\s{},]*?\s*from\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Comments are blanked so that an import named in a comment is not read. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = normalize(join(dirname(from), spec));
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const abs of sourceFiles(root)) {
    const file = relative('.', abs);
    const text = withoutComments(readFileSync(abs, 'utf8'));
    const deps = new Set<string>();
    for (const m of text.matchAll(SPECIFIER)) {
      const target = resolveSpecifier(file, (m[1] ?? m[2])!);
      if (target) deps.add(relative('.', target));
    }
    graph.set(file, [...deps].sort());
  }
  return graph;
}

/** Every strongly connected set of two or more files (or a file importing itself), sorted. */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so deep graphs cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const scc: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          scc.push(n);
        } while (n !== top.node);
        if (scc.length > 1 || (graph.get(top.node) ?? []).includes(top.node)) out.push(scc.sort());
      }
    }
  }
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
