// The systemd unit of docs/logserver.md is copied as it is by operators: systemd-analyze
// verify must accept it (.ci/run installs systemd), and it runs `evio logsrvd` hardened.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const DOC = readFileSync(resolve(import.meta.dirname, '../../docs/logserver.md'), 'utf8');
const unit = [...DOC.matchAll(/^```ini\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).find((t) => /ExecStart=.* logsrvd$/m.test(t));
const dir = mkdtempSync(join(tmpdir(), 'evio-lsd-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/logserver.md: the systemd unit', () => {
  it('runs evio logsrvd as its own user, stops with SIGTERM, writes only its folders', () => {
    expect(unit).toBeDefined();
    expect(unit).toMatch(/^User=evio$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^ProtectSystem=strict$/m);
    expect(unit).toMatch(/^ReadWritePaths=\/var\/lib\/evio \/var\/log\/sudo-io$/m);
    expect(unit).toMatch(/^NoNewPrivileges=yes$/m);
  });

  it('systemd-analyze verify accepts it', (ctx) => {
    if (spawnSync('systemd-analyze', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('systemd-analyze is required in CI (apt-get install systemd)');
      ctx.skip();
    }
    const file = join(dir, 'evio-logsrvd.service');
    writeFileSync(file, unit!);
    const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 30_000 });
    const complaints = `${r.stdout}${r.stderr}`.split('\n').filter((l) => /evio-logsrvd/.test(l) && !/node_modules\/evio\/bin\/evio\.js.*(not|No such)/.test(l));
    expect(complaints).toEqual([]);
  });
});
