// A command whose work can never end must not look like a success. When the event loop has
// nothing left to wait for while the command's promise is pending (a bug: a callback that never
// comes — a damaged gzip member once left `evio events query --family` so), Node would exit 0
// with no output, an empty answer. `failIfUnsettled` (bin/evio.js) turns that into 1000 and
// exit status 1. Run in child processes (the built dist, as bin/evio.js uses it).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const main = new URL('../../dist/cli/main.js', import.meta.url).href;

function child(promise: string): { status: number | null; stderr: string } {
  const code = `import { failIfUnsettled } from ${JSON.stringify(main)};\nfailIfUnsettled(${promise});\n`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('failIfUnsettled', () => {
  it('a command left waiting for ever exits 1 with 1000', () => {
    const r = child('new Promise(() => {})');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^evio: 1000 the command stopped before it finished/);
  });

  it('a command that finishes is left alone (resolved or rejected)', () => {
    expect(child('Promise.resolve(0)')).toEqual({ status: 0, stderr: '' });
    expect(child('new Promise((r) => setTimeout(r, 20))')).toEqual({ status: 0, stderr: '' });
    // A rejection is the caller's to report (bin/evio.js prints it): nothing is added.
    expect(child('Promise.reject(new Error("y"))')).toEqual({ status: 0, stderr: '' });
  });
});
