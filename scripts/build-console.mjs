// Bundles the console (src/console, TypeScript for the browser) into dist/console with esbuild:
// the page, its script, one stylesheet with xterm.js's CSS, and the Swagger UI's signer. Runs
// after tsc in `npm run build` and `prepare`; nothing is built at run time. The console's types
// are checked by `tsc -p src/console/tsconfig.json` (npm run typecheck), esbuild only strips them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'console');
const out = join(root, 'dist', 'console');
mkdirSync(out, { recursive: true });

const common = { bundle: true, minify: true, sourcemap: false, target: ['chrome110', 'firefox110', 'safari16'], logLevel: 'warning', legalComments: 'linked' };
await build({ ...common, entryPoints: { console: join(src, 'main.ts') }, outdir: out, format: 'iife' });
await build({ ...common, entryPoints: { 'swagger-sign': join(src, 'swagger-sign.ts') }, outdir: out, format: 'iife' });
await build({ ...common, entryPoints: { console: join(src, 'console.css') }, outdir: out, loader: { '.css': 'css' } });
copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
