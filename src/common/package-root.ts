// Workers load compiled JavaScript from dist/, also when the calling code runs from src/ under
// vitest: the package root is found by walking up from this module to the folder that holds
// package.json, and the worker entry is taken from its dist/worker/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return (cached = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** Absolute path of a compiled worker entry, e.g. workerEntry('iolog-tasks'); `folder` under dist/ (default worker). */
export function workerEntry(name: string, folder = 'worker'): string {
  return join(packageRoot(), 'dist', folder, `${name}.js`);
}
