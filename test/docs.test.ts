// Runs every ```js block of docs/api.md as an ES module importing 'evio' (the built package,
// through its own name), so the documented API cannot drift from the code.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const doc = readFileSync(join(root, 'docs/api.md'), 'utf8');
const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
// What each example must print (in order of appearance).
const EXPECT: RegExp[] = [
  /evio-api-demo\/events\.ndjson UTC/,
  /epoch: '2026-01-01 00:00:00'[\s\S]*exitstatus: 'Command finished with exit status 0'/,
  /read: 1000,\s+written: 1000,\s+skipped: 0[\s\S]*read: 1000,\s+written: 0,\s+skipped: 1000[\s\S]*deleted: [1-9]\d*/,
  /^200 \{\s+status: 0,\s+destinations:/,
  /^true 1104 1104 etype=F needs dump=1/,
];

describe('docs/api.md examples run', () => {
  it('has one expectation per example', () => expect(blocks.length).toBe(EXPECT.length));
  blocks.forEach((code, i) => {
    it(`example ${i + 1}`, () => {
      // Inside the package folder so that `import 'evio'` resolves to this package.
      const dir = join(root, '.tmp', 'doc-examples');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `example-${i + 1}.mjs`);
      writeFileSync(file, code);
      try {
        const out = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
        expect(out).toMatch(EXPECT[i]!);
      } finally {
        rmSync(file, { force: true });
      }
    });
  });
});
